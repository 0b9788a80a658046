"""The scripted-scenario hook: the [`Scenario`][humanoid_env.scenarios.base.Scenario] base the envs call, and its helpers (the
minimum-jerk profile, RMS). A leaf: it imports no other module of the project at run time but
``wbc_layer.references``.

A scenario drives an environment through
[`humanoid_env.envs.base.HumanoidWBCBaseEnv.set_scenario`][humanoid_env.envs.base.HumanoidWBCBaseEnv.set_scenario]:

    env = gym.make("HumanoidWBCWall-v0", **scenario.env_kwargs)
    env.unwrapped.set_scenario(scenario)
    obs, _ = env.reset(seed=0)              # calls scenario.reset(context)
    while not scenario.finished(env.unwrapped):
        obs, *_ = env.step(scenario.action(obs, env))
    print(scenario.result())               # the scenario's metrics

It is a source of the env's reference chain that replaces the task's: at every physics step the
env calls ``scenario.update_task(command, context, time, dt)`` instead of its task's own command
update (the scenario sets the command's CoM target, possibly as a trajectory segment to follow,
and the task's commands, and records what it measures), then, in wbc mode, after the task's
reference stages, ``scenario.update_controller(references, context, time, dt)`` (it may switch
contacts, set or release force targets, and drive the controller tasks it asked for at reset
with ``controller_tasks``). It writes only the command and the references it is handed; it
reads the plant through ``context`` (a [`StepContext`][humanoid_env.envs.task.StepContext]). The
policy's action is zero: every reference comes from the script. The experiments themselves are
in [`humanoid_env.scenarios.wall_lean`][humanoid_env.scenarios.wall_lean] and [`humanoid_env.scenarios.contact_switch`][humanoid_env.scenarios.contact_switch] (*Partial
Force Control of Constrained Floating-Base Robots*) and [`humanoid_env.scenarios.seesaw`][humanoid_env.scenarios.seesaw]
(*iCub Balancing on a Seesaw*); [`humanoid_env.scenarios.make_scenario`][humanoid_env.scenarios.make_scenario] makes one by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from wbc_layer.references import min_jerk

if TYPE_CHECKING:  # annotations only: the env imports this module, never the reverse at run time
    from humanoid_env.envs.base import HumanoidWBCBaseEnv
    from humanoid_env.envs.task import Command, StepContext
    from wbc_layer import Task
    from wbc_layer.references import References

__all__ = ["NO_PUSHES", "Scenario", "min_jerk", "rmse"]

NO_PUSHES = {"push_magnitude_n": (0.0, 0.0)}
"""``gym.make`` keywords that switch the env's random pushes off (the scripts push themselves, if at all)."""


class Scenario:
    """Base of the scripted scenarios (no-op hooks, zero action).

    Attributes:
        name: the variant's name (``--scenario``).
        duration_s: length of the script [s]; [`finished`][humanoid_env.scenarios.base.Scenario.finished] after it.
        env_kwargs: ``gym.make`` keywords the scenario needs (its callers merge theirs on top).
    """

    name = "scenario"
    duration_s = 1.0
    env_kwargs: dict[str, Any] = {}

    def reset(self, context: StepContext) -> None:
        """Called by ``env.reset`` after the WBC is built (fresh controller per episode)."""

    def controller_tasks(self, context: StepContext) -> list[Task]:
        """Extra controller tasks for the episode (added after `reset`; their references are
        then in the ``references`` handed to `update_controller`, under their names)."""
        return []

    def update_task(self, command: Command, context: StepContext, time: float, dt: float) -> None:
        """Every physics step, instead of the task's own command update: set the command."""

    def update_controller(self, references: References, context: StepContext, time: float, dt: float) -> None:
        """Every physics step (wbc mode), after the task's reference stages, before the contact
        guard and the write into the controller: change the references."""

    def action(self, obs: np.ndarray, env) -> np.ndarray:
        """The policy's action: zero (the references come from the script)."""
        return np.zeros(env.action_space.shape, dtype=env.action_space.dtype)

    def finished(self, env: HumanoidWBCBaseEnv) -> bool:
        """True once the env's simulated time reached `duration_s`."""
        return float(env.data.time) >= self.duration_s - 1e-9

    def result(self) -> dict[str, Any]:
        """The scenario's metrics for the episode that just ran."""
        return {}



def rmse(values: list[float]) -> float:
    """Root mean square of ``values``; NaN when there are none."""
    return float(np.sqrt(np.mean(np.square(values)))) if values else float("nan")
