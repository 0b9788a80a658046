"""The command-line programs under misuse, and the files they trust (issue 34, items 5 and 7).

``training.evaluate`` and ``training.train`` answer every bad input with ``error: ...`` on stderr
and exit code 2, before any episode runs or any run folder is written; a run folder is loaded
without running code from it (statistics as JSON, the model zip without unpickling), and a planted
pickle is refused, not run. Most checks call the programs' ``main()`` in this process (what a
subprocess would print, without its 3-5 s start); two run them as subprocesses, end to end.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.cli_support import Planted, assert_refused, run_main
from training import evaluate as evaluate_module
from training import train as train_module
from training.config import ConfigError, resolve_config
from training.normalisation import (
    StatisticsFileError,
    read_statistics,
    statistics_of,
    vecnormalize_on,
    write_statistics,
)
from training.run_folder import STATS_FILE, VECNORM_FILE, find_run_files

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ROOT / "policies"
BALANCE = POLICIES / "HumanoidWBC-v0"
ENV = "HumanoidWBC-v0"
SHIPPED = ("HumanoidWBC-v0", "HumanoidWBCSeesaw-v0", "HumanoidWBCWall-v0")


@pytest.fixture
def run_copy(tmp_path) -> Path:
    """A copy of the shipped balance policy's folder (model, JSON statistics, config)."""
    folder = tmp_path / "run"
    shutil.copytree(BALANCE, folder)
    return folder


@pytest.fixture
def no_rollout(monkeypatch):
    """Fail the test if an env is made: the refusal must come before any episode."""

    def refuse(*args, **kwargs):
        raise AssertionError("an env was made (rollouts started) before the bad input was refused")

    monkeypatch.setattr(evaluate_module.gym, "make", refuse)


def evaluate_args(tmp_path: Path, *extra: str) -> list[str]:
    return ["--env", ENV, "--json", str(tmp_path / "out.json"), "--max-steps", "2", *extra]


# -- training.evaluate: bad arguments -------------------------------------------------------------


@pytest.mark.parametrize(
    "extra, named",
    [
        (["--env", "HumanoidWBC-v9"], ["unknown env id 'HumanoidWBC-v9'", "HumanoidWBC-v0"]),
        (["--seed", "-1"], ["--seed must be an integer >= 0, got -1"]),
        (["--max-steps", "0"], ["--max-steps must be an integer >= 1, got 0"]),
        (["--env-kwargs", "[1, 2]"], ["--env-kwargs: must be a JSON object", "'[1, 2]'"]),
    ],
)
def test_evaluate_refuses_bad_arguments_before_any_episode(tmp_path, capsys, no_rollout, extra, named):
    code, stderr = run_main(evaluate_module.main, evaluate_args(tmp_path, *extra), capsys)
    assert_refused(code, stderr, *named)


@pytest.mark.parametrize("option", ["--json", "--plot"])
def test_an_unwritable_output_path_is_refused_before_the_rollouts(tmp_path, capsys, no_rollout, option):
    (tmp_path / "a_file").write_text("")
    bad = tmp_path / "a_file" / "out"
    argv = evaluate_args(tmp_path, option, str(bad))  # the later --json/--plot wins
    code, stderr = run_main(evaluate_module.main, argv, capsys)
    assert_refused(code, stderr, f"{option} must be a writable file path", str(bad), "is a file, not a folder")


def test_an_output_folder_that_does_not_exist_is_created_first(tmp_path, capsys, no_rollout):
    out = tmp_path / "new" / "deeper" / "out.json"
    code, stderr = run_main(evaluate_module.main, [*evaluate_args(tmp_path), "--json", str(out), "--seed", "-1"], capsys)
    assert code == 2 and out.parent.is_dir() and not out.exists(), stderr


