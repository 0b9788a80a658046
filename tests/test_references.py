"""wbc_layer.references: the per-physics-step references value and its one write into the controller.

The write must leave the controller exactly as the setters it replaces would (so the QP it solves
is the same bit for bit), and write nothing that did not change.
"""

from __future__ import annotations

import numpy as np
import pytest

from wbc_layer import FramePositionTask
from wbc_layer.contact_guard import ContactGuard, ContactGuardSettings
from wbc_layer.references import LinearRamp, MinJerkSegment, PointReference, References, min_jerk


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
