#!/bin/sh
# Compaction benchmark (issue 6): builds inlet in Release, creates a table of
# BENCH_FILES (1000) small files of BENCH_ROWS (10000) rows, then in the same
# run times DuckDB (threads=1) reading those files and writing one file, and
# inlet compacting them into target-size files. Prints both JSON lines and
# the ratios. Run from the repository root: sh bench/compact_bench.sh
set -eu
BUILD=${BUILD:-build/bench-compact}
FILES=${BENCH_FILES:-1000}
ROWS=${BENCH_ROWS:-10000}
DIR=${BENCH_DIR:-$BUILD/compact-data}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_BENCH=ON -DINLET_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j2 --target compact_bench >/dev/null
NM=${BENCH_NODE_MODULES:-}
if [ -z "$NM" ]; then
  for d in build/*/refcheck; do [ -d "$d/node_modules/@duckdb" ] && NM=$d && break; done
fi
rm -rf "$DIR" && mkdir -p "$DIR"
"$BUILD/bench/compact_bench" setup "$DIR" "$FILES" "$ROWS"
DUCK=$(BENCH_NODE_MODULES="$NM" node bench/compact_bench_duckdb.mjs "$DIR")
INLET=$("$BUILD/bench/compact_bench" compact "$DIR")
echo "$DUCK"
echo "$INLET"
BENCH_NODE_MODULES="$NM" node bench/compact_bench_duckdb.mjs --verify "$DIR"
node -e '
const d = JSON.parse(process.argv[1]), i = JSON.parse(process.argv[2]);
if (d.rows !== i.rows) { console.log("ROW COUNT MISMATCH"); process.exit(1); }
console.log(JSON.stringify({ratio_wall: +(i.rows_per_s_wall / d.rows_per_s_wall).toFixed(2),
  ratio_cpu: +(i.rows_per_s_cpu / d.rows_per_s_cpu).toFixed(2), inlet_peak_rss_mib: i.peak_rss_mib,
  duckdb_peak_rss_mib: d.peak_rss_mib}));' "$DUCK" "$INLET"
[ "${BENCH_KEEP_DATA:-0}" = 1 ] || rm -rf "$DIR"
