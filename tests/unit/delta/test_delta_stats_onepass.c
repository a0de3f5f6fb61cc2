/*
 * Delta per-file statistics in one pass: the stats a data file's add action
 * carries are taken from the Parquet writer's own column statistics
 * (delta_stats_count per batch, delta_stats_take_parquet after close), the
 * way the data-file sink makes them. A wrong bound silently drops rows from
 * filtered scans, so the JSON must be byte-identical to what the
 * independent computation from the batches (delta_stats_add, the former
 * second pass, kept as the reference) gives for the same rows, under
 * writer settings that split the values into many pages and row groups,
 * dictionary and plain, on one thread and several. A few cases are also
 * checked against hand-written JSON.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>

#include "delta/delta.h"
#include "inlet/text.h"
#include "parquet/stats.h"
#include "util/util.h"

static char *g_dir;

static int setup(void **state) {
  (void)state;
  g_dir = tu_mkdtemp("stats1p");
  return g_dir ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(g_dir); /* g_dir is tu_mkdtemp's static buffer */
  return 0;
}

/* Writer settings the file is written under. */
enum { SET_DEFAULT, SET_SMALL_PAGES_PLAIN, SET_THREADS_EXTENDED_DICT_FALLBACK, N_SETTINGS };

static void settings(inlet_parquet_writer_options *po, int which) {
  inlet_parquet_writer_options d = INLET_PARQUET_WRITER_OPTIONS_INIT;
  *po = d;
  po->sync_on_close = false;
  switch (which) {
  case SET_SMALL_PAGES_PLAIN:
    po->dictionary = false;
    po->page_max_rows = 2;
    po->row_group_max_rows = 3;
    break;
  case SET_THREADS_EXTENDED_DICT_FALLBACK:
    po->threads = 2;
    po->encodings = INLET_PARQUET_ENCODINGS_EXTENDED;
    po->dictionary_page_bytes = 40;
    po->page_max_rows = 3;
    po->row_group_max_rows = 5;
    po->statistics_truncate = 4;
    break;
  default: break;
  }
}

static int bad_record(void *ctx, const inlet_text_bad_record *bad) {
  (void)ctx;
  fail_msg("test data record %lld: %s", (long long)bad->record, bad->reason);
  return 1;
}

typedef struct stats_pair {
  char *one_pass;  /* owned */
  char *reference; /* owned */
} stats_pair;

/*
 * Writes the NDJSON records of @p batches (each read as batches of at most
 * @p batch_rows rows) to a Parquet file of schema @p s under setting
 * @p which, and returns both stats JSONs.
 */
