"""Strict JSON for every record the project writes (results, run folders, benchmarks, examples).

Python's `json.dumps` writes a float NaN as a bare ``NaN`` and an infinity as ``Infinity``:
not JSON (RFC 8259), and strict parsers (``JSON.parse``, ``jq``, most non-Python readers) reject
the whole file. [`dumps`][training.jsonio.dumps] and [`write_json`][training.jsonio.write_json] write a non-finite float (NaN, +inf, -inf;
``numpy.float64`` is a ``float``) as ``null`` instead and pass ``allow_nan=False``, so nothing
non-standard can slip through. A ``null`` in a record therefore means "not a number here" (a
metric that was undefined, e.g. a time to level that never came, a ratio over zero episodes).
Finite values are written exactly as `json.dumps` writes them: a record without NaN or
infinity comes out byte for byte as before.

Reading: `json.loads` gives ``None`` where the writer saw NaN or inf; a reader that needs
NaN there (the metrics of an evaluation record) passes the record through [`metrics_from_json`][training.jsonio.metrics_from_json].
This module imports only the standard library (``benchmarks`` and ``examples`` import it too).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

__all__ = ["dumps", "finite_or_none", "metrics_from_json", "write_json"]


def finite_or_none(value: Any) -> Any:
    """``value`` with every non-finite float in it (NaN, +inf, -inf) replaced by ``None``.

    Walks dicts (keys kept, in order), lists and tuples (both become lists, as `json` writes
    them); a float (``numpy.float64`` included: it is a ``float``) becomes ``None`` when it is not
    finite. Anything else is returned as it is, so a value `json` cannot write (a numpy
    array, a ``numpy.float32``) still fails there with its own error.
    """
    if isinstance(value, dict):
        return {key: finite_or_none(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite_or_none(item) for item in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    """`json.dumps` of ``value`` as strict JSON: NaN and infinities written as ``null``.

    ``kwargs`` go to `json.dumps` (``indent``, ``sort_keys``, ...); ``allow_nan`` is always
    False (passing it raises TypeError: strictness is the point of this function).
    """
    if "allow_nan" in kwargs:
        raise TypeError("jsonio.dumps always writes strict JSON; allow_nan cannot be set")
    return json.dumps(finite_or_none(value), allow_nan=False, **kwargs)


def write_json(path: str | Path, value: Any, *, indent: int | None = 2, newline: bool = False) -> Path:
    """Write ``value`` to ``path`` as strict JSON (see [`dumps`][training.jsonio.dumps]); returns the path.

    ``indent``: spaces per level (None: one line). ``newline``: end the file with a newline. The
    parent folder must exist (as with `pathlib.Path.write_text`).
    """
    path = Path(path)
    path.write_text(dumps(value, indent=indent) + ("\n" if newline else ""))
    return path


def metrics_from_json(record: dict[str, Any]) -> dict[str, Any]:
    """An evaluation record read back from JSON, with NaN again where the writer saw NaN or inf.

    ``record``: ``{"summary": {metric: number}, "episodes": [{metric: number}], ...}`` as
    [`training.evaluate.evaluate`][training.evaluate.evaluate] returns it; every value of ``summary`` and of each episode
    is a number (booleans included), so ``None`` there can only be a non-finite value that
    [`dumps`][training.jsonio.dumps] wrote as ``null`` (records written before it hold NaN itself: kept). Returns a
    copy with those ``None`` as ``float("nan")`` (an inf comes back as NaN too: the metrics treat
    any non-finite value as unmeasured); the other keys are left as they are.
    """

    def numbers(values: dict[str, Any]) -> dict[str, Any]:
        return {key: math.nan if value is None else value for key, value in values.items()}

    out = dict(record)
    if isinstance(record.get("summary"), dict):
        out["summary"] = numbers(record["summary"])
    if isinstance(record.get("episodes"), list):
        out["episodes"] = [numbers(e) if isinstance(e, dict) else e for e in record["episodes"]]
    return out
