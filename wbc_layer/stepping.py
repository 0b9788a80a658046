"""Stepping: a swing foot with force continuity, and the stepping law that decides when, which foot and where.

Pure numpy: the caller (an env, a robot's control loop) measures and passes in the capture point,
the feet's poses and the feet's measured normal forces every tick, and writes what comes out into
the controller's references (a contact's activity and force bound, a sole position and
orientation task). Nothing here imports a simulator.

**The swing foot** ([`SwingFoot`][wbc_layer.stepping.SwingFoot]): one step of one foot, in four phases.

1. ``unloading`` (``unload_s``): the foot still supports (rigid contact), but its normal-force
   upper bound ramps (minimum jerk) from the load it carried at the decision to 0: the other foot
   takes the weight without a jump (the contact-switching experiment of *Partial Force Control
   of Constrained Floating-Base Robots* ramps a force target instead; a bound is a hard
   constraint, so the ramp holds whatever else the QP wants).
2. ``swing``: the contact is off; a sole position task follows the swing trajectory from the
   lift-off point to the target: horizontally a quintic from the reference's current state
   (position, velocity, acceleration) to rest at the target at the planned touch-down time (a
   minimum-jerk path when planned from rest), vertically ``ground + height b(s)`` with the bump
   ``b(s) = 64 s^3 (1 - s)^3`` of the swing's phase ``s`` (``wbc_layer.step_limits.swing_height_profile``) (height at ``s = 1/2``, zero velocity and
   acceleration at lift-off and touch-down); an orientation task keeps the sole flat at its
   lift-off yaw.
3. ``loading`` (``load_s``): from touch-down the contact is on again, its normal-force bound
   ramping (minimum jerk) from 0 to the contact's own maximum.
4. ``done``: the contact's own bounds; the foot supports.

**Touch-down** is the measured normal force reaching ``touch_down_force_n`` once at least
``earliest_touch_down`` of the swing has passed (a force before that, a scuff at lift-off, is not
a landing). It comes ``early`` (before the planned time: the foot met the ground high; the swing
stops where it is), ``planned`` (within one tick of it) or ``late``: after the planned time the
sole keeps descending at ``descent_mps`` for at most ``late_s``; a foot with no force by then
has **missed**: it holds where it is, the contact stays off, ``missed`` is set, and a landing
later (the force arriving) is still taken as a late touch-down. A new target during the swing is
taken while at most ``retarget_until`` of the swing has passed (the quintic re-planned from the
reference's current state to the new target at the same touch-down time) and refused after
(``retarget`` returns False): the foot does not veer just before landing.

**The stepping law** ([`SteppingLaw`][wbc_layer.stepping.SteppingLaw]): capture-point stepping,
after Pratt et al. 2006 (*Capture point: a step toward humanoid push recovery*) and Koolen et al.
2012 (*Capturability-based analysis and control of legged locomotion*, the N-step capture regions
of ``wbc_layer.capture``), in the form of Englsberger et al. 2015's divergent component of motion
(the instantaneous capture point ``xi = c + v / omega`` of the linear inverted pendulum):

- **when**: only when standing cannot capture: the capture point has left the double-support
  polygon (the hull of both soles' CoP rectangles, the polygon of the ankle bound) by more than
  ``trigger_margin_m``. Inside it, the ankle strategy can still stop the robot, so no step.
- **which foot and where**: for each foot as the swing foot, the stance foot's CoP is taken at
  the point of its CoP rectangle nearest to ``xi`` (where the controller's CoM task puts it when
  it tries to stop the fall), ``p``; the capture point at touch-down is predicted as
  ``xi_td = p + (xi - p) e^(omega t_td)`` (``t_td``: the time left to touch-down); the foot's
  target is ``xi_td`` plus ``placement_offset_m`` along the step (so the capture point lands inside
  the new sole), clipped into the foot's reachable region (``reachable``: the step limits as a
  polygon in the stance foot's axes, which keeps it out of the other foot: no crossover steps).
  The foot whose step leaves ``xi_td`` deepest inside the new support (signed distance to the
  hull of the stance CoP rectangle and the new sole's) swings, **if** that beats standing (the
  capture point's signed distance to the double support after the same time, the CoP at the
  support's nearest point) by ``STEP_GAIN_M``; else the law stands (``"no_better_step"``). So a
  sideways push past the outer sole is answered by standing: lifting the loaded outer foot moves
  the capture point the wrong way, and stepping the inner foot towards it (no crossover) gains
  nothing; a forward or diagonal push is answered by a step. A clipped target is flagged.
- **until captured**: during the swing the target is re-planned every tick from the measured
  capture point (taken or refused by the swing foot's rule above); after loading, if the capture
  point is inside the new double support by ``capture_margin_m`` the law returns to standing,
  else the next step is decided the same way, at most ``max_steps`` in a row.

Step timing is not adapted (Khadiv et al. 2016/2020 adapt it; not followed here): every step
takes ``unload_s + swing_s`` from the decision to touch-down.

**Adjusting the law** ([`StepAdjustment`][wbc_layer.stepping.StepAdjustment], ``law.adjustment``):
a policy above the law may move where it steps (an offset of the target in the stance sole's
axes, the sum clipped into the reachable region and flagged as the law's own targets are), how
long a step takes (the unloading and the swing scaled together, the swing not below
``min_swing_s``: ``timing_clipped``) and when it decides (a shift of ``trigger_margin_m``). The
default adjustment changes nothing: the law as described above, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

from wbc_layer.references import min_jerk
from wbc_layer.step_limits import _positive, swing_height_profile

__all__ = [
    "FEET",
    "LOADING",
    "PHASES",
    "STANDING",
    "SWING",
    "UNLOADING",
    "StepAdjustment",
    "SteppingLaw",
    "SteppingSettings",
    "SwingFoot",
    "SwingSettings",
    "project_to_polygon",
    "quintic_coefficients",
    "signed_distance",
]

#: The feet, left then right (the contacts' names in the envs).
FEET = ("left_foot", "right_foot")
#: The law's and the swing foot's phases.
STANDING, UNLOADING, SWING, LOADING, DONE = "standing", "unloading", "swing", "loading", "done"
PHASES = (STANDING, UNLOADING, SWING, LOADING)
#: Times closer than this are the same tick [s] (a simulator's time is a sum of rounded steps).
_TICK_TOLERANCE_S = 1e-9
#: A step is taken only if it leaves the capture point this much deeper inside the support than
#: standing would by the same time [m].
STEP_GAIN_M = 1e-3
#: What `SteppingLaw.needs_step` adds to the certain depth [m], far above the rounding of the
#: slack's few operations (about 1e-16 m at these distances).
_CERTAIN_M = 1e-9
#: The support polygon stays while each of the feet's x, y [m] and yaw [rad] moved less than this.
_SUPPORT_MOVE = 1e-4


def _non_negative(value, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r}") from err
    if not (math.isfinite(number) and number >= 0.0):
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r}")
    return number


def _share(value, what: str) -> float:
    number = float(value)
    if not (math.isfinite(number) and 0.0 <= number <= 1.0):
        raise ValueError(f"{what} must be in [0, 1], got {value!r}")
    return number


def quintic_coefficients(duration: float, p0, v0, a0, p1) -> np.ndarray:
    """(6, n) coefficients ``c_k`` of ``x(t) = sum c_k t^k`` on ``[0, duration]`` [s]: from
    position ``p0``, velocity ``v0``, acceleration ``a0`` (n,) to rest at ``p1`` (n,) (velocity
    and acceleration 0). From rest it is the minimum-jerk path."""
    T = _positive(duration, "duration")
    p0, v0, a0, p1 = (np.asarray(x, dtype=float) for x in (p0, v0, a0, p1))
    c3 = (20 * (p1 - p0) - (12 * v0) * T - 3 * a0 * T * T) / (2 * T**3)
    c4 = (30 * (p0 - p1) + (16 * v0) * T + 3 * a0 * T * T) / (2 * T**4)
    c5 = (12 * (p1 - p0) - (6 * v0) * T - a0 * T * T) / (2 * T**5)
    return np.array([p0, v0, 0.5 * a0, c3, c4, c5])


def _quintic_sample(c: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Position, velocity, acceleration (n,) each of the quintic ``c`` (6, n) at ``t`` [s].

    Axis by axis in Python floats (every tick of a swing: numpy's per-call overhead on (2,) arrays
    cost more than the arithmetic); the same operations in the same order as the array form
    ``c[0] + t * (c[1] + ...)``, so the same bits."""
    out = np.empty((3, c.shape[1]))
    for j, (c0, c1, c2, c3, c4, c5) in enumerate(c.T.tolist()):
        out[0, j] = c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * c5))))
        out[1, j] = c1 + t * (2 * c2 + t * (3 * c3 + t * (4 * c4 + t * 5 * c5)))
        out[2, j] = 2 * c2 + t * (6 * c3 + t * (12 * c4 + t * 20 * c5))
    return out[0], out[1], out[2]


