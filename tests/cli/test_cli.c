/*
 * CLI tests: drive the real `inlet` binary and check stdout, stderr and the
 * exit code (0 success, 2 usage error, 3 not found, 5 corrupt, 1 other failures, each with
 * "inlet: <message>"; tests/cli/test_exit_codes.c covers the list).
 * The conversion round trips are checked twice: against rows written here
 * by hand, and against DuckDB's reading of the same file (refcheck).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "testutil.h"

TU_SCRATCH_DIR("cli")

/* Runs the binary with up to 30 arguments (NULL-terminated). */
static void run(tu_result *r, const char *stdin_text, ...) {
  char *argv[32];
  int n = 0;
  argv[n++] = (char *)INLET_BIN;
  va_list ap;
  va_start(ap, stdin_text);
  const char *a;
  while (n < 31 && (a = va_arg(ap, const char *)) != NULL)
    argv[n++] = (char *)a;
  va_end(ap);
  argv[n] = NULL;
  assert_int_equal(tu_run(r, stdin_text, argv), 0);
}

static void expect(tu_result *r, int status, const char *out_has, const char *err_has) {
  if (r->status != status || (out_has && !strstr(r->out, out_has)) ||
      (err_has && !strstr(r->err, err_has)))
    fail_msg("status %d (want %d)\nstdout: %s\nstderr: %s\n(want stdout~'%s' stderr~'%s')",
             r->status, status, r->out, r->err, out_has ? out_has : "", err_has ? err_has : "");
}

static char *path_in(const char *name) {
  static char p[16][4200];
  static int k;
  k = (k + 1) & 15; /* several paths live in one call's arguments */
  snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
  return p[k];
}

static void write_text(const char *name, const char *text) {
  assert_int_equal(tu_write_file(path_in(name), text, strlen(text)), 0);
}

static void test_cli__help_and_version(void **state) {
  (void)state;
  tu_result r;
  run(&r, NULL, "--help", NULL);
  expect(&r, 0, "usage: inlet <command>", NULL);
  assert_non_null(strstr(r.out, "parquet convert"));
  assert_int_equal(r.err_len, 0);
  tu_result_free(&r);
  run(&r, NULL, "--version", NULL);
  expect(&r, 0, "inlet 0.", NULL);
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", "--help", NULL);
  expect(&r, 0, "usage: inlet parquet cat FILE", NULL);
  tu_result_free(&r);
}

static void test_cli__usage_errors_exit_2(void **state) {
  (void)state;
  tu_result r;
  run(&r, NULL, NULL);
  expect(&r, 2, NULL, "inlet: missing command");
  tu_result_free(&r);
  run(&r, NULL, "frobnicate", NULL);
  expect(&r, 2, NULL, "inlet: unknown command 'frobnicate'");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "explode", NULL);
  expect(&r, 2, NULL, "inlet: parquet: unknown subcommand 'explode'");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", NULL);
  expect(&r, 2, NULL, "inlet: parquet cat: missing FILE");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", "x.parquet", "--format", "xml", NULL);
  expect(&r, 2, NULL, "unknown format \"xml\"");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", "x.parquet", "--limit", "-3", NULL);
  expect(&r, 2, NULL, "--limit needs a non-negative integer");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", "x.parquet", "--bogus", NULL);
  expect(&r, 2, NULL, "inlet: unknown option '--bogus'");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "convert", "a.ndjson", "b.parquet", NULL);
  expect(&r, 2, NULL, "--schema is required");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "convert", "a.ndjson", "b.parquet", "--schema", "a lng", NULL);
  expect(&r, 2, NULL, "inlet: --schema: schema: unknown type at position 3");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "convert", "a.txt", "b.parquet", "--schema", "a long", NULL);
  expect(&r, 2, NULL, "use --input-format");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "convert", "a.csv", "b.parquet", "--schema", "a long", "--compression",
      "zip", NULL);
  expect(&r, 2, NULL, "inlet: ");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "convert", "a.csv", "b.parquet", "--schema", "a long",
      "--row-group-size", "12Q", NULL);
  expect(&r, 2, NULL, "--row-group-size needs a positive byte count");
  tu_result_free(&r);
}

