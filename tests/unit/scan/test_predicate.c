/*
 * Unit tests of src/scan: the --where parser (errors point at the column
 * with a caret), SQL three-valued evaluation (NULL comparisons, IN with
 * NULL, NOT), typed literals (exact decimals, zoned timestamps, quoted
 * strings), NaN ordering, and the skipping analysis over add.stats,
 * partition values and Parquet row-group statistics (missing stats,
 * truncated strings, NaN, millisecond timestamps never cause a wrong skip).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"
#include "delta/delta.h"
#include "scan/scan_stats.h"

static const char *DDL =
    "id long, user string, amount decimal(10,2), score double, ts timestamp, flag boolean, "
    "day date";

typedef struct fx {
  inlet_schema schema;
  inlet_batch batch;
} fx;

/* Rows: id 1..5. */
static const char *ROWS =
    "{\"id\":1,\"user\":\"ann\",\"amount\":\"0.10\",\"score\":1.5,\"ts\":\"2024-05-01T10:00:00Z\","
    "\"flag\":true,\"day\":\"2024-05-01\"}\n"
    "{\"id\":2,\"user\":null,\"amount\":\"2.00\",\"score\":\"NaN\",\"ts\":\"2024-05-01T12:00:00."
    "000500Z\","
    "\"flag\":false,\"day\":\"2024-05-02\"}\n"
    "{\"id\":3,\"user\":\"o'neil\",\"amount\":null,\"score\":null,\"ts\":null,\"flag\":null,"
    "\"day\":null}\n"
    "{\"id\":4,\"user\":\"bob\",\"amount\":\"-3.25\",\"score\":-2,\"ts\":\"2024-05-02T00:00:00Z\","
    "\"flag\":true,\"day\":\"2024-05-02\"}\n"
    "{\"id\":5,\"user\":\"\",\"amount\":\"100.00\",\"score\":0,\"ts\":\"2024-04-30T23:59:59Z\","
    "\"flag\":false,\"day\":\"2024-04-30\"}\n";

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_schema_parse(&f->schema, DDL, &err), 0);
  inlet_text_reader *r = NULL;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  assert_int_equal(inlet_text_reader_open_memory(&r, ROWS, strlen(ROWS), &f->schema, &o, &err), 0);
  assert_int_equal(inlet_text_reader_next(r, &f->batch, &err), 0);
  assert_int_equal(f->batch.num_rows, 5);
  inlet_text_reader_free(r);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  inlet_batch_reset(&f->batch);
  inlet_schema_reset(&f->schema);
  free(f);
  return 0;
}

/* The predicate's per-row values as a string of T/F/N. */
static void eval_str(fx *f, const char *where, char *out) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_predicate *p = NULL;
  int rc = inlet_predicate_parse(&p, where, &f->schema, &err);
  if (rc != 0) fail_msg("parse of <%s> failed: %s", where, inlet_errmsg(&err));
  uint8_t res[8];
  assert_int_equal(inlet_predicate_eval(p, &f->batch, res, &err), 0);
  for (int i = 0; i < 5; i++)
    out[i] = res[i] == 1 ? 'T' : res[i] == 0 ? 'F' : 'N';
  out[5] = 0;
  inlet_predicate_free(p);
}

#define EXPECT(where, expected)                                                                    \
  do {                                                                                             \
    char got_[8];                                                                                  \
    eval_str(f, where, got_);                                                                      \
    if (strcmp(got_, expected) != 0) fail_msg("<%s>: expected %s, got %s", where, expected, got_); \
  } while (0)

static void test_predicate__comparisons_on_every_type(void **state) {
  fx *f = *state;
  EXPECT("id = 2", "FTFFF");
  EXPECT("id != 2", "TFTTT");
  EXPECT("id <> 2", "TFTTT");
  EXPECT("id < 3", "TTFFF");
  EXPECT("id <= 3", "TTTFF");
  EXPECT("3 < id", "FFFTT");
  EXPECT("ID >= 4", "FFFTT");
  EXPECT("user = 'o''neil'", "FNTFF");
  EXPECT("user = ''", "FNFFT");
  EXPECT("user > 'ann'", "FNTTF");
  EXPECT("amount = 0.1", "TFNFF");
  EXPECT("amount < 0", "FFNTF");
  EXPECT("amount >= '2'", "FTNFT");
  EXPECT("ts > '2024-05-01T11:00:00+01:00'", "FTNTF"); /* 10:00Z */
  EXPECT("ts = TIMESTAMP '2024-05-01 10:00:00Z'", "TFNFF");
  EXPECT("day = DATE '2024-05-02'", "FTNTF");
  EXPECT("flag", "TFNTF");
  EXPECT("flag = false", "FTNFT");
  EXPECT("`user` = 'bob'", "FNFTF");
  EXPECT("\"id\" = 5", "FFFFT");
}

