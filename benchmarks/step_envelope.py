"""The push-recovery envelope with replicas: the largest push survived in 4 of 5 varied trials at every level up to it, per direction, against the ankle, one-step and N-step capture bounds.

``benchmarks/push_envelope.py`` bisects with one trial per impulse, so a lucky island (a large
push that happens to be survived above one that is not) can set its number. Here every impulse
level is tried several times, varying what the outcome should not hang on, and a level counts
only if it and every level below it is survived.

**Trial.** A fresh episode of the nominal controller (``action_mode="wbc"``, zero action, the
env's random pushes off; ``--robot`` hubo_lite or g1; ``--env-kwargs`` JSON keywords for
``gym.make``, e.g. ``'{"stepping": true}'`` for the stepping controller) of a stance (below):
``reset(seed)``, zero action until ``--push-time-s`` = 1.5 s, then a constant horizontal force
``impulse / duration`` [N] in the push direction at the env's push body (the torso) for
``duration`` [s] (the physics steps of :class:`benchmarks.push_envelope.ScriptedPush`), acting
``height`` [m] above the body's CoM (below when negative): :class:`HeightPush` adds the torque
``height * (z x F)`` to ``data.xfrc_applied[body, 3:6]`` during the push and zeroes it after (the
env writes the force part only). A forward (+x) push above the CoM pitches the body forward:
a torque about +y > 0.

**Survived** = no fall (the env's own ``fell``: pelvis low or tilted, non-finite state) within
``--survival-s`` = 5 s of the push's start, *and* at the end of that window the robot stands
again: ``info["wbc_supporting"]`` holds both feet and the CoM's horizontal speed
(``env.plant.com_velocity()``) is below ``--standing-speed-mps`` = 0.1 m/s. Each trial records
``survived``, ``fell``, ``fall_time_s``, ``steps_taken`` (``info["stepping"]["steps_taken"]``
of the stepping env at the last step; 0 without it), ``final_speed_mps``, ``final_supporting``,
``push_time_s`` and ``wall_s`` (its wall-clock time: the only field that depends on the machine).

**Replicas** (``--replicas`` = 5): replica ``k`` resets with seed ``k`` (the env's initial joint
noise) and pushes for ``(0.10, 0.05, 0.20, 0.15, 0.10)[k % 5]`` s at ``(0, +0.10, -0.10, +0.05,
-0.05)[k % 5]`` m from the push body's CoM (:data:`REPLICA_DURATIONS_S`,
:data:`REPLICA_HEIGHTS_M`). The impulse (force x duration) is the same for all.

**Grid and rule.** Impulses lie on the grid ``i * --resolution-ns`` (1.0 N s), ``i >= 1``. A level
*passes* when at least ``--min-survivals`` = 4 of its replicas survive, *fails* when that can no
longer happen. The **survived impulse** of a direction is the largest grid level that passes with
every lower grid level tested passing too: a level passing above a failing one (a lucky island)
does not count.

**Scan** per direction, from the ankle bound ``b`` (below): the coarse levels ``0.25 b`` and
``0.5 b`` (rounded to the grid; levels below 1 grid step are skipped) must pass; then every grid
level upward from the 0.5 one, one level at a time, until one fails (recorded as
``first_failure_ns``: the scan stops there) or the cap ``floor(--max-factor x b / resolution)``
(3.0 x b; ``b`` taken as one grid step when it is 0) passes: ``capped``. Without
``--early-stop`` every replica of a level runs before the scan moves on (each level's survival
count is then complete); with it, a level's replicas run in order and stop once it is decided
(fewer rollouts; counts partial).

**Stances** (``--stances``, push_envelope's balance stances; default ``centre``): ``centre``
(CoM target fixed at the nominal CoM), ``ends`` = ``front``, ``back``, ``left``, ``right`` (the
target glides at 0.03 m/s to the end of the task's target range, +-0.03 m in x, +-0.02 m in y,
and stays), ``glide`` (the default task's moving target: each replica is pushed half way
through its own seed's first glide, found by a probe rollout; ``--push-time-s`` does not apply).

**Bounds** per direction, from the CoM state when the push starts (replica 0, no push: one probe
rollout per stance, which must itself survive, i.e. stand, or the stance gets no envelope):
``ankle_ns``, :func:`wbc_layer.capture.capture_bound` (both soles shrunk to the controller's CoP
bounds, as push_envelope), and, when ``wbc_layer.capture.step_capture_bounds`` exists,
``one_step_ns`` and ``n_step_ns`` (the better stance foot of each: ``one_step_stance``,
``n_step_stance``) with the robot's ``description.step_limits()`` and a step time of
``--step-time-s`` (default: the unloading 0.1 s + ``limits.min_swing_time_s``; the value used is
the run's ``step_time_s``). The one- and N-step bounds sideways can be below the ankle bound (no
crossover steps), and 0 where the capture point at rest between the feet is already too far from
either stance foot for the step time; reported as they are.

**Resumable.** One JSON file (``--json``, default ``benchmarks/results/step_envelope.json``;
``--quick``: ``step_envelope_quick.json``) holds every finished trial, keyed by (label, robot,
stance) = a run and (direction, impulse, replica) within it; it is rewritten atomically (a
temporary file, then a rename) every few trials and at the end. A rerun with the same arguments
skips the trials already there (so a run grows by ``--directions``, ``--replicas`` or
``--max-factor`` without redoing anything); a rerun whose trial-defining settings
(``protocol``: env, keywords, robot, backend, solver, controller overrides, push time,
survival window, standing speed, the stance's target) differ from a run's stored ones is
refused (choose another ``--label`` or ``--json``). ``--budget-s`` stops starting new trials
after that many seconds, lets the running ones finish and writes the file: a long run spreads
over sessions. ``--workers N`` runs trials in N processes (the directions' scans in parallel,
and a level's replicas).

**JSON** ``{"format": 1, "runs": {"<label>/<robot>/<stance>": {"label", "robot", "stance",
"env_id", "protocol", "scan": {resolution_ns, replicas, min_survivals, max_factor, early_stop},
"replica_table", "step_time_s", "probe": {the unpushed rollout, "state": CoM state at the push},
"directions": {"<deg>": {"direction_deg", "bounds": {ankle_ns, one_step_ns, n_step_ns, ...},
"plan": {"coarse_ns", "cap_ns"}, "envelope": {survived_ns, first_failure_ns, capped, finished,
incomplete, mean_steps_at_survived, levels: [[impulse_ns, survivals, done]]}}}, "trials":
[{direction_deg, impulse_ns, level, replica, seed, duration_s, height_m, push_time_s, survived,
fell, fall_time_s, fell_before_push, steps_taken, final_speed_mps, final_supporting, wall_s}]}}, "sessions":
[{argv, started, seconds, trials_run, budget_stopped, machine, provenance}]}``; the
``envelope`` of each direction is recomputed from the trials at every write.

**Outputs.** After a run, and with ``--markdown-from JSON`` (runs nothing): per (robot, label,
stance) a table of direction, ankle, one-step and N-step bounds, survived impulse (``+``:
capped; ``?``: the scan is unfinished), survived / ankle, survived / one-step, mean steps per
survived trial at the survived level, and the first failing level (survivals / done).
``--compare A B``: per (robot, stance) holding both labels, survived impulse of A, of B and A / B
per direction (e.g. ``--compare stepping ankle``). ``--png PATH``: a polar plot per (robot,
stance): the survived impulse of each label against the direction, the three bounds as curves.

    python -m benchmarks.step_envelope [--label ankle] [--robot hubo_lite] [--env-kwargs JSON]
        [--stances centre ends glide] [--directions 16] [--resolution-ns 1] [--replicas 5]
        [--min-survivals 4] [--max-factor 3] [--survival-s 5] [--push-time-s 1.5]
        [--standing-speed-mps 0.1] [--step-time-s T] [--workers 1] [--budget-s S] [--early-stop]
        [--json PATH] [--png PATH] [--quick]
    python -m benchmarks.step_envelope --label stepping --env-kwargs '{"stepping": true}'
    python -m benchmarks.step_envelope --markdown-from benchmarks/results/step_envelope.json [--compare stepping ankle] [--png P]

``--quick``: 2 directions, 3 replicas (2 must survive), 2 N s grid, 2 s survival, push at 1 s,
the centre stance (a smoke run; options given explicitly still apply).

**Budget** (measured on the shared 2-core machine, compiled backend, one process, load 1-2.5).
One rollout of 1.5 + 5 s simulated: 0.45 s on Hubo-lite and 0.53 s on the G1 with the ankle-only
env; 1.3 s and 1.6 s with ``{"stepping": true}`` (the stepping law's stage, as in this checkout);
falls end earlier. Per direction the scan runs 2 coarse levels, the levels from 0.5 b to the
survived impulse s, and the failing one: about ``3 + (s - 0.5 b) / resolution`` levels x 5
replicas. Ankle-only Hubo-lite (b = 9-23 N s, s about 0.85-1.05 b): 7-12 levels, 35-60 rollouts
per direction (measured: 0 and 180 deg, 75 rollouts in 35 s), about 700 per stance of 16
directions: about 6 min per stance (G1: about 7 min). The stepping env at s = 1.1 b: about 60
rollouts per direction, 1,000 per stance, 20-25 min per stance on Hubo-lite; at s = 2 b: 125
per direction, 45 min; at the cap (3 b): 200 per direction, 3,200 per stance, 70 min on
Hubo-lite, 85 min on the G1. ``--workers 2`` about halves these on 2 free cores, ``--early-stop``
saves about a fifth (a passing level stops after 4 survivals); ``--stances centre ends glide``
is 6 stances. Spread a long run with ``--budget-s``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import push_envelope as pe
from benchmarks.common import RESULTS, machine
from humanoid_env.robots import FEET, robot_description
from training import jsonio
from training.provenance import provenance
from wbc_layer.capture import capture_bound, step_capture_bounds

FORMAT = 1
STANCE_GROUPS = pe.STANCE_GROUPS
#: Replica ``k``: seed ``k``, push duration [s] and height above the push body's CoM [m] of index ``k % 5``.
REPLICA_DURATIONS_S = (0.10, 0.05, 0.20, 0.15, 0.10)
REPLICA_HEIGHTS_M = (0.0, 0.10, -0.10, 0.05, -0.05)
#: The coarse levels of the scan, as fractions of the ankle bound.
COARSE_FRACTIONS = (0.25, 0.5)
#: The stepping law's unloading before lift-off [s] (``wbc_layer.stepping.SwingSettings.unload_s``).
UNLOAD_S = 0.1
#: Rewrite the JSON after this many new trials (and at the end).
FLUSH_EVERY = 4
DEFAULT_JSON = RESULTS / "step_envelope.json"
QUICK_JSON = RESULTS / "step_envelope_quick.json"
QUICK = {"directions": 2, "replicas": 3, "min_survivals": 2, "resolution_ns": 2.0, "survival_s": 2.0,
         "push_time_s": 1.0, "stances": ["centre"], "json": QUICK_JSON}  # fmt: skip


# -- replicas and the push ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Replica:
    """Replica ``index``: reset seed, push duration [s], push height above the push body's CoM [m]."""

    index: int
    seed: int
    duration_s: float
    height_m: float


