"""HumanoidWBCWall-v0: API checks, start state on the wall, determinism, rewards, force QP."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401
from humanoid_env.robots.hubo_lite import HUBO_LITE

NO_PUSH = {"push_magnitude_n": (0.0, 0.0)}
HAND = "right_hand"


def make(**kwargs) -> gym.Env:
    return gym.make("HumanoidWBCWall-v0", **kwargs)


@pytest.mark.parametrize("mode, size", [("wbc", 5), ("torque", 23), ("pd", 23)])
def test_spaces_and_observation_layout(mode, size):
    env = make(action_mode=mode)
    assert env.spec.max_episode_steps == 1000
    structure = env.unwrapped.observation_structure
    assert env.action_space.shape == (size,)
    assert sum(structure.values()) == env.observation_space.shape[0] == (80 if mode == "wbc" else 98)
    assert structure["previous_action"] == size and structure["hand_force"] == 3 and structure["hand_force_command"] == 1
    obs, _ = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape
    env.close()


def test_episode_starts_with_feet_flat_and_hand_on_the_wall():
    env = make(**NO_PUSH)
    for seed in (0, 1):
        _, info = env.reset(seed=seed)
        u = env.unwrapped
        assert info["hand_in_contact"] and info["hand_force_n"] > 1.0
        assert info["contact_forces"][HAND][1] > 1.0  # the wall pushes +y on the hand
        for foot, site in zip(("left_foot", "right_foot"), u.plant.sole_sites, strict=True):
            assert info["contact_forces"][foot][2] > 10.0  # touching
            assert abs(u.data.site_xpos[site][2]) < 0.003  # sole on the floor
            assert u.data.site_xmat[site][8] > 0.999  # flat
        assert u.plant.tilt() < 0.05
        assert np.all(np.abs(u.data.qvel) < 1e-9)
    env.close()


def test_nominal_policy_tracks_commanded_force_and_lean():
    env = make(**NO_PUSH, com_lean_range_m=(0.02, 0.02))
    env.reset(seed=4)
    errors = []
    for _ in range(150):  # 3 s
        _, _, terminated, truncated, info = env.step(np.zeros(5))
        assert not (terminated or truncated)
        assert info["wbc_status"] == "solved"
        if info["time"] > 2.0:
            errors.append(info["hand_force_n"] - info["hand_force_command_n"])
    assert np.sqrt(np.mean(np.square(errors))) < 0.5
    assert info["com"][1] < env.unwrapped.com_nominal[1] - 0.015  # leaned towards the wall
    env.close()


def test_reward_is_exact_sum_of_terms_and_info_keys():
    env = make()
    env.reset(seed=0)
    for action in (np.zeros(5), np.array([0.5, -0.5, 0.2, 0.1, 1.0]), np.full(5, 3.0)):
        _, reward, _, _, info = env.step(action)
        terms = {k: v for k, v in info.items() if k.startswith("reward_")}
        assert {"reward_hand_force", "reward_com_tracking", "reward_alive"} <= set(terms)
        total = 0.0
        for value in terms.values():
            total += value
        assert reward == total
        for key in ("com", "com_ref", "contact_forces", "contact_force_targets", "wbc_status",
                    "hand_force_n", "hand_force_command_n", "hand_force_target_n", "hand_contact_lost_s"):
            assert key in info
        assert set(info["contact_forces"]) == {"left_foot", "right_foot", HAND}
        assert HAND in info["contact_force_targets"]
    env.close()


def test_controlled_hand_force_tracks_target_in_qp_and_never_pulls():
    env = make(**NO_PUSH)
    env.reset(seed=0)
    u = env.unwrapped
    controller = u.controller
    q, v = u.bridge.to_pinocchio(u.data.qpos, u.data.qvel)
    contact = controller.contact(HAND)
    assert contact.mode == "controlled" and contact.min_normal_force == 0.0
    # Partial force control's split: the feet purely supporting (the env's default soft share targets off).
    for foot in ("left_foot", "right_foot"):
        controller.task(f"force_{foot}").active = False
    cases = [(25.0, 25.0, 1e5, 1e-5), (5.0, 5.0, 1e5, 1e-5), (25.0, 25.0, u.config["hand_force_weight"], 5e-3),
             (-10.0, 0.0, 1e5, 0.0), (100.0, 60.0, 1e5, 0.0)]
    for target, expected, weight, tolerance in cases:
        controller.set_force_target(HAND, target, weight=weight)
        result = controller.compute(q, v)  # never QPSolveError: a pull is refused by the bounds
        force = result.contact_forces[HAND]
        normal = contact.normal_force(force)
        tangential = np.hypot(force[0], force[2])
        if target == expected:
            # Feasible: tracked to the solver's tolerance once the task dominates the other costs
            # (a weighted QP: at the env's weight 10 the force regularisation leaves ~1e-3 N; the
            # env's integral feedback removes it in closed loop).
            assert normal == pytest.approx(target, abs=tolerance)
        else:  # infeasible (pull on the wall, or above the maximum): held at the bound
            assert normal == pytest.approx(expected, abs=1e-6)
        assert tangential <= HUBO_LITE.controller_friction * normal + 1e-6
    env.close()


def test_losing_the_wall_ends_the_episode_without_a_fall():
    env = make(**NO_PUSH, hand_contact_lost_max_s=0.2, hand_force_rate_limit_nps=500.0)
    env.reset(seed=0)
    action = np.array([0.0, 0.0, 0.0, -1.0, 0.0])  # hand force target 0: the hand stops pushing
    for _ in range(60):
        _, _, terminated, _, info = env.step(action)
        if terminated:
            break
    assert terminated and not info["fell"]
    assert info["hand_contact_lost_s"] > 0.2 and info["reward_fall"] == 0.0
    env.close()


def test_hand_force_authority_bounds_what_the_policy_changes():
    """a[3] = -1 asks for the hand force target command - hand_force_action_n (clipped at 0),
    reached at the rate limit. The command is held constant (its goal range is the single value
    settle_force_n = 30 N, where it starts), so the expectation follows from the keywords alone:
    after 10 env steps (100 physics steps of 2 ms at 100 N/s: at most 20 N) 60 N of authority has
    moved the target by the rate limit's 20 N (towards 0 N), 5 N by 5 N, none by 0 N. Exact to
    1e-9 N (100 additions of 0.2 N)."""
    settle, rate = 30.0, 100.0  # [N], [N/s]
    steps = 10
    for authority in (60.0, 5.0, 0.0):
        env = make(**NO_PUSH, hand_force_action_n=authority, settle_force_n=settle,
                   hand_force_command_range_n=(settle, settle), hand_force_rate_limit_nps=rate)
        env.reset(seed=0)
        u = env.unwrapped
        max_change = rate * u.dt_physics * u.frame_skip * steps  # 20 N
        expected_target = max(settle - authority, 0.0, settle - max_change)
        for _ in range(steps):
            _, _, _, _, info = env.step(np.array([0.0, 0.0, 0.0, -1.0, 0.0]))
        assert info["hand_force_command_n"] == pytest.approx(settle, abs=1e-9)
        assert info["hand_force_target_n"] == pytest.approx(expected_target, abs=1e-9), authority
        env.close()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"hand_force_maximum": 3}, "unknown keyword"),
        ({"hand_force_action_n": 70.0}, "hand_force_action_n"),
        ({"hand_force_command_range_n": (10.0, 80.0)}, "hand_force_command_range_n"),
        ({"settle_force_n": 0.0}, "settle_force_n"),
        ({"com_lean_range_m": (0.0, 0.2)}, "com_lean_range_m"),
    ],
)
def test_bad_keywords_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make(**kwargs)
