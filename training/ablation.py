"""The action-mode ablation: the same algorithm and step budget in ``wbc``, ``pd`` and ``torque`` modes.

Usage:

    python -m training.ablation --env HumanoidWBC-v0 --algo ppo --timesteps 2000000 --seeds 0 1 2 \\
        [--modes wbc pd torque] [--config configs/ppo.yml] [--config-for torque=configs/my_torque.yml] \\
        [--n-envs K] [--params key=value ...] [--eval-episodes 10] [--out runs/ablation/HumanoidWBC-v0_ppo] \\
        [--address HOST:PORT | --num-cpus N] [--cpus-per-trial C] [--dry-run | --report-only] \\
        [--snapshots N1 N2 ...]

Every (mode, seed) is one ``python -m training.train`` run with ``--env-kwargs action_mode=<mode>``
and the same ``--timesteps``, into ``OUT/<mode>/s<seed>``, run as one Ray Tune trial
([`training.ray_sweep`][training.ray_sweep]: as many at once as the CPUs allow, ``--cpus-per-trial`` each, on this
machine or, with ``--address HOST:PORT``, a Ray cluster; a failed run is reported and the others go
on); a finished run (``train_info.json``, not interrupted) is kept, so a stopped ablation resumes. Each mode's hyperparameters come from ``--config`` or its ``--config-for`` file (the
budget is always ``--timesteps``). Then every run is evaluated (``training.evaluate``, deterministic,
``--eval-episodes`` episodes from seed [`EVAL_SEED`][training.ablation.EVAL_SEED]), beside the nominal controller (zero action
in wbc mode) on the same seeds, and ``OUT/results.json`` (per run and per mode: mean and std over
seeds), ``OUT/table.md`` (the README's table) and ``OUT/learning_curves.png`` (episode return vs env
steps from the training Monitor files, each seed thin, the mean thick, the nominal return dashed) are
written. "Steps to nominal return" is the first periodic evaluation (deterministic, every
``eval_freq`` steps) whose mean return reaches the nominal controller's. ``--report-only`` rewrites
the table and the plot from ``OUT/results.json``; neither it nor ``--dry-run`` starts Ray.

The long form, ``--snapshots N1 N2 ...``: every run saves its model at those step totals and evaluates
it there on the ``--eval-episodes`` episodes of the nominal controller's evaluation
([`training.snapshots`][training.snapshots]); a run stopped part-way (Ctrl-C, a killed session) resumes from its
latest snapshot when the same command is run again. The report ([`training.sample_efficiency`][training.sample_efficiency],
also from unfinished runs, and with ``--report-only`` without training) gives the samples to the
nominal controller's level per mode and the results at equal budgets.

Speed on 2 cores, two runs at once with 2 envs each (the tuned configs, December 2026): about 470
training env steps/s per run in wbc mode, 650 in pd and 860 in torque mode; with ``--snapshots``
each evaluation of 10 full episodes adds up to about a minute to a run.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np

from training import jsonio
from training.provenance import provenance
from training.ray_sweep import TrainRun, add_ray_arguments, check_ray_arguments, sweep_exit_code
from training.run_folder import finished

MODES = ("wbc", "pd", "torque")
#: First reset seed of the evaluation episodes (training never resets with these).
EVAL_SEED = 100_000
#: Episodes averaged into one point of a learning curve.
SMOOTHING_EPISODES = 20


def train_command(args: argparse.Namespace, mode: str, seed: int, run_dir: Path) -> list[str]:
    """The full ``python -m training.train`` command of one (mode, seed) run (what ``--dry-run`` prints)."""
    return [sys.executable, "-m", "training.train", *train_args(args, mode, seed, run_dir)]


def train_args(args: argparse.Namespace, mode: str, seed: int, run_dir: Path) -> list[str]:
    """The ``training.train`` arguments of one (mode, seed) run into ``run_dir``."""
    config = args.config_for.get(mode, args.config)
    command = ["--env", args.env, "--algo", args.algo]
    if config:
        command += ["--config", str(config)]
    command += ["--timesteps", str(args.timesteps), "--seed", str(seed), "--run-dir", str(run_dir)]
    if args.n_envs is not None:
        command += ["--n-envs", str(args.n_envs)]
    # A run stopped part-way: trained again (--overwrite), or with snapshots resumed from the latest.
    snapshots = getattr(args, "snapshots", None)  # training.tune passes its own arguments
    restart = "--resume" if snapshots else "--overwrite"
    command += ["--no-progress-bar", "--verbose", "0", restart, "--env-kwargs", f"action_mode={mode}"]
    command += list(args.env_kwargs)
    params = list(args.params)
    if snapshots:
        params += [
            f"snapshot_steps=[{','.join(str(n) for n in snapshots)}]",
            f"snapshot_eval_episodes={args.eval_episodes}",
            f"snapshot_eval_seed={EVAL_SEED}",
            "eval_freq=0",
            "checkpoint_freq=0",
        ]
    if params:
        command += ["--params", *params]
    return command


def read_monitor(path: Path) -> np.ndarray:
    """A Monitor CSV (``#{json}`` line, then ``r,l,t``) -> (n, 3) array of return, length, time [s]."""
    import csv

    with open(path) as handle:
        handle.readline()  # the JSON header: t_start, env_id
        rows = [(float(r["r"]), float(r["l"]), float(r["t"])) for r in csv.DictReader(handle)]
    return np.array(rows, dtype=float).reshape(-1, 3)


def learning_curve(run_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """(steps, smoothed episode return) from a run's ``monitor/*.monitor.csv`` (all envs, by wall time)."""
    files = sorted((run_dir / "monitor").glob("*.monitor.csv"))
    episodes = np.concatenate([read_monitor(f) for f in files]) if files else np.zeros((0, 3))
    episodes = episodes[np.argsort(episodes[:, 2], kind="stable")]
    steps, returns = np.cumsum(episodes[:, 1]), episodes[:, 0]
    window = min(SMOOTHING_EPISODES, len(returns))
    if window > 1:
        returns = np.convolve(returns, np.ones(window) / window, mode="valid")
        steps = steps[window - 1 :]
    return steps, returns


def evaluation_curve(run_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """(env steps, mean return) of a run's periodic deterministic evaluations (``eval/evaluations.npz``)."""
    path = run_dir / "eval" / "evaluations.npz"
    if not path.is_file():
        return np.zeros(0), np.zeros(0)
    data = np.load(path)
    return data["timesteps"].astype(float), data["results"].mean(axis=1)


def steps_to_reach(steps: np.ndarray, returns: np.ndarray, target: float) -> float | None:
    """First env step at which ``returns`` reach ``target`` (None: never)."""
    reached = np.flatnonzero(returns >= target)
    return float(steps[reached[0]]) if reached.size else None


def markdown_table(results: dict[str, Any]) -> str:
    """Per mode: mean +- std over seeds of the evaluation metrics, steps to the nominal return, wall time."""
    metrics = [k for k in results["summary"][results["modes"][0]] if k != "seeds" and not k.endswith("_std")]
    metrics = [k for k in ("return", "fell", "length") if k in metrics] + [
        k for k in metrics if k not in ("return", "fell", "length", "wbc_fallbacks", "wbc_relaxed", "wbc_solve_us_median")
    ]
    head = ["mode", *metrics, "steps to nominal return", "wall time / run [min]"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    nominal = results["nominal"]["summary"]
    lines.append("| nominal WBC (zero action) | " + " | ".join(f"{nominal[k]:.4g}" for k in metrics) + " | - | - |")
    for mode in results["modes"]:
        summary = results["summary"][mode]
        runs = [run for run in results["runs"] if run["mode"] == mode]
        reached = [run["steps_to_nominal_return"] for run in runs]
        reached_text = ", ".join("never" if r is None else f"{r / 1000:.0f}k" for r in reached)
        minutes = np.mean([run["train"].get("wall_s", np.nan) for run in runs]) / 60.0
        # nan: no run had a value (e.g. every episode ended before a metric's settling time)
        cells = [
            "-" if np.isnan(summary[k]) else f"{summary[k]:.4g} ± {summary[k + '_std']:.2g}" for k in metrics
        ]
        lines.append(f"| {mode} | " + " | ".join(cells) + f" | {reached_text} | {minutes:.1f} |")
    return "\n".join(lines)


def aggregate(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per mode: ``<metric>`` (mean over seeds of the per-run means) and ``<metric>_std``."""
    out: dict[str, dict[str, float]] = {}
    for mode in dict.fromkeys(run["mode"] for run in runs):
        summaries = [run["summary"] for run in runs if run["mode"] == mode]
        out[mode] = {"seeds": float(len(summaries))}
        for key in summaries[0]:
            values = np.array([s[key] for s in summaries], dtype=float)
            out[mode][key] = float(np.mean(values))
            out[mode][f"{key}_std"] = float(np.std(values))
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m training.ablation", description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="HumanoidWBC-v0")
    parser.add_argument("--algo", default="ppo", choices=("ppo", "sac"))
    parser.add_argument(
        "--timesteps", type=int, required=True, help="the same budget for every mode and seed"
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--config", default=None, help="YAML of every mode (default configs/<algo>.yml)")
    parser.add_argument("--config-for", nargs="*", default=[], metavar="MODE=PATH", help="a mode's own YAML")
    parser.add_argument("--n-envs", type=int, default=None)
    parser.add_argument("--env-kwargs", nargs="*", default=[], metavar="KEY=VALUE", help="for every mode")
    parser.add_argument(
        "--params", nargs="*", default=[], metavar="KEY=VALUE", help="config keys, every mode"
    )
    parser.add_argument("--eval-episodes", type=int, default=10)
    parser.add_argument(
        "--snapshots",
        type=int,
        nargs="+",
        default=None,
        metavar="N",
        help="save and evaluate every run at these step totals (the long form: samples to the nominal "
        "level, equal budgets; stopped runs resume from their latest snapshot; see training.sample_efficiency)",
    )
    parser.add_argument("--out", type=Path, default=None, help="default runs/ablation/<env>_<algo>")
    parser.add_argument("--dry-run", action="store_true", help="print the training commands and stop")
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite table.md and the plot from OUT/results.json, no runs"
    )
    add_ray_arguments(parser)
    args = parser.parse_args(argv)
    check_ray_arguments(args, parser)
    if len(args.seeds) < 2:
        parser.error("--seeds: at least 2 seeds (a single seed says nothing about the spread)")
    if any(item.split("=", 1)[0] == "action_mode" for item in args.env_kwargs):
        parser.error("--env-kwargs: action_mode is what the ablation varies; use --modes")
    config_for = {}
    for item in args.config_for:
        mode, sep, path = item.partition("=")
        if not sep or mode not in MODES:
            parser.error(f"--config-for expects MODE=PATH with MODE in {MODES}, got {item!r}")
        config_for[mode] = path
    args.config_for = config_for
    if args.snapshots is not None:
        if sorted(set(args.snapshots)) != args.snapshots or args.snapshots[0] < 1 or args.snapshots[-1] > args.timesteps:
            parser.error(f"--snapshots: increasing step totals in [1, --timesteps], got {args.snapshots}")
    args.config = args.config or f"configs/{args.algo}.yml"
    args.out = args.out or Path("runs/ablation") / f"{args.env}_{args.algo}"
    return args


def train_plan(args: argparse.Namespace, plan: list[tuple[str, int, Path]]) -> int:
    """Train every (mode, seed, run folder) of ``plan`` not finished before, as Ray Tune trials;
    [`training.ray_sweep.sweep_exit_code`][training.ray_sweep.sweep_exit_code]'s status."""
    runs = []
    for mode, seed, run_dir in plan:
        if finished(run_dir):
            print(f"ablation: {mode} seed {seed}: done before, kept ({run_dir})", flush=True)
            continue
        print(f"ablation: {mode} seed {seed}: to train -> {run_dir}", flush=True)
        runs.append(TrainRun(f"{mode}/s{seed}", tuple(train_args(args, mode, seed, run_dir))))
    return sweep_exit_code(runs, args, "ablation")


def evaluate_nominal(args: argparse.Namespace) -> dict[str, Any]:
    """The nominal controller (zero action, wbc mode) on the ablation's evaluation episodes."""
    from training.config import parse_key_values
    from training.evaluate import evaluate

    print(f"ablation: evaluating the nominal controller ({args.eval_episodes} episodes)", flush=True)
    nominal_kwargs = parse_key_values(args.env_kwargs, "--env-kwargs")
    return evaluate(args.env, "nominal", args.eval_episodes, EVAL_SEED, env_kwargs=nominal_kwargs)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    run_provenance = provenance()  # the tree as the ablation starts (cached for the process)
    plan = [(mode, seed, args.out / mode / f"s{seed}") for mode in args.modes for seed in args.seeds]
    if args.dry_run:
        for mode, seed, run_dir in plan:
            print(shlex.join(train_command(args, mode, seed, run_dir)))
        return 0
    if args.snapshots:
        return snapshot_ablation(args, plan, run_provenance)
    if args.report_only:
        write_report(json.loads((args.out / "results.json").read_text()), args.out)
        print(f"ablation: {args.out / 'table.md'}, {args.out / 'learning_curves.png'}")
        return 0
    failed = train_plan(args, plan)
    if failed:
        return failed
    from training.evaluate import evaluate

    nominal = evaluate_nominal(args)
    runs = []
    for mode, seed, run_dir in plan:
        print(f"ablation: evaluating {mode} seed {seed} ({args.eval_episodes} episodes)", flush=True)
        result = evaluate(args.env, str(run_dir), args.eval_episodes, EVAL_SEED)
        info = json.loads((run_dir / "train_info.json").read_text())
        runs.append({"mode": mode, "seed": seed, "run_dir": str(run_dir), "train": info, "summary": result["summary"]})
    results = {
        "env": args.env,
        "algo": args.algo,
        "timesteps": args.timesteps,
        "seeds": args.seeds,
        "modes": args.modes,
        "eval_episodes": args.eval_episodes,
        "eval_seed": EVAL_SEED,
        "nominal": {"summary": nominal["summary"], "episodes": nominal["episodes"]},
        "runs": runs,
        "summary": aggregate(runs),
        "provenance": run_provenance,
    }
    write_report(results, args.out)
    print(f"\n{'mode':<8}" + "".join(f"{k:>16}" for k in ("return", "length", "fell")))
    for mode, summary in results["summary"].items():
        cells = "".join(
            f"{summary[k]:>9.4g} ±{summary[k + '_std']:<6.2g}" for k in ("return", "length", "fell")
        )
        print(f"{mode:<8}{cells}")
    print(f"ablation: {args.out / 'results.json'}, {args.out / 'table.md'}, {args.out / 'learning_curves.png'}")
    return 0


def snapshot_ablation(args: argparse.Namespace, plan: list[tuple[str, int, Path]], run_provenance: dict) -> int:
    """The long form (``--snapshots``): train (resuming stopped runs) unless ``--report-only``, then the
    nominal controller on the evaluation seeds (``OUT/nominal.json``, made once) and the report of
    [`training.sample_efficiency`][training.sample_efficiency] from every run's evaluated snapshots, finished or not."""
    from training import sample_efficiency

    if not args.report_only:
        failed = train_plan(args, plan)
        if failed:
            return failed
    nominal_path = args.out / "nominal.json"
    if not nominal_path.is_file():
        args.out.mkdir(parents=True, exist_ok=True)
        nominal_path.write_text(jsonio.dumps(evaluate_nominal(args), indent=1))
    nominal = jsonio.metrics_from_json(json.loads(nominal_path.read_text()))
    results = {
        "env": args.env,
        "algo": args.algo,
        "timesteps": args.timesteps,
        "snapshots": args.snapshots,
        "seeds": args.seeds,
        "modes": args.modes,
        "eval_episodes": args.eval_episodes,
        "eval_seed": EVAL_SEED,
        "nominal": {"summary": nominal["summary"], "episodes": nominal["episodes"]},
        "runs": [sample_efficiency.run_record(run_dir, mode, seed) for mode, seed, run_dir in plan],
        "provenance": run_provenance,
    }
    sample_efficiency.report(results, args.out)
    print(sample_efficiency.headline(results["summary"]))
    print(f"ablation: {args.out / 'results.json'}, {args.out / 'table.md'}, {args.out / 'learning_curves.png'}")
    return 0


def write_report(results: dict[str, Any], out: Path) -> None:
    """``results.json``, ``table.md`` and ``learning_curves.png`` in ``out``; each run's steps to the
    nominal return are (re)computed from its periodic evaluations."""
    from training.plotting import plot_learning_curves

    nominal_return = results["nominal"]["summary"]["return"]
    curves: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    evaluations: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for run in results["runs"]:
        run_dir = Path(run["run_dir"])
        evaluations.setdefault(run["mode"], []).append(evaluation_curve(run_dir))
        run["steps_to_nominal_return"] = steps_to_reach(*evaluations[run["mode"]][-1], nominal_return)
        curves.setdefault(run["mode"], []).append(learning_curve(run_dir))
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(jsonio.dumps(results, indent=2))
    title = f"{results['env']} {results['algo']}: {results['timesteps']} steps, seeds {results['seeds']}"
    reference = ("nominal WBC (evaluation return)", nominal_return)
    plot_learning_curves(curves, out / "learning_curves.png", title, reference, evaluations)
    (out / "table.md").write_text(markdown_table(results) + "\n")


if __name__ == "__main__":
    sys.exit(main())
