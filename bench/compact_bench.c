/*
 * Compaction benchmark (issue 6, "Proof", bench): 1,000 small files of
 * 10,000 rows each, compacted by inlet into target-size files, next to
 * DuckDB reading the same files and writing one file (threads=1), run by
 * bench/compact_bench.sh. Public API only (include/inlet/inlet.h).
 *
 *   compact_bench setup DIR [FILES [ROWS]]   untimed: DIR/t with FILES appends of ROWS
 *                                            events; DIR/inputs.txt lists the data files
 *   compact_bench compact DIR [TARGET]       timed: one inlet_table_compact
 *
 * `compact` prints one JSON object: rows, wall and CPU seconds, rows/s, peak
 * RSS of this process (getrusage: the compaction is all it did), files in
 * and out. Events: event_id int64 ascending, user string from 1,000 values,
 * amount double with 2 decimals, event_time timestamp (micros) - the shape
 * of bench/parquet_bench.c's seed events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "inlet/inlet.h"

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

static int die(const char *what, const inlet_error *err) {
  fprintf(stderr, "compact_bench: %s: %s\n", what, inlet_errmsg(err));
  return 1;
}

static int setup(const char *dir, long files, long rows) {
  inlet_error err = INLET_ERROR_INIT;
  char path[4096];
  snprintf(path, sizeof path, "%s/t", dir);
  inlet_schema s;
  if (inlet_schema_parse(&s,
                         "event_id long not null, user string not null, amount double not "
                         "null, event_time timestamp not null",
                         &err))
    return die("schema", &err);
  inlet_table *t = NULL;
  if (inlet_table_create(&t, path, &s, NULL, &err)) return die("create", &err);
  inlet_batch b;
  if (inlet_batch_init(&b, &s, &err)) return die("batch", &err);
  int64_t id = 0;
  for (long f = 0; f < files; f++) {
    inlet_batch_clear(&b);
    for (long r = 0; r < rows; r++, id++) {
      char user[16];
      int ul = snprintf(user, sizeof user, "user-%03d", (int)((id * 7919) % 1000));
      int rc = inlet_array_append_int(&b.columns[0], &s.fields[0], id, &err);
      if (!rc) rc = inlet_array_append_bytes(&b.columns[1], &s.fields[1], user, (size_t)ul, &err);
      if (!rc)
        rc = inlet_array_append_double(&b.columns[2], (double)((id * 31) % 100000) / 100, &err);
      if (!rc)
        rc = inlet_array_append_int(&b.columns[3], &s.fields[3], 1704067200000000LL + id * 1000,
                                    &err);
      if (rc) return die("append value", &err);
    }
    b.num_rows = rows;
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err)) return die("append", &err);
  }
  inlet_batch_reset(&b);
  inlet_snapshot *snap = NULL;
  if (inlet_table_snapshot(&snap, t, &err)) return die("snapshot", &err);
  char lp[4200];
  snprintf(lp, sizeof lp, "%s/inputs.txt", dir);
  FILE *fl = fopen(lp, "w");
  if (!fl) return 1;
  for (int64_t i = 0; i < inlet_snapshot_num_files(snap); i++) {
    inlet_file_info fi;
    inlet_snapshot_file(snap, i, &fi);
    fprintf(fl, "%s/%s\n", path, fi.path);
  }
  fclose(fl);
  printf("{\"setup_files\":%lld,\"rows\":%lld}\n", (long long)inlet_snapshot_num_files(snap),
         (long long)id);
  inlet_snapshot_free(snap);
  inlet_table_free(t);
  inlet_schema_reset(&s);
  return 0;
}

static int compact(const char *dir, long long target) {
  inlet_error err = INLET_ERROR_INIT;
  char path[4096];
  snprintf(path, sizeof path, "%s/t", dir);
  inlet_table *t = NULL;
  if (inlet_table_open(&t, path, &err)) return die("open", &err);
  inlet_compact_options o = INLET_COMPACT_OPTIONS_INIT;
  o.target_size = target;
  o.min_files = 8;
  /* BENCH_THREADS (default 1): the thread dimension of issue 18. */
  const char *th = getenv("BENCH_THREADS");
  o.threads = th ? atoi(th) : 1;
  inlet_compact_result res;
  double w0 = now_s(), c0 = cpu_s();
  if (inlet_table_compact(&res, t, &o, &err)) return die("compact", &err);
  double wall = now_s() - w0, cpu = cpu_s() - c0;
  inlet_table_free(t);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("{\"engine\":\"inlet\",\"threads\":%d,\"rows\":%lld,\"files_in\":%lld,\"files_out\":%lld,"
         "\"bytes_in\":%lld,\"bytes_out\":%lld,\"commits\":%lld,\"failed\":%lld,"
         "\"wall_s\":%.3f,\"cpu_s\":%.3f,\"rows_per_s_wall\":%.0f,\"rows_per_s_cpu\":%.0f,"
         "\"peak_rss_mib\":%.1f}\n",
         (int)o.threads, (long long)res.rows, (long long)res.files_removed,
         (long long)res.files_added, (long long)res.bytes_removed, (long long)res.bytes_added,
         (long long)res.commits, (long long)res.failed_groups, wall, cpu, res.rows / wall,
         res.rows / cpu, ru.ru_maxrss / 1024.0);
  return res.failed_groups ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "setup") == 0)
    return setup(argv[2], argc > 3 ? atol(argv[3]) : 1000, argc > 4 ? atol(argv[4]) : 10000);
  if (argc >= 3 && strcmp(argv[1], "compact") == 0)
    return compact(argv[2], argc > 3 ? atoll(argv[3]) : 128LL << 20);
  fprintf(stderr, "usage: compact_bench setup DIR [FILES [ROWS]] | compact DIR [TARGET]\n");
  return 2;
}
