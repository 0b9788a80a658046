"""Evaluation rollouts of a policy on a humanoid-wbc environment, written as JSON.

Usage::

    python -m training.evaluate --env HumanoidWBC-v0 --policy nominal --episodes 5 --seed 0 \\
        --json runs/eval.json [--video runs/eval.mp4] [--max-steps 200] [--env-kwargs '{"push_magnitude_n": [0, 0]}']

POLICY is ``nominal`` (zero action: in wbc mode the WBC alone), ``scripted`` (the task's scenario,
where it has one, an error otherwise: ``HumanoidWBCWall-v0`` the wall experiment of *Partial Force
Control of Constrained Floating-Base Robots*, ``HumanoidWBC-v0`` its contact switching;
``--scenario ramp|abrupt`` picks the variant of the latter; ``HumanoidWBCSeesaw-v0`` the push test
of *iCub Balancing on a Seesaw* or, with ``--scenario sine``, its CoM tracking test; see
:mod:`humanoid_env.scenarios`), a run folder of ``python -m training.train`` or the path of a
stable-baselines3 PPO/SAC ``.zip`` model. A run folder (or a zip inside one: ``model.zip``,
``best/best_model.zip``, ``checkpoints/model_N_steps.zip``) brings its normalisation statistics
(VecNormalize, used with ``training=False``, ``norm_reward=False``) and the ``env_kwargs`` of its
``config.yaml``; ``--env-kwargs`` entries override those. Actions are deterministic.
``--plot PATH`` writes a PNG of the first episode: CoM vs reference, contact forces vs targets,
task signals (hand force, board tilt, ...) when the env's ``info`` has them.
The JSON holds ``{"env", "policy", "seed", "episodes": [{"return", "length", "fell", <task
metrics>}], "summary": {metric: mean}}``. Episode ``i`` is reset with seed ``S + i``.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the environments)
from humanoid_env.scenarios import Scenario, make_scenario
from training.metrics import metrics_for, summarise
from training.provenance import provenance
from training.run_folder import RunFiles, RunFolderError, find_run_files

Policy = Callable[[np.ndarray, gym.Env], np.ndarray]


class EvaluationError(RuntimeError):
    """A policy or option cannot be used; the message says why."""


#: torch intra-op threads while acting: the policies are small MLPs (one action takes about 0.5 ms
#: on one thread); with two threads on a loaded 2-core machine one took 8 ms (measured), as the
#: threads wait for each other. Set for the process when a model is loaded.
POLICY_TORCH_THREADS = 1


def load_model_policy(files: RunFiles) -> Policy:
    """Deterministic SB3 policy of ``files.model``, normalising observations as in training.
    Sets torch to :data:`POLICY_TORCH_THREADS` threads for the process."""
    import torch
    from stable_baselines3 import PPO, SAC

    torch.set_num_threads(POLICY_TORCH_THREADS)

    classes = {"ppo": PPO, "sac": SAC}
    algo = files.config.get("algo")
    errors = []
    model = None
    for name, algo_cls in classes.items():
        if algo is not None and name != algo:
            continue
        try:
            model = algo_cls.load(str(files.model), device="cpu")
            break
        except Exception as err:  # wrong algorithm class or not a model: try the next one
            errors.append(f"{algo_cls.__name__}: {err}")
    if model is None:
        raise EvaluationError(f"could not load {files.model} as a PPO or SAC model: {'; '.join(errors)}")
    normalise: Callable[[np.ndarray], np.ndarray] = lambda obs: obs  # noqa: E731
    if files.vecnormalize is not None:
        # NOTE: VecNormalize.load wants a VecEnv only to check spaces; normalize_obs needs just the
        # statistics, so unpickle them (what VecNormalize.load does) and freeze them.
        with open(files.vecnormalize, "rb") as handle:
            vecnorm = pickle.load(handle)
        vecnorm.training = False
        vecnorm.norm_reward = False
        normalise = vecnorm.normalize_obs
    elif files.config.get("config", {}).get("normalize"):
        raise EvaluationError(f"{files.model}: trained with VecNormalize, but its statistics are missing")

    def policy(obs: np.ndarray, env: gym.Env) -> np.ndarray:
        return model.predict(normalise(obs), deterministic=True)[0]

    policy.__name__ = str(files.model)  # what an evaluation record names as its policy
    return policy


def load_policy(spec: str) -> Policy:
    """``nominal``, ``scripted``, a run folder or a path to an SB3 PPO/SAC zip -> ``policy(obs, env) -> action``."""
    if spec in ("nominal", "scripted"):
        # scripted: the scenario drives the env through its hook (see evaluate()); the action is zero.
        def zero_action(obs: np.ndarray, env: gym.Env) -> np.ndarray:
            return np.zeros(env.action_space.shape, dtype=env.action_space.dtype)

        zero_action.__name__ = spec  # what an evaluation record names as its policy
        return zero_action
    return load_model_policy(policy_files(spec))


def policy_files(spec: str | Path) -> RunFiles:
    """:func:`training.run_folder.find_run_files` of a ``--policy`` that is neither ``nominal``
    nor ``scripted``; raises ``EvaluationError`` naming what ``--policy`` may be."""
    try:
        return find_run_files(spec)
    except RunFolderError as err:
        raise EvaluationError(f"--policy must be 'nominal', 'scripted', a model file or a run folder: {err}") from None


def write_video(frames: list[np.ndarray], path: Path, fps: int) -> Path:
    """Write ``frames`` (each (H, W, 3) uint8) as mp4; as gif if imageio has no ffmpeg plugin."""
    import imageio.v2 as imageio

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        imageio.mimsave(str(path), frames, fps=fps)
        return path
    except Exception as err:  # no ffmpeg backend for mp4
        gif = path.with_suffix(".gif")
        print(f"mp4 writer unavailable ({err.__class__.__name__}: {err}); writing {gif}", file=sys.stderr)
        imageio.mimsave(str(gif), frames, duration=1.0 / fps, loop=0)
        return gif


def evaluate(
    env_id: str,
    policy: str | Policy,
    episodes: int,
    seed: int,
    max_steps: int | None = None,
    video: Path | None = None,
    env_kwargs: dict[str, Any] | None = None,
    plot: Path | None = None,
    scenario: str | None = None,
    on_reset: Callable[[gym.Env, int], None] | None = None,
) -> dict[str, Any]:
    """Roll out ``policy`` for ``episodes`` episodes and return the evaluation record.

    ``policy``: a :func:`load_policy` spec, or a ``policy(obs, env) -> action`` callable (recorded by
    its ``__name__``). For a trained policy the run's ``env_kwargs`` are the base and ``env_kwargs``
    override them.
    ``policy="scripted"`` runs the env's scripted scenario ``scenario`` (None: its default; see
    :data:`humanoid_env.scenarios.SCENARIOS`): its ``env_kwargs`` (pushes off) are the base,
    an episode ends when the script does (or earlier on termination or ``max_steps``), and its
    metrics are merged into each episode's record (replacing the env's generic ones of the same
    name).
    ``on_reset(env, episode_seed)``, if given, runs right after each episode's reset (a policy's
    per-episode state, a perturbation of the initial state: see :mod:`training.comparison`).
    """
    if episodes < 1:
        raise EvaluationError(f"--episodes must be >= 1, got {episodes}")
    make_kwargs: dict[str, Any] = {}
    script: Scenario | None = None
    if scenario is not None and policy != "scripted":
        raise EvaluationError("--scenario needs --policy scripted")
    if policy == "scripted":
        try:
            script = make_scenario(env_id, scenario)
        except ValueError as err:
            raise EvaluationError(str(err)) from err
        make_kwargs.update(script.env_kwargs)
    if callable(policy):
        act = policy
    elif policy in ("nominal", "scripted"):
        act = load_policy(policy)
    else:
        files = policy_files(policy)
        act = load_model_policy(files)
        trained_on = files.config.get("env")
        if trained_on is not None and trained_on != env_id.split(":")[-1]:
            print(f"warning: {files.model} was trained on {trained_on}, not {env_id}", file=sys.stderr)
        make_kwargs.update(files.env_kwargs)
    make_kwargs.update(env_kwargs or {})
    used_kwargs = dict(make_kwargs)
    make_kwargs.setdefault("timing_in_info", True)  # for wbc_solve_us_median; never changes the rollout
    if max_steps is not None:
        make_kwargs["max_episode_steps"] = int(max_steps)
    if video is not None:
        make_kwargs["render_mode"] = "rgb_array"
    env = gym.make(env_id, **make_kwargs)
    if script is not None:
        env.unwrapped.set_scenario(script)
    frames: list[np.ndarray] = []
    trace: dict[str, list] = {}
    records = []
    try:
        for i in range(episodes):
            obs, _ = env.reset(seed=seed + i)
            if on_reset is not None:
                on_reset(env, seed + i)
            metrics = metrics_for(env_id)
            if video is not None and i == 0:
                frames.append(env.render())
            done = False
            while not done:
                obs, reward, terminated, truncated, info = env.step(act(obs, env))
                metrics.step(reward, terminated, info)
                if video is not None and i == 0:
                    frames.append(env.render())
                if plot is not None and i == 0:
                    record_trace(trace, reward, info)
                done = terminated or truncated or (script is not None and script.finished(env.unwrapped))
            record = metrics.result()
            if script is not None:
                record.update(script.result())
            records.append(record)
    finally:
        env.close()
    result: dict[str, Any] = {
        "env": env_id,
        "policy": getattr(policy, "__name__", repr(policy)) if callable(policy) else policy,
        "seed": seed,
        "env_kwargs": used_kwargs,
        "episodes": records,
        "summary": summarise(records),
    }
    if script is not None:
        result["scenario"] = script.name
    if video is not None:
        fps = int(env.metadata.get("render_fps", 50))
        result["video"] = str(write_video(frames, video, fps))
    if plot is not None:
        from training.plotting import plot_episode

        title = f"{env_id} / {policy} (seed {seed}, episode 0)"
        result["plot"] = str(plot_episode(trace, plot, title))
    return result


#: ``info`` entries plotted as task signals when an env provides them (name contains one of these).
TASK_SIGNAL_WORDS = ("hand", "tilt", "board", "wall")


def record_trace(trace: dict[str, list], reward: float, info: dict[str, Any]) -> None:
    """Append one env step of ``info`` to ``trace`` (plain lists, for :mod:`training.plotting`).

    Keys: ``time`` [s], ``reward``, ``com`` / ``com_ref`` ((3,) [m]), ``force/<contact>`` ((3,) [N],
    measured, world frame), ``force_target/<contact>`` ([N] or (3,) [N]), ``push_force`` ((3,) [N]),
    ``task/<info key>`` for numeric entries named with :data:`TASK_SIGNAL_WORDS`.
    """

    def add(key: str, value: Any) -> None:
        trace.setdefault(key, []).append(np.asarray(value, dtype=float).tolist())

    add("time", info.get("time", len(trace.get("time", [])) * 0.02))
    add("reward", reward)
    for key in ("com", "com_ref", "push_force"):
        if key in info:
            add(key, info[key])
    for name, force in (info.get("contact_forces") or {}).items():
        add(f"force/{name}", force)
    for name, target in (info.get("contact_force_targets") or {}).items():
        add(f"force_target/{name}", target)
    for key, value in info.items():
        if key.startswith("reward_") or key in ("contact_forces", "contact_force_targets"):
            continue
        if any(word in key for word in TASK_SIGNAL_WORDS):
            try:
                array = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                continue
            if array.size <= 6:
                add(f"task/{key}", array)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True, help="environment id, e.g. HumanoidWBC-v0")
    parser.add_argument("--policy", default="nominal", help="nominal | scripted | run folder | .zip")
    parser.add_argument("--episodes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, required=True, help="output JSON file")
    parser.add_argument("--video", type=Path, default=None, help="mp4 of the first episode (gif without ffmpeg)")
    parser.add_argument("--max-steps", type=int, default=None, help="episode step limit (shorter episodes)")
    parser.add_argument("--env-kwargs", type=json.loads, default=None, help="JSON dict of gym.make keywords")
    parser.add_argument("--plot", type=Path, default=None, help="PNG of the first episode (CoM, forces)")
    parser.add_argument(
        "--scenario", default=None,
        help="with --policy scripted: HumanoidWBC-v0: ramp (default) | abrupt; HumanoidWBCWall-v0: lean (default); "
        "HumanoidWBCSeesaw-v0: push (default) | sine",
    )  # fmt: skip
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        result = evaluate(
            args.env, args.policy, args.episodes, args.seed, args.max_steps, args.video, args.env_kwargs, args.plot,
            args.scenario,
        )  # fmt: skip
    except (EvaluationError, ValueError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    result["provenance"] = provenance()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2))
    print(f"{args.env} / {args.policy}: {len(result['episodes'])} episode(s) -> {args.json}")
    for key, value in result["summary"].items():
        print(f"  {key}: {value:.6g}")
    for key in ("video", "plot"):
        if key in result:
            print(f"  {key}: {result[key]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
