"""The benchmarks run at tiny sizes, write JSON with the expected keys, and time what they say.

No assertion here is about speed. A virtual clock replaces ``time.perf_counter`` and charges
``CALL_S`` of virtual time for every call of the operation a benchmark claims to time (a QP
solve, a WBC tick, a vector-env step). A timed quantity must then hold exactly as many charges
as the benchmark's own bookkeeping says, and the parts that do not contain the operation none:
a benchmark that times nothing, times the wrong span, or miscounts its calls fails.
"""

from __future__ import annotations

import json
import time

import gymnasium as gym
import pytest
import qpsolvers

from benchmarks import controller_step, env_throughput, qp_backends, scaling
from humanoid_env.envs.base import HumanoidWBCBaseEnv
from wbc_layer import ProxsuiteSolver
from wbc_layer.qp import DaqpSolver

ENV = "HumanoidWBC-v0"
#: Virtual time charged per call of the timed operation [s].
CALL_S = 1e4
#: The real time inside any one timed sample (a solve, an env step, a block of 3 env steps: micro-
#: to milliseconds) is below 1e-3 CALL_S = 10 s, so a sample holding k charges lies in
#: [k CALL_S, k CALL_S + 10 s): these bounds count charges, they do not measure speed.
REAL_S = 1e-3 * CALL_S


