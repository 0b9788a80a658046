"""The stepping law in the env: a reference stage that takes a step when standing cannot capture.

``gym.make("HumanoidWBC-v0", stepping=True)`` (wbc mode only) puts a
[`SteppingStage`][humanoid_env.envs.stepping.SteppingStage] after the standing decoder in the
balance task's reference chain. Every physics step it hands the pure law
([`wbc_layer.stepping.SteppingLaw`][wbc_layer.stepping.SteppingLaw]) what a robot would measure:
the capture point ``xi = c + v / omega`` of the sensed CoM state (the estimate, with
``estimation``; ``omega = sqrt(g / z_c)`` at the nominal CoM height above the soles, the height
the law plans), the soles' poses and the feet's MuJoCo-measured normal forces; it writes the
law's answer into the references:

- the swing foot's contact: its activity and its normal-force upper bound (the unloading and
  loading ramps), with ``min_normal_force`` 0 while the step is under way;
- the feet's force-share tasks (the standing decoder's) are released from the decision until the
  step is loaded: the ramps, not a share, distribute the weight then; the unloading foot's force
  task tracks its bound's ramp down (weight ``UNLOADING_FORCE_WEIGHT``), so its load follows the
  ramp instead of dropping at once below it;
- the swing foot's sole position task (``<side>_sole_swing``) and flat-orientation task
  (``<side>_sole_flat``): on during the swing only, following the swing trajectory.

At each touch-down the task is told how far the feet's midpoint moved (``on_support_moved``): the
balance task moves its CoM target and goal by as much (the target along a minimum-jerk segment of
``support_shift_s``), so the robot stands where it stepped rather than walking back. The contact
guard leaves a planned contact alone (``planned_contacts``), and leg odometry counts only the feet
whose contacts are active, so a planned swing is not taken for a lost contact.

The step limits are the robot's ([`RobotDescription.step_limits`][humanoid_env.robots.description.RobotDescription.step_limits]):
the reachable region of each swing foot (no crossover) and, by default, the swing's height and
duration (its minimum swing time).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from humanoid_env.envs.configs import STEPPING_LAW_SETTINGS
from humanoid_env.envs.decoding import ReferenceStage

if TYPE_CHECKING:
    from humanoid_env.envs.plant import Plant
from humanoid_env.robots import FEET, RobotDescription
from wbc_layer import FramePositionTask, OrientationTask
from wbc_layer.capture import GRAVITY
from wbc_layer.references import References
from wbc_layer.stepping import (
    STANDING,
    SWING,
    UNLOADING,
    StepAdjustment,
    SteppingLaw,
    SteppingSettings,
    SwingFoot,
    SwingSettings,
)

#: Gains of the swing foot's tasks: position (weight, kp [1/s^2], kd [1/s]) and orientation.
SWING_POSITION_TASK = (1000.0, 400.0, 40.0)
SWING_ORIENTATION_TASK = (10.0, 100.0, 20.0)
#: Weight of the unloading foot's force task, whose target follows the bound's ramp to 0 (the
#: contact-switching experiment's 10): a bound alone lets the QP drop the load at once.
UNLOADING_FORCE_WEIGHT = 10.0
#: Duration of the CoM target's move to the new support after a touch-down [s].
SUPPORT_SHIFT_S = 0.5
#: The ``step`` action block (4: a policy's adjustment of the law's steps), each entry in [-1, 1]:
#: the landing's offset forward and left in the stance sole's axes, +-1 -> +-``STEP_OFFSET_M``;
#: the step's duration, +-1 -> x 2^(+-``STEP_TIME_OCTAVES``); the decision's trigger margin,
#: +-1 -> +-``STEP_TRIGGER_SHIFT_M`` (-1: a step while the capture point is still 3 cm inside the
#: support). 0 -> the law's own choice ([`wbc_layer.stepping.StepAdjustment`][wbc_layer.stepping.StepAdjustment]).
STEP_OFFSET_M = 0.05
STEP_TIME_OCTAVES = 0.5
STEP_TRIGGER_SHIFT_M = 0.03


def step_adjustment(action: np.ndarray) -> StepAdjustment:
    """The ``step`` block (4,) in [-1, 1] (clipped) -> the law's adjustment (``STEP_OFFSET_M``, ...)."""
    a = np.clip(np.asarray(action, dtype=float), -1.0, 1.0)
    return StepAdjustment((STEP_OFFSET_M * float(a[0]), STEP_OFFSET_M * float(a[1])), 2.0 ** (STEP_TIME_OCTAVES * float(a[2])),
                          STEP_TRIGGER_SHIFT_M * float(a[3]))  # fmt: skip


