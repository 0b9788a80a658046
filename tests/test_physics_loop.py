"""The compiled physics-step loop (humanoid_env.envs.physics_loop, core/physics_loop.cpp) against the
env's Python loop: the same trajectories bit for bit, its stops (fallback, relaxed QP, a non-finite
state) as the Python loop's, the settings that run in Python and why, and its checks of what it is
handed."""

from __future__ import annotations

import dataclasses
import hashlib

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import humanoid_env  # noqa: F401  (registers the envs)
from humanoid_env import _physics
from humanoid_env.envs.estimation import PRESETS as ESTIMATION_PRESETS
from humanoid_env.envs.physics_loop import CompiledPhysics, compiled_loop_obstacle
from humanoid_env.envs.walking import WalkingStage
from humanoid_env.robots import FEET

#: The ``estimation="moderate"`` preset without its actuation delay.
ESTIMATE_NO_DELAY = {**dataclasses.asdict(ESTIMATION_PRESETS["moderate"]), "actuation_delay_steps": 0}


def rollout(loop: str, steps: int, seed: int, env_id: str = "HumanoidWBC-v0", **kwargs):
    """A digest of ``steps`` env steps under random actions (resets included): observations,
    rewards, the simulator's whole state and every scalar or array of ``info``; and the set of
    reasons the env gave for running the Python loop, and the physics steps' statuses."""
    env = gym.make(env_id, physics_loop=loop, **kwargs).unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    digest, obstacles, statuses = hashlib.sha256(), set(), {"relaxed": 0, "fallback": 0, "episodes": 1, "stepping": 0, "guarding": 0}
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(rng.uniform(-1.0, 1.0, env.action_space.shape))
        obstacles.add(env.physics_loop_obstacle)
        digest.update(obs.tobytes() + np.float64(reward).tobytes())
        state = np.empty(mujoco.mj_stateSize(env.model, mujoco.mjtState.mjSTATE_INTEGRATION))
        mujoco.mj_getState(env.model, env.data, state, mujoco.mjtState.mjSTATE_INTEGRATION)
        digest.update(state.tobytes() + env.last_tau.tobytes() + env.last_tau_computed.tobytes())
        for key in sorted(info):
            value = info[key]
            if isinstance(value, dict):  # (an entry numpy holds as an object, such as None, by its repr)
                value = sorted((k, np.asarray(v).tobytes() if np.asarray(v).dtype != object else repr(v)) for k, v in value.items())
            digest.update(key.encode() + repr(value if not isinstance(value, np.ndarray) else value.tobytes()).encode())
        statuses["relaxed"] += info.get("wbc_relaxed", 0)
        statuses["fallback"] += info.get("wbc_fallbacks", 0)
        statuses["stepping"] += (info.get("stepping") or {}).get("phase", "standing") != "standing"  # env steps within a step
        guard = getattr(env.actuation, "guard", None)
        statuses["guarding"] += guard is not None and any(state != "supporting" for state in guard.state.values())  # a foot let go
        if terminated or truncated:
            env.reset()
            statuses["episodes"] += 1
    return digest.hexdigest(), obstacles, statuses


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"action_mode": "torque"},
        {"action_mode": "pd"},
        {"robot": "g1"},
        {"robot": "g1", "action_mode": "pd"},
        # heavy pushes: falls, resets, and ticks whose rigid-contact QP had no solution (relaxed)
        {"push_magnitude_n": (600.0, 1000.0), "push_interval_s": (0.2, 0.4), "push_duration_s": 0.2},
        {"randomise": "moderate", "frame_skip": 7},
        # walking: the walking stage reads the state at some physics steps; the loop runs in segments
        {"env_id": "HumanoidWBCWalk-v0", "fixed_command": (0.3, 0.1, 0.3), "push_magnitude_n": (0.0, 0.0)},
        {"env_id": "HumanoidWBCWalk-v0", "robot": "g1"},
        {"env_id": "HumanoidWBCWalk-v0", "action_mode": "pd"},
        {"env_id": "HumanoidWBCWalk-v0", "push_magnitude_n": (300.0, 600.0), "push_interval_s": (0.3, 0.6)},
        # the stepping law reads the state at every physics step: one-step segments
        {"env_id": "HumanoidWBCPushRecovery-v0", "push_magnitude_n": (150.0, 260.0), "push_interval_s": (1.0, 2.0)},
        {"env_id": "HumanoidWBCPushRecovery-v0", "robot": "g1", "push_magnitude_n": (150.0, 260.0), "push_interval_s": (1.0, 2.0)},
        {"stepping": True, "push_magnitude_n": (150.0, 260.0), "push_interval_s": (1.0, 2.0)},
        # the contact guard reads the feet's forces and tilts at every physics step
        {"contact_guard": True, "push_magnitude_n": (600.0, 1000.0), "push_interval_s": (0.2, 0.4), "push_duration_s": 0.2},
        # the wall's hand-force loop reads the measured force at every physics step
        {"env_id": "HumanoidWBCWall-v0"},
        {"env_id": "HumanoidWBCWall-v0", "robot": "g1"},
        # the seesaw: the board an environment body of the controller, its law a stage reading the state
        {"env_id": "HumanoidWBCSeesaw-v0"},
        {"env_id": "HumanoidWBCSeesaw-v0", "robot": "g1"},
        {"env_id": "HumanoidWBCSeesaw-v0", "seesaw_model": "rigid"},
        # estimation (the estimator reads the state at every physics step), with the presets' actuation delay
        {"estimation": "moderate"},
        {"estimation": "hard", "robot": "g1", "push_magnitude_n": (600.0, 1000.0), "push_interval_s": (0.2, 0.4), "push_duration_s": 0.2},
        {"estimation": ESTIMATE_NO_DELAY},
        {"env_id": "HumanoidWBCSeesaw-v0", "estimation": "moderate", "leg_odometry_s": 0.05},
        {"env_id": "HumanoidWBCWalk-v0", "estimation": "moderate"},
        # commands that read the state at every physics step: each step's command waits for it
        {"env_id": "HumanoidWBCSquare-v0"},
        {"env_id": "HumanoidWBCSquare-v0", "action_mode": "torque"},
        {"goal_follows_feet": True, "stepping": True, "push_magnitude_n": (150.0, 260.0), "push_interval_s": (1.0, 2.0)},
    ],
    ids=["balance", "torque", "pd", "g1", "g1-pd", "heavy-pushes", "randomised-k7", "walk", "walk-g1", "walk-pd", "walk-heavy-pushes",
         "push-recovery", "push-recovery-g1", "balance-stepping", "contact-guard", "wall", "wall-g1",
         "seesaw", "seesaw-g1", "seesaw-rigid", "square", "square-torque", "feet-following-stepping",
         "estimation", "estimation-g1-heavy-pushes", "estimation-no-delay",
         "estimation-seesaw-odometry", "estimation-walk"],
)  # fmt: skip
def test_the_compiled_loop_gives_the_python_loops_trajectory_bit_for_bit(kwargs):
    steps = 300 if "env_id" in kwargs else 150  # walking: 6 s, a dozen steps or more
    python = rollout("python", steps, 3, **kwargs)
    compiled = rollout("compiled", steps, 3, **kwargs)
    assert python[1] == {"physics_loop='python'"} and compiled[1] == {None}  # each ran the loop it was asked for
    assert compiled[0] == python[0]
    assert compiled[2] == python[2]
    if kwargs.get("stepping") or kwargs.get("env_id") == "HumanoidWBCPushRecovery-v0":  # steps were taken
        assert compiled[2]["stepping"] > 10
    elif kwargs.get("push_magnitude_n", (0.0,))[0] >= 150.0:  # the heavy pushes reached the loop's stops (or falls)
        assert compiled[2]["episodes"] > 1
        assert compiled[2]["relaxed"] > 0 or "estimation" in kwargs
    if kwargs.get("contact_guard"):  # the guard let a foot go
        assert compiled[2]["guarding"] > 0


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # the 1e300 target in the float32 observation
def test_a_qp_with_no_solution_falls_back_in_the_compiled_loop_as_in_python():
    """A CoM target of 1e300 m overflows the QP (status non_finite_problem): each physics step
    applies the gravity-compensation fallback, in both loops, with the same torques and states."""

    def step_with_overflowing_target(loop: str):
        env = gym.make("HumanoidWBC-v0", physics_loop=loop, push_magnitude_n=(0.0, 0.0)).unwrapped
        env.reset(seed=1)
        env.step(np.zeros(4))
        env.task.command.com_target.position[:] = 1e300
        env.task.command.com_goal = np.full(3, 1e300)
        _, _, _, _, info = env.step(np.zeros(4))
        return env, info

    python_env, python_info = step_with_overflowing_target("python")
    env, info = step_with_overflowing_target("compiled")
    assert env.physics_loop_obstacle is None and python_env.physics_loop_obstacle == "physics_loop='python'"
    assert info["wbc_status"] == "fallback" and info["wbc_fallbacks"] == env.frame_skip == python_info["wbc_fallbacks"]
    # The fallback's static QP (proxsuite, eps_abs 1e-10) rounds by where its workspace lands in
    # memory (two runs of the Python loop in one process part by 1e-15 N m): equal to 1e-9 N m, the
    # states to 1e-12 (ten 2-ms steps of 1e-9 N m torque differences move a joint by far less).
    assert np.isfinite(env.last_tau).all()
    np.testing.assert_allclose(env.last_tau, python_env.last_tau, rtol=0.0, atol=1e-9)
    np.testing.assert_allclose(env.data.qpos, python_env.data.qpos, rtol=0.0, atol=1e-12)


