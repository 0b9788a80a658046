"""How an action becomes joint torques: one object per action mode (``wbc``, ``torque``, ``pd``).

Each owns its action size and layout (`Actuation.structure`, the env's ``action_structure``),
names its blocks ([`Actuation.blocks`][humanoid_env.envs.actuation.Actuation.blocks]) and computes the
torques of a physics step from the sensed state: ``torques(qpos, qvel) -> (tau, status, solve
time)``. The wbc actuation also owns the episode's controller, its
[`References`][wbc_layer.references.References] and the chain of reference stages that fills them
(``humanoid_env.envs.decoding``). None of them holds a reference to the env.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mujoco
import numpy as np

from humanoid_env import _physics
from humanoid_env.robots import FEET
from wbc_layer import QPSolveError, WholeBodyController
from wbc_layer.contact_guard import ContactGuard
from wbc_layer.references import References, task_references

if TYPE_CHECKING:
    from humanoid_env.envs.plant import Plant
    from humanoid_env.envs.task import Task
    from wbc_layer import RobotModel

#: Status of a physics step whose torques no controller computed.
OFF = "off"


class Actuation:
    """Base: an action of ``sum(structure.values())`` numbers in [-1, 1], laid out in named blocks.

    Attributes:
        mode: the ``action_mode`` keyword's value.
        structure: block name -> size, in the action's order.
        drives_controller: whether the whole-body controller computes the torques (the env then
            builds it at reset, decodes references and reports its diagnostics).
    """

    mode: str = ""
    drives_controller: bool = False

    def __init__(self, structure: dict[str, int]):
        self.structure = dict(structure)
        self.size = sum(self.structure.values())
        offsets = np.cumsum([0, *self.structure.values()])
        self._slices = {name: slice(int(a), int(b)) for name, a, b in zip(self.structure, offsets[:-1], offsets[1:], strict=True)}
        #: the controller of the episode (wbc mode), else None.
        self.controller: WholeBodyController | None = None

    def blocks(self, action: np.ndarray) -> dict[str, np.ndarray]:
        """``action`` (size,) cut into its named blocks (views)."""
        return {name: action[s] for name, s in self._slices.items()}

    def index(self, block: str) -> slice:
        """Where ``block`` sits in the action (``ValueError`` naming the blocks if absent)."""
        if block not in self._slices:
            raise ValueError(f"action_mode={self.mode!r} has no action block {block!r}; blocks: {list(self.structure)}")
        return self._slices[block]

    def reset(self) -> None:
        """Prepare an episode (after the state is reset, before the first observation)."""

    def update_references(self, context, time: float, dt: float, action: np.ndarray | None) -> None:
        """Turn the action into the controller's references for one physics step of ``dt`` [s]."""

    def torques(self, qpos: np.ndarray, qvel: np.ndarray, action: np.ndarray) -> tuple[np.ndarray, str, float]:
        """``(tau (na,) [N m], status, solve time [us])`` at the sensed state (MuJoCo's layout)."""
        raise NotImplementedError

    def step_status(self, fallbacks: int) -> str:
        """``info["wbc_status"]`` of an env step with ``fallbacks`` fallback physics steps."""
        return OFF

    def force_targets(self) -> dict[str, float]:
        """Contact name -> normal-force target [N] the controller tracks (none without one)."""
        return {}

    def supporting_contacts(self) -> list[str]:
        """The feet the controller treats as rigid supporting contacts now (empty without one)."""
        return []

    def begin_step(self) -> None:
        """Before an env step's physics steps."""

    #: the largest contact slack of this env step's relaxed QPs (wbc mode) [m/s^2, rad/s^2].
    step_contact_slack = 0.0


class TorqueActuation(Actuation):
    """``action_mode="torque"``: joint torques, ``action * torque limit`` [N m]."""

    mode = "torque"

    def __init__(self, torque_max: np.ndarray):
        super().__init__({"joint_torques": torque_max.size})
        self.torque_max = torque_max

    def torques(self, qpos: np.ndarray, qvel: np.ndarray, action: np.ndarray) -> tuple[np.ndarray, str, float]:
        return action * self.torque_max, OFF, 0.0


