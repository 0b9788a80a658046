"""The environments' keyword checks (humanoid_env.envs.kwargs) and random pushes
(humanoid_env.envs.pushes.PushSchedule), without an environment."""

from __future__ import annotations

import math

import numpy as np
import pytest

from humanoid_env.envs.kwargs import check_choice, check_range, check_scalar, check_vector, resolve_kwargs
from humanoid_env.envs.pushes import PushSchedule

DEFAULTS = {"push_magnitude_n": (10.0, 40.0), "frame_skip": 10, "action_mode": "wbc"}


# -- resolve_kwargs ---------------------------------------------------------------------------
def test_given_keywords_override_defaults_without_changing_them():
    defaults = dict(DEFAULTS)
    resolved = resolve_kwargs(defaults, {"frame_skip": 5}, "HumanoidWBC-v0")
    assert resolved == {**DEFAULTS, "frame_skip": 5}
    assert defaults == DEFAULTS  # the defaults table is not modified
    assert resolve_kwargs(defaults, {}, "HumanoidWBC-v0") == DEFAULTS


def test_unknown_keywords_are_named_with_every_valid_one():
    with pytest.raises(ValueError) as error:
        resolve_kwargs(DEFAULTS, {"push_strength": 3, "frame_skp": 2, "frame_skip": 4}, "HumanoidWBC-v0")
    message = str(error.value)
    assert message.startswith("HumanoidWBC-v0: unknown keyword argument(s) ['frame_skp', 'push_strength']")
    assert message.endswith("valid ones are: action_mode, frame_skip, push_magnitude_n")


# -- value checks: each error names the keyword and what is allowed ----------------------------
def test_check_range_returns_a_float_pair():
    assert check_range("push_magnitude_n", [10, 40], 0.0) == (10.0, 40.0)
    assert check_range("push_magnitude_n", (0, 0), 0.0) == (0.0, 0.0)  # lo == hi is a range


@pytest.mark.parametrize(
    "value, message",
    [
        ((40.0, 10.0), r"push_magnitude_n must satisfy 0.0 <= lo <= hi <= 500.0, got \(40.0, 10.0\)"),
        ((-1.0, 10.0), r"push_magnitude_n must satisfy 0.0 <= lo <= hi <= 500.0, got \(-1.0, 10.0\)"),
        ((10.0, 600.0), r"push_magnitude_n must satisfy 0.0 <= lo <= hi <= 500.0"),
        ((10.0, math.inf), r"push_magnitude_n must satisfy"),
        ((10.0,), r"push_magnitude_n must be a pair \(lo, hi\) of numbers, got \(10.0,\)"),
        (30.0, r"push_magnitude_n must be a pair \(lo, hi\) of numbers, got 30.0"),
        (("a", "b"), r"push_magnitude_n must be a pair \(lo, hi\) of numbers"),
    ],
)
def test_check_range_rejects(value, message):
    with pytest.raises(ValueError, match=message):
        check_range("push_magnitude_n", value, 0.0, 500.0)


def test_check_scalar_bounds():
    assert check_scalar("push_duration_s", "0.25", 0.0) == 0.25
    assert check_scalar("push_duration_s", 0, 0.0) == 0.0  # closed at low ...
    with pytest.raises(ValueError, match=r"frame_skip must be finite, > 0.0 and <= 100.0, got 0.0"):
        check_scalar("frame_skip", 0, 0.0, 100.0, strict_low=True)  # ... unless strict
    with pytest.raises(ValueError, match=r"push_duration_s must be finite, >= 0.0 and <= inf, got -0.1"):
        check_scalar("push_duration_s", -0.1, 0.0)
    with pytest.raises(ValueError, match=r"push_duration_s must be finite, >= 0.0 and <= 1.0, got 1.5"):
        check_scalar("push_duration_s", 1.5, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"push_duration_s must be finite"):
        check_scalar("push_duration_s", math.nan, 0.0)
    with pytest.raises(ValueError, match=r"push_duration_s must be a number, got 'long'"):
        check_scalar("push_duration_s", "long", 0.0)


def test_check_vector():
    np.testing.assert_array_equal(check_vector("com_offset_m", [0.01, 0, 0.02], 3), [0.01, 0.0, 0.02])
    with pytest.raises(ValueError, match=r"com_offset_m must be 3 finite numbers >= 0.0, got \[0.01, 0.02\]"):
        check_vector("com_offset_m", [0.01, 0.02], 3, low=0.0)
    with pytest.raises(ValueError, match=r"com_offset_m must be 3 finite numbers >= 0.0"):
        check_vector("com_offset_m", [0.01, -0.02, 0.0], 3, low=0.0)
    with pytest.raises(ValueError, match=r"com_offset_m must be 3 numbers, got 'x'"):
        check_vector("com_offset_m", "x", 3)


