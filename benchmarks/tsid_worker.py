"""TSID's side of ``benchmarks.placo_g1``: an inverse-dynamics formulation for the G1, timed per tick.

Runs in ``.venv-tsid`` (``make tsid-venv``: TSID 1.10.0 builds from source against ``pin==4.0.0``,
since against our ``pin==4.1.0`` its ``RobotWrapper`` corrupts the heap), started by
``benchmarks.placo_g1`` with ``OMP_NUM_THREADS=1`` (libtsid links OpenMP, and without it the
tick swings between 0.1 and 12 ms); it reads messages on stdin and answers on stdout
(:mod:`worker_protocol`). Nothing here imports the project: the robot (a URDF text) and the
problem's settings arrive in the ``setup`` message. Commands (field ``cmd``), as PlaCo's worker:

- ``setup``: builds ``tsid.RobotWrapper`` from the URDF text (a free-flyer pinocchio model) and
  the formulation (below); answers with the versions, the joint order, the total mass and the
  effort limits.
- ``model``: ``q`` (k, nq), ``v`` (k, nv) -> TSID's mass matrix ``M`` (k, nv, nv), bias forces
  ``h`` (k, nv), CoM ``com`` (k, 3), and the placement (k, 4, 4) of each frame in ``frames``.
- ``solve``: one tick at ``q``, ``v``, ``extra_force`` -> ``tau`` (nv,: six zeros for the base,
  then the joints), ``qdd``, each contact's ``wrench_<frame>`` (6,) in the contact frame,
  ``success``.
- ``time``: ``q`` (n, nq), ``v`` (n, nv), ``extra_force`` (n, nv) -> ``times_us`` (n,),
  ``parts_us`` (n, 4: the torque bounds, ``computeProblemData``, ``solve``, reading ``tau``),
  ``tau`` (n, nv), ``wrenches`` (n, contacts, 6: read after the clock), ``success`` (n,).
- ``quit``.

An error answers ``{"error": traceback}`` and the worker goes on.

The problem (``setup``'s ``problem`` field, from the controller's settings: see
``placo_g1.tsid_problem``): ``InverseDynamicsFormulationAccForce`` with a floating base; per foot
a ``Contact6d`` with the sole's four corners (each corner force in its own friction pyramid with
facets on the sole's axes), ``Kp`` 0 and ``Kd`` the controller's contact damping (the sole's
acceleration is ``-Kd`` times its velocity: a hard equality, priority 0), its wrench regularised
towards zero with unit weights on all six components; a CoM task, a posture task to home, the
torso frame's orientation (``TaskSE3Equality`` masked to its angular part), soft at priority 1
with the controller's weights and gains; the joints' torque limits as a hard
``TaskActuationBounds``; solved by ``SolverHQuadProgFast`` (eiquadprog).

Joint damping: our model's bias forces hold ``D v``, TSID's cannot. With ``D`` acting on the
joints only, the base rows of the dynamics are the same, so the QP in ``(qdd, f)`` is ours with
the torque bounds shifted by ``-D v`` and the torques read back as TSID's plus ``D v``: the timed
tick does both (``extra_force`` = ``D v``), as PlaCo's sets ``solver.extra_force``.

One timed tick (``time``), as TSID's examples run it: the torque bounds set for this state,
``formulation.computeProblemData(t, q, v)`` (``computeAllTerms``: the mass matrix, bias forces,
Jacobians and their drifts; the tasks and contacts updated; the HQP assembled),
``solver.solve(hqp)`` and ``formulation.getActuatorForces(sol) + D v`` into numpy;
``time.perf_counter`` around those calls only.
"""

from __future__ import annotations

import os
import sys
import time
from importlib import metadata

import numpy as np
import pinocchio as pin
import tsid
from worker_protocol import serve

