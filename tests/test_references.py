"""wbc_layer.references: the per-physics-step references value and its one write into the controller.

The write must leave the controller exactly as the setters it replaces would (so the QP it solves
is the same bit for bit), and write nothing that did not change.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from humanoid_env.robots.hubo_lite import HUBO_LITE
from wbc_layer import FramePositionTask, OrientationTask, WholeBodyController
from wbc_layer.contact_guard import ContactGuard, ContactGuardSettings
from wbc_layer.references import (
    LinearRamp,
    MinJerkSegment,
    PointReference,
    References,
    TaskReference,
    min_jerk,
)


def _solve(controller, q, v):
    result = controller.compute(q, v)
    return result.tau.copy(), result.qdd.copy()


def test_a_write_gives_the_ticks_of_the_setters_it_replaces(controller, robot, backend):
    """Two controllers at the same state: one driven through its setters, one through References.
    Their torques agree to the last bit at every tick (the same QP is solved)."""
    q, v = robot.q.copy(), np.zeros(robot.nv)
    twin = type(controller)(robot, controller.config)
    refs = References.for_controller(twin)
    for k in range(5):
        com = robot.com + np.array([0.002 * k, -0.001 * k, 0.0])
        velocity = np.array([0.01, 0.0, 0.0])
        controller.com_task.set_reference(com, velocity)
        controller.set_force_target("left_foot", 100.0 + k, weight=1e-2)
        controller.set_force_target("right_foot", 200.0 - k, weight=1e-2)
        refs.com.set(com, velocity)
        refs.contacts["left_foot"].track(100.0 + k, 1e-2)
        refs.contacts["right_foot"].track(200.0 - k, 1e-2)
        refs.write(twin)
        tau_a, qdd_a = _solve(controller, q, v)
        tau_b, qdd_b = _solve(twin, q, v)
        assert tau_a.tobytes() == tau_b.tobytes() and qdd_a.tobytes() == qdd_b.tobytes()


def test_for_controller_mirrors_its_state_and_a_first_write_changes_nothing(controller):
    controller.set_force_target("left_foot", 150.0, weight=0.5)
    refs = References.for_controller(controller)
    assert np.array_equal(refs.com.position, controller.com_task.position)
    assert refs.contacts["left_foot"].force_target == 150.0 and refs.contacts["left_foot"].force_weight == 0.5
    assert refs.contacts["right_foot"].force_target is None  # its force task is off
    calls = []
    original = controller.com_task.set_reference
    controller.com_task.set_reference = lambda *a: calls.append(a) or original(*a)
    refs.write(controller)
    assert calls == []  # the CoM reference was already there
    assert controller.task("force_left_foot").active and not controller.task("force_right_foot").active


def test_released_force_targets_and_contact_switches_reach_the_controller(controller):
    refs = References.for_controller(controller)
    refs.contacts["left_foot"].track(120.0, 1.0)
    refs.write(controller)
    assert controller.task("force_left_foot").active and controller.task("force_left_foot").target[0] == 120.0
    refs.contacts["left_foot"].release_force()
    refs.contacts["right_foot"].active = False
    refs.write(controller)
    assert not controller.task("force_left_foot").active
    assert not controller.contact("right_foot").active and controller.contact("left_foot").active


def test_named_tasks_get_their_activity_and_point_references(controller, robot):
    swing = FramePositionTask("swing", 100.0, kp=10.0, kd=2.0, frame=controller.contact("right_foot").frame, active=False)
    controller.add_task(swing)
    refs = References.for_controller(controller, ["swing"])
    entry = refs.task("swing")
    entry.active = True
    entry.point.position[:] = [0.1, -0.1, 0.05]
    entry.point.velocity[:] = [0.0, 0.0, 0.2]
    refs.write(controller)
    assert swing.active and np.array_equal(swing.position, [0.1, -0.1, 0.05]) and np.array_equal(swing.velocity, [0.0, 0.0, 0.2])
    with pytest.raises(KeyError, match="tasks: swing"):
        refs.task("nope")


def test_the_contact_guard_drives_the_references_as_it_drives_a_controller(controller):
    """ContactGuard works on anything with contact(name) -> (mode, active, bounds, _assign): a
    tilted foot is released with its force bound ramped to 0 (settings: ramp 50 ms)."""
    refs = References.for_controller(controller)
    guard = ContactGuard(refs, ("left_foot", "right_foot"), ContactGuardSettings())
    high = refs.contacts["right_foot"].max_normal_force
    flat = {"left_foot": (180.0, 0.0), "right_foot": (180.0, 0.0)}
    tilted = {"left_foot": (180.0, 0.0), "right_foot": (20.0, 0.3)}
    guard.update(0.002, flat)
    assert refs.contacts["right_foot"].max_normal_force == high
    for _ in range(13):  # 26 ms of the 50 ms ramp
        guard.update(0.002, tilted)
    assert 0.0 < refs.contacts["right_foot"].max_normal_force < high
    refs.write(controller)
    assert controller.contact("right_foot").max_normal_force == refs.contacts["right_foot"].max_normal_force


def test_segments_sample_in_place():
    point = PointReference(3)
    position, velocity = point.position, point.velocity
    point.follow(MinJerkSegment(1.0, 3.0, [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]))
    point.evaluate(2.0)
    s, s_dot = min_jerk(2.0, 1.0, 3.0)
    assert point.position is position and point.velocity is velocity  # the same arrays (no allocation per tick)
    assert np.array_equal(position, [1.0, 2.0 * s, 0.0]) and np.array_equal(velocity, [0.0, 2.0 * s_dot, 0.0])
    assert s == 0.5  # the middle of a minimum-jerk glide
    ramp = LinearRamp(0.0, 0.5, [10.0], [20.0])
    out, rate = np.zeros(1), np.zeros(1)
    ramp.sample(0.25, out, rate)
    assert out[0] == 15.0 and rate[0] == 20.0  # N, N/s
    ramp.sample(0.75, out, rate)
    assert out[0] == 20.0 and rate[0] == 0.0
    point.set([0.0, 0.0, 1.0])
    point.evaluate(2.5)  # set() dropped the segment
    assert np.array_equal(point.position, [0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="t1 > t0"):
        LinearRamp(1.0, 1.0, [0.0], [1.0])


# -- the core's one-call form (core/references.hpp), for a loop that runs the physics steps in C++ ----


def _write_into_core(tick, refs: References, frame_tasks: list[str], orientation_tasks: tuple[str, ...] = ()) -> None:
    """``refs`` handed to ``tick``'s core in one ``set_references`` call (the Python objects untouched)."""
    entries = [refs.contacts[name] for name in tick.contact_index]  # in the core's contact order
    frames = [refs.tasks[name] for name in frame_tasks]
    orientations = [refs.tasks[name] for name in orientation_tasks]
    tick.core.set_references(
        refs.com.position, refs.com.velocity, refs.com.acceleration,
        [e.active for e in entries], np.array([e.min_normal_force for e in entries]),
        np.array([e.max_normal_force for e in entries]), [e.force_target is not None for e in entries],
        np.array([0.0 if e.force_target is None else e.force_target for e in entries]),
        np.array([-1.0 if e.force_weight is None else e.force_weight for e in entries]),
        [tick.task_index[name] for name in frame_tasks], [f.active for f in frames],
        np.array([f.point.position for f in frames]).reshape(-1, 3), np.array([f.point.velocity for f in frames]).reshape(-1, 3),
        [tick.task_index[name] for name in orientation_tasks], [o.active for o in orientations],
        np.array([o.target for o in orientations]).reshape(-1, 3),
    )  # fmt: skip


