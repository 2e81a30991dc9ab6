#!/usr/bin/env bash
# Installs what lmask needs beyond Go, gcc and Node/npm, into ./third_party
# (ignored by git). Idempotent; safe to run again.
#   * the onnxruntime CPU shared library, from the onnxruntime-node npm tarball
#     (no install scripts run), checksum-verified;
#   * `just`, from the rust-just npm package;
#   * with --test-tools: onnxruntime-node and DuckDB (npm) and python3-onnx (apt),
#     the second runtimes the interoperability tests use.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ORT_VERSION=$(cat ORT_VERSION)
ORT_SHA256=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23
JUST_VERSION=1.57.0
DUCKDB_VERSION=1.5.6-r.1
TP=$ROOT/third_party
mkdir -p "$TP"

lib=$TP/onnxruntime/libonnxruntime.so.$ORT_VERSION
if [ ! -f "$lib" ] || ! echo "$ORT_SHA256  $lib" | sha256sum -c --status; then
  echo "setup: fetching onnxruntime $ORT_VERSION (npm onnxruntime-node tarball)" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "onnxruntime-node@$ORT_VERSION" >/dev/null)
  tar -xzf "$tmp"/onnxruntime-node-"$ORT_VERSION".tgz -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
  echo "$ORT_SHA256  $tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" | sha256sum -c --status || {
    echo "setup: checksum mismatch for libonnxruntime.so.1 from onnxruntime-node@$ORT_VERSION" >&2; exit 1; }
  mkdir -p "$TP/onnxruntime"
  cp "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$lib.tmp"
  mv "$lib.tmp" "$lib"
  ln -sf "libonnxruntime.so.$ORT_VERSION" "$TP/onnxruntime/libonnxruntime.so"
  ln -sf "libonnxruntime.so.$ORT_VERSION" "$TP/onnxruntime/libonnxruntime.so.1"
fi

if ! command -v just >/dev/null 2>&1 && [ ! -x "$TP/node/node_modules/.bin/just" ]; then
  echo "setup: installing just $JUST_VERSION (npm rust-just)" >&2
  mkdir -p "$TP/node"
  (cd "$TP/node" && npm install --silent --no-audit --no-fund --prefix . "rust-just@$JUST_VERSION" >/dev/null)
fi
if [ "${1:-}" = "--test-tools" ]; then
  # Second runtimes used by interoperability tests: onnxruntime-node runs the
  # exported ONNX files, DuckDB reads the Parquet files, Debian's python3-onnx
  # validates the ONNX files. Tests skip (saying why) where these are absent.
  if [ ! -d "$TP/node/node_modules/onnxruntime-node" ] || [ ! -d "$TP/node/node_modules/@duckdb/node-api" ]; then
    echo "setup: installing onnxruntime-node@$ORT_VERSION and @duckdb/node-api@$DUCKDB_VERSION (npm)" >&2
    mkdir -p "$TP/node"
    (cd "$TP/node" && npm install --silent --no-audit --no-fund --ignore-scripts --prefix . \
      "onnxruntime-node@$ORT_VERSION" >/dev/null)
    (cd "$TP/node" && npm install --silent --no-audit --no-fund --prefix . \
      "@duckdb/node-api@$DUCKDB_VERSION" >/dev/null)
  fi
  if ! /usr/bin/python3 -c 'import onnx' >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "setup: installing python3-onnx (apt)" >&2
      apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-onnx >/dev/null
    else
      echo "setup: python3-onnx missing (apt-get install python3-onnx); the ONNX checker test will skip" >&2
    fi
  fi
fi

mkdir -p "$TP/bin"
if [ -x "$TP/node/node_modules/.bin/just" ]; then ln -sf "$TP/node/node_modules/.bin/just" "$TP/bin/just"; fi
echo "setup: onnxruntime at $lib" >&2
