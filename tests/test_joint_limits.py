"""Joint limits in the QP (``ControllerConfig.joint_limit_horizon_s``, :mod:`wbc_layer.joint_limits`):
the bounds' formula, a joint driven past its range end in closed loop, and the hot path untouched
while no joint is near an end."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from benchmarks.fingerprints import run_case
from benchmarks.solve_order import BothOrders
from humanoid_env.robots.hubo_lite import HUBO_LITE
from humanoid_env.wbc_sim import WBCSimulation
from tests import oracles
from wbc_layer.joint_limits import ACCELERATION_CAP, JointLimits


def test_bounds_are_a_critically_damped_approach_and_finite():
    T = 0.05
    limits = JointLimits(np.array([-1.0, -np.inf, -1.0]), np.array([0.0, np.inf, 1.0]), np.array([np.inf, np.inf, 2.0]), T)
    q, v = np.array([-0.1, 5.0, 0.99]), np.array([0.5, 0.0, 3.0])
    lo, hi = limits.acceleration_bounds(q, v)
    # joint 0: (q_hi - q - 2 v T) / T^2 = (0.1 - 0.05) / 0.0025 = 20 rad/s^2 above, (-0.9 - 0.05) / T^2 below
    assert hi[0] == pytest.approx(20.0, rel=1e-12) and lo[0] == pytest.approx(-380.0, rel=1e-12)
    # joint 1: no limit behind either bound: written as the finite cap
    assert (lo[1], hi[1]) == (-ACCELERATION_CAP, ACCELERATION_CAP)
    # joint 2: past its velocity limit (3 > 2 rad/s) near its range end: the position bound
    # (0.01 - 0.3) / T^2 = -116 is below the velocity's lower bound (-2 - 3) / T = -100, so both
    # bounds become their midpoint -108 rad/s^2
    assert lo[2] == hi[2] == pytest.approx(-108.0, rel=1e-12)


def _drive_elbow_past_its_range(backend: str, horizon_s: float, steps: int = 500) -> tuple[float, float]:
    """The left elbow's posture target at +0.5 rad, 0.5 rad beyond its range end (0): returns the
    largest elbow angle [rad] and the largest force of MuJoCo's joint-limit constraint [N m]."""
    sim = WBCSimulation(config=HUBO_LITE.controller_config(backend=backend, joint_limit_horizon_s=horizon_s))
    j = sim.robot.joint_names.index("left_elbow")
    q, _ = sim.state()
    target = q[7:].copy()
    target[j] = 0.5
    sim.controller.posture_task.set_target(target)
    joint = mujoco.mj_name2id(sim.model, mujoco.mjtObj.mjOBJ_JOINT, "left_elbow")
    q_max, force_max = -np.inf, 0.0
    for _ in range(steps):
        sim.step()
        q_max = max(q_max, sim.state()[0][7 + j])
        d = sim.data
        on_elbow = (d.efc_type[: d.nefc] == mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT) & (d.efc_id[: d.nefc] == joint)
        force_max = max(force_max, float(np.abs(d.efc_force[: d.nefc][on_elbow]).max(initial=0.0)))
    assert sim.fallbacks == 0
    return q_max, force_max


def test_a_joint_driven_past_its_range_end_stops_at_it(backend):
    """With the rows, the elbow approaches its end (0 rad) without crossing it (1e-5 rad: the
    discrete steps), so MuJoCo's own limit never pushes (< 0.01 N m); without them the posture
    task drives it 14 mrad into MuJoCo's soft limit, which pushes back with about 3 N m."""
    q_max, force = _drive_elbow_past_its_range(backend, horizon_s=0.05)  # opt-in: the default is 0
    assert q_max <= 1e-5 and force < 0.01
    q_max, force = _drive_elbow_past_its_range(backend, horizon_s=0.0)
    assert q_max > 5e-3 and force > 1.0


def test_standing_far_from_every_range_end_the_rows_change_nothing(backend):
    """The rows only enter when a hot solution breaks one (none does standing at home): the same
    torques bit for bit with and without joint limits (the default exact solver), and the full
    problem holds 2 na more rows."""
    results = {}
    for horizon in (0.05, 0.0):
        sim = WBCSimulation(config=HUBO_LITE.controller_config(backend=backend, joint_limit_horizon_s=horizon))
        for _ in range(100):
            sim.step()
        results[horizon] = (sim.state(), sim.controller.last_problem.G.shape[0])
    (state_on, rows_on), (state_off, rows_off) = results[0.05], results[0.0]
    assert np.array_equal(state_on[0], state_off[0]) and np.array_equal(state_on[1], state_off[1])
    assert rows_on - rows_off == 2 * 23


