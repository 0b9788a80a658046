"""Keyword-argument handling shared by the environments: defaults, unknown names, value checks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

import numpy as np


def resolve_kwargs(defaults: Mapping[str, Any], given: Mapping[str, Any], env_name: str) -> dict[str, Any]:
    """``defaults`` updated with ``given``; unknown names raise ``ValueError`` listing the valid ones.

    ``gym.make`` passes its keywords straight to ``__init__``, so this replaces Python's own
    ``TypeError`` with a message a user of ``gym.make`` can act on.
    """
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise ValueError(
            f"{env_name}: unknown keyword argument(s) {unknown}; valid ones are: {', '.join(sorted(defaults))}"
        )
    return {**defaults, **given}


def check_range(name: str, value: Any, low: float = -np.inf, high: float = np.inf) -> tuple[float, float]:
    """``value`` as a ``(lo, hi)`` pair with ``low <= lo <= hi <= high``, else ``ValueError``."""
    try:
        lo, hi = (float(x) for x in value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a pair (lo, hi) of numbers, got {value!r}") from err
    if not (np.isfinite(lo) and np.isfinite(hi) and low <= lo <= hi <= high):
        raise ValueError(f"{name} must satisfy {low} <= lo <= hi <= {high}, got ({lo}, {hi})")
    return lo, hi


def check_scalar(name: str, value: Any, low: float = -np.inf, high: float = np.inf, strict_low: bool = False) -> float:
    """``value`` as a finite float in ``[low, high]`` (``(low, high]`` if ``strict_low``)."""
    try:
        x = float(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a number, got {value!r}") from err
    ok = np.isfinite(x) and (x > low if strict_low else x >= low) and x <= high
    if not ok:
        bound = f"> {low}" if strict_low else f">= {low}"
        raise ValueError(f"{name} must be finite, {bound} and <= {high}, got {x}")
    return x


def check_vector(name: str, value: Any, size: int, low: float = -np.inf) -> np.ndarray:
    """``value`` as a finite (size,) float array with entries ``>= low``."""
    try:
        array = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be {size} numbers, got {value!r}") from err
    if array.shape != (size,) or not np.all(np.isfinite(array)) or np.any(array < low):
        raise ValueError(f"{name} must be {size} finite numbers >= {low}, got {value!r}")
    return array


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return str(value)


def resolve_preset(keyword: str, value: Any, cls: type, presets: Mapping[str, Any], item: str) -> Any:
    """A preset-or-settings keyword (``randomise``, ``estimation``): None (off), a preset name, a
    dict of ``cls``'s fields (dataclass) or a ``cls`` instance; ``item`` names a field in errors
    ("range", "setting"). Anything else raises ``ValueError`` naming ``keyword`` and what is allowed."""
    if value is None or isinstance(value, cls):
        return value
    allowed = f"{keyword} must be None, one of {sorted(presets)}, or a dict of {item}s; got {value!r}"
    if isinstance(value, str):
        if value not in presets:
            raise ValueError(allowed)
        return presets[value]
    if isinstance(value, dict):
        valid = [f.name for f in fields(cls)]
        unknown = sorted(set(value) - set(valid))
        if unknown:
            raise ValueError(f"{keyword}: unknown {item}(s) {unknown}; valid ones are: {', '.join(valid)}")
        return cls(**value)
    raise ValueError(allowed)