def test_a_fallback_while_a_foot_unloads_sees_the_contacts_of_its_step_in_both_loops():
    """The fallback's static QP distributes the weight over the contacts at its physics step, with
    their normal-force bounds. In push recovery a foot that unloads has its bound ramped down at
    every physics step (then lifts off), so the contacts change between an env step's physics
    steps: the compiled loop hands the fallback the contacts of the step it stopped at (their
    rows), as the Python loop's write of that step's references does. The overflowing CoM target
    of the test above, in an env step of the unloading; the same tolerances (the torques differed
    by 2.5 N m before the contacts were handed over)."""

    def fall_back_while_unloading(loop: str):
        env = gym.make("HumanoidWBCPushRecovery-v0", physics_loop=loop, push_magnitude_n=(150.0, 150.0), push_interval_s=(0.5, 0.6)).unwrapped
        env.reset(seed=2)
        zero = np.zeros(env.action_space.shape)
        for _ in range(100):
            _, _, _, _, info = env.step(zero)
            if info["stepping"]["phase"] == "unloading":
                break
        assert info["stepping"]["phase"] == "unloading"
        env.task.command.com_target.position[:] = 1e300
        env.task.command.com_goal = np.full(3, 1e300)
        with np.errstate(over="ignore"):  # (the observation's float32 cast of the overflowing target)
            _, _, _, _, info = env.step(zero)
        return env, info

    python_env, python_info = fall_back_while_unloading("python")
    env, info = fall_back_while_unloading("compiled")
    assert info["wbc_fallbacks"] == python_info["wbc_fallbacks"] == env.frame_skip
    assert info["stepping"]["phase"] == python_info["stepping"]["phase"] in ("unloading", "swing")
    np.testing.assert_allclose(env.last_tau, python_env.last_tau, rtol=0.0, atol=1e-9)
    np.testing.assert_allclose(env.data.qpos, python_env.data.qpos, rtol=0.0, atol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"physics_loop": "python"}, "physics_loop='python'"),
        ({"estimation": "moderate", "action_mode": "pd"}, "estimation in torque or pd mode"),
    ],
)
def test_settings_that_read_the_state_within_an_env_step_run_the_python_loop_and_say_why(kwargs, reason):
    env = gym.make("HumanoidWBC-v0", **kwargs).unwrapped
    env.reset(seed=0)
    env.step(np.zeros(env.action_space.shape))
    assert reason in env.physics_loop_obstacle


