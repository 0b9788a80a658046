"""Falls in the long ablation's *training* episodes, from its runs' monitor logs.

The snapshots are judged on 10 deterministic evaluation episodes; the training episodes are many
more (hundreds per 100k steps) but run the stochastic policy, its exploration noise included. This
script counts them: per env, mode and step window, the fraction of training episodes that ended
before the env's time limit (a fall: the envs end an episode early only when the robot falls) and their
mean return, pooled over the seeds.

    python results/ablation/scale/training_falls.py [ENV_FOLDER ...]

(default: every ``*_ppo`` folder under this one: v1 and v2) writes ``training_falls.md`` into each. The
monitor logs are git-ignored, so run it where the runs ran; the table it writes is committed.
An episode's step total is placed at ``offset + n_envs x (that env's steps so far)``, where
``offset`` is where a resumed part began (``monitor/from_<N>/``): exact to within one episode
(the envs of a run are not in step with each other).
"""

from __future__ import annotations

import csv
import json
import sys
from itertools import pairwise
from pathlib import Path

import gymnasium as gym
import numpy as np
import yaml

import humanoid_env  # noqa: F401  (registers the environments)

HERE = Path(__file__).resolve().parent
#: Step windows of the table (the last one ends at the runs' budget).
WINDOWS = (0, 50_000, 100_000, 200_000, 400_000, 600_000, 800_000, 1_000_000)


def episodes(run: Path) -> list[tuple[float, float, bool]]:
    """``(step total, return, fell)`` of every training episode of one run folder."""
    config = yaml.safe_load((run / "config.yaml").read_text())
    n_envs, limit = int(config["config"]["n_envs"]), gym.spec(config["env"]).max_episode_steps
    out = []
    for log in sorted(run.glob("monitor/**/*.monitor.csv")):
        offset = int(log.parent.name.removeprefix("from_")) if log.parent.name.startswith("from_") else 0
        with log.open() as handle:
            json.loads(handle.readline().lstrip("#"))
            rows = list(csv.DictReader(handle))
        lengths = np.array([int(row["l"]) for row in rows])
        steps = offset + n_envs * np.cumsum(lengths)
        out += [(float(s), float(row["r"]), int(row["l"])) for s, row in zip(steps, rows, strict=True)]
    return [(s, r, length < limit) for s, r, length in out]


def table(env_folder: Path) -> str:
    lines = [
        f"Training episodes of `{env_folder.name}` (stochastic policy, exploration noise included), pooled over "
        "seeds: fall fraction / mean return / episodes, per window of env steps. Made by "
        "`python results/ablation/scale/training_falls.py`.",
        "",
        "| mode | seeds | " + " | ".join(f"{a // 1000}k-{b // 1000}k" for a, b in pairwise(WINDOWS)) + " |",
        "|---|---|" + "---|" * (len(WINDOWS) - 1),
    ]
    for mode in sorted(p.name for p in env_folder.iterdir() if p.is_dir()):
        runs = sorted(p for p in (env_folder / mode).iterdir() if (p / "config.yaml").exists())
        pooled = [e for run in runs for e in episodes(run)]
        cells = []
        for lo, hi in pairwise(WINDOWS):
            window = [(r, fell) for s, r, fell in pooled if lo < s <= hi]
            if not window:
                cells.append("-")
                continue
            falls = np.mean([fell for _, fell in window])
            cells.append(f"{falls:.2f} / {np.mean([r for r, _ in window]):.0f} / {len(window)}")
        lines.append(f"| {mode} | {len(runs)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    folders = [Path(a) for a in argv] or sorted(p for p in HERE.rglob("*_ppo") if p.is_dir())
    for folder in folders:
        text = table(folder)
        (folder / "training_falls.md").write_text(text)
        print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
