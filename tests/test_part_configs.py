"""The envs' typed part configs (issue 35, ``humanoid_env.envs.configs``): every default keyword
belongs to exactly one part, the parts built from the defaults hold the defaults' values (as python
floats, ints, bools, tuples), they are frozen, and a bad value is refused with the message
``gym.make`` gives for it (the expected message is computed by ``gym.make`` itself, so the two stay
in step). A rejection costs ``gym.make`` microseconds (no model is built), so every keyword is tried.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the environments)
from humanoid_env.envs.balance import BALANCE_DEFAULTS, HumanoidBalanceEnv
from humanoid_env.envs.base import BASE_DEFAULTS
from humanoid_env.envs.configs import (
    BALANCE_PARTS,
    BASE_PARTS,
    SEESAW_PARTS,
    WALL_PARTS,
    BalanceTaskConfig,
    PartConfig,
    PdConfig,
    PlantConfig,
    RewardConfig,
    SeesawTaskConfig,
    SensingConfig,
    ShellConfig,
    SteppingBalanceTaskConfig,
    TerminationConfig,
    WallTaskConfig,
    WbcConfig,
    check_leg_odometry_needs,
    check_partition,
    split_keywords,
)
from humanoid_env.envs.estimation import PRESETS as ESTIMATION_PRESETS
from humanoid_env.envs.randomisation import PRESETS as RANDOMISATION_PRESETS
from humanoid_env.envs.seesaw import SEESAW_DEFAULTS, HumanoidSeesawEnv
from humanoid_env.envs.square import SQUARE_DEFAULTS, SquareTaskConfig
from humanoid_env.envs.wall import WALL_DEFAULTS, HumanoidWallEnv
from humanoid_env.robots import robot_description
from wbc_layer.contact_guard import ContactGuardSettings

#: env id -> (its class, its DEFAULTS, its parts)
ENVS: dict[str, tuple[type, dict[str, Any], tuple[type[PartConfig], ...]]] = {
    "HumanoidWBC-v0": (HumanoidBalanceEnv, BALANCE_DEFAULTS, BALANCE_PARTS),
    "HumanoidWBCWall-v0": (HumanoidWallEnv, WALL_DEFAULTS, WALL_PARTS),
    "HumanoidWBCSeesaw-v0": (HumanoidSeesawEnv, SEESAW_DEFAULTS, SEESAW_PARTS),
}
ALL_PARTS = (*BASE_PARTS, BalanceTaskConfig, SteppingBalanceTaskConfig, WallTaskConfig, SeesawTaskConfig)
#: gym.make warns before the env refuses a render_mode that is not in its metadata.
pytestmark = pytest.mark.filterwarnings("ignore:.*not in the possible render_modes:UserWarning")


def owner(parts: tuple[type[PartConfig], ...], keyword: str) -> type[PartConfig]:
    (cls,) = [cls for cls in parts if keyword in cls.KEYWORDS]
    return cls


def make_error(env_id: str, kwargs: dict[str, Any]) -> str:
    """What ``gym.make(env_id, **kwargs)`` says (it must refuse with a ``ValueError``)."""
    with pytest.raises(ValueError) as err:
        gym.make(env_id, **kwargs)
    return str(err.value)


def config_error(env_id: str, kwargs: dict[str, Any]) -> str:
    """What the parts (and the cross-part rule) say about the resolved keywords."""
    _, defaults, parts = ENVS[env_id]
    with pytest.raises(ValueError) as err:
        built = split_keywords({**defaults, **kwargs}, parts)
        check_leg_odometry_needs(built[parts.index(SensingConfig)], built[parts.index(ShellConfig)].action_mode)
    return str(err.value)


# -- the partition ----------------------------------------------------------------------------------
def test_each_default_keyword_belongs_to_exactly_one_part():
    check_partition(BASE_DEFAULTS, BASE_PARTS)
    check_partition(BALANCE_DEFAULTS, BALANCE_PARTS)
    check_partition(WALL_DEFAULTS, WALL_PARTS)
    check_partition(SEESAW_DEFAULTS, SEESAW_PARTS)
    check_partition(SQUARE_DEFAULTS, (*BASE_PARTS, SquareTaskConfig))
    assert (len(BASE_DEFAULTS), len(WALL_DEFAULTS) - len(BASE_DEFAULTS)) == (40, 16)
    assert sum(len(cls.KEYWORDS) for cls in BASE_PARTS) == 40
    assert len(WallTaskConfig.KEYWORDS) == 16
    assert len(SeesawTaskConfig.KEYWORDS) == 15 and set(BalanceTaskConfig.KEYWORDS) <= set(SeesawTaskConfig.KEYWORDS)


@pytest.mark.parametrize(
    "defaults, parts, message",
    [
        (BALANCE_DEFAULTS, BASE_PARTS, "keyword(s) of no part: ['com_target_range_m', 'target_interval_s', 'target_speed_mps', 'stepping', 'goal_follows_feet']"),
        (SEESAW_DEFAULTS, (*BALANCE_PARTS, SeesawTaskConfig), "keyword(s) of several parts: {'com_target_range_m'"),
        (BALANCE_DEFAULTS, (*BALANCE_PARTS, ShellConfig), "'action_mode': ['ShellConfig', 'ShellConfig']"),
        (BASE_DEFAULTS, BALANCE_PARTS, "part keyword(s) without a default: {'com_target_range_m': ['SteppingBalanceTaskConfig']"),
    ],
)
def test_a_gap_or_an_overlap_is_refused(defaults, parts, message):
    with pytest.raises(ValueError) as err:
        check_partition(defaults, parts)
    assert message in str(err.value)


def test_keywords_are_the_init_fields():
    for cls in ALL_PARTS:
        assert cls.KEYWORDS == tuple(f.name for f in dataclasses.fields(cls) if f.init), cls.__name__


# -- built from the defaults --------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", list(ENVS))
def test_the_parts_of_the_defaults_hold_the_defaults(env_id):
    _, defaults, parts = ENVS[env_id]
    built = split_keywords(defaults, parts)
    assert [type(part) for part in built] == list(parts)
    held = {}
    for part in built:
        held.update(part.keywords())
    assert held == defaults
    for name, value in held.items():
        default = defaults[name]
        if isinstance(default, tuple):
            assert type(value) is tuple and all(type(x) is float for x in value), name
        elif default is not None:
            assert type(value) is type(default), name
    plant = built[parts.index(PlantConfig)]
    assert plant.description == robot_description(defaults["robot"]) and plant.randomise_ranges is None
    assert built[parts.index(SensingConfig)].estimation_settings is None


def test_parts_are_frozen():
    for part in split_keywords(SEESAW_DEFAULTS, SEESAW_PARTS):
        name = part.KEYWORDS[0]
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(part, name, getattr(part, name))


def test_values_are_held_as_python_numbers_and_resolved_objects():
    values = {
        **BALANCE_DEFAULTS, "frame_skip": np.int64(5), "render_width": np.int32(64), "timing_in_info": np.True_,
        "init_noise_rad": np.float32(0.25), "push_magnitude_n": [np.int64(1), 2], "push_interval_s": np.array([1.0, 3.0]),
        "push_direction_deg": 90, "com_offset_low_m": np.array([-0.01, -0.02, -0.03]), "force_share_range": [0.2, 0.8],
        "reference_feedforward": np.False_, "contact_guard": True, "randomise": "moderate", "estimation": "hard",
        "leg_odometry_s": 1, "com_target_range_m": [0, 0, 0], "target_speed_mps": np.float64(0.5), "fall_penalty": 3,
    }  # fmt: skip
    shell, plant, sensing, wbc, _, _, reward, task = split_keywords(values, BALANCE_PARTS)
    assert (shell.frame_skip, shell.render_width, shell.timing_in_info) == (5, 64, True)
    assert type(shell.frame_skip) is int and type(shell.render_width) is int and type(shell.timing_in_info) is bool
    assert plant.init_noise_rad == float(np.float32(0.25)) and type(plant.init_noise_rad) is float
    assert plant.push_magnitude_n == (1.0, 2.0) and plant.push_interval_s == (1.0, 3.0)
    assert plant.push_direction_deg == 90.0 and type(plant.push_direction_deg) is float
    assert plant.randomise == "moderate" and plant.randomise_ranges == RANDOMISATION_PRESETS["moderate"]
    assert sensing.estimation == "hard" and sensing.estimation_settings == ESTIMATION_PRESETS["hard"]
    assert sensing.leg_odometry_s == 1.0 and type(sensing.leg_odometry_s) is float
    assert wbc.com_offset_low_m == (-0.01, -0.02, -0.03) and all(type(x) is float for x in wbc.com_offset_low_m)
    assert wbc.force_share_range == (0.2, 0.8) and wbc.reference_feedforward is False
    assert wbc.contact_guard == ContactGuardSettings()
    assert reward.fall_penalty == 3.0 and type(reward.fall_penalty) is float
    assert task.com_target_range_m == (0.0, 0.0, 0.0) and type(task.target_speed_mps) is float
    check_leg_odometry_needs(sensing, shell.action_mode)  # estimation and wbc mode: allowed
    # a part is rebuilt (and checked again) by dataclasses.replace; a bad value is refused there too
    assert dataclasses.replace(shell, frame_skip=7).frame_skip == 7
    with pytest.raises(ValueError, match=r"^frame_skip must be an integer in \[1, 1000\], got 0$"):
        dataclasses.replace(shell, frame_skip=0)


def test_from_keywords_ignores_other_keys_and_names_missing_ones():
    assert PdConfig.from_keywords({**BASE_DEFAULTS, "not_a_keyword": object()}) == PdConfig(0.5, 4.0, 0.05)
    with pytest.raises(ValueError, match=r"^TerminationConfig: missing keyword\(s\) \['max_tilt_rad'\]$"):
        TerminationConfig.from_keywords({"min_base_height_m": 0.4})


def test_the_push_body_of_the_scene_is_the_envs_check():
    """Whether the scene has the named body needs the model: the part accepts any non-empty name,
    the env refuses an unknown one when it has built the scene."""
    assert PlantConfig.from_keywords({**BASE_DEFAULTS, "push_body": "nose"}).push_body == "nose"
    assert make_error("HumanoidWBC-v0", {"push_body": "nose"}).startswith("push_body must be None or the name of a body")


# -- the messages are gym.make's ------------------------------------------------------------------------
def _text_cases() -> list[tuple[str, str, Any]]:
    """Every keyword of every env with a value it refuses ("abc"; 3 for push_body, whose any string
    is a body name to the part)."""
    return [(env_id, name, 3 if name == "push_body" else "abc") for env_id, (_, d, _) in ENVS.items() for name in d]


HUBO = robot_description("hubo_lite")

#: (env id, keywords): values refused for a reason of their own (a bound, a rule between keywords).
CASES: list[tuple[str, dict[str, Any]]] = [
    ("HumanoidWBC-v0", {"robot": [1, 2]}),
    ("HumanoidWBC-v0", {"robot": "atlas"}),
    ("HumanoidWBC-v0", {"robot": dataclasses.replace(HUBO, controller_overrides={"com_kp": "abc"})}),
    ("HumanoidWBC-v0", {"robot": dataclasses.replace(HUBO, controller_overrides={"com_kp": math.inf})}),
    ("HumanoidWBC-v0", {"robot": dataclasses.replace(HUBO, controller_overrides={"friction_facets": 4.0})}),
    ("HumanoidWBC-v0", {"robot": dataclasses.replace(HUBO, controller_overrides={"com_gain": 1.0})}),
    ("HumanoidWBC-v0", {"action_mode": np.array(["wbc"])}),
    ("HumanoidWBC-v0", {"render_mode": "depth"}),
    ("HumanoidWBC-v0", {"frame_skip": 1e30}),
    ("HumanoidWBC-v0", {"frame_skip": 10.0}),
    ("HumanoidWBC-v0", {"frame_skip": 0}),
    ("HumanoidWBC-v0", {"render_width": 160.5}),
    ("HumanoidWBC-v0", {"render_height": 4097}),
    ("HumanoidWBC-v0", {"timing_in_info": "False"}),
    ("HumanoidWBC-v0", {"init_noise_rad": 0.6}),
    ("HumanoidWBC-v0", {"push_magnitude_n": (100.0, 50.0)}),
    ("HumanoidWBC-v0", {"push_duration_s": True}),
    ("HumanoidWBC-v0", {"push_duration_s": -0.1}),
    ("HumanoidWBC-v0", {"push_interval_s": (0.0, 1.0)}),
    ("HumanoidWBC-v0", {"push_interval_s": [0, 1]}),
    ("HumanoidWBC-v0", {"push_direction_deg": math.nan}),
    ("HumanoidWBC-v0", {"push_body": ""}),
    ("HumanoidWBC-v0", {"randomise": {"link_mass_scale": "heavy"}}),
    ("HumanoidWBC-v0", {"randomise": {"mass": (1.0, 2.0)}}),
    ("HumanoidWBC-v0", {"randomise": "extreme"}),
    ("HumanoidWBC-v0", {"estimation": {"base_rpy_noise_rad": 1e300}}),
    ("HumanoidWBC-v0", {"estimation": {"bias_time_constant_s": 1e30}}),
    ("HumanoidWBC-v0", {"estimation": {"sensing_delay_steps": 1.0}}),
    ("HumanoidWBC-v0", {"leg_odometry_s": 0.0}),
    ("HumanoidWBC-v0", {"leg_odometry_s": 0.1}),  # no estimated state
    ("HumanoidWBC-v0", {"leg_odometry_s": 0.1, "estimation": "moderate", "action_mode": "pd"}),
    ("HumanoidWBCSeesaw-v0", {"leg_odometry_s": 0.1, "estimation": {"sensing_delay_steps": 1}, "action_mode": "torque"}),
    ("HumanoidWBC-v0", {"com_offset_low_m": (0.01, -0.04, -0.05)}),
    ("HumanoidWBC-v0", {"com_offset_high_m": (0.04, 0.04, 0.3)}),
    ("HumanoidWBC-v0", {"com_offset_high_m": (0.04, 0.04)}),
    ("HumanoidWBC-v0", {"com_offset_low_m": (-0.3, 0.0, 0.0)}),
    ("HumanoidWBC-v0", {"force_share_range": (0.1, 1.2)}),
    ("HumanoidWBC-v0", {"force_share_range": (0.6, 0.9)}),
    ("HumanoidWBC-v0", {"com_rate_limit_mps": 0.0}),
    ("HumanoidWBC-v0", {"com_offset_filter_s": 11}),
    ("HumanoidWBC-v0", {"force_share_rate_limit": -1}),
    ("HumanoidWBC-v0", {"force_weight": math.inf}),
    ("HumanoidWBC-v0", {"reference_feedforward": 1}),
    ("HumanoidWBC-v0", {"qp_solver": "osqp"}),
    ("HumanoidWBC-v0", {"wbc_backend": "cuda"}),
    ("HumanoidWBC-v0", {"contact_guard": {"tilt_rad": "abc"}}),
    ("HumanoidWBC-v0", {"contact_guard": {"unloaded_s": "never"}}),
    ("HumanoidWBC-v0", {"contact_guard": "on"}),
    ("HumanoidWBC-v0", {"contact_guard": {"tilt_rad": -1.0}}),
    ("HumanoidWBC-v0", {"contact_guard": {"tilt": 0.1}}),
    ("HumanoidWBC-v0", {"contact_guard": {"unloaded_force_n": 20.0}}),
    ("HumanoidWBC-v0", {"pd_action_scale_rad": -0.5}),
    ("HumanoidWBC-v0", {"pd_kp_per_nm": math.nan}),
    ("HumanoidWBC-v0", {"pd_kd_s": None}),
    ("HumanoidWBC-v0", {"min_base_height_m": -1}),
    ("HumanoidWBC-v0", {"max_tilt_rad": 0.0}),
    ("HumanoidWBC-v0", {"max_tilt_rad": 4.0}),
    ("HumanoidWBC-v0", {"com_tracking_sigma_m": 0}),
    ("HumanoidWBC-v0", {"reward_alive": -1.0}),
    ("HumanoidWBC-v0", {"fall_penalty": math.inf}),
    ("HumanoidWBC-v0", {"com_target_range_m": (-0.1, 0.0, 0.0)}),
    ("HumanoidWBC-v0", {"target_interval_s": (0, 1)}),
    ("HumanoidWBC-v0", {"target_speed_mps": 0.0}),
    ("HumanoidWBCWall-v0", {"hand_force_max_n": 0.0}),
    ("HumanoidWBCWall-v0", {"hand_force_max_n": 501.0}),
    ("HumanoidWBCWall-v0", {"hand_force_max_n": 30.0}),  # below the default command range's hi
    ("HumanoidWBCWall-v0", {"hand_force_max_n": 45.0}),  # below the default hand_force_action_n
    ("HumanoidWBCWall-v0", {"hand_force_action_n": 61.0}),
    ("HumanoidWBCWall-v0", {"hand_force_command_range_n": (30.0, 20.0)}),
    ("HumanoidWBCWall-v0", {"hand_force_change_time_s": (0.0, 1.0)}),
    ("HumanoidWBCWall-v0", {"hand_force_command_rate_nps": 0.0}),
    ("HumanoidWBCWall-v0", {"hand_force_rate_limit_nps": -1.0}),
    ("HumanoidWBCWall-v0", {"hand_force_weight": 2e6}),
    ("HumanoidWBCWall-v0", {"hand_force_integral_gain": -1.0}),
    ("HumanoidWBCWall-v0", {"hand_force_integral_limit_n": math.nan}),
    ("HumanoidWBCWall-v0", {"settle_force_n": 0.5}),
    ("HumanoidWBCWall-v0", {"settle_force_n": 70.0}),
    ("HumanoidWBCWall-v0", {"com_lean_range_m": (0.0, 0.1)}),
    ("HumanoidWBCWall-v0", {"target_speed_mps": 0}),
    ("HumanoidWBCWall-v0", {"hand_contact_min_force_n": -0.5}),
    ("HumanoidWBCWall-v0", {"hand_contact_lost_max_s": -1}),
    ("HumanoidWBCWall-v0", {"reward_hand_force": -1}),
    ("HumanoidWBCWall-v0", {"hand_force_sigma_n": 0.0}),
    ("HumanoidWBCSeesaw-v0", {"com_offset_filter_s": -0.1}),
    ("HumanoidWBCSeesaw-v0", {"push_magnitude_n": (-1.0, 55.0)}),
    ("HumanoidWBCSeesaw-v0", {"com_target_range_m": (0.0, 0.02)}),
    ("HumanoidWBCSeesaw-v0", {"target_interval_s": (3.0, 2.0)}),
    ("HumanoidWBCSeesaw-v0", {"seesaw_model": "soft"}),
    ("HumanoidWBCSeesaw-v0", {"seesaw_damping_nms": -1.0}),
    ("HumanoidWBCSeesaw-v0", {"board_balance_gain": -1.5}),
    ("HumanoidWBCSeesaw-v0", {"board_task_weight": math.inf}),
    ("HumanoidWBCSeesaw-v0", {"board_task_kp": -1}),
    ("HumanoidWBCSeesaw-v0", {"board_task_kd": "sixty"}),
    ("HumanoidWBCSeesaw-v0", {"coupled_com_weight": -1000.0}),
    ("HumanoidWBCSeesaw-v0", {"push_lateral": 1}),
    ("HumanoidWBCSeesaw-v0", {"max_board_tilt_rad": 0.0}),
    ("HumanoidWBCSeesaw-v0", {"max_board_tilt_rad": 2.0}),
    ("HumanoidWBCSeesaw-v0", {"reward_board_level": -1.0}),
    ("HumanoidWBCSeesaw-v0", {"board_level_sigma_rad": 0.0}),
    ("HumanoidWBCSeesaw-v0", {"board_tilt_action_rad": 0.32}),
    ("HumanoidWBCSeesaw-v0", {"board_tilt_action_rad": 0.1, "max_board_tilt_rad": 0.1}),
    ("HumanoidWBCSeesaw-v0", {"board_tilt_action_rad": -0.1}),
    ("HumanoidWBCSeesaw-v0", {"board_tilt_action_rad": 0.1, "seesaw_model": "rigid"}),
]


@pytest.mark.parametrize("env_id, keyword, value", _text_cases())
def test_every_keyword_is_refused_as_gym_make_refuses_it(env_id, keyword, value):
    _, defaults, parts = ENVS[env_id]
    expected = make_error(env_id, {keyword: value})
    assert expected.startswith(keyword)
    with pytest.raises(ValueError) as err:
        owner(parts, keyword).from_keywords({**defaults, keyword: value})
    assert str(err.value) == expected


@pytest.mark.parametrize("env_id, kwargs", CASES, ids=[f"{e}-{'-'.join(k)}" for e, k in CASES])
def test_bounds_and_rules_are_refused_as_gym_make_refuses_them(env_id, kwargs):
    assert config_error(env_id, kwargs) == make_error(env_id, kwargs)


#: The keyword fuzz's bad values (tests/test_env_keyword_fuzz.py).
FUZZ_VALUES = (None, "abc", math.nan, math.inf, -1, 1e30, [1, 2], {}, object())


@pytest.mark.parametrize("env_id", list(ENVS))
def test_a_fuzzed_keyword_is_refused_by_its_part_exactly_when_the_env_refuses_it(env_id):
    """Each keyword against the keyword fuzz's values: a part's refusal is the env's, word for word
    (the env class built directly: ``gym.make`` itself calls ``.endswith`` on a non-string
    ``render_mode``)."""
    cls, defaults, parts = ENVS[env_id]
    mismatched = []
    for keyword in defaults:
        part = owner(parts, keyword)
        for value in FUZZ_VALUES:
            values = {**defaults, keyword: value}
            try:
                part.from_keywords(values)
            except (ValueError, TypeError) as err:
                try:
                    cls(**{keyword: value})
                except (ValueError, TypeError) as env_err:
                    if (type(env_err), str(env_err)) != (type(err), str(err)):
                        mismatched.append(f"{keyword}={value!r}: part {err!r}, env {env_err!r}")
                else:  # pragma: no cover - a failure's report
                    mismatched.append(f"{keyword}={value!r}: part {err!r}, the env accepted it")
    assert not mismatched, mismatched


def test_the_leg_odometry_rule_is_the_envs():
    sensing = SensingConfig(estimation=None, leg_odometry_s=0.5)
    with pytest.raises(ValueError) as err:
        check_leg_odometry_needs(sensing, "wbc")
    assert str(err.value) == make_error("HumanoidWBC-v0", {"leg_odometry_s": 0.5})
    check_leg_odometry_needs(SensingConfig(estimation=None, leg_odometry_s=None), "pd")  # off: any mode
    check_leg_odometry_needs(SensingConfig(estimation="moderate", leg_odometry_s=0.5), "wbc")


def test_every_part_is_built_and_equal_from_the_same_values():
    """Parts compare by value (the resolved description aside, which follows from ``robot``)."""
    for cls in ALL_PARTS:
        values = SEESAW_DEFAULTS if cls is SeesawTaskConfig else {**WALL_DEFAULTS, **BALANCE_DEFAULTS}
        assert cls.from_keywords(values) == cls.from_keywords(dict(values)), cls.__name__
    assert ShellConfig.from_keywords(BASE_DEFAULTS) != ShellConfig.from_keywords({**BASE_DEFAULTS, "frame_skip": 5})
    assert WbcConfig.from_keywords(BASE_DEFAULTS) == WbcConfig.from_keywords({**BASE_DEFAULTS, "contact_guard": False})
    assert RewardConfig.from_keywords(BASE_DEFAULTS).keywords()["reward_alive"] == 1.0
