"""The compiled backend: the controller tick in C++ (the extension built from ``core/``), fed from Python.

[`wbc_layer.controller.WholeBodyController`][wbc_layer.controller.WholeBodyController] keeps the API (configs, task and contact
objects, setters); with ``ControllerConfig(backend="compiled")`` (the default) it writes every
task and contact into a [`CompiledTick`][wbc_layer.compiled.CompiledTick], and each ``compute()`` is one C++ call doing what
the Python reference does: model update at ``(q, v)``, QP assembly, the QP solve (proxsuite
warm-started, or eiquadprog's exact dual active set with ``qp_solver="eiquadprog"``; joint- and
torque-limit rows only when a hot solution breaks one) and torque recovery.

The core's structure is built from a [`ProblemDescription`][wbc_layer.problem.ProblemDescription]
(plain data: [`wbc_layer.problem`][wbc_layer.problem]) read off the controller; what follows writes
the values into it. Tasks and contacts stay Python objects: assigning one of their public attributes (or calling a
setter such as ``set_reference``) writes the new values into the core, after the object has
checked them ([`wbc_layer.observed`][wbc_layer.observed]); a contact's ``frame`` too. Changing an array in
place (``task.position[0] = 1``) is not seen: use the setters.

A task class the core does not know (any other [`Task`][wbc_layer.tasks.Task] subclass, a user's
task among them) is a *rows task* in the core: before each tick its rows are computed here, in
Python, from the robot model updated to the tick's state (``MotionTask.acceleration_residual``
for a motion task, else ``Task.residual``), and handed to the core, which adds them to the cost as
it adds its own tasks' (``examples/custom_task.py``). That costs a Python model update per tick
(only while such a task is active). A contact class of the user's
(``WholeBodyController(extra_contacts=...)``, on the fixed ground) is a *user contact* in the core
the same way: its ``jacobian`` and ``drift`` come from Python at each tick, its force rows as
every contact's do. An environment body class of the user's (any other
[`EnvironmentBody`][wbc_layer.environment_body.EnvironmentBody]) is a *user body*: its mass
matrix and bias, and its Jacobian and drift at each contact on it, come from Python at each tick.

The core checks every size and index it is given too (a ValueError or IndexError, never a read
past a buffer); a state it rejects (wrong size, non-finite, a quaternion off unit norm) becomes
[`InvalidStateError`][wbc_layer.errors.InvalidStateError] here, with the Python model's description of it.

With ``qp_solver="daqp"`` the core builds the QP and DAQP solves it through its Python API (the
core has no DAQP of its own), so that solver stays available at some speed cost. The relaxed QP (a
rare tick whose rigid-contact QP has no solution) is assembled and solved in the core, with
eiquadprog whatever ``qp_solver`` says: an exact dual active-set solve, from scratch (the same bits
for the same problem), by a solver the core links already (``tests/test_oracle_agree.py``
compares it with the oracle's relaxed QP solved by DAQP).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from wbc_layer.checks import finite_vector
from wbc_layer.constraints import LegClearance
from wbc_layer.contacts import Contact
from wbc_layer.errors import ConfigError, InvalidStateError, QPSolveError
from wbc_layer.problem import build_core, describe, task_kind
from wbc_layer.qp import DaqpSolver, QPProblem
from wbc_layer.result import contact_slack_norm
from wbc_layer.tasks import (
    AngularMomentumTask,
    BodyRestTask,
    ComTask,
    ContactForceTask,
    FramePositionTask,
    MotionTask,
    OrientationTask,
    PostureTask,
    RegularisationTask,
    Task,
)

if TYPE_CHECKING:  # annotations only: the controller imports this module
    from wbc_layer.controller import WholeBodyController

try:
    from wbc_layer import _core
except ImportError as err:  # the extension was not built (no compiler at install time)
    _core, _IMPORT_ERROR = None, err
else:
    _IMPORT_ERROR = None

#: Tasks whose gains ``kp``, ``kd`` have a write of their own (``core.set_gains``).
_MOTION_TASKS = (ComTask, PostureTask, OrientationTask, FramePositionTask)
#: Attribute names that are not part of a task's data (a motion task's; any other task's).
_MOTION_META = frozenset({"active", "weight", "kp", "kd"})
_META = frozenset({"active", "weight"})


def _checked(value, shape: tuple[int | None, ...], what: str) -> np.ndarray:
    """``value`` as a float array of ``shape`` (None: any size on that axis), all finite; else
    ConfigError naming ``what``."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(f"{what} must be an array of real numbers, got {type(value).__name__}") from None
    fits = array.ndim == len(shape) and all(s is None or n == s for n, s in zip(array.shape, shape, strict=False))
    if not fits:
        expected = "(" + ", ".join("m" if s is None else str(s) for s in shape) + (",)" if len(shape) == 1 else ")")
        raise ConfigError(f"{what} must have shape {expected}, got {array.shape}")
    if not np.isfinite(array).all():
        raise ConfigError(f"{what} must be finite")
    return array


