"""Step limits and the one-step / N-step capture regions and bounds, hand-computed where possible.

- ``wbc_layer.step_limits``: the swing's height profile, ``derive_step_limits`` on Hubo-lite's
  numbers (recomputed here by hand), the reachable polygon, bad input.
- ``wbc_layer.capture``: the 1-D reduction to Koolen et al.'s ``d_1 = r + l e`` and ``d_inf = r +
  l e / (1 - e)``; ``C_0 = R``; ``C_N`` against the recursion ``(1 - e) R (+) e (F (+) C'_(N-1))``
  iterated, growing with ``N`` and converging to ``C_inf``; the limits ``T -> 0`` (``e -> 1``:
  ``C_1 -> F (+) R``) and ``T -> inf`` (``e -> 0``: ``C_1 -> R``); the sideways push from double
  support, whose one-step bound is below the ankle bound; the N-step bound as the union of the
  regions along the push; the unloading in double support; rotations; bad input.
- ``RobotDescription.step_limits`` on both robots' models.

Polygons are compared by their support functions ``h(d) = max_v v . d`` over 720 directions (two
convex polygons with equal support functions are equal; floating-point sums of O(0.1) m numbers:
1e-12 m).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbc_layer.capture import (
    capture_bound,
    capture_region,
    exit_distance,
    minkowski_sum,
    n_step_capture_bound,
    step_capture_bounds,
    support_polygon,
)
from wbc_layer.step_limits import (
    REACH_POLYGON_VERTICES,
    StepLimits,
    derive_step_limits,
    reachable_region,
    swing_height_profile,
)

TOL = 1e-12
G = 9.81
DIRECTIONS = np.column_stack([np.cos(np.linspace(0, 2 * np.pi, 720, endpoint=False)), np.sin(np.linspace(0, 2 * np.pi, 720, endpoint=False))])

# Hubo-lite-like numbers: the brief's 0.61 m leg and 0.585 m hip, feet 0.16 m apart, 0.2 x 0.1 m
# soles whose CoP is kept in 85 % of them, 37.4 kg, CoM 0.688 m above the soles.
LEG, HIP, WIDTH, SOLE_HALF_WIDTH = 0.61, 0.585, 0.16, 0.05
COP = (0.085, 0.0425)
MASS, COM_Z = 37.4, 0.688
OMEGA = math.sqrt(G / COM_Z)


def support(polygon, directions=DIRECTIONS) -> np.ndarray:
    return (np.asarray(polygon) @ directions.T).max(axis=0)


def rectangle(hx, hy, centre=(0.0, 0.0)) -> np.ndarray:
    return np.array([[hx, hy], [-hx, hy], [-hx, -hy], [hx, -hy]]) + np.asarray(centre)


def area(polygon) -> float:
    x, y = np.asarray(polygon).T
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def hubo_limits() -> StepLimits:
    return derive_step_limits(LEG, HIP, WIDTH, SOLE_HALF_WIDTH)


# -- the swing's height profile -----------------------------------------------------------------
def test_swing_height_profile_ends_at_rest_and_peaks_at_one():
    for s in (0.0, 1.0):
        assert swing_height_profile(s) == pytest.approx((0.0, 0.0, 0.0), abs=TOL)
    b, db, d2b = swing_height_profile(0.5)
    assert (b, db, d2b) == pytest.approx((1.0, 0.0, -24.0), abs=TOL)
    assert swing_height_profile(-0.5) == swing_height_profile(0.0) and swing_height_profile(2.0) == swing_height_profile(1.0)


def test_swing_height_profile_derivatives_and_peak_acceleration_numerically():
    s = np.linspace(0.0, 1.0, 20001)
    values = np.array([swing_height_profile(x) for x in s])
    step = s[1] - s[0]
    np.testing.assert_allclose(np.gradient(values[:, 0], step)[1:-1], values[1:-1, 1], atol=1e-6)
    np.testing.assert_allclose(np.gradient(values[:, 1], step)[1:-1], values[1:-1, 2], atol=1e-5)
    assert values[:, 0].max() == pytest.approx(1.0, abs=TOL)
    assert np.abs(values[:, 2]).max() == pytest.approx(24.0, abs=TOL)  # at s = 0.5, a grid point
    assert s[np.argmax(np.abs(values[:, 2]))] == pytest.approx(0.5, abs=TOL)


# -- derive_step_limits --------------------------------------------------------------------------
def test_derive_step_limits_on_hubo_lite_by_hand():
    limits = hubo_limits()
    usable = 0.995 * 0.61  # 0.60695 m: the knee kept ~12 deg off straight
    reach = math.sqrt(usable**2 - 0.585**2)  # sqrt(0.3683883 - 0.342225) = 0.16175 m
    assert limits.reach_m == pytest.approx(reach, abs=TOL)
    assert reach == pytest.approx(0.16175, abs=1e-5)
    # "a flat foot lands at most about 0.17 m from its hip at standing height": the straight-leg
    # sqrt(0.61^2 - 0.585^2) = 0.1729 m is the ceiling, the knee margin takes ~1 cm off it.
    assert 0.15 <= limits.reach_m <= math.sqrt(0.61**2 - 0.585**2) <= 0.173
    assert limits.max_forward_m == limits.max_backward_m == limits.max_outward_m == limits.reach_m
    assert limits.min_width_m == pytest.approx(2 * 0.05 + 0.02, abs=TOL)  # 0.12 m
    assert limits.nominal_width_m == 0.16
    assert limits.swing_height_m == pytest.approx(0.08 * 0.61, abs=TOL)  # 0.0488 m
    horizontal = math.sqrt(10.0 / math.sqrt(3.0) * reach / (3 * 9.81))  # 0.1782 s
    vertical = math.sqrt(24.0 * 0.0488 / (3 * 9.81))  # 0.1995 s: the bump decides (3 g, the default)
    assert limits.min_swing_time_s == pytest.approx(max(horizontal, vertical), abs=TOL)
    assert limits.min_swing_time_s == pytest.approx(0.19949, abs=1e-5)


def test_min_swing_time_keeps_the_foot_acceleration_at_the_bound():
    limits = hubo_limits()
    T = limits.min_swing_time_s
    peak_vertical = 24.0 * limits.swing_height_m / T**2
    peak_horizontal = 10.0 / math.sqrt(3.0) * limits.reach_m / T**2
    assert max(peak_vertical, peak_horizontal) == pytest.approx(3 * 9.81, abs=1e-9)
    # the minimum-jerk peak, numerically: x(s) = 10 s^3 - 15 s^4 + 6 s^5
    s = np.linspace(0.0, 1.0, 200001)
    assert np.abs(60 * s - 180 * s**2 + 120 * s**3).max() == pytest.approx(10.0 / math.sqrt(3.0), abs=1e-8)


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"leg_length_m": -0.6}, "leg_length_m"),
        ({"hip_height_m": float("nan")}, "hip_height_m"),
        ({"hip_height_m": 0.61}, "hip_height_m"),  # no reach left
        ({"knee_margin": 1.0}, "knee_margin"),
        ({"knee_margin": 0.0}, "knee_margin"),
        ({"nominal_width_m": 0.0}, "nominal_width_m"),
        ({"sole_half_width_m": "wide"}, "sole_half_width_m"),
        ({"width_clearance_m": -0.01}, "width_clearance_m"),
        ({"swing_height_fraction": 0.0}, "swing_height_fraction"),
        ({"max_foot_acceleration_mps2": math.inf}, "max_foot_acceleration_mps2"),
    ],
)
def test_derive_step_limits_names_a_bad_argument(kwargs, named):
    arguments = {"leg_length_m": LEG, "hip_height_m": HIP, "nominal_width_m": WIDTH, "sole_half_width_m": SOLE_HALF_WIDTH, **kwargs}
    with pytest.raises(ValueError, match=named):
        derive_step_limits(**arguments)


def test_step_limits_checks_its_fields():
    good = dict(hubo_limits().__dict__)
    with pytest.raises(ValueError, match="max_backward_m"):
        StepLimits(**{**good, "max_backward_m": -0.1})
    with pytest.raises(ValueError, match="min_swing_time_s"):
        StepLimits(**{**good, "min_swing_time_s": float("nan")})
    with pytest.raises(ValueError, match="min_width_m"):
        StepLimits(**{**good, "min_width_m": 0.2})  # wider than the nominal 0.16 m


# -- reachable_region -----------------------------------------------------------------------------
def test_reachable_region_is_the_inscribed_disk_cut_at_the_least_width():
    limits = hubo_limits()
    r = limits.reach_m
    left = reachable_region(limits, "left")
    assert area(left) > 0  # counter-clockwise
    distances = np.hypot(left[:, 0], left[:, 1] - WIDTH)
    assert np.all(distances <= r + TOL)  # inside the disk: every polygon point is within reach
    assert np.all(left[:, 1] >= limits.min_width_m - TOL)
    assert left[:, 1].min() == pytest.approx(limits.min_width_m, abs=TOL)  # the cut is active
    assert left[:, 0].max() == pytest.approx(r, abs=TOL) and left[:, 1].max() == pytest.approx(WIDTH + r, abs=TOL)
    # the vertices on the circle are the 32-gon's (those above the cut), plus the cut's two ends
    on_circle = np.abs(distances - r) < 1e-12
    assert on_circle.sum() == sum(WIDTH + r * math.sin(2 * math.pi * k / REACH_POLYGON_VERTICES) >= 0.12 for k in range(32))
    right = reachable_region(limits, "right")
    np.testing.assert_allclose(support(right, DIRECTIONS * [1, -1]), support(left), atol=TOL)  # the mirror image


def test_crossover_region_is_the_far_side_and_out_of_a_hip_reach_here():
    limits = hubo_limits()
    assert reachable_region(limits, "left", crossover=True).shape == (0, 2)  # 0.16 + 0.12 m > 0.162 m of reach
    wide = StepLimits(0.4, 0.4, 0.4, 0.12, 0.16, 0.05, 0.3, 0.4)
    crossed = reachable_region(wide, "left", crossover=True)
    assert area(crossed) > 0
    assert crossed[:, 1].max() == pytest.approx(-0.12, abs=TOL)  # beyond the stance sole, with the gap
    assert np.all(np.hypot(crossed[:, 0], crossed[:, 1] - 0.16) <= 0.4 + TOL)


def test_reachable_region_names_bad_input():
    with pytest.raises(ValueError, match="swing_side"):
        reachable_region(hubo_limits(), "middle")
    with pytest.raises(ValueError, match="limits"):
        reachable_region({"reach_m": 0.2}, "left")


# -- capture regions ------------------------------------------------------------------------------
def koolen(r, ell, e, steps):
    """Koolen et al.'s scalar recursion d_N = r + (d_(N-1) - r + l) e, d_0 = r (``ell``: their l)."""
    d = r
    for _ in range(steps):
        d = r + (d - r + ell) * e
    return d


