"""The whole-body controller: tasks + contacts -> QP -> joint torques, once per tick."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from wbc_layer import checks
from wbc_layer.compiled import CompiledTick
from wbc_layer.config import ContactConfig, ControllerConfig
from wbc_layer.constraints import LegClearance
from wbc_layer.contacts import Contact, FootContact, PointContact
from wbc_layer.environment_body import EnvironmentBody
from wbc_layer.errors import ConfigError, InvalidStateError, QPSolveError, WBCError, unknown_name_error
from wbc_layer.gravity_compensation import gravity_compensation
from wbc_layer.joint_limits import JointLimits
from wbc_layer.layout import QPLayout
from wbc_layer.observed import unheard
from wbc_layer.qp import QPProblem
from wbc_layer.result import WBCResult
from wbc_layer.robot_model import RobotModel
from wbc_layer.tasks import (
    AngularMomentumTask,
    BodyRestTask,
    ComTask,
    ContactForceTask,
    FramePositionTask,
    OrientationTask,
    PostureTask,
    RegularisationTask,
    Task,
)

_F64 = np.dtype(np.float64)


class ControllerCopyError(WBCError, TypeError):
    """A [`WholeBodyController`][wbc_layer.controller.WholeBodyController] (or an env holding one) cannot be copied or pickled in its
    present state: its QP solver holds a warm start a copy could not reproduce (proxsuite's, once
    it has solved). A ``TypeError``, as ``pickle`` raises for any object it cannot copy."""


def make_contact(config: ContactConfig) -> Contact:
    """The [`Contact`][wbc_layer.contacts.Contact] described by ``config``."""
    common = dict(
        name=config.name,
        frame=config.frame,
        friction_coefficient=config.friction_coefficient,
        min_normal_force=config.min_normal_force,
        max_normal_force=config.max_normal_force,
        active=config.active,
        mode=config.mode,
        on_body=config.on_body,
    )
    if config.kind == "foot":
        return FootContact(**common, half_length=config.half_length, half_width=config.half_width)
    return PointContact(**common, normal=config.normal)


class WholeBodyController:
    """Task-space inverse dynamics over ``x = [qdd, f]``: each tick one call into the compiled core
    ([`wbc_layer.compiled`][wbc_layer.compiled]), which assembles the QP from the task and contact objects held
    here and solves it; change those through their setters. The formulation, stated in numpy:
    ``tests/oracles.py`` (``docs/qp.md``).

    Tasks and contacts check every value written to them (setters and attribute writes alike:
    shape, finiteness, sign, range, frame names) before storing it, and a rejected value leaves
    both the object and the compiled core as they were ([`ConfigError`][wbc_layer.errors.ConfigError]).

    Tasks, by name: ``"com"`` ([`ComTask`][wbc_layer.tasks.ComTask]), ``"posture"``, ``"torso"``,
    ``"angular_momentum"`` (off unless ``config.angular_momentum_weight`` > 0),
    ``"regularisation"``, ``"rest_<body>"`` per environment body, and ``"force_<contact>"`` per
    contact (on only for controlled contacts, or after [`set_force_target`][wbc_layer.controller.WholeBodyController.set_force_target]).
    Environment bodies ([`wbc_layer.environment_body`][wbc_layer.environment_body]) the feet stand on add their
    accelerations to the QP. ``extra_contacts``: contacts of your own (any
    [`Contact`][wbc_layer.contacts.Contact] subclass with ``dim``, ``jacobian``, ``drift``,
    ``normal_row`` and its force rows), after the config's, on the fixed ground; the compiled core
    takes their Jacobians and drifts from Python at each tick. Usage per tick:

        result = controller.compute(q, v)     # raises QPSolveError on failure
        tau = result.tau                      # (na,) [N m]

    When the rigid-contact QP has no solution (torque limits that cannot hold every contact
    still), the tick solves the relaxed QP (``config.contact_slack_weight``; the result's
    ``relaxed`` and ``contact_slack`` say so), which always has one. ``QPSolveError`` is left for
    a genuine solver failure; the caller's documented fallback is then
    [`gravity_compensation_torques`][wbc_layer.controller.WholeBodyController.gravity_compensation_torques]. A state that is not a valid one (wrong size,
    non-finite, a base quaternion off unit norm) raises [`InvalidStateError`][wbc_layer.errors.InvalidStateError]
    instead, before anything is computed: no fallback can help there.

    ``copy.deepcopy`` and ``pickle`` copy the controller with its robot model, tasks, contacts
    and bodies; the copy rebuilds its compiled core from them (as the constructor does) and its
    solvers anew, and computes the same ticks bit for bit (eiquadprog and DAQP solve each QP
    from scratch). With ``qp_solver="proxsuite"`` that is not possible once it has solved: its
    warm start lives in proxsuite's QP objects (in the compiled core, out of reach) and proxsuite
    is not bit-reproducible across QP objects, so copying then raises [`ControllerCopyError`][wbc_layer.controller.ControllerCopyError].
    """

    def __init__(
        self, robot: RobotModel, config: ControllerConfig, bodies: Sequence[EnvironmentBody] = (),
        extra_contacts: Sequence[Contact] = (),
    ):  # fmt: skip
        if not config.contacts:
            raise ConfigError("the controller needs at least one contact in its config")
        self.robot = robot
        self.config = config
        self.bodies: dict[str, EnvironmentBody] = {body.name: body for body in bodies}
        self.contacts: dict[str, Contact] = {c.name: make_contact(c) for c in config.contacts}
        for contact in extra_contacts:
            if not isinstance(contact, Contact) or type(contact).dim < 1:
                raise ConfigError(f"extra_contacts takes Contact objects with a force dimension dim >= 1, got {contact!r}")
            if contact.name in self.contacts:
                raise ConfigError(f"a contact named {contact.name!r} exists already; names: {', '.join(self.contacts)}")
            self.contacts[contact.name] = contact
        for contact in self.contacts.values():
            robot.frame_id(contact.frame)  # fail early on a wrong frame name
            if contact.on_body is not None and contact.on_body not in self.bodies:
                raise unknown_name_error("environment body", contact.on_body, list(self.bodies))
        robot.frame_id(config.torso_frame)
        self.layout = QPLayout(
            robot.nv,
            tuple((c.name, c.dim) for c in self.contacts.values()),
            tuple((body.name, body.dof) for body in self.bodies.values()),
        )
        self.com_task = ComTask("com", config.com_weight, kp=config.com_kp, kd=config.com_kd)
        self.com_task.set_reference(robot.com)
        self.posture_task = PostureTask("posture", config.posture_weight, kp=config.posture_kp, kd=config.posture_kd)
        self.posture_task.set_target(robot.q[7:])
        self.torso_task = OrientationTask(
            "torso", config.torso_weight, kp=config.torso_kp, kd=config.torso_kd, frame=config.torso_frame
        )
        self.tasks: dict[str, Task] = {
            "com": self.com_task,
            "posture": self.posture_task,
            "torso": self.torso_task,
            "regularisation": RegularisationTask(
                "regularisation",
                qdd_weight=config.qdd_regularisation,
                force_weight=config.force_regularisation,
            ),
        }
        self.tasks["angular_momentum"] = AngularMomentumTask(
            "angular_momentum", config.angular_momentum_weight, active=config.angular_momentum_weight > 0,
            damping=config.angular_momentum_damping, contacts=tuple(self.contacts.values()),
        )
        for body in self.bodies.values():
            self.tasks[f"rest_{body.name}"] = BodyRestTask(
                f"rest_{body.name}", config.body_rest_weight, body=body, kp=config.body_rest_kp, kd=config.body_rest_kd
            )
        for contact in self.contacts.values():
            self.tasks[f"force_{contact.name}"] = ContactForceTask(
                f"force_{contact.name}", config.force_weight, active=contact.mode == "controlled", contact=contact
            )
        #: the actuated joints' limits as acceleration bounds (None: joint_limit_horizon_s = 0).
        self.joint_limits: JointLimits | None = (
            JointLimits.from_model(robot.model, config.joint_limit_horizon_s) if config.joint_limit_horizon_s > 0 else None
        )
        self._force_slices = [(name, self.layout.force(name)) for name in self.contacts]
        self._body_slices = [(name, self.layout.body(name)) for name in self.bodies]
        #: added constraint pieces by name ([`add_constraint`][wbc_layer.controller.WholeBodyController.add_constraint]).
        self.constraints: dict[str, LegClearance] = {}
        for item in (*self.contacts.values(), *self.tasks.values()):
            item._robot = robot  # their frame names and sizes are checked against it from now on
        #: the compiled tick: the C++ controller these objects feed.
        self.compiled = CompiledTick(self)

    # -- copying --------------------------------------------------------------------------
    def check_copyable(self) -> None:
        """Raise [`ControllerCopyError`][wbc_layer.controller.ControllerCopyError] if a copy could not compute the same ticks as this
        controller: ``qp_solver="proxsuite"`` after a solve (its warm start cannot be copied)."""
        if self.config.qp_solver != "proxsuite":
            return
        if self.compiled.holds_warm_start:
            raise ControllerCopyError(
                "cannot copy or pickle a WholeBodyController with qp_solver='proxsuite' once it has solved: its warm "
                "start (the last primal and dual solution, in proxsuite's QP objects inside the compiled core) cannot be copied, and proxsuite's solves are "
                "not reproducible bit for bit across QP objects, so a copy would not continue the same trajectory. "
                "Copy it before its first compute() (an env: right after reset()), or use qp_solver='eiquadprog' (the "
                "default) or 'daqp', which solve each QP from scratch and copy exactly."
            )

    def __getstate__(self) -> dict:
        """What a copy (``copy.deepcopy``, ``pickle``) gets: everything but the compiled core,
        which `__setstate__` builds anew. Raises [`ControllerCopyError`][wbc_layer.controller.ControllerCopyError]
        where [`check_copyable`][wbc_layer.controller.WholeBodyController.check_copyable] does."""
        self.check_copyable()
        state = self.__dict__.copy()
        state["compiled"] = None
        # The one piece of the core's solve state a copy needs (which rows the next tick solves with first).
        state["_cold_rows_first"] = bool(self.compiled.core.cold_rows_first)
        return state

    def __copy__(self):
        raise ControllerCopyError(
            "a shallow copy of a WholeBodyController would share its tasks and contacts, which would then feed the "
            "copy's compiled core instead of the original's; use copy.deepcopy"
        )

    def __setstate__(self, state: dict) -> None:
        """Restore a copy: a core built from the copied robot, contacts, bodies, tasks and
        constraints, in their order, as the constructor builds it (with new solvers: none holds
        state a copy needs, see [`check_copyable`][wbc_layer.controller.WholeBodyController.check_copyable])."""
        cold_rows_first = state.pop("_cold_rows_first", False)
        self.__dict__.update(state)
        self.compiled = CompiledTick(self)
        self.compiled.core.cold_rows_first = cold_rows_first

    @property
    def backend(self) -> str:
        return self.config.backend

    @property
    def last_timings(self) -> dict[str, float]:
        """Wall time [us] of the parts of the last successful compute(): ``update``, ``build``,
        ``solve`` (both solves when a torque limit was hit) and ``torques``."""
        return self.compiled.timings()

    @property
    def last_problem(self) -> QPProblem | None:
        """A copy of the last tick's QP, torque-limit rows included; None before the first compute()."""
        return self.compiled.problem()

    # -- switching ------------------------------------------------------------------------
    def contact(self, name: str) -> Contact:
        """The contact named ``name``; ConfigError listing the names for another one."""
        if not isinstance(name, str) or name not in self.contacts:
            raise unknown_name_error("contact", name, list(self.contacts))
        return self.contacts[name]

    def task(self, name: str) -> Task:
        """The task named ``name``; ConfigError listing the names for another one."""
        if not isinstance(name, str) or name not in self.tasks:
            raise unknown_name_error("task", name, list(self.tasks))
        return self.tasks[name]

    def add_task(self, task: Task) -> None:
        """Register an extra task (e.g. a [`FramePositionTask`][wbc_layer.tasks.FramePositionTask]) under ``task.name``.

        Raises [`ConfigError`][wbc_layer.errors.ConfigError] for an object that is not a [`Task`][wbc_layer.tasks.Task], a name in use, a
        frame the robot does not have, a posture task without a target of na entries, or a task
        on a contact, body or contacts this controller does not hold."""
        if not isinstance(task, Task):
            raise ConfigError(
                f"add_task takes a Task (ComTask, PostureTask, OrientationTask, FramePositionTask, BodyRestTask, "
                f"ContactForceTask, RegularisationTask, AngularMomentumTask, or a subclass), got {task!r}"
            )
        if task.name in self.tasks:
            raise ConfigError(f"a task named {task.name!r} exists already; names: {', '.join(self.tasks)}")
        self._check_task_fits(task)
        self.compiled.add_task(task)
        task._robot = self.robot
        self.tasks[task.name] = task

    def add_constraint(self, constraint: LegClearance) -> None:
        """Add a constraint piece ([`wbc_layer.constraints`][wbc_layer.constraints]: a
        [`LegClearance`][wbc_layer.constraints.LegClearance]) under ``constraint.name``; its rows join the
        hot inequality rows of every tick from the next one. Change it through its attributes
        (``active``, ``min_distance_m``, ...), checked and written into the core.

        Raises [`ConfigError`][wbc_layer.errors.ConfigError] for another object, a name in use, or
        a frame the robot does not have."""
        if not isinstance(constraint, LegClearance):
            raise ConfigError(f"add_constraint takes a LegClearance (wbc_layer.constraints), got {constraint!r}")
        if constraint.name in self.constraints:
            raise ConfigError(f"a constraint named {constraint.name!r} exists already; names: {', '.join(self.constraints)}")
        for frame in (constraint.swing_frame, constraint.stance_frame):
            self.robot.frame_id(frame)  # fail early on a wrong frame name
        constraint._robot = self.robot
        self.compiled.add_constraint(constraint)
        self.constraints[constraint.name] = constraint

    def _check_task_fits(self, task: Task) -> None:
        """Raise ConfigError unless ``task`` refers to this robot's frames and this controller's
        contacts and bodies, with sizes that fit them."""
        if isinstance(task, (OrientationTask, FramePositionTask)):
            self.robot.frame_id(task.frame)  # fail early on a wrong frame name
        if isinstance(task, PostureTask):
            if task.target is None or task.target.shape != (self.robot.na,):
                shape = None if task.target is None else task.target.shape
                raise ConfigError(f"posture task {task.name!r} needs a target of {self.robot.na} entries (na), got {shape}")
            for gain in (task.kp, task.kd):
                if isinstance(gain, np.ndarray) and gain.shape != (self.robot.na,):
                    raise ConfigError(f"the gains of posture task {task.name!r} must be scalars or {self.robot.na} entries")
        contacts = [task.contact] if isinstance(task, ContactForceTask) else []
        contacts += list(task.contacts) if isinstance(task, AngularMomentumTask) else []
        for contact in contacts:
            if self.contacts.get(contact.name) is not contact:
                raise ConfigError(f"task {task.name!r} is on contact {contact.name!r}, which is not one of this controller's")
        if isinstance(task, BodyRestTask) and self.bodies.get(task.body.name) is not task.body:
            raise ConfigError(f"task {task.name!r} is on body {task.body.name!r}, which is not one of this controller's")

    def set_contact_active(self, name: str, active: bool) -> None:
        """Switch a contact on (its point stops moving, may push) or off (force held at 0).

        ``active``: a bool (or numpy bool); anything else raises [`ConfigError`][wbc_layer.errors.ConfigError]."""
        self.contact(name).active = active  # the contact checks it

    def set_force_target(self, name: str, normal_force: float, weight: float | None = None) -> None:
        """Track a contact's normal force [N] (turns its force task on); ``weight`` (finite
        and >= 0) sets the task's weight too. Raises [`ConfigError`][wbc_layer.errors.ConfigError] for a value that is not a
        finite real number."""
        task = self.task(f"force_{name}")
        if not task.normal_only:
            raise ConfigError(f"set_force_target sets a normal force; {task.name!r} tracks the full force vector")
        if type(normal_force) is not float:
            normal_force = checks.real_number(normal_force, f"force target of {task.name!r}")
        if weight is not None and type(weight) is not float:
            weight = checks.real_number(weight, f"weight of task {task.name!r}")
        unchanged_settings = task.active and (weight is None or task.weight == weight)
        if unchanged_settings and task.target[0] == normal_force:
            return  # unchanged (envs set their targets every physics step)
        if not math.isfinite(normal_force):
            raise ConfigError(f"force target of {task.name!r} must be finite, got {normal_force}")
        if unchanged_settings:  # the target alone (what an env changes at every physics step)
            task._assign(target=np.array([normal_force]))
            return
        values = {"target": np.array([normal_force]), "active": True}
        if weight is not None:
            values["weight"] = checks.nonnegative(weight, f"weight of task {task.name!r}")
        task._assign(**values)

    # -- the tick -------------------------------------------------------------------------
    def compute(
        self, q: np.ndarray, v: np.ndarray, body_states: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
    ) -> WBCResult:
        """Update the model at ``(q, v)`` (pinocchio convention), build and solve the QP.

        ``q`` (nq,), ``v`` (nv,) [m, -, rad; m/s, rad/s]: real numbers, all finite, and the base
        quaternion ``q[3:7]`` (x, y, z, w) of unit norm: within
        [`QUATERNION_NORM_TOLERANCE`][wbc_layer.robot_model.QUATERNION_NORM_TOLERANCE] (1e-6) it is used as given (a
        simulator's are unit to ~1e-15: their arithmetic is untouched), beyond it rejected, as a
        zero quaternion is. A state that breaks any of this raises
        [`InvalidStateError`][wbc_layer.errors.InvalidStateError] naming the entries, before anything is
        computed (the model keeps its last state).

        ``body_states``: environment body name -> ``(s, s_dot)``, required for every body the
        controller was given (one finite number each for a seesaw). ``last_timings`` then holds
        the wall time [us] of ``update``, ``build``, ``solve`` (both solves when a torque limit
        was hit) and ``torques``. Raises [`QPSolveError`][wbc_layer.errors.QPSolveError] when the QP has no solution (also
        when its torques would not be finite: never NaN torques as "solved").
        """
        if body_states or self.bodies:
            self._update_bodies(body_states or {})
        return self._compute_compiled(q, v)  # the core checks the state

    def _update_bodies(self, body_states: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        if not isinstance(body_states, dict):
            raise InvalidStateError(f"body_states must be a dict of body name -> (s, s_dot), got {body_states!r}")
        missing = sorted(set(self.bodies) - set(body_states))
        if missing:
            raise ConfigError(f"compute() needs body_states for the environment bodies {missing}")
        for name, state in body_states.items():
            if name not in self.bodies:
                raise unknown_name_error("environment body", name, list(self.bodies))
            if not (isinstance(state, (tuple, list)) and len(state) == 2):
                raise InvalidStateError(f"body_states[{name!r}] must be a pair (s, s_dot), got {state!r}")
            self.bodies[name].update(*state)

    _NO_BODIES = np.zeros(0)

    def _compute_compiled(self, q: np.ndarray, v: np.ndarray) -> WBCResult:
        # The core checks sizes, finiteness and the quaternion (CompiledTick.compute turns its
        # error into InvalidStateError); anything but float64 arrays is converted and checked here.
        if not (type(q) is np.ndarray and q.dtype == _F64 and type(v) is np.ndarray and v.dtype == _F64):
            q, v = self.robot.check_state(q, v)
        q = np.ascontiguousarray(q)
        v = np.ascontiguousarray(v)
        if self.bodies:
            s = np.concatenate([body.s for body in self.bodies.values()])
            s_dot = np.concatenate([body.s_dot for body in self.bodies.values()])
        else:
            s = s_dot = self._NO_BODIES
        status, x, tau, iterations, solve_time_us, slack = self.compiled.compute(q, v, s, s_dot)
        self.robot.defer_update(q, v)  # reading self.robot after the tick gives this state
        if status != "solved":
            raise QPSolveError(status, self.compiled.problem(), None)
        return self.solved_result(x, tau, iterations, solve_time_us, slack)

    def solved_result(self, x: np.ndarray, tau: np.ndarray, iterations: int, solve_time_us: float,
                      slack: dict[str, np.ndarray]) -> WBCResult:  # fmt: skip
        """The ``WBCResult`` of a solved tick from the core's solution ``x`` (nx), torques ``tau``
        (na) [N m], iterations, solve time [us] and contact slack (empty unless relaxed)."""
        forces = {name: x[rows] for name, rows in self._force_slices}
        body_accelerations = {name: x[rows] for name, rows in self._body_slices}
        return WBCResult(
            True, "solved", tau, x[: self.robot.nv], forces, solve_time_us, iterations, body_accelerations,
            relaxed=bool(slack), contact_slack=slack,
        )

    def mirror_references(self, references) -> None:
        """Make this controller's Python objects (its tasks and contacts) hold ``references`` (a
        [`References`][wbc_layer.references.References]) without writing them into the compiled
        core, for a core that holds them already: a loop that handed them over in one call (the
        core's ``set_references``) did. What ``references.write(self)`` leaves in the Python
        objects, less the core's writes."""
        with unheard([*self.contacts.values(), *self.tasks.values()]):
            references.write(self)
        self._rebuild_force_rows(self.contacts.values())

    def mirror_contacts(self, states: dict[str, tuple[bool, float, float]]) -> None:
        """Make this controller's Python contacts hold ``states`` (contact name -> ``(active,
        min_normal_force [N], max_normal_force [N])``) without writing them into the compiled
        core, for a core that holds them already (a loop handed them over row by row): what the
        fallback's static QP reads at the step a loop stopped at."""
        contacts = [self.contacts[name] for name in states]
        with unheard(contacts):
            for contact, (active, low, high) in zip(contacts, states.values(), strict=True):
                contact._assign(active=bool(active), min_normal_force=float(low), max_normal_force=float(high))
        self._rebuild_force_rows(contacts)

    def _rebuild_force_rows(self, contacts) -> None:
        """The contacts' cached force rows, as their setters would have rebuilt them (after writes unheard)."""
        for contact in contacts:
            contact.force_constraints(self.compiled.n_facets)

    def gravity_compensation_torques(self) -> np.ndarray:
        """(na,) static torques for the last updated configuration (the fallback) [N m].

        Falls back further to the actuated part of generalized gravity, clipped to the
        torque limits, if even the static QP has no solution (or its solver stops at its
        iteration cap: it returns within a few ms); never returns NaN. Raises
        [`InvalidStateError`][wbc_layer.errors.InvalidStateError] at once if the model's last state (or the
        terms computed from it) is not finite: there are no torques to give for it.
        """
        try:
            tau = gravity_compensation(
                self.robot, list(self.contacts.values()), n_facets=self.config.friction_facets
            ).tau
        except (QPSolveError, ConfigError):
            tau = self.robot.g[6:].copy()
        return np.clip(np.nan_to_num(tau), self.robot.torque_min, self.robot.torque_max)
