"""What a Ray sweep costs over its trials: N single-CPU training runs as one sweep against one run alone.

Side by side in one process, on an otherwise idle machine: first one run alone,
``python -m training.train --env ENV --algo ppo --n-envs 1 --timesteps T --seed 100``, then the
sweep ``python -m training.train ... --seeds 0 .. N-1 --num-cpus C`` (Ray Tune, one CPU per trial,
so C at a time; or ``--address HOST:PORT``: the same command against a running cluster), each timed
from its start to its exit (Ray's start and stop included). Reported: both wall times, their ratio,
the ideal ratio ``ceil(N / C)`` (the runs' own work, no overhead), and each run's training wall time
and steps/s from its ``train_info.json``. The runs' periodic evaluation and checkpoints are off
(``eval_freq=0 checkpoint_freq=0``): this times training and the sweep's own overhead.

    python -m benchmarks.sweep_timing --timesteps 200000 --trials 6 --json results/ray_sweep/sweep_timing.json

The issue's target: 6 trials of at least 5 minutes each on this 2-core machine within 3.3x one alone.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import machine, write_json
from training.run_folder import INFO_FILE

ROOT = Path(__file__).resolve().parents[1]


def timed(command: list[str]) -> float:
    """Run ``command`` in the repository root; its wall time [s]; raise with its output on failure."""
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall


def run_info(run_dir: Path) -> dict:
    info = json.loads((run_dir / INFO_FILE).read_text())
    return {"wall_s": info["wall_s"], "steps_per_s": info["steps_per_s"], "timesteps": info["timesteps"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sweep_timing", description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="HumanoidWBC-v0")
    parser.add_argument("--timesteps", type=int, default=200_000, help="steps per run (200k: about 7 min in wbc mode, one env, on an idle core)")
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--num-cpus", type=int, default=os.cpu_count(), help="local Ray's CPUs (not with --address)")
    parser.add_argument("--address", default=None, help="a running Ray cluster (HOST:PORT) instead of a local Ray")
    parser.add_argument("--json", type=Path, default=ROOT / "results" / "ray_sweep" / "sweep_timing.json")
    args = parser.parse_args(argv)
    if args.trials < 1 or args.timesteps < 1:
        parser.error("--trials and --timesteps: at least 1")

    machine_start = machine()
    folder = Path(tempfile.mkdtemp(prefix="sweep-timing-", dir=ROOT / "runs" if (ROOT / "runs").is_dir() else None))
    base = [sys.executable, "-m", "training.train", "--env", args.env, "--algo", "ppo", "--n-envs", "1",
            "--timesteps", str(args.timesteps), "--no-progress-bar", "--verbose", "0",
            "--params", "eval_freq=0", "checkpoint_freq=0"]  # fmt: skip
    where = ["--address", args.address] if args.address else ["--num-cpus", str(args.num_cpus)]
    try:
        print(f"one run alone ({args.timesteps} steps) ...", flush=True)
        alone_s = timed([*base, "--seed", "100", "--run-dir", str(folder / "alone")])
        print(f"  {alone_s:.0f} s; the sweep of {args.trials} ...", flush=True)
        seeds = [str(s) for s in range(args.trials)]
        sweep_s = timed([*base, "--seeds", *seeds, "--run-dir", str(folder / "sweep"), *where])
        runs = {"alone": run_info(folder / "alone")}
        runs.update({f"s{s}": run_info(folder / "sweep" / f"s{s}") for s in seeds})
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    slots = args.num_cpus if not args.address else None
    ideal = math.ceil(args.trials / slots) if slots else None
    ratio = sweep_s / alone_s
    print(f"\none alone: {alone_s:.0f} s; {args.trials} as a sweep: {sweep_s:.0f} s; ratio {ratio:.2f}"
          + (f" (ideal {ideal}: {slots} at a time)" if ideal else ""))  # fmt: skip
    for name, info in runs.items():
        print(f"  {name:>6}: trained {info['wall_s']:.0f} s at {info['steps_per_s']:.0f} steps/s")
    write_json(
        args.json,
        {"env": args.env, "timesteps": args.timesteps, "trials": args.trials, "num_cpus": args.num_cpus,
         "address": args.address},
        {"alone_s": alone_s, "sweep_s": sweep_s, "ratio": ratio, "ideal_ratio": ideal, "runs": runs},
        machine_start,
    )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