class PDActuation(Actuation):
    """``action_mode="pd"``: joint targets ``q_home + action * pd_action_scale_rad`` [rad] (clipped
    to the joint ranges) tracked by PD gains proportional to each joint's torque limit
    (``pd_kp_per_nm``, ``pd_kd_s``), torques clipped to the limits. Reads the plant's ``q_home``
    at each call (the wall task moves its home when it settles)."""

    mode = "pd"

    def __init__(self, plant, config: Any):
        super().__init__({"joint_targets": plant.torque_max.size})
        self.plant = plant
        self.scale = float(config.pd_action_scale_rad)
        self.kp = config.pd_kp_per_nm * plant.torque_max
        self.kd = config.pd_kd_s * self.kp

    def joint_targets(self, action: np.ndarray) -> np.ndarray:
        """(na,) the joint targets of ``action`` [rad], clipped to the joint ranges."""
        plant = self.plant
        return np.clip(plant.q_home + action * self.scale, plant.joint_low, plant.joint_high)

    def torques(self, qpos: np.ndarray, qvel: np.ndarray, action: np.ndarray) -> tuple[np.ndarray, str, float]:
        plant = self.plant
        q = qpos[plant.bridge.joint_qpos]
        qd = qvel[plant.bridge.joint_dof]
        # the compiled loop's PD (core/reference_stages.hpp), one physics step
        return _physics.pd_torques(self.joint_targets(action), q, qd, self.kp, self.kd, plant.torque_max), OFF, 0.0


