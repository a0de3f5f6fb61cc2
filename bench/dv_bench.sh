#!/bin/sh
# Deletion vector benchmark (issue 16, "Proof"), both sides in one run:
#  (b) `inlet delete` of 1% of the rows (amount < 10: every file holds some)
#      from a table with deletion vectors and from one without (copy-on-write),
#      beside DuckDB rewriting the same Parquet files without those rows
#      (bench/dv_bench.mjs: DuckDB has no DELETE on Delta tables; a COPY of
#      read_parquet ... WHERE (pred) IS NOT TRUE is the Parquet equivalent);
#  (a) then 9% more (amount < 100: 10% deleted in all), and a full scan of
#      the table whose 10% are deleted by deletion vectors against the same
#      table whose files were rewritten without them (same files, same
#      layout), rows/s of each and their ratio;
#  (c) a delete of a contiguous 1% (an event_id range inside one file) from
#      both tables: data skipping reads that file only.
# Builds Release with -DINLET_BUILD_BENCH=ON; inlet and DuckDB single-threaded
# (inlet's delete is; DuckDB gets SET threads=1; scans use threads=1). The load
# average is printed before each step. Run from anywhere: sh bench/dv_bench.sh
#
# Environment: BENCH_ROWS (10000000), BENCH_FILES (40), BENCH_REPEAT (3, scans),
# BENCH_BUILD (build/bench-dv), BENCH_NODE_MODULES (dir holding
# node_modules/@duckdb/node-api; default: the first build/*/refcheck found),
# BENCH_KEEP_DATA=1 keeps the tables. Exit 1 when a side's rows disagree.
set -eu
cd "$(dirname "$0")/.."
ROWS=${BENCH_ROWS:-10000000}
FILES=${BENCH_FILES:-40}
REPEAT=${BENCH_REPEAT:-3}
BUILD=${BENCH_BUILD:-build/bench-dv}
mkdir -p "$BUILD"
if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_TESTS=OFF \
         -DINLET_BUILD_BENCH=ON && cmake --build "$BUILD" -j 2 --target dv_bench inlet; } \
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
BIN="$BUILD/bench/dv_bench"
INLET="$PWD/$BUILD/inlet"
DATA="$PWD/$BUILD/data"
rm -rf "$DATA" && mkdir -p "$DATA"
load() { echo "load average before $1: $(cut -d' ' -f1-3 /proc/loadavg)"; }

"$BIN" setup --dir "$DATA" --rows "$ROWS" --files "$FILES"

P1="amount < 10"
echo "== (b) delete 1% ($P1) of $ROWS rows in $FILES files"
load "duckdb rewrite"
DUCK=$(node bench/dv_bench.mjs "$DATA/files.txt" "$P1" "$DATA/duckdb-out.parquet")
echo "$DUCK"
load "inlet delete (deletion vectors)"
DDV=$("$BIN" delete --inlet "$INLET" --table "$DATA/dv" --where "$P1" --out "$DATA/del1-dv.json")
echo "$DDV"
load "inlet delete (copy-on-write)"
DCOW=$("$BIN" delete --inlet "$INLET" --table "$DATA/cow" --where "$P1" --out "$DATA/del1-cow.json")
echo "$DCOW"
node -e '
const rows = Number(process.argv[1]);
const d = JSON.parse(process.argv[2]), v = JSON.parse(process.argv[3]), c = JSON.parse(process.argv[4]);
const want = rows / 100;
const ok = v.result.deleted_rows === want && c.result.deleted_rows === want && d.rows_kept === rows - want;
for (const [name, x] of [["deletion vectors", v], ["copy-on-write", c]])
  console.log(`delete 1%: inlet (${name}) ${x.wall_s.toFixed(3)} s wall, ${x.cpu_s.toFixed(3)} s cpu, ` +
    `${x.peak_rss_mib} MiB; duckdb rewrite ${d.wall_s.toFixed(3)} s wall, ${d.cpu_s.toFixed(3)} s cpu: ` +
    `ratio ${(d.wall_s / x.wall_s).toFixed(2)}x wall, ${(d.cpu_s / x.cpu_s).toFixed(2)}x cpu (>1: inlet faster); ` +
    `files read ${x.result.files_read}, skipped ${x.result.files_skipped}`);
