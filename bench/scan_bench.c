/*
 * Scan benchmark (issue 7, "Proof"): a selective event-time range query on
 * a Delta table of seed-shaped events, through the public scan API
 * (include/inlet/scan.h) the CLI uses. bench/scan_bench.sh runs the same
 * query in DuckDB (bench/scan_bench.mjs) over the same live files.
 *
 * The table: N rows in F appends (one data file each, as a stream's
 * micro-batches would leave them): event_id = i, user = "user%03d" of
 * (i * 7919) % 1000, amount = ((i * 37) % 100000) / 100, event_time =
 * 2024-05-01T00:00:00Z + i milliseconds. The query keeps event_time in
 * [start + 0.50 N ms, start + 0.51 N ms): 1% of the rows, and folds every
 * column of the matching rows into a checksum (count, sum(event_id),
 * sum(amount), sum(length(user))) so nothing is decoded for nothing.
 *
 *   scan_bench --dir D [--rows N] [--files F] [--repeat K] [--shift R] [--rescan K]
 * (--shift moves the queried window by R rows, off file and page starts;
 * --rescan K adds the best of K more scans of one snapshot, whose scan plan
 * the first of them builds and the others reuse.)
 * Creates D/t if absent; writes D/files.txt (live files, absolute paths)
 * and prints one JSON line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "inlet/inlet.h"

#define START_US 1714521600000000LL /* 2024-05-01T00:00:00Z */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec / 1e6;
}

static void die(const char *what, const inlet_error *err) {
  fprintf(stderr, "scan_bench: %s: %s\n", what, inlet_errmsg(err));
  exit(1);
}

static void build(const char *table, int64_t rows, int64_t files) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s, "event_id long, user string, amount double, event_time timestamp",
                         &err))
    die("schema", &err);
  inlet_table *t = NULL;
  if (inlet_table_create(&t, table, &s, NULL, &err)) die("create", &err);
  int64_t per = rows / files;
  for (int64_t f = 0; f < files; f++) {
    int64_t from = f * per, to = f == files - 1 ? rows : from + per;
    inlet_batch b;
    if (inlet_batch_init(&b, &s, &err)) die("batch", &err);
    for (int64_t i = from; i < to; i++) {
      char u[16];
      int n = snprintf(u, sizeof u, "user%03d", (int)((i * 7919) % 1000));
      if (inlet_array_append_int(&b.columns[0], &s.fields[0], i, &err) ||
          inlet_array_append_bytes(&b.columns[1], &s.fields[1], u, (size_t)n, &err) ||
          inlet_array_append_double(&b.columns[2], (double)((i * 37) % 100000) / 100.0, &err) ||
          inlet_array_append_int(&b.columns[3], &s.fields[3], START_US + i * 1000, &err))
        die("append", &err);
    }
    b.num_rows = to - from;
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err)) die("commit", &err);
    inlet_batch_reset(&b);
  }
  inlet_table_free(t);
  inlet_schema_reset(&s);
}

static void fmt_ts(char *out, size_t cap, int64_t us) {
  time_t sec = (time_t)(us / 1000000);
  struct tm tm;
  gmtime_r(&sec, &tm);
  snprintf(out, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(us % 1000000));
}

/* Best wall time of @p n filtered scans of one snapshot of @p table (the
 * table opened and its snapshot loaded once, untimed): what a scan costs
 * when the snapshot's scan plan is already built. */
static double rescan_best(const char *table, const char *where, int n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  if (inlet_table_open(&t, table, &err) || inlet_table_snapshot(&s, t, &err)) die("open", &err);
  double best = 1e9;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  for (int k = 0; k < n; k++) {
    double t0 = now_s();
    inlet_scan *sc = NULL;
    inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
    o.where = where;
    if (inlet_scan_open(&sc, s, &o, &err)) die("scan", &err);
    int rc;
    while ((rc = inlet_scan_next(sc, &b, &err)) == 1)
      ;
    if (rc < 0) die("scan", &err);
    inlet_scan_free(sc);
    double dt = now_s() - t0;
    if (dt < best) best = dt;
  }
  inlet_batch_reset(&b);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return best;
}

