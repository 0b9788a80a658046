"""Per-physics-step cost of the whole-body controller, with pushes, for each environment's contact set.

Measures, side by side in one run over N physics steps at 500 Hz (default 5,000 = 10 s):
model update (pinocchio terms), QP build, QP solve (proxsuite, warm-started; both solves when a
torque limit is hit), torque recovery, the whole WBC step (MuJoCo state -> torques, including
the bridge), and one ``mj_step`` (the torques applied while ``sim.step`` also writes ``ctrl``),
on the standing robot (``WBCSimulation``, two feet). Then the same parts inside each registered
environment in ``wbc`` mode (zero actions, pushes every 0.5-1 s), with that env's contact set:
two feet (``HumanoidWBC-v0``), two feet + the right hand on the wall (``HumanoidWBCWall-v0``),
feet on the seesaw with the board in the QP (``HumanoidWBCSeesaw-v0``); there ``compute`` is the
controller's whole ``compute()`` call. Prints tables of median / p99 / max [us] and writes JSON.

    python -m benchmarks.controller_step [--steps 5000] [--solvers proxsuite daqp] [--envs ...] [--json PATH]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import gymnasium as gym
import mujoco
import numpy as np

from benchmarks.common import (
    RECORDING_PUSH_INTERVAL_S,
    RESULTS,
    machine,
    registered_env_ids,
    stats,
    write_json,
)
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


def run_env(env_id: str, steps: int, qp_solver: str = "proxsuite") -> dict[str, np.ndarray]:
    """The controller's parts, its whole ``compute()`` and ``mj_step`` [us] over ``steps`` physics
    steps of ``env_id`` in wbc mode (zero actions, pushes every 0.5-1 s, reset on termination)."""
    env = gym.make(env_id, action_mode="wbc", qp_solver=qp_solver, push_interval_s=RECORDING_PUSH_INTERVAL_S)
    base = env.unwrapped
    parts = ("update", "build", "solve", "torques")
    rows: list[list[float]] = []
    clock = time.perf_counter
    compute, mj_step = base._compute_wbc, mujoco.mj_step  # NOTE: the env's per-physics-step hooks

    def timed_compute(q, v):
        start = clock()
        result = compute(q, v)
        rows.append([base.controller.last_timings[p] for p in parts] + [1e6 * (clock() - start)])
        return result

    def timed_mj_step(model, data):
        start = clock()
        mj_step(model, data)
        if rows and len(rows[-1]) == len(parts) + 1:
            rows[-1].append(1e6 * (clock() - start))

    base._compute_wbc, mujoco.mj_step = timed_compute, timed_mj_step
    try:
        env.reset(seed=0)
        action = np.zeros(env.action_space.shape)
        while len(rows) < steps:
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
    finally:
        mujoco.mj_step = mj_step
        env.close()
    table = np.array([row for row in rows[:steps] if len(row) == len(parts) + 2])
    return {key: table[:, j] for j, key in enumerate((*parts, "compute", "mj_step"))}


def print_table(title: str, rows: dict[str, dict[str, float]], steps: int) -> None:
    print(f"\n{title}: {'part':<10} {'median [us]':>12} {'p99 [us]':>10} {'max [us]':>10}   ({steps} steps)")
    for key, row in rows.items():
        print(f"{'':<{len(title) + 2}}{key:<10} {row['median_us']:>12.1f} {row['p99_us']:>10.1f} {row['max_us']:>10.1f}")


def summarise(timings: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    return {key: stats(samples) for key, samples in timings.items()}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--solvers", nargs="+", default=["proxsuite", "daqp"], help="hot-path QP solvers to compare")
    parser.add_argument(
        "--envs", nargs="*", default=None, help="environments whose contact sets are measured (default: every "
        "registered one; none: skip)"
    )
    parser.add_argument("--json", type=Path, default=RESULTS / "controller_step.json")
    args = parser.parse_args(argv)
    start = machine()
    env_ids = registered_env_ids() if args.envs is None else args.envs
    results = {}
    for solver in args.solvers:
        rows = results[solver] = summarise(run(args.steps, solver))
        print_table(f"standing, qp_solver={solver}", rows, args.steps)
    envs: dict[str, dict[str, dict]] = {}
    for env_id in env_ids:
        for solver in args.solvers:  # solvers alternate per env: a change of load hits them alike
            rows = envs.setdefault(env_id, {})[solver] = summarise(run_env(env_id, args.steps, solver))
            print_table(f"{env_id}, qp_solver={solver}", rows, args.steps)
    if len(results) > 1:
        base = args.solvers[0]
        for solver in args.solvers[1:]:
            ratio = results[solver]["wbc_step"]["median_us"] / results[base]["wbc_step"]["median_us"]
            print(f"\nwbc_step median, {solver} / {base}: {ratio:.2f}")
    settings = {"steps": args.steps, "solvers": args.solvers, "envs": env_ids}
    write_json(args.json, settings, {"standing": results, "envs": envs}, start)
    return results


if __name__ == "__main__":
    main()
