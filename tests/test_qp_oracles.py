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


CASES = [("hubo_lite", False), ("g1", False), ("hubo_lite", True)]


@pytest.mark.parametrize(("robot_name", "seesaw"), CASES, ids=["hubo_lite", "g1", "hubo_lite_seesaw"])
def test_each_constraint_piece_writes_its_formula(robot_name, seesaw):
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
        P, _, A, b, G, h = core.problem(True)
        n_eq, n_hot, n_in, blocks = core.row_layout
        assert A.shape[0] == n_eq and G.shape[0] == n_in
        robot.update(q, v)
        nv, na, nx, forces = robot.nv, robot.na, layout.nx, layout.forces
        Jc = np.zeros((layout.nf, nv))
        for c in contacts:
            if c.active:
                Jc[layout.force_in_block(c.name)] = c.jacobian(robot)

        def close(got, expected, what):
            scale = max(1.0, np.abs(expected).max(initial=0.0))
            assert np.abs(got - expected).max(initial=0.0) <= ROW_TOL * scale, what

        # Floating base: M_u qdd + h_u = J_c,u^T f.
        base = blocks[0]
        expected = np.zeros((6, nx))
        expected[:, :nv], expected[:, forces] = robot.M[:6], -Jc[:, :6].T
        close(A[base[0] : base[0] + 6], expected, "floating-base rows")
        close(b[base[0] : base[0] + 6], -robot.h[:6], "floating-base target")
        # Contacts: J qdd - J_s sdd = -Jdot v + Jdot_s s_dot - k_d (J v - J_s s_dot), or f = 0;
        # force rows G f <= h.
        for contact, (eq, n, first, m) in zip(contacts, blocks[1 : 1 + len(contacts)], strict=True):
            rows, target = np.zeros((n, nx)), np.zeros(n)
            if contact.active:
                J = contact.jacobian(robot)
                rows[:, :nv] = J
                target = -contact.drift(robot) - config.contact_damping * (J @ v)
                if contact.on_body is not None:
                    body, placement = controller.bodies[contact.on_body], robot.frame_placement(contact.frame)
                    J_s = body.frame_jacobian(placement)
                    rows[:, layout.body(body.name)] = -J_s
                    target += body.frame_drift(placement) + config.contact_damping * (J_s @ body.s_dot)
                G_force, h_force = contact.force_constraints(config.friction_facets)
                force_rows = np.zeros((m, nx))
                force_rows[:, layout.force(contact.name)] = G_force
                close(G[first : first + m], force_rows, f"{contact.name} force rows")
                close(h[first : first + m], h_force, f"{contact.name} force bounds")
            else:
                rows[:, layout.force(contact.name)] = np.eye(n)
                assert m == 0
            close(A[eq : eq + n], rows, f"{contact.name} rows")
            close(b[eq : eq + n], target, f"{contact.name} target")
        # Environment bodies: M_s sdd + h_s + sum_i J_s,i^T f_i = 0.
        for body, (eq, n, _, _) in zip(bodies, blocks[1 + len(contacts) : -2], strict=True):
            rows = np.zeros((n, nx))
            rows[:, layout.body(body.name)] = body.mass_matrix
            for c in contacts:
                if c.active and c.on_body == body.name:
                    rows[:, layout.force(c.name)] = body.frame_jacobian(robot.frame_placement(c.frame)).T
            close(A[eq : eq + n], rows, f"{body.name} rows")
            close(b[eq : eq + n], -body.bias, f"{body.name} target")
        # Joint limits: a_lo <= qdd_a <= a_hi, a from a constant-acceleration stop in T (or the
        # velocity limit), capped; written as +I, -I rows.
        first, m = blocks[-2][2], blocks[-2][3]
        T, qa, va = limits.horizon_s, q[7:], v[6:]
        hi = np.minimum((limits.upper - qa - 2 * T * va) / T**2, (limits.velocity - va) / T)
        lo = np.maximum((limits.lower - qa - 2 * T * va) / T**2, (-limits.velocity - va) / T)
        crossed = lo > hi
        lo[crossed] = hi[crossed] = 0.5 * (lo[crossed] + hi[crossed])
        hi, lo = np.clip(np.nan_to_num(hi, nan=1e6), -1e6, 1e6), np.clip(np.nan_to_num(lo, nan=-1e6), -1e6, 1e6)
        rows = np.zeros((2 * na, nx))
        rows[:na, nv - na : nv], rows[na:, nv - na : nv] = np.eye(na), -np.eye(na)
        assert m == 2 * na
        close(G[first : first + m], rows, "joint-limit rows")
        close(h[first : first + m], np.concatenate([hi, -lo]), "joint-limit bounds")
        # Torque limits: tau_min <= M_a qdd + h_a - J_c,a^T f <= tau_max.
        first, m = blocks[-1][2], blocks[-1][3]
        rows = np.zeros((na, nx))
        rows[:, :nv], rows[:, forces] = robot.M[6:], -Jc[:, 6:].T
        close(G[first : first + m], np.vstack([rows, -rows]), "torque rows")
        close(h[first : first + m], np.concatenate([robot.torque_max - robot.h[6:], robot.h[6:] - robot.torque_min]), "torque bounds")
        assert first + m == n_in and blocks[-2][2] == n_hot  # cold rows after the hot ones
        # The torques the core recovers from any x are those rows' middle term.
        x = rng.normal(size=nx)
        close(core.torques(x), rows @ x + robot.h[6:], "torque recovery")


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
    """The leg-clearance row ``g x <= h`` in numpy: n the stance sole's levelled y axis times side."""
    n = robot.frame_placement(piece.stance_frame).rotation[:, 1].copy()
    n[2] = 0.0
    n *= piece.side / np.linalg.norm(n)
    J = robot.frame_jacobian(piece.swing_frame, local=False)[:3] - robot.frame_jacobian(piece.stance_frame, local=False)[:3]
    a = robot.frame_drift(piece.swing_frame, local=False)[:3] - robot.frame_drift(piece.stance_frame, local=False)[:3]
    gap = robot.frame_placement(piece.swing_frame).translation - robot.frame_placement(piece.stance_frame).translation
    T = piece.horizon_s
    row = np.zeros(nx)
    row[: robot.nv] = -0.5 * T**2 * (n @ J)
    return row, float(n @ gap + T * (n @ J @ robot.v) + 0.5 * T**2 * (n @ a) - piece.min_distance_m)


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
