"""One physics step's references for the controller, as one preallocated value written in one call.

An env (or a robot's control loop) builds a [`References`][wbc_layer.references.References] once per
controller, from that controller's contacts and tasks, and updates it in place at every tick
(500 times a second): the CoM reference, each contact's activity, force bounds and normal-force
target, and the targets of the other tasks it names. [`References.write`][wbc_layer.references.References.write]
then hands it to the controller: what changed since the last write, through the controller's own
setters (so the compiled core sees exactly what a caller of those setters would have set).

A reference may be a trajectory segment instead of a value: a [`PointReference`][wbc_layer.references.PointReference]
that [`follow`][wbc_layer.references.PointReference.follow]s a [`Segment`][wbc_layer.references.Segment] (a minimum-jerk glide,
a linear ramp from ``t0`` to ``t1``) is evaluated at every tick by
[`References.evaluate`][wbc_layer.references.References.evaluate], so a planner above the controller can run at a
lower rate (an env's 50 Hz) and still hand it smooth references at the physics rate.

Pure numpy: no simulator, no Gymnasium.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = [
    "ContactReference",
    "LinearRamp",
    "MinJerkSegment",
    "PointReference",
    "References",
    "Segment",
    "TaskReference",
    "min_jerk",
    "task_references",
]


def min_jerk(t: float, t0: float, t1: float) -> tuple[float, float]:
    """Minimum-jerk phase from 0 at ``t0`` to 1 at ``t1`` [s]: (s, ds/dt [1/s]).

    ``s = 10 x^3 - 15 x^4 + 6 x^5`` with ``x = (t - t0) / (t1 - t0)``, held at 0 before ``t0``
    and at 1 after ``t1``. With ``t0 = 0, t1 = 1`` it is the profile of the phase ``t`` itself.
    """
    if t <= t0:
        return 0.0, 0.0
    if t >= t1:
        return 1.0, 0.0
    T = t1 - t0
    x = (t - t0) / T
    # Just before t1 the polynomial can round to an ulp above 1 (one time in a thousand within
    # 1e-3 of the end): held at 1, as after t1, so that a ramp's complement 1 - s stays >= 0.
    return min(10 * x**3 - 15 * x**4 + 6 * x**5, 1.0), (30 * x**2 - 60 * x**3 + 30 * x**4) / T


class Segment:
    """A reference trajectory over time: ``sample(t, position, velocity)`` writes its value and
    rate at ``t`` [s] into the arrays it is given (in place: no allocation per tick)."""

    def sample(self, t: float, position: np.ndarray, velocity: np.ndarray) -> None:
        """Write the value (n,) and rate (n,) at ``t`` [s] into ``position`` and ``velocity``."""
        raise NotImplementedError


class MinJerkSegment(Segment):
    """``start + s(t) delta`` with ``s`` the minimum-jerk phase from ``t0`` to ``t1`` [s]
    ([`min_jerk`][wbc_layer.references.min_jerk]); rate ``s'(t) delta``. ``start``, ``delta``: (n,)
    in the reference's unit (copied)."""

    def __init__(self, t0: float, t1: float, start, delta):
        self.t0, self.t1 = float(t0), float(t1)
        self.start = np.array(start, dtype=float)
        self.delta = np.array(delta, dtype=float)

    def sample(self, t: float, position: np.ndarray, velocity: np.ndarray) -> None:
        s, s_dot = min_jerk(t, self.t0, self.t1)
        position[:] = self.start + s * self.delta
        velocity[:] = s_dot * self.delta


class LinearRamp(Segment):
    """``start + min(1, (t - t0) / (t1 - t0)) (end - start)`` for ``t >= t0`` (``start`` before),
    the rate ``(end - start) / (t1 - t0)`` inside the ramp and 0 outside: a force ramp, a slow
    glide. (n,) values, copied; ``t1 > t0``."""

    def __init__(self, t0: float, t1: float, start, end):
        if not t1 > t0:
            raise ValueError(f"LinearRamp needs t1 > t0, got t0={t0!r}, t1={t1!r}")
        self.t0, self.t1 = float(t0), float(t1)
        self.start = np.array(start, dtype=float)
        self.end = np.array(end, dtype=float)

    def sample(self, t: float, position: np.ndarray, velocity: np.ndarray) -> None:
        s = min(max(t - self.t0, 0.0) / (self.t1 - self.t0), 1.0)
        position[:] = self.start + s * (self.end - self.start)
        velocity[:] = (self.end - self.start) / (self.t1 - self.t0) if 0.0 < s < 1.0 else 0.0


