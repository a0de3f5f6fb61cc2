#!/bin/sh
# Compaction benchmark (issue 6): builds inlet in Release, creates a table of
# BENCH_FILES (1000) small files of BENCH_ROWS (10000) rows, then in the same
# run times DuckDB (threads=1) reading those files and writing one file, and
# inlet compacting them into target-size files. Prints both JSON lines and
# the ratios. Run from the repository root: sh bench/compact_bench.sh
# Thread dimension (issue 18): inlet compacts a fresh copy of the table once per
# count in BENCH_THREADS_LIST (default "1 <online CPUs>"), each line with its
# wall and CPU seconds and the load average before it; ratios are against
# DuckDB at threads=1, and the last line gives inlet's own 1 -> N scaling.
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
THREADS_LIST=${BENCH_THREADS_LIST:-"1 $(getconf _NPROCESSORS_ONLN)"}
# The table before compaction, copied for each thread count.
rm -rf "$DIR.orig" && cp -a "$DIR" "$DIR.orig"
DUCK=$(BENCH_NODE_MODULES="$NM" node bench/compact_bench_duckdb.mjs "$DIR")
echo "$DUCK"
FIRST=
for T in $THREADS_LIST; do
  rm -rf "$DIR" && cp -a "$DIR.orig" "$DIR"
  echo "load average before threads=$T: $(cut -d' ' -f1-3 /proc/loadavg)"
  INLET=$(BENCH_THREADS=$T "$BUILD/bench/compact_bench" compact "$DIR")
  echo "$INLET"
  [ -n "$FIRST" ] || FIRST=$INLET
  BENCH_NODE_MODULES="$NM" node bench/compact_bench_duckdb.mjs --verify "$DIR"
  node -e '
const d = JSON.parse(process.argv[1]), i = JSON.parse(process.argv[2]), f = JSON.parse(process.argv[3]);
if (d.rows !== i.rows) { console.log("ROW COUNT MISMATCH"); process.exit(1); }
console.log(JSON.stringify({threads: i.threads, ratio_wall: +(i.rows_per_s_wall / d.rows_per_s_wall).toFixed(2),
  ratio_cpu: +(i.rows_per_s_cpu / d.rows_per_s_cpu).toFixed(2),
  scaling_wall_vs_1: +(f.wall_s / i.wall_s).toFixed(2), cpu_vs_1: +(i.cpu_s / f.cpu_s).toFixed(2),
  inlet_peak_rss_mib: i.peak_rss_mib, duckdb_peak_rss_mib: d.peak_rss_mib}));' "$DUCK" "$INLET" "$FIRST"
done
rm -rf "$DIR.orig"
[ "${BENCH_KEEP_DATA:-0}" = 1 ] || rm -rf "$DIR"
