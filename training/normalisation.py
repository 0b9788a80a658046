"""Normalisation statistics (SB3's ``VecNormalize``) in a file that cannot run code: ``vecnormalize.json``.

SB3 saves a ``VecNormalize`` by pickling it (``vecnormalize.pkl``): loading such a file runs whatever
code it names, so a planted file runs a command. A run folder therefore also holds the same statistics
as JSON (`training.run_folder.STATS_FILE`), which [`read_statistics`][training.normalisation.read_statistics] loads with ``json``
alone, checking every field:

    {"format": "humanoid-wbc VecNormalize statistics", "version": 1,
     "norm_obs": true, "norm_reward": true, "clip_obs": 10.0, "clip_reward": 10.0,
     "gamma": 0.99, "epsilon": 1e-08,
     "obs_rms": {"mean": [...], "var": [...], "count": 160352.0001},   # (n,) each; null without norm_obs
     "ret_rms": {"mean": 182.2, "var": 3.4e3, "count": 160352.0001}}

Floats are written with Python's ``repr`` (shortest round trip), so the arrays read back are the
saved float64 arrays bit for bit. Only ``Box`` observations (one array) are supported.

Convert an old run folder (or the pickle files themselves) once, for files you trust:

    python -m training.normalisation convert RUN_DIR [--remove-pickle]

which unpickles each ``*vecnormalize*.pkl`` under it and writes the ``.json`` beside it (verified
to hold the same arrays).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from training import jsonio

FORMAT = "humanoid-wbc VecNormalize statistics"
VERSION = 1


class StatisticsFileError(ValueError):
    """A normalisation statistics file cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class RunningStats:
    """SB3's ``RunningMeanStd``: ``mean`` and ``var`` (float64, shape ``()`` or ``(n,)``), ``count``."""

    mean: np.ndarray
    var: np.ndarray
    count: float

    def to_rms(self):
        """A ``stable_baselines3`` ``RunningMeanStd`` holding these numbers (copies)."""
        from stable_baselines3.common.running_mean_std import RunningMeanStd

        rms = RunningMeanStd(shape=self.mean.shape)
        # A scalar statistic is a numpy float64 in a trained VecNormalize (0-d arrays become scalars
        # in its first update): keep that type.
        rms.mean = np.float64(self.mean) if self.mean.ndim == 0 else self.mean.copy()
        rms.var = np.float64(self.var) if self.var.ndim == 0 else self.var.copy()
        rms.count = float(self.count)
        return rms


@dataclass(frozen=True)
class NormalisationStatistics:
    """What a ``VecNormalize`` needs to normalise as it did in training (see the module docstring)."""

    norm_obs: bool
    norm_reward: bool
    clip_obs: float
    clip_reward: float
    gamma: float
    epsilon: float
    obs_rms: RunningStats | None
    ret_rms: RunningStats

    @property
    def observation_shape(self) -> tuple[int, ...] | None:
        """Shape of the observations these statistics normalise (None without ``norm_obs``)."""
        return None if self.obs_rms is None else tuple(self.obs_rms.mean.shape)


# -- from and to a VecNormalize -------------------------------------------------------------------


def statistics_of(vecnorm) -> NormalisationStatistics:
    """The statistics of a ``VecNormalize`` (its current numbers, copied)."""
    obs_rms = getattr(vecnorm, "obs_rms", None)
    if isinstance(obs_rms, dict):
        raise StatisticsFileError("statistics of dict observations are not supported (Box observations only)")

    def running(rms) -> RunningStats:
        return RunningStats(
            np.array(rms.mean, dtype=np.float64), np.array(rms.var, dtype=np.float64), float(rms.count)
        )

    return NormalisationStatistics(
        norm_obs=bool(vecnorm.norm_obs),
        norm_reward=bool(vecnorm.norm_reward),
        clip_obs=float(vecnorm.clip_obs),
        clip_reward=float(vecnorm.clip_reward),
        gamma=float(vecnorm.gamma),
        epsilon=float(vecnorm.epsilon),
        obs_rms=running(obs_rms) if obs_rms is not None else None,
        ret_rms=running(vecnorm.ret_rms),
    )


def vecnormalize_on(stats: NormalisationStatistics, venv, training: bool = True):
    """A ``VecNormalize`` around ``venv`` with ``stats`` (what ``VecNormalize.load`` gives from the
    pickle of the same statistics); raises [`StatisticsFileError`][training.normalisation.StatisticsFileError] when ``venv``'s observations
    have another shape."""
    from stable_baselines3.common.vec_env import VecNormalize

    shape = tuple(venv.observation_space.shape)
    if stats.observation_shape is not None and stats.observation_shape != shape:
        raise StatisticsFileError(
            f"the statistics are of observations of shape {stats.observation_shape}, the env's have {shape}"
        )
    vecnorm = VecNormalize(
        venv,
        training=training,
        norm_obs=stats.norm_obs,
        norm_reward=stats.norm_reward,
        clip_obs=stats.clip_obs,
        clip_reward=stats.clip_reward,
        gamma=stats.gamma,
        epsilon=stats.epsilon,
    )
    if stats.obs_rms is not None:
        vecnorm.obs_rms = stats.obs_rms.to_rms()
    vecnorm.ret_rms = stats.ret_rms.to_rms()
    return vecnorm