static void test_predicate__three_valued_logic(void **state) {
  fx *f = *state;
  EXPECT("user = NULL", "NNNNN");
  EXPECT("NOT (user = 'ann')", "FNTTT");
  EXPECT("user IS NULL", "FTFFF");
  EXPECT("user IS NOT NULL", "TFTTT");
  EXPECT("user = 'ann' OR id = 2", "TTFFF");  /* NULL OR TRUE is TRUE */
  EXPECT("user = 'ann' AND id = 2", "FNFFF"); /* NULL AND TRUE is NULL */
  EXPECT("user = 'bob' AND id = 2", "FNFFF");
  EXPECT("user = 'zz' AND id = 1", "FFFFF");
  EXPECT("id IN (1, 4)", "TFFTF");
  EXPECT("id IN (1, NULL)", "TNNNN");
  EXPECT("id NOT IN (1, NULL)", "FNNNN");
  EXPECT("id NOT IN (1, 4)", "FTTFT");
  EXPECT("user IN ('ann', 'bob')", "TNFTF");
  EXPECT("id BETWEEN 2 AND 4", "FTTTF");
  EXPECT("id NOT BETWEEN 2 AND 4", "TFFFT");
  EXPECT("amount BETWEEN -5 AND 1", "TFNTF");
  EXPECT("TRUE", "TTTTT");
  EXPECT("NOT FALSE AND (id = 1 OR id = 5)", "TFFFT");
  EXPECT("NOT NOT id = 1", "TFFFF");
}

static void test_predicate__nan_sorts_above_every_number(void **state) {
  fx *f = *state;
  EXPECT("score > 1e300", "FTNFF");
  EXPECT("score = 'NaN'", "FTNFF");
  EXPECT("score < 2", "TFNTT");
  EXPECT("score >= -2", "TTNTT");
}

static void expect_error(fx *f, const char *where, int code, const char *msg_part) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_predicate *p = NULL;
  int rc = inlet_predicate_parse(&p, where, &f->schema, &err);
  assert_null(p);
  if (rc != code) fail_msg("<%s>: expected %d, got %d (%s)", where, code, rc, inlet_errmsg(&err));
  if (!strstr(inlet_errmsg(&err), msg_part))
    fail_msg("<%s>: message lacks <%s>:\n%s", where, msg_part, inlet_errmsg(&err));
}

static void test_predicate__errors_point_at_the_column(void **state) {
  fx *f = *state;
  expect_error(f, "id = = 1", INLET_EINVAL,
               "column 6: expected a literal, found '='\n  id = = 1\n       ^");
  expect_error(f, "nope > 3", INLET_ENOTFOUND,
               "column 1: no column named \"nope\"\n  nope > 3\n  ^");
  expect_error(f, "id = 1 AND", INLET_EINVAL, "column 11: expected a column, literal or '('");
  expect_error(f, "(id = 1", INLET_EINVAL, "column 1: unclosed parenthesis");
  expect_error(f, "user = 'abc", INLET_EINVAL, "column 8: unterminated quote");
  expect_error(f, "id = 'x'", INLET_EINVAL,
               "column 6: literal 'x' does not fit column \"id\" (long)");
  /* Decimals stay exact: a third fraction digit cannot be held. */
  expect_error(f, "amount = 1.234", INLET_EINVAL, "does not fit column \"amount\" (decimal(10,2))");
  expect_error(f, "day = '2024-13-01'", INLET_EINVAL, "column 7:");
  expect_error(f, "id = 1 id = 2", INLET_EINVAL, "column 8: expected AND, OR or the end");
  expect_error(f, "id IN (1, 2", INLET_EINVAL, "expected ',' or ')'");
  expect_error(f, "id 5", INLET_EINVAL,
               "column 4: expected a comparison, IN, BETWEEN or IS [NOT] NULL");
  expect_error(f, "", INLET_EINVAL, "empty expression");
  expect_error(f, "id = 1 # 2", INLET_EINVAL, "column 8: unexpected character");
  /* Deep nesting is refused, not a stack overflow. */
  char deep[2000];
  size_t k = 0;
  for (int i = 0; i < 600; i++)
    deep[k++] = '(';
  memcpy(deep + k, "id = 1", 6);
  k += 6;
  for (int i = 0; i < 600; i++)
    deep[k++] = ')';
  deep[k] = 0;
  expect_error(f, deep, INLET_ELIMIT, "nested too deeply");
}

