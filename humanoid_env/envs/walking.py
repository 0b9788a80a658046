"""The walking generator in the env: a reference stage that walks a velocity command.

A [`WalkingStage`][humanoid_env.envs.walking.WalkingStage] runs the pure generator
([`wbc_layer.walking.WalkingGenerator`][wbc_layer.walking.WalkingGenerator]) every physics step with
what a robot would measure (the sensed CoM state, the soles' poses, the feet's MuJoCo-measured
normal forces) and writes its answer into the controller's references, as the stepping stage
does for one step (``humanoid_env.envs.stepping``):

- while walking, the CoM reference's horizontal position, velocity and acceleration are the
  MPC's plan at the tick (its height stays the standing decoder's); standing, the CoM target
  rests over the feet where they are (the generator's rest point);
- each swing foot's contact: its activity and normal-force bound (the unloading and loading
  ramps), ``min_normal_force`` 0 while its step is under way; the unloading foot's force task
  tracks its ramp down; the feet's force-share tasks are released while walking;
- the swing foot's sole position and flat-orientation tasks (``<side>_sole_swing``,
  ``<side>_sole_flat``: the stepping stage's) on during its swing;
- the torso's yaw target follows the mean of the soles' planned yaws (turning; a sole landing
  short of its yaw does not hold the torso back).

The contact guard leaves a planned contact alone (``planned_contacts``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from humanoid_env.envs.decoding import ReferenceStage, StandingDecoder
from humanoid_env.envs.stepping import sole_poses, swing_tasks, write_foot
from humanoid_env.robots import FEET
from wbc_layer.references import References
from wbc_layer.stepping import _yaw_rotation
from wbc_layer.walking import WalkCommand, WalkingGenerator, _mean_angle

if TYPE_CHECKING:
    from humanoid_env.envs.plant import Plant


#: The torso's yaw target is rewritten only when the soles' planned mean yaw moved by at least
#: this [rad] (each new target is a rotation the controller checks).
TORSO_YAW_STEP_RAD = 1e-3

#: The action's step offset at +-1 [m] (forward and left, in the stance sole's axes).
STEP_OFFSET_M = 0.05

#: The swing sole's orientation task while walking (weight, kp [1/s^2], kd [1/s]): stiffer than a
#: push-recovery step's (``stepping.SWING_ORIENTATION_TASK``, 10, 100, 20), since walking turns the
#: sole during the swing: at 0.475 rad/s in place the pelvis turned 0.16 rad/s with the stepping
#: gains, 0.32 with these; (3000, 900, 60) reached 0.39 but fell after the stop on both robots.
WALKING_SWING_ORIENTATION_TASK = (1000.0, 400.0, 40.0)


_NO_FORCES = np.zeros(len(FEET))  # (the feet's normal forces at a watched tick: read only, never written)


def walking_swing_tasks(description) -> list:
    """Fresh swing tasks of both feet for a walking controller (``WALKING_SWING_ORIENTATION_TASK``)."""
    return swing_tasks(description, WALKING_SWING_ORIENTATION_TASK)


class WalkingStage(ReferenceStage):
    """Runs the walking generator every physics step and writes its answer (see the module docstring).

    Args:
        plant: the plant (the soles' sites, the feet's measured forces).
        generator: the walking generator.
        com_nominal: (3,) the standing CoM [m] (its offset from the soles' midpoint is the rest point's).
        step_offset_block: the action's ``step_offset`` slice (2: the next landings' offset,
            +-1 -> +-``STEP_OFFSET_M`` forward and left in the stance sole's axes), or None.
        standing: the standing decoder, whose CoM offset is added to the generator's CoM
            reference (None: none).
    """

    def __init__(self, plant: Plant, generator: WalkingGenerator, com_nominal: np.ndarray,
                 step_offset_block: slice | None = None, standing: StandingDecoder | None = None):  # fmt: skip
        self.plant, self.generator = plant, generator
        self.com_nominal = np.asarray(com_nominal, dtype=float)
        self.step_offset_block = step_offset_block
        self.standing = standing
        self.reset()

    def reset(self) -> None:
        self._own_bounds: dict[str, tuple[float, float]] = {}
        self.outputs = None
        self._measured = None  # the CoM and its velocity (3,), the soles (2, 3), yaws (2,), normal forces (2,) read last
        self._torso_yaw = 0.0  # the torso's yaw target written last [rad] (the controller's: upright, yaw 0)
        self._planned_yaw = None  # the soles' planned yaws it was computed from
        self._offset_action = None  # the action the generator's step offset was taken from

    def set_command(self, command: WalkCommand) -> WalkCommand:
        """The velocity command to walk (clipped to the robot's limits; see ``generator.command_clipped``)."""
        return self.generator.set_command(command)

    def planned_contacts(self) -> tuple[str, ...]:
        """The contacts the generator drives now (the feet whose steps are under way)."""
        return tuple(foot for foot, swing in self.generator.swings.items() if swing is not None)

    #: it reads the state only where the generator measures (``WalkingGenerator.measurements_needed``):
    #: the compiled loop plans the steps between those ahead.
    says_when_it_reads = True

    def reads_state_at(self, time: float) -> bool:
        return self._measured is None or self.generator.measurements_needed(time)

    # -- the compiled loop's landing watch (humanoid_env.envs.physics_loop) ----------------------------
    #: True while the compiled loop plans a tick ahead under its landing watch (`landing_watch`):
    #: `update` then reads no state and hands the generator a normal force of zero.
    watched = False

    def landing_watch(self, time: float) -> tuple[str, float] | None:
        """``(foot, touch-down force [N])`` where this stage reads the state at ``time`` [s] only
        because that foot may land then (``WalkingGenerator.landing_only``): a caller that makes
        sure the foot's normal force stays below that force may plan the tick ahead with
        ``watched`` set. None otherwise."""
        if self._measured is None:
            return None
        swing = self.generator.landing_only(time)
        return None if swing is None else (swing.foot, swing.settings.touch_down_force_n)

    def checkpoint(self) -> tuple:
        """What watched ticks change (the generator's `checkpoint`, the outputs): for `rewind`."""
        return self.generator.checkpoint(), self.outputs

    def rewind(self, checkpoint: tuple) -> None:
        generator_checkpoint, self.outputs = checkpoint
        self.generator.rewind(generator_checkpoint)

    def update(self, references: References, context, action: np.ndarray | None, dt: float) -> None:
        generator = self.generator
        if dt <= 0.0:  # reset: the references as the controller was built
            feet, yaws = sole_poses(self.plant)
            rest = self.com_nominal[:2] - feet[:, :2].mean(axis=0)
            generator.reset(float(self.plant.data.time), feet, yaws, rest_offset=rest)
            self._offset_action = None  # (the generator's step offset is zero again)
            contacts = references.contacts
            self._own_bounds = {foot: (contacts[foot].min_normal_force, contacts[foot].max_normal_force) for foot in FEET}
            return
        if self.step_offset_block is not None and action is not None and action is not self._offset_action:
            generator.step_offset = STEP_OFFSET_M * np.clip(np.asarray(action[self.step_offset_block], dtype=float), -1.0, 1.0)
            self._offset_action = action  # (the same action for every physics step of an env step)
        time = context.time
        if self.watched:  # no landing here (the loop's watch): the last measurements, with no force
            out = generator.update(time, *self._measured[:4], _NO_FORCES)
        else:
            if self.reads_state_at(time):
                com, velocity = context.sensed_com()
                feet, yaws = sole_poses(self.plant)
                self._measured = (com, velocity, feet, yaws, self.plant.foot_normal_forces())
            out = generator.update(time, *self._measured)  # between reads: the last ones, unread
        self.outputs = out
        self._write(references, out)

    def _write(self, references: References, out) -> None:
        reference = references.com
        offset = self.standing.com_offset[:2] if self.standing is not None else 0.0
        reference.position[:2] = out.com[0] + offset
        reference.velocity[:2] = out.com[1]
        reference.acceleration[:2] = out.com[2]
        for foot in FEET:
            write_foot(references, foot, out.swings[foot], self._own_bounds[foot], out.walking)
        torso = references.tasks.get("torso")
        planned = tuple(self.generator.planned_yaw.tolist())  # changes at touch-downs only
        if torso is None or planned == self._planned_yaw:
            return
        self._planned_yaw = planned
        yaw = _mean_angle(self.generator.planned_yaw)
        if abs(math.remainder(yaw - self._torso_yaw, 2.0 * math.pi)) > TORSO_YAW_STEP_RAD:
            torso.target = _yaw_rotation(yaw)
            self._torso_yaw = yaw

    def info(self) -> dict[str, Any]:
        """The generator's state for ``info["walking"]``."""
        g = self.generator
        return {
            "phase": g.phase,
            "command": g.command.as_array(),
            "command_clipped": bool(g.command_clipped),
            "step_s": float(sum(g.timing)),
            "steps_taken": g.steps_taken,
            "clipped_steps": g.clipped_steps,
            "delayed_s": g.delayed_s,
            "mpc_status": None if g.plan is None else g.plan.status,
            "touch_downs": list(g.touch_downs),
        }
