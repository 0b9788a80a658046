#!/usr/bin/env bash
# Probes of the long ablation's v1 failure on balance (results/ablation/README.md, "At scale"):
# v1's runs (configs/tuned, PPO, seed 0, the default pushes) with one change each, 200k steps,
# evaluated like the ablation's snapshots (10 deterministic episodes from reset seed 100000):
#   noise_probe/log_std-3                      wbc with less initial exploration noise (log_std_init -3; v1: -2)
#   kl_probe/wbc_target_kl0.02                 wbc with target_kl 0.02 (SB3 stops an update's epochs
#   kl_probe/pd_target_kl0.02                  pd      once its approximate KL passes 0.03; v1's reached 1-19)
#   filter_probe/wbc_filter0.1_target_kl0.02   wbc with target_kl 0.02 and the CoM offset low-passed
#                                              (com_offset_filter_s 0.1 s) before its rate limit
# About 10 min per probe on a free core. Resumable (--resume; a finished probe is left alone).
set -u
cd "$(dirname "$0")/../../.."

probe() {  # probe FOLDER MODE ENV_KWARGS PARAM...
  local folder=$1 mode=$2 env_kwargs=$3
  shift 3
  # shellcheck disable=SC2086  # ENV_KWARGS is a list of KEY=VALUE words
  .venv/bin/python -m training.train --env HumanoidWBC-v0 --algo ppo \
    --config "configs/tuned/HumanoidWBC-v0_ppo_$mode.yml" --timesteps 200000 --seed 0 \
    --run-dir "results/ablation/scale/$folder" --resume --no-progress-bar --env-kwargs $env_kwargs \
    --params "$@" "snapshot_steps=[20000,50000,100000,200000]" snapshot_eval_episodes=10 snapshot_eval_seed=100000
}

probe noise_probe/log_std-3 wbc action_mode=wbc "policy_kwargs={log_std_init: -3}"
probe kl_probe/wbc_target_kl0.02 wbc action_mode=wbc target_kl=0.02
probe kl_probe/pd_target_kl0.02 pd action_mode=pd target_kl=0.02
probe filter_probe/wbc_filter0.1_target_kl0.02 wbc "action_mode=wbc com_offset_filter_s=0.1" target_kl=0.02
