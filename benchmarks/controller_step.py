"""Per-physics-step cost of the whole-body controller, with pushes, for each environment's contact set and each QP solver.

Measures, side by side in one run over N physics steps at 500 Hz (default 5,000 = 10 s):
model update (pinocchio terms), QP build, QP solve (proxsuite, warm-started; both solves when a
torque limit is hit), torque recovery, the whole WBC step (MuJoCo state -> torques, including
the bridge), and one ``mj_step`` (the torques applied while ``sim.step`` also writes ``ctrl``),
on the standing robot (``WBCSimulation``, two feet). Then the same parts inside each registered
environment in ``wbc`` mode (pushes every 0.5-1 s), with that env's contact set: two feet
(``HumanoidWBC-v0``), two feet + the right hand on the wall (``HumanoidWBCWall-v0``), feet on the
seesaw with the board in the QP (``HumanoidWBCSeesaw-v0``); there ``compute`` is the controller's
whole ``compute()`` call (the whole tick). Each env runs under two kinds of actions (``--actions``):

- ``zero``: the WBC alone, its references fixed (the env's default keywords);
- ``policy``: the env's shipped policy (``policies/<env id>/``, loaded with
  :func:`training.evaluate.load_policy` and made with the ``env_kwargs`` of its run folder, as
  its evaluation does; deterministic actions), so the references move every env step (every
  ``frame_skip`` physics steps) as in use. An env without a shipped policy (or a checkout where
  it cannot be loaded) gets *moving references* instead: uniform random actions in
  [-0.5, 0.5], seed 0, a new one every env step; its rows are keyed ``random`` and say so.

Each hot-path QP solver (``--solvers``) is measured in one run, taking turns physics step by
physics step on the standing robot and env step by env step in the envs (one instance per solver,
each with its own warm start and episode), so that a change of machine load hits them alike.
``update`` / ``build`` / ``solve`` / ``torques`` are the controller's own ``last_timings`` (timed in
C++). Prints, per row, median / p99 / max [us]; then each solver's whole tick against the first's.
Writes JSON: ``results = {"standing": {backend: {solver: {part: stats}}}, "envs": {env id:
{actions: {backend: {solver: {part: stats}}}}}}`` (one backend, ``"compiled"``, since the Python
reference tick was retired: issue 36; results written before then have a ``"python"`` one too).

    python -m benchmarks.controller_step [--steps 5000]
        [--solvers eiquadprog proxsuite daqp] [--actions zero policy] [--envs ...] [--json PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import mujoco
import numpy as np

from benchmarks.common import (
    RECORDING_PUSH_INTERVAL_S,
    RESULTS,
    machine,
    registered_env_ids,
    stats,
    write_json,
)
from humanoid_env.robots.hubo_lite import HUBO_LITE
from humanoid_env.wbc_sim import WBCSimulation

PUSH_FORCE_N = 40.0  # lateral/forward pushes on the torso, 0.1 s every 1 s, rotating direction
PUSH_DURATION_S = 0.1
BACKENDS = ("compiled",)
PARTS = ("update", "build", "solve", "torques")
#: ``--actions`` choices; a ``policy`` run without a shipped policy is keyed ``random``.
ACTIONS = ("zero", "policy")
#: Moving references when there is no shipped policy: uniform in [-RANDOM_ACTION, RANDOM_ACTION].
RANDOM_ACTION = 0.5
RANDOM_SEED = 0
ROOT = Path(__file__).resolve().parents[1]

Policy = Callable[[np.ndarray, gym.Env], np.ndarray]


def run(steps: int, qp_solver: str = "proxsuite", backend: str = "compiled") -> dict[str, np.ndarray]:
    """The standing robot alone (one backend and solver): see :func:`run_standing`."""
    return run_standing(steps, [(backend, qp_solver)])[(backend, qp_solver)]


def _push(t: float) -> np.ndarray:
    angle = np.pi / 2 * int(t)
    pushing = 0.5 <= t % 1.0 < 0.5 + PUSH_DURATION_S
    return PUSH_FORCE_N * np.array([np.cos(angle), np.sin(angle)]) if pushing else np.zeros(2)


def run_standing(steps: int, combos: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, np.ndarray]]:
    """Parts, ``wbc_step`` and ``mj_step`` [us] over ``steps`` physics steps of the pushed standing
    robot, one ``WBCSimulation`` per ``(backend, qp_solver)`` in ``combos``, taking turns step by step."""
    sims = {
        combo: WBCSimulation(config=HUBO_LITE.controller_config(backend=combo[0], qp_solver=combo[1]))
        for combo in combos
    }
    timings = {combo: {key: np.empty(steps) for key in (*PARTS, "wbc_step", "mj_step")} for combo in combos}
    clock = time.perf_counter
    for k in range(steps):
        for combo, sim in sims.items():
            model, data, controller, rows = sim.model, sim.data, sim.controller, timings[combo]
            data.xfrc_applied[model.body("torso").id, :2] = _push(k * model.opt.timestep)
            t0 = clock()
            tau = sim.torques()
            t1 = clock()
            sim.step(tau)
            t2 = clock()
            for part in PARTS:
                rows[part][k] = controller.last_timings.get(part, np.nan)
            rows["wbc_step"][k], rows["mj_step"][k] = 1e6 * (t1 - t0), 1e6 * (t2 - t1)
    for combo, sim in sims.items():
        if sim.fallbacks:
            print(f"warning: {sim.fallbacks} fallbacks during the standing run, {combo}")
    return timings


def random_policy(seed: int = RANDOM_SEED) -> Policy:
    """Moving references: uniform actions in [-RANDOM_ACTION, RANDOM_ACTION], a fixed seed."""
    rng = np.random.default_rng(seed)

    def policy(obs: np.ndarray, env: gym.Env) -> np.ndarray:
        return rng.uniform(-RANDOM_ACTION, RANDOM_ACTION, env.action_space.shape)

    return policy


def action_source(env_id: str, actions: str) -> tuple[str, Callable[[], Policy], dict[str, Any], str]:
    """``(key, make_policy, env_kwargs, description)`` of an ``--actions`` choice for ``env_id``.

    ``policy``: the shipped one with its run's env keywords; ``random`` (moving references) when
    ``env_id`` has none or it cannot be loaded. ``make_policy()`` gives one policy per env instance.
    """
    if actions == "zero":
        return "zero", lambda: (lambda obs, env: np.zeros(env.action_space.shape)), {}, "zero actions"
    try:
        from training.evaluate import load_policy, policy_files
        from training.shipped import policy_dir

        folder = policy_dir(env_id)
        files = policy_files(folder)
        policy = load_policy(str(folder))  # deterministic: one instance serves every env
    except Exception as err:  # no shipped policy, or no torch / stable-baselines3
        print(f"note: no shipped policy for {env_id} ({err}); moving references instead", file=sys.stderr)
        description = f"random actions in [-{RANDOM_ACTION}, {RANDOM_ACTION}], seed {RANDOM_SEED} (moving references)"
        return "random", lambda: random_policy(RANDOM_SEED), {}, description
    model = Path(files.model).resolve()
    name = model.relative_to(ROOT) if model.is_relative_to(ROOT) else model
    return "policy", lambda: policy, dict(files.env_kwargs), f"shipped policy {name}"


def run_env(
    env_id: str,
    steps: int,
    qp_solver: str = "proxsuite",
    backend: str = "compiled",
    actions: str = "zero",
) -> dict[str, np.ndarray]:
    """One env, one backend and solver: see :func:`run_envs`."""
    key, make_policy, env_kwargs, _ = action_source(env_id, actions)
    return run_envs(env_id, steps, [(backend, qp_solver)], make_policy, env_kwargs)[(backend, qp_solver)]


def run_envs(
    env_id: str,
    steps: int,
    combos: list[tuple[str, str]],
    make_policy: Callable[[], Policy],
    env_kwargs: dict[str, Any] | None = None,
) -> dict[tuple[str, str], dict[str, np.ndarray]]:
    """The controller's parts, its whole ``compute()`` and ``mj_step`` [us] over ``steps`` physics
    steps of ``env_id`` in wbc mode (pushes every 0.5-1 s, reset on termination), one instance per
    ``(backend, qp_solver)`` in ``combos``, taking turns env step by env step, acting by
    ``make_policy()`` (one per instance); ``env_kwargs``: the policy's env keywords."""
    kwargs = {**(env_kwargs or {}), "action_mode": "wbc", "push_interval_s": RECORDING_PUSH_INTERVAL_S}
    clock = time.perf_counter
    compute_width = len(PARTS) + 1
    mj_step = mujoco.mj_step  # NOTE: the envs' per-physics-step hooks: actuation.compute and mujoco.mj_step
    current: list[list[list[float]]] = [[]]  # the rows of the env stepping now

    def timed_mj_step(model, data):
        start = clock()
        mj_step(model, data)
        rows = current[0]
        if rows and len(rows[-1]) == compute_width:
            rows[-1].append(1e6 * (clock() - start))

    def timing(actuation, rows: list[list[float]]):
        """``actuation.compute`` (the wbc actuation's tick: the controller's ``compute()``) timed into ``rows``."""
        compute = actuation.compute

        def timed_compute(q, v, body_states=None):
            start = clock()
            result = compute(q, v, body_states)
            elapsed = 1e6 * (clock() - start)
            rows.append([actuation.controller.last_timings[p] for p in PARTS] + [elapsed])
            return result

        return timed_compute

    envs, rows, policies, obs = {}, {}, {}, {}
    mujoco.mj_step = timed_mj_step
    try:
        for combo in combos:
            backend, solver = combo
            env = envs[combo] = gym.make(env_id, **kwargs, qp_solver=solver, wbc_backend=backend)
            rows[combo], policies[combo] = [], make_policy()
            actuation = env.unwrapped.actuation
            actuation.compute = timing(actuation, rows[combo])
            obs[combo], _ = env.reset(seed=0)
        while any(len(rows[combo]) < steps for combo in combos):
            for combo, env in envs.items():
                if len(rows[combo]) >= steps:
                    continue
                current[0] = rows[combo]
                obs[combo], _, terminated, truncated, _ = env.step(policies[combo](obs[combo], env))
                if terminated or truncated:
                    obs[combo], _ = env.reset()
                current[0] = []
    finally:
        mujoco.mj_step = mj_step
        for env in envs.values():
            env.close()
    out = {}
    for combo in combos:
        table = np.array([row for row in rows[combo][:steps] if len(row) == compute_width + 1])
        out[combo] = {key: table[:, j] for j, key in enumerate((*PARTS, "compute", "mj_step"))}
    return out