def replica(index: int) -> Replica:
    """Replica ``index`` of the fixed table (module docstring)."""
    if index < 0:
        raise ValueError(f"replica index must be >= 0, got {index}")
    k = index % len(REPLICA_DURATIONS_S)
    return Replica(index, index, REPLICA_DURATIONS_S[k], REPLICA_HEIGHTS_M[k])


def replica_table(replicas: int) -> list[dict[str, float]]:
    return [{"replica": r.index, "seed": r.seed, "duration_s": r.duration_s, "height_m": r.height_m}
            for r in map(replica, range(replicas))]  # fmt: skip


def push_torque(force, height_m: float) -> np.ndarray:
    """(3,) the torque [N m] about the body's CoM of ``force`` (3,) [N] acting ``height_m`` above
    it: ``r x F`` with ``r = height_m z``, i.e. ``height_m (-F_y, F_x, 0)`` for a horizontal force."""
    return np.cross(np.array([0.0, 0.0, float(height_m)]), np.asarray(force, dtype=float))


@dataclass
class HeightPush(pe.ScriptedPush):
    """:class:`benchmarks.push_envelope.ScriptedPush` acting ``height_m`` above the push body's
    CoM: during the push it also writes :func:`push_torque` into ``data.xfrc_applied[body, 3:6]``
    (the env writes only the force part, from what ``update`` returns), and zeroes it after.
    ``data`` (MuJoCo's ``MjData``) and ``body`` (the push body's id) are set before the episode runs."""

    height_m: float = 0.0
    data: Any = None
    body: int = -1

    def reset(self, rng: np.random.Generator, time: float = 0.0) -> None:
        super().reset(rng, time)
        if self.data is not None:
            self.data.xfrc_applied[self.body, 3:6] = 0.0

    def update(self, rng: np.random.Generator, time: float) -> np.ndarray:
        force = super().update(rng, time)
        if self.data is not None:
            self.data.xfrc_applied[self.body, 3:6] = push_torque(force, self.height_m)
        return force


