"""Walking I's targets for the nominal generator: velocity tracking and gait quality, standing still, the tick.

For each robot, ``HumanoidWBCWalk-v0`` (wbc mode, zero action, pushes off) with one
``fixed_command`` per run for ``--seconds`` = 20 s, each from the reset states of ``--seeds``
(0, 1, 2: the reset noise differs, so the chaotic rollouts do too; the verdict is the worst
seed's):

- the issue's commands (0.4 m/s forward, 0.2 m/s sideways, 0.5 rad/s turning), clipped to the
  robot's command limits where they leave them (``info["walking"]["command_clipped"]`` is
  reported), and two slower ones (0.2 m/s forward, 0.1 m/s sideways);
- zero command for 10 s: the pelvis's horizontal drift and the steps taken.

Each run's [`WalkMetrics`][humanoid_env.episode_metrics.WalkMetrics] against the targets:
stride-averaged velocity error at most 0.05 m/s, yaw-rate error at most 0.1 rad/s, no flight phase,
slip at most 1 cm per step, no fall; standing: drift under 2 cm, no step.

The tick: a walking env (0.2 m/s forward) and a standing env (zero command) of the same robot take
turns env step by env step, both in the compiled physics loop; every controller tick is timed in
C++ (``PhysicsLoop.tick_us``, read after each of the loop's calls) and the walking generator's own
cost around the walking stage's update (``benchmarks.common.timed``), its re-plans (the MPC and
its schedule) inside that. Reports the medians, the p99s, the ratios (targets: median at most
1.2x, p99 at most 2x), the generator's cost per env step, the re-planning rate and a re-plan's
cost (the issue asks for both), and the walking env's env steps/s (one process, one core: target
600).

    python -m benchmarks.walk_targets [--robots hubo_lite g1] [--seconds 20] [--seeds 0 1 2] [--json benchmarks/results/walk_targets.json]
    python -m benchmarks.walk_targets --plot results/walking/velocity.png   # commanded vs achieved, drawn commands
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the envs)
from benchmarks.common import RESULTS, machine, stats, timed, write_json
from humanoid_env.episode_metrics import WalkMetrics
from humanoid_env.scenarios import NO_PUSHES  # the runs are on calm ground

ENV_ID = "HumanoidWBCWalk-v0"
#: (label, command): the issue's three and two the robots reach.
COMMANDS = (
    ("forward 0.4 (issue)", (0.4, 0.0, 0.0)),
    ("sideways 0.2 (issue)", (0.0, 0.2, 0.0)),
    ("turning 0.5 (issue)", (0.0, 0.0, 0.5)),
    ("forward 0.2", (0.2, 0.0, 0.0)),
    ("sideways 0.1", (0.0, 0.1, 0.0)),
)
TARGETS = {"stride_velocity_error_mps": 0.05, "stride_yaw_rate_error_radps": 0.1, "slip_m": 0.01}


def walk(robot: str, command: tuple[float, float, float], seconds: float, gait: dict | None = None, seed: int = 0) -> dict[str, Any]:
    env = gym.make(ENV_ID, robot=robot, fixed_command=command, gait=gait, **NO_PUSHES)
    env.reset(seed=seed)
    metrics = WalkMetrics()
    action = np.zeros(env.action_space.shape)
    info: dict[str, Any] = {}
    for _ in range(int(round(50 * seconds))):
        _, reward, terminated, _, info = env.step(action)
        metrics.step(reward, terminated, info)
        if terminated:
            break
    result = metrics.result()
    walking = info.get("walking", {})
    result["command_walked"] = [round(float(x), 4) for x in walking.get("command", command)]
    result["command_clipped"] = bool(walking.get("command_clipped", False))
    result["step_period_s"] = float(walking.get("step_s", float("nan")))
    result["meets"] = {key: bool(result[key] <= bound) for key, bound in TARGETS.items()} | {
        "no_fall": not result["fell"], "no_flight": result["flight_steps"] == 0}
    return result


def worst(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The worst of several seeds' runs: the largest errors, slip and flight, the smallest
    clearance, any fall; and whether each target is met by every seed."""
    out: dict[str, Any] = {key: max(r[key] for r in results) for key in (*TARGETS, "flight_steps")}
    out["fell"] = any(r["fell"] for r in results)
    out["clearance_m"] = min(r["clearance_m"] for r in results)
    out["meets"] = {key: all(r["meets"][key] for r in results) for key in results[0]["meets"]}
    return out


