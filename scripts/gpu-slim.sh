#!/usr/bin/env bash
# Shrinks, for the length of a GPU session, what a device command carries: every command sends the checkout's tracked
# files (55 MB, 51 of them the shipped models) and at most 64 MiB in all, which leaves too little room for the bundles.
#   bash scripts/gpu-slim.sh on [MODEL...]   untracks (index only; the files stay) every models/pretrained/ folder but
#                                            MODEL... (default: those scripts/gpu-imitate.sh and gpu-check.sh read) and
#                                            has git ignore them, so they do not travel; commits are refused meanwhile
#   bash scripts/gpu-slim.sh off             tracks them again exactly as HEAD has them
#   bash scripts/gpu-slim.sh size            what a device command would carry now, and the room left under 64 MiB
set -euo pipefail
cd "$(dirname "$0")/.."
git_dir=$(git rev-parse --absolute-git-dir)
list=$git_dir/lmask-gpu-slim
exclude=$git_dir/info/exclude
hook=$git_dir/hooks/pre-commit
begin='# lmask gpu-slim begin'
end='# lmask gpu-slim end'
die() { echo "gpu-slim: $*" >&2; exit 1; }

carried() { { git ls-files -z; git ls-files -z --others --exclude-standard; } | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1; }
size() {
  local b; b=$(carried)
  echo "gpu-slim: a device command carries $((b / 1000)) kB of the checkout; room for carried paths: $(((64 * 1048576 - b) / 1000)) kB"
}

case ${1:-} in
on)
  shift
  [ ! -e "$list" ] || die "already on (see $list); run 'off' first"
  git diff --cached --quiet || die "the index has staged changes; commit or unstage them first"
  keep=("$@")
  ((${#keep[@]})) || keep=(tsptw50-hard tsptw50-easy tsptw50-medium tspdl50-medium tspdl50-hard)
  drop=()
  for d in models/pretrained/*/; do
    n=$(basename "$d")
    [[ " ${keep[*]} " == *" $n "* ]] || drop+=("models/pretrained/$n")
  done
  ((${#drop[@]})) || die "nothing to untrack"
  printf '%s\n' "${drop[@]}" >"$list"
  git rm -r -q --cached -- "${drop[@]}"
  mkdir -p "$(dirname "$exclude")"
  { echo "$begin"; printf '/%s/\n' "${drop[@]}"; echo "$end"; } >>"$exclude"
  mkdir -p "$(dirname "$hook")"
  if [ ! -e "$hook" ]; then
    printf '#!/bin/sh\nif [ -e "%s" ]; then echo "pre-commit: scripts/gpu-slim.sh is on (models untracked): run it with off first" >&2; exit 1; fi\n' "$list" >"$hook"
    chmod +x "$hook"
    echo "hook" >>"$list.hook"
  fi
  echo "gpu-slim: untracked ${#drop[@]} model folders (kept: ${keep[*]}); commits refused until 'off'"
  size
  ;;
off)
  [ -e "$list" ] || die "not on"
  mapfile -t drop <"$list"
  git reset -q HEAD -- "${drop[@]}"
  sed -i "/^$begin\$/,/^$end\$/d" "$exclude"
  [ -e "$list.hook" ] && rm -f "$hook" "$list.hook"
  rm -f "$list"
  if [ -n "$(git status --porcelain -- models/pretrained)" ]; then
    git status --short -- models/pretrained >&2
    die "models/pretrained differs from HEAD after 'off' (above)"
  fi
  echo "gpu-slim: off; models/pretrained tracked as in HEAD"
  size
  ;;
size) size ;;
*) echo "usage: $0 on [MODEL...] | off | size" >&2; exit 2 ;;
esac
