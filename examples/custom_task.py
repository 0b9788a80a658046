"""A task of your own on the compiled controller: a hand-position task whose rows this file computes.

A task is a small object with ``residual(robot, layout) -> (A, b)``, the rows of its cost term
``w ||A x - b||^2`` over the QP's variables ``x = [qdd, f]`` (``wbc_layer.layout``). The compiled
core does not know this class; it calls ``residual`` before each tick, with the robot model at the
tick's state, and adds the rows to its cost beside its own tasks'. To show that nothing is lost on
the way, the script reaches the right hand 10 cm forward (minimum-jerk, 1 s) while standing, and at
every physics step a second controller with the built-in ``FramePositionTask`` (same frame,
gains, weight and reference) solves the same state: the torques agree to rounding. It prints a JSON
summary (also written to ``OUT/custom_task.json``)::

    python examples/custom_task.py --seconds 1.5 --out out/custom_task
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from humanoid_env.scenarios import min_jerk
from humanoid_env.wbc_sim import WBCSimulation
from training.jsonio import dumps
from wbc_layer import FramePositionTask, RobotModel, Task, WholeBodyController
from wbc_layer.layout import QPLayout

REACH_M = np.array([0.10, 0.0, 0.0])  # the hand's move [m], forward (+x)
FRAME, KP, KD, WEIGHT = "right_hand", 100.0, 20.0, 10.0  # frame; [1/s^2], [1/s]; weight


@dataclass
class HandPositionTask(Task):
    """The hand's origin to ``position`` [m] (world axes) with ``velocity`` [m/s]: the rows
    ``J qdd = -kp e - kd e_dot - Jdot v``, e the position error; 3 rows, on ``qdd`` only."""

    frame: str = FRAME
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    kp: float = KP
    kd: float = KD

    def residual(self, robot: RobotModel, layout: QPLayout) -> tuple[np.ndarray, np.ndarray]:
        J = robot.frame_jacobian(self.frame, local=False)[:3]  # (3, nv), world axes
        drift = robot.frame_drift(self.frame, local=False)[:3]  # Jdot v
        error = robot.frame_placement(self.frame).translation - self.position
        error_velocity = robot.frame_velocity(self.frame, local=False)[:3] - self.velocity
        A = np.zeros((3, layout.nx))
        A[:, layout.qdd] = J
        return A, -self.kp * error - self.kd * error_velocity - drift


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="simulated time [s]")
    parser.add_argument("--out", type=Path, default=Path("out/custom_task"), help="output folder")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    sim = WBCSimulation()  # flat scene, home keyframe, the default two-feet controller (compiled)
    start = sim.robot.frame_placement(FRAME).translation.copy()
    ours = HandPositionTask("hand", WEIGHT, position=start)
    sim.controller.add_task(ours)
    twin = RobotModel.from_mjcf(sim.description.mjcf_path())
    twin.update(*sim.state())  # the controller takes its CoM and posture references from it
    built_in = WholeBodyController(twin, sim.controller.config)
    reference = FramePositionTask("hand", WEIGHT, kp=KP, kd=KD, frame=FRAME)
    reference.set_reference(start)
    built_in.add_task(reference)

    dt, worst = sim.model.opt.timestep, 0.0
    steps = int(round(args.seconds / dt))
    for _ in range(steps):
        s, s_dot = min_jerk(float(sim.data.time), 0.0, 1.0)
        position, velocity = start + s * REACH_M, s_dot * REACH_M
        ours.position, ours.velocity = position, velocity
        reference.set_reference(position, velocity)
        state = sim.state()
        tau = sim.controller.compute(*state).tau
        worst = max(worst, float(np.abs(tau - built_in.compute(*state).tau).max()))
        sim.step(tau)
    reached = sim.robot.frame_placement(FRAME).translation - start
    summary = {
        "seconds": steps * dt,
        "hand_moved_m": reached.tolist(),
        "hand_error_final_m": float(np.linalg.norm(reached - REACH_M)),
        "max_torque_difference_to_built_in_n_m": worst,
    }
    (args.out / "custom_task.json").write_text(dumps(summary, indent=2))
    print(dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
