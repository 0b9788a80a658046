"""What two processes get out of this machine: the ceiling for 2 ``SubprocVecEnv`` workers and for 2 Ray trials.

Two independent processes, each stepping its own ``HumanoidWBC-v0`` (wbc mode, random actions,
resets on termination) with no communication, against one such process alone; and the same
for a pure-Python arithmetic loop (no memory traffic, no library code). Each process counts
what it completes in a fixed window of ``--seconds`` after a warm-up; the 1- and 2-process runs
alternate for ``--rounds`` rounds. Reported: the total rate of 2 processes over 1 (medians of
the rounds). On 2 idle cores that run independently the ratio is 2; below it, the two cores
share something (a physical core, caches, memory bandwidth, a clock that drops with load).
``SubprocVecEnv``'s speed-up (``benchmarks.env_throughput``) and the Ray sweep's (``training.ray_sweep``
timing) cannot exceed it. Not a test: it prints and writes JSON.

    python -m benchmarks.parallel_ceiling [--seconds 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import time

from benchmarks.common import RESULTS, machine, write_json

WORKLOADS = ("env", "arithmetic")


def _count(workload: str, seconds: float, warmup_s: float, start: float, out) -> None:
    """Run ``workload`` until ``start + warmup_s + seconds`` (wall clock); put the count of the window."""
    if workload == "env":
        import gymnasium as gym
        import numpy as np

        import humanoid_env  # noqa: F401  (registers the environments)

        env = gym.make("HumanoidWBC-v0")
        env.reset(seed=0)
        rng = np.random.default_rng(0)

        def unit() -> None:
            _, _, terminated, truncated, _ = env.step(rng.uniform(-1.0, 1.0, 4))
            if terminated or truncated:
                env.reset()
    else:

        def unit() -> None:
            x = 0
            for i in range(1000):
                x += i * i
    clock = time.perf_counter
    while time.time() < start + warmup_s:
        unit()
    count, t0, end = 0, clock(), start + warmup_s + seconds
    while time.time() < end:
        unit()
        count += 1
    out.put(count / (clock() - t0))


def rate(workload: str, processes: int, seconds: float, warmup_s: float) -> float:
    """Total units/s of ``processes`` processes running ``workload`` at once."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start = time.time() + 5.0  # after every process has imported
    procs = [ctx.Process(target=_count, args=(workload, seconds, warmup_s, start, out)) for _ in range(processes)]
    for p in procs:
        p.start()
    rates = [out.get() for _ in procs]
    for p in procs:
        p.join()
    return sum(rates)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="counting window per run [s]")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up before the window [s]")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", default=str(RESULTS / "parallel_ceiling.json"))
    args = parser.parse_args(argv)
    start = machine()
    results: dict[str, dict] = {}
    for workload in WORKLOADS:
        runs = {1: [], 2: []}
        for _ in range(args.rounds):
            for n in (1, 2):
                runs[n].append(rate(workload, n, args.seconds, args.warmup))
        one, two = statistics.median(runs[1]), statistics.median(runs[2])
        results[workload] = {"one": one, "two": two, "ratio": two / one, "runs": {str(n): r for n, r in runs.items()}}
        unit = "env steps/s" if workload == "env" else "loops/s"
        print(f"{workload:>10}: 1 process {one:,.0f} {unit}, 2 processes {two:,.0f}: {two / one:.2f}x", flush=True)
    write_json(args.json, vars(args), results, start)
    return results


if __name__ == "__main__":
    main()
