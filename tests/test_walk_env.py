"""HumanoidWBCWalk-v0: the nominal generator walks a fixed command and stands at zero command,
the step action moves the landings, the keywords are checked, a seed gives one trajectory.

The walking verdicts are rollouts, so they carry margins: a mean forward velocity within
0.05 m/s of the 0.2 m/s command (the issue's bar for the stride-averaged error; here over
3-8 s, unaligned with strides). They were measured at 0.196 m/s (Hubo-lite) and 0.198 m/s (G1).
Under perturbation, with ``randomise="moderate"`` on seeds 0-3, there was no fall, the mean
velocity was 0.185-0.224 m/s on Hubo-lite and 0.156-0.218 m/s on the G1, and the worst error was
0.044 m/s. Standing at zero command leaves the pelvis within 2 cm of its start (the issue's
target); it moved well under a millimetre."""

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the envs)
from humanoid_env.episode_metrics import WalkMetrics
from humanoid_env.scenarios import NO_PUSHES

ENV_ID = "HumanoidWBCWalk-v0"


def _run(seconds: float, action=None, **kwargs):
    """Calm ground unless told otherwise: the issue's walking and standing figures are without
    pushes (the env's default pushes are tested on their own below)."""
    env = gym.make(ENV_ID, **{**NO_PUSHES, **kwargs})
    env.reset(seed=0)
    a = np.zeros(env.action_space.shape) if action is None else np.asarray(action, dtype=np.float32)
    infos, fell = [], False
    for _ in range(int(round(50 * seconds))):
        _, _, terminated, _, info = env.step(a)
        infos.append(info)
        if terminated:
            fell = True
            break
    return env, infos, fell


@pytest.mark.parametrize("robot", ["hubo_lite", "g1"])
def test_the_nominal_generator_walks_a_fixed_command(robot):
    _, infos, fell = _run(8.0, robot=robot, fixed_command=(0.2, 0.0, 0.0))
    assert not fell
    velocities = np.array([info["base_velocity_heading"] for info in infos[150:]])  # 3-8 s
    assert abs(velocities[:, 0].mean() - 0.2) < 0.05
    assert abs(velocities[:, 1].mean()) < 0.05
    walking = infos[-1]["walking"]
    assert walking["steps_taken"] >= 10 and walking["mpc_status"] == "solved" and not walking["command_clipped"]
    assert all(info["wbc_status"] == "solved" for info in infos)


@pytest.mark.parametrize(("robot", "command", "step_s"), [("hubo_lite", (0.4, 0.0, 0.0), 0.3907), ("g1", (0.0, 0.2, 0.0), 0.6)])
def test_it_walks_the_issues_fastest_commands(robot, command, step_s):
    """0.4 m/s forward on Hubo-lite, beyond the nominal 0.6-s steps' reach, walks with 0.391-s
    steps; 0.2 m/s sideways on the G1 (which fell sideways before its closed stance narrowed and
    the CoM task got heavier). The mean velocity over 3-8 s is within 0.05 m/s of the command on
    each axis: measured 0.377 / 0.006 (Hubo-lite) and 0.005 / 0.176 m/s (G1), the same to 1 mm/s
    on seeds 0-3 (the second revision, without the walking controller's angular momentum task:
    0.383 / 0.002 and 0.005 / 0.188). Under ``randomise="moderate"`` (seeds 0-3, not asserted,
    second revision) neither fell, but the error reached 0.085 m/s: the bar holds for the nominal
    plant."""
    _, infos, fell = _run(8.0, robot=robot, fixed_command=command)
    assert not fell
    velocities = np.array([info["base_velocity_heading"] for info in infos[150:]])  # 3-8 s
    assert np.all(np.abs(velocities[:, :2].mean(axis=0) - command[:2]) < 0.05)
    walking = infos[-1]["walking"]
    assert not walking["command_clipped"] and walking["step_s"] == pytest.approx(step_s, abs=1e-3)


def test_at_zero_command_it_stands_still_and_takes_no_step():
    env, infos, fell = _run(10.0, standing_probability=1.0)
    assert not fell
    assert infos[-1]["walking"]["steps_taken"] == 0 and infos[-1]["walking"]["phase"] == "standing"
    plant = env.unwrapped.plant
    start = gym.make(ENV_ID, standing_probability=1.0, **NO_PUSHES).unwrapped
    start.reset(seed=0)
    r = plant.bridge.root_qpos
    drift = plant.data.qpos[r : r + 2] - start.plant.data.qpos[r : r + 2]
    assert np.linalg.norm(drift) < 0.02


