"""Tasks: weighted least-squares terms ``w ||A x - b||^2`` of the QP cost.

Motion tasks (CoM, posture, orientation) follow mink's split: a task provides its
``jacobian``, ``drift`` (``Jdot v``), ``error`` and ``error_velocity``; the base class turns
them into the desired task acceleration ``a* = a_ff - kp e - kd e_dot`` and the cost rows
``J qdd + Jdot v = a*``. A task never touches the QP algebra beyond returning ``(A, b)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from wbc_layer import checks
from wbc_layer.checks import finite_vector  # (importable from here too, as before wbc_layer.checks)
from wbc_layer.contacts import Contact
from wbc_layer.environment_body import EnvironmentBody
from wbc_layer.errors import ConfigError
from wbc_layer.layout import QPLayout
from wbc_layer.observed import Observed
from wbc_layer.robot_model import RobotModel


# -- the checks of the tasks' attributes (wbc_layer.observed.Observed runs them on every write) --
def _label(task) -> str:
    return f"task {task.__dict__.get('name', '?')!r}"


def _robot(obj) -> RobotModel | None:
    """The robot of the controller holding ``obj`` (set when the controller takes it), or None."""
    return obj.__dict__.get("_robot")


def _check_name(task, value):
    return checks.name(value, "the name of a task")


def _check_weight(task, value):
    return checks.nonnegative(value, f"weight of {_label(task)}")


def _check_active(task, value):
    return checks.boolean(value, f"active of {_label(task)}")


def _gain_check(attribute: str):
    def check(task, value):
        what = f"{attribute} of {_label(task)}"
        if isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value) > 0:
            rows = task._gain_rows()
            gains = checks.finite_array_1d(value, what) if rows is None else finite_vector(value, rows, what)
            if (gains < 0).any():
                raise ConfigError(f"{what} must be >= 0 and finite, got {gains}")
            return gains
        return checks.nonnegative(value, what)

    return check


def _vector_check(attribute: str, size: int = 3):
    def check(task, value):
        return finite_vector(value, size, f"{attribute} of {_label(task)}")

    return check


def _check_frame(task, value):
    return checks.frame_name(task, value, f"frame of {_label(task)}")


def _check_posture_target(task, value):
    current = task.__dict__.get("target")
    if value is None:
        if current is None:
            return None  # no target yet (set_target gives one)
        raise ConfigError(f"target of {_label(task)} must be {current.size} finite numbers [rad], got None")
    size, what = task._gain_rows(), f"target of {_label(task)}"
    target = checks.finite_array_1d(value, what) if size is None else finite_vector(value, size, what)
    for gain in ("kp", "kd"):
        gains = task.__dict__.get(gain)
        if isinstance(gains, np.ndarray) and gains.shape != target.shape:
            raise ConfigError(f"target of {_label(task)} must have as many entries as its {gain} ({gains.size}), got {target.size}")
    return target


def _check_orientation_target(task, value):
    return checks.rotation_matrix(value, f"orientation target of {task.__dict__.get('name', '?')!r}")


def _check_body(task, value):
    if not isinstance(value, EnvironmentBody):
        raise ConfigError(f"body of {_label(task)} must be an EnvironmentBody, got {value!r}")
    return value


def _check_body_target(task, value):
    if value is None:
        if task.__dict__.get("target") is None:
            return None  # the default: 0
        raise ConfigError(f"target of {_label(task)} must be {task.body.dof} finite numbers, got None")
    return finite_vector(value, task.body.dof, f"target of {_label(task)}")


def _scalar_gain_check(attribute: str):
    def check(task, value):
        return checks.nonnegative(value, f"{attribute} of {_label(task)}")

    return check


def _check_contact(task, value):
    if not isinstance(value, Contact):
        raise ConfigError(f"contact of {_label(task)} must be a Contact, got {value!r}")
    return value


def _check_normal_only(task, value):
    value = checks.boolean(value, f"normal_only of {_label(task)}")
    if "normal_only" in task.__dict__ and value != task.normal_only:
        raise ConfigError(
            f"normal_only of {_label(task)} changes the size of its target: call "
            f"set_target(target, normal_only={value}) to change both, got normal_only={value} alone"
        )
    return value


def _check_force_target(task, value):
    size = 1 if task.normal_only else task.contact.dim
    if value is None and "target" not in task.__dict__:
        return np.zeros(size)  # the default: no force
    return finite_vector(value, size, f"force target of {task.__dict__.get('name', '?')!r}")


def _check_contacts(task, value):
    if not isinstance(value, (tuple, list)) or not all(isinstance(c, Contact) for c in value):
        raise ConfigError(f"contacts of {_label(task)} must be a tuple of Contacts, got {value!r}")
    return tuple(value)


@dataclass
class Task(Observed):
    """Base of all cost terms. ``weight`` >= 0 (finite) scales the squared residual.

    Every public assignment is checked before it is stored (shape, finiteness, sign, range: a
    [`ConfigError`][wbc_layer.errors.ConfigError] names the task and the attribute, and the old value
    stays), and a compiled controller holding the task hears it ([`Observed`][wbc_layer.observed.Observed]). ``name``
    and the objects a task is built on (a contact, a body) are fixed once it is made.
    """

    name: str
    weight: float = 1.0
    active: bool = True

    _checks = {"name": checks.set_once("name", _check_name), "weight": _check_weight, "active": _check_active}

    def residual(self, robot: RobotModel, layout: QPLayout) -> tuple[np.ndarray, np.ndarray]:
        """``(A (m, nx), b (m,))`` of the term ``||A x - b||^2``."""
        raise NotImplementedError

    def diagonal_residual(self, robot: RobotModel, layout: QPLayout) -> tuple[slice, np.ndarray, np.ndarray] | None:
        """``(indices, d, b)`` when the term is ``||d * x[indices] - b||^2``, else None.

        Such a term only touches the diagonal of ``P`` (the core's posture, force and
        regularisation pieces add it there).
        """
        return None


@dataclass
class MotionTask(Task):
    """A task on an acceleration ``J qdd + Jdot v`` tracked with PD feedback.

    ``kp`` [1/s^2] and ``kd`` [1/s] are scalars or per-row arrays, finite and >= 0.
    """

    kp: float | np.ndarray = 100.0
    kd: float | np.ndarray = 20.0

    _checks = {**Task._checks, "kp": _gain_check("kp"), "kd": _gain_check("kd")}

    def _gain_rows(self) -> int | None:
        """Rows of the task (the size of a per-row ``kp``), None when not known."""
        return None

    def jacobian(self, robot: RobotModel) -> np.ndarray:
        raise NotImplementedError

    def drift(self, robot: RobotModel) -> np.ndarray:
        raise NotImplementedError

    def error(self, robot: RobotModel) -> np.ndarray:
        """Current minus reference."""
        raise NotImplementedError

    def error_velocity(self, robot: RobotModel) -> np.ndarray:
        raise NotImplementedError

    def feedforward(self) -> np.ndarray | float:
        return 0.0

    def desired_acceleration(self, robot: RobotModel) -> np.ndarray:
        return self.feedforward() - self.kp * self.error(robot) - self.kd * self.error_velocity(robot)

    def acceleration_residual(self, robot: RobotModel) -> tuple[np.ndarray, np.ndarray]:
        """``(J (m, nv), b (m,))`` of ``||J qdd - b||^2``: the term acts on ``qdd`` alone."""
        return self.jacobian(robot), self.desired_acceleration(robot) - self.drift(robot)

    def residual(self, robot: RobotModel, layout: QPLayout) -> tuple[np.ndarray, np.ndarray]:
        J, b = self.acceleration_residual(robot)
        A = np.zeros((J.shape[0], layout.nx))
        A[:, layout.qdd] = J
        return A, b


@dataclass
class ComTask(MotionTask):
    """Centre of mass to ``position`` [m] with ``velocity`` [m/s] and ``acceleration`` [m/s^2]."""

    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    acceleration: np.ndarray = field(default_factory=lambda: np.zeros(3))

    _checks = {
        **MotionTask._checks, "position": _vector_check("position"), "velocity": _vector_check("velocity"),
        "acceleration": _vector_check("acceleration"),
    }  # fmt: skip

    def _gain_rows(self) -> int:
        return 3

    def set_reference(self, position, velocity=None, acceleration=None) -> None:
        """Set the CoM reference; each argument (3,), finite, copied; velocity and acceleration
        default to zero."""
        self._assign(
            position=finite_vector(position, 3, "CoM position reference"),
            velocity=np.zeros(3) if velocity is None else finite_vector(velocity, 3, "CoM velocity reference"),
            acceleration=(
                np.zeros(3) if acceleration is None else finite_vector(acceleration, 3, "CoM acceleration reference")
            ),
        )

    def jacobian(self, robot):
        return robot.com_jacobian

    def drift(self, robot):
        return robot.com_drift

    def error(self, robot):
        return robot.com - self.position

    def error_velocity(self, robot):
        return robot.com_velocity - self.velocity

    def feedforward(self):
        return self.acceleration


@dataclass
class PostureTask(MotionTask):
    """Actuated joints to ``target`` (na,) [rad]; base rows are not part of this task.

    Its size is fixed by the first target (a controller's: na); per-row gains have as many."""

    target: np.ndarray | None = None

    _checks = {**MotionTask._checks, "target": _check_posture_target}

    def _gain_rows(self) -> int | None:
        target = self.__dict__.get("target")
        if target is not None:
            return target.size
        robot = _robot(self)
        return None if robot is None else robot.na

    def set_target(self, target) -> None:
        """Joint targets (na,) [rad], finite, copied."""
        self.target = target

    def jacobian(self, robot):
        if getattr(self, "_jacobian", None) is None or self._jacobian.shape != (robot.na, robot.nv):
            self._jacobian = np.hstack([np.zeros((robot.na, 6)), np.eye(robot.na)])
        return self._jacobian

    def drift(self, robot):
        return 0.0

    def error(self, robot):
        if self.target is None:
            raise ConfigError(f"posture task {self.name!r} has no target; call set_target first")
        return robot.q[7:] - self.target

    def error_velocity(self, robot):
        return robot.v[6:]

    def diagonal_residual(self, robot, layout):
        return slice(6, robot.nv), 1.0, self.desired_acceleration(robot)


@dataclass
class OrientationTask(MotionTask):
    """A frame's orientation to ``target`` (3, 3) rotation, world axes; 3 angular rows."""

    frame: str = "torso"
    target: np.ndarray = field(default_factory=lambda: np.eye(3))

    _checks = {**MotionTask._checks, "frame": _check_frame, "target": _check_orientation_target}

    def _gain_rows(self) -> int:
        return 3

    def set_target(self, rotation) -> None:
        """The frame's target orientation, a (3, 3) rotation matrix (world axes), copied."""
        self.target = rotation

    def jacobian(self, robot):
        return robot.frame_jacobian(self.frame, local=False)[3:]

    def drift(self, robot):
        return robot.frame_drift(self.frame, local=False)[3:]

    def error(self, robot):
        # Rotation error R * R_ref^T as a world-axes rotation vector.
        rotation = robot.frame_placement(self.frame).rotation
        return pin.log3(rotation @ self.target.T)

    def error_velocity(self, robot):
        return robot.frame_velocity(self.frame, local=False)[3:]


@dataclass
class FramePositionTask(MotionTask):
    """A frame's origin to ``position`` [m] with ``velocity`` [m/s], world axes; 3 rows.

    For example a lifted foot following a swing trajectory, or a hand approaching a wall.
    """

    frame: str = ""
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))

    _checks = {
        **MotionTask._checks, "frame": _check_frame, "position": _vector_check("position"),
        "velocity": _vector_check("velocity"),
    }  # fmt: skip

    def _gain_rows(self) -> int:
        return 3

    def set_reference(self, position, velocity=None) -> None:
        """Set the frame's position [m] and velocity [m/s] references, (3,) each, finite, copied;
        velocity defaults to zero."""
        self._assign(
            position=finite_vector(position, 3, f"position reference of {self.name!r}"),
            velocity=np.zeros(3) if velocity is None else finite_vector(velocity, 3, f"velocity reference of {self.name!r}"),
        )

    def jacobian(self, robot):
        return robot.frame_jacobian(self.frame, local=False)[:3]

    def drift(self, robot):
        return robot.frame_drift(self.frame, local=False)[:3]

    def error(self, robot):
        return robot.frame_placement(self.frame).translation - self.position

    def error_velocity(self, robot):
        return robot.frame_velocity(self.frame, local=False)[:3] - self.velocity


