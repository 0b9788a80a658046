"""``HumanoidWBCPushRecovery-v0``: stand under pushes that only a step can catch; the policy adjusts the steps.

The task module: [`PushRecoveryTask`][humanoid_env.envs.push_recovery.PushRecoveryTask] (its config
[`PushRecoveryTaskConfig`][humanoid_env.envs.push_recovery.PushRecoveryTaskConfig]) and the env class
[`HumanoidPushRecoveryEnv`][humanoid_env.envs.push_recovery.HumanoidPushRecoveryEnv], whose docstring is
the env's spec. In wbc mode the stepping law (``wbc_layer.stepping``, through
``humanoid_env.envs.stepping``'s stage) decides when, which foot and where to step, and the
policy's ``step`` action adjusts those choices (``wbc_layer.stepping.StepAdjustment``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from humanoid_env.envs.balance import BALANCE_DEFAULTS, BalanceTask
from humanoid_env.envs.base import HumanoidWBCBaseEnv
from humanoid_env.envs.configs import BalanceTaskConfig, stepping_settings
from humanoid_env.envs.stepping import SteppingStage, feet_in_heading_frame, stepping_law
from humanoid_env.robots import FEET
from wbc_layer.stepping import SwingSettings

#: The pushes of ``HumanoidWBCPushRecovery-v0`` per robot [N] (0.1 s at the torso every U(2, 4) s,
#: horizontal, in a uniformly drawn direction): U(F / 4, F) with F fixed before any training by the
#: rule of ``results/push_recovery/README.md``: the nominal stepping law fell in 43 of 100 episodes
#: on Hubo-lite (20 at F = 140) and 31 of 100 on the G1. Robots not listed: ``FALLBACK_PUSH_MAGNITUDE_N``.
DEFAULT_PUSH_MAGNITUDE_N = {"hubo_lite": (40.0, 160.0), "g1": (30.0, 120.0)}
FALLBACK_PUSH_MAGNITUDE_N = (30.0, 120.0)

#: A foot is in contact (the observation's ``feet_contact``) when its measured normal force is at
#: least the swing foot's touch-down threshold [N].
CONTACT_N = SwingSettings.touch_down_force_n

PUSH_RECOVERY_DEFAULTS: dict[str, Any] = {
    **{k: v for k, v in BALANCE_DEFAULTS.items() if k not in ("stepping", "goal_follows_feet")},
    # the CoM target rests over the feet (it follows them: a slide, a step)
    "com_target_range_m": (0.0, 0.0, 0.0),
    # None: the robot's DEFAULT_PUSH_MAGNITUDE_N
    "push_magnitude_n": None,
    # the stepping law's settings in wbc mode: True (its defaults) or a dict (HumanoidWBC-v0's ``stepping``)
    "stepping_law": True,
}


@dataclass(frozen=True)
class PushRecoveryTaskConfig(BalanceTaskConfig):
    """The push-recovery task's keywords: the balance task's CoM target keywords, plus
    ``stepping_law`` (True: the stepping law's defaults, or a dict of its settings: the names of
    ``HumanoidWBC-v0``'s ``stepping`` keyword), the law that steps in wbc mode."""

    KEYWORDS: ClassVar[tuple[str, ...]] = (*BalanceTaskConfig.KEYWORDS, "stepping_law")

    stepping_law: Any = True

    def __post_init__(self) -> None:
        super().__post_init__()
        settings = stepping_settings(self.stepping_law)
        if settings is None:
            raise ValueError(f"stepping_law must be True or a dict of stepping settings (this env always steps), got {self.stepping_law!r}")
        object.__setattr__(self, "stepping_law", settings)


class PushRecoveryTask(BalanceTask):
    """Stand over the feet under pushes; in wbc mode the stepping law steps, adjusted by the
    ``step`` action (see [`HumanoidPushRecoveryEnv`][humanoid_env.envs.push_recovery.HumanoidPushRecoveryEnv])."""

    env_id = "HumanoidWBCPushRecovery-v0"
    name = "push_recovery"
    config_type = PushRecoveryTaskConfig
    legs_collide = True  # a policy's steps may cross the legs: they meet, as real legs would
    observation_structure: ClassVar[dict[str, int]] = {"feet": 6, "feet_contact": 2, "swing_progress": 1, "capture_point": 2}

    @property
    def wbc_action_structure(self) -> dict[str, int]:
        return {**super().wbc_action_structure, "step": 4}

    def reference_stages(self, wbc: Any, blocks: dict[str, slice]) -> tuple[list, list]:
        plant = self.plant
        com_height = float(plant.com_nominal[2] - plant.data.site_xpos[plant.sole_sites, 2].mean())
        law = stepping_law(self.description, dict(self.config.stepping_law), com_height)
        # the goal follows the feet by itself (terminated, once per env step): no shift at each step
        self.stepper = SteppingStage(plant, law, self.weight_n, None, step_block=blocks["step"])
        self.omega = law.omega
        return [], [self.stepper]

    # -- the command: the CoM target over the feet, wherever they are ----------------------------
    def terminated(self, nonfinite: bool, forces: dict[str, np.ndarray], dt: float) -> bool:
        """Once per env step, after its physics: the goal follows the feet (``follow_feet``; at the
        env step's rate, so that the command reads no state within an env step and torque and pd
        modes run the compiled physics loop; wbc mode runs it one physics step at a time, the
        stepping law reading the state at each)."""
        if not nonfinite:
            self.follow_feet(float(self.plant.data.time))
        return False

    # -- observation, info ------------------------------------------------------------------------
    def task_observation(self, d, forces) -> dict[str, np.ndarray]:
        plant = self.plant
        R = plant.base_rotation(d)
        heading = math.atan2(R[1, 0], R[0, 0])
        c, s = math.cos(heading), math.sin(heading)
        swing = self.stepper.law.swing  # (the stage exists in every mode; it runs in wbc mode only)
        progress = 0.0 if swing is None else swing.progress(float(plant.data.time))
        com, velocity = plant.com(d), plant.com_velocity(d)
        offset = com[:2] + velocity[:2] / self.omega - plant.support_centre(d)[:2]  # the capture point from the feet's midpoint
        return {
            "feet": feet_in_heading_frame(plant, d),
            "feet_contact": np.array([float(forces[name][2] >= CONTACT_N) for name in FEET]),
            "swing_progress": np.array([progress]),
            "capture_point": np.array([c * offset[0] + s * offset[1], -s * offset[0] + c * offset[1]]),
        }

    def info(self, nonfinite: bool, drives_controller: bool) -> dict[str, Any]:
        info = super().info(nonfinite, drives_controller)
        info["feet_position"] = self.plant.data.site_xpos[self.plant.sole_sites].copy()
        return info


class HumanoidPushRecoveryEnv(HumanoidWBCBaseEnv):
    """Stand on flat ground under pushes strong enough that standing alone often cannot catch
    them; in wbc mode the stepping law steps, and the policy adjusts where, how fast and when.

    **Status (2026-12-07): issue 38 open.** No policy is trained yet; the push distribution's
    rule and the nominal stepping law's figures are in ``results/push_recovery/README.md``.

    Robot, timing (50 Hz policy, 10 physics steps of 2 ms), action modes, the standing
    observation blocks, the reward, termination, estimation, randomisation and the other keywords
    are those of [`HumanoidBalanceEnv`][humanoid_env.envs.balance.HumanoidBalanceEnv]; what differs:

    ## Scene, command and pushes

    The scene is the balance env's flat ground, but the legs collide with each other (thighs,
    shanks and feet of one leg with those of the other: ``humanoid_env.envs.plant.collide_legs``;
    in the other envs only the feet meet), so a step that crosses the legs is stopped by them.

    The CoM target rests over the feet (``com_target_range_m`` = 0) and follows them: once the
    soles' midpoint has moved 5 mm (a step, or feet that slid) while no step is under way, the
    goal and the target move with it (``HumanoidWBC-v0``'s ``goal_follows_feet``, checked once
    per env step here), so a step is not undone by walking back. Pushes: 0.1 s at the torso every U(2, 4) s, horizontal, in a
    uniformly drawn direction, U(F / 4, F) N with F per robot (``push_magnitude_n`` = None:
    ``DEFAULT_PUSH_MAGNITUDE_N``, Hubo-lite U(40, 160), the G1 U(30, 120)), fixed before any
    training by a stated rule (the version history).

    ## Action space (wbc mode: ``Box(-1, 1, (8,))``)

    ``com_offset`` 3 and ``foot_force_share`` 1 as in the balance env, then ``step`` 4, the
    stepping law's adjustment ([`step_adjustment`][humanoid_env.envs.stepping.step_adjustment]):
    the landing's offset forward and left in the stance sole's axes (+-1 -> +-0.05 m), the step's
    duration (unloading and swing; +-1 -> x 2^(+-0.5), the swing not below the robot's minimum
    swing time), and the decision's trigger margin (+-1 -> +-0.03 m: -1 steps while the capture
    point is still 3 cm inside the support, +1 only 3 cm outside it). The zero action is the
    nominal stepping law. A landing clipped into the reachable region and a swing held at its
    minimum are flagged (``info["stepping"]``: ``target_clipped``, ``clipped_steps``,
    ``timing_clipped``). ``torque`` and ``pd``: as in the balance env (no law runs; the policy
    steps by itself, or not).

    ## Observation

    The balance env's blocks, then ``feet`` 6 (each sole's x, y [m] from the pelvis in its heading
    frame and yaw [rad] from the heading), ``feet_contact`` 2 (each foot's measured normal force at
    least 30 N: 1, else 0), ``swing_progress`` 1 (the law's swing phase in [0, 1]; 0 without a
    swing and outside wbc mode), ``capture_point`` 2 (the instantaneous capture point
    ``c + v / omega`` from the soles' midpoint, heading frame [m]), then ``previous_action``.

    ## info

    The balance env's, plus ``feet_position`` (2, 3) (the sole centres, world [m]) and, in wbc
    mode, ``stepping`` (the law's phase, steps taken, swing foot, target and its clipping, the
    adjustment in force, touch-downs, the capture point; ``SteppingStage.info``).
    [`PushRecoveryMetrics`][humanoid_env.episode_metrics.PushRecoveryMetrics] read from it the
    guards against degenerate solutions: steps per push, drift from the start, stance width, the
    feet's closest approach.

    ## Arguments

    The balance env's keywords but ``stepping`` and ``goal_follows_feet``, plus ``stepping_law``
    (True or a dict of the stepping law's settings). ``push_magnitude_n`` = None (the default)
    is the robot's default. 20 s episodes (1000 steps).

    ## Version history

    - 2026-12-07: new (issue 38). The push distribution per robot fixed before any training by
      the rule: U(F / 4, F) N with the smallest F on a 20-N grid from 120 N at which the nominal
      stepping law (zero action) falls in at least 25 % of 100 episodes (seeds 5000-5099) on that
      robot (at most 50 %, else the grid's step below): Hubo-lite F = 160 (43 falls; 20 at 140),
      the G1 F = 120 (31 falls) (``results/push_recovery/README.md``).
    - 2026-12-07, second revision: the legs collide with each other. The nominal law's
      trajectories are unchanged (it takes no crossover steps: wbc-mode fingerprints the same),
      and so is the push distribution; pd and torque rollouts change where their legs meet.
    """

    task_type = PushRecoveryTask
    DEFAULTS = PUSH_RECOVERY_DEFAULTS
    env_name = "HumanoidWBCPushRecovery-v0"

    def __init__(self, **kwargs: Any):
        if kwargs.get("push_magnitude_n") is None:  # the robot's default pushes
            robot = kwargs.get("robot", BALANCE_DEFAULTS["robot"])
            kwargs = {**kwargs, "push_magnitude_n": DEFAULT_PUSH_MAGNITUDE_N.get(robot, FALLBACK_PUSH_MAGNITUDE_N)}
        super().__init__(**kwargs)