def test_an_observation_size_mismatch_names_both_sizes_and_the_training_env(tmp_path, capsys):
    # The balance policy (wbc mode: 75 observations) in torque mode (94).
    argv = evaluate_args(tmp_path, "--policy", str(BALANCE), "--env-kwargs", '{"action_mode": "torque"}')
    code, stderr = run_main(evaluate_module.main, argv, capsys)
    assert_refused(
        code, stderr, "observations of size 75", "has 94", "trained on HumanoidWBC-v0 with action_mode=wbc"
    )
    assert "broadcast" not in stderr


# -- training.evaluate: bad run folders -------------------------------------------------------------


@pytest.mark.parametrize(
    "damage, named",
    [
        ({STATS_FILE: '{"format": "humanoid-wbc VecNormalize statistics", '}, [STATS_FILE, "not JSON"]),
        ({STATS_FILE: '{"format": "something else"}'}, [STATS_FILE, "format must be"]),
        ({"config.yaml": "env: [HumanoidWBC-v0\nalgo: ppo\n"}, ["config.yaml", "cannot read the run config"]),
        ({"config.yaml": "env: HumanoidWBC-v0\nalgo: dqn\n"}, ["config.yaml", "algo must be one of ppo, sac", "'dqn'"]),
        ({"config.yaml": "env: HumanoidWBC-v0\nconfig: [1, 2]\n"}, ["config must be a mapping"]),
    ],
)
def test_a_damaged_run_folder_is_refused_with_the_file_named(run_copy, tmp_path, capsys, damage, named):
    for name, text in damage.items():
        (run_copy / name).write_text(text)
    code, stderr = run_main(evaluate_module.main, evaluate_args(tmp_path, "--policy", str(run_copy)), capsys)
    assert_refused(code, stderr, *named)


def test_a_planted_statistics_pickle_is_refused_not_run(run_copy, tmp_path, capsys):
    marker = tmp_path / "the_pickle_ran"
    (run_copy / STATS_FILE).unlink()
    (run_copy / VECNORM_FILE).write_bytes(pickle.dumps(Planted(marker)))
    code, stderr = run_main(evaluate_module.main, evaluate_args(tmp_path, "--policy", str(run_copy)), capsys)
    assert_refused(code, stderr, str(run_copy / VECNORM_FILE), "--trust-pickle", "python -m training.normalisation convert")
    assert not marker.exists()


def plant_in_model_zip(model_zip: Path, key: str, payload: object) -> None:
    """Replace ``key`` of the zip's ``data`` by a pickled ``payload`` stored as SB3 stores objects."""
    with zipfile.ZipFile(model_zip) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(members["data"])
    data[key] = {**data.get(key, {}), ":serialized:": base64.b64encode(pickle.dumps(payload)).decode()}
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(model_zip, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)


def test_a_planted_model_zip_entry_is_not_unpickled(run_copy, tmp_path):
    # SB3's own load would unpickle lr_schedule (and policy_class, ...): the safe loader rebuilds them.
    marker = tmp_path / "the_zip_ran"
    for key in ("lr_schedule", "policy_class", "observation_space", "ep_info_buffer"):
        plant_in_model_zip(run_copy / "model.zip", key, Planted(marker))
    result = evaluate_module.evaluate(ENV, str(run_copy), episodes=1, seed=0, max_steps=3)
    assert result["episodes"][0]["length"] == 3
    assert not marker.exists()


def test_a_pickled_entry_the_safe_loader_does_not_know_is_refused(run_copy, tmp_path):
    marker = tmp_path / "the_zip_ran"
    plant_in_model_zip(run_copy / "model.zip", "features_extractor_class", Planted(marker))
    with pytest.raises(evaluate_module.EvaluationError, match="'features_extractor_class'.*--trust-pickle"):
        evaluate_module.evaluate(ENV, str(run_copy), episodes=1, seed=0, max_steps=2)
    assert not marker.exists()


