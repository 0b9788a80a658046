#!/usr/bin/env bash
# Probe of the long ablation's PPO update size (results/ablation/README.md, "At scale"): its runs'
# approximate KL per update grew to 1-19 and their clip fraction to 0.8 (tensorboard logs), i.e.
# every update moved the policy far past PPO's trust region. The same balance runs as run.sh
# (configs/tuned, PPO, seed 0, the default pushes) for wbc and pd with target_kl = 0.02 (SB3 stops
# an update's epochs once the KL passes 0.03), 200k steps, evaluated like the ablation's snapshots
# (10 deterministic episodes from reset seed 100000). Two runs at once, about 15 min on 2 cores;
# `run.sh wbc` runs one mode. Resumable (--resume).
set -u
cd "$(dirname "$0")/../../../.."
OUT=results/ablation/scale/kl_probe
MODES=("$@")
[ ${#MODES[@]} -gt 0 ] || MODES=(wbc pd)
for MODE in "${MODES[@]}"; do
  .venv/bin/python -m training.train --env HumanoidWBC-v0 --algo ppo \
    --config "configs/tuned/HumanoidWBC-v0_ppo_$MODE.yml" --timesteps 200000 --seed 0 \
    --run-dir "$OUT/${MODE}_target_kl0.02" --resume --no-progress-bar \
    --params target_kl=0.02 "snapshot_steps=[20000,50000,100000,200000]" \
    snapshot_eval_episodes=10 snapshot_eval_seed=100000 &
done
wait