# -- a run: what decides a trial ---------------------------------------------------------------------
@dataclass(frozen=True)
class Protocol:
    """What decides a trial's outcome, besides its stance, direction, impulse and replica."""

    robot: str = "hubo_lite"
    env_kwargs: tuple[tuple[str, Any], ...] = ()
    backend: str = "compiled"
    qp_solver: str | None = None
    overrides: tuple[tuple[str, Any], ...] = ()
    survival_s: float = 5.0
    standing_speed_mps: float = 0.1

    def env_settings(self, seed: int = 0) -> pe.Settings:
        """push_envelope's settings for :func:`benchmarks.push_envelope.env_for` (and its glide probe)."""
        return pe.Settings(seed=seed, survival_s=self.survival_s, backend=self.backend, qp_solver=self.qp_solver,
                           overrides=self.overrides, robot=self.robot, env_kwargs=self.env_kwargs)  # fmt: skip


@dataclass(frozen=True)
class Run:
    """One envelope: a label (which controller, e.g. "ankle", "stepping"), a stance, a protocol."""

    label: str
    stance: pe.Stance
    protocol: Protocol

    @property
    def key(self) -> str:
        return f"{self.label}/{self.protocol.robot}/{self.stance.name}"

    def protocol_record(self) -> dict[str, Any]:
        """The JSON of what decides a trial (compared on a rerun: trials are reused only if equal)."""
        p, s = self.protocol, self.stance
        record = {
            "env_id": s.env_id, "stance_env_kwargs": dict(s.env_kwargs), "env_kwargs": dict(p.env_kwargs), "robot": p.robot,
            "backend": p.backend, "qp_solver": p.qp_solver, "controller_overrides": dict(p.overrides),
            "target_offset_m": None if s.target_offset is None else list(s.target_offset),
            "push_time_s": s.push_time_s, "survival_s": p.survival_s, "standing_speed_mps": p.standing_speed_mps,
            "replica_rule": {"seed": "k", "durations_s": list(REPLICA_DURATIONS_S), "heights_m": list(REPLICA_HEIGHTS_M)},
        }  # fmt: skip
        return json.loads(jsonio.dumps(record))  # as it reads back (tuples as lists)


@dataclass(frozen=True)
class Scan:
    """How the levels are chosen and judged (module docstring: Grid and rule, Scan)."""

    resolution_ns: float = 1.0
    replicas: int = 5
    min_survivals: int = 4
    max_factor: float = 3.0
    early_stop: bool = False

    def __post_init__(self) -> None:
        if not (self.resolution_ns > 0 and self.max_factor > 0 and 1 <= self.min_survivals <= self.replicas):
            raise ValueError(f"need resolution_ns > 0, max_factor > 0, 1 <= min_survivals <= replicas; got {self}")

    def impulse(self, level: int) -> float:
        return round(level * self.resolution_ns, 9)

    def level_of(self, impulse_ns: float) -> int | None:
        """The grid level of ``impulse_ns``, None when it is off the grid."""
        level = round(impulse_ns / self.resolution_ns)
        return level if level >= 1 and abs(level * self.resolution_ns - impulse_ns) < 1e-6 else None


# -- the scan and the rule (pure) --------------------------------------------------------------------
#: level -> replica -> trial record (at least ``{"survived": bool}``).
Table = dict[int, dict[int, dict[str, Any]]]


def plan(ankle_ns: float, scan: Scan) -> dict[str, Any]:
    """The scan's levels: ``coarse`` (the grid levels of 0.25 and 0.5 x ``ankle_ns``, those >= 1,
    at most the cap), ``cap`` (``floor(max_factor x b / resolution)``, >= 1; ``b`` one grid step
    when the bound is 0 or not finite) and ``order`` (the coarse levels, then every level above
    the last of them up to the cap)."""
    b = ankle_ns if math.isfinite(ankle_ns) and ankle_ns > 0 else scan.resolution_ns
    cap = max(1, math.floor(scan.max_factor * b / scan.resolution_ns + 1e-9))
    coarse = sorted({math.floor(f * b / scan.resolution_ns + 0.5) for f in COARSE_FRACTIONS} & set(range(1, cap + 1)))
    start = (coarse[-1] + 1) if coarse else 1
    return {"coarse": coarse, "cap": cap, "order": coarse + list(range(start, cap + 1))}


def level_outcome(results: dict[int, dict[str, Any]], scan: Scan) -> str:
    """``"pass"`` (>= min_survivals of the replicas 0..replicas-1 survived), ``"fail"`` (that can
    no longer happen), else ``"open"``."""
    done = [results[r]["survived"] for r in range(scan.replicas) if r in results]
    survivals, missing = sum(bool(s) for s in done), scan.replicas - len(done)
    if survivals >= scan.min_survivals:
        return "pass"
    if survivals + missing < scan.min_survivals:
        return "fail"
    return "open"


