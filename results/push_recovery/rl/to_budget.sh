#!/usr/bin/env bash
# Stepping II (issue 38): the ablation's runs one after another, each to an intermediate budget.
#
#   bash results/push_recovery/rl/to_budget.sh MODE BUDGET OUT SEED [SEED ...]
#   bash results/push_recovery/rl/to_budget.sh wbc 1000000 results/push_recovery/rl/HumanoidWBCPushRecovery-v0_ppo 1 2
#   bash results/push_recovery/rl/to_budget.sh pd 1000000 results/push_recovery/rl/r2_legs_collide 2
#
# Each run is run.sh's (training.train with the mode's config in configs/push_recovery/, the 3M
# budget, snapshots evaluated on 10 episodes from seed 100000, resumed from its latest snapshot) in
# OUT/MODE/sSEED, stopped (SIGINT: it saves and says "interrupted") once its BUDGET snapshot is
# evaluated, so that the seeds reach equal budgets in turn across sessions; run it again to go on.
# A snapshot of the ablation's list only (run.sh's SNAP). Commit each stopped run's latest
# snapshot (zip and pkl with git add -f), as results/push_recovery/README.md says.
set -u
cd "$(dirname "$0")/../../.."
if [ $# -lt 4 ]; then
  echo "usage: $0 MODE BUDGET OUT SEED [SEED ...]" >&2
  exit 2
fi
MODE=$1 BUDGET=$2 OUT=$3
shift 3
ENV=HumanoidWBCPushRecovery-v0
SNAP="[10000,20000,50000,100000,200000,300000,400000,500000,750000,1000000,1500000,2000000,2500000,3000000]"
case ",${SNAP:1:-1}," in
  *",$BUDGET,"*) ;;
  *) echo "BUDGET must be one of the snapshots $SNAP, got $BUDGET" >&2; exit 2 ;;
esac
for SEED in "$@"; do
  DIR=$OUT/$MODE/s$SEED
  if [ -f "$DIR/snapshots/eval_${BUDGET}_steps.json" ]; then
    echo "$DIR: at $BUDGET already"
    continue
  fi
  .venv/bin/python -m training.train --env "$ENV" --algo ppo --config "configs/push_recovery/${ENV}_ppo_${MODE}.yml" \
    --timesteps 3000000 --seed "$SEED" --run-dir "$DIR" --no-progress-bar --verbose 0 --resume --env-kwargs "action_mode=$MODE" \
    --params "snapshot_steps=$SNAP" snapshot_eval_episodes=10 snapshot_eval_seed=100000 eval_freq=0 checkpoint_freq=0 &
  PID=$!
  while kill -0 "$PID" 2>/dev/null; do
    if [ -f "$DIR/snapshots/eval_${BUDGET}_steps.json" ]; then
      kill -INT "$PID"
      wait "$PID"
      break
    fi
    sleep 10
  done
  echo "$DIR: stopped at $(date -u +%FT%TZ)"
done
