"""A short recorded rollout per env, for the contract that ``estimation=None`` (the default) leaves
every env exactly as it was before the estimator existed. ``python -m tests.estimation_reference
[NAME ...]`` re-records ``tests/data/estimation_off.npz`` (only the envs named, default all) --
only when a change of the envs' *behaviour* is intended (it was recorded at the commit before
``humanoid_env.envs.estimation`` was added; the wall's rollout again on 2026-12-01, when the wall
scene's friction cones became elliptic; all three again on 2026-12-01, when the core's eiquadprog
solve began to eliminate the equalities first: the same QP optimum rounded differently, which
moved these torques by at most 3e-8 N m (the seesaw's; 1e-9 on flat ground), observations by one float32 ulp;
on 2026-12-02 the observations' ``previous_action`` block alone, rewritten in place to the action just applied,
when it stopped lagging one step: nothing else was re-recorded)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the environments)

DATA = Path(__file__).resolve().parent / "data" / "estimation_off.npz"
ENVS = {"balance": "HumanoidWBC-v0", "wall": "HumanoidWBCWall-v0", "seesaw": "HumanoidWBCSeesaw-v0"}
#: Env steps per recorded rollout (0.3 s at 50 Hz: one push starts within it, see ``KWARGS``).
STEPS = 15
#: A push early in the rollout, so that the recorded torques are not just standing still.
KWARGS = {"push_interval_s": (0.1, 0.1)}
#: The default push ranges when the rollouts were recorded (the defaults changed on 2026-12-01).
RECORDED_PUSHES_N = {"HumanoidWBC-v0": (20.0, 80.0), "HumanoidWBCWall-v0": (20.0, 80.0), "HumanoidWBCSeesaw-v0": (10.0, 40.0)}


def rollout(env_id: str, **kwargs) -> dict[str, np.ndarray]:
    """Seed 0, small random actions from their own generator: observations (STEPS + 1, n),
    rewards (STEPS,) and the torques of each step's last physics step (STEPS, na) [N m]."""
    env = gym.make(env_id, **KWARGS, push_magnitude_n=RECORDED_PUSHES_N[env_id], **kwargs)
    obs, _ = env.reset(seed=0)
    actions = np.random.default_rng(1).uniform(-0.3, 0.3, (STEPS, *env.action_space.shape))
    observations, rewards, torques = [obs], [], []
    for action in actions:
        obs, reward, terminated, truncated, _ = env.step(action)
        observations.append(obs), rewards.append(reward), torques.append(env.unwrapped.last_tau.copy())
        assert not (terminated or truncated)
    env.close()
    return {"obs": np.array(observations), "reward": np.array(rewards), "tau": np.array(torques)}


def record(names: list[str]) -> dict[str, np.ndarray]:
    """The recorded arrays, re-recorded for ``names`` and kept from :data:`DATA` for the others."""
    kept = dict(np.load(DATA)) if DATA.is_file() else {}
    fresh = {f"{name}_{key}": value for name in names for key, value in rollout(ENVS[name]).items()}
    return {**kept, **fresh}


if __name__ == "__main__":
    import sys

    names = sys.argv[1:] or list(ENVS)
    unknown = sorted(set(names) - set(ENVS))
    if unknown:
        sys.exit(f"unknown env name(s) {unknown}; known: {', '.join(ENVS)}")
    np.savez_compressed(DATA, **record(names))
    print(f"wrote {DATA} ({', '.join(names)} re-recorded)")
