"""HumanoidWBCSeesaw-v0: the scene (faithful rolling, parameters from the MJCF), API checks,
determinism, rewards, the controller's model of the board."""

from __future__ import annotations

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import humanoid_env  # noqa: F401
from humanoid_env.envs.seesaw import SEESAW_DEFAULTS, LateralPushSchedule, SeesawParameters
from humanoid_env.robots.scene_constants import SEESAW_SCENE_XML

NO_PUSH = {"push_magnitude_n": (0.0, 0.0)}
MODELS = ["coupled", "rigid"]


def make(**kwargs) -> gym.Env:
    kwargs.setdefault("seesaw_model", MODELS[0])
    return gym.make("HumanoidWBCSeesaw-v0", **kwargs)


def contact_point_velocity(model, data, params: SeesawParameters) -> np.ndarray:
    """(3,) world velocity of the board's material point touching the ground (under the centre
    of curvature) [m/s]."""
    body = model.body("seesaw").id
    point = data.xpos[body].copy()
    point[2] -= params.radius
    jac = np.zeros((3, model.nv))
    mujoco.mj_jac(model, data, jac, None, point, body)
    return jac @ data.qvel


# -- the scene -------------------------------------------------------------------------------
def test_scene_parameters_come_from_the_mjcf_and_the_robot_starts_on_the_level_board():
    model = mujoco.MjModel.from_xml_path(str(SEESAW_SCENE_XML))
    p = SeesawParameters.from_model(model)
    assert p.mass == pytest.approx(4.0) and p.radius == pytest.approx(0.25)
    assert p.com[2] < -0.05  # CoM below the centre of curvature: the empty board is stable
    np.testing.assert_allclose(p.inertia, np.diag([0.1647993, 0.0950077, 0.1764583]), atol=1e-9)
    np.testing.assert_allclose(p.origin, [0.03, 0.0, p.radius])
    assert p.tilt_limit == pytest.approx(np.arcsin(p.radius / 0.3), abs=1e-3)  # the edge meets the ground
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("home").id)
    mujoco.mj_forward(model, data)
    board_top = model.geom("seesaw_board")
    top_z = data.geom_xpos[board_top.id][2] + board_top.size[2]
    soles = np.array([data.site(f"{s}_sole").xpos for s in ("left", "right")])
    np.testing.assert_allclose(soles[:, 2], top_z, atol=1e-4)  # feet on the board top
    assert soles[:, 1].sum() == pytest.approx(0.0) and soles[:, 0].mean() == pytest.approx(p.origin[0])  # symmetric
    assert data.qpos[model.joint("seesaw_tilt").qposadr[0]] == 0.0


def test_free_board_rolls_without_slipping():
    """No robot on it (moved aside): released at 0.3 rad, the board rocks (its CoM is below the
    centre of curvature); the ground contact point has zero velocity (tolerance 0.1 mm/s, with
    tilt rates up to 0.7 rad/s) and the slide follows y = -R theta to 1e-5 m."""
    model = mujoco.MjModel.from_xml_path(str(SEESAW_SCENE_XML))
    data = mujoco.MjData(model)
    p = SeesawParameters.from_model(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("home").id)
    data.qpos[0], data.qpos[2] = 3.0, 0.685  # the robot stands on the floor beside it
    tilt, slide = model.joint("seesaw_tilt").qposadr[0], model.joint("seesaw_y").qposadr[0]
    data.qpos[tilt], data.qpos[slide] = 0.3, -p.radius * 0.3
    mujoco.mj_forward(model, data)
    angles, speeds, residuals = [], [], []
    for _ in range(1000):  # 2 s
        mujoco.mj_step(model, data)
        angles.append(data.qpos[tilt])
        speeds.append(np.linalg.norm(contact_point_velocity(model, data, p)))
        residuals.append(data.qpos[slide] + p.radius * data.qpos[tilt])
    rate = np.abs(np.diff(angles)) / model.opt.timestep
    assert min(angles) < -0.15 and rate.max() > 0.5  # it rocked through level
    assert max(speeds) < 1e-4
    assert np.max(np.abs(residuals)) < 1e-5


