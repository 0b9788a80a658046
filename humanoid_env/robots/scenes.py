"""Scenes for a robot whose model is generated: Hubo-lite's hand-written scene files with the
robot's MJCF included in place of ``robot.xml`` and a ``home`` keyframe from its description.

The world (floor, wall, board; light, friction) stays one file per scene for every robot; only
the robot and where it stands change. Where it stands ([`standing_qpos`][humanoid_env.robots.scenes.standing_qpos]):

- ``flat``: the base above the world origin, soles on the ground.
- ``wall``: as on flat ground, moved sideways so that the right hand's sphere (in the scene's
  posture) is [`WALL_GAP_M`][humanoid_env.robots.scenes.WALL_GAP_M] from the wall's surface, as Hubo-lite's hand-written scene.
- ``seesaw``: the soles' midpoint on the centre of the level board's top face.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from humanoid_env.robots.cache import cache_dir, cached_file, content_key, write_cached_file
from humanoid_env.robots.hubo_lite import ASSETS

if TYPE_CHECKING:
    from humanoid_env.robots.description import RobotDescription

#: Scene -> the hand-written scene whose world a generated scene reuses.
TEMPLATES = {"flat": ASSETS / "scene_flat.xml", "wall": ASSETS / "scene_wall.xml", "seesaw": ASSETS / "scene_seesaw.xml"}
#: Distance from the right hand's sphere to the wall in the wall scene's home keyframe [m]
#: (the wall env's settling brings the hand onto the wall).
WALL_GAP_M = 0.012
_INCLUDE = '<include file="robot.xml"/>'
_KEYFRAME = re.compile(r"\s*<keyframe>.*?</keyframe>", flags=re.S)


def standing_qpos(description: RobotDescription, model: mujoco.MjModel, scene: str) -> np.ndarray:
    """``qpos`` of ``model`` (``scene`` holding the robot) with the robot upright in its home
    posture of that scene, placed as the module docstring says; other joints keep ``qpos0``."""
    qpos = model.qpos0.copy()
    root = int(model.joint(description.root_joint).qposadr[0])
    qpos[root : root + 7] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]  # MuJoCo's quaternion: w first
    for name, angle in description.home_posture(scene).items():
        qpos[model.joint(name).qposadr[0]] = angle
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    soles = np.mean([data.site(limb.site).xpos for limb in description.feet.values()], axis=0)
    qpos[root + 2] = -soles[2]
    if scene == "wall":
        hand = data.site(description.hands["right_hand"].site).xpos
        surface = model.site("wall_surface").pos[1]
        qpos[root + 1] = surface + WALL_GAP_M + description.hand_radius("right_hand") - hand[1]
    elif scene == "seesaw":
        board = model.geom("seesaw_board")
        centre = data.site("seesaw_centre").xpos
        top = centre[2] + board.pos[2] + board.size[2]
        qpos[root : root + 3] += np.array([centre[0], centre[1], top]) - np.array([soles[0], soles[1], 0.0])
    return qpos


def derived_scene(description: RobotDescription, scene: str) -> Path:
    """The MJCF of ``scene`` (a key of [`TEMPLATES`][humanoid_env.robots.scenes.TEMPLATES]) holding ``description``'s robot, built
    on first use into the cache ([`cache_dir`][humanoid_env.robots.cache.cache_dir]; a damaged cached file
    is rebuilt, see [`humanoid_env.robots.cache`][humanoid_env.robots.cache])."""
    robot_file = description.mjcf_path()
    template = TEMPLATES[scene].read_text()
    posture = repr(sorted(description.home_posture(scene).items()))
    path = cache_dir() / f"{robot_file.stem}_{scene}_{content_key((template, str(robot_file), posture, repr(WALL_GAP_M)))}.xml"
    if cached_file(path) is not None:
        return path
    if _INCLUDE not in template:
        raise ValueError(f"{TEMPLATES[scene]} must include the robot as {_INCLUDE}")
    text = _KEYFRAME.sub("", template.replace(_INCLUDE, f'<include file="{robot_file}"/>'))
    qpos = standing_qpos(description, mujoco.MjModel.from_xml_string(text), scene)
    keyframe = f'  <keyframe>\n    <key name="home" qpos="{" ".join(repr(float(x)) for x in qpos)}"/>\n  </keyframe>\n</mujoco>'
    return write_cached_file(path, text.replace("</mujoco>", keyframe))
