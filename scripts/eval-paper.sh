#!/usr/bin/env bash
# Evaluates shipped models on the paper's own test sets (../shared) with
# the paper's protocol: greedy ×8 augmentation, TSL, budgets 100/100/200 (TSPTW
# easy/medium/hard) and 150 (TSPDL), plus its 128 TSPTW-500 hard instances (R = 600)
# solved with the TSPTW-50 hard model. Prints a markdown table.
#   scripts/eval-paper.sh [LIMIT] [EXTRA lmask-infer FLAGS...]
# LIMIT = instances per set (default 10000); LMASK_EVAL_SETS=tsptw50-hard,tsptw500-hard,... picks sets; LMASK_MODELS=DIR
# evaluates DIR/<problem>50-<hardness> instead of models/pretrained/<problem>50-<hardness>. Imported Parquet copies of the
# paper's files are cached under out/paper (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=10000 # a first argument that is a flag belongs to lmask-infer (./just eval-paper --improve)
if [ $# -gt 0 ] && [[ $1 != -* ]]; then limit=${1:-10000}; shift; fi
shared=${LMASK_SHARED:-../shared}
src=$shared/datasets/lmask-paper
if [ ! -d "$src" ]; then echo "eval-paper: $src not found (set LMASK_SHARED); skipping" >&2; exit 0; fi
mkdir -p out/paper bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
source scripts/paper-sets.sh
sets="tsptw:easy:pyvrp:100:50 tsptw:medium:pyvrp:100:50 tsptw:hard:pyvrp:200:50 tspdl:medium:lkh:150:50 tspdl:hard:lkh:150:50 tsptw:hard:pyvrp:600:500"
echo "| set | model | instances | sol. infeasible | inst. infeasible | obj | gap | time |"
echo "|---|---|---|---|---|---|---|---|"
for s in $sets; do
  IFS=: read -r p h ref budget n <<<"$s"
  model=${LMASK_MODELS:-models/pretrained}/${p}50-$h # the n = 50 model also solves the n = 500 set
  [ -d "$model" ] || continue
  wanted "${p}$n-$h" || continue
  paper_set "$p" "$h" "$ref" "$n" || continue
  m=out/paper/metrics-${p}$n-$h.json
  bin/lmask-infer --model "$model" --data "$inst" --reference "$refs" --budget "$budget" --limit "$limit" \
    --out out/paper/sol-${p}$n-$h.parquet --metrics-json "$m" --rescue-time 0 "$@" >/dev/null
  python3 - "$m" "${p^^}-$n $h" "$model" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
f = lambda v, d=2: "n/a" if v is None else f"{100*v:.{d}f}%"
o = m.get("obj")
t = m.get("timing", {})
split = f" (network {t['solve_wall']:.1f} s + local search {t['local_search']:.1f} s)" if t.get("local_search") else ""
print(f"| {sys.argv[2]} | {sys.argv[3].split('/')[-1]} | {m.get('instances')} | {f(m.get('sol_infeasible'))} | {f(m.get('inst_infeasible'))} | {'n/a' if o is None else f'{o:.4f}'} | {f(m.get('gap'), 3)} | {m.get('seconds'):.1f} s{split} |")
PY
done
