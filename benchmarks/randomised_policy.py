"""Does training with plant mismatch pay? A balance policy trained with ``randomise="moderate"``
against the nominal controller on randomised episodes, and against the shipped policy on
exact-model episodes (issue 18's test).

Paired episodes (episode ``i`` of every policy resets with seed ``seed + i``: the same task,
pushes and, when randomised, the same drawn plant), the env's default pushes. Judged by
:func:`training.comparison.judge` with one-sided 90 % bootstrap bounds on the paired differences
(candidate - baseline; lower is better):

- ``randomised``: candidate vs the nominal controller (zero action), ``randomise="moderate"``.
  Wanted: the upper bound of the fall-rate difference below 0 (fewer falls).
- ``exact``: candidate vs the shipped policy (``policies/HumanoidWBC-v0``), exact model.
  Wanted: the upper bound of the fall-rate difference at most 0 (no worse).

The CoM error over the first 5 s (``com_error_median_5s_m``) is reported beside, not judged.
Not a test: it prints the table and writes JSON with every episode record.

    python -m benchmarks.randomised_policy --candidate runs/balance_rand --episodes 50
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, machine, write_json
from training.comparison import Claim, judge, rollouts
from training.shipped import policy_dir

ENV_ID = "HumanoidWBC-v0"
#: Falls judged with a 90 % one-sided bound; the metric is reported (its margin never binds).
CLAIM = Claim("com_error_median_5s_m", metric_margin=float("inf"), fall_margin=0.0, confidence=0.9)


def compare(candidate: str, baseline: str, episodes: int, seed: int, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """Paired rollouts of ``candidate`` and ``baseline`` (policy specs of ``training.evaluate``:
    a trained policy runs in its run's env keywords, e.g. its ``com_offset_filter_s``, with
    ``env_kwargs`` over them, so ``randomise`` is this comparison's in both)."""
    records = {who: rollouts(ENV_ID, spec, episodes, seed, "reference", env_kwargs) for who, spec in
               (("baseline", baseline), ("candidate", candidate))}  # fmt: skip
    verdict = judge(records["baseline"]["episodes"], records["candidate"]["episodes"], CLAIM).as_dict()
    return {"candidate_policy": candidate, "baseline_policy": baseline, "env_kwargs": env_kwargs, "verdict": verdict, **records}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", required=True, help="the randomised-trained policy (run folder or zip)")
    parser.add_argument("--episodes", type=int, default=50)
    parser.add_argument("--seed", type=int, default=8000)
    parser.add_argument("--json", default=str(RESULTS / "randomised_policy.json"))
    args = parser.parse_args(argv)
    start = machine()
    shipped = str(policy_dir(ENV_ID))
    results = {
        "randomised": compare(args.candidate, "nominal", args.episodes, args.seed, {"randomise": "moderate"}),
        "exact": compare(args.candidate, shipped, args.episodes, args.seed, {"randomise": None}),  # not the run's
    }
    print(f"{ENV_ID}: {args.candidate}, {args.episodes} paired episodes from seed {args.seed} (90 % one-sided bounds)")
    for name, result in results.items():
        v = result["verdict"]
        falls = {who: sum(e["fell"] for e in result[who]["episodes"]) for who in ("baseline", "candidate")}
        wanted = v["fall_upper_bound"] < 0 if name == "randomised" else v["fall_upper_bound"] <= 0
        print(
            f"  {name:>10} vs {Path(result['baseline_policy']).name}: falls {falls['candidate']} vs {falls['baseline']}, "
            f"difference {v['fall_difference']:+.3f} (upper {v['fall_upper_bound']:+.3f}: "
            f"{'as wanted' if wanted else 'NOT as wanted'}); CoM error {1e3 * v['metric_difference']:+.2f} mm"
        )
        result["wanted"] = bool(wanted)
    settings = {"env": ENV_ID, "candidate": args.candidate, "episodes": args.episodes, "seed": args.seed, "claim": CLAIM.__dict__}
    write_json(args.json, settings, results, start)
    return results


if __name__ == "__main__":
    main()
