#!/bin/sh
# Checks that every C source and header of the tree is formatted by
# clang-format with the repository's .clang-format (`make format` applies
# it). Prints the files that differ and exits 1 when there is any, 0 when
# none, 2 when clang-format is missing. The style depends on the
# clang-format version: CI uses Debian's (scripts/install-deps.sh test).
#
# usage: scripts/check-format.sh [SOURCE_ROOT]   (default: this checkout)
set -eu
root=${1:-$(dirname "$0")/..}
cd "$root"
if ! command -v clang-format >/dev/null 2>&1; then
  echo "check-format: clang-format not found (scripts/install-deps.sh test installs it)" >&2
  exit 2
fi
bad=0
for f in $(find include src tests fuzz bench -name '*.[ch]' | sort); do
  if ! clang-format --style=file "$f" | cmp -s - "$f"; then
    echo "$f: not formatted (run: make format)"
    bad=1
  fi
done
exit "$bad"
