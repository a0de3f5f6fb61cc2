#!/bin/sh
# Scan benchmark (issue 7, "Proof"): a selective event-time range query on a
# 10M-row Delta table, inlet (bench/scan_bench.c) beside DuckDB's read_parquet
# over the same live files with the same predicate (bench/scan_bench.mjs,
# threads=1). Builds Release with -DINLET_BUILD_BENCH=ON.
#
# Environment: BENCH_ROWS (10000000), BENCH_FILES (40), BENCH_REPEAT (3),
# BENCH_SHIFT (0: the window starts on a file boundary; R moves it R rows),
# BENCH_BUILD (build/bench-scan), BENCH_NODE_MODULES (dir holding
# node_modules/@duckdb/node-api; default: the first build/*/refcheck found),
# BENCH_KEEP_DATA=1 keeps the table, BENCH_THREADS_LIST ("1 <online CPUs>"): inlet
# runs once per thread count (issue 18's thread dimension; the load average is
# printed before each), DuckDB at threads=1. The query is selective: when its
# rows lie in one file, a parallel scan has one file to read and runs as one
# thread would.
set -eu
cd "$(dirname "$0")/.."
ROWS=${BENCH_ROWS:-10000000}
FILES=${BENCH_FILES:-40}
REPEAT=${BENCH_REPEAT:-3}
BUILD=${BENCH_BUILD:-build/bench-scan}
mkdir -p "$BUILD"
if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_TESTS=OFF \
         -DINLET_BUILD_BENCH=ON && cmake --build "$BUILD" -j 2 --target scan_bench; } \
       >"$BUILD/build.log" 2>&1; then
  tail -n 30 "$BUILD/build.log" >&2
  exit 1
fi
if [ -z "${BENCH_NODE_MODULES:-}" ]; then
  for d in build/*/refcheck; do
    if [ -d "$d/node_modules/@duckdb/node-api" ]; then BENCH_NODE_MODULES=$PWD/$d; break; fi
  done
fi
export BENCH_NODE_MODULES
DATA="$BUILD/data"
mkdir -p "$DATA"
# Build the table (if missing) in a process of its own: the timed process
# then starts with a cold heap, as a query would.
"$BUILD/bench/scan_bench" --dir "$DATA" --rows "$ROWS" --files "$FILES" --repeat 1 >/dev/null
THREADS_LIST=${BENCH_THREADS_LIST:-"1 $(getconf _NPROCESSORS_ONLN)"}
DUCK=
for T in $THREADS_LIST; do
echo "load average before threads=$T: $(cut -d' ' -f1-3 /proc/loadavg)"
INLET=$("$BUILD/bench/scan_bench" --dir "$DATA" --rows "$ROWS" --files "$FILES" --repeat "$REPEAT" \
  --shift "${BENCH_SHIFT:-0}" --threads "$T")
echo "$INLET"
WHERE=$(printf '%s' "$INLET" | sed 's/.*"where":"\([^"]*\)".*/\1/')
[ -n "$DUCK" ] || DUCK=$(node bench/scan_bench.mjs "$DATA/files.txt" "$WHERE" "$REPEAT")
echo "$DUCK"
node -e '
const a = JSON.parse(process.argv[1]), b = JSON.parse(process.argv[2]);
const same = ["count","sum_event_id","sum_user_len"].every((k) => String(a[k]) === String(b[k])) &&
  Math.abs(Number(a.sum_amount) - Number(b.sum_amount)) <= 0.02 + 1e-9 * Math.abs(Number(a.sum_amount));
console.log(`threads ${a.threads}`);
console.log(`wall: inlet ${a.seconds.toFixed(4)} s, duckdb ${b.seconds.toFixed(4)} s, ratio ${(b.seconds / a.seconds).toFixed(2)}x`);
console.log(`cpu:  inlet ${a.cpu_seconds.toFixed(4)} s, duckdb ${b.cpu_seconds.toFixed(4)} s, ratio ${(b.cpu_seconds / a.cpu_seconds).toFixed(2)}x`);
console.log(`checksums ${same ? "agree" : "DIFFER"}; inlet read ${a.files_read} of ${a.files} files`);
if (!same) process.exit(1);
' "$INLET" "$DUCK"
done
[ "${BENCH_KEEP_DATA:-0}" = 1 ] || rm -rf "$DATA"
