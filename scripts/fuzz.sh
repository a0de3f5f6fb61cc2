#!/bin/sh
# Builds the libFuzzer harnesses (fuzz/*_fuzzer.c) with clang, ASan, UBSan and
# -Werror (so `make test` also proves the library clang-warning-clean)
# and runs each one (issue 2, section 5 "Proof": a short fuzz run in CI).
#
#   scripts/fuzz.sh short        each fuzzer ~60 s (CI; `make fuzz`)
#   scripts/fuzz.sh long         each fuzzer 1 h (`make fuzz-long`)
#   scripts/fuzz.sh short NAME   only fuzz/NAME.c (e.g. parquet_roundtrip_fuzzer)
#
# Environment: FUZZ_SECONDS overrides the time per fuzzer; FUZZ_BUILD the build
# directory (default build/fuzz); FUZZ_JOBS the build parallelism (default 2);
# FUZZ_PARALLEL how many fuzzers run at once (default: the online CPUs);
# FUZZ_SEED the libFuzzer seed (short: 1, so that CI's run retraces the inputs
# a longer local run with the same seed has already been through; long: 0 =
# random, to explore); FUZZ_MERGE=1 merges what the run found back into fuzz/corpus/<name>/.
#
# Each fuzzer starts from fuzz/corpus/<name>/ (read only) and collects new
# inputs in $FUZZ_BUILD/corpus/<name>/; a crash is saved under
# $FUZZ_BUILD/artifacts/ and makes the script exit 1 (after the other
# fuzzers have run). Replay an artifact with: $FUZZ_BUILD/fuzz/<name> <file>.
set -eu
cd "$(dirname "$0")/.."
mode=${1:-short}
only=${2:-}
case "$mode" in
  short) secs=${FUZZ_SECONDS:-60}; rng_seed=${FUZZ_SEED:-1} ;;
  long) secs=${FUZZ_SECONDS:-3600}; rng_seed=${FUZZ_SEED:-0} ;;
  *) echo "usage: $0 short|long [fuzzer-name]" >&2; exit 2 ;;
esac
BUILD=${FUZZ_BUILD:-build/fuzz}
JOBS=${FUZZ_JOBS:-2}

command -v clang >/dev/null 2>&1 || scripts/install-deps.sh test

echo "== building fuzzers with clang in $BUILD" >&2
CC=clang cmake -S . -B "$BUILD" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS=-O1 -DINLET_SANITIZE=ON -DINLET_WERROR=ON -DINLET_BUILD_FUZZERS=ON -DINLET_BUILD_TESTS=OFF \
  >/dev/null
cmake --build "$BUILD" -j "$JOBS" >/dev/null

names=""
for src in fuzz/*_fuzzer.c; do
  name=$(basename "$src" .c)
  [ -z "$only" ] || [ "$only" = "$name" ] || continue
  names="$names $name"
done
[ -n "$names" ] || { echo "no fuzzer matches '$only'" >&2; exit 2; }

mkdir -p "$BUILD/artifacts"

# Runs fuzzer $1 and leaves "ok" or "failed" in $BUILD/$1.status.
run_one() {
  name=$1
  rm -f "$BUILD/$name.status"
  bin=$(find "$BUILD" -type f -name "$name" -perm -u+x | head -n 1)
  if [ -z "$bin" ]; then
    echo "== $name: not built (is it listed in fuzz/CMakeLists.txt?)" >&2
    echo "failed" >"$BUILD/$name.status"
    return
  fi
  work="$BUILD/corpus/$name"
  seed="fuzz/corpus/$name"
  mkdir -p "$work"
  set -- "$work"
  [ -d "$seed" ] && set -- "$work" "$seed"
  dict=""
  [ -f "fuzz/$name.dict" ] && dict="-dict=fuzz/$name.dict"
  echo "== $name: ${secs}s" >&2
  # shellcheck disable=SC2086
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 \
     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "$bin" -seed="$rng_seed" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
       -artifact_prefix="$BUILD/artifacts/$name-" $dict "$@" >"$BUILD/$name.log" 2>&1; then
    summary=$(tail -n 12 "$BUILD/$name.log" | grep -E '^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+ +DONE)' || true)
    printf '%s\n== %s: ok\n' "$summary" "$name" >&2
    echo "ok" >"$BUILD/$name.status"
  else
    problems=$(grep -E 'ERROR|failed|SUMMARY|Test unit written' "$BUILD/$name.log" | head -n 20 || true)
    printf '== %s: FAILED (log %s)\n%s\n' "$name" "$BUILD/$name.log" "$problems" >&2
    echo "failed" >"$BUILD/$name.status"
  fi
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    mkdir -p "$seed"
    "$bin" -merge=1 "$seed" "$work" >/dev/null 2>&1 || true
  fi
}

# FUZZ_PARALLEL fuzzers run at once (default: the online CPUs), each on one
# core for the whole of its time: the same fuzzing per fuzzer, a shorter wall
# clock. Each one's lines are printed together when it ends.
par=${FUZZ_PARALLEL:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case "$par" in '' | *[!0-9]* | 0) par=1 ;; esac
running=0
for name in $names; do
  run_one "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$par" ]; then
    wait
    running=0
  fi
done
wait

failed=""
for name in $names; do
  [ "$(cat "$BUILD/$name.status" 2>/dev/null)" = ok ] || failed="$failed $name"
done

n_all=$(echo $names | wc -w)
n_failed=$(echo $failed | wc -w)
if [ -n "$failed" ]; then
  echo "fuzzing failed:$failed" >&2
fi
# A plain closing line that CI understands.
echo "fuzz: $((n_all - n_failed)) passed, $n_failed failed"
[ -z "$failed" ]
