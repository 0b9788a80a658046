"""The WBC holds the robot standing in MuJoCo, computing torques at every 500 Hz physics step."""

from __future__ import annotations

import mujoco
import numpy as np

from humanoid_env.robots.hubo_lite import HUBO_LITE
from humanoid_env.wbc_sim import WBCSimulation

#: Settling time before steady-state checks [s].
SETTLE_S = 1.0


def _measured_vertical_ground_force(model, data) -> float:
    """Sum of MuJoCo's contact normal forces projected on world z [N]."""
    total, wrench = 0.0, np.zeros(6)
    for i in range(data.ncon):
        mujoco.mj_contactForce(model, data, i, wrench)
        frame = data.contact[i].frame.reshape(3, 3)  # rows: normal, tangent1, tangent2
        total += float(frame[:, 2] @ wrench[:3])
    return total


def _steps(sim: WBCSimulation, seconds: float):
    """Run the closed loop for ``seconds``, yielding the time [s] after each physics step."""
    for k in range(int(round(seconds / sim.model.opt.timestep))):
        sim.step()
        yield (k + 1) * sim.model.opt.timestep


def test_stands_for_20_seconds(backend):
    sim = WBCSimulation(config=HUBO_LITE.controller_config(backend=backend))
    robot, data = sim.robot, sim.data
    reference = robot.com.copy()
    base_height = data.qpos[2]
    weight = robot.mass * 9.81
    com_errors, base_errors, force_errors = [], [], []
    for k, t in enumerate(_steps(sim, 20.0)):
        if t >= SETTLE_S and k % 10 == 0:
            com_errors.append(np.linalg.norm(robot.com - reference))
            base_errors.append(abs(data.qpos[2] - base_height))
            force_errors.append(abs(_measured_vertical_ground_force(sim.model, data) - weight) / weight)
    assert sim.fallbacks == 0
    assert max(com_errors) < 2e-3  # [m] target: CoM within 2 mm of its reference
    assert max(base_errors) < 5e-3  # [m] base height within 5 mm (contact settling is < 1 mm)
    assert max(force_errors) < 0.01  # MuJoCo's ground force equals m g within 1% once settled


def test_moves_the_com_3cm_forward_and_holds_it(backend):
    sim = WBCSimulation(config=HUBO_LITE.controller_config(backend=backend))
    target = sim.robot.com + np.array([0.03, 0.0, 0.0])
    sim.controller.com_task.set_reference(target)
    errors = [np.linalg.norm(sim.robot.com - target) for t in _steps(sim, 3.0) if t > 2.0]
    assert sim.fallbacks == 0
    assert max(errors) < 3e-3  # [m] target: error below 3 mm after 2 s
