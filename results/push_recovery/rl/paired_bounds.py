"""Paired bounds of a candidate's evaluation against the nominal law's, from their records.

`training.comparison` runs both sides with the candidate's env keywords, so a pd or torque policy
cannot be compared with the law (wbc mode) in one call. This pairs two evaluation records made on
the same seeds (`python -m training.evaluate ... --episodes 100 --seed 9000 --json X`, or a side of a
`training.comparison` record) and gives `training.comparison.judge`'s one-sided 90 % upper bound of
the mean paired difference (candidate - law) of the falls and of each guard metric.

    python results/push_recovery/rl/paired_bounds.py results/push_recovery/rl/comparison_wbc_s0_1M_9000.json:baseline \\
        results/push_recovery/rl/eval_torque_s2_1M_9000.json
"""

from __future__ import annotations

import json
import sys

from training.comparison import Claim, judge

METRICS = ("drift_m", "com_rmse_m", "steps_per_push")


def episodes(spec: str) -> tuple[int, list[dict]]:
    """(seed, episodes) of ``path`` or ``path:side`` (a comparison record's ``baseline`` or ``candidate``)."""
    path, _, side = spec.partition(":")
    record = json.load(open(path))
    if side:
        record = record[side]
    return record["seed"], record["episodes"]


def main(argv: list[str]) -> None:
    (law_seed, law), (seed, candidate) = episodes(argv[0]), episodes(argv[1])
    if law_seed != seed or len(law) != len(candidate):
        raise SystemExit(f"the records are not paired: seeds {law_seed} and {seed}, {len(law)} and {len(candidate)} episodes")
    falls = [sum(e["fell"] for e in side) for side in (law, candidate)]
    print(f"{len(law)} paired episodes from seed {seed}: falls law {falls[0]}, candidate {falls[1]}")
    for metric in METRICS:
        verdict = judge(law, candidate, Claim(metric, 0.0, 0.0))
        means = [sum(e[metric] for e in side) / len(side) for side in (law, candidate)]
        print(f"  {metric}: law {means[0]:.4g}, candidate {means[1]:.4g}; difference {verdict.metric_difference:+.4g}, "
              f"upper bound {verdict.metric_upper_bound:+.4g}")  # fmt: skip
    print(f"  falls: difference {verdict.fall_difference:+.3g}, upper bound {verdict.fall_upper_bound:+.3g}")


if __name__ == "__main__":
    main(sys.argv[1:])
