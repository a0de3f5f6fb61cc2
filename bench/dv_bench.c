/*
 * Deletion vector benchmark (issue 16, "Proof"); bench/dv_bench.sh runs it
 * beside DuckDB (bench/dv_bench.mjs) and prints the ratios.
 *
 * Two tables of the same N rows in F appends (one data file each), the
 * rows of bench/scan_bench.c: event_id = i, user = "user%03d" of
 * (i * 7919) % 1000, amount = ((i * 37) % 100000) / 100, event_time =
 * 2024-05-01T00:00:00Z + i ms. D/dv has delta.enableDeletionVectors=true,
 * D/cow does not (its deletes rewrite files). amount < X keeps exactly X%
 * of any 100,000 consecutive rows (37 is prime to 100,000), spread over
 * every file, so a delete on it touches every file and skips none.
 *
 *   dv_bench setup --dir D [--rows N] [--files F]
 *       builds D/dv and D/cow (if absent) and writes D/files.txt (the live
 *       files of D/cow, absolute paths, for DuckDB); one JSON line.
 *   dv_bench delete --inlet BIN --table T --where PRED --out FILE
 *       runs `BIN delete T --where PRED --json` (stdout to FILE) and prints
 *       its wall and CPU time and peak RSS as one JSON line holding FILE's
 *       object under "result".
 *   dv_bench scan --table T [--repeat K] [--threads N]
 *       best of K full scans (every column folded into a checksum: count,
 *       sum(event_id), sum(amount), sum(length(user))); one JSON line.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inlet/inlet.h"

#define START_US 1714521600000000LL /* 2024-05-01T00:00:00Z */

extern char **environ;

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
  fprintf(stderr, "dv_bench: %s: %s\n", what, err ? inlet_errmsg(err) : "failed");
  exit(1);
}

static void build(const char *table, int64_t rows, int64_t files, bool dv) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s, "event_id long, user string, amount double, event_time timestamp",
                         &err))
    die("schema", &err);
  static const char *const keys[] = {"delta.enableDeletionVectors"};
  static const char *const values[] = {"true"};
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  if (dv) {
    co.n_properties = 1;
    co.property_keys = keys;
    co.property_values = values;
  }
  inlet_table *t = NULL;
  if (inlet_table_create(&t, table, &s, &co, &err)) die("create", &err);
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

static int setup(const char *dir, int64_t rows, int64_t files) {
  char dv[4096], cow[4096], list[4096];
  snprintf(dv, sizeof dv, "%s/dv", dir);
  snprintf(cow, sizeof cow, "%s/cow", dir);
  snprintf(list, sizeof list, "%s/files.txt", dir);
  struct stat st;
  double t0 = now_s();
  if (stat(dv, &st) != 0) build(dv, rows, files, true);
  if (stat(cow, &st) != 0) build(cow, rows, files, false);
  double build_s = now_s() - t0;
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  if (inlet_table_open(&t, cow, &err) || inlet_table_snapshot(&s, t, &err)) die("open", &err);
  FILE *f = fopen(list, "w");
  if (!f) die("files.txt", NULL);
  int64_t live = inlet_snapshot_num_files(s);
  for (int64_t i = 0; i < live; i++) {
    inlet_file_info fi;
    inlet_snapshot_file(s, i, &fi);
    fprintf(f, "%s/%s\n", inlet_table_path(t), fi.path);
  }
  if (fclose(f) != 0) die("files.txt", NULL);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  printf("{\"rows\":%lld,\"files\":%lld,\"build_seconds\":%.3f}\n", (long long)rows,
         (long long)live, build_s);
  return 0;
}

