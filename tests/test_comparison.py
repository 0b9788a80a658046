"""The comparison tool (training.comparison): bootstrap bounds, verdicts, perturbations, controls."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the envs)
from training.comparison import (
    Claim,
    NoisyNominal,
    OffsetPolicy,
    bootstrap_upper_bound,
    initial_state_noise_hook,
    judge,
    perturbed_env_kwargs,
    rollouts,
)


def records(metric_values, falls, metric="hand_force_rmse_n"):
    return [{metric: float(m), "fell": bool(f)} for m, f in zip(metric_values, falls, strict=True)]


def test_bootstrap_bound_of_a_constant_is_the_constant():
    assert bootstrap_upper_bound([0.25] * 10, 0.9) == pytest.approx(0.25, abs=1e-12)


def test_bootstrap_bound_lies_above_the_mean_and_grows_with_confidence_and_spread():
    rng = np.random.default_rng(1)
    diffs = rng.normal(0.1, 1.0, 30)
    b90, b99 = bootstrap_upper_bound(diffs, 0.9), bootstrap_upper_bound(diffs, 0.99)
    assert diffs.mean() < b90 < b99
    # for a normal sample the 90 % bound is about mean + 1.28 sigma / sqrt(n): within 25 % of it
    expected = 1.2816 * diffs.std() / np.sqrt(diffs.size)
    assert b90 - diffs.mean() == pytest.approx(expected, rel=0.25)
    assert bootstrap_upper_bound(diffs * 3, 0.9) - 3 * diffs.mean() > b90 - diffs.mean()


def test_bootstrap_bound_is_deterministic_and_rejects_bad_input():
    diffs = [0.3, -0.1, 0.2, 0.0, 0.5]
    assert bootstrap_upper_bound(diffs, 0.9) == bootstrap_upper_bound(list(diffs), 0.9)
    with pytest.raises(ValueError, match="finite"):
        bootstrap_upper_bound([0.1, float("nan")], 0.9)
    with pytest.raises(ValueError, match="non-empty"):
        bootstrap_upper_bound([], 0.9)


def test_identical_sides_pass_a_no_worse_claim_and_fail_an_improvement_claim():
    base = records(np.linspace(0.3, 0.9, 12), [False] * 11 + [True])
    assert judge(base, base, Claim("hand_force_rmse_n", 0.0, 0.0)).passed
    better = judge(base, base, Claim("hand_force_rmse_n", -0.05, 0.0))
    assert not better.passed and "hand_force_rmse_n" in better.reasons[0]


def test_a_clearly_worse_candidate_fails_on_the_metric_and_on_falls():
    base = records(np.linspace(0.3, 0.9, 12), [False] * 12)
    worse_metric = records(np.linspace(0.3, 0.9, 12) + 0.5, [False] * 12)
    more_falls = records(np.linspace(0.3, 0.9, 12), [True] * 4 + [False] * 8)
    claim = Claim("hand_force_rmse_n", 0.2, 0.1)
    verdict = judge(base, worse_metric, claim)
    assert not verdict.passed and verdict.metric_difference == pytest.approx(0.5)
    assert verdict.candidate_better_episodes == 0
    verdict = judge(base, more_falls, claim)
    assert not verdict.passed and verdict.fall_difference == pytest.approx(4 / 12)
    assert verdict.reasons == (f"fall rate: upper bound {verdict.fall_upper_bound:+.3g} > margin +0.1",)


def test_judge_pairs_episodes_by_index():
    # the same values in another order: unpaired means are equal, paired differences are not
    base = records([0.1, 0.2, 0.3, 0.4], [False] * 4)
    shuffled = records([0.4, 0.3, 0.2, 0.1], [False] * 4)
    verdict = judge(base, shuffled, Claim("hand_force_rmse_n", 0.0, 0.0))
    assert verdict.metric_difference == pytest.approx(0.0)
    assert verdict.metric_upper_bound > 0.05 and not verdict.passed


def test_judge_names_what_is_wrong():
    base = records([0.1, 0.2], [False, False])
    with pytest.raises(ValueError, match="same non-zero number"):
        judge(base, base[:1], Claim("hand_force_rmse_n", 0.0, 0.0))
    with pytest.raises(ValueError, match="'board_angle_rms_rad' is not in the baseline and candidate"):
        judge(base, base, Claim("board_angle_rms_rad", 0.0, 0.0))
    with pytest.raises(ValueError, match="confidence"):
        Claim("fell", 0.0, 0.0, confidence=1.0)


def test_other_qp_solver_swaps_the_env_default():
    # exact (eiquadprog, the envs' default; DAQP) <-> iterative (proxsuite)
    assert perturbed_env_kwargs("HumanoidWBC-v0", {}, "other_qp_solver") == {"qp_solver": "proxsuite"}
    assert perturbed_env_kwargs("HumanoidWBCSeesaw-v0", {}, "other_qp_solver") == {"qp_solver": "proxsuite"}
    assert perturbed_env_kwargs("HumanoidWBC-v0", {"qp_solver": "daqp", "x": 1}, "other_qp_solver")["qp_solver"] == "proxsuite"
    assert perturbed_env_kwargs("HumanoidWBC-v0", {"qp_solver": "proxsuite"}, "other_qp_solver")["qp_solver"] == "eiquadprog"
    assert perturbed_env_kwargs("HumanoidWBC-v0", {"x": 1}, "initial_state_noise") == {"x": 1}
    with pytest.raises(ValueError, match="perturbation must be one of"):
        perturbed_env_kwargs("HumanoidWBC-v0", {}, "gravity")


def test_initial_state_noise_is_relative_1e_9_and_seeded():
    env = gym.make("HumanoidWBC-v0")
    hook = initial_state_noise_hook()
    env.reset(seed=4)
    clean = env.unwrapped.data.qpos.copy()
    hook(env, 4)
    first = env.unwrapped.data.qpos.copy()
    env.reset(seed=4)
    hook(env, 4)
    relative = np.abs(first - clean)[clean != 0] / np.abs(clean[clean != 0])
    # N(0, 1) draws times 1e-9: some above 1e-10, none above 6e-9 (6 sigma)
    assert relative.max() > 1e-10 and relative.max() < 6e-9
    np.testing.assert_array_equal(env.unwrapped.data.qpos, first)  # same episode seed, same noise
    env.close()


def test_negative_controls_act_as_documented():
    env = gym.make("HumanoidWBC-v0")
    noisy = NoisyNominal()
    noisy.reset(env, 11)
    a = np.array([noisy(None, env) for _ in range(2000)])
    noisy.reset(env, 11)
    assert np.array_equal(noisy(None, env), a[0])  # restarts with the episode seed
    assert np.all(np.abs(a) <= 1.0)
    # clipping at 1 = 3.3 sigma barely changes the std of N(0, 0.3): 0.3 within sampling error
    assert a.std() == pytest.approx(0.3, rel=0.05) and abs(a.mean()) < 0.02
    offset = OffsetPolicy(lambda obs, env: np.array([0.0, 0.9, -0.5, -1.0]))
    np.testing.assert_allclose(offset(None, env), [0.2, 1.0, -0.3, -0.8])
    env.close()


def test_rollouts_under_initial_state_noise_stay_close_at_first_and_runs_are_paired():
    kwargs = {"push_magnitude_n": (0.0, 0.0), "max_episode_steps": 5}
    base = rollouts("HumanoidWBC-v0", "nominal", 2, 30, "reference", kwargs)
    noisy = rollouts("HumanoidWBC-v0", "nominal", 2, 30, "initial_state_noise", kwargs)
    for b, n in zip(base["episodes"], noisy["episodes"], strict=True):
        assert b["length"] == n["length"] == 5
        # 1e-9 relative on the state moves a standing robot's CoM error by far less than 1 um
        assert abs(b["com_rmse_m"] - n["com_rmse_m"]) < 1e-6
    assert base["episodes"][0]["com_rmse_m"] != base["episodes"][1]["com_rmse_m"]  # other seed, other task
