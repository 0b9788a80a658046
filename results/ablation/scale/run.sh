#!/usr/bin/env bash
# The action-mode ablation at scale (results/ablation/README.md, "At scale"), v2: balance, then
# wall; PPO with configs/ablation/ (the tuned configs with target_kl 0.02, and wbc's CoM offset
# low-passed), 3 seeds, 1M steps, every run snapshotted and evaluated on 10 episodes at the totals
# below, into v2/<env>_ppo/. Resumable: run it again and every unfinished run goes on from its
# latest snapshot (finished runs are kept). About 4 h per env on 2 cores. (v1, the runs in
# <env>_ppo/ beside this file: configs/tuned/ as they are, --out results/ablation/scale/<env>_ppo;
# each of its runs keeps its command in command.txt.)
set -u
cd "$(dirname "$0")/../../.."
SNAP="5000 10000 20000 40000 80000 100000 160000 200000 300000 320000 400000 500000 600000 640000 700000 800000 900000 1000000"
for ENV in HumanoidWBC-v0 HumanoidWBCWall-v0; do
  .venv/bin/python -m training.ablation --env "$ENV" --algo ppo --timesteps 1000000 --seeds 0 1 2 \
    --modes pd torque wbc --eval-episodes 10 --snapshots $SNAP \
    --config-for wbc=configs/ablation/${ENV}_ppo_wbc.yml pd=configs/ablation/${ENV}_ppo_pd.yml torque=configs/ablation/${ENV}_ppo_torque.yml \
    --out results/ablation/scale/v2/${ENV}_ppo "$@"
done