def frozen_vecnormalize(stats: NormalisationStatistics):
    """A ``VecNormalize`` without an env, for ``normalize_obs`` alone (``training=False``,
    ``norm_reward=False``): built as unpickling builds one (``__new__`` + ``__setstate__``), so its
    ``normalize_obs`` is SB3's own code on the same numbers."""
    from stable_baselines3.common.vec_env import VecNormalize

    vecnorm = VecNormalize.__new__(VecNormalize)
    state: dict[str, Any] = {
        "norm_obs": stats.norm_obs,
        "norm_obs_keys": None,
        "norm_reward": False,
        "training": False,
        "clip_obs": stats.clip_obs,
        "clip_reward": stats.clip_reward,
        "gamma": stats.gamma,
        "epsilon": stats.epsilon,
        "ret_rms": stats.ret_rms.to_rms(),
    }
    if stats.obs_rms is not None:
        state["obs_rms"] = stats.obs_rms.to_rms()
    vecnorm.__setstate__(state)
    return vecnorm


# -- the file ---------------------------------------------------------------------------------------


def statistics_record(stats: NormalisationStatistics) -> dict[str, Any]:
    """The JSON record of ``stats`` (see the module docstring)."""

    def running(rms: RunningStats) -> dict[str, Any]:
        return {"mean": rms.mean.tolist(), "var": rms.var.tolist(), "count": float(rms.count)}

    return {
        "format": FORMAT,
        "version": VERSION,
        "norm_obs": stats.norm_obs,
        "norm_reward": stats.norm_reward,
        "clip_obs": stats.clip_obs,
        "clip_reward": stats.clip_reward,
        "gamma": stats.gamma,
        "epsilon": stats.epsilon,
        "obs_rms": running(stats.obs_rms) if stats.obs_rms is not None else None,
        "ret_rms": running(stats.ret_rms),
    }


def write_statistics(source, path: Path) -> Path:
    """Write the statistics of ``source`` (a ``VecNormalize`` or [`NormalisationStatistics`][training.normalisation.NormalisationStatistics])
    to ``path`` as JSON, through a temporary file and a rename (a reader never sees part of one)."""
    stats = source if isinstance(source, NormalisationStatistics) else statistics_of(source)
    text = jsonio.dumps(statistics_record(stats), indent=1) + "\n"
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def read_statistics(path: Path) -> NormalisationStatistics:
    """The statistics in the JSON file ``path``, every field checked (no code runs).

    Raises [`StatisticsFileError`][training.normalisation.StatisticsFileError] naming the file and the field: not JSON, another format,
    a missing or ill-typed field, arrays of different shapes, non-finite numbers, a variance < 0.
    """
    path = Path(path)
    try:
        record = json.loads(path.read_text())
    except OSError as err:
        raise StatisticsFileError(f"{path}: cannot read the normalisation statistics ({err.strerror or err})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise StatisticsFileError(f"{path}: not a normalisation statistics file (not JSON: {err})") from None
    try:
        return _parse_record(record)
    except StatisticsFileError as err:
        raise StatisticsFileError(f"{path}: {err}") from None


def _parse_record(record: Any) -> NormalisationStatistics:
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        got = record.get("format") if isinstance(record, dict) else type(record).__name__
        raise StatisticsFileError(f"not a normalisation statistics file: format must be {FORMAT!r}, got {got!r}")
    if record.get("version") != VERSION:
        raise StatisticsFileError(f"version must be {VERSION}, got {record.get('version')!r}")
    flags = {key: _bool(record, key) for key in ("norm_obs", "norm_reward")}
    obs_rms = None if record.get("obs_rms") is None else _running(record["obs_rms"], "obs_rms", vector=True)
    if flags["norm_obs"] and obs_rms is None:
        raise StatisticsFileError("obs_rms must be given when norm_obs is true, got null")
    return NormalisationStatistics(
        **flags,
        clip_obs=_number(record, "clip_obs", low=0.0, strict=True),
        clip_reward=_number(record, "clip_reward", low=0.0, strict=True),
        gamma=_number(record, "gamma", low=0.0, high=1.0),
        epsilon=_number(record, "epsilon", low=0.0, strict=True),
        obs_rms=obs_rms,
        ret_rms=_running(record.get("ret_rms"), "ret_rms", vector=False),
    )


def _bool(record: dict, key: str) -> bool:
    value = record.get(key)
    if not isinstance(value, bool):
        raise StatisticsFileError(f"{key} must be true or false, got {value!r}")
    return value


def _number(
    record: dict, key: str, low: float = -math.inf, high: float = math.inf, strict: bool = False, name: str = ""
) -> float:
    """``record[key]``, a finite number in the range (``strict``: ``> low``); ``name``: how the message calls it."""
    value = record.get(key)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < low or value > high or (strict and value == low):
        bound = f"> {low:g}" if strict else f"in [{low:g}, {high:g}]" if math.isfinite(high) else f">= {low:g}"
        raise StatisticsFileError(f"{name or key} must be a finite number {bound}, got {value!r}")
    return float(value)


def _running(entry: Any, name: str, vector: bool) -> RunningStats:
    """``{"mean", "var", "count"}`` -> [`RunningStats`][training.normalisation.RunningStats] (``vector``: (n,) arrays, else scalars)."""
    if not isinstance(entry, dict):
        raise StatisticsFileError(f"{name} must be a mapping with mean, var and count, got {entry!r}")
    arrays = {}
    for key in ("mean", "var"):
        value = entry.get(key)
        numbers = value if vector else [value]
        if isinstance(numbers, list) and None in numbers:  # strict JSON writes a non-finite float as null
            raise StatisticsFileError(f"{name}.{key} must be finite (null: a NaN or inf was written), got {_short(value)}")
        if (
            not isinstance(numbers, list)
            or not numbers
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in numbers)
        ):
            what = "a non-empty list of numbers" if vector else "a number"
            raise StatisticsFileError(f"{name}.{key} must be {what}, got {_short(value)}")
        array = np.array(numbers, dtype=np.float64)
        if not np.all(np.isfinite(array)):
            raise StatisticsFileError(f"{name}.{key} must be finite, got {_short(value)}")
        arrays[key] = array if vector else array.reshape(())
    if arrays["mean"].shape != arrays["var"].shape:
        raise StatisticsFileError(
            f"{name}.mean and {name}.var must have the same length, got {arrays['mean'].size} and {arrays['var'].size}"
        )
    if np.any(arrays["var"] < 0):
        raise StatisticsFileError(f"{name}.var must be >= 0, got {_short(entry['var'])}")
    count = _number(entry, "count", low=0.0, strict=True, name=f"{name}.count")
    return RunningStats(arrays["mean"], arrays["var"], count)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# -- converting pickled statistics (trusted files only) ---------------------------------------------


