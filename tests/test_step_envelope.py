"""benchmarks/step_envelope.py: the survived-impulse rule, the push-height torque, resuming, one real rollout."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import push_envelope as pe
from benchmarks import step_envelope as se

SCAN = se.Scan(resolution_ns=1.0, replicas=5, min_survivals=4, max_factor=3.0)


def table_of(levels: dict[int, int], replicas: int = 5) -> se.Table:
    """level -> that many survivals of ``replicas`` (the first ones survive)."""
    return {lv: {r: {"survived": r < n, "steps_taken": 0} for r in range(replicas)} for lv, n in levels.items()}


def test_plan_coarse_levels_then_the_grid_up_to_the_cap():
    p = se.plan(10.0, SCAN)
    assert p["coarse"] == [3, 5] and p["cap"] == 30  # round(2.5) = 3 (half up), 5
    assert p["order"] == [3, 5, *range(6, 31)]
    assert se.plan(1.0, SCAN)["coarse"] == [1] and se.plan(1.0, SCAN)["cap"] == 3  # 0.25 rounds to 0: skipped
    assert se.plan(0.0, SCAN)["cap"] == 3  # a zero bound counts as one grid step


def test_a_lucky_island_above_a_failing_level_does_not_count():
    table = table_of({3: 5, 5: 5, 6: 4, 7: 3, 8: 5, 9: 5})
    result = se.survived_impulse(table, SCAN, se.plan(10.0, SCAN))
    assert result["survived_ns"] == 6.0 and result["first_failure_ns"] == 7.0
    assert not result["capped"] and result["finished"] and not result["incomplete"]


def test_three_of_five_stops_the_scan():
    p = se.plan(10.0, SCAN)
    assert se.next_trials(table_of({3: 5}), p, SCAN) == [(5, r) for r in range(5)]
    assert se.next_trials(table_of({3: 5, 5: 4}), p, SCAN) == [(6, r) for r in range(5)]
    assert se.next_trials(table_of({3: 5, 5: 4, 6: 3}), p, SCAN) == []  # 3 of 5 at 6: finished
    assert se.next_trials(table_of({3: 3}), p, SCAN) == []  # a coarse level failing ends it too
    assert se.survived_impulse(table_of({3: 3}), SCAN, p)["survived_ns"] == 0.0
    partial = {3: {0: {"survived": True}, 1: {"survived": True}}}
    assert se.next_trials(partial, p, SCAN) == [(3, 2), (3, 3), (3, 4)]  # the level's missing replicas first
    early = se.Scan(1.0, 5, 4, 3.0, early_stop=True)
    decided = {3: {r: {"survived": False} for r in range(2)}}  # 2 failed: 4 of 5 is out of reach
    assert se.next_trials(decided, p, early) == [] and se.next_trials(partial, p, early) == [(3, 2)]


def test_the_cap_ends_the_scan_as_capped():
    p = se.plan(2.0, SCAN)  # coarse [1] (0.5 -> 1, 1.0 -> 1), cap 6
    assert p["order"] == [1, 2, 3, 4, 5, 6]
    table = table_of(dict.fromkeys(p["order"], 5))
    result = se.survived_impulse(table, SCAN, p)
    assert result["capped"] and result["finished"] and result["survived_ns"] == 6.0 and result["first_failure_ns"] is None
    assert not se.survived_impulse(table_of({1: 5, 2: 5}), SCAN, p)["capped"]  # not there yet
    table[6][0]["steps_taken"] = 2
    assert se.survived_impulse(table, SCAN, p)["mean_steps_at_survived"] == pytest.approx(0.4)


def test_push_height_torque_is_r_cross_f():
    forward = np.array([50.0, 0.0, 0.0])
    torque = se.push_torque(forward, 0.1)  # above the CoM: pitches forward, +y
    assert torque == pytest.approx([0.0, 5.0, 0.0])
    assert se.push_torque(forward, -0.1)[1] == pytest.approx(-5.0)
    assert se.push_torque([0.0, 20.0, 0.0], 0.05) == pytest.approx([-1.0, 0.0, 0.0])  # +y above: rolls towards +y


def test_height_push_writes_the_torque_during_the_push_only():
    data = type("Data", (), {"xfrc_applied": np.zeros((3, 6))})()
    push = se.HeightPush(np.array([40.0, 0.0, 0.0]), 1.0, 0.1, 0.002, height_m=0.1, data=data, body=2)
    rng = np.random.default_rng(0)
    assert push.update(rng, 0.5) == pytest.approx(np.zeros(3)) and not data.xfrc_applied.any()
    assert push.update(rng, 1.0)[0] == 40.0 and data.xfrc_applied[2, 3:6] == pytest.approx([0.0, 4.0, 0.0])
    push.update(rng, 1.2)
    assert not data.xfrc_applied.any()


def fake_state() -> dict:
    return {
        "time_s": 1.5, "com": [0.01, 0.0, 0.69], "com_velocity": [0.0, 0.0, 0.0], "mass_kg": 37.0, "ground_height_m": 0.0,
        "cop_half_sizes_m": [0.085, 0.0425], "polygon": [[0.115, 0.12], [-0.055, 0.12], [-0.055, -0.12], [0.115, -0.12]],
        "feet_centres": [[0.03, 0.08, 0.0], [0.03, -0.08, 0.0]], "feet_yaw_rad": 0.0,
    }  # fmt: skip


class FakeRollout:
    """Survives below 7 N s (every replica), records each call."""

    def __init__(self):
        self.calls = []

    def __call__(self, run, direction_deg, impulse_ns, replica_index, with_state=False):
        self.calls.append((direction_deg, impulse_ns, replica_index))
        out = {"push_time_s": 1.5, "survived": impulse_ns < 7.0, "fell": impulse_ns >= 7.0, "fall_time_s": None, "fell_before_push": False,
               "steps_taken": 0, "final_speed_mps": 0.0, "final_supporting": ["left_foot", "right_foot"], "wall_s": 0.0}  # fmt: skip
        if with_state:
            out["state"] = fake_state()
        return out


def test_a_rerun_with_the_same_arguments_runs_nothing_new(tmp_path, capsys):
    path = tmp_path / "envelope.json"
    argv = ["--directions", "2", "--json", str(path), "--max-factor", "1.0"]
    fake = FakeRollout()
    doc = se.main(argv, rollout_fn=fake)
    first = len(fake.calls)
    assert first > 10
    directions = doc["runs"]["ankle/hubo_lite/centre"]["directions"]
    backward = directions["180"]  # bound 9.1 N s: coarse levels 2 and 5, then 6, 7 (falls)
    assert backward["plan"]["coarse_ns"] == [2.0, 5.0] and backward["envelope"]["survived_ns"] == 6.0
    assert backward["envelope"]["first_failure_ns"] == 7.0 and backward["envelope"]["finished"]
    forward = directions["0"]  # bound 14.6 N s: coarse 4 and 7; 7 fails, so 4
    assert forward["envelope"]["survived_ns"] == 4.0 and forward["envelope"]["first_failure_ns"] == 7.0
    assert json.loads(path.read_text())["runs"]["ankle/hubo_lite/centre"]["trials"]  # written
    se.main(argv, rollout_fn=fake)
    assert len(fake.calls) == first  # every trial (and the probe) was there
    se.main([*argv[:1], "4", *argv[2:]], rollout_fn=fake)  # 0, 90, 180, 270: only the new directions run
    assert {c[0] for c in fake.calls[first:]} == {90.0, 270.0}
    with pytest.raises(SystemExit, match="other settings"):
        se.main([*argv, "--survival-s", "4"], rollout_fn=fake)
    doc = json.loads(path.read_text())
    assert len(doc["sessions"]) == 3 and "| 270 |" in se.markdown(doc)


def test_the_budget_stops_cleanly_and_the_next_run_continues(tmp_path):
    path = tmp_path / "envelope.json"
    fake = FakeRollout()
    ticks = iter(range(10_000))
    directions = se.prepare(se.Run("ankle", pe.stances(["balance"], ["centre"], 1, 1.5)[0], se.Protocol()), SCAN, [0.0],
                            store := se.Store(path), 0.35, fake)  # fmt: skip
    outcome = se.execute(directions, SCAN, store, fake, budget_s=3, clock=lambda: float(next(ticks)))
    assert outcome["budget_stopped"] and json.loads(path.read_text())["runs"]
    done = len(fake.calls)
    store = se.Store(path)
    directions = se.prepare(se.Run("ankle", pe.stances(["balance"], ["centre"], 1, 1.5)[0], se.Protocol()), SCAN, [0.0], store, 0.35, fake)
    assert se.execute(directions, SCAN, store, fake)["budget_stopped"] is False
    again = [c for c in fake.calls[done:]]
    assert not set(again) & set(fake.calls[:done])  # nothing run twice


def test_one_real_rollout_on_hubo_lite_survives_standing():
    stance = pe.stances(["balance"], ["centre"], 1, 0.5)[0]
    run = se.Run("ankle", stance, se.Protocol(survival_s=1.0))
    result = se.rollout(run, 0.0, 3.0, 1, with_state=True)  # replica 1: 0.05 s, 0.1 m above the torso's CoM
    assert result["survived"] and not result["fell"]
    assert set(result["final_supporting"]) == {"left_foot", "right_foot"} and result["final_speed_mps"] < 0.1
    assert result["steps_taken"] == 0 and result["state"]["time_s"] == pytest.approx(0.5, abs=0.01)
    assert not pe.env_for(stance, run.protocol.env_settings()).data.xfrc_applied.any()  # the torque is gone
