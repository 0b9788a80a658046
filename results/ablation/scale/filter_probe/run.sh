#!/usr/bin/env bash
# Probe of the wbc action's reference shaping (results/ablation/README.md, "At scale"): the
# balance wbc run of ../kl_probe (configs/tuned, PPO, seed 0, the default pushes, target_kl 0.02)
# with the CoM offset low-passed before its rate limit (com_offset_filter_s = 0.1 s: the offset's
# velocity, which the CoM task's damping tracks, is continuous and small instead of jumping to
# the 0.25 m/s rate limit at every new action), 200k steps, evaluated like the ablation's
# snapshots (10 deterministic episodes from reset seed 100000). About 10 min on a free core.
# Resumable (--resume).
set -u
cd "$(dirname "$0")/../../../.."
.venv/bin/python -m training.train --env HumanoidWBC-v0 --algo ppo \
  --config configs/tuned/HumanoidWBC-v0_ppo_wbc.yml --timesteps 200000 --seed 0 \
  --run-dir results/ablation/scale/filter_probe/wbc_filter0.1_target_kl0.02 --resume --no-progress-bar \
  --env-kwargs action_mode=wbc com_offset_filter_s=0.1 \
  --params target_kl=0.02 "snapshot_steps=[20000,50000,100000,200000]" \
  snapshot_eval_episodes=10 snapshot_eval_seed=100000