#: The worker's timed parts of a TSID tick (their sum is the tick, up to the clock reads).
PARTS = ("bounds", "problem_data", "solve", "read_tau")


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _sample(value: np.ndarray) -> tsid.TrajectorySample:
    """A constant reference: ``value``, zero velocity and acceleration."""
    value = np.asarray(value, dtype=float)
    sample = tsid.TrajectorySample(value.size)
    sample.value(value)
    sample.derivative(np.zeros(value.size))
    sample.second_derivative(np.zeros(value.size))
    return sample


class TsidG1:
    """The robot and the formulation, built once from ``setup``'s fields."""

    def __init__(self, urdf: str, rotor_inertia: dict[str, float], problem: dict):
        model = pin.buildModelFromXML(urdf, pin.JointModelFreeFlyer())
        self.robot = robot = tsid.RobotWrapper(model, tsid.FLOATING_BASE_SYSTEM, False)
        self.joint_names = [str(name) for name in model.names[2:]]
        robot.set_rotor_inertias(np.array([float(rotor_inertia[name]) for name in self.joint_names]))
        robot.set_gear_ratios(np.ones(robot.na))
        self.model = robot.model()
        self.data = pin.Data(self.model)  # for the ``model`` command
        self.formulation = formulation = tsid.InverseDynamicsFormulationAccForce("tsid", robot, False)
        q0, v0 = pin.neutral(self.model), np.zeros(robot.nv)
        formulation.computeProblemData(0.0, q0, v0)
        data = formulation.data()
        self.contacts = {}
        for contact in problem["contacts"]:
            frame = contact["frame"]
            half_length, half_width = 0.5 * contact["length"], 0.5 * contact["width"]
            corners = np.array([
                [half_length, half_length, -half_length, -half_length],
                [half_width, -half_width, half_width, -half_width],
                [0.0, 0.0, 0.0, 0.0],
            ])  # fmt: skip
            rigid = tsid.Contact6d(
                frame, robot, frame, corners, np.array([0.0, 0.0, 1.0]),
                float(contact["mu"]), float(contact["min_force"]), float(contact["max_force"]),
            )  # fmt: skip
            rigid.setKp(np.zeros(6))
            rigid.setKd(float(contact["kd"]) * np.ones(6))
            rigid.setRegularizationTaskWeightVector(np.ones(6))
            rigid.setReference(robot.framePosition(data, self.model.getFrameId(frame)))
            formulation.addRigidContact(rigid, float(contact["weight_forces"]), 1.0, 0)
            self.contacts[frame] = rigid
        com = problem["com"]
        self.com_task = tsid.TaskComEquality("com", robot)
        self.com_task.setKp(float(com["kp"]) * np.ones(3))
        self.com_task.setKd(float(com["kd"]) * np.ones(3))
        self.com_task.setReference(_sample(com["target"]))
        formulation.addMotionTask(self.com_task, float(com["weight"]), 1, 0.0)
        posture = problem["posture"]
        self.posture_task = tsid.TaskJointPosture("posture", robot)
        self.posture_task.setKp(float(posture["kp"]) * np.ones(robot.na))
        self.posture_task.setKd(float(posture["kd"]) * np.ones(robot.na))
        self.posture_task.setReference(_sample([posture["targets"][name] for name in self.joint_names]))
        formulation.addMotionTask(self.posture_task, float(posture["weight"]), 1, 0.0)
        torso = problem["torso"]
        self.torso_task = tsid.TaskSE3Equality("torso", robot, torso["frame"])
        self.torso_task.setMask(np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0]))
        self.torso_task.setKp(float(torso["kp"]) * np.ones(6))
        self.torso_task.setKd(float(torso["kd"]) * np.ones(6))
        target = pin.SE3(np.asarray(torso["target"], dtype=float), np.zeros(3))
        reference = tsid.TrajectorySE3Constant("torso", target).computeNext()
        self.torso_task.setReference(reference)
        formulation.addMotionTask(self.torso_task, float(torso["weight"]), 1, 0.0)
        self.effort = np.asarray(self.model.effortLimit, dtype=float)[6:].copy()
        self.bounds = tsid.TaskActuationBounds("torque_limits", robot)
        self.bounds.setBounds(-self.effort, self.effort)
        formulation.addActuationTask(self.bounds, 1.0, 0, 0.0)
        self.solver = tsid.SolverHQuadProgFast("eiquadprog-fast")
        self.solver.resize(formulation.nVar, formulation.nEq, formulation.nIn)

    def describe(self) -> dict:
        return {
            "tsid": _version("tsid"),
            "pin": _version("pin"),
            "numpy": _version("numpy"),
            "python": sys.version.split()[0],
            "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
            "joint_names": self.joint_names,
            "nq": int(self.model.nq),
            "nv": int(self.model.nv),
            "total_mass": float(pin.computeTotalMass(self.model)),
            "effort_limit": np.asarray(self.model.effortLimit, dtype=float).copy(),
        }

    def model_terms(self, Q: np.ndarray, V: np.ndarray, frames: list[str]) -> dict:
        n, nv = len(Q), self.model.nv
        out = {"M": np.empty((n, nv, nv)), "h": np.empty((n, nv)), "com": np.empty((n, 3))}
        out.update({f"frame_{name}": np.empty((n, 4, 4)) for name in frames})
        robot, data = self.robot, self.data
        for k in range(n):
            robot.computeAllTerms(data, Q[k], V[k])
            out["M"][k] = robot.mass(data)
            out["h"][k] = robot.nonLinearEffect(data)
            out["com"][k] = robot.com(data)
            for name in frames:
                out[f"frame_{name}"][k] = robot.framePosition(data, self.model.getFrameId(name)).homogeneous
        return out

    def _wrenches(self, solution) -> list[np.ndarray]:
        return [
            contact.getForceGeneratorMatrix @ self.formulation.getContactForce(frame, solution)
            for frame, contact in self.contacts.items()
        ]

    def solve(self, q: np.ndarray, v: np.ndarray, extra_force: np.ndarray) -> dict:
        joint_force = extra_force[6:]
        self.bounds.setBounds(-self.effort - joint_force, self.effort - joint_force)
        solution = self.solver.solve(self.formulation.computeProblemData(0.0, q, v))
        tau = np.zeros(self.model.nv)
        tau[6:] = self.formulation.getActuatorForces(solution) + joint_force
        out = {
            "success": solution.status == 0,
            "tau": tau,
            "qdd": np.array(self.formulation.getAccelerations(solution)),
        }
        for frame, wrench in zip(self.contacts, self._wrenches(solution), strict=True):
            out[f"wrench_{frame}"] = wrench
        return out

    def time(self, Q: np.ndarray, V: np.ndarray, EF: np.ndarray) -> dict:
        n, nv = len(Q), self.model.nv
        stamps = np.empty((n, 5))
        taus = np.zeros((n, nv))
        success = np.empty(n, dtype=bool)
        wrenches = np.empty((n, len(self.contacts), 6))
        formulation, solver, bounds, clock = self.formulation, self.solver, self.bounds, time.perf_counter
        upper = self.effort
        lower = -upper
        for k in range(n):
            q, v, joint_force = Q[k], V[k], EF[k, 6:]
            t0 = clock()
            bounds.setBounds(lower - joint_force, upper - joint_force)
            t1 = clock()
            hqp = formulation.computeProblemData(0.0, q, v)
            t2 = clock()
            solution = solver.solve(hqp)
            t3 = clock()
            tau = formulation.getActuatorForces(solution) + joint_force
            t4 = clock()
            stamps[k] = t0, t1, t2, t3, t4
            taus[k, 6:] = tau
            success[k] = solution.status == 0
            wrenches[k] = self._wrenches(solution)  # after the clock: not part of the tick
        return {
            "times_us": 1e6 * (stamps[:, 4] - stamps[:, 0]),
            "parts_us": 1e6 * np.diff(stamps, axis=1),
            "tau": taus,
            "wrenches": wrenches,
            "success": success,
        }


def main() -> None:
    serve(lambda message: TsidG1(message["urdf"], message["rotor_inertia"], message["problem"]))


if __name__ == "__main__":
    main()