static void test_cli__missing_files_exit_3(void **state) {
  (void)state;
  tu_result r;
  const char *missing = path_in("nope.parquet");
  const char *verbs[] = {"schema", "meta", "cat"};
  for (int i = 0; i < 3; i++) {
    run(&r, NULL, "parquet", verbs[i], missing, NULL);
    expect(&r, 3, NULL, "inlet: ");
    assert_non_null(strstr(r.err, "nope.parquet"));
    assert_int_equal(r.out_len, 0);
    tu_result_free(&r);
  }
  run(&r, NULL, "parquet", "convert", path_in("nope.ndjson"), path_in("o.parquet"), "--schema",
      "a long", NULL);
  expect(&r, 3, NULL, "nope.ndjson");
  tu_result_free(&r);
  /* Not a Parquet file at all. */
  write_text("junk.parquet", "this is not parquet at all, just text\n");
  run(&r, NULL, "parquet", "schema", path_in("junk.parquet"), NULL);
  expect(&r, 5, NULL, "inlet: ");
  assert_non_null(strstr(r.err, "junk.parquet"));
  tu_result_free(&r);
}

static const char *events =
    "{\"event_id\":1,\"user\":\"ann\",\"amount\":12.5,\"event_time\":\"2024-01-02T03:04:05Z\"}\n"
    "{\"event_id\":9007199254740993,\"user\":null,\"amount\":0.1,"
    "\"event_time\":\"2024-01-02 04:04:05.25+01:00\"}\n"
    "{\"event_id\":3,\"user\":\"comma, \\\"quote\\\"\",\"event_time\":1704164645}\n";

static void test_cli__convert_then_cat_ndjson_round_trips(void **state) {
  (void)state;
  write_text("ev.ndjson", events);
  tu_result r;
  run(&r, NULL, "parquet", "convert", path_in("ev.ndjson"), path_in("ev.parquet"), "--schema",
      "event_id long not null, user string, amount double, event_time timestamp", "--compression",
      "zstd", NULL);
  expect(&r, 0, "3 rows", NULL);
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", path_in("ev.parquet"), NULL);
  /* 2024-01-02T03:04:05Z = 1704164645 s; the +01:00 row is 03:04:05.25Z. */
  expect(&r, 0,
         "{\"event_id\":1,\"user\":\"ann\",\"amount\":12.5,\"event_time\":\"2024-01-02T03:04:05."
         "000000Z\"}\n"
         "{\"event_id\":\"9007199254740993\",\"user\":null,\"amount\":0.1,"
         "\"event_time\":\"2024-01-02T03:04:05.250000Z\"}\n"
         "{\"event_id\":3,\"user\":\"comma, \\\"quote\\\"\",\"amount\":null,"
         "\"event_time\":\"2024-01-02T03:04:05.000000Z\"}\n",
         NULL);
  assert_int_equal(r.err_len, 0);
  FILE *f = fopen(path_in("cat.ndjson"), "w");
  assert_non_null(f);
  fputs(r.out, f);
  fclose(f);
  tu_result_free(&r);

  /* DuckDB reads the same values from the file inlet wrote. */
  tu_sh(&r, "'%s' '%s' parquet '%s' > '%s' && '%s' '%s' compare '%s' '%s' --ndjson --ordered",
        INLET_NODE, INLET_REFCHECK, path_in("ev.parquet"), path_in("ref.json"), INLET_NODE,
        INLET_REFCHECK, path_in("ref.json"), path_in("cat.ndjson"));
  expect(&r, 0, "OK (3 rows)", NULL);
  tu_result_free(&r);

  run(&r, NULL, "parquet", "schema", path_in("ev.parquet"), NULL);
  expect(&r, 0, "event_id long not null\nuser string\namount double\nevent_time timestamp\n", NULL);
  tu_result_free(&r);
}

static void test_cli__cat_formats_columns_and_limit(void **state) {
  (void)state;
  write_text("c.ndjson", events);
  tu_result r;
  run(&r, NULL, "parquet", "convert", path_in("c.ndjson"), path_in("c.parquet"), "--schema",
      "event_id long not null, user string, amount double, event_time timestamp", NULL);
  expect(&r, 0, NULL, NULL);
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", path_in("c.parquet"), "--format", "csv", "--columns",
      "user,event_id", NULL);
  expect(&r, 0, "user,event_id\nann,1\n,9007199254740993\n\"comma, \"\"quote\"\"\",3\n", NULL);
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", path_in("c.parquet"), "--limit", "1", "--columns", "amount",
      NULL);
  expect(&r, 0, "{\"amount\":12.5}\n", NULL);
  assert_int_equal(r.out_len, strlen("{\"amount\":12.5}\n"));
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", path_in("c.parquet"), "--limit=0", "--format=csv", NULL);
  expect(&r, 0, "event_id,user,amount,event_time\n", NULL);
  assert_int_equal(r.out_len, strlen("event_id,user,amount,event_time\n"));
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", path_in("c.parquet"), "--format", "table", "--columns",
      "event_id,user", NULL);
  expect(&r, 0,
         "event_id         | user\n"
         "-----------------+---------------\n"
         "               1 | ann\n"
         "9007199254740993 | NULL\n"
         "               3 | comma, \"quote\"\n",
         NULL);
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", path_in("c.parquet"), "--columns", "nosuch", NULL);
  expect(&r, 3, NULL, "has no column \"nosuch\"");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "meta", path_in("c.parquet"), NULL);
  expect(&r, 0, "num_rows: 3", NULL);
  tu_result_free(&r);
  run(&r, NULL, "parquet", "meta", path_in("c.parquet"), "--json", NULL);
  expect(&r, 0, "\"num_rows\":", NULL);
  assert_int_equal(r.out[0], '{');
  tu_result_free(&r);
}

