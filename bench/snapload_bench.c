/*
 * Snapshot loading and checkpoint writing at several thread counts (issue
 * 18: "checkpoint writing and snapshot loading in parallel").
 *
 * Builds a table with delta.checkpointPolicy=v2 whose live files are LIVE
 * synthetic adds (one commit written directly as JSON, like delta_bench's
 * synthetic log), checkpoints it through the public API (a v2 checkpoint
 * with LIVE / SIDECAR sidecars) once per thread count per round (the
 * checkpoint removed again in between, except the last), then appends AFTER
 * synthetic commits (each adds a file and removes the previous one, with a
 * current deletionTimestamp so the tombstones stay in the state), and times
 * cold loads: a fresh handle opened with inlet_table_open_options.threads =
 * n, then inlet_table_snapshot (hint, listing, checkpoint with its sidecars,
 * the AFTER commits). The thread counts are BENCH_THREADS_LIST ("1 <online
 * CPUs>"), interleaved round by round so every count sees the same machine;
 * medians of wall and CPU time (getrusage) per count, and the ratio to the
 * first count. The load average is printed before and after.
 *
 *   snapload_bench DIR [LIVE] [AFTER] [SIDECAR] [ROUNDS]
 *   (defaults 200000 20000 20000 7)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "inlet/inlet.h"

#define MAX_THREADS 16

static void die(const char *what, const inlet_error *err) {
  fprintf(stderr, "snapload_bench: %s: %s\n", what, err ? inlet_errmsg(err) : "failed");
  exit(1);
}

static void loadavg(const char *when) {
  char buf[128] = "?";
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
    fclose(f);
  }
  buf[strcspn(buf, "\n")] = 0;
  printf("load average %s: %s\n", when, buf);
}

static void add_line(FILE *f, long long i) {
  fprintf(f,
          "{\"add\":{\"path\":\"synth-%lld.parquet\",\"partitionValues\":{},\"size\":500,"
          "\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":1,"
          "\\\"minValues\\\":{\\\"id\\\":%lld},\\\"maxValues\\\":{\\\"id\\\":%lld},"
          "\\\"nullCount\\\":{\\\"id\\\":0}}\"}}\n",
          i, i, i);
}

static void commit_file(const char *table, long long v, FILE **out) {
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", table, v);
  *out = fopen(path, "wx");
  if (!*out) die("synth commit", NULL);
  fprintf(*out,
          "{\"commitInfo\":{\"timestamp\":%lld,\"operation\":\"WRITE\",\"operationParameters\":"
          "{\"mode\":\"Append\"},\"isBlindAppend\":false,\"engineInfo\":\"snapload_bench\"}}\n",
          v);
}

static int parse_threads(int *out) {
  const char *e = getenv("BENCH_THREADS_LIST");
  char buf[256];
  if (e && *e)
    snprintf(buf, sizeof buf, "%s", e);
  else
    snprintf(buf, sizeof buf, "1 %ld", sysconf(_SC_NPROCESSORS_ONLN));
  int n = 0;
  for (char *tok = strtok(buf, " ,"); tok && n < MAX_THREADS; tok = strtok(NULL, " ,"))
    if (atoi(tok) >= 1) out[n++] = atoi(tok);
  return n;
}

static void remove_checkpoint(const char *table) {
  char cmd[4500];
  snprintf(cmd, sizeof cmd,
           "rm -f '%s'/_delta_log/*.checkpoint.*.parquet '%s'/_delta_log/_sidecars/*.parquet "
           "'%s'/_delta_log/_last_checkpoint",
           table, table, table);
  if (system(cmd) != 0) die("remove checkpoint", NULL);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: snapload_bench DIR [LIVE] [AFTER] [SIDECAR] [ROUNDS]\n");
    return 2;
  }
  long long live = argc > 2 ? atoll(argv[2]) : 200000;
  long long after = argc > 3 ? atoll(argv[3]) : 20000;
  long long sidecar = argc > 4 ? atoll(argv[4]) : 20000;
  int rounds = argc > 5 ? atoi(argv[5]) : 7;
  int th[MAX_THREADS];
  int nth = parse_threads(th);
  if (live < 1 || after < 1 || sidecar < 1 || rounds < 1 || nth < 1) die("arguments", NULL);
  char table[4200];
  snprintf(table, sizeof table, "%s/snapload", argv[1]);
  loadavg("at start");

  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s, "id long", &err) < 0) die("schema", &err);
  char sc[32];
  snprintf(sc, sizeof sc, "%lld", sidecar);
  const char *keys[] = {"delta.checkpointPolicy", "inlet.checkpoint.sidecarActions",
                        "delta.checkpointInterval"};
  const char *vals[] = {"v2", sc, "100000000"};
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  co.n_properties = 3;
  co.property_keys = keys;
  co.property_values = vals;
  inlet_table *t = NULL;
  if (inlet_table_create(&t, table, &s, &co, &err) < 0) die("create", &err);
  inlet_table_free(t);
  inlet_schema_reset(&s);
  FILE *f = NULL;
  commit_file(table, 1, &f);
  for (long long i = 0; i < live; i++)
    add_line(f, i);
  fclose(f);

  /* Checkpoint writes, interleaved; the last one stays. */
  double *ck = calloc((size_t)(nth * rounds), sizeof *ck);
  if (!ck) die("memory", NULL);
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < nth; k++) {
      int j = (k + r) % nth;
      inlet_table_open_options oo = INLET_TABLE_OPEN_OPTIONS_INIT;
      oo.threads = th[j];
      if (inlet_table_open_with(&t, table, &oo, &err) < 0) die("open", &err);
      inlet_snapshot *sn = NULL;
      if (inlet_table_snapshot(&sn, t, &err) < 0) die("load", &err);
      inlet_snapshot_free(sn);
      double t0 = now_ms();
      if (inlet_table_checkpoint(t, NULL, &err) < 0) die("checkpoint", &err);
      ck[j * rounds + r] = now_ms() - t0;
      inlet_table_free(t);
      if (!(r == rounds - 1 && k == nth - 1)) remove_checkpoint(table);
    }

  /* The commits after the checkpoint: each adds a file and removes one. */
  long long now = (long long)time(NULL) * 1000;
  for (long long v = 2; v < 2 + after; v++) {
    commit_file(table, v, &f);
    fprintf(f,
            "{\"remove\":{\"path\":\"synth-%lld.parquet\",\"deletionTimestamp\":%lld,"
            "\"dataChange\":true,\"size\":500}}\n",
            v - 2, now);
    add_line(f, live + v);
    fclose(f);
  }

  double *wall = calloc((size_t)(nth * rounds), sizeof *wall);
  double *cpu = calloc((size_t)(nth * rounds), sizeof *cpu);
  if (!wall || !cpu) die("memory", NULL);
  int64_t files = -1;
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < nth; k++) {
      int j = (k + r) % nth;
      inlet_table_open_options oo = INLET_TABLE_OPEN_OPTIONS_INIT;
      oo.threads = th[j];
      double c0 = cpu_ms(), t0 = now_ms();
      inlet_snapshot *sn = NULL;
      if (inlet_table_open_with(&t, table, &oo, &err) < 0 || inlet_table_snapshot(&sn, t, &err) < 0)
        die("load", &err);
      wall[j * rounds + r] = now_ms() - t0;
      cpu[j * rounds + r] = cpu_ms() - c0;
      int64_t n = inlet_snapshot_num_files(sn);
      if (files >= 0 && n != files) die("thread counts load different snapshots", NULL);
      files = n;
      inlet_snapshot_free(sn);
      inlet_table_free(t);
    }

  printf("table: %lld live files in a v2 checkpoint with %lld sidecars, then %lld commits "
         "(%lld live files, %lld tombstones at the end), %d rounds\n",
         live, (live + sidecar - 1) / sidecar, after, (long long)files, after, rounds);
  printf("%-8s %14s %14s %14s %12s %16s\n", "threads", "ckpt write ms", "load ms (p50)",
         "load cpu ms", "load ratio", "ckpt ratio");
  double load1 = 0, ck1 = 0;
  for (int j = 0; j < nth; j++) {
    double c = pct(ck + j * rounds, rounds, 0.5), w = pct(wall + j * rounds, rounds, 0.5);
    double u = pct(cpu + j * rounds, rounds, 0.5);
    if (j == 0) load1 = w, ck1 = c;
    printf("%-8d %14.1f %14.1f %14.1f %11.2fx %15.2fx\n", th[j], c, w, u, load1 / w, ck1 / c);
  }
  loadavg("at end");
  free(ck);
  free(wall);
  free(cpu);
  return 0;
}
