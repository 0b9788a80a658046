"""Plant mismatch (humanoid_env.envs.randomisation): off by default, drawn inside its ranges on the
simulated robot only, reproducible from the seed, and never touching the controller's model."""

from __future__ import annotations

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the environments)
from humanoid_env.envs.randomisation import PRESETS

MODEL_FIELDS = ("body_mass", "body_inertia", "body_ipos", "dof_damping", "dof_armature", "geom_friction", "actuator_gear")


def _model_values(env) -> dict[str, np.ndarray]:
    return {name: getattr(env.unwrapped.model, name).copy() for name in MODEL_FIELDS}


def test_off_by_default_the_model_is_the_scene_files():
    env = gym.make("HumanoidWBC-v0")
    _, info = env.reset(seed=0)
    fresh = mujoco.MjModel.from_xml_path(str(env.unwrapped.plant.scene_xml))
    assert env.unwrapped.plant.randomiser is None and "randomisation" not in info
    for name, value in _model_values(env).items():
        assert np.array_equal(value, getattr(fresh, name)), name


def test_moderate_draws_stay_in_range_on_the_robot_only():
    env = gym.make("HumanoidWBC-v0", randomise="moderate")
    nominal = _model_values(env)
    _, info = env.reset(seed=3)
    u, ranges = env.unwrapped, PRESETS["moderate"]
    links, drawn, m = u.plant.randomiser.links, info["randomisation"], u.model
    scale = m.body_mass[links] / nominal["body_mass"][links]
    assert np.all((scale >= 0.9 - 1e-12) & (scale <= 1.1 + 1e-12)) and np.allclose(scale, drawn["link_mass_scale"])
    others = np.setdiff1d(np.arange(m.nbody), links)  # the world and the scene's bodies
    assert np.array_equal(m.body_mass[others], nominal["body_mass"][others])
    assert np.abs(m.body_ipos[links] - nominal["body_ipos"][links]).max() <= ranges.link_com_offset_m
    assert 0.6 <= drawn["contact_friction"] <= 1.0 and np.all(m.geom_friction[:, 0] == drawn["contact_friction"])
    strength = m.actuator_gear[u.bridge.actuator_ids, 0] / nominal["actuator_gear"][u.bridge.actuator_ids, 0]
    assert np.allclose(strength, drawn["actuator_strength_scale"]) and np.all((strength >= 0.9 - 1e-12) & (strength <= 1.1 + 1e-12))
    # The controller keeps the nominal model: its mass is the scene file's robot mass.
    assert u.actuation.robot.mass == pytest.approx(nominal["body_mass"][links].sum(), abs=1e-9)
    assert m.body_subtreemass[u.plant.root_body] == pytest.approx(m.body_mass[links].sum())  # mj_setConst ran


def test_same_seed_same_draws_and_trajectory_other_seed_other_draws():
    def rollout(seed):
        env = gym.make("HumanoidWBC-v0", randomise="hard")
        _, info = env.reset(seed=seed)
        for _ in range(20):
            env.step(np.zeros(4))
        return info["randomisation"]["link_mass_scale"], env.unwrapped.data.qpos.copy()

    (draw_a, qpos_a), (draw_b, qpos_b), (draw_c, _) = rollout(5), rollout(5), rollout(6)
    assert np.array_equal(draw_a, draw_b) and np.array_equal(qpos_a, qpos_b)
    assert not np.allclose(draw_a, draw_c)


def test_draws_start_from_the_nominal_model_each_reset():
    """Two resets with the same seed give the same model: the second draw does not compound."""
    env = gym.make("HumanoidWBC-v0", randomise="hard")
    env.reset(seed=9)
    first = _model_values(env)
    env.reset(seed=9)
    for name, value in _model_values(env).items():
        assert np.array_equal(value, first[name]), name


def test_actuator_strength_scales_the_torque_the_joints_get():
    """Strength 0.5: MuJoCo applies half of the controller's torque (to rounding, 1e-9 N m)."""
    env = gym.make("HumanoidWBC-v0", randomise={"actuator_strength_scale": (0.5, 0.5)}, push_magnitude_n=(0.0, 0.0))
    env.reset(seed=0)
    env.step(np.zeros(4))
    u = env.unwrapped
    applied = u.data.qfrc_actuator[u.bridge.joint_dof]
    assert np.abs(applied - 0.5 * u.last_tau).max() < 1e-9


@pytest.mark.parametrize(
    "value, message",
    [("extreme", "one of"), ({"mass": (0.9, 1.1)}, "unknown range"), ({"link_mass_scale": (1.2, 0.8)}, "link_mass_scale"),
     ({"link_com_offset_m": -0.01}, "link_com_offset_m")],
)
def test_bad_randomise_values_are_named(value, message):
    with pytest.raises(ValueError, match=message):
        gym.make("HumanoidWBC-v0", randomise=value)
