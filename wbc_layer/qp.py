"""The QP boundary: a solver-independent problem, and the solvers that take it.

``QPProblem`` is qpsolvers' form:

    minimise 1/2 x^T P x + q^T x   subject to   A x = b,   G x <= h

with no infinities in ``h``. [`ProxsuiteSolver`][wbc_layer.qp.ProxsuiteSolver] keeps one proxsuite dense QP between
calls and warm-starts it from the previous solution (the default hot path);
[`DaqpSolver`][wbc_layer.qp.DaqpSolver] and [`EiquadprogSolver`][wbc_layer.qp.EiquadprogSolver] are alternatives whose solves are reproducible bit
for bit; [`solve_with_qpsolvers`][wbc_layer.qp.solve_with_qpsolvers]
solves the same problem with any qpsolvers backend (tests, benchmarks).

NOTE: proxsuite's dense solver is not bit-reproducible: the same problem sequence solved by
two QP objects differed by up to 1e-12 in ``x`` (its vectorised kernels depend on where its
workspace lands in memory). DAQP (a C active-set solver) returned identical bits every time.
"""

from __future__ import annotations

import time
from ctypes import c_int
from dataclasses import dataclass

import daqp
import numpy as np
import proxsuite
import qpsolvers

from wbc_layer.errors import ConfigError, QPSolveError

#: Absolute tolerance on primal and dual residuals [units of the rows: N, N m, m/s^2].
DEFAULT_EPS_ABS = 1e-9
@dataclass
class QPProblem:
    """``P`` (n, n), ``q`` (n,), ``A`` (n_eq, n), ``b`` (n_eq,), ``G`` (n_in, n), ``h`` (n_in,)."""

    P: np.ndarray
    q: np.ndarray
    A: np.ndarray
    b: np.ndarray
    G: np.ndarray
    h: np.ndarray

    @property
    def n(self) -> int:
        return self.P.shape[0]

    def copy(self) -> QPProblem:
        """A copy that owns its arrays (a builder's problem is overwritten at the next tick)."""
        return QPProblem(*(np.array(a) for a in (self.P, self.q, self.A, self.b, self.G, self.h)))

    def to_qpsolvers(self) -> qpsolvers.Problem:
        return qpsolvers.Problem(self.P, self.q, self.G, self.h, self.A, self.b)


@dataclass(frozen=True)
class QPSolution:
    """Solution ``x`` (n,), the solver's status string, iterations and solve time [us]."""

    x: np.ndarray
    status: str
    iterations: int
    solve_time_us: float


_PROXSUITE_STATUS = {
    proxsuite.proxqp.QPSolverOutput.PROXQP_SOLVED: "solved",
    proxsuite.proxqp.QPSolverOutput.PROXQP_MAX_ITER_REACHED: "max_iter_reached",
    proxsuite.proxqp.QPSolverOutput.PROXQP_PRIMAL_INFEASIBLE: "primal_infeasible",
    proxsuite.proxqp.QPSolverOutput.PROXQP_DUAL_INFEASIBLE: "dual_infeasible",
    proxsuite.proxqp.QPSolverOutput.PROXQP_SOLVED_CLOSEST_PRIMAL_FEASIBLE: "closest_primal_feasible",
    proxsuite.proxqp.QPSolverOutput.PROXQP_NOT_RUN: "not_run",
}


class ProxsuiteSolver:
    """Warm-started proxsuite dense QP, rebuilt only when the problem's sizes change.

    Args:
        eps_abs: absolute residual tolerance (proxsuite's default 1e-3 is far too loose).
        max_iter: iteration cap; reaching it is a failure.
    """

    def __init__(self, eps_abs: float = DEFAULT_EPS_ABS, max_iter: int = 1000):
        self.eps_abs = eps_abs
        self.max_iter = max_iter
        self._qp = None
        self._dims: tuple[int, int, int] | None = None

    def reset(self) -> None:
        """Forget the warm start (next solve starts cold)."""
        self._qp, self._dims = None, None

    def solve(self, problem: QPProblem) -> QPSolution:
        """Solve ``problem``; raise [`QPSolveError`][wbc_layer.errors.QPSolveError] unless solved with finite ``x``."""
        dims = (problem.n, problem.A.shape[0], problem.G.shape[0])
        lower = np.full(dims[2], -1e20)
        start = time.perf_counter()
        if self._dims != dims:
            self._qp = self._new_qp(*dims)
            self._qp.init(problem.P, problem.q, problem.A, problem.b, problem.G, lower, problem.h)
            self._dims = dims
            self._qp.solve()
        else:
            self._qp.update(problem.P, problem.q, problem.A, problem.b, problem.G, lower, problem.h)
            # NOTE: warm start from our own copy of the last primal/dual solution. proxsuite's
            # WARM_START_WITH_PREVIOUS_RESULT gave trajectories that differed at 1e-14 between
            # controller instances fed identical problems (then diverged chaotically).
            self._qp.solve(*self._previous)
        elapsed_us = (time.perf_counter() - start) * 1e6
        results = self._qp.results
        status = _PROXSUITE_STATUS.get(results.info.status, str(results.info.status))
        x = np.array(results.x)
        self._previous = (x, np.array(results.y), np.array(results.z))
        if status != "solved" or not np.all(np.isfinite(x)):
            self.reset()  # a failed solve must not seed the next warm start
            raise QPSolveError(status if status != "solved" else "non_finite_solution", problem.copy(), results)
        return QPSolution(x, status, int(results.info.iter), elapsed_us)

    def _new_qp(self, n: int, n_eq: int, n_in: int):
        qp = proxsuite.proxqp.dense.QP(n, n_eq, n_in)
        qp.settings.eps_abs = self.eps_abs
        qp.settings.eps_rel = 0.0
        qp.settings.max_iter = self.max_iter
        qp.settings.verbose = False
        qp.settings.initial_guess = proxsuite.proxqp.InitialGuess.WARM_START
        return qp


