"""Each constraint piece of the compiled core, checked against its own oracle (and the one added
piece, the leg clearance, end to end).

The oracles are the readable statement of the formulation (``docs/qp.md``): for each piece
(``core/constraints.hpp``), the rows it writes into the block the core's row layout gives it equal
a short numpy expression of the same formula, built from the Python robot model; and the kinematic
terms those expressions use (contact Jacobians and drifts) equal finite differences of the frame
placements along the motion. Random states of both robots: base pose, joint angles within range,
velocities of ~1 rad/s, one contact switched off, a seesaw under the feet in one case.

Tolerances: the core and numpy compute the same expressions with other kernels and sum orders
(rounding, 1e-16 per operation, times entries of up to ~1e3 in M and h): ROW_TOL = 1e-9 of each
array's largest entry. Finite differences: central, step 1e-6 [rad, m] for Jacobians (truncation
~h^2 = 1e-12, rounding ~1e-16 / h = 1e-10) and 1e-4 s for drifts (truncation ~h^2 |J'''| ~1e-7
with velocities of ~1 rad/s): FD_TOL = 1e-6 [m/s^2, rad/s^2, per unit of v].
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pinocchio as pin
import pytest

from humanoid_env.robots import robot_description
from tests import oracles
from wbc_layer import ContactConfig, LegClearance, RobotModel, SeesawBody, WholeBodyController
from wbc_layer.joint_limits import JointLimits

ROW_TOL = 1e-9
FD_TOL = 1e-6
N_STATES = 4


def _random_state(robot: RobotModel, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    model = robot.model
    q = pin.neutral(model)
    q[:3] = rng.uniform(-0.2, 0.2, 3) + [0.0, 0.0, 0.8]
    quaternion = rng.normal(size=4)
    q[3:7] = quaternion / np.linalg.norm(quaternion)
    lower, upper = model.lowerPositionLimit[7:], model.upperPositionLimit[7:]
    q[7:] = rng.uniform(np.maximum(lower, -2.0), np.minimum(upper, 2.0))
    return q, rng.normal(0.0, 1.0, model.nv)


def _controller(robot_name: str, seesaw: bool):
    description = robot_description(robot_name)
    robot = RobotModel.from_mjcf(description.mjcf_path())
    config = description.controller_config(qp_solver="eiquadprog")
    contacts = list(config.contacts)
    bodies = []
    if seesaw:
        board = SeesawBody("board", 4.0, (0.0, 0.0, 0.2), np.diag([0.2, 0.05, 0.2]), 0.25, origin=(0.03, 0.0, -0.02))
        bodies, contacts = [board], [replace(c, on_body="board") for c in contacts]
    hand = robot_name == "hubo_lite" and not seesaw
    if hand:  # a point contact too, on the right hand
        contacts.append(ContactConfig("right_hand", "right_hand", kind="point", normal=(0.0, 1.0, 0.0)))
    controller = WholeBodyController(robot, config.with_overrides(contacts=tuple(contacts)), bodies=bodies)
    controller.set_contact_active(contacts[1].name, False)  # one contact off: its f = 0 rows
    return controller, robot, bodies


def _fd_twist(robot: RobotModel, q, frame: str, direction, h: float, local: bool) -> np.ndarray:
    """(6,) d/dε of the frame's placement along q ⊕ ε direction: local twist, or world-aligned."""
    fid = robot.frame_id(frame)
    model, data = robot.model, pin.Data(robot.model)

    def placement(eps):
        pin.framesForwardKinematics(model, data, pin.integrate(model, q, eps * direction))
        return data.oMf[fid].copy()

    plus, minus = placement(h), placement(-h)
    twist = pin.log6(minus.actInv(plus)).vector / (2 * h)  # in the frame at -h: ~ the frame at 0
    if local:
        return twist
    rotation = placement(0.0).rotation
    return np.concatenate([(plus.translation - minus.translation) / (2 * h), rotation @ twist[3:]])


def _fd_drift(robot: RobotModel, q, v, frame: str, h: float, local: bool) -> np.ndarray:
    """(6,) d/dt of the frame's local twist J(q(t)) v along q(t) = q ⊕ v t (local: its spatial
    acceleration in its own axes), or the second derivative of its world position (not local:
    the classical linear acceleration; angular part zero, unused)."""
    model, data, fid = robot.model, pin.Data(robot.model), robot.frame_id(frame)
    if local:
        def twist(t):
            pin.computeJointJacobians(model, data, pin.integrate(model, q, t * v))
            pin.updateFramePlacements(model, data)
            return pin.getFrameJacobian(model, data, fid, pin.LOCAL) @ v

        return (twist(h) - twist(-h)) / (2 * h)

    def position(t):
        pin.framesForwardKinematics(model, data, pin.integrate(model, q, t * v))
        return data.oMf[fid].translation.copy()

    return np.concatenate([(position(h) - 2 * position(0.0) + position(-h)) / h**2, np.zeros(3)])


