"""Ray Tune as the engine for many training runs: each run one Tune trial, locally or on a cluster.

``training.ablation``, ``training.tune`` and ``python -m training.train --seeds ...`` hand their
runs to [`run_sweep`][training.ray_sweep.run_sweep]: one [`TrainRun`][training.ray_sweep.TrainRun] per (mode, seed), (mode, value) or seed, each a
list of ``python -m training.train`` arguments. Every run becomes one Ray Tune trial
(``ray.tune.Tuner`` over a grid of the runs, ``--cpus-per-trial`` CPUs each, default 1) that
starts exactly that command, ``python -m training.train ARGS``, as a subprocess in the folder the
sweep was started from, and waits for it. So a run folder is the one ``training.train`` writes when a
user types the command (same files, same ``command.txt``), at the same path, and each run has a
process of its own: its ``SIGINT`` handler, torch threads, SubprocVecEnv workers and compiled
controller are as in a single run, and a crash fails that trial alone.

Where Ray runs:

- no ``--address`` and no ``RAY_ADDRESS``: a new Ray instance on this machine (``ray.init``
  with ``--num-cpus`` CPUs, default all the machine's), shut down when the sweep ends;
- ``--address HOST:PORT`` (or ``RAY_ADDRESS``): join the cluster that ``ray start --head``
  started there. Every node needs this project installed in the same Python (the cluster's
  ``ray start`` ran from it) and the sweep's working folder, with the run folders, at the same
  path (a shared filesystem);
- a caller that already called ``ray.init()`` (a test, a notebook): that Ray, left running.

A failed trial is reported with the end of its error output and the others go on; the caller
stops before its report. Ctrl-C stops the sweep (Tune's own handling): Tune stops each running
trial, whose run gets ``SIGINT`` and saves its model marked ``interrupted`` (a rerun trains it
again), while finished runs are kept. Tune's own records go to a temporary folder, removed at the
end; Ray's session logs to Ray's temporary folder (``/tmp/ray`` by default).

Ray is the optional ``cluster`` extra (``pip install -e ".[cluster]"``); this module imports it
only inside the functions that need it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The module each trial runs.
TRAIN_MODULE = "training.train"
#: The install command named when Ray is missing.
INSTALL_HINT = 'pip install -e ".[cluster]"'
#: Lines of a failed run's stderr kept in its error message.
ERROR_TAIL_LINES = 25
#: Longest wait of a trial's step for its run [s]: Tune's stop reaches a trial between steps.
STEP_S = 2.0
#: Time a stopped run gets to save its model before it is killed [s] (Tune kills a trial's process
#: about 10 s after asking it to stop).
STOP_GRACE_S = 7.0
#: Outcome of a run that Tune stopped (Ctrl-C) while it trained.
STOPPED = "stopped before it finished (its model so far is saved, marked interrupted)"
#: Outcome of a run whose trial never started.
NOT_STARTED = "not started (the sweep was stopped)"


class SweepError(RuntimeError):
    """Ray is missing, an address or resource request is unusable, or a trial failed to start."""


class TrainRunError(RuntimeError):
    """One trial's ``python -m training.train`` exited with a non-zero status."""


@dataclass(frozen=True)
class TrainRun:
    """One run of a sweep: a name for messages (``"wbc/s0"``) and its ``training.train`` arguments."""

    name: str
    args: tuple[str, ...]


def import_ray():
    """``(ray, ray.tune)``; raise [`SweepError`][training.ray_sweep.SweepError] naming the install command when Ray is missing."""
    # Ray merges equal log lines of different workers unless told not to: each run's lines stay its own.
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    try:
        import ray
        from ray import tune
    except ImportError as err:
        raise SweepError(
            f"running several trainings needs Ray Tune, which is not installed here ({err}); "
            f"install the optional extra with: {INSTALL_HINT}"
        ) from None
    return ray, tune


