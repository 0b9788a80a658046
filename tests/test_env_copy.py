"""Copying an env or a controller (``copy.deepcopy``, ``pickle``, ``cloudpickle``): the copy
continues the original's trajectory bit for bit, stepping it leaves the original untouched, and
what cannot be copied exactly (proxsuite's warm start) raises a clear error instead."""

from __future__ import annotations

import copy
import math
import pickle
import types
from collections import deque

import cloudpickle
import gymnasium as gym
import mujoco
import numpy as np
import pinocchio as pin
import pytest

import humanoid_env  # noqa: F401  (registers the envs)
from humanoid_env.envs.rendering import SceneRenderer
from humanoid_env.robots.hubo_lite import HUBO_LITE
from humanoid_env.scenarios import ContactSwitchScenario
from wbc_layer import FramePositionTask, WholeBodyController, _core
from wbc_layer.controller import ControllerCopyError

ENVS = ("HumanoidWBC-v0", "HumanoidWBCWall-v0", "HumanoidWBCSeesaw-v0")
MODES = ("wbc", "torque", "pd")
ROBOTS = ("hubo_lite", "g1")
COPIES = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda obj: pickle.loads(pickle.dumps(obj)),
    "cloudpickle": lambda obj: cloudpickle.loads(cloudpickle.dumps(obj)),
}
#: Env steps after the copy, for the copy and then the original.
STEPS = 200
#: ``info`` entries that hold wall-clock time (two identical steps differ there).
WALL_CLOCK = frozenset({"wbc_solve_time_us"})
#: The env's cached views into its MjData and its compiled loop (a copy makes them anew when first
#: needed; the loop carries nothing from one env step to the next: its actuation delay's FIFO is
#: handed back to the env's after every call).
VIEW_CACHES = frozenset({"_checked_views", "_checked_data", "_compiled_physics"})
#: The MuJoCo state compared at the end, bit for bit.
MJ_STATE = ("qpos", "qvel", "act", "qacc", "qacc_warmstart", "ctrl", "qfrc_applied", "xfrc_applied")


def same(a, b) -> bool:
    """Whether ``a`` and ``b`` are equal bit for bit: arrays of one dtype and shape with the same
    bytes, floats with the same bits (NaN and -0.0 included), containers entry by entry."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        )
    if isinstance(a, float) or isinstance(b, float):
        return type(a) is type(b) and np.float64(a).tobytes() == np.float64(b).tobytes()
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def without_wall_clock(info: dict) -> dict:
    return {k: v for k, v in info.items() if k not in WALL_CLOCK}


def run(env, actions) -> list[tuple]:
    """Step ``env`` through ``actions`` (resetting, without a seed, when an episode ends); each
    step's ``(obs, reward, terminated, truncated, info without wall-clock entries)``."""
    record = []
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        record.append((obs, reward, terminated, truncated, without_wall_clock(info)))
        if terminated or truncated:
            obs, info = env.reset()
            record.append((obs, without_wall_clock(info)))
    return record


def assert_same_run(original: list[tuple], copied: list[tuple]) -> None:
    assert len(original) == len(copied)
    for i, (a, b) in enumerate(zip(original, copied, strict=True)):
        assert same(a, b), f"record {i} differs: {a} vs {b}"


def assert_same_state(env_a, env_b) -> None:
    """The two envs' MuJoCo states, models and generators agree bit for bit."""
    a, b = env_a.unwrapped, env_b.unwrapped
    for name in MJ_STATE:
        assert same(getattr(a.data, name), getattr(b.data, name)), name
    assert a.data.time == b.data.time
    assert same(a.data.warning.number, b.data.warning.number)
    assert same(a.model.body_mass, b.model.body_mass) and same(a.model.dof_damping, b.model.dof_damping)
    assert a.np_random.bit_generator.state == b.np_random.bit_generator.state


#: Objects compared whole (once per pair, as containers are walked once).
_OBJECTS = (mujoco.MjModel, mujoco.MjData, pin.Model, pin.Data, np.random.Generator)


def _slots(obj) -> list[str]:
    """The ``__slots__`` names of ``obj``'s class and its bases (a slotted object has no ``__dict__``:
    the references' ``PointReference``, ``ContactReference``, ``TaskReference``); none for a class
    with its own ``==`` (a path: its slots are lazy caches), which is compared by it."""
    if isinstance(obj, type) or type(obj).__eq__ is not object.__eq__:
        return []
    return [name for cls in type(obj).__mro__ for name in getattr(cls, "__slots__", ()) if name not in ("__dict__", "__weakref__")]