def test_one_dimensional_reduction_gives_koolens_d1_and_dinf():
    r, ell, T = 0.08, 0.3, 0.35
    omega = 3.5
    e = math.exp(-omega * T)
    long_thin = (r, 0.01)  # the CoP rectangle: r along x
    step = rectangle(ell, 0.005)  # steps of up to ell forward and back, none sideways
    one = capture_region(long_thin, step, T, omega, 1)
    infinite = capture_region(long_thin, step, T, omega, math.inf)
    assert one[:, 0].max() == pytest.approx(r + ell * e, abs=1e-9)
    assert infinite[:, 0].max() == pytest.approx(r + ell * e / (1 - e), abs=1e-9)
    assert -infinite[:, 0].min() == pytest.approx(r + ell * e / (1 - e), abs=1e-9)
    for n in range(7):
        assert capture_region(long_thin, step, T, omega, n)[:, 0].max() == pytest.approx(koolen(r, ell, e, n), abs=1e-9)
    # the impulse: the capture point at x0 may move to d: m omega (d - x0) along the push
    x0, m = 0.03, 20.0
    assert m * omega * exit_distance([x0, 0.0], [1.0, 0.0], one) == pytest.approx(m * omega * (r + ell * e - x0), abs=1e-9)
    assert m * omega * exit_distance([x0, 0.0], [-1.0, 0.0], infinite) == pytest.approx(
        m * omega * (r + ell * e / (1 - e) + x0), abs=1e-9
    )


