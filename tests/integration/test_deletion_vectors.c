/*
 * Deletion vectors through the inlet binary (issue 16 §1), on a table built
 * here: a data file of 12 row groups of 250 rows in pages of 40 (inlet's
 * Parquet writer, with a page index), then a commit that re-adds it with a deletion vector whose
 * rows are chosen here (every seventh id, a block spanning row groups, the
 * last row), serialized with CRoaring and framed and checksummed as
 * PROTOCOL.md's "Deletion Vector File Storage Format" says. The expected
 * rows are computed from that choice alone. Checked: full scans, filters
 * that skip row groups and pages, limits, time travel to the version before
 * the DV, the same file with an inline DV (version 2) and with the first DV
 * named by an absolute path (version 3), refcheck's reading of the same
 * table at every version, and maintenance of it (append, vacuum,
 * checkpoint, compaction) applying and keeping the DVs.
 */
#include "testutil.h"

#include "inlet/batch.h"
#include "inlet/parquet.h"

#include <jansson.h>
#include <roaring/roaring.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define ROWS 3000
/* PROTOCOL.md "JSON Example 1": this pathOrInlineDv names
 * ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin. */
#define DV_PATH "ab^-aqEH.-t@S}K{vb[*k^"
#define DV_FILE "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin"

typedef struct fixture {
  char dir[4096];
  char table[4200];
} fixture;

static bool deleted(int64_t id) {
  return id % 7 == 0 || (id >= 1000 && id < 1500) || id == ROWS - 1;
}

/* Version 2's inline DV: PROTOCOL.md's example. */
static bool deleted_inline(int64_t id) {
  return id == 3 || id == 4 || id == 7 || id == 11 || id == 18 || id == 29;
}

static bool use_inline;

