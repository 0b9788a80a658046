"""The board-tilt law that balances a robot standing on a seesaw (a pure function of the state).

The ground supports robot and board at the rolling contact line only, at ``y_P = y_0 - R theta``
(``y_0``: world y of the board's centre of curvature at tilt 0, ``R`` its radius). About that
line the robot's CoM moves as a linear inverted pendulum, ``y_dd = omega^2 (y - y_P)`` with
``omega = sqrt(g / h)``, ``h`` the CoM height above the ground. [`BoardTiltLaw`][wbc_layer.seesaw_law.BoardTiltLaw] places the
line where a capture-point controller wants the "CoP",

    y_P* = y_ref - y_ref_dd / omega^2 + k (xi - xi_ref),   xi = y + y_d / omega

(``xi_ref = y_ref + y_ref_d / omega``; ``k`` > 1 makes the capture point converge), and returns
the tilt that puts the line there, ``theta* = (y_0 - y_P*) / R``, clipped. The controller then
reaches that tilt through the contact forces with the board's rest task
(``BodyRestTask.set_target``). ``k = 0`` keeps the board level.

Why a law on the board at all: with the board light, a CoM task alone, solved one tick at a time,
holds the CoM by spinning the board (a reaction wheel), which rolls the line away from the CoM,
and the robot falls (measured: after about 2 s of standing). Moving the line under the CoM is what
balances, as in *Modeling and Control of Humanoid Robots in Dynamic Environments: iCub Balancing
on a Seesaw*, whose momentum-based controller regulates robot and board together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from wbc_layer.environment_body import GRAVITY, SeesawBody
from wbc_layer.errors import ConfigError


def lateral_capture_point(position: float, velocity: float, omega: float) -> float:
    """The instantaneous capture point ``position + velocity / omega`` [m] along one axis
    (``position`` [m], ``velocity`` [m/s], ``omega`` [1/s])."""
    return position + velocity / omega


@dataclass(frozen=True)
class BoardTiltLaw:
    """Board-tilt target [rad] of a robot balancing on a [`SeesawBody`][wbc_layer.environment_body.SeesawBody] (module docstring).

    Attributes:
        gain: ``k`` [-], the capture-point feedback gain; 0 keeps the board level.
        com_height_m: ``h``, the CoM height above the ground the pendulum is linearised at [m].
        limit_rad: bound on ``|theta*|`` [rad] (keep it inside the board's tilt range).
        gravity: [m/s^2].
    """

    gain: float
    com_height_m: float
    limit_rad: float
    gravity: float = GRAVITY

    def __post_init__(self) -> None:
        for name in ("gain", "com_height_m", "limit_rad", "gravity"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0 or (value == 0 and name != "gain"):
                allowed = ">= 0" if name == "gain" else "> 0"
                raise ConfigError(f"BoardTiltLaw.{name} must be finite and {allowed}, got {value}")

    @property
    def omega(self) -> float:
        """``sqrt(g / h)`` [1/s]."""
        return math.sqrt(self.gravity / self.com_height_m)

    def target(
        self, board: SeesawBody, com_y: float, com_velocity_y: float, reference_y: float,
        reference_velocity_y: float = 0.0, reference_acceleration_y: float = 0.0,
    ) -> float:
        """``theta*`` [rad] for the robot's lateral CoM ``com_y`` [m] and velocity [m/s] and its
        reference (position [m], velocity [m/s], acceleration [m/s^2]), all in world y."""
        if self.gain == 0.0:
            return 0.0
        omega = self.omega
        xi = lateral_capture_point(com_y, com_velocity_y, omega)
        xi_ref = lateral_capture_point(reference_y, reference_velocity_y, omega)
        line = reference_y - reference_acceleration_y / omega**2 + self.gain * (xi - xi_ref)
        theta = -(line - board.origin[1]) / board.radius
        return min(max(theta, -self.limit_rad), self.limit_rad)
