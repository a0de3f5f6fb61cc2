#!/bin/sh
# Nested and integer-encoding benchmark, inlet beside DuckDB (threads=1) in one
# run (issue 3, "Proof", bench; results in bench/RESULTS-nested.md):
#  1. checkpoint-shaped file, NESTED_ROWS `add` entries (default 1,000,000):
#     inlet writes and scans its file, DuckDB writes and scans its own; each
#     engine also scans the other's file and the checksums must agree;
#  2. seed-shaped events, FLAT_ROWS rows (default 10,000,000): inlet with
#     int encoding auto, plain and delta; DuckDB PARQUET_VERSION V1 and V2;
#     zstd and snappy; sizes and write times.
# Prints JSON lines; exit 1 when checksums disagree or (BENCH_STRICT=1) a
# target is missed.
#
# Environment: NESTED_ROWS, FLAT_ROWS, BENCH_ROW_GROUP_ROWS (122880),
# BENCH_REPEAT (3), BENCH_BUILD (build/bench), BENCH_NODE_MODULES (as in
# scripts/bench.sh; installed from refcheck's lock file when unset).
set -eu
cd "$(dirname "$0")/.."
NROWS=${NESTED_ROWS:-1000000}
FROWS=${FLAT_ROWS:-10000000}
RG=${BENCH_ROW_GROUP_ROWS:-122880}
REPEAT=${BENCH_REPEAT:-3}
BUILD=${BENCH_BUILD:-build/bench}

mkdir -p "$BUILD"
if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_TESTS=OFF \
         -DINLET_BUILD_BENCH=ON &&
       cmake --build "$BUILD" -j 2 --target nested_bench parquet_bench; } >"$BUILD/build.log" 2>&1; then
  tail -n 30 "$BUILD/build.log" >&2
  exit 1
fi
if [ -z "${BENCH_NODE_MODULES:-}" ]; then
  BENCH_NODE_MODULES="$BUILD/duckdb-node"
  if [ ! -d "$BENCH_NODE_MODULES/node_modules/@duckdb/node-api" ]; then
    rm -rf "$BENCH_NODE_MODULES"
    cp -R ../shared/tools/refcheck "$BENCH_NODE_MODULES"
    chmod -R u+w "$BENCH_NODE_MODULES"
    (cd "$BENCH_NODE_MODULES" && npm ci --no-audit --no-fund >/dev/null)
  fi
fi
export BENCH_NODE_MODULES

BIN="$BUILD/bench/nested_bench"
DATA="$BUILD/nested-data"
rm -rf "$DATA"
mkdir -p "$DATA"
OUT="$DATA/results.jsonl"
: >"$OUT"

# Best (least CPU) of REPEAT runs of a command printing one JSON line.
best() {
  : >"$DATA/runs"
  i=0
  while [ $i -lt "$REPEAT" ]; do
    "$@" >>"$DATA/runs"
    i=$((i + 1))
  done
  node -e 'const ls=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse);
    ls.sort((a,b)=>a.cpu_seconds-b.cpu_seconds); const b=ls[0];
    b.wall_seconds_best=Math.min(...ls.map(l=>l.seconds)); console.log(JSON.stringify(b));' "$DATA/runs"
}

echo "== nested: $NROWS add entries, row groups of $RG rows, best of $REPEAT (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
best "$BIN" write --out "$DATA/inlet_nested.parquet" --rows "$NROWS" --row-group-rows "$RG" | tee -a "$OUT"
best "$BIN" scan "$DATA/inlet_nested.parquet" | tee -a "$OUT"
node bench/nested_bench.mjs --nested --rows "$NROWS" --row-group-rows "$RG" --dir "$DATA" \
  --repeat "$REPEAT" | tee -a "$OUT"
"$BIN" scan "$DATA/duckdb_nested.parquet" | tee -a "$OUT"
node bench/nested_bench.mjs --scan "$DATA/inlet_nested.parquet" | tee -a "$OUT"

echo "== flat: $FROWS seed-shaped rows" >&2
for codec in zstd snappy; do
  for enc in auto plain delta; do
    "$BIN" flat --out "$DATA/inlet_flat_${codec}_$enc.parquet" --codec "$codec" --rows "$FROWS" \
      --row-group-rows "$RG" --int-encoding "$enc" | tee -a "$OUT"
  done
  "$BUILD/bench/parquet_bench" scan "$DATA/inlet_flat_${codec}_auto.parquet" | tee -a "$OUT"
  "$BUILD/bench/parquet_bench" scan "$DATA/inlet_flat_${codec}_plain.parquet" | tee -a "$OUT"
done
node bench/nested_bench.mjs --flat --rows "$FROWS" --row-group-rows "$RG" --dir "$DATA" | tee -a "$OUT"
echo "== load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# Checks: both engines agree on both nested files; targets.
node -e '
const ls=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse);
const scans=ls.filter(l=>l.op==="scan"&&l.check); const c=new Set(scans.map(s=>s.check));
if(c.size!==1){console.error("nested checksums disagree");process.exit(1);}
const ir=ls.find(l=>l.side==="inlet"&&l.op==="scan"&&/inlet_nested/.test(l.file));
const dr=ls.find(l=>l.side==="duckdb"&&l.op==="scan"&&/duckdb_nested/.test(l.file));
const r=(dr.cpu_seconds/ir.cpu_seconds), w=(dr.wall_seconds_best??dr.seconds)/(ir.wall_seconds_best??ir.seconds);
console.error(`nested read: inlet/DuckDB rows/s ${r.toFixed(2)}x (CPU), ${w.toFixed(2)}x (wall)`);
let miss=r<1;
for(const codec of ["zstd","snappy"]){
  const i=ls.find(l=>l.shape==="flat"&&l.side==="inlet"&&l.codec===codec&&l.int_encoding==="auto");
  const d=ls.find(l=>l.shape==="flat"&&l.side==="duckdb"&&l.codec===codec&&l.parquet_version==="V2");
  console.error(`flat ${codec}: inlet auto ${i.bytes} bytes, DuckDB V2 ${d.bytes} bytes`);
  if(i.bytes>d.bytes) miss=true;
}
if(miss&&process.env.BENCH_STRICT==="1")process.exit(1);' "$OUT"
echo "(results: $OUT)" >&2
