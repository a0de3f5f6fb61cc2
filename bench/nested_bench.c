/*
 * Nested Parquet and integer-encoding benchmark (issue 3, "Proof", bench).
 *
 * nested: writes or scans a Delta-checkpoint-shaped file, one `add` struct
 * per row (Delta PROTOCOL.md "Add File" / "Checkpoints": path string,
 * partitionValues map<string,string>, size long, modificationTime long,
 * dataChange boolean, stats string, tags map<string,string>).
 * flat: writes the seed-shaped events of bench/parquet_bench.c with a chosen
 * integer encoding (AUTO, PLAIN, DELTA) for the DELTA_BINARY_PACKED vs
 * PLAIN comparison and the size target against DuckDB's PARQUET_VERSION V2.
 * Uses only the public API. bench/nested_bench.sh runs it beside
 * bench/nested_bench.mjs, which builds the same rows in DuckDB from the same
 * formulas (keep the two in step), so the scan checksums must agree.
 *
 *   nested_bench write --out F [--codec C] [--rows N] [--row-group-rows R]
 *                      [--int-encoding auto|plain|delta]
 *   nested_bench scan F
 *   nested_bench flat --out F [--codec C] [--rows N] [--row-group-rows R]
 *                     [--int-encoding auto|plain|delta]
 *
 * Each prints one JSON object. Write timings cover the write calls and
 * close (without fsync: DuckDB's COPY does not fsync either); generating the
 * rows is not timed. Scan timings cover open and decoding every row group.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "inlet/batch.h"
#include "inlet/error.h"
#include "inlet/parquet.h"

/* Row i, with h = (i * 2654435761) mod 2^32:
 *   path             = "part-" + i + "-c000.snappy.parquet"
 *   partitionValues  = {} when i % 10 = 9, else {"date": "2024-01-" + (1 + i % 28)}
 *   size             = 1000000 + h % 100000
 *   modificationTime = 1700000000000 + i * 1000
 *   dataChange       = i % 2 = 0
 *   stats            = {"numRecords":<h % 1000>,"minValues":{"id":<i>},
 *                       "maxValues":{"id":<i + h % 1000>},"nullCount":{"id":0}}
 *   tags             = null unless i % 4 = 0, then
 *                      {"INSERTION_TIME": "<modificationTime>", "ZORDER_BY": null}
 */
#define GEN_MULT UINT64_C(2654435761)
#define ADD_DDL                                                                                    \
  "add struct<path:string,partitionValues:map<string,string>,size:long,"                           \
  "modificationTime:long,dataChange:boolean,stats:string,tags:map<string,string>>"
#define FLAT_TIME_BASE INT64_C(1700000000000000)

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long max_rss_kb(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
  return ru.ru_maxrss;
}

static void die(const char *what, const inlet_error *err) {
  fprintf(stderr, "nested_bench: %s: %s\n", what, inlet_errmsg(err));
  exit(1);
}

static void check(int rc, const inlet_error *err) {
  if (rc != 0) die("generating rows", err);
}

static void put_str(inlet_array *a, const inlet_field *f, const char *s) {
  inlet_error err = INLET_ERROR_INIT;
  check(inlet_array_append_bytes(a, f, s, strlen(s), &err), &err);
}

/* One map entry: key, value (NULL = null value), closed as a struct. */
static void put_entry(inlet_array *entries, const inlet_field *ef, const char *k, const char *v) {
  inlet_error err = INLET_ERROR_INIT;
  put_str(&entries->children[0], &ef->children[0], k);
  if (v)
    put_str(&entries->children[1], &ef->children[1], v);
  else
    check(inlet_array_append_null(&entries->children[1], &ef->children[1], &err), &err);
  check(inlet_array_append_struct_entry(entries, &err), &err);
}

static void add_gen(inlet_batch *b, int64_t first, int64_t n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_batch_clear(b);
  const inlet_field *af = &b->schema.fields[0];
  inlet_array *add = &b->columns[0];
  const inlet_field *cf = af->children;
  inlet_array *c = add->children;
  char buf[256];
  for (int64_t i = first; i < first + n; i++) {
    uint64_t h = ((uint64_t)i * GEN_MULT) & UINT64_C(0xffffffff);
    int64_t mtime = INT64_C(1700000000000) + i * 1000;
    snprintf(buf, sizeof buf, "part-%" PRId64 "-c000.snappy.parquet", i);
    put_str(&c[0], &cf[0], buf);
    if (i % 10 != 9) {
      snprintf(buf, sizeof buf, "2024-01-%d", (int)(1 + i % 28));
      put_entry(&c[1].children[0], &cf[1].children[0], "date", buf);
    }
    check(inlet_array_append_list_entry(&c[1], &err), &err);
    check(inlet_array_append_int(&c[2], &cf[2], (int64_t)(1000000 + h % 100000), &err), &err);
    check(inlet_array_append_int(&c[3], &cf[3], mtime, &err), &err);
    check(inlet_array_append_bool(&c[4], i % 2 == 0, &err), &err);
    snprintf(buf, sizeof buf,
             "{\"numRecords\":%u,\"minValues\":{\"id\":%" PRId64 "},\"maxValues\":{\"id\":%" PRId64
             "},\"nullCount\":{\"id\":0}}",
             (unsigned)(h % 1000), i, i + (int64_t)(h % 1000));
    put_str(&c[5], &cf[5], buf);
    if (i % 4 == 0) {
      snprintf(buf, sizeof buf, "%" PRId64, mtime);
      put_entry(&c[6].children[0], &cf[6].children[0], "INSERTION_TIME", buf);
      put_entry(&c[6].children[0], &cf[6].children[0], "ZORDER_BY", NULL);
      check(inlet_array_append_list_entry(&c[6], &err), &err);
    } else {
      check(inlet_array_append_null(&c[6], &cf[6], &err), &err);
    }
    check(inlet_array_append_struct_entry(add, &err), &err);
  }
  b->num_rows = n;
}

