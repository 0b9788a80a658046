"""N envs stepped on a thread pool: the native vector env of every registered id.

``gym.make_vec("HumanoidWBC-v0", num_envs=8)`` reaches [`ThreadedVectorEnv`][humanoid_env.vector.ThreadedVectorEnv]
(each id's ``vector_entry_point``; ``vectorization_mode="sync"`` or ``"async"`` still give
Gymnasium's own). Its envs are ordinary envs of the id, each with its own MuJoCo model and data,
controller, generator and (with ``randomise``) its own drawn plant; a vector step hands each env its
action on ``num_threads`` threads ([`EnvThreads`][humanoid_env.vector.EnvThreads]: each thread steps a contiguous chunk
of the envs, the calling thread the first). The threads run at once where an env step does not hold
Python's GIL: the compiled physics-step loop (``humanoid_env.envs.physics_loop``) releases it for
the ticks and ``mj_step``; an env step that runs the Python loop holds it, and the threads then take
turns.

Results do not depend on the thread count: each env's step reads and writes only that env, and
the vector step gathers the results in env order (``tests/test_vector_env.py``). A non-finite state
ends that env's episode as it does alone (``info["termination"]``); an exception raised by one env's
step ends that env's episode too (terminated, ``info["error"]`` holds the message) and not the
others' (the next vector step resets it, as Gymnasium's autoreset does).

Seeding: ``reset(seed=s)`` seeds env ``i`` with ``s + i`` (Gymnasium's vector convention).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from copy import deepcopy
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.vector.utils import concatenate, iterate

__all__ = ["EnvThreads", "ThreadedVectorEnv", "make_threaded_vector_env", "thread_count"]


def thread_count(num_threads: int | None, num_envs: int) -> int:
    """The threads that step ``num_envs`` envs: ``num_threads`` (an integer >= 1; ``ValueError``
    otherwise) or, for None, the CPUs this process may use; at most ``num_envs``."""
    if num_threads is None:
        num_threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if not (isinstance(num_threads, int) and not isinstance(num_threads, bool) and num_threads >= 1):
        raise ValueError(f"num_threads must be an integer >= 1, got {num_threads!r}")
    return min(num_threads, num_envs)


class EnvThreads:
    """Runs a function of the env index over ``num_envs`` envs on ``num_threads`` threads.

    Each thread takes a contiguous chunk of the envs (sizes differing by at most one) and steps
    them in order; the calling thread takes the first chunk and the pool's ``num_threads - 1``
    workers the others. One task per thread, not per env: an env's GIL-held Python then overlaps
    the other threads' compiled loops without a hand-over through the pool's queue per env
    (measured: 1.05-1.07x the per-env ``ThreadPoolExecutor.map`` on 2 threads, N = 2 and 8,
    ``docs/speed.md``). Results come back in env order, whatever the thread count.

    Args:
        num_envs: the envs (indices ``0 .. num_envs - 1``).
        num_threads: threads, ``1 <= num_threads <= num_envs`` (1: all in the calling thread).
        name: the worker threads' name prefix.
    """

    def __init__(self, num_envs: int, num_threads: int, name: str = "humanoid-wbc-env"):
        bounds = np.linspace(0, num_envs, num_threads + 1).round().astype(int)
        self.chunks = [range(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        self._pool = ThreadPoolExecutor(num_threads - 1, thread_name_prefix=name) if num_threads > 1 else None

    def map(self, function: Callable[[int], Any]) -> list:
        """``[function(i) for i in range(num_envs)]``, the chunks on their threads; an exception
        raised by ``function`` is raised here once every chunk has finished."""
        results: list = [None] * self.chunks[-1].stop

        def run(chunk: range) -> None:
            for i in chunk:
                results[i] = function(i)

        futures = [] if self._pool is None else [self._pool.submit(run, chunk) for chunk in self.chunks[1:]]
        try:
            run(self.chunks[0])
        finally:
            errors = [future.exception() for future in futures]  # (waits for each)
        for error in errors:
            if error is not None:
                raise error
        return results

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


class ThreadedVectorEnv(SyncVectorEnv):
    """Gymnasium's ``SyncVectorEnv`` semantics (spaces, info batching, autoreset), each vector
    step's env steps on a thread pool.

    Args:
        env_fns: one function per env that makes it.
        num_threads: threads stepping the envs (default: the CPUs this process may use, at most
            ``num_envs``); 1 steps them in the calling thread.
        copy: whether ``step`` and ``reset`` return copies of the batched observations.
        autoreset_mode: Gymnasium's autoreset convention (default ``NEXT_STEP``, Gymnasium's).
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gym.Env]],
        num_threads: int | None = None,
        copy: bool = True,
        autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP,
    ):
        super().__init__(env_fns, copy=copy, autoreset_mode=autoreset_mode)
        self.num_threads = thread_count(num_threads, self.num_envs)
        self._threads = EnvThreads(self.num_envs, self.num_threads)

    def _step_one(self, i: int, action) -> tuple[Any, float, bool, bool, dict[str, Any], dict[str, Any] | None]:
        """Env ``i``'s part of a vector step: ``(obs, reward, terminated, truncated, info, final)``,
        ``final`` the ``final_obs``/``final_info`` entry of a same-step reset (else None)."""
        env = self.envs[i]
        mode = self.autoreset_mode
        if mode == AutoresetMode.NEXT_STEP and self._autoreset_envs[i]:
            obs, info = env.reset()
            return obs, 0.0, False, False, info, None
        if mode == AutoresetMode.DISABLED and self._autoreset_envs[i]:
            raise RuntimeError(f"env {i} ended its episode: reset it before stepping (autoreset_mode=DISABLED)")
        try:
            obs, reward, terminated, truncated, info = env.step(action)
        except Exception as err:  # noqa: BLE001 - one env's failure ends its own episode only
            obs, reward, terminated, truncated = self._env_obs[i], 0.0, True, False
            info = {"error": f"{type(err).__name__}: {err}"}
        final = None
        if mode == AutoresetMode.SAME_STEP and (terminated or truncated):
            final = {"final_obs": obs, "final_info": info}
            obs, info = env.reset()
        return obs, reward, terminated, truncated, info, final

    def _step_all(self, actions: list) -> list:
        """Every env's ``_step_one`` under its action, on the threads, in env order."""
        return self._threads.map(lambda i: self._step_one(i, actions[i]))

    def step(self, actions):
        results = self._step_all(list(iterate(self.action_space, actions)))
        infos: dict[str, Any] = {}
        for i, (obs, reward, terminated, truncated, info, final) in enumerate(results):
            self._env_obs[i] = obs
            self._rewards[i], self._terminations[i], self._truncations[i] = reward, terminated, truncated
            if final is not None:
                infos = self._add_info(infos, final, i)
            infos = self._add_info(infos, info, i)
        self._observations = concatenate(self.single_observation_space, self._env_obs, self._observations)
        self._autoreset_envs = np.logical_or(self._terminations, self._truncations)
        return (
            self._copied(self._observations),
            np.copy(self._rewards),
            np.copy(self._terminations),
            np.copy(self._truncations),
            infos,
        )

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None):
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed must be None, an int or {self.num_envs} seeds (one per env), got {len(seeds)}")
        results = self._threads.map(lambda i: self.envs[i].reset(seed=seeds[i], options=options))
        infos: dict[str, Any] = {}
        for i, (obs, info) in enumerate(results):
            self._env_obs[i] = obs
            infos = self._add_info(infos, info, i)
        self._observations = concatenate(self.single_observation_space, self._env_obs, self._observations)
        self._terminations[:] = False
        self._truncations[:] = False
        self._autoreset_envs[:] = False
        return self._copied(self._observations), infos

    def _copied(self, observations):
        return deepcopy(observations) if self.copy else observations

    def close_extras(self, **kwargs: Any) -> None:
        self._threads.shutdown()
        super().close_extras(**kwargs)

    def __repr__(self) -> str:
        return f"ThreadedVectorEnv({self.spec.id if self.spec else ''}, num_envs={self.num_envs}, num_threads={self.num_threads})"


def make_threaded_vector_env(env_id: str, num_envs: int = 1, num_threads: int | None = None, **kwargs: Any) -> ThreadedVectorEnv:
    """``num_envs`` envs of ``env_id`` (each ``gym.make(env_id, **kwargs)``) on a
    [`ThreadedVectorEnv`][humanoid_env.vector.ThreadedVectorEnv]: the ids' ``vector_entry_point``
    (``gym.make_vec(env_id, num_envs, num_threads=...)``)."""
    if not (isinstance(num_envs, int) and not isinstance(num_envs, bool) and num_envs >= 1):
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
    return ThreadedVectorEnv([lambda: gym.make(env_id, **kwargs) for _ in range(num_envs)], num_threads=num_threads)
