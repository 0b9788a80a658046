"""humanoid-wbc Gymnasium environments; importing this package registers them.

- ``HumanoidWBC-v0``: balance on flat ground (:class:`humanoid_env.envs.balance.HumanoidBalanceEnv`),
  20 s episodes (1000 steps at 50 Hz).
"""

import gymnasium

if "HumanoidWBC-v0" not in gymnasium.registry:
    gymnasium.register(
        id="HumanoidWBC-v0",
        entry_point="humanoid_env.envs.balance:HumanoidBalanceEnv",
        max_episode_steps=1000,
    )
