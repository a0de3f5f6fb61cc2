/*
 * Output benchmark (issue 19 §1 "Proof"): a full scan of a Delta table
 * written as NDJSON and as Arrow IPC (stream uncompressed, LZ4_FRAME and
 * ZSTD, and the file format), through the public API the CLI uses
 * (inlet_scan_next + inlet_text_writer / inlet_arrow_ipc_writer). The bytes
 * go to a sink that only counts them, so the figures are the cost of
 * scanning and encoding, not of a disk or a pipe; "scan only" is the same
 * scan with no output, the floor every format shares.
 *
 * The table: N rows in F appends: event_id = i, user = "user%03d" of
 * (i * 7919) % 1000, amount = ((i * 37) % 100000) / 100, event_time =
 * 2024-05-01T00:00:00Z + i milliseconds, tags = a list of i % 4 strings.
 *
 *   export_bench --dir D [--rows N] [--files F] [--repeat K]
 * Creates D/t if absent; prints one JSON line: for each output the best
 * wall time of K runs (taken in turns), rows/s and bytes written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "inlet/inlet.h"

#define START_US 1714521600000000LL /* 2024-05-01T00:00:00Z */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const inlet_error *err) {
  fprintf(stderr, "export_bench: %s: %s\n", what, inlet_errmsg(err));
  exit(1);
}

static void build(const char *table, int64_t rows, int64_t files) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s,
                         "event_id long, user string, amount double, event_time timestamp, "
                         "tags array<string>",
                         &err))
    die("schema", &err);
  inlet_table *t = NULL;
  if (inlet_table_create(&t, table, &s, NULL, &err)) die("create", &err);
  int64_t per = rows / files;
  const inlet_field *tag = &s.fields[4].children[0];
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
      for (int k = 0; k < i % 4; k++)
        if (inlet_array_append_bytes(&b.columns[4].children[0], tag, k ? "blue" : "red", k ? 4 : 3,
                                     &err))
          die("append", &err);
      if (inlet_array_append_list_entry(&b.columns[4], &err)) die("append", &err);
    }
    b.num_rows = to - from;
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err)) die("commit", &err);
    inlet_batch_reset(&b);
  }
  inlet_table_free(t);
  inlet_schema_reset(&s);
}

static int count_sink(void *ctx, const void *data, size_t len, inlet_error *err) {
  (void)data;
  (void)err;
  *(int64_t *)ctx += (int64_t)len;
  return 0;
}

enum { OUT_NONE, OUT_NDJSON, OUT_ARROW, OUT_ARROW_LZ4, OUT_ARROW_ZSTD, OUT_ARROW_FILE, OUT_N };
static const char *const names[OUT_N] = {
    "scan_only", "ndjson", "arrow_stream", "arrow_stream_lz4", "arrow_stream_zstd", "arrow_file"};

/* One full scan of @p s into output @p out; returns the wall time. */
static double run(inlet_snapshot *s, int out, int64_t *bytes, int64_t *rows) {
  inlet_error err = INLET_ERROR_INIT;
  double t0 = now_s();
  inlet_scan *sc = NULL;
  inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
  if (inlet_scan_open(&sc, s, &o, &err)) die("scan", &err);
  inlet_text_writer *tw = NULL;
  inlet_arrow_ipc_writer *aw = NULL;
  *bytes = *rows = 0;
  const inlet_schema *schema = inlet_scan_schema(sc);
  if (out == OUT_NDJSON) {
    inlet_text_writer_options wo = INLET_TEXT_WRITER_OPTIONS_INIT;
    if (inlet_text_writer_new(&tw, schema, &wo, count_sink, bytes, &err)) die("ndjson", &err);
  } else if (out != OUT_NONE) {
    inlet_arrow_ipc_options ao = INLET_ARROW_IPC_OPTIONS_INIT;
    ao.format = out == OUT_ARROW_FILE ? INLET_ARROW_IPC_FILE : INLET_ARROW_IPC_STREAM;
    ao.compression = out == OUT_ARROW_LZ4    ? INLET_ARROW_COMPRESSION_LZ4_FRAME
                     : out == OUT_ARROW_ZSTD ? INLET_ARROW_COMPRESSION_ZSTD
                                             : INLET_ARROW_COMPRESSION_NONE;
    if (inlet_arrow_ipc_writer_new(&aw, schema, &ao, count_sink, bytes, &err)) die("arrow", &err);
  }
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int rc;
  while ((rc = inlet_scan_next(sc, &b, &err)) == 1) {
    *rows += b.num_rows;
    if ((tw && inlet_text_writer_write(tw, &b, &err)) ||
        (aw && inlet_arrow_ipc_writer_write(aw, &b, &err)))
      die("write", &err);
  }
  if (rc < 0) die("scan", &err);
  if ((tw && inlet_text_writer_finish(tw, &err)) || (aw && inlet_arrow_ipc_writer_finish(aw, &err)))
    die("finish", &err);
  inlet_text_writer_free(tw);
  inlet_arrow_ipc_writer_free(aw);
  inlet_batch_reset(&b);
  inlet_scan_free(sc);
  return now_s() - t0;
}

int main(int argc, char **argv) {
  const char *dir = NULL;
  int64_t rows = 2000000, files = 10;
  int repeat = 3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--rows") && i + 1 < argc)
      rows = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--files") && i + 1 < argc)
      files = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: export_bench --dir D [--rows N] [--files F] [--repeat K]\n");
      return 2;
    }
  }
  if (!dir || rows < files || files < 1 || repeat < 1) {
    fprintf(stderr, "usage: export_bench --dir D [--rows N] [--files F] [--repeat K]\n");
    return 2;
  }
  char table[4096];
  snprintf(table, sizeof table, "%s/t", dir);
  struct stat st;
  if (stat(table, &st) != 0) build(table, rows, files);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  if (inlet_table_open(&t, table, &err) || inlet_table_snapshot(&s, t, &err)) die("open", &err);
  printf("{\"rows\":%lld,\"files\":%lld,\"repeat\":%d", (long long)rows, (long long)files, repeat);
  /* Round robin, so that a noisy machine slows every output alike. */
  double best[OUT_N];
  int64_t bytes[OUT_N];
  for (int out = 0; out < OUT_N; out++)
    best[out] = 1e9;
  for (int k = 0; k < repeat; k++)
    for (int out = 0; out < OUT_N; out++) {
      int64_t got = 0;
      double dt = run(s, out, &bytes[out], &got);
      if (got != rows) {
        fprintf(stderr, "export_bench: %s read %lld rows, expected %lld\n", names[out],
                (long long)got, (long long)rows);
        return 1;
      }
      if (dt < best[out]) best[out] = dt;
    }
  for (int out = 0; out < OUT_N; out++)
    printf(",\"%s\":{\"seconds\":%.4f,\"rows_per_s\":%.0f,\"bytes\":%lld}", names[out], best[out],
           (double)rows / best[out], (long long)bytes[out]);
  printf("}\n");
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return 0;
}
