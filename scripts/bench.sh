#!/bin/sh
# Parquet benchmark, inlet side by side with DuckDB in one run (issue 2,
# section 5 "Proof"): builds Release with -DINLET_BUILD_BENCH=ON, installs
# @duckdb/node-api from ../shared/tools/refcheck's lock file, writes and scans
# the same seed-shaped events with both, and prints the ratio table
# (bench/report.mjs). `make bench` runs this.
#
# Environment:
#   BENCH_ROWS=N            rows (default 10000000)
#   BENCH_ROW_GROUP_ROWS=R  row group size in rows, both sides (default 122880,
#                           DuckDB's default ROW_GROUP_SIZE)
#   BENCH_REPEAT=K          runs per measurement, best kept (default 3)
#   BENCH_BUILD=DIR         build directory (default build/bench)
#   BENCH_NODE_MODULES=DIR  a directory with node_modules/@duckdb/node-api to use
#   BENCH_STRICT=1          exit 1 when a target is missed
#   BENCH_KEEP_DATA=1       keep the written Parquet files in $BUILD/data
#   BENCH_NESTED=1          also run bench/nested_bench.sh (nested checkpoint-shaped
#                           read/write and DELTA vs PLAIN sizes, issue 3)
#   BENCH_DV=1              also run bench/dv_bench.sh (deletion vectors: scan and
#                           delete against DuckDB's Parquet rewrite, issue 16)
# Exit 1 also when the two engines' scans disagree on the checksums.
set -eu
cd "$(dirname "$0")/.."
ROWS=${BENCH_ROWS:-10000000}
RG=${BENCH_ROW_GROUP_ROWS:-122880}
REPEAT=${BENCH_REPEAT:-3}
BUILD=${BENCH_BUILD:-build/bench}
JOBS=${JOBS:-2}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  scripts/install-deps.sh test
fi

echo "== building (Release, bench) in $BUILD" >&2
mkdir -p "$BUILD"
if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_TESTS=OFF \
         -DINLET_BUILD_BENCH=ON &&
       cmake --build "$BUILD" -j "$JOBS" --target parquet_bench snappy_bench; } >"$BUILD/build.log" 2>&1; then
  tail -n 30 "$BUILD/build.log" >&2
  echo "bench: build failed (log $BUILD/build.log)" >&2
  exit 1
fi

if [ -z "${BENCH_NODE_MODULES:-}" ]; then
  BENCH_NODE_MODULES="$BUILD/duckdb-node"
  if [ ! -d "$BENCH_NODE_MODULES/node_modules/@duckdb/node-api" ] ||
     ! cmp -s ../shared/tools/refcheck/package-lock.json "$BENCH_NODE_MODULES/package-lock.json"; then
    echo "== installing @duckdb/node-api into $BENCH_NODE_MODULES" >&2
    rm -rf "$BENCH_NODE_MODULES"
    cp -R ../shared/tools/refcheck "$BENCH_NODE_MODULES"
    chmod -R u+w "$BENCH_NODE_MODULES"
    # npm runs inside the copy: --prefix would also move npm's config file.
    (cd "$BENCH_NODE_MODULES" && npm ci --no-audit --no-fund >/dev/null)
  fi
fi
export BENCH_NODE_MODULES

BIN="$BUILD/bench/parquet_bench"
DATA="$BUILD/data"
RES="$BUILD/results.jsonl"
rm -rf "$DATA"
mkdir -p "$DATA"
: >"$RES"

