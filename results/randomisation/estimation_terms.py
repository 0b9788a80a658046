"""Which term of the moderate estimate costs the nominal controller most.

The ``estimation="moderate"`` preset with one part removed, or one part alone (white noise,
Gauss-Markov biases, delays); nominal controller, pushes off, episodes from seed 0, the env's own
task metric. How the table in ``results/randomisation/README.md`` ("Which part of the estimate")
was made::

    python results/randomisation/estimation_terms.py HumanoidWBCWall-v0 5
    python results/randomisation/estimation_terms.py HumanoidWBCSeesaw-v0 10
"""

from __future__ import annotations

import sys
from dataclasses import asdict

from humanoid_env.envs.estimation import NOISE_FIELDS, PRESETS
from training.evaluate import evaluate
from training.sample_efficiency import level_metric


def cells() -> dict[str, dict]:
    """Name -> ``estimation`` dict: the preset, it without joint-velocity noise, each part alone, and
    each bias alone."""
    preset = asdict(PRESETS["moderate"])
    noise = [k for k in NOISE_FIELDS if "noise" in k]
    bias = [k for k in NOISE_FIELDS if "bias" in k]

    def only(keys: list[str]) -> dict:
        return {k: (v if k in keys or k == "bias_time_constant_s" else 0) for k, v in preset.items()}

    return {
        "moderate": preset,
        "no joint-velocity noise": {**preset, "joint_velocity_noise_radps": 0.0},
        "joint-velocity noise only": only(["joint_velocity_noise_radps"]),
        "white noise only": only(noise),
        "biases only": only(bias),
        "delays only": only(["sensing_delay_steps", "actuation_delay_steps"]),
        **{f"{name} alone": only([name]) for name in bias},
    }


def main(env_id: str, episodes: int) -> None:
    metric, _, _ = level_metric(env_id)
    for name, setting in cells().items():
        summary = evaluate(env_id, "nominal", episodes, 0, env_kwargs={"push_magnitude_n": [0, 0], "estimation": setting})["summary"]
        falls = round(summary["fell"] * episodes)
        print(f"{name:28s} falls {falls}/{episodes}  {metric} {summary[metric]:.4g}  CoM RMSE {summary['com_rmse_m'] * 1e3:.1f} mm", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