static stats_pair compute(const inlet_schema *s, const char *const *batches, int n_batches,
                          int64_t batch_rows, int32_t max_indexed, int which) {
  inlet_error err = INLET_ERROR_INIT;
  char path[512];
  static int seq;
  snprintf(path, sizeof path, "%s/f%d.parquet", g_dir, seq++);
  inlet_parquet_writer_options po;
  settings(&po, which);
  inlet_parquet_writer *pw = NULL;
  int rc = inlet_parquet_writer_open(&pw, path, s, &po, &err);
  if (rc < 0) fail_msg("writer open: %s", err.message);
  delta_stats_acc *one = NULL, *ref = NULL;
  assert_int_equal(delta_stats_new(&one, s, max_indexed, &err), 0);
  assert_int_equal(delta_stats_new(&ref, s, max_indexed, &err), 0);
  for (int i = 0; i < n_batches; i++) {
    inlet_text_reader_options ro = INLET_TEXT_READER_OPTIONS_INIT;
    ro.max_batch_rows = batch_rows;
    ro.strict = true;
    ro.on_bad_record = bad_record;
    inlet_text_reader *tr = NULL;
    assert_int_equal(
        inlet_text_reader_open_memory(&tr, batches[i], strlen(batches[i]), s, &ro, &err), 0);
    inlet_batch b;
    memset(&b, 0, sizeof b);
    for (;;) {
      rc = inlet_text_reader_next(tr, &b, &err);
      if (rc < 0) fail_msg("reading batch %d: %s", i, err.message);
      if (b.num_rows == 0) break;
      rc = inlet_parquet_writer_write(pw, &b, &err);
      if (rc < 0) fail_msg("write: %s", err.message);
      assert_int_equal(delta_stats_count(one, &b, &err), 0);
      assert_int_equal(delta_stats_add(ref, &b, NULL, b.num_rows, &err), 0);
    }
    inlet_text_reader_stats ts;
    inlet_text_reader_get_stats(tr, &ts);
    assert_int_equal(ts.bad_records, 0);
    inlet_batch_reset(&b);
    inlet_text_reader_free(tr);
  }
  rc = inlet_parquet_writer_close(pw, &err);
  if (rc < 0) fail_msg("close: %s", err.message);
  rc = delta_stats_take_parquet(one, pw, &err);
  if (rc < 0) fail_msg("take: %s", err.message);
  inlet_parquet_writer_free(pw);
  stats_pair out = {NULL, NULL};
  assert_int_equal(delta_stats_json(one, &out.one_pass, &err), 0);
  assert_int_equal(delta_stats_json(ref, &out.reference, &err), 0);
  assert_int_equal(delta_stats_rows(one), delta_stats_rows(ref));
  delta_stats_free(one);
  delta_stats_free(ref);
  return out;
}

/* Checks one-pass == reference under every setting and batch split, and
 * == @p expected (may be NULL) too. */
static void check(const inlet_schema *s, const char *const *batches, int n_batches,
                  int32_t max_indexed, const char *expected) {
  static const int64_t splits[] = {65536, 1, 2};
  for (int which = 0; which < N_SETTINGS; which++) {
    for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
      stats_pair p = compute(s, batches, n_batches, splits[k], max_indexed, which);
      if (strcmp(p.one_pass, p.reference) != 0)
        fail_msg("setting %d split %lld:\n one-pass  %s\n reference %s", which,
                 (long long)splits[k], p.one_pass, p.reference);
      if (expected && strcmp(p.one_pass, expected) != 0)
        fail_msg("setting %d split %lld:\n got      %s\n expected %s", which, (long long)splits[k],
                 p.one_pass, expected);
      inlet_free(p.one_pass);
      inlet_free(p.reference);
    }
  }
}

static void parse(inlet_schema *s, const char *ddl) {
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_schema_parse(s, ddl, &err) < 0) fail_msg("schema: %s", err.message);
}

/* ---- cases ------------------------------------------------------------------ */

static void test_onepass__integers_hand_checked(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "a int, b long, c tinyint, d smallint, e int");
  const char *const b[] = {"{\"a\":3,\"b\":-9000000000,\"c\":-128,\"d\":7,\"e\":null}\n"
                           "{\"a\":null,\"b\":5,\"c\":127,\"d\":-32768,\"e\":null}\n",
                           "{\"a\":-2147483648,\"b\":9000000000,\"c\":0,\"d\":32767,\"e\":null}\n"};
  check(&s, b, 2, 32,
        "{\"numRecords\":3,\"minValues\":{\"a\":-2147483648,\"b\":-9000000000,\"c\":-128,"
        "\"d\":-32768},\"maxValues\":{\"a\":3,\"b\":9000000000,\"c\":127,\"d\":32767},"
        "\"nullCount\":{\"a\":1,\"b\":0,\"c\":0,\"d\":0,\"e\":3}}");
  inlet_schema_reset(&s);
}