int main(int argc, char **argv) {
  const char *dir = NULL;
  int64_t rows = 10000000, files = 40, shift = 0;
  int repeat = 3, rescan = 0, threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--dir"))
      dir = argv[i + 1];
    else if (!strcmp(argv[i], "--rows"))
      rows = atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--files"))
      files = atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--repeat"))
      repeat = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--shift"))
      shift = atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--rescan"))
      rescan = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--threads"))
      threads = atoi(argv[i + 1]);
  }
  if (!dir || rows <= 0 || files <= 0 || repeat <= 0) {
    fprintf(stderr, "usage: scan_bench --dir D [--rows N] [--files F] [--repeat K] [--rescan K] "
                    "[--threads T]\n");
    return 2;
  }
  char table[4096], list[4200];
  snprintf(table, sizeof table, "%s/t", dir);
  struct stat st;
  double build_s = 0;
  if (stat(table, &st) != 0) {
    double t0 = now_s();
    build(table, rows, files);
    build_s = now_s() - t0;
  }
  char lo[64], hi[64], where[256];
  fmt_ts(lo, sizeof lo, START_US + (rows / 100 * 50 + shift) * 1000);
  fmt_ts(hi, sizeof hi, START_US + (rows / 100 * 51 + shift) * 1000);
  snprintf(where, sizeof where, "event_time >= '%s' AND event_time < '%s'", lo, hi);

  inlet_error err = INLET_ERROR_INIT;
  double best = 1e9, best_cpu = 1e9;
  int64_t count = 0, sum_id = 0, sum_len = 0;
  double sum_amount = 0;
  inlet_scan_stats ss;
  memset(&ss, 0, sizeof ss);
  int64_t live = 0;
  for (int k = 0; k < repeat; k++) {
    double t0 = now_s(), c0 = cpu_s();
    inlet_table *t = NULL;
    inlet_snapshot *s = NULL;
    inlet_scan *sc = NULL;
    if (inlet_table_open(&t, table, &err) || inlet_table_snapshot(&s, t, &err)) die("open", &err);
    inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
    o.where = where;
    o.threads = threads;
    if (inlet_scan_open(&sc, s, &o, &err)) die("scan", &err);
    inlet_batch b;
    memset(&b, 0, sizeof b);
    count = sum_id = sum_len = 0;
    sum_amount = 0;
    int rc;
    while ((rc = inlet_scan_next(sc, &b, &err)) == 1) {
      const int64_t *id = (const int64_t *)b.columns[0].values;
      const int32_t *off = b.columns[1].offsets;
      const double *am = (const double *)b.columns[2].values;
      for (int64_t r = 0; r < b.num_rows; r++) {
        sum_id += id[r];
        sum_amount += am[r];
        sum_len += off[r + 1] - off[r];
      }
      count += b.num_rows;
    }
    if (rc < 0) die("scan", &err);
    inlet_scan_get_stats(sc, &ss);
    inlet_batch_reset(&b);
    double dt = now_s() - t0, dc = cpu_s() - c0;
    if (dt < best) best = dt;
    if (dc < best_cpu) best_cpu = dc;
    if (k == repeat - 1) {
      live = inlet_snapshot_num_files(s);
      snprintf(list, sizeof list, "%s/files.txt", dir);
      FILE *f = fopen(list, "w");
      if (!f) return 1;
      for (int64_t i = 0; i < live; i++) {
        inlet_file_info fi;
        inlet_snapshot_file(s, i, &fi);
        fprintf(f, "%s/%s\n", inlet_table_path(t), fi.path);
      }
      fclose(f);
    }
    inlet_scan_free(sc);
    inlet_snapshot_free(s);
    inlet_table_free(t);
  }
  printf("{\"engine\":\"inlet\",\"threads\":%d,\"rows\":%lld,\"files\":%lld,\"where\":\"%s\","
         "\"build_seconds\":%.3f,"
         "\"seconds\":%.4f,\"cpu_seconds\":%.4f,\"count\":%lld,\"sum_event_id\":%lld,"
         "\"sum_amount\":%.2f,\"sum_user_len\":%lld,\"files_read\":%lld,\"files_skipped\":%lld,"
         "\"rows_decoded\":%lld",
         threads, (long long)rows, (long long)live, where, build_s, best, best_cpu,
         (long long)count, (long long)sum_id, sum_amount, (long long)sum_len,
         (long long)ss.files_read, (long long)ss.files_skipped, (long long)ss.rows_read);
  if (rescan > 0) printf(",\"rescan_seconds\":%.5f", rescan_best(table, where, rescan));
  printf("}\n");
  return 0;
}
