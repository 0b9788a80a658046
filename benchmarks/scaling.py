"""Controller time against the number of contacts and the robot's degrees of freedom.

Records N states (default 2,000 physics steps = 4 s) of the standing robot under the WBC with
40 N pushes (as ``benchmarks/controller_step.py``), then replays the same states through one
controller per configuration, all taking turns state by state (each controller
keeps its own warm start), so that a change of machine load hits them alike:

- contacts (full robot, nv = 29): two feet (6D wrench each); + the right hand; + both hands.
  Hands are controlled point contacts at the ``<side>_hand`` sites (3D force, friction pyramid,
  normal force in [0, 60] N tracking 10 N), normals +y (right) and -y (left): walls on both
  sides. Timing only: the recorded states do not touch walls, the QPs are still feasible.
- degrees of freedom (two feet): the full robot; arms locked (8 joints); arms and waist locked
  (11 joints), locked at the home posture with ``pinocchio.buildReducedModel``; the states are
  restricted to the remaining joints.

For each configuration: nv and the QP's size (n, n_eq, n_in of the full problem; n_in of the hot
problem without the torque-limit rows), ``compute()`` wall time median / p99 [us], the medians of
its parts (``last_timings``, timed in C++: update = pinocchio terms, build, solve incl. a re-solve
when a torque limit is hit, torques) and how often a torque limit forced the re-solve (the core's
``used_torque_limits`` flag after each tick). JSON: ``results[group][configuration] = {"nv",
"n_contacts", "qp", "backends": {"compiled": {"compute", "parts_median_us",
"torque_limited_fraction"}}}`` (the one backend since the Python reference tick was retired:
issue 36; older results have ``"python"`` too).

    python -m benchmarks.scaling [--steps 2000] [--json PATH]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np
import pinocchio as pin

from benchmarks.common import RESULTS, machine, stats, write_json
from benchmarks.controller_step import PUSH_DURATION_S, PUSH_FORCE_N
from humanoid_env.robots.hubo_lite import HUBO_LITE
from humanoid_env.wbc_sim import WBCSimulation
from wbc_layer import ControllerConfig, RobotModel, WholeBodyController
from wbc_layer.mjcf_actuators import read_motor_torque_limits

ARM_JOINTS = tuple(
    f"{side}_{joint}"
    for side in ("left", "right")
    for joint in ("shoulder_pitch", "shoulder_roll", "shoulder_yaw", "elbow")
)
WAIST_JOINTS = ("waist_yaw", "waist_roll", "waist_pitch")
HAND_FORCE_TARGET_N = 10.0
HAND_NORMALS = {"right": (0.0, 1.0, 0.0), "left": (0.0, -1.0, 0.0)}
PARTS = ("update", "build", "solve", "torques")
BACKENDS = ("compiled",)


def record_states(steps: int) -> tuple[np.ndarray, np.ndarray, RobotModel]:
    """(q (steps, nq), v (steps, nv)) of a pushed standing rollout, and its robot model."""
    sim = WBCSimulation()
    torso = sim.model.body("torso").id
    qs, vs = [], []
    for k in range(steps):
        t = k * sim.model.opt.timestep
        angle = np.pi / 2 * int(t)
        pushing = 0.5 <= t % 1.0 < 0.5 + PUSH_DURATION_S
        sim.data.xfrc_applied[torso, :2] = (
            PUSH_FORCE_N * np.array([np.cos(angle), np.sin(angle)]) if pushing else 0.0
        )
        q, v = sim.state()
        qs.append(q)
        vs.append(v)
        sim.step()
    if sim.fallbacks:
        print(f"warning: {sim.fallbacks} fallbacks during the recording")
    return np.array(qs), np.array(vs), sim.robot


def reduced_robot(robot: RobotModel, locked: tuple[str, ...], q_reference: np.ndarray) -> RobotModel:
    """``robot`` with the joints ``locked`` fixed at their value in ``q_reference`` (nq,)."""
    model = pin.Model(robot.model)
    # NOTE: the MJCF sites "pelvis" and "torso" share their bodies' names; buildReducedModel looks
    # frames up by name alone and raises "Several frames match". Rename the sites for the
    # reduction and back afterwards (RobotModel.frame_id prefers the site of a shared name).
    suffix = "__site"
    counts = Counter(frame.name for frame in model.frames)
    for i, frame in enumerate(model.frames):
        if counts[frame.name] > 1 and frame.type == pin.FrameType.OP_FRAME:
            frame.name += suffix
            model.frames[i] = frame
    reduced = pin.buildReducedModel(model, [model.getJointId(name) for name in locked], q_reference)
    for i, frame in enumerate(reduced.frames):
        if frame.name.endswith(suffix):
            frame.name = frame.name[: -len(suffix)]
            reduced.frames[i] = frame
    return RobotModel(reduced, read_motor_torque_limits(HUBO_LITE.mjcf_path()))


def state_map(full: RobotModel, reduced: RobotModel) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays into the full ``q`` and ``v`` giving the reduced robot's ``q`` and ``v``."""
    q_ids, v_ids = list(range(7)), list(range(6))
    for name in reduced.joint_names:
        joint = full.model.joints[full.model.getJointId(name)]
        q_ids.append(joint.idx_q)
        v_ids.append(joint.idx_v)
    return np.array(q_ids), np.array(v_ids)


def contact_config(hands: tuple[str, ...], backend: str = "compiled") -> ControllerConfig:
    hand_contacts = tuple(HUBO_LITE.hand_contact(f"{side}_hand", HAND_NORMALS[side]) for side in hands)
    return HUBO_LITE.controller_config(contacts=(*HUBO_LITE.foot_contacts(), *hand_contacts), backend=backend)


