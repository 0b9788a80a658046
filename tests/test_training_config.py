"""training.config: YAML loading, validation messages and the precedence chain."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.config import (
    ConfigError,
    algo_kwargs,
    default_config,
    load_yaml,
    parse_key_values,
    resolve_config,
)

ROOT = Path(__file__).resolve().parents[1]
ENV = "HumanoidWBC-v0"


def write(tmp_path: Path, text: str, name: str = "cfg.yml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("algo", ["ppo", "sac"])
def test_shipped_configs_load_for_every_section(algo):
    path = ROOT / "configs" / f"{algo}.yml"
    sections = load_yaml(path, algo)
    assert "default" in sections and ENV in sections
    config = resolve_config(algo, ENV, path)
    assert config["env_kwargs"]["action_mode"] == "wbc"
    assert isinstance(config["learning_rate"], float)
    assert set(config) == set(default_config(algo))
    algo_kwargs(config)  # the SB3 constructor arguments build (activation names map to torch classes)


def test_precedence_code_then_default_then_env_then_command_line(tmp_path):
    path = write(
        tmp_path,
        """
default:
  timesteps: 1000
  n_steps: 64
  gamma: 0.9
  env_kwargs: {frame_skip: 5, init_noise_rad: 0.02}
  policy_kwargs: {net_arch: [8], log_std_init: -0.5}
HumanoidWBC-v0:
  n_steps: 128
  env_kwargs: {frame_skip: 20}
  policy_kwargs: {net_arch: [16, 16]}
""",
    )
    code = default_config("ppo")
    config = resolve_config("ppo", ENV, path, {"n_steps": 256, "env_kwargs": {"action_mode": "pd"}})
    assert config["n_epochs"] == code["n_epochs"]  # code default, untouched
    assert config["timesteps"] == 1000 and config["gamma"] == 0.9  # YAML default
    assert config["policy_kwargs"] == {"net_arch": [16, 16], "log_std_init": -0.5}  # env entry, merged by key
    assert config["n_steps"] == 256  # command line beats the env entry
    assert config["env_kwargs"] == {"frame_skip": 20, "init_noise_rad": 0.02, "action_mode": "pd"}
    assert resolve_config("ppo", ENV, path)["n_steps"] == 128  # env entry beats default


def test_env_without_entry_uses_default(tmp_path):
    path = write(tmp_path, "default: {timesteps: 77}\n")
    assert resolve_config("sac", ENV, path)["timesteps"] == 77


def test_unknown_key_is_rejected_with_valid_ones_listed(tmp_path):
    path = write(tmp_path, "default:\n  n_step: 64\n")
    with pytest.raises(
        ConfigError,
        match=r"cfg\.yml \[default\]: unknown key\(s\) \['n_step'\] for ppo; valid ones are: .*n_steps",
    ):
        resolve_config("ppo", ENV, path)
    with pytest.raises(ConfigError, match=r"command line: unknown key\(s\) \['buffer_size'\] for ppo"):
        resolve_config("ppo", ENV, None, {"buffer_size": 10})
    path = write(tmp_path, "default:\n  policy_kwargs: {net_arc: [8]}\n")
    with pytest.raises(ConfigError, match=r"unknown policy_kwargs \['net_arc'\] for sac; valid ones are: net_arch"):
        load_yaml(path, "sac")


def test_sac_rejects_log_std_init_which_sb3_would_ignore(tmp_path):
    # SB3's SAC actor (without gSDE) outputs its log std: the keyword would change nothing, silently.
    path = write(tmp_path, "default:\n  policy_kwargs: {log_std_init: -1.0}\n")
    with pytest.raises(ConfigError, match=r"\['log_std_init'\] for sac \(SB3's SAC actor outputs its log std"):
        load_yaml(path, "sac")
    assert load_yaml(path, "ppo")["default"]["policy_kwargs"] == {"log_std_init": -1.0}


def test_unknown_env_id_is_rejected_with_valid_ones_listed(tmp_path):
    path = write(tmp_path, "HumanoidWBC-v9:\n  timesteps: 10\n")
    with pytest.raises(
        ConfigError,
        match=r"cfg\.yml: unknown env id 'HumanoidWBC-v9'; valid sections are: default, .*HumanoidWBC-v0",
    ):
        load_yaml(path, "ppo")
    with pytest.raises(ConfigError, match=r"unknown env id 'NoSuchEnv-v0'; valid ones are: .*HumanoidWBC-v0"):
        resolve_config("ppo", "NoSuchEnv-v0")
    with pytest.raises(ConfigError, match=r"unknown algorithm 'td3'; valid ones are: ppo, sac"):
        resolve_config("td3", ENV)


@pytest.mark.parametrize(
    "text, message",
    [
        ("default: [timesteps: 1\n", "malformed YAML"),
        ("- just\n- a list\n", "malformed config: expected a mapping"),
        ("default: 3\n", "section 'default' must be a mapping"),
    ],
)
def test_malformed_file_is_named(tmp_path, text, message):
    path = write(tmp_path, text, "broken.yml")
    with pytest.raises(ConfigError, match=rf"broken\.yml.*{message}"):
        load_yaml(path, "ppo")


def test_missing_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r"missing\.yml: cannot read"):
        resolve_config("ppo", ENV, tmp_path / "missing.yml")


def test_value_types_are_checked_and_yaml_floats_read(tmp_path):
    path = write(tmp_path, "default:\n  learning_rate: 3e-4\n  timesteps: 1e4\n")
    config = resolve_config("ppo", ENV, path)
    assert config["learning_rate"] == pytest.approx(3e-4)  # NOTE: plain yaml.safe_load reads "3e-4"
    assert config["timesteps"] == 10_000 and isinstance(config["timesteps"], int)
    with pytest.raises(ConfigError, match="vec_env must be one of subprocess, threads, got 'ray'"):
        resolve_config("ppo", ENV, None, {"vec_env": "ray"})
    with pytest.raises(ConfigError, match="n_envs must be an integer >= 1"):
        resolve_config("ppo", ENV, None, {"n_envs": 0})
    with pytest.raises(ConfigError, match="gamma must be a number"):
        resolve_config("sac", ENV, None, {"gamma": "high"})
    assert resolve_config("ppo", ENV, None)["target_kl"] is None  # SB3's default: every epoch runs
    assert resolve_config("ppo", ENV, None, {"target_kl": 0.02})["target_kl"] == 0.02
    for bad in (0, -0.01, "small", True):
        with pytest.raises(ConfigError, match="target_kl must be null or a number > 0"):
            resolve_config("ppo", ENV, None, {"target_kl": bad})


def test_key_values_parse_as_yaml():
    parsed = parse_key_values(
        ["push_magnitude_n=[0, 0]", "action_mode=pd", "frame_skip=5", "lr=1e-4"], "--env-kwargs"
    )
    assert parsed == {"push_magnitude_n": [0, 0], "action_mode": "pd", "frame_skip": 5, "lr": 1e-4}
    with pytest.raises(ConfigError, match="--params expects key=value, got 'gamma'"):
        parse_key_values(["gamma"], "--params")


def test_train_reads_the_repository_config_unless_told_otherwise():
    from training.train import config_path

    assert config_path("ppo", None).endswith("configs/ppo.yml")
    assert config_path("sac", "my.yml") == "my.yml"
    assert config_path("ppo", "none") is None
