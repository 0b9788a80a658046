"""The environment classes under one module: the entry points the registry names.

``gym.pprint_registry()`` heads a group of ids by a namespace; an id registered without one (ours:
``HumanoidWBC-v0``, not ``ns/HumanoidWBC-v0``, and the ids stay as they are) is grouped by its
entry point's module instead, by its third dotted part, or its second when it has two.
``humanoid_env.envs.balance:...`` gave three one-env headings (balance, wall, seesaw); every id's
entry point is ``humanoid_env.humanoid_wbc:<class>``, so they show under ``humanoid_wbc``.
The classes are the same objects as in their own modules (``humanoid_env.envs.balance`` ...).
"""

from humanoid_env.envs.balance import HumanoidBalanceEnv
from humanoid_env.envs.push_recovery import HumanoidPushRecoveryEnv
from humanoid_env.envs.seesaw import HumanoidSeesawEnv
from humanoid_env.envs.square import HumanoidSquareEnv
from humanoid_env.envs.walk import HumanoidWalkEnv
from humanoid_env.envs.wall import HumanoidWallEnv

__all__ = [
    "HumanoidBalanceEnv",
    "HumanoidPushRecoveryEnv",
    "HumanoidSeesawEnv",
    "HumanoidSquareEnv",
    "HumanoidWalkEnv",
    "HumanoidWallEnv",
]
