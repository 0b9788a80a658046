"""Run every benchmark, one process each, in the order below; each prints its table and JSON.

    python -m benchmarks.run_all            # the default sizes (about 2 minutes on 2 cores)
    python -m benchmarks.run_all --quick    # tiny sizes: checks that everything runs

Each benchmark writes ``benchmarks/results/<name>.json``; run one alone with
``python -m benchmarks.<name> --help``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: benchmark module -> arguments for a quick run.
BENCHMARKS: dict[str, list[str]] = {
    "controller_step": ["--steps", "200"],
    "qp_backends": ["--problems", "50"],
    "scaling": ["--steps", "100"],
    "env_throughput": ["--block", "10", "--rounds", "2"],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run, numbers meaningless)")
    parser.add_argument("--only", nargs="+", choices=list(BENCHMARKS), default=list(BENCHMARKS))
    args = parser.parse_args(argv)
    failed = []
    for name in args.only:
        command = [sys.executable, "-m", f"benchmarks.{name}", *(BENCHMARKS[name] if args.quick else [])]
        print(f"\n### {' '.join(command[1:])}   (load average {os.getloadavg()[0]:.2f})", flush=True)
        if subprocess.run(command, cwd=ROOT).returncode != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
