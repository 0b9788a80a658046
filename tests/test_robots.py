"""Robots as data (issue 17): the description of a robot, and the envs reading everything
robot-specific from it."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the env ids)
from humanoid_env.robots import FEET, ROBOTS, SCENES, Limb, robot_description
from humanoid_env.robots.hubo_lite import HUBO_LITE
from wbc_layer import RobotModel

ENV_IDS = ("HumanoidWBC-v0", "HumanoidWBCWall-v0", "HumanoidWBCSeesaw-v0")


def test_sizes_come_from_the_model_geoms():
    # robot.xml: sole boxes 0.20 x 0.10 m, hand spheres r = 3.5 cm; the CoP keeps 85 % of the sole.
    assert HUBO_LITE.sole_half_sizes() == (0.1, 0.05)
    assert HUBO_LITE.cop_half_sizes() == (0.085, 0.0425)
    assert HUBO_LITE.hand_radius() == 0.035
    for contact in HUBO_LITE.foot_contacts():
        assert (contact.half_length, contact.half_width) == (0.085, 0.0425)


def test_sole_sites_sit_on_the_bottom_face_of_the_sole_box():
    """The controller's CoP rectangle is centred on the sole site: the site must be the centre of
    the box's bottom face (to 1 um), or the CoP bounds would be shifted."""
    model = mujoco.MjModel.from_xml_path(str(HUBO_LITE.scene_path("flat")))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    for limb in HUBO_LITE.feet.values():
        geom, site = model.geom(limb.geom), model.site(limb.site)
        rotation = data.geom_xmat[geom.id].reshape(3, 3)
        bottom_centre = data.geom_xpos[geom.id] - rotation[:, 2] * model.geom_size[geom.id, 2]
        assert np.linalg.norm(data.site_xpos[site.id] - bottom_centre) < 1e-6


@pytest.mark.parametrize("scene", SCENES)
def test_scene_home_keyframes_hold_the_description_home_posture(scene):
    """The home posture is data of the robot; each hand-written scene's ``home`` keyframe must
    repeat it, with the scene's posture (the wall scene's right arm)."""
    model = mujoco.MjModel.from_xml_path(str(HUBO_LITE.scene_path(scene)))
    robot = RobotModel.from_mjcf(HUBO_LITE.mjcf_path())
    key = model.key("home")
    home = HUBO_LITE.home_joint_vector(robot.joint_names, scene)
    for name, angle in zip(robot.joint_names, home, strict=True):
        assert key.qpos[model.joint(name).qposadr[0]] == angle, f"{scene}: {name}"


def test_joint_groups_partition_the_actuated_joints():
    robot = RobotModel.from_mjcf(HUBO_LITE.mjcf_path())
    grouped = [name for group in HUBO_LITE.joint_groups.values() for name in group]
    assert sorted(grouped) == sorted(robot.joint_names)


def test_bad_robot_names_and_descriptions_say_what_is_allowed():
    with pytest.raises(ValueError, match=r"robot must be one of \['g1', 'hubo_lite'\]"):
        robot_description("atlas")
    with pytest.raises(ValueError, match="robot must be one of"):
        gym.make("HumanoidWBC-v0", robot="atlas")
    with pytest.raises(ValueError, match="feet must be"):
        dataclasses.replace(HUBO_LITE, feet={"left": Limb("left_sole", "left_foot")})
    with pytest.raises(ValueError, match="unknown scene"):
        dataclasses.replace(HUBO_LITE, scenes={"moon": HUBO_LITE.scenes["flat"]})
    with pytest.raises(ValueError, match="has no 'wall' scene"):
        dataclasses.replace(HUBO_LITE, name="flat_only", scenes={"flat": HUBO_LITE.scenes["flat"]}).scene_path("wall")
    with pytest.raises(ValueError, match="cop_margin"):
        dataclasses.replace(HUBO_LITE, cop_margin=1.5)
    assert robot_description("hubo_lite") is HUBO_LITE and set(ROBOTS) >= {"hubo_lite"}


def test_the_env_takes_the_robot_from_its_description():
    """A description passed as ``robot=`` reaches the controller and the pushes: a CoP margin of
    50 % and the pelvis as push body (both differ from Hubo-lite's 85 % and torso)."""
    narrow = dataclasses.replace(HUBO_LITE, name="hubo_lite_narrow", cop_margin=0.5, push_body="pelvis")
    env = gym.make("HumanoidWBC-v0", robot=narrow).unwrapped
    env.reset(seed=0)
    assert env.description is narrow
    for name in FEET:
        contact = env.controller.contact(name)
        assert (contact.half_length, contact.half_width) == (0.05, 0.025)
    assert env.plant.push_body == env.model.body("pelvis").id
    default = gym.make("HumanoidWBC-v0").unwrapped
    assert default.description is HUBO_LITE and default.plant.push_body == default.model.body("torso").id


def test_wall_surface_is_read_from_the_scene():
    env = gym.make("HumanoidWBCWall-v0").unwrapped
    wall = env.model.geom("wall")
    # the site on the wall's face: the box's centre plus its half thickness, to 1 um
    assert abs(env.task.wall_surface_y - (wall.pos[1] + wall.size[1])) < 1e-6
    assert env.task.hand_radius == 0.035
