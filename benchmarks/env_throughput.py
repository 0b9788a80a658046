"""Env steps per second: wbc vs torque mode per env, and 1 vs 2 SubprocVecEnv workers.

1. For each registered env, one ``wbc``-mode and one ``torque``-mode instance take turns in
   blocks of B env steps (default 200; one env step = 10 physics steps), R rounds (default 5);
   steps/s per block, medians reported, and the wbc/torque cost ratio (time per step). Actions:
   random (uniform in the action space, seeded), as early in training; ``--actions zero`` for the
   WBC alone. Episodes are reset on termination or truncation (the reset's time counts: in torque
   mode random torques topple the robot within about a second, so its resets are frequent;
   steps/s without the resets' time are reported too), and the share of the wbc-mode time spent
   inside the controller's ``compute()`` (the rest: MuJoCo and the env's own Python).
2. ``HumanoidWBC-v0`` in wbc mode under stable-baselines3's ``SubprocVecEnv`` with 1 and 2
   workers (plus ``DummyVecEnv`` with 1, in-process, for the inter-process overhead), taking
   turns for R rounds of B vector steps; total env steps/s and the speed-up of 2 over 1 worker.
   With 2 workers on a 2-core machine, anything else running takes from the speed-up.

    python -m benchmarks.env_throughput [--block 200] [--rounds 5] [--actions random] [--json PATH]
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import gymnasium as gym
import numpy as np

from benchmarks.common import RESULTS, machine, registered_env_ids, write_json

MODES = ("wbc", "torque")
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
    """Accumulate the wall time [s] of ``env``'s WBC ticks (its ``_compute_wbc`` hook) in the
    returned one-element list."""
    total = [0.0]
    compute = env._compute_wbc

    def timed_compute(q, v):
        start = time.perf_counter()
        try:
            return compute(q, v)
        finally:
            total[0] += time.perf_counter() - start

    env._compute_wbc = timed_compute
    return total


def mode_comparison(env_id: str, block: int, rounds: int, actions: str, seed: int) -> dict:
    """wbc and torque mode of ``env_id``, alternating blocks; medians of steps/s."""
    envs = {mode: gym.make(env_id, action_mode=mode) for mode in MODES}
    rngs = {mode: np.random.default_rng(seed) for mode in MODES}
    for mode, env in envs.items():
        env.reset(seed=seed)
        step_block(env, max(1, block // 10), rngs[mode], actions)  # warm-up (imports, caches)
    compute_s = time_compute(envs["wbc"].unwrapped)
    rates = {mode: [] for mode in MODES}
    rates_without_resets = {mode: [] for mode in MODES}
    resets = dict.fromkeys(MODES, 0)
    for _ in range(rounds):
        for mode, env in envs.items():
            rate, rate_without_resets, n_resets = step_block(env, block, rngs[mode], actions)
            rates[mode].append(rate)
            rates_without_resets[mode].append(rate_without_resets)
            resets[mode] += n_resets
    for env in envs.values():
        env.close()
    result = {
        mode: {
            "steps_per_s": float(np.median(rates[mode])),
            "steps_per_s_without_resets": float(np.median(rates_without_resets[mode])),
            "blocks": rates[mode],
            "resets": resets[mode],
        }
        for mode in MODES
    }
    # the share of the wbc env's time spent in the WBC's compute() (the rest: MuJoCo, the env)
    result["wbc"]["compute_share"] = compute_s[0] / sum(block / rate for rate in rates["wbc"])
    result["wbc_cost_ratio"] = result["torque"]["steps_per_s"] / result["wbc"]["steps_per_s"]
    return result


def vec_comparison(block: int, rounds: int, actions: str, seed: int) -> dict:
    """``VEC_ENV_ID`` in wbc mode: DummyVecEnv(1), SubprocVecEnv(1), SubprocVecEnv(2)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    make = partial(gym.make, f"humanoid_env:{VEC_ENV_ID}", action_mode="wbc")
    vec_envs = {
        "dummy_1": DummyVecEnv([make]),
        "subproc_1": SubprocVecEnv([make]),
        "subproc_2": SubprocVecEnv([make, make]),
    }
    rng = np.random.default_rng(seed)
    rates = {name: [] for name in vec_envs}

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
        for name, vec in vec_envs.items():
            rates[name].append(run_block(vec, block))
    for vec in vec_envs.values():
        vec.close()
    result = {name: {"steps_per_s": float(np.median(r)), "blocks": r} for name, r in rates.items()}
    result["speedup_2_over_1"] = result["subproc_2"]["steps_per_s"] / result["subproc_1"]["steps_per_s"]
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
    start = machine()
    print(f"load average {start['load_average']} on {start['cpus']} CPUs")
    env_ids = args.envs or registered_env_ids()
    results: dict[str, dict] = {"modes": {}}
    print(f"\nenv steps/s (medians of {args.rounds} blocks of {args.block} steps, {args.actions} actions)")
    print(
        f"  {'env':<24}{'wbc':>10}{'torque':>10}{'torque/wbc':>12}{'resets wbc/torque':>20}"
        f"   (without resets' time: wbc, torque)   WBC share of wbc time"
    )
    for env_id in env_ids:
        row = results["modes"][env_id] = mode_comparison(
            env_id, args.block, args.rounds, args.actions, args.seed
        )
        print(
            f"  {env_id:<24}{row['wbc']['steps_per_s']:>10.1f}{row['torque']['steps_per_s']:>10.1f}"
            f"{row['wbc_cost_ratio']:>12.1f}{row['wbc']['resets']:>11d} / {row['torque']['resets']:<6d}"
            f"   {row['wbc']['steps_per_s_without_resets']:>8.1f}, {row['torque']['steps_per_s_without_resets']:<8.1f}"
            f"{row['wbc']['compute_share']:>12.2f}"
        )
    if not args.no_vec:
        row = results["vec_env"] = vec_comparison(args.block, args.rounds, args.actions, args.seed)
        print(
            f"\n{VEC_ENV_ID}, wbc mode, vectorised (total env steps/s, medians of {args.rounds} blocks of {args.block})"
        )
        for name in ("dummy_1", "subproc_1", "subproc_2"):
            print(f"  {name:<12}{row[name]['steps_per_s']:>10.1f}")
        print(f"  speed-up 2 / 1 workers: {row['speedup_2_over_1']:.2f}")
    settings = {
        "block": args.block,
        "rounds": args.rounds,
        "actions": args.actions,
        "envs": env_ids,
        "seed": args.seed,
        "vec_env": None if args.no_vec else VEC_ENV_ID,
    }
    write_json(args.json, settings, results, start)
    return results


if __name__ == "__main__":
    main()