def recursion(R, F, T, omega, steps):
    """C_N = (1 - e) R (+) e (F (+) mirror(C_(N-1))), C_0 = R: the stance foot alternates sides."""
    e = math.exp(-omega * T)
    region = R
    for _ in range(steps):
        mirrored = region * [1.0, -1.0]
        region = minkowski_sum((1 - e) * R, e * minkowski_sum(F, mirrored))
    return region


def test_zero_steps_is_the_cop_rectangle():
    region = capture_region(COP, reachable_region(hubo_limits(), "right"), 0.45, OMEGA, 0)
    np.testing.assert_allclose(support(region), support(rectangle(*COP)), atol=TOL)


def test_closed_form_matches_the_recursion_for_alternating_feet():
    limits = hubo_limits()
    F = reachable_region(limits, "right")  # left stance, the right foot swings
    T = 0.1 + limits.min_swing_time_s
    R = rectangle(*COP)
    for n in range(1, 6):
        expected = recursion(R, F, T, OMEGA, n)
        np.testing.assert_allclose(support(capture_region(COP, F, T, OMEGA, n)), support(expected), atol=TOL)
    # reachable_next given explicitly as the mirror: the same
    mirror = reachable_region(limits, "left")
    np.testing.assert_allclose(support(capture_region(COP, F, T, OMEGA, 3, mirror)), support(recursion(R, F, T, OMEGA, 3)), atol=TOL)