def test_trust_pickle_loads_an_old_folder_as_before(run_copy, tmp_path):
    # An old run folder: pickled statistics only. With --trust-pickle it acts as the JSON folder does.
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    files = find_run_files(run_copy)
    venv = DummyVecEnv([lambda: gym.make(ENV, **files.env_kwargs)])
    vecnormalize_on(read_statistics(files.statistics), venv).save(str(run_copy / VECNORM_FILE))
    venv.close()
    (run_copy / STATS_FILE).unlink()
    old = evaluate_module.evaluate(ENV, str(run_copy), episodes=1, seed=3, max_steps=20, trust_pickle=True)
    new = evaluate_module.evaluate(ENV, str(BALANCE), episodes=1, seed=3, max_steps=20)
    assert old["episodes"][0]["return"] == new["episodes"][0]["return"]


def test_evaluate_subprocess_refuses_a_planted_pickle_without_a_traceback(run_copy, tmp_path):
    marker = tmp_path / "the_pickle_ran"
    (run_copy / STATS_FILE).unlink()
    (run_copy / VECNORM_FILE).write_bytes(pickle.dumps(Planted(marker)))
    proc = subprocess.run(
        [sys.executable, "-m", "training.evaluate", *evaluate_args(tmp_path, "--policy", str(run_copy))],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert_refused(proc.returncode, proc.stderr, "--trust-pickle")
    assert not marker.exists() and not (tmp_path / "out.json").exists()


# -- the shipped policies and the statistics file ---------------------------------------------------

#: sha256 (first 32 digits) of obs_rms mean + var bytes + repr(count) of each shipped policy's
#: ``vecnormalize.pkl`` at bb00e72, before its conversion to JSON.
SHIPPED_OBS_RMS = {
    "HumanoidWBC-v0": "d53d28ee9a0f73da42aba016e3523c8d",
    "HumanoidWBCSeesaw-v0": "824dd90bbd7c461e4b20114e6167748c",
    "HumanoidWBCWall-v0": "df05e38c6d770911860344e9f26e376c",
}


@pytest.mark.parametrize("env_id", SHIPPED)
def test_shipped_policies_hold_their_statistics_as_json_bit_for_bit(env_id):
    folder = POLICIES / env_id
    assert not list(folder.glob("*.pkl")), "a shipped policy must not need a pickle"
    files = find_run_files(folder)
    assert files.statistics == folder / STATS_FILE and files.vecnormalize is None
    rms = read_statistics(files.statistics).obs_rms
    digest = hashlib.sha256(rms.mean.tobytes() + rms.var.tobytes() + repr(rms.count).encode()).hexdigest()
    assert digest[:32] == SHIPPED_OBS_RMS[env_id]


@pytest.mark.parametrize("env_id", SHIPPED)
def test_the_safe_loader_gives_the_model_sb3_loads(env_id):
    import gymnasium as gym
    from stable_baselines3 import PPO

    from training.model_file import load_model_safely

    files = find_run_files(POLICIES / env_id)
    env = gym.make(env_id, **files.env_kwargs)
    safe = load_model_safely(files.model, "ppo", env.observation_space, env.action_space)
    trusted = PPO.load(files.model, device="cpu")
    weights = [model.policy.state_dict() for model in (safe, trusted)]
    assert weights[0].keys() == weights[1].keys() and safe.policy_kwargs == trusted.policy_kwargs
    assert all(np.array_equal(weights[0][k].numpy(), weights[1][k].numpy()) for k in weights[0])
    observations = np.random.default_rng(0).normal(0.0, 2.0, (50, *env.observation_space.shape)).astype(np.float32)
    for obs in observations:
        assert np.array_equal(safe.predict(obs, deterministic=True)[0], trusted.predict(obs, deterministic=True)[0])
    env.close()


@pytest.fixture
def pendulum_vecnormalize():
    """A VecNormalize on a small env (Pendulum), its statistics updated by 40 random steps."""
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    venv = VecNormalize(DummyVecEnv([lambda: gym.make("Pendulum-v1")] * 2), gamma=0.95, clip_obs=3.0)
    venv.seed(1)
    venv.reset()
    rng = np.random.default_rng(1)
    for _ in range(40):
        venv.step(rng.uniform(-2, 2, (2, 1)).astype(np.float32))
    return venv


def test_json_statistics_train_on_exactly_as_the_pickle_does(pendulum_vecnormalize, tmp_path):
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    pendulum_vecnormalize.save(str(tmp_path / "stats.pkl"))
    write_statistics(pendulum_vecnormalize, tmp_path / "stats.json")
    loaded = []
    for how in ("pickle", "json"):
        venv = DummyVecEnv([lambda: gym.make("Pendulum-v1")] * 2)
        if how == "pickle":
            loaded.append(VecNormalize.load(str(tmp_path / "stats.pkl"), venv))
        else:
            loaded.append(vecnormalize_on(read_statistics(tmp_path / "stats.json"), venv))
    outputs = []
    for vecnorm in loaded:  # the same steps, training on: observations, rewards and statistics
        vecnorm.seed(2)
        out = [vecnorm.reset()]
        rng = np.random.default_rng(2)
        for _ in range(30):
            obs, reward, _, _ = vecnorm.step(rng.uniform(-2, 2, (2, 1)).astype(np.float32))
            out += [obs, reward]
        out += [vecnorm.obs_rms.mean, vecnorm.obs_rms.var, vecnorm.ret_rms.var, np.array(vecnorm.obs_rms.count)]
        outputs.append(b"".join(np.asarray(x).tobytes() for x in out))
    assert outputs[0] == outputs[1]


def test_the_convert_command_writes_the_same_statistics(pendulum_vecnormalize, tmp_path, capsys):
    from training import normalisation

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    pendulum_vecnormalize.save(str(run / VECNORM_FILE))
    pendulum_vecnormalize.save(str(run / "checkpoints" / "model_vecnormalize_128_steps.pkl"))
    assert normalisation.main(["convert", str(run), "--remove-pickle"]) == 0
    assert sorted(p.relative_to(run).as_posix() for p in run.rglob("*.*")) == [
        "checkpoints/model_vecnormalize_128_steps.json", STATS_FILE,
    ]  # fmt: skip
    stats = read_statistics(run / STATS_FILE)
    assert stats.obs_rms.mean.tobytes() == pendulum_vecnormalize.obs_rms.mean.tobytes()
    assert stats.ret_rms.count == pendulum_vecnormalize.ret_rms.count and stats.gamma == 0.95


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: r.update(obs_rms={**r["obs_rms"], "var": [-1.0, 1.0, 1.0]}), "obs_rms.var must be >= 0"),
        (lambda r: r.update(obs_rms={**r["obs_rms"], "mean": [0.0, "NaN", 1.0]}), "obs_rms.mean must be a non-empty"),
        (lambda r: r.update(obs_rms={**r["obs_rms"], "mean": [0.0]}), "must have the same length, got 1 and 3"),
        (lambda r: r.update(clip_obs=-1), "clip_obs must be a finite number > 0, got -1"),
        (lambda r: r.update(norm_obs="yes"), "norm_obs must be true or false"),
        (lambda r: r.pop("ret_rms"), "ret_rms must be a mapping"),
    ],
)
def test_a_bad_statistics_file_is_refused_naming_the_field(pendulum_vecnormalize, tmp_path, change, message):
    path = write_statistics(pendulum_vecnormalize, tmp_path / STATS_FILE)
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))
    with pytest.raises(StatisticsFileError, match=message) as caught:
        read_statistics(path)
    assert str(path) in str(caught.value)


