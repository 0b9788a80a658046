"""The seesaw model (wbc_layer.SeesawBody) against MuJoCo: kinematics and dynamics.

A stand-alone board in MuJoCo, modelled as the design prescribes (a slide joint along y coupled
to the tilt hinge by ``y = -R theta``, a near-hard equality), is given random states and random
external wrenches; the model's tilt acceleration must equal MuJoCo's.
"""

from __future__ import annotations

import dataclasses

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from wbc_layer import ConfigError, SeesawBody

RADIUS, MASS = 0.25, 4.0
COM = np.array([0.01, 0.02, -0.08])  # below the centre of curvature: statically stable
INERTIA = np.diag([0.12, 0.05, 0.15])

BOARD_XML = f"""
<mujoco>
  <option timestep="0.002" integrator="implicitfast"/>
  <worldbody>
    <body name="board" pos="0.1 0.0 {RADIUS}">
      <joint name="slide" type="slide" axis="0 1 0"/>
      <joint name="tilt" type="hinge" axis="1 0 0"/>
      <inertial pos="{COM[0]} {COM[1]} {COM[2]}" mass="{MASS}" fullinertia="0.12 0.05 0.15 0 0 0"/>
      <geom type="box" size="0.2 0.3 0.01" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <equality>
    <joint joint1="slide" joint2="tilt" polycoef="0 {-RADIUS} 0 0 0" solref="0.004 1" solimp="0.9999 0.9999 0.001"/>
  </equality>
</mujoco>
"""

#: Against MuJoCo's own mass matrix and forces with the rolling constraint made hard (a KKT
#: solve): the same equations, so only rounding differs [rad/s^2].
HARD_TOL = 1e-9
#: Against MuJoCo's simulated acceleration, relative: its equality constraint is soft (its
#: regulariser R was 0.3 % of the constraint's inverse inertia here), so it yields that much.
SOFT_REL_TOL = 5e-3


@pytest.fixture(scope="module")
def board_model():
    return mujoco.MjModel.from_xml_string(BOARD_XML)


def _seesaw() -> SeesawBody:
    return SeesawBody("seesaw", MASS, COM, INERTIA, RADIUS, origin=(0.1, 0.0, RADIUS))


@pytest.mark.parametrize("seed", range(6))
def test_tilt_acceleration_matches_mujoco_under_random_wrenches(board_model, seed):
    rng = np.random.default_rng(seed)
    data = mujoco.MjData(board_model)
    theta, theta_dot = rng.uniform(-0.4, 0.4), rng.uniform(-2.0, 2.0)
    data.qpos[:] = [-RADIUS * theta, theta]
    data.qvel[:] = [-RADIUS * theta_dot, theta_dot]
    force, torque = rng.normal(0, 20, 3), rng.normal(0, 3, 3)
    data.xfrc_applied[1] = np.concatenate([force, torque])  # at the body's CoM, world axes
    mujoco.mj_forward(board_model, data)

    board = _seesaw()
    board.update([theta], [theta_dot])
    com_world = board.centre + board.rotation @ COM
    assert np.allclose(com_world, data.xipos[1], atol=1e-12)
    # Generalized force of the wrench: the CoM's velocity Jacobian and the tilt axis.
    jacobian = board.frame_jacobian(pin.SE3(np.eye(3), com_world))[:, 0]
    generalized = jacobian[:3] @ force + jacobian[3:] @ torque
    predicted = (generalized - board.bias[0]) / board.mass_matrix[0, 0]

    M = np.zeros((2, 2))
    mujoco.mj_fullM(board_model, data, M)
    rolling = np.array([[1.0, RADIUS]])  # d/dt (slide + R tilt) = 0
    kkt = np.block([[M, rolling.T], [rolling, np.zeros((1, 1))]])
    hard = np.linalg.solve(kkt, np.concatenate([data.qfrc_smooth, [0.0]]))
    assert predicted == pytest.approx(hard[1], abs=HARD_TOL)
    assert predicted == pytest.approx(data.qacc[1], rel=SOFT_REL_TOL)