/* Seed-shaped events, the formulas of bench/parquet_bench.c. */
static void flat_gen(inlet_batch *b, int64_t first, int64_t n) {
  inlet_error err = INLET_ERROR_INIT;
  const inlet_field *f = b->schema.fields;
  inlet_batch_clear(b);
  for (int64_t i = first; i < first + n; i++) {
    uint64_t h = ((uint64_t)i * GEN_MULT) & UINT64_C(0xffffffff);
    char user[16];
    int ulen = snprintf(user, sizeof user, "user_%u", (unsigned)((h >> 8) % 1000));
    check(inlet_array_append_int(&b->columns[0], &f[0], i, &err), &err);
    check(inlet_array_append_bytes(&b->columns[1], &f[1], user, (size_t)ulen, &err), &err);
    check(inlet_array_append_double(&b->columns[2], (double)((h >> 4) % 1000000) / 100.0, &err),
          &err);
    check(inlet_array_append_int(&b->columns[3], &f[3],
                                 FLAT_TIME_BASE + i * 1000 + (int64_t)(h % 1000), &err),
          &err);
  }
  b->num_rows = n;
}

static int64_t arg_i64(const char *s, const char *name) {
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end != '\0' || v <= 0) {
    fprintf(stderr, "nested_bench: bad %s: %s\n", name, s);
    exit(2);
  }
  return (int64_t)v;
}

static int cmd_write(int argc, char **argv, bool flat) {
  const char *out = NULL, *codec = "zstd", *ienc = "auto";
  int64_t rows = flat ? 10000000 : 1000000, rg_rows = 122880, batch_rows = 65536;
  for (int i = 0; i + 1 < argc; i += 2) {
    const char *a = argv[i], *v = argv[i + 1];
    if (strcmp(a, "--out") == 0)
      out = v;
    else if (strcmp(a, "--codec") == 0)
      codec = v;
    else if (strcmp(a, "--rows") == 0)
      rows = arg_i64(v, a);
    else if (strcmp(a, "--row-group-rows") == 0)
      rg_rows = arg_i64(v, a);
    else if (strcmp(a, "--int-encoding") == 0)
      ienc = v;
    else {
      fprintf(stderr, "nested_bench: unknown option %s\n", a);
      return 2;
    }
  }
  if (out == NULL || argc % 2) {
    fprintf(stderr, "nested_bench: --out is required (options take values)\n");
    return 2;
  }
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_writer_options opts = INLET_PARQUET_WRITER_OPTIONS_INIT;
  if (inlet_compression_parse(&opts.compression, codec, &err) != 0) die("codec", &err);
  opts.row_group_max_rows = rg_rows;
  opts.row_group_bytes = (int64_t)1 << 40;
  opts.sync_on_close = false;
  if (strcmp(ienc, "auto") == 0) {
    /* The writer's own choice among the extended encodings (issue 3). */
    opts.int_encoding = INLET_INT_ENCODING_AUTO;
    opts.encodings = INLET_PARQUET_ENCODINGS_EXTENDED;
  } else if (strcmp(ienc, "plain") == 0)
    opts.int_encoding = INLET_INT_ENCODING_PLAIN;
  else if (strcmp(ienc, "delta") == 0)
    opts.int_encoding = INLET_INT_ENCODING_DELTA;
  else {
    fprintf(stderr, "nested_bench: bad --int-encoding %s\n", ienc);
    return 2;
  }

  inlet_schema schema;
  inlet_schema_init(&schema);
  const char *ddl = flat ? "event_id long not null, user string not null, amount double not null, "
                           "event_time timestamp not null"
                         : ADD_DDL;
  if (inlet_schema_parse(&schema, ddl, &err) != 0) die("schema", &err);
  inlet_batch batch;
  if (inlet_batch_init(&batch, &schema, &err) != 0) die("batch", &err);

  remove(out);
  double t0 = now_seconds(), c0 = cpu_seconds();
  inlet_parquet_writer *w = NULL;
  if (inlet_parquet_writer_open(&w, out, &schema, &opts, &err) != 0) die(out, &err);
  double timed = now_seconds() - t0, cpu = cpu_seconds() - c0;
  for (int64_t first = 0; first < rows; first += batch_rows) {
    int64_t n = rows - first < batch_rows ? rows - first : batch_rows;
    if (flat)
      flat_gen(&batch, first, n);
    else
      add_gen(&batch, first, n);
    double t = now_seconds(), c = cpu_seconds();
    if (inlet_parquet_writer_write(w, &batch, &err) != 0) die(out, &err);
    timed += now_seconds() - t;
    cpu += cpu_seconds() - c;
  }
  double t = now_seconds(), c = cpu_seconds();
  if (inlet_parquet_writer_close(w, &err) != 0) die(out, &err);
  timed += now_seconds() - t;
  cpu += cpu_seconds() - c;
  int64_t bytes = inlet_parquet_writer_bytes(w);
  inlet_parquet_writer_free(w);
  inlet_batch_reset(&batch);
  inlet_schema_reset(&schema);
  printf("{\"side\":\"inlet\",\"op\":\"write\",\"shape\":\"%s\",\"codec\":\"%s\","
         "\"int_encoding\":\"%s\",\"rows\":%" PRId64 ",\"seconds\":%.6f,\"cpu_seconds\":%.6f,"
         "\"bytes\":%" PRId64 ",\"max_rss_kb\":%ld}\n",
         flat ? "flat" : "nested", codec, ienc, rows, timed, cpu, bytes, max_rss_kb());
  return 0;
}