def stand(robot: str, seconds: float = 10.0, gait: dict | None = None) -> dict[str, Any]:
    env = gym.make(ENV_ID, robot=robot, standing_probability=1.0, gait=gait, **NO_PUSHES)
    env.reset(seed=0)
    plant = env.unwrapped.plant
    r = plant.bridge.root_qpos
    start = plant.data.qpos[r : r + 2].copy()
    info: dict[str, Any] = {}
    fell = False
    for _ in range(int(round(50 * seconds))):
        _, _, fell, _, info = env.step(np.zeros(env.action_space.shape))
        if fell:
            break
    drift = float(np.linalg.norm(plant.data.qpos[r : r + 2] - start))
    return {"fell": bool(fell), "drift_m": drift, "steps_taken": int(info["walking"]["steps_taken"]),
            "meets": {"drift_under_2cm": drift < 0.02, "no_step": info["walking"]["steps_taken"] == 0}}  # fmt: skip


def _collect_ticks(env, samples: list[float]) -> None:
    """Append each tick's time [us] of ``env``'s compiled loop to ``samples`` (its ``_run`` wrapped on the object)."""
    physics = env._compiled_physics
    run = physics._run

    def timed_run(loop, wbc, first, end, warnings):
        stop, done = run(loop, wbc, first, end, warnings)
        samples.extend(loop.tick_us[first:done].tolist())
        return stop, done

    physics._run = timed_run


def tick(robot: str, seconds: float, gait: dict | None = None) -> dict[str, Any]:
    walking = gym.make(ENV_ID, robot=robot, fixed_command=(0.2, 0.0, 0.0), gait=gait, **NO_PUSHES).unwrapped
    standing = gym.make(ENV_ID, robot=robot, standing_probability=1.0, gait=gait, **NO_PUSHES).unwrapped
    for env in (walking, standing):
        env.reset(seed=0)
    ticks = {"walking": [], "standing": []}  # each tick's time [us], from the compiled loop
    for env, samples in ((walking, ticks["walking"]), (standing, ticks["standing"])):
        env.step(np.zeros(env.action_space.shape))  # makes its compiled loop
        _collect_ticks(env, samples)
    stage_s: list[float] = []  # each walking-stage update's wall time [s]
    stage = walking.task.walker
    stage.update = timed(stage.update, [0.0], samples=stage_s)
    replan_s: list[float] = []  # each of the generator's re-plans [s] (inside the stage's updates)
    generator = stage.generator
    generator._replan = timed(generator._replan, [0.0], samples=replan_s)
    action = np.zeros(walking.action_space.shape)
    env_step_s = []
    for _ in range(int(round(50 * seconds))):
        start = time.perf_counter()
        walking.step(action)
        env_step_s.append(time.perf_counter() - start)
        standing.step(action)
    assert walking.physics_loop_obstacle is None and standing.physics_loop_obstacle is None, "the compiled loop ran"
    walk_ticks, stand_ticks = ticks["walking"], ticks["standing"]
    w, s = stats(walk_ticks), stats(stand_ticks)
    frame_skip = walking.frame_skip
    return {
        "walking_tick_us": w, "standing_tick_us": s, "ticks_timed": {"walking": len(walk_ticks), "standing": len(stand_ticks)},
        "median_ratio": w["median_us"] / s["median_us"], "p99_ratio": w["p99_us"] / s["p99_us"],
        "generator_us_per_env_step": float(np.mean(stage_s)) * 1e6 * frame_skip,
        "generator_per_tick_us": stats(np.array(stage_s) * 1e6),
        "replans_per_env_step": len(replan_s) / len(env_step_s), "replan_us": stats(np.array(replan_s) * 1e6),
        "walking_env_steps_per_s": 1.0 / float(np.median(env_step_s)),
    }  # fmt: skip


def velocity_trace(robot: str, seconds: float, seed: int = 100) -> dict[str, np.ndarray]:
    """One episode of drawn commands (the env's defaults, pushes off): time [s], command and the pelvis's
    velocity in its heading frame (3 columns each: forward, left [m/s], yaw rate [rad/s])."""
    env = gym.make(ENV_ID, robot=robot, **NO_PUSHES)
    env.reset(seed=seed)
    times, commands, measured, strides = [], [], [], []
    for _ in range(int(round(50 * seconds))):
        _, _, terminated, _, info = env.step(np.zeros(env.action_space.shape))
        times.append(float(info["time"]))
        commands.append(np.asarray(info["walking"]["command"], dtype=float))
        measured.append(np.asarray(info["base_velocity_heading"], dtype=float))
        strides.append(2.0 * float(info["walking"]["step_s"]))
        if terminated:
            break
    return {"time": np.array(times), "command": np.array(commands), "measured": np.array(measured), "stride_s": np.array(strides)}


