/*
 * Issue 11, section 4 (data files every Spark 3.x reads), proved by an
 * independent reader: DuckDB's parquet_metadata() lists the encodings of
 * every column chunk of every data file and checkpoint that a representative
 * set of tables holds after the commands that write them (create, append
 * with each codec, partitioned appends, compaction, automatic and explicit
 * checkpoints, ingest), and any encoding outside PLAIN, PLAIN_DICTIONARY,
 * RLE_DICTIONARY, RLE and BIT_PACKED fails the test. A table created with
 * inlet.parquet.encodings=extended does get DELTA_BINARY_PACKED and
 * BYTE_STREAM_SPLIT in its data files (so the check can see them) and still
 * plain encodings in its checkpoints; `inlet parquet convert` and
 * `inlet scan --output` follow the same default, and --encodings extended
 * opts in.
 */
#include "testutil.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  char dir[4096];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("spark-safe-enc"));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Runs the shell command @p fmt (printf-style) and fails the test unless it
 * exits 0. */
static void run_ok(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_ok(const char *what, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  tu_result r;
  assert_int_equal(tu_sh(&r, "%s", cmd), 0);
  free(cmd);
  sh_ok(&r, what);
  tu_result_free(&r);
}

static const char *SCHEMA =
    "id long not null, user string, amount double, ratio float, n int, "
    "event_time timestamp, local timestamp_ntz, day date, ok boolean, price decimal(12,2), "
    "big decimal(30,3), loc struct<lat:double,lon:double>, tags array<long>";

/* @p n events from id @p first: sorted ids and event times, 1,000 users,
 * high-cardinality amounts and ratios (what the extended encodings turn
 * into DELTA_BINARY_PACKED and BYTE_STREAM_SPLIT), @p days distinct days. */
static void write_events(const char *path, int64_t first, int64_t n, int days) {
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  for (int64_t i = first; i < first + n; i++) {
    uint64_t h = ((uint64_t)i * 2654435761u) & 0xffffffffu;
    fprintf(fp,
            "{\"id\":%lld,\"user\":\"user_%u\",\"amount\":%llu.%02u,\"ratio\":%u.%03u,"
            "\"n\":%d,\"event_time\":\"2024-03-%02dT%02d:%02d:%02d.%06uZ\","
            "\"local\":\"2024-03-01T00:00:%02d\",\"day\":\"2024-03-%02d\",\"ok\":%s,"
            "\"price\":%u.%02u,\"big\":%llu.125,\"loc\":{\"lat\":%u.%04u,\"lon\":-%u.5},"
            "\"tags\":[%lld,%u]}\n",
            (long long)i, (unsigned)((h >> 8) % 1000), (unsigned long long)((h >> 4) % 100000),
            (unsigned)(h % 100), (unsigned)(h % 7), (unsigned)((h >> 3) % 1000), (int)(i % 5),
            1 + (int)((i / 1000) % (days > 0 ? days : 1)), (int)((i / 3600) % 24),
            (int)((i / 60) % 60), (int)(i % 60), (unsigned)(h % 1000000), (int)(i % 60),
            1 + (int)(i % (days > 0 ? days : 1)), i % 3 ? "true" : "false", (unsigned)(h % 5000),
            (unsigned)(h % 100), (unsigned long long)h * 1000ull, (unsigned)(h % 90),
            (unsigned)(h % 10000), (unsigned)(h % 180), (long long)i, (unsigned)(h % 10));
  }
  assert_int_equal(fclose(fp), 0);
}

/* The Parquet files below @p dir, newline-separated and shell-quoted, in
 * *out (malloc'd); returns how many. */
static int list_parquet(const char *dir, char **out) {
  tu_result r;
  assert_int_equal(tu_sh(&r, "find '%s' -name '*.parquet' -type f | sort", dir), 0);
  sh_ok(&r, "find");
  int n = 0;
  size_t cap = r.out_len * 2 + 16;
  char *q = malloc(cap);
  size_t len = 0;
  q[0] = '\0';
  for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
    len += (size_t)snprintf(q + len, cap - len, " '%s'", line);
    n++;
  }
  tu_result_free(&r);
  *out = q;
  return n;
}

