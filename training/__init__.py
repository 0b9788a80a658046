"""Command-line programs: evaluation rollouts (``training.evaluate``) and training."""
