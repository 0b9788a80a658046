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
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

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
