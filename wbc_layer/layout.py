"""Layout of the QP decision vector ``x = [qdd, f_1, ..., f_k]``.

This is the one place that knows where each variable lives in ``x``: joint and base
accelerations ``qdd`` (nv,) first, then each contact's force (3 or 6 entries) in the
order of the contact list.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class QPLayout:
    """Index ranges of the decision vector.

    Attributes:
        nv: number of generalized velocities (6 base + actuated joints).
        contact_dims: contact name -> force dimension (3 or 6), in decision-vector order.
        nf: total number of contact-force variables (derived).
    """

    nv: int
    contact_dims: tuple[tuple[str, int], ...]
    nf: int = field(init=False)
    _force_slices: dict[str, slice] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        slices, start = {}, self.nv
        for name, dim in self.contact_dims:
            slices[name] = slice(start, start + dim)
            start += dim
        object.__setattr__(self, "_force_slices", slices)
        object.__setattr__(self, "nf", start - self.nv)

    @property
    def qdd(self) -> slice:
        """Slice of ``x`` holding ``qdd`` (nv,)."""
        return slice(0, self.nv)

    @property
    def forces(self) -> slice:
        """Slice of ``x`` holding all contact forces together."""
        return slice(self.nv, self.nx)

    @property
    def nx(self) -> int:
        """Size of the decision vector."""
        return self.nv + self.nf

    def force(self, contact_name: str) -> slice:
        """Slice of ``x`` holding one contact's force."""
        return self._force_slices[contact_name]

    def force_in_block(self, contact_name: str) -> slice:
        """Slice of the force block ``x[forces]`` holding one contact's force."""
        rows = self._force_slices[contact_name]
        return slice(rows.start - self.nv, rows.stop - self.nv)
