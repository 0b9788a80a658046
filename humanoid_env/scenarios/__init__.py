"""Scripted scenarios: the papers' experiments as env drivers, and their registry.

Each scenario is a [`Scenario`][humanoid_env.scenarios.base.Scenario] (the hook the envs call,
described in [`humanoid_env.scenarios.base`][humanoid_env.scenarios.base]). ``python -m training.evaluate --policy
scripted`` runs them; ``--scenario`` picks a variant of [`SCENARIOS`][humanoid_env.scenarios.SCENARIOS].

- ``HumanoidWBCWall-v0``, ``lean``: [`WallLeanScenario`][humanoid_env.scenarios.wall_lean.WallLeanScenario], the wall experiment of *Partial
  Force Control of Constrained Floating-Base Robots*.
- ``HumanoidWBC-v0``, ``ramp`` / ``abrupt``: [`ContactSwitchScenario`][humanoid_env.scenarios.contact_switch.ContactSwitchScenario], the same paper's
  contact switching (the right foot lifted and put back, its force ramped through zero or
  switched abruptly).
- ``HumanoidWBCSeesaw-v0``, ``push`` / ``sine``: [`SeesawPushScenario`][humanoid_env.scenarios.seesaw.SeesawPushScenario] and
  [`SeesawSineScenario`][humanoid_env.scenarios.seesaw.SeesawSineScenario], the experiments of *Modeling and Control of Humanoid Robots in
  Dynamic Environments: iCub Balancing on a Seesaw*.

Which task has which variants is the task registry's ([`TaskEntry.scenarios`][humanoid_env.registry.TaskEntry.scenarios]);
[`SCENARIOS`][humanoid_env.scenarios.SCENARIOS] is its view. The modules import [`humanoid_env.scenarios.base`][humanoid_env.scenarios.base] and
never this package nor the registry (whose factories import them when called): no circles.
"""

from __future__ import annotations

from collections.abc import Callable

from humanoid_env.registry import TASKS
from humanoid_env.scenarios.base import NO_PUSHES, Scenario, min_jerk, rmse
from humanoid_env.scenarios.contact_switch import ContactSwitchScenario
from humanoid_env.scenarios.seesaw import SeesawPushScenario, SeesawSineScenario
from humanoid_env.scenarios.wall_lean import WallLeanScenario

__all__ = [
    "NO_PUSHES",
    "SCENARIOS",
    "ContactSwitchScenario",
    "Scenario",
    "SeesawPushScenario",
    "SeesawSineScenario",
    "WallLeanScenario",
    "make_scenario",
    "min_jerk",
    "rmse",
]

SCENARIOS: dict[str, dict[str, Callable[[], Scenario]]] = {
    env_id: dict(entry.scenarios) for env_id, entry in TASKS.items() if entry.scenarios
}
"""Env id -> {variant name: factory} of every registered task with scenarios (built from
[`TASKS`][humanoid_env.registry.TASKS] at import); the first variant is the default (``--scenario`` picks one)."""


def make_scenario(env_id: str, name: str | None = None) -> Scenario:
    """The scenario ``name`` (None: the env's default) of ``env_id`` (``"humanoid_env:"`` allowed).

    Raises ``ValueError`` naming the valid choices.
    """
    key = env_id.split(":")[-1]
    if key not in SCENARIOS:
        raise ValueError(f"{env_id}: no scripted scenario (envs with one: {', '.join(SCENARIOS)})")
    variants = SCENARIOS[key]
    if name is None:
        name = next(iter(variants))
    if name not in variants:
        raise ValueError(f"{env_id}: unknown scenario {name!r}; valid ones are: {', '.join(variants)}")
    return variants[name]()
