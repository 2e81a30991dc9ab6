#!/usr/bin/env bash
# Evaluates a TSPDL model on Rakke et al.'s 240 TSPDL instances (../shared/benchmarks/tspdl-rakke: TSPLIB
# distance matrices of 14–48 ports, 10/25/50% of them with a restrictive draft limit, proven optima). The
# instances have no coordinates; the import places the nodes by classical MDS of the matrix, which the
# network reads, while lengths and the gap to the optimum use the matrix. Greedy ×8, budget 150; one row per
# base instance (30 instances each: 3 shares of restricted ports × 10).
#   scripts/eval-rakke.sh [MODEL] [EXTRA lmask-infer FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-models/pretrained/tspdl50-medium}; shift || true
shared=${LMASK_SHARED:-../shared}
src=$shared/benchmarks/tspdl-rakke
if [ ! -d "$src" ]; then echo "eval-rakke: $src not found (set LMASK_SHARED); skipping" >&2; exit 0; fi
mkdir -p out/rakke bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
echo "| base instance | n | instances | inst. infeasible | mean gap to optimum | time |"
echo "|---|---|---|---|---|---|"
for base in burma14 ulysses16 gr17 gr21 ulysses22 fri26 bayg29 gr48; do
  d=out/rakke/$base; rm -rf "$d"; mkdir -p "$d"
  for f in "$src"/${base}_*.txt; do ln -s "$(realpath "$f")" "$d/"; done
  { head -1 "$src/optimal.csv"; grep -h "^${base}_" "$src/optimal.csv"; } > "$d/optimal.csv"
  bin/lmask-data import --in "$d" --format rakke --out out/rakke/$base.parquet \
    --references out/rakke/$base.refs.parquet >/dev/null
  bin/lmask-infer --model "$model" --data out/rakke/$base.parquet --reference out/rakke/$base.refs.parquet \
    --budget 150 --out out/rakke/sol-$base.parquet --metrics-json out/rakke/metrics-$base.json "$@" >/dev/null 2>&1
  python3 - out/rakke/metrics-$base.json "$base" <<'PY'
import json, re, sys
m = json.load(open(sys.argv[1]))
g = m.get("gap")
if g is not None and abs(g) < 5e-5:
    g = 0.0  # rounding of equal lengths, not a tour below the optimum
n = re.sub(r"\D", "", sys.argv[2])
print(f"| {sys.argv[2]} | {n} | {m['instances']} | {100*m['inst_infeasible']:.1f}% | {'n/a' if g is None else f'{100*g:.2f}%'} | {m['seconds']:.1f} s |")
PY
done
