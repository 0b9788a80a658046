"""A constant action through HumanoidWBCPushRecovery-v0's wbc mode, evaluated as the nominal law is
(``training.evaluate``: 100 episodes, Hubo-lite, the env's default pushes, seeds SEED..SEED+99):
what a policy that always gives the same adjustment to the stepping law gets (README.md, "The
law's own settings").

    python results/push_recovery/constant_action.py NAME SEED STEP_BLOCK [BEHIND_M]   # e.g. timing-1 5000 0,0,-1,0

STEP_BLOCK: the 4 entries of the ``step`` action block (offset forward, offset left, timing,
trigger; each in [-1, 1]); the CoM offset and force share blocks are 0. With BEHIND_M [m], the
block is given only while the observed capture point lies more than that behind the soles'
midpoint (its forward coordinate below -BEHIND_M: a backward push), else the zero action.
Writes ``law_settings/NAME.json`` here (about 5 min on an idle core).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from training import jsonio
from training.evaluate import evaluate


def block_start(structure: dict[str, int], block: str) -> int:
    """Where ``block`` starts in a vector laid out as ``structure`` (name -> size, in order)."""
    return sum(size for name, size in list(structure.items())[: list(structure).index(block)])


def main(name: str, seed: int, step_block: list[float], behind_m: float | None = None) -> None:
    def constant(obs: np.ndarray, env) -> np.ndarray:
        u = env.unwrapped
        action = np.zeros(env.action_space.shape, dtype=np.float32)
        if behind_m is not None and obs[block_start(u.observation_structure, "capture_point")] >= -behind_m:
            return action
        start = block_start(u.action_structure, "step")
        action[start : start + u.action_structure["step"]] = step_block
        return action

    constant.__name__ = f"step block {step_block}" + ("" if behind_m is None else f" while the capture point is {behind_m} m behind")
    result = evaluate("HumanoidWBCPushRecovery-v0", constant, 100, seed, env_kwargs={"robot": "hubo_lite"})
    out = Path(__file__).parent / "law_settings" / f"{name}.json"
    jsonio.write_json(out, result)
    print(name, result["summary"]["fell"], result["summary"]["steps_per_push"])


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), [float(x) for x in sys.argv[3].split(",")], float(sys.argv[4]) if len(sys.argv) > 4 else None)