def test_regions_grow_with_n_and_converge_to_c_inf():
    limits = hubo_limits()
    T = 0.1 + limits.min_swing_time_s
    e = math.exp(-OMEGA * T)
    F = reachable_region(limits, "right")
    infinite = support(capture_region(COP, F, T, OMEGA, math.inf))
    areas, gaps = [], []
    for n in range(20):
        region = capture_region(COP, F, T, OMEGA, n)
        areas.append(area(region))
        gaps.append(np.abs(support(region) - infinite).max())
    assert all(b > a for a, b in zip(areas, areas[1:], strict=False))
    # the gap to C_inf shrinks like e^(N+1) / (1 - e^2) times the regions' size (< 0.5 m)
    assert all(gap <= 0.5 * e ** (n + 1) / (1 - e * e) + 1e-12 for n, gap in enumerate(gaps))
    assert gaps[-1] < 1e-9
    # with a reachable region holding the origin (Koolen's: the foot may land under the stance
    # foot) the regions are nested: C_N inside C_(N+1) inside C_inf
    around = rectangle(0.2, 0.15)
    nested = [support(capture_region(COP, around, T, OMEGA, n)) for n in range(6)]
    nested.append(support(capture_region(COP, around, T, OMEGA, math.inf)))
    assert all(np.all(b >= a - TOL) for a, b in zip(nested, nested[1:], strict=False))
    # the no-crossover region does not hold the origin: C_1 does not hold R (a step must be taken)
    assert np.any(support(capture_region(COP, F, T, OMEGA, 1)) < support(rectangle(*COP)) - 1e-3)


def test_an_instant_step_captures_in_f_plus_r_and_a_slow_one_only_in_r():
    F = reachable_region(hubo_limits(), "right")
    R = rectangle(*COP)
    fast = capture_region(COP, F, 1e-12, OMEGA, 1)  # e -> 1
    np.testing.assert_allclose(support(fast), support(minkowski_sum(F, R)), atol=1e-11)
    slow = capture_region(COP, F, 40.0 / OMEGA, OMEGA, 1)  # e = exp(-40) -> 0
    np.testing.assert_allclose(support(slow), support(R), atol=1e-12)