static bool spark_safe(const char *enc) {
  static const char *const ok[] = {"PLAIN", "PLAIN_DICTIONARY", "RLE_DICTIONARY", "RLE",
                                   "BIT_PACKED"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (strcmp(enc, ok[i]) == 0) return true;
  return false;
}

typedef struct enc_report {
  int files;    /* files DuckDB read whole */
  int chunks;   /* column chunks listed */
  int data_bad; /* chunks of data files with an encoding outside the safe set */
  int ckpt_bad; /* the same in checkpoints */
  int delta;    /* chunks listing DELTA_BINARY_PACKED */
  int split;    /* chunks listing BYTE_STREAM_SPLIT */
  int ckpts;    /* checkpoint files among the files */
  char first_bad[512];
} enc_report;

/* Runs DuckDB over every Parquet file below @p dir and tallies encodings. */
static void duckdb_encodings(const char *dir, enc_report *rep) {
  memset(rep, 0, sizeof *rep);
  char *files = NULL;
  int n = list_parquet(dir, &files);
  assert_true(n > 0);
  tu_result r;
  assert_int_equal(tu_sh(&r, "'%s' '%s/tests/integration/conformance_encodings.mjs'%s", INLET_NODE,
                         INLET_SOURCE_DIR, files),
                   0);
  free(files);
  sh_ok(&r, "conformance_encodings.mjs (DuckDB)");
  for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
    if (strncmp(line, "rows\t", 5) == 0) {
      rep->files++;
      continue;
    }
    char *file = line, *t1 = strchr(line, '\t');
    assert_non_null(t1);
    *t1 = '\0';
    char *t2 = strchr(t1 + 1, '\t');
    assert_non_null(t2);
    char *t3 = strchr(t2 + 1, '\t');
    assert_non_null(t3);
    *t3 = '\0';
    const char *col = t2 + 1;
    bool ckpt = strstr(file, "/_delta_log/") != NULL;
    rep->chunks++;
    bool bad = false;
    char encs[512];
    snprintf(encs, sizeof encs, "%s", t3 + 1);
    char *save = NULL;
    assert_true(encs[0] != '\0');
    for (char *e = strtok_r(encs, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
      if (!spark_safe(e)) bad = true;
      if (strcmp(e, "DELTA_BINARY_PACKED") == 0) rep->delta++;
      if (strcmp(e, "BYTE_STREAM_SPLIT") == 0) rep->split++;
    }
    if (bad) {
      if (ckpt)
        rep->ckpt_bad++;
      else
        rep->data_bad++;
      if (!rep->first_bad[0])
        snprintf(rep->first_bad, sizeof rep->first_bad, "%s column %s: %s", file, col, t3 + 1);
    }
  }
  tu_result_free(&r);
  assert_int_equal(rep->files, n);
  tu_result c;
  assert_int_equal(tu_sh(&c, "find '%s' -name '*.checkpoint*.parquet' 2>/dev/null | wc -l", dir),
                   0);
  rep->ckpts = atoi(c.out);
  tu_result_free(&c);
}

static void expect_spark_safe(const char *dir, int min_files, int min_ckpts) {
  enc_report rep;
  duckdb_encodings(dir, &rep);
  if (rep.data_bad || rep.ckpt_bad)
    fail_msg("%s: %d data and %d checkpoint column chunks use an encoding Spark < 3.3 cannot "
             "read, e.g. %s",
             dir, rep.data_bad, rep.ckpt_bad, rep.first_bad);
  assert_int_equal(rep.delta, 0);
  assert_int_equal(rep.split, 0);
  if (rep.files < min_files)
    fail_msg("%s: %d Parquet files, expected >= %d", dir, rep.files, min_files);
  if (rep.ckpts < min_ckpts)
    fail_msg("%s: %d checkpoints, expected >= %d", dir, rep.ckpts, min_ckpts);
}

/* Flat and nested columns of every primitive kind, appended with each
 * codec (BYTE_STREAM_SPLIT would need one), checkpointed every 2 commits and
 * explicitly. */
static void test_spark_safe__appended_table_every_codec(void **state) {
  fixture *f = *state;
  char t[4200], ev[4200];
  snprintf(t, sizeof t, "%s/flat", f->dir);
  run_ok("create", "'%s' create '%s' --schema '%s' --property delta.checkpointInterval=2",
         INLET_BIN, t, SCHEMA);
  static const char *const codecs[] = {"zstd", "snappy", "gzip", "none", "lz4_raw"};
  for (int i = 0; i < 5; i++) {
    snprintf(ev, sizeof ev, "%s/ev%d.ndjson", f->dir, i);
    write_events(ev, (int64_t)i * 6000, 6000, 1);
    run_ok("append", "'%s' append '%s' '%s' --compression %s", INLET_BIN, t, ev, codecs[i]);
  }
  run_ok("checkpoint", "'%s' checkpoint '%s'", INLET_BIN, t);
  expect_spark_safe(t, 6, 3);
}

/* Partitioned appends, then compaction (which writes the table's files
 * again) and a checkpoint of the result. */
static void test_spark_safe__partitioned_and_compacted(void **state) {
  fixture *f = *state;
  char t[4200], ev[4200];
  snprintf(t, sizeof t, "%s/part", f->dir);
  run_ok("create", "'%s' create '%s' --schema '%s' --partition-by day", INLET_BIN, t, SCHEMA);
  for (int i = 0; i < 6; i++) {
    snprintf(ev, sizeof ev, "%s/p%d.ndjson", f->dir, i);
    write_events(ev, (int64_t)i * 3000, 3000, 3);
    run_ok("append", "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  }
  run_ok("compact", "'%s' compact '%s' --min-files 2", INLET_BIN, t);
  tu_result r;
  assert_int_equal(tu_sh(&r, "'%s' history '%s' --json", INLET_BIN, t), 0);
  sh_ok(&r, "history");
  assert_non_null(strstr(r.out, "OPTIMIZE"));
  tu_result_free(&r);
  run_ok("checkpoint", "'%s' checkpoint '%s'", INLET_BIN, t);
  /* 6 appends x 3 days, 3 compacted files, 1 checkpoint. */
  expect_spark_safe(t, 18 + 3 + 1, 1);
}

/* `inlet ingest` from a file in several micro-batches, with the table's
 * automatic checkpoints. */
static void test_spark_safe__ingested(void **state) {
  fixture *f = *state;
  char t[4200], ev[4200];
  snprintf(t, sizeof t, "%s/ingested", f->dir);
  snprintf(ev, sizeof ev, "%s/stream.ndjson", f->dir);
  write_events(ev, 0, 12000, 2);
  run_ok("create", "'%s' create '%s' --schema '%s' --property delta.checkpointInterval=2",
         INLET_BIN, t, SCHEMA);
  tu_result r;
  assert_int_equal(tu_sh(&r, "'%s' ingest '%s' --source 'file:%s' --once --max-rows 3000 --quiet",
                         INLET_BIN, t, ev),
                   0);
  sh_ok(&r, "ingest");
  tu_result_free(&r);
  expect_spark_safe(t, 4, 2);
}

/* inlet.parquet.encodings=extended: the data files (appended and compacted)
 * carry DELTA_BINARY_PACKED and BYTE_STREAM_SPLIT, DuckDB reads them, and
 * the checkpoints stay on the safe set. A bad value is refused at create. */
static void test_spark_safe__extended_only_when_the_table_asks(void **state) {
  fixture *f = *state;
  char t[4200], ev[4200];
  snprintf(t, sizeof t, "%s/extended", f->dir);
  run_ok("create",
         "'%s' create '%s' --schema '%s' --property inlet.parquet.encodings=extended "
         "--property delta.checkpointInterval=2",
         INLET_BIN, t, SCHEMA);
  for (int i = 0; i < 3; i++) {
    snprintf(ev, sizeof ev, "%s/x%d.ndjson", f->dir, i);
    write_events(ev, (int64_t)i * 6000, 6000, 1);
    run_ok("append", "'%s' append '%s' '%s' --compression zstd", INLET_BIN, t, ev);
  }
  run_ok("compact", "'%s' compact '%s' --min-files 2", INLET_BIN, t);
  enc_report rep;
  duckdb_encodings(t, &rep);
  assert_true(rep.ckpts >= 1);
  if (rep.ckpt_bad) fail_msg("checkpoint of an extended table: %s", rep.first_bad);
  assert_true(rep.data_bad > 0);
  assert_true(rep.delta > 0);
  assert_true(rep.split > 0);

  tu_result r;
  snprintf(t, sizeof t, "%s/bad", f->dir);
  assert_int_equal(tu_sh(&r,
                         "'%s' create '%s' --schema 'id long' --property "
                         "inlet.parquet.encodings=v2",
                         INLET_BIN, t),
                   0);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "inlet.parquet.encodings"));
  assert_non_null(strstr(r.err, "\"v2\""));
  tu_result_free(&r);
  assert_int_equal(tu_sh(&r, "test -e '%s/_delta_log/00000000000000000000.json'", t), 0);
  assert_int_not_equal(r.status, 0);
  tu_result_free(&r);
  assert_int_equal(tu_sh(&r,
                         "'%s' create '%s' --schema 'id long' --property "
                         "inlet.parquet.encoding=extended",
                         INLET_BIN, t),
                   0);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "inlet.parquet.encoding"));
  tu_result_free(&r);
}

