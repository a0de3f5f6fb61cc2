/*
 * Delta log benchmark (issue 4, "Proof" / bench): commit latency of
 * one-file appends next to the machine's floor for a commit (temp write +
 * fsync + link + directory fsync, measured here by the same program), and
 * snapshot load time for tables of 1k, 10k and 100k commits with a
 * checkpoint, plus append latency at each of those log lengths.
 *
 * Large logs are synthesised: after a real create and one real append, each
 * further commit adds a file and removes the previous one (so the live set
 * stays small and the log length is what varies), written directly as
 * commit JSON without fsync; then `inlet_table_checkpoint` checkpoints the
 * last version, as a writer would have every delta.checkpointInterval
 * commits. Uses only the public API plus POSIX.
 *
 *   delta_bench DIR [APPENDS] [SIZES...]     (default 200 appends; 1000 10000 100000)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "inlet/inlet.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double pct(double *v, int n, double p) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  int i = (int)(p * (n - 1) + 0.5);
  return v[i];
}

static void die(const char *what, const inlet_error *err) {
  fprintf(stderr, "delta_bench: %s: %s\n", what, err ? inlet_errmsg(err) : "failed");
  exit(1);
}

/* The floor: what one commit costs the file system at minimum. */
static void floor_latency(const char *dir, int n, double *p50, double *p99) {
  double *t = calloc((size_t)n, sizeof *t);
  char body[600];
  memset(body, 'x', sizeof body);
  int dfd = open(dir, O_RDONLY | O_DIRECTORY);
  if (dfd < 0) die("open dir", NULL);
  for (int i = 0; i < n; i++) {
    char tmp[4200], fin[4200];
    snprintf(tmp, sizeof tmp, "%s/.floor-tmp", dir);
    snprintf(fin, sizeof fin, "%s/floor-%06d.json", dir, i);
    double t0 = now_ms();
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 || write(fd, body, sizeof body) != (ssize_t)sizeof body || fsync(fd) != 0)
      die("floor write", NULL);
    close(fd);
    if (link(tmp, fin) != 0 || unlink(tmp) != 0 || fsync(dfd) != 0) die("floor link", NULL);
    t[i] = now_ms() - t0;
  }
  close(dfd);
  *p50 = pct(t, n, 0.5);
  *p99 = pct(t, n, 0.99);
  free(t);
}

static void one_row(inlet_batch *b, const inlet_schema *s, int64_t id) {
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_batch_init(b, s, &err) < 0 ||
      inlet_array_append_int(&b->columns[0], &s->fields[0], id, &err) < 0)
    die("batch", &err);
  b->num_rows = 1;
}

/* Appends @p n one-row files through a warm handle; latencies in ms. */
static void append_latency(inlet_table *t, const inlet_schema *s, int n, double *p50, double *p99) {
  double *lat = calloc((size_t)n, sizeof *lat);
  inlet_error err = INLET_ERROR_INIT;
  for (int i = 0; i < n; i++) {
    inlet_batch b;
    one_row(&b, s, i);
    double t0 = now_ms();
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err) < 0) die("append", &err);
    lat[i] = now_ms() - t0;
    inlet_batch_reset(&b);
  }
  *p50 = pct(lat, n, 0.5);
  *p99 = pct(lat, n, 0.99);
  free(lat);
}

static void synth_commits(const char *table, int64_t from, int64_t to) {
  for (int64_t v = from; v < to; v++) {
    char path[4300];
    snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", table, (long long)v);
    FILE *f = fopen(path, "wx");
    if (!f) die("synth commit", NULL);
    fprintf(f,
            "{\"commitInfo\":{\"timestamp\":%lld,\"operation\":\"WRITE\",\"operationParameters\":"
            "{\"mode\":\"Append\"},\"isBlindAppend\":false,\"engineInfo\":\"delta_bench\"}}\n"
            "{\"remove\":{\"path\":\"synth-%lld.parquet\",\"deletionTimestamp\":1,"
            "\"dataChange\":true,\"size\":500}}\n"
            "{\"add\":{\"path\":\"synth-%lld.parquet\",\"partitionValues\":{},\"size\":500,"
            "\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":1}\"}}\n",
            (long long)v, (long long)(v - 1), (long long)v);
    fclose(f);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: delta_bench DIR [APPENDS] [SIZES...]\n");
    return 2;
  }
  const char *dir = argv[1];
  int appends = argc > 2 ? atoi(argv[2]) : 200;
  int64_t sizes[16] = {1000, 10000, 100000};
  int n_sizes = 3;
  if (argc > 3) {
    n_sizes = 0;
    for (int i = 3; i < argc && n_sizes < 16; i++) sizes[n_sizes++] = atoll(argv[i]);
  }
  mkdir(dir, 0755);
  double f50, f99;
  floor_latency(dir, appends, &f50, &f99);
  printf("commit floor (temp write + fsync + link + dir fsync): p50 %.2f ms, p99 %.2f ms\n", f50,
         f99);
  printf("%10s %14s %16s %16s %10s\n", "commits", "load p50 (ms)", "append p50 (ms)",
         "append p99 (ms)", "vs floor");
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s, "id long", &err) < 0) die("schema", &err);
  for (int k = 0; k < n_sizes; k++) {
    char table[4200];
    snprintf(table, sizeof table, "%s/t%lld", dir, (long long)sizes[k]);
    inlet_table *t = NULL;
    if (inlet_table_create(&t, table, &s, NULL, &err) < 0) die("create", &err);
    inlet_batch b;
    one_row(&b, &s, 0);
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err) < 0) die("append", &err);
    inlet_batch_reset(&b);
    inlet_table_free(t);
    synth_commits(table, 2, sizes[k]);
    if (inlet_table_open(&t, table, &err) < 0) die("open", &err);
    int64_t cv = -1;
    if (inlet_table_checkpoint(t, &cv, &err) < 0) die("checkpoint", &err);
    inlet_table_free(t);
    /* Cold loads: a fresh handle each time (listing, checkpoint, tail). */
    double loads[20];
    for (int i = 0; i < 20; i++) {
      double t0 = now_ms();
      inlet_snapshot *sn = NULL;
      if (inlet_table_open(&t, table, &err) < 0 || inlet_table_snapshot(&sn, t, &err) < 0)
        die("load", &err);
      loads[i] = now_ms() - t0;
      inlet_snapshot_free(sn);
      inlet_table_free(t);
    }
    double l50 = pct(loads, 20, 0.5);
    /* Warm writer at this log length. */
    if (inlet_table_open(&t, table, &err) < 0) die("open", &err);
    double a50, a99;
    append_latency(t, &s, appends, &a50, &a99);
    inlet_table_free(t);
    printf("%10lld %14.2f %16.2f %16.2f %9.2fx\n", (long long)sizes[k], l50, a50, a99, a50 / f50);
  }
  inlet_schema_reset(&s);
  return 0;
}
