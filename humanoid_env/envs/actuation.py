"""How an action becomes joint torques: one object per action mode (``wbc``, ``torque``, ``pd``).

Each owns its action size and layout (`Actuation.structure`, the env's
``action_structure``), names its blocks ([`Actuation.blocks`][humanoid_env.envs.actuation.Actuation.blocks]) and computes the torques of a
physics step. The env asks it; the env classes hold no branch on the action mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from wbc_layer import QPSolveError

if TYPE_CHECKING:
    from humanoid_env.envs.base import HumanoidWBCBaseEnv

#: Status of a physics step whose torques no controller computed.
OFF = "off"


class Actuation:
    """Base: an action of ``sum(structure.values())`` numbers in [-1, 1], laid out in named blocks.

    Attributes:
        mode: the ``action_mode`` keyword's value.
        structure: block name -> size, in the action's order.
        drives_controller: whether the whole-body controller computes the torques (the env then
            builds it at reset, decodes references and reports its diagnostics).
    """

    mode: str = ""
    drives_controller: bool = False

    def __init__(self, structure: dict[str, int]):
        self.structure = dict(structure)
        self.size = sum(self.structure.values())
        offsets = np.cumsum([0, *self.structure.values()])
        self._slices = {name: slice(int(a), int(b)) for name, a, b in zip(self.structure, offsets[:-1], offsets[1:], strict=True)}

    def blocks(self, action: np.ndarray) -> dict[str, np.ndarray]:
        """``action`` (size,) cut into its named blocks (views)."""
        return {name: action[s] for name, s in self._slices.items()}

    def index(self, block: str) -> slice:
        """Where ``block`` sits in the action (``ValueError`` naming the blocks if absent)."""
        if block not in self._slices:
            raise ValueError(f"action_mode={self.mode!r} has no action block {block!r}; blocks: {list(self.structure)}")
        return self._slices[block]

    def reset(self, env: HumanoidWBCBaseEnv) -> None:
        """Prepare an episode (after the state is reset, before the first observation)."""

    def update_references(self, env: HumanoidWBCBaseEnv, dt: float, action: np.ndarray | None) -> None:
        """Turn the action into the controller's references for one physics step of ``dt`` [s]."""

    def torques(self, env: HumanoidWBCBaseEnv, action: np.ndarray) -> tuple[np.ndarray, str, float]:
        """``(tau (na,) [N m], status, solve time [us])`` for the current physics step."""
        raise NotImplementedError

    def step_status(self, fallbacks: int) -> str:
        """``info["wbc_status"]`` of an env step with ``fallbacks`` fallback physics steps."""
        return OFF

    def force_targets(self, env: HumanoidWBCBaseEnv) -> dict[str, float]:
        """Contact name -> normal-force target [N] the controller tracks (none without one)."""
        return {}


class TorqueActuation(Actuation):
    """``action_mode="torque"``: joint torques, ``action * torque limit`` [N m] (the env's
    ``torque_max``)."""

    mode = "torque"

    def __init__(self, na: int):
        super().__init__({"joint_torques": na})

    def torques(self, env: HumanoidWBCBaseEnv, action: np.ndarray) -> tuple[np.ndarray, str, float]:
        return action * env.torque_max, OFF, 0.0


class PDActuation(Actuation):
    """``action_mode="pd"``: joint targets ``q_home + action * pd_action_scale_rad`` [rad] (clipped
    to the joint ranges) tracked by PD gains proportional to each joint's torque limit
    (``pd_kp_per_nm``, ``pd_kd_s``), torques clipped to the limits. Reads the env's ``q_home``,
    joint ranges and ``torque_max`` at each call (the wall env moves its home after settling)."""

    mode = "pd"

    def __init__(self, torque_max: np.ndarray, config: dict[str, Any]):
        super().__init__({"joint_targets": torque_max.size})
        self.scale = float(config["pd_action_scale_rad"])
        self.kp = config["pd_kp_per_nm"] * torque_max
        self.kd = config["pd_kd_s"] * self.kp

    def torques(self, env: HumanoidWBCBaseEnv, action: np.ndarray) -> tuple[np.ndarray, str, float]:
        qpos, qvel = env._sensed_state()
        q = qpos[env.bridge.joint_qpos]
        qd = qvel[env.bridge.joint_dof]
        target = np.clip(env.q_home + action * self.scale, env.joint_low, env.joint_high)
        tau = self.kp * (target - q) - self.kd * qd
        return np.clip(tau, -env.torque_max, env.torque_max), OFF, 0.0


class WbcActuation(Actuation):
    """``action_mode="wbc"``: references (the env's ``wbc_action_structure``: CoM offset, force
    shares, ...) that the whole-body controller turns into torques at every physics step.

    The env decodes the blocks into references; a QP that fails follows
    the documented fallback (gravity compensation, status ``"fallback"``); a relaxed QP (the
    contacts gave way) reports ``"relaxed"`` and its slack.
    """

    mode = "wbc"
    drives_controller = True

    def reset(self, env: HumanoidWBCBaseEnv) -> None:
        env._build_controller()
        env._build_guard()

    def update_references(self, env: HumanoidWBCBaseEnv, dt: float, action: np.ndarray | None) -> None:
        env._update_references(dt, action)
        if env.guard is not None and dt > 0:
            env.update_guard(dt)

    def torques(self, env: HumanoidWBCBaseEnv, action: np.ndarray) -> tuple[np.ndarray, str, float]:
        q, v = env.bridge.to_pinocchio(*env._sensed_state())
        try:
            result = env._compute_wbc(q, v)
        except QPSolveError:  # compute() updated the controller's model at (q, v) before failing
            return env.controller.gravity_compensation_torques(), "fallback", 0.0
        if result.relaxed:  # the rigid-contact QP had no solution; the contacts gave way
            env._step_contact_slack = max(env._step_contact_slack, result.contact_slack_norm)
            return result.tau, "relaxed", float(result.solve_time_us)
        return result.tau, "solved", float(result.solve_time_us)

    def step_status(self, fallbacks: int) -> str:
        return "fallback" if fallbacks else "solved"

    def force_targets(self, env: HumanoidWBCBaseEnv) -> dict[str, float]:
        return env._force_targets()
