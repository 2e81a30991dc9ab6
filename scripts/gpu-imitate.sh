#!/usr/bin/env bash
# Imitation training at replay speed on a lent GPU machine (no Go, no internet, at most 64 MiB carried per command),
# from shipped weights, with checkpoints that come back to continue from (docs/gpu-check.md, "What a GPU session does").
#   bash scripts/gpu-imitate.sh prepare   here: work/gpu/imit/ = the XLA build of lmask-train (xz), the label sets
#                                         without their instances files (drawn again there from labels.json) and the
#                                         validation sets; prints the device command and what it carries
#   bash scripts/gpu-imitate.sh run       there: one imitation run per line of runs.txt, side by side on the GPU for
#                                         GPU_IMITATE_MINUTES, then the mean of each run's last snapshots; to $OUT:
#                                         summary.md, NAME.metrics.jsonl, NAME-model.tar (that mean, exported) and
#                                         NAME.lmck.partK (the resumable checkpoint in 15 MiB parts) while they fit
# Environment (run): GPU_IMITATE_MINUTES (4), GPU_IMITATE_BATCH (1024 label tours a step), GPU_IMITATE_LR (2e-4),
# GPU_IMITATE_BACKEND (default: JAX's CUDA PJRT plugin via scripts/xla-env.sh; "onnx" for a dry run on a CPU).
# Environment (prepare): GPU_IMITATE_RUNS, the runs.txt lines "NAME LABELDIR[,LABELDIR...] VALFILE" separated by ';'
# (default: tspdl50-medium and tsptw50-easy on the label sets in work/labels).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
I=work/gpu/imit
mode=${1:-}
die() { echo "gpu-imitate: $*" >&2; exit 1; }

