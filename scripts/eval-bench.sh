#!/usr/bin/env bash
# Evaluates a model on a benchmark of ../shared/benchmarks with proven optima or best-known values, one row per
# group of instances:
#   rakke           Rakke et al.'s 240 TSPDL instances (TSPLIB distance matrices of 14–48 ports, 10/25/50% of
#                   the ports with a restrictive draft limit); a group is a base instance (30 files); budget 150;
#                   default model tspdl50-medium.
#   gendreau        Gendreau et al.'s 130 TSPTW instances, n = 20–100; a group is one n; budget 5000.
#   ohlmann-thomas  Ohlmann and Thomas's 25 TSPTW instances, n = 150 and 200; a group is one n; budget 5000.
#   dasilva-urrutia da Silva and Urrutia's TSPTW instances n = 200 and 250 (50 of them, gzipped); budget 5000.
# TSPTW travel times come from the integer matrices divided by 50, as for Dumas (scripts/eval-dumas.sh).
# Files without coordinates get nodes placed by classical MDS of the matrix for the network; lengths and
# gaps use the matrix. Greedy ×8.
#   scripts/eval-bench.sh BENCHMARK [MODEL] [EXTRA lmask-infer FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${1:?usage: scripts/eval-bench.sh rakke|gendreau|ohlmann-thomas|dasilva-urrutia [MODEL] [FLAGS...]}; shift
case $bench in
  rakke) dir=tspdl-rakke; format=rakke; refs=optimal.csv; budget=150; model=models/pretrained/tspdl50-medium; sep=_ ;;
  gendreau|ohlmann-thomas|dasilva-urrutia) dir=tsptw-$bench; format=dumas; refs=best_known.csv; budget=5000
    model=models/pretrained/tsptw50-medium; sep=w ;;
  *) echo "eval-bench: unknown benchmark '$bench' (want rakke, gendreau, ohlmann-thomas or dasilva-urrutia)" >&2; exit 2 ;;
esac
if [ $# -gt 0 ] && [[ $1 != -* ]]; then model=$1; shift; fi
shared=${LMASK_SHARED:-../shared}
src=$shared/benchmarks/$dir
if [ ! -d "$src" ]; then echo "eval-bench: $src not found (set LMASK_SHARED); skipping" >&2; exit 0; fi
mkdir -p out/bench bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
# Groups in order of size: the number that ends each group's name (n20, burma14).
groups=$(cd "$src" && ls | grep -E '\.(txt|tsptw|tsptw\.gz)$' | sed "s/${sep}.*//" | sort -u |
  awk '{match($0, /[0-9]+$/); print substr($0, RSTART), $0}' | sort -n | cut -d' ' -f2)
echo "| group | instances | inst. infeasible | mean gap to the reference | time |"
echo "|---|---|---|---|---|"
for g in $groups; do
  d=out/bench/$bench-$g; rm -rf "$d"; mkdir -p "$d"
  for f in "$src"/${g}${sep}*.txt "$src"/${g}${sep}*.tsptw*; do [ -e "$f" ] || continue; ln -s "$(realpath "$f")" "$d/"; done
  { head -1 "$src/$refs"; grep -h "^${g}${sep}" "$src/$refs"; } > "$d/$refs"
  bin/lmask-data import --in "$d" --format $format --out "$d.parquet" --references "$d.refs.parquet" >/dev/null
  bin/lmask-infer --model "$model" --data "$d.parquet" --reference "$d.refs.parquet" --budget $budget \
    --out "$d.sol.parquet" --metrics-json "$d.metrics.json" --rescue-time 0 "$@" >/dev/null 2>&1
  python3 - "$d.metrics.json" "$g" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
g = m.get("gap")
if g is not None and abs(g) < 5e-5:
    g = 0.0  # rounding of equal lengths, not a tour below the reference
print(f"| {sys.argv[2]} | {m['instances']} | {100*m['inst_infeasible']:.1f}% | {'n/a' if g is None else f'{100*g:.2f}%'} | {m['seconds']:.1f} s |")
PY
done
