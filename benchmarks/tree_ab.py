"""Env steps (or controller ticks) per second of two checkouts, side by side: did a change make them slower?

Each checkout gets one worker process per case (an env id and action mode), started once; the
parent then asks the workers in turn, A then B then A ..., to run a block of env steps (random
actions from a seeded generator, resets on termination or truncation counted in), so both trees see
the same machine load within a round. Per case: the median over the rounds of the time per env
step in B over A (below 1: B is faster), the spread of the per-round ratios (min, max) and each
tree's median steps/s. Only one worker runs at a time.

``--measure tick`` times the controller's tick alone instead of the env step: the wall time of
each ``compute()`` call within the block (``benchmarks.env_throughput.time_compute`` on
``Actuation.compute``, the env's hook for this: the whole tick, model update to torques, as
``benchmarks.controller_step``'s ``compute`` row), per tick (``frame_skip`` per env step), in the wbc-mode envs of both robots. A change to the controller shows there undiluted by
MuJoCo and the env.

    python -m benchmarks.tree_ab --a /path/to/old/checkout --b . [--rounds 15] [--block 100]
        [--measure env_step|tick] [--cases ENV:MODE[:ROBOT] ...] [--action-scale 1] [--json out.json]

A checkout other than the installed one is run with this virtualenv, put first on ``sys.path``
without the editable install's finder; it needs its compiled core (``wbc_layer/_core*.so``) and
``cmeel.prefix`` beside it (copy and link them from the installed tree).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import machine, write_json

CASES = (
    ("HumanoidWBC-v0", "wbc"),
    ("HumanoidWBC-v0", "torque"),
    ("HumanoidWBCWall-v0", "wbc"),
    ("HumanoidWBCSeesaw-v0", "wbc"),
)
#: ``--measure tick``: (env id, robot), wbc mode.
TICK_CASES = (
    ("HumanoidWBC-v0", "hubo_lite"),
    ("HumanoidWBCWall-v0", "hubo_lite"),
    ("HumanoidWBCSeesaw-v0", "hubo_lite"),
    ("HumanoidWBC-v0", "g1"),
    ("HumanoidWBCSeesaw-v0", "g1"),
)

#: The worker: reads a block size per line, runs that many env steps, prints the seconds they took.
WORKER = r"""
import importlib.util, os, sys, time
tree = sys.argv[1]
installed = importlib.util.find_spec("humanoid_env")
if installed is None or not os.path.realpath(installed.origin).startswith(tree + os.sep):  # another checkout
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower() and "editable" not in type(f).__name__.lower()]
    sys.path.insert(0, tree)
import gymnasium as gym, numpy as np
import humanoid_env
assert os.path.realpath(humanoid_env.__file__).startswith(tree + os.sep), (humanoid_env.__file__, tree)
env_id, mode, robot, measure, scale = sys.argv[2:7]
env = gym.make(env_id, action_mode=mode, **({} if robot == "default" else {"robot": robot}))
rng = np.random.default_rng(0)
env.reset(seed=0)
low, high = float(scale) * env.action_space.low, float(scale) * env.action_space.high
if measure == "tick":  # the tree's own timer of the controller's compute() calls
    from benchmarks.env_throughput import time_compute
    in_compute = time_compute(env.unwrapped)
    ticks_per_step = env.unwrapped.frame_skip  # every env step runs frame_skip ticks
def block(n):
    for _ in range(n):
        _, _, terminated, truncated, _ = env.step(rng.uniform(low, high).astype(np.float32))
        if terminated or truncated:
            env.reset()
block(20)  # warm-up
print("ready", flush=True)
for line in sys.stdin:
    n = int(line)
    if measure == "tick":
        in_compute[0] = 0.0
    start = time.perf_counter()
    block(n)
    elapsed = time.perf_counter() - start
    print(elapsed / n if measure == "env_step" else in_compute[0] / (n * ticks_per_step), flush=True)
"""


class Worker:
    """One env in one checkout, in its own process."""

    def __init__(self, tree: Path, env_id: str, mode: str, robot: str = "default", measure: str = "env_step", action_scale: float = 1.0):
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER, os.path.realpath(tree), env_id, mode, robot, measure, repr(float(action_scale))],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        line = self.process.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(f"worker for {tree} {env_id} {mode} did not start (got {line!r})")

    def run(self, steps: int) -> float:
        """Seconds per env step (or per tick) over ``steps`` env steps."""
        self.process.stdin.write(f"{steps}\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def measure(
    a: Path, b: Path, env_id: str, mode: str, rounds: int, block: int, robot: str = "default", what: str = "env_step",
    action_scale: float = 1.0,
) -> dict:
    """Alternating blocks of ``block`` steps, ``rounds`` rounds (A first in even rounds, B in odd)."""
    workers = {"a": Worker(a, env_id, mode, robot, what, action_scale), "b": Worker(b, env_id, mode, robot, what, action_scale)}
    times = {"a": [], "b": []}
    try:
        for r in range(rounds):
            for key in ("a", "b") if r % 2 == 0 else ("b", "a"):
                times[key].append(workers[key].run(block))
    finally:
        for worker in workers.values():
            worker.close()
    ratios = [tb / ta for ta, tb in zip(times["a"], times["b"], strict=True)]
    return {
        "ratio_b_over_a_median": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
        "a_steps_per_s_median": 1.0 / statistics.median(times["a"]),
        "b_steps_per_s_median": 1.0 / statistics.median(times["b"]),
        "rounds": rounds,
        "block": block,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", type=Path, required=True, help="the checkout a change starts from")
    parser.add_argument("--b", type=Path, required=True, help="the changed checkout")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--block", type=int, default=100, help="env steps per block")
    parser.add_argument("--measure", choices=("env_step", "tick"), default="env_step",
                        help="time whole env steps, or the controller's compute() calls within them")
    parser.add_argument("--cases", nargs="+", metavar="ENV:MODE[:ROBOT]",
                        help="env step cases instead of the default ones (e.g. HumanoidWBCWalk-v0:wbc:g1)")
    parser.add_argument("--action-scale", type=float, default=1.0,
                        help="random actions uniform in +-this (default 1, the whole box; PPO explores with about 0.1-0.4)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results = {}
    machine_start = machine()
    start = time.time()
    cases = CASES if args.measure == "env_step" else [(env_id, "wbc", robot) for env_id, robot in TICK_CASES]
    if args.cases:
        cases = [tuple(case.split(":")) for case in args.cases]
    unit = "steps/s" if args.measure == "env_step" else "ticks/s"
    for env_id, mode, *robot in cases:
        robot = robot[0] if robot else "default"
        row = measure(args.a, args.b, env_id, mode, args.rounds, args.block, robot, args.measure, args.action_scale)
        key = f"{env_id}/{mode}" + ("" if robot == "default" else f"/{robot}")
        results[key] = row
        print(
            f"{key:>34}  B/A {row['ratio_b_over_a_median']:.3f} (min {row['ratio_min']:.3f}, max {row['ratio_max']:.3f})"
            f"  A {row['a_steps_per_s_median']:.0f} {unit}  B {row['b_steps_per_s_median']:.0f} {unit}",
            flush=True,
        )
    print(f"{time.time() - start:.0f} s")
    if args.json:
        settings = {
            "a": str(args.a), "b": str(args.b), "rounds": args.rounds, "block": args.block, "measure": args.measure,
            "action_scale": args.action_scale,
            "cases": [list(c) for c in cases],
        }  # fmt: skip
        write_json(args.json, settings, results, machine_start)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
