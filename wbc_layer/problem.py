"""The controller's problem as plain data: what the compiled core is built from.

A [`ProblemDescription`][wbc_layer.problem.ProblemDescription] names everything the core's structure
depends on (the robot model and its limits, the environment bodies, the contacts, the tasks in
order, the constraint pieces, the joint limits, the solver settings) as numbers, strings and arrays,
with no Python controller, task or contact object in it. [`describe`][wbc_layer.problem.describe]
reads one off a [`WholeBodyController`][wbc_layer.controller.WholeBodyController];
[`build_core`][wbc_layer.problem.build_core] builds the core's structure from one. The values that
change while the controller runs (task references and gains, contact activity and force bounds) are
not part of it: the core takes them through its setters, or one physics step's references in one
call (``set_references``, ``core/references.hpp``), which is what a loop running the physics steps
in compiled code hands over without Python.

Frames are robot frame indices (the model's), not names: the description is what the core reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from wbc_layer.contacts import FootContact, PointContact
from wbc_layer.environment_body import SeesawBody
from wbc_layer.errors import ConfigError
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

#: Contact kinds, in the core's numbering (``Controller::add_contact``).
CONTACT_KINDS = ("foot", "point", "user")
#: Task kinds the core has a piece for; "rows": a task whose rows come from Python at every tick.
TASK_KINDS = (
    "com", "posture", "orientation", "frame_position", "body_rest", "contact_force", "regularisation",
    "angular_momentum", "rows",
)  # fmt: skip
#: The task classes the core has a piece for (exactly these classes; a subclass is a rows task).
_TASK_KIND = {
    ComTask: "com", PostureTask: "posture", OrientationTask: "orientation", FramePositionTask: "frame_position",
    BodyRestTask: "body_rest", ContactForceTask: "contact_force", RegularisationTask: "regularisation",
    AngularMomentumTask: "angular_momentum",
}  # fmt: skip


def task_kind(task: Task) -> str:
    """The core's kind of ``task`` (``TASK_KINDS``): its piece's, or "rows" for a class it has none for."""
    return _TASK_KIND.get(type(task), "rows")


def task_description(task: Task, contact_index: dict[str, int]) -> TaskDescription:
    """``task``'s entry (``contact_index``: contact name -> index, for a contact-force task)."""
    contact = contact_index[task.contact.name] if isinstance(task, ContactForceTask) else -1
    return TaskDescription(task.name, task_kind(task), contact)


@dataclass(frozen=True)
class RobotDescription:
    """The robot: its pinocchio model serialised (``Model.saveToString``), joint damping (nv)
    [N m s/rad], actuated torque bounds (na) [N m]."""

    serialized_model: str
    damping: np.ndarray
    torque_min: np.ndarray
    torque_max: np.ndarray


@dataclass(frozen=True)
class BodyDescription:
    """An environment body: ``kind`` "seesaw" (the core's board model, its parameters in ``seesaw``:
    mass [kg], com (3) [m], inertia_xx [kg m^2], radius [m], origin (3) [m], damping [N m s/rad],
    gravity [m/s^2]) or "user" (``dof`` coordinates, its terms from Python at every tick)."""

    name: str
    kind: str
    dof: int
    seesaw: dict[str, float | np.ndarray] | None = None


@dataclass(frozen=True)
class ContactDescription:
    """A contact: kind (one of ``CONTACT_KINDS``), robot frame index, the body it stands on (index
    into the description's bodies, -1: the fixed ground), force coordinates, and the rows of its
    ``h`` that hold its normal-force bounds (``h[i] = -min``, ``h[j] = max``; None for a user contact,
    whose rows are its own)."""

    name: str
    kind: str
    frame: int
    body: int
    dim: int
    normal_bound_rows: tuple[int, int] | None


@dataclass(frozen=True)
class TaskDescription:
    """A task: its name and kind (one of ``TASK_KINDS``); for a contact-force task, the contact's
    index."""

    name: str
    kind: str
    contact: int = -1


@dataclass(frozen=True)
class JointLimitDescription:
    """Joint limits as acceleration bounds: ranges (na) [rad], velocity limits (na) [rad/s], horizon [s]."""

    lower: np.ndarray
    upper: np.ndarray
    velocity: np.ndarray
    horizon_s: float


@dataclass(frozen=True)
class SolverSettings:
    """QP settings: solver ("eiquadprog", "proxsuite" or "daqp"), residual tolerance, iteration cap,
    contact damping [1/s], relaxed-QP contact weight (0: none), friction-pyramid facets."""

    qp_solver: str
    eps_abs: float
    max_iter: int
    contact_damping: float
    slack_weight: float
    friction_facets: int


