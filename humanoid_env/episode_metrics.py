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
    reference, ...) plus velocity tracking and gait quality, from the env steps' ``info``:

    - ``velocity_rmse_mps`` [m/s], ``yaw_rate_rmse_radps`` [rad/s]: the pelvis's horizontal
      velocity in its heading frame (and its yaw rate) against the command, every env step (the
      gait's sway counts in it);
    - ``stride_velocity_error_mps`` [m/s], ``stride_yaw_rate_error_radps`` [rad/s]: the largest
      error of the stride-averaged velocity (yaw rate): the mean over each window of one stride
      (two steps: ``2 info["walking"]["step_s"]``, the period the generator walks the command
      with, rounded to whole env steps; ``DEFAULT_STRIDE_S`` = 1.2 s, the default gait's, where no
      generator runs) whose command did not change, the first ``SETTLE_S`` after each change left
      out; NaN without one. A window of another length than the stride would count part of a
      step's sway as a tracking error; ``stride_velocity_rms_mps`` [m/s]: the root mean square
      of the same windows' horizontal errors (the episode's typical stride error, where the
      former is its worst);
    - ``steps``: landings (a foot's normal force rising through ``CONTACT_N``); ``step_length_m``
      [m]: the median of half of each stride (a foot's horizontal travel between two of its
      landings, over 2: the walking direction's step, whatever it is);
      ``step_frequency_hz`` [1/s]: landings per second of episode;
    - ``clearance_m`` [m]: the lowest of the swing soles' apexes above their lift-off height;
    - ``flight_steps``: env steps with both feet below ``CONTACT_N`` (a hop or a run);
    - ``slip_m`` [m]: the largest horizontal travel of a sole while it carries more than
      ``CONTACT_N`` for a whole stance (a sliding foot);
    - ``cost_of_transport`` [-]: the actuators' absolute mechanical work over the weight times the
      distance walked (the soles' midpoint's path), ``sum(P dt) / (m g d)``, with the power
      sampled once per env step; NaN below ``MIN_DISTANCE_M`` of path (turning in place, standing).
    """

    DEFAULT_STRIDE_S = 1.2
    SETTLE_S = 1.0
    CONTACT_N = 30.0
    MIN_DISTANCE_M = 0.1

    def __init__(self) -> None:
        super().__init__()
        self.velocity_sq: list[float] = []
        self.yaw_sq: list[float] = []
        self.window: list[np.ndarray] = []
        self.stride_errors: list[np.ndarray] = []
        self.command: np.ndarray | None = None
        self.command_since = 0.0
        self.in_contact: list[bool] | None = None
        self.landings: list[tuple[int, np.ndarray]] = []
        self.apex = [0.0, 0.0]
        self.lift_height = [0.0, 0.0]
        self.clearances: list[float] = []
        self.stance_start: list[np.ndarray | None] = [None, None]
        self.stance_travel = [0.0, 0.0]
        self.slips: list[float] = []
        self.flight_steps = 0
        self.time = 0.0
        self.energy_j = 0.0
        self.path_m = 0.0
        self.weight_n = float("nan")
        self._midpoint: np.ndarray | None = None

    def step(self, reward: float, terminated: bool, info: dict[str, Any]) -> None:
        super().step(reward, terminated, info)
        measured = np.asarray(info["base_velocity_heading"], dtype=float)
        command = np.asarray(info["walk_command"], dtype=float)
        previous_time, self.time = self.time, float(info["time"])
        if "mechanical_power_w" in info and np.isfinite(info["mechanical_power_w"]):
            self.energy_j += float(info["mechanical_power_w"]) * (self.time - previous_time)
            self.weight_n = float(info["weight_n"])
        if self.command is None or not np.array_equal(command, self.command):
            self.command, self.command_since, self.window = command.copy(), self.time, []
        if np.all(np.isfinite(measured)):
            self.velocity_sq.append(float(np.sum((measured[:2] - command[:2]) ** 2)))
            self.yaw_sq.append(float((measured[2] - command[2]) ** 2))
            if self.time - self.command_since >= self.SETTLE_S:
                self.window.append(measured - command)
                stride_s = 2.0 * float(info.get("walking", {}).get("step_s", 0.5 * self.DEFAULT_STRIDE_S))
                if len(self.window) >= max(1, round(stride_s / max(self.time - previous_time, 1e-9))):
                    self.stride_errors.append(np.mean(self.window, axis=0))
                    self.window = []
        self._gait(info)

    def _gait(self, info: dict[str, Any]) -> None:
        feet = np.asarray(info["feet_position"], dtype=float)
        midpoint = feet[:, :2].mean(axis=0)
        if self._midpoint is not None and np.all(np.isfinite(midpoint)):
            self.path_m += float(np.linalg.norm(midpoint - self._midpoint))
        self._midpoint = midpoint
        forces = info["contact_forces"]
        contact = [float(forces[name][2]) > self.CONTACT_N for name in ("left_foot", "right_foot")]
        if not any(contact):
            self.flight_steps += 1
        if self.in_contact is None:
            self.in_contact = contact
            self.stance_start = [feet[i, :2].copy() if contact[i] else None for i in range(2)]
            return
        for i in range(2):
            if contact[i] and not self.in_contact[i]:  # a landing
                self.landings.append((i, feet[i, :2].copy()))
                self.clearances.append(self.apex[i] - self.lift_height[i])
                self.stance_start[i] = feet[i, :2].copy()
            elif not contact[i] and self.in_contact[i]:  # a lift-off
                if self.stance_start[i] is not None:
                    self.slips.append(float(np.linalg.norm(feet[i, :2] - self.stance_start[i])))
                self.lift_height[i] = self.apex[i] = float(feet[i, 2])
            elif not contact[i]:
                self.apex[i] = max(self.apex[i], float(feet[i, 2]))
        self.in_contact = contact

    def result(self) -> dict[str, Any]:
        strides = np.array(self.stride_errors).reshape(-1, 3)
        last: dict[int, np.ndarray] = {}
        lengths = []  # half of each stride: the distance between a foot's consecutive landings, over 2
        for foot, position in self.landings:
            if foot in last:
                lengths.append(0.5 * float(np.linalg.norm(position - last[foot])))
            last[foot] = position
        return {
            **super().result(),
            "velocity_rmse_mps": _rms(self.velocity_sq),
            "yaw_rate_rmse_radps": _rms(self.yaw_sq),
            "stride_velocity_error_mps": float(np.max(np.linalg.norm(strides[:, :2], axis=1))) if len(strides) else float("nan"),
            "stride_velocity_rms_mps": _rms(np.sum(strides[:, :2] ** 2, axis=1)),
            "stride_yaw_rate_error_radps": float(np.max(np.abs(strides[:, 2]))) if len(strides) else float("nan"),
            "steps": len(self.landings),
            "step_length_m": float(np.median(lengths)) if lengths else float("nan"),
            "step_frequency_hz": len(self.landings) / self.time if self.time > 0 else float("nan"),
            "clearance_m": float(min(self.clearances)) if self.clearances else float("nan"),
            "flight_steps": self.flight_steps,
            "slip_m": float(max(self.slips)) if self.slips else 0.0,
            "cost_of_transport": self.energy_j / (self.weight_n * self.path_m) if self.path_m >= self.MIN_DISTANCE_M else float("nan"),
        }


class PushRecoveryMetrics(BalanceMetrics):
    """``HumanoidWBCPushRecovery-v0``: BalanceMetrics (fell, com_rmse_m, pushes_survived,
    pushes_total, ...) plus the guards against degenerate ways of not falling, from the soles'
    positions and the measured contact forces in ``info`` (the same in every action mode):

    - ``steps``: landings (a foot's normal force rising through ``CONTACT_N`` after it was below
      it at least one env step, with its sole ``MIN_STEP_M`` or more from where it lifted off);
      ``steps_per_push`` [-]: over the pushes (NaN without one): stepping at every push shows;
    - ``drift_m`` [m]: the soles' midpoint's horizontal distance from its start at the episode's
      end (walking away from the pushes);
    - ``stance_width_m`` [m]: the mean over env steps of the soles' horizontal distance (a
      permanently wide stance); ``feet_min_distance_m`` [m]: its smallest (legs that cross).
    """

    CONTACT_N = WalkMetrics.CONTACT_N
    MIN_STEP_M = 0.02

    def __init__(self) -> None:
        super().__init__()
        self.start: np.ndarray | None = None
        self.midpoint = np.full(2, np.nan)
        self.lifted_at: list[np.ndarray | None] = [None, None]
        self.in_contact = [True, True]
        self.steps = 0
        self.distances: list[float] = []

    def step(self, reward: float, terminated: bool, info: dict[str, Any]) -> None:
        super().step(reward, terminated, info)
        feet = np.asarray(info["feet_position"], dtype=float)[:, :2]
        if not np.all(np.isfinite(feet)):
            return
        self.midpoint = feet.mean(axis=0)
        if self.start is None:
            self.start = self.midpoint
        self.distances.append(float(np.linalg.norm(feet[0] - feet[1])))
        forces = info["contact_forces"]
        for i, name in enumerate(("left_foot", "right_foot")):
            contact = float(forces[name][2]) >= self.CONTACT_N
            if not contact and self.in_contact[i]:
                self.lifted_at[i] = feet[i].copy()
            elif contact and not self.in_contact[i] and self.lifted_at[i] is not None:
                self.steps += float(np.linalg.norm(feet[i] - self.lifted_at[i])) >= self.MIN_STEP_M
            self.in_contact[i] = contact

    def result(self) -> dict[str, Any]:
        return {
            **super().result(),
            "steps": self.steps,
            "steps_per_push": self.steps / self.pushes_total if self.pushes_total else float("nan"),
            "drift_m": float(np.linalg.norm(self.midpoint - self.start)) if self.start is not None else float("nan"),
            "stance_width_m": float(np.mean(self.distances)) if self.distances else float("nan"),
            "feet_min_distance_m": float(np.min(self.distances)) if self.distances else float("nan"),
        }


def _rms(squares) -> float:
    """Root of the mean of ``squares``; NaN when there are none."""
    return float(np.sqrt(np.mean(squares))) if len(squares) else float("nan")
