"""The policies shipped in ``policies/<env id>/``, and how one is compared with the nominal controller.

A shipped policy is a run folder reduced to what :func:`training.evaluate.evaluate` loads:
``model.zip``, ``vecnormalize.pkl``, ``config.yaml`` (its ``env_kwargs``), plus ``train_info.json``
and ``command.txt`` (how it was trained). Copy one in from a training run with::

    python -m training.shipped ship --run RUN_DIR [--model best|final]

and compare it with the nominal controller (zero action: the WBC alone) on the same fixed seeds::

    python -m training.shipped compare --env HumanoidWBC-v0 --episodes 20 --seed 1000 [--json out.json]

which prints a Markdown table (the README's) and writes both evaluation records.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from training.evaluate import evaluate
from training.provenance import provenance
from training.train import (
    BEST_DIR,
    BEST_MODEL_FILE,
    COMMAND_FILE,
    CONFIG_FILE,
    INFO_FILE,
    MODEL_FILE,
    VECNORM_FILE,
    read_run_config,
)

POLICY_ROOT = Path(__file__).resolve().parent.parent / "policies"

#: env id -> the task's main metric (lower is better), as the issue names them; ``fell``: the fall rate.
MAIN_METRIC: dict[str, str] = {
    "HumanoidWBC-v0": "fell",
    "HumanoidWBCWall-v0": "hand_force_rmse_n",
    "HumanoidWBCSeesaw-v0": "board_angle_rms_rad",
}

#: Metrics of the comparison table per env, in order (all from ``training.metrics``).
TABLE_METRICS: dict[str, tuple[str, ...]] = {
    "HumanoidWBC-v0": ("fell", "pushes_survived", "pushes_total", "com_rmse_m", "return"),
    "HumanoidWBCWall-v0": ("hand_force_rmse_n", "fell", "hand_contact_lost_s", "com_rmse_m", "return"),
    "HumanoidWBCSeesaw-v0": ("board_angle_rms_rad", "fell", "pushes_survived", "com_rmse_m", "return"),
}

#: What a shipped folder keeps of its run besides the model and its statistics.
_RUN_RECORDS = (CONFIG_FILE, INFO_FILE, COMMAND_FILE)


def policy_dir(env_id: str) -> Path:
    """``policies/<env id>``; raises ``FileNotFoundError`` naming the shipped ones if absent."""
    path = POLICY_ROOT / env_id
    if not (path / MODEL_FILE).is_file():
        raise FileNotFoundError(f"no shipped policy for {env_id!r}; shipped: {shipped_envs()}")
    return path


def shipped_envs() -> list[str]:
    """Env ids with a shipped policy."""
    return sorted(p.name for p in POLICY_ROOT.glob("*") if (p / MODEL_FILE).is_file())


def ship(run_dir: Path, model: str = "best") -> Path:
    """Copy a training run's ``best`` (periodic evaluation's best) or ``final`` model into
    ``policies/<env id>/`` with its statistics and config; returns that folder."""
    config = read_run_config(run_dir)
    source = run_dir / BEST_DIR if model == "best" else run_dir
    zip_name = BEST_MODEL_FILE if model == "best" else MODEL_FILE
    if not (source / zip_name).is_file():
        raise FileNotFoundError(f"{source / zip_name} not found (train longer than one evaluation period?)")
    target = POLICY_ROOT / config["env"]
    target.mkdir(parents=True, exist_ok=True)
    save_without_optimizer_state(source / zip_name, target / MODEL_FILE, config["algo"])
    shutil.copyfile(source / VECNORM_FILE, target / VECNORM_FILE)
    for name in _RUN_RECORDS:
        if (run_dir / name).is_file():
            shutil.copyfile(run_dir / name, target / name)
    info_path = target / INFO_FILE
    info = json.loads(info_path.read_text()) if info_path.is_file() else {}
    info["shipped_model"] = model
    info_path.write_text(json.dumps(info, indent=2))
    return target


def save_without_optimizer_state(source: Path, target: Path, algo: str) -> None:
    """Re-save an SB3 model with empty optimizer state (Adam's moments are two thirds of a PPO zip
    and play no part in acting; training on from the shipped zip starts them afresh)."""
    from stable_baselines3 import PPO, SAC

    model = {"ppo": PPO, "sac": SAC}[algo].load(source, device="cpu")
    owners = [model.policy, getattr(model, "actor", None), getattr(model, "critic", None)]
    optimizers = [owner.optimizer for owner in owners if owner is not None and hasattr(owner, "optimizer")]
    optimizers += [model.ent_coef_optimizer] if getattr(model, "ent_coef_optimizer", None) is not None else []
    for optimizer in optimizers:
        optimizer.state.clear()
    model.save(target)


def compare(env_id: str, episodes: int, seed: int, max_steps: int | None = None) -> dict[str, Any]:
    """The nominal controller and the shipped policy on the same seeds and env keywords.

    Returns ``{"env", "episodes", "seed", "max_steps", "main_metric", "nominal": record,
    "trained": record}`` (records as :func:`training.evaluate.evaluate` returns them).
    """
    folder = policy_dir(env_id)
    env_kwargs = read_run_config(folder)["config"].get("env_kwargs", {})
    nominal = evaluate(env_id, "nominal", episodes, seed, max_steps=max_steps, env_kwargs=env_kwargs)
    trained = evaluate(env_id, str(folder), episodes, seed, max_steps=max_steps)
    return {
        "env": env_id,
        "episodes": episodes,
        "seed": seed,
        "max_steps": max_steps,
        "main_metric": MAIN_METRIC[env_id],
        "nominal": nominal,
        "trained": trained,
    }


def markdown_table(comparison: dict[str, Any]) -> str:
    """The README's table: one row per metric, nominal vs trained (episode means)."""
    env_id = comparison["env"]
    lines = ["| metric | nominal WBC | trained policy |", "|---|---|---|"]
    for key in TABLE_METRICS[env_id]:
        values = [comparison[who]["summary"][key] for who in ("nominal", "trained")]
        label = "fall rate" if key == "fell" else key
        if key == MAIN_METRIC[env_id]:
            label = f"**{label}**"
        lines.append(f"| {label} | " + " | ".join(f"{v:.4g}" for v in values) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.shipped", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ship_parser = sub.add_parser("ship", help="copy a training run into policies/<env id>/")
    ship_parser.add_argument("--run", type=Path, required=True)
    ship_parser.add_argument("--model", choices=("best", "final"), default="best")
    compare_parser = sub.add_parser("compare", help="nominal controller vs the shipped policy")
    compare_parser.add_argument("--env", required=True, choices=sorted(MAIN_METRIC))
    compare_parser.add_argument("--episodes", type=int, default=20)
    compare_parser.add_argument("--seed", type=int, default=1000)
    compare_parser.add_argument("--max-steps", type=int, default=None)
    compare_parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.command == "ship":
        print(f"shipped: {ship(args.run, args.model)}")
        return 0
    comparison = compare(args.env, args.episodes, args.seed, args.max_steps)
    print(f"{args.env}: {args.episodes} episodes from seed {args.seed} (episode means)\n")
    print(markdown_table(comparison))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({**comparison, "provenance": provenance()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
