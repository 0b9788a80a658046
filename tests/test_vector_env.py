"""The native vector env (humanoid_env.vector) and SB3's threaded VecEnv (training.vec_env): the same
results as one env at a time at any thread count, Gymnasium's and SB3's autoreset conventions,
seeding per env, and one env's failure ending only its own episode."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import humanoid_env  # noqa: F401  (registers the envs and their vector entry point)
from humanoid_env.vector import EnvThreads, ThreadedVectorEnv

#: Pushes strong enough to end some episodes within the rollouts below (autoreset exercised).
HEAVY = {"push_magnitude_n": (250.0, 400.0), "push_interval_s": (0.5, 1.0)}


def vector_rollout(num_threads: int, steps: int = 60, num_envs: int = 3):
    envs = gym.make_vec("HumanoidWBC-v0", num_envs=num_envs, num_threads=num_threads, **HEAVY)
    assert isinstance(envs.unwrapped, ThreadedVectorEnv) and envs.unwrapped.num_threads == min(num_threads, num_envs)
    observations, _ = envs.reset(seed=11)
    rng = np.random.default_rng(0)
    record = [observations]
    for _ in range(steps):
        obs, rewards, terminations, truncations, infos = envs.step(rng.uniform(-1, 1, (num_envs, 4)).astype(np.float32))
        record += [obs, rewards, terminations, truncations, infos["com"]]
    envs.close()
    return record


def test_make_vec_gives_the_threaded_env_and_its_results_do_not_depend_on_the_thread_count():
    one, two = vector_rollout(1), vector_rollout(2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    terminations = np.array([r for r in one[3::5]])
    assert terminations.any()  # some episode ended (and was reset on the next step) in the run


def test_each_env_is_the_env_alone_seeded_seed_plus_its_index():
    """Env i of the vector env, reset with seed s, follows gym.make(...).reset(seed=s + i) step for
    step, including Gymnasium's next-step autoreset (the step after an episode's end is a reset)."""
    envs = gym.make_vec("HumanoidWBC-v0", num_envs=2, num_threads=2, **HEAVY)
    alone = gym.make("HumanoidWBC-v0", **HEAVY)
    vector_obs, _ = envs.reset(seed=5)
    obs, _ = alone.reset(seed=6)
    assert np.array_equal(vector_obs[1], obs)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    rng = np.random.default_rng(1)
    ended = False
    for _ in range(80):
        actions = rng.uniform(-1, 1, (2, 4)).astype(np.float32)
        vector_obs, rewards, terminations, truncations, _ = envs.step(actions)
        if ended:  # the autoreset step: a reset, no reward
            obs, _ = alone.reset()
            assert rewards[1] == 0.0 and not terminations[1]
        else:
            obs, reward, terminated, truncated, _ = alone.step(actions[1])
            assert rewards[1] == reward and terminations[1] == terminated
        assert np.array_equal(vector_obs[1], obs)
        ended = bool(terminations[1] or truncations[1])
    envs.close()


def test_an_exception_in_one_env_ends_only_its_episode():
    envs = gym.make_vec("HumanoidWBC-v0", num_envs=2, num_threads=2)
    envs.reset(seed=0)
    broken = envs.unwrapped.envs[0]

    def fail(action):
        raise RuntimeError("a broken env")

    broken.step = fail
    obs, rewards, terminations, _, infos = envs.step(np.zeros((2, 4), dtype=np.float32))
    assert terminations.tolist() == [True, False]
    assert infos["error"][0] == "RuntimeError: a broken env" and not infos["_error"][1]
    assert np.isfinite(obs).all()
    del broken.step  # the next step resets it (autoreset) and both run on
    obs, _, terminations, _, _ = envs.step(np.zeros((2, 4), dtype=np.float32))
    assert not terminations.any()
    envs.close()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_bad_thread_counts_are_refused(bad):
    with pytest.raises(ValueError, match="num_threads must be an integer >= 1"):
        gym.make_vec("HumanoidWBC-v0", num_envs=2, num_threads=bad)


def test_sb3_threaded_vec_env_equals_dummy_vec_env():
    """Bit for bit, with SB3's same-step autoreset and terminal observations, on 2 threads; rewards
    as DummyVecEnv's once rounded to its float32 (ThreadedVecEnv keeps SubprocVecEnv's float64)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.vec_env import ThreadedVecEnv

    def fns():
        return [lambda: gym.make("HumanoidWBC-v0", **HEAVY) for _ in range(3)]

    dummy, threaded = DummyVecEnv(fns()), ThreadedVecEnv(fns(), num_threads=2)
    for venv in (dummy, threaded):
        venv.seed(21)
    a, b = dummy.reset(), threaded.reset()
    assert np.array_equal(a, b)
    rng = np.random.default_rng(2)
    dones_seen = 0
    for _ in range(60):
        actions = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
        for venv in (dummy, threaded):
            venv.step_async(actions)
        (obs_a, rew_a, done_a, info_a), (obs_b, rew_b, done_b, info_b) = dummy.step_wait(), threaded.step_wait()
        assert rew_a.dtype == np.float32 and rew_b.dtype == np.float64
        assert np.array_equal(obs_a, obs_b) and np.array_equal(rew_a, rew_b.astype(np.float32))
        assert np.array_equal(done_a, done_b)
        for ia, ib, done in zip(info_a, info_b, done_a, strict=True):
            if done:
                dones_seen += 1
                assert np.array_equal(ia["terminal_observation"], ib["terminal_observation"])
                assert ia["TimeLimit.truncated"] == ib["TimeLimit.truncated"]
    assert dones_seen > 0
    threaded.close()


