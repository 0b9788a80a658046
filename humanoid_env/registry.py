"""The task registry: one [`TaskEntry`][humanoid_env.registry.TaskEntry] per task, the one place that says what a task is.

A task is named by its Gymnasium env id (``HumanoidWBC-v0``). Its entry holds its registration
(entry point, episode length), its short name (the benchmarks' ``--envs``), a one-line summary of
its contact set, its episode-metrics class, the task metric of the sample-efficiency level, and its
scripted scenarios. Whoever needs one of these iterates [`TASKS`][humanoid_env.registry.TASKS] or looks a task up with
[`task_entry`][humanoid_env.registry.task_entry], instead of keeping a table per env id:

- ``humanoid_env`` registers every task with Gymnasium ([`register_environments`][humanoid_env.registry.register_environments]);
- [`humanoid_env.scenarios.SCENARIOS`][humanoid_env.scenarios.SCENARIOS] and ``make_scenario``: the scenarios;
- ``training.metrics`` (``METRICS``, ``metrics_for``): the metrics classes;
- ``training.sample_efficiency.LEVEL_METRIC``: the level metrics;
- ``benchmarks.common`` (``ENV_IDS``, ``ENVS``) and the benchmarks: the ids, names and summaries.

What belongs to training a shipped policy (its claim, check protocol and table in
``training.shipped``, the probes of ``training.probes``) stays in ``training``, keyed by env id and
checked against [`TASKS`][humanoid_env.registry.TASKS] when imported.

This module imports numpy alone (through the metrics classes), so that the envs, the controller and
the scenarios need not load to read it: [`register_environments`][humanoid_env.registry.register_environments] imports gymnasium when
called (``import humanoid_env`` calls it), a scenario factory its scenario module when called.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from humanoid_env.episode_metrics import (
    BalanceMetrics,
    EpisodeMetrics,
    PushRecoveryMetrics,
    SeesawMetrics,
    WalkMetrics,
    WallMetrics,
)

if TYPE_CHECKING:
    from humanoid_env.scenarios.base import Scenario


class LevelMetric(NamedTuple):
    """The task metric of the nominal controller's level in ``training.sample_efficiency`` (lower is better)."""

    key: str
    """The episode metric (a key of the task's metrics ``result()``), e.g. ``com_rmse_m`` [m]."""
    label: str
    """Its name in tables and plots, with the unit shown, e.g. ``CoM RMSE [mm]``."""
    scale: float
    """Factor from the metric's unit to the label's, e.g. 1e3 (m -> mm)."""