static void test_onepass__all_types(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "bo boolean, i8 tinyint, i16 smallint, i32 int, i64 long, f float, d double, "
            "s string, bin binary, dt date, ts timestamp, tsn timestamp_ntz, tms timestamp_ms, "
            "tns timestamp_ns, tsec timestamp_ms, d9 decimal(9,2), d18 decimal(18,4), "
            "d38 decimal(38,6), d20 decimal(20,0), d1 decimal(1,0), u8 uint8, u64 uint64, "
            "nothing long, j json");
  /* Seconds: DDL has no such type; the text reader converts to the unit. */
  s.fields[inlet_schema_find(&s, "tsec")].type.unit = INLET_UNIT_SECOND;
  const char *const b[] = {
      "{\"bo\":true,\"i8\":5,\"i16\":-5,\"i32\":100,\"i64\":-1,\"f\":1.5,\"d\":-2.25,"
      "\"s\":\"m\",\"bin\":\"00ff\",\"dt\":\"2024-02-29\",\"ts\":\"2024-01-01T00:00:00.123456Z\","
      "\"tsn\":\"1969-12-31T23:59:59.999999\",\"tms\":\"2001-01-01T01:01:01.001Z\","
      "\"tns\":\"1960-01-01T00:00:00.000000001Z\",\"tsec\":\"1970-01-01T00:00:01Z\","
      "\"d9\":\"-1234567.89\",\"d18\":\"12345678901234.5678\","
      "\"d38\":\"-12345678901234567890123456789012.123456\",\"d20\":\"-1\",\"d1\":-9,"
      "\"u8\":255,\"u64\":18446744073709551615,\"nothing\":null,\"j\":{\"x\":1}}\n"
      "{\"bo\":null,\"i8\":null,\"i16\":null,\"i32\":null,\"i64\":null,\"f\":null,\"d\":null,"
      "\"s\":null,\"bin\":null,\"dt\":null,\"ts\":null,\"tsn\":null,\"tms\":null,\"tns\":null,"
      "\"tsec\":null,\"d9\":null,\"d18\":null,\"d38\":null,\"d20\":null,\"d1\":null,\"u8\":null,"
      "\"u64\":null,\"nothing\":null,\"j\":null}\n",
      "{\"bo\":false,\"i8\":-7,\"i16\":300,\"i32\":-100,\"i64\":4,\"f\":-0.5,\"d\":1e300,"
      "\"s\":\"\",\"bin\":\"\",\"dt\":\"0001-01-01\",\"ts\":\"1900-06-01T12:00:00.000999Z\","
      "\"tsn\":\"2100-01-01T00:00:00\",\"tms\":\"1950-01-01T00:00:00.999Z\","
      "\"tns\":\"2262-04-11T00:00:00.999999999Z\",\"tsec\":\"1930-05-05T05:05:05Z\","
      "\"d9\":\"9999999.99\",\"d18\":\"-0.0001\",\"d38\":\"99999999999999999999999999999999."
      "999999\","
      "\"d20\":\"99999999999999999999\",\"d1\":9,\"u8\":0,\"u64\":0,\"nothing\":null,"
      "\"j\":\"text\"}\n"
      "{\"bo\":true,\"i8\":0,\"i16\":0,\"i32\":0,\"i64\":0,\"f\":3.4028235e38,\"d\":-1e-300,"
      "\"s\":\"zz\",\"bin\":\"ab\",\"dt\":\"9999-12-31\",\"ts\":\"1970-01-01T00:00:00Z\","
      "\"tsn\":\"1970-01-01T00:00:00.0005\",\"tms\":\"1970-01-01T00:00:00Z\","
      "\"tns\":\"1969-12-31T23:59:59.999999999Z\",\"tsec\":\"1969-12-31T23:59:59Z\","
      "\"d9\":\"0\",\"d18\":\"0\",\"d38\":\"0.000001\",\"d20\":\"-99999999999999999999\","
      "\"d1\":0,\"u8\":1,\"u64\":1,\"nothing\":null,\"j\":[1,2]}\n"};
  check(&s, b, 2, -1, NULL);
  inlet_schema_reset(&s);
}

