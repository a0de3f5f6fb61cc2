#!/bin/sh
# The chaos suite (tests/integration/test_chaos.c, issue 12 "Proof") in its
# long form: ingesters on file, Redis and stdin, appends, compaction, vacuum,
# checkpoints and maintain on one table, all SIGKILLed at random moments,
# Redis too, the disk filling up and going read-only; then every event is
# accounted for exactly once and every version read. ctest runs the short
# form (20 s of chaos) with every test; this runs the long one.
#
#   scripts/chaos.sh            one 1800 s round (`make chaos`)
#   scripts/chaos.sh short      one round of the ctest form
#   scripts/chaos.sh long N     N rounds of 1800 s, each with a new seed
#
# Environment: CHAOS_SECONDS overrides the chaos time per round; CHAOS_BUILD
# the build directory (default build/test, the ASan+UBSan build of
# `make test`); INLET_CHAOS_SEED replays a round (its seed is printed first);
# INLET_CHAOS_VERBOSE=1, INLET_CHAOS_KEEP=1 as in the test. A round that
# finds something prints its seed and keeps its work directory; the script
# then exits 1 (after the other rounds). Needs root or user namespaces (the
# tmpfs it fills), and redis-server (scripts/install-deps.sh test).
set -eu
cd "$(dirname "$0")/.."
mode=${1:-long}
rounds=${2:-1}
case "$mode" in
  short) secs=${CHAOS_SECONDS:-20} ;;
  long) secs=${CHAOS_SECONDS:-1800} ;;
  *) echo "usage: $0 [short|long] [rounds]" >&2; exit 2 ;;
esac
BUILD=${CHAOS_BUILD:-build/test}
JOBS=${CHAOS_JOBS:-2}

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DINLET_WERROR=ON -DINLET_SANITIZE=ON \
  -DINLET_BUILD_TESTS=ON >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target test_chaos >/dev/null

status=0
i=1
while [ "$i" -le "$rounds" ]; do
  echo "== chaos round $i of $rounds: $secs s" >&2
  if ! (cd "$BUILD/tests" &&
        INLET_CHAOS_SECONDS=$secs REFCHECK_NODE_MODULES="$PWD/../refcheck" \
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ./test_chaos); then
    status=1
  fi
  i=$((i + 1))
done
exit $status
