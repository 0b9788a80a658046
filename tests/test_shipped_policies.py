"""CI rollouts of the shipped policies (``policies/<env id>/``): each must meet or beat the nominal
controller (zero action: the WBC alone) on its task's main metric, on the same fixed seeds.

Main metrics (issue 6): fall rate (balance), hand-force RMSE [N] (wall), board-angle RMS [rad]
(seesaw). A policy that "wins" a tracking metric by falling early is not better, so on the wall and
the seesaw the trained policy must also fall no more often than the nominal controller.
The full comparison (20 episodes) is the README's table: ``python -m training.shipped compare``.
"""

from __future__ import annotations

import pytest

from training.shipped import MAIN_METRIC, compare, shipped_envs

#: env id -> (episodes, first seed, max env steps per episode) of its CI comparison; episode i
#: resets with seed + i (never a training seed). Balance: 500 steps = 10 s hold 2-4 pushes.
#: Wall: full 20 s episodes, 6 of them. The policy's gain on the force RMSE comes from falling
#: less (the nominal controller fell in 2 of these 6 and in 2 of the README's 20 episodes); in
#: episodes where neither falls the nominal force regulation is tighter (README: median 0.30 vs
#: 0.49 N), so short episodes in which nothing falls would test a claim the policy does not make.
PROTOCOL: dict[str, tuple[int, int, int | None]] = {
    "HumanoidWBC-v0": (3, 7000, 500),
    "HumanoidWBCWall-v0": (6, 7000, None),
    # Seesaw: 4 full 30 s episodes. First fixed at 6 x 10 s; then a candidate that passed that
    # (board angle 0.068 vs 0.074 rad) fell in 8 of 20 full episodes (seeds 2000-2019) where the
    # nominal controller fell in 2, mostly after 10 s: short episodes miss what matters here.
    "HumanoidWBCSeesaw-v0": (4, 7000, None),
}

#: The envs with a shipped policy.
SHIPPED = ["HumanoidWBC-v0", "HumanoidWBCSeesaw-v0", "HumanoidWBCWall-v0"]


def test_every_shipped_policy_is_checked_here():
    assert shipped_envs() == SHIPPED and set(SHIPPED) <= set(MAIN_METRIC) and set(SHIPPED) <= set(PROTOCOL)


@pytest.mark.parametrize("env_id", SHIPPED)
def test_shipped_policy_meets_or_beats_the_nominal_controller(env_id):
    episodes, seed, max_steps = PROTOCOL[env_id]
    comparison = compare(env_id, episodes, seed, max_steps=max_steps)
    nominal, trained = comparison["nominal"]["summary"], comparison["trained"]["summary"]
    metric = MAIN_METRIC[env_id]
    print(f"{env_id}: {metric} nominal {nominal[metric]:.4g}, trained {trained[metric]:.4g}")
    assert trained[metric] <= nominal[metric], (metric, nominal, trained)
    assert trained["fell"] <= nominal["fell"], (nominal, trained)
