"""The compiled backend's boundary: what reaches the core, and the errors it gives."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from humanoid_env.robots.hubo_lite import HUBO_LITE
from tests import oracles
from wbc_layer import ComTask, ConfigError, Contact, SeesawBody, WholeBodyController, compiled

#: The core's torques and the oracle QP's agree to this on one tick [N m] (tests/test_oracle_agree.py).
TAU_TOL = 1e-6


def _compiled(robot, bridge, mj_data):
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    return WholeBodyController(robot, HUBO_LITE.controller_config(backend="compiled")), q, v


def test_every_setter_and_assignment_reaches_the_core(robot, bridge, mj_data):
    """Each change moves the compiled torques by > 100 x TAU_TOL and the Python reference on the
    same objects agrees with them afterwards: the change was written into the core."""
    controller, q, v = _compiled(robot, bridge, mj_data)
    changes = [
        lambda: controller.com_task.set_reference(robot.com + [0.02, 0.0, 0.0]),
        lambda: setattr(controller.com_task, "kp", 60.0),
        lambda: setattr(controller.task("torso"), "weight", 100.0),
        lambda: controller.posture_task.set_target(controller.posture_task.target + 0.1),
        lambda: controller.set_force_target("left_foot", 250.0, weight=1.0),
        lambda: controller.set_contact_active("right_foot", False),
    ]
    before = controller.compute(q, v).tau
    for change in changes:
        change()
        tau = controller.compute(q, v).tau
        reference = oracles.oracle_tau(controller)
        assert np.abs(tau - before).max() > 100 * TAU_TOL
        assert np.abs(tau - reference).max() < TAU_TOL
        before = tau


def test_body_rest_setters_reach_the_core(robot, bridge, mj_data):
    """The seesaw's rest task: its target setter and its gains (part of its data, unlike a motion
    task's) move the compiled torques, and the Python reference agrees after each change."""
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    sole_z = robot.frame_placement("left_sole").translation[2]
    board = SeesawBody("seesaw", 4.0, (0.0, 0.0, 0.2), np.diag([0.2, 0.05, 0.2]), 0.25, origin=(0.03, 0.0, sole_z - 0.02))
    contacts = tuple(replace(c, on_body="seesaw") for c in HUBO_LITE.controller_config().contacts)
    controller = WholeBodyController(robot, HUBO_LITE.controller_config(contacts=contacts), bodies=[board])
    rest = controller.task("rest_seesaw")
    states = {"seesaw": (np.array([0.05]), np.array([0.3]))}
    before = controller.compute(q, v, states).tau
    for change in (lambda: rest.set_target([0.1]), lambda: setattr(rest, "kp", 40.0), lambda: setattr(rest, "kd", 1.0)):
        change()
        tau = controller.compute(q, v, states).tau
        assert np.abs(tau - before).max() > 100 * TAU_TOL
        assert np.abs(tau - oracles.oracle_tau(controller)).max() < TAU_TOL
        before = tau


def test_a_task_class_the_core_does_not_know_runs_as_rows_computed_in_python(robot, bridge, mj_data):
    """A user's subclass (here a CoM task asking half the acceleration) is a rows task in the core:
    its rows come from Python each tick. The compiled torques move with it (by > 100 x TAU_TOL)
    and equal the Python reference's on the same objects; switched off, the task is gone."""

    @dataclass
    class SlowerCom(ComTask):
        def desired_acceleration(self, robot):
            return 0.5 * super().desired_acceleration(robot)

    controller, q, v = _compiled(robot, bridge, mj_data)
    without = controller.compute(q, v).tau
    slower = SlowerCom("slower_com", 100.0)
    slower.set_reference(robot.com + [0.03, 0.0, 0.0])
    controller.add_task(slower)
    tau = controller.compute(q, v).tau
    assert np.abs(tau - without).max() > 100 * TAU_TOL
    assert np.abs(tau - oracles.oracle_tau(controller)).max() < TAU_TOL
    slower.active = False
    assert np.abs(controller.compute(q, v).tau - without).max() < TAU_TOL


