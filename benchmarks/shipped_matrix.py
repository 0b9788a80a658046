"""The shipped-policy checks under a perturbation matrix: does each verdict hold on any machine?

For every env with a shipped policy and every cell of :data:`training.comparison.PERTURBATIONS`
(the reference; the other QP solver; 1e-9 relative noise on the initial state; one BLAS/OpenMP/
torch thread instead of two), one process rolls out the nominal controller, the shipped policy
and the two negative controls on the CI check's seeds (``training.shipped.CHECK_PROTOCOL``) and
pushes (``training.shipped.CHECK_ENV_KWARGS``), and judges each against the nominal controller
by the env's claim (``training.shipped.CLAIMS``).
Wanted: the shipped policy passes in every cell, both controls fail in every cell.

    python -m benchmarks.shipped_matrix                  # every env and cell, 2 processes at a time
    python -m benchmarks.shipped_matrix --envs HumanoidWBC-v0 --cells reference one_thread
    python -m benchmarks.shipped_matrix --rejudge        # a claim changed: judge the same records
    python -m benchmarks.shipped_matrix --envs HumanoidWBCWall-v0 --update   # re-run one env's cells, keep the others

Writes ``results/shipped_checks/matrix.json`` (committed: the evidence behind the CI check) with
each cell's verdicts, per-episode records and the threads the cell ran with, and prints a table.
About 40 minutes on 2 idle cores at the default sizes.

No ``--backends`` option: it judges verdicts, not speed, and every cell runs on the envs' default
controller backend (compiled). A python-backend cell would be one more perturbation of
:data:`training.comparison.PERTURBATIONS` (the ``wbc_backend`` env keyword), not added there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from training import jsonio

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JSON = ROOT / "results" / "shipped_checks" / "matrix.json"


def cell_environment(perturbation: str) -> dict[str, str]:
    """This process's environment with the cell's thread count (one for ``one_thread``)."""
    from training.comparison import DEFAULT_THREADS, thread_environment

    threads = 1 if perturbation == "one_thread" else DEFAULT_THREADS
    return {**os.environ, **thread_environment(threads)}


def run_cell(env_id: str, perturbation: str, episodes: int | None) -> dict[str, Any]:
    """One cell in a fresh process (threads are fixed when numpy and torch load)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cell.json"
        command = [sys.executable, "-m", "benchmarks.shipped_matrix", "--cell", env_id, perturbation, "--out", str(out)]
        if episodes is not None:
            command += ["--episodes", str(episodes)]
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=ROOT, env=cell_environment(perturbation), capture_output=True, text=True)
        if proc.returncode != 0:
            return {"env": env_id, "perturbation": perturbation, "error": proc.stderr[-3000:]}
        cell = json.loads(out.read_text())
    cell["seconds"] = round(time.perf_counter() - start, 1)
    print(f"  {env_id} / {perturbation}: {cell_line(cell)}  ({cell['seconds']:.0f} s)", flush=True)
    return cell


def cell_main(env_id: str, perturbation: str, out: Path, episodes: int | None) -> None:
    """Inside a cell's process: the comparison with its negative controls, written to ``out``."""
    from training.comparison import threads_in_use
    from training.shipped import CHECK_ENV_KWARGS, CHECK_PROTOCOL, compare

    default_episodes, seed, max_steps = CHECK_PROTOCOL[env_id]
    result = compare(
        env_id, episodes or default_episodes, seed, max_steps, perturbation, controls=True, env_kwargs=CHECK_ENV_KWARGS[env_id]
    )
    result["threads"] = threads_in_use()
    out.write_text(jsonio.dumps(result))


def expected(cell: dict[str, Any]) -> bool:
    """The shipped policy passes and every negative control fails."""
    if "error" in cell:
        return False
    return cell["verdict"]["passed"] and not any(c["verdict"]["passed"] for c in cell["controls"].values())


def cell_line(cell: dict[str, Any]) -> str:
    if "error" in cell:
        return "ERROR " + cell["error"].strip().splitlines()[-1]
    parts = [f"shipped {_verdict_text(cell['verdict'])}"]
    parts += [f"{name} {_verdict_text(c['verdict'])}" for name, c in cell["controls"].items()]
    return "; ".join(parts) + ("" if expected(cell) else "   <-- NOT AS EXPECTED")


def _verdict_text(verdict: dict[str, Any]) -> str:
    status = "pass" if verdict["passed"] else "FAIL"
    return (
        f"{status} ({verdict['claim']['metric']} {verdict['metric_difference']:+.3g} up {verdict['metric_upper_bound']:+.3g}, "
        f"falls {verdict['fall_difference']:+.2f} up {verdict['fall_upper_bound']:+.2f})"
    )


def markdown(cells: list[dict[str, Any]]) -> str:
    """One row per cell: the upper bounds of the shipped policy and of each control."""
    lines = [
        "| env | cell | shipped: metric / falls upper bound | noisy nominal | offset policy | as expected |",
        "|---|---|---|---|---|---|",
    ]
    for cell in cells:
        if "error" in cell:
            lines.append(f"| {cell['env']} | {cell['perturbation']} | error | | | no |")
            continue
        row = [cell["verdict"], cell["controls"]["noisy_nominal"]["verdict"], cell["controls"]["offset_policy"]["verdict"]]
        text = [
            f"{'pass' if v['passed'] else 'fail'}: {v['metric_upper_bound']:+.3g} / {v['fall_upper_bound']:+.2f}" for v in row
        ]
        lines.append(f"| {cell['env']} | {cell['perturbation']} | " + " | ".join(text) + f" | {'yes' if expected(cell) else 'NO'} |")
    return "\n".join(lines)


