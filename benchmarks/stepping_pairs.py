"""The stepping law against the ankle-only controller on paired episodes of random pushes.

``HumanoidWBC-v0`` with its default task (the CoM target moves to random goals) and random torso
pushes of U(``--pushes``) N for 0.1 s every U(2, 4) s, nominal controller (zero action), 20-s
episodes; episode ``i`` of both sides is reset with seed ``--seed + i`` (the same pushes, the
same target moves: a paired design). One side runs ``stepping=True``, the other the env as it is;
``--env-kwargs`` adds keywords to both (``{"goal_follows_feet": true}``: goals that move with slid feet).
Per episode: ``fell``, ``com_rmse_m`` (``humanoid_env.episode_metrics.BalanceMetrics``), the steps
the law took, and each push's impulse [N s] and direction with the ankle bound in that direction
(``wbc_layer.capture.capture_bound``) of the state one env step (20 ms) into the push, and
whether the law decided a step within 2 s of its start.

Verdicts, through ``training.comparison``'s one-sided bootstrap bounds (90 %, 20,000 resamples):

- ``--claim no_worse`` (for easy pushes, e.g. U(20, 80) N): the upper bound of the mean paired
  difference stepping - ankle is <= 0 for falls and <= ``--com-margin-m`` (0.001 m) for the CoM
  RMSE; and no step is decided for a push below 80 % of the ankle bound in its direction.
- ``--claim third`` (today's default pushes U(30, 120) N): the stepping side's falls at most a
  third of the ankle-only side's: the upper bound of the mean of ``fell_step - fell_ankle / 3``
  is <= 0.

    python -m benchmarks.stepping_pairs --pushes 20 80 --claim no_worse --episodes 100 --seed 7000
    python -m benchmarks.stepping_pairs --pushes 30 120 --claim third --episodes 100 --seed 8000
"""

from __future__ import annotations

import argparse
import json
import math
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from benchmarks.common import RESULTS, machine, write_json
from humanoid_env.episode_metrics import BalanceMetrics
from training.comparison import Claim, bootstrap_upper_bound, judge
from wbc_layer.capture import capture_bound, support_polygon

CONFIDENCE = 0.9
STEP_WINDOW_S = 2.0
EASY_SHARE = 0.8


def ankle_bound_now(env, direction: np.ndarray) -> float:
    """The ankle bound [N s] along ``direction`` of the env's state now (its CoM state, both soles
    shrunk to the controller's CoP bounds)."""
    d, plant = env.data, env.plant
    polygon = support_polygon(d.site_xpos[plant.sole_sites], d.site_xmat[plant.sole_sites].reshape(-1, 3, 3), *env.description.cop_half_sizes())
    ground = float(d.site_xpos[plant.sole_sites, 2].mean())
    return capture_bound(env.com(), plant.com_velocity(), env.actuation.robot.mass, polygon, direction, ground)


def episode(args: tuple[bool, tuple[float, float], int, str, dict[str, Any]]) -> dict[str, Any]:
    stepping, pushes, seed, robot, env_kwargs = args
    env = gym.make("HumanoidWBC-v0", robot=robot, stepping=stepping or None, push_magnitude_n=pushes, **env_kwargs).unwrapped
    env.reset(seed=seed)
    metrics = BalanceMetrics()
    zero = np.zeros(env.action_space.shape)
    events, previous_force, steps = [], np.zeros(3), 0
    decisions = []
    for _ in range(1000):
        _, reward, terminated, truncated, info = env.step(zero)
        metrics.step(reward, terminated, info)
        force = np.asarray(info["push_force"], dtype=float)
        if np.any(force) and not np.any(previous_force):
            direction = force[:2] / np.linalg.norm(force[:2])
            # the bound of the state one env step (20 ms) into the push: the push has moved it a little
            events.append({"time_s": float(info["time"]), "impulse_ns": float(np.linalg.norm(force[:2])) * env.config["push_duration_s"],
                           "direction_deg": math.degrees(math.atan2(direction[1], direction[0])),
                           "ankle_bound_ns": ankle_bound_now(env, direction)})  # fmt: skip
        previous_force = force
        if stepping:
            taken = info["stepping"]["steps_taken"]
            if taken > steps:
                decisions.append(float(info["time"]))
            steps = taken
        if terminated or truncated:
            break
    for event in events:
        event["stepped"] = any(event["time_s"] - env.dt <= t <= event["time_s"] + STEP_WINDOW_S for t in decisions)
    return {**metrics.result(), "seed": seed, "steps_taken": steps, "pushes": events}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pushes", type=float, nargs=2, default=(30.0, 120.0), help="push magnitude range [N]")
    parser.add_argument("--claim", choices=("no_worse", "third"), required=True)
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=8000)
    parser.add_argument("--robot", default="hubo_lite")
    parser.add_argument("--com-margin-m", type=float, default=0.001)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--env-kwargs", type=json.loads, default={}, help='further gym.make keywords for both sides, as JSON (e.g. \'{"goal_follows_feet": true}\')')
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    start = machine()
    pushes = tuple(args.pushes)
    jobs = [(side, pushes, args.seed + i, args.robot, args.env_kwargs) for side in (False, True) for i in range(args.episodes)]
    with ProcessPoolExecutor(args.workers) as pool:
        records = list(pool.map(episode, jobs, chunksize=4))
    ankle, step = records[: args.episodes], records[args.episodes :]
    falls = (sum(r["fell"] for r in ankle), sum(r["fell"] for r in step))
    results: dict[str, Any] = {"falls_ankle": falls[0], "falls_stepping": falls[1], "episodes": args.episodes,
                               "steps_taken": sum(r["steps_taken"] for r in step)}  # fmt: skip
    if args.claim == "no_worse":
        verdict = judge(ankle, step, Claim("com_rmse_m", args.com_margin_m, 0.0, CONFIDENCE))
        easy = [p for r in step for p in r["pushes"] if p["impulse_ns"] < EASY_SHARE * p["ankle_bound_ns"]]
        easy_steps = sum(p["stepped"] for p in easy)
        results.update(verdict=verdict.as_dict(), easy_pushes=len(easy), easy_pushes_stepped=easy_steps,
                       passed=bool(verdict.passed and easy_steps == 0))  # fmt: skip
        print(verdict.summary())
        print(f"pushes below {EASY_SHARE:.0%} of the ankle bound: {len(easy)}, answered by a step: {easy_steps}")
    else:
        differences = [float(s["fell"]) - float(a["fell"]) / 3.0 for a, s in zip(ankle, step, strict=True)]
        upper = bootstrap_upper_bound(differences, CONFIDENCE)
        results.update(third_upper_bound=upper, passed=bool(upper <= 0.0))
        print(f"upper {CONFIDENCE:.0%} bound of mean(fell_step - fell_ankle / 3): {upper:+.3f} (claim: <= 0)")
    print(f"falls: ankle {falls[0]} / stepping {falls[1]} of {args.episodes}; steps taken {results['steps_taken']}; passed {results['passed']}")
    path = args.json or RESULTS / f"stepping_pairs_{args.claim}.json"
    write_json(path, vars(args) | {"json": str(path), "pushes": list(pushes)}, {**results, "ankle": ankle, "stepping": step}, start)


if __name__ == "__main__":
    main()