if [ "$mode" = prepare ]; then
  set -e
  export ONNXRUNTIME_SHARED_LIBRARY_PATH=${ONNXRUNTIME_SHARED_LIBRARY_PATH:-$PWD/third_party/onnxruntime/libonnxruntime.so}
  runs=${GPU_IMITATE_RUNS:-"tspdl50-medium work/labels/dl50m-full,work/labels/dl50m-full2,work/labels/dl50m-pre work/val/tspdl50-medium.parquet;tsptw50-easy work/labels/tw50e-full work/val/tsptw50-easy.parquet"}
  rm -rf "$I"; mkdir -p "$I"/build "$I"/pack/labels "$I"/pack/val
  go build -o bin/ ./cmd/lmask-data ./cmd/lmask-train
  nice go build -tags xla -ldflags="-s -w" -o "$I"/build/lmask-train ./cmd/lmask-train
  : >"$I"/pack/runs.txt
  IFS=';' read -ra lines <<<"$runs"
  for line in "${lines[@]}"; do
    read -r name dirs val <<<"$line"
    [ -d "models/pretrained/$name" ] || die "no shipped model $name to start from"
    read -r problem size hard < <(python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print(c["problem"], c["train_size"], c["hardness"])' \
      "models/pretrained/$name/config.json") || die "models/pretrained/$name/config.json: problem, train_size or hardness missing"
    if [ ! -f "$val" ]; then
      mkdir -p "$(dirname "$val")"
      bin/lmask-data generate --problem "$problem" --size "$size" --hardness "$hard" --count 1000 --seed 9001 --out "$val"
    fi
    packed=()
    IFS=',' read -ra ds <<<"$dirs"
    for d in "${ds[@]}"; do
      b=$(basename "$d")
      [ ! -e "$I/pack/labels/$b" ] || die "two label sets named $b"
      mkdir -p "$I/pack/labels/$b"
      cp "$d"/labels.json "$d"/chunk-*.solutions.parquet "$I/pack/labels/$b/"
      packed+=("labels/$b")
    done
    # Read back: the lean copies must give the labels the originals give (instances drawn again, tours checked).
    count() { bin/lmask-train --problem "$problem" --size "$size" --hardness "$hard" --imitate "$1" --steps 0 \
      --val-every 0 --no-export --out "$I/build/readback" 2>&1 | sed -n 's/^imitating \([0-9]*\) label tours.*/\1/p'; rm -rf "$I/build/readback"; }
    want=$(count "$dirs"); got=$(count "$(printf "$I/pack/%s," "${packed[@]}" | sed 's/,$//')")
    [ -n "$want" ] && [ "$want" = "$got" ] || die "$name: the lean label sets read ${got:-nothing} labels, the originals ${want:-nothing} (lmask-train --steps 0)"
    cp "$val" "$I/pack/val/$name.parquet"
    (IFS=','; echo "$name $problem $size $hard ${packed[*]} val/$name.parquet") >>"$I"/pack/runs.txt
  done
  xz -9e -T2 -c "$I"/build/lmask-train >"$I"/lmask-train.xz
  tar -C "$I"/pack -cf "$I"/pack.tar .
  (cd "$I" && sha256sum lmask-train.xz pack.tar >SHA256SUMS && sha256sum build/lmask-train | sed 's#build/##' >>SHA256SUMS)
  rm -rf "$I"/pack "$I"/build
  echo "gpu-imitate: $I holds $(du -sh "$I" | cut -f1): $(tr '\n' ';' <<<"$(tar -xOf "$I"/pack.tar ./runs.txt)")"
  bash scripts/gpu-slim.sh size
  echo "Device command (after 'bash scripts/gpu-slim.sh on' if the room above is smaller than $I):"
  echo "  command: bash scripts/gpu-imitate.sh run    carry: [\"$I\"]    timeout_s: 450"
  exit 0
fi
[ "$mode" = run ] || { echo "usage: $0 prepare|run" >&2; exit 2; }

# --- run mode (on the GPU machine) ---------------------------------------------------------------------------------
t0=$(date +%s)
OUT=${OUT:-work/gpu/imit-out-local}
X=work/gpu/imit-x
mkdir -p "$OUT"; rm -rf "$X"; mkdir -p "$X"/runs
MIN=${GPU_IMITATE_MINUTES:-4}; BATCH=${GPU_IMITATE_BATCH:-1024}; LR=${GPU_IMITATE_LR:-2e-4}
SUM=$OUT/summary.md
note() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$SUM"; }
: >"$SUM"
[ -f "$I/SHA256SUMS" ] || { note "ERROR: $I/SHA256SUMS missing: carry work/gpu/imit"; exit 1; }
(cd "$I" && sha256sum -c --quiet <(grep -v '  lmask-train$' SHA256SUMS)) >>"$SUM" 2>&1 || { note "ERROR: the bundle fails its checksums"; exit 1; }
unxz() { if command -v xz >/dev/null; then xz -dc; else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.stdin.buffer), sys.stdout.buffer)'; fi; }
unxz <"$I"/lmask-train.xz >"$X"/lmask-train && chmod +x "$X"/lmask-train
(cd "$X" && sha256sum -c --quiet <(grep '  lmask-train$' ../imit/SHA256SUMS)) >>"$SUM" 2>&1 || { note "ERROR: lmask-train unpacked wrong"; exit 1; }
tar -C "$X" -xf "$I"/pack.tar
note "unpacked: $(tr '\n' ';' <"$X"/runs.txt)"

if [ -n "${GPU_IMITATE_BACKEND:-}" ]; then
  backend=$GPU_IMITATE_BACKEND
else
  # shellcheck source=scripts/xla-env.sh
  source scripts/xla-env.sh 2>>"$SUM" || { note "ERROR: no JAX CUDA plugin found (xla-env.sh)"; exit 1; }
  backend=$LMASK_XLA_BACKEND
fi
note "backend $backend; $MIN minutes, $BATCH label tours a step, lr $LR; GPU: $(timeout 20 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used,power.draw --format=csv -lms 1000 >"$OUT/gpu-util.csv" 2>&1 &
  util=$!
fi

names=()
while read -r name problem size hard labels val; do
  [ -n "$name" ] || continue
  names+=("$name")
  dirs=$(echo "$labels" | tr ',' '\n' | sed "s#^#$X/#" | paste -sd,)
  # --time-limit stops a run with a checkpoint; the watchdog interrupts one that hangs (SIGINT also checkpoints).
  timeout -s INT -k 30 $((MIN * 60 + 90)) "$X"/lmask-train --backend "$backend" --problem "$problem" --size "$size" --hardness "$hard" --imitate "$dirs" \
    --init-from "models/pretrained/$name" --imitate-batch "$BATCH" --lr "$LR" --steps 1000000 --time-limit "${MIN}m" \
    --checkpoint-every 200 --snapshot-every 50 --val "$X/$val" --val-every 1000 --val-limit 256 --no-export \
    --out "$X/runs/$name" >"$X/runs/$name.log" 2>&1 &
  pids+=($!)
