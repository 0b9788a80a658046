"""Helpers shared by the benchmarks: env ids, QP recording from env rollouts, statistics, JSON.

Every benchmark prints a table and writes JSON holding its settings, the machine (processor,
CPU count, load average at the start and the end: the numbers mean little on a loaded machine),
its provenance (git commit, package versions: :func:`training.provenance.provenance`) and its
results.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the env ids)
from humanoid_env.registry import TASKS
from training import jsonio
from training.provenance import provenance
from wbc_layer import QPProblem

#: The project's env ids: the task registry's (``humanoid_env.registry.TASKS``), in its order; a
#: benchmark runs those registered in this checkout.
ENV_IDS = tuple(TASKS)
#: Short name -> env id of :data:`ENV_IDS` (each task's ``name``), as the benchmarks' ``--envs`` options take them.
ENVS = {entry.name: env_id for env_id, entry in TASKS.items()}
RESULTS = Path(__file__).resolve().parent / "results"
#: Pushes during recordings: the envs' magnitudes, but every 0.5-1 s instead of every 2-4 s, so
#: that a 2-s recording (1,000 physics steps) holds a few of them.
RECORDING_PUSH_INTERVAL_S = (0.5, 1.0)


#: The env's once-per-env-step methods (the benchmarks' "hooks"): part (``"env"``: the unwrapped
#: env's shell, ``"task"``: its task) -> method names.
ENV_STEP_HOOKS = {"env": ("_check_action", "_observation", "_info"), "task": ("fallen", "terminated", "reward_terms")}


def timed(function, total: list[float], calls: list[int] | None = None, samples: list[float] | None = None):
    """``function`` with each call's wall time [s] added to ``total[0]`` (and appended to
    ``samples``), its calls counted in ``calls[0]``."""

    def timed_function(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            elapsed = time.perf_counter() - start
            total[0] += elapsed
            if calls is not None:
                calls[0] += 1
            if samples is not None:
                samples.append(elapsed)

    return timed_function


def registered_env_ids() -> list[str]:
    """The ids of :data:`ENV_IDS` that ``import humanoid_env`` registered."""
    return [env_id for env_id in ENV_IDS if env_id in gym.registry]


def machine() -> dict[str, Any]:
    """Processor, CPU count and 1/5/15-min load averages (other processes skew timings)."""
    return {
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def stats(samples_us) -> dict[str, float]:
    """Median, p99 and max of timings [us], and how many of every 10,000 exceed 1 ms."""
    samples = np.asarray(samples_us, dtype=float)
    return {
        "median_us": float(np.median(samples)),
        "p99_us": float(np.percentile(samples, 99)),
        "max_us": float(samples.max()),
        "over_1ms_per_10k": float(1e4 * np.mean(samples > 1000.0)),
    }


def write_json(
    path: Path, settings: dict[str, Any], results: dict[str, Any], machine_start: dict[str, Any]
) -> None:
    """Write ``{"settings", "machine": {..., "load_average_end"}, "provenance", "results"}`` to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    info = {**machine_start, "load_average_end": machine()["load_average"]}
    record = {"settings": settings, "machine": info, "provenance": provenance(), "results": results}
    path.write_text(jsonio.dumps(record, indent=2))
    print(f"wrote {path}  (load average {machine_start['load_average']} -> {info['load_average_end']})")


def problem_copies(controller) -> tuple[QPProblem, QPProblem]:
    """Copies of ``controller``'s last QP with and without the torque-limit rows."""
    return controller.compiled.problem(with_torque_limits=True), controller.compiled.problem(with_torque_limits=False)


def record_problems(
    env_id: str, n: int, seed: int = 0, actions: str = "zero", **env_kwargs: Any
) -> tuple[list[QPProblem], list[QPProblem], dict[str, Any]]:
    """Roll out ``env_id`` in wbc mode (pushes every 0.5-1 s) and copy ``n`` consecutive QPs.

    Returns ``(hot, full, info)``: ``hot[k]`` is the k-th physics step's problem without the
    torque-limit rows (what the controller solves first, and usually only), ``full[k]`` the
    same with them; ``info`` counts resets and the physics steps whose QP failed (``fallbacks``, not recorded).
    ``actions``: ``"zero"`` (the WBC alone) or ``"random"`` (uniform in the action space).
    The controller backend is the env's (``wbc_backend`` in ``env_kwargs``; default compiled):
    both build the same QP.
    """
    kwargs = {"push_interval_s": RECORDING_PUSH_INTERVAL_S, **env_kwargs, "action_mode": "wbc"}
    env = gym.make(env_id, **kwargs)
    base = env.unwrapped
    hot: list[QPProblem] = []
    full: list[QPProblem] = []
    actuation = base.actuation  # the wbc actuation: its compute() is one controller tick
    compute = actuation.compute  # (with the seesaw's board state, when the task passes one)

    def recording_compute(q, v, body_states=None):
        result = compute(q, v, body_states)
        if len(hot) < n:
            full_problem, hot_problem = problem_copies(actuation.controller)
            full.append(full_problem)
            hot.append(hot_problem)
        return result

    actuation.compute = recording_compute
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    resets, fallbacks, start = 0, 0, time.perf_counter()
    while len(hot) < n:
        action = (
            np.zeros(env.action_space.shape)
            if actions == "zero"
            else rng.uniform(-1, 1, env.action_space.shape)
        )
        _, _, terminated, truncated, info = env.step(action)
        fallbacks += int(info["wbc_fallbacks"])
        if terminated or truncated:
            env.reset()
            resets += 1
    env.close()
    return hot, full, {"resets": resets, "fallbacks": fallbacks, "seconds": time.perf_counter() - start}
