"""Walking: footsteps from a velocity command, and a CoM trajectory from a linear MPC on the point-mass model.

Pure Python and numpy, the MPC assembled and solved in the compiled core (``core/walking_mpc.cpp``,
no MuJoCo there either): the caller measures and passes in the CoM state, the
feet's poses and their measured normal forces every tick, and writes what comes out into the
controller's references, as with the stepping law (``wbc_layer.stepping``), whose swing foot
([`SwingFoot`][wbc_layer.stepping.SwingFoot]: unloading ramp, swing trajectory, touch-down,
loading ramp) takes every step here too.

**The model** (the background thesis chapter's *continuous planar point-mass model controlled
with CoM jerk*, CPPMJ, after Kajita et al. 2003 and Herdt et al. 2010): per horizontal axis the
state ``(c, c', c'')`` is a triple integrator of the jerk ``c'''``, and the centre of pressure is
``z = c - zeta c''`` with ``zeta = h / g`` (``h`` the CoM's height above the soles, constant).
Discretised with the jerk held over samples of ``sample_s`` (exact: the state at every sample and
in between is a polynomial of the jerk sequence).

**The MPC** ([`CoMPlanner`][wbc_layer.walking.CoMPlanner], after Wieber 2006, *Trajectory free
linear model predictive control for stable walking in the presence of strong perturbations*, and
Herdt et al. 2010, *Online walking motion generation with automatic footstep placement*): over
``horizon`` samples (1.6 s by default: about three steps) it minimises

    |z - z_ref|^2 + jerk_weight |jerk|^2 + velocity_weight |c' - v_cmd|^2
        + footstep_weight |p_next - p_planner|^2

with ``z`` inside each sample's support (the stance sole's CoP rectangle in single support, the
hull of both soles in double support, each shrunk by ``cop_margin_m``; a box of the sole's size
around ``z_ref`` where the double support's landing is itself a variable, which keeps the
constraint linear) and ``z_ref`` the support's centre (moving linearly from one stance sole to the
next through double support), or with ``cop_inset_share`` each stance sole's point that share of
its CoP half width toward the other foot (the support stays the sole's: a reference nearer the
middle narrows the CoM's sway between the feet, so a sideways push toward a stance foot finds
its capture point further from that sole's outer edge). ``p_next``, the next landing, is a decision variable inside the
swing foot's reachable region, drawn to the [`FootstepPlanner`][wbc_layer.walking.FootstepPlanner]'s
place; the steps after it move with it (``footstep_weight=None``: all footsteps fixed, Wieber's
formulation). It is assembled and solved in the compiled core (``core/walking_mpc.cpp``: 113 us
a re-plan with the Python that packs the problem, against 519 us for the numpy assembly it
replaced, medians of ``benchmarks.walking_mpc``; the same plans to round-off,
``tests/test_walking_mpc.py``) with eiquadprog (exact, the controller's solver) from the
**measured** CoM position and velocity every ``replan_s``; between re-plans the CoM reference (position,
velocity, acceleration) is the plan evaluated at the tick's time. The acceleration now is a
decision of each re-plan too (``free_acceleration_weight``: its change from the running plan's
costs that much), so the CoP now, ``z_0``, is in the cost and constrained like the samples', but
in its support grown by ``initial_cop_margin_m``: a push is met by a CoP that jumps at once (the
whole-body controller can change the contact forces within a tick), and for an instant by more
than the feet can give, which the controller makes up with the centroidal angular momentum (the
centroidal moment pivot leaving the support, Popovic et al. 2005; Hof 2007's counter-rotation,
the hip strategy). With ``free_acceleration_weight=None`` the re-plan starts from the plan's own
acceleration (a continuous CoP, as in Herdt et al. 2010; the walk env's fourth revision). An
infeasible problem (a state no CoP in the supports can bring back) falls back to the same cost
with no constraints (``status = "unconstrained"``, flagged; the plan then asks the whole-body
controller for a CoP outside the feet, which its own CoP rows refuse: the robot does what it can).
So the MPC owns the next footstep: a push while walking is answered by the CoP now and by moving
the next landing (within its reach: ``results/walking/README.md``, lateral pushes), not by the
stepping law of ``wbc_layer.stepping``, which does not run.

**The footsteps** ([`FootstepPlanner`][wbc_layer.walking.FootstepPlanner]): each step lands
relative to the stance sole, in its axes, at ``(vx T, sigma W)`` turned by the command's yaw
over the step, ``T`` the step's period (double + single support), ``sigma`` +1 for the left
foot, ``W`` the stance width: the nominal width without a lateral command; walking sideways the
stance alternates between a closed width (after the trailing foot's step) and that plus
``2 vy T`` (after the leading foot's), the closed one narrower than nominal where the step
limits allow (a shorter sway between the feet). **The cadence** rises with the command: where a
step of the nominal period would carry more than ``command_share`` of the step limits, the
period shortens (both supports in proportion) just enough, down to ``fastest_step_s``. The
command is clipped to what the step limits allow at that period (``command_limits``) and the
step into the swing foot's reachable region (no crossover), both flagged.

**The gait** ([`WalkingGenerator`][wbc_layer.walking.WalkingGenerator]) owns the next footstep:
at zero command it stands in double support and takes no step; a non-zero command starts a gait
with a weight shift of ``start_s`` onto the first stance foot (the foot on the side of the
lateral or turning command stepping first, else the left one); each step is double support
(the swing foot's force ramped to zero over its last ``unload_s``), single support, touch-down
(measured force or planned time, ``SwingFoot``'s rules) and the loading ramp overlapping the next
double support. A command changed mid-step changes the steps not yet started (their timing too, but the next
one still unloads over a whole ``unload_s`` from the change); the landing under
way moves only as the MPC moves it (while its swing may still be retargeted, ``SwingFoot``'s
rule). When the command returns to zero the next step closes the stance (the feet side by
side) and the robot stands. Each step turns from the yaw its stance sole's step planned, not the
measured one. A swing foot that has not landed when the next step should start
unloading holds the schedule: every later step is delayed by as much (the robot never stands on
no foot). **Holding a lift-off** (``lift_off_holds_s``, after the step-timing adaptation of
Khadiv et al. 2016, *Step timing adjustment: a step toward generating robust gaits*, here by
comparing MPC plans): where a step is due to start unloading, the MPC is solved from the measured
state with the lift-off on time and delayed by each of the delays; where on time costs more than
``hold_min_cost`` and the cheapest delay at most ``hold_cost_ratio`` of it, the step and all
after it wait that long (and are weighed again when due, up to ``max_hold_s`` in all). A push
toward the foot about to step is then met in double support instead of by lifting the foot the
CoM is falling toward; on an undisturbed walk nothing is held.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from wbc_layer.errors import ConfigError
from wbc_layer.step_limits import StepLimits, _positive, reachable_region
from wbc_layer.stepping import (
    DONE,
    FEET,
    LOADING,
    SWING,
    UNLOADING,
    SwingFoot,
    SwingSettings,
    _edges,
    _non_negative,
    _rotation,
    project_to_polygon,
)

__all__ = [
    "AffinePoint",
    "CoMPlan",
    "CoMPlanner",
    "Foothold",
    "Footstep",
    "FootstepPlanner",
    "GaitSettings",
    "WalkCommand",
    "WalkingGenerator",
    "WalkingOutputs",
    "command_limits",
    "jerk_model",
]

GRAVITY = 9.81
#: The sample times that count as the same instant [s].
_TOLERANCE_S = 1e-9
#: The holds a CoP reference may weigh (a blend of two supports: at most two; the MPC's arrays' width).
_MAX_TERMS = 3
_NO_OFFSET, _NO_PAIR = (0.0, 0.0), (-1, -1)
_NO_VELOCITY, _NO_NORMALS, _NO_OFFSETS = np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0)


@dataclass(frozen=True)
class GaitSettings:
    """How the robot walks (see the module docstring).

    Attributes:
        single_support_s: a step's swing, lift-off to planned touch-down [s].
        double_support_s: between two steps, touch-down to the next lift-off [s].
        start_s: the first step's double support, the weight shift from standing [s].
        unload_s: the swing foot's force ramp to zero, the end of each double support [s]
            (at most ``double_support_s``).
        load_s: the landed foot's force ramp from zero [s].
        swing_height_m: the swing sole's apex [m].
        max_yaw_step_rad: the most a step turns the feet [rad].
        sample_s: the MPC's sample [s].
        horizon: the MPC's samples [-].
        cop_margin_m: the planned CoP stays this far inside the soles' CoP rectangles [m].
        jerk_weight: the MPC's weight on the jerk [s^6] (per m^2 of CoP error).
        footstep_weight: the MPC's weight [-] (per m^2 of CoP error) on the next landing's move
            from the planner's place: that landing is a decision variable of the MPC, inside the
            swing foot's reachable region, and the steps after it move with it (after Herdt et
            al. 2010's automatic footstep placement); None: the planner's footsteps, fixed
            (Wieber 2006). Fixed footsteps fell in MuJoCo at every lateral command and at 0.2 m/s
            forward on the G1 (``results/walking/README.md``).
        velocity_weight: the MPC's weight on the CoM velocity's error from the command at each
            sample [s^2] (per m^2 of CoP error; Herdt et al. 2010's velocity tracking); 0: none.
        replan_s: the MPC re-plans from the measured state this often [s].
        command_share: the command limits are this share of what the step limits allow [-].
        fastest_step_s: the shortest step period [s] (double + single support, in the nominal
            ratio): a command whose steps would leave ``command_share`` of the step limits at the
            nominal period ``step_s`` is walked with shorter steps, as much shorter as it needs
            ([`FootstepPlanner.step_timing`][wbc_layer.walking.FootstepPlanner.step_timing]);
            the command limits are those at this period. None: the nominal period always (the
            limits at ``step_s``).
        free_acceleration_weight: None: each re-plan starts from the plan's own CoM acceleration
            (the CoP moves continuously, as in Herdt et al. 2010). A weight [s^4] (per m^2 of CoP
            error): the re-plan also picks the acceleration now, paying this per (m/s^2)^2 of its
            change, so the CoP now may jump, which a whole-body controller can do at once; the
            CoP now is then constrained and drawn to its reference like the samples'.
        initial_cop_margin_m: with ``free_acceleration_weight``, how far the CoP now may lie
            outside its support [m] (None: anywhere): what the feet cannot give the controller
            makes with the centroidal angular momentum (the centroidal moment pivot leaving the
            support, Popovic et al. 2005; the hip strategy), for an instant, since
            the samples after it stay inside. The defaults (0.1 s^4, 0.2 m) raised the sideways
            pushes survived while walking 0.3 m/s by 2-3 N s on both robots and cut the G1's
            falls under the walk env's pushes from 7 to 2 of 30 episodes, the nominal gaits'
            targets still met (``results/walking/README.md``).
        cop_inset_share: the CoP reference in a stance sole lies this share [-] of the CoP
            rectangle's half width (``cop_margin_m`` off) toward the other foot, in the sole's
            axes (0: its centre); the constraint stays the whole rectangle.
        lift_off_holds_s: the delays [s] a due lift-off is weighed against (empty: never held;
            the module docstring's "Holding a lift-off").
        hold_cost_ratio: a delay is taken where its plan costs at most this share [-] of the
            on-time plan's.
        max_hold_s: the most one step's lift-off is held in all [s].
        hold_min_cost: the on-time plan's cost [m^2, the MPC's objective in CoP-error units]
            above which a lift-off is weighed at all (undisturbed walks cost 0.005-0.015; after
            the pushes it helps with, 0.6-1.7).
    """

    single_support_s: float = 0.4
    double_support_s: float = 0.2
    start_s: float = 0.6
    unload_s: float = 0.1
    load_s: float = 0.05
    swing_height_m: float = 0.04
    max_yaw_step_rad: float = 0.3
    sample_s: float = 0.1
    horizon: int = 16
    cop_margin_m: float = 0.01
    jerk_weight: float = 1e-6
    footstep_weight: float | None = 10.0
    velocity_weight: float = 0.05
    replan_s: float = 0.02
    command_share: float = 0.95
    fastest_step_s: float | None = 0.39
    free_acceleration_weight: float | None = 0.1
    initial_cop_margin_m: float | None = 0.2
    cop_inset_share: float = 0.0
    lift_off_holds_s: tuple[float, ...] = ()
    hold_cost_ratio: float = 0.5
    max_hold_s: float = 0.6
    hold_min_cost: float = 0.1

    def __post_init__(self) -> None:
        for name in ("single_support_s", "double_support_s", "start_s", "unload_s", "load_s", "swing_height_m",
                     "max_yaw_step_rad", "sample_s", "jerk_weight", "replan_s", "command_share"):  # fmt: skip
            _positive(getattr(self, name), f"GaitSettings.{name}")
        if self.unload_s > self.double_support_s + _TOLERANCE_S or self.unload_s > self.start_s + _TOLERANCE_S:
            raise ValueError(
                f"GaitSettings.unload_s ({self.unload_s} s) must not exceed double_support_s ({self.double_support_s} s) "
                f"or start_s ({self.start_s} s): the swing foot unloads inside the double support"
            )
        if self.load_s > self.double_support_s + _TOLERANCE_S:
            raise ValueError(f"GaitSettings.load_s ({self.load_s} s) must not exceed double_support_s ({self.double_support_s} s)")
        if isinstance(self.horizon, bool) or not isinstance(self.horizon, int) or self.horizon < 2:
            raise ValueError(f"GaitSettings.horizon must be an int >= 2, got {self.horizon!r}")
        if self.footstep_weight is not None:
            _positive(self.footstep_weight, "GaitSettings.footstep_weight")
        if not (math.isfinite(float(self.velocity_weight)) and self.velocity_weight >= 0.0):
            raise ValueError(f"GaitSettings.velocity_weight must be a finite number >= 0, got {self.velocity_weight!r}")
        if self.command_share > 1.0:
            raise ValueError(f"GaitSettings.command_share must be in (0, 1], got {self.command_share!r}")
        if self.free_acceleration_weight is not None:
            _positive(self.free_acceleration_weight, "GaitSettings.free_acceleration_weight")
        if self.initial_cop_margin_m is not None:
            _non_negative(self.initial_cop_margin_m, "GaitSettings.initial_cop_margin_m")
        if isinstance(self.cop_inset_share, bool) or not (0.0 <= _non_negative(self.cop_inset_share, "GaitSettings.cop_inset_share") <= 1.0):
            raise ValueError(f"GaitSettings.cop_inset_share must be a number in [0, 1], got {self.cop_inset_share!r}")
        holds = self.lift_off_holds_s
        if isinstance(holds, (str, bytes)) or not isinstance(holds, (tuple, list)):
            raise ValueError(f"GaitSettings.lift_off_holds_s must be a sequence of delays > 0 [s], got {holds!r}")
        object.__setattr__(self, "lift_off_holds_s", tuple(_positive(h, "GaitSettings.lift_off_holds_s' delays") for h in holds))
        if not (0.0 < _positive(self.hold_cost_ratio, "GaitSettings.hold_cost_ratio") <= 1.0):
            raise ValueError(f"GaitSettings.hold_cost_ratio must be in (0, 1], got {self.hold_cost_ratio!r}")
        _positive(self.max_hold_s, "GaitSettings.max_hold_s")
        _non_negative(self.hold_min_cost, "GaitSettings.hold_min_cost")
        if self.fastest_step_s is not None:
            _positive(self.fastest_step_s, "GaitSettings.fastest_step_s")
            if self.fastest_step_s > self.step_s + _TOLERANCE_S:
                raise ValueError(f"GaitSettings.fastest_step_s ({self.fastest_step_s} s) must not exceed the nominal step period "
                                 f"single_support_s + double_support_s ({self.step_s} s)")  # fmt: skip
            double = self.double_support_s * self.fastest_step_s / self.step_s
            if max(self.unload_s, self.load_s) > double + _TOLERANCE_S:
                raise ValueError(f"GaitSettings.unload_s and load_s ({self.unload_s}, {self.load_s} s) must not exceed the double "
                                 f"support at fastest_step_s ({double:.4g} s)")  # fmt: skip

    @property
    def step_s(self) -> float:
        """A step's nominal period, double + single support [s]."""
        return self.double_support_s + self.single_support_s

    @property
    def shortest_step_s(self) -> float:
        """The shortest step period the gait walks [s]: ``fastest_step_s``, or ``step_s`` without one."""
        return self.step_s if self.fastest_step_s is None else self.fastest_step_s


@dataclass(frozen=True)
class WalkCommand:
    """A velocity command in the walking (heading) frame: ``forward_mps``, ``lateral_mps`` [m/s]
    (x forward, y left) and ``yaw_rate_radps`` [rad/s] (counter-clockwise)."""

    forward_mps: float = 0.0
    lateral_mps: float = 0.0
    yaw_rate_radps: float = 0.0

    def __post_init__(self) -> None:
        for name in ("forward_mps", "lateral_mps", "yaw_rate_radps"):
            value = getattr(self, name)
            if isinstance(value, bool) or not math.isfinite(float(value)):
                raise ValueError(f"WalkCommand.{name} must be a finite number, got {value!r}")

    def as_array(self) -> np.ndarray:
        return np.array([self.forward_mps, self.lateral_mps, self.yaw_rate_radps], dtype=float)

    @property
    def is_zero(self) -> bool:
        return self.forward_mps == 0.0 and self.lateral_mps == 0.0 and self.yaw_rate_radps == 0.0


def command_limits(limits: StepLimits, gait: GaitSettings) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) (3,) of the command a gait can walk within the step limits [m/s, m/s, rad/s]:
    ``command_share`` times one step's reach along each axis over the shortest period ``T``
    (``gait.shortest_step_s``): forward ``max_forward_m / T`` (backward ``max_backward_m / T``),
    lateral ``D_max / (2 T)`` (a stride of two steps carries ``D = 2 vy T``; the leading foot
    lands ``D`` wider than the closed stance of
    [`FootstepPlanner.lateral_width`][wbc_layer.walking.FootstepPlanner.lateral_width], within its
    reach ``r`` of the nominal width ``w``: ``D_max = min(2 r, r + w - W_min)``, ``W_min`` the
    narrowest closed stance), yaw ``max_yaw_step_rad / T``. A command using two axes at once may
    still ask for a step the reachable region clips (flagged)."""
    reach = gait.command_share * _step_reach(limits, gait) / gait.shortest_step_s
    return -reach[1], reach[0]


def _step_reach(limits: StepLimits, gait: GaitSettings) -> np.ndarray:
    """(2, 3): per command axis (forward, lateral, yaw) how far one step may carry it, backward
    and lateral-right / clockwise (row 0, positive numbers) and forward, left, counter-clockwise
    (row 1) [m, m, rad]; a step of period ``T`` walks ``reach / T``."""
    r, w = limits.max_outward_m, limits.nominal_width_m
    lateral = 0.5 * min(2.0 * r, r + w - _narrowest_stance(limits))  # D_max / 2 per step
    return np.array([[limits.max_backward_m, lateral, gait.max_yaw_step_rad], [limits.max_forward_m, lateral, gait.max_yaw_step_rad]])


#: Walking sideways, the closed stance stays this much wider than the step limits' minimum width [m].
CLOSED_STANCE_GAP_M = 0.01


def _narrowest_stance(limits: StepLimits) -> float:
    """The narrowest closed stance while walking sideways [m]: ``min_width_m`` plus
    ``CLOSED_STANCE_GAP_M``, at most the nominal width."""
    return min(limits.nominal_width_m, limits.min_width_m + CLOSED_STANCE_GAP_M)


@dataclass
class Footstep:
    """One planned step: ``foot`` swings and lands with its sole centre at ``position`` (2,)
    world [m] and yaw ``yaw`` [rad]; it lifts off at ``t_lift`` and should touch down at
    ``t_touch`` [s]; ``clipped``: the placement was clipped into the reachable region;
    ``closing``: the step that brings the feet side by side before standing."""

    foot: str
    position: np.ndarray
    yaw: float
    t_lift: float
    t_touch: float
    clipped: bool = False
    closing: bool = False


class FootstepPlanner:
    """Where each step lands, from the command and the stance sole (see the module docstring).

    Args:
        limits: the robot's step limits.
        gait: the gait's timing.
    """

    def __init__(self, limits: StepLimits, gait: GaitSettings):
        self.limits, self.gait = limits, gait
        self.regions = {foot: reachable_region(limits, foot.split("_")[0]) for foot in FEET}
        self._region_edges = {foot: _edges(region) for foot, region in self.regions.items()}
        self.low, self.high = command_limits(limits, gait)
        self._reach = gait.command_share * _step_reach(limits, gait)
        self._timings: dict[WalkCommand, tuple[float, float]] = {}
        self._relative: dict[tuple, tuple[np.ndarray, float, bool]] = {}

    def step_timing(self, command: WalkCommand) -> tuple[float, float]:
        """(single support, double support) [s] of the steps that walk ``command``: the nominal
        ones, unless at the nominal period ``T0`` a step would carry more than ``command_share``
        of its reach (``need > 1``, ``need = max(hypot(r_x, r_y), r_yaw)`` with
        ``r_i = |c_i| T0 / (share reach_i)``: forward and sideways together, since the reachable
        region is a disk, and the turn on its own); then both shortened in proportion to
        ``T = max(T0 / need, fastest_step_s)``, so that the steps stay within that share (a
        cadence that rises with the speed, as people's does, instead of steps longer than the
        legs allow)."""
        timing = self._timings.get(command)
        if timing is None:
            if len(self._timings) > 64:  # a policy's commands are many; keep the cache small
                self._timings.clear()
            timing = self._timings[command] = self._step_timing(command)
        return timing

    def _step_timing(self, command: WalkCommand) -> tuple[float, float]:
        g = self.gait
        c = command.as_array()
        reach = np.where(c < 0.0, self._reach[0], self._reach[1])
        forward, lateral, yaw = np.abs(c) * g.step_s / reach
        need = max(math.hypot(forward, lateral), yaw)  # a step moves forward and sideways at once: within a disk of reach
        if need <= 1.0 or g.fastest_step_s is None:
            return g.single_support_s, g.double_support_s
        scale = max(1.0 / need, g.fastest_step_s / g.step_s)
        return g.single_support_s * scale, g.double_support_s * scale

    def clip_command(self, command: WalkCommand) -> tuple[WalkCommand, bool]:
        """The command within ``command_limits``, and whether it had to be clipped: each axis
        within its limits, then forward and sideways together within the ellipse of those
        limits (both scaled down by the same factor: a step's reach is a disk, so the two
        limits cannot be walked at once)."""
        raw = command.as_array()
        clipped = np.clip(raw, self.low, self.high)
        limits = np.where(clipped[:2] < 0.0, -self.low[:2], self.high[:2])
        planar = math.hypot(*(clipped[:2] / limits))
        if planar > 1.0:
            clipped[:2] /= planar
        return WalkCommand(*map(float, clipped)), bool(np.any(clipped != raw))

    def lateral_width(self, foot: str, command: WalkCommand) -> float:
        """The stance width [m] ``foot`` lands at (from the stance sole's centre, towards its own
        side) for ``command``'s lateral speed: a stride of two steps carries ``D = 2 vy T``, so the
        width alternates between ``W_closed`` (after the trailing foot's step) and ``W_closed + D``
        (after the leading foot's), with ``W_closed = max(w - D / 2, w_min)``: centred on the
        nominal width ``w`` where the stance may narrow that far, else as narrow as
        ``min_width_m`` plus ``CLOSED_STANCE_GAP_M`` allows (``w`` at no lateral command). The
        narrower closed stance (the old rule kept ``W_closed = w``) shortens the CoM's sway
        between the feet: the G1 (CoP half width 2.2 cm) fell walking 0.1 m/s sideways with
        ``w``, and walks 0.2 m/s with this (``results/walking/README.md``)."""
        sign = 1.0 if foot == FEET[0] else -1.0
        stride = 2.0 * abs(command.lateral_mps) * sum(self.step_timing(command))
        w = self.limits.nominal_width_m
        closed = max(w - 0.5 * stride, _narrowest_stance(self.limits))
        leading = command.lateral_mps * sign > 0.0
        return closed + stride if leading else closed

    def place(self, foot: str, stance_xy: ArrayLike, stance_yaw: float, command: WalkCommand,
              closing: bool = False, offset_m: ArrayLike | None = None) -> tuple[np.ndarray, float, bool]:  # fmt: skip
        """(position (2,) [m], yaw [rad], clipped) of ``foot``'s landing beside the stance sole at
        ``stance_xy`` (2,), ``stance_yaw``, for ``command`` (already within the limits), moved by
        ``offset_m`` (2,) [m] in the stance sole's axes (a policy's correction; not for the
        closing step); ``closing``: side by side with the stance sole at the nominal width."""
        key = (foot, command, closing, None if offset_m is None or closing else tuple(np.asarray(offset_m, dtype=float).tolist()))
        relative = self._relative.get(key)
        if relative is None:
            if len(self._relative) > 64:  # (as step_timing's cache)
                self._relative.clear()
            relative = self._relative[key] = self._relative_landing(foot, command, closing, offset_m)
        inside, turn, clipped = relative
        position = np.asarray(stance_xy, dtype=float) + _rotation(stance_yaw) @ inside
        return position, float(stance_yaw + turn), clipped

    def _relative_landing(self, foot: str, command: WalkCommand, closing: bool, offset_m: ArrayLike | None) -> tuple[np.ndarray, float, bool]:
        """`place`'s landing in the stance sole's axes (2,) [m], its turn [rad] and whether it was clipped."""
        sign = 1.0 if foot == FEET[0] else -1.0
        T = sum(self.step_timing(command))
        if closing:
            offset, turn = np.array([0.0, sign * self.limits.nominal_width_m]), 0.0
        else:
            most = self.gait.max_yaw_step_rad
            turn = min(max(command.yaw_rate_radps * T, -most), most)
            offset = _rotation(0.5 * turn) @ np.array([command.forward_mps * T, sign * self.lateral_width(foot, command)])
            if offset_m is not None:
                offset = offset + np.asarray(offset_m, dtype=float)
        region = self.regions[foot]
        inside = project_to_polygon(offset, region, self._region_edges[foot])
        clipped = bool(np.linalg.norm(inside - offset) > 1e-9)
        inside.flags.writeable = False  # (shared by every landing of this key)
        return inside, turn, clipped


def jerk_model(sample_s: float, zeta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The discretised CPPMJ model of one axis: ``A`` (3, 3), ``B`` (3,) of ``x+ = A x + B j``
    (``x = (c, c', c'')``, the jerk ``j`` held over ``sample_s`` [s]) and ``D`` (3,) of the CoP
    ``z = D x`` (``zeta = h / g`` [s^2])."""
    T = float(sample_s)
    A = np.array([[1.0, T, T * T / 2.0], [0.0, 1.0, T], [0.0, 0.0, 1.0]])
    B = np.array([T**3 / 6.0, T * T / 2.0, T])
    D = np.array([1.0, 0.0, -float(zeta)])
    return A, B, D


def _mean_angle(angles: np.ndarray) -> float:
    """The mean direction of ``angles`` [rad]."""
    return float(math.atan2(np.sin(angles).sum(), np.cos(angles).sum()))


def _advance(state: np.ndarray, jerk: np.ndarray, tau: float) -> np.ndarray:
    """States (3, n) of ``n`` axes after ``tau`` [s] of constant ``jerk`` (n,).

    Axis by axis in Python floats (every tick: numpy's per-call overhead on (2,) arrays cost more
    than the arithmetic), the operations and their order those of the array form
    ``c + tau * v + tau * tau / 2.0 * a + tau**3 / 6.0 * jerk``: the same bits."""
    half_tau2, sixth_tau3 = tau * tau / 2.0, tau**3 / 6.0
    out = np.empty((3, len(jerk)))
    for j, (c, v, a, u) in enumerate(zip(*state.tolist(), jerk.tolist(), strict=True)):
        out[0, j] = c + tau * v + half_tau2 * a + sixth_tau3 * u
        out[1, j] = v + tau * a + half_tau2 * u
        out[2, j] = a + tau * u
    return out


_OTHER_FOOT = {FEET[0]: FEET[1], FEET[1]: FEET[0]}


@dataclass
class CoMPlan:
    """A solved plan: the state (3, 2) (rows c, c', c''; columns x, y) at ``t0`` [s], the jerk
    (horizon, 2) of each sample, the sample ``sample_s`` [s], the planned CoPs (horizon, 2) at
    samples 1..N [m] and the solve's ``status`` (``"solved"`` or ``"unconstrained"``)."""

    t0: float
    state: np.ndarray
    jerk: np.ndarray
    sample_s: float
    cop: np.ndarray
    status: str
    #: the MPC's objective at the solution (inf where unconstrained).
    cost: float = math.inf
    #: the states at samples 0, 1, ... reached so far (made once, as `evaluate` first needs them).
    _sample_states: list = field(default_factory=list, init=False, repr=False, compare=False)

    def evaluate(self, time: float) -> np.ndarray:
        """(3, 2): CoM position, velocity, acceleration (x, y) at ``time`` [s] (held at the last
        sample's jerk past the horizon): the state advanced sample by sample, then to ``time``."""
        tau = max(float(time) - self.t0, 0.0)
        k = min(int(tau / self.sample_s), len(self.jerk) - 1)
        states = self._sample_states
        if not states:
            states.append(self.state)
        while len(states) <= k:
            states.append(_advance(states[-1], self.jerk[len(states) - 1], self.sample_s))
        return _advance(states[k], self.jerk[k], tau - k * self.sample_s)


class CoMPlanner:
    """The linear MPC of the module docstring over ``gait.horizon`` samples of ``gait.sample_s``.

    The prediction matrices are derived here; `plan` hands them, the weights and each problem's
    footholds and supports to the compiled core, which assembles the QP and solves it
    (``core/walking_mpc.cpp``). Raises [`ConfigError`][wbc_layer.errors.ConfigError] if the core
    is not built.

    Args:
        com_height_m: the CoM's height above the soles the model takes [m].
        gait: the gait settings (sample, horizon, jerk weight).
        gravity: [m/s^2].
    """

    def __init__(self, com_height_m: float, gait: GaitSettings, gravity: float = GRAVITY):
        try:
            from wbc_layer import _core  # noqa: PLC0415 (the compiled core assembles and solves the MPC)
        except ImportError as err:
            raise ConfigError(f"the walking MPC lives in the compiled core, which is not built ({err})") from err

        self.gait = gait
        self.zeta = _positive(com_height_m, "com_height_m") / _positive(gravity, "gravity")
        N, T = gait.horizon, gait.sample_s
        A, B, D = jerk_model(T, self.zeta)
        #: z_k = Pzs[k] x0 + Pzu[k] j, samples k = 1..N.
        self.Pzs = np.empty((N, 3))
        self.Pzu = np.zeros((N, N))
        #: c'_k = Pvs[k] x0 + Pvu[k] j, samples k = 1..N.
        self.Pvs = np.empty((N, 3))
        self.Pvu = np.zeros((N, N))
        V = np.array([0.0, 1.0, 0.0])
        power = np.eye(3)
        impulse = [B]
        for k in range(N):
            power = A @ power
            self.Pzs[k] = D @ power
            self.Pvs[k] = V @ power
            for i in range(k + 1):
                self.Pzu[k, i] = D @ impulse[k - i]
                self.Pvu[k, i] = V @ impulse[k - i]
            impulse.append(A @ impulse[-1])
        free_a, margin = gait.free_acceleration_weight, gait.initial_cop_margin_m
        self._mpc = _core.WalkingMpc(
            self.Pzs, self.Pzu, self.Pvs, self.Pvu, self.zeta, gait.jerk_weight,
            1.0 if gait.footstep_weight is None else gait.footstep_weight, gait.velocity_weight,  # (None: no variable hold to weigh)
            -1.0 if free_a is None else free_a, -1.0 if margin is None else margin,
        )  # fmt: skip
        self._edges_of: dict[int, tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]] = {}

    def plan(self, t0: float, state: np.ndarray, holds: list[Foothold], samples: list[tuple[AffinePoint, float, tuple[int, int] | None]],
             reach: list[tuple[int, int, np.ndarray]], cop_half_sizes: tuple[float, float],
             velocity_ref: np.ndarray | None = None, initial_support: tuple | None = None) -> CoMPlan:  # fmt: skip
        """Solve from ``state`` (3, 2) at ``t0`` [s].

        Args:
            holds: the footholds; a ``variable`` one's position is a decision variable (its
                ``position`` the reference it is drawn to), the others are fixed.
            samples: per sample 1..N, the CoP reference (an affine function of the holds), the yaw
                [rad] of the box around it and the two holds of a double support (None in single
                support): the CoP stays in the hull of two fixed soles, else in the box; and
                optionally a fourth entry, (2,) [m]: the cost's reference lies that far from the
                box's centre (``cop_inset_share``; the constraint does not move).
            reach: (hold, parent hold, polygon (k, 2) in the parent's axes) for each variable
                hold: where it may land relative to the hold it is stepped from.
            cop_half_sizes: the CoP box's half sizes (length, width) [m].
            velocity_ref: (N, 2) the CoM velocity the command asks for at samples 1..N [m/s]
                (with ``velocity_weight``).
            initial_support: the support at ``t0`` (a ``samples`` entry), needed with
                ``free_acceleration_weight``: the CoP now is then a decision too (the CoM's
                acceleration now may jump from ``state``'s, at that weight per (m/s^2)^2), kept
                inside that support grown by ``initial_cop_margin_m`` and drawn to its reference
                like the samples'.

        The variable holds' solved positions are written back into ``holds``.
        """
        g = self.gait
        if g.free_acceleration_weight is not None:
            if initial_support is None:
                raise ValueError("free_acceleration_weight needs the support at t0 (initial_support)")
            samples = [initial_support, *samples]
        # The problem as the core's arrays, built from Python lists (one numpy array each).
        constants, terms, weights, yaws, pairs, insets = [], [], [], [], [], []
        for sample in samples:
            centre = sample[0]
            pad = _MAX_TERMS - len(centre.terms)
            if pad < 0:
                raise ValueError(f"a CoP reference weighs at most {_MAX_TERMS} holds, got {len(centre.terms)}")
            constants.append(centre.const)
            terms.append([*centre.terms, *(-1,) * pad])
            weights.append([*centre.terms.values(), *(0.0,) * pad])
            yaws.append(sample[1])
            pairs.append(_NO_PAIR if sample[2] is None else sample[2])
            insets.append(sample[3] if len(sample) > 3 else _NO_OFFSET)
        reach_normals, reach_offsets = [], []
        for _, _, polygon in reach:
            normals, offsets = self._polygon_edges(polygon)
            reach_normals.append(normals)
            reach_offsets.append(offsets)
        status, cost, positions, jerk, cop, state = self._mpc.solve(
            np.ascontiguousarray(state, dtype=float), *cop_half_sizes,
            np.array([hold.position for hold in holds], dtype=float),
            np.array([hold.yaw for hold in holds], dtype=float),
            np.array([hold.variable for hold in holds], dtype=np.int32),
            np.array([-1 if hold.anchor is None else hold.anchor for hold in holds], dtype=np.int32),
            np.array([_NO_OFFSET if hold.offset is None else hold.offset for hold in holds], dtype=float),
            np.array(constants, dtype=float), np.array(terms, dtype=np.int32), np.array(weights, dtype=float),
            np.array(yaws, dtype=float), np.array(pairs, dtype=np.int32), np.array(insets, dtype=float),
            np.array([hold for hold, _, _ in reach], dtype=np.int32),
            np.array([parent for _, parent, _ in reach], dtype=np.int32),
            np.array([len(offsets) for offsets in reach_offsets], dtype=np.int32),
            np.concatenate(reach_normals) if reach else _NO_NORMALS,
            np.concatenate(reach_offsets) if reach else _NO_OFFSETS,
            _NO_VELOCITY if velocity_ref is None else np.ascontiguousarray(velocity_ref, dtype=float),
        )  # fmt: skip
        for hold, position in zip(holds, positions, strict=True):
            if hold.variable or hold.anchor is not None:
                hold.position = position
        return CoMPlan(float(t0), state, jerk, g.sample_s, cop, status, cost)

    def _polygon_edges(self, polygon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``_edges(polygon)``, kept for the polygons seen before (the reach regions: the same
        arrays at every re-plan)."""
        cached = self._edges_of.get(id(polygon))
        if cached is None or cached[0] is not polygon:
            if len(self._edges_of) > 16:
                self._edges_of.clear()
            cached = self._edges_of[id(polygon)] = (polygon, _edges(polygon))
        return cached[1]


@dataclass
class Foothold:
    """A sole's place in the MPC: ``position`` (2,) [m] (a variable one's reference), ``yaw``
    [rad], whether the MPC may move it (``variable``), or the variable hold it moves with
    (``anchor``, at ``offset`` (2,) [m] from it: the steps after the next keep their places
    relative to it)."""

    position: np.ndarray
    yaw: float
    variable: bool
    anchor: int | None = None
    offset: np.ndarray | None = None


@dataclass
class AffinePoint:
    """A point (2,) [m] as ``sum(weight * holds[i].position) + const``: a CoP box's centre."""

    terms: dict[int, float]
    const: np.ndarray

    @staticmethod
    def hold(index: int) -> AffinePoint:
        return AffinePoint({index: 1.0}, np.zeros(2))

    def blend(self, other: AffinePoint, share: float) -> AffinePoint:
        """``(1 - share) self + share other``."""
        terms = {i: (1.0 - share) * w for i, w in self.terms.items()}
        for i, w in other.terms.items():
            terms[i] = terms.get(i, 0.0) + share * w
        return AffinePoint(terms, (1.0 - share) * self.const + share * other.const)

    def value(self, holds: list[Foothold]) -> np.ndarray:
        point = self.const.copy()
        for i, w in self.terms.items():
            point += w * holds[i].position
        return point


