#!/usr/bin/env bash
# One network for a range of sizes, from the paper's generator through instance files:
#   scripts/mixed-sizes.sh [PROBLEM] [HARDNESS] [SIZES] [PER_SIZE] [STEPS] [RL_STEPS]
# defaults: tsptw medium "20 30 … 150" 1000 3000 0. Every stage resumes where it stopped; under work/mixed/P-H:
#   1. one instances file per size (lmask-data generate, PER_SIZE instances, seed 7000 + n): train-nN.parquet;
#   2. one label set over all of them (lmask-data label --instances: the shipped n = 50 network's greedy ×2 tours,
#      4 best starts + 30 kicks), chunks of 500 that may mix sizes;
#   3. STEPS imitation steps of 128 label tours, each batch of one size, from the shipped n = 50 weights, validated
#      on 256 generated n = 100 instances (any size may validate a mixed run);
#   4. RL_STEPS REINFORCE steps on the same files (--train-data, one size per batch, 5% kept out for validation).
# Then models/P50-H and models/P100-H name the one network, so that LMASK_MODELS=work/mixed/P-H/models
# scripts/eval-paper.sh and scripts/eval-n100.sh compare it with the per-size networks on the paper's sets.
# LMASK_VAL_COUNT (default 256) sets the validation instances. Sizes step by 10 so that the graphs compile for 14 sizes, not 131.
set -euo pipefail
cd "$(dirname "$0")/.."
p=${1:-tsptw}; h=${2:-medium}; sizes=${3:-"20 30 40 50 60 70 80 90 100 110 120 130 140 150"}
per=${4:-1000}; steps=${5:-3000}; rl_steps=${6:-0}
start=${LMASK_START_MODEL:-models/pretrained/${p}50-$h}
w=work/mixed/$p-$h
mkdir -p bin "$w" "$w/models"
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-train
files=()
for n in $sizes; do
  f=$w/train-n$n.parquet
  [ -f "$f" ] || bin/lmask-data generate --problem "$p" --size "$n" --hardness "$h" --count "$per" --seed $((7000 + n)) --out "$f" >/dev/null
  files+=("$f")
done
list=$(IFS=,; echo "${files[*]}")
val=$w/val-n100.parquet
[ -f "$val" ] || bin/lmask-data generate --problem "$p" --size 100 --hardness "$h" --count "${LMASK_VAL_COUNT:-256}" --seed 9100 --out "$val" >/dev/null
bin/lmask-data label --instances "$list" --dir "$w/labels" --chunk 500 --seed 1 --model "$start" --aug 2 --kicks 30 --starts 4
run=$w/imitate
if [ -f "$run/checkpoint.lmck" ]; then
  bin/lmask-train --out "$run" --resume --steps "$steps"
else
  bin/lmask-train --imitate "$w/labels" --init-from "$start" --imitate-batch 128 --steps "$steps" --milestones 1000000 \
    --lr 3e-4 --val "$val" --val-every 100 --checkpoint-every 50 --out "$run"
fi
model=$run/model
if [ "$rl_steps" -gt 0 ]; then
  rl=$w/reinforce
  if [ -f "$rl/checkpoint.lmck" ]; then
    bin/lmask-train --out "$rl" --resume --steps "$rl_steps"
  else
    bin/lmask-train --train-data "$list" --val-split 0.05 --init-from "$run/best.lmck" --entropy 0 --steps "$rl_steps" \
      --val-every 100 --checkpoint-every 50 --out "$rl"
  fi
  model=$rl/model
fi
for n in 50 100; do ln -sfn "$(realpath "$model")" "$w/models/${p}$n-$h"; done
echo "mixed-sizes: network in $model; LMASK_MODELS=$w/models scripts/eval-paper.sh (and eval-n100.sh) compare it"
