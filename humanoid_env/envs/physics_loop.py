"""An env step's physics steps in compiled code (``core/physics_loop.hpp``, built into the env package).

The env's Python loop runs, at every physics step, the task's command, the push schedule, the
reference stages and their writes into the controller, the MuJoCo -> pinocchio bridge, the tick,
the torques -> ``ctrl``, ``mj_step`` and the state checks. Where none of the command and reference
stages reads the simulated state during an env step (the balance task's default), their values
for all of the env step's physics steps are known before the physics runs: this module evaluates
them ahead, in Python, in the order the Python loop would (so the random draws are the same), and
hands the rows to the compiled loop, which runs the physics steps without Python and with the GIL
released. A reference stage that reads the state only at some physics steps and says which
(``ReferenceStage.says_when_it_reads``, ``reads_state_at``: the walking stage, where its generator
measures) splits the env step into segments: its steps are planned ahead up to the next one that
reads the state, the loop runs the physics up to there, and the planning goes on from the state
it reached (a part that reads it at every physics step and says so gets segments of one step, the
Python per step its own, the tick and the physics compiled: the stepping law, the wall's
hand-force loop, the contact guard, the seesaw's board law and the board's sensed state, handed to
each tick as rows, its predicted acceleration read back through ``on_result``; a task's command
that reads the state, each step's command then waiting for its state too). Push recovery's
stepping law, while it stands, is planned ahead all the same: the loop's watch checks before each
of those ticks that the law's answer is "no step" and stops where it cannot tell (``StandingWatch``
in ``core/physics_loop.hpp``; the section on it below). What
needs Python inside an env step stops the loop at that step and resumes it: a QP
with no solution (the documented fallback, gravity compensation), a relaxed QP (its slack for
``info``).

The action modes: wbc (the controller's tick), torque (the action's torques) and pd (PD torques
at each step's state, ``core/reference_stages.hpp``, the Python loop's function too).
[`compiled_loop_obstacle`][humanoid_env.envs.physics_loop.compiled_loop_obstacle] says why an env
runs the Python loop instead (``physics_loop="python"``, a part that reads the state at every
physics step without saying so: a scenario; an instrumented tick). Both loops give the same trajectories bit for bit (``tests/test_physics_loop.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mujoco
import numpy as np

from humanoid_env.envs.actuation import PDActuation, TorqueActuation, WbcActuation
from humanoid_env.envs.decoding import StandingDecoder
from humanoid_env.envs.plant import Plant
from humanoid_env.envs.stepping import SteppingStage
from humanoid_env.envs.walking import WalkingStage
from humanoid_env.sim_bridge import SimBridge
from wbc_layer.compiled import CompiledTick
from wbc_layer.controller import WholeBodyController
from wbc_layer.errors import InvalidStateError
from wbc_layer.tasks import BodyRestTask, OrientationTask

if TYPE_CHECKING:
    from humanoid_env.envs.base import HumanoidWBCBaseEnv

from humanoid_env import _physics

if _physics.mujoco_version_loaded() != _physics.MUJOCO_VERSION_COMPILED or mujoco.mj_version() != _physics.MUJOCO_VERSION_COMPILED:
    raise ImportError(
        f"humanoid_env._physics was compiled against MuJoCo {_physics.MUJOCO_VERSION_COMPILED}, but MuJoCo "
        f"{mujoco.mj_version()} is installed: reinstall humanoid-wbc (pip install --force-reinstall --no-deps .)"
    )

_ORIGINAL_MJ_STEP = mujoco.mj_step
#: The methods the Python loop calls at each physics step that the compiled loop does in C++: one
#: replaced on its class or on the object (a benchmark or test instrumenting every tick) sends
#: the env step to the Python loop, which calls it.
_PER_STEP_METHODS = {
    WbcActuation: ("compute", "torques", "update_references"),
    TorqueActuation: ("torques",),
    PDActuation: ("torques",),
    WholeBodyController: ("compute",),
    CompiledTick: ("compute",),
    SimBridge: ("to_pinocchio", "torques_to_ctrl"),
    Plant: ("step",),
}
_ORIGINALS = {(cls, name): cls.__dict__[name] for cls, names in _PER_STEP_METHODS.items() for name in names}


def _replaced(obj, cls: type) -> str | None:
    """The first of ``cls``'s per-step methods replaced on ``obj`` or on its class (None: none)."""
    for name in _PER_STEP_METHODS[cls]:
        if name in vars(obj) or getattr(type(obj), name) is not _ORIGINALS[(cls, name)]:
            return name
    return None