def add_ray_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every sweep program shares: ``--address``, ``--num-cpus``, ``--cpus-per-trial``."""
    group = parser.add_argument_group("Ray (where the runs go)")
    group.add_argument(
        "--address",
        default=None,
        metavar="HOST:PORT",
        help="join the Ray cluster there (default: $RAY_ADDRESS if set, else a new local Ray on this machine)",
    )
    group.add_argument(
        "--num-cpus",
        type=int,
        default=None,
        help="CPUs of the local Ray (default: all of this machine's); not with --address",
    )
    group.add_argument(
        "--cpus-per-trial", type=float, default=1.0, help="CPUs Ray reserves for each run (default 1)"
    )


def check_ray_arguments(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """``parser.error`` on an unusable ``--address``, ``--num-cpus`` or ``--cpus-per-trial``."""
    if args.address is not None:
        try:
            check_address(args.address)
        except SweepError as err:
            parser.error(str(err))
        if args.num_cpus is not None:
            parser.error("--num-cpus sizes a local Ray; a cluster at --address has its own CPUs")
    if args.num_cpus is not None and args.num_cpus < 1:
        parser.error(f"--num-cpus: at least 1, got {args.num_cpus}")
    if not args.cpus_per_trial > 0:
        parser.error(f"--cpus-per-trial: a positive number of CPUs, got {args.cpus_per_trial}")


def check_address(address: str) -> str:
    """``address`` if it is ``HOST:PORT`` (port 1-65535), ``ray://HOST:PORT`` or ``auto``, else [`SweepError`][training.ray_sweep.SweepError]."""
    if address == "auto":
        return address
    match = re.fullmatch(r"(?:ray://)?([^:/\s]+):(\d+)", address)
    if not match or not 1 <= int(match[2]) <= 65535:
        raise SweepError(
            f"--address {address!r}: expected HOST:PORT (e.g. 10.0.0.5:6379, the address `ray start --head` "
            "printed), ray://HOST:PORT or auto"
        )
    return address


def cluster_address(address: str | None) -> str | None:
    """The cluster to join: ``address``, else ``$RAY_ADDRESS``, else None (a new local Ray)."""
    chosen = address or os.environ.get("RAY_ADDRESS") or None
    return check_address(chosen) if chosen else None


def start_ray(address: str | None, num_cpus: int | None) -> bool:
    """Connect to Ray; True when this call started it (and the sweep should shut it down).

    Already initialised in this process: used as it is. ``address``: join that cluster. Else a new
    Ray on this machine with ``num_cpus`` CPUs (None: all), never one found running here.
    """
    ray, _ = import_ray()
    if ray.is_initialized():
        return False
    if address is not None:
        try:
            ray.init(address=address)
        except ConnectionError as err:
            raise SweepError(
                f"no Ray cluster reachable at {address} ({err}); start one with `ray start --head`"
            ) from None
    else:
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False)
    return True


def check_resources(cpus_per_trial: float) -> float:
    """The cluster's CPUs; [`SweepError`][training.ray_sweep.SweepError] if one trial asks for more than the whole cluster has."""
    ray, _ = import_ray()
    cpus = float(ray.cluster_resources().get("CPU", 0.0))
    if cpus_per_trial > cpus:
        raise SweepError(f"--cpus-per-trial {cpus_per_trial:g}: the Ray cluster has only {cpus:g} CPU(s)")
    return cpus


def _training_preexec_hook():
    """A ``preexec_fn`` for the training process: ``SIGINT`` works there, and comes when its parent dies.

    ``SIGINT`` is unblocked and reset to its default (a Ray worker's threads block it, and a blocked
    or ignored signal stays so across exec): it is how a run is asked to stop and save. On Linux the
    kernel also sends it when the trial's process dies without stopping the run (a crashed or
    killed worker; ``PR_SET_PDEATHSIG``, which fires when the *thread* that started the run ends:
    a Ray actor runs its tasks on its main thread, which lives as long as the worker). libc is loaded here, in the parent: loading a library
    between fork and exec in a multi-threaded process could deadlock.
    """
    try:
        import ctypes

        prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: no parent-death signal
        prctl = None

    def hook() -> None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if prctl is not None:
            prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG

    return hook


