#!/usr/bin/env bash
# One network for a range of sizes, from the paper's generator through instance files:
#   scripts/mixed-sizes.sh [PROBLEM] [HARDNESS] [SIZES] [PER_SIZE] [STEPS] [RL_STEPS]
# defaults: tsptw medium "20 40 60 80 100 120 150" 1000 1000 0. Every stage resumes where it stopped; under work/mixed/P-H:
#   1. one instances file per size (lmask-data generate, PER_SIZE instances, seed 7000 + n): train-nN.parquet;
#   2. one label set over all of them (lmask-data label --instances: the start network's greedy ×2 tours, 4 best
#      starts + 30 kicks), chunks of 500 that may mix sizes;
#   3. STEPS imitation steps of 64 label tours, each batch of one size, from the start weights (LMASK_START_MODEL,
#      default the shipped n = 100 network: nearer the other sizes than the n = 50 one), lr LMASK_LR (default 1e-4)
#      ×0.1 at 80% and 90% of STEPS, validated on 256 generated n = 100 instances of seed 9001 (not the evaluation's
#      9100); LMASK_TIME_LIMIT (e.g. 90m) stops a session with a checkpoint, and a rerun resumes it;
#      LMASK_VAL_EVERY (default 400) steps between validations;
#   4. RL_STEPS REINFORCE steps on the same files (--train-data, one size per batch, 5% kept out for validation).
# Then models/P50-H and models/P100-H name the one network (its last weights), so that LMASK_MODELS=work/mixed/P-H/models
# scripts/eval-paper.sh and scripts/eval-n100.sh compare it with the per-size networks on the paper's sets, and
# scripts/eval-sizes.sh H MODEL... across sizes.
# LMASK_VAL_COUNT (default 256) sets the validation instances. Every size compiles its own update graph, which holds
# its own memory (about 2.5 GB at 128 tours of 150 nodes): 7 sizes of 128 tours overflowed 24 GiB, of 64 they fit.
set -euo pipefail
cd "$(dirname "$0")/.."
p=${1:-tsptw}; h=${2:-medium}; sizes=${3:-"20 40 60 80 100 120 150"}
per=${4:-1000}; steps=${5:-1000}; rl_steps=${6:-0}
start=${LMASK_START_MODEL:-models/pretrained/${p}100-$h}
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
[ -f "$val" ] || bin/lmask-data generate --problem "$p" --size 100 --hardness "$h" --count "${LMASK_VAL_COUNT:-256}" --seed 9001 --out "$val" >/dev/null
bin/lmask-data label --instances "$list" --dir "$w/labels" --chunk 500 --seed 1 --model "$start" --aug 2 --kicks 30 --starts 4
run=$w/imitate
limit=(--time-limit "${LMASK_TIME_LIMIT:-0}")
if [ -f "$run/checkpoint.lmck" ]; then
  bin/lmask-train --out "$run" --resume --steps "$steps" "${limit[@]}"
else
  bin/lmask-train --imitate "$w/labels" --init-from "$start" --imitate-batch 64 --steps "$steps" \
    --milestones $((steps * 8 / 10)),$((steps * 9 / 10)) --lr "${LMASK_LR:-1e-4}" --val "$val" --val-every "${LMASK_VAL_EVERY:-400}" \
    --checkpoint-every 50 --out "$run" "${limit[@]}"
fi
# The last weights, not the best-validated ones: validation at one size (n = 100) keeps the start weights, which are
# best there by construction, and the mixed run trades a little of n = 100 for the other sizes.
model=$run/last-model
[ -d "$model" ] || bin/lmask-train export --checkpoint "$run/checkpoint.lmck" --out "$model" >/dev/null
if [ "$rl_steps" -gt 0 ]; then
  rl=$w/reinforce
  if [ -f "$rl/checkpoint.lmck" ]; then
    bin/lmask-train --out "$rl" --resume --steps "$rl_steps"
  else
    bin/lmask-train --train-data "$list" --val-split 0.05 --init-from "$run/checkpoint.lmck" --entropy 0 --steps "$rl_steps" \
      --val-every 100 --checkpoint-every 50 --out "$rl"
  fi
  model=$rl/last-model
  [ -d "$model" ] || bin/lmask-train export --checkpoint "$rl/checkpoint.lmck" --out "$model" >/dev/null
fi
for n in 50 100; do ln -sfn "$(realpath "$model")" "$w/models/${p}$n-$h"; done
echo "mixed-sizes: network in $model; LMASK_MODELS=$w/models scripts/eval-paper.sh (and eval-n100.sh) compare it"
