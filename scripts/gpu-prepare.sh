#!/usr/bin/env bash
# Prepares, on this CPU machine, what scripts/gpu-check.sh needs to verify onnxruntime's CUDA execution provider on
# a lent GPU machine that has no Go, no internet and takes at most 64 MiB per command, the checkout's tracked files
# included (scripts/gpu-slim.sh on leaves most shipped models behind to make room):
# stripped binaries, the paper's TSPTW-50 hard test set with its PyVRP reference, and an onnxruntime 1.29.0 whose core
# library can load the CUDA provider, packed into one xz archive split into work/gpu/part-NN/ folders of at most
# GPU_PART_MIB MiB, as many folders carried per device command as fit. Idempotent: reruns reuse what is already there and valid.
#   scripts/gpu-prepare.sh
# Environment: GPU_PART_MIB (20: two parts fit beside the checkout slimmed to three models); GPU_CUDA_PROVIDER=sm90 (default: the CUDA provider with the cubins of other GPU
# architectures zeroed, 38 MB packed) or full (unmodified, 164 MB packed, about 5 more parts); GPU_WITH_XLA=0 leaves out
# the optional XLA build of lmask-train; GPU_SELFTEST=0 skips the CPU self-test at the end; LMASK_SHARED (../shared).
#
# Where the libraries come from (see docs/gpu-check.md): the CUDA 13 provider and libonnxruntime_providers_shared.so
# from npm com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9 (onnxruntime 1.29.0); the core library from npm
# onnxruntime-node@1.29.0, whose Linux build has the CUDA provider bridge. The core of com.github.asus4.onnxruntime is
# a CPU-only build ("CUDA execution provider is not enabled in this build"), so it is not shipped.
set -euo pipefail
cd "$(dirname "$0")/.."
renice -n 19 -p $$ >/dev/null 2>&1 || true # builds and xz run for minutes; stay behind whatever else the machine runs

G=work/gpu
PART_MIB=${GPU_PART_MIB:-20}
PROVIDER=${GPU_CUDA_PROVIDER:-sm90}
WITH_XLA=${GPU_WITH_XLA:-1}
shared=${LMASK_SHARED:-../shared}

# Pinned npm tarballs: name version integrity (the registry's sha512, checked before use).
GPU_PKG=(com.github.asus4.onnxruntime.linux-x64-gpu 0.4.9
  sha512-FopIhNE/Ng+v2X65wVc9clPCBCvhvA53Hxo2U0Kf5fGdVsC7iCA+mZ0KLWggcQAj7TIZ6pNidR4AC10g74Xo6w==)
NODE_PKG=(onnxruntime-node 1.29.0
  sha512-WjiVVB72riILz8HbYvxvmjKyE/WmkYoSfKY++axo5jAR609HQg8MwiG/HhShpTcJfmmAdzxxmB+MMST3A+SiPA==)
# sha256 of the libraries inside them, as first extracted and inspected on 2026-11-28.
SHA_CUDA=56cf3254b118ad837ccc4ed8f6d1b23504bbf7ef91b34cbc0b289cb7f10b3037   # libonnxruntime_providers_cuda.so (asus4 gpu)
SHA_SHARED=c6a12593396095f5670160e284c35d1700b7708cf3037b7042e2a5200ccae772 # libonnxruntime_providers_shared.so (asus4 gpu)
SHA_CORE129=89688f5cf51c7e31befbb7b9101bc027799009b18d1baa9a5b1146a72e69538d # libonnxruntime.so.1 (onnxruntime-node 1.29.0)
SHA_CORE130=$(sed -n 's/^ORT_SHA256=//p' scripts/setup.sh) # third_party/onnxruntime, installed by scripts/setup.sh

