"""Joint position and velocity limits as bounds on the actuated joints' accelerations.

For an actuated joint at ``(q, v)`` [rad, rad/s] with range ``[q_lo, q_hi]``, velocity limit
``v_max`` and horizon ``T`` [s], the QP's rows ask

    a_lo <= qdd <= a_hi,
    a_hi = min((q_hi - q - 2 v T) / T^2, (v_max - v) / T),
    a_lo = max((q_lo - q - 2 v T) / T^2, (-v_max - v) / T),

re-evaluated every tick. A joint pushed against a range end therefore moves at most like a
critically damped PD towards it (natural frequency ``1/T``: it approaches the end without
overshooting, in continuous time), and a velocity beyond its limit is brought back within ``T``.
(The bound ``q + v T + a T^2 / 2 <= q_hi``, a constant acceleration staying inside for ``T``, is
the same PD with damping ratio 0.71: it overshot a closed-loop elbow's range end by 3 mrad.) Should the two bounds cross (a joint past its velocity limit
near a range end), both become their midpoint. A bound with no limit behind it (an infinite range
or velocity limit) is written as +-[`ACCELERATION_CAP`][wbc_layer.joint_limits.ACCELERATION_CAP] so that the QP stays finite.

The rows are hard in the rigid-contact QP; the relaxed QP (no solution with rigid contacts) drops
them, so that they can never make the controller give up (see ``docs/qp.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from wbc_layer.errors import ConfigError

#: [rad/s^2] stands in for "no bound" (far above any acceleration the controller asks for).
ACCELERATION_CAP = 1e6


@dataclass(frozen=True)
class JointLimits:
    """Ranges ``lower``/``upper`` (na,) [rad], ``velocity`` (na,) [rad/s] (inf: none) and the
    horizon ``horizon_s`` [s] > 0 of the actuated joints, in the model's joint order."""

    lower: np.ndarray
    upper: np.ndarray
    velocity: np.ndarray
    horizon_s: float

    @classmethod
    def from_model(cls, model: pin.Model, horizon_s: float) -> JointLimits:
        """The limits pinocchio read from the robot description (an MJCF joint's ``range``; MJCF
        has no velocity limits, so those are infinite there). Needs one configuration and one
        velocity entry per actuated joint (revolute or prismatic joints after the free flyer)."""
        if model.nq - 7 != model.nv - 6:
            raise ConfigError(
                "joint limits need one q and one v entry per actuated joint (revolute or prismatic joints); "
                f"this model has nq - 7 = {model.nq - 7} and nv - 6 = {model.nv - 6}: set joint_limit_horizon_s=0"
            )
        if not horizon_s > 0:
            raise ConfigError(f"joint_limit_horizon_s must be > 0 to build joint limits, got {horizon_s}")
        lower = np.asarray(model.lowerPositionLimit, dtype=float)[7:].copy()
        upper = np.asarray(model.upperPositionLimit, dtype=float)[7:].copy()
        velocity = np.abs(np.asarray(model.velocityLimit, dtype=float)[6:]).copy()
        return cls(lower, upper, velocity, float(horizon_s))

    def acceleration_bounds(self, q_actuated: np.ndarray, v_actuated: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(a_lo, a_hi)`` (na,) [rad/s^2] at the actuated joints' ``(q, v)`` (na,) each."""
        T = self.horizon_s
        with np.errstate(invalid="ignore"):  # inf - inf where a limit is missing on both sides
            hi = np.minimum((self.upper - q_actuated - 2.0 * T * v_actuated) / (T * T), (self.velocity - v_actuated) / T)
            lo = np.maximum((self.lower - q_actuated - 2.0 * T * v_actuated) / (T * T), (-self.velocity - v_actuated) / T)
            crossed = lo > hi
            if crossed.any():
                middle = 0.5 * (lo + hi)
                lo, hi = np.where(crossed, middle, lo), np.where(crossed, middle, hi)
        hi = np.clip(np.nan_to_num(hi, nan=ACCELERATION_CAP), -ACCELERATION_CAP, ACCELERATION_CAP)
        lo = np.clip(np.nan_to_num(lo, nan=-ACCELERATION_CAP), -ACCELERATION_CAP, ACCELERATION_CAP)
        return lo, hi
