"""The humanoid-wbc Gymnasium environments."""

from humanoid_env.envs.balance import HumanoidBalanceEnv
from humanoid_env.envs.base import HumanoidWBCBaseEnv

__all__ = ["HumanoidBalanceEnv", "HumanoidWBCBaseEnv"]
