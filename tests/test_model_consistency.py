"""Pinocchio and MuJoCo describe the same robot: mass matrix, bias forces, CoM, Jacobians
(the checks: tests/model_agreement.py)."""

from __future__ import annotations

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from humanoid_env.robots.hubo_lite import HUBO_LITE
from tests.conftest import random_state
from tests.model_agreement import com_errors, mass_matrix_and_bias_errors, relative_error, site_errors

#: Relative agreement required between the two libraries' terms (target: below 1e-6).
REL_TOL = 1e-6


@pytest.mark.parametrize("seed", range(5))
def test_mass_matrix_and_bias_forces_agree_with_mujoco(mj_model, mj_data, robot, bridge, seed):
    random_state(mj_model, mj_data, np.random.default_rng(seed))
    M_error, h_error = mass_matrix_and_bias_errors(mj_model, mj_data, robot, bridge)
    assert M_error < REL_TOL and h_error < REL_TOL


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
    # CoM velocity: pinocchio's Jcom v vs MuJoCo's subtree linear momentum / mass.
    position, velocity = com_errors(mj_model, mj_data, robot, bridge, "pelvis")
    assert position < 1e-9 and velocity < REL_TOL


@pytest.mark.parametrize("site", ["left_sole", "right_sole", "left_hand", "right_hand"])
def test_site_jacobians_agree(mj_model, mj_data, robot, bridge, site):
    random_state(mj_model, mj_data, np.random.default_rng(7))
    linear, angular, position, _ = site_errors(mj_model, mj_data, robot, bridge, site)
    assert linear < REL_TOL and angular < REL_TOL and position < 1e-9


def test_forward_dynamics_and_acceleration_bridge_agree(robot, bridge):
    """Without contacts, MuJoCo's qacc equals pinocchio's ABA mapped through the bridge."""
    model = mujoco.MjModel.from_xml_path(str(HUBO_LITE.scene_path("flat")))
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER  # qacc of the explicit dynamics
    data = mujoco.MjData(model)
    random_state(model, data, np.random.default_rng(3))
    q, v = bridge.to_pinocchio(data.qpos, data.qvel)
    a = pin.aba(robot.model, robot.model.createData(), q, v, -robot.damping * v)
    assert relative_error(bridge.acceleration_to_mujoco(data.qpos, v, a), data.qacc) < REL_TOL


def test_added_frame_moves_with_its_parent(mj_model, mj_data, robot, bridge):
    """A frame added 3.5 cm along a hand site's z axis sits there in world coordinates."""
    random_state(mj_model, mj_data, np.random.default_rng(9))
    extended = robot.with_frame("right_hand_tip", "right_hand", [0.0, 0.0, -0.035])
    extended.update(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    site = mj_data.site("right_hand")
    expected = site.xpos + site.xmat.reshape(3, 3) @ np.array([0.0, 0.0, -0.035])
    assert np.allclose(extended.frame_placement("right_hand_tip").translation, expected, atol=1e-9)
    assert not robot.model.existFrame("right_hand_tip")  # the original is untouched
