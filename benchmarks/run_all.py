"""Run every benchmark, one process each, in the order below; each prints its table and JSON.

    python -m benchmarks.run_all            # the default sizes (minutes: both backends in each)
    python -m benchmarks.run_all --quick    # tiny sizes: checks that everything runs
    python -m benchmarks.run_all --backends compiled    # one controller backend only

Both controller backends (``compiled``: the tick in C++; ``python``: the reference) run side by
side in each benchmark that runs the controller (``--backends``, passed on; ``qp_backends``
solves recorded QPs outside any controller and has no such option). At the end, a summary read
back from the JSON files of this run: the whole-tick median per backend and their ratio
``python / compiled`` (``controller_step``: ``wbc_step`` standing, ``compute`` in the envs;
``scaling``: ``compute()``), and the time per wbc env step (``env_throughput``).

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
BACKENDS = ("compiled", "python")
#: benchmark module -> arguments for a quick run.
BENCHMARKS: dict[str, list[str]] = {
    "controller_step": ["--steps", "200"],
    "qp_backends": ["--problems", "50"],
    "scaling": ["--steps", "100"],
    "env_throughput": ["--block", "10", "--rounds", "2"],
    "env_overhead": ["--steps", "20"],
}
#: the benchmarks that run the controller and take ``--backends``.
WITH_BACKENDS = ("controller_step", "scaling", "env_throughput")


def _medians(by_backend: dict, solver: str, key: str) -> tuple[float | None, float | None]:
    """(compiled, python) medians of ``key`` for ``solver``; None where a backend did not run."""
    return tuple(by_backend.get(b, {}).get(solver, {}).get(key, {}).get("median_us") for b in BACKENDS)


def summary_rows(name: str, results: dict) -> list[tuple[str, float | None, float | None, str]]:
    """``(row, compiled, python, unit)`` whole-tick medians of one benchmark's JSON results."""
    rows: list[tuple[str, float | None, float | None, str]] = []
    if name == "controller_step":
        standing = results.get("standing", {})
        for solver in sorted({s for by_solver in standing.values() for s in by_solver}):
            rows.append((f"standing, {solver}", *_medians(standing, solver, "wbc_step"), "us"))
        for env_id, by_actions in results.get("envs", {}).items():
            for actions, by_backend in by_actions.items():
                for solver in sorted({s for by_solver in by_backend.values() for s in by_solver}):
                    rows.append((f"{env_id}, {actions} actions, {solver}", *_medians(by_backend, solver, "compute"), "us"))
    elif name == "scaling":
        for group, configurations in results.items():
            for configuration, row in configurations.items():
                timing = row.get("backends", {})
                compiled, python = (timing.get(b, {}).get("compute", {}).get("median_us") for b in BACKENDS)
                rows.append((f"{group}: {configuration}", compiled, python, "us"))
    elif name == "env_throughput":
        for env_id, row in results.get("modes", {}).items():
            wbc = row.get("wbc", {})
            compiled, python = (1e6 / wbc[b]["steps_per_s"] if b in wbc else None for b in BACKENDS)
            rows.append((f"{env_id}, wbc env step (1 / median steps/s)", compiled, python, "us"))
    return rows


def print_summary(names: list[str]) -> None:
    """The whole-tick medians of both backends and python / compiled, from this run's JSON files."""
    print("\n### whole tick, median per backend [us] and python / compiled")
    print(f"  {'benchmark':<17}{'row':<58}{'compiled':>10}{'python':>10}{'python / compiled':>19}")
    for name in names:
        path = RESULTS / f"{name}.json"
        if not path.is_file():
            continue
        for row, compiled, python, _ in summary_rows(name, json.loads(path.read_text())["results"]):
            cells = "".join(f"{'-' if x is None else f'{x:.1f}':>10}" for x in (compiled, python))
            ratio = f"{python / compiled:.2f}" if compiled and python else "-"
            print(f"  {name:<17}{row:<58}{cells}{ratio:>19}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run, numbers meaningless)")
    parser.add_argument("--only", nargs="+", choices=list(BENCHMARKS), default=list(BENCHMARKS))
    parser.add_argument(
        "--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS),
        help="controller backends, passed to the benchmarks that run the controller",
    )
    args = parser.parse_args(argv)
    failed, done = [], []
    for name in args.only:
        command = [sys.executable, "-m", f"benchmarks.{name}", *(BENCHMARKS[name] if args.quick else [])]
        if name in WITH_BACKENDS:
            command += ["--backends", *args.backends]
        print(f"\n### {' '.join(command[1:])}   (load average {os.getloadavg()[0]:.2f})", flush=True)
        if subprocess.run(command, cwd=ROOT).returncode != 0:
            failed.append(name)
        else:
            done.append(name)
    print_summary([name for name in done if name in WITH_BACKENDS])
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
