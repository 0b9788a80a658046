"""Shared fixtures: the robot in MuJoCo and in pinocchio, and random states."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from humanoid_env.robots.hubo_lite import HUBO_LITE
from humanoid_env.sim_bridge import SimBridge
from wbc_layer import RobotModel, WholeBodyController
from wbc_layer.config import BACKENDS

#: Same seed, same trajectory, to this much [m, rad, m/s, s] after a rollout. Not bit for bit:
#: proxsuite's dense kernels (and, seen once, the DAQP path too) round differently depending on
#: where their arrays land in memory, 1e-16..1e-12 per solve, which a pushed robot amplifies to
#: about 1e-9 within 100 steps. Different seeds differ by more than 1e-4.
REPRODUCIBILITY_TOL = 1e-6


@pytest.fixture(scope="session")
def mj_model() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_path(str(HUBO_LITE.scene_path("flat")))


@pytest.fixture
def mj_data(mj_model) -> mujoco.MjData:
    data = mujoco.MjData(mj_model)
    mujoco.mj_resetDataKeyframe(mj_model, data, mj_model.key("home").id)
    mujoco.mj_forward(mj_model, data)
    return data


@pytest.fixture
def robot() -> RobotModel:
    return RobotModel.from_mjcf(HUBO_LITE.mjcf_path())


@pytest.fixture
def bridge(mj_model, robot) -> SimBridge:
    return SimBridge(mj_model, robot.joint_names)


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """The controller's backend (one since the Python reference tick was retired: the compiled
    core; tests/oracles.py states its formulation)."""
    return request.param


@pytest.fixture
def controller(robot, bridge, mj_data, backend) -> WholeBodyController:
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    return WholeBodyController(robot, HUBO_LITE.controller_config(backend=backend))


def random_state(mj_model, data, rng: np.random.Generator, joint_noise=0.3, velocity_scale=1.0) -> None:
    """Home pose with random joint offsets, a random base orientation and random velocities."""
    mujoco.mj_resetDataKeyframe(mj_model, data, mj_model.key("home").id)
    data.qpos[7:] += rng.uniform(-joint_noise, joint_noise, mj_model.nq - 7)
    data.qpos[7:] = np.clip(data.qpos[7:], mj_model.jnt_range[1:, 0], mj_model.jnt_range[1:, 1])
    quat = rng.normal(size=4)
    data.qpos[3:7] = quat / np.linalg.norm(quat)
    data.qvel[:] = rng.normal(0.0, velocity_scale, mj_model.nv)
    mujoco.mj_forward(mj_model, data)


def standing_state(mj_model, data, rng: np.random.Generator, noise=0.02, velocity_scale=0.05) -> None:
    """Home pose, feet flat, with small joint perturbations and velocities (a 'standing state')."""
    mujoco.mj_resetDataKeyframe(mj_model, data, mj_model.key("home").id)
    data.qpos[7 + 12 :] += rng.uniform(-noise, noise, mj_model.nq - 7 - 12)  # waist and arms
    data.qvel[6:] = rng.normal(0.0, velocity_scale, mj_model.nv - 6)
    mujoco.mj_forward(mj_model, data)
