"""HumanoidWBC-v0: API checks, determinism, reward bookkeeping, nominal standing, bad input."""

from __future__ import annotations

import os
import subprocess
import sys

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import humanoid_env  # noqa: F401
from humanoid_env.robots.hubo_lite import HUBO_LITE
from humanoid_env.sim_bridge import SimBridge
from wbc_layer import RobotModel, gravity_compensation
from wbc_layer.controller import make_contact

NO_PUSH = {"push_magnitude_n": (0.0, 0.0)}


def make(**kwargs) -> gym.Env:
    return gym.make("HumanoidWBC-v0", **kwargs)


def test_both_registration_paths():
    env = gym.make("humanoid_env:HumanoidWBC-v0")
    assert env.spec.max_episode_steps == 1000
    assert env.unwrapped.dt == pytest.approx(0.02)
    assert env.action_space.shape == (4,)
    env.close()


@pytest.mark.parametrize("mode, size", [("wbc", 4), ("torque", 23), ("pd", 23)])
def test_observation_layout_adds_up(mode, size):
    env = make(action_mode=mode)
    structure = env.unwrapped.observation_structure
    assert sum(structure.values()) == env.observation_space.shape[0]
    assert structure["previous_action"] == size == env.action_space.shape[0]
    obs, _ = env.reset(seed=1)
    assert obs.shape == env.observation_space.shape
    # base height block is the first entry: pelvis ~0.685 m above the soles' centre (~0.0 m + sole offset)
    assert 0.55 < obs[0] < 0.75
    env.close()


def test_reset_noise_depends_on_seed():
    env = make()
    o1, _ = env.reset(seed=1)
    o2, _ = env.reset(seed=2)
    o3, _ = env.reset(seed=1)
    assert not np.array_equal(o1, o2)
    np.testing.assert_array_equal(o1, o3)


def test_reward_is_exact_sum_of_terms_and_info_keys():
    env = make()
    env.reset(seed=0)
    for action in (np.zeros(4), np.array([0.5, -0.5, 0.2, 1.0]), np.full(4, 3.0)):
        _, reward, _, _, info = env.step(action)
        terms = [v for k, v in info.items() if k.startswith("reward_")]
        assert len(terms) >= 5
        total = 0.0
        for value in terms:
            total += value
        assert reward == total
        for key in ("com", "com_ref", "contact_forces", "contact_force_targets", "wbc_status"):
            assert key in info
        assert set(info["contact_forces"]) == {"left_foot", "right_foot"}
        assert info["wbc_status"] == "solved"
    # out-of-range actions are clipped: the previous-action block holds +1, not 3
    obs = env.step(np.full(4, 3.0))[0]
    assert np.all(obs[-4:] == 1.0)


def test_nominal_policy_stands_20_s_and_tracks_target():
    env = make(**NO_PUSH, timing_in_info=True)
    obs, info = env.reset(seed=3)
    errors, steps, solve, target_moves = [], 0, [], []
    truncated = terminated = False
    while not (terminated or truncated):
        obs, _, terminated, truncated, info = env.step(np.zeros(4))
        assert np.all(np.isfinite(obs))
        assert info["wbc_status"] == "solved", f"fallback at step {steps}"
        errors.append(np.linalg.norm(info["com"] - info["com_ref"]))
        solve.append(info["wbc_solve_time_us"])
        target_moves.append(np.linalg.norm(info["com_ref"] - env.unwrapped.com_nominal))
        steps += 1
    assert not terminated and truncated and steps == 1000
    rmse = float(np.sqrt(np.mean(np.square(errors))))
    assert rmse < 0.005, rmse
    # the target really moved (default com_target_range_m), so tracking was exercised
    assert max(target_moves) > 0.005
    # MuJoCo's measured ground force carries the weight; the split follows the 50/50 target
    forces = info["contact_forces"]
    total_z = forces["left_foot"][2] + forces["right_foot"][2]
    assert total_z == pytest.approx(env.unwrapped.weight_n, rel=0.02)
    assert forces["left_foot"][2] / total_z == pytest.approx(0.5, abs=0.05)
    assert np.median(solve) > 0.0


