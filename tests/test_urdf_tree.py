"""humanoid_env.robots.urdf_tree: URDF rotations, fused fixed links, combined inertias.

Oracles: pinocchio's ``rpyToMatrix`` for the URDF angle convention, and pinocchio's own URDF
parser, which also fuses fixed links (into its joints' inertias), on a small hand-written URDF.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from humanoid_env.robots.urdf_tree import (
    Inertial,
    Placement,
    UrdfError,
    combine,
    read_urdf_bodies,
    rpy_matrix,
)

TOL = 1e-12  # double-precision arithmetic on O(1) numbers

ROBOT = """<robot name="t">
  <link name="base">
    <inertial><origin xyz="0 0 0.1" rpy="0 0 0"/><mass value="2"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/></inertial>
  </link>
  <link name="sensor"/>
  <joint name="sensor_joint" type="fixed">
    <origin xyz="0.1 0 0.2" rpy="0 0.3 0"/><parent link="base"/><child link="sensor"/>
  </joint>
  <link name="weight">
    <inertial><origin xyz="0.05 0 0" rpy="0.1 0.2 0.3"/><mass value="1"/>
      <inertia ixx="0.001" ixy="0.0001" ixz="0" iyy="0.002" iyz="0" izz="0.003"/></inertial>
  </link>
  <joint name="weight_joint" type="fixed">
    <origin xyz="0 0.2 0" rpy="0.5 0 0"/><parent link="sensor"/><child link="weight"/>
  </joint>
  <link name="arm">
    <inertial><origin xyz="0 0 -0.2" rpy="0 0 0"/><mass value="0.5"/>
      <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <origin xyz="0 0.3 0.4" rpy="0.2 0 0"/><parent link="base"/><child link="arm"/>
    <axis xyz="0 2 0"/><limit lower="-1" upper="2" effort="10" velocity="3"/>
  </joint>
</robot>
"""


@pytest.mark.parametrize("rpy", [(0.0, 0.0, 0.0), (0.3, -0.2, 1.1), (-1.4, 0.7, -2.5)])
def test_rpy_is_the_urdf_convention(rpy):
    assert np.allclose(rpy_matrix(rpy), pin.rpy.rpyToMatrix(*rpy), rtol=0, atol=TOL)


def test_combining_two_point_masses_gives_the_parallel_axis_inertia():
    point = Inertial(1.0, np.zeros(3), np.zeros((3, 3)))
    here, there = Placement.identity(), Placement(np.eye(3), np.array([0.2, 0.0, 0.0]))
    total = combine([(point, here), (point, there)])
    assert total.mass == 2.0
    assert np.allclose(total.com, [0.1, 0, 0], rtol=0, atol=TOL)
    assert np.allclose(total.inertia, np.diag([0.0, 0.02, 0.02]), rtol=0, atol=TOL)  # 2 x 1 kg x (0.1 m)^2


def test_fixed_links_are_fused_and_kept_as_frames(tmp_path):
    path = tmp_path / "t.urdf"
    path.write_text(ROBOT)
    base, arm = read_urdf_bodies(path)
    assert (base.name, base.parent, base.joint) == ("base", None, None)
    assert set(base.frames) == {"sensor", "weight"}
    assert (arm.name, arm.parent, arm.joint.name) == ("arm", "base", "shoulder")
    assert np.allclose(arm.joint.axis, [0, 1, 0])  # normalised
    assert (arm.joint.lower, arm.joint.upper, arm.joint.effort) == (-1, 2, 10)

    # pinocchio's URDF parser fuses fixed links into the parent joint's inertia too
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    fused = model.inertias[1]
    assert base.inertial.mass == pytest.approx(fused.mass, abs=TOL)
    assert np.allclose(base.inertial.com, fused.lever, rtol=0, atol=TOL)
    assert np.allclose(base.inertial.inertia, fused.inertia, rtol=0, atol=TOL)
    data = model.createData()
    pin.framesForwardKinematics(model, data, pin.neutral(model))
    weight = data.oMf[model.getFrameId("weight")]
    assert np.allclose(base.frames["weight"].translation, weight.translation, rtol=0, atol=TOL)
    assert np.allclose(base.frames["weight"].rotation, weight.rotation, rtol=0, atol=TOL)
    assert np.allclose(arm.placement.translation, model.jointPlacements[2].translation, rtol=0, atol=TOL)


def test_a_floating_or_planar_joint_is_refused(tmp_path):
    path = tmp_path / "t.urdf"
    path.write_text(ROBOT.replace('type="revolute"', 'type="planar"'))
    with pytest.raises(UrdfError, match="planar"):
        read_urdf_bodies(path)
