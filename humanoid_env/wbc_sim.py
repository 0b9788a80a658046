"""The whole-body controller driving the robot in MuJoCo, without Gymnasium.

The smallest closed loop: a scene, the controller's model, the bridge, and one WBC solve per
physics step with the documented fallback. Tests, benchmarks and scripts build on it; the
environments have their own loop (actions, pushes, rewards).
"""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np

from humanoid_env.robots import DEFAULT_ROBOT, RobotDescription, robot_description
from humanoid_env.sim_bridge import SimBridge
from wbc_layer import ControllerConfig, QPSolveError, RobotModel, WholeBodyController


class WBCSimulation:
    """MuJoCo scene + robot model + bridge + controller, reset to the ``home`` keyframe.

    Attributes:
        model, data: the MuJoCo scene.
        robot: the controller's pinocchio model, updated at every [`step`][humanoid_env.wbc_sim.WBCSimulation.step].
        bridge: MuJoCo <-> pinocchio conversions.
        controller: the whole-body controller; its CoM reference starts at the home CoM.
        fallbacks: number of steps that used gravity-compensation torques.
    """

    def __init__(
        self, scene_xml: str | Path | None = None, config: ControllerConfig | None = None, robot: str | RobotDescription = DEFAULT_ROBOT
    ):
        """``scene_xml``: default the robot's flat scene; ``config``: default the robot's standing
        controller; ``robot``: a name of ``humanoid_env.robots.ROBOTS`` or a description."""
        self.description = robot_description(robot)
        self.model = mujoco.MjModel.from_xml_path(str(scene_xml or self.description.scene_path("flat")))
        self.data = mujoco.MjData(self.model)
        mujoco.mj_resetDataKeyframe(self.model, self.data, self.model.key("home").id)
        mujoco.mj_forward(self.model, self.data)
        self.robot = RobotModel.from_mjcf(self.description.mjcf_path())
        self.bridge = SimBridge(self.model, self.robot.joint_names)
        self.robot.update(*self.state())
        self.controller = WholeBodyController(self.robot, config or self.description.controller_config())
        self.fallbacks = 0

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        """Pinocchio ``(q (nq,), v (nv,))`` of the current MuJoCo state."""
        return self.bridge.to_pinocchio(self.data.qpos, self.data.qvel)

    def torques(self) -> np.ndarray:
        """(na,) WBC torques for the current state [N m]; gravity compensation if the QP fails."""
        try:
            return self.controller.compute(*self.state()).tau
        except QPSolveError:
            self.fallbacks += 1
            return self.controller.gravity_compensation_torques()

    def step(self, tau: np.ndarray | None = None) -> None:
        """One physics step with ``tau`` (default: [`torques`][humanoid_env.wbc_sim.WBCSimulation.torques])."""
        self.bridge.torques_to_ctrl(self.torques() if tau is None else tau, self.data.ctrl)
        mujoco.mj_step(self.model, self.data)
