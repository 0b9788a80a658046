"""The wall experiment of *Partial Force Control of Constrained Floating-Base Robots* (Del Prete
et al.) as a scripted scenario on ``HumanoidWBCWall-v0``: the right hand pushes on a wall with a
regulated normal force while the CoM moves towards the wall."""

from __future__ import annotations

from typing import Any

import numpy as np

from humanoid_env.scenarios.base import NO_PUSHES, Scenario, rmse
from wbc_layer.references import MinJerkSegment


class WallLeanScenario(Scenario):
    """The wall experiment of *Partial Force Control of Constrained Floating-Base Robots* on ``HumanoidWBCWall-v0``.

    Timeline [s]: the hand's commanded normal force ramps from the settled one to
    ``force_n`` = 20 N by ``force_ramp_end_s`` = 0.5 (CoM target at the settled CoM);
    steady phase 1 ``[1.0, shift_start_s = 2.0]``; the CoM target moves by ``lean_m`` = 0.03 m
    towards the wall (-y, towards the right foot), minimum-jerk over ``shift_duration_s`` = 1.0;
    steady phase 2 from ``shift_start + shift_duration + 0.5`` = 3.5 to ``duration_s`` = 6.0.

    Metrics (every physics step of the steady phases): ``hand_force_rmse_n``, the RMS of the
    MuJoCo-measured hand normal force minus ``force_n`` [N]; ``com_rmse_m``, the RMS of
    ``|com - com_target|`` (3D) [m]; also ``com_rmse_xy_m`` (ground projection, the paper's
    task), the per-phase values (``*_phase1``, ``*_phase2``), ``hand_force_min_n`` and
    ``lean_achieved_m`` (the CoM's final lateral displacement towards the wall).
    Paper (CoMan simulator): about 0.01 N and 0.6 mm.
    """

    name = "lean"
    env_kwargs = dict(NO_PUSHES)

    def __init__(self, force_n: float = 20.0, lean_m: float = 0.03, force_ramp_end_s: float = 0.5,
                 shift_start_s: float = 2.0, shift_duration_s: float = 1.0, duration_s: float = 6.0):
        self.force_n = float(force_n)
        self.lean_m = float(lean_m)
        self.force_ramp_end_s = float(force_ramp_end_s)
        self.shift_start_s = float(shift_start_s)
        self.shift_duration_s = float(shift_duration_s)
        self.duration_s = float(duration_s)
        self.phase1 = (1.0, self.shift_start_s)
        self.phase2 = (self.shift_start_s + self.shift_duration_s + 0.5, self.duration_s)
        if not (self.phase1[0] < self.phase1[1] and self.phase2[0] < self.phase2[1]):
            raise ValueError("WallLeanScenario: the steady phases are empty; lengthen duration_s or shift_start_s")

    def reset(self, context) -> None:
        self.start_force = float(context.command.hand_force_command)
        self.com_start = context.plant.com_nominal.copy()
        self.shift = np.array([0.0, -self.lean_m, 0.0])
        self.samples: dict[str, list[float]] = {k: [] for k in ("f1", "f2", "c1", "c2", "xy1", "xy2")}
        self.force_min = np.inf
        self.last_com = context.plant.com()

    def update_task(self, command, context, time: float, dt: float) -> None:
        # Measure the state the last physics step produced, against the references it had.
        force = context.task.hand_normal_force()
        com = context.plant.com()
        error = com - command.com_target.position
        for key, (t0, t1) in (("1", self.phase1), ("2", self.phase2)):
            if t0 <= time < t1:
                self.samples["f" + key].append(force - self.force_n)
                self.samples["c" + key].append(float(error @ error) ** 0.5)
                self.samples["xy" + key].append(float(error[:2] @ error[:2]) ** 0.5)
        if time >= self.phase1[0]:
            self.force_min = min(self.force_min, force)
        self.last_com = com
        # References for the coming step: the force ramp, and the CoM's minimum-jerk shift as a
        # segment the env samples at every physics step.
        s = min(time / self.force_ramp_end_s, 1.0) if self.force_ramp_end_s > 0 else 1.0
        command.hand_force_command = self.start_force + s * (self.force_n - self.start_force)
        if command.com_target.segment is None:
            t0 = self.shift_start_s
            command.com_target.follow(MinJerkSegment(t0, t0 + self.shift_duration_s, self.com_start, self.shift))
        command.com_goal = self.com_start + self.shift

    def result(self) -> dict[str, Any]:
        f = self.samples
        return {
            "hand_force_rmse_n": rmse(f["f1"] + f["f2"]),
            "com_rmse_m": rmse(f["c1"] + f["c2"]),
            "com_rmse_xy_m": rmse(f["xy1"] + f["xy2"]),
            "hand_force_rmse_phase1_n": rmse(f["f1"]),
            "hand_force_rmse_phase2_n": rmse(f["f2"]),
            "com_rmse_phase1_m": rmse(f["c1"]),
            "com_rmse_phase2_m": rmse(f["c2"]),
            "hand_force_min_n": float(self.force_min) if np.isfinite(self.force_min) else 0.0,
            "lean_achieved_m": float(self.com_start[1] - self.last_com[1]),
        }