def _attributes(obj) -> dict:
    """``obj``'s state: its ``__dict__`` and its slots that are set, without the cached views."""
    state = dict(vars(obj)) if hasattr(obj, "__dict__") else {}
    state.update({name: getattr(obj, name) for name in _slots(obj) if hasattr(obj, name)})
    return {k: v for k, v in state.items() if k not in VIEW_CACHES}


def state_differences(a, b, path: str = "env", seen: dict | None = None) -> list[str]:
    """Where two object graphs differ: every attribute, entry and array, walked in step (MuJoCo
    data by its public arrays, wall-clock timers left out; a generator by its state; pinocchio
    objects by their ``==``; slotted objects by their slots; the compiled core, opaque, skipped).
    Empty when they agree."""
    seen = {} if seen is None else seen  # (id(a), id(b)) -> (a, b) of the objects walked (kept alive)
    if isinstance(a, (_core.Controller, _core.EiquadprogSolver)):  # opaque (the solver holds no state)
        return []
    if isinstance(a, (dict, list, tuple, deque, *_OBJECTS)) or hasattr(a, "__dict__") or _slots(a):
        if (id(a), id(b)) in seen:
            return []
        seen[id(a), id(b)] = (a, b)
    if type(a) is not type(b):
        return [f"{path}: {type(a).__name__} vs {type(b).__name__}"]
    if isinstance(a, mujoco.MjData):  # (its public arrays; the timers are wall-clock time)
        names = [n for n in dir(a) if not n.startswith("_") and isinstance(getattr(a, n), np.ndarray)]
        return [f"{path}.{n}" for n in names + ["time"] if not same(getattr(a, n), getattr(b, n))]
    if isinstance(a, mujoco.MjModel):  # (the plant randomiser changes it in place)
        names = [n for n in dir(a) if not n.startswith("_") and isinstance(getattr(a, n), np.ndarray)]
        return [f"{path}.{n}" for n in names if not same(getattr(a, n), getattr(b, n))]
    if isinstance(a, np.random.Generator):
        return [] if a.bit_generator.state == b.bit_generator.state else [path]
    if isinstance(a, (pin.Model, pin.Data)):
        return [] if a == b else [path]
    if isinstance(a, (np.ndarray, float, int, str, bytes, bool, type(None), np.generic)):
        return [] if same(a, b) else [path]
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys"]
        return [d for k in a for d in state_differences(a[k], b[k], f"{path}[{k!r}]", seen)]
    if isinstance(a, (list, tuple, deque)):
        if len(a) != len(b):
            return [f"{path}: length"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in state_differences(x, y, f"{path}[{i}]", seen)]
    if isinstance(a, types.MethodType):
        return [] if a.__func__ is b.__func__ else [path]
    if (hasattr(a, "__dict__") or _slots(a)) and not isinstance(a, type):
        state_a, state_b = (_attributes(x) for x in (a, b))
        if state_a.keys() != state_b.keys():
            return [f"{path}: attributes"]
        return [d for k in state_a for d in state_differences(state_a[k], state_b[k], f"{path}.{k}", seen)]
    if callable(a) or isinstance(a, type):
        return []  # functions, classes: code, not state
    return [] if a == b else [f"{path} ({type(a).__name__})"]  # slices, sets, dtypes, enums, ...


def lead_in(env, rng: np.random.Generator, max_steps: int = 60):
    """Reset and step with random actions until a push has started (the episode going on)."""
    env.reset(seed=int(rng.integers(1 << 30)))
    for _ in range(max_steps):
        _, _, terminated, truncated, info = env.step(rng.uniform(-0.3, 0.3, env.action_space.shape))
        if terminated or truncated:
            env.reset()
        elif info["pushes_total"] >= 1 and info["time"] >= 0.1:
            return info
    raise AssertionError("no push started during the lead-in")


def env_kwargs(robot: str, mode: str) -> dict:
    """Every stateful part on: estimation (noise, biases, delays), plant randomisation, the
    contact guard and (wbc mode) leg odometry; pushes from the first tenths of a second."""
    kwargs = dict(
        robot=robot, action_mode=mode, estimation="hard", randomise="moderate", contact_guard=True,
        push_interval_s=(0.05, 0.3), push_magnitude_n=(10.0, 40.0), timing_in_info=True,
    )  # fmt: skip
    if mode == "wbc":
        kwargs["leg_odometry_s"] = 1.0
    return kwargs


