"""Evaluation rollouts of a policy on a humanoid-wbc environment, written as JSON.

Usage:

    python -m training.evaluate --env HumanoidWBC-v0 --policy nominal --episodes 5 --seed 0 \\
        --json runs/eval.json [--video runs/eval.mp4] [--max-steps 200] [--env-kwargs '{"push_magnitude_n": [0, 0]}']

POLICY is ``nominal`` (zero action: in wbc mode the WBC alone), ``scripted`` (the task's scenario,
where it has one, an error otherwise: ``HumanoidWBCWall-v0`` the wall experiment of *Partial Force
Control of Constrained Floating-Base Robots*, ``HumanoidWBC-v0`` its contact switching;
``--scenario ramp|abrupt`` picks the variant of the latter; ``HumanoidWBCSeesaw-v0`` the push test
of *iCub Balancing on a Seesaw* or, with ``--scenario sine``, its CoM tracking test; see
[`humanoid_env.scenarios`][humanoid_env.scenarios]), a run folder of ``python -m training.train`` or the path of a
stable-baselines3 PPO/SAC ``.zip`` model. A run folder (or a zip inside one: ``model.zip``,
``best/best_model.zip``, ``checkpoints/model_N_steps.zip``) brings its normalisation statistics
(VecNormalize, used with ``training=False``, ``norm_reward=False``) and the ``env_kwargs`` of its
``config.yaml``; ``--env-kwargs`` entries override those. Actions are deterministic.
``--plot PATH`` writes a PNG of the first episode: CoM vs reference, contact forces vs targets,
task signals (hand force, board tilt, ...) when the env's ``info`` has them. The output paths are
checked (their folders created) before any episode runs.

A run folder is loaded without running code from it: the statistics from ``vecnormalize.json``
([`training.normalisation`][training.normalisation]), the model through [`training.model_file.load_model_safely`][training.model_file.load_model_safely]
(no unpickling). A folder with only the pickled ``vecnormalize.pkl`` of older runs, or a model zip
the safe loader cannot rebuild, is refused unless ``--trust-pickle`` (SB3's own loading, which
runs whatever the files contain: only for files you trust); or convert the folder once with
``python -m training.normalisation convert RUN_DIR``.
The JSON holds ``{"env", "policy", "seed", "episodes": [{"return", "length", "fell", <task
metrics>}], "summary": {metric: mean}}``. Episode ``i`` is reset with seed ``S + i``.
"""

from __future__ import annotations

import argparse
import json
import numbers
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the environments)
from humanoid_env.scenarios import SCENARIOS, Scenario, make_scenario
from training import jsonio
from training.config import ALGOS, check_env_id
from training.metrics import metrics_for, summarise
from training.model_file import UnsafeModelError, load_model_safely, read_model_data, saved_shape
from training.normalisation import StatisticsFileError, frozen_vecnormalize, read_statistics
from training.provenance import provenance
from training.run_folder import STATS_FILE, RunFiles, RunFolderError, find_run_files

Policy = Callable[[np.ndarray, gym.Env], np.ndarray]


class EvaluationError(RuntimeError):
    """A policy or option cannot be used; the message says why."""


#: torch intra-op threads while acting: the policies are small MLPs (one action takes about 0.5 ms
#: on one thread); with two threads on a loaded 2-core machine one took 8 ms (measured), as the
#: threads wait for each other. Set for the process when a model is loaded.
POLICY_TORCH_THREADS = 1


#: What the refusal of pickled statistics tells the user to do instead.
CONVERT_HINT = "convert the folder once with `python -m training.normalisation convert {folder}`"


def load_model_policy(files: RunFiles, env: gym.Env | None = None, trust_pickle: bool = False) -> Policy:
    """Deterministic SB3 policy of ``files.model``, normalising observations as in training.
    Sets torch to [`POLICY_TORCH_THREADS`][training.evaluate.POLICY_TORCH_THREADS] threads for the process.

    Without ``trust_pickle`` nothing is unpickled: the statistics come from ``files.statistics``
    (JSON) and the model from [`training.model_file.load_model_safely`][training.model_file.load_model_safely], with the spaces of
    ``env`` (None: an env made from the run's ``config.yaml``). With ``trust_pickle``: SB3's own
    loading, and the pickled statistics when there is no JSON (the files run code: trusted ones only).
    Raises [`EvaluationError`][training.evaluate.EvaluationError] naming the file and what to do.
    """
    import torch

    torch.set_num_threads(POLICY_TORCH_THREADS)
    algo = policy_algo(files)
    normalise = load_normaliser(files, trust_pickle)
    model = load_trusted_model(files, algo) if trust_pickle else load_safe_model(files, algo, env)

    def policy(obs: np.ndarray, env: gym.Env) -> np.ndarray:
        return model.predict(normalise(obs), deterministic=True)[0]

    policy.__name__ = str(files.model)  # what an evaluation record names as its policy
    return policy


