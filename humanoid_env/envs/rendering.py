"""Offscreen (``rgb_array``) and on-screen (``human``) rendering of a MuJoCo scene."""

from __future__ import annotations

import mujoco
import numpy as np


class SceneRenderer:
    """Renders ``data`` with a camera that follows ``track_body``.

    Args:
        model: the MuJoCo model.
        mode: ``"rgb_array"`` (offscreen, returns (height, width, 3) uint8) or ``"human"``
            (passive viewer window; needs a display).
        width: image width [px]; at most the scene's ``<global offwidth>``.
        height: image height [px]; at most the scene's ``<global offheight>``.
        track_body: body the camera looks at.
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
                try:
                    self._renderer = mujoco.Renderer(self.model, self.height, self.width)
                except Exception as err:  # no OpenGL context: EGL / OSMesa / display missing
                    raise RuntimeError(
                        "offscreen rendering failed: MuJoCo could not create an OpenGL context "
                        f"({err}). Set MUJOCO_GL=egl (GPU/EGL) or MUJOCO_GL=osmesa (software) "
                        "to a backend installed on this machine."
                    ) from err
            self._renderer.update_scene(data, camera=self.camera)
            return self._renderer.render().copy()
        if self._viewer is None:
            try:
                from mujoco import viewer

                self._viewer = viewer.launch_passive(self.model, data)
            except Exception as err:
                raise RuntimeError(f"render_mode='human' needs a display; the viewer failed: {err}") from err
        self._viewer.sync()
        return None

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None
