#!/usr/bin/env bash
# Peak memory of lmask-infer against the size of the file: generated TSPTW-50
# medium instances (seed 7) solved by the shipped TSPTW-50 medium model,
# greedy ×1 augmentation, budget R = 0, batches of 32, no escalation (short
# runs: the file loop is what is measured, not the search), on a file of
# SMALL instances, one of LARGE, and the first of ten shards of the large one.
# Prints one line per run: instances solved, peak RSS (/usr/bin/time -v), wall.
# Files go under out/rss (never committed).
#   scripts/rss-infer.sh [SMALL] [LARGE]
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-10000}
large=${2:-100000}
[ -x /usr/bin/time ] || { echo "rss-infer: /usr/bin/time (GNU time) is needed for the peak RSS" >&2; exit 1; }
mkdir -p out/rss bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
for n in "$small" "$large"; do
  f=out/rss/tsptw50-medium-$n.parquet
  [ -f "$f" ] || bin/lmask-data generate --problem tsptw --size 50 --hardness medium --count "$n" --seed 7 --out "$f" >/dev/null
done
run() { # label, data file, extra flags
  local label=$1 data=$2
  shift 2
  /usr/bin/time -v -o out/rss/time.txt bin/lmask-infer --model models/pretrained/tsptw50-medium --data "$data" \
    --out out/rss/solutions.parquet --metrics-json out/rss/metrics.json --aug 1 --budget 0 --batch 32 --rescue-time 0 "$@" >/dev/null
  local rss inst wall
  rss=$(awk -F: '/Maximum resident set size/ {print int($2/1024)}' out/rss/time.txt)
  inst=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["instances"])' out/rss/metrics.json)
  wall=$(awk -F'): ' '/Elapsed \(wall clock\)/ {print $2}' out/rss/time.txt)
  printf '%-28s %8s instances  peak RSS %5s MiB  wall %s\n' "$label" "$inst" "$rss" "$wall"
}
run "file of $small" "out/rss/tsptw50-medium-$small.parquet"
run "file of $large" "out/rss/tsptw50-medium-$large.parquet"
run "file of $large, shard 0/10" "out/rss/tsptw50-medium-$large.parquet" --shard 0/10