def test_statistics_with_non_finite_numbers_are_refused(pendulum_vecnormalize, tmp_path):
    stats = statistics_of(pendulum_vecnormalize)
    stats.obs_rms.mean[1] = np.nan
    path = write_statistics(stats, tmp_path / STATS_FILE)
    with pytest.raises(StatisticsFileError, match="obs_rms.mean must be finite"):
        read_statistics(path)


# -- training configs: ranges -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "algo, overrides, message",
    [
        ("ppo", {"learning_rate": -1}, "learning_rate must be a finite number >= 0, got -1"),
        ("ppo", {"learning_rate": float("nan")}, "learning_rate must be a finite number >= 0, got nan"),
        ("ppo", {"gamma": 2.0}, r"gamma must be a number in \[0, 1\], got 2.0"),
        ("ppo", {"clip_range": -1}, "clip_range must be a finite number > 0, got -1"),
        ("ppo", {"gae_lambda": 1.5}, r"gae_lambda must be a number in \[0, 1\], got 1.5"),
        ("ppo", {"max_grad_norm": 0}, "max_grad_norm must be a finite number > 0, got 0"),
        ("ppo", {"vf_coef": float("inf")}, "vf_coef must be a finite number >= 0, got inf"),
        ("ppo", {"ent_coef": -0.01}, "ent_coef must be a finite number >= 0, got -0.01"),
        ("ppo", {"batch_size": 1}, "batch_size must be an integer >= 2, got 1"),
        ("ppo", {"clip_obs": 0}, "clip_obs must be a finite number > 0, got 0"),
        ("ppo", {"target_kl": float("nan")}, r"target_kl must be null or a number > 0 \(finite\), got nan"),
        ("ppo", {"policy_kwargs": {"net_arch": [64, -64]}}, r"net_arch must be a list of layer sizes .*\[64, -64\]"),
        ("ppo", {"policy_kwargs": {"net_arch": {"pi": [0], "vf": [8]}}}, r"net_arch .* pi and vf .*\[0\]"),
        ("ppo", {"policy_kwargs": {"log_std_init": float("nan")}}, r"log_std_init must be a number in \[-20, 2\]"),
        ("sac", {"tau": 0.0}, r"tau must be a number in \(0, 1\], got 0.0"),
        ("sac", {"ent_coef": "auto_-0.5"}, "ent_coef must be 'auto', 'auto_<initial value > 0>' or a finite number > 0"),
        ("sac", {"ent_coef": 0}, "ent_coef must be .* got 0"),
        ("sac", {"learning_rate": -3e-4}, "learning_rate must be a finite number >= 0, got -0.0003"),
        ("sac", {"policy_kwargs": {"net_arch": {"pi": [64]}}}, "net_arch .* pi and qf"),
    ],
)
def test_out_of_range_hyperparameters_name_the_key_the_range_and_the_value(algo, overrides, message):
    with pytest.raises(ConfigError, match=message):
        resolve_config(algo, ENV, None, overrides)