class PointReference:
    """A position-like reference with its rate and acceleration, (n,) each, updated in place.

    [`set`][wbc_layer.references.PointReference.set] holds values (and drops a segment);
    [`follow`][wbc_layer.references.PointReference.follow] makes it sample a segment at every
    [`References.evaluate`][wbc_layer.references.References.evaluate].
    """

    __slots__ = ("acceleration", "position", "segment", "velocity")

    def __init__(self, size: int = 3, position=None):
        self.position = np.zeros(size) if position is None else np.array(position, dtype=float)
        self.velocity = np.zeros(size)
        self.acceleration = np.zeros(size)
        self.segment: Segment | None = None

    def set(self, position, velocity=None, acceleration=None) -> None:
        """Hold these values (copied into the arrays; rates default to zero)."""
        self.segment = None
        self.position[:] = position
        self.velocity[:] = 0.0 if velocity is None else velocity
        self.acceleration[:] = 0.0 if acceleration is None else acceleration

    def follow(self, segment: Segment | None) -> None:
        """Sample ``segment`` from the next evaluation on (None: hold the last values)."""
        self.segment = segment

    def evaluate(self, t: float) -> None:
        """The segment's values at ``t`` [s] (nothing without one)."""
        if self.segment is not None:
            self.segment.sample(t, self.position, self.velocity)


class ContactReference:
    """One contact's references: whether it is active (rigid, may push), its normal-force bounds
    [N], and its normal-force target [N] with the force task's weight (``force_target`` None: no
    force task). ``mode`` ("supporting" or "controlled") is the controller's, for reading."""

    __slots__ = ("active", "force_target", "force_weight", "max_normal_force", "min_normal_force", "mode", "name")

    def __init__(self, name: str, mode: str, active: bool, min_normal_force: float, max_normal_force: float):
        self.name, self.mode = name, mode
        self.active = active
        self.min_normal_force, self.max_normal_force = min_normal_force, max_normal_force
        self.force_target: float | None = None
        self.force_weight: float | None = None

    def _assign(self, **values) -> None:
        """Set several of ``active``, ``min_normal_force``, ``max_normal_force`` (the interface
        [`ContactGuard`][wbc_layer.contact_guard.ContactGuard] drives a contact through)."""
        for name, value in values.items():
            setattr(self, name, value)

    def track(self, normal_force: float, weight: float | None = None) -> None:
        """Track ``normal_force`` [N] with the force task (``weight``: its weight; None keeps it)."""
        self.force_target = normal_force
        self.force_weight = weight

    def release_force(self) -> None:
        """No force task on this contact (its force is free within the bounds)."""
        self.force_target = None


class TaskReference:
    """The references of a task other than the CoM's: ``active``, and a point reference
    (position and velocity: a frame's position task) or a ``target`` (an orientation's rotation
    matrix, a body's coordinates), whichever the task takes."""

    __slots__ = ("active", "name", "point", "target")

    def __init__(self, name: str, active: bool, point: PointReference | None = None, target: np.ndarray | None = None):
        self.name, self.active = name, active
        self.point, self.target = point, target


def task_references(controller, names: Iterable[str]) -> dict[str, TaskReference]:
    """Task name -> a [`TaskReference`][wbc_layer.references.TaskReference] holding what ``controller``'s
    task of that name holds now (ConfigError naming the valid ones for another name)."""
    entries = {}
    for name in names:
        task = controller.task(name)
        if hasattr(task, "set_reference"):
            point = PointReference(3, task.position)
            point.velocity[:] = task.velocity
            entries[name] = TaskReference(name, task.active, point=point)
        else:
            target = getattr(task, "target", None)
            if target is None and hasattr(task, "body"):  # a body's rest task not given a target yet
                target = np.zeros(task.body.dof)
            target = None if target is None else np.array(target, dtype=float)
            entries[name] = TaskReference(name, task.active, target=target)
    return entries


