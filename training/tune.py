"""Equal-effort hyperparameter tuning per action mode, before the ablation.

Usage:

    python -m training.tune --env HumanoidWBC-v0 --algo ppo --param policy_kwargs.log_std_init \\
        --values -1 -2 -3 --timesteps 30000 --seed 0 [--modes wbc pd torque] [--config configs/ppo.yml] \\
        [--n-envs 2] [--eval-episodes 5] [--out runs/tune/HumanoidWBC-v0_ppo] \\
        [--address HOST:PORT | --num-cpus N] [--cpus-per-trial C]

Every mode gets the same effort: the same grid of values of one hyperparameter (``key`` or
``policy_kwargs.key`` / ``env_kwargs.key``), the same step budget and the same training seed. Each
(mode, value) run is a ``python -m training.train`` run into ``OUT/<mode>/<value>``, all of them
Ray Tune trials ([`training.ray_sweep`][training.ray_sweep]: as many at once as the CPUs allow, on this machine or,
with ``--address``, a Ray cluster), then each gets a deterministic evaluation (``--eval-episodes`` episodes from seed [`TUNE_EVAL_SEED`][training.tune.TUNE_EVAL_SEED], apart from
the ablation's evaluation seeds so the final comparison is not made on the episodes used to pick).
The value with the highest mean evaluation return is picked per mode. Written: ``OUT/results.json``,
``OUT/table.md`` (return and fall rate per mode and value, the pick in bold) and
``OUT/<algo>_<mode>.yml`` (``--config`` with the pick set in the env's section), for
``python -m training.ablation --config-for MODE=OUT/<algo>_<mode>.yml ...``. A finished run is kept,
so a stopped tuning resumes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

from training import jsonio
from training.ablation import MODES, finished
from training.ablation import train_args as ablation_train_args
from training.provenance import provenance
from training.ray_sweep import TrainRun, add_ray_arguments, check_ray_arguments, sweep_exit_code

#: First reset seed of the tuning evaluations (the ablation evaluates from 100000).
TUNE_EVAL_SEED = 200_000
#: Parameters that are dictionaries merged key by key (``policy_kwargs.log_std_init``).
NESTED = ("policy_kwargs", "env_kwargs")


def split_param(param: str) -> tuple[str, str | None]:
    """``"policy_kwargs.log_std_init"`` -> ``("policy_kwargs", "log_std_init")``; ``"gamma"`` -> ``("gamma", None)``."""
    top, sep, sub = param.partition(".")
    if sep and (top not in NESTED or not sub):
        raise ValueError(f"--param {param!r}: only {' and '.join(NESTED)} take a '.key'")
    return top, (sub if sep else None)


def override(param: str, value: Any) -> dict[str, Any]:
    """The config override that sets ``param`` to ``value`` (nested keys as a one-key dict)."""
    top, sub = split_param(param)
    return {top: {sub: value}} if sub else {top: value}


def train_args(args: argparse.Namespace, mode: str, value: Any, run_dir: Path) -> list[str]:
    """The ``training.train`` arguments of one (mode, value) run, built as the ablation builds its own."""
    top, _ = split_param(args.param)
    rendered = yaml.safe_dump(override(args.param, value)[top], default_flow_style=True).strip()
    run = argparse.Namespace(
        env=args.env, algo=args.algo, config=args.config, config_for={}, timesteps=args.timesteps,
        n_envs=args.n_envs, env_kwargs=[], params=[f"{top}={rendered}"],
    )  # fmt: skip
    return ablation_train_args(run, mode, args.seed, run_dir)


def pick(returns: dict[str, float]) -> str:
    """The value label with the highest mean evaluation return (the first one on a tie)."""
    return max(returns, key=lambda label: returns[label])


def tuned_config(
    config_path: Path, algo: str, env_id: str, mode: str, param: str, value: Any
) -> dict[str, Any]:
    """The YAML sections of ``config_path`` with ``param = value`` and ``action_mode = mode`` in ``env_id``'s."""
    from training.config import load_yaml, merge

    sections = load_yaml(config_path, algo)  # a fresh dict; merge() copies
    entry = merge(sections.get(env_id, {}), override(param, value))
    sections[env_id] = merge(entry, {"env_kwargs": {"action_mode": mode}})
    return sections