def _edges(polygon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals (k, 2) and offsets (k,) of a counter-clockwise convex polygon."""
    edges = np.empty_like(polygon)
    edges[:-1] = polygon[1:] - polygon[:-1]
    edges[-1] = polygon[0] - polygon[-1]
    normals = np.column_stack([edges[:, 1], -edges[:, 0]])
    normals /= np.sqrt(np.einsum("ij,ij->i", normals, normals))[:, None]
    return normals, np.einsum("ij,ij->i", normals, polygon)


def signed_distance(point: ArrayLike, polygon: ArrayLike) -> float:
    """Distance [m] of ``point`` (2,) inside the counter-clockwise convex ``polygon`` (k, 2)
    (positive inside: the distance to the nearest edge; negative outside: minus the distance to
    the polygon)."""
    x = np.asarray(point, dtype=float)
    poly = np.asarray(polygon, dtype=float)
    normals, offsets = _edges(poly)
    slack = offsets - normals @ x
    if np.all(slack >= 0.0):
        return float(np.min(slack))
    return -float(np.linalg.norm(x - _nearest_on_boundary(x, poly)))


def _nearest_on_boundary(x: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """The point of the polygon's boundary nearest to ``x`` (all edges at once)."""
    b = np.empty_like(poly)
    b[:-1], b[-1] = poly[1:], poly[0]
    ab = b - poly
    s = np.clip(np.einsum("ij,ij->i", x - poly, ab) / np.einsum("ij,ij->i", ab, ab), 0.0, 1.0)
    candidates = poly + s[:, None] * ab
    d = candidates - x
    return candidates[int(np.argmin(np.einsum("ij,ij->i", d, d)))]


def project_to_polygon(point: ArrayLike, polygon: ArrayLike, edges: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """(2,) the point of the counter-clockwise convex ``polygon`` (k, 2) nearest to ``point``
    (the point itself when inside); ``edges``: the polygon's outward unit normals (k, 2) and
    offsets (k,), when the caller keeps them (else computed here)."""
    x = np.asarray(point, dtype=float)
    poly = np.asarray(polygon, dtype=float)
    normals, offsets = _edges(poly) if edges is None else edges
    if np.all(offsets - normals @ x >= 0.0):
        return x.copy()
    return _nearest_on_boundary(x, poly).copy()


def _rotation(yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s], [s, c]])


