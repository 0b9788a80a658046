"""Sweeps on Ray for real: a tiny ablation (2 runs) on an in-process Ray, then the same through a
2-node local cluster (``ray start --head`` + ``ray start --address``) joined with ``--address``.

Both keep Ray's files out of the repository (a short temporary folder per test), use a token of
their own (Ray's token authentication would otherwise write ``~/.ray/auth_token``), and check
that every process Ray started for them is gone afterwards. The cluster is stopped by ending the
two ``ray start --block`` processes it was started with (each stops the Ray processes it started),
not with ``ray stop``, which ends every Ray process of the user on the machine (another test's too).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ENV = "HumanoidWBC-v0"
SEEDS = (0, 1)
TIMESTEPS = 256
#: Short push-free episodes (the nominal controller's evaluation is short too) and a tiny PPO:
#: 4 rollouts of 64 steps on one env, an evaluation and a checkpoint every 128 steps.
ENV_KWARGS = ["push_magnitude_n=[0, 0]", "max_episode_steps=40"]
TINY_PPO = ["n_steps=64", "batch_size=64", "n_epochs=2", "eval_freq=128", "eval_episodes=1", "checkpoint_freq=128"]
#: What every run folder holds after TIMESTEPS steps (tb/ and monitor/ checked apart).
RUN_FILES = (
    "model.zip", "vecnormalize.pkl", "config.yaml", "command.txt", "train_info.json", "best/best_model.zip",
    "best/vecnormalize.pkl", "eval/evaluations.npz", f"checkpoints/model_{TIMESTEPS}_steps.zip",
    f"checkpoints/model_vecnormalize_{TIMESTEPS}_steps.pkl",
)  # fmt: skip


def ablation_args(out: Path) -> list[str]:
    """The tiny ablation: wbc mode, seeds 0 and 1, TIMESTEPS steps each, into ``out``."""
    return [
        "--env", ENV, "--algo", "ppo", "--modes", "wbc", "--seeds", *map(str, SEEDS),
        "--timesteps", str(TIMESTEPS), "--n-envs", "1", "--eval-episodes", "1", "--out", str(out),
        "--env-kwargs", *ENV_KWARGS, "--params", *TINY_PPO,
    ]  # fmt: skip


def descendants(pid: int) -> set[int]:
    """The live processes below ``pid`` (children, theirs, ...), read from /proc."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):  # gone meanwhile
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (zombies count as gone)."""
    running = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            running.add(pid)
    return running


def wait_gone(pids: set[int], timeout_s: float = 30.0) -> set[int]:
    """Wait until none of ``pids`` runs (at most ``timeout_s`` [s]); those still running."""
    deadline = time.monotonic() + timeout_s
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive(pids)


@pytest.fixture
def ray_env(monkeypatch):
    """A short temporary folder for Ray (its socket paths must stay under 108 characters) and a
    token of this test's own; both gone afterwards."""
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", secrets.token_hex(32))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    yield temp
    shutil.rmtree(temp, ignore_errors=True)


def policy_weights(model_zip: Path) -> np.ndarray:
    from stable_baselines3 import PPO

    policy = PPO.load(model_zip, device="cpu").policy
    return np.concatenate([p.detach().numpy().ravel() for p in policy.parameters()])


