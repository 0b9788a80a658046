"""Assemble the whole-body QP (task-space inverse dynamics) from its parts.

Decision vector ``x = [qdd, f]`` (see :mod:`wbc_layer.layout`). Rows:

- equality: floating-base rows of ``M qdd + h = S^T tau + J_c^T f`` (6);
  per active contact ``J_i qdd = -Jdot_i v`` (its dim); per inactive contact ``f_i = 0``;
- inequality ``G x <= h``: each active contact's force rows (friction pyramid, normal-force
  bounds, CoP), and the torque limits ``tau_min <= M_a qdd + h_a - J_a^T f <= tau_max``;
- cost: sum over active tasks of ``w ||A x - b||^2``, i.e. ``P = 2 sum w A^T A``,
  ``q = -2 sum w A^T b``.

The torques follow from a solution as ``tau = M_a qdd + h_a - J_a^T f`` (actuated rows).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wbc_layer.contacts import Contact
from wbc_layer.layout import QPLayout
from wbc_layer.qp import QPProblem
from wbc_layer.robot_model import RobotModel
from wbc_layer.tasks import Task


def contact_jacobians(robot: RobotModel, contacts: Sequence[Contact], layout: QPLayout) -> np.ndarray:
    """(nf, nv) stacked contact Jacobians in force coordinates, zero rows for inactive ones."""
    J = np.zeros((layout.nf, layout.nv))
    for contact in contacts:
        if contact.active:
            J[layout.force_in_block(contact.name)] = contact.jacobian(robot)
    return J


def build_qp(
    robot: RobotModel,
    contacts: Sequence[Contact],
    tasks: Sequence[Task],
    layout: QPLayout,
    n_facets: int = 4,
) -> QPProblem:
    """The QP of one control tick; ``robot`` must be updated at the current state."""
    nx = layout.nx
    Jc = contact_jacobians(robot, contacts, layout)
    dynamics = np.hstack([robot.M, -Jc.T])  # (nv, nx): dynamics @ x + h = S^T tau

    A = np.zeros((6 + layout.nf, nx))
    b = np.zeros(6 + layout.nf)
    A[:6] = dynamics[:6]
    b[:6] = -robot.h[:6]
    G_blocks, h_blocks = [], []
    for contact in contacts:
        force = layout.force(contact.name)
        block = layout.force_in_block(contact.name)
        rows = slice(6 + block.start, 6 + block.stop)
        if contact.active:
            A[rows, layout.qdd] = contact.jacobian(robot)
            b[rows] = -contact.drift(robot)
            G_force, h_force = contact.force_constraints(n_facets)
            G = np.zeros((G_force.shape[0], nx))
            G[:, force] = G_force
            G_blocks.append(G)
            h_blocks.append(h_force)
        else:
            A[rows, force] = np.eye(contact.dim)

    actuated = dynamics[6:]
    h_actuated = robot.h[6:]
    G_blocks += [actuated, -actuated]
    h_blocks += [robot.torque_max - h_actuated, h_actuated - robot.torque_min]

    # All task rows scaled by sqrt(weight) in one matrix: P = 2 A^T A, q = -2 A^T b.
    rows, targets = [], []
    for task in tasks:
        if task.active and task.weight > 0:
            A_task, b_task = task.residual(robot, layout)
            scale = np.sqrt(task.weight)
            rows.append(scale * A_task)
            targets.append(scale * b_task)
    A_cost, b_cost = np.vstack(rows), np.concatenate(targets)
    P = 2.0 * (A_cost.T @ A_cost)
    q = -2.0 * (A_cost.T @ b_cost)
    return QPProblem(P, q, A, b, np.vstack(G_blocks), np.concatenate(h_blocks))


def torques_from_solution(robot: RobotModel, contacts, layout: QPLayout, x: np.ndarray) -> np.ndarray:
    """(na,) ``tau = M_a qdd + h_a - J_a^T f`` [N m]."""
    Jc = contact_jacobians(robot, contacts, layout)
    return robot.M[6:] @ x[layout.qdd] + robot.h[6:] - Jc[:, 6:].T @ x[layout.forces]