def test_force_share_action_shifts_load():
    env = make(**NO_PUSH, com_target_range_m=(0, 0, 0))
    env.reset(seed=0)
    for _ in range(40):
        _, _, terminated, _, info = env.step(np.array([0.0, 0.0, 0.0, 1.0]))  # share 0.9 on the left foot
        assert not terminated
    assert info["contact_force_targets"]["left_foot"] == pytest.approx(0.9 * env.unwrapped.weight_n)
    left, right = info["contact_forces"]["left_foot"][2], info["contact_forces"]["right_foot"][2]
    assert left > right  # the load moved towards the left foot


@pytest.mark.parametrize("filter_s", [0.0, 0.1])
def test_com_offset_follows_the_action_rate_limited_or_low_passed(filter_s):
    """A 1 cm lateral offset step (a[1] = 0.25 of the 4 cm bound) after one env step of 10
    physics ticks of 2 ms: rate-limited alone (0.25 m/s, 0.5 mm per tick) it is half-way; through
    a 0.1 s first-order low-pass (2 % of the rest per tick, below the rate limit) the offset is
    1 - 0.98^10 = 18.3 % of it. Exact to 1e-12 m (the arithmetic of the update)."""
    env = make(**NO_PUSH, com_target_range_m=(0, 0, 0), com_offset_filter_s=filter_s)
    env.reset(seed=0)
    env.step(np.array([0.0, 0.25, 0.0, 0.0]))
    expected = 0.005 if filter_s == 0.0 else 0.01 * (1.0 - 0.98**10)
    np.testing.assert_allclose(env.unwrapped.task.standing.com_offset, [0.0, expected, 0.0], atol=1e-12)


def test_default_pushes_happen_and_are_reported():
    env = make(push_interval_s=(0.1, 0.2), push_direction_deg=90.0, push_magnitude_n=(50.0, 50.0))
    env.reset(seed=0)
    forces = []
    for _ in range(15):
        info = env.step(np.zeros(4))[-1]
        forces.append(info["push_force"])
    assert info["pushes_total"] >= 1
    pushed = [f for f in forces if np.linalg.norm(f) > 0]
    assert pushed and np.allclose(pushed[0], [0.0, 50.0, 0.0], atol=1e-9)


@pytest.mark.parametrize("mode", ["torque", "pd"])
def test_other_modes_report_wbc_off(mode):
    env = make(action_mode=mode, **NO_PUSH)
    env.reset(seed=0)
    info = env.step(np.zeros(23))[-1]
    assert info["wbc_status"] == "off" and info["contact_force_targets"] == {}
    assert {k for k in info if k.startswith("reward_")} == {
        "reward_alive", "reward_com_tracking", "reward_upright", "reward_effort", "reward_action_rate", "reward_fall"
    }


# -- bad input --------------------------------------------------------------------------------
def test_nan_action_names_indices():
    env = make()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"non-finite.*indices \[1, 3\]"):
        env.step(np.array([0.0, np.nan, 0.0, np.inf]))


def test_wrong_action_shape():
    env = make()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action must have shape \(4,\), got shape \(5,\)"):
        env.step(np.zeros(5))


def test_unknown_keyword_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown keyword argument\(s\) \['push_strength'\]; valid ones are: .*push_magnitude_n"):
        make(push_strength=3)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"push_duration_s": -0.1}, "push_duration_s must be finite, >= 0"),
        ({"force_share_range": (0.1, 1.2)}, r"force_share_range must satisfy 0.0 <= lo <= hi <= 1.0"),
        ({"force_share_range": (-0.1, 0.9)}, r"force_share_range must satisfy 0.0 <= lo <= hi <= 1.0"),
        ({"push_magnitude_n": (100.0, 50.0)}, "push_magnitude_n must satisfy"),
        ({"action_mode": "velocity"}, "action_mode must be one of"),
        ({"com_offset_filter_s": -0.1}, "com_offset_filter_s must be finite"),
    ],
)
def test_invalid_values_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make(**kwargs)


