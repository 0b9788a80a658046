"""Assemble the whole-body QP (task-space inverse dynamics) from its parts.

Decision vector ``x = [qdd, f]`` (see [`wbc_layer.layout`][wbc_layer.layout]). Rows:

- equality (hard): floating-base rows of ``M qdd + h = S^T tau + J_c^T f`` (6);
  per active contact ``J_i qdd + Jdot_i v = -k_d u_i`` (its dim), ``u_i = J_i v`` the contact
  frame's velocity -- or, standing on an environment body, ``J_i qdd + Jdot_i v = J_s,i sdd +
  Jdot_s,i sd - k_d u_i`` with ``u_i = J_i v - J_s,i sd`` the velocity relative to the body --,
  where ``k_d`` = ``ControllerConfig.contact_damping`` [1/s] brakes a contact that has started to
  slip or tip instead of keeping its velocity (Baumgarte's stabilisation, velocity part; the
  rigid-contact model assumes ``u_i = 0``, which a compliant ground only approximates); per
  inactive contact ``f_i = 0``; per
  environment body its dynamics ``M_s sdd + h_s + sum_i J_s,i^T f_i = 0``;
- inequality ``G x <= h``: each active contact's force rows (friction pyramid, normal-force
  bounds, CoP), the joint limits as acceleration bounds ``a_lo <= qdd_a <= a_hi``
  ([`wbc_layer.joint_limits`][wbc_layer.joint_limits]; none when ``ControllerConfig.joint_limit_horizon_s`` is 0), and
  the torque limits ``tau_min <= M_a qdd + h_a - J_a^T f <= tau_max``. The controller solves
  with the force rows alone first (the *hot* problem) and adds the others only when its
  solution breaks one ([`QPBuilder.within_limits`][wbc_layer.qp_builder.QPBuilder.within_limits]): for a strictly convex QP that solution
  is then the full problem's optimum too;
- relaxed QP (only when the one above has no solution, e.g. the torque limits cannot hold
  every rigid contact): the active contacts' rows above move into the cost with a large weight
  ([`solve_relaxed`][wbc_layer.qp_builder.solve_relaxed], here always with DAQP; the compiled core solves it with eiquadprog) and the joint-limit rows are dropped; every other
  row stays hard, and that QP always has a solution (below);
- cost: sum over active tasks of ``w ||A x - b||^2``, i.e. ``P = 2 sum w A^T A``,
  ``q = -2 sum w A^T b``.

The torques follow from a solution as ``tau = M_a qdd + h_a - J_a^T f`` (actuated rows).

Why the relaxed QP always has a solution: take any force inside each active contact's force
rows (the minimum normal force at the sole's centre is one), ``f_i = 0`` for the inactive ones,
any torques within the limits, and ``qdd = M^-1 (S^T tau + J_c^T f - h)`` (an environment body's
``sdd`` likewise from its invertible ``M_s``): every hard row holds.

[`QPBuilder`][wbc_layer.qp_builder.QPBuilder] fills preallocated arrays: the parts that depend only on which contacts are
active (the force rows, ``f_i = 0`` rows) are written when that set changes, the rest every
tick.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from wbc_layer.contacts import Contact
from wbc_layer.environment_body import EnvironmentBody
from wbc_layer.errors import QPSolveError
from wbc_layer.joint_limits import JointLimits
from wbc_layer.layout import QPLayout
from wbc_layer.qp import DaqpSolver, QPProblem, QPSolution, relax_equalities
from wbc_layer.robot_model import RobotModel
from wbc_layer.tasks import MotionTask, Task


def contact_jacobians(robot: RobotModel, contacts: Sequence[Contact], layout: QPLayout) -> np.ndarray:
    """(nf, nv) stacked contact Jacobians in force coordinates, zero rows for inactive ones."""
    J = np.zeros((layout.nf, layout.nv))
    for contact in contacts:
        if contact.active:
            J[layout.force_in_block(contact.name)] = contact.jacobian(robot)
    return J


def contact_acceleration_rows(layout: QPLayout, contacts: Sequence[Contact]) -> dict[str, np.ndarray]:
    """Active contact name -> indices of its rigid-contact rows ``J_i qdd + Jdot_i v = 0`` in ``A``.

    The equality rows are ordered: 6 floating-base rows, one block per contact in force order
    (an inactive contact's block holds ``f_i = 0``), then the environment bodies' dynamics.
    """
    rows = {}
    for contact in contacts:
        if contact.active:
            block = layout.force_in_block(contact.name)
            rows[contact.name] = np.arange(6 + block.start, 6 + block.stop)
    return rows


def drop_inequalities(problem: QPProblem, start: int, stop: int) -> QPProblem:
    """``problem`` without its inequality rows ``start:stop`` (copies of ``G`` and ``h``)."""
    keep = np.r_[0:start, stop : problem.G.shape[0]]
    return QPProblem(problem.P, problem.q, problem.A, problem.b, problem.G[keep], problem.h[keep])


def solve_relaxed(
    problem: QPProblem, layout: QPLayout, contacts: Sequence[Contact], weight: float, solver: DaqpSolver
) -> tuple[QPSolution, dict[str, np.ndarray]]:
    """Solve the relaxed QP of ``problem`` (the full problem, torque-limit rows included).

    Returns the solution and, per active contact, its acceleration residual
    ``J_i qdd + Jdot_i v`` (its rows of ``A x - b``). Raises [`QPSolveError`][wbc_layer.errors.QPSolveError] on failure,
    with status ``"infeasible_no_active_contact"`` when no contact is active (nothing to relax).
    """
    rows = contact_acceleration_rows(layout, contacts)
    if not rows:
        raise QPSolveError("infeasible_no_active_contact", problem)
    solution = solver.solve(relax_equalities(problem, np.concatenate(list(rows.values())), weight))
    slack = {name: problem.A[r] @ solution.x - problem.b[r] for name, r in rows.items()}
    return solution, slack


class QPBuilder:
    """Builds the QP of one tick into arrays it owns.

    The returned [`QPProblem`][wbc_layer.qp.QPProblem] views those arrays: it is valid until the next
    [`build`][wbc_layer.qp_builder.QPBuilder.build] (copy it to keep it).
    """

    def __init__(
        self,
        layout: QPLayout,
        n_facets: int = 4,
        bodies: Sequence[EnvironmentBody] = (),
        contact_damping: float = 0.0,
        joint_limits: JointLimits | None = None,
    ):
        self.layout = layout
        self.contact_damping = contact_damping
        self.joint_limits = joint_limits
        #: (a_lo, a_hi) (na,) [rad/s^2] of the last build (None without joint limits).
        self.acceleration_bounds: tuple[np.ndarray, np.ndarray] | None = None
        self.n_facets = n_facets
        self.bodies = {body.name: body for body in bodies}
        self._structure_key: tuple | None = None
        self.contact_jacobian = np.zeros((layout.nf, layout.nv))

    def build(self, robot: RobotModel, contacts: Sequence[Contact], tasks: Sequence[Task]) -> QPProblem:
        """The QP at the robot's current state; ``robot`` must be updated."""
        nv, na = self.layout.nv, robot.na
        key = tuple((c.active, c.force_constraints(self.n_facets) and c.rows_version) for c in contacts)
        if key != self._structure_key:
            self._allocate(contacts, na)
            self._structure_key = key

        layout = self.layout
        Jc, A, b, G, h = self.contact_jacobian, self.A, self.b, self.G, self.h
        for contact, block in self._active:
            rows = slice(6 + block.start, 6 + block.stop)
            Jc[block] = contact.jacobian(robot)
            A[rows, :nv] = Jc[block]
            b[rows] = -contact.drift(robot)
            velocity = Jc[block] @ robot.v
            if contact.on_body is not None:
                # The contact frame moves with the body's material point under it.
                body, placement = self.bodies[contact.on_body], robot.frame_placement(contact.frame)
                J_body = body.frame_jacobian(placement)
                A[rows, layout.body(body.name)] = -J_body
                b[rows] += body.frame_drift(placement)
                velocity -= J_body @ body.s_dot
                # The body receives the opposite wrench: M_s sdd + h_s + J_s^T f = 0.
                A[self._body_rows[body.name], layout.force(contact.name)] = J_body.T
            b[rows] -= self.contact_damping * velocity
        for name, body in self.bodies.items():
            A[self._body_rows[name], layout.body(name)] = body.mass_matrix
            b[self._body_rows[name]] = -body.bias
        A[:6, :nv] = robot.M[:6]
        A[:6, layout.forces] = -Jc[:, :6].T
        b[:6] = -robot.h[:6]

        if self.joint_limits is not None:
            lo, hi = self.joint_limits.acceleration_bounds(robot.q[7:], robot.v[6:])
            self.acceleration_bounds = (lo, hi)
            h[self._joint_rows] = hi
            h[self._joint_rows_negated] = -lo
        torque_rows = G[self._torque_rows]
        torque_rows[:, :nv] = robot.M[6:]
        torque_rows[:, layout.forces] = -Jc[:, 6:].T
        G[self._torque_rows] = torque_rows
        G[self._torque_rows_negated] = -torque_rows
        h_actuated = robot.h[6:]
        h[self._torque_rows] = robot.torque_max - h_actuated
        h[self._torque_rows_negated] = h_actuated - robot.torque_min

        P, q = self._cost(robot, tasks)
        return QPProblem(P, q, A, b, G, h)

    def _cost(self, robot: RobotModel, tasks: Sequence[Task]) -> tuple[np.ndarray, np.ndarray]:
        """``P = 2 sum w A^T A``, ``q = -2 sum w A^T b``.

        Fast paths: a diagonal term goes straight to ``diag(P)``; a motion task's rows act on
        ``qdd`` alone, so they are stacked and multiplied in the ``qdd`` block only.
        """
        nx, nv = self.layout.nx, self.layout.nv
        rows, targets, motion_rows, motion_targets = [], [], [], []
        diagonal, linear = np.zeros(nx), np.zeros(nx)
        for task in tasks:
            if not (task.active and task.weight > 0):
                continue
            scale = math.sqrt(task.weight)
            fast = task.diagonal_residual(robot, self.layout)
            if fast is not None:
                indices, d, b_task = fast
                diagonal[indices] += task.weight * d * d
                linear[indices] += task.weight * d * b_task
            elif isinstance(task, MotionTask):
                J, b_task = task.acceleration_residual(robot)
                motion_rows.append(scale * J)
                motion_targets.append(scale * b_task)
            else:
                A_task, b_task = task.residual(robot, self.layout)
                rows.append(scale * A_task)
                targets.append(scale * b_task)
        P = np.zeros((nx, nx))
        if rows:
            A_cost, b_cost = np.vstack(rows), np.concatenate(targets)
            P += A_cost.T @ A_cost
            linear += A_cost.T @ b_cost
        if motion_rows:
            J_cost, b_cost = np.vstack(motion_rows), np.concatenate(motion_targets)
            P[:nv, :nv] += J_cost.T @ J_cost
            linear[:nv] += J_cost.T @ b_cost
        P.ravel()[:: nx + 1] += diagonal  # ravel of a C-contiguous array is a view
        P *= 2.0
        linear *= -2.0
        return P, linear

    def _allocate(self, contacts: Sequence[Contact], na: int) -> None:
        """Arrays and constant rows for the current set of active contacts."""
        layout, nx = self.layout, self.layout.nx
        self.A = np.zeros((6 + layout.nf + layout.nb, nx))
        self.b = np.zeros(6 + layout.nf + layout.nb)
        self._body_rows, start = {}, 6 + layout.nf
        for name, body in self.bodies.items():
            self._body_rows[name] = slice(start, start + body.dof)
            start += body.dof
        self.contact_jacobian[:] = 0.0
        self._active = []
        G_blocks, h_blocks = [], []
        for contact in contacts:
            block = layout.force_in_block(contact.name)
            if contact.active:
                self._active.append((contact, block))
                G_force, h_force = contact.force_constraints(self.n_facets)
                G = np.zeros((G_force.shape[0], nx))
                G[:, layout.force(contact.name)] = G_force
                G_blocks.append(G)
                h_blocks.append(h_force)
            else:
                self.A[6 + block.start : 6 + block.stop, layout.force(contact.name)] = np.eye(contact.dim)
        n_contact_rows = sum(len(h) for h in h_blocks)
        nj = na if self.joint_limits is not None else 0
        self.G = np.vstack([*G_blocks, np.zeros((2 * nj + 2 * na, nx))])
        self.h = np.concatenate([*h_blocks, np.zeros(2 * nj + 2 * na)])
        self._joint_rows = slice(n_contact_rows, n_contact_rows + nj)
        self._joint_rows_negated = slice(n_contact_rows + nj, n_contact_rows + 2 * nj)
        actuated = np.arange(layout.nv - na, layout.nv)
        self.G[np.arange(self._joint_rows.start, self._joint_rows.stop), actuated[:nj]] = 1.0
        self.G[np.arange(self._joint_rows_negated.start, self._joint_rows_negated.stop), actuated[:nj]] = -1.0
        start = n_contact_rows + 2 * nj
        self._torque_rows = slice(start, start + na)
        self._torque_rows_negated = slice(start + na, start + 2 * na)

    def without_torque_limits(self, problem: QPProblem) -> QPProblem:
        """The hot problem: ``problem`` with its force rows alone, without the joint- and
        torque-limit rows (views, no copy)."""
        n = self._joint_rows.start
        return QPProblem(problem.P, problem.q, problem.A, problem.b, problem.G[:n], problem.h[:n])

    def without_joint_limits(self, problem: QPProblem) -> QPProblem:
        """``problem`` without its joint-limit rows (a copy of ``G`` and ``h``): the rows of the
        relaxed QP, which always has a solution."""
        return drop_inequalities(problem, self._joint_rows.start, self._joint_rows_negated.stop)

    def within_limits(self, robot: RobotModel, x: np.ndarray, tau: np.ndarray) -> bool:
        """Whether the torques ``tau`` (na,) [N m] and, with joint limits, the actuated joints'
        accelerations in ``x`` respect the rows the hot problem leaves out."""
        if (tau > robot.torque_max).any() or (tau < robot.torque_min).any():
            return False
        if self.acceleration_bounds is None:
            return True
        lo, hi = self.acceleration_bounds
        qdd = x[self.layout.nv - robot.na : self.layout.nv]
        return not ((qdd > hi).any() or (qdd < lo).any())

    def torques(self, robot: RobotModel, x: np.ndarray) -> np.ndarray:
        """(na,) ``tau = M_a qdd + h_a - J_a^T f`` [N m] for a solution of the last build."""
        layout = self.layout
        return robot.M[6:] @ x[layout.qdd] + robot.h[6:] - self.contact_jacobian[:, 6:].T @ x[layout.forces]

