"""Do the two solve orders give the same tick? The limit rows first, or the hot rows and then them.

The core solves a tick without the joint- and torque-limit rows first and again with them if the
solution breaks one; after a tick whose optimum had one of them active it solves with all of them
at once (``Controller::cold_rows_first``, ``docs/qp.md``: Torque limits). Both are the same
strictly convex QP's optimum. This solves every tick of seeded random-action rollouts both ways
(the env's own order, then the same state with the order flipped) and reports, per case, the
ticks, how many took the shortcut, and the largest torque difference [N m].

    python -m benchmarks.solve_order --steps 1000 [--json solve_order.json]

The cases: every env in wbc mode on both robots (pushes on) and the fingerprint settings that
reach limits most (heavy pushes, hard estimation and randomisation, leg odometry on the seesaw,
the wall with estimation and randomisation, proxsuite). With eiquadprog (exact, from scratch)
the two orders agree to rounding; proxsuite's to its tolerance.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks.common import RESULTS, machine, write_json
from benchmarks.fingerprints import ENVS, ROBOTS, SETTINGS, run_case
from wbc_layer.compiled import CompiledTick

SETTING_CASES = ("heavy_pushes", "estimation_hard", "randomise_hard", "odometry", "wall_estimation_randomise", "proxsuite")


def cases() -> dict[str, tuple[str, dict]]:
    """name -> (env id, gym.make keywords): every env in wbc mode on both robots, then the settings."""
    out = {f"random/{env_id}/wbc/{robot}": (env_id, {"robot": robot, "action_mode": "wbc"}) for env_id in ENVS for robot in ROBOTS}
    for name in SETTING_CASES:
        env_id, kwargs, _ = SETTINGS[name]
        out[f"setting/{name}"] = (env_id, kwargs)
    return out


class BothOrders:
    """Wraps ``CompiledTick.compute``: each tick is solved first in the flipped order, then as the env
    would (whose result the env gets); ``differences`` collects ``max |tau_a - tau_b|`` per tick."""

    def __init__(self) -> None:
        self.differences: list[float] = []
        self.shortcuts = 0
        self._compute = CompiledTick.compute

    def __enter__(self):
        both = self

        def compute(tick, q, v, s, s_dot):
            core = tick.core
            if tick._daqp is not None or tick._rows_tasks or tick._user_contacts or tick._user_bodies:
                return both._compute(tick, q, v, s, s_dot)
            first = core.cold_rows_first
            core.cold_rows_first = not first
            flipped_status, _, flipped_tau, *_ = core.compute(q, v, s, s_dot)
            core.cold_rows_first = first
            result = both._compute(tick, q, v, s, s_dot)
            if result[0] == flipped_status == "solved":
                both.differences.append(float(np.abs(result[2] - flipped_tau).max()))
                both.shortcuts += int(first)
            return result

        CompiledTick.compute = compute
        return self

    def __exit__(self, *exc) -> None:
        CompiledTick.compute = self._compute


def run(steps: int) -> dict:
    results = {}
    for name, (env_id, kwargs) in cases().items():
        with BothOrders() as probe:
            run_case(env_id, kwargs, steps)
        differences = np.array(probe.differences)
        results[name] = {
            "ticks": int(differences.size),
            "shortcut_ticks": probe.shortcuts,
            "max_torque_difference_nm": float(differences.max(initial=0.0)),
            "ticks_over_1e-9_nm": int((differences > 1e-9).sum()),
        }
        row = results[name]
        print(f"{name:45s} ticks {row['ticks']:6d}  shortcut {row['shortcut_ticks']:5d}  "
              f"max |dtau| {row['max_torque_difference_nm']:.2e} N m  over 1e-9: {row['ticks_over_1e-9_nm']}", flush=True)
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000, help="env steps per case (default 1000)")
    parser.add_argument("--json", type=Path, default=RESULTS / "solve_order.json")
    args = parser.parse_args(argv)
    machine_start = machine()
    write_json(args.json, {"steps": args.steps}, run(args.steps), machine_start)


if __name__ == "__main__":
    main()
