/*
 * The table commands of the real `inlet` binary: create, append (NDJSON,
 * CSV, Parquet input, bad records), scan (ndjson checked by refcheck
 * compare, time travel by version and timestamp), history and describe
 * (JSON checked key by key), checkpoint, and their exit codes and errors.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  char dir[4096];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("delta-cli"));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void put(fixture *f, const char *name, const char *text) {
  char p[4300];
  snprintf(p, sizeof p, "%s/%s", f->dir, name);
  assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

static const char *EXPECTED_V1 =
    "{\"columns\":[\"id\",\"user\",\"amount\",\"day\"],\"rows\":["
    "[1,\"ann\",1.5,\"2024-03-01\"],[2,null,2.25,\"2024-03-01\"],[3,\"bob\",null,\"2024-03-02\"]]}";
static const char *EXPECTED_V3 =
    "{\"columns\":[\"id\",\"user\",\"amount\",\"day\"],\"rows\":["
    "[1,\"ann\",1.5,\"2024-03-01\"],[2,null,2.25,\"2024-03-01\"],[3,\"bob\",null,\"2024-03-02\"],"
    "[4,\"cy\",4,\"2024-03-02\"],[5,\"dee\",-5.5,null],"
    "[6,\"pq\",6,\"2024-03-03\"],[7,\"pq\",7,\"2024-03-03\"]]}";

static void test_cli__create_append_scan_history_describe(void **state) {
  fixture *f = *state;
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long not null, user string, amount double, "
        "day date' --partition-by day --property delta.appendOnly=true "
        "--property inlet.owner=tests",
        f->dir, INLET_BIN);
  sh_ok(&r, "create");
  tu_result_free(&r);
  /* Creating it again fails with a message. */
  tu_sh(&r, "cd '%s' && '%s' create t --schema 'id long'", f->dir, INLET_BIN);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "already exists"));
  tu_result_free(&r);

  put(f, "a.ndjson",
      "{\"id\":1,\"user\":\"ann\",\"amount\":1.5,\"day\":\"2024-03-01\"}\n"
      "{\"id\":2,\"amount\":2.25,\"day\":\"2024-03-01\"}\n"
      "{\"id\":3,\"user\":\"bob\",\"day\":\"2024-03-02\"}\n");
  tu_sh(&r, "cd '%s' && '%s' append t a.ndjson", f->dir, INLET_BIN);
  sh_ok(&r, "append ndjson");
  assert_non_null(strstr(r.out, "appended 3 rows"));
  assert_non_null(strstr(r.out, "version 1"));
  tu_result_free(&r);

  put(f, "b.csv", "id,user,amount,day\n4,cy,4,2024-03-02\n5,dee,-5.5,\n");
  tu_sh(&r, "cd '%s' && '%s' append t b.csv", f->dir, INLET_BIN);
  sh_ok(&r, "append csv");
  tu_result_free(&r);

  /* Parquet input made by the converter. */
  put(f, "c.ndjson",
      "{\"id\":6,\"user\":\"pq\",\"amount\":6,\"day\":\"2024-03-03\"}\n"
      "{\"id\":7,\"user\":\"pq\",\"amount\":7,\"day\":\"2024-03-03\"}\n");
  tu_sh(&r,
        "cd '%s' && '%s' parquet convert c.ndjson c.parquet --schema 'id long not null, "
        "user string, amount double, day date' && '%s' append t c.parquet",
        f->dir, INLET_BIN, INLET_BIN);
  sh_ok(&r, "append parquet");
  assert_non_null(strstr(r.out, "version 3"));
  tu_result_free(&r);

  put(f, "v1.json", EXPECTED_V1);
  put(f, "v3.json", EXPECTED_V3);
  tu_sh(&r,
        "cd '%s' && '%s' scan t --format ndjson > out3.ndjson && '%s' '%s' compare v3.json "
        "out3.ndjson --ndjson && '%s' scan t --version 1 --format ndjson > out1.ndjson && "
        "'%s' '%s' compare v1.json out1.ndjson --ndjson",
        f->dir, INLET_BIN, INLET_NODE, INLET_REFCHECK, INLET_BIN, INLET_NODE, INLET_REFCHECK);
  sh_ok(&r, "scan + refcheck compare");
  tu_result_free(&r);
  /* The independent reader agrees at every version. */
  for (int v = 0; v <= 3; v++) {
    tu_sh(
        &r,
        "cd '%s' && '%s' scan t --version %d --format ndjson > o.ndjson && "
        "'%s' '%s' delta t --version %d > ref.json && '%s' '%s' compare ref.json o.ndjson --ndjson",
        f->dir, INLET_BIN, v, INLET_NODE, INLET_REFCHECK, v, INLET_NODE, INLET_REFCHECK);
    sh_ok(&r, "refcheck delta vs scan");
    tu_result_free(&r);
  }
  /* --as-of: far future is the latest version; before the table existed fails. */
  tu_sh(&r, "cd '%s' && '%s' scan t --as-of 4102444800000 --format csv | wc -l", f->dir, INLET_BIN);
  sh_ok(&r, "scan --as-of");
  assert_int_equal(atoi(r.out), 8); /* header + 7 rows */
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' scan t --as-of 2000-01-01T00:00:00Z", f->dir, INLET_BIN);
  assert_int_equal(r.status, 3);
  assert_non_null(strstr(r.err, "no version"));
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' scan t --version 9", f->dir, INLET_BIN);
  assert_int_equal(r.status, 3);
  assert_non_null(strstr(r.err, "version 9 does not exist"));
  tu_result_free(&r);

  /* history --json: newest first. */
  tu_sh(&r, "cd '%s' && '%s' history t --json", f->dir, INLET_BIN);
  sh_ok(&r, "history");
  json_error_t jerr;
  json_t *doc = json_loads(r.out, 0, &jerr);
  assert_non_null(doc);
  assert_int_equal(json_integer_value(json_object_get(doc, "format_version")), 1);
  json_t *h = json_object_get(doc, "commits");
  assert_int_equal(json_array_size(h), 4);
  assert_int_equal(json_integer_value(json_object_get(json_array_get(h, 0), "version")), 3);
  assert_string_equal(json_string_value(json_object_get(json_array_get(h, 3), "operation")),
                      "CREATE TABLE");
  /* Delta's string metrics arrive as numbers. */
  json_t *m = json_object_get(json_array_get(h, 2), "operation_metrics");
  assert_true(json_is_integer(json_object_get(m, "numOutputRows")));
  assert_int_equal(json_integer_value(json_object_get(m, "numOutputRows")), 3);
  json_decref(doc);
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' history t --limit 1", f->dir, INLET_BIN);
  sh_ok(&r, "history text");
  assert_non_null(strstr(r.out, "WRITE"));
  assert_null(strstr(r.out, "CREATE TABLE"));
  tu_result_free(&r);

  /* describe --json. */
  tu_sh(&r, "cd '%s' && '%s' describe t --json", f->dir, INLET_BIN);
  sh_ok(&r, "describe");
  json_t *d = json_loads(r.out, 0, &jerr);
  assert_non_null(d);
  assert_int_equal(json_integer_value(json_object_get(d, "version")), 3);
  assert_int_equal(json_integer_value(json_object_get(d, "commits")), 4);
  assert_int_equal(json_integer_value(json_object_get(d, "compactions")), 0);
  assert_int_equal(json_integer_value(json_object_get(d, "rows")), 7);
  assert_int_equal(json_integer_value(json_object_get(d, "files")), 5);
  assert_int_equal(json_integer_value(json_object_get(d, "partitions")), 4);
  assert_true(json_integer_value(json_object_get(d, "bytes")) > 0);
  assert_int_equal(json_integer_value(json_object_get(d, "small_files")), 5);
  assert_true(json_integer_value(json_object_get(d, "last_commit_timestamp")) > 1700000000000LL);
  assert_string_equal(
      json_string_value(json_object_get(json_object_get(d, "properties"), "inlet.owner")), "tests");
  json_decref(d);
  tu_result_free(&r);
}