def test_loaded_board_rolls_without_slipping():
    """The robot on it (rigid model: the board rocks harder and harder until the robot falls,
    ~8.5 s; ~2 s without the controller's contact damping): the contact point stays below 1 mm/s
    while the board turns at up to 2 rad/s, residual < 0.1 mm."""
    env = make(seesaw_model="rigid", **NO_PUSH)
    env.reset(seed=1)
    u = env.unwrapped
    speeds, rates, residuals = [], [], []
    for _ in range(600):
        _, _, terminated, _, _ = env.step(np.zeros(4))
        speeds.append(np.linalg.norm(contact_point_velocity(u.model, u.data, u.task.seesaw)))
        rates.append(abs(u.task.board_rate()))
        residuals.append(abs(u.task.board_rolling_error()))
        if terminated:
            break
    assert max(rates) > 1.0
    assert max(speeds) < 1e-3 and max(residuals) < 1e-4
    env.close()


# -- the env API -----------------------------------------------------------------------------
@pytest.mark.parametrize("mode, size", [("wbc", 4), ("torque", 23), ("pd", 23)])
def test_spaces_and_observation_layout(mode, size):
    env = make(action_mode=mode)
    assert env.spec.max_episode_steps == 1500
    structure = env.unwrapped.observation_structure
    assert env.action_space.shape == (size,)
    assert sum(structure.values()) == env.observation_space.shape[0] == (77 if mode == "wbc" else 96)
    assert list(structure)[-1] == "board" and structure["board"] == 2
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape
    np.testing.assert_allclose(obs[-2:], [info["board_angle_rad"], info["board_rate_radps"]], atol=1e-6)
    env.close()


def test_reward_is_exact_sum_of_terms_and_info_keys():
    env = make()
    env.reset(seed=0)
    for action in (np.zeros(4), np.array([0.5, -0.5, 0.2, 0.1]), np.full(4, 3.0)):
        _, reward, _, _, info = env.step(action)
        terms = {k: v for k, v in info.items() if k.startswith("reward_")}
        assert {"reward_board_level", "reward_com_tracking", "reward_upright", "reward_alive"} <= set(terms)
        total = 0.0
        for value in terms.values():
            total += value
        assert reward == total
        for key in ("com", "com_ref", "contact_forces", "contact_force_targets", "wbc_status",
                    "board_angle_rad", "board_rate_radps", "board_acceleration_pred", "board_rolling_error_m",
                    "pushes_total", "pushes_survived", "wbc_fallbacks"):
            assert key in info
        assert set(info["contact_forces"]) == {"left_foot", "right_foot"}
        expected = np.exp(-((info["board_angle_rad"] / 0.05) ** 2))
        assert info["reward_board_level"] == pytest.approx(expected)
    env.close()


def test_feet_forces_are_measured_on_the_board():
    env = make(**NO_PUSH)
    env.reset(seed=0)
    for _ in range(10):  # past the landing
        _, _, _, _, info = env.step(np.zeros(4))
    u = env.unwrapped
    board = u.model.geom("seesaw_board").id
    touching = {int(c.geom1) for c in u.data.contact[: u.data.ncon]} | {int(c.geom2) for c in u.data.contact[: u.data.ncon]}
    assert board in touching and u.model.geom("floor").id not in touching  # only the board under the feet
    total = info["contact_forces"]["left_foot"][2] + info["contact_forces"]["right_foot"][2]
    assert total == pytest.approx(u.weight_n, rel=0.05)
    env.close()


def test_pushes_are_lateral_with_both_signs():
    env = make(seesaw_model="rigid")
    pushes = env.unwrapped.plant.pushes
    assert isinstance(pushes, LateralPushSchedule)
    rng = np.random.default_rng(0)
    pushes.reset(rng, 0.0)
    forces = [pushes.update(rng, t) for t in np.arange(0.0, 60.0, 0.01)]
    forces = np.array([f for f in forces if np.linalg.norm(f) > 0])
    np.testing.assert_array_equal(forces[:, [0, 2]], 0.0)
    low, high = SEESAW_DEFAULTS["push_magnitude_n"]
    assert np.all((np.abs(forces[:, 1]) >= low) & (np.abs(forces[:, 1]) <= high))
    assert (forces[:, 1] > 0).any() and (forces[:, 1] < 0).any()
    fixed = make(seesaw_model="rigid", push_direction_deg=0.0).unwrapped.plant.pushes
    assert not isinstance(fixed, LateralPushSchedule)  # a given direction is used as given
    env.close()