#: Torques of the fallback equal the oracle's to this [N m]: both solve the same static QP to
#: 1e-10 (proxqp); moving the waist and arms by 0.2 rad changes the static torques by > 0.5 N m.
FALLBACK_TOL = 1e-6


def test_qp_failure_uses_gravity_compensation_fallback(monkeypatch):
    """The QP solve fails inside the real compute(), after the model update: every physics step
    applies the gravity-compensation torques of *that step's* state (the oracle: a separate robot
    model and the static QP at the MuJoCo state the torques were applied at), reports "fallback",
    and MuJoCo never receives a non-finite control."""
    env = make(**NO_PUSH)
    env.reset(seed=0)
    u = env.unwrapped
    controller = u.controller
    # Move the waist and arms 0.2 rad away from where the controller's model was last updated
    # (home, at reset), so that the state of the failing tick matters.
    upper = u.bridge.joint_qpos[12:]
    u.data.qpos[upper] = np.clip(u.data.qpos[upper] + 0.2, u.plant.joint_low[12:], u.plant.joint_high[12:])
    mujoco.mj_forward(u.model, u.data)

    tick = controller.compiled.compute  # the tick solves in C++: fail it after its update
    monkeypatch.setattr(
        controller.compiled, "compute", lambda *state: ("primal_infeasible", None, None, -1, 0.0, {}) if tick(*state) else None
    )
    applied = []  # (qpos, qvel, tau, ctrl) at each physics step, as handed to MuJoCo
    to_ctrl = u.bridge.torques_to_ctrl

    def recording_to_ctrl(tau, ctrl):
        state = (u.data.qpos.copy(), u.data.qvel.copy(), np.array(tau, dtype=float))
        to_ctrl(tau, ctrl)
        applied.append((*state, ctrl.copy()))

    monkeypatch.setattr(u.bridge, "torques_to_ctrl", recording_to_ctrl)
    obs, _, terminated, _, info = env.step(np.zeros(4))
    assert info["wbc_status"] == "fallback"
    assert info["wbc_fallbacks"] == u.frame_skip == len(applied)
    assert not terminated and np.all(np.isfinite(obs)) and np.all(np.isfinite(u.data.qacc))

    oracle = RobotModel.from_mjcf(HUBO_LITE.mjcf_path())
    contacts = [make_contact(c) for c in HUBO_LITE.controller_config().contacts]
    bridge = SimBridge(u.model, oracle.joint_names)
    for qpos, qvel, tau, ctrl in applied:
        assert np.all(np.isfinite(ctrl))
        oracle.update(*bridge.to_pinocchio(qpos, qvel))
        expected = gravity_compensation(oracle, contacts, n_facets=controller.config.friction_facets).tau
        expected = np.clip(expected, oracle.torque_min, oracle.torque_max)
        np.testing.assert_allclose(tau, expected, rtol=0.0, atol=FALLBACK_TOL)
    # The state mattered: at the home pose (the model's last update before the step) it differs.
    oracle.update(*u.plant.home_pinocchio())
    at_home = gravity_compensation(oracle, contacts, n_facets=controller.config.friction_facets).tau
    assert np.abs(applied[0][2] - at_home).max() > 0.5  # [N m]


def test_nonfinite_state_ends_episode_without_nan_observation():
    env = make(**NO_PUSH)
    obs0, _ = env.reset(seed=0)
    env.unwrapped.data.qvel[8] = np.nan
    obs, reward, terminated, truncated, info = env.step(np.zeros(4))
    assert terminated and info["nonfinite_state"] and info["fell"]
    assert np.all(np.isfinite(obs)) and np.isfinite(reward)
    np.testing.assert_array_equal(obs, obs0)


