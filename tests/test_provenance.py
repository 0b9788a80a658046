"""training.provenance (git commit, dirty tree, package versions) and the pinned lock constraints.txt."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from training import provenance as prov

ROOT = Path(__file__).resolve().parents[1]
NAMED = {"numpy", "mujoco", "pin", "proxsuite", "gymnasium", "stable-baselines3", "torch", "daqp"}
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
}  # fmt: skip


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=True, timeout=30
    ).stdout


def checkout_state() -> tuple[str, bool]:
    """HEAD and dirtiness of this checkout, read twice until both reads agree (others may commit)."""
    for _ in range(5):
        before = (git(ROOT, "rev-parse", "HEAD").strip(), bool(git(ROOT, "status", "--porcelain").strip()))
        state = prov.git_state(ROOT)
        after = (git(ROOT, "rev-parse", "HEAD").strip(), bool(git(ROOT, "status", "--porcelain").strip()))
        if before == after:
            return before, state
    pytest.fail("the checkout kept changing while it was read")


@pytest.fixture
def fresh_cache():
    prov._provenance.cache_clear()
    yield
    prov._provenance.cache_clear()


@pytest.fixture
def small_repo(tmp_path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "first")
    return repo


def test_provenance_has_every_field_and_named_package(fresh_cache):
    record = prov.provenance()
    assert set(record) == {"git_commit", "git_dirty", "python", "packages", "machine", "cpu_count"}
    assert set(record["packages"]) == NAMED
    assert record["python"] == platform.python_version()
    assert record["cpu_count"] == os.cpu_count()
    assert record["machine"] == platform.platform()
    import numpy

    assert record["packages"]["numpy"] == numpy.__version__
    json.dumps(record)  # JSON-ready


def test_this_checkout_commit_and_dirty_flag():
    (head, dirty), state = checkout_state()
    assert re.fullmatch(r"[0-9a-f]{40}", head)
    assert state == (head, dirty)


def test_provenance_reads_this_checkout(fresh_cache):
    for _ in range(5):
        head = git(ROOT, "rev-parse", "HEAD").strip()
        prov._provenance.cache_clear()
        record = prov.provenance()
        if git(ROOT, "rev-parse", "HEAD").strip() == head:  # else someone committed meanwhile: again
            break
    assert record["git_commit"] == head
    assert isinstance(record["git_dirty"], bool)


def test_git_state_of_a_repository_clean_then_dirty(small_repo):
    head = git(small_repo, "rev-parse", "HEAD").strip()
    assert prov.git_state(small_repo) == (head, False)
    (small_repo / "b.txt").write_text("untracked\n")
    assert prov.git_state(small_repo) == (head, True)
    (small_repo / "b.txt").unlink()
    (small_repo / "a.txt").write_text("changed\n")
    assert prov.git_state(small_repo) == (head, True)


def test_cached_provenance_keeps_the_tree_of_the_first_call(small_repo, fresh_cache, monkeypatch):
    monkeypatch.setattr(prov, "REPO_DIR", small_repo)
    first = prov.provenance()
    assert first["git_dirty"] is False
    (small_repo / "b.txt").write_text("untracked\n")
    first["packages"]["numpy"] = "changed by the caller"
    second = prov.provenance()
    assert second["git_dirty"] is False  # cached: the tree as the process first saw it
    assert second["packages"]["numpy"] != "changed by the caller"  # each call gets its own copy
    prov._provenance.cache_clear()
    assert prov.provenance()["git_dirty"] is True


def test_outside_a_checkout_git_fields_are_none(tmp_path):
    assert prov._git(tmp_path, "rev-parse", "HEAD") is None
    assert prov.git_state(tmp_path) == (None, None)
    assert prov.git_state(tmp_path / "missing") == (None, None)
    assert prov.git_state(ROOT / "training") == (None, None)  # a folder inside the checkout is not one


def test_git_missing_or_hanging_gives_none(small_repo, tmp_path, monkeypatch):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    monkeypatch.setenv("PATH", str(fake_bin))
    assert prov.git_state(small_repo) == (None, None)  # no git at all
    hanging = fake_bin / "git"
    hanging.write_text("#!/bin/sh\nexec /bin/sleep 10\n")
    hanging.chmod(0o755)
    monkeypatch.setattr(prov, "GIT_TIMEOUT_S", 0.2)
    start = time.perf_counter()
    assert prov.git_state(small_repo) == (None, None)
    assert time.perf_counter() - start < 5  # the timeout ended it, not the sleep


def test_missing_package_is_none_and_nothing_heavy_is_imported():
    assert prov.package_versions(("numpy", "no-such-distribution-xyz")) == {
        "numpy": prov.metadata.version("numpy"),
        "no-such-distribution-xyz": None,
    }
    code = (
        "import sys, training.provenance as p; r = p.provenance(); "
        "print(r['packages']['torch'] is not None, 'torch' in sys.modules, 'stable_baselines3' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False", "False"]


def test_evaluate_json_records_provenance(tmp_path):
    import mujoco

    out = tmp_path / "eval.json"
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    proc = subprocess.run(
        [sys.executable, "-m", "training.evaluate", "--env", "HumanoidWBC-v0", "--policy", "nominal",
         "--episodes", "1", "--seed", "0", "--max-steps", "5", "--json", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    record = json.loads(out.read_text())["provenance"]
    assert record["packages"]["mujoco"] == mujoco.__version__
    assert set(record["packages"]) == NAMED
    assert re.fullmatch(r"[0-9a-f]{40}", record["git_commit"])
    assert isinstance(record["git_dirty"], bool)


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(lines: list[str]) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^=\s;]+)", line)
        assert match, f"not an exact pin: {line!r}"
        name = _normalise(match[1])
        assert name not in pins, f"{name} pinned twice"
        pins[name] = match[2]
    return pins


def test_constraints_lock_is_exactly_the_installed_venv():
    locked = _pins((ROOT / "constraints.txt").read_text().splitlines())
    assert locked["torch"] == "2.13.0"  # the CPU build on disk; another request pulls CUDA
    freeze = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--all", "--exclude-editable"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout.splitlines()
    installed = _pins([line for line in freeze if not line.startswith("-e ")])
    installed.pop("humanoid-wbc", None)  # the project itself (a non-editable install)
    assert {"pip", "setuptools", *NAMED} <= set(installed)
    assert sorted(set(installed) - set(locked)) == [], "installed but not in constraints.txt"
    assert sorted(set(locked) - set(installed)) == [], "in constraints.txt but not installed"
    wrong = {
        name: (version, locked[name])
        for name, version in installed.items()
        if version != locked[name] and not (name == "torch" and version == locked[name] + "+cpu")
    }
    assert wrong == {}, "installed version != locked version"