/* The standalone writers follow the same default: `inlet parquet convert`
 * and `inlet scan --format parquet --output`; convert --encodings extended
 * opts in. */
static void test_spark_safe__standalone_writers_default_to_safe(void **state) {
  fixture *f = *state;
  char ev[4200], dir[4200], out[4300];
  snprintf(ev, sizeof ev, "%s/conv.ndjson", f->dir);
  write_events(ev, 0, 8000, 1);
  snprintf(dir, sizeof dir, "%s/standalone", f->dir);
  tu_result r;
  assert_int_equal(tu_sh(&r, "mkdir -p '%s'", dir), 0);
  tu_result_free(&r);
  snprintf(out, sizeof out, "%s/default.parquet", dir);
  run_ok("convert", "'%s' parquet convert '%s' '%s' --schema '%s' --compression zstd", INLET_BIN,
         ev, out, SCHEMA);
  /* A table to scan into a Parquet file. */
  char t[4200];
  snprintf(t, sizeof t, "%s/scanned", f->dir);
  run_ok("create", "'%s' create '%s' --schema '%s'", INLET_BIN, t, SCHEMA);
  run_ok("append", "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  snprintf(out, sizeof out, "%s/scan.parquet", dir);
  run_ok("scan", "'%s' scan '%s' --format parquet --output '%s'", INLET_BIN, t, out);
  expect_spark_safe(dir, 2, 0);

  snprintf(dir, sizeof dir, "%s/standalone-ext", f->dir);
  assert_int_equal(tu_sh(&r, "mkdir -p '%s'", dir), 0);
  tu_result_free(&r);
  snprintf(out, sizeof out, "%s/extended.parquet", dir);
  run_ok("convert --encodings extended",
         "'%s' parquet convert '%s' '%s' --schema '%s' --compression zstd --encodings extended",
         INLET_BIN, ev, out, SCHEMA);
  enc_report rep;
  duckdb_encodings(dir, &rep);
  assert_true(rep.delta > 0);
  assert_true(rep.split > 0);
  assert_int_equal(tu_sh(&r,
                         "'%s' parquet convert '%s' '%s/x.parquet' --schema 'id long' "
                         "--encodings v2",
                         INLET_BIN, ev, dir),
                   0);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--encodings"));
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_spark_safe__appended_table_every_codec, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spark_safe__partitioned_and_compacted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spark_safe__ingested, setup, teardown),
      cmocka_unit_test_setup_teardown(test_spark_safe__extended_only_when_the_table_asks, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_spark_safe__standalone_writers_default_to_safe, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