def policy_algo(files: RunFiles) -> str | None:
    """The run config's ``algo`` (None without one); [`EvaluationError`][training.evaluate.EvaluationError] unless ppo or sac."""
    algo = files.config.get("algo")
    if algo is not None and algo not in ALGOS:
        raise EvaluationError(
            f"{files.config_file}: algo must be one of {', '.join(ALGOS)} (what evaluation loads), got {algo!r}"
        )
    return algo


def load_normaliser(files: RunFiles, trust_pickle: bool) -> Callable[[np.ndarray], np.ndarray]:
    """``normalize_obs`` of the model's statistics, frozen (identity without statistics)."""
    if files.statistics is not None:
        try:
            return frozen_vecnormalize(read_statistics(files.statistics)).normalize_obs
        except StatisticsFileError as err:
            raise EvaluationError(str(err)) from None
    if files.vecnormalize is not None:
        if not trust_pickle:
            raise EvaluationError(
                f"{files.vecnormalize}: the normalisation statistics are only pickled (no {STATS_FILE} beside "
                "it), and unpickling runs code from the file; if you trust it, "
                + CONVERT_HINT.format(folder=files.vecnormalize.parent)
                + " or pass --trust-pickle"
            )
        return load_pickled_normaliser(files.vecnormalize)
    if (files.config.get("config") or {}).get("normalize"):
        raise EvaluationError(f"{files.model}: trained with VecNormalize, but its statistics are missing")
    return lambda obs: obs


def load_pickled_normaliser(path: Path) -> Callable[[np.ndarray], np.ndarray]:
    """``normalize_obs`` of a pickled VecNormalize (runs code from the file: ``--trust-pickle`` only)."""
    # NOTE: VecNormalize.load wants a VecEnv only to check spaces; normalize_obs needs just the
    # statistics, so unpickle them (what VecNormalize.load does) and freeze them.
    try:
        with open(path, "rb") as handle:
            vecnorm = pickle.load(handle)  # noqa: S301  (--trust-pickle)
        vecnorm.training = False
        vecnorm.norm_reward = False
        return vecnorm.normalize_obs
    except Exception as err:  # a damaged pickle raises whatever its bytes make it raise
        raise EvaluationError(f"{path}: cannot read the pickled statistics ({type(err).__name__}: {err})") from None


def load_trusted_model(files: RunFiles, algo: str | None):
    """SB3's own ``load`` (unpickles the zip's entries): ``algo``'s class, or PPO then SAC."""
    from stable_baselines3 import PPO, SAC

    errors = []
    for name, algo_cls in {"ppo": PPO, "sac": SAC}.items():
        if algo is not None and name != algo:
            continue
        try:
            return algo_cls.load(str(files.model), device="cpu")
        except Exception as err:  # wrong algorithm class or not a model: try the next one
            errors.append(f"{algo_cls.__name__}: {err}")
    raise EvaluationError(f"could not load {files.model} as a PPO or SAC model: {'; '.join(errors)}")


def load_safe_model(files: RunFiles, algo: str | None, env: gym.Env | None):
    """[`training.model_file.load_model_safely`][training.model_file.load_model_safely] with ``env``'s spaces (None: the run's env)."""
    probe = None
    if env is None:
        trained_on = files.config.get("env")
        if trained_on is None:
            raise EvaluationError(
                f"{files.model}: without its run folder's config.yaml the env it acts in is unknown: pass the "
                "env (load_model_policy(files, env)) or trust_pickle=True"
            )
        try:
            check_env_id(trained_on)
        except ValueError as err:
            raise EvaluationError(f"{files.config_file}: {err}") from None
        env = probe = gym.make(trained_on, **files.env_kwargs)
    try:
        return load_model_safely(files.model, algo, env.observation_space, env.action_space)
    except UnsafeModelError as err:
        raise EvaluationError(str(err)) from None
    finally:
        if probe is not None:
            probe.close()


