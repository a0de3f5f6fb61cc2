#!/bin/sh
# Checks the module boundaries of docs/ARCHITECTURE.md on every #include of
# src/ and include/inlet/:
#   - a module includes headers only from itself and from modules to its left
#     in the dependency line of docs/ARCHITECTURE.md (read from there, so the
#     document and the check cannot drift apart);
#   - another module's private header (*_int.h) is never included;
#   - src/cli includes only the public headers (inlet/...) and its own;
#   - the public headers include only public headers;
#   - every directory of src/ is a module named in that line.
# Prints one line per violation (FILE:LINE: ...) and exits 1 when there is
# any, 0 otherwise, 2 when it cannot run.
#
# usage: scripts/check-includes.sh [SOURCE_ROOT]   (default: this checkout)
set -eu
root=${1:-$(dirname "$0")/..}
arch=$root/docs/ARCHITECTURE.md
if [ ! -r "$arch" ]; then
  echo "check-includes: cannot read $arch" >&2
  exit 2
fi
# The dependency line: "util  <-  storage, codec, batch  <-  ...  <-  cli".
layers=$(grep -E '^[[:space:]]*util[[:space:]]+<-' "$arch" | head -n 1)
if [ -z "$layers" ]; then
  echo "check-includes: no dependency line (util <- ...) in $arch" >&2
  exit 2
fi
cd "$root"
files=$(find src include -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
[ -n "$files" ] || { echo "check-includes: no sources under $root" >&2; exit 2; }

# shellcheck disable=SC2086
awk -v layers="$layers" '
BEGIN {
  n = split(layers, part, "<-")
  for (i = 1; i <= n; i++) {
    gsub(/[{}]/, " ", part[i])
    m = split(part[i], mods, /[ ,\t]+/)
    for (k = 1; k <= m; k++) if (mods[k] != "") level[mods[k]] = i
  }
  bad = 0
}
function report(msg) {
  printf "%s:%d: %s\n", FILENAME, FNR, msg
  bad++
}
FNR == 1 {
  # The including module: src/<module>/... or the public API.
  split(FILENAME, p, "/")
  if (p[1] == "include") mod = "inlet"
  else mod = p[2]
  if (mod != "inlet" && !(mod in level) && !(mod in unknown_reported)) {
    unknown_reported[mod] = 1
    report("directory src/" mod " is not a module of the dependency line in docs/ARCHITECTURE.md")
  }
}
/^[ \t]*#[ \t]*include[ \t]*["<]/ {
  line = $0
  sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
  quoted = substr(line, 1, 1) == "\""
  line = substr(line, 2)
  end = index(line, quoted ? "\"" : ">")
  if (end == 0) next
  inc = substr(line, 1, end - 1)
  slash = index(inc, "/")
  if (slash == 0) {
    # "foo.h" is the including file'\''s own directory; <foo.h> a system header.
    if (quoted && mod == "inlet") report("includes \"" inc "\": a public header names inlet/...")
    next
  }
  target = substr(inc, 1, slash - 1)
  base = inc
  sub(/.*\//, "", base)
  if (target != "inlet" && !(target in level)) {
    # Not one of ours (a system header such as <sys/stat.h>), unless quoted.
    if (quoted) report("includes \"" inc "\": not a public header nor a module of docs/ARCHITECTURE.md")
    next
  }
  if (target == mod) next
  if (target == "inlet") next
  if (mod == "inlet") { report("includes \"" inc "\": the public headers include only public headers"); next }
  if (mod == "cli") { report("includes \"" inc "\": src/cli uses only the public headers in include/inlet/"); next }
  if (base ~ /_int\.h$/) { report("includes \"" inc "\": private header of module " target); next }
  if (!(mod in level)) next
  if (level[target] >= level[mod])
    report("includes \"" inc "\": module " mod " may include only modules to its left in the dependency line of docs/ARCHITECTURE.md, and " target " is not")
}
END {
  if (bad) {
    printf "check-includes: %d boundary violation%s (docs/ARCHITECTURE.md, \"The one-way dependency rule\")\n", bad, bad == 1 ? "" : "s"
    exit 1
  }
}
' $files
