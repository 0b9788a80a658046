"""What plant mismatch and an estimated state cost the nominal controller: each env, standing
without pushes, with the simulated robot drawn per episode (``randomise`` = None, "moderate",
"hard") while the controller keeps the nominal model, and/or with the controller and the
observation fed an estimated state (``estimation`` = None, "moderate", "hard": noise, bias,
sensing and actuation delay; ``humanoid_env.envs.estimation``).

Per env and preset, ``--episodes`` episodes of the nominal controller (wbc mode, zero action;
the env's own task: the moving CoM target, the wall's force profile, the seesaw's board law),
pushes off, seeds ``seed .. seed + episodes - 1`` (the same seeds for every preset, so the task
is the same and only the plant differs): falls, physics steps in fallback and relaxed, CoM RMSE,
the wall's hand-force RMSE and the seesaw's board-angle RMS (episode means), and each preset's
ratio to the exact model's. Not a test: it prints a table and writes JSON.

    python -m benchmarks.randomisation --episodes 10 --presets none moderate hard
    python -m benchmarks.randomisation --episodes 10 --cells none/none none/moderate none/hard moderate/moderate
    python -m benchmarks.randomisation --episodes 30 --cells none/none none/moderate none/moderate/1 moderate/moderate/1

A cell ``R/E`` is ``randomise=R, estimation=E`` (``--presets P`` is the cells ``P/none``), a cell
``R/E/T`` the same with leg odometry of time constant T [s] (``leg_odometry_s``,
``humanoid_env.envs.odometry``; E not none); the
ratios are to the cell ``none/none`` when it is measured (named ``none`` in the JSON, and a
cell ``P/none`` is named ``P``, as before the estimation existed).
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from benchmarks.common import ENVS, RESULTS, machine, write_json
from humanoid_env.envs.odometry import leg_odometry_time_constant
from humanoid_env.registry import task_entry
from training.evaluate import evaluate

#: The metrics reported, per env short name (episode means; fallbacks and relaxed: sums over the
#: episodes): the CoM RMSE and the task's level metric (``humanoid_env.registry``), e.g. the wall's
#: hand-force RMSE.
METRICS = {
    name: tuple(dict.fromkeys(("com_rmse_m", task_entry(env_id).level_metric.key))) for name, env_id in ENVS.items()
}


PRESETS = ("none", "moderate", "hard")


def measure(
    env: str, preset: str | None, episodes: int, seed: int, estimation: str | None = None, leg_odometry_s: float | None = None
) -> dict[str, Any]:
    """The nominal controller's summary on ``env`` with ``randomise=preset, estimation=estimation,
    leg_odometry_s=leg_odometry_s``."""
    kwargs = {"randomise": preset, "push_magnitude_n": (0.0, 0.0)}
    if estimation is not None:
        kwargs["estimation"] = estimation
    if leg_odometry_s is not None:
        kwargs["leg_odometry_s"] = leg_odometry_s
    record = evaluate(ENVS[env], "nominal", episodes, seed, env_kwargs=kwargs)
    runs = record["episodes"]
    result = {
        "falls": int(sum(run["fell"] for run in runs)),
        "fallback_steps": int(sum(run["wbc_fallbacks"] for run in runs)),
        "relaxed_steps": int(sum(run["wbc_relaxed"] for run in runs)),
    }
    for metric in METRICS[env]:
        values = [run[metric] for run in runs if not math.isnan(run[metric])]
        result[metric] = float(np.mean(values)) if values else float("nan")
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--presets", nargs="+", default=None, choices=PRESETS, help="randomise presets (estimation off)")
    parser.add_argument("--cells", nargs="+", default=None, help="R/E pairs: randomise R, estimation E (each none, moderate, hard)")
    parser.add_argument("--envs", nargs="+", default=list(ENVS), choices=list(ENVS))
    parser.add_argument("--json", default=str(RESULTS / "randomisation.json"))
    args = parser.parse_args(argv)
    specs = cell_list(args.presets, args.cells)
    start = machine()
    results: dict[str, dict[str, Any]] = {}
    for env in args.envs:
        results[env] = {}
        for name, (preset, estimation, odometry) in specs.items():
            results[env][name] = measure(env, _none(preset), args.episodes, args.seed, _none(estimation), odometry)
            exact = results[env].get("none")
            if exact is not None and name != "none":
                results[env][name]["over_exact"] = {m: results[env][name][m] / exact[m] for m in METRICS[env]}
        print(f"\n{ENVS[env]} (nominal controller, pushes off, {args.episodes} episodes from seed {args.seed})")
        print(f"{'cell':>18}  falls  fallback  relaxed  " + "  ".join(f"{m:>20}" for m in METRICS[env]))
        for name, row in results[env].items():
            cells = "  ".join(f"{row[m]:>20.4g}" for m in METRICS[env])
            print(f"{name:>18}  {row['falls']:>5}  {row['fallback_steps']:>8}  {row['relaxed_steps']:>7}  {cells}")
    settings = {
        "episodes": args.episodes, "seed": args.seed,
        "cells": {name: {"randomise": r, "estimation": e, "leg_odometry_s": t} for name, (r, e, t) in specs.items()},
        "envs": args.envs, "pushes": "off",
    }  # fmt: skip
    write_json(args.json, settings, results, start)
    return results


def cell_list(presets: list[str] | None, cells: list[str] | None) -> dict[str, tuple[str, str, float | None]]:
    """Cell name -> (randomise, estimation, leg odometry time constant [s] or None); ``P/none`` is
    named ``P``."""
    specs: dict[str, tuple[str, str, float | None]] = {p: (p, "none", None) for p in (presets or [])}
    for cell in cells or []:
        parts = cell.split("/")
        if len(parts) not in (2, 3) or not all(part in PRESETS for part in parts[:2]):
            raise SystemExit(f"--cells: {cell!r} is not R/E or R/E/T with R and E in {PRESETS}")
        odometry = None
        if len(parts) == 3:
            try:
                odometry = leg_odometry_time_constant(float(parts[2]))
            except ValueError as err:
                raise SystemExit(f"--cells: {cell!r}: T {err}") from err
            if parts[1] == "none":
                raise SystemExit(f"--cells: {cell!r}: leg odometry needs an estimation preset, not none")
        specs[parts[0] if parts[1:] == ["none"] else cell] = (parts[0], parts[1], odometry)
    return specs or {p: (p, "none", None) for p in PRESETS}


def _none(name: str) -> str | None:
    return None if name == "none" else name


if __name__ == "__main__":
    main()
