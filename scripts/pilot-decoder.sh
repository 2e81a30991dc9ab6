#!/usr/bin/env bash
# The decoder pilot: imitation from random weights, 3 layers, on one label set per problem, one run per decoder
# design, the same steps, batch, seed and learning rate, validated on the same instances. Resumable: a run whose
# directory holds a checkpoint continues. Usage: scripts/pilot-decoder.sh SET DECODER:CAND ...
#   SET: tw50e (TSPTW-50 easy) or dl50h (TSPDL-50 hard); labels in work/labels/SET, val in work/val-SET.parquet.
# Env: PILOT_STEPS (150), PILOT_BATCH (128), PILOT_LR (1e-3), PILOT_VAL_EVERY (25).
#   scripts/pilot-decoder.sh eval [LIMIT] [DECODER:CAND ...]: the last weights (step PILOT_STEPS, not the best validation,
#   which prefers a step with fewer infeasible validation instances) of every finished run on the paper's first LIMIT
#   (1000) instances of its set, greedy ×8 with the paper's budgets and no rescue (scripts/eval-paper.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = eval ]; then
  shift; limit=1000
  if [ $# -gt 0 ] && [[ $1 != *:* ]]; then limit=$1; shift; fi
  for run in work/pilot/*/model; do
    r=${run%/model}; v=${r##*/}; set_=${v%%-*}; dec=${v#*-}
    [ -d "$r/final" ] || bin/lmask-train export --checkpoint "$r/checkpoint.lmck" --out "$r/final" >/dev/null
    run=$r/final
    if [ $# -gt 0 ] && [[ " $* " != *" ${dec/-/:} "* ]]; then continue; fi
    case $set_ in tw50e) name=tsptw50-easy ;; dl50h) name=tspdl50-hard ;; *) continue ;; esac
    mkdir -p "work/pilot-eval/$v"; ln -sfn "$(pwd)/$run" "work/pilot-eval/$v/$name"
    LMASK_MODELS=work/pilot-eval/$v LMASK_EVAL_SETS=$name scripts/eval-paper.sh "$limit" | tail -n +3 | sed "s/| $name |/| $v |/"
  done
  exit 0
fi
set_=$1; shift
case $set_ in
  tw50e) args=(--problem tsptw --size 50 --hardness easy) ;;
  dl50h) args=(--problem tspdl --size 50 --hardness hard) ;;
  *) echo "pilot: unknown set $set_ (tw50e or dl50h)" >&2; exit 2 ;;
esac
steps=${PILOT_STEPS:-150} batch=${PILOT_BATCH:-128} lr=${PILOT_LR:-1e-3} every=${PILOT_VAL_EVERY:-25}
mkdir -p work/pilot
for v in "$@"; do
  dec=${v%%:*} cand=${v#*:}
  out=work/pilot/$set_-$dec-$cand
  if [ -f "$out/checkpoint.lmck" ] && [ -d "$out/model" ]; then echo "pilot: $out done"; continue; fi
  resume=(); [ -f "$out/checkpoint.lmck" ] && resume=(--resume)
  echo "pilot: $out ($(date -u +%H:%M))"
  bin/lmask-train "${args[@]}" --out "$out" "${resume[@]}" --imitate "work/labels/$set_" --layers 3 \
    --decoder "$dec" --cand "$cand" --steps "$steps" --imitate-batch "$batch" --lr "$lr" --seed 7 \
    --val "work/val-$set_.parquet" --val-every "$every" --val-limit 128 >> "$out.log" 2>&1 || { echo "pilot: $out failed (see $out.log)"; exit 1; }
done
