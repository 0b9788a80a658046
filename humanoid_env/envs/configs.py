"""Typed configuration of the environments: one frozen dataclass per part (issue 35).

Users pass flat ``gym.make`` keywords (names with units) and ``env.config`` stays that flat resolved
dict; each keyword belongs to exactly one part's config below, which checks it in its
``__post_init__`` (the messages of [`humanoid_env.envs.kwargs`][humanoid_env.envs.kwargs], ``"<keyword> must be ..., got ..."``) and
holds it as a python ``float`` / ``int`` / ``bool`` / ``str`` / tuple of floats, or as the validated
object it stands for (``StateEstimation``, ``PlantRandomisation``, ``ContactGuardSettings``,
``RobotDescription``).

| part | keywords |
|------|----------|
| [`ShellConfig`][humanoid_env.envs.configs.ShellConfig] | action mode, rendering, ``frame_skip``, ``timing_in_info`` |
| [`PlantConfig`][humanoid_env.envs.configs.PlantConfig] | the robot, reset noise, pushes, plant randomisation |
| [`SensingConfig`][humanoid_env.envs.configs.SensingConfig] | the estimated state, leg odometry |
| [`WbcConfig`][humanoid_env.envs.configs.WbcConfig] | the wbc-mode reference decoding, the QP solver and backend, the contact guard |
| [`PdConfig`][humanoid_env.envs.configs.PdConfig] | the pd mode's gains |
| [`TerminationConfig`][humanoid_env.envs.configs.TerminationConfig] | the fall thresholds |
| [`RewardConfig`][humanoid_env.envs.configs.RewardConfig] | the common reward terms' weights |
| [`BalanceTaskConfig`][humanoid_env.envs.configs.BalanceTaskConfig], [`WallTaskConfig`][humanoid_env.envs.configs.WallTaskConfig], [`SeesawTaskConfig`][humanoid_env.envs.configs.SeesawTaskConfig] | each env's task |

Each part's ``KEYWORDS`` are its keywords; ``from_keywords(values)`` builds it from the flat
resolved dict (other keys ignored); [`split_keywords`][humanoid_env.envs.configs.split_keywords] builds several parts in order,
[`check_partition`][humanoid_env.envs.configs.check_partition] checks that a ``DEFAULTS`` dict is split into parts without gap or
overlap. The rules across parts: leg odometry needs an estimated state and ``action_mode="wbc"``
([`check_leg_odometry_needs`][humanoid_env.envs.configs.check_leg_odometry_needs]); stepping needs
``action_mode="wbc"`` ([`check_stepping_needs`][humanoid_env.envs.configs.check_stepping_needs]). Units and meanings in full: the env classes'
docstrings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Self

import numpy as np

from humanoid_env.envs.estimation import StateEstimation, state_estimation
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
    resolve_preset,
)
from humanoid_env.envs.odometry import leg_odometry_time_constant
from humanoid_env.envs.randomisation import PlantRandomisation, plant_randomisation
from humanoid_env.robots import ROBOTS, RobotDescription, robot_description
from wbc_layer.config import BACKENDS, PYTHON_BACKEND_RETIRED, QP_SOLVERS, ControllerConfig
from wbc_layer.contact_guard import ContactGuardSettings
from wbc_layer.errors import ConfigError
from wbc_layer.stepping import SteppingSettings, SwingSettings

#: The ``action_mode`` keyword's values.
ACTION_MODES = ("wbc", "torque", "pd")
#: The ``physics_loop`` keyword's values (``humanoid_env.envs.physics_loop``).
PHYSICS_LOOPS = ("compiled", "python")
#: The ``render_mode`` keyword's values besides None (the envs' ``metadata["render_modes"]``).
RENDER_MODES = ("human", "rgb_array")
#: Most physics steps per env step (``frame_skip``): 2 s at 500 Hz.
MAX_FRAME_SKIP = 1000
#: Largest rendered image side [px] (``render_width``, ``render_height``).
MAX_RENDER_PX = 4096
#: Largest ``hand_force_weight`` accepted (the wall env; see ``humanoid_env.envs.wall``).
MAX_HAND_FORCE_WEIGHT = 1e6
#: The ``seesaw_model`` keyword's values.
SEESAW_MODELS = ("coupled", "rigid")
#: The board-tilt target stays within this share of ``max_board_tilt_rad`` (the seesaw env).
BOARD_TARGET_SHARE = 0.9


def _set(config: Any, name: str, value: Any) -> None:
    """Store ``value`` as ``config.name`` on a frozen dataclass (in ``__post_init__`` only)."""
    object.__setattr__(config, name, value)


def _floats(values: Iterable[float]) -> tuple[float, ...]:
    """``values`` as a tuple of python floats."""
    return tuple(float(x) for x in values)


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


class PartConfig:
    """Base of the parts: ``KEYWORDS`` (the part's keywords, its init fields in order) and
    ``from_keywords``. A part is a frozen dataclass whose ``__post_init__`` checks each value and
    stores it normalised."""

    #: the keywords this part holds (its init fields, in order).
    KEYWORDS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_keywords(cls, values: Mapping[str, Any]) -> Self:
        """The part of the flat resolved keyword dict ``values`` (keys of other parts are ignored);
        ``ValueError`` if one of its keywords is missing, else the first invalid value's
        ``ValueError``."""
        missing = [name for name in cls.KEYWORDS if name not in values]
        if missing:
            raise ValueError(f"{cls.__name__}: missing keyword(s) {missing}")
        return cls(**{name: values[name] for name in cls.KEYWORDS})

    def keywords(self) -> dict[str, Any]:
        """Keyword -> the value held (normalised: floats, tuples, resolved ``contact_guard``)."""
        return {name: getattr(self, name) for name in self.KEYWORDS}


@dataclass(frozen=True)
class ShellConfig(PartConfig):
    """The env's shell: action mode, rendering, timing.

    Attributes:
        action_mode: what the action drives: ``"wbc"`` (the whole-body controller's references),
            ``"torque"`` (joint torques) or ``"pd"`` (joint targets).
        render_mode: None, ``"rgb_array"`` or ``"human"``.
        render_width: rendered image width [px], an integer in [1, 4096].
        render_height: rendered image height [px], an integer in [1, 4096].
        frame_skip: physics steps per env step, an integer in [1, 1000].
        timing_in_info: whether ``info`` holds the wall-clock QP time.
        physics_loop: ``"compiled"`` (an env step's physics steps in one compiled call wherever
            the env's parts allow, else in Python: ``humanoid_env.envs.physics_loop``) or
            ``"python"`` (always in Python; the same trajectories, slower).
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = (
        "action_mode", "render_mode", "render_width", "render_height", "frame_skip", "timing_in_info", "physics_loop",
    )  # fmt: skip

    action_mode: str
    render_mode: str | None
    render_width: int
    render_height: int
    frame_skip: int
    timing_in_info: bool
    physics_loop: str

    def __post_init__(self) -> None:
        _set(self, "action_mode", check_choice("action_mode", self.action_mode, ACTION_MODES))
        _set(self, "physics_loop", check_choice("physics_loop", self.physics_loop, PHYSICS_LOOPS))
        mode = self.render_mode
        if mode is not None and not (isinstance(mode, str) and mode in RENDER_MODES):
            raise keyword_error("render_mode", f"None or one of {list(RENDER_MODES)}", mode)
        _set(self, "render_mode", None if mode is None else str(mode))
        _set(self, "frame_skip", check_int("frame_skip", self.frame_skip, 1, MAX_FRAME_SKIP))
        for name in ("render_width", "render_height"):
            _set(self, name, check_int(name, getattr(self, name), 1, MAX_RENDER_PX))
        _set(self, "timing_in_info", check_bool("timing_in_info", self.timing_in_info))


@dataclass(frozen=True)
class PlantConfig(PartConfig):
    """The simulated robot: which robot, its reset noise, the pushes, the plant mismatch.

    Attributes:
        robot: the robot, as given: a name of ``humanoid_env.robots.ROBOTS`` or a
            ``RobotDescription`` (its ``controller_overrides`` are checked too).
        init_noise_rad: reset noise on every joint, U(+-this) [rad], in [0, 0.5].
        push_magnitude_n: (lo, hi) of the push force U(lo, hi) [N], 0 <= lo <= hi.
        push_duration_s: how long a push lasts [s], >= 0.
        push_interval_s: (lo, hi) of the time from one push's end to the next's start [s], 0 < lo <= hi.
        push_direction_deg: the pushes' direction [deg] (0 = +x, 90 = +y); None: uniform random.
        push_body: the pushed body's name; None: the robot description's push body (whether the
            scene has that body is checked by the env, which has the model).
        randomise: the ``randomise`` keyword as given: None, a preset name, a dict of ranges or a
            ``PlantRandomisation``.
        description: the robot's ``RobotDescription`` (resolved from ``robot``).
        randomise_ranges: the resolved ``PlantRandomisation`` (None: the nominal plant).
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = (
        "robot", "init_noise_rad", "push_magnitude_n", "push_duration_s", "push_interval_s", "push_direction_deg",
        "push_body", "randomise",
    )  # fmt: skip

    robot: str | RobotDescription
    init_noise_rad: float
    push_magnitude_n: tuple[float, float]
    push_duration_s: float
    push_interval_s: tuple[float, float]
    push_direction_deg: float | None
    push_body: str | None
    randomise: Any
    description: RobotDescription = field(init=False, repr=False, compare=False)
    randomise_ranges: PlantRandomisation | None = field(init=False)

    def __post_init__(self) -> None:
        robot = self.robot
        if not isinstance(robot, str | RobotDescription) or (isinstance(robot, str) and robot not in ROBOTS):
            raise keyword_error("robot", f"one of {sorted(ROBOTS)} or a RobotDescription", robot)
        _set(self, "randomise_ranges", plant_randomisation(self.randomise))
        push_body = self.push_body
        if push_body is not None and not (isinstance(push_body, str) and push_body):
            raise keyword_error("push_body", "None (the robot's push body) or the name of a body of the scene", push_body)
        _set(self, "init_noise_rad", check_scalar("init_noise_rad", self.init_noise_rad, 0.0, 0.5))
        _set(self, "push_magnitude_n", check_range("push_magnitude_n", self.push_magnitude_n, 0.0))
        _set(self, "push_duration_s", check_scalar("push_duration_s", self.push_duration_s, 0.0))
        interval = check_range("push_interval_s", self.push_interval_s, 0.0)
        if interval[0] <= 0.0:
            raise ValueError(f"push_interval_s must have lo > 0, got {self.push_interval_s!r}")
        _set(self, "push_interval_s", interval)
        if self.push_direction_deg is not None:
            _set(self, "push_direction_deg", check_scalar("push_direction_deg", self.push_direction_deg))
        description = robot_description(robot)
        check_controller_overrides(description)
        _set(self, "description", description)


@dataclass(frozen=True)
class SensingConfig(PartConfig):
    """What the controller and the observation see: the exact or an estimated state.

    Whether ``leg_odometry_s`` fits the other keywords (an estimated state, ``action_mode="wbc"``)
    is [`check_leg_odometry_needs`][humanoid_env.envs.configs.check_leg_odometry_needs]'s rule.

    Attributes:
        estimation: the ``estimation`` keyword as given: None, a preset name, a dict of settings or
            a ``StateEstimation``.
        leg_odometry_s: the leg odometry's time constant [s], in (0, 60]; None: off.
        estimation_settings: the resolved ``StateEstimation`` (None: the exact state).
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = ("estimation", "leg_odometry_s")

    estimation: Any
    leg_odometry_s: float | None
    estimation_settings: StateEstimation | None = field(init=False)

    def __post_init__(self) -> None:
        _set(self, "estimation_settings", state_estimation(self.estimation))
        _set(self, "leg_odometry_s", leg_odometry_time_constant(self.leg_odometry_s))


def check_leg_odometry_needs(sensing: SensingConfig, action_mode: str) -> None:
    """``leg_odometry_s`` needs an estimated state (``estimation`` not None) and
    ``action_mode="wbc"`` (the feet it uses are the controller's supporting contacts); else
    ``ValueError`` naming the three keywords."""
    if sensing.leg_odometry_s is not None and (sensing.estimation is None or action_mode != "wbc"):
        raise ValueError(
            "leg_odometry_s needs an estimated state (estimation not None) and action_mode='wbc' "
            f"(the feet it uses are the controller's supporting contacts), got estimation={sensing.estimation!r}, "
            f"action_mode={action_mode!r}"
        )


@dataclass(frozen=True)
class WbcConfig(PartConfig):
    """The whole-body controller in wbc mode: how actions become its references, its QP.

    Attributes:
        com_offset_low_m: (3,) CoM offset at action -1 per axis [m], in [-0.2, 0].
        com_offset_high_m: (3,) CoM offset at action +1 per axis [m], in [0, 0.2].
        force_share_range: (lo, hi) of the left foot's share of the feet's normal force at action
            -1, +1 [-], 0 <= lo <= 0.5 <= hi <= 1.
        com_rate_limit_mps: fastest CoM offset change [m/s], > 0.
        com_offset_filter_s: time constant of the CoM offset's low-pass [s], in [0, 10] (0: none).
        force_share_rate_limit: fastest force share change [1/s], > 0.
        force_weight: weight of the contact-force tasks [-], >= 0.
        reference_feedforward: whether the zero action follows the task's CoM target (else the
            nominal standing CoM).
        qp_solver: the QP solver, one of ``wbc_layer.config.QP_SOLVERS``.
        wbc_backend: the controller's implementation: ``"compiled"``, the only one
            (``wbc_layer.config.BACKENDS``; ``"python"`` is refused, naming its retirement).
        contact_guard: the contact-loss guard's ``ContactGuardSettings`` (resolved from None,
            True, False, a dict of its fields or settings); None: off.
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = (
        "com_offset_low_m", "com_offset_high_m", "force_share_range", "com_rate_limit_mps", "com_offset_filter_s",
        "force_share_rate_limit", "force_weight", "reference_feedforward", "qp_solver", "wbc_backend", "contact_guard",
    )  # fmt: skip

    com_offset_low_m: tuple[float, float, float]
    com_offset_high_m: tuple[float, float, float]
    force_share_range: tuple[float, float]
    com_rate_limit_mps: float
    com_offset_filter_s: float
    force_share_rate_limit: float
    force_weight: float
    reference_feedforward: bool
    qp_solver: str
    wbc_backend: str
    contact_guard: ContactGuardSettings | None

    def __post_init__(self) -> None:
        _set(self, "qp_solver", check_choice("qp_solver", self.qp_solver, QP_SOLVERS))
        if self.wbc_backend == "python":
            raise ConfigError(f"wbc_backend: {PYTHON_BACKEND_RETIRED}")
        _set(self, "wbc_backend", check_choice("wbc_backend", self.wbc_backend, BACKENDS))
        _set(self, "contact_guard", contact_guard_settings(self.contact_guard))
        _set(self, "reference_feedforward", check_bool("reference_feedforward", self.reference_feedforward))
        low = check_vector("com_offset_low_m", self.com_offset_low_m, 3, -0.2)
        high = check_vector("com_offset_high_m", self.com_offset_high_m, 3, -0.2)
        if np.any(low > 0) or np.any(high < 0) or np.any(high > 0.2):
            raise ValueError(
                f"com_offset_low_m must be <= 0 <= com_offset_high_m <= 0.2 per axis, got {low.tolist()} and {high.tolist()}"
            )
        _set(self, "com_offset_low_m", _floats(low))
        _set(self, "com_offset_high_m", _floats(high))
        share = check_range("force_share_range", self.force_share_range, 0.0, 1.0)
        if not share[0] <= 0.5 <= share[1]:
            raise ValueError(f"force_share_range must contain 0.5 (the zero action), got {share}")
        _set(self, "force_share_range", share)
        _set(self, "com_rate_limit_mps", check_scalar("com_rate_limit_mps", self.com_rate_limit_mps, 0.0, strict_low=True))
        _set(self, "com_offset_filter_s", check_scalar("com_offset_filter_s", self.com_offset_filter_s, 0.0, 10.0))
        rate = check_scalar("force_share_rate_limit", self.force_share_rate_limit, 0.0, strict_low=True)
        _set(self, "force_share_rate_limit", rate)
        _set(self, "force_weight", check_scalar("force_weight", self.force_weight, 0.0))


@dataclass(frozen=True)
class PdConfig(PartConfig):
    """The pd action mode: ``q* = q_home + a * pd_action_scale_rad``, ``tau = kp (q* - q) - kd qd``.

    Attributes:
        pd_action_scale_rad: joint target per unit action [rad], >= 0.
        pd_kp_per_nm: ``kp = pd_kp_per_nm * tau_max`` [1/rad], >= 0.
        pd_kd_s: ``kd = pd_kd_s * kp`` [s], >= 0.
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = ("pd_action_scale_rad", "pd_kp_per_nm", "pd_kd_s")

    pd_action_scale_rad: float
    pd_kp_per_nm: float
    pd_kd_s: float

    def __post_init__(self) -> None:
        for name in self.KEYWORDS:
            _set(self, name, check_scalar(name, getattr(self, name), 0.0))


@dataclass(frozen=True)
class TerminationConfig(PartConfig):
    """When the robot has fallen.

    Attributes:
        min_base_height_m: lowest pelvis height above the support centre [m], >= 0.
        max_tilt_rad: largest pelvis tilt [rad], in (0, pi].
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = ("min_base_height_m", "max_tilt_rad")

    min_base_height_m: float
    max_tilt_rad: float

    def __post_init__(self) -> None:
        _set(self, "min_base_height_m", check_scalar("min_base_height_m", self.min_base_height_m, 0.0))
        _set(self, "max_tilt_rad", check_scalar("max_tilt_rad", self.max_tilt_rad, 0.0, np.pi, strict_low=True))


@dataclass(frozen=True)
class RewardConfig(PartConfig):
    """The weights of the reward terms every env has (each >= 0).

    Attributes:
        reward_alive: per step while not fallen [-].
        reward_com_tracking: of ``exp(-(|com - com_target| / com_tracking_sigma_m)^2)`` [-].
        com_tracking_sigma_m: the CoM tracking term's width [m], > 0.
        reward_upright: of the pelvis's ``cos(tilt)`` [-].
        reward_effort: of ``-mean((tau / tau_max)^2)`` [-].
        reward_action_rate: of ``-mean((a - a_prev)^2)`` [-].
        fall_penalty: subtracted on the step the robot falls [-].
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = (
        "reward_alive", "reward_com_tracking", "com_tracking_sigma_m", "reward_upright", "reward_effort",
        "reward_action_rate", "fall_penalty",
    )  # fmt: skip

    reward_alive: float
    reward_com_tracking: float
    com_tracking_sigma_m: float
    reward_upright: float
    reward_effort: float
    reward_action_rate: float
    fall_penalty: float

    def __post_init__(self) -> None:
        sigma = check_scalar("com_tracking_sigma_m", self.com_tracking_sigma_m, 0.0, strict_low=True)
        _set(self, "com_tracking_sigma_m", sigma)
        for name in ("reward_alive", "reward_com_tracking", "reward_upright", "reward_effort", "reward_action_rate", "fall_penalty"):
            _set(self, name, check_scalar(name, getattr(self, name), 0.0))


@dataclass(frozen=True)
class BalanceTaskConfig(PartConfig):
    """``HumanoidWBC-v0``'s task: a CoM target that moves to random goals.

    Attributes:
        com_target_range_m: (3,) goals drawn in nominal +- this per axis [m], each >= 0.
        target_interval_s: (lo, hi) of the time between goals U(lo, hi) [s], 0 < lo <= hi.
        target_speed_mps: the target's speed towards its goal [m/s], > 0.
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = ("com_target_range_m", "target_interval_s", "target_speed_mps")

    com_target_range_m: tuple[float, float, float]
    target_interval_s: tuple[float, float]
    target_speed_mps: float

    def __post_init__(self) -> None:
        _set(self, "com_target_range_m", _floats(check_vector("com_target_range_m", self.com_target_range_m, 3, 0.0)))
        interval = check_range("target_interval_s", self.target_interval_s, 0.0)
        if interval[0] <= 0:
            raise ValueError(f"target_interval_s must have lo > 0, got {self.target_interval_s!r}")
        _set(self, "target_interval_s", interval)
        _set(self, "target_speed_mps", check_scalar("target_speed_mps", self.target_speed_mps, 0.0, strict_low=True))


#: The ``stepping`` keyword's settings: the stepping law's (``SteppingSettings`` but ``swing``) and
#: each step's (``SwingSettings``), given flat in one dict.
STEPPING_LAW_SETTINGS = tuple(f.name for f in fields(SteppingSettings) if f.name != "swing")
STEPPING_SWING_SETTINGS = tuple(f.name for f in fields(SwingSettings))


def stepping_settings(value: Any) -> tuple[tuple[str, Any], ...] | None:
    """The ``stepping`` keyword: None or False (off), True (the law with its defaults and the
    robot's step limits), or a dict of settings (names of ``STEPPING_LAW_SETTINGS`` and
    ``STEPPING_SWING_SETTINGS``, numbers; ``max_steps`` an int). Held as sorted ``(name, value)``
    pairs (``()`` for True); the law is built with the robot's step limits by the task, which
    checks the values (``SteppingSettings``, ``SwingSettings``)."""
    if value is None or (is_bool(value) and not value):
        return None
    if is_bool(value):
        return ()
    if not isinstance(value, dict):
        raise keyword_error("stepping", "None, True, False or a dict of stepping settings", value)
    valid = (*STEPPING_LAW_SETTINGS, *STEPPING_SWING_SETTINGS)
    unknown = sorted(set(value) - set(valid), key=repr)
    if unknown:
        raise ValueError(f"stepping: unknown setting(s) {unknown}; valid ones are: {', '.join(valid)}")
    for name, item in value.items():
        if not is_number(item):
            raise keyword_error(f"stepping[{name!r}]", "a number", item)
    return tuple(sorted(value.items()))



def check_stepping_needs(task: Any, action_mode: str) -> None:
    """``stepping`` (a task config that has it, not None) needs ``action_mode="wbc"`` (the law
    drives the controller); else ``ValueError`` naming both keywords."""
    if getattr(task, "stepping", None) is not None and action_mode != "wbc":
        raise ValueError(f"stepping needs action_mode='wbc' (the stepping law drives the controller), got action_mode={action_mode!r}")

@dataclass(frozen=True)
class SteppingBalanceTaskConfig(BalanceTaskConfig):
    """``HumanoidWBC-v0``'s task: the balance task's moving CoM target plus the opt-in stepping law.

    Attributes:
        stepping: None (off: the robot stands, ``HumanoidWBC-v0`` as it always was), or the
            stepping law's settings as ``(name, value)`` pairs (see [`stepping_settings`][humanoid_env.envs.configs.stepping_settings]).
        goal_follows_feet: False (``HumanoidWBC-v0`` as it always was: goals around the nominal
            CoM, moved only by the stepping law's steps) or True: the CoM goal and target move
            with the measured midpoint of the soles whenever it has moved more than
            ``FEET_FOLLOW_DEADBAND_M`` while the robot stands (feet that slid in a push, and
            steps), so that no goal is left outside the support.
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = (*BalanceTaskConfig.KEYWORDS, "stepping", "goal_follows_feet")

    stepping: tuple[tuple[str, Any], ...] | None = None
    goal_follows_feet: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        _set(self, "stepping", stepping_settings(self.stepping))
        if not is_bool(self.goal_follows_feet):
            raise ValueError(f"goal_follows_feet must be True or False, got {self.goal_follows_feet!r}")
        _set(self, "goal_follows_feet", bool(self.goal_follows_feet))


@dataclass(frozen=True)
class WallTaskConfig(PartConfig):
    """``HumanoidWBCWall-v0``'s task: the hand force on the wall and the CoM lean.

    Attributes:
        hand_force_max_n: the hand's normal force bound, the observation's scale [N], in (0, 500].
        hand_force_action_n: the policy's authority over the hand force target [N], in [0, hand_force_max_n].
        hand_force_command_range_n: (lo, hi) of the commanded force U(lo, hi) [N], within [0, hand_force_max_n].
        hand_force_change_time_s: (lo, hi) of the command's change time U(lo, hi) [s], 0 < lo <= hi.
        hand_force_command_rate_nps: the command's glide rate [N/s], > 0.
        hand_force_rate_limit_nps: fastest change of the force target [N/s], > 0.
        hand_force_weight: weight of the hand's force task [-], in (0, 1e6].
        hand_force_integral_gain: gain of the integral force correction [1/s], >= 0.
        hand_force_integral_limit_n: bound of that correction [N], >= 0.
        settle_force_n: the settling phase's hand force [N], in [1, hand_force_max_n].
        com_lean_range_m: (lo, hi) of the lean towards the wall U(lo, hi) [m], within [0, 0.08].
        target_speed_mps: the CoM target's speed [m/s], > 0.
        hand_contact_min_force_n: normal force below which the hand has lost the wall [N], >= 0.
        hand_contact_lost_max_s: how long the hand may lose the wall [s], >= 0.
        reward_hand_force: weight of the hand force tracking term [-], >= 0.
        hand_force_sigma_n: that term's width [N], > 0.
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = (
        "hand_force_max_n", "hand_force_action_n", "hand_force_command_range_n", "hand_force_change_time_s",
        "hand_force_command_rate_nps", "hand_force_rate_limit_nps", "hand_force_weight", "hand_force_integral_gain",
        "hand_force_integral_limit_n", "settle_force_n", "com_lean_range_m", "target_speed_mps",
        "hand_contact_min_force_n", "hand_contact_lost_max_s", "reward_hand_force", "hand_force_sigma_n",
    )  # fmt: skip

    hand_force_max_n: float
    hand_force_action_n: float
    hand_force_command_range_n: tuple[float, float]
    hand_force_change_time_s: tuple[float, float]
    hand_force_command_rate_nps: float
    hand_force_rate_limit_nps: float
    hand_force_weight: float
    hand_force_integral_gain: float
    hand_force_integral_limit_n: float
    settle_force_n: float
    com_lean_range_m: tuple[float, float]
    target_speed_mps: float
    hand_contact_min_force_n: float
    hand_contact_lost_max_s: float
    reward_hand_force: float
    hand_force_sigma_n: float

    def __post_init__(self) -> None:
        fmax = check_scalar("hand_force_max_n", self.hand_force_max_n, 0.0, 500.0, strict_low=True)
        _set(self, "hand_force_max_n", fmax)
        commands = check_range("hand_force_command_range_n", self.hand_force_command_range_n, 0.0, fmax)
        _set(self, "hand_force_command_range_n", commands)
        _set(self, "hand_force_action_n", check_scalar("hand_force_action_n", self.hand_force_action_n, 0.0, fmax))
        change = check_range("hand_force_change_time_s", self.hand_force_change_time_s, 0.0)
        if change[0] <= 0:
            raise ValueError(f"hand_force_change_time_s must have lo > 0, got {self.hand_force_change_time_s!r}")
        _set(self, "hand_force_change_time_s", change)
        for name in ("hand_force_command_rate_nps", "hand_force_rate_limit_nps", "hand_force_sigma_n", "target_speed_mps"):
            _set(self, name, check_scalar(name, getattr(self, name), 0.0, strict_low=True))
        weight = check_scalar("hand_force_weight", self.hand_force_weight, 0.0, MAX_HAND_FORCE_WEIGHT, strict_low=True)
        _set(self, "hand_force_weight", weight)
        for name in ("hand_force_integral_gain", "hand_force_integral_limit_n"):
            _set(self, name, check_scalar(name, getattr(self, name), 0.0))
        _set(self, "settle_force_n", check_scalar("settle_force_n", self.settle_force_n, 1.0, fmax))
        _set(self, "com_lean_range_m", check_range("com_lean_range_m", self.com_lean_range_m, 0.0, 0.08))
        for name in ("hand_contact_min_force_n", "hand_contact_lost_max_s", "reward_hand_force"):
            _set(self, name, check_scalar(name, getattr(self, name), 0.0))


@dataclass(frozen=True)
class SeesawTaskConfig(BalanceTaskConfig):
    """``HumanoidWBCSeesaw-v0``'s task: the balance task's moving CoM target (its three keywords,
    checked first) plus the board.

    Attributes:
        seesaw_model: the controller's model of the board, ``"coupled"`` or ``"rigid"``.
        seesaw_damping_nms: the coupled model's tilt damping [N m s/rad], >= 0.
        board_balance_gain: the board-tilt law's gain [-], >= 0.
        board_task_weight: weight of the board-tilt task [-], >= 0.
        board_task_kp: its stiffness [1/s^2], >= 0.
        board_task_kd: its damping [1/s], >= 0.
        coupled_com_weight: the coupled controller's CoM task weight [-], >= 0.
        push_lateral: whether pushes of random direction are lateral (+y or -y).
        max_board_tilt_rad: board tilt beyond which the robot has fallen [rad], in (0, pi/2].
        reward_board_level: weight of the board-level term [-], >= 0.
        board_level_sigma_rad: that term's width [rad], > 0.
        board_tilt_action_rad: the policy's authority over the board-tilt target [rad], in
            [0, 0.9 max_board_tilt_rad]; > 0 needs ``seesaw_model="coupled"`` (0: no such action).
    """

    KEYWORDS: ClassVar[tuple[str, ...]] = (
        *BalanceTaskConfig.KEYWORDS,
        "seesaw_model", "seesaw_damping_nms", "board_balance_gain", "board_task_weight", "board_task_kp", "board_task_kd",
        "coupled_com_weight", "push_lateral", "max_board_tilt_rad", "reward_board_level", "board_level_sigma_rad",
        "board_tilt_action_rad",
    )  # fmt: skip

    seesaw_model: str
    seesaw_damping_nms: float
    board_balance_gain: float
    board_task_weight: float
    board_task_kp: float
    board_task_kd: float
    coupled_com_weight: float
    push_lateral: bool
    max_board_tilt_rad: float
    reward_board_level: float
    board_level_sigma_rad: float
    board_tilt_action_rad: float

    def __post_init__(self) -> None:
        super().__post_init__()
        _set(self, "seesaw_model", check_choice("seesaw_model", self.seesaw_model, SEESAW_MODELS))
        _set(self, "seesaw_damping_nms", check_scalar("seesaw_damping_nms", self.seesaw_damping_nms, 0.0))
        for name in ("board_balance_gain", "board_task_weight", "board_task_kp", "board_task_kd", "coupled_com_weight"):
            _set(self, name, check_scalar(name, getattr(self, name), 0.0))
        _set(self, "push_lateral", check_bool("push_lateral", self.push_lateral))
        tilt = check_scalar("max_board_tilt_rad", self.max_board_tilt_rad, 0.0, np.pi / 2, strict_low=True)
        _set(self, "max_board_tilt_rad", tilt)
        _set(self, "reward_board_level", check_scalar("reward_board_level", self.reward_board_level, 0.0))
        sigma = check_scalar("board_level_sigma_rad", self.board_level_sigma_rad, 0.0, strict_low=True)
        _set(self, "board_level_sigma_rad", sigma)
        action = check_scalar("board_tilt_action_rad", self.board_tilt_action_rad, 0.0, BOARD_TARGET_SHARE * tilt)
        _set(self, "board_tilt_action_rad", action)
        if action > 0 and self.seesaw_model != "coupled":
            raise ValueError("board_tilt_action_rad > 0 needs seesaw_model='coupled' (the rigid model has no board task)")


#: The parts of every env (``BASE_DEFAULTS``'s keywords), in the order they are built.
BASE_PARTS: tuple[type[PartConfig], ...] = (
    ShellConfig, PlantConfig, SensingConfig, WbcConfig, PdConfig, TerminationConfig, RewardConfig,
)  # fmt: skip
#: ``HumanoidWBC-v0``'s parts (``BALANCE_DEFAULTS``).
BALANCE_PARTS: tuple[type[PartConfig], ...] = (*BASE_PARTS, SteppingBalanceTaskConfig)
#: ``HumanoidWBCWall-v0``'s parts (``WALL_DEFAULTS``).
WALL_PARTS: tuple[type[PartConfig], ...] = (*BASE_PARTS, WallTaskConfig)
#: ``HumanoidWBCSeesaw-v0``'s parts (``SEESAW_DEFAULTS``).
SEESAW_PARTS: tuple[type[PartConfig], ...] = (*BASE_PARTS, SeesawTaskConfig)


def split_keywords(values: Mapping[str, Any], part_classes: Iterable[type[PartConfig]]) -> tuple[PartConfig, ...]:
    """Each of ``part_classes`` built from the flat resolved keyword dict ``values``, in the order
    given (the first invalid value's ``ValueError`` is raised). Cross-part rules are the caller's
    ([`check_leg_odometry_needs`][humanoid_env.envs.configs.check_leg_odometry_needs])."""
    return tuple(cls.from_keywords(values) for cls in part_classes)


def check_partition(defaults: Mapping[str, Any], part_classes: Iterable[type[PartConfig]]) -> None:
    """``ValueError`` unless each key of ``defaults`` is a keyword of exactly one of ``part_classes``
    and each of their keywords is a key of ``defaults`` (the message lists every problem)."""
    part_classes = tuple(part_classes)
    owners: dict[str, list[str]] = {}
    for cls in part_classes:
        for name in cls.KEYWORDS:
            owners.setdefault(name, []).append(cls.__name__)
    problems = []
    orphans = [name for name in defaults if name not in owners]
    if orphans:
        problems.append(f"keyword(s) of no part: {orphans}")
    shared = {name: parts for name, parts in owners.items() if len(parts) > 1}
    if shared:
        problems.append(f"keyword(s) of several parts: {shared}")
    unknown = {name: parts for name, parts in owners.items() if name not in defaults}
    if unknown:
        problems.append(f"part keyword(s) without a default: {unknown}")
    if problems:
        names = [cls.__name__ for cls in part_classes]
        raise ValueError(f"the defaults are not split into the parts {names}: " + "; ".join(problems))


def _check_keywords(part_classes: Iterable[type[PartConfig]]) -> None:
    """Each part's ``KEYWORDS`` are its init fields, in order (checked at import)."""
    for cls in part_classes:
        init_fields = tuple(f.name for f in fields(cls) if f.init)
        if cls.KEYWORDS != init_fields:
            raise TypeError(f"{cls.__name__}.KEYWORDS {cls.KEYWORDS} are not its init fields {init_fields}")


_check_keywords((*BASE_PARTS, BalanceTaskConfig, WallTaskConfig, SeesawTaskConfig))

__all__ = [
    "ACTION_MODES",
    "BALANCE_PARTS",
    "BASE_PARTS",
    "BOARD_TARGET_SHARE",
    "MAX_FRAME_SKIP",
    "MAX_HAND_FORCE_WEIGHT",
    "MAX_RENDER_PX",
    "RENDER_MODES",
    "SEESAW_MODELS",
    "SEESAW_PARTS",
    "WALL_PARTS",
    "BalanceTaskConfig",
    "PartConfig",
    "PdConfig",
    "PlantConfig",
    "RewardConfig",
    "SensingConfig",
    "STEPPING_LAW_SETTINGS",
    "STEPPING_SWING_SETTINGS",
    "SeesawTaskConfig",
    "ShellConfig",
    "SteppingBalanceTaskConfig",
    "TerminationConfig",
    "WallTaskConfig",
    "WbcConfig",
    "check_controller_overrides",
    "check_leg_odometry_needs",
    "check_stepping_needs",
    "check_partition",
    "contact_guard_settings",
    "split_keywords",
    "stepping_settings",
]
