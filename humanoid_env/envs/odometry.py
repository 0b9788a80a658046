"""Leg odometry: the feet in contact correct the estimated base linear velocity.

An error ``e`` (3,) [m/s] in the estimated base linear velocity adds ``e`` to the estimated
velocity of every point of the robot, the feet included. A foot standing on its support does not
move relative to it, so the estimated velocity of a supporting foot relative to the point of the
support under it measures ``e``, plus the joint-velocity noise carried up the leg (with the
``"moderate"`` estimate's 0.17 rad/s: 0.07-0.08 m/s per sample horizontally, 0.009 m/s
vertically, standing in the balance env) and the contact's own slip. A
first-order low-pass of the supporting feet's mean relative velocity (time constant ``T``)
keeps the slowly drifting part of ``e`` (the estimate's bias, correlation time 5 s) and averages
the noise out (by about ``sqrt(dt / 2T)``: 0.03 at T = 1 s and dt = 2 ms); it is subtracted from
the estimate's base linear velocity. This is the kinematic half of what legged robots' state
estimators fuse with the IMU (*State Estimation for Legged Robots: Consistent Fusion of Leg
Kinematics and IMU*, Bloesch et al., RSS 2012), reduced to a complementary filter on the
velocity.

Caveat: the simulated kinematics are exact here (the plant randomisation leaves link lengths
alone), so the feet see the velocity error as well as a real robot's feet could at best; slip,
flexible soles and calibration errors would leave more of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import mujoco
import numpy as np

#: Longest accepted time constant [s].
MAX_TIME_CONSTANT_S = 60.0


def leg_odometry_time_constant(value) -> float | None:
    """The ``leg_odometry_s`` keyword: None (off) or a time constant [s] in (0, 60]."""
    allowed = f"None or a time constant in (0, {MAX_TIME_CONSTANT_S:g}] s"
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"leg_odometry_s must be {allowed}, got {value!r}")
    if not (math.isfinite(value) and 0.0 < value <= MAX_TIME_CONSTANT_S):
        raise ValueError(f"leg_odometry_s must be {allowed}, got {value!r}")
    return float(value)


class LegOdometry:
    """The low-passed base-velocity error seen by the supporting feet (module docstring): an
    estimator stage of the state pipeline ([`humanoid_env.envs.state`][humanoid_env.envs.state]), turned on by
    the ``leg_odometry_s`` keyword; it needs ``"supporting_feet"`` (the controller's).

    Args:
        model: the MuJoCo scene.
        root_dof: the robot's free joint's address in ``qvel``.
        time_constant_s: ``T`` [s].
        supporting_feet: returns, at each call, the feet standing now as ``(site id, id of the
            body they stand on)`` pairs (body 0: the fixed world).

    [`correct`][humanoid_env.envs.odometry.LegOdometry.correct] runs once per physics step on the estimate; `correction` (3,) is the
    velocity [m/s] it subtracted last, world axes (held while no foot supports).
    """

    #: what the stage needs from the env (checked when the state pipeline is assembled).
    needs = ("supporting_feet",)

    def __init__(
        self, model: mujoco.MjModel, root_dof: int, time_constant_s: float,
        supporting_feet: Callable[[], Sequence[tuple[int, int]]],
    ):  # fmt: skip
        self.model, self.root_dof = model, int(root_dof)
        self.gain = 1.0 - math.exp(-float(model.opt.timestep) / time_constant_s)  # exact first order
        self.supporting_feet = supporting_feet
        self.correction = np.zeros(3)
        self._site_jac = np.zeros((3, model.nv))
        self._body_jac = np.zeros((3, model.nv))

    def reset(self) -> None:
        """Forget the correction (a new episode: a new bias)."""
        self.correction = np.zeros(3)

    def diagnostics(self) -> dict[str, np.ndarray]:
        """``{"leg_odometry_correction_mps": (3,)}``: the correction [m/s], world axes."""
        return {"leg_odometry_correction_mps": self.correction.copy()}

    def correct(self, data: mujoco.MjData, qvel: np.ndarray) -> None:
        """Update the correction from the estimate and subtract it from ``qvel``'s base linear velocity.

        ``data``: the estimate's positions, with ``mj_kinematics`` and ``mj_comPos`` done;
        ``qvel`` (nv,): the estimate's velocity, uncorrected; changed in place.
        """
        feet = self.supporting_feet()
        if feet:
            measured = np.zeros(3)
            for site, body in feet:
                mujoco.mj_jacSite(self.model, data, self._site_jac, None, site)
                velocity = self._site_jac @ qvel
                if body != 0:  # minus the velocity of the support's point under the foot
                    mujoco.mj_jac(self.model, data, self._body_jac, None, data.site_xpos[site], body)
                    velocity -= self._body_jac @ qvel
                measured += velocity
            measured /= len(feet)  # of the uncorrected estimate: e plus noise
            self.correction = self.correction + self.gain * (measured - self.correction)
        qvel[self.root_dof : self.root_dof + 3] -= self.correction