die() { echo "gpu-prepare: $*" >&2; exit 1; }
say() { echo "gpu-prepare: $*" >&2; }
need() { command -v "$1" >/dev/null || die "$1 not found (needed to $2)"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
need go "build the binaries"; need curl "download the npm tarballs"; need openssl "check their sha512"
need xz "compress the bundle"; need python3 "zero the other architectures' cubins"; need split "cut the parts"

mkdir -p "$G"/dl "$G"/src "$G"/build/bin

# 1. Binaries: bin/ (rename-in-place, so running copies are unaffected), and
# stripped copies for the bundle; gpu-cmpsol is pure Go (CGO off), so it runs on any glibc.
say "building bin/ and stripped copies in $G/build/bin"
go build -o bin/ ./cmd/lmask-infer ./cmd/lmask-train ./cmd/lmask-data
go build -ldflags="-s -w" -o "$G"/build/bin/ ./cmd/lmask-infer
CGO_ENABLED=0 go build -ldflags="-s -w" -o "$G"/build/bin/gpu-cmpsol scripts/gpu-cmpsol.go
if [ "$WITH_XLA" = 1 ]; then
  go build -tags xla -ldflags="-s -w" -o "$G"/build/bin/lmask-train ./cmd/lmask-train
else
  rm -f "$G"/build/bin/lmask-train
fi

# 2. npm tarballs, fetched from the registry's tarball URL and checked against the pinned integrity.
integrity() { echo "sha512-$(openssl dgst -sha512 -binary "$1" | base64 -w0)"; }
fetch() { # name version integrity
  local name=$1 ver=$2 want=$3 f="$G/dl/$1-$2.tgz"
  if [ -f "$f" ] && [ "$(integrity "$f")" = "$want" ]; then return 0; fi
  say "downloading $name@$ver"
  curl -fsSL --retry 3 -o "$f.part" "https://registry.npmjs.org/$name/-/$name-$ver.tgz" || die "download of $name@$ver failed"
  [ "$(integrity "$f.part")" = "$want" ] || { rm -f "$f.part"; die "$name@$ver: integrity mismatch (want $want)"; }
  mv "$f.part" "$f"
}
fetch "${GPU_PKG[@]}"
fetch "${NODE_PKG[@]}"

# 3. The three libraries, each checked against its pinned sha256.
extract() { # tarball member dest sha256
  if [ -f "$3" ] && [ "$(sha "$3")" = "$4" ]; then return 0; fi
  tar -xzf "$1" -O "$2" >"$3.part" || die "$2 not in $1"
  [ "$(sha "$3.part")" = "$4" ] || { rm -f "$3.part"; die "$2 from $1: sha256 mismatch (want $4)"; }
  mv "$3.part" "$3"
}
gpu_tgz="$G/dl/${GPU_PKG[0]}-${GPU_PKG[1]}.tgz"; node_tgz="$G/dl/${NODE_PKG[0]}-${NODE_PKG[1]}.tgz"
extract "$gpu_tgz" package/Plugins/Linux/x64/libonnxruntime_providers_cuda.so "$G"/src/libonnxruntime_providers_cuda.so "$SHA_CUDA"
extract "$gpu_tgz" package/Plugins/Linux/x64/libonnxruntime_providers_shared.so "$G"/src/libonnxruntime_providers_shared.so "$SHA_SHARED"
extract "$node_tgz" package/bin/napi-v6/linux/x64/libonnxruntime.so.1 "$G"/src/libonnxruntime-1.29.0.so "$SHA_CORE129"
core130=third_party/onnxruntime/libonnxruntime.so.$(cat ORT_VERSION)
if [ ! -f "$core130" ] || [ "$(sha "$core130")" != "$SHA_CORE130" ]; then die "$core130 missing or not the pinned one: run scripts/setup.sh"; fi

# 4. The paper's TSPTW-50 hard set and its PyVRP reference, imported from ../shared as eval-paper.sh does.
inst=out/paper/tsptw50-hard.parquet; refs=out/paper/pyvrp_50_hard.parquet
if [ ! -f "$inst" ] || [ ! -f "$refs" ]; then
  src=$shared/datasets/lmask-paper
  [ -d "$src" ] || die "$inst missing and $src not found (set LMASK_SHARED)"
  mkdir -p out/paper
  source scripts/paper-sets.sh
  paper_set tsptw hard pyvrp 50 || die "could not import the TSPTW-50 hard set from $src"
fi

# 5. The tree to pack, in archive order: what every route needs first, the optional files last, so that the first
# parts alone already give a usable prefix (gpu-check.sh extracts whatever complete files the parts it has hold).
# lmask-data is not needed there (gpu-cmpsol compares the tours, lmask-infer prints the metrics).
T=$G/tree
rm -rf "$T"; mkdir -p "$T"/bin "$T"/data "$T"/ort-1.29.0 "$T"/stub "$T"/ort-1.30.0
cp "$G"/build/bin/lmask-infer "$G"/build/bin/gpu-cmpsol "$T"/bin/
cp "$inst" "$refs" "$T"/data/
cp "$G"/src/libonnxruntime-1.29.0.so "$T"/ort-1.29.0/libonnxruntime.so
cp "$G"/src/libonnxruntime_providers_shared.so "$T"/ort-1.29.0/
case $PROVIDER in
  full) cp "$G"/src/libonnxruntime_providers_cuda.so "$T"/ort-1.29.0/ ;;
  sm90)
    # H100 and H200 are sm_90 and the provider holds no PTX, so only its sm_90 cubins can ever run there; zeroing
    # the payloads of the others (headers kept, sizes and offsets unchanged) makes it compress to a quarter.
    python3 - "$G"/src/libonnxruntime_providers_cuda.so "$T"/ort-1.29.0/libonnxruntime_providers_cuda.so 90 <<'PY'
