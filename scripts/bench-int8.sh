#!/usr/bin/env bash
# The int8 copy of a shipped network against its float32 original: greedy decoding under the paper's protocol
# (×8 transforms, TSL, R = 100 for TSPTW medium, 150 for TSPDL) on the first LIMIT instances of the paper's sets,
# float32 and int8 runs alternated REPS times; prints one line per run (CPU seconds of lmask-infer, the encoder's and
# decoder's summed seconds, gap, infeasible rates) and the median CPU ratio int8 / float32 per set.
#   scripts/bench-int8.sh [LIMIT] [REPS] [EXTRA lmask-infer FLAGS...]      (defaults 300 5)
# The int8 copies are written once under out/int8 by lmask-train quantize. LMASK_EVAL_SETS picks sets
# (tsptw50-medium,tspdl50-hard by default). The int8 decode's cost alone: go test -bench Int8Decode ./engine.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-300}; reps=${2:-5}; shift $(( $# < 2 ? $# : 2 ))
shared=${LMASK_SHARED:-../shared}
src=$shared/datasets/lmask-paper
if [ ! -d "$src" ]; then echo "bench-int8: $src not found (set LMASK_SHARED); skipping" >&2; exit 0; fi
mkdir -p out/paper out/int8 bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer ./cmd/lmask-train
export ONNXRUNTIME_SHARED_LIBRARY_PATH=${ONNXRUNTIME_SHARED_LIBRARY_PATH:-$PWD/third_party/onnxruntime/libonnxruntime.so}
source scripts/paper-sets.sh
export LMASK_EVAL_SETS=${LMASK_EVAL_SETS:-tsptw50-medium,tspdl50-hard}
echo "| set | model | rep | CPU s | encoder s | decoder s | gap | sol. infeasible | inst. infeasible |"
echo "|---|---|---|---|---|---|---|---|---|"
for s in tsptw:easy:pyvrp:100 tsptw:medium:pyvrp:100 tsptw:hard:pyvrp:200 tspdl:medium:lkh:150 tspdl:hard:lkh:150; do
  IFS=: read -r p h ref budget <<<"$s"
  name=${p}50-$h
  wanted "$name" || continue
  paper_set "$p" "$h" "$ref" 50 || continue
  [ -f out/int8/$name/encoder.onnx ] || bin/lmask-train quantize --model models/pretrained/$name --out out/int8/$name >/dev/null
  for r in $(seq 1 "$reps"); do
    for model in models/pretrained/$name out/int8/$name; do
      kind=float32; [[ $model == out/int8/* ]] && kind=int8
      m=out/int8/metrics-$name-$kind.json
      bin/lmask-infer --model "$model" --data "$inst" --reference "$refs" --budget "$budget" --limit "$limit" \
        --out out/int8/sol-$name-$kind.parquet --metrics-json "$m" --rescue-time 0 "$@" >/dev/null
      python3 - "$m" "$name" "$kind" "$r" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); t = m.get("timing", {})
f = lambda v, d=2: "n/a" if v is None else f"{100*v:.{d}f}%"
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {m['cpu_seconds']:.2f} | {t.get('encoder', 0):.2f} | {t.get('decoder', 0):.2f} | {f(m.get('gap'), 3)} | {f(m.get('sol_infeasible'))} | {f(m.get('inst_infeasible'))} |")
PY
    done
  done
done | tee out/int8/bench.md
python3 - out/int8/bench.md <<'PY'
import sys, statistics as st
rows = [l.strip("|\n").split("|") for l in open(sys.argv[1]) if l.startswith("| ") and not l.startswith("| set")]
by = {}
for r in rows:
    r = [c.strip() for c in r]
    by.setdefault((r[0], r[2]), {})[r[1]] = (float(r[3]), float(r[4]), float(r[5]))
for name in sorted({k[0] for k in by}):
    pairs = [v for (n, _), v in by.items() if n == name and len(v) == 2]
    for i, what in enumerate(["CPU", "encoder", "decoder"]):
        rs = sorted(p["int8"][i] / p["float32"][i] for p in pairs)
        print(f"{name}: int8/float32 {what} ratio median {st.median(rs):.2f} (pairs {rs[0]:.2f}-{rs[-1]:.2f}, {len(rs)} pairs)")
PY
