"""humanoid-wbc Gymnasium environments; importing this package registers them.

- ``HumanoidWBC-v0``: balance on flat ground (:class:`humanoid_env.envs.balance.HumanoidBalanceEnv`),
  20 s episodes (1000 steps at 50 Hz).
- ``HumanoidWBCWall-v0``: right hand on a wall with a regulated force
  (:class:`humanoid_env.envs.wall.HumanoidWallEnv`), 20 s episodes.
- ``HumanoidWBCSeesaw-v0``: balance on a seesaw (:class:`humanoid_env.envs.seesaw.HumanoidSeesawEnv`),
  30 s episodes (1500 steps: the paper's push test stands 20 s before the push).
"""

import gymnasium

if "HumanoidWBC-v0" not in gymnasium.registry:
    gymnasium.register(
        id="HumanoidWBC-v0",
        entry_point="humanoid_env.envs.balance:HumanoidBalanceEnv",
        max_episode_steps=1000,
    )

if "HumanoidWBCWall-v0" not in gymnasium.registry:
    gymnasium.register(
        id="HumanoidWBCWall-v0",
        entry_point="humanoid_env.envs.wall:HumanoidWallEnv",
        max_episode_steps=1000,
    )

if "HumanoidWBCSeesaw-v0" not in gymnasium.registry:
    gymnasium.register(
        id="HumanoidWBCSeesaw-v0",
        entry_point="humanoid_env.envs.seesaw:HumanoidSeesawEnv",
        max_episode_steps=1500,
    )
