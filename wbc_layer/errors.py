"""Exceptions raised by the whole-body controller."""

from __future__ import annotations

from typing import Any


class WBCError(Exception):
    """Base class of every error raised by :mod:`wbc_layer`."""


class ConfigError(WBCError, ValueError):
    """A configuration value or name is invalid; the message lists what is allowed."""


class RobotModelError(WBCError):
    """A robot description could not be loaded or does not fit the controller."""


class QPSolveError(WBCError):
    """The QP was infeasible, did not converge, or returned non-finite values.

    Attributes:
        status: the solver's status, as a short string (e.g. ``"primal_infeasible"``).
        problem: the :class:`wbc_layer.qp.QPProblem` that failed, for inspection.
        result: the raw solver result (solver specific), or ``None``.
    """

    def __init__(self, status: str, problem: Any, result: Any = None):
        super().__init__(f"whole-body QP failed: {status}")
        self.status = status
        self.problem = problem
        self.result = result


def unknown_name_error(kind: str, name: str, valid: list[str] | tuple[str, ...]) -> ConfigError:
    """A :class:`ConfigError` for an unknown ``name`` of ``kind``, listing the valid names."""
    return ConfigError(f"unknown {kind} {name!r}; valid {kind}s are: {', '.join(sorted(valid))}")
