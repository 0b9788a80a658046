"""The swing foot and the stepping law (``wbc_layer.stepping``): pure, no simulator.

Tolerances: positions to 1e-9 m where the arithmetic is exact (polynomials at their knots),
forces to 1e-9 N; the point-mass rollouts integrate the linear inverted pendulum exactly per tick
(closed form), so their verdicts (captured or not) hold with margins of centimetres, far above
any rounding.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbc_layer.references import min_jerk
from wbc_layer.step_limits import swing_height_profile as bump
from wbc_layer.stepping import (
    LOADING,
    STANDING,
    SWING,
    UNLOADING,
    SteppingLaw,
    SteppingSettings,
    SwingFoot,
    SwingSettings,
    project_to_polygon,
    quintic_coefficients,
    signed_distance,
)
from wbc_layer.stepping import _quintic_sample as quintic_sample

DT = 0.002
G = 9.81
Z_C = 0.69  # Hubo-lite's CoM height above the soles [m]
OMEGA = math.sqrt(G / Z_C)
COP = (0.085, 0.0425)  # Hubo-lite's CoP half sizes [m]
WIDTH = 0.16  # sole centres' lateral distance [m]
REACH = 0.17  # [m]
MIN_WIDTH = 0.12  # [m]


def box_region(side: str) -> np.ndarray:
    """Where the swing sole may land relative to the stance sole: x in [-REACH, REACH], |y| in
    [MIN_WIDTH, WIDTH + REACH] on the swing side (a box: simple to reason about)."""
    sign = 1.0 if side == "left" else -1.0
    ys = sorted([sign * MIN_WIDTH, sign * (WIDTH + REACH)])
    return np.array([[REACH, ys[0]], [REACH, ys[1]], [-REACH, ys[1]], [-REACH, ys[0]]])[:: int(sign)]


def law(**settings) -> SteppingLaw:
    swing = SwingSettings(swing_s=0.35, height_m=0.05)
    return SteppingLaw({"left_foot": box_region("left"), "right_foot": box_region("right")}, COP, OMEGA,
                       SteppingSettings(swing=swing, **settings))  # fmt: skip


FEET_XY = np.array([[0.0, WIDTH / 2], [0.0, -WIDTH / 2]])
YAW = np.zeros(2)


# -- profiles -----------------------------------------------------------------------------------
def test_bump_profile():
    assert bump(0.0) == (0.0, 0.0, 0.0) and bump(1.0) == (0.0, 0.0, 0.0)
    assert bump(0.5)[0] == pytest.approx(1.0, abs=1e-12) and bump(0.5)[1] == pytest.approx(0.0, abs=1e-12)
    s = np.linspace(0, 1, 2001)
    values = np.array([bump(x) for x in s])
    assert np.max(np.abs(values[:, 2])) == pytest.approx(24.0, rel=1e-6)  # the peak the step limits use
    # derivatives consistent with finite differences of the value (to 1e-4 of their scale)
    assert np.allclose(np.gradient(values[:, 0], s), values[:, 1], atol=1e-3)


def test_quintic_meets_its_boundary_conditions():
    T = 0.3
    p0, v0, a0, p1 = np.array([0.1, -0.2]), np.array([0.5, 0.1]), np.array([-2.0, 3.0]), np.array([0.4, 0.05])
    c = quintic_coefficients(T, p0, v0, a0, p1)
    p, v, a = quintic_sample(c, 0.0)
    assert np.allclose(p, p0, atol=1e-12) and np.allclose(v, v0, atol=1e-12) and np.allclose(a, a0, atol=1e-12)
    p, v, a = quintic_sample(c, T)
    assert np.allclose(p, p1, atol=1e-12) and np.allclose(v, 0, atol=1e-10) and np.allclose(a, 0, atol=1e-8)


def test_polygon_helpers():
    square = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
    assert signed_distance([0.0, 0.0], square) == pytest.approx(1.0)
    assert signed_distance([0.5, 0.0], square) == pytest.approx(0.5)
    assert signed_distance([2.0, 0.0], square) == pytest.approx(-1.0)
    assert signed_distance([2.0, 2.0], square) == pytest.approx(-math.sqrt(2))
    assert np.allclose(project_to_polygon([3.0, 0.2], square), [1.0, 0.2])
    assert np.allclose(project_to_polygon([0.3, 0.2], square), [0.3, 0.2])


# -- the swing foot -----------------------------------------------------------------------------
def run_swing(foot: SwingFoot, force_at, t_end: float, t0: float = 0.0):
    """Step ``foot`` every tick from ``t0`` to ``t_end`` with the measured force ``force_at(t, foot)``;
    returns the per-tick records."""
    records = []
    n = int(round((t_end - t0) / DT))
    for k in range(n + 1):
        t = t0 + k * DT
        foot.update(t, force_at(t, foot))
        records.append((t, foot.phase, foot.contact_active, foot.max_normal_force, foot.position.copy(), foot.velocity.copy()))
    return records


def new_swing(**settings) -> SwingFoot:
    s = SwingSettings(swing_s=0.4, height_m=0.05, unload_s=0.1, load_s=0.1, **settings)
    return SwingFoot("right_foot", s, 0.0, [0.0, -0.08, 0.0], 0.0, [0.15, -0.1], load_n=183.0, max_normal_force_n=367.0)


def planned_landing(t, foot):
    """The ground is where the plan expects it: force once the planned touch-down time is reached."""
    return 200.0 if foot.phase == SWING and t >= foot.t_touch_planned - 1e-12 else 0.0


def test_swing_phases_and_force_continuity():
    foot = new_swing()
    records = run_swing(foot, planned_landing, 0.8)
    phases = [r[1] for r in records]
    assert phases[0] == UNLOADING and SWING in phases and LOADING in phases and phases[-1] == "done"
    # unloading: the bound ramps from the load to 0 by lift-off (min jerk: peak change 1.875 x mean)
    unloading = [r[3] for r in records if r[1] == UNLOADING]
    steps = np.abs(np.diff([183.0, *unloading, 0.0]))
    assert unloading[0] == pytest.approx(183.0, abs=1e-9)
    assert steps.max() <= 1.875 * 183.0 * DT / 0.1 + 1e-9  # 6.9 N per tick, below the 10 N
    # lift-off at unload_s, the contact off during the swing
    lift = next(r for r in records if r[1] == SWING)
    assert lift[0] == pytest.approx(0.1) and not lift[2]
    # apex at mid-swing, the target reached at rest at the planned touch-down
    mid = min(records, key=lambda r: abs(r[0] - 0.3))
    assert mid[4][2] == pytest.approx(0.05, abs=1e-9)
    assert foot.touch_down == "planned" and foot.t_touch == pytest.approx(0.5)
    landing = next(r for r in records if r[1] == LOADING)
    assert np.allclose(landing[4][:2], [0.15, -0.1], atol=1e-9) and np.allclose(landing[5], 0, atol=1e-9)
    # loading: the bound ramps from 0 to the maximum given, at most 1.875 x mean per tick
    loading = [r[3] for r in records if r[1] == LOADING]
    assert loading[0] == 0.0 and max(np.abs(np.diff(loading))) <= 1.875 * 367.0 * DT / 0.1 + 1e-9
    assert foot.max_normal_force is None and foot.contact_active  # done: the contact's own bounds


def test_early_touch_down_stops_the_swing_where_it_is():
    foot = new_swing()
    run_swing(foot, lambda t, f: 200.0 if t >= 0.4 else 0.0, 0.45)  # 75 % of the swing
    assert foot.touch_down == "early" and foot.t_touch == pytest.approx(0.4)
    assert foot.phase == LOADING and foot.contact_active


def test_force_before_the_earliest_share_is_not_a_landing():
    foot = new_swing(earliest_touch_down=0.5)
    run_swing(foot, lambda t, f: 200.0 if 0.15 <= t < 0.25 else 0.0, 0.28)  # a scuff at 12-37 % of the swing
    assert foot.phase == SWING and foot.touch_down is None


def test_late_touch_down_descends_then_lands():
    foot = new_swing(late_s=0.1, descent_mps=0.2)
    records = run_swing(foot, lambda t, f: 200.0 if t >= 0.55 else 0.0, 0.56)
    late = [r for r in records if 0.5 < r[0] < 0.55]
    assert all(r[1] == SWING for r in late)
    assert late[-1][4][2] == pytest.approx(-0.2 * (late[-1][0] - 0.5), abs=1e-9)  # descending at 0.2 m/s
    assert foot.touch_down == "late" and foot.t_touch == pytest.approx(0.55) and not foot.missed


def test_a_foot_that_never_lands_is_missed_and_held():
    foot = new_swing(late_s=0.1, descent_mps=0.2)
    records = run_swing(foot, lambda t, f: 0.0, 1.0)
    assert foot.missed and foot.phase == SWING and not foot.contact_active
    held = [r for r in records if r[0] > 0.61]
    assert all(r[4][2] == pytest.approx(-0.02, abs=1e-12) and r[5][2] == 0.0 for r in held)
    foot.update(1.002, 200.0)  # the ground found later: a late landing
    assert foot.touch_down == "late" and foot.phase == LOADING


def test_retarget_is_continuous_and_refused_late():
    foot = new_swing(retarget_until=0.6)
    run_swing(foot, lambda t, f: 0.0, 0.2)  # 25 % of the swing
    before = (foot.position.copy(), foot.velocity.copy())
    assert foot.retarget([0.2, -0.15], 0.2)
    foot.update(0.2, 0.0)  # same time: the new path starts from the reference's state
    assert np.allclose(foot.position, before[0], atol=1e-12) and np.allclose(foot.velocity, before[1], atol=1e-9)
    run_swing(foot, planned_landing, 0.5, t0=0.202)
    assert np.allclose(foot.position[:2], [0.2, -0.15], atol=1e-9)
    late = new_swing(retarget_until=0.6)
    run_swing(late, lambda t, f: 0.0, 0.4)  # 75 % of the swing
    assert not late.retarget([0.3, -0.3], 0.4) and np.allclose(late.target, [0.15, -0.1])


def test_bad_settings_raise_naming_them():
    with pytest.raises(ValueError, match="swing_s"):
        SwingSettings(swing_s=0.0)
    with pytest.raises(ValueError, match="earliest_touch_down"):
        SwingSettings(earliest_touch_down=1.5)
    with pytest.raises(ValueError, match="max_steps"):
        SteppingSettings(max_steps=0)
    with pytest.raises(ValueError, match="swing target"):
        new_swing().retarget([np.nan, 0.0], 0.0)


# -- the law's decisions ------------------------------------------------------------------------
def test_no_step_while_the_capture_point_is_inside_the_support():
    stepper = law()
    for xi in ([0.0, 0.0], [0.08, 0.0], [-0.08, 0.12], [0.0, -0.12]):
        assert not stepper.needs_step(xi, FEET_XY, YAW), xi
    assert stepper.needs_step([0.09, 0.0], FEET_XY, YAW)  # past the CoP edge at 0.085 m
    assert not law(trigger_margin_m=0.01).needs_step([0.09, 0.0], FEET_XY, YAW)


class EagerLaw(SteppingLaw):
    """The law making its support polygon at every move of the feet (no shortcut in ``needs_step``)."""

    def needs_step(self, capture_point, feet_xy, feet_yaw) -> bool:
        self._support_at(self._support_moved_to(feet_xy, feet_yaw))
        return super().needs_step(capture_point, feet_xy, feet_yaw)


@pytest.mark.parametrize("trigger_margin_m", [0.0, 0.01, -0.02])
def test_needs_step_answers_as_if_the_polygon_were_made_at_every_move(trigger_margin_m):
    """``needs_step`` answers from the last polygon made where that is certain (the capture point
    deeper inside it than the corners have moved since): on feet rocking and sliding by up to
    0.5 mm and 3 mrad per tick, with capture points drawn from deep inside the support to beyond its
    corners (both sides of every threshold), every answer equals the law's that makes the polygon at every move,
    the shortcut is taken on many ticks, and the support a later caller sees is the same."""
    rng = np.random.default_rng(3)
    swing = SwingSettings(swing_s=0.35, height_m=0.05)
    settings = SteppingSettings(swing=swing, trigger_margin_m=trigger_margin_m)
    regions = {"left_foot": box_region("left"), "right_foot": box_region("right")}
    lazy, eager = SteppingLaw(regions, COP, OMEGA, settings), EagerLaw(regions, COP, OMEGA, settings)
    feet, yaw = FEET_XY.copy(), YAW.copy()
    made = []  # one entry per polygon looked up (made or the last one)
    original = lazy._support_at

    def counted(key):
        made.append(key)
        return original(key)

    lazy._support_at = counted
    answers = []
    for _ in range(4000):
        feet += rng.uniform(-5e-4, 5e-4, feet.shape) * rng.integers(0, 2)
        yaw += rng.uniform(-3e-3, 3e-3, 2) * rng.integers(0, 2)
        edge = eager.support_polygon(feet, yaw)  # (the same key rule: the eager law's own polygon)
        centre, corner = edge.mean(axis=0), edge[rng.integers(len(edge))]
        xi = centre + (corner - centre) * rng.uniform(0.3, 1.2) + rng.uniform(-0.01, 0.01, 2)
        answer = lazy.needs_step(xi, feet, yaw)
        assert answer == eager.needs_step(xi, feet, yaw)
        answers.append(answer)
        assert lazy._support_key == eager._support_key
    assert 0.05 < np.mean(answers) < 0.95  # both answers drawn often
    assert np.array_equal(lazy.support_polygon(feet, yaw), eager.support_polygon(feet, yaw))
    assert len(answers) - len(made) > 500  # answered from the last polygon (no polygon looked up) that often


def test_the_forces_are_measured_only_when_the_law_uses_them():
    """``update`` takes the normal forces or a function returning them: called not while the law
    stands with the capture point inside the support, called at a step's decision and at every
    tick of the step; the step the same as with the forces given as an array."""
    feet = np.array([[0.0, WIDTH / 2, 0.0], [0.0, -WIDTH / 2, 0.0]])
    calls = []

    def forces():
        calls.append(None)
        return np.array([180.0, 180.0])

    lazy, eager = law(), law()
    for tick in range(3):  # standing, the capture point inside: no measurement
        lazy.update(tick * DT, [0.02, 0.0], feet, YAW, forces, 400.0)
    assert calls == [] and lazy.phase == "standing"
    for tick in range(3, 6):  # the capture point past the front edge: a decision, then the step
        lazy.update(tick * DT, [0.12, 0.0], feet, YAW, forces, 400.0)
        eager.update(tick * DT, [0.12, 0.0], feet, YAW, np.array([180.0, 180.0]), 400.0)
    assert len(calls) == 3 and "decided" not in lazy.events and lazy.phase == eager.phase == "unloading"
    assert lazy.swing.foot == eager.swing.foot and np.array_equal(lazy.swing.target, eager.swing.target)
    assert lazy.swing.max_normal_force == eager.swing.max_normal_force


def test_forward_push_steps_ahead_to_the_predicted_capture_point():
    stepper = law()
    xi = np.array([0.10, 0.0])
    t_td = 0.45
    choice = stepper.choose(xi, FEET_XY, YAW, t_td)
    stance = FEET_XY[1 - ("left_foot", "right_foot").index(choice.foot)]
    cop = np.array([0.085, stance[1] + math.copysign(0.0425, -stance[1])])  # the stance rectangle's nearest point
    expected = cop + (xi - cop) * math.exp(OMEGA * t_td)
    assert np.allclose(choice.capture_at_touch_down, expected, atol=1e-12)
    assert choice.target[0] == pytest.approx(min(expected[0], REACH), abs=1e-12)
    assert choice.margin_m > 0.0  # the capture point lands inside the new support


def test_sideways_push_past_the_outer_sole_is_answered_by_standing():
    """Lifting the loaded outer foot moves the capture point the wrong way; the inner foot may
    not cross over: neither step beats standing, so the law stands."""
    stepper = law()
    xi = np.array([0.0, 0.14])  # past the left sole's outer CoP edge (0.08 + 0.0425)
    outer = stepper.place("left_foot", xi, FEET_XY, YAW, 0.45)  # stance on the right foot
    inner = stepper.place("right_foot", xi, FEET_XY, YAW, 0.45)  # stance on the loaded left foot
    assert inner.clipped and inner.target[1] <= FEET_XY[0][1] - MIN_WIDTH + 1e-12  # stays on its side
    standing = stepper.standing_margin(xi, FEET_XY, YAW, 0.45)
    assert outer.margin_m < standing and inner.margin_m <= standing + 1e-3
    feet = np.column_stack([FEET_XY, np.zeros(2)])
    stepper.update(0.0, xi, feet, YAW, [367.0, 0.0], 367.0)
    assert stepper.phase == STANDING and stepper.events == ["no_better_step"]


def test_diagonal_push_steps_with_the_leading_foot():
    stepper = law()
    xi = np.array([0.11, 0.06])
    feet = np.column_stack([FEET_XY, np.zeros(2)])
    stepper.update(0.0, xi, feet, YAW, [250.0, 117.0], 367.0)
    assert stepper.phase == UNLOADING and stepper.swing.foot == "right_foot"  # stance on the loaded left
    assert stepper.swing.target[0] > 0.1


def test_a_target_beyond_the_limits_is_clipped_and_flagged():
    stepper = law()
    placement = stepper.place("right_foot", [0.5, 0.0], FEET_XY, YAW, 0.45)
    assert placement.clipped and placement.target[0] == pytest.approx(REACH)
    inside = stepper.place("right_foot", [0.09, -0.08], FEET_XY, YAW, 0.05)
    assert not inside.clipped


# -- closed loop on the point mass --------------------------------------------------------------
def lipm_rollout(stepper: SteppingLaw, impulse_velocity, t_end: float = 4.0):
    """The linear inverted pendulum on the law: the CoP is the support's point nearest to the
    capture point (the best an ankle strategy can do); a swing foot lands when its plan says (the
    ground is flat); the CoM starts at rest over the feet's midpoint with ``impulse_velocity``.

    Returns (captured, steps, final capture point, feet)."""
    c = np.zeros(2)
    v = np.asarray(impulse_velocity, dtype=float)
    feet = np.array([[0.0, WIDTH / 2, 0.0], [0.0, -WIDTH / 2, 0.0]])
    weight = 367.0
    t = 0.0
    for _ in range(int(t_end / DT)):
        xi = c + v / OMEGA
        swing = stepper.swing
        forces = np.array([weight / 2, weight / 2])
        if swing is not None:
            i = ("left_foot", "right_foot").index(swing.foot)
            landed = swing.phase == SWING and t >= swing.t_touch_planned - 1e-12
            forces[i] = 200.0 if landed or swing.phase in (LOADING,) else (0.0 if swing.phase == SWING else forces[i])
        stepper.update(t, xi, feet, YAW, forces, weight)
        swing = stepper.swing
        rects = []
        for i, foot in enumerate(("left_foot", "right_foot")):
            if swing is not None and swing.foot == foot:
                feet[i, :2] = swing.position[:2] if swing.phase != UNLOADING else feet[i, :2]
                if swing.phase == SWING:
                    continue
            hl, hw = COP
            rects.append(feet[i, :2] + np.array([[hl, hw], [-hl, hw], [-hl, -hw], [hl, -hw]]))
        from wbc_layer.capture import convex_hull

        polygon = convex_hull(np.vstack(rects))
        p = project_to_polygon(xi, polygon)
        # exact LIPM step over DT with the CoP held at p
        x0, xd0 = c - p, v
        ch, sh = math.cosh(OMEGA * DT), math.sinh(OMEGA * DT)
        c = p + x0 * ch + xd0 / OMEGA * sh
        v = x0 * OMEGA * sh + xd0 * ch
        t += DT
        if np.linalg.norm(c) > 2.0:
            break
    xi = c + v / OMEGA
    captured = stepper.phase == STANDING and np.linalg.norm(v) < 0.05
    return captured, stepper.steps_taken, xi, feet


def test_law_on_the_point_mass_captures_a_push_standing_could_not():
    # The ankle bound forward: the capture point may travel 0.085 m; push it to 0.11 m.
    stepper = law()
    captured, steps, xi, feet = lipm_rollout(stepper, [0.11 * OMEGA, 0.0])
    assert captured and steps == 1
    assert max(feet[:, 0]) > 0.1  # one foot went forward


def test_law_on_the_point_mass_does_not_step_for_a_push_inside_the_ankle_bound():
    stepper = law()
    captured, steps, _, _ = lipm_rollout(stepper, [0.8 * 0.085 * OMEGA, 0.0])
    assert captured and steps == 0


def test_standing_watch_rules_out_only_ticks_at_which_update_takes_no_step():
    """``standing_watch``'s condition (the capture point deeper than ``depth`` plus the CoP corners'
    largest shift from ``key`` inside the last polygon made) holds only at ticks where ``update``
    itself takes no step, and ``stood`` leaves the law as ``update`` does there (no events, the
    support's key moved alike). Feet rocking by up to 0.5 mm and 3 mrad per tick, capture points
    from deep inside the support to 6 cm beyond it, 3000 ticks, the condition computed as the compiled
    loop computes it (core/physics_loop.cpp's StandingWatch)."""
    rng = np.random.default_rng(5)
    asked, told = law(), law()
    feet, yaw = np.array([[0.0, WIDTH / 2, 0.0], [0.0, -WIDTH / 2, 0.0]]), YAW.copy()
    radius = math.hypot(*COP)
    certain = 0
    for tick in range(3000):
        feet[:, :2] += rng.uniform(-5e-4, 5e-4, (2, 2)) * rng.integers(0, 2)
        yaw += rng.uniform(-3e-3, 3e-3, 2) * rng.integers(0, 2)
        watch = asked.standing_watch()
        xi = feet[:, :2].mean(axis=0) + rng.uniform(-0.15, 0.15, 2)
        if watch is not None:
            normals, offsets, key, depth = watch
            shift = max(math.hypot(feet[f, 0] - key[2 * f], feet[f, 1] - key[2 * f + 1]) + abs(yaw[f] - key[4 + f]) * radius for f in range(2))
            if float((offsets - normals @ xi).min()) >= depth + shift:
                certain += 1
                asked.update(tick * DT, xi, feet, yaw, np.array([180.0, 180.0]), 400.0)
                told.stood(feet[:, :2], yaw)
                assert asked.phase == STANDING and asked.events == [] and told.events == []
                assert asked._support_key == told._support_key
                continue
        # not certain: both laws are asked (a step taken there resets them alike)
        asked.update(tick * DT, xi, feet, yaw, np.array([180.0, 180.0]), 400.0)
        told.update(tick * DT, xi, feet, yaw, np.array([180.0, 180.0]), 400.0)
        if asked.phase != STANDING:  # a step: start both over, standing where they are
            asked.reset(), told.reset()
    assert certain > 600  # the condition held at a fifth of the ticks or more, with the answers above


def test_standing_watch_is_none_while_a_step_is_under_way_or_before_a_polygon():
    stepper = law()
    assert stepper.standing_watch() is None  # no polygon made yet
    feet = np.array([[0.0, WIDTH / 2, 0.0], [0.0, -WIDTH / 2, 0.0]])
    stepper.update(0.0, [0.0, 0.0], feet, YAW, np.array([180.0, 180.0]), 400.0)
    normals, offsets, key, depth = stepper.standing_watch()
    assert key == [0.0, WIDTH / 2, 0.0, -WIDTH / 2, 0.0, 0.0] and len(offsets) == len(normals) >= 4
    assert 1.5e-4 < depth < 2e-4  # threshold 0 (trigger margin 0), the key's lag, 1e-9 m
    stepper.update(DT, [0.12, 0.0], feet, YAW, np.array([180.0, 180.0]), 400.0)  # past the front edge: a step
    assert stepper.phase == UNLOADING and stepper.standing_watch() is None


def test_the_unloading_bound_never_goes_below_zero_where_the_min_jerk_polynomial_rounds_above_one():
    """Just before lift-off the min-jerk polynomial ``10 x^3 - 15 x^4 + 6 x^5`` can round to an ulp
    above 1, which made the unloading foot's bound ``(1 - s) load`` a few 1e-14 N below its
    minimum of 0: the core refused the tick (a ValueError that ended a training episode after 2M
    steps of push recovery). ``min_jerk`` holds the phase at 1 there, so the bound is 0."""
    T = 0.1  # [s] the unloading (decision at 0, lift-off at T)
    times = [T * (1.0 - k * 1e-7) for k in range(1, 2001)]  # ticks from 0.2 ms to 10 ns before lift-off
    above = [t for t in times if 10 * (t / T) ** 3 - 15 * (t / T) ** 4 + 6 * (t / T) ** 5 > 1.0]
    assert above, "the premise: some of these times round the polynomial above 1"
    assert all(min_jerk(t, 0.0, T)[0] <= 1.0 for t in times)
    settings = SwingSettings(swing_s=0.3, height_m=0.05, unload_s=T, load_s=0.05)
    for t in above:
        swing = SwingFoot("right_foot", settings, 0.0, [0.0, -0.08, 0.0], 0.0, [0.15, -0.1], load_n=183.0, max_normal_force_n=367.0)
        swing.update(t, 183.0)
        assert swing.phase == "unloading" and swing.max_normal_force == 0.0