def _cases() -> list[tuple[str, str, str, str]]:
    """``(env id, action mode, robot, way of copying)``. hubo_lite: every env in every mode, the
    ways of copying in a Latin square (each on every env and in every mode). g1: every env in wbc
    mode (its controller), torque and pd once each (the same code as hubo_lite's there, on the
    g1's model), pickled once (each of its MjData pickles with the model's meshes: 110-220 MB)."""
    ways = list(COPIES)
    cases = [
        (env_id, mode, "hubo_lite", ways[(ENVS.index(env_id) + MODES.index(mode)) % len(ways)])
        for env_id in ENVS for mode in MODES
    ]  # fmt: skip
    cases += [(env_id, "wbc", "g1", "pickle" if env_id == ENVS[0] else "deepcopy") for env_id in ENVS]
    cases += [(ENVS[1], "torque", "g1", "cloudpickle"), (ENVS[2], "pd", "g1", "deepcopy")]
    return cases


CASES = _cases()


@pytest.mark.parametrize(("env_id", "mode", "robot", "how"), CASES)
def test_a_copy_continues_the_trajectory_bit_for_bit_and_leaves_the_original_alone(env_id, mode, robot, how):
    rng = np.random.default_rng(CASES.index((env_id, mode, robot, how)))
    env = gym.make(env_id, **env_kwargs(robot, mode))  # TimeLimit, OrderEnforcing, PassiveEnvChecker
    lead_in(env, rng)
    actions = rng.uniform(-0.3, 0.3, (STEPS, *env.action_space.shape))
    snapshot = copy.deepcopy(env)  # the original's state before the copy steps

    copied = COPIES[how](env)
    assert copied.unwrapped is not env.unwrapped and copied.unwrapped.data is not env.unwrapped.data
    if mode == "wbc":
        assert copied.unwrapped.controller.compiled.core is not env.unwrapped.controller.compiled.core
    copied_run = run(copied, actions)
    assert state_differences(env, snapshot) == [], "stepping the copy changed the original"
    assert_same_run(run(env, actions), copied_run)
    assert_same_state(env, copied)
    assert state_differences(env, copied) == []


def test_a_scripted_scenario_is_copied_mid_script():
    """The contact-switching script: copied while the right foot is lifted (its contact off, the
    script's swing and sole tasks added to the controller and active)."""
    env = gym.make("HumanoidWBC-v0", push_magnitude_n=(0.0, 0.0))
    env.unwrapped.set_scenario(ContactSwitchScenario(ramp=True, time_scale=0.5))
    env.reset(seed=7)
    zero = np.zeros(env.action_space.shape)
    for _ in range(60):  # 1.2 s: the foot lifts at 1.0 s
        env.step(zero)
    controller = env.unwrapped.controller
    assert not controller.contact("right_foot").active and controller.task("right_sole_swing").active
    copied = copy.deepcopy(env)
    assert copied.unwrapped.scenario is not env.unwrapped.scenario
    assert copied.unwrapped.scenario.swing is copied.unwrapped.controller.task("right_sole_swing")
    actions = np.zeros((60, *env.action_space.shape))
    copied_run = run(copied, actions)
    assert_same_run(run(env, actions), copied_run)
    assert_same_state(env, copied)
    assert copied.unwrapped.controller.contact("right_foot").active  # put back down at 2.0 s


def test_proxsuite_refuses_a_copy_once_it_has_solved():
    env = gym.make("HumanoidWBC-v0", qp_solver="proxsuite")
    env.reset(seed=0)
    fresh = copy.deepcopy(env)  # no warm start yet: the copy is a freshly built controller
    assert fresh.unwrapped.controller is not env.unwrapped.controller
    env.step(np.zeros(env.action_space.shape))
    for attempt in (copy.deepcopy, pickle.dumps, cloudpickle.dumps):
        with pytest.raises(ControllerCopyError, match=r"qp_solver='proxsuite'.*'eiquadprog'") as caught:
            attempt(env)
        assert isinstance(caught.value, TypeError)  # what pickle raises for anything it cannot copy
    env.reset()  # a new episode, a new controller: copyable again
    copy.deepcopy(env)


def test_the_renderer_is_not_copied():
    env = gym.make("HumanoidWBC-v0", render_mode="rgb_array")
    env.reset(seed=0)
    renderer = SceneRenderer(env.unwrapped.model, "rgb_array", 64, 48)  # no OpenGL context until render()
    env.unwrapped._renderer = renderer
    copied = copy.deepcopy(env)
    assert copied.unwrapped._renderer is None and env.unwrapped._renderer is renderer
    assert pickle.loads(pickle.dumps(env)).unwrapped._renderer is None


# -- the controller alone ----------------------------------------------------------------------


def _tick_inputs(robot, bridge, mj_data, rng, n):
    """``n`` states ``(q, v)`` near the one of ``mj_data`` (pinocchio convention)."""
    q0, v0 = bridge.to_pinocchio(mj_data.qpos, mj_data.qvel)
    states = []
    for _ in range(n):
        q, v = q0.copy(), v0 + rng.normal(0.0, 0.05, v0.size)
        q[7:] += rng.normal(0.0, 0.01, q.size - 7)
        states.append((q, v))
    return states