static void test_cli__bad_records_fail_the_append_unless_skipped(void **state) {
  fixture *f = *state;
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' create t --schema 'id long not null, amount double'", f->dir,
        INLET_BIN);
  sh_ok(&r, "create");
  tu_result_free(&r);
  put(f, "bad.ndjson", "{\"id\":1,\"amount\":1}\n{\"id\":\"x\",\"amount\":2}\n{\"id\":3}\n");
  tu_sh(&r, "cd '%s' && '%s' append t bad.ndjson", f->dir, INLET_BIN);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "--skip-bad"));
  tu_result_free(&r);
  /* Nothing was committed and no data file was left behind. */
  tu_sh(&r, "cd '%s' && ls t/_delta_log | grep -c json; ls t | grep -c parquet", f->dir);
  assert_string_equal(r.out, "1\n0\n");
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' append t bad.ndjson --skip-bad", f->dir, INLET_BIN);
  sh_ok(&r, "append --skip-bad");
  assert_non_null(strstr(r.out, "appended 2 rows"));
  assert_non_null(strstr(r.out, "1 bad records skipped"));
  tu_result_free(&r);
}

/* Every Delta type (nested ones need nested Parquet writing) through
 * append, read back by inlet and by refcheck identically. */
static void test_cli__all_types_round_trip_through_refcheck(void **state) {
  fixture *f = *state;
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id int, ts timestamp, ntz timestamp_ntz, "
        "d decimal(10,2), big decimal(38,4), dt date, b binary, fl float, db double, by byte, "
        "sh short, lg long, bo boolean, s string' --partition-by dt",
        f->dir, INLET_BIN);
  sh_ok(&r, "create");
  tu_result_free(&r);
  put(f, "in.ndjson",
      "{\"id\":1,\"ts\":\"2024-01-02T03:04:05.123456Z\",\"ntz\":\"2024-01-02T03:04:05.5\","
      "\"d\":\"-12.34\",\"big\":\"12345678901234567890123456789012.3456\",\"dt\":\"2024-01-02\","
      "\"b\":\"00ff\",\"fl\":0.1,\"db\":1e300,\"by\":-128,\"sh\":32767,"
      "\"lg\":9007199254740993,\"bo\":true,\"s\":\"h\\u00e9 \\\"q\\\" /=%\"}\n"
      "{\"id\":2,\"dt\":\"1969-12-31\",\"db\":\"NaN\",\"fl\":\"-Infinity\"}\n{\"id\":3}\n");
  tu_sh(&r,
        "cd '%s' && '%s' append t in.ndjson && '%s' scan t --format ndjson > o.ndjson && "
        "'%s' '%s' delta t > ref.json && '%s' '%s' compare ref.json o.ndjson --ndjson && "
        "grep -c . o.ndjson && ls t",
        f->dir, INLET_BIN, INLET_BIN, INLET_NODE, INLET_REFCHECK, INLET_NODE, INLET_REFCHECK);
  sh_ok(&r, "all types");
  assert_non_null(strstr(r.out, "3\n"));
  /* Partition directories: dates and the null partition. */
  assert_non_null(strstr(r.out, "dt=2024-01-02"));
  assert_non_null(strstr(r.out, "dt=__HIVE_DEFAULT_PARTITION__"));
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' history t --json", f->dir, INLET_BIN);
  sh_ok(&r, "history");
  assert_non_null(strstr(r.out, "\"partitionBy\":\"[\\\"dt\\\"]\""));
  tu_result_free(&r);
}

static void test_cli__usage_and_missing_table_errors(void **state) {
  fixture *f = *state;
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' scan nope", f->dir, INLET_BIN);
  assert_int_equal(r.status, 3);
  assert_non_null(strstr(r.err, "inlet: "));
  tu_result_free(&r);
  tu_sh(&r, "'%s' create", INLET_BIN);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' create t", f->dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--schema"));
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' create t --schema 'a long' --partition-by zz", f->dir, INLET_BIN);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "zz"));
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' scan x --version 1 --as-of 5", f->dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' create t --schema 'a long, b string' && '%s' checkpoint t", f->dir,
        INLET_BIN, INLET_BIN);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "checkpoint written at version 0"));
  tu_result_free(&r);
  /* The checkpoint is a real file that the hint points at. */
  tu_sh(&r,
        "cd '%s' && test -s t/_delta_log/00000000000000000000.checkpoint.parquet && "
        "grep -q '\"version\":0' t/_delta_log/_last_checkpoint",
        f->dir);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cli__create_append_scan_history_describe, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cli__bad_records_fail_the_append_unless_skipped, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cli__all_types_round_trip_through_refcheck, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cli__usage_and_missing_table_errors, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
