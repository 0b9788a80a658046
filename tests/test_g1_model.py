"""The Unitree G1 built from example-robot-data's URDF: one MJCF file, read by MuJoCo and pinocchio.

Three oracles: the URDF itself (masses, joints, limits, and pinocchio's own URDF model of it for
the kinematics and inertia), MuJoCo against pinocchio on the built file (as
tests/test_model_consistency.py does for our robot), and the closed loop: the nominal controller
holds the G1 standing on flat ground to the issue's targets.
"""

from __future__ import annotations

import threading
import xml.etree.ElementTree as ET
from importlib import metadata

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from humanoid_env.robots import g1_model
from humanoid_env.robots.g1_model import (
    G1_FOOT_BOX,
    G1_HOME_JOINTS,
    G1ModelUnavailable,
    g1_mjcf_path,
    g1_urdf_path,
)
from humanoid_env.sim_bridge import SimBridge
from tests.conftest import random_state
from tests.model_agreement import com_errors, mass_matrix_and_bias_errors, relative_error, site_errors
from wbc_layer import QPSolveError, RobotModel, WholeBodyController

#: Relative agreement of MuJoCo's and pinocchio's terms on the same file (both in double
#: precision from the same numbers: observed 1e-15..1e-12; our robot's test asks 1e-6 too).
REL_TOL = 1e-6
#: Against the URDF: MuJoCo's XML writer keeps 6 significant digits of every number (masses,
#: inertias, positions, quaternions), so the built model differs from the URDF's by up to a
#: few 1e-7 relative per number; 1e-5 leaves a margin and still catches any modelling mistake
#: (a lost link, a wrong axis or transform moves these terms by percents).
URDF_REL_TOL = 1e-5
#: [m], [-] positions and rotation matrices against pinocchio's URDF model: lengths of 0.01-0.4 m
#: and quaternions rounded to 6 significant digits, a dozen of them along a chain (measured:
#: 5e-8 m).
URDF_POSITION_TOL = 1e-6
URDF_ROTATION_TOL = 1e-5
#: [kg] the total mass against the URDF's sum: 30 masses each rounded to 6 significant digits.
MASS_TOL = 1e-5
#: [m] the soles on the ground in the home keyframe: the base height comes from the same
#: model's kinematics, so only rounding remains. Also sites' placements, MuJoCo vs pinocchio.
PLACEMENT_TOL = 1e-9
SIDES = ("left", "right")
SITES = ("left_sole", "right_sole", "left_hand", "right_hand", "torso")


@pytest.fixture(scope="module", autouse=True)
def g1_cache(tmp_path_factory):
    """Build the model into a fresh cache folder for this module (not the user's)."""
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("g1_cache")
        patch.setenv("HUMANOID_WBC_CACHE", str(folder))
        yield folder


@pytest.fixture(scope="module")
def g1():
    """The G1's description (imported inside the cache fixture: its files land in that folder)."""
    from humanoid_env.robots import robot_description

    return robot_description("g1")


@pytest.fixture(scope="module")
def mj_model(g1) -> mujoco.MjModel:
    """The G1's flat scene (assets/scene_flat.xml's floor, friction 1), keyframe ``home``; conftest's
    ``mj_data`` and ``bridge`` fixtures build on it (and on :func:`robot`) in this module."""
    return mujoco.MjModel.from_xml_path(str(g1.scene_path("flat")))


@pytest.fixture(scope="module")
def robot() -> RobotModel:
    return RobotModel.from_mjcf(g1_mjcf_path())


@pytest.fixture(scope="module")
def urdf_joints() -> list[ET.Element]:
    """The URDF's moving joints, in the file's order (which is the depth-first order here)."""
    root = ET.parse(g1_urdf_path()).getroot()
    return [j for j in root.findall("joint") if j.get("type") != "fixed"]


# -- the file and its cache ----------------------------------------------------------------


def test_the_file_is_cached_and_rebuilt_when_missing(g1_cache):
    path = g1_mjcf_path()
    assert path.parent == g1_cache and path.name.startswith("g1_29dof_")
    stamp = path.stat().st_mtime_ns
    assert g1_mjcf_path() == path and path.stat().st_mtime_ns == stamp  # not rebuilt
    assert g1_mjcf_path(visual_meshes=False) != path
    path.unlink()
    assert g1_mjcf_path() == path and path.is_file()