import struct, sys
src, dst, keep = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
sec = lambda i: struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize)
names = sec(shstrndx)[4]
fat = [sec(i) for i in range(shnum) if b[names + sec(i)[0]:b.index(0, names + sec(i)[0])] == b".nv_fatbin"]
assert len(fat) == 1, "no .nv_fatbin section"
pos, end = fat[0][4], fat[0][4] + fat[0][5]
kept = zeroed = 0
while pos < end:
    magic, _, hsize, fsize = struct.unpack_from("<IHHQ", b, pos)  # fatbin header
    if magic != 0xBA55ED50:  # alignment padding between fatbins
        assert b[pos:pos + 8] == bytes(8), f"unexpected bytes at {pos:#x}"
        pos += 8
        continue
    e, fe = pos + hsize, pos + hsize + fsize
    while e < fe:  # entries: kind u16, version u16, header size u32, payload size u64, ..., arch u32 at +28
        kind, _, ehsize, psize = struct.unpack_from("<HHIQ", b, e)
        arch, = struct.unpack_from("<I", b, e + 28)
        assert kind == 2, f"entry of kind {kind} (PTX?) at {e:#x}: refusing to guess"
        if arch == keep:
            kept += psize
        else:
            b[e + ehsize:e + ehsize + psize] = bytes(psize)
            zeroed += psize
        e += ehsize + psize
    assert e == fe, "fatbin entry sizes do not add up"
    pos = fe
open(dst, "wb").write(b)
print(f"gpu-prepare: CUDA provider: kept {kept / 1e6:.1f} MB of sm_{keep} cubins, zeroed {zeroed / 1e6:.1f} MB", file=sys.stderr)
PY
    ;;
  *) die "GPU_CUDA_PROVIDER=$PROVIDER: want sm90 or full" ;;
esac
# The provider needs libcurand.so.10 but imports no symbol from it; JAX's CUDA 13 wheels may not bring curand, so an
# empty library of that soname goes along, put on the path by gpu-check.sh only where no real one is found.
if command -v gcc >/dev/null; then
  echo 'void lmask_curand_stub(void) {}' >"$G"/build/curand-stub.c
  gcc -shared -fPIC -Wl,-soname,libcurand.so.10 -o "$T"/stub/libcurand.so.10 "$G"/build/curand-stub.c
else
  say "warning: gcc not found; no libcurand.so.10 stub in the bundle"
fi
cp "$core130" "$T"/ort-1.30.0/libonnxruntime.so
[ -f "$G"/build/bin/lmask-train ] && cp "$G"/build/bin/lmask-train "$T"/bin/
# Route B's files first; then the XLA lmask-train (the optional bench), which with 24 MiB parts still ends inside
# part 03; then the 1.30.0 core, needed only by route A' (pip onnxruntime-gpu 1.30.0 providers). The Go binaries sit
# next to each other because xz finds their shared runtime code only within its 64 MiB window.
order=(bin/lmask-infer bin/gpu-cmpsol bin/lmask-train data/tsptw50-hard.parquet data/pyvrp_50_hard.parquet
  ort-1.29.0/libonnxruntime.so ort-1.29.0/libonnxruntime_providers_shared.so ort-1.29.0/libonnxruntime_providers_cuda.so
  stub/libcurand.so.10 ort-1.30.0/libonnxruntime.so)