static void test_cli__convert_reports_bad_records(void **state) {
  (void)state;
  write_text("bad.ndjson", "{\"id\":1,\"x\":\"a\"}\n"
                           "{\"id\":\"two\"}\n"
                           "{\"x\":\"b\"}\n"
                           "not json\n"
                           "{\"id\":5}\n");
  tu_result r;
  run(&r, NULL, "parquet", "convert", path_in("bad.ndjson"), path_in("bad.parquet"), "--schema",
      "id int not null, x string", NULL);
  expect(&r, 1, NULL, "bad.ndjson:2: field \"id\": expected an integer");
  assert_non_null(strstr(r.err, "bad.ndjson:3: field \"id\": missing NOT NULL field"));
  assert_non_null(strstr(r.err, "bad.ndjson:4: invalid JSON"));
  assert_non_null(strstr(r.err, "3 bad records"));
  tu_result_free(&r);
  /* Nothing was left behind. */
  assert_null(tu_read_file(path_in("bad.parquet"), NULL));
  run(&r, NULL, "parquet", "convert", path_in("bad.ndjson"), path_in("bad.parquet"), "--schema",
      "id int not null, x string", "--skip-bad", NULL);
  expect(&r, 0, "2 rows", "bad.ndjson:2:");
  assert_non_null(strstr(r.out, "3 bad records skipped"));
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", path_in("bad.parquet"), NULL);
  expect(&r, 0, "{\"id\":1,\"x\":\"a\"}\n{\"id\":5,\"x\":null}\n", NULL);
  tu_result_free(&r);
  /* The output exists now: refuse to overwrite without --force. */
  run(&r, NULL, "parquet", "convert", path_in("bad.ndjson"), path_in("bad.parquet"), "--schema",
      "id int not null, x string", "--skip-bad", NULL);
  expect(&r, 1, NULL, "already exists");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "convert", path_in("bad.ndjson"), path_in("bad.parquet"), "--schema",
      "id int not null, x string", "--skip-bad", "--force", NULL);
  expect(&r, 0, "2 rows", NULL);
  tu_result_free(&r);
}

static void test_cli__convert_csv_from_stdin_with_options(void **state) {
  (void)state;
  const char *csv = "id,price,day,note\n"
                    "1,10.50,2024-02-29,\"multi\nline\"\n"
                    "2,-0.01,1970-01-01,\n";
  tu_result r;
  run(&r, csv, "parquet", "convert", "-", path_in("s.parquet"), "--input-format", "csv", "--schema",
      "id long not null, price decimal(9,2), day date, note string", "--compression", "gzip",
      "--no-dictionary", "--page-size", "64K", "--row-group-size", "1M", NULL);
  expect(&r, 0, "2 rows", NULL);
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", path_in("s.parquet"), NULL);
  expect(&r, 0,
         "{\"id\":1,\"price\":\"10.50\",\"day\":\"2024-02-29\",\"note\":\"multi\\nline\"}\n"
         "{\"id\":2,\"price\":\"-0.01\",\"day\":\"1970-01-01\",\"note\":null}\n",
         NULL);
  tu_result_free(&r);
  run(&r, NULL, "parquet", "meta", path_in("s.parquet"), NULL);
  expect(&r, 0, "GZIP", NULL);
  tu_result_free(&r);
}

/* Every flat type through convert and cat, checked value by value against
 * DuckDB's reading of the file (refcheck), in file order. */
