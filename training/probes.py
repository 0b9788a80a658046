"""Hand-written reference strategies ("probes") evaluated side by side with the nominal controller.

Before training a policy to beat the nominal WBC on a task, it helps to know whether the
policy's action space can beat it at all. A probe is a simple feedback law on the env's state
that acts through the same action space as a policy (or a variant of the nominal controller set
by env keywords); [`run_probes`][training.probes.run_probes] rolls every probe out on the same fixed seeds and reports
the task's metrics ([`training.metrics`][training.metrics]):

    python -m training.probes --env HumanoidWBCSeesaw-v0 --episodes 8 --seed 1000 [--json out.json]

Probes of ``HumanoidWBCSeesaw-v0`` (wbc mode; the action's ``com_offset`` block moves the CoM
reference, ``y`` by ``a * 0.04`` m; its ``foot_force_share`` block shifts the left foot's share
of the normal force; see the env's ``action_structure``):

- ``nominal``: zero action (the coupled WBC and its capture-point board law).
- ``center``: cancel the task's lateral CoM target (offset = nominal - target), so the CoM stays
  above the board's centre: at rest that keeps the board level (tilt ~ -dy / R).
- ``yield_0.5``: move the CoM reference half-way towards where the capture point is going
  (offset = 0.5 (xi - xi_target)): lowers the board law's effective gain from 1.5 to 1.25,
  so the board tilts less after a push.
- ``share_on_tilt_+3`` / ``share_on_tilt_-3``: left foot's share 0.5 +- 0.4 * clip(3 theta)
  (weight onto the rising / the sinking side).
- ``gain_1.2`` / ``gain_1.8``: the nominal controller with ``board_balance_gain`` 1.2 / 1.8
  instead of 1.5 (zero action).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import humanoid_env  # noqa: F401  (registers the env ids)
from humanoid_env.registry import check_task_ids
from training import jsonio
from training.evaluate import evaluate
from training.metrics import summarise
from training.provenance import provenance
from training.shipped import TABLE_METRICS
from wbc_layer.seesaw_law import lateral_capture_point

#: ``probe(env) -> action`` of one step (``env`` unwrapped).
ProbePolicy = Callable[[Any], np.ndarray]


def _zero(env) -> np.ndarray:
    return np.zeros(env.action_space.shape)


def _lateral_offset(env, offset_y: float) -> np.ndarray:
    """Action moving the CoM reference by ``offset_y`` [m] laterally (clipped to the action range)."""
    action = np.zeros(env.action_space.shape)
    standing = env.task.standing  # the CoM offset's decoder: its bounds [m]
    scale = standing.com_offset_high[1] if offset_y >= 0 else -standing.com_offset_low[1]
    env.actuation.blocks(action)["com_offset"][1] = np.clip(offset_y / scale, -1.0, 1.0)
    return action


def _lateral_capture_point_error(env) -> float:
    """``xi - xi_target`` laterally [m]: the capture points ([`wbc_layer.seesaw_law.lateral_capture_point`][wbc_layer.seesaw_law.lateral_capture_point]) of
    the CoM and of the task's target, with the board-tilt law's ``omega``."""
    omega = env.task.board_law.omega
    target = env.task.command.com_target
    xi = lateral_capture_point(float(env.com()[1]), float(env.plant.com_velocity()[1]), omega)
    return xi - lateral_capture_point(float(target.position[1]), float(target.velocity[1]), omega)


def _share_on_tilt(gain: float) -> ProbePolicy:
    def probe(env) -> np.ndarray:
        action = np.zeros(env.action_space.shape)
        env.actuation.blocks(action)["foot_force_share"][0] = np.clip(gain * env.task.board_angle(), -1.0, 1.0)
        return action

    return probe


#: env id (a registered task: checked at import) -> probe name -> (env keyword overrides, policy).
PROBES: dict[str, dict[str, tuple[dict[str, Any], ProbePolicy]]] = {
    "HumanoidWBCSeesaw-v0": {
        "nominal": ({}, _zero),
        "center": ({}, lambda env: _lateral_offset(env, env.com_nominal[1] - env.com_target[1])),
        "yield_0.5": ({}, lambda env: _lateral_offset(env, 0.5 * _lateral_capture_point_error(env))),
        "share_on_tilt_+3": ({}, _share_on_tilt(3.0)),
        "share_on_tilt_-3": ({}, _share_on_tilt(-3.0)),
        "gain_1.2": ({"board_balance_gain": 1.2}, _zero),
        "gain_1.8": ({"board_balance_gain": 1.8}, _zero),
    },
}
check_task_ids(PROBES, "training.probes.PROBES")


def run_probe(env_id: str, env_kwargs: dict[str, Any], probe: ProbePolicy, episodes: int, seed: int,
              max_steps: int | None = None) -> list[dict[str, Any]]:
    """Per-episode metrics of ``probe`` on seeds ``seed .. seed + episodes - 1`` (rolled out by
    [`training.evaluate.evaluate`][training.evaluate.evaluate], as a trained policy would be)."""

    def policy(obs: np.ndarray, env: gym.Env) -> np.ndarray:
        return probe(env.unwrapped).astype(env.action_space.dtype)

    return evaluate(env_id, policy, episodes, seed, max_steps=max_steps, env_kwargs=env_kwargs)["episodes"]


def run_probes(env_id: str, episodes: int, seed: int, names: list[str] | None = None,
               max_steps: int | None = None) -> dict[str, Any]:
    """Every probe of ``env_id`` (or those in ``names``) on the same seeds -> ``{name: {episodes, summary}}``."""
    if env_id not in PROBES:
        raise ValueError(f"no probes for {env_id!r}; envs with probes: {sorted(PROBES)}")
    unknown = sorted(set(names or []) - set(PROBES[env_id]))
    if unknown:
        raise ValueError(f"unknown probe(s) {unknown} for {env_id}; valid: {sorted(PROBES[env_id])}")
    out: dict[str, Any] = {}
    for name, (env_kwargs, probe) in PROBES[env_id].items():
        if names and name not in names:
            continue
        records = run_probe(env_id, env_kwargs, probe, episodes, seed, max_steps)
        out[name] = {"env_kwargs": env_kwargs, "episodes": records, "summary": summarise(records)}
    return out


def table(results: dict[str, Any], metrics: tuple[str, ...]) -> str:
    """Markdown table: one row per probe, mean of each metric."""
    lines = ["| probe | " + " | ".join(metrics) + " |", "|---" * (len(metrics) + 1) + "|"]
    for name, result in results.items():
        cells = [f"{result['summary'][m]:.4g}" for m in metrics]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="HumanoidWBCSeesaw-v0")
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--probes", nargs="*", help="probe names (default: all of the env's)")
    parser.add_argument("--max-steps", type=int)
    parser.add_argument("--json", type=Path, help="write the per-episode records here")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error(f"--episodes must be >= 1, got {args.episodes}")
    try:
        results = run_probes(args.env, args.episodes, args.seed, args.probes, args.max_steps)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(table(results, TABLE_METRICS.get(args.env, ("return", "fell"))))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "env": args.env, "seed": args.seed, "episodes": args.episodes, "probes": results,
            "provenance": provenance(),
        }  # fmt: skip
        args.json.write_text(jsonio.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