RENDER_SCRIPT = """
import gymnasium as gym, numpy as np, humanoid_env
env = gym.make("HumanoidWBC-v0", render_mode="rgb_array", render_width=160, render_height=120)
env.reset(seed=0)
frame = env.render()
print(frame.shape, frame.dtype, float(frame.std()))
"""


def test_rgb_array_render():
    # MuJoCo picks its OpenGL backend when first imported, so render in a fresh process (EGL here).
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    proc = subprocess.run([sys.executable, "-c", RENDER_SCRIPT], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"offscreen rendering failed (MUJOCO_GL={env['MUJOCO_GL']}): {proc.stderr[-2000:]}"
    shape, dtype, std = proc.stdout.strip().rsplit(" ", 1)[0], proc.stdout.split()[3], float(proc.stdout.split()[-1])
    assert shape.startswith("(120, 160, 3)") and dtype == "uint8"
    assert std > 1.0  # not a blank image


def test_render_error_is_clear_without_render_mode(monkeypatch):
    # render() without a render_mode returns None and warns (Gymnasium's logger) how to get frames.
    monkeypatch.setattr(gym.logger, "min_level", gym.logger.WARN)  # another test may have muted it
    env = make()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match=r"without a render_mode.*render_mode='rgb_array'") as caught:
        frame = env.unwrapped.render()
    assert frame is None and len(caught) == 1


def test_goal_follows_feet_moves_the_goal_with_the_soles_beyond_its_deadband():
    """``goal_follows_feet=True``: once the soles' midpoint has moved more than 5 mm (the deadband)
    from where the goal last moved with it, the CoM goal moves by exactly as much (to 1e-12 m) and
    the target follows over the shift's segment; a move inside the deadband moves nothing. Off
    (the default, ``HumanoidWBC-v0`` as it always was) nothing follows."""
    import mujoco

    from humanoid_env.envs.balance import FEET_FOLLOW_DEADBAND_M

    with pytest.raises(ValueError, match="goal_follows_feet"):
        gym.make("HumanoidWBC-v0", goal_follows_feet="yes")
    for follows in (True, False):
        env = gym.make("HumanoidWBC-v0", goal_follows_feet=follows, push_magnitude_n=(0.0, 0.0)).unwrapped
        env.reset(seed=0)
        env.step(np.zeros(env.action_space.shape))
        task, d, plant = env.task, env.data, env.plant
        noted = task._feet_midpoint.copy() if follows else None  # where the goal last moved with the feet
        goal = task.command.com_goal.copy()
        for shift_m in (0.8 * FEET_FOLLOW_DEADBAND_M, 0.02):
            d.qpos[0] += shift_m  # the whole robot, feet included, moves forward (as a slide would)
            mujoco.mj_forward(env.model, d)
            task.update_command(env.np_random, float(d.time), plant.dt_physics)  # follows only if asked
            expected = goal
            if follows:
                moved = d.site_xpos[plant.sole_sites].mean(axis=0) - noted
                moved[2] = 0.0
                expected = goal + moved if np.linalg.norm(moved) > FEET_FOLLOW_DEADBAND_M else goal
            assert np.abs(task.command.com_goal - expected).max() < 1e-12, (follows, shift_m)
        if follows:  # moved once, by the 2.4 cm in all
            assert np.linalg.norm(task.command.com_goal - goal) == pytest.approx(0.02 + 0.8 * FEET_FOLLOW_DEADBAND_M, abs=1e-4)
            start = task.command.com_target.position.copy()
            task.command.evaluate(float(d.time) + 1.0)  # past the 0.5-s shift
            # by the goal's move, to the glide's 0.06 mm per tick (0.03 m/s for the 2-ms tick it glided)
            assert task.command.com_target.position - start == pytest.approx(task.command.com_goal - goal, abs=1e-4)
