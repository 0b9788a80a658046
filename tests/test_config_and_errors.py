"""Bad configuration and bad robot files fail with messages that say what is allowed."""

from __future__ import annotations

import numpy as np
import pytest

from humanoid_env.robots.hubo_lite import HUBO_LITE
from wbc_layer import (
    ConfigError,
    ContactConfig,
    FootContact,
    PointContact,
    RobotModel,
    RobotModelError,
    WholeBodyController,
    controller_config_from_dict,
)


def test_unknown_controller_setting_lists_valid_ones():
    with pytest.raises(ConfigError, match=r"unknown controller setting.*com_gain.*valid ones are: .*com_kp"):
        controller_config_from_dict({"com_gain": 3.0})


def test_unknown_contact_setting_is_rejected():
    with pytest.raises(ConfigError, match=r"unknown contact setting.*'mu'.*friction_coefficient"):
        controller_config_from_dict({"contacts": [{"name": "a", "frame": "b", "mu": 0.5}]})


def test_config_from_dict_builds_contacts():
    config = controller_config_from_dict(
        {"com_kp": 20.0, "contacts": [{"name": "hand", "frame": "right_hand", "kind": "point", "normal": [0, 1, 0]}]}
    )
    assert config.com_kp == 20.0 and config.contacts[0].normal == (0, 1, 0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(kind="wheel"), "kind must be one of"),
    ],
)
def test_contact_config_values_are_checked(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        ContactConfig("c", "left_sole", **kwargs)


def test_negative_gain_is_rejected():
    with pytest.raises(ConfigError, match="com_kp must be >= 0"):
        HUBO_LITE.controller_config(com_kp=-1.0)


def test_contact_parameters_are_checked():
    with pytest.raises(ConfigError, match="min_normal_force <= max_normal_force"):
        FootContact("f", "left_sole", min_normal_force=10.0, max_normal_force=5.0)
    with pytest.raises(ConfigError, match="friction_coefficient must be >= 0"):
        PointContact("h", "right_hand", friction_coefficient=float("nan"))
    with pytest.raises(ConfigError, match="normal must be a finite non-zero 3-vector"):
        PointContact("h", "right_hand", normal=(0.0, 0.0, 0.0))


def test_unknown_frame_name_lists_frames(robot):
    config = HUBO_LITE.controller_config().with_overrides(contacts=(ContactConfig("f", "left_heel"),))
    with pytest.raises(ConfigError, match=r"unknown frame 'left_heel'.*left_sole"):
        WholeBodyController(robot, config)


def test_unknown_task_and_contact_names(controller):
    with pytest.raises(ConfigError, match=r"unknown task 'balance'.*com"):
        controller.task("balance")
    with pytest.raises(ConfigError, match=r"unknown contact 'left_hand'.*left_foot"):
        controller.set_contact_active("left_hand", False)


def test_non_finite_reference_is_rejected(controller):
    with pytest.raises(ConfigError, match="CoM position reference must be finite"):
        controller.com_task.set_reference([0.0, np.nan, 0.7])
    with pytest.raises(ConfigError, match="CoM velocity reference must be finite"):
        controller.com_task.set_reference(np.array([0.0, 0.0, 0.7]), np.array([np.inf, 0.0, 0.0]))  # the array fast path
    with pytest.raises(ConfigError, match="force target of 'force_left_foot' must be finite, got nan"):
        controller.set_force_target("left_foot", float("nan"))


def test_missing_robot_file(tmp_path):
    with pytest.raises(RobotModelError, match="robot file not found"):
        RobotModel.from_mjcf(tmp_path / "nope.xml")


def test_broken_robot_file(tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text("<mujoco><worldbody><body name='a'>")
    with pytest.raises(RobotModelError, match="broken.xml"):
        RobotModel.from_mjcf(broken)


def test_robot_without_free_base_is_rejected(tmp_path):
    fixed = tmp_path / "arm.xml"
    fixed.write_text(
        "<mujoco><worldbody><body name='link'><inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>"
        "<joint name='j' type='hinge'/></body></worldbody>"
        "<actuator><motor joint='j' ctrlrange='-1 1'/></actuator></mujoco>"
    )
    with pytest.raises(RobotModelError, match="free-flyer base"):
        RobotModel.from_mjcf(fixed)


def test_inactive_contact_carries_no_force(mj_data, bridge, controller):
    controller.set_contact_active("right_foot", False)
    controller.com_task.set_reference(controller.robot.com)  # not over the left foot: it may fall,
    result = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))  # but f = 0
    assert np.all(result.contact_forces["right_foot"] == pytest.approx(0.0, abs=1e-9))
