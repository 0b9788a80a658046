"""Pinocchio model of a floating-base robot and the terms the controller reads each tick.

Conventions (pinocchio's free flyer): ``q = [p (3), quat xyzw (4), joints]`` [m, -, rad],
``v = [v_local (3), omega_local (3), joint rates]`` [m/s, rad/s]: the base twist is expressed
in the base frame. ``nv = 6 + na``.

Dynamics: ``M(q) qdd + h(q, v) = S^T tau + sum_i J_i^T f_i`` where ``h`` holds Coriolis,
centrifugal and gravity terms **and the joints' viscous damping** ``D v`` (the simulator
applies it as a passive force, so the controller must pay for it). Armature is included in
``M`` (pinocchio adds ``model.armature`` to the diagonal).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pinocchio as pin

from wbc_layer.errors import InvalidStateError, RobotModelError, unknown_name_error
from wbc_layer.lazy import LazyTerm
from wbc_layer.mjcf_actuators import read_motor_torque_limits

LOCAL = pin.ReferenceFrame.LOCAL
LOCAL_WORLD_ALIGNED = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED

#: |norm(q[3:7]) - 1| allowed of the base quaternion (xyzw) in a state given to the controller.
#: Within it the quaternion is used as given (a simulator's are normalised to ~1e-15, float32
#: storage leaves ~1e-7; the rotation it describes is then off by at most ~2e-6 relative), so a
#: valid state's arithmetic is untouched. Beyond it the state is rejected (InvalidStateError):
#: pinocchio would use a scaled rotation (a quaternion of norm 2 moved the torques by up to
#: 71.5 N m), and normalising silently would hide the caller's bug. The compiled core uses the
#: same value (core/controller.hpp, kQuaternionNormTolerance).
QUATERNION_NORM_TOLERANCE = 1e-6
_F64 = np.dtype(np.float64)
_MAX_LISTED = 6  # non-finite entries named in a message


class RobotModel:
    """Floating-base model; [`update`][wbc_layer.robot_model.RobotModel.update] computes every term once per control tick.

    Tasks and contacts only read from it. After ``update(q, v)``:

    - ``M`` (nv, nv) mass matrix, symmetric, armature included [kg, kg m^2]
    - ``h`` (nv,) bias forces incl. gravity and joint damping [N, N m]
    - ``g`` (nv,) generalized gravity [N, N m]
    - ``com`` (3,), ``com_velocity`` (3,), ``com_jacobian`` (3, nv), ``com_drift`` (3,)
      (``Jcom_dot v``, the CoM acceleration at ``qdd = 0``) [m, m/s, -, m/s^2]
    - ``angular_momentum`` (3,) the centroidal angular momentum (about the CoM, world axes)
      [kg m^2/s]; ``base_position`` (3,) [m] and ``base_rotation`` (3, 3) of the floating base
    - frame placements, Jacobians and drifts through the ``frame_*`` methods.

    [`defer_update`][wbc_layer.robot_model.RobotModel.defer_update] (what the compiled controller tick calls: it computes these terms in
    C++) only records ``(q, v)``; the terms are then computed on their first read, so reading
    the model after any tick gives that tick's state.
    """

    def __init__(self, model: pin.Model, torque_limits: dict[str, tuple[float, float]]):
        if model.nq < 7 or model.joints[1].shortname() != "JointModelFreeFlyer":
            raise RobotModelError("the robot model must start with a free-flyer base joint")
        self.model = model
        self.data = model.createData()
        self.joint_names: tuple[str, ...] = tuple(model.names[2:])
        self.na = model.nv - 6
        missing = [name for name in self.joint_names if name not in torque_limits]
        if missing:
            raise RobotModelError(f"no torque limit (actuator) for joints: {', '.join(missing)}")
        limits = np.array([torque_limits[name] for name in self.joint_names], dtype=float)
        self.torque_min = limits[:, 0].copy()
        self.torque_max = limits[:, 1].copy()
        self.damping = np.asarray(model.damping, dtype=float).copy()
        self.mass = float(pin.computeTotalMass(model))
        self._frame_cache: dict[tuple, np.ndarray] = {}
        self._frame_ids: dict[str, int] = {}
        self._lower = np.tril_indices(model.nv, -1)
        self._zero_v = np.zeros(model.nv)
        self._pending: tuple[np.ndarray, np.ndarray] | None = None
        self.update(pin.neutral(model), np.zeros(model.nv))

    @classmethod
    def from_mjcf(cls, path: str | Path) -> RobotModel:
        """Build from an MJCF file whose root body has a ``<freejoint>``.

        Torque limits come from the file's ``<motor>`` actuators (gear x ctrlrange).
        """
        path = Path(path)
        if not path.is_file():
            raise RobotModelError(f"robot file not found: {path}")
        try:
            model = pin.buildModelFromMJCF(str(path))
        except Exception as err:  # pinocchio raises plain ValueError/RuntimeError
            raise RobotModelError(f"pinocchio could not load {path}: {err}") from err
        return cls(model, read_motor_torque_limits(path))

    def with_frame(self, name: str, parent_frame: str, translation) -> RobotModel:
        """A copy of this model with an extra frame ``name`` at ``translation`` (3,) [m] from
        ``parent_frame``, in that frame's axes (e.g. a contact point on a hand's surface)."""
        translation = np.asarray(translation, dtype=float)
        if translation.shape != (3,) or not np.all(np.isfinite(translation)):
            raise RobotModelError(f"frame {name!r}: translation must be 3 finite numbers, got {translation}")
        model = pin.Model(self.model)
        parent_id = self.frame_id(parent_frame)
        parent = model.frames[parent_id]
        placement = parent.placement * pin.SE3(np.eye(3), translation)
        model.addFrame(pin.Frame(name, parent.parentJoint, parent_id, placement, pin.FrameType.OP_FRAME))
        limits = dict(zip(self.joint_names, zip(self.torque_min, self.torque_max, strict=True), strict=True))
        return RobotModel(model, limits)

    @property
    def nq(self) -> int:
        return self.model.nq

    @property
    def nv(self) -> int:
        return self.model.nv

    def update(self, q: np.ndarray, v: np.ndarray) -> None:
        """Compute all terms at configuration ``q`` (nq,) and velocity ``v`` (nv,).

        Raises [`InvalidStateError`][wbc_layer.errors.InvalidStateError] for a wrong size; the values are not checked (see
        [`check_state`][wbc_layer.robot_model.RobotModel.check_state])."""
        model, data = self.model, self.data
        if type(q) is not np.ndarray or q.dtype != _F64:
            q = self._state_vector(q, "q", model.nq)
        if type(v) is not np.ndarray or v.dtype != _F64:
            v = self._state_vector(v, "v", model.nv)
        if q.shape != (model.nq,) or v.shape != (model.nv,):
            raise InvalidStateError(
                f"q must have shape ({model.nq},) and v ({model.nv},) (nq, nv), got {q.shape} and {v.shape}"
            )
        self._pending = None
        self._q, self._v = q, v
        pin.computeAllTerms(model, data, q, v)
        M = data.M.copy()
        M[self._lower] = M.T[self._lower]  # NOTE: crba fills only the upper triangle
        self._M = M
        self._h = data.nle + self.damping * v
        self._com = data.com[0].copy()
        self._com_velocity = data.vcom[0].copy()
        self._com_jacobian = data.Jcom.copy()
        # Kinematics with qdd = 0 (centerOfMass runs it): frame accelerations are the drifts.
        pin.centerOfMass(model, data, q, v, self._zero_v)
        self._com_drift = data.acom[0].copy()
        self._angular_momentum = data.hg.angular.copy()  # computeAllTerms' centroidal momentum
        self._base_rotation = data.oMi[1].rotation.copy()
        self._base_position = data.oMi[1].translation.copy()
        pin.updateFramePlacements(model, data)
        self._gravity = None
        self._frame_cache.clear()

    def check_state(self, q, v) -> tuple[np.ndarray, np.ndarray]:
        """``(q, v)`` as float64 arrays if they are a valid state, else [`InvalidStateError`][wbc_layer.errors.InvalidStateError]
        naming what is wrong: ``q`` (nq,) and ``v`` (nv,) of real numbers, all finite, and a base
        quaternion ``q[3:7]`` of unit norm to [`QUATERNION_NORM_TOLERANCE`][wbc_layer.robot_model.QUATERNION_NORM_TOLERANCE].

        A float64 array of the right shape is not copied (the controller runs this every tick).
        """
        q = self._state_vector(q, "q", self.model.nq)
        v = self._state_vector(v, "v", self.model.nv)
        if not math.isfinite(np.add.reduce(q) + np.add.reduce(v)):  # a finite sum: finite entries
            self._check_finite(q, v)  # (a sum of huge finite entries may overflow: look closer)
        quaternion = q[3:7]
        norm = math.hypot(*quaternion.tolist())  # (no overflow warning for a huge one)
        if not abs(norm - 1.0) <= QUATERNION_NORM_TOLERANCE:
            raise InvalidStateError(
                f"the base quaternion q[3:7] (x, y, z, w) must have unit norm (to {QUATERNION_NORM_TOLERANCE:g}), "
                f"got norm {norm!r} for {quaternion}; normalise it"
            )
        return q, v

    @staticmethod
    def _state_vector(value, name: str, size: int) -> np.ndarray:
        if type(value) is np.ndarray and value.dtype == _F64 and value.shape == (size,):
            return value
        if isinstance(value, (str, bytes)) or value is None:
            raise InvalidStateError(f"{name} must be an array of {size} real numbers, got {value!r}")
        try:
            array = np.asarray(value)
        except (TypeError, ValueError):  # a ragged list
            raise InvalidStateError(f"{name} must be an array of {size} real numbers, got {value!r}") from None
        if array.dtype.kind not in "iuf":
            raise InvalidStateError(f"{name} must be an array of {size} real numbers, got dtype {array.dtype}")
        if array.shape != (size,):
            raise InvalidStateError(f"{name} must have shape ({size},), got shape {array.shape}")
        return np.ascontiguousarray(array, dtype=float)

    def _check_finite(self, q: np.ndarray, v: np.ndarray) -> None:
        bad = []
        for name, values, labels in (("q", q, self._q_labels()), ("v", v, self._v_labels())):
            bad += [f"{name}[{i}] ({labels[i]}) = {values[i]}" for i in np.flatnonzero(~np.isfinite(values))]
        if bad:
            more = f" and {len(bad) - _MAX_LISTED} more" if len(bad) > _MAX_LISTED else ""
            raise InvalidStateError(f"the state has non-finite entries: {', '.join(bad[:_MAX_LISTED])}{more}")

    def _q_labels(self) -> list[str]:
        joints = [f"joint {name!r}" for name in self.joint_names]
        base = [f"base position {axis}" for axis in "xyz"] + [f"base quaternion {axis}" for axis in "xyzw"]
        return base + (joints if len(joints) == self.model.nq - 7 else [f"q {i}" for i in range(7, self.model.nq)])

    def _v_labels(self) -> list[str]:
        base = [f"base linear velocity {axis}" for axis in "xyz"] + [f"base angular velocity {axis}" for axis in "xyz"]
        return base + [f"joint {name!r}" for name in self.joint_names]

    def defer_update(self, q: np.ndarray, v: np.ndarray) -> None:
        """Record ``(q, v)``; [`update`][wbc_layer.robot_model.RobotModel.update] runs on the first read of a term."""
        self._pending = (q, v)

    def _sync(self) -> None:
        if self._pending is not None:
            self.update(*self._pending)

    @property
    def q(self) -> np.ndarray:
        """(nq,) configuration of the last update [m, -, rad]."""
        return self._q if self._pending is None else np.asarray(self._pending[0], dtype=float)

    @property
    def v(self) -> np.ndarray:
        """(nv,) velocity of the last update [m/s, rad/s]."""
        return self._v if self._pending is None else np.asarray(self._pending[1], dtype=float)

    # The terms update() computes (see the class docstring); a read runs a deferred update first.
    M = LazyTerm()
    h = LazyTerm()
    com = LazyTerm()
    com_velocity = LazyTerm()
    com_jacobian = LazyTerm()
    com_drift = LazyTerm()
    angular_momentum = LazyTerm()
    base_rotation = LazyTerm()
    base_position = LazyTerm()

    @property
    def g(self) -> np.ndarray:
        """(nv,) generalized gravity at the last ``q`` [N, N m] (computed on first use)."""
        self._sync()
        if self._gravity is None:
            self._gravity = pin.computeGeneralizedGravity(self.model, self.data, self.q).copy()
        return self._gravity

    def frame_id(self, name: str) -> int:
        """Index of a frame by name: an MJCF site if one has that name, else a body."""
        if name in self._frame_ids:
            return self._frame_ids[name]
        for frame_type in (pin.FrameType.OP_FRAME, pin.FrameType.BODY):
            if self.model.existFrame(name, frame_type):
                self._frame_ids[name] = self.model.getFrameId(name, frame_type)
                return self._frame_ids[name]
        accepted = (pin.FrameType.OP_FRAME, pin.FrameType.BODY)  # joint frames are not looked up
        names = sorted({f.name for f in self.model.frames if f.type in accepted})
        raise unknown_name_error("frame", name, names)

    def frame_placement(self, name: str) -> pin.SE3:
        """World placement of a frame."""
        self._sync()
        return self.data.oMf[self.frame_id(name)]

    def frame_jacobian(self, name: str, local: bool) -> np.ndarray:
        """(6, nv) frame Jacobian, rows [linear; angular]; ``local``: frame axes, else world axes."""
        self._sync()
        key = ("J", name, local)
        if key not in self._frame_cache:
            ref = LOCAL if local else LOCAL_WORLD_ALIGNED
            self._frame_cache[key] = pin.getFrameJacobian(
                self.model, self.data, self.frame_id(name), ref
            )
        return self._frame_cache[key]

    def frame_velocity(self, name: str, local: bool) -> np.ndarray:
        """(6,) frame twist (linear; angular) [m/s, rad/s] in frame or world axes."""
        self._sync()
        ref = LOCAL if local else LOCAL_WORLD_ALIGNED
        return pin.getFrameVelocity(self.model, self.data, self.frame_id(name), ref).vector

    def frame_drift(self, name: str, local: bool) -> np.ndarray:
        """(6,) ``Jdot v``: frame acceleration at ``qdd = 0`` [m/s^2, rad/s^2].

        ``local=True``: the spatial acceleration in frame axes (the right quantity for a rigid
        6D contact). ``local=False``: world axes, with the *classical* linear acceleration of
        the frame origin (the second derivative of its world position: point contacts).
        """
        self._sync()
        key = ("drift", name, local)
        if key not in self._frame_cache:
            fid = self.frame_id(name)
            if local:
                acc = pin.getFrameAcceleration(self.model, self.data, fid, LOCAL).vector
            else:
                acc = pin.getFrameClassicalAcceleration(
                    self.model, self.data, fid, LOCAL_WORLD_ALIGNED
                ).vector
            self._frame_cache[key] = acc.copy()
        return self._frame_cache[key]
