/*
 * Delta log benchmark (issue 4, "Proof" / bench): commit latency of
 * one-file appends next to the machine's floor for a commit (temp write +
 * fsync + link + directory fsync, measured here by the same program), and
 * snapshot load time for tables of N commits with a checkpoint.
 *
 * Large logs are synthesised: after a real create and one real append, each
 * further commit adds a file and removes the previous one (so the live set
 * stays small and the log length is what varies), written directly as
 * commit JSON without fsync; then `inlet_table_checkpoint` checkpoints the
 * last version, as a writer would have every delta.checkpointInterval
 * commits. The synthetic removes carry deletionTimestamp 1, so they are
 * expired tombstones: no snapshot or checkpoint carries them.
 *
 * The append comparison is interleaved, so that every table sees the same
 * disk conditions (fsync latency drifts by 2x over a run): each round makes
 * one floor sample in an empty directory, one floor sample in each table's
 * `_delta_log` (a directory of N entries), and one one-file append to each
 * table, in an order that rotates from round to round. Per table it reports
 * append p50/p99/mean wall time, CPU time (getrusage user+sys) per commit,
 * the mean of the checkpoint commits (every 10th version, which also runs
 * log cleanup), and the floor in that table's log directory; then the p50
 * ratio of each table to the first (smallest) one. Floor samples are
 * published under dot names (`.floor-*`, ignored by Delta readers like the
 * writer's own `.tmp-*` files) and removed at the end.
 *
 * For instruction counts, run one size under callgrind, counting only the
 * appends:  valgrind --tool=callgrind --toggle-collect=timed_append
 *           delta_bench DIR 50 N   (then Ir / 50 = instructions per append).
 * Uses only the public API plus POSIX.
 *
 *   delta_bench DIR [APPENDS] [SIZES...]  (default 200 appends; 100 1000 10000 100000)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "inlet/inlet.h"

#define MAX_SIZES 8

static void die(const char *what, const inlet_error *err) {
  fprintf(stderr, "delta_bench: %s: %s\n", what, err ? inlet_errmsg(err) : "failed");
  exit(1);
}

static void one_row(inlet_batch *b, const inlet_schema *s, int64_t id) {
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_batch_init(b, s, &err) < 0 ||
      inlet_array_append_int(&b->columns[0], &s->fields[0], id, &err) < 0)
    die("batch", &err);
  b->num_rows = 1;
}

/* One one-file append through a warm handle (a named, non-inlined function
 * so callgrind's --toggle-collect can count just this). */
__attribute__((noinline)) void timed_append(inlet_table *t, const inlet_batch *b, int64_t *v);
__attribute__((noinline)) void timed_append(inlet_table *t, const inlet_batch *b, int64_t *v) {
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_table_append(t, b, 1, NULL, v, &err) < 0) die("append", &err);
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

typedef struct table_run {
  int64_t size;
  char path[4200];
  inlet_table *t;
  int log_fd;
  double load_p50;
  double *lat, *cpu, *flr; /* owned, one per round */
  double ckpt_sum;
  int n_ckpt;
} table_run;

