"""Training configuration: defaults in code, experiments in YAML, overrides on the command line.

A YAML file holds one algorithm's hyperparameters keyed by env id, rl-baselines3-zoo style:

    default:              # applies to every env
      timesteps: 1000000
      policy_kwargs: {net_arch: [256, 256]}
    HumanoidWBC-v0:       # applies to this env only
      env_kwargs: {action_mode: wbc}

Precedence, lowest first: [`default_config`][training.config.default_config] (code), the YAML ``default`` entry, the YAML entry of
the env, command-line overrides. The dictionaries ``env_kwargs`` and ``policy_kwargs`` are merged key
by key along that chain; every other key is replaced. Unknown keys, section names that are not a
registered env id, and malformed files raise [`ConfigError`][training.config.ConfigError] with a message naming the file.
An env without an entry of its own uses ``default`` alone.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import yaml

import humanoid_env  # noqa: F401  (registers the environments, whose ids the YAML sections name)
from humanoid_env.registry import TASKS

ALGOS = ("ppo", "sac")
#: How ``n_envs > 1`` envs are stepped (the ``vec_env`` setting): ``subprocess`` (SB3's
#: ``SubprocVecEnv``, one process per env) or ``threads`` ([`ThreadedVecEnv`][training.vec_env.ThreadedVecEnv]:
#: one process, the envs' compiled physics loops on a thread each). Both hand the algorithm the same
#: observations, float64 rewards and dones bit for bit; which is faster: ``docs/speed.md``.
VEC_ENVS = ("subprocess", "threads")
#: Settings that change how a run is executed, not what it computes: a resumed run may change them.
EXECUTION_KEYS = ("vec_env",)
#: Keys merged key by key along the precedence chain instead of being replaced.
MERGED_KEYS = ("env_kwargs", "policy_kwargs")
#: ``policy_kwargs`` entries accepted per algorithm (``activation_fn`` is a name from
#: `ACTIVATIONS`). SAC has no ``log_std_init``: SB3's SAC actor outputs its log std from the
#: network (the keyword acts only with gSDE, which we do not use), so it would be silently ignored.
POLICY_KWARGS: dict[str, tuple[str, ...]] = {
    "ppo": ("net_arch", "activation_fn", "log_std_init", "ortho_init"),
    "sac": ("net_arch", "activation_fn"),
}
ACTIVATIONS = ("tanh", "relu", "elu", "leaky_relu")

#: Keys every algorithm has: budget, parallelism, normalisation, env, evaluation, checkpoints.
_COMMON: dict[str, Any] = {
    "timesteps": 1_000_000,  # total env steps (all envs together)
    "n_envs": 2,  # parallel envs
    # How they are stepped: one of VEC_ENVS; threads: 1.04-1.40x SubprocVecEnv's PPO steps/s in model.learn,
    # 1.13-1.52x over a 16k-step run with its start-up, in three runs (benchmarks.ppo_share, docs/speed.md);
    # the same run bit for bit.
    "vec_env": "threads",
    "normalize": True,  # VecNormalize observations and rewards
    "norm_obs": True,
    "norm_reward": True,
    "clip_obs": 10.0,
    "env_kwargs": {},  # gym.make keywords (max_episode_steps included)
    "eval_freq": 20_000,  # env steps between evaluations (0: none)
    "eval_episodes": 2,
    "checkpoint_freq": 100_000,  # env steps between checkpoints (0: none)
    # Env-step totals at which the model and its statistics are saved to snapshots/ (a run stopped
    # part-way resumes from the latest: `training.train --resume`), each evaluated on
    # snapshot_eval_episodes deterministic episodes from seed snapshot_eval_seed (0: saved only).
    "snapshot_steps": [],
    "snapshot_eval_episodes": 0,
    "snapshot_eval_seed": 100_000,
    "policy_kwargs": {"net_arch": [256, 256]},
    "learning_rate": 3e-4,
    "gamma": 0.99,
    "batch_size": 64,
}

_ALGO_DEFAULTS: dict[str, dict[str, Any]] = {
    "ppo": {
        "n_steps": 1024,  # env steps per env per rollout
        "n_epochs": 10,
        "gae_lambda": 0.95,
        "ent_coef": 0.0,
        "clip_range": 0.2,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
        # Stop an update's epochs once the policy's approximate KL divergence from the rollout's
        # passes 1.5 x this (SB3's rule); null: every epoch runs.
        "target_kl": None,
    },
    "sac": {
        "buffer_size": 1_000_000,
        "learning_starts": 10_000,
        "tau": 0.005,
        "train_freq": 1,
        "gradient_steps": 1,
        "ent_coef": "auto",
    },
}
_ALGO_DEFAULTS["sac"]["batch_size"] = 256
_ALGO_DEFAULTS["sac"]["policy_kwargs"] = {"net_arch": [256, 256]}

#: Keys consumed by training/train.py; the rest are passed to the SB3 algorithm constructor.
RUNNER_KEYS = (
    "timesteps",
    "n_envs",
    "vec_env",
    "normalize",
    "norm_obs",
    "norm_reward",
    "clip_obs",
    "env_kwargs",
    "eval_freq",
    "eval_episodes",
    "checkpoint_freq",
    "snapshot_steps",
    "snapshot_eval_episodes",
    "snapshot_eval_seed",
)


class _Loader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that also reads ``3e-4`` as a float.

    NOTE: YAML 1.1 (PyYAML) wants a dot in a float's mantissa: plain ``safe_load`` reads ``3e-4`` as
    the *string* ``"3e-4"``, which SB3 then rejects deep inside training.
    """


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def yaml_load(text: str) -> Any:
    """``yaml.safe_load`` with ``3e-4`` read as a float (YAML 1.1 wants a dot in the mantissa)."""
    return yaml.load(text, Loader=_Loader)  # noqa: S506  (a SafeLoader subclass)