def check_run_folders(out: Path) -> None:
    """Both seeds' run folders: every file, TIMESTEPS steps, the seed and mode, the single-run command,
    and different weights for different seeds."""
    for seed in SEEDS:
        run_dir = out / "wbc" / f"s{seed}"
        missing = [name for name in RUN_FILES if not (run_dir / name).is_file()]
        assert not missing, f"{run_dir}: missing {missing}"
        assert list((run_dir / "tb").rglob("events.out.tfevents*")), f"{run_dir}: no TensorBoard log"
        assert [p.name for p in (run_dir / "monitor").glob("*.monitor.csv")] == ["0.monitor.csv"]
        info = json.loads((run_dir / "train_info.json").read_text())
        assert info["timesteps"] == TIMESTEPS and info["timesteps_total"] == TIMESTEPS
        assert info["interrupted"] is False
        record = yaml.safe_load((run_dir / "config.yaml").read_text())
        assert record["seed"] == seed and record["config"]["env_kwargs"]["action_mode"] == "wbc"
        assert record["config"]["n_steps"] == 64 and record["config"]["timesteps"] == TIMESTEPS
        command = (run_dir / "command.txt").read_text()
        assert command.startswith("python -m training.train --env HumanoidWBC-v0 --algo ppo ")
        assert f"--seed {seed} --run-dir {run_dir} " in command
    weights = [policy_weights(out / "wbc" / f"s{seed}" / "model.zip") for seed in SEEDS]
    assert weights[0].shape == weights[1].shape and np.max(np.abs(weights[0] - weights[1])) > 1e-2


