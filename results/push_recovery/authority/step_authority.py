"""How much can the `step` action change the outcome of a push the nominal law falls to?

Stepping II (issue 38): PPO through the law's `step` action has not improved on the law. Is there
something to find? For each episode of the nominal law (zero action) that falls, the env is copied
just before the env step in which the last push before the fall began, and the rest of that push
is run again from the copy under each adjustment of a grid (the `step` block held constant,
everything else zero) and under as many small random perturbations of the `step` block (Gaussian,
std `--noise`, drawn anew at each env step: what chance alone does to a chaotic rollout). A push is
survived when the robot has not fallen by the next push's start or `--window` s after this one's,
whichever is first.

    python results/push_recovery/authority/step_authority.py --seeds 5000 5049 --json results/push_recovery/authority/hubo_lite_5000.json

Deterministic on one machine: the copy's zero-action continuation is checked to fall as the
original did.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import time

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the envs)
from training.jsonio import write_json

ENV_ID = "HumanoidWBCPushRecovery-v0"
GRID = (-1.0, 0.0, 1.0)


def run_law(seed: int, robot: str, max_steps: int) -> tuple[list[int], int | None]:
    """The nominal law's episode: the env steps in which pushes began, and the step it fell at (None)."""
    env = gym.make(ENV_ID, robot=robot).unwrapped
    env.reset(seed=seed)
    zero = np.zeros(env.action_space.shape)
    starts, total = [], 0
    for j in range(max_steps):
        _, _, terminated, truncated, info = env.step(zero)
        if info["pushes_total"] > total:
            total = info["pushes_total"]
            starts.append(j)
        if info["fell"]:
            return starts, j
        if terminated or truncated:
            break
    return starts, None


def copy_before(seed: int, robot: str, step: int):
    """The env of the law's episode ``seed`` just before its env step ``step`` (run again: deterministic)."""
    env = gym.make(ENV_ID, robot=robot).unwrapped
    env.reset(seed=seed)
    zero = np.zeros(env.action_space.shape)
    for _ in range(step):
        env.step(zero)
    return env


def survives(start_env, actions, horizon: int) -> bool:
    """Whether a copy of ``start_env`` runs ``horizon`` env steps under ``actions(j)`` without falling."""
    env = copy.deepcopy(start_env)
    for j in range(horizon):
        _, _, terminated, truncated, info = env.step(actions(j))
        if info["fell"]:
            return False
        if terminated or truncated:
            return True
    return True


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs=2, default=(5000, 5049), help="first and last seed")
    parser.add_argument("--robot", default="hubo_lite")
    parser.add_argument("--window", type=float, default=3.0, help="[s] after the push's start")
    parser.add_argument("--noise", type=float, default=0.02, help="std of the random perturbations of the step block")
    parser.add_argument("--json", required=True)
    args = parser.parse_args(argv)
    probe = gym.make(ENV_ID, robot=args.robot).unwrapped
    probe.reset(seed=0)
    step_block = probe.actuation.index("step")
    n_action, dt = probe.action_space.shape[0], probe.dt
    max_steps = int(round(20.0 / dt))
    grid = [np.array(g) for g in itertools.product(GRID, GRID, GRID, GRID) if any(g)]
    rng = np.random.default_rng(0)
    records, started = [], time.perf_counter()
    for seed in range(args.seeds[0], args.seeds[1] + 1):
        starts, fell_at = run_law(seed, args.robot, max_steps)
        if fell_at is None:
            records.append({"seed": seed, "fell": False})
            continue
        push = max(s for s in starts if s <= fell_at)
        later = [s for s in starts if s > push]
        horizon = min(int(round(args.window / dt)), (later[0] if later else max_steps) - push)
        start_env = copy_before(seed, args.robot, push)

        def held(block):
            action = np.zeros(n_action)
            action[step_block] = block
            return lambda j: action

        law_survives = survives(start_env, held(np.zeros(4)), horizon)
        grid_saves = [bool(survives(start_env, held(g), horizon)) for g in grid]
        noise_saves = []
        for _ in range(len(grid)):
            draws = rng.normal(0.0, args.noise, size=(horizon, 4))

            def noisy(j, draws=draws):
                action = np.zeros(n_action)
                action[step_block] = draws[j]
                return action

            noise_saves.append(bool(survives(start_env, noisy, horizon)))
        records.append({
            "seed": seed, "fell": True, "fell_at_step": fell_at, "push_step": push, "horizon_steps": horizon,
            "push_fell_again_from_copy": not law_survives,
            "grid_saves": int(sum(grid_saves)), "noise_saves": int(sum(noise_saves)),
            "saving_adjustments": [g.tolist() for g, s in zip(grid, grid_saves, strict=True) if s],
        })  # fmt: skip
        print(f"seed {seed}: fell at {fell_at}, push at {push}, horizon {horizon}; the copy falls again: {not law_survives}; "
              f"saved by {sum(grid_saves)} of {len(grid)} adjustments, by {sum(noise_saves)} of {len(grid)} perturbations "
              f"({time.perf_counter() - started:.0f} s)", flush=True)  # fmt: skip
    falls = [r for r in records if r["fell"]]
    summary = {
        "episodes": len(records), "falls": len(falls),
        "falls_some_adjustment_saves": sum(r["grid_saves"] > 0 for r in falls),
        "falls_some_perturbation_saves": sum(r["noise_saves"] > 0 for r in falls),
        "mean_share_of_adjustments_saving": float(np.mean([r["grid_saves"] / len(grid) for r in falls])) if falls else None,
        "mean_share_of_perturbations_saving": float(np.mean([r["noise_saves"] / len(grid) for r in falls])) if falls else None,
    }  # fmt: skip
    print(summary)
    write_json(args.json, {"env": ENV_ID, "robot": args.robot, "settings": vars(args), "grid": [g.tolist() for g in grid],
                           "summary": summary, "records": records})  # fmt: skip


if __name__ == "__main__":
    main()
