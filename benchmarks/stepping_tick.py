"""The controller tick through stepping episodes against the same robot's standing tick, measured side by side.

Two envs of ``HumanoidWBC-v0`` with ``stepping=True`` (wbc mode, the compiled backend, random
pushes off) per robot: one stands (no push: its law never steps, so its ticks are the standing
controller's: two supporting feet, no swing tasks active), the other is pushed forward by
``--impulse-ns`` (default: 1.1x the ankle-strategy capture bound of the home stance, so the law
steps) for 0.1 s at 1.5 s, and runs ``--episode-s`` = 4 s per episode. The two take turns env
step by env step, so a change of machine load hits both alike. Every controller tick (the whole
``compute()`` call: model update, QP build and solve, torques) is timed with
``time.perf_counter_ns`` around ``actuation.compute`` and filed under the stepping env's phase at
that tick (``standing``, ``unloading``, ``swing`` = single support, ``loading``).

Prints and writes, per robot: median / p99 / max [us] of the standing env's ticks and of the
stepping env's (all, and per phase), the ratios ``stepping / standing`` of the medians and of the
p99s (the stepping issue's targets: median at most 1.2x, p99 at most 2x), and how many steps the
episodes took.

    python -m benchmarks.stepping_tick [--robots hubo_lite g1] [--episodes 10] [--impulse-ns N]
        [--json benchmarks/results/stepping_tick.json]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from benchmarks.common import RESULTS, machine, stats, write_json
from benchmarks.push_envelope import ScriptedPush
from benchmarks.stepping_pairs import ankle_bound_now

PUSH_TIME_S = 1.5
PUSH_DURATION_S = 0.1
#: The default push: this multiple of the home stance's ankle bound (forward).
BOUND_FACTOR = 1.1


class TimedCompute:
    """Wraps ``actuation.compute``: the wall-clock time of each tick [us], filed by ``label()``."""

    def __init__(self, actuation, label):
        self.inner, self.label = actuation.compute, label
        self.samples: dict[str, list[float]] = {}
        actuation.compute = self

    def __call__(self, q, v, body_states=None):
        start = time.perf_counter_ns()
        result = self.inner(q, v, body_states)
        self.samples.setdefault(self.label(), []).append((time.perf_counter_ns() - start) * 1e-3)
        return result


def make_env(robot: str):
    return gym.make("HumanoidWBC-v0", robot=robot, stepping=True, push_magnitude_n=(0.0, 0.0), com_target_range_m=(0, 0, 0)).unwrapped


def home_ankle_bound(env) -> float:
    """The forward ankle-strategy bound [N s] of the home stance at rest."""
    env.reset(seed=0)
    return ankle_bound_now(env, np.array([1.0, 0.0]))


def measure(robot: str, episodes: int, episode_s: float, impulse_ns: float | None, bound_factor: float = BOUND_FACTOR) -> dict[str, Any]:
    standing, stepping = make_env(robot), make_env(robot)
    bound = home_ankle_bound(stepping)
    impulse = bound_factor * bound if impulse_ns is None else float(impulse_ns)
    force = np.array([impulse / PUSH_DURATION_S, 0.0, 0.0])
    standing_timer = TimedCompute(standing.actuation, lambda: "standing")
    stepping_timer = TimedCompute(stepping.actuation, lambda: stepping.task.stepper.law.phase)
    zero = np.zeros(standing.action_space.shape)
    steps, falls = [], 0
    for episode in range(episodes):
        stepping.plant.pushes = ScriptedPush(force, PUSH_TIME_S, PUSH_DURATION_S, stepping.dt_physics)
        standing.reset(seed=episode)
        stepping.reset(seed=episode)
        fell = False
        while stepping.data.time < episode_s - 0.5 * stepping.dt_physics:
            standing.step(zero)
            if not fell:
                stepping.step(zero)
                fell = stepping.fell
            else:
                break
        falls += fell
        steps.append(stepping.task.stepper.law.steps_taken)
    standing_samples = standing_timer.samples["standing"]
    out: dict[str, Any] = {
        "impulse_ns": impulse, "ankle_bound_ns": bound, "episodes": episodes, "falls": falls, "steps_per_episode": steps,
        "standing": stats(standing_samples), "stepping": {},
    }  # fmt: skip
    every = [x for samples in stepping_timer.samples.values() for x in samples]
    for phase, samples in {"all": every, **stepping_timer.samples}.items():
        out["stepping"][phase] = {**stats(samples), "ticks": len(samples)}
    base = out["standing"]
    out["ratio_median"] = {phase: row["median_us"] / base["median_us"] for phase, row in out["stepping"].items()}
    out["ratio_p99"] = {phase: row["p99_us"] / base["p99_us"] for phase, row in out["stepping"].items()}
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="+", default=["hubo_lite", "g1"])
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--episode-s", type=float, default=4.0)
    parser.add_argument("--impulse-ns", type=float, default=None, help="the push [N s] (default: --bound-factor x the ankle bound)")
    parser.add_argument("--bound-factor", type=float, default=BOUND_FACTOR, help=f"the push as a multiple of each robot's forward ankle bound (default {BOUND_FACTOR})")
    parser.add_argument("--json", type=Path, default=RESULTS / "stepping_tick.json")
    args = parser.parse_args(argv)
    start = machine()
    results = {}
    for robot in args.robots:
        row = results[robot] = measure(robot, args.episodes, args.episode_s, args.impulse_ns, args.bound_factor)
        print(f"{robot}: push {row['impulse_ns']:.1f} N s (ankle bound {row['ankle_bound_ns']:.1f}), steps per episode "
              f"{row['steps_per_episode']}, falls {row['falls']}/{args.episodes}")  # fmt: skip
        s = row["standing"]
        print(f"  {'standing':10s} median {s['median_us']:7.1f}  p99 {s['p99_us']:7.1f}  max {s['max_us']:8.1f} us")
        for phase, r in row["stepping"].items():
            print(f"  {phase:10s} median {r['median_us']:7.1f}  p99 {r['p99_us']:7.1f}  max {r['max_us']:8.1f} us  "
                  f"({r['ticks']} ticks)  x{row['ratio_median'][phase]:.2f} median, x{row['ratio_p99'][phase]:.2f} p99")  # fmt: skip
    write_json(args.json, vars(args) | {"json": str(args.json)}, results, start)


if __name__ == "__main__":
    main()
