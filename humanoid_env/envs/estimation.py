"""Estimated state: what the controller and the policy see instead of the simulator's exact state.

A real whole-body controller is fed an *estimate* of the base's orientation and velocity and of
the joints' velocities, late by the sensing and computing latency, and its torques reach the
joints later still. The env keyword ``estimation`` (None, ``"moderate"``, ``"hard"``, a dict of
[`StateEstimation`][humanoid_env.envs.estimation.StateEstimation] fields, or a [`StateEstimation`][humanoid_env.envs.estimation.StateEstimation]) models that:

- **Sensing delay** of ``sensing_delay_steps`` = k whole physics steps: the estimate at physics
  step t is built from the true state of step t - k ([`StateHistory`][humanoid_env.envs.estimation.StateHistory]; before step k,
  from the episode's first state).
- **White noise** (Gaussian, a fresh draw at every physics step) and a **drifting bias**
  ([`GaussMarkovBias`][humanoid_env.envs.estimation.GaussMarkovBias]: first-order Gauss-Markov, stationary standard deviation sigma,
  correlation time ``bias_time_constant_s``; drawn from its stationary distribution at reset) on
  the base orientation (a rotation vector in base axes [rad]: roll, pitch, yaw to first order),
  the base linear velocity (base axes [m/s]), the base angular velocity (base axes [rad/s]) and
  the joint velocities [rad/s]; white noise only on the joint positions [rad]. The base position
  and the rest of the scene are exact (delayed), except the joints named as *followers*
  (the seesaw's board tilt, see [`SensorModel.add_follower`][humanoid_env.envs.estimation.SensorModel.add_follower]).
- **Actuation delay** of ``actuation_delay_steps`` = k physics steps ([`ActuationDelay`][humanoid_env.envs.estimation.ActuationDelay]):
  the torque computed at step t is applied at step t + k; for the first k steps of an episode the
  first computed torque is applied.

The estimate has the simulator's layout (full-scene ``qpos`` (nq,), ``qvel`` (nv,)), so the
sim bridge turns it into the controller's ``(q, v)`` exactly as it does the true state. What
uses it: the WBC's state (``WholeBodyController.compute``), the seesaw's board state and
board-tilt law, the pd mode's joint feedback, and the observation. What keeps the true state:
reward, termination, ``info`` (``info["estimate"]`` holds the estimate's errors, see
[`SensorModel.errors`][humanoid_env.envs.estimation.SensorModel.errors]), the contact and hand-force sensors (force sensing is not
modelled). Off by default: nothing is drawn and every env behaves bit for bit as without it.
With ``leg_odometry_s`` (wbc mode) the supporting feet correct the estimate's base linear velocity
before anything uses it: an estimator stage of the state pipeline ([`humanoid_env.envs.odometry`][humanoid_env.envs.odometry],
[`humanoid_env.envs.state`][humanoid_env.envs.state]).

Random numbers come from a generator spawned at each reset from the env's ``np_random``
(``Generator.spawn``, which draws nothing from the parent): the same seed gives the same
trajectory, and the env's own draws (initial posture, pushes, plant randomisation, CoM targets)
are the same as with ``estimation=None``, so episodes pair across settings.

## Limits

Each standard deviation is at most [`NOISE_LIMITS`][humanoid_env.envs.estimation.NOISE_LIMITS]' (0.5 rad on the orientation and the
joint positions, 2 m/s on the base linear velocity, 5 rad/s on the base angular velocity,
20 rad/s on the joint velocities; 17-40 times the ``"hard"`` preset's), the bias correlation time
at most 3600 s, each delay at most 50 steps: a larger value raises ``ValueError`` at
construction. Should the estimate still become non-finite, the env ends the episode before the
controller sees it (``info["termination"] == "nonfinite_estimate"``), and a reset whose estimate
is non-finite raises [`NonFiniteStateError`][humanoid_env.envs.base.NonFiniteStateError].

## Presets

The noise of the presets is taken from what published legged sim-to-real work adds to its
policies' observations; all three add uniform noise U(-a, a) (``noise_level`` x scale), turned
here into a Gaussian of the same standard deviation a / sqrt(3):

- ``"moderate"``: *Humanoid-Gym: Reinforcement Learning for Humanoid Robot with Zero-Shot
  Sim2Real Transfer* (Gu, Wang, Chen, 2024), its XBot-L configuration: noise level 0.6 on the
  scales quat 0.03, lin_vel 0.05, ang_vel 0.1, dof_pos 0.05, dof_vel 0.5, i.e. a = 0.018 rad,
  0.03 m/s, 0.06 rad/s, 0.03 rad, 0.3 rad/s: std 0.010 rad, 0.017 m/s, 0.035 rad/s, 0.017 rad,
  0.17 rad/s.
- ``"hard"``: *Learning to Walk in Minutes Using Massively Parallel Deep Reinforcement Learning*
  (Rudin, Hoeller, Reist, Hutter, CoRL 2021; its ``legged_gym`` defaults) and the joystick
  locomotion environments of *MuJoCo Playground* (Zakka et al., 2025) use the same scales:
  gravity 0.05, lin_vel 0.1 m/s, ang_vel (gyro) 0.2 rad/s, joint velocities 1.5 rad/s, joint
  positions 0.01 rad (legged_gym) / 0.03 rad (Playground): std 0.029 rad, 0.058 m/s,
  0.115 rad/s, 0.87 rad/s, 0.017 rad (Playground's).

The biases, their 5 s correlation time and the delays are **my judgement**, not taken from those
papers: ``"moderate"`` a bias of 0.01 rad (0.6 deg) on the attitude, 0.02 m/s on the base
velocity (leg odometry drifts), 0.005 rad/s on the gyro and 0.02 rad/s on the joint velocities,
sensing 1 step (2 ms) and actuation 1 step (2 ms) late; ``"hard"`` twice to three times as
much (0.03 rad, 0.05 m/s, 0.02 rad/s, 0.05 rad/s) and 3 + 2 steps (6 + 4 ms). A whole-body
controller runs at the physics rate (500 Hz), so its estimate is sampled at 500 Hz: these papers'
noise is per 50 Hz policy step, so the same standard deviation per 2 ms sample is harsher on
the controller than on their policies (a real estimator's 500 Hz output is smoother).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import asdict, dataclass
from typing import Any

import mujoco
import numpy as np

from humanoid_env.envs.kwargs import is_bool, keyword_error, resolve_preset

#: The largest standard deviation accepted for each noise and bias of [`StateEstimation`][humanoid_env.envs.estimation.StateEstimation]
#: (the field's unit: rad, m/s, rad/s). Each is 17-40 times the ``"hard"`` preset's and still an
#: error a controller can be fed: an orientation error up to 0.5 rad (29 deg), velocity errors of
#: metres per second. A value past it is rejected at construction (``1e300`` rad once put inf into
#: the observation and the controller's state).
NOISE_LIMITS: dict[str, float] = {
    "base_rpy_noise_rad": 0.5, "base_rpy_bias_rad": 0.5,
    "base_linear_velocity_noise_mps": 2.0, "base_linear_velocity_bias_mps": 2.0,
    "base_angular_velocity_noise_radps": 5.0, "base_angular_velocity_bias_radps": 5.0,
    "joint_velocity_noise_radps": 20.0, "joint_velocity_bias_radps": 20.0,
    "joint_position_noise_rad": 0.5,
}  # fmt: skip
#: The standard deviations of [`StateEstimation`][humanoid_env.envs.estimation.StateEstimation] (noise and bias), with their units.
NOISE_FIELDS = tuple(NOISE_LIMITS)
#: Largest delay accepted, either way [physics steps] (0.1 s at 500 Hz).
MAX_DELAY_STEPS = 50
#: Longest bias correlation time accepted [s] (an hour; the presets' is 5 s).
MAX_BIAS_TIME_CONSTANT_S = 3600.0


@dataclass(frozen=True)
class StateEstimation:
    """Settings of the estimated state; every standard deviation in ``[0, limit]`` (0: that term
    off; the limits, [`NOISE_LIMITS`][humanoid_env.envs.estimation.NOISE_LIMITS]: 0.5 rad for the orientation and the joint positions,
    2 m/s for the base linear velocity, 5 rad/s for the base angular velocity, 20 rad/s for the
    joint velocities, noise and bias alike).

    Attributes:
        base_rpy_noise_rad: white-noise std of the base orientation error, per axis [rad].
        base_rpy_bias_rad: stationary std of its Gauss-Markov bias, per axis [rad].
        base_linear_velocity_noise_mps: white-noise std of the base linear velocity, base axes [m/s].
        base_linear_velocity_bias_mps: its bias's stationary std [m/s].
        base_angular_velocity_noise_radps: white-noise std of the base angular velocity, base axes [rad/s].
        base_angular_velocity_bias_radps: its bias's stationary std [rad/s].
        joint_velocity_noise_radps: white-noise std of each joint velocity [rad/s].
        joint_velocity_bias_radps: its bias's stationary std [rad/s].
        joint_position_noise_rad: white-noise std of each joint position [rad] (no bias: encoders).
        bias_time_constant_s: correlation time tau of every bias [s] (in (0, 3600]).
        sensing_delay_steps: the estimate is the state this many physics steps old (integer >= 0).
        actuation_delay_steps: torques are applied this many physics steps after they were
            computed (integer >= 0).
    """

    base_rpy_noise_rad: float = 0.0
    base_rpy_bias_rad: float = 0.0
    base_linear_velocity_noise_mps: float = 0.0
    base_linear_velocity_bias_mps: float = 0.0
    base_angular_velocity_noise_radps: float = 0.0
    base_angular_velocity_bias_radps: float = 0.0
    joint_velocity_noise_radps: float = 0.0
    joint_velocity_bias_radps: float = 0.0
    joint_position_noise_rad: float = 0.0
    bias_time_constant_s: float = 5.0
    sensing_delay_steps: int = 0
    actuation_delay_steps: int = 0

    def __post_init__(self) -> None:
        for name, limit in NOISE_LIMITS.items():
            value = getattr(self, name)
            allowed = f"a number in [0, {limit:g}] (its unit; see NOISE_LIMITS)"
            try:
                if is_bool(value):
                    raise TypeError("a boolean is not a number")
                x = float(value)
            except (TypeError, ValueError) as err:
                raise keyword_error(f"estimation: {name}", allowed, value) from err
            if not (math.isfinite(x) and 0.0 <= x <= limit):
                raise keyword_error(f"estimation: {name}", allowed, value)
            object.__setattr__(self, name, x)
        tau = self.bias_time_constant_s
        number = isinstance(tau, int | float | np.integer | np.floating) and not is_bool(tau)
        if not (number and math.isfinite(tau) and 0 < tau <= MAX_BIAS_TIME_CONSTANT_S):
            raise keyword_error("estimation: bias_time_constant_s", f"a number in (0, {MAX_BIAS_TIME_CONSTANT_S:g}] [s]", tau)
        object.__setattr__(self, "bias_time_constant_s", float(tau))
        for name in ("sensing_delay_steps", "actuation_delay_steps"):
            value = getattr(self, name)
            whole = isinstance(value, int | np.integer) and not is_bool(value)
            if not whole or not 0 <= value <= MAX_DELAY_STEPS:
                raise keyword_error(f"estimation: {name}", f"a whole number of physics steps in [0, {MAX_DELAY_STEPS}]", value)
            object.__setattr__(self, name, int(value))


#: Named presets of the ``estimation`` keyword (see the module docstring for the sources).
PRESETS: dict[str, StateEstimation] = {
    "moderate": StateEstimation(
        base_rpy_noise_rad=0.010, base_rpy_bias_rad=0.01,
        base_linear_velocity_noise_mps=0.017, base_linear_velocity_bias_mps=0.02,
        base_angular_velocity_noise_radps=0.035, base_angular_velocity_bias_radps=0.005,
        joint_velocity_noise_radps=0.17, joint_velocity_bias_radps=0.02, joint_position_noise_rad=0.017,
        bias_time_constant_s=5.0, sensing_delay_steps=1, actuation_delay_steps=1,
    ),
    "hard": StateEstimation(
        base_rpy_noise_rad=0.029, base_rpy_bias_rad=0.03,
        base_linear_velocity_noise_mps=0.058, base_linear_velocity_bias_mps=0.05,
        base_angular_velocity_noise_radps=0.115, base_angular_velocity_bias_radps=0.02,
        joint_velocity_noise_radps=0.87, joint_velocity_bias_radps=0.05, joint_position_noise_rad=0.017,
        bias_time_constant_s=5.0, sensing_delay_steps=3, actuation_delay_steps=2,
    ),
}  # fmt: skip


def state_estimation(value: Any) -> StateEstimation | None:
    """The ``estimation`` keyword: None (off), a preset name, a dict of [`StateEstimation`][humanoid_env.envs.estimation.StateEstimation]
    fields (the others 0, ``bias_time_constant_s`` 5 s), or a [`StateEstimation`][humanoid_env.envs.estimation.StateEstimation]."""
    return resolve_preset("estimation", value, StateEstimation, PRESETS, "setting")


class GaussMarkovBias:
    """First-order Gauss-Markov bias of ``size`` channels (exact discretisation).

    ``b[t+1] = a b[t] + sigma sqrt(1 - a^2) w[t]`` with ``a = exp(-dt / tau)`` and ``w ~ N(0, I)``:
    stationary, zero mean, standard deviation ``sigma`` (the unit of the quantity), autocorrelation
    ``a^n`` after n steps, i.e. ``exp(-n dt / tau)``. `reset` draws ``b[0] ~ N(0, sigma^2)``.

    Args:
        sigma: stationary standard deviation (same unit as the biased quantity).
        tau: correlation time [s].
        dt: time step [s].
        size: number of channels.
    """

    def __init__(self, sigma: float, tau: float, dt: float, size: int):
        self.sigma, self.size = float(sigma), int(size)
        self.decay = math.exp(-dt / tau)
        self.drive = self.sigma * math.sqrt(1.0 - self.decay**2)
        self.value = np.zeros(self.size)

    def reset(self, rng: np.random.Generator) -> None:
        self.value = rng.normal(0.0, self.sigma, self.size) if self.sigma > 0 else np.zeros(self.size)

    def step(self, rng: np.random.Generator) -> np.ndarray:
        """Advance one step; returns the new bias (size,)."""
        if self.sigma > 0:
            self.value = self.decay * self.value + self.drive * rng.standard_normal(self.size)
        return self.value


class StateHistory:
    """The last ``delay + 1`` true states ``(qpos, qvel)``; `delayed` is the oldest.

    `reset` fills it with the episode's first state, so for the first ``delay`` steps the
    delayed state is that one.
    """

    def __init__(self, delay: int):
        self.delay = int(delay)
        self._states: deque[tuple[np.ndarray, np.ndarray]] = deque(maxlen=self.delay + 1)

    def reset(self, qpos: np.ndarray, qvel: np.ndarray) -> None:
        self._states.clear()
        for _ in range(self.delay + 1):
            self._states.append((qpos.copy(), qvel.copy()))

    def push(self, qpos: np.ndarray, qvel: np.ndarray) -> None:
        self._states.append((qpos.copy(), qvel.copy()))

    def delayed(self) -> tuple[np.ndarray, np.ndarray]:
        return self._states[0]


class ActuationDelay:
    """Torques applied ``delay`` physics steps after they were computed (a FIFO).

    `push` takes the torque (na,) [N m] computed at this step and returns the one to apply
    now: the torque of ``delay`` steps ago; for the first ``delay`` steps after `reset`,
    the first torque pushed. Its state is two arrays, ``queue`` (delay, na) [N m] (the oldest
    first) and ``filled`` (1,) bool (False: empty since `reset`): the compiled physics loop
    (``core/physics_loop.hpp``, ``DelayLine``) steps the same arrays in place.
    """

    def __init__(self, delay: int, na: int):
        self.delay = int(delay)
        self.queue = np.zeros((self.delay, int(na)))
        self.filled = np.zeros(1, dtype=bool)

    def reset(self) -> None:
        self.filled[0] = False

    def push(self, tau: np.ndarray) -> np.ndarray:
        if self.delay == 0:
            return tau
        if not self.filled[0]:
            self.queue[:] = tau
            self.filled[0] = True
        applied = self.queue[0].copy()
        self.queue[:-1] = self.queue[1:]
        self.queue[-1] = tau
        return applied


class SensorModel:
    """The sensors' view of a scene at the physics rate: the true state, late, noisy and biased.

    The plant's side of the state pipeline (``humanoid_env.envs.state``): what the robot's
    sensors report, before any estimator stage of the robot's software (leg odometry) corrects it.

    Args:
        model: the MuJoCo scene.
        root_qpos: address of the robot's free joint in ``qpos``.
        root_dof: its address in ``qvel``.
        joint_qpos: (na,) addresses of the robot's actuated joints in ``qpos``.
        joint_dof: (na,) their addresses in ``qvel``.
        settings: what to model.

    Call [`reset`][humanoid_env.envs.estimation.SensorModel.reset] at each reset and [`update`][humanoid_env.envs.estimation.SensorModel.update] once per physics step with the true state
    (a second call at the same ``data.time`` keeps the estimate: the observation after the last
    physics step and the controller at the next one see the same estimate). `qpos` (nq,)
    and `qvel` (nv,) are then the estimate in MuJoCo's layout (``qvel``'s base linear
    velocity in world axes, as MuJoCo's; the noise is added in base axes).
    """

    def __init__(
        self, model: mujoco.MjModel, root_qpos: int, root_dof: int, joint_qpos: np.ndarray, joint_dof: np.ndarray,
        settings: StateEstimation,
    ):  # fmt: skip
        self.model, self.settings = model, settings
        self.root_qpos, self.root_dof = int(root_qpos), int(root_dof)
        self.joint_qpos, self.joint_dof = np.asarray(joint_qpos), np.asarray(joint_dof)
        s, dt, na = settings, float(model.opt.timestep), len(joint_qpos)
        tau = s.bias_time_constant_s
        self.biases = {
            "base_rpy_rad": GaussMarkovBias(s.base_rpy_bias_rad, tau, dt, 3),
            "base_linear_velocity_mps": GaussMarkovBias(s.base_linear_velocity_bias_mps, tau, dt, 3),
            "base_angular_velocity_radps": GaussMarkovBias(s.base_angular_velocity_bias_radps, tau, dt, 3),
            "joint_velocity_radps": GaussMarkovBias(s.joint_velocity_bias_radps, tau, dt, na),
        }
        self.history = StateHistory(s.sensing_delay_steps)
        #: (qpos index, qvel index, base axis) of scene joints estimated through the robot.
        self.followers: list[tuple[int, int, int]] = []
        self.qpos = np.zeros(model.nq)
        self.qvel = np.zeros(model.nv)
        #: this step's orientation error (3,) [rad] and velocity errors, base axes (before delay).
        self.rpy_error = np.zeros(3)
        self.angular_velocity_error = np.zeros(3)
        self._time: float | None = None
        self._rng: np.random.Generator | None = None
        #: the estimate's kinematics (filled by the state pipeline, see ``humanoid_env.envs.state``).
        self.data = mujoco.MjData(model)

    def add_follower(self, qpos_index: int, dof_index: int, axis: int) -> None:
        """A scene joint whose state is estimated through the robot (the seesaw's board, read from
        the feet standing on it): its estimate gets the base orientation error and the base
        angular-velocity error about base ``axis`` (0, 1, 2 = x, y, z), to first order."""
        self.followers.append((int(qpos_index), int(dof_index), int(axis)))

    def reset(self, rng: np.random.Generator, data: mujoco.MjData) -> None:
        """Start an episode at ``data``'s state with the generator ``rng`` (draws the biases)."""
        self._rng = rng
        for bias in self.biases.values():
            bias.reset(rng)
        self.restart(data)

    def restart(self, data: mujoco.MjData) -> None:
        """Refill the delay line with ``data``'s state and estimate it again (biases kept)."""
        self.history.reset(data.qpos, data.qvel)
        self._time = None
        self.update(data)

    def update(self, data: mujoco.MjData) -> bool:
        """The estimate at ``data.time``: delay, then bias and noise; whether it is new (False if
        already at that time: nothing drawn)."""
        time = float(data.time)
        if time == self._time:
            return False
        if self._time is not None:
            self.history.push(data.qpos, data.qvel)
            for bias in self.biases.values():
                bias.step(self._rng)
        self._time = time
        rng, s, b = self._rng, self.settings, self.biases
        qpos, qvel = self.history.delayed()
        self.qpos[:] = qpos
        self.qvel[:] = qvel
        r, v = self.root_qpos, self.root_dof
        quat = qpos[r + 3 : r + 7]
        R = np.empty(9)
        mujoco.mju_quat2Mat(R, quat)
        R = R.reshape(3, 3)
        self.rpy_error = b["base_rpy_rad"].value + _white(rng, s.base_rpy_noise_rad, 3)
        estimated_quat = quat.copy()
        mujoco.mju_quatIntegrate(estimated_quat, self.rpy_error, 1.0)  # quat * exp(error), base axes
        self.qpos[r + 3 : r + 7] = estimated_quat
        R_est = np.empty(9)
        mujoco.mju_quat2Mat(R_est, estimated_quat)
        linear = R.T @ qvel[v : v + 3] + b["base_linear_velocity_mps"].value + _white(rng, s.base_linear_velocity_noise_mps, 3)
        self.qvel[v : v + 3] = R_est.reshape(3, 3) @ linear  # so that R_est^T qvel = true + error
        self.angular_velocity_error = b["base_angular_velocity_radps"].value + _white(rng, s.base_angular_velocity_noise_radps, 3)
        self.qvel[v + 3 : v + 6] += self.angular_velocity_error
        na = self.joint_qpos.size
        self.qpos[self.joint_qpos] += _white(rng, s.joint_position_noise_rad, na)
        self.qvel[self.joint_dof] += b["joint_velocity_radps"].value + _white(rng, s.joint_velocity_noise_radps, na)
        for qpos_index, dof_index, axis in self.followers:
            self.qpos[qpos_index] += self.rpy_error[axis]
            self.qvel[dof_index] += self.angular_velocity_error[axis]
        return True

    def errors(self, data: mujoco.MjData) -> dict[str, np.ndarray]:
        """The estimate minus the true state ``data`` (delay included) -- ``info["estimate"]``:

        ``base_rpy_error_rad`` (3,) rotation vector of ``R_true^T R_est``, base axes [rad];
        ``base_linear_velocity_error_mps`` (3,) and ``base_angular_velocity_error_radps`` (3,), base
        axes (each in its own estimated/true frame); ``joint_position_error_rad`` (na,);
        ``joint_velocity_error_radps`` (na,); ``bias`` {name: (3,) or (na,)}: the biases now.
        """
        r, v = self.root_qpos, self.root_dof
        true_quat, est_quat = data.qpos[r + 3 : r + 7], self.qpos[r + 3 : r + 7]
        conj, diff, rotvec = np.empty(4), np.empty(4), np.empty(3)
        mujoco.mju_negQuat(conj, true_quat)
        mujoco.mju_mulQuat(diff, conj, est_quat)
        mujoco.mju_quat2Vel(rotvec, diff, 1.0)
        R, R_est = np.empty(9), np.empty(9)
        mujoco.mju_quat2Mat(R, true_quat)
        mujoco.mju_quat2Mat(R_est, est_quat)
        linear = R_est.reshape(3, 3).T @ self.qvel[v : v + 3] - R.reshape(3, 3).T @ data.qvel[v : v + 3]
        return {
            "base_rpy_error_rad": rotvec,
            "base_linear_velocity_error_mps": linear,
            "base_angular_velocity_error_radps": self.qvel[v + 3 : v + 6] - data.qvel[v + 3 : v + 6],
            "joint_position_error_rad": self.qpos[self.joint_qpos] - data.qpos[self.joint_qpos],
            "joint_velocity_error_radps": self.qvel[self.joint_dof] - data.qvel[self.joint_dof],
            "bias": {name: bias.value.copy() for name, bias in self.biases.items()},
        }

    def describe(self) -> dict[str, Any]:
        """The settings, as a dict (for logs)."""
        return asdict(self.settings)


def _white(rng: np.random.Generator, std: float, size: int) -> np.ndarray:
    """``size`` draws of N(0, std^2), or zeros (and no draw) when ``std`` is 0."""
    return rng.normal(0.0, std, size) if std > 0 else np.zeros(size)


#: The former name of [`SensorModel`][humanoid_env.envs.estimation.SensorModel] (it models the sensors, not an
#: estimator); kept one release.
StateEstimator = SensorModel
