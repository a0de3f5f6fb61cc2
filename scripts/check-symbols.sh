#!/bin/sh
# Lists the symbols the built libraries export that are not the public API
# (names outside the inlet_ prefix) and exits 1 when there is any:
#   libinlet.so: the dynamic symbol table (hidden visibility keeps internals out);
#   libinlet.a:  the global symbols a static link sees (the prelinked object's
#                hidden symbols are localized, CMakeLists.txt).
# Every exported inlet_ name must also be declared in include/inlet/, so an
# internal helper with the inlet_ prefix (inlet_fail, inlet_buf_...) counts
# as a leak too.
# usage: scripts/check-symbols.sh BUILD_DIR [SOURCE_ROOT]
set -eu
build=${1:?usage: check-symbols.sh BUILD_DIR [SOURCE_ROOT]}
root=${2:-$(dirname "$0")/..}
so=$(find "$build" -maxdepth 1 -name 'libinlet.so' | head -n 1)
ar=$(find "$build" -maxdepth 1 -name 'libinlet.a' | head -n 1)
if [ -z "$so" ] || [ -z "$ar" ]; then
  echo "check-symbols: no libinlet.so / libinlet.a in $build" >&2
  exit 2
fi
api=$(cat "$root"/include/inlet/*.h "$build"/include/inlet/version.h 2>/dev/null |
      grep -o 'inlet_[a-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' | sort -u)
bad=0
check() { # $1: label, stdin: symbol names
  while read -r sym; do
    case "$sym" in
    inlet_*)
      if ! printf '%s\n' "$api" | grep -qx "$sym"; then
        echo "$1: exports $sym, which include/inlet/ does not declare"
        bad=$((bad + 1))
      fi ;;
    *)
      echo "$1: exports $sym (not the inlet_ API)"
      bad=$((bad + 1)) ;;
    esac
  done
}
# T/D/B/R/W/V...: defined global symbols (weak ones too); U is undefined.
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
nm -D --defined-only "$so" | awk '$2 ~ /^[A-Z]$/ {print $3}' | sort -u > "$tmp"
check "$(basename "$so")" < "$tmp"
nso=$(wc -l < "$tmp")
nm -g --defined-only "$ar" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[A-Z]$/ {print $3}' |
  sort -u > "$tmp"
check "$(basename "$ar")" < "$tmp"
nar=$(wc -l < "$tmp")
if [ "$bad" -gt 0 ]; then
  echo "check-symbols: $bad symbol(s) beyond the public API"
  exit 1
fi
echo "check-symbols: $nso symbols in $(basename "$so"), $nar in $(basename "$ar"), all public API"