def _yaw_rotation(yaw: float) -> np.ndarray:
    """(3, 3) the rotation by ``yaw`` [rad] about the vertical: a flat sole's orientation."""
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rectangle(centre: np.ndarray, yaw: float, half_sizes: tuple[float, float]) -> np.ndarray:
    """(4, 2) counter-clockwise corners of a rectangle of ``half_sizes`` at ``centre``, turned by ``yaw``."""
    hl, hw = half_sizes
    local = np.array([[hl, hw], [-hl, hw], [-hl, -hw], [hl, -hw]])
    return centre + local @ _rotation(yaw).T


def _hull(points: np.ndarray) -> np.ndarray:
    """(k, 2) counter-clockwise convex hull of a few points (n, 2) [m] (Andrew's monotone chain,
    collinear points dropped): the law's support polygons, each tick, so no input checks here."""
    pts = sorted(map(tuple, np.asarray(points, dtype=float).tolist()))

    def chain(sequence):
        out = []
        for p in sequence:
            while len(out) >= 2 and (out[-1][0] - out[-2][0]) * (p[1] - out[-2][1]) - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0]) <= 0.0:
                out.pop()
            out.append(p)
        return out

    lower, upper = chain(pts), chain(reversed(pts))
    return np.array(lower[:-1] + upper[:-1])


# -- the swing foot ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class SwingSettings:
    """How one step is taken (see the module docstring).

    Attributes:
        swing_s: lift-off to planned touch-down [s].
        height_m: the sole's apex above the ground [m].
        unload_s: the force bound's ramp to 0 before lift-off [s].
        load_s: the force bound's ramp from 0 after touch-down [s].
        touch_down_force_n: measured normal force that counts as a landing [N].
        earliest_touch_down: share of the swing before which a force is not a landing [-].
        late_s: how long the sole keeps descending after the planned touch-down [s].
        descent_mps: its speed while it does [m/s].
        retarget_until: share of the swing after which a new target is refused [-].
    """

    swing_s: float = 0.4
    height_m: float = 0.05
    unload_s: float = 0.1
    load_s: float = 0.05
    touch_down_force_n: float = 30.0
    earliest_touch_down: float = 0.5
    late_s: float = 0.1
    descent_mps: float = 0.2
    retarget_until: float = 0.6

    def __post_init__(self) -> None:
        for name in ("swing_s", "height_m", "unload_s", "load_s", "touch_down_force_n"):
            _positive(getattr(self, name), f"SwingSettings.{name}")
        for name in ("late_s", "descent_mps"):
            _non_negative(getattr(self, name), f"SwingSettings.{name}")
        for name in ("earliest_touch_down", "retarget_until"):
            _share(getattr(self, name), f"SwingSettings.{name}")

    @property
    def step_time_s(self) -> float:
        """From the decision to the planned touch-down [s]: ``unload_s + swing_s``."""
        return self.unload_s + self.swing_s


