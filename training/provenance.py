"""Where a result came from: the code's git commit, the Python and package versions, the machine.

Every result JSON the project writes (evaluate, train's ``train_info.json``, shipped comparisons,
ablation, tune, probes, benchmarks) stores [`provenance`][training.provenance.provenance] under the key ``"provenance"``.
Versions are read from the installed distributions' metadata, so nothing heavy (torch,
stable-baselines3) is imported to learn its version.
"""

from __future__ import annotations

import copy
import functools
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

#: The distributions whose versions a result records (the names pip knows them by).
PACKAGES = ("numpy", "mujoco", "pin", "proxsuite", "gymnasium", "stable-baselines3", "torch", "daqp")
#: The repository folder: the ``training`` package's parent.
REPO_DIR = Path(__file__).resolve().parent.parent
GIT_TIMEOUT_S = 5.0


def _git(repo_dir: Path, *args: str) -> str | None:
    """``git -C repo_dir args`` stdout, or None if git is missing, fails or takes too long."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo_dir), *args],
            capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def git_state(repo_dir: Path | str = REPO_DIR) -> tuple[str | None, bool | None]:
    """``(commit, dirty)`` of the git checkout at ``repo_dir``; ``(None, None)`` when it is not a
    checkout (or git is missing or hangs). Never raises. ``dirty``: ``git status --porcelain``
    lists anything (modified, staged or untracked, not ignored); None if only that call failed.
    """
    repo_dir = Path(repo_dir)
    top = _git(repo_dir, "rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != repo_dir.resolve():
        return None, None  # not a checkout, or a folder inside some other repository
    head = _git(repo_dir, "rev-parse", "HEAD")
    if head is None:
        return None, None  # a repository without commits
    status = _git(repo_dir, "status", "--porcelain")
    return head.strip(), (None if status is None else bool(status.strip()))


def package_versions(names=PACKAGES) -> dict[str, str | None]:
    """``{name: installed version}`` from the distributions' metadata; None where not installed."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


@functools.lru_cache(maxsize=1)
def _provenance() -> dict[str, Any]:
    commit, dirty = git_state(REPO_DIR)
    return {
        "git_commit": commit,
        "git_dirty": dirty,
        "python": platform.python_version(),
        "packages": package_versions(),
        "machine": platform.platform(),
        "cpu_count": os.cpu_count(),
    }


def provenance() -> dict[str, Any]:
    """What produced a result, as a JSON-ready dict (computed once per process, then cached; a
    fresh copy each call, so a caller may change it):

    - ``git_commit``: full SHA of ``HEAD`` of the repository holding this package, or None when it
      is not a git checkout (an installed wheel, an exported tree) or git is unavailable.
    - ``git_dirty``: whether that checkout had uncommitted changes or untracked files (``git status
      --porcelain`` not empty) at the first call in this process, so a long run records the tree
      it started from; None when ``git_commit`` is None.
    - ``python``: the interpreter's version, e.g. ``"3.11.7"``.
    - ``packages``: ``{distribution name: version}`` for [`PACKAGES`][training.provenance.PACKAGES] (numpy, mujoco, pin,
      proxsuite, gymnasium, stable-baselines3, torch, daqp), None for one not installed.
    - ``machine``: `platform.platform` (OS, kernel, architecture).
    - ``cpu_count``: `os.cpu_count`.
    """
    return copy.deepcopy(_provenance())
