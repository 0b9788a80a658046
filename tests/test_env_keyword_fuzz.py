"""Every keyword of every environment (its ``DEFAULTS``) against a set of bad values: each is either
rejected at construction with an error whose message starts with the keyword's name, or accepted,
and then the env resets and steps (3 steps) with finite observations and rewards.

A keyword whose default is a boolean accepts only booleans (none of the bad values). The envs are
built in-process (a rejection costs microseconds, an accepted build about 10 ms; the wall env's
settling, 0.1 s, is cached per settling setting), so the whole file takes a few seconds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from humanoid_env.envs.balance import HumanoidBalanceEnv
from humanoid_env.envs.base import HumanoidWBCBaseEnv
from humanoid_env.envs.seesaw import HumanoidSeesawEnv
from humanoid_env.envs.wall import HumanoidWallEnv

ENVS: dict[str, type[HumanoidWBCBaseEnv]] = {
    "HumanoidWBC-v0": HumanoidBalanceEnv, "HumanoidWBCWall-v0": HumanoidWallEnv, "HumanoidWBCSeesaw-v0": HumanoidSeesawEnv,
}  # fmt: skip
BAD_VALUES = (None, "abc", math.nan, math.inf, -1, 1e30, [1, 2], {}, object())
#: Env steps run with an accepted value (enough to use every reference, task and reward path once).
STEPS = 3


def _cases() -> list[tuple[str, str]]:
    return [(env_id, keyword) for env_id, cls in ENVS.items() for keyword in cls.DEFAULTS]


def _steps_finitely(env: HumanoidWBCBaseEnv) -> bool:
    obs, _ = env.reset(seed=0)
    finite = bool(np.isfinite(obs).all())
    for _ in range(STEPS):
        obs, reward, terminated, truncated, _ = env.step(np.zeros(env.action_space.shape))
        finite = finite and bool(np.isfinite(obs).all()) and math.isfinite(reward)
        if terminated or truncated:
            break
    return finite


@pytest.mark.parametrize("env_id, keyword", _cases())
def test_bad_values_are_rejected_naming_the_keyword_or_run_finitely(env_id, keyword):
    cls = ENVS[env_id]
    boolean = isinstance(cls.DEFAULTS[keyword], bool)
    accepted, unnamed = [], []
    for value in BAD_VALUES:
        try:
            env = cls(**{keyword: value})
        except (ValueError, TypeError) as err:
            if not str(err).startswith(keyword):
                unnamed.append(f"{value!r}: {type(err).__name__}: {str(err)[:200]}")
            continue
        accepted.append(value)
        assert _steps_finitely(env), f"{env_id}: {keyword}={value!r} was accepted but did not step finitely"
        env.close()
    assert not unnamed, f"{env_id}: rejections of {keyword} that do not start with its name: {unnamed}"
    if boolean:
        assert not accepted, f"{env_id}: the boolean keyword {keyword} accepted {accepted!r}"
