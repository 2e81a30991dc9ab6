#!/usr/bin/env bash
# Solves a whole benchmark of ../shared/benchmarks in one run, with only the lmask-infer flags given (no protocol
# budget, the default rescue), and prints one table row: instances without a feasible tour, the mean, 95th-percentile
# (nearest rank) and largest gap to the best known or optimal value, the worst instances, and the wall time.
#   scripts/eval-robust.sh dumas|gendreau|ohlmann-thomas|dasilva-urrutia|rakke [MODEL] [lmask-infer FLAGS...]
# Default models: tsptw50-medium (TSPTW), tspdl50-medium (Rakke). The imported file is cached under out/robust.
# GROUP=n200 solves only the instances whose file names start with it (n200w20.001 ...).
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${1:?usage: scripts/eval-robust.sh dumas|gendreau|ohlmann-thomas|dasilva-urrutia|rakke [MODEL] [FLAGS...]}; shift
case $bench in
  rakke) dir=tspdl-rakke; format=rakke; model=models/pretrained/tspdl50-medium ;;
  dumas|gendreau|ohlmann-thomas|dasilva-urrutia) dir=tsptw-$bench; format=dumas; model=models/pretrained/tsptw50-medium ;;
  *) echo "eval-robust: unknown benchmark '$bench'" >&2; exit 2 ;;
esac
if [ $# -gt 0 ] && [[ $1 != -* ]]; then model=$1; shift; fi
shared=${LMASK_SHARED:-../shared}
src=$shared/benchmarks/$dir
if [ ! -d "$src" ]; then echo "eval-robust: $src not found (set LMASK_SHARED); skipping" >&2; exit 0; fi
mkdir -p out/robust bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
group=${GROUP:-}
bench=$bench${group:+-$group}
data=out/robust/$bench.parquet
if [ ! -e "$data" ]; then
  in=$src
  if [ -n "$group" ]; then # a folder of links to the group's files, with their reference rows
    in=out/robust/$bench; rm -rf "$in"; mkdir -p "$in"
    for f in "$src/$group"[w_]*; do ln -s "$(realpath "$f")" "$in/"; done
    for r in optimal.csv best_known.csv; do
      [ -e "$src/$r" ] && { head -1 "$src/$r"; grep -h "^$group[w_]" "$src/$r"; } > "$in/$r"
    done
  fi
  coords=(); [ "$dir" = tsptw-dumas ] && coords=(--coords "$shared/benchmarks/tsptw-dumas-coords")
  bin/lmask-data import --in "$in" --format $format "${coords[@]}" --out "$data" --references "${data%.parquet}.refs.parquet" >/dev/null
fi
tag=$(echo "$*" | tr -c 'a-zA-Z0-9.\n' _)
m=out/robust/$bench-$tag.metrics.json
bin/lmask-infer --model "$model" --data "$data" --reference "${data%.parquet}.refs.parquet" \
  --out "out/robust/$bench-$tag.sol.parquet" --metrics-json "$m" "$@" >/dev/null 2>&1
python3 - "$m" "$*" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
pct = lambda g: "n/a" if g is None else f"{100 * (0.0 if abs(g) < 5e-5 else g):.2f}%"  # rounding of equal lengths
worst = ", ".join(f"{w.get('name', '#%d' % w['instance'])} {pct(w['gap'])}" for w in m["worst_instances"][:3])
print(f"| `{sys.argv[2]}` | {m['instances']} | {m['instances'] - m['obj_count']} | {pct(m['gap'])} | {pct(m['gap_p95'])} | "
      f"{pct(m['gap_max'])} | {worst} | {m['seconds']:.1f} s |")
PY
