"""The board-tilt law (wbc_layer.seesaw_law): hand-computed cases, limits, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbc_layer import BoardTiltLaw, ConfigError, SeesawBody
from wbc_layer.seesaw_law import lateral_capture_point

#: A board like the seesaw env's: radius 0.5 m, centre of curvature at world y = 0.1 m.
BOARD = SeesawBody("board", mass=4.0, com=np.zeros(3), inertia=np.eye(3), radius=0.5, origin=np.array([0.0, 0.1, 0.0]))
#: h = 9.81 / 4 m gives omega = 2 /s exactly.
LAW = BoardTiltLaw(gain=1.5, com_height_m=9.81 / 4.0, limit_rad=0.3)


def test_lateral_capture_point_adds_velocity_over_omega():
    assert lateral_capture_point(0.1, 0.4, 2.0) == pytest.approx(0.3)


def test_robot_at_rest_on_its_reference_puts_the_line_under_it():
    """CoM and reference at y = 0.1 + 0.05, at rest: the line goes under the CoM, which the board
    reaches at theta = (y_0 - y_P) / R = -0.05 / 0.5 = -0.1 rad."""
    assert LAW.omega == pytest.approx(2.0)
    assert LAW.target(BOARD, 0.15, 0.0, 0.15) == pytest.approx(-0.1)


def test_lateral_capture_point_error_moves_the_line_k_times_further():
    """Reference at the board's centre, the CoM 1 cm left moving at 0.02 m/s: xi - xi_ref =
    0.01 + 0.02 / 2 = 0.02 m, the line at y_0 + 1.5 x 0.02 = y_0 + 0.03 m, theta = -0.06 rad."""
    assert LAW.target(BOARD, 0.11, 0.02, 0.1) == pytest.approx(-0.06)


def test_reference_derivatives_enter_as_the_pendulum_needs():
    """A reference at y_0 moving at 0.1 m/s and accelerating at 0.4 m/s^2, the CoM on it: xi =
    xi_ref, so the line goes to y_ref - a / omega^2 = 0.1 - 0.1 = 0.0, 0.1 m behind the CoM (the
    pendulum then accelerates the CoM at omega^2 x 0.1 = 0.4 m/s^2, as the reference does):
    theta = (y_0 - 0.0) / R = 0.2 rad."""
    assert LAW.target(BOARD, 0.1, 0.1, 0.1, 0.1, 0.4) == pytest.approx(0.2)


def test_target_is_clipped_to_the_limit_and_zero_gain_keeps_the_board_level():
    assert LAW.target(BOARD, 1.0, 0.0, 1.0) == -0.3  # wants -1.8 rad
    assert LAW.target(BOARD, -1.0, 0.0, -1.0) == 0.3
    assert BoardTiltLaw(gain=0.0, com_height_m=0.7, limit_rad=0.3).target(BOARD, 0.2, 1.0, 0.0) == 0.0


@pytest.mark.parametrize("field,value", [("gain", -1.0), ("com_height_m", 0.0), ("limit_rad", math.nan), ("gravity", -9.81)])
def test_bad_parameters_are_named(field, value):
    kwargs = {"gain": 1.5, "com_height_m": 0.7, "limit_rad": 0.3, field: value}
    with pytest.raises(ConfigError, match=f"BoardTiltLaw.{field}"):
        BoardTiltLaw(**kwargs)
