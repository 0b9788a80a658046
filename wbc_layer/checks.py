"""Checks of the values that cross the controller's boundary: numbers, booleans, names, arrays.

Each returns the value to store (a float, a bool, a float64 copy) or raises
[`ConfigError`][wbc_layer.errors.ConfigError] as ``"<what> must be ..., got <value>"``. Tasks, contacts
and the controller's setters run them before anything is stored, so a rejected value leaves the
object (and a compiled core) as it was. The arguments named ``what`` say whose value it is
(``"weight of task 'com'"``).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from wbc_layer.errors import ConfigError

_F64 = np.dtype(np.float64)
#: |R R^T - I| allowed, entry-wise, of a rotation matrix (also its determinant's distance to +1).
ROTATION_TOLERANCE = 1e-6


def _shown(value) -> str:
    """``repr(value)``, cut to 120 characters (a long array stays readable in a message)."""
    text = " ".join(repr(value).split())  # an array's repr on one line
    return text if len(text) <= 120 else text[:117] + "..."


def real_number(value, what: str) -> float:
    """``value`` as a float if it is a real number (int, float, a numpy integer or floating
    scalar, a 0-d array of one), else ConfigError. Booleans and strings are not numbers."""
    if type(value) is float:
        return value
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iuf":
        return float(value)
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    raise ConfigError(f"{what} must be a real number, got {_shown(value)} ({type(value).__name__})")


def nonnegative(value, what: str) -> float:
    """A finite real number >= 0, as a float."""
    number = real_number(value, what)
    if not (math.isfinite(number) and number >= 0):
        raise ConfigError(f"{what} must be >= 0 and finite, got {_shown(value)}")
    return number


def positive(value, what: str) -> float:
    """A finite real number > 0, as a float."""
    number = real_number(value, what)
    if not (math.isfinite(number) and number > 0):
        raise ConfigError(f"{what} must be > 0 and finite, got {_shown(value)}")
    return number


def finite_number(value, what: str) -> float:
    """A finite real number, as a float."""
    number = real_number(value, what)
    if not math.isfinite(number):
        raise ConfigError(f"{what} must be finite, got {_shown(value)}")
    return number


def boolean(value, what: str) -> bool:
    """``value`` if it is a bool or a numpy bool, as a bool; anything else (``"False"``, 0, None)
    raises: a string would switch something on."""
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise ConfigError(f"{what} must be a bool (True or False), got {_shown(value)} ({type(value).__name__})")


def name(value, what: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{what} must be a non-empty string, got {_shown(value)}")
    return value


def real_array(value, what: str, expected: str) -> np.ndarray:
    """A float64 copy of ``value`` if it holds real numbers only (not strings, booleans, complex
    numbers or other objects), else ConfigError ``"<what> must be <expected>, got ..."``."""
    if isinstance(value, (str, bytes)) or value is None:
        raise ConfigError(f"{what} must be {expected}, got {_shown(value)}")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):  # a ragged list
        raise ConfigError(f"{what} must be {expected}, got {_shown(value)}") from None
    kind = array.dtype.kind
    if kind == "O" and all(isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)) for x in array.flat):
        kind = "f"
    if kind not in "iuf":
        raise ConfigError(f"{what} must be {expected}, got {_shown(value)} (dtype {array.dtype})")
    return np.array(array, dtype=float)


def finite_vector(value, size: int, what: str) -> np.ndarray:
    """Copy ``value`` into a finite float array of shape (size,), else raise ConfigError. A scalar
    stands for ``size`` equal entries.

    The envs call this for their references at every physics step: a float64 array of the right
    shape is copied directly, and finiteness is checked on the sum first (a finite sum has finite
    terms; the entry-wise check only runs when it is not).
    """
    if type(value) is np.ndarray and value.dtype == _F64 and value.shape == (size,):
        array = value.copy()
    else:
        array = real_array(value, what, f"{size} finite numbers")
        shape = array.shape
        array = array.reshape(-1) if array.ndim else np.full(size, float(array))
        if array.shape != (size,):
            raise ConfigError(f"{what} must have {size} entries, got shape {shape}")
    if not math.isfinite(np.add.reduce(array)) and not np.isfinite(array).all():
        raise ConfigError(f"{what} must be finite, got {array}")
    return array


def finite_array_1d(value, what: str) -> np.ndarray:
    """A finite float64 copy of a 1-D array with at least one entry."""
    array = real_array(value, what, "a 1-D array of finite numbers")
    if array.ndim != 1 or array.size == 0:
        raise ConfigError(f"{what} must be a 1-D array of finite numbers, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ConfigError(f"{what} must be finite, got {array}")
    return array


_EYE3 = np.eye(3)
_ORTHONORMAL_BOUND = ROTATION_TOLERANCE + 1e-5 * _EYE3


def _det3(m: np.ndarray) -> float:
    """The determinant of a 3x3 matrix (the triple product: a rotation is checked every tick a
    target changes, and ``np.linalg.det`` costs more than the rest of the check)."""
    return float(m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1]) - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
                 + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]))  # fmt: skip


def rotation_matrix(value, what: str) -> np.ndarray:
    """A float64 copy of a 3x3 rotation matrix (``R R^T = I`` and ``det R = +1`` to
    [`ROTATION_TOLERANCE`][wbc_layer.checks.ROTATION_TOLERANCE])."""
    rotation = real_array(value, what, "a 3x3 rotation matrix")
    if (
        rotation.shape != (3, 3)
        or not np.isfinite(rotation).all()
        # np.allclose(R R^T, I, atol=ROTATION_TOLERANCE)'s test (rtol 1e-5), without its overhead
        or not (np.abs(rotation @ rotation.T - _EYE3) <= _ORTHONORMAL_BOUND).all()
        or not abs(_det3(rotation) - 1.0) <= ROTATION_TOLERANCE
    ):
        raise ConfigError(f"{what} must be a 3x3 rotation matrix (orthonormal, det +1), got {_shown(value)}")
    return rotation


def frame_name(owner, value, what: str) -> str:
    """A frame name; checked against the robot of the controller holding ``owner`` (the robot the
    controller gives a task or contact when it takes it), if any."""
    value = name(value, what)
    robot = owner.__dict__.get("_robot")
    if robot is not None:
        try:
            robot.frame_id(value)
        except ConfigError as err:  # "unknown frame ...; valid frames are: ..."
            raise ConfigError(f"{what} must be one of the robot's frames: {err}") from None
    return value


_UNSET = object()


def set_once(attribute: str, check):
    """A check for an attribute fixed at construction (a name, the objects a task or contact is
    built on): the first value passes ``check``; a later write of another one raises."""

    def fixed(owner, value):
        value = check(owner, value)
        current = owner.__dict__.get(attribute, _UNSET)
        if current is _UNSET or current is value or _same(current, value):
            return value
        kind = type(owner).__name__
        raise ConfigError(
            f"{attribute} of {kind} {owner.__dict__.get('name', '?')!r} is fixed once it is made (the controller is "
            f"built around it), got {_shown(value)}; make a new {kind} (or controller) instead"
        )

    return fixed


def _same(current, value) -> bool:
    """Equal names, or tuples of the same objects."""
    if isinstance(current, str) or current is None:
        return current == value
    if isinstance(current, tuple) and isinstance(value, tuple):
        return len(current) == len(value) and all(a is b for a, b in zip(current, value, strict=True))
    return False
