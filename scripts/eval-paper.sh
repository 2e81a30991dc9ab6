#!/usr/bin/env bash
# Evaluates shipped models on the paper's own n=50 test sets (../shared) with
# the paper's protocol: greedy ×8 augmentation, TSL, budgets 100/100/200 (TSPTW
# easy/medium/hard) and 150 (TSPDL). Prints a markdown table.
#   scripts/eval-paper.sh [LIMIT] [EXTRA lmask-infer FLAGS...]
# LIMIT = instances per set (default 10000); LMASK_EVAL_SETS=tsptw50-hard,... picks sets; LMASK_MODELS=DIR
# evaluates DIR/<set> instead of models/pretrained/<set>. Imported Parquet copies of the
# paper's files are cached under out/paper (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-10000}; shift || true
shared=${LMASK_SHARED:-../shared}
src=$shared/datasets/lmask-paper
if [ ! -d "$src" ]; then echo "eval-paper: $src not found (set LMASK_SHARED); skipping" >&2; exit 0; fi
mkdir -p out/paper bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
sets="tsptw:easy:pyvrp:100 tsptw:medium:pyvrp:100 tsptw:hard:pyvrp:200 tspdl:medium:lkh:150 tspdl:hard:lkh:150"
echo "| set | model | instances | sol. infeasible | inst. infeasible | obj | gap | time |"
echo "|---|---|---|---|---|---|---|---|"
for s in $sets; do
  IFS=: read -r p h ref budget <<<"$s"
  model=${LMASK_MODELS:-models/pretrained}/${p}50-$h
  [ -d "$model" ] || continue
  if [ -n "${LMASK_EVAL_SETS:-}" ] && [[ ",$LMASK_EVAL_SETS," != *",${p}50-$h,"* ]]; then continue; fi
  inst=out/paper/${p}50-$h.parquet; refs=out/paper/${ref}_50_$h.parquet
  [ -f "$inst" ] || bin/lmask-data import --in "$src/${p}50_test_${h}_seed2025.npz" --out "$inst" >/dev/null
  [ -f "$refs" ] || bin/lmask-data import --in "$src/${ref}_50_$h.npz" --instances "$inst" --out "$refs" >/dev/null
  m=out/paper/metrics-${p}50-$h.json
  bin/lmask-infer --model "$model" --data "$inst" --reference "$refs" --budget "$budget" --limit "$limit" \
    --out out/paper/sol-${p}50-$h.parquet --metrics-json "$m" "$@" >/dev/null
  python3 - "$m" "${p^^}-50 $h" "$model" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
f = lambda v, d=2: "n/a" if v is None else f"{100*v:.{d}f}%"
o = m.get("obj")
print(f"| {sys.argv[2]} | {sys.argv[3].split('/')[-1]} | {m.get('instances')} | {f(m.get('sol_infeasible'))} | {f(m.get('inst_infeasible'))} | {'n/a' if o is None else f'{o:.4f}'} | {f(m.get('gap'), 3)} | {m.get('seconds'):.1f} s |")
PY
done
