"""The whole-body QP: dynamics invariant, constraint rows, failure reporting, a second backend."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from humanoid_env.robot_config import default_controller_config
from tests.conftest import standing_state
from wbc_layer import ContactConfig, QPSolveError, WholeBodyController, solve_with_qpsolvers
from wbc_layer.qp_builder import contact_jacobians

#: Dynamics residual allowed on every row of M qdd + h = S^T tau + J^T f [N, N m] (issue: 1e-8).
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


@pytest.mark.parametrize("seed", range(5))
def test_every_inequality_row_holds(mj_model, mj_data, bridge, controller, seed):
    standing_state(mj_model, mj_data, np.random.default_rng(seed), velocity_scale=0.3)
    # Ask for a large CoM acceleration so that CoP, friction and torque rows become active.
    controller.com_task.set_reference(controller.robot.com + [0.08, 0.05, 0.0])
    result = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    problem = controller.last_problem
    x = np.concatenate([result.qdd, *result.contact_forces.values()])
    assert np.all(problem.G @ x <= problem.h + ROW_TOL)
    robot = controller.robot
    assert np.all(result.tau <= robot.torque_max + ROW_TOL)
    assert np.all(result.tau >= robot.torque_min - ROW_TOL)
    for name, contact in controller.contacts.items():
        G, h = contact.force_constraints(controller.config.friction_facets)
        assert np.all(G @ result.contact_forces[name] <= h + ROW_TOL)
        force = result.contact_forces[name]
        assert force[2] >= -ROW_TOL
        if force[2] > 1.0:  # [N]; the CoP of an unloaded foot is undefined
            cop = np.array([-force[4], force[3]]) / force[2]
            assert abs(cop[0]) <= contact.half_length + 1e-6 and abs(cop[1]) <= contact.half_width + 1e-6


def test_active_cop_bound_is_reached_by_a_demanding_reference(mj_model, mj_data, bridge, controller):
    """The CoP rows are really in the problem: a 10 cm CoM jump pushes the CoP to the heel edge."""
    controller.com_task.set_reference(controller.robot.com + [0.10, 0.0, 0.0])
    result = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    force = result.contact_forces["left_foot"]
    assert -force[4] / force[2] == pytest.approx(-controller.contacts["left_foot"].half_length, abs=1e-6)


def test_supporting_contacts_do_not_accelerate(mj_model, mj_data, bridge, controller):
    standing_state(mj_model, mj_data, np.random.default_rng(11))
    result = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    for contact in controller.contacts.values():
        acceleration = contact.jacobian(controller.robot) @ result.qdd + contact.drift(controller.robot)
        assert np.abs(acceleration).max() < 1e-7  # [m/s^2, rad/s^2]


def test_second_backend_finds_the_same_solution(mj_model, mj_data, bridge, controller):
    standing_state(mj_model, mj_data, np.random.default_rng(5))
    controller.com_task.set_reference(controller.robot.com + [0.02, 0.0, 0.0])
    result = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    x_proxsuite = np.concatenate([result.qdd, *result.contact_forces.values()])
    x_quadprog = solve_with_qpsolvers(controller.last_problem, "quadprog").x
    assert np.allclose(x_quadprog, x_proxsuite, atol=1e-5)


def test_impossible_force_target_without_friction_is_reported_as_failure(mj_model, mj_data, robot, bridge):
    """Impossible force target: the right hand must press a frictionless wall with >= 500 N.
    The arm's 25 N m joints cannot produce it and frictionless feet cannot hold the reaction,
    so no x satisfies the rows: the controller must raise, not return garbage."""
    hand = ContactConfig("right_hand", "right_hand", kind="point", normal=(0.0, 1.0, 0.0),
                         friction_coefficient=0.0, min_normal_force=500.0)
    feet = [ContactConfig(f"{s}_foot", f"{s}_sole", friction_coefficient=0.0) for s in ("left", "right")]
    robot.update(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    config = default_controller_config().with_overrides(contacts=(*feet, hand))
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


def test_daqp_hot_path_solves_the_same_problem(mj_model, mj_data, robot, bridge):
    """The reproducible DAQP path satisfies the same invariant and agrees with proxsuite on
    the torques (the weakly regularised internal foot forces may differ, the torques not much)."""
    standing_state(mj_model, mj_data, np.random.default_rng(4))
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    results = {}
    for solver in ("proxsuite", "daqp"):
        controller = WholeBodyController(robot, default_controller_config(qp_solver=solver))
        controller.com_task.set_reference(robot.com + [0.01, 0.0, 0.0])
        results[solver] = controller.compute(q, v)
        assert np.abs(_dynamics_residual(controller, results[solver])).max() < DYNAMICS_TOL
    assert np.allclose(results["daqp"].qdd, results["proxsuite"].qdd, atol=1e-4)  # [m/s^2, rad/s^2]


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