class VirtualClock:
    """``time.perf_counter`` plus the virtual time charged so far."""

    def __init__(self, real):
        self.real, self.offset, self.charges = real, 0.0, 0

    def __call__(self) -> float:
        return self.real() + self.offset

    def charging(self, function):
        """``function`` that charges CALL_S when it returns (or raises)."""

        def charged(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            finally:
                self.offset += CALL_S
                self.charges += 1

        return charged


@pytest.fixture
def clock(monkeypatch) -> VirtualClock:
    virtual = VirtualClock(time.perf_counter)
    monkeypatch.setattr(time, "perf_counter", virtual)
    return virtual


def charges(us: float) -> float:
    """A timing [us] in units of CALL_S."""
    return 1e-6 * us / CALL_S


def holds(us: float, k: int) -> bool:
    """True when a timing [us] holds exactly ``k`` charges (plus real time below REAL_S)."""
    return k * CALL_S <= 1e-6 * us < k * CALL_S + REAL_S


def load(path) -> dict:
    data = json.loads(path.read_text())
    assert set(data) >= {"results", "machine"}
    return data


def test_qp_backends_scores_every_solver_on_recorded_problems(tmp_path, clock, monkeypatch):
    # Charge every solver call the benchmark makes: ours and qpsolvers' entry point.
    for cls in (ProxsuiteSolver, DaqpSolver):
        monkeypatch.setattr(cls, "solve", clock.charging(cls.solve))
    monkeypatch.setattr(qpsolvers, "solve_problem", clock.charging(qpsolvers.solve_problem))
    out = tmp_path / "qp.json"
    qp_backends.main(["--problems", "12", "--envs", ENV, "--json", str(out)])
    results = load(out)["results"][ENV]
    for variant in ("hot", "full"):
        assert results[variant]["size"]["n"] > 0
        rows = results[variant]["solvers"]
        assert {"proxsuite warm (ours)", "daqp", "quadprog", "osqp", "piqp", "proxqp"} <= set(rows)
        for name, row in rows.items():
            # Each timed call encloses exactly one solver call ...
            assert holds(row["call"]["median_us"], 1), (name, charges(row["call"]["median_us"]))
            assert holds(row["call"]["max_us"], 1), (name, charges(row["call"]["max_us"]))
            # ... and the solver-reported time is measured inside it, without the call's wrapping.
            reported = row["solver_median_us"]
            assert reported is None or 0.0 <= 1e-6 * reported < REAL_S, (name, reported)
            assert 0.0 <= row["solved_fraction"] <= 1.0
        assert rows["proxsuite warm (ours)"]["solved_fraction"] == 1.0


def test_scaling_reports_sizes_and_times_per_configuration(tmp_path, clock, monkeypatch):
    monkeypatch.setattr(ProxsuiteSolver, "solve", clock.charging(ProxsuiteSolver.solve))
    out = tmp_path / "scaling.json"
    scaling.main(["--steps", "10", "--json", str(out)])
    results = load(out)["results"]
    assert [row["n_contacts"] for row in results["contacts"].values()] == [2, 3, 4]
    assert [row["nv"] for row in results["dofs"].values()] == [29, 21, 18]
    for group in results.values():
        for name, row in group.items():
            assert row["qp"]["n"] > 0
            parts, compute = row["parts_median_us"], row["compute"]["median_us"]
            # Every tick solves once, or twice when a torque limit was hit (torque_limited_fraction):
            # the median tick holds as many solves as the median "solve" part, the rest is real time.
            solves = round(charges(parts["solve"]))
            assert solves == (1 if row["torque_limited_fraction"] < 0.5 else 2), (name, row)
            assert holds(parts["solve"], solves) and holds(compute, solves), (name, row)
            for part in ("update", "build", "torques"):
                assert holds(parts[part], 0), (name, part, parts[part])


def test_env_throughput_compares_modes(tmp_path, clock, monkeypatch):
    # One charge per WBC tick: frame_skip per wbc-mode env step, none in torque mode.
    monkeypatch.setattr(HumanoidWBCBaseEnv, "_compute_wbc", clock.charging(HumanoidWBCBaseEnv._compute_wbc))
    frame_skip = gym.make(ENV).unwrapped.frame_skip
    out = tmp_path / "env.json"
    env_throughput.main(["--block", "3", "--rounds", "1", "--envs", ENV, "--no-vec", "--json", str(out)])
    row = load(out)["results"]["modes"][ENV]
    wbc_step_s = 1.0 / row["wbc"]["steps_per_s_without_resets"]  # time per env step [s]
    assert frame_skip * CALL_S <= wbc_step_s < frame_skip * CALL_S + REAL_S
    assert 1.0 / row["torque"]["steps_per_s_without_resets"] < REAL_S
    # The WBC's share of the wbc env's time: all of it but the real time (< REAL_S per block).
    blocks_s = 3 * frame_skip * CALL_S
    assert 1.0 - REAL_S / blocks_s < row["wbc"]["compute_share"] <= 1.0 + 1e-12
    assert row["wbc_cost_ratio"] == pytest.approx(row["torque"]["steps_per_s"] / row["wbc"]["steps_per_s"], rel=1e-12)


def test_controller_step_writes_its_table(tmp_path, clock, monkeypatch):
    monkeypatch.setattr(ProxsuiteSolver, "solve", clock.charging(ProxsuiteSolver.solve))
    out = tmp_path / "step.json"
    results = controller_step.main(["--steps", "10", "--solvers", "proxsuite", "--envs", ENV, "--json", str(out)])
    data = load(out)
    standing = data["results"]["standing"]["proxsuite"]
    assert standing == json.loads(json.dumps(results["proxsuite"]))  # the JSON holds what main returned
    in_env = data["results"]["envs"][ENV]["proxsuite"]
    # Standing still, no torque limit is hit: one solve per step, inside "solve", "wbc_step"
    # (MuJoCo state -> torques) and, in the env, "compute"; never inside the other parts.
    for key in ("solve", "wbc_step"):
        assert holds(standing[key]["median_us"], 1), (key, standing[key])
    for key in ("solve", "compute"):
        assert holds(in_env[key]["median_us"], 1), (key, in_env[key])
    for rows in (standing, in_env):
        for key in ("update", "build", "torques", "mj_step"):
            assert holds(rows[key]["median_us"], 0) and holds(rows[key]["max_us"], 0), (key, rows[key])


def test_env_throughput_runs_subprocess_vector_envs(tmp_path, clock, monkeypatch):
    # The workers run in other processes with their own clocks: charge each vector step instead.
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    for cls in (DummyVecEnv, SubprocVecEnv):
        monkeypatch.setattr(cls, "step_wait", clock.charging(cls.step_wait))
    out = tmp_path / "vec.json"
    env_throughput.main(["--block", "2", "--rounds", "1", "--envs", ENV, "--json", str(out)])
    row = load(out)["results"]["vec_env"]
    # env steps per second = vector steps x workers / time: 1, 1 and 2 env steps per charge
    for name, workers in (("dummy_1", 1), ("subproc_1", 1), ("subproc_2", 2)):
        vector_step_s = workers / row[name]["steps_per_s"]
        assert CALL_S <= vector_step_s < CALL_S + REAL_S, (name, row[name])
    assert row["speedup_2_over_1"] == pytest.approx(2.0, rel=REAL_S / CALL_S)