def test_check_choice_names_the_allowed_values():
    assert check_choice("action_mode", "pd", ("wbc", "torque", "pd")) == "pd"
    with pytest.raises(ValueError, match=r"action_mode must be one of \('wbc', 'torque', 'pd'\), got 'velocity'"):
        check_choice("action_mode", "velocity", ("wbc", "torque", "pd"))


# -- pushes -----------------------------------------------------------------------------------
DT = 0.002  # physics step [s]
MAGNITUDE, DURATION, INTERVAL = (10.0, 40.0), 0.1, (0.5, 1.0)


def roll(schedule: PushSchedule, seed: int, seconds: float = 20.0) -> tuple[np.ndarray, np.ndarray]:
    """(times (n,), forces (n, 3)) of ``schedule`` over ``seconds`` at the physics step."""
    rng = np.random.default_rng(seed)
    schedule.reset(rng, 0.0)
    times = DT * np.arange(int(round(seconds / DT)))
    return times, np.array([schedule.update(rng, t) for t in times])


def pushes(direction_deg=None) -> PushSchedule:
    return PushSchedule(MAGNITUDE, DURATION, INTERVAL, direction_deg)


def test_pushes_start_within_the_interval_and_last_their_duration():
    schedule = pushes()
    times, forces = roll(schedule, seed=0)
    starts = np.array(schedule.starts)
    # first start in [0.5, 1.0] s, then one every 0.6-1.1 s (duration + interval): 18 to 33 in 20 s
    assert 18 <= len(starts) <= 33
    assert INTERVAL[0] <= starts[0] <= INTERVAL[1]  # the first after the reset
    gaps = starts[1:] - (starts[:-1] + DURATION)  # from the end of one push to the next start
    assert np.all(gaps >= INTERVAL[0]) and np.all(gaps <= INTERVAL[1])
    # The force is on exactly at the physics steps inside [start, start + duration) of a push.
    on = np.linalg.norm(forces, axis=1) > 0
    inside = np.any((times[:, None] >= starts) & (times[:, None] < starts + DURATION), axis=1)
    np.testing.assert_array_equal(on, inside)
    assert schedule.total == len(starts)


def test_push_forces_are_horizontal_with_magnitudes_in_range_and_constant_during_a_push():
    schedule = pushes()
    times, forces = roll(schedule, seed=1)
    assert np.all(forces[:, 2] == 0.0)
    per_push = []
    for start in schedule.starts:
        during = forces[(times >= start) & (times < start + DURATION)]
        assert len(during) >= 49  # 0.1 s at 2 ms
        assert np.all(during == during[0])  # one force per push
        per_push.append(during[0])
    magnitudes = np.linalg.norm(per_push, axis=1)
    assert np.all((magnitudes >= MAGNITUDE[0]) & (magnitudes <= MAGNITUDE[1]))
    angles = np.degrees(np.arctan2(np.array(per_push)[:, 1], np.array(per_push)[:, 0]))
    assert np.ptp(angles) > 90.0  # random directions really vary


def test_a_fixed_direction_is_used_as_given():
    schedule = pushes(direction_deg=90.0)
    _, forces = roll(schedule, seed=2, seconds=5.0)
    pushed = forces[np.linalg.norm(forces, axis=1) > 0]
    assert len(pushed) > 0
    np.testing.assert_allclose(pushed[:, 0], 0.0, atol=1e-12)  # +y only: cos(90 deg) = 6e-17
    assert np.all(pushed[:, 1] >= MAGNITUDE[0])


def test_same_seed_same_schedule_other_seed_other_schedule():
    a, b, c = pushes(), pushes(), pushes()
    _, fa = roll(a, seed=7)
    _, fb = roll(b, seed=7)
    _, fc = roll(c, seed=8)
    np.testing.assert_array_equal(fa, fb)
    assert a.starts == b.starts
    assert a.starts != c.starts and not np.array_equal(fa, fc)
    # reset restarts the schedule: the same seed again gives the same pushes
    _, again = roll(a, seed=7)
    np.testing.assert_array_equal(again, fa)


@pytest.mark.parametrize("magnitude, duration", [((0.0, 0.0), 0.1), ((10.0, 40.0), 0.0)])
def test_disabled_pushes_never_push(magnitude, duration):
    schedule = PushSchedule(magnitude, duration, INTERVAL, None)
    assert not schedule.enabled
    _, forces = roll(schedule, seed=0, seconds=5.0)
    assert not forces.any() and schedule.total == 0


def test_survived_counts_pushes_whose_window_closed_before_a_fall():
    schedule = pushes()
    schedule.survival_window_s = 2.0
    roll(schedule, seed=3, seconds=10.0)
    starts = schedule.starts
    assert schedule.survived(10.0, fell=False) == len(starts)
    fall = starts[2] + 1.0  # during the third push's window
    assert schedule.survived(fall, fell=True) == sum(1 for s in starts if s + 2.0 <= fall)
    assert schedule.survived(fall, fell=True) < len(starts)