def test_ground_contact_point_does_not_move():
    """Rolling without slipping: the board's material point touching the ground is still."""
    board = _seesaw()
    board.update([0.3], [1.5])
    contact_point = np.array([0.1, board.centre[1], 0.0])  # straight below the centre of curvature
    assert np.allclose(board.point_velocity(contact_point), 0.0, atol=1e-12)
    top = board.centre + board.rotation @ np.array([0.0, 0.2, 0.05])
    assert np.linalg.norm(board.point_velocity(top)) > 0.1  # other points do move


def test_frame_drift_matches_finite_differences():
    """The spatial acceleration at qdd = 0 of a frame fixed on the board, by finite differences
    of its body twist along the free motion (theta_ddot = 0) [m/s^2, rad/s^2]."""
    board = _seesaw()
    theta, rate, dt = 0.2, 1.3, 1e-6
    rotation = pin.rpy.rpyToMatrix(0.1, -0.2, 0.3)

    def frame_at(angle):
        board.update([angle], [rate])
        point = board.centre + board.rotation @ np.array([0.05, 0.15, 0.02])
        return pin.SE3(board.rotation @ rotation, point)

    placement = frame_at(theta)
    drift = board.frame_drift(placement)
    twist = board.frame_jacobian(placement)[:, 0] * rate
    later = frame_at(theta + rate * dt)
    twist_later = board.frame_jacobian(later)[:, 0] * rate
    assert np.allclose((twist_later - twist) / dt, drift, atol=1e-5)


def test_invalid_parameters_are_rejected():
    with pytest.raises(ConfigError, match="mass > 0, radius > 0"):
        SeesawBody("s", -1.0, COM, INERTIA, RADIUS, origin=(0, 0, RADIUS))


def _feet_on(body_name: str):
    from humanoid_env.robots.hubo_lite import HUBO_LITE

    return tuple(dataclasses.replace(c, on_body=body_name) for c in HUBO_LITE.foot_contacts())


def test_coupled_qp_satisfies_robot_and_board_equations(mj_data, robot, bridge, backend):
    """The robot standing on a (virtual) board under its soles: the QP's solution satisfies the
    robot's dynamics, the board's dynamics with the feet's reaction wrenches, and the feet move
    with the board's surface ..."""
    from humanoid_env.robots.hubo_lite import HUBO_LITE
    from wbc_layer import WholeBodyController
    from wbc_layer.contacts import contact_jacobians

    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    sole_z = robot.frame_placement("left_sole").translation[2]
    board = SeesawBody("seesaw", MASS, COM, INERTIA, RADIUS, origin=(0.03, 0.0, sole_z - 0.02))
    config = HUBO_LITE.controller_config(contacts=_feet_on("seesaw"), backend=backend)
    controller = WholeBodyController(robot, config, bodies=[board])
    controller.com_task.set_reference(robot.com + [0.0, 0.02, 0.0])
    result = controller.compute(q, v, body_states={"seesaw": (np.array([0.05]), np.array([0.3]))})
    theta_ddot = result.body_accelerations["seesaw"]
    assert theta_ddot.shape == (1,)

    Jc = contact_jacobians(robot, list(controller.contacts.values()), controller.layout)
    f = np.concatenate([result.contact_forces[name] for name in controller.contacts])
    robot_residual = robot.M @ result.qdd + robot.h - np.concatenate([np.zeros(6), result.tau]) - Jc.T @ f
    assert np.abs(robot_residual).max() < 1e-8  # [N, N m]

    board_generalized = board.mass_matrix @ theta_ddot + board.bias
    for name, contact in controller.contacts.items():
        placement = robot.frame_placement(contact.frame)
        J_board = board.frame_jacobian(placement)
        board_generalized += J_board.T @ result.contact_forces[name]
        foot = contact.jacobian(robot) @ result.qdd + contact.drift(robot)
        surface = J_board @ theta_ddot + board.frame_drift(placement)
        # ... braked at the contact damping while they slide on it (the board turns at 0.3 rad/s
        # under feet at rest: a relative velocity the rows damp)
        relative_velocity = contact.jacobian(robot) @ robot.v - J_board @ np.array([0.3])
        assert np.abs(relative_velocity).max() > 0.01
        expected = surface - config.contact_damping * relative_velocity
        assert np.allclose(foot, expected, atol=1e-7)  # [m/s^2, rad/s^2]
    assert np.abs(board_generalized).max() < 1e-7  # [N m]


