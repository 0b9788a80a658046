"""The policies shipped in ``policies/<env id>/``, and how one is compared with the nominal controller.

A shipped policy is a run folder reduced to what [`training.evaluate.evaluate`][training.evaluate.evaluate] loads:
``model.zip``, ``vecnormalize.json`` (its normalisation statistics, read without running code),
``config.yaml`` (its ``env_kwargs``), plus ``train_info.json`` and ``command.txt`` (how it was
trained). No pickle is shipped: evaluation loads the folder through its safe path. Copy one in
from a training run with:

    python -m training.shipped ship --run RUN_DIR [--model best|final]

and compare it with the nominal controller (zero action: the WBC alone) on the same fixed seeds:

    python -m training.shipped compare --env HumanoidWBC-v0 --episodes 20 --seed 1000 [--json out.json]

which prints a Markdown table (the README's) and the verdict on the env's claim ([`CLAIMS`][training.shipped.CLAIMS], judged
by [`training.comparison`][training.comparison]) and writes both evaluation records.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from humanoid_env.registry import check_task_ids
from training import jsonio
from training.comparison import Claim, NoisyNominal, OffsetPolicy, judge, rollouts
from training.evaluate import Policy, load_policy
from training.provenance import provenance
from training.run_folder import (
    BEST_DIR,
    BEST_MODEL_FILE,
    COMMAND_FILE,
    CONFIG_FILE,
    INFO_FILE,
    MODEL_FILE,
    STATS_FILE,
    read_run_config,
)

POLICY_ROOT = Path(__file__).resolve().parent.parent / "policies"

#: env id (a registered task) -> what its shipped policy is claimed to do against the nominal controller (zero action),
#: on paired episodes, judged by [`training.comparison.judge`][training.comparison.judge] (one-sided 95 % bootstrap upper
#: bounds of candidate - nominal). What each claim means, and why it is this one:
#:
#: - Balance: falls within the margin below, and its typical CoM tracking error over the first 5 s (the
#:   per-episode median) is at most 10 mm above the nominal controller's. The policy trades
#:   tracking for staying up (README); falls alone would not do as a claim: the policy with +0.2 on
#:   every action (a negative control) fell less than the nominal controller in one trial (4 vs 8
#:   of 12 episodes) and as often in another, but it tracks 13.6 mm worse where the policy is 7.0 mm
#:   worse (16 episodes, seeds 7000-7015, per-episode spread 3.3 and 1.6 mm).
#: - Wall: falls within the margin below, and its typical hand-force error (the per-episode median) is at
#:   most 0.7 N above the nominal controller's (the policy's authority is +-5 N; a +1 N bias, the
#:   offset control, fails). Its lower RMSE (0.55 vs 0.71 N, README) comes from the nominal
#:   controller's falls, which swamp the RMSE; the median is what a steady bias moves. Measured
#:   on seeds 7000-7011: +0.37 N for the policy (its steady target offset), +1.03 N with the offset.
#: - Seesaw: the board-angle RMS at least 3 mrad lower (a consistent gain: lower in 19 of 20
#:   README episodes; -6.6 mrad on seeds 7000-7011, paired spread 2.8 mrad), falls within the
#:   margin below.
#:
#: Falls, in every claim: at most 10 points more often than the nominal controller (the 95 % upper
#: bound of the paired fall-rate difference <= +0.1). First the margin was 0 ("no more falls"):
#: that held in every matrix cell on the CI seeds, but not on the README's balance seeds
#: 1000-1019, where the policy fell in 3 episodes of 20 against the nominal controller's 6, two
#: of them where the nominal controller stood (bound +0.05): 20 episodes cannot show "never more".
#: With 12 episodes one extra fall where the nominal controller never falls still fails (bound
#: about +0.25).
#:
#: The metric margins were set from trial runs on the CI seeds (the reference cell) before the
#: other cells of the perturbation matrix ran.
CLAIMS: dict[str, Claim] = {
    "HumanoidWBC-v0": Claim("com_error_median_5s_m", metric_margin=0.010, fall_margin=0.1, confidence=0.95),
    "HumanoidWBCWall-v0": Claim("hand_force_median_error_n", metric_margin=0.7, fall_margin=0.1, confidence=0.95),
    "HumanoidWBCSeesaw-v0": Claim("board_angle_rms_rad", metric_margin=-0.003, fall_margin=0.1, confidence=0.95),
}
#: env id -> the task's main metric (lower is better), the one its claim bounds.
MAIN_METRIC: dict[str, str] = {env_id: claim.metric for env_id, claim in CLAIMS.items()}

#: env id -> (episodes, first seed, max env steps per episode or None: the full episode) of the
#: CI check (``tests/test_shipped_policies.py``) and of every cell of the perturbation matrix
#: (``python -m benchmarks.shipped_matrix``). Episode i resets with seed + i (never a training or
#: selection seed). Full episodes everywhere: falls come late (the seesaw's mostly after 10 s).
CHECK_PROTOCOL: dict[str, tuple[int, int, int | None]] = {
    "HumanoidWBC-v0": (16, 7000, None),
    "HumanoidWBCWall-v0": (12, 7000, None),
    "HumanoidWBCSeesaw-v0": (12, 7000, None),
}
#: env id -> env keywords of the CI check and the matrix (over the policy's own): pushes milder
#: than the envs' defaults, those the defaults were before 2026-12-01, under which the nominal
#: controller seldom falls (balance 0, wall 2, seesaw 0 of 20 episodes from seed 5000,
#: ``benchmarks.push_calibration``). At the defaults it falls in a quarter of the episodes or
#: more, and on 12-16 paired episodes the fall-rate bound then moves by a tenth with each
#: episode that last bits tip: a verdict chance would decide. The claims at the default pushes
#: are measured on 20 episodes by ``python -m training.shipped compare`` (results/compare).
CHECK_ENV_KWARGS: dict[str, dict[str, Any]] = {
    "HumanoidWBC-v0": {"push_magnitude_n": [20.0, 80.0]},
    "HumanoidWBCWall-v0": {"push_magnitude_n": [20.0, 80.0]},
    "HumanoidWBCSeesaw-v0": {"push_magnitude_n": [10.0, 40.0]},
}

#: Metrics of the comparison table per env, in order (all from ``training.metrics``).
TABLE_METRICS: dict[str, tuple[str, ...]] = {
    "HumanoidWBC-v0": ("fell", "com_error_median_5s_m", "pushes_survived", "pushes_total", "com_rmse_m", "return"),
    "HumanoidWBCWall-v0": (
        "hand_force_median_error_n", "hand_force_rmse_n", "fell", "hand_contact_lost_s", "com_rmse_m", "return",
    ),
    "HumanoidWBCSeesaw-v0": ("board_angle_rms_rad", "fell", "pushes_survived", "com_rmse_m", "return"),
}


def _check_tables() -> None:
    """The tables above name registered tasks only, all the same ones; ``ValueError`` otherwise (at import).
    That they cover exactly the shipped policies (``policies/``, [`shipped_envs`][training.shipped.shipped_envs]) is
    ``tests/test_shipped_policies.py``'s check: an installed package has no ``policies/`` folder."""
    tables = {
        "CLAIMS": CLAIMS, "CHECK_PROTOCOL": CHECK_PROTOCOL, "CHECK_ENV_KWARGS": CHECK_ENV_KWARGS, "TABLE_METRICS": TABLE_METRICS,
    }  # fmt: skip
    for name, table in tables.items():
        check_task_ids(table, f"training.shipped.{name}")
        if set(table) != set(CLAIMS):
            raise ValueError(f"training.shipped.{name} names {sorted(table)}, CLAIMS {sorted(CLAIMS)}: not the same tasks")