@pytest.mark.parametrize(
    ("env_id", "mode"),
    [("HumanoidWBCWall-v0", "wbc"), ("HumanoidWBCSeesaw-v0", "wbc"), ("HumanoidWBCSquare-v0", "wbc"), ("HumanoidWBCSquare-v0", "torque"),
     ("HumanoidWBCWall-v0", "torque"), ("HumanoidWBCSeesaw-v0", "pd"), ("HumanoidWBCWalk-v0", "wbc"), ("HumanoidWBCWalk-v0", "pd"),
     ("HumanoidWBCPushRecovery-v0", "wbc")],
)  # fmt: skip
def test_every_task_runs_the_compiled_loop(env_id, mode):
    """Every task in its modes runs the compiled loop: whole env steps where nothing reads the
    state within one; in segments where a part says at which steps it reads it (the walking
    stage); one physics step at a time where a part reads it at every step and says so (the
    wall's hand-force loop; the seesaw's board state, predicted acceleration and law; the stepping
    law; the square's command, which waits for each step's state)."""
    env = gym.make(env_id, action_mode=mode).unwrapped
    env.reset(seed=0)
    env.step(np.zeros(env.action_space.shape))
    assert env.physics_loop_obstacle is None


def test_the_loop_refuses_what_does_not_fit_and_names_it():
    env = gym.make("HumanoidWBC-v0").unwrapped
    env.reset(seed=0)
    plant, bridge = env.plant, env.plant.bridge
    args = [plant.model, plant.data, bridge.q_from_qpos.tolist(), bridge.dofs.tolist(), bridge.root_qpos + 3,
            bridge.actuator_ids.tolist(), bridge.gear, bridge.ctrl_min, bridge.ctrl_max, plant.push_body]  # fmt: skip
    loop = _physics.PhysicsLoop(*args)
    assert loop.model is plant.model and loop.data is plant.data  # held: they outlive the loop's use
    with pytest.raises(TypeError, match="expected a mujoco.MjModel, got int"):
        _physics.PhysicsLoop(plant.model._address, *args[1:])
    with pytest.raises(TypeError, match="expected a mujoco.MjData, got MjModel"):
        _physics.PhysicsLoop(plant.model, plant.model, *args[2:])
    other = mujoco.MjModel.from_xml_string("<mujoco><worldbody><body><freejoint/><geom size='0.1'/></body></worldbody></mujoco>")
    with pytest.raises(ValueError, match="not an MjData of this model"):
        _physics.PhysicsLoop(plant.model, mujoco.MjData(other), *args[2:])
    bad = list(args)
    bad[5] = [plant.model.nu + 3] * len(bridge.actuator_ids)
    with pytest.raises(ValueError, match="actuator .* outside ctrl"):
        _physics.PhysicsLoop(*bad)
    bad = list(args)
    bad[9] = plant.model.nbody
    with pytest.raises(ValueError, match="push_body"):
        _physics.PhysicsLoop(*bad)
    na = plant.na
    no_delay = (np.zeros((0, na)), np.zeros(1, dtype=bool))  # the actuation delay's FIFO: none
    with pytest.raises(ValueError, match=rf"torques must have shape \(10, {na}\), got \(10, {na + 1}\)"):
        loop.run_torques(np.zeros((10, na + 1)), *no_delay, np.zeros((10, 3)), 0, 10, 0)
    with pytest.raises(ValueError, match=r"push must have shape \(10, 3\), got \(9, 3\)"):
        loop.run_torques(np.zeros((10, na)), *no_delay, np.zeros((9, 3)), 0, 10, 0)
    with pytest.raises(ValueError, match=r"first must lie in \[0, k\]"):
        loop.run_torques(np.zeros((10, na)), *no_delay, np.zeros((10, 3)), 11, 10, 0)
    before = env.data.qpos.copy()
    stop, done = loop.run_torques(np.full((2, na), np.nan), *no_delay, np.zeros((2, 3)), 0, 2, 0)
    assert (stop, done) == (_physics.LoopStop.NON_FINITE_TORQUES, 0)  # nothing reached MuJoCo
    assert np.array_equal(env.data.qpos, before) and np.isfinite(env.data.ctrl).all()


