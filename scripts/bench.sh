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
#   BENCH_THREADS_LIST="1 N" the thread dimension (issue 18; default "1 <online CPUs>"):
#                           Parquet write (zstd, snappy) and full scan, NDJSON ingest
#                           and compaction of 1,000 small files into one, inlet at
#                           each count, DuckDB at each count and at its default (all
#                           cores); bench/report.mjs --threads prints the table (ratios
#                           vs DuckDB at the same threads and at its default, the
#                           1 -> N scaling, the load average before each measurement)
#   BENCH_COMPACT=0         skip the compaction part (1,000 files of BENCH_ROWS/1000 rows)
# Exit 1 also when a file written at N threads differs from the one-thread file.
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
       cmake --build "$BUILD" -j "$JOBS" --target parquet_bench snappy_bench inlet ingest_bench \
         compact_bench; } >"$BUILD/build.log" 2>&1; then
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

# The thread counts, each once, in the order given.
THREADS_LIST=$(for t in ${BENCH_THREADS_LIST:-1 $(nproc)}; do echo "$t"; done | awk '!seen[$0]++' | tr '\n' ' ')
export BENCH_THREADS_LIST="$THREADS_LIST"
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'; }

best() { # best <file of JSON lines> [load]: the fastest run (least wall and least CPU time)
  node -e 'const ls=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse);
    ls.sort((a,b)=>a.seconds-b.seconds); const b=ls[0];
    b.cpu_seconds=Math.min(...ls.map(l=>l.cpu_seconds));
    b.max_rss_kb=Math.max(...ls.map(l=>l.max_rss_kb));
    if (ls.some(l=>l.writer_rss_kb!==undefined)) b.writer_rss_kb=Math.max(...ls.map(l=>l.writer_rss_kb||0));
    if (process.argv[2]) b.load_before=process.argv[2]; console.log(JSON.stringify(b));' "$1" "${2:-}"
}
# dim <JSON> <op> <codec> <threads>: a measurement as a thread-dimension line.
dim() {
  node -e 'const r=JSON.parse(process.argv[1]);
    console.log(JSON.stringify({...r, dim:"threads", op:process.argv[2], codec:process.argv[3],
      threads:Number(process.argv[4]), threads_used:Number(process.argv[4])}));' "$1" "$2" "$3" "$4"
}
# measure <runs file> <command...>: the command REPEAT times, its JSON lines in the file.
measure() {
  runs=$1
  shift
  : >"$runs"
  i=0
  while [ $i -lt "$REPEAT" ]; do
    "$@" >>"$runs"
    i=$((i + 1))
  done
}

rc=0
load_start=$(load)
echo "== inlet: $ROWS rows, row groups of $RG rows, best of $REPEAT" >&2
for codec in zstd snappy; do
  out="$DATA/inlet_$codec.parquet"
  L=$(load)
  measure "$DATA/runs" "$BIN" write --out "$out" --codec "$codec" --rows "$ROWS" --row-group-rows "$RG"
  W=$(best "$DATA/runs" "$L")
  echo "$W" >>"$RES"
  L=$(load)
  measure "$DATA/runs.raw" "$BIN" scan "$out"
  sed "s/^{/{\"codec\":\"$codec\",/" "$DATA/runs.raw" >"$DATA/runs"
  S=$(best "$DATA/runs" "$L")
  echo "$S" >>"$RES"
  case " $THREADS_LIST " in
    *" 1 "*) dim "$W" write "$codec" 1 >>"$RES" && dim "$S" scan "$codec" 1 >>"$RES" ;;
  esac