def test_parallel_builds_leave_one_complete_file(tmp_path, monkeypatch):
    monkeypatch.setenv("HUMANOID_WBC_CACHE", str(tmp_path))
    paths, errors = [], []

    def build():
        try:
            paths.append(g1_mjcf_path(visual_meshes=False))
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(set(paths)) == 1
    assert [p.name for p in tmp_path.iterdir()] == [paths[0].name]  # no temporary file left
    assert mujoco.MjModel.from_xml_path(str(paths[0])).nu == 29


def test_without_the_package_the_error_names_the_extra(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(g1_model.metadata, "distribution", missing)
    with pytest.raises(G1ModelUnavailable, match=r'pip install -e "\.\[g1\]"'):
        g1_mjcf_path()


def test_only_feet_and_hands_collide(mj_model):
    colliding = {
        mj_model.geom(g).name
        for g in range(mj_model.ngeom)
        if mj_model.geom_contype[g] or mj_model.geom_conaffinity[g]
    }
    assert colliding == {"floor", "left_foot", "right_foot", "left_hand", "right_hand"}
    assert mj_model.geom("left_foot").size.tolist() == pytest.approx(
        [G1_FOOT_BOX["half_length"], G1_FOOT_BOX["half_width"], G1_FOOT_BOX["half_height"]]
    )


def test_foot_box_is_the_ankle_mesh_bounding_box():
    """The box's footprint and sole height are the ankle roll link mesh's extent (to 0.1 mm)."""
    model = mujoco.MjModel.from_xml_path(str(g1_mjcf_path()))
    for side in SIDES:
        mesh = model.mesh(f"{side}_ankle_roll_link")
        vertices = model.mesh_vert[mesh.vertadr[0] : mesh.vertadr[0] + mesh.vertnum[0]]
        # NOTE: MuJoCo stores mesh vertices about the mesh's own frame; the geom carries the offset.
        geom = next(g for g in range(model.ngeom) if model.geom_dataid[g] == mesh.id)
        rotation = np.empty(9)
        mujoco.mju_quat2Mat(rotation, model.geom_quat[geom])
        points = vertices @ rotation.reshape(3, 3).T + model.geom_pos[geom]
        low, high = points.min(axis=0), points.max(axis=0)
        assert (high[0] + low[0]) / 2 == pytest.approx(G1_FOOT_BOX["centre_x"], abs=1e-4)
        assert (high[0] - low[0]) / 2 == pytest.approx(G1_FOOT_BOX["half_length"], abs=1e-4)
        assert max(high[1], -low[1]) == pytest.approx(G1_FOOT_BOX["half_width"], abs=1e-4)
        assert low[2] == pytest.approx(G1_FOOT_BOX["sole_z"], abs=1e-4)


# -- the model against the URDF ------------------------------------------------------------


def test_29_joints_in_the_urdf_order_with_its_ranges_and_effort_limits(robot, mj_model, urdf_joints):
    assert robot.joint_names == tuple(j.get("name") for j in urdf_joints)
    assert robot.na == 29 and mj_model.nu == 29
    limits = [j.find("limit") for j in urdf_joints]
    effort = np.array([float(lim.get("effort")) for lim in limits])
    lower = np.array([float(lim.get("lower")) for lim in limits])
    upper = np.array([float(lim.get("upper")) for lim in limits])
    assert np.array_equal(robot.torque_max, effort) and np.array_equal(robot.torque_min, -effort)
    assert np.allclose(robot.model.lowerPositionLimit[7:], lower, rtol=URDF_REL_TOL, atol=0)
    assert np.allclose(robot.model.upperPositionLimit[7:], upper, rtol=URDF_REL_TOL, atol=0)
    bridge = SimBridge(mj_model, robot.joint_names)
    assert np.array_equal(bridge.gear, np.ones(29)) and np.array_equal(bridge.torque_max, effort)
    ranges = np.array([mj_model.joint(name).range for name in robot.joint_names])
    assert np.array_equal(ranges[:, 0], robot.model.lowerPositionLimit[7:])  # the same file, the same numbers
    assert np.array_equal(ranges[:, 1], robot.model.upperPositionLimit[7:])


def test_total_mass_is_the_urdfs(robot, mj_model):
    urdf_mass = sum(float(m.get("value")) for m in ET.parse(g1_urdf_path()).getroot().iter("mass"))
    assert robot.mass == pytest.approx(urdf_mass, abs=MASS_TOL)
    assert float(mj_model.body_mass.sum()) == pytest.approx(urdf_mass, abs=MASS_TOL)
    assert 33.0 < robot.mass < 34.0


@pytest.mark.parametrize("seed", range(3))
def test_kinematics_and_inertia_match_pinocchios_urdf_model(robot, seed):
    """Pinocchio's own URDF parser gives the same robot: fused links, transforms and inertias
    were converted right (the mass matrix less the armature, which the URDF lacks)."""
    reference = pin.buildModelFromUrdf(str(g1_urdf_path()), pin.JointModelFreeFlyer())
    rng = np.random.default_rng(seed)
    q = pin.randomConfiguration(robot.model)
    q[:3] = rng.normal(size=3)
    q_ref = pin.neutral(reference)
    q_ref[:7] = q[:7]
    columns = [0, 1, 2, 3, 4, 5]
    for k, name in enumerate(robot.joint_names):
        joint = reference.joints[reference.getJointId(name)]
        q_ref[joint.idx_q] = q[7 + k]
        columns.append(joint.idx_v)
    data_ref = reference.createData()
    M_ref = pin.crba(reference, data_ref, q_ref)
    M_ref = np.triu(M_ref) + np.triu(M_ref, 1).T
    robot.update(q, np.zeros(robot.nv))
    M = robot.M - np.diag(robot.model.armature)
    assert relative_error(M, M_ref[np.ix_(columns, columns)]) < URDF_REL_TOL
    assert np.allclose(
        robot.com, pin.centerOfMass(reference, data_ref, q_ref), rtol=0, atol=URDF_POSITION_TOL
    )
    pin.framesForwardKinematics(reference, data_ref, q_ref)
    for frame in ("left_ankle_roll_link", "right_wrist_yaw_link", "torso_link", "imu_in_torso", "d435_link"):
        placement = data_ref.oMf[reference.getFrameId(frame)]
        ours = robot.frame_placement(frame)
        assert np.allclose(ours.translation, placement.translation, rtol=0, atol=URDF_POSITION_TOL), frame
        assert np.allclose(ours.rotation, placement.rotation, rtol=0, atol=URDF_ROTATION_TOL), frame


# -- MuJoCo against pinocchio on the built file (as tests/test_model_consistency.py) --------


@pytest.mark.parametrize("seed", [None, 0, 1, 2, 3, 4])
def test_mass_matrix_and_bias_forces_agree_with_mujoco(mj_model, mj_data, robot, bridge, seed):
    if seed is not None:  # None: the home keyframe at rest
        random_state(mj_model, mj_data, np.random.default_rng(seed))
    M_error, h_error = mass_matrix_and_bias_errors(mj_model, mj_data, robot, bridge)
    assert M_error < REL_TOL and h_error < REL_TOL


def test_armature_and_damping_are_in_both_models(mj_model, robot):
    assert np.array_equal(robot.model.armature[6:], mj_model.dof_armature[6:])  # the same numbers read
    assert np.array_equal(robot.damping[6:], mj_model.dof_damping[6:])
    assert 0.003 < robot.model.armature[6:].min() and robot.model.armature[6:].max() < 0.03


@pytest.mark.parametrize("seed", [None, 0, 1, 2])
def test_com_and_com_jacobian_agree(mj_model, mj_data, robot, bridge, seed):
    if seed is not None:
        random_state(mj_model, mj_data, np.random.default_rng(seed))
    position, velocity = com_errors(mj_model, mj_data, robot, bridge, "pelvis")
    assert position < PLACEMENT_TOL and velocity < REL_TOL


@pytest.mark.parametrize("site", SITES)
@pytest.mark.parametrize("seed", [None, 7])
def test_site_jacobians_agree(mj_model, mj_data, robot, bridge, site, seed):
    if seed is not None:
        random_state(mj_model, mj_data, np.random.default_rng(seed))
    linear, angular, position, rotation = site_errors(mj_model, mj_data, robot, bridge, site)
    assert linear < REL_TOL and angular < REL_TOL
    assert position < PLACEMENT_TOL and rotation < PLACEMENT_TOL


# -- the home posture ----------------------------------------------------------------------


def test_home_keyframe_puts_both_soles_flat_on_the_ground(mj_model, mj_data):
    assert set(G1_HOME_JOINTS) == {mj_model.joint(j).name for j in range(1, mj_model.njnt)}
    for side in SIDES:
        sole = mj_data.site(f"{side}_sole")
        assert abs(sole.xpos[2]) < PLACEMENT_TOL
        assert np.allclose(sole.xmat.reshape(3, 3)[:, 2], [0, 0, 1], rtol=0, atol=PLACEMENT_TOL)  # level
    assert G1_HOME_JOINTS["left_knee_joint"] > 0.5  # knees bent


def test_home_com_is_over_the_feet_and_the_hands_clear_of_the_legs(mj_data, g1):
    left, right = mj_data.site("left_sole").xpos, mj_data.site("right_sole").xpos
    com = mj_data.subtree_com[0]
    centre = (left + right) / 2
    assert abs(com[0] - centre[0]) < 0.3 * g1.cop_half_sizes()[0]  # well inside the CoP bounds
    assert abs(com[1] - centre[1]) < 1e-3
    for side, sign in zip(SIDES, (1, -1), strict=True):
        hand = mj_data.site(f"{side}_hand").xpos
        assert sign * hand[1] > 0.2  # 20 cm out from the midline, the hips are at 0.12


# -- standing ------------------------------------------------------------------------------

#: [s] simulated; the targets are checked on the mean over the second half.
STAND_S = 20.0
GRAVITY = 9.81


def _vertical_ground_force(model, data) -> float:
    """Sum of MuJoCo's contact forces projected on world z [N]."""
    total, wrench = 0.0, np.zeros(6)
    for i in range(data.ncon):
        mujoco.mj_contactForce(model, data, i, wrench)
        total += float(data.contact[i].frame.reshape(3, 3)[:, 2] @ wrench[:3])
    return total


def test_nominal_controller_holds_the_g1_standing_for_20_seconds(mj_model, mj_data, g1):
    """Issue 17's targets: CoM within 2 mm of its reference, ground force = m g within 1 %.

    Measured: CoM error 0.24 mm (the soles sinking into MuJoCo's soft contact), force error
    below 1e-5 (8x and 1000x margins).
    """
    robot = RobotModel.from_mjcf(g1_mjcf_path())
    bridge = SimBridge(mj_model, robot.joint_names)
    robot.update(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    config = g1.controller_config()
    assert (config.backend, config.qp_solver) == ("compiled", "eiquadprog")
    # the CoP rectangle: 85 % of the sole box the builder made
    assert config.contacts[0].half_length == pytest.approx(0.85 * G1_FOOT_BOX["half_length"], abs=1e-9)
    assert config.contacts[0].half_width == pytest.approx(0.85 * G1_FOOT_BOX["half_width"], abs=1e-9)
    controller = WholeBodyController(robot, config)
    reference = robot.com.copy()
    weight = robot.mass * GRAVITY
    com_errors, force_errors = [], []
    for k in range(int(round(STAND_S / mj_model.opt.timestep))):
        try:
            tau = controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)).tau
        except QPSolveError as err:  # pragma: no cover - a failure is the finding
            pytest.fail(f"QP failed at step {k}: {err}")
        bridge.torques_to_ctrl(tau, mj_data.ctrl)
        mujoco.mj_step(mj_model, mj_data)
        if (k + 1) * mj_model.opt.timestep > STAND_S / 2 and k % 10 == 0:
            com_errors.append(np.linalg.norm(robot.com - reference))
            force_errors.append(_vertical_ground_force(mj_model, mj_data) / weight - 1.0)
    assert np.mean(com_errors) < 2e-3  # [m]
    assert abs(np.mean(force_errors)) < 0.01
    assert max(com_errors) < 2e-3 and max(np.abs(force_errors)) < 0.01  # at every sample, too