@dataclass(frozen=True)
class TaskEntry:
    """What the project knows about one task, apart from training a policy on it."""

    env_id: str
    """Gymnasium env id, e.g. ``HumanoidWBC-v0`` (a contract: configs, run folders and shipped policies name it)."""
    name: str
    """Short name, e.g. ``balance`` (the benchmarks' ``--envs`` take it)."""
    entry_point: str
    """Gymnasium entry point, ``module:class``, e.g. ``humanoid_env.humanoid_wbc:HumanoidBalanceEnv``."""
    max_episode_steps: int
    """Episode length [env steps] (Gymnasium's ``TimeLimit``; 50 env steps per second)."""
    summary: str
    """One line: the contact set the controller balances on, e.g. ``two feet + right hand (wall)``."""
    metrics: type[EpisodeMetrics]
    """The episode-metrics class ([`humanoid_env.episode_metrics`][humanoid_env.episode_metrics]) of an evaluation."""
    level_metric: LevelMetric
    """The task metric of the sample-efficiency level (a plain ``(key, label, scale)`` triple is converted)."""
    scenarios: Mapping[str, Callable[[], Scenario]] = field(default_factory=dict, hash=False)
    """Scripted scenarios: variant name -> zero-argument factory; the first is the default (empty: none).
    Read-only; a factory imports its scenario module when called."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "level_metric", LevelMetric(*self.level_metric))
        object.__setattr__(self, "scenarios", MappingProxyType(dict(self.scenarios)))


TASKS: dict[str, TaskEntry] = {}
"""Env id -> its entry, in registration order (balance, wall, seesaw); filled by [`register_task`][humanoid_env.registry.register_task]."""


def register_task(entry: TaskEntry) -> None:
    """Add ``entry`` to [`TASKS`][humanoid_env.registry.TASKS]; ``ValueError`` naming the clash if its env id or its name is taken."""
    if entry.env_id in TASKS:
        raise ValueError(f"task {entry.env_id!r} is already registered")
    for other in TASKS.values():
        if other.name == entry.name:
            raise ValueError(f"task name {entry.name!r} of {entry.env_id!r} is already taken by {other.env_id!r}")
    TASKS[entry.env_id] = entry


def task_entry(env_id: str) -> TaskEntry:
    """The entry of ``env_id`` (a ``"humanoid_env:"`` prefix allowed); ``ValueError`` naming the registered ids."""
    try:
        return TASKS[env_id.split(":")[-1]]
    except KeyError:
        raise ValueError(f"unknown task {env_id!r}; registered: {', '.join(TASKS)}") from None


def check_task_ids(env_ids: Iterable[str], where: str) -> None:
    """``ValueError`` naming ``where`` and those of ``env_ids`` that are not registered tasks (without
    prefix): the check of a table keyed by env id that lives outside the registry."""
    unknown = [env_id for env_id in env_ids if env_id not in TASKS]
    if unknown:
        raise ValueError(f"{where}: unknown task(s) {', '.join(unknown)}; registered: {', '.join(TASKS)}")


def register_environments() -> None:
    """Register every task of [`TASKS`][humanoid_env.registry.TASKS] with Gymnasium (id, entry point, episode length,
    and the vector entry point: ``gym.make_vec`` gives a [`ThreadedVectorEnv`][humanoid_env.vector.ThreadedVectorEnv]),
    except those Gymnasium holds already (importing ``humanoid_env`` again registers nothing twice)."""
    from functools import partial

    import gymnasium

    from humanoid_env.vector import make_threaded_vector_env

    for entry in TASKS.values():
        if entry.env_id not in gymnasium.registry:
            gymnasium.register(
                id=entry.env_id, entry_point=entry.entry_point, max_episode_steps=entry.max_episode_steps,
                vector_entry_point=partial(make_threaded_vector_env, entry.env_id),
            )  # fmt: skip


def _contact_switch(ramp: bool) -> Scenario:
    from humanoid_env.scenarios.contact_switch import ContactSwitchScenario

    return ContactSwitchScenario(ramp=ramp)


def _wall_lean() -> Scenario:
    from humanoid_env.scenarios.wall_lean import WallLeanScenario

    return WallLeanScenario()


def _seesaw_push() -> Scenario:
    from humanoid_env.scenarios.seesaw import SeesawPushScenario

    return SeesawPushScenario()


def _seesaw_sine() -> Scenario:
    from humanoid_env.scenarios.seesaw import SeesawSineScenario

    return SeesawSineScenario()


register_task(
    TaskEntry(
        env_id="HumanoidWBC-v0",
        name="balance",
        entry_point="humanoid_env.humanoid_wbc:HumanoidBalanceEnv",
        max_episode_steps=1000,
        summary="two feet",
        metrics=BalanceMetrics,
        level_metric=LevelMetric("com_rmse_m", "CoM RMSE [mm]", 1e3),
        scenarios={"ramp": lambda: _contact_switch(ramp=True), "abrupt": lambda: _contact_switch(ramp=False)},
    )
)
register_task(
    TaskEntry(
        env_id="HumanoidWBCWall-v0",
        name="wall",
        entry_point="humanoid_env.humanoid_wbc:HumanoidWallEnv",
        max_episode_steps=1000,
        summary="two feet + right hand (wall)",
        metrics=WallMetrics,
        level_metric=LevelMetric("hand_force_rmse_n", "hand-force RMSE [N]", 1.0),
        scenarios={"lean": _wall_lean},
    )
)
register_task(
    TaskEntry(
        env_id="HumanoidWBCSeesaw-v0",
        name="seesaw",
        entry_point="humanoid_env.humanoid_wbc:HumanoidSeesawEnv",
        max_episode_steps=1500,
        summary="two feet on the seesaw",
        metrics=SeesawMetrics,
        level_metric=LevelMetric("board_angle_rms_rad", "board tilt RMS [mrad]", 1e3),
        scenarios={"push": _seesaw_push, "sine": _seesaw_sine},
    )
)
register_task(
    TaskEntry(
        env_id="HumanoidWBCSquare-v0",
        name="square",
        entry_point="humanoid_env.humanoid_wbc:HumanoidSquareEnv",
        max_episode_steps=1000,
        summary="two feet, CoM target on a square",
        metrics=BalanceMetrics,
        level_metric=LevelMetric("com_rmse_m", "CoM RMSE [mm]", 1e3),
        scenarios={},
    )
)
register_task(
    TaskEntry(
        env_id="HumanoidWBCWalk-v0",
        name="walk",
        entry_point="humanoid_env.humanoid_wbc:HumanoidWalkEnv",
        max_episode_steps=1000,
        summary="two feet, stepping (walking generator)",
        metrics=WalkMetrics,
        level_metric=LevelMetric("stride_velocity_rms_mps", "stride-averaged velocity error RMS [m/s]", 1.0),
        scenarios={},
    )
)

register_task(
    TaskEntry(
        env_id="HumanoidWBCPushRecovery-v0",
        name="push_recovery",
        entry_point="humanoid_env.humanoid_wbc:HumanoidPushRecoveryEnv",
        max_episode_steps=1000,
        summary="two feet, stepping (stepping law)",
        metrics=PushRecoveryMetrics,
        level_metric=LevelMetric("fell", "falls [share of episodes]", 1.0),
        scenarios={},
    )
)
