"""``HumanoidWBCPushRecovery-v0`` (issue 38): its keywords and per-robot pushes, the ``step`` action's
three adjustments of the stepping law, which modes run which physics loop, and the metrics that
guard against degenerate ways of not falling.

The rollouts push Hubo-lite forward by 16 N s, 8 % beyond its home stance's ankle bound (14.8 N
s), so the law decides a step on any machine. Each assertion compares two rollouts of one
process that are the same bit for bit up to the decision (the action's step block enters only
there), so what it checks is the adjustment itself, not a chaotic trajectory.
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401
from benchmarks.push_envelope import ScriptedPush
from humanoid_env.envs.push_recovery import DEFAULT_PUSH_MAGNITUDE_N
from humanoid_env.envs.stepping import STEP_OFFSET_M, STEP_TIME_OCTAVES, STEP_TRIGGER_SHIFT_M
from humanoid_env.episode_metrics import PushRecoveryMetrics
from wbc_layer.stepping import NO_ADJUSTMENT, StepAdjustment

ENV_ID = "HumanoidWBCPushRecovery-v0"
PUSH_NS, PUSH_TIME_S, DURATION_S = 16.0, 1.5, 0.1


def first_step(step_action, end_s: float = 3.0, must_step: bool = True) -> dict:
    """A 16-N-s forward push at 1.5 s with the ``step`` block held at ``step_action``: the law's
    first decision (its time, placement and swing settings; time None if it took no step and
    ``must_step`` is False) and the env's last ``info``."""
    env = gym.make(ENV_ID, push_magnitude_n=(0.0, 0.0)).unwrapped
    env.plant.pushes = ScriptedPush(np.array([PUSH_NS / DURATION_S, 0.0, 0.0]), PUSH_TIME_S, DURATION_S, env.dt_physics)
    env.reset(seed=0)
    law = env.task.stepper.law
    decisions = []
    decide = law._decide

    def recorded(time, *args):
        decide(time, *args)
        if law.swing is not None and law.swing.t_decision == time:
            decisions.append({"time": time, "placement": law.last_placement, "swing": law.swing.settings,
                              "timing_clipped": law.timing_clipped})  # fmt: skip

    law._decide = recorded
    action = np.zeros(env.action_space.shape)
    action[env.actuation.index("step")] = step_action
    info = {}
    while env.data.time < end_s and not env.fell:
        info = env.step(action)[4]
    if not decisions:
        assert not must_step, "the push was answered by a step"
        return {"time": None, "info": info, "law": law}
    return {**decisions[0], "info": info, "law": law}


def test_keywords_and_the_per_robot_pushes():
    for robot, pushes in DEFAULT_PUSH_MAGNITUDE_N.items():
        assert gym.make(ENV_ID, robot=robot).unwrapped.config["push_magnitude_n"] == pushes
    assert gym.make(ENV_ID, push_magnitude_n=(10.0, 20.0)).unwrapped.config["push_magnitude_n"] == (10.0, 20.0)
    with pytest.raises(ValueError, match="stepping_law must be True or a dict"):
        gym.make(ENV_ID, stepping_law=False)
    with pytest.raises(ValueError, match="unknown setting"):
        gym.make(ENV_ID, stepping_law={"swing_time": 0.3})
    env = gym.make(ENV_ID, stepping_law={"max_steps": 2}).unwrapped
    assert env.task.stepper.law.settings.max_steps == 2
    with pytest.raises(ValueError, match="stepping"):
        gym.make(ENV_ID, stepping=True)  # HumanoidWBC-v0's keyword, not this env's
    sizes = {mode: gym.make(ENV_ID, action_mode=mode).action_space.shape[0] for mode in ("wbc", "torque", "pd")}
    assert sizes["wbc"] == 8 and sizes["torque"] == sizes["pd"] == 23


def test_the_zero_action_is_the_nominal_law():
    nominal = first_step([0.0, 0.0, 0.0, 0.0])
    assert nominal["law"].adjustment == NO_ADJUSTMENT
    assert nominal["swing"] == nominal["law"].settings.swing and not nominal["timing_clipped"]


def test_the_offset_moves_the_landing_by_itself_in_the_stance_soles_axes():
    """Half a step offset back (-0.5 -> 2.5 cm): the same decision at the same tick, the landing
    2.5 cm behind the nominal one, to 1e-9 m (an exact shift, not clipped)."""
    nominal, moved = first_step([0.0, 0.0, 0.0, 0.0]), first_step([-0.5, 0.0, 0.0, 0.0])
    assert moved["time"] == nominal["time"] and moved["placement"].foot == nominal["placement"].foot
    assert not moved["placement"].clipped and not nominal["placement"].clipped
    shift = moved["placement"].target - nominal["placement"].target
    assert abs(np.linalg.norm(shift) - 0.5 * STEP_OFFSET_M) < 1e-9
    assert shift[0] < -0.95 * 0.5 * STEP_OFFSET_M  # backward: the stance sole faces forward (yaw within 18 deg)