static void test_onepass__float_specials(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "f float, d double, g double");
  /* NaN in one batch of f; -Infinity in d; g holds only finite values and
   * zeros of both signs (the first zero seen is the bound, as before). */
  const char *const b[] = {
      "{\"f\":1.0,\"d\":2.0,\"g\":-0.0}\n{\"f\":null,\"d\":null,\"g\":0.0}\n",
      "{\"f\":\"NaN\",\"d\":-5,\"g\":3}\n{\"f\":2,\"d\":\"-Infinity\",\"g\":-0.0}"
      "\n"};
  check(&s, b, 2, 32,
        "{\"numRecords\":4,\"minValues\":{\"g\":-0},\"maxValues\":{\"g\":3},"
        "\"nullCount\":{\"f\":1,\"d\":1,\"g\":0}}");
  /* Zero first with the other sign, +Infinity alone, NaN only under a
   * null (ignored: nulls carry no value), all-NaN. */
  inlet_schema_reset(&s);
  parse(&s, "z double, pi double, n float, an double");
  const char *const c[] = {"{\"z\":0.0,\"pi\":\"Infinity\",\"n\":null,\"an\":\"NaN\"}\n"
                           "{\"z\":-0.0,\"pi\":1,\"n\":-3.5,\"an\":null}\n"
                           "{\"z\":-1e-320,\"pi\":2,\"n\":-0.0,\"an\":\"NaN\"}\n"};
  check(&s, c, 1, 32, NULL);
  /* Infinities of both signs, and NaN after finite values in a large run
   * (the vectorised loops), with and without nulls. */
  inlet_buf big = INLET_BUF_INIT;
  for (int i = 0; i < 300; i++) {
    const char *z = i == 150 ? "\"NaN\"" : i == 3 ? "-0.0" : i == 200 ? "0.0" : NULL;
    char num[64];
    if (!z) {
      snprintf(num, sizeof num, "%d.25", (i * 37) % 101 - 50);
      z = num;
    }
    inlet_buf_appendf(&big, "{\"z\":%s,\"pi\":%s,\"n\":%s,\"an\":%d}\n", i % 7 ? z : "null",
                      i == 299 ? "\"-Infinity\"" : "1.5", z, i);
  }
  inlet_buf_terminate(&big);
  const char *const d[] = {(const char *)big.data};
  check(&s, d, 1, 32, NULL);
  inlet_buf_reset(&big);
  inlet_schema_reset(&s);
}

static void test_onepass__strings(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "s string, u string, q string");
  /* s: longer than 32 characters (max cut and extended with U+10FFFF);
   * u: multi-byte UTF-8, the 32-character cut falls inside 2-, 3- and
   * 4-byte sequences; q: quotes, backslashes, control characters. */
  const char *const b[] = {
      "{\"s\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaz\",\"u\":\"\\u00e9\\u00e9\\u00e9\\u00e9"
      "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
      "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
      "\\u00e9\\u00e9\\u00e9\\u00e9\",\"q\":\"a\\\"b\\\\c\\n\\u0001\"}\n"
      "{\"s\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\"u\":\"\\ud83d\\ude00\\ud83d\\ude00"
      "\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00"
      "\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00"
      "\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00"
      "\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00"
      "\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00"
      "\\ud83d\\ude00x\",\"q\":null}\n",
      "{\"s\":\"b\",\"u\":\"\\u4e2d\\u6587\",\"q\":\"\"}\n{\"s\":null,\"u\":\"A\",\"q\":\"~\"}\n"};
  check(&s, b, 2, 32, NULL);
  /* Hand-checked: s's max is cut to 32 characters plus U+10FFFF; its min
   * (no cut needed past 32 characters but it is longer) is a prefix. */
  inlet_schema_reset(&s);
  parse(&s, "s string");
  const char *const c[] = {"{\"s\":\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"}\n"
                           "{\"s\":\"abc\"}\n{\"s\":null}\n"};
  check(&s, c, 1, 32,
        "{\"numRecords\":3,\"minValues\":{\"s\":\"abc\"},\"maxValues\":{\"s\":"
        "\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\xF4\x8F\xBF\xBF\"},\"nullCount\":{\"s\":1}}");
  /* Many distinct values: dictionary pages, then the PLAIN fallback. */
  inlet_buf big = INLET_BUF_INIT;
  for (int i = 0; i < 500; i++)
    inlet_buf_appendf(&big, "{\"s\":\"k%05d-%s\"}\n", (i * 7919) % 1000,
                      i % 3 ? "x" : "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
  inlet_buf_terminate(&big);
  const char *const d[] = {(const char *)big.data};
  check(&s, d, 1, 32, NULL);
  inlet_buf_reset(&big);
  inlet_schema_reset(&s);
}