console.log(`rows deleted: inlet ${v.result.deleted_rows} / ${c.result.deleted_rows}, duckdb kept ${d.rows_kept} of ${rows}: ${ok ? "agree" : "DIFFER"}`);
if (!ok) process.exit(1);
' "$ROWS" "$DUCK" "$DDV" "$DCOW"

P2="amount < 100"
echo "== (a) scan with 10% deleted ($P2): deletion vectors vs rewritten files"
"$BIN" delete --inlet "$INLET" --table "$DATA/dv" --where "$P2" --out "$DATA/del2-dv.json"
"$BIN" delete --inlet "$INLET" --table "$DATA/cow" --where "$P2" --out "$DATA/del2-cow.json"
load "scan (deletion vectors)"
SDV=$("$BIN" scan --table "$DATA/dv" --repeat "$REPEAT")
echo "$SDV"
load "scan (rewritten)"
SCOW=$("$BIN" scan --table "$DATA/cow" --repeat "$REPEAT")
echo "$SCOW"
node -e '
const rows = Number(process.argv[1]);
const v = JSON.parse(process.argv[2]), c = JSON.parse(process.argv[3]);
const same = ["count","sum_event_id","sum_user_len"].every((k) => v[k] === c[k]) &&
  Math.abs(v.sum_amount - c.sum_amount) <= 0.02 + 1e-9 * Math.abs(v.sum_amount) &&
  v.count === rows - rows / 10;
console.log(`scan: deletion vectors ${v.seconds.toFixed(4)} s (${Math.round(v.rows_per_s)} rows/s), ` +
  `rewritten ${c.seconds.toFixed(4)} s (${Math.round(c.rows_per_s)} rows/s): ` +
  `DV/rewritten time ratio ${(v.seconds / c.seconds).toFixed(2)}x, cpu ${(v.cpu_seconds / c.cpu_seconds).toFixed(2)}x`);
console.log(`checksums ${same ? "agree" : "DIFFER"} (${v.count} rows of ${rows})`);
if (!same) process.exit(1);
' "$ROWS" "$SDV" "$SCOW"
LO=$((ROWS / 100 * 50)); HI=$((ROWS / 100 * 51))
P3="event_id >= $LO and event_id < $HI"
echo "== (c) delete a contiguous 1% ($P3): data skipping reads only the files whose stats admit it"
load "inlet delete (deletion vectors)"
CDV=$("$BIN" delete --inlet "$INLET" --table "$DATA/dv" --where "$P3" --out "$DATA/del3-dv.json")
echo "$CDV"
load "inlet delete (copy-on-write)"
CCOW=$("$BIN" delete --inlet "$INLET" --table "$DATA/cow" --where "$P3" --out "$DATA/del3-cow.json")
echo "$CCOW"
node -e '
const [lo, hi] = [Number(process.argv[1]), Number(process.argv[2])];
let want = 0; /* rows of the range that (a) left: amount >= 100 */
for (let i = lo; i < hi; i++) if ((i * 37) % 100000 >= 10000) want++;
let ok = true;
for (const [name, s] of [["deletion vectors", process.argv[3]], ["copy-on-write", process.argv[4]]]) {
  const x = JSON.parse(s);
  ok = ok && x.result.deleted_rows === want;
  console.log(`contiguous delete: inlet (${name}) ${x.wall_s.toFixed(3)} s wall, ${x.cpu_s.toFixed(3)} s cpu, ` +
    `files read ${x.result.files_read}, skipped ${x.result.files_skipped}, rows deleted ${x.result.deleted_rows} (want ${want})`);
}
if (!ok) process.exit(1);
' "$LO" "$HI" "$CDV" "$CCOW"
load "end"
[ "${BENCH_KEEP_DATA:-0}" = 1 ] || rm -rf "$DATA"
