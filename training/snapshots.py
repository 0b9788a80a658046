"""Snapshots of a training run at chosen step totals: saved, evaluated, and the point a stopped run resumes from.

A run with ``snapshot_steps: [N1, N2, ...]`` in its config saves, at the first env step where the
total reaches each ``N``, ``snapshots/model_<N>_steps.zip`` and its statistics
``snapshots/model_vecnormalize_<N>_steps.json`` and ``.pkl`` (SB3's checkpoint names, so
``training.evaluate --policy`` and ``--init-from`` read them), and adds one line to ``snapshots/progress.jsonl``:
``{"steps": n, "wall_s": w}`` (``n`` the exact total, ``>= N`` by less than ``n_envs``; ``w`` the
training wall time up to it, over every part of a resumed run [s]). A snapshot is the policy
that acted at that step: a PPO update at the end of the rollout comes after it. With
``snapshot_eval_episodes: E > 0`` the snapshot is then evaluated there and then, as
``python -m training.evaluate --policy <zip> --episodes E --seed <snapshot_eval_seed>`` would
(deterministic actions, the run's env keywords), into ``snapshots/eval_<N>_steps.json``; the
evaluation's wall time is not training time.

A run stopped part-way (killed, or a session that ended) resumes from its latest snapshot with
``python -m training.train --resume --run-dir DIR`` (see [`latest_snapshot`][training.snapshots.latest_snapshot]): the model, its
optimiser state and normalisation statistics go on from there, the steps after it are trained
again. The wall time is the clock's: a process paused (``SIGSTOP``) counts its pause; to free the
machine for a while, stop the run (Ctrl-C) and resume it later.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training import jsonio

SNAPSHOT_DIR = "snapshots"
PROGRESS_FILE = "progress.jsonl"


def model_path(run_dir: Path, steps: int) -> Path:
    """``run_dir/snapshots/model_<steps>_steps.zip``."""
    return Path(run_dir) / SNAPSHOT_DIR / f"model_{steps}_steps.zip"


def vecnormalize_path(run_dir: Path, steps: int) -> Path:
    """``run_dir/snapshots/model_vecnormalize_<steps>_steps.pkl`` (beside [`model_path`][training.snapshots.model_path])."""
    return Path(run_dir) / SNAPSHOT_DIR / f"model_vecnormalize_{steps}_steps.pkl"


def statistics_path(run_dir: Path, steps: int) -> Path:
    """``run_dir/snapshots/model_vecnormalize_<steps>_steps.json``: the statistics as JSON
    ([`training.normalisation`][training.normalisation])."""
    return vecnormalize_path(run_dir, steps).with_suffix(".json")


def eval_path(run_dir: Path, steps: int) -> Path:
    """``run_dir/snapshots/eval_<steps>_steps.json``: the snapshot's evaluation record."""
    return Path(run_dir) / SNAPSHOT_DIR / f"eval_{steps}_steps.json"


@dataclass(frozen=True)
class Snapshot:
    """One saved snapshot: ``target`` the scheduled total, ``steps`` the exact one, ``wall_s`` [s]."""

    target: int
    steps: int
    wall_s: float


def read_progress(run_dir: Path, saved_only: bool = True) -> list[Snapshot]:
    """The snapshots recorded in ``run_dir``, in order of ``steps``; ``saved_only``: only those whose
    model file is still there (a run folder whose models were not kept still has its records).

    A line repeated by a resumed part (the same target saved again) keeps its last record.
    """
    path = Path(run_dir) / SNAPSHOT_DIR / PROGRESS_FILE
    if not path.is_file():
        return []
    by_target: dict[int, Snapshot] = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:  # a line cut by a kill while it was written
            continue
        snap = Snapshot(int(record["target"]), int(record["steps"]), float(record["wall_s"]))
        by_target[snap.target] = snap
    return sorted(
        (s for s in by_target.values() if not saved_only or model_path(run_dir, s.target).is_file()),
        key=lambda s: s.steps,
    )


def latest_snapshot(run_dir: Path, normalize: bool) -> Snapshot | None:
    """The latest snapshot a run can resume from: its model and (when ``normalize``) statistics saved."""

    def has_statistics(target: int) -> bool:
        return statistics_path(run_dir, target).is_file() or vecnormalize_path(run_dir, target).is_file()

    usable = [s for s in read_progress(run_dir) if not normalize or has_statistics(s.target)]
    return usable[-1] if usable else None


def read_evaluations(run_dir: Path) -> list[tuple[Snapshot, dict[str, Any]]]:
    """(snapshot, its evaluation record) for every evaluated snapshot of ``run_dir``, in order of steps
    (metrics that were NaN are NaN again: [`training.jsonio.metrics_from_json`][training.jsonio.metrics_from_json])."""
    out = []
    for snap in read_progress(run_dir, saved_only=False):
        path = eval_path(run_dir, snap.target)
        if path.is_file():
            out.append((snap, jsonio.metrics_from_json(json.loads(path.read_text()))))
    return out


def snapshot_callback(
    env_id: str,
    config: dict[str, Any],
    run_dir: Path,
    wall_offset_s: float = 0.0,
):
    """An SB3 callback saving (and evaluating) ``config["snapshot_steps"]``; ``wall_offset_s``: the
    training wall time before this part (a resumed run's, from its snapshot) [s]."""
    from stable_baselines3.common.callbacks import BaseCallback

    from training.normalisation import write_statistics

    class SaveSnapshots(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.pending: list[int] = []
            self.started = 0.0
            self.eval_s = 0.0  # evaluation time of this part, not counted as training

        def _on_training_start(self) -> None:
            self.pending = [n for n in config["snapshot_steps"] if n > self.num_timesteps]
            self.started = time.perf_counter()

        def _on_step(self) -> bool:
            while self.pending and self.num_timesteps >= self.pending[0]:
                self._save(self.pending.pop(0))
            return True

        def _save(self, target: int) -> None:
            folder = Path(run_dir) / SNAPSHOT_DIR
            folder.mkdir(parents=True, exist_ok=True)
            wall = wall_offset_s + time.perf_counter() - self.started - self.eval_s
            self.model.save(str(model_path(run_dir, target)))
            vecnorm = self.model.get_vec_normalize_env()
            if vecnorm is not None:
                vecnorm.save(str(vecnormalize_path(run_dir, target)))
                write_statistics(vecnorm, statistics_path(run_dir, target))
            if config["snapshot_eval_episodes"] > 0:
                self._evaluate(target)
            record = {"target": target, "steps": int(self.num_timesteps), "wall_s": wall}
            with open(folder / PROGRESS_FILE, "a") as handle:  # last: a snapshot on record is complete
                handle.write(jsonio.dumps(record) + "\n")

        def _evaluate(self, target: int) -> None:
            from training.evaluate import evaluate

            start = time.perf_counter()
            result = evaluate(
                env_id,
                str(model_path(run_dir, target)),
                config["snapshot_eval_episodes"],
                config["snapshot_eval_seed"],
            )
            result["steps"] = int(self.num_timesteps)
            path = eval_path(run_dir, target)
            partial = path.with_suffix(".json.part")
            partial.write_text(jsonio.dumps(result, indent=1))
            partial.replace(path)
            self.eval_s += time.perf_counter() - start

    return SaveSnapshots()
