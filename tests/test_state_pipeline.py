"""The state pipeline (humanoid_env.envs.state): sensor model, then estimator stages with declared needs.

Leg odometry is one stage (its physics has its own tests in test_leg_odometry.py); these check the
pipeline's own rules: the needs are checked when it is assembled, a stage corrects the estimate
before anything reads it, and its diagnostics reach ``info["estimate"]``.
"""

from __future__ import annotations

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the envs)
from humanoid_env.envs import state
from humanoid_env.envs.estimation import SensorModel, state_estimation
from humanoid_env.envs.odometry import LegOdometry
from humanoid_env.envs.state import EstimatorStageSpec, StatePipeline


class ConstantBias:
    """A test stage: subtracts a fixed base-velocity offset [m/s] (world x) from the estimate."""

    needs = ("clock",)

    def __init__(self, offset: float):
        self.offset, self.calls = offset, 0

    def reset(self) -> None:
        self.calls = 0

    def correct(self, kinematics: mujoco.MjData, qvel: np.ndarray) -> None:
        self.calls += 1
        qvel[0] -= self.offset

    def diagnostics(self) -> dict[str, np.ndarray]:
        return {"constant_bias_calls": np.array([self.calls])}


def _sensors(env):
    plant = env.plant
    b = plant.bridge
    return SensorModel(plant.model, b.root_qpos, b.root_dof, b.joint_qpos, b.joint_dof, state_estimation({"sensing_delay_steps": 0}))


def test_a_stage_whose_need_is_not_provided_is_refused_at_assembly(monkeypatch):
    env = gym.make("HumanoidWBC-v0", estimation="moderate").unwrapped
    spec = EstimatorStageSpec("constant_bias", ConstantBias.needs, lambda model, bridge, value, provided: ConstantBias(value))
    monkeypatch.setattr(state, "STAGES", (*state.STAGES, spec))
    with pytest.raises(ValueError, match=r"estimator stage constant_bias needs \['clock'\]; this env provides \['supporting_feet'\]"):
        StatePipeline.assemble(env.plant.model, env.plant.bridge, _sensors(env), {"constant_bias": 0.1}, {"supporting_feet": object()})
    pipeline = StatePipeline.assemble(env.plant.model, env.plant.bridge, _sensors(env), {"constant_bias": None}, {})
    assert pipeline.stages == []  # None: off


def test_stages_need_a_sensor_model():
    with pytest.raises(ValueError, match="need a sensor model"):
        StatePipeline(gym.make("HumanoidWBC-v0").unwrapped.plant.model, None, [ConstantBias(0.1)])


def test_a_stage_corrects_the_estimate_before_it_is_read_and_reports_its_diagnostics():
    """No delay, no noise: the estimate is the true state; the stage's -0.1 m/s shows in the
    state the controller gets and in the estimate's kinematics (the CoM velocity), once per
    physics step."""
    env = gym.make("HumanoidWBC-v0").unwrapped
    env.reset(seed=0)
    plant = env.plant
    stage = ConstantBias(0.1)
    pipeline = StatePipeline(plant.model, _sensors(env), [stage])
    pipeline.reset(np.random.default_rng(0), plant.data)
    qpos, qvel = pipeline.state(plant.data)
    dof = plant.bridge.root_dof
    assert qvel[dof] == pytest.approx(plant.data.qvel[dof] - 0.1, abs=1e-12)
    com_velocity = pipeline.sensed_com(plant.root_body, plant.data)[1]
    assert com_velocity[0] == pytest.approx(plant.com_velocity()[0] - 0.1, abs=0.02)  # the base's share of the CoM velocity
    calls = stage.calls
    pipeline.update(plant.data)  # the same time: nothing new
    assert stage.calls == calls
    mujoco.mj_step(plant.model, plant.data)
    pipeline.update(plant.data)
    assert stage.calls == calls + 1
    assert pipeline.diagnostics(plant.data)["constant_bias_calls"][0] == calls + 1


def test_leg_odometry_is_assembled_as_a_stage_of_the_env():
    env = gym.make("HumanoidWBC-v0", estimation="moderate", leg_odometry_s=1.0).unwrapped
    assert [type(s) for s in env.pipeline.stages] == [LegOdometry]
    assert gym.make("HumanoidWBC-v0", estimation="moderate").unwrapped.pipeline.stages == []
    assert gym.make("HumanoidWBC-v0").unwrapped.pipeline.exact
