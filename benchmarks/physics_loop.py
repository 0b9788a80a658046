"""Issue 41's speed, side by side in one run: the compiled physics-step loop against the Python loop,
its limit, and the vector envs.

1. **One env** (``HumanoidWBC-v0`` or ``--env``, Hubo-lite and the G1; random actions, resets counted): wbc,
   torque and pd mode, each with ``physics_loop="compiled"`` and ``"python"``, taking turns block by block
   (B env steps, R rounds); env steps/s per block, medians; the wbc/torque cost ratio.
2. **The limit**: a further compiled wbc env of the same robot, its env step split into the
   compiled loop's call (ten ticks, ten ``mj_step``, the bridge and ``ctrl``: what no Python runs
   in) and the once-per-env-step work (``mj_forward`` at the new state, the contact sensing, and
   the hooks ``_check_action``, ``_observation``, ``_info``, the task's ``fallen``, ``terminated``,
   ``reward_terms``), each timed alone; the limit is their sum per env step, and the compiled
   env's share of it is ``limit / env step time``, resets excluded from both (random actions
   topple the robot: a reset rebuilds the controller). Two figures: the limit against the
   separately measured compiled env's step (two instances, two trajectories: their falls and
   contact states differ), and the share of the limit env's own step time spent in the limit's
   parts (one trajectory; its timers' overhead, a few us per env step, counted against it). Its ticks' times
   (``PhysicsLoop.tick_us``: each ``Controller::compute`` timed in C++) give the tick's median, p99
   and ticks over 1 ms per 10,000; beside them the same of the Python loop's ticks (its
   ``compute()`` through the Python wrapper, from a fifth env).
3. **Vector envs** (Hubo-lite, wbc): ``ThreadedVectorEnv`` (``gym.make_vec``) with 1 and 2 threads
   for N = 2, 8, 32 envs, and stable-baselines3's ``SubprocVecEnv`` with 2 workers (N = 2) and
   with one worker per env at the largest N (``subproc_<N>w_n<N>``: the processes' way to as many
   envs), and ``DummyVecEnv`` (N = 2), taking turns; env steps/s (all envs' steps), medians.

Run it on an idle machine (nothing else running: two threads or processes need both cores).

JSON: ``results = {"single": {robot: {"<mode>_<loop>": {"steps_per_s", "steps_per_s_without_resets",
"blocks"}, "limit": {...}, "ticks": {...}, "wbc_cost_ratio", "speedup_compiled_over_python"}},
"vector": {...}}``.

    python -m benchmarks.physics_loop [--block 200] [--rounds 5] [--vector-block 40] [--json PATH]
    python -m benchmarks.physics_loop --env HumanoidWBCWalk-v0 --no-vector --json PATH   # the walk env
    python -m benchmarks.physics_loop --robots --vector-block 200 --json PATH   # the vector envs alone
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import mujoco
import numpy as np

from benchmarks.common import ENV_STEP_HOOKS, RESULTS, machine, stats, timed, write_json
from humanoid_env.envs import physics_loop

ENV_ID = "HumanoidWBC-v0"
ROBOTS = ("hubo_lite", "g1")
#: The once-per-env-step methods timed with the limit: the hooks and the contact sensing.
HOOKS = {**ENV_STEP_HOOKS, "plant": ("contact_forces",)}


def step_block(env, steps: int, rng: np.random.Generator) -> tuple[float, float]:
    """``steps`` env steps under random actions: (env steps/s with the resets' time, without it)."""
    clock = time.perf_counter
    start, reset_s = clock(), 0.0
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(rng.uniform(-1.0, 1.0, env.action_space.shape))
        if terminated or truncated:
            t0 = clock()
            env.reset()
            reset_s += clock() - t0
    elapsed = clock() - start
    return steps / elapsed, steps / (elapsed - reset_s)


def single_env(robot: str, block: int, rounds: int, seed: int, env_id: str = ENV_ID) -> dict:
    makers = {
        f"{mode}_{loop}": {"action_mode": mode, "physics_loop": loop}
        for mode in ("wbc", "torque", "pd")
        for loop in ("compiled", "python")
    }
    envs = {key: gym.make(env_id, robot=robot, **kwargs) for key, kwargs in makers.items()}
    # the limit's env: its compiled loop's calls and its hooks timed alone
    limit_env = gym.make(env_id, robot=robot).unwrapped
    loop_time, hook_time = [0.0], [0.0]  # [s], within the current block
    original_run = physics_loop.CompiledPhysics._run
    ticks: list[np.ndarray] = []

    def timed_run(self, loop, wbc, first, k, warnings):
        start = time.perf_counter()
        stop, done = original_run(self, loop, wbc, first, k, warnings)
        loop_time[0] += time.perf_counter() - start
        ticks.append(np.array(loop.tick_us[first:done]))  # the ticks this call ran
        return stop, done

    # the Python loop's ticks through their Python wrapper (a sixth env: instrumenting runs Python)
    python_tick_env = gym.make(env_id, robot=robot, physics_loop="python").unwrapped
    python_ticks: list[float] = []  # [s]
    actuation = python_tick_env.actuation
    actuation.compute = timed(actuation.compute, [0.0], samples=python_ticks)
    for part, owner in (("env", limit_env), ("task", limit_env.task), ("plant", limit_env.plant)):
        for name in HOOKS[part]:
            setattr(owner, name, timed(getattr(owner, name), hook_time))
    mj_forward = mujoco.mj_forward
    timed_forward = timed(mj_forward, hook_time)

    rngs = {key: np.random.default_rng(seed) for key in [*envs, "limit", "python_ticks"]}
    everyone = {**envs, "limit": limit_env, "python_ticks": python_tick_env}
    for key, env in everyone.items():
        env.reset(seed=seed)
        step_block(env, max(1, block // 10), rngs[key])  # warm-up
    rates = {key: [] for key in everyone}
    rates_without_resets = {key: [] for key in everyone}
    for _ in range(rounds):
        for key, env in everyone.items():
            if key == "limit":  # (a reset inside the block charges its mj_forward: a few per block)
                physics_loop.CompiledPhysics._run, mujoco.mj_forward = timed_run, timed_forward
                loop_time[0] = hook_time[0] = 0.0
            rate, rate_without_resets = step_block(env, block, rngs[key])
            rates[key].append(rate)
            rates_without_resets[key].append(rate_without_resets)
            if key == "limit":
                physics_loop.CompiledPhysics._run, mujoco.mj_forward = original_run, mj_forward
                rates.setdefault("limit_loop_s", []).append(loop_time[0])
                rates.setdefault("limit_hooks_s", []).append(hook_time[0])
                # the share of the block's time (resets excluded) spent in the limit's parts
                rates.setdefault("limit_share", []).append((loop_time[0] + hook_time[0]) * rate_without_resets / block)
    for env in everyone.values():
        env.close()
    result = {
        key: {
            "steps_per_s": float(np.median(rates[key])),
            "steps_per_s_without_resets": float(np.median(rates_without_resets[key])),
            "blocks": rates[key],
        }
        for key in envs
    }
    loop_us = 1e6 * np.median(rates["limit_loop_s"]) / block
    hooks_us = 1e6 * np.median(rates["limit_hooks_s"]) / block
    limit_us = loop_us + hooks_us
    wbc_step_us = 1e6 / result["wbc_compiled"]["steps_per_s_without_resets"]
    result["limit"] = {
        "loop_us_per_env_step": loop_us,
        "hooks_us_per_env_step": hooks_us,
        "limit_us_per_env_step": limit_us,
        "limit_steps_per_s": 1e6 / limit_us,
        "wbc_compiled_share_of_limit": limit_us / wbc_step_us,
        # the limit env's own env steps: the share of their time in the limit's parts (its timers'
        # overhead counted against it); the figure above compares two instances' trajectories
        "share_in_own_steps": float(np.median(rates["limit_share"])),
    }
    result["wbc_cost_ratio"] = {
        loop: result[f"torque_{loop}"]["steps_per_s"] / result[f"wbc_{loop}"]["steps_per_s"] for loop in ("compiled", "python")
    }
    result["speedup_compiled_over_python"] = {
        mode: result[f"{mode}_compiled"]["steps_per_s"] / result[f"{mode}_python"]["steps_per_s"] for mode in ("wbc", "torque", "pd")
    }
    compiled_ticks = np.concatenate(ticks)
    result["ticks"] = {
        "compiled_loop": {**stats(compiled_ticks), "count": int(compiled_ticks.size)},
        "python_loop": {**stats(1e6 * np.asarray(python_ticks)), "count": len(python_ticks)},
    }
    return result


def vector_envs(block: int, rounds: int, seed: int, sizes: tuple[int, ...]) -> dict:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    def make():
        return gym.make(f"humanoid_env:{ENV_ID}")

    contenders = {}
    for n in sizes:
        for threads in (1, 2):
            contenders[f"threaded_{threads}t_n{n}"] = ("gym", gym.make_vec(ENV_ID, num_envs=n, num_threads=threads))
    contenders["subproc_2w_n2"] = ("sb3", SubprocVecEnv([make, make]))
    if max(sizes) > 2:  # one worker process per env, as SB3 makes them: the processes' way to N envs
        contenders[f"subproc_{max(sizes)}w_n{max(sizes)}"] = ("sb3", SubprocVecEnv([make] * max(sizes)))
    contenders["dummy_n2"] = ("sb3", DummyVecEnv([make, make]))
    rng = np.random.default_rng(seed)

    def run(kind, venv, steps: int) -> float:
        n = venv.num_envs
        shape = (n, *(venv.single_action_space.shape if kind == "gym" else venv.action_space.shape))
        start = time.perf_counter()
        for _ in range(steps):
            venv.step(rng.uniform(-1.0, 1.0, shape).astype(np.float32))
        return steps * n / (time.perf_counter() - start)

    for kind, venv in contenders.values():
        if kind == "gym":
            venv.reset(seed=seed)
        else:
            venv.seed(seed)
            venv.reset()
        run(kind, venv, 3)
    rates = {key: [] for key in contenders}
    for _ in range(rounds):
        for key, (kind, venv) in contenders.items():
            n = venv.num_envs
            rates[key].append(run(kind, venv, max(2, block * 2 // n)))  # about the same env steps per block
    for _, venv in contenders.values():
        venv.close()
    result = {key: {"steps_per_s": float(np.median(r)), "blocks": r} for key, r in rates.items()}
    ratios = {}
    for n in sizes:
        ratios[f"n{n}_2t_over_1t"] = result[f"threaded_2t_n{n}"]["steps_per_s"] / result[f"threaded_1t_n{n}"]["steps_per_s"]
        ratios[f"n{n}_2t_over_subproc_2w"] = result[f"threaded_2t_n{n}"]["steps_per_s"] / result["subproc_2w_n2"]["steps_per_s"]
        if f"subproc_{n}w_n{n}" in result:
            ratios[f"n{n}_2t_over_subproc_{n}w"] = result[f"threaded_2t_n{n}"]["steps_per_s"] / result[f"subproc_{n}w_n{n}"]["steps_per_s"]
    result["ratios"] = ratios
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--block", type=int, default=200, help="env steps per timed block (one env)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--vector-block", type=int, default=40, help="about block x 2 env steps per vector block")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 8, 32], help="vector env sizes N")
    parser.add_argument("--robots", nargs="*", default=list(ROBOTS), help="the one-env rows' robots (none: the vector envs alone)")
    parser.add_argument("--env", default=ENV_ID, help=f"the one-env rows' env id (default {ENV_ID}; the vector envs' stays)")
    parser.add_argument("--no-vector", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=str(RESULTS / "physics_loop.json"))
    args = parser.parse_args(argv)
    settings = vars(args).copy()
    start_machine = machine()
    results: dict = {"single": {}}
    for robot in args.robots:
        row = results["single"][robot] = single_env(robot, args.block, args.rounds, args.seed, args.env)
        limit = row["limit"]
        print(f"{robot}: env steps/s (resets counted) wbc compiled {row['wbc_compiled']['steps_per_s']:.0f}, python {row['wbc_python']['steps_per_s']:.0f}; "
              f"torque compiled {row['torque_compiled']['steps_per_s']:.0f}, python {row['torque_python']['steps_per_s']:.0f}; "
              f"pd compiled {row['pd_compiled']['steps_per_s']:.0f}, python {row['pd_python']['steps_per_s']:.0f}; "
              f"limit {limit['limit_steps_per_s']:.0f} (loop {limit['loop_us_per_env_step']:.0f} + once per env step {limit['hooks_us_per_env_step']:.0f} us), "
              f"compiled wbc without resets {row['wbc_compiled']['steps_per_s_without_resets']:.0f}: "
              f"compiled wbc at {100 * limit['wbc_compiled_share_of_limit']:.0f} % of it ({100 * limit['share_in_own_steps']:.0f} % in the limit env's own steps); wbc/torque cost "
              f"{row['wbc_cost_ratio']['compiled']:.2f}x (python loop {row['wbc_cost_ratio']['python']:.2f}x)")  # fmt: skip
        ticks = row["ticks"]
        print(f"  ticks compiled loop: median {ticks['compiled_loop']['median_us']:.1f} us, p99 {ticks['compiled_loop']['p99_us']:.1f}, "
              f">1 ms per 10k {ticks['compiled_loop']['over_1ms_per_10k']:.1f}; python loop: {ticks['python_loop']['median_us']:.1f}, "
              f"{ticks['python_loop']['p99_us']:.1f}, {ticks['python_loop']['over_1ms_per_10k']:.1f}")  # fmt: skip
    if not args.no_vector:
        results["vector"] = vector = vector_envs(args.vector_block, args.rounds, args.seed, tuple(args.sizes))
        for key, row in vector.items():
            if key != "ratios":
                print(f"  {key:22s} {row['steps_per_s']:7.0f} env steps/s")
        for key, value in vector["ratios"].items():
            print(f"  {key:22s} {value:.2f}x")
    write_json(args.json, settings, results, start_machine)
    return results


if __name__ == "__main__":
    main()