def next_trials(table: Table, level_plan: dict[str, Any], scan: Scan) -> list[tuple[int, int]]:
    """The ``(level, replica)`` trials the scan needs next ([] when it is finished): the missing
    replicas of the first level in ``order`` that is unfinished (all of them; with ``early_stop``
    only the next one, and a decided level counts as finished)."""
    for level in level_plan["order"]:
        results = table.get(level, {})
        missing = [r for r in range(scan.replicas) if r not in results]
        outcome = level_outcome(results, scan)
        if missing and not (scan.early_stop and outcome != "open"):
            return [(level, r) for r in (missing[:1] if scan.early_stop else missing)]
        if outcome == "fail":
            return []
    return []


def survived_impulse(table: Table, scan: Scan, level_plan: dict[str, Any] | None = None) -> dict[str, Any]:
    """The rule on a table of trials: walking the tested grid levels upward, the survived level is
    the last passing one before the first failing (or undecided) one; levels above are ignored
    (a lucky island does not count).

    Returns ``{"survived_ns" (0 when the lowest tested level fails), "survived_level",
    "first_failure_ns" (None), "capped" (the scan passed its cap), "finished" (the scan needs no
    more trials), "incomplete" (the walk met an undecided level), "mean_steps_at_survived" (mean
    ``steps_taken`` of the survived trials at the survived level; None), "levels":
    [[impulse_ns, survivals, done]]}``; ``capped`` and ``finished`` need ``level_plan``."""
    survived, failure, incomplete = 0, None, False
    for level in sorted(table):
        outcome = level_outcome(table[level], scan)
        if outcome == "pass":
            survived = level
            continue
        failure, incomplete = (level, False) if outcome == "fail" else (None, True)
        break
    finished = level_plan is not None and not next_trials(table, level_plan, scan)
    capped = bool(level_plan is not None and finished and failure is None and not incomplete and survived == level_plan["cap"])
    at_survived = [t for r, t in table.get(survived, {}).items() if r < scan.replicas and t["survived"]]
    levels = [[scan.impulse(lv), sum(bool(t["survived"]) for r, t in table[lv].items() if r < scan.replicas),
               sum(1 for r in table[lv] if r < scan.replicas)] for lv in sorted(table)]  # fmt: skip
    return {
        "survived_ns": scan.impulse(survived), "survived_level": survived,
        "first_failure_ns": None if failure is None else scan.impulse(failure),
        "capped": capped, "finished": finished, "incomplete": incomplete,
        "mean_steps_at_survived": float(np.mean([t.get("steps_taken", 0) for t in at_survived])) if at_survived else None,
        "levels": levels,
    }  # fmt: skip


# -- one rollout -----------------------------------------------------------------------------------
_GLIDE_PUSH_TIMES: dict[str, tuple[float, dict[str, Any]]] = {}


def push_time_of(run: Run, seed: int) -> float:
    """The push time [s] of ``run`` for a replica of ``seed``: the stance's, or (glide) half way
    through that seed's first glide (push_envelope's probe, cached per process)."""
    if run.stance.push_time_s is not None:
        return float(run.stance.push_time_s)
    key = repr((run.stance, run.protocol, seed))
    if key not in _GLIDE_PUSH_TIMES:
        _GLIDE_PUSH_TIMES[key] = pe.glide_push_time(run.stance, run.protocol.env_settings(seed))
    return _GLIDE_PUSH_TIMES[key][0]


def bound_state(base, stance: pe.Stance) -> dict[str, Any]:
    """push_envelope's :func:`benchmarks.push_envelope.push_state` and the sole centres (2, 3) [m]
    (left, right) and their mean yaw [rad], which the stepping bounds need."""
    state = pe.push_state(base, stance)
    d, sites = base.data, base.plant.sole_sites
    rotations = d.site_xmat[sites].reshape(-1, 3, 3)
    yaws = [math.atan2(r[1, 0], r[0, 0]) for r in rotations]
    state["feet_centres"] = d.site_xpos[sites].tolist()
    state["feet_yaw_rad"] = float(math.atan2(np.mean(np.sin(yaws)), np.mean(np.cos(yaws))))
    return state


def rollout(run: Run, direction_deg: float, impulse_ns: float, replica_index: int, with_state: bool = False) -> dict[str, Any]:
    """One trial (module docstring: Trial, Survived). ``with_state``: also the CoM state at the push
    (``"state"``, :func:`bound_state`). Returns the trial's record without its key."""
    clock = time.perf_counter()
    rep = replica(replica_index)
    push_time = push_time_of(run, rep.seed)
    base = pe.env_for(run.stance, run.protocol.env_settings(rep.seed))
    force = np.zeros(3)
    force[:2] = impulse_ns / rep.duration_s * pe._direction(direction_deg)
    dt = base.dt_physics
    pushes = HeightPush(force, push_time, rep.duration_s, dt, survival_window_s=run.protocol.survival_s, height_m=rep.height_m)
    base.plant.pushes = pushes
    base.set_scenario(pe.HoldTarget(run.stance.target_offset) if run.stance.target_offset is not None else None)
    base.reset(seed=rep.seed)
    pushes.data, pushes.body = base.plant.data, base.plant.push_body
    pushes.data.xfrc_applied[pushes.body, 3:6] = 0.0
    zero = np.zeros(base.action_space.shape)
    out: dict[str, Any] = {"push_time_s": push_time, "survived": False, "fell": False, "fall_time_s": None, "fell_before_push": False,
                           "steps_taken": 0, "final_speed_mps": None, "final_supporting": []}  # fmt: skip
    half = 0.5 * dt
    info: dict[str, Any] = {}
    try:
        while base.data.time < push_time - half:
            _, _, _, _, info = base.step(zero)
            if base.fell:
                out.update(fell=True, fell_before_push=True, fall_time_s=float(base.data.time))
                return _finish(out, clock)
        if with_state:
            out["state"] = bound_state(base, run.stance)
        end = push_time + run.protocol.survival_s
        while base.data.time < end - half:
            _, _, _, _, info = base.step(zero)
            out["steps_taken"] = int((info.get("stepping") or {}).get("steps_taken", 0))
            if base.fell:
                out.update(fell=True, fall_time_s=float(base.data.time))
                return _finish(out, clock)
        supporting = list(info.get("wbc_supporting", []))
        speed = float(np.hypot(*base.plant.com_velocity()[:2]))
        out.update(final_speed_mps=speed, final_supporting=supporting,
                   survived=bool(set(FEET) <= set(supporting) and speed < run.protocol.standing_speed_mps))  # fmt: skip
        return _finish(out, clock)
    finally:
        pushes.data.xfrc_applied[pushes.body, 3:6] = 0.0


