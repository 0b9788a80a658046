"""PlaCo's side of ``benchmarks.placo_g1``: a ``DynamicsSolver`` for the G1, timed per tick.

Runs in ``.venv-placo`` (``make placo-venv``: PlaCo 0.10.2 pins ``pin==3.8.0``; ours is 4.1.0),
started by ``benchmarks.placo_g1``; it reads messages on stdin and answers on stdout
(:mod:`worker_protocol`). Nothing here imports the project: the robot (a URDF text) and the
problem's settings arrive in the ``setup`` message. Commands (field ``cmd``):

- ``setup``: builds ``placo.RobotWrapper`` from the URDF text and the solver (below); answers
  with the versions, the joint order, the total mass and the effort limits.
- ``model``: ``q`` (k, nq), ``v`` (k, nv) -> PlaCo's mass matrix ``M`` (k, nv, nv), bias forces
  ``h`` (k, nv), CoM ``com`` (k, 3), and the placement (k, 4, 4) of each frame in ``frames``.
- ``solve``: one tick at ``q``, ``v``, ``extra_force`` -> ``tau`` (nv,), ``qdd``, each contact's
  ``wrench_<frame>`` (6,) in the contact frame, ``success``.
- ``time``: ``q`` (n, nq), ``v`` (n, nv), ``extra_force`` (n, nv) -> ``times_us`` (n,),
  ``parts_us`` (n, 4: setting the state, ``update_kinematics``, ``solve``, reading ``tau``),
  ``tau`` (n, nv), ``wrenches`` (n, contacts, 6: read after the clock), ``success`` (n,): each
  tick timed alone (below).
- ``quit``.

An error answers ``{"error": traceback}`` and the worker goes on.

The problem (``setup``'s ``problem`` field; the controller's settings, see ``placo_g1``):
a ``DynamicsSolver`` with a free floating base; per foot a frame task (hard, ``kp`` 0, ``kd`` the
controller's contact damping: the sole's acceleration is ``-kd`` times its velocity, as our
contact rows) carrying a planar contact (``length`` x ``width`` CoP rectangle, friction ``mu``,
``weight_forces``/``weight_moments`` regularising the wrench); a CoM task, a joints task to
the home posture, an orientation task on the torso frame (soft, with weights and PD gains);
torque limits from the URDF's efforts; ``torque_cost`` on the actuated torques.

One timed tick (``time``), as PlaCo's examples run it: set ``robot.state.q`` and ``.qd`` and
``solver.extra_force`` (the joints' viscous damping ``D v``, which our model's bias forces
hold), ``robot.update_kinematics()`` (placements, Jacobians and their time variation),
``solver.solve(False)`` (tasks and contacts update, the mass matrix and non-linear effects,
the QP built and solved, torques out) and reading ``result.tau``; ``time.perf_counter`` around
those calls only.
"""

from __future__ import annotations

import sys
import time
from importlib import metadata

import numpy as np
import placo
from worker_protocol import serve


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


