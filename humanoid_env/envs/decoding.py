"""Reference stages: how the policy's action and the measurements become the controller's references.

In wbc mode, every physics step runs a chain over one [`References`][wbc_layer.references.References]
value (``wbc_layer.references``), then writes it into the controller in one call:

    task command (or a scripted scenario)  ->  decoders  ->  shapers  ->  scenario's shaper
        ->  contact guard  ->  References.write(controller)

A stage is an object with ``reset()`` (a new episode) and
``update(references, context, action, dt)``: ``context`` is the step's
[`StepContext`][humanoid_env.envs.task.StepContext] (plant, sensed state, the task's command), ``action``
the env step's action (None at reset, where ``dt`` is 0). **Decoders** turn the task's action
blocks into references with rate limits and filters (a jumping action cannot jerk the robot);
**shapers** change references from measurements (a hand-force loop, a balance law). The task
lists its stages ([`Task.reference_stages`][humanoid_env.envs.task.Task.reference_stages]); this module holds
the standing one every task shares, [`StandingDecoder`][humanoid_env.envs.decoding.StandingDecoder].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from humanoid_env import _physics
from humanoid_env.envs.numerics import low_pass_gain
from wbc_layer.references import References

_ZERO3 = np.zeros(3)
_ZERO3.flags.writeable = False


class ReferenceStage:
    """Base of the reference stages (see the module docstring)."""

    #: whether `update` reads the simulated state (measurements, the plant's data) at a physics
    #: step. A stage that does not is evaluated ahead for an env step's physics steps by the
    #: compiled loop (``humanoid_env.envs.physics_loop``); True, the safe answer, by default.
    reads_state: bool = True
    #: whether [`reads_state_at`][humanoid_env.envs.decoding.ReferenceStage.reads_state_at] says at
    #: which physics steps `update` reads the state: the compiled loop then evaluates the stage
    #: ahead up to the next step that reads it, runs the physics up to there, and goes on from the
    #: state it reached. False: ``reads_state`` holds at every step.
    says_when_it_reads: bool = False

    def reads_state_at(self, time: float) -> bool:
        """Whether `update` at the physics step at ``time`` [s] (``context.time``) reads the
        simulated state; asked just before that update, after the steps before it. A stage that
        answers False may be handed a context whose plant has not reached ``time`` yet."""
        return self.reads_state

    def reset(self) -> None:
        """Start an episode."""

    def update(self, references: References, context, action: np.ndarray | None, dt: float) -> None:
        """Change ``references`` for one physics step of ``dt`` [s]."""

    def force_targets(self) -> dict[str, float]:
        """Contact name -> the normal-force target [N] this stage decoded (``info``)."""
        return {}


class StandingDecoder(ReferenceStage):
    """The action blocks ``com_offset`` (3) and ``foot_force_share`` (1) -> the CoM reference and the
    feet's normal-force targets.

    Each offset axis maps 0 -> 0 and +-1 -> the bounds ``com_offset_high_m`` / ``com_offset_low_m``
    (piecewise linear: the bounds may be asymmetric); the left foot's share maps 0 -> 0.5 and +-1
    -> the ends of ``force_share_range``. The offset moves towards the decoded one at most
    ``com_rate_limit_mps`` (after a low-pass of ``com_offset_filter_s``), the share at most
    ``force_share_rate_limit``. The CoM reference is the command's CoM target plus the offset
    (``reference_feedforward``) or the nominal CoM plus the offset; the feet's targets are
    ``share m g`` and ``(1 - share) m g`` [N] with weight ``force_weight``.

    Args:
        wbc: the ``WbcConfig``.
        blocks: slices of ``com_offset`` and ``foot_force_share`` in the action.
        com_nominal: (3,) the nominal CoM [m].
        weight_n: m g [N].
    """

    reads_state = False  # the action, the command's target and its own state

    def __init__(self, wbc: Any, blocks: dict[str, slice], com_nominal: np.ndarray, weight_n: float):
        self.wbc = wbc
        self._com_block, self._share_block = blocks["com_offset"], blocks["foot_force_share"]
        self.com_offset_low = np.asarray(wbc.com_offset_low_m, dtype=float)
        self.com_offset_high = np.asarray(wbc.com_offset_high_m, dtype=float)
        self.com_nominal = com_nominal
        self.weight_n = weight_n
        self._decoded_action: np.ndarray | None = None
        self.reset()

    def reset(self) -> None:
        #: (3,) the CoM offset [m] and its rate [m/s] (updated in place).
        self.com_offset = np.zeros(3)
        self.com_offset_velocity = np.zeros(3)
        self._share = np.array([0.5])  # the left foot's force share (updated in place)
        self._share_row = np.zeros(1)
        #: the CoM reference handed to the controller at the last physics step (3,) [m].
        self.wbc_com_reference = self.com_nominal.copy()

    @property
    def force_share(self) -> float:
        """The left foot's share of the feet's normal force [-]."""
        return float(self._share[0])

    @force_share.setter
    def force_share(self, value: float) -> None:
        self._share[0] = value

    def filter_params(self, dt: float) -> tuple[float, float, float]:
        """``(low-pass gain, largest offset step [m], largest share step)`` of a physics step of
        ``dt`` [s] (``core/reference_stages.hpp``'s ``standing_rows``)."""
        wbc = self.wbc
        return low_pass_gain(dt, wbc.com_offset_filter_s), wbc.com_rate_limit_mps * dt, wbc.force_share_rate_limit * dt

    def decoded(self, action: np.ndarray) -> tuple[np.ndarray, float]:
        """`decode` of the env step's action, made once per action."""
        if action is not self._decoded_action:  # the same action for every physics step of a step
            self._decoded, self._decoded_action = self.decode(action), action
        return self._decoded

    def decode(self, action: np.ndarray) -> tuple[np.ndarray, float]:
        """Action in [-1, 1] -> (CoM offset (3,) [m], left-foot force share [-])."""
        com, a_share = action[self._com_block], float(action[self._share_block][0])
        offset = np.where(com >= 0, com * self.com_offset_high, -com * self.com_offset_low)
        lo, hi = self.wbc.force_share_range
        share = 0.5 + (a_share * (hi - 0.5) if a_share >= 0 else -a_share * (lo - 0.5))
        return offset, float(share)

    def base(self, context) -> tuple[np.ndarray, np.ndarray]:
        """``(position (3,) [m], velocity (3,) [m/s])`` the offset is added to: the command's CoM
        target (``reference_feedforward``) or the nominal CoM at rest."""
        if self.wbc.reference_feedforward:
            target = context.command.com_target
            return target.position, target.velocity
        return self.com_nominal, _ZERO3

    def update(self, references: References, context, action: np.ndarray | None, dt: float) -> None:
        wbc = self.wbc
        base, base_velocity = self.base(context)
        com = references.com
        if action is not None:  # one physics step of the filters (dt > 0), written in C++ once for both loops
            offset, share = self.decoded(action)
            _physics.standing_rows(
                offset, share, self.com_offset, self.com_offset_velocity, self._share, *self.filter_params(dt), dt, base,
                base_velocity, com.position, com.velocity, self._share_row,
            )  # fmt: skip
            self.wbc_com_reference = com.position.copy()  # base + offset
        else:
            self.wbc_com_reference = base + self.com_offset
            com.position[:] = self.wbc_com_reference
            com.velocity[:] = base_velocity + self.com_offset_velocity
        weight = wbc.force_weight
        for name, target in self.force_targets().items():
            references.contacts[name].track(target, weight)

    def force_targets(self) -> dict[str, float]:
        """The feet's normal-force targets [N] from the left foot's share."""
        return {"left_foot": self.force_share * self.weight_n, "right_foot": (1.0 - self.force_share) * self.weight_n}
