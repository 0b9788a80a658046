"""How many of the long ablation's evaluation episodes a sub-millimetre change decides.

The nominal controller (zero action, wbc mode) is run on the ablation's 10 evaluation episodes
(reset seeds 100000-100009, default pushes) once as is and once per draw of a small *constant*
action, each entry uniform in [-AMPLITUDE, AMPLITUDE]: at 0.01 a CoM reference offset of at most
0.4 mm (0.5 mm down) and a left-foot force share within 0.5 +- 0.004. Such an action changes no
task a user would notice; an episode whose outcome it flips is decided by chaos, not by skill.

    python results/ablation/scale/nominal_sensitivity.py [--draws 8] [--amplitude 0.01]

writes ``nominal_sensitivity.json`` beside this file: per draw the action and the 10 fall flags,
and per episode the fraction of draws that fell. About 10 min on one core.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the environments)
from training.ablation import EVAL_SEED
from training.evaluate import evaluate

ENV_ID = "HumanoidWBC-v0"
EPISODES = 10  # the ablation's evaluation episodes: reset seeds EVAL_SEED, EVAL_SEED + 1, ...


def falls(action: np.ndarray) -> list[int]:
    """1 where each evaluation episode ends in a fall under the constant ``action`` (wbc mode)."""

    def constant(obs, env):
        return action

    record = evaluate(ENV_ID, constant, EPISODES, EVAL_SEED, env_kwargs={"action_mode": "wbc"})
    return [int(episode["fell"]) for episode in record["episodes"]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=8, help="constant actions drawn")
    parser.add_argument("--amplitude", type=float, default=0.01, help="bound on each action entry")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draws")
    args = parser.parse_args(argv)
    shape = gym.make(ENV_ID, action_mode="wbc").action_space.shape
    rng = np.random.default_rng(args.seed)
    nominal = falls(np.zeros(shape, dtype=np.float32))
    print(f"nominal: {nominal} ({sum(nominal)} falls)", flush=True)
    draws = []
    for _ in range(args.draws):
        action = (rng.uniform(-1.0, 1.0, shape) * args.amplitude).astype(np.float32)
        flags = falls(action)
        draws.append({"action": action.tolist(), "falls": flags})
        print(f"{np.round(action, 4)}: {flags} ({sum(flags)} falls)", flush=True)
    per_draw = [sum(d["falls"]) for d in draws]
    out = {
        "env": ENV_ID,
        "seeds": list(range(EVAL_SEED, EVAL_SEED + EPISODES)),
        "amplitude": args.amplitude,
        "nominal_falls": nominal,
        "draws": draws,
        "falls_per_draw": {"min": min(per_draw), "max": max(per_draw), "mean": float(np.mean(per_draw))},
        "fall_fraction_per_episode": np.mean([d["falls"] for d in draws], axis=0).tolist(),
    }
    path = Path(__file__).with_name("nominal_sensitivity.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"falls per draw {out['falls_per_draw']}; wrote {path}")


if __name__ == "__main__":
    main()
