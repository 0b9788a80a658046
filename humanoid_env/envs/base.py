"""Base of the humanoid-wbc environments: scene, physics loop, WBC, action modes, pushes.

Subclasses (balance, wall, seesaw) choose the scene ([`scene`][humanoid_env.envs.base.HumanoidWBCBaseEnv.scene]), extend [`DEFAULTS`][humanoid_env.envs.base.HumanoidWBCBaseEnv.DEFAULTS]
and the wbc-mode action ([`wbc_action_structure`][humanoid_env.envs.base.HumanoidWBCBaseEnv.wbc_action_structure]), and override the
hook methods that move the CoM target and add reward terms and metrics to ``info`` (the class's
source lists them). What is robot-specific comes from the ``robot`` keyword's
[`RobotDescription`][humanoid_env.robots.description.RobotDescription]; what is mode-specific from the action mode's
[`Actuation`][humanoid_env.envs.actuation.Actuation].

One env step = ``frame_skip`` physics steps (default 10 at 500 Hz: a 50 Hz policy). In
``action_mode="wbc"`` the whole-body controller computes the torques at every physics step.
"""

from __future__ import annotations

import math
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import mujoco
import numpy as np

from humanoid_env.envs.actuation import Actuation, PDActuation, TorqueActuation, WbcActuation
from humanoid_env.envs.estimation import ActuationDelay, StateEstimator, state_estimation
from humanoid_env.envs.kwargs import (
    check_bool,
    check_choice,
    check_int,
    check_range,
    check_scalar,
    check_vector,
    is_bool,
    is_number,
    keyword_error,
    naming,
    resolve_kwargs,
    resolve_preset,
)
from humanoid_env.envs.odometry import LegOdometry, leg_odometry_time_constant
from humanoid_env.envs.pushes import PushSchedule
from humanoid_env.envs.randomisation import PlantRandomiser, plant_randomisation
from humanoid_env.envs.rendering import SceneRenderer
from humanoid_env.envs.sensing import ContactSensor
from humanoid_env.robots import DEFAULT_ROBOT, FEET, ROBOTS, RobotDescription, robot_description
from humanoid_env.sim_bridge import NonFiniteTorqueError, SimBridge
from wbc_layer import ControllerConfig, RobotModel, WholeBodyController
from wbc_layer.config import BACKENDS, QP_SOLVERS
from wbc_layer.contact_guard import ContactGuard, ContactGuardSettings

if TYPE_CHECKING:
    from humanoid_env.scenarios.base import Scenario

ACTION_MODES = ("wbc", "torque", "pd")
GRAVITY = 9.81
#: Most physics steps per env step (``frame_skip``): 2 s at 500 Hz.
MAX_FRAME_SKIP = 1000
#: Largest rendered image side [px] (``render_width``, ``render_height``).
MAX_RENDER_PX = 4096
#: ``info["termination"]`` of an episode that goes on.
RUNNING = None
_BAD_STATE_WARNINGS = [int(w) for w in (mujoco.mjtWarning.mjWARN_BADQPOS, mujoco.mjtWarning.mjWARN_BADQVEL, mujoco.mjtWarning.mjWARN_BADQACC)]
_BAD_QPOS, _BAD_QVEL, _BAD_QACC = _BAD_STATE_WARNINGS
# ``ndarray.sum()`` without its Python wrapper (the same pairwise sum): a working helper, not API.
add_reduce = np.add.reduce
isfinite = math.isfinite

#: Keyword arguments shared by every environment, with their defaults (see the subclasses'
#: docstrings for the full table).
BASE_DEFAULTS: dict[str, Any] = {
    "robot": DEFAULT_ROBOT,
    "action_mode": "wbc",
    "render_mode": None,
    "render_width": 480,
    "render_height": 360,
    "frame_skip": 10,
    "init_noise_rad": 0.01,
    # pushes at the torso
    "push_magnitude_n": (30.0, 120.0),
    "push_duration_s": 0.1,
    "push_interval_s": (2.0, 4.0),
    "push_direction_deg": None,
    "push_body": None,  # None: the robot description's push body
    # wbc-mode reference decoding
    "com_offset_low_m": (-0.04, -0.04, -0.05),
    "com_offset_high_m": (0.04, 0.04, 0.01),
    "force_share_range": (0.1, 0.9),
    "com_rate_limit_mps": 0.25,
    "com_offset_filter_s": 0.0,
    "force_share_rate_limit": 2.0,
    "force_weight": 1e-2,
    "reference_feedforward": True,
    # pd mode
    "pd_action_scale_rad": 0.5,
    "pd_kp_per_nm": 4.0,
    "pd_kd_s": 0.05,
    # termination
    "min_base_height_m": 0.45,
    "max_tilt_rad": 0.7,
    # reward weights
    "reward_alive": 1.0,
    "reward_com_tracking": 1.0,
    "com_tracking_sigma_m": 0.03,
    "reward_upright": 0.5,
    "reward_effort": 0.05,
    "reward_action_rate": 0.05,
    "fall_penalty": 10.0,
    # diagnostics and reproducibility: wall-clock QP time in info is opt-in (it makes two
    # identical steps' info differ, which env checkers reject)
    "timing_in_info": False,
    "qp_solver": "eiquadprog",
    "wbc_backend": "compiled",
    # plant mismatch (humanoid_env.envs.randomisation): None, "moderate", "hard" or a dict of ranges
    "randomise": None,
    # estimated state (humanoid_env.envs.estimation): None, "moderate", "hard" or a dict of settings
    "estimation": None,
    # leg odometry (humanoid_env.envs.odometry): None (off) or the time constant [s] with which the
    # supporting feet correct the estimated base linear velocity (wbc mode with estimation)
    "leg_odometry_s": None,
    # the contact-loss guard (wbc_layer.contact_guard): None (off), True (default settings) or a
    # dict of ContactGuardSettings fields
    "contact_guard": None,
}


class NonFiniteStateError(RuntimeError):
    """``reset()`` produced a non-finite state or observation (no episode can start from it)."""


