"""The whole-body QP in numpy: the oracles the compiled core is checked against.

Each function states one piece of the formulation (``docs/qp.md``) as a short numpy expression of
the Python robot model, contacts, bodies and task objects, with no caching and no fast paths: the
readable statement of what the core's pieces (``core/constraints.hpp``, ``core/pieces.hpp``) write.
[`oracle_qp`][tests.oracles.oracle_qp] stacks them in the core's row layout; ``oracle_relaxed`` is
the relaxed QP; ``oracle_torques`` the torque recovery. ``tests/test_qp_oracles.py`` compares them
with the core piece by piece, ``tests/test_oracle_agree.py`` solves them (DAQP, exact) on recorded
closed-loop states of every env and compares the torques.

Every function takes a robot model already updated to the state, and bodies updated to theirs.
"""

from __future__ import annotations

import numpy as np

from wbc_layer import QPProblem
from wbc_layer.joint_limits import JointLimits

#: Rows as (A (m, nx), b (m,)) for equalities A x = b, (G, h) for inequalities G x <= h.
Rows = tuple[np.ndarray, np.ndarray]


def contact_jacobian(robot, layout, contacts) -> np.ndarray:
    """(nf, nv) the active contacts' Jacobians in force order, zero rows for inactive ones."""
    J = np.zeros((layout.nf, robot.nv))
    for c in contacts:
        if c.active:
            J[layout.force_in_block(c.name)] = c.jacobian(robot)
    return J


def floating_base_rows(robot, layout, Jc) -> Rows:
    """M_u qdd + h_u = J_c,u^T f: the 6 unactuated rows of the equations of motion."""
    A = np.zeros((6, layout.nx))
    A[:, : robot.nv], A[:, layout.forces] = robot.M[:6], -Jc[:, :6].T
    return A, -robot.h[:6]


def contact_rows(robot, layout, contact, bodies, damping: float) -> Rows:
    """Active: J qdd - J_s sdd = -Jdot v + Jdot_s s_dot - k_d (J v - J_s s_dot); inactive: f = 0."""
    A, b = np.zeros((contact.dim, layout.nx)), np.zeros(contact.dim)
    if not contact.active:
        A[:, layout.force(contact.name)] = np.eye(contact.dim)
        return A, b
    J = contact.jacobian(robot)
    A[:, : robot.nv] = J
    b = -contact.drift(robot) - damping * (J @ robot.v)
    if contact.on_body is not None:
        body, placement = bodies[contact.on_body], robot.frame_placement(contact.frame)
        J_s = body.frame_jacobian(placement)[: contact.dim]
        A[:, layout.body(body.name)] = -J_s
        b = b + body.frame_drift(placement)[: contact.dim] + damping * (J_s @ body.s_dot)
    return A, b


def force_rows(layout, contact, n_facets: int) -> Rows:
    """An active contact's G f <= h (friction pyramid, normal-force bounds, CoP); none if inactive."""
    if not contact.active:
        return np.zeros((0, layout.nx)), np.zeros(0)
    G_force, h = contact.force_constraints(n_facets)
    G = np.zeros((G_force.shape[0], layout.nx))
    G[:, layout.force(contact.name)] = G_force
    return G, np.array(h)


def body_rows(robot, layout, body, contacts) -> Rows:
    """M_s sdd + h_s + sum_i J_s,i^T f_i = 0 over the active contacts standing on the body."""
    A = np.zeros((body.dof, layout.nx))
    A[:, layout.body(body.name)] = body.mass_matrix
    for c in contacts:
        if c.active and c.on_body == body.name:
            A[:, layout.force(c.name)] = body.frame_jacobian(robot.frame_placement(c.frame))[: c.dim].T
    return A, -np.asarray(body.bias)


def joint_limit_rows(robot, layout, limits: JointLimits) -> Rows:
    """a_lo <= qdd_a <= a_hi: the acceleration that stops a joint at its range end within T (or at
    its velocity limit), capped at 1e6 rad/s^2; where the two bounds cross, their mean."""
    T, q, v, na = limits.horizon_s, robot.q[7:], robot.v[6:], robot.na
    hi = np.minimum((limits.upper - q - 2 * T * v) / T**2, (limits.velocity - v) / T)
    lo = np.maximum((limits.lower - q - 2 * T * v) / T**2, (-limits.velocity - v) / T)
    crossed = lo > hi
    lo[crossed] = hi[crossed] = 0.5 * (lo[crossed] + hi[crossed])
    hi = np.clip(np.nan_to_num(hi, nan=1e6), -1e6, 1e6)
    lo = np.clip(np.nan_to_num(lo, nan=-1e6), -1e6, 1e6)
    G = np.zeros((2 * na, layout.nx))
    G[:na, robot.nv - na : robot.nv], G[na:, robot.nv - na : robot.nv] = np.eye(na), -np.eye(na)
    return G, np.concatenate([hi, -lo])


def torque_rows(robot, layout, Jc) -> Rows:
    """tau_min <= M_a qdd + h_a - J_c,a^T f <= tau_max."""
    rows = np.zeros((robot.na, layout.nx))
    rows[:, : robot.nv], rows[:, layout.forces] = robot.M[6:], -Jc[:, 6:].T
    h_a = robot.h[6:]
    return np.vstack([rows, -rows]), np.concatenate([robot.torque_max - h_a, h_a - robot.torque_min])


