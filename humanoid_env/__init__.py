"""humanoid-wbc Gymnasium environments; importing this package registers them.

- ``HumanoidWBC-v0``: balance on flat ground ([`humanoid_env.envs.balance.HumanoidBalanceEnv`][humanoid_env.envs.balance.HumanoidBalanceEnv]),
  20 s episodes (1000 steps at 50 Hz).
- ``HumanoidWBCWall-v0``: right hand on a wall with a regulated force
  ([`humanoid_env.envs.wall.HumanoidWallEnv`][humanoid_env.envs.wall.HumanoidWallEnv]), 20 s episodes.
- ``HumanoidWBCSeesaw-v0``: balance on a seesaw ([`humanoid_env.envs.seesaw.HumanoidSeesawEnv`][humanoid_env.envs.seesaw.HumanoidSeesawEnv]),
  30 s episodes (1500 steps: the paper's push test stands 20 s before the push).

Every entry point is ``humanoid_env.humanoid_wbc:<class>`` (the classes above, re-exported), so
``gym.pprint_registry()`` lists the three ids under one heading, ``humanoid_wbc``.
"""

import gymnasium

if "HumanoidWBC-v0" not in gymnasium.registry:
    gymnasium.register(
        id="HumanoidWBC-v0",
        entry_point="humanoid_env.humanoid_wbc:HumanoidBalanceEnv",
        max_episode_steps=1000,
    )

if "HumanoidWBCWall-v0" not in gymnasium.registry:
    gymnasium.register(
        id="HumanoidWBCWall-v0",
        entry_point="humanoid_env.humanoid_wbc:HumanoidWallEnv",
        max_episode_steps=1000,
    )

if "HumanoidWBCSeesaw-v0" not in gymnasium.registry:
    gymnasium.register(
        id="HumanoidWBCSeesaw-v0",
        entry_point="humanoid_env.humanoid_wbc:HumanoidSeesawEnv",
        max_episode_steps=1500,
    )