def test_minkowski_sum_of_rectangles_adds_their_sizes():
    np.testing.assert_allclose(support(minkowski_sum(rectangle(0.1, 0.05), rectangle(0.2, 0.01, (1.0, 2.0)))),
                               support(rectangle(0.3, 0.06, (1.0, 2.0))), atol=TOL)  # fmt: skip


# -- the bounds -------------------------------------------------------------------------------------
def double_support(direction, yaw=0.0, com_xy=(0.0, 0.0), velocity_xy=(0.0, 0.0), **kwargs):
    limits = hubo_limits()
    c, s = math.cos(yaw), math.sin(yaw)
    turn = np.array([[c, -s], [s, c]])
    left, right = turn @ [0.0, 0.08], turn @ [0.0, -0.08]
    return step_capture_bounds(
        [*(turn @ com_xy), COM_Z], [*(turn @ velocity_xy), 0.0], MASS, left, right, yaw, COP, limits,
        0.1 + limits.min_swing_time_s, turn @ np.asarray(direction, dtype=float), **kwargs,
    )  # fmt: skip


def test_a_sideways_push_captures_less_by_stepping_than_by_standing():
    limits = hubo_limits()
    e = math.exp(-OMEGA * (0.1 + limits.min_swing_time_s))  # 0.186
    out = double_support([0.0, -1.0])  # pushed to the right: the right foot is the outer, loaded one
    ankle = MASS * OMEGA * (0.08 + 0.0425)  # to the right foot's CoP edge: 17.4 N s
    assert out["ankle"] == pytest.approx(ankle, abs=1e-9)
    # the right foot swings outward (left stance): the CoP is held on the left foot while the capture
    # point runs right, and the region's bottom at x = 0 is the left rectangle's edge plus e times
    # the disk's lowest vertex (0, -(0.16 + r)): exit 0.0425 + e (0.16 + r) - 0.08
    left_stance = MASS * OMEGA * (0.0425 + e * (0.16 + limits.reach_m) - 0.08)
    # the left (inner) foot swings, no crossover (right stance): the bottom is the right rectangle's
    # edge plus e times the cut at y = +0.12: exit 0.08 + 0.0425 - 0.12 e
    right_stance = MASS * OMEGA * (0.08 + 0.0425 - 0.12 * e)
    assert out["by_stance"]["left_foot"]["one_step"] == pytest.approx(left_stance, abs=1e-9)  # 3.2 N s
    assert out["by_stance"]["right_foot"]["one_step"] == pytest.approx(right_stance, abs=1e-9)  # 14.2 N s
    assert out["one_step"] == pytest.approx(right_stance, abs=1e-9) and out["one_step_stance"] == "right_foot"
    assert out["one_step"] < out["ankle"] and out["n_step"] < out["ankle"]
    assert out["n_step_stance"] == "right_foot"


def test_a_forward_push_captures_more_by_stepping():
    out = double_support([1.0, 0.0])
    assert out["ankle"] == pytest.approx(MASS * OMEGA * 0.085, abs=1e-9)
    assert out["one_step"] > 1.2 * out["ankle"]
    assert out["n_step"] >= out["one_step"]
    assert out["one_step_stance"] == "left_foot"  # the two stances tie by symmetry: the left one
    assert out["by_stance"]["left_foot"]["one_step"] == pytest.approx(out["by_stance"]["right_foot"]["one_step"], abs=1e-9)


