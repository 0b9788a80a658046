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

from humanoid_env.envs.numerics import clip_scalar, limit_length, low_pass_gain
from wbc_layer.references import References

_ZERO3 = np.zeros(3)
_ZERO3.flags.writeable = False


class ReferenceStage:
    """Base of the reference stages (see the module docstring)."""

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
        self.com_offset = np.zeros(3)
        self.com_offset_velocity = np.zeros(3)
        self.force_share = 0.5
        #: the CoM reference handed to the controller at the last physics step (3,) [m].
        self.wbc_com_reference = self.com_nominal.copy()

    def decode(self, action: np.ndarray) -> tuple[np.ndarray, float]:
        """Action in [-1, 1] -> (CoM offset (3,) [m], left-foot force share [-])."""
        com, a_share = action[self._com_block], float(action[self._share_block][0])
        offset = np.where(com >= 0, com * self.com_offset_high, -com * self.com_offset_low)
        lo, hi = self.wbc.force_share_range
        share = 0.5 + (a_share * (hi - 0.5) if a_share >= 0 else -a_share * (lo - 0.5))
        return offset, float(share)

    def update(self, references: References, context, action: np.ndarray | None, dt: float) -> None:
        wbc = self.wbc
        if action is not None:
            if action is not self._decoded_action:  # the same action for every physics step of a step
                self._decoded, self._decoded_action = self.decode(action), action
            offset, share = self._decoded
            step = offset - self.com_offset
            gain = low_pass_gain(dt, wbc.com_offset_filter_s)  # a continuous velocity
            if gain != 1.0:  # (x * 1.0 == x: skipped)
                step *= gain
            limit_length(step, wbc.com_rate_limit_mps * dt)
            self.com_offset = self.com_offset + step
            self.com_offset_velocity = step / dt if dt > 0 else np.zeros(3)
            max_share = wbc.force_share_rate_limit * dt
            self.force_share += clip_scalar(share - self.force_share, -max_share, max_share)
        if wbc.reference_feedforward:
            target = context.command.com_target
            base, base_velocity = target.position, target.velocity
        else:
            base, base_velocity = self.com_nominal, _ZERO3
        self.wbc_com_reference = base + self.com_offset
        com = references.com
        com.position[:] = self.wbc_com_reference
        com.velocity[:] = base_velocity + self.com_offset_velocity
        weight = wbc.force_weight
        for name, target in self.force_targets().items():
            references.contacts[name].track(target, weight)

    def force_targets(self) -> dict[str, float]:
        """The feet's normal-force targets [N] from the left foot's share."""
        return {"left_foot": self.force_share * self.weight_n, "right_foot": (1.0 - self.force_share) * self.weight_n}
