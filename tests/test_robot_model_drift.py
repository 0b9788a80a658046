"""``RobotModel.frame_drift`` and ``com_drift`` are ``Jdot v``: the derivative of ``J(q) v`` along
the motion with ``qdd = 0``, checked by central differences.

Along ``q(t) = integrate(q, v t)`` with constant ``v`` (pinocchio's ``qdd = 0``: for the free flyer,
a constant base twist in base axes), ``d/dt [J(q(t)) v] = Jdot v``, so

    Jdot v ~ (J(q(dt)) v - J(q(-dt)) v) / (2 dt).

The frames' conventions are tested explicitly, and the wrong one is shown to be far off:

- ``local=True``: the spatial acceleration in frame axes, ``d/dt`` of the frame's twist in its own
  axes (a rigid 6D contact keeps that twist at zero);
- ``local=False``: world axes with the classical linear acceleration of the frame origin, the
  second derivative of its world position (a point contact keeps that position fixed).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from tests.conftest import random_state

#: Time step of the central difference [s]. Its truncation error is dt^2 / 6 |d^3/dt^3 (J v)|,
#: about 1e-10 |v|^3 L with joint rates |v| ~ 1-3 rad/s and lever arms L ~ 1 m (< 1e-8 m/s^2);
#: rounding adds eps |J v| / dt ~ 1e-10 m/s^2 (measured: at most 1.1e-8 here). The drifts
#: themselves are 0.8-14 m/s^2 on these states.
DT = 1e-5
#: Agreement required [m/s^2, rad/s^2]: a hundred times both error terms.
TOL = 1e-6
#: A convention error (the omega x v terms) is at least 0.36 m/s^2 on these states [m/s^2].
CONVENTION_GAP = 1e-2
FRAMES = ("left_sole", "right_sole", "right_hand", "torso")


def _along_motion(robot, q, v, quantity):
    """Central difference of ``quantity(robot)`` (evaluated after ``robot.update``) along
    ``q(t) = integrate(q, v t)`` at ``t = 0``; leaves ``robot`` updated at ``(q, v)``."""
    values = []
    for sign in (1.0, -1.0):
        robot.update(pin.integrate(robot.model, q, sign * DT * v), v)
        values.append(np.array(quantity(robot)))
    robot.update(q, v)
    return (values[0] - values[1]) / (2.0 * DT)


@pytest.fixture(params=range(4))
def moving_state(request, mj_model, mj_data, robot, bridge):
    """A random configuration (any base orientation) with random velocities, base included."""
    random_state(mj_model, mj_data, np.random.default_rng(100 + request.param), velocity_scale=1.0)
    q, v = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    assert np.linalg.norm(v[:3]) > 0.1 and np.linalg.norm(v[3:6]) > 0.1  # the base moves and turns
    robot.update(q, v)
    return q, v


@pytest.mark.parametrize("frame", FRAMES)
def test_local_drift_is_the_derivative_of_the_local_twist(robot, moving_state, frame):
    q, v = moving_state
    expected = _along_motion(robot, q, v, lambda r: r.frame_jacobian(frame, local=True) @ v)
    drift = robot.frame_drift(frame, local=True)
    np.testing.assert_allclose(drift, expected, rtol=0.0, atol=TOL)
    # The classical acceleration in frame axes (the other convention) is not it.
    classical = pin.getFrameClassicalAcceleration(robot.model, robot.data, robot.frame_id(frame), pin.LOCAL).vector
    assert np.abs(classical[:3] - expected[:3]).max() > CONVENTION_GAP


@pytest.mark.parametrize("frame", FRAMES)
def test_world_drift_is_the_classical_acceleration_of_the_origin(robot, moving_state, frame):
    q, v = moving_state
    expected = _along_motion(robot, q, v, lambda r: r.frame_jacobian(frame, local=False) @ v)
    drift = robot.frame_drift(frame, local=False)
    np.testing.assert_allclose(drift, expected, rtol=0.0, atol=TOL)
    # The linear part is the second derivative of the origin's world position.
    position = _along_motion(robot, q, v, lambda r: r.frame_placement(frame).translation.copy())
    np.testing.assert_allclose(position, robot.frame_jacobian(frame, local=False)[:3] @ v, rtol=0.0, atol=TOL)
    # The spatial acceleration in world-aligned axes (the other convention) is not it.
    spatial = pin.getFrameAcceleration(robot.model, robot.data, robot.frame_id(frame), pin.LOCAL_WORLD_ALIGNED).vector
    assert np.abs(spatial[:3] - expected[:3]).max() > CONVENTION_GAP


def test_com_drift_is_the_derivative_of_the_com_velocity(robot, moving_state):
    q, v = moving_state
    expected = _along_motion(robot, q, v, lambda r: r.com_jacobian @ v)
    np.testing.assert_allclose(robot.com_drift, expected, rtol=0.0, atol=TOL)
    np.testing.assert_allclose(robot.com_velocity, robot.com_jacobian @ v, rtol=0.0, atol=1e-12)


def test_drift_vanishes_at_rest(robot, moving_state):
    # Jdot v is quadratic in v: zero velocity, zero drift (exactly, up to rounding) [m/s^2].
    q, v = moving_state
    robot.update(q, np.zeros_like(v))
    for frame in FRAMES:
        for local in (True, False):
            assert np.abs(robot.frame_drift(frame, local=local)).max() < 1e-12
    assert np.abs(robot.com_drift).max() < 1e-12
    # ... and doubling the velocity quadruples it.
    robot.update(q, v)
    single = {frame: robot.frame_drift(frame, local=False).copy() for frame in FRAMES}
    robot.update(q, 2.0 * v)
    for frame in FRAMES:
        np.testing.assert_allclose(robot.frame_drift(frame, local=False), 4.0 * single[frame], rtol=1e-9, atol=1e-12)
