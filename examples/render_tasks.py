"""A picture of the robot in each task (the README's): each env in wbc mode, zero action.

Offscreen rendering needs an OpenGL backend: on a machine without a display, ``MUJOCO_GL=egl``
(a GPU driver's EGL, or Mesa's: Debian ``libegl1``) or ``MUJOCO_GL=osmesa`` (software, Debian
``libosmesa6``); see docs/install.md, "Headless rendering". Writes ``OUT/tasks.png``::

    MUJOCO_GL=egl python examples/render_tasks.py --seconds 1 --out out/render_tasks

``--out docs/images`` replaces the README's picture (a tracked file: only to update it).
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

TASKS = {"HumanoidWBC-v0": "balance", "HumanoidWBCWall-v0": "wall", "HumanoidWBCSeesaw-v0": "seesaw"}
#: Camera azimuth per env [deg]: the wall is on the robot's right, so look at it from the left.
AZIMUTH = {"HumanoidWBCWall-v0": 220.0}


def render(env_id: str, seconds: float) -> np.ndarray:
    """(height, width, 3) frame of ``env_id`` after ``seconds`` [s] of the nominal controller."""
    env = gym.make(env_id, render_mode="rgb_array", push_magnitude_n=(0.0, 0.0))
    env.reset(seed=0)
    for _ in range(round(seconds / env.unwrapped.dt)):
        env.step(np.zeros(env.action_space.shape))
    env.render()  # makes the renderer
    if env_id in AZIMUTH:
        env.unwrapped._renderer.camera.azimuth = AZIMUTH[env_id]
    frame = env.render()
    env.close()
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="simulated time before the picture [s]")
    parser.add_argument(
        "--out", type=Path, default=Path("out/render_tasks"), help="folder for tasks.png (docs/images: the README's)"
    )
    args = parser.parse_args()
    frames = [render(env_id, args.seconds) for env_id in TASKS]
    figure, axes = plt.subplots(1, len(frames), figsize=(4 * len(frames), 3))
    for ax, frame, (env_id, name) in zip(axes, frames, TASKS.items(), strict=True):
        ax.imshow(frame)
        ax.set_title(f"{name}: {env_id}", fontsize=9)
        ax.axis("off")
    figure.tight_layout()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "tasks.png"
    figure.savefig(path, dpi=100)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