def test_it_is_pushed_by_default_within_the_stated_range():
    """``gym.make(ENV_ID)`` pushes (``WALK_PUSH_MAGNITUDE_N`` = U(20, 80) N, horizontal, every
    U(2, 4) s): in 8 s at least two pushes, each of a magnitude inside the range."""
    env = gym.make(ENV_ID, fixed_command=(0.2, 0.0, 0.0))
    env.reset(seed=0)
    magnitudes = []
    for _ in range(400):
        *_, terminated, _, info = env.step(np.zeros(env.action_space.shape))
        magnitudes.append(np.linalg.norm(info["push_force"]))
        assert info["push_force"][2] == 0.0
        if terminated:
            break
    pushed = np.array([m for m in magnitudes if m > 0.0])
    assert info["pushes_total"] >= 2 and len(pushed) > 0
    assert np.all((pushed >= 20.0 - 1e-9) & (pushed <= 80.0 + 1e-9))


def test_the_step_offset_action_moves_the_landings():
    """``step_offset`` +1 forward puts every step 5 cm further ahead of the stance sole: after
    3 s (four steps), the leading sole is further ahead than with the zero action."""
    action = np.zeros(6)
    action[4] = 1.0
    far, _, _ = _run(3.0, action=action, fixed_command=(0.1, 0.0, 0.0))
    near, _, _ = _run(3.0, fixed_command=(0.1, 0.0, 0.0))
    sole_x = [env.unwrapped.plant.data.site_xpos[env.unwrapped.plant.sole_sites, 0].max() for env in (far, near)]
    assert sole_x[0] - sole_x[1] > 0.03  # at least 3 of the 5 cm (the MPC moves landings too)


def test_a_seed_gives_one_trajectory():
    observations = []
    for _ in range(2):
        env = gym.make(ENV_ID)
        obs, _ = env.reset(seed=7)
        trace = [obs]
        for _ in range(60):
            obs, *_ = env.step(np.zeros(env.action_space.shape))
            trace.append(obs)
        observations.append(np.array(trace))
    assert np.array_equal(observations[0], observations[1])


def test_a_reset_forgets_the_last_episode():
    """An episode after another (whose step offset and command were not zero) is the same as the
    first episode of a fresh env with the same seed: nothing of the generator carries over."""
    def episode(env, action):
        obs, _ = env.reset(seed=11)
        trace = [obs]
        for _ in range(80):
            obs, *_ = env.step(action)
            trace.append(obs)
        return np.array(trace)

    zero = np.zeros(6, dtype=np.float32)
    fresh = episode(gym.make(ENV_ID), zero)
    reused = gym.make(ENV_ID)
    offset = zero.copy()
    offset[4:] = (1.0, -1.0)
    episode(reused, offset)
    assert np.array_equal(episode(reused, zero), fresh)


@pytest.mark.parametrize("action_mode", ["wbc", "pd"])
def test_the_tracking_rewards_take_the_velocity_averaged_over_the_window(action_mode):
    """The rewards' velocity is the mean of the last 1.2 s (60 env steps) of
    ``info["base_velocity_heading"]``, the episode so far while shorter; with
    ``velocity_window_s=0`` the env step's own. Computed here from the infos, to the last bits of
    a mean (1e-12), on a walk whose velocity sways (the instantaneous terms differ)."""
    from humanoid_env.envs.walk import VELOCITY_SIGMA_MPS, YAW_RATE_SIGMA_RADPS  # noqa: PLC0415

    command = np.array([0.2, 0.0, 0.3])
    rewarded = {}
    for window in (1.2, 0.0):
        _, infos, fell = _run(1.6, action_mode=action_mode, fixed_command=tuple(command), velocity_window_s=window)
        assert not fell
        velocities = np.array([info["base_velocity_heading"] for info in infos])
        for i, info in enumerate(infos):
            v = velocities[max(0, i - 59) : i + 1].mean(axis=0) if window else velocities[i]
            expected = np.exp(-np.sum((v[:2] - command[:2]) ** 2) / VELOCITY_SIGMA_MPS**2)
            assert info["reward_velocity_tracking"] == pytest.approx(expected, abs=1e-12)
            expected = 0.5 * np.exp(-((v[2] - command[2]) ** 2) / YAW_RATE_SIGMA_RADPS**2)
            assert info["reward_yaw_rate_tracking"] == pytest.approx(expected, abs=1e-12)
        rewarded[window] = np.array([info["reward_velocity_tracking"] for info in infos])
    # the window changes what is paid: measured 0.69 (the walk, wbc mode) and 0.014 (pd mode: the
    # zero action holds the joints still, so the pelvis barely moves)
    assert np.abs(rewarded[1.2] - rewarded[0.0]).max() > 0.005


