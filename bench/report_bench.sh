#!/bin/sh
# `inlet report` benchmark (issue 19 §2: the report of a 10,000-commit table is
# built in under 2 s and is under 2 MB). Builds inlet in Release, writes the
# synthetic log of tests/cli/test_report.c (10,000 commits, 50,000 live files,
# no data files) with that test's --generate mode, then times BENCH_RUNS (5)
# reports and prints one JSON line: the best and the median wall time, the
# median CPU time (user + system: what the report costs on a busy machine,
# where wall time mostly measures the wait), the 1-minute load average, the
# page size and the peak RSS. Exits 1 when the median wall time is 2 s or
# more or the page is 2 MB or more. Run from the repository root, on a quiet
# machine: sh bench/report_bench.sh
set -eu
BUILD=${BUILD:-build/bench-report}
RUNS=${BENCH_RUNS:-5}
DIR=${BENCH_DIR:-$BUILD/report-data}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_TESTS=ON >/dev/null
cmake --build "$BUILD" -j2 --target inlet test_report >/dev/null
rm -rf "$DIR" && mkdir -p "$DIR"
"$BUILD/tests/test_report" --generate "$DIR/t" >/dev/null
times=""
i=0
while [ "$i" -lt "$RUNS" ]; do
  rm -f "$DIR/r.html"
  t=$( { /usr/bin/time -f '%e %M %U %S' "$BUILD/inlet" report "$DIR/t" --output "$DIR/r.html" >/dev/null; } 2>&1 | tail -1)
  times="$times$t
"
  i=$((i + 1))
done
size=$(stat -c %s "$DIR/r.html")
load=$(cut -d' ' -f1 /proc/loadavg)
cpu=$(printf '%s' "$times" | awk '{ printf "%.2f\n", $3 + $4 }' | sort -n | awk '{ c[NR] = $1 } END { print c[int((NR + 1) / 2)] }')
printf '%s' "$times" | sort -n | awk -v size="$size" -v runs="$RUNS" -v load="$load" -v cpu="$cpu" '
  { s[NR] = $1; if ($2 > rss) rss = $2 }
  END {
    med = s[int((NR + 1) / 2)];
    printf "{\"bench\":\"report\",\"commits\":10000,\"live_files\":50000,\"runs\":%d,", runs;
    printf "\"best_s\":%.2f,\"median_s\":%.2f,\"median_cpu_s\":%.2f,\"load_avg\":%s,", s[1], med,
           cpu, load;
    printf "\"bytes\":%d,\"peak_rss_mib\":%.1f}\n", size, rss / 1024;
    if (med >= 2 || size >= 2 * 1024 * 1024) { print "OVER BUDGET (2 s, 2 MB)"; exit 1 }
  }'
[ "${BENCH_KEEP_DATA:-0}" = 1 ] || rm -rf "$DIR"
