"""An outside anchor for the env's speed: EnvPool's MuJoCo ``Humanoid-v4`` beside our torque-mode env.

EnvPool (``envpool`` 1.2.5, C++ envs with their own MuJoCo) runs in its own virtualenv, so this
benchmark drives it through a worker process (``--envpool-python``, ``make bench-envpool`` makes
``.venv-envpool``) while our ``HumanoidWBC-v0`` in ``torque`` mode (the compiled loop, Hubo-lite
and the G1) runs here, the two taking turns in blocks of ``--seconds`` (random actions, resets
counted: EnvPool resets inside its step). Reported per env step and **per physics step** (EnvPool's
Humanoid: 5 steps of 3 ms per env step; ours: 10 of 2 ms), with one env each, and EnvPool with 2
envs on 2 threads beside our threaded vector env with 2 envs on 2 threads. The robots differ
(Gymnasium's 17-actuator humanoid with its contact-force observations, against our 23- and
29-joint robots): the anchor says what a physics step costs in each suite, not which model is
faster to simulate.

JSON: ``results = {"envpool": {"1": {...}, "2": {...}}, "ours": {robot: {"1": {...}, "2": {...}}}}``,
each ``{"env_steps_per_s", "physics_steps_per_s", "blocks"}``.

    python -m benchmarks.envpool_anchor --envpool-python .venv-envpool/bin/python [--seconds 3] [--rounds 5]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import gymnasium as gym
import numpy as np

from benchmarks.common import RESULTS, machine, write_json

#: The worker: reads "<num_envs> <seconds>" lines, answers "<env steps/s> <frame_skip>" of EnvPool's
#: Humanoid-v4.
WORKER = r"""
import sys, time
import numpy as np, envpool
envs = {}
for line in sys.stdin:
    n, seconds = line.split()
    n, seconds = int(n), float(seconds)
    if n not in envs:
        envs[n] = envpool.make("Humanoid-v4", env_type="gymnasium", num_envs=n, batch_size=n, num_threads=n, seed=0)
        envs[n].reset()
    env, rng = envs[n], np.random.default_rng(0)
    start, steps = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        env.step(rng.uniform(-0.4, 0.4, (n, 17)))
        steps += n
    print(repr(steps / (time.perf_counter() - start)), int(env.spec.config.frame_skip), flush=True)
"""


def ours_block(venv, seconds: float, rng: np.random.Generator, vector: bool) -> float:
    start, steps = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        if vector:
            venv.step(rng.uniform(-0.4, 0.4, (venv.num_envs, *venv.single_action_space.shape)).astype(np.float32))
            steps += venv.num_envs
        else:
            _, _, terminated, truncated, _ = venv.step(rng.uniform(-0.4, 0.4, venv.action_space.shape))
            steps += 1
            if terminated or truncated:
                venv.reset()
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envpool-python", required=True, help="the Python of a virtualenv with envpool 1.2.5")
    parser.add_argument("--seconds", type=float, default=3.0, help="per block")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--robots", nargs="+", default=["hubo_lite", "g1"])
    parser.add_argument("--json", default=str(RESULTS / "envpool_anchor.json"))
    args = parser.parse_args(argv)
    start_machine = machine()
    worker = subprocess.Popen([args.envpool_python, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def envpool_block(n: int) -> dict:
        worker.stdin.write(f"{n} {args.seconds}\n")
        worker.stdin.flush()
        line = worker.stdout.readline()
        if not line:
            raise RuntimeError(f"the EnvPool worker ({args.envpool_python}) stopped: is envpool 1.2.5 installed there?")
        rate, frame_skip = line.split()
        return {"env_steps_per_s": float(rate), "frame_skip": int(frame_skip)}

    ours = {}
    for robot in args.robots:
        single = gym.make("HumanoidWBC-v0", robot=robot, action_mode="torque")
        single.reset(seed=0)
        vector = gym.make_vec("HumanoidWBC-v0", num_envs=2, num_threads=2, robot=robot, action_mode="torque")
        vector.reset(seed=0)
        ours[robot] = {"1": (single, False), "2": (vector, True)}
    frame_skip_ours = gym.make("HumanoidWBC-v0").unwrapped.frame_skip
    rates: dict = {}
    rng = np.random.default_rng(0)
    frame_skip_envpool = None
    for _ in range(args.rounds):
        for n in (1, 2):
            answer = envpool_block(n)
            frame_skip_envpool = answer["frame_skip"]
            rates.setdefault(("envpool", None, n), []).append(answer["env_steps_per_s"])
            for robot, contenders in ours.items():
                venv, is_vector = contenders[str(n)]
                rates.setdefault(("ours", robot, n), []).append(ours_block(venv, args.seconds, rng, is_vector))
    worker.stdin.close()
    worker.wait(timeout=30)
    results: dict = {"envpool": {}, "ours": {robot: {} for robot in ours}}
    for (suite, robot, n), blocks in rates.items():
        skip = frame_skip_envpool if suite == "envpool" else frame_skip_ours
        row = {"env_steps_per_s": float(np.median(blocks)), "physics_steps_per_s": float(np.median(blocks)) * skip, "blocks": blocks}
        (results["envpool"] if suite == "envpool" else results["ours"][robot])[str(n)] = row
    for n in ("1", "2"):
        line = f"  {n} env(s): EnvPool Humanoid-v4 {results['envpool'][n]['physics_steps_per_s']:,.0f} physics steps/s"
        for robot in ours:
            line += f"; ours {robot} (torque) {results['ours'][robot][n]['physics_steps_per_s']:,.0f}"
        print(line)
    settings = {**vars(args), "frame_skip_envpool": frame_skip_envpool, "frame_skip_ours": frame_skip_ours}
    write_json(args.json, settings, results, start_machine)
    return results


if __name__ == "__main__":
    sys.exit(main() and 0)
