"""Per-physics-step cost of the whole-body controller on the standing task, with pushes.

Measures, side by side in one run over N physics steps at 500 Hz (default 5,000 = 10 s):
model update (pinocchio terms), QP build, QP solve (proxsuite, warm-started; both solves when a
torque limit is hit), torque recovery, the whole WBC step (MuJoCo state -> torques, including
the bridge), and one ``mj_step`` (the torques applied while ``sim.step`` also writes ``ctrl``).
Prints a table of median / p99 / max [us] and writes JSON.

    python benchmarks/controller_step.py [--steps 5000] [--solvers proxsuite daqp] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from humanoid_env.robot_config import default_controller_config
from humanoid_env.wbc_sim import WBCSimulation

PUSH_FORCE_N = 40.0  # lateral/forward pushes on the torso, 0.1 s every 1 s, rotating direction
PUSH_DURATION_S = 0.1


def run(steps: int, qp_solver: str = "proxsuite") -> dict[str, np.ndarray]:
    sim = WBCSimulation(config=default_controller_config(qp_solver=qp_solver))
    model, data, controller = sim.model, sim.data, sim.controller
    torso = model.body("torso").id
    parts = ("update", "build", "solve", "torques")
    timings = {key: np.empty(steps) for key in (*parts, "wbc_step", "mj_step")}
    clock = time.perf_counter
    for k in range(steps):
        t = k * model.opt.timestep
        phase = t % 1.0
        angle = np.pi / 2 * int(t)
        data.xfrc_applied[torso, :2] = (
            PUSH_FORCE_N * np.array([np.cos(angle), np.sin(angle)]) if 0.5 <= phase < 0.5 + PUSH_DURATION_S else 0.0
        )
        t0 = clock()
        tau = sim.torques()
        t1 = clock()
        sim.step(tau)
        t2 = clock()
        for part in parts:
            timings[part][k] = controller.last_timings.get(part, np.nan) * 1e-6
        timings["wbc_step"][k], timings["mj_step"][k] = t1 - t0, t2 - t1
    if sim.fallbacks:
        print(f"warning: {sim.fallbacks} fallbacks during the run")
    return {key: value * 1e6 for key, value in timings.items()}


def summarise(timings: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    return {
        key: {"median_us": float(np.median(v)), "p99_us": float(np.percentile(v, 99)), "max_us": float(v.max())}
        for key, v in timings.items()
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--solvers", nargs="+", default=["proxsuite", "daqp"], help="hot-path QP solvers to compare")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/controller_step.json"))
    args = parser.parse_args(argv)
    results = {}
    for solver in args.solvers:
        rows = results[solver] = summarise(run(args.steps, solver))
        print(f"\nqp_solver={solver}: {'part':<10} {'median [us]':>12} {'p99 [us]':>10} {'max [us]':>10}   ({args.steps} steps)")
        for key, row in rows.items():
            print(f"{'':<19}{key:<10} {row['median_us']:>12.1f} {row['p99_us']:>10.1f} {row['max_us']:>10.1f}")
    if len(results) > 1:
        base = args.solvers[0]
        for solver in args.solvers[1:]:
            ratio = results[solver]["wbc_step"]["median_us"] / results[base]["wbc_step"]["median_us"]
            print(f"\nwbc_step median, {solver} / {base}: {ratio:.2f}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    machine = {"processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
               "load_average": [round(x, 2) for x in os.getloadavg()]}
    args.json.write_text(json.dumps({"steps": args.steps, "machine": machine, "results": results}, indent=2))
    print(f"wrote {args.json}")
    return results


if __name__ == "__main__":
    main()