/* ---- skipping --------------------------------------------------------- */

static int possible(fx *f, const char *where, sc_file_stats *fs) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_predicate *p = NULL;
  if (inlet_predicate_parse(&p, where, &f->schema, &err) != 0)
    fail_msg("parse of <%s> failed: %s", where, inlet_errmsg(&err));
  int r = sc_pred_possible(p, fs->cols);
  inlet_predicate_free(p);
  return r;
}

/* A snapshot of one file (borrowing @p f's schema) for a scan plan: its
 * add.stats @p stats_json, @p rows records, and with @p part a "day"
 * partition column holding @p day. */
typedef struct one_file {
  delta_snapshot snap;
  delta_file file;
  delta_kv pv;
  char *part_cols[1];
} one_file;

static delta_scan_plan *one_file_plan(one_file *o, fx *f, const char *stats_json, int64_t rows,
                                      bool part, const char *day) {
  memset(o, 0, sizeof *o);
  o->snap.schema = f->schema;
  o->snap.has_schema = true;
  o->file.add.stats = (char *)stats_json;
  o->file.num_records = rows;
  if (part) {
    o->part_cols[0] = (char *)"day";
    o->snap.metadata.partition_columns = o->part_cols;
    o->snap.metadata.n_partition_columns = 1;
    o->pv.key = (char *)"day";
    o->pv.value = (char *)day;
    o->file.add.partition_values = &o->pv;
    o->file.add.n_partition_values = 1;
  }
  o->snap.files = &o->file;
  o->snap.n_files = 1;
  delta_scan_plan *p = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_scan_plan_build(&p, &o->snap, &err), 0);
  return p;
}

static bool can_skip(fx *f, const char *stats_json, const char *where) {
  sc_file_stats fs;
  inlet_error err = INLET_ERROR_INIT;
  one_file o;
  delta_scan_plan *p = one_file_plan(&o, f, stats_json, -1, false, NULL);
  sc_file_stats_init(&fs, &f->schema);
  assert_int_equal(sc_file_stats_begin(&fs, -1, &err), 0);
  delta_scan_plan_stats(p, 0, fs.cols);
  bool skip = !(possible(f, where, &fs) & SC_MAY_TRUE);
  sc_file_stats_reset(&fs);
  delta_scan_plan_free(p);
  return skip;
}

static void test_skip__min_max_null_count_from_add_stats(void **state) {
  fx *f = *state;
  const char *st =
      "{\"numRecords\":10,\"minValues\":{\"id\":100,\"user\":\"b\",\"amount\":1.50,"
      "\"ts\":\"2024-05-01T00:00:00.000Z\",\"day\":\"2024-05-01\"},"
      "\"maxValues\":{\"id\":200,\"user\":\"d\",\"amount\":9.99,"
      "\"ts\":\"2024-05-01T12:00:00.000Z\",\"day\":\"2024-05-03\"},"
      "\"nullCount\":{\"id\":0,\"user\":10,\"amount\":0,\"score\":0,\"ts\":0,\"day\":0}}";
  assert_true(can_skip(f, st, "id < 100"));
  assert_false(can_skip(f, st, "id <= 100"));
  assert_true(can_skip(f, st, "id > 200"));
  assert_false(can_skip(f, st, "id >= 200"));
  assert_true(can_skip(f, st, "id = 50 OR id = 250"));
  assert_false(can_skip(f, st, "id = 50 OR id = 150"));
  assert_true(can_skip(f, st, "id IN (1, 2, 300)"));
  assert_false(can_skip(f, st, "id NOT IN (1, 2, 300)"));
  assert_true(can_skip(f, st, "id BETWEEN 300 AND 400"));
  assert_true(can_skip(f, st, "amount > 9.99"));
  assert_false(can_skip(f, st, "amount > 9.98"));
  assert_true(can_skip(f, st, "day < '2024-05-01'"));
  /* Every user is null: comparisons are never TRUE, IS NULL may be. */
  assert_true(can_skip(f, st, "user = 'c'"));
  assert_true(can_skip(f, st, "user IS NOT NULL"));
  assert_false(can_skip(f, st, "user IS NULL"));
  assert_true(can_skip(f, st, "id IS NULL"));
  assert_true(can_skip(f, st, "NOT (id >= 100)"));
  assert_false(can_skip(f, st, "NOT (id > 100)"));
  /* id = NULL is NULL everywhere. */
  assert_true(can_skip(f, st, "id = NULL"));
  assert_true(can_skip(f, st, "id IN (5, NULL)"));
}

