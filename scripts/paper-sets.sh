# Sourced by eval-paper.sh and eval-baseline.sh (which set $src to the paper's folder in ../shared).

# wanted NAME: whether LMASK_EVAL_SETS (comma-separated, e.g. tsptw50-hard,tspdl50-medium) is unset or names NAME.
wanted() { [ -z "${LMASK_EVAL_SETS:-}" ] || [[ ",$LMASK_EVAL_SETS," == *",$1,"* ]]; }

# paper_set P H REF N: imports the paper's P-N H test set and its REF reference tours into out/paper (once) and
# sets inst and refs to their Parquet paths; returns 1, with a message, when a file is missing from $src.
paper_set() {
  local p=$1 h=$2 ref=$3 n=$4 f
  inst=out/paper/${p}$n-$h.parquet; refs=out/paper/${ref}_${n}_$h.parquet
  for f in "$src/${p}${n}_test_${h}_seed2025.npz" "$src/${ref}_${n}_$h.npz"; do
    [ -f "$f" ] || { echo "$(basename "$0"): $f not found; skipping ${p}$n-$h" >&2; return 1; }
  done
  [ -f "$inst" ] || bin/lmask-data import --in "$src/${p}${n}_test_${h}_seed2025.npz" --out "$inst" >/dev/null
  [ -f "$refs" ] || bin/lmask-data import --in "$src/${ref}_${n}_$h.npz" --instances "$inst" --out "$refs" >/dev/null
}