@pytest.mark.parametrize("env_id", ["HumanoidWBC-v0", "HumanoidWBCSeesaw-v0"])
def test_the_loop_refuses_rows_that_do_not_fit_the_controller(env_id):
    """The environment bodies' state rows must have the controller's body coordinates (none
    without bodies), a body rest row must name a body rest task, and the sensed state's rows
    must have MuJoCo's nq and nv: a clear error, nothing run."""
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    env.step(np.zeros(env.action_space.shape))  # the env's compiled loop and its row buffers
    physics = env._compiled_physics
    wbc = env.actuation
    ns = physics.body_s.shape[1]
    assert ns == (1 if env_id == "HumanoidWBCSeesaw-v0" else 0)

    def run(**rows):
        p = physics
        args = dict(rest_tasks=p.rest_tasks, rest_active=p.rest_active[:1], rest_target=p.rest_target[:1], body_s=p.body_s[:1],
                    body_s_dot=p.body_s_dot[:1], sensed_qpos=p.sensed_qpos, sensed_qvel=p.sensed_qvel,
                    delay_queue=p.delay_line[0], delay_filled=p.delay_line[1])  # fmt: skip
        args.update(rows)
        return p._physics_loop().run_controller(
            wbc.controller.compiled.core, p.com[0, :1], p.com[1, :1], p.com[2, :1], p.active[:1], p.min_normal_force[:1],
            p.max_normal_force[:1], p.track_force[:1], p.force_target[:1], p.force_weight[:1], p.frame_tasks, p.frame_active[:1],
            p.frame_position[:1], p.frame_velocity[:1], p.orientation_tasks, p.orientation_active[:1],
            p.orientation_target[:1], push=np.zeros((1, 3)), first=0, k=1, warnings_at_reset=0, **args,
        )  # fmt: skip

    before = env.data.qpos.copy()
    with pytest.raises(ValueError, match=rf"body_s must have shape \(1, {ns}\), got \(1, {ns + 1}\)"):
        run(body_s=np.zeros((1, ns + 1)))
    com_task = wbc.controller.compiled.task_index["com"]
    with pytest.raises(ValueError, match=f"task {com_task} is not a body rest task"):
        run(rest_tasks=[com_task], rest_active=np.zeros((1, 1), dtype=bool), rest_target=np.zeros((1, 1)))
    nq, nv = env.model.nq, env.model.nv
    with pytest.raises(ValueError, match=rf"sensed_qvel must have shape \(1, {nv}\), got \(1, {nv - 1}\)"):
        run(sensed_qpos=np.zeros((1, nq)), sensed_qvel=np.zeros((1, nv - 1)))
    with pytest.raises(ValueError, match=r"delay_queue must have shape \(delay, na\)"):
        run(delay_queue=np.zeros((2, env.plant.na + 1)))
    assert np.array_equal(env.data.qpos, before)