def test_contact_on_an_unknown_body_is_rejected(robot):
    from humanoid_env.robots.hubo_lite import HUBO_LITE
    from wbc_layer import WholeBodyController

    with pytest.raises(ConfigError, match="unknown environment body 'seesaw'"):
        WholeBodyController(robot, HUBO_LITE.controller_config(contacts=_feet_on("seesaw")))


def test_compute_needs_the_body_state(mj_data, robot, bridge, backend):
    from humanoid_env.robots.hubo_lite import HUBO_LITE
    from wbc_layer import WholeBodyController

    board = SeesawBody("seesaw", MASS, COM, INERTIA, RADIUS, origin=(0.0, 0.0, 0.0))
    controller = WholeBodyController(robot, HUBO_LITE.controller_config(contacts=_feet_on("seesaw"), backend=backend), bodies=[board])
    with pytest.raises(ConfigError, match=r"needs body_states for the environment bodies \['seesaw'\]"):
        controller.compute(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))


#: The board model in the seesaw scene with the robot on it, against MuJoCo, relative: the
#: scene's rolling equality is soft (solimp 0.999 there): seen up to 1.7 % (3 samples).
SCENE_REL_TOL = 0.03


def test_board_model_matches_mujoco_with_the_robot_standing_on_it():
    """Random states of HumanoidWBCSeesaw-v0: MuJoCo's contact forces on the board, fed to the
    model's dynamics ``M_s theta_ddot + h_s = sum J^T F``, give MuJoCo's tilt acceleration."""
    import gymnasium as gym

    import humanoid_env  # noqa: F401  (registers the envs)

    env = gym.make("HumanoidWBCSeesaw-v0", push_magnitude_n=(0.0, 0.0), qp_solver="daqp").unwrapped
    model, data = env.model, env.data
    board_id = model.body("seesaw").id
    tilt_dof = model.jnt_dofadr[model.joint("seesaw_tilt").id]
    rng = np.random.default_rng(0)
    checked = 0
    for episode in range(3):
        env.reset(seed=episode)
        for _ in range(int(rng.integers(5, 40))):
            env.step(rng.uniform(-0.2, 0.2, 4))
        board = env.task.make_seesaw_body()
        board.update(*env.task.board_state(*env.pipeline.state(data)))
        generalized, wrench = 0.0, np.zeros(6)
        for i in range(data.ncon):
            contact = data.contact[i]
            bodies = {model.geom_bodyid[contact.geom1], model.geom_bodyid[contact.geom2]}
            if board_id not in bodies:
                continue
            mujoco.mj_contactForce(model, data, i, wrench)
            frame = contact.frame.reshape(3, 3)  # rows: normal (geom1 -> geom2), tangents
            force_on_geom2 = frame.T @ wrench[:3]
            force = force_on_geom2 if model.geom_bodyid[contact.geom2] == board_id else -force_on_geom2
            jacobian = board.frame_jacobian(pin.SE3(np.eye(3), contact.pos.copy()))[:3, 0]
            generalized += jacobian @ force
        predicted = (generalized - board.bias[0]) / board.mass_matrix[0, 0]
        assert predicted == pytest.approx(data.qacc[tilt_dof], rel=SCENE_REL_TOL, abs=0.05)  # [rad/s^2]
        checked += 1
    assert checked == 3
