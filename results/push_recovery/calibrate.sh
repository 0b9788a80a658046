#!/usr/bin/env bash
# HumanoidWBCPushRecovery-v0's push distribution (issue 38), fixed before any training by the rule of
# README.md: the nominal stepping law (zero action) on 100 episodes (seeds 5000-5099) per robot and
# candidate F, pushes U(F / 4, F) N. Usage: bash results/push_recovery/calibrate.sh ROBOT F [F ...]
# (each run about 5-10 min on one core; writes nominal_<robot>_<F>.json here).
set -eu
cd "$(dirname "$0")/../.."
robot=$1; shift
for F in "$@"; do
  lo=$(python3 -c "print($F / 4)")
  .venv/bin/python -m training.evaluate --env HumanoidWBCPushRecovery-v0 --policy nominal --episodes 100 --seed 5000 \
    --env-kwargs "{\"robot\": \"$robot\", \"push_magnitude_n\": [$lo, $F]}" \
    --json "results/push_recovery/nominal_${robot}_${F}.json"
done