@dataclass
class WalkingOutputs:
    """What the generator asks of the controller this tick: ``walking`` (False: standing, the
    caller's own references apply), the CoM reference ``com`` (3, 2) (rows position, velocity,
    acceleration; columns x, y) [m, m/s, m/s^2], the plan's CoP now ``cop`` (2,) [m]
    (``c - zeta c''``; the rest point when standing), and per foot
    its [`SwingFoot`][wbc_layer.stepping.SwingFoot] (a step under way, loading included) or None
    (a supporting foot with its own bounds)."""

    walking: bool
    com: np.ndarray
    cop: np.ndarray
    swings: dict[str, SwingFoot | None] = field(default_factory=dict)


#: The generator stops walking once the plan's CoM is this close to its rest point [m] and this slow [m/s].
SETTLED_M, SETTLED_MPS = 5e-3, 2e-2


class WalkingGenerator:
    """Footsteps and the CoM reference from a velocity command (see the module docstring).

    Args:
        limits: the robot's step limits.
        cop_half_sizes: (half length, half width) [m] of each sole's CoP rectangle.
        com_height_m: the CoM's height above the soles [m] (the model's ``h``).
        gait: the gait settings.
        max_normal_force_n: a landed foot's force bound at the end of its loading ramp [N].

    Call [`reset`][wbc_layer.walking.WalkingGenerator.reset] at the start, then
    [`update`][wbc_layer.walking.WalkingGenerator.update] every tick;
    [`set_command`][wbc_layer.walking.WalkingGenerator.set_command] at any time.
    """

    def __init__(self, limits: StepLimits, cop_half_sizes: tuple[float, float], com_height_m: float,
                 gait: GaitSettings | None = None, max_normal_force_n: float = 1e4):  # fmt: skip
        self.gait = gait or GaitSettings()
        self.limits = limits
        self.footsteps = FootstepPlanner(limits, self.gait)
        fastest_swing = self.gait.single_support_s * self.gait.shortest_step_s / self.gait.step_s
        if fastest_swing < limits.min_swing_time_s - _TOLERANCE_S:
            raise ValueError(f"the gait's fastest swing ({fastest_swing:.4g} s, single_support_s at fastest_step_s) is shorter than "
                             f"the robot's min_swing_time_s ({limits.min_swing_time_s:.4g} s)")  # fmt: skip
        self.planner = CoMPlanner(com_height_m, self.gait)
        half_length, half_width = (_positive(s, "cop half size") for s in cop_half_sizes)
        margin = self.gait.cop_margin_m
        if margin >= min(half_length, half_width):
            raise ValueError(f"GaitSettings.cop_margin_m ({margin} m) must be below the CoP rectangle's half sizes {cop_half_sizes}")
        self.cop_half_sizes = (half_length - margin, half_width - margin)
        self.max_normal_force_n = _positive(max_normal_force_n, "max_normal_force_n")
        self.command = WalkCommand()
        self.command_clipped = False
        #: (single, double) support [s] of the steps walking the command (``FootstepPlanner.step_timing``).
        self.timing = (self.gait.single_support_s, self.gait.double_support_s)
        self.reset(0.0, np.array([[0.0, 0.5 * limits.nominal_width_m, 0.0], [0.0, -0.5 * limits.nominal_width_m, 0.0]]), np.zeros(2))

    # -- state ------------------------------------------------------------------------------
    def reset(self, time: float, feet_position: ArrayLike, feet_yaw: ArrayLike, rest_offset: ArrayLike = (0.0, 0.0)) -> None:
        """Stand at ``time`` [s] on the soles at ``feet_position`` (2, 3) (left, right; world) [m]
        with ``feet_yaw`` (2,) [rad]; at rest the CoM stands over the soles' midpoint plus
        ``rest_offset`` (2,) [m] (the robot's standing CoM), where walking starts from and ends."""
        feet = np.array(feet_position, dtype=float).reshape(2, 3)
        self.feet_xy, self.feet_z = feet[:, :2].copy(), feet[:, 2].copy()
        self.feet_yaw = np.array(feet_yaw, dtype=float).reshape(2)
        #: (2,) each sole's yaw as its last step planned it (the measured one at reset) [rad].
        self.planned_yaw = self.feet_yaw.copy()
        self.rest_offset = np.array(rest_offset, dtype=float).reshape(2)
        #: (2,) every new step's offset from the planner's place, stance sole's axes [m] (a policy's action).
        self.step_offset = np.zeros(2)
        self.steps: list[Footstep] = []  # planned, not yet started
        self.swings: dict[str, SwingFoot | None] = dict.fromkeys(FEET)
        self.current: Footstep | None = None  # the step whose foot is unloading or swinging
        self.previous: Footstep | None = None  # the last step that landed while walking
        self.walking = False
        self.plan: CoMPlan | None = None
        self._last_plan_time = -math.inf
        self._start_time = float(time)
        self._time = float(time)
        self.steps_taken = 0
        self.clipped_steps = 0
        self.delayed_s = 0.0
        self._retimed = False  # the timing changed: the next step keeps a whole unloading ramp
        self._hold_s = 0.0  # the next lift-off's delay from its schedule [s] (lift_off_holds_s)
        #: each landing's kind ("early", "planned", "late"), in order.
        self.touch_downs: list[str] = []
        self.events: list[str] = []

    def set_command(self, command: WalkCommand) -> WalkCommand:
        """Take a new command (clipped to the limits: ``command_clipped`` says so); returns what is walked."""
        if not isinstance(command, WalkCommand):
            raise ValueError(f"command must be a WalkCommand, got {type(command).__name__}")
        self.command, self.command_clipped = self.footsteps.clip_command(command)
        timing = self.footsteps.step_timing(self.command)
        if timing != self.timing:  # the next step may now be due sooner than its unloading takes
            self.timing, self._retimed = timing, True
        return self.command

    @property
    def phase(self) -> str:
        """``"standing"``, ``"double_support"`` or ``"single_support"``."""
        if not self.walking:
            return "standing"
        swing = None if self.current is None else self.swings[self.current.foot]
        return "single_support" if swing is not None and swing.phase == SWING else "double_support"

    def rest_point(self) -> np.ndarray:
        """(2,) where the CoM rests over the feet now [m]."""
        return self.feet_xy.mean(axis=0) + _rotation(float(np.mean(self.feet_yaw))) @ self.rest_offset

    # -- the schedule -------------------------------------------------------------------------
    def _stance_of(self, foot: str, planned: list[Footstep]) -> tuple[np.ndarray, float]:
        """Where ``foot`` stands after the steps ``planned`` (its last landing there, or now: the
        measured place, and the yaw its last step planned, so that a sole that lands short of its
        yaw does not shorten every later turn)."""
        for step in reversed(planned):
            if step.foot == foot:
                return step.position, step.yaw
        i = FEET.index(foot)
        return self.feet_xy[i], float(self.planned_yaw[i])

    def _first_foot(self) -> str:
        c = self.command
        if c.lateral_mps != 0.0:
            return FEET[0] if c.lateral_mps > 0.0 else FEET[1]
        if c.yaw_rate_radps != 0.0:
            return FEET[0] if c.yaw_rate_radps > 0.0 else FEET[1]
        return FEET[0]

    def _next_lift(self) -> float:
        """The lift-off time of the next step to be decided [s]."""
        last = self.current or self.previous
        if last is None:
            return self._start_time + self.gait.start_s + self._hold_s
        return last.t_touch + self.timing[1] + self._hold_s

    def _replan_steps(self, time: float) -> None:
        """The steps not yet started, from the command: enough to cover the MPC's horizon (or
        the closing step, or none)."""
        g = self.gait
        single, double = self.timing
        fixed = [self.current] if self.current is not None else []
        last = self.current or self.previous
        if self.command.is_zero:
            self.steps = []
            if not self.walking or (last is not None and last.closing) or last is None:
                return  # standing, or the stance already closed (or closing)
            foot = _OTHER_FOOT[last.foot]
            t_lift = self._next_lift()
            stance_xy, stance_yaw = self._stance_of(last.foot, fixed)
            position, yaw, clipped = self.footsteps.place(foot, stance_xy, stance_yaw, self.command, closing=True)
            self.steps = [Footstep(foot, position, yaw, t_lift, t_lift + single, clipped, closing=True)]
            return
        if not self.walking:
            self.walking, self._start_time, self.previous = True, time, None
            self.events.append("started")
        steps: list[Footstep] = []
        foot = self._first_foot() if last is None else _OTHER_FOOT[last.foot]
        t_lift = self._next_lift()
        if self._retimed:  # a shorter double support after a command change: not less than the unloading from now
            t_lift = max(t_lift, time + g.unload_s)
        horizon_end = time + g.horizon * g.sample_s
        while t_lift < horizon_end + single + double:
            stance_xy, stance_yaw = self._stance_of(_OTHER_FOOT[foot], fixed + steps)
            position, yaw, clipped = self.footsteps.place(foot, stance_xy, stance_yaw, self.command, offset_m=self.step_offset)
            steps.append(Footstep(foot, position, yaw, t_lift, t_lift + single, clipped))
            foot, t_lift = _OTHER_FOOT[foot], t_lift + single + double
        self.steps = steps

    def _holds(self) -> tuple[list[Foothold], list[Footstep | None], list[tuple[int, int, np.ndarray]]]:
        """The MPC's footholds: 0, 1 the feet where they stand now (left, right), then each step's
        landing (the one under way first: variable while its swing may still be retargeted; the
        planned ones variable); the step of each hold (None for the first two); the reach rows."""
        holds = [Foothold(self.feet_xy[i].copy(), float(self.feet_yaw[i]), False) for i in range(2)]
        owners: list[Footstep | None] = [None, None]
        reach = []
        latest = {FEET[0]: 0, FEET[1]: 1}
        schedule = ([self.current] if self.current is not None else []) + self.steps
        anchor = None
        for step in schedule:
            parent = latest[_OTHER_FOOT[step.foot]]
            if anchor is not None:  # after the next landing: moves with it
                offset = step.position - holds[anchor].position
                holds.append(Foothold(step.position.copy(), step.yaw, False, anchor, offset))
            else:
                swing = self.swings[step.foot] if step is self.current else None
                variable = self.gait.footstep_weight is not None and (swing is None or swing.phase == UNLOADING or (
                    swing.phase == SWING and swing.progress(self._time) <= swing.settings.retarget_until))
                holds.append(Foothold(step.position.copy(), step.yaw, variable))
                if variable:
                    anchor = len(holds) - 1
                    reach.append((anchor, parent, self.footsteps.regions[step.foot]))
            owners.append(step)
            latest[step.foot] = len(holds) - 1
        return holds, owners, reach

    def _rest(self, left: int, right: int, holds: list[Foothold]) -> AffinePoint:
        yaw = _mean_angle(np.array([holds[left].yaw, holds[right].yaw]))
        return AffinePoint({left: 0.5, right: 0.5}, _rotation(yaw) @ self.rest_offset)

    def _schedule(self, times: list[float], holds: list[Foothold], owners: list) -> list[tuple[AffinePoint, float, tuple[int, int] | None]]:
        """Per time [s] (rising): the CoP reference (an affine point of the holds), the yaw of its box and,
        in double support, the two holds on the ground (None in single support): the stance
        sole in single support; in double support moving from the last stance sole (or the rest
        point) to the next; after the last step to the rest point over the closed stance. With
        ``cop_inset_share`` each entry has a fourth, the cost's reference's offset (2,) [m] from
        that point: toward the other foot in a stance sole, blended as the point is."""
        out = []
        inset = self.gait.cop_inset_share * self.cop_half_sizes[1]

        offsets: dict[int, np.ndarray] = {}

        def toward_middle(index: int) -> np.ndarray:
            """The CoP reference's offset from the centre of sole ``index`` toward the other foot [m]
            (each hold's made once per call)."""
            offset = offsets.get(index)
            if offset is None:
                foot = FEET[index] if index < 2 else owners[index].foot
                side = 1.0 if foot == FEET[0] else -1.0
                offset = offsets[index] = _rotation(holds[index].yaw) @ np.array([0.0, -side * inset])
            return offset

        # The times rise, so each one's scan over the steps goes on from where the last one stopped
        # (the steps it passed have landed for the later times too): the same answers.
        latest = {FEET[0]: 0, FEET[1]: 1}
        previous = self.previous
        first = 2
        for t in times:
            found = None
            for index in range(first, len(holds)):
                step = owners[index]
                stance = latest[_OTHER_FOOT[step.foot]]
                if t < step.t_lift:
                    if previous is None:
                        start, t_start = self._rest(latest[FEET[0]], latest[FEET[1]], holds), self._start_time
                    else:
                        start, t_start = AffinePoint.hold(latest[step.foot]), previous.t_touch
                    share = min(max((t - t_start) / max(step.t_lift - t_start, 1e-9), 0.0), 1.0)
                    found = (start.blend(AffinePoint.hold(stance), share), holds[stance].yaw, (latest[step.foot], stance))
                    if inset > 0.0:
                        before = 0.0 if previous is None else (1.0 - share) * toward_middle(latest[step.foot])
                        found = (*found, before + share * toward_middle(stance))
                    break
                if t < step.t_touch:
                    found = (AffinePoint.hold(stance), holds[stance].yaw, None)
                    if inset > 0.0:
                        found = (*found, toward_middle(stance))
                    break
                latest[step.foot] = index
                previous = step
                first = index + 1
            if found is None:
                rest = self._rest(latest[FEET[0]], latest[FEET[1]], holds)
                yaw = _mean_angle(np.array([holds[latest[FEET[0]]].yaw, holds[latest[FEET[1]]].yaw]))
                pair = (latest[FEET[0]], latest[FEET[1]])
                if previous is None:
                    found = (rest, yaw, pair)
                else:
                    last_stance = AffinePoint.hold(latest[_OTHER_FOOT[previous.foot]])
                    share = min(max((t - previous.t_touch) / self.timing[1], 0.0), 1.0)
                    found = (last_stance.blend(rest, share), yaw, pair)
                    if inset > 0.0:
                        found = (*found, (1.0 - share) * toward_middle(latest[_OTHER_FOOT[previous.foot]]))
            out.append(found)
        return out

    # -- one tick ---------------------------------------------------------------------------------
    def measurements_needed(self, time: float) -> bool:
        """Whether [`update`][wbc_layer.walking.WalkingGenerator.update] at ``time`` [s] reads its
        measurements (the CoM, the soles, the normal forces): standing, at a re-plan, when a step
        is due to start, while a stop may settle, and while a swing could land (from
        ``earliest_touch_down`` of it on). Between those ticks it reads none of them (it keeps the
        supporting soles' last places until the next tick that does), so a caller may hand it the
        last measurements again instead of measuring (the env's walking stage does: the same
        trajectory, bit for bit)."""
        t = float(time)
        if self._measures_besides_landing(t):
            return True
        for swing in self.swings.values():
            if swing is not None and swing.phase in (UNLOADING, SWING) and swing.progress(t) >= swing.settings.earliest_touch_down:
                return True
        return False

    def _measures_besides_landing(self, t: float) -> bool:
        """`measurements_needed` at ``t`` [s] for a reason other than a swing that may land."""
        if not self.walking or self.plan is None or t - self._last_plan_time >= self.gait.replan_s - _TOLERANCE_S:
            return True
        if self.steps and t >= self.steps[0].t_lift - self.gait.unload_s - _TOLERANCE_S:
            return True
        return self.command.is_zero and self.current is None and not self.steps

    def landing_only(self, time: float) -> SwingFoot | None:
        """The step under way where [`measurements_needed`][wbc_layer.walking.WalkingGenerator.measurements_needed]
        at ``time`` [s] holds only because its swing may land then: it is the only step under
        way, lifted, at least ``earliest_touch_down`` of its swing passed, and nothing else is due
        (no re-plan, no step to start, no stop to settle). There `update`'s measurements matter
        only through that foot's normal force: unless it reaches ``touch_down_force_n`` the foot
        does not land, and the tick's outputs and the generator's state after it are those of a
        force of zero (the other measurements are kept until the next tick that needs them,
        which reads them anew). None otherwise."""
        t = float(time)
        if self._measures_besides_landing(t):
            return None
        under_way = [swing for swing in self.swings.values() if swing is not None]
        if len(under_way) != 1:
            return None
        swing = under_way[0]
        if swing.phase != SWING or swing.progress(t) < swing.settings.earliest_touch_down:
            return None
        return swing

    def checkpoint(self) -> tuple:
        """What `update` changes at ticks where only a landing is measured and none happens
        (`landing_only`): its time and events, the swing's outputs and ``missed``; `rewind` goes back to it."""
        (swing,) = [swing for swing in self.swings.values() if swing is not None]
        outputs = (swing.position.copy(), swing.velocity.copy(), swing.acceleration.copy(), swing.rotation, swing.missed)
        return self._time, self.events, swing, outputs

    def rewind(self, checkpoint: tuple) -> None:
        """Back to the `checkpoint` (taken before ticks where only a landing was measured and none happened)."""
        self._time, self.events, swing, (position, velocity, acceleration, rotation, missed) = checkpoint
        swing.position[:], swing.velocity[:], swing.acceleration[:] = position, velocity, acceleration
        swing.rotation, swing.missed = rotation, missed

    def update(self, time: float, com: ArrayLike, com_velocity: ArrayLike, feet_position: ArrayLike, feet_yaw: ArrayLike,
               normal_forces_n: ArrayLike) -> WalkingOutputs:  # fmt: skip
        """Advance to ``time`` [s] with the measured CoM ``com``, ``com_velocity`` ((2,) or (3,):
        x, y used) [m, m/s], the soles ``feet_position`` (2, 3) [m], ``feet_yaw`` (2,) [rad] and
        the feet's normal forces (2,) [N]. ``events`` says what happened this tick
        (``"started"``, ``"decided"``, ``"lift_off"``, ``"touch_down"``, ``"stopped"``,
        ``"delayed"``, ``"held"``, ``"replanned"``)."""
        self.events = []
        self._time = t = float(time)
        forces = np.asarray(normal_forces_n, dtype=float)
        feet = np.asarray(feet_position, dtype=float).reshape(2, 3)
        yaws = np.asarray(feet_yaw, dtype=float).reshape(2)
        self._advance_swings(t, forces)
        for i, foot in enumerate(FEET):  # a supporting foot stands where it is measured
            if self.swings[foot] is None or self.swings[foot].phase in (LOADING, DONE):
                self.feet_xy[i], self.feet_z[i], self.feet_yaw[i] = feet[i, :2], feet[i, 2], yaws[i]
        if not self.walking and self.command.is_zero:
            self.plan = None
            rest = self.rest_point()
            state = np.zeros((3, 2))
            state[0] = rest
            return WalkingOutputs(False, state, rest, dict(self.swings))
        if self.plan is None or t - self._last_plan_time >= self.gait.replan_s - _TOLERANCE_S:
            self._replan_steps(t)
            self._start_steps(t, forces, com, com_velocity)
            self._replan(t, com, com_velocity)
        else:
            self._start_steps(t, forces, com, com_velocity)
        state = self.plan.evaluate(t)
        if self.command.is_zero and self.current is None and not self.steps and self._settled(state):
            self.walking, self.previous, self.plan = False, None, None
            self.events.append("stopped")
        return WalkingOutputs(self.walking, state, state[0] - self.planner.zeta * state[2], dict(self.swings))

    def _settled(self, state: np.ndarray) -> bool:
        """The stance closed and the plan's CoM at rest over it."""
        return bool(np.linalg.norm(state[0] - self.rest_point()) < SETTLED_M and np.linalg.norm(state[1]) < SETTLED_MPS)

    def _solve(self, t: float, com, com_velocity) -> tuple[CoMPlan, list[Foothold], list]:
        """The MPC from the measured CoM at ``t`` [s] over the steps planned now: the plan, its
        footholds (the variable ones solved) and each hold's step."""
        g = self.gait
        state = np.zeros((3, 2))
        state[0] = np.asarray(com, dtype=float)[:2]
        state[1] = np.asarray(com_velocity, dtype=float)[:2]
        if self.plan is not None:
            state[2] = self.plan.evaluate(t)[2]
        holds, owners, reach = self._holds()
        times = [t + (k + 1) * g.sample_s for k in range(g.horizon)]
        initial = None
        if g.free_acceleration_weight is not None:
            initial, *samples = self._schedule([t, *times], holds, owners)
        else:
            samples = self._schedule(times, holds, owners)
        plan = self.planner.plan(t, state, holds, samples, reach, self.cop_half_sizes, self._velocity_ref(t), initial)
        return plan, holds, owners

    def _replan(self, t: float, com, com_velocity) -> None:
        self.plan, holds, owners = self._solve(t, com, com_velocity)
        for hold, step in zip(holds[2:], owners[2:], strict=True):
            step.position = hold.position
        if self.current is not None and holds[2].variable:
            swing = self.swings[self.current.foot]
            swing.retarget(self.current.position, t)
        self._last_plan_time = t
        self.events.append("replanned")

    def _velocity_ref(self, t: float) -> np.ndarray:
        """(N, 2) the commanded CoM velocity at samples 1..N [m/s], world axes: the command turned
        by the heading (the feet's mean yaw, turning at the command's yaw rate)."""
        g, c = self.gait, self.command
        angles = _mean_angle(self.feet_yaw) + c.yaw_rate_radps * (np.arange(g.horizon) + 1.0) * g.sample_s
        cos, sin = np.cos(angles), np.sin(angles)
        return np.column_stack([cos * c.forward_mps - sin * c.lateral_mps, sin * c.forward_mps + cos * c.lateral_mps])

    def _advance_swings(self, t: float, forces: np.ndarray) -> None:
        for i, foot in enumerate(FEET):
            swing = self.swings[foot]
            if swing is None:
                continue
            before = swing.phase
            swing.update(t, float(forces[i]))
            if before == UNLOADING and swing.phase == SWING:
                self.events.append("lift_off")
            if before == SWING and swing.phase in (LOADING, DONE):
                self.events.append("touch_down")
                self.touch_downs.append(swing.touch_down)
                if self.current is not None and self.current.foot == foot:
                    self.planned_yaw[i] = self.current.yaw
                    self.previous, self.current = self.current, None
            if swing.phase == DONE:
                self.swings[foot] = None

    def _start_steps(self, t: float, forces: np.ndarray, com, com_velocity) -> None:
        """Begin unloading the next step's foot ``unload_s`` before its lift-off; a swing not yet
        landed delays it (and every later step) instead."""
        if not self.steps:
            return
        step = self.steps[0]
        start = step.t_lift - self.gait.unload_s
        if t < start - _TOLERANCE_S:
            return
        if self.current is not None:  # the previous swing has not landed: hold the schedule
            delay = t - start
            self.current.t_touch += delay
            for later in self.steps:
                later.t_lift += delay
                later.t_touch += delay
            self.delayed_s += delay
            self.events.append("delayed")
            return
        if self.gait.lift_off_holds_s and self._held(t, com, com_velocity):
            return
        index = FEET.index(step.foot)
        settings = SwingSettings(swing_s=step.t_touch - step.t_lift, height_m=self.gait.swing_height_m,
                                 unload_s=max(step.t_lift - t, 1e-6), load_s=self.gait.load_s)  # fmt: skip
        sole = np.array([*self.feet_xy[index], self.feet_z[index]])
        swing = SwingFoot(step.foot, settings, t, sole, float(self.feet_yaw[index]), step.position, float(forces[index]),
                          self.max_normal_force_n, target_yaw=step.yaw)  # fmt: skip
        swing.update(t, float(forces[index]))
        self.swings[step.foot] = swing
        self.current = step
        self.steps = self.steps[1:]
        self.steps_taken += 1
        self.clipped_steps += step.clipped
        self._retimed = False
        self._hold_s = 0.0
        self.events.append("decided")

    def _held(self, t: float, com, com_velocity) -> bool:
        """Whether the step due now is held back (``lift_off_holds_s``): the MPC from the measured
        CoM with the lift-off on time and with each of the delays; the cheapest delay is taken
        where it costs at most ``hold_cost_ratio`` of on time (the steps after it move with it).
        A hold decided between re-plans leaves the CoM reference on the last plan (made with the
        lift-off on time) until the next re-plan, at most ``replan_s`` later."""
        g = self.gait
        base = self._hold_s
        delays = [0.0, *(d for d in g.lift_off_holds_s if base + d <= g.max_hold_s + _TOLERANCE_S)]
        costs = []
        for delay in delays:
            self._hold_s = base + delay
            self._replan_steps(t)
            costs.append(self._solve(t, com, com_velocity)[0].cost)
            if costs[0] <= g.hold_min_cost:
                break
        best = int(np.argmin(costs))
        held = best > 0 and costs[best] <= g.hold_cost_ratio * costs[0]
        chosen = base + (delays[best] if held else 0.0)
        if self._hold_s != chosen:  # the steps were last built for another delay
            self._hold_s = chosen
            self._replan_steps(t)
        if held:
            self.events.append("held")
        return held
