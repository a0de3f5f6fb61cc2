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
# DuckDB also runs at each listed count above 1 and at its default (all cores,
# no SET); every measurement is printed once more as a "dim":"threads" line
# (seconds, CPU seconds, load average before it) for bench/report.mjs --threads.
# BENCH_COMPACT_TARGET=BYTES: inlet's target file size (default 128 MiB);
# scripts/bench.sh passes 1 GiB so that the 1,000 files become one, as DuckDB's.
# BENCH_REPEAT=K (default 1): every measurement K times (inlet on a fresh copy
# each time), the least wall and least CPU time kept.
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
REPEAT=${BENCH_REPEAT:-1}
load() { cut -d' ' -f1-3 /proc/loadavg; }
# best <previous JSON or ""> <new JSON>: the least wall and CPU time of the two.
best() {
  node -e 'const a = process.argv[1] ? JSON.parse(process.argv[1]) : null, b = JSON.parse(process.argv[2]);
    if (a) { b.wall_s = Math.min(a.wall_s, b.wall_s); b.cpu_s = Math.min(a.cpu_s, b.cpu_s);
      b.peak_rss_mib = Math.max(a.peak_rss_mib, b.peak_rss_mib); }
    b.rows_per_s_wall = Math.round(b.rows / b.wall_s); b.rows_per_s_cpu = Math.round(b.rows / b.cpu_s);
    console.log(JSON.stringify(b));' "$1" "$2"
}
# duck [--threads T]: DuckDB's compaction, best of REPEAT.
duck() {
  B=
  k=0
  while [ $k -lt "$REPEAT" ]; do
    B=$(best "$B" "$(BENCH_NODE_MODULES="$NM" node bench/compact_bench_duckdb.mjs "$@" "$DIR")")
    k=$((k + 1))
  done
  echo "$B"
}
# dim <JSON> <side> <threads> <load>: a measurement as a thread-dimension line.
dim() {
  node -e 'const r = JSON.parse(process.argv[1]), t = process.argv[3];
    console.log(JSON.stringify({ dim: "threads", side: process.argv[2], op: "compact",
      threads: t === "default" ? t : Number(t), threads_used: r.threads_used || Number(t), rows: r.rows,
      seconds: r.wall_s, cpu_seconds: r.cpu_s, load_before: process.argv[4], files_in: r.files_in,
      files_out: r.files_out === undefined ? 1 : r.files_out, max_rss_kb: Math.round(r.peak_rss_mib * 1024) }));' \
    "$1" "$2" "$3" "$4"
}
L=$(load)
DUCK=$(duck)
echo "$DUCK"
dim "$DUCK" duckdb 1 "$L"
for T in $THREADS_LIST default; do
  [ "$T" != 1 ] || continue
  L=$(load)
  D=$(duck --threads "$T")
  echo "$D"
  dim "$D" duckdb "$T" "$L"
done
FIRST=
for T in $THREADS_LIST; do
  L=$(load)
  echo "load average before threads=$T: $L"
  INLET=
  k=0
  while [ $k -lt "$REPEAT" ]; do
    rm -rf "$DIR" && cp -a "$DIR.orig" "$DIR"
    INLET=$(best "$INLET" "$(BENCH_THREADS=$T "$BUILD/bench/compact_bench" compact "$DIR" ${BENCH_COMPACT_TARGET:-})")
    k=$((k + 1))
  done
  echo "$INLET"
  dim "$INLET" inlet "$T" "$L"
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
