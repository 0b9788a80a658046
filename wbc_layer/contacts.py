"""Contacts: what a contact force may be (constraint rows) and how the contact moves.

A contact owns its force variables in the QP (see [`wbc_layer.layout`][wbc_layer.layout]) and contributes

- a motion constraint ``J qdd = -Jdot v`` (its point/frame does not accelerate), and
- inequality rows ``G f <= h`` on its own force: unilateral normal force (with min/max),
  a linearised friction pyramid with ``n`` facets inscribed in the Coulomb cone, and for a
  flat foot the centre-of-pressure bounds inside the sole rectangle (both as in the thesis
  chapter *Modeling of a humanoid robot*: friction approximation, moment constraint).

A contact is *supporting* (its force is free, used to balance) or *controlled* (its force
tracks a target through a [`wbc_layer.tasks.ContactForceTask`][wbc_layer.tasks.ContactForceTask]; *Partial Force Control of
Constrained Floating-Base Robots*). An inactive
contact's force is held at zero and it may move (a lifted foot).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from wbc_layer import checks
from wbc_layer.errors import ConfigError
from wbc_layer.layout import QPLayout
from wbc_layer.observed import Observed
from wbc_layer.robot_model import RobotModel

CONTACT_MODES = ("supporting", "controlled")


# -- the checks of the contacts' attributes (wbc_layer.observed.Observed runs them on every write) --
def _label(contact) -> str:
    return f"contact {contact.__dict__.get('name', '?')!r}"


def _check_name(contact, value):
    return checks.name(value, "the name of a contact")


def _check_frame(contact, value):
    return checks.frame_name(contact, value, f"{_label(contact)}: frame")


def _check_friction(contact, value):
    return checks.nonnegative(value, f"{_label(contact)}: friction_coefficient")


def _check_min_normal_force(contact, value):
    return _check_force_bounds(contact, "min_normal_force", value)


def _check_max_normal_force(contact, value):
    return _check_force_bounds(contact, "max_normal_force", value)


def _check_force_bounds(contact, attribute: str, value) -> float:
    """``0 <= min_normal_force <= max_normal_force``, both finite [N] (the other bound as stored)."""
    value = checks.real_number(value, f"{_label(contact)}: {attribute}")
    bounds = {name: contact.__dict__.get(name) for name in ("min_normal_force", "max_normal_force")}
    bounds[attribute] = value
    low, high = bounds["min_normal_force"], bounds["max_normal_force"]
    if not (math.isfinite(value) and value >= 0 and (low is None or high is None or low <= high)):
        got = f"{low}, {high}" if low is not None and high is not None else f"{attribute}={value}"
        raise ConfigError(f"{_label(contact)}: need 0 <= min_normal_force <= max_normal_force (finite), got {got}")
    return value


def _check_active(contact, value):
    return checks.boolean(value, f"{_label(contact)}: active")


def _check_mode(contact, value):
    if not isinstance(value, str) or value not in CONTACT_MODES:
        raise ConfigError(f"{_label(contact)}: mode must be one of {CONTACT_MODES}, got {value!r}")
    return value


def _check_on_body(contact, value):
    return None if value is None else checks.name(value, f"{_label(contact)}: on_body (an environment body's name or None)")


def _half_size_check(attribute: str):
    def check(contact, value):
        number = checks.real_number(value, f"{_label(contact)}: foot {attribute}")
        if not (math.isfinite(number) and number > 0):
            raise ConfigError(f"{_label(contact)}: foot half_length and half_width must be > 0 and finite, got {attribute}={value!r}")
        return number

    return check


def _check_normal(contact, value):
    what = f"{_label(contact)}: normal must be a finite non-zero 3-vector"
    try:
        normal = checks.finite_vector(value, 3, "normal")
    except ConfigError:
        raise ConfigError(f"{what}, got {value!r}") from None
    if not np.linalg.norm(normal) >= 1e-9 or np.ndim(value) != 1:
        raise ConfigError(f"{what}, got {value!r}")
    return tuple(float(x) for x in normal)


def _check_dim(contact, value):
    raise ConfigError(f"dim of {_label(contact)} is fixed by its class ({type(contact).__name__}: {type(contact).dim})")


@dataclass
class Contact(Observed):
    """Parameters shared by all contacts.

    Attributes:
        name: unique name, used to switch the contact and to report its force.
        frame: robot frame (MJCF site) at the contact point / sole centre.
        friction_coefficient: Coulomb coefficient the controller assumes (choose it below the
            real one) [-].
        min_normal_force, max_normal_force: bounds on the normal force while active [N].
        active: whether the contact exists now.
        mode: ``"supporting"`` or ``"controlled"``.
        on_body: name of the environment body the contact stands on (None: fixed ground).
    """

    name: str
    frame: str
    friction_coefficient: float = 0.7
    min_normal_force: float = 0.0
    max_normal_force: float = 2000.0
    active: bool = True
    mode: str = "supporting"
    on_body: str | None = None

    dim = 0  # force dimension, set by subclasses

    _unobserved = ("rows_version",)  # bumped by force_constraints(), not a parameter
    # Every public assignment is checked before it is stored (Observed): numbers finite and in
    # range, booleans booleans, the frame one of the robot's once a controller holds the contact;
    # name, mode and on_body are fixed once it is made (the controller is built around them).
    _checks = {
        "name": checks.set_once("name", _check_name), "frame": _check_frame,
        "friction_coefficient": _check_friction, "min_normal_force": _check_min_normal_force,
        "max_normal_force": _check_max_normal_force, "active": _check_active,
        "mode": checks.set_once("mode", _check_mode), "on_body": checks.set_once("on_body", _check_on_body),
        "dim": _check_dim,
    }  # fmt: skip

    def __post_init__(self) -> None:
        """Nothing left to check: each field was checked as it was assigned."""

    # -- to be provided by subclasses -------------------------------------------------------
    def jacobian(self, robot: RobotModel) -> np.ndarray:
        """(dim, nv) Jacobian mapping ``v`` to the contact's velocity in force coordinates."""
        raise NotImplementedError

    def drift(self, robot: RobotModel) -> np.ndarray:
        """(dim,) ``Jdot v`` in force coordinates."""
        raise NotImplementedError

    def force_constraints(self, n_facets: int) -> tuple[np.ndarray, np.ndarray]:
        """``(G (m, dim), h (m,))`` with ``G f <= h`` for an active contact.

        The rows depend only on the contact's parameters; they are cached (read-only arrays)
        and rebuilt when a parameter changes, which increments ``rows_version``.
        """
        key = (n_facets, *(getattr(self, name) for name in self._row_parameters))
        if getattr(self, "_rows_key", None) != key:
            G, h = self._build_force_constraints(n_facets)
            G.flags.writeable = h.flags.writeable = False
            self._rows, self._rows_key = (G, h), key
            self.rows_version = getattr(self, "rows_version", 0) + 1
        return self._rows

    _row_parameters = ("friction_coefficient", "min_normal_force", "max_normal_force")

    def _build_force_constraints(self, n_facets: int) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def normal_row(self) -> np.ndarray:
        """(dim,) the row that maps this contact's force vector to its normal component."""
        raise NotImplementedError

    def normal_force(self, force: np.ndarray) -> float:
        """Normal component of this contact's force vector [N]."""
        return float(self.normal_row() @ force)

    def world_force(self, robot: RobotModel, force: np.ndarray) -> np.ndarray:
        """(3,) force on the robot in world axes [N]."""
        raise NotImplementedError

    # -- shared -----------------------------------------------------------------------------
    def _friction_rows(self, n_facets: int) -> np.ndarray:
        """(n_facets, 3) rows ``[cos a, sin a, -mu cos(pi/n)]`` on ``(f_t1, f_t2, f_n)``.

        The pyramid is inscribed in the cone ``|f_t| <= mu f_n``: its edges lie on the cone and
        its facets are at distance ``mu cos(pi/n) f_n`` from the axis, so every force it allows
        is inside the real cone.
        """
        if n_facets < 3:
            raise ConfigError(f"friction pyramid needs at least 3 facets, got {n_facets}")
        angles = 2.0 * np.pi * np.arange(n_facets) / n_facets
        inner = self.friction_coefficient * math.cos(math.pi / n_facets)
        return np.column_stack([np.cos(angles), np.sin(angles), np.full(n_facets, -inner)])

    def _normal_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows on ``f_n``: ``-f_n <= -min`` and ``f_n <= max``."""
        return np.array([-1.0, 1.0]), np.array([-self.min_normal_force, self.max_normal_force])


@dataclass
class FootContact(Contact):
    """Flat rectangular contact with a 6D wrench ``f = [f_x, f_y, f_z, m_x, m_y, m_z]``.

    The wrench acts at ``frame``'s origin, the sole centre, and is expressed in the frame's
    axes (``z`` the sole normal pointing into the robot) [N, N m]. The centre of pressure
    ``(-m_y / f_z, m_x / f_z)`` stays inside ``[-half_length, half_length] x
    [-half_width, half_width]`` [m]. The yaw moment is bounded by ``|m_z| <= mu_t f_z`` with
    the conservative torsional coefficient ``mu_t = mu min(half_length, half_width) / 2`` [m]:
    without a bound, opposite yaw moments of two feet cancel in the dynamics and cost nothing,
    and the solver may ask for ones the ground cannot give.
    """

    half_length: float = 0.1
    half_width: float = 0.05

    dim = 6

    _checks = {**Contact._checks, "half_length": _half_size_check("half_length"), "half_width": _half_size_check("half_width")}

    def jacobian(self, robot: RobotModel) -> np.ndarray:
        return robot.frame_jacobian(self.frame, local=True)

    def drift(self, robot: RobotModel) -> np.ndarray:
        return robot.frame_drift(self.frame, local=True)

    _row_parameters = Contact._row_parameters + ("half_length", "half_width")

    def _build_force_constraints(self, n_facets: int) -> tuple[np.ndarray, np.ndarray]:
        friction = self._friction_rows(n_facets)
        normal_g, normal_h = self._normal_rows()
        a, b = self.half_length, self.half_width
        G = np.zeros((n_facets + 2 + 6, 6))
        G[:n_facets, :3] = friction
        G[n_facets : n_facets + 2, 2] = normal_g
        cop = G[n_facets + 2 :]
        cop[0, [2, 4]] = [-a, -1.0]  # -m_y <= a f_z  (CoP x <= a)
        cop[1, [2, 4]] = [-a, 1.0]  # m_y <= a f_z   (CoP x >= -a)
        cop[2, [2, 3]] = [-b, 1.0]  # m_x <= b f_z   (CoP y <= b)
        cop[3, [2, 3]] = [-b, -1.0]  # -m_x <= b f_z (CoP y >= -b)
        torsion = 0.5 * self.friction_coefficient * min(a, b)
        cop[4, [2, 5]] = [-torsion, 1.0]  # m_z <= mu_t f_z
        cop[5, [2, 5]] = [-torsion, -1.0]  # -m_z <= mu_t f_z
        h = np.concatenate([np.zeros(n_facets), normal_h, np.zeros(6)])
        return G, h

    def normal_row(self) -> np.ndarray:
        return _FOOT_NORMAL_ROW

    def world_force(self, robot: RobotModel, force: np.ndarray) -> np.ndarray:
        return robot.frame_placement(self.frame).rotation @ force[:3]


@dataclass
class PointContact(Contact):
    """Point contact with a 3D force in world axes ``f = [f_x, f_y, f_z]`` [N].

    ``normal`` (3,) is the environment surface's normal in world axes, pointing into the robot
    (a wall on the robot's right, pushed by the right hand: ``(0, 1, 0)``).
    """

    normal: tuple[float, float, float] = (0.0, 0.0, 1.0)

    dim = 3

    _checks = {**Contact._checks, "normal": _check_normal}

    @property
    def _basis(self) -> np.ndarray:
        """(3, 3) columns ``(t1, t2, n)`` for the current ``normal`` (cached per normal)."""
        normal = tuple(self.normal)
        if getattr(self, "_basis_key", None) != normal:
            n = np.asarray(normal, dtype=float)
            self._basis_cache, self._basis_key = _tangent_basis(n / np.linalg.norm(n)), normal
        return self._basis_cache

    def jacobian(self, robot: RobotModel) -> np.ndarray:
        return robot.frame_jacobian(self.frame, local=False)[:3]

    def drift(self, robot: RobotModel) -> np.ndarray:
        return robot.frame_drift(self.frame, local=False)[:3]

    _row_parameters = Contact._row_parameters + ("normal",)

    def _build_force_constraints(self, n_facets: int) -> tuple[np.ndarray, np.ndarray]:
        # Rows are written on (t1, t2, n) components; basis.T maps world force to them.
        local_rows = np.vstack([self._friction_rows(n_facets), np.zeros((2, 3))])
        normal_g, normal_h = self._normal_rows()
        local_rows[n_facets:, 2] = normal_g
        h = np.concatenate([np.zeros(n_facets), normal_h])
        return local_rows @ self._basis.T, h

    def normal_row(self) -> np.ndarray:
        return self._basis[:, 2].copy()

    def world_force(self, robot: RobotModel, force: np.ndarray) -> np.ndarray:
        return np.asarray(force, dtype=float).copy()


#: A foot's normal row: ``f_z`` of its 6D wrench (read-only; a constant of every foot).
_FOOT_NORMAL_ROW = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
_FOOT_NORMAL_ROW.flags.writeable = False


def _tangent_basis(normal: np.ndarray) -> np.ndarray:
    """(3, 3) orthonormal basis with columns ``(t1, t2, n)``."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = np.cross(helper, normal)
    t1 /= np.linalg.norm(t1)
    return np.column_stack([t1, np.cross(normal, t1), normal])


def contact_jacobians(robot: RobotModel, contacts, layout: QPLayout) -> np.ndarray:
    """(nf, nv) the active contacts' Jacobians stacked in force coordinates (``layout``'s order),
    zero rows for inactive ones."""
    J = np.zeros((layout.nf, layout.nv))
    for contact in contacts:
        if contact.active:
            J[layout.force_in_block(contact.name)] = contact.jacobian(robot)
    return J
