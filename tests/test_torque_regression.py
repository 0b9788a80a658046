"""Optimisations of the controller keep its torques: same torques to 1e-9 N m on recorded states."""

from __future__ import annotations

import numpy as np

from tests.torque_regression import DATA, torques_for

#: Allowed change of any torque [N m] (the compiled core's target: the same torques to 1e-9).
TORQUE_TOL = 1e-9


def test_torques_match_the_recorded_ones():
    recorded = np.load(DATA)
    tau = torques_for({key: recorded[key] for key in ("q", "v", "com_reference")})
    assert np.abs(tau - recorded["tau"]).max() < TORQUE_TOL


def test_force_target_fast_path_matches_the_general_residual(monkeypatch):
    """A foot's normal-force target goes straight to diag(P); the torques must equal those of the
    general ``A^T A`` assembly of the same term (to the same 1e-9 N m)."""
    from wbc_layer.tasks import ContactForceTask

    recorded = np.load(DATA)
    states = {key: recorded[key][:10] for key in ("q", "v", "com_reference")}
    targets = {"left_foot": 230.0, "right_foot": 137.0}  # an uneven split of the 367 N weight
    fast = torques_for(states, force_targets=targets)
    monkeypatch.setattr(ContactForceTask, "diagonal_residual", lambda self, robot, layout: None)
    general = torques_for(states, force_targets=targets)
    assert np.abs(fast - general).max() < TORQUE_TOL
    assert np.abs(fast - recorded["tau"][:10]).max() > 1e-3  # the targets do change the torques
