"""The one comparison tool: a candidate policy or controller against a baseline, episode by
episode on the same seeds, with a one-sided bootstrap bound and a verdict.

Every claim that something is better (or no worse) than something else goes through
[`judge`][training.comparison.judge]: the shipped-policy checks in CI, ``python -m training.shipped compare``, and the
perturbation matrix (``python -m benchmarks.shipped_matrix``).

How a verdict is reached. Episode ``i`` of both sides is reset with seed ``seed + i`` (the same
task, target moves and pushes: a paired design, which removes the episode-to-episode spread from
the difference). For the claim's metric ``m`` (lower is better) and for the fall indicator, the
per-episode differences ``d_i = candidate_i - baseline_i`` are resampled with replacement
(percentile bootstrap of the mean, ``resamples`` draws from a fixed generator, so a verdict is a
pure function of the episode records). The claim holds when both one-sided upper bounds at
``confidence`` are within their margins:

    upper(mean d_metric) <= metric_margin    and    upper(mean d_fell) <= fall_margin

A negative margin claims an improvement; a positive one, non-inferiority within that margin.

Perturbations (the matrix's cells; [`PERTURBATIONS`][training.comparison.PERTURBATIONS]): ``reference`` (the env's own QP solver,
the machine's threads), ``other_qp_solver`` (proxsuite where the env uses an exact active-set
solver, eiquadprog where it uses proxsuite: iterative vs exact solutions), ``initial_state_noise`` (every initial ``qpos`` entry times
``1 + 1e-9 N(0, 1)``, drawn per episode from the episode seed), ``one_thread`` (BLAS and OpenMP on
one thread instead of two: set by the process that runs the cell, see [`thread_environment`][training.comparison.thread_environment];
torch acts on one thread in every cell, [`training.evaluate.POLICY_TORCH_THREADS`][training.evaluate.POLICY_TORCH_THREADS]).

Negative controls (`NEGATIVE_CONTROLS`), which a check must reject in every cell: the
nominal controller with N(0, 0.3) action noise (clipped to the action box; the noise generator is
seeded per episode, so every cell sees the same noise), and the shipped policy with +0.2 added to
every action (clipped).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from training import jsonio

if TYPE_CHECKING:
    from training.evaluate import Policy

#: The matrix's cells; ``reference`` is the one CI runs.
PERTURBATIONS = ("reference", "other_qp_solver", "initial_state_noise", "one_thread")
#: Relative noise on the initial MuJoCo ``qpos`` in the ``initial_state_noise`` cell.
INITIAL_STATE_NOISE_REL = 1e-9
#: Action noise std of the ``noisy_nominal`` control (action units: the box is [-1, 1]).
CONTROL_NOISE_STD = 0.3
#: Offset added to every action of the ``offset_policy`` control (action units).
CONTROL_ACTION_OFFSET = 0.2
NEGATIVE_CONTROLS = ("noisy_nominal", "offset_policy")
#: Threads per process in every cell but ``one_thread`` (the 2 cores of the project's machines).
DEFAULT_THREADS = 2
#: Variables that set BLAS / OpenMP / torch intra-op threads; read when those libraries load.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True)
class Claim:
    """What a comparison asserts about ``candidate - baseline`` (lower is better).

    Attributes:
        metric: an episode metric of [`training.metrics`][training.metrics] (e.g. ``hand_force_rmse_n`` [N]).
        metric_margin: bound on the mean paired metric difference, in the metric's units
            (< 0: an improvement is claimed; > 0: no worse than this).
        fall_margin: bound on the paired difference of fall rates [falls per episode].
        confidence: one-sided level of both bootstrap upper bounds.
    """

    metric: str
    metric_margin: float
    fall_margin: float
    confidence: float = 0.9

    def __post_init__(self) -> None:
        if not 0.5 <= self.confidence < 1.0:
            raise ValueError(f"confidence must be in [0.5, 1), got {self.confidence}")

    def describe(self) -> str:
        """One sentence of what is claimed."""
        return (
            f"{int(round(self.confidence * 100))} % upper bounds: mean {self.metric} difference <= "
            f"{self.metric_margin:+g} and fall-rate difference <= {self.fall_margin:+g}"
        )


@dataclass(frozen=True)
class Verdict:
    """The outcome of [`judge`][training.comparison.judge] (differences are candidate - baseline)."""

    passed: bool
    claim: Claim
    episodes: int
    metric_difference: float
    metric_upper_bound: float
    fall_difference: float
    fall_upper_bound: float
    candidate_better_episodes: int
    reasons: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "claim": asdict(self.claim), "reasons": list(self.reasons)}

    def summary(self) -> str:
        status = "PASS" if self.passed else "FAIL"
        return (
            f"{status}: {self.claim.metric} {self.metric_difference:+.4g} (upper {self.metric_upper_bound:+.4g}, "
            f"margin {self.claim.metric_margin:+g}), falls {self.fall_difference:+.3g} "
            f"(upper {self.fall_upper_bound:+.3g}, margin {self.claim.fall_margin:+g}), "
            f"{self.episodes} paired episodes"
        )


def bootstrap_upper_bound(differences: Sequence[float], confidence: float, resamples: int = 20_000, seed: int = 0) -> float:
    """One-sided upper ``confidence`` bound of the mean of ``differences`` (percentile bootstrap).

    Deterministic: the resampling generator is seeded with ``seed``. NaN differences (a metric
    an episode could not compute) are an error, not silently dropped.
    """
    values = np.asarray(differences, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"differences must be a non-empty 1-D sequence, got shape {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"differences must be finite, got {values.tolist()}")
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, values.size, size=(resamples, values.size))].mean(axis=1)
    return float(np.quantile(means, confidence))


def judge(baseline: Sequence[dict[str, Any]], candidate: Sequence[dict[str, Any]], claim: Claim) -> Verdict:
    """Paired verdict on two lists of episode records (as [`training.evaluate.evaluate`][training.evaluate.evaluate]
    returns them under ``"episodes"``, episode ``i`` of both on the same seed)."""
    if len(baseline) != len(candidate) or not baseline:
        raise ValueError(f"need the same non-zero number of episodes, got {len(baseline)} and {len(candidate)}")
    missing = [who for who, records in (("baseline", baseline), ("candidate", candidate)) if claim.metric not in records[0]]
    if missing:
        raise ValueError(f"metric {claim.metric!r} is not in the {' and '.join(missing)} records: {sorted(baseline[0])}")
    metric = np.array([float(c[claim.metric]) - float(b[claim.metric]) for b, c in zip(baseline, candidate, strict=True)])
    falls = np.array([float(c["fell"]) - float(b["fell"]) for b, c in zip(baseline, candidate, strict=True)])
    metric_upper = bootstrap_upper_bound(metric, claim.confidence)
    fall_upper = bootstrap_upper_bound(falls, claim.confidence)
    reasons = []
    if metric_upper > claim.metric_margin:
        reasons.append(f"{claim.metric}: upper bound {metric_upper:+.4g} > margin {claim.metric_margin:+g}")
    if fall_upper > claim.fall_margin:
        reasons.append(f"fall rate: upper bound {fall_upper:+.3g} > margin {claim.fall_margin:+g}")
    return Verdict(
        passed=not reasons,
        claim=claim,
        episodes=len(baseline),
        metric_difference=float(metric.mean()),
        metric_upper_bound=metric_upper,
        fall_difference=float(falls.mean()),
        fall_upper_bound=fall_upper,
        candidate_better_episodes=int(np.sum(metric < 0)),
        reasons=tuple(reasons),
    )


# -- rollouts under a perturbation ----------------------------------------------------------

ResetHook = Callable[[Any, int], None]


def thread_environment(threads: int) -> dict[str, str]:
    """Environment variables that cap BLAS and OpenMP at ``threads`` (set them before the process
    imports numpy: ``benchmarks.shipped_matrix`` starts each cell's process with them)."""
    return {name: str(int(threads)) for name in THREAD_VARIABLES}


def other_qp_solver(solver: str) -> str:
    """proxsuite (iterative) for an exact active-set solver (eiquadprog, DAQP), eiquadprog for proxsuite."""
    return {"eiquadprog": "proxsuite", "daqp": "proxsuite", "proxsuite": "eiquadprog"}[solver]


def perturbed_env_kwargs(env_id: str, env_kwargs: dict[str, Any], perturbation: str) -> dict[str, Any]:
    """The env keywords of a cell: ``other_qp_solver`` swaps the env's QP solver, the rest keep them."""
    if perturbation not in PERTURBATIONS:
        raise ValueError(f"perturbation must be one of {PERTURBATIONS}, got {perturbation!r}")
    kwargs = dict(env_kwargs)
    if perturbation == "other_qp_solver":
        kwargs["qp_solver"] = other_qp_solver(kwargs.get("qp_solver") or env_defaults(env_id)["qp_solver"])
    return kwargs


def env_defaults(env_id: str) -> dict[str, Any]:
    """The keyword defaults (``DEFAULTS``) of a registered humanoid-wbc env class."""
    import gymnasium as gym
    from gymnasium.envs.registration import load_env_creator

    import humanoid_env  # noqa: F401  (registers the envs)

    return load_env_creator(gym.spec(env_id).entry_point).DEFAULTS


def initial_state_noise_hook(relative: float = INITIAL_STATE_NOISE_REL) -> ResetHook:
    """After each reset: ``qpos *= 1 + relative N(0, 1)`` (generator seeded by the episode seed),
    then ``mj_forward``. The first observation is the unperturbed one (it differs by ~1e-9)."""
    import mujoco

    def hook(env: Any, episode_seed: int) -> None:
        data = env.unwrapped.data
        rng = np.random.default_rng([episode_seed, 0x5EED])
        data.qpos[:] *= 1.0 + relative * rng.standard_normal(data.qpos.shape)
        mujoco.mj_forward(env.unwrapped.model, data)

    return hook


class NoisyNominal:
    """Negative control: the nominal controller (zero action) plus N(0, ``std``) noise per action
    entry and env step, clipped to [-1, 1]; the generator restarts from the episode seed."""

    __name__ = "noisy_nominal"

    def __init__(self, std: float = CONTROL_NOISE_STD):
        self.std = std
        self.rng = np.random.default_rng(0)

    def reset(self, env: Any, episode_seed: int) -> None:
        self.rng = np.random.default_rng([episode_seed, 0x0015E])

    def __call__(self, obs: np.ndarray, env: Any) -> np.ndarray:
        return np.clip(self.rng.normal(0.0, self.std, env.action_space.shape), -1.0, 1.0)


class OffsetPolicy:
    """Negative control: ``policy``'s action plus ``offset`` on every entry, clipped to [-1, 1]."""

    __name__ = "offset_policy"

    def __init__(self, policy: Policy, offset: float = CONTROL_ACTION_OFFSET):
        self.policy = policy
        self.offset = offset

    def __call__(self, obs: np.ndarray, env: Any) -> np.ndarray:
        return np.clip(np.asarray(self.policy(obs, env), dtype=float) + self.offset, -1.0, 1.0)


def chain_hooks(*hooks: ResetHook | None) -> ResetHook | None:
    """One reset hook calling each given one in order (None: there is none)."""
    present = [hook for hook in hooks if hook is not None]
    if not present:
        return None

    def hook(env: Any, episode_seed: int) -> None:
        for each in present:
            each(env, episode_seed)

    return hook


def rollouts(
    env_id: str,
    policy: str | Policy,
    episodes: int,
    seed: int,
    perturbation: str = "reference",
    env_kwargs: dict[str, Any] | None = None,
    max_steps: int | None = None,
) -> dict[str, Any]:
    """[`training.evaluate.evaluate`][training.evaluate.evaluate] under ``perturbation`` (threads excepted: they are the
    process's, see [`thread_environment`][training.comparison.thread_environment]); returns its record."""
    from training.evaluate import evaluate

    kwargs = perturbed_env_kwargs(env_id, env_kwargs or {}, perturbation)
    noise = initial_state_noise_hook() if perturbation == "initial_state_noise" else None
    policy_reset = getattr(policy, "reset", None) if callable(policy) else None
    return evaluate(
        env_id, policy, episodes, seed, max_steps=max_steps, env_kwargs=kwargs, on_reset=chain_hooks(noise, policy_reset)
    )


def threads_in_use() -> dict[str, Any]:
    """What this process runs on: the thread variables and torch's intra-op threads (if loaded)."""
    torch = sys.modules.get("torch")
    return {
        **{name: os.environ.get(name) for name in THREAD_VARIABLES},
        "torch_threads": torch.get_num_threads() if torch is not None else None,
    }


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.comparison", description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True)
    parser.add_argument("--candidate", required=True, help="run folder or model zip (or nominal)")
    parser.add_argument("--baseline", default="nominal", help="nominal (default), run folder or model zip")
    parser.add_argument("--metric", required=True, help="episode metric, lower is better (e.g. com_rmse_m)")
    parser.add_argument("--metric-margin", type=float, default=0.0, help="in the metric's units (< 0: improvement)")
    parser.add_argument("--fall-margin", type=float, default=0.0, help="fall-rate difference allowed")
    parser.add_argument("--confidence", type=float, default=0.9)
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--max-steps", type=int, default=None)
    parser.add_argument("--perturbation", choices=PERTURBATIONS, default="reference")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--trust-pickle", action="store_true", help="load pickled run files (runs code from them: trusted files only)"
    )
    args = parser.parse_args(argv)
    from training.evaluate import EvaluationError, load_policy, policy_files

    try:
        claim = Claim(args.metric, args.metric_margin, args.fall_margin, args.confidence)
        # Both sides run with the candidate's training keywords (a model zip brings its run's).
        env_kwargs = {} if args.candidate == "nominal" else policy_files(args.candidate).env_kwargs
        records = {
            who: rollouts(
                args.env, load_policy(spec, args.trust_pickle), args.episodes, args.seed, args.perturbation, env_kwargs,
                args.max_steps,
            )  # fmt: skip
            for who, spec in (("baseline", args.baseline), ("candidate", args.candidate))
        }
        verdict = judge(records["baseline"]["episodes"], records["candidate"]["episodes"], claim)
    except (EvaluationError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{args.env}: {args.candidate} vs {args.baseline}; claim: {claim.describe()}\n{verdict.summary()}")
    for reason in verdict.reasons:
        print(f"  {reason}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(jsonio.dumps({"verdict": verdict.as_dict(), **records}, indent=2))
    return 0 if verdict.passed else 1


if __name__ == "__main__":
    sys.exit(_main())
