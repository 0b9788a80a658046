"""A trained or shipped policy as ONNX, to run outside Python's training stack (no torch, no SB3).

Usage:

    python -m training.export --run RUN --onnx FILE

RUN is a run folder of ``python -m training.train``, its ``best/``, a model zip inside one
(``model.zip``, ``best/best_model.zip``, ``checkpoints/model_N_steps.zip``) or a shipped policy
folder (``policies/<env id>/``), found as [`training.run_folder.find_run_files`][training.run_folder.find_run_files] finds it and
loaded as evaluation loads it, without unpickling anything: the model through
[`training.model_file.load_model_safely`][training.model_file.load_model_safely] (in the env of the run's ``config.yaml``), the
normalisation statistics from ``vecnormalize.json`` ([`training.normalisation`][training.normalisation]). A folder
with only the pickled ``vecnormalize.pkl`` is refused (convert it once with
``python -m training.normalisation convert RUN``).

The ONNX graph takes the raw observation, ``obs``: float32 of shape ``(batch, n)`` (``batch`` >= 1,
``n`` the env's observation size) and gives ``action``: float32 of shape ``(batch, m)``, the
action SB3's ``model.predict(normalize_obs(obs), deterministic=True)`` gives, that is:

1. VecNormalize's ``normalize_obs`` in float64, then cast to float32, as SB3 computes it:
   ``clip((obs - mean) / sqrt(var + epsilon), -clip_obs, clip_obs)`` (identity without statistics);
2. the policy network's deterministic action (PPO ``MlpPolicy``: the Gaussian's mean; SAC
   ``MlpPolicy``: ``tanh`` of its mean);
3. what ``predict`` does to a Box action: PPO clips it to the action space's bounds, SAC rescales
   its ``tanh`` output from [-1, 1] to [low, high] (both clamped so that rounding never leaves
   the bounds: onnxruntime's float32 ``tanh`` can leave [-1, 1] by an ulp; this moves only such
   an action, by a few ulps, onto its bound).

The model's metadata (``metadata_props``, strings; onnxruntime's ``custom_metadata_map``) says
``env_id``, ``env_kwargs`` (JSON: the ``gym.make`` keywords), ``observation_size``,
``action_size``, ``action_low`` / ``action_high`` (JSON lists), ``algo``, the normalisation
(``clip_obs``, ``epsilon``), and where the policy came from: ``source`` (RUN as given),
``source_model`` / ``source_statistics`` with their sha256, the checkout's git commit, the torch,
SB3 and exporter versions. See [`METADATA_KEYS`][training.export.METADATA_KEYS].

The graph is written by torch's TorchScript-based exporter (``torch.onnx.export(...,
dynamo=False)``): it needs only ``onnx`` and writes the same bytes for the same model (checked
in ``tests/test_export.py``); torch 2.13's default exporter (``dynamo=True``) also needs
``onnxscript`` and ``onnx-ir`` and is 4x slower here, for the same graph. Before the file is
written, onnxruntime's actions are checked against SB3's on observations of the env (resets and
their extremes, clipped ones among them) to [`VERIFY_TOLERANCE`][training.export.VERIFY_TOLERANCE]; the file is written through
a temporary file and a rename. Errors: ``error: ...`` on stderr, exit status 2 (a bad RUN or
FILE) or 1 (the exported graph disagrees with SB3).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from training import jsonio
from training.normalisation import NormalisationStatistics, StatisticsFileError, read_statistics
from training.run_folder import STATS_FILE, RunFiles, RunFolderError, find_run_files

#: What ``metadata_props["format"]`` says.
FORMAT = "humanoid-wbc exported policy"
FORMAT_VERSION = 1
#: ONNX opset of the graph (onnxruntime >= 1.12 runs it).
OPSET = 17
INPUT_NAME = "obs"
OUTPUT_NAME = "action"
#: Largest |onnxruntime action - SB3 action| accepted when the export is checked (actions in the
#: action space's units; the float32 MLPs of the two runtimes differ by up to 5.4e-7 on the shipped
#: policies, measured in tests/test_export.py).
VERIFY_TOLERANCE = 1e-5
#: Keys of the model's ``metadata_props`` (all values strings; JSON where noted in the module docstring).
METADATA_KEYS = (
    "format", "format_version", "env_id", "env_kwargs", "observation_size", "action_size", "action_low",
    "action_high", "algo", "normalisation", "clip_obs", "epsilon", "source", "source_model",
    "source_model_sha256", "source_statistics", "source_statistics_sha256", "git_commit", "git_dirty",
    "torch", "stable_baselines3", "onnx", "exporter",
)  # fmt: skip
#: Seeds of the env resets whose observations (and their extremes) check an export.
VERIFY_SEEDS = (0, 1, 2, 3)
#: The extremes: each reset observation moved by these multiples of the statistics' std (obs far
#: outside ``clip_obs``, actions on the bounds).
VERIFY_SCALES = (-50.0, -3.0, 3.0, 50.0)


class ExportError(ValueError):
    """A run, a model or an output path cannot be exported to; the message says why."""


class VerificationError(RuntimeError):
    """The exported graph's actions differ from SB3's by more than the tolerance."""


# -- the graph ------------------------------------------------------------------------------------


def policy_graph(model, stats: NormalisationStatistics | None):
    """A ``torch.nn.Module`` mapping raw observations ``(batch, n)`` float32 to the actions
    ``(batch, m)`` float32 of ``model.predict(normalize_obs(obs), deterministic=True)`` (see the
    module docstring); ``stats``: the normalisation (None: none). The policy's own modules are
    used, in eval mode, with their weights (not copied). Raises [`ExportError`][training.export.ExportError] for a model
    that is not an SB3 PPO or SAC MlpPolicy with Box spaces."""
    import torch
    from gymnasium import spaces
    from stable_baselines3 import PPO, SAC
    from stable_baselines3.common.distributions import (
        DiagGaussianDistribution,
        StateDependentNoiseDistribution,
    )
    from stable_baselines3.common.torch_layers import FlattenExtractor

    policy = model.policy
    for name in ("observation_space", "action_space"):
        space = getattr(policy, name)
        if not isinstance(space, spaces.Box):
            raise ExportError(f"the policy's {name} is {space}: only Box spaces can be exported")
    n = int(np.prod(policy.observation_space.shape))
    if isinstance(model, PPO):  # ActorCriticPolicy.get_distribution(obs).mode()
        extractor, latent, head = policy.pi_features_extractor, policy.mlp_extractor.policy_net, policy.action_net
        if not isinstance(policy.action_dist, (DiagGaussianDistribution, StateDependentNoiseDistribution)):
            raise ExportError(f"PPO's action distribution {type(policy.action_dist).__name__} cannot be exported")
        tanh_mean = getattr(policy.action_dist, "bijector", None) is not None  # gSDE + squash_output: tanh(mean)
    elif isinstance(model, SAC):  # Actor.forward(obs, deterministic=True)
        extractor, latent, head = policy.actor.features_extractor, policy.actor.latent_pi, policy.actor.mu
        tanh_mean = True
    else:
        raise ExportError(f"a {type(model).__name__} model cannot be exported (PPO or SAC only)")
    if not isinstance(extractor, FlattenExtractor):
        raise ExportError(f"the policy's features extractor is {type(extractor).__name__}: MlpPolicy's only")
    if stats is not None and stats.norm_obs and stats.observation_shape != tuple(policy.observation_space.shape):
        raise ExportError(
            f"the statistics are of observations of shape {stats.observation_shape}, the policy takes "
            f"{tuple(policy.observation_space.shape)}"
        )

    class PolicyGraph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            normalise = stats is not None and stats.norm_obs
            self.normalise = normalise
            if normalise:
                # float64, as VecNormalize computes (np.sqrt(var + epsilon) as it does, once here).
                self.register_buffer("mean", torch.from_numpy(stats.obs_rms.mean.reshape(1, n).copy()))
                std = np.sqrt(stats.obs_rms.var + stats.epsilon).reshape(1, n)
                self.register_buffer("std", torch.from_numpy(std))
                self.clip_obs = float(stats.clip_obs)
            space = policy.action_space
            self.register_buffer("low", torch.from_numpy(space.low.astype(np.float32).reshape(1, -1)))
            self.register_buffer("high", torch.from_numpy(space.high.astype(np.float32).reshape(1, -1)))
            self.squash_output = bool(policy.squash_output)
            self.extractor, self.latent, self.head = extractor, latent, head

        def forward(self, obs):
            if self.normalise:  # VecNormalize.normalize_obs, then its cast to float32
                obs = torch.clamp((obs.double() - self.mean) / self.std, -self.clip_obs, self.clip_obs).float()
            mean = self.head(self.latent(self.extractor(obs)))
            # onnxruntime's float32 tanh can leave [-1, 1] by an ulp (torch's does not): clamped
            action = torch.clamp(torch.tanh(mean), -1.0, 1.0) if tanh_mean else mean
            if self.squash_output:  # BasePolicy.unscale_action, in its order of operations
                action = self.low + (0.5 * (action + 1.0) * (self.high - self.low))
            # PPO: predict's np.clip; SAC: keeps the rescaled action inside the bounds despite rounding
            return torch.minimum(torch.maximum(action, self.low), self.high)

    policy.set_training_mode(False)
    return PolicyGraph().eval()


def onnx_bytes(model, stats: NormalisationStatistics | None, metadata: dict[str, str]) -> bytes:
    """The ONNX model (serialised) of [`policy_graph`][training.export.policy_graph], with a dynamic batch axis and
    ``metadata`` as its ``metadata_props``; checked by ``onnx.checker``."""
    import onnx
    import torch

    graph = policy_graph(model, stats)
    n = int(np.prod(model.policy.observation_space.shape))
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore", DeprecationWarning)  # the TorchScript exporter's notice
        torch.onnx.export(
            graph, (torch.zeros(1, n, dtype=torch.float32),), buffer, dynamo=False, opset_version=OPSET,
            input_names=[INPUT_NAME], output_names=[OUTPUT_NAME],
            dynamic_axes={INPUT_NAME: {0: "batch"}, OUTPUT_NAME: {0: "batch"}},
        )  # fmt: skip
    proto = onnx.load_from_string(buffer.getvalue())
    proto.producer_name = "humanoid-wbc training.export"
    proto.doc_string = (
        f"{metadata.get('algo', '?').upper()} policy for {metadata.get('env_id', '?')}: {INPUT_NAME} float32 "
        f"(batch, {n}) raw observation -> {OUTPUT_NAME} float32 (batch, {metadata.get('action_size', '?')}) "
        "deterministic action (observation normalisation and action clipping included)"
    )
    del proto.metadata_props[:]
    for key, value in metadata.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, str(value)
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


def onnx_session(source: bytes | str | Path):
    """An onnxruntime CPU session of an exported policy (bytes or a file), on one thread."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    model = source if isinstance(source, bytes) else str(source)
    return ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])


