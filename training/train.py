"""Train a stable-baselines3 PPO or SAC policy on a humanoid-wbc environment.

Usage:

    python -m training.train --env HumanoidWBC-v0 --algo ppo [--config configs/ppo.yml] \\
        [--timesteps N] [--n-envs K] [--seed S] [--run-dir DIR] [--env-kwargs key=value ...] \\
        [--params key=value ...] [--init-from RUN_DIR_OR_ZIP] [--no-progress-bar] [--overwrite | --resume]
    python -m training.train --env HumanoidWBC-v0 --algo ppo --seeds 0 1 2 [--run-dir DIR] ... \\
        [--address HOST:PORT | --num-cpus N] [--cpus-per-trial C] [--dry-run]

Settings come from [`training.config`][training.config] (code defaults <- YAML ``default`` <- YAML env entry <-
command line); without ``--config`` the repository's ``configs/<algo>.yml`` is used when it exists
(``--config none``: code defaults alone). ``--env-kwargs`` and ``--params`` values are read as YAML (``push_magnitude_n=[0,0]``,
``learning_rate=1e-4``). The run folder (default ``runs/<env>/<algo>_s<seed>_<time>``) receives:

- ``model.zip`` (final model; also written on Ctrl-C), ``vecnormalize.json`` and
  ``vecnormalize.pkl`` (observation/reward statistics, when ``normalize``: as JSON, which
  ``training.evaluate`` reads without running code, and as SB3's pickle), ``config.yaml`` (env,
  algo, seed, resolved settings), ``command.txt``, ``train_info.json`` (steps done, wall time,
  interrupted or not);
- ``tb/`` TensorBoard logs, ``monitor/`` per-env episode CSVs, ``eval/evaluations.npz`` and
  ``best/best_model.zip`` + its statistics (periodic evaluation), ``checkpoints/`` (each model
  with its statistics).

Everything that can be checked (the settings and their ranges, the env keywords, ``--init-from``,
the run folder) is checked before the run folder is created: a bad command writes nothing. If
training then fails (an exception) before any model was saved, the folder this command created
is removed (one that existed before keeps its files, less this command's ``config.yaml`` and
``command.txt``), so the same command can run again; a folder that holds saved models is kept, and
running the command again says how to go on (``--resume``) or start again (``--overwrite``).
``--init-from`` and ``--resume`` load the saved model with SB3's own loading, which unpickles
parts of the zip: train on only from run folders you trust (``docs/training.md``).

``--init-from`` trains on from a saved model (a run folder or zip, as ``training.evaluate``'s
``--policy`` takes it) and its normalisation statistics, into a new run folder: ``--timesteps``
more steps, counted on from the saved model's (checkpoints and evaluations carry the total), with
this run's settings (learning rate, rollout length, ...) except the network: ``policy_kwargs``
must be the saved model's (``log_std_init``/``ortho_init`` aside: the saved weights and
exploration std go on), as must the algorithm and the env's observation and action shapes.
SAC's replay buffer is not in the zip: it starts empty (and SAC's ``learning_starts`` counts the
total steps, so it does not wait again).

``--params snapshot_steps=[5000,10000,...]`` saves the model at those step totals into
``snapshots/`` (evaluated there with ``snapshot_eval_episodes=E``; [`training.snapshots`][training.snapshots]), and
``--resume --run-dir DIR`` (with the run's own settings) goes on with a run stopped part-way from its
latest snapshot.

``--seeds S1 S2 ...`` trains one run per seed, each a Ray Tune trial ([`training.ray_sweep`][training.ray_sweep]: as
many at once as the CPUs allow, ``--cpus-per-trial`` each; on this machine, or a Ray cluster with
``--address HOST:PORT``), each exactly the single-seed command with ``--seed S`` into ``DIR/s<S>``
(``--run-dir DIR``) or its default folder; a finished run in ``DIR/s<S>`` is kept unless
``--overwrite``, so a stopped sweep resumes. ``--dry-run`` prints the per-seed commands.

Evaluate a run with ``python -m training.evaluate --env ID --policy RUN_DIR ...``.
"""