@dataclass
class BodyRestTask(Task):
    """An environment body's coordinates to ``target`` (default 0: a seesaw's level board).

    ``sdd* = -kp (s - target) - kd sd`` on the body's accelerations in the QP [SI per coordinate];
    the controller reaches it only through the contact forces, since nothing else moves the body.
    """

    body: object = None  # wbc_layer.environment_body.EnvironmentBody
    kp: float = 10.0
    kd: float = 5.0
    target: np.ndarray | None = None

    _checks = {
        **Task._checks, "body": checks.set_once("body", _check_body), "kp": _scalar_gain_check("kp"),
        "kd": _scalar_gain_check("kd"), "target": _check_body_target,
    }  # fmt: skip

    def set_target(self, target) -> None:
        """Coordinates to hold the body at, (dof,) [SI per coordinate], finite, copied."""
        self._assign(target=finite_vector(target, self.body.dof, f"target of {self.name!r}"))

    def residual(self, robot, layout):
        body = self.body
        target = np.zeros(body.dof) if self.target is None else self.target
        A = np.zeros((body.dof, layout.nx))
        A[:, layout.body(body.name)] = np.eye(body.dof)
        return A, -self.kp * (body.s - target) - self.kd * body.s_dot


@dataclass
class ContactForceTask(Task):
    """A contact's force to ``target`` [N, N m] (a controlled contact of *Partial Force Control*).

    ``normal_only``: track only the normal component (a scalar target); else the full force
    vector in the contact's force coordinates. ``target`` (1,) or (contact.dim,), default zero;
    change ``normal_only`` with [`set_target`][wbc_layer.tasks.ContactForceTask.set_target], which changes both together.
    """

    contact: object = None  # wbc_layer.contacts.Contact
    normal_only: bool = True
    target: np.ndarray | None = None

    _checks = {
        **Task._checks, "contact": checks.set_once("contact", _check_contact), "normal_only": _check_normal_only,
        "target": _check_force_target,
    }  # fmt: skip

    def set_target(self, target, normal_only: bool | None = None) -> None:
        """The force target [N, N m]: (1,) the normal force, or, with ``normal_only=False``, the
        full force vector (contact.dim,); ``normal_only`` None keeps the current choice."""
        if normal_only is None or normal_only is self.normal_only:
            size = 1 if self.normal_only else self.contact.dim
            self._assign(target=finite_vector(target, size, f"force target of {self.name!r}"))
            return
        normal_only = checks.boolean(normal_only, f"normal_only of {_label(self)}")
        size = 1 if normal_only else self.contact.dim
        self._assign(normal_only=normal_only, target=finite_vector(target, size, f"force target of {self.name!r}"))

    def diagonal_residual(self, robot, layout):
        """A normal-force target on a contact whose normal is one of its force coordinates
        (a foot's local ``f_z``) selects one entry of ``x``: the diagonal fast path."""
        if not self.normal_only:
            return None
        row = self.contact.normal_row()
        (nonzero,) = np.nonzero(row)
        if len(nonzero) != 1 or row[nonzero[0]] != 1.0:
            return None
        index = layout.force(self.contact.name).start + int(nonzero[0])
        return slice(index, index + 1), 1.0, self.target

    def residual(self, robot, layout):
        contact = self.contact
        rows = contact.normal_row()[None, :] if self.normal_only else np.eye(contact.dim)
        A = np.zeros((rows.shape[0], layout.nx))
        A[:, layout.force(contact.name)] = rows
        return A, self.target.copy()