def test_the_one_step_bound_puts_the_capture_point_on_the_region_edge():
    limits = hubo_limits()
    T = 0.1 + limits.min_swing_time_s
    com, velocity = np.array([0.01, 0.02, COM_Z]), np.array([0.05, -0.03, 0.0])
    direction = np.array([0.6, 0.8])
    bound = n_step_capture_bound(com, velocity, MASS, [0.0, 0.08], 0.0, COP, limits, "right", T, direction)
    xi = com[:2] + velocity[:2] / OMEGA + bound * direction / (MASS * OMEGA)
    region = capture_region(COP, reachable_region(limits, "right"), T, OMEGA, 1)
    assert bound > 0
    assert exit_distance(xi - [0.0, 0.08], direction, region) == pytest.approx(0.0, abs=1e-12)
    assert exit_distance(xi - [0.0, 0.08] - 1e-6 * direction, direction, region) > 0


def test_a_capture_point_outside_the_region_gives_zero():
    limits = hubo_limits()
    fast = [0.0, -2.0, 0.0]  # already running right at 2 m/s: xi 0.53 m to the right
    bound = n_step_capture_bound([0.0, 0.0, COM_Z], fast, MASS, [0.0, 0.08], 0.0, COP, limits, "right", 0.45, [0.0, -1.0])
    assert bound == 0.0


@pytest.mark.parametrize("yaw", [0.7, -2.0, math.pi])
@pytest.mark.parametrize("direction", [[1.0, 0.0], [0.0, -1.0], [-0.6, 0.8]])
def test_a_rotated_stance_gives_the_bounds_of_the_unrotated_one(yaw, direction):
    plain = double_support(direction, com_xy=(0.01, -0.005), velocity_xy=(0.03, 0.02))
    turned = double_support(direction, yaw=yaw, com_xy=(0.01, -0.005), velocity_xy=(0.03, 0.02))
    for key in ("ankle", "one_step", "n_step"):
        assert turned[key] == pytest.approx(plain[key], abs=1e-9)
    for stance in ("left_foot", "right_foot"):
        assert turned["by_stance"][stance] == pytest.approx(plain["by_stance"][stance], abs=1e-9)


def test_step_capture_bounds_agrees_with_its_parts():
    limits = hubo_limits()
    T = 0.1 + limits.min_swing_time_s
    com, velocity, direction = np.array([0.0, 0.0, COM_Z]), np.zeros(3), np.array([0.0, 1.0])
    out = double_support(direction)
    feet = np.array([[0.0, 0.08, 0.0], [0.0, -0.08, 0.0]])
    polygon = support_polygon(feet, np.array([np.eye(3)] * 2), *COP)
    assert out["ankle"] == pytest.approx(capture_bound(com, velocity, MASS, polygon, direction), abs=TOL)
    for stance, centre, side in (("left_foot", [0.0, 0.08], "right"), ("right_foot", [0.0, -0.08], "left")):
        one = n_step_capture_bound(com, velocity, MASS, centre, 0.0, COP, limits, side, T, direction, 1)
        assert out["by_stance"][stance]["one_step"] == pytest.approx(one, abs=TOL)
        exact = [n_step_capture_bound(com, velocity, MASS, centre, 0.0, COP, limits, side, T, direction, n) for n in (*range(1, 30), math.inf)]
        assert out["by_stance"][stance]["n_step"] >= max(exact) - TOL  # at most N steps: the union of the C_N
    # zero steps from one foot: the ankle bound of that foot alone (0 with the CoM between the feet)
    alone = n_step_capture_bound(com, velocity, MASS, [0.0, 0.01], 0.0, COP, limits, "right", T, direction, 0)
    assert alone == pytest.approx(MASS * OMEGA * (0.0425 + 0.01), abs=1e-9)
    assert n_step_capture_bound(com, velocity, MASS, [0.0, 0.08], 0.0, COP, limits, "right", T, direction, 0) == 0.0
    # crossover: out of reach on these legs, so the same bounds and no crossover step used
    crossed = double_support(direction, crossover=True)
    assert crossed["one_step"] == out["one_step"] and crossed["one_step_crossover"] is False


