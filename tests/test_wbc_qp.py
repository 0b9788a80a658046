"""The whole-body QP: dynamics invariant, constraint rows, failure reporting, a second backend."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from humanoid_env.robots.hubo_lite import HUBO_LITE
from tests.conftest import standing_state
from wbc_layer import (
    ContactConfig,
    FramePositionTask,
    QPSolveError,
    WholeBodyController,
    solve_with_qpsolvers,
)
from wbc_layer.contacts import contact_jacobians

#: The CoP rectangle the controller keeps [m] (half length, half width).
FOOT_HALF_LENGTH, FOOT_HALF_WIDTH = HUBO_LITE.cop_half_sizes()
#: Dynamics residual allowed on every row of M qdd + h = S^T tau + J^T f [N, N m] (target: 1e-8).
DYNAMICS_TOL = 1e-8
#: Inequality violation allowed [N, N m]: the solver's absolute tolerance is 1e-9.
ROW_TOL = 1e-7


def _dynamics_residual(controller, result) -> np.ndarray:
    robot = controller.robot
    Jc = contact_jacobians(robot, list(controller.contacts.values()), controller.layout)
    f = np.concatenate([result.contact_forces[name] for name in controller.contacts])
    generalized = np.concatenate([np.zeros(6), result.tau]) + Jc.T @ f
    return robot.M @ result.qdd + robot.h - generalized


@pytest.mark.parametrize("seed", range(5))
def test_solution_satisfies_the_floating_base_dynamics(mj_model, mj_data, bridge, controller, seed):
    standing_state(mj_model, mj_data, np.random.default_rng(seed))
    controller.com_task.set_reference(controller.robot.com + [0.01, -0.01, -0.005])
    result = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    assert result.success and result.status == "solved"
    assert np.abs(_dynamics_residual(controller, result)).max() < DYNAMICS_TOL


#: A row counts as active when its slack is below this [N, N m]. The solver's tolerance is 1e-9;
#: on these states the active rows' slack is below 1e-11 and every other row's above 1 N (N m).
ACTIVE_TOL = 1e-6
#: A foot carrying less than this [N] is unloaded: at f = 0 all its rows are trivially active, so
#: its rows do not count as "active" evidence.
LOADED_N = 10.0


def _demanding_tick(mj_model, mj_data, bridge, controller, seed):
    """A standing state with velocities, a CoM reference 8 cm forward and 5 cm to the left (more
    acceleration than the soles' CoP and friction can give), and a right-hand reach of 0.3 m at
    kp = 1000 /s^2 (300 m/s^2, more than the 25 N m shoulder and the 88 N m waist can give)."""
    standing_state(mj_model, mj_data, np.random.default_rng(seed), velocity_scale=0.3)
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot = controller.robot
    robot.update(q, v)
    controller.com_task.set_reference(robot.com + [0.08, 0.05, 0.0])
    reach = FramePositionTask("reach", weight=1e3, kp=1000.0, kd=20.0, frame="right_hand")
    reach.set_reference(robot.frame_placement("right_hand").translation + [0.3, 0.0, 0.0])
    controller.add_task(reach)
    return controller.compute(q, v)


@pytest.mark.parametrize("seed", range(5))
def test_every_inequality_row_holds(mj_model, mj_data, bridge, controller, seed):
    """Every row of the QP holds, checked on the problem's rows and, independently of them, against
    the physics they encode: the force inside the friction pyramid of HUBO_LITE.controller_friction, the CoP
    inside the FOOT_HALF_LENGTH x FOOT_HALF_WIDTH rectangle, the torques inside the actuator
    limits. The references are demanding enough that on every state at least one CoP row and one
    friction row of a loaded foot, and one torque-limit row, are active: the rows bind."""
    result = _demanding_tick(mj_model, mj_data, bridge, controller, seed)
    assert result.success
    problem = controller.last_problem
    x = np.concatenate([result.qdd, *result.contact_forces.values()])
    assert np.all(problem.G @ x <= problem.h + ROW_TOL)

    robot = controller.robot
    tau_slack = np.minimum(robot.torque_max - result.tau, result.tau - robot.torque_min)  # [N m]
    assert np.all(tau_slack >= -ROW_TOL), f"torque limit exceeded by {-tau_slack.min()} N m"
    n = controller.config.friction_facets
    angles = 2.0 * np.pi * np.arange(n) / n
    friction_slack, cop_slack = [], []
    for name in controller.contacts:
        fx, fy, fz, mx, my, _ = result.contact_forces[name]
        assert fz >= -ROW_TOL  # unilateral [N]
        # Pyramid with n facets inscribed in the cone |f_t| <= mu f_z (thesis chapter *Modeling of a humanoid robot*), and the cone itself.
        facets = HUBO_LITE.controller_friction * np.cos(np.pi / n) * fz - (np.cos(angles) * fx + np.sin(angles) * fy)
        assert np.all(facets >= -ROW_TOL), f"{name}: force outside the friction pyramid by {-facets.min()} N"
        assert np.hypot(fx, fy) <= HUBO_LITE.controller_friction * fz + ROW_TOL, f"{name}: force outside the cone"
        # CoP (-m_y / f_z, m_x / f_z) inside the rectangle, written without dividing by f_z [N m].
        cop = np.array([FOOT_HALF_LENGTH * fz - abs(my), FOOT_HALF_WIDTH * fz - abs(mx)])
        assert np.all(cop >= -ROW_TOL), f"{name}: CoP outside the sole by {-cop.min()} N m (moment)"
        if fz >= LOADED_N:
            friction_slack.append(facets.min())
            cop_slack.append(cop.min())
    assert min(friction_slack) <= ACTIVE_TOL, f"no friction row active: slacks {friction_slack} N"
    assert min(cop_slack) <= ACTIVE_TOL, f"no CoP row active: slacks {cop_slack} N m"
    assert tau_slack.min() <= ACTIVE_TOL, f"no torque limit active: smallest slack {tau_slack.min()} N m"


def test_active_cop_bound_is_reached_by_a_demanding_reference(mj_model, mj_data, bridge, controller):
    """The CoP rows are really in the problem: a 10 cm CoM jump pushes the CoP to the heel edge."""
    controller.com_task.set_reference(controller.robot.com + [0.10, 0.0, 0.0])
    result = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    force = result.contact_forces["left_foot"]
    assert -force[4] / force[2] == pytest.approx(-controller.contacts["left_foot"].half_length, abs=1e-6)


@pytest.mark.parametrize("damping", [0.0, 20.0])
def test_supporting_contacts_are_braked_at_the_contact_damping(mj_model, mj_data, robot, bridge, backend, damping):
    """A supporting contact's frame accelerates as ``-contact_damping x`` its velocity (0 without
    damping): the rows hold to 1e-7 [m/s^2, rad/s^2] in a state whose soles move (random
    velocities), so the damping term is exercised."""
    standing_state(mj_model, mj_data, np.random.default_rng(11))
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    controller = WholeBodyController(robot, HUBO_LITE.controller_config(backend=backend, contact_damping=damping))
    result = controller.compute(q, v)
    for contact in controller.contacts.values():
        velocity = contact.jacobian(controller.robot) @ controller.robot.v
        assert np.abs(velocity).max() > 0.01  # [m/s, rad/s]: the sole moves
        acceleration = contact.jacobian(controller.robot) @ result.qdd + contact.drift(controller.robot)
        assert np.abs(acceleration + damping * velocity).max() < 1e-7  # [m/s^2, rad/s^2]


def test_second_backend_finds_the_same_solution(mj_model, mj_data, bridge, controller):
    standing_state(mj_model, mj_data, np.random.default_rng(5))
    controller.com_task.set_reference(controller.robot.com + [0.02, 0.0, 0.0])
    result = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    x_proxsuite = np.concatenate([result.qdd, *result.contact_forces.values()])
    x_quadprog = solve_with_qpsolvers(controller.last_problem, "quadprog").x
    assert np.allclose(x_quadprog, x_proxsuite, atol=1e-5)


def test_impossible_force_target_without_friction_is_reported_as_failure(mj_model, mj_data, robot, bridge, backend):
    """Impossible force target: the right hand must press a frictionless wall with >= 500 N.
    The arm's 25 N m joints cannot produce it and frictionless feet cannot hold the reaction,
    so no x satisfies the rigid-contact rows: with the relaxation off the controller must
    raise, not return garbage (with it on, ``test_relaxed_qp`` solves the same QP relaxed)."""
    hand = ContactConfig("right_hand", "right_hand", kind="point", normal=(0.0, 1.0, 0.0),
                         friction_coefficient=0.0, min_normal_force=500.0)
    feet = [ContactConfig(f"{s}_foot", f"{s}_sole", friction_coefficient=0.0) for s in ("left", "right")]
    robot.update(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    config = HUBO_LITE.controller_config(backend=backend).with_overrides(contacts=(*feet, hand), contact_slack_weight=0.0)
    controller = WholeBodyController(robot, config)
    with pytest.raises(QPSolveError, match="infeasible|max_iter") as failure:
        controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    assert np.array_equal(failure.value.problem.G, controller.last_problem.G)
    fallback = controller.gravity_compensation_torques()
    assert np.all(np.isfinite(fallback))


def test_torques_match_mujoco_inverse_dynamics(mj_model, mj_data, robot, bridge, controller):
    """Independent cross-check: MuJoCo's mj_inverse without contacts, for the QP's qdd, minus
    the QP's contact forces mapped through MuJoCo's own site Jacobians, gives the QP's torques."""
    standing_state(mj_model, mj_data, np.random.default_rng(2), velocity_scale=0.2)
    controller.com_task.set_reference(controller.robot.com + [0.01, 0.01, 0.0])
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    result = controller.compute(q, v)

    model = mj_model.__copy__()
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    data = mujoco.MjData(model)
    data.qpos[:], data.qvel[:] = mj_data.qpos, mj_data.qvel
    data.qacc[bridge.dofs] = bridge.acceleration_to_mujoco(mj_data.qpos, v, result.qdd)
    mujoco.mj_inverse(model, data)  # qfrc_inverse = M qacc + bias - passive (damping)

    generalized_contact = np.zeros(model.nv)
    for name, contact in controller.contacts.items():
        site = model.site(contact.frame).id
        jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        mujoco.mj_jacSite(model, data, jacp, jacr, site)
        rotation = data.site_xmat[site].reshape(3, 3)
        force = result.contact_forces[name]
        world_force, world_moment = rotation @ force[:3], rotation @ force[3:]
        generalized_contact += jacp.T @ world_force + jacr.T @ world_moment
    tau_mujoco = (data.qfrc_inverse - generalized_contact)[bridge.joint_dof]
    assert np.allclose(tau_mujoco, result.tau, atol=1e-6)  # [N m]
    base_rows = (data.qfrc_inverse - generalized_contact)[bridge.dofs[:6]]
    assert np.abs(base_rows).max() < 1e-6  # the base is unactuated [N, N m]


