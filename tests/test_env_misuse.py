"""The environments under misuse (issue 34): bad keywords are rejected at construction with a
message naming the keyword, non-finite states and estimates end the episode instead of reaching
the controller or the observation, rendering without OpenGL or a display raises a clear error
(and never aborts the interpreter), and the ``previous_action`` block holds the action just applied.

What could hang or abort the interpreter runs in a subprocess with a timeout.
"""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
import textwrap

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the environments)
from humanoid_env.envs.balance import HumanoidBalanceEnv
from humanoid_env.envs.base import NonFiniteStateError
from humanoid_env.envs.estimation import NOISE_LIMITS
from humanoid_env.envs.estimation import PRESETS as ESTIMATION_PRESETS
from humanoid_env.envs.randomisation import PRESETS as RANDOMISATION_PRESETS
from humanoid_env.envs.randomisation import RANGE_LIMITS
from humanoid_env.envs.seesaw import HumanoidSeesawEnv
from humanoid_env.envs.wall import HumanoidWallEnv
from humanoid_env.robots import robot_description

ENV_IDS = ("HumanoidWBC-v0", "HumanoidWBCWall-v0", "HumanoidWBCSeesaw-v0")
NO_PUSH = {"push_magnitude_n": (0.0, 0.0)}
#: A subprocess that should finish in a few seconds gets this long [s] (imports included).
SUBPROCESS_TIMEOUT_S = 60


def run_python(script: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``script`` in a fresh interpreter (the repository on its path), bounded by the timeout."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S,
        env=env, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )  # fmt: skip


# -- frame_skip -------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [1e30, math.nan, math.inf, "abc", None, [1, 2], 10.0, True, 0, -1, 1001])
def test_frame_skip_must_be_an_integer_in_range(value):
    """1e30 was accepted (``int(1e30) == 1e30``) and step() never returned; the others gave raw
    int() errors. Now each is refused at construction, naming the keyword and the range."""
    with pytest.raises(ValueError, match=r"^frame_skip must be an integer in \[1, 1000\], got "):
        HumanoidBalanceEnv(frame_skip=value)


def test_frame_skip_message_and_accepted_integers():
    with pytest.raises(ValueError) as error:
        HumanoidBalanceEnv(frame_skip=1e30)
    assert str(error.value) == "frame_skip must be an integer in [1, 1000], got 1e+30"
    for value, steps in ((1, 1), (np.int64(5), 5), (1000, 1000)):
        env = HumanoidBalanceEnv(frame_skip=value, **NO_PUSH)
        assert env.frame_skip == steps and type(env.frame_skip) is int
        assert env.dt == pytest.approx(0.002 * steps, rel=1e-12)


# -- bounds of estimation and randomise ----------------------------------------------------------
def test_huge_estimation_noise_is_rejected_at_construction():
    """``base_rpy_noise_rad=1e300`` was accepted, and step() had not returned after 120 s."""
    with pytest.raises(
        ValueError, match=r"estimation: base_rpy_noise_rad must be a number in \[0, 0.5\].*got 1e\+300"
    ):
        gym.make("HumanoidWBC-v0", estimation={"base_rpy_noise_rad": 1e300})


@pytest.mark.parametrize("name", list(NOISE_LIMITS))
def test_every_noise_has_an_upper_bound_above_the_presets(name):
    limit = NOISE_LIMITS[name]
    for preset in ESTIMATION_PRESETS.values():  # every preset sits at least 10x below the bound
        assert getattr(preset, name) * 10 <= limit, name
    with pytest.raises(ValueError, match=rf"estimation: {name} must be a number in \[0, {limit:g}\]"):
        HumanoidBalanceEnv(estimation={name: limit * 1.01})
    assert (
        getattr(HumanoidBalanceEnv(estimation={name: limit}).pipeline.sensors.settings, name) == limit
    )  # the bound is allowed


def test_bias_time_constant_has_an_upper_bound():
    with pytest.raises(ValueError, match=r"estimation: bias_time_constant_s must be a number in \(0, 3600\]"):
        HumanoidBalanceEnv(estimation={"bias_time_constant_s": 1e30})


