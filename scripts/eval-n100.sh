#!/usr/bin/env bash
# Evaluates the n = 100 models as the paper's n = 100 rows are compared: the paper's n = 100 test files are not
# published with it, so each set is 10,000 instances of the paper's distribution from the project's generator
# (seed 9100, cached under out/n100), solved greedy ×8 with the paper's budgets (TSPTW easy / medium / hard
# 150 / 200 / 300, TSPDL 150) and compared by mean objective with the paper's LMask Obj. Prints a markdown table.
#   scripts/eval-n100.sh [LIMIT] [EXTRA lmask-infer FLAGS...]
# LMASK_EVAL_SETS=tsptw100-easy,... picks sets; LMASK_MODEL_SIZE=50 solves them with the n = 50 models instead;
# LMASK_MODELS=DIR takes the models from DIR. The gap column compares the first 1,000 instances with a
# model-free reference: Random-L ×8 tours (the paper's budget) improved by local search from the 4 best
# and the urgency order with LMASK_REF_KICKS (default 200) kicks, built once and cached (out/n100/ref-SET.parquet).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=10000
if [ $# -gt 0 ] && [[ $1 != -* ]]; then limit=$1; shift; fi
mkdir -p out/n100 bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
export ONNXRUNTIME_SHARED_LIBRARY_PATH=${ONNXRUNTIME_SHARED_LIBRARY_PATH:-$PWD/third_party/onnxruntime/libonnxruntime.so}
size=${LMASK_MODEL_SIZE:-100}
kicks=${LMASK_REF_KICKS:-200}
first=$(( limit < 1000 ? limit : 1000 ))
echo "| set | model | instances | sol. infeasible | inst. infeasible | obj | paper Obj | vs paper | gap to reference (first $first) | time |"
echo "|---|---|---|---|---|---|---|---|---|---|"
# problem:hardness:budget:paper LMask Obj (paper Table 1)
for s in tsptw:easy:150:10.50 tsptw:medium:200:19.51 tsptw:hard:300:51.38 tspdl:medium:150:17.04 tspdl:hard:150:21.63; do
  IFS=: read -r p h budget paper <<<"$s"
  name=${p}100-$h
  if [ -n "${LMASK_EVAL_SETS:-}" ] && [[ ",$LMASK_EVAL_SETS," != *",$name,"* ]]; then continue; fi
  model=${LMASK_MODELS:-models/pretrained}/${p}$size-$h
  [ -d "$model" ] || { echo "eval-n100: $model not found; skipping $name" >&2; continue; }
  data=out/n100/$name.parquet
  [ -f "$data" ] || bin/lmask-data generate --problem "$p" --size 100 --hardness "$h" --count 10000 --seed 9100 --out "$data" >/dev/null
  ref=out/n100/ref-$name.parquet
  if [ ! -f "$ref" ]; then
    head=out/n100/$name-1k.parquet
    [ -f "$head" ] || bin/lmask-data generate --problem "$p" --size 100 --hardness "$h" --count 1000 --seed 9100 --out "$head" >/dev/null
    bin/lmask-data baseline --instances "$head" --out out/n100/randoml-$name.parquet --policy random-l --samples 8 \
      --budget "$budget" --all-tours >/dev/null
    bin/lmask-data improve --instances "$head" --solutions out/n100/randoml-$name.parquet --out "$ref" --per-instance \
      --starts 4 --urgency --kicks "$kicks" >/dev/null
  fi
  m=out/n100/metrics-$name-$size.json
  bin/lmask-infer --model "$model" --data "$data" --budget "$budget" --limit "$limit" --rescue-time 0 \
    --out out/n100/sol-$name-$size.parquet --metrics-json "$m" "$@" >/dev/null
  g=out/n100/metrics-$name-$size-ref.json
  bin/lmask-data check --instances "$data" --solutions out/n100/sol-$name-$size.parquet --reference "$ref" --limit "$first" \
    --json >"$g" 2> >(grep -v '^note: .* was written for the instances in' >&2) # the reference names its 1,000-instance file
  python3 - "$m" "$name" "$model" "$paper" "$g" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[5]))
paper = float(sys.argv[4])
f = lambda v: "n/a" if v is None else f"{100*v:.2f}%"
o = m.get("obj")
rel = "n/a" if o is None else f"{100*(o/paper-1):+.2f}%"
print(f"| {sys.argv[2]} | {sys.argv[3].split('/')[-1]} | {m.get('instances')} | {f(m.get('sol_infeasible'))} | {f(m.get('inst_infeasible'))} | {'n/a' if o is None else f'{o:.4f}'} | {paper:.2f} | {rel} | {f(r.get('gap'))} ({f(r.get('inst_infeasible'))}) | {m.get('seconds'):.1f} s |")
PY
done