class WbcActuation(Actuation):
    """``action_mode="wbc"``: references (the task's ``wbc_action_structure``: CoM offset, force
    shares, ...) that the whole-body controller turns into torques at every physics step.

    At each reset it builds a fresh controller from the task's
    [`ControllerSetup`][humanoid_env.envs.task.ControllerSetup] (no warm start carried across episodes),
    its [`References`][wbc_layer.references.References] and, with ``contact_guard``, the contact-loss
    guard on the feet. Every physics step the reference chain runs (the task's decoders and
    shapers, the scenario's shaper, the guard) and one write hands the references to the
    controller. A QP that fails follows the documented fallback (gravity compensation, status
    ``"fallback"``); a relaxed QP (the contacts gave way) reports ``"relaxed"`` and its slack.

    Args:
        task: the task (its controller setup and reference stages).
        plant: the plant (the guard's measurements, the feet's sites).
        wbc: the ``WbcConfig``.
        robot: the controller's robot model.
    """

    mode = "wbc"
    drives_controller = True

    def __init__(self, task: Task, plant: Plant, wbc: Any, robot: RobotModel):
        super().__init__(task.wbc_action_structure)
        self.task, self.plant, self.wbc, self.robot = task, plant, wbc, robot
        self.guard: ContactGuard | None = None
        self.references: References | None = None
        #: the scenario's shaper (``Scenario.update_controller``), or None.
        self.scenario = None
        self.setup = None

    def reset(self) -> None:
        setup = self.task.controller_setup(self.robot, self.wbc)
        self.setup = setup
        q_home, v_zero = self.plant.home_pinocchio()
        setup.robot.update(q_home, v_zero)
        if setup.bodies:
            self.controller = WholeBodyController(setup.robot, setup.config, bodies=list(setup.bodies))
        else:
            self.controller = WholeBodyController(setup.robot, setup.config)
        if setup.posture_kp is not None:
            self.controller.posture_task.kp = setup.posture_kp
        for task in setup.added_tasks:
            self.controller.add_task(task)
        self.body_states = setup.body_states
        self.on_result = setup.on_result
        self.references = References.for_controller(self.controller, (*setup.tasks, *(t.name for t in setup.added_tasks)))
        settings = self.wbc.contact_guard
        self.guard = ContactGuard(self.references, FEET, settings) if settings else None
        self.step_contact_slack = 0.0

    def add_tasks(self, tasks) -> None:
        """Add ``tasks`` (a scenario's) to the episode's controller and to its references."""
        for task in tasks:
            self.controller.add_task(task)
        self.references.tasks.update(task_references(self.controller, [task.name for task in tasks]))

    def update_references(self, context, time: float, dt: float, action: np.ndarray | None) -> None:
        references = self.references
        context.time = time
        for stage in self.task.reference_chain:
            stage.update(references, context, action, dt)
        if dt > 0:
            if self.scenario is not None:
                self.scenario.update_controller(references, context, time, dt)
            self._guard(dt)
        references.evaluate(time)
        references.write(self.controller)

    def _guard(self, dt: float) -> None:
        """The contact guard's tick (if there is one): the feet's measured forces and tilts now."""
        if self.guard is not None:
            self.guard.planned = self.task.planned_contacts()
            forces = self.plant.contact_forces()
            self.guard.update(dt, self.plant.sole_tilts(self.task.support_normal(), forces))

    def plan_references(self, context, time: float, dt: float, action: np.ndarray) -> None:
        """The references of one physics step of ``dt`` [s] at ``time`` [s] without writing them
        (the compiled loop hands them to the core): the reference chain, the contact guard and the
        segments' values. Only for an episode without a scenario (it reads the state and drives
        the controller itself)."""
        references = self.references
        context.time = time
        for stage in self.task.reference_chain:
            stage.update(references, context, action, dt)
        if dt > 0:
            self._guard(dt)
        references.evaluate(time)

    @property
    def reads_state_every_step(self) -> bool:
        """Whether a part besides the reference chain reads the simulated state at every physics
        step: the contact guard, the environment bodies' sensed state, a task reading each result."""
        return self.guard is not None or self.body_states is not None or self.on_result is not None

    def reads_state_at(self, time: float) -> bool:
        """Whether the reference chain's update at ``time`` [s] reads the simulated state, or
        another part does (``reads_state_every_step``): the compiled loop plans ahead up to such
        a step."""
        return self.reads_state_every_step or any(stage.reads_state_at(time) for stage in self.task.reference_chain)

    def compute(self, q: np.ndarray, v: np.ndarray, body_states=None):
        """One controller tick at the robot's pinocchio state ``(q, v)`` -> ``WBCResult`` (may
        raise ``QPSolveError``); ``body_states``: the environment bodies' sensed states, if any.

        `torques` calls it through the instance, so a benchmark may instrument every tick by
        setting ``actuation.compute`` to a wrapper of the same signature."""
        if body_states is None:
            return self.controller.compute(q, v)
        return self.controller.compute(q, v, body_states=body_states)

    def torques(self, qpos: np.ndarray, qvel: np.ndarray, action: np.ndarray) -> tuple[np.ndarray, str, float]:
        q, v = self.plant.bridge.to_pinocchio(qpos, qvel)
        bodies = None if self.body_states is None else self.body_states(qpos, qvel)
        try:
            result = self.compute(q, v, bodies)
        except QPSolveError:  # compute() updated the controller's model at (q, v) before failing
            return self.controller.gravity_compensation_torques(), "fallback", 0.0
        if self.on_result is not None:
            self.on_result(result)
        if result.relaxed:  # the rigid-contact QP had no solution; the contacts gave way
            self.step_contact_slack = max(self.step_contact_slack, result.contact_slack_norm)
            return result.tau, "relaxed", float(result.solve_time_us)
        return result.tau, "solved", float(result.solve_time_us)

    def begin_step(self) -> None:
        self.step_contact_slack = 0.0

    def step_status(self, fallbacks: int) -> str:
        return "fallback" if fallbacks else "solved"

    def force_targets(self) -> dict[str, float]:
        targets = {}
        for stage in self.task.reference_chain:
            targets.update(stage.force_targets())
        return targets

    def supporting_contacts(self) -> list[str]:
        if self.controller is None:
            return []
        return [name for name in FEET if self.controller.contact(name).active]

    def supporting_feet(self) -> list[tuple[int, int]]:
        """``(sole site id, id of the body it stands on)`` of each supporting foot (leg odometry's need)."""
        feet = []
        for name in self.supporting_contacts():
            on_body = self.controller.contact(name).on_body
            body = 0 if on_body is None else mujoco.mj_name2id(self.plant.model, mujoco.mjtObj.mjOBJ_BODY, on_body)
            feet.append((self.plant.sole_sites[FEET.index(name)], body))
        return feet


def controller_tick(plant, controller: WholeBodyController) -> np.ndarray:
    """One physics step of ``plant`` under ``controller`` at the exact state (no estimate, no
    delay, no fallback: a ``QPSolveError`` propagates); returns the torques (na,) [N m]. The
    closed loop a task runs on its own (the wall's settling)."""
    d = plant.data
    q, v = plant.bridge.to_pinocchio(d.qpos, d.qvel)
    tau = controller.compute(q, v).tau
    plant.bridge.torques_to_ctrl(tau, d.ctrl)
    plant.step()
    return tau
