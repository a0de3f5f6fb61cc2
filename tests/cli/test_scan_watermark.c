/*
 * `inlet scan --watermark TS --on-time | --late` and `--late` alone (issue
 * "Streaming ingestion", watermark-gated view): the two sides of the split
 * partition the table (rows without an event time count as on time), and
 * --late alone returns the rows flagged by the late-flag column property.
 * Expected counts come from the input rows written by the test.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[4096];

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("scan_wm"));
  /* 6 rows against the watermark 2024-01-01T00:00:00Z: 2 before it (both
   * flagged late at ingest), 3 at or after it (id 3 is exactly the watermark,
   * written with a -02:00 offset), 1 without an event time. */
  const char *rows = "{\"id\":1,\"t\":\"2023-12-31T23:55:00Z\",\"is_late\":true}\n"
                     "{\"id\":2,\"t\":\"2023-12-31T23:59:59.999999Z\",\"is_late\":true}\n"
                     "{\"id\":3,\"t\":\"2023-12-31T22:00:00-02:00\",\"is_late\":false}\n"
                     "{\"id\":4,\"t\":\"2024-01-01T00:00:00Z\",\"is_late\":false}\n"
                     "{\"id\":5,\"t\":\"2024-01-02T00:00:00Z\",\"is_late\":false}\n"
                     "{\"id\":6,\"t\":null,\"is_late\":false}\n";
  char path[4200];
  snprintf(path, sizeof path, "%s/in.ndjson", dir);
  if (tu_write_file(path, rows, strlen(rows)) != 0) return -1;
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long not null, t timestamp, is_late boolean' "
        "--property inlet.ingest.lateFlagColumn=is_late && '%s' append t in.ndjson",
        dir, INLET_BIN, INLET_BIN);
  int st = r.status;
  if (st) fprintf(stderr, "%s", r.err);
  tu_result_free(&r);
  return st ? -1 : 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(dir);
  return 0;
}

static void expect_ids(const char *flags, int lines, const char *const *ids, int n_ids) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' scan t --format ndjson %s", dir, INLET_BIN, flags);
  if (r.status) fprintf(stderr, "%s", r.err);
  assert_int_equal(r.status, 0);
  assert_int_equal(count_lines(r.out), lines);
  for (int i = 0; i < n_ids; i++)
    assert_non_null(strstr(r.out, ids[i]));
  tu_result_free(&r);
}

static void test_scan_watermark__split_partitions_the_table(void **state) {
  (void)state;
  const char *on[] = {"\"id\":3,", "\"id\":4,", "\"id\":5,", "\"id\":6,"};
  expect_ids("--watermark 2024-01-01T00:00:00Z --on-time", 4, on, 4);
  const char *late[] = {"\"id\":1,", "\"id\":2,"};
  expect_ids("--watermark 2024-01-01T00:00:00Z --late", 2, late, 2);
  /* A later watermark moves rows from one side to the other, never drops. */
  expect_ids("--watermark 2024-01-01T12:00:00Z --on-time", 2, NULL, 0);
  expect_ids("--watermark 2024-01-01T12:00:00Z --late", 4, NULL, 0);
}

static void test_scan_watermark__late_alone_reads_the_flag_column(void **state) {
  (void)state;
  const char *late[] = {"\"id\":1,", "\"id\":2,"};
  expect_ids("--late", 2, late, 2);
  /* Combined with --where by AND. */
  const char *one[] = {"\"id\":2,"};
  expect_ids("--late --where 'id > 1'", 1, one, 1);
}

static void test_scan_watermark__usage_errors(void **state) {
  (void)state;
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' scan t --on-time", dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--watermark"));
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' scan t --watermark 2024-01-01 --on-time --late", dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' scan t --watermark 2024-01-01 --on-time --event-time nope", dir,
        INLET_BIN);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "nope"));
  tu_result_free(&r);
}

static void test_scan_watermark__timestamp_column_wins_over_a_date(void **state) {
  (void)state;
  const char *rows = "{\"t\":\"2024-01-01T10:00:00Z\",\"d\":\"2024-01-01\"}\n"
                     "{\"t\":\"2024-01-01T14:00:00Z\",\"d\":\"2024-01-01\"}\n";
  char path[4200];
  snprintf(path, sizeof path, "%s/in2.ndjson", dir);
  assert_int_equal(tu_write_file(path, rows, strlen(rows)), 0);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' create t2 --schema 't timestamp, d date' && '%s' append t2 in2.ndjson",
        dir, INLET_BIN, INLET_BIN);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  /* Split on t (one row each side); a split on d would put both on time. */
  tu_sh(&r, "cd '%s' && '%s' scan t2 --format ndjson --watermark 2024-01-01T12:00:00Z --late", dir,
        INLET_BIN);
  assert_int_equal(r.status, 0);
  assert_int_equal(count_lines(r.out), 1);
  assert_non_null(strstr(r.out, "10:00:00"));
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' scan t2 --format ndjson --watermark 2024-01-02 --late --event-time d",
        dir, INLET_BIN);
  assert_int_equal(r.status, 0);
  assert_int_equal(count_lines(r.out), 2);
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scan_watermark__split_partitions_the_table),
      cmocka_unit_test(test_scan_watermark__late_alone_reads_the_flag_column),
      cmocka_unit_test(test_scan_watermark__usage_errors),
      cmocka_unit_test(test_scan_watermark__timestamp_column_wins_over_a_date),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