def test_the_three_solvers_solve_the_same_problem(mj_model, mj_data, robot, bridge, backend):
    """Every hot-path solver satisfies the same invariant. The two exact active-set solvers
    (eiquadprog, the default, and DAQP: different algorithms' implementations) agree to rounding
    amplified by the QP's conditioning (1e-8 N m); proxsuite, which stops at residuals of 1e-9,
    agrees on the torques to 1e-4 (the weakly regularised internal foot forces may differ more)."""
    standing_state(mj_model, mj_data, np.random.default_rng(4))
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    results = {}
    for solver in ("eiquadprog", "proxsuite", "daqp"):
        controller = WholeBodyController(robot, HUBO_LITE.controller_config(qp_solver=solver, backend=backend))
        controller.com_task.set_reference(robot.com + [0.01, 0.0, 0.0])
        results[solver] = controller.compute(q, v)
        assert np.abs(_dynamics_residual(controller, results[solver])).max() < DYNAMICS_TOL
    assert np.abs(results["eiquadprog"].tau - results["daqp"].tau).max() < 1e-8  # [N m]
    assert np.allclose(results["daqp"].qdd, results["proxsuite"].qdd, atol=1e-4)  # [m/s^2, rad/s^2]
    assert np.allclose(results["eiquadprog"].tau, results["proxsuite"].tau, atol=1e-4)  # [N m]


