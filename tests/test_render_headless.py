"""Rendering without a display fails politely: in a child process with ``DISPLAY`` unset, or set to
an X server that does not answer, Gymnasium's ``check_env`` (default arguments, so it renders
``"human"``) and ``render_mode="human"`` raise a Python error naming the problem; the process
never dies (MuJoCo's viewer would end it, rc 1, ``ERROR: could not initialize GLFW``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENVS = ("HumanoidWBC-v0", "HumanoidWBCWall-v0", "HumanoidWBCSeesaw-v0")
#: A child's whole run takes 5-15 s here; this much means it hangs (a display that never answers).
TIMEOUT_S = 240
#: Printed by the child as its last line: it got to the end alive.
ALIVE = "ALIVE"

#: Run in the child: for each env id, check_env with its defaults, then render_mode="human"
#: through reset, step and render, and an offscreen frame; one JSON record per attempt.
CHILD = r"""
import json, sys, warnings
import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env
import humanoid_env

warnings.simplefilter("ignore")

def attempt(what, call):
    try:
        value = call()
        record = {"what": what, "outcome": "ok", "type": type(value).__name__}
    except Exception as err:
        record = {"what": what, "outcome": type(err).__name__, "message": str(err)}
    print(json.dumps(record), flush=True)

for env_id in sys.argv[1:]:
    attempt(f"{env_id} check_env", lambda: check_env(gym.make(env_id)))
    env = gym.make(env_id, render_mode="human")
    attempt(f"{env_id} human reset", lambda: env.reset(seed=0))
    attempt(f"{env_id} human step", lambda: env.step(np.zeros(env.action_space.shape)))
    attempt(f"{env_id} human render", env.render)
    env.close()
    offscreen = gym.make(env_id, render_mode="rgb_array")
    offscreen.reset(seed=0)
    attempt(f"{env_id} rgb_array render", offscreen.render)
print("ALIVE", flush=True)
"""


def run_child(display: str | None, env_ids: tuple[str, ...]) -> dict[str, dict]:
    """Run :data:`CHILD` with ``DISPLAY`` set to ``display`` (None: unset, and no Wayland); its
    records by attempt. Fails unless the child exits 0 and printed :data:`ALIVE` last."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    if display is not None:
        env["DISPLAY"] = display
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *env_ids], cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
    )
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines and lines[-1] == ALIVE, (
        f"the process died (rc {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    records = [json.loads(line) for line in lines[:-1]]
    return {r["what"]: r for r in records}


def assert_polite(records: dict[str, dict], env_ids: tuple[str, ...], *reason: str) -> None:
    """check_env passed or raised RenderError; human mode's reset worked, its step and render
    raised RenderError naming ``reason``; the offscreen frame is an image or a RenderError."""
    for env_id in env_ids:
        check = records[f"{env_id} check_env"]
        assert check["outcome"] in ("ok", "RenderError"), check
        assert records[f"{env_id} human reset"]["outcome"] == "ok"
        for what in ("step", "render"):
            record = records[f"{env_id} human {what}"]
            assert record["outcome"] == "RenderError", record
            assert all(word in record["message"] for word in reason), record
            assert "rgb_array" in record["message"], record  # what to use instead
        offscreen = records[f"{env_id} rgb_array render"]
        assert offscreen in ({"what": offscreen["what"], "outcome": "ok", "type": "ndarray"},) or (
            offscreen["outcome"] == "RenderError" and "MUJOCO_GL" in offscreen["message"]
        ), offscreen


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="no DISPLAY there: windows open without one")
def test_no_display_set():
    records = run_child(None, ENVS)
    assert_polite(records, ENVS, "DISPLAY", "WAYLAND_DISPLAY")


def _silent_display() -> str:
    """An X display number nothing serves here (``:99`` unless a server holds it)."""
    for number in range(99, 200):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
            return f":{number}"
    pytest.skip("every display :99-:199 has an X server")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="an X11 display name")
def test_a_display_that_does_not_answer():
    display = _silent_display()
    records = run_child(display, ENVS[:1])
    assert_polite(records, ENVS[:1], "GLFW", display)
