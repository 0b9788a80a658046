"""Seeded fuzz of the controller's API (issue 34): random wrong shapes, dtypes
(object, str, complex, int, bool) and values (NaN, inf, -1, huge) fed to the setters, attribute
writes, compute(), gravity_compensation_torques(), set_contact_active, add_task, the configs and
the private core. Each call must either raise a clear error (WBCError, ValueError, TypeError; an
IndexError too from the private core) that leaves the object as it was, or give a valid result
(finite torques, or QPSolveError for a QP with no solution); never another exception, a crash or a
hang.

The fuzz runs in a subprocess (this file run as a script), so that a segfault shows as a failing
exit code; it prints one JSON summary line.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time

import numpy as np

from wbc_layer.config import BACKENDS

#: Cases per backend (public API) and calls into the private core; the whole run takes ~10 s.
CASES, CORE_CASES, SEED = 250, 250, 20240
#: A case slower than this [s] counts as a hang (the findings: 62-90 s a call; cases take ms): generous
#: so that a loaded CI machine never trips it.
SLOW_S = 10.0


def test_fuzzed_api_calls_raise_a_clear_error_or_give_a_valid_result():
    summary = _run_fuzz("api")
    assert summary["unexpected"] == [], summary["unexpected"][:5]
    assert summary["slow"] == [], summary["slow"]
    for backend in BACKENDS:
        counts = summary["counts"][backend]
        assert counts["rejected"] >= CASES // 4 and counts["accepted"] >= CASES // 10, counts  # both paths ran
        assert sum(counts.values()) == CASES


def test_fuzzed_core_calls_raise_python_exceptions():
    summary = _run_fuzz("core")
    assert summary["unexpected"] == [], summary["unexpected"][:5]
    assert summary["counts"]["rejected"] >= CORE_CASES // 2, summary["counts"]
    assert summary["still_solves"] is True


def _run_fuzz(part: str) -> dict:
    try:
        run = subprocess.run(
            [sys.executable, __file__, part, "--seed", str(SEED)], capture_output=True, text=True, timeout=240
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the {part} fuzz did not finish within 240 s") from None
    assert run.returncode == 0, f"rc {run.returncode}: {run.stderr[-3000:]}"
    return json.loads(run.stdout.strip().splitlines()[-1])


# -- the fuzz (run as a script) ------------------------------------------------------------------------
def _values(rng: np.random.Generator):
    """A random value from a pool of wrong and right ones."""
    pool = [
        None, "abc", "1.0", "False", float("nan"), float("inf"), -float("inf"), -1, -1.0, 0, 0.0, 0.5, 1, 2.0, 1e30,
        1e300, -1e300, True, False, np.bool_(True), 3 + 2j, object(), [], {}, [1, 2], [1.0, 2.0, 3.0],
        np.zeros(0), np.zeros(1), np.zeros(2), np.zeros(3), np.ones(3) * 0.1, np.zeros(6), np.zeros(23),
        np.full(23, 0.1), np.zeros((3, 3)), np.eye(3), np.diag([1.0, 1.0, -1.0]), np.full(3, np.nan),
        np.full(23, np.inf), np.array(["a", "b", "c"]), np.array([1, 2, 3], dtype=object), np.ones(3, dtype=complex),
        np.ones(3, dtype=int), np.ones(3, dtype=bool), -np.ones(3), np.float32(0.3), np.int64(2), np.array(5.0),
        "left_hand", "torso", "nope", ("a",), (0.0, 1.0, 0.0),
    ]  # fmt: skip
    return pool[rng.integers(len(pool))]


def _snapshot(obj) -> dict:
    return {k: (np.array(v) if isinstance(v, np.ndarray) else v) for k, v in vars(obj).items() if not k.startswith("_")}


def _same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for key, value in a.items():
        other = b[key]
        if isinstance(value, np.ndarray):
            if not (isinstance(other, np.ndarray) and np.array_equal(value, other, equal_nan=True)):
                return False
        elif not (value is other or value == other):
            return False
    return True


class ApiFuzz:
    """One random call per case on a fresh controller, then a tick at the valid state."""

    def __init__(self, backend: str, rng: np.random.Generator):
        from humanoid_env.robots.hubo_lite import HUBO_LITE
        from humanoid_env.wbc_sim import WBCSimulation

        self.backend, self.rng = backend, rng
        self.sim = WBCSimulation(None, HUBO_LITE.controller_config(backend=backend))
        self.q, self.v = self.sim.state()
        self.make_config = HUBO_LITE.controller_config

    def controller(self):
        from wbc_layer import WholeBodyController

        self.sim.robot.update(self.q, self.v)
        return WholeBodyController(self.sim.robot, self.make_config(backend=self.backend))

    def case(self):
        """``(kind, label, object whose state a rejection must keep, call)``."""
        rng, c = self.rng, self.controller()
        kind = rng.choice(["task_attribute", "contact_attribute", "setter", "compute", "fallback", "add_task",
                           "config", "last_problem"], p=[0.22, 0.18, 0.2, 0.18, 0.07, 0.05, 0.07, 0.03])  # fmt: skip
        value = _values(rng)
        if kind == "task_attribute":
            task = list(c.tasks.values())[rng.integers(len(c.tasks))]
            names = [f.name for f in dataclasses.fields(task)] + ["name"]
            name = names[rng.integers(len(names))]
            return c, kind, f"{task.name}.{name} = {value!r}", task, lambda: setattr(task, name, value)
        if kind == "contact_attribute":
            contact = list(c.contacts.values())[rng.integers(len(c.contacts))]
            names = [f.name for f in dataclasses.fields(contact)] + ["dim"]
            name = names[rng.integers(len(names))]
            return c, kind, f"{contact.name}.{name} = {value!r}", contact, lambda: setattr(contact, name, value)
        if kind == "setter":
            return (c, kind, *self._setter(c, value))
        if kind == "compute":
            q, v, label = self._state(value)
            return c, kind, label, None, lambda: c.compute(q, v)
        if kind == "fallback":
            q, _, label = self._state(value)
            return c, kind, "update + fallback: " + label, None, lambda: (c.robot.update(q, self.v), c.gravity_compensation_torques())[1]
        if kind == "add_task":
            from wbc_layer import ComTask, FramePositionTask, PostureTask

            makers = [lambda: value, lambda: FramePositionTask("extra", value, frame="right_hand"),
                      lambda: FramePositionTask("extra", 1.0, frame=value), lambda: PostureTask("extra", kp=value),
                      lambda: ComTask("com"), lambda: ComTask("extra", kd=value)]  # fmt: skip
            make = makers[rng.integers(len(makers))]
            return c, kind, f"add_task #{makers.index(make)} with {value!r}", None, lambda: c.add_task(make())
        if kind == "config":
            fields = [f.name for f in dataclasses.fields(c.config) if f.name not in ("contacts", "backend")]
            name = fields[rng.integers(len(fields))]
            return c, kind, f"config {name}={value!r}", None, lambda: self._controller_from(name, value)
        return c, kind, "last_problem", None, lambda: c.last_problem

    def _setter(self, c, value):
        rng = self.rng
        contact = ["left_foot", "right_foot", value][rng.integers(3)]
        setters = [
            ("com_task.set_reference", lambda: c.com_task.set_reference(value)),
            ("com_task.set_reference(v, acc)", lambda: c.com_task.set_reference(c.robot.com, value, value)),
            ("posture_task.set_target", lambda: c.posture_task.set_target(value)),
            ("torso_task.set_target", lambda: c.torso_task.set_target(value)),
            ("set_force_target", lambda: c.set_force_target(contact, value)),
            ("set_force_target(weight)", lambda: c.set_force_target("left_foot", 50.0, weight=value)),
            ("set_contact_active", lambda: c.set_contact_active(contact, value)),
            ("force task set_target", lambda: c.task("force_right_foot").set_target(value, normal_only=rng.random() < 0.5)),
            ("task()", lambda: c.task(value)),
            ("contact()", lambda: c.contact(value)),
        ]
        label, call = setters[rng.integers(len(setters))]
        owner = c.task("force_right_foot") if label == "force task set_target" else None
        return f"{label}({value!r}, contact={contact!r})", owner, call

    def _state(self, value):
        """A corrupted (q, v): a wrong size, dtype or entry, or a scaled quaternion."""
        rng, q, v = self.rng, self.q.copy(), self.v.copy()
        how = rng.integers(6)
        if how == 0:
            target = q if rng.random() < 0.5 else v
            target[rng.integers(target.size)] = value if np.isscalar(value) and not isinstance(value, str) else np.nan
            return q, v, f"entry = {value!r}"
        if how == 1:
            return q[: rng.integers(q.size)], v, "short q"
        if how == 2:
            return q, np.concatenate([v, [0.0]]), "long v"
        if how == 3:
            q[3:7] *= [0.0, 0.5, 1 + 1e-7, 1 + 1e-5, 2.0][rng.integers(5)]
            return q, v, f"quaternion norm {np.linalg.norm(q[3:7])}"
        if how == 4:
            dtype = [object, str, complex, int, np.float32][rng.integers(5)]
            return q.astype(dtype), v, f"q as {dtype}"
        return [value] * q.size, v, f"q of {value!r}"

    def _controller_from(self, name, value):
        from wbc_layer import WholeBodyController

        config = self.make_config(backend=self.backend, **{name: value})
        return WholeBodyController(self.sim.robot, config)


def _check_result(result, na: int) -> None:
    """Raise AssertionError unless ``result`` is a valid outcome of a call."""
    from wbc_layer import QPProblem, WBCResult

    if isinstance(result, WBCResult):
        assert result.success and result.tau.shape == (na,) and np.isfinite(result.tau).all(), "bad result"
    elif isinstance(result, np.ndarray) and result.shape == (na,):  # the fallback's torques
        assert np.isfinite(result).all(), "non-finite fallback torques"
    elif isinstance(result, QPProblem):
        assert result.P.shape[0] == result.G.shape[1]


def fuzz_api(seed: int) -> dict:
    from wbc_layer import QPSolveError, WBCError

    unexpected, slow, counts = [], [], {}
    for backend in BACKENDS:
        fuzz = ApiFuzz(backend, np.random.default_rng(seed))
        counts[backend] = {"accepted": 0, "rejected": 0, "no_solution": 0}
        for index in range(CASES):
            controller, kind, label, owner, call = fuzz.case()
            before = None if owner is None else _snapshot(owner)
            start = time.perf_counter()
            try:
                _check_result(call(), controller.robot.na)
                outcome = "accepted"
            except QPSolveError:
                outcome = "no_solution"
            except (WBCError, ValueError, TypeError) as err:
                outcome = "rejected"
                if not str(err) or (before is not None and not _same(before, _snapshot(owner))):
                    unexpected.append(f"{backend} #{index} {label}: rejected but changed / no message: {err!r}")
            except Exception as err:  # noqa: BLE001 - what the fuzz looks for
                outcome = "unexpected"
                unexpected.append(f"{backend} #{index} {kind} {label}: {type(err).__name__}: {err}"[:300])
            if time.perf_counter() - start > SLOW_S:
                slow.append(f"{backend} #{index} {label}: {time.perf_counter() - start:.1f} s")
            counts[backend][outcome if outcome != "unexpected" else "rejected"] += 1
            try:  # whatever was accepted, the controller still ticks at a valid state (or reports why not)
                start = time.perf_counter()
                _check_result(controller.compute(fuzz.q, fuzz.v), controller.robot.na)
            except QPSolveError:
                pass
            except Exception as err:  # noqa: BLE001
                unexpected.append(f"{backend} #{index} after {label}: tick: {type(err).__name__}: {err}"[:300])
            if time.perf_counter() - start > SLOW_S:
                slow.append(f"{backend} #{index} tick after {label}: {time.perf_counter() - start:.1f} s")
    return {"counts": counts, "unexpected": unexpected, "slow": slow}


def fuzz_core(seed: int) -> dict:
    """Random calls into wbc_layer._core with random sizes and indices."""
    from humanoid_env.robots.hubo_lite import HUBO_LITE
    from humanoid_env.wbc_sim import WBCSimulation
    from wbc_layer import WholeBodyController, _core

    rng = np.random.default_rng(seed)
    sim = WBCSimulation()
    q, v = sim.state()
    controller = WholeBodyController(sim.robot, HUBO_LITE.controller_config(backend="compiled"))
    core, n_tasks = controller.compiled.core, len(controller.compiled.task_index)
    counts, unexpected = {"accepted": 0, "rejected": 0}, []

    def vec():
        n = int(rng.choice([0, 1, 2, 3, 6, 23, 29, 30, 41, 44, 100]))
        return rng.choice([np.zeros(n), np.full(n, np.nan), rng.normal(size=n), np.ones(n)])

    def mat():
        shape = tuple(int(x) for x in rng.choice([0, 1, 3, 6, 41], size=2))
        return np.zeros(shape) if rng.random() < 0.5 else rng.normal(size=shape)

    def idx():
        return int(rng.choice([-5, -1, 0, 1, 2, 3, 5, n_tasks - 1, n_tasks, 10**6]))

    calls = [
        lambda: core.torques(vec()), lambda: core.within_limits(vec(), vec()), lambda: core.within_torque_limits(vec()),
        lambda: core.set_gains(idx(), vec(), vec()), lambda: core.set_posture(idx(), vec()),
        lambda: core.set_contact_force(idx(), idx(), mat(), vec()), lambda: core.set_task(idx(), bool(rng.random() < 0.5), float(rng.choice([-1, 0, 1, np.nan]))),
        lambda: core.set_orientation(idx(), idx(), rng.normal(size=(3, 3))), lambda: core.set_frame_position(idx(), idx(), vec()[:3] if rng.random() < 0.5 else np.zeros(3), np.zeros(3)),
        lambda: core.set_body_rest(idx(), idx(), 1.0, 1.0, vec()), lambda: core.set_contact(idx(), True, mat(), vec()),
        lambda: core.set_contact_frame(idx(), idx()), lambda: core.set_regularisation(idx(), float(rng.normal()), 1e-4),
        lambda: core.set_angular_momentum(idx(), float(rng.normal())), lambda: core.problem(bool(rng.random() < 0.5)),
        lambda: core.compute(vec(), vec(), vec(), vec()), lambda: core.build(vec(), vec(), np.zeros(0), np.zeros(0)),
        lambda: _core.EiquadprogSolver(10).solve(mat(), vec(), mat(), vec(), mat(), vec()),
    ]  # fmt: skip
    for _ in range(CORE_CASES):
        call = calls[rng.integers(len(calls))]
        try:
            call()
            counts["accepted"] += 1
        except (ValueError, IndexError, TypeError):
            counts["rejected"] += 1
        except Exception as err:  # noqa: BLE001 - what the fuzz looks for
            unexpected.append(f"{type(err).__name__}: {err}"[:300])
    # The core still ticks on a valid state after all that (its tasks were rewritten at random, so
    # any status may come back): a status and torques of na entries.
    status, _, tau, *_ = core.compute(q, v, np.zeros(0), np.zeros(0))
    return {"counts": counts, "unexpected": unexpected, "still_solves": isinstance(status, str) and tau.shape == (sim.robot.na,)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("api", "core"))
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    print(json.dumps(fuzz_api(args.seed) if args.part == "api" else fuzz_core(args.seed)))