static void test_skip__never_wrong_on_weak_stats(void **state) {
  fx *f = *state;
  /* Missing stats, malformed stats, absent columns: no skipping. */
  assert_false(can_skip(f, NULL, "id = 5"));
  assert_false(can_skip(f, "{\"numRecords\":3}", "id = 5"));
  assert_false(can_skip(f, "{\"numRecords\":3,\"minValues\":{\"id\":10", "id = 5"));
  /* An unparseable min is unknown; the max still bounds. */
  assert_false(
      can_skip(f, "{\"minValues\":{\"id\":\"junk\"},\"maxValues\":{\"id\":10}}", "id < 1"));
  assert_true(
      can_skip(f, "{\"minValues\":{\"id\":\"junk\"},\"maxValues\":{\"id\":10}}", "id > 10"));
  /* Timestamps in stats are milliseconds: a max of 12:00:00.000 may hide
   * 12:00:00.000999. */
  const char *ts = "{\"numRecords\":2,\"minValues\":{\"ts\":\"2024-05-01T10:00:00.000Z\"},"
                   "\"maxValues\":{\"ts\":\"2024-05-01T12:00:00.000Z\"},\"nullCount\":{\"ts\":0}}";
  assert_false(can_skip(f, ts, "ts > '2024-05-01T12:00:00.000500Z'"));
  assert_true(can_skip(f, ts, "ts > '2024-05-01T12:00:00.001Z'"));
  assert_true(can_skip(f, ts, "ts < '2024-05-01T10:00:00Z'"));
  /* A 32-character string max may be a cut prefix; with the tie-breaker
   * character (33) it is a bound. */
  const char *s32 = "{\"minValues\":{\"user\":\"aaaa\"},"
                    "\"maxValues\":{\"user\":\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"}}";
  assert_false(can_skip(f, s32, "user > 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbzzz'"));
  assert_true(can_skip(f, s32, "user < 'aaaa'"));
  const char *s33 = "{\"minValues\":{\"user\":\"aaaa\"},"
                    "\"maxValues\":{\"user\":\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\\uDBFF\\uDFFF\"}}";
  assert_true(can_skip(f, s33, "user > 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\xf4\x8f\xbf\xbf'"));
  assert_false(can_skip(f, s33, "user > 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbzzz'"));
  /* Double maxima are never trusted (NaN sorts above them); minima are. */
  const char *d = "{\"minValues\":{\"score\":1.0},\"maxValues\":{\"score\":2.0}}";
  assert_false(can_skip(f, d, "score > 5"));
  assert_false(can_skip(f, d, "score = 'NaN'"));
  assert_true(can_skip(f, d, "score < 1"));
}

static void test_skip__partition_values(void **state) {
  fx *f = *state;
  sc_file_stats fs;
  inlet_error err = INLET_ERROR_INIT;
  one_file o;
  delta_scan_plan *p = one_file_plan(&o, f, NULL, 7, true, "2024-05-02");
  sc_file_stats_init(&fs, &f->schema);
  assert_int_equal(sc_file_stats_begin(&fs, 7, &err), 0);
  delta_scan_plan_partitions(p, 0, fs.cols);
  assert_int_equal(possible(f, "day = '2024-05-02'", &fs) & SC_MAY_TRUE, SC_MAY_TRUE);
  assert_int_equal(possible(f, "day = '2024-05-02'", &fs) & SC_MAY_FALSE, 0);
  assert_int_equal(possible(f, "day > '2024-05-02'", &fs) & SC_MAY_TRUE, 0);
  assert_int_equal(possible(f, "day IS NULL", &fs) & SC_MAY_TRUE, 0);
  assert_int_equal(possible(f, "day IN ('2024-05-01', '2024-05-02')", &fs), SC_MAY_TRUE);
  /* A null partition value: only IS NULL can hold. */
  delta_scan_plan_free(p);
  p = one_file_plan(&o, f, NULL, -1, true, NULL);
  assert_int_equal(sc_file_stats_begin(&fs, -1, &err), 0);
  delta_scan_plan_partitions(p, 0, fs.cols);
  assert_int_equal(possible(f, "day = '2024-05-02'", &fs), SC_MAY_NULL);
  assert_int_equal(possible(f, "day != '2024-05-02'", &fs), SC_MAY_NULL);
  assert_int_equal(possible(f, "day IS NULL", &fs), SC_MAY_TRUE);
  assert_int_equal(possible(f, "NOT (day = '2024-05-02') OR id = 1", &fs) & SC_MAY_TRUE,
                   SC_MAY_TRUE);
  sc_file_stats_reset(&fs);
  delta_scan_plan_free(p);
}

