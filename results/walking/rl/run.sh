#!/usr/bin/env bash
# Walking II (issue 40): PPO on HumanoidWBCWalk-v0 (its defaults, fourth revision: drawn commands, pushes
# U(20, 80) N, the tracking rewards averaged over 1.2 s; the third revision's probe is HumanoidWBCWalk-v0_ppo/)
# through the walking generator (wbc) and on the joints (pd), configs/walking/, every run
# snapshotted and evaluated on 10 episodes (seeds 100000-100009, pushes on) at the totals below,
# beside the nominal generator on the same episodes, into HumanoidWBCWalk-v0_ppo_r4/. First the
# probe: seed 0 of each mode (the issue's pd probe to 5M steps; wbc beside it). Resumable: run it
# again and every unfinished run goes on from its latest snapshot (the latest snapshot of each
# unfinished run is committed for that: see README.md); `--report-only` rewrites the tables.
# Extra arguments go to training.ablation (e.g. --seeds 0 1 2 --modes wbc).
set -u
cd "$(dirname "$0")/../../.."
SNAP="10000 20000 50000 100000 200000 300000 400000 500000 750000 1000000 1500000 2000000 2500000 3000000 4000000 5000000"
ENV=HumanoidWBCWalk-v0
.venv/bin/python -m training.ablation --env "$ENV" --algo ppo --timesteps 5000000 --seeds 0 1 2 \
  --modes wbc pd --eval-episodes 10 --snapshots $SNAP \
  --config-for wbc=configs/walking/${ENV}_ppo_wbc.yml pd=configs/walking/${ENV}_ppo_pd.yml torque=configs/walking/${ENV}_ppo_torque.yml \
  --out results/walking/rl/${ENV}_ppo_r4 "$@"
