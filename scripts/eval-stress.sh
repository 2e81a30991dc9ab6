#!/usr/bin/env bash
# Solves the stress suite drawn by scripts/stress-suite.sh (DIR) with a TSPTW model and the recommended setting,
# against the suite's references; one row per file with check's mean gap:
#   scripts/eval-stress.sh [DIR] [MODEL] [EXTRA lmask-infer FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-work/stress}; model=${2:-tsptw50-medium}; shift $(( $# > 2 ? 2 : $# ))
[ -d "$dir" ] || { echo "eval-stress: $dir not found (draw it with ./just stress-suite)" >&2; exit 2; }
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
echo "| file | instances | inst. infeasible | mean gap | time |"
echo "|---|---|---|---|---|"
for ref in "$dir"/*.ref.parquet; do
  f=${ref%.ref.parquet}
  bin/lmask-infer --model "$model" --data "$f.parquet" --reference "$ref" --aug 2 --improve --improve-share 3.5 \
    --out "$f.sol.parquet" --metrics-json "$f.metrics.json" "$@" >/dev/null 2>&1
  python3 - "$f.metrics.json" "$(basename "$f")" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
g = m.get("gap")
print(f"| {sys.argv[2]} | {m['instances']} | {100*m['inst_infeasible']:.1f}% | {'n/a' if g is None else f'{100*g:.2f}%'} | {m['seconds']:.1f} s |")
PY
done