def test_training_steps_the_same_trajectories_on_each_of_its_vec_envs():
    """training.train's vec_env setting changes how the envs run, not what the algorithm sees:
    SubprocVecEnv and the threaded VecEnv give the same observations, rewards (float64 both, and so
    the same VecNormalize reward scaling) and dones bit for bit, through autoresets."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from training.config import VEC_ENVS
    from training.train import make_vec_env
    from training.vec_env import ThreadedVecEnv

    records, kinds = {}, {"subprocess": SubprocVecEnv, "threads": ThreadedVecEnv}
    for kind in VEC_ENVS:
        venv = make_vec_env("HumanoidWBC-v0", HEAVY, 2, kind=kind)
        assert type(venv) is kinds[kind]
        venv.seed(5)
        record = [venv.reset()]
        rng = np.random.default_rng(3)
        for _ in range(60):  # both envs' first episodes end by step 53 (autoreset in both)
            obs, rewards, dones, _ = venv.step(rng.uniform(-1, 1, (2, 4)).astype(np.float32))
            assert rewards.dtype == np.float64
            record += [obs, rewards, dones]
        venv.close()
        records[kind] = record
    assert np.any(records["threads"][3::3], axis=0).all()  # each env's episode ended: autoreset exercised
    pairs = zip(records["subprocess"], records["threads"], strict=True)
    assert all(np.array_equal(a, b) for a, b in pairs)
    assert type(make_vec_env("HumanoidWBC-v0", {}, 1, kind="threads")) is DummyVecEnv  # one env: no pool
    with pytest.raises(ValueError, match="vec_env must be one of subprocess, threads; got 'dummy'"):
        make_vec_env("HumanoidWBC-v0", {}, 2, kind="dummy")


def test_sb3_threaded_vec_env_ends_a_failing_env_s_episode_and_warns_once():
    from training.vec_env import ThreadedVecEnv

    venv = ThreadedVecEnv([lambda: gym.make("HumanoidWBC-v0") for _ in range(2)], num_threads=2)
    venv.seed(0)
    venv.reset()
    broken = venv.envs[1]

    def fail(action):
        raise ValueError("a broken env")

    broken.step = fail
    with pytest.warns(RuntimeWarning, match=r"env 1 raised ValueError: a broken env; its episode ended"):
        _, _, dones, infos = venv.step(np.zeros((2, 4), dtype=np.float32))
    assert dones.tolist() == [False, True] and infos[1]["error"] == "ValueError: a broken env"
    assert "terminal_observation" in infos[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second failure of the same env: no second warning
        _, _, dones, _ = venv.step(np.zeros((2, 4), dtype=np.float32))
    assert dones.tolist() == [False, True]
    venv.close()


@pytest.mark.parametrize("num_envs, num_threads", [(1, 1), (2, 2), (5, 2), (8, 3)])
def test_env_threads_cover_every_env_once_in_contiguous_chunks_and_keep_env_order(num_envs, num_threads):
    import threading

    threads = EnvThreads(num_envs, num_threads)
    try:
        assert [i for chunk in threads.chunks for i in chunk] == list(range(num_envs))  # each env once, in order
        sizes = [len(chunk) for chunk in threads.chunks]
        assert len(sizes) == num_threads and max(sizes) - min(sizes) <= 1
        seen: dict[int, str] = {}
        results = threads.map(lambda i: seen.setdefault(i, threading.current_thread().name) and i * i)
        assert results == [i * i for i in range(num_envs)]
        assert all(seen[i] == threading.current_thread().name for i in threads.chunks[0])  # the caller takes the first chunk
        caller = threading.current_thread().name  # the other chunks run on the pool's workers
        assert all(seen[i] != caller for chunk in threads.chunks[1:] for i in chunk)
    finally:
        threads.shutdown()


def test_env_threads_raise_a_chunk_s_exception_after_every_chunk_finished():
    import time

    threads = EnvThreads(4, 2)
    done: list[int] = []

    def step(i: int) -> int:
        if i == 0:
            raise RuntimeError("env 0 broke")
        time.sleep(0.01)
        done.append(i)
        return i

    try:
        with pytest.raises(RuntimeError, match="env 0 broke"):
            threads.map(step)
        assert sorted(done) == [2, 3]  # the other thread's chunk ran to its end (env 1 shares env 0's chunk)
    finally:
        threads.shutdown()