class Case:
    """One configuration under one backend: a robot model, its controller, and the state restriction."""

    def __init__(self, name: str, robot: RobotModel, config: ControllerConfig, q0: np.ndarray, q_ids, v_ids):
        self.name, self.robot, self.backend = name, robot, config.backend
        self.q_ids, self.v_ids = q_ids, v_ids
        robot.update(q0[q_ids], np.zeros(robot.nv))  # the posture target: the home posture
        self.controller = WholeBodyController(robot, config)
        for contact in config.contacts:
            if contact.mode == "controlled":
                self.controller.set_force_target(contact.name, HAND_FORCE_TARGET_N)
        self.limited_ticks = 0  # ticks re-solved with the torque-limit rows (the core flags them)
        self.total_us: list[float] = []
        self.parts: dict[str, list[float]] = {part: [] for part in PARTS}

    def tick(self, q: np.ndarray, v: np.ndarray) -> None:
        start = time.perf_counter()
        self.controller.compute(q[self.q_ids], v[self.v_ids])
        self.total_us.append(1e6 * (time.perf_counter() - start))
        self.limited_ticks += int(self.controller.compiled.core.used_torque_limits)
        for part in PARTS:
            self.parts[part].append(self.controller.last_timings[part])

    def qp_size(self) -> dict[str, int]:
        """The last tick's QP: n, n_eq, n_in (full problem), n_in_hot (without torque-limit rows)."""
        controller = self.controller
        problem = controller.last_problem
        hot = controller.compiled.problem(with_torque_limits=False)
        return {"n": problem.n, "n_eq": problem.A.shape[0], "n_in": problem.G.shape[0], "n_in_hot": hot.G.shape[0]}

    def timing(self) -> dict:
        return {
            "compute": stats(self.total_us),
            "parts_median_us": {part: float(np.median(values)) for part, values in self.parts.items()},
            "torque_limited_fraction": self.limited_ticks / len(self.total_us),
        }


def summary(cases: list[Case]) -> dict:
    """One configuration's row: sizes (from the first backend's case) and each backend's timing."""
    first = cases[0]
    timing = {case.backend: case.timing() for case in cases}
    row = {
        "nv": first.robot.nv,
        "n_contacts": len(first.controller.contacts),
        "qp": first.qp_size(),
        "backends": timing,
    }
    return row


def build_cases(robot: RobotModel, q0: np.ndarray, backends: tuple[str, ...] = BACKENDS) -> dict[str, dict[str, list[Case]]]:
    """group -> configuration name -> one :class:`Case` per backend."""
    all_q, all_v = np.arange(robot.nq), np.arange(robot.nv)
    contacts = {
        name: [
            Case(name, RobotModel.from_mjcf(HUBO_LITE.mjcf_path()), contact_config(hands, backend), q0, all_q, all_v)
            for backend in backends
        ]
        for name, hands in (
            ("2 feet", ()),
            ("2 feet + right hand", ("right",)),
            ("2 feet + 2 hands", ("right", "left")),
        )
    }
    dofs = {"2 feet": contacts["2 feet"]}
    for name, locked in (("arms locked", ARM_JOINTS), ("arms + waist locked", ARM_JOINTS + WAIST_JOINTS)):
        dofs[name] = []
        for backend in backends:
            reduced = reduced_robot(robot, locked, q0)
            config = HUBO_LITE.controller_config(backend=backend)
            dofs[name].append(Case(name, reduced, config, q0, *state_map(robot, reduced)))
    return {"contacts": contacts, "dofs": dofs}


def print_table(title: str, rows: dict[str, dict]) -> None:
    print(f"\n{title}")
    print(
        f"  {'configuration':<22}{'nv':>4}{'n':>5}{'n_eq':>6}{'n_in':>6}{'hot':>5}  {'backend':<9}{'median [us]':>12}"
        f"{'p99 [us]':>10}{'update':>8}{'build':>8}{'solve':>8}{'torques':>9}{'limited':>9}"
    )
    for name, row in rows.items():
        qp = row["qp"]
        sizes = f"{name:<22}{row['nv']:>4}{qp['n']:>5}{qp['n_eq']:>6}{qp['n_in']:>6}{qp['n_in_hot']:>5}"
        for i, (backend, timing) in enumerate(row["backends"].items()):
            parts = timing["parts_median_us"]
            print(
                f"  {sizes if i == 0 else '':<48}  {backend:<9}{timing['compute']['median_us']:>12.1f}"
                f"{timing['compute']['p99_us']:>10.1f}{parts['update']:>8.1f}{parts['build']:>8.1f}{parts['solve']:>8.1f}"
                f"{parts['torques']:>9.1f}{timing['torque_limited_fraction']:>9.3f}"
            )


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="recorded states (physics steps at 500 Hz)")
    parser.add_argument("--json", default=str(RESULTS / "scaling.json"))
    args = parser.parse_args(argv)
    backends = BACKENDS
    start = machine()
    print(f"load average {start['load_average']} on {start['cpus']} CPUs")
    qs, vs, robot = record_states(args.steps)
    groups = build_cases(robot, qs[0], backends)
    # every case once (the full robot with two feet is in both groups), backends alternating
    cases = {id(case): case for group in groups.values() for row in group.values() for case in row}.values()
    for q, v in zip(qs, vs, strict=True):
        for case in cases:
            case.tick(q, v)
    results = {group: {name: summary(row) for name, row in members.items()} for group, members in groups.items()}
    print_table(
        f"number of contacts (full robot; {args.steps} states; times [us], parts are medians)",
        results["contacts"],
    )
    print_table("degrees of freedom (two feet)", results["dofs"])
    settings = {"steps": args.steps, "push_force_n": PUSH_FORCE_N, "backends": list(backends)}
    write_json(args.json, settings, results, start)
    return results


if __name__ == "__main__":
    main()