done
# The thread dimension (issue 18): the same writes and scans at each other
# thread count; a file written on N threads must be the one-thread file's bytes.
for T in $THREADS_LIST; do
  [ "$T" != 1 ] || continue
  echo "== inlet: threads=$T" >&2
  for codec in zstd snappy; do
    out="$DATA/inlet_${codec}_t$T.parquet"
    L=$(load)
    measure "$DATA/runs" "$BIN" write --out "$out" --codec "$codec" --rows "$ROWS" --row-group-rows "$RG" \
      --threads "$T"
    dim "$(best "$DATA/runs" "$L")" write "$codec" "$T" >>"$RES"
    if ! cmp -s "$out" "$DATA/inlet_$codec.parquet"; then
      echo "bench: $out (threads=$T) differs from the one-thread file" >&2
      rc=1
    fi
    rm -f "$out"
    L=$(load)
    measure "$DATA/runs" "$BIN" scan "$DATA/inlet_$codec.parquet" --threads "$T"
    dim "$(best "$DATA/runs" "$L")" scan "$codec" "$T" >>"$RES"
  done
done
"$BIN" write --out "$DATA/inlet_default.parquet" --codec snappy --rows "$ROWS" --defaults >>"$RES"
# What the opt-in extended encodings (DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT;
# writer option `encodings`, table property inlet.parquet.encodings) would
# save: sizes only, the ratio table's files use the default compatible set.
for codec in zstd snappy; do
  "$BIN" write --out "$DATA/inlet_${codec}_extended.parquet" --codec "$codec" --rows "$ROWS" \
    --row-group-rows "$RG" --encodings extended >>"$RES"
done

echo "== DuckDB: same rows, SET threads=1, then threads $THREADS_LIST and its default" >&2
node bench/duckdb_side.mjs --rows "$ROWS" --row-group-rows "$RG" --dir "$DATA" \
  --repeat "$REPEAT" --threads-list "$THREADS_LIST default" >>"$RES"
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
  node bench/report.mjs "$RES" || rc=1
# The Parquet files take ~1 GB at 10M rows.
[ "${BENCH_KEEP_DATA:-0}" = 1 ] || rm -rf "$DATA"
echo "(results: $RES)" >&2
# Ingest benchmark (issue 5): NDJSON file -> table with `inlet ingest` beside
# DuckDB's read_ndjson -> COPY TO parquet, same rows, same build and DuckDB.
# BENCH_INGEST=0 skips it.
if [ "${BENCH_INGEST:-1}" = 1 ]; then
  echo "== ingest: $ROWS NDJSON events (bench/ingest_bench.sh), threads $THREADS_LIST" >&2
  BENCH_ROWS="$ROWS" BENCH_BUILD="$BUILD" sh bench/ingest_bench.sh >"$BUILD/ingest.out" || rc=1
  grep -v '"dim":"threads"' "$BUILD/ingest.out" || true
  grep '"dim":"threads"' "$BUILD/ingest.out" >>"$RES" || true
fi
# Compaction (issue 6), 1,000 small files -> one, in the thread dimension
# (issue 18). BENCH_COMPACT=0 skips it.
if [ "${BENCH_COMPACT:-1}" = 1 ]; then
  per_file=$((ROWS / 1000))
  [ "$per_file" -ge 1 ] || per_file=1
  echo "== compaction: 1000 files of $per_file rows (bench/compact_bench.sh), threads $THREADS_LIST" >&2
  BUILD="$BUILD" BENCH_FILES=1000 BENCH_ROWS="$per_file" BENCH_COMPACT_TARGET=$((1 << 30)) BENCH_REPEAT="$REPEAT" \
    sh bench/compact_bench.sh >"$BUILD/compact.out" || rc=1
  grep -v '"dim":"threads"' "$BUILD/compact.out" >&2 || true
  grep '"dim":"threads"' "$BUILD/compact.out" >>"$RES" || true
fi
echo >&2
BENCH_META="{\"rows\":$ROWS,\"repeat\":$REPEAT,\"ingestRepeat\":${BENCH_REPEAT:-2},\"loadStart\":\"$load_start\",\"loadEnd\":\"$(load)\",\"cpus\":$(nproc),\"threads\":\"$THREADS_LIST\"}" \
  node bench/report.mjs --threads "$RES" || rc=1
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