def _finish(out: dict[str, Any], clock: float) -> dict[str, Any]:
    out["wall_s"] = round(time.perf_counter() - clock, 3)
    return out


# -- bounds ------------------------------------------------------------------------------------------
def default_step_time_s(robot: str) -> float:
    """The unloading (0.1 s) + the robot's fastest swing (``step_limits().min_swing_time_s``) [s]."""
    return UNLOAD_S + robot_description(robot).step_limits().min_swing_time_s


def bounds(state: dict[str, Any], robot: str, step_time_s: float, direction_deg: float) -> dict[str, Any]:
    """``{"ankle_ns", "one_step_ns", "n_step_ns", "one_step_stance", "n_step_stance"}`` [N s] of a
    push in ``direction_deg`` from ``state`` (:func:`bound_state`): the ankle bound and
    :func:`wbc_layer.capture.step_capture_bounds` with the robot's step limits, the CoP free in the
    double support for the first ``UNLOAD_S`` of ``step_time_s`` (the stepping law's unloading)."""
    u = pe._direction(direction_deg)
    ground = state["ground_height_m"]
    feet = np.asarray(state["feet_centres"], dtype=float)
    result = step_capture_bounds(
        state["com"], state["com_velocity"], state["mass_kg"], feet[0], feet[1], state["feet_yaw_rad"],
        tuple(state["cop_half_sizes_m"]), robot_description(robot).step_limits(), step_time_s, u, ground, unloading_s=UNLOAD_S,
    )  # fmt: skip
    return {
        "ankle_ns": capture_bound(state["com"], state["com_velocity"], state["mass_kg"], state["polygon"], u, ground),
        "one_step_ns": result["one_step"], "n_step_ns": result["n_step"],
        "one_step_stance": result["one_step_stance"], "n_step_stance": result["n_step_stance"],
    }  # fmt: skip


# -- the store -----------------------------------------------------------------------------------------
def _deg_key(direction_deg: float) -> str:
    return f"{direction_deg:g}"


def trial_key(direction_deg: float, impulse_ns: float, replica_index: int) -> tuple[float, float, int]:
    return (round(float(direction_deg), 6), round(float(impulse_ns), 6), int(replica_index))


class Store:
    """The JSON file of runs and trials (module docstring: Resumable, JSON)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.doc: dict[str, Any] = {"format": FORMAT, "runs": {}, "sessions": []}
        if self.path.exists():
            self.doc = json.loads(self.path.read_text())
            if self.doc.get("format") != FORMAT:
                raise SystemExit(f"{self.path}: not a step_envelope file of format {FORMAT}")
        #: run key -> rounded direction -> (rounded impulse, replica) -> trial record.
        self.index: dict[str, dict[float, dict[tuple[float, int], dict[str, Any]]]] = {}
        for key, run in self.doc["runs"].items():
            self.index[key] = {}
            for t in run["trials"]:
                d, impulse, r = trial_key(t["direction_deg"], t["impulse_ns"], t["replica"])
                self.index[key].setdefault(d, {})[(impulse, r)] = t
        self.unsaved = 0

    def open_run(self, run: Run, scan: Scan, step_time_s: float) -> dict[str, Any]:
        """The stored record of ``run`` (made if new); refuses one whose protocol differs."""
        protocol = run.protocol_record()
        record = self.doc["runs"].get(run.key)
        if record is None:
            record = {"label": run.label, "robot": run.protocol.robot, "stance": run.stance.name, "env_id": run.stance.env_id,
                      "protocol": protocol, "probe": None, "directions": {}, "trials": []}  # fmt: skip
            self.doc["runs"][run.key] = record
            self.index[run.key] = {}
        elif record["protocol"] != protocol:
            differ = sorted(k for k in set(protocol) | set(record["protocol"]) if protocol.get(k) != record["protocol"].get(k))
            raise SystemExit(f"{self.path}: run {run.key!r} was made with other settings ({', '.join(differ)}): "
                             "choose another --label or --json")  # fmt: skip
        record["scan"] = {"resolution_ns": scan.resolution_ns, "replicas": scan.replicas, "min_survivals": scan.min_survivals,
                          "max_factor": scan.max_factor, "early_stop": scan.early_stop}  # fmt: skip
        record["replica_table"] = replica_table(scan.replicas)
        record["step_time_s"] = step_time_s
        return record

    def trial(self, run_key: str, direction_deg: float, impulse_ns: float, replica_index: int) -> dict[str, Any] | None:
        d, impulse, r = trial_key(direction_deg, impulse_ns, replica_index)
        return self.index[run_key].get(d, {}).get((impulse, r))

    def add(self, run_key: str, record: dict[str, Any]) -> None:
        """Add a finished trial (one already there is kept)."""
        d, impulse, r = trial_key(record["direction_deg"], record["impulse_ns"], record["replica"])
        trials = self.index[run_key].setdefault(d, {})
        if (impulse, r) in trials:
            return
        trials[(impulse, r)] = record
        self.doc["runs"][run_key]["trials"].append(record)
        self.unsaved += 1

    def table(self, run_key: str, direction_deg: float, scan: Scan) -> Table:
        """The trials of one direction on ``scan``'s grid and replicas: level -> replica -> record."""
        out: Table = {}
        for (impulse, r), record in self.index[run_key].get(round(float(direction_deg), 6), {}).items():
            level = scan.level_of(impulse)
            if level is not None and r < scan.replicas:
                out.setdefault(level, {})[r] = record
        return out

    def summarise(self, run_key: str) -> None:
        """Recompute each direction's ``envelope`` of a run from its trials."""
        record = self.doc["runs"][run_key]
        scan = Scan(**record["scan"])
        for entry in record["directions"].values():
            table = self.table(run_key, entry["direction_deg"], scan)
            level_plan = plan(entry["bounds"]["ankle_ns"], scan)
            entry["envelope"] = survived_impulse(table, scan, level_plan)

    def save(self) -> None:
        """Write the file atomically (a temporary file beside it, then a rename)."""
        for key, record in self.doc["runs"].items():
            if "scan" in record:
                self.summarise(key)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + f".tmp{os.getpid()}")
        temporary.write_text(jsonio.dumps(self.doc, indent=1))
        os.replace(temporary, self.path)
        self.unsaved = 0


