#!/usr/bin/env bash
# What the network buys at equal CPU time: for the shipped models on the paper's n = 50 sets (../shared; TSPTW-50
# easy and medium, TSPDL-50 medium and hard, the paper's references) and generated n = 100 sets (TSPTW-100 medium,
# TSPDL-100 hard), at the budgets --preset fast, --preset best and --preset best --improve-share 10, lmask-infer runs
# with the network, then without it (--starts random-l --preset best) with exactly the network run's CPU time
# (user + sys) as --cpu-budget; the pairs alternate, 3 per cell, and the table shows the median gaps of
# lmask-data check (the paper's protocol) and the median CPU seconds of both.
#   scripts/bench-frontier.sh [N50] [N100] [REPS]       (defaults: 300 100 3; TSPDL-100 takes N100/2)
# LMASK_EVAL_SETS=tsptw50-easy,tspdl100-hard,... picks sets; LMASK_FRONTIER_BUDGETS=fast,best picks budgets;
# LMASK_FRONTIER_JSON=FILE writes the report (command, date, machine, every run) there; LMASK_FRONTIER_NET_FLAGS="--aug 1"
# adds lmask-infer flags to every network run (the levers of the network's cost: transforms, --batch, --threads);
# LMASK_FRONTIER_MODELS=DIR runs the network from DIR/<set> instead of models/pretrained/<set> (e.g. int8 copies
# written by lmask-train quantize).
# The n = 100 sets: the paper's n = 100 files are not published, so each is the project's generator's (seed 9100,
# as eval-n100), with a model-free reference (Random-L ×8 improved by the local search from the 4 best tours and
# the urgency order with 200 kicks), built once and cached under out/frontier. Both pipelines run the same local
# search as that reference, so its gaps can go below zero; the comparison is the two columns against each other.
# One file of your own instances instead, no reference needed (./just frontier-data): LMASK_FRONTIER_DATA=FILE.parquet
# LMASK_FRONTIER_MODEL=DIR-or-shipped-name [LMASK_FRONTIER_LIMIT=K] runs that file alone (its first K instances; N50 and
# N100 are not used) at the budgets, and compares each pair's solutions instance by instance: the network's mean
# relative length difference against the run without a network, its wins / ties / losses, the feasible counts.
set -euo pipefail
own=${LMASK_FRONTIER_DATA:-}
own_model=${LMASK_FRONTIER_MODEL:-}
own_limit=${LMASK_FRONTIER_LIMIT:-0}
if [ -n "$own" ]; then
  [ -f "$own" ] || { echo "bench-frontier: LMASK_FRONTIER_DATA: $own: no such file" >&2; exit 1; }
  [ -n "$own_model" ] || { echo "bench-frontier: LMASK_FRONTIER_DATA needs LMASK_FRONTIER_MODEL, a model folder or a shipped model's name (e.g. tsptw100-medium)" >&2; exit 1; }
  [[ $own_limit =~ ^[0-9]+$ ]] || { echo "bench-frontier: LMASK_FRONTIER_LIMIT: \"$own_limit\", want an instance count ≥ 0 (0 = all)" >&2; exit 1; }
  own=$(realpath "$own")
  # A folder given relative to the caller's folder; a shipped model's name stays a name (lmask-infer looks it up).
  [ ! -d "$own_model" ] || own_model=$(realpath "$own_model")
fi
cd "$(dirname "$0")/.."
n50=${1:-300}; n100=${2:-100}; reps=${3:-3}
n100dl=$(( n100 > 1 ? n100 / 2 : 1 ))
shared=${LMASK_SHARED:-../shared}
src=$shared/datasets/lmask-paper
mkdir -p out/paper out/frontier bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
export ONNXRUNTIME_SHARED_LIBRARY_PATH=${ONNXRUNTIME_SHARED_LIBRARY_PATH:-$PWD/third_party/onnxruntime/libonnxruntime.so}
source scripts/paper-sets.sh
models=${LMASK_FRONTIER_MODELS:-models/pretrained}
sets=()
if [ -n "$own" ]; then
  sets+=(-set "$(basename "$own" .parquet)|$own_model|$own||$own_limit")
elif [ -d "$src" ]; then
  for s in tsptw:easy:pyvrp tsptw:medium:pyvrp tspdl:medium:lkh tspdl:hard:lkh; do
    IFS=: read -r p h ref <<<"$s"
    wanted "${p}50-$h" || continue
    paper_set "$p" "$h" "$ref" 50 || continue
    sets+=(-set "${p^^}-50 $h|$models/${p}50-$h|$inst|$refs|$n50")
  done
else
  echo "bench-frontier: $src not found (set LMASK_SHARED); the paper's n = 50 sets are left out" >&2
fi
# problem:hardness:budget:count
[ -n "$own" ] || for s in tsptw:medium:200:$n100 tspdl:hard:150:$n100dl; do
  IFS=: read -r p h budget count <<<"$s"
  name=${p}100-$h
  wanted "$name" || continue
  data=out/frontier/$name-$count.parquet
  ref=out/frontier/ref-$name-$count.parquet
  [ -f "$data" ] || bin/lmask-data generate --problem "$p" --size 100 --hardness "$h" --count "$count" --seed 9100 --out "$data" >/dev/null
  if [ ! -f "$ref" ]; then
    echo "bench-frontier: building the reference of $name ($count instances, 200 kicks each) once" >&2
    bin/lmask-data baseline --instances "$data" --out out/frontier/randoml-$name-$count.parquet --policy random-l --samples 8 \
      --budget "$budget" --all-tours >/dev/null
    bin/lmask-data improve --instances "$data" --solutions out/frontier/randoml-$name-$count.parquet --out "$ref" --per-instance \
      --starts 4 --urgency --kicks 200 >/dev/null
  fi
  sets+=(-set "${p^^}-100 $h|$models/${p}100-$h|$data|$ref|$count")
done
[ ${#sets[@]} -gt 0 ] || { echo "bench-frontier: no set to run" >&2; exit 1; }
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit+="+changes"
command="./just bench-frontier $n50 $n100 $reps"
[ -z "$own" ] || command="./just frontier-data ${LMASK_FRONTIER_DATA} $LMASK_FRONTIER_MODEL $own_limit $reps"
args=(-reps "$reps" -dir out/frontier/runs -command "$command" -commit "$commit")
[ -z "${LMASK_FRONTIER_BUDGETS:-}" ] || args+=(-budgets "$LMASK_FRONTIER_BUDGETS")
[ -z "${LMASK_FRONTIER_JSON:-}" ] || args+=(-json "$LMASK_FRONTIER_JSON")
[ -z "${LMASK_FRONTIER_NET_FLAGS:-}" ] || args+=(-net-flags "$LMASK_FRONTIER_NET_FLAGS")
go run ./scripts/frontier "${args[@]}" "${sets[@]}"