_DAQP_STATUS = {1: "solved", 2: "solved", -1: "primal_infeasible", -2: "cycling", -3: "unbounded",
                -4: "max_iter_reached", -5: "nonconvex", -6: "overdetermined_initial_active_set"}
_DAQP_EQUALITY = 5  # DAQP constraint sense: active + immutable
_DAQP_NO_LOWER = -1e30


class DaqpSolver:
    """DAQP (dual active set), solved from scratch each call: same problem, same bits.

    Same interface as [`ProxsuiteSolver`][wbc_layer.qp.ProxsuiteSolver]; equalities are passed as immutable rows.
    """

    def reset(self) -> None:
        """Nothing to forget: each solve starts cold."""

    def solve(self, problem: QPProblem) -> QPSolution:
        n_eq = problem.A.shape[0]
        rows = np.vstack([problem.A, problem.G])
        upper = np.concatenate([problem.b, problem.h])
        lower = np.concatenate([problem.b, np.full(problem.G.shape[0], _DAQP_NO_LOWER)])
        sense = np.zeros(rows.shape[0], dtype=c_int)
        sense[:n_eq] = _DAQP_EQUALITY
        start = time.perf_counter()
        x, _, flag, info = daqp.solve(problem.P, problem.q, rows, upper, lower, sense)
        elapsed_us = (time.perf_counter() - start) * 1e6
        status = _DAQP_STATUS.get(int(flag), f"daqp_flag_{flag}")
        x = np.asarray(x, dtype=float)
        if status != "solved" or not np.all(np.isfinite(x)):
            raise QPSolveError(status if status != "solved" else "non_finite_solution", problem.copy(), info)
        return QPSolution(x, status, int(info.get("iterations", -1)) if isinstance(info, dict) else -1, elapsed_us)


class EiquadprogSolver:
    """eiquadprog's Goldfarb-Idnani dual active set (the compiled core's solver, called from
    Python), solved from scratch each call: same problem, same bits. Needs ``P`` positive definite.

    Same interface as [`ProxsuiteSolver`][wbc_layer.qp.ProxsuiteSolver]. Raises [`ConfigError`][wbc_layer.errors.ConfigError] if
    the compiled core (which holds the solver) was not built.

    ``eliminate_equalities`` (default True, as in the controller): solve in the null space of
    ``A`` (``x = x0 + Z y`` from a QR of ``A^T``, an inequality-only QP in ``y``), the same
    optimum to round-off and about a third faster on the controller's problems
    (``benchmarks.qp_backends``); False hands eiquadprog the equalities.
    """

    def __init__(self, max_iter: int = 1000, eliminate_equalities: bool = True):
        try:
            from wbc_layer import _core
        except ImportError as err:
            raise ConfigError(
                f"qp_solver='eiquadprog' lives in the compiled core, which is not built ({err}); "
                "use qp_solver='daqp' for an exact solve without it"
            ) from err
        self._solver = _core.EiquadprogSolver(max_iter, eliminate_equalities)

    def reset(self) -> None:
        """Nothing to forget: each solve starts cold."""

    def solve(self, problem: QPProblem) -> QPSolution:
        start = time.perf_counter()
        status, x, iterations = self._solver.solve(problem.P, problem.q, problem.A, problem.b, problem.G, problem.h)
        elapsed_us = (time.perf_counter() - start) * 1e6
        if status != "solved":
            raise QPSolveError(status, problem.copy(), None)
        return QPSolution(np.asarray(x), status, int(iterations), elapsed_us)


#: Hot-path solvers by name (``ControllerConfig.qp_solver``).
SOLVERS = {"proxsuite": ProxsuiteSolver, "daqp": DaqpSolver, "eiquadprog": EiquadprogSolver}


def solve_with_qpsolvers(problem: QPProblem, solver: str, **options) -> QPSolution:
    """Solve with a qpsolvers backend (e.g. ``"daqp"``, ``"quadprog"``, ``"proxqp"``)."""
    if solver not in qpsolvers.available_solvers:
        raise ValueError(f"QP backend {solver!r} is not installed; available: {qpsolvers.available_solvers}")
    start = time.perf_counter()
    solution = qpsolvers.solve_problem(problem.to_qpsolvers(), solver=solver, **options)
    elapsed_us = (time.perf_counter() - start) * 1e6
    if not solution.found or solution.x is None or not np.all(np.isfinite(solution.x)):
        raise QPSolveError(f"{solver}_not_found", problem, solution)
    return QPSolution(np.asarray(solution.x), "solved", -1, elapsed_us)
