"""Scripted scenarios: the experiments of seed 001 (partial force control) as env drivers.

Each is a :class:`humanoid_env.envs.scenario.Scenario` (the hook the envs call, described
there). ``python -m training.evaluate --policy scripted`` runs these (``--scenario`` picks a
variant, see :data:`SCENARIOS`).

- :class:`WallLeanScenario` (``HumanoidWBCWall-v0``, ``lean``): the paper's wall experiment.
- :class:`ContactSwitchScenario` (``HumanoidWBC-v0``, ``ramp`` / ``abrupt``): lifting the right
  foot and putting it back, with the foot's force ramped through zero or switched abruptly.
- ``HumanoidWBCSeesaw-v0`` (``push`` / ``sine``): seed 002's seesaw experiments, in
  :mod:`humanoid_env.envs.seesaw_scenarios`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from humanoid_env.envs.scenario import NO_PUSHES, Scenario, min_jerk, rmse
from humanoid_env.envs.seesaw_scenarios import SeesawPushScenario, SeesawSineScenario
from wbc_layer import FramePositionTask, OrientationTask

__all__ = ["SCENARIOS", "ContactSwitchScenario", "Scenario", "WallLeanScenario", "make_scenario"]


class WallLeanScenario(Scenario):
    """Seed 001's wall experiment on ``HumanoidWBCWall-v0``.

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

    def reset(self, env) -> None:
        self._require_wbc(env)
        self.start_force = float(env.hand_force_command)
        self.com_start = env.com_nominal.copy()
        self.shift = np.array([0.0, -self.lean_m, 0.0])
        self.samples: dict[str, list[float]] = {k: [] for k in ("f1", "f2", "c1", "c2", "xy1", "xy2")}
        self.force_min = np.inf
        self.last_com = env.com()

    def update_task(self, env, time: float, dt: float) -> None:
        # Measure the state the last physics step produced, against the references it had.
        force = env._hand_normal_force()
        com = env.com()
        error = com - env.com_target
        for key, (t0, t1) in (("1", self.phase1), ("2", self.phase2)):
            if t0 <= time < t1:
                self.samples["f" + key].append(force - self.force_n)
                self.samples["c" + key].append(float(error @ error) ** 0.5)
                self.samples["xy" + key].append(float(error[:2] @ error[:2]) ** 0.5)
        if time >= self.phase1[0]:
            self.force_min = min(self.force_min, force)
        self.last_com = com
        # References for the coming step.
        s = min(time / self.force_ramp_end_s, 1.0) if self.force_ramp_end_s > 0 else 1.0
        env.hand_force_command = self.start_force + s * (self.force_n - self.start_force)
        s, s_dot = min_jerk(time, self.shift_start_s, self.shift_start_s + self.shift_duration_s)
        env.com_target = self.com_start + s * self.shift
        env.com_target_velocity = s_dot * self.shift
        env.com_goal = self.com_start + self.shift

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


