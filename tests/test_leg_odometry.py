"""Leg odometry (humanoid_env.envs.odometry): the supporting feet remove a slowly varying error of
the estimated base linear velocity.

The estimate here has one error only, a base-velocity bias of std 0.05 m/s with a 60 s correlation
time (nearly constant over the test's 1 s). With a time constant of 0.1 s the correction has had
10 time constants at the end: what is left is the bias's drift over the filter's lag (about
0.05 m/s x sqrt(2 x 0.1 s / 60 s) = 3 mm/s at most, typically far less) and the feet's own slip
on the support. The tests allow 5 mm/s, a tenth of the bias's std; without the correction the
error is the bias itself (> 20 mm/s for these seeds), and a correction with the wrong sign doubles it.
On the seesaw the feet stand on the rocking board: its velocity under each foot must be taken
out, or the board's rocking (0.1 m/s at the feet at 0.4 rad/s) would read as a velocity error;
an exact check puts the robot on a board that rocks with it rigidly.
"""

from __future__ import annotations

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the environments)
from humanoid_env.envs.odometry import LegOdometry
from humanoid_env.robots.scene_constants import SEESAW_SLIDE_JOINT, SEESAW_TILT_JOINT

BIAS_ONLY = {"base_linear_velocity_bias_mps": 0.05, "bias_time_constant_s": 60.0}
TOLERANCE_MPS = 0.005  # a tenth of the bias's std (module docstring)


def _final_error(env_id: str, leg_odometry_s: float | None, seed: int) -> tuple[np.ndarray, dict]:
    env = gym.make(env_id, estimation=BIAS_ONLY, leg_odometry_s=leg_odometry_s, push_magnitude_n=(0.0, 0.0))
    env.reset(seed=seed)
    for _ in range(50):  # 1 s
        _, _, terminated, _, info = env.step(np.zeros(env.action_space.shape))
        assert not terminated
    return info["estimate"]["base_linear_velocity_error_mps"], info["estimate"]


@pytest.mark.parametrize("env_id", ["HumanoidWBC-v0", "HumanoidWBCSeesaw-v0"])
def test_the_feet_remove_a_base_velocity_bias(env_id):
    seed = 1
    uncorrected, estimate = _final_error(env_id, None, seed)
    assert "leg_odometry_correction_mps" not in estimate
    assert np.linalg.norm(uncorrected) > 0.02  # the bias this seed drew
    corrected, estimate = _final_error(env_id, 0.1, seed)
    assert np.linalg.norm(corrected) < TOLERANCE_MPS, corrected
    assert np.linalg.norm(estimate["leg_odometry_correction_mps"]) > 0.02


def test_on_a_rocking_board_the_feet_see_only_the_velocity_error():
    """The robot moves rigidly with the board (tilt rate 0.5 rad/s, the board's origin at 0.1 m/s),
    its estimated base velocity off by ``error``: the feet's velocity relative to the board is
    ``error`` exactly, so a one-step filter (gain 1) corrects by ``error`` and nothing more."""
    u = gym.make("HumanoidWBCSeesaw-v0", estimation="moderate", leg_odometry_s=1.0).unwrapped
    u.reset(seed=0)
    m, d = u.model, mujoco.MjData(u.model)
    d.qpos[:] = u.data.qpos
    mujoco.mj_kinematics(m, d)
    mujoco.mj_comPos(m, d)
    omega, origin_velocity = np.array([0.5, 0.0, 0.0]), np.array([0.0, 0.1, 0.0])
    board = u.task.seesaw_body_id
    d.qvel[:] = 0.0
    d.qvel[m.joint(SEESAW_TILT_JOINT).dofadr[0]] = omega[0]
    d.qvel[m.joint(SEESAW_SLIDE_JOINT).dofadr[0]] = origin_velocity[1]
    root, base = u.bridge.root_dof, u.plant.root_body
    rigid = origin_velocity + np.cross(omega, d.xpos[base] - d.xpos[board])
    error = np.array([0.03, -0.02, 0.01])
    d.qvel[root : root + 3] = rigid + error
    d.qvel[root + 3 : root + 6] = d.xmat[base].reshape(3, 3).T @ omega  # MuJoCo: body axes
    odometry = LegOdometry(m, root, 1e-9, u.actuation.supporting_feet)  # gain 1 - exp(-2e6) = 1
    qvel = d.qvel.copy()
    odometry.correct(d, qvel)
    assert np.allclose(odometry.correction, error, atol=1e-12)
    assert np.allclose(qvel[root : root + 3], rigid, atol=1e-12)


def test_only_supporting_feet_count():
    env = gym.make("HumanoidWBC-v0", estimation="moderate", leg_odometry_s=1.0)
    env.reset(seed=0)
    u = env.unwrapped
    assert [site for site, _ in u.actuation.supporting_feet()] == u.plant.sole_sites
    u.controller.set_contact_active("right_foot", False)
    assert [site for site, _ in u.actuation.supporting_feet()] == u.plant.sole_sites[:1]
    seesaw = gym.make("HumanoidWBCSeesaw-v0", estimation="moderate", leg_odometry_s=1.0).unwrapped
    seesaw.reset(seed=0)
    assert {body for _, body in seesaw.actuation.supporting_feet()} == {seesaw.task.seesaw_body_id}


@pytest.mark.parametrize(
    "kwargs, message",
    [({"leg_odometry_s": -1.0, "estimation": "moderate"}, "leg_odometry_s must be None or a time constant in"),
     ({"leg_odometry_s": "fast", "estimation": "moderate"}, "leg_odometry_s must be None"),
     ({"leg_odometry_s": True, "estimation": "moderate"}, "leg_odometry_s must be None"),
     ({"leg_odometry_s": 1.0}, "leg_odometry_s needs an estimated state"),
     ({"leg_odometry_s": 1.0, "estimation": "moderate", "action_mode": "torque"}, "action_mode='wbc'")],
)  # fmt: skip
def test_bad_leg_odometry_values_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make("HumanoidWBC-v0", **kwargs)
