"""The controller's output."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def contact_slack_norm(contact_slack: dict[str, np.ndarray]) -> float:
    """Largest norm of a contact's acceleration residual in ``contact_slack`` (0.0 when empty)."""
    return max((float(np.linalg.norm(r)) for r in contact_slack.values()), default=0.0)


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
        relaxed: True when the rigid-contact QP had no solution and the relaxed one was solved
            (``ControllerConfig.contact_slack_weight``).
        contact_slack: on a relaxed tick, active contact name -> its acceleration residual
            ``J_i qdd + Jdot_i v`` (3 or 6: linear [m/s^2], then angular [rad/s^2]) that the
            solution asks of a contact meant to be rigid; empty otherwise (zero to solver
            tolerance).
    """

    success: bool
    status: str
    tau: np.ndarray
    qdd: np.ndarray
    contact_forces: dict[str, np.ndarray]
    solve_time_us: float
    iterations: int
    body_accelerations: dict[str, np.ndarray] = field(default_factory=dict)
    relaxed: bool = False
    contact_slack: dict[str, np.ndarray] = field(default_factory=dict)

    # NOTE: written by hand (a dataclass keeps a class's own __init__): one update of the instance
    # dict instead of the frozen dataclass's object.__setattr__ per field; a result is made at
    # every physics step. Same signature and defaults as the generated one.
    def __init__(
        self, success: bool, status: str, tau: np.ndarray, qdd: np.ndarray, contact_forces: dict[str, np.ndarray],
        solve_time_us: float, iterations: int, body_accelerations: dict[str, np.ndarray] | None = None,
        relaxed: bool = False, contact_slack: dict[str, np.ndarray] | None = None,
    ) -> None:  # fmt: skip
        self.__dict__.update(
            success=success, status=status, tau=tau, qdd=qdd, contact_forces=contact_forces, solve_time_us=solve_time_us,
            iterations=iterations, body_accelerations={} if body_accelerations is None else body_accelerations,
            relaxed=relaxed, contact_slack={} if contact_slack is None else contact_slack,
        )  # fmt: skip

    @property
    def contact_slack_norm(self) -> float:
        """Largest norm of a contact's acceleration residual (0.0 when not relaxed)."""
        return contact_slack_norm(self.contact_slack)