@pytest.mark.parametrize(
    "algo, overrides",
    [("ppo", {"learning_rate": 0.0, "gamma": 1.0, "ent_coef": 0.0}), ("sac", {"ent_coef": "auto_0.1", "tau": 1.0})],
)
def test_edge_values_inside_the_ranges_are_accepted(algo, overrides):
    config = resolve_config(algo, ENV, ROOT / "configs" / f"{algo}.yml", overrides)
    assert all(config[key] == value for key, value in overrides.items())


# -- training.train: nothing written before the command is valid; a failed run can run again ------


def train_args(run_dir: Path, *params: str) -> list[str]:
    return [
        "--env", ENV, "--algo", "ppo", "--config", "none", "--timesteps", "64", "--n-envs", "1",
        "--run-dir", str(run_dir), "--no-progress-bar", "--verbose", "0", "--params", "n_steps=64", *params,
    ]  # fmt: skip


@pytest.fixture
def fake_training(monkeypatch):
    """``training.train.train`` replaced: ``calls`` counts; ``fail`` raised after ``leave(run_dir)``
    ran (files a training would have saved); else train_info is written."""

    class Fake:
        calls = 0
        fail: Exception | None = None
        leave = staticmethod(lambda run_dir: None)

        def __call__(self, env_id, algo, config, seed, run_dir, **kwargs):
            self.calls += 1
            if self.fail is not None:
                self.leave(run_dir)
                raise self.fail
            info = {"timesteps": 64, "wall_s": 1.0, "steps_per_s": 64.0, "interrupted": False}
            (run_dir / "train_info.json").write_text(json.dumps(info))
            return info

    fake = Fake()
    monkeypatch.setattr(train_module, "train", fake)
    return fake


