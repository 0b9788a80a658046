"""The contact-switching experiment of *Partial Force Control of Constrained Floating-Base Robots*
(Del Prete et al.) as a scripted scenario on ``HumanoidWBC-v0``: the right foot is unloaded,
lifted and put back, with its force ramped through zero or switched abruptly."""

from __future__ import annotations

from typing import Any

from humanoid_env.scenarios.base import NO_PUSHES, Scenario, min_jerk
from wbc_layer import FramePositionTask, OrientationTask


class ContactSwitchScenario(Scenario):
    """The contact-switching experiment of *Partial Force Control of Constrained
    Floating-Base Robots* on ``HumanoidWBC-v0``: lift the right foot.

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

    def reset(self, context) -> None:
        plant = context.plant
        d = plant.data
        self.com_start = plant.com_nominal.copy()
        left_sole = d.site_xpos[plant.sole_sites[0]].copy()
        self.com_left = self.com_start.copy()
        self.com_left[1] = left_sole[1]
        self.sole_start = d.site_xpos[plant.sole_sites[1]].copy()
        self.sole_rotation = d.site_xmat[plant.sole_sites[1]].reshape(3, 3).copy()
        self.weight_n = float(context.weight_n)
        self.foot_y = (float(left_sole[1]), float(self.sole_start[1]))
        sole = context.task.description.feet["right_foot"].site
        self.swing = FramePositionTask("right_sole_swing", 1000.0, kp=100.0, kd=20.0, frame=sole, active=False)
        self.swing.set_reference(self.sole_start)
        self.flat = OrientationTask("right_sole_flat", 10.0, kp=100.0, kd=20.0, frame=sole, active=False)
        self.flat.set_target(self.sole_rotation)
        self.contact_on = True
        self.previous_force: float | None = None
        self.jumps = {"lift_off": 0.0, "touch_down": 0.0}
        self.load_at_lift_off = float("nan")
        self.clearance = 0.0

    def controller_tasks(self, context) -> list:
        """The swing foot's position task and the orientation task that keeps it flat (off until lift-off)."""
        return [self.swing, self.flat]

    def _right_foot_target(self, command) -> float:
        """Right-foot normal-force target [N] of the ramp variant: the static share of the weight
        for the current CoM target, ``m g (y_left - y_com) / (y_left - y_right)``; it reaches 0
        when the CoM target is over the left sole and comes back up with it."""
        left, right = self.foot_y
        share = (left - float(command.com_target.position[1])) / (left - right)
        return self.weight_n * min(max(share, 0.0), 1.0)

    def update_task(self, command, context, time: float, dt: float) -> None:
        plant = context.plant
        d = plant.data
        force = float(plant.sensor.measure(d)["right_foot"][2])
        for event, t_event in (("lift_off", self.t_lift), ("touch_down", self.t_touch)):
            if t_event - self.window[0] <= time <= t_event + self.window[1] and self.previous_force is not None:
                self.jumps[event] = max(self.jumps[event], abs(force - self.previous_force))
        if time < self.t_lift:
            self.load_at_lift_off = force
        self.previous_force = force
        self.clearance = max(self.clearance, float(d.site_xpos[plant.sole_sites[1]][2] - self.sole_start[2]))
        # CoM over the left foot and back.
        if time < self.t_touch:
            s, s_dot = min_jerk(time, *self.t_shift)
        else:
            s, s_dot = min_jerk(time, *self.t_back)
            s, s_dot = 1.0 - s, -s_dot
        delta = self.com_left - self.com_start
        command.com_target.set(self.com_start + s * delta, s_dot * delta)

    def update_controller(self, references, context, time: float, dt: float) -> None:
        right = references.contacts["right_foot"]
        swing_task, flat_task = references.tasks[self.swing.name], references.tasks[self.flat.name]
        swing = self.t_lift <= time < self.t_touch
        if swing and self.contact_on:
            right.active = False
            swing_task.active = flat_task.active = True
            self.contact_on = False
        elif not swing and not self.contact_on:
            right.active = True
            swing_task.active = flat_task.active = False
            self.contact_on = True
        if swing:
            up, up_dot = min_jerk(time, *self.t_up)
            down, down_dot = min_jerk(time, *self.t_down)
            height, velocity = self.lift_m * (up - down), self.lift_m * (up_dot - down_dot)
            swing_task.point.position[:] = self.sole_start + [0.0, 0.0, height]
            swing_task.point.velocity[:] = [0.0, 0.0, velocity]
        # Force tasks: the task's decoder set both feet's share targets; the script overrides them.
        references.contacts["left_foot"].release_force()
        if self.ramp and not swing:
            right.track(self._right_foot_target(context.command), self.force_weight)
        else:
            right.release_force()

    def result(self) -> dict[str, Any]:
        return {
            "max_force_jump_n": float(max(self.jumps.values())),
            "lift_off_force_jump_n": float(self.jumps["lift_off"]),
            "touch_down_force_jump_n": float(self.jumps["touch_down"]),
            "right_foot_force_at_lift_off_n": float(self.load_at_lift_off),
            "foot_clearance_m": float(self.clearance),
        }
