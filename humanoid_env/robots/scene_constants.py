"""The hand-written scenes' constants (``humanoid_env/assets``): the wall's surface and normal, the
seesaw's bodies, joints and equality. They belong to the scene's world, not to a robot: every
robot's wall and seesaw scene reuses these files' worlds ([`humanoid_env.robots.scenes`][humanoid_env.robots.scenes]).
"""

from __future__ import annotations

from humanoid_env.robots.hubo_lite import ASSETS

#: The wall scene (``assets/scene_wall.xml``): wall surface at ``y = WALL_SURFACE_Y`` [m], its
#: normal into the robot ``WALL_NORMAL`` (world axes).
WALL_SCENE_XML = ASSETS / "scene_wall.xml"
WALL_SURFACE_Y = -0.355
WALL_NORMAL = (0.0, 1.0, 0.0)

#: The seesaw scene (``assets/scene_seesaw.xml``, *iCub Balancing on a Seesaw*): body ``SEESAW_BODY`` (frame origin at
#: the centre of curvature of its underside), its tilt hinge and the slide tied to it by the
#: rolling equality ``seesaw_y = -R seesaw_tilt`` (R is read from that equality by the env).
SEESAW_SCENE_XML = ASSETS / "scene_seesaw.xml"
SEESAW_BODY = "seesaw"
SEESAW_TILT_JOINT = "seesaw_tilt"
SEESAW_SLIDE_JOINT = "seesaw_y"
SEESAW_ROLLING_EQUALITY = "seesaw_rolling"
SEESAW_BOARD_GEOM = "seesaw_board"

__all__ = [
    "SEESAW_BOARD_GEOM",
    "SEESAW_BODY",
    "SEESAW_ROLLING_EQUALITY",
    "SEESAW_SCENE_XML",
    "SEESAW_SLIDE_JOINT",
    "SEESAW_TILT_JOINT",
    "WALL_NORMAL",
    "WALL_SCENE_XML",
    "WALL_SURFACE_Y",
]