def test_the_core_builds_and_solves_the_oracles_rows_at_a_range_end():
    """Ticks of the controller with the elbow held at its range end (its joint-limit row active)
    against the oracle QP on the same state (tests/oracles.py): the same QP, joint rows included (to
    1e-11 relative), and the same torques (1e-8 N m: both solves exact)."""
    sim = WBCSimulation(config=HUBO_LITE.controller_config(joint_limit_horizon_s=0.05))
    controller = sim.controller
    j = sim.robot.joint_names.index("left_elbow")
    q, _ = sim.state()
    target = q[7:].copy()
    target[j] = 0.5
    controller.posture_task.set_target(target)
    for _ in range(200):  # the elbow reaches its end (0 rad) and stays there
        sim.step()
    active = 0
    for _ in range(20):
        q, v = sim.state()
        result = controller.compute(q, v)
        compiled = controller.compiled.problem()
        oracle, _ = oracles.oracle_qp(controller)
        for name in ("P", "q", "A", "b", "G", "h"):
            a, b = getattr(compiled, name), getattr(oracle, name)
            assert a.shape == b.shape and np.abs(a - b).max() <= 1e-11 * max(np.abs(b).max(), 1.0), name
        assert np.abs(result.tau - oracles.oracle_tau(controller)).max() < 1e-8  # [N m]
        upper = compiled.G[:, 6 + j] == 1.0  # the elbow's upper joint-limit row
        x = np.concatenate([result.qdd, *result.contact_forces.values()])
        active += int(abs(compiled.h[upper][0] - compiled.G[upper][0] @ x) < 1e-9)
        sim.step()
    assert active > 0  # the comparison covered the row while it was active


def test_after_a_tick_at_a_limit_the_next_solves_with_the_limit_rows_at_once():
    """A tick whose optimum has a joint- or torque-limit row active makes the core solve the next
    one with those rows at once (one solve instead of a hot solve and a second one: such ticks
    come in runs, e.g. a swing leg at its limits). It is the same optimum: at each of 500 ticks of
    the elbow driven past its range end, the same tick solved the other way gives torques within
    1e-8 N m (eiquadprog, exact; only rounding differs). The shortcut is taken on most of those
    ticks (the elbow rests at its end), and standing far from every end never."""
    sim = WBCSimulation(config=HUBO_LITE.controller_config(joint_limit_horizon_s=0.05))
    core = sim.controller.compiled.core
    j = sim.robot.joint_names.index("left_elbow")
    q, _ = sim.state()
    standing = []
    for _ in range(50):
        standing.append(core.cold_rows_first)
        sim.step()
    assert not any(standing)
    target = q[7:].copy()
    target[j] = 0.5
    sim.controller.posture_task.set_target(target)
    shortcut, worst = 0, 0.0
    for _ in range(500):
        first = core.cold_rows_first
        q, v = sim.state()
        status, _, tau, *_ = core.compute(q, v, np.zeros(0), np.zeros(0))
        core.cold_rows_first = not first  # the same tick, solved the other way
        other_status, _, other_tau, *_ = core.compute(q, v, np.zeros(0), np.zeros(0))
        core.cold_rows_first = first
        assert status == other_status == "solved"
        worst = max(worst, float(np.abs(tau - other_tau).max()))
        shortcut += first
        sim.step()
    assert worst < 1e-8, worst
    assert shortcut > 250, shortcut


def test_both_solve_orders_give_the_same_torques_through_a_random_g1_wall_rollout():
    """In an env's own rollout (the G1 at the wall under random wbc actions: its knees and arms reach
    their limits often), each tick solved in the order the env used and in the other one gives the
    same torques to within 1e-9 N m (the issue-36 bar for "the same controller"; eiquadprog is
    exact, so only rounding differs: ~1e-11 measured), and the shortcut is taken on some ticks."""
    with BothOrders() as probe:
        run_case("HumanoidWBCWall-v0", {"robot": "g1", "action_mode": "wbc"}, 100)
    assert len(probe.differences) >= 1000  # 100 env steps of 10 ticks, resets included
    assert probe.shortcuts > 0
    assert max(probe.differences) < 1e-9, max(probe.differences)
