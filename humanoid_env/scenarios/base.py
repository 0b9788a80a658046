"""The scripted-scenario hook: the [`Scenario`][humanoid_env.scenarios.base.Scenario] base the envs call, and its helpers (the
minimum-jerk profile, RMS). A leaf: it imports no other module of the project at run time.

A scenario drives an environment through
[`humanoid_env.envs.base.HumanoidWBCBaseEnv.set_scenario`][humanoid_env.envs.base.HumanoidWBCBaseEnv.set_scenario]:

    env = gym.make("HumanoidWBCWall-v0", **scenario.env_kwargs)
    env.unwrapped.set_scenario(scenario)
    obs, _ = env.reset(seed=0)              # calls scenario.reset(env)
    while not scenario.finished(env.unwrapped):
        obs, *_ = env.step(scenario.action(obs, env))
    print(scenario.result())               # the scenario's metrics

At every physics step the env calls ``scenario.update_task(env, time, dt)`` instead of its
task's own update (the scenario sets ``env.com_target`` and the task's commands, and records
what it measures), then, in wbc mode, ``scenario.update_controller(env, time, dt)`` after the
env handed its references to the WBC and before the QP is solved (the scenario may switch
contacts, set force targets, add tasks on ``env.controller``). The policy's action is zero:
every reference comes from the script. The experiments themselves are in
[`humanoid_env.scenarios.wall_lean`][humanoid_env.scenarios.wall_lean] and [`humanoid_env.scenarios.contact_switch`][humanoid_env.scenarios.contact_switch] (*Partial
Force Control of Constrained Floating-Base Robots*) and [`humanoid_env.scenarios.seesaw`][humanoid_env.scenarios.seesaw]
(*iCub Balancing on a Seesaw*); [`humanoid_env.scenarios.make_scenario`][humanoid_env.scenarios.make_scenario] makes one by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # annotations only: the env imports this module, never the reverse at run time
    from humanoid_env.envs.base import HumanoidWBCBaseEnv

NO_PUSHES = {"push_magnitude_n": (0.0, 0.0)}
"""``gym.make`` keywords that switch the env's random pushes off (the scripts push themselves, if at all)."""


def min_jerk(t: float, t0: float, t1: float) -> tuple[float, float]:
    """Minimum-jerk phase from 0 at ``t0`` to 1 at ``t1`` [s]: (s, ds/dt [1/s]).

    ``s = 10 x^3 - 15 x^4 + 6 x^5`` with ``x = (t - t0) / (t1 - t0)``, held at 0 before ``t0``
    and at 1 after ``t1``. With ``t0 = 0, t1 = 1`` it is the profile of the phase ``t`` itself.
    """
    if t <= t0:
        return 0.0, 0.0
    if t >= t1:
        return 1.0, 0.0
    T = t1 - t0
    x = (t - t0) / T
    return 10 * x**3 - 15 * x**4 + 6 * x**5, (30 * x**2 - 60 * x**3 + 30 * x**4) / T


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

    def reset(self, env: HumanoidWBCBaseEnv) -> None:
        """Called by ``env.reset`` after the WBC is built (fresh controller per episode)."""

    def update_task(self, env: HumanoidWBCBaseEnv, time: float, dt: float) -> None:
        """Every physics step, instead of the task's own update: set the task's references."""

    def update_controller(self, env: HumanoidWBCBaseEnv, time: float, dt: float) -> None:
        """Every physics step (wbc mode), after the env set its references, before the QP."""

    def action(self, obs: np.ndarray, env) -> np.ndarray:
        """The policy's action: zero (the references come from the script)."""
        return np.zeros(env.action_space.shape, dtype=env.action_space.dtype)

    def finished(self, env: HumanoidWBCBaseEnv) -> bool:
        """True once the env's simulated time reached `duration_s`."""
        return float(env.data.time) >= self.duration_s - 1e-9

    def result(self) -> dict[str, Any]:
        """The scenario's metrics for the episode that just ran."""
        return {}

    @staticmethod
    def _require_wbc(env: HumanoidWBCBaseEnv) -> None:
        if not env.actuation.drives_controller:
            raise ValueError(f"scripted scenarios need action_mode='wbc', got {env.action_mode!r}")


def rmse(values: list[float]) -> float:
    """Root mean square of ``values``; NaN when there are none."""
    return float(np.sqrt(np.mean(np.square(values)))) if values else float("nan")