class ContactSwitchScenario(Scenario):
    """Seed 001's contact-switching experiment on ``HumanoidWBC-v0``: lift the right foot.

    Timeline [s] (``ramp=True``; the paper's Table II):

    - 0.5-2.0: the CoM target moves over the left sole (minimum jerk); the right foot is a
      *controlled* contact whose normal-force target follows the static share of the weight
      for the CoM target, ``m g (y_left - y_com) / (y_left - y_right)``, down to 0, with weight
      ``force_weight`` = 10 (the left foot is supporting: no force task).
    - 2.0: the right-foot contact is switched off; 2.0-2.8 the sole rises ``lift_m`` = 0.05 m
      (position task on ``right_sole``, weight 1000, kp 100, kd 20, plus an orientation task that
      keeps it flat, weight 10), 2.8-3.2 it holds, 3.2-4.0 it comes back down to where it was
      (zero velocity at the ground: no impact).
    - 4.0: the contact is switched on again, as a controlled contact whose target (the same
      share) ramps from 0 back up while the CoM target returns to the centre (4.0-5.5).
    - 5.5-6.5: hold.

    ``ramp=False`` ("abrupt", the comparison of the paper's Fig. 3): the same CoM and foot
    motions and switching times, but no foot force is controlled (both feet supporting, no force
    tasks): the contact is removed and added while the QP's force distribution loads it.

    Metrics: ``max_force_jump_n``, the largest change of the right foot's MuJoCo-measured normal
    force between two consecutive control steps (WBC ticks, 2 ms) within 0.2 s before to 0.3 s
    after lift-off (2.0) and touch-down (4.0) [N]; the two parts ``lift_off_force_jump_n`` and
    ``touch_down_force_jump_n``; ``right_foot_force_at_lift_off_n`` (measured just before the
    switch) and ``foot_clearance_m`` (the sole's highest rise).
    """

    env_kwargs = dict(NO_PUSHES)

    def __init__(self, ramp: bool = True, lift_m: float = 0.05, force_weight: float = 10.0, time_scale: float = 1.0):
        self.ramp = bool(ramp)
        self.name = "ramp" if ramp else "abrupt"
        self.lift_m = float(lift_m)
        self.force_weight = float(force_weight)
        k = float(time_scale)
        self.t_shift = (0.5 * k, 2.0 * k)
        self.t_lift = 2.0 * k
        self.t_up = (2.0 * k, 2.8 * k)
        self.t_down = (3.2 * k, 4.0 * k)
        self.t_touch = 4.0 * k
        self.t_back = (4.0 * k, 5.5 * k)
        self.duration_s = 6.5 * k
        self.window = (0.2, 0.3)

    def reset(self, env) -> None:
        self._require_wbc(env)
        controller = env.controller
        d = env.data
        self.com_start = env.com_nominal.copy()
        left_sole = d.site_xpos[env.sole_sites[0]].copy()
        self.com_left = self.com_start.copy()
        self.com_left[1] = left_sole[1]
        self.sole_start = d.site_xpos[env.sole_sites[1]].copy()
        self.sole_rotation = d.site_xmat[env.sole_sites[1]].reshape(3, 3).copy()
        self.weight_n = float(env.weight_n)
        self.foot_y = (float(left_sole[1]), float(self.sole_start[1]))
        self.swing = FramePositionTask("right_sole_swing", 1000.0, kp=100.0, kd=20.0, frame="right_sole", active=False)
        self.swing.set_reference(self.sole_start)
        self.flat = OrientationTask("right_sole_flat", 10.0, kp=100.0, kd=20.0, frame="right_sole", active=False)
        self.flat.set_target(self.sole_rotation)
        controller.add_task(self.swing)
        controller.add_task(self.flat)
        self.contact_on = True
        self.previous_force: float | None = None
        self.jumps = {"lift_off": 0.0, "touch_down": 0.0}
        self.load_at_lift_off = float("nan")
        self.clearance = 0.0

    def _right_foot_target(self, env) -> float:
        """Right-foot normal-force target [N] of the ramp variant: the static share of the weight
        for the current CoM target, ``m g (y_left - y_com) / (y_left - y_right)``; it reaches 0
        when the CoM target is over the left sole and comes back up with it."""
        left, right = self.foot_y
        share = (left - float(env.com_target[1])) / (left - right)
        return self.weight_n * min(max(share, 0.0), 1.0)

    def update_task(self, env, time: float, dt: float) -> None:
        d = env.data
        force = float(env.sensor.measure(d)["right_foot"][2])
        for event, t_event in (("lift_off", self.t_lift), ("touch_down", self.t_touch)):
            if t_event - self.window[0] <= time <= t_event + self.window[1] and self.previous_force is not None:
                self.jumps[event] = max(self.jumps[event], abs(force - self.previous_force))
        if time < self.t_lift:
            self.load_at_lift_off = force
        self.previous_force = force
        self.clearance = max(self.clearance, float(d.site_xpos[env.sole_sites[1]][2] - self.sole_start[2]))
        # CoM over the left foot and back.
        if time < self.t_touch:
            s, s_dot = min_jerk(time, *self.t_shift)
        else:
            s, s_dot = min_jerk(time, *self.t_back)
            s, s_dot = 1.0 - s, -s_dot
        delta = self.com_left - self.com_start
        env.com_target = self.com_start + s * delta
        env.com_target_velocity = s_dot * delta

    def update_controller(self, env, time: float, dt: float) -> None:
        controller = env.controller
        swing = self.t_lift <= time < self.t_touch
        if swing and self.contact_on:
            controller.set_contact_active("right_foot", False)
            self.swing.active = self.flat.active = True
            self.contact_on = False
        elif not swing and not self.contact_on:
            controller.set_contact_active("right_foot", True)
            self.swing.active = self.flat.active = False
            self.contact_on = True
        if swing:
            up, up_dot = min_jerk(time, *self.t_up)
            down, down_dot = min_jerk(time, *self.t_down)
            height, velocity = self.lift_m * (up - down), self.lift_m * (up_dot - down_dot)
            self.swing.set_reference(self.sole_start + [0.0, 0.0, height], [0.0, 0.0, velocity])
        # Force tasks: the env set both feet's share targets; the script overrides them.
        controller.task("force_left_foot").active = False
        if self.ramp and not swing:
            controller.set_force_target("right_foot", self._right_foot_target(env), weight=self.force_weight)
        else:
            controller.task("force_right_foot").active = False

    def result(self) -> dict[str, Any]:
        return {
            "max_force_jump_n": float(max(self.jumps.values())),
            "lift_off_force_jump_n": float(self.jumps["lift_off"]),
            "touch_down_force_jump_n": float(self.jumps["touch_down"]),
            "right_foot_force_at_lift_off_n": float(self.load_at_lift_off),
            "foot_clearance_m": float(self.clearance),
        }


#: env id -> {variant name: factory}; the first variant is the default.
SCENARIOS: dict[str, dict[str, Any]] = {
    "HumanoidWBCWall-v0": {"lean": WallLeanScenario},
    "HumanoidWBC-v0": {"ramp": lambda: ContactSwitchScenario(ramp=True), "abrupt": lambda: ContactSwitchScenario(ramp=False)},
    "HumanoidWBCSeesaw-v0": {"push": SeesawPushScenario, "sine": SeesawSineScenario},  # seed 002
}


def make_scenario(env_id: str, name: str | None = None) -> Scenario:
    """The scenario ``name`` (None: the env's default) of ``env_id`` (``"humanoid_env:"`` allowed).

    Raises ``ValueError`` naming the valid choices.
    """
    key = env_id.split(":")[-1]
    if key not in SCENARIOS:
        raise ValueError(f"{env_id}: no scripted scenario (envs with one: {', '.join(SCENARIOS)})")
    variants = SCENARIOS[key]
    if name is None:
        name = next(iter(variants))
    if name not in variants:
        raise ValueError(f"{env_id}: unknown scenario {name!r}; valid ones are: {', '.join(variants)}")
    return variants[name]()
