#!/usr/bin/env bash
# Infeasible days at scale: COUNT generated TSPTW-50 medium instances (seed 7)
# of which a tenth are made infeasible (an unreachable stop, a pair or a
# triple that exclude each other, in turn; lmask-data generate --infeasible),
# then, on the same file, lmask-infer --preset best, lmask-data explain and
# lmask-infer --preset best --infeasible drop, each timed in CPU seconds
# (user + sys, /usr/bin/time), best run before and after the others and
# averaged. Prints a table of the times and their ratios to best, what
# explain found and what drop left out. Files go under out/infeasible (never
# committed).
#   scripts/bench-infeasible.sh [COUNT] [MODEL]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000}
model=${2:-models/pretrained/tsptw50-medium}
dir=out/infeasible
mkdir -p "$dir" bin
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-infer
data=$dir/tsptw50-medium-$count-infeasible.parquet
[ -f "$data" ] || bin/lmask-data generate --problem tsptw --size 50 --hardness medium --count "$count" --seed 7 --infeasible 0.1 --out "$data"
# cpu NAME CMD...: runs CMD, appends "NAME cpu wall" to $dir/times.
cpu() {
  local name=$1; shift
  /usr/bin/time -f "$name %U %S %e" -o "$dir/time.$name" "$@"
  awk '{printf "%s %.2f %.2f\n", $1, $2 + $3, $4}' "$dir/time.$name" >> "$dir/times"
}
: > "$dir/times"
cpu best1 bin/lmask-infer --model "$model" --data "$data" --out "$dir/best.parquet" --preset best > "$dir/best.txt" 2>/dev/null
cpu explain bin/lmask-data explain --instances "$data" --json > "$dir/explain.jsonl"
cpu drop bin/lmask-infer --model "$model" --data "$data" --out "$dir/drop.parquet" --preset best --infeasible drop > "$dir/drop.txt" 2>/dev/null
cpu best2 bin/lmask-infer --model "$model" --data "$data" --out "$dir/best.parquet" --preset best > "$dir/best.txt" 2>/dev/null
bin/lmask-data check --instances "$data" --solutions "$dir/drop.parquet" --json > "$dir/drop-check.json"
python3 - "$dir" "$count" <<'PY'
import json, sys
d, count = sys.argv[1], sys.argv[2]
t = {l.split()[0]: (float(l.split()[1]), float(l.split()[2])) for l in open(f"{d}/times")}
best = ((t["best1"][0] + t["best2"][0]) / 2, (t["best1"][1] + t["best2"][1]) / 2)
ex = [json.loads(l) for l in open(f"{d}/explain.jsonl")]
st = {s: sum(1 for e in ex if e["status"] == s) for s in ("feasible", "infeasible", "unknown")}
inf = [e for e in ex if e["status"] == "infeasible"]
sizes = [len(e["conflict"]) for e in inf]
chk = json.load(open(f"{d}/drop-check.json"))
print(f"{count} TSPTW-50 medium instances, a tenth made infeasible; CPU seconds (user + sys) and wall seconds")
print(f"{'run':<32} {'CPU s':>8} {'wall s':>8} {'CPU / best':>11}")
print(f"{'lmask-infer --preset best':<32} {best[0]:>8.2f} {best[1]:>8.2f} {1:>11.2f}   (mean of {t['best1'][0]:.2f} and {t['best2'][0]:.2f})")
print(f"{'lmask-data explain':<32} {t['explain'][0]:>8.2f} {t['explain'][1]:>8.2f} {t['explain'][0] / best[0]:>11.2f}")
print(f"{'  + --infeasible drop':<32} {t['drop'][0]:>8.2f} {t['drop'][1]:>8.2f} {t['drop'][0] / best[0]:>11.2f}")
print(f"explain: {st['feasible']} feasible, {st['infeasible']} infeasible ({sum(1 for e in inf if e['irreducible'])} irreducible; "
      f"conflicts of {', '.join(f'{k}: {sizes.count(k)}' for k in sorted(set(sizes)))} stops), {st['unknown']} unknown")
print(f"drop: {chk['dropped_stops']} stops dropped over {chk['dropped_instances']} instances; inst_infeasible {100 * chk['inst_infeasible']:.1f}%")
for run in ("best", "drop"):
    for l in open(f"{d}/{run}.txt"):
        if l.startswith(("feasible tour by", "time split")):
            print(f"{run}: {l.strip()}")
PY
