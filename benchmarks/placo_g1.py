"""Same robot, same problem: our compiled controller tick against PlaCo's ``DynamicsSolver`` and
TSID's inverse-dynamics formulation on the G1.

Issue 17 point 5 and issue 41 point 4. PlaCo (Rhoban's whole-body control library: C++ over
pinocchio, Python bindings) pins ``pin==3.8.0``, and TSID (LAAS's task-space inverse dynamics,
the same kind of library) is built against ``pin==4.0.0``: neither can share our virtualenv, so
each runs in a worker process in its own (``make placo-venv``, ``make tsid-venv``;
``benchmarks/placo_worker.py``, ``benchmarks/tsid_worker.py``, framing in
:mod:`benchmarks.worker_protocol`). The peers asked for (``--placo-python``, ``--tsid-python``;
``none`` leaves one out) are timed in the same run. Steps:

1. **Record** ``--states`` closed-loop G1 states ``(q, v)`` (pinocchio order): our nominal
   controller (compiled, eiquadprog) holding the G1 standing on a flat floor in MuJoCo from the
   home posture, 40 N pushes on the torso for 0.1 s every second, the direction turning by
   90 degrees each time (as ``benchmarks.controller_step``).
2. **Build each peer's robot from the same G1**: from the URDF (``g1_urdf_path()``) that our
   MJCF is built from, with fixed frames added at our sites ``left_sole``, ``right_sole`` and
   ``torso`` (same placements), visual and collision geometry dropped, our armature as the
   peer's rotor inertia; the joint order and the model (mass matrix, bias forces, CoM, frame
   placements) are checked against ours at several states.
3. **Pose the same problem** (:func:`peer_problem`, from ``g1_controller_config()``; the tables
   in benchmarks/README.md list what maps to what and what cannot).
4. **Time**, alternating chunk by chunk (``--chunks``): our controller with eiquadprog, then with
   proxsuite, per tick in this process; then each worker, per tick, over the same states. What a
   tick includes: see :data:`TICK_OURS` and :data:`PEERS`.
5. **Sanity**: each at rest in the home posture (each must hold gravity: total normal force =
   m g), the torques side by side; and the torque difference over all recorded states.

Prints a table, writes JSON (settings, machine, provenance with the worker's versions, results).

    python -m benchmarks.placo_g1 [--states 2000] [--chunks 10] [--warmup 50]
        [--placo-python .venv-placo/bin/python] [--tsid-python none | .venv-tsid/bin/python]
        [--json benchmarks/results/placo_g1.json]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mujoco
import numpy as np
import pinocchio as pin

from benchmarks.common import RESULTS, machine, stats, write_json
from benchmarks.worker_protocol import read_message, write_message
from humanoid_env.robots import robot_description
from humanoid_env.robots.g1_model import g1_mjcf_path, g1_urdf_path
from humanoid_env.sim_bridge import SimBridge
from wbc_layer import ControllerConfig, RobotModel, WholeBodyController
from wbc_layer.controller import make_contact

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
PLACO_PYTHON = ROOT / ".venv-placo" / "bin" / "python"
TSID_PYTHON = ROOT / ".venv-tsid" / "bin" / "python"
#: Our sites that PlaCo's model needs as frames: the soles (contacts) and the torso (orientation).
SITES = ("left_sole", "right_sole", "torso")
PUSH_FORCE_N = 40.0
PUSH_DURATION_S = 0.1
PUSH_BODY = "torso_link"
OUR_SOLVERS = ("eiquadprog", "proxsuite")

TICK_OURS = (
    "WholeBodyController.compute(q, v) from Python (backend 'compiled'): arrays handed to C++, the model "
    "update at (q, v) (pinocchio: M, h, CoM and its Jacobian and drift, frame placements, Jacobians and drifts), "
    "building the QP from the tasks and contacts, solving it (without the torque-limit rows, re-solved with "
    "them when a limit is exceeded), tau = M_a qdd + h_a - J_a^T f, and the WBCResult built in Python"
)


@dataclass(frozen=True)
class Peer:
    """A library timed against ours: its worker script, what its tick includes, where its problem
    still differs from ours (benchmarks/README.md has the whole mapping)."""

    name: str
    label: str
    script: str
    venv_target: str
    parts: tuple[str, ...]
    tick: str
    mismatches: tuple[str, ...]
    environment: tuple[tuple[str, str], ...] = ()


PLACO = Peer(
    name="placo",
    label="PlaCo 0.10.2 DynamicsSolver",
    script="placo_worker.py",
    venv_target="make placo-venv",
    parts=("set_state", "update_kinematics", "solve", "read_tau"),
    tick=(
        "robot.state.q = q; robot.state.qd = v; solver.extra_force = D v (joint damping, precomputed); "
        "robot.update_kinematics() (frame placements, joint Jacobians and their time variation); "
        "solver.solve(False) (tasks and contacts updated: Jacobians, CoM and its Jacobian; mass matrix and "
        "non-linear effects; the QP built, its equalities eliminated, solved with torque-limit rows always in; "
        "torques out); result.tau read back into numpy"
    ),
    mismatches=(
        "yaw moment: ours bounds each foot's |m_z| <= 0.5 mu min(half_length, half_width) f_z; PlaCo's planar "
        "contact has no such row, so with tipping feet it may use opposite yaw moments the ground cannot give",
        "normal force: ours f_z <= 2000 N (never active here); PlaCo unbounded",
        "contact acceleration: ours holds the sole's spatial acceleration (frame axes) at -kd times its velocity, "
        "PlaCo the classical one (world axes); they differ by omega x v of the sole, only while the sole moves",
        "regularisation: ours 1e-4 |qdd|^2 (all 35) and 1e-4 |f|^2; PlaCo 1e-4 on forces and moments "
        "(weight_forces, weight_moments), no acceleration term (its QP's internal 1e-8), torque_cost 0 (default 1e-3)",
        "torque limits: ours solves without the 58 rows first and re-solves with them only when one is exceeded; "
        "PlaCo always has them in its QP",
        "QP solver: ours eiquadprog (or proxsuite) on [qdd, f] with the equalities; PlaCo eliminates the equalities "
        "(QR) and solves the rest with qpmad (a dual active-set solver, linked in liblibplaco.so)",
    ),
)
TSID = Peer(
    name="tsid",
    label="TSID 1.10.0 (eiquadprog-fast)",
    script="tsid_worker.py",
    venv_target="make tsid-venv",
    parts=("bounds", "problem_data", "solve", "read_tau"),
    tick=(
        "torque bounds set to the limits less D v (joint damping, precomputed: TSID's bias forces have none); "
        "formulation.computeProblemData(t, q, v) (computeAllTerms: mass matrix, bias forces, Jacobians and drifts; "
        "the contacts and tasks updated; the HQP assembled); solver.solve(hqp) (SolverHQuadProgFast, eiquadprog, "
        "all rows in one QP, torque-limit rows always in); getActuatorForces(sol) + D v into numpy"
    ),
    mismatches=(
        "contact model: ours one 6D wrench per foot (CoP box, 4-facet pyramid on the resultant, yaw-moment bound); "
        "TSID four corner forces per foot, each in its own pyramid (mu = ours x cos(pi/4)), so its wrench set is "
        "the sole's: the CoP box and the friction on the resultant are the same, the yaw moment is not ours, and "
        "while a foot tips the two part",
        "contact acceleration: ours holds the sole's spatial acceleration (frame axes) at -kd times its velocity; "
        "TSID's Contact6d its motion task (a TaskSE3Equality in the sole's frame) with TSID's own drift term "
        "(spatial or classical: not checked); they could differ only while a sole moves",
        "regularisation: ours 1e-4 |qdd|^2 (all 35) and 1e-4 |f|^2 on the wrench; TSID 1e-4 |w|^2 on each foot's "
        "wrench (unit weights on its six components), no acceleration term",
        "torque limits: ours solves without the 58 rows first and re-solves with them only when one is exceeded; "
        "TSID always has them in its QP",
        "QP solver: ours eiquadprog (or proxsuite) on [qdd, f] (12 wrench components); TSID eiquadprog-fast on "
        "[qdd, f] with 24 corner-force components",
    ),
    environment=(("OMP_NUM_THREADS", "1"),),
)
PEERS = {peer.name: peer for peer in (PLACO, TSID)}

# -- model agreement tolerances (PlaCo reads the URDF, we read the MJCF built from it) ------------
#: [-] relative (max abs difference / max abs entry) for M and h: MuJoCo's XML writer keeps 6
#: significant digits of every mass, inertia and position, so the MJCF's numbers differ from the
#: URDF's by up to 5e-6 relative (tests/test_g1_model.py measures the mass matrix at ~5e-8).
MODEL_REL_TOL = 1e-5
#: [m] CoM and frame positions: the same rounding over a dozen transforms (measured ~5e-8 m).
POSITION_TOL = 1e-6
#: [-] rotation matrix entries of the frames: quaternions rounded to 6 significant digits.
ROTATION_TOL = 1e-5
#: [N m] torques "agree" below this: at rest and on most recorded states the two differ by about
#: 1e-5 N m (the same problem to the MJCF's rounding, our 1e-4 acceleration regularisation).
TAU_DIFF_TOL = 1e-3
#: [N m] slack on our yaw-moment bound when asking whether PlaCo's yaw moment exceeds it.
YAW_MARGIN_NM = 1e-6


# -- the G1 and its recorded states ---------------------------------------------------------------


def g1_controller_config(**overrides):
    """The G1's standing controller (its robot description's), with ``overrides``."""
    return robot_description("g1").controller_config(**overrides)


def g1_flat_scene() -> mujoco.MjModel:
    """The G1's flat scene (assets/scene_flat.xml's floor, friction 1), keyframe ``home``."""
    return mujoco.MjModel.from_xml_path(str(robot_description("g1").scene_path("flat")))


def push_force(t: float, force: float = PUSH_FORCE_N) -> np.ndarray:
    """(2,) horizontal push on the torso at time ``t`` [s]: ``force`` [N] during 0.1 s from the
    middle of every second, its direction turning by 90 degrees each second (+x, +y, -x, -y)."""
    angle = math.pi / 2 * int(t)
    pushing = 0.5 <= t % 1.0 < 0.5 + PUSH_DURATION_S
    return force * np.array([math.cos(angle), math.sin(angle)]) if pushing else np.zeros(2)


def new_controller(qp_solver: str, q_home: np.ndarray) -> WholeBodyController:
    """Our G1 controller (compiled backend) on its own model, references taken at ``q_home`` at
    rest: CoM reference = the home CoM, posture target = the home joints (as in use)."""
    robot = RobotModel.from_mjcf(g1_mjcf_path())
    robot.update(q_home, np.zeros(robot.nv))
    return WholeBodyController(robot, g1_controller_config(backend="compiled", qp_solver=qp_solver))


def record_states(n: int, force: float = PUSH_FORCE_N) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """``(Q (n, nq), V (n, nv), info)``: the states our controller (compiled, eiquadprog) saw over
    ``n`` physics steps (2 ms) of the pushed G1 standing from home, pinocchio order."""
    model = g1_flat_scene()
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("home").id)
    mujoco.mj_forward(model, data)
    robot = RobotModel.from_mjcf(g1_mjcf_path())
    bridge = SimBridge(model, robot.joint_names)
    q_home, _ = bridge.to_pinocchio(data.qpos, data.qvel)
    controller = new_controller("eiquadprog", q_home)
    reference = controller.com_task.position.copy()
    torso = model.body(PUSH_BODY).id
    Q, V = np.empty((n, robot.nq)), np.empty((n, robot.nv))
    com_error, relaxed = 0.0, 0
    for k in range(n):
        data.xfrc_applied[torso, :2] = push_force(k * model.opt.timestep, force)
        Q[k], V[k] = bridge.to_pinocchio(data.qpos, data.qvel)
        result = controller.compute(Q[k], V[k])  # raises QPSolveError: a recording must not fall back
        relaxed += int(result.relaxed)
        com_error = max(com_error, float(np.linalg.norm(controller.robot.com - reference)))
        bridge.torques_to_ctrl(result.tau, data.ctrl)
        mujoco.mj_step(model, data)
    info = {"max_com_error_m": com_error, "relaxed_ticks": relaxed, "seconds": n * model.opt.timestep}
    return Q, V, info


# -- PlaCo's model of the same robot --------------------------------------------------------------


def site_frames(robot: RobotModel, names=SITES) -> dict[str, tuple[str, pin.SE3]]:
    """``{site: (body, placement in the body's frame)}`` for MJCF sites of our model: where
    PlaCo's URDF gets a fixed frame (our bodies are the URDF's links, named alike)."""
    model = robot.model
    frames = {}
    for name in names:
        frame = model.frames[robot.frame_id(name)]
        parent = model.frames[frame.parentFrame]
        if parent.type != pin.FrameType.BODY:
            raise ValueError(f"site {name!r} hangs from {parent.name!r}, not a body")
        frames[name] = (parent.name, frame.placement)
    return frames


def derived_urdf(urdf: Path, frames: dict[str, tuple[str, pin.SE3]]) -> str:
    """The URDF's text without visual and collision geometry (no meshes to load; dynamics only)
    and with a massless link per entry of ``frames`` (``name: (parent link, placement)``),
    fixed by a joint ``<name>_fixed``."""
    root = ET.parse(urdf).getroot()
    links = {link.get("name") for link in root.findall("link")}
    for link in root.findall("link"):
        for tag in ("visual", "collision"):
            for element in link.findall(tag):
                link.remove(element)
    for name, (parent, placement) in frames.items():
        if parent not in links:
            raise ValueError(f"frame {name!r}: no link {parent!r} in {urdf}")
        if name in links:
            raise ValueError(f"frame {name!r}: the URDF has a link of that name already")
        ET.SubElement(root, "link", name=name)
        joint = ET.SubElement(root, "joint", name=f"{name}_fixed", type="fixed")
        ET.SubElement(joint, "parent", link=parent)
        ET.SubElement(joint, "child", link=name)
        rpy = pin.rpy.matrixToRpy(placement.rotation)
        ET.SubElement(
            joint, "origin",
            xyz=" ".join(repr(float(x)) for x in placement.translation),
            rpy=" ".join(repr(float(x)) for x in rpy),
        )  # fmt: skip
    return ET.tostring(root, encoding="unicode")


def peer_problem(config: ControllerConfig, robot: RobotModel, com_target: np.ndarray) -> dict[str, Any]:
    """The peers' settings for the problem ``config`` poses (each worker's ``setup``; see their
    docstrings: PlaCo ignores ``min_force`` / ``max_force``, TSID ``torque_cost``).

    NOTE: our 4-facet pyramid is inscribed in the cone ``|f_t| <= mu f_n`` with facets on the
    contact axes, so each tangential component is bounded by ``mu cos(pi/4) f_n``; PlaCo and TSID
    (per corner) bound ``|f_x|, |f_y| <= mu f_n``: their ``mu`` is ours times ``cos(pi / facets)``,
    the same rows. Our CoP box is ``half_length x half_width`` about the sole site; the peers'
    ``length``/``width`` are full sizes (TSID's corners lie at their half sizes).
    """
    if config.friction_facets != 4:
        raise ValueError(
            "PlaCo's planar contact and TSID's contact points have 4-facet pyramids; the config asks "
            f"for {config.friction_facets} facets"
        )
    contacts = []
    for contact in config.contacts:
        if contact.kind != "foot" or not contact.active:
            raise ValueError(f"contact {contact.name!r}: only active flat feet map onto planar contacts")
        contacts.append({
            "frame": contact.frame,
            "length": 2.0 * contact.half_length,
            "width": 2.0 * contact.half_width,
            "mu": contact.friction_coefficient * math.cos(math.pi / config.friction_facets),
            "min_force": contact.min_normal_force,
            "max_force": contact.max_normal_force,
            "kd": config.contact_damping,
            "weight_forces": config.force_regularisation,
            "weight_moments": config.force_regularisation,
        })  # fmt: skip
    home = dict(zip(robot.joint_names, robot.q[7:].tolist(), strict=True))
    return {
        "contacts": contacts,
        "com": {"target": com_target.tolist(), "kp": config.com_kp, "kd": config.com_kd, "weight": config.com_weight},
        "posture": {"targets": home, "kp": config.posture_kp, "kd": config.posture_kd, "weight": config.posture_weight},
        "torso": {
            "frame": config.torso_frame, "target": np.eye(3).tolist(),
            "kp": config.torso_kp, "kd": config.torso_kd, "weight": config.torso_weight,
        },
        "torque_limits": True,
        "torque_cost": 0.0,  # ours has no torque cost (PlaCo's default: 1e-3)
    }  # fmt: skip


class Worker:
    """A peer's worker process in its own virtualenv; :meth:`request` sends a message, returns the answer."""

    def __init__(self, peer: Peer, python: Path):
        if not Path(python).is_file():
            raise FileNotFoundError(f"no {peer.label} interpreter at {python}: run `{peer.venv_target}` first")
        self.peer = peer
        self.process = subprocess.Popen(
            [str(python), str(HERE / peer.script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            cwd=str(ROOT), env={**os.environ, **dict(peer.environment)},
        )  # fmt: skip

    def request(self, cmd: str, **fields: Any) -> dict[str, Any]:
        write_message(self.process.stdin, {"cmd": cmd, **fields})
        reply = read_message(self.process.stdout)
        if reply is None:
            raise RuntimeError(
                f"the {self.peer.name} worker exited during {cmd!r} (exit code {self.process.poll()})"
            )
        if "error" in reply:
            raise RuntimeError(f"the {self.peer.name} worker failed on {cmd!r}:\n{reply['error']}")
        return reply

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                write_message(self.process.stdin, {"cmd": "quit"})
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()


class JointOrder:
    """Maps our state and torque vectors to PlaCo's joint order and back (matched by name)."""

    def __init__(self, ours: tuple[str, ...], theirs: list[str]):
        if sorted(ours) != sorted(theirs):
            raise ValueError(
                f"different joints: ours only {sorted(set(ours) - set(theirs))}, "
                f"PlaCo's only {sorted(set(theirs) - set(ours))}"
            )
        self.identical = tuple(theirs) == tuple(ours)
        self.index = np.array([ours.index(name) for name in theirs])  # theirs[j] = ours[index[j]]

    def q(self, Q: np.ndarray) -> np.ndarray:
        return np.concatenate([Q[..., :7], Q[..., 7:][..., self.index]], axis=-1)

    def v(self, V: np.ndarray) -> np.ndarray:
        return np.concatenate([V[..., :6], V[..., 6:][..., self.index]], axis=-1)

    def v_back(self, V: np.ndarray) -> np.ndarray:
        """PlaCo's velocity-sized vectors (tau, qdd) to our order."""
        out = np.array(V, dtype=float, copy=True)
        out[..., 6 + self.index] = V[..., 6:]
        return out

    def matrix(self, M: np.ndarray) -> np.ndarray:
        """Our (…, nv, nv) matrix in PlaCo's order."""
        rows = np.concatenate([np.arange(6), 6 + self.index])
        return M[..., rows[:, None], rows[None, :]]


def relative_error(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-12))


def model_agreement(worker: Worker, order: JointOrder, Q: np.ndarray, V: np.ndarray) -> dict[str, Any]:
    """Ours against the peer's model at the states ``(Q, V)`` (our order): M (armature in both),
    h (ours less the joint damping ``D v``, which the peer gets as ``extra_force``), CoM and the
    site frames."""
    robot = RobotModel.from_mjcf(g1_mjcf_path())
    reply = worker.request("model", q=order.q(Q), v=order.v(V), frames=list(SITES))
    worst = {"M_rel": 0.0, "h_rel": 0.0, "com_m": 0.0, "frame_position_m": 0.0, "frame_rotation": 0.0}
    for k in range(len(Q)):
        robot.update(Q[k], V[k])
        worst["M_rel"] = max(worst["M_rel"], relative_error(reply["M"][k], order.matrix(robot.M)))
        h_ours = order.v(robot.h - robot.damping * V[k])
        worst["h_rel"] = max(worst["h_rel"], relative_error(reply["h"][k], h_ours))
        worst["com_m"] = max(worst["com_m"], float(np.abs(reply["com"][k] - robot.com).max()))
        for name in SITES:
            T = reply[f"frame_{name}"][k]
            ours = robot.frame_placement(name)
            worst["frame_position_m"] = max(
                worst["frame_position_m"], float(np.abs(T[:3, 3] - ours.translation).max())
            )
            worst["frame_rotation"] = max(
                worst["frame_rotation"], float(np.abs(T[:3, :3] - ours.rotation).max())
            )
    tolerances = {"M_rel": MODEL_REL_TOL, "h_rel": MODEL_REL_TOL, "com_m": POSITION_TOL,
                  "frame_position_m": POSITION_TOL, "frame_rotation": ROTATION_TOL}  # fmt: skip
    return {
        "states": len(Q),
        "worst": worst,
        "tolerances": tolerances,
        "agree": all(worst[key] <= tolerances[key] for key in worst),
    }


def agreement_states(Q: np.ndarray, V: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """States for the model check: home at rest, four recorded ones (two during pushes) and two
    random configurations with random velocities (joints within their ranges)."""
    robot = RobotModel.from_mjcf(g1_mjcf_path())
    rng = np.random.default_rng(seed)
    picks = np.unique(np.linspace(0, len(Q) - 1, 4).astype(int))
    Qs, Vs = [Q[0].copy()], [np.zeros_like(V[0])]
    Qs += list(Q[picks])
    Vs += list(V[picks])
    lower, upper = robot.model.lowerPositionLimit[7:], robot.model.upperPositionLimit[7:]
    for _ in range(2):
        q = Q[0].copy()
        q[:3] += rng.normal(scale=0.1, size=3)
        quaternion = rng.normal(size=4)
        q[3:7] = quaternion / np.linalg.norm(quaternion)
        q[7:] = rng.uniform(lower, upper)
        Qs.append(q)
        Vs.append(rng.normal(scale=0.5, size=V.shape[1]))
    return np.array(Qs), np.array(Vs)


# -- timing -----------------------------------------------------------------------------------------


def time_ours(
    controller: WholeBodyController, Q: np.ndarray, V: np.ndarray
) -> tuple[np.ndarray, np.ndarray, dict]:
    """``(times_us (n,), tau (n, na), parts)``: one ``compute`` per state, timed alone; ``parts``:
    the controller's own ``last_timings`` per tick [us]."""
    n = len(Q)
    times, taus = np.empty(n), np.empty((n, controller.robot.na))
    parts = {part: np.empty(n) for part in ("update", "build", "solve", "torques")}
    clock = time.perf_counter
    for k in range(n):
        q, v = Q[k], V[k]
        start = clock()
        result = controller.compute(q, v)
        times[k] = 1e6 * (clock() - start)
        taus[k] = result.tau
        for part, value in controller.last_timings.items():
            if part in parts:
                parts[part][k] = value
    return times, taus, parts


def rest_check(worker: Worker, order: JointOrder, q_home: np.ndarray) -> dict[str, Any]:
    """Ours and the peer at rest in the home posture: torques, total normal force against m g."""
    controller = new_controller("eiquadprog", q_home)
    robot = controller.robot
    v = np.zeros(robot.nv)
    ours = controller.compute(q_home, v)
    weight = robot.mass * float(
        np.linalg.norm(robot.model.gravity.linear)
    )  # PlaCo: pinocchio's default, 9.81
    ours_normal = sum(float(f[2]) for f in ours.contact_forces.values())
    theirs = worker.request("solve", q=order.q(q_home), v=order.v(v), extra_force=np.zeros(robot.nv))
    tau_peer = order.v_back(theirs["tau"])
    peer_normal = sum(float(theirs[f"wrench_{c.frame}"][2]) for c in controller.config.contacts)
    difference = np.abs(tau_peer[6:] - ours.tau)
    return {
        "peer_success": bool(theirs["success"]),
        "tau_ours": ours.tau.tolist(),
        "tau_peer": tau_peer[6:].tolist(),
        "peer_base_residual": float(np.abs(tau_peer[:6]).max()),
        "max_abs_difference_Nm": float(difference.max()),
        "max_abs_tau_Nm": float(np.abs(ours.tau).max()),
        "normal_force_over_mg": {"ours": ours_normal / weight, "peer": peer_normal / weight},
        "qdd_max_abs": {"ours": float(np.abs(ours.qdd).max()), "peer": float(np.abs(theirs["qdd"]).max())},
    }


def run_timing(
    workers: dict[str, Worker], order: JointOrder, Q: np.ndarray, V: np.ndarray, chunks: int, warmup: int
) -> dict[str, Any]:
    """Ours (each solver) and each peer, alternating chunk by chunk over the same states."""
    q_home = Q[0]
    controllers = {solver: new_controller(solver, q_home) for solver in OUR_SOLVERS}
    damping = controllers[OUR_SOLVERS[0]].robot.damping
    Qp, Vp, EFp = order.q(Q), order.v(V), order.v(V * damping)
    for controller in controllers.values():  # warm-up: first calls allocate
        time_ours(controller, Q[:warmup], V[:warmup])
    for worker in workers.values():
        worker.request("time", q=Qp[:warmup], v=Vp[:warmup], extra_force=EFp[:warmup])
    n = len(Q)
    bounds = np.linspace(0, n, chunks + 1).astype(int)
    names = (*OUR_SOLVERS, *workers)
    times = {name: np.empty(n) for name in names}
    taus = {name: np.empty((n, len(order.index))) for name in names}
    parts = {name: {} for name in names}
    wrenches = {peer: np.empty((n, len(controllers[OUR_SOLVERS[0]].contacts), 6)) for peer in workers}
    failures = dict.fromkeys(workers, 0)
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        for solver, controller in controllers.items():
            times[solver][a:b], taus[solver][a:b], chunk_parts = time_ours(controller, Q[a:b], V[a:b])
            for part, values in chunk_parts.items():
                parts[solver].setdefault(part, []).append(values)
        for peer, worker in workers.items():
            reply = worker.request("time", q=Qp[a:b], v=Vp[a:b], extra_force=EFp[a:b])
            times[peer][a:b] = reply["times_us"]
            for j, part in enumerate(worker.peer.parts):
                parts[peer].setdefault(part, []).append(reply["parts_us"][:, j])
            taus[peer][a:b] = order.v_back(reply["tau"])[:, 6:]
            wrenches[peer][a:b] = reply["wrenches"]
            failures[peer] += int((~reply["success"]).sum())
    return {
        "times": times,
        "taus": taus,
        "parts": {solver: {p: np.concatenate(v) for p, v in by.items()} for solver, by in parts.items()},
        "wrenches": wrenches,
        "failures": failures,
        "chunk_bounds": bounds.tolist(),
    }


def torsional_coefficients(config: ControllerConfig) -> np.ndarray:
    """(contacts,) our feet's yaw-moment bound ``|m_z| <= c f_z`` [m], read from the contact rows
    (PlaCo's planar contact has no such row)."""
    controller_contacts = [make_contact(contact) for contact in config.contacts]
    coefficients = []
    for contact in controller_contacts:
        G, _ = contact.force_constraints(config.friction_facets)
        (rows,) = np.nonzero((G[:, 5] == 1.0) & (G[:, 2] < 0.0))
        coefficients.append(-G[rows[0], 2])
    return np.array(coefficients)


def torque_agreement(
    taus: dict[str, np.ndarray], peer: str, peer_wrenches: np.ndarray, torsion: np.ndarray, effort: np.ndarray
) -> dict[str, Any]:
    """Per recorded state, the largest |tau_peer - tau_ours| (eiquadprog) [N m] and as a share of
    that joint's effort limit; how many states differ by more than :data:`TAU_DIFF_TOL`, and of
    those how many the peer solves with a foot yaw moment beyond our bound ``torsion`` x ``f_z``
    (``peer_wrenches`` (n, contacts, 6), contact frames); where either sits on a torque limit."""
    difference = np.abs(taus[peer] - taus["eiquadprog"])
    per_state = difference.max(axis=1)
    share = (difference / effort).max(axis=1)
    at_limit = {
        name: int((np.abs(taus[name]) >= effort * (1 - 1e-6)).any(axis=1).sum()) for name in ("eiquadprog", peer)
    }
    differ = per_state > TAU_DIFF_TOL
    yaw = np.abs(peer_wrenches[..., 5]) > torsion * peer_wrenches[..., 2] + YAW_MARGIN_NM
    twisting = yaw.any(axis=1)
    return {
        "max_abs_difference_Nm": {"median": float(np.median(per_state)), "p99": float(np.percentile(per_state, 99)),
                                  "max": float(per_state.max())},
        "max_share_of_effort": {"median": float(np.median(share)), "max": float(share.max())},
        "differ_tolerance_Nm": TAU_DIFF_TOL,
        "states_differing": int(differ.sum()),
        "states_differing_with_peer_yaw_beyond_our_bound": int((differ & twisting).sum()),
        "max_abs_difference_where_peer_yaw_within_our_bound_Nm": float(per_state[~twisting].max(initial=0.0)),
        "peer_max_abs_yaw_moment_Nm": float(np.abs(peer_wrenches[..., 5]).max()),
        "states_on_a_torque_limit": at_limit,
        "proxsuite_vs_eiquadprog_max_abs_Nm": float(np.abs(taus["proxsuite"] - taus["eiquadprog"]).max()),
    }  # fmt: skip


def print_table(timing: dict[str, Any], n: int, chunks: int) -> dict[str, Any]:
    """The table; returns the rows (stats) and, per peer, the ratios ours / peer
    (``ours_over_<peer>``)."""
    rows = {name: stats(samples) for name, samples in timing["times"].items()}
    peers = [name for name in rows if name not in OUR_SOLVERS]
    ratios = {
        peer: {
            solver: {"median": rows[solver]["median_us"] / rows[peer]["median_us"],
                     "p99": rows[solver]["p99_us"] / rows[peer]["p99_us"]}
            for solver in OUR_SOLVERS
        }
        for peer in peers
    }  # fmt: skip
    print(
        f"\nG1, 2 flat feet, CoM + posture + torso, torque limits: per tick [us] ({n} states, {chunks} chunks)"
    )
    header = "".join(f"{'ours / ' + peer + ' (median, p99)':>28}" for peer in peers)
    print(f"  {'controller':<34}{'median':>9}{'p99':>9}{'max':>9}{header}")
    for name, row in rows.items():
        label = f"ours, compiled, {name}" if name in OUR_SOLVERS else PEERS[name].label
        cells = "".join(
            f"{ratios[peer][name]['median']:.2f}, {ratios[peer][name]['p99']:.2f}".rjust(28)
            if name in OUR_SOLVERS else "-".rjust(28)
            for peer in peers
        )  # fmt: skip
        print(f"  {label:<34}{row['median_us']:>9.1f}{row['p99_us']:>9.1f}{row['max_us']:>9.1f}{cells}")
    for name, by_part in timing["parts"].items():
        medians = ", ".join(f"{p} {np.median(v):.1f}" for p, v in by_part.items())
        print(f"  {'ours (' + name + ')' if name in OUR_SOLVERS else name} parts, medians: {medians}")
    return {"per_tick": rows, **{f"ours_over_{peer}": ratios[peer] for peer in peers}}


def optional_python(text: str) -> Path | None:
    """``--*-python``'s value: a path, or ``none`` to leave that peer out."""
    return None if text.lower() == "none" else Path(text)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=2000, help="recorded closed-loop states (2 ms apart)")
    parser.add_argument("--chunks", type=int, default=10, help="alternate ours and the peers this many times")
    parser.add_argument("--warmup", type=int, default=50, help="untimed ticks on each side first")
    parser.add_argument(
        "--push-force", type=float, default=PUSH_FORCE_N, help="[N] torso pushes while recording"
    )
    parser.add_argument(
        "--placo-python", type=optional_python, default=PLACO_PYTHON, help="python of .venv-placo, or none"
    )
    parser.add_argument(
        "--tsid-python", type=optional_python, default=None, help="python of .venv-tsid, or none (the default)"
    )
    parser.add_argument("--json", type=Path, default=RESULTS / "placo_g1.json")
    args = parser.parse_args(argv)
    if not 1 <= args.chunks <= args.states or not 0 < args.warmup <= args.states:
        parser.error("need 1 <= chunks <= states and 0 < warmup <= states")
    pythons = {"placo": args.placo_python, "tsid": args.tsid_python}
    pythons = {peer: python for peer, python in pythons.items() if python is not None}
    if not pythons:
        parser.error("no peer to time: give --placo-python or --tsid-python a python")
    start = machine()

    print(f"recording {args.states} states of the pushed G1 ...", flush=True)
    Q, V, recording = record_states(args.states, args.push_force)
    robot = RobotModel.from_mjcf(g1_mjcf_path())
    robot.update(Q[0], np.zeros(robot.nv))
    config = g1_controller_config()
    urdf = g1_urdf_path()
    problem = peer_problem(config, robot, robot.com.copy())
    rotor_inertia = dict(zip(robot.joint_names, robot.model.armature[6:].tolist(), strict=True))
    workers: dict[str, Worker] = {}
    described, agreement, rest = {}, {}, {}
    try:
        for peer, python in pythons.items():
            workers[peer] = worker = Worker(PEERS[peer], python)
            described[peer] = worker.request(
                "setup", urdf=derived_urdf(urdf, site_frames(robot)), model_directory=str(urdf.parent),
                rotor_inertia=rotor_inertia, problem=problem,
            )  # fmt: skip
            order = JointOrder(robot.joint_names, described[peer]["joint_names"])
            if not order.identical:
                raise RuntimeError(f"{peer}'s joint order differs from ours; the timing assumes one order")
            effort = np.asarray(described[peer]["effort_limit"])[6:][np.argsort(order.index)]
            if not np.array_equal(effort, robot.torque_max):
                print(f"warning: {peer}'s effort limits differ from our torque limits", file=sys.stderr)
            agreement[peer] = model_agreement(worker, order, *agreement_states(Q, V))
            agreement[peer].update(total_mass={"ours": robot.mass, peer: described[peer]["total_mass"]})
            print(
                f"{peer}: model agreement ({agreement[peer]['states']} states): {agreement[peer]['worst']} -> "
                f"{'agree' if agreement[peer]['agree'] else 'DISAGREE'} (tolerances {agreement[peer]['tolerances']})"
            )
            rest[peer] = rest_check(worker, order, Q[0])
            print(
                f"{peer}: at rest, home: max |tau_{peer} - tau_ours| = {rest[peer]['max_abs_difference_Nm']:.2e} N m "
                f"(largest |tau| {rest[peer]['max_abs_tau_Nm']:.1f} N m); normal force / m g: ours "
                f"{rest[peer]['normal_force_over_mg']['ours']:.6f}, {peer} {rest[peer]['normal_force_over_mg']['peer']:.6f}"
            )
        print(f"timing {len(OUR_SOLVERS) + len(workers)} controllers over {args.states} states ...", flush=True)
        timing = run_timing(workers, order, Q, V, args.chunks, args.warmup)
    finally:
        for worker in workers.values():
            worker.close()
    table = print_table(timing, args.states, args.chunks)
    torques = {}
    for peer in workers:
        torques[peer] = agreed = torque_agreement(
            timing["taus"], peer, timing["wrenches"][peer], torsional_coefficients(config), robot.torque_max
        )
        difference = agreed["max_abs_difference_Nm"]
        print(
            f"{peer}: torques over the {args.states} states, max |tau_{peer} - tau_ours| per state: median "
            f"{difference['median']:.1e}, p99 {difference['p99']:.2g}, max {difference['max']:.3g} N m; "
            f"{agreed['states_differing']} states differ by more than {TAU_DIFF_TOL:g} N m, "
            f"{agreed['states_differing_with_peer_yaw_beyond_our_bound']} of them with a {peer} foot yaw moment "
            f"beyond our torsional bound ({peer}'s largest: {agreed['peer_max_abs_yaw_moment_Nm']:.1f} N m); "
            f"elsewhere at most {agreed['max_abs_difference_where_peer_yaw_within_our_bound_Nm']:.3g} N m; "
            f"{peer} failures: {timing['failures'][peer]}"
        )
    settings = {
        "states": args.states, "chunks": args.chunks, "warmup": args.warmup, "push_force_N": args.push_force,
        "peers": list(workers),
        "recording": "ours (compiled, eiquadprog) standing in MuJoCo from home, G1 flat scene, pushes on "
                     f"{PUSH_BODY} 0.1 s every 1 s, direction turning 90 degrees",
        "tick_ours": TICK_OURS,
        "tick": {peer: PEERS[peer].tick for peer in workers},
        "peer_problem": problem | {"posture": {k: v for k, v in problem["posture"].items() if k != "targets"}},
        "mismatches": {peer: list(PEERS[peer].mismatches) for peer in workers},
        "model": {"ours": str(g1_mjcf_path().name), "peers": f"{urdf.name} + frames {list(SITES)}, no geometry"},
    }  # fmt: skip
    version_keys = ("placo", "tsid", "pin", "numpy", "python", "omp_num_threads")
    results = {
        **table,
        "parts_median_us": {s: {p: float(np.median(v)) for p, v in by.items()} for s, by in timing["parts"].items()},
        "peer_failures": timing["failures"],
        "recording": recording,
        "model_agreement": agreement,
        "rest_check": rest,
        "torque_agreement": torques,
        "peer_workers": {peer: {k: d[k] for k in version_keys if k in d} for peer, d in described.items()},
        "reference_from_issue": {"placo_median_us": 83.5, "placo_p99_us": 120.0,
                                 "what": "G1, 2 planar contacts, CoM + posture, torque limits"},
    }  # fmt: skip
    write_json(args.json, settings, results, start)
    return results


if __name__ == "__main__":
    main()