def test_eiquadprog_reports_an_infeasible_problem():
    """A problem with no solution (x0 = 1 and x0 <= 0) is a QPSolveError naming the reason, not a
    silent x."""
    from wbc_layer.qp import EiquadprogSolver, QPProblem

    problem = QPProblem(np.eye(2), np.zeros(2), np.array([[1.0, 0.0]]), np.array([1.0]), np.array([[1.0, 0.0]]), np.zeros(1))
    with pytest.raises(QPSolveError, match="infeasible"):
        EiquadprogSolver().solve(problem)
    problem.h[:] = 2.0  # now feasible: x = (1, 0)
    assert np.allclose(EiquadprogSolver().solve(problem).x, [1.0, 0.0], atol=1e-12)


@pytest.mark.parametrize("env_id", ["HumanoidWBC-v0", "HumanoidWBCWall-v0", "HumanoidWBCSeesaw-v0"])
def test_eliminating_the_equalities_finds_the_same_optimum(env_id):
    """The default eiquadprog solve (equalities eliminated by a QR of A^T) and eiquadprog with the
    equalities give the same solution on 60 recorded QPs of each contact set (pushed rollout, random
    actions), with and without the torque-limit rows: same status, x equal to 1e-9 relative
    (rounding amplified by the QP's conditioning; both measured at <= 3e-11), equalities held to
    1e-9 [N, N m, m/s^2]. A wrong null space or particular solution is off by O(1)."""
    from benchmarks.common import record_problems
    from wbc_layer.qp import EiquadprogSolver

    hot, full, _ = record_problems(env_id, 60, seed=3, actions="random")
    reduced, with_equalities = EiquadprogSolver(), EiquadprogSolver(eliminate_equalities=False)
    for problem in hot + full:
        x, x_ref = reduced.solve(problem).x, with_equalities.solve(problem).x
        assert np.abs(x - x_ref).max() <= 1e-9 * max(1.0, np.abs(x_ref).max())
        assert np.abs(problem.A @ x - problem.b).max() < 1e-9
        assert (problem.G @ x - problem.h).max() < ROW_TOL


