"""The walking MPC in the compiled core (``wbc_layer._core.WalkingMpc``, behind
``wbc_layer.walking.CoMPlanner.plan``) against the numpy formulation it replaced, and its refusals.

The reference is the numpy assembly the planner ran up to the walk env's seventh revision (the
same cost, constraints and solver; ``benchmarks.walking_mpc.numpy_plan``, which times the two
side by side): the core must find the same plans on the problems a walk poses, to round-off."""

import math

import numpy as np
import pytest

from benchmarks.walking_mpc import numpy_plan
from tests.test_walking import DT, _ideal_forces, _ideal_plant_step, _standing_generator
from wbc_layer.stepping import _edges
from wbc_layer.walking import CoMPlanner, GaitSettings, WalkCommand


def _recorded_problems(gait: GaitSettings, command: WalkCommand, kick_mps: float) -> list[tuple]:
    """The MPC problems (the planner's inputs, copied) of 3 s of walking ``command`` in the ideal
    plant (``test_walking``'s), the CoM kicked sideways by ``kick_mps`` at 2 s."""
    g, feet, yaw = _standing_generator(gait)
    g.set_command(command)
    problems, plan = [], g.planner.plan

    def recording_plan(t0, state, holds, samples, reach, cop_half_sizes, velocity_ref=None, initial_support=None):
        copied = [type(h)(h.position.copy(), h.yaw, h.variable, h.anchor, h.offset) for h in holds]
        problems.append((state.copy(), copied, list(samples), reach, cop_half_sizes, velocity_ref, initial_support))
        return plan(t0, state, holds, samples, reach, cop_half_sizes, velocity_ref, initial_support)

    g.planner.plan = recording_plan
    c, v = np.zeros(2), np.zeros(2)
    for k in range(int(round(3.0 / DT))):
        t = k * DT
        if k == int(round(2.0 / DT)):
            v = v + np.array([0.0, kick_mps])
        out = g.update(t, c, v, feet, yaw, _ideal_forces(g, t))
        c, v = _ideal_plant_step(g, out, c, v, feet, yaw)
    return problems


@pytest.mark.parametrize(
    "gait, command, kick_mps",
    [
        (GaitSettings(), WalkCommand(0.3, 0.0, 0.0), 0.2),  # the defaults: a free CoP now within 0.2 m of its support
        (GaitSettings(free_acceleration_weight=None, footstep_weight=None), WalkCommand(0.2, 0.1, 0.3), 0.0),  # Wieber's form
        (GaitSettings(free_acceleration_weight=None), WalkCommand(0.2, 0.0, 0.0), 0.2),  # the plan's acceleration, a variable landing
        (GaitSettings(initial_cop_margin_m=0.02, cop_inset_share=0.6, lift_off_holds_s=(0.1, 0.2, 0.3)),
         WalkCommand(0.2, 0.0, -0.3), 0.3),  # Hubo-lite's sixth revision, a kick the margin binds on
        (GaitSettings(initial_cop_margin_m=None, velocity_weight=0.1), WalkCommand(-0.1, -0.1, 0.0), -0.2),  # the CoP now anywhere
    ],
)  # fmt: skip
def test_the_core_mpc_finds_the_numpy_formulations_plans(gait, command, kick_mps):
    """On every re-plan of 3 s of walking in the ideal plant (kicked sideways at 2 s), each gait
    form the settings allow: the core's plan equals the numpy reference's to round-off: the CoPs,
    landings and state to 1e-9 m (the core sums in another order: 1e-13 m measured; a wrong row or
    weight shows in millimetres), the cost to 1e-9 relative, the jerk to 1e-9 of its size."""
    problems = _recorded_problems(gait, command, kick_mps)
    assert len(problems) >= 0.9 * 3.0 / gait.replan_s
    planner = CoMPlanner(0.585, gait)
    for state, holds, samples, reach, half, velocity_ref, initial in problems:
        status, cost, positions, jerk, cop, plan_state = numpy_plan(planner, state, holds, samples, reach, half, velocity_ref, initial)
        core = planner.plan(0.0, state, holds, samples, reach, half, velocity_ref, initial)
        assert core.status == status
        assert np.abs(core.cop - cop).max() < 1e-9
        assert np.abs(np.array([h.position for h in holds]) - positions).max() < 1e-9
        assert np.abs(core.state - plan_state).max() < 1e-9
        assert np.abs(core.jerk - jerk).max() < 1e-9 * max(1.0, np.abs(jerk).max())
        assert math.isclose(core.cost, cost, rel_tol=1e-9, abs_tol=1e-12)