static const char nested_ddl[] =
    "id long, st struct<a:int, b:struct<c:string, d:double>, e:boolean>, "
    "l array<int>, m map<string,int>, ls array<struct<x:int>>, after long";

static const char *const nested_rows[] = {
    "{\"id\":1,\"st\":{\"a\":1,\"b\":{\"c\":\"x\",\"d\":1.5},\"e\":true},\"l\":[1,2],"
    "\"m\":{\"k\":1},\"ls\":[{\"x\":1}],\"after\":10}\n"
    "{\"id\":2,\"st\":null,\"l\":null,\"m\":null,\"ls\":null,\"after\":null}\n"
    "{\"id\":3,\"st\":{\"a\":null,\"b\":null,\"e\":null},\"l\":[],\"m\":{},\"ls\":[],"
    "\"after\":-4}\n",
    "{\"id\":-7,\"st\":{\"a\":-9,\"b\":{\"c\":null,\"d\":-2},\"e\":false},\"l\":[null],"
    "\"m\":{\"z\":null},\"ls\":[null,{\"x\":null}],\"after\":null}\n"
    "{\"id\":8,\"st\":{\"a\":5,\"b\":{\"c\":\"a\",\"d\":null},\"e\":true},\"l\":null,"
    "\"m\":null,\"ls\":null,\"after\":3}\n"};

static void test_onepass__nested(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, nested_ddl);
  /* Hand-checked: struct leaves per path; lists and maps get a nullCount
   * of the rows where they are null, and no bounds. */
  check(&s, nested_rows, 2, 32,
        "{\"numRecords\":5,\"minValues\":{\"id\":-7,\"st\":{\"a\":-9,\"b\":{\"c\":\"a\","
        "\"d\":-2}},\"after\":-4},\"maxValues\":{\"id\":8,\"st\":{\"a\":5,\"b\":{\"c\":\"x\","
        "\"d\":1.5}},\"after\":10},\"nullCount\":{\"id\":0,\"st\":{\"a\":2,\"b\":{\"c\":3,"
        "\"d\":3},\"e\":2},\"l\":2,\"m\":2,\"ls\":2,\"after\":2}}");
  inlet_schema_reset(&s);
}

static void test_onepass__indexed_column_limits(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, nested_ddl);
  /* The limit counts leaves: cut inside the struct, after it, at the
   * list and map, none at all, and every column. */
  static const int32_t limits[] = {0, 1, 2, 3, 5, 6, 7, 8, 9, -1};
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
    check(&s, nested_rows, 2, limits[i], NULL);
  inlet_schema_reset(&s);
  parse(&s, "a long, b long, c long");
  const char *const b[] = {"{\"a\":1,\"b\":2,\"c\":3}\n"};
  check(&s, b, 1, 0, "{\"numRecords\":1,\"minValues\":{},\"maxValues\":{},\"nullCount\":{}}");
  check(&s, b, 1, 2,
        "{\"numRecords\":1,\"minValues\":{\"a\":1,\"b\":2},\"maxValues\":{\"a\":1,\"b\":2},"
        "\"nullCount\":{\"a\":0,\"b\":0}}");
  inlet_schema_reset(&s);
}