from __future__ import annotations

import argparse
import functools
import json
import shlex
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import humanoid_env  # noqa: F401  (registers the environments, also in SubprocVecEnv workers)
from training import jsonio
from training.config import (
    ALGOS,
    EXECUTION_KEYS,
    VEC_ENVS,
    ConfigError,
    algo_kwargs,
    check_env_id,
    parse_key_values,
    resolve_config,
)
from training.provenance import provenance
from training.ray_sweep import TrainRun, add_ray_arguments, check_ray_arguments, sweep_exit_code
from training.run_folder import (
    BEST_DIR,
    COMMAND_FILE,
    CONFIG_FILE,
    INFO_FILE,
    MODEL_FILE,
    STATS_FILE,
    VECNORM_FILE,
    RunFiles,
    RunFolderError,
    find_run_files,
    finished,
    read_run_config,
    write_run_config,
)
from training.snapshots import (
    Snapshot,
    latest_snapshot,
    model_path,
    snapshot_callback,
    statistics_path,
    vecnormalize_path,
)

EVAL_SEED_OFFSET = 10_000


def make_env(env_id: str, env_kwargs: dict[str, Any], monitor_file: str | None = None) -> gym.Env:
    """``gym.make(env_id, **env_kwargs)`` in a ``Monitor`` (episode returns/lengths, optionally to CSV).

    Module level so that SubprocVecEnv can pickle it (``functools.partial``) into its workers.
    """
    from stable_baselines3.common.monitor import Monitor

    return Monitor(gym.make(env_id, **env_kwargs), filename=monitor_file)


def make_env_fns(env_id: str, env_kwargs: dict[str, Any], n_envs: int, monitor_dir: Path | None = None) -> list:
    """``n_envs`` picklable constructors of the env for a vec env (env ``rank`` monitored in
    ``monitor_dir/rank`` where ``monitor_dir`` is given)."""
    return [
        functools.partial(make_env, env_id, env_kwargs, str(monitor_dir / str(rank)) if monitor_dir else None)
        for rank in range(n_envs)
    ]