done <"$X"/runs.txt
for i in "${!names[@]}"; do
  wait "${pids[$i]}"; rc=$?
  note "${names[$i]}: lmask-train rc $rc; $(grep -c '"kind":"train"' "$X/runs/${names[$i]}/metrics.jsonl" 2>/dev/null || echo 0) steps logged"
  ((rc == 0)) || tail -5 "$X/runs/${names[$i]}.log" | sed 's/^/    /' >>"$SUM"
done
[ -n "${util:-}" ] && kill "$util" 2>/dev/null

# Per run, staged in $X/back: the metrics, the mean of the last 8 snapshots exported as a model folder (tar; weights
# for evaluation here and for --init-from) and the resumable checkpoint cut into 15 MiB parts (cat them back
# together). $OUT takes at most 8 files of 16 MiB, 64 MiB in all: the summary first, then every run's metrics and
# model, then the checkpoint parts while they fit.
B=$X/back; rm -rf "$B"; mkdir -p "$B"
for n in "${names[@]}"; do
  r=$X/runs/$n
  [ -f "$r/checkpoint.lmck" ] || { note "$n: no checkpoint"; continue; }
  cp "$r/metrics.jsonl" "$B/1-$n.metrics.jsonl"
  mapfile -t snaps < <(ls "$r"/snapshots/step-*.lmck 2>/dev/null | tail -8)
  if ((${#snaps[@]} >= 2)); then
    "$X"/lmask-train average --out "$r/mean.lmck" "${snaps[@]}" >>"$SUM" 2>&1 && note "$n: mean of ${#snaps[@]} snapshots ($(basename "${snaps[0]}") to $(basename "${snaps[-1]}"))"
  fi
  src=$r/mean.lmck; [ -f "$src" ] || src=$r/checkpoint.lmck
  if "$X"/lmask-train export --checkpoint "$src" --out "$r/model" --force >>"$SUM" 2>&1; then
    tar -C "$r" -cf "$B/1-$n-model.tar" model
  fi
  split -b 15M -d -a 1 "$r/checkpoint.lmck" "$B/2-$n.lmck.part"
  python3 - "$r/metrics.jsonl" "$n" 2>&1 <<'PY' | tee -a "$SUM"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
tr = [r for r in rows if r.get("kind") == "train"]
va = [r for r in rows if r.get("kind") == "val"]
if tr:
    rates = [r["inst_per_s"] for r in tr[len(tr) // 5:]] or [tr[-1]["inst_per_s"]]
    print(f"- {sys.argv[2]}: {len(tr)} steps to step {tr[-1]['step']}, label tours/s (median after the first fifth) "
          f"{sorted(rates)[len(rates) // 2]:.0f}, step NLL first/last {tr[0].get('step_nll', 0):.4f}/{tr[-1].get('step_nll', 0):.4f}")
for r in va:
    v = r.get("val", {})
    print(f"  - validation at step {r.get('step')}: obj {v.get('obj', float('nan')):.4f}, instances without a feasible tour "
          f"{round(v.get('inst_infeasible', 0) * v.get('instances', 0))} of {v.get('instances')}, {v.get('seconds', 0):.0f} s")
PY
done
if [ -s "${OUT}/gpu-util.csv" ]; then
  python3 - "$OUT/gpu-util.csv" <<'PY' 2>&1 | tee -a "$SUM"
import csv, sys
u = [float(r[1].split()[0]) for r in csv.reader(open(sys.argv[1])) if len(r) > 1 and r[1].strip().split()[0].replace('.', '').isdigit()]
if u:
    print(f"GPU busy (nvidia-smi, every second): mean {sum(u) / len(u):.0f}%, max {max(u):.0f}%, {len(u)} samples")
PY
  mv "$OUT/gpu-util.csv" "$X/gpu-util.csv"
fi
files=1 bytes=0
for f in $(ls "$B"); do
  sz=$(stat -c %s "$B/$f")
  if ((files < 8 && bytes + sz <= 60 * 1048576)); then
    cp "$B/$f" "$OUT/${f#[12]-}"; files=$((files + 1)); bytes=$((bytes + sz))
  else
    note "left behind (over \$OUT's limits): ${f#[12]-}"
  fi
done
note "done; files in \$OUT: $(ls "$OUT" | tr '\n' ' ')"