def swing_task_names(foot: str) -> tuple[str, str]:
    """Names of ``foot``'s swing position and flat-orientation tasks."""
    side = foot.split("_")[0]
    return f"{side}_sole_swing", f"{side}_sole_flat"


def swing_tasks(description: RobotDescription, orientation_gains: tuple[float, float, float] = SWING_ORIENTATION_TASK) -> list:
    """Fresh swing tasks of both feet for an episode's controller (off until a swing): each
    sole's position task and flat-orientation task (``swing_task_names``; the latter's weight,
    kp [1/s^2], kd [1/s] ``orientation_gains``)."""
    tasks = []
    for foot in FEET:
        site = description.feet[foot].site
        position_name, flat_name = swing_task_names(foot)
        w, kp, kd = SWING_POSITION_TASK
        tasks.append(FramePositionTask(position_name, w, kp=kp, kd=kd, frame=site, active=False))
        w, kp, kd = orientation_gains
        tasks.append(OrientationTask(flat_name, w, kp=kp, kd=kd, frame=site, active=False))
    return tasks


def sole_poses(plant: Plant) -> tuple[np.ndarray, np.ndarray]:
    """The soles' centres (2, 3) world [m] (a copy; left, right) and yaws (2,) [rad], from the plant's data."""
    d, sites = plant.data, plant.sole_sites
    return d.site_xpos[sites].copy(), sole_yaws(d.site_xmat[sites])


def sole_yaws(rotations: np.ndarray) -> np.ndarray:
    """(2,) the soles' yaws [rad] from their sites' rotation matrices (2, 9), row-major as MuJoCo's ``site_xmat``."""
    rotations = rotations.reshape(-1, 3, 3)
    return np.arctan2(rotations[:, 1, 0], rotations[:, 0, 0])


def feet_in_heading_frame(plant: Plant, d) -> np.ndarray:
    """(6,) each sole's x, y [m] from the pelvis in the pelvis's heading frame and its yaw from the
    heading [rad] (in (-pi, pi]), left then right, of ``d`` (the plant's data or the estimate's copy)."""
    R = plant.base_rotation(d)
    heading = math.atan2(R[1, 0], R[0, 0])
    c, s = math.cos(heading), math.sin(heading)
    root = plant.bridge.root_qpos
    base = d.qpos[root : root + 3]
    feet = []
    sites = plant.sole_sites
    for i in range(2):
        rel = d.site_xpos[sites[i]] - base
        R = d.site_xmat[sites[i]].reshape(3, 3)
        yaw = math.atan2(R[1, 0], R[0, 0]) - heading
        feet += [c * rel[0] + s * rel[1], -s * rel[0] + c * rel[1], math.atan2(math.sin(yaw), math.cos(yaw))]
    return np.array(feet)


def write_foot(references: References, foot: str, swing: SwingFoot | None, own_bounds: tuple[float, float], released: bool) -> None:
    """Write ``foot``'s contact and swing tasks for one tick: with its step under way (``swing``),
    the contact's activity and normal-force bounds from the step's ramps, its swing tasks on
    during the swing only, and while it unloads its force task following the ramp down; without
    one, the contact supporting with its ``own_bounds`` (min, max) [N] and the swing tasks off.
    ``released``: a step is under way somewhere, so the feet's force-share tasks are released
    (except the unloading foot's)."""
    contact = references.contacts[foot]
    position_name, flat_name = swing_task_names(foot)
    position_task, flat_task = references.tasks[position_name], references.tasks[flat_name]
    low, high = own_bounds
    if swing is not None:
        contact.active = swing.contact_active
        contact.min_normal_force = 0.0
        contact.max_normal_force = high if swing.max_normal_force is None else swing.max_normal_force
        on = swing.phase == SWING
        position_task.active = flat_task.active = on
        if on:
            position_task.point.position[:] = swing.position
            position_task.point.velocity[:] = swing.velocity
            flat_task.target = swing.rotation
    else:
        contact.active = True
        contact.min_normal_force, contact.max_normal_force = low, high
        position_task.active = flat_task.active = False
    if swing is not None and swing.phase == UNLOADING and UNLOADING_FORCE_WEIGHT > 0:
        contact.track(swing.max_normal_force, UNLOADING_FORCE_WEIGHT)  # follow the ramp down, not only stay below it
    elif released:
        contact.release_force()