def test_a_far_offset_is_clipped_into_the_reach_and_flagged():
    far = first_step([1.0, 1.0, 0.0, 0.0])  # 5 cm forward and 5 cm out: the left foot's step beyond its reach
    stepping = far["info"]["stepping"]
    assert far["placement"].clipped and stepping["clipped_steps"] >= 1


def test_the_timing_scales_unloading_and_swing_and_holds_the_swing_at_its_minimum():
    nominal, slow, fast = (first_step([0.0, 0.0, a, 0.0]) for a in (0.0, 1.0, -1.0))
    factor = 2.0**STEP_TIME_OCTAVES
    assert slow["swing"].swing_s == pytest.approx(factor * nominal["swing"].swing_s, rel=1e-12)
    assert slow["swing"].unload_s == pytest.approx(factor * nominal["swing"].unload_s, rel=1e-12)
    assert not slow["timing_clipped"]
    # the nominal swing is the robot's minimum swing time: shorter is refused and flagged
    assert fast["swing"].swing_s == nominal["law"].settings.min_swing_s == nominal["swing"].swing_s
    assert fast["swing"].unload_s == pytest.approx(nominal["swing"].unload_s / factor, rel=1e-12)
    assert fast["timing_clipped"] and fast["info"]["stepping"]["timing_clipped"]


def test_the_trigger_shift_decides_sooner_or_later():
    nominal, sooner = (first_step([0.0, 0.0, 0.0, a]) for a in (0.0, -1.0))
    later = first_step([0.0, 0.0, 0.0, 1.0], must_step=False)  # 3 cm further out: later, or never
    assert sooner["time"] < nominal["time"] - 0.02  # 3 cm earlier on a capture point moving about 0.5 m/s (0.056 s seen)
    assert later["time"] is None or later["time"] > nominal["time"]
    assert sooner["law"].adjustment.trigger_shift_m == -STEP_TRIGGER_SHIFT_M


@pytest.mark.parametrize("mode", ["wbc", "pd", "torque"])
def test_every_mode_runs_the_compiled_loop(mode):
    """The goal follows the feet once per env step, so no mode's command reads the state within
    one; the stepping law (wbc mode) reads it at every physics step and says so, so the compiled
    loop runs its steps one at a time (``tests/test_physics_loop.py``: the same trajectories)."""
    env = gym.make(ENV_ID, action_mode=mode).unwrapped
    env.reset(seed=0)
    env.step(np.zeros(env.action_space.shape))
    assert env.physics_loop_obstacle is None


def test_the_goal_follows_the_feet_after_a_step():
    """After the step, the CoM goal has moved with the soles' midpoint (to 5 mm, the deadband)."""
    run = first_step([0.0, 0.0, 0.0, 0.0], end_s=4.0)
    env_info = run["info"]
    feet = np.asarray(env_info["feet_position"])
    assert run["info"]["stepping"]["steps_taken"] >= 1
    start_env = gym.make(ENV_ID, push_magnitude_n=(0.0, 0.0)).unwrapped
    start_env.reset(seed=0)
    start_feet = start_env.data.site_xpos[start_env.plant.sole_sites][:, :2].mean(axis=0)
    moved = feet[:, :2].mean(axis=0) - start_feet
    goal_moved = np.asarray(env_info["com_goal"])[:2] - start_env.task.command.com_goal[:2]
    assert np.linalg.norm(moved) > 0.03  # the step moved the feet
    assert np.linalg.norm(goal_moved - moved) < 0.005 + 1e-9


def test_the_metrics_count_steps_drift_and_stance_from_the_feet():
    """Synthetic env steps: the right foot lifts off, lands 10 cm ahead (a step), lifts and lands
    where it was (1 mm: not a step); the drift is the midpoint's move, the widths are the soles'
    distances."""
    metrics = PushRecoveryMetrics()
    left, right = np.array([0.0, 0.1, 0.0]), np.array([0.0, -0.1, 0.0])
    loaded, lifted = np.array([0.0, 0.0, 200.0]), np.zeros(3)

    def step(right_at, right_force, pushes=1):
        info = {"com": np.zeros(3), "com_ref": np.zeros(3), "wbc_status": "solved", "time": 0.0, "pushes_total": pushes,
                "pushes_survived": pushes, "feet_position": np.array([left, right_at]),
                "contact_forces": {"left_foot": loaded, "right_foot": right_force}}  # fmt: skip
        metrics.step(0.0, False, info)

    step(right, loaded)
    step(right, lifted)
    step(right + [0.1, 0.0, 0.0], loaded)  # a step
    step(right + [0.1, 0.0, 0.0], lifted, pushes=2)
    step(right + [0.101, 0.0, 0.0], loaded, pushes=2)  # back down 1 mm on: not a step
    result = metrics.result()
    assert result["steps"] == 1 and result["steps_per_push"] == 0.5
    assert result["drift_m"] == pytest.approx(0.0505, abs=1e-12)
    assert result["feet_min_distance_m"] == pytest.approx(0.2, abs=1e-12)
    assert result["stance_width_m"] == pytest.approx(np.mean([0.2, 0.2, math.hypot(0.1, 0.2), math.hypot(0.1, 0.2), math.hypot(0.101, 0.2)]))