def pickled_statistics_files(path: Path) -> list[Path]:
    """The ``*vecnormalize*.pkl`` files of a run folder (recursively), or ``[path]`` for one such file."""
    path = Path(path)
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*vecnormalize*.pkl") if p.is_file())


def convert_pickle(pickle_path: Path, remove_pickle: bool = False) -> Path:
    """Unpickle ``pickle_path`` (this runs code: a trusted file only), write its statistics as JSON
    beside it (``.json`` instead of ``.pkl``), check that the file reads back to the same numbers
    bit for bit, and with ``remove_pickle`` delete the pickle. Returns the JSON file."""
    import pickle

    with open(pickle_path, "rb") as handle:
        vecnorm = pickle.load(handle)  # noqa: S301  (the caller trusts this file: see the docstring)
    stats = statistics_of(vecnorm)
    target = write_statistics(stats, Path(pickle_path).with_suffix(".json"))
    back = read_statistics(target)
    if not _same(stats, back):
        target.unlink()
        raise StatisticsFileError(f"{target}: did not read back to the statistics of {pickle_path}")
    if remove_pickle:
        Path(pickle_path).unlink()
    return target


def _same(a: NormalisationStatistics, b: NormalisationStatistics) -> bool:
    """Equal field by field, arrays bit for bit."""

    def same_rms(x: RunningStats | None, y: RunningStats | None) -> bool:
        if x is None or y is None:
            return x is y
        return (
            x.mean.tobytes() == y.mean.tobytes() and x.var.tobytes() == y.var.tobytes() and x.count == y.count
        )

    scalars = ("norm_obs", "norm_reward", "clip_obs", "clip_reward", "gamma", "epsilon")
    return (
        all(getattr(a, key) == getattr(b, key) for key in scalars)
        and same_rms(a.obs_rms, b.obs_rms)
        and same_rms(a.ret_rms, b.ret_rms)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.normalisation",
        description="Convert pickled VecNormalize statistics (vecnormalize.pkl) to vecnormalize.json. "
        "Unpickling runs code: convert only files you trust.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    convert = sub.add_parser("convert", help="write the .json beside each *vecnormalize*.pkl under PATH")
    convert.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="a run folder or a .pkl file")
    convert.add_argument("--remove-pickle", action="store_true", help="delete each .pkl once converted")
    args = parser.parse_args(argv)
    for path in args.paths:
        if not path.exists():
            parser.error(f"PATH must be a run folder or a .pkl file, got {str(path)!r} (no such file or folder)")
        files = pickled_statistics_files(path)
        if not files:
            print(f"{path}: no *vecnormalize*.pkl to convert", file=sys.stderr)
        for pickle_path in files:
            try:
                target = convert_pickle(pickle_path, args.remove_pickle)
            except Exception as err:  # a damaged pickle raises anything its contents make it raise
                print(f"error: {pickle_path}: cannot convert ({type(err).__name__}: {err})", file=sys.stderr)
                return 2
            print(f"{pickle_path} -> {target}" + (" (pickle removed)" if args.remove_pickle else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
