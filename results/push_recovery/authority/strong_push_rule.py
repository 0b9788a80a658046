"""A privileged rule over the `step` action: step sooner and faster after strong pushes only.

`step_authority.py` found that of the nominal law's 21 falls on seeds 5000-5049, 13 are survived
under some constant `step` adjustment held through the push, most often "sooner and faster"
(timing -1, trigger -1: 7 falls), while held always the same adjustment falls more (the law
settings' table: trigger -1 on every push, 61 falls against 43). Does it help when given only
after the strong pushes? This rule reads the push itself (privileged: a policy sees only its
effect, the state one env step later): for `--window` s after the start of a push whose impulse
(force times duration) is at least `--impulse` N s, the `step` block is (0, 0, -1, -1); else zero.
Paired with the nominal law's record on the same seeds.

    python results/push_recovery/authority/strong_push_rule.py --impulse 11 --json results/push_recovery/authority/rule_11.json
"""

from __future__ import annotations

import argparse

import numpy as np

from training.comparison import Claim, judge
from training.evaluate import evaluate
from training.jsonio import write_json

ENV_ID = "HumanoidWBCPushRecovery-v0"
SOONER_FASTER = np.array([0.0, 0.0, -1.0, -1.0])


class StrongPushRule:
    """The rule as a ``policy(obs, env) -> action`` for `training.evaluate.evaluate`."""

    def __init__(self, impulse_ns: float, window_s: float, block: np.ndarray = SOONER_FASTER):
        self.impulse_ns, self.window_s, self.block = impulse_ns, window_s, block
        self.__name__ = f"strong_push_rule_{impulse_ns:g}Ns"

    def __call__(self, obs: np.ndarray, env) -> np.ndarray:
        inner = env.unwrapped
        action = np.zeros(env.action_space.shape)
        pushes = inner.plant.pushes
        if pushes.starts and inner.data.time - pushes.starts[-1] < self.window_s:
            if float(np.linalg.norm(pushes.force)) * pushes.duration_s >= self.impulse_ns:
                action[inner.actuation.index("step")] = self.block
        return action


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impulse", type=float, required=True, help="[N s] the pushes the rule answers")
    parser.add_argument("--window", type=float, default=0.6, help="[s] after the push's start")
    parser.add_argument("--law", default="results/push_recovery/nominal_hubo_lite_160.json", help="the law's record (its seeds)")
    parser.add_argument("--json", required=True)
    args = parser.parse_args(argv)
    import json

    law = json.load(open(args.law))
    rule = evaluate(ENV_ID, StrongPushRule(args.impulse, args.window), len(law["episodes"]), law["seed"], env_kwargs=law["env_kwargs"])
    falls = [sum(e["fell"] for e in side["episodes"]) for side in (law, rule)]
    print(f"{len(law['episodes'])} paired episodes from seed {law['seed']}: falls law {falls[0]}, rule {falls[1]}")
    verdicts = {}
    for metric in ("drift_m", "com_rmse_m", "steps_per_push"):
        v = judge(law["episodes"], rule["episodes"], Claim(metric, 0.0, 0.0))
        verdicts[metric] = v.as_dict()
        print(f"  {metric}: difference {v.metric_difference:+.4g}, upper bound {v.metric_upper_bound:+.4g}")
    print(f"  falls: difference {v.fall_difference:+.3g}, upper bound {v.fall_upper_bound:+.3g}")
    write_json(args.json, {"rule": vars(args), "law_falls": falls[0], "rule_falls": falls[1], "verdicts": verdicts, "rule_record": rule})


if __name__ == "__main__":
    main()
