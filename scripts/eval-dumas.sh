#!/usr/bin/env bash
# Evaluates a TSPTW model on the Dumas benchmark n20–n80 as the paper does:
# travel times from the integer matrices, everything divided by 50, greedy ×8,
# budget 5000; gap to the proven optimum. n80w100 comes from Gendreau's set.
#   scripts/eval-dumas.sh [MODEL] [EXTRA lmask-infer FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
model=models/pretrained/tsptw50-medium # a first argument that is a flag belongs to lmask-infer
if [ $# -gt 0 ] && [[ $1 != -* ]]; then model=${1:-$model}; shift; fi
shared=${LMASK_SHARED:-../shared}
bench=$shared/benchmarks
if [ ! -d "$bench/tsptw-dumas" ]; then echo "eval-dumas: $bench not found (set LMASK_SHARED); skipping" >&2; exit 0; fi
mkdir -p out/dumas bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
echo "| n | instances | inst. infeasible | mean gap to optimum | time |"
echo "|---|---|---|---|---|"
for n in 20 40 60 80; do
  d=out/dumas/n$n; rm -rf "$d"; mkdir -p "$d"
  for f in "$bench"/tsptw-dumas/n${n}w*.txt; do ln -s "$(realpath "$f")" "$d/"; done
  if [ "$n" = 80 ]; then for f in "$bench"/tsptw-gendreau/n80w100.*.txt; do ln -s "$(realpath "$f")" "$d/"; done; fi
  { head -1 "$bench/tsptw-dumas/optimal.csv"; grep -h "^n${n}w" "$bench/tsptw-dumas/optimal.csv";
    [ "$n" = 80 ] && grep -h "^n80w100" "$bench/tsptw-gendreau/best_known.csv" | cut -d, -f1,2 || true; } > "$d/optimal.csv"
  bin/lmask-data import --in "$d" --format dumas --coords "$bench/tsptw-dumas-coords" \
    --out out/dumas/n$n.parquet --references out/dumas/n$n.refs.parquet >/dev/null
  bin/lmask-infer --model "$model" --data out/dumas/n$n.parquet --reference out/dumas/n$n.refs.parquet \
    --budget 5000 --out out/dumas/sol-n$n.parquet --metrics-json out/dumas/metrics-n$n.json --rescue-time 0 "$@" >/dev/null
  python3 - out/dumas/metrics-n$n.json "$n" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
g = m.get("gap")
print(f"| {sys.argv[2]} | {m['instances']} | {100*m['inst_infeasible']:.0f}% | {'n/a' if g is None else f'{100*g:.2f}%'} | {m['seconds']:.1f} s |")
PY
done
