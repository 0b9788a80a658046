"""Trajectory fingerprints: did a change keep every env's trajectories bit for bit?

A refactor of the env or the controller must not change what a user's rollout does. This records,
for each case below, two SHA-256 hashes across episodes that end and are reset: one over every step's
MuJoCo state after it (``qpos``, ``qvel``, ``ctrl``), reward and termination flags (``state``), one
over every observation (``obs``). Two trees that give the same hashes for a case ran the same
trajectory to the last bit on this machine; a change of what the observation shows alone (with
actions that do not read it) changes ``obs`` and leaves ``state``.

The cases: every env in every action mode on both robots with seeded random actions (pushes on, as
by default); each shipped policy's actions; and further settings on one env each (estimation,
randomisation, leg odometry, the contact guard, the scripted scenarios, DAQP,
proxsuite, the rigid seesaw, heavy pushes, the stepping law; walking with estimation and with
heavy pushes; push recovery with heavy pushes; the feet-following goal, with and without stepping). Each runs ``--steps`` env steps (default 1000),
resetting after a fall or a time limit, so every case that falls shows a reset after a fall.

    python -m benchmarks.fingerprints --out after.json              # record this tree
    python -m benchmarks.fingerprints --compare before.json after.json   # same hashes? exit 1 if not

To record another checkout with this virtualenv (the one a change starts from, in a git worktree),
put that checkout first on ``sys.path`` and leave out the editable install's finder; a case that
does not exist in one tree (a new keyword) is reported as missing, not as a difference.

Across machines the hashes are not expected to match: the last bits of floating-point arithmetic
(BLAS kernels, compiler flags) differ, and pushed, chaotic rollouts amplify them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from training import jsonio

ENVS = ("HumanoidWBC-v0", "HumanoidWBCWall-v0", "HumanoidWBCSeesaw-v0", "HumanoidWBCWalk-v0", "HumanoidWBCPushRecovery-v0",
        "HumanoidWBCSquare-v0")
MODES = ("wbc", "torque", "pd")
ROBOTS = ("hubo_lite", "g1")
SEED = 0

#: name -> (env id, gym.make keywords, scripted scenario or None); random actions unless scripted.
SETTINGS: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "estimation_moderate": ("HumanoidWBC-v0", {"estimation": "moderate"}, None),
    "estimation_hard": ("HumanoidWBC-v0", {"estimation": "hard"}, None),
    "randomise_moderate": ("HumanoidWBC-v0", {"randomise": "moderate"}, None),
    "randomise_hard": ("HumanoidWBC-v0", {"randomise": "hard"}, None),
    "odometry": ("HumanoidWBCSeesaw-v0", {"estimation": "moderate", "leg_odometry_s": 0.05}, None),
    "contact_guard": ("HumanoidWBC-v0", {"contact_guard": True}, None),
    "daqp": ("HumanoidWBCWall-v0", {"qp_solver": "daqp"}, None),
    "proxsuite": ("HumanoidWBC-v0", {"qp_solver": "proxsuite"}, None),
    "rigid_seesaw": ("HumanoidWBCSeesaw-v0", {"seesaw_model": "rigid"}, None),
    "heavy_pushes": ("HumanoidWBC-v0", {"push_magnitude_n": (150.0, 260.0), "push_interval_s": (1.0, 2.0)}, None),
    "wall_estimation_randomise": ("HumanoidWBCWall-v0", {"estimation": "moderate", "randomise": "moderate"}, None),
    "scripted_ramp": ("HumanoidWBC-v0", {}, "ramp"),
    "scripted_abrupt": ("HumanoidWBC-v0", {}, "abrupt"),
    "scripted_wall_lean": ("HumanoidWBCWall-v0", {}, "lean"),
    "scripted_seesaw_push": ("HumanoidWBCSeesaw-v0", {}, "push"),
    "scripted_seesaw_sine": ("HumanoidWBCSeesaw-v0", {}, "sine"),
    "stepping": ("HumanoidWBC-v0", {"stepping": True, "push_magnitude_n": (150.0, 260.0), "push_interval_s": (1.0, 2.0)}, None),
    "goal_follows_feet": ("HumanoidWBC-v0", {"goal_follows_feet": True}, None),
    "goal_follows_feet_stepping": ("HumanoidWBC-v0", {"goal_follows_feet": True, "stepping": True, "push_magnitude_n": (150.0, 260.0),
                                                      "push_interval_s": (1.0, 2.0)}, None),  # fmt: skip
    "push_recovery_heavy_pushes": ("HumanoidWBCPushRecovery-v0", {"push_magnitude_n": (150.0, 260.0), "push_interval_s": (1.0, 2.0)}, None),
    "walk_estimation": ("HumanoidWBCWalk-v0", {"estimation": "moderate"}, None),
    "walk_heavy_pushes": ("HumanoidWBCWalk-v0", {"push_magnitude_n": (150.0, 300.0), "push_interval_s": (0.5, 1.0)}, None),
}


class Fingerprint:
    """SHA-256 hashes of a rollout's states and observations, with counts of its episode ends."""

    def __init__(self) -> None:
        self.state, self.obs = hashlib.sha256(), hashlib.sha256()
        self.steps = self.resets = self.falls = 0
        self.total_reward = 0.0

    def add(self, env, obs, reward=0.0, terminated=False, truncated=False) -> None:
        """Fold one step (or a reset, with its observation) into the hash."""
        data = env.unwrapped.data
        for array in (data.qpos, data.qvel, data.ctrl, [reward, terminated, truncated]):
            self.state.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
        self.obs.update(np.ascontiguousarray(obs, dtype=np.float64).tobytes())
        self.total_reward += float(reward)

    def record(self, seconds: float) -> dict[str, Any]:
        return {
            "state": self.state.hexdigest(), "obs": self.obs.hexdigest(), "steps": self.steps, "resets": self.resets, "falls": self.falls,
            "return": self.total_reward, "seconds": round(seconds, 2),
        }  # fmt: skip


