"""Evaluation rollouts of a policy on a humanoid-wbc environment, written as JSON.

Usage::

    python -m training.evaluate --env HumanoidWBC-v0 --policy nominal --episodes 5 --seed 0 \\
        --json runs/eval.json [--video runs/eval.mp4] [--max-steps 200] [--env-kwargs '{"push_magnitude_n": [0, 0]}']

POLICY is ``nominal`` (zero action: in wbc mode the WBC alone), ``scripted`` (the task's scenario,
where it has one; an error otherwise) or the path of a stable-baselines3 PPO/SAC ``.zip`` model.
The JSON holds ``{"env", "policy", "seed", "episodes": [{"return", "length", "fell", <task
metrics>}], "summary": {metric: mean}}``. Episode ``i`` is reset with seed ``S + i``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the environments)
from training.metrics import metrics_for, summarise

Policy = Callable[[np.ndarray, gym.Env], np.ndarray]


class EvaluationError(RuntimeError):
    """A policy or option cannot be used; the message says why."""


def load_policy(spec: str) -> Policy:
    """``nominal``, ``scripted`` or a path to an SB3 PPO/SAC zip -> ``policy(obs, env) -> action``."""
    if spec == "nominal":
        return lambda obs, env: np.zeros(env.action_space.shape, dtype=env.action_space.dtype)
    if spec == "scripted":

        def scripted(obs: np.ndarray, env: gym.Env) -> np.ndarray:
            action = getattr(env.unwrapped, "scripted_action", None)
            if action is None:
                raise EvaluationError(f"{env.spec.id if env.spec else env}: no scripted scenario")
            try:
                return action()
            except NotImplementedError as err:
                raise EvaluationError(str(err)) from err

        return scripted
    path = Path(spec)
    if not path.is_file():
        raise EvaluationError(f"--policy must be 'nominal', 'scripted' or an existing model file, got {spec!r}")
    from stable_baselines3 import PPO, SAC

    errors = []
    for algo in (PPO, SAC):
        try:
            model = algo.load(str(path), device="cpu")
        except Exception as err:  # wrong algorithm class or not a model: try the next one
            errors.append(f"{algo.__name__}: {err}")
            continue
        return lambda obs, env, model=model: model.predict(obs, deterministic=True)[0]
    raise EvaluationError(f"could not load {path} as a PPO or SAC model: {'; '.join(errors)}")


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
    policy: str,
    episodes: int,
    seed: int,
    max_steps: int | None = None,
    video: Path | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Roll out ``policy`` for ``episodes`` episodes and return the evaluation record."""
    if episodes < 1:
        raise EvaluationError(f"--episodes must be >= 1, got {episodes}")
    act = load_policy(policy)
    make_kwargs = dict(env_kwargs or {})
    if max_steps is not None:
        make_kwargs["max_episode_steps"] = int(max_steps)
    if video is not None:
        make_kwargs["render_mode"] = "rgb_array"
    env = gym.make(env_id, **make_kwargs)
    frames: list[np.ndarray] = []
    records = []
    try:
        for i in range(episodes):
            obs, _ = env.reset(seed=seed + i)
            metrics = metrics_for(env_id)
            if video is not None and i == 0:
                frames.append(env.render())
            done = False
            while not done:
                obs, reward, terminated, truncated, info = env.step(act(obs, env))
                metrics.step(reward, terminated, info)
                if video is not None and i == 0:
                    frames.append(env.render())
                done = terminated or truncated
            records.append(metrics.result())
    finally:
        env.close()
    result: dict[str, Any] = {
        "env": env_id,
        "policy": policy,
        "seed": seed,
        "env_kwargs": env_kwargs or {},
        "episodes": records,
        "summary": summarise(records),
    }
    if video is not None:
        fps = int(env.metadata.get("render_fps", 50))
        result["video"] = str(write_video(frames, video, fps))
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True, help="environment id, e.g. HumanoidWBC-v0")
    parser.add_argument("--policy", default="nominal", help="nominal | scripted | path to an SB3 .zip model")
    parser.add_argument("--episodes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, required=True, help="output JSON file")
    parser.add_argument("--video", type=Path, default=None, help="mp4 of the first episode (gif without ffmpeg)")
    parser.add_argument("--max-steps", type=int, default=None, help="episode step limit (shorter episodes)")
    parser.add_argument("--env-kwargs", type=json.loads, default=None, help="JSON dict of gym.make keywords")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        result = evaluate(args.env, args.policy, args.episodes, args.seed, args.max_steps, args.video, args.env_kwargs)
    except (EvaluationError, ValueError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2))
    print(f"{args.env} / {args.policy}: {len(result['episodes'])} episode(s) -> {args.json}")
    for key, value in result["summary"].items():
        print(f"  {key}: {value:.6g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
