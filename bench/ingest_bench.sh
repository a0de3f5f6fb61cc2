#!/bin/sh
# Ingest benchmark (issue 5, "Operability"): builds inlet in Release, writes
# BENCH_ROWS (5,000,000) seed-shaped NDJSON events, then in the same run times
# `inlet ingest` (default batch settings, a fresh table) and DuckDB (threads=1)
# read_ndjson -> COPY TO parquet on that file, best of BENCH_REPEAT (2) each.
# Prints both JSON lines and the ratios; exit 1 when the log check fails
# (a commit over 1,000,000 rows or without txn actions), and with
# BENCH_STRICT=1 also when a target is missed. Run from the repository root:
# sh bench/ingest_bench.sh
# Thread dimension (issue 18), when BENCH_THREADS_LIST is set (scripts/bench.sh
# sets it): afterwards inlet ingests with --threads T and DuckDB runs with
# threads=T for each T listed, and DuckDB once more at its default (all cores),
# best of BENCH_REPEAT each; every inlet table passes the same log check and the
# same comparison with DuckDB's file. One JSON line per measurement with
# "dim":"threads" (and the load average just before it).
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
if [ -n "${BENCH_THREADS_LIST:-}" ]; then
  # best <previous JSON or ""> <new JSON>: the least wall and CPU time of the two.
  best() {
    node -e 'const a = process.argv[1] ? JSON.parse(process.argv[1]) : null, b = JSON.parse(process.argv[2]);
      if (a) { b.seconds = Math.min(a.seconds, b.seconds); b.cpu_seconds = Math.min(a.cpu_seconds, b.cpu_seconds);
        b.max_rss_kb = Math.max(a.max_rss_kb, b.max_rss_kb); b.load_before = a.load_before; }
      console.log(JSON.stringify(b));' "$1" "$2"
  }
  # dim <JSON> <side> <threads>: the measurement as a thread-dimension line.
  dim() {
    node -e 'const r = JSON.parse(process.argv[1]);
      console.log(JSON.stringify({ dim: "threads", side: process.argv[2], op: "ingest",
        threads: process.argv[3] === "default" ? "default" : Number(process.argv[3]),
        threads_used: r.threads_used || Number(process.argv[3]), rows: r.rows, bytes: r.bytes,
        seconds: r.seconds, cpu_seconds: r.cpu_seconds, max_rss_kb: r.max_rss_kb, load_before: r.load_before,
        commits: r.commits, max_rows_per_commit: r.max_rows_per_commit,
        commits_without_txn: r.commits_without_txn, version: r.version }));' "$1" "$2" "$3"
  }
  load() { cut -d' ' -f1-3 /proc/loadavg; }
  for T in $BENCH_THREADS_LIST default; do
    L=$(load)
    D=$(BENCH_NODE_MODULES="$NM" node bench/ingest_duckdb.mjs --file "$DIR/events.ndjson" \
      --out "$DIR/duckdb_t$T.parquet" --repeat "$REPEAT" --threads "$T")
    D=$(node -e 'const r = JSON.parse(process.argv[1]); r.load_before = process.argv[2];
      console.log(JSON.stringify(r))' "$D" "$L")
    rm -f "$DIR/duckdb_t$T.parquet"
    dim "$D" duckdb "$T"
    [ "$T" != default ] || continue
    I=
    L=$(load)
    i=0
    while [ $i -lt "$REPEAT" ]; do
      rm -rf "$DIR/table"
      RUN=$("$BUILD/bench/ingest_bench" run "$BUILD/inlet" "$DIR/table" "$DIR/events.ndjson" "$T")
      RUN=$(node -e 'const r = JSON.parse(process.argv[1]); r.load_before = process.argv[2];
        console.log(JSON.stringify(r))' "$RUN" "$L")
      I=$(best "$I" "$RUN")
      i=$((i + 1))
    done
    # Exactly once and the same rows at every thread count.
    BENCH_NODE_MODULES="$NM" node bench/ingest_duckdb.mjs --verify "$DIR/table" "$DIR/duckdb.parquet" >&2
    dim "$I" inlet "$T"
  done
fi
[ "${BENCH_KEEP_DATA:-0}" = 1 ] || rm -rf "$DIR"
