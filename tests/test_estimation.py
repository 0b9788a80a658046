"""The estimated state (humanoid_env.envs.estimation): off = the envs exactly as before; on = the
controller and the observation see the state late, noisy and biased as configured, reproducibly,
while reward, termination and ``info`` keep the true state.

Statistical tolerances: a sample of n independent N(0, s^2) draws has a sample mean with standard
error s / sqrt(n) and a sample standard deviation with relative standard error 1 / sqrt(2 n). The
tests allow 5 standard errors: a correct implementation fails with probability below 1e-6 per
check (and the draws are seeded, so the outcome is fixed), while a std off by 2 % or more (the
checks use n >= 60,000: 5 SE <= 1.5 %) or a mean off by 0.02 std fails.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import humanoid_env  # noqa: F401  (registers the environments)
from humanoid_env.envs.estimation import PRESETS, GaussMarkovBias, StateEstimation, StateEstimator
from tests.estimation_reference import DATA, ENVS, rollout

N_SIGMA = 5.0


def _blocks(env, obs: np.ndarray) -> dict[str, np.ndarray]:
    out, start = {}, 0
    for name, size in env.unwrapped.observation_structure.items():
        out[name], start = obs[start : start + size], start + size
    return out


# -- off: as before ----------------------------------------------------------------------------
#: How far a rollout may stray from its recording and still be "the same behaviour". Measured
#: (2026-12-01): perturbing the initial joint velocities by 1e-15 rad/s, i.e. rounding, moves
#: the 15-step rollouts' torques by up to 5e-9 N m (the seesaw, which amplifies most), their
#: rewards by 6e-12 and their float32 observations by 5e-10; the smallest real change tried
#: (white joint-velocity noise of 1e-4 rad/s, 0.06 % of the moderate preset's) moves them by at
#: least 0.05 N m, 2e-5 and 6e-4. Each tolerance sits at least 1,700x above the first and 60x
#: below the second, so another build's rounding passes and a real change fails
#: (``test_off_tolerances_catch_a_tiny_real_change`` checks the second half).
#: Units: torques [N m]; observations [-] (1e-5 is about 40 float32 ulps at their largest, |obs| <= 3); rewards [-].
TOLERANCES = {"tau": 1e-5, "obs": 1e-5, "reward": 1e-8}
TINY_CHANGE = {"joint_velocity_noise_radps": 1e-4}


def _largest_deviation(rollout_: dict[str, np.ndarray], name: str) -> dict[str, float]:
    recorded = np.load(DATA)
    return {key: float(np.abs(rollout_[key] - recorded[f"{name}_{key}"]).max()) for key in TOLERANCES}


@pytest.mark.parametrize("name", list(ENVS))
def test_off_is_the_code_before_the_estimator(name):
    """Keyword absent and ``estimation=None`` give identical rollouts (observations, rewards,
    torques, bit for bit), and the rollout recorded before the estimator existed within
    :data:`TOLERANCES` (rounding of another build passes, a real change fails)."""
    absent, off = rollout(ENVS[name]), rollout(ENVS[name], estimation=None)
    for key in TOLERANCES:
        assert np.array_equal(absent[key], off[key]), key
    deviation = _largest_deviation(off, name)
    for key, tolerance in TOLERANCES.items():
        assert deviation[key] <= tolerance, (key, deviation[key])
    env = gym.make(ENVS[name])
    assert env.unwrapped.pipeline.sensors is None and env.unwrapped.actuation_delay is None
    assert "estimate" not in env.reset(seed=0)[1]


@pytest.mark.parametrize("name", list(ENVS))
def test_off_tolerances_catch_a_tiny_real_change(name):
    """The recording check above is not blind: joint-velocity noise of 1e-4 rad/s (0.06 % of the
    moderate preset's) takes every one of torques, observations and rewards beyond its tolerance
    by at least 10x."""
    deviation = _largest_deviation(rollout(ENVS[name], estimation=TINY_CHANGE), name)
    for key, tolerance in TOLERANCES.items():
        assert deviation[key] >= 10 * tolerance, (key, deviation[key])


# -- reproducibility ---------------------------------------------------------------------------
def test_same_seed_same_trajectory_and_the_env_draws_are_those_without_estimation():
    def run(seed, estimation="hard"):
        env = gym.make("HumanoidWBC-v0", estimation=estimation, push_interval_s=(0.05, 0.1))
        obs0, _ = env.reset(seed=seed)
        start = env.unwrapped.data.qpos.copy()
        observations = [obs0]
        for _ in range(8):
            observations.append(env.step(np.full(4, 0.2))[0])
        return start, np.array(observations), env.unwrapped.data.qpos.copy()

    (start_a, obs_a, end_a), (_, obs_b, end_b) = run(4), run(4)
    assert np.array_equal(obs_a, obs_b) and np.array_equal(end_a, end_b)
    start_c, obs_c, _ = run(5)
    assert not np.allclose(obs_a, obs_c)
    # The estimator's generator is spawned, not drawn from: the initial posture is the same.
    start_off, obs_off, end_off = run(4, estimation=None)
    assert np.array_equal(start_a, start_off) and not np.array_equal(start_a, start_c)
    assert not np.allclose(obs_a, obs_off) and not np.array_equal(end_a, end_off)


# -- delays ------------------------------------------------------------------------------------
def _recording_controller(env):
    """Wrap the controller's tick (``env.actuation.compute``) and the torque output: per physics
    step, the controller's (q, v), the true (q, v) at that moment, the torque computed and the
    torque sent to MuJoCo."""
    u = env.unwrapped
    log = {"seen": [], "true": [], "computed": [], "applied": []}
    compute, to_ctrl = u.actuation.compute, u.bridge.torques_to_ctrl

    def compute_wbc(q, v, body_states=None):
        log["seen"].append(np.concatenate([q, v]))
        log["true"].append(np.concatenate(u.bridge.to_pinocchio(u.data.qpos, u.data.qvel)))
        result = compute(q, v, body_states)
        log["computed"].append(result.tau.copy())
        return result

    def torques_to_ctrl(tau, ctrl):
        log["applied"].append(np.array(tau))
        to_ctrl(tau, ctrl)

    u.actuation.compute, u.bridge.torques_to_ctrl = compute_wbc, torques_to_ctrl
    return log


def _recorded_rollout(estimation: dict):
    """``(env, log)``: 3 env steps (30 physics steps) of pushed balance with ``estimation``,
    recorded by :func:`_recording_controller`."""
    env = gym.make("HumanoidWBC-v0", estimation=estimation, push_interval_s=(0.02, 0.05))
    env.reset(seed=1)
    log = _recording_controller(env)
    for _ in range(3):
        env.step(np.full(4, 0.5))
    return env, log


def test_sensing_delay_gives_the_controller_the_state_k_steps_old():
    k = 3
    _, log = _recorded_rollout({"sensing_delay_steps": k})
    seen, true = np.array(log["seen"]), np.array(log["true"])  # (30, nq + nv)
    assert len(seen) == 30
    # No noise: equal to rounding (the base velocity goes through a rotation and back).
    assert np.abs(seen[k:] - true[:-k]).max() < 1e-12
    assert np.abs(seen[:k] - true[0]).max() < 1e-12  # before k steps: the first state
    assert np.abs(seen[k:] - true[k:]).max() > 1e-4  # the state did move: the delay is visible


def test_actuation_delay_applies_each_torque_k_physics_steps_later():
    k = 2
    env, log = _recorded_rollout({"actuation_delay_steps": k})
    computed, applied = np.array(log["computed"]), np.array(log["applied"])
    assert np.array_equal(applied[k:], computed[:-k])
    assert np.array_equal(applied[:k], np.repeat(computed[:1], k, axis=0))  # the first torque held
    assert np.abs(applied[k:] - computed[k:]).max() > 1e-3  # the torques did change
    u = env.unwrapped
    assert np.array_equal(u.last_tau, applied[-1]) and np.array_equal(u.last_tau_computed, computed[-1])
    assert np.allclose(u.data.ctrl[u.bridge.actuator_ids] * u.bridge.gear, applied[-1], atol=1e-9)


# -- noise and bias statistics -----------------------------------------------------------------
def _estimator(settings: StateEstimation, seed: int = 0):
    env = gym.make("HumanoidWBC-v0")
    env.reset(seed=0)
    u = env.unwrapped
    b = u.bridge
    estimator = StateEstimator(u.model, b.root_qpos, b.root_dof, b.joint_qpos, b.joint_dof, settings)
    estimator.reset(np.random.default_rng(seed), u.data)
    return estimator, u


def _check_white(samples: np.ndarray, std: float, name: str) -> None:
    """Zero mean, standard deviation ``std`` and no lag-1 correlation, to N_SIGMA standard errors."""
    x = samples.reshape(len(samples), -1)
    n = x.size
    assert abs(x.mean()) < N_SIGMA * std / np.sqrt(n), name
    assert abs(x.std() / std - 1.0) < N_SIGMA / np.sqrt(2 * n), name
    lag1 = np.mean(x[1:] * x[:-1]) / std**2
    assert abs(lag1) < N_SIGMA / np.sqrt(x[1:].size), name


def test_white_noise_has_the_configured_standard_deviations():
    settings = StateEstimation(
        base_rpy_noise_rad=0.02, base_linear_velocity_noise_mps=0.05, base_angular_velocity_noise_radps=0.1,
        joint_velocity_noise_radps=0.5, joint_position_noise_rad=0.01,
    )
    estimator, u = _estimator(settings)
    d, dt, steps = u.data, u.dt_physics, 20000  # the robot stays still: the errors are the noise
    errors = {key: [] for key in ("base_rpy_error_rad", "base_linear_velocity_error_mps", "base_angular_velocity_error_radps",
                                  "joint_velocity_error_radps", "joint_position_error_rad")}  # fmt: skip
    for _ in range(steps):
        d.time += dt
        estimator.update(d)
        for key, value in estimator.errors(d).items():
            if key in errors:
                errors[key].append(value)
    expected = {"base_rpy_error_rad": 0.02, "base_linear_velocity_error_mps": 0.05, "base_angular_velocity_error_radps": 0.1,
                "joint_velocity_error_radps": 0.5, "joint_position_error_rad": 0.01}  # fmt: skip
    for key, std in expected.items():
        _check_white(np.array(errors[key]), std, key)


def test_bias_is_first_order_gauss_markov_with_the_configured_std_and_time_constant():
    sigma, tau, dt, steps = 0.1, 0.05, 0.002, 40000
    bias = GaussMarkovBias(sigma, tau, dt, 3)
    rng = np.random.default_rng(7)
    starts = np.array([(bias.reset(rng), bias.value.copy())[1] for _ in range(20000)])
    _check_white(starts[:, None, :], sigma, "stationary start")  # b[0] ~ N(0, sigma^2), independent resets
    values = np.array([bias.step(rng).copy() for _ in range(steps)])
    a = np.exp(-dt / tau)
    # The drift: each step's innovation b[t+1] - a b[t] is white with std sigma sqrt(1 - a^2) ...
    _check_white(values[1:] - a * values[:-1], sigma * np.sqrt(1 - a * a), "innovation")
    # ... so the bias forgets as exp(-lag dt / tau): after one tau, e^-1 (800 tau of data: the
    # estimate's standard error is about 0.04 here; 0.1 is 2.5 of them, and a tau off by 30 % fails).
    lag = int(round(tau / dt))
    correlation = np.mean(values[lag:] * values[:-lag]) / np.mean(values * values)
    assert abs(correlation - np.exp(-1.0)) < 0.1


def test_the_bias_enters_the_estimate_and_drifts():
    settings = StateEstimation(base_angular_velocity_bias_radps=0.05, joint_velocity_bias_radps=0.05, bias_time_constant_s=0.1)
    estimator, u = _estimator(settings, seed=3)
    d = u.data
    first = estimator.errors(d)
    assert np.array_equal(first["base_angular_velocity_error_radps"], first["bias"]["base_angular_velocity_radps"])
    for _ in range(100):  # 0.2 s = 2 tau
        d.time += u.dt_physics
        estimator.update(d)
    later = estimator.errors(d)
    assert np.allclose(later["joint_velocity_error_radps"], later["bias"]["joint_velocity_radps"], atol=1e-12)
    assert np.abs(later["base_angular_velocity_error_radps"] - first["base_angular_velocity_error_radps"]).max() > 1e-3


# -- what sees what ----------------------------------------------------------------------------
def test_observation_sees_the_estimate_and_info_keeps_the_truth():
    env = gym.make("HumanoidWBC-v0", estimation="moderate")
    env.reset(seed=2)
    obs, _, _, _, info = env.step(np.zeros(4))
    u = env.unwrapped
    blocks = _blocks(env, obs)
    true_velocity = u.data.qvel[u.bridge.joint_dof]
    error = info["estimate"]["joint_velocity_error_radps"]
    assert np.abs(error).max() > 0.05  # the moderate preset's noise is 0.17 rad/s
    assert np.allclose(blocks["joint_velocities"], true_velocity + error, atol=1e-5)  # float32 observation
    assert np.array_equal(info["com"], u.com())  # the true CoM


def test_seesaw_board_state_carries_the_base_roll_error():
    env = gym.make("HumanoidWBCSeesaw-v0", estimation={"base_rpy_bias_rad": 0.05, "base_angular_velocity_bias_radps": 0.05})
    env.reset(seed=0)
    u = env.unwrapped
    sensors = u.pipeline.sensors
    (tilt,), (rate,) = u.task.board_state(*u.pipeline.state(u.data))  # of the state the controller sees
    assert tilt - u.task.board_angle() == pytest.approx(sensors.rpy_error[0], abs=1e-12)
    assert rate - u.task.board_rate() == pytest.approx(sensors.angular_velocity_error[0], abs=1e-12)
    assert abs(sensors.rpy_error[0]) > 1e-4


def test_combines_with_plant_randomisation():
    env = gym.make("HumanoidWBCWall-v0", randomise="moderate", estimation="moderate")
    _, info = env.reset(seed=0)
    assert "randomisation" in info and "estimate" in info
    for _ in range(3):
        _, _, terminated, _, info = env.step(np.zeros(env.action_space.shape))
    assert not terminated and np.abs(info["estimate"]["base_rpy_error_rad"]).max() > 0


def test_check_env_passes_with_estimation_on():
    check_env(gym.make("HumanoidWBC-v0", estimation="hard").unwrapped, skip_render_check=True)


def test_presets_are_valid_and_hard_is_harder():
    moderate, hard = PRESETS["moderate"], PRESETS["hard"]
    for name in ("base_rpy_noise_rad", "base_angular_velocity_noise_radps", "joint_velocity_noise_radps", "sensing_delay_steps"):
        assert getattr(hard, name) > getattr(moderate, name) > 0, name


# -- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value, message",
    [("extreme", "estimation must be None, one of"), ({"gyro_noise": 0.1}, "unknown setting"),
     ({"base_rpy_noise_rad": -0.1}, "base_rpy_noise_rad"), ({"sensing_delay_steps": 1.5}, "sensing_delay_steps"),
     ({"actuation_delay_steps": -1}, "actuation_delay_steps"), ({"bias_time_constant_s": 0.0}, "bias_time_constant_s"),
     (3, "estimation must be None")],
)  # fmt: skip
def test_bad_estimation_values_are_named(value, message):
    with pytest.raises(ValueError, match=message):
        gym.make("HumanoidWBC-v0", estimation=value)
