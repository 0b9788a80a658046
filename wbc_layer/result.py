"""The controller's output."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class WBCResult:
    """One solve of the whole-body QP.

    The solution satisfies the floating-base dynamics
    ``M qdd + h = S^T tau + sum_i J_i^T f_i`` (``S = [0 | I]`` selects the actuated joints).

    Attributes:
        success: True when the QP was solved.
        status: ``"solved"``, or the solver's failure reason.
        tau: (na,) actuated joint torques [N m].
        qdd: (nv,) generalized accelerations [m/s^2, rad/s^2] (pinocchio convention).
        contact_forces: contact name -> force in the contact's coordinates (3 or 6) [N, N m].
        solve_time_us: time spent in the QP solver [us].
        iterations: solver iterations (-1 when unknown).
        body_accelerations: environment body name -> its predicted accelerations ``sdd``
            (a seesaw: the tilt's [rad/s^2]); empty without environment bodies.
    """

    success: bool
    status: str
    tau: np.ndarray
    qdd: np.ndarray
    contact_forces: dict[str, np.ndarray]
    solve_time_us: float
    iterations: int
    body_accelerations: dict[str, np.ndarray] = field(default_factory=dict)
