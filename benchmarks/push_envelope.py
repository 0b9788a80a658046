"""The push-recovery envelope: the largest torso push the nominal controller survives, per direction and stance, against the ankle-strategy capture bound.

For each push direction (``--directions`` 16: every 22.5 deg, 0 = +x forward, counter-clockwise
seen from above) and each stance, bisects the largest impulse [N s] of a push of constant
horizontal force at the env's push body (the torso) for ``duration`` (0.1 s; impulse = force x
duration) that the nominal controller (``action_mode="wbc"``, zero action: the WBC alone)
survives: no fall by the env's own criterion (pelvis height, tilt; the seesaw's board angle;
a non-finite state) for ``--survival-s`` = 3 s after the push starts. The push is scripted
through the env's push machinery (:class:`ScriptedPush` replaces its plant's ``PushSchedule``,
``env.plant.pushes``: the force lands in ``data.xfrc_applied`` of the push body during exactly
``duration / dt`` physics steps); the env's random pushes are off.

Stances (``--envs``, ``--stances``):

- ``HumanoidWBC-v0``: ``centre`` (standing, CoM target fixed at the nominal CoM); ``front``,
  ``back``, ``left``, ``right`` (``--stances ends``: the target glides at the task's 0.03 m/s to
  one end of the task's target range ``com_target_range_m`` = (0.03, 0.02, 0) m, nominal +-x or
  +-y, and stays); pushed at ``--push-time-s`` = 2 s; ``glide`` (the default task: the target
  moves to random goals; pushed half way through the first glide of seed ``--seed``, found by a
  probe rollout).
- ``HumanoidWBCWall-v0``: ``default`` (its default task: hand on the wall, CoM lean towards it),
  pushed at ``--push-time-s``. The bound counts the feet only: the hand on the wall also
  supports (pushes towards the wall, -y, can exceed it).
- ``HumanoidWBCSeesaw-v0``: standing on the board, target fixed, lateral pushes only (+y, -y),
  of 0.1 s (``push 0.1 s``) and 0.01 s (``push 0.01 s``). Its bound is the board-tilt law's
  limit (:func:`board_law_bound`), not a capture bound on the ground.

**Bound** (flat feet): :func:`wbc_layer.capture.capture_bound` of the CoM state when the push
starts (MuJoCo's CoM and its velocity, the robot's mass, ``z_c`` above the soles) in the push
direction, the support polygon being the hull of both soles shrunk to the controller's CoP
bounds (its foot contacts' ``half_length`` x ``half_width``: 0.085 x 0.0425 m of the 0.10 x 0.05 m
soles). The pre-push rollout does not depend on the push, so one probe rollout per stance (no
push) gives the state, and checks that the stance survives without a push.

**Bisection** per direction: bracket ``[0, --bracket x bound]`` (1.5; 1 N s when the bound is
0); while the top is survived it doubles (at most ``--max-extensions`` = 3 times, then the
result is marked ``capped``); then ``--halvings`` = 6 halvings. The survived impulse is the
bracket's bottom (the largest impulse seen survived). Monotonicity: survival at 0.9x, 1.0x and
1.1x of it (``checks``; ``monotone`` when no larger one is survived after a smaller one fell).

Each trial is a fresh episode (``reset(seed=--seed)``; a fresh controller): same arguments, same
numbers on one machine (proxsuite's rounding may differ by 1e-12 between runs, see the envs'
Reproducibility; a trial that close to the edge of survival could flip). ``--workers`` > 1 runs
the directions in a process pool. ``--config`` YAML: controller settings (``ControllerConfig``
fields) overriding each env's controller configuration (to compare controllers);
``--overlay`` a previous JSON, drawn beside this run's in the plot and printed in the table.

Writes ``benchmarks/results/push_envelope.json``: ``results[backend][env id][stance] =
{"push_time_s", "duration_s", "state": {CoM state at the push, polygon, ...}, "bound_kind",
"directions": [{"direction_deg", "bound_ns", "survived_ns", "ratio", "bracket_ns", "capped",
"checks": {"0.9", "1.0", "1.1"}, "monotone", "trials": [[impulse, survived, fall time]]}]}``,
and a polar plot (``--png``): survived impulse and bound per direction, one panel per stance.

    python -m benchmarks.push_envelope [--directions 16] [--halvings 6] [--stances centre ends glide]
        [--envs balance wall seesaw] [--backends compiled] [--workers 1] [--config YAML]
        [--overlay OLD.json] [--quick]
    python -m benchmarks.push_envelope --markdown-from RESULTS.json   # its tables as markdown

``--quick``: 2 directions, 1 halving, 1 s survival, push at 0.5 s, the centre stance of the flat
env only (options given explicitly still apply).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import yaml

from benchmarks import common
from benchmarks.common import RESULTS, machine, write_json
from humanoid_env.envs.balance import BALANCE_DEFAULTS
from humanoid_env.robots.hubo_lite import HUBO_LITE
from humanoid_env.scenarios.base import Scenario
from wbc_layer.capture import capture_bound, support_polygon

#: Short name -> env id of the tasks with stances here (:func:`stances`); names and ids are the task
#: registry's (``benchmarks.common.ENVS``).
ENVS = {name: common.ENVS[name] for name in ("balance", "wall", "seesaw")}
BALANCE, WALL, SEESAW = ENVS.values()
STANCE_GROUPS = ("centre", "ends", "glide")
BACKENDS = ("compiled",)  # the one backend since issue 36 retired the Python reference tick
NO_PUSHES = {"push_magnitude_n": (0.0, 0.0)}
FIXED_TARGET = {"com_target_range_m": (0.0, 0.0, 0.0)}
PUSH_DURATION_S = 0.1
SEESAW_DURATIONS_S = (0.1, 0.01)
#: Survival checked at these multiples of the found impulse.
CHECKS = (0.9, 1.0, 1.1)
#: Bisection top when the bound is 0 (the capture point already outside) [N s].
ZERO_BOUND_TOP_NS = 1.0
QUICK = {"directions": 2, "halvings": 1, "survival_s": 1.0, "push_time_s": 0.5, "stances": ["centre"],
         "envs": ["balance"]}  # fmt: skip


@dataclass(frozen=True)
class Stance:
    """A starting situation: env, keywords, CoM target, push time and length, directions.

    ``target_offset`` (3,) [m]: the CoM target glides there from the nominal CoM and stays (None:
    the env's own task moves it). ``push_time_s`` None: half way through the task's first glide
    (found by a probe). ``bound_kind``: ``"capture"`` or ``"board_law"`` (the seesaw).
    """

    env_id: str
    name: str
    env_kwargs: tuple[tuple[str, Any], ...]
    target_offset: tuple[float, float, float] | None
    push_time_s: float | None
    duration_s: float
    directions_deg: tuple[float, ...]
    bound_kind: str = "capture"


@dataclass(frozen=True)
class Settings:
    """What every trial of a run shares: seed, survival window [s], controller backend and solver,
    controller overrides (``ControllerConfig`` fields), bisection's halvings / bracket / extensions."""

    seed: int = 0
    survival_s: float = 3.0
    backend: str = "compiled"
    qp_solver: str | None = None
    overrides: tuple[tuple[str, Any], ...] = ()
    robot: str = "hubo_lite"
    env_kwargs: tuple[tuple[str, Any], ...] = ()
    halvings: int = 6
    bracket: float = 1.5
    max_extensions: int = 3


@dataclass
class ScriptedPush:
    """One push of ``force`` (3,) world [N] from ``start_s`` for ``duration_s`` [s]: the physics
    steps whose time lies in ``[start - dt/2, start + duration - dt/2)``, i.e. exactly
    ``duration / dt`` of them (robust to the rounding of MuJoCo's time). Same interface as
    :class:`humanoid_env.envs.pushes.PushSchedule`; draws nothing from the env's RNG."""

    force: np.ndarray
    start_s: float
    duration_s: float
    dt: float
    starts: list[float] = field(default_factory=list)
    survival_window_s: float = 3.0

    @property
    def enabled(self) -> bool:
        return bool(np.any(self.force))

    def reset(self, rng: np.random.Generator, time: float = 0.0) -> None:
        self.starts = []

    def update(self, rng: np.random.Generator, time: float) -> np.ndarray:
        begin = self.start_s - 0.5 * self.dt
        if begin <= time < begin + self.duration_s:
            if not self.starts:
                self.starts.append(self.start_s)
            return np.array(self.force, dtype=float)
        return np.zeros(3)

    @property
    def total(self) -> int:
        return len(self.starts)

    def survived(self, time: float, fell: bool) -> int:
        return self.total if not fell else sum(1 for s in self.starts if s + self.survival_window_s <= time)


class HoldTarget(Scenario):
    """The CoM target glides from the nominal CoM to nominal + ``offset`` (3,) [m] at the task's
    ``target_speed_mps`` and stays there (the balance task's glide, with a fixed goal)."""

    name = "hold_target"

    def __init__(self, offset):
        self.offset = np.asarray(offset, dtype=float)

    def reset(self, context) -> None:
        context.command.com_goal = context.plant.com_nominal + self.offset

    def update_task(self, command, context, time: float, dt: float) -> None:
        # The balance task's glide of its command (the one handed here), without drawing new goals.
        context.task.glide_target(dt)


def stances(env_names: list[str], groups: list[str], directions: int, push_time_s: float) -> list[Stance]:
    """The stances of a run (see the module docstring), each with its directions [deg]."""
    all_directions = tuple(360.0 * k / directions for k in range(directions))
    out: list[Stance] = []
    standing = tuple({**NO_PUSHES, **FIXED_TARGET}.items())
    if "balance" in env_names:
        if "centre" in groups:
            out.append(Stance(BALANCE, "centre", standing, (0.0, 0.0, 0.0), push_time_s, PUSH_DURATION_S, all_directions))
        if "ends" in groups:
            rx, ry, _ = BALANCE_DEFAULTS["com_target_range_m"]
            for name, offset in (("front", (rx, 0, 0)), ("back", (-rx, 0, 0)), ("left", (0, ry, 0)), ("right", (0, -ry, 0))):
                out.append(Stance(BALANCE, name, standing, tuple(map(float, offset)), push_time_s, PUSH_DURATION_S, all_directions))
        if "glide" in groups:
            out.append(Stance(BALANCE, "glide", tuple(NO_PUSHES.items()), None, None, PUSH_DURATION_S, all_directions))
    if "wall" in env_names:
        out.append(Stance(WALL, "default", tuple(NO_PUSHES.items()), None, push_time_s, PUSH_DURATION_S, all_directions))
    if "seesaw" in env_names:
        for duration in SEESAW_DURATIONS_S:
            out.append(Stance(SEESAW, f"push {duration:g} s", standing, (0.0, 0.0, 0.0), push_time_s, duration, (90.0, 270.0), "board_law"))
    return out


# -- one rollout ---------------------------------------------------------------------------------
_ENVS: dict[str, gym.Env] = {}


def env_for(stance: Stance, settings: Settings):
    """The (cached, per process) unwrapped env of ``stance`` in wbc mode with ``settings``' backend,
    solver and controller overrides."""
    kwargs = {
        **dict(stance.env_kwargs), **dict(settings.env_kwargs), "action_mode": "wbc", "wbc_backend": settings.backend,
        "robot": settings.robot,
    }  # fmt: skip
    if settings.qp_solver is not None:
        kwargs["qp_solver"] = settings.qp_solver
    key = repr((stance.env_id, sorted(kwargs.items()), settings.overrides))
    if key not in _ENVS:
        base = gym.make(stance.env_id, **kwargs).unwrapped
        apply_overrides(base, dict(settings.overrides))
        _ENVS[key] = base
    return _ENVS[key]


def apply_overrides(base, overrides: dict[str, Any]) -> None:
    """Make ``base`` (an unwrapped env) build its controllers with ``overrides`` applied on top of
    its own configuration (``ControllerConfig.with_overrides``: unknown names raise)."""
    if not overrides:
        return
    task = base.task
    original = task.controller_config  # the task's own configuration (of the WbcConfig), then the overrides
    task.controller_config = lambda *args, **kwargs: original(*args, **kwargs).with_overrides(**overrides)


def _direction(deg: float) -> np.ndarray:
    angle = math.radians(deg)
    return np.array([math.cos(angle), math.sin(angle)])


def rollout(stance: Stance, settings: Settings, push_time_s: float, impulse_ns: float, direction_deg: float) -> dict[str, Any]:
    """One episode: stand (zero action) until ``push_time_s``, push ``impulse_ns`` [N s] in
    ``direction_deg`` for ``stance.duration_s``, run ``settings.survival_s`` more.

    Returns ``{"survived", "fall_time_s" (None), "fell_before_push", "task_ended_s" (first env step
    the task ended the episode without a fall, e.g. the wall lost; None), "state" (at the push)}``.
    """
    base = env_for(stance, settings)
    force = np.zeros(3)
    force[:2] = impulse_ns / stance.duration_s * _direction(direction_deg)
    half = 0.5 * base.dt_physics
    base.plant.pushes = ScriptedPush(force, push_time_s, stance.duration_s, base.dt_physics, survival_window_s=settings.survival_s)
    base.set_scenario(HoldTarget(stance.target_offset) if stance.target_offset is not None else None)
    base.reset(seed=settings.seed)
    zero = np.zeros(base.action_space.shape)
    out: dict[str, Any] = {"survived": False, "fall_time_s": None, "fell_before_push": False, "task_ended_s": None, "state": None}
    while base.data.time < push_time_s - half:
        base.step(zero)
        if base.fell:
            out.update(fell_before_push=True, fall_time_s=float(base.data.time))
            return out
    out["state"] = push_state(base, stance)
    end = push_time_s + settings.survival_s
    while base.data.time < end - half:
        _, _, terminated, _, _ = base.step(zero)
        if base.fell:
            out["fall_time_s"] = float(base.data.time)
            return out
        if terminated and out["task_ended_s"] is None:
            out["task_ended_s"] = float(base.data.time)
    out["survived"] = True
    return out


def push_state(base, stance: Stance) -> dict[str, Any]:
    """The state a bound is computed from, when the push starts: CoM [m], its velocity [m/s],
    the mass [kg], the ground height under the soles [m], the support polygon (k, 2) [m] (both
    soles shrunk to the controller's CoP bounds) and, on the seesaw, the board-tilt law's state."""
    d, plant, task = base.data, base.plant, base.task
    feet = [c for c in base.controller.config.contacts if c.kind == "foot"]
    polygon = support_polygon(
        d.site_xpos[plant.sole_sites], d.site_xmat[plant.sole_sites].reshape(-1, 3, 3), feet[0].half_length, feet[0].half_width
    )
    state = {
        "time_s": float(d.time),
        "com": base.com().tolist(),
        "com_velocity": plant.com_velocity().tolist(),
        "com_target": np.asarray(base.com_target).tolist(),
        "mass_kg": float(base.actuation.robot.mass),
        "ground_height_m": float(plant.support_centre()[2]),
        "cop_half_sizes_m": [float(feet[0].half_length), float(feet[0].half_width)],
        "polygon": polygon.tolist(),
    }
    if stance.bound_kind == "board_law":
        state.update({
            "board_angle_rad": task.board_angle(),
            "board_target_rad": task.board_balance_target(base.context, task.board_shaper),
            "board_target_limit_rad": float(task.board_target_limit),
            "board_balance_gain": float(base.config["board_balance_gain"]),
            "law_omega_per_s": float(np.sqrt(9.81 / base.com_nominal[2])),
            "radius_m": float(task.seesaw.radius),
        })  # fmt: skip
    return state


def board_law_bound(state: dict[str, Any], direction_deg: float) -> float:
    """The seesaw's board-tilt law's limit [N s] (``SeesawTask.board_balance_target``).

    An impulse ``p`` along y moves the capture point by ``p / (m omega)`` (the law's ``omega =
    sqrt(g / h)``, ``h`` the nominal CoM height), which the law answers by tilting its target by
    ``-k p / (m omega R)``; beyond ``|theta*| = 0.9 max_board_tilt_rad`` the target saturates. The
    bound is the impulse that takes the target from its value at the push to that limit
    (infinite for a push along x, which the law ignores).
    """
    u_y = _direction(direction_deg)[1]
    if abs(u_y) < 1e-12:
        return math.inf
    theta, limit = state["board_target_rad"], state["board_target_limit_rad"]
    room = (theta + limit) if u_y > 0 else (limit - theta)  # +y push lowers the target
    scale = state["mass_kg"] * state["law_omega_per_s"] * state["radius_m"] / state["board_balance_gain"]
    return max(room, 0.0) * scale / abs(u_y)


def bound_of(stance: Stance, state: dict[str, Any], direction_deg: float) -> float:
    """The bound [N s] of a push in ``direction_deg`` from ``state`` (see :func:`push_state`)."""
    if stance.bound_kind == "board_law":
        return board_law_bound(state, direction_deg)
    return capture_bound(
        state["com"], state["com_velocity"], state["mass_kg"], state["polygon"], _direction(direction_deg), state["ground_height_m"]
    )


def glide_push_time(stance: Stance, settings: Settings) -> tuple[float, dict[str, Any]]:
    """Half way through the task's first glide (seed ``settings.seed``), rounded up to an env
    step [s], and the glide: ``{"start_s", "goal_offset_m", "duration_s"}``."""
    base = env_for(stance, settings)
    base.plant.pushes = ScriptedPush(np.zeros(3), math.inf, stance.duration_s, base.dt_physics)
    base.set_scenario(None)
    base.reset(seed=settings.seed)
    start = float(base.task.next_target_time)
    zero = np.zeros(base.action_space.shape)
    while base.data.time < start + base.dt:
        base.step(zero)
    offset = np.asarray(base.task.command.com_goal) - base.com_nominal
    duration = float(np.linalg.norm(offset)) / base.config["target_speed_mps"]
    push = math.ceil((start + 0.5 * duration) / base.dt - 1e-9) * base.dt
    return push, {"start_s": start, "goal_offset_m": offset.tolist(), "duration_s": duration}


# -- the bisection ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    """One direction of one stance: what a worker needs."""

    stance: Stance
    settings: Settings
    push_time_s: float
    direction_deg: float
    bound_ns: float


def envelope(job: Job) -> dict[str, Any]:
    """Bisect the largest survived impulse of ``job`` and check survival at 0.9x / 1.0x / 1.1x."""
    settings, cache = job.settings, {}

    def survives(impulse: float) -> bool:
        if impulse not in cache:
            cache[impulse] = rollout(job.stance, settings, job.push_time_s, impulse, job.direction_deg)
        return cache[impulse]["survived"]

    bound = job.bound_ns if math.isfinite(job.bound_ns) else ZERO_BOUND_TOP_NS
    top = settings.bracket * bound if bound > 0 else ZERO_BOUND_TOP_NS
    lo, hi, extensions = 0.0, top, 0
    while survives(hi) and extensions < settings.max_extensions:
        lo, hi, extensions = hi, 2.0 * hi, extensions + 1
    capped = survives(hi)
    if capped:
        lo = hi
    else:
        for _ in range(settings.halvings):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if survives(mid) else (lo, mid)
    checks = {f"{f:.1f}": survives(f * lo) if lo > 0 else True for f in CHECKS}
    trials = sorted((impulse, r["survived"], r["fall_time_s"]) for impulse, r in cache.items())
    survived_flags = [s for _, s, _ in trials]
    return {
        "direction_deg": job.direction_deg,
        "bound_ns": job.bound_ns if math.isfinite(job.bound_ns) else None,
        "survived_ns": lo,
        "ratio": lo / job.bound_ns if job.bound_ns > 0 and math.isfinite(job.bound_ns) else None,
        "bracket_ns": [lo, hi],
        "initial_top_ns": top,
        "extensions": extensions,
        "capped": capped,
        "checks": checks,
        "monotone": all(a >= b for a, b in zip(survived_flags, survived_flags[1:], strict=False)),
        "task_ended": any(r["task_ended_s"] is not None for r in cache.values()),
        "trials": [[impulse, survived, fall] for impulse, survived, fall in trials],
    }


def run_stance(stance: Stance, settings: Settings, workers: int) -> dict[str, Any]:
    """Probe the stance (no push), then the envelope of each direction (``workers`` processes)."""
    glide = None
    push_time = stance.push_time_s
    if push_time is None:
        push_time, glide = glide_push_time(stance, settings)
    probe = rollout(stance, settings, push_time, 0.0, 0.0)
    out: dict[str, Any] = {
        "env_id": stance.env_id,
        "push_time_s": push_time,
        "duration_s": stance.duration_s,
        "target_offset_m": stance.target_offset,
        "bound_kind": stance.bound_kind,
        "glide": glide,
        "state": probe["state"],
        "unpushed_survived": probe["survived"],
        "directions": [],
    }
    if probe["fell_before_push"] or probe["state"] is None:
        return out
    jobs = [Job(stance, settings, push_time, deg, bound_of(stance, probe["state"], deg)) for deg in stance.directions_deg]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            out["directions"] = list(pool.map(envelope, jobs))
    else:
        out["directions"] = [envelope(job) for job in jobs]
    return out


# -- output ----------------------------------------------------------------------------------------
def _checks_text(checks: dict[str, bool]) -> str:
    return "".join("S" if checks[f"{f:.1f}"] else "F" for f in CHECKS)


def print_stance(backend: str, name: str, row: dict[str, Any], old: dict[str, Any] | None = None) -> None:
    """Table of one stance: per direction bound, survived impulse, ratio, survival at 0.9/1.0/1.1
    (S survived, F fell), and the overlaid run's survived impulse when given."""
    state = row["state"] or {}
    com = state.get("com", [math.nan] * 3)
    print(f"\n{row['env_id']}, {name}  ({backend}; push {row['duration_s']:g} s at t = {row['push_time_s']:.2f} s, "
          f"CoM ({com[0]:+.4f}, {com[1]:+.4f}) m; bound: {row['bound_kind']})")  # fmt: skip
    if not row["directions"]:
        print("  fell before the push: no envelope")
        return
    old_by_dir = {d["direction_deg"]: d for d in (old or {}).get("directions", [])}
    print(f"  {'dir [deg]':>9}{'bound [N s]':>13}{'survived':>10}{'ratio':>8}{'0.9/1/1.1':>11}"
          + (f"{'old survived':>14}" if old else ""))  # fmt: skip
    for d in row["directions"]:
        bound = "-" if d["bound_ns"] is None else f"{d['bound_ns']:.2f}"
        ratio = "-" if d["ratio"] is None else f"{100 * d['ratio']:.0f} %"
        flag = ("+" if d["capped"] else "") + ("" if d["monotone"] else " (non-monotone)")
        line = f"  {d['direction_deg']:>9.1f}{bound:>13}{d['survived_ns']:>10.2f}{ratio:>8}{_checks_text(d['checks']):>11}"
        if old:
            previous = old_by_dir.get(d["direction_deg"])
            line += f"{previous['survived_ns']:>14.2f}" if previous else f"{'-':>14}"
        print(line + flag)
    ratios = [d["ratio"] for d in row["directions"] if d["ratio"] is not None]
    if ratios:
        print(f"  survived / bound: min {100 * min(ratios):.0f} %, median {100 * float(np.median(ratios)):.0f} %, "
              f"max {100 * max(ratios):.0f} %  (+: capped, survived the top of the extended bracket)")  # fmt: skip


def markdown(results: dict[str, Any]) -> str:
    """Markdown tables of a run's ``results``: per backend and env, one row per direction and one
    column per stance, each cell ``survived / bound [N s] (ratio)``; then survival at 0.9x/1.0x/1.1x
    (S survived, F fell) where it is not ``SSF`` or ``SSS``, and capped or non-monotone directions."""
    lines: list[str] = []
    for backend, by_env in results.items():
        for env_id, by_stance in by_env.items():
            names = [n for n, row in by_stance.items() if row["directions"]]
            lines += [f"**{env_id}** ({backend}): survived / bound [N s] (ratio; +: capped)", ""]
            lines.append("| direction [deg] | " + " | ".join(names) + " |")
            lines.append("|---:|" + "---:|" * len(names))
            directions = sorted({d["direction_deg"] for n in names for d in by_stance[n]["directions"]})
            notes: list[str] = []
            for deg in directions:
                cells = []
                for n in names:
                    d = next((x for x in by_stance[n]["directions"] if x["direction_deg"] == deg), None)
                    if d is None:
                        cells.append("")
                        continue
                    bound = "-" if d["bound_ns"] is None else f"{d['bound_ns']:.1f}"
                    ratio = "" if d["ratio"] is None else f" ({100 * d['ratio']:.0f} %)"
                    cells.append(f"{d['survived_ns']:.1f}{'+' if d['capped'] else ''} / {bound}{ratio}")
                    checks = _checks_text(d["checks"])
                    if not d["monotone"]:
                        notes.append(f"{n} {deg:g} deg: not monotone (trials {_trials_text(d)}; 0.9/1.0/1.1x: {checks})")
                lines.append(f"| {deg:g} | " + " | ".join(cells) + " |")
            lines.append("")
            for n in names:
                ratios = [d["ratio"] for d in by_stance[n]["directions"] if d["ratio"] is not None]
                if ratios:
                    worst = min(by_stance[n]["directions"], key=lambda d: d["ratio"] if d["ratio"] is not None else math.inf)
                    lines.append(f"- {n}: survived / bound min {100 * min(ratios):.0f} % (at {worst['direction_deg']:g} deg), "
                                 f"median {100 * float(np.median(ratios)):.0f} %, max {100 * max(ratios):.0f} %")  # fmt: skip
            lines += [f"- {note}" for note in notes] + [""]
    return "\n".join(lines)


def _trials_text(d: dict[str, Any]) -> str:
    return ", ".join(f"{impulse:.2f} {'S' if survived else 'F'}" for impulse, survived, _ in d["trials"])


SHORT_NAMES = {BALANCE: "flat", WALL: "wall", SEESAW: "seesaw"}


@dataclass
class _PolarCurves:
    """Draws curves of impulse [N s] against the directions ``theta`` [rad] on one polar panel:
    closed lines (markers only for 1-2 directions), values over ``rmax`` on the rim as triangles."""

    ax: Any
    theta: np.ndarray
    rmax: float | None
    closed: bool
    handles: dict[str, Any]

    def __call__(self, values, marker: str, linestyle: str, label: str, color: str) -> None:
        t, v = np.asarray(self.theta), np.asarray(values, dtype=float)
        if self.rmax is not None:
            over = v > self.rmax
            v = np.minimum(v, self.rmax)
            if np.any(over):
                self.ax.plot(t[over], v[over], "^", color=color, ms=7)
        if self.closed:
            t, v = np.append(t, t[0]), np.append(v, v[0])
        (line,) = self.ax.plot(t, v, marker=marker, linestyle=linestyle if self.closed else "none", color=color, ms=4)
        self.handles.setdefault(label, line)


def plot(results: dict[str, Any], path: Path, old: dict[str, Any] | None = None) -> Path:
    """Polar PNG: one panel per (backend, env, stance); survived impulse (and the overlaid run's)
    and bound [N s] against the push direction. The radius stops at twice the largest bound: a
    larger survived impulse (a capped one, e.g. into the wall) is drawn on the rim as a triangle."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(b, e, s, row) for b, by_env in results.items() for e, by_stance in by_env.items() for s, row in by_stance.items()]
    ncols = min(4, max(1, len(panels)))
    nrows = math.ceil(len(panels) / ncols)
    fig = plt.figure(figsize=(4.0 * ncols, 4.3 * nrows + 0.6))
    handles: dict[str, Any] = {}
    for i, (backend, env_id, name, row) in enumerate(panels):
        ax = fig.add_subplot(nrows, ncols, i + 1, projection="polar")
        ax.set_title(f"{SHORT_NAMES.get(env_id, env_id)}: {name}" + (f" ({backend})" if len(results) > 1 else ""), fontsize=9, pad=14)
        ax.tick_params(labelsize=7)
        dirs = row["directions"]
        if not dirs:
            continue
        theta = np.radians([d["direction_deg"] for d in dirs])
        closed = len(dirs) > 2
        bounds = np.array([np.nan if d["bound_ns"] is None else d["bound_ns"] for d in dirs])
        rmax = 2.0 * np.nanmax(bounds) if np.any(np.isfinite(bounds)) else None

        draw = _PolarCurves(ax, theta, rmax, closed, handles)
        draw(bounds, "x", "--", "bound", "k")
        draw([d["survived_ns"] for d in dirs], "o", "-", "survived", "tab:blue")
        previous = ((old or {}).get(backend) or next(iter((old or {}).values()), {})).get(env_id, {}).get(name)
        if previous and previous.get("directions"):
            by_dir = {d["direction_deg"]: d["survived_ns"] for d in previous["directions"]}
            draw([by_dir.get(d["direction_deg"], np.nan) for d in dirs], "s", "-", "survived (overlay)", "tab:orange")
        if rmax is not None:
            ax.set_rmax(rmax)
    fig.legend(list(handles.values()), [f"{k} [N s]" for k in handles], loc="lower center", ncol=len(handles), fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def load_overrides(path: Path | None) -> dict[str, Any]:
    """Controller overrides from a YAML mapping of ``ControllerConfig`` fields (checked now)."""
    if path is None:
        return {}
    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise SystemExit(f"--config {path}: expected a mapping of controller settings, got {type(data).__name__}")
    HUBO_LITE.controller_config().with_overrides(**data)  # unknown names raise ConfigError, listing the valid ones
    return data


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--directions", type=int, default=16, help="push directions, evenly spaced from 0 deg (+x)")
    parser.add_argument("--halvings", type=int, default=6, help="bisection halvings per direction")
    parser.add_argument("--stances", nargs="+", choices=STANCE_GROUPS, default=list(STANCE_GROUPS), help="flat-ground stances")
    parser.add_argument("--envs", nargs="+", choices=list(ENVS), default=list(ENVS))
    parser.add_argument("--robot", default="hubo_lite", help="a name of humanoid_env.robots.ROBOTS")
    parser.add_argument("--env-kwargs", type=json.loads, default={}, help='JSON of env keywords for every stance, e.g. \'{"contact_guard": true}\'')
    parser.add_argument("--backends", nargs="+", choices=BACKENDS, default=["compiled"])
    parser.add_argument("--qp-solver", default=None, help="the WBC's QP solver (default: each env's)")
    parser.add_argument("--survival-s", type=float, default=3.0, help="survival window after the push starts [s]")
    parser.add_argument("--push-time-s", type=float, default=2.0, help="push time of the standing stances [s]")
    parser.add_argument("--bracket", type=float, default=1.5, help="bisection top as a multiple of the bound")
    parser.add_argument("--max-extensions", type=int, default=3, help="doublings of a survived top")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="processes (directions in parallel); 1: none")
    parser.add_argument("--config", type=Path, default=None, help="YAML of ControllerConfig overrides")
    parser.add_argument("--overlay", type=Path, default=None, help="a previous push_envelope JSON to draw beside")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run, numbers meaningless)")
    parser.add_argument("--json", type=Path, default=RESULTS / "push_envelope.json")
    parser.add_argument("--png", type=Path, default=RESULTS / "push_envelope.png")
    parser.add_argument("--markdown-from", type=Path, default=None, help="print a JSON's results as markdown tables, run nothing")
    args = parser.parse_args(argv)
    if args.markdown_from is not None:
        results = json.loads(args.markdown_from.read_text())["results"]
        print(markdown(results))
        return results
    if args.quick:  # tiny defaults; options given explicitly still win
        parser.set_defaults(**QUICK)
        args = parser.parse_args(argv)
    if args.directions < 1 or args.halvings < 0 or args.survival_s <= 0 or args.bracket <= 0:
        parser.error("--directions >= 1, --halvings >= 0, --survival-s > 0 and --bracket > 0")
    start, clock = machine(), time.perf_counter()
    overrides = load_overrides(args.config)
    old = json.loads(args.overlay.read_text())["results"] if args.overlay else None
    results: dict[str, Any] = {}
    for backend in dict.fromkeys(args.backends):
        settings = Settings(
            seed=args.seed, survival_s=args.survival_s, backend=backend, qp_solver=args.qp_solver,
            overrides=tuple(sorted(overrides.items())), robot=args.robot, env_kwargs=tuple(sorted(args.env_kwargs.items())),
            halvings=args.halvings, bracket=args.bracket,
            max_extensions=args.max_extensions,
        )  # fmt: skip
        for stance in stances(args.envs, args.stances, args.directions, args.push_time_s):
            row = run_stance(stance, settings, args.workers)
            results.setdefault(backend, {}).setdefault(stance.env_id, {})[stance.name] = row
            previous = ((old or {}).get(backend) or {}).get(stance.env_id, {}).get(stance.name)
            print_stance(backend, stance.name, row, previous)
    seconds = time.perf_counter() - clock
    print(f"\n{seconds:.0f} s")
    settings_out = {
        "directions": args.directions, "halvings": args.halvings, "stances": args.stances, "envs": args.envs,
        "robot": args.robot, "env_kwargs": args.env_kwargs, "backends": args.backends, "qp_solver": args.qp_solver, "survival_s": args.survival_s,
        "push_time_s": args.push_time_s, "bracket": args.bracket, "max_extensions": args.max_extensions,
        "seed": args.seed, "workers": args.workers, "controller_overrides": overrides,
        "overlay": str(args.overlay) if args.overlay else None, "quick": args.quick,
    }  # fmt: skip
    write_json(args.json, settings_out, results, {**start, "seconds": round(seconds, 1)})
    print(f"wrote {plot(results, args.png, old)}")
    return results


if __name__ == "__main__":
    main()
