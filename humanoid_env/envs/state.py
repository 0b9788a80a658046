"""The state pipeline: from the simulator's exact state to the state the controller and the policy see.

    simulator (MjData)  ->  sensor model  ->  estimator stages, in order  ->  (qpos, qvel)

- The **sensor model** ([`SensorModel`][humanoid_env.envs.estimation.SensorModel], the ``estimation``
  keyword) is the plant's side: the sensors' delay, white noise and drifting biases. None: the
  controller sees the exact state (and there is nothing to estimate).
- **Estimator stages** are the robot's software correcting what the sensors report, each with
  ``reset``, ``correct`` and ``diagnostics`` and the needs it declares (e.g. ``"supporting_feet"``:
  which feet stand now, which only a controller knows); the pipeline checks the needs once, when it
  is assembled. Leg odometry ([`humanoid_env.envs.odometry`][humanoid_env.envs.odometry]) is one; a Kalman
  filter could be another.

The result is a value, ``(qpos (nq,), qvel (nv,))`` in MuJoCo's layout, handed to the actuation;
the observation of the estimated state is computed on a copy of the simulator's data
([`observed`][humanoid_env.envs.state.StatePipeline.observed]); nothing swaps the simulator's data.

## Adding an estimator stage

Write a module with a class having ``needs`` (a tuple of names), ``reset()``,
``correct(kinematics, qvel)`` (``kinematics``: an MjData at the estimate's positions with
``mj_kinematics`` and ``mj_comPos`` done; ``qvel`` (nv,) corrected in place) and
``diagnostics() -> dict`` (merged into ``info["estimate"]``), and an
[`EstimatorStageSpec`][humanoid_env.envs.state.EstimatorStageSpec] naming its keyword; add the spec to
[`STAGES`][humanoid_env.envs.state.STAGES] and its keyword to ``SensingConfig``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import mujoco
import numpy as np

from humanoid_env.envs.estimation import SensorModel
from humanoid_env.envs.numerics import add_reduce, isfinite
from humanoid_env.envs.odometry import LegOdometry


class EstimatorStage(Protocol):
    """What the pipeline calls on a stage (see the module docstring)."""

    needs: tuple[str, ...]

    def reset(self) -> None: ...

    def correct(self, kinematics: mujoco.MjData, qvel: np.ndarray) -> None: ...

    def diagnostics(self) -> dict[str, np.ndarray]: ...


@dataclass(frozen=True)
class EstimatorStageSpec:
    """An estimator stage the env can assemble: the keyword that turns it on (its value None:
    off), the needs it declares, and ``build(model, bridge, value, provided) -> stage``."""

    keyword: str
    needs: tuple[str, ...]
    build: Callable[[mujoco.MjModel, Any, Any, Mapping[str, Any]], EstimatorStage]


def _leg_odometry(model: mujoco.MjModel, bridge, time_constant_s: float, provided: Mapping[str, Any]) -> LegOdometry:
    return LegOdometry(model, bridge.root_dof, time_constant_s, provided["supporting_feet"])


#: The estimator stages, in the order they run.
STAGES: tuple[EstimatorStageSpec, ...] = (EstimatorStageSpec("leg_odometry_s", LegOdometry.needs, _leg_odometry),)


class StatePipeline:
    """Sensor model, then estimator stages (see the module docstring).

    Args:
        model: the MuJoCo scene.
        sensors: the sensor model, or None (the exact state; then no stage may run).
        stages: the estimator stages, in order.
    """

    def __init__(self, model: mujoco.MjModel, sensors: SensorModel | None, stages: Sequence[EstimatorStage] = ()):
        if stages and sensors is None:
            raise ValueError("estimator stages need a sensor model (estimation not None): there is no estimate to correct")
        self.model = model
        self.sensors = sensors
        self.stages = list(stages)
        self._observed = mujoco.MjData(model) if sensors is not None else None
        self._kinematics_time: float | None = None

    @classmethod
    def assemble(
        cls, model: mujoco.MjModel, bridge, sensors: SensorModel | None, settings: Mapping[str, Any], provided: Mapping[str, Any]
    ) -> StatePipeline:
        """The pipeline with every stage of [`STAGES`][humanoid_env.envs.state.STAGES] whose keyword in
        ``settings`` is not None; ``provided``: need name -> what fills it. Raises ``ValueError``
        naming the stage and the missing need."""
        stages = []
        for spec in STAGES:
            value = settings.get(spec.keyword)
            if value is None:
                continue
            missing = [need for need in spec.needs if need not in provided]
            if missing:
                raise ValueError(f"estimator stage {spec.keyword} needs {missing}; this env provides {sorted(provided)}")
            stages.append(spec.build(model, bridge, value, provided))
        return cls(model, sensors, stages)

    @property
    def exact(self) -> bool:
        """Whether the controller sees the simulator's exact state."""
        return self.sensors is None

    # -- an episode -------------------------------------------------------------------------
    def reset(self, rng: np.random.Generator, data: mujoco.MjData) -> None:
        """Start an episode at ``data`` with the generator ``rng`` (the sensors' biases)."""
        if self.sensors is None:
            return
        for stage in self.stages:
            stage.reset()
        self.sensors.reset(rng, data)
        self._estimated()

    def restart(self, data: mujoco.MjData) -> None:
        """Estimate anew from ``data`` (the delay line refilled; biases and stages kept)."""
        if self.sensors is None:
            return
        self.sensors.restart(data)
        self._estimated()

    def _estimated(self) -> None:
        """After the sensor model made a new estimate: the stages correct it now."""
        self._kinematics_time = None
        if self.stages:
            self._compute_kinematics()

    def update(self, data: mujoco.MjData) -> None:
        """The estimate at ``data.time`` (nothing new at the same time)."""
        if self.sensors is not None and self.sensors.update(data):
            self._estimated()

    def state(self, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
        """``(qpos (nq,), qvel (nv,))`` the controller sees: the estimate's arrays, or ``data``'s own."""
        if self.sensors is None:
            return data.qpos, data.qvel
        return self.sensors.qpos, self.sensors.qvel

    def is_finite(self) -> bool:
        """Whether the estimate is finite (always with the exact state): one sum each."""
        s = self.sensors
        return s is None or (isfinite(add_reduce(s.qpos)) and isfinite(add_reduce(s.qvel)))

    # -- what reads the estimate ---------------------------------------------------------------
    def kinematics(self) -> mujoco.MjData:
        """An MjData at the estimate with positions, CoMs and velocities computed
        (``mj_kinematics``, ``mj_comPos``, ``mj_comVel``; no contacts); needs a sensor model."""
        if self._kinematics_time != self.sensors._time:
            self._compute_kinematics()
        return self.sensors.data

    def _compute_kinematics(self) -> None:
        """The estimate's kinematics; the stages correct the velocity in between (they need the
        positions; the CoM velocity needs the corrected velocity). Once per estimate."""
        s = self.sensors
        d = s.data
        d.qpos[:] = s.qpos
        mujoco.mj_kinematics(self.model, d)
        mujoco.mj_comPos(self.model, d)
        for stage in self.stages:
            stage.correct(d, s.qvel)
        d.qvel[:] = s.qvel
        mujoco.mj_comVel(self.model, d)
        self._kinematics_time = s._time

    def sensed_com(self, root_body: int, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
        """``(CoM (3,) [m], CoM velocity (3,) [m/s])``, world, as the controller sees them: of
        ``data`` (runs ``mj_subtreeVel`` on it) or of the estimate."""
        d = data if self.sensors is None else self.kinematics()
        mujoco.mj_subtreeVel(self.model, d)  # leaves subtree_com as it is
        return d.subtree_com[root_body].copy(), d.subtree_linvel[root_body].copy()

    def observed(self, data: mujoco.MjData) -> mujoco.MjData:
        """The MjData the observation is computed on: ``data`` itself, or a copy whose
        ``qpos``/``qvel`` are the estimate at ``data.time`` and whose kinematics follow them
        (contacts and their forces stay the simulator's: force sensing is not modelled)."""
        if self.sensors is None:
            return data
        self.update(data)  # the estimate at this time (kept by the next physics step)
        estimate = self._observed
        mujoco.mj_copyData(estimate, self.model, data)
        estimate.qpos[:] = self.sensors.qpos
        estimate.qvel[:] = self.sensors.qvel
        mujoco.mj_kinematics(self.model, estimate)
        mujoco.mj_comPos(self.model, estimate)
        mujoco.mj_comVel(self.model, estimate)
        return estimate

    def diagnostics(self, data: mujoco.MjData) -> dict[str, Any]:
        """``info["estimate"]``: the estimate minus the true state ``data`` (the sensor model's
        [`errors`][humanoid_env.envs.estimation.SensorModel.errors]) and each stage's diagnostics."""
        out = self.sensors.errors(data)
        for stage in self.stages:
            out.update(stage.diagnostics())
        return out
