"""training.evaluate as a user runs it: a subprocess writing JSON (and a video)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from training.evaluate import EvaluationError, evaluate

ROOT = Path(__file__).resolve().parents[1]
METRICS = {"return", "length", "fell", "com_rmse_m", "com_error_median_5s_m", "pushes_survived", "pushes_total", "wbc_fallbacks", "wbc_relaxed", "wbc_solve_us_median"}


def run_evaluate(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    return subprocess.run(
        [sys.executable, "-m", "training.evaluate", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_evaluate_subprocess_writes_json_with_metrics(tmp_path):
    out = tmp_path / "eval.json"
    video = tmp_path / "eval.mp4"
    proc = run_evaluate(
        "--env", "HumanoidWBC-v0", "--policy", "nominal", "--episodes", "1", "--seed", "3",
        "--json", str(out), "--max-steps", "25", "--video", str(video),
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["env"] == "HumanoidWBC-v0" and data["policy"] == "nominal"
    assert len(data["episodes"]) == 1
    episode = data["episodes"][0]
    assert set(episode) == METRICS
    assert episode["length"] == 25 and episode["fell"] is False
    assert 0.0 <= episode["com_rmse_m"] < 0.005
    assert episode["wbc_fallbacks"] == 0 and episode["wbc_solve_us_median"] > 0
    assert data["summary"]["com_rmse_m"] == pytest.approx(episode["com_rmse_m"])
    written = Path(data["video"])
    assert written.suffix in (".mp4", ".gif") and written.stat().st_size > 1000


def test_scripted_policy_rejects_an_unknown_scenario(tmp_path):
    # HumanoidWBC-v0's scripted scenario is the contact switching of *Partial Force Control* (tests/test_scenarios.py).
    proc = run_evaluate(
        "--env", "HumanoidWBC-v0", "--policy", "scripted", "--scenario", "sudden",
        "--json", str(tmp_path / "x.json"), "--max-steps", "2",
    )  # fmt: skip
    assert proc.returncode == 2
    assert "unknown scenario 'sudden'" in proc.stderr
    assert not (tmp_path / "x.json").exists()


def test_unknown_policy_path_is_rejected():
    with pytest.raises(EvaluationError, match="must be 'nominal', 'scripted', a model file or a run folder: .* is neither"):
        evaluate("HumanoidWBC-v0", "no/such/model.zip", episodes=1, seed=0, max_steps=2)


def test_a_run_folder_or_its_best_folder_resolves_to_model_statistics_and_config(tmp_path):
    from training.run_folder import RunFolderError, find_run_files

    run = tmp_path / "run"
    (run / "best").mkdir(parents=True)
    for name in ("model.zip", "vecnormalize.pkl", "best/best_model.zip", "best/vecnormalize.pkl"):
        (run / name).write_bytes(b"")
    (run / "config.yaml").write_text("env: HumanoidWBC-v0\nalgo: ppo\n")
    for folder, model in ((run, "model.zip"), (run / "best", "best/best_model.zip")):
        files = find_run_files(folder)
        assert files.model == run / model and files.vecnormalize == (run / model).parent / "vecnormalize.pkl"
        assert files.config["algo"] == "ppo"  # best/ takes its run's config
    with pytest.raises(RunFolderError, match="without model.zip or best_model.zip"):
        find_run_files(tmp_path)


def test_summary_averages_two_episodes():
    result = evaluate(
        "HumanoidWBC-v0", "nominal", episodes=2, seed=0, max_steps=5, env_kwargs={"push_magnitude_n": (0.0, 0.0)}
    )
    lengths = [e["length"] for e in result["episodes"]]
    assert lengths == [5, 5] and result["summary"]["length"] == 5.0
    assert result["summary"]["fell"] == 0.0
