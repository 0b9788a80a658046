"""The contact-loss guard (issue 21): lost feet are released with force continuity and regained."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the env ids)
from wbc_layer import ConfigError, ContactGuard, ContactGuardSettings

FEET = ("left_foot", "right_foot")
DT = 0.002  # [s] the envs' physics step
MAX_FORCE = 2000.0  # [N] the feet's default normal-force bound
FLAT = (180.0, 0.0)  # (measured normal force [N], tilt [rad]): a foot standing
TIPPED = (150.0, 0.2)  # tilted past the default 0.1 rad


def run(guard, ticks: int, left=FLAT, right=FLAT) -> None:
    for _ in range(ticks):
        guard.update(DT, {"left_foot": left, "right_foot": right})


@pytest.mark.parametrize(
    ("fields", "message"),
    [({"tilt_rad": 0.0}, "tilt_rad must be finite and > 0"), ({"settle_s": -1.0}, "settle_s must be finite and >= 0"),
     ({"unloaded_force_n": 20.0}, "unloaded_force_n must be below loaded_force_n")],
)  # fmt: skip
def test_bad_settings_name_the_field(fields, message):
    with pytest.raises(ConfigError, match=message):
        ContactGuardSettings(**fields)


def test_a_tipped_foot_is_released_with_a_force_ramp_and_regained(controller):
    guard = ContactGuard(controller, FEET)  # ramp 0.05 s = 25 ticks, settle 0.02 s = 10 ticks
    left = controller.contact("left_foot")
    run(guard, 100)
    assert guard.state == {"left_foot": "supporting", "right_foot": "supporting"} and left.max_normal_force == MAX_FORCE
    run(guard, 1, left=TIPPED)
    assert guard.state["left_foot"] == "releasing" and left.active
    run(guard, 10, left=TIPPED)  # the bound falls linearly over the ramp: 10 of 25 ticks
    assert left.max_normal_force == pytest.approx(MAX_FORCE * (1 - 10 / 25), abs=1e-9)
    run(guard, 15, left=TIPPED)
    assert guard.state["left_foot"] == "released" and not left.active and guard.supporting == ("right_foot",)
    run(guard, 50, left=(5.0, 0.0))  # flat but carrying less than loaded_force_n (10 N): stays released
    assert guard.state["left_foot"] == "released"
    run(guard, 9, left=(50.0, 0.01))  # flat and loaded, 9 of the 10 settling ticks
    assert guard.state["left_foot"] == "released"
    run(guard, 1, left=(50.0, 0.01))
    assert guard.state["left_foot"] == "regaining" and left.active and left.max_normal_force == 0.0
    run(guard, 5, left=(50.0, 0.01))
    assert left.max_normal_force == pytest.approx(MAX_FORCE * 5 / 25, abs=1e-9)
    run(guard, 20, left=(50.0, 0.01))
    assert guard.state["left_foot"] == "supporting" and (left.min_normal_force, left.max_normal_force) == (0.0, MAX_FORCE)


def test_unloaded_feet_are_released_only_when_asked_and_only_after_unloaded_s(controller):
    run(ContactGuard(controller, FEET), 100, left=(0.0, 0.0))  # default: unloaded alone never releases
    assert controller.contact("left_foot").active
    guard = ContactGuard(controller, FEET, ContactGuardSettings(unloaded_s=0.01))  # 5 ticks
    run(guard, 4, left=(0.5, 0.0))
    run(guard, 1, left=FLAT)  # loaded again: the count restarts
    run(guard, 4, left=(0.5, 0.0))
    assert guard.state["left_foot"] == "supporting"
    run(guard, 1, left=(0.5, 0.0))
    assert guard.state["left_foot"] == "releasing"


def test_a_contact_the_user_switched_off_is_left_alone(controller):
    guard = ContactGuard(controller, FEET)
    controller.set_contact_active("right_foot", False)
    run(guard, 30, right=TIPPED)
    assert guard.state["right_foot"] == "supporting" and not controller.contact("right_foot").active


def test_release_keeps_the_planned_force_continuous(controller, robot, bridge, mj_data):
    """Standing, the left foot is released: its planned normal force may change by at most the
    bound's ramp rate per tick (2000 N / 25 ticks = 80 N), and reaches 0 before the contact is
    switched off (no jump when the rows go). Switching it off at once would drop ~180 N in a tick."""
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    standing = controller.compute(q, v).contact_forces["left_foot"]
    normal = controller.contact("left_foot").normal_force
    assert normal(standing) > 150.0
    guard = ContactGuard(controller, FEET)
    forces = [normal(standing)]
    for _ in range(30):
        guard.update(DT, {"left_foot": TIPPED, "right_foot": FLAT})
        forces.append(normal(controller.compute(q, v).contact_forces["left_foot"]))
    steps = np.abs(np.diff(forces))
    assert steps.max() <= MAX_FORCE / 25 + 1e-6
    assert not controller.contact("left_foot").active and abs(forces[-1]) < 1e-9


def test_the_env_keyword_reports_the_supporting_feet():
    env = gym.make("HumanoidWBC-v0", contact_guard={"tilt_rad": 0.05}, push_magnitude_n=(0.0, 0.0))
    _, info = env.reset(seed=0)
    assert env.unwrapped.actuation.guard.settings.tilt_rad == 0.05 and info["wbc_supporting"] == list(FEET)
    for _ in range(50):  # standing, the measured tilts stay far below 0.05 rad: nothing is released
        _, _, _, _, info = env.step(np.zeros(4))
    assert info["wbc_supporting"] == list(FEET) and set(env.unwrapped.actuation.guard.state.values()) == {"supporting"}
    assert gym.make("HumanoidWBC-v0").unwrapped.reset(seed=0)[1]["wbc_supporting"] == list(FEET)
    env = gym.make("HumanoidWBC-v0", action_mode="torque")
    assert env.reset(seed=0)[1]["wbc_supporting"] == []
    with pytest.raises(ValueError, match="contact_guard: unknown setting"):
        gym.make("HumanoidWBC-v0", contact_guard={"tilt": 0.1})
    with pytest.raises(ValueError, match="tilt_rad must be finite"):
        gym.make("HumanoidWBC-v0", contact_guard={"tilt_rad": -1.0})
