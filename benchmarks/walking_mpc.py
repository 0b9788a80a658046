"""The walking MPC in the compiled core against the numpy formulation it replaced, side by side.

The walk env's seventh revision moved ``CoMPlanner.plan``'s QP assembly and solve into the core
(``core/walking_mpc.cpp``). This records the MPC problems of ``HumanoidWBCWalk-v0`` walks (wbc
mode, zero action, the env's drawn commands and pushes, each robot), then times on every problem,
taking turns problem by problem: the planner's ``plan`` (the Python that packs the problem into
arrays and the core's assembly and solve), the core's call alone, and :func:`numpy_plan` (the
numpy assembly with the same solver, the formulation the core replaced: also
``tests/test_walking_mpc.py``'s reference). Reports medians and the ratios of the medians, and
the largest difference of the plans' CoPs [m] (round-off).

    python -m benchmarks.walking_mpc [--robots hubo_lite g1] [--steps 300] [--rounds 5] [--json F]
"""

from __future__ import annotations

import argparse
import copy
import time

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the envs)
from benchmarks.common import machine, stats, write_json
from wbc_layer.qp import EiquadprogSolver, QPProblem
from wbc_layer.stepping import _edges, _hull, _rectangle, _rotation
from wbc_layer.walking import CoMPlanner


def numpy_plan(planner: CoMPlanner, state, holds, samples, reach, cop_half_sizes, velocity_ref=None, initial_support=None):
    """The numpy formulation of ``planner.plan``'s problem, solved with the same eiquadprog: (status,
    cost, hold positions (H, 2), jerk (N, 2), cop (N, 2), state (3, 2)). ``QPSolveError`` where the
    constraints leave no solution (the planner's fallback is not repeated here)."""
    g = planner.gait
    N = g.horizon
    variables = [i for i, hold in enumerate(holds) if hold.variable]
    column = {hold: 2 * N + 2 * v for v, hold in enumerate(variables)}
    n = 2 * N + 2 * len(variables)
    free_a = g.free_acceleration_weight is not None
    a_col = n
    if free_a:
        n += 2

    def affine(index):
        hold = holds[index]
        if hold.variable:
            return column[index], np.zeros(2)
        if hold.anchor is not None:
            return column[hold.anchor], hold.offset
        return None, hold.position

    Pzs, Pzu = planner.Pzs, planner.Pzu
    if free_a:
        samples = [initial_support, *samples]
        Pzs = np.vstack([[1.0, 0.0, -planner.zeta], planner.Pzs])
        Pzu = np.vstack([np.zeros(N), planner.Pzu])
    R = len(samples)
    free = np.stack([Pzs @ state[:, 0], Pzs @ state[:, 1]], axis=1)
    E = np.zeros((2, R, n))
    E[0, :, :N] = Pzu
    E[1, :, N : 2 * N] = Pzu
    if free_a:
        E[0, :, a_col] = Pzs[:, 2]
        E[1, :, a_col + 1] = Pzs[:, 2]
    e0 = free.copy()
    for k, (centre, *_) in enumerate(samples):
        e0[k] -= centre.const
        for hold, weight in centre.terms.items():
            col, const = affine(hold)
            e0[k] -= weight * const
            if col is not None:
                E[0, k, col] -= weight
                E[1, k, col + 1] -= weight
    e_cost = e0 - np.array([sample[3] if len(sample) > 3 else (0.0, 0.0) for sample in samples])
    regularise = np.full(n, g.jerk_weight)
    if free_a:
        regularise[a_col:] = g.free_acceleration_weight
    reference = np.zeros(n)
    for hold, c in column.items():
        regularise[c : c + 2] = g.footstep_weight
        reference[c : c + 2] = holds[hold].position
    P = 2.0 * (E[0].T @ E[0] + E[1].T @ E[1] + np.diag(regularise))
    q = 2.0 * (E[0].T @ e_cost[:, 0] + E[1].T @ e_cost[:, 1] - regularise * reference)
    constant = float((e_cost * e_cost).sum() + (regularise * reference * reference).sum())
    if g.velocity_weight > 0.0 and velocity_ref is not None:
        w = g.velocity_weight
        for axis in range(2):
            cols = slice(axis * N, (axis + 1) * N)
            error0 = planner.Pvs @ state[:, axis] - velocity_ref[:, axis]
            constant += w * float(error0 @ error0)
            P[cols, cols] += 2.0 * w * planner.Pvu.T @ planner.Pvu
            q[cols] += 2.0 * w * planner.Pvu.T @ error0
            if free_a:
                c, pv = a_col + axis, planner.Pvs[:, 2]
                P[c, c] += 2.0 * w * pv @ pv
                P[cols, c] += 2.0 * w * planner.Pvu.T @ pv
                P[c, cols] += 2.0 * w * pv @ planner.Pvu
                q[c] += 2.0 * w * pv @ error0
    rows, bounds = [], []
    hl, hw = cop_half_sizes
    grown = g.initial_cop_margin_m
    for k, (_, yaw, pair, *_) in enumerate(samples):
        now = free_a and k == 0
        if now and grown is None:
            continue
        if pair is not None and affine(pair[0])[0] is None and affine(pair[1])[0] is None:  # the hull of two fixed soles
            corners = [_rectangle(holds[i].position, holds[i].yaw, cop_half_sizes) for i in pair]
            normals, offsets = _edges(_hull(np.vstack(corners)))
            block = np.zeros((len(normals), n))
            block[:, :N] = normals[:, :1] * Pzu[k]
            block[:, N : 2 * N] = normals[:, 1:] * Pzu[k]
            if free_a:
                block[:, n - 2 :] = normals * Pzs[k, 2]
            bound = offsets - normals @ free[k]
            if now:
                bound = bound + grown * np.abs(normals).sum(axis=1)
        else:  # a box around the reference, in the sole's axes
            axes = _rotation(yaw).T
            box = axes @ np.stack([E[0, k], E[1, k]])
            block = np.vstack([box, -box])
            offset = axes @ e0[k]
            bound = np.array([hl, hw, hl, hw]) - np.concatenate([offset, -offset])
            if now:
                bound = bound + grown
        rows.append(block)
        bounds.append(bound)
    for hold, parent, polygon in reach:
        normals, offsets = _edges(polygon)
        world = normals @ _rotation(holds[parent].yaw).T
        block = np.zeros((len(world), n))
        block[:, column[hold] : column[hold] + 2] = world
        bound = offsets.copy()
        if parent in column:
            block[:, column[parent] : column[parent] + 2] -= world
        else:
            bound += world @ holds[parent].position
        rows.append(block)
        bounds.append(bound)
    problem = QPProblem(P, q, np.zeros((0, n)), np.zeros(0), np.concatenate(rows), np.concatenate(bounds))
    u = EiquadprogSolver().solve(problem).x
    positions = np.array([hold.position for hold in holds], dtype=float)
    for hold, c in column.items():
        positions[hold] = u[c : c + 2]
    for i, hold in enumerate(holds):
        if hold.anchor is not None:
            positions[i] = positions[hold.anchor] + hold.offset
    jerk = np.column_stack([u[:N], u[N : 2 * N]])
    cop = free[R - N :] + np.column_stack([planner.Pzu @ jerk[:, 0], planner.Pzu @ jerk[:, 1]])
    state = np.array(state, dtype=float)
    if free_a:
        state[2] += u[a_col:]
        cop = cop + np.outer(planner.Pzs[:, 2], u[a_col:])
    return "solved", float(0.5 * u @ P @ u + q @ u) + constant, positions, jerk, cop, state


