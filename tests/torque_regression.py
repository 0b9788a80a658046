"""Recorded states for the controller's torque regression test (the contract: optimisations keep the
torques to 1e-9). ``python -m tests.torque_regression`` re-records ``tests/data/torque_regression.npz``
-- only do that when a change of the controller's *behaviour* is intended.

The torques are solved with DAQP, an active-set solver that solves the optimal active set's KKT
system exactly: proxsuite stops at a residual tolerance, and in the directions the cost barely
weighs (the feet's internal forces, regularised at 1e-6) its answer moves by 1e-4 N m with the
solve path, which would hide or fake a regression."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from humanoid_env.robots.hubo_lite import HUBO_LITE
from humanoid_env.wbc_sim import WBCSimulation
from wbc_layer import RobotModel, WholeBodyController

DATA = Path(__file__).resolve().parent / "data" / "torque_regression.npz"
N_STATES = 40


def record_states() -> dict[str, np.ndarray]:
    """A pushed standing rollout with a moving CoM reference; every 10th physics step kept."""
    sim = WBCSimulation()
    model, data, controller = sim.model, sim.data, sim.controller
    com0 = sim.robot.com.copy()
    torso = model.body("torso").id
    qs, vs, refs = [], [], []
    for k in range(10 * N_STATES):
        t = k * model.opt.timestep
        reference = com0 + np.array([0.02 * np.sin(2 * t), 0.015 * np.sin(3 * t), -0.01 * t])
        controller.com_task.set_reference(reference)
        data.xfrc_applied[torso, :3] = [30.0, -20.0, 0.0] if 0.2 < t < 0.3 else 0.0
        if k % 10 == 0:
            q, v = sim.state()
            qs.append(q), vs.append(v), refs.append(reference)
        sim.step()
    return {"q": np.array(qs), "v": np.array(vs), "com_reference": np.array(refs)}


def torques_for(states: dict[str, np.ndarray], force_targets: dict[str, float] | None = None, **config) -> np.ndarray:
    """(N, na) torques, each state solved by a fresh DAQP controller (no warm-start history);
    ``force_targets``: contact name -> normal-force target [N] (weight 1e-2) set on each."""
    config = {"qp_solver": "daqp", **config}
    robot = RobotModel.from_mjcf(HUBO_LITE.mjcf_path())
    out = []
    for q, v, reference in zip(states["q"], states["v"], states["com_reference"], strict=True):
        robot.update(q, v)
        controller = WholeBodyController(robot, HUBO_LITE.controller_config(**config))
        controller.com_task.set_reference(reference)
        for name, target in (force_targets or {}).items():
            controller.set_force_target(name, target, weight=1e-2)
        out.append(controller.compute(q, v).tau)
    return np.array(out)


if __name__ == "__main__":
    states = record_states()
    np.savez(DATA, tau=torques_for(states), **states)
    print(f"wrote {DATA}")
