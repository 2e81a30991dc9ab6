#!/usr/bin/env bash
# Shrinks, for the length of a GPU session, what a device command carries: every command sends the checkout's tracked
# files (60 MB, 56 of them the shipped models) and at most 64 MiB in all, which leaves too little room for the bundles.
#   bash scripts/gpu-slim.sh on [MODEL...]   untracks (index only; the files stay) every models/pretrained/ folder but
#                                            MODEL... (default: tsptw50-hard tspdl50-medium tsptw50-easy, those that
#                                            gpu-check.sh and gpu-imitate.sh's default runs read) and has git ignore
#                                            them, so they do not travel; commits are refused meanwhile
#   bash scripts/gpu-slim.sh off             tracks them again exactly as HEAD has them
#   bash scripts/gpu-slim.sh size            what a device command would carry now, and the room left under 64 MiB
set -euo pipefail
cd "$(dirname "$0")/.."
# --git-path: the files git itself reads here (a linked worktree's, core.hooksPath's).
list=$(git rev-parse --path-format=absolute --git-path lmask-gpu-slim)
exclude=$(git rev-parse --path-format=absolute --git-path info/exclude)
hook=$(git rev-parse --path-format=absolute --git-path hooks/pre-commit)
begin='# lmask gpu-slim begin'
end='# lmask gpu-slim end'
die() { echo "gpu-slim: $*" >&2; exit 1; }

carried() { { git ls-files -z; git ls-files -z --others --exclude-standard; } | { du -cb --files0-from=- 2>/dev/null || true; } | tail -1 | cut -f1; }
size() {
  local b; b=$(carried)
  echo "gpu-slim: a device command carries $((b / 1000)) kB of the checkout; room for carried paths: $(((64 * 1048576 - b) / 1000)) kB"
}

case ${1:-} in
on)
  shift
  [ ! -e "$list" ] && [ ! -e "$list.partial" ] || die "already on (see $list); run 'off' first"
  git diff --cached --quiet || die "the index has staged changes; commit or unstage them first"
  [ ! -e "$hook" ] || die "$hook exists; this script refuses commits with its own hook there, so move that one aside first"
  keep=("$@")
  ((${#keep[@]})) || keep=(tsptw50-hard tspdl50-medium tsptw50-easy)
  for n in "${keep[@]}"; do
    [ -n "$(git ls-files -- "models/pretrained/$n")" ] || die "no tracked model folder models/pretrained/$n"
  done
  drop=()
  for d in models/pretrained/*/; do
    n=$(basename "$d")
    [[ " ${keep[*]} " == *" $n "* ]] && continue
    [ -n "$(git ls-files -- "models/pretrained/$n")" ] && drop+=("models/pretrained/$n") # untracked folders stay as they are
  done
  ((${#drop[@]})) || die "nothing to untrack"
  # The hook first, the list last: an interrupted 'on' leaves commits refused and 'off' able to repair (it resets
  # models/pretrained as a whole).
  mkdir -p "$(dirname "$hook")"
  printf '#!/bin/sh\nif [ -e "%s" ] || [ -e "%s.partial" ]; then echo "pre-commit: scripts/gpu-slim.sh is on (models untracked): run it with off first" >&2; exit 1; fi\n' "$list" "$list" >"$hook"
  chmod +x "$hook"
  : >"$list.partial"
  git rm -r -q --cached -- "${drop[@]}"
  mkdir -p "$(dirname "$exclude")"
  { echo "$begin"; printf '/%s/\n' "${drop[@]}"; echo "$end"; } >>"$exclude"
  printf '%s\n' "${drop[@]}" >"$list"
  rm -f "$list.partial"
  echo "gpu-slim: untracked ${#drop[@]} model folders (kept: ${keep[*]}); commits refused until 'off'"
  size
  ;;
off)
  [ -e "$list" ] || [ -e "$list.partial" ] || die "not on"
  git reset -q HEAD -- models/pretrained
  [ -f "$exclude" ] && sed -i "/^$begin\$/,/^$end\$/d" "$exclude"
  rm -f "$hook" "$list" "$list.partial"
  git diff --cached --quiet -- models/pretrained || die "the index of models/pretrained still differs from HEAD after 'off'"
  echo "gpu-slim: off; models/pretrained tracked as in HEAD"
  size
  ;;
size) size ;;
*) echo "usage: $0 on [MODEL...] | off | size" >&2; exit 2 ;;
esac
