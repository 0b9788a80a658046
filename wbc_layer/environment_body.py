"""Environment bodies: things the robot stands on that move, with dynamics of their own.

A body has ``dof`` generalized coordinates ``s`` and the dynamics

    M_s(s) sdd + h_s(s, sd) = -sum_i J_{s,i}^T f_i

where ``f_i`` is the wrench that the robot's contact ``i`` receives from the body, expressed
in the contact frame's axes (the body receives ``-f_i``), and ``J_{s,i}`` (6, dof) maps ``sd``
to the body's twist at that contact frame, in the frame's axes. A contact standing on the body
does not slide on it: its frame's acceleration equals that of the body's material point under
it (*Modeling and Control of Humanoid Robots in Dynamic Environments: iCub Balancing on a
Seesaw*, eqs. 25-28). The core's constraint pieces (``ContactConstraint``, ``BodyDynamics``: ``docs/qp.md``) add ``sdd`` to the QP's variables and
both equations to its equalities, so the controller knows that pushing on the board tilts it.

[`SeesawBody`][wbc_layer.environment_body.SeesawBody] is the first instance: a board with a cylindrical underside of radius
``R`` rolling without slipping on flat ground, tilting by ``theta`` about the world x axis.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from wbc_layer.errors import ConfigError, InvalidStateError
from wbc_layer.lazy import LazyTerm

GRAVITY = 9.81  # [m/s^2]
_X = np.array([1.0, 0.0, 0.0])


class EnvironmentBody:
    """Interface of a dynamic body the robot can stand on (see the module docstring).

    After `update`: ``s``, ``s_dot`` (dof,) the state, ``mass_matrix`` (dof, dof),
    ``bias`` (dof,) [SI]; the frame methods
    take a contact frame's world placement (the frame is rigidly attached to the body there).
    """

    name: str
    dof: int

    def update(self, s: np.ndarray, s_dot: np.ndarray) -> None:
        raise NotImplementedError

    def frame_jacobian(self, placement: pin.SE3) -> np.ndarray:
        """(6, dof): ``sd`` -> the body's twist [linear; angular] at the frame, frame axes."""
        raise NotImplementedError

    def frame_drift(self, placement: pin.SE3) -> np.ndarray:
        """(6,): the body's spatial acceleration at the frame (frame axes) when ``sdd = 0``.

        Same convention as the robot's LOCAL frame drift (pinocchio's spatial acceleration):
        ``[R^T p_ddot - omega_local x v_local; R^T omega_dot]``.
        """
        raise NotImplementedError