def compiled_available() -> bool:
    """Whether the compiled core was built and imports."""
    return _core is not None


class CompiledTick:
    """The C++ controller of one [`WholeBodyController`][wbc_layer.controller.WholeBodyController] and the writers that feed it.

    Args:
        controller: the Python controller whose robot, contacts, bodies and tasks it mirrors.
    """

    def __init__(self, controller: WholeBodyController):
        if _core is None:
            raise ConfigError(
                f"the compiled controller core is not built ({_IMPORT_ERROR}); reinstall the package with a "
                "C++17 compiler present (`pip install -e .`; docs/install.md): it is the only controller"
            )
        robot, config = controller.robot, controller.config
        self.robot, self.n_facets, self.qp_solver = robot, config.friction_facets, config.qp_solver
        #: what the core was built from (plain data: wbc_layer.problem).
        self.description = describe(controller)
        self.core, task_indices, constraint_indices = build_core(self.description, _core)
        self.slack_weight = config.contact_slack_weight
        self.body_index = {body.name: i for i, body in enumerate(self.description.bodies)}
        #: environment bodies of the user's: their terms come from Python each tick.
        self._user_bodies = [controller.bodies[b.name] for b in self.description.bodies if b.kind == "user"]
        self.contact_index = {contact.name: i for i, contact in enumerate(self.description.contacts)}
        #: contacts of the user's: their Jacobians and drifts come from Python each tick.
        self._user_contacts = [controller.contacts[c.name] for c in self.description.contacts if c.kind == "user"]
        #: (contact, body) of each contact standing on a user body.
        self._on_user_bodies = [
            (contact, controller.bodies[contact.on_body]) for contact in controller.contacts.values()
            if contact.on_body is not None and controller.bodies[contact.on_body] in self._user_bodies
        ]  # fmt: skip
        self._contacts = list(controller.contacts.values())
        self._layout = controller.layout
        self._force_tasks: list[ContactForceTask] = []
        self._rows_tasks: list[Task] = []  # tasks whose rows are computed here before each tick
        #: task class -> its data writer (the core has a piece for these exact classes only).
        self._data_writers = {
            ComTask: self._write_com, PostureTask: self._write_posture, OrientationTask: self._write_orientation,
            FramePositionTask: self._write_frame_position, BodyRestTask: self._write_body_rest,
            ContactForceTask: self._write_contact_force, RegularisationTask: self._write_regularisation,
            AngularMomentumTask: self._write_angular_momentum,
        }  # fmt: skip
        for contact in controller.contacts.values():
            self._write_contact(contact)
            contact._listener = self._write_contact
        self.task_index: dict[str, int] = {}
        for task, index in zip(controller.tasks.values(), task_indices, strict=True):
            self._attach_task(task, index)
        self.constraint_index: dict[str, int] = {}
        for piece, index in zip(controller.constraints.values(), constraint_indices, strict=True):
            self._attach_constraint(piece, index)
        self._write_reference_rows(controller.tasks)
        self._daqp = DaqpSolver() if self.qp_solver == "daqp" else None
        self._daqp_solve_us: float | None = None

    def __reduce_ex__(self, protocol):
        raise TypeError(
            "a CompiledTick (the C++ core of one WholeBodyController) cannot be copied or pickled on its own: "
            "copy or pickle the WholeBodyController, which rebuilds its core from its tasks and contacts"
        )

    @property
    def holds_warm_start(self) -> bool:
        """Whether the core holds solver state that a core rebuilt from the Python objects would
        not: proxsuite's warm start (the last solution, inside its QP objects), once a QP was built.
        eiquadprog solves each QP from scratch and DAQP (``qp_solver="daqp"``) runs in Python."""
        return self.qp_solver == "proxsuite" and bool(self.core.has_problem)

    # -- writers ------------------------------------------------------------------------------
    def add_task(self, task: Task) -> None:
        """Create ``task``'s piece in the core and keep it in sync with the Python object."""
        self._attach_task(task, getattr(self.core, f"add_{task_kind(task)}_task")())

    def _attach_task(self, task: Task, index: int) -> None:
        """Write ``task`` into the core's piece ``index`` (of its kind) and listen to it."""
        self.task_index[task.name] = index
        if task_kind(task) == "rows":  # its rows come from Python at every tick (write_python_rows)
            self._rows_tasks.append(task)
        if isinstance(task, ContactForceTask):
            self._force_tasks.append(task)
        self._write_task(task)
        task._listener = self._write_task

    def add_constraint(self, piece: LegClearance) -> None:
        """Create ``piece``'s rows in the core and keep them in sync with the Python object."""
        self._attach_constraint(piece, self.core.add_leg_clearance())

    def _attach_constraint(self, piece: LegClearance, index: int) -> None:
        self.constraint_index[piece.name] = index
        self._write_constraint(piece)
        piece._listener = self._write_constraint

    def _write_reference_rows(self, tasks: dict[str, Task]) -> None:
        """Tell the core where one step's references go (``core.set_references``): the CoM task,
        and each built-in contact's normal-bound rows and normal-force task."""
        self.core.set_com_task(self.task_index["com"])
        for i, contact in enumerate(self.description.contacts):
            if contact.normal_bound_rows is None:  # a user contact: its rows are its own
                continue
            force = tasks.get(f"force_{contact.name}")
            normal = isinstance(force, ContactForceTask) and force.normal_only
            self.core.set_contact_reference_rows(i, *contact.normal_bound_rows, self.task_index[force.name] if normal else -1)

    def _write_constraint(self, piece: LegClearance, names: tuple[str, ...] | None = None) -> None:
        self.core.set_leg_clearance(
            self.constraint_index[piece.name], self.robot.frame_id(piece.swing_frame), self.robot.frame_id(piece.stance_frame),
            float(piece.side), float(piece.min_distance_m), float(piece.horizon_s), bool(piece.active),
        )  # fmt: skip

    def _write_task(self, task: Task, names: tuple[str, ...] | None = None) -> None:
        """Write ``task`` into the core; ``names``: the attributes that changed (None: all)."""
        core, i = self.core, self.task_index[task.name]
        motion = isinstance(task, _MOTION_TASKS)
        common = names is None or "active" in names or "weight" in names
        gains = motion and (names is None or "kp" in names or "kd" in names)
        # A motion task's gains have their own write; every other name is part of the task's data
        # (a BodyRestTask's kp and kd among them).
        if names is None or not (_MOTION_META if motion else _META).issuperset(names):
            writer = self._data_writers.get(type(task))
            if writer is not None:  # a rows task's data is its rows, written before each tick
                writer(task, i)
        if gains and type(task) in self._data_writers:
            rows = self.robot.na if isinstance(task, PostureTask) else 3
            kp = finite_vector(task.kp, rows, f"kp of {task.name!r}")
            core.set_gains(i, kp, finite_vector(task.kd, rows, f"kd of {task.name!r}"))
        if common:
            core.set_task(i, bool(task.active), float(task.weight))

    # One writer per task class (a dict lookup instead of a chain of isinstance: the envs write
    # their references at every physics step).
    def _write_com(self, task: ComTask, i: int) -> None:
        self.core.set_com(i, task.position, task.velocity, task.acceleration)

    def _write_posture(self, task: PostureTask, i: int) -> None:
        if task.target is None:
            raise ConfigError(f"posture task {task.name!r} has no target; call set_target first")
        self.core.set_posture(i, finite_vector(task.target, self.robot.na, f"target of {task.name!r}"))

    def _write_orientation(self, task: OrientationTask, i: int) -> None:
        self.core.set_orientation(i, self.robot.frame_id(task.frame), np.asarray(task.target, dtype=float))

    def _write_frame_position(self, task: FramePositionTask, i: int) -> None:
        self.core.set_frame_position(i, self.robot.frame_id(task.frame), task.position, task.velocity)

    def _write_body_rest(self, task: BodyRestTask, i: int) -> None:
        body = task.body
        target = np.zeros(body.dof) if task.target is None else finite_vector(task.target, body.dof, f"target of {task.name!r}")
        self.core.set_body_rest(i, self.body_index[body.name], float(task.kp), float(task.kd), target)

    def _write_contact_force(self, task: ContactForceTask, i: int) -> None:
        contact = task.contact
        rows = contact.normal_row()[None, :] if task.normal_only else np.eye(contact.dim)
        self.core.set_contact_force(i, self.contact_index[contact.name], rows, np.asarray(task.target, dtype=float))

    def _write_regularisation(self, task: RegularisationTask, i: int) -> None:
        self.core.set_regularisation(i, float(task.qdd_weight), float(task.force_weight))

    def _write_angular_momentum(self, task: AngularMomentumTask, i: int) -> None:
        self.core.set_angular_momentum(i, float(task.damping))

    def _write_contact(self, contact: Contact, names: tuple[str, ...] | None = None) -> None:
        index = self.contact_index[contact.name]
        if names is not None and "frame" in names:
            self.core.set_contact_frame(index, self.robot.frame_id(contact.frame))
        G, h = contact.force_constraints(self.n_facets)
        self.core.set_contact(index, bool(contact.active), G, h)
        for task in self._force_tasks:  # a point contact's normal row follows its normal
            if task.contact is contact:
                self._write_task(task)

    def write_python_rows(self, q: np.ndarray, v: np.ndarray) -> None:
        """What the core takes from Python at each tick, computed at ``(q, v)`` (the Python model
        updated there): each user body's terms and its Jacobian and drift at each active contact on
        it, each active user contact's Jacobian and drift, each active rows task's rows. Raises
        ConfigError for a value of the wrong shape or not finite, naming it."""
        for body in self._user_bodies:  # updated by the controller to this tick's (s, s_dot)
            what = f"environment body {body.name!r}:"
            M = _checked(body.mass_matrix, (body.dof, body.dof), f"{what} mass_matrix")
            self.core.set_body_dynamics(self.body_index[body.name], M, _checked(body.bias, (body.dof,), f"{what} bias"))
        on_bodies = [(contact, body) for contact, body in self._on_user_bodies if contact.active]
        contacts = [contact for contact in self._user_contacts if contact.active]
        tasks = [task for task in self._rows_tasks if task.active and task.weight > 0]
        if not (on_bodies or contacts or tasks):
            return
        robot = self.robot
        robot.update(*robot.check_state(q, v))  # InvalidStateError for a state that is not one
        for contact, body in on_bodies:
            placement, what = robot.frame_placement(contact.frame), f"environment body {body.name!r}:"
            J = _checked(body.frame_jacobian(placement), (6, body.dof), f"{what} frame_jacobian()")
            drift = _checked(body.frame_drift(placement), (6,), f"{what} frame_drift()")
            self.core.set_contact_body_kinematics(self.contact_index[contact.name], J, drift)
        for contact in contacts:
            J = _checked(contact.jacobian(robot), (contact.dim, robot.nv), f"contact {contact.name!r}: jacobian()")
            drift = _checked(contact.drift(robot), (contact.dim,), f"contact {contact.name!r}: drift()")
            self.core.set_contact_kinematics(self.contact_index[contact.name], J, drift)
        for task in tasks:
            if isinstance(task, MotionTask):  # rows on qdd: (m, nv)
                (A, b), what, columns = task.acceleration_residual(robot), "acceleration_residual()", robot.nv
            else:
                (A, b), what, columns = task.residual(robot, self._layout), "residual()", self._layout.nx
            A = _checked(A, (None, columns), f"task {task.name!r}: {what}'s A")
            b = _checked(b, (A.shape[0],), f"task {task.name!r}: {what}'s b (one per row of A)")
            self.core.set_rows(self.task_index[task.name], 0, A, b)

    # -- the tick -----------------------------------------------------------------------------
    def compute(self, q: np.ndarray, v: np.ndarray, s: np.ndarray, s_dot: np.ndarray):
        """``(status, x, tau, iterations, solve_time_us, contact_slack)`` of one tick.

        When the rigid-contact QP has no solution, the core solves the relaxed QP
        (``Controller::solve_relaxed``); ``contact_slack`` (active contact name -> residual) is
        empty unless that happened. A QP with non-finite entries (a huge state or reference
        overflowed) is not solved: ``"non_finite_problem"``. A state the core rejects raises
        InvalidStateError; a rows task's rows that do not fit, ConfigError.
        """
        if self._rows_tasks or self._user_contacts or self._user_bodies:
            self.write_python_rows(q, v)
        if self._daqp is None:
            try:
                status, x, tau, iterations, solve_us, relaxed = self.core.compute(q, v, s, s_dot)
            except (TypeError, ValueError) as err:  # the core rejected the state before using it
                raise self._state_error(q, v, err) from None
        else:
            status, x, tau, iterations, solve_us = self._compute_with_daqp(q, v, s, s_dot)
            relaxed = self.core.relaxed
        if status != "solved" or not relaxed:
            return status, x, tau, iterations, solve_us, {}
        return status, x, tau, iterations, solve_us, self.contact_slack()

    def contact_slack(self) -> dict[str, np.ndarray]:
        """Active contact name -> its acceleration residual in the last (relaxed) tick."""
        slack = self.core.contact_slack
        return {c.name: slack[self._layout.force_in_block(c.name)] for c in self._contacts if c.active}

    def relaxed_slack_norm(self) -> float:
        """``WBCResult.contact_slack_norm`` of the last tick, when it was relaxed."""
        return contact_slack_norm(self.contact_slack())

    def uses_python_rows(self) -> bool:
        """Whether a tick needs Python before the core's call (rows tasks, user contacts or
        bodies) or instead of part of it (daqp): such a controller runs only in the Python loop."""
        return bool(self._rows_tasks or self._user_contacts or self._user_bodies or self._daqp is not None)

    def _state_error(self, q, v, err: Exception) -> InvalidStateError:
        """The Python model's description of what is wrong with ``(q, v)``, else the core's."""
        try:
            self.robot.check_state(q, v)
        except InvalidStateError as state_error:
            return state_error
        return InvalidStateError(f"the controller's core rejected the state: {err}")

    def _compute_with_daqp(self, q, v, s, s_dot):
        core = self.core
        try:
            core.build(q, v, s, s_dot)
        except (TypeError, ValueError) as err:  # the core rejected the state before using it
            raise self._state_error(q, v, err) from None
        start, solve_time = time.perf_counter(), 0.0
        self._daqp_solve_us = None
        if not core.problem_finite:  # as the core's own tick: nothing to solve
            return "non_finite_problem", None, None, -1, solve_time
        try:
            solution = self._daqp.solve(self.problem(with_torque_limits=False))
            solve_time += solution.solve_time_us
            tau = core.torques(solution.x)
            if not core.within_limits(solution.x, tau):
                solution = self._daqp.solve(self.problem(with_torque_limits=True))
                solve_time += solution.solve_time_us
                tau = core.torques(solution.x)
        except QPSolveError as err:
            if not self.slack_weight > 0:
                return err.status, None, None, -1, solve_time
            relaxed_start = time.perf_counter()
            status, x, tau, iterations = core.solve_relaxed()  # the core's eiquadprog
            relaxed_us = 1e6 * (time.perf_counter() - relaxed_start)
            self._daqp_solve_us = 1e6 * (time.perf_counter() - start)
            if status == "solved" and not np.isfinite(tau).all():
                status = "non_finite_torque"
            return status, x, tau, iterations, solve_time + relaxed_us
        status = "solved" if np.isfinite(tau).all() else "non_finite_torque"
        self._daqp_solve_us = 1e6 * (time.perf_counter() - start)  # solves and torque recovery
        return status, solution.x, tau, solution.iterations, solve_time

    def problem(self, with_torque_limits: bool = True) -> QPProblem | None:
        """A copy of the last built QP; None before the first."""
        if not self.core.has_problem:
            return None
        return QPProblem(*self.core.problem(with_torque_limits))

    def timings(self) -> dict[str, float]:
        """Wall time [us] of the parts of the last ``core.compute``."""
        update, build, solve, torques = self.core.timings()
        if self._daqp is not None:  # the solves ran here, with the torque recovery between them
            solve, torques = self._daqp_solve_us or 0.0, 0.0
        return {"update": update, "build": build, "solve": solve, "torques": torques}
