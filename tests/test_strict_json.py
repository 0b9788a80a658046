"""Every JSON the project writes is strict JSON (RFC 8259: no bare NaN or Infinity).

``training.jsonio`` writes a non-finite float as ``null``; the readers of evaluation records get
NaN back (``metrics_from_json``). A strict parser here is :func:`json.loads` with
``parse_constant`` raising: Python's own reader accepts ``NaN``, ``Infinity`` and ``-Infinity``
and calls ``parse_constant`` for exactly those three words.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from training import jsonio

ROOT = Path(__file__).resolve().parents[1]


def strict_loads(text: str):
    """``json.loads`` that refuses NaN, Infinity and -Infinity as a strict parser does."""

    def refuse(constant: str):
        raise ValueError(f"not strict JSON: bare {constant}")

    return json.loads(text, parse_constant=refuse)


def test_the_strict_parser_refuses_what_plain_json_dumps_writes():
    """The check below could fail: Python's json writes NaN as a bare ``NaN``."""
    with pytest.raises(ValueError, match="bare NaN"):
        strict_loads(json.dumps({"x": float("nan")}))


def test_non_finite_floats_are_written_as_null_and_parse_strictly(tmp_path):
    record = {
        "time_to_level_s": float("nan"),
        "metric_margin": float("inf"),
        "low": -math.inf,
        "median_us": np.float64("nan"),  # numpy's float64 is a float
        "nested": {"values": [1.5, float("nan"), (2.0, float("inf"))], "ok": 3},
        "fell": False,
        "fell_at_s": None,
    }
    path = jsonio.write_json(tmp_path / "r.json", record)
    back = strict_loads(path.read_text())
    assert back == {
        "time_to_level_s": None,
        "metric_margin": None,
        "low": None,
        "median_us": None,
        "nested": {"values": [1.5, None, [2.0, None]], "ok": 3},
        "fell": False,
        "fell_at_s": None,
    }
    assert record["time_to_level_s"] != record["time_to_level_s"]  # the caller's record is left as it was


def test_finite_records_are_written_byte_for_byte_as_json_dumps_writes_them(tmp_path):
    """Valid runs' records do not change: the helper differs only where a value is not finite."""
    record = {"a": [0.1, 1e-300, -2.5e17, 3], "b": {"c": "text", "d": True, "e": None}, "f": (1, 2.0)}
    for kwargs in ({}, {"indent": 1}, {"indent": 2}, {"indent": 2, "sort_keys": True}):
        assert jsonio.dumps(record, **kwargs) == json.dumps(record, **kwargs)
    assert jsonio.write_json(tmp_path / "a.json", record).read_text() == json.dumps(record, indent=2)
    written = jsonio.write_json(tmp_path / "b.json", record, indent=1, newline=True).read_text()
    assert written == json.dumps(record, indent=1) + "\n"


def test_strictness_cannot_be_turned_off_and_unwritable_values_still_fail():
    with pytest.raises(TypeError, match="allow_nan"):
        jsonio.dumps({"x": 1.0}, allow_nan=True)
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsonio.dumps({"x": np.float32(1.0)})  # as json.dumps: numpy's float32 is no float


def test_an_evaluation_record_read_back_has_its_nan_metrics_again(tmp_path):
    record = {
        "env": "HumanoidWBCWall-v0",
        "summary": {"return": 10.0, "hand_force_rmse_n": float("nan"), "fell": 0.5},
        "episodes": [{"return": 12.0, "hand_force_rmse_n": float("nan"), "fell": True}],
        "video": None,
    }
    text = jsonio.dumps(record, indent=1)
    read = jsonio.metrics_from_json(strict_loads(text))
    assert math.isnan(read["summary"]["hand_force_rmse_n"]) and math.isnan(read["episodes"][0]["hand_force_rmse_n"])
    assert read["summary"]["return"] == 10.0 and read["episodes"][0]["fell"] is True
    assert read["video"] is None  # outside summary and episodes a null stays a null
    old = jsonio.metrics_from_json(json.loads(json.dumps(record)))  # a record written before: NaN kept
    assert math.isnan(old["episodes"][0]["hand_force_rmse_n"])


def test_the_long_ablation_reads_an_unmeasured_snapshot_episode_written_as_null(tmp_path):
    """A wall snapshot's episode that ended before the hand force was measured (metric NaN, now
    null in its file): the equal-budget verdict says "unmeasured", as it did when files held NaN."""
    from training import sample_efficiency, snapshots

    run_dir = tmp_path / "run"
    (run_dir / snapshots.SNAPSHOT_DIR).mkdir(parents=True)
    target = sample_efficiency.BUDGETS[0]
    episodes = [{"return": 50.0, "fell": True, "hand_force_rmse_n": float("nan")}, {"return": 900.0, "fell": False, "hand_force_rmse_n": 2.0}]
    evaluation = {"summary": {"return": 475.0, "fell": 0.5, "hand_force_rmse_n": float("nan")}, "episodes": episodes}
    snapshots.eval_path(run_dir, target).write_text(jsonio.dumps(evaluation, indent=1))
    progress = run_dir / snapshots.SNAPSHOT_DIR / snapshots.PROGRESS_FILE
    progress.write_text(jsonio.dumps({"target": target, "steps": target, "wall_s": 12.0}) + "\n")
    for path in (snapshots.eval_path(run_dir, target), progress):
        for line in path.read_text().splitlines() if path.suffix == ".jsonl" else [path.read_text()]:
            strict_loads(line)

    run = sample_efficiency.run_record(run_dir, "torque", 0)
    nominal_episodes = [{"return": 1000.0, "fell": False, "hand_force_rmse_n": 0.3}] * 2
    nominal = {"summary": {"return": 1000.0, "fell": 0.0, "hand_force_rmse_n": 0.3}, "episodes": nominal_episodes}
    summary = sample_efficiency.mode_summary("HumanoidWBCWall-v0", [run], nominal)
    assert summary["torque"]["budgets"][str(target)]["verdict"] == {"passed": False, "unmeasured_episodes": 1}
    assert summary["torque"]["samples_to_level"] == [None]  # NaN metric: not at the level


def test_benchmark_records_are_strict_json(tmp_path):
    from benchmarks.common import machine, write_json

    path = tmp_path / "bench.json"
    write_json(path, {"steps": 10}, {"ratio": float("nan"), "p99_us": float("inf"), "median_us": 44.5}, machine())
    assert strict_loads(path.read_text())["results"] == {"ratio": None, "p99_us": None, "median_us": 44.5}


#: Files allowed to call json.dumps / json.dump themselves: the strict writer, and the PlaCo wire
#: protocol (a pipe between two virtualenvs, not a file; its worker cannot import ``training``).
OWN_JSON_WRITERS = {"training/jsonio.py", "benchmarks/worker_protocol.py"}


def test_every_json_writer_goes_through_the_strict_helper():
    """No module of the project writes JSON with the standard library's permissive defaults."""
    offenders = []
    for folder in ("training", "benchmarks", "examples", "humanoid_env", "wbc_layer"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name in OWN_JSON_WRITERS:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r"\bjson\.dump[s]?\(", line):
                    offenders.append(f"{name}:{number}: {line.strip()}")
    assert not offenders, "write JSON through training.jsonio (strict: NaN as null):\n" + "\n".join(offenders)
