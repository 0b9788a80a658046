"""A stable-baselines3 ``VecEnv`` whose envs step on a thread pool in one process.

[`ThreadedVecEnv`][training.vec_env.ThreadedVecEnv] is SB3's ``DummyVecEnv`` (the same buffers,
autoreset in the same step, ``infos[i]["terminal_observation"]`` and ``"TimeLimit.truncated"``,
seeds ``seed + i``) with each vector step's env steps handed to ``num_threads`` threads (``humanoid_env.vector.EnvThreads``). The envs'
compiled physics-step loop releases the GIL (``humanoid_env.envs.physics_loop``), so two threads
step two envs at once without ``SubprocVecEnv``'s processes, pipes and pickling. Its results are
those of ``DummyVecEnv`` bit for bit at any thread count, except that rewards stay float64, as
``SubprocVecEnv`` returns them (``DummyVecEnv`` rounds them to float32, which VecNormalize's reward
scaling then sees): a run on ``ThreadedVecEnv`` is a run on ``SubprocVecEnv`` bit for bit
(``tests/test_vector_env.py``). An
exception in one env's step ends that env's episode (done, ``info["error"]``), not the others',
and the first one of each env is also issued as a ``RuntimeWarning`` (SB3 reads no ``info["error"]``:
a training run on an env that keeps failing would otherwise see only short episodes).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from copy import deepcopy

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

from humanoid_env.vector import EnvThreads, thread_count


class ThreadedVecEnv(DummyVecEnv):
    """``DummyVecEnv`` stepping its envs on ``num_threads`` threads (default: the CPUs this
    process may use, at most the number of envs; 1: in the calling thread, as ``DummyVecEnv``)."""

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], num_threads: int | None = None):
        super().__init__(list(env_fns))
        self.buf_rews = np.zeros(self.num_envs, dtype=np.float64)  # as SubprocVecEnv's (DummyVecEnv's: float32)
        self.num_threads = thread_count(num_threads, self.num_envs)
        self._threads = EnvThreads(self.num_envs, self.num_threads, name="sb3-env")
        self._warned = [False] * self.num_envs

    def _step_one(self, env_idx: int) -> None:
        """DummyVecEnv.step_wait's body for one env (each env writes its own buffer entries)."""
        env = self.envs[env_idx]
        try:
            obs, self.buf_rews[env_idx], terminated, truncated, self.buf_infos[env_idx] = env.step(self.actions[env_idx])
        except Exception as err:  # noqa: BLE001 - one env's failure ends its own episode only
            obs, terminated, truncated = self._obs_of(env_idx), True, False
            self.buf_rews[env_idx] = 0.0
            self.buf_infos[env_idx] = {"error": f"{type(err).__name__}: {err}"}
            if not self._warned[env_idx]:
                self._warned[env_idx] = True
                warnings.warn(
                    f"env {env_idx} raised {type(err).__name__}: {err}; its episode ended (info['error']; "
                    "warned once per env)",
                    RuntimeWarning,
                    stacklevel=2,
                )
        self.buf_dones[env_idx] = terminated or truncated
        self.buf_infos[env_idx]["TimeLimit.truncated"] = truncated and not terminated
        if self.buf_dones[env_idx]:
            self.buf_infos[env_idx]["terminal_observation"] = obs
            obs, self.reset_infos[env_idx] = env.reset()
        self._save_obs(env_idx, obs)

    def _obs_of(self, env_idx: int):
        """Env ``env_idx``'s last observation (a copy from the buffers)."""
        if list(self.buf_obs) == [None]:  # a Box observation
            return self.buf_obs[None][env_idx].copy()
        return {key: buffer[env_idx].copy() for key, buffer in self.buf_obs.items()}

    def step_wait(self):
        self._threads.map(self._step_one)
        return self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones), deepcopy(self.buf_infos)

    def close(self) -> None:
        self._threads.shutdown()
        super().close()