def test_coupled_controller_models_the_board_from_the_mjcf():
    env = make(seesaw_model="coupled", **NO_PUSH)
    _, info = env.reset(seed=0)
    u = env.unwrapped
    board = u.controller.bodies["seesaw"]
    p = u.task.seesaw
    assert board.mass == p.mass and board.radius == p.radius
    np.testing.assert_array_equal(board.com, p.com)
    np.testing.assert_array_equal(board.origin, p.origin)
    assert all(u.controller.contact(f).on_body == "seesaw" for f in ("left_foot", "right_foot"))
    _, _, _, _, info = env.step(np.zeros(4))
    assert np.isfinite(info["board_acceleration_pred"]) and info["board_acceleration_pred"] != 0.0
    rigid = make(seesaw_model="rigid", **NO_PUSH)
    rigid.reset(seed=0)
    assert not rigid.unwrapped.controller.bodies
    assert all(rigid.unwrapped.controller.contact(f).on_body is None for f in ("left_foot", "right_foot"))
    _, _, _, _, info = rigid.step(np.zeros(4))
    assert info["board_acceleration_pred"] == 0.0  # no prediction
    env.close()
    rigid.close()


def test_policy_offset_enters_the_board_law_as_a_position_only():
    """With a fixed task target, a lateral offset action moves the WBC's CoM reference (through
    the 0.1 s low-pass) but feeds no velocity or acceleration forward into the board-tilt law:
    those jump at every env step (see board_balance_target)."""
    env = make(**NO_PUSH, com_target_range_m=(0, 0, 0))
    env.reset(seed=0)
    u = env.unwrapped
    assert u.config["com_offset_filter_s"] == 0.1
    env.step(np.array([0.0, 0.5, 0.0, 0.0]))
    assert u.task.standing.com_offset[1] > 1e-3 and u.task.standing.com_offset_velocity[1] > 0.0  # the reference moves
    assert u.task.board_shaper.reference_velocity == 0.0 and u.task.board_shaper.reference_acceleration == 0.0
    env.close()


def test_board_tilt_action_offsets_the_law_through_the_low_pass():
    """``board_tilt_action_rad`` = 0.05 adds a fifth action: ``a[4] = 1`` asks for +0.05 rad on
    the law's target, reached through the 0.1 s low-pass, updated at every 2 ms physics step
    (after one 20 ms env step: 1 - 0.98^10 = 18.3 % of it)."""
    env = make(**NO_PUSH, board_tilt_action_rad=0.05)
    assert env.action_space.shape == (5,) and make().action_space.shape == (4,)
    env.reset(seed=0)
    u = env.unwrapped
    env.step(np.array([0.0, 0.0, 0.0, 0.0, 1.0]))
    share = 1.0 - (1.0 - u.dt_physics / 0.1) ** u.frame_skip
    assert u.task.board_shaper.offset == pytest.approx(0.05 * share, abs=1e-12)
    for _ in range(25):  # 0.5 s = 5 time constants: within 1 % of the goal
        env.step(np.array([0.0, 0.0, 0.0, 0.0, 1.0]))
    assert u.task.board_shaper.offset == pytest.approx(0.05, rel=0.01)
    env.close()


def test_zero_board_action_is_the_nominal_controller():
    # Same seed, a push inside the 1 s: the 5-action env with zero action follows the 4-action one
    # to 1e-9 rad (the board angle) at every step.
    pushes = {"push_magnitude_n": (60.0, 60.0), "push_interval_s": (0.2, 0.3)}
    four, five = make(**pushes), make(**pushes, board_tilt_action_rad=0.05)
    four.reset(seed=4)
    five.reset(seed=4)
    for _ in range(50):
        _, _, _, _, a = four.step(np.zeros(4))
        _, _, _, _, b = five.step(np.zeros(5))
        assert b["board_angle_rad"] == pytest.approx(a["board_angle_rad"], abs=1e-9)
    assert a["pushes_total"] >= 1
    four.close()
    five.close()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"board_tilt_action_rad": -0.1}, "board_tilt_action_rad"),
        ({"board_tilt_action_rad": 0.05, "seesaw_model": "rigid"}, "needs seesaw_model='coupled'"),
        ({"seesaw_modle": "rigid"}, "unknown keyword"),
        ({"seesaw_model": "soft"}, "seesaw_model"),
        ({"max_board_tilt_rad": 0.0}, "max_board_tilt_rad"),
        ({"board_level_sigma_rad": -1.0}, "board_level_sigma_rad"),
        ({"push_lateral": "yes"}, "push_lateral"),
    ],
)
def test_bad_keywords_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        gym.make("HumanoidWBCSeesaw-v0", **kwargs)
