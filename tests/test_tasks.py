"""Tasks: each cost term ``||A x - b||^2`` is zero exactly when the task is met, its PD law pulls
towards the reference, the fast diagonal path is the same term, and the QP's cost is the weighted
sum of the terms.

Residuals are compared to 1e-9 [m/s^2, rad/s^2, N]: sums of a few dozen products of O(1-100)
numbers; the quantities themselves are O(0.1-100).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from tests import oracles
from tests.conftest import random_state
from wbc_layer import (
    BodyRestTask,
    ComTask,
    ConfigError,
    ContactForceTask,
    FootContact,
    FramePositionTask,
    OrientationTask,
    PointContact,
    PostureTask,
    QPLayout,
    RegularisationTask,
)
from wbc_layer.environment_body import EnvironmentBody

TOL = 1e-9
KP, KD = 30.0, 11.0


class Board(EnvironmentBody):
    """A 2-dof environment body with a state and nothing else (all a BodyRestTask reads)."""

    name, dof = "board", 2

    def update(self, s, s_dot):
        self.s, self.s_dot = np.asarray(s, dtype=float), np.asarray(s_dot, dtype=float)


@pytest.fixture
def moving(mj_model, mj_data, robot, bridge):
    """The robot at a random configuration with random velocities (base included)."""
    random_state(mj_model, mj_data, np.random.default_rng(7), velocity_scale=0.5)
    robot.update(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    return robot


@pytest.fixture
def layout(robot):
    return QPLayout(robot.nv, (("left_foot", 6), ("right_foot", 6), ("hand", 3)), (("board", 2),))


def _x_with_qdd(layout, qdd, rng) -> np.ndarray:
    """A decision vector with the given ``qdd`` and random everything else."""
    x = rng.normal(size=layout.nx)
    x[layout.qdd] = qdd
    return x


def _residual(task, robot, layout, x):
    A, b = task.residual(robot, layout)
    return A @ x - b


# -- motion tasks ---------------------------------------------------------------------------
def test_com_task_residual_is_the_com_acceleration_error(moving, layout):
    """A x - b = (J_com qdd + Jdot_com v) - (a_ff - kp (c - c_ref) - kd (cdot - cdot_ref)); it
    vanishes for a qdd that gives the CoM the desired acceleration, whatever the forces."""
    robot, rng = moving, np.random.default_rng(0)
    task = ComTask("com", kp=KP, kd=KD)
    task.set_reference(robot.com + [0.01, -0.02, 0.03], velocity=[0.1, 0.0, -0.1], acceleration=[0.0, 0.5, 0.0])
    desired = task.acceleration - KP * (robot.com - task.position) - KD * (robot.com_velocity - task.velocity)
    x = _x_with_qdd(layout, rng.normal(size=robot.nv), rng)
    expected = robot.com_jacobian @ x[layout.qdd] + robot.com_drift - desired
    np.testing.assert_allclose(_residual(task, robot, layout, x), expected, rtol=0.0, atol=TOL)
    # A qdd that produces the desired CoM acceleration (least norm) zeroes the residual.
    qdd = np.linalg.lstsq(robot.com_jacobian, desired - robot.com_drift, rcond=None)[0]
    np.testing.assert_allclose(_residual(task, robot, layout, _x_with_qdd(layout, qdd, rng)), 0.0, atol=TOL)


def test_com_pd_law_pulls_towards_the_reference(robot):
    # At rest, 1 cm above the reference: the desired acceleration is -kp * 1 cm, straight down.
    task = ComTask("com", kp=KP, kd=KD)
    task.set_reference(robot.com - [0.0, 0.0, 0.01])
    np.testing.assert_allclose(task.desired_acceleration(robot), [0.0, 0.0, -KP * 0.01], atol=1e-12)
    # Moving up at 0.1 m/s at the reference: damping asks for -kd * 0.1 m/s^2.
    task.set_reference(robot.com, velocity=[0.0, 0.0, -0.1])
    np.testing.assert_allclose(task.desired_acceleration(robot), [0.0, 0.0, -KD * 0.1], atol=1e-12)


def test_com_reference_is_checked_and_copied(robot):
    task = ComTask("com")
    with pytest.raises(ConfigError, match="CoM position reference must have 3 entries"):
        task.set_reference([0.0, 0.0])
    with pytest.raises(ConfigError, match="CoM velocity reference must be finite"):
        task.set_reference(robot.com, velocity=[0.0, np.nan, 0.0])
    position = robot.com.copy()
    task.set_reference(position)
    position[2] += 1.0  # the caller's array changes; the task's reference does not
    np.testing.assert_array_equal(task.position, robot.com)


def test_posture_task_acts_on_joint_accelerations_only(moving, layout):
    robot, rng = moving, np.random.default_rng(1)
    task = PostureTask("posture", kp=KP, kd=KD)
    with pytest.raises(ConfigError, match="has no target"):
        task.residual(robot, layout)
    target = robot.q[7:] + rng.uniform(-0.1, 0.1, robot.na)
    task.set_target(target)
    x = rng.normal(size=layout.nx)
    desired = -KP * (robot.q[7:] - target) - KD * robot.v[6:]
    np.testing.assert_allclose(_residual(task, robot, layout, x), x[6 : robot.nv] - desired, rtol=0.0, atol=TOL)
    A, _ = task.residual(robot, layout)
    assert not A[:, :6].any() and not A[:, robot.nv :].any()  # no base, body or force columns


def test_orientation_error_is_the_world_rotation_vector_from_reference_to_current(moving, layout):
    robot, rng = moving, np.random.default_rng(2)
    rotation = robot.frame_placement("torso").rotation.copy()
    task = OrientationTask("torso", kp=KP, kd=KD, frame="torso")
    task.set_target(rotation)
    np.testing.assert_allclose(task.error(robot), 0.0, atol=1e-12)
    # Reference turned by +0.1 rad about world z: the torso is 0.1 rad short, error -0.1 about z.
    task.set_target(pin.exp3(np.array([0.0, 0.0, 0.1])) @ rotation)
    np.testing.assert_allclose(task.error(robot), [0.0, 0.0, -0.1], atol=1e-12)
    omega = robot.frame_velocity("torso", local=False)[3:]
    J = robot.frame_jacobian("torso", local=False)[3:]
    drift = robot.frame_drift("torso", local=False)[3:]
    x = rng.normal(size=layout.nx)
    expected = J @ x[layout.qdd] + drift - (-KP * task.error(robot) - KD * omega)
    np.testing.assert_allclose(_residual(task, robot, layout, x), expected, rtol=0.0, atol=TOL)
    with pytest.raises(ConfigError, match="must be a 3x3 rotation matrix"):
        task.set_target(2.0 * np.eye(3))


def test_frame_position_task_is_met_at_its_reference(moving, layout):
    robot, rng = moving, np.random.default_rng(3)
    task = FramePositionTask("swing", kp=KP, kd=KD, frame="right_sole")
    position = robot.frame_placement("right_sole").translation.copy()
    velocity = robot.frame_velocity("right_sole", local=False)[:3].copy()
    task.set_reference(position, velocity)  # on the reference, moving with it
    J = robot.frame_jacobian("right_sole", local=False)[:3]
    drift = robot.frame_drift("right_sole", local=False)[:3]
    qdd = np.linalg.lstsq(J, -drift, rcond=None)[0]  # zero acceleration of the sole's origin
    np.testing.assert_allclose(_residual(task, robot, layout, _x_with_qdd(layout, qdd, rng)), 0.0, atol=TOL)
    task.set_reference(position + [0.0, 0.0, 0.02], velocity)  # 2 cm below it: pushed up
    np.testing.assert_allclose(task.desired_acceleration(robot), [0.0, 0.0, KP * 0.02], atol=1e-12)


# -- force, body and regularisation tasks ---------------------------------------------------
def test_body_rest_task_drives_the_body_to_its_target(robot, layout):
    board = Board()
    board.update([0.1, -0.2], [0.5, 0.0])
    task = BodyRestTask("rest_board", body=board, kp=KP, kd=KD)
    A, b = task.residual(robot, layout)
    np.testing.assert_array_equal(A[:, layout.body("board")], np.eye(2))
    assert np.count_nonzero(A) == 2  # nothing but the body's accelerations
    np.testing.assert_allclose(b, [-KP * 0.1 - KD * 0.5, KP * 0.2], atol=1e-12)
    board.update([0.3, 0.3], [0.0, 0.0])
    task.target = np.array([0.3, 0.3])
    np.testing.assert_allclose(task.residual(robot, layout)[1], 0.0, atol=1e-12)  # at rest on target


def test_contact_force_task_tracks_the_normal_force(robot, layout):
    rng = np.random.default_rng(4)
    foot = FootContact("left_foot", "left_sole")
    task = ContactForceTask("force_left_foot", contact=foot)
    task.set_target([120.0])
    x = rng.normal(size=layout.nx)
    x[layout.force("left_foot")] = [5.0, -3.0, 120.0, 1.0, 2.0, 0.1]  # on target, any other component
    np.testing.assert_allclose(_residual(task, robot, layout, x), 0.0, atol=1e-12)
    x[layout.force("left_foot")][2] = 100.0
    np.testing.assert_allclose(_residual(task, robot, layout, x), [-20.0], atol=1e-12)  # [N]
    with pytest.raises(ConfigError, match="force target of 'force_left_foot' must have 1 entries"):
        task.set_target([1.0, 2.0])
    full = ContactForceTask("full", contact=foot, normal_only=False)
    full.set_target(np.arange(6.0))
    x[layout.force("left_foot")] = np.arange(6.0)
    np.testing.assert_allclose(_residual(full, robot, layout, x), 0.0, atol=1e-12)


def test_point_contact_force_task_uses_the_contact_normal(robot, layout):
    hand = PointContact("hand", "right_hand", normal=(0.0, 0.6, 0.8))
    task = ContactForceTask("force_hand", contact=hand)
    task.set_target([10.0])
    x = np.zeros(layout.nx)
    x[layout.force("hand")] = 10.0 * np.array([0.0, 0.6, 0.8]) + [3.0, 0.8, -0.6]  # + a tangential 3.4 N
    np.testing.assert_allclose(_residual(task, robot, layout, x), 0.0, atol=1e-12)
    assert task.diagonal_residual(robot, layout) is None  # the normal is not one coordinate


@pytest.mark.parametrize("kind", ["posture", "foot_force", "wall_force", "regularisation"])
def test_diagonal_fast_path_is_the_same_term(moving, layout, kind):
    """diagonal_residual states a term as ``||d * x[indices] - b||^2`` instead of
    ``||A x - b||^2``: the two must be the same function of x."""
    robot, rng = moving, np.random.default_rng(5)
    if kind == "posture":
        task = PostureTask("posture", kp=KP, kd=KD)
        task.set_target(robot.q[7:] + 0.05)
    elif kind == "foot_force":
        task = ContactForceTask("force", contact=FootContact("left_foot", "left_sole"))
        task.set_target([80.0])
    elif kind == "wall_force":
        task = ContactForceTask("force", contact=PointContact("hand", "right_hand", normal=(0.0, 1.0, 0.0)))
        task.set_target([15.0])
    else:
        task = RegularisationTask("regularisation", qdd_weight=1e-3, force_weight=1e-5)
    indices, d, b_fast = task.diagonal_residual(robot, layout)
    for _ in range(3):
        x = rng.normal(scale=10.0, size=layout.nx)
        fast = np.sum((d * x[indices] - b_fast) ** 2)
        assert fast == pytest.approx(np.sum(_residual(task, robot, layout, x) ** 2), rel=1e-12)


def test_regularisation_weighs_accelerations_and_forces(robot, layout):
    task = RegularisationTask("regularisation", qdd_weight=1e-3, force_weight=1e-5)
    x = np.zeros(layout.nx)
    x[layout.accelerations] = 2.0  # robot and body accelerations alike
    x[layout.forces] = 100.0
    n_acc, n_f = robot.nv + 2, 15
    expected = 1e-3 * n_acc * 4.0 + 1e-5 * n_f * 1e4
    assert np.sum(_residual(task, robot, layout, x) ** 2) == pytest.approx(expected, rel=1e-12)


def test_qp_cost_is_the_weighted_sum_of_the_task_terms(moving):
    """What the tasks mean in the QP: 1/2 x^T P x + q^T x + const = sum_i w_i ||A_i x - b_i||^2
    for every x (checked at random x, with const from x = 0)."""
    robot, rng = moving, np.random.default_rng(6)
    contacts = [FootContact("left_foot", "left_sole"), FootContact("right_foot", "right_sole"),
                PointContact("right_hand", "right_hand", normal=(0.0, 1.0, 0.0))]
    layout = QPLayout(robot.nv, tuple((c.name, c.dim) for c in contacts))
    com = ComTask("com", 1000.0, kp=KP, kd=KD)
    com.set_reference(robot.com + 0.01)
    posture = PostureTask("posture", 2.0, kp=50.0, kd=14.0)
    posture.set_target(robot.q[7:] + 0.1)
    torso = OrientationTask("torso", 10.0, kp=100.0, kd=20.0, frame="torso")
    foot_force = ContactForceTask("force_left_foot", 0.5, contact=contacts[0])
    foot_force.set_target([150.0])
    hand_force = ContactForceTask("force_right_hand", 3.0, contact=contacts[2])
    hand_force.set_target([12.0])
    off = ComTask("off", 1e6, active=False)  # inactive: not part of the cost
    off.set_reference(robot.com + 1.0)
    tasks = [com, posture, torso, foot_force, hand_force, RegularisationTask("regularisation"), off]
    P, q = oracles.cost(robot, layout, tasks)  # the statement the core's cost is checked against

    def weighted(x):
        return sum(t.weight * np.sum(_residual(t, robot, layout, x) ** 2) for t in tasks if t.active)

    constant = weighted(np.zeros(layout.nx))
    for _ in range(3):
        x = rng.normal(size=layout.nx)
        assert 0.5 * x @ P @ x + q @ x + constant == pytest.approx(weighted(x), rel=1e-9)