def compiled_loop_obstacle(env: HumanoidWBCBaseEnv) -> str | None:
    """Why ``env``'s next step runs the Python loop (None: it runs the compiled one)."""
    if env.shell_config.physics_loop != "compiled":
        return "physics_loop='python'"
    if mujoco.mj_step is not _ORIGINAL_MJ_STEP:
        return "mujoco.mj_step is replaced (an instrumented run)"
    for obj, cls in ((env.plant, Plant), (env.plant.bridge, SimBridge)):
        if type(obj) is not cls or _replaced(obj, cls):
            return f"{cls.__name__}.{_replaced(obj, cls) or 'its type'} is replaced (an instrumented run)"
    if env.scenario is not None:
        return "a scripted scenario"
    actuation = env.actuation
    if type(actuation) in (TorqueActuation, PDActuation):
        if not env.pipeline.exact:  # measured: one compiled call per step costs more than these torques in Python
            return "estimation in torque or pd mode: the estimator reads the state at every physics step (the Python loop is faster there)"
        return None if not _replaced(actuation, type(actuation)) else "the actuation's torques are replaced (an instrumented run)"
    if type(actuation) is not WbcActuation:
        return f"{type(actuation).__name__} has no compiled form"
    if _replaced(actuation, WbcActuation):
        return f"WbcActuation.{_replaced(actuation, WbcActuation)} is replaced (an instrumented run)"
    readers = [type(stage).__name__ for stage in env.task.reference_chain if stage.reads_state and not stage.says_when_it_reads]
    if readers:
        return f"reference stages that read the state at every physics step: {readers}"
    controller = actuation.controller
    tick = controller.compiled
    if type(controller) is not WholeBodyController or _replaced(controller, WholeBodyController) or _replaced(tick, CompiledTick):
        return "the controller's tick is replaced (an instrumented run)"
    if tick.uses_python_rows():
        return "the controller has parts computed in Python (a rows task, a user contact or body, daqp)"
    for name, entry in actuation.references.tasks.items():
        if entry.point is None and not (type(controller.tasks[name]) in (OrientationTask, BodyRestTask) and entry.target is not None):
            return "a task reference other than a frame's position, an orientation's target or a body rest target"
    return None


#: The landing watch stops where the foot's vertical contact force is within this of the touch-down
#: force [N]: the compiled sum and numpy's may round differently (forces of at most 1e4 N: some 1e-11 N).
LANDING_MARGIN_N = 1e-6


