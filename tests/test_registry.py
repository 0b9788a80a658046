"""The Gymnasium registry entries of ``humanoid_env``: ids unchanged, one ``pprint_registry`` heading."""

from __future__ import annotations

import re

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

import humanoid_env  # noqa: F401  (registers the environments)
from humanoid_env.envs.balance import HumanoidBalanceEnv
from humanoid_env.envs.seesaw import HumanoidSeesawEnv
from humanoid_env.envs.wall import HumanoidWallEnv
from humanoid_env.registry import TASKS

#: The ids are a contract (configs, run folders, shipped policies name them), with their classes
#: and episode lengths [env steps].
ENVS = {
    "HumanoidWBC-v0": (HumanoidBalanceEnv, 1000),
    "HumanoidWBCWall-v0": (HumanoidWallEnv, 1000),
    "HumanoidWBCSeesaw-v0": (HumanoidSeesawEnv, 1500),
}


def test_the_ids_and_their_classes_are_as_before():
    for env_id, (cls, steps) in ENVS.items():
        spec = gym.spec(env_id)
        assert spec.namespace is None and spec.id == env_id
        assert load_env_creator(spec.entry_point) is cls  # the same class object as before
        assert spec.max_episode_steps == steps


def test_pprint_registry_lists_the_registered_tasks_under_one_heading():
    """Before: three one-env headings (balance, wall, seesaw), from each entry point's module. Now
    one heading with every registered task (``humanoid_env.registry.TASKS``), the contract ids among them."""
    text = gym.pprint_registry(disable_print=True)
    headings = re.findall(r"^===== (\S+) =====$", text, re.M)
    ours = [h for h in headings if re.search(r"HumanoidWBC\S*-v0", _section(text, h))]
    assert ours == ["humanoid_wbc"], headings
    listed = set(re.findall(r"HumanoidWBC\S*-v0", _section(text, "humanoid_wbc")))
    assert listed == set(TASKS) and set(ENVS) <= listed


def _section(text: str, heading: str) -> str:
    """The lines under ``===== heading =====`` up to the next heading."""
    match = re.search(rf"^===== {re.escape(heading)} =====\n(.*?)(?=^=====|\Z)", text, re.M | re.S)
    return match[1] if match else ""
