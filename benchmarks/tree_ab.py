"""Env steps per second of two checkouts, side by side: did a change make an env slower?

Each checkout gets one worker process per case (an env id and action mode), started once; the
parent then asks the workers in turn, A then B then A ..., to run a block of env steps (random
actions from a seeded generator, resets on termination or truncation counted in), so both trees see
the same machine load within a round. Per case: the median over the rounds of the time per env
step in B over A (below 1: B is faster), the spread of the per-round ratios (min, max) and each
tree's median steps/s. Only one worker runs at a time.

    python -m benchmarks.tree_ab --a /path/to/old/checkout --b . [--rounds 15] [--block 100] [--json out.json]

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
env = gym.make(sys.argv[2], action_mode=sys.argv[3])
rng = np.random.default_rng(0)
env.reset(seed=0)
low, high = env.action_space.low, env.action_space.high
def block(n):
    for _ in range(n):
        _, _, terminated, truncated, _ = env.step(rng.uniform(low, high).astype(np.float32))
        if terminated or truncated:
            env.reset()
block(20)  # warm-up
print("ready", flush=True)
for line in sys.stdin:
    n = int(line)
    start = time.perf_counter()
    block(n)
    print(time.perf_counter() - start, flush=True)
"""


class Worker:
    """One env in one checkout, in its own process."""

    def __init__(self, tree: Path, env_id: str, mode: str):
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER, os.path.realpath(tree), env_id, mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        line = self.process.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(f"worker for {tree} {env_id} {mode} did not start (got {line!r})")

    def run(self, steps: int) -> float:
        """Seconds for ``steps`` env steps."""
        self.process.stdin.write(f"{steps}\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def measure(a: Path, b: Path, env_id: str, mode: str, rounds: int, block: int) -> dict:
    """Alternating blocks of ``block`` steps, ``rounds`` rounds (A first in even rounds, B in odd)."""
    workers = {"a": Worker(a, env_id, mode), "b": Worker(b, env_id, mode)}
    times = {"a": [], "b": []}
    try:
        for r in range(rounds):
            for key in ("a", "b") if r % 2 == 0 else ("b", "a"):
                times[key].append(workers[key].run(block) / block)
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
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results = {}
    machine_start = machine()
    start = time.time()
    for env_id, mode in CASES:
        row = measure(args.a, args.b, env_id, mode, args.rounds, args.block)
        results[f"{env_id}/{mode}"] = row
        print(
            f"{env_id:>22} {mode:>6}  B/A {row['ratio_b_over_a_median']:.3f} (min {row['ratio_min']:.3f}, max {row['ratio_max']:.3f})"
            f"  A {row['a_steps_per_s_median']:.0f} steps/s  B {row['b_steps_per_s_median']:.0f} steps/s",
            flush=True,
        )
    print(f"{time.time() - start:.0f} s")
    if args.json:
        settings = {"a": str(args.a), "b": str(args.b), "rounds": args.rounds, "block": args.block, "cases": [list(c) for c in CASES]}
        write_json(args.json, settings, results, machine_start)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