class CompiledPhysics:
    """The compiled loop of one env: its ``PhysicsLoop`` over the plant's model and data, the row
    buffers of the references it is handed, and the env step that uses them.

    Args:
        env: the env (its plant, task, actuation; held for the env's lifetime).
    """

    def __init__(self, env: HumanoidWBCBaseEnv):
        self.env = env
        self._loop = None
        self._rows = -1
        self._layout_of = None
        self._estimate_failed = False
        self._no_delay = (np.zeros((0, env.plant.na)), np.zeros(1, dtype=bool))  # (0 rows: no actuation delay)
        #: the stepping law's watch (`_start_watch`), the first tick it watches in the rows planned
        #: (None: none), and the ticks whose command, push and decoder's outputs are in the rows
        #: already (``_premade``: ticks planned ahead before a step was decided at a watched tick).
        self._watch = self._watch_layout = None
        self._watched_from: int | None = None
        self._premade = 0
        #: the walking generator's landing watches by geom (`_start_landing`), and the one armed over
        #: the rows planned with the first tick it watches and the stage's checkpoint before it (None: none).
        self._landing_watches: dict[int, object] = {}
        self._landing: tuple | None = None

    # -- buffers -------------------------------------------------------------------------------
    def _physics_loop(self):
        plant = self.env.plant
        loop = self._loop
        if loop is None or loop.model is not plant.model or loop.data is not plant.data:
            bridge = plant.bridge
            self._loop = loop = _physics.PhysicsLoop(
                plant.model, plant.data, bridge.q_from_qpos.tolist(), bridge.dofs.tolist(), bridge.root_qpos + 3,
                bridge.actuator_ids.tolist(), bridge.gear, bridge.ctrl_min, bridge.ctrl_max, plant.push_body,
            )  # fmt: skip
        return loop

    def _buffers(self, k: int, actuation: WbcActuation | None) -> None:
        """Row buffers for ``k`` physics steps (remade when ``k`` or the episode's references change)."""
        references = None if actuation is None else actuation.references
        layout = (references, self.env.pipeline.exact)
        if self._rows == k and self._layout_of == layout:
            return
        self._rows, self._layout_of = k, layout
        self.push = np.zeros((k, 3))
        self.times = np.zeros(k)  # each step's time as planned [s]
        self.goals = np.zeros((k, 3))
        self.target = np.zeros((2, k, 3))  # the CoM target's position and velocity per step
        self.share = np.zeros(k)
        self.decoder_offset = np.zeros((k, 3))  # the standing decoder's CoM offset per step [m] (a walking chain's)
        model = self.env.plant.model
        estimated = not self.env.pipeline.exact  # the estimate's state per step, MuJoCo's layout (else none)
        self.sensed_qpos = np.zeros((k, model.nq) if estimated else (0, 0))
        self.sensed_qvel = np.zeros((k, model.nv) if estimated else (0, 0))
        if actuation is None:
            self.torques = np.zeros((k, self.env.plant.na))
            return
        tick = actuation.controller.compiled
        self.contact_entries = [references.contacts[name] for name in tick.contact_index]
        self.frame_names = [name for name, entry in references.tasks.items() if entry.point is not None]
        self.frame_tasks = [tick.task_index[name] for name in self.frame_names]
        controller_tasks = actuation.controller.tasks
        self.rest_names = [name for name, entry in references.tasks.items() if type(controller_tasks[name]) is BodyRestTask]
        self.rest_tasks = [tick.task_index[name] for name in self.rest_names]
        self.orientation_names = [
            name for name, entry in references.tasks.items() if entry.point is None and name not in self.rest_names
        ]
        self.orientation_tasks = [tick.task_index[name] for name in self.orientation_names]
        nc, nt, no = len(self.contact_entries), len(self.frame_tasks), len(self.orientation_tasks)
        self.com = np.zeros((3, k, 3))  # position, velocity, acceleration
        self.active = np.zeros((k, nc), dtype=bool)
        self.min_normal_force = np.zeros((k, nc))
        self.max_normal_force = np.zeros((k, nc))
        self.track_force = np.zeros((k, nc), dtype=bool)
        self.force_target = np.zeros((k, nc))
        self.force_weight = np.zeros((k, nc))
        self.frame_active = np.zeros((k, nt), dtype=bool)
        self.frame_position = np.zeros((k, nt, 3))
        self.frame_velocity = np.zeros((k, nt, 3))
        self.orientation_active = np.zeros((k, no), dtype=bool)
        self.orientation_target = np.zeros((k, no, 3, 3))
        self.rest_active = np.zeros((k, len(self.rest_names)), dtype=bool)
        self.rest_target = np.zeros((k, sum(len(references.tasks[name].target) for name in self.rest_names)))
        bodies = actuation.controller.bodies.values() if actuation.body_states is not None else ()
        ns = sum(len(body.s) for body in bodies)
        self.body_s = np.zeros((k, ns))  # the environment bodies' sensed coordinates per step
        self.body_s_dot = np.zeros((k, ns))
        names = [entry.name for entry in self.contact_entries]
        self.feet = (names.index("left_foot"), names.index("right_foot")) if {"left_foot", "right_foot"} <= set(names) else None

    def _record(self, i: int, references) -> None:
        """Row ``i`` of the buffers: ``references`` as they are now."""
        com = self.com
        com[0, i] = references.com.position
        com[1, i] = references.com.velocity
        com[2, i] = references.com.acceleration
        self._record_contacts(i)
        tasks = references.tasks
        for t, name in enumerate(self.frame_names):
            entry = tasks[name]
            self.frame_active[i, t] = entry.active
            self.frame_position[i, t] = entry.point.position
            self.frame_velocity[i, t] = entry.point.velocity
        for t, name in enumerate(self.orientation_names):
            entry = tasks[name]
            self.orientation_active[i, t] = entry.active
            self.orientation_target[i, t] = entry.target
        at = 0
        for t, name in enumerate(self.rest_names):
            entry = tasks[name]
            self.rest_active[i, t] = entry.active
            self.rest_target[i, at : at + len(entry.target)] = entry.target
            at += len(entry.target)

    def _record_bodies(self, i: int, wbc: WbcActuation) -> None:
        """Row ``i`` of the bodies' sensed state: the task's ``body_states`` of the state the
        controller sees now (the estimate's, with estimation), handed to the controller's Python
        bodies as ``compute`` would (they then hold what the core is given)."""
        controller = wbc.controller
        controller._update_bodies(wbc.body_states(*self.env.pipeline.state(self.env.plant.data)))
        bodies = controller.bodies.values()
        self.body_s[i] = np.concatenate([body.s for body in bodies])
        self.body_s_dot[i] = np.concatenate([body.s_dot for body in bodies])

    def _record_contacts(self, rows: int | slice) -> None:
        """The contacts' references as they are now into ``rows`` of the buffers (a row, or all)."""
        for c, entry in enumerate(self.contact_entries):
            self.active[rows, c] = entry.active
            self.min_normal_force[rows, c] = entry.min_normal_force
            self.max_normal_force[rows, c] = entry.max_normal_force
            target = entry.force_target
            self.track_force[rows, c] = target is not None
            self.force_target[rows, c] = 0.0 if target is None else target
            self.force_weight[rows, c] = -1.0 if entry.force_weight is None else entry.force_weight

    # -- an env step -----------------------------------------------------------------------------
    def physics_steps(self, action: np.ndarray, statuses: list[str], solve_times: list[float]) -> float:
        """Run the env step's ``frame_skip`` physics steps under ``action``, appending each step's
        status and QP solve time [us] to the lists; returns the sum of the steps' effort terms.
        Sets the env's ``last_tau`` and ``last_tau_computed`` and marks it non-finite where the
        Python loop would (a non-finite state stops the step there)."""
        env = self.env
        plant, task, actuation = env.plant, env.task, env.actuation
        wbc = actuation if type(actuation) is WbcActuation else None
        k = env.frame_skip
        self._buffers(k, wbc)
        loop = self._physics_loop()
        time = float(plant.data.time)
        if self._standing_only(task, wbc):
            self._plan_standing(action, time, plant.dt_physics, k)
            planned = k
        else:  # planned by _plan_ahead, up to a step whose references read the state
            planned, self._next = 0, (0, time, False)
        self._watched_from, self._premade, self._landing = None, 0, None
        if type(actuation) is TorqueActuation:
            self.torques[:] = actuation.torques(None, None, action)[0]
        elif type(actuation) is PDActuation:
            self._pd = (actuation.joint_targets(action), actuation.kp, actuation.kd, plant.torque_max)
        warnings = plant._warning_counts
        ran = first = 0
        not_applied = None  # torques computed and not applied (non-finite)
        while first < k:
            if first == planned:
                planned = self._plan_ahead(action, wbc, k)
                if self._estimate_failed:  # never handed to the controller
                    env._mark_nonfinite("nonfinite_estimate")
                    break
            stop, done = self._run(loop, wbc, first, planned, warnings)
            if self._watched_from is not None:
                self._stood(wbc, first, done, stop)
            if wbc is not None and wbc.on_result is not None and done > first:  # one step (it reads the state at each)
                self._hand_result(wbc)
            statuses.extend(["solved" if wbc is not None else "off"] * (done - first))
            solve_times.extend(loop.solve_us[first:done].tolist())
            ran = first = done
            if stop == _physics.LoopStop.RELAXED:  # step done - 1 ran on the relaxed QP
                statuses[-1] = "relaxed"
                actuation.step_contact_slack = max(actuation.step_contact_slack, actuation.controller.compiled.relaxed_slack_norm())
            elif stop == _physics.LoopStop.NOT_SOLVED:  # step `done` has no solution: the fallback
                controller = wbc.controller
                controller.robot.defer_update(loop.q.copy(), loop.v.copy())  # the state it failed at
                controller.mirror_contacts({  # and its contacts, as the core holds them at that step
                    entry.name: (self.active[done, c], self.min_normal_force[done, c], self.max_normal_force[done, c])
                    for c, entry in enumerate(self.contact_entries)
                })  # fmt: skip
                tau = np.zeros((done + 1, plant.na))
                tau[done] = controller.gravity_compensation_torques()
                statuses.append("fallback")
                solve_times.append(0.0)
                # (the fallback's torque goes through the delay too)
                stop, _ = loop.run_torques(tau, *self.delay_line, self.push[: done + 1], done, done + 1, warnings)
                ran = first = done + 1
                if stop == _physics.LoopStop.NON_FINITE_STATE:
                    env._mark_nonfinite("nonfinite_state")
                    break
            elif stop == _physics.LoopStop.WATCH and self._landing is not None:  # the swing foot may land at `done`
                planned = self._land(action, wbc, done, planned)
            elif stop == _physics.LoopStop.WATCH:  # the law may step at `done`: it answers there itself
                planned = self._ask_stepper(action, wbc, done, planned)
            elif stop == _physics.LoopStop.INVALID_STATE:
                raise InvalidStateError(f"the controller's core rejected the state: {loop.error}")
            elif stop == _physics.LoopStop.NON_FINITE_TORQUES:  # step `done`: computed, not applied
                statuses.append("off" if wbc is None else "solved")
                solve_times.append(0.0)
                not_applied = loop.tau_computed[done].copy()
                env._mark_nonfinite("nonfinite_torques")
                break
            elif stop == _physics.LoopStop.NON_FINITE_STATE:
                env._mark_nonfinite("nonfinite_state")
                break
        effort = 0.0
        if ran:
            taus = loop.tau
            inverse_torque_max = plant.inverse_torque_max
            for i in range(ran):  # the Python loop's sum, term by term
                relative = taus[i] * inverse_torque_max
                effort += float(relative @ relative) / relative.size
            env.last_tau = taus[ran - 1].copy()  # applied (an actuation delay's output)
            env.last_tau_computed = loop.tau_computed[ran - 1].copy()
        if not_applied is not None:
            env.last_tau_computed = not_applied
        if wbc is not None:
            wbc.controller.robot.defer_update(loop.q.copy(), loop.v.copy())  # the last tick's state
            wbc.controller.mirror_references(wbc.references)  # the Python objects hold what the core holds
        return effort

    def _hand_result(self, wbc: WbcActuation) -> None:
        """The task's ``on_result`` with the ``WBCResult`` of the step just run (as the Python loop
        calls it after each tick)."""
        controller = wbc.controller
        tick = controller.compiled
        x, tau, iterations, solve_us, relaxed = tick.core.last_tick()
        wbc.on_result(controller.solved_result(x, tau, iterations, solve_us, tick.contact_slack() if relaxed else {}))

    def _plan_ahead(self, action: np.ndarray, wbc: WbcActuation | None, k: int) -> int:
        """What the Python loop does at each physics step before the tick, ahead, from the next
        step not planned (``self._next``: its index, its time, whether its command and push are
        made) until a step whose reference stages read the state (``reads_state_at``: its command
        and push are made, its references wait until the physics has run up to it), or any step
        after the first when the task's command reads the state (``command_reads_state``: its
        command, push and references all wait), or ``k``; returns the steps planned (the rows
        ``:i`` hold them)."""
        env = self.env
        task, context, rng, pushes, pipeline = env.task, env.context, env.np_random, env.plant.pushes, env.pipeline
        command, dt = task.command, env.plant.dt_physics
        command_reads = task.command_reads_state()  # then each step's command waits for its state, too
        estimated = not pipeline.exact  # the estimator reads the state at every physics step
        self._estimate_failed = False
        self._no_delay = (np.zeros((0, env.plant.na)), np.zeros(1, dtype=bool))  # (0 rows: no actuation delay)
        first, time, commanded = self._next
        self._watched_from, self._landing = None, None
        watched = landing = False
        walker = self._walker(wbc)
        for i in range(first, k):
            premade = i < self._premade
            if not (commanded or premade):
                if i > first and (command_reads or (landing and time >= task.command_steady_until())):
                    self._next = (i, time, False)  # (a landing watch ends before the task draws a command)
                    return i
                task.update_command(rng, time, dt)
                command.evaluate(time)
                self.push[i] = pushes.update(rng, time)
            commanded = False
            self.times[i] = time
            if i > first and (estimated or (wbc is not None and wbc.reads_state_at(time))):
                if landing:  # still a tick where only the swing's landing is read
                    landing = self._landing_at(walker, time) is not None
                elif not (watched or estimated or premade):
                    watched = self._start_watch(wbc, i)
                    landing = not watched and self._start_landing(walker, i, time)
                if not (watched or landing):
                    self._next = (i, time, True)
                    return i
            if estimated:  # the state the controller sees at this physics step
                pipeline.update(env.plant.data)
                if not pipeline.is_finite():
                    self._estimate_failed = True
                    return i
                self.sensed_qpos[i], self.sensed_qvel[i] = pipeline.state(env.plant.data)
            if wbc is not None:
                if premade:  # the decoder's outputs planned already: the stepping stage alone, as plan_references runs it
                    self._update_stage_on_row(action, wbc, i, time)
                elif watched:  # a standing tick under the watch: the stage writes without reading the state
                    self._plan_watched(self._stepper(wbc), wbc, context, time, dt, action)
                elif landing:  # a swing's tick under the landing watch: the walking stage reads no state
                    self._plan_watched(walker, wbc, context, time, dt, action)
                else:
                    wbc.plan_references(context, time, dt, action)
                if walker is not None and not premade:
                    self.decoder_offset[i] = walker.standing.com_offset
                self._record(i, wbc.references)
                if wbc.body_states is not None:  # read now: a step whose references read the state
                    self._record_bodies(i, wbc)
            time += dt
        return k

    # -- the stepping law's standing ticks, planned ahead under a watch ---------------------------------
    # Push recovery's stepping stage reads the state at every physics step, but while its law stands
    # its references are the same at each one and its answer is "no step" wherever the capture point
    # lies deep enough inside the support (SteppingLaw.standing_watch). Such ticks are planned ahead
    # with the stage's standing writes; the compiled loop checks that condition before each of them
    # (core/physics_loop.hpp's StandingWatch: the capture point and soles as the stage reads them) and
    # stops where it cannot rule a step out. The stage is then told of the ticks that ran (`stood`),
    # and asked at the stopping tick (`_ask_stepper`): no step, the ticks planned ahead stand and the
    # watch goes on; a step, the ticks after it are planned one at a time from the state, their
    # command, push and decoder's outputs (state-free) taken from the rows. The same references,
    # random draws and trajectories as planning every tick from the state (tests/test_physics_loop.py).

    def _after_decoder(self, wbc: WbcActuation | None, stage_type: type):
        """The reference chain's second stage where the chain is exactly the standing decoder then
        a ``stage_type`` stage and nothing else reads the state at every step (what a watch can
        plan ahead for); else None."""
        chain = self.env.task.reference_chain
        if wbc is None or wbc.reads_state_every_step or len(chain) != 2:
            return None
        decoder, stage = chain
        return stage if type(decoder) is StandingDecoder and type(stage) is stage_type else None

    def _stepper(self, wbc: WbcActuation | None) -> SteppingStage | None:
        """The stepping stage the stepping law's watch can plan ahead for (`_after_decoder`)."""
        return self._after_decoder(wbc, SteppingStage)

    def _start_watch(self, wbc: WbcActuation | None, i: int) -> bool:
        """Whether the ticks from ``i`` on are planned ahead under the stepping law's watch; if so,
        arms the compiled loop's watch from tick ``i``."""
        stepper = self._stepper(wbc)
        support = None if stepper is None else stepper.standing_watch()
        if support is None:
            return False
        plant, law = self.env.plant, stepper.law
        layout = (plant.root_body, law.omega, [int(s) for s in plant.sole_sites], law.corner_radius_m)
        if self._watch is None or self._watch_layout != layout:  # (an episode's law: its omega)
            self._watch, self._watch_layout = _physics.StandingWatch(*layout), layout
        self._arm_watch(support, i)
        return True

    def _arm_watch(self, support: tuple, i: int) -> None:
        normals, offsets, key, depth = support
        self._watch.set_support(normals, offsets, np.array(key), depth, i)
        self._watched_from = i

    @staticmethod
    def _plan_watched(stage, wbc: WbcActuation, context, time: float, dt: float, action: np.ndarray) -> None:
        """The reference chain at a tick under a watch: ``stage`` (the stepping or the walking
        stage) writes its references without reading the state."""
        stage.watched = True
        try:
            wbc.plan_references(context, time, dt, action)
        finally:
            stage.watched = False

    def _stood(self, wbc: WbcActuation, first: int, done: int, stop) -> None:
        """Tell the stepping stage of the watched ticks the loop call checked (``first`` .. the
        step it stopped at, that one included where its tick began: no solution, non-finite
        torques, a state rejected)."""
        checked_stop = stop in (_physics.LoopStop.NOT_SOLVED, _physics.LoopStop.NON_FINITE_TORQUES, _physics.LoopStop.INVALID_STATE)
        start, end = max(first, self._watched_from), done + 1 if checked_stop else done
        if end > start:
            watch = self._watch
            self._stepper(wbc).stood(watch.capture_point[start:end], watch.sole_xpos[start:end], watch.sole_xmat[start:end])

    def _ask_stepper(self, action: np.ndarray, wbc: WbcActuation, i: int, planned: int) -> int:
        """The watch stopped before tick ``i``: the stepping stage's own update there (from the
        state), on the decoder's outputs planned for it; returns the ticks planned from then on."""
        stepper, references, dt = self._stepper(wbc), wbc.references, self.env.plant.dt_physics
        time = float(self.times[i])
        self._update_stage_on_row(action, wbc, i, time)
        self._record(i, references)
        support = stepper.standing_watch()
        if support is not None:  # no step: the ticks planned ahead stand, watched from the next one
            self._arm_watch(support, i + 1)
            self._restore_decoded(planned - 1, references)  # the references as the last tick planned left them
            references.evaluate(float(self.times[planned - 1]))
            return planned
        self._watched_from, self._premade = None, planned  # a step from tick i: the next ticks one at a time
        self._next = (i + 1, time + dt, True)
        return i + 1

    def _update_stage_on_row(self, action: np.ndarray, wbc: WbcActuation, i: int, time: float) -> None:
        """The stepping or walking stage's update at tick ``i`` (time [s]) from the state, on
        the standing decoder's outputs its row holds (as ``plan_references`` runs the chain)."""
        env, references = self.env, wbc.references
        walker = self._walker(wbc)
        if walker is not None:  # the walk task's command follows the stage (no draw before command_steady_until)
            env.task.update_command(env.np_random, time, env.plant.dt_physics)
            env.task.command.evaluate(time)
        self._restore_decoded(i, references)
        env.context.time = time
        if walker is None:
            self._stepper(wbc).update(references, env.context, action, env.plant.dt_physics)
        else:
            self._update_walker_on_row(walker, references, action, i)
        references.evaluate(time)

    def _update_walker_on_row(self, walker: WalkingStage, references, action: np.ndarray, i: int) -> None:
        """The walking stage's update at tick ``i`` with the standing decoder's CoM offset of that
        tick (its row; the decoder's own state left as the last tick planned left it)."""
        offset = walker.standing.com_offset
        last = offset.copy()
        offset[:] = self.decoder_offset[i]
        try:
            walker.update(references, self.env.context, action, self.env.plant.dt_physics)
        finally:
            offset[:] = last

    # -- the walking generator's swings, planned ahead under a landing watch -----------------------------
    # The walking stage reads the state at every tick from the middle of a swing on, since the foot
    # may land at any of them; at those ticks, unless the foot lands, its references are those of a
    # normal force of zero (WalkingGenerator.landing_only). Such ticks are planned ahead with the
    # stage `watched` (a force of zero); the compiled loop checks the foot's vertical contact force
    # before each of them (core/physics_loop.hpp's LandingWatch) and stops where it reaches the
    # touch-down force (less 1e-6 N for rounding). The stage is then rewound to the watch's start
    # and its watched ticks before the stop replayed (its state as they left it), and the ticks from
    # the stop on are planned one at a time from the state, as after the stepping law's watch:
    # their pushes and the decoder's outputs come from the rows, the walk task's command (which
    # draws nothing before `command_steady_until`) is followed again. The same references, random
    # draws and trajectories as planning every tick from the state (tests/test_physics_loop.py).

    def _walker(self, wbc: WbcActuation | None) -> WalkingStage | None:
        """The walking stage a landing watch can plan ahead for (`_after_decoder`; the decoder its own)."""
        walker = self._after_decoder(wbc, WalkingStage)
        return walker if walker is not None and walker.standing is self.env.task.reference_chain[0] else None

    def _landing_at(self, walker: WalkingStage | None, time: float) -> tuple[str, float] | None:
        """The walking stage's ``landing_watch(time)`` where the task's command also draws nothing
        at ``time`` [s]: ``(foot, touch-down force [N])`` where only a landing is read; else None."""
        if walker is None or time >= self.env.task.command_steady_until():
            return None
        return walker.landing_watch(time)

    def _start_landing(self, walker: WalkingStage | None, i: int, time: float) -> bool:
        """Whether the ticks from ``i`` (at ``time`` [s]) on are planned ahead under a landing
        watch; if so, arms the compiled loop's watch from tick ``i`` and keeps the stage's checkpoint."""
        landing = self._landing_at(walker, time)
        if landing is None:
            return False
        foot, touch_down_n = landing
        geom = self.env.plant.sensor.geom_ids[foot]
        watch = self._landing_watches.get(geom)
        if watch is None:
            watch = self._landing_watches[geom] = _physics.LandingWatch(geom)
        watch.arm(touch_down_n - LANDING_MARGIN_N, i)
        self._landing = (watch, i, walker.checkpoint())
        return True

    def _land(self, action: np.ndarray, wbc: WbcActuation, i: int, planned: int) -> int:
        """The landing watch stopped before tick ``i``: the walking stage back to the watch's start,
        its watched ticks before ``i`` run again (as planned), then tick ``i`` and the ticks after
        it planned one at a time from the state (``_premade``); returns ``i``, where planning goes on."""
        env, walker, references = self.env, self._walker(wbc), wbc.references
        _, start, checkpoint = self._landing
        walker.rewind(checkpoint)
        walker.watched = True
        try:
            for j in range(start, i):
                time = float(self.times[j])
                self._restore_decoded(j, references)
                env.context.time = time
                self._update_walker_on_row(walker, references, action, j)
        finally:
            walker.watched = False
        self._landing, self._premade = None, planned
        self._next = (i, float(self.times[i]), True)
        return i

    def _restore_decoded(self, i: int, references) -> None:
        """The standing decoder's outputs of tick ``i`` (its row) into ``references``: the CoM
        reference's position and velocity and the feet's force targets."""
        com = references.com
        com.position[:] = self.com[0, i]
        com.velocity[:] = self.com[1, i]
        for c in self.feet:
            weight = float(self.force_weight[i, c])
            self.contact_entries[c].track(float(self.force_target[i, c]), None if weight < 0.0 else weight)

    def _standing_only(self, task, wbc: WbcActuation | None) -> bool:
        """Whether the env step's references are the gliding CoM target and the standing decoder
        alone (the balance task's), which run in C++ for all its physics steps at once."""
        command = task.command
        if not task.command_glides or command.follows_segment() or task.command_reads_state() or not self.env.pipeline.exact:
            return False
        if wbc is None:
            return True
        references = wbc.references
        return (
            len(task.reference_chain) == 1 and self.feet is not None and references.com.segment is None
            and not self.frame_names and not wbc.reads_state_every_step
        )  # fmt: skip

    def _plan_standing(self, action: np.ndarray, time: float, dt: float, k: int) -> None:
        """The Python loop's per-step command, pushes and standing decoder for ``k`` steps: the
        random draws here in their order, the glide and the decoder's filters in C++."""
        env = self.env
        task, rng, pushes, wbc = env.task, env.np_random, env.plant.pushes, env.actuation
        command = task.command
        goals, push = self.goals, self.push
        for i in range(k):
            task.draw_goal(rng, time)
            goals[i] = command.com_goal
            push[i] = pushes.update(rng, time)
            last, time = time, time + dt
        target = command.com_target
        _physics.glide_rows(goals, target.position, target.velocity, task.config.target_speed_mps * dt, dt, self.target[0], self.target[1])
        command.evaluate(last)  # (no segment: it holds the target)
        if type(wbc) is not WbcActuation:
            return
        standing = task.standing
        offset, share = standing.decoded(action)
        base = (self.target[0], self.target[1]) if standing.wbc.reference_feedforward else standing.base(env.context)
        _physics.standing_rows(
            offset, share, standing.com_offset, standing.com_offset_velocity, standing._share, *standing.filter_params(dt), dt,
            base[0], base[1], self.com[0], self.com[1], self.share,
        )  # fmt: skip
        references = wbc.references
        self.com[2][:] = references.com.acceleration
        # The Python objects as the Python loop leaves them after the env step's last physics step.
        references.com.position[:] = self.com[0, k - 1]
        references.com.velocity[:] = self.com[1, k - 1]
        standing.wbc_com_reference = self.com[0, k - 1].copy()
        weight = standing.wbc.force_weight
        for name, target_n in standing.force_targets().items():
            references.contacts[name].track(target_n, weight)
        references.evaluate(last)  # (no segment: it sets the references' time)
        # Rows: the contacts' activity and bounds as they stand, the feet's force targets per step.
        self._record_contacts(slice(None))
        left, right = self.feet
        weight_n = standing.weight_n
        np.multiply(self.share, weight_n, out=self.force_target[:, left])
        np.multiply(1.0 - self.share, weight_n, out=self.force_target[:, right])

    @property
    def delay_line(self) -> tuple[np.ndarray, np.ndarray]:
        """The env's actuation delay as the loop takes it, ``(queue (delay, na), filled (1,))``:
        the ``ActuationDelay``'s own arrays, stepped in place (0 rows: no delay)."""
        delay = self.env.actuation_delay
        return self._no_delay if delay is None else (delay.queue, delay.filled)

    def _run(self, loop, wbc: WbcActuation | None, first: int, end: int, warnings: int):
        """Physics steps ``first`` .. ``end - 1`` from the rows planned for them: (LoopStop, steps done)."""
        delay = self.delay_line
        push = self.push[:end]
        sensed = (self.sensed_qpos[:end], self.sensed_qvel[:end])  # (0, 0) without estimation
        if type(self.env.actuation) is PDActuation:
            return loop.run_pd(*self._pd, *delay, push, first, end, warnings)
        if wbc is None:
            return loop.run_torques(self.torques[:end], *delay, push, first, end, warnings)
        watch = self._watch if self._watched_from is not None else None
        landing = self._landing[0] if self._landing is not None else None
        return loop.run_controller(
            wbc.controller.compiled.core, self.com[0, :end], self.com[1, :end], self.com[2, :end], self.active[:end],
            self.min_normal_force[:end], self.max_normal_force[:end], self.track_force[:end], self.force_target[:end],
            self.force_weight[:end], self.frame_tasks, self.frame_active[:end], self.frame_position[:end],
            self.frame_velocity[:end], self.orientation_tasks, self.orientation_active[:end], self.orientation_target[:end],
            self.rest_tasks, self.rest_active[:end], self.rest_target[:end], self.body_s[:end], self.body_s_dot[:end],
            *sensed, *delay, push, first, end, warnings, watch, landing,
        )  # fmt: skip
