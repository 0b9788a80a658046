#!/usr/bin/env bash
# Probe of the long ablation's wbc exploration noise (results/ablation/README.md, "At scale"):
# the balance wbc run of run.sh (configs/tuned, PPO, seed 0, the default pushes) with a smaller
# initial exploration noise, log_std_init -3 instead of -2, 200k steps, evaluated like the
# ablation's snapshots (10 deterministic episodes from reset seed 100000). About 10 min
# on a free core. Resumable (--resume).
set -u
cd "$(dirname "$0")/../../../.."
OUT=results/ablation/scale/noise_probe
LOG_STD=-3
  .venv/bin/python -m training.train --env HumanoidWBC-v0 --algo ppo \
    --config configs/tuned/HumanoidWBC-v0_ppo_wbc.yml --timesteps 200000 --seed 0 \
    --run-dir "$OUT/log_std$LOG_STD" --resume --no-progress-bar \
    --params "policy_kwargs={log_std_init: $LOG_STD}" "snapshot_steps=[20000,50000,100000,200000]" \
    snapshot_eval_episodes=10 snapshot_eval_seed=100000
