"""``HumanoidWBC-v0``: stand on flat ground, track a moving CoM target, survive pushes.

The task module: [`BalanceTask`][humanoid_env.envs.balance.BalanceTask] (its config is
[`SteppingBalanceTaskConfig`][humanoid_env.envs.configs.SteppingBalanceTaskConfig]) and the env class
[`HumanoidBalanceEnv`][humanoid_env.envs.balance.HumanoidBalanceEnv], whose docstring is the env's spec.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from humanoid_env.envs.base import BASE_DEFAULTS, HumanoidWBCBaseEnv
from humanoid_env.envs.configs import SteppingBalanceTaskConfig
from humanoid_env.envs.stepping import SUPPORT_SHIFT_S, SteppingStage, stepping_law
from humanoid_env.envs.task import Task
from wbc_layer.stepping import STANDING

BALANCE_DEFAULTS: dict[str, Any] = {
    **BASE_DEFAULTS,
    "com_target_range_m": (0.03, 0.02, 0.0),
    "target_interval_s": (2.0, 4.0),
    "target_speed_mps": 0.03,
    # the stepping law (humanoid_env.envs.stepping): None (off), True or a dict of its settings
    "stepping": None,
    # the CoM goal moves with the feet (slid or stepped): off, as HumanoidWBC-v0 always was
    "goal_follows_feet": False,
}

#: How far the soles' midpoint must move [m] before a goal that follows the feet moves with it
#: (``goal_follows_feet``): 5 mm, a sixth of the goals' range (3 cm forward), so that the goal
#: moves in a few shifts per slide, not at every tick.
FEET_FOLLOW_DEADBAND_M = 0.005


class BalanceTask(Task):
    """Track a CoM target that glides to a new goal, sampled around the nominal CoM, every
    U(``target_interval_s``) s (see [`HumanoidBalanceEnv`][humanoid_env.envs.balance.HumanoidBalanceEnv])."""

    env_id = "HumanoidWBC-v0"
    name = "balance"
    config_type = SteppingBalanceTaskConfig
    #: the stepping stage (``stepping``), or None.
    stepper: SteppingStage | None = None

    def reference_stages(self, wbc: Any, blocks: dict[str, slice]) -> tuple[list, list]:
        settings = getattr(self.config, "stepping", None)
        if settings is None:
            return [], []
        plant = self.plant
        com_height = float(plant.com_nominal[2] - plant.data.site_xpos[plant.sole_sites, 2].mean())
        law = stepping_law(self.description, dict(settings), com_height)
        # a goal that follows the feet moves with each step by itself (update_command)
        on_support_moved = None if getattr(self.config, "goal_follows_feet", False) else self._support_moved
        self.stepper = SteppingStage(plant, law, self.weight_n, on_support_moved)
        return [], [self.stepper]

    def controller_setup(self, robot, wbc):
        setup = super().controller_setup(robot, wbc)
        if self.stepper is not None:
            setup.added_tasks = tuple(self.stepper.controller_tasks())
        return setup

    def planned_contacts(self) -> tuple[str, ...]:
        return () if self.stepper is None else self.stepper.planned_contacts()

    def info(self, nonfinite: bool, drives_controller: bool) -> dict[str, Any]:
        info = super().info(nonfinite, drives_controller)
        if self.stepper is not None and drives_controller:  # the law steps in wbc mode only
            info["stepping"] = self.stepper.info()
        return info

    def _support_moved(self, delta: np.ndarray, time: float) -> None:
        """The feet moved by ``delta`` (3,) [m] (a step): goals are drawn around the new support
        and the CoM target moves with it."""
        self.support_shift = self.support_shift + delta
        self.command.shift(delta, time, SUPPORT_SHIFT_S)

    def reset(self, rng: np.random.Generator) -> None:
        super().reset(rng)
        self.next_target_time = rng.uniform(*self.config.target_interval_s)
        #: how far the feet's midpoint has moved by steps this episode (3,) [m].
        self.support_shift = np.zeros(3)
        #: the soles' midpoint (3,) [m] the goal last moved with (``goal_follows_feet``).
        self._feet_midpoint: np.ndarray | None = None

    def follow_feet(self, time: float) -> None:
        """``goal_follows_feet``: while the robot stands (no step under way), move the goal and
        target with the soles' midpoint once it has moved more than ``FEET_FOLLOW_DEADBAND_M``."""
        if self.stepper is not None and self.stepper.law.phase != STANDING:
            return
        plant = self.plant
        midpoint = plant.data.site_xpos[plant.sole_sites].mean(axis=0)
        if self._feet_midpoint is None:
            self._feet_midpoint = midpoint
            return
        delta = midpoint - self._feet_midpoint
        delta[2] = 0.0
        if np.linalg.norm(delta) > FEET_FOLLOW_DEADBAND_M:
            self._support_moved(delta, time)
            self._feet_midpoint = midpoint

    def command_reads_state(self) -> bool:
        return bool(getattr(self.config, "goal_follows_feet", False))  # the goals follow the soles

    command_glides = True  # with goal_follows_feet, command_reads_state says it is not planned ahead

    def update_command(self, rng: np.random.Generator, time: float, dt: float) -> None:
        if getattr(self.config, "goal_follows_feet", False):
            self.follow_feet(time)
        self.draw_goal(rng, time)
        self.glide_target(dt)

    def draw_goal(self, rng: np.random.Generator, time: float) -> None:
        if time >= self.next_target_time:
            span = np.asarray(self.config.com_target_range_m, dtype=float)
            self.command.com_goal = self.plant.com_nominal + self.support_shift + rng.uniform(-1.0, 1.0, 3) * span
            self.next_target_time = time + rng.uniform(*self.config.target_interval_s)