def check_policy_fits(files: RunFiles, env: gym.Env, env_id: str, env_kwargs: dict[str, Any]) -> None:
    """Raise [`EvaluationError`][training.evaluate.EvaluationError] when the saved model's observation or action size is not
    ``env``'s, naming both sizes and the env and keywords the policy was trained with."""
    try:
        data = read_model_data(files.model)
    except UnsafeModelError as err:
        raise EvaluationError(str(err)) from None
    for name, noun in (("observation_space", "observations"), ("action_space", "actions")):
        saved, ours = saved_shape(data, name), getattr(env, name).shape
        if saved is not None and saved != ours:
            raise EvaluationError(
                f"--policy {files.model}: the policy {'takes' if noun == 'observations' else 'gives'} {noun} of "
                f"size {_size(saved)}, {env_id} with env_kwargs {env_kwargs} has {_size(ours)}; "
                + trained_with(files)
            )


def _size(shape: tuple[int, ...]) -> str:
    return str(shape[0]) if len(shape) == 1 else str(shape)


def trained_with(files: RunFiles) -> str:
    """Where the policy was trained (env, action_mode, robot), as a hint to evaluate it there."""
    env_id = files.config.get("env")
    if env_id is None:
        return "no config.yaml beside the model says which env it was trained on: evaluate it on that env"
    kwargs = files.env_kwargs
    mode, robot = kwargs.get("action_mode", "the env's default"), kwargs.get("robot", "the env's default")
    return (
        f"it was trained on {env_id} with action_mode={mode}, robot={robot} (env_kwargs {kwargs}): evaluate it "
        f"with --env {env_id} and those env_kwargs"
    )


def load_policy(spec: str, trust_pickle: bool = False) -> Policy:
    """``nominal``, ``scripted``, a run folder or a path to an SB3 PPO/SAC zip -> ``policy(obs, env) -> action``
    (a model loaded as [`load_model_policy`][training.evaluate.load_model_policy] loads it, in the env of its run config)."""
    if spec in ("nominal", "scripted"):
        # scripted: the scenario drives the env through its hook (see evaluate()); the action is zero.
        def zero_action(obs: np.ndarray, env: gym.Env) -> np.ndarray:
            return np.zeros(env.action_space.shape, dtype=env.action_space.dtype)

        zero_action.__name__ = spec  # what an evaluation record names as its policy
        return zero_action
    return load_model_policy(policy_files(spec), trust_pickle=trust_pickle)


