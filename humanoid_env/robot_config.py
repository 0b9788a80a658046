"""The default robot's settings (Hubo-lite, `humanoid_env.robots.hubo_lite.HUBO_LITE`)
under the names code used before robots became data, and the scenes' constants (wall, seesaw).

Everything robot-specific lives in its [`RobotDescription`][humanoid_env.robots.description.RobotDescription]; the
functions here are that description's methods for the default robot. The simulator's friction
coefficient is 1.0 (see ``assets/robot.xml``); the controller assumes 0.7 so that the forces it
plans stay inside the real cone with a margin.
"""

from __future__ import annotations

from humanoid_env.robots.hubo_lite import ASSETS, HUBO_LITE
from wbc_layer import ContactConfig, ControllerConfig

ROBOT_XML = HUBO_LITE.mjcf_path()
FLAT_SCENE_XML = HUBO_LITE.scene_path("flat")

#: Friction coefficient the controller assumes at feet and hands (simulator: 1.0).
CONTROLLER_FRICTION = HUBO_LITE.controller_friction
#: Centre-of-pressure bounds the controller keeps [m]: 85% of the sole box (0.10 x 0.05 half
#: sizes, read from the model), so a planned CoP never sits on the edge of the soft simulated
#: contact and tips it.
FOOT_HALF_LENGTH, FOOT_HALF_WIDTH = HUBO_LITE.cop_half_sizes()


def foot_contacts(min_normal_force: float = 0.0) -> tuple[ContactConfig, ...]:
    """The two flat-foot contacts ``left_foot`` and ``right_foot`` at the sole sites."""
    return HUBO_LITE.foot_contacts(min_normal_force)


def default_controller_config(**overrides) -> ControllerConfig:
    """Standing controller: both feet supporting, torso held upright."""
    return HUBO_LITE.controller_config(**overrides)


#: The wall scene (``assets/scene_wall.xml``): wall surface at ``y = WALL_SURFACE_Y`` [m], its
#: normal into the robot ``WALL_NORMAL`` (world axes).
WALL_SCENE_XML = ASSETS / "scene_wall.xml"
WALL_SURFACE_Y = -0.355
WALL_NORMAL = (0.0, 1.0, 0.0)
#: Radius of the hands' collision spheres [m] (sites ``<side>_hand`` at their centres).
HAND_RADIUS = HUBO_LITE.hand_radius()


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


#: The seesaw scene (``assets/scene_seesaw.xml``, *iCub Balancing on a Seesaw*): body ``SEESAW_BODY`` (frame origin at
#: the centre of curvature of its underside), its tilt hinge and the slide tied to it by the
#: rolling equality ``seesaw_y = -R seesaw_tilt`` (R is read from that equality by the env).
SEESAW_SCENE_XML = ASSETS / "scene_seesaw.xml"
SEESAW_BODY = "seesaw"
SEESAW_TILT_JOINT = "seesaw_tilt"
SEESAW_SLIDE_JOINT = "seesaw_y"
SEESAW_ROLLING_EQUALITY = "seesaw_rolling"
SEESAW_BOARD_GEOM = "seesaw_board"
