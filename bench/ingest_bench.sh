#!/bin/sh
# Ingest benchmark (issue 5, "Operability"): builds inlet in Release, writes
# BENCH_ROWS (5,000,000) seed-shaped NDJSON events, then in the same run times
# `inlet ingest` (default batch settings, a fresh table) and DuckDB (threads=1)
# read_ndjson -> COPY TO parquet on that file, best of BENCH_REPEAT (2) each.
# Prints both JSON lines and the ratios; exit 1 when the log check fails
# (a commit over 1,000,000 rows or without txn actions), and with
# BENCH_STRICT=1 also when a target is missed. Run from the repository root:
# sh bench/ingest_bench.sh
set -eu
BUILD=${BENCH_BUILD:-build/bench-ingest}
ROWS=${BENCH_ROWS:-5000000}
REPEAT=${BENCH_REPEAT:-2}
DIR=${BENCH_DIR:-$BUILD/ingest-data}
mkdir -p "$BUILD"
if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_BENCH=ON -DINLET_BUILD_TESTS=OFF &&
       cmake --build "$BUILD" -j2 --target inlet ingest_bench; } >"$BUILD/ingest-build.log" 2>&1; then
  tail -n 30 "$BUILD/ingest-build.log" >&2
  echo "ingest_bench: build failed (log $BUILD/ingest-build.log)" >&2
  exit 1
fi
NM=${BENCH_NODE_MODULES:-}
if [ -z "$NM" ]; then
  for d in build/*/refcheck build/*/duckdb-node; do
    [ -d "$d/node_modules/@duckdb/node-api" ] && NM=$d && break
  done
fi
rm -rf "$DIR" && mkdir -p "$DIR"
"$BUILD/bench/ingest_bench" gen "$DIR/events.ndjson" "$ROWS" >&2
DUCK=$(BENCH_NODE_MODULES="$NM" node bench/ingest_duckdb.mjs --file "$DIR/events.ndjson" \
  --out "$DIR/duckdb.parquet" --repeat "$REPEAT")
INLET=
i=0
while [ $i -lt "$REPEAT" ]; do
  rm -rf "$DIR/table"
  RUN=$("$BUILD/bench/ingest_bench" run "$BUILD/inlet" "$DIR/table" "$DIR/events.ndjson")
  INLET=$(node -e 'const a = process.argv[1] ? JSON.parse(process.argv[1]) : null, b = JSON.parse(process.argv[2]);
    if (a) { b.seconds = Math.min(a.seconds, b.seconds); b.cpu_seconds = Math.min(a.cpu_seconds, b.cpu_seconds);
      b.user_seconds = Math.min(a.user_seconds, b.user_seconds);
      b.max_rss_kb = Math.max(a.max_rss_kb, b.max_rss_kb); b.rows_per_s_wall = Math.round(b.rows / b.seconds);
      b.rows_per_s_cpu = Math.round(b.rows / b.cpu_seconds); b.mb_per_s_wall = +(b.bytes / 1e6 / b.seconds).toFixed(1);
      b.mb_per_s_cpu = +(b.bytes / 1e6 / b.cpu_seconds).toFixed(1); }
    console.log(JSON.stringify(b));' "$INLET" "$RUN")
  i=$((i + 1))
done
echo "$DUCK"
echo "$INLET"
# The last inlet run's table against DuckDB's file: same rows, same values.
BENCH_NODE_MODULES="$NM" node bench/ingest_duckdb.mjs --verify "$DIR/table" "$DIR/duckdb.parquet"
node -e '
const d = JSON.parse(process.argv[1]), i = JSON.parse(process.argv[2]);
if (d.rows !== i.rows) { console.log("ROW COUNT MISMATCH"); process.exit(1); }
const r = {ratio_wall: +(i.rows_per_s_wall / d.rows_per_s_wall).toFixed(2),
  ratio_cpu: +(i.rows_per_s_cpu / d.rows_per_s_cpu).toFixed(2),
  inlet_peak_rss_mib: +(i.max_rss_kb / 1024).toFixed(1), duckdb_peak_rss_mib: +(d.max_rss_kb / 1024).toFixed(1),
  commits: i.commits, max_rows_per_commit: i.max_rows_per_commit, load: require("fs").readFileSync("/proc/loadavg", "utf8").trim()};
r.targets_met = r.ratio_cpu >= 1.5 && r.inlet_peak_rss_mib < 256;
console.log(JSON.stringify(r));
if (process.env.BENCH_STRICT === "1" && !r.targets_met) process.exit(1);' "$DUCK" "$INLET"
[ "${BENCH_KEEP_DATA:-0}" = 1 ] || rm -rf "$DIR"