def test_the_cores_one_call_leaves_the_core_as_the_setters_do(robot):
    """Two controllers: one written through References.write (the Python setters), one through the
    core's set_references alone. Over 300 ticks of random references (CoM jitter, contact
    switches, force bounds ramped, force targets tracked and released, a swing task switched and
    moved, a sole's orientation task switched and turned) and random states near standing, every
    tick's status, solution and torques are equal bit for bit (eiquadprog: an exact solve, so equal
    problems give equal bits)."""
    config = HUBO_LITE.controller_config(qp_solver="eiquadprog")
    pair = []
    for _ in range(2):
        controller = WholeBodyController(robot, config)
        foot = controller.contact("right_foot").frame
        controller.add_task(FramePositionTask("swing", 100.0, kp=10.0, kd=2.0, frame=foot, active=False))
        controller.add_task(OrientationTask("flat", 10.0, kp=100.0, kd=20.0, frame=foot, active=False))
        pair.append(controller)
    by_setters, by_core = pair
    refs = References.for_controller(by_setters, ["swing", "flat"])
    rng = np.random.default_rng(7)
    q0, solved = robot.q.copy(), 0
    for _ in range(300):
        refs.com.set(robot.com + rng.normal(0.0, 0.01, 3), rng.normal(0.0, 0.05, 3), rng.normal(0.0, 0.2, 3))
        for entry in refs.contacts.values():
            draw = rng.random()
            if draw < 0.1:
                entry.active = not entry.active
            elif draw < 0.4:
                entry.max_normal_force = float(rng.uniform(entry.min_normal_force, 900.0))
            if draw > 0.7:
                entry.track(float(rng.uniform(0.0, 400.0)), float(rng.choice([1e-2, 1e-3])) if rng.random() < 0.5 else None)
            elif draw > 0.6:
                entry.release_force()
        swing = refs.tasks["swing"]
        swing.active = bool(rng.random() < 0.5)
        swing.point.position[:] = rng.normal(0.0, 0.1, 3) + [0.0, -0.1, 0.1]
        swing.point.velocity[:] = rng.normal(0.0, 0.2, 3)
        flat = refs.tasks["flat"]
        flat.active = bool(rng.random() < 0.5)
        flat.target = pin.exp3(rng.normal(0.0, 0.3, 3))
        refs.write(by_setters)
        _write_into_core(by_core.compiled, refs, ["swing"], ("flat",))
        q = q0.copy()
        q[7:] += rng.normal(0.0, 0.02, robot.nq - 7)
        v = rng.normal(0.0, 0.1, robot.nv)
        s = np.zeros(0)
        a = by_setters.compiled.core.compute(q, v, s, s)
        b = by_core.compiled.core.compute(q, v, s, s)
        assert a[0] == b[0] and a[1].tobytes() == b[1].tobytes() and a[2].tobytes() == b[2].tobytes()
        solved += a[0] == "solved"
    assert solved > 150  # most ticks solve: the comparison covers solutions, not only failures


