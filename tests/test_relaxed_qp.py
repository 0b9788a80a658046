"""The always-feasible QP: when the rigid-contact QP has no solution, the relaxed one is solved.

The rigid QP is made infeasible on purpose (a hand that must push a wall with 500 N through
25 N m arm joints). The relaxed QP keeps every other row hard, so its solution must still
satisfy the dynamics, the force rows and the torque limits; the contacts give way instead, and
the result says by how much.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the environments)
from humanoid_env.robots.hubo_lite import HUBO_LITE
from wbc_layer import ContactConfig, QPSolveError, WholeBodyController
from wbc_layer.contacts import contact_jacobians

#: The core solves the relaxed QP exactly (eiquadprog's active set): its hard rows of the dynamics [N, N m],
#: torque limits [N m] and force rows [N] hold to rounding, amplified by the 1e5 weight.
RELAXED_ROW_TOL = 1e-6


def _impossible_controller(robot, bridge, mj_data, backend, qp_solver="proxsuite", **overrides):
    """Standing at home while the right hand must press a wall with >= 500 N: the arm's 25 N m
    joints cannot resist that with the hand held still, so no rigid-contact solution exists."""
    hand = ContactConfig("right_hand", "right_hand", kind="point", normal=(0.0, 1.0, 0.0),
                         friction_coefficient=0.5, min_normal_force=500.0)
    feet = [ContactConfig(f"{s}_foot", f"{s}_sole") for s in ("left", "right")]
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)  # the home keyframe, at rest
    robot.update(q, v)
    config = HUBO_LITE.controller_config(backend=backend, qp_solver=qp_solver).with_overrides(
        contacts=(*feet, hand), **overrides
    )
    return WholeBodyController(robot, config), (q, v)


def test_rigid_qp_without_relaxation_has_no_solution(robot, bridge, mj_data, backend):
    """The premise of the other tests: with the relaxation off the controller raises, as before."""
    controller, state = _impossible_controller(robot, bridge, mj_data, backend, contact_slack_weight=0.0)
    with pytest.raises(QPSolveError, match="infeasible|max_iter"):
        controller.compute(*state)


@pytest.mark.parametrize("qp_solver", ["eiquadprog", "proxsuite", "daqp"])
def test_relaxed_tick_keeps_every_hard_row_and_reports_the_slack(robot, bridge, mj_data, backend, qp_solver):
    controller, state = _impossible_controller(robot, bridge, mj_data, backend, qp_solver)
    result = controller.compute(*state)
    assert result.success and result.relaxed
    # Hard rows: torque limits, floating-base dynamics, each contact's force rows.
    assert np.all(result.tau <= robot.torque_max + RELAXED_ROW_TOL)
    assert np.all(result.tau >= robot.torque_min - RELAXED_ROW_TOL)
    contacts = list(controller.contacts.values())
    Jc = contact_jacobians(robot, contacts, controller.layout)
    f = np.concatenate([result.contact_forces[c.name] for c in contacts])
    residual = robot.M @ result.qdd + robot.h - np.concatenate([np.zeros(6), result.tau]) - Jc.T @ f
    assert np.abs(residual).max() < RELAXED_ROW_TOL
    for contact in contacts:
        G, h = contact.force_constraints(controller.config.friction_facets)
        assert np.all(G @ result.contact_forces[contact.name] <= h + RELAXED_ROW_TOL)
    # The slack is what the feet are asked to do: J qdd + Jdot v, per foot, and it is not small
    # (the arm cannot hold 500 N: the hand is pushed back at hundreds of m/s^2).
    assert set(result.contact_slack) == {"left_foot", "right_foot", "right_hand"}
    for contact in contacts:
        expected = contact.jacobian(robot) @ result.qdd + contact.drift(robot)
        assert np.allclose(result.contact_slack[contact.name], expected, atol=1e-6)
    assert result.contact_slack_norm > 10.0


def test_a_solvable_tick_is_not_relaxed(controller, bridge, mj_data):
    """Standing with its full torque limits, the rigid QP is solved and nothing is relaxed."""
    result = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    assert not result.relaxed and result.contact_slack == {} and result.contact_slack_norm == 0.0


def test_random_and_bang_bang_actions_never_fall_back_on_the_seesaw():
    """These 10,000 physics steps on the seesaw (its board makes falling states common) had 16
    infeasible ticks with the relaxation off (``contact_slack_weight=0``), each a gravity-
    compensation fallback; with it on, 24 relaxed ticks and no fallback (on this machine; the
    counts move with the trajectory, the zero must not). The relaxed QP always has a solution,
    so no fallback may remain; the steps that used it report a positive slack, the others none."""
    env = gym.make("HumanoidWBCSeesaw-v0")
    env.reset(seed=0)
    rng = np.random.default_rng(1)
    fallbacks = relaxed = 0
    for step in range(1000):
        shape = env.action_space.shape
        action = rng.choice([-1.0, 1.0], size=shape) if step % 2 else rng.uniform(-1.0, 1.0, shape)
        _, _, terminated, truncated, info = env.step(action)
        fallbacks += info["wbc_fallbacks"]
        relaxed += info["wbc_relaxed"]
        assert (info["wbc_contact_slack"] > 0.0) == (info["wbc_relaxed"] > 0)
        if terminated or truncated:
            env.reset()
    env.close()
    assert fallbacks == 0, f"{fallbacks} fallbacks ({relaxed} relaxed ticks)"


def test_relaxed_qp_drops_the_joint_limit_rows(robot, bridge, mj_data, backend):
    """With joint limits on, the relaxed QP is the same problem without their rows: the same
    torques as with the limits off (1e-9 N m, both solves exact), so they can never make the
    controller give up. The left elbow is put 0.05 rad past its lower range end (-2.2 rad), moving
    on at -1 rad/s, so its row would bind (it asks for at least +60 rad/s^2) if it were kept."""
    with_limits, (q, v) = _impossible_controller(robot, bridge, mj_data, backend, "eiquadprog", joint_limit_horizon_s=0.05)
    elbow = robot.joint_names.index("left_elbow")
    q, v = q.copy(), v.copy()
    q[7 + elbow], v[6 + elbow] = -2.25, -1.0
    result = with_limits.compute(q, v)
    lo, _ = with_limits.joint_limits.acceleration_bounds(q[7:], v[6:])
    assert lo[elbow] == pytest.approx(60.0)  # [rad/s^2]: (-2.2 + 2.25 + 2 T 1) / T^2, T = 0.05 s
    without_limits, _ = _impossible_controller(robot, bridge, mj_data, backend, "eiquadprog", joint_limit_horizon_s=0.0)
    reference = without_limits.compute(q, v)
    assert reference.qdd[6 + elbow] < lo[elbow]  # the solution without the row breaks it
    assert result.relaxed and reference.relaxed
    assert with_limits.last_problem.G.shape[0] == without_limits.last_problem.G.shape[0] + 2 * robot.na
    assert np.abs(result.tau - reference.tau).max() < 1e-9


def test_the_core_relaxed_qp_with_no_active_contact_says_so(robot, bridge, mj_data):
    """The compiled core's own relaxed solve: with every contact off nothing can be relaxed, and
    it says so by status (the tick then raises QPSolveError with it), before any solve."""
    controller, state = _impossible_controller(robot, bridge, mj_data, "compiled", qp_solver="eiquadprog")
    for name in controller.contacts:
        controller.set_contact_active(name, False)
    controller.compute(*state)  # free fall: feasible
    status, *_ = controller.compiled.core.solve_relaxed()
    assert status == "infeasible_no_active_contact"
    assert not controller.compiled.core.relaxed


def test_the_core_row_layout_puts_each_piece_where_the_python_layout_says(robot, bridge, mj_data):
    """One owner of the row layout (the core's RowLayout): its blocks must be where the Python
    side reads them. Equalities: the 6 floating-base rows, then each contact's block at
    6 + its force offset (QPLayout.force_in_block), active or not; inequalities: the active
    contacts' force rows first (the hot rows), then the joint-limit rows (2 na: +I, -I on the
    actuated accelerations) and the torque rows (2 na). A contact switched off loses its force rows."""
    controller, state = _impossible_controller(robot, bridge, mj_data, "compiled", "eiquadprog", joint_limit_horizon_s=0.05)
    controller.set_contact_active("right_hand", False)
    controller.compute(*state)
    n_eq, n_hot, n_in, blocks = controller.compiled.core.row_layout
    contacts = list(controller.contacts.values())
    na, nv, facets = robot.na, robot.nv, controller.config.friction_facets
    assert blocks[0] == (0, 6, 0, 0)
    hot = 0
    for contact, block in zip(contacts, blocks[1 : 1 + len(contacts)], strict=True):
        rows = controller.layout.force_in_block(contact.name)
        n_force = contact.force_constraints(facets)[0].shape[0] if contact.active else 0
        assert block == (6 + rows.start, contact.dim, hot, n_force), contact.name
        hot += n_force
    assert n_hot == hot and n_eq == 6 + controller.layout.nf
    joint, torque = blocks[-2], blocks[-1]
    assert joint == (n_eq, 0, n_hot, 2 * na) and torque == (n_eq, 0, n_hot + 2 * na, 2 * na) and n_in == n_hot + 4 * na
    G = controller.last_problem.G  # torque-limit rows included
    assert np.array_equal(G[n_hot : n_hot + na, nv - na : nv], np.eye(na))
    assert np.array_equal(G[n_hot + na : n_hot + 2 * na, nv - na : nv], -np.eye(na))
