#!/usr/bin/env bash
# Draws the stress suite (docs/results.md, "Stress suite") and its references into DIR:
#   scripts/stress-suite.sh [DIR] [COUNT] [SIZES]
# every class of `lmask-data stress` at every size (nodes, depot included; default 11 16 21 51 101 251), COUNT
# instances each (default 20; half as many above 100 nodes), seeded by class and size. References: proven optima
# (`lmask-data exact`) up to 21 nodes; above, the best of a long multi-start search: Random-L ×8 tours
# (`lmask-data baseline`), then `lmask-data improve --per-instance --urgency --kicks 3000` from all of them.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-work/stress}; count=${2:-20}; sizes=${3:-"11 16 21 51 101 251"}
mkdir -p "$dir" bin
go build -o bin/ ./cmd/lmask-data
classes="R1 C1 RC1 R2 C2 RC2 RM stuck R1E"
k=0
for c in $classes; do
  k=$((k + 1))
  for n in $sizes; do
    f=$dir/$c-$n
    m=$count; [ "$n" -gt 100 ] && m=$(( (count + 1) / 2 ))
    bin/lmask-data stress --class "$c" --size "$n" --count "$m" --seed $((1000 * k + n)) --out "$f.parquet" >/dev/null
    if [ "$n" -le 21 ]; then
      bin/lmask-data exact --instances "$f.parquet" --out "$f.ref.parquet" >/dev/null
    else
      bin/lmask-data baseline --instances "$f.parquet" --out "$f.rl.parquet" --policy random-l --samples 8 --all-tours >/dev/null
      bin/lmask-data improve --instances "$f.parquet" --solutions "$f.rl.parquet" --out "$f.ref.parquet" \
        --per-instance --urgency --kicks 3000 --seed 11 >/dev/null
    fi
    echo "$f.parquet: $m instances, references $f.ref.parquet"
  done
done
