"""The benchmarks run at tiny sizes and write JSON with the expected keys (no timing assertions)."""

from __future__ import annotations

import json

from benchmarks import controller_step, env_throughput, qp_backends, scaling

ENV = "HumanoidWBC-v0"


def load(path) -> dict:
    data = json.loads(path.read_text())
    assert set(data) >= {"results", "machine"}
    return data


def test_qp_backends_scores_every_solver_on_recorded_problems(tmp_path):
    out = tmp_path / "qp.json"
    qp_backends.main(["--problems", "12", "--envs", ENV, "--json", str(out)])
    results = load(out)["results"][ENV]
    for variant in ("hot", "full"):
        assert results[variant]["size"]["n"] > 0
        rows = results[variant]["solvers"]
        assert {"proxsuite warm (ours)", "daqp", "quadprog", "osqp", "piqp", "proxqp"} <= set(rows)
        for row in rows.values():
            assert row["call"]["median_us"] > 0
            assert 0.0 <= row["solved_fraction"] <= 1.0
        assert rows["proxsuite warm (ours)"]["solved_fraction"] == 1.0


def test_scaling_reports_sizes_and_times_per_configuration(tmp_path):
    out = tmp_path / "scaling.json"
    scaling.main(["--steps", "10", "--json", str(out)])
    results = load(out)["results"]
    assert [row["n_contacts"] for row in results["contacts"].values()] == [2, 3, 4]
    assert [row["nv"] for row in results["dofs"].values()] == [29, 21, 18]
    for group in results.values():
        for row in group.values():
            assert row["compute"]["median_us"] > 0 and row["qp"]["n"] > 0


def test_env_throughput_compares_modes(tmp_path):
    out = tmp_path / "env.json"
    env_throughput.main(["--block", "3", "--rounds", "1", "--envs", ENV, "--no-vec", "--json", str(out)])
    row = load(out)["results"]["modes"][ENV]
    assert row["wbc"]["steps_per_s"] > 0 and row["torque"]["steps_per_s"] > 0 and row["wbc_cost_ratio"] > 0


def test_controller_step_writes_its_table(tmp_path):
    out = tmp_path / "step.json"
    results = controller_step.main(["--steps", "10", "--solvers", "proxsuite", "--envs", ENV, "--json", str(out)])
    data = load(out)
    assert data["results"]["standing"]["proxsuite"]["wbc_step"]["median_us"] > 0
    assert results["proxsuite"]["solve"]["median_us"] > 0
    in_env = data["results"]["envs"][ENV]["proxsuite"]
    # The parts are inside compute(), so none can take longer than the whole call (medians).
    assert 0 < in_env["solve"]["median_us"] <= in_env["compute"]["median_us"]
    assert in_env["mj_step"]["median_us"] > 0


def test_env_throughput_runs_subprocess_vector_envs(tmp_path):
    out = tmp_path / "vec.json"
    env_throughput.main(["--block", "2", "--rounds", "1", "--envs", ENV, "--json", str(out)])
    row = load(out)["results"]["vec_env"]
    assert (
        row["subproc_1"]["steps_per_s"] > 0
        and row["subproc_2"]["steps_per_s"] > 0
        and row["speedup_2_over_1"] > 0
    )
