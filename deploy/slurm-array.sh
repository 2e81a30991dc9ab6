#!/usr/bin/env bash
# One instances file solved by a Slurm job array of K shards, then joined.
#   bash deploy/slurm-array.sh DATA MODEL OUTDIR [K] [lmask-infer flags...]
# submits K array tasks (0 … K−1): task I runs lmask-infer --shard auto/K, which reads I from SLURM_ARRAY_TASK_ID,
# and writes OUTDIR/part-I.parquet and OUTDIR/metrics-I.json; then a job that starts once every task has succeeded
# runs lmask-data merge into OUTDIR/solutions.parquet and prints the joined metrics to OUTDIR/merge.log.
# lmask-infer and lmask-data are taken from LMASK_BIN (default: the checkout's bin/ when it has them, else PATH).
# Resources per task: LMASK_CPUS (2), LMASK_MEM (1G; peak RSS does not grow with the file), LMASK_TIME (4:00:00).
set -euo pipefail
if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
  if [ $# -lt 3 ]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
  fi
  data=$(realpath "$1") model=$(realpath "$2") outdir=$3 k=${4:-4}
  shift $(( $# < 4 ? $# : 4 ))
  [[ $k =~ ^[1-9][0-9]*$ ]] || { echo "slurm-array: K must be a positive integer, got $k" >&2; exit 2; }
  mkdir -p "$outdir"
  outdir=$(realpath "$outdir")
  here=$(cd "$(dirname "$0")/.." && pwd)
  if [ -z "${LMASK_BIN:-}" ] && [ -x "$here/bin/lmask-infer" ] && [ -x "$here/bin/lmask-data" ]; then
    export LMASK_BIN=$here/bin
  fi
  array=$(sbatch --parsable --job-name=lmask-infer --array="0-$((k - 1))" --cpus-per-task="${LMASK_CPUS:-2}" \
    --mem="${LMASK_MEM:-1G}" --time="${LMASK_TIME:-4:00:00}" --output="$outdir/shard-%a.log" \
    "$0" "$data" "$model" "$outdir" "$k" "$@")
  array=${array%%;*}
  bin=${LMASK_BIN:+$LMASK_BIN/}
  merge=$(sbatch --parsable --job-name=lmask-merge --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --cpus-per-task=1 --mem="${LMASK_MEM:-1G}" --output="$outdir/merge.log" \
    --wrap "$(printf '%q ' "${bin}lmask-data" merge --out "$outdir/solutions.parquet" --instances "$data") $(printf '%q' "$outdir")/part-*.parquet")
  echo "submitted array job ${array} (${k} shards) and merge job ${merge%%;*}; output: $outdir/solutions.parquet"
  exit 0
fi
# An array task: the arguments are those the submission passed.
data=$1 model=$2 outdir=$3 k=$4
shift 4
exec "${LMASK_BIN:+$LMASK_BIN/}lmask-infer" --model "$model" --data "$data" --shard "auto/$k" \
  --out "$outdir/part-$SLURM_ARRAY_TASK_ID.parquet" --metrics-json "$outdir/metrics-$SLURM_ARRAY_TASK_ID.json" "$@"
