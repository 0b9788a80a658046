"""Per-physics-step cost of the whole-body controller on the standing task, with pushes.

Measures, side by side in one run over N physics steps at 500 Hz (default 5,000 = 10 s):
model update (pinocchio terms), QP build, QP solve (proxsuite, warm-started), torque
recovery, the whole WBC step (sum of those plus bookkeeping), and one ``mj_step``.
Prints a table of median / p99 / max [us] and writes JSON.

    python benchmarks/controller_step.py [--steps 5000] [--json benchmarks/results/controller_step.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import mujoco
import numpy as np

from humanoid_env.wbc_sim import WBCSimulation
from wbc_layer import QPSolveError

PUSH_FORCE_N = 40.0  # lateral/forward pushes on the torso, 0.1 s every 1 s, rotating direction
PUSH_DURATION_S = 0.1


def run(steps: int) -> dict[str, np.ndarray]:
    sim = WBCSimulation()
    model, data, robot, bridge, controller = sim.model, sim.data, sim.robot, sim.bridge, sim.controller
    contacts, tasks = list(controller.contacts.values()), list(controller.tasks.values())
    builder = controller.builder
    torso = model.body("torso").id
    timings = {key: np.empty(steps) for key in ("update", "build", "solve", "torques", "wbc_step", "mj_step")}
    fallbacks = 0
    clock = time.perf_counter
    for k in range(steps):
        t = k * model.opt.timestep
        phase = t % 1.0
        angle = np.pi / 2 * int(t)
        data.xfrc_applied[torso, :2] = (
            PUSH_FORCE_N * np.array([np.cos(angle), np.sin(angle)]) if 0.5 <= phase < 0.5 + PUSH_DURATION_S else 0.0
        )
        q, v = bridge.to_pinocchio(data.qpos, data.qvel)
        t0 = clock()
        robot.update(q, v)
        t1 = clock()
        problem = builder.build(robot, contacts, tasks)
        t2 = clock()
        try:
            x = controller.solver.solve(problem).x
            t3 = clock()
            tau = builder.torques(robot, x)
        except QPSolveError:
            fallbacks += 1
            t3 = clock()
            tau = controller.gravity_compensation_torques()
        t4 = clock()
        bridge.torques_to_ctrl(tau, data.ctrl)
        t5 = clock()
        mujoco.mj_step(model, data)
        t6 = clock()
        timings["update"][k], timings["build"][k] = t1 - t0, t2 - t1
        timings["solve"][k], timings["torques"][k] = t3 - t2, t4 - t3
        timings["wbc_step"][k], timings["mj_step"][k] = t5 - t0, t6 - t5
    if fallbacks:
        print(f"warning: {fallbacks} fallbacks during the run")
    return {key: value * 1e6 for key, value in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/controller_step.json"))
    args = parser.parse_args()
    timings = run(args.steps)
    rows = {
        key: {
            "median_us": float(np.median(v)),
            "p99_us": float(np.percentile(v, 99)),
            "max_us": float(v.max()),
        }
        for key, v in timings.items()
    }
    print(f"{'part':<10} {'median [us]':>12} {'p99 [us]':>10} {'max [us]':>10}   ({args.steps} steps)")
    for key, row in rows.items():
        print(f"{key:<10} {row['median_us']:>12.1f} {row['p99_us']:>10.1f} {row['max_us']:>10.1f}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    result = {"steps": args.steps, "machine": platform.processor() or platform.machine(), "timings": rows}
    args.json.write_text(json.dumps(result, indent=2))
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