@pytest.mark.parametrize("name", list(RANGE_LIMITS))
def test_every_randomisation_range_has_an_upper_bound_above_the_presets(name):
    limit = RANGE_LIMITS[name]
    for preset in RANDOMISATION_PRESETS.values():
        assert getattr(preset, name)[1] * 2 <= limit, name
    with pytest.raises(ValueError, match=rf"^randomise: {name} must satisfy 0.0 <= lo <= hi <= {limit}"):
        HumanoidBalanceEnv(randomise={name: (1.0, limit * 1.01)})
    assert getattr(HumanoidBalanceEnv(randomise={name: (1.0, limit)}).plant.randomiser.ranges, name) == (1.0, limit)


# -- non-finite state, estimate, torques: the episode ends; reset raises ------------------------------
NAN_ESTIMATE_SCRIPT = """
import json, math, time
import numpy as np, gymnasium as gym, humanoid_env
env = gym.make("{env_id}", action_mode="{mode}", estimation="moderate", push_magnitude_n=(0.0, 0.0))
u = env.unwrapped
env.reset(seed=0)
estimator = u.pipeline.sensors
update = estimator.update
def poisoned(data):  # from t = 0.05 s on, the estimate's base angular velocity is NaN
    new = update(data)
    if data.time >= 0.05:
        estimator.qvel[u.bridge.root_dof + 4] = math.nan
    return new
estimator.update = poisoned
ctrl_finite, steps, start = True, 0, time.perf_counter()
for steps in range(1, 11):
    obs, reward, terminated, truncated, info = env.step(np.zeros(env.action_space.shape))
    ctrl_finite = ctrl_finite and bool(np.isfinite(u.data.ctrl).all())
    if terminated:
        break
print(json.dumps(dict(steps=steps, terminated=terminated, termination=info["termination"],
      nonfinite_state=info["nonfinite_state"], obs_finite=bool(np.isfinite(obs).all()), reward_finite=math.isfinite(reward),
      ctrl_finite=ctrl_finite, state_finite=bool(np.isfinite(u.data.qpos).all() and np.isfinite(u.data.qvel).all()),
      seconds=time.perf_counter() - start)))
"""


@pytest.mark.parametrize(
    "env_id, mode", [("HumanoidWBC-v0", "wbc"), ("HumanoidWBCSeesaw-v0", "wbc"), ("HumanoidWBC-v0", "pd")]
)
def test_a_nonfinite_estimate_ends_the_episode_before_the_controller_sees_it(env_id, mode):
    """Before, a NaN estimate went to the controller (whose fallback then hung) or, in pd mode,
    became NaN torques that the sim bridge refused with an exception out of step()."""
    import json

    proc = run_python(NAN_ESTIMATE_SCRIPT.format(env_id=env_id, mode=mode))
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    # t = 0.05 s is inside the third env step (0.04-0.06 s): it ends there, within a second.
    assert result["steps"] == 3 and result["terminated"] and result["termination"] == "nonfinite_estimate"
    assert result["nonfinite_state"] and result["obs_finite"] and result["reward_finite"]
    assert result["ctrl_finite"] and result["state_finite"] and result["seconds"] < 5.0


def test_nonfinite_torques_end_the_episode_and_never_reach_the_simulation():
    env = HumanoidBalanceEnv(action_mode="torque", **NO_PUSH)
    obs0, _ = env.reset(seed=0)
    torques = env.actuation.torques
    env.actuation.torques = lambda qpos, qvel, a: (np.full(env.plant.na, np.nan), *torques(qpos, qvel, a)[1:])
    ctrl_before = env.data.ctrl.copy()
    obs, reward, terminated, _, info = env.step(np.zeros(env.action_space.shape))
    assert terminated and info["termination"] == "nonfinite_torques" and info["fell"]
    np.testing.assert_array_equal(env.data.ctrl, ctrl_before)  # nothing was written
    assert env.data.time == 0.0  # no physics step ran with them
    assert np.isfinite(reward) and np.array_equal(obs, obs0)


def test_reset_raises_rather_than_return_a_nonfinite_observation():
    """Before, reset() returned the observation of a non-finite estimate as it was (inf or NaN)."""
    env = HumanoidBalanceEnv(estimation="moderate", **NO_PUSH)
    update = env.pipeline.sensors.update

    def poisoned(data):
        new = update(data)
        env.pipeline.sensors.qvel[env.bridge.joint_dof[0]] = math.inf
        return new

    env.pipeline.sensors.update = poisoned
    with pytest.raises(
        NonFiniteStateError,
        match=r"reset\(\): the initial state is not finite \(observation blocks \['joint_velocities', 'com_velocity'\]",
    ):
        env.reset(seed=0)
    assert issubclass(NonFiniteStateError, RuntimeError)


