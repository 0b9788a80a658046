"""``HumanoidWBCSquare-v0``: stand on flat ground while the CoM target traces a square.

The smallest task, and the example of how one is added (``docs/architecture.md``): a config,
a [`Task`][humanoid_env.envs.task.Task] subclass that only sets its command, an env class, a registry
entry. The command is a trajectory segment ([`SquarePath`][humanoid_env.envs.square.SquarePath]) the CoM
target follows; the env samples it at every physics step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from humanoid_env.envs.base import BASE_DEFAULTS, HumanoidWBCBaseEnv
from humanoid_env.envs.configs import PartConfig
from humanoid_env.envs.kwargs import check_scalar
from humanoid_env.envs.task import Task
from wbc_layer.references import Segment

#: Largest accepted side of the square [m] (the feet span about 0.2 m x 0.26 m).
MAX_SQUARE_SIDE_M = 0.1

SQUARE_DEFAULTS: dict[str, Any] = {
    **BASE_DEFAULTS,
    "square_side_m": 0.03,
    "square_lap_s": 8.0,
}


@dataclass(frozen=True)
class SquareTaskConfig(PartConfig):
    """The square task's keywords.

    Attributes:
        square_side_m: side of the square [m], in (0, 0.1].
        square_lap_s: time of one lap [s], > 0 (the target's speed is ``4 side / lap``).
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = ("square_side_m", "square_lap_s")

    square_side_m: float
    square_lap_s: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "square_side_m", check_scalar("square_side_m", self.square_side_m, 0.0, MAX_SQUARE_SIDE_M, strict_low=True))
        object.__setattr__(self, "square_lap_s", check_scalar("square_lap_s", self.square_lap_s, 0.0, strict_low=True))


class SquarePath(Segment):
    """A square of side ``side`` [m] in the horizontal plane, centred on ``centre`` (3,) [m],
    traced counter-clockwise at constant speed, one lap every ``lap_s`` [s], starting at the
    centre of its -y side at time 0 (so the target starts at the centre's x, 0.5 side to the
    right)... in x, y: corners at ``centre +- side / 2``."""

    def __init__(self, centre: np.ndarray, side: float, lap_s: float):
        self.centre, self.side, self.lap_s = np.array(centre, dtype=float), float(side), float(lap_s)
        half = 0.5 * self.side
        #: the corners in order (counter-clockwise from the -x, -y one), (4, 2) [m] from the centre.
        self.corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        self.speed = 4.0 * self.side / self.lap_s

    def sample(self, t: float, position: np.ndarray, velocity: np.ndarray) -> None:
        phase = (t / self.lap_s) % 1.0 * 4.0  # sides travelled, in [0, 4)
        side = min(int(math.floor(phase)), 3)
        start, end = self.corners[side], self.corners[(side + 1) % 4]
        along = phase - side
        position[:] = self.centre
        position[:2] += start + along * (end - start)
        velocity[:] = 0.0
        velocity[:2] = (end - start) / self.side * self.speed


class SquareTask(Task):
    """The CoM target traces a square around the nominal CoM (see
    [`HumanoidSquareEnv`][humanoid_env.envs.square.HumanoidSquareEnv])."""

    env_id = "HumanoidWBCSquare-v0"
    name = "square"
    config_type = SquareTaskConfig

    def reset(self, rng: np.random.Generator) -> None:
        super().reset(rng)
        path = SquarePath(self.plant.com_nominal, self.config.square_side_m, self.config.square_lap_s)
        self.command.com_target.follow(path)
        self.command.com_target.evaluate(0.0)
        self.command.com_goal = self.command.com_target.position.copy()

    def info(self, nonfinite: bool, drives_controller: bool) -> dict[str, Any]:
        return {"com_goal": self.command.com_target.position.copy()}


class HumanoidSquareEnv(HumanoidWBCBaseEnv):
    """Stand on flat ground while the CoM target traces a square (a small task: the example of
    adding one, see ``docs/architecture.md``).

    Everything is as in [`humanoid_env.envs.balance.HumanoidBalanceEnv`][humanoid_env.envs.balance.HumanoidBalanceEnv]
    (robot, action modes, observation, reward terms, pushes, termination, info) except the CoM
    target: it moves counter-clockwise along a horizontal square of side ``square_side_m`` =
    0.03 m centred on the nominal CoM at constant speed, one lap every ``square_lap_s`` = 8 s
    (15 mm/s), starting at the corner at (-side/2, -side/2) from the centre.
    ``info["com_goal"]`` is the target itself. 20 s episodes (1000 steps).

    ## Version history

    - 2026-12-02: new.
    """

    task_type = SquareTask
    DEFAULTS = SQUARE_DEFAULTS
    env_name = "HumanoidWBCSquare-v0"
