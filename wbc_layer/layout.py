"""Layout of the QP decision vector ``x = [qdd, sdd_1, ..., sdd_m, f_1, ..., f_k]``.

This is the one place that knows where each variable lives in ``x``: the robot's joint and
base accelerations ``qdd`` (nv,) first, then the accelerations of each environment body the
robot stands on (a seesaw's tilt: 1 entry), then each contact's force (3 or 6 entries) in
the order of the contact list.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class QPLayout:
    """Index ranges of the decision vector.

    Attributes:
        nv: number of generalized velocities (6 base + actuated joints).
        contact_dims: contact name -> force dimension (3 or 6), in decision-vector order.
        body_dims: environment body name -> its degrees of freedom, in decision-vector order.
        nb: total number of environment-body accelerations (derived).
        nf: total number of contact-force variables (derived).
    """

    nv: int
    contact_dims: tuple[tuple[str, int], ...]
    body_dims: tuple[tuple[str, int], ...] = ()
    nb: int = field(init=False)
    nf: int = field(init=False)
    _body_slices: dict[str, slice] = field(init=False, repr=False, compare=False)
    _force_slices: dict[str, slice] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        bodies, start = {}, self.nv
        for name, dim in self.body_dims:
            bodies[name] = slice(start, start + dim)
            start += dim
        forces, force_start = {}, start
        for name, dim in self.contact_dims:
            forces[name] = slice(start, start + dim)
            start += dim
        object.__setattr__(self, "_body_slices", bodies)
        object.__setattr__(self, "_force_slices", forces)
        object.__setattr__(self, "nb", force_start - self.nv)
        object.__setattr__(self, "nf", start - force_start)

    @property
    def qdd(self) -> slice:
        """Slice of ``x`` holding ``qdd`` (nv,)."""
        return slice(0, self.nv)

    @property
    def accelerations(self) -> slice:
        """Slice of ``x`` holding every acceleration: the robot's, then the bodies'."""
        return slice(0, self.nv + self.nb)

    @property
    def forces(self) -> slice:
        """Slice of ``x`` holding all contact forces together."""
        return slice(self.nv + self.nb, self.nx)

    @property
    def nx(self) -> int:
        """Size of the decision vector."""
        return self.nv + self.nb + self.nf

    def body(self, body_name: str) -> slice:
        """Slice of ``x`` holding one environment body's accelerations."""
        return self._body_slices[body_name]

    def force(self, contact_name: str) -> slice:
        """Slice of ``x`` holding one contact's force."""
        return self._force_slices[contact_name]

    def force_in_block(self, contact_name: str) -> slice:
        """Slice of the force block ``x[forces]`` holding one contact's force."""
        rows = self._force_slices[contact_name]
        offset = self.nv + self.nb
        return slice(rows.start - offset, rows.stop - offset)
