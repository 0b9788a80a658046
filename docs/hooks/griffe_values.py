"""Griffe extension for the API pages: attribute values that are implementation details are not shown.

- An instance attribute (a documented ``self.x = ...``: its ``#:`` comment is its docstring, see
  ``griffe_sphinx``) is listed by its name and what it holds, not by the expression ``__init__``
  happens to assign it (``StateEstimator(self.model, ...)``).
- A constant whose value calls or names a private helper (``{"g1": _g1}``) is listed without its
  value, which would put that private name on the page; its docstring says what it holds.

Other module and class constants keep their values: those are what they document. A dataclass field
keeps its value (griffe reads ``field(init=False)`` from it to keep the field out of the signature).
"""

from __future__ import annotations

import griffe


def _names_private(value: griffe.Expr) -> bool:
    """Whether an expression names something private (``_x``; dunders such as ``__file__`` are not)."""
    return any(
        isinstance(part, griffe.ExprName) and part.name.startswith("_") and not part.name.startswith("__")
        for part in value.iterate(flat=True)
    )


class AttributeValues(griffe.Extension):
    """Drop the values of instance attributes and of constants that name private helpers."""

    def on_attribute_instance(self, *, attr: griffe.Attribute, **kwargs) -> None:
        if "instance-attribute" in attr.labels and "class-attribute" not in attr.labels:
            attr.value = None
        elif isinstance(attr.value, griffe.Expr) and _names_private(attr.value) and not _is_field(attr.value):
            attr.value = None


def _is_field(value: griffe.Expr) -> bool:
    """Whether ``value`` is a dataclass ``field(...)`` (griffe reads ``init=False`` from it)."""
    return isinstance(value, griffe.ExprCall) and value.canonical_path == "dataclasses.field"
