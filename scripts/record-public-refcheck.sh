#!/bin/sh
# Records refcheck's answers for the public-tables tests
# (tests/support/public_tables.c): runs test_public_tables_delta_rs and
# test_public_tables_kernel with refcheck asked live, and writes every answer
# it gave, with the key of the inputs it was given, to
# tests/data/public/<project>.refcheck.tar.zst. The tests replay those answers
# while the key matches (same archive, refcheck, DuckDB, node, jq and
# commands) and ask refcheck live otherwise; run this after changing any of
# them. Nothing recorded comes from inlet: the tests still run inlet on every
# table version and compare.
#
#   scripts/record-public-refcheck.sh [BUILD]    (default build/test, a `make test` tree)
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build/test}
[ -x "$BUILD/tests/test_public_tables_delta_rs" ] || {
  echo "record-public-refcheck: build the tests first (make test, or cmake --build $BUILD)" >&2
  exit 2
}
for pair in delta-rs:test_public_tables_delta_rs delta-kernel-rs:test_public_tables_kernel; do
  project=${pair%%:*}
  test=${pair#*:}
  out="$PWD/tests/data/public/$project.refcheck.tar.zst"
  echo "record-public-refcheck: $project -> $out"
  if ! (cd "$BUILD/tests" && REFCHECK_NODE_MODULES="$PWD/../refcheck" \
    INLET_PUBLIC_TABLES_RECORD="$out.new" "./$test"); then
    # A recording is kept only from a run without findings.
    rm -f "$out.new"
    echo "record-public-refcheck: $test failed; $out left as it was" >&2
    exit 1
  fi
  mv "$out.new" "$out"
done