class TrainingProcess:
    """``python -m training.train ARGS`` in ``cwd`` with this process's Python, as a subprocess.

    Its stdout passes through live (Ray forwards it to the sweep's terminal); its stderr goes to a
    temporary file, echoed when it ends (a pipe would break a training that outlives its reader).
    It runs in a session of its own: Ray kills a worker's process group, and a run must get the
    chance to save first ([`stop`][training.ray_sweep.TrainingProcess.stop]). Raises [`SweepError`][training.ray_sweep.SweepError] when ``cwd`` is missing here.
    """

    def __init__(self, args: list[str] | tuple[str, ...], cwd: str):
        if not Path(cwd).is_dir():
            raise SweepError(
                f"the sweep's working folder {cwd} does not exist on this Ray node; every node needs it "
                "at the same path (a shared filesystem)"
            )
        self._stderr = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", TRAIN_MODULE, *args],
            cwd=cwd,
            stderr=self._stderr,
            start_new_session=True,
            preexec_fn=_training_preexec_hook(),
        )

    def wait(self, timeout_s: float | None) -> bool:
        """Wait up to ``timeout_s`` [s] (None: to the end); True when the run ended with status 0.

        False while it still runs; [`TrainRunError`][training.ray_sweep.TrainRunError] with the last [`ERROR_TAIL_LINES`][training.ray_sweep.ERROR_TAIL_LINES]
        lines of its stderr when it exited with another status.
        """
        try:
            returncode = self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            return False
        text = self._read_stderr()
        if returncode != 0:
            tail = "".join(text.splitlines(keepends=True)[-ERROR_TAIL_LINES:])
            raise TrainRunError(
                f"python -m {TRAIN_MODULE} exited with status {returncode}; the end of its stderr:\n" + tail
            )
        return True

    def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        """If still running: ``SIGINT`` (it saves its model, marked interrupted); ``SIGKILL`` after ``grace_s`` [s]."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self._read_stderr()
        self._stderr.close()

    def _read_stderr(self) -> str:
        """The stderr written since the last read, echoed to this process's stderr."""
        if self._stderr.closed:
            return ""
        self._stderr.seek(0)
        text = self._stderr.read()
        self._stderr.seek(0)
        self._stderr.truncate()
        sys.stderr.write(text)
        return text


def trainable_class():
    """The Ray Tune trainable: one [`TrainingProcess`][training.ray_sweep.TrainingProcess] per trial.

    ``config["run"]`` names the run; ``runs`` (name -> ``{"args", "cwd"}``) comes through
    ``tune.with_parameters``, so Tune's tables show the run's name, not its argument list.

    A class, not a function, so that Tune's stop (Ctrl-C, the end of the sweep) reaches the run:
    each ``step`` waits [`STEP_S`][training.ray_sweep.STEP_S] at most, and ``cleanup`` asks a run still going to stop and save.
    """
    from ray import tune

    class TrainRunTrainable(tune.Trainable):
        def setup(self, config: dict[str, Any], runs: dict[str, dict[str, Any]]) -> None:
            run = runs[config["run"]]
            self.run = TrainingProcess(run["args"], run["cwd"])

        def step(self) -> dict[str, Any]:
            ended = self.run.wait(STEP_S)
            return {"finished": int(ended), "done": ended}

        def cleanup(self) -> None:
            if hasattr(self, "run"):
                self.run.stop()

    return TrainRunTrainable


def _trial_name(trial) -> str:
    """A trial's name in Tune's tables: the run's (``wbc/s0``)."""
    return trial.config["run"]


def _trial_dirname(trial) -> str:
    """Tune's folder of a trial (its logs only, in a temporary folder): the run's name, made safe."""
    return f"{trial.trial_id}_" + re.sub(r"[^A-Za-z0-9_.=-]+", "_", trial.config["run"])


def _error_text(error: BaseException) -> str:
    """The message of a trial's error without Ray's traceback wrapping (the cause's own text)."""
    text = str(error)
    marker = f"{TrainRunError.__name__}: "
    return text[text.rfind(marker) + len(marker) :].strip() if marker in text else text.strip()


