"""Terms computed on their first read: a descriptor for objects whose update may be deferred."""

from __future__ import annotations


class LazyTerm:
    """A computed attribute ``name``, stored under the same name with a leading underscore. Reading
    it first has the owner compute its pending terms (if any) and store them; it cannot be set."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.stored = f"_{name}"

    def __get__(self, instance, owner: type | None = None):
        if instance is None:
            return self
        instance._sync()
        return getattr(instance, self.stored)

    def __set__(self, instance, value) -> None:
        raise AttributeError(f"{self.stored[1:]} is computed; it cannot be set")