def test_a_rows_task_with_rows_that_do_not_fit_is_refused_by_name(robot, bridge, mj_data):
    """A user's residual() of the wrong width or with NaN: a ConfigError naming the task and
    the shapes, before the core is called (the core would refuse them too: test_controller_misuse)."""
    from wbc_layer import Task

    @dataclass
    class Broken(Task):
        rows: np.ndarray = None

        def residual(self, robot, layout):
            return self.rows, np.zeros(self.rows.shape[0])

    controller, q, v = _compiled(robot, bridge, mj_data)
    task = Broken("broken", rows=np.ones((2, 5)))
    controller.add_task(task)
    with pytest.raises(ConfigError, match=r"'broken': residual\(\)'s A must have shape \(m, \d+\), got \(2, 5\)"):
        controller.compute(q, v)
    task.rows = np.full((2, controller.layout.nx), np.nan)
    with pytest.raises(ConfigError, match=r"'broken': residual\(\)'s A must be finite"):
        controller.compute(q, v)


def test_a_missing_extension_gives_one_clear_error(robot, monkeypatch):
    monkeypatch.setattr(compiled, "_core", None)
    monkeypatch.setattr(compiled, "_IMPORT_ERROR", ImportError("No module named 'wbc_layer._core'"))
    with pytest.raises(ConfigError, match=r"not built.*C\+\+17 compiler.*only controller"):
        WholeBodyController(robot, HUBO_LITE.controller_config())


def test_the_retired_python_backend_and_an_unknown_one_are_refused_by_name():
    with pytest.raises(ConfigError, match=r"backend='python' \(the Python reference tick\) was retired.*oracles"):
        HUBO_LITE.controller_config(backend="python")
    with pytest.raises(ConfigError, match=r"backend must be one of \('compiled',\), got 'cuda'"):
        HUBO_LITE.controller_config(backend="cuda")


@dataclass
class FrictionlessPoint(Contact):
    """A contact model of the user's: a frictionless point pushing along a world normal, one force
    coordinate (the normal force, min <= f <= max) [N]."""

    normal: tuple = (0.0, 1.0, 0.0)
    dim = 1

    def jacobian(self, robot):
        return np.asarray(self.normal)[None, :] @ robot.frame_jacobian(self.frame, local=False)[:3]

    def drift(self, robot):
        return np.array([np.asarray(self.normal) @ robot.frame_drift(self.frame, local=False)[:3]])

    def _build_force_constraints(self, n_facets):
        return np.array([[-1.0], [1.0]]), np.array([-self.min_normal_force, self.max_normal_force])

    def normal_row(self):
        return np.array([1.0])

    def world_force(self, robot, force):
        return np.asarray(self.normal) * force[0]


def _with_hand(robot, bridge, mj_data, backend: str, hand):
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    config = HUBO_LITE.controller_config(backend=backend, qp_solver="eiquadprog")
    controller = WholeBodyController(robot, config, extra_contacts=[hand])
    controller.set_force_target(hand.name, 20.0, weight=1.0)
    return controller, q, v


def test_a_contact_class_of_the_users_runs_on_the_compiled_backend(robot, bridge, mj_data):
    """A user contact: its Jacobian and drift come from Python each tick. (1) A subclass of the
    built-in PointContact takes that path and gives the built-in contact's torques (1e-9 N m: the
    same rows, computed by pinocchio in Python instead of C++); (2) a contact model the core has no
    piece for (one force coordinate) gives the oracle QP's torques (1e-8 N m, both exact:
    tests/test_oracle_agree.py's tolerance) and holds the asked 20 N."""
    from wbc_layer import PointContact

    class MyPoint(PointContact):
        pass

    common = dict(frame="right_hand", normal=(0.0, 1.0, 0.0), friction_coefficient=0.5, max_normal_force=200.0)
    built_in, q, v = _with_hand(robot, bridge, mj_data, "compiled", PointContact("hand", **common))
    users, _, _ = _with_hand(robot, bridge, mj_data, "compiled", MyPoint("hand", **common))
    assert users.compiled._user_contacts and not built_in.compiled._user_contacts
    assert np.abs(users.compute(q, v).tau - built_in.compute(q, v).tau).max() < 1e-9
    controller = _with_hand(robot, bridge, mj_data, "compiled", FrictionlessPoint("hand", "right_hand", max_normal_force=200.0))[0]
    result = controller.compute(q, v)
    assert np.abs(result.tau - oracles.oracle_tau(controller)).max() < 1e-8
    assert result.contact_forces["hand"][0] == pytest.approx(20.0, abs=0.5)