_check_tables()

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
    ``policies/<env id>/`` with its statistics (the JSON file, not the pickle) and config;
    returns that folder."""
    config = read_run_config(run_dir)
    source = run_dir / BEST_DIR if model == "best" else run_dir
    zip_name = BEST_MODEL_FILE if model == "best" else MODEL_FILE
    if not (source / zip_name).is_file():
        raise FileNotFoundError(f"{source / zip_name} not found (train longer than one evaluation period?)")
    if not (source / STATS_FILE).is_file():
        raise FileNotFoundError(
            f"{source / STATS_FILE} not found (a run from before the JSON statistics: convert it first with "
            f"`python -m training.normalisation convert {run_dir}`, if you trust its pickles)"
        )
    target = POLICY_ROOT / config["env"]
    target.mkdir(parents=True, exist_ok=True)
    save_without_optimizer_state(source / zip_name, target / MODEL_FILE, config["algo"])
    shutil.copyfile(source / STATS_FILE, target / STATS_FILE)
    for name in _RUN_RECORDS:
        if (run_dir / name).is_file():
            shutil.copyfile(run_dir / name, target / name)
    info_path = target / INFO_FILE
    info = json.loads(info_path.read_text()) if info_path.is_file() else {}
    info["shipped_model"] = model
    info_path.write_text(jsonio.dumps(info, indent=2))
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


def compare(
    env_id: str,
    episodes: int,
    seed: int,
    max_steps: int | None = None,
    perturbation: str = "reference",
    controls: bool = False,
    env_kwargs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The nominal controller and the shipped policy on the same seeds and env keywords (the
    policy's, updated by ``env_kwargs``, e.g. [`CHECK_ENV_KWARGS`][training.shipped.CHECK_ENV_KWARGS]), judged against the env's
    [`CLAIMS`][training.shipped.CLAIMS] entry by [`training.comparison.judge`][training.comparison.judge].

    ``perturbation``: a cell of [`training.comparison.PERTURBATIONS`][training.comparison.PERTURBATIONS] (threads are set by the
    calling process). ``controls``: also roll out the negative controls and judge them by the
    same claim (each must fail).

    Returns ``{"env", "episodes", "seed", "max_steps", "perturbation", "main_metric", "claim",
    "verdict", "nominal": record, "trained": record}`` (records as
    [`training.evaluate.evaluate`][training.evaluate.evaluate] returns them) and, with ``controls``, ``"controls": {name:
    {"record", "verdict"}}``.
    """
    folder = policy_dir(env_id)
    env_kwargs = {**read_run_config(folder)["config"].get("env_kwargs", {}), **(env_kwargs or {})}
    claim = CLAIMS[env_id]
    trained_policy = load_policy(str(folder))

    def run(policy: Policy) -> dict[str, Any]:
        return rollouts(env_id, policy, episodes, seed, perturbation, env_kwargs, max_steps)

    nominal = run(load_policy("nominal"))
    trained = run(trained_policy)
    result: dict[str, Any] = {
        "env": env_id,
        "episodes": episodes,
        "seed": seed,
        "max_steps": max_steps,
        "env_kwargs": env_kwargs,
        "perturbation": perturbation,
        "main_metric": claim.metric,
        "claim": asdict(claim),
        "verdict": judge(nominal["episodes"], trained["episodes"], claim).as_dict(),
        "nominal": nominal,
        "trained": trained,
    }
    if controls:
        result["controls"] = {}
        for control in (NoisyNominal(), OffsetPolicy(trained_policy)):
            record = run(control)
            verdict = judge(nominal["episodes"], record["episodes"], claim)
            result["controls"][control.__name__] = {"record": record, "verdict": verdict.as_dict()}
    return result


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
    compare_parser.add_argument("--env", required=True, choices=sorted(CLAIMS))
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
    verdict = comparison["verdict"]
    print(f"\nclaim ({CLAIMS[args.env].describe()}): {'holds' if verdict['passed'] else 'does not hold'}")
    print(
        f"  {verdict['claim']['metric']}: mean difference {verdict['metric_difference']:+.4g}, upper bound "
        f"{verdict['metric_upper_bound']:+.4g}; fall rate: {verdict['fall_difference']:+.3g}, upper bound "
        f"{verdict['fall_upper_bound']:+.3g}; {verdict['candidate_better_episodes']} of {verdict['episodes']} "
        "episodes better on the metric"
    )
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(jsonio.dumps({**comparison, "provenance": provenance()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
