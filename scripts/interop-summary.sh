#!/usr/bin/env bash
# Says which interoperability tests (second runtimes reading what lmask
# writes: DuckDB, onnxruntime-node, python3-onnx) ran and which were skipped,
# and why. `go test` alone prints only "ok" for a package whose tests skip.
# Exits non-zero when one of them fails.
set -uo pipefail
cd "$(dirname "$0")/.."
tests='^(TestDuckDBReadsFiles|TestONNXCheckerAccepts|TestNodeRuntimeMatchesReference)$'
out=$(go test -count=1 -v -run "$tests" ./datasets ./models/onnx 2>&1)
rc=$?
echo "interoperability tests:"
# go test -v streams a test's log lines (a skip's reason among them) after
# its "=== RUN" line and before its "--- SKIP" line.
printf '%s\n' "$out" | awk '
  /^=== RUN / { logged[$3] = ""; cur = $3; next }
  /^ +[A-Za-z0-9_]+\.go:[0-9]+: / {
    if (cur != "" && logged[cur] == "") { l = $0; sub(/^ +[A-Za-z0-9_]+\.go:[0-9]+: /, "", l); logged[cur] = l }
    next
  }
  /^ *--- (PASS|FAIL|SKIP): / {
    st = $2; sub(":", "", st); name = $3; n++
    if (st == "PASS") printf "  ran      %s\n", name
    else if (st == "FAIL") printf "  FAILED   %s\n", name
    else printf "  skipped  %s: %s\n", name, (logged[name] == "" ? "no reason given" : logged[name])
  }
  END { if (n == 0) print "  none ran (see the output below)" }'
if [ "${LMASK_SKIP_INTEROP:-0}" != 0 ]; then
  echo "  (LMASK_SKIP_INTEROP=$LMASK_SKIP_INTEROP: the setup did not install their tools)"
fi
if [ $rc != 0 ]; then
  printf '%s\n' "$out" >&2
  exit $rc
fi
