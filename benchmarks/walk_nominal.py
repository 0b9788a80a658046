"""Nominal walking in MuJoCo: the walking generator and the whole-body controller, zero action.

A scripted start and stop (issue 39, Walking I): ``HumanoidWBCWalk-v0`` standing still, its
walking stage ([`WalkingStage`][humanoid_env.envs.walking.WalkingStage]) handed one velocity
command from 1 s to 10 s, then zero again (the stop), standing to 14 s: the start and the stop at
known times, where the env draws its own. It prints whether the robot fell, the mean velocity while walking (2.5-9.5 s) and after
the stop (CoM x, y [m/s] and the pelvis's yaw rate [rad/s]), the steps and their touch-downs. Results: ``results/walking/README.md``.

    python -m benchmarks.walk_nominal --robot hubo_lite --command 0.2 0 0
"""

from __future__ import annotations

import argparse
import dataclasses
import json

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the envs)
from humanoid_env.scenarios import NO_PUSHES
from wbc_layer.walking import GaitSettings, WalkCommand

ENV_ID = "HumanoidWBCWalk-v0"
#: Longer than any run: the env draws no new command of its own.
NO_REDRAW_S = 1e6


def walking_env(robot: str, gait: GaitSettings):
    """``HumanoidWBCWalk-v0`` (wbc mode, pushes off) standing still until told otherwise: its own
    command draws stay zero (``standing_probability`` 1, no new draw within an episode), so the
    run's commands are the ones handed to its walking stage."""
    return gym.make(ENV_ID, robot=robot, gait=dataclasses.asdict(gait), standing_probability=1.0,
                    command_interval_s=(NO_REDRAW_S, NO_REDRAW_S), **NO_PUSHES).unwrapped  # fmt: skip


def walk(robot: str, command: WalkCommand, gait: GaitSettings, seed: int = 0) -> dict:
    """One 14-s run (see the module docstring)."""
    env = walking_env(robot, gait)
    env.reset(seed=seed)
    walker = env.task.walker
    action = np.zeros(env.action_space.shape)
    times, coms, yaws, fell_at = [], [], [], None
    for k in range(50 * 14):
        if k == 50:
            walker.set_command(command)
        if k == 50 * 10:
            walker.set_command(WalkCommand())
        _, _, terminated, _, info = env.step(action)
        times.append(float(env.plant.data.time))
        coms.append(env.plant.com().copy())
        R = env.plant.base_rotation(env.plant.data)
        yaws.append(float(np.arctan2(R[1, 0], R[0, 0])))
        if terminated:
            fell_at = times[-1]
            break
    t, c = np.array(times), np.array(coms)
    c[:, 2] = np.unwrap(np.array(yaws))  # the third entry: the pelvis's yaw [rad]

    def mean_velocity(t0: float, t1: float) -> list[float] | None:
        """CoM x, y [m/s] and the pelvis's yaw rate [rad/s], mean over [t0, t1)."""
        m = (t >= t0) & (t < t1)
        return None if m.sum() < 3 else [round(float(x), 4) for x in (c[m][-1] - c[m][0]) / (t[m][-1] - t[m][0])]

    g = walker.generator
    return {
        "robot": robot,
        "command": command.as_array().tolist(),
        "steps_clipped": g.clipped_steps,
        "fell_at_s": fell_at,
        "mean_velocity_walking": mean_velocity(2.5, 9.5),
        "mean_velocity_after_stop": mean_velocity(10.5, 14.0),
        "steps": g.steps_taken,
        "touch_downs": {kind: g.touch_downs.count(kind) for kind in sorted(set(g.touch_downs))},
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="hubo_lite")
    parser.add_argument("--command", type=float, nargs=3, default=(0.2, 0.0, 0.0), metavar=("FORWARD", "LATERAL", "YAW_RATE"))
    parser.add_argument("--gait", default="{}", help="GaitSettings fields as JSON")
    args = parser.parse_args(argv)
    print(walk(args.robot, WalkCommand(*args.command), GaitSettings(**json.loads(args.gait))))


if __name__ == "__main__":
    main()