best() { # best <file of JSON lines>: the fastest run (least wall and least CPU time)
  node -e 'const ls=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse);
    ls.sort((a,b)=>a.seconds-b.seconds); const b=ls[0];
    b.cpu_seconds=Math.min(...ls.map(l=>l.cpu_seconds));
    b.max_rss_kb=Math.max(...ls.map(l=>l.max_rss_kb)); console.log(JSON.stringify(b));' "$1"
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
echo "== inlet: $ROWS rows, row groups of $RG rows, best of $REPEAT" >&2
for codec in zstd snappy; do
  out="$DATA/inlet_$codec.parquet"
  : >"$DATA/runs"
  i=0
  while [ $i -lt "$REPEAT" ]; do
    "$BIN" write --out "$out" --codec "$codec" --rows "$ROWS" --row-group-rows "$RG" >>"$DATA/runs"
    i=$((i + 1))
  done
  best "$DATA/runs" >>"$RES"
  : >"$DATA/runs"
  i=0
  while [ $i -lt "$REPEAT" ]; do
    "$BIN" scan "$out" | sed "s/^{/{\"codec\":\"$codec\",/" >>"$DATA/runs"
    i=$((i + 1))
  done
  best "$DATA/runs" >>"$RES"
done
"$BIN" write --out "$DATA/inlet_default.parquet" --codec snappy --rows "$ROWS" --defaults >>"$RES"
# What the opt-in extended encodings (DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT;
# writer option `encodings`, table property inlet.parquet.encodings) would
# save: sizes only, the ratio table's files use the default compatible set.
for codec in zstd snappy; do
  "$BIN" write --out "$DATA/inlet_${codec}_extended.parquet" --codec "$codec" --rows "$ROWS" \
    --row-group-rows "$RG" --encodings extended >>"$RES"
done

echo "== DuckDB: same rows, SET threads=1" >&2
node bench/duckdb_side.mjs --rows "$ROWS" --row-group-rows "$RG" --dir "$DATA" \
  --repeat "$REPEAT" >>"$RES"
# DuckDB reads inlet's files: the checksums prove both files hold the same rows.
node bench/duckdb_side.mjs --scan "$DATA/inlet_zstd.parquet" "$DATA/inlet_snappy.parquet" \
  "$DATA/inlet_default.parquet" "$DATA/inlet_zstd_extended.parquet" \
  "$DATA/inlet_snappy_extended.parquet" >>"$RES"

# inlet's snappy decoder beside libsnappy's on the same pages (the reason the
# decoder replaced the library's; exit 1 if they ever decode differently).
echo "== snappy decompression: inlet's decoder vs libsnappy (bench/snappy_bench.c)" >&2
"$BUILD/bench/snappy_bench" >&2 || exit 1

echo >&2
load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
BENCH_META="{\"rowGroupRows\":$RG,\"repeat\":$REPEAT,\"loadStart\":\"$load_start\",\"loadEnd\":\"$load_end\",\"cpus\":$(nproc)}" \
  node bench/report.mjs "$RES" && rc=0 || rc=$?
# The Parquet files take ~1 GB at 10M rows.
[ "${BENCH_KEEP_DATA:-0}" = 1 ] || rm -rf "$DATA"
echo "(results: $RES)" >&2
# Ingest benchmark (issue 5): NDJSON file -> table with `inlet ingest` beside
# DuckDB's read_ndjson -> COPY TO parquet, same rows, same build and DuckDB.
# BENCH_INGEST=0 skips it.
if [ "${BENCH_INGEST:-1}" = 1 ]; then
  echo "== ingest: $ROWS NDJSON events (bench/ingest_bench.sh)" >&2
  BENCH_ROWS="$ROWS" BENCH_BUILD="$BUILD" sh bench/ingest_bench.sh || rc=1
fi
# Nested and integer-encoding benchmark (issue 3): opt in with BENCH_NESTED=1.
if [ "${BENCH_NESTED:-0}" = 1 ]; then
  BENCH_BUILD="$BUILD" BENCH_REPEAT="$REPEAT" BENCH_ROW_GROUP_ROWS="$RG" sh bench/nested_bench.sh ||
    rc=1
fi
# Deletion vector benchmark (issue 16): opt in with BENCH_DV=1 (bench/RESULTS-dv.md).
if [ "${BENCH_DV:-0}" = 1 ]; then
  echo "== deletion vectors: $ROWS rows (bench/dv_bench.sh)" >&2
  BENCH_ROWS="$ROWS" BENCH_REPEAT="$REPEAT" BENCH_NODE_MODULES="$BENCH_NODE_MODULES" \
    sh bench/dv_bench.sh || rc=1
fi
exit "$rc"
