"""humanoid-wbc Gymnasium environments; importing this package registers them.

- ``HumanoidWBC-v0``: balance on flat ground ([`humanoid_env.envs.balance.HumanoidBalanceEnv`][humanoid_env.envs.balance.HumanoidBalanceEnv]),
  20 s episodes (1000 steps at 50 Hz).
- ``HumanoidWBCWall-v0``: right hand on a wall with a regulated force
  ([`humanoid_env.envs.wall.HumanoidWallEnv`][humanoid_env.envs.wall.HumanoidWallEnv]), 20 s episodes.
- ``HumanoidWBCSeesaw-v0``: balance on a seesaw ([`humanoid_env.envs.seesaw.HumanoidSeesawEnv`][humanoid_env.envs.seesaw.HumanoidSeesawEnv]),
  30 s episodes (1500 steps: the paper's push test stands 20 s before the push).
- ``HumanoidWBCSquare-v0``: the balance task with a CoM target tracing a square
  ([`humanoid_env.envs.square.HumanoidSquareEnv`][humanoid_env.envs.square.HumanoidSquareEnv]), 20 s episodes: the
  smallest task, the example of adding one (``docs/architecture.md``).

Every entry point is ``humanoid_env.humanoid_wbc:<class>`` (the classes above, re-exported), so
``gym.pprint_registry()`` lists the ids under one heading, ``humanoid_wbc``. The ids, entry
points and episode lengths are the task registry's ([`humanoid_env.registry.TASKS`][humanoid_env.registry.TASKS]).
"""

from humanoid_env.registry import register_environments

register_environments()