def stride_mean(values: np.ndarray, stride_s: np.ndarray, dt: float = 0.02) -> np.ndarray:
    """Each sample's centred mean over the stride walked then (``stride_s`` [s] per sample)."""
    out = np.empty_like(values)
    for i, stride in enumerate(stride_s):
        half = max(1, round(stride / dt)) // 2
        out[i] = values[max(0, i - half) : i + half + 1].mean()
    return out


def plot_velocity(traces: dict[str, dict[str, np.ndarray]], path: Path) -> None:
    """Commanded (walked, after clipping) against achieved velocity, one column per robot; the
    achieved one also averaged over the stride walked (two steps)."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    labels = ("forward [m/s]", "sideways [m/s]", "yaw rate [rad/s]")
    fig, axes = plt.subplots(3, len(traces), figsize=(6 * len(traces), 7), sharex=True, squeeze=False)
    for column, (robot, trace) in enumerate(traces.items()):
        for row in range(3):
            ax = axes[row, column]
            ax.plot(trace["time"], trace["measured"][:, row], color="0.75", lw=0.8, label="achieved")
            smooth = stride_mean(trace["measured"][:, row], trace["stride_s"])
            ax.plot(trace["time"], smooth, color="C0", lw=1.5, label="achieved, stride mean")
            ax.plot(trace["time"], trace["command"][:, row], color="C3", lw=1.5, label="command")
            ax.set_ylabel(labels[row])
            if row == 0:
                ax.set_title(f"{robot}: HumanoidWBCWalk-v0, nominal generator")
        axes[-1, column].set_xlabel("time [s]")
    axes[0, 0].legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="+", default=["hubo_lite", "g1"])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--json", type=Path, default=RESULTS / "walk_targets.json")
    parser.add_argument("--gait", type=json.loads, default=None, help="GaitSettings fields as JSON (default: the env's)")
    parser.add_argument("--plot", type=Path, default=None, help="PNG of commanded against achieved velocity (drawn commands, seed 100)")
    args = parser.parse_args(argv)
    if args.plot is not None:
        plot_velocity({robot: velocity_trace(robot, args.seconds) for robot in args.robots}, args.plot)
        print(f"wrote {args.plot}")
        return
    machine_start = machine()
    out: dict[str, Any] = {}
    for robot in args.robots:
        runs: dict[str, Any] = {}
        for label, command in COMMANDS:
            seeds = {seed: walk(robot, command, args.seconds, args.gait, seed) for seed in args.seeds}
            for seed, r in seeds.items():
                print(f"{robot:9s} {label:22s} seed {seed} walked {r['command_walked']} (T {r['step_period_s']:.3f} s) "
                      f"fell {r['fell']!s:5s} stride error {r['stride_velocity_error_mps']:.3f} m/s, "
                      f"yaw {r['stride_yaw_rate_error_radps']:.3f} rad/s, step {r['step_length_m']:.3f} m, "
                      f"clearance {r['clearance_m']:.3f} m, slip {r['slip_m'] * 1e3:.1f} mm, flight {r['flight_steps']}, "
                      f"cost of transport {r['cost_of_transport']:.2f}")  # fmt: skip
            runs[label] = {"seeds": {str(seed): r for seed, r in seeds.items()}, "worst": worst(list(seeds.values()))}
            print(f"{robot:9s} {label:22s} worst of {len(seeds)}: {runs[label]['worst']}")
        standing = stand(robot, gait=args.gait)
        print(f"{robot:9s} zero command: drift {standing['drift_m'] * 1e3:.2f} mm, steps {standing['steps_taken']}, fell {standing['fell']}")
        timing = tick(robot, min(args.seconds, 10.0), args.gait)
        print(f"{robot:9s} tick walking / standing: median {timing['walking_tick_us']['median_us']:.1f} / {timing['standing_tick_us']['median_us']:.1f} us "
              f"({timing['median_ratio']:.2f}x), p99 {timing['walking_tick_us']['p99_us']:.1f} / {timing['standing_tick_us']['p99_us']:.1f} us "
              f"({timing['p99_ratio']:.2f}x); generator {timing['generator_us_per_env_step']:.0f} us per env step, of which "
              f"{timing['replans_per_env_step']:.2f} re-plans of {timing['replan_us']['median_us']:.0f} us (median); "
              f"walking env {timing['walking_env_steps_per_s']:.0f} env steps/s")  # fmt: skip
        out[robot] = {"runs": runs, "standing": standing, "tick": timing}
    write_json(args.json, {"robots": args.robots, "seconds": args.seconds, "seeds": args.seeds, "gait": args.gait}, out, machine_start)


if __name__ == "__main__":
    main()