def test_the_loop_was_compiled_against_the_mujoco_it_calls():
    assert _physics.MUJOCO_VERSION_COMPILED == _physics.mujoco_version_loaded() == mujoco.mj_version()


def test_an_env_copy_makes_its_own_loop():
    """A deep copy of an env steps its own MuJoCo data: the same steps as the original from there."""
    import copy

    env = gym.make("HumanoidWBC-v0").unwrapped
    env.reset(seed=4)
    env.step(np.full(4, 0.3))
    twin = copy.deepcopy(env)
    for _ in range(5):
        a = env.step(np.full(4, -0.2))[0]
        b = twin.step(np.full(4, -0.2))[0]
        assert np.array_equal(a, b)
    assert twin._compiled_physics._loop.data is twin.data is not env.data and compiled_loop_obstacle(twin) is None


@pytest.mark.parametrize(
    ("owner", "name"),
    [("wbc_layer.compiled.CompiledTick", "compute"), ("humanoid_env.envs.actuation.WbcActuation", "torques"),
     ("humanoid_env.sim_bridge.SimBridge", "to_pinocchio"), ("humanoid_env.envs.plant.Plant", "step")],
)  # fmt: skip
def test_an_instrumented_per_step_method_sends_the_step_to_the_python_loop_which_calls_it(monkeypatch, owner, name):
    """A benchmark or test that wraps a method the Python loop calls at every physics step sees
    every call: the env step runs the Python loop then (frame_skip calls per env step)."""
    import importlib

    module, cls_name = owner.rsplit(".", 1)
    cls = getattr(importlib.import_module(module), cls_name)
    calls = []
    original = getattr(cls, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    env = gym.make("HumanoidWBC-v0").unwrapped
    env.reset(seed=0)
    monkeypatch.setattr(cls, name, counted)
    env.step(np.zeros(4))
    assert "replaced" in env.physics_loop_obstacle and len(calls) == env.frame_skip


def test_a_stage_that_says_when_it_reads_sees_the_state_of_its_step_there_and_is_planned_ahead_elsewhere(monkeypatch):
    """The walking stage in the compiled loop: at every physics step where it reads the state, the
    plant has run up to that step (its time is the step's: the loop stopped there); at the others
    it is updated ahead of the physics (the plant's time lags), which is where the compiled loop
    saves the Python loop's work. The ticks where it would read only a swing's landing are among
    those planned ahead, under the loop's landing watch (`watched`)."""
    seen = {}  # step time -> (reads the state, plant time == the step's time, watched): the last update there
    original = WalkingStage.update

    def update(self, references, context, action, dt):
        if dt > 0.0:
            reads = self.reads_state_at(context.time) and not self.watched
            seen[context.time] = (reads, float(context.plant.data.time) == context.time, self.watched)
        original(self, references, context, action, dt)

    monkeypatch.setattr(WalkingStage, "update", update)
    env = gym.make("HumanoidWBCWalk-v0", fixed_command=(0.3, 0.0, 0.0), push_magnitude_n=(0.0, 0.0)).unwrapped
    env.reset(seed=0)
    for _ in range(100):  # 2 s: the start and three steps
        env.step(np.zeros(env.action_space.shape))
        assert env.physics_loop_obstacle is None
    reads = [at_its_step for reads, at_its_step, _ in seen.values() if reads]
    ahead = [not at_its_step for reads, at_its_step, _ in seen.values() if not reads]
    assert len(seen) == 1000 and all(reads) and len(reads) >= 100  # a re-plan every 20 ms at least
    assert sum(ahead) >= 700  # most of the others ran ahead of the physics
    assert sum(watched for *_, watched in seen.values()) >= 150  # from the middle of each swing on, a landing watched


def test_the_walk_plans_its_swings_landing_ticks_ahead_under_the_landing_watch(monkeypatch):
    """The walk cases of the bit-for-bit test above (there equal to the Python loop's trajectory):
    here, that such a walk goes through the landing watch's paths: swings' ticks watched, the watch
    stopping before the landings, and every landing taken at a tick that read the state of its
    step (never at a watched one)."""
    counts = {"armed": 0, "stops": 0}
    landings = []  # per touch-down: (watched, the plant's time is the step's)
    original_start, original_land, original_update = CompiledPhysics._start_landing, CompiledPhysics._land, WalkingStage.update

    def start(self, walker, i, time):
        armed = original_start(self, walker, i, time)
        counts["armed"] += armed
        return armed

    def land(self, action, wbc, i, planned):
        counts["stops"] += 1
        return original_land(self, action, wbc, i, planned)

    def update(self, references, context, action, dt):
        original_update(self, references, context, action, dt)
        if dt > 0.0 and "touch_down" in self.generator.events:
            landings.append((self.watched, float(context.plant.data.time) == context.time))

    monkeypatch.setattr(CompiledPhysics, "_start_landing", start)
    monkeypatch.setattr(CompiledPhysics, "_land", land)
    monkeypatch.setattr(WalkingStage, "update", update)
    env = gym.make("HumanoidWBCWalk-v0", fixed_command=(0.3, 0.1, 0.3), push_magnitude_n=(0.0, 0.0)).unwrapped
    env.reset(seed=3)
    for _ in range(300):  # 6 s
        env.step(env.action_space.sample())
        assert env.physics_loop_obstacle is None
    assert len(landings) >= 8 and all(not watched and at_its_step for watched, at_its_step in landings)
    assert counts["armed"] >= 5 * len(landings)  # a watch from each swing's middle, anew after each re-plan
    # a stop before the landings that fell on watched ticks (not those at a re-plan's, which the loop reads anyway), few others
    assert len(landings) // 2 <= counts["stops"] <= len(landings) + 1


@pytest.mark.parametrize("robot", ["hubo_lite", "g1"])
def test_push_recovery_plans_the_laws_standing_ticks_ahead_under_its_watch(monkeypatch, robot):
    """Push recovery's stepping stage reads the state at every physics step, but while its law
    stands the compiled loop plans the ticks ahead and its watch checks each one (the push-recovery
    cases of the bit-for-bit test above: the same settings and seed, there equal to the Python
    loop's trajectory). Here, that those runs went through every path: many ticks watched, the watch
    stopping where it could not rule a step out, and there the law answering itself, both ways (no
    step: the ticks planned ahead stand; a step: the ticks after it planned one at a time)."""
    counts = {"ticks": 0, "watched": 0, "stops": 0, "standing_on": 0, "stepped": 0}
    original_run, original_stood, original_ask = CompiledPhysics._run, CompiledPhysics._stood, CompiledPhysics._ask_stepper

    def run(self, loop, wbc, first, end, warnings):
        stop, done = original_run(self, loop, wbc, first, end, warnings)
        counts["ticks"] += done - first
        counts["stops"] += stop == _physics.LoopStop.WATCH
        return stop, done

    def stood(self, wbc, first, done, stop):
        counts["watched"] += max(0, done - max(first, self._watched_from))
        original_stood(self, wbc, first, done, stop)

    def ask(self, action, wbc, i, planned):
        result = original_ask(self, action, wbc, i, planned)
        counts["stepped" if self._watched_from is None else "standing_on"] += 1
        return result

    monkeypatch.setattr(CompiledPhysics, "_run", run)
    monkeypatch.setattr(CompiledPhysics, "_stood", stood)
    monkeypatch.setattr(CompiledPhysics, "_ask_stepper", ask)
    _, obstacles, statuses = rollout("compiled", 300, 3, "HumanoidWBCPushRecovery-v0", robot=robot, push_magnitude_n=(150.0, 260.0),
                                     push_interval_s=(1.0, 2.0))  # fmt: skip
    assert obstacles == {None} and statuses["stepping"] > 10
    assert counts["watched"] > 0.3 * counts["ticks"]  # (random actions shift the law's trigger up to 3 cm sooner: fewer)
    assert counts["stops"] > 0 and counts["standing_on"] > 0 and counts["stepped"] > 0


def test_the_watch_refuses_what_does_not_fit_and_names_it():
    """The stepping law's watch checks what it is handed before the loop reads MuJoCo's arrays
    with it: a polygon of at least 3 edges, a key of 6 numbers, its body and sites in the model;
    the rows it gives back are copies."""
    env = gym.make("HumanoidWBCPushRecovery-v0").unwrapped
    env.reset(seed=0)
    env.step(np.zeros(env.action_space.shape))
    physics, plant = env._compiled_physics, env.plant
    sites = [int(s) for s in plant.sole_sites]
    with pytest.raises(ValueError, match="sole_sites must name 2 sites"):
        _physics.StandingWatch(plant.root_body, 3.8, sites[:1], 0.1)
    with pytest.raises(ValueError, match="omega must be > 0"):
        _physics.StandingWatch(plant.root_body, 0.0, sites, 0.1)
    watch = _physics.StandingWatch(plant.model.nbody + 2, 3.8, sites, 0.1)
    square = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    with pytest.raises(ValueError, match="at least 3 edges"):
        watch.set_support(square[:2], np.ones(2), np.zeros(6), 0.0, 1)
    with pytest.raises(ValueError, match="key must hold 6 entries"):
        watch.set_support(square, np.ones(4), np.zeros(5), 0.0, 1)
    watch.set_support(square, np.ones(4), np.zeros(6), 0.0, 1)
    assert not np.shares_memory(watch.capture_point, watch.capture_point)  # copies: a later run may move its rows
    wbc = env.actuation
    physics._watch, physics._watched_from = watch, 1
    with pytest.raises(ValueError, match=rf"root_body {plant.model.nbody + 2} is not a body of the loop's model"):
        physics._run(physics._physics_loop(), wbc, 0, env.frame_skip, plant._warning_counts)
    physics._watch = watch = _physics.StandingWatch(plant.root_body, 3.8, [sites[0], plant.model.nsite], 0.1)
    watch.set_support(square, np.ones(4), np.zeros(6), 0.0, 1)
    with pytest.raises(ValueError, match=rf"sole site {plant.model.nsite} is not a site of the loop's model"):
        physics._run(physics._physics_loop(), wbc, 0, env.frame_skip, plant._warning_counts)


def test_the_landing_watch_measures_a_foot_as_the_contact_sensor_does_and_refuses_what_does_not_fit():
    """The landing watch's force (core `vertical_contact_force`) is the contact sensor's vertical
    component, which the walking stage compares with the touch-down force, to rounding: within
    1e-9 N (LANDING_MARGIN_N, 1e-6 N, covers it) on a walk's feet, loaded and in the air. A geom
    outside the model or a threshold that is not finite is refused with its name."""
    env = gym.make("HumanoidWBCWalk-v0", fixed_command=(0.3, 0.0, 0.0), push_magnitude_n=(0.0, 0.0)).unwrapped
    env.reset(seed=0)
    env.step(np.zeros(env.action_space.shape))  # (the compiled loop is made at the first step)
    physics, plant = env._compiled_physics, env.plant
    loop = physics._physics_loop()
    measured = []
    for _ in range(100):  # 2 s: the start and three steps
        env.step(np.zeros(env.action_space.shape))
        forces = plant.contact_forces()
        for foot, geom in plant.sensor.geom_ids.items():
            measured.append((loop.vertical_contact_force(geom), forces[foot][2]))
        # what the walking stage reads: the watch's own sum, bit for bit
        assert plant.foot_normal_forces().tolist() == [loop.vertical_contact_force(plant.sensor.geom_ids[foot]) for foot in FEET]
    compiled, sensed = np.array(measured).T
    assert np.abs(compiled - sensed).max() <= 1e-9
    assert sensed.max() > 200.0 and (sensed == 0.0).sum() >= 10  # loaded feet and feet in the air
    with pytest.raises(ValueError, match="geom must be a geom id >= 0"):
        _physics.LandingWatch(-1)
    watch = _physics.LandingWatch(plant.model.ngeom)
    with pytest.raises(ValueError, match="threshold must be finite"):
        watch.arm(float("nan"), 0)
    watch.arm(50.0, 0)
    with pytest.raises(ValueError, match=rf"geom {plant.model.ngeom} is not a geom of the loop's model"):
        loop.vertical_contact_force(plant.model.ngeom)
    with pytest.raises(ValueError, match=rf"geom -1 is not a geom of the model \({plant.model.ngeom} geoms\)"):
        _physics.vertical_contact_forces(plant.model, plant.data, [0, -1])
    with pytest.raises(TypeError, match="expected a mujoco.MjData, got MjModel"):
        _physics.vertical_contact_forces(plant.model, plant.model, [0])
    physics._landing = (watch, 0, None)
    with pytest.raises(ValueError, match=rf"landing watch's geom {plant.model.ngeom} is not a geom of the loop's model"):
        physics._run(loop, env.actuation, 0, env.frame_skip, plant._warning_counts)