class SwingFoot:
    """One step of ``foot``: unloading, swing, loading (see the module docstring).

    After each [`update`][wbc_layer.stepping.SwingFoot.update] its outputs say what the controller
    should be told this tick: ``contact_active`` and the contact's normal-force bound
    ``max_normal_force`` [N] (None: the contact's own), ``swing_active`` (the sole position and
    orientation tasks on), the sole's reference ``position``, ``velocity`` (3,) world [m, m/s] and
    ``rotation`` (3, 3) (flat, at the lift-off yaw).

    Args:
        foot: the contact's name.
        settings: the step's timing and thresholds.
        time: the decision's time [s]; unloading starts now.
        sole_position: (3,) the sole centre now, world [m]; its height is the ground's.
        yaw: the sole's yaw now [rad] (kept flat at this yaw).
        target: (2,) where the sole centre should land, world x, y [m].
        load_n: the normal force the foot carries now [N] (the unloading ramp's start).
        max_normal_force_n: the contact's own upper bound [N] (the loading ramp's end).
        target_yaw: the sole's yaw at touch-down [rad] (None: ``yaw``, the sole kept at its
            lift-off yaw); the yaw follows a minimum-jerk phase of the swing from one to the other,
            the short way round (the difference taken in (-pi, pi]).
    """

    def __init__(self, foot: str, settings: SwingSettings, time: float, sole_position: ArrayLike, yaw: float,
                 target: ArrayLike, load_n: float, max_normal_force_n: float, target_yaw: float | None = None):  # fmt: skip
        self.foot, self.settings = foot, settings
        start = np.array(sole_position, dtype=float)
        if start.shape != (3,) or not np.isfinite(start).all():
            raise ValueError(f"sole_position must be a finite (3,) array, got {sole_position!r}")
        self.ground_z = float(start[2])
        self.target = self._check_target(target)
        self.t_decision = float(time)
        self.t_lift = self.t_decision + settings.unload_s
        self.t_touch_planned = self.t_lift + settings.swing_s
        self.load_n = max(float(load_n), 0.0)
        self.max_normal_force_n = float(max_normal_force_n)
        self.yaw = float(yaw)
        self.target_yaw = None if target_yaw is None else float(target_yaw)
        if self.target_yaw is not None and not math.isfinite(self.target_yaw):
            raise ValueError(f"target_yaw must be a finite number [rad] or None, got {target_yaw!r}")
        self.rotation = _yaw_rotation(self.yaw)
        self.phase = UNLOADING
        #: None until it lands; then "early", "planned" or "late".
        self.touch_down: str | None = None
        #: the foot found no ground by the planned time plus ``late_s``.
        self.missed = False
        self.t_touch: float | None = None
        self.lift_off_position = start.copy()
        self._path = None  # horizontal quintic (6, 2), from _path_t0
        self._path_t0 = self.t_lift
        self.position = start.copy()
        self.velocity = np.zeros(3)
        self.acceleration = np.zeros(3)
        self.contact_active = True
        self.swing_active = False
        self.max_normal_force: float | None = self.load_n

    @staticmethod
    def _check_target(target) -> np.ndarray:
        xy = np.array(target, dtype=float)
        if xy.shape != (2,) or not np.isfinite(xy).all():
            raise ValueError(f"a swing target must be a finite (2,) array (world x, y [m]), got {target!r}")
        return xy

    def progress(self, time: float) -> float:
        """The swing's phase at ``time``: 0 at lift-off, 1 at the planned touch-down (clipped)."""
        return min(max((time - self.t_lift) / self.settings.swing_s, 0.0), 1.0)

    def retarget(self, target: ArrayLike, time: float) -> bool:
        """Take a new landing ``target`` (2,) [m] at ``time`` [s]: before lift-off always, during
        the swing while at most ``retarget_until`` of it has passed; False (refused, the old
        target kept) after that or once the foot has landed."""
        xy = self._check_target(target)
        if self.phase == UNLOADING:
            self.target = xy
            return True
        if self.phase != SWING or self.progress(time) > self.settings.retarget_until:
            return False
        remaining = self.t_touch_planned - time
        if remaining <= 0.0:
            return False
        self.target = xy
        p, v, a = _quintic_sample(self._path, time - self._path_t0)  # the path's state now, not at the last update
        self._path = quintic_coefficients(remaining, p, v, a, xy)
        self._path_t0 = time
        return True

    def update(self, time: float, normal_force_n: float) -> None:
        """Advance to ``time`` [s] with the foot's measured normal force ``normal_force_n`` [N]."""
        s = self.settings
        if self.phase == UNLOADING:
            if time < self.t_lift - _TICK_TOLERANCE_S:
                share, _ = min_jerk(time, self.t_decision, self.t_lift)
                self.max_normal_force = (1.0 - share) * self.load_n
                return
            self._lift_off(time)
        if self.phase == SWING:
            if self._landed(time, normal_force_n):
                self._touch_down(time)
            else:
                self._swing(time)
                return
        if self.phase == LOADING:
            share, _ = min_jerk(time, self.t_touch, self.t_touch + s.load_s)
            if share >= 1.0:
                self.phase, self.max_normal_force = DONE, None
            else:
                self.max_normal_force = share * self.max_normal_force_n

    def _lift_off(self, time: float) -> None:
        self.phase = SWING
        self.contact_active, self.swing_active, self.max_normal_force = False, True, 0.0
        self.lift_off_position = self.position.copy()
        self._path = quintic_coefficients(self.settings.swing_s, self.position[:2], np.zeros(2), np.zeros(2), self.target)
        self._path_t0 = self.t_lift

    def _landed(self, time: float, force: float) -> bool:
        s = self.settings
        return self.progress(time) >= s.earliest_touch_down and force >= s.touch_down_force_n

    def _swing(self, time: float) -> None:
        s = self.settings
        if time <= self.t_touch_planned:
            p, v, a = _quintic_sample(self._path, time - self._path_t0)
            b, b1, b2 = swing_height_profile(self.progress(time))
            self.position[:2], self.velocity[:2], self.acceleration[:2] = p, v, a
            self.position[2] = self.ground_z + s.height_m * b
            self.velocity[2] = s.height_m * b1 / s.swing_s
            self.acceleration[2] = s.height_m * b2 / s.swing_s**2
            if self.target_yaw is not None:
                share, _ = min_jerk(time, self.t_lift, self.t_touch_planned)
                self.rotation = _yaw_rotation(self.yaw + share * math.remainder(self.target_yaw - self.yaw, 2.0 * math.pi))
            return
        # Late: at the target, descending for at most late_s; then missed (held where it is).
        self.position[:2], self.velocity[:2], self.acceleration[:] = self.target, 0.0, 0.0
        if self.target_yaw is not None:
            self.rotation = _yaw_rotation(self.target_yaw)
        late = time - self.t_touch_planned
        if late <= s.late_s:
            self.position[2] = self.ground_z - s.descent_mps * late
            self.velocity[2] = -s.descent_mps
        else:
            self.missed = True
            self.position[2] = self.ground_z - s.descent_mps * s.late_s
            self.velocity[2] = 0.0

    def _touch_down(self, time: float) -> None:
        if time < self.t_touch_planned - _TICK_TOLERANCE_S and not self.missed:
            kind = "early"
        elif time <= self.t_touch_planned + _TICK_TOLERANCE_S:
            kind = "planned"
        else:
            kind = "late"
        self.touch_down, self.t_touch = kind, float(time)
        self.phase = LOADING
        self.contact_active, self.swing_active, self.max_normal_force = True, False, 0.0
        self.velocity[:] = 0.0
        self.acceleration[:] = 0.0


