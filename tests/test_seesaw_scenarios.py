"""The experiments of *iCub Balancing on a Seesaw* on HumanoidWBCSeesaw-v0: the push test and the CoM sinusoid."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import humanoid_env  # noqa: F401
from humanoid_env.scenarios import SeesawPushScenario, SeesawSineScenario, make_scenario
from training.evaluate import main

ENV = "HumanoidWBCSeesaw-v0"


def run(scenario, seed: int = 0, **kwargs) -> tuple[dict, bool, dict]:
    env = gym.make(ENV, **{**scenario.env_kwargs, **kwargs})
    env.unwrapped.set_scenario(scenario)
    obs, info = env.reset(seed=seed)
    fell = False
    while not scenario.finished(env.unwrapped):
        obs, _, terminated, _, info = env.step(scenario.action(obs, env))
        if terminated:
            fell = True
            break
    env.close()
    return scenario.result(), fell, info


def test_push_short_form_coupled_survives():
    # Short form: stand 3 s, the paper's 100 N x 0.01 s lateral push, recover 2.5 s.
    result, fell, info = run(SeesawPushScenario(stand_s=3.0, recover_s=2.5), seesaw_model="coupled")
    assert not fell and info["pushes_total"] == 1 and info["pushes_survived"] == 1
    assert result["time_to_level_s"] < 2.0  # back within 1 degree of level (full run: 0.73 s)


def test_sine_short_form_coupled_tracks_within_5_mm():
    # Short form: one period (4 s) of the 2.5 cm, 0.25 Hz lateral sinusoid; target 5 mm.
    result, fell, _ = run(SeesawSineScenario(sine_s=4.0, settle_s=0.5), seesaw_model="coupled")
    assert not fell
    assert result["com_rmse_m"] <= 0.005  # [m]


def test_push_scenario_timing_and_time_to_level():
    scenario = SeesawPushScenario(stand_s=2.0, recover_s=1.0)
    assert scenario.duration_s == 3.0
    assert scenario.env_kwargs["push_magnitude_n"] == (100.0, 100.0) and scenario.env_kwargs["push_duration_s"] == 0.01
    # time_to_level from a recorded tilt: out of level until 2.5 s, then level
    scenario.times = list(np.arange(0.0, 3.0, 0.5))
    scenario.angles = [0.0, 0.0, 0.0, 0.0, 0.05, 0.001]
    result = scenario.result()
    assert result["time_to_level_s"] == pytest.approx(0.5)
    assert result["board_angle_max_after_push_rad"] == pytest.approx(0.05)
    scenario.angles[5] = 0.05  # still tilted at the end: never back
    assert np.isnan(scenario.result()["time_to_level_s"])
    scenario.angles[4] = scenario.angles[5] = 0.0  # never left
    assert scenario.result()["time_to_level_s"] == 0.0


def test_sine_reference_and_the_pushes_of_the_push_scenario():
    """The sine scenario's reference (rigid model, 0.6 s: before anything falls) and the push
    scenario's one push of 100 N along +y for 0.01 s."""
    sine = SeesawSineScenario(sine_s=4.0, settle_s=0.2)
    env = gym.make(ENV, seesaw_model="rigid", **sine.env_kwargs)
    env.unwrapped.set_scenario(sine)
    env.reset(seed=0)
    u = env.unwrapped
    for _ in range(30):
        _, _, _, _, info = env.step(np.zeros(4))
    t = info["time"] - 0.002 - 0.2  # the reference of the last physics step
    expected = 0.025 * np.sin(2 * np.pi * 0.25 * t)
    assert info["com_ref"][1] - u.com_nominal[1] == pytest.approx(expected, abs=1e-9)
    assert info["pushes_total"] == 0
    env.close()
    push = SeesawPushScenario(stand_s=0.1, recover_s=0.1)
    env = gym.make(ENV, seesaw_model="rigid", **push.env_kwargs)
    env.unwrapped.set_scenario(push)
    env.reset(seed=0)
    for _ in range(10):
        _, _, _, _, info = env.step(np.zeros(4))
    pushes = env.unwrapped.plant.pushes
    assert info["pushes_total"] == 1 and pushes.starts == [pytest.approx(0.1)]
    np.testing.assert_allclose(pushes.force, [0.0, 100.0, 0.0], atol=1e-9)
    assert pushes.end - pushes.starts[0] == pytest.approx(0.01)
    env.close()


def test_scenario_choice_and_evaluate_json(tmp_path):
    assert make_scenario(ENV).name == "push" and make_scenario(f"humanoid_env:{ENV}", "sine").name == "sine"
    with pytest.raises(ValueError, match="valid ones are: push, sine"):
        make_scenario(ENV, "wobble")
    out = tmp_path / "seesaw.json"
    args = ["--env", ENV, "--policy", "scripted", "--scenario", "sine", "--max-steps", "20",
            "--env-kwargs", json.dumps({"seesaw_model": "rigid"})]
    assert main([*args, "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["scenario"] == "sine" and data["env_kwargs"]["seesaw_model"] == "rigid"
    episode = data["episodes"][0]
    for key in ("return", "length", "fell", "board_angle_rms_rad", "com_rmse_m", "com_rmse_y_m", "pushes_survived",
                "pushes_total", "wbc_fallbacks"):
        assert key in episode and key in data["summary"]
    assert episode["length"] == 20
