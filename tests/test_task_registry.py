"""The task registry (``humanoid_env.registry``): one entry per task, and the tables built from it."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import gymnasium as gym
import pytest

import humanoid_env  # noqa: F401  (registers the environments)
from humanoid_env import registry
from humanoid_env.episode_metrics import EpisodeMetrics
from humanoid_env.registry import TASKS, LevelMetric, check_task_ids, register_task, task_entry
from humanoid_env.scenarios import SCENARIOS, Scenario, make_scenario

BALANCE = "HumanoidWBC-v0"


@pytest.fixture
def scratch_tasks(monkeypatch) -> dict:
    """A copy of the registry's tasks that ``register_task`` and ``task_entry`` use during the test."""
    scratch = dict(TASKS)
    monkeypatch.setattr(registry, "TASKS", scratch)
    return scratch


def test_a_taken_env_id_or_name_is_refused(scratch_tasks):
    balance = TASKS[BALANCE]
    with pytest.raises(ValueError, match=f"task '{BALANCE}' is already registered"):
        register_task(replace(balance, name="balance_again"))
    with pytest.raises(ValueError, match=f"task name 'balance' of 'Other-v0' is already taken by '{BALANCE}'"):
        register_task(replace(balance, env_id="Other-v0"))
    assert scratch_tasks == TASKS  # nothing was added
    register_task(replace(balance, env_id="Other-v0", name="other"))
    assert task_entry("Other-v0").name == "other" and "Other-v0" not in TASKS  # the real registry is untouched


def test_task_entry_takes_the_id_with_or_without_prefix():
    assert task_entry(BALANCE) is task_entry(f"humanoid_env:{BALANCE}") is TASKS[BALANCE]
    with pytest.raises(ValueError, match="unknown task 'CartPole-v1'; registered: " + ", ".join(TASKS)):
        task_entry("CartPole-v1")


def test_the_registry_holds_exactly_the_humanoid_ids_gymnasium_has():
    ours = {env_id for env_id, spec in gym.registry.items() if str(spec.entry_point).startswith("humanoid_env")}
    assert set(TASKS) == ours and len(TASKS) == 6
    for env_id, entry in TASKS.items():
        spec = gym.spec(env_id)
        assert entry.env_id == env_id
        assert (spec.entry_point, spec.max_episode_steps) == (entry.entry_point, entry.max_episode_steps)
    # the three paper tasks, the example of adding one (humanoid_env/envs/square.py), walking, push recovery
    assert [entry.name for entry in TASKS.values()] == ["balance", "wall", "seesaw", "square", "walk", "push_recovery"]


def test_every_scenario_factory_builds_its_scenario():
    assert SCENARIOS == {env_id: dict(entry.scenarios) for env_id, entry in TASKS.items() if entry.scenarios}
    for env_id, entry in TASKS.items():
        for variant, factory in entry.scenarios.items():
            scenario = factory()
            assert isinstance(scenario, Scenario) and scenario.name == variant, (env_id, variant)
        if entry.scenarios:
            assert make_scenario(env_id).name == next(iter(entry.scenarios))  # the first is the default


def test_importing_the_registry_imports_no_env_scenario_or_controller():
    code = (
        "import sys, humanoid_env.registry as r\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(('humanoid_env.envs', 'humanoid_env.scenarios', 'wbc_layer', 'mujoco')))\n"
        "assert not heavy, heavy\n"
        f"assert list(r.TASKS) == {list(TASKS)!r}\n"  # every registered task, without the envs
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_entries_hold_metrics_classes_level_metrics_and_read_only_scenarios():
    for entry in TASKS.values():
        assert issubclass(entry.metrics, EpisodeMetrics) and entry.metrics is not EpisodeMetrics
        assert isinstance(entry.level_metric, LevelMetric) and entry.level_metric.key in _metric_keys(entry)
        assert entry.summary and "\n" not in entry.summary
        with pytest.raises(TypeError):
            entry.scenarios["new"] = lambda: None  # type: ignore[index]
    converted = replace(TASKS[BALANCE], level_metric=("com_rmse_m", "CoM RMSE [mm]", 1e3))
    assert converted.level_metric == TASKS[BALANCE].level_metric and converted.level_metric.scale == 1e3


def _metric_keys(entry) -> set[str]:
    """The keys of ``entry``'s metrics result for one standing step."""
    metrics = entry.metrics()
    info = {
        "com": [0.0, 0.0, 0.8], "com_ref": [0.0, 0.0, 0.8], "time": 2.0, "wbc_status": "solved",
        "pushes_total": 0, "pushes_survived": 0, "hand_force_n": 20.0, "hand_force_command_n": 20.0,
        "hand_contact_lost_total_s": 0.0, "board_angle_rad": 0.0,
        "walk_command": [0.0, 0.0, 0.0], "base_velocity_heading": [0.0, 0.0, 0.0],
        "feet_position": [[0.0, 0.1, 0.0], [0.0, -0.1, 0.0]],
        "contact_forces": {"left_foot": [0.0, 0.0, 180.0], "right_foot": [0.0, 0.0, 180.0]},
    }  # fmt: skip
    metrics.step(1.0, False, info)
    return set(metrics.result())


def test_the_consumers_tables_are_the_registrys():
    from benchmarks.common import ENV_IDS, ENVS
    from training import metrics
    from training.config import known_env_ids
    from training.sample_efficiency import LEVEL_METRIC, level_metric

    assert ENV_IDS == tuple(TASKS) and ENVS == {entry.name: env_id for env_id, entry in TASKS.items()}
    assert {"balance": BALANCE, "wall": "HumanoidWBCWall-v0", "seesaw": "HumanoidWBCSeesaw-v0"}.items() <= ENVS.items()
    assert metrics.METRICS == {env_id: entry.metrics for env_id, entry in TASKS.items()}
    assert metrics.BalanceMetrics is TASKS[BALANCE].metrics  # re-exported, the same class
    assert type(metrics.metrics_for(f"humanoid_env:{BALANCE}")) is TASKS[BALANCE].metrics
    assert type(metrics.metrics_for("CartPole-v1")) is EpisodeMetrics
    assert LEVEL_METRIC == {env_id: entry.level_metric for env_id, entry in TASKS.items()}
    metric, label, scale = level_metric("HumanoidWBCSeesaw-v0")
    assert (metric, label, scale) == ("board_angle_rms_rad", "board tilt RMS [mrad]", 1e3)
    assert known_env_ids() == sorted(TASKS)


def test_training_tables_name_registered_tasks_only(monkeypatch):
    from training import shipped

    check_task_ids(["HumanoidWBC-v0"], "here")
    with pytest.raises(ValueError, match="here: unknown task\\(s\\) Nope-v0; registered: HumanoidWBC-v0, "):
        check_task_ids(["HumanoidWBC-v0", "Nope-v0"], "here")
    monkeypatch.setitem(shipped.CLAIMS, "Nope-v0", shipped.CLAIMS[BALANCE])
    with pytest.raises(ValueError, match="training.shipped.CLAIMS: unknown task\\(s\\) Nope-v0"):
        shipped._check_tables()
    monkeypatch.delitem(shipped.CLAIMS, "Nope-v0")
    monkeypatch.delitem(shipped.TABLE_METRICS, BALANCE)
    with pytest.raises(ValueError, match="training.shipped.TABLE_METRICS names .*: not the same tasks"):
        shipped._check_tables()