@dataclass
class RegularisationTask(Task):
    """Small damping of the solution: ``qdd_weight ||qdd||^2 + force_weight ||f||^2``
    (environment-body accelerations count as accelerations).

    ``weight`` (default 1) multiplies both.
    """

    qdd_weight: float = 1e-4
    force_weight: float = 1e-6

    _checks = {
        **Task._checks, "qdd_weight": _scalar_gain_check("qdd_weight"),
        "force_weight": _scalar_gain_check("force_weight"),
    }  # fmt: skip

    def residual(self, robot, layout):
        _, scale, target = self.diagonal_residual(robot, layout)
        return np.diag(scale), target

    def diagonal_residual(self, robot, layout):
        key = (layout.nv, layout.nb, layout.nf, self.qdd_weight, self.force_weight)
        if getattr(self, "_cache_key", None) != key:
            scale = np.concatenate([
                np.full(layout.nv + layout.nb, np.sqrt(self.qdd_weight)),
                np.full(layout.nf, np.sqrt(self.force_weight)),
            ])
            self._cache, self._cache_key = (slice(0, layout.nx), scale, np.zeros(layout.nx)), key
        return self._cache


@dataclass
class AngularMomentumTask(Task):
    """Damps the robot's centroidal angular momentum ``L`` through the contact wrenches.

    The rate of change of ``L`` (about the CoM ``c``, world axes) is the contact wrenches' moment
    about ``c``; the task asks for ``dL/dt = -damping L``. The floating-base rows of the QP make
    the contact wrenches, expressed at the base, ``J_b^T f`` (``J_b`` the contact Jacobians'
    base columns), so the three cost rows act on the forces alone:

        [ skew(p_b - c) R_b,  R_b ] J_b^T f  =  -damping L

    (``p_b``, ``R_b``: the base's position and rotation). As in the momentum-based balance of
    *Modeling and Control of Humanoid Robots in Dynamic Environments: iCub Balancing on a
    Seesaw*: without it nothing stops the whole body from spinning up while the CoM task holds
    the CoM. ``damping`` [1/s]; ``contacts``: the controller's contacts (the active ones count).
    """

    damping: float = 10.0
    contacts: tuple = ()

    _checks = {**Task._checks, "damping": _scalar_gain_check("damping"), "contacts": checks.set_once("contacts", _check_contacts)}

    def wrench_moment_rows(self, robot: RobotModel, layout: QPLayout) -> np.ndarray:
        """(3, nx): the contact wrenches' moment about the CoM [N m] as rows on ``x``."""
        R = robot.base_rotation
        to_com = np.hstack([pin.skew(robot.base_position - robot.com) @ R, R])
        A = np.zeros((3, layout.nx))
        for contact in self.contacts:
            if contact.active:
                A[:, layout.force(contact.name)] = to_com @ contact.jacobian(robot)[:, :6].T
        return A

    def residual(self, robot, layout):
        return self.wrench_moment_rows(robot, layout), -self.damping * robot.angular_momentum
