#!/bin/sh
# Kafka ingest benchmark (issue 15, "Proof"): builds inlet in Release, then
#  1. BENCH_EVENTS (240,000: the most the mock broker holds, ~5 MB a
#     partition) events produced into librdkafka's mock cluster
#     (tests/tools/kafka_mock: 3 brokers, 6 partitions) and the same values
#     written to a file; `inlet ingest --once` from the cluster and
#     `inlet ingest` from the file (default batch settings), each into a new
#     table, best of BENCH_REPEAT (2);
#  2. one `inlet ingest` following the cluster while BENCH_LONG_EVENTS
#     (2,000,000) events are produced in rounds: peak RSS (target < 256 MiB)
#     and CPU time of the whole run.
# The machine may be shared: the load average and each side's CPU time are
# printed with the figures (compare events/s per CPU second).
# Run from the repository root: sh bench/kafka_bench.sh
set -eu
BUILD=${BENCH_BUILD:-build/bench-kafka}
EVENTS=${BENCH_EVENTS:-240000}
LONG=${BENCH_LONG_EVENTS:-2000000}
REPEAT=${BENCH_REPEAT:-2}
DIR=${BENCH_DIR:-$BUILD/kafka-data}
mkdir -p "$BUILD"
if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_BENCH=ON -DINLET_BUILD_TESTS=OFF &&
       cmake --build "$BUILD" -j2 --target inlet ingest_bench kafka_mock; } >"$BUILD/kafka-build.log" 2>&1; then
  tail -n 30 "$BUILD/kafka-build.log" >&2
  echo "kafka_bench: build failed (log $BUILD/kafka-build.log)" >&2
  exit 1
fi
echo "{\"nproc\":$(nproc),\"load_before\":\"$(cat /proc/loadavg)\"}"
i=0
while [ $i -lt "$REPEAT" ]; do
  rm -rf "$DIR" && mkdir -p "$DIR"
  "$BUILD/bench/ingest_bench" kafka "$BUILD/bench/kafka_mock" "$BUILD/inlet" "$DIR" "$EVENTS"
  i=$((i + 1))
done
rm -rf "$DIR" && mkdir -p "$DIR"
"$BUILD/bench/ingest_bench" kafka-long "$BUILD/bench/kafka_mock" "$BUILD/inlet" "$DIR" "$LONG"
echo "{\"load_after\":\"$(cat /proc/loadavg)\"}"
[ "${BENCH_KEEP_DATA:-0}" = 1 ] || rm -rf "$DIR"