def onnx_actions(session, obs: np.ndarray) -> np.ndarray:
    """The exported policy's actions ``(batch, m)`` for observations ``(batch, n)`` or ``(n,)``."""
    obs = np.asarray(obs, dtype=np.float32)
    return session.run([OUTPUT_NAME], {INPUT_NAME: obs.reshape(-1, obs.shape[-1])})[0]


def sb3_actions(model, stats: NormalisationStatistics | None, obs: np.ndarray) -> np.ndarray:
    """SB3's actions ``(batch, m)`` for observations ``(batch, n)``: ``predict(normalize_obs(obs),
    deterministic=True)`` with a frozen VecNormalize of ``stats`` (what evaluation does)."""
    from training.normalisation import frozen_vecnormalize

    obs = np.asarray(obs, dtype=np.float32).reshape(-1, *model.policy.observation_space.shape)
    if stats is not None:
        obs = frozen_vecnormalize(stats).normalize_obs(obs)
    return model.predict(obs, deterministic=True)[0].reshape(len(obs), -1)


def verification_observations(env, stats: NormalisationStatistics | None) -> np.ndarray:
    """Observations ``(k, n)`` float32 that check an export: the env's resets ([`VERIFY_SEEDS`][training.export.VERIFY_SEEDS])
    and each moved by [`VERIFY_SCALES`][training.export.VERIFY_SCALES] times the statistics' std (1 without statistics)."""
    resets = np.stack([env.reset(seed=seed)[0] for seed in VERIFY_SEEDS]).astype(np.float32)
    std = np.ones(resets.shape[1])
    if stats is not None and stats.obs_rms is not None:
        std = np.sqrt(stats.obs_rms.var + stats.epsilon)
    signs = np.where(np.arange(resets.shape[1]) % 2 == 0, 1.0, -1.0)  # every other entry the other way
    moved = [resets + scale * signs * std for scale in VERIFY_SCALES]
    return np.concatenate([resets, *moved]).astype(np.float32)


