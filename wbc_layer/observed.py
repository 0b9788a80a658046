"""Change notification for tasks and contacts: how a compiled controller hears their setters."""

from __future__ import annotations


class Observed:
    """Tells a listener (``self._listener(obj, names)``) which public attributes changed.

    A compiled controller sets ``_listener`` on the tasks and contacts it holds and writes each
    change into its core. Every public assignment notifies; :meth:`_assign` sets several at once
    and notifies once (setters use it). Changing an array in place is not seen. Names listed in
    ``_unobserved`` (bookkeeping a subclass sets on itself) never notify.
    """

    _unobserved: tuple[str, ...] = ()

    def __setattr__(self, name: str, value) -> None:
        object.__setattr__(self, name, value)
        listener = self.__dict__.get("_listener")
        if listener is not None and not name.startswith("_") and name not in self._unobserved:
            listener(self, (name,))

    def _assign(self, **values) -> None:
        """Set several public attributes, telling the listener once."""
        self.__dict__.update(values)
        listener = self.__dict__.get("_listener")
        if listener is not None:
            listener(self, tuple(values))