files=(); for f in "${order[@]}"; do [ -f "$T/$f" ] && files+=("$f"); done
{
  echo "lmask GPU bundle, prepared $(date -u +%FT%TZ) from commit $(git rev-parse --short HEAD) (uncommitted changes: $(git status --porcelain --untracked-files=no | wc -l) files)"
  echo "CUDA provider variant: $PROVIDER (unmodified sha256 $SHA_CUDA)"
  echo "ort-1.29.0/libonnxruntime.so: ${NODE_PKG[0]}@${NODE_PKG[1]} package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
  echo "ort-1.29.0/libonnxruntime_providers_*.so: ${GPU_PKG[0]}@${GPU_PKG[1]} package/Plugins/Linux/x64/"
  echo "ort-1.30.0/libonnxruntime.so: third_party/onnxruntime (onnxruntime-node@1.30.0, scripts/setup.sh)"
  echo "data/: out/paper (the paper's tsptw50_test_hard_seed2025.npz and pyvrp_50_hard.npz, imported)"
  echo "archive order (a prefix of the parts extracts the first files): ${files[*]}"
} >"$T"/MANIFEST.txt
(cd "$T" && sha256sum "${files[@]}") >"$G"/build/FILES.sha256

# 6. Pack (xz -9e beat zstd -19 --long on these files: 164.3 vs 164.6 MB for the full provider) unless the packed
# files are unchanged, then split into parts, one folder each so that each can be one carry path.
A=$G/build/lmask-gpu.tar.xz
if [ -f "$A" ] && [ -f "$A.files" ] && cmp -s "$G"/build/FILES.sha256 "$A.files"; then
  say "archive up to date: $A"