def test_n_step_is_the_union_of_the_regions_along_the_push():
    """The regions are not nested: the N-step bound is how far the push may go with the capture
    point in some C_N (N >= 1) all the way, checked here on points along the push."""
    limits = hubo_limits()
    T = 0.1 + limits.min_swing_time_s
    for direction in ([0.0, 1.0], [1.0, 0.0], [-0.6, 0.8], [0.8, -0.6]):
        out = double_support(direction, com_xy=(0.02, 0.01))
        for stance, centre, side in (("left_foot", [0.0, 0.08], "right"), ("right_foot", [0.0, -0.08], "left")):
            regions = [capture_region(COP, reachable_region(limits, side), T, OMEGA, n) for n in (*range(1, 40), math.inf)]
            reach = out["by_stance"][stance]["n_step"] / (MASS * OMEGA)
            xi = np.array([0.02, 0.01]) - centre
            u = np.asarray(direction)

            def covered(point, regions=regions, u=u):
                return any(exit_distance(point, u, region) > 0.0 for region in regions)  # strictly inside one

            assert reach >= out["by_stance"][stance]["one_step"] / (MASS * OMEGA) - TOL
            if reach > 0:
                assert all(covered(xi + t * u) for t in np.linspace(0.0, reach - 1e-9, 300))
            assert not covered(xi + (reach + 1e-7) * u)


def test_unloading_in_double_support_by_hand():
    limits = hubo_limits()
    T_u, T = 0.1, 0.1 + limits.min_swing_time_s
    e_u, e_s = math.exp(-OMEGA * T_u), math.exp(-OMEGA * (T - T_u))
    plain = double_support([0.0, -1.0])
    out = double_support([0.0, -1.0], unloading_s=T_u)
    # left stance, the right foot swinging outward: the region's bottom at x = 0 is (1 - e_u) times
    # the double support's (0.16 + 0.0425 below the left sole) plus e_u times the one-step region's
    # bottom with the swing time alone (0.0425 + e_s (0.16 + r))
    bottom = (1 - e_u) * (0.16 + 0.0425) + e_u * (0.0425 + e_s * (0.16 + limits.reach_m))
    assert out["by_stance"]["left_foot"]["one_step"] == pytest.approx(MASS * OMEGA * (bottom - 0.08), abs=1e-9)
    # more room for the CoP during the unloading: never less than the CoP on the stance foot all along
    for direction in ([1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [0.6, -0.8]):
        a, b = double_support(direction), double_support(direction, unloading_s=T_u)
        for stance in ("left_foot", "right_foot"):
            for key in ("one_step", "n_step"):
                assert b["by_stance"][stance][key] >= a["by_stance"][stance][key] - 1e-12
    assert out["ankle"] == plain["ankle"]
    # unloading_s = 0 is the default exactly
    zero = n_step_capture_bound(**{**ARGS, "limits": limits}, unloading_s=0.0, unloading_polygon=rectangle(0.2, 0.2))
    assert zero == n_step_capture_bound(**{**ARGS, "limits": limits})


ARGS = {
    "com": [0.0, 0.0, COM_Z], "com_velocity": [0.0, 0.0, 0.0], "mass": MASS, "stance_centre": [0.0, 0.08], "stance_yaw": 0.0,
    "cop_half_sizes": COP, "swing_side": "right", "step_time_s": 0.45, "direction": [1.0, 0.0],
}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"step_time_s": -0.1}, "step_time_s"),
        ({"step_time_s": 0.0}, "step_time_s"),
        ({"swing_side": "middle"}, "swing_side"),
        ({"direction": [1.0, 1.0]}, "direction"),
        ({"steps": -1}, "steps"),
        ({"steps": 1.5}, "steps"),
        ({"steps": "two"}, "steps"),
        ({"mass": 0.0}, "mass"),
        ({"cop_half_sizes": (0.085, -0.04)}, "cop_half_sizes"),
        ({"stance_centre": [0.0]}, "stance_centre"),
        ({"stance_yaw": float("nan")}, "stance_yaw"),
        ({"limits": "hubo"}, "limits"),
        ({"com": [0.0, 0.0, -0.1]}, "com"),
        ({"unloading_s": 0.45, "unloading_polygon": rectangle(0.2, 0.2)}, "unloading_s"),
        ({"unloading_s": -0.1, "unloading_polygon": rectangle(0.2, 0.2)}, "unloading_s"),
        ({"unloading_s": 0.1}, "unloading_polygon"),
        ({"unloading_s": 0.1, "unloading_polygon": [[0.0, 0.0]]}, "unloading_polygon"),
    ],
)
def test_bad_input_raises_value_error_naming_it(change, named):
    with pytest.raises(ValueError, match=named):
        n_step_capture_bound(**{**ARGS, "limits": hubo_limits(), **change})


