"""The env's own Python per physics step in wbc mode: an env step's time without the controller tick and MuJoCo.

For each registered env in ``wbc`` mode (compiled controller), N env steps (default 600) under
random actions (uniform in the action space, seeded; ``--actions zero`` for the WBC alone), each
env step's wall time is split into:

- ``tick``: the compiled controller's C++ call (``CompiledTick.core.compute``), once per physics
  step;
- ``mujoco``: ``mujoco.mj_step`` (once per physics step) and ``mujoco.mj_forward`` (once per env
  step);
- ``env_step_hooks``: the env's once-per-env-step work: the shell's ``_check_action``,
  ``_observation`` and ``_info``, and its task's ``fallen``, ``terminated`` and ``reward_terms``;
- ``python_per_physics_step``: the rest divided by the physics steps taken: what the env does in
  Python at every physics step around the tick (task and reference updates, writes into the
  controller, MuJoCo <-> pinocchio conversion, the tick's Python wrapper and its result, effort,
  ``ctrl`` writing, state checks; the seesaw's ``mj_subtreeVel`` for its board law too).

Medians over env steps (each figure per env step, or per physics step where named so), the env
steps/s of the timed steps (the unwrapped env's ``step``), and the Python share of the env step.
Resets (on termination) are not timed. The env must call ``mujoco.mj_step`` and ``mujoco.mj_forward``
through the ``mujoco`` module (they are timed by replacing the module's functions for the run);
a run whose timed ``mj_step`` calls do not add up to the physics steps raises.

JSON: ``results = {env id: {part: {"median_us", "p90_us"}, "steps_per_s", "python_share",
"physics_steps", "resets"}}``.

    python -m benchmarks.env_overhead [--steps 600] [--actions random] [--envs ...] [--json PATH]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import mujoco
import numpy as np

from benchmarks.common import ENV_STEP_HOOKS, RESULTS, machine, registered_env_ids, timed, write_json

PARTS = ("env_step", "tick", "mujoco", "env_step_hooks", "python_per_physics_step")
#: The env's once-per-env-step methods (timed as ``env_step_hooks``).
HOOKS = ENV_STEP_HOOKS


def core_compute(core, *args):
    """The C++ tick (a function of its own so that tests can charge it)."""
    return core.compute(*args)


class TimedCore:
    """Stands in for a :class:`~wbc_layer.compiled.CompiledTick`'s core: ``compute`` timed into
    ``total[0]`` [s], every other attribute the core's own (looked up once)."""

    def __init__(self, core, total: list[float]):
        self._core, self._total = core, total

    def compute(self, *args):
        start = time.perf_counter()
        try:
            return core_compute(self._core, *args)
        finally:
            self._total[0] += time.perf_counter() - start

    def __getattr__(self, name: str):
        value = getattr(self._core, name)
        setattr(self, name, value)
        return value


def measure(env_id: str, steps: int, actions: str, seed: int) -> dict:
    """Time ``steps`` env steps of ``env_id`` (wbc mode, compiled): per-step parts [s] -> stats."""
    env = gym.make(env_id, action_mode="wbc", wbc_backend="compiled")
    base = env.unwrapped
    rng = np.random.default_rng(seed)
    shape = env.action_space.shape

    def action() -> np.ndarray:
        return np.zeros(shape) if actions == "zero" else rng.uniform(-1.0, 1.0, shape)

    tick, mj, hooks, mj_steps = [0.0], [0.0], [0.0], [0]
    for part, names in HOOKS.items():
        owner = base if part == "env" else base.task
        for name in names:
            setattr(owner, name, timed(getattr(owner, name), hooks))

    def wrap_core() -> None:
        base.controller.compiled.core = TimedCore(base.controller.compiled.core, tick)

    env.reset(seed=seed)
    for _ in range(max(1, steps // 20)):  # warm-up
        env.step(action())
    wrap_core()
    mj_step, mj_forward = mujoco.mj_step, mujoco.mj_forward
    mujoco.mj_step, mujoco.mj_forward = timed(mj_step, mj, mj_steps), timed(mj_forward, mj)
    samples: dict[str, list[float]] = {part: [] for part in PARTS}
    physics_steps = resets = 0
    clock = time.perf_counter
    try:
        for _ in range(steps):
            tick[0] = mj[0] = hooks[0] = 0.0
            mj_steps[0] = 0
            a = action()
            start = clock()
            _, _, terminated, truncated, _ = base.step(a)  # the env's own step, without gymnasium's wrappers
            total = clock() - start
            n = mj_steps[0]
            physics_steps += n
            rest = total - tick[0] - mj[0] - hooks[0]
            for part, value in zip(PARTS, (total, tick[0], mj[0], hooks[0], rest / max(n, 1)), strict=True):
                samples[part].append(value)
            if terminated or truncated:
                mujoco.mj_step, mujoco.mj_forward = mj_step, mj_forward  # resets are not timed
                env.reset()
                mujoco.mj_step, mujoco.mj_forward = timed(mj_step, mj, mj_steps), timed(mj_forward, mj)
                wrap_core()
                resets += 1
    finally:
        mujoco.mj_step, mujoco.mj_forward = mj_step, mj_forward
        env.close()
    if physics_steps < steps:  # fewer mj_step calls than env steps: mj_step not called through the module
        raise RuntimeError(
            f"{env_id}: {physics_steps} timed mj_step calls in {steps} env steps; the env must call mujoco.mj_step"
        )
    result: dict = {
        part: {"median_us": 1e6 * float(np.median(v)), "p90_us": 1e6 * float(np.percentile(v, 90))}
        for part, v in samples.items()
    }
    step_s = np.asarray(samples["env_step"])
    python_s = np.asarray(samples["python_per_physics_step"]) * (physics_steps / steps)
    result["steps_per_s"] = float(steps / step_s.sum())
    result["python_share"] = float((python_s + np.asarray(samples["env_step_hooks"])).sum() / step_s.sum())
    result["physics_steps"] = physics_steps
    result["resets"] = resets
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600, help="timed env steps per env")
    parser.add_argument("--actions", choices=("random", "zero"), default="random")
    parser.add_argument("--envs", nargs="+", default=None, help="env ids (default: every registered one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=str(RESULTS / "env_overhead.json"))
    args = parser.parse_args(argv)
    start = machine()
    print(f"load average {start['load_average']} on {start['cpus']} CPUs")
    env_ids = args.envs or registered_env_ids()
    print(f"\nwbc mode (compiled), {args.steps} env steps, {args.actions} actions: medians [us] (p90)")
    print(
        f"  {'env':<24}{'env step':>16}{'tick x n':>16}{'mujoco':>16}{'step hooks':>16}"
        f"{'Python / physics step':>24}{'steps/s':>10}{'Python share':>14}"
    )
    results = {}
    for env_id in env_ids:
        row = results[env_id] = measure(env_id, args.steps, args.actions, args.seed)
        cells = "".join(f"{row[p]['median_us']:>9.0f} ({row[p]['p90_us']:>4.0f})" for p in PARTS[:4])
        python = row["python_per_physics_step"]
        print(
            f"  {env_id:<24}{cells}{python['median_us']:>15.1f} ({python['p90_us']:>5.1f})"
            f"{row['steps_per_s']:>10.1f}{row['python_share']:>14.2f}"
        )
    settings = {
        "steps": args.steps,
        "actions": args.actions,
        "envs": env_ids,
        "seed": args.seed,
        "backend": "compiled",
    }
    write_json(args.json, settings, results, start)
    return results


if __name__ == "__main__":
    main()