static void test_skip__parquet_row_group_statistics(void **state) {
  fx *f = *state;
  (void)f;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, name string, d double", &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, &err), 0);
  for (int i = 0; i < 50; i++) {
    char nm[16];
    snprintf(nm, sizeof nm, "n%02d", i);
    assert_int_equal(inlet_array_append_int(&b.columns[0], &s.fields[0], i, &err), 0);
    if (i >= 40)
      assert_int_equal(inlet_array_append_null(&b.columns[1], &s.fields[1], &err), 0);
    else
      assert_int_equal(inlet_array_append_bytes(&b.columns[1], &s.fields[1], nm, 3, &err), 0);
    assert_int_equal(inlet_array_append_double(&b.columns[2], i * 0.5, &err), 0);
  }
  b.num_rows = 50;
  char path[4300];
  snprintf(path, sizeof path, "%s/rg.parquet", tu_mkdtemp("scan-rg"));
  inlet_parquet_writer_options wo = INLET_PARQUET_WRITER_OPTIONS_INIT;
  wo.row_group_max_rows = 10;
  wo.sync_on_close = false;
  inlet_parquet_writer *w = NULL;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &s, &wo, &err), 0);
  assert_int_equal(inlet_parquet_writer_write(w, &b, &err), 0);
  assert_int_equal(inlet_parquet_writer_close(w, &err), 0);
  inlet_parquet_writer_free(w);
  inlet_parquet_reader *r = NULL;
  assert_int_equal(inlet_parquet_reader_open(&r, path, NULL, &err), 0);
  assert_int_equal(inlet_parquet_reader_num_row_groups(r), 5);
  inlet_predicate *p1 = NULL, *p2 = NULL, *p3 = NULL, *p4 = NULL;
  assert_int_equal(inlet_predicate_parse(&p1, "id >= 25 AND id < 30", &s, &err), 0);
  assert_int_equal(inlet_predicate_parse(&p2, "name = 'n13'", &s, &err), 0);
  assert_int_equal(inlet_predicate_parse(&p3, "name IS NULL", &s, &err), 0);
  assert_int_equal(inlet_predicate_parse(&p4, "d > 100", &s, &err), 0);
  sc_file_stats fs;
  sc_file_stats_init(&fs, &s);
  char got[4][8];
  for (int rg = 0; rg < 5; rg++) {
    assert_int_equal(sc_file_stats_row_group(&fs, r, rg, &err), 0);
    got[0][rg] = (sc_pred_possible(p1, fs.cols) & SC_MAY_TRUE) ? 'R' : 's';
    got[1][rg] = (sc_pred_possible(p2, fs.cols) & SC_MAY_TRUE) ? 'R' : 's';
    got[2][rg] = (sc_pred_possible(p3, fs.cols) & SC_MAY_TRUE) ? 'R' : 's';
    got[3][rg] = (sc_pred_possible(p4, fs.cols) & SC_MAY_TRUE) ? 'R' : 's';
  }
  for (int i = 0; i < 4; i++)
    got[i][5] = 0;
  assert_string_equal(got[0], "ssRss");
  assert_string_equal(got[1], "sRsss");
  assert_string_equal(got[2], "ssssR");
  assert_string_equal(got[3], "RRRRR"); /* double maxima are not trusted */
  sc_file_stats_reset(&fs);
  inlet_predicate_free(p1);
  inlet_predicate_free(p2);
  inlet_predicate_free(p3);
  inlet_predicate_free(p4);
  inlet_parquet_reader_free(r);
  inlet_batch_reset(&b);
  inlet_schema_reset(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_predicate__comparisons_on_every_type, setup, teardown),
      cmocka_unit_test_setup_teardown(test_predicate__three_valued_logic, setup, teardown),
      cmocka_unit_test_setup_teardown(test_predicate__nan_sorts_above_every_number, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_predicate__errors_point_at_the_column, setup, teardown),
      cmocka_unit_test_setup_teardown(test_skip__min_max_null_count_from_add_stats, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_skip__never_wrong_on_weak_stats, setup, teardown),
      cmocka_unit_test_setup_teardown(test_skip__partition_values, setup, teardown),
      cmocka_unit_test_setup_teardown(test_skip__parquet_row_group_statistics, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