# -- the scheduler -----------------------------------------------------------------------------------
RolloutFunction = Callable[..., dict[str, Any]]


@dataclass
class _Direction:
    run: Run
    direction_deg: float
    level_plan: dict[str, Any]
    in_flight: set[tuple[int, int]] = field(default_factory=set)
    finished: bool = False


def _record(direction_deg: float, impulse_ns: float, level: int, replica_index: int, result: dict[str, Any]) -> dict[str, Any]:
    rep = replica(replica_index)
    record = {"direction_deg": float(direction_deg), "impulse_ns": impulse_ns, "level": level, "replica": replica_index, "seed": rep.seed,
              "duration_s": rep.duration_s, "height_m": rep.height_m}  # fmt: skip
    record.update({k: v for k, v in result.items() if k != "state"})
    return record


def prepare(run: Run, scan: Scan, directions_deg: list[float], store: Store, step_time_s: float,
            rollout_fn: RolloutFunction) -> list[_Direction]:  # fmt: skip
    """Open the run in ``store``, probe it (replica 0, no push; stored, so once per file), and
    compute each direction's bounds and plan. [] when the probe fell or did not stand."""
    record = store.open_run(run, scan, step_time_s)
    if record["probe"] is None:
        record["probe"] = rollout_fn(run, 0.0, 0.0, 0, with_state=True)
        store.unsaved += 1
    probe = record["probe"]
    if not probe["survived"] or probe.get("state") is None:
        print(f"{run.key}: the unpushed probe did not survive standing ({_probe_text(probe)}): no envelope")
        return []
    out = []
    for deg in directions_deg:
        b = bounds(probe["state"], run.protocol.robot, step_time_s, deg)
        level_plan = plan(b["ankle_ns"], scan)
        record["directions"][_deg_key(deg)] = {
            "direction_deg": float(deg), "bounds": b,
            "plan": {"coarse_ns": [scan.impulse(lv) for lv in level_plan["coarse"]], "cap_ns": scan.impulse(level_plan["cap"])},
        }  # fmt: skip
        out.append(_Direction(run, float(deg), level_plan))
    return out


def _probe_text(probe: dict[str, Any]) -> str:
    if probe["fell"]:
        return f"fell at {probe['fall_time_s']:.2f} s"
    speed = probe["final_speed_mps"]
    return f"speed {speed:.3f} m/s, supporting {probe['final_supporting']}"


