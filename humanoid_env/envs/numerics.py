"""Small numeric helpers of the env's hot path: each gives numpy's value bit for bit without its
Python overhead (the physics loop runs them 500 times a second)."""

from __future__ import annotations

import math

import numpy as np

# ``ndarray.sum()`` without its Python wrapper (the same pairwise sum).
add_reduce = np.add.reduce
isfinite = math.isfinite


def clip_scalar(x: float, low: float, high: float) -> float:
    """``float(np.clip(x, low, high))`` for one number, without numpy's call overhead: the same
    value bit for bit (on a tie ``x`` itself is kept, as numpy does; a NaN passes through)."""
    if x != x:
        return float(x)
    return float(min(max(x, low), high))


def all_finite(x: np.ndarray) -> bool:
    """``np.all(np.isfinite(x))``: a finite sum has finite terms (the entry-wise check only runs
    when the sum is not finite)."""
    return isfinite(add_reduce(x)) or bool(np.isfinite(x).all())


def norm(x: np.ndarray) -> float:
    """``float(np.linalg.norm(x))`` of a vector (the same value: the square root of ``x.dot(x)``)."""
    return math.sqrt(x.dot(x))


def mean_square(x: np.ndarray) -> float:
    """``float(np.mean(x**2))`` (the same value: ``x**2`` is ``x * x``, the mean a sum over the count)."""
    return float(add_reduce(x * x) / x.size)


def low_pass_gain(dt: float, time_constant_s: float) -> float:
    """Share of the remaining step a first-order low-pass of ``time_constant_s`` [s] takes in ``dt``
    [s] (``min(1, dt / T)``; 1, i.e. no filter, when ``T`` or ``dt`` is 0)."""
    return min(1.0, dt / time_constant_s) if time_constant_s > 0.0 and dt > 0.0 else 1.0
