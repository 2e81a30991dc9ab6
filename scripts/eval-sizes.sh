#!/usr/bin/env bash
# Networks across sizes, the network alone (greedy ×8, no rescue), one table row per set and model:
#   scripts/eval-sizes.sh [HARDNESS] MODEL...
# Sets (TSPTW of HARDNESS, default medium): the paper's n = 50 test set (first 1,000, its budget, gap to its
# reference), generated n = 75, 100 (the first LMASK_N100 of eval-n100.sh's seed-9100 set, default 2,000) and 150
# instances (500 each, seeds 9075 and 9150; R = 200 / 200 / 300), and for medium Dumas n = 20–80 as eval-dumas.sh
# solves it (R = 5,000, gap to the optimum; n80 includes Gendreau n80w100). Results are cached under out/sizes by set
# and model name.
set -euo pipefail
cd "$(dirname "$0")/.."
h=medium
if [ $# -gt 0 ] && [[ $1 == easy || $1 == medium || $1 == hard ]]; then h=$1; shift; fi
[ $# -gt 0 ] || { echo "usage: scripts/eval-sizes.sh [HARDNESS] MODEL..." >&2; exit 2; }
mkdir -p out/sizes bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
export ONNXRUNTIME_SHARED_LIBRARY_PATH=${ONNXRUNTIME_SHARED_LIBRARY_PATH:-$PWD/third_party/onnxruntime/libonnxruntime.so}
n100=${LMASK_N100:-2000}
gen() { # size count seed name
  [ -f "out/sizes/$4.parquet" ] || bin/lmask-data generate --problem tsptw --size "$1" --hardness "$h" --count "$2" \
    --seed "$3" --out "out/sizes/$4.parquet" >/dev/null
}
gen 75 500 9075 "n75-$h"
gen 100 "$n100" 9100 "n100-$h"
gen 150 500 9150 "n150-$h"
sets=("n75-$h:200" "n100-$h:200" "n150-$h:300")
shared=${LMASK_SHARED:-../shared}
src=$shared/datasets/lmask-paper
if [ -d "$src" ]; then
  mkdir -p out/paper
  source scripts/paper-sets.sh
  budget=100; [ "$h" = hard ] && budget=200
  if paper_set tsptw "$h" pyvrp 50; then sets=("paper50:$budget:$inst:$refs" "${sets[@]}"); fi
fi
if [ "$h" = medium ] && [ -d "$shared/benchmarks/tsptw-dumas" ]; then
  [ -f out/dumas/n80.refs.parquet ] || scripts/eval-dumas.sh "$1" >/dev/null # imports Dumas into out/dumas
  for n in 20 40 60 80; do sets+=("dumas-n$n:5000:out/dumas/n$n.parquet:out/dumas/n$n.refs.parquet"); done
fi
echo "| set | model | instances | inst. infeasible | obj | gap | time |"
echo "|---|---|---|---|---|---|---|"
row() { # set model metrics
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
m = json.load(open(sys.argv[3]))
g, o = m.get("gap"), m.get("obj")
print(f"| {sys.argv[1]} | {sys.argv[2]} | {m['instances']} | {100 * m['inst_infeasible']:.2f}% | "
      f"{'n/a' if o is None else f'{o:.4f}'} | {'n/a' if g is None else f'{100 * g:.3f}%'} | {m['seconds']:.1f} s |")
PY
}
for s in "${sets[@]}"; do
  IFS=: read -r name budget data refs <<<"$s"
  data=${data:-out/sizes/$name.parquet}
  ref=(); [ -n "${refs:-}" ] && ref=(--reference "$refs" --limit 1000)
  for model in "$@"; do
    k=$(echo "$model" | tr / _)
    m=out/sizes/$name-$k.json
    [ -f "$m" ] || bin/lmask-infer --model "$model" --data "$data" "${ref[@]}" --budget "$budget" --rescue-time 0 \
      --out "out/sizes/sol-$name-$k.parquet" --metrics-json "$m" >/dev/null
    row "$name" "$model" "$m"
  done
done