class ConfigError(ValueError):
    """A configuration file or override cannot be used; the message says why and where."""


def _check_algo(algo: str) -> str:
    if algo not in ALGOS:
        raise ConfigError(f"unknown algorithm {algo!r}; valid ones are: {', '.join(ALGOS)}")
    return algo


def default_config(algo: str) -> dict[str, Any]:
    """The code defaults of ``algo`` (a fresh dict: callers may modify it)."""
    return copy.deepcopy({**_COMMON, **_ALGO_DEFAULTS[_check_algo(algo)]})


def valid_keys(algo: str) -> list[str]:
    return sorted(default_config(algo))


def known_env_ids() -> list[str]:
    """The env ids a YAML section may name: every task of the registry (``humanoid_env`` registers
    them all with Gymnasium), sorted."""
    return sorted(TASKS)


def check_env_id(env_id: str) -> str:
    """``env_id`` without a ``humanoid_env:`` prefix, if registered; else [`ConfigError`][training.config.ConfigError]."""
    name = env_id.split(":")[-1]
    if name not in gym.registry:
        raise ConfigError(f"unknown env id {env_id!r}; valid ones are: {', '.join(known_env_ids())}")
    return name


def check_keys(section: Mapping[str, Any], algo: str, where: str) -> None:
    """Unknown keys (and unknown ``policy_kwargs`` entries) raise [`ConfigError`][training.config.ConfigError] naming ``where``."""
    unknown = sorted(set(section) - set(default_config(algo)))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {unknown} for {algo}; valid ones are: {', '.join(valid_keys(algo))}"
        )
    for key in MERGED_KEYS:
        if key in section and not isinstance(section[key], Mapping):
            raise ConfigError(f"{where}: {key} must be a mapping, got {section[key]!r}")
    bad = sorted(set(section.get("policy_kwargs", {})) - set(POLICY_KWARGS[algo]))
    if bad:
        valid = ", ".join(POLICY_KWARGS[algo])
        why = " (SB3's SAC actor outputs its log std; log_std_init would be ignored)" if "log_std_init" in bad else ""
        raise ConfigError(f"{where}: unknown policy_kwargs {bad} for {algo}{why}; valid ones are: {valid}")
    activation = section.get("policy_kwargs", {}).get("activation_fn")
    if activation is not None and activation not in ACTIVATIONS:
        raise ConfigError(f"{where}: activation_fn must be one of {ACTIVATIONS}, got {activation!r}")


def load_yaml(path: str | Path, algo: str) -> dict[str, dict[str, Any]]:
    """Read and check a hyperparameter file: ``{section: {key: value}}`` with ``section`` in
    ``default`` or a registered env id."""
    path = Path(path)
    try:
        data = yaml_load(path.read_text())
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the config file ({err.strerror or err})") from err
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: malformed YAML: {err}") from err
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}: malformed config: expected a mapping of env id -> settings, got {type(data).__name__}"
        )
    valid_sections = ["default", *known_env_ids()]
    for section, values in data.items():
        if section != "default" and section not in gym.registry:
            raise ConfigError(
                f"{path}: unknown env id {section!r}; valid sections are: {', '.join(valid_sections)}"
            )
        if values is None:
            data[section] = values = {}
        if not isinstance(values, dict):
            raise ConfigError(
                f"{path}: malformed config: section {section!r} must be a mapping, got {values!r}"
            )
        check_keys(values, algo, f"{path} [{section}]")
    return data