def markdown_table(results: dict[str, Any]) -> str:
    labels = results["labels"]
    head = ["mode", *(f"{results['param']} = {label}" for label in labels)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for mode in results["modes"]:
        cells = []
        for label in labels:
            summary = results["runs"][mode][label]
            text = f"{summary['return']:.0f} (fell {summary['fell']:.2f})"
            cells.append(f"**{text}**" if results["picks"][mode] == label else text)
        lines.append(f"| {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m training.tune", description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="HumanoidWBC-v0")
    parser.add_argument("--algo", default="ppo", choices=("ppo", "sac"))
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--param", required=True, help="a config key, or policy_kwargs.KEY / env_kwargs.KEY")
    parser.add_argument(
        "--values", nargs="+", required=True, help="YAML values, the same grid for every mode"
    )
    parser.add_argument("--timesteps", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config", type=Path, default=None, help="default configs/<algo>.yml")
    parser.add_argument("--n-envs", type=int, default=None)
    parser.add_argument("--eval-episodes", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="default runs/tune/<env>_<algo>")
    add_ray_arguments(parser)
    args = parser.parse_args(argv)
    check_ray_arguments(args, parser)
    try:
        split_param(args.param)
    except ValueError as err:
        parser.error(str(err))
    if args.param == "env_kwargs.action_mode":
        parser.error("--param: action_mode is what the modes vary")
    if len(set(args.values)) != len(args.values):
        parser.error(f"--values: each value once, got {args.values}")
    args.config = args.config or Path(f"configs/{args.algo}.yml")
    args.out = args.out or Path("runs/tune") / f"{args.env}_{args.algo}"
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    run_provenance = provenance()  # the tree as tuning starts (cached for the process)
    from training.config import yaml_load
    from training.evaluate import evaluate

    values = {label: yaml_load(label) for label in args.values}
    pending = []
    for mode in args.modes:
        for label, value in values.items():
            run_dir = args.out / mode / label
            if finished(run_dir):
                print(f"tune: {mode} {args.param}={label}: done before, kept ({run_dir})", flush=True)
            else:
                print(f"tune: {mode} {args.param}={label}: to train -> {run_dir}", flush=True)
                pending.append(TrainRun(f"{mode}/{label}", tuple(train_args(args, mode, value, run_dir))))
    failed = sweep_exit_code(pending, args, "tune")
    if failed:
        return failed
    runs: dict[str, dict[str, Any]] = {mode: {} for mode in args.modes}
    for mode in args.modes:
        for label in values:
            result = evaluate(args.env, str(args.out / mode / label), args.eval_episodes, TUNE_EVAL_SEED)
            runs[mode][label] = result["summary"]
    picks = {mode: pick({label: s["return"] for label, s in runs[mode].items()}) for mode in args.modes}
    results = {
        "env": args.env, "algo": args.algo, "param": args.param, "labels": list(values), "modes": args.modes,
        "timesteps": args.timesteps, "seed": args.seed, "eval_episodes": args.eval_episodes,
        "eval_seed": TUNE_EVAL_SEED, "runs": runs, "picks": picks, "provenance": run_provenance,
    }  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(jsonio.dumps(results, indent=2))
    (args.out / "table.md").write_text(markdown_table(results) + "\n")
    for mode, label in picks.items():
        sections = tuned_config(args.config, args.algo, args.env, mode, args.param, values[label])
        header = f"# {args.config} with {args.param} = {label} for {mode} mode (python -m training.tune, {args.out})\n"
        (args.out / f"{args.algo}_{mode}.yml").write_text(header + yaml.safe_dump(sections, sort_keys=False))
    print(markdown_table(results))
    print(f"tune: {args.out / 'results.json'}, {args.out / 'table.md'}, " + ", ".join(
        str(args.out / f"{args.algo}_{mode}.yml") for mode in args.modes))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