def test_an_environment_body_class_of_the_users_runs_on_the_compiled_backend(robot, bridge, mj_data):
    """A user body: its mass matrix, bias, and Jacobian and drift at each contact come from Python
    each tick. A subclass of the seesaw takes that path (the built-in one runs in C++) and gives
    the built-in seesaw's torques, board acceleration and forces to 1e-9 (N m, rad/s^2, N: the same
    formula in Python and in C++), on tilted, rolling boards with the rest task on."""

    class MySeesaw(SeesawBody):
        pass

    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    robot.update(q, v)
    sole_z = robot.frame_placement("left_sole").translation[2]
    contacts = tuple(replace(c, on_body="seesaw") for c in HUBO_LITE.controller_config().contacts)
    results = []
    for cls in (SeesawBody, MySeesaw):
        board = cls("seesaw", 4.0, (0.0, 0.0, 0.2), np.diag([0.2, 0.05, 0.2]), 0.25, origin=(0.03, 0.0, sole_z - 0.02))
        controller = WholeBodyController(robot, HUBO_LITE.controller_config(contacts=contacts, qp_solver="eiquadprog"), bodies=[board])
        assert bool(controller.compiled._user_bodies) == (cls is MySeesaw)
        results.append([controller.compute(q, v, {"seesaw": (np.array([s]), np.array([sd]))}) for s, sd in ((0.05, 0.3), (-0.1, -0.5))])
    for built_in, users in zip(*results, strict=True):
        assert np.abs(built_in.tau - users.tau).max() < 1e-9
        assert np.abs(built_in.body_accelerations["seesaw"] - users.body_accelerations["seesaw"]).max() < 1e-9
        for name in built_in.contact_forces:
            assert np.abs(built_in.contact_forces[name] - users.contact_forces[name]).max() < 1e-9


def test_user_contacts_and_bodies_with_values_that_do_not_fit_are_refused_by_name(robot, bridge, mj_data):
    """A user contact's Jacobian of the wrong shape, a user body's mass matrix with NaN: a
    ConfigError naming the object and the value, before the core is called."""

    class BadJacobian(FrictionlessPoint):
        def jacobian(self, robot):
            return np.zeros((2, robot.nv))

    controller, q, v = _with_hand(robot, bridge, mj_data, "compiled", BadJacobian("hand", "right_hand"))
    with pytest.raises(ConfigError, match=r"contact 'hand': jacobian\(\) must have shape \(1, \d+\), got \(2, \d+\)"):
        controller.compute(q, v)

    class NanSeesaw(SeesawBody):
        @property
        def mass_matrix(self):
            return np.full((1, 1), np.nan)

    sole_z = robot.frame_placement("left_sole").translation[2]
    board = NanSeesaw("seesaw", 4.0, (0.0, 0.0, 0.2), np.diag([0.2, 0.05, 0.2]), 0.25, origin=(0.03, 0.0, sole_z - 0.02))
    contacts = tuple(replace(c, on_body="seesaw") for c in HUBO_LITE.controller_config().contacts)
    controller = WholeBodyController(robot, HUBO_LITE.controller_config(contacts=contacts), bodies=[board])
    with pytest.raises(ConfigError, match=r"environment body 'seesaw': mass_matrix must be finite"):
        controller.compute(q, v, {"seesaw": (np.zeros(1), np.zeros(1))})


def test_the_core_is_built_from_a_description_of_plain_data(controller):
    """The compiled core's structure comes from wbc_layer.problem.describe: plain data (no task,
    contact or controller object in it), picklable, naming each contact's kind, frame index and
    normal-bound rows, and each task's kind in the controller's order."""
    import dataclasses
    import pickle

    from wbc_layer.problem import describe

    description = describe(controller)

    def plain(value) -> bool:
        if dataclasses.is_dataclass(value):
            return all(plain(getattr(value, f.name)) for f in dataclasses.fields(value))
        if isinstance(value, (tuple, list)):
            return all(plain(item) for item in value)
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(item) for k, item in value.items())
        return value is None or isinstance(value, (str, int, float, np.ndarray))

    assert plain(description)
    copy = pickle.loads(pickle.dumps(description))
    assert [c.name for c in copy.contacts] == list(controller.contacts)
    assert [t.name for t in copy.tasks] == list(controller.tasks)
    facets = controller.config.friction_facets
    for entry, contact in zip(copy.contacts, controller.contacts.values(), strict=True):
        G, h = contact.force_constraints(facets)
        low, high = entry.normal_bound_rows
        assert h[low] == -contact.min_normal_force and h[high] == contact.max_normal_force
        assert entry.frame == controller.robot.frame_id(contact.frame) and entry.kind == "foot"
    assert controller.compiled.description.tasks == copy.tasks