def _equal(got: np.ndarray, expected: np.ndarray, what: str) -> None:
    scale = max(1.0, np.abs(expected).max(initial=0.0))
    assert got.shape == expected.shape and np.abs(got - expected).max(initial=0.0) <= ROW_TOL * scale, what


def _rows(arrays, block, expected, what: str, inequality: bool) -> None:
    """The core's rows of one piece (its block of A, b or of G, h) against the oracle's."""
    A, b, G, h = arrays
    start, n = (block[2], block[3]) if inequality else (block[0], block[1])
    M, r = (G, h) if inequality else (A, b)
    _equal(M[start : start + n], expected[0], f"{what} rows")
    _equal(r[start : start + n], expected[1], f"{what} bounds")


CASES = [("hubo_lite", False), ("g1", False), ("hubo_lite", True)]


@pytest.mark.parametrize(("robot_name", "seesaw"), CASES, ids=["hubo_lite", "g1", "hubo_lite_seesaw"])
def test_each_piece_writes_its_formula(robot_name, seesaw):
    """The core's QP equals tests/oracles.py's, block by block in the core's row layout: each
    constraint piece's rows and bounds, the tasks' cost (P, q), and the torque recovery."""
    controller, robot, bodies = _controller(robot_name, seesaw)
    core, layout, config = controller.compiled.core, controller.layout, controller.config
    contacts = list(controller.contacts.values())
    limits = JointLimits.from_model(robot.model, config.joint_limit_horizon_s)
    rng = np.random.default_rng(7)
    for _ in range(N_STATES):
        q, v = _random_state(robot, rng)
        s, s_dot = (np.array([0.1]), np.array([0.4])) if seesaw else (np.zeros(0), np.zeros(0))
        for body in bodies:
            body.update(s, s_dot)
        core.build(q, v, s, s_dot)
        P, q_cost, A, b, G, h = core.problem(True)
        n_eq, n_hot, n_in, blocks = core.row_layout
        assert A.shape[0] == n_eq and G.shape[0] == n_in
        robot.update(q, v)
        Jc = oracles.contact_jacobian(robot, layout, contacts)

        def rows(block, expected, what, inequality=False, arrays=(A, b, G, h)):
            _rows(arrays, block, expected, what, inequality)

        rows(blocks[0], oracles.floating_base_rows(robot, layout, Jc), "floating base")
        for contact, block in zip(contacts, blocks[1 : 1 + len(contacts)], strict=True):
            rows(block, oracles.contact_rows(robot, layout, contact, controller.bodies, config.contact_damping), contact.name)
            rows(block, oracles.force_rows(layout, contact, config.friction_facets), f"{contact.name} force", True)
        for body, block in zip(bodies, blocks[1 + len(contacts) : -2], strict=True):
            rows(block, oracles.body_rows(robot, layout, body, contacts), body.name)
        rows(blocks[-2], oracles.joint_limit_rows(robot, layout, limits), "joint limits", True)
        rows(blocks[-1], oracles.torque_rows(robot, layout, Jc), "torque limits", True)
        assert blocks[-2][2] == n_hot and blocks[-1][2] + blocks[-1][3] == n_in  # cold rows after the hot ones
        P_oracle, q_oracle = oracles.cost(robot, layout, controller.tasks.values())
        _equal(P, P_oracle, "cost P")
        _equal(q_cost, q_oracle, "cost q")
        x = rng.normal(size=layout.nx)
        _equal(core.torques(x), oracles.oracle_torques(controller, x), "torque recovery")


@pytest.mark.parametrize("robot_name", ["hubo_lite", "g1"])
def test_contact_jacobians_and_drifts_equal_finite_differences(robot_name):
    """What the contact rows are made of: a foot's LOCAL Jacobian is the derivative of its
    placement (as a local twist), a point's world-aligned one that of its position; the drifts
    Jdot v are the derivatives of J(q(t)) v along q(t) = q ⊕ v t (qdd = 0): a foot's spatial
    acceleration in its own axes, a point's classical (second derivative of its position)."""
    controller, robot, _ = _controller(robot_name, seesaw=False)
    rng = np.random.default_rng(3)
    for _ in range(N_STATES):
        q, v = _random_state(robot, rng)
        robot.update(q, v)
        direction = rng.normal(size=robot.nv)
        for contact in controller.contacts.values():
            local = contact.dim == 6
            J = robot.frame_jacobian(contact.frame, local=local)[: contact.dim]
            fd = _fd_twist(robot, q, contact.frame, direction, 1e-6, local)[: contact.dim]
            assert np.abs(J @ direction - fd).max() < FD_TOL * max(1.0, np.abs(fd).max()), contact.name
            fd_drift = _fd_drift(robot, q, v, contact.frame, 1e-4, local)
            drift = robot.frame_drift(contact.frame, local=local)[: contact.dim]
            assert np.abs(drift - fd_drift[: contact.dim]).max() < FD_TOL * max(1.0, np.abs(drift).max()), contact.name


