"""Loading an SB3 model zip without unpickling anything: the safe path of ``training.evaluate``.

An SB3 ``.zip`` holds ``data`` (JSON) and the network weights (``*.pth``, which SB3 loads with
``torch.load(weights_only=True)``: tensors only). Entries of ``data`` that are not plain JSON are
stored pickled (cloudpickle, under a ``":serialized:"`` key): SB3's ``load`` unpickles them, so a
planted zip runs code. [`load_model_safely`][training.model_file.load_model_safely] passes every such entry as a ``custom_objects``
replacement, rebuilt from what is known, and SB3 then unpickles none:

- ``policy_class``: the algorithm's ``MlpPolicy`` (the zip must name its module);
- ``observation_space``, ``action_space``: the env's own spaces, after [`check_spaces`][training.model_file.check_spaces] found
  the zip's shapes, dtypes and bounds (read back from the arrays the zip prints) to be the env's;
- ``policy_kwargs``: its JSON entries as they are, ``activation_fn`` by its ``torch.nn`` class name;
- ``lr_schedule``, ``clip_range``, ``clip_range_vf``: the constant schedule printed in the zip;
- training state that acting never reads ([`TRAINING_ONLY`][training.model_file.TRAINING_ONLY]): the last observations, the
  episode-info buffers, the buffer classes (SB3 picks its default again), SAC's ``train_freq``.

Any other pickled entry (a custom policy or features extractor, a non-constant schedule) is
refused with [`UnsafeModelError`][training.model_file.UnsafeModelError]; loading such a zip needs SB3's own ``load`` (``--trust-pickle``).
The model so loaded acts as SB3's ``load`` would (same weights, spaces and network); it is not
meant to train on (its training state is not restored).
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

SERIALIZED = ":serialized:"
#: Pickled ``data`` entries acting never reads: replaced by None (or, for ``train_freq``, 1).
TRAINING_ONLY = {
    "_last_obs": None,
    "_last_episode_starts": None,
    "_last_original_obs": None,
    "ep_info_buffer": None,
    "ep_success_buffer": None,
    "rollout_buffer_class": None,
    "replay_buffer_class": None,
    "train_freq": 1,
}
#: Schedules SB3 stores pickled; the safe path rebuilds constant ones.
SCHEDULES = ("lr_schedule", "clip_range", "clip_range_vf")
_CONSTANT = re.compile(r"ConstantSchedule\(val=([^()]+)\)")
_TORCH_CLASS = re.compile(r"<class 'torch\.nn\.modules\.[a-z_]+\.([A-Za-z0-9_]+)'>")


class UnsafeModelError(ValueError):
    """A model zip cannot be loaded without unpickling, or is not an SB3 model; the message says why."""


def read_model_data(path: Path) -> dict[str, Any]:
    """The ``data`` record of an SB3 model zip as plain JSON (pickled entries left as they are)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return json.loads(archive.read("data").decode())
    except (OSError, zipfile.BadZipFile, KeyError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UnsafeModelError(f"{path}: not a stable-baselines3 model zip ({type(err).__name__}: {err})") from None


def saved_shape(data: dict[str, Any], name: str) -> tuple[int, ...] | None:
    """The shape of ``observation_space`` / ``action_space`` as the zip records it (None if it does not)."""
    entry = data.get(name)
    shape = entry.get("_shape") if isinstance(entry, dict) else None
    if isinstance(shape, list) and all(isinstance(n, int) for n in shape):
        return tuple(shape)
    return None


def saved_algo(data: dict[str, Any]) -> str | None:
    """``"ppo"`` or ``"sac"`` from the module of the zip's policy class (None: neither)."""
    entry = data.get("policy_class")
    module = entry.get("__module__") if isinstance(entry, dict) else None
    return {"stable_baselines3.common.policies": "ppo", "stable_baselines3.sac.policies": "sac"}.get(module)


def check_spaces(path: Path, data: dict[str, Any], observation_space, action_space) -> None:
    """Raise [`UnsafeModelError`][training.model_file.UnsafeModelError] unless the zip's spaces are Boxes like the given ones: same
    shape and dtype, and bounds equal to the given ones as the zip prints them (``str(array)``)."""
    from gymnasium import spaces

    for name, space in (("observation_space", observation_space), ("action_space", action_space)):
        entry = data.get(name)
        if not isinstance(entry, dict) or "gymnasium.spaces.box.Box" not in str(entry.get(":type:")):
            raise UnsafeModelError(f"{path}: its {name} is not a gymnasium Box (the safe loader reads Boxes only)")
        if not isinstance(space, spaces.Box):
            raise UnsafeModelError(f"{path}: the env's {name} is {space}, not a Box")
        if saved_shape(data, name) != space.shape or entry.get("dtype") != str(space.dtype):
            raise UnsafeModelError(
                f"{path}: its {name} is {entry.get('dtype')} of shape {saved_shape(data, name)}, the env's is "
                f"{space.dtype} of shape {space.shape} (another env or env_kwargs)"
            )
        for bound in ("low", "high"):
            saved = _printed_array(entry.get(bound), space.dtype)
            if saved is None or saved.size != int(np.prod(space.shape)):
                raise UnsafeModelError(f"{path}: cannot read the {bound} bounds of its {name} ({entry.get(bound)!r})")
            if not np.array_equal(saved, getattr(space, bound).ravel()):
                raise UnsafeModelError(
                    f"{path}: its {name} has {bound} {entry.get(bound)}, the env's is {getattr(space, bound)} "
                    "(another env or env_kwargs)"
                )


def _printed_array(text: Any, dtype) -> np.ndarray | None:
    """The flat array of numpy's ``str(array)`` (None when it is summarised with ``...`` or not numbers)."""
    if not isinstance(text, str) or "..." in text:
        return None
    tokens = text.replace("[", " ").replace("]", " ").split()
    try:
        return np.array([float(token) for token in tokens], dtype=dtype)
    except ValueError:
        return None


def custom_objects(path: Path, data: dict[str, Any], algo: str, observation_space, action_space) -> dict[str, Any]:
    """A replacement for every pickled entry of ``data`` (see the module docstring)."""
    from stable_baselines3 import PPO, SAC

    policy_class = {"ppo": PPO, "sac": SAC}[algo].policy_aliases["MlpPolicy"]
    entry = data.get("policy_class")
    if not isinstance(entry, dict) or entry.get("__module__") != policy_class.__module__:
        raise UnsafeModelError(f"{path}: its policy class is not {algo.upper()}'s MlpPolicy ({policy_class.__module__})")
    # Always replaced, pickled or not: a zip gets no say in what these are.
    out: dict[str, Any] = {
        "policy_class": policy_class, "observation_space": observation_space, "action_space": action_space
    }
    for key, entry in data.items():
        if key in out or not (isinstance(entry, dict) and SERIALIZED in entry):
            continue
        if key == "policy_kwargs":
            out[key] = _policy_kwargs(path, entry)
        elif key in SCHEDULES:
            out[key] = _constant_schedule(path, key, entry)
        elif key in TRAINING_ONLY:
            out[key] = TRAINING_ONLY[key]
        else:
            raise _unsafe(path, key, entry, "the safe loader does not rebuild it")
    return out


def load_model_safely(path: Path, algo: str | None, observation_space, action_space):
    """The SB3 PPO or SAC model in ``path`` (on the CPU), loaded without unpickling; ``algo``: its
    algorithm (None: read from the zip). Raises [`UnsafeModelError`][training.model_file.UnsafeModelError] when that cannot be done."""
    from stable_baselines3 import PPO, SAC

    data = read_model_data(path)
    algo = algo or saved_algo(data)
    if algo not in ("ppo", "sac"):
        raise UnsafeModelError(f"{path}: not a PPO or SAC model (its policy class is not one of theirs)")
    check_spaces(path, data, observation_space, action_space)
    objects = custom_objects(path, data, algo, observation_space, action_space)
    try:
        return {"ppo": PPO, "sac": SAC}[algo].load(str(path), device="cpu", custom_objects=objects)
    except Exception as err:  # weights of another network, a damaged zip: SB3 raises many kinds
        raise UnsafeModelError(f"{path}: cannot load it as a {algo.upper()} model ({type(err).__name__}: {err})") from None


def _unsafe(path: Path, key: str, entry: dict, why: str) -> UnsafeModelError:
    return UnsafeModelError(
        f"{path}: its entry {key!r} ({entry.get(':type:')}) is stored pickled and {why}; loading it would "
        "run code from the file: if you trust the file, load it with --trust-pickle (SB3's own load)"
    )


def _constant_schedule(path: Path, key: str, entry: dict):
    """``FloatSchedule(ConstantSchedule(v))`` from the zip's printed ``value_schedule``."""
    from stable_baselines3.common.utils import ConstantSchedule, FloatSchedule

    match = _CONSTANT.fullmatch(str(entry.get("value_schedule", "")))
    if "FloatSchedule" not in str(entry.get(":type:")) or match is None:
        raise _unsafe(path, key, entry, "is not a constant schedule")
    try:
        value = float(match[1])
    except ValueError:
        raise _unsafe(path, key, entry, "is not a constant schedule") from None
    return FloatSchedule(ConstantSchedule(value))


def _policy_kwargs(path: Path, entry: dict) -> dict[str, Any]:
    """The zip's ``policy_kwargs``: plain JSON entries as stored, ``activation_fn`` a ``torch.nn`` class."""
    import torch.nn as nn

    if "'dict'" not in str(entry.get(":type:")):
        raise _unsafe(path, "policy_kwargs", entry, "is not a dict")
    out: dict[str, Any] = {}
    for name, value in entry.items():
        if name in (":type:", SERIALIZED):
            continue
        if name == "activation_fn":
            match = _TORCH_CLASS.fullmatch(str(value))
            cls = getattr(nn, match[1], None) if match else None
            if not (isinstance(cls, type) and issubclass(cls, nn.Module)):
                raise _unsafe(path, "policy_kwargs", entry, f"its activation_fn {value!r} is not a torch.nn class")
            out[name] = cls
        elif isinstance(value, str) and value.startswith("<"):  # an object SB3 could only print
            raise _unsafe(path, "policy_kwargs", entry, f"its {name} {value!r} is an object, not JSON")
        else:
            out[name] = value
    return out