else
  say "packing $(du -shc "${files[@]/#/$T/}" | tail -1 | cut -f1) with xz -9e (a few minutes)"
  tar -C "$T" -cf - --owner=0 --group=0 --numeric-owner --mtime=@0 "${files[@]}" | nice -n 19 xz -9e -T1 >"$A.part"
  mv "$A.part" "$A"; cp "$G"/build/FILES.sha256 "$A.files"
fi
rm -rf "$G"/part-[0-9][0-9] "$G"/build/split; mkdir -p "$G"/build/split
split -b "${PART_MIB}M" -d -a 2 --numeric-suffixes=1 "$A" "$G"/build/split/lmask-gpu.tar.xz.
parts=("$G"/build/split/lmask-gpu.tar.xz.*); n=${#parts[@]}
# SHA256SUMS paths are relative to gpu-check.sh's stage folder: parts/, the whole archive, and files/ extracted.
{
  for p in "${parts[@]}"; do echo "$(sha "$p")  parts/$(basename "$p")"; done
  echo "$(sha "$A")  lmask-gpu.tar.xz"
  sed 's#  #  files/#' "$G"/build/FILES.sha256
} >"$G"/SHA256SUMS
echo "$n" >"$G"/build/NPARTS
for p in "${parts[@]}"; do
  d=$G/part-${p##*.}; mkdir -p "$d"
  mv "$p" "$d"/; cp "$G"/SHA256SUMS "$T"/MANIFEST.txt "$d"/; echo "$n" >"$d"/NPARTS
done
cp "$T"/MANIFEST.txt "$G"/MANIFEST.txt

# 7. Self-test on this CPU: the 1.29.0 core solves like the checkout's 1.30.0 one, and with fake CUDA libraries
# (every needed symbol, each failing with "no device") it loads the packed provider and runs its code.
if [ "${GPU_SELFTEST:-1}" = 1 ]; then
  st=$G/build/selftest; rm -rf "$st"; mkdir -p "$st"
  run_infer() { nice -n 19 "$T"/bin/lmask-infer --model models/pretrained/tsptw50-hard --data "$T"/data/tsptw50-hard.parquet \
    --reference "$T"/data/pyvrp_50_hard.parquet --budget 200 --rescue-time 0 --limit 50 "$@"; }
  ONNXRUNTIME_SHARED_LIBRARY_PATH=$PWD/$core130 run_infer --out "$st"/cpu-130.parquet >"$st"/cpu-130.log 2>&1 ||
    die "self-test: CPU run with $core130 failed (see $st/cpu-130.log)"
  ONNXRUNTIME_SHARED_LIBRARY_PATH=$PWD/$T/ort-1.29.0/libonnxruntime.so run_infer --out "$st"/cpu-129.parquet >"$st"/cpu-129.log 2>&1 ||
    die "self-test: CPU run with the 1.29.0 core failed (see $st/cpu-129.log)"
  cmp_line=$("$T"/bin/gpu-cmpsol "$st"/cpu-130.parquet "$st"/cpu-129.parquet | head -1)
  say "self-test: 50 instances, onnxruntime 1.30.0 vs 1.29.0 on the CPU: $cmp_line"
  [[ $cmp_line == same:* ]] || die "self-test: the 1.29.0 core gives other tours than 1.30.0"
  if command -v gcc >/dev/null && command -v readelf >/dev/null; then
    fake=$G/build/fake-cuda; mkdir -p "$fake"
    for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do
      mapfile -t syms < <(readelf --dyn-syms -W "$T"/ort-1.29.0/libonnxruntime_providers_cuda.so |
        awk '$7 == "UND" {print $8}' | sed -n "s/@$lib\$//p" | sort -u)
      {
        echo 'static const char msg[] = "fake CUDA library (gpu-prepare self-test): no device";'
        for s in "${syms[@]}"; do
          case $s in *ErrorString | *ErrorName | *StatusString | *StatusName) echo "const char *$s(void) { return msg; }" ;;
            *) echo "long $s(void) { return 100; }" ;; esac
        done
      } >"$fake/${lib%%.so*}.c"
      { echo "$lib {"; echo " global:"; printf '  %s;\n' "${syms[@]}"; echo " local: *;"; echo "};"; } >"$fake/${lib%%.so*}.map"
      gcc -shared -fPIC -Wl,-soname,$lib -Wl,--version-script="$fake/${lib%%.so*}.map" -o "$fake/$lib" "$fake/${lib%%.so*}.c"
    done
    cp "$T"/stub/libcurand.so.10 "$fake"/
    gcc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$fake"/libcuda.so.1 "$G"/build/curand-stub.c
    LD_LIBRARY_PATH=$PWD/$fake ONNXRUNTIME_SHARED_LIBRARY_PATH=$PWD/$T/ort-1.29.0/libonnxruntime.so \
      run_infer --device cuda --out "$st"/cuda.parquet >"$st"/cuda.log 2>&1 && die "self-test: --device cuda succeeded with fake CUDA libraries?"
    grep -q 'fake CUDA library (gpu-prepare self-test): no device' "$st"/cuda.log ||
      die "self-test: the CUDA provider did not reach the (fake) CUDA runtime; see $st/cuda.log"
    say "self-test: with fake CUDA 13 libraries the 1.29.0 core loaded the packed provider, which called cudaGetDeviceCount"
  fi
fi

# 8. What to run, in order: each command carries the checkout's tracked and untracked files as well, so as many parts
# go into one command as fit beside them (scripts/gpu-slim.sh on makes room by leaving most shipped models behind).
tree_b=$({ git ls-files -z; git ls-files -z --others --exclude-standard; } | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
per=$(((64 * 1048576 - tree_b - 65536) / (PART_MIB * 1048576)))
echo
echo "Bundle: $A ($(du -h "$A" | cut -f1), $n parts of at most $PART_MIB MiB; CUDA provider: $PROVIDER)."
echo "Working tree sent with each command: $((tree_b / 1000)) kB, room for $per part(s) of $PART_MIB MiB beside it."
if ((per < 1)); then
  echo "WARNING: not one part fits: run 'bash scripts/gpu-slim.sh on' (or lower GPU_PART_MIB) and prepare again"
  exit 0
fi
echo "Device commands, in order (see docs/gpu-check.md):"
c=0
for ((i = 1; i <= n; i += per)); do
  carry=(); for ((j = i; j < i + per && j <= n; j++)); do carry+=("\"$(printf 'work/gpu/part-%02d' "$j")\""); done
  if ((i + per <= n)); then cmd="bash scripts/gpu-check.sh stage"; else cmd="bash scripts/gpu-check.sh run"; fi
  c=$((c + 1)); echo "  $c. command: $cmd    carry: [$(IFS=,; echo "${carry[*]}")]"
done