class SeesawBody(EnvironmentBody):
    """A seesaw board rolling on flat ground about the world x axis (1 degree of freedom).

    Board frame: origin at the centre of curvature of its cylindrical underside, axes aligned
    with the world at ``theta = 0``. At tilt ``theta`` [rad] it is rotated by ``R_x(theta)``
    and, rolling without slipping, its origin is at ``origin + (0, -radius * theta, 0)``.

    Args:
        name: the body's name (contacts refer to it with ``on_body``).
        mass: the board's mass [kg].
        com: (3,) centre of mass in the board frame [m].
        inertia: (3, 3) rotational inertia about the CoM, board axes [kg m^2].
        radius: curvature radius of the underside [m].
        origin: (3,) world position of the centre of curvature at ``theta = 0`` [m].
        damping: viscous damping of the tilt [N m s/rad].
        gravity: [m/s^2], along -z.
    """

    dof = 1

    def __init__(self, name: str, mass: float, com: np.ndarray, inertia: np.ndarray, radius: float, origin: np.ndarray,
                 damping: float = 0.0, gravity: float = GRAVITY):
        self.name = name
        self.mass = float(mass)
        self.com = np.asarray(com, dtype=float).reshape(3)
        self.inertia = np.asarray(inertia, dtype=float).reshape(3, 3)
        self.radius = float(radius)
        self.origin = np.asarray(origin, dtype=float).reshape(3)
        self.damping = float(damping)
        self.gravity = float(gravity)
        if not (self.mass > 0 and self.radius > 0 and self.damping >= 0):
            raise ConfigError(f"seesaw {name!r}: need mass > 0, radius > 0, damping >= 0")
        for label, value in (("com", self.com), ("inertia", self.inertia), ("origin", self.origin)):
            if not np.all(np.isfinite(value)):
                raise ConfigError(f"seesaw {name!r}: {label} must be finite")
        self.update(np.zeros(1), np.zeros(1))

    def update(self, s: np.ndarray, s_dot: np.ndarray) -> None:
        """Set the tilt ``s = [theta]`` [rad] and rate ``s_dot`` [rad/s]. The terms that follow
        (``rotation``, ``centre``, ``mass_matrix`` M_s, ``bias`` h_s) are computed when first read
        after it: the compiled controller reads only ``s`` and ``s_dot`` (it computes them itself),
        and the envs update the board at every physics step.

        Raises [`InvalidStateError`][wbc_layer.errors.InvalidStateError] unless each holds one finite real number."""
        theta, theta_dot = self._coordinate(s, "s"), self._coordinate(s_dot, "s_dot")
        self.theta, self.theta_dot = theta, theta_dot
        self.s, self.s_dot = np.array([theta]), np.array([theta_dot])
        self._pending = True

    def _coordinate(self, value, what: str) -> float:
        """The one finite entry of ``value`` (a number or a (1,) array), else InvalidStateError."""
        if not isinstance(value, (str, bytes)):
            try:
                array = np.asarray(value, dtype=float).reshape(-1)
            except (TypeError, ValueError):
                array = None
            if array is not None and array.shape == (1,) and math.isfinite(array[0]):
                return float(array[0])
        raise InvalidStateError(f"seesaw {self.name!r}: {what} must be one finite number (the tilt's), got {value!r}")

    rotation = LazyTerm()  # (3, 3) the board's orientation, world axes
    d_rotation = LazyTerm()  # (3, 3) d rotation / d theta
    centre = LazyTerm()  # (3,) world position of the centre of curvature [m]
    mass_matrix = LazyTerm()  # (1, 1) M_s [kg m^2]
    bias = LazyTerm()  # (1,) h_s [N m]: velocity-product and gravity terms and the damping

    def _sync(self) -> None:
        """Compute the terms of the current ``(theta, theta_dot)``, once per [`update`][wbc_layer.environment_body.SeesawBody.update]."""
        if not self._pending:
            return
        self._pending = False
        theta, theta_dot = self.theta, self.theta_dot
        c, s_ = math.cos(theta), math.sin(theta)
        self._rotation = np.array([[1.0, 0.0, 0.0], [0.0, c, -s_], [0.0, s_, c]])
        self._d_rotation = np.array([[0.0, 0.0, 0.0], [0.0, -s_, -c], [0.0, c, -s_]])
        self._centre = self.origin + np.array([0.0, -self.radius * theta, 0.0])
        com_jacobian = self._point_jacobian(self.com)  # (3,) d p_com / d theta
        com_curvature = -self._second_derivative(self.com)  # d^2 p_com / d theta^2 = -R_yz p
        self._mass_matrix = np.array([[self.mass * com_jacobian @ com_jacobian + self.inertia[0, 0]]])
        self._bias = np.array([
            self.mass * (com_jacobian @ com_curvature) * theta_dot**2
            + self.mass * self.gravity * com_jacobian[2]
            + self.damping * theta_dot
        ])  # fmt: skip

    def _point_jacobian(self, point_body: np.ndarray) -> np.ndarray:
        """(3,) d(world position)/d theta of a material point given in board coordinates."""
        return np.array([0.0, -self.radius, 0.0]) + self.d_rotation @ point_body

    def _second_derivative(self, point_body: np.ndarray) -> np.ndarray:
        """(3,) minus the second derivative: d^2 R_x / d theta^2 = -R_x on the y-z block."""
        p = self.rotation @ point_body
        return np.array([0.0, p[1], p[2]])

    def _to_body(self, placement: pin.SE3) -> np.ndarray:
        return self.rotation.T @ (placement.translation - self.centre)

    def frame_jacobian(self, placement: pin.SE3) -> np.ndarray:
        R = placement.rotation
        linear = self._point_jacobian(self._to_body(placement))
        return np.concatenate([R.T @ linear, R.T @ _X]).reshape(6, 1)

    def frame_drift(self, placement: pin.SE3) -> np.ndarray:
        R = placement.rotation
        point = self._to_body(placement)
        twist = self.frame_jacobian(placement)[:, 0] * self.theta_dot
        acceleration = -self._second_derivative(point) * self.theta_dot**2  # world, at sdd = 0
        return np.concatenate([R.T @ acceleration - np.cross(twist[3:], twist[:3]), np.zeros(3)])

    def point_velocity(self, point_world: np.ndarray) -> np.ndarray:
        """(3,) world velocity of the board's material point at ``point_world`` [m/s]."""
        return self._point_jacobian(self.rotation.T @ (np.asarray(point_world) - self.centre)) * self.theta_dot
