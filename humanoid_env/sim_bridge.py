"""The one place that maps MuJoCo's state to pinocchio's and torques back to MuJoCo.

NOTE: the two libraries disagree on the free joint:

- MuJoCo ``qpos = [p, quat wxyz, joints]``, ``qvel = [v_world, omega_local, joint rates]``;
- pinocchio ``q = [p, quat xyzw, joints]``, ``v = [v_local, omega_local, joint rates]``

where ``v_world = R v_local`` (R: base orientation). Accelerations differ by more than a
rotation, because ``v_local = R^T v_world`` has a time-varying ``R``:
``a_local = R^T a_world - omega_local x v_local``.

Joints are matched by name, so the MuJoCo model may hold other bodies (a wall, a seesaw) and
list joints and actuators in any order.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np


class BridgeError(ValueError):
    """The MuJoCo model and the controller's model do not match."""


class NonFiniteTorqueError(ValueError):
    """Torques handed to [`SimBridge.torques_to_ctrl`][humanoid_env.sim_bridge.SimBridge.torques_to_ctrl] hold NaN or inf (nothing was written)."""


class SimBridge:
    """Converts between a MuJoCo model holding the robot and the controller's joint order.

    Args:
        model: the MuJoCo model (scene).
        joint_names: (na,) the controller's actuated joint names, in pinocchio's order.
        root_joint: name of the robot's free joint in ``model``.
    """

    def __init__(self, model: mujoco.MjModel, joint_names: tuple[str, ...], root_joint: str = "root"):
        self.model = model
        self.joint_names = tuple(joint_names)
        root = _joint_id(model, root_joint)
        if model.jnt_type[root] != mujoco.mjtJoint.mjJNT_FREE:
            raise BridgeError(f"joint {root_joint!r} is not a free joint")
        self.root_qpos = int(model.jnt_qposadr[root])
        self.root_dof = int(model.jnt_dofadr[root])
        ids = [_joint_id(model, name) for name in self.joint_names]
        self.joint_qpos = np.array([model.jnt_qposadr[i] for i in ids])
        self.joint_dof = np.array([model.jnt_dofadr[i] for i in ids])
        self.dofs = np.concatenate([np.arange(self.root_dof, self.root_dof + 6), self.joint_dof])
        r = self.root_qpos  # pinocchio's q gathered from qpos in one indexing: quaternion wxyz -> xyzw
        #: (nq,) pinocchio's ``q[i] = qpos[q_from_qpos[i]]``; ``v[i] = qvel[dofs[i]]`` before the base rotation.
        self.q_from_qpos = np.concatenate([[r, r + 1, r + 2, r + 4, r + 5, r + 6, r + 3], self.joint_qpos])
        self.actuator_ids, self.gear = self._actuators(ids)
        self.ctrl_min = model.actuator_ctrlrange[self.actuator_ids, 0].copy()
        self.ctrl_max = model.actuator_ctrlrange[self.actuator_ids, 1].copy()
        self.torque_min = self.gear * self.ctrl_min
        self.torque_max = self.gear * self.ctrl_max
        # Per-call constants of the hot path (to_pinocchio, torques_to_ctrl: every physics step).
        self._quat = slice(self.root_qpos + 3, self.root_qpos + 7)
        self._rotation = np.empty(9)  # to_pinocchio's base rotation (row-major 3 x 3)
        self._rotation_rows = self._rotation.reshape(3, 3)  # a view: row r is R[r, :]
        self._tau_shape = (len(self.joint_names),)
        first = int(self.actuator_ids[0]) if len(self.actuator_ids) else 0
        contiguous = np.array_equal(self.actuator_ids, np.arange(first, first + len(self.actuator_ids)))
        #: where the robot's actuators sit in ``ctrl``: a slice when they are consecutive, in order.
        self._ctrl_index = slice(first, first + len(self.actuator_ids)) if contiguous else self.actuator_ids

    def __setstate__(self, state: dict) -> None:
        """Restore a copy (``copy.deepcopy``, ``pickle``): ``_rotation_rows`` views ``_rotation``,
        which a copy of the arrays would not (to_pinocchio writes one and reads the other)."""
        self.__dict__.update(state)
        self._rotation_rows = self._rotation.reshape(3, 3)

    def _actuators(self, joint_ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        by_joint = {}
        for a in range(self.model.nu):
            if self.model.actuator_trntype[a] == mujoco.mjtTrn.mjTRN_JOINT:
                by_joint[int(self.model.actuator_trnid[a, 0])] = a
        missing = [n for n, j in zip(self.joint_names, joint_ids, strict=True) if j not in by_joint]
        if missing:
            raise BridgeError(f"no actuator drives joints: {', '.join(missing)}")
        actuators = np.array([by_joint[j] for j in joint_ids])
        return actuators, self.model.actuator_gear[actuators, 0].copy()

    def base_rotation(self, qpos: np.ndarray) -> np.ndarray:
        """(3, 3) world rotation of the base."""
        R = np.empty(9)
        mujoco.mju_quat2Mat(R, qpos[self.root_qpos + 3 : self.root_qpos + 7])
        return R.reshape(3, 3)

    def to_pinocchio(self, qpos: np.ndarray, qvel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """MuJoCo ``(qpos, qvel)`` -> pinocchio ``(q (nq,), v (nv,))``."""
        q = qpos[self.q_from_qpos]
        v = qvel[self.dofs]
        mujoco.mju_quat2Mat(self._rotation, qpos[self._quat])  # base_rotation(qpos), into a buffer
        # R^T v as a sum of scaled rows, each product and sum rounded on its own: the compiled
        # loop's arithmetic (core/physics_loop.cpp). A matmul would go to BLAS, whose kernel (and
        # its fused multiply-adds) depends on the CPU: the two loops parted in the last bit on one.
        rows, x0, x1, x2 = self._rotation_rows, v[0], v[1], v[2]
        v[:3] = rows[0] * x0 + rows[1] * x1 + rows[2] * x2
        return q, v

    def acceleration_to_mujoco(self, qpos: np.ndarray, v: np.ndarray, a: np.ndarray) -> np.ndarray:
        """Pinocchio acceleration ``a`` (nv,) at velocity ``v`` -> MuJoCo's robot ``qacc`` entries.

        Returns (nv,) in the order of `dofs`: ``a_world = R (a_local + omega x v_local)``.
        """
        R = self.base_rotation(qpos)
        linear = R @ (a[:3] + np.cross(v[3:6], v[:3]))
        return np.concatenate([linear, a[3:6], a[6:]])

    def torques_to_ctrl(self, tau: np.ndarray, ctrl: np.ndarray) -> None:
        """Write joint torques ``tau`` (na,) [N m] into ``ctrl`` (nu,) as ``tau / gear``, clipped.

        Raises [`NonFiniteTorqueError`][humanoid_env.sim_bridge.NonFiniteTorqueError] (a ``ValueError``) on a non-finite torque, before
        writing anything: the simulation never receives NaN.
        """
        tau = np.asarray(tau, dtype=float)
        if tau.shape != self._tau_shape:
            raise ValueError(f"expected {len(self.joint_names)} torques, got shape {tau.shape}")
        # A finite sum has finite terms (the entry-wise check only runs when it is not).
        if not math.isfinite(np.add.reduce(tau)) and not np.isfinite(tau).all():
            bad = np.flatnonzero(~np.isfinite(tau)).tolist()
            raise NonFiniteTorqueError(f"non-finite torques for joints {[self.joint_names[i] for i in bad]}")
        # ndarray.clip is what np.clip calls (the same values), without np.clip's dispatch.
        ctrl[self._ctrl_index] = (tau / self.gear).clip(self.ctrl_min, self.ctrl_max)


def _joint_id(model: mujoco.MjModel, name: str) -> int:
    joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
    if joint < 0:
        names = [model.joint(i).name for i in range(model.njnt)]
        raise BridgeError(f"joint {name!r} not in the MuJoCo model; its joints are: {', '.join(names)}")
    return joint
