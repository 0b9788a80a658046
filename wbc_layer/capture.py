"""The ankle-strategy capture bound: how hard a horizontal push may be before no CoP can stop it.

Linear inverted pendulum, CoM height ``z_c`` above the ground, ``omega = sqrt(g / z_c)``
[1/s]: the instantaneous capture point (divergent component of motion) is
``xi = c_xy + v_xy / omega`` [m]. The robot can come to rest without stepping (and without
turning its upper body: the ankle strategy) only while ``xi`` lies in the support polygon: the
convex hull of the feet's soles, each shrunk to the centre-of-pressure bounds the controller
keeps. A horizontal impulse ``p`` [N s] in the unit direction ``u`` changes the CoM velocity by
``p u / m``, so moves ``xi`` by ``p u / (m omega)``; the bound is the largest ``p`` that keeps
``xi`` inside:

    p_max(u) = m omega s(u),   s(u) = distance from xi to the polygon's edge along u

(0 when ``xi`` is already outside). Everything here is pure numpy: the benchmark
``benchmarks/push_envelope.py`` feeds it MuJoCo's CoM state and the feet's poses.

**Stepping: the N-step capture regions** (Koolen et al. 2012, *Capturability-based analysis and
control of legged locomotion, Part 1*, the linear inverted pendulum with a finite-sized foot).
With the CoP held at ``p`` the capture point diverges from it, ``xi(t) = p + (xi0 - p) e^(omega t)``.
On one stance foot whose CoP stays in its rectangle ``R`` for the step time ``T``, a swing foot
landing at ``f`` in its reachable region ``F`` (``wbc_layer.step_limits.reachable_region``)
captures ``xi0`` in one step when ``xi(T)`` lies in the new foot's rectangle ``f + R``; with
``e = exp(-omega T)`` the one-step region is ``C_1 = (1 - e) R (+) e (F (+) R)`` and the N-step
ones ``C_N = (1 - e) R (+) e (F (+) C'_(N-1))``, ``C_0 = R`` (``(+)``: Minkowski sum; ``C'`` the
region of the next stance foot, in its own axes). Scaled copies of one convex set add up
(``a X (+) b X = (a + b) X``), so ``C_N = R (+) e F_1 (+) e^2 F_2 (+) ... (+) e^N F_N`` and
``C_inf = R (+) e / (1 - e^2) F_1 (+) e^2 / (1 - e^2) F_2`` for alternating feet: in one dimension
Koolen's ``d_1 = r + l e`` and ``d_inf = r + l e / (1 - e)``. An impulse ``p`` along ``u`` is
captured in N steps while ``xi0 + p u / (m omega)`` stays in ``C_N``
([`n_step_capture_bound`][wbc_layer.capture.n_step_capture_bound],
[`step_capture_bounds`][wbc_layer.capture.step_capture_bounds]).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from wbc_layer.step_limits import SWING_SIDES, StepLimits, reachable_region

#: Gravity [m/s^2], as the envs use it.
GRAVITY = 9.81
#: A direction's norm may differ from 1 by this much [-] (rounding of cos/sin of an angle).
UNIT_TOLERANCE = 1e-9
#: A polygon whose area is below this [m^2] (1 mm^2) is degenerate: no support to speak of.
MIN_AREA_M2 = 1e-6


def _finite_array(value, shape: tuple[int, ...], what: str) -> np.ndarray:
    """``value`` as a float array of ``shape`` (-1: any length), finite, else ``ValueError`` naming ``what``."""
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{what} must be numeric with shape {shape}, got {value!r}") from err
    if array.ndim != len(shape) or any(s != -1 and s != n for s, n in zip(shape, array.shape, strict=True)):
        raise ValueError(f"{what} must have shape {shape} (-1: any length), got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{what} must be finite, got {array.tolist()}")
    return array


def _finite_scalar(value, what: str, low: float | None = None) -> float:
    """``value`` as a finite float (``> low`` when given), else ``ValueError`` naming ``what``."""
    number = float(_finite_array(value, (), what))
    if low is not None and not number > low:
        raise ValueError(f"{what} must be > {low}, got {number}")
    return number


def convex_hull(points: ArrayLike) -> np.ndarray:
    """(k, 2) vertices of the convex hull of ``points`` (n, 2) [m], counter-clockwise, no
    collinear vertices (Andrew's monotone chain). ``ValueError`` if the hull is degenerate
    (fewer than 3 vertices or an area below [`MIN_AREA_M2`][wbc_layer.capture.MIN_AREA_M2])."""
    pts = _finite_array(points, (-1, 2), "polygon vertices")
    pts = np.unique(pts, axis=0)  # sorted by x, then y

    def cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
        return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))

    def chain(sequence) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for p in sequence:
            while len(out) >= 2 and cross(out[-2], out[-1], p) <= 0.0:
                out.pop()
            out.append(p)
        return out

    lower, upper = chain(pts), chain(pts[::-1])
    hull = np.array(lower[:-1] + upper[:-1]) if len(pts) >= 3 else pts
    area = 0.5 * float(np.sum(hull[:, 0] * np.roll(hull[:, 1], -1) - np.roll(hull[:, 0], -1) * hull[:, 1])) if len(hull) >= 3 else 0.0
    if len(hull) < 3 or area < MIN_AREA_M2:
        raise ValueError(
            f"support polygon is degenerate: its convex hull has {len(hull)} vertices and area {area:.3g} m^2 "
            f"(needs >= 3 vertices and >= {MIN_AREA_M2} m^2)"
        )
    return hull


def support_polygon(
    foot_positions: ArrayLike, foot_rotations: ArrayLike, half_length: float, half_width: float, margin: ArrayLike = 0.0
) -> np.ndarray:
    """(k, 2) counter-clockwise vertices [m] of the support polygon: the convex hull of the feet's
    sole rectangles, each shrunk by ``margin``.

    Args:
        foot_positions: (n, 3) world positions of the sole centres [m].
        foot_rotations: (n, 3, 3) world rotations of the soles (x forward along the sole, z up).
        half_length: the sole rectangle's half size along its x [m].
        half_width: the sole rectangle's half size along its y [m].
        margin: the controller's CoP margin [m]: a scalar, or (2,) for (length, width); the
            rectangle kept is ``(half_length - margin_x) x (half_width - margin_y)``.
    """
    positions = _finite_array(foot_positions, (-1, 3), "foot_positions")
    rotations = _finite_array(foot_rotations, (len(positions), 3, 3), "foot_rotations")
    margins = np.broadcast_to(_finite_array(margin, () if np.ndim(margin) == 0 else (2,), "margin"), (2,))
    half = np.array([_finite_scalar(half_length, "half_length", 0.0), _finite_scalar(half_width, "half_width", 0.0)]) - margins
    if np.any(margins < 0.0) or np.any(half <= 0.0):
        raise ValueError(
            f"margin must be >= 0 and smaller than the half sizes ({half_length}, {half_width}) m, got {margins.tolist()}"
        )
    signs = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
    local = np.column_stack([signs * half, np.zeros(4)])  # (4, 3) corners in the sole's axes
    corners = positions[:, None, :] + np.einsum("nij,kj->nki", rotations, local)  # (n, 4, 3)
    return convex_hull(corners[:, :, :2].reshape(-1, 2))


def exit_distance(origin: ArrayLike, direction: ArrayLike, polygon: ArrayLike) -> float:
    """Distance [m] from ``origin`` (2,) along the unit ``direction`` (2,) to the edge of the
    convex hull of ``polygon`` (k, 2); 0 when ``origin`` is on the edge or outside.

    Each edge is a half-plane ``n . x <= b`` (outward normal ``n``); from an inside point the ray
    leaves through the first edge it meets: ``min over n . u > 0 of (b - n . x0) / (n . u)``.
    """
    x0 = _finite_array(origin, (2,), "origin")
    u = _unit_direction(direction)
    hull = convex_hull(polygon)
    edges = np.roll(hull, -1, axis=0) - hull
    normals = np.column_stack([edges[:, 1], -edges[:, 0]])  # outward for a counter-clockwise hull
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    slack = np.einsum("ij,ij->i", normals, hull) - normals @ x0  # (k,) distance inside each edge [m]
    if np.any(slack <= 0.0):
        return 0.0
    rate = normals @ u  # (k,) approach speed towards each edge per metre along u
    leaving = rate > 0.0
    return float(np.min(slack[leaving] / rate[leaving]))  # a bounded polygon: some edge is ahead


def _unit_direction(direction) -> np.ndarray:
    u = _finite_array(direction, (2,), "direction")
    norm = float(np.hypot(*u))
    if abs(norm - 1.0) > UNIT_TOLERANCE:
        raise ValueError(f"direction must be a unit 2-vector (norm 1 +- {UNIT_TOLERANCE}), got {u.tolist()} of norm {norm}")
    return u


def capture_point(com: ArrayLike, com_velocity: ArrayLike, ground_height: float = 0.0, gravity: float = GRAVITY) -> np.ndarray:
    """(2,) instantaneous capture point ``c_xy + v_xy / omega`` [m], ``omega = sqrt(g / (c_z - ground_height))``.

    ``com`` (3,) [m], ``com_velocity`` (3,) [m/s], world axes; ``gravity`` [m/s^2]."""
    c = _finite_array(com, (3,), "com")
    v = _finite_array(com_velocity, (3,), "com_velocity")
    return c[:2] + v[:2] / pendulum_frequency(c, ground_height, gravity)


def pendulum_frequency(com: ArrayLike, ground_height: float = 0.0, gravity: float = GRAVITY) -> float:
    """``omega = sqrt(g / z_c)`` [1/s] of the linear inverted pendulum, ``z_c = com[2] - ground_height`` [m]."""
    c = _finite_array(com, (3,), "com")
    ground = _finite_scalar(ground_height, "ground_height")
    g = _finite_scalar(gravity, "gravity", 0.0)
    if not c[2] > ground:
        raise ValueError(f"com must be above the ground: com z {c[2]} m, ground_height {ground} m")
    return float(np.sqrt(g / (c[2] - ground)))


def capture_bound(
    com: ArrayLike, com_velocity: ArrayLike, mass: float, polygon: ArrayLike, direction: ArrayLike, ground_height: float = 0.0, gravity: float = GRAVITY
) -> float:
    """The ankle-strategy bound [N s] on a horizontal impulse along ``direction``.

    The largest ``p >= 0`` such that the capture point ``c + (v + p u / m) / omega`` (horizontal
    parts) stays inside the convex hull of ``polygon``: ``m omega s``, ``s`` the capture
    point's [`exit_distance`][wbc_layer.capture.exit_distance] along ``u``; 0 if it is outside already (or on the edge).

    Args:
        com: (3,) CoM position, world [m].
        com_velocity: (3,) CoM velocity, world [m/s].
        mass: total mass [kg] (> 0).
        polygon: (k, 2) support polygon vertices [m] (its convex hull is used; see
            [`support_polygon`][wbc_layer.capture.support_polygon]).
        direction: (2,) unit horizontal direction of the push, world axes.
        ground_height: height of the ground under the feet [m]; ``z_c = com[2] - ground_height``.
        gravity: [m/s^2].

    Raises:
        ValueError: naming the bad input (wrong shape, not finite, mass <= 0, CoM not above the
            ground, direction not of unit norm, degenerate polygon).
    """
    m = _finite_scalar(mass, "mass", 0.0)
    omega = pendulum_frequency(com, ground_height, gravity)
    xi = capture_point(com, com_velocity, ground_height, gravity)
    return m * omega * exit_distance(xi, direction, polygon)


# -- stepping: the one-step and N-step capture regions (Koolen et al. 2012) --------------------------
#: The other swing side (the next step's swing foot).
_OTHER_SIDE = {"left": "right", "right": "left"}


def minkowski_sum(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """(k, 2) counter-clockwise vertices [m] of the Minkowski sum ``{x + y : x in A, y in B}`` of the
    convex hulls of the polygons ``a`` (n, 2) and ``b`` (m, 2) [m]: the convex hull of all pairwise
    sums of their vertices.

    Raises:
        ValueError: ``a`` or ``b`` not a finite (n, 2) array, or a degenerate sum (see
            [`convex_hull`][wbc_layer.capture.convex_hull]).
    """
    pa = _finite_array(a, (-1, 2), "minkowski_sum a")
    pb = _finite_array(b, (-1, 2), "minkowski_sum b")
    if not (len(pa) and len(pb)):
        raise ValueError(f"minkowski_sum needs two non-empty polygons, got {len(pa)} and {len(pb)} vertices")
    return convex_hull((pa[:, None, :] + pb[None, :, :]).reshape(-1, 2))


def _polygon(value, what: str) -> np.ndarray:
    """The convex hull of the (n, 2) polygon ``value``, else ``ValueError`` naming ``what``."""
    points = _finite_array(value, (-1, 2), what)
    try:
        return convex_hull(points)
    except ValueError as err:
        raise ValueError(f"{what}: {err}") from err


def _cop_rectangle(cop_half_sizes) -> np.ndarray:
    """(4, 2) counter-clockwise corners of the CoP rectangle of half sizes (length, width) [m]."""
    half = _finite_array(cop_half_sizes, (2,), "cop_half_sizes")
    if not np.all(half > 0.0):
        raise ValueError(f"cop_half_sizes must be (half length, half width) > 0 [m], got {half.tolist()}")
    return np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]]) * half


def _mirrored(polygon: np.ndarray) -> np.ndarray:
    """The polygon mirrored across the x axis (the other side's foot), counter-clockwise again."""
    return (polygon * np.array([1.0, -1.0]))[::-1].copy()


def _step_count(steps) -> float:
    try:
        count = float(steps)
    except (TypeError, ValueError) as err:
        raise ValueError(f"steps must be an integer >= 0 or math.inf, got {steps!r}") from err
    if isinstance(steps, bool) or not (count == math.inf or (count.is_integer() and count >= 0.0)):
        raise ValueError(f"steps must be an integer >= 0 or math.inf, got {steps!r}")
    return count


def capture_region(
    cop_half_sizes: ArrayLike, reachable: ArrayLike, step_time_s: float, omega: float, steps: float = 1, reachable_next: ArrayLike | None = None
) -> np.ndarray:
    """(k, 2) counter-clockwise vertices [m] of the ``steps``-step capture region: where the
    instantaneous capture point may be, relative to the stance sole centre in the stance foot's
    axes, for the pendulum to come to rest after ``steps`` steps (see the module docstring).

    Each step lasts ``step_time_s`` (``T``: from now, or from the last touch-down, to the next
    touch-down, unloading included), during which the CoP stays in the stance foot's rectangle
    ``R``; at touch-down the CoP moves to the new foot at once (Koolen's model), the feet keep one
    yaw, and the steps alternate: the first swing foot lands in ``reachable`` (``F_1``, relative to
    the stance sole, stance axes), the next in ``reachable_next`` (``F_2``, relative to the first
    landing; None: ``reachable`` mirrored across the x axis, the other foot's region of a
    symmetric robot), then ``F_1`` again, ... In closed form, ``e = exp(-omega T)``:

        C_N = R (+) (e + e^3 + ...) F_1 (+) (e^2 + e^4 + ...) F_2   (powers up to e^N)

    so ``steps=0`` gives ``R``, ``1`` gives ``R (+) e F_1`` (= ``(1 - e) R (+) e (F_1 (+) R)``), and
    ``math.inf`` gives ``R (+) e / (1 - e^2) F_1 (+) e^2 / (1 - e^2) F_2``. The regions are exact
    for convex polygons. They are nested (``C_N`` in ``C_(N+1)``) when the reachable regions hold
    the origin (the foot may land where the stance foot is, as in Koolen's 1-D model); the
    no-crossover regions of ``wbc_layer.step_limits`` do not, so a step moves the region towards
    the swing foot's side and ``C_1`` need not hold ``R``: a step that must be taken can capture
    less than standing on the stance foot.

    Args:
        cop_half_sizes: (half length, half width) [m] of each sole's CoP rectangle (> 0).
        reachable: (n, 2) polygon [m] of the first swing sole centre's landing places (its
            convex hull is used).
        step_time_s: ``T`` [s] (> 0).
        omega: the pendulum's ``sqrt(g / z_c)`` [1/s] (> 0).
        steps: ``N``, an integer >= 0 or ``math.inf``.
        reachable_next: (m, 2) polygon [m] of the next swing sole centre's landing places, or None.

    Raises:
        ValueError: naming the bad argument.
    """
    region = _cop_rectangle(cop_half_sizes)
    first = _polygon(reachable, "reachable")
    second = _mirrored(first) if reachable_next is None else _polygon(reachable_next, "reachable_next")
    wt = _finite_scalar(step_time_s, "step_time_s", 0.0) * _finite_scalar(omega, "omega", 0.0)
    count = _step_count(steps)
    e = math.exp(-wt)
    denominator = -math.expm1(-2.0 * wt)  # 1 - e^2, accurate for a short step
    if count == math.inf:
        odd, even = e / denominator, e * e / denominator
    else:
        odd_terms, even_terms = math.ceil(count / 2), math.floor(count / 2)
        odd = e * -math.expm1(-2.0 * odd_terms * wt) / denominator  # e + e^3 + ... (odd_terms terms)
        even = e * e * -math.expm1(-2.0 * even_terms * wt) / denominator  # e^2 + e^4 + ...
    if odd > 0.0:
        region = minkowski_sum(region, odd * first)
    if even > 0.0:
        region = minkowski_sum(region, even * second)
    return region


def _sole_centre(value, what: str) -> np.ndarray:
    """(2,) horizontal part of a sole centre given as (2,) or (3,) [m], else ``ValueError`` naming ``what``."""
    if np.ndim(value) != 1 or len(value) not in (2, 3):
        raise ValueError(f"{what} must be the sole centre (2,) or (3,) [m], got {value!r}")
    return _finite_array(value, (len(value),), what)[:2]


def _stance_frame(stance_centre, stance_yaw, what: str = "stance_centre") -> tuple[np.ndarray, np.ndarray]:
    """The stance sole centre (2,) [m] and the rotation (2, 2) of its yaw [rad], world axes."""
    centre = _sole_centre(stance_centre, what)
    yaw = _finite_scalar(stance_yaw, "stance_yaw")
    c, s = math.cos(yaw), math.sin(yaw)
    return centre, np.array([[c, -s], [s, c]])


def _stance_region(
    cop_half_sizes, limits, swing_side, step_time_s, omega, steps, crossover, unloading_s, unloading_polygon, centre, rotation
) -> np.ndarray | None:
    """The region of ``n_step_capture_bound`` (stance axes), or None when no such step is within reach."""
    count = _step_count(steps)
    T = _finite_scalar(step_time_s, "step_time_s", 0.0)
    T_u = _finite_scalar(unloading_s, "unloading_s")
    if not 0.0 <= T_u < T:
        raise ValueError(f"unloading_s must be in [0, step_time_s = {T}) s, got {T_u}")
    if T_u > 0.0 and unloading_polygon is None:
        raise ValueError("unloading_polygon (the CoP's polygon during the unloading, world) is needed when unloading_s > 0")
    rectangle = _cop_rectangle(cop_half_sizes)
    first = reachable_region(limits, swing_side, crossover=crossover)
    if count > 0 and len(first) == 0:
        return None
    if count == 0:
        region = rectangle
    else:
        second = reachable_region(limits, _OTHER_SIDE[swing_side], crossover=crossover)
        if T_u == 0.0:
            region = capture_region(cop_half_sizes, first, T, omega, count, second)
        else:
            e_s = math.exp(-omega * (T - T_u))
            later = minkowski_sum(first, capture_region(cop_half_sizes, second, T, omega, count - 1, first))
            region = minkowski_sum((1.0 - e_s) * rectangle, e_s * later)
    if T_u > 0.0:
        local = (_polygon(unloading_polygon, "unloading_polygon") - centre) @ rotation  # rows: R^T (v - c)
        e_u = math.exp(-omega * T_u)
        region = minkowski_sum((1.0 - e_u) * local, e_u * region)
    return region


def n_step_capture_bound(
    com: ArrayLike, com_velocity: ArrayLike, mass: float, stance_centre: ArrayLike, stance_yaw: float, cop_half_sizes: ArrayLike,
    limits: StepLimits, swing_side: str, step_time_s: float, direction: ArrayLike, steps: float = 1,
    ground_height: float = 0.0, gravity: float = GRAVITY, *, crossover: bool = False, unloading_s: float = 0.0,
    unloading_polygon: ArrayLike | None = None,
) -> float:  # fmt: skip
    """The largest horizontal impulse [N s] along ``direction`` after which the capture point is
    ``steps``-step capturable, standing on one foot with the other (``swing_side``) about to swing.

    ``m omega s``, ``s`` the distance along ``u`` from the capture point to the edge of
    [`capture_region`][wbc_layer.capture.capture_region]'s region (in world axes: the region is
    relative to the stance sole centre in its axes, so the capture point and ``u`` are rotated by
    ``-stance_yaw`` into them); 0 if the capture point is outside the region already. The region
    is ``C_N`` itself, exactly ``N`` steps (the regions are not nested: ``step_capture_bounds``'
    ``"n_step"`` takes their union, at most ``N`` steps). The swing
    foot lands in ``reachable_region(limits, swing_side, crossover=crossover)``, the next one in
    the other side's region, and so on; each step takes ``step_time_s`` (the caller's: unloading
    plus swing, e.g. 0.1 s + ``limits.min_swing_time_s``), the CoP in the stance foot's rectangle
    ``R`` all that time: conservative while the other foot still carries load. With
    ``unloading_s`` > 0 the first step's first ``T_u = unloading_s`` of ``step_time_s`` has the CoP
    anywhere in ``unloading_polygon`` ``U`` (world; e.g. the double-support polygon while the swing
    foot unloads), the rest ``T_s = step_time_s - T_u`` in ``R``; the later steps are as before:

        C_N = (1 - e_u) U (+) e_u [(1 - e_s) R (+) e_s (F_1 (+) C'_(N-1))],   e_u = exp(-omega T_u), e_s = exp(-omega T_s)

    (``U`` relative to the stance sole, stance axes; ``C'_(N-1)`` the next stance's region of
    ``capture_region``).

    Args:
        com: (3,) CoM position, world [m].
        com_velocity: (3,) CoM velocity, world [m/s].
        mass: total mass [kg] (> 0).
        stance_centre: (2,) or (3,) the stance sole centre, world [m].
        stance_yaw: the stance sole's yaw [rad].
        cop_half_sizes: (half length, half width) [m] of each sole's CoP rectangle.
        limits: the robot's ``wbc_layer.step_limits.StepLimits``.
        swing_side: ``"left"`` or ``"right"``, the foot that swings (the stance foot is the other).
        step_time_s: each step's time to touch-down [s] (> 0).
        direction: (2,) unit horizontal direction of the push, world axes.
        steps: ``N``, an integer >= 0 or ``math.inf`` (0: the stance foot alone, no step).
        ground_height: height of the ground under the feet [m]; ``z_c = com[2] - ground_height``.
        gravity: [m/s^2].
        crossover: the steps are crossover steps (``reachable_region``'s keyword); 0 when no
            crossover step is within reach.
        unloading_s: the first step's unloading time ``T_u`` [s], in [0, step_time_s).
        unloading_polygon: (k, 2) world polygon [m] of the CoP during the unloading (needed when
            ``unloading_s`` > 0; its convex hull is used).

    Raises:
        ValueError: naming the bad argument (shape, not finite, mass <= 0, CoM not above the
            ground, direction not of unit norm, unknown swing_side, step_time_s <= 0,
            unloading_s outside [0, step_time_s), ...).
    """
    m = _finite_scalar(mass, "mass", 0.0)
    omega = pendulum_frequency(com, ground_height, gravity)
    xi = capture_point(com, com_velocity, ground_height, gravity)
    centre, rotation = _stance_frame(stance_centre, stance_yaw)
    u = _unit_direction(direction)
    region = _stance_region(cop_half_sizes, limits, swing_side, step_time_s, omega, steps, crossover, unloading_s,
                            unloading_polygon, centre, rotation)  # fmt: skip
    if region is None:
        return 0.0  # no such step within reach: nothing is captured by taking it
    return m * omega * exit_distance(rotation.T @ (xi - centre), rotation.T @ u, region)


def _line_interval(origin: np.ndarray, u: np.ndarray, polygon: np.ndarray) -> tuple[float, float]:
    """``(t_in, t_out)`` [m]: the points ``origin + t u`` inside the convex ``polygon``; ``t_in > t_out`` when none."""
    edges = np.roll(polygon, -1, axis=0) - polygon
    normals = np.column_stack([edges[:, 1], -edges[:, 0]])
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    slack = np.einsum("ij,ij->i", normals, polygon) - normals @ origin
    rate = normals @ u
    if np.any((rate == 0.0) & (slack < 0.0)):
        return math.inf, -math.inf
    t_in = float(np.max(slack[rate < 0.0] / rate[rate < 0.0], initial=-math.inf))
    t_out = float(np.min(slack[rate > 0.0] / rate[rate > 0.0], initial=math.inf))
    return t_in, t_out


def _union_exit_distance(origin: np.ndarray, u: np.ndarray, polygons: list[np.ndarray]) -> float:
    """How far [m] the ray ``origin + t u`` stays in the union of the convex ``polygons`` from
    ``t = 0`` on (0 when ``origin`` is in none of their interiors)."""
    intervals = [_line_interval(origin, u, polygon) for polygon in polygons]
    reach = max((t_out for t_in, t_out in intervals if t_in < 0.0 < t_out), default=0.0)
    if reach <= 0.0:
        return 0.0
    grown = True
    while grown:
        grown = False
        for t_in, t_out in intervals:
            if t_in <= reach < t_out:
                reach, grown = t_out, True
    return reach


#: ``n_step`` with ``n_steps=inf``: the regions ``C_N`` are taken until within this of ``C_inf`` [m].
CONVERGED_M = 1e-12
#: ... or up to this many steps (a step time far below 1 / omega).
MAX_UNION_STEPS = 1000


def step_capture_bounds(
    com: ArrayLike, com_velocity: ArrayLike, mass: float, left_centre: ArrayLike, right_centre: ArrayLike, yaw: float,
    cop_half_sizes: ArrayLike, limits: StepLimits, step_time_s: float, direction: ArrayLike, ground_height: float = 0.0,
    gravity: float = GRAVITY, *, n_steps: float = math.inf, crossover: bool = False, unloading_s: float = 0.0,
) -> dict:  # fmt: skip
    """The ankle, one-step and N-step bounds [N s] of a push along ``direction`` from double
    support (the sole centres ``left_centre``, ``right_centre``, both at ``yaw``), to compare.

    - ``"ankle"``: [`capture_bound`][wbc_layer.capture.capture_bound] with the double-support
      polygon of the two CoP rectangles: standing, no step.
    - ``"one_step"``: [`n_step_capture_bound`][wbc_layer.capture.n_step_capture_bound] with one
      step, the better of the two choices of stance foot (left stance with the right foot
      swinging, and the other way round);
    - ``"n_step"``: the same for *at most* ``n_steps`` steps (default ``math.inf``), at least one:
      the largest impulse such that every smaller one leaves the capture point in one of the
      regions ``C_1``, ..., ``C_N`` (the regions are not nested, so their union, along the push,
      from the capture point; ``n_steps=inf``: ``C_N`` up to the ``N`` where it is within 1e-12 m of
      ``C_inf``, and ``C_inf``); never below ``"one_step"``;
      ``"one_step_stance"`` / ``"n_step_stance"`` name the stance foot that gave it (``"left_foot"``
      / ``"right_foot"``; the left one on a tie, None when both give 0), and ``"by_stance"`` gives
      both: ``{"left_foot": {"one_step": ..., "n_step": ...}, "right_foot": {...}}``.

    The steps allowed: no crossover (``crossover=False``): each swing foot lands on its own side of
    the stance foot (``wbc_layer.step_limits.reachable_region``), within the reach of its hip at
    standing height; ``crossover=True`` also tries crossover steps (all the steps of one sequence
    of the same kind) and adds ``"one_step_crossover"`` / ``"n_step_crossover"``: whether the best
    bound was a crossover one. The first step's time ``step_time_s`` includes the unloading; by
    default the CoP is in the stance foot's rectangle all that time (conservative: a wide stance
    with narrow soles, G1's, then captures nothing by stepping even at rest, the capture point being
    too far from the stance foot), ``unloading_s`` > 0: in the double-support polygon for the
    first ``unloading_s`` of it (``n_step_capture_bound``'s ``unloading_polygon``).
    The stepping bounds are reported as they are, even below the ankle bound: a sideways push loads
    the outer foot, and lifting it to step outward takes the CoP off the side the capture point is
    moving to, while the inner foot may not cross over, so sideways a step may capture *less* than
    standing (a law should then stand, and keeps the ankle bound); forward and backward a step
    captures more.

    Raises:
        ValueError: naming the bad argument (as ``n_step_capture_bound``; ``left_centre`` /
            ``right_centre`` not (2,) or (3,)).
    """
    feet = [_sole_centre(left_centre, "left_centre"), _sole_centre(right_centre, "right_centre")]
    yaw = _finite_scalar(yaw, "yaw")
    half = _finite_array(cop_half_sizes, (2,), "cop_half_sizes")
    horizon = _step_count(n_steps)
    if horizon < 1:
        raise ValueError(f"n_steps must be >= 1 (an integer or math.inf), got {n_steps!r}")
    turn = np.array([[math.cos(yaw), -math.sin(yaw), 0.0], [math.sin(yaw), math.cos(yaw), 0.0], [0.0, 0.0, 1.0]])
    polygon = support_polygon(np.column_stack([np.array(feet), np.zeros(2)]), np.array([turn, turn]), half[0], half[1])
    m = _finite_scalar(mass, "mass", 0.0)
    omega = pendulum_frequency(com, ground_height, gravity)
    xi = capture_point(com, com_velocity, ground_height, gravity)
    u = _unit_direction(direction)
    out: dict = {"ankle": capture_bound(com, com_velocity, mass, polygon, direction, ground_height, gravity)}
    kinds = (False, True) if crossover else (False,)
    by_stance: dict = {}
    best: dict = {}
    for stance, centre, swing_side in (("left_foot", feet[0], "right"), ("right_foot", feet[1], "left")):
        centre, rotation = _stance_frame(centre, yaw)
        origin, local_u = rotation.T @ (xi - centre), rotation.T @ u
        by_stance[stance] = {"one_step": 0.0, "n_step": 0.0}

        def region(steps, kind):
            return _stance_region(half, limits, swing_side, step_time_s, omega, steps, kind, unloading_s, polygon, centre, rotation)  # noqa: B023

        for kind in kinds:
            one = region(1, kind)
            if one is None:
                continue  # no such step within reach
            last = horizon
            if horizon == math.inf:
                # C_N differs from C_inf by the steps after the N-th: within e^(N-1) / (1 - e) times
                # the farthest landing place (the first step's e_u e_s <= 1, the later ones' e)
                e = math.exp(-omega * float(step_time_s))
                size = max(float(np.abs(reachable_region(limits, side, crossover=kind)).max()) for side in SWING_SIDES)
                last = min(MAX_UNION_STEPS, max(1, math.ceil(1.0 + math.log(CONVERGED_M * (1.0 - e) / size) / math.log(e))))
            regions = [one, *(region(count, kind) for count in range(2, int(last) + 1))]
            if horizon == math.inf:
                regions.append(region(math.inf, kind))
            bounds = {"one_step": m * omega * exit_distance(origin, local_u, one),
                      "n_step": m * omega * _union_exit_distance(origin, local_u, regions)}  # fmt: skip
            for key, bound in bounds.items():
                by_stance[stance][key] = max(by_stance[stance][key], bound)
                if key not in best or bound > best[key][0]:
                    best[key] = (bound, stance if bound > 0.0 else None, kind)
    for key in ("one_step", "n_step"):
        bound, stance, kind = best.get(key, (0.0, None, False))
        out[key], out[f"{key}_stance"] = bound, stance
        if crossover:
            out[f"{key}_crossover"] = bool(kind) and stance is not None
    out["by_stance"] = by_stance
    return out
