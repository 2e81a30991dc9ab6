#!/usr/bin/env bash
# Imitation training from local-search tours, as the shipped n = 50 networks were trained:
#   scripts/imitate.sh SET [LABELS] [STEPS] [ROUNDS]
# SET is <problem><size>-<hardness>, e.g. tsptw50-easy or tspdl50-hard. Every stage resumes where it stopped.
#   1. grows the label set work/labels/SET to LABELS instances (lmask-data label: the start model's greedy ×2 tours,
#      4 best starts + 30 kicks of local search);
#   2. trains work/runs/SET-imitate for STEPS steps of 256 label tours (128 above n = 50; lr 3e-4) from the start model's weights
#      (lmask-train --imitate --init-from), validating on 256 generated instances every 100 steps;
#   3. ROUNDS times: relabels the set from the run's best network (keeping each instance's shorter tour), then trains
#      STEPS more steps.
# The start model is models/pretrained/SET, else the n = 50 one of its problem and hardness (LMASK_START_MODEL=DIR
# overrides it). LMASK_TRAIN_FLAGS adds lmask-train flags to a fresh run (e.g. "--decoder reld --cand both" for
# model format 2, warm-started from the format-1 weights), LMASK_RUN_TAG=T names the run SET-imitate-T. The exported
# network lands in work/runs/SET-imitate[-T]/model.
set -euo pipefail
cd "$(dirname "$0")/.."
set_name=${1:?usage: scripts/imitate.sh SET [LABELS] [STEPS] [ROUNDS]}
labels=${2:-10000}; steps=${3:-3000}; rounds=${4:-0}
if [[ ! $set_name =~ ^(tsptw|tspdl)([0-9]+)-(easy|medium|hard)$ ]]; then
  echo "imitate: SET $set_name: want <tsptw|tspdl><size>-<easy|medium|hard>" >&2; exit 2
fi
p=${BASH_REMATCH[1]}; n=${BASH_REMATCH[2]}; h=${BASH_REMATCH[3]}
start=${LMASK_START_MODEL:-models/pretrained/$set_name}
# A size without a shipped model (e.g. tsptw100-medium) starts from the n = 50 model of its problem and hardness.
[ -n "${LMASK_START_MODEL:-}" ] || [ -d "$start" ] || start=models/pretrained/${p}50-$h
ibatch=256; chunk=2000
if [ "$n" -gt 50 ]; then ibatch=128; chunk=500; fi # longer tours: fewer a step
case $set_name in # the label seeds of the shipped networks; others from the name
  tsptw50-easy) seed=101;; tsptw50-medium) seed=102;; tspdl50-medium) seed=103;; tspdl50-hard) seed=104;;
  tsptw100-medium) seed=201;; tsptw100-easy) seed=202;; tsptw100-hard) seed=204;; tspdl100-medium) seed=203;;
  tspdl100-hard) seed=205;;
  *) seed=$(( $(printf '%s' "$set_name" | cksum | cut -d' ' -f1) % 100000 ));;
esac
mkdir -p bin work/labels work/runs work/val
go build -o bin/ ./cmd/lmask-data ./cmd/lmask-train
val=work/val/$set_name.parquet
[ -f "$val" ] || bin/lmask-data generate --problem "$p" --size "$n" --hardness "$h" --count 1000 --seed 9001 --out "$val" >/dev/null
lab=work/labels/$set_name run=work/runs/$set_name-imitate${LMASK_RUN_TAG:+-$LMASK_RUN_TAG}
read -r -a extra <<<"${LMASK_TRAIN_FLAGS:-}" # a resumed run keeps the flags of its checkpoint
bin/lmask-data label --dir "$lab" --problem "$p" --size "$n" --hardness "$h" --seed "$seed" --count "$labels" \
  --chunk "$chunk" --model "$start" --aug 2 --kicks 30 --starts 4
# run_step: the last completed step of the run (0 before it starts).
run_step() {
  [ -f "$run/metrics.jsonl" ] || { echo 0; return; }
  python3 -c 'import json,sys; s=[json.loads(l).get("step",0) for l in open(sys.argv[1]) if l.strip()]; print(max(s or [0]))' "$run/metrics.jsonl"
}
# rounds_done: relabelling rounds recorded in the label set's manifest.
rounds_done() {
  python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("rounds") or []))' "$lab/labels.json"
}
train() { # train TOTAL_STEPS: start, or resume up to TOTAL_STEPS (never lowering a run's total)
  if [ -f "$run/checkpoint.lmck" ]; then
    [ "$(run_step)" -lt "$1" ] && bin/lmask-train --out "$run" --resume --steps "$1"
  else
    bin/lmask-train --problem "$p" --size "$n" --hardness "$h" --out "$run" --init-from "$start" --imitate "$lab" \
      --imitate-batch "$ibatch" --steps "$1" --milestones 1000000 --lr 3e-4 \
      --val "$val" --val-limit 256 --val-every 100 --checkpoint-every 50 "${extra[@]}"
  fi
  return 0
}
train "$steps"
for r in $(seq 1 "$rounds"); do
  if [ "$(rounds_done)" -lt "$r" ]; then # an interrupted round continues (labels.json keeps it pending)
    bin/lmask-train export --checkpoint "$run/best.lmck" --out "$run/round-$r" --force
    bin/lmask-data label --dir "$lab" --problem "$p" --size "$n" --hardness "$h" --seed "$seed" --count "$labels" \
      --chunk "$chunk" --model "$run/round-$r" --aug 2 --kicks 30 --starts 4 --relabel
  fi
  train $(( steps * (r + 1) ))
done
echo "imitate: network in $run/model (weights of the best validation), label set in $lab"
