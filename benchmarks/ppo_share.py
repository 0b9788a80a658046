"""PPO end to end: where a training run's time goes (the envs' rollouts, PPO's updates), per vec env.

Issue 41 point 3 asks for PPO's update share beside the env's before an end-to-end target is
set. Each run is what ``training.train`` builds for the config (the env in SB3's ``Monitor``,
``VecNormalize``, ``PPO("MlpPolicy", device="cpu")`` with the config's settings), without its
callbacks (evaluation, checkpoints: none here) and with ``torch.set_num_threads(--torch-threads)``
as ``training.train --threads`` sets it. Two parts of ``model.learn`` are timed by wrapping the
model's own methods:

- **rollout**: ``collect_rollouts`` (``n_steps`` vector steps: the envs' steps, the vec env's
  transport, VecNormalize, the policy's forward pass per step, the buffer); within it, **env**:
  the vec env's own ``step_async`` + ``step_wait`` (under ``VecNormalize``: the envs' steps, their
  resets, and for ``subprocess`` the pipes and the lockstep wait);
- **update**: ``train`` (``n_epochs`` over the rollout in minibatches of ``batch_size``: backward
  passes, Adam; stops early at ``target_kl``);
- the rest of ``learn`` (setup, logging) is ``wall - rollout - update``.

Two rates: ``steps_per_s`` over the whole run (the vec env's construction included: a short run's
figure) and ``learn_steps_per_s`` over ``model.learn`` alone (a long run's, where start-up is
negligible). The vec envs (``--vec-envs``) take turns, round by round, each from a fresh process state of its
envs (``SubprocVecEnv``'s workers start in each run; their start-up is inside the wall time, not
inside rollout or update). The same seed in every run: ``subprocess`` and ``threads`` (training's
``vec_env`` choices) are the same run bit for bit, so they do the same work; ``dummy`` (SB3's
``DummyVecEnv``, the envs one after another: a reference, not a training choice) rounds rewards to
float32, so its run drifts from theirs in the last bits and does like, not equal, work.

    python -m benchmarks.ppo_share [--env HumanoidWBC-v0] [--config configs/ablation/HumanoidWBC-v0_ppo_wbc.yml]
        [--timesteps 8192] [--rounds 3] [--vec-envs subprocess threads dummy] [--torch-threads 1]
        [--params n_envs=4 ...]
        [--json benchmarks/results/ppo_share.json]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import RESULTS, machine, timed, write_json
from training.config import VEC_ENVS, algo_kwargs, parse_key_values, resolve_config
from training.train import make_env_fns, make_vec_env

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = ROOT / "configs" / "ablation" / "HumanoidWBC-v0_ppo_wbc.yml"
#: Training's vec envs and SB3's DummyVecEnv as a reference.
KINDS = (*VEC_ENVS, "dummy")


def build_vec_env(env_id: str, env_kwargs: dict[str, Any], n_envs: int, kind: str):
    """``training.train.make_vec_env``'s vec env, or for ``dummy`` a ``DummyVecEnv`` of the same envs."""
    if kind != "dummy":
        return make_vec_env(env_id, env_kwargs, n_envs, kind=kind)
    from stable_baselines3.common.vec_env import DummyVecEnv

    return DummyVecEnv(make_env_fns(env_id, env_kwargs, n_envs))


class PhaseTimer:
    """Wraps ``model.collect_rollouts`` and ``model.train``, and the vec env's ``step_async`` and
    ``step_wait`` (instance attributes shadowing the classes' methods, through
    ``benchmarks.common.timed``), and sums their wall time [s] per phase in ``seconds[phase][0]``."""

    def __init__(self, model, vec_env):
        self.seconds = {phase: [0.0] for phase in ("rollout", "update", "env")}
        self.calls = {phase: [0] for phase in self.seconds}
        for owner, phase, name in (
            (model, "rollout", "collect_rollouts"), (model, "update", "train"),
            (vec_env, "env", "step_async"), (vec_env, "env", "step_wait"),
        ):  # fmt: skip
            setattr(owner, name, timed(getattr(owner, name), self.seconds[phase], self.calls[phase]))


