#!/usr/bin/env bash
# A network trained on your own distribution against the shipped one, measured (docs/own-data.md):
#   scripts/own-distribution.sh [STEPS] [TIME_LIMIT]
# defaults: 1500 steps, 95m. The distribution is the stress class CM at 50 nodes (clustered stops, 40% narrow and
# 30% wide windows, service time 10 apart from the travel times), standing in for a year of a team's routes.
# Every stage resumes where it stopped; under work/owndist:
#   1. train.parquet (20,000 instances, seed 50001), val.parquet (256, seed 50003), test.parquet (1,000 held out,
#      seed 50002);
#   2. labels of train.parquet: the shipped tsptw50-easy network's greedy ×8 tours (R = 200), 4 best starts + 30 kicks;
#   3. imitation from tsptw50-easy's weights with the per-candidate features (--cand both: service times reach the
#      network), 128 label tours a step, lr 3e-4 ×0.1 at 80% and 90% of STEPS, validated on val.parquet;
#   4. the average of the start and the last weights chosen on val.parquet (below);
#   5. greedy ×8 (R = 200, no rescue) of every shipped TSPTW-50 network, of the last imitation weights and of the
#      chosen average on test.parquet.
# Prints the comparison table and the CPU time of stages 2, 3 and 4 (user + system, from /usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-1500}; limit=${2:-95m}
w=work/owndist
mkdir -p bin "$w"
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-train ./cmd/lmask-infer
draw() { [ -f "$w/$1.parquet" ] || bin/lmask-data stress --class CM --size 50 --count "$2" --seed "$3" --out "$w/$1.parquet" >/dev/null; }
draw train 20000 50001
draw val 256 50003
draw test 1000 50002
timed() { local log=$1; shift; /usr/bin/time -a -o "$log" -f "%U %S" "$@"; }
timed "$w/cpu-labels.txt" bin/lmask-data label --instances "$w/train.parquet" --dir "$w/labels" \
  --model models/pretrained/tsptw50-easy --aug 8 --kicks 30 --starts 4 --budget 200
run=$w/imitate
if [ -f "$run/checkpoint.lmck" ]; then
  timed "$w/cpu-train.txt" bin/lmask-train --out "$run" --resume --steps "$steps" --time-limit "$limit"
else
  timed "$w/cpu-train.txt" bin/lmask-train --imitate "$w/labels" --init-from models/pretrained/tsptw50-easy --cand both \
    --imitate-batch 128 --steps "$steps" --milestones $((steps * 8 / 10)),$((steps * 9 / 10)) --lr 3e-4 \
    --val "$w/val.parquet" --val-budget 200 --val-every 400 --checkpoint-every 50 --out "$run" --time-limit "$limit"
fi
# 4. the average (1 − w)·start + w·last for w in 0.5, 0.7, 0.85, 1 (start: tsptw50-easy's weights with the feature
#    layers at zero), the w with the fewest instances infeasible on val.parquet, then the shortest, kept: imitation
#    shortens the tours but loses some of the start's feasibility, and the average keeps most of both.
start=$w/start
[ -f "$start/checkpoint.lmck" ] || bin/lmask-train --imitate "$w/labels" --imitate-limit 128 --cand both \
  --init-from models/pretrained/tsptw50-easy --steps 0 --no-export --out "$start" >/dev/null
for wt in 0.5 0.7 0.85 1; do
  a=$w/avg-$wt
  if [ ! -f "$a/val.json" ]; then
    rm -f "$a.lmck"
    timed "$w/cpu-select.txt" bin/lmask-train average --out "$a.lmck" --weight "$wt" "$start/checkpoint.lmck" "$run/checkpoint.lmck" >/dev/null
    rm -rf "$a"
    timed "$w/cpu-select.txt" bin/lmask-train export --checkpoint "$a.lmck" --out "$a/model" >/dev/null
    timed "$w/cpu-select.txt" bin/lmask-infer --model "$a/model" --data "$w/val.parquet" --budget 200 --rescue-time 0 \
      --out "$a/val.parquet" --metrics-json "$a/val.tmp.json" >/dev/null
    mv "$a/val.tmp.json" "$a/val.json"
  fi
done
chosen=$(python3 - "$w" <<'PY'
import json, sys
rows = []
for wt in ("0.5", "0.7", "0.85", "1"):
    m = json.load(open(f"{sys.argv[1]}/avg-{wt}/val.json"))
    rows.append((m["inst_infeasible"], m["obj"], wt))
    print(f"w = {wt}: val inst. infeasible {100 * m['inst_infeasible']:.2f}%, obj {m['obj']:.4f}", file=sys.stderr)
print(min(rows)[2])
PY
)
echo "chosen: w = $chosen"
ln -sfn "avg-$chosen" "$w/chosen"
echo "| network | instances infeasible | obj (over its feasible) | vs tsptw50-easy's tours (mean / worst, where both feasible) | time |"
echo "|---|---|---|---|---|"
models=(models/pretrained/tsptw50-easy models/pretrained/tsptw50-medium models/pretrained/tsptw50-hard "$w/avg-1/model"
  "$w/chosen/model")
for m in "${models[@]}"; do
  k=$(basename "$(dirname "$m")")-$(basename "$m")
  [ -f "$w/metrics-$k.json" ] || bin/lmask-infer --model "$m" --data "$w/test.parquet" --budget 200 --rescue-time 0 \
    --out "$w/sol-$k.parquet" --metrics-json "$w/metrics-$k.json" >/dev/null
  bin/lmask-data check --instances "$w/test.parquet" --solutions "$w/sol-$k.parquet" \
    --reference "$w/sol-pretrained-tsptw50-easy.parquet" --json >"$w/vs-easy-$k.json"
  python3 - "$w/metrics-$k.json" "$w/vs-easy-$k.json" "$m" <<'PY'
import json, sys
m, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
f = lambda v: "n/a" if v is None else f"{100 * v:+.2f}%"
print(f"| {sys.argv[3]} | {100 * m['inst_infeasible']:.1f}% | {m['obj']:.4f} | {f(c.get('gap'))} / {f(c.get('gap_max'))} "
      f"over {c.get('gap_count')} | {m['seconds']:.1f} s |")
PY
done
for s in labels train select; do
  [ -f "$w/cpu-$s.txt" ] && awk -v s="$s" '{u += $1 + $2} END {printf "%s: %.1f CPU minutes\n", s, u / 60}' "$w/cpu-$s.txt"
done
