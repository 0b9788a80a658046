"""Offscreen (``rgb_array``) and on-screen (``human``) rendering of a MuJoCo scene.

A failed OpenGL context is final for the process: after MuJoCo failed to create one (no EGL,
OSMesa or display for the backend ``MUJOCO_GL`` names), asking it again aborts the interpreter
(``__cxa_guard_acquire detected recursive initialization``, rc 134; plain ``mujoco.Renderer``
twice does the same). So the first failure is remembered (module level, per process) and every
later render raises the same [`RenderError`][humanoid_env.envs.rendering.RenderError] without touching MuJoCo's renderer. The
``human`` viewer needs a display: on Linux with neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set
it raises at once (GLFW would otherwise end the process). With one set, whether GLFW can open
a window there is asked first in a child process ([`glfw_probe`][humanoid_env.envs.rendering.glfw_probe]): MuJoCo's viewer ends
the process (``ERROR: could not initialize GLFW``, rc 1) when ``DISPLAY`` names an X server that
does not answer.
"""

from __future__ import annotations

import os
import subprocess
import sys

import mujoco
import numpy as np


class RenderError(RuntimeError):
    """Rendering is not possible in this process (no OpenGL context, no display)."""


#: mode -> the message of the first failure of that mode in this process (see the module docstring).
_FAILURES: dict[str, str] = {}


def _remember_failure(mode: str, message: str) -> RenderError:
    """Record that ``mode`` cannot render here; the error to raise (now and at every later call)."""
    _FAILURES[mode] = message
    return RenderError(message)


#: Longest wait for [`glfw_probe`][humanoid_env.envs.rendering.glfw_probe] [s]: a display that does not answer must not hang the env.
GLFW_PROBE_TIMEOUT_S = 30.0
#: What the probe runs: GLFW's init and a hidden window with an OpenGL context (exit 0 when both work).
_GLFW_PROBE = """
import sys
import glfw
glfw.ERROR_REPORTING = "ignore"
glfw.set_error_callback(lambda code, text: print(f"GLFW error {code}: {text.decode(errors='replace')}", file=sys.stderr))
if not glfw.init():
    sys.exit(3)
glfw.window_hint(glfw.VISIBLE, glfw.FALSE)
window = glfw.create_window(16, 16, "probe", None, None)
if not window:
    glfw.terminate()
    sys.exit(4)
glfw.make_context_current(window)
glfw.destroy_window(window)
glfw.terminate()
"""


def glfw_probe(timeout_s: float = GLFW_PROBE_TIMEOUT_S) -> str | None:
    """Whether GLFW can open a window with an OpenGL context here, asked in a child process
    (a failure there cannot end this one): None if it can, else why not (GLFW's own words)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _GLFW_PROBE], capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        return f"GLFW did not answer within {timeout_s:g} s (DISPLAY={os.environ.get('DISPLAY')!r})"
    except OSError as err:
        return f"the GLFW check could not run ({err})"
    if done.returncode == 0:
        return None
    lines = [line.strip() for line in done.stderr.splitlines() if line.startswith(("GLFW error", "ModuleNotFoundError"))]
    what = {3: "GLFW could not initialise", 4: "GLFW could not open a window"}.get(done.returncode, f"the GLFW check failed (rc {done.returncode})")
    return f"{what} (DISPLAY={os.environ.get('DISPLAY')!r}){': ' + lines[-1] if lines else ''}"


def display_missing() -> bool:
    """Whether a window cannot open: Linux (or another X11/Wayland system) with neither
    ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set. macOS and Windows need neither."""
    if sys.platform == "darwin" or sys.platform.startswith("win"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class SceneRenderer:
    """Renders ``data`` with a camera that follows ``track_body``.

    Args:
        model: the MuJoCo model.
        mode: ``"rgb_array"`` (offscreen, returns (height, width, 3) uint8) or ``"human"``
            (passive viewer window; needs a display).
        width: image width [px]; at most the scene's ``<global offwidth>``.
        height: image height [px]; at most the scene's ``<global offheight>``.
        track_body: body the camera looks at.

    `render` raises [`RenderError`][humanoid_env.envs.rendering.RenderError] (a ``RuntimeError``) when no OpenGL context or
    window can be made, and again, without asking MuJoCo, at every later call in the process.
    """

    def __init__(self, model: mujoco.MjModel, mode: str, width: int, height: int, track_body: str = "pelvis"):
        self.model = model
        self.mode = mode
        self.width, self.height = int(width), int(height)
        self.body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, track_body)
        self.camera = mujoco.MjvCamera()
        self.camera.type = mujoco.mjtCamera.mjCAMERA_FREE
        self.camera.distance = 2.4
        self.camera.azimuth = 140.0
        self.camera.elevation = -15.0
        self._renderer = None
        self._viewer = None

    def render(self, data: mujoco.MjData) -> np.ndarray | None:
        self.camera.lookat[:] = data.xpos[self.body]
        if self.mode == "rgb_array":
            if self._renderer is None:
                self._renderer = self._make_renderer()
            self._renderer.update_scene(data, camera=self.camera)
            return self._renderer.render().copy()
        if self._viewer is None:
            self._viewer = self._make_viewer(data)
        self._viewer.sync()
        return None

    def _make_renderer(self) -> mujoco.Renderer:
        """MuJoCo's offscreen renderer, or [`RenderError`][humanoid_env.envs.rendering.RenderError] (remembered for the process)."""
        if "rgb_array" in _FAILURES:
            raise RenderError(_FAILURES["rgb_array"])
        try:
            return mujoco.Renderer(self.model, self.height, self.width)
        except Exception as err:  # no OpenGL context: EGL / OSMesa / display missing
            raise _remember_failure(
                "rgb_array",
                "offscreen rendering failed: MuJoCo could not create an OpenGL context "
                f"(MUJOCO_GL={os.environ.get('MUJOCO_GL', '')!r}: {err}). Set MUJOCO_GL=egl (GPU/EGL) or "
                "MUJOCO_GL=osmesa (software) to a backend installed on this machine, in a new process "
                "(a failed context cannot be retried in this one).",
            ) from err

    def _make_viewer(self, data: mujoco.MjData):
        """MuJoCo's passive viewer window, or [`RenderError`][humanoid_env.envs.rendering.RenderError] (remembered for the process)."""
        if "human" in _FAILURES:
            raise RenderError(_FAILURES["human"])
        if display_missing():  # checked at every call (nothing was asked of GLFW yet)
            raise RenderError(
                "render_mode='human' needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set; "
                "use render_mode='rgb_array' for offscreen frames."
            )
        problem = glfw_probe()  # MuJoCo's viewer would end the process where GLFW fails
        if problem is not None:
            raise _remember_failure(
                "human",
                f"render_mode='human' needs a display GLFW can open: {problem}. Use render_mode='rgb_array' for "
                "offscreen frames, or point DISPLAY at a running X server.",
            )
        try:
            from mujoco import viewer

            return viewer.launch_passive(self.model, data)
        except Exception as err:
            raise _remember_failure("human", f"render_mode='human' needs a display; the viewer failed: {err}") from err

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None
