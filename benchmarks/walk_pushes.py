"""Lateral pushes while walking: the largest impulse the nominal generator survives, against standing's stepping envelope.

``HumanoidWBCWalk-v0`` (wbc mode, zero action, random pushes off) walks ``fixed_command``
(``--speed`` = 0.3 m/s forward, the issue's) and is pushed once on the torso, sideways (90 deg:
to the left, 270 deg: to the right), for 0.1 s at 4 s plus a replica's offset in the gait cycle
(0, 1/4, 1/2 and 3/4 of the step period the generator walks that speed with: 0.521 s on
Hubo-lite, 0.6 s on the G1). Survived: no fall within 5 s of the push. Each impulse of a 1 N s grid
is tried by every replica; the survived impulse is the largest level that at least 3 of 4
replicas survive with every lower level passing too (the stepping envelope's rule,
``benchmarks.step_envelope``).

The reference: standing's envelope with the stepping law, sideways, from
``results/stepping/step_envelope.json`` (Hubo-lite centre stance: 14 N s at 90 and 270 deg);
the issue's target is at least 80 % of it.

    python -m benchmarks.walk_pushes [--robots hubo_lite g1] [--speed 0.3] [--max-impulse 20]
        [--workers 2] [--json results/walking/walk_pushes.json]

``--workers``: a level's replicas run in that many processes (each trial is a fresh env and
deterministic, so the verdicts do not depend on it; 2 workers halve the time on 2 cores).
"""

from __future__ import annotations

import argparse
import json
from itertools import starmap
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the envs)
from benchmarks.common import RESULTS, machine, write_json
from benchmarks.push_envelope import ScriptedPush
from humanoid_env.robots import ROBOTS
from wbc_layer.walking import FootstepPlanner, GaitSettings, WalkCommand

ENV_ID = "HumanoidWBCWalk-v0"
PUSH_TIME_S = 4.0
PUSH_DURATION_S = 0.1
SURVIVAL_S = 5.0
#: The replicas' offsets in the gait cycle, as shares of the step period.
PHASES = (0.0, 0.25, 0.5, 0.75)
#: A level is passed when at least this many of the replicas survive it.
PASS_REPLICAS = 3


def trial(robot: str, speed: float, direction_deg: float, impulse_ns: float, phase_s: float, gait: dict | None = None) -> bool:
    """Whether one push is survived (see the module docstring)."""
    env = gym.make(ENV_ID, robot=robot, fixed_command=(speed, 0.0, 0.0), gait=gait).unwrapped
    angle = np.radians(direction_deg)
    force = np.array([np.cos(angle), np.sin(angle), 0.0]) * impulse_ns / PUSH_DURATION_S
    env.plant.pushes = ScriptedPush(force, PUSH_TIME_S + phase_s, PUSH_DURATION_S, env.dt_physics)
    env.reset(seed=0)
    zero = np.zeros(env.action_space.shape)
    end = PUSH_TIME_S + phase_s + SURVIVAL_S
    while env.data.time < end:
        _, _, terminated, _, _ = env.step(zero)
        if terminated:
            return False
    return True


def step_period_s(robot: str, speed: float) -> float:
    """The step period [s] the default gait walks ``speed`` forward with on ``robot``."""
    planner = FootstepPlanner(ROBOTS[robot]().step_limits(), GaitSettings())
    return float(sum(planner.step_timing(WalkCommand(speed, 0.0, 0.0))))


def envelope(robot: str, speed: float, direction_deg: float, max_impulse: int, gait: dict | None = None,
             pool: Pool | None = None) -> dict[str, Any]:  # fmt: skip
    """The survived impulse [N s] in one direction, with each level's survivors (a level's
    replicas in ``pool``'s processes where given)."""
    levels: dict[int, int] = {}
    survived = 0
    period = step_period_s(robot, speed)
    for impulse in range(1, max_impulse + 1):
        jobs = [(robot, speed, direction_deg, float(impulse), share * period, gait) for share in PHASES]
        passed = sum(pool.starmap(trial, jobs) if pool is not None else starmap(trial, jobs))
        levels[impulse] = passed
        if passed < PASS_REPLICAS:
            break
        survived = impulse
    return {"survived_ns": survived, "levels": levels}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="+", default=["hubo_lite", "g1"])
    parser.add_argument("--speed", type=float, default=0.3)
    parser.add_argument("--max-impulse", type=int, default=20)
    parser.add_argument("--json", type=Path, default=RESULTS / "walk_pushes.json")
    parser.add_argument("--gait", type=json.loads, default=None, help="GaitSettings fields as JSON (the env's gait keyword)")
    parser.add_argument("--directions", type=float, nargs="+", default=[90.0, 270.0])
    parser.add_argument("--workers", type=int, default=1, help="processes for a level's replicas")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    machine_start = machine()
    out: dict[str, Any] = {}
    pool = Pool(args.workers) if args.workers > 1 else None
    try:
        for robot in args.robots:
            out[robot] = {}
            for direction in args.directions:
                result = envelope(robot, args.speed, direction, args.max_impulse, args.gait, pool)
                out[robot][f"{direction:g}"] = result | {"step_period_s": step_period_s(robot, args.speed)}
                print(f"{robot:9s} {direction:5.0f} deg: survived {result['survived_ns']} N s; survivors per level {result['levels']}")
    finally:
        if pool is not None:
            pool.close()
    write_json(args.json, {"robots": args.robots, "speed_mps": args.speed, "gait": args.gait, "phases": PHASES, "push_time_s": PUSH_TIME_S,
                           "duration_s": PUSH_DURATION_S, "survival_s": SURVIVAL_S}, out, machine_start)  # fmt: skip


if __name__ == "__main__":
    main()