static void sh(tu_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sh(tu_result *r, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  assert_int_equal(tu_sh(r, "%s", cmd), 0);
  free(cmd);
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

static void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static void put_be32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* Writes the DV file; returns the bitmap's size (sizeInBytes). */
static size_t write_dv_file(const char *table, int64_t *cardinality) {
  roaring_bitmap_t *bm = roaring_bitmap_create();
  for (int64_t id = 0; id < ROWS; id++)
    if (deleted(id)) roaring_bitmap_add(bm, (uint32_t)id);
  roaring_bitmap_run_optimize(bm); /* the block becomes a run container */
  *cardinality = (int64_t)roaring_bitmap_get_cardinality(bm);
  size_t rb = roaring_bitmap_portable_size_in_bytes(bm);
  size_t n = 4 + 8 + 4 + rb;
  uint8_t *file = calloc(1, 1 + 4 + n + 4);
  file[0] = 1; /* format version */
  put_be32(file + 1, (uint32_t)n);
  uint8_t *b = file + 5;
  put_le32(b, 1681511377u); /* magic */
  put_le32(b + 4, 1);       /* one bucket (64-bit count, low half) */
  put_le32(b + 12, 0);      /* its key */
  roaring_bitmap_portable_serialize(bm, (char *)b + 16);
  put_be32(b + n, (uint32_t)crc32(0L, b, (uInt)n));
  roaring_bitmap_free(bm);
  char dir[4300], path[4400];
  snprintf(dir, sizeof dir, "%s/ab", table);
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/%s", table, DV_FILE);
  assert_int_equal(tu_write_file(path, file, 1 + 4 + n + 4), 0);
  free(file);
  return n;
}

/* The inline DV of version 2: rows 3, 4, 7, 11, 18, 29 (PROTOCOL.md's
 * example rows) as a portable RoaringBitmapArray, Z85-encoded (ZeroMQ RFC
 * 32) after padding to a multiple of 4 bytes, as a deletionVector field. */
static void inline_dv(char *out, size_t cap) {
  static const char z85[] =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
  roaring_bitmap_t *bm = roaring_bitmap_create();
  for (int64_t id = 0; id < 64; id++)
    if (deleted_inline(id)) roaring_bitmap_add(bm, (uint32_t)id);
  uint8_t raw[256] = {0};
  put_le32(raw, 1681511377u);
  put_le32(raw + 4, 1);
  size_t n = 16 + roaring_bitmap_portable_serialize(bm, (char *)raw + 16);
  roaring_bitmap_free(bm);
  char text[400];
  size_t t = 0;
  for (size_t i = 0; i < (n + 3) / 4 * 4; i += 4) {
    uint32_t v = (uint32_t)raw[i] << 24 | (uint32_t)raw[i + 1] << 16 | (uint32_t)raw[i + 2] << 8 |
                 raw[i + 3];
    for (int k = 4; k >= 0; k--) {
      text[t + (size_t)k] = z85[v % 85];
      v /= 85;
    }
    t += 5;
  }
  text[t] = '\0';
  snprintf(out, cap,
           ",\"deletionVector\":{\"storageType\":\"i\",\"pathOrInlineDv\":\"%s\","
           "\"sizeInBytes\":%zu,\"cardinality\":6}",
           text, n);
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("dv"));
  snprintf(f->table, sizeof f->table, "%s/t", f->dir);
  char log[4300], in[4300];
  snprintf(log, sizeof log, "%s/_delta_log", f->table);
  assert_int_equal(mkdir(f->table, 0755), 0);
  assert_int_equal(mkdir(log, 0755), 0);
  /* The data file: ROWS rows in row groups of 250 and pages of 40. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  assert_int_equal(inlet_schema_parse(&schema, "id long, s string", &err), 0);
  inlet_parquet_writer_options wo = INLET_PARQUET_WRITER_OPTIONS_INIT;
  wo.row_group_max_rows = 250;
  wo.page_max_rows = 40;
  snprintf(in, sizeof in, "%s/part-0.parquet", f->table);
  inlet_parquet_writer *w = NULL;
  assert_int_equal(inlet_parquet_writer_open(&w, in, &schema, &wo, &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &schema, &err), 0);
  for (int64_t id = 0; id < ROWS; id++) {
    char s[32];
    int n = snprintf(s, sizeof s, "v%lld", (long long)id);
    assert_int_equal(inlet_array_append_int(&b.columns[0], &schema.fields[0], id, &err), 0);
    assert_int_equal(inlet_array_append_bytes(&b.columns[1], &schema.fields[1], s, (size_t)n, &err),
                     0);
  }
  b.num_rows = ROWS;
  assert_int_equal(inlet_parquet_writer_write(w, &b, &err), 0);
  assert_int_equal(inlet_parquet_writer_close(w, &err), 0);
  inlet_parquet_writer_free(w);
  inlet_batch_reset(&b);
  inlet_schema_reset(&schema);
  tu_result r;
  sh(&r, "'%s' parquet meta '%s/part-0.parquet' --json", INLET_BIN, f->table);
  sh_ok(&r, "parquet meta");
  json_t *meta = json_loads(r.out, 0, NULL);
  json_t *rgs = json_object_get(meta, "row_groups");
  if (json_array_size(rgs) != ROWS / 250) fail_msg("want several row groups: %s", r.out);
  json_decref(meta);
  tu_result_free(&r);
  struct stat st;
  char data[4300];
  snprintf(data, sizeof data, "%s/part-0.parquet", f->table);
  assert_int_equal(stat(data, &st), 0);
  int64_t card = 0;
  size_t dv_size = write_dv_file(f->table, &card);
  char commit[16384], path[4400];
#define ADD_FMT                                                                                    \
  "{\"add\":{\"path\":\"part-0.parquet\",\"partitionValues\":{},\"size\":%lld,"                    \
  "\"modificationTime\":1700000000000,\"dataChange\":%s,"                                          \
  "\"stats\":\"{\\\"numRecords\\\":%d,\\\"tightBounds\\\":%s}\"%s}}\n"
  char add0[1024], add1[2048], dv[512];
  snprintf(add0, sizeof add0, ADD_FMT, (long long)st.st_size, "true", ROWS, "true", "");
  snprintf(dv, sizeof dv,
           ",\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"%s\",\"offset\":1,"
           "\"sizeInBytes\":%zu,\"cardinality\":%lld}",
           DV_PATH, dv_size, (long long)card);
  snprintf(add1, sizeof add1, ADD_FMT, (long long)st.st_size, "true", ROWS, "false", dv);
  snprintf(commit, sizeof commit,
           "{\"commitInfo\":{\"timestamp\":1700000000000,\"operation\":\"WRITE\"}}\n"
           "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
           "[\"deletionVectors\"],\"writerFeatures\":[\"deletionVectors\"]}}\n"
           "{\"metaData\":{\"id\":\"dv-test\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
           "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":"
           "\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
           "{\\\"name\\\":\\\"s\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,"
           "\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":"
           "{\"delta.enableDeletionVectors\":\"true\"},\"createdTime\":1700000000000}}\n%s",
           add0);
  snprintf(path, sizeof path, "%s/00000000000000000000.json", log);
  assert_int_equal(tu_write_file(path, commit, strlen(commit)), 0);
  snprintf(commit, sizeof commit,
           "{\"commitInfo\":{\"timestamp\":1700000001000,\"operation\":\"DELETE\"}}\n"
           "{\"remove\":{\"path\":\"part-0.parquet\",\"deletionTimestamp\":1700000001000,"
           "\"dataChange\":true,\"extendedFileMetadata\":true,\"partitionValues\":{},"
           "\"size\":%lld}}\n%s",
           (long long)st.st_size, add1);
  snprintf(path, sizeof path, "%s/00000000000000000001.json", log);
  assert_int_equal(tu_write_file(path, commit, strlen(commit)), 0);
  /* Version 2: the file's DV replaced by an inline one (rows 3, 4, 7, 11,
   * 18, 29); version 3: the first DV again, named
   * by an absolute path ('p'). Each remove names the DV it retires. */
  char add2[2048], add3[10000], rm1[2048], rm2[2048], dvp[8800];
  char dvi[1024];
  inline_dv(dvi, sizeof dvi);
  snprintf(add2, sizeof add2, ADD_FMT, (long long)st.st_size, "true", ROWS, "false", dvi);
  snprintf(dvp, sizeof dvp,
           ",\"deletionVector\":{\"storageType\":\"p\",\"pathOrInlineDv\":\"file://%s/%s\","
           "\"offset\":1,\"sizeInBytes\":%zu,\"cardinality\":%lld}",
           f->table, DV_FILE, dv_size, (long long)card);
  snprintf(add3, sizeof add3, ADD_FMT, (long long)st.st_size, "true", ROWS, "false", dvp);
#define RM_FMT                                                                                     \
  "{\"remove\":{\"path\":\"part-0.parquet\",\"deletionTimestamp\":%lld,\"dataChange\":true,"       \
  "\"extendedFileMetadata\":true,\"partitionValues\":{},\"size\":%lld%s}}\n"
  snprintf(rm1, sizeof rm1, RM_FMT, 1700000002000LL, (long long)st.st_size, dv);
  snprintf(rm2, sizeof rm2, RM_FMT, 1700000003000LL, (long long)st.st_size, dvi);
  snprintf(commit, sizeof commit,
           "{\"commitInfo\":{\"timestamp\":1700000002000,\"operation\":\"DELETE\"}}\n%s%s", rm1,
           add2);
  snprintf(path, sizeof path, "%s/00000000000000000002.json", log);
  assert_int_equal(tu_write_file(path, commit, strlen(commit)), 0);
  snprintf(commit, sizeof commit,
           "{\"commitInfo\":{\"timestamp\":1700000003000,\"operation\":\"DELETE\"}}\n%s%s", rm2,
           add3);
  snprintf(path, sizeof path, "%s/00000000000000000003.json", log);
  assert_int_equal(tu_write_file(path, commit, strlen(commit)), 0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

/* The ids a scan prints (csv, one column), in output order. */
static char *scan_ids(const fixture *f, const char *args) {
  tu_result r;
  sh(&r, "'%s' scan '%s' --columns id --format csv %s | tail -n +2", INLET_BIN, f->table, args);
  sh_ok(&r, args);
  char *out = strdup(r.out);
  tu_result_free(&r);
  return out;
}

/* The ids in [lo, hi) that the DV leaves, at most @p limit, one a line. */
static char *expected_ids(int64_t lo, int64_t hi, int64_t limit, bool apply_dv) {
  size_t cap = 16 * ROWS + 1, n = 0;
  char *out = calloc(1, cap);
  int64_t k = 0;
  for (int64_t id = lo; id < hi && k < limit; id++)
    if (!apply_dv || !(use_inline ? deleted_inline(id) : deleted(id))) {
      n += (size_t)snprintf(out + n, cap - n, "%lld\n", (long long)id);
      k++;
    }
  return out;
}

static void expect_ids(const fixture *f, const char *args, int64_t lo, int64_t hi, int64_t limit,
                       bool apply_dv) {
  char *got = scan_ids(f, args), *want = expected_ids(lo, hi, limit, apply_dv);
  if (strcmp(got, want) != 0) {
    size_t i = 0;
    while (got[i] && got[i] == want[i])
      i++;
    fail_msg("scan %s: output differs at byte %zu: got \"%.40s\", want \"%.40s\"", args, i, got + i,
             want + i);
  }
  free(got);
  free(want);
}

static void test_dv__scans_drop_exactly_the_deleted_rows(void **state) {
  fixture *f = *state;
  expect_ids(f, "", 0, ROWS, ROWS, true);
  /* Filters that skip row groups and pages keep the row indexes right. */
  expect_ids(f, "--where 'id >= 1200 and id < 1600'", 1200, 1600, ROWS, true);
  expect_ids(f, "--where 'id >= 2990'", 2990, ROWS, ROWS, true);
  expect_ids(f, "--where 'id < 20'", 0, 20, ROWS, true);
  /* Limits read slice by slice. */
  expect_ids(f, "--limit 5", 0, ROWS, 5, true);
  expect_ids(f, "--where 'id >= 995' --limit 9", 995, ROWS, 9, true);
  /* Version 0, before the DELETE: every row; version 1, the same DV as
   * version 3 ('u' there, 'p' here); version 2, the inline DV. */
  expect_ids(f, "--version 0", 0, ROWS, ROWS, false);
  expect_ids(f, "--version 1", 0, ROWS, ROWS, true);
  use_inline = true;
  expect_ids(f, "--version 2", 0, ROWS, ROWS, true);
  expect_ids(f, "--version 2 --where 'id < 40'", 0, 40, ROWS, true);
  use_inline = false;
  /* The string column comes through the same filter. */
  tu_result r;
  sh(&r, "'%s' scan '%s' --where 'id = 1501 or id = 1500 or id = 1499' --format csv", INLET_BIN,
     f->table);
  sh_ok(&r, "scan strings");
  assert_string_equal(r.out, "id,s\n1500,v1500\n1501,v1501\n");
  tu_result_free(&r);
}

static void test_dv__refcheck_reads_the_same_rows(void **state) {
  fixture *f = *state;
  tu_result r;
  for (int v = 0; v <= 3; v++) {
    sh(&r,
       "'%s' scan '%s' --version %d --format ndjson > '%s/inlet.ndjson' && "
       "{ '%s' '%s' delta '%s' --version %d > '%s/ref.json' || { cat '%s/ref.json' >&2; false; }; "
       "} && "
       "'%s' '%s' compare '%s/ref.json' '%s/inlet.ndjson' --ndjson",
       INLET_BIN, f->table, v, f->dir, INLET_NODE, INLET_REFCHECK, f->table, v, f->dir, f->dir,
       INLET_NODE, INLET_REFCHECK, f->dir, f->dir);
    sh_ok(&r, "refcheck compare");
    tu_result_free(&r);
  }
}

/* refcheck reads version @p v of @p table as inlet does. */
static void refcheck_version(const fixture *f, const char *table, int64_t v) {
  tu_result r;
  sh(&r,
     "'%s' scan '%s' --version %lld --format ndjson > '%s/inlet.ndjson' && "
     "{ '%s' '%s' delta '%s' --version %lld > '%s/ref.json' || { cat '%s/ref.json' >&2; false; }; "
     "} && '%s' '%s' compare '%s/ref.json' '%s/inlet.ndjson' --ndjson",
     INLET_BIN, table, (long long)v, f->dir, INLET_NODE, INLET_REFCHECK, table, (long long)v,
     f->dir, f->dir, INLET_NODE, INLET_REFCHECK, f->dir, f->dir);
  sh_ok(&r, "refcheck compare");
  tu_result_free(&r);
}

static bool exists(const fixture *f, const char *rel) {
  char p[8800];
  snprintf(p, sizeof p, "%s/%s", f->table, rel);
  struct stat st;
  return stat(p, &st) == 0;
}

static void run_ok(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_ok(const char *what, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  tu_result r;
  sh(&r, "'%s' %s", INLET_BIN, cmd);
  sh_ok(&r, what);
  tu_result_free(&r);
  free(cmd);
}

/* Maintenance on a table whose live file carries a DV (issue 16 §2):
 * appends land beside it; vacuum keeps the DV file a live file names
 * (here through a 'p' path, while old removes name it through 'u') and
 * deletes an unreferenced old one; a checkpoint carries the descriptor
 * (without the commits before it, the table reads the same rows); compaction
 * drops the deleted rows, writes no DV and its remove carries the file's
 * DV; vacuum then deletes the retired data and DV files; every version
 * still on disk reads as refcheck reads it. */
static void test_dv__maintenance_applies_and_keeps_deletion_vectors(void **state) {
  fixture *f = *state;
  char ev[4300];
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  const char *rows = "{\"id\":5000,\"s\":\"x\"}\n{\"id\":5001,\"s\":\"y\"}\n";
  assert_int_equal(tu_write_file(ev, rows, strlen(rows)), 0);
  run_ok("append", "append '%s' '%s'", f->table, ev); /* version 4 */
  char *want = expected_ids(0, ROWS, ROWS, true), *want2 = NULL;
  assert_true(asprintf(&want2, "%s5000\n5001\n", want) > 0);
  char *got = scan_ids(f, "");
  assert_string_equal(got, want2);
  free(got);
  /* An unreferenced DV file a day old goes; the live one stays. */
  tu_result r;
  sh(&r,
     "cd '%s' && printf junk > deletion_vector_00000000-0000-0000-0000-000000000001.bin && "
     "touch -d '2 days ago' deletion_vector_00000000-0000-0000-0000-000000000001.bin",
     f->table);
  tu_result_free(&r);
  run_ok("vacuum", "vacuum '%s' --retain 24h --force", f->table);
  assert_true(exists(f, DV_FILE));
  assert_false(exists(f, "deletion_vector_00000000-0000-0000-0000-000000000001.bin"));
  got = scan_ids(f, "");
  assert_string_equal(got, want2);
  free(got);
  /* The checkpoint of version 4 holds the descriptor: with the commits
   * before it moved aside, the table reads the DV from it. */
  run_ok("checkpoint", "checkpoint '%s'", f->table);
  sh(&r,
     "mkdir '%s/aside' && mv '%s/_delta_log/0000000000000000000'[0-3].json '%s/aside' && "
     "'%s' scan '%s' --columns id --format csv > '%s/cp.csv'; rc=$?; "
     "mv '%s/aside/'* '%s/_delta_log/' && [ $rc = 0 ] && tail -n +2 '%s/cp.csv'",
     f->dir, f->table, f->dir, INLET_BIN, f->table, f->dir, f->dir, f->table, f->dir);
  sh_ok(&r, "scan from the checkpoint");
  assert_string_equal(r.out, want2);
  tu_result_free(&r);
  /* Compaction applies the DV. */
  run_ok("compact", "compact '%s' --min-files 1", f->table); /* version 5 */
  got = scan_ids(f, "");
  assert_string_equal(got, want2);
  free(got);
  sh(&r, "cat '%s/_delta_log/00000000000000000005.json'", f->table);
  json_error_t je;
  int n_rm = 0, n_add = 0;
  for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *a = json_loads(line, 0, &je);
    assert_non_null(a);
    json_t *rm = json_object_get(a, "remove"), *ad = json_object_get(a, "add");
    if (rm && strcmp(json_string_value(json_object_get(rm, "path")), "part-0.parquet") == 0) {
      json_t *dv = json_object_get(rm, "deletionVector");
      assert_non_null(dv);
      assert_string_equal(json_string_value(json_object_get(dv, "storageType")), "p");
      n_rm++;
    }
    if (ad) {
      assert_null(json_object_get(ad, "deletionVector"));
      json_t *st = json_loads(json_string_value(json_object_get(ad, "stats")), 0, &je);
      json_int_t lines = 0;
      for (const char *c = want2; *c; c++)
        lines += *c == '\n';
      assert_int_equal(json_integer_value(json_object_get(st, "numRecords")), lines);
      json_decref(st);
      n_add++;
    }
    json_decref(a);
  }
  tu_result_free(&r);
  assert_int_equal(n_rm, 1);
  assert_int_equal(n_add, 1);
  for (int64_t v = 0; v <= 5; v++)
    refcheck_version(f, f->table, v);
  /* The retired data file and its DV file go; the table still reads. */
  run_ok("vacuum", "vacuum '%s' --retain 0h --force", f->table);
  assert_false(exists(f, DV_FILE));
  assert_false(exists(f, "part-0.parquet"));
  got = scan_ids(f, "");
  assert_string_equal(got, want2);
  free(got);
  refcheck_version(f, f->table, 5);
  free(want);
  free(want2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_dv__scans_drop_exactly_the_deleted_rows, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_dv__refcheck_reads_the_same_rows, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dv__maintenance_applies_and_keeps_deletion_vectors,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
