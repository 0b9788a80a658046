"""The ankle-strategy capture bound: hand-computed cases on a square, off-centre and moving CoMs,
rotated feet, a capture point already outside, and bad input named in the error.

The pendulum here has ``g = 9`` m/s^2 and ``z_c = 1`` m, so ``omega = 3`` /s exactly, and
``m = 10`` kg: a bound is ``m omega s = 30 s`` N s for an exit distance ``s`` [m]. Values are
compared to 1e-12 N s / m: a handful of floating-point operations on O(1) numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

from wbc_layer.capture import capture_bound, capture_point, convex_hull, exit_distance, support_polygon

G, Z, M = 9.0, 1.0, 10.0  # omega = 3 /s
OMEGA = 3.0
TOL = 1e-12
#: 0.2 m x 0.2 m square around the origin, given with a redundant inner point and out of order.
SQUARE = np.array([[0.1, 0.1], [-0.1, -0.1], [0.0, 0.0], [-0.1, 0.1], [0.1, -0.1]])
FORWARD, LEFT, BACK = np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([-1.0, 0.0])


def bound(com_xy=(0.0, 0.0), velocity_xy=(0.0, 0.0), direction=FORWARD, polygon=SQUARE) -> float:
    com = np.array([*com_xy, Z])
    velocity = np.array([*velocity_xy, 0.0])
    return capture_bound(com, velocity, M, polygon, direction, ground_height=0.0, gravity=G)


def test_centred_com_at_rest_gets_mass_times_omega_times_the_distance_to_the_edge():
    assert bound(direction=FORWARD) == pytest.approx(M * OMEGA * 0.1, abs=TOL)  # 3 N s
    assert bound(direction=LEFT) == pytest.approx(3.0, abs=TOL)
    diagonal = np.array([1.0, 1.0]) / np.sqrt(2.0)
    assert bound(direction=diagonal) == pytest.approx(M * OMEGA * 0.1 * np.sqrt(2.0), abs=TOL)  # to the corner


def test_off_centre_com_is_closer_to_one_edge():
    assert bound(com_xy=(0.04, 0.0), direction=FORWARD) == pytest.approx(M * OMEGA * 0.06, abs=TOL)  # 1.8 N s
    assert bound(com_xy=(0.04, 0.0), direction=BACK) == pytest.approx(M * OMEGA * 0.14, abs=TOL)  # 4.2 N s


def test_com_velocity_moves_the_capture_point():
    # xi = 0.04 + 0.09 / 3 = 0.07 m: 0.03 m left forwards, 0.17 m backwards.
    assert capture_point([0.04, 0.0, Z], [0.09, 0.0, 0.0], gravity=G) == pytest.approx([0.07, 0.0], abs=TOL)
    assert bound(com_xy=(0.04, 0.0), velocity_xy=(0.09, 0.0), direction=FORWARD) == pytest.approx(0.9, abs=TOL)
    assert bound(com_xy=(0.04, 0.0), velocity_xy=(0.09, 0.0), direction=BACK) == pytest.approx(5.1, abs=TOL)


def test_ground_height_sets_the_pendulum_length():
    # The same CoM 1 m above a ground at z = 0.5 m: z_c = 0.5 m, omega = sqrt(18) /s.
    com = np.array([0.0, 0.0, Z + 0.5])
    p = capture_bound(com, np.zeros(3), M, SQUARE, FORWARD, ground_height=0.5, gravity=G)
    assert p == pytest.approx(M * OMEGA * 0.1, abs=TOL)
    p = capture_bound(com, np.zeros(3), M, SQUARE, FORWARD, ground_height=0.0, gravity=G)
    assert p == pytest.approx(M * np.sqrt(G / 1.5) * 0.1, abs=TOL)


def test_the_bound_impulse_puts_the_capture_point_on_the_edge():
    com, velocity = np.array([0.02, -0.03, Z]), np.array([0.05, 0.02, 0.0])
    u = np.array([np.cos(0.7), np.sin(0.7)])
    p = capture_bound(com, velocity, M, SQUARE, u, gravity=G)
    xi = capture_point(com, velocity + np.array([*(p / M * u), 0.0]), gravity=G)
    assert np.max(np.abs(xi)) == pytest.approx(0.1, abs=TOL)  # on the square's edge


def test_capture_point_already_outside_gives_zero():
    assert bound(com_xy=(0.12, 0.0), direction=BACK) == 0.0  # CoM beyond the front edge
    assert bound(velocity_xy=(0.33, 0.0), direction=BACK) == 0.0  # xi = 0.11 m: moving out
    assert bound(com_xy=(0.1, 0.0), direction=FORWARD) == 0.0  # on the edge, pushed out


def test_triangle_exit_distance_by_hand():
    triangle = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    # From (0.25, 0.25) towards (1, 1)/sqrt(2): the hypotenuse x + y = 1 at (0.5, 0.5).
    u = np.array([1.0, 1.0]) / np.sqrt(2.0)
    assert exit_distance([0.25, 0.25], u, triangle) == pytest.approx(0.25 * np.sqrt(2.0), abs=TOL)
    assert exit_distance([0.25, 0.25], [-1.0, 0.0], triangle) == pytest.approx(0.25, abs=TOL)


def test_convex_hull_is_counter_clockwise_without_inner_points():
    hull = convex_hull(SQUARE)
    assert len(hull) == 4 and [0.0, 0.0] not in hull.tolist()
    area = 0.5 * np.sum(hull[:, 0] * np.roll(hull[:, 1], -1) - np.roll(hull[:, 0], -1) * hull[:, 1])
    assert area == pytest.approx(0.04, abs=TOL)  # positive: counter-clockwise


def test_support_polygon_of_two_feet_shrunk_by_the_margin():
    # Soles 0.2 x 0.1 m at y = +-0.08 m, margins 0.015 m (length) and 0.0075 m (width).
    positions = np.array([[0.03, 0.08, 0.0], [0.03, -0.08, 0.0]])
    polygon = support_polygon(positions, np.stack([np.eye(3)] * 2), 0.1, 0.05, margin=(0.015, 0.0075))
    assert polygon.min(axis=0) == pytest.approx([0.03 - 0.085, -0.1225], abs=TOL)
    assert polygon.max(axis=0) == pytest.approx([0.03 + 0.085, 0.1225], abs=TOL)
    assert len(polygon) == 4


def test_support_polygon_turns_with_the_foot():
    yaw = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # 90 deg about z
    polygon = support_polygon([[0.0, 0.0, 0.0]], [yaw], 0.1, 0.05, margin=0.01)
    assert polygon.max(axis=0) == pytest.approx([0.04, 0.09], abs=TOL)  # length now along y


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"direction": [1.0, 1.0]}, "direction"),
        ({"direction": [0.0, 0.0]}, "direction"),
        ({"direction": [np.nan, 1.0]}, "direction"),
        ({"com": [0.0, np.inf, 1.0]}, "com"),
        ({"com": [0.0, 0.0]}, "com"),
        ({"com": [0.0, 0.0, -0.1]}, "above the ground"),
        ({"com_velocity": [np.nan, 0.0, 0.0]}, "com_velocity"),
        ({"mass": 0.0}, "mass"),
        ({"mass": np.nan}, "mass"),
        ({"polygon": [[0.0, 0.0], [0.1, 0.0], [0.2, 0.0]]}, "degenerate"),  # collinear
        ({"polygon": [[0.0, 0.0], [0.1, 0.0]]}, "degenerate"),
        ({"polygon": [[0.0, 0.0], [0.1, 0.0], [0.0, np.nan]]}, "polygon vertices"),
        ({"polygon": [0.0, 0.1, 0.2]}, "polygon vertices"),
    ],
)
def test_bad_input_raises_value_error_naming_it(kwargs, named):
    args = {"com": [0.0, 0.0, Z], "com_velocity": np.zeros(3), "mass": M, "polygon": SQUARE, "direction": FORWARD}
    with pytest.raises(ValueError, match=named):
        capture_bound(**{**args, **kwargs}, gravity=G)


def test_support_polygon_rejects_a_margin_as_large_as_the_foot():
    with pytest.raises(ValueError, match="margin"):
        support_polygon([[0.0, 0.0, 0.0]], [np.eye(3)], 0.1, 0.05, margin=0.05)
    with pytest.raises(ValueError, match="foot_rotations"):
        support_polygon([[0.0, 0.0, 0.0]], [np.eye(3)] * 2, 0.1, 0.05)