def contact_guard_settings(value: Any) -> ContactGuardSettings | None:
    """The ``contact_guard`` keyword: None or False (off), True (the default
    [`ContactGuardSettings`][wbc_layer.contact_guard.ContactGuardSettings]), a dict of its fields (numbers; None
    where the field's default is None), or settings."""
    if value is None or (is_bool(value) and not value):
        return None
    if is_bool(value):
        return ContactGuardSettings()
    if not isinstance(value, dict | ContactGuardSettings):
        allowed = "None, True, False, a dict of ContactGuardSettings fields or a ContactGuardSettings"
        raise keyword_error("contact_guard", allowed, value)
    if isinstance(value, dict):
        defaults = {f.name: f.default for f in fields(ContactGuardSettings)}
        for name, item in value.items():
            optional = name in defaults and defaults[name] is None
            if name in defaults and not is_number(item) and not (optional and item is None):
                allowed = "a number or None" if optional else "a number"
                raise keyword_error(f"contact_guard[{name!r}]", allowed, item)
    return resolve_preset("contact_guard", value, ContactGuardSettings, {}, "setting")


def check_controller_overrides(description: RobotDescription) -> None:
    """The ``robot`` keyword's ``controller_overrides`` ([`wbc_layer.ControllerConfig`][wbc_layer.config.ControllerConfig] fields):
    a number >= 0 where the field holds a number (an integer in [0, 1000] for an integer field), and
    a configuration the controller accepts; else ``ValueError`` naming ``robot``, the override and
    what is allowed (``"robot.controller_overrides['com_kp'] must be a number, got 'abc'"``)."""
    defaults = {f.name: f.default for f in fields(ControllerConfig)}
    for name, value in description.controller_overrides.items():
        default = defaults.get(name)
        label = f"robot.controller_overrides[{name!r}]"
        if isinstance(default, int) and not is_bool(default):
            check_int(label, value, 0, 1000)
        elif isinstance(default, float):
            check_scalar(label, value, 0.0)
    with naming(f"robot ({description.name!r}) controller_overrides"):
        description.controller_config()


def clip_scalar(x: float, low: float, high: float) -> float:
    """``float(np.clip(x, low, high))`` for one number, without numpy's call overhead: the same
    value bit for bit (on a tie ``x`` itself is kept, as numpy does; a NaN passes through)."""
    if x != x:
        return float(x)
    return float(min(max(x, low), high))


_ZERO3 = np.zeros(3)
_ZERO3.flags.writeable = False
_DOWN = np.array([0.0, 0.0, -1.0])
_DOWN.flags.writeable = False


def _same(a: Any, b: np.ndarray) -> bool:
    """Whether ``a`` is an array of ``b``'s shape and dtype holding the same values bit for bit
    (a signed zero counts)."""
    return type(a) is np.ndarray and a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _all_finite(x: np.ndarray) -> bool:
    """``np.all(np.isfinite(x))``: a finite sum has finite terms (the entry-wise check only runs
    when the sum is not finite)."""
    return isfinite(add_reduce(x)) or bool(np.isfinite(x).all())


def _norm(x: np.ndarray) -> float:
    """``float(np.linalg.norm(x))`` of a vector (the same value: the square root of ``x.dot(x)``)."""
    return math.sqrt(x.dot(x))


def limit_length(step: np.ndarray, max_length: float) -> np.ndarray:
    """``step`` (a vector), scaled down in place to ``max_length`` if it is longer (direction kept)."""
    norm = _norm(step)
    if norm > max_length:
        step *= max_length / norm
    return step


def _mean_square(x: np.ndarray) -> float:
    """``float(np.mean(x**2))`` (the same value: ``x**2`` is ``x * x``, the mean a sum over the count)."""
    return float(add_reduce(x * x) / x.size)


def low_pass_gain(dt: float, time_constant_s: float) -> float:
    """Share of the remaining step a first-order low-pass of ``time_constant_s`` [s] takes in ``dt``
    [s] (``min(1, dt / T)``; 1, i.e. no filter, when ``T`` or ``dt`` is 0)."""
    return min(1.0, dt / time_constant_s) if time_constant_s > 0.0 and dt > 0.0 else 1.0


