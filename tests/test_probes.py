"""training.probes: the hand-written reference strategies act as documented and are rolled out as
``training.evaluate`` rolls out a policy."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401
from training.evaluate import evaluate
from training.probes import PROBES, run_probe, run_probes

SEESAW = "HumanoidWBCSeesaw-v0"


def test_center_probe_cancels_the_lateral_com_target():
    # The offset scale is 0.04 m per unit action: a target 15 mm to the left asks for -15 mm.
    env = gym.make(SEESAW)
    try:
        env.reset(seed=0)
        u = env.unwrapped
        u.task.command.com_target.set(u.com_nominal + np.array([0.0, 0.015, 0.0]))
        action = PROBES[SEESAW]["center"][1](u)
        assert action.shape == env.action_space.shape
        assert action[1] * u.task.standing.com_offset_low[1] == pytest.approx(0.015)  # -0.375 * -0.04 m
        assert np.all(action[[0, 2, 3]] == 0.0)
    finally:
        env.close()


def test_nominal_probe_reproduces_the_nominal_evaluation():
    # Same seed, same steps: the probe loop must give evaluate's numbers exactly (board angle to 1e-12 rad).
    kwargs = {"push_magnitude_n": (60.0, 60.0), "push_interval_s": (0.2, 0.3)}
    probe = run_probe(SEESAW, kwargs, PROBES[SEESAW]["nominal"][1], episodes=1, seed=3, max_steps=30)[0]
    reference = evaluate(SEESAW, "nominal", episodes=1, seed=3, max_steps=30, env_kwargs=kwargs)["episodes"][0]
    assert probe["length"] == reference["length"] == 30
    assert probe["pushes_total"] >= 1  # the comparison covers a push
    assert probe["board_angle_rms_rad"] == pytest.approx(reference["board_angle_rms_rad"], abs=1e-12)


def test_unknown_probe_and_env_are_named():
    with pytest.raises(ValueError, match=r"unknown probe\(s\) \['wobble'\].*valid: \['center'"):
        run_probes(SEESAW, episodes=1, seed=0, names=["wobble"])
    with pytest.raises(ValueError, match="no probes for 'CartPole-v1'; envs with probes"):
        run_probes("CartPole-v1", episodes=1, seed=0)
