"""Step limits: where and how fast a swing foot may step, derived from the leg's kinematics.

Pure numpy. A robot description (``humanoid_env.robots``) measures its legs in its model and
calls ``derive_step_limits``; the stepping law and the capture bounds (``wbc_layer.capture``) take
the result as the polygon of ``reachable_region``.

**The rule** (``derive_step_limits``):

- *reach*: the stepping law keeps the CoM at its nominal height, so the hip stays at its standing
  height ``h`` above the sole. A flat foot then lands at most ``r = sqrt(L_u^2 - h^2)`` from the
  point below the hip, ``L_u = knee_margin x L`` the usable leg length, ``L`` the hip joint to the
  sole with the knee straight. ``knee_margin`` (default 0.995) keeps the knee off its
  straight-leg singularity: there the leg's length no longer changes with the knee angle
  (``dL / dtheta = l sin(theta / 2)`` for two segments of length ``l`` and a knee bend
  ``theta``), so the controller loses its vertical authority over the hip; 0.995 leaves the knee
  bent by about 12 deg at full reach on Hubo-lite (two 0.28 m segments), where ``dL / dtheta`` is
  still about 3 cm/rad. Hubo-lite: ``h`` = 0.585 m, ``L`` = 0.611 m: ``r`` = 0.165 m (0.175 m
  with a straight knee).
- *forward = backward = outward = r* from the swing foot's nominal place beside the stance foot
  (``nominal_width`` to its side). Conservative: the hip is taken not to move during the swing,
  while in practice the pelvis follows the CoM towards the step, so the hip ends up closer to the
  landing point than it started (by how much is not known before the step).
- *inward*: the sole centres keep ``min_width = 2 sole_half_width + width_clearance_m`` between
  them: side by side with a gap, never crossing (``reachable_region``'s ``crossover`` keyword
  says what a crossover step would be).
- *swing height* ``h_s = swing_height_fraction x L`` (0.08: 0.049 m on Hubo-lite).
- *fastest swing*: the swing foot's peak acceleration at most ``a_max =
  max_foot_acceleration_mps2`` in each axis, for a horizontal minimum-jerk move of the full
  reach (peak ``10 / sqrt(3) r / T^2``) and the vertical bump ``h_s b(t / T)`` of
  ``swing_height_profile`` (peak ``24 h_s / T^2``): ``T_min = max(sqrt(10 / sqrt(3) r / a_max),
  sqrt(24 h_s / a_max))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["StepLimits", "derive_step_limits", "reachable_region", "swing_height_profile"]

#: Peak |acceleration| of a minimum-jerk move of unit length over unit time: 10 / sqrt(3).
MIN_JERK_PEAK_ACCELERATION = 10.0 / math.sqrt(3.0)
#: Peak |d^2 b / ds^2| of the swing bump ``b(s) = 64 s^3 (1 - s)^3`` (at s = 1/2).
BUMP_PEAK_ACCELERATION = 24.0
#: Vertices of the reachable disk's polygon.
REACH_POLYGON_VERTICES = 32
#: Swing sides: the swing foot is the left one (it lies at +y of the stance foot) or the right one.
SWING_SIDES = ("left", "right")


def _positive(value, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{what} must be a finite number > 0, got {value!r}") from err
    if not (math.isfinite(number) and number > 0.0):
        raise ValueError(f"{what} must be a finite number > 0, got {value!r}")
    return number


@dataclass(frozen=True)
class StepLimits:
    """Where and how fast a swing foot may step, relative to its nominal place beside the stance foot.

    Attributes:
        max_forward_m: the swing sole centre's reach ahead of its nominal position (the stance
            sole centre plus the nominal lateral offset), stance-foot axes [m].
        max_backward_m: its reach behind that position [m] (a positive number).
        max_outward_m: its reach sideways, away from the stance foot, beyond the nominal width [m].
        min_width_m: the least lateral distance between the two sole centres [m] (no crossover:
            the legs do not pass through each other).
        nominal_width_m: the lateral distance between the sole centres at home [m].
        swing_height_m: the apex of the swing sole above the ground [m].
        min_swing_time_s: the fastest swing, lift-off to touch-down [s].
        reach_m: the radius of the flat-foot reach from the hip at the planned height [m], the
            number the others come from (see the module docstring).

    Raises:
        ValueError: a field not finite and > 0, or ``min_width_m > nominal_width_m``.
    """

    max_forward_m: float
    max_backward_m: float
    max_outward_m: float
    min_width_m: float
    nominal_width_m: float
    swing_height_m: float
    min_swing_time_s: float
    reach_m: float

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            _positive(getattr(self, name), f"StepLimits.{name}")
        if self.min_width_m > self.nominal_width_m:
            raise ValueError(
                f"StepLimits.min_width_m ({self.min_width_m} m) must not exceed nominal_width_m ({self.nominal_width_m} m): "
                "the feet would stand closer than they may step"
            )


def swing_height_profile(s: float) -> tuple[float, float, float]:
    """The swing sole's height over its apex, ``b(s) = 64 s^3 (1 - s)^3`` [-], and ``db/ds``,
    ``d2b/ds2`` at the swing's phase ``s = t / T`` in [0, 1] (held at the ends outside it).

    ``b(0) = b(1) = 0`` with zero velocity and acceleration there, ``b(1/2) = 1`` (the apex), and
    ``|d2b/ds2| <= 24`` (at ``s = 1/2``): a swing of height ``h_s`` [m] over ``T`` [s] has the
    height ``h_s b``, the vertical velocity ``h_s b' / T`` and acceleration ``h_s b'' / T^2``.

    Raises:
        ValueError: ``s`` not a finite number.
    """
    try:
        phase = float(s)
    except (TypeError, ValueError) as err:
        raise ValueError(f"s must be a finite number (the swing's phase in [0, 1]), got {s!r}") from err
    if not math.isfinite(phase):
        raise ValueError(f"s must be a finite number (the swing's phase in [0, 1]), got {s!r}")
    phase = min(max(phase, 0.0), 1.0)
    u = 1.0 - phase
    b = 64.0 * phase**3 * u**3
    db = 192.0 * phase**2 * u**2 * (u - phase)
    d2b = 384.0 * phase * u * (u * u - 3.0 * phase * u + phase * phase)
    return b, db, d2b


def derive_step_limits(
    leg_length_m: float,
    hip_height_m: float,
    nominal_width_m: float,
    sole_half_width_m: float,
    *,
    knee_margin: float = 0.995,
    width_clearance_m: float = 0.02,
    swing_height_fraction: float = 0.08,
    max_foot_acceleration_mps2: float = 3.0 * 9.81,
) -> StepLimits:
    """The step limits of a leg, by the rule of the module docstring.

    Args:
        leg_length_m: the hip joint to the sole centre with the knee straight [m].
        hip_height_m: the hip joint above the sole at the CoM height the stepping law plans (the
            standing posture) [m]; below ``knee_margin * leg_length_m``.
        nominal_width_m: the lateral distance between the sole centres at home [m].
        sole_half_width_m: the sole's half width [m].
        knee_margin: the share of the leg length used [-], in (0, 1) (see the module docstring).
        width_clearance_m: the gap kept between the soles' inner edges [m] (>= 0).
        swing_height_fraction: the swing's apex as a share of the leg length [-] (> 0).
        max_foot_acceleration_mps2: the swing foot's peak acceleration per axis [m/s^2] (> 0;
            3 g: a reactive step of 0.20 s on Hubo-lite, 0.21 s on the G1. 1 g would take
            0.35 s and leave the G1's wide stance no one-step capture from rest (the capture
            point between its feet diverges past what a 0.47-s step can reach); on Hubo-lite's
            push envelope (5 replicas, 0 and 180 deg) a 0.2-s swing survived 16 and 11 N s
            where 0.244 s (2 g) survived 15 and 10, 0.35 s (1 g) 14-15 and 9-10.)

    Returns:
        ``StepLimits(r, r, r, min(2 sole_half_width_m + width_clearance_m, nominal_width_m),
        nominal_width_m, h_s, T_min, r)``: the least width is capped at the nominal one (feet that
        stand closer than the rule's width at home may always step back there).

    Raises:
        ValueError: naming the bad argument (not finite, not positive, ``knee_margin`` not below
            1, the hip not below the usable leg length).
    """
    leg = _positive(leg_length_m, "leg_length_m")
    hip = _positive(hip_height_m, "hip_height_m")
    margin = _positive(knee_margin, "knee_margin")
    if not margin < 1.0:
        raise ValueError(f"knee_margin must be in (0, 1) (a share of the leg kept off the straight knee), got {knee_margin!r}")
    usable = margin * leg
    if not hip < usable:
        raise ValueError(
            f"hip_height_m ({hip} m) must be below the usable leg length knee_margin x leg_length_m = {usable} m: "
            "the foot could not reach the ground"
        )
    width = _positive(nominal_width_m, "nominal_width_m")
    half_width = _positive(sole_half_width_m, "sole_half_width_m")
    clearance = float(width_clearance_m)
    if not (math.isfinite(clearance) and clearance >= 0.0):
        raise ValueError(f"width_clearance_m must be a finite number >= 0, got {width_clearance_m!r}")
    fraction = _positive(swing_height_fraction, "swing_height_fraction")
    a_max = _positive(max_foot_acceleration_mps2, "max_foot_acceleration_mps2")
    reach = math.sqrt(usable**2 - hip**2)
    min_width = min(2.0 * half_width + clearance, width)
    height = fraction * leg
    swing = max(math.sqrt(MIN_JERK_PEAK_ACCELERATION * reach / a_max), math.sqrt(BUMP_PEAK_ACCELERATION * height / a_max))
    return StepLimits(reach, reach, reach, min_width, width, height, swing, reach)


def _ccw(polygon: np.ndarray) -> np.ndarray:
    area = 0.5 * float(np.sum(polygon[:, 0] * np.roll(polygon[:, 1], -1) - np.roll(polygon[:, 0], -1) * polygon[:, 1]))
    return polygon if area > 0.0 else polygon[::-1].copy()


def _clip(points: np.ndarray, normal: np.ndarray, offset: float) -> np.ndarray:
    """The convex polygon ``points`` cut to the half-plane ``normal . x >= offset`` (Sutherland-Hodgman, one edge)."""
    level = points @ normal - offset
    out = []
    for i in range(len(points)):
        j = (i + 1) % len(points)
        if level[i] >= 0.0:
            out.append(points[i])
        if (level[i] >= 0.0) != (level[j] >= 0.0):
            out.append(points[i] + level[i] / (level[i] - level[j]) * (points[j] - points[i]))
    return np.array(out).reshape(-1, 2)


def reachable_region(limits: StepLimits, swing_side: str, *, crossover: bool = False) -> np.ndarray:
    """(k, 2) counter-clockwise convex polygon [m] of the swing sole centre's landing places,
    relative to the stance sole centre, in the stance foot's axes (x forward, y left).

    The disk of radius ``max_forward_m`` (= backward = outward, the reach) around the swing foot's
    nominal place ``(0, +-nominal_width_m)`` (``+`` for ``swing_side="left"``: the swing foot is the
    left one; ``-`` for ``"right"``), as a regular polygon of
    [`REACH_POLYGON_VERTICES`][wbc_layer.step_limits.REACH_POLYGON_VERTICES] vertices on the circle,
    so *inscribed* in it: every point of the polygon is within reach (the conservative choice; it
    loses at most ``r (1 - cos(pi / 32))``, 0.5 % of the reach, between two vertices).

    ``crossover=False`` (the default): cut by the no-crossover line: the swing sole centre stays at
    least ``min_width_m`` to its own side of the stance sole centre (``+-y >= min_width_m``).

    ``crossover=True``: the crossover steps instead: the swing foot passes the stance leg and lands
    on its far side. Geometrically the landing places are the disk minus the places where the two
    soles would overlap (a box around the stance sole, ``min_width_m`` to each side and a sole
    length ahead and behind), which is not convex (it wraps around the stance foot); the convex
    part returned is the side-by-side one, the disk cut to ``-+y >= min_width_m`` (the swing sole
    beyond the stance sole, with the same gap). It is disjoint from the default region (the band
    ``|y| < min_width_m`` between them is where the soles meet), so a caller that allows crossover
    takes the better of the two answers. A (0, 2) array when the reach does not get there (a reach
    below ``nominal_width_m + min_width_m``: both robots here).
    Crossover steps also need the legs to pass each other, which the plant does not check (it has
    no leg-leg collision), so a law that uses them must.

    Raises:
        ValueError: ``limits`` not a ``StepLimits``, ``swing_side`` not ``"left"`` / ``"right"``.
    """
    if not isinstance(limits, StepLimits):
        raise ValueError(f"limits must be a StepLimits, got {type(limits).__name__}")
    if swing_side not in SWING_SIDES:
        raise ValueError(f"swing_side must be one of {SWING_SIDES}, got {swing_side!r}")
    sign = 1.0 if swing_side == "left" else -1.0
    angles = 2.0 * math.pi * np.arange(REACH_POLYGON_VERTICES) / REACH_POLYGON_VERTICES
    r = limits.max_forward_m
    disk = np.column_stack([r * np.cos(angles), sign * limits.nominal_width_m + r * np.sin(angles)])
    side = -sign if crossover else sign
    polygon = _clip(disk, np.array([0.0, side]), limits.min_width_m)
    if len(polygon) < 3:
        return np.zeros((0, 2))
    return _ccw(polygon)
