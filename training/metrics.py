"""Per-episode task metrics computed from the ``info`` stream of an environment.

The metrics classes live in [`humanoid_env.episode_metrics`][humanoid_env.episode_metrics] (re-exported here); which task uses
which is the task registry's ([`TaskEntry.metrics`][humanoid_env.registry.TaskEntry.metrics]).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from humanoid_env.episode_metrics import (
    BalanceMetrics,
    EpisodeMetrics,
    SeesawMetrics,
    WalkMetrics,
    WallMetrics,
)
from humanoid_env.registry import TASKS

__all__ = ["METRICS", "BalanceMetrics", "EpisodeMetrics", "SeesawMetrics", "WalkMetrics", "WallMetrics", "metrics_for", "summarise"]

#: env id -> metrics class of every registered task (built from [`TASKS`][humanoid_env.registry.TASKS] at import); other
#: ids get [`EpisodeMetrics`][humanoid_env.episode_metrics.EpisodeMetrics].
METRICS: dict[str, type[EpisodeMetrics]] = {env_id: entry.metrics for env_id, entry in TASKS.items()}


def metrics_for(env_id: str) -> EpisodeMetrics:
    """A fresh metrics accumulator for ``env_id`` (``"humanoid_env:"`` prefix allowed): its task's
    class, [`EpisodeMetrics`][humanoid_env.episode_metrics.EpisodeMetrics] for an id the registry does not hold."""
    entry = TASKS.get(env_id.split(":")[-1])
    return EpisodeMetrics() if entry is None else entry.metrics()


def summarise(episodes: list[dict[str, Any]]) -> dict[str, float]:
    """Mean of every numeric metric over the episodes (booleans as fractions)."""
    if not episodes:
        return {}
    return {key: float(np.mean([float(e[key]) for e in episodes])) for key in episodes[0]}