def run_case(env_id: str, kwargs: dict[str, Any], steps: int, act=None, scenario: str | None = None) -> dict[str, Any]:
    """Fingerprint ``steps`` env steps of ``env_id`` built with ``kwargs``.

    ``act(obs, env) -> action``: the policy (None: uniform random actions in [-1, 1], seeded); with
    ``scenario``, the scripted scenario drives the env with zero actions and an episode also ends
    when the script does.
    """
    import gymnasium as gym

    import humanoid_env  # noqa: F401  (registers the envs)

    start = time.perf_counter()
    script = None
    if scenario is not None:
        from humanoid_env.scenarios import make_scenario

        script = make_scenario(env_id, scenario)
        kwargs = {**script.env_kwargs, **kwargs}
    env = gym.make(env_id, **kwargs)
    if script is not None:
        env.unwrapped.set_scenario(script)
    rng = np.random.default_rng(SEED)
    shape = env.action_space.shape
    fingerprint = Fingerprint()
    obs, _ = env.reset(seed=SEED)
    fingerprint.add(env, obs)
    episode = 0
    while fingerprint.steps < steps:
        if script is not None:
            action = np.zeros(shape)
        elif act is not None:
            action = act(obs, env)
        else:
            action = rng.uniform(-1.0, 1.0, shape)
        obs, reward, terminated, truncated, _ = env.step(action)
        fingerprint.steps += 1
        fingerprint.add(env, obs, reward, terminated, truncated)
        if terminated or truncated or (script is not None and script.finished(env.unwrapped)):
            fingerprint.falls += bool(terminated)
            fingerprint.resets += 1
            episode += 1
            obs, _ = env.reset(seed=SEED + episode)
            fingerprint.add(env, obs)
    env.close()
    return fingerprint.record(time.perf_counter() - start)


def shipped_cases() -> dict[str, tuple[str, dict[str, Any], Any]]:
    """name -> (env id, the run's env keywords, its policy) for each shipped policy."""
    from training.evaluate import load_model_policy, policy_files
    from training.shipped import policy_dir, shipped_envs

    cases = {}
    for env_id in shipped_envs():
        files = policy_files(str(policy_dir(env_id)))
        cases[f"shipped/{env_id}"] = (env_id, dict(files.env_kwargs), load_model_policy(files))
    return cases


def record(steps: int, only: list[str] | None) -> dict[str, Any]:
    """Every case's fingerprint (``only``: the cases whose name contains one of these)."""
    cases: dict[str, tuple] = {}
    for robot in ROBOTS:
        for env_id in ENVS:
            for mode in MODES:
                cases[f"random/{env_id}/{mode}/{robot}"] = (env_id, {"robot": robot, "action_mode": mode}, None, None)
    for name, (env_id, kwargs, act) in shipped_cases().items():
        cases[name] = (env_id, kwargs, act, None)
    for name, (env_id, kwargs, scenario) in SETTINGS.items():
        cases[f"setting/{name}"] = (env_id, kwargs, None, scenario)
    results = {}
    for name, (env_id, kwargs, act, scenario) in cases.items():
        if only and not any(word in name for word in only):
            continue
        try:
            results[name] = run_case(env_id, kwargs, steps, act, scenario)
        except Exception as err:  # a keyword this tree does not have: reported, not compared
            results[name] = {"error": f"{type(err).__name__}: {err}"}
        row = results[name]
        print(f"{name:52s} {row.get('state', row.get('error'))[:12]} {row.get('obs', '')[:12]} resets {row.get('resets')} falls {row.get('falls')}", flush=True)
    return {"steps": steps, "seed": SEED, "cases": results}


def compare(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Print a row per case; True when every case of both records has the same hashes."""
    names = sorted(set(before["cases"]) | set(after["cases"]))
    counts = {"state": 0, "obs": 0}
    for name in names:
        a, b = before["cases"].get(name, {}), after["cases"].get(name, {})
        if "state" not in a or "state" not in b:
            verdict = f"missing or failed: {a.get('error', 'absent') if 'state' not in a else b.get('error', 'absent')}"
        else:
            words = []
            for key in counts:
                counts[key] += a[key] == b[key]
                words.append(f"{key} {'same' if a[key] == b[key] else 'DIFFERENT'}")
            verdict = ", ".join(words) + ("" if a["state"] == b["state"] else f" (returns {a['return']:.6f} / {b['return']:.6f})")
        print(f"{name:52s} {verdict}")
    print(f"of {len(names)} cases ({before['steps']} / {after['steps']} steps each): states the same in "
          f"{counts['state']}, observations in {counts['obs']}")
    return before["steps"] == after["steps"] and counts["state"] == counts["obs"] == len(names)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the record here (JSON)")
    parser.add_argument("--steps", type=int, default=1000, help="env steps per case (default 1000)")
    parser.add_argument("--only", nargs="+", help="only the cases whose name contains one of these")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="compare two records")
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads(path.read_text()) for path in args.compare)
        return 0 if compare(before, after) else 1
    if args.out is None:
        parser.error("--out or --compare is required")
    result = record(args.steps, args.only)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(jsonio.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
