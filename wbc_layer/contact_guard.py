"""The contact-loss guard: which feet the controller may treat as rigid supporting contacts.

A supporting contact's rows ask its sole not to move. When a foot lifts or tips over an edge
(a push, a stumble), those rows plan accelerations the foot cannot have and forces it cannot
carry; the torques that follow kick the robot when it is already in trouble. The guard watches
each supporting foot through two measurements the caller gives it every tick (a real robot's
foot force sensor and its estimate of the sole's orientation; in simulation, MuJoCo's):

- the **measured normal force** [N] on the foot, and
- the sole's **tilt** [rad] from the surface it stands on (the angle between the two normals).

A foot is **lost** when its tilt exceeds ``tilt_rad``, or (only with ``unloaded_s`` set) when
its measured normal force stays below ``unloaded_force_n`` for ``unloaded_s``. It is then
released with force continuity: the bound on its planned normal force ramps from the contact's
own maximum down to 0 over ``ramp_s`` (the other contacts take the load smoothly), and only then
is the contact switched off (no force, no rigid rows). A released foot is **regained** once it is flat (tilt below half ``tilt_rad``)
and loaded (measured force above ``loaded_force_n``) for ``settle_s``: the contact is switched
on with its force bound at 0, ramping back to its maximum over ``ramp_s``.

What it does not do: plan where a released foot goes (a step). Releasing a lifted foot made
pushes *worse*: at 10-16 N s torso pushes on ``HumanoidWBC-v0`` (6 episodes, seeds 0-5) the nominal controller fell in 4 without the
guard and in 6 with feet released when unloaded; released on tilt only, it fell in 4 (the
default: ``unloaded_s=None``); holding a released sole where it last stood (position and
orientation tasks, tried, not kept) gave 5-6 falls. On the push envelope (16 directions x 6
stances) the guard lowered the worst cell from 80 % to 73 % of the capture bound. So it is off by
default in the envs (``contact_guard``); docs/qp.md says why.

The guard only drives contacts through the controller's public setters (``active``,
``max_normal_force``, ``min_normal_force``), so both backends run it the same way. Pure Python,
no simulator: the caller measures.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wbc_layer.errors import ConfigError

if TYPE_CHECKING:
    from wbc_layer.controller import WholeBodyController

#: A guarded contact's states.
SUPPORTING, RELEASING, RELEASED, REGAINING = "supporting", "releasing", "released", "regaining"


@dataclass(frozen=True)
class ContactGuardSettings:
    """Thresholds of [`ContactGuard`][wbc_layer.contact_guard.ContactGuard] (see the module docstring).

    Attributes:
        tilt_rad: sole tilt beyond which a foot is tipping [rad].
        unloaded_force_n: measured normal force below which a foot carries nothing [N].
        unloaded_s: how long a foot must stay unloaded to be lost [s] (a foot briefly unloaded
            while the weight shifts is not lost); None: an unloaded foot is never released (the
            default, see the module docstring).
        loaded_force_n: measured normal force above which a released foot stands again [N].
        settle_s: how long a released foot must be flat and loaded to be regained [s].
        ramp_s: duration of the force-bound ramp on release and on regain [s].
    """

    tilt_rad: float = 0.1
    unloaded_force_n: float = 1.0
    unloaded_s: float | None = None
    loaded_force_n: float = 10.0
    settle_s: float = 0.02
    ramp_s: float = 0.05

    def __post_init__(self) -> None:
        for name in ("tilt_rad", "loaded_force_n", "ramp_s"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ConfigError(f"ContactGuardSettings.{name} must be finite and > 0, got {value!r}")
        for name in ("unloaded_force_n", "unloaded_s", "settle_s"):
            value = getattr(self, name)
            if value is None and name == "unloaded_s":
                continue
            if not (math.isfinite(value) and value >= 0):
                raise ConfigError(f"ContactGuardSettings.{name} must be finite and >= 0, got {value!r}")
        if self.unloaded_force_n >= self.loaded_force_n:
            raise ConfigError("ContactGuardSettings: unloaded_force_n must be below loaded_force_n (a hysteresis)")


class ContactGuard:
    """Releases lost supporting feet and regains them (see the module docstring).

    Args:
        controller: the controller whose contacts it drives.
        contacts: names of the supporting contacts it guards (feet).
        settings: thresholds; default [`ContactGuardSettings`][wbc_layer.contact_guard.ContactGuardSettings].

    Call [`update`][wbc_layer.contact_guard.ContactGuard.update] once per tick, before ``controller.compute``. A contact switched off by
    the user (``set_contact_active(name, False)``) while supporting is left alone until switched
    on again: the guard never overrides a decision it did not make.
    """

    def __init__(self, controller: WholeBodyController, contacts: tuple[str, ...], settings: ContactGuardSettings | None = None):
        self.controller = controller
        self.settings = settings or ContactGuardSettings()
        for name in contacts:
            contact = controller.contact(name)
            if contact.mode != "supporting":
                raise ConfigError(f"ContactGuard guards supporting contacts; {name!r} is {contact.mode!r}")
        #: contact name -> its own force bounds [N] (restored when it supports again).
        self.bounds = {name: (controller.contact(name).min_normal_force, controller.contact(name).max_normal_force) for name in contacts}
        #: contact name -> state (`SUPPORTING`, `RELEASING`, `RELEASED`, `REGAINING`).
        self.state = dict.fromkeys(contacts, SUPPORTING)
        self._timer = dict.fromkeys(contacts, 0.0)  # unloaded / settled time, or ramp progress [s]
        #: contacts a plan drives now (a stepping law's swing foot): left alone, as supporting
        #: with their timers at 0, until the plan lets go of them. Set by the caller each tick.
        self.planned: tuple[str, ...] = ()

    @property
    def supporting(self) -> tuple[str, ...]:
        """Guarded contacts the controller may load now (supporting, releasing or regaining)."""
        return tuple(name for name, state in self.state.items() if state != RELEASED)

    def update(self, dt: float, measurements: Mapping[str, tuple[float, float]]) -> None:
        """Advance by ``dt`` [s] with ``measurements``: contact name -> ``(measured normal force
        [N], sole tilt [rad])`` for every guarded contact."""
        s = self.settings
        for name, state in self.state.items():
            if name in self.planned:  # a planned swing is not a lost contact
                self.state[name], self._timer[name] = SUPPORTING, 0.0
                continue
            force, tilt = measurements[name]
            contact = self.controller.contact(name)
            if state == SUPPORTING:
                if not contact.active:
                    continue  # switched off by the user
                self._timer[name] = self._timer[name] + dt if force < s.unloaded_force_n else 0.0
                unloaded = s.unloaded_s is not None and force < s.unloaded_force_n and self._timer[name] >= s.unloaded_s
                if tilt > s.tilt_rad or unloaded:
                    self.state[name], self._timer[name] = RELEASING, 0.0
            elif state == RELEASING:
                self._timer[name] += dt
                if self._timer[name] >= s.ramp_s:
                    self.state[name], self._timer[name] = RELEASED, 0.0
            elif state == RELEASED:
                flat_and_loaded = tilt < 0.5 * s.tilt_rad and force > s.loaded_force_n
                self._timer[name] = self._timer[name] + dt if flat_and_loaded else 0.0
                if flat_and_loaded and self._timer[name] >= s.settle_s:
                    self.state[name], self._timer[name] = REGAINING, 0.0
            elif state == REGAINING:
                self._timer[name] += dt
                if self._timer[name] >= s.ramp_s:
                    self.state[name], self._timer[name] = SUPPORTING, 0.0
            self._apply(name)

    def _apply(self, name: str) -> None:
        """Write ``name``'s state into its contact (only what changed: setters notify the core)."""
        state, contact = self.state[name], self.controller.contact(name)
        low, high = self.bounds[name]
        share = min(1.0, self._timer[name] / self.settings.ramp_s)
        if state == SUPPORTING:
            values = {"active": contact.active, "min_normal_force": low, "max_normal_force": high}
        elif state == RELEASING:
            values = {"active": True, "min_normal_force": 0.0, "max_normal_force": (1.0 - share) * high}
        elif state == RELEASED:
            values = {"active": False, "min_normal_force": 0.0, "max_normal_force": 0.0}
        else:  # REGAINING
            values = {"active": True, "min_normal_force": min(low, share * high), "max_normal_force": share * high}
        changed = {k: v for k, v in values.items() if getattr(contact, k) != v}
        if changed:
            contact._assign(**changed)