static void test_cli__every_flat_type_matches_duckdb(void **state) {
  (void)state;
  write_text(
      "all.ndjson",
      "{\"b\":true,\"i8\":-128,\"i16\":32767,\"i32\":-2147483648,\"i64\":9223372036854775807,"
      "\"u8\":255,\"u16\":65535,\"u32\":4294967295,\"u64\":18446744073709551615,\"f\":0.234,"
      "\"d\":1.1,\"s\":\"h\xc3\xa9llo "
      "\\\"q\\\"\",\"bin\":\"00ff\",\"fx\":\"0102\",\"dt\":\"2021-09-08\","
      "\"tm\":\"12:34:56.789\",\"ts\":\"2021-09-08T11:11:11Z\",\"tsn\":\"2021-09-08T11:11:11."
      "123456\","
      "\"tsms\":\"2021-09-08T11:11:11.5Z\",\"dec\":\"-999.99\","
      "\"dec2\":\"12345678901234567890.123456789012345678\",\"j\":{\"a\":[1,2]},"
      "\"uu\":\"5f1c2e3a-0000-4000-8000-00000000abcd\"}\n"
      "{\"b\":false,\"i8\":0,\"f\":\"NaN\",\"d\":-0.0,\"dec\":\"0.00\",\"dec2\":\"-0."
      "000000000000000001\"}\n"
      "{}\n"
      "{\"d\":1e300,\"f\":-1.5e-7,\"i64\":-9007199254740993,\"ts\":-1,\"dt\":\"1900-02-28\","
      "\"tm\":\"00:00\"}\n");
  tu_result r;
  run(&r, NULL, "parquet", "convert", path_in("all.ndjson"), path_in("all.parquet"), "--schema",
      "b boolean, i8 byte, i16 short, i32 int, i64 long, u8 uint8, u16 uint16, u32 uint32, "
      "u64 uint64, f float, d double, s string, bin binary, fx fixed(2), dt date, tm time, "
      "ts timestamp, tsn timestamp_ntz, tsms timestamp_ms, dec decimal(5,2), "
      "dec2 decimal(38,18), j json, uu uuid",
      NULL);
  expect(&r, 0, "4 rows", NULL);
  tu_result_free(&r);
  tu_sh(&r,
        "'%s' parquet cat '%s' > '%s' && '%s' '%s' parquet '%s' > '%s' && "
        "'%s' '%s' compare '%s' '%s' --ndjson --ordered",
        INLET_BIN, path_in("all.parquet"), path_in("all.out"), INLET_NODE, INLET_REFCHECK,
        path_in("all.parquet"), path_in("all.ref"), INLET_NODE, INLET_REFCHECK, path_in("all.ref"),
        path_in("all.out"));
  expect(&r, 0, "OK (4 rows)", NULL);
  tu_result_free(&r);
  /* A few exact strings, derived by hand. */
  char *out = tu_read_file(path_in("all.out"), NULL);
  assert_non_null(out);
  assert_non_null(strstr(out, "\"i64\":\"9223372036854775807\""));
  assert_non_null(strstr(out, "\"f\":0.23399999737739563"));
  assert_non_null(strstr(out, "\"f\":\"NaN\""));
  assert_non_null(strstr(out, "\"d\":0,"));
  assert_non_null(strstr(out, "\"dec2\":\"-0.000000000000000001\""));
  assert_non_null(strstr(out, "\"ts\":\"1969-12-31T23:59:59.000000Z\""));
  assert_non_null(strstr(out, "\"tm\":\"00:00:00.000000\""));
  free(out);
}

static void test_cli__convert_strict_and_epoch_unit(void **state) {
  (void)state;
  write_text("ep.ndjson", "{\"t\":1500,\"odd name\":\"x\"}\n{\"t\":2,\"zz\":1}\n");
  tu_result r;
  run(&r, NULL, "parquet", "convert", path_in("ep.ndjson"), path_in("ep.parquet"), "--schema",
      "t timestamp_ms, `odd name` string", "--epoch-unit", "ms", "--strict", "--skip-bad", NULL);
  expect(&r, 0, "1 rows", "ep.ndjson:2: unknown field \"zz\"");
  tu_result_free(&r);
  run(&r, NULL, "parquet", "cat", path_in("ep.parquet"), NULL);
  expect(&r, 0, "{\"t\":\"1970-01-01T00:00:01.500000Z\",\"odd name\":\"x\"}\n", NULL);
  tu_result_free(&r);
  run(&r, NULL, "parquet", "schema", path_in("ep.parquet"), NULL);
  expect(&r, 0, "t timestamp_ms\n`odd name` string\n", NULL);
  tu_result_free(&r);
  run(&r, NULL, "parquet", "convert", path_in("ep.ndjson"), path_in("ep2.parquet"), "--schema",
      "t timestamp_ms", "--epoch-unit", "minutes", NULL);
  expect(&r, 2, NULL, "--epoch-unit must be");
  tu_result_free(&r);
}

