"""Samples to the nominal controller's level, and results at equal budgets, from evaluated snapshots.

The long form of the action-mode ablation (``python -m training.ablation --snapshots ...``) saves
every run at fixed step totals and evaluates each snapshot on the same ``E`` deterministic episodes
(fixed reset seeds) as the nominal controller ([`training.snapshots`][training.snapshots]). From those records:

- **at the nominal level** ([`at_nominal_level`][training.sample_efficiency.at_nominal_level]): a snapshot's fall rate is at most the nominal
  controller's + [`FALL_TOLERANCE`][training.sample_efficiency.FALL_TOLERANCE] and its task metric ([`LEVEL_METRIC`][training.sample_efficiency.LEVEL_METRIC]: CoM RMSE, hand
  normal-force RMSE, board tilt RMS) at most [`METRIC_FACTOR`][training.sample_efficiency.METRIC_FACTOR] x the nominal one;
- **samples to the nominal level** of a run: the env steps of its first snapshot at that level
  (None: not within its last snapshot); per mode the median and range over seeds;
- **at equal budgets** ([`BUDGETS`][training.sample_efficiency.BUDGETS] that every run of a mode has reached): return, fall rate and
  task metric (median and range over seeds), and the comparison tool's paired verdict
  ([`training.comparison.judge`][training.comparison.judge], every seed's episodes against the nominal controller's on
  the same reset seeds) on the same level claim with 90 % one-sided bootstrap bounds: mean metric
  difference <= (METRIC_FACTOR - 1) x the nominal metric and fall-rate difference <= FALL_TOLERANCE
  (no verdict, "no", when an episode has no metric: a wall episode that ended before the hand
  force was measured).

[`report`][training.sample_efficiency.report] writes ``results.json``, ``table.md`` and ``learning_curves.png`` (return, fall rate
and task metric of the snapshots against env steps: per mode the median over seeds and the band from
the lowest to the highest seed, the nominal controller dashed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from humanoid_env.registry import TASKS, LevelMetric
from training import jsonio
from training.comparison import Claim, judge
from training.snapshots import read_evaluations

#: env id -> (the task metric of the level, its unit's name, scale to that unit): every registered
#: task's [`level_metric`][humanoid_env.registry.TaskEntry.level_metric] (built from the registry at import).
LEVEL_METRIC: dict[str, LevelMetric] = {env_id: entry.level_metric for env_id, entry in TASKS.items()}
#: A snapshot's fall rate may exceed the nominal controller's by this much [falls per episode].
FALL_TOLERANCE = 0.1
#: ... and its task metric may be this many times the nominal controller's.
METRIC_FACTOR = 1.5
#: Budgets [env steps] of the equal-budget table.
BUDGETS = (100_000, 300_000, 1_000_000)
#: One-sided confidence of the equal-budget verdicts.
CONFIDENCE = 0.9


def level_metric(env_id: str) -> LevelMetric:
    """[`LEVEL_METRIC`][training.sample_efficiency.LEVEL_METRIC] of ``env_id``; ``ValueError`` naming the envs that have one."""
    try:
        return LEVEL_METRIC[env_id.split(":")[-1]]
    except KeyError:
        raise ValueError(f"no level metric for {env_id}; known: {', '.join(LEVEL_METRIC)}") from None


def at_nominal_level(summary: dict[str, float], nominal: dict[str, float], metric: str) -> bool:
    """True when ``summary`` (an evaluation's means) falls at most [`FALL_TOLERANCE`][training.sample_efficiency.FALL_TOLERANCE] more often
    than ``nominal`` and its ``metric`` is at most [`METRIC_FACTOR`][training.sample_efficiency.METRIC_FACTOR] x the nominal one (NaN: not)."""
    value = summary.get(metric, float("nan"))
    return bool(
        summary["fell"] <= nominal["fell"] + FALL_TOLERANCE + 1e-12
        and np.isfinite(value)
        and value <= METRIC_FACTOR * nominal[metric]
    )


def run_record(run_dir: Path, mode: str, seed: int) -> dict[str, Any]:
    """One run's evaluated snapshots: ``{"mode", "seed", "run_dir", "snapshots": [{"target", "steps",
    "wall_s", "summary", "episodes"}]}``, in order of steps."""
    snapshots = [
        {"target": snap.target, "steps": snap.steps, "wall_s": snap.wall_s, "summary": rec["summary"], "episodes": rec["episodes"]}
        for snap, rec in read_evaluations(run_dir)
    ]
    return {"mode": mode, "seed": seed, "run_dir": str(run_dir), "snapshots": snapshots}


def samples_to_level(run: dict[str, Any], nominal: dict[str, float], metric: str) -> int | None:
    """The env steps of ``run``'s first snapshot at the nominal level (None: none is)."""
    for snap in run["snapshots"]:
        if at_nominal_level(snap["summary"], nominal, metric):
            return snap["steps"]
    return None


