"""The run folder: what ``python -m training.train`` writes and what evaluation, ``--init-from``
and ``training.shipped`` read back (one format, one module).

A run folder holds ``model.zip`` (the final SB3 model), its normalisation statistics twice:
``vecnormalize.json`` (read without running code: [`training.normalisation`][training.normalisation]) and
``vecnormalize.pkl`` (SB3's pickle, for SB3's own tools), ``config.yaml`` (env id, algorithm, seed,
the resolved config: see `write_run_config`), ``command.txt``, ``train_info.json``, ``best/``
(the periodic evaluation's best model with its statistics) and ``checkpoints/``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

#: Files of a run folder.
MODEL_FILE = "model.zip"
BEST_DIR = "best"  # the periodic evaluation's best model, with its statistics
BEST_MODEL_FILE = "best_model.zip"  # in BEST_DIR, written by SB3's EvalCallback
VECNORM_FILE = "vecnormalize.pkl"  # SB3's pickle of the VecNormalize: loading it runs code
STATS_FILE = "vecnormalize.json"  # the same statistics as JSON (training.normalisation)
CONFIG_FILE = "config.yaml"
COMMAND_FILE = "command.txt"
INFO_FILE = "train_info.json"


class RunFolderError(ValueError):
    """A path is not a usable run folder or model file; the message says why."""


def finished(run_dir: Path) -> bool:
    """True when ``run_dir`` holds a run that trained to its end (``train_info.json``, not interrupted)."""
    path = Path(run_dir) / INFO_FILE
    return path.is_file() and not json.loads(path.read_text())["interrupted"]


def write_run_config(
    run_dir: Path, env_id: str, algo: str, seed: int, config_file: str | None, config: dict
) -> None:
    import stable_baselines3

    record = {
        "env": env_id,
        "algo": algo,
        "seed": seed,
        "config_file": config_file,
        "stable_baselines3": stable_baselines3.__version__,
        "config": config,
    }
    (run_dir / CONFIG_FILE).write_text(yaml.safe_dump(record, sort_keys=False))


def read_run_config(run_dir: Path) -> dict[str, Any]:
    """The ``config.yaml`` record of a run folder (``{}`` when absent).

    Raises [`RunFolderError`][training.run_folder.RunFolderError] naming the file when it is not YAML, not a mapping, or its
    ``config`` / ``config.env_kwargs`` / ``config.policy_kwargs`` are not mappings.
    """
    path = Path(run_dir) / CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        record = yaml.safe_load(path.read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        why = " ".join(str(err).split())  # YAML's message spans lines
        raise RunFolderError(f"{path}: cannot read the run config ({type(err).__name__}: {why})") from None
    if record is None:
        return {}
    if not isinstance(record, dict):
        raise RunFolderError(f"{path}: the run config must be a mapping, got {type(record).__name__}")
    _check_mapping(path, "config", record)
    for key in ("env_kwargs", "policy_kwargs"):
        _check_mapping(path, f"config.{key}", record.get("config") or {})
    return record


def _check_mapping(path: Path, name: str, holder: dict[str, Any]) -> None:
    value = holder.get(name.rpartition(".")[2])
    if value is not None and not isinstance(value, dict):
        raise RunFolderError(f"{path}: {name} must be a mapping, got {value!r}")


@dataclass
class RunFiles:
    """A saved model and what came with it from its run folder: ``vecnormalize`` the pickled
    statistics (SB3's; loading them runs code), ``statistics`` the same as JSON (safe), ``config``
    the run's ``config.yaml`` record, read from ``config_file``."""

    model: Path
    vecnormalize: Path | None = None
    config: dict[str, Any] = field(default_factory=dict)
    statistics: Path | None = None
    config_file: Path | None = None

    @property
    def has_statistics(self) -> bool:
        """True when the model comes with normalisation statistics (JSON or pickle)."""
        return self.statistics is not None or self.vecnormalize is not None

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """The ``gym.make`` keywords the model was trained with (``{}`` without a run config)."""
        return (self.config.get("config") or {}).get("env_kwargs") or {}


def find_run_files(spec: str | Path) -> RunFiles:
    """A run folder or model zip -> the model, its VecNormalize statistics and its run config.

    A folder: its ``model.zip`` (a run folder) or ``best_model.zip`` (a run's ``best/``).
    Statistics: ``vecnormalize.json`` / ``.pkl`` beside the zip, or SB3's checkpoint name
    ``<prefix>_vecnormalize_<N>_steps.json`` / ``.pkl`` for ``<prefix>_<N>_steps.zip``. Config:
    ``config.yaml`` in the zip's folder or its parent (``best/``, ``checkpoints/`` are inside the
    run folder); a malformed one raises [`RunFolderError`][training.run_folder.RunFolderError].
    """
    path = Path(spec)
    if path.is_dir():
        zips = [path / name for name in (MODEL_FILE, BEST_MODEL_FILE) if (path / name).is_file()]
        if not zips:
            raise RunFolderError(
                f"{path} is a folder without {MODEL_FILE} or {BEST_MODEL_FILE}: not a training run or its best/"
            )
        path = zips[0]
    elif not path.is_file():
        raise RunFolderError(f"{str(spec)!r} is neither an existing model file nor a run folder")
    stems = [Path(VECNORM_FILE).stem]
    match = re.fullmatch(r"(.*)_(\d+)_steps", path.stem)
    if match:
        stems.insert(0, f"{match[1]}_vecnormalize_{match[2]}_steps")

    # The first name that has statistics in either form; both forms of that name.
    stem = next((s for s in stems if any((path.parent / (s + x)).is_file() for x in (".json", ".pkl"))), stems[0])

    def beside(suffix: str) -> Path | None:
        return path.parent / (stem + suffix) if (path.parent / (stem + suffix)).is_file() else None

    config_file = next(
        (folder / CONFIG_FILE for folder in (path.parent, path.parent.parent) if (folder / CONFIG_FILE).is_file()), None
    )
    config = read_run_config(config_file.parent) if config_file is not None else {}
    return RunFiles(path, beside(".pkl"), config, statistics=beside(".json"), config_file=config_file)
