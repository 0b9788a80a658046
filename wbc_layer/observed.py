"""Checked, observed attributes of tasks and contacts: how a value is validated before it is
stored, and how a compiled controller hears the change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

_MISSING = object()


class Observed:
    """Checks each public assignment, then tells a listener (``self._listener(obj, names)``)
    which public attributes changed.

    ``_checks`` (a class attribute: attribute name -> ``check(obj, value)``) validates a value
    before it is stored, at construction (dataclass ``__init__`` assigns every field) as on any
    later write; the check returns the value to store or raises
    :class:`~wbc_layer.errors.ConfigError`, and a rejected value changes nothing.

    A compiled controller sets ``_listener`` on the tasks and contacts it holds and writes each
    change into its core; should that write fail, the old value is restored (and written back).
    :meth:`_assign` sets several values at once, already checked, and notifies once (setters use
    it). Changing an array in place is not seen. Names listed in ``_unobserved`` (bookkeeping a
    subclass sets on itself) never notify.
    """

    _unobserved: tuple[str, ...] = ()
    _checks: ClassVar[dict[str, Callable[[Any, Any], Any]]] = {}

    def __setattr__(self, name: str, value) -> None:
        check = self._checks.get(name)
        if check is not None:
            value = check(self, value)
        listener = self.__dict__.get("_listener")
        if listener is None or name.startswith("_") or name in self._unobserved:
            object.__setattr__(self, name, value)
            return
        old = self.__dict__.get(name, _MISSING)
        object.__setattr__(self, name, value)
        try:
            listener(self, (name,))
        except BaseException:
            if old is _MISSING:
                self.__dict__.pop(name, None)
            else:
                object.__setattr__(self, name, old)
                _write_back(listener, self, (name,))
            raise

    def _assign(self, **values) -> None:
        """Set several public attributes (values the caller checked), telling the listener once."""
        state = self.__dict__
        listener = state.get("_listener")
        if listener is None:
            state.update(values)
            return
        old = {name: state.get(name, _MISSING) for name in values}
        state.update(values)
        try:
            listener(self, tuple(values))
        except BaseException:
            for name, value in old.items():
                if value is _MISSING:
                    state.pop(name, None)
                else:
                    state[name] = value
            _write_back(listener, self, tuple(values))
            raise


def _write_back(listener, obj: Observed, names: tuple[str, ...]) -> None:
    """Write the restored values into the listener's copy (best effort: they were accepted once)."""
    try:
        listener(obj, names)
    except Exception:  # noqa: BLE001 - the original error is the one to report
        pass