def _spread(values: list[float], scale: float = 1.0, digits: int = 3) -> str:
    """``median [min, max]`` of ``values`` x ``scale`` ("-" when empty)."""
    if not values:
        return "-"
    v = np.asarray(values, float) * scale
    med, lo, hi = (f"{x:.{digits}g}" for x in (np.median(v), v.min(), v.max()))
    return f"{med} [{lo}, {hi}]"


def _steps_text(steps: float) -> str:
    return f"{steps / 1e6:.3g}M" if steps >= 1e6 else f"{steps / 1e3:.3g}k"


def mode_summary(env_id: str, runs: list[dict[str, Any]], nominal: dict[str, Any]) -> dict[str, Any]:
    """Per mode: samples to the level (per seed, median, range; ``last_steps`` of each run), and per
    budget every run has reached: the snapshots' metrics and the paired verdict against ``nominal``
    (its evaluation record: ``summary`` and ``episodes``)."""
    metric, _, _ = level_metric(env_id)
    claim = Claim(
        metric,
        metric_margin=(METRIC_FACTOR - 1.0) * nominal["summary"][metric],
        fall_margin=FALL_TOLERANCE,
        confidence=CONFIDENCE,
    )
    out: dict[str, Any] = {}
    for mode in dict.fromkeys(run["mode"] for run in runs):
        mine = [run for run in runs if run["mode"] == mode and run["snapshots"]]
        reached = [samples_to_level(run, nominal["summary"], metric) for run in mine]
        last = [run["snapshots"][-1]["steps"] for run in mine]
        budgets = {}
        for budget in BUDGETS:
            at = [next((s for s in run["snapshots"] if s["target"] == budget), None) for run in mine]
            if not mine or any(s is None for s in at):
                continue
            baseline = [e for _ in at for e in nominal["episodes"]]
            candidate = [e for s in at for e in s["episodes"]]
            unmeasured = sum(not np.isfinite(float(e[metric])) for e in candidate + baseline)
            if unmeasured:  # e.g. a wall episode that ended before the hand force was measured
                verdict = {"passed": False, "unmeasured_episodes": unmeasured}
            else:
                verdict = judge(baseline, candidate, claim).as_dict()
            budgets[str(budget)] = {
                "return": [s["summary"]["return"] for s in at],
                "fell": [s["summary"]["fell"] for s in at],
                metric: [s["summary"][metric] for s in at],
                "wall_s": [s["wall_s"] for s in at],
                "verdict": verdict,
            }
        out[mode] = {
            "seeds": [run["seed"] for run in mine],
            "samples_to_level": reached,
            "last_steps": last,
            "budgets": budgets,
        }
    return out


def headline(summary: dict[str, Any]) -> str:
    """``samples to the nominal level: wbc X, pd Y, torque Z`` (median over seeds; "not reached
    within N" where a seed did not reach it, N its shortest run)."""
    parts = []
    for mode, s in summary.items():
        reached = s["samples_to_level"]
        if not reached:
            parts.append(f"{mode} no runs")
        elif any(r is None for r in reached):
            hit = sum(r is not None for r in reached)
            parts.append(f"{mode} not reached within {_steps_text(min(s['last_steps']))} ({hit} of {len(reached)} seeds reached it)")
        else:
            parts.append(f"{mode} {_steps_text(float(np.median(reached)))} (seeds {', '.join(_steps_text(r) for r in reached)})")
    return "samples to the nominal level: " + ", ".join(parts)