def execute(directions: list[_Direction], scan: Scan, store: Store, rollout_fn: RolloutFunction = rollout, workers: int = 1,
            budget_s: float | None = None, clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:  # fmt: skip
    """Run every direction's scan to its end (or until ``budget_s`` [s] has passed: no new trial
    starts, running ones finish), adding each trial to ``store`` and saving it every
    :data:`FLUSH_EVERY` trials and at the end. Returns ``{"trials_run", "budget_stopped"}``."""
    start = clock()
    trials_run, budget_stopped = 0, False
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    futures: dict[Future, tuple[_Direction, int, int]] = {}

    def over_budget() -> bool:
        return budget_s is not None and clock() - start >= budget_s

    def finish(direction: _Direction, level: int, r: int, result: dict[str, Any]) -> None:
        nonlocal trials_run
        direction.in_flight.discard((level, r))
        store.add(direction.run.key, _record(direction.direction_deg, scan.impulse(level), level, r, result))
        trials_run += 1
        if store.unsaved >= FLUSH_EVERY:
            store.save()

    try:
        while True:
            started = False
            for direction in directions:
                if direction.finished or direction.in_flight:
                    continue
                needed = next_trials(store.table(direction.run.key, direction.direction_deg, scan), direction.level_plan, scan)
                if not needed:
                    direction.finished = True
                    continue
                for level, r in needed:
                    if over_budget():
                        budget_stopped = True
                        break
                    started = True
                    direction.in_flight.add((level, r))
                    args = (direction.run, direction.direction_deg, scan.impulse(level), r)
                    if pool is None:
                        finish(direction, level, r, rollout_fn(*args))
                    else:
                        futures[pool.submit(rollout_fn, *args)] = (direction, level, r)
                if budget_stopped:
                    break
            if futures:
                done, _ = wait(list(futures), return_when=FIRST_COMPLETED)
                for future in done:
                    direction, level, r = futures.pop(future)
                    finish(direction, level, r, future.result())
                continue
            if budget_stopped or not started:
                break
    finally:
        for future, (direction, level, r) in list(futures.items()):  # an error elsewhere: keep what finished
            if future.done() and future.exception() is None:
                finish(direction, level, r, future.result())
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        store.save()
    return {"trials_run": trials_run, "budget_stopped": budget_stopped}


# -- output ------------------------------------------------------------------------------------------
def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or not b else f"{100 * a / b:.0f} %"


def _survived_text(envelope: dict[str, Any]) -> str:
    return f"{envelope['survived_ns']:g}" + ("+" if envelope["capped"] else "") + ("" if envelope["finished"] else " ?")


def markdown(doc: dict[str, Any], keys: list[str] | None = None) -> str:
    """Markdown tables of the runs ``keys`` of a step_envelope ``doc`` (all: None), per (robot,
    label, stance): bounds, survived impulse, ratios, steps, first failure (module docstring)."""
    lines: list[str] = []
    runs = doc["runs"]
    for key in sorted(keys or runs, key=lambda k: (runs[k]["robot"], runs[k]["label"], runs[k]["stance"])):
        run = runs[key]
        p, scan = run["protocol"], run["scan"]
        push = "half way through its first glide" if p["push_time_s"] is None else f"at {p['push_time_s']:g} s"
        kwargs = f", env_kwargs {jsonio.dumps(p['env_kwargs'])}" if p["env_kwargs"] else ""
        lines += [f"**{run['robot']}, {run['label']}, {run['stance']}** ({run['env_id']}{kwargs}; pushed {push}; survived: no fall "
                  f"within {p['survival_s']:g} s and standing (both feet, CoM < {p['standing_speed_mps']:g} m/s); grid "
                  f"{scan['resolution_ns']:g} N s, {scan['min_survivals']} of {scan['replicas']} replicas; "
                  f"step time {run['step_time_s']:.3f} s)", ""]  # fmt: skip
        if not run["directions"]:
            lines += ["the unpushed probe did not stand: no envelope", ""]
            continue
        lines.append("| direction [deg] | ankle [N s] | one-step [N s] | N-step [N s] | survived [N s] | / ankle | / one-step "
                     "| steps at survived | first failure [N s] (survived/done) |")  # fmt: skip
        lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        entries = sorted(run["directions"].values(), key=lambda e: e["direction_deg"])
        for e in entries:
            b, env = e["bounds"], e.get("envelope")
            if env is None:
                continue
            failure = "-"
            if env["first_failure_ns"] is not None:
                level = next(lv for lv in env["levels"] if abs(lv[0] - env["first_failure_ns"]) < 1e-6)
                failure = f"{env['first_failure_ns']:g} ({level[1]}/{level[2]})"
            lines.append(f"| {e['direction_deg']:g} | {_num(b['ankle_ns'])} | {_num(b['one_step_ns'])} | {_num(b['n_step_ns'])} | "
                         f"{_survived_text(env)} | {_ratio(env['survived_ns'], b['ankle_ns'])} | "
                         f"{_ratio(env['survived_ns'], b['one_step_ns'])} | {_num(env['mean_steps_at_survived'], 2)} | {failure} |")  # fmt: skip
        ratios = [e["envelope"]["survived_ns"] / e["bounds"]["ankle_ns"] for e in entries
                  if e.get("envelope") and e["bounds"]["ankle_ns"]]  # fmt: skip
        lines.append("")
        if ratios:
            lines.append(f"- survived / ankle bound: min {100 * min(ratios):.0f} %, median {100 * float(np.median(ratios)):.0f} %, "
                         f"max {100 * max(ratios):.0f} % (+: capped at {scan['max_factor']:g} x ankle; ?: scan unfinished)")  # fmt: skip
        lines.append("")
    return "\n".join(lines)


def compare(doc: dict[str, Any], label_a: str, label_b: str) -> str:
    """Per (robot, stance) with runs of both labels: survived impulse of each and A / B per direction."""
    runs = doc["runs"].values()
    lines: list[str] = []
    pairs = sorted({(r["robot"], r["stance"]) for r in runs if r["label"] == label_a} & {(r["robot"], r["stance"]) for r in runs if r["label"] == label_b})
    if not pairs:
        return f"no (robot, stance) has runs labelled both {label_a!r} and {label_b!r}"
    for robot, stance in pairs:
        a = next(r for r in runs if (r["label"], r["robot"], r["stance"]) == (label_a, robot, stance))
        b = next(r for r in runs if (r["label"], r["robot"], r["stance"]) == (label_b, robot, stance))
        lines += [f"**{robot}, {stance}: {label_a} / {label_b}**", "",
                  f"| direction [deg] | {label_a} [N s] | {label_b} [N s] | {label_a} / {label_b} |", "|---:|---:|---:|---:|"]  # fmt: skip
        ratios = []
        for deg in sorted(set(a["directions"]) & set(b["directions"]), key=float):
            ea, eb = a["directions"][deg].get("envelope"), b["directions"][deg].get("envelope")
            if ea is None or eb is None:
                continue
            ratio = ea["survived_ns"] / eb["survived_ns"] if eb["survived_ns"] else None
            if ratio is not None:
                ratios.append(ratio)
            lines.append(f"| {deg} | {_survived_text(ea)} | {_survived_text(eb)} | {'-' if ratio is None else f'{ratio:.2f}'} |")
        lines.append("")
        if ratios:
            lines += [f"- {label_a} / {label_b}: min {min(ratios):.2f}, median {float(np.median(ratios)):.2f}, max {max(ratios):.2f}", ""]
    return "\n".join(lines)


def plot(doc: dict[str, Any], path: Path) -> Path | None:
    """Polar PNG, one panel per (robot, stance): survived impulse of each label and the ankle,
    one-step and N-step bounds (of the first label holding them) against the direction. None
    (with a message) when matplotlib is missing."""
    try:
        import matplotlib  # noqa: PLC0415

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
        return None
    runs = [r for r in doc["runs"].values() if r["directions"]]
    panels = sorted({(r["robot"], r["stance"]) for r in runs})
    if not panels:
        print("no envelope to plot")
        return None
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig = plt.figure(figsize=(max(4.5 * ncols, 8.0), 4.6 * nrows + 1.0))
    handles: dict[str, Any] = {}
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    labels = sorted({r["label"] for r in runs})
    for i, (robot, stance) in enumerate(panels):
        ax = fig.add_subplot(nrows, ncols, i + 1, projection="polar")
        ax.set_title(f"{robot}: {stance}", fontsize=9, pad=14)
        ax.tick_params(labelsize=7)
        these = [r for r in runs if (r["robot"], r["stance"]) == (robot, stance)]
        reference = these[0]
        entries = sorted(reference["directions"].values(), key=lambda e: e["direction_deg"])
        theta = np.radians([e["direction_deg"] for e in entries])
        closed = len(entries) > 2
        draw = pe._PolarCurves(ax, theta, None, closed, handles)
        for name, key, marker, style in (("ankle bound", "ankle_ns", "x", "--"), ("one-step bound", "one_step_ns", "+", "-."),
                                         ("N-step bound", "n_step_ns", "1", ":")):  # fmt: skip
            values = [np.nan if e["bounds"][key] is None else e["bounds"][key] for e in entries]
            if np.any(np.isfinite(values)):
                draw(values, marker, style, name, "k" if key == "ankle_ns" else "0.45")
        for run in these:
            by_dir = {e["direction_deg"]: e.get("envelope") for e in run["directions"].values()}
            values = [by_dir[e["direction_deg"]]["survived_ns"] if by_dir.get(e["direction_deg"]) else np.nan for e in entries]
            index = labels.index(run["label"])
            draw(values, "osD^v"[index % 5], "-", f"survived: {run['label']}", colours[index % len(colours)])
    fig.legend(list(handles.values()), [f"{k} [N s]" for k in handles], loc="lower center", ncol=min(len(handles), 3), fontsize=8)
    fig.tight_layout(rect=(0, 0.1 / nrows, 1, 1))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# -- command line --------------------------------------------------------------------------------------
def _label(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    if args.label:
        return args.label
    if not args.env_kwargs:
        return "ankle"
    if set(args.env_kwargs) == {"stepping"} and args.env_kwargs["stepping"]:
        return "stepping"
    parser.error("--label is needed with these --env-kwargs (it names the run in the JSON)")
    return ""


def main(argv: list[str] | None = None, rollout_fn: RolloutFunction = rollout) -> dict[str, Any]:
    """The command line (module docstring); returns the JSON document. ``rollout_fn`` replaces
    :func:`rollout` (tests; it must be picklable for ``--workers`` > 1)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default=None, help='names the run, e.g. "ankle", "stepping" (default: from --env-kwargs)')
    parser.add_argument("--robot", default="hubo_lite", choices=["hubo_lite", "g1"])
    parser.add_argument("--env-kwargs", type=json.loads, default={}, help='JSON of env keywords, e.g. \'{"stepping": true}\'')
    parser.add_argument("--stances", nargs="+", choices=STANCE_GROUPS, default=["centre"])
    parser.add_argument("--directions", type=int, default=16, help="push directions, evenly spaced from 0 deg (+x), counter-clockwise")
    parser.add_argument("--resolution-ns", type=float, default=1.0, help="the impulse grid's step [N s]")
    parser.add_argument("--replicas", type=int, default=5, help="trials per level (the fixed replica table, cycled)")
    parser.add_argument("--min-survivals", type=int, default=4, help="replicas a level must survive to pass")
    parser.add_argument("--max-factor", type=float, default=3.0, help="the scan's cap, x the ankle bound")
    parser.add_argument("--survival-s", type=float, default=5.0, help="survival window after the push starts [s]")
    parser.add_argument("--standing-speed-mps", type=float, default=0.1, help="CoM speed below which the robot stands at the end [m/s]")
    parser.add_argument("--push-time-s", type=float, default=1.5, help="push time after reset [s] (not the glide stance)")
    parser.add_argument("--step-time-s", type=float, default=None, help="the stepping bounds' decision to touch-down [s] "
                        "(default: 0.1 s unloading + the robot's min_swing_time_s)")  # fmt: skip
    parser.add_argument("--backend", choices=pe.BACKENDS, default="compiled")
    parser.add_argument("--qp-solver", default=None, help="the WBC's QP solver (default: the env's)")
    parser.add_argument("--config", type=Path, default=None, help="YAML of ControllerConfig overrides")
    parser.add_argument("--workers", type=int, default=1, help="processes; 1: none")
    parser.add_argument("--budget-s", type=float, default=None, help="start no trial after this many seconds (the file stays valid)")
    parser.add_argument("--early-stop", action="store_true", help="stop a level's replicas once it is decided")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--png", type=Path, default=None, help="write the polar plot here")
    parser.add_argument("--markdown-from", type=Path, default=None, help="print a JSON's tables, run nothing")
    parser.add_argument("--compare", nargs=2, metavar=("LABEL_A", "LABEL_B"), default=None, help="ratios A / B per direction")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run, numbers meaningless)")
    args = parser.parse_args(argv)
    if args.markdown_from is not None:
        doc = json.loads(args.markdown_from.read_text())
        _report(doc, None, args)
        return doc
    if args.quick:  # tiny defaults; options given explicitly still win
        parser.set_defaults(**QUICK)
        args = parser.parse_args(argv)
    if args.directions < 1 or args.survival_s <= 0 or args.workers < 1 or args.replicas < 1:
        parser.error("--directions >= 1, --survival-s > 0, --workers >= 1 and --replicas >= 1")
    try:
        scan = Scan(args.resolution_ns, args.replicas, args.min_survivals, args.max_factor, args.early_stop)
    except ValueError as err:
        parser.error(str(err))
    label = _label(args, parser)
    overrides = pe.load_overrides(args.config)
    protocol = Protocol(robot=args.robot, env_kwargs=tuple(sorted(args.env_kwargs.items())), backend=args.backend, qp_solver=args.qp_solver,
                        overrides=tuple(sorted(overrides.items())), survival_s=args.survival_s,
                        standing_speed_mps=args.standing_speed_mps)  # fmt: skip
    step_time = args.step_time_s if args.step_time_s is not None else default_step_time_s(args.robot)
    started, clock, machine_start = datetime.datetime.now().isoformat(timespec="seconds"), time.perf_counter(), machine()
    store = Store(args.json)
    runs = [Run(label, stance, protocol) for stance in pe.stances(["balance"], args.stances, args.directions, args.push_time_s)]
    directions: list[_Direction] = []
    for run in runs:
        directions += prepare(run, scan, list(run.stance.directions_deg), store, step_time, rollout_fn)
    store.save()
    outcome = execute(directions, scan, store, rollout_fn, args.workers, args.budget_s)
    seconds = time.perf_counter() - clock
    store.doc["sessions"].append({
        "argv": list(sys.argv[1:] if argv is None else argv), "started": started, "seconds": round(seconds, 1), **outcome,
        "machine": {**machine_start, "load_average_end": machine()["load_average"]}, "provenance": provenance(),
    })  # fmt: skip
    store.save()
    print(f"{outcome['trials_run']} trials in {seconds:.0f} s" + ("; stopped by --budget-s: rerun to continue" if outcome["budget_stopped"] else "")
          + f"; wrote {args.json}")  # fmt: skip
    _report(store.doc, [r.key for r in runs], args)
    return store.doc


def _report(doc: dict[str, Any], keys: list[str] | None, args: argparse.Namespace) -> None:
    print(markdown(doc, keys))
    if args.compare:
        print(compare(doc, *args.compare))
    if args.png is not None:
        written = plot(doc, args.png)
        if written is not None:
            print(f"wrote {written}")


if __name__ == "__main__":
    main()