@pytest.mark.parametrize("qp_solver", ["eiquadprog", "daqp"])
def test_a_copied_controller_rebuilds_its_core_from_its_tasks_and_contacts(robot, bridge, mj_data, qp_solver):
    controller = WholeBodyController(robot, HUBO_LITE.controller_config(qp_solver=qp_solver))
    # changes made after construction, which a core built from the config alone would miss
    hand = FramePositionTask("hand", 10.0, kp=50.0, kd=10.0, frame=controller.torso_task.frame)
    controller.add_task(hand)
    hand.set_reference(robot.frame_placement(hand.frame).translation + [0.02, 0.0, 0.0])
    controller.set_force_target("left_foot", 300.0, weight=1e-2)
    controller.contact("right_foot").friction_coefficient = 0.5
    controller.posture_task.kp = np.linspace(50.0, 150.0, robot.na)
    rng = np.random.default_rng(0)
    states = _tick_inputs(robot, bridge, mj_data, rng, 8)
    for q, v in states[:3]:
        controller.compute(q, v)
    for how, make_copy in COPIES.items():
        copied = make_copy(controller)
        assert copied.task("hand") is not hand and copied.task("hand").position.tobytes() == hand.position.tobytes()
        for q, v in states[3:]:
            a, b = controller.compute(q, v), copied.compute(q, v)
            assert a.tau.tobytes() == b.tau.tobytes() and a.qdd.tobytes() == b.qdd.tobytes(), how
    # Each core hears its own tasks only: a change to the copy moves the copy's torques alone.
    copied, twin = copy.deepcopy(controller), copy.deepcopy(controller)
    copied.task("hand").set_reference(hand.position + [0.0, 0.05, 0.0])
    q, v = states[-1]
    moved, original, unchanged = copied.compute(q, v).tau, controller.compute(q, v).tau, twin.compute(q, v).tau
    assert original.tobytes() == unchanged.tobytes()
    assert np.max(np.abs(moved - original)) > 1e-3  # [N m]: the copy's core got the new reference


def test_a_task_copied_alone_is_held_by_no_core(robot, bridge, mj_data):
    controller = WholeBodyController(robot, HUBO_LITE.controller_config(backend="compiled"))
    q, v = _tick_inputs(robot, bridge, mj_data, np.random.default_rng(1), 1)[0]
    before = controller.compute(q, v).tau
    loose = copy.deepcopy(controller.com_task)
    assert "_listener" not in vars(loose) and "_listener" in vars(controller.com_task)
    loose.set_reference(controller.com_task.position + [0.05, 0.0, 0.0])
    assert controller.compute(q, v).tau.tobytes() == before.tobytes()


def test_a_shallow_copy_of_a_controller_is_refused(robot):
    """It would share the tasks, whose writes would then feed the copy's core, not the original's."""
    controller = WholeBodyController(robot, HUBO_LITE.controller_config(backend="compiled"))
    with pytest.raises(ControllerCopyError, match="copy.deepcopy"):
        copy.copy(controller)
    assert controller.com_task._listener.__self__ is controller.compiled  # still the original's core


def test_a_compiled_tick_alone_cannot_be_pickled(robot):
    controller = WholeBodyController(robot, HUBO_LITE.controller_config(backend="compiled"))
    with pytest.raises(TypeError, match="copy or pickle the WholeBodyController"):
        pickle.dumps(controller.compiled)


def test_the_sim_bridge_and_contact_sensor_keep_their_buffers_linked():
    """Their hot paths write one array and read a view of it; a copy must keep that view."""
    env = gym.make("HumanoidWBC-v0").unwrapped
    env.reset(seed=0)
    env.step(np.zeros(env.action_space.shape))
    copied = pickle.loads(pickle.dumps(env))
    for obj, buffer, view in ((copied.bridge, "_rotation", "_rotation_rows"), (copied.plant.sensor, "_wrench", "_force_in_frame")):
        assert np.shares_memory(getattr(obj, buffer), getattr(obj, view))
    q, v = env.bridge.to_pinocchio(env.data.qpos, env.data.qvel)
    q2, v2 = copied.bridge.to_pinocchio(copied.data.qpos, copied.data.qvel)
    assert q.tobytes() == q2.tobytes() and v.tobytes() == v2.tobytes()
    forces, forces2 = env.plant.sensor.measure(env.data), copied.plant.sensor.measure(copied.data)
    assert math.isfinite(forces["left_foot"][2]) and forces["left_foot"][2] > 10.0  # [N] standing on it
    assert same(forces, forces2)