def policy_files(spec: str | Path) -> RunFiles:
    """[`training.run_folder.find_run_files`][training.run_folder.find_run_files] of a ``--policy`` that is neither ``nominal``
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


def check_counts(episodes: int, seed: int, max_steps: int | None) -> None:
    """[`EvaluationError`][training.evaluate.EvaluationError] unless ``episodes >= 1``, ``seed >= 0`` and ``max_steps`` is None or >= 1."""
    for name, value, low in (("--episodes", episodes, 1), ("--seed", seed, 0), ("--max-steps", max_steps, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low):
            raise EvaluationError(f"{name} must be an integer >= {low}, got {value!r}")


def check_output_path(path: Path | None, option: str) -> None:
    """Raise [`EvaluationError`][training.evaluate.EvaluationError] unless a file can be written at ``path`` (None: nothing to
    check): not a folder, its folder exists or is created here, and a file can be created in it."""
    if path is None:
        return
    path = Path(path)
    if path.is_dir():
        raise EvaluationError(f"{option} must be a file path, got {str(path)!r} (a folder)")
    folder = path.parent
    blocking = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise EvaluationError(
            f"{option} must be a writable file path, got {str(path)!r} ({blocking} is a file, not a folder)"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
        if path.exists() and not os.access(path, os.W_OK):
            raise PermissionError(13, "the file is read-only")
    except OSError as err:
        raise EvaluationError(
            f"{option} must be a writable file path, got {str(path)!r} (cannot write in {folder}: {err.strerror or err})"
        ) from None


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
    trust_pickle: bool = False,
) -> dict[str, Any]:
    """Roll out ``policy`` for ``episodes`` episodes and return the evaluation record.

    ``policy``: a [`load_policy`][training.evaluate.load_policy] spec, or a ``policy(obs, env) -> action`` callable (recorded by
    its ``__name__``). For a trained policy the run's ``env_kwargs`` are the base and ``env_kwargs``
    override them.
    ``policy="scripted"`` runs the env's scripted scenario ``scenario`` (None: its default; see
    [`humanoid_env.scenarios.SCENARIOS`][humanoid_env.scenarios.SCENARIOS]): its ``env_kwargs`` (pushes off) are the base,
    an episode ends when the script does (or earlier on termination or ``max_steps``), and its
    metrics are merged into each episode's record (replacing the env's generic ones of the same
    name).
    ``on_reset(env, episode_seed)``, if given, runs right after each episode's reset (a policy's
    per-episode state, a perturbation of the initial state: see [`training.comparison`][training.comparison]).
    ``trust_pickle``: load a trained policy as [`load_model_policy`][training.evaluate.load_model_policy] does with it.
    Bad arguments raise [`EvaluationError`][training.evaluate.EvaluationError] or ``ValueError`` before any episode runs.
    """
    check_env_id(env_id)  # ConfigError (a ValueError) naming the valid ids
    check_counts(episodes, seed, max_steps)
    check_output_path(video, "--video")
    check_output_path(plot, "--plot")
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
    files: RunFiles | None = None
    if callable(policy):
        act = policy
    elif policy in ("nominal", "scripted"):
        act = load_policy(policy)
    else:
        files = policy_files(policy)
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
    if files is not None:
        try:
            check_policy_fits(files, env, env_id, used_kwargs)
            act = load_model_policy(files, env, trust_pickle)
        except BaseException:
            env.close()
            raise
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
    """Append one env step of ``info`` to ``trace`` (plain lists, for [`training.plotting`][training.plotting]).

    Keys: ``time`` [s], ``reward``, ``com`` / ``com_ref`` ((3,) [m]), ``force/<contact>`` ((3,) [N],
    measured, world frame), ``force_target/<contact>`` ([N] or (3,) [N]), ``push_force`` ((3,) [N]),
    ``task/<info key>`` for numeric entries named with [`TASK_SIGNAL_WORDS`][training.evaluate.TASK_SIGNAL_WORDS].
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


def json_object(text: str) -> dict[str, Any]:
    """``--env-kwargs``: a JSON object (``argparse.ArgumentTypeError`` otherwise)."""
    example = '\'{"push_magnitude_n": [0, 0]}\''
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise argparse.ArgumentTypeError(f"must be a JSON object such as {example}, got {text!r} ({err})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(
            f"must be a JSON object such as {example}, got {text!r} (a JSON {type(value).__name__})"
        )
    return value


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True, help="environment id, e.g. HumanoidWBC-v0")
    parser.add_argument("--policy", default="nominal", help="nominal | scripted | run folder | .zip")
    parser.add_argument("--episodes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, required=True, help="output JSON file")
    parser.add_argument("--video", type=Path, default=None, help="mp4 of the first episode (gif without ffmpeg)")
    parser.add_argument("--max-steps", type=int, default=None, help="episode step limit (shorter episodes)")
    parser.add_argument("--env-kwargs", type=json_object, default=None, help="JSON dict of gym.make keywords")
    parser.add_argument("--plot", type=Path, default=None, help="PNG of the first episode (CoM, forces)")
    parser.add_argument(
        "--scenario", default=None,
        help="with --policy scripted: " + "; ".join(
            f"{env_id}: " + " | ".join([f"{default} (default)", *others]) for env_id, (default, *others) in SCENARIOS.items()
        ),
    )  # fmt: skip
    parser.add_argument(
        "--trust-pickle", action="store_true",
        help="load a run folder's pickled files (vecnormalize.pkl, the model zip's pickled entries) with SB3's own "
        "loading, which runs code from them: only for files you trust",
    )  # fmt: skip
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        check_output_path(args.json, "--json")  # before the rollouts, which it would otherwise throw away
        result = evaluate(
            args.env, args.policy, args.episodes, args.seed, args.max_steps, args.video, args.env_kwargs, args.plot,
            args.scenario, trust_pickle=args.trust_pickle,
        )  # fmt: skip
    except (EvaluationError, ValueError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    result["provenance"] = provenance()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(jsonio.dumps(result, indent=2))
    print(f"{args.env} / {args.policy}: {len(result['episodes'])} episode(s) -> {args.json}")
    for key, value in result["summary"].items():
        print(f"  {key}: {value:.6g}")
    for key in ("video", "plot"):
        if key in result:
            print(f"  {key}: {result[key]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
