"""Contacts: the force rows accept the forces the ground can give and reject the others, and a
contact's kinematics are its frame's.

Test forces sit 1 % inside or outside a bound (e.g. 1 N at 100 N), far beyond the row tolerance.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.conftest import random_state
from wbc_layer import ConfigError, FootContact, PointContact

MU = 0.7
FZ = 100.0  # [N]
#: A row holds when G f <= h + ROW_TOL [N, N m] (rounding of rows with entries ~1).
ROW_TOL = 1e-9


def admits(contact, force, n_facets: int = 4) -> bool:
    G, h = contact.force_constraints(n_facets)
    return bool(np.all(G @ np.asarray(force, dtype=float) <= h + ROW_TOL))


def foot(**kwargs) -> FootContact:
    return FootContact("foot", "left_sole", **{"friction_coefficient": MU, "half_length": 0.1, "half_width": 0.05,
                                              **kwargs})


def wrench(fx=0.0, fy=0.0, fz=FZ, mx=0.0, my=0.0, mz=0.0) -> np.ndarray:
    return np.array([fx, fy, fz, mx, my, mz])


# -- friction -----------------------------------------------------------------------------------
@pytest.mark.parametrize("n_facets", [3, 4, 8])
def test_friction_pyramid_is_inscribed_in_the_cone(n_facets):
    """Every tangential direction: a force inside the pyramid's inscribed circle (radius
    mu cos(pi/n) f_n) is accepted, one outside the cone (radius mu f_n) rejected; every accepted
    random force lies inside the cone."""
    contact = foot()
    inner = 0.99 * MU * math.cos(math.pi / n_facets) * FZ
    for angle in np.linspace(0.0, 2.0 * np.pi, 37):
        direction = np.array([math.cos(angle), math.sin(angle)])
        assert admits(contact, wrench(*(inner * direction)), n_facets)
        assert not admits(contact, wrench(*(1.01 * MU * FZ * direction)), n_facets)
    rng = np.random.default_rng(0)
    accepted = 0
    for fx, fy in rng.uniform(-MU * FZ, MU * FZ, (500, 2)):
        if admits(contact, wrench(fx, fy), n_facets):
            accepted += 1
            assert math.hypot(fx, fy) <= MU * FZ * (1 + 1e-12)
    assert accepted > 100  # the check above saw many forces


def test_pyramid_edges_lie_on_the_cone():
    # With 4 facets at 0, 90, 180, 270 deg the edges are at 45 deg: |f_t| = mu f_n exactly there.
    contact = foot()
    edge = MU * FZ * np.array([1.0, 1.0]) / math.sqrt(2.0)
    assert admits(contact, wrench(*(0.99 * edge)))
    assert not admits(contact, wrench(*(1.01 * edge)))


def test_friction_scales_with_the_normal_force_and_coefficient():
    # Along a facet's normal (0 deg, 4 facets) the bound is mu cos(pi/4) f_n = 49.5 N at 100 N.
    bound = MU * math.cos(math.pi / 4) * FZ
    assert admits(foot(), wrench(fx=0.99 * bound)) and not admits(foot(), wrench(fx=1.01 * bound))
    assert not admits(foot(), wrench(fx=0.99 * bound, fz=0.5 * FZ))
    assert not admits(foot(friction_coefficient=0.5), wrench(fx=0.99 * bound))
    assert admits(foot(friction_coefficient=0.0), wrench())  # frictionless: pure normal force only
    assert not admits(foot(friction_coefficient=0.0), wrench(fx=0.01 * FZ))


# -- normal force -------------------------------------------------------------------------------
def test_normal_force_bounds():
    contact = foot(min_normal_force=20.0, max_normal_force=500.0)
    assert admits(contact, wrench(fz=20.0)) and admits(contact, wrench(fz=500.0))
    assert not admits(contact, wrench(fz=19.8)) and not admits(contact, wrench(fz=505.0))
    assert not admits(foot(), wrench(fz=-1.0))  # a foot never pulls the ground
    assert contact.normal_force(wrench(fz=123.0)) == 123.0


# -- centre of pressure and yaw moment ----------------------------------------------------------
@pytest.mark.parametrize("side", ["front", "back", "left", "right"])
def test_cop_must_stay_inside_the_sole(side):
    """CoP = (-m_y / f_z, m_x / f_z): 99 % of the way to an edge is accepted, 101 % rejected."""
    a, b = 0.1, 0.05
    cop = {"front": (a, 0.0), "back": (-a, 0.0), "left": (0.0, b), "right": (0.0, -b)}[side]

    def at(scale):
        x, y = scale * np.array(cop)
        return wrench(mx=y * FZ, my=-x * FZ)

    assert admits(foot(), at(0.99))
    assert not admits(foot(), at(1.01))


def test_yaw_moment_is_bounded_by_torsional_friction():
    # mu_t = mu min(a, b) / 2 = 0.7 * 0.05 / 2 = 0.0175 m: |m_z| <= 1.75 N m at 100 N.
    limit = MU * 0.05 / 2.0 * FZ
    for sign in (1.0, -1.0):
        assert admits(foot(), wrench(mz=sign * 0.99 * limit))
        assert not admits(foot(), wrench(mz=sign * 1.01 * limit))


# -- caching of the rows ------------------------------------------------------------------------
def test_rows_are_cached_read_only_and_rebuilt_when_a_parameter_changes():
    contact = foot()
    G, h = contact.force_constraints(4)
    assert contact.force_constraints(4)[0] is G and not G.flags.writeable and not h.flags.writeable
    version = contact.rows_version
    contact.friction_coefficient = 0.3
    assert not admits(contact, wrench(fx=0.3 * FZ))  # the new coefficient is in force (bound 21 N)
    assert contact.rows_version == version + 1  # rebuilt once, on the next call
    assert admits(contact, wrench(fx=0.2 * FZ)) and contact.rows_version == version + 1
    contact.half_length = 0.02
    assert not admits(contact, wrench(my=-0.05 * FZ))  # CoP 5 cm forward, sole now 2 cm


# -- point contacts -----------------------------------------------------------------------------
@pytest.mark.parametrize("normal", [(0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.3, -2.0, 0.5)])
def test_point_contact_rows_follow_its_normal(normal):
    contact = PointContact("hand", "right_hand", friction_coefficient=MU, normal=normal)
    n = np.array(normal) / np.linalg.norm(normal)
    basis = contact._basis
    np.testing.assert_allclose(basis.T @ basis, np.eye(3), atol=1e-12)  # orthonormal
    np.testing.assert_allclose(basis[:, 2], n, atol=1e-12)
    assert np.linalg.det(basis) == pytest.approx(1.0)  # right-handed
    np.testing.assert_allclose(contact.normal_row(), n, atol=1e-12)
    assert contact.normal_force(FZ * n) == pytest.approx(FZ)
    inner = 0.99 * MU * math.cos(math.pi / 4)
    for t in (basis[:, 0], basis[:, 1], -basis[:, 0], (basis[:, 0] + basis[:, 1]) / math.sqrt(2)):
        assert admits(contact, FZ * (n + inner * t))
        assert not admits(contact, FZ * (n + 1.01 * MU * t))
    assert not admits(contact, -FZ * n)  # pulling
    assert not admits(PointContact("hand", "right_hand", max_normal_force=50.0, normal=normal), FZ * n)


def test_point_contact_rows_are_rebuilt_for_a_new_normal():
    contact = PointContact("hand", "right_hand", normal=(0.0, 1.0, 0.0))
    assert admits(contact, [0.0, FZ, 0.0]) and not admits(contact, [0.0, 0.0, FZ])
    contact.normal = (0.0, 0.0, 1.0)
    assert admits(contact, [0.0, 0.0, FZ]) and not admits(contact, [0.0, FZ, 0.0])


# -- parameter checks ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: foot(mode="pushing"), r"mode must be one of \('supporting', 'controlled'\)"),
        (lambda: foot(friction_coefficient=-0.1), "friction_coefficient must be >= 0"),
        (lambda: foot(friction_coefficient=float("nan")), "friction_coefficient must be >= 0"),
        (lambda: foot(min_normal_force=50.0, max_normal_force=10.0), "min_normal_force <= max_normal_force"),
        (lambda: foot(min_normal_force=-1.0), "0 <= min_normal_force"),
        (lambda: foot(half_width=0.0), "half_length and half_width must be > 0"),
        (lambda: PointContact("hand", "right_hand", normal=(0.0, 0.0, 0.0)), "normal must be a finite non-zero"),
        (lambda: PointContact("hand", "right_hand", normal=(0.0, np.inf, 0.0)), "normal must be a finite non-zero"),
        (lambda: foot().force_constraints(2), "at least 3 facets"),
    ],
)
def test_invalid_parameters_name_the_contact_and_the_rule(make, message):
    with pytest.raises(ConfigError, match=message):
        make()


# -- kinematics ---------------------------------------------------------------------------------
def test_contact_kinematics_are_the_frames(mj_model, mj_data, robot, bridge):
    """A foot: 6D, frame axes (its rows act on the sole-frame wrench); a point contact: 3D, world
    axes. world_force maps each contact's force coordinates to world axes [N]."""
    random_state(mj_model, mj_data, np.random.default_rng(3))
    robot.update(*bridge.to_pinocchio(mj_data.qpos, mj_data.qvel))
    sole, hand = foot(), PointContact("hand", "right_hand", normal=(0.0, 1.0, 0.0))
    np.testing.assert_array_equal(sole.jacobian(robot), robot.frame_jacobian("left_sole", local=True))
    np.testing.assert_array_equal(sole.drift(robot), robot.frame_drift("left_sole", local=True))
    np.testing.assert_array_equal(hand.jacobian(robot), robot.frame_jacobian("right_hand", local=False)[:3])
    np.testing.assert_array_equal(hand.drift(robot), robot.frame_drift("right_hand", local=False)[:3])
    # MuJoCo's own site orientation rotates the sole-frame force to world axes.
    rotation = mj_data.site_xmat[mj_model.site("left_sole").id].reshape(3, 3)
    f = wrench(fx=3.0, fy=-2.0, fz=FZ, mx=1.0)
    np.testing.assert_allclose(sole.world_force(robot, f), rotation @ f[:3], atol=1e-9)
    np.testing.assert_array_equal(hand.world_force(robot, [1.0, 2.0, 3.0]), [1.0, 2.0, 3.0])