class HumanoidWBCBaseEnv(gym.Env):
    """Common machinery; see [`humanoid_env.envs.balance.HumanoidBalanceEnv`][humanoid_env.envs.balance.HumanoidBalanceEnv] for the spec."""

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 50}
    #: the scene (one of ``humanoid_env.robots.SCENES``); the robot description gives its MJCF,
    #: which must hold a keyframe named ``home``.
    scene: str = "flat"
    #: keyword arguments and their defaults; subclasses extend it.
    DEFAULTS: dict[str, Any] = BASE_DEFAULTS
    #: name used in error messages.
    env_name = "HumanoidWBC"
    #: the action's blocks in ``action_mode="wbc"`` (name -> size; subclasses add references).
    wbc_action_structure: dict[str, int] = {"com_offset": 3, "foot_force_share": 1}
    #: contacts (feet, hands of the robot description) measured into ``info["contact_forces"]``.
    sensed_contacts: tuple[str, ...] = FEET
    #: task-specific observation blocks (name -> size), appended after ``previous_action``;
    #: the subclass's task-observation hook fills them.
    task_observation_structure: dict[str, int] = {}
    #: ``info["termination"]`` when the subclass's task-termination hook ends an episode.
    task_termination: str = "task"

    def __init__(self, **kwargs: Any):
        super().__init__()
        self.config = resolve_kwargs(self.DEFAULTS, kwargs, type(self).__name__)
        self._validate_config(self.config)
        cfg = self.config
        self.action_mode: str = cfg["action_mode"]
        self.render_mode = cfg["render_mode"]
        self.frame_skip = int(cfg["frame_skip"])
        #: the robot (frames, feet, home posture, controller settings).
        self.description: RobotDescription = robot_description(cfg["robot"])
        check_controller_overrides(self.description)
        #: the scene's MJCF (robot + world).
        self.scene_xml: Path = self.description.scene_path(self.scene)

        self.model = mujoco.MjModel.from_xml_path(str(self.scene_xml))
        self.data = mujoco.MjData(self.model)
        self.dt_physics = float(self.model.opt.timestep)
        self.dt = self.dt_physics * self.frame_skip
        self.metadata = {**self.metadata, "render_fps": int(round(1.0 / self.dt))}
        self.robot = RobotModel.from_mjcf(self.description.mjcf_path())
        self.bridge = SimBridge(self.model, self.robot.joint_names)
        self.na = len(self.robot.joint_names)
        limbs = {**self.description.feet, **self.description.hands}
        self.sensor = ContactSensor(self.model, {name: limbs[name].geom for name in self.sensed_contacts})
        self.weight_n = self.robot.mass * GRAVITY
        self.home_key = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_KEY, "home")
        if self.home_key < 0:
            raise ValueError(f"{self.scene_xml} has no keyframe named 'home'")
        self.root_body = int(self.model.jnt_bodyid[self._joint_id(self.description.root_joint)])
        push_body = cfg["push_body"] if cfg["push_body"] is not None else self.description.push_body
        self.push_body = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, push_body)
        if self.push_body < 0:
            allowed = f"None or the name of a body of the scene {self.scene_xml.name}"
            raise keyword_error("push_body", allowed, push_body)
        self.sole_sites = [mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_SITE, self.description.feet[f].site) for f in FEET]
        self._sole_sites = np.array(self.sole_sites)
        ranges = plant_randomisation(cfg["randomise"])
        #: draws the simulated robot's physics per episode (None: the nominal model, untouched).
        self.plant = PlantRandomiser(self.model, self.root_body, self.bridge.actuator_ids, ranges) if ranges else None
        #: what the plant randomiser drew this episode (``info["randomisation"]``), or None.
        self.randomisation: dict[str, Any] | None = None
        settings = state_estimation(cfg["estimation"])
        #: the estimated state the controller and the observation see (None: the exact state).
        self.estimator = (
            StateEstimator(self.model, self.bridge.root_qpos, self.bridge.root_dof, self.bridge.joint_qpos, self.bridge.joint_dof, settings)
            if settings else None
        )  # fmt: skip
        #: torques applied ``actuation_delay_steps`` physics steps late (None: at once).
        self.actuation_delay = ActuationDelay(settings.actuation_delay_steps) if settings and settings.actuation_delay_steps else None
        self._estimate_data = mujoco.MjData(self.model) if settings else None
        odometry_s = leg_odometry_time_constant(cfg["leg_odometry_s"])
        if odometry_s is not None:
            self.estimator.odometry = LegOdometry(self.model, self.bridge.root_dof, odometry_s, self._odometry_feet)

        # Nominal standing posture and CoM (the home keyframe, without noise).
        mujoco.mj_resetDataKeyframe(self.model, self.data, self.home_key)
        mujoco.mj_forward(self.model, self.data)
        self.q_home = self.data.qpos[self.bridge.joint_qpos].copy()
        self.com_nominal = self.data.subtree_com[self.root_body].copy()
        self.torque_max = self.bridge.torque_max.copy()
        self._inverse_torque_max = 1.0 / self.torque_max
        self._decoded_action: np.ndarray | None = None
        self._checked_data: mujoco.MjData | None = None  # whose arrays _state_views holds
        #: the contact forces of a step's final state, measured once for its observation, reward,
        #: termination and info (None outside that part of step()): see _contact_forces.
        self._step_forces: tuple[mujoco.MjData, dict[str, np.ndarray]] | None = None
        self.joint_low = self.model.jnt_range[[self._joint_id(n) for n in self.robot.joint_names], 0].copy()
        self.joint_high = self.model.jnt_range[[self._joint_id(n) for n in self.robot.joint_names], 1].copy()

        self.com_offset_low = np.asarray(cfg["com_offset_low_m"], dtype=float)
        self.com_offset_high = np.asarray(cfg["com_offset_high_m"], dtype=float)
        self.pushes = PushSchedule(
            magnitude_n=cfg["push_magnitude_n"],
            duration_s=cfg["push_duration_s"],
            interval_s=cfg["push_interval_s"],
            direction_deg=cfg["push_direction_deg"],
        )

        #: turns actions into torques (one object per action mode).
        self.actuation: Actuation = self._make_actuation()
        #: the action's blocks (name -> size), in order.
        self.action_structure: dict[str, int] = self.actuation.structure
        action_size = self.actuation.size
        self.action_space = gym.spaces.Box(-1.0, 1.0, shape=(action_size,), dtype=np.float32)
        self.observation_structure: dict[str, int] = {
            "base_height": 1,
            "gravity_base": 3,
            "base_linear_velocity": 3,
            "base_angular_velocity": 3,
            "joint_positions": self.na,
            "joint_velocities": self.na,
            "com_relative": 3,
            "com_velocity": 3,
            "com_target_relative": 3,
            "foot_forces": 3 * len(FEET),
            "previous_action": action_size,
            **self.task_observation_structure,
        }
        size = sum(self.observation_structure.values())
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)

        self.controller: WholeBodyController | None = None
        #: the contact-loss guard on the feet (wbc mode with ``contact_guard``), or None.
        self.guard: ContactGuard | None = None
        self._guard_settings = contact_guard_settings(cfg["contact_guard"])
        #: scripted scenario driving the task and the WBC (see [`set_scenario`][humanoid_env.envs.base.HumanoidWBCBaseEnv.set_scenario]), or None.
        self.scenario: Scenario | None = None
        self._renderer: SceneRenderer | None = None
        self._reset_state_variables()

    # -- configuration --------------------------------------------------------------------
    @classmethod
    def _validate_config(cls, cfg: dict[str, Any]) -> None:
        """Reject invalid values with a message naming the keyword."""
        robot = cfg["robot"]
        if not isinstance(robot, str | RobotDescription) or (isinstance(robot, str) and robot not in ROBOTS):
            raise keyword_error("robot", f"one of {sorted(ROBOTS)} or a RobotDescription", robot)
        check_choice("action_mode", cfg["action_mode"], ACTION_MODES)
        check_choice("qp_solver", cfg["qp_solver"], QP_SOLVERS)
        check_choice("wbc_backend", cfg["wbc_backend"], BACKENDS)
        plant_randomisation(cfg["randomise"])
        state_estimation(cfg["estimation"])
        contact_guard_settings(cfg["contact_guard"])
        if cfg["leg_odometry_s"] is not None:
            leg_odometry_time_constant(cfg["leg_odometry_s"])
            if cfg["estimation"] is None or cfg["action_mode"] != "wbc":
                raise ValueError(
                    "leg_odometry_s needs an estimated state (estimation not None) and action_mode='wbc' "
                    f"(the feet it uses are the controller's supporting contacts), got estimation={cfg['estimation']!r}, "
                    f"action_mode={cfg['action_mode']!r}"
                )
        mode = cfg["render_mode"]
        if mode is not None and not (isinstance(mode, str) and mode in cls.metadata["render_modes"]):
            raise keyword_error("render_mode", f"None or one of {cls.metadata['render_modes']}", mode)
        check_int("frame_skip", cfg["frame_skip"], 1, MAX_FRAME_SKIP)
        for name in ("render_width", "render_height"):
            check_int(name, cfg[name], 1, MAX_RENDER_PX)
        for name in ("reference_feedforward", "timing_in_info"):
            check_bool(name, cfg[name])
        push_body = cfg["push_body"]
        if push_body is not None and not (isinstance(push_body, str) and push_body):
            raise keyword_error("push_body", "None (the robot's push body) or the name of a body of the scene", push_body)
        check_scalar("init_noise_rad", cfg["init_noise_rad"], 0.0, 0.5)
        check_range("push_magnitude_n", cfg["push_magnitude_n"], 0.0)
        check_scalar("push_duration_s", cfg["push_duration_s"], 0.0)
        lo, _ = check_range("push_interval_s", cfg["push_interval_s"], 0.0)
        if lo <= 0.0:
            raise ValueError(f"push_interval_s must have lo > 0, got {cfg['push_interval_s']!r}")
        if cfg["push_direction_deg"] is not None:
            check_scalar("push_direction_deg", cfg["push_direction_deg"])
        low = check_vector("com_offset_low_m", cfg["com_offset_low_m"], 3, -0.2)
        high = check_vector("com_offset_high_m", cfg["com_offset_high_m"], 3, -0.2)
        if np.any(low > 0) or np.any(high < 0) or np.any(high > 0.2):
            raise ValueError(
                f"com_offset_low_m must be <= 0 <= com_offset_high_m <= 0.2 per axis, got {low.tolist()} and {high.tolist()}"
            )
        share = check_range("force_share_range", cfg["force_share_range"], 0.0, 1.0)
        if not share[0] <= 0.5 <= share[1]:
            raise ValueError(f"force_share_range must contain 0.5 (the zero action), got {share}")
        check_scalar("com_rate_limit_mps", cfg["com_rate_limit_mps"], 0.0, strict_low=True)
        check_scalar("com_offset_filter_s", cfg["com_offset_filter_s"], 0.0, 10.0)
        check_scalar("force_share_rate_limit", cfg["force_share_rate_limit"], 0.0, strict_low=True)
        check_scalar("force_weight", cfg["force_weight"], 0.0)
        for name in ("pd_action_scale_rad", "pd_kp_per_nm", "pd_kd_s", "min_base_height_m"):
            check_scalar(name, cfg[name], 0.0)
        check_scalar("max_tilt_rad", cfg["max_tilt_rad"], 0.0, np.pi, strict_low=True)
        check_scalar("com_tracking_sigma_m", cfg["com_tracking_sigma_m"], 0.0, strict_low=True)
        for name in ("reward_alive", "reward_com_tracking", "reward_upright", "reward_effort", "reward_action_rate", "fall_penalty"):
            check_scalar(name, cfg[name], 0.0)

    def _joint_id(self, name: str) -> int:
        joint = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, name)
        if joint < 0:
            raise ValueError(f"{self.scene_xml} has no joint named {name!r} (robot {self.description.name!r})")
        return joint

    def _make_actuation(self) -> Actuation:
        """The action mode's [`Actuation`][humanoid_env.envs.actuation.Actuation]."""
        makers = {
            "wbc": lambda: WbcActuation(self.wbc_action_structure),
            "torque": lambda: TorqueActuation(self.na),
            "pd": lambda: PDActuation(self.torque_max, self.config),
        }
        return makers[self.action_mode]()

    def _reset_state_variables(self) -> None:
        self._step_contact_slack = 0.0
        #: the last action applied (clipped to the action space): the observation's
        #: ``previous_action`` block; zeros after a reset.
        self.previous_action = np.zeros(self.action_space.shape, dtype=np.float64)
        #: the action applied before it (a_{t-1} during step(a_t)): what ``action_rate`` compares with.
        self._action_before = self.previous_action
        self.com_target = self.com_nominal.copy()
        self.com_target_velocity = np.zeros(3)
        self.com_offset = np.zeros(3)
        self.com_offset_velocity = np.zeros(3)
        self.force_share = 0.5
        self.wbc_com_reference = self.com_nominal.copy()
        self.last_tau = np.zeros(self.na)
        self.last_tau_computed = np.zeros(self.na)
        self._last_obs: np.ndarray | None = None
        self._last_com = self.com_nominal.copy()
        self.fell = False
        self.nonfinite_state = False
        #: why the episode ended (``info["termination"]``), None while it goes on.
        self.termination: str | None = RUNNING

    # -- gymnasium API --------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        m, d = self.model, self.data
        if self.plant is not None:
            self.randomisation = self.plant.draw(self.np_random, d)
        mujoco.mj_resetDataKeyframe(m, d, self.home_key)
        noise = self.np_random.uniform(-1.0, 1.0, self.na) * self.config["init_noise_rad"]
        d.qpos[self.bridge.joint_qpos] = np.clip(self.q_home + noise, self.joint_low, self.joint_high)
        mujoco.mj_forward(m, d)
        self._reset_state_variables()
        self._warning_counts = self._bad_state_warning_count()
        self.pushes.reset(self.np_random, 0.0)
        self._reset_task()
        if self.estimator is not None:  # its own generator, spawned: the env's draws stay as without it
            self.estimator.reset(self.np_random.spawn(1)[0], d)
        if self.actuation_delay is not None:
            self.actuation_delay.reset()
        self.actuation.reset(self)
        if self.scenario is not None:
            self.scenario.reset(self)
        self.actuation.update_references(self, 0.0, None)
        obs = self._reset_observation()
        return obs.copy(), self._info(status=self.actuation.step_status(0), fallbacks=0, solve_us=None)

    def _reset_observation(self) -> np.ndarray:
        """The first observation of an episode (kept as the last finite one); raises
        [`NonFiniteStateError`][humanoid_env.envs.base.NonFiniteStateError] naming the non-finite blocks if the reset state, its
        estimate or the observation is not finite (no episode can start from it)."""
        obs = self._observation()
        if not (self._state_is_finite() and _all_finite(obs)):
            raise NonFiniteStateError(self._nonfinite_reset_message(obs))
        self._last_obs = obs
        return obs

    def _nonfinite_reset_message(self, obs: np.ndarray) -> str:
        """What `_reset_observation` says: the non-finite blocks, and the keywords that may cause them."""
        structure = self.observation_structure
        offsets = np.cumsum([0, *structure.values()])
        blocks = [name for name, a, b in zip(structure, offsets[:-1], offsets[1:], strict=True) if not np.isfinite(obs[a:b]).all()]
        state = "finite" if self._state_is_finite() else "not finite"
        cfg = self.config
        return (
            f"{type(self).__name__}.reset(): the initial state is not finite (observation blocks {blocks}, simulator "
            f"state {state}); no episode can start from it. Check the robot description and the keywords "
            f"estimation={cfg['estimation']!r}, randomise={cfg['randomise']!r}, init_noise_rad={cfg['init_noise_rad']!r}"
        )

    def _mark_nonfinite(self, reason: str) -> None:
        """This step cannot go on: the state, estimate, torques or observation is not finite
        (``reason``: ``info["termination"]``, the first one found is kept)."""
        if not self.nonfinite_state:
            self.nonfinite_state = True
            self.termination = reason

    def _estimate_is_finite(self) -> bool:
        """Whether the estimated state (with ``estimation``) is finite: one sum each of ``qpos``, ``qvel``."""
        estimator = self.estimator
        return isfinite(add_reduce(estimator.qpos)) and isfinite(add_reduce(estimator.qvel))

    def step(self, action):
        action = self._check_action(action)
        m, d = self.model, self.data
        statuses: list[str] = []
        solve_times: list[float] = []
        effort = 0.0
        self._step_contact_slack = 0.0
        if not self._state_is_finite():  # after that, each physics step checks the state it made
            self._mark_nonfinite("nonfinite_state")
        # The physics steps' loop is the env's hot path (10 per env step): what does not change
        # within an env step is looked up once here.
        dt = self.dt_physics
        actuation, pushes, bridge = self.actuation, self.pushes, self.bridge
        push_force = d.xfrc_applied[self.push_body, :3]  # a view into d
        ctrl = d.ctrl
        inverse_torque_max = self._inverse_torque_max
        for _ in range(0 if self.nonfinite_state else self.frame_skip):
            time = float(d.time)
            if self.scenario is not None:
                self.scenario.update_task(self, time, dt)
            else:
                self._update_task(time, dt)
            push_force[:] = pushes.update(self.np_random, time)
            if self.estimator is not None:
                self.estimator.update(d)  # the state the controller sees at this physics step
                if not self._estimate_is_finite():  # never handed to the controller
                    self._mark_nonfinite("nonfinite_estimate")
                    break
            actuation.update_references(self, dt, action)
            if self.scenario is not None and actuation.drives_controller:
                self.scenario.update_controller(self, time, dt)
            tau, status, solve_us = actuation.torques(self, action)
            statuses.append(status)
            solve_times.append(solve_us)
            self.last_tau_computed = tau
            if self.actuation_delay is not None:
                tau = self.actuation_delay.push(tau)  # the torque computed actuation_delay_steps ago
            try:
                bridge.torques_to_ctrl(tau, ctrl)  # checks them: the simulation never receives NaN
            except NonFiniteTorqueError:
                self._mark_nonfinite("nonfinite_torques")
                break
            relative = tau * inverse_torque_max
            effort += float(relative @ relative) / relative.size
            self.last_tau = tau
            mujoco.mj_step(m, d)
            if self._bad_state_warning_count() > self._warning_counts or not self._state_is_finite():
                self._mark_nonfinite("nonfinite_state")
                break
        effort /= max(len(statuses), 1)
        # The observation's previous_action block holds this step's action; action_rate compares
        # it with the one before (kept in _action_before).
        self._action_before, self.previous_action = self.previous_action, action.copy()
        try:
            if not self.nonfinite_state:
                mujoco.mj_forward(m, d)  # positions-dependent quantities at the new state
                self._step_forces = (d, self.sensor.measure(d))
                obs = self._observation()
                if not _all_finite(obs):
                    self._mark_nonfinite("nonfinite_observation")
            if self.nonfinite_state:
                obs = self._last_obs.copy()
            self._last_obs = obs
            self.fell = self.nonfinite_state or self._fallen()
            task_ended = self._task_terminated()
            terminated = task_ended or self.fell
            if not self.nonfinite_state:
                self.termination = "fell" if self.fell else self.task_termination if task_ended else RUNNING
            terms = self._reward_terms(action, effort)
            reward = 0.0
            for value in terms.values():
                reward += value
            fallbacks = statuses.count("fallback")
            status = self.actuation.step_status(fallbacks)
            info = self._info(status, fallbacks, float(np.mean(solve_times)) if solve_times else None, statuses.count("relaxed"))
            info.update({f"reward_{name}": value for name, value in terms.items()})
        finally:
            self._step_forces = None
        if self.render_mode == "human":
            self.render()
        return obs.copy(), float(reward), bool(terminated), False, info

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='rgb_array' to gym.make")
            return None
        if self._renderer is None:
            self._renderer = SceneRenderer(
                self.model, self.render_mode, self.config["render_width"], self.config["render_height"]
            )
        return self._renderer.render(self.data)

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    # -- copying ----------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """What ``copy.deepcopy`` and ``pickle`` copy: the whole state (MuJoCo model and data,
        generators, pushes, estimator, filters, controller), not the renderer (a copy renders
        anew) nor the cached views into ``self.data``. Raises
        [`ControllerCopyError`][wbc_layer.controller.ControllerCopyError] for a ``qp_solver="proxsuite"``
        controller that has solved (see ``WholeBodyController.check_copyable``)."""
        if self.controller is not None:
            self.controller.check_copyable()
        state = self.__dict__.copy()
        state["_renderer"] = None
        state["_checked_data"] = None  # _state_views makes its views of the copy's data anew
        state.pop("_checked_views", None)
        if isinstance(self.config["robot"], str):  # a registered robot (frozen): copied by name, as its
            state["description"] = None  # scene makers need not pickle (the G1's are closures)
            state["_registered_robot"] = self.config["robot"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a copy; a registered robot's description is looked up by name (the same object)."""
        name = state.pop("_registered_robot", None)
        self.__dict__.update(state)
        if name is not None:
            self.description = robot_description(name)

    # -- input checks ---------------------------------------------------------------------
    def _check_action(self, action) -> np.ndarray:
        """(k,) float64 action clipped to [-1, 1]; wrong shape or NaN/inf raise ``ValueError``."""
        try:
            action = np.asarray(action, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"action must be numeric with shape {self.action_space.shape}, got {action!r}") from err
        if action.shape != self.action_space.shape:
            raise ValueError(f"action must have shape {self.action_space.shape}, got shape {action.shape}")
        if not _all_finite(action):
            bad = np.flatnonzero(~np.isfinite(action))
            raise ValueError(f"action has non-finite (NaN or inf) values at indices {bad.tolist()}")
        return action.clip(-1.0, 1.0)  # np.clip's own call, without its dispatch

    # -- WBC and torques ------------------------------------------------------------------
    def _build_controller(self) -> None:
        """A fresh controller per episode (no warm start carried across episodes: determinism)."""
        q_home, v_zero = self._home_pinocchio()
        self.robot.update(q_home, v_zero)
        self.controller = WholeBodyController(self.robot, self.controller_config())

    def _build_guard(self) -> None:
        """The episode's contact-loss guard on the feet (after `_build_controller`)."""
        self.guard = ContactGuard(self.controller, FEET, self._guard_settings) if self._guard_settings else None

    def update_guard(self, dt: float) -> None:
        """Advance the contact-loss guard by ``dt`` [s] with the feet's measured normal forces
        and sole tilts (MuJoCo's, against [`support_normal`][humanoid_env.envs.base.HumanoidWBCBaseEnv.support_normal])."""
        forces = self.sensor.measure(self.data)
        normal = self.support_normal()
        measurements = {}
        for name, site in zip(FEET, self.sole_sites, strict=True):
            sole_z = self.data.site_xmat[site].reshape(3, 3)[:, 2]
            tilt = math.acos(max(-1.0, min(1.0, float(sole_z @ normal))))
            measurements[name] = (float(forces[name] @ normal), tilt)
        self.guard.update(dt, measurements)

    def support_normal(self) -> np.ndarray:
        """(3,) unit normal, world axes, of the surface the feet stand on (flat ground: +z)."""
        return self._UP

    _UP = np.array([0.0, 0.0, 1.0])

    def _odometry_feet(self) -> list[tuple[int, int]]:
        """``(sole site id, id of the body it stands on)`` of each supporting foot (leg odometry)."""
        feet = []
        for name in self.supporting_contacts():
            on_body = self.controller.contact(name).on_body
            body = 0 if on_body is None else mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, on_body)
            feet.append((self.sole_sites[FEET.index(name)], body))
        return feet

    def supporting_contacts(self) -> list[str]:
        """The feet the controller treats as rigid supporting contacts now (empty without one)."""
        if self.controller is None:
            return []
        return [name for name in FEET if self.controller.contact(name).active]

    def controller_config(self) -> ControllerConfig:
        """The WBC's configuration: the robot's standing controller with the env's solver settings."""
        return self.description.controller_config(qp_solver=self.config["qp_solver"], backend=self.config["wbc_backend"])

    def _home_pinocchio(self) -> tuple[np.ndarray, np.ndarray]:
        qpos = self.model.key_qpos[self.home_key].copy()
        return self.bridge.to_pinocchio(qpos, np.zeros(self.model.nv))

    def _decode_wbc_action(self, action: np.ndarray) -> tuple[np.ndarray, float]:
        """Action in [-1, 1] -> (CoM offset (3,) [m], left-foot force share [-]), from its blocks
        ``com_offset`` and ``foot_force_share``.

        Each axis maps 0 -> 0 and +-1 -> the high/low bound (piecewise linear, so the bounds may
        be asymmetric); the share maps 0 -> 0.5 and +-1 -> the ends of ``force_share_range``.
        """
        blocks = self.actuation.blocks(action)
        com, a_share = blocks["com_offset"], float(blocks["foot_force_share"][0])
        offset = np.where(com >= 0, com * self.com_offset_high, -com * self.com_offset_low)
        lo, hi = self.config["force_share_range"]
        share = 0.5 + (a_share * (hi - 0.5) if a_share >= 0 else -a_share * (lo - 0.5))
        return offset, float(share)

    def _update_references(self, dt: float, action: np.ndarray | None = None) -> None:
        """Rate-limit the decoded references towards the action's and hand them to the WBC
        (wbc mode only: [`WbcActuation`][humanoid_env.envs.actuation.WbcActuation] calls it)."""
        cfg = self.config
        if action is not None:
            if action is not self._decoded_action:  # the same action for every physics step of a step
                self._decoded, self._decoded_action = self._decode_wbc_action(action), action
            offset, share = self._decoded
            step = offset - self.com_offset
            gain = low_pass_gain(dt, cfg["com_offset_filter_s"])  # a continuous velocity
            if gain != 1.0:  # (x * 1.0 == x: skipped)
                step *= gain
            limit_length(step, cfg["com_rate_limit_mps"] * dt)
            self.com_offset = self.com_offset + step
            self.com_offset_velocity = step / dt if dt > 0 else np.zeros(3)
            max_share = cfg["force_share_rate_limit"] * dt
            self.force_share += clip_scalar(share - self.force_share, -max_share, max_share)
        if cfg["reference_feedforward"]:
            base, base_velocity = self.com_target, self.com_target_velocity
        else:
            base, base_velocity = self.com_nominal, np.zeros(3)
        self.wbc_com_reference = base + self.com_offset
        velocity = base_velocity + self.com_offset_velocity
        com_task = self.controller.com_task
        # Unchanged (a target at rest, the offset settled): the task holds these values already.
        if not (
            _same(com_task.position, self.wbc_com_reference) and _same(com_task.velocity, velocity) and _same(com_task.acceleration, _ZERO3)
        ):
            com_task.set_reference(self.wbc_com_reference, velocity)
        weight = cfg["force_weight"]
        for name, target in self._foot_force_targets().items():
            self.controller.set_force_target(name, target, weight=weight)

    def _foot_force_targets(self) -> dict[str, float]:
        """Contact name -> normal-force target [N] of the feet (wbc mode), from the left-foot share:
        what `_update_references` hands to the controller with weight ``force_weight``."""
        return {"left_foot": self.force_share * self.weight_n, "right_foot": (1.0 - self.force_share) * self.weight_n}

    def glide_target(self, dt: float) -> None:
        """Move the CoM target towards ``com_goal`` at ``target_speed_mps`` for ``dt`` [s] (for a task
        that has both: the balance and wall envs')."""
        step = limit_length(self.com_goal - self.com_target, self.config["target_speed_mps"] * dt)
        self.com_target = self.com_target + step
        self.com_target_velocity = step / dt

    def _force_targets(self) -> dict[str, float]:
        """Contact name -> normal-force target [N] (wbc mode): the feet's (`_foot_force_targets`);
        a task adds the contacts it controls."""
        return self._foot_force_targets()

    def _sensed_state(self) -> tuple[np.ndarray, np.ndarray]:
        """``(qpos (nq,), qvel (nv,))`` of the scene as the controller sees it, in MuJoCo's layout:
        the simulator's (``self.data``'s own arrays) or, with ``estimation``, the estimate."""
        if self.estimator is None:
            return self.data.qpos, self.data.qvel
        return self.estimator.qpos, self.estimator.qvel

    def sensed_com(self) -> tuple[np.ndarray, np.ndarray]:
        """``(CoM (3,) [m], CoM velocity (3,) [m/s])``, world, as the controller sees them: MuJoCo's
        ([`com`][humanoid_env.envs.base.HumanoidWBCBaseEnv.com], [`com_velocity`][humanoid_env.envs.base.HumanoidWBCBaseEnv.com_velocity]) or, with ``estimation``, those of the estimated state."""
        if self.estimator is None:
            return self.com(), self.com_velocity()
        d = self.estimator.kinematics()
        mujoco.mj_subtreeVel(self.model, d)
        return d.subtree_com[self.root_body].copy(), d.subtree_linvel[self.root_body].copy()

    def _sync_estimate(self) -> None:
        """Restart the estimate at the current state (keeping its biases): for a reset that moves
        the state after the base reset (the wall env's)."""
        if self.estimator is not None:
            self.estimator.restart(self.data)

    def _compute_wbc(self, q: np.ndarray, v: np.ndarray):
        """One WBC tick at the robot's pinocchio state ``(q, v)`` -> ``WBCResult`` (may raise
        ``QPSolveError``). Hook: an env whose controller models more (a seesaw) passes it here."""
        return self.controller.compute(q, v)

    # -- state, observation, reward -------------------------------------------------------
    def _state_views(self, d: mujoco.MjData) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(qpos, qvel, act, warning counts)`` of ``d``: views into it, made once per MjData."""
        if self._checked_data is not d:
            self._checked_views = (d.qpos, d.qvel, d.act, d.warning.number)
            self._checked_data = d
        return self._checked_views

    def _bad_state_warning_count(self) -> int:
        number = self._state_views(self.data)[3]
        return int(number[_BAD_QPOS] + number[_BAD_QVEL] + number[_BAD_QACC])

    def _state_is_finite(self) -> bool:
        qpos, qvel, act, _ = self._state_views(self.data)
        # A sum is NaN or inf as soon as one entry is (or the state is absurdly large): one pass each.
        return isfinite(add_reduce(qpos)) and isfinite(add_reduce(qvel)) and isfinite(add_reduce(act))

    def base_rotation(self) -> np.ndarray:
        """(3, 3) world rotation of the base (pelvis)."""
        return self.bridge.base_rotation(self.data.qpos)

    def gravity_in_base(self) -> np.ndarray:
        """(3,) unit gravity direction in base axes ([0, 0, -1] when upright)."""
        return self.base_rotation().T @ _DOWN

    def tilt(self) -> float:
        """Angle between the base's z axis and the vertical [rad]."""
        return float(np.arccos(clip_scalar(-self.gravity_in_base()[2], -1.0, 1.0)))

    def base_height(self) -> float:
        """Base (pelvis) height above the support centre [m]."""
        return float(self.data.qpos[self.bridge.root_qpos + 2] - self.support_centre()[2])

    def support_centre(self) -> np.ndarray:
        """(3,) midpoint of the two sole centres, world [m]."""
        # ndarray.mean(axis=0)'s own steps (a sum over the rows, then a division by their count)
        # without its Python wrapper: the same value.
        centre = add_reduce(self.data.site_xpos[self._sole_sites], axis=0)
        centre /= len(self._sole_sites)
        return centre

    def _contact_forces(self) -> dict[str, np.ndarray]:
        """``self.sensor.measure(self.data)``: contact name -> (3,) world force [N]. A step measures
        its final state's once, for the observation, termination, reward and info."""
        if self._step_forces is not None and self._step_forces[0] is self.data:
            return self._step_forces[1]
        return self.sensor.measure(self.data)

    def _contact_force(self, name: str) -> np.ndarray:
        """(3,) world force [N] on the contact ``name``: `_contact_forces`' entry."""
        if self._step_forces is not None and self._step_forces[0] is self.data:
            return self._step_forces[1][name]
        return self.sensor.force(self.data, name)

    def com(self) -> np.ndarray:
        """(3,) robot CoM, world [m] (MuJoCo's subtree CoM of the root body)."""
        return self.data.subtree_com[self.root_body].copy()

    def com_velocity(self) -> np.ndarray:
        """(3,) robot CoM velocity, world [m/s]."""
        mujoco.mj_subtreeVel(self.model, self.data)
        return self.data.subtree_linvel[self.root_body].copy()

    def _fallen(self) -> bool:
        return self.base_height() < self.config["min_base_height_m"] or self.tilt() > self.config["max_tilt_rad"]

    def _observation(self) -> np.ndarray:
        """The observation (float32): of the simulator's state, or with ``estimation`` of the
        estimated one (see `_estimated_observation`)."""
        if self.estimator is not None and self.data is not self._estimate_data:
            return self._estimated_observation()
        d = self.data
        R = self.base_rotation()
        dof = self.bridge.root_dof
        support = self.support_centre()
        forces = self._contact_forces()
        com = self.com()
        if _all_finite(com):
            self._last_com = com
        blocks = {
            "base_height": [self.base_height()],
            "gravity_base": R.T @ _DOWN,
            "base_linear_velocity": R.T @ d.qvel[dof : dof + 3],
            "base_angular_velocity": d.qvel[dof + 3 : dof + 6],
            "joint_positions": d.qpos[self.bridge.joint_qpos] - self.q_home,
            "joint_velocities": d.qvel[self.bridge.joint_dof],
            "com_relative": com - support,
            "com_velocity": self.com_velocity(),
            "com_target_relative": self.com_target - support,
            "foot_forces": np.concatenate([forces[name] for name in FEET]) / self.weight_n,
            "previous_action": self.previous_action,
        }
        if self.task_observation_structure:
            blocks.update(self._task_observation())
        return np.concatenate([np.asarray(blocks[k], dtype=np.float64).reshape(-1) for k in self.observation_structure]).astype(
            np.float32
        )

    def _estimated_observation(self) -> np.ndarray:
        """`_observation` of the estimated state: computed on a copy of ``self.data`` whose
        ``qpos``/``qvel`` are the estimate's and whose kinematics follow them. Contacts and their
        forces stay the simulator's (force sensing is not modelled); ``info["com"]`` stays true."""
        true, estimate = self.data, self._estimate_data
        self.estimator.update(true)  # the estimate at this time (kept by the next physics step)
        mujoco.mj_copyData(estimate, self.model, true)
        estimate.qpos[:] = self.estimator.qpos
        estimate.qvel[:] = self.estimator.qvel
        mujoco.mj_kinematics(self.model, estimate)
        mujoco.mj_comPos(self.model, estimate)
        mujoco.mj_comVel(self.model, estimate)
        self.data = estimate
        try:
            obs = self._observation()
        finally:
            self.data = true
        com = self.com()
        if _all_finite(com):
            self._last_com = com
        return obs

    def _reward_terms(self, action: np.ndarray, effort: float) -> dict[str, float]:
        """Named reward terms (their sum is the reward); see the class docstring for formulas."""
        cfg = self.config
        error = _norm(self.com() - self.com_target) if not self.nonfinite_state else np.inf
        upright = float(-self.gravity_in_base()[2]) if not self.nonfinite_state else 0.0
        return {
            "alive": cfg["reward_alive"] if not self.fell else 0.0,
            "com_tracking": cfg["reward_com_tracking"] * float(np.exp(-((error / cfg["com_tracking_sigma_m"]) ** 2))),
            "upright": cfg["reward_upright"] * upright,
            "effort": -cfg["reward_effort"] * effort,
            "action_rate": -cfg["reward_action_rate"] * _mean_square(action - self._action_before),
            "fall": -cfg["fall_penalty"] if self.fell else 0.0,
        }

    def _info(self, status: str, fallbacks: int, solve_us: float | None, relaxed: int = 0) -> dict[str, Any]:
        """The step's ``info``; ``wbc_solve_time_us`` (``solve_us`` [us], mean over the physics
        steps) only with ``timing_in_info=True`` and a measured time; ``relaxed``: physics steps
        that solved the relaxed QP."""
        d = self.data
        forces = self._contact_forces() if not self.nonfinite_state else {n: np.zeros(3) for n in self.sensor.geom_ids}
        time = float(d.time)
        info = {
            "com": self._last_com.copy(),
            "com_ref": self.com_target.copy(),
            "wbc_com_reference": self.wbc_com_reference.copy(),
            "contact_forces": forces,
            "contact_force_targets": self.actuation.force_targets(self),
            "wbc_status": status,
            "wbc_fallbacks": int(fallbacks),
            "wbc_relaxed": int(relaxed),
            "wbc_contact_slack": float(self._step_contact_slack),
            "wbc_supporting": self.supporting_contacts(),
            "fell": bool(self.fell),
            "nonfinite_state": bool(self.nonfinite_state),
            "termination": self.termination,
            "time": time,
            "push_force": d.xfrc_applied[self.push_body, :3].copy(),
            "pushes_total": self.pushes.total,
            "pushes_survived": self.pushes.survived(time, self.fell),
        }
        if self.estimator is not None and not self.nonfinite_state:
            info["estimate"] = self.estimator.errors(d)
        if self.config["timing_in_info"] and solve_us is not None:
            info["wbc_solve_time_us"] = float(solve_us)
        if self.randomisation is not None and time == 0.0:  # reset's info: the episode's draws
            info["randomisation"] = {k: v.copy() if isinstance(v, (np.ndarray, dict)) else v for k, v in self.randomisation.items()}
        info.update(self._task_info())
        return info

    # -- hooks for the tasks --------------------------------------------------------------
    def _reset_task(self) -> None:
        """Sample the task's initial state (CoM target, ...) with ``self.np_random``."""

    def _update_task(self, time: float, dt: float) -> None:
        """Advance the task by one physics step (move ``com_target``, ...)."""

    def _task_info(self) -> dict[str, Any]:
        """Task-specific entries of ``info``."""
        return {}

    def _task_observation(self) -> dict[str, np.ndarray]:
        """Blocks of [`task_observation_structure`][humanoid_env.envs.base.HumanoidWBCBaseEnv.task_observation_structure] (name -> array of that size)."""
        return {}

    def _task_terminated(self) -> bool:
        """Called once per env step after the physics (before the reward): whether the task
        ends the episode for a reason other than a fall. May update per-step task state."""
        return False

    # -- scripted scenarios -----------------------------------------------------------------
    def set_scenario(self, scenario: Scenario | None) -> None:
        """Let ``scenario`` drive the task from the next `reset` on (None: the task's own).

        The hook (see [`humanoid_env.scenarios.base.Scenario`][humanoid_env.scenarios.base.Scenario]): ``scenario.reset(env)``
        at every reset, after the WBC is built; then at every physics step
        ``scenario.update_task(env, time, dt)`` *instead of* the task's own update (it sets
        ``com_target`` and the task's commands), and, in wbc mode,
        ``scenario.update_controller(env, time, dt)`` after the env handed its references to
        the WBC and before the QP is solved (it may switch contacts and set force targets on
        ``env.controller``).
        """
        self.scenario = scenario