/* Creates a table of @p n commits with a checkpoint at its last version. */
static void build_table(table_run *r, const char *dir, const inlet_schema *s) {
  inlet_error err = INLET_ERROR_INIT;
  snprintf(r->path, sizeof r->path, "%s/t%lld", dir, (long long)r->size);
  inlet_table *t = NULL;
  if (inlet_table_create(&t, r->path, s, NULL, &err) < 0) die("create", &err);
  inlet_batch b;
  one_row(&b, s, 0);
  if (inlet_table_append(t, &b, 1, NULL, NULL, &err) < 0) die("append", &err);
  inlet_batch_reset(&b);
  inlet_table_free(t);
  synth_commits(r->path, 2, r->size);
  if (inlet_table_open(&t, r->path, &err) < 0) die("open", &err);
  int64_t cv = -1;
  if (inlet_table_checkpoint(t, &cv, &err) < 0) die("checkpoint", &err);
  inlet_table_free(t);
  /* Cold loads: a fresh handle each time (hint, checkpoint, tail). */
  double loads[20];
  for (int i = 0; i < 20; i++) {
    double t0 = now_ms();
    inlet_snapshot *sn = NULL;
    if (inlet_table_open(&t, r->path, &err) < 0 || inlet_table_snapshot(&sn, t, &err) < 0)
      die("load", &err);
    loads[i] = now_ms() - t0;
    inlet_snapshot_free(sn);
    inlet_table_free(t);
  }
  r->load_p50 = pct(loads, 20, 0.5);
  char log[4300];
  snprintf(log, sizeof log, "%s/_delta_log", r->path);
  r->log_fd = open(log, O_RDONLY | O_DIRECTORY);
  if (r->log_fd < 0) die("open _delta_log", NULL);
  /* Warm writer at this log length. */
  if (inlet_table_open(&r->t, r->path, &err) < 0) die("open", &err);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: delta_bench DIR [APPENDS] [SIZES...]\n");
    return 2;
  }
  const char *dir = argv[1];
  int rounds = argc > 2 ? atoi(argv[2]) : 200;
  if (rounds < 1) rounds = 1;
  table_run runs[MAX_SIZES];
  memset(runs, 0, sizeof runs);
  static const int64_t dflt[] = {100, 1000, 10000, 100000};
  int n = 0;
  if (argc > 3)
    for (int i = 3; i < argc && n < MAX_SIZES; i++)
      runs[n++].size = atoll(argv[i]);
  else
    for (; n < 4; n++)
      runs[n].size = dflt[n];
  for (int k = 0; k < n; k++)
    if (runs[k].size < 2) die("sizes must be at least 2 commits", NULL);
  mkdir(dir, 0755);
  char empty[4200];
  snprintf(empty, sizeof empty, "%s/floor-empty", dir);
  mkdir(empty, 0755);
  int empty_fd = open(empty, O_RDONLY | O_DIRECTORY);
  if (empty_fd < 0) die("open floor dir", NULL);

  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s, "id long", &err) < 0) die("schema", &err);
  for (int k = 0; k < n; k++) {
    build_table(&runs[k], dir, &s);
    runs[k].lat = calloc((size_t)rounds, sizeof(double));
    runs[k].cpu = calloc((size_t)rounds, sizeof(double));
    runs[k].flr = calloc((size_t)rounds, sizeof(double));
    if (!runs[k].lat || !runs[k].cpu || !runs[k].flr) die("out of memory", NULL);
  }
  double *flr_empty = calloc((size_t)rounds, sizeof(double));
  if (!flr_empty) die("out of memory", NULL);

  /* Interleaved rounds: slot 0 is the empty-directory floor, slots 1..n the
   * floors in the tables' logs, slots n+1..2n the appends; the starting slot
   * rotates each round. */
  int slots = 2 * n + 1;
  for (int i = 0; i < rounds; i++) {
    inlet_batch b;
    one_row(&b, &s, i);
    for (int j = 0; j < slots; j++) {
      int slot = (i + j) % slots;
      if (slot == 0) {
        if ((flr_empty[i] = floor_once(empty_fd, i)) < 0) die("floor sample", NULL);
      } else if (slot <= n) {
        if ((runs[slot - 1].flr[i] = floor_once(runs[slot - 1].log_fd, i)) < 0)
          die("floor sample", NULL);
      } else {
        table_run *r = &runs[slot - n - 1];
        int64_t v = -1;
        double c0 = cpu_ms(), t0 = now_ms();
        timed_append(r->t, &b, &v);
        r->lat[i] = now_ms() - t0;
        r->cpu[i] = cpu_ms() - c0;
        if (v % 10 == 0) {
          r->ckpt_sum += r->lat[i];
          r->n_ckpt++;
        }
      }
    }
    inlet_batch_reset(&b);
  }

  double fe_mean = mean(flr_empty, rounds);
  printf("commit floor (temp write + fsync + link + dir fsync), empty directory: p50 %.2f ms, "
         "p99 %.2f ms, mean %.2f ms\n",
         pct(flr_empty, rounds, 0.5), pct(flr_empty, rounds, 0.99), fe_mean);
  printf("%d interleaved rounds; per table: one-file appends through a warm handle, and the "
         "floor in its _delta_log\n",
         rounds);
  printf("%10s %9s %9s %9s %9s %9s %9s %10s %10s %9s\n", "commits", "load p50", "app p50",
         "app p99", "app mean", "cpu p50", "cpu mean", "ckpt mean", "floor p50", "vs floor");
  double base_p50 = 0, base_floor = 0, base_cpu = 0;
  for (int k = 0; k < n; k++) {
    table_run *r = &runs[k];
    double a_mean = mean(r->lat, rounds), c_mean = mean(r->cpu, rounds);
    double a50 = pct(r->lat, rounds, 0.5), a99 = pct(r->lat, rounds, 0.99);
    double c50 = pct(r->cpu, rounds, 0.5), f50 = pct(r->flr, rounds, 0.5);
    if (k == 0) {
      base_p50 = a50;
      base_floor = f50;
      base_cpu = c50;
    }
    printf("%10lld %9.2f %9.2f %9.2f %9.2f %9.3f %9.3f %10.2f %10.2f %8.2fx\n", (long long)r->size,
           r->load_p50, a50, a99, a_mean, c50, c_mean, r->n_ckpt ? r->ckpt_sum / r->n_ckpt : 0.0,
           f50, a50 / f50);
    if (k > 0)
      printf("%10s append p50 %.3fx of %lld commits; cpu p50 %.3fx; floor p50 in its log %.3fx\n",
             "", a50 / base_p50, (long long)runs[0].size, c50 / base_cpu, f50 / base_floor);
  }
  printf("(ms; cpu = getrusage user+sys per commit; ckpt = commits at versions divisible by 10, "
         "which also write a checkpoint and run log cleanup)\n");

  for (int k = 0; k < n; k++) {
    inlet_table_free(runs[k].t);
    floor_cleanup(runs[k].log_fd, rounds);
    close(runs[k].log_fd);
    free(runs[k].lat);
    free(runs[k].cpu);
    free(runs[k].flr);
  }
  floor_cleanup(empty_fd, rounds);
  close(empty_fd);
  free(flr_empty);
  inlet_schema_reset(&s);
  return 0;
}