def run_once(env_id: str, config: dict[str, Any], kind: str, timesteps: int, seed: int) -> dict[str, float]:
    """One PPO run of ``timesteps`` env steps on the vec env ``kind``: wall, rollout and update
    seconds, env steps per second."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecNormalize

    start = time.perf_counter()
    base = venv = build_vec_env(env_id, dict(config["env_kwargs"]), config["n_envs"], kind)
    if config["normalize"]:
        venv = VecNormalize(
            venv, norm_obs=config["norm_obs"], norm_reward=config["norm_reward"],
            clip_obs=config["clip_obs"], gamma=config["gamma"],
        )  # fmt: skip
    try:
        model = PPO("MlpPolicy", venv, seed=seed, device="cpu", verbose=0, **algo_kwargs(config))
        timer = PhaseTimer(model, base)
        learn_start = time.perf_counter()
        model.learn(total_timesteps=timesteps)
        learn = time.perf_counter() - learn_start
        steps = int(model.num_timesteps)
    finally:
        venv.close()
    wall = time.perf_counter() - start
    rollout, update, env = (timer.seconds[phase][0] for phase in ("rollout", "update", "env"))
    return {
        "wall_s": wall,
        "learn_s": learn,
        "steps": steps,
        "steps_per_s": steps / wall,
        "learn_steps_per_s": steps / learn,
        "rollout_s": rollout,
        "env_s": env,
        "policy_and_buffer_s": rollout - env,
        "update_s": update,
        "rest_s": wall - rollout - update,
        "rollout_steps_per_s": steps / rollout,
        "update_share": update / wall,
        "rollout_share": rollout / wall,
        "env_share": env / wall,
        "env_steps_per_s": steps / env,
        "updates": timer.calls["update"][0],
    }


def summarise(runs: list[dict[str, float]]) -> dict[str, float]:
    """Medians over the rounds of each figure."""
    return {key: float(np.median([run[key] for run in runs])) for key in runs[0]}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="HumanoidWBC-v0")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    parser.add_argument("--timesteps", type=int, default=8192, help="env steps per run (all envs)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--vec-envs", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--params", nargs="*", default=None, metavar="KEY=VALUE", help="override the config's settings")
    parser.add_argument("--torch-threads", type=int, default=1, help="torch.set_num_threads (training.train --threads)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=RESULTS / "ppo_share.json")
    args = parser.parse_args(argv)
    if args.timesteps < 1 or args.rounds < 1 or args.torch_threads < 1:
        parser.error("--timesteps, --rounds and --torch-threads must be at least 1")
    import torch

    torch.set_num_threads(args.torch_threads)
    config = resolve_config("ppo", args.env, args.config, parse_key_values(args.params, "--params"))
    start = machine()
    runs: dict[str, list[dict[str, float]]] = {kind: [] for kind in args.vec_envs}
    for round_index in range(args.rounds):
        for kind in args.vec_envs:
            run = run_once(args.env, config, kind, args.timesteps, args.seed)
            runs[kind].append(run)
            print(
                f"round {round_index + 1}/{args.rounds} {kind:<10} {run['steps_per_s']:7.0f} steps/s end to end; "
                f"rollout {run['rollout_s']:6.2f} s ({run['rollout_steps_per_s']:.0f} steps/s; env "
                f"{run['env_s']:.2f} s), "
                f"update {run['update_s']:6.2f} s ({100 * run['update_share']:.0f} %), rest {run['rest_s']:.2f} s",
                flush=True,
            )
    medians = {kind: summarise(kind_runs) for kind, kind_runs in runs.items()}
    base = args.vec_envs[0]
    print(f"\n{args.env}, {config['n_envs']} envs, {args.timesteps} steps per run, medians of {args.rounds} rounds:")
    print(
        f"  {'vec env':<12}{'steps/s':>9}{'learn steps/s':>15}{'env steps/s':>13}{'env %':>7}{'policy+buffer %':>17}{'update %':>10}"
        f"{'rest %':>8}{'vs ' + base:>10}{'learn':>8}"
    )
    for kind, row in medians.items():
        pairs = list(zip(runs[kind], runs[base], strict=True))
        ratio = np.median([r["steps_per_s"] / b["steps_per_s"] for r, b in pairs])
        row["per_round_ratio_to_first_median"] = float(ratio)
        row["per_round_learn_ratio_to_first_median"] = float(
            np.median([r["learn_steps_per_s"] / b["learn_steps_per_s"] for r, b in pairs])
        )
        policy = 100 * row["policy_and_buffer_s"] / row["wall_s"]
        rest = 100 * row["rest_s"] / row["wall_s"]
        print(
            f"  {kind:<12}{row['steps_per_s']:>9.0f}{row['learn_steps_per_s']:>15.0f}{row['env_steps_per_s']:>13.0f}{100 * row['env_share']:>7.0f}"
            f"{policy:>17.0f}{100 * row['update_share']:>10.0f}{rest:>8.0f}{ratio:>10.2f}"
            f"{row['per_round_learn_ratio_to_first_median']:>8.2f}"
        )
    settings = {
        "env": args.env, "config": str(args.config.relative_to(ROOT) if args.config.is_relative_to(ROOT) else args.config),
        "timesteps": args.timesteps, "rounds": args.rounds, "vec_envs": args.vec_envs,
        "n_envs": config["n_envs"], "n_steps": config["n_steps"], "batch_size": config["batch_size"],
        "n_epochs": config["n_epochs"], "target_kl": config["target_kl"], "torch_threads": args.torch_threads,
        "seed": args.seed,
    }  # fmt: skip
    results = {"runs": runs, "medians": medians}
    write_json(args.json, settings, results, start)
    return results


if __name__ == "__main__":
    main()