def rejudge(path: Path) -> int:
    """Judge every cell's recorded episodes in ``path`` again by the current ``CLAIMS`` and write
    the record back (rollouts, protocol and provenance unchanged; ``rejudged`` says when and by
    which code). A verdict is a pure function of the records, so this is exact."""
    from training.comparison import judge
    from training.provenance import provenance
    from training.shipped import CLAIMS

    record = json.loads(path.read_text())
    for cell in record["cells"]:
        # episode metrics written as null (NaN) are NaN again for the verdicts
        cell["nominal"] = jsonio.metrics_from_json(cell["nominal"])
        cell["trained"] = jsonio.metrics_from_json(cell["trained"])
        for control in cell["controls"].values():
            control["record"] = jsonio.metrics_from_json(control["record"])
        claim = CLAIMS[cell["env"]]
        nominal = cell["nominal"]["episodes"]
        cell["claim"] = asdict(claim)
        cell["verdict"] = judge(nominal, cell["trained"]["episodes"], claim).as_dict()
        for control in cell["controls"].values():
            control["verdict"] = judge(nominal, control["record"]["episodes"], claim).as_dict()
    record["settings"]["claims"] = {env_id: asdict(CLAIMS[env_id]) for env_id in record["settings"]["envs"]}
    record["table"] = markdown(record["cells"])
    record["all_as_expected"] = all(expected(cell) for cell in record["cells"])
    record.setdefault("rejudged", []).append(provenance())
    path.write_text(jsonio.dumps(record, indent=1))
    print(record["table"] + f"\nrejudged {path}; every cell as expected: {record['all_as_expected']}")
    return 0 if record["all_as_expected"] else 1


def updated_record(old: dict[str, Any], settings: dict[str, Any], cells: list[dict], run_provenance: dict) -> dict[str, Any]:
    """``old`` (a matrix record) with the cells and per-env settings of ``settings["envs"]`` replaced by
    this run's; the provenance of each env's cells under ``provenance_by_env``."""
    if settings["cells"] != old["settings"]["cells"] or settings["episodes"] != old["settings"]["episodes"]:
        raise SystemExit("--update: --cells and --episodes must be the existing record's")
    envs = settings["envs"]
    merged = dict(old["settings"])
    merged["envs"] = list(dict.fromkeys([*old["settings"]["envs"], *envs]))
    for key in ("protocol", "env_kwargs", "claims", "policy_sha256"):
        merged[key] = {**old["settings"][key], **settings[key]}
    by_env = old.get("provenance_by_env") or {env_id: old["provenance"] for env_id in old["settings"]["envs"]}
    by_env.update({env_id: run_provenance for env_id in envs})
    kept = [cell for cell in old["cells"] if cell["env"] not in envs]
    order = {env_id: i for i, env_id in enumerate(merged["envs"])}
    cells = sorted(kept + cells, key=lambda cell: order[cell["env"]])
    return {"settings": merged, "provenance": run_provenance, "provenance_by_env": by_env, "cells": cells}


def main(argv: list[str] | None = None) -> int:
    from training.comparison import PERTURBATIONS
    from training.run_folder import MODEL_FILE
    from training.shipped import CHECK_ENV_KWARGS, CHECK_PROTOCOL, CLAIMS, policy_dir, shipped_envs

    parser = argparse.ArgumentParser(prog="python -m benchmarks.shipped_matrix", description=__doc__.splitlines()[0])
    parser.add_argument("--envs", nargs="+", default=None, help="default: every env with a shipped policy")
    parser.add_argument("--cells", nargs="+", choices=PERTURBATIONS, default=list(PERTURBATIONS))
    parser.add_argument("--episodes", type=int, default=None, help="default: the CI check's (CHECK_PROTOCOL)")
    parser.add_argument("--jobs", type=int, default=2, help="cells run at once (one process each)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument(
        "--update", action="store_true", help="replace only the cells of --envs in the existing --json, keep the others"
    )
    parser.add_argument(
        "--rejudge", action="store_true",
        help="no rollouts: judge the records already in --json by the current CLAIMS (after a claim changed)",
    )  # fmt: skip
    parser.add_argument("--cell", nargs=2, metavar=("ENV", "PERTURBATION"), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cell:
        cell_main(args.cell[0], args.cell[1], args.out, args.episodes)
        return 0
    if args.rejudge:
        return rejudge(args.json)

    from training.provenance import provenance

    envs = args.envs or shipped_envs()
    jobs = [(env_id, cell) for env_id in envs for cell in args.cells]
    print(f"{len(jobs)} cells, {args.jobs} at a time", flush=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        cells = list(pool.map(lambda job: run_cell(*job, args.episodes), jobs))
    table = markdown(cells)
    print("\n" + table)
    settings = {
        "envs": envs,
        "cells": args.cells,
        "episodes": args.episodes,
        "protocol": {env_id: CHECK_PROTOCOL[env_id] for env_id in envs},
        "env_kwargs": {env_id: CHECK_ENV_KWARGS[env_id] for env_id in envs},
        "claims": {env_id: asdict(CLAIMS[env_id]) for env_id in envs},
        "policy_sha256": {env_id: hashlib.sha256((policy_dir(env_id) / MODEL_FILE).read_bytes()).hexdigest() for env_id in envs},
    }
    record = {"settings": settings, "provenance": provenance()}
    if args.update:
        record = updated_record(json.loads(args.json.read_text()), settings, cells, record["provenance"])
        cells = record["cells"]
        table = markdown(cells)
        print("\n" + table)
    record.update({"all_as_expected": all(expected(cell) for cell in cells), "table": table, "cells": cells})
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(jsonio.dumps(record, indent=1))
    print(f"wrote {args.json}; every cell as expected: {record['all_as_expected']}")
    return 0 if record["all_as_expected"] else 1


if __name__ == "__main__":
    sys.exit(main())
