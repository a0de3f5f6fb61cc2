/*
 * Partitioned append benchmark (issue 13 section 1): the CPU time of
 * inlet_table_writer_write routing rows to partition files, without the
 * commit's fsyncs. A table partitioned by (day date, region string) gets
 * ROWS rows per run in three layouts:
 *   sorted  - runs of RUN rows of equal partition values (a batch grouped by
 *             partition, the common stream shape);
 *   single  - one partition for the whole batch;
 *   mixed   - the partition changes on every row (8 days x 4 regions in
 *             turn), the worst case for run detection.
 * Prints the median and minimum CPU ms (user + system) of REPS writes of
 * each layout; the machine is shared, so compare CPU time, not wall time.
 *
 * usage: partition_bench DIR [ROWS [REPS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "inlet/inlet.h"

#define RUN 5000

static void die(const char *what, const inlet_error *err) {
  fprintf(stderr, "partition_bench: %s: %s\n", what, err->message);
  exit(1);
}

/* Fills @p b: day/region per @p layout, id and v per row. */
static void fill(inlet_batch *b, const inlet_schema *s, int64_t rows, int layout) {
  inlet_error err = INLET_ERROR_INIT;
  static const char *regions[] = {"eu-west", "us-east", "ap-south", "sa-east"};
  if (inlet_batch_init(b, s, &err) < 0) die("batch", &err);
  for (int64_t r = 0; r < rows; r++) {
    int64_t k = layout == 0 ? r / RUN : layout == 1 ? 0 : r;
    int32_t day = 19800 + (int32_t)(k % 8);
    const char *reg = regions[(k / 8) % 4];
    if (inlet_array_append_int(&b->columns[0], &s->fields[0], day, &err) < 0 ||
        inlet_array_append_bytes(&b->columns[1], &s->fields[1], reg, strlen(reg), &err) < 0 ||
        inlet_array_append_int(&b->columns[2], &s->fields[2], r, &err) < 0 ||
        inlet_array_append_double(&b->columns[3], (double)r * 0.5, &err) < 0)
      die("append", &err);
  }
  b->num_rows = rows;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: partition_bench DIR [ROWS [REPS]]\n");
    return 2;
  }
  int64_t rows = argc > 2 ? atoll(argv[2]) : 1000000;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s, "day date, region string, id long, v double", &err) < 0)
    die("schema", &err);
  static const char *layouts[] = {"sorted", "single", "mixed"};
  printf("layout  rows      reps  cpu_ms_median  cpu_ms_min\n");
  for (int layout = 0; layout < 3; layout++) {
    inlet_batch b;
    fill(&b, &s, rows, layout);
    double t[64];
    int n = reps < 64 ? reps : 64;
    for (int i = 0; i < n; i++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/t-%s-%d", argv[1], layouts[layout], i);
      inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
      const char *pcols[] = {"day", "region"};
      co.partition_columns = pcols;
      co.n_partition_columns = 2;
      inlet_table *t0 = NULL;
      if (inlet_table_create(&t0, path, &s, &co, &err) < 0) die("create", &err);
      inlet_table_writer *w = NULL;
      if (inlet_table_writer_open(&w, t0, NULL, &err) < 0) die("writer", &err);
      double c0 = cpu_ms();
      if (inlet_table_writer_write(w, &b, &err) < 0) die("write", &err);
      t[i] = cpu_ms() - c0;
      if (inlet_table_writer_commit(w, NULL, &err) < 0) die("commit", &err);
      inlet_table_writer_free(w);
      inlet_table_free(t0);
    }
    double mn = t[0];
    for (int i = 1; i < n; i++)
      mn = t[i] < mn ? t[i] : mn;
    printf("%-7s %-9lld %-5d %-14.1f %.1f\n", layouts[layout], (long long)rows, n, pct(t, n, 0.5),
           mn);
    inlet_batch_reset(&b);
  }
  inlet_schema_reset(&s);
  return 0;
}