def _same(a, b: np.ndarray) -> bool:
    """Whether ``a`` is an array of ``b``'s shape and dtype holding the same values bit for bit."""
    return type(a) is np.ndarray and a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


class References:
    """The controller's references for one tick, mirroring one controller's contacts and tasks.

    Attributes:
        time: the tick's time [s] (the last [`evaluate`][wbc_layer.references.References.evaluate]).
        com: the CoM reference, world [m, m/s, m/s^2].
        contacts: contact name -> [`ContactReference`][wbc_layer.references.ContactReference], every
            contact of the controller.
        tasks: task name -> [`TaskReference`][wbc_layer.references.TaskReference], the tasks named at
            construction (e.g. an added swing-foot task, a body's rest task).

    Built by [`for_controller`][wbc_layer.references.References.for_controller] from the controller's
    state, so that a first write changes nothing the caller did not change.
    """

    def __init__(self, com: PointReference, contacts: dict[str, ContactReference], tasks: dict[str, TaskReference]):
        self.time = 0.0
        self.com = com
        self.contacts = contacts
        self.tasks = tasks

    @classmethod
    def for_controller(cls, controller, tasks: Iterable[str] = ()) -> References:
        """References holding ``controller``'s current CoM reference, contacts and force tasks,
        and the tasks named in ``tasks`` (ConfigError naming the valid ones for another name)."""
        com_task = controller.com_task
        com = PointReference(3, com_task.position)
        com.velocity[:] = com_task.velocity
        com.acceleration[:] = com_task.acceleration
        contacts = {}
        for name, contact in controller.contacts.items():
            entry = ContactReference(name, contact.mode, contact.active, contact.min_normal_force, contact.max_normal_force)
            force = controller.tasks[f"force_{name}"]
            if force.active and force.normal_only and force.target is not None:
                entry.track(float(force.target[0]), float(force.weight))
            contacts[name] = entry
        return cls(com, contacts, task_references(controller, tasks))

    def contact(self, name: str) -> ContactReference:
        """The contact ``name``'s entry (``KeyError`` naming the contacts for another one)."""
        try:
            return self.contacts[name]
        except KeyError:
            raise KeyError(f"no contact {name!r} in these references; contacts: {', '.join(self.contacts)}") from None

    def task(self, name: str) -> TaskReference:
        """The task ``name``'s entry (``KeyError`` naming the tasks for another one)."""
        try:
            return self.tasks[name]
        except KeyError:
            raise KeyError(f"no task {name!r} in these references; tasks: {', '.join(self.tasks)}") from None

    def evaluate(self, time: float) -> None:
        """Sample every segment at ``time`` [s]."""
        self.time = time
        self.com.evaluate(time)
        for entry in self.tasks.values():
            if entry.point is not None:
                entry.point.evaluate(time)

    def write(self, controller) -> None:
        """Hand these references to ``controller``: every value that differs from what it holds,
        through its setters (the CoM task's reference, contact activity and bounds, force targets
        and weights, the named tasks' activity and targets). A force task whose contact has no
        target is switched off."""
        com, task = self.com, controller.com_task
        if not (_same(task.position, com.position) and _same(task.velocity, com.velocity) and _same(task.acceleration, com.acceleration)):
            task.set_reference(com.position, com.velocity, com.acceleration)
        contacts, tasks = controller.contacts, controller.tasks
        for name, entry in self.contacts.items():
            contact = contacts[name]
            changed = {}
            if contact.active != entry.active:
                changed["active"] = entry.active
            if contact.min_normal_force != entry.min_normal_force:
                changed["min_normal_force"] = entry.min_normal_force
            if contact.max_normal_force != entry.max_normal_force:
                changed["max_normal_force"] = entry.max_normal_force
            if changed:
                contact._assign(**changed)
            if entry.force_target is not None:
                controller.set_force_target(name, entry.force_target, weight=entry.force_weight)
            else:
                force = tasks[f"force_{name}"]
                if force.active:
                    force.active = False
        for name, entry in self.tasks.items():
            task = tasks[name]
            if task.active != entry.active:
                task.active = entry.active
            point = entry.point
            if point is not None and not (_same(task.position, point.position) and _same(task.velocity, point.velocity)):
                task.set_reference(point.position, point.velocity)
            if entry.target is not None and not _same(task.target, entry.target):
                task.set_target(entry.target)