def test_step_adjustment_checks_its_values():
    with pytest.raises(ValueError, match="offset_m must be 2 finite numbers"):
        StepAdjustment(offset_m=(0.0, float("nan")))
    with pytest.raises(ValueError, match="time_scale"):
        StepAdjustment(time_scale=0.0)
    with pytest.raises(ValueError, match="trigger_shift_m must be finite"):
        StepAdjustment(trigger_shift_m=float("inf"))


# -- the legs collide with each other ---------------------------------------------------------
def _contact_pairs(model, data) -> set[tuple[str, str]]:
    return {tuple(sorted((model.geom(c.geom1).name, model.geom(c.geom2).name))) for c in data.contact[: data.ncon]}


def _leg_pair(pair: tuple[str, str]) -> bool:
    sides = {name.split("_")[0] for name in pair}
    return sides == {"left", "right"} and all(name.split("_")[1] in ("thigh", "shank", "foot") for name in pair)


@pytest.mark.parametrize("robot, roll", [("hubo_lite", ("left_hip_roll", "right_hip_roll")), ("g1", ("left_hip_roll_joint", "right_hip_roll_joint"))])
def test_the_legs_collide_with_each_other_and_nothing_else_changes(robot, roll):
    """Legs rolled 0.3 rad inwards from home cross (thighs and shanks overlap): in this env's
    model the left and right leg geoms make contacts, in the balance env's (the model as written)
    none but the feet's; every other pair, at home on the ground and crossed, is the same in both."""
    import mujoco

    models = {}
    for env_id in ("HumanoidWBCPushRecovery-v0", "HumanoidWBC-v0"):
        env = gym.make(env_id, robot=robot)
        models[env_id] = env.unwrapped.plant.model
        env.close()
    pairs = {}
    for env_id, model in models.items():
        data = mujoco.MjData(model)
        home = model.key_qpos[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, "home")]
        for name, inward in (("home", 0.0), ("crossed", 0.3)):
            data.qpos[:] = home
            data.qpos[2] -= 0.002  # 2 mm into the ground: the soles touch it
            data.qpos[model.joint(roll[0]).qposadr[0]] -= inward
            data.qpos[model.joint(roll[1]).qposadr[0]] += inward
            mujoco.mj_forward(model, data)
            pairs[env_id, name] = _contact_pairs(model, data)
    colliding, as_written = "HumanoidWBCPushRecovery-v0", "HumanoidWBC-v0"
    legs = {pair for pair in pairs[colliding, "crossed"] if _leg_pair(pair) and "foot" not in pair[0] + pair[1]}
    assert {("left_shank", "right_shank"), ("left_thigh", "right_thigh")} <= legs
    assert not any(_leg_pair(pair) and "foot" not in pair[0] + pair[1] for pair in pairs[as_written, "crossed"])
    assert {("floor", "left_foot"), ("floor", "right_foot")} <= pairs[colliding, "home"]
    for name in ("home", "crossed"):
        others = {pair for pair in pairs[colliding, name] if not _leg_pair(pair)}
        assert others == {pair for pair in pairs[as_written, name] if not _leg_pair(pair)}


def test_collide_legs_names_what_is_wrong():
    import dataclasses

    import mujoco

    from humanoid_env.envs.plant import collide_legs
    from humanoid_env.robots import robot_description

    description = robot_description("hubo_lite")
    model = mujoco.MjModel.from_xml_path(str(description.scene_path("flat")))
    wrong = dataclasses.replace(description, legs={"left": ("left_knee_pad",), "right": ("right_shank",)})
    with pytest.raises(ValueError, match="no leg geom named 'left_knee_pad'"):
        collide_legs(model, wrong)
    model = mujoco.MjModel.from_xml_path(str(description.scene_path("flat")))
    collide_legs(model, description)
    with pytest.raises(ValueError, match="already uses"):
        collide_legs(model, description)
    with pytest.raises(ValueError, match="legs must name"):
        dataclasses.replace(description, legs={"left": ("left_thigh",)})