def leg_clearance_row(robot, layout, piece) -> Rows:
    """d + T d_dot + T^2/2 (n^T (J_s - J_t) qdd + n^T (a_s - a_t)) >= d_min (wbc_layer.constraints)."""
    if not piece.active:
        return np.zeros((0, layout.nx)), np.zeros(0)
    n = robot.frame_placement(piece.stance_frame).rotation[:, 1].copy()
    n[2] = 0.0
    n *= piece.side / np.linalg.norm(n)
    J = robot.frame_jacobian(piece.swing_frame, local=False)[:3] - robot.frame_jacobian(piece.stance_frame, local=False)[:3]
    a = robot.frame_drift(piece.swing_frame, local=False)[:3] - robot.frame_drift(piece.stance_frame, local=False)[:3]
    gap = robot.frame_placement(piece.swing_frame).translation - robot.frame_placement(piece.stance_frame).translation
    T = piece.horizon_s
    G = np.zeros((1, layout.nx))
    G[0, : robot.nv] = -0.5 * T**2 * (n @ J)
    return G, np.array([n @ gap + T * (n @ J @ robot.v) + 0.5 * T**2 * (n @ a) - piece.min_distance_m])


def cost(robot, layout, tasks) -> tuple[np.ndarray, np.ndarray]:
    """P = 2 sum w A^T A, q = -2 sum w A^T b over the active tasks' residuals (A, b)."""
    P, q = np.zeros((layout.nx, layout.nx)), np.zeros(layout.nx)
    for task in tasks:
        if task.active and task.weight > 0:
            A, b = task.residual(robot, layout)
            P += 2 * task.weight * A.T @ A
            q -= 2 * task.weight * A.T @ b
    return P, q


def oracle_qp(controller) -> tuple[QPProblem, dict[str, slice]]:
    """The controller's QP at its robot's state, rows in the core's order; and where the active
    contacts' rows and the joint-limit rows sit (``"eq:<contact>"``, ``"joint_limits"``)."""
    robot, layout, config = controller.robot, controller.layout, controller.config
    contacts, bodies = list(controller.contacts.values()), controller.bodies
    Jc = contact_jacobian(robot, layout, contacts)
    equalities = [floating_base_rows(robot, layout, Jc)]
    hot, where, row = [], {}, 6
    for c in contacts:
        equalities.append(contact_rows(robot, layout, c, bodies, config.contact_damping))
        if c.active:
            where[f"eq:{c.name}"] = slice(row, row + c.dim)
        row += c.dim
        hot.append(force_rows(layout, c, config.friction_facets))
    equalities += [body_rows(robot, layout, body, contacts) for body in bodies.values()]
    hot += [leg_clearance_row(robot, layout, piece) for piece in controller.constraints.values()]
    cold = []
    if config.joint_limit_horizon_s > 0:
        cold.append(joint_limit_rows(robot, layout, JointLimits.from_model(robot.model, config.joint_limit_horizon_s)))
    n_hot = sum(len(h) for _, h in hot)
    where["joint_limits"] = slice(n_hot, n_hot + sum(len(h) for _, h in cold))
    cold.append(torque_rows(robot, layout, Jc))
    P, q = cost(robot, layout, controller.tasks.values())
    A, b = np.vstack([r[0] for r in equalities]), np.concatenate([r[1] for r in equalities])
    G, h = np.vstack([r[0] for r in hot + cold]), np.concatenate([r[1] for r in hot + cold])
    return QPProblem(P, q, A, b, G, h), where


def oracle_relaxed(problem: QPProblem, where: dict[str, slice], weight: float) -> QPProblem:
    """The relaxed QP: the active contacts' rows moved into the cost as weight |A_r x - b_r|^2,
    the joint-limit rows left out."""
    soft = np.concatenate([np.arange(s.start, s.stop) for key, s in where.items() if key.startswith("eq:")])
    hard = np.setdiff1d(np.arange(len(problem.b)), soft)
    keep = np.setdiff1d(np.arange(len(problem.h)), np.arange(where["joint_limits"].start, where["joint_limits"].stop))
    A_r, b_r = problem.A[soft], problem.b[soft]
    return QPProblem(
        problem.P + 2 * weight * A_r.T @ A_r, problem.q - 2 * weight * A_r.T @ b_r,
        problem.A[hard], problem.b[hard], problem.G[keep], problem.h[keep],
    )  # fmt: skip


def oracle_torques(controller, x: np.ndarray) -> np.ndarray:
    """(na,) tau = M_a qdd + h_a - J_c,a^T f."""
    robot, layout = controller.robot, controller.layout
    Jc = contact_jacobian(robot, layout, controller.contacts.values())
    return robot.M[6:] @ x[: robot.nv] + robot.h[6:] - Jc[:, 6:].T @ x[layout.forces]


def oracle_tau(controller) -> np.ndarray:
    """(na,) the torques of the oracle QP at the controller's last state, solved exactly (DAQP)."""
    from wbc_layer.qp import DaqpSolver

    problem, _ = oracle_qp(controller)
    return oracle_torques(controller, DaqpSolver().solve(problem).x)