def run_sweep(
    runs: list[TrainRun],
    address: str | None = None,
    num_cpus: int | None = None,
    cpus_per_trial: float = 1.0,
    name: str = "sweep",
) -> dict[str, str | None]:
    """Run every ``runs`` item as one Ray Tune trial; return run name -> None (finished) or its error.

    ``address``: the cluster to join (None: ``$RAY_ADDRESS``, else a new local Ray of ``num_cpus``
    CPUs, all when None); ``cpus_per_trial``: CPUs reserved per trial [CPUs]. Trials start in the
    order of ``runs`` as CPUs free up; a failed one does not stop the others. Ray started here is
    shut down at the end; Tune's own records go to a temporary folder, removed at the end.
    """
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        raise SweepError(f"run names must differ, got {names}")
    if not runs:
        return {}
    ray, tune = import_ray()
    started = start_ray(cluster_address(address), num_cpus)
    storage = tempfile.mkdtemp(prefix="humanoid-wbc-tune-")
    try:
        cpus = check_resources(cpus_per_trial)
        print(
            f"{name}: {len(runs)} run(s) as Ray Tune trials, {cpus_per_trial:g} CPU each, on {cpus:g} CPU(s)",
            flush=True,
        )
        cwd = os.getcwd()
        table = {run.name: {"args": list(run.args), "cwd": cwd} for run in runs}
        tuner = tune.Tuner(
            tune.with_resources(tune.with_parameters(trainable_class(), runs=table), {"cpu": cpus_per_trial}),
            param_space={"run": tune.grid_search(names)},
            tune_config=tune.TuneConfig(
                trial_name_creator=_trial_name, trial_dirname_creator=_trial_dirname, reuse_actors=False
            ),
            run_config=tune.RunConfig(
                name=name,
                storage_path=storage,
                failure_config=tune.FailureConfig(max_failures=0, fail_fast=False),
                # the run folder is the checkpoint; a Tune checkpoint would be a copy of nothing
                checkpoint_config=tune.CheckpointConfig(checkpoint_frequency=0, checkpoint_at_end=False),
                verbose=1,
            ),
        )
        results = tuner.fit()
        outcome: dict[str, str | None] = {}
        for result in results:
            run_name = (result.config or {}).get("run")  # None for a trial that never started
            if run_name is None:
                continue
            if result.error is not None:
                outcome[run_name] = _error_text(result.error)
            elif not (result.metrics or {}).get("finished"):
                outcome[run_name] = STOPPED
            else:
                outcome[run_name] = None
        for run_name in names:  # trials Tune never started (the sweep was stopped)
            outcome.setdefault(run_name, NOT_STARTED)
        return {run_name: outcome[run_name] for run_name in names}
    finally:
        shutil.rmtree(storage, ignore_errors=True)
        if started:
            ray.shutdown()


def report_failures(outcome: dict[str, str | None], program: str) -> int:
    """Print each run that did not finish, with its error; 0 when every run finished, else 1."""
    failed = {run_name: error for run_name, error in outcome.items() if error is not None}
    for run_name, error in failed.items():
        verb = "" if error in (STOPPED, NOT_STARTED) else "failed: "
        print(f"{program}: run {run_name}: {verb}{error}", file=sys.stderr)
    if failed:
        print(
            f"{program}: {len(failed)} of {len(outcome)} run(s) did not finish; the finished ones are kept, "
            "the same command again trains the rest",
            file=sys.stderr,
        )
        return 1
    return 0


def sweep_exit_code(runs: list[TrainRun], args: argparse.Namespace, program: str) -> int:
    """Run ``runs`` with the Ray arguments of ``args`` ([`add_ray_arguments`][training.ray_sweep.add_ray_arguments]) and report:
    0 when every run finished, 1 when some did not (each printed, [`report_failures`][training.ray_sweep.report_failures]), 2 when
    the sweep could not start (a [`SweepError`][training.ray_sweep.SweepError], printed as ``program: error: ...``)."""
    try:
        outcome = run_sweep(runs, args.address, args.num_cpus, args.cpus_per_trial, name=program)
    except SweepError as err:
        print(f"{program}: error: {err}", file=sys.stderr)
        return 2
    return report_failures(outcome, program)