@pytest.mark.parametrize(
    "params, named",
    [
        (["learning_rate=-1"], "learning_rate must be a finite number >= 0, got -1"),
        (["gamma=2.0"], "gamma must be a number in [0, 1], got 2.0"),
        (["policy_kwargs={net_arch: [-8]}"], "net_arch must be a list of layer sizes"),
    ],
)
def test_train_refuses_a_bad_config_and_writes_nothing(tmp_path, capsys, fake_training, params, named):
    run_dir = tmp_path / "run"
    code, stderr = run_main(train_module.main, train_args(run_dir, *params), capsys)
    assert_refused(code, stderr, named)
    assert not run_dir.exists() and fake_training.calls == 0


def test_train_refuses_a_run_dir_it_cannot_create(tmp_path, capsys, fake_training):
    (tmp_path / "a_file").write_text("")
    code, stderr = run_main(train_module.main, train_args(tmp_path / "a_file" / "run"), capsys)
    assert_refused(code, stderr, "--run-dir must be a folder that can be created")
    assert fake_training.calls == 0


def test_a_failed_training_leaves_nothing_and_the_same_command_runs_again(tmp_path, capsys, fake_training):
    run_dir = tmp_path / "run"
    fake_training.fail = RuntimeError("a worker died")
    with pytest.raises(RuntimeError, match="a worker died"):
        train_module.main(train_args(run_dir))
    assert "removed" in capsys.readouterr().err and not run_dir.exists()
    fake_training.fail = None
    code, stderr = run_main(train_module.main, train_args(run_dir), capsys)
    assert code == 0, stderr
    # Done: the same command now says the run finished (and how to train it again).
    code, stderr = run_main(train_module.main, train_args(run_dir), capsys)
    assert_refused(code, stderr, "already holds a finished run", "--overwrite")


def test_a_failed_training_that_saved_models_is_kept_and_the_refusal_says_how_to_go_on(tmp_path, capsys, fake_training):
    run_dir = tmp_path / "run"

    def a_snapshot(run_dir: Path) -> None:
        (run_dir / "snapshots").mkdir()
        (run_dir / "snapshots" / "model_32_steps.zip").write_bytes(b"")

    fake_training.fail, fake_training.leave = RuntimeError("killed"), a_snapshot
    with pytest.raises(RuntimeError):
        train_module.main(train_args(run_dir))
    assert "kept" in capsys.readouterr().err and (run_dir / "config.yaml").is_file()
    code, stderr = run_main(train_module.main, train_args(run_dir), capsys)
    assert_refused(code, stderr, "did not finish", f"--resume --run-dir {run_dir}", "--overwrite")


def test_train_writes_json_statistics_that_evaluate_loads(tmp_path):
    # A real (tiny, in-process) run: final, best and checkpoint statistics as JSON beside the pickles.
    run_dir = tmp_path / "run"
    argv = train_args(
        run_dir, "batch_size=32", "n_epochs=1", "eval_freq=64", "eval_episodes=1", "checkpoint_freq=64",
        "policy_kwargs={net_arch: [8]}",
    )  # fmt: skip
    argv += ["--env-kwargs", "max_episode_steps=20", "push_magnitude_n=[0, 0]"]
    assert train_module.main(argv) == 0
    for name in (STATS_FILE, f"best/{STATS_FILE}", "checkpoints/model_vecnormalize_64_steps.json"):
        stats = read_statistics(run_dir / name)
        pickled = pickle.loads((run_dir / name).with_suffix(".pkl").read_bytes())
        assert stats.obs_rms.mean.tobytes() == pickled.obs_rms.mean.tobytes(), name
    result = evaluate_module.evaluate(ENV, str(run_dir / "checkpoints" / "model_64_steps.zip"), 1, 0)
    assert result["episodes"][0]["length"] == 20


def test_train_subprocess_refuses_a_nan_learning_rate(tmp_path):
    run_dir = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "training.train", *train_args(run_dir, "learning_rate=.nan")],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env={**os.environ},
    )  # fmt: skip
    assert_refused(proc.returncode, proc.stderr, "learning_rate must be a finite number >= 0, got nan")
    assert not run_dir.exists()
