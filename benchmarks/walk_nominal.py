"""Nominal walking in MuJoCo: the walking generator and the whole-body controller, zero action.

A scripted start and stop (issue 39, Walking I): the balance task (pushes off, a fixed CoM
target) with its reference chain ending in a
[`WalkingStage`][humanoid_env.envs.walking.WalkingStage], walking one velocity command from 1 s
to 10 s, then stopping (the command back to zero) and standing to 14 s. (``HumanoidWBCWalk-v0``
draws its commands instead; this harness keeps the start and the stop at known times.) It prints whether the robot fell, the mean velocity while walking (2.5-9.5 s) and after
the stop (CoM x, y [m/s] and the pelvis's yaw rate [rad/s]), the steps and their touch-downs. Results: ``results/walking/README.md``.

    python -m benchmarks.walk_nominal --robot hubo_lite --command 0.2 0 0
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from humanoid_env.envs.balance import BalanceTask, HumanoidBalanceEnv
from humanoid_env.envs.walking import WalkingStage, walking_swing_tasks
from wbc_layer.walking import GaitSettings, WalkCommand, WalkingGenerator


def walking_env(robot: str, gait: GaitSettings) -> HumanoidBalanceEnv:
    """The balance env with the walking stage in its reference chain (wbc mode)."""

    class WalkPrototypeTask(BalanceTask):
        def reference_stages(self, wbc, blocks):
            plant = self.plant
            height = float(plant.com_nominal[2] - plant.data.site_xpos[plant.sole_sites, 2].mean())
            generator = WalkingGenerator(self.description.step_limits(), self.description.cop_half_sizes(), height, gait,
                                         max_normal_force_n=self.weight_n)  # fmt: skip
            self.walker = WalkingStage(plant, generator, plant.com_nominal)
            return [], [self.walker]

        def controller_setup(self, robot_model, wbc):
            setup = super().controller_setup(robot_model, wbc)
            setup.added_tasks = tuple(walking_swing_tasks(self.description))
            setup.tasks = (*setup.tasks, "torso")  # the stage turns the torso with the feet
            return setup

        def planned_contacts(self):
            return self.walker.planned_contacts()

    class WalkPrototypeEnv(HumanoidBalanceEnv):
        task_type = WalkPrototypeTask

    return WalkPrototypeEnv(robot=robot, push_magnitude_n=(0.0, 0.0), com_target_range_m=(0.0, 0.0, 0.0))


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
