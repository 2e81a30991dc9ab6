#!/usr/bin/env bash
# Your own stops, end to end, at a tiny size (docs/own-data.md explains each step):
#   scripts/own-data.sh [STOPS.csv] [OUT] [TIMES.csv]
# 1. imports the stops CSV (default datasets/examples/stops.csv; with TIMES.csv, e.g. datasets/examples/times.csv,
#    its travel times instead of Euclidean distances) into OUT/stops.parquet;
# 2. where this lmask-data labels instance files (label --instances) and lmask-train exists: labels the instances
#    (Random-L starts + local search) and imitates the labels from the shipped network's weights for a few steps,
#    then exports that network and solves with it; otherwise says so and solves with the shipped network;
# 3. solves with lmask-infer (greedy ×2 + local search, reproducible kicks), or with the Random-L baseline when
#    SOLVER=baseline (no onnxruntime needed);
# 4. replays every tour with the checker (OUT/check.json) and writes the schedules: OUT/schedule.csv and .json.
# BIN (default bin) holds the commands, MODEL (default tsptw50-medium) is the network to start from.
set -euo pipefail
cd "$(dirname "$0")/.."
stops=${1:-datasets/examples/stops.csv}
out=${2:-work/own-data}
times=()
[ -z "${3:-}" ] || times=(--times "$3")
bin=${BIN:-bin}; model=${MODEL:-tsptw50-medium}; solver=${SOLVER:-infer}
mkdir -p "$out"
# Outputs are written atomically and never over an existing input; clear the previous run's.
rm -rf "$out/stops.parquet" "$out/solutions.parquet" "$out/check.json" "$out/schedule.csv" "$out/schedule.json" \
  "$out/labels" "$out/imitate" "$out/model"

"$bin/lmask-data" import --format csv --in "$stops" "${times[@]}" --out "$out/stops.parquet"

label_help=$("$bin/lmask-data" label --help 2>&1 || true) # not a pipe into grep -q: pipefail and SIGPIPE
if [[ $label_help == *--instances* ]] && [ -x "$bin/lmask-train" ] && [ "$solver" = infer ]; then
  "$bin/lmask-data" label --instances "$out/stops.parquet" --dir "$out/labels" --kicks 5 --workers 1
  "$bin/lmask-train" --imitate "$out/labels" --init-from "$model" --cand both --out "$out/imitate" --steps 2
  "$bin/lmask-train" export --checkpoint "$out/imitate" --out "$out/model"
  model=$out/model
else
  echo "own-data: skipping labels and imitation (needs lmask-data label --instances and $bin/lmask-train)"
fi

if [ "$solver" = baseline ]; then
  "$bin/lmask-data" baseline --instances "$out/stops.parquet" --out "$out/solutions.parquet" --workers 1
else
  "$bin/lmask-infer" --model "$model" --data "$out/stops.parquet" --out "$out/solutions.parquet" \
    --aug 2 --improve --improve-kicks 5 --workers 1
fi

"$bin/lmask-data" check --instances "$out/stops.parquet" --solutions "$out/solutions.parquet" --json > "$out/check.json"
"$bin/lmask-data" export --instances "$out/stops.parquet" --solutions "$out/solutions.parquet" --out "$out/schedule.csv"
"$bin/lmask-data" export --format json --instances "$out/stops.parquet" --solutions "$out/solutions.parquet" \
  --out "$out/schedule.json"
echo "own-data: schedules in $out/schedule.csv and $out/schedule.json"
