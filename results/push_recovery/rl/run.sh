#!/usr/bin/env bash
# Stepping II (issue 38): PPO on HumanoidWBCPushRecovery-v0 (its defaults: the per-robot pushes fixed by
# results/push_recovery/README.md's rule) through the stepping law (wbc) and on the joints (pd,
# torque), configs/push_recovery/, every run snapshotted and evaluated on 10 episodes (seeds
# 100000-100009) at the totals below, beside the nominal stepping law on the same episodes, into
# HumanoidWBCPushRecovery-v0_ppo/. Resumable: run it again and every unfinished run goes on from its
# latest snapshot (commit the latest snapshot of an unfinished run with git add -f, as
# results/walking/rl does); `--report-only` rewrites the tables. Extra arguments go to
# training.ablation (e.g. --seeds 0 1 2 --modes wbc).
set -u
cd "$(dirname "$0")/../../.."
SNAP="10000 20000 50000 100000 200000 300000 400000 500000 750000 1000000 1500000 2000000 2500000 3000000"
ENV=HumanoidWBCPushRecovery-v0
.venv/bin/python -m training.ablation --env "$ENV" --algo ppo --timesteps 3000000 --seeds 0 1 2 \
  --modes wbc pd --eval-episodes 10 --snapshots $SNAP \
  --config-for wbc=configs/push_recovery/${ENV}_ppo_wbc.yml pd=configs/push_recovery/${ENV}_ppo_pd.yml torque=configs/push_recovery/${ENV}_ppo_torque.yml \
  --out results/push_recovery/rl/${ENV}_ppo "$@"
