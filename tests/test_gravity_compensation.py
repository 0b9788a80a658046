"""Static gravity compensation (Passault's closed forms): closed forms, weight split, unilaterality, stillness."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from humanoid_env.robots.hubo_lite import HUBO_LITE
from wbc_layer import FootContact, gravity_compensation
from wbc_layer.gravity_compensation import double_support_pseudo_inverse, single_support_closed_form

#: The CoP rectangle the controller keeps [m] (half length, half width).
FOOT_HALF_LENGTH, FOOT_HALF_WIDTH = HUBO_LITE.cop_half_sizes()
#: Static balance residual allowed [N, N m]: the QP is solved to 1e-10.
STATIC_TOL = 1e-6
#: Constraint-row violation allowed [N or N m]: solver tolerance.
ROW_TOL = 1e-7


def _feet(**kwargs):
    size = dict(half_length=FOOT_HALF_LENGTH, half_width=FOOT_HALF_WIDTH)
    size.update(kwargs)
    return [FootContact(f"{side}_foot", f"{side}_sole", **size) for side in ("left", "right")]


def _set_pose(mj_model, data, robot, bridge, joints: dict[str, float]):
    mujoco.mj_resetDataKeyframe(mj_model, data, mj_model.key("home").id)
    for name, value in joints.items():
        data.qpos[7 + robot.joint_names.index(name)] = value
    mujoco.mj_forward(mj_model, data)
    robot.update(*bridge.to_pinocchio(data.qpos, data.qvel))


def _static_residual(robot, feet, solution) -> float:
    generalized = np.concatenate([np.zeros(6), solution.tau])
    for contact in feet:
        if contact.active:
            generalized += contact.jacobian(robot).T @ solution.contact_forces[contact.name]
    return float(np.abs(generalized - robot.g).max())


def test_single_support_equals_the_closed_form(mj_model, mj_data, robot, bridge):
    # Bounds made loose (huge foot, high friction) so the unique solution is also the QP's.
    feet = _feet(half_length=10.0, half_width=10.0, friction_coefficient=10.0)
    feet[1].active = False
    _set_pose(mj_model, mj_data, robot, bridge, {"left_shoulder_roll": 1.0, "waist_yaw": 0.3})
    qp = gravity_compensation(robot, feet)
    closed = single_support_closed_form(robot, feet[0].jacobian(robot))
    assert np.allclose(qp.contact_forces["left_foot"], closed.contact_forces["support"], atol=1e-6)
    assert np.allclose(qp.tau, closed.tau, atol=1e-6)
    assert closed.contact_forces["support"][2] == pytest.approx(robot.mass * 9.81, rel=1e-9)


def test_double_support_symmetric_pose_splits_the_weight_evenly(mj_model, mj_data, robot, bridge):
    feet = _feet()
    _set_pose(mj_model, mj_data, robot, bridge, {})  # home is left-right symmetric
    solution = gravity_compensation(robot, feet)
    weight = robot.mass * 9.81
    assert solution.contact_forces["left_foot"][2] == pytest.approx(weight / 2, abs=1e-6)
    assert solution.contact_forces["right_foot"][2] == pytest.approx(weight / 2, abs=1e-6)
    assert _static_residual(robot, feet, solution) < STATIC_TOL


def test_pose_where_pseudo_inverse_pulls_gets_a_unilateral_solution(mj_model, mj_data, robot, bridge):
    """CoM shifted about 5 cm sideways over the left foot by leaning both legs (feet stay flat).

    The minimum-norm forces of the closed form put the same CoP offset under each foot, outside the
    right sole: that sole would have to pull on the ground at its edge. The QP moves load to
    the left foot instead, with every normal force >= 0 and every CoP inside its sole.
    """
    lean = 0.12  # [rad]
    feet = _feet()
    _set_pose(mj_model, mj_data, robot, bridge, {
        "left_hip_roll": -lean, "right_hip_roll": -lean, "left_ankle_roll": lean, "right_ankle_roll": lean,
    })
    feet_y = [robot.frame_placement(c.frame).translation[1] for c in feet]
    assert robot.com[1] - np.mean(feet_y) > 0.045  # the lean moved the CoM left
    pinv = double_support_pseudo_inverse(robot, [c.jacobian(robot) for c in feet])
    pinv_cop_y = pinv[[3, 9]] / pinv[[2, 8]]
    assert np.any(np.abs(pinv_cop_y) > FOOT_HALF_WIDTH), "the pseudo-inverse should need a pulling sole"

    solution = gravity_compensation(robot, feet)
    assert _static_residual(robot, feet, solution) < STATIC_TOL
    for contact in feet:
        G, h = contact.force_constraints(4)
        force = solution.contact_forces[contact.name]
        assert force[2] >= -ROW_TOL
        assert np.all(G @ force <= h + ROW_TOL)
    assert solution.contact_forces["left_foot"][2] > solution.contact_forces["right_foot"][2]


def test_static_solution_is_the_same_with_another_qp_backend(mj_model, mj_data, robot, bridge):
    feet = _feet()
    _set_pose(mj_model, mj_data, robot, bridge, {"waist_pitch": 0.3, "left_elbow": -1.0})
    a = gravity_compensation(robot, feet, solver="proxqp")
    b = gravity_compensation(robot, feet, solver="daqp")
    assert np.allclose(a.tau, b.tau, atol=1e-5)  # [N m]


def test_gravity_compensation_holds_the_standing_robot_still(mj_model, mj_data, robot, bridge, controller):
    """After 1 s of WBC settling, gravity-compensation torques (recomputed each step from the
    current configuration) keep every joint within 1 mrad over 1 s."""
    for _ in range(500):
        q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
        bridge.torques_to_ctrl(controller.compute(q, v).tau, mj_data.ctrl)
        mujoco.mj_step(mj_model, mj_data)
    feet = list(controller.contacts.values())
    start = mj_data.qpos[7:].copy()
    for _ in range(500):
        robot.update(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
        bridge.torques_to_ctrl(gravity_compensation(robot, feet).tau, mj_data.ctrl)
        mujoco.mj_step(mj_model, mj_data)
    assert np.abs(mj_data.qpos[7:] - start).max() < 1e-3  # [rad]
