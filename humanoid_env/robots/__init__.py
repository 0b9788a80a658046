"""One description per robot: model source, frames, feet, limits, controller settings."""