def check_agreement(session, model, stats: NormalisationStatistics | None, obs: np.ndarray) -> float:
    """The largest |onnxruntime action - SB3 action| on ``obs`` ``(k, n)``; raises
    [`VerificationError`][training.export.VerificationError] above [`VERIFY_TOLERANCE`][training.export.VERIFY_TOLERANCE]."""
    ours, theirs = onnx_actions(session, obs), sb3_actions(model, stats, obs)
    if ours.shape != theirs.shape:
        raise VerificationError(f"the exported graph gives actions of shape {ours.shape}, SB3 {theirs.shape}")
    worst = float(np.max(np.abs(ours.astype(np.float64) - theirs))) if ours.size else 0.0
    if not worst <= VERIFY_TOLERANCE:
        raise VerificationError(
            f"the exported graph's actions differ from SB3's by up to {worst:.3g} (tolerance {VERIFY_TOLERANCE:g})"
        )
    return worst


# -- from a run -------------------------------------------------------------------------------------


def run_statistics(files: RunFiles) -> NormalisationStatistics | None:
    """The run's normalisation statistics from ``vecnormalize.json`` (None: trained without);
    never unpickles: only-pickled statistics raise [`ExportError`][training.export.ExportError] saying how to convert."""
    if files.statistics is not None:
        try:
            return read_statistics(files.statistics)
        except StatisticsFileError as err:
            raise ExportError(str(err)) from None
    if files.vecnormalize is not None:
        raise ExportError(
            f"{files.vecnormalize}: the normalisation statistics are only pickled (no {STATS_FILE} beside it), "
            "and unpickling runs code from the file; if you trust it, convert the folder once with "
            f"`python -m training.normalisation convert {files.vecnormalize.parent}`"
        )
    if (files.config.get("config") or {}).get("normalize"):
        raise ExportError(f"{files.model}: trained with VecNormalize, but its statistics are missing")
    return None


