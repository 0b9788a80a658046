"""One description per robot: model source, frames, feet, limits, controller settings.

``robot_description(name)`` gives the description the envs' ``robot`` keyword names;
[`ROBOTS`][humanoid_env.robots.ROBOTS] lists them. ``docs/robots.md`` shows how to add one.
"""

from __future__ import annotations

import copyreg
from collections.abc import Callable

from humanoid_env.robots.description import FEET, HANDS, SCENES, Limb, RobotDescription
from humanoid_env.robots.hubo_lite import HUBO_LITE

#: The robot the envs use when none is named.
DEFAULT_ROBOT = "hubo_lite"


def _g1() -> RobotDescription:
    from humanoid_env.robots.g1 import G1  # its model is built from the example-robot-data package

    return G1


#: Robot name -> a function returning its description (imported on demand: a robot whose model
#: comes from an optional package costs nothing until it is asked for).
ROBOTS: dict[str, Callable[[], RobotDescription]] = {"hubo_lite": lambda: HUBO_LITE, "g1": _g1}


def robot_description(robot: str | RobotDescription) -> RobotDescription:
    """The description named ``robot`` (a key of [`ROBOTS`][humanoid_env.robots.ROBOTS]), or ``robot`` itself if it is one."""
    if isinstance(robot, RobotDescription):
        return robot
    if robot not in ROBOTS:
        raise ValueError(f"robot must be one of {sorted(ROBOTS)} or a RobotDescription, got {robot!r}")
    return ROBOTS[robot]()


def _reduce_description(description: RobotDescription):
    """How ``copy`` and ``pickle`` take a description: a registered robot's (the object
    ``robot_description(name)`` returns) by name, so that a copy is that same object and its scene
    makers (the G1's are closures) need not pickle; any other description by its fields."""
    if ROBOTS.get(description.name) is not None and robot_description(description.name) is description:
        return robot_description, (description.name,)
    return object.__reduce_ex__(description, 4)


copyreg.pickle(RobotDescription, _reduce_description)

__all__ = ["DEFAULT_ROBOT", "FEET", "HANDS", "ROBOTS", "SCENES", "Limb", "RobotDescription", "robot_description"]
