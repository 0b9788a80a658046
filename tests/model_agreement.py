"""MuJoCo and pinocchio on the same state: the checks every robot's model must pass.

The bridge maps MuJoCo's generalized coordinates to pinocchio's with ``qvel = T v``,
``T = blockdiag(R, I, I)``. Then ``M_pin = T^T M_mj T`` and
``h_pin = T^T (c_mj + M_mj Tdot v)`` with ``Tdot v = [R (omega x v_local), 0, 0]``.
"""

from __future__ import annotations

import mujoco
import numpy as np


def relative_error(a: np.ndarray, b: np.ndarray) -> float:
    """Largest entry of ``|a - b|`` over the largest of ``|b|`` [-]."""
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-12))


def velocity_map(bridge, data) -> np.ndarray:
    """``T`` (nv, nv): MuJoCo's ``qvel = T v`` of pinocchio's ``v``."""
    T = np.eye(data.qvel.size)
    T[:3, :3] = bridge.base_rotation(data.qpos)
    return T


def mass_matrix_and_bias_errors(model, data, robot, bridge) -> tuple[float, float]:
    """Relative errors of pinocchio's ``M`` and ``h`` (damping included) against MuJoCo's at
    ``data``'s state (``robot`` is updated to it)."""
    q, v = bridge.to_pinocchio(data.qpos, data.qvel)
    robot.update(q, v)
    T = velocity_map(bridge, data)
    M_mj = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, M_mj)
    T_dot_v = np.zeros(model.nv)
    T_dot_v[:3] = T[:3, :3] @ np.cross(v[3:6], v[:3])
    # MuJoCo's damping is a passive force (qfrc_passive = -D qvel); our h includes it.
    h_mj = T.T @ (data.qfrc_bias - data.qfrc_passive + M_mj @ T_dot_v)
    return relative_error(robot.M, T.T @ M_mj @ T), relative_error(robot.h, h_mj)


def com_errors(model, data, robot, bridge, root_body: str) -> tuple[float, float]:
    """(CoM position error [m], relative CoM-velocity error) of pinocchio against MuJoCo's subtree
    of ``root_body`` (``robot`` is updated to ``data``'s state)."""
    q, v = bridge.to_pinocchio(data.qpos, data.qvel)
    robot.update(q, v)
    mujoco.mj_subtreeVel(model, data)
    root = model.body(root_body).id
    position = float(np.abs(robot.com - data.subtree_com[root]).max())
    return position, relative_error(robot.com_jacobian @ v, data.subtree_linvel[root])


def site_errors(model, data, robot, bridge, site: str) -> tuple[float, float, float, float]:
    """(relative linear- and angular-Jacobian errors, position error [m], rotation error [-]) of
    the frame ``site`` (``robot`` is updated to ``data``'s state)."""
    q, v = bridge.to_pinocchio(data.qpos, data.qvel)
    robot.update(q, v)
    T = velocity_map(bridge, data)
    jacp = np.zeros((3, model.nv))
    jacr = np.zeros((3, model.nv))
    mujoco.mj_jacSite(model, data, jacp, jacr, model.site(site).id)
    J = robot.frame_jacobian(site, local=False)
    placement = robot.frame_placement(site)
    return (
        relative_error(J[:3], jacp @ T),
        relative_error(J[3:], jacr @ T),
        float(np.abs(placement.translation - data.site(site).xpos).max()),
        float(np.abs(placement.rotation - data.site(site).xmat.reshape(3, 3)).max()),
    )
