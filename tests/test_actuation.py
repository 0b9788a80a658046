"""One actuation object per action mode (issue 17): the action's size and named layout, and
the torques each mode computes."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the env ids)

NA = 23  # Hubo-lite's actuated joints


@pytest.mark.parametrize(
    ("env_id", "kwargs", "structure"),
    [
        ("HumanoidWBC-v0", {}, {"com_offset": 3, "foot_force_share": 1}),
        ("HumanoidWBCWall-v0", {}, {"com_offset": 3, "hand_force": 1, "foot_force_share": 1}),
        ("HumanoidWBCSeesaw-v0", {}, {"com_offset": 3, "foot_force_share": 1}),
        ("HumanoidWBCSeesaw-v0", {"board_tilt_action_rad": 0.05}, {"com_offset": 3, "foot_force_share": 1, "board_tilt": 1}),
        ("HumanoidWBC-v0", {"action_mode": "torque"}, {"joint_torques": NA}),
        ("HumanoidWBCWall-v0", {"action_mode": "pd"}, {"joint_targets": NA}),
    ],
)
def test_action_structure_is_the_action_layout(env_id, kwargs, structure):
    env = gym.make(env_id, **kwargs).unwrapped
    assert env.action_structure == structure
    assert env.action_space.shape == (sum(structure.values()),)
    assert env.observation_structure["previous_action"] == env.action_space.shape[0]
    # the blocks cut the action in order, without gaps or overlaps
    action = np.arange(env.action_space.shape[0], dtype=float)
    assert np.array_equal(np.concatenate(list(env.actuation.blocks(action).values())), action)


def test_wall_blocks_are_decoded_by_name():
    """The wall's action puts the hand force between the CoM offset and the foot share: its
    ``foot_force_share`` block (a[4]) moves the feet's targets, its ``hand_force`` block (a[3]) the
    hand's (feed-forward: command + a * 60 N)."""
    env = gym.make("HumanoidWBCWall-v0").unwrapped
    env.reset(seed=0)
    action = np.zeros(5)
    action[env.actuation.index("foot_force_share")] = 1.0  # share -> 0.9 at 2 /s: +0.04 per 0.02 s env step
    action[env.actuation.index("hand_force")] = 0.5
    _, _, _, _, info = env.step(action)
    targets = info["contact_force_targets"]
    assert targets["left_foot"] > targets["right_foot"]
    assert abs(env.task.standing.force_share - 0.54) < 1e-9
    # the hand target rate-limited at 100 N/s for 0.02 s from the settled 10 N: 12 N
    assert abs(info["hand_force_target_n"] - 12.0) < 1e-9
    with pytest.raises(ValueError, match=r"no action block 'board_tilt'; blocks: \['com_offset', 'hand_force', 'foot_force_share'\]"):
        env.actuation.index("board_tilt")


def test_torque_and_pd_modes_compute_their_torques():
    env = gym.make("HumanoidWBC-v0", action_mode="torque").unwrapped
    env.reset(seed=0)
    action = np.linspace(-1.0, 1.0, NA)
    tau, status, _ = env.actuation.torques(env.data.qpos, env.data.qvel, action)
    assert status == "off" and np.array_equal(tau, action * env.plant.torque_max)

    env = gym.make("HumanoidWBC-v0", action_mode="pd").unwrapped
    env.reset(seed=0)
    tau, status, _ = env.actuation.torques(env.data.qpos, env.data.qvel, np.zeros(NA))
    q = env.data.qpos[env.bridge.joint_qpos]
    qd = env.data.qvel[env.bridge.joint_dof]
    kp = 4.0 * env.plant.torque_max  # pd_kp_per_nm = 4 /rad, kd = 0.05 s * kp
    expected = np.clip(kp * (env.plant.q_home - q) - 0.05 * kp * qd, -env.plant.torque_max, env.plant.torque_max)
    assert status == "off" and np.allclose(tau, expected, rtol=0, atol=1e-12)
    assert env.controller is None  # no controller is built outside wbc mode
