#!/bin/sh
# Object-store benchmark (issue 14, "Proof"): bench/objstore_bench.c against
# s3rver behind the counting, latency-injecting proxy of
# tests/support/objstore/emulators.mjs (started here on free ports, stopped at
# exit). Builds Release with -DINLET_BUILD_BENCH=ON; the emulators' npm
# packages come from a test build (BENCH_OBJSTORE_DIR, default: the first
# build/*/objstore with node_modules).
#
# Environment: BENCH_LATENCY_MS (20), BENCH_BUILD (build/bench-objstore),
# BENCH_TRACE=1 (also print the requests of one steady-state commit, in order).
# Prints the load average before and after: the machine may be shared.
set -eu
cd "$(dirname "$0")/.."
LATENCY=${BENCH_LATENCY_MS:-20}
BUILD=${BENCH_BUILD:-build/bench-objstore}
mkdir -p "$BUILD"
if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_TESTS=OFF \
         -DINLET_BUILD_BENCH=ON && cmake --build "$BUILD" -j 2 --target objstore_bench; } \
       >"$BUILD/build.log" 2>&1; then
  tail -n 30 "$BUILD/build.log" >&2
  exit 1
fi
if [ -z "${BENCH_OBJSTORE_DIR:-}" ]; then
  for d in build/*/objstore; do
    if [ -d "$d/node_modules/s3rver" ]; then BENCH_OBJSTORE_DIR=$PWD/$d; break; fi
  done
fi
[ -n "${BENCH_OBJSTORE_DIR:-}" ] || { echo "no build/*/objstore with node_modules: build the tests first" >&2; exit 1; }
cp tests/support/objstore/emulators.mjs "$BENCH_OBJSTORE_DIR/emulators.mjs"
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
S3RVER=$(port); PROXY=$(port)
DATA=$(mktemp -d)
LOG="$DATA/emulators.log"
(cd "$BENCH_OBJSTORE_DIR" && exec node --openssl-legacy-provider emulators.mjs --dir "$DATA/store" \
   --s3rver-port "$S3RVER" --proxy-port "$PROXY") >"$LOG" 2>&1 &
EMU=$!
trap 'kill $EMU 2>/dev/null; wait $EMU 2>/dev/null; rm -rf "$DATA"' EXIT
i=0
until grep -q READY "$LOG"; do
  i=$((i + 1)); [ $i -lt 600 ] || { cat "$LOG" >&2; exit 1; }; sleep 0.2
done
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="http://127.0.0.1:$PROXY"
unset AWS_PROFILE AWS_ENDPOINT_URL_S3 || true
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
"$BUILD/bench/objstore_bench" "http://127.0.0.1:$PROXY" "$LATENCY" "s3://inlet-test/bench-$$"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