class PlacoG1:
    """The robot and the solver, built once from ``setup``'s fields."""

    def __init__(self, urdf: str, model_directory: str, rotor_inertia: dict[str, float], problem: dict):
        # NOTE: the URDF text has no visual or collision geometry; ignore_collisions skips the
        # collision model anyway (PlaCo would otherwise load meshes for self-collisions).
        self.robot = robot = placo.RobotWrapper(model_directory, placo.Flags.ignore_collisions, urdf)
        for joint, inertia in rotor_inertia.items():
            robot.set_rotor_inertia(joint, float(inertia))  # apparent inertia on M's diagonal (gear ratio 1)
        robot.update_kinematics()
        self.solver = solver = placo.DynamicsSolver(robot)
        solver.mask_fbase(False)  # the floating base is free: its 6 rows are the Newton-Euler equations
        self.contacts = {}
        for contact in problem["contacts"]:
            frame = contact["frame"]
            task = solver.add_frame_task(frame, robot.get_T_world_frame(frame))
            task.configure(frame, "hard", 1.0, 1.0)
            for part in (task.position(), task.orientation()):
                part.kp = 0.0  # no position feedback: only the sole's velocity is braked
                part.kd = float(contact["kd"])
            planar = solver.add_planar_contact(task)
            planar.length = float(contact["length"])
            planar.width = float(contact["width"])
            planar.mu = float(contact["mu"])
            planar.weight_forces = float(contact["weight_forces"])
            planar.weight_moments = float(contact["weight_moments"])
            self.contacts[frame] = planar
        com = problem["com"]
        self.com_task = solver.add_com_task(np.asarray(com["target"], dtype=float))
        self._gains(self.com_task, com, "com")
        posture = problem["posture"]
        self.joints_task = solver.add_joints_task()
        self.joints_task.set_joints({name: float(value) for name, value in posture["targets"].items()})
        self._gains(self.joints_task, posture, "posture")
        torso = problem["torso"]
        self.torso_task = solver.add_orientation_task(
            torso["frame"], np.asarray(torso["target"], dtype=float)
        )
        self._gains(self.torso_task, torso, "torso")
        solver.enable_torque_limits(bool(problem["torque_limits"]))
        solver.torque_cost = float(problem["torque_cost"])

    @staticmethod
    def _gains(task, settings: dict, name: str) -> None:
        task.configure(name, "soft", float(settings["weight"]))
        task.kp = float(settings["kp"])
        task.kd = float(settings["kd"])

    def describe(self) -> dict:
        robot = self.robot
        model = robot.model
        return {
            "placo": _version("placo"),
            "pin": _version("pin"),
            "numpy": _version("numpy"),
            "python": sys.version.split()[0],
            "joint_names": list(robot.joint_names()),
            "nq": int(model.nq),
            "nv": int(model.nv),
            "total_mass": float(robot.total_mass()),
            "effort_limit": np.asarray(model.effortLimit, dtype=float).copy(),
        }

    def set_state(self, q: np.ndarray, v: np.ndarray, extra_force: np.ndarray | None = None) -> None:
        self.robot.state.q = q
        self.robot.state.qd = v
        if extra_force is not None:
            self.solver.extra_force = extra_force
        self.robot.update_kinematics()

    def model_terms(self, Q: np.ndarray, V: np.ndarray, frames: list[str]) -> dict:
        n, nv = len(Q), self.robot.model.nv
        out = {"M": np.empty((n, nv, nv)), "h": np.empty((n, nv)), "com": np.empty((n, 3))}
        out.update({f"frame_{name}": np.empty((n, 4, 4)) for name in frames})
        for k in range(n):
            self.set_state(Q[k], V[k])
            out["M"][k] = self.robot.mass_matrix()
            out["h"][k] = self.robot.non_linear_effects()
            out["com"][k] = self.robot.com_world()
            for name in frames:
                out[f"frame_{name}"][k] = self.robot.get_T_world_frame(name)
        return out

    def solve(self, q: np.ndarray, v: np.ndarray, extra_force: np.ndarray) -> dict:
        self.set_state(q, v, extra_force)
        result = self.solver.solve(False)
        out = {"success": bool(result.success), "tau": np.array(result.tau), "qdd": np.array(result.qdd)}
        for frame, contact in self.contacts.items():
            out[f"wrench_{frame}"] = np.array(contact.wrench)
        return out

    def time(self, Q: np.ndarray, V: np.ndarray, EF: np.ndarray) -> dict:
        n = len(Q)
        stamps = np.empty((n, 5))
        taus = np.empty((n, self.robot.model.nv))
        success = np.empty(n, dtype=bool)
        contacts = list(self.contacts.values())
        wrenches = np.empty((n, len(contacts), 6))
        robot, solver, clock = self.robot, self.solver, time.perf_counter
        for k in range(n):
            q, v, ef = Q[k], V[k], EF[k]
            t0 = clock()
            robot.state.q = q
            robot.state.qd = v
            solver.extra_force = ef
            t1 = clock()
            robot.update_kinematics()
            t2 = clock()
            result = solver.solve(False)
            t3 = clock()
            tau = result.tau
            t4 = clock()
            stamps[k] = t0, t1, t2, t3, t4
            taus[k] = tau
            success[k] = result.success
            for j, contact in enumerate(contacts):  # after the clock: not part of the tick
                wrenches[k, j] = contact.wrench
        parts = 1e6 * np.diff(stamps, axis=1)
        return {
            "times_us": 1e6 * (stamps[:, 4] - stamps[:, 0]),
            "parts_us": parts,  # set_state, update_kinematics, solve, read_tau
            "tau": taus,
            "wrenches": wrenches,
            "success": success,
        }


def main() -> None:
    serve(lambda message: PlacoG1(
        message["urdf"], message["model_directory"], message["rotor_inertia"], message["problem"]
    ))  # fmt: skip


if __name__ == "__main__":
    main()
