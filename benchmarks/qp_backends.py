"""The controller's QPs solved by several QP backends: time and accuracy on the same problems.

For each contact set (each registered env: two feet; two feet + the right hand on the wall; the
seesaw's feet on the board), records N consecutive QPs (default 1,000 = 2 s at 500 Hz) of a wbc
rollout with zero actions and pushes every 0.5-1 s, then solves those same problems with:

- ``proxsuite warm (ours)``: :class:`wbc_layer.ProxsuiteSolver`, sequentially, warm-started
  from the previous solution (the controller's hot path);
- ``proxsuite cold (ours)``: the same, reset before every problem (the warm start's worth);
- ``eiquadprog (ours)``: :class:`wbc_layer.qp.EiquadprogSolver` (the default hot path: the
  compiled core's exact dual active-set solver, here called from Python, on the problem reduced
  to the equalities' null space);
- ``eiquadprog with equalities (ours)``: the same solver handed the equalities (what the core
  did before the elimination);
- ``daqp (ours)``: :class:`wbc_layer.qp.DaqpSolver` (another exact hot-path option);
- qpsolvers backends, cold, with the options in :data:`BACKEND_OPTIONS`.

The solvers take turns problem by problem, so a change of machine load hits them alike.
Times [us]: ``call``, the wall time of the whole call (for qpsolvers: ``solve_problem``, incl.
its conversions, e.g. to sparse matrices for OSQP); ``solver``, the time the solver reports
(qpsolvers' ``solution.solve_time``: the backend's solve call; ours: update + solve).

A solution counts as *solved* when the solver returned finite ``x`` with
``max|A x - b| <= TOL``, ``max(G x - h, 0) <= TOL`` and objective
``f(x) <= f* + TOL * max(1, |f*|)``, ``TOL = 1e-6``, where ``f*`` is the lowest objective among
all solvers' solutions that are feasible to ``TOL`` on that problem (rows in N, N m, m/s^2).

Two problem variants: ``hot`` (without the torque-limit rows: what the controller solves first,
and usually only) and ``full`` (with them: the re-solve when a limit is hit).

No ``--backends`` option: this benchmark does not depend on the controller backend. The problems
are recorded from the env's default (compiled) controller, copied out of it; both backends
build the same QP (``tests/test_backends_agree.py``), and every solver here, ours included, is
called from Python on those copies, outside any controller. The compiled backend's in-tick
solve is timed by ``benchmarks.controller_step`` and ``benchmarks.scaling``.

    python -m benchmarks.qp_backends [--problems 1000] [--variants hot full] [--json PATH]
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable

import numpy as np
import qpsolvers

from benchmarks.common import RESULTS, machine, record_problems, registered_env_ids, stats, write_json
from humanoid_env.registry import TASKS
from wbc_layer import ProxsuiteSolver, QPProblem, QPSolveError
from wbc_layer.qp import DaqpSolver, EiquadprogSolver

#: Feasibility and optimality tolerance of "solved" (see the module docstring).
TOL = 1e-6
#: qpsolvers backends and their options. Active-set solvers (daqp, quadprog) finish at a vertex
#: of the active set, exact to round-off: defaults. Iterative ones get explicit tolerances, tighter
#: than TOL on the residuals; OSQP (first-order ADMM) with polishing, which refines its active set.
BACKEND_OPTIONS: dict[str, dict] = {
    "daqp": {},
    "quadprog": {},
    "osqp": {"eps_abs": 1e-7, "eps_rel": 0.0, "polishing": True, "max_iter": 20000},
    "piqp": {
        "backend": "dense",
        "eps_abs": 1e-9,
        "eps_rel": 0.0,
        "eps_duality_gap_abs": 1e-9,
        "eps_duality_gap_rel": 0.0,
    },
    "proxqp": {"backend": "dense", "eps_abs": 1e-9, "eps_rel": 0.0},
}
#: env id -> its contact set, in words (each task's ``summary`` in ``humanoid_env.registry``).
ENV_LABELS = {env_id: entry.summary for env_id, entry in TASKS.items()}

#: A solver: problem -> (x or None, solver-reported time [us]).
Solve = Callable[[QPProblem], tuple[np.ndarray | None, float]]


def ours(solver, cold: bool = False) -> Solve:
    def solve(problem: QPProblem) -> tuple[np.ndarray | None, float]:
        if cold:
            solver.reset()
        try:
            solution = solver.solve(problem)
        except QPSolveError:
            return None, np.nan
        return solution.x, solution.solve_time_us

    return solve


def backend(name: str, options: dict) -> Solve:
    def solve(problem: QPProblem) -> tuple[np.ndarray | None, float]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a backend's "not solved" warning: counted below
            try:
                solution = qpsolvers.solve_problem(problem.to_qpsolvers(), solver=name, **options)
            except Exception:  # noqa: BLE001  (a backend's own error is a failure to count)
                return None, np.nan
        x = solution.x if solution.found and solution.x is not None else None
        return x, 1e6 * float(getattr(solution, "solve_time", np.nan) or np.nan)

    return solve


def solvers(backends: list[str]) -> dict[str, Solve]:
    found = {
        "proxsuite warm (ours)": ours(ProxsuiteSolver()),
        "proxsuite cold (ours)": ours(ProxsuiteSolver(), cold=True),
        "eiquadprog (ours)": ours(EiquadprogSolver()),
        "eiquadprog with equalities (ours)": ours(EiquadprogSolver(eliminate_equalities=False)),
        "daqp (ours)": ours(DaqpSolver()),
    }
    for name in backends:
        if name in qpsolvers.available_solvers:
            found[name] = backend(name, BACKEND_OPTIONS.get(name, {}))
        else:
            print(f"note: qpsolvers backend {name!r} is not installed; skipped")
    return found


def residuals(problem: QPProblem, x: np.ndarray) -> tuple[float, float, float]:
    """(max equality residual, max inequality violation, objective) of ``x``."""
    eq = float(np.max(np.abs(problem.A @ x - problem.b), initial=0.0))
    ineq = float(np.max(problem.G @ x - problem.h, initial=0.0))
    objective = float(0.5 * x @ problem.P @ x + problem.q @ x)
    return eq, max(ineq, 0.0), objective


def run(problems: list[QPProblem], backends: list[str]) -> dict[str, dict]:
    """Solve every problem with every solver, in turns; time and score each solution."""
    table = solvers(backends)
    n = len(problems)
    call_us = {name: np.full(n, np.nan) for name in table}
    solver_us = {name: np.full(n, np.nan) for name in table}
    scores = {name: np.full((n, 3), np.nan) for name in table}  # eq, ineq, objective
    clock = time.perf_counter
    for k, problem in enumerate(problems):
        qp = problem
        for name, solve in table.items():
            t0 = clock()
            x, reported = solve(qp)
            call_us[name][k] = 1e6 * (clock() - t0)
            solver_us[name][k] = reported
            if x is not None and np.all(np.isfinite(x)):
                scores[name][k] = residuals(problem, x)
    feasible = {name: (s[:, 0] <= TOL) & (s[:, 1] <= TOL) for name, s in scores.items()}
    best = np.nanmin(
        np.stack([np.where(feasible[name], s[:, 2], np.nan) for name, s in scores.items()]), axis=0
    )
    results = {}
    for name, s in scores.items():
        gap = s[:, 2] - best
        solved = feasible[name] & (gap <= TOL * np.maximum(1.0, np.abs(best)))
        reported = solver_us[name][np.isfinite(solver_us[name])]
        results[name] = {
            "call": stats(call_us[name]),
            "solver_median_us": float(np.median(reported)) if reported.size else None,
            "solved_fraction": float(np.mean(solved)),
            "failed": int(np.sum(np.isnan(s[:, 0]))),
            "max_equality_residual": float(np.nanmax(s[:, 0], initial=0.0)),
            "max_inequality_violation": float(np.nanmax(s[:, 1], initial=0.0)),
            "max_objective_gap": float(np.nanmax(gap, initial=0.0)),
            "options": BACKEND_OPTIONS.get(
                name, {"eps_abs": ProxsuiteSolver().eps_abs} if "proxsuite" in name else {}
            ),
        }
    return results


def sizes(problems: list[QPProblem]) -> dict[str, int]:
    shapes = {(p.n, p.A.shape[0], p.G.shape[0]) for p in problems}
    if len(shapes) > 1:
        print(f"note: the QP's size changed during the recording: {sorted(shapes)}")
    n, n_eq, n_in = max(shapes)
    return {"n": n, "n_eq": n_eq, "n_in": n_in}


def print_table(title: str, size: dict[str, int], rows: dict[str, dict]) -> None:
    print(f"\n{title}: n={size['n']}, n_eq={size['n_eq']}, n_in={size['n_in']}")
    print(
        f"  {'solver':<24}{'median [us]':>12}{'p99 [us]':>10}{'solver med.':>12}{'solved':>8}{'failed':>7}"
        f"{'max eq res':>11}{'max ineq':>10}{'max f gap':>10}"
    )
    for name, row in rows.items():
        solver_median = row["solver_median_us"]
        print(
            f"  {name:<24}{row['call']['median_us']:>12.1f}{row['call']['p99_us']:>10.1f}"
            f"{solver_median if solver_median is not None else float('nan'):>12.1f}{row['solved_fraction']:>8.3f}"
            f"{row['failed']:>7d}{row['max_equality_residual']:>11.1e}{row['max_inequality_violation']:>10.1e}"
            f"{row['max_objective_gap']:>10.1e}"
        )


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=1000, help="consecutive QPs recorded per contact set")
    parser.add_argument("--variants", nargs="+", choices=("hot", "full"), default=["hot", "full"])
    parser.add_argument("--backends", nargs="+", default=list(BACKEND_OPTIONS), help="qpsolvers backends")
    parser.add_argument("--envs", nargs="+", default=None, help="env ids (default: every registered one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=str(RESULTS / "qp_backends.json"))
    args = parser.parse_args(argv)
    start = machine()
    print(f"load average {start['load_average']} on {start['cpus']} CPUs")
    env_ids = args.envs or registered_env_ids()
    results: dict[str, dict] = {}
    for env_id in env_ids:
        hot, full, info = record_problems(env_id, args.problems, seed=args.seed)
        print(
            f"\n== {env_id} ({ENV_LABELS.get(env_id, env_id)}): recorded {len(hot)} QPs in {info['seconds']:.1f} s"
            f" ({info['resets']} resets, {info['fallbacks']} fallbacks)"
        )
        entry = results[env_id] = {"contact_set": ENV_LABELS.get(env_id, env_id), "recording": info}
        for variant in args.variants:
            problems = hot if variant == "hot" else full
            size = sizes(problems)
            rows = run(problems, args.backends)
            entry[variant] = {"size": size, "solvers": rows}
            print_table(f"{variant} problems", size, rows)
    settings = {
        "problems": args.problems,
        "variants": args.variants,
        "envs": env_ids,
        "seed": args.seed,
        "tolerance": TOL,
        "actions": "zero",
        "push_interval_s": [0.5, 1.0],
    }
    write_json(args.json, settings, results, start)
    return results


if __name__ == "__main__":
    main()
