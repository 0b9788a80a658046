"""The env shell: the Gymnasium API over the parts of an env (see ``docs/architecture.md``).

[`HumanoidWBCBaseEnv`][humanoid_env.envs.base.HumanoidWBCBaseEnv] holds the spaces, seeding, rendering and
copying, and runs one env step as ``frame_skip`` physics steps (default 10 at 500 Hz: a 50 Hz
policy) over parts that are handed what they need and hold no reference back to it:

- the **plant** ([`Plant`][humanoid_env.envs.plant.Plant]): MuJoCo's model and data, reset, randomiser,
  pushes, contact sensing, the sim bridge;
- the **state pipeline** ([`StatePipeline`][humanoid_env.envs.state.StatePipeline]): sensor model, then
  estimator stages (leg odometry);
- the **actuation** (``humanoid_env.envs.actuation``): wbc (the controller, its references and the
  reference chain), torque or pd;
- the **task** ([`Task`][humanoid_env.envs.task.Task]): config, command, controller setup, observation,
  reward, termination, info.

A task's env class is this shell with its ``task_type`` (and its docstring, the env's spec): see
[`humanoid_env.envs.balance.HumanoidBalanceEnv`][humanoid_env.envs.balance.HumanoidBalanceEnv].
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import gymnasium as gym
import mujoco
import numpy as np

from humanoid_env.envs.actuation import Actuation, PDActuation, TorqueActuation, WbcActuation
from humanoid_env.envs.configs import (
    ACTION_MODES,
    MAX_FRAME_SKIP,
    MAX_RENDER_PX,
    PdConfig,
    PlantConfig,
    RewardConfig,
    SensingConfig,
    ShellConfig,
    TerminationConfig,
    WbcConfig,
    check_leg_odometry_needs,
    check_stepping_needs,
)
from humanoid_env.envs.estimation import ActuationDelay, SensorModel
from humanoid_env.envs.kwargs import resolve_kwargs
from humanoid_env.envs.numerics import all_finite
from humanoid_env.envs.physics_loop import CompiledPhysics, compiled_loop_obstacle
from humanoid_env.envs.plant import Plant
from humanoid_env.envs.pushes import PushSchedule
from humanoid_env.envs.rendering import SceneRenderer
from humanoid_env.envs.state import StatePipeline
from humanoid_env.envs.task import StepContext, Task
from humanoid_env.robots import DEFAULT_ROBOT
from humanoid_env.sim_bridge import NonFiniteTorqueError
from wbc_layer import RobotModel

if TYPE_CHECKING:
    from humanoid_env.scenarios.base import Scenario

__all__ = ["ACTION_MODES", "BASE_DEFAULTS", "GRAVITY", "MAX_FRAME_SKIP", "MAX_RENDER_PX", "HumanoidWBCBaseEnv", "NonFiniteStateError"]

GRAVITY = 9.81
#: ``info["termination"]`` of an episode that goes on.
RUNNING = None

#: Keyword arguments shared by every environment, with their defaults (see the env classes'
#: docstrings for the full table); each belongs to one part's config (``humanoid_env.envs.configs``).
BASE_DEFAULTS: dict[str, Any] = {
    "robot": DEFAULT_ROBOT,
    "action_mode": "wbc",
    "render_mode": None,
    "render_width": 480,
    "render_height": 360,
    "frame_skip": 10,
    "init_noise_rad": 0.01,
    # pushes at the torso
    "push_magnitude_n": (30.0, 120.0),
    "push_duration_s": 0.1,
    "push_interval_s": (2.0, 4.0),
    "push_direction_deg": None,
    "push_body": None,  # None: the robot description's push body
    # wbc-mode reference decoding
    "com_offset_low_m": (-0.04, -0.04, -0.05),
    "com_offset_high_m": (0.04, 0.04, 0.01),
    "force_share_range": (0.1, 0.9),
    "com_rate_limit_mps": 0.25,
    "com_offset_filter_s": 0.0,
    "force_share_rate_limit": 2.0,
    "force_weight": 1e-2,
    "reference_feedforward": True,
    # pd mode
    "pd_action_scale_rad": 0.5,
    "pd_kp_per_nm": 4.0,
    "pd_kd_s": 0.05,
    # termination
    "min_base_height_m": 0.45,
    "max_tilt_rad": 0.7,
    # reward weights
    "reward_alive": 1.0,
    "reward_com_tracking": 1.0,
    "com_tracking_sigma_m": 0.03,
    "reward_upright": 0.5,
    "reward_effort": 0.05,
    "reward_action_rate": 0.05,
    "fall_penalty": 10.0,
    # diagnostics and reproducibility: wall-clock QP time in info is opt-in (it makes two
    # identical steps' info differ, which env checkers reject)
    "timing_in_info": False,
    # an env step's physics steps in compiled code where the env's parts allow ("python": always in
    # Python; the same trajectories)
    "physics_loop": "compiled",
    "qp_solver": "eiquadprog",
    "wbc_backend": "compiled",
    # plant mismatch (humanoid_env.envs.randomisation): None, "moderate", "hard" or a dict of ranges
    "randomise": None,
    # estimated state (humanoid_env.envs.estimation): None, "moderate", "hard" or a dict of settings
    "estimation": None,
    # leg odometry (humanoid_env.envs.odometry): None (off) or the time constant [s] with which the
    # supporting feet correct the estimated base linear velocity (wbc mode with estimation)
    "leg_odometry_s": None,
    # the contact-loss guard (wbc_layer.contact_guard): None (off), True (default settings) or a
    # dict of ContactGuardSettings fields
    "contact_guard": None,
}

#: The parts' configs every env has, in the order their keywords are checked (then the task's).
PART_CONFIGS = (ShellConfig, PlantConfig, SensingConfig, WbcConfig, PdConfig, TerminationConfig, RewardConfig)


class NonFiniteStateError(RuntimeError):
    """``reset()`` produced a non-finite state or observation (no episode can start from it)."""


class HumanoidWBCBaseEnv(gym.Env):
    """The env shell over plant, state pipeline, actuation and task; see
    [`humanoid_env.envs.balance.HumanoidBalanceEnv`][humanoid_env.envs.balance.HumanoidBalanceEnv] for the spec."""

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 50}
    #: the task (its class; the env builds one from the task's keywords).
    task_type: ClassVar[type[Task]]
    #: keyword arguments and their defaults.
    DEFAULTS: ClassVar[dict[str, Any]] = BASE_DEFAULTS
    #: name used in error messages.
    env_name: ClassVar[str] = "HumanoidWBC"

    def __init__(self, **kwargs: Any):
        super().__init__()
        #: the flat resolved keywords (``DEFAULTS`` updated with the given ones).
        self.config = resolve_kwargs(self.DEFAULTS, kwargs, type(self).__name__)
        parts = [cls.from_keywords(self.config) for cls in PART_CONFIGS]
        shell, plant_config, sensing, wbc, pd, termination, rewards = parts
        task_config = self.task_type.config_type.from_keywords(self.config)
        check_leg_odometry_needs(sensing, shell.action_mode)
        check_stepping_needs(task_config, shell.action_mode)
        self.shell_config = shell
        self.action_mode: str = shell.action_mode
        self.render_mode = shell.render_mode
        self.frame_skip = shell.frame_skip
        #: the robot (frames, feet, home posture, controller settings).
        self.description = plant_config.description
        robot = RobotModel.from_mjcf(self.description.mjcf_path())
        #: the [`Task`][humanoid_env.envs.task.Task]: command, controller setup, observation, reward, termination, info.
        self.task: Task = self.task_type(task_config, self.description, rewards, termination)
        pushes = self.task.pushes(
            PushSchedule(
                magnitude_n=plant_config.push_magnitude_n, duration_s=plant_config.push_duration_s,
                interval_s=plant_config.push_interval_s, direction_deg=plant_config.push_direction_deg,
            )
        )  # fmt: skip
        #: the [`Plant`][humanoid_env.envs.plant.Plant]: MuJoCo's model and data, reset, randomiser, pushes, sensing.
        self.plant = Plant(
            self.description, self.task.scene, robot.joint_names, self.task.sensed_contacts, pushes, plant_config.push_body,
            plant_config.randomise_ranges, self.task.legs_collide,
        )  # fmt: skip
        self._init_noise_rad = plant_config.init_noise_rad
        self.dt = self.plant.dt_physics * self.frame_skip
        self.metadata = {**self.metadata, "render_fps": int(round(1.0 / self.dt))}
        self.weight_n = robot.mass * GRAVITY
        self.task.weight_n = self.weight_n
        robot = self.task.prepare(self.plant, robot, wbc)
        settings = sensing.estimation_settings
        bridge = self.plant.bridge
        sensors = (
            SensorModel(self.plant.model, bridge.root_qpos, bridge.root_dof, bridge.joint_qpos, bridge.joint_dof, settings)
            if settings else None
        )  # fmt: skip
        if sensors is not None:
            self.task.configure_sensors(sensors)
        #: the action mode's [`Actuation`][humanoid_env.envs.actuation.Actuation] (wbc: the controller and its references).
        self.actuation: Actuation = self._make_actuation(wbc, pd, robot)
        provided = {"supporting_feet": self.actuation.supporting_feet} if self.actuation.drives_controller else {}
        #: the [`StatePipeline`][humanoid_env.envs.state.StatePipeline]: sensor model, then estimator stages.
        self.pipeline = StatePipeline.assemble(
            self.plant.model, bridge, sensors, {"leg_odometry_s": sensing.leg_odometry_s}, provided
        )
        #: torques applied ``actuation_delay_steps`` physics steps late (None: at once).
        self.actuation_delay = ActuationDelay(settings.actuation_delay_steps, self.plant.na) if settings and settings.actuation_delay_steps else None
        self.context = StepContext(self.plant, self.pipeline, self.task, self.weight_n)

        #: the action's blocks (name -> size), in order.
        self.action_structure: dict[str, int] = self.actuation.structure
        action_size = self.actuation.size
        self.action_space = gym.spaces.Box(-1.0, 1.0, shape=(action_size,), dtype=np.float32)
        self.observation_structure: dict[str, int] = {
            "base_height": 1,
            "gravity_base": 3,
            "base_linear_velocity": 3,
            "base_angular_velocity": 3,
            "joint_positions": self.plant.na,
            "joint_velocities": self.plant.na,
            "com_relative": 3,
            "com_velocity": 3,
            "com_target_relative": 3,
            "foot_forces": 3 * 2,
            "previous_action": action_size,
            **self.task.observation_structure,
        }
        size = sum(self.observation_structure.values())
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        #: what the plant randomiser drew this episode (``info["randomisation"]``), or None.
        self.randomisation: dict[str, Any] | None = None
        #: scripted scenario driving the task and the WBC (see [`set_scenario`][humanoid_env.envs.base.HumanoidWBCBaseEnv.set_scenario]), or None.
        self.scenario: Scenario | None = None
        self._renderer: SceneRenderer | None = None
        #: the compiled physics-step loop (made at its first use) and why the last env step did not
        #: use it (None: it did).
        self._compiled_physics: CompiledPhysics | None = None
        self.physics_loop_obstacle: str | None = None
        self._reset_state_variables()

    def _make_actuation(self, wbc: WbcConfig, pd: PdConfig, robot: RobotModel) -> Actuation:
        """The action mode's [`Actuation`][humanoid_env.envs.actuation.Actuation]."""
        if self.action_mode == "wbc":
            return WbcActuation(self.task, self.plant, wbc, robot)
        if self.action_mode == "torque":
            return TorqueActuation(self.plant.torque_max)
        return PDActuation(self.plant, pd)

    def _reset_state_variables(self) -> None:
        #: the last action applied (clipped to the action space): the observation's
        #: ``previous_action`` block; zeros after a reset.
        self.previous_action = np.zeros(self.action_space.shape, dtype=np.float64)
        #: the action applied before it (a_{t-1} during step(a_t)): what ``action_rate`` compares with.
        self._action_before = self.previous_action
        self.last_tau = np.zeros(self.plant.na)
        self.last_tau_computed = np.zeros(self.plant.na)
        self._last_obs: np.ndarray | None = None
        self._last_com = self.plant.com_nominal.copy()
        self.fell = False
        self.nonfinite_state = False
        #: why the episode ended (``info["termination"]``), None while it goes on.
        self.termination: str | None = RUNNING

    # -- gymnasium API --------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        plant, rng = self.plant, self.np_random
        self.randomisation = plant.reset(rng, self._init_noise_rad)
        self._reset_state_variables()
        self.task.reset(rng)
        if not self.pipeline.exact:  # its own generator, spawned: the env's draws stay as without it
            self.pipeline.reset(rng.spawn(1)[0], plant.data)
        if self.actuation_delay is not None:
            self.actuation_delay.reset()
        if self.task.place_robot():  # the task moved the start state: the sensors start there
            self.pipeline.restart(plant.data)
        self.actuation.reset()
        if self.scenario is not None:
            self.scenario.reset(self.context)
            if self.actuation.drives_controller:
                self.actuation.add_tasks(self.scenario.controller_tasks(self.context))
        self.actuation.update_references(self.context, 0.0, 0.0, None)
        forces = plant.contact_forces()
        obs = self._reset_observation(forces)
        return obs.copy(), self._info(forces, status=self.actuation.step_status(0), fallbacks=0, solve_us=None)

    def _reset_observation(self, forces: dict[str, np.ndarray]) -> np.ndarray:
        """The first observation of an episode (kept as the last finite one); raises
        [`NonFiniteStateError`][humanoid_env.envs.base.NonFiniteStateError] naming the non-finite blocks if the reset state, its
        estimate or the observation is not finite (no episode can start from it)."""
        obs = self._observation(forces)
        if not (self.plant.state_is_finite() and all_finite(obs)):
            raise NonFiniteStateError(self._nonfinite_reset_message(obs))
        self._last_obs = obs
        return obs

    def _nonfinite_reset_message(self, obs: np.ndarray) -> str:
        """What `_reset_observation` says: the non-finite blocks, and the keywords that may cause them."""
        structure = self.observation_structure
        offsets = np.cumsum([0, *structure.values()])
        blocks = [name for name, a, b in zip(structure, offsets[:-1], offsets[1:], strict=True) if not np.isfinite(obs[a:b]).all()]
        state = "finite" if self.plant.state_is_finite() else "not finite"
        cfg = self.config
        return (
            f"{type(self).__name__}.reset(): the initial state is not finite (observation blocks {blocks}, simulator "
            f"state {state}); no episode can start from it. Check the robot description and the keywords "
            f"estimation={cfg['estimation']!r}, randomise={cfg['randomise']!r}, init_noise_rad={cfg['init_noise_rad']!r}"
        )

    def _mark_nonfinite(self, reason: str) -> None:
        """This step cannot go on: the state, estimate, torques or observation is not finite
        (``reason``: ``info["termination"]``, the first one found is kept)."""
        if not self.nonfinite_state:
            self.nonfinite_state = True
            self.termination = reason

    def step(self, action):
        action = self._check_action(action)
        plant, task = self.plant, self.task
        d = plant.data
        statuses: list[str] = []
        solve_times: list[float] = []
        actuation = self.actuation
        actuation.begin_step()
        if not plant.state_is_finite():  # after that, each physics step checks the state it made
            self._mark_nonfinite("nonfinite_state")
        effort = 0.0
        if not self.nonfinite_state:
            #: why this env step ran the Python loop (None: the compiled one).
            self.physics_loop_obstacle = compiled_loop_obstacle(self)
            if self.physics_loop_obstacle is None:
                if self._compiled_physics is None:
                    self._compiled_physics = CompiledPhysics(self)
                effort = self._compiled_physics.physics_steps(action, statuses, solve_times)
            else:
                effort = self._python_physics_steps(action, statuses, solve_times)
        effort /= max(len(statuses), 1)
        # The observation's previous_action block holds this step's action; action_rate compares
        # it with the one before (kept in _action_before).
        self._action_before, self.previous_action = self.previous_action, action.copy()
        forces = None
        if not self.nonfinite_state:
            mujoco.mj_forward(plant.model, d)  # positions-dependent quantities at the new state
            forces = plant.contact_forces()
            obs = self._observation(forces)
            if not all_finite(obs):
                self._mark_nonfinite("nonfinite_observation")
        if self.nonfinite_state:
            obs = self._last_obs.copy()
        self._last_obs = obs
        self.fell = self.nonfinite_state or task.fallen()
        task_ended = task.terminated(self.nonfinite_state, forces, self.dt)
        terminated = task_ended or self.fell
        if not self.nonfinite_state:
            self.termination = "fell" if self.fell else task.termination_reason if task_ended else RUNNING
        terms = task.reward_terms(self.fell, self.nonfinite_state, action, self._action_before, effort)
        reward = 0.0
        for value in terms.values():
            reward += value
        fallbacks = statuses.count("fallback")
        status = actuation.step_status(fallbacks)
        info = self._info(forces, status, fallbacks, float(np.mean(solve_times)) if solve_times else None, statuses.count("relaxed"))
        info.update({f"reward_{name}": value for name, value in terms.items()})
        if self.render_mode == "human":
            self.render()
        return obs.copy(), float(reward), bool(terminated), False, info

    def _python_physics_steps(self, action: np.ndarray, statuses: list[str], solve_times: list[float]) -> float:
        """The env step's physics steps in Python (the loop every part has a form for: see
        ``humanoid_env.envs.physics_loop``); appends each step's status and solve time [us];
        returns the sum of the steps' effort terms."""
        plant, pipeline, task, context, actuation = self.plant, self.pipeline, self.task, self.context, self.actuation
        d = plant.data
        effort = 0.0
        # The physics steps' loop is the env's hot path (10 per env step): what does not change
        # within an env step is looked up once here.
        dt = plant.dt_physics
        rng, bridge, scenario, command, pushes = self.np_random, plant.bridge, self.scenario, task.command, plant.pushes
        estimated = not pipeline.exact
        qpos, qvel = pipeline.state(d)  # arrays updated in place: the simulator's, or the estimate's
        push_force = d.xfrc_applied[plant.push_body, :3]  # a view into d
        ctrl = d.ctrl
        inverse_torque_max = plant.inverse_torque_max
        for _ in range(self.frame_skip):
            time = float(d.time)
            if scenario is not None:
                scenario.update_task(command, context, time, dt)
            else:
                task.update_command(rng, time, dt)
            command.evaluate(time)
            push_force[:] = pushes.update(rng, time)
            if estimated:
                pipeline.update(d)  # the state the controller sees at this physics step
                if not pipeline.is_finite():  # never handed to the controller
                    self._mark_nonfinite("nonfinite_estimate")
                    break
            actuation.update_references(context, time, dt, action)
            tau, status, solve_us = actuation.torques(qpos, qvel, action)
            statuses.append(status)
            solve_times.append(solve_us)
            self.last_tau_computed = tau
            if self.actuation_delay is not None:
                tau = self.actuation_delay.push(tau)  # the torque computed actuation_delay_steps ago
            try:
                bridge.torques_to_ctrl(tau, ctrl)  # checks them: the simulation never receives NaN
            except NonFiniteTorqueError:
                self._mark_nonfinite("nonfinite_torques")
                break
            relative = tau * inverse_torque_max
            effort += float(relative @ relative) / relative.size
            self.last_tau = tau
            if not plant.step():
                self._mark_nonfinite("nonfinite_state")
                break
        return effort

    def _observation(self, forces: dict[str, np.ndarray]) -> np.ndarray:
        """The observation (float32) of the simulator's state or, with ``estimation``, of the
        estimated one (the state pipeline's copy of the data); ``forces``: the contact forces
        measured now (force sensing is not modelled: the simulator's)."""
        plant = self.plant
        d = self.pipeline.observed(plant.data)
        blocks = self.task.observation_blocks(d, forces)
        blocks["previous_action"] = self.previous_action
        if self.task.observation_structure:
            blocks.update(self.task.task_observation(d, forces))
        com = plant.com()
        if all_finite(com):
            self._last_com = com
        return np.concatenate([np.asarray(blocks[k], dtype=np.float64).reshape(-1) for k in self.observation_structure]).astype(
            np.float32
        )

    def _info(
        self, forces: dict[str, np.ndarray] | None, status: str, fallbacks: int, solve_us: float | None, relaxed: int = 0
    ) -> dict[str, Any]:
        """The step's ``info``; ``wbc_solve_time_us`` (``solve_us`` [us], mean over the physics
        steps) only with ``timing_in_info=True`` and a measured time; ``relaxed``: physics steps
        that solved the relaxed QP."""
        plant, actuation, task = self.plant, self.actuation, self.task
        d = plant.data
        if self.nonfinite_state or forces is None:
            forces = {n: np.zeros(3) for n in plant.sensor.geom_ids}
        time = float(d.time)
        pushes = plant.pushes
        info = {
            "com": self._last_com.copy(),
            "com_ref": task.command.com_target.position.copy(),
            "wbc_com_reference": task.standing.wbc_com_reference.copy(),
            "contact_forces": forces,
            "contact_force_targets": actuation.force_targets(),
            "wbc_status": status,
            "wbc_fallbacks": int(fallbacks),
            "wbc_relaxed": int(relaxed),
            "wbc_contact_slack": float(actuation.step_contact_slack),
            "wbc_supporting": actuation.supporting_contacts(),
            "fell": bool(self.fell),
            "nonfinite_state": bool(self.nonfinite_state),
            "termination": self.termination,
            "time": time,
            "push_force": d.xfrc_applied[plant.push_body, :3].copy(),
            "pushes_total": pushes.total,
            "pushes_survived": pushes.survived(time, self.fell),
        }
        if not self.pipeline.exact and not self.nonfinite_state:
            info["estimate"] = self.pipeline.diagnostics(d)
        if self.shell_config.timing_in_info and solve_us is not None:
            info["wbc_solve_time_us"] = float(solve_us)
        if self.randomisation is not None and time == 0.0:  # reset's info: the episode's draws
            info["randomisation"] = {k: v.copy() if isinstance(v, (np.ndarray, dict)) else v for k, v in self.randomisation.items()}
        info.update(task.info(self.nonfinite_state, actuation.drives_controller))
        return info

    # -- scripted scenarios -----------------------------------------------------------------
    def set_scenario(self, scenario: Scenario | None) -> None:
        """Let ``scenario`` drive the task from the next `reset` on (None: the task's own).

        The scenario is a source of the reference chain that replaces the task's command (see
        [`humanoid_env.scenarios.base.Scenario`][humanoid_env.scenarios.base.Scenario]): at every reset
        ``scenario.reset(context)`` after the controller is built, then the controller tasks it
        asks for (``scenario.controller_tasks(context)``, wbc mode) are added; at every physics
        step ``scenario.update_task(command, context, time, dt)`` *instead of* the task's own
        command update, and, in wbc mode, ``scenario.update_controller(references, context,
        time, dt)`` after the task's reference stages and before the contact guard and the write
        into the controller. It reads the plant through ``context`` and writes only the command
        and references it is handed.
        """
        if scenario is not None and not self.actuation.drives_controller:
            raise ValueError(f"scripted scenarios need action_mode='wbc', got {self.action_mode!r}")
        self.scenario = scenario
        if isinstance(self.actuation, WbcActuation):
            self.actuation.scenario = scenario

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='rgb_array' to gym.make")
            return None
        if self._renderer is None:
            self._renderer = SceneRenderer(self.plant.model, self.render_mode, self.config["render_width"], self.config["render_height"])
        return self._renderer.render(self.plant.data)

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    # -- copying ----------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """What ``copy.deepcopy`` and ``pickle`` copy: the whole state (MuJoCo model and data,
        generators, pushes, sensors, filters, controller), not the renderer (a copy renders
        anew); a registered robot's description by name (see ``RobotDescription.__reduce_ex__``).
        Raises [`ControllerCopyError`][wbc_layer.controller.ControllerCopyError] for a
        ``qp_solver="proxsuite"`` controller that has solved (see
        ``WholeBodyController.check_copyable``)."""
        if self.actuation.controller is not None:
            self.actuation.controller.check_copyable()
        state = self.__dict__.copy()
        state["_renderer"] = None
        state["_compiled_physics"] = None  # its loop holds this env's MuJoCo objects: a copy makes its own
        return state

    # -- input checks ---------------------------------------------------------------------
    def _check_action(self, action) -> np.ndarray:
        """(k,) float64 action clipped to [-1, 1]; wrong shape or NaN/inf raise ``ValueError``."""
        try:
            action = np.asarray(action, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"action must be numeric with shape {self.action_space.shape}, got {action!r}") from err
        if action.shape != self.action_space.shape:
            raise ValueError(f"action must have shape {self.action_space.shape}, got shape {action.shape}")
        if not all_finite(action):
            bad = np.flatnonzero(~np.isfinite(action))
            raise ValueError(f"action has non-finite (NaN or inf) values at indices {bad.tolist()}")
        return action.clip(-1.0, 1.0)  # np.clip's own call, without its dispatch

    # -- reading the parts (read-only views for scripts, tests and benchmarks) ---------------------
    @property
    def model(self) -> mujoco.MjModel:
        """The plant's MuJoCo model."""
        return self.plant.model

    @property
    def data(self) -> mujoco.MjData:
        """The plant's MuJoCo data (the simulator's exact state)."""
        return self.plant.data

    @property
    def controller(self):
        """The episode's whole-body controller (wbc mode, after a reset), else None."""
        return self.actuation.controller

    @property
    def com_target(self) -> np.ndarray:
        """(3,) the task's CoM target now [m] (the command's; a view)."""
        return self.task.command.com_target.position

    @property
    def com_nominal(self) -> np.ndarray:
        """(3,) the nominal standing CoM [m] (the home keyframe's)."""
        return self.plant.com_nominal

    @property
    def bridge(self):
        """The plant's MuJoCo <-> pinocchio bridge."""
        return self.plant.bridge

    @property
    def dt_physics(self) -> float:
        """The physics time step [s]."""
        return self.plant.dt_physics

    def com(self) -> np.ndarray:
        """(3,) robot CoM, world [m] (MuJoCo's)."""
        return self.plant.com()

    def supporting_contacts(self) -> list[str]:
        """The feet the controller treats as rigid supporting contacts now (empty without one)."""
        return self.actuation.supporting_contacts()