static int run_delete(const char *bin, const char *table, const char *where, const char *out) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char *argv[] = {(char *)bin,   (char *)"delete", (char *)table, (char *)"--where",
                  (char *)where, (char *)"--json", NULL};
  double t0 = now_s();
  pid_t pid;
  if (posix_spawn(&pid, bin, &fa, NULL, argv, environ) != 0) die("spawn", NULL);
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid) die("wait", NULL);
  double wall = now_s() - t0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("inlet delete", NULL);
  double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec / 1e6;
  char res[4096] = "";
  FILE *f = fopen(out, "r");
  size_t n = f ? fread(res, 1, sizeof res - 1, f) : 0;
  if (f) fclose(f);
  res[n] = '\0';
  while (n && (res[n - 1] == '\n' || res[n - 1] == '\r'))
    res[--n] = '\0';
  if (!n) die("inlet delete printed nothing", NULL);
  printf("{\"engine\":\"inlet\",\"table\":\"%s\",\"wall_s\":%.4f,\"cpu_s\":%.4f,"
         "\"peak_rss_mib\":%.1f,\"result\":%s}\n",
         table, wall, cpu, (double)ru.ru_maxrss / 1024.0, res);
  return 0;
}

static int scan(const char *table, int repeat, int threads) {
  inlet_error err = INLET_ERROR_INIT;
  double best = 1e9, best_cpu = 1e9;
  int64_t count = 0, sum_id = 0, sum_len = 0, files = 0;
  double sum_amount = 0;
  for (int k = 0; k < repeat; k++) {
    double t0 = now_s(), c0 = cpu_s();
    inlet_table *t = NULL;
    inlet_snapshot *s = NULL;
    inlet_scan *sc = NULL;
    if (inlet_table_open(&t, table, &err) || inlet_table_snapshot(&s, t, &err)) die("open", &err);
    inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
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
    inlet_batch_reset(&b);
    files = inlet_snapshot_num_files(s);
    inlet_scan_free(sc);
    inlet_snapshot_free(s);
    inlet_table_free(t);
    double dt = now_s() - t0, dc = cpu_s() - c0;
    if (dt < best) best = dt;
    if (dc < best_cpu) best_cpu = dc;
  }
  printf("{\"engine\":\"inlet\",\"table\":\"%s\",\"threads\":%d,\"files\":%lld,\"seconds\":%.4f,"
         "\"cpu_seconds\":%.4f,\"rows_per_s\":%.0f,\"count\":%lld,\"sum_event_id\":%lld,"
         "\"sum_amount\":%.2f,\"sum_user_len\":%lld}\n",
         table, threads, (long long)files, best, best_cpu, (double)count / best, (long long)count,
         (long long)sum_id, sum_amount, (long long)sum_len);
  return 0;
}

int main(int argc, char **argv) {
  const char *dir = NULL, *table = NULL, *bin = NULL, *where = NULL, *out = NULL;
  int64_t rows = 10000000, files = 40;
  int repeat = 3, threads = 1;
  if (argc < 2) goto usage;
  for (int i = 2; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (!strcmp(k, "--dir"))
      dir = v;
    else if (!strcmp(k, "--table"))
      table = v;
    else if (!strcmp(k, "--inlet"))
      bin = v;
    else if (!strcmp(k, "--where"))
      where = v;
    else if (!strcmp(k, "--out"))
      out = v;
    else if (!strcmp(k, "--rows"))
      rows = atoll(v);
    else if (!strcmp(k, "--files"))
      files = atoll(v);
    else if (!strcmp(k, "--repeat"))
      repeat = atoi(v);
    else if (!strcmp(k, "--threads"))
      threads = atoi(v);
    else
      goto usage;
  }
  if (!strcmp(argv[1], "setup") && dir && rows > 0 && files > 0) return setup(dir, rows, files);
  if (!strcmp(argv[1], "delete") && bin && table && where && out)
    return run_delete(bin, table, where, out);
  if (!strcmp(argv[1], "scan") && table && repeat > 0 && threads > 0)
    return scan(table, repeat, threads);
usage:
  fprintf(stderr, "usage: dv_bench setup --dir D [--rows N] [--files F]\n"
                  "       dv_bench delete --inlet BIN --table T --where PRED --out FILE\n"
                  "       dv_bench scan --table T [--repeat K] [--threads N]\n");
  return 2;
}
