"""The ankle-only margin along a walking gait: the sideways impulse the feet could still absorb at each instant.

``HumanoidWBCWalk-v0`` (wbc mode, zero action, pushes off) walks ``fixed_command`` 0.3 m/s
forward (``benchmarks.walk_pushes``' speed); over one stride from 4 s, at every env step, the
capture point's lateral position ``xi = c_y + v_y / omega`` (``omega = sqrt(g / h)``, ``h`` the
CoM's height above the soles) is compared with the outer edges of the soles that carry weight
(normal force above 20 N; the soles' half width, the walking robot's heading along x). The margin
to the left is ``m omega (left edge - xi)`` [N s]: the impulse of a sideways push to the left that
would put the capture point on the left-most loaded sole's outer edge, where no CoP under the
feet can bring it back (the linear inverted pendulum; no step, no angular momentum). Likewise to
the right. The gait's sway spends this margin: in single support the capture point must lie on the
stance sole's inner side for the CoM to come back, so a push toward the stance foot has the least
room just after lift-off.

    python -m benchmarks.walk_margin [--robots hubo_lite g1] [--gait '{"cop_inset_share": 0}']

Prints each env step's margins and, per robot, the least margin in each direction against 80 %
of standing's stepping envelope (``benchmarks.walk_pushes``' reference).
"""

from __future__ import annotations

import argparse
import json

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the envs)
from benchmarks.walk_pushes import PUSH_TIME_S, step_period_s
from humanoid_env.scenarios import NO_PUSHES
from wbc_layer.capture import capture_point, pendulum_frequency

#: Standing's stepping envelope sideways [N s] (``results/stepping``), the walk target's reference.
STANDING_ENVELOPE_NS = {"hubo_lite": 14.0, "g1": 16.0}
#: A sole carries weight above this normal force [N].
LOADED_N = 20.0
SPEED_MPS = 0.3


def margins(robot: str, gait: dict | None = None) -> list[tuple[float, str, float, float]]:
    """Per env step over one stride from ``PUSH_TIME_S``: (phase in steps, loaded soles ("L",
    "R", "LR"), margin to the left, margin to the right [N s])."""
    env = gym.make("HumanoidWBCWalk-v0", robot=robot, fixed_command=(SPEED_MPS, 0.0, 0.0), gait=gait, **NO_PUSHES).unwrapped
    env.reset(seed=0)
    plant = env.plant
    mass = float(plant.model.body_subtreemass[plant.root_body])
    half_width = float(env.task.description.cop_half_sizes()[1])
    period = step_period_s(robot, SPEED_MPS)
    zero = np.zeros(env.action_space.shape)
    rows = []
    while env.data.time < PUSH_TIME_S + 2.0 * period:
        env.step(zero)
        if env.data.time < PUSH_TIME_S:
            continue
        com, velocity = plant.com(), plant.com_velocity()
        soles = plant.data.site_xpos[plant.sole_sites]
        ground = soles[:, 2].mean()
        omega = pendulum_frequency(com, ground)
        capture = capture_point(com, velocity, ground)[1]
        loaded = [i for i, force in enumerate(plant.contact_forces().values()) if np.linalg.norm(force) > LOADED_N]
        left_edge = max(soles[i, 1] + half_width for i in loaded)
        right_edge = min(soles[i, 1] - half_width for i in loaded)
        rows.append(((env.data.time - PUSH_TIME_S) / period, "".join("LR"[i] for i in loaded),
                     mass * omega * (left_edge - capture), mass * omega * (capture - right_edge)))  # fmt: skip
    env.close()
    return rows


def least_margins(rows: list[tuple[float, str, float, float]]) -> tuple[float, float]:
    """The least margin [N s] to the left while the left sole is loaded and to the right while the
    right one is (``margins``' rows): toward a loaded sole only, since a push toward the swinging
    foot's side is a stepping matter."""
    left = min(row[2] for row in rows if "L" in row[1])
    right = min(row[3] for row in rows if "R" in row[1])
    return left, right


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="+", default=["hubo_lite", "g1"])
    parser.add_argument("--gait", type=json.loads, default=None, help="GaitSettings fields as JSON, over the robot's defaults")
    args = parser.parse_args(argv)
    for robot in args.robots:
        rows = margins(robot, args.gait)
        for phase, loaded, left, right in rows:
            print(f"{robot:9s} step {phase:5.2f} loaded {loaded:2s} margin left {left:6.2f} N s, right {right:6.2f} N s")
        target = 0.8 * STANDING_ENVELOPE_NS.get(robot, float("nan"))
        left, right = least_margins(rows)
        print(f"{robot:9s} least margin toward a loaded sole: left {left:.2f} N s, right {right:.2f} N s (80 % of standing's "
              f"stepping envelope: {target:.1f} N s)")  # fmt: skip


if __name__ == "__main__":
    main()
