"""Train a PPO policy on ``HumanoidWBC-v0`` (wbc mode) with stable-baselines3 and evaluate it.

A minimal loop, without the run-folder machinery of ``python -m training.train``::

    python examples/train_ppo.py --timesteps 20000 --out out/train_ppo
"""

import argparse
from pathlib import Path

import gymnasium as gym
from stable_baselines3 import PPO

import humanoid_env  # noqa: F401  (registers the environments)
from training.jsonio import dumps  # strict JSON (NaN written as null)

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--timesteps", type=int, default=20_000, help="training env steps")
parser.add_argument("--eval-steps", type=int, default=250, help="env steps of the evaluation episode (50 Hz)")
parser.add_argument("--out", type=Path, default=Path("out/train_ppo"), help="output folder")
args = parser.parse_args()
args.out.mkdir(parents=True, exist_ok=True)

env = gym.make("HumanoidWBC-v0")
model = PPO("MlpPolicy", env, n_steps=min(2048, max(64, args.timesteps)), batch_size=64, seed=0, verbose=0)
model.learn(total_timesteps=args.timesteps)
model.save(args.out / "model.zip")

eval_env = gym.make("HumanoidWBC-v0", max_episode_steps=args.eval_steps)
obs, _ = eval_env.reset(seed=1000)
total, steps, fell, done = 0.0, 0, False, False
while not done:
    action, _ = model.predict(obs, deterministic=True)
    obs, reward, fell, truncated, info = eval_env.step(action)
    total, steps, done = total + float(reward), steps + 1, fell or truncated
result = {"timesteps": args.timesteps, "return": total, "length": steps, "fell": bool(fell), "com": info["com"].tolist()}
(args.out / "evaluation.json").write_text(dumps(result, indent=2))
print(dumps(result, indent=2))
