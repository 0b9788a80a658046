"""How often the nominal controller falls under each env's random pushes, for candidate push
distributions: the measurement behind the envs' default ``push_magnitude_n``.

Per env and candidate range U(lo, hi) N (0.1 s pushes every U(2, 4) s, random directions as
the env draws them; everything else the env's default task), ``--episodes`` full episodes (20 s)
of the nominal controller (wbc mode, zero action) on seeds ``seed .. seed + episodes - 1``, the
same seeds for every candidate: episodes with a fall (with a 90 % Wilson interval, so that two
candidates are told apart only by more than chance), pushes survived / pushes, CoM RMSE. Not a
test: it prints a table and writes JSON.

    python -m benchmarks.push_calibration --envs balance wall --ranges 20,80 30,140 40,170
    python -m benchmarks.push_calibration --envs seesaw --ranges 10,40 10,55 10,70
    python -m benchmarks.push_calibration --envs seesaw --ranges 10,55 --joint-limit-horizon-s 0.05

How the defaults were chosen (issue 21): pushes up to about the envelope (``benchmarks.push_envelope``)
in its weak directions, so that the nominal controller falls in a good part of the episodes and
a policy has room to do better; see the envs' docstrings, "Version history".
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from typing import Any

import numpy as np

from benchmarks.common import ENVS, RESULTS, machine, write_json
from humanoid_env.robots import DEFAULT_ROBOT, robot_description
from training.evaluate import evaluate

#: z of the two-sided 90 % normal interval.
Z90 = 1.6449


def wilson_interval(successes: int, trials: int, z: float = Z90) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (``successes`` of ``trials``)."""
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    p = successes / trials
    denominator = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def measure(
    env: str, magnitude_n: tuple[float, float], episodes: int, seed: int, joint_limit_horizon_s: float | None = None
) -> dict[str, Any]:
    """The nominal controller's falls and pushes on ``env`` with pushes U(``magnitude_n``) N;
    ``joint_limit_horizon_s``: the controller's (None: the env's default), set through the robot
    description's ``controller_overrides``."""
    kwargs: dict[str, Any] = {"push_magnitude_n": list(magnitude_n)}
    if joint_limit_horizon_s is not None:
        robot = robot_description(DEFAULT_ROBOT)
        overrides = {**robot.controller_overrides, "joint_limit_horizon_s": joint_limit_horizon_s}
        kwargs["robot"] = dataclasses.replace(robot, controller_overrides=overrides)
    record = evaluate(ENVS[env], "nominal", episodes, seed, env_kwargs=kwargs)
    runs = record["episodes"]
    falls = int(sum(run["fell"] for run in runs))
    lo, hi = wilson_interval(falls, episodes)
    return {
        "push_magnitude_n": list(magnitude_n),
        "joint_limit_horizon_s": joint_limit_horizon_s,
        "episodes": episodes,
        "falls": falls,
        "fall_rate": falls / episodes,
        "fall_rate_90": [lo, hi],
        "pushes_total": int(sum(run["pushes_total"] for run in runs)),
        "pushes_survived": int(sum(run["pushes_survived"] for run in runs)),
        "com_rmse_m": float(np.nanmean([run["com_rmse_m"] for run in runs])),
        "fallback_steps": int(sum(run["wbc_fallbacks"] for run in runs)),
    }


def _range(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a range is LO,HI in newtons, e.g. 30,140; got {text!r}") from None
    if not 0 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"a range needs 0 <= LO <= HI, got {text!r}")
    return lo, hi


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", nargs="+", default=list(ENVS), choices=list(ENVS))
    parser.add_argument("--ranges", nargs="+", type=_range, required=True, help="push ranges LO,HI [N]")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=5000)
    parser.add_argument(
        "--joint-limit-horizon-s", type=float, default=None,
        help="the controller's joint-limit horizon [s] (0: no rows; default: each env's own)",
    )  # fmt: skip
    parser.add_argument("--json", default=str(RESULTS / "push_calibration.json"))
    args = parser.parse_args(argv)
    start = machine()
    results: dict[str, list[dict[str, Any]]] = {}
    for env in args.envs:
        results[env] = [measure(env, r, args.episodes, args.seed, args.joint_limit_horizon_s) for r in args.ranges]
        horizon = "the env's" if args.joint_limit_horizon_s is None else f"{args.joint_limit_horizon_s:g} s"
        print(f"\n{ENVS[env]} (nominal controller, joint-limit horizon {horizon}, {args.episodes} episodes from seed {args.seed})")
        print(f"{'pushes [N]':>12}  {'falls':>7}  {'90 % interval':>13}  {'pushes survived':>15}  {'CoM RMSE [mm]':>13}")
        for row in results[env]:
            lo, hi = row["fall_rate_90"]
            magnitude = "U({:g}, {:g})".format(*row["push_magnitude_n"])
            print(
                f"{magnitude:>12}  {row['falls']:>3}/{row['episodes']:<3}  {lo:>6.2f}-{hi:<6.2f}  "
                f"{row['pushes_survived']:>7}/{row['pushes_total']:<7}  {1e3 * row['com_rmse_m']:>13.1f}"
            )
    settings = {
        "envs": args.envs, "ranges": [list(r) for r in args.ranges], "episodes": args.episodes, "seed": args.seed,
        "joint_limit_horizon_s": args.joint_limit_horizon_s,
    }  # fmt: skip
    write_json(args.json, settings, results, start)
    return results


if __name__ == "__main__":
    main()