class HumanoidBalanceEnv(HumanoidWBCBaseEnv):
    """Balance on flat ground while tracking a moving CoM target under random pushes.

    The robot ("Hubo-lite", 37.4 kg, 23 actuated joints) starts standing in the ``home``
    keyframe. The policy runs at 50 Hz; each env step is ``frame_skip = 10`` MuJoCo steps of
    2 ms. In ``action_mode="wbc"`` the whole-body QP controller (``wbc_layer``) computes the
    joint torques at every physics step from the references the action sets.

    ## Action space (``Box(-1, 1, (k,), float32)``)

    Out-of-range values are **clipped** to [-1, 1]; NaN/inf or a wrong shape raise ``ValueError``.
    The layout is ``env.action_structure`` (block name -> size, in order: ``com_offset`` 3,
    ``foot_force_share`` 1 in wbc mode; ``joint_torques`` or ``joint_targets`` na otherwise);
    ``env.actuation.blocks(a)`` cuts an action into its blocks.

    | mode | k | meaning |
    |------|---|---------|
    | ``"wbc"`` (default) | 4 | ``a[0:3]``: CoM offset x, y, z; 0 -> 0, +1 -> ``com_offset_high_m`` = (0.04, 0.04, 0.01) m, -1 -> ``com_offset_low_m`` = (-0.04, -0.04, -0.05) m. ``a[3]``: left foot's share of the total normal force, 0 -> 0.5, +-1 -> the ends of ``force_share_range`` = (0.1, 0.9); targets left = share m g, right = (1 - share) m g [N] |
    | ``"torque"`` | 23 | joint torques ``tau = a * tau_max`` [N m] (no WBC) |
    | ``"pd"`` | 23 | joint targets ``q* = q_home + a * pd_action_scale_rad`` (clipped to the joint range), ``tau = kp (q* - q) - kd qd``, ``kp = pd_kp_per_nm * tau_max`` [N m/rad], ``kd = pd_kd_s * kp`` [N m s/rad], clipped to the torque limits |

    wbc references: the CoM reference handed to the WBC is ``base + offset`` where ``base`` is the
    task's CoM target (``reference_feedforward=True``, default: the zero action is the nominal
    controller that follows the target) or the nominal standing CoM (``False``: the policy must
    move the reference itself). The offset moves towards the decoded one at most
    ``com_rate_limit_mps`` = 0.25 m/s (with ``com_offset_filter_s`` = T > 0, 0 by default, first
    through a first-order low-pass of time constant T [s]: a continuous velocity), the share at
    most ``force_share_rate_limit`` = 2 /s, both updated every physics step: a jumping action
    cannot jerk the robot. The contact-force tasks have weight ``force_weight`` = 1e-2. If the QP
    fails, the step uses the documented fallback, gravity-compensation torques, and
    ``info["wbc_status"] == "fallback"``.

    ## Observation space (``Box(-inf, inf, (n,), float32)``, n = 75 in wbc mode, 94 otherwise)

    Blocks in order (``env.observation_structure``: name -> size, summing to n). Frames: world
    unless stated; "support centre" = midpoint of the two sole centres.

    | block | size | content [unit] |
    |-------|------|----------------|
    | base_height | 1 | pelvis height above the support centre [m] |
    | gravity_base | 3 | unit gravity direction in pelvis axes (upright: (0, 0, -1)) |
    | base_linear_velocity | 3 | pelvis velocity in pelvis axes [m/s] |
    | base_angular_velocity | 3 | pelvis angular velocity in pelvis axes [rad/s] |
    | joint_positions | 23 | ``q - q_home`` [rad] |
    | joint_velocities | 23 | [rad/s] |
    | com_relative | 3 | CoM minus support centre [m] |
    | com_velocity | 3 | CoM velocity [m/s] |
    | com_target_relative | 3 | CoM target minus support centre [m] |
    | foot_forces | 6 | MuJoCo-measured force on the left, right foot, world axes, divided by m g [-] |
    | previous_action | k | the action just applied (clipped): ``a_t`` after ``step(a_t)``, zeros after ``reset()`` |

    The observation is never NaN or inf: if the simulation's state, the estimated state (with
    ``estimation``, checked before the controller sees it), the torques or the observation itself
    become non-finite, the episode ends (``terminated``, ``info["nonfinite_state"] = True``,
    ``info["termination"]`` says which) and the last finite observation is returned; MuJoCo never
    receives a non-finite torque. A ``reset()`` whose state or observation is not finite raises
    [`NonFiniteStateError`][humanoid_env.envs.base.NonFiniteStateError] (a ``RuntimeError`` naming the blocks)
    instead of returning it.

    ## Task: the CoM target

    The target starts at the nominal standing CoM. Every ``target_interval_s`` = U(2, 4) s a new
    goal is sampled uniformly in nominal +- ``com_target_range_m`` = (0.03, 0.02, 0.0) m (inside the
    support polygon: the feet span x in [-0.07, 0.13] m, y in [-0.13, 0.13] m around the ankles);
    the target glides to it at ``target_speed_mps`` = 0.03 m/s. Set ``com_target_range_m=(0, 0, 0)``
    for a fixed target. The goals stay where they are in the world when the feet slide (a pushed,
    nearly unloaded foot slides: the soles' midpoint moved 3 cm or more in 80 of 100 20-s episodes
    at the default pushes, up to 35 cm, and a goal left beyond the soles' front edge then topples
    the robot); ``goal_follows_feet=True`` (default False) moves the goal and target with the
    soles' midpoint whenever it has moved more than 5 mm while the robot stands (steps included),
    so that they stay around the support: the nominal controller then fell in 21 of 100 such
    episodes instead of 31 (``results/stepping/README.md``).

    ## Pushes

    A horizontal force of U(``push_magnitude_n``) = U(30, 120) N on the torso for
    ``push_duration_s`` = 0.1 s (3-12 N s), every U(``push_interval_s``) = U(2, 4) s after the
    previous push, in direction ``push_direction_deg`` (None: uniform random; 0 = +x, 90 = +y).
    Why U(30, 120) N: the nominal controller's push envelope (``results/push_envelope``: the
    largest single push it survives) is about 9.5 N s backwards and 13-15 N s forwards and
    sideways, so the largest pushes reach about 1.25x the envelope in its weakest direction and
    0.8x sideways: room for a policy to do better. The nominal controller fell in 5 of 20 episodes
    (seeds 5000-5019, ``python -m benchmarks.push_calibration``; U(20, 80) N: 0, U(30, 140) N: 13).
    Turn pushes off with ``push_magnitude_n=(0, 0)``. A push counts as survived unless the robot
    falls within 2 s of its start.

    ## Reward (sum of named terms, each in ``info["reward_<name>"]``)

    | term | formula (default weight) |
    |------|---------------------------|
    | alive | ``w`` while not fallen (``reward_alive`` = 1.0) |
    | com_tracking | ``w exp(-(|com - com_target| / sigma)^2)`` (``reward_com_tracking`` = 1.0, ``com_tracking_sigma_m`` = 0.03 m) |
    | upright | ``w cos(tilt)`` of the pelvis (``reward_upright`` = 0.5) |
    | effort | ``-w mean((tau / tau_max)^2)`` over joints and physics steps (``reward_effort`` = 0.05) |
    | action_rate | ``-w mean((a - a_prev)^2)`` (``reward_action_rate`` = 0.05) |
    | fall | ``-fall_penalty`` on the step the robot falls (10.0) |

    ## Starting state

    The ``home`` keyframe with U(-``init_noise_rad``, +``init_noise_rad``) = +-0.01 rad on every
    joint (clipped to the joint range), zero velocity.

    ## Episode end

    Terminated when the pelvis is lower than ``min_base_height_m`` = 0.45 m above the support
    centre, tilts more than ``max_tilt_rad`` = 0.7 rad, or the simulation becomes non-finite.
    Truncated by the time limit: ``max_episode_steps=1000`` (20 s) in the registration.
    ``info["termination"]`` says why an episode was terminated: ``"fell"``, ``"nonfinite_state"``,
    ``"nonfinite_estimate"``, ``"nonfinite_torques"``, ``"nonfinite_observation"`` (each also sets
    ``fell`` and ``nonfinite_state``), or a task's own reason (the wall env's
    ``"hand_contact_lost"``); None while the episode goes on (and at a time-limit truncation).

    ## info

    ``com`` (3,) [m], ``com_ref`` (3,) the task's CoM target [m], ``wbc_com_reference`` (3,) the
    WBC's CoM reference [m], ``contact_forces`` {left_foot, right_foot: (3,) world [N]},
    ``contact_force_targets`` {name: normal force [N]} (empty outside wbc mode), ``wbc_status``
    ("solved" / "fallback" / "off"), ``wbc_fallbacks`` (physics steps in fallback this env step),
    ``wbc_relaxed`` (physics steps whose rigid-contact QP had no solution and whose relaxed QP
    was solved: the feet gave way, see ``ControllerConfig.contact_slack_weight``),
    ``wbc_contact_slack`` (the largest contact acceleration residual of those steps [m/s^2,
    rad/s^2]; 0 when none), ``wbc_supporting`` (the feet the controller treats as rigid
    supporting contacts at the end of the step: both, unless ``contact_guard`` released one or a
    scenario lifted one; empty outside wbc mode),
    ``wbc_solve_time_us`` (mean QP time this step [us], wall-clock: only with
    ``timing_in_info=True``, off by default so that two identical steps give the same ``info``, as
    env checkers require; ``training.evaluate`` turns it on), ``fell``, ``nonfinite_state``,
    ``termination`` (see Episode end), ``time`` [s],
    ``push_force`` (3,) [N], ``pushes_total``, ``pushes_survived``, ``reward_<name>``; with
    ``estimation``: ``estimate``, the estimate minus the true state at this time (delay included):
    ``base_rpy_error_rad`` (3,) [rad], ``base_linear_velocity_error_mps`` (3,) [m/s],
    ``base_angular_velocity_error_radps`` (3,) [rad/s] (base axes), ``joint_position_error_rad``
    (na,) [rad], ``joint_velocity_error_radps`` (na,) [rad/s], ``bias`` {name: the drifting biases
    now} (see ``SensorModel.errors``).

    ## Scripted scenario

    ``--policy scripted`` runs the contact switching of *Partial Force Control of Constrained Floating-Base Robots* (lift the right foot with its force
    ramped to zero, or switched abruptly): [`humanoid_env.scenarios.ContactSwitchScenario`][humanoid_env.scenarios.contact_switch.ContactSwitchScenario].

    ## Reproducibility

    Same seed and actions give the same trajectory (all randomness comes from ``self.np_random``;
    a fresh controller per episode, so no QP warm start is carried across episodes). With the
    default ``qp_solver="eiquadprog"`` (or "daqp") each QP's solution is the same bit for bit;
    with ``"proxsuite"`` (warm started) it is the same to about 1e-12, since proxsuite's dense
    kernels round differently depending on where their workspace lands in memory. Over a pushed
    rollout the state was seen to differ by up to 1e-9 (other vectorised kernels round by memory
    alignment too), never more than the tests' 1e-6.

    ## Arguments

    Every keyword above, plus ``frame_skip`` = 10 (physics steps per env step: an integer, ``int``
    or numpy integer, in [1, 1000]; a float such as 10.0 is rejected), ``render_mode`` (None,
    "rgb_array", "human"; "human" needs a display: without ``DISPLAY`` or ``WAYLAND_DISPLAY`` on
    Linux ``render()`` raises [`RenderError`][humanoid_env.envs.rendering.RenderError], as it does, again
    at every call, once offscreen rendering failed in the process), ``render_width`` = 480,
    ``render_height`` = 360 [px] (integers in [1, 4096]), ``robot`` = "hubo_lite" (a name of
    ``humanoid_env.robots.ROBOTS`` or a [`RobotDescription`][humanoid_env.robots.description.RobotDescription]: the model, frames, home posture and
    controller settings; sizes of action and observation follow from it), ``push_body`` = None
    (the robot's push body: Hubo-lite's "torso"), ``qp_solver`` = "eiquadprog" (or
    "proxsuite", "daqp", see Reproducibility), ``wbc_backend`` = "compiled" (the controller tick in C++,
    the only one since issue 36: "python", the retired reference tick, is refused), ``timing_in_info`` = False
    (see info), ``physics_loop`` = "compiled" (an env step's physics steps in one compiled call
    where no part reads the state within the env step, else in Python; "python": always in Python;
    the same trajectories bit for bit: see [`humanoid_env.envs.physics_loop`][humanoid_env.envs.physics_loop]), ``randomise`` = None (plant mismatch: the simulated robot's link masses and CoMs,
    joint damping and armature, contact friction and actuator strength drawn at each reset while
    the controller keeps the nominal model; "moderate", "hard" or a dict of ranges, each scale's
    ``hi`` at most 10, the friction's at most 3, see
    [`humanoid_env.envs.randomisation`][humanoid_env.envs.randomisation]; the draws are in reset's ``info["randomisation"]``, and the
    same seed draws the same), ``estimation`` = None (estimated state: the controller and the
    observation see the state late, noisy and biased instead of the simulator's exact state, and
    the torques reach the joints late: white noise and a first-order Gauss-Markov bias on the
    base orientation [rad], base linear [m/s] and angular [rad/s] velocity and the joint
    velocities [rad/s], noise on the joint positions [rad], sensing and actuation delays of whole
    physics steps; "moderate", "hard" or a dict of settings, each standard deviation at most
    0.5 rad (orientation, joint positions), 2 m/s (base linear velocity), 5 rad/s (base angular
    velocity) or 20 rad/s (joint velocities), see [`humanoid_env.envs.estimation`][humanoid_env.envs.estimation]; reward,
    termination and ``info`` keep the true state; combines with ``randomise``), ``leg_odometry_s`` = None (with ``estimation``, wbc mode: the
    supporting feet's velocity relative to their support, low-passed with this time constant [s],
    is taken out of the estimated base linear velocity before anything uses it, see
    [`humanoid_env.envs.odometry`][humanoid_env.envs.odometry]; ``info["estimate"]["leg_odometry_correction_mps"]`` (3,)
    [m/s], world axes, the correction), ``contact_guard`` = None (the contact-loss guard,
    [`wbc_layer.contact_guard`][wbc_layer.contact_guard]: True or a dict of ``ContactGuardSettings`` fields; a foot
    whose sole tilts more than 0.1 rad from the ground, measured in MuJoCo, is released with its
    force bound ramped to 0 over 50 ms, and regained once flat and loaded; off by default: it
    lowered the push envelope, see the module), ``stepping`` = None (the stepping law,
    [`humanoid_env.envs.stepping`][humanoid_env.envs.stepping], wbc mode only: True or a dict of
    its settings (``trigger_margin_m``, ``capture_margin_m``, ``placement_offset_m``, ``max_steps``
    of [`SteppingSettings`][wbc_layer.stepping.SteppingSettings]; ``swing_s``, ``height_m``,
    ``unload_s``, ``load_s``, ``touch_down_force_n``, ``earliest_touch_down``, ``late_s``,
    ``descent_mps``, ``retarget_until`` of [`SwingSettings`][wbc_layer.stepping.SwingSettings]; the
    swing's height and duration default to the robot's step limits): when the capture point leaves
    the support and a step beats standing, a foot is unloaded, swung and put down where the
    capture point will be, until the robot stands again; the CoM target and its goals follow the
    feet. ``info["stepping"]``: ``phase`` ("standing", "unloading", "swing", "loading"),
    ``steps_taken``, ``swing_foot``, ``target`` (2,) [m] and ``target_clipped`` (the last
    placement, clipped to the step limits), ``clipped_steps``, ``touch_downs`` ("early",
    "planned", "late" per step), ``missed``, ``capture_point`` (2,) [m]. Off by default, so the
    env and everything measured on it stay as they were). ``reference_feedforward`` and ``timing_in_info``
    are booleans (``bool`` or ``numpy.bool_``; the string "False" is rejected). Unknown keywords
    raise ``ValueError`` listing the valid ones; an invalid value raises ``ValueError`` reading
    ``"<keyword> must be ..., got ..."`` (a robot description's ``controller_overrides`` are
    checked at construction too: ``"robot.controller_overrides['com_kp'] must be a number, got 'abc'"``).
    Defaults: ``HumanoidBalanceEnv.DEFAULTS``.

    ## Version history

    The id stays ``-v0`` until a first release; changes of behaviour are listed here.

    - 2026-12-03: the physics steps run in compiled code (``physics_loop`` = "compiled", the
      default): the same trajectories bit for bit (37 of 37 fingerprints against the tree before),
      1.2-1.5x the env steps/s; ``gym.make_vec`` gives a threaded vector env.
    - 2026-12-03: the opt-in ``goal_follows_feet`` keyword (default False: nothing changes; 37 of 37
      trajectory fingerprints the same).
    - 2026-12-02: the opt-in ``stepping`` keyword (default None: nothing changes; every
      trajectory of the env with it off is the same bit for bit as before).
    - 2026-11-30: the controller solves its QP exactly (``qp_solver`` default "eiquadprog", was
      "proxsuite") and brakes moving contacts (``ControllerConfig.contact_damping`` = 20 /s,
      was none). The nominal controller's push envelope rose from a worst cell of 30 % to 80 % of
      the capture bound (``results/push_envelope``); the default pushes are unchanged, so they now
      sit well inside what the nominal controller survives (re-calibrating them, and retraining the
      shipped policy, waits for the controller's remaining changes).
    - 2026-12-01: robots are data: the ``robot`` keyword (default "hubo_lite"), ``push_body``
      default None (the robot's: "torso"), ``env.action_structure``. No change of behaviour: the
      same seeds give the same trajectories bit for bit in all three action modes (checked on the
      three envs, 60 steps each). ``info["wbc_supporting"]`` and the ``contact_guard`` keyword
      (off by default) are new.
    - 2026-12-01 (later): default pushes U(30, 120) N, were U(20, 80) N (see Pushes: the
      controller's envelope had risen from 30 % to 80 % of the capture bound, and the old pushes
      felled it in 0 of 20 episodes); the controller's joint-limit rows are on
      (``ControllerConfig.joint_limit_horizon_s`` = 0.05 s, was 0). The shipped policy was
      retrained for both.
    - 2026-12-02: the observation's ``previous_action`` block holds the action just applied
      (``a_t`` after ``step(a_t)``, clipped; zeros after a reset); it lagged one step (``a_{t-1}``),
      so the policy never saw the action ``action_rate`` compares its next one with. Rewards,
      states and every other block are unchanged bit for bit (``benchmarks.fingerprints``: 1000
      steps of every env in every action mode on both robots, and 17 further settings). The
      shipped policies, trained with the late block, were re-checked and their claims hold
      (``tests/test_shipped_policies.py``, ``results/shipped_checks``). Also
      new: ``info["termination"]``; a non-finite estimate or torque ends the episode
      (``"nonfinite_estimate"``, ``"nonfinite_torques"``), a non-finite reset raises
      ``NonFiniteStateError``; stricter keyword checks (``frame_skip`` an integer in [1, 1000],
      booleans, the bounds of ``estimation`` and ``randomise``).
    - 2026-12-02 (later): the env is a thin shell over parts (plant, state pipeline, actuation,
      task; ``docs/architecture.md``), each keyword checked by one part's typed config. No change of
      behaviour: ``benchmarks.fingerprints`` gives the same hashes bit for bit for all 38 cases
      (1000 steps of every env in every action mode on both robots, the shipped policies, 17
      settings). For code that subclassed the env, its hooks moved to ``Task`` and the parts (the
      table in ``docs/architecture.md``); a scripted scenario's hooks take ``(command, context,
      time, dt)`` and ``(references, context, time, dt)`` and add controller tasks through
      ``controller_tasks``; ``set_scenario`` refuses a scenario outside wbc mode at once (it did at
      the next reset); ``env.plant`` is the plant (the randomiser is ``env.plant.randomiser``).
    """

    task_type = BalanceTask
    DEFAULTS = BALANCE_DEFAULTS
    env_name = "HumanoidWBC-v0"