def stepping_law(description: RobotDescription, settings: dict[str, Any], com_height_m: float) -> SteppingLaw:
    """The law for ``description``'s robot: its step limits' reachable regions, its CoP
    rectangles, ``omega`` at ``com_height_m`` [m] above the soles, and ``settings`` (the
    ``stepping`` keyword's names; the swing's ``height_m`` and ``swing_s`` default to the step
    limits' swing height and minimum swing time)."""
    from wbc_layer.step_limits import reachable_region  # noqa: PLC0415

    limits = description.step_limits()
    law_names = set(STEPPING_LAW_SETTINGS)
    swing = {"height_m": limits.swing_height_m, "swing_s": limits.min_swing_time_s}
    swing.update({k: v for k, v in settings.items() if k not in law_names})
    law = {k: v for k, v in settings.items() if k in law_names}
    law.setdefault("min_swing_s", limits.min_swing_time_s)  # an adjusted step's shortest swing
    if "max_steps" in law:
        law["max_steps"] = int(law["max_steps"])
    config = SteppingSettings(**law, swing=SwingSettings(**swing))
    reachable = {foot: reachable_region(limits, foot.split("_")[0]) for foot in FEET}
    return SteppingLaw(reachable, description.cop_half_sizes(), math.sqrt(GRAVITY / com_height_m), config)


