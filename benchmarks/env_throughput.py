"""Env steps per second: wbc vs torque mode per env, and 1 vs 2 SubprocVecEnv workers.

1. For each registered env, one ``wbc``-mode instance and one ``torque``-mode instance take
   turns in blocks of B env steps (default 200; one env step = 10 physics steps), R rounds
   (default 5); steps/s per block, medians reported, and the wbc/torque cost ratio (time per
   step). Results keep a per-backend level (``"compiled"``, the one backend since the Python
   reference tick was retired: issue 36; older results have ``"python"`` too). Actions: random (uniform in the action space, seeded), as early in training;
   ``--actions zero`` for the WBC alone. Episodes are reset on termination or truncation (the
   reset's time counts: in torque mode random torques topple the robot within about a second,
   so its resets are frequent; steps/s without the resets' time are reported too), and the share
   of each wbc-mode instance's time spent inside the controller's ``compute()`` (the rest:
   MuJoCo and the env's own Python).
2. ``HumanoidWBC-v0`` in wbc mode under stable-baselines3's ``SubprocVecEnv`` with 1 and 2
   workers (plus ``DummyVecEnv`` with 1, in-process, for the inter-process overhead), all taking turns for R rounds of B vector steps; total env steps/s and the speed-up
   of 2 over 1 worker. With 2 workers on a 2-core machine, anything else running
   takes from the speed-up.

JSON: ``results = {"modes": {env id: {"wbc": {backend: {...}}, "torque": {...}, "wbc_cost_ratio":
{backend: ratio}}}, "vec_env": {backend: {"dummy_1", "subproc_1",
"subproc_2", "speedup_2_over_1"}}}``.

    python -m benchmarks.env_throughput [--block 200] [--rounds 5] [--actions random] [--json PATH]
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import gymnasium as gym
import numpy as np

from benchmarks.common import RESULTS, machine, registered_env_ids, timed, write_json

MODES = ("wbc", "torque")
BACKENDS = ("compiled",)
VEC_ENV_ID = "HumanoidWBC-v0"


def _action(env, rng: np.random.Generator, actions: str) -> np.ndarray:
    shape = env.action_space.shape
    return np.zeros(shape) if actions == "zero" else rng.uniform(-1.0, 1.0, shape)


def step_block(env, steps: int, rng: np.random.Generator, actions: str) -> tuple[float, float, int]:
    """Run ``steps`` env steps, resetting as needed: (steps/s, steps/s without the resets' time, resets)."""
    resets, reset_s = 0, 0.0
    clock = time.perf_counter
    start = clock()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(_action(env, rng, actions))
        if terminated or truncated:
            t0 = clock()
            env.reset()
            reset_s += clock() - t0
            resets += 1
    elapsed = clock() - start
    return steps / elapsed, steps / (elapsed - reset_s), resets


def time_compute(env) -> list[float]:
    """Accumulate the wall time [s] of ``env``'s WBC ticks (its wbc actuation's ``compute``: the
    controller's ``compute()``) in the returned one-element list; ``env`` unwrapped."""
    total = [0.0]
    env.actuation.compute = timed(env.actuation.compute, total)
    return total


def mode_comparison(
    env_id: str, block: int, rounds: int, actions: str, seed: int, backends: tuple[str, ...] = BACKENDS
) -> dict:
    """wbc mode (one instance per backend) and torque mode of ``env_id``, alternating blocks;
    medians of steps/s."""
    makers = {("wbc", backend): {"action_mode": "wbc", "wbc_backend": backend} for backend in backends}
    makers[("torque", None)] = {"action_mode": "torque"}
    envs = {key: gym.make(env_id, **kwargs) for key, kwargs in makers.items()}
    rngs = {key: np.random.default_rng(seed) for key in envs}
    for key, env in envs.items():
        env.reset(seed=seed)
        step_block(env, max(1, block // 10), rngs[key], actions)  # warm-up (imports, caches)
    compute_s = {backend: time_compute(envs[("wbc", backend)].unwrapped) for backend in backends}
    rates = {key: [] for key in envs}
    rates_without_resets = {key: [] for key in envs}
    resets = dict.fromkeys(envs, 0)
    for _ in range(rounds):
        for key, env in envs.items():
            rate, rate_without_resets, n_resets = step_block(env, block, rngs[key], actions)
            rates[key].append(rate)
            rates_without_resets[key].append(rate_without_resets)
            resets[key] += n_resets
    for env in envs.values():
        env.close()

    def row(key) -> dict:
        return {
            "steps_per_s": float(np.median(rates[key])),
            "steps_per_s_without_resets": float(np.median(rates_without_resets[key])),
            "blocks": rates[key],
            "resets": resets[key],
        }

    result: dict = {"wbc": {}, "torque": row(("torque", None)), "wbc_cost_ratio": {}}
    for backend in backends:
        key = ("wbc", backend)
        wbc = result["wbc"][backend] = row(key)
        # the share of the wbc env's time spent in the WBC's compute() (the rest: MuJoCo, the env)
        wbc["compute_share"] = compute_s[backend][0] / sum(block / rate for rate in rates[key])
        result["wbc_cost_ratio"][backend] = result["torque"]["steps_per_s"] / wbc["steps_per_s"]
    return result


def vec_comparison(block: int, rounds: int, actions: str, seed: int, backends: tuple[str, ...] = BACKENDS) -> dict:
    """``VEC_ENV_ID`` in wbc mode, per backend: DummyVecEnv(1), SubprocVecEnv(1), SubprocVecEnv(2)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    vec_envs = {}
    for backend in backends:
        make = partial(gym.make, f"humanoid_env:{VEC_ENV_ID}", action_mode="wbc", wbc_backend=backend)
        vec_envs[(backend, "dummy_1")] = DummyVecEnv([make])
        vec_envs[(backend, "subproc_1")] = SubprocVecEnv([make])
        vec_envs[(backend, "subproc_2")] = SubprocVecEnv([make, make])
    rng = np.random.default_rng(seed)
    rates = {key: [] for key in vec_envs}

    def run_block(vec, steps: int) -> float:
        start = time.perf_counter()
        for _ in range(steps):
            shape = (vec.num_envs, *vec.action_space.shape)
            vec.step(np.zeros(shape) if actions == "zero" else rng.uniform(-1.0, 1.0, shape))  # auto-resets
        return steps * vec.num_envs / (time.perf_counter() - start)

    for vec in vec_envs.values():
        vec.seed(seed)
        vec.reset()
        run_block(vec, max(1, block // 10))  # warm-up
    for _ in range(rounds):
        for key, vec in vec_envs.items():
            rates[key].append(run_block(vec, block))
    for vec in vec_envs.values():
        vec.close()
    result: dict = {}
    for (backend, name), r in rates.items():
        result.setdefault(backend, {})[name] = {"steps_per_s": float(np.median(r)), "blocks": r}
    for row in result.values():
        row["speedup_2_over_1"] = row["subproc_2"]["steps_per_s"] / row["subproc_1"]["steps_per_s"]
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--block", type=int, default=200, help="env steps per timed block")
    parser.add_argument("--rounds", type=int, default=5, help="blocks per mode / per vector env")
    parser.add_argument("--actions", choices=("random", "zero"), default="random")
    parser.add_argument("--envs", nargs="+", default=None, help="env ids (default: every registered one)")
    parser.add_argument("--no-vec", action="store_true", help="skip the SubprocVecEnv part")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=str(RESULTS / "env_throughput.json"))
    args = parser.parse_args(argv)
    backends = BACKENDS
    start = machine()
    print(f"load average {start['load_average']} on {start['cpus']} CPUs")
    env_ids = args.envs or registered_env_ids()
    results: dict[str, dict] = {"modes": {}}
    print(f"\nenv steps/s (medians of {args.rounds} blocks of {args.block} steps, {args.actions} actions)")
    print(
        f"  {'env':<24}{'backend':<10}{'wbc':>10}{'torque':>10}{'torque/wbc':>12}{'resets wbc/torque':>20}"
        f"   (without resets' time: wbc, torque)   WBC share of wbc time"
    )
    for env_id in env_ids:
        row = results["modes"][env_id] = mode_comparison(
            env_id, args.block, args.rounds, args.actions, args.seed, backends
        )
        torque = row["torque"]
        for i, (backend, wbc) in enumerate(row["wbc"].items()):
            print(
                f"  {env_id if i == 0 else '':<24}{backend:<10}{wbc['steps_per_s']:>10.1f}{torque['steps_per_s']:>10.1f}"
                f"{row['wbc_cost_ratio'][backend]:>12.1f}{wbc['resets']:>11d} / {torque['resets']:<6d}"
                f"   {wbc['steps_per_s_without_resets']:>8.1f}, {torque['steps_per_s_without_resets']:<8.1f}"
                f"{wbc['compute_share']:>12.2f}"
            )
    if not args.no_vec:
        rows = results["vec_env"] = vec_comparison(args.block, args.rounds, args.actions, args.seed, backends)
        print(
            f"\n{VEC_ENV_ID}, wbc mode, vectorised (total env steps/s, medians of {args.rounds} blocks of {args.block})"
        )
        print(f"  {'backend':<10}{'dummy_1':>10}{'subproc_1':>11}{'subproc_2':>11}{'speed-up 2 / 1 workers':>25}")
        for backend, row in rows.items():
            print(
                f"  {backend:<10}{row['dummy_1']['steps_per_s']:>10.1f}{row['subproc_1']['steps_per_s']:>11.1f}"
                f"{row['subproc_2']['steps_per_s']:>11.1f}{row['speedup_2_over_1']:>25.2f}"
            )
    settings = {
        "block": args.block,
        "rounds": args.rounds,
        "actions": args.actions,
        "backends": list(backends),
        "envs": env_ids,
        "seed": args.seed,
        "vec_env": None if args.no_vec else VEC_ENV_ID,
    }
    write_json(args.json, settings, results, start)
    return results


if __name__ == "__main__":
    main()