# -- the stepping law ------------------------------------------------------------------------------
@dataclass(frozen=True)
class SteppingSettings:
    """The law's thresholds (see the module docstring).

    Attributes:
        trigger_margin_m: a step is decided once the capture point is this far outside the
            double-support CoP polygon [m] (0: as soon as it leaves it; negative: that far
            before it reaches the edge, a step that starts earlier).
        capture_margin_m: after a step, captured when the capture point is this far inside the
            new double-support CoP polygon [m].
        placement_offset_m: the target lies this far beyond the predicted capture point, along
            the step [m] (0: the capture point lands at the sole's centre).
        max_steps: steps in a row before the law gives up and stands [-].
        min_swing_s: an adjusted step's swing is not made shorter than this [s]
            ([`StepAdjustment`][wbc_layer.stepping.StepAdjustment]; the robot's minimum swing time;
            the law's own ``swing.swing_s`` is taken as given).
        swing: how each step is taken.
    """

    trigger_margin_m: float = 0.0
    capture_margin_m: float = 0.01
    placement_offset_m: float = 0.0
    max_steps: int = 4
    min_swing_s: float = 0.0
    swing: SwingSettings = field(default_factory=SwingSettings)

    def __post_init__(self) -> None:
        if not math.isfinite(float(self.trigger_margin_m)):
            raise ValueError(f"SteppingSettings.trigger_margin_m must be finite, got {self.trigger_margin_m!r}")
        for name in ("capture_margin_m", "placement_offset_m", "min_swing_s"):
            _non_negative(getattr(self, name), f"SteppingSettings.{name}")
        if isinstance(self.max_steps, bool) or not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise ValueError(f"SteppingSettings.max_steps must be an int >= 1, got {self.max_steps!r}")


@dataclass(frozen=True)
class StepAdjustment:
    """A change to the law's own choices (a policy's action; see the module docstring).

    Attributes:
        offset_m: (2,) the landing's offset from the law's target in the stance sole's axes
            (forward, left) [m]; the sum is clipped into the reachable region (``clipped``).
        time_scale: the step's unloading and swing times over the law's [-], > 0; the swing not
            shorter than ``SteppingSettings.min_swing_s`` (``timing_clipped``).
        trigger_shift_m: added to ``trigger_margin_m`` when deciding whether to step [m]
            (negative: sooner, while the capture point is still that far inside the support).
    """

    offset_m: tuple[float, float] = (0.0, 0.0)
    time_scale: float = 1.0
    trigger_shift_m: float = 0.0

    def __post_init__(self) -> None:
        offset = tuple(float(x) for x in self.offset_m)
        if len(offset) != 2 or not all(math.isfinite(x) for x in offset):
            raise ValueError(f"StepAdjustment.offset_m must be 2 finite numbers [m], got {self.offset_m!r}")
        object.__setattr__(self, "offset_m", offset)
        _positive(self.time_scale, "StepAdjustment.time_scale")
        if not math.isfinite(float(self.trigger_shift_m)):
            raise ValueError(f"StepAdjustment.trigger_shift_m must be finite, got {self.trigger_shift_m!r}")


#: The law's own choices, unchanged.
NO_ADJUSTMENT = StepAdjustment()


@dataclass
class Placement:
    """A step's choice: ``foot`` (the swing foot), ``target`` (2,) world [m], whether it was
    ``clipped`` to the reachable region, the predicted capture point at touch-down
    ``capture_at_touch_down`` (2,) [m] and its signed distance inside the new support ``margin_m``."""

    foot: str
    target: np.ndarray
    clipped: bool
    capture_at_touch_down: np.ndarray
    margin_m: float


def _measured(normal_forces_n: ArrayLike | Callable[[], ArrayLike]) -> np.ndarray:
    """(2,) the normal forces [N] of `SteppingLaw.update`'s argument (an array or a function returning one)."""
    return np.asarray(normal_forces_n() if callable(normal_forces_n) else normal_forces_n, dtype=float)


