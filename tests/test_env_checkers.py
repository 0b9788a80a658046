"""Every environment passes Gymnasium's and stable-baselines3's env checkers in every action mode."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import humanoid_env  # noqa: F401  (registers the envs)

ENV_IDS = ("HumanoidWBC-v0", "HumanoidWBCWall-v0", "HumanoidWBCSeesaw-v0")


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("mode", ["wbc", "torque", "pd"])
def test_env_checkers_pass(env_id, mode):
    # timing_in_info=False: the QP's wall-clock time would make two identical steps' info differ.
    env = gym.make(env_id, action_mode=mode, timing_in_info=False)
    gym_check_env(env.unwrapped, skip_render_check=True)
    sb3_check_env(env.unwrapped, warn=False)
    env.close()
