#!/usr/bin/env bash
# Verifies onnxruntime's CUDA execution provider with this project on a lent GPU machine (no Go, no internet, at most
# 64 MiB carried per command), from the bundle that scripts/gpu-prepare.sh split into work/gpu/part-NN/ folders:
#   bash scripts/gpu-check.sh stage   files the carried part(s) into work/gpu/stage (sha256-checked), probes the machine
#   bash scripts/gpu-check.sh run     stages, unpacks, finds a working CUDA route, solves the paper's 10,000 TSPTW-50 hard
#                                     instances on CUDA at several batch sizes and on 16 CPU workers, compares the tours
# The parts travel in as many commands as they need (stage for all but the last, run with the last; several parts per
# command where they fit); staged parts live in the ignored work/gpu/stage, which survives between commands only while
# the machine stays warm (30 s idle).
# Writes at most 7 files to $OUT (default work/gpu/out-local): env.txt, stage.log, runs.log, summary.md, metrics.txt,
# gpu-util.csv, sol-gpu.parquet (the tours of the first GPU run). Environment: GPU_CHECK_LIMIT (10000 instances),
# GPU_CHECK_BUDGET_S (420: every run is cut off by then, later ones are skipped), GPU_CHECK_BATCHES ("256 64 1024"),
# GPU_CHECK_XLA=0 skips the optional XLA bench,
# GPU_CHECK_EXTRA_LD (put first on LD_LIBRARY_PATH; gpu-prepare.sh's fake CUDA libraries for a test without a GPU),
# GPU_CHECK_GPU_DEVICE=cpu (a dry run of the whole script on a machine without a GPU: the "GPU" runs use the CPU).
# Routes (docs/gpu-check.md): B = onnxruntime-node 1.29.0 core + asus4 1.29.0 CUDA 13 provider from the bundle;
# A' = the bundle's 1.30.0 core + the providers of a pip onnxruntime-gpu 1.30.0; A = a core library in pip's capi.
set -uo pipefail # not -e: a failed run is recorded and the next one still runs
cd "$(dirname "$0")/.." || exit 1
mode=${1:-run}
case $mode in stage | run) ;; *) echo "usage: $0 stage|run" >&2; exit 2 ;; esac
t_start=$(date +%s)
G=work/gpu; S=$G/stage; W=$G/runs
OUT=${OUT:-$G/out-local}
mkdir -p "$OUT" "$S/parts" "$W"
LIMIT=${GPU_CHECK_LIMIT:-10000}; BUDGET=${GPU_CHECK_BUDGET_S:-420}; BATCHES=${GPU_CHECK_BATCHES:-256 64 1024}
GDEV=${GPU_CHECK_GPU_DEVICE:-cuda}
shopt -s nullglob

elapsed() { echo $(($(date +%s) - t_start)); }
note() { echo "[$(elapsed)s] $*" | tee -a "$OUT/stage.log" >&2; }