def _clearance_oracle(robot: RobotModel, piece, nx: int) -> tuple[np.ndarray, float]:
    """The leg-clearance row ``g x <= h`` (tests/oracles.py), as a vector and a number."""
    layout = type("Layout", (), {"nx": nx})
    G, h = oracles.leg_clearance_row(robot, layout, piece)
    return G[0], float(h[0])


@pytest.mark.parametrize("robot_name", ["hubo_lite", "g1"])
def test_the_leg_clearance_row_is_its_formula_and_only_there_while_active(robot_name):
    controller, robot, _ = _controller(robot_name, seesaw=False)
    piece = LegClearance("clearance", "left_sole", "right_sole", side=1.0, min_distance_m=0.12, horizon_s=0.1)
    controller.add_constraint(piece)
    core, nx = controller.compiled.core, controller.layout.nx
    rng = np.random.default_rng(11)
    for _ in range(N_STATES):
        q, v = _random_state(robot, rng)
        core.build(q, v, np.zeros(0), np.zeros(0))
        _, _, _, _, G, h = core.problem(False)
        _, n_hot, _, blocks = core.row_layout
        eq, n_eq, first, m = blocks[-1]  # the added piece: one hot row, after the contacts'
        assert (n_eq, m, first + m) == (0, 1, n_hot)
        robot.update(q, v)
        row, bound = _clearance_oracle(robot, piece, nx)
        scale = max(1.0, np.abs(row).max())
        assert np.abs(G[first] - row).max() <= ROW_TOL * scale
        assert abs(h[first] - bound) <= ROW_TOL * max(1.0, abs(bound))
    piece.active = False
    core.build(q, v, np.zeros(0), np.zeros(0))
    assert core.row_layout[3][-1][3] == 0 and core.problem(False)[4].shape[0] == n_hot - 1


def test_the_leg_clearance_keeps_a_swing_foot_from_crossing(robot, bridge, mj_data):
    """The left foot lifted at home and pulled 10 cm to the right of the right sole (a task that
    would cross the legs): without the piece the solution's predicted lateral gap after the 0.1-s
    horizon is far below the 12 cm asked (the feet start 16 cm apart; -29 cm seen: crossed); with
    it, the gap is 12 cm to the solver's precision (1e-9 m): the row binds and stops the pull."""
    from humanoid_env.robots.hubo_lite import HUBO_LITE
    from wbc_layer import FramePositionTask

    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    target = robot.frame_placement("right_sole").translation + [0.0, -0.10, 0.05]
    gaps = {}
    for with_piece in (False, True):
        controller = WholeBodyController(robot, HUBO_LITE.controller_config(qp_solver="eiquadprog"))
        controller.set_contact_active("left_foot", False)
        pull = FramePositionTask("pull", 1e3, kp=400.0, kd=40.0, frame="left_sole")
        pull.set_reference(target)
        controller.add_task(pull)
        piece = LegClearance("clearance", "left_sole", "right_sole", side=1.0, min_distance_m=0.12, horizon_s=0.1)
        if with_piece:
            controller.add_constraint(piece)
        result = controller.compute(q, v)
        robot.update(q, v)
        row, bound = _clearance_oracle(robot, piece, controller.layout.nx)
        x = np.concatenate([result.qdd, *(result.contact_forces[c] for c in controller.contacts)])
        gaps[with_piece] = piece.min_distance_m + bound - row @ x  # the predicted gap [m]
    assert gaps[False] < 0.12 - 0.005
    assert abs(gaps[True] - 0.12) < 1e-9


def test_a_copied_controller_keeps_its_added_constraint(robot, bridge, mj_data):
    """deepcopy rebuilds the core from the Python objects, added pieces included: the copy's
    torques equal the original's bit for bit (eiquadprog), and the copy's piece is its own."""
    import copy

    from humanoid_env.robots.hubo_lite import HUBO_LITE

    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    controller = WholeBodyController(robot, HUBO_LITE.controller_config(qp_solver="eiquadprog"))
    controller.set_contact_active("left_foot", False)
    controller.com_task.set_reference(robot.com + [0.0, -0.05, 0.0])
    controller.add_constraint(LegClearance("clearance", "left_sole", "right_sole", min_distance_m=0.17))
    twin = copy.deepcopy(controller)
    assert np.array_equal(twin.compute(q, v).tau, controller.compute(q, v).tau)
    twin.constraints["clearance"].active = False
    assert controller.constraints["clearance"].active
    assert not np.array_equal(twin.compute(q, v).tau, controller.compute(q, v).tau)
