#!/bin/sh
# Peak memory of ingest and compaction at 4 threads (issue 18, "Determinism
# and bounds": peak RSS under 256 MiB), measured on a Release build, because
# the sanitizer builds of `make test` inflate memory several times over.
# `make test-rss` runs this; CI runs it after the tests.
#
#   1. RSS_EVENTS seed-shaped NDJSON events (default 2,000,000, ~190 MB)
#      into a new table: `inlet ingest --threads 4` (default batch settings);
#   2. the same events again in batches of 20,000 rows (100 small files),
#      then `inlet compact --threads 4` rewrites them.
# Peak RSS of each inlet process from GNU time (%M); exit 1 naming the step
# over RSS_LIMIT_MIB (default 256), or when the tables do not hold the events.
#
# Environment: RSS_BUILD (default build/release, the `make release` tree),
# RSS_EVENTS, RSS_LIMIT_MIB, RSS_THREADS (default 4), RSS_KEEP=1 keeps the data.
set -eu
cd "$(dirname "$0")/.."
BUILD=${RSS_BUILD:-build/release}
EVENTS=${RSS_EVENTS:-2000000}
LIMIT_MIB=${RSS_LIMIT_MIB:-256}
THREADS=${RSS_THREADS:-4}
JOBS=${JOBS:-2}
TIME=/usr/bin/time

[ -x "$TIME" ] || scripts/install-deps.sh test
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target inlet >/dev/null
INLET="$BUILD/inlet"

DIR=$(mktemp -d "${TMPDIR:-/tmp}/inlet-rss.XXXXXX")
[ "${RSS_KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT
# The seed's event shape (bench/ingest_bench.c): id, user, amount, ISO time
# (one day's seconds; portable awk has no strftime).
awk -v n="$EVENTS" 'BEGIN {
  for (i = 0; i < n; i++) {
    h = (i * 2654435761) % 4294967296
    s = int(i / 1000) % 86400
    us = (i % 1000) * 1000 + h % 1000
    printf "{\"event_id\":%d,\"user\":\"user_%d\",\"amount\":%.2f,", i, int(h / 256) % 1000, (int(h / 16) % 1000000) / 100
    printf "\"event_time\":\"2023-11-14T%02d:%02d:%02d.%06dZ\"}\n", int(s / 3600), int(s / 60) % 60, s % 60, us
  }
}' >"$DIR/events.ndjson"
SCHEMA='event_id long not null, user string, amount double, event_time timestamp'

status=0
# measure NAME CMD...: runs CMD under GNU time, checks its peak RSS.
measure() {
  name=$1
  shift
  if ! "$TIME" -f '%M %e' -o "$DIR/time" "$@" >"$DIR/out" 2>&1; then
    tail -n 20 "$DIR/out" >&2
    echo "rss-check: $name failed" >&2
    exit 1
  fi
  read -r kb secs <"$DIR/time"
  mib=$((kb / 1024))
  verdict=ok
  if [ "$mib" -ge "$LIMIT_MIB" ]; then
    verdict="OVER $LIMIT_MIB MiB"
    status=1
  fi
  printf '%-44s peak RSS %4d MiB  (%s s)  %s\n' "$name" "$mib" "$secs" "$verdict"
}

rows_of() { # the table's row count, from `inlet describe --json`
  "$INLET" describe "$1" --json | tr ',' '\n' | grep -m1 '"rows":' | tr -dc '0-9'
}

echo "rss-check: $EVENTS events, --threads $THREADS, limit $LIMIT_MIB MiB ($INLET)"
"$INLET" create "$DIR/a" --schema "$SCHEMA" >/dev/null
measure "ingest (default batches)" "$INLET" ingest "$DIR/a" --source "file:$DIR/events.ndjson" \
  --threads "$THREADS" --quiet
"$INLET" create "$DIR/b" --schema "$SCHEMA" >/dev/null
measure "ingest (batches of 20,000 rows)" "$INLET" ingest "$DIR/b" \
  --source "file:$DIR/events.ndjson" --max-rows 20000 --threads "$THREADS" --quiet
measure "compact (the small files into few)" "$INLET" compact "$DIR/b" --threads "$THREADS"
for t in a b; do
  got=$(rows_of "$DIR/$t")
  if [ "$got" != "$EVENTS" ]; then
    echo "rss-check: table $t holds $got rows, not $EVENTS" >&2
    status=1
  fi
done
exit "$status"