class SteppingLaw:
    """When, which foot and where to step, from the capture point (see the module docstring).

    Args:
        reachable: swing foot name -> (k, 2) convex polygon [m] of where its sole centre may land,
            in the stance foot's axes (x forward, y left) relative to the stance sole centre
            (``wbc_layer.step_limits.reachable_region``).
        cop_half_sizes: (half length, half width) [m] of each sole's CoP rectangle.
        omega: the pendulum's frequency ``sqrt(g / z_c)`` at the CoM height the law plans [1/s].
        settings: the law's thresholds and the steps' timing.

    Call [`update`][wbc_layer.stepping.SteppingLaw.update] every tick; its outputs are
    ``phase`` (``"standing"``, ``"unloading"``, ``"swing"``, ``"loading"``), ``swing`` (the
    [`SwingFoot`][wbc_layer.stepping.SwingFoot] of the step under way, or None), ``steps_taken``,
    ``last_placement``, ``timing_clipped`` (the last step's adjusted swing was held at
    ``min_swing_s``) and ``events`` (what happened this tick: ``"decided"``, ``"lift_off"``,
    ``"touch_down"``, ``"captured"``, ``"gave_up"``, ``"no_better_step"``). ``adjustment``
    (a [`StepAdjustment`][wbc_layer.stepping.StepAdjustment], set by the caller at any time)
    changes its choices from the next tick on.
    """

    def __init__(self, reachable: dict[str, ArrayLike], cop_half_sizes: tuple[float, float], omega: float,
                 settings: SteppingSettings | None = None):  # fmt: skip
        unknown = sorted(set(reachable) - set(FEET))
        if unknown or set(reachable) != set(FEET):
            raise ValueError(f"reachable must give a polygon for each of {FEET}, got {sorted(reachable)}")
        from wbc_layer.capture import convex_hull  # noqa: PLC0415 (checked once: the user's polygons)

        self.reachable = {foot: convex_hull(poly) for foot, poly in reachable.items()}
        self.cop_half_sizes = (_positive(cop_half_sizes[0], "cop half length"), _positive(cop_half_sizes[1], "cop half width"))
        #: The CoP rectangle's corner radius [m]: how far a corner lies from its sole's centre.
        self.corner_radius_m = math.hypot(*self.cop_half_sizes)
        self.omega = _positive(omega, "omega")
        self.settings = settings or SteppingSettings()
        self.reset()

    def reset(self) -> None:
        """Standing, no step taken."""
        self.phase = STANDING
        self.swing: SwingFoot | None = None
        self.steps_taken = 0
        self.steps_in_row = 0
        self.last_placement: Placement | None = None
        self.clipped_steps = 0
        self.timing_clipped = False
        self.adjustment = NO_ADJUSTMENT
        self.events: list[str] = []
        #: where the support polygon stands: the feet's (x, y) and yaws, left then right (6 floats),
        #: when it was last moved (`support_polygon`'s rule); None before the first tick.
        self._support_key: list[float] | None = None
        #: the last polygon made: (its key, polygon (k, 2), its edges (outward unit normals (k, 2),
        #: offsets (k,))); made only when used, so it may be of an older key than ``_support_key``.
        self._support: tuple[list[float], np.ndarray, tuple[np.ndarray, np.ndarray]] | None = None

    # -- geometry ----------------------------------------------------------------------------
    def support_polygon(self, feet_xy: np.ndarray, feet_yaw: np.ndarray) -> np.ndarray:
        """(k, 2) hull of both soles' CoP rectangles (world); the last one is kept while the feet
        stay within 0.1 mm and 0.1 mrad of where it was made (standing: every tick the same)."""
        return self._support_at(self._support_moved_to(feet_xy, feet_yaw))[1]

    def _support_moved_to(self, feet_xy: ArrayLike, feet_yaw: ArrayLike) -> list[float]:
        """The support's key after the feet at ``feet_xy`` (2, 2), ``feet_yaw`` (2,): the feet's
        own pose where any of its six numbers moved by ``_SUPPORT_MOVE`` or more from the key
        (a scalar loop: numpy's per-call overhead on six numbers cost more every tick)."""
        key = [*np.asarray(feet_xy, dtype=float).ravel().tolist(), *np.asarray(feet_yaw, dtype=float).tolist()]
        old = self._support_key
        if old is None or not all(abs(a - b) < _SUPPORT_MOVE for a, b in zip(old, key, strict=True)):
            self._support_key = old = key
        return old

    def standing_watch(self) -> tuple[np.ndarray, np.ndarray, list[float], float] | None:
        """What a caller needs to rule out a step at later ticks without asking the law, while it
        stands: ``(normals (k, 2), offsets (k,), key (6), depth [m])``, the last support polygon
        made (outward unit normals, offsets), its feet (x, y of left and right [m], then their
        yaws [rad]) and a depth. At a later standing tick whose capture point lies deeper than
        ``depth`` plus the CoP corners' largest shift from ``key`` (per foot, its centre's shift
        plus its yaw's change times ``corner_radius_m``) inside that polygon, `update`
        takes no step: ``depth`` is the trigger's threshold (``max(0, -margin)``) plus the most the
        corners can be from the support's key's (the feet move its key only by 0.1 mm, 0.1 mrad)
        plus 1e-9 m for rounding. The caller then tells the law of each such tick with `stood`.
        None while a step is under way or before a polygon was made."""
        if self.phase != STANDING or self._support is None:
            return None
        key, _, (normals, offsets) = self._support
        lag = math.hypot(_SUPPORT_MOVE, _SUPPORT_MOVE) + _SUPPORT_MOVE * self.corner_radius_m
        return normals, offsets, list(key), max(0.0, -self._trigger_margin()) + lag + _CERTAIN_M

    def _trigger_margin(self) -> float:
        """``trigger_margin_m`` under the adjustment's shift [m]."""
        margin = self.settings.trigger_margin_m
        if self.adjustment.trigger_shift_m != 0.0:
            margin = margin + self.adjustment.trigger_shift_m
        return margin

    def stood(self, feet_xy: ArrayLike, feet_yaw: ArrayLike) -> None:
        """A standing tick at which the caller ruled out a step (`standing_watch`): the law's
        state after it, as `update` would leave it (no events; the support's key follows the
        feet at ``feet_xy`` (2, 2), ``feet_yaw`` (2,) [m, rad])."""
        self.events = []
        self._support_moved_to(feet_xy, feet_yaw)

    def _support_at(self, key: list[float]) -> tuple[list[float], np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """``(key, polygon, edges)`` of the support at ``key`` (made now unless it was the last made)."""
        support = self._support
        if support is None or support[0] != key:
            corners = [_rectangle(np.array(key[2 * i : 2 * i + 2]), key[4 + i], self.cop_half_sizes) for i in range(2)]
            polygon = _hull(np.vstack(corners))
            self._support = support = (key, polygon, _edges(polygon))
        return support

    def _corner_shift_bound(self, old: list[float], new: list[float]) -> float:
        """An upper bound [m] on how far any CoP-rectangle corner moved between two support keys:
        per foot, the centre's shift plus the yaw's change times the corner's radius (a rotation
        by ``a`` moves a point at radius ``r`` by ``2 r sin(a / 2) <= r a``)."""
        radius = self.corner_radius_m
        return max(
            math.hypot(new[2 * i] - old[2 * i], new[2 * i + 1] - old[2 * i + 1]) + abs(new[4 + i] - old[4 + i]) * radius
            for i in range(2)
        )

    def place(self, swing_foot: str, capture_point: ArrayLike, feet_xy: ArrayLike, feet_yaw: ArrayLike,
              time_to_touch_down_s: float) -> Placement:  # fmt: skip
        """Where ``swing_foot`` should land (see the module docstring), the other foot standing."""
        xi = np.asarray(capture_point, dtype=float)
        feet_xy, feet_yaw = np.asarray(feet_xy, dtype=float), np.asarray(feet_yaw, dtype=float)
        swing_index = FEET.index(swing_foot)
        stance = 1 - swing_index
        stance_xy, stance_yaw = feet_xy[stance], float(feet_yaw[stance])
        stance_rect = _rectangle(stance_xy, stance_yaw, self.cop_half_sizes)
        cop = project_to_polygon(xi, stance_rect)
        growth = math.exp(self.omega * max(time_to_touch_down_s, 0.0))
        xi_td = cop + (xi - cop) * growth
        rotation = _rotation(stance_yaw)
        desired = xi_td.copy()
        direction = xi_td - stance_xy
        if self.settings.placement_offset_m > 0.0 and np.linalg.norm(direction) > 0.0:
            desired = desired + self.settings.placement_offset_m * direction / np.linalg.norm(direction)
        local = rotation.T @ (desired - stance_xy)
        offset = self.adjustment.offset_m
        if offset != (0.0, 0.0):
            local = local + offset
        region = self.reachable[swing_foot]
        clipped_local = project_to_polygon(local, region)
        clipped = bool(np.linalg.norm(clipped_local - local) > 1e-9)
        target = stance_xy + rotation @ clipped_local
        new_support = _hull(np.vstack([stance_rect, _rectangle(target, stance_yaw, self.cop_half_sizes)]))
        return Placement(swing_foot, target, clipped, xi_td, signed_distance(xi_td, new_support))

    def choose(self, capture_point, feet_xy, feet_yaw, time_to_touch_down_s: float) -> Placement:
        """The better of the two feet's placements: the larger margin; on a tie (within 1 mm),
        the foot farther from the capture point (the less loaded one)."""
        xi = np.asarray(capture_point, dtype=float)
        feet_xy = np.asarray(feet_xy, dtype=float)
        options = [self.place(foot, xi, feet_xy, feet_yaw, time_to_touch_down_s) for foot in FEET]

        def key(option: Placement) -> tuple[float, float]:
            distance = float(np.linalg.norm(feet_xy[FEET.index(option.foot)] - xi))
            return (round(option.margin_m / 1e-3), distance)

        return max(options, key=key)

    def standing_margin(self, capture_point, feet_xy, feet_yaw, time_to_touch_down_s: float) -> float:
        """Signed distance [m] of the capture point inside the double support after
        ``time_to_touch_down_s`` of standing (the CoP held at the support's point nearest to it):
        what a step must beat."""
        xi = np.asarray(capture_point, dtype=float)
        polygon = self.support_polygon(np.asarray(feet_xy, dtype=float), np.asarray(feet_yaw, dtype=float))
        cop = project_to_polygon(xi, polygon)
        return signed_distance(cop + (xi - cop) * math.exp(self.omega * max(time_to_touch_down_s, 0.0)), polygon)

    def cop_reference(self, capture_point, feet_xy, feet_yaw) -> np.ndarray | None:
        """(2,) where the CoP should be while a step is under way [m]: the point of the feet
        supporting now (the stance sole while unloading and swinging, both while loading) nearest
        to the capture point (the most an ankle can slow its divergence), or None when standing.
        A CoM reference of acceleration ``omega^2 (c - p)`` asks for exactly that CoP, an
        acceleration the stance foot can give, where a standing CoM target behind the robot
        would ask for one it cannot (and the QP would pitch the trunk to get it)."""
        swing = self.swing
        if swing is None:
            return None
        feet_xy, feet_yaw = np.asarray(feet_xy, dtype=float), np.asarray(feet_yaw, dtype=float)
        stance = 1 - FEET.index(swing.foot)
        if swing.phase == LOADING:
            polygon = self.support_polygon(feet_xy, feet_yaw)
        else:
            polygon = _rectangle(feet_xy[stance], float(feet_yaw[stance]), self.cop_half_sizes)
        return project_to_polygon(capture_point, polygon)

    def needs_step(self, capture_point, feet_xy, feet_yaw) -> bool:
        """Whether standing cannot capture: the capture point is outside the double-support CoP
        polygon by more than ``trigger_margin_m``.

        Where the feet moved since the last polygon was made, the answer comes from that polygon
        when it is certain: the new polygon lies within the corners' largest shift of the old
        one (each corner moves by at most its centre's shift plus the yaw's change times its
        radius), so a capture point deeper than that shift (plus the threshold) inside the old
        one is inside the new one too, and no step is needed. Otherwise the new polygon is made,
        as at every move before (the same answers: ``tests/test_stepping_law.py``)."""
        key = self._support_moved_to(feet_xy, feet_yaw)
        xi = np.asarray(capture_point, dtype=float)
        margin = self._trigger_margin()
        # No step wherever the slack (the depth inside) is at least max(0, -margin), below.
        last = self._support
        if last is not None and last[0] != key:
            normals, offsets = last[2]
            certain = max(0.0, -margin) + self._corner_shift_bound(last[0], key) + _CERTAIN_M
            if float((offsets - normals @ xi).min()) >= certain:
                return False
        _, polygon, (normals, offsets) = self._support_at(key)
        slack = offsets - normals @ xi
        if margin < 0.0:  # inside the edge by more than -margin: the nearest edge's slack decides
            return bool(slack.min() < -margin)
        if slack.min() >= 0.0:  # inside: standing can capture
            return False
        return signed_distance(capture_point, polygon) < -margin

    def captured(self, capture_point, feet_xy, feet_yaw) -> bool:
        """Whether the capture point is inside the double-support CoP polygon by ``capture_margin_m``."""
        polygon = self.support_polygon(np.asarray(feet_xy, dtype=float), np.asarray(feet_yaw, dtype=float))
        return signed_distance(capture_point, polygon) >= self.settings.capture_margin_m

    # -- one tick ----------------------------------------------------------------------------
    def update(self, time: float, capture_point: ArrayLike, feet_position: ArrayLike, feet_yaw: ArrayLike,
               normal_forces_n: ArrayLike, max_normal_force_n: float, allow_step: bool = True) -> None:  # fmt: skip
        """Advance one tick at ``time`` [s].

        Args:
            capture_point: (2,) the measured instantaneous capture point, world [m].
            feet_position: (2, 3) the sole centres (left, right), world [m].
            feet_yaw: (2,) the soles' yaws [rad].
            normal_forces_n: (2,) the feet's measured normal forces [N], or a function of no
                arguments that returns them (called only when the law uses them: at a step's
                decision and while a step is under way; a caller whose measurement costs time
                passes one).
            max_normal_force_n: the foot contacts' own upper bound [N].
            allow_step: False: no new step is decided this tick (a step under way goes on).
        """
        self.events = []
        xi = np.asarray(capture_point, dtype=float)
        feet = np.asarray(feet_position, dtype=float)
        yaw = np.asarray(feet_yaw, dtype=float)
        if self.phase == STANDING:
            if allow_step and self.needs_step(xi, feet[:, :2], yaw):
                self._decide(time, xi, feet, yaw, _measured(normal_forces_n), max_normal_force_n)
            return
        forces = _measured(normal_forces_n)
        swing = self.swing
        index = FEET.index(swing.foot)
        if swing.phase in (UNLOADING, SWING):
            remaining = swing.t_touch_planned - time
            if remaining > 0.0 and swing.progress(time) <= swing.settings.retarget_until:
                placement = self.place(swing.foot, xi, feet[:, :2], yaw, remaining)
                if swing.retarget(placement.target, time):
                    self.last_placement = placement
        before = swing.phase
        swing.update(time, float(forces[index]))
        if before == UNLOADING and swing.phase == SWING:
            self.events.append("lift_off")
        if before == SWING and swing.phase == LOADING:
            self.events.append("touch_down")
        self.phase = swing.phase if swing.phase != DONE else STANDING
        if swing.phase == DONE:
            self.swing = None
            if self.captured(xi, feet[:, :2], yaw):
                self.events.append("captured")
                self.steps_in_row = 0
            elif self.steps_in_row >= self.settings.max_steps:
                self.events.append("gave_up")
                self.steps_in_row = 0
            elif allow_step:
                self._decide(time, xi, feet, yaw, forces, max_normal_force_n)

    def _swing_settings(self) -> tuple[SwingSettings, bool]:
        """The next step's timing under the adjustment, and whether its swing was held at ``min_swing_s``."""
        s, scale = self.settings, self.adjustment.time_scale
        if scale == 1.0:
            return s.swing, False
        swing_s = scale * s.swing.swing_s
        clipped = swing_s < s.min_swing_s
        return replace(s.swing, unload_s=scale * s.swing.unload_s, swing_s=s.min_swing_s if clipped else swing_s), clipped

    def _decide(self, time, xi, feet, yaw, forces, max_normal_force_n) -> None:
        swing_settings, timing_clipped = self._swing_settings()
        placement = self.choose(xi, feet[:, :2], yaw, swing_settings.step_time_s)
        if placement.margin_m <= self.standing_margin(xi, feet[:, :2], yaw, swing_settings.step_time_s) + STEP_GAIN_M:
            self.events.append("no_better_step")
            return
        index = FEET.index(placement.foot)
        self.timing_clipped = timing_clipped
        self.swing = SwingFoot(placement.foot, swing_settings, time, feet[index], float(yaw[index]), placement.target,
                               float(forces[index]), max_normal_force_n)  # fmt: skip
        self.swing.update(time, float(forces[index]))
        self.phase = UNLOADING
        self.steps_taken += 1
        self.steps_in_row += 1
        self.clipped_steps += placement.clipped
        self.last_placement = placement
        self.events.append("decided")