class SteppingStage(ReferenceStage):
    """Runs the stepping law every physics step and writes its answer (see the module docstring).

    It reads the state at every physics step and says so (``says_when_it_reads``), so the
    compiled loop runs its env's physics steps one at a time, each planned from the state
    reached (``humanoid_env.envs.physics_loop``), instead of sending the env to the Python loop.

    Args:
        plant: the plant (the soles' sites, the feet's measured forces).
        law: the stepping law.
        weight_n: the robot's weight m g [N]: the loading ramp's end (the contact's own bound,
            often far above it, comes back once the step is loaded).
        on_support_moved: called with the feet's midpoint's move (3,) [m] and the time [s] once
            a step is loaded.
        step_block: the action's ``step`` slice (4: the law's adjustment, ``step_adjustment``),
            or None (the law's own choices).
    """

    says_when_it_reads = True  # at every physics step (``reads_state_at``'s default)
    #: True while the compiled loop plans a standing tick ahead under its watch (`standing_watch`):
    #: `update` then writes the standing references alone, reading no state.
    watched = False

    def __init__(self, plant: Plant, law: SteppingLaw, weight_n: float,
                 on_support_moved: Callable[[np.ndarray, float], None] | None = None,
                 step_block: slice | None = None):  # fmt: skip
        self.plant, self.law = plant, law
        self.weight_n = float(weight_n)
        self.on_support_moved = on_support_moved
        self.step_block = step_block
        self.omega = law.omega
        self.reset()

    def reset(self) -> None:
        self.law.reset()
        self._own_bounds: dict[str, tuple[float, float]] = {}
        self.capture_point = np.zeros(2)
        self.touch_downs: list[str] = []
        self._midpoint: np.ndarray | None = None
        self._adjusted_action: np.ndarray | None = None

    def controller_tasks(self) -> list:
        """Fresh swing tasks for an episode's controller (off until a swing)."""
        return swing_tasks(self.plant.description)

    def planned_contacts(self) -> tuple[str, ...]:
        """The contacts the law drives now (the swing foot's, while a step is under way)."""
        swing = self.law.swing
        return () if swing is None else (swing.foot,)

    def update(self, references: References, context, action: np.ndarray | None, dt: float) -> None:
        if dt <= 0.0:  # reset: the references as the controller was built
            self._midpoint = sole_poses(self.plant)[0].mean(axis=0)
            contacts = references.contacts
            self._own_bounds = {foot: (contacts[foot].min_normal_force, contacts[foot].max_normal_force) for foot in FEET}
            return
        plant, law = self.plant, self.law
        if self.step_block is not None and action is not None and action is not self._adjusted_action:
            law.adjustment = step_adjustment(action[self.step_block])  # once per env step's action
            self._adjusted_action = action
        if self.watched:  # the law's answer is known to be "no step": `stood` brings its state along after the physics
            self._write_standing(references)
            return
        com, velocity = context.sensed_com()
        self.capture_point = com[:2] + velocity[:2] / self.omega
        feet, yaws = sole_poses(self.plant)

        def normal_forces() -> np.ndarray:  # measured only when the law uses them (not while it stands)
            forces = plant.contact_forces()
            return np.array([forces[name][2] for name in FEET])

        law.update(float(plant.data.time), self.capture_point, feet, yaws, normal_forces, self.weight_n)
        if "touch_down" in law.events:
            self.touch_downs.append(law.swing.touch_down)
        if "captured" in law.events or "gave_up" in law.events or ("decided" in law.events and self._midpoint is not None):
            self._support_moved(feet, float(plant.data.time))
        self._write(references, com, velocity, feet, yaws)

    def _support_moved(self, feet: np.ndarray, time: float) -> None:
        """After a step is loaded (or at the next decision): move the task's CoM target with the feet."""
        midpoint = feet.mean(axis=0)
        if self._midpoint is not None and self.on_support_moved is not None:
            delta = midpoint - self._midpoint
            delta[2] = 0.0
            if np.linalg.norm(delta) > 1e-4:
                self.on_support_moved(delta, time)
        self._midpoint = midpoint

    def _write(self, references: References, com: np.ndarray, velocity: np.ndarray, feet: np.ndarray, yaws: np.ndarray) -> None:
        if self.law.phase == STANDING:  # (no step under way: the law's swing is None)
            self._write_standing(references)
            return
        swing = self.law.swing
        reference = references.com
        cop = self.law.cop_reference(self.capture_point, feet[:, :2], yaws)
        if cop is not None:  # the acceleration the stance foot can give (SteppingLaw.cop_reference)
            reference.position[:2] = com[:2]
            reference.velocity[:2] = velocity[:2]
            reference.acceleration[:2] = self.omega**2 * (com[:2] - cop)
        elif reference.acceleration[0] != 0.0 or reference.acceleration[1] != 0.0:
            reference.acceleration[:] = 0.0
        for foot in FEET:
            write_foot(references, foot, swing if swing is not None and swing.foot == foot else None, self._own_bounds[foot], True)

    def _write_standing(self, references: References) -> None:
        """The references while the law stands: no CoM acceleration of the law's, both feet
        supporting with their own bounds, the swing tasks off (the same at every standing tick)."""
        reference = references.com
        if reference.acceleration[0] != 0.0 or reference.acceleration[1] != 0.0:
            reference.acceleration[:] = 0.0
        for foot in FEET:
            write_foot(references, foot, None, self._own_bounds[foot], False)

    # -- the compiled loop's watch over standing ticks planned ahead --------------------------------
    def standing_watch(self) -> tuple[np.ndarray, np.ndarray, list[float], float] | None:
        """The law's [`standing_watch`][wbc_layer.stepping.SteppingLaw.standing_watch] where the
        compiled loop may plan this stage's standing ticks ahead (``humanoid_env.envs.physics_loop``):
        the law stands, and a step it takes moves nothing already planned (no ``on_support_moved``:
        push recovery's goal follows the feet once per env step); else None."""
        return self.law.standing_watch() if self.on_support_moved is None else None

    def stood(self, capture_points: np.ndarray, sole_xpos: np.ndarray, sole_xmat: np.ndarray) -> None:
        """Standing ticks planned ahead at which the compiled loop's watch ruled out a step, in
        order: each one's capture point (2,) [m] and soles' site positions (2, 3) [m] and
        rotations (2, 9), as `update` would have read them; the stage and the law are left as
        `update` leaves them (the law's `stood`; the last capture point)."""
        law = self.law
        for positions, rotations in zip(sole_xpos, sole_xmat, strict=True):
            law.stood(positions[:, :2], sole_yaws(rotations))
        if len(capture_points):
            self.capture_point = capture_points[-1].copy()

    def info(self) -> dict[str, Any]:
        """The law's state for ``info["stepping"]``."""
        law = self.law
        swing = law.swing
        placement = law.last_placement
        return {
            "phase": law.phase,
            "steps_taken": law.steps_taken,
            "swing_foot": None if swing is None else swing.foot,
            "target": None if placement is None else placement.target.copy(),
            "target_clipped": False if placement is None else bool(placement.clipped),
            "clipped_steps": law.clipped_steps,
            "timing_clipped": bool(law.timing_clipped),
            "step_offset_m": np.array(law.adjustment.offset_m),  # the policy's adjustment (step action)
            "step_time_scale": law.adjustment.time_scale,
            "trigger_shift_m": law.adjustment.trigger_shift_m,
            "touch_downs": list(self.touch_downs),
            "missed": bool(swing is not None and swing.missed),
            "capture_point": self.capture_point.copy(),
        }