/* describe's summary for people: the facts the test set up, sizes with
 * units, the commit time as ISO 8601 UTC, and no JSON unless --json. */
static void test_cli__describe_prints_a_short_summary(void **state) {
  (void)state;
  tu_result r;
  const char *t = path_in("described");
  run(&r, NULL, "create", t, "--schema", "id long, day date", "--partition-by", "day", NULL);
  expect(&r, 0, NULL, NULL);
  tu_result_free(&r);
  write_text("described.ndjson", "{\"id\":1,\"day\":\"2024-01-01\"}\n"
                                 "{\"id\":2,\"day\":\"2024-01-02\"}\n"
                                 "{\"id\":3,\"day\":\"2024-01-02\"}\n");
  run(&r, NULL, "append", t, path_in("described.ndjson"), NULL);
  expect(&r, 0, NULL, NULL);
  tu_result_free(&r);
  run(&r, NULL, "describe", t, "--json", NULL);
  expect(&r, 0, NULL, NULL);
  json_t *j = json_loads(r.out, 0, NULL);
  assert_non_null(j);
  long long ts = (long long)json_integer_value(json_object_get(j, "last_commit_timestamp"));
  long long bytes = (long long)json_integer_value(json_object_get(j, "bytes"));
  json_decref(j);
  tu_result_free(&r);
  /* The expected time and size, formatted here independently. */
  time_t secs = (time_t)(ts / 1000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char when[160], size[160];
  snprintf(when, sizeof when, "version      1, committed %04d-%02d-%02dT%02d:%02d:%02d.%03dZ\n",
           tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
           (int)(ts % 1000));
  assert_true(bytes > 0 && bytes < 1024 * 1024); /* two small Parquet files */
  char human[32];
  if (bytes < 1024) {
    snprintf(human, sizeof human, "%lld B", bytes);
  } else {
    snprintf(human, sizeof human, "%.2f", (double)bytes / 1024);
    size_t n = strlen(human);
    while (human[n - 1] == '0')
      human[--n] = '\0';
    if (human[n - 1] == '.') human[--n] = '\0';
    strcat(human, " KiB");
  }
  snprintf(size, sizeof size, "data         3 rows in 2 files, %s; 2 small files (below 128 MiB)\n",
           human);
  run(&r, NULL, "describe", t, NULL);
  expect(&r, 0, "history      2 commits, 0 compactions; no checkpoint\n", NULL);
  expect(&r, 0, when, NULL);
  expect(&r, 0, size, NULL);
  expect(&r, 0, "partitions   2, by day\n", NULL);
  expect(&r, 0, "schema       id long, day date\n", NULL);
  expect(&r, 0, "protocol     reader 1, writer 2\n", NULL);
  assert_null(strchr(r.out, '{'));
  tu_result_free(&r);
}

static void test_cli__demo_round_trip(void **state) {
  (void)state;
  tu_result r;
  run(&r, NULL, "demo", path_in("demo/sub"), NULL);
  expect(&r, 0, "demo OK", NULL);
  assert_non_null(strstr(r.out, "sum(amount) in cents"));
  assert_null(strstr(r.out, "MISMATCH"));
  tu_result_free(&r);
  /* Running again replaces the previous output. */
  run(&r, NULL, "demo", path_in("demo/sub"), NULL);
  expect(&r, 0, "demo OK", NULL);
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli__help_and_version),
      cmocka_unit_test(test_cli__usage_errors_exit_2),
      cmocka_unit_test(test_cli__missing_files_exit_3),
      cmocka_unit_test(test_cli__convert_then_cat_ndjson_round_trips),
      cmocka_unit_test(test_cli__cat_formats_columns_and_limit),
      cmocka_unit_test(test_cli__convert_reports_bad_records),
      cmocka_unit_test(test_cli__convert_csv_from_stdin_with_options),
      cmocka_unit_test(test_cli__every_flat_type_matches_duckdb),
      cmocka_unit_test(test_cli__convert_strict_and_epoch_unit),
      cmocka_unit_test(test_cli__describe_prints_a_short_summary),
      cmocka_unit_test(test_cli__demo_round_trip),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
