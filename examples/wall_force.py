"""Hand-force regulation on the wall: the wall experiment of *Partial Force Control of
Constrained Floating-Base Robots* on ``HumanoidWBCWall-v0``.

The right hand's normal force on the wall is brought to 20 N, then the CoM reference moves 3 cm
towards the wall; the script writes the scenario's metrics (hand-force and CoM RMSE over the
steady phases) to ``OUT/wall_force.json`` and a PNG of the measured hand force::

    python examples/wall_force.py --seconds 6 --out out/wall_force   # the paper's timeline

Shorter runs (at least 3 s) compress the timeline: the steady phase before the lean ends at
``1 + 0.15 (T - 1)`` s, the lean takes ``0.35 (T - 1)`` s.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import humanoid_env  # noqa: E402, F401  (registers the environments)
from humanoid_env.scenarios import WallLeanScenario  # noqa: E402
from training.jsonio import dumps  # noqa: E402  (strict JSON: NaN written as null)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="simulated time [s], at least 3")
    parser.add_argument("--out", type=Path, default=Path("out/wall_force"), help="output folder")
    args = parser.parse_args(argv)
    if args.seconds < 3.0:
        parser.error("--seconds must be at least 3 (two steady phases around the lean)")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.seconds >= 6.0:
        scenario = WallLeanScenario(duration_s=args.seconds)  # the paper's timeline, then longer
    else:
        T = args.seconds
        scenario = WallLeanScenario(shift_start_s=1.0 + 0.15 * (T - 1.0), shift_duration_s=0.35 * (T - 1.0), duration_s=T)

    env = gym.make("HumanoidWBCWall-v0", **scenario.env_kwargs)
    env.unwrapped.set_scenario(scenario)
    obs, info = env.reset(seed=0)
    times, forces, fell = [], [], False
    while not scenario.finished(env.unwrapped):
        obs, _, terminated, _, info = env.step(scenario.action(obs, env))
        times.append(float(env.unwrapped.data.time))
        forces.append(info["hand_force_n"])
        if terminated:
            fell = True
            break
    env.close()

    fig, ax = plt.subplots(figsize=(7, 3))
    ax.plot(times, forces, label="hand normal force (MuJoCo)")
    ax.axhline(scenario.force_n, color="k", linestyle="--", label="target")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("[N]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out / "wall_force.png", dpi=80)
    result = {"seconds": args.seconds, "fell": fell, **scenario.result()}
    (args.out / "wall_force.json").write_text(dumps(result, indent=2))
    print(dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
