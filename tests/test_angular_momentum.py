"""The angular-momentum task: its rows are the rate of change of the centroidal angular momentum,
and turned on it drives that rate towards ``-damping L`` on both backends alike."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_env.robots.hubo_lite import HUBO_LITE
from tests import oracles
from wbc_layer import RobotModel, WholeBodyController


def _spinning_state(bridge, mj_data, mj_model):
    """Home pose with random joint velocities (0.5 rad/s): a nonzero angular momentum."""
    rng = np.random.default_rng(4)
    mj_data.qvel[6:] = rng.normal(0.0, 0.5, mj_model.nv - 6)
    return bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)


def _rate_of_angular_momentum(robot, q, v, qdd) -> np.ndarray:
    """pinocchio's dL/dt [N m] at (q, v, qdd): the oracle, independent of the task's formula."""
    data = robot.model.createData()
    pin.computeCentroidalMomentumTimeVariation(robot.model, data, q, v, qdd)
    return data.dhg.angular.copy()


def test_task_rows_are_the_rate_of_angular_momentum(robot, bridge, mj_data, mj_model):
    """At any solution (the dynamics rows hold), the task's rows on the forces equal pinocchio's
    dL/dt from qdd to 1e-6 N m (the rows use the floating-base dynamics to trade qdd for f)."""
    q, v = _spinning_state(bridge, mj_data, mj_model)
    robot.update(q, v)
    controller = WholeBodyController(robot, HUBO_LITE.controller_config())
    result = controller.compute(q, v)
    task = controller.task("angular_momentum")
    assert not task.active  # off by default
    x = np.concatenate([result.qdd, *(result.contact_forces[name] for name in controller.contacts)])
    rows = task.wrench_moment_rows(robot, controller.layout)
    assert np.allclose(rows @ x, _rate_of_angular_momentum(robot, q, v, result.qdd), atol=1e-6)


def test_task_drives_the_rate_towards_minus_damping_times_momentum(robot, bridge, mj_data, mj_model, backend):
    """With the task on (weight 100, damping 10 /s), dL/dt moves towards -10 L: its distance from
    that target shrinks to under half of what it is with the task off."""
    q, v = _spinning_state(bridge, mj_data, mj_model)
    misses = {}
    for weight in (0.0, 100.0):
        robot.update(q, v)
        config = HUBO_LITE.controller_config(backend=backend, angular_momentum_weight=weight, angular_momentum_damping=10.0)
        result = WholeBodyController(robot, config).compute(q, v)
        target = -10.0 * robot.angular_momentum
        misses[weight] = np.linalg.norm(_rate_of_angular_momentum(robot, q, v, result.qdd) - target)
    assert misses[100.0] < 0.5 * misses[0.0], misses


def test_the_core_matches_the_oracle_with_the_task_on(bridge, mj_data, mj_model):
    """The core's tick with the task on equals the oracle QP's (tests/oracles.py, the task's
    residual in numpy) solved exactly: torques within 1e-8 N m (tests/test_oracle_agree.py)."""
    q, v = _spinning_state(bridge, mj_data, mj_model)
    robot = RobotModel.from_mjcf(HUBO_LITE.mjcf_path())
    robot.update(q, v)
    config = HUBO_LITE.controller_config(qp_solver="eiquadprog", angular_momentum_weight=100.0, angular_momentum_damping=10.0)
    controller = WholeBodyController(robot, config)
    tau = controller.compute(q, v).tau
    assert np.abs(tau - oracles.oracle_tau(controller)).max() < 1e-8


def test_damping_setter_reaches_the_tick(robot, bridge, mj_data, mj_model):
    """Changing the task's damping changes the torques (the compiled writer must carry it into
    the core)."""
    q, v = _spinning_state(bridge, mj_data, mj_model)
    robot.update(q, v)
    config = HUBO_LITE.controller_config(angular_momentum_weight=100.0)
    controller = WholeBodyController(robot, config)
    before = controller.compute(q, v).tau
    controller.task("angular_momentum").damping = 40.0
    assert np.abs(controller.compute(q, v).tau - before).max() > 1e-3
