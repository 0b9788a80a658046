"""The experiments of *Modeling and Control of Humanoid Robots in Dynamic Environments: iCub
Balancing on a Seesaw* (Nava et al.) as scripted scenarios on ``HumanoidWBCSeesaw-v0``.

They drive the env through [`humanoid_env.envs.base.HumanoidWBCBaseEnv.set_scenario`][humanoid_env.envs.base.HumanoidWBCBaseEnv.set_scenario] like
the other scenarios of [`humanoid_env.scenarios`][humanoid_env.scenarios] (zero action: every reference comes from the
script); ``python -m training.evaluate --env HumanoidWBCSeesaw-v0 --policy scripted --scenario
push|sine`` runs them, ``--env-kwargs '{"seesaw_model": "rigid"}'`` with the rigid model.

- [`SeesawPushScenario`][humanoid_env.scenarios.seesaw.SeesawPushScenario] (``push``): the paper's robustness test.
- [`SeesawSineScenario`][humanoid_env.scenarios.seesaw.SeesawSineScenario] (``sine``): the paper's CoM tracking test.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from humanoid_env.scenarios.base import Scenario, rmse

#: "Level": the board within this of 0 [rad] (1 degree).
LEVEL_TOLERANCE_RAD = float(np.deg2rad(1.0))


class _SeesawScenario(Scenario):
    """Records the board's tilt at every physics step; fixed CoM target unless overridden."""

    def reset(self, context) -> None:
        self.com_start = context.plant.com_nominal.copy()
        self.times: list[float] = []
        self.angles: list[float] = []

    def _record(self, context, time: float) -> None:
        self.times.append(time)
        self.angles.append(context.task.board_angle())

    def update_task(self, command, context, time: float, dt: float) -> None:
        self._record(context, time)
        command.com_target.set(self.com_start)
        command.com_goal = self.com_start.copy()


class SeesawPushScenario(_SeesawScenario):
    """The paper's robustness test: stand ``stand_s`` = 20 s on the seesaw (CoM target fixed at the
    nominal standing CoM), then a ``push_n`` = 100 N lateral (+y) push on the torso for
    ``push_duration_s`` = 0.01 s, then ``recover_s`` = 10 s.

    The push is the env's own (its ``env_kwargs`` set one push of that size at ``stand_s``, so
    ``pushes_total`` / ``pushes_survived`` count it).

    Metrics (MuJoCo's tilt at every physics step): ``board_angle_rms_rad`` (whole run),
    ``board_angle_rms_after_push_rad``, ``board_angle_max_after_push_rad``, ``time_to_level_s``
    (from the push's start until the board is back within 1 degree of level for good; 0 if it
    never left; NaN if it is not level at the end), ``board_angle_at_push_rad``. ``fell`` comes
    from the env's metrics.
    """

    name = "push"

    def __init__(self, stand_s: float = 20.0, recover_s: float = 10.0, push_n: float = 100.0,
                 push_duration_s: float = 0.01, direction_deg: float = 90.0):
        if stand_s <= 0 or not 0 < recover_s <= stand_s:
            # the env's schedule would push again stand_s after the push
            raise ValueError("SeesawPushScenario: need stand_s > 0 and 0 < recover_s <= stand_s")
        self.stand_s = float(stand_s)
        self.recover_s = float(recover_s)
        self.duration_s = self.stand_s + self.recover_s
        self.env_kwargs = {
            "push_magnitude_n": (float(push_n), float(push_n)),
            "push_duration_s": float(push_duration_s),
            # one push at stand_s (the next one would come after the script)
            "push_interval_s": (self.stand_s, self.stand_s),
            "push_direction_deg": float(direction_deg),
            "com_target_range_m": (0.0, 0.0, 0.0),
        }

    def result(self) -> dict[str, Any]:
        times = np.asarray(self.times)
        angles = np.abs(np.asarray(self.angles))
        after = times >= self.stand_s - 1e-9
        out_of_level = np.flatnonzero(after & (angles > LEVEL_TOLERANCE_RAD))
        if not np.any(after):
            time_to_level = float("nan")
        elif out_of_level.size == 0:
            time_to_level = 0.0
        elif out_of_level[-1] == len(times) - 1:
            time_to_level = float("nan")  # not level at the end
        else:
            time_to_level = float(times[out_of_level[-1] + 1] - self.stand_s)
        before = np.flatnonzero(~after)
        return {
            "board_angle_rms_rad": rmse(list(angles)),
            "board_angle_rms_after_push_rad": rmse(list(angles[after])),
            "board_angle_max_after_push_rad": float(np.max(angles[after])) if np.any(after) else float("nan"),
            "board_angle_at_push_rad": float(angles[before[-1]]) if before.size else float("nan"),
            "time_to_level_s": time_to_level,
        }


class SeesawSineScenario(_SeesawScenario):
    """The paper's tracking test: after ``settle_s`` = 1 s standing, the CoM target moves laterally
    as ``y_nominal + amplitude sin(2 pi f (t - settle_s))``, ``amplitude_m`` = 0.025 m,
    ``frequency_hz`` = 0.25 Hz, for ``sine_s`` = 20 s (5 periods).

    Metrics over the sinusoid (every physics step, the state the last step produced against the
    reference it had): ``com_rmse_m`` (RMS of ``|com - reference|``, 3D) [m], ``com_rmse_y_m``
    (lateral only), ``board_angle_rms_rad``, ``board_angle_max_rad``. Target: ``com_rmse_m`` <= 5 mm.
    """

    name = "sine"

    def __init__(self, amplitude_m: float = 0.025, frequency_hz: float = 0.25, sine_s: float = 20.0, settle_s: float = 1.0):
        if sine_s <= 0 or settle_s < 0:
            raise ValueError("SeesawSineScenario: sine_s must be > 0 and settle_s >= 0")
        self.amplitude_m = float(amplitude_m)
        self.frequency_hz = float(frequency_hz)
        self.sine_s = float(sine_s)
        self.settle_s = float(settle_s)
        self.duration_s = self.settle_s + self.sine_s
        self.env_kwargs = {"push_magnitude_n": (0.0, 0.0), "com_target_range_m": (0.0, 0.0, 0.0)}

    def reset(self, context) -> None:
        super().reset(context)
        self.errors: list[float] = []
        self.errors_y: list[float] = []
        self.sine_angles: list[float] = []

    def update_task(self, command, context, time: float, dt: float) -> None:
        if time > self.settle_s + 1e-9:
            error = context.plant.com() - command.com_target.position
            self.errors.append(float(np.linalg.norm(error)))
            self.errors_y.append(float(error[1]))
            self.sine_angles.append(context.task.board_angle())
        self._record(context, time)
        omega = 2 * np.pi * self.frequency_hz
        phase = max(time - self.settle_s, 0.0)
        y = self.amplitude_m * np.sin(omega * phase) if time >= self.settle_s else 0.0
        y_dot = self.amplitude_m * omega * np.cos(omega * phase) if time >= self.settle_s else 0.0
        command.com_target.set(self.com_start + np.array([0.0, y, 0.0]), np.array([0.0, y_dot, 0.0]))
        command.com_goal = command.com_target.position.copy()

    def result(self) -> dict[str, Any]:
        return {
            "com_rmse_m": rmse(self.errors),
            "com_rmse_y_m": rmse(self.errors_y),
            "board_angle_rms_rad": rmse(self.sine_angles),
            "board_angle_max_rad": float(np.max(np.abs(self.sine_angles))) if self.sine_angles else float("nan"),
        }
