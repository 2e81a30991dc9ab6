#!/usr/bin/env bash
# The local search from heuristic starts on the paper's n = 50 test sets (../shared): Random-L ×8 (LazyMask,
# TSL, the paper's budgets 100/100/200/150/150), then the same search lmask-infer --improve runs (the 8 tours
# as starts, plus the urgency order where none is feasible) with K kicks each. Prints a markdown table:
# instance infeasibility / gap / wall time of each stage.
#   scripts/eval-baseline.sh [KICKS...]        (default: 0 10)
# LMASK_EVAL_SETS=tsptw50-easy,... picks sets. Imported Parquet copies of the paper's files are cached under
# out/paper (never committed); the tours go to out/baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
kicks=("$@"); [ ${#kicks[@]} -gt 0 ] || kicks=(0 10)
shared=${LMASK_SHARED:-../shared}
src=$shared/datasets/lmask-paper
if [ ! -d "$src" ]; then echo "eval-baseline: $src not found (set LMASK_SHARED); skipping" >&2; exit 0; fi
mkdir -p out/paper out/baseline bin
go build -o bin/ ./cmd/lmask-data
source scripts/paper-sets.sh
cells() { # metrics JSON, seconds → "inst. infeasible / gap / time"
  python3 - "$1" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
g = m.get('gap')
gap = "n/a" if g is None else f"{100*g:.{3 if 100*g < 0.1 else 2}f}%"
print(f"{100*m['inst_infeasible']:.2f}% / {gap} / {float(sys.argv[2]):.0f} s")
PY
}
head="| set | Random-L ×8 |"; rule="|---|---|"
for k in "${kicks[@]}"; do head+=" + local search, $k kicks |"; rule+="---|"; done
echo "$head"; echo "$rule"
for s in tsptw:easy:pyvrp:100 tsptw:medium:pyvrp:100 tsptw:hard:pyvrp:200 tspdl:medium:lkh:150 tspdl:hard:lkh:150; do
  IFS=: read -r p h ref budget <<<"$s"
  name=${p}50-$h
  wanted "$name" || continue
  paper_set "$p" "$h" "$ref" 50 || continue
  tours=out/baseline/$name-random-l.parquet
  t0=$(date +%s.%N)
  bin/lmask-data baseline --instances "$inst" --policy random-l --samples 8 --budget "$budget" --all-tours --out "$tours" >/dev/null
  t1=$(date +%s.%N)
  # check scores each instance by its best tour, as the paper does.
  bin/lmask-data check --instances "$inst" --solutions "$tours" --reference "$refs" --json >out/baseline/$name-random-l.json
  row="| ${p^^}-50 $h | $(cells out/baseline/$name-random-l.json "$(awk "BEGIN{print $t1 - $t0}")") |"
  for k in "${kicks[@]}"; do
    ls=out/baseline/$name-ls-k$k.parquet
    t2=$(date +%s.%N)
    bin/lmask-data improve --instances "$inst" --solutions "$tours" --out "$ls" --per-instance --starts 8 --urgency \
      --kicks "$k" >/dev/null
    t3=$(date +%s.%N)
    bin/lmask-data check --instances "$inst" --solutions "$ls" --reference "$refs" --json >out/baseline/$name-ls-k$k.json
    row+=" $(cells out/baseline/$name-ls-k$k.json "$(awk "BEGIN{print $t3 - $t2}")") |"
  done
  echo "$row"
done
