"""The task part of an env: what the robot is asked to do, and how well it does it.

A task is one module with a [`Task`][humanoid_env.envs.task.Task] subclass, its typed config (a frozen
dataclass of ``humanoid_env.envs.configs``), its env class (a docstring and two class attributes)
and its registry entry (``humanoid_env.registry``). The env shell
([`HumanoidWBCBaseEnv`][humanoid_env.envs.base.HumanoidWBCBaseEnv]) calls the task's methods with what
they need; a task never builds controllers, resets MuJoCo or runs the physics loop.

What a task decides:

- **the scene** and the contacts it measures (`scene`, `sensed_contacts`), plant-side setup at
  construction (`prepare`: the wall's settled start state), the sensors' followers, its pushes;
- **its command**, the source at the head of the reference chain: a [`Command`][humanoid_env.envs.task.Command]
  holding the CoM target (a [`PointReference`][wbc_layer.references.PointReference], which may follow a
  trajectory segment) and the task's own commands, reset per episode (`reset`) and advanced every
  physics step (`update_command`); a scripted scenario replaces this source;
- **the controller setup** in wbc mode (`controller_setup`: contacts, environment bodies, gain
  overrides, the robot model's extra frames), the action blocks it adds (`wbc_action_structure`)
  and the reference stages that turn them into the controller's references (`reference_stages`);
- **observation blocks, reward terms, termination and info** beyond the standing ones below, and
  its episode metrics and scripted scenarios (in the registry).

The standing machinery every task here shares (the CoM target, the base observation, the
standing reward terms, the fall test) is this base class's; a task extends it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import mujoco
import numpy as np

from humanoid_env import _physics
from humanoid_env.envs.configs import RewardConfig, TerminationConfig
from humanoid_env.envs.decoding import StandingDecoder
from humanoid_env.envs.numerics import mean_square, norm
from humanoid_env.envs.plant import Plant
from humanoid_env.robots import FEET, RobotDescription
from wbc_layer import ControllerConfig, RobotModel
from wbc_layer.environment_body import EnvironmentBody
from wbc_layer.references import MinJerkSegment, PointReference

__all__ = ["Command", "ControllerSetup", "StepContext", "Task"]


class Command:
    """A task's command at the current physics step: the CoM target ``com_target`` (position (3,)
    [m], velocity (3,) [m/s]; it may follow a segment) and the CoM goal it glides to
    ``com_goal`` (3,) [m]. Tasks add fields (the wall's hand-force command)."""

    def __init__(self, com_nominal: np.ndarray):
        self.com_target = PointReference(3, com_nominal)
        self.com_goal = com_nominal.copy()
        self._shift: MinJerkSegment | None = None

    def evaluate(self, time: float) -> None:
        """Sample the segments the command follows at ``time`` [s] (a finished
        [`shift`][humanoid_env.envs.task.Command.shift] is dropped: the target holds its end)."""
        self.com_target.evaluate(time)
        if self._shift is not None and time >= self._shift.t1:
            if self.com_target.segment is self._shift:
                self.com_target.follow(None)
                self.com_target.velocity[:] = 0.0
            self._shift = None

    def follows_segment(self) -> bool:
        """Whether the CoM target follows a segment now (a shift after a step)."""
        return self.com_target.segment is not None or self._shift is not None

    def shift(self, delta: np.ndarray, time: float, duration_s: float) -> None:
        """Move the CoM goal by ``delta`` (3,) [m] at once and the CoM target by as much along a
        minimum-jerk segment from ``time`` over ``duration_s`` [s] (the support moved: a step)."""
        self.com_goal = self.com_goal + delta
        self._shift = MinJerkSegment(time, time + duration_s, self.com_target.position.copy(), delta)
        self.com_target.follow(self._shift)


@dataclass
class ControllerSetup:
    """What a task asks of the controller (wbc mode), built once per episode from it.

    Attributes:
        config: the controller's configuration (contacts, weights, gains, solver).
        robot: the controller's robot model (e.g. with an extra contact frame).
        bodies: environment bodies the controller models (a seesaw).
        posture_kp: (na,) posture stiffness [1/s^2] replacing the config's scalar, or None.
        tasks: names of the controller tasks whose references the task's stages write.
        body_states: returns the bodies' sensed states for each tick (with ``bodies``).
        on_result: called with each tick's ``WBCResult`` (a task reading a prediction).
        added_tasks: controller tasks (fresh objects) added to the episode's controller after it
            is built, their references kept with ``tasks``' (a swing foot's tasks).
    """

    config: ControllerConfig
    robot: RobotModel
    bodies: tuple[EnvironmentBody, ...] = ()
    posture_kp: np.ndarray | None = None
    tasks: tuple[str, ...] = field(default_factory=tuple)
    body_states: Callable[[], dict[str, tuple[np.ndarray, np.ndarray]]] | None = None
    on_result: Callable[[Any], None] | None = None
    added_tasks: tuple[Any, ...] = ()


class StepContext:
    """What the reference stages and scenarios may read at a physics step: the plant (its
    measurements), the state pipeline (the sensed state), the task and its command, the robot's
    weight ``weight_n`` [N]. A read-only view by convention: nothing is written through it (a
    stage writes the references it is handed, a scenario the command it is handed)."""

    def __init__(self, plant: Plant, pipeline, task: Task, weight_n: float):
        self.plant = plant
        self.pipeline = pipeline
        self.task = task
        self.weight_n = weight_n
        #: the physics step's time the reference stages are updated for [s]: the plant's time in
        #: the Python loop; ahead of it where the compiled loop plans an env step's steps ahead.
        self.time = 0.0

    @property
    def command(self) -> Command:
        return self.task.command

    @property
    def data(self) -> mujoco.MjData:
        return self.plant.data

    def sensed_com(self) -> tuple[np.ndarray, np.ndarray]:
        """``(CoM (3,) [m], CoM velocity (3,) [m/s])`` as the controller sees them."""
        return self.pipeline.sensed_com(self.plant.root_body, self.plant.data)


class Task:
    """Base of the tasks (see the module docstring): standing on two feet, tracking a CoM target.

    Args:
        config: the task's typed config (``config_type``).
        description: the robot.
        rewards: the standing reward terms' weights.
        termination: the fall thresholds.

    Attributes set by the shell: ``plant`` (after it is built), ``weight_n`` (m g [N]).
    """

    #: the task's env id and short name (its registry entry's).
    env_id: ClassVar[str] = ""
    name: ClassVar[str] = ""
    #: the scene (one of ``humanoid_env.robots.SCENES``).
    scene: ClassVar[str] = "flat"
    #: whether the robot's legs collide with each other in the scene (``humanoid_env.envs.plant.collide_legs``).
    legs_collide: ClassVar[bool] = False
    #: the typed config of the task's own keywords.
    config_type: ClassVar[type]
    #: contacts (feet, hands of the robot description) measured into ``info["contact_forces"]``.
    sensed_contacts: ClassVar[tuple[str, ...]] = FEET
    #: the task's observation blocks (name -> size), after the standing ones.
    observation_structure: ClassVar[dict[str, int]] = {}
    #: ``info["termination"]`` when `terminated` ends an episode.
    termination_reason: ClassVar[str] = "task"

    def __init__(self, config: Any, description: RobotDescription, rewards: RewardConfig, termination: TerminationConfig):
        self.config = config
        self.description = description
        self.rewards = rewards
        self.termination = termination
        self.plant: Plant | None = None
        self.weight_n = 0.0
        self.command: Command | None = None

    # -- construction ----------------------------------------------------------------------
    @property
    def wbc_action_structure(self) -> dict[str, int]:
        """The action's blocks in wbc mode (name -> size): the CoM offset and the left foot's
        force share; tasks add theirs."""
        return {"com_offset": 3, "foot_force_share": 1}

    def pushes(self, default):
        """The push schedule (the plant's disturbances): ``default``, built from the push keywords."""
        return default

    def prepare(self, plant: Plant, robot: RobotModel, wbc: Any) -> RobotModel:
        """Plant-side setup once the plant exists (ids, a settled start state); returns the
        controller's robot model (``robot``, or a copy with extra frames). ``wbc``: the
        controller's keywords (``WbcConfig``)."""
        self.plant = plant
        self.command = Command(plant.com_nominal)
        self._build_stages(wbc)
        return robot

    def _build_stages(self, wbc: Any) -> None:
        """The reference chain's task stages: the standing decoder, then the task's."""
        structure = self.wbc_action_structure
        offsets = np.cumsum([0, *structure.values()])
        blocks = {name: slice(int(a), int(b)) for name, a, b in zip(structure, offsets[:-1], offsets[1:], strict=True)}
        #: the CoM offset and feet's force share decoder (its state is in ``info`` in every mode).
        self.standing = StandingDecoder(wbc, blocks, self.plant.com_nominal, self.weight_n)
        decoders, shapers = self.reference_stages(wbc, blocks)
        #: the stages the wbc actuation runs every physics step, in order.
        self.reference_chain = [self.standing, *decoders, *shapers]

    def planned_contacts(self) -> tuple[str, ...]:
        """Contacts a plan of the task's drives now (a swing foot's): the contact guard leaves
        them alone."""
        return ()

    def support_normal(self) -> np.ndarray:
        """(3,) unit normal, world axes, of the surface the feet stand on (flat ground: +z)."""
        return Plant.UP

    def configure_sensors(self, sensors) -> None:
        """Extra joints of the scene the sensor model estimates (the seesaw's board)."""

    def controller_config(self, wbc: Any) -> ControllerConfig:
        """The controller's configuration: the robot's standing controller with ``wbc``'s solver
        settings (``qp_solver``, ``wbc_backend``)."""
        return self.description.controller_config(qp_solver=wbc.qp_solver, backend=wbc.wbc_backend)

    def controller_setup(self, robot: RobotModel, wbc: Any) -> ControllerSetup:
        """What the controller of an episode is built from (see [`ControllerSetup`][humanoid_env.envs.task.ControllerSetup])."""
        return ControllerSetup(self.controller_config(wbc), robot)

    def reference_stages(self, wbc: Any, blocks: dict[str, slice]) -> tuple[list, list]:
        """``(decoders, shapers)``: the task's reference stages after the standing decoder (the
        CoM offset and force share): decoders turn the task's action blocks (``blocks``: name ->
        slice of the wbc action) into references, shapers change references from measurements
        (a force loop, a balance law). See ``humanoid_env.envs.decoding``."""
        return [], []

    # -- an episode ----------------------------------------------------------------------------
    def reset(self, rng: np.random.Generator) -> None:
        """Sample the task's initial command with ``rng`` (the env's generator) and reset the
        reference stages."""
        self.command = Command(self.plant.com_nominal)
        for stage in self.reference_chain:
            stage.reset()

    def place_robot(self) -> bool:
        """Move the reset state (after its joint noise) where the task starts; whether it did
        (the shell then restarts the sensors there)."""
        return False

    def update_command(self, rng: np.random.Generator, time: float, dt: float) -> None:
        """Advance the command by one physics step of ``dt`` [s] at ``time`` [s]."""

    def command_steady_until(self) -> float:
        """The time [s] before which `update_command` draws nothing and sets no new command (it may
        still follow the state): the compiled loop may then run it again for a time before this
        one. -inf (the default) where the task does not say."""
        return -math.inf

    #: Whether `update_command` is `draw_goal` (the command's random part, by time) followed by
    #: `glide_target`: the compiled loop then draws an env step's goals ahead and glides the target
    #: in C++ (``humanoid_env.envs.physics_loop``).
    command_glides: ClassVar[bool] = False

    def draw_goal(self, rng: np.random.Generator, time: float) -> None:
        """A new CoM goal when one is due at ``time`` [s] (tasks whose command glides)."""
        raise NotImplementedError

    def command_reads_state(self) -> bool:
        """Whether `update_command` reads the simulated state (else the compiled loop evaluates it
        ahead for an env step's physics steps: ``humanoid_env.envs.physics_loop``). True, the safe
        answer, unless a task says otherwise."""
        return True

    def glide_target(self, dt: float) -> None:
        """Move the CoM target towards ``com_goal`` at ``target_speed_mps`` for ``dt`` [s]
        (``core/reference_stages.hpp``'s ``glide_rows``: the compiled loop's form too)."""
        target = self.command.com_target
        goal = self.command.com_goal
        if not (type(goal) is np.ndarray and goal.dtype == np.float64 and goal.flags.c_contiguous):
            goal = np.ascontiguousarray(goal, dtype=np.float64)
        _physics.glide_rows(goal, target.position, target.velocity, self.config.target_speed_mps * dt, dt)

    # -- observation, reward, termination, info ------------------------------------------------
    def observation_blocks(self, d: mujoco.MjData, forces: dict[str, np.ndarray]) -> dict[str, Any]:
        """The standing blocks of ``d`` (the simulator's data or the estimate's copy), in order,
        without ``previous_action``: see the balance env's table."""
        plant = self.plant
        R = plant.base_rotation(d)
        dof = plant.bridge.root_dof
        support = plant.support_centre(d)
        return {
            "base_height": [plant.base_height(d)],
            "gravity_base": R.T @ Plant.DOWN,
            "base_linear_velocity": R.T @ d.qvel[dof : dof + 3],
            "base_angular_velocity": d.qvel[dof + 3 : dof + 6],
            "joint_positions": d.qpos[plant.bridge.joint_qpos] - plant.q_home,
            "joint_velocities": d.qvel[plant.bridge.joint_dof],
            "com_relative": plant.com(d) - support,
            "com_velocity": plant.com_velocity(d),
            "com_target_relative": self.command.com_target.position - support,
            "foot_forces": np.concatenate([forces[name] for name in FEET]) / self.weight_n,
        }

    def task_observation(self, d: mujoco.MjData, forces: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Blocks of `observation_structure` (name -> array of that size), of ``d``."""
        return {}

    def fallen(self) -> bool:
        """Whether the robot fell: the pelvis below ``min_base_height_m`` above the support
        centre or tilted past ``max_tilt_rad`` (tasks add conditions)."""
        plant, t = self.plant, self.termination
        return plant.base_height() < t.min_base_height_m or plant.tilt() > t.max_tilt_rad

    def terminated(self, nonfinite: bool, forces: dict[str, np.ndarray], dt: float) -> bool:
        """Called once per env step after the physics: whether the task ends the episode for a
        reason other than a fall (``termination_reason``). May update per-step task state."""
        return False

    def reward_terms(self, fell: bool, nonfinite: bool, action: np.ndarray, previous: np.ndarray, effort: float) -> dict[str, float]:
        """The named reward terms (their sum is the reward): the standing ones (see the balance
        env's table); tasks add theirs after them."""
        r = self.rewards
        plant = self.plant
        error = norm(plant.com() - self.command.com_target.position) if not nonfinite else np.inf
        upright = float(-plant.gravity_in_base()[2]) if not nonfinite else 0.0
        return {
            "alive": r.reward_alive if not fell else 0.0,
            "com_tracking": r.reward_com_tracking * float(np.exp(-((error / r.com_tracking_sigma_m) ** 2))),
            "upright": r.reward_upright * upright,
            "effort": -r.reward_effort * effort,
            "action_rate": -r.reward_action_rate * mean_square(action - previous),
            "fall": -r.fall_penalty if fell else 0.0,
        }

    def info(self, nonfinite: bool, drives_controller: bool) -> dict[str, Any]:
        """The task's entries of ``info``."""
        return {"com_goal": self.command.com_goal.copy()}
