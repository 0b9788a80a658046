"""Random pushes at a body: a horizontal force held for a while, at random intervals."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class PushSchedule:
    """Samples pushes and tells the force to apply at each time.

    Attributes:
        magnitude_n: (lo, hi) force magnitude [N], sampled uniformly; (0, 0) turns pushes off.
        duration_s: how long each push lasts [s].
        interval_s: (lo, hi) time from the end of one push (or the reset) to the next start [s].
        direction_deg: fixed horizontal direction [deg] (0 = +x, 90 = +y), or None for random.
        survival_window_s: a push counts as survived when the robot has not fallen this long
            after its start [s].
    """

    magnitude_n: tuple[float, float]
    duration_s: float
    interval_s: tuple[float, float]
    direction_deg: float | None
    survival_window_s: float = 2.0
    next_start: float = field(default=np.inf, init=False)
    end: float = field(default=-np.inf, init=False)
    force: np.ndarray = field(default_factory=lambda: np.zeros(3), init=False)
    starts: list[float] = field(default_factory=list, init=False)

    @property
    def enabled(self) -> bool:
        return self.magnitude_n[1] > 0.0 and self.duration_s > 0.0

    def reset(self, rng: np.random.Generator, time: float = 0.0) -> None:
        self.starts = []
        self.end = -np.inf
        self.force = np.zeros(3)
        self.next_start = time + rng.uniform(*self.interval_s) if self.enabled else np.inf

    def update(self, rng: np.random.Generator, time: float) -> np.ndarray:
        """(3,) world force [N] to apply at ``time`` [s]; samples a new push when one is due."""
        if time >= self.next_start:
            magnitude = rng.uniform(*self.magnitude_n)
            angle = np.deg2rad(self.direction_deg) if self.direction_deg is not None else rng.uniform(0, 2 * np.pi)
            self.force = magnitude * np.array([np.cos(angle), np.sin(angle), 0.0])
            self.starts.append(self.next_start)
            self.end = self.next_start + self.duration_s
            self.next_start = self.end + rng.uniform(*self.interval_s)
        return self.force.copy() if time < self.end else np.zeros(3)

    @property
    def total(self) -> int:
        """Pushes started so far."""
        return len(self.starts)

    def survived(self, time: float, fell: bool) -> int:
        """Pushes survived at ``time`` [s]: all of them if the robot stands, else those whose
        survival window closed before the fall."""
        if not fell:
            return self.total
        return sum(1 for s in self.starts if s + self.survival_window_s <= time)
