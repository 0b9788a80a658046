"""Keyword-argument handling shared by the environments: defaults, unknown names, value checks.

Every rejection reads ``"<keyword> must be <what is allowed>, got <value>"`` (a ``ValueError``):
[`keyword_error`][humanoid_env.envs.kwargs.keyword_error] builds it, the ``check_*`` functions use it, and [`naming`][humanoid_env.envs.kwargs.naming] puts the
keyword in front of the errors of a settings object built from a keyword's dict.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import fields
from typing import Any

import numpy as np

#: Shortens the received value in messages (a long list or a big array stays readable).
_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 80
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = 8


def shown(value: Any) -> str:
    """``repr(value)``, shortened to about 80 characters."""
    return _SHOWN.repr(value)


def keyword_error(name: str, allowed: str, value: Any) -> ValueError:
    """``ValueError("<name> must be <allowed>, got <value>")``: the form of every rejection."""
    return ValueError(f"{name} must be {allowed}, got {shown(value)}")


@contextmanager
def naming(keyword: str) -> Iterator[None]:
    """Re-raise a ``ValueError`` or ``TypeError`` raised inside as a ``ValueError`` whose message
    starts with ``keyword`` (``"<keyword>: <message>"``; kept as it is if it already does)."""
    try:
        yield
    except (TypeError, ValueError) as err:
        message = str(err)
        if isinstance(err, ValueError) and message.startswith(keyword):
            raise
        raise ValueError(f"{keyword}: {message}") from err


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


def is_bool(value: Any) -> bool:
    """Whether ``value`` is a boolean (``bool`` or ``numpy.bool_``)."""
    return isinstance(value, bool | np.bool_)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number (``int``, ``float`` or numpy's; not a bool, not a string)."""
    return isinstance(value, int | float | np.integer | np.floating) and not is_bool(value)


def _number(value: Any) -> float:
    """``float(value)`` of a number (or a numeric string); a boolean is not a number (``TypeError``)."""
    if is_bool(value):
        raise TypeError("a boolean is not a number")
    return float(value)


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a ``bool``: only ``True``/``False`` (or numpy's); a string such as ``"False"``
    or a number is rejected."""
    if not is_bool(value):
        raise keyword_error(name, "True or False", value)
    return bool(value)


def check_int(name: str, value: Any, low: int, high: int) -> int:
    """``value`` as an ``int`` in ``[low, high]``: an ``int`` or numpy integer (not a bool, not a
    float, even an integral one: ``10.0`` is rejected)."""
    allowed = f"an integer in [{low}, {high}]"
    if is_bool(value) or not isinstance(value, int | np.integer) or not low <= value <= high:
        raise keyword_error(name, allowed, value)
    return int(value)


def check_range(name: str, value: Any, low: float = -np.inf, high: float = np.inf) -> tuple[float, float]:
    """``value`` as a ``(lo, hi)`` pair with ``low <= lo <= hi <= high``, else ``ValueError``."""
    try:
        lo, hi = (_number(x) for x in value)
    except (TypeError, ValueError) as err:
        raise keyword_error(name, "a pair (lo, hi) of numbers", value) from err
    if not (np.isfinite(lo) and np.isfinite(hi) and low <= lo <= hi <= high):
        raise ValueError(f"{name} must satisfy {low} <= lo <= hi <= {high}, got ({lo}, {hi})")
    return lo, hi


def check_scalar(name: str, value: Any, low: float = -np.inf, high: float = np.inf, strict_low: bool = False) -> float:
    """``value`` as a finite float in ``[low, high]`` (``(low, high]`` if ``strict_low``)."""
    try:
        x = _number(value)
    except (TypeError, ValueError) as err:
        raise keyword_error(name, "a number", value) from err
    ok = math.isfinite(x) and (x > low if strict_low else x >= low) and x <= high
    if not ok:
        bound = f"> {low}" if strict_low else f">= {low}"
        raise ValueError(f"{name} must be finite, {bound} and <= {high}, got {x}")
    return x


def check_vector(name: str, value: Any, size: int, low: float = -np.inf) -> np.ndarray:
    """``value`` as a finite (size,) float array with entries ``>= low``."""
    try:
        if is_bool(value) or any(is_bool(x) for x in np.ravel(np.asarray(value, dtype=object))):
            raise TypeError("booleans are not numbers")
        array = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError) as err:
        raise keyword_error(name, f"{size} numbers", value) from err
    if array.shape != (size,) or not np.all(np.isfinite(array)) or np.any(array < low):
        raise keyword_error(name, f"{size} finite numbers >= {low}", value)
    return array


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of the strings ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise keyword_error(name, f"one of {choices}", value)
    return str(value)


def resolve_preset(keyword: str, value: Any, cls: type, presets: Mapping[str, Any], item: str) -> Any:
    """A preset-or-settings keyword (``randomise``, ``estimation``): None (off), a preset name, a
    dict of ``cls``'s fields (dataclass) or a ``cls`` instance; ``item`` names a field in errors
    ("range", "setting"). Anything else raises ``ValueError`` naming ``keyword`` and what is allowed;
    so do the errors of ``cls`` built from the dict (``"<keyword>: <its message>"``)."""
    if value is None or isinstance(value, cls):
        return value
    allowed = f"{keyword} must be None, one of {sorted(presets)}, or a dict of {item}s; got {shown(value)}"
    if isinstance(value, str):
        if value not in presets:
            raise ValueError(allowed)
        return presets[value]
    if isinstance(value, dict):
        valid = [f.name for f in fields(cls)]
        unknown = sorted(set(value) - set(valid), key=repr)
        if unknown:
            raise ValueError(f"{keyword}: unknown {item}(s) {unknown}; valid ones are: {', '.join(valid)}")
        with naming(keyword):
            return cls(**value)
    raise ValueError(allowed)