def _mpc_problem() -> tuple[object, list]:
    """The core's MPC and the arguments of one well-formed problem (two fixed holds, one variable
    landing with its reach, the horizon in double support on the fixed pair)."""
    planner = CoMPlanner(0.585, GaitSettings(free_acceleration_weight=None))
    N = planner.gait.horizon
    square = np.array([[-0.1, -0.1], [0.1, -0.1], [0.1, 0.1], [-0.1, 0.1]])
    normals, offsets = _edges(square)
    args = [
        np.zeros((3, 2)), 0.09, 0.05,  # state, the CoP box's half sizes
        np.array([[0.0, 0.1], [0.0, -0.1], [0.05, -0.05]]), np.zeros(3),  # hold positions, yaws
        np.array([0, 0, 1], dtype=np.int32), np.full(3, -1, dtype=np.int32), np.zeros((3, 2)),  # variable, anchors, offsets
        np.zeros((N, 2)), np.tile(np.array([[0, 1, -1]], dtype=np.int32), (N, 1)), np.tile([0.5, 0.5, 0.0], (N, 1)),
        np.zeros(N), np.tile(np.array([[0, 1]], dtype=np.int32), (N, 1)), np.zeros((N, 2)),  # yaws, pairs, insets
        np.array([2], dtype=np.int32), np.array([1], dtype=np.int32), np.array([4], dtype=np.int32), normals, offsets,
        np.zeros((0, 2)),  # no velocity term
    ]  # fmt: skip
    return planner._mpc, args


def test_the_core_mpc_solves_a_well_formed_problem():
    """The problem the refusals below break, solved: standing on two soles with the CoM between
    them, the plan keeps it there (no jerk) and leaves the landing at its reference, inside its
    reach (the 0.2-m square around the right sole); a reference outside it lands on its edge."""
    mpc, args = _mpc_problem()
    status, cost, positions, jerk, cop, state = mpc.solve(*args)
    assert status == "solved"
    assert np.abs(jerk).max() < 1e-9 and np.abs(cop).max() < 1e-9
    assert np.abs(positions - args[3]).max() < 1e-9
    args[3] = np.array([[0.0, 0.1], [0.0, -0.1], [0.2, 0.1]])  # 0.1 m beyond the square's corner, in x and in y
    positions = mpc.solve(*args)[2]
    assert np.abs(positions[2] - [0.1, 0.0]).max() < 1e-9


@pytest.mark.parametrize(
    "index, bad, error, match",
    [
        (0, np.zeros((2, 2)), ValueError, r"state must have shape \(3, 2\)"),
        (0, np.full((3, 2), np.nan), ValueError, "state must be finite"),
        (1, -0.1, ValueError, "cop_half_length must be finite and >= 0"),
        (4, np.zeros(2), ValueError, r"hold_position must have shape \(2, 2\)"),
        (6, np.array([0, 0, 2], dtype=np.int32), ValueError, "hold_anchor must name a variable hold"),
        (6, np.array([-1, 7, -1], dtype=np.int32), IndexError, r"hold_anchor index must be in \[0, 3\)"),
        (9, np.full((16, 3), 3, dtype=np.int32), IndexError, r"term_hold index must be in \[0, 3\)"),
        (12, np.tile(np.array([[0, -1]], dtype=np.int32), (16, 1)), ValueError, "sample_pair must name two holds or none"),
        (14, np.array([0], dtype=np.int32), ValueError, "reach_hold must name a variable hold"),
        (15, np.array([5], dtype=np.int32), IndexError, r"reach_parent index must be in \[0, 3\)"),
        (16, np.array([5], dtype=np.int32), ValueError, r"reach_normals must have shape \(5, 2\)"),
        (19, np.zeros((3, 2)), ValueError, r"velocity_ref must have shape \(16, 2\)"),
    ],
)  # fmt: skip
def test_the_core_mpc_refuses_a_malformed_problem(index, bad, error, match):
    """Wrong shapes, indices out of range, anchors and reach regions on fixed holds and non-finite
    numbers are refused with the argument's name, before the core reads them."""
    mpc, args = _mpc_problem()
    args[index] = bad
    with pytest.raises(error, match=match):
        mpc.solve(*args)


@pytest.mark.parametrize(
    "index, bad, match",
    [
        (5, 0.0, "jerk_weight must be > 0"),
        (6, 0.0, "footstep_weight must be > 0"),
        (8, 0.0, r"free_acceleration_weight must be > 0 \(or < 0: none\)"),
        (8, math.inf, "must be finite"),
        (0, np.zeros((15, 3)), r"Pzs's rows \(N\) must have 16 entries, got 15"),
    ],
)  # fmt: skip
def test_the_core_mpc_refuses_settings_that_leave_a_variable_unweighed(index, bad, match):
    """Every decision variable needs a positive weight (else the QP's Hessian is singular and the
    solve's fallback has no unique answer); the prediction matrices must fit the horizon."""
    from wbc_layer import _core

    planner = CoMPlanner(0.585, GaitSettings())
    args = [planner.Pzs, planner.Pzu, planner.Pvs, planner.Pvu, planner.zeta, 1e-6, 10.0, 0.05, 0.1, 0.2]
    _core.WalkingMpc(*args)  # (well formed)
    args[index] = bad
    with pytest.raises(ValueError, match=match):
        _core.WalkingMpc(*args)
