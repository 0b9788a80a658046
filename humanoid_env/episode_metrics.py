"""Per-episode task metrics computed from the ``info`` stream of an environment (numpy only).

Each task names its class in the task registry ([`TaskEntry.metrics`][humanoid_env.registry.TaskEntry.metrics]);
``training.metrics`` re-exports these classes and picks one per env id (``metrics_for``).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class EpisodeMetrics:
    """Generic metrics: ``return``, ``length``, ``fell``. Subclasses add task metrics."""

    def __init__(self) -> None:
        self.episode_return = 0.0
        self.length = 0
        self.fell = False

    def step(self, reward: float, terminated: bool, info: dict[str, Any]) -> None:
        self.episode_return += float(reward)
        self.length += 1
        self.fell = self.fell or bool(info.get("fell", terminated))

    def result(self) -> dict[str, Any]:
        return {"return": self.episode_return, "length": self.length, "fell": self.fell}


class BalanceMetrics(EpisodeMetrics):
    """``HumanoidWBC-v0``: com_rmse_m [m] (CoM vs the task's target, every env step),
    com_error_median_5s_m [m] (the median over the first ``EARLY_S`` = 5 s of the CoM's distance to
    the target: the typical tracking error while the robot stands, which neither a fall's last
    steps nor a late drift move), pushes_survived,
    pushes_total, wbc_fallbacks (physics steps), wbc_relaxed (physics steps whose relaxed QP was
    solved, see ``ControllerConfig.contact_slack_weight``), wbc_solve_us_median [us] (NaN unless the env was
    made with ``timing_in_info=True``)."""

    EARLY_S = 5.0

    def __init__(self) -> None:
        super().__init__()
        self.com_sq_errors: list[float] = []
        self.early_com_errors: list[float] = []
        self.solve_us: list[float] = []
        self.fallbacks = 0
        self.relaxed = 0
        self.pushes_total = 0
        self.pushes_survived = 0

    def step(self, reward: float, terminated: bool, info: dict[str, Any]) -> None:
        super().step(reward, terminated, info)
        error = np.asarray(info["com"], dtype=float) - np.asarray(info["com_ref"], dtype=float)
        if not info.get("nonfinite_state", False):
            self.com_sq_errors.append(float(error @ error))
            if float(info["time"]) <= self.EARLY_S + 1e-9:
                self.early_com_errors.append(float(np.sqrt(error @ error)))
        if info["wbc_status"] == "solved" and "wbc_solve_time_us" in info:
            self.solve_us.append(float(info["wbc_solve_time_us"]))
        self.fallbacks += int(info.get("wbc_fallbacks", info["wbc_status"] == "fallback"))
        self.relaxed += int(info.get("wbc_relaxed", 0))
        self.pushes_total = int(info["pushes_total"])
        self.pushes_survived = int(info["pushes_survived"])

    def result(self) -> dict[str, Any]:
        return {
            **super().result(),
            "com_rmse_m": _rms(self.com_sq_errors),
            "com_error_median_5s_m": float(np.median(self.early_com_errors)) if self.early_com_errors else float("nan"),
            "pushes_survived": self.pushes_survived,
            "pushes_total": self.pushes_total,
            "wbc_fallbacks": self.fallbacks,
            "wbc_relaxed": self.relaxed,
            "wbc_solve_us_median": float(np.median(self.solve_us)) if self.solve_us else float("nan"),
        }


class WallMetrics(BalanceMetrics):
    """``HumanoidWBCWall-v0``: BalanceMetrics plus ``hand_force_rmse_n`` [N] (the MuJoCo-measured
    hand normal force vs the task's commanded one, every env step from ``SETTLE_S`` = 1 s on, when
    the force's first ramp is over), ``hand_force_median_error_n`` [N] (the median of the same
    absolute error: the typical regulation error, which the few steps of a fall do not move),
    ``hand_contact_lost_s`` [s] (total time without the wall), and ``com_rmse_m`` and
    ``com_error_median_5s_m`` also from ``SETTLE_S`` on."""

    SETTLE_S = 1.0

    def __init__(self) -> None:
        super().__init__()
        self.force_errors: list[float] = []
        self.lost_s = 0.0

    def step(self, reward: float, terminated: bool, info: dict[str, Any]) -> None:
        settled = float(info["time"]) >= self.SETTLE_S
        counts = len(self.com_sq_errors), len(self.early_com_errors)
        super().step(reward, terminated, info)
        if not settled:
            del self.com_sq_errors[counts[0] :], self.early_com_errors[counts[1] :]
        elif not info.get("nonfinite_state", False):
            self.force_errors.append(abs(float(info["hand_force_n"]) - float(info["hand_force_command_n"])))
        self.lost_s = float(info["hand_contact_lost_total_s"])

    def result(self) -> dict[str, Any]:
        return {
            **super().result(),
            "hand_force_rmse_n": _rms(np.square(self.force_errors)),
            "hand_force_median_error_n": float(np.median(self.force_errors)) if self.force_errors else float("nan"),
            "hand_contact_lost_s": self.lost_s,
        }


class SeesawMetrics(BalanceMetrics):
    """``HumanoidWBCSeesaw-v0``: BalanceMetrics (fell, com_rmse_m, pushes_survived, pushes_total,
    wbc_fallbacks, ...) plus ``board_angle_rms_rad`` [rad] (the board's MuJoCo tilt, every env step)."""

    def __init__(self) -> None:
        super().__init__()
        self.board_sq: list[float] = []

    def step(self, reward: float, terminated: bool, info: dict[str, Any]) -> None:
        super().step(reward, terminated, info)
        angle = float(info["board_angle_rad"])
        if np.isfinite(angle):
            self.board_sq.append(angle**2)

    def result(self) -> dict[str, Any]:
        return {
            **super().result(),
            "board_angle_rms_rad": float(np.sqrt(np.mean(self.board_sq))) if self.board_sq else float("nan"),
        }


class WalkMetrics(BalanceMetrics):
    """``HumanoidWBCWalk-v0``: BalanceMetrics (fell, com_rmse_m against the generator's CoM
    reference, ...) plus ``velocity_rmse_mps`` [m/s] (the pelvis's horizontal velocity in its
    heading frame against the command, every env step: not stride-averaged, so the sway of a gait
    counts in it), ``yaw_rate_rmse_radps`` [rad/s] and ``steps_taken`` (wbc mode; 0 otherwise)."""

    def __init__(self) -> None:
        super().__init__()
        self.velocity_sq: list[float] = []
        self.yaw_sq: list[float] = []
        self.steps_taken = 0

    def step(self, reward: float, terminated: bool, info: dict[str, Any]) -> None:
        super().step(reward, terminated, info)
        measured = np.asarray(info["base_velocity_heading"], dtype=float)
        command = np.asarray(info["walk_command"], dtype=float)
        if np.all(np.isfinite(measured)):
            self.velocity_sq.append(float(np.sum((measured[:2] - command[:2]) ** 2)))
            self.yaw_sq.append(float((measured[2] - command[2]) ** 2))
        if "walking" in info:
            self.steps_taken = int(info["walking"]["steps_taken"])

    def result(self) -> dict[str, Any]:
        return {
            **super().result(),
            "velocity_rmse_mps": _rms(self.velocity_sq),
            "yaw_rate_rmse_radps": _rms(self.yaw_sq),
            "steps_taken": self.steps_taken,
        }


def _rms(squares) -> float:
    """Root of the mean of ``squares``; NaN when there are none."""
    return float(np.sqrt(np.mean(squares))) if len(squares) else float("nan")
