#!/usr/bin/env bash
# The nominal stepping law with one of its settings changed (README.md, "The law's own settings"):
# 100 episodes of HumanoidWBCPushRecovery-v0 on Hubo-lite at its default pushes, zero action.
# Usage: bash results/push_recovery/law_settings.sh NAME SEED 'SETTINGS'   (SETTINGS: a JSON dict of
# the `stepping_law` keyword, or true for the law's defaults); writes law_settings/NAME.json here
# (about 5 min on an idle core).
set -eu
cd "$(dirname "$0")/../.."
name=$1; seed=$2; settings=$3
.venv/bin/python -m training.evaluate --env HumanoidWBCPushRecovery-v0 --policy nominal --episodes 100 --seed "$seed" \
  --env-kwargs "{\"robot\": \"hubo_lite\", \"stepping_law\": $settings}" \
  --json "results/push_recovery/law_settings/${name}.json"