def record_problems(robot: str, steps: int, seed: int) -> tuple[CoMPlanner, list[tuple]]:
    """The walk env's planner and the MPC problems of ``steps`` env steps of walking (its inputs, copied)."""
    env = gym.make("HumanoidWBCWalk-v0", robot=robot)
    planner = env.unwrapped.task.walker.generator.planner
    problems, plan = [], planner.plan

    def recording_plan(t0, state, holds, samples, reach, cop_half_sizes, velocity_ref=None, initial_support=None):
        problems.append((state.copy(), copy.deepcopy(holds), list(samples), reach, cop_half_sizes, velocity_ref, initial_support))
        return plan(t0, state, holds, samples, reach, cop_half_sizes, velocity_ref, initial_support)

    planner.plan = recording_plan
    env.reset(seed=seed)
    action = np.zeros(env.action_space.shape)
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    del planner.plan  # (the class's again)
    env.close()
    return planner, problems


def time_problems(planner: CoMPlanner, problems: list[tuple], rounds: int) -> dict:
    """Per problem, each form timed once per round, the forms taking turns [us]; the largest CoP difference [m]."""
    times = {"plan (ours: packing + core)": [], "core call alone": [], "numpy assembly + solve (before)": []}
    core_calls = []

    def spy_solve(*args):  # the core's call with its arguments, once per problem
        core_calls.append(args)
        return mpc.solve(*args)

    mpc = planner._mpc
    worst = 0.0
    for state, holds, samples, reach, half, velocity_ref, initial in problems:
        planner._mpc = type("Spy", (), {"solve": staticmethod(spy_solve)})()
        ours = planner.plan(0.0, state, copy.deepcopy(holds), samples, reach, half, velocity_ref, initial)
        planner._mpc = mpc
        before = numpy_plan(planner, state, copy.deepcopy(holds), samples, reach, half, velocity_ref, initial)
        worst = max(worst, float(np.abs(ours.cop - before[4]).max()))
    for _ in range(rounds):
        for problem, args in zip(problems, core_calls, strict=True):
            state, holds, samples, reach, half, velocity_ref, initial = problem
            for name in times:
                copied = copy.deepcopy(holds)  # (both plans write the landings back)
                start = time.perf_counter()
                if name.startswith("plan"):
                    planner.plan(0.0, state, copied, samples, reach, half, velocity_ref, initial)
                elif name.startswith("core"):
                    mpc.solve(*args)
                else:
                    numpy_plan(planner, state, copied, samples, reach, half, velocity_ref, initial)
                times[name].append(1e6 * (time.perf_counter() - start))
    rows = {name: stats(samples) for name, samples in times.items()}
    before = rows["numpy assembly + solve (before)"]["median_us"]
    for row in rows.values():
        row["before_over_this"] = before / row["median_us"]
    return {"problems": len(problems), "rows": rows, "largest_cop_difference_m": worst}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--robots", nargs="+", default=["hubo_lite", "g1"])
    parser.add_argument("--steps", type=int, default=300, help="env steps of walking recorded per robot")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    start = machine()
    results = {}
    for robot in args.robots:
        planner, problems = record_problems(robot, args.steps, args.seed)
        results[robot] = result = time_problems(planner, problems, args.rounds)
        line = ", ".join(f"{name} {row['median_us']:.1f} us ({row['before_over_this']:.2f}x)" for name, row in result["rows"].items())
        print(f"{robot:<10} {result['problems']} problems: {line}; CoPs within {result['largest_cop_difference_m']:.1e} m")
    if args.json:
        write_json(args.json, vars(args), results, start)


if __name__ == "__main__":
    main()
