"""CI checks of the shipped policies (``policies/<env id>/``): each env's claim against the nominal
controller (``training.shipped.CLAIMS``) holds on the CI protocol's paired episodes, judged by the
comparison tool (``training.comparison``: one-sided 90 % bootstrap bounds on the paired
differences of the main metric and of the fall rate).

The check runs one cell (``reference``) of the perturbation matrix. The matrix
(``python -m benchmarks.shipped_matrix``; its record ``results/shipped_checks/matrix.json`` is
committed) runs the same protocol under the other QP solver, 1e-9 relative noise on the initial
state and one thread instead of two, with two negative controls that must fail every cell; the
last test here checks that the committed record is of the current claims, protocol and policies,
and shows the expected verdicts in every cell.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

import pytest

from humanoid_env.registry import TASKS
from training.comparison import PERTURBATIONS, judge
from training.shipped import (
    CHECK_ENV_KWARGS,
    CHECK_PROTOCOL,
    CLAIMS,
    TABLE_METRICS,
    compare,
    policy_dir,
    shipped_envs,
)

MATRIX = Path(__file__).resolve().parents[1] / "results" / "shipped_checks" / "matrix.json"

#: The envs with a shipped policy (``policies/<env id>/model.zip``), sorted; the committed matrix
#: record pins them (its ``settings.envs``).
SHIPPED = shipped_envs()


def test_every_shipped_policy_is_checked_here():
    # each a registered task, and training.shipped's tables cover exactly them (no table entry without a policy)
    assert SHIPPED and set(SHIPPED) <= set(TASKS), (SHIPPED, list(TASKS))
    for table in (CLAIMS, CHECK_PROTOCOL, CHECK_ENV_KWARGS, TABLE_METRICS):
        assert sorted(table) == SHIPPED


@pytest.mark.parametrize("env_id", SHIPPED)
def test_shipped_policy_claim_holds(env_id):
    episodes, seed, max_steps = CHECK_PROTOCOL[env_id]
    verdict = compare(env_id, episodes, seed, max_steps, env_kwargs=CHECK_ENV_KWARGS[env_id])["verdict"]
    print(f"{env_id}: {verdict}")
    assert verdict["passed"], verdict["reasons"]


def test_committed_matrix_is_of_the_current_checks_and_as_expected():
    record = json.loads(MATRIX.read_text())
    settings = record["settings"]
    assert settings["envs"] == SHIPPED and settings["cells"] == list(PERTURBATIONS)
    for env_id in SHIPPED:
        assert settings["claims"][env_id] == asdict(CLAIMS[env_id]), env_id
        assert tuple(settings["protocol"][env_id]) == CHECK_PROTOCOL[env_id], env_id
        assert settings["env_kwargs"][env_id] == CHECK_ENV_KWARGS[env_id], env_id
        model = (policy_dir(env_id) / "model.zip").read_bytes()
        assert settings["policy_sha256"][env_id] == hashlib.sha256(model).hexdigest(), f"{env_id}: policy changed since"
    cells = {(c["env"], c["perturbation"]): c for c in record["cells"]}
    assert set(cells) == {(env_id, p) for env_id in SHIPPED for p in PERTURBATIONS}
    for key, cell in cells.items():
        assert "error" not in cell, (key, cell.get("error"))
        claim, nominal = CLAIMS[key[0]], cell["nominal"]["episodes"]
        # the verdicts are the current judge's on the recorded episodes, not just stored flags
        verdict = judge(nominal, cell["trained"]["episodes"], claim).as_dict()
        assert verdict == cell["verdict"], key
        assert verdict["passed"], (key, verdict["reasons"])
        for name, control in cell["controls"].items():
            verdict = judge(nominal, control["record"]["episodes"], claim).as_dict()
            assert verdict == control["verdict"], (key, name)
            assert not verdict["passed"], f"{key}: negative control {name} passed"
    for env_id in SHIPPED:  # the cells ran with the threads they name
        assert cells[(env_id, "one_thread")]["threads"]["OPENBLAS_NUM_THREADS"] == "1"
        assert cells[(env_id, "reference")]["threads"]["OPENBLAS_NUM_THREADS"] == "2"