def make_vec_env(
    env_id: str,
    env_kwargs: dict[str, Any],
    n_envs: int,
    monitor_dir: Path | None = None,
    kind: str = "subprocess",
):
    """``n_envs`` copies of the env, stepped as ``kind`` says (one of [`VEC_ENVS`][training.config.VEC_ENVS]; one
    env is always a ``DummyVecEnv``, as before the setting existed)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from training.vec_env import ThreadedVecEnv

    if kind not in VEC_ENVS:
        raise ValueError(f"vec_env must be one of {', '.join(VEC_ENVS)}; got {kind!r}")
    fns = make_env_fns(env_id, env_kwargs, n_envs, monitor_dir)
    if n_envs == 1:
        return DummyVecEnv(fns)
    return SubprocVecEnv(fns) if kind == "subprocess" else ThreadedVecEnv(fns)


def _callbacks(
    env_id: str, config: dict[str, Any], run_dir: Path, eval_env, resumed: Snapshot | None = None
) -> list:
    from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback, EvalCallback

    from training.normalisation import write_statistics

    class SaveVecNormalize(BaseCallback):
        """On a new best evaluation: the training normalisation statistics beside ``best_model.zip``
        (``folder/vecnormalize.pkl`` and ``folder/vecnormalize.json``)."""

        def __init__(self, folder: Path):
            super().__init__()
            self.folder = folder

        def _on_step(self) -> bool:
            vecnorm = self.model.get_vec_normalize_env()
            if vecnorm is not None:
                vecnorm.save(str(self.folder / VECNORM_FILE))
                write_statistics(vecnorm, self.folder / STATS_FILE)
            return True

    class CheckpointWithStatistics(CheckpointCallback):
        """SB3's checkpoints, with the statistics also as JSON (``model_vecnormalize_<N>_steps.json``)."""

        def _on_step(self) -> bool:
            result = super()._on_step()
            vecnorm = self.model.get_vec_normalize_env()
            if self.n_calls % self.save_freq == 0 and self.save_vecnormalize and vecnorm is not None:
                write_statistics(vecnorm, Path(self._checkpoint_path("vecnormalize_", extension="json")))
            return result

    n_envs = config["n_envs"]
    callbacks = []
    if config["snapshot_steps"]:
        callbacks.append(snapshot_callback(env_id, config, run_dir, resumed.wall_s if resumed else 0.0))
    if config["checkpoint_freq"] > 0:
        callbacks.append(
            CheckpointWithStatistics(
                save_freq=max(config["checkpoint_freq"] // n_envs, 1),  # NOTE: counted in vector steps
                save_path=str(run_dir / "checkpoints"),
                name_prefix="model",
                save_vecnormalize=config["normalize"],
            )
        )
    if eval_env is not None:
        best_dir = run_dir / BEST_DIR
        best_dir.mkdir(parents=True, exist_ok=True)
        callbacks.append(
            EvalCallback(
                eval_env,
                n_eval_episodes=config["eval_episodes"],
                eval_freq=max(config["eval_freq"] // n_envs, 1),  # NOTE: counted in vector steps
                log_path=str(run_dir / "eval"),
                best_model_save_path=str(best_dir),
                callback_on_new_best=SaveVecNormalize(best_dir),
                deterministic=True,
                verbose=1,
            )
        )
    return callbacks


def default_run_dir(env_id: str, algo: str, seed: int, stamp: str | None = None) -> Path:
    """``runs/<env>/<algo>_s<seed>_<stamp>``; ``stamp`` defaults to the local time now (``%Y%m%d-%H%M%S``)."""
    return Path("runs") / env_id / f"{algo}_s{seed}_{stamp or time.strftime('%Y%m%d-%H%M%S')}"


def prepare_run_dir(run_dir: Path, overwrite: bool) -> Path:
    """Create ``run_dir``; refuse one that already holds a run unless ``overwrite`` (the message says
    whether that run finished, and how to go on with an unfinished one); [`ConfigError`][training.config.ConfigError] when
    the folder cannot be created."""
    if (run_dir / CONFIG_FILE).exists() and not overwrite:
        if finished(run_dir):
            raise ConfigError(
                f"{run_dir} already holds a finished run ({CONFIG_FILE}, {INFO_FILE}); pass --overwrite to "
                "train it again, or another --run-dir"
            )
        raise ConfigError(
            f"{run_dir} holds a run that did not finish (no {INFO_FILE}, or an interrupted one: it stopped or "
            f"failed part-way); go on from its latest snapshot with --resume --run-dir {run_dir} (runs with "
            "snapshot_steps), or start it again with --overwrite, or pass another --run-dir"
        )
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"--run-dir must be a folder that can be created, got {str(run_dir)!r} ({err.strerror or err})") from None
    return run_dir


def saved_models(run_dir: Path) -> list[Path]:
    """The model zips a run folder holds (final, best, checkpoints, snapshots)."""
    return sorted(Path(run_dir).rglob("*.zip"))


def clean_up_failed_run(run_dir: Path, created: bool) -> str:
    """After training raised: remove what this command left when no model was saved (the whole
    folder if ``created`` by it, else its ``config.yaml`` and ``command.txt``); returns what was done."""
    models = saved_models(run_dir)
    if models:
        return (
            f"kept {run_dir}: it holds {len(models)} saved model(s); go on with --resume --run-dir {run_dir} "
            "(from its latest snapshot) or start again with --overwrite"
        )
    if created:
        shutil.rmtree(run_dir, ignore_errors=True)
        return f"removed {run_dir} (no model was saved): the same command can run again"
    for name in (CONFIG_FILE, COMMAND_FILE):
        (run_dir / name).unlink(missing_ok=True)
    return f"removed {CONFIG_FILE} and {COMMAND_FILE} from {run_dir} (no model was saved): the same command can run again"


#: policy_kwargs that only initialise the network (a run trained on from a saved model ignores them).
INIT_ONLY_POLICY_KWARGS = ("log_std_init", "ortho_init")


def check_init_from(spec: str | Path, algo: str, config: dict[str, Any], env: gym.Env):
    """The saved model to train on from (``--init-from``): its files (``training.run_folder.RunFiles``).

    Raises ``ConfigError`` naming what differs: no model there, another algorithm, another network
    (``policy_kwargs`` other than the initialisation-only ones), observation or action shapes
    other than ``env``'s (the env made with this run's keywords), or normalisation statistics missing.
    """
    try:
        files = find_run_files(spec)
    except RunFolderError as err:
        raise ConfigError(f"--init-from: {err}") from None
    saved = files.config
    if saved.get("algo") not in (None, algo):
        raise ConfigError(f"--init-from {spec}: trained with {saved['algo']}, this run is {algo}")
    network = {k: v for k, v in config["policy_kwargs"].items() if k not in INIT_ONLY_POLICY_KWARGS}
    saved_network = saved.get("config", {}).get("policy_kwargs")
    if saved_network is not None:
        saved_network = {k: v for k, v in saved_network.items() if k not in INIT_ONLY_POLICY_KWARGS}
        if saved_network != network:
            raise ConfigError(
                f"--init-from {spec}: its network policy_kwargs={saved_network} differ from this run's "
                f"{network} (a network cannot change while training on)"
            )
    if config["normalize"] and not files.has_statistics:
        raise ConfigError(f"--init-from {spec}: no normalisation statistics beside {files.model.name}")
    if saved.get("config", {}).get("normalize") and not config["normalize"]:
        raise ConfigError(
            f"--init-from {spec}: trained on normalised observations, this run has normalize: false"
        )
    check_saved_spaces(files.model, env)
    return files


def train(
    env_id: str,
    algo: str,
    config: dict[str, Any],
    seed: int,
    run_dir: Path,
    progress_bar: bool = True,
    verbose: int = 1,
    init_files: RunFiles | None = None,
    resume: Snapshot | None = None,
) -> dict[str, Any]:
    """Train ``algo`` on ``env_id`` with a resolved ``config``; write the run folder; return train_info.

    ``init_files``: the saved model to train on from, as [`check_init_from`][training.train.check_init_from] returns it (checked).
    ``resume``: a snapshot of this run ([`training.snapshots.latest_snapshot`][training.snapshots.latest_snapshot]) to go on from, up
    to ``config["timesteps"]`` in all; this part's episodes go to ``monitor/from_<steps>/``.
    A ``KeyboardInterrupt`` stops training and the model trained so far is saved.
    """
    if resume is not None:
        stats = statistics_path(run_dir, resume.target)
        init_files = RunFiles(
            model_path(run_dir, resume.target),
            vecnormalize_path(run_dir, resume.target) if config["normalize"] else None,
            statistics=stats if config["normalize"] and stats.is_file() else None,
        )
    from stable_baselines3 import PPO, SAC
    from stable_baselines3.common.vec_env import VecNormalize

    from training.normalisation import write_statistics

    algo_cls = {"ppo": PPO, "sac": SAC}[algo]
    run_provenance = provenance()  # the tree as training starts
    env_kwargs = dict(config["env_kwargs"])
    monitor_dir = run_dir / "monitor" / (f"from_{resume.steps}" if resume is not None else "")
    venv = make_vec_env(env_id, env_kwargs, config["n_envs"], monitor_dir=monitor_dir, kind=config["vec_env"])
    eval_env = None
    if config["eval_freq"] > 0:
        eval_env = make_vec_env(env_id, env_kwargs, 1)
        eval_env.seed(seed + EVAL_SEED_OFFSET)
    if config["normalize"]:
        norm = {"norm_obs": config["norm_obs"], "clip_obs": config["clip_obs"], "gamma": config["gamma"]}
        if init_files is not None:
            venv = load_statistics_on(init_files, venv)
            venv.training, venv.norm_reward, venv.gamma = True, config["norm_reward"], config["gamma"]
        else:
            venv = VecNormalize(venv, norm_reward=config["norm_reward"], **norm)
        if eval_env is not None:
            # Statistics are copied from the training env before every evaluation (EvalCallback).
            eval_env = VecNormalize(eval_env, training=False, norm_reward=False, **norm)
    if init_files is None:
        model = algo_cls(
            "MlpPolicy",
            venv,
            seed=seed,
            device="cpu",
            verbose=verbose,
            tensorboard_log=str(run_dir / "tb"),
            **algo_kwargs(config),
        )
    else:
        model = load_to_train_on(algo_cls, init_files.model, venv, config, run_dir, verbose)
        # A resumed part draws new episodes and noise, not the first part's again.
        model.set_random_seed(seed + (resume.steps if resume is not None else 0))
    start_steps = int(model.num_timesteps)
    interrupted = False
    start = time.perf_counter()
    print(
        f"training: started {algo} on {env_id}, {config['timesteps']} steps, {config['n_envs']} env(s) -> {run_dir}",
        flush=True,
    )
    try:
        model.learn(
            total_timesteps=config["timesteps"] - (resume.steps if resume is not None else 0),
            callback=_callbacks(env_id, config, run_dir, eval_env, resume),
            progress_bar=progress_bar,
            tb_log_name=algo,
            reset_num_timesteps=init_files is None,
        )
    except KeyboardInterrupt:
        interrupted = True
        print(
            "\ntraining: interrupted (Ctrl-C); saving the model trained so far", file=sys.stderr, flush=True
        )
    wall = time.perf_counter() - start
    model.save(str(run_dir / MODEL_FILE))
    if config["normalize"]:
        venv.save(str(run_dir / VECNORM_FILE))
        write_statistics(venv, run_dir / STATS_FILE)
    steps = int(model.num_timesteps) - start_steps
    info = {
        "timesteps": steps,
        "timesteps_requested": int(config["timesteps"]),
        "timesteps_total": int(model.num_timesteps),
        "init_from": str(init_files.model) if init_files is not None else None,
        "wall_s": wall,
        "steps_per_s": steps / wall if wall > 0 else 0.0,
        "resumed_from": resume.steps if resume is not None else None,
        "wall_s_total": wall + (resume.wall_s if resume is not None else 0.0),
        "interrupted": interrupted,
        "model": MODEL_FILE,
        "vecnormalize": VECNORM_FILE if config["normalize"] else None,
        "statistics": STATS_FILE if config["normalize"] else None,
        "provenance": run_provenance,
    }
    (run_dir / INFO_FILE).write_text(jsonio.dumps(info, indent=2))
    for env in (venv, eval_env):
        if env is None:
            continue
        try:
            env.close()
        except (
            EOFError,
            BrokenPipeError,
            ConnectionResetError,
            OSError,
        ):  # workers already gone after Ctrl-C
            pass
    return info


def resume_point(run_dir: Path, env_id: str, algo: str, seed: int, config: dict[str, Any]) -> Snapshot | None:
    """The snapshot an unfinished run in ``run_dir`` resumes from (None: no run or no snapshot there:
    train from the start). Raises ``ConfigError`` when the run's env, algorithm, seed or resolved
    settings (``config.yaml``) differ from this command's: a resumed run must be the same run."""
    saved = read_run_config(run_dir)
    if not saved:
        return None
    mine = {"env": env_id, "algo": algo, "seed": seed}
    theirs = {key: saved.get(key) for key in mine}
    if theirs != mine:
        raise ConfigError(f"--resume {run_dir}: that run is {theirs}, this command {mine}")
    differ = sorted(
        k
        for k in set(config) | set(saved["config"])
        if k not in EXECUTION_KEYS and config.get(k) != saved["config"].get(k)
    )
    if differ:
        raise ConfigError(
            f"--resume {run_dir}: settings differ from the run's config.yaml: "
            + ", ".join(f"{k}: {saved['config'].get(k)!r} there, {config.get(k)!r} here" for k in differ)
        )
    return latest_snapshot(run_dir, config["normalize"])


def load_statistics_on(files: RunFiles, venv):
    """``venv`` in a VecNormalize with the saved statistics: the JSON file when there is one (what
    ``VecNormalize.load`` gives from the pickle of the same numbers), else SB3's pickle."""
    from stable_baselines3.common.vec_env import VecNormalize

    from training.normalisation import StatisticsFileError, read_statistics, vecnormalize_on

    if files.statistics is None:
        return VecNormalize.load(str(files.vecnormalize), venv)
    try:
        return vecnormalize_on(read_statistics(files.statistics), venv)
    except StatisticsFileError as err:
        raise ConfigError(f"--init-from {files.statistics}: {err}") from None


def check_saved_spaces(model_zip: Path, env: gym.Env) -> None:
    """Raise ``ConfigError`` unless the saved model's observation and action shapes are ``env``'s
    (read from the zip's JSON, nothing unpickled)."""
    from training.model_file import UnsafeModelError, read_model_data, saved_shape

    try:
        data = read_model_data(model_zip)
    except UnsafeModelError as err:
        raise ConfigError(f"--init-from {err}") from None
    for name in ("observation_space", "action_space"):
        saved, ours = saved_shape(data, name), getattr(env, name).shape
        if saved != ours:
            raise ConfigError(
                f"--init-from {model_zip}: its {name} has shape {saved}, {env.spec.id} with "
                f"env_kwargs={env.spec.kwargs} has {ours} (train on in the env it was trained in)"
            )


def load_to_train_on(algo_cls, model_zip: Path, venv, config: dict[str, Any], run_dir: Path, verbose: int):
    """A saved model set up to train on ``venv`` with this run's settings (all but the network)."""
    settings = {key: value for key, value in algo_kwargs(config).items() if key != "policy_kwargs"}
    try:
        return algo_cls.load(
            str(model_zip),
            env=venv,
            device="cpu",
            verbose=verbose,
            tensorboard_log=str(run_dir / "tb"),
            **settings,
        )
    except ValueError as err:  # SB3's own checks (spaces' bounds, policy_kwargs)
        raise ConfigError(f"--init-from {model_zip}: {err}") from None


#: Where ``configs/<algo>.yml`` lives in a checkout of the repository.
DEFAULT_CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"


def config_path(algo: str, given: str | None) -> str | None:
    """The YAML file to read: ``given``; else ``configs/<algo>.yml`` if it exists; ``"none"``: None."""
    if given == "none":
        return None
    if given is None and (DEFAULT_CONFIG_DIR / f"{algo}.yml").is_file():
        return str(DEFAULT_CONFIG_DIR / f"{algo}.yml")
    return given


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m training.train", description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True, help="environment id, e.g. HumanoidWBC-v0")
    parser.add_argument("--algo", required=True, choices=ALGOS)
    parser.add_argument(
        "--config",
        default=None,
        help="YAML hyperparameter file keyed by env id (default: the repository's configs/<algo>.yml "
        "if present; 'none' for the code defaults alone)",
    )
    parser.add_argument("--timesteps", type=int, default=None, help="total env steps (overrides the config)")
    parser.add_argument("--n-envs", type=int, default=None, help="parallel envs (overrides the config)")
    seeds = parser.add_mutually_exclusive_group()
    seeds.add_argument("--seed", type=int, default=None, help="the run's seed (default 0)")
    seeds.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=None,
        metavar="S",
        help="one run per seed, as Ray Tune trials (into DIR/s<S> with --run-dir DIR)",
    )
    parser.add_argument(
        "--run-dir", type=Path, default=None, help="output folder (default runs/<env>/<algo>_s<seed>_<time>)"
    )
    parser.add_argument(
        "--env-kwargs", nargs="*", default=[], metavar="KEY=VALUE", help="gym.make keywords (YAML values)"
    )
    parser.add_argument(
        "--params", nargs="*", default=[], metavar="KEY=VALUE", help="config keys (YAML values)"
    )
    parser.add_argument(
        "--init-from",
        default=None,
        metavar="RUN_DIR_OR_ZIP",
        help="train on from this saved model and its normalisation statistics (--timesteps more steps)",
    )
    parser.add_argument("--no-progress-bar", action="store_true")
    parser.add_argument("--verbose", type=int, default=1, help="SB3 verbosity (0: quiet, 1: rollout tables)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads of the learner (default 1)")
    parser.add_argument("--overwrite", action="store_true", help="reuse a --run-dir that already holds a run")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on with the unfinished run in --run-dir from its latest snapshot (a new run there if it "
        "holds none; nothing to do if it finished); the settings must be the run's",
    )
    parser.add_argument("--dry-run", action="store_true", help="with --seeds: print the per-seed commands")
    add_ray_arguments(parser)
    args = parser.parse_args(argv)
    check_ray_arguments(args, parser)
    if args.seeds is None:
        args.seed = 0 if args.seed is None else args.seed  # None: --seed 0 given with --seeds is refused too
        given = [name for name, value in (("--address", args.address), ("--num-cpus", args.num_cpus),
                                          ("--dry-run", args.dry_run)) if value]  # fmt: skip
        if given:
            parser.error(f"{', '.join(given)}: only with --seeds (several runs)")
    elif len(set(args.seeds)) != len(args.seeds):
        parser.error(f"--seeds: each seed once, got {args.seeds}")
    if args.resume:
        if args.run_dir is None or args.seeds is not None or args.init_from or args.overwrite:
            parser.error("--resume: needs --run-dir, and goes with neither --seeds, --init-from nor --overwrite")
    return args


