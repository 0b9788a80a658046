"""Checked, observed attributes of tasks and contacts: how a value is validated before it is
stored, and how a compiled controller hears the change."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

_MISSING = object()


class Observed:
    """Checks each public assignment, then tells a listener (the compiled controller holding the
    object) which public attributes changed.

    A subclass declares a check per attribute (``check(obj, value)``, in a class-level table) that
    validates a value before it is stored, at construction (dataclass ``__init__`` assigns every
    field) as on any later write; the check returns the value to store or raises
    [`ConfigError`][wbc_layer.errors.ConfigError], and a rejected value changes nothing.

    A compiled controller listens to the tasks and contacts it holds and writes each change into
    its core; should that write fail, the old value is restored (and written back). The setters
    store several values at once, already checked, and notify once. Changing an array in place is
    not seen. Bookkeeping a subclass keeps on itself (names it lists as unobserved) never
    notifies. The class's source names these hooks.
    """

    _unobserved: tuple[str, ...] = ()
    _checks: ClassVar[dict[str, Callable[[Any, Any], Any]]] = {}

    def __getstate__(self) -> dict[str, Any]:
        """The attributes a copy (``copy.deepcopy``, ``pickle``) gets: all but ``_listener``, the
        compiled core's writer. A copied controller rebuilds its core and listens to its copies
        anew (``WholeBodyController.__setstate__``); a copy made alone is held by no core."""
        state = self.__dict__.copy()
        state.pop("_listener", None)
        return state

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


@contextmanager
def unheard(objects: Iterable[Observed]) -> Iterator[None]:
    """Within the block, changes to ``objects`` are checked and stored but reach no listener: for
    a compiled core that holds the new values already (a loop handed them over in one call)."""
    objects = list(objects)
    listeners = [obj.__dict__.pop("_listener", None) for obj in objects]
    try:
        yield
    finally:
        for obj, listener in zip(objects, listeners, strict=True):
            if listener is not None:
                obj.__dict__["_listener"] = listener