/* Column mapping: files hold the physical names, which the stats use. */
static void test_onepass__physical_names(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "`col-5f0c9d1e-0a4b-4c3e-9d7a-1b2c3d4e5f60` long, "
            "`col-aa` struct<`col-bb`:string, `col-cc`:date>");
  const char *const b[] = {
      "{\"col-5f0c9d1e-0a4b-4c3e-9d7a-1b2c3d4e5f60\":5,\"col-aa\":{\"col-bb\":\"q\","
      "\"col-cc\":\"2020-01-02\"}}\n"
      "{\"col-5f0c9d1e-0a4b-4c3e-9d7a-1b2c3d4e5f60\":null,\"col-aa\":null}\n"};
  check(&s, b, 1, 32,
        "{\"numRecords\":2,\"minValues\":{\"col-5f0c9d1e-0a4b-4c3e-9d7a-1b2c3d4e5f60\":5,"
        "\"col-aa\":{\"col-bb\":\"q\",\"col-cc\":\"2020-01-02\"}},\"maxValues\":{"
        "\"col-5f0c9d1e-0a4b-4c3e-9d7a-1b2c3d4e5f60\":5,\"col-aa\":{\"col-bb\":\"q\","
        "\"col-cc\":\"2020-01-02\"}},\"nullCount\":{\"col-5f0c9d1e-0a4b-4c3e-9d7a-1b2c3d4e5f60\":1,"
        "\"col-aa\":{\"col-bb\":1,\"col-cc\":1}}}");
  inlet_schema_reset(&s);
}

static void test_onepass__empty_file(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "a long, s string, d double");
  check(&s, NULL, 0, 32,
        "{\"numRecords\":0,\"minValues\":{},\"maxValues\":{},\"nullCount\":{\"a\":0,\"s\":0,"
        "\"d\":0}}");
  inlet_schema_reset(&s);
}

/* The Parquet writer's NaN flag: set by a non-null NaN only, kept across
 * pages and row groups by merging. */
static void test_onepass__parquet_nan_flag(void **state) {
  (void)state;
  pq_stats a, b;
  pq_stats_init(&a, PQ_STATS_DOUBLE);
  pq_stats_init(&b, PQ_STATS_DOUBLE);
  double v[4] = {1.0, NAN, -2.0, 4.0};
  uint8_t valid = 0x0D; /* row 1 (the NaN) is null */
  pq_stats_update_double(&a, v, &valid, 0, 4);
  assert_false(a.has_nan);
  assert_true(a.has_minmax);
  pq_stats_update_double(&b, v, NULL, 0, 4);
  assert_true(b.has_nan);
  assert_true(b.min.d == -2.0 && b.max.d == 4.0);
  assert_int_equal(pq_stats_merge(&a, &b), 0);
  assert_true(a.has_nan);
  pq_stats_clear(&a);
  assert_false(a.has_nan);
  float f[2] = {NAN, NAN};
  pq_stats_reset(&b);
  pq_stats_init(&b, PQ_STATS_FLOAT);
  pq_stats_update_float(&b, f, NULL, 0, 2);
  assert_true(b.has_nan);
  assert_false(b.has_minmax);
  pq_stats_reset(&a);
  pq_stats_reset(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_onepass__integers_hand_checked),
      cmocka_unit_test(test_onepass__all_types),
      cmocka_unit_test(test_onepass__float_specials),
      cmocka_unit_test(test_onepass__strings),
      cmocka_unit_test(test_onepass__nested),
      cmocka_unit_test(test_onepass__indexed_column_limits),
      cmocka_unit_test(test_onepass__physical_names),
      cmocka_unit_test(test_onepass__empty_file),
      cmocka_unit_test(test_onepass__parquet_nan_flag),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
