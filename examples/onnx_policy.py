"""Run an exported policy in its env with onnxruntime and numpy only: no torch, no stable-baselines3.

Export a shipped (or trained) policy first, then run it::

    python -m training.export --run policies/HumanoidWBC-v0 --onnx out/onnx_policy/balance.onnx
    python examples/onnx_policy.py --onnx out/onnx_policy/balance.onnx --steps 500 --out out/onnx_policy

The ONNX file says which env it acts in and with which ``gym.make`` keywords (its metadata); it
takes the raw observation (float32, shape (1, n)) and gives the action to step with (its
observation normalisation and action clipping are inside the graph). Writes
``onnx_policy.json``: the episode's return, length, whether the robot fell, the final
observation, the median time of one action [ms], and whether torch was imported (it must not be).
"""

import argparse
import json
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import onnxruntime as ort

import humanoid_env  # noqa: F401  (registers the environments)
from training import jsonio  # strict JSON (the standard library only)

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--onnx", type=Path, required=True, help="a policy written by python -m training.export")
parser.add_argument("--steps", type=int, default=500, help="env steps at most (50 Hz)")
parser.add_argument("--seed", type=int, default=0, help="seed of the env reset")
parser.add_argument("--out", type=Path, default=Path("out/onnx_policy"), help="output folder")
args = parser.parse_args()
if args.steps < 1:
    parser.error(f"--steps must be >= 1, got {args.steps}")
args.out.mkdir(parents=True, exist_ok=True)

options = ort.SessionOptions()
options.intra_op_num_threads = 1  # a small MLP: one thread is fastest
session = ort.InferenceSession(str(args.onnx), sess_options=options, providers=["CPUExecutionProvider"])
meta = session.get_modelmeta().custom_metadata_map
env_id, env_kwargs = meta["env_id"], json.loads(meta["env_kwargs"])

env = gym.make(env_id, max_episode_steps=args.steps, **env_kwargs)
obs, _ = env.reset(seed=args.seed)
total, steps, fell, done, action_s = 0.0, 0, False, False, []
while not done:
    start = time.perf_counter()
    action = session.run(["action"], {"obs": obs.reshape(1, -1).astype(np.float32)})[0][0]
    action_s.append(time.perf_counter() - start)
    obs, reward, fell, truncated, _ = env.step(action)
    total, steps, done = total + float(reward), steps + 1, fell or truncated
env.close()
result = {
    "onnx": str(args.onnx),
    "env_id": env_id,
    "env_kwargs": env_kwargs,
    "seed": args.seed,
    "return": total,
    "length": steps,
    "fell": bool(fell),
    "final_observation": obs.tolist(),
    "action_ms_median": 1e3 * float(np.median(action_s)),
    "torch_imported": "torch" in sys.modules,
    "stable_baselines3_imported": "stable_baselines3" in sys.modules,
}
(args.out / "onnx_policy.json").write_text(jsonio.dumps(result, indent=2))
print(jsonio.dumps({key: value for key, value in result.items() if key != "final_observation"}, indent=2))
