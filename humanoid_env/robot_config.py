"""Deprecated: the default robot's settings under the names code used before robots became data,
and the scenes' constants. Importing it warns (``DeprecationWarning``); it is kept for one release.

Every name here is the same value as before, taken from its new home:

| here | use instead |
|------|-------------|
| `ROBOT_XML` | `HUBO_LITE.mjcf_path()` |
| `FLAT_SCENE_XML` | `HUBO_LITE.scene_path("flat")` |
| `CONTROLLER_FRICTION` | `HUBO_LITE.controller_friction` |
| `FOOT_HALF_LENGTH`, `FOOT_HALF_WIDTH` | `HUBO_LITE.cop_half_sizes()` |
| `HAND_RADIUS` | `HUBO_LITE.hand_radius()` |
| `foot_contacts(...)` | `HUBO_LITE.foot_contacts(...)` |
| `default_controller_config(...)` | `HUBO_LITE.controller_config(...)` |
| `hand_contact(side, ...)` | `HUBO_LITE.hand_contact(f"{side}_hand", ...)` |
| `WALL_*`, `SEESAW_*` | the same names in [`humanoid_env.robots.scene_constants`][humanoid_env.robots.scene_constants] |

``HUBO_LITE`` is the default robot's description in [`humanoid_env.robots.hubo_lite`][humanoid_env.robots.hubo_lite]
(also ``humanoid_env.robots.robot_description("hubo_lite")``), a
[`RobotDescription`][humanoid_env.robots.description.RobotDescription].
"""

from __future__ import annotations

import warnings

# the old names, re-exported from their new homes
from humanoid_env.robots.hubo_lite import ASSETS, HUBO_LITE  # noqa: F401
from humanoid_env.robots.scene_constants import (  # noqa: F401
    SEESAW_BOARD_GEOM,
    SEESAW_BODY,
    SEESAW_ROLLING_EQUALITY,
    SEESAW_SCENE_XML,
    SEESAW_SLIDE_JOINT,
    SEESAW_TILT_JOINT,
    WALL_NORMAL,
    WALL_SCENE_XML,
    WALL_SURFACE_Y,
)
from wbc_layer import ContactConfig, ControllerConfig

warnings.warn(
    "humanoid_env.robot_config is deprecated and goes in the next release: use the robot's description, "
    "humanoid_env.robots.hubo_lite.HUBO_LITE (HUBO_LITE.controller_config(...), HUBO_LITE.foot_contacts(), "
    "HUBO_LITE.hand_contact(...), HUBO_LITE.mjcf_path(), HUBO_LITE.scene_path(\"flat\"), "
    "HUBO_LITE.controller_friction, HUBO_LITE.cop_half_sizes(), HUBO_LITE.hand_radius()), and "
    "humanoid_env.robots.scene_constants for the wall's and seesaw's names",
    DeprecationWarning,
    stacklevel=2,
)

ROBOT_XML = HUBO_LITE.mjcf_path()
FLAT_SCENE_XML = HUBO_LITE.scene_path("flat")

#: Friction coefficient the controller assumes at feet and hands (simulator: 1.0).
CONTROLLER_FRICTION = HUBO_LITE.controller_friction
#: Centre-of-pressure bounds the controller keeps [m]: 85% of the sole box (0.10 x 0.05 half
#: sizes, read from the model), so a planned CoP never sits on the edge of the soft simulated
#: contact and tips it.
FOOT_HALF_LENGTH, FOOT_HALF_WIDTH = HUBO_LITE.cop_half_sizes()
#: Radius of the hands' collision spheres [m] (sites ``<side>_hand`` at their centres).
HAND_RADIUS = HUBO_LITE.hand_radius()


def foot_contacts(min_normal_force: float = 0.0) -> tuple[ContactConfig, ...]:
    """The two flat-foot contacts ``left_foot`` and ``right_foot`` at the sole sites."""
    return HUBO_LITE.foot_contacts(min_normal_force)


def default_controller_config(**overrides) -> ControllerConfig:
    """Standing controller: both feet supporting, torso held upright."""
    return HUBO_LITE.controller_config(**overrides)


def hand_contact(
    side: str = "right",
    normal: tuple[float, float, float] = WALL_NORMAL,
    max_normal_force: float = 60.0,
    active: bool = True,
    frame: str | None = None,
) -> ContactConfig:
    """A hand's *controlled* point contact ``<side>_hand`` (3D force in world axes [N]).

    Its normal force tracks a target (``WholeBodyController.set_force_target``); the friction
    pyramid uses ``CONTROLLER_FRICTION`` (simulator: 1.0) and the normal force stays in
    ``[0, max_normal_force]``: the hand cannot pull. ``normal``: the surface's normal into the
    robot, world axes (a wall on the robot's right: ``(0, 1, 0)``). ``frame``: the contact
    point's frame (default: the site ``<side>_hand`` at the sphere's centre; the wall env adds a
    frame on the sphere's surface, where MuJoCo's friction acts).
    """
    return HUBO_LITE.hand_contact(f"{side}_hand", normal, max_normal_force, active, frame)

