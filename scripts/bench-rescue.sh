#!/usr/bin/env bash
# The "a feasible tour whenever one exists" benchmark: COUNT generated hard
# TSPTW instances of SIZE nodes (feasible by construction; seed 100) solved by
# the shipped TSPTW-50 hard model with the paper's budget for the size
# (R = 300 from 100 nodes on), greedy ×8, --improve; prints lmask-infer's table,
# whose "feasible tour by" line counts the instances by the step that found
# their tour. Files go under out/rescue (never committed).
#   scripts/bench-rescue.sh [COUNT] [SIZE] [EXTRA lmask-infer FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-10000}
size=${2:-100}
shift $(( $# < 2 ? $# : 2 ))
mkdir -p out/rescue bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
data=out/rescue/tsptw$size-hard-$count.parquet
[ -f "$data" ] || bin/lmask-data generate --problem tsptw --size "$size" --hardness hard --count "$count" --seed 100 --out "$data"
bin/lmask-infer --model models/pretrained/tsptw50-hard --data "$data" --out out/rescue/solutions-$size.parquet \
  --metrics-json out/rescue/metrics-$size.json --improve "$@"
