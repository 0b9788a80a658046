"""Pinocchio and MuJoCo describe the same robot: mass matrix, bias forces, CoM, Jacobians.

The bridge maps MuJoCo's generalized coordinates to pinocchio's with ``qvel = T v``,
``T = blockdiag(R, I, I)``. Then ``M_pin = T^T M_mj T`` and
``h_pin = T^T (c_mj + M_mj Tdot v)`` with ``Tdot v = [R (omega x v_local), 0, 0]``.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from humanoid_env.robot_config import FLAT_SCENE_XML
from tests.conftest import random_state

#: Relative agreement required between the two libraries' terms (target: below 1e-6).
REL_TOL = 1e-6


def _relative_error(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-12))


def _velocity_map(bridge, data) -> np.ndarray:
    T = np.eye(data.qvel.size)
    T[:3, :3] = bridge.base_rotation(data.qpos)
    return T


@pytest.mark.parametrize("seed", range(5))
def test_mass_matrix_and_bias_forces_agree_with_mujoco(mj_model, mj_data, robot, bridge, seed):
    random_state(mj_model, mj_data, np.random.default_rng(seed))
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    T = _velocity_map(bridge, mj_data)
    M_mj = np.zeros((mj_model.nv, mj_model.nv))
    mujoco.mj_fullM(mj_model, mj_data, M_mj)
    assert _relative_error(robot.M, T.T @ M_mj @ T) < REL_TOL

    T_dot_v = np.zeros(mj_model.nv)
    T_dot_v[:3] = T[:3, :3] @ np.cross(v[3:6], v[:3])
    # MuJoCo's damping is a passive force (qfrc_passive = -D qvel); our h includes it.
    h_mj = T.T @ (mj_data.qfrc_bias - mj_data.qfrc_passive + M_mj @ T_dot_v)
    assert _relative_error(robot.h, h_mj) < REL_TOL


def test_armature_is_part_of_the_mass_matrix(mj_model, robot):
    # Joint rows of M minus the rigid-body inertia would be wrong by the armature if it were lost.
    assert np.allclose(robot.model.armature[6:], mj_model.dof_armature[6:])
    assert robot.model.armature[6:].min() > 0


def test_total_mass_matches(mj_model, robot):
    assert robot.mass == pytest.approx(float(mj_model.body_mass.sum()), rel=1e-12)
    assert 30.0 <= robot.mass <= 40.0


@pytest.mark.parametrize("seed", range(3))
def test_com_and_com_jacobian_agree(mj_model, mj_data, robot, bridge, seed):
    random_state(mj_model, mj_data, np.random.default_rng(seed))
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    assert np.allclose(robot.com, mj_data.subtree_com[0], atol=1e-9, rtol=0)
    # CoM velocity: pinocchio's Jcom v vs MuJoCo's subtree linear momentum / mass.
    mujoco.mj_subtreeVel(mj_model, mj_data)
    com_velocity_mj = mj_data.subtree_linvel[1]  # body 1 = pelvis, the robot's root
    assert _relative_error(robot.com_jacobian @ v, com_velocity_mj) < REL_TOL


@pytest.mark.parametrize("site", ["left_sole", "right_sole", "left_hand", "right_hand"])
def test_site_jacobians_agree(mj_model, mj_data, robot, bridge, site):
    random_state(mj_model, mj_data, np.random.default_rng(7))
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    T = _velocity_map(bridge, mj_data)
    jacp = np.zeros((3, mj_model.nv))
    jacr = np.zeros((3, mj_model.nv))
    mujoco.mj_jacSite(mj_model, mj_data, jacp, jacr, mj_model.site(site).id)
    J = robot.frame_jacobian(site, local=False)
    assert _relative_error(J[:3], jacp @ T) < REL_TOL
    assert _relative_error(J[3:], jacr @ T) < REL_TOL
    assert np.allclose(robot.frame_placement(site).translation, mj_data.site(site).xpos, atol=1e-9)


def test_forward_dynamics_and_acceleration_bridge_agree(robot, bridge):
    """Without contacts, MuJoCo's qacc equals pinocchio's ABA mapped through the bridge."""
    model = mujoco.MjModel.from_xml_path(str(FLAT_SCENE_XML))
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER  # qacc of the explicit dynamics
    data = mujoco.MjData(model)
    random_state(model, data, np.random.default_rng(3))
    q, v = bridge.to_pinocchio(data.qpos, data.qvel)
    a = pin.aba(robot.model, robot.model.createData(), q, v, -robot.damping * v)
    assert _relative_error(bridge.acceleration_to_mujoco(data.qpos, v, a), data.qacc) < REL_TOL


def test_added_frame_moves_with_its_parent(mj_model, mj_data, robot, bridge):
    """A frame added 3.5 cm along a hand site's z axis sits there in world coordinates."""
    random_state(mj_model, mj_data, np.random.default_rng(9))
    extended = robot.with_frame("right_hand_tip", "right_hand", [0.0, 0.0, -0.035])
    extended.update(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    site = mj_data.site("right_hand")
    expected = site.xpos + site.xmat.reshape(3, 3) @ np.array([0.0, 0.0, -0.035])
    assert np.allclose(extended.frame_placement("right_hand_tip").translation, expected, atol=1e-9)
    assert not robot.model.existFrame("right_hand_tip")  # the original is untouched
