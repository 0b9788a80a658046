"""Optimisations of the controller keep its torques: same torques to 1e-9 N m on recorded states."""

from __future__ import annotations

import numpy as np

from tests.torque_regression import DATA, torques_for

#: Allowed change of any torque [N m] (issue 7: 1e-9).
TORQUE_TOL = 1e-9


def test_torques_match_the_recorded_ones():
    recorded = np.load(DATA)
    tau = torques_for({key: recorded[key] for key in ("q", "v", "com_reference")})
    assert np.abs(tau - recorded["tau"]).max() < TORQUE_TOL