def test_eliminating_redundant_equalities_reports_them():
    """A rank-deficient A (a row repeated) cannot be eliminated: the solve keeps the equalities and
    eiquadprog names them, as without elimination."""
    from wbc_layer.qp import EiquadprogSolver, QPProblem

    A = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    problem = QPProblem(np.eye(3), np.zeros(3), A, np.ones(2), np.zeros((0, 3)), np.zeros(0))
    for eliminate in (True, False):
        with pytest.raises(QPSolveError, match="redundant_equalities"):
            EiquadprogSolver(eliminate_equalities=eliminate).solve(problem)


def test_lifted_foot_follows_a_frame_position_task(mj_model, mj_data, bridge, controller):
    """With the right foot's contact off and the CoM task off (balance is not the point here), a
    frame task with a dominant weight asks the sole to accelerate upward; the QP gives it the PD
    acceleration (at weight 100 the torso and posture tasks still pull it to 0.55 m/s^2)."""
    from wbc_layer import FramePositionTask

    robot = controller.robot
    controller.set_contact_active("right_foot", False)
    controller.com_task.active = False
    start = robot.frame_placement("right_sole").translation.copy()
    task = FramePositionTask("right_swing", weight=1e4, kp=100.0, kd=20.0, frame="right_sole")
    task.set_reference(start + [0.0, 0.0, 0.01])
    controller.add_task(task)
    result = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    J = robot.frame_jacobian("right_sole", local=False)[:3]
    acceleration = J @ result.qdd + robot.frame_drift("right_sole", local=False)[:3]
    assert acceleration[2] == pytest.approx(100.0 * 0.01, abs=0.05)  # [m/s^2] kp * 1 cm
    with pytest.raises(Exception, match="exists already"):
        controller.add_task(task)
