"""Static gravity compensation of a floating-base robot in contact (*Computing torques to compensate gravity in humanoid robots*,
Passault).

For ``qdd = 0, v = 0`` the dynamics reduce to ``g(q) = S^T tau + sum_i J_i^T f_i``. The
torques and contact forces that hold the robot still solve the QP over ``y = [tau, f]``:

    minimise |tau|^2 + eps |f|^2   s.t.   S^T tau + J_c^T f = g,   contact rows on each f_i

(unilateral normal force, friction pyramid, CoP bounds). It is also the controller's
fallback when the whole-body QP fails. The post's closed forms serve as test oracles:
[`single_support_closed_form`][wbc_layer.gravity_compensation.single_support_closed_form] and [`double_support_pseudo_inverse`][wbc_layer.gravity_compensation.double_support_pseudo_inverse].
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import proxsuite

from wbc_layer.contacts import Contact, contact_jacobians
from wbc_layer.errors import ConfigError, InvalidStateError, QPSolveError
from wbc_layer.layout import QPLayout
from wbc_layer.qp import QPProblem, QPSolution, solve_with_qpsolvers
from wbc_layer.robot_model import RobotModel

#: Iteration caps of the static QP's proxsuite solve: outer iterations, and inner ones per outer.
#: At most 50 x 20 = 1000 inner iterations (about 5 ms here) before it gives up
#: (``max_iter_reached``); the controller's static problems took at most 13 outer and 15 inner
#: iterations in all (200 random standing and tilted states). Without a cap (proxsuite's 10 000
#: x 1500) a problem full of NaN ran for 60-90 s.
STATIC_QP_MAX_ITER = 50
STATIC_QP_MAX_ITER_IN = 20
_PROXQP_SOLVED = proxsuite.proxqp.QPSolverOutput.PROXQP_SOLVED


@dataclass(frozen=True)
class StaticSolution:
    """``tau`` (na,) [N m] and contact name -> force in contact coordinates [N, N m]."""

    tau: np.ndarray
    contact_forces: dict[str, np.ndarray]


def gravity_compensation(
    robot: RobotModel,
    contacts: Sequence[Contact],
    force_weight: float = 1e-4,
    n_facets: int = 4,
    solver: str = "proxqp",
) -> StaticSolution:
    """Minimum-torque static torques and forces at the robot's current configuration.

    ``robot`` must be updated (only ``q`` matters). Only active contacts carry force.
    Raises [`wbc_layer.errors.QPSolveError`][wbc_layer.errors.QPSolveError] when no static solution exists (e.g. the
    CoM is outside the support polygon with the given contact rows) or the solver stops at its
    iteration cap ([`STATIC_QP_MAX_ITER`][wbc_layer.gravity_compensation.STATIC_QP_MAX_ITER]), and [`wbc_layer.errors.InvalidStateError`][wbc_layer.errors.InvalidStateError]
    at once when the robot's state (``q``, ``v``) or the model terms computed from it (gravity,
    contact Jacobians) are not finite.
    """
    robot.check_state(robot.q, robot.v)
    active = [c for c in contacts if c.active]
    if not active:
        raise ConfigError("gravity compensation needs at least one active contact")
    layout = QPLayout(robot.nv, tuple((c.name, c.dim) for c in active))
    na, nf = robot.na, layout.nf
    Jc = contact_jacobians(robot, active, layout)  # (nf, nv)
    # y = [tau (na), f (nf)];  [S^T | J_c^T] y = g
    A = np.hstack([np.vstack([np.zeros((6, na)), np.eye(na)]), Jc.T])
    G_blocks, h_blocks = [], []
    for contact in active:
        G_force, h_force = contact.force_constraints(n_facets)
        G = np.zeros((G_force.shape[0], na + nf))
        rows = layout.force_in_block(contact.name)
        G[:, na + rows.start : na + rows.stop] = G_force
        G_blocks.append(G)
        h_blocks.append(h_force)
    P = 2.0 * np.diag(np.concatenate([np.ones(na), np.full(nf, force_weight)]))
    problem = QPProblem(P, np.zeros(na + nf), A, robot.g.copy(), np.vstack(G_blocks), np.concatenate(h_blocks))
    if not (np.isfinite(problem.A).all() and np.isfinite(problem.b).all()):
        raise InvalidStateError(
            "the robot model's gravity or contact Jacobians are not finite at its last state; "
            f"q = {robot.q}"
        )
    y = (_solve_proxqp(problem) if solver == "proxqp" else solve_with_qpsolvers(problem, solver)).x
    f = y[na:]
    forces = {c.name: f[layout.force_in_block(c.name)].copy() for c in active}
    return StaticSolution(y[:na].copy(), forces)


def _solve_proxqp(problem: QPProblem) -> QPSolution:
    """proxsuite's dense solver from scratch with eps_abs 1e-10, eps_rel 0 (what qpsolvers'
    ``proxqp`` backend runs: the same solution bit for bit) and the iteration caps above."""
    n_in = problem.G.shape[0]
    start = time.perf_counter()
    qp = proxsuite.proxqp.dense.QP(problem.n, problem.A.shape[0], n_in)
    qp.settings.eps_abs, qp.settings.eps_rel, qp.settings.verbose = 1e-10, 0.0, False
    qp.settings.max_iter, qp.settings.max_iter_in = STATIC_QP_MAX_ITER, STATIC_QP_MAX_ITER_IN
    qp.init(problem.P, problem.q, problem.A, problem.b, problem.G, np.full(n_in, -np.inf), problem.h)
    qp.solve()
    results = qp.results
    if results.info.status != _PROXQP_SOLVED or not np.all(np.isfinite(results.x)):
        raise QPSolveError(f"proxqp_{results.info.status.name.removeprefix('PROXQP_').lower()}", problem, results)
    return QPSolution(np.array(results.x), "solved", int(results.info.iter), 1e6 * (time.perf_counter() - start))


def single_support_closed_form(robot: RobotModel, jacobian: np.ndarray) -> StaticSolution:
    """One 6D support (closed form): ``f = (J_u^T)^-1 g_u``, ``tau = g_a - J_a^T f``.

    ``jacobian`` (6, nv) is the support's Jacobian in its force coordinates.
    """
    force = np.linalg.solve(jacobian[:, :6].T, robot.g[:6])
    return StaticSolution(robot.g[6:] - jacobian[:, 6:].T @ force, {"support": force})


def double_support_pseudo_inverse(robot: RobotModel, jacobians: Sequence[np.ndarray]) -> np.ndarray:
    """Two supports: minimum-norm forces ``[f_1; f_2] = [J_1u^T  J_2u^T]^+ g_u`` (may pull)."""
    stacked = np.hstack([J[:, :6].T for J in jacobians])
    return np.linalg.pinv(stacked) @ robot.g[:6]