def test_termination_says_why():
    running = HumanoidBalanceEnv(**NO_PUSH)
    _, info = running.reset(seed=0)
    assert info["termination"] is None
    _, _, terminated, _, info = running.step(np.zeros(4))
    assert not terminated and info["termination"] is None
    fallen = HumanoidBalanceEnv(min_base_height_m=5.0, **NO_PUSH)  # the pelvis is always "too low"
    fallen.reset(seed=0)
    _, _, terminated, _, info = fallen.step(np.zeros(4))
    assert terminated and info["fell"] and info["termination"] == "fell"
    broken = HumanoidBalanceEnv(**NO_PUSH)
    broken.reset(seed=0)
    broken.data.qvel[8] = np.nan
    _, _, terminated, _, info = broken.step(np.zeros(4))
    assert terminated and info["termination"] == "nonfinite_state"
    wall = HumanoidWallEnv(
        hand_contact_min_force_n=1e6, hand_contact_lost_max_s=0.0, **NO_PUSH
    )  # never "in contact"
    wall.reset(seed=0)
    _, _, terminated, _, info = wall.step(np.zeros(5))
    assert terminated and not info["fell"] and info["termination"] == "hand_contact_lost"


# -- booleans are booleans ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["reference_feedforward", "timing_in_info"])
@pytest.mark.parametrize("value", ["False", "True", 0, 1, None, 0.0])
def test_boolean_keywords_accept_only_booleans(name, value):
    """``reference_feedforward="False"`` acted as True before (a non-empty string)."""
    with pytest.raises(ValueError, match=rf"^{name} must be True or False, got "):
        HumanoidBalanceEnv(**{name: value})


def test_numpy_booleans_are_booleans():
    env = HumanoidBalanceEnv(reference_feedforward=np.bool_(False), contact_guard=np.True_, **NO_PUSH)
    env.reset(seed=0)
    assert env.actuation.guard is not None  # np.True_: the guard's default settings
    np.testing.assert_array_equal(env.task.standing.wbc_com_reference, env.com_nominal)  # no feedforward: the nominal CoM
    assert HumanoidSeesawEnv(push_lateral=np.False_).config["push_lateral"] is np.False_


# -- rejections name the keyword ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"push_body": 3},
            r"^push_body must be None \(the robot's push body\) or the name of a body of the scene, got 3$",
        ),
        (
            {"push_body": "nose"},
            r"^push_body must be None or the name of a body of the scene scene_flat.xml, got 'nose'$",
        ),
        (
            {"robot": [1, 2]},
            r"^robot must be one of \['g1', 'hubo_lite'\] or a RobotDescription, got \[1, 2\]$",
        ),
        (
            {"contact_guard": {"tilt_rad": "abc"}},
            r"^contact_guard\['tilt_rad'\] must be a number, got 'abc'$",
        ),
        (
            {"contact_guard": "on"},
            r"^contact_guard must be None, True, False, a dict of ContactGuardSettings fields",
        ),
        (
            {"contact_guard": {"tilt_rad": -1.0}},
            r"^contact_guard: ContactGuardSettings.tilt_rad must be finite",
        ),
        ({"render_width": 160.5}, r"^render_width must be an integer in \[1, 4096\], got 160.5$"),
        (
            {"randomise": {"link_mass_scale": "heavy"}},
            r"^randomise: link_mass_scale must be a pair \(lo, hi\) of numbers",
        ),
        (
            {"action_mode": np.array(["wbc"])},
            r"^action_mode must be one of \('wbc', 'torque', 'pd'\), got array",
        ),
        ({"push_duration_s": True}, r"^push_duration_s must be a number, got True$"),
    ],
)
def test_rejections_name_the_keyword(kwargs, message):
    with pytest.raises(ValueError, match=message):
        HumanoidBalanceEnv(**kwargs)


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"com_kp": "abc"}, r"^robot.controller_overrides\['com_kp'\] must be a number, got 'abc'$"),
        ({"com_kp": math.inf}, r"^robot.controller_overrides\['com_kp'\] must be finite, >= 0.0"),
        (
            {"friction_facets": 4.0},
            r"^robot.controller_overrides\['friction_facets'\] must be an integer in \[0, 1000\], got 4.0$",
        ),
        (
            {"com_gain": 1.0},
            r"^robot \('hubo_lite'\) controller_overrides: unknown controller setting\(s\) \['com_gain'\]",
        ),
    ],
)
def test_bad_controller_overrides_are_named_at_construction(overrides, message):
    """``com_kp='abc'`` was accepted at construction; reset() then failed deep in the compiled
    controller with "could not convert string to float: 'abc'"."""
    robot = dataclasses.replace(robot_description("hubo_lite"), controller_overrides=overrides)
    with pytest.raises(ValueError, match=message):
        HumanoidBalanceEnv(robot=robot)


