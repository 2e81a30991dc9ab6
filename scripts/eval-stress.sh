#!/usr/bin/env bash
# Solves the stress suite drawn by scripts/stress-suite.sh (DIR) with a TSPTW model and the recommended setting
# (--preset best), against the suite's references; one row per file with the mean, 95th-percentile (nearest rank)
# and largest gap and the worst instance:
#   scripts/eval-stress.sh [DIR] [MODEL] [EXTRA lmask-infer FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-work/stress}; model=${2:-tsptw50-medium}; shift $(( $# > 2 ? 2 : $# ))
[ -d "$dir" ] || { echo "eval-stress: $dir not found (draw it with ./just stress-suite)" >&2; exit 2; }
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
echo "| file | instances | inst. infeasible | mean gap | p95 | worst | time |"
echo "|---|---|---|---|---|---|---|"
for ref in "$dir"/*.ref.parquet; do
  f=${ref%.ref.parquet}
  bin/lmask-infer --model "$model" --data "$f.parquet" --reference "$ref" --preset best \
    --out "$f.sol.parquet" --metrics-json "$f.metrics.json" "$@" >/dev/null 2>&1
  python3 - "$f.metrics.json" "$(basename "$f")" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
f = lambda v: "n/a" if v is None else f"{100*v:.2f}%"
w = m.get("worst_instances") or [{}]
print(f"| {sys.argv[2]} | {m['instances']} | {100*m['inst_infeasible']:.1f}% | {f(m.get('gap'))} | {f(m.get('gap_p95'))} | {f(m.get('gap_max'))} {w[0].get('name', '')} | {m['seconds']:.1f} s |")
PY
done