def _sha256(path: Path | None) -> str:
    return "" if path is None else hashlib.sha256(Path(path).read_bytes()).hexdigest()


def export_metadata(
    source: str, files: RunFiles, env_id: str, env_kwargs: dict[str, Any], model,
    stats: NormalisationStatistics | None, algo: str,
) -> dict[str, str]:  # fmt: skip
    """The ``metadata_props`` of an export ([`METADATA_KEYS`][training.export.METADATA_KEYS], every value a string)."""
    import onnx
    import stable_baselines3
    import torch

    from training.provenance import provenance

    record = provenance()
    space = model.policy.action_space
    normalised = stats is not None and stats.norm_obs
    meta = {
        "format": FORMAT,
        "format_version": str(FORMAT_VERSION),
        "env_id": env_id,
        "env_kwargs": jsonio.dumps(env_kwargs, sort_keys=True),
        "observation_size": str(int(np.prod(model.policy.observation_space.shape))),
        "action_size": str(int(np.prod(space.shape))),
        # an unbounded side is written as null (strict JSON): no bound there
        "action_low": jsonio.dumps(space.low.astype(float).ravel().tolist()),
        "action_high": jsonio.dumps(space.high.astype(float).ravel().tolist()),
        "algo": algo,
        "normalisation": "clip((obs - mean) / sqrt(var + epsilon), -clip_obs, clip_obs)" if normalised else "none",
        "clip_obs": repr(stats.clip_obs) if normalised else "",
        "epsilon": repr(stats.epsilon) if normalised else "",
        "source": source,
        "source_model": str(files.model),
        "source_model_sha256": _sha256(files.model),
        "source_statistics": str(files.statistics or ""),
        "source_statistics_sha256": _sha256(files.statistics),
        "git_commit": str(record["git_commit"] or ""),
        "git_dirty": str(record["git_dirty"]).lower(),
        "torch": torch.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "onnx": onnx.__version__,
        "exporter": f"torch.onnx.export(dynamo=False), opset {OPSET}",
    }
    assert tuple(meta) == METADATA_KEYS
    return meta


