"""Run every benchmark, one process each, in the order below; each prints its table and JSON.

    python -m benchmarks.run_all            # the default sizes (minutes)
    python -m benchmarks.run_all --quick    # tiny sizes: checks that everything runs

At the end, a summary read back from the JSON files of this run: the whole-tick median
(``controller_step``: ``wbc_step`` standing, ``compute`` in the envs; ``scaling``: ``compute()``)
and the time per wbc env step (``env_throughput``). (Until issue 36 retired the Python reference
tick, each ran both backends and the summary gave ``python / compiled``.)

Each benchmark writes ``benchmarks/results/<name>.json``; run one alone with
``python -m benchmarks.<name> --help``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"
BACKEND = "compiled"  # the level the controller benchmarks' JSON keeps per backend
#: benchmark module -> arguments for a quick run.
BENCHMARKS: dict[str, list[str]] = {
    "controller_step": ["--steps", "200"],
    "qp_backends": ["--problems", "50"],
    "scaling": ["--steps", "100"],
    "env_throughput": ["--block", "10", "--rounds", "2"],
    "env_overhead": ["--steps", "20"],
    "physics_loop": ["--block", "10", "--rounds", "2", "--vector-block", "4", "--sizes", "2"],
}
#: the benchmarks that run the controller (their whole tick is summarised).
WITH_TICKS = ("controller_step", "scaling", "env_throughput")


def _median(by_backend: dict, solver: str, key: str) -> float | None:
    """The median of ``key`` for ``solver``; None where it did not run."""
    return by_backend.get(BACKEND, {}).get(solver, {}).get(key, {}).get("median_us")


def summary_rows(name: str, results: dict) -> list[tuple[str, float | None, str]]:
    """``(row, median, unit)`` whole-tick medians of one benchmark's JSON results."""
    rows: list[tuple[str, float | None, str]] = []
    if name == "controller_step":
        standing = results.get("standing", {})
        for solver in sorted({s for by_solver in standing.values() for s in by_solver}):
            rows.append((f"standing, {solver}", _median(standing, solver, "wbc_step"), "us"))
        for env_id, by_actions in results.get("envs", {}).items():
            for actions, by_backend in by_actions.items():
                for solver in sorted({s for by_solver in by_backend.values() for s in by_solver}):
                    rows.append((f"{env_id}, {actions} actions, {solver}", _median(by_backend, solver, "compute"), "us"))
    elif name == "scaling":
        for group, configurations in results.items():
            for configuration, row in configurations.items():
                median = row.get("backends", {}).get(BACKEND, {}).get("compute", {}).get("median_us")
                rows.append((f"{group}: {configuration}", median, "us"))
    elif name == "env_throughput":
        for env_id, row in results.get("modes", {}).items():
            wbc = row.get("wbc", {})
            median = 1e6 / wbc[BACKEND]["steps_per_s"] if BACKEND in wbc else None
            rows.append((f"{env_id}, wbc env step (1 / median steps/s)", median, "us"))
    return rows


def print_summary(names: list[str]) -> None:
    """The whole-tick medians, from this run's JSON files."""
    print("\n### whole tick, median [us]")
    print(f"  {'benchmark':<17}{'row':<58}{'median':>10}")
    for name in names:
        path = RESULTS / f"{name}.json"
        if not path.is_file():
            continue
        for row, median, _ in summary_rows(name, json.loads(path.read_text())["results"]):
            print(f"  {name:<17}{row:<58}{'-' if median is None else f'{median:.1f}':>10}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run, numbers meaningless)")
    parser.add_argument("--only", nargs="+", choices=list(BENCHMARKS), default=list(BENCHMARKS))
    args = parser.parse_args(argv)
    failed, done = [], []
    for name in args.only:
        command = [sys.executable, "-m", f"benchmarks.{name}", *(BENCHMARKS[name] if args.quick else [])]
        print(f"\n### {' '.join(command[1:])}   (load average {os.getloadavg()[0]:.2f})", flush=True)
        if subprocess.run(command, cwd=ROOT).returncode != 0:
            failed.append(name)
        else:
            done.append(name)
    print_summary([name for name in done if name in WITH_TICKS])
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