def test_the_cores_one_call_checks_everything_before_it_writes(controller):
    """A bad entry raises ValueError naming it, and nothing of the call is written: the next tick
    equals that of a controller never given the bad call."""
    tick, refs = controller.compiled, References.for_controller(controller)
    q = controller.robot.q.copy()
    v, s = np.zeros(controller.robot.nv), np.zeros(0)
    before = tick.core.compute(q, v, s, s)
    refs.com.position[:] = [0.5, 0.5, 0.5]  # would change the tick, were it written
    refs.contacts["left_foot"].max_normal_force = -1.0  # below min_normal_force: rejected
    with pytest.raises(ValueError, match="contact 0: need 0 <= min_normal_force <= max_normal_force"):
        _write_into_core(tick, refs, [])
    refs.contacts["left_foot"].max_normal_force = 500.0
    refs.com.position[:] = np.nan
    with pytest.raises(ValueError, match="CoM reference must be finite"):
        _write_into_core(tick, refs, [])
    with pytest.raises(ValueError, match="active \\(one per contact\\) must have 2 entries, got 1"):
        tick.core.set_references(
            np.zeros(3), np.zeros(3), np.zeros(3), [True], np.zeros(2), np.zeros(2), [False, False], np.zeros(2),
            np.zeros(2), [], [], np.zeros((0, 3)), np.zeros((0, 3)),
        )  # fmt: skip
    torso = tick.task_index["torso"]  # an orientation task: its target must be a rotation
    refs.com.position[:] = [0.5, 0.5, 0.5]
    refs.tasks = {"torso": TaskReference("torso", True, target=np.diag([1.0, 1.0, 1.001]))}
    with pytest.raises(ValueError, match=f"task {torso}: orientation target must be a 3x3 rotation matrix"):
        _write_into_core(tick, refs, [], ("torso",))
    refs.tasks = {"torso": TaskReference("torso", True, target=np.diag([-1.0, 1.0, 1.0]))}  # orthonormal, det -1
    with pytest.raises(ValueError, match="orientation target must be a 3x3 rotation matrix"):
        _write_into_core(tick, refs, [], ("torso",))
    with pytest.raises(ValueError, match="is not an orientation task"):
        tick.core.set_references(
            np.zeros(3), np.zeros(3), np.zeros(3), [True, True], np.zeros(2), np.full(2, 500.0), [False, False], np.zeros(2),
            np.zeros(2), [], [], np.zeros((0, 3)), np.zeros((0, 3)), [tick.task_index["posture"]], [True], np.eye(3),
        )  # fmt: skip
    after = tick.core.compute(q, v, s, s)
    assert before[0] == after[0] and before[2].tobytes() == after[2].tobytes()