@dataclass(frozen=True)
class ProblemDescription:
    """Everything the core's structure is built from (module docstring)."""

    robot: RobotDescription
    bodies: tuple[BodyDescription, ...]
    contacts: tuple[ContactDescription, ...]
    tasks: tuple[TaskDescription, ...]
    constraints: tuple[str, ...]  # constraint pieces by kind, in order ("leg_clearance")
    joint_limits: JointLimitDescription | None
    solver: SolverSettings
    frame_names: tuple[str, ...] = field(default=())  # the robot's frames by index, for messages


def describe(controller) -> ProblemDescription:
    """The description of ``controller``'s problem (a [`WholeBodyController`][wbc_layer.controller.WholeBodyController])."""
    robot, config = controller.robot, controller.config
    bodies = []
    for body in controller.bodies.values():
        if type(body) is SeesawBody:
            seesaw = {
                "mass": body.mass, "com": body.com, "inertia_xx": float(body.inertia[0, 0]), "radius": body.radius,
                "origin": body.origin, "damping": body.damping, "gravity": body.gravity,
            }  # fmt: skip
            bodies.append(BodyDescription(body.name, "seesaw", int(body.dof), seesaw))
        else:
            bodies.append(BodyDescription(body.name, "user", int(body.dof)))
    body_index = {body.name: i for i, body in enumerate(bodies)}
    contacts, facets = [], config.friction_facets
    for contact in controller.contacts.values():
        builtin = type(contact) in (FootContact, PointContact)
        kind = ("foot" if type(contact) is FootContact else "point") if builtin else "user"
        body = -1 if contact.on_body is None else body_index[contact.on_body]
        if kind == "user" and body != -1:
            raise ConfigError(
                f"contact {contact.name!r} ({type(contact).__name__}): the compiled core takes a contact class of "
                f"yours on the fixed ground only, not on environment body {contact.on_body!r}"
            )
        rows = (facets, facets + 1) if builtin else None  # Contact._normal_rows follow the friction rows
        contacts.append(
            ContactDescription(contact.name, kind, robot.frame_id(contact.frame), body, contact.dim, rows)
        )
    contact_index = {contact.name: i for i, contact in enumerate(contacts)}
    tasks = tuple(task_description(task, contact_index) for task in controller.tasks.values())
    limits = controller.joint_limits
    joint_limits = (
        None
        if limits is None
        else JointLimitDescription(limits.lower, limits.upper, limits.velocity, limits.horizon_s)
    )
    solver = SolverSettings(
        config.qp_solver,
        config.eps_abs,
        MAX_ITER,
        config.contact_damping,
        config.contact_slack_weight,
        facets,
    )
    return ProblemDescription(
        RobotDescription(robot.model.saveToString(), robot.damping, robot.torque_min, robot.torque_max),
        tuple(bodies),
        tuple(contacts),
        tasks,
        tuple("leg_clearance" for _ in controller.constraints),
        joint_limits,
        solver,
        tuple(frame.name for frame in robot.model.frames),
    )


#: ``core.compute`` iteration cap (proxsuite's and eiquadprog's).
MAX_ITER = 1000


def build_core(description: ProblemDescription, core_module):
    """A ``core_module.Controller`` with ``description``'s structure: bodies, contacts (finalised),
    contact damping, joint limits, slack weight, its tasks and constraint pieces created (their
    data is written next, by the setters). Returns ``(core, task_index, constraint_index)``: the
    core's index of each task and constraint piece, in the description's order."""
    robot, solver = description.robot, description.solver
    core = core_module.Controller(
        robot.serialized_model, robot.damping, robot.torque_min, robot.torque_max,
        "eiquadprog" if solver.qp_solver == "eiquadprog" else "proxsuite", solver.eps_abs, solver.max_iter,
    )  # fmt: skip
    for body in description.bodies:
        if body.kind == "seesaw":
            p = body.seesaw
            core.add_seesaw(
                p["mass"], p["com"], p["inertia_xx"], p["radius"], p["origin"], p["damping"], p["gravity"]
            )
        else:
            core.add_user_body(body.dof)
    for contact in description.contacts:
        core.add_contact(CONTACT_KINDS.index(contact.kind), contact.frame, contact.body, contact.dim)
    core.finalize()
    core.set_contact_damping(solver.contact_damping)
    limits = description.joint_limits
    if limits is not None:
        core.set_joint_limits(limits.lower, limits.upper, limits.velocity, limits.horizon_s)
    core.set_slack_weight(solver.slack_weight)
    adders = {kind: getattr(core, f"add_{kind}_task") for kind in TASK_KINDS}
    task_index = [adders[task.kind]() for task in description.tasks]
    constraint_index = [core.add_leg_clearance() for _ in description.constraints]
    return core, task_index, constraint_index
