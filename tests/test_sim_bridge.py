"""SimBridge: torques reach the right MuJoCo joints as ``ctrl = tau / gear``, clipped to the
actuators' range, never as NaN; model mismatches raise BridgeError naming what is wrong.

The oracle is MuJoCo itself: after ``mj_forward`` the actuator force on each joint's dof,
``qfrc_actuator = gear * ctrl``, must equal the torque asked for (to 1e-9 N m: one product and
one quotient of O(100) numbers).
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from humanoid_env.robots.hubo_lite import HUBO_LITE
from humanoid_env.robots.scene_constants import SEESAW_SCENE_XML, SEESAW_TILT_JOINT
from humanoid_env.sim_bridge import BridgeError, SimBridge

TORQUE_TOL = 1e-9  # [N m]


def _applied(model, data, bridge) -> np.ndarray:
    """(na,) the actuator torque MuJoCo applies on each of the bridge's joints [N m]."""
    mujoco.mj_forward(model, data)
    return data.qfrc_actuator[bridge.joint_dof].copy()


def _shuffled_scene() -> mujoco.MjModel:
    """The flat scene with its actuators in reverse order and a different gear on each
    (ctrlrange rescaled so that the torque limits stay the same)."""
    spec = mujoco.MjSpec.from_file(str(HUBO_LITE.scene_path("flat")))
    actuators = [(a.name, a.target, float(a.gear[0]), np.array(a.ctrlrange)) for a in spec.actuators]
    for actuator in list(spec.actuators):
        spec.delete(actuator)
    for k, (name, target, gear, ctrlrange) in enumerate(reversed(actuators)):
        new_gear = 10.0 + 3.0 * k
        spec.add_actuator(name=name, target=target, trntype=mujoco.mjtTrn.mjTRN_JOINT,
                          gear=[new_gear, 0, 0, 0, 0, 0], ctrllimited=True, ctrlrange=ctrlrange * gear / new_gear)
    return spec.compile()


@pytest.mark.parametrize("scene", ["flat", "shuffled"])
def test_torques_reach_their_joints_divided_by_the_gear(robot, scene):
    model = mujoco.MjModel.from_xml_path(str(HUBO_LITE.scene_path("flat"))) if scene == "flat" else _shuffled_scene()
    data = mujoco.MjData(model)
    bridge = SimBridge(model, robot.joint_names)
    if scene == "shuffled":  # the test would be weaker if the shuffle did not happen
        assert list(bridge.actuator_ids) == list(range(robot.na))[::-1]
    tau = np.random.default_rng(0).uniform(-0.9, 0.9, robot.na) * robot.torque_max  # inside the limits
    bridge.torques_to_ctrl(tau, data.ctrl)
    gears = model.actuator_gear[bridge.actuator_ids, 0]
    np.testing.assert_allclose(data.ctrl[bridge.actuator_ids], tau / gears, rtol=1e-15)
    np.testing.assert_allclose(_applied(model, data, bridge), tau, rtol=0.0, atol=TORQUE_TOL)
    # The torque limits the controller assumes (gear x ctrlrange) are the bridge's.
    np.testing.assert_allclose(bridge.torque_max, robot.torque_max, rtol=1e-12)
    np.testing.assert_allclose(bridge.torque_min, robot.torque_min, rtol=1e-12)


def test_out_of_range_torques_are_clipped_to_the_actuator_limits(mj_model, robot, bridge):
    data = mujoco.MjData(mj_model)
    tau = np.zeros(robot.na)
    tau[0], tau[3], tau[-1] = 5.0 * robot.torque_max[0], -5.0 * robot.torque_max[3], 1e9
    bridge.torques_to_ctrl(tau, data.ctrl)
    applied = _applied(mj_model, data, bridge)
    assert applied[0] == pytest.approx(robot.torque_max[0], abs=TORQUE_TOL)
    assert applied[3] == pytest.approx(robot.torque_min[3], abs=TORQUE_TOL)
    assert applied[-1] == pytest.approx(robot.torque_max[-1], abs=TORQUE_TOL)
    assert np.all(data.ctrl >= mj_model.actuator_ctrlrange[:, 0]) and np.all(data.ctrl <= mj_model.actuator_ctrlrange[:, 1])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_torques_are_refused_naming_the_joints(mj_model, robot, bridge, bad):
    data = mujoco.MjData(mj_model)
    data.ctrl[:] = 0.25
    tau = np.zeros(robot.na)
    tau[[2, 7]] = bad
    names = f"{robot.joint_names[2]}', '{robot.joint_names[7]}"
    with pytest.raises(ValueError, match=f"non-finite torques for joints \\['{names}'\\]"):
        bridge.torques_to_ctrl(tau, data.ctrl)
    np.testing.assert_array_equal(data.ctrl, 0.25)  # nothing was written: MuJoCo never sees NaN


def test_wrong_number_of_torques_is_refused(mj_model, robot, bridge):
    with pytest.raises(ValueError, match=f"expected {robot.na} torques, got shape \\(5,\\)"):
        bridge.torques_to_ctrl(np.zeros(5), np.zeros(mj_model.nu))


# -- BridgeError: the two models do not match -------------------------------------------------
def test_bridge_error_is_a_value_error():
    assert issubclass(BridgeError, ValueError)


def test_unknown_joint_is_named_with_the_model_joints(mj_model, robot):
    with pytest.raises(BridgeError, match=r"joint 'left_toe' not in the MuJoCo model; its joints are: root, left_hip_yaw"):
        SimBridge(mj_model, (*robot.joint_names, "left_toe"))
    with pytest.raises(BridgeError, match=r"joint 'base' not in the MuJoCo model"):
        SimBridge(mj_model, robot.joint_names, root_joint="base")


def test_root_must_be_a_free_joint(mj_model, robot):
    with pytest.raises(BridgeError, match="joint 'left_knee' is not a free joint"):
        SimBridge(mj_model, robot.joint_names, root_joint="left_knee")


def test_joint_without_actuator_is_named(robot):
    # The seesaw's tilt joint exists in its scene but no motor drives it.
    model = mujoco.MjModel.from_xml_path(str(SEESAW_SCENE_XML))
    with pytest.raises(BridgeError, match=f"no actuator drives joints: {SEESAW_TILT_JOINT}$"):
        SimBridge(model, (*robot.joint_names, SEESAW_TILT_JOINT))
    SimBridge(model, robot.joint_names)  # the robot's own joints are all driven