def check_report(out: Path) -> None:
    """results.json, table.md and the plot gathered from both runs."""
    results = json.loads((out / "results.json").read_text())
    assert results["modes"] == ["wbc"] and results["seeds"] == list(SEEDS)
    assert [(run["mode"], run["seed"]) for run in results["runs"]] == [("wbc", seed) for seed in SEEDS]
    assert [run["run_dir"] for run in results["runs"]] == [str(out / "wbc" / f"s{seed}") for seed in SEEDS]
    assert all(run["train"]["timesteps"] == TIMESTEPS for run in results["runs"])
    summary = results["summary"]["wbc"]
    assert summary["seeds"] == 2 and summary["length"] == 40  # both runs evaluated on their short episodes
    returns = [run["summary"]["return"] for run in results["runs"]]
    assert summary["return"] == pytest.approx(np.mean(returns))
    assert results["nominal"]["summary"]["length"] == 40
    table = (out / "table.md").read_text().splitlines()
    assert table[2].startswith("| nominal WBC (zero action) | ")
    assert table[3].startswith(f"| wbc | {summary['return']:.4g} ± ") and len(table) == 4
    assert (out / "learning_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ablation_and_seeds_on_an_in_process_ray(ray_env, tmp_path, monkeypatch, capsys):
    """Ray started here on 2 CPUs: the 2-run ablation, checked run folder by run folder and in its
    report; then ``training.train --seeds 0 1 5`` into the same folder keeps both finished runs and
    trains seed 5 as a trial."""
    import ray

    from training import ablation, train

    monkeypatch.chdir(ROOT)
    before, started = descendants(os.getpid()), set()
    ray.init(address="local", num_cpus=2, include_dashboard=False, _temp_dir=ray_env)
    try:
        assert ray.cluster_resources()["CPU"] == 2
        out = tmp_path / "ablation"
        assert ablation.main(ablation_args(out)) == 0
        assert "ablation: 2 run(s) as Ray Tune trials, 1 CPU each, on 2 CPU(s)" in capsys.readouterr().out
        check_run_folders(out)
        check_report(out)

        # --seeds: finished runs are kept (no trial), the others trained as trials into DIR/s<S>.
        models = {seed: (out / "wbc" / f"s{seed}" / "model.zip").stat().st_mtime_ns for seed in SEEDS}
        seeds_args = ["--env", ENV, "--algo", "ppo", "--timesteps", "128", "--n-envs", "1", "--verbose", "0",
                      "--env-kwargs", "action_mode=wbc", *ENV_KWARGS, "--params", *TINY_PPO]  # fmt: skip
        assert train.main([*seeds_args, "--seeds", "0", "1", "5", "--run-dir", str(out / "wbc")]) == 0
        printed = capsys.readouterr().out
        assert printed.count("done before, kept") == 2 and "training: 1 run(s) as Ray Tune trials" in printed
        assert {seed: (out / "wbc" / f"s{seed}" / "model.zip").stat().st_mtime_ns for seed in SEEDS} == models
        info = json.loads((out / "wbc" / "s5" / "train_info.json").read_text())
        assert info["timesteps"] == 128 and not info["interrupted"]
        assert yaml.safe_load((out / "wbc" / "s5" / "config.yaml").read_text())["seed"] == 5
        started = descendants(os.getpid()) - before
        assert started, "Ray started no process here"
    finally:
        ray.shutdown()
    assert not wait_gone(started), "Ray processes left behind"
    assert list(Path(ray_env).glob("session_*")), "Ray's session files are not in the folder given to it"
    assert not list(ROOT.glob("*ray_results*")) and not list(ROOT.glob("session_*"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ray_start(args: list[str], log: Path, timeout_s: float = 90.0) -> subprocess.Popen:
    """``ray start ARGS --block`` in the background; returns once its node runs (its log says so)."""
    ray_cli = Path(sys.executable).parent / "ray"
    handle = log.open("w")
    proc = subprocess.Popen(
        [str(ray_cli), "start", *args, "--disable-usage-stats", "--block"],
        cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + timeout_s
    while "block forever" not in log.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"ray start {' '.join(args)} did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    return proc


@pytest.fixture
def ray_cluster(ray_env, tmp_path):
    """A 2-node Ray cluster on 127.0.0.1 (head and one worker node, 1 CPU each): its address.

    Stopped afterwards by ending both ``ray start --block`` processes (SIGTERM: each stops the Ray
    processes of its node); every process below them must be gone.
    """
    port = free_port()
    nodes, pids = [], set()
    try:
        nodes.append(ray_start(
            ["--head", f"--port={port}", "--node-ip-address=127.0.0.1", "--num-cpus=1",
             "--include-dashboard=false", f"--temp-dir={ray_env}"], tmp_path / "head.log",
        ))  # fmt: skip
        nodes.append(ray_start(
            [f"--address=127.0.0.1:{port}", "--node-ip-address=127.0.0.1", "--num-cpus=1"], tmp_path / "worker.log"
        ))  # fmt: skip
        yield f"127.0.0.1:{port}"
    finally:
        for node in reversed(nodes):
            pids |= descendants(node.pid) | {node.pid}
            node.send_signal(signal.SIGTERM)
        for node in reversed(nodes):
            try:
                node.wait(60)
            except subprocess.TimeoutExpired:
                node.kill()
    assert not wait_gone(pids), "Ray processes of the cluster left behind"


def test_the_same_ablation_through_address_on_a_local_cluster(ray_cluster, tmp_path):
    """``python -m training.ablation ... --address HOST:PORT`` against the 2-node cluster: 2 CPUs
    found there, both runs trained as trials and gathered, as on the in-process Ray."""
    out = tmp_path / "ablation"
    proc = subprocess.run(
        [sys.executable, "-m", "training.ablation", *ablation_args(out), "--address", ray_cluster],
        cwd=ROOT, capture_output=True, text=True, timeout=400,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "ablation: 2 run(s) as Ray Tune trials, 1 CPU each, on 2 CPU(s)" in proc.stdout
    check_run_folders(out)
    check_report(out)


def test_sweep_arguments_are_checked_before_ray_starts(capsys, monkeypatch):
    """Bad --address / --num-cpus / --cpus-per-trial and Ray options without --seeds: refused, naming what is allowed."""
    from training import ablation, train
    from training.ray_sweep import SweepError, cluster_address

    base = ["--env", ENV, "--algo", "ppo"]
    for argv, message in [
        ([*base, "--seeds", "0", "1", "--address", "localhost"], "expected HOST:PORT"),
        ([*base, "--seeds", "0", "1", "--address", "h:70000"], "expected HOST:PORT"),
        ([*base, "--seeds", "0", "0"], "each seed once"),
        ([*base, "--seeds", "0", "1", "--cpus-per-trial", "0"], "a positive number of CPUs"),
        ([*base, "--seeds", "0", "--address", "h:1", "--num-cpus", "2"], "sizes a local Ray"),
        ([*base, "--address", "h:1"], "--address: only with --seeds"),
        ([*base, "--seed", "0", "--seeds", "1"], "not allowed with argument"),
    ]:
        with pytest.raises(SystemExit):
            train.parse_args(argv)
        assert message in capsys.readouterr().err, argv
    with pytest.raises(SystemExit):
        ablation.parse_args(["--timesteps", "10", "--num-cpus", "0"])
    assert "--num-cpus: at least 1" in capsys.readouterr().err
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.5:6379")
    assert cluster_address(None) == "10.0.0.5:6379" and cluster_address("h:1") == "h:1"
    monkeypatch.setenv("RAY_ADDRESS", "nonsense")
    with pytest.raises(SweepError, match="expected HOST:PORT"):
        cluster_address(None)
    monkeypatch.delenv("RAY_ADDRESS")
    assert cluster_address(None) is None


def test_dry_run_and_missing_ray_need_no_ray(tmp_path, capsys):
    """--dry-run prints the per-seed single-run commands without Ray; without Ray installed a sweep
    fails with one message naming the extra to install (Ray hidden from a fresh interpreter)."""
    from training import train

    argv = ["--env", ENV, "--algo", "ppo", "--seeds", "3", "4", "--timesteps", "64", "--run-dir", str(tmp_path)]
    assert train.main([*argv, "--dry-run"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines == [
        f"python -m training.train --env {ENV} --algo ppo --timesteps 64 --seed {seed} --run-dir {tmp_path}/s{seed} "
        "--no-progress-bar --verbose 1 --threads 1 --overwrite"
        for seed in (3, 4)
    ]
    assert not (tmp_path / "s3").exists()
    code = (
        "import sys; sys.modules['ray'] = None\n"  # an import of ray now raises ImportError
        "from training import train\n"
        f"sys.exit(train.main({[*argv, '--n-envs', '1']!r}))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert 'install the optional extra with: pip install -e ".[cluster]"' in proc.stderr
    assert not (tmp_path / "s3").exists()


def test_a_stopped_trial_run_saves_its_model_even_with_sigint_blocked(tmp_path):
    """What a trial does when Tune stops it (Ctrl-C): SIGINT to its training, which saves the model
    marked interrupted. Started while SIGINT is blocked, as in Ray's workers (a blocked signal stays
    blocked across exec, and the run would be killed without saving)."""
    from training.ray_sweep import TrainingProcess

    run_dir = tmp_path / "run"
    args = [
        "--env", ENV, "--algo", "sac", "--timesteps", "100000", "--n-envs", "1", "--run-dir", str(run_dir),
        "--no-progress-bar", "--verbose", "0", "--env-kwargs", *ENV_KWARGS, "--params", "learning_starts=20",
        "batch_size=16", "eval_freq=0", "checkpoint_freq=0", "buffer_size=1000", "policy_kwargs={net_arch: [16]}",
    ]  # fmt: skip
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        run = TrainingProcess(args, str(ROOT))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    try:
        deadline = time.monotonic() + 90
        while not (run_dir / "tb").exists():  # SB3 creates it when learning starts
            assert run.proc.poll() is None and time.monotonic() < deadline, "the run did not start"
            time.sleep(0.2)
        time.sleep(1.0)
        assert run.wait(0.1) is False  # still training
        run.stop()
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
    assert run.proc.returncode == 0  # it stopped on SIGINT, not killed after the grace time
    info = json.loads((run_dir / "train_info.json").read_text())
    assert info["interrupted"] is True and 0 < info["timesteps"] < 100000
    assert (run_dir / "model.zip").is_file() and (run_dir / "vecnormalize.pkl").is_file()
