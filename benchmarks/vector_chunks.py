"""The threaded vector env's two ways of handing a vector step to 2 threads, side by side in one
process (issue 41; ``docs/speed.md``): one pool task per env (``ThreadPoolExecutor.map``, what
``ThreadedVectorEnv`` did before ``EnvThreads``) against one contiguous chunk of envs per thread, the
calling thread taking the first (``EnvThreads``), and 1 thread; ``HumanoidWBC-v0`` in wbc mode,
random actions, N = 2 and 8, each configuration in turn for R rounds of about 400 env steps.
Env steps/s (all envs' steps), medians and the medians of the per-round ratios.

    python -m benchmarks.vector_chunks [--rounds 9] [--json results/speed/vector_chunks.json]   # idle machine, about 3 min
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ThreadPoolExecutor

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401
from benchmarks.common import RESULTS, machine, write_json
from humanoid_env.vector import ThreadedVectorEnv


class PerEnvPool(ThreadedVectorEnv):
    """``ThreadedVectorEnv`` handing each env's step to the pool as its own task."""

    def __init__(self, fns, num_threads):
        super().__init__(fns, num_threads=num_threads)
        self._old = ThreadPoolExecutor(num_threads) if num_threads > 1 else None

    def _step_all(self, actions: list) -> list:
        if self._old is None:
            return [self._step_one(i, actions[i]) for i in range(self.num_envs)]
        return list(self._old.map(self._step_one, range(self.num_envs), actions))


def bench(venv, steps, rng):
    n = venv.num_envs
    t = time.perf_counter()
    for _ in range(steps):
        venv.step(rng.uniform(-1, 1, (n, *venv.single_action_space.shape)).astype(np.float32))
    return steps * n / (time.perf_counter() - t)

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--json", default=str(RESULTS / "vector_chunks.json"))
    args = parser.parse_args()
    rounds, start = args.rounds, machine()
    rng = np.random.default_rng(0)

    def mk():
        return gym.make("HumanoidWBC-v0")

    venvs = {}
    for n in (2, 8):
        venvs[f"n{n}_1t"] = ThreadedVectorEnv([mk] * n, num_threads=1)
        venvs[f"n{n}_2t_per_env_map"] = PerEnvPool([mk] * n, 2)
        venvs[f"n{n}_2t_chunks"] = ThreadedVectorEnv([mk] * n, num_threads=2)
    for v in venvs.values():
        v.reset(seed=0)
        bench(v, 3, rng)
    rates = {k: [] for k in venvs}
    for _ in range(rounds):
        for k, v in venvs.items():
            rates[k].append(bench(v, 400 // v.num_envs, rng))
    out = {k: {"median": float(np.median(r)), "rounds": [round(x, 1) for x in r]} for k, r in rates.items()}
    for n in (2, 8):
        out[f"n{n}_chunks_over_per_env_map"] = float(np.median(np.array(rates[f"n{n}_2t_chunks"]) / np.array(rates[f"n{n}_2t_per_env_map"])))
        out[f"n{n}_chunks_2t_over_1t"] = float(np.median(np.array(rates[f"n{n}_2t_chunks"]) / np.array(rates[f"n{n}_1t"])))
    write_json(args.json, {"rounds": rounds, "env": "HumanoidWBC-v0", "mode": "wbc", "sizes": [2, 8]}, out, start)
    print(out)
    for v in venvs.values():
        v.close()


if __name__ == "__main__":
    main()
