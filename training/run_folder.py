"""The run folder: what ``python -m training.train`` writes and what evaluation, ``--init-from``
and ``training.shipped`` read back (one format, one module).

A run folder holds ``model.zip`` (the final SB3 model), ``vecnormalize.pkl`` (its observation
statistics), ``config.yaml`` (env id, algorithm, seed, the resolved config: see
:func:`write_run_config`), ``command.txt``, ``train_info.json``, ``best/`` (the periodic
evaluation's best model with its statistics) and ``checkpoints/``.
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
VECNORM_FILE = "vecnormalize.pkl"
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
    """The ``config.yaml`` record of a run folder (``{}`` when absent)."""
    path = Path(run_dir) / CONFIG_FILE
    return yaml.safe_load(path.read_text()) if path.is_file() else {}


@dataclass
class RunFiles:
    """A saved model and what came with it from its run folder."""

    model: Path
    vecnormalize: Path | None = None
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """The ``gym.make`` keywords the model was trained with (``{}`` without a run config)."""
        return self.config.get("config", {}).get("env_kwargs", {})


def find_run_files(spec: str | Path) -> RunFiles:
    """A run folder or model zip -> the model, its VecNormalize statistics and its run config.

    A folder: its ``model.zip`` (a run folder) or ``best_model.zip`` (a run's ``best/``).
    Statistics: ``vecnormalize.pkl`` beside the zip, or SB3's checkpoint name
    ``<prefix>_vecnormalize_<N>_steps.pkl`` for ``<prefix>_<N>_steps.zip``. Config: ``config.yaml``
    in the zip's folder or its parent (``best/``, ``checkpoints/`` are inside the run folder).
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
    candidates = [path.parent / VECNORM_FILE]
    match = re.fullmatch(r"(.*)_(\d+)_steps", path.stem)
    if match:
        candidates.insert(0, path.parent / f"{match[1]}_vecnormalize_{match[2]}_steps.pkl")
    vecnormalize = next((c for c in candidates if c.is_file()), None)
    config: dict[str, Any] = {}
    for folder in (path.parent, path.parent.parent):
        if (folder / CONFIG_FILE).is_file():
            config = read_run_config(folder)
            break
    return RunFiles(path, vecnormalize, config)