def check_output_file(path: Path) -> None:
    """[`ExportError`][training.export.ExportError] unless a file can be written at ``path`` (its folder is created)."""
    from training.evaluate import EvaluationError, check_output_path

    try:
        check_output_path(path, "--onnx")
    except EvaluationError as err:
        raise ExportError(str(err)) from None


def export_run(run: str | Path, onnx_path: str | Path) -> dict[str, Any]:
    """Export the policy of ``run`` (see the module docstring) to ``onnx_path``, checked against SB3.

    Returns ``{"onnx": path, "metadata": {...}, "max_action_error": float, "checked_observations":
    int}``. Raises [`ExportError`][training.export.ExportError] (a bad run, model or path, before anything is written) or
    [`VerificationError`][training.export.VerificationError] (nothing is written then either).
    """
    import gymnasium as gym
    import torch

    import humanoid_env  # noqa: F401  (registers the environments)
    from training.config import check_env_id
    from training.evaluate import POLICY_TORCH_THREADS, EvaluationError, load_safe_model, policy_algo

    onnx_path = Path(onnx_path)
    check_output_file(onnx_path)
    try:
        files = find_run_files(run)
    except RunFolderError as err:
        raise ExportError(f"--run must be a run folder, its best/, a model zip or a shipped policy folder: {err}") from None
    env_id = files.config.get("env")
    if env_id is None:
        raise ExportError(
            f"{files.model}: no config.yaml beside it (or in the folder above) says which env it acts in: "
            "export a run folder or a model zip inside one"
        )
    try:
        check_env_id(env_id)
        algo = policy_algo(files)
    except (EvaluationError, ValueError) as err:
        raise ExportError(f"{files.config_file}: {err}") from None
    stats = run_statistics(files)
    torch.set_num_threads(POLICY_TORCH_THREADS)
    try:
        env = gym.make(env_id, **files.env_kwargs)
    except (TypeError, ValueError) as err:  # the envs name the bad keyword and what is allowed
        raise ExportError(f"{files.config_file}: cannot make {env_id} with env_kwargs {files.env_kwargs}: {err}") from None
    try:
        try:
            model = load_safe_model(files, algo, env)
        except EvaluationError as err:
            raise ExportError(str(err)) from None
        algo = algo or type(model).__name__.lower()
        metadata = export_metadata(str(run), files, env_id, files.env_kwargs, model, stats, algo)
        data = onnx_bytes(model, stats, metadata)
        obs = verification_observations(env, stats)
        worst = check_agreement(onnx_session(data), model, stats, obs)
    finally:
        env.close()
    write_file(data, onnx_path)
    return {"onnx": str(onnx_path), "metadata": metadata, "max_action_error": worst, "checked_observations": len(obs)}


def write_file(data: bytes, path: Path) -> Path:
    """Write ``data`` to ``path`` through a temporary file and a rename (never a partial file)."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m training.export", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--run", required=True,
        help="a run folder, its best/, a model zip inside one, or a shipped policy folder (policies/<env id>)",
    )  # fmt: skip
    parser.add_argument("--onnx", type=Path, required=True, help="the ONNX file to write")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        result = export_run(args.run, args.onnx)
    except ExportError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except VerificationError as err:
        print(f"error: {args.run}: {err}; nothing written", file=sys.stderr)
        return 1
    meta = result["metadata"]
    print(
        f"{args.run} -> {args.onnx}: {meta['algo'].upper()} policy for {meta['env_id']}, obs ({meta['observation_size']},) "
        f"-> action ({meta['action_size']},); onnxruntime agrees with SB3 to {result['max_action_error']:.2g} "
        f"on {result['checked_observations']} observations"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