def seed_run_args(args: argparse.Namespace, config_given: str | None, seed: int, run_dir: Path) -> list[str]:
    """The single-seed ``training.train`` arguments of one seed of ``--seeds`` (``config_given``: --config as typed)."""
    out = ["--env", args.env, "--algo", args.algo]
    if config_given is not None:
        out += ["--config", config_given]
    for flag, value in (("--timesteps", args.timesteps), ("--n-envs", args.n_envs)):
        if value is not None:
            out += [flag, str(value)]
    out += ["--seed", str(seed), "--run-dir", str(run_dir)]
    if args.env_kwargs:
        out += ["--env-kwargs", *args.env_kwargs]
    if args.params:
        out += ["--params", *args.params]
    if args.init_from:
        out += ["--init-from", args.init_from]
    # --overwrite: the folder is new, an unfinished run to train again, or --overwrite was asked for
    out += ["--no-progress-bar", "--verbose", str(args.verbose), "--threads", str(args.threads)]
    return out + ["--overwrite"]


def train_seeds(args: argparse.Namespace, config_given: str | None) -> int:
    """``--seeds``: one run per seed as Ray Tune trials (finished runs kept unless ``--overwrite``)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    plan = {
        seed: args.run_dir / f"s{seed}" if args.run_dir else default_run_dir(args.env, args.algo, seed, stamp)
        for seed in args.seeds
    }
    if args.dry_run:
        for seed, run_dir in plan.items():
            command = ["python", "-m", "training.train", *seed_run_args(args, config_given, seed, run_dir)]
            print(shlex.join(command))
        return 0
    runs = []
    for seed, run_dir in plan.items():
        if finished(run_dir) and not args.overwrite:
            print(f"training: seed {seed}: done before, kept ({run_dir})", flush=True)
            continue
        runs.append(TrainRun(f"s{seed}", tuple(seed_run_args(args, config_given, seed, run_dir))))
    failed = sweep_exit_code(runs, args, "training")
    if failed:
        return failed
    for seed, run_dir in plan.items():
        info = json.loads((run_dir / INFO_FILE).read_text())
        print(
            f"training: seed {seed}: {info['timesteps']} steps in {info['wall_s']:.1f} s "
            f"({info['steps_per_s']:.0f} steps/s); model: {run_dir / MODEL_FILE}",
            flush=True,
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # A job started in the background (`cmd &` in a script) inherits SIGINT ignored; Ctrl-C or
    # `kill -INT` must still stop training and save the model.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    config_given = args.config
    args.config = config_path(args.algo, args.config)
    try:
        env_id = check_env_id(args.env)
        overrides = parse_key_values(args.params, "--params")
        env_kwargs = parse_key_values(args.env_kwargs, "--env-kwargs")
        if env_kwargs:
            overrides["env_kwargs"] = {**overrides.get("env_kwargs", {}), **env_kwargs}
        if args.timesteps is not None:
            overrides["timesteps"] = args.timesteps
        if args.n_envs is not None:
            overrides["n_envs"] = args.n_envs
        config = resolve_config(args.algo, env_id, args.config, overrides)
        # Fail here, not in a worker process, on a bad env keyword (and a saved model that does not fit).
        env = gym.make(env_id, **config["env_kwargs"])
        try:
            init_files = check_init_from(args.init_from, args.algo, config, env) if args.init_from else None
        finally:
            env.close()
        if args.seeds is not None:  # checked here, before any trial starts; each trial checks again
            return train_seeds(args, config_given)
        resume = None
        if args.resume:
            if finished(args.run_dir):
                print(f"training: {args.run_dir} finished before; nothing to resume", flush=True)
                return 0
            resume = resume_point(args.run_dir, env_id, args.algo, args.seed, config)
        run_dir = args.run_dir or default_run_dir(env_id, args.algo, args.seed)
        created = not run_dir.exists()
        prepare_run_dir(run_dir, args.overwrite or args.resume)
    except (ConfigError, ValueError, TypeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    import torch

    torch.set_num_threads(max(args.threads, 1))
    argv_used = sys.argv[1:] if argv is None else argv
    command = shlex.join(["python", "-m", "training.train", *argv_used]) + "\n"
    if resume is None:
        (run_dir / COMMAND_FILE).write_text(command)
        write_run_config(run_dir, env_id, args.algo, args.seed, args.config, config)
    else:
        print(f"training: resuming {run_dir} from its snapshot at {resume.steps} steps", flush=True)
        with open(run_dir / COMMAND_FILE, "a") as handle:
            handle.write(command)
    try:
        info = train(
            env_id,
            args.algo,
            config,
            args.seed,
            run_dir,
            progress_bar=not args.no_progress_bar,
            verbose=args.verbose,
            init_files=init_files,
            resume=resume,
        )
    except Exception:
        # A resumed run's folder holds the run it goes on from: never cleaned up.
        outcome = f"kept {run_dir}" if resume is not None else clean_up_failed_run(run_dir, created)
        print(f"training: failed; {outcome}", file=sys.stderr, flush=True)
        raise
    state = "interrupted" if info["interrupted"] else "done"
    print(
        f"training: {state} after {info['timesteps']} steps in {info['wall_s']:.1f} s "
        f"({info['steps_per_s']:.0f} steps/s); model: {run_dir / MODEL_FILE}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
