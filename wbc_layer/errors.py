"""Exceptions raised by the whole-body controller."""

from __future__ import annotations

from typing import Any


class WBCError(Exception):
    """Base class of every error raised by [`wbc_layer`][wbc_layer]."""


class ConfigError(WBCError, ValueError):
    """A configuration value or name is invalid; the message lists what is allowed."""


class InvalidStateError(WBCError, ValueError):
    """A robot or environment-body state given to the controller is invalid: a wrong size, a
    non-finite entry, or a base quaternion that is not of unit norm. The message names the entries.

    Not a [`QPSolveError`][wbc_layer.errors.QPSolveError]: the documented fallback (gravity compensation) needs a valid
    state too, and raises this error for the same state."""


class RobotModelError(WBCError):
    """A robot description could not be loaded or does not fit the controller."""


class QPSolveError(WBCError):
    """The QP was infeasible, did not converge, or returned non-finite values.

    Attributes:
        status: the solver's status, as a short string (e.g. ``"primal_infeasible"``).
        problem: the [`wbc_layer.qp.QPProblem`][wbc_layer.qp.QPProblem] that failed, for inspection.
        result: the raw solver result (solver specific), or ``None``.
    """

    def __init__(self, status: str, problem: Any, result: Any = None):
        super().__init__(f"whole-body QP failed: {status}")
        self.status = status
        self.problem = problem
        self.result = result


def unknown_name_error(kind: str, name: str, valid: list[str] | tuple[str, ...]) -> ConfigError:
    """A [`ConfigError`][wbc_layer.errors.ConfigError] for an unknown ``name`` of ``kind``, listing the valid names."""
    shown = " ".join(repr(name).split())  # an array's repr on one line
    return ConfigError(f"unknown {kind} {shown}; valid {kind}s are: {', '.join(sorted(valid))}")
