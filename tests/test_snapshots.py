"""Training snapshots (saved, evaluated, resumed from) and the samples-to-nominal-level report built on them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.test_train import ENV, SHORT_EPISODES, policy_weights, run_module
from training import sample_efficiency as se
from training.config import ConfigError, resolve_config
from training.snapshots import eval_path, latest_snapshot, model_path, read_evaluations, read_progress

#: 2 envs x 64 steps per rollout; snapshots mid-rollout (100) and at later totals.
SNAPSHOT_PPO = [
    "n_steps=64", "batch_size=64", "n_epochs=2", "eval_freq=0", "checkpoint_freq=0",
    "snapshot_steps=[100,256,384]", "snapshot_eval_episodes=2", "snapshot_eval_seed=500",
]  # fmt: skip


def train(run_dir, *extra, params=SNAPSHOT_PPO, timesteps="384"):
    return run_module(
        "training.train", "--env", ENV, "--algo", "ppo", "--config", "configs/ppo.yml", "--timesteps", timesteps,
        "--seed", "3", "--run-dir", str(run_dir), "--no-progress-bar", "--verbose", "0",
        "--env-kwargs", "action_mode=pd", *SHORT_EPISODES, "--params", *params, *extra,
    )  # fmt: skip


def test_snapshots_are_saved_at_their_totals_and_evaluated_as_training_evaluate_would(tmp_path):
    run_dir = tmp_path / "run"
    proc = train(run_dir)
    assert proc.returncode == 0, proc.stderr
    snaps = read_progress(run_dir)
    assert [s.target for s in snaps] == [100, 256, 384]
    # Saved at the first vector step reaching the total: 2 envs, so at most 1 step past it.
    assert all(s.target <= s.steps <= s.target + 1 for s in snaps)
    assert all(0 < a.wall_s < b.wall_s for a, b in zip(snaps, snaps[1:], strict=False))
    # A snapshot is the policy that acted at its step: 384 ends the third rollout and is saved before
    # that rollout's update, so it differs from the final model, as 100 (before any update) from both.
    final, first, last = (policy_weights(p) for p in (run_dir / "model.zip", model_path(run_dir, 100), model_path(run_dir, 384)))
    assert not np.array_equal(last, final) and not np.array_equal(first, last)
    # The in-training evaluation is the offline one: same episodes, same deterministic actions.
    recorded = json.loads(eval_path(run_dir, 256).read_text())
    offline = tmp_path / "offline.json"
    proc = run_module(
        "training.evaluate", "--env", ENV, "--policy", str(model_path(run_dir, 256)), "--episodes", "2",
        "--seed", "500", "--json", str(offline),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    again = json.loads(offline.read_text())
    for a, b in zip(recorded["episodes"], again["episodes"], strict=True):
        assert a["length"] == b["length"] and a["return"] == pytest.approx(b["return"], rel=1e-9)
    # Without its model files (a results folder that keeps the records only) the evaluations remain.
    for target in (100, 256, 384):
        model_path(run_dir, target).unlink()
    assert read_progress(run_dir) == [] and latest_snapshot(run_dir, normalize=True) is None
    assert [snap.target for snap, _ in read_evaluations(run_dir)] == [100, 256, 384]


def test_a_stopped_run_resumes_from_its_latest_snapshot(tmp_path):
    run_dir = tmp_path / "run"
    assert train(run_dir).returncode == 0
    # Make it a run stopped between the 256 and 384 snapshots: no final files, the last snapshot gone.
    for name in ("model.zip", "vecnormalize.pkl", "train_info.json"):
        (run_dir / name).unlink()
    model_path(run_dir, 384).unlink()
    assert latest_snapshot(run_dir, normalize=True).target == 256
    # How the envs are stepped is an execution setting: a resumed part may change it (threads here).
    proc = train(run_dir, "--resume", params=[*SNAPSHOT_PPO, "vec_env=threads"])
    assert proc.returncode == 0, proc.stderr
    info = json.loads((run_dir / "train_info.json").read_text())
    assert info["resumed_from"] == 256 and info["timesteps_total"] >= 384
    assert info["wall_s_total"] > info["wall_s"]  # the first part's time counts
    assert model_path(run_dir, 384).is_file() and list((run_dir / "monitor" / "from_256").glob("*.csv"))
    assert "resuming" in proc.stdout

    # Finished: nothing to do. Other settings: refused, naming the setting.
    proc = train(run_dir, "--resume")
    assert proc.returncode == 0 and "nothing to resume" in proc.stdout
    (run_dir / "train_info.json").unlink()
    proc = train(run_dir, "--resume", params=[*SNAPSHOT_PPO, "n_epochs=3"])
    assert proc.returncode == 2 and "n_epochs: 2 there, 3 here" in proc.stderr
    # A folder with no run: --resume starts one. --resume without --run-dir: a usage error.
    fresh = tmp_path / "fresh"
    proc = train(fresh, "--resume", timesteps="128", params=[*SNAPSHOT_PPO[:-3], "snapshot_steps=[64]"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads((fresh / "train_info.json").read_text())["resumed_from"] is None
    proc = run_module("training.train", "--env", ENV, "--algo", "ppo", "--resume")
    assert proc.returncode == 2 and "--resume: needs --run-dir" in proc.stderr


@pytest.mark.parametrize("steps", [[200, 100], [0, 10], [10, 10], "100", [1.5]])
def test_snapshot_steps_must_be_increasing_positive_integers(steps):
    with pytest.raises(ConfigError, match="snapshot_steps"):
        resolve_config("ppo", ENV, None, {"snapshot_steps": steps})


# -- the level and the report, on made-up evaluation records ---------------------------------

NOMINAL = {"fell": 0.2, "com_rmse_m": 0.010, "return": 100.0}


@pytest.mark.parametrize(
    ("fell", "rmse", "expected"),
    [
        (0.3, 0.015, True),  # both at their bounds: nominal + 0.1 falls, 1.5 x the metric
        (0.0, 0.001, True),  # better than nominal
        (0.4, 0.010, False),  # 0.2 more falls than nominal
        (0.2, 0.0151, False),  # metric 1.51 x
        (0.2, float("nan"), False),  # no metric: not at the level
    ],
)
def test_the_nominal_level_bounds_falls_and_metric(fell, rmse, expected):
    assert se.at_nominal_level({"fell": fell, "com_rmse_m": rmse}, NOMINAL, "com_rmse_m") is expected


def _episodes(n, fell, rmse):
    return [{"fell": i < round(fell * n), "com_rmse_m": rmse, "return": 1.0} for i in range(n)]


def _run(mode, seed, points):
    """A run record: points = [(target, fell, rmse)], 10 episodes each."""
    snaps = [
        {"target": t, "steps": t + 1, "wall_s": t / 100, "summary": {"fell": f, "com_rmse_m": r, "return": 1.0},
         "episodes": _episodes(10, f, r)}
        for t, f, r in points
    ]  # fmt: skip
    return {"mode": mode, "seed": seed, "run_dir": "-", "snapshots": snaps}


def test_samples_to_level_budgets_and_headline():
    nominal = {"summary": {"fell": 0.2, "com_rmse_m": 0.010, "return": 1.0}, "episodes": _episodes(10, 0.2, 0.010)}
    runs = [
        _run("wbc", 0, [(5000, 0.2, 0.012), (100_000, 0.1, 0.011)]),  # at the level from the first snapshot
        _run("wbc", 1, [(5000, 0.5, 0.012), (100_000, 0.2, 0.010)]),  # from 100k
        _run("pd", 0, [(5000, 1.0, 0.1), (100_000, 0.9, 0.05)]),  # never
        _run("pd", 1, [(5000, 1.0, 0.1)]),  # stopped early: no 100k budget for pd
    ]
    summary = se.mode_summary("HumanoidWBC-v0", runs, nominal)
    assert summary["wbc"]["samples_to_level"] == [5001, 100_001]
    assert summary["pd"]["samples_to_level"] == [None, None]
    assert list(summary["wbc"]["budgets"]) == ["100000"] and summary["pd"]["budgets"] == {}
    verdict = summary["wbc"]["budgets"]["100000"]["verdict"]
    assert verdict["passed"] and verdict["episodes"] == 20  # 2 seeds x 10 episodes, paired with nominal's
    text = se.headline(summary)
    assert "wbc 52.5k (seeds 5k, 100k)" in text and "pd not reached within 5k (0 of 2 seeds reached it)" in text
    # A mode that falls in every episode at a budget fails the paired claim.
    failing = se.mode_summary("HumanoidWBC-v0", [_run("pd", 0, [(100_000, 1.0, 0.010)])], nominal)
    assert not failing["pd"]["budgets"]["100000"]["verdict"]["passed"]
    # Episodes without the metric (ended before it was measured): no verdict, and the table says why.
    unmeasured = se.mode_summary("HumanoidWBC-v0", [_run("pd", 0, [(100_000, 1.0, float("nan"))])], nominal)
    assert unmeasured["pd"]["budgets"]["100000"]["verdict"] == {"passed": False, "unmeasured_episodes": 10}
    results = {"env": "HumanoidWBC-v0", "nominal": nominal, "summary": unmeasured, "eval_episodes": 10, "eval_seed": 0}
    assert "10 episodes ended before the metric was measured" in se.markdown(results)


def test_the_long_ablation_resumes_its_runs_and_evaluates_every_snapshot(tmp_path, capsys):
    from training import ablation

    argv = ["--timesteps", "40000", "--seeds", "0", "1", "--out", str(tmp_path), "--snapshots", "5000", "40000"]
    assert ablation.main([*argv, "--dry-run"]) == 0
    commands = capsys.readouterr().out.strip().splitlines()
    assert len(commands) == 6
    for command in commands:
        assert "--resume" in command and "--overwrite" not in command  # a stopped run goes on, not again
        assert "snapshot_steps=[5000,40000]" in command and "snapshot_eval_episodes=10" in command
        assert f"snapshot_eval_seed={ablation.EVAL_SEED}" in command and "eval_freq=0" in command
    for bad in (["5000", "5000"], ["40000", "5000"], ["50000"]):  # repeated, decreasing, past the budget
        with pytest.raises(SystemExit):
            ablation.parse_args([*argv[:-2], "--snapshots", *bad])
