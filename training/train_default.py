"""``make train`` placeholder: evaluate the nominal controller on HumanoidWBC-v0.

Runs 2 short episodes (200 steps = 4 s each, default pushes) of the zero-action policy, i.e. the
whole-body controller alone, and writes ``runs/default/eval.json`` in the format of
``python -m training.evaluate``. Real training (PPO/SAC through stable-baselines3) arrives with
the training issue.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from training.evaluate import evaluate

OUT = Path("runs/default/eval.json")
ENV_ID = "HumanoidWBC-v0"


def main() -> int:
    print(f"train_default: evaluating the nominal WBC policy on {ENV_ID} (2 episodes x 200 steps, seed 0)")
    result = evaluate(ENV_ID, "nominal", episodes=2, seed=0, max_steps=200)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2))
    print(f"wrote {OUT}")
    for key, value in result["summary"].items():
        print(f"  {key}: {value:.6g}")
    print("No policy was trained: real training (python -m training.train, PPO/SAC) arrives with the training issue.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
