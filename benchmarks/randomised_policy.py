"""Does training with plant mismatch pay? A balance policy trained with ``randomise="moderate"``
against the nominal controller and the shipped policy, on randomised and on exact-model episodes
(issue 18's test).

Paired episodes (episode ``i`` of every policy resets with seed ``seed + i``: the same task,
pushes and, when randomised, the same drawn plant), the env's default pushes; each policy runs
in its own run's env keywords with ``randomise`` set by the cell. Each of the three policies is
rolled out once per setting, and the cells are judged by :func:`training.comparison.judge` with
one-sided 90 % bootstrap bounds on the paired differences (candidate - baseline; lower is better):

- ``randomised`` (``randomise="moderate"``): candidate vs the nominal controller (zero action).
  Wanted: the upper bound of the fall-rate difference below 0 (fewer falls).
- ``exact`` (the exact model): candidate vs the shipped policy (``policies/HumanoidWBC-v0``).
  Wanted: the upper bound of the fall-rate difference at most 0 (no worse).
- reported beside, no wish: ``randomised_vs_shipped`` and ``exact_vs_nominal``.

The CoM error over the first 5 s (``com_error_median_5s_m``) is reported beside, not judged.
Not a test: it prints the table and writes JSON with every episode record.

    python -m benchmarks.randomised_policy --candidate runs/balance_rand --episodes 50 [--seed 8000]
"""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks.common import RESULTS, machine, write_json
from training.comparison import Claim, judge, rollouts
from training.shipped import policy_dir

ENV_ID = "HumanoidWBC-v0"
#: Falls judged with a 90 % one-sided bound; the metric is reported (its margin never binds).
CLAIM = Claim("com_error_median_5s_m", metric_margin=float("inf"), fall_margin=0.0, confidence=0.9)


#: The settings' env keywords (over each policy's own run keywords).
SETTINGS = {"randomised": {"randomise": "moderate"}, "exact": {"randomise": None}}
#: cell -> (setting, baseline, wanted: "below" (upper bound < 0), "at_most" (<= 0) or None).
CELLS = {
    "randomised": ("randomised", "nominal", "below"),
    "exact": ("exact", "shipped", "at_most"),
    "randomised_vs_shipped": ("randomised", "shipped", None),
    "exact_vs_nominal": ("exact", "nominal", None),
}


def judged(records: dict[str, dict[str, Any]], cell: str) -> dict[str, Any]:
    """One cell of :data:`CELLS` from ``records[setting][policy]`` (``training.evaluate`` records)."""
    setting, baseline, wish = CELLS[cell]
    pair = {"baseline": records[setting][baseline], "candidate": records[setting]["candidate"]}
    verdict = judge(pair["baseline"]["episodes"], pair["candidate"]["episodes"], CLAIM).as_dict()
    bound = verdict["fall_upper_bound"]
    wanted = None if wish is None else bool(bound < 0 if wish == "below" else bound <= 0)
    falls = {who: sum(e["fell"] for e in record["episodes"]) for who, record in pair.items()}
    return {
        "setting": setting, "baseline_policy": baseline, "wish": wish, "wanted": wanted, "falls": falls, "verdict": verdict,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", required=True, help="the randomised-trained policy (run folder or zip)")
    parser.add_argument("--episodes", type=int, default=50)
    parser.add_argument("--seed", type=int, default=8000)
    parser.add_argument("--json", default=str(RESULTS / "randomised_policy.json"))
    args = parser.parse_args(argv)
    start = machine()
    specs = {"nominal": "nominal", "shipped": str(policy_dir(ENV_ID)), "candidate": args.candidate}
    records = {
        setting: {who: rollouts(ENV_ID, spec, args.episodes, args.seed, "reference", kwargs) for who, spec in specs.items()}
        for setting, kwargs in SETTINGS.items()
    }
    results = {cell: judged(records, cell) for cell in CELLS}
    print(f"{ENV_ID}: {args.candidate}, {args.episodes} paired episodes from seed {args.seed} (90 % one-sided bounds)")
    for cell, result in results.items():
        v, falls = result["verdict"], result["falls"]
        wish = {None: "reported", True: "as wanted", False: "NOT as wanted"}[result["wanted"]]
        print(
            f"  {cell:>22} vs {result['baseline_policy']}: falls {falls['candidate']} vs {falls['baseline']}, "
            f"difference {v['fall_difference']:+.3f} (upper {v['fall_upper_bound']:+.3f}: {wish}); "
            f"CoM error {1e3 * v['metric_difference']:+.2f} mm"
        )
    settings = {"env": ENV_ID, "candidate": args.candidate, "episodes": args.episodes, "seed": args.seed, "claim": CLAIM.__dict__}
    write_json(args.json, settings, {"cells": results, "records": records}, start)
    return results


if __name__ == "__main__":
    main()