def merge(base: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``update``; [`MERGED_KEYS`][training.config.MERGED_KEYS] are merged key by key (returns a new dict)."""
    out = copy.deepcopy(base)
    for key, value in update.items():
        if key in MERGED_KEYS and isinstance(out.get(key), dict):
            out[key] = {**out[key], **copy.deepcopy(dict(value))}
        else:
            out[key] = copy.deepcopy(value)
    return out


def resolve_config(
    algo: str,
    env_id: str,
    config_path: str | Path | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Code defaults <- YAML ``default`` <- YAML ``env_id`` <- ``overrides`` (command line)."""
    _check_algo(algo)
    env_id = check_env_id(env_id)
    config = default_config(algo)
    if config_path is not None:
        sections = load_yaml(config_path, algo)
        config = merge(config, sections.get("default", {}))
        config = merge(config, sections.get(env_id, {}))
    if overrides:
        check_keys(overrides, algo, "command line")
        config = merge(config, overrides)
    _check_values(config, algo)
    return config


#: Keys that must be integers (``1e6`` in YAML is accepted as ``1000000``).
INT_KEYS = (
    "timesteps", "n_envs", "eval_freq", "eval_episodes", "checkpoint_freq", "batch_size",
    "snapshot_eval_episodes", "snapshot_eval_seed",
    "n_steps", "n_epochs", "buffer_size", "learning_starts", "train_freq", "gradient_steps",
)  # fmt: skip


@dataclass(frozen=True)
class Range:
    """An interval of finite numbers: ``low`` to ``high``, each end open or closed."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False

    def __contains__(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def describe(self) -> str:
        """``"a finite number > 0"``, ``"a number in [0, 1]"``, ..."""
        if math.isfinite(self.low) and math.isfinite(self.high):
            left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
            return f"a number in {left}{self.low:g}, {self.high:g}{right}"
        if math.isfinite(self.low):
            return f"a finite number {'>' if self.low_open else '>='} {self.low:g}"
        if math.isfinite(self.high):
            return f"a finite number {'<' if self.high_open else '<='} {self.high:g}"
        return "a finite number"


POSITIVE = Range(0.0, low_open=True)
NON_NEGATIVE = Range(0.0)
UNIT = Range(0.0, 1.0)
#: Keys that must be numbers, and the range each must lie in (NaN and infinities never do).
FLOAT_RANGES: dict[str, Range] = {
    "learning_rate": NON_NEGATIVE,  # 0: weights stay as loaded (training on from a saved model)
    "gamma": UNIT,
    "gae_lambda": UNIT,
    "clip_range": POSITIVE,
    "vf_coef": NON_NEGATIVE,
    "max_grad_norm": POSITIVE,
    "tau": Range(0.0, 1.0, low_open=True),
    "clip_obs": POSITIVE,
}
FLOAT_KEYS = tuple(FLOAT_RANGES)
#: Lowest value of each of [`INT_KEYS`][training.config.INT_KEYS] (1 unless listed). PPO's minibatches are normalised
#: (SB3 asserts ``batch_size > 1`` then).
INT_LOWS: dict[str, int] = {
    "eval_freq": 0,
    "checkpoint_freq": 0,
    "learning_starts": 0,
    "snapshot_eval_episodes": 0,
    "snapshot_eval_seed": 0,
}
#: ``log_std_init`` (PPO's initial log std of its actions): exp(-20) to exp(2).
LOG_STD_INIT_RANGE = Range(-20.0, 2.0)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_values(config: dict[str, Any], algo: str) -> None:
    """Type and range checks a typo would otherwise turn into a confusing SB3 error deep in
    training, or into a run that trains on nonsense (a negative learning rate); integral floats of
    [`INT_KEYS`][training.config.INT_KEYS] become ints (in place). Messages name the key, what is allowed and the value."""
    _check_ints(config, algo)
    snapshots = config.get("snapshot_steps", [])
    if (
        not isinstance(snapshots, list)
        or any(not _is_number(n) or not math.isfinite(n) or n < 1 or n != int(n) for n in snapshots)
        or sorted(set(snapshots)) != snapshots
    ):
        raise ConfigError(f"snapshot_steps must be a list of increasing positive integers, got {snapshots!r}")
    config["snapshot_steps"] = [int(n) for n in snapshots]
    for key, allowed in FLOAT_RANGES.items():
        if key in config and not (_is_number(config[key]) and config[key] in allowed):
            raise ConfigError(f"{key} must be {allowed.describe()}, got {config[key]!r}")
    target_kl = config.get("target_kl")
    if target_kl is not None and not (_is_number(target_kl) and target_kl in POSITIVE):
        raise ConfigError(f"target_kl must be null or a number > 0 (finite), got {target_kl!r}")
    _check_ent_coef(config.get("ent_coef", 0.0), algo)
    if config["vec_env"] not in VEC_ENVS:
        raise ConfigError(f"vec_env must be one of {', '.join(VEC_ENVS)}, got {config['vec_env']!r}")
    for key in ("normalize", "norm_obs", "norm_reward"):
        if not isinstance(config[key], bool):
            raise ConfigError(f"{key} must be true or false, got {config[key]!r}")
    _check_policy_kwargs(config["policy_kwargs"], algo)
    if algo == "ppo" and config["n_steps"] * config["n_envs"] < 2:
        raise ConfigError("n_steps * n_envs must be >= 2 for PPO")


def _check_ints(config: dict[str, Any], algo: str) -> None:
    for key in INT_KEYS:
        if key not in config:
            continue
        value = config[key]
        if isinstance(value, float) and value.is_integer():
            config[key] = value = int(value)
        low = 2 if (algo, key) == ("ppo", "batch_size") else INT_LOWS.get(key, 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ConfigError(f"{key} must be an integer >= {low}, got {value!r}")


def _check_ent_coef(value: Any, algo: str) -> None:
    """PPO: a number >= 0; SAC: ``auto``, ``auto_<initial value > 0>`` or a number > 0 (fixed)."""
    if algo == "ppo":
        if not (_is_number(value) and value in NON_NEGATIVE):
            raise ConfigError(f"ent_coef must be {NON_NEGATIVE.describe()}, got {value!r}")
        return
    if isinstance(value, str) and value.startswith("auto"):
        initial = value[len("auto_") :] if value.startswith("auto_") else ("1" if value == "auto" else "")
        try:
            if float(initial) in POSITIVE:
                return
        except ValueError:
            pass
    elif _is_number(value) and value in POSITIVE:
        return
    raise ConfigError(f"ent_coef must be 'auto', 'auto_<initial value > 0>' or {POSITIVE.describe()}, got {value!r}")


def _check_policy_kwargs(policy_kwargs: Mapping[str, Any], algo: str) -> None:
    """``net_arch``: a list of layer sizes (integers >= 1), or a mapping of PPO's ``pi``/``vf``
    or SAC's ``pi``/``qf`` to such lists; ``log_std_init`` in [`LOG_STD_INIT_RANGE`][training.config.LOG_STD_INIT_RANGE];
    ``ortho_init`` true or false (``activation_fn`` is checked with the keys)."""
    net_arch = policy_kwargs.get("net_arch", [])
    heads = ("pi", "vf") if algo == "ppo" else ("pi", "qf")

    def sizes_ok(sizes: Any) -> bool:
        return isinstance(sizes, list) and all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in sizes)

    # SAC's actor-critic split needs both heads; PPO's takes either (the other: shared layers only).
    keys_ok = (lambda keys: keys <= set(heads)) if algo == "ppo" else (lambda keys: keys == set(heads))
    ok = sizes_ok(net_arch) or (
        isinstance(net_arch, Mapping) and keys_ok(set(net_arch)) and all(sizes_ok(v) for v in net_arch.values())
    )
    if not ok:
        raise ConfigError(
            f"policy_kwargs.net_arch must be a list of layer sizes (integers >= 1) or a mapping of "
            f"{' and '.join(heads)} to such lists, got {net_arch!r}"
        )
    log_std = policy_kwargs.get("log_std_init")
    if log_std is not None and not (_is_number(log_std) and log_std in LOG_STD_INIT_RANGE):
        raise ConfigError(f"policy_kwargs.log_std_init must be {LOG_STD_INIT_RANGE.describe()}, got {log_std!r}")
    ortho = policy_kwargs.get("ortho_init")
    if ortho is not None and not isinstance(ortho, bool):
        raise ConfigError(f"policy_kwargs.ortho_init must be true or false, got {ortho!r}")


def algo_kwargs(config: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of a resolved config passed to the SB3 constructor (``policy_kwargs`` as SB3 wants it)."""
    import torch.nn as nn

    kwargs = {k: copy.deepcopy(v) for k, v in config.items() if k not in RUNNER_KEYS}
    policy_kwargs = dict(kwargs.pop("policy_kwargs", {}))
    activation = policy_kwargs.get("activation_fn")
    if activation is not None:
        policy_kwargs["activation_fn"] = {
            "tanh": nn.Tanh,
            "relu": nn.ReLU,
            "elu": nn.ELU,
            "leaky_relu": nn.LeakyReLU,
        }[activation]
    kwargs["policy_kwargs"] = policy_kwargs
    return kwargs


def parse_key_values(items: list[str] | None, option: str) -> dict[str, Any]:
    """``["a=1", "b=[0, 0]"]`` -> ``{"a": 1, "b": [0, 0]}``; values read with ``yaml.safe_load``."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{option} expects key=value, got {item!r}")
        try:
            out[key.strip()] = yaml_load(value)
        except yaml.YAMLError as err:
            raise ConfigError(f"{option} {item!r}: cannot parse the value: {err}") from err
    return out