# probe: what the machine has, to env.txt; sets SITE, ORT_VERSION, ORT_CAPI from Python's onnxruntime if any.
probe() {
  local e=$OUT/env.txt
  {
    echo "== $(date -u +%FT%TZ) $(uname -srm), $(nproc) cores, $(ldd --version 2>&1 | head -1)"
    free -g 2>/dev/null | head -2
    echo "== nvidia-smi"
    if command -v nvidia-smi >/dev/null; then
      timeout -k 10 30 nvidia-smi 2>&1
      timeout -k 10 30 nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1
    else echo "nvidia-smi not found"; fi
    echo "== python3 and its onnxruntime"
    if command -v python3 >/dev/null; then
      timeout -k 10 120 python3 - <<'PY' 2>&1
import os, site, sys
print("python", sys.version.split()[0], sys.executable)
sp = [p for p in site.getsitepackages() + [site.getusersitepackages()] if os.path.isdir(p)]
print("SITE=" + ":".join(sp))
try:
    import onnxruntime as o
    capi = os.path.join(os.path.dirname(o.__file__), "capi")
    print("ORT_VERSION=" + o.__version__)
    print("ORT_CAPI=" + capi)
    print("ORT_PROVIDERS=" + ",".join(o.get_available_providers()))
    for f in sorted(os.listdir(capi)):
        print("  capi/%s %d" % (f, os.path.getsize(os.path.join(capi, f))))
except Exception as e:
    print("ORT_IMPORT_ERROR=%r" % e)
try:
    import importlib.metadata as md
    for d in sorted(md.distributions(), key=lambda d: (d.metadata["Name"] or "").lower()):
        n = d.metadata["Name"] or ""
        if any(k in n.lower() for k in ("onnx", "nvidia", "jax", "cuda", "cudnn")):
            print("  pkg", n, d.version)
except Exception as e:
    print("package listing failed:", e)
PY
    else echo "python3 not found"; fi
  } >"$e" 2>&1
  SITE=$(sed -n 's/^SITE=//p' "$e"); ORT_VERSION=$(sed -n 's/^ORT_VERSION=//p' "$e"); ORT_CAPI=$(sed -n 's/^ORT_CAPI=//p' "$e")
  GPU_NAME=$(timeout -k 10 20 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
  note "probe: onnxruntime ${ORT_VERSION:-none} in Python (providers: $(sed -n 's/^ORT_PROVIDERS=//p' "$e")), GPU: ${GPU_NAME:-none (nvidia-smi found nothing)}"
}

# stage: move carried parts into $S/parts, each checked against the SHA256SUMS that came with it.
stage() {
  local d p name want
  for d in "$G"/part-[0-9][0-9]; do
    # A folder whose part was staged by an earlier command stays behind; only a freshly carried one has a say.
    compgen -G "$d/lmask-gpu.tar.xz.[0-9][0-9]" >/dev/null || continue
    if [ -f "$d/SHA256SUMS" ]; then
      if [ -f "$S/SHA256SUMS" ] && ! cmp -s "$d/SHA256SUMS" "$S/SHA256SUMS"; then
        note "$d belongs to another bundle than the staged parts: starting over with its bundle"
        rm -f "$S"/parts/* "$S"/files/.extracted
      fi
      cp "$d"/SHA256SUMS "$d"/MANIFEST.txt "$d"/NPARTS "$S"/ 2>/dev/null
    fi
    for p in "$d"/lmask-gpu.tar.xz.[0-9][0-9]; do
      name=$(basename "$p")
      want=$(grep "  parts/$name\$" "$S/SHA256SUMS" 2>/dev/null | cut -d' ' -f1)
      if [ -n "$want" ] && [ "$(sha256sum "$p" | cut -d' ' -f1)" = "$want" ]; then
        mv -f "$p" "$S/parts/$name" && note "staged $name (sha256 ok)"
      else
        note "ERROR: $p does not match SHA256SUMS; not staged"
      fi
    done
  done
  [ -f "$S/NPARTS" ] || { note "no part has arrived yet (carry work/gpu/part-01 ...)"; return 1; }
  NPARTS=$(cat "$S/NPARTS"); local have=() miss=() i f
  for ((i = 1; i <= NPARTS; i++)); do
    f=$(printf 'lmask-gpu.tar.xz.%02d' "$i")
    if [ -f "$S/parts/$f" ]; then have+=("$i"); else miss+=("$i"); fi
  done
  note "parts staged: ${have[*]:-none} of $NPARTS; missing: ${miss[*]:-none}"
}

# unpack: extract the longest run of parts 01..k (a prefix of the archive gives its first files whole), then keep
# only the files whose sha256 matches; have FILE tells whether files/FILE is usable.
unpack() {
  local k=0 i f list=()
  for ((i = 1; i <= NPARTS; i++)); do
    f=$S/parts/$(printf 'lmask-gpu.tar.xz.%02d' "$i"); [ -f "$f" ] || break
    list+=("$f"); k=$i
  done
  ((k > 0)) || { note "ERROR: part 01 is not staged"; return 1; }
  if [ "$(cat "$S/files/.extracted" 2>/dev/null)" != "$k" ]; then
    rm -rf "$S/files"; mkdir -p "$S/files"
    unxz() { if command -v xz >/dev/null; then xz -dc; else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.stdin.buffer), sys.stdout.buffer)'; fi; }
    cat "${list[@]}" | unxz 2>>"$OUT/stage.log" | tar -x -C "$S/files" 2>>"$OUT/stage.log"
    ((k == NPARTS)) || note "only parts 01..$(printf %02d "$k") of $NPARTS staged: the last file unpacked is cut short (its check fails)"
    echo "$k" >"$S/files/.extracted"
  fi
  (cd "$S" && grep '  files/' SHA256SUMS | sha256sum -c 2>/dev/null) >"$S/files/.check"
  sed -n 's/: OK$//p' "$S/files/.check" >"$S/files/.ok"
  grep -v ': OK$' "$S/files/.check" | sed 's/^/  not usable: /' >>"$OUT/stage.log"
  note "unpacked from parts 01..$(printf %02d "$k"): $(wc -l <"$S/files/.ok") of $(grep -c '  files/' "$S/SHA256SUMS") files verified"
}
have() { grep -qx "files/$1" "$S/files/.ok" 2>/dev/null; }

probe
stage
st=$?
if [ "$mode" = stage ]; then exit $st; fi
((st == 0)) || { note "nothing to run"; exit 1; }
unpack || exit 1

# --- run mode ---------------------------------------------------------------------------------------------------
F=$S/files; BIN=$F/bin; RL=$OUT/runs.log; SUM=$OUT/summary.md; MET=$OUT/metrics.txt
: >"$RL"; : >"$MET"; rm -f "$W"/*
MODEL=models/pretrained/tsptw50-hard; INST=$F/data/tsptw50-hard.parquet; REFS=$F/data/pyvrp_50_hard.parquet
for f in bin/lmask-infer bin/gpu-cmpsol data/tsptw50-hard.parquet data/pyvrp_50_hard.parquet; do
  have "$f" || { note "ERROR: $f is missing or damaged; carry all parts"; exit 1; }
done
"$BIN"/lmask-infer --version >/dev/null 2>>"$RL" || { note "ERROR: $BIN/lmask-infer does not run here (glibc >= 2.34 needed; see runs.log)"; exit 1; }

# CUDA 13 and cuDNN 9 from pip's nvidia-* packages (nvidia/cu13/lib, nvidia/cudnn/lib, ...), as scripts/xla-env.sh does.
nv=""
for d in ${SITE//:/ }; do for l in "$d"/nvidia/*/lib "$d"/nvidia/*/*/lib; do [ -d "$l" ] && nv="$nv${nv:+:}$l"; done; done
if [ -z "$nv" ]; then # no Python: look in the usual places
  while IFS= read -r l; do nv="$nv${nv:+:}$l"; done < <(find /usr /opt /root /home -maxdepth 8 -type d -path '*site-packages/nvidia/*/lib' 2>/dev/null)
fi
export LD_LIBRARY_PATH="${GPU_CHECK_EXTRA_LD:+$GPU_CHECK_EXTRA_LD:}$nv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
curand=no
for l in ${nv//:/ }; do [ -e "$l/libcurand.so.10" ] && curand=$l; done
[ "$curand" = no ] && ldconfig -p 2>/dev/null | grep -q 'libcurand.so.10 ' && curand=system
if [ "$curand" = no ] && have stub/libcurand.so.10; then
  LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$PWD/$F/stub"; curand="stub (the provider imports no curand symbol)"
fi
{
  echo "== LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  echo "libcurand.so.10: $curand"
  for l in ${nv//:/ }; do echo "  $l: $(cd "$l" && printf '%s ' * | cut -c1-600)"; done
} >>"$OUT/env.txt"

# Candidate routes, name:core-library; the providers sit beside the core, where onnxruntime looks for them.
routes=()
if have ort-1.29.0/libonnxruntime.so && have ort-1.29.0/libonnxruntime_providers_shared.so && have ort-1.29.0/libonnxruntime_providers_cuda.so; then
  routes+=("B:$PWD/$F/ort-1.29.0/libonnxruntime.so")
fi
if [ -n "${ORT_CAPI:-}" ] && [ -f "$ORT_CAPI/libonnxruntime_providers_cuda.so" ] && [ -f "$ORT_CAPI/libonnxruntime_providers_shared.so" ]; then
  if [ "${ORT_VERSION%%+*}" = 1.30.0 ] && have ort-1.30.0/libonnxruntime.so; then
    a2=$G/routeA2; rm -rf "$a2"; mkdir -p "$a2"
    cp "$F/ort-1.30.0/libonnxruntime.so" "$a2/"
    ln -s "$ORT_CAPI/libonnxruntime_providers_cuda.so" "$ORT_CAPI/libonnxruntime_providers_shared.so" "$a2/"
    routes+=("A2:$PWD/$a2/libonnxruntime.so")
  else
    note "route A' skipped: pip onnxruntime ${ORT_VERSION:-?} is not 1.30.0, or the bundle's 1.30.0 core did not arrive"
  fi
  for core in "$ORT_CAPI"/libonnxruntime.so*; do routes+=("A:$core"); break; done
fi
for r in "${routes[@]}"; do
  {
    echo "== route ${r%%:*}: ldd of the CUDA provider beside ${r#*:}"
    ldd "$(dirname "${r#*:}")/libonnxruntime_providers_cuda.so" 2>&1 | grep -E 'not found|cu|nvidia|onnxruntime'
  } >>"$OUT/env.txt"
done

# One lmask-infer run with the paper's protocol for this set (eval-paper.sh: greedy x8, R = 200, no rescue).
declare -A R_WALL R_RC R_FAIL
run_infer() { # name core device batch workers [limit [seconds to leave for later runs]]
  local name=$1 core=$2 dev=$3 batch=$4 workers=$5 lim=${6:-$LIMIT} left t0 rc
  left=$((BUDGET - $(elapsed) - ${7:-0}))
  if ((left < 30)); then note "skipped $name: ${left}s of the ${BUDGET}s budget left${7:+ after keeping ${7}s for later runs}"; return 3; fi
  t0=$(date +%s.%N)
  ONNXRUNTIME_SHARED_LIBRARY_PATH=$core timeout -k 20 $((left < 300 ? left : 300)) "$BIN"/lmask-infer --model "$MODEL" \
    --data "$INST" --reference "$REFS" --budget 200 --rescue-time 0 --limit "$lim" --device "$dev" --batch "$batch" \
    --workers "$workers" --out "$W/$name.parquet" --metrics-json "$W/$name.json" >"$W/$name.log" 2>&1
  rc=$?
  { echo "== $name: $dev, batch $batch, workers $workers, $lim instances, core $core: rc $rc"; cat "$W/$name.log"; } >>"$RL"
  R_WALL[$name]=$(echo "$t0 $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}'); R_RC[$name]=$rc
  if ((rc == 0)); then { echo "== $name"; cat "$W/$name.json"; } >>"$MET"; fi
  note "$name: rc $rc, ${R_WALL[$name]} s"
  return $rc
}
jget() { sed -n "s/^  \"$1\": \([^,]*\),\{0,1\}\$/\1/p" "$W/$2.json" 2>/dev/null; }

# Smoke test each route on 64 instances; the first that works (in the order B, A', A) runs the full set.
primary=""; others=()
for r in "${routes[@]}"; do
  n=${r%%:*}
  run_infer "smoke-$n" "${r#*:}" "$GDEV" 64 2 64
  rc=$?
  if ((rc == 0)); then
    if [ -z "$primary" ]; then primary=$r; else others+=("$r"); fi
  elif ((rc != 3)); then # 3: skipped for want of time, already noted
    # lmask-infer's message names the library; onnxruntime's cause comes at its end, so keep both ends.
    R_FAIL[$n]=$( (grep -m1 'lmask-infer:' "$W/smoke-$n.log" || tail -1 "$W/smoke-$n.log") |
      awk '{ if (length($0) > 700) print substr($0, 1, 250) " ... " substr($0, length($0) - 400); else print }')
    note "route $n failed: ${R_FAIL[$n]}"
  fi
done
rm -f "$W"/smoke-*.parquet

# The GPU runs: batch sizes, then more workers; the CPU baseline with the same core library, so only the provider differs.
cpu_core=${primary#*:}
if [ -z "$primary" ]; then
  for c in ort-1.29.0/libonnxruntime.so ort-1.30.0/libonnxruntime.so; do have "$c" && { cpu_core=$PWD/$F/$c; break; }; done
fi
gpu_runs=()
if command -v nvidia-smi >/dev/null && [ -n "$primary" ]; then
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used,power.draw --format=csv -lms 1000 >"$OUT/gpu-util.csv" 2>&1 &
  util_pid=$!
fi
read -ra bs <<<"$BATCHES"; b1=${bs[0]}
# The first GPU run leaves 120 s for the CPU run, the baseline every comparison needs.
if [ -n "$primary" ]; then run_infer "gpu-b$b1-w2" "${primary#*:}" "$GDEV" "$b1" 2 "$LIMIT" 120 && gpu_runs+=("gpu-b$b1-w2"); fi
[ -n "$cpu_core" ] && run_infer cpu-w16 "$cpu_core" cpu 4 16
if [ -n "$primary" ]; then
  for b in "${bs[@]:1}"; do run_infer "gpu-b$b-w2" "${primary#*:}" "$GDEV" "$b" 2 && gpu_runs+=("gpu-b$b-w2"); done
  run_infer "gpu-b$b1-w8" "${primary#*:}" "$GDEV" "$b1" 8 && gpu_runs+=("gpu-b$b1-w8")
  for r in "${others[@]}"; do run_infer "gpu-${r%%:*}-b$b1-w2" "${r#*:}" "$GDEV" "$b1" 2 && gpu_runs+=("gpu-${r%%:*}-b$b1-w2"); done
fi
[ -n "${util_pid:-}" ] && kill "$util_pid" 2>/dev/null

# Optional: XLA training throughput with JAX's PJRT plugin, where JAX is installed: REINFORCE at the paper's model size
# (6 layers, 50 samples, batch 64) with the rollouts advanced on every core and imitation tours/s in the same table;
# then, while time is left, batch 512 in 8 double-buffered groups (--pipelines) against batch 512 in one, and the
# first run on one host goroutine (what --host-workers buys). lmask-train bench samples nvidia-smi over the timed
# iterations itself (the "busy rl/im" column).
xla_line="not run"
if [ "${GPU_CHECK_XLA:-1}" = 1 ] && have bin/lmask-train && (($(elapsed) < BUDGET - 90)); then
  echo "== xla bench" >>"$RL"
  if (
    source scripts/xla-env.sh >>"$RL" 2>&1 || exit 1
    bench() { # host-workers pipelines batch imitate-batch
      local left=$((BUDGET - $(elapsed))) rc=0
      echo "-- --host-workers $1 --pipelines $2 --batch $3 --imitate-batch $4" >>"$W/xla-bench.txt"
      if ((left < 60)); then echo "skipped: $left s of the budget left" >>"$W/xla-bench.txt"; return 0; fi
      ONNXRUNTIME_SHARED_LIBRARY_PATH=$cpu_core timeout -k 20 $((left > 200 ? 200 : left)) "$BIN"/lmask-train bench \
        --backends "$LMASK_XLA_BACKEND" --steps 3 --layers 6 --batch "$3" --samples 50 --host-workers "$1" \
        --pipelines "$2" --imitate-batch "$4" >>"$W/xla-bench.txt" 2>>"$RL" || rc=$?
      ((rc == 0)) || echo "rc $rc (124: stopped by the budget)" >>"$W/xla-bench.txt"
      return "$rc"
    }
    : >"$W/xla-bench.txt"
    bench "$(nproc)" 1 64 1024 || exit 1
    bench 2 8 512 0
    bench 2 1 512 0
    bench 1 1 64 0
    true # a later run's failure is an rc line in the table (its text in runs.log); only the first run's fails the section
  ); then
    xla_line=$'\n\n```\n'$(cat "$W/xla-bench.txt")$'\n```'; cat "$W/xla-bench.txt" >>"$RL"
  else
    xla_line="failed, or no JAX CUDA plugin (runs.log)"
  fi
fi

# Summary: one row per run, then each GPU run's tours against the CPU run's.
{
  echo "# gpu-check $(date -u +%FT%TZ)"
  echo
  echo "GPU: ${GPU_NAME:-none}. Python onnxruntime: ${ORT_VERSION:-none}. Routes tried: ${routes[*]:-none}." \
    "Used: ${primary:-none (no CUDA route worked)}.${GPU_CHECK_GPU_DEVICE:+ DRY RUN: the GPU runs used --device $GDEV.}"
  echo "Instances: $LIMIT of the paper's TSPTW-50 hard set, greedy x8, R = 200, --rescue-time 0, model $MODEL."
  echo
  echo "| run | rc | wall s (process) | seconds (metrics) | obj | gap | inst. infeasible |"
  echo "|---|---|---|---|---|---|---|"
  for j in "$W"/*.json; do
    n=$(basename "$j" .json); [ -n "${R_RC[$n]+x}" ] || continue
    awk -v n="$n" -v rc="${R_RC[$n]}" -v w="${R_WALL[$n]}" -v s="$(jget seconds "$n")" -v o="$(jget obj "$n")" \
      -v g="$(jget gap "$n")" -v i="$(jget inst_infeasible "$n")" \
      'BEGIN { printf "| %s | %s | %s | %.1f | %.4f | %.3f%% | %.2f%% |\n", n, rc, w, s, o, 100 * g, 100 * i }'
  done
  for n in "${!R_RC[@]}"; do [ -f "$W/$n.json" ] || echo "| $n | ${R_RC[$n]} | ${R_WALL[$n]} | - | - | - | - |"; done
  for n in "${!R_FAIL[@]}"; do echo; echo "Route $n failed: ${R_FAIL[$n]}"; done
  echo
  echo "Tours (gpu-cmpsol A=CPU B=GPU; same = every instance's best tour identical):"
  for n in "${gpu_runs[@]}"; do
    [ -f "$W/cpu-w16.parquet" ] && echo "* $n vs cpu-w16: $("$BIN"/gpu-cmpsol "$W/cpu-w16.parquet" "$W/$n.parquet" 2>&1 | head -3 | tr '\n' ' ')"
  done
  if ((${#gpu_runs[@]} > 1)); then
    echo "* ${gpu_runs[1]} vs ${gpu_runs[0]}: $("$BIN"/gpu-cmpsol "$W/${gpu_runs[0]}.parquet" "$W/${gpu_runs[1]}.parquet" 2>&1 | head -1)"
  fi
  echo
  echo "XLA bench: $xla_line"
  echo
  echo "Total $(elapsed) s. Failures: see runs.log; machine and libraries: env.txt."
} >"$SUM"
((${#gpu_runs[@]})) && cp "$W/${gpu_runs[0]}.parquet" "$OUT/sol-gpu.parquet"
cat "$SUM"
