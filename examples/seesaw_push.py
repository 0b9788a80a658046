"""The seesaw push of *Modeling and Control of Humanoid Robots in Dynamic Environments: iCub
Balancing on a Seesaw* on ``HumanoidWBCSeesaw-v0``.

The robot stands on the board for ``--stand`` seconds, takes a 100 N lateral push on the torso
for 0.01 s, and recovers for ``--recover`` seconds. ``--model rigid`` makes the controller treat
the board as fixed ground: the robot does not fall, but the board rocks and is not level again
(the paper's timeline: 0.18 rad RMS, up to 0.25 rad after the push; the coupled model: level
again 0.76 s after it). Writes ``OUT/seesaw_push.json`` (the scenario's metrics, strict JSON: a
metric that has no value, e.g. ``time_to_level_s`` when the board is never level again, is
``null``) and a PNG of the board angle::

    python examples/seesaw_push.py --stand 20 --recover 10 --out out/seesaw_push   # the paper's timeline
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import humanoid_env  # noqa: E402, F401  (registers the environments)
from humanoid_env.scenarios import SeesawPushScenario  # noqa: E402
from training.jsonio import dumps  # noqa: E402  (strict JSON: NaN written as null)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stand", type=float, default=20.0, help="standing time before the push [s]")
    parser.add_argument("--recover", type=float, default=10.0, help="time after the push [s], at most --stand")
    parser.add_argument("--model", choices=("coupled", "rigid"), default="coupled", help="the controller's seesaw model")
    parser.add_argument("--out", type=Path, default=Path("out/seesaw_push"), help="output folder")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    scenario = SeesawPushScenario(stand_s=args.stand, recover_s=args.recover)
    env = gym.make("HumanoidWBCSeesaw-v0", **scenario.env_kwargs, seesaw_model=args.model)
    env.unwrapped.set_scenario(scenario)
    obs, info = env.reset(seed=0)
    fell, fell_at = False, None
    while not scenario.finished(env.unwrapped):
        obs, _, terminated, _, info = env.step(scenario.action(obs, env))
        if terminated:
            fell, fell_at = True, float(env.unwrapped.data.time)
            break
    env.close()

    fig, ax = plt.subplots(figsize=(7, 3))
    ax.plot(scenario.times, np.degrees(scenario.angles), label=f"board angle ({args.model} model)")
    ax.axvline(args.stand, color="k", linestyle="--", label="push")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("[deg]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out / "seesaw_push.png", dpi=80)
    result = {"model": args.model, "fell": fell, "fell_at_s": fell_at, **scenario.result()}
    (args.out / "seesaw_push.json").write_text(dumps(result, indent=2))
    print(dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