# -- rendering ------------------------------------------------------------------------------------
RENDER_TWICE_SCRIPT = """
import gymnasium as gym, humanoid_env
from humanoid_env.envs.rendering import RenderError
env = gym.make("HumanoidWBC-v0", render_mode="{mode}")
env.reset(seed=0)
messages = []
for _ in range(2):
    try:
        env.render()
    except RenderError as err:
        messages.append(str(err))
other = gym.make("HumanoidWBC-v0", render_mode="{mode}")  # another env of the process: the same error
other.reset(seed=0)
try:
    other.render()
except RenderError as err:
    messages.append(str(err))
print(len(messages), len(set(messages)))
print(messages[0])
"""


def _without_display(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return {**env, **extra}


def test_a_second_render_after_a_failed_context_raises_again_instead_of_aborting():
    """With MUJOCO_GL=glfw and no display the OpenGL context cannot be made; a second render()
    aborted the interpreter (rc 134, ``__cxa_guard_acquire detected recursive initialization``)."""
    proc = run_python(RENDER_TWICE_SCRIPT.format(mode="rgb_array"), env=_without_display(MUJOCO_GL="glfw"))
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    counts, first = proc.stdout.strip().splitlines()[-2:]
    assert counts == "3 1"  # three renders, three errors, one message
    assert first.startswith(
        "offscreen rendering failed: MuJoCo could not create an OpenGL context (MUJOCO_GL='glfw'"
    )
    assert "in a new process" in first


def test_human_rendering_without_a_display_raises_a_clear_error():
    """Before, GLFW ended the process ("ERROR: could not initialize GLFW", rc 1)."""
    proc = run_python(RENDER_TWICE_SCRIPT.format(mode="human"), env=_without_display())
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    counts, first = proc.stdout.strip().splitlines()[-2:]
    assert counts == "3 1"
    assert first == (
        "render_mode='human' needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set; "
        "use render_mode='rgb_array' for offscreen frames."
    )


# -- previous_action --------------------------------------------------------------------------------
def _previous_action_block(env: gym.Env, obs: np.ndarray) -> np.ndarray:
    structure = env.unwrapped.observation_structure
    start = 0
    for name, size in structure.items():
        if name == "previous_action":
            return obs[start : start + size]
        start += size
    raise AssertionError("no previous_action block")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_previous_action_holds_the_action_just_applied(env_id):
    """After reset() zeros; after step(a_t) the clipped a_t (it held a_{t-1} before); the
    action_rate reward still compares a_t with a_{t-1}, with the same arithmetic bit for bit."""
    env = gym.make(env_id, **NO_PUSH)
    obs, _ = env.reset(seed=0)
    k = env.action_space.shape[0]
    assert not _previous_action_block(env, obs).any()
    rng = np.random.default_rng(0)
    before = np.zeros(k)
    weight = env.unwrapped.config["reward_action_rate"]
    for step in range(3):
        action = rng.uniform(-0.2, 0.2, k)
        action[0] = 1.5 if step == 1 else action[0]  # out of range: the block holds the clipped value
        obs, _, terminated, _, info = env.step(action)
        applied = np.clip(action, -1.0, 1.0)
        np.testing.assert_array_equal(_previous_action_block(env, obs), applied.astype(np.float32))
        difference = applied - before
        assert info["reward_action_rate"] == -weight * float(np.add.reduce(difference * difference) / k)
        assert not terminated
        before = applied
    obs, _ = env.reset(seed=1)
    assert not _previous_action_block(env, obs).any()