def summarise(timings: dict[str, np.ndarray]) -> dict[str, dict[str, float] | None]:
    """Stats per part; None for a controller part that is 0 at every step: one the backend does
    not time (the compiled backend with ``qp_solver="daqp"`` reports no parts, only the whole
    tick is measured)."""
    return {
        key: None if key in PARTS and not np.any(samples) else stats(samples)
        for key, samples in timings.items()
    }


def print_table(title: str, by_backend: dict[str, dict[str, dict]], solver: str, steps: int) -> None:
    """One row's parts: median / p99 / max [us] (``-``: not timed)."""
    backends = list(by_backend)
    header = "".join(f"{b + ' median':>17}{'p99':>9}{'max':>9}" for b in backends)
    print(f"\n{title}, qp_solver={solver}  ({steps} steps; [us])")
    print(f"  {'part':<10}{header}")
    for key in by_backend[backends[0]][solver]:
        cells = "".join(
            f"{'-':>17}{'-':>9}{'-':>9}" if row is None
            else f"{row['median_us']:>17.1f}{row['p99_us']:>9.1f}{row['max_us']:>9.1f}"
            for row in (by_backend[b][solver][key] for b in backends)
        )
        print(f"  {key:<10}{cells}")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000, help="physics steps per row, backend and solver")
    parser.add_argument(
        "--solvers", nargs="+", default=["eiquadprog", "proxsuite", "daqp"], help="hot-path QP solvers to compare"
    )
    parser.add_argument(
        "--actions", nargs="+", choices=ACTIONS, default=list(ACTIONS),
        help="per env: zero actions and/or the shipped policy's (moving references)",
    )
    parser.add_argument(
        "--envs", nargs="*", default=None, help="environments whose contact sets are measured (default: every "
        "registered one; none: skip)"
    )
    parser.add_argument("--json", type=Path, default=RESULTS / "controller_step.json")
    args = parser.parse_args(argv)
    start = machine()
    env_ids = registered_env_ids() if args.envs is None else args.envs
    backends = list(BACKENDS)
    combos = [(backend, solver) for solver in args.solvers for backend in backends]

    standing: dict[str, dict[str, dict]] = {backend: {} for backend in backends}
    for (backend, solver), timings in run_standing(args.steps, combos).items():
        standing[backend][solver] = summarise(timings)
    for solver in args.solvers:
        print_table("standing", standing, solver, args.steps)

    envs: dict[str, dict[str, dict]] = {}
    sources: dict[str, dict[str, str]] = {}
    for env_id in env_ids:
        for actions in args.actions:
            key, make_policy, env_kwargs, description = action_source(env_id, actions)
            sources.setdefault(env_id, {})[key] = description
            by_backend = envs.setdefault(env_id, {})[key] = {backend: {} for backend in backends}
            for (backend, solver), timings in run_envs(env_id, args.steps, combos, make_policy, env_kwargs).items():
                by_backend[backend][solver] = summarise(timings)
            for solver in args.solvers:
                print_table(f"{env_id}, {key} actions", by_backend, solver, args.steps)
            if key != "zero":
                print(f"  ({description})")

    if len(args.solvers) > 1:
        base = args.solvers[0]
        for backend in backends:
            for solver in args.solvers[1:]:
                r = standing[backend][solver]["wbc_step"]["median_us"] / standing[backend][base]["wbc_step"]["median_us"]
                print(f"standing wbc_step median, {backend} backend, {solver} / {base}: {r:.2f}")
                for env_id, by_actions in envs.items():
                    for key, by_backend in by_actions.items():
                        r = by_backend[backend][solver]["compute"]["median_us"] / by_backend[backend][base]["compute"]["median_us"]
                        print(f"{env_id}, {key} actions, compute median, {backend} backend, {solver} / {base}: {r:.2f}")
    settings = {
        "steps": args.steps,
        "backends": backends,
        "solvers": args.solvers,
        "actions": args.actions,
        "envs": env_ids,
        "action_sources": sources,
    }
    results = {"standing": standing, "envs": envs}
    write_json(args.json, settings, results, start)
    return results


if __name__ == "__main__":
    main()
