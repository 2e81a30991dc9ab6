#!/usr/bin/env bash
# Enforces the package dependency rules of docs/architecture.md.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
mod=github.com/lmask/lmask
deny() { # package, regexp of forbidden imports
  local bad
  bad=$(go list -deps "./$1" | grep -E "$2" || true)
  if [ -n "$bad" ]; then echo "deps-check: $1 must not depend on:"; echo "$bad" | sed 's/^/  /'; fail=1; fi
}
# lazymask, localsearch, solve, exact and explain: standard library (and lazymask, localsearch, exact) only.
for p in lazymask localsearch solve exact explain; do
  [ -d "$p" ] || continue
  bad=$(go list -deps "./$p" | grep '\.' | grep -vE "^$mod/(lazymask|localsearch|solve|exact|explain)\$" || true)
  if [ -n "$bad" ]; then echo "deps-check: $p must use the standard library only, found:"; echo "$bad" | sed 's/^/  /'; fail=1; fi
done
deny models/features 'gomlx|onnxruntime|parquet'
deny datasets 'gomlx|onnxruntime_go|/models|/engine|/trainer'
deny engine 'gomlx|/trainer|/datasets|lmask/models$'
[ -d labels ] && deny labels 'gomlx|onnxruntime_go|/engine|/trainer|lmask/models$'
[ -d trainer ] && deny trainer "onnxruntime_go|^$mod/engine\$"
[ -d infer ] && deny infer 'gomlx|/trainer|/labels|lmask/models$'
[ -d cmd/lmask-infer ] && deny cmd/lmask-infer 'gomlx|/trainer|lmask/models$'
[ -d cmd/lmask-train ] && deny cmd/lmask-train "onnxruntime_go|^$mod/engine\$"
if CGO_ENABLED=0 go build ./lazymask ./datasets ./models/features 2>/dev/null; then :; else
  echo "deps-check: lazymask, datasets and models/features must build with CGO_ENABLED=0"; fail=1; fi
# Libraries name their options as their types do; only the commands know flag names.
if ! out=$(go test -count=1 -run '^TestLibrariesNameNoFlags$' ./internal/opterr 2>&1); then
  echo "deps-check: a library below cmd/ names a command-line flag:"; echo "$out" | grep 'names a flag' | sed 's/^ */  /'; fail=1; fi
[ $fail = 0 ] && echo "deps-check: ok"
exit $fail