static int64_t str_bytes(const inlet_array *a, int64_t n) {
  return n ? (int64_t)a->offsets[n] - a->offsets[0] : 0;
}

/* Sums over the non-null values of a string array (nulls have no bytes). */
static int cmd_scan(const char *path) {
  inlet_error err = INLET_ERROR_INIT;
  double t0 = now_seconds(), c0 = cpu_seconds();
  inlet_parquet_reader *r = NULL;
  if (inlet_parquet_reader_open(&r, path, NULL, &err) != 0) die(path, &err);
  int64_t rows = 0, sum_size = 0, sum_mtime = 0, path_len = 0, pv_entries = 0, pv_len = 0;
  int64_t data_change = 0, stats_len = 0, tags = 0, tag_entries = 0, tag_len = 0;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int32_t n_rg = inlet_parquet_reader_num_row_groups(r);
  for (int32_t rg = 0; rg < n_rg; rg++) {
    if (inlet_parquet_reader_read_row_group(r, rg, &b, &err) != 0) die(path, &err);
    if (b.schema.n_fields < 1 || b.columns[0].n_children != 7) {
      fprintf(stderr, "nested_bench: %s is not add-shaped\n", path);
      return 1;
    }
    int64_t n = b.num_rows;
    const inlet_array *c = b.columns[0].children;
    path_len += str_bytes(&c[0], n);
    pv_entries += c[1].offsets[n] - c[1].offsets[0];
    pv_len += str_bytes(&c[1].children[0].children[1], c[1].children[0].length);
    const int64_t *size = (const int64_t *)c[2].values;
    const int64_t *mt = (const int64_t *)c[3].values;
    const uint8_t *dc = (const uint8_t *)c[4].values;
    for (int64_t i = 0; i < n; i++) {
      sum_size += size[i];
      sum_mtime += mt[i];
      data_change += (dc[i >> 3] >> (i & 7)) & 1;
    }
    stats_len += str_bytes(&c[5], n);
    tags += n - c[6].null_count;
    tag_entries += c[6].offsets[n] - c[6].offsets[0];
    tag_len += str_bytes(&c[6].children[0].children[1], c[6].children[0].length);
    rows += n;
  }
  double secs = now_seconds() - t0, cpu = cpu_seconds() - c0;
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
  printf("{\"side\":\"inlet\",\"op\":\"scan\",\"file\":\"%s\",\"rows\":%" PRId64
         ",\"seconds\":%.6f,\"cpu_seconds\":%.6f,\"check\":\"%" PRId64 ",%" PRId64 ",%" PRId64
         ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
         "\",\"max_rss_kb\":%ld}\n",
         path, rows, secs, cpu, sum_size, sum_mtime, path_len, pv_entries, pv_len, data_change,
         stats_len, tags, tag_entries, tag_len, max_rss_kb());
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "write") == 0) return cmd_write(argc - 2, argv + 2, false);
  if (argc >= 2 && strcmp(argv[1], "flat") == 0) return cmd_write(argc - 2, argv + 2, true);
  if (argc == 3 && strcmp(argv[1], "scan") == 0) return cmd_scan(argv[2]);
  fprintf(stderr, "usage: nested_bench write|flat --out F [--codec C] [--rows N]\n"
                  "                    [--row-group-rows R] [--int-encoding auto|plain|delta]\n"
                  "       nested_bench scan F\n");
  return 2;
}
