#!/usr/bin/env bash
# Installs what lmask needs beyond Go, gcc and Node/npm, into ./third_party
# (ignored by git). Idempotent; safe to run again.
#   * the onnxruntime CPU shared library, from the onnxruntime-node npm tarball
#     (no install scripts run), checksum-verified;
#   * `just`, from the rust-just npm package;
#   * with --test-tools: onnxruntime-node and DuckDB (npm) and python3-onnx (apt,
#     as root only), the second runtimes the interoperability tests use. They are
#     optional: LMASK_SKIP_INTEROP=1 (or --no-test-tools) leaves them out, and a
#     failed install only warns; the tests that need them then skip, saying why.
# Every npm and apt step is bounded by LMASK_SETUP_TIMEOUT seconds (default 300)
# and shows its own errors; a failed or timed-out step for the library or `just`
# stops the setup with a non-zero status. LMASK_THIRD_PARTY moves ./third_party.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ORT_VERSION=$(cat ORT_VERSION)
ORT_SHA256=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23
JUST_VERSION=1.57.0
DUCKDB_VERSION=1.5.6-r.1
TP=${LMASK_THIRD_PARTY:-$ROOT/third_party}
LIMIT=${LMASK_SETUP_TIMEOUT:-300}
mkdir -p "$TP"

test_tools=0
for a in "$@"; do
  case $a in
    --test-tools) test_tools=1 ;;
    --no-test-tools) test_tools=0 ;;
    *) echo "setup: unknown option $a (want --test-tools or --no-test-tools)" >&2; exit 2 ;;
  esac
done
if [ "${LMASK_SKIP_INTEROP:-0}" != 0 ] && [ "$test_tools" = 1 ]; then
  echo "setup: LMASK_SKIP_INTEROP=$LMASK_SKIP_INTEROP: not installing the interoperability tools (onnxruntime-node, DuckDB, python3-onnx); their tests will skip" >&2
  test_tools=0
fi

# step WHAT CMD...: runs CMD with a time limit, stdout kept off the terminal
# but every error message shown; returns non-zero, after saying why, when CMD
# fails or runs out of time.
step() {
  local what=$1; shift
  local rc=0
  timeout --kill-after=10 "$LIMIT" "$@" >/dev/null || rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "setup: $what timed out after $LIMIT s (is the registry reachable? LMASK_SETUP_TIMEOUT sets the limit)" >&2
    return 1
  elif [ "$rc" != 0 ]; then
    echo "setup: $what failed (exit status $rc; its errors are above)" >&2
    return 1
  fi
}

# npm's own network limits, so that a failing request gives up and says why
# instead of retrying for minutes.
NPM_NET=(--fetch-timeout=60000 --fetch-retries=1 --no-audit --no-fund --loglevel=error)

lib=$TP/onnxruntime/libonnxruntime.so.$ORT_VERSION
if [ ! -f "$lib" ] || ! echo "$ORT_SHA256  $lib" | sha256sum -c --status; then
  echo "setup: fetching onnxruntime $ORT_VERSION (npm onnxruntime-node tarball)" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && step "npm pack onnxruntime-node@$ORT_VERSION" npm pack "${NPM_NET[@]}" "onnxruntime-node@$ORT_VERSION") || exit 1
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
  step "npm install rust-just@$JUST_VERSION" npm install --prefix "$TP/node" "${NPM_NET[@]}" "rust-just@$JUST_VERSION" || exit 1
fi

if [ "$test_tools" = 1 ]; then
  # Second runtimes used by interoperability tests: onnxruntime-node runs the
  # exported ONNX files, DuckDB reads the Parquet files, Debian's python3-onnx
  # validates the ONNX files. Optional: a failure warns and the tests skip.
  if [ ! -d "$TP/node/node_modules/onnxruntime-node" ] || [ ! -d "$TP/node/node_modules/@duckdb/node-api" ]; then
    echo "setup: installing onnxruntime-node@$ORT_VERSION and @duckdb/node-api@$DUCKDB_VERSION (npm; optional, LMASK_SKIP_INTEROP=1 skips)" >&2
    mkdir -p "$TP/node"
    step "npm install onnxruntime-node@$ORT_VERSION" npm install --prefix "$TP/node" "${NPM_NET[@]}" --ignore-scripts \
      "onnxruntime-node@$ORT_VERSION" || echo "setup: warning: onnxruntime-node missing; its interoperability test will skip" >&2
    step "npm install @duckdb/node-api@$DUCKDB_VERSION" npm install --prefix "$TP/node" "${NPM_NET[@]}" \
      "@duckdb/node-api@$DUCKDB_VERSION" || echo "setup: warning: DuckDB missing; its interoperability test will skip" >&2
  fi
  if ! /usr/bin/python3 -c 'import onnx' >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "setup: installing python3-onnx (apt; optional, LMASK_SKIP_INTEROP=1 skips)" >&2
      APT_NET=(-o Acquire::http::Timeout=30 -o Acquire::https::Timeout=30 -o Acquire::Retries=1)
      { step "apt-get update" apt-get update -qq "${APT_NET[@]}" &&
        step "apt-get install python3-onnx" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${APT_NET[@]}" python3-onnx; } ||
        echo "setup: warning: python3-onnx missing; the ONNX checker test will skip" >&2
    else
      echo "setup: python3-onnx missing (apt-get install python3-onnx); the ONNX checker test will skip" >&2
    fi
  fi
fi

mkdir -p "$TP/bin"
if [ -x "$TP/node/node_modules/.bin/just" ]; then ln -sf "$TP/node/node_modules/.bin/just" "$TP/bin/just"; fi
echo "setup: onnxruntime at $lib" >&2