def test_capture_region_and_step_capture_bounds_name_bad_input():
    F = reachable_region(hubo_limits(), "right")
    with pytest.raises(ValueError, match="omega"):
        capture_region(COP, F, 0.45, 0.0)
    with pytest.raises(ValueError, match="reachable_next"):
        capture_region(COP, F, 0.45, OMEGA, 2, [[0.0, 0.0], [0.1, 0.0]])
    with pytest.raises(ValueError, match="reachable"):
        capture_region(COP, [[0.0, 0.0], [0.1, 0.1], [0.2, 0.2]], 0.45, OMEGA)
    limits = hubo_limits()
    with pytest.raises(ValueError, match="right_centre"):
        step_capture_bounds([0, 0, COM_Z], [0, 0, 0], MASS, [0.0, 0.08], [[0.0, -0.08]], 0.0, COP, limits, 0.45, [1.0, 0.0])


# -- the robots' step limits -------------------------------------------------------------------------
def test_hubo_lite_step_limits_from_its_model():
    from humanoid_env.robots import robot_description

    hubo = robot_description("hubo_lite")
    geometry = hubo.leg_geometry()
    # the hip pitch axis is 0.585 m above the sole at home (hip -0.3, knee 0.6, ankle -0.3 rad);
    # straight, the leg is two 0.28 m segments and 0.05 m of ankle, the sole's centre 0.03 m
    # ahead of the ankle: sqrt(0.61^2 + 0.03^2) = 0.6107 m. Tolerances: 1 mm (the sole sits on the
    # ground through the keyframe's rounding).
    assert geometry["hip_height_m"] == pytest.approx(0.585, abs=1e-3)
    assert geometry["leg_length_m"] == pytest.approx(math.hypot(0.61, 0.03), abs=1e-3)
    assert geometry["nominal_width_m"] == pytest.approx(0.16, abs=1e-6)
    limits = hubo.step_limits()
    expected = derive_step_limits(geometry["leg_length_m"], geometry["hip_height_m"], geometry["nominal_width_m"], hubo.sole_half_sizes()[1])
    assert limits == expected
    # about 0.17 m: the straight-knee reach sqrt(0.6107^2 - 0.585^2) = 0.175 m less the knee
    # margin's 1 cm; the brief's "at most about 0.17 m" as the window 0.15-0.173 m
    assert 0.15 <= limits.reach_m <= 0.173 and limits.reach_m == pytest.approx(0.1645, abs=2e-3)
    assert limits.swing_height_m == pytest.approx(0.0489, abs=1e-3)  # the contact-switching lift: 0.05 m
    assert limits.min_width_m == pytest.approx(0.12, abs=1e-9)
    assert limits.min_width_m < limits.nominal_width_m


def test_g1_step_limits_are_consistent():
    from humanoid_env.robots import robot_description

    g1 = robot_description("g1")
    geometry, limits = g1.leg_geometry(), g1.step_limits()
    print("G1 legs:", geometry, limits)
    assert 0.0 < geometry["hip_height_m"] < geometry["leg_length_m"]
    assert limits.reach_m > 0.0 and limits.min_width_m < limits.nominal_width_m
    assert limits.nominal_width_m == pytest.approx(geometry["nominal_width_m"])
    assert 0.1 < limits.reach_m < 0.3 and 0.2 < limits.min_swing_time_s < 0.6