def test_outside_wbc_mode_the_command_is_observed_and_no_generator_runs():
    env, infos, _ = _run(0.2, action_mode="pd", fixed_command=(0.1, 0.0, 0.0))
    assert "walking" not in infos[-1]
    assert np.allclose(infos[-1]["walk_command"], [0.1, 0.0, 0.0])
    assert env.unwrapped.observation_structure["walk_command"] == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"command_share": 0.0}, "command_share must be"), ({"command_share": 2.0}, "command_share must be"),
     ({"command_interval_s": (0.0, 1.0)}, "command_interval_s must"), ({"standing_probability": 1.5}, "standing_probability must be"),
     ({"fixed_command": (0.1, 0.0)}, "fixed_command must be"), ({"gait": {"swing": 1}}, "gait must be"),
     ({"gait": {"unload_s": 0.5}}, "GaitSettings.unload_s"), ({"velocity_window_s": -0.1}, "velocity_window_s must be")],
)  # fmt: skip
def test_bad_keywords_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make(ENV_ID, **kwargs)


def test_walk_metrics_average_the_gaits_sway_out_of_the_stride_error():
    """Synthetic env steps (50 Hz, step_s 0.5: strides of 1 s) walking 0.3 m/s forward with a
    constant 0.02 m/s shortfall and a sway of 0.1 m/s amplitude at the stride's period: every
    whole-stride window averages the sway out, so the stride errors are the 0.02 m/s shortfall
    (to 1e-12), while the per-step RMS counts the sway too (sqrt(0.02^2 + 0.1^2 / 2) = 0.0735 m/s)."""
    metrics = WalkMetrics()
    shortfall, sway = 0.02, 0.1
    for k in range(1, 501):  # 10 s
        t = 0.02 * k
        vx = 0.3 - shortfall + sway * np.sin(2.0 * np.pi * t / 1.0)
        metrics.step(1.0, False, {
            "time": t, "com": np.zeros(3), "com_ref": np.zeros(3), "wbc_status": "solved", "pushes_total": 0,
            "pushes_survived": 0, "base_velocity_heading": [vx, 0.0, 0.0], "walk_command": [0.3, 0.0, 0.0],
            "walking": {"step_s": 0.5}, "feet_position": np.array([[0.3 * t, 0.1, 0.0], [0.3 * t, -0.1, 0.0]]),
            "contact_forces": {"left_foot": np.array([0.0, 0.0, 200.0]), "right_foot": np.array([0.0, 0.0, 200.0])},
        })  # fmt: skip
    result = metrics.result()
    assert result["stride_velocity_error_mps"] == pytest.approx(shortfall, abs=1e-12)
    assert result["stride_velocity_rms_mps"] == pytest.approx(shortfall, abs=1e-12)
    assert result["velocity_rmse_mps"] == pytest.approx(np.hypot(shortfall, sway / np.sqrt(2.0)), abs=1e-4)
    assert result["flight_steps"] == 0 and result["slip_m"] == 0.0 and result["steps"] == 0


def test_the_gait_keyword_goes_over_the_robots_defaults():
    """``gait`` is a dict of ``GaitSettings`` fields over the robot's defaults (``DEFAULT_GAIT``):
    Hubo-lite's inset CoP reference and held lift-offs (the sixth revision), the G1's none; a
    field given replaces only itself, and the fifth revision's gait is one dict away on
    Hubo-lite."""
    from humanoid_env.envs.walk import gait_settings
    from wbc_layer.walking import GaitSettings

    hubo = gait_settings(None, "hubo_lite")
    assert hubo.cop_inset_share == 0.6 and hubo.lift_off_holds_s == (0.1, 0.2, 0.3)
    assert gait_settings(None, "g1") == GaitSettings() == gait_settings(None, "another_robot")
    narrower = gait_settings({"cop_inset_share": 0.2}, "hubo_lite")
    assert narrower.cop_inset_share == 0.2 and narrower.lift_off_holds_s == hubo.lift_off_holds_s
    assert gait_settings({"cop_inset_share": 0.0, "lift_off_holds_s": ()}, "hubo_lite") == GaitSettings()
    env = gym.make(ENV_ID, robot="hubo_lite", gait={"cop_inset_share": 0.3}).unwrapped
    env.reset(seed=0)
    assert env.task.gait.cop_inset_share == 0.3 and env.task.gait.lift_off_holds_s == hubo.lift_off_holds_s