def markdown(results: dict[str, Any]) -> str:
    """The headline, the level's definition, and the equal-budget table."""
    env_id, nominal = results["env"], results["nominal"]["summary"]
    metric, label, scale = level_metric(env_id)
    lines = [
        f"**{headline(results['summary'])}**",
        "",
        f"Nominal controller on the same {results['eval_episodes']} episodes (reset seeds from "
        f"{results['eval_seed']}): return {nominal['return']:.0f}, fall rate {nominal['fell']:.2f}, "
        f"{label} {nominal[metric] * scale:.3g}. At its level: fall rate <= {nominal['fell'] + FALL_TOLERANCE:.2f} "
        f"and {label} <= {METRIC_FACTOR * nominal[metric] * scale:.3g}.",
        "",
        f"| mode | budget | return | fall rate | {label} | at the level (paired, {int(CONFIDENCE * 100)} % bounds) | training wall time [min] |",
        "|---|---|---|---|---|---|---|",
    ]
    for mode, s in results["summary"].items():
        for budget, b in s["budgets"].items():
            v = b["verdict"]
            if "unmeasured_episodes" in v:
                verdict = f"no: {v['unmeasured_episodes']} episodes ended before the metric was measured"
            else:
                verdict = (
                    f"{'yes' if v['passed'] else 'no'}: falls {v['fall_difference']:+.2f} (<= {v['fall_upper_bound']:+.2f}), "
                    f"metric {v['metric_difference'] * scale:+.3g} (<= {v['metric_upper_bound'] * scale:+.3g})"
                )
            lines.append(
                f"| {mode} | {_steps_text(int(budget))} ({len(b['return'])} seeds) | {_spread(b['return'], digits=4)} | {_spread(b['fell'], digits=2)} "
                f"| {_spread(b[metric], scale)} | {verdict} | {_spread(b['wall_s'], 1 / 60)} |"
            )
    lines += [
        "",
        "Cells: median [lowest, highest] over seeds. Verdict differences are policy - nominal, "
        f"{results['eval_episodes']} episodes per seed, paired by reset seed.",
    ]
    return "\n".join(lines)


def plot(results: dict[str, Any], path: Path) -> Path:
    """Return, fall rate and task metric of every snapshot against env steps (log scale): per mode
    the median over the seeds that reached each snapshot (line) and their lowest-highest (band); the
    nominal controller dashed."""
    from training.plotting import _pyplot, _save

    plt = _pyplot()
    env_id, nominal = results["env"], results["nominal"]["summary"]
    metric, label, scale = level_metric(env_id)
    panels = (("return", "episode return", 1.0), ("fell", "fall rate", 1.0), (metric, label, scale))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for j, mode in enumerate(results["summary"]):
        runs = [r for r in results["runs"] if r["mode"] == mode and r["snapshots"]]
        if not runs:
            continue
        targets = sorted({s["target"] for r in runs for s in r["snapshots"]})
        for ax, (key, _, k) in zip(axes, panels, strict=True):
            # Per target, the seeds that reached it (an unfinished run's curve stops at its last snapshot).
            values = [
                np.array([s["summary"][key] * k for r in runs for s in r["snapshots"] if s["target"] == t]) for t in targets
            ]
            ax.plot(targets, [np.median(v) for v in values], f"C{j}", marker="o", markersize=3, label=f"{mode} ({len(runs)} seeds)")
            ax.fill_between(targets, [v.min() for v in values], [v.max() for v in values], color=f"C{j}", alpha=0.2)
    for ax, (key, name, k) in zip(axes, panels, strict=True):
        ax.axhline(nominal[key] * k, color="k", linestyle="--", linewidth=1.0, label="nominal WBC")
        ax.set_xscale("log")
        ax.set_xlabel("env steps")
        ax.set_ylabel(name)
    axes[2].set_yscale("log")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{env_id}: deterministic evaluations ({results['eval_episodes']} episodes) of training snapshots")
    return _save(plt, fig, Path(path))


def report(results: dict[str, Any], out: Path) -> None:
    """Add ``summary`` to ``results`` and write ``results.json``, ``table.md``, ``learning_curves.png`` in ``out``."""
    results["summary"] = mode_summary(results["env"], results["runs"], results["nominal"])
    out.mkdir(parents=True, exist_ok=True)
    record = dict(results)  # episodes kept at the budgets only (the verdicts'); the rest are in the run folders
    record["runs"] = [
        {**run, "snapshots": [s if s["target"] in BUDGETS else {k: v for k, v in s.items() if k != "episodes"} for s in run["snapshots"]]}
        for run in results["runs"]
    ]
    (out / "results.json").write_text(jsonio.dumps(record, indent=1))
    (out / "table.md").write_text(markdown(results) + "\n")
    plot(results, out / "learning_curves.png")
