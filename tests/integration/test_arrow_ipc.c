/*
 * `inlet scan --format arrow|arrow-file` end to end, proved with the real
 * Arrow implementation: the Apache Arrow JavaScript library
 * (tests/integration/arrow_ipc_check.mjs) reads inlet's IPC stream and file
 * output, uncompressed, LZ4_FRAME and ZSTD, for a table of every Delta type
 * (nested struct, list and map included), to the same values as
 * `inlet scan --format ndjson` prints, row by row; a 1,000,000-row table
 * reads back to the row count and sums computed from the rows this test
 * generated. The CLI rules around the binary formats (no terminal, the
 * extension picks the format, compression only for Arrow) are checked too.
 */
#include "testutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"

TU_SCRATCH_DIR("arrow-ipc")

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

static void run_ok(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_ok(const char *what, const char *fmt, ...) {
  tu_result r;
  char cmd[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  tu_sh(&r, "cd '%s' && %s", dir, cmd);
  sh_ok(&r, what);
  tu_result_free(&r);
}

#define SCHEMA                                                                                     \
  "b boolean, i8 byte, i16 short, i32 int, i64 long not null, f float, d double, "                 \
  "dec decimal(10,2), big decimal(38,6), dt date, ts timestamp, tsn timestamp_ntz, s string, "     \
  "bin binary, st struct<x:int,y:string,z:struct<q:boolean>>, l array<long>, "                     \
  "ls array<struct<a:string,b:array<double>>>, m map<string,int>, "                                \
  "ml map<int,array<string>>"

/* Rows with edge values, then enough ordinary rows for several batches of
 * compressible data. */
static void make_every_type_table(void) {
  run_ok("create", "'%s' create t --schema '" SCHEMA "' --property delta.enableChangeDataFeed=true",
         INLET_BIN);
  char path[4300];
  snprintf(path, sizeof path, "%s/edge.ndjson", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("{\"b\":true,\"i8\":-128,\"i16\":32767,\"i32\":-2147483648,\"i64\":9007199254740993,"
        "\"f\":1.5,\"d\":-2.25,\"dec\":\"12345678.90\",\"big\":"
        "\"-12345678901234567890123.456789\",\"dt\":\"2024-02-29\","
        "\"ts\":\"2024-05-01T12:00:00.123456Z\",\"tsn\":\"2024-05-01T12:00:00\","
        "\"s\":\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\",\"bin\":\"00ff10\","
        "\"st\":{\"x\":1,\"y\":\"a\",\"z\":{\"q\":false}},\"l\":[1,2,null],"
        "\"ls\":[{\"a\":\"x\",\"b\":[0.5,null]},null,{\"a\":null,\"b\":null}],"
        "\"m\":{\"k\":1,\"z\":null,\"a\":-7},\"ml\":{\"3\":[\"p\",null],\"-1\":[]}}\n",
        f);
  fputs("{\"i64\":0}\n", f); /* every nullable column null */
  fputs("{\"b\":false,\"i8\":127,\"i16\":-32768,\"i32\":2147483647,"
        "\"i64\":-9223372036854775808,\"f\":\"NaN\",\"d\":\"-Infinity\",\"dec\":\"-0.01\","
        "\"big\":\"98765432109876543210987.654321\",\"dt\":\"1969-12-31\","
        "\"ts\":\"1969-12-31T23:59:59.999999Z\",\"tsn\":\"1999-12-31T23:59:59.999999\","
        "\"s\":\"\",\"bin\":\"\",\"st\":{\"x\":null,\"y\":null,\"z\":null},\"l\":[],"
        "\"ls\":[],\"m\":{},\"ml\":{}}\n",
        f);
  fclose(f);
  run_ok("append edge rows", "'%s' append t edge.ndjson", INLET_BIN);
  snprintf(path, sizeof path, "%s/bulk.ndjson", dir);
  f = fopen(path, "w");
  assert_non_null(f);
  for (int i = 0; i < 3000; i++)
    fprintf(f,
            "{\"b\":%s,\"i8\":%d,\"i16\":%d,\"i32\":%d,\"i64\":%d,\"f\":%d.25,\"d\":%d.125,"
            "\"dec\":\"%d.%02d\",\"big\":\"%d.000001\",\"dt\":\"2024-06-%02d\","
            "\"ts\":\"2024-06-%02dT%02d:%02d:00.%06dZ\",\"tsn\":\"2024-06-01T00:00:%02d\","
            "\"s\":%s,\"bin\":\"%02x%02x\",\"st\":{\"x\":%d,\"y\":\"user-%d\",\"z\":{\"q\":%s}},"
            "\"l\":[%d,%d],\"ls\":[{\"a\":\"k%d\",\"b\":[%d.5]}],\"m\":{\"u%d\":%d},"
            "\"ml\":{\"%d\":[\"v\"]}}\n",
            i % 3 ? "true" : "false", i % 100 - 50, i * 7 % 30000, i * 1000, i, i % 50, i, i % 1000,
            i % 100, i * 13, 1 + i % 28, 1 + i % 28, i % 24, i % 60, i * 37 % 1000000, i % 60,
            i % 7 == 0   ? "null"
            : i % 5 == 0 ? "\"\""
                         : "\"event\"",
            i & 255, i % 17, i % 11, i % 40, i % 2 ? "true" : "false", i, -i, i % 9, i % 4, i % 6,
            i, i % 3);
  fclose(f);
  run_ok("append bulk rows", "'%s' append t bulk.ndjson", INLET_BIN);
  run_ok("scan ndjson", "'%s' scan t --format ndjson > expected.ndjson", INLET_BIN);
}

static void assert_magic(const char *name, bool file) {
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t len;
  char *data = tu_read_file(path, &len);
  assert_non_null(data);
  assert_true(len > 16);
  if (file) {
    assert_memory_equal(data, "ARROW1\0\0", 8);
    assert_memory_equal(data + len - 6, "ARROW1", 6);
  } else {
    assert_memory_equal(data, "\xff\xff\xff\xff", 4);
    assert_memory_equal(data + len - 8, "\xff\xff\xff\xff\0\0\0\0", 8); /* end of stream */
  }
  free(data);
}

static long file_size(const char *name) {
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t len = 0;
  char *data = tu_read_file(path, &len);
  assert_non_null(data);
  free(data);
  return (long)len;
}

static void test_arrow_ipc__apache_arrow_reads_every_type_as_ndjson(void **state) {
  (void)state;
  make_every_type_table();
  /* The expected values are inlet's NDJSON; anchor it on the input. */
  size_t len;
  char path[4300];
  snprintf(path, sizeof path, "%s/expected.ndjson", dir);
  char *expected = tu_read_file(path, &len);
  assert_non_null(expected);
  assert_non_null(strstr(expected, "\"i64\":\"9007199254740993\""));
  assert_non_null(strstr(expected, "\"ts\":\"2024-05-01T12:00:00.123456Z\""));
  assert_non_null(strstr(expected, "\"tsn\":\"2024-05-01T12:00:00.000000\","));
  assert_non_null(strstr(expected, "\"big\":\"-12345678901234567890123.456789\""));
  assert_non_null(strstr(expected, "\"m\":[[\"a\",-7],[\"k\",1],[\"z\",null]]"));
  int lines = 0;
  for (const char *p = expected; *p; p++)
    lines += *p == '\n';
  assert_int_equal(lines, 3003);
  free(expected);

  /* Every format and codec; stdout through a pipe and the extension too. */
  run_ok("arrow stream", "'%s' scan t --format arrow --output s-none.arrows", INLET_BIN);
  run_ok("arrow stream lz4",
         "'%s' scan t --format arrow --arrow-compression lz4 --output s-lz4.arrows", INLET_BIN);
  run_ok("arrow stream zstd", "'%s' scan t --format arrow --arrow-compression zstd | cat > s-zstd",
         INLET_BIN);
  run_ok("arrow file", "'%s' scan t --output f-none.arrow", INLET_BIN);
  run_ok("arrow file lz4", "'%s' scan t --format arrow-file --arrow-compression LZ4 > f-lz4",
         INLET_BIN);
  run_ok("arrow file zstd",
         "'%s' scan t --format arrow-file --arrow-compression zstd --output f-zstd.arrow",
         INLET_BIN);
  assert_magic("s-none.arrows", false);
  assert_magic("s-lz4.arrows", false);
  assert_magic("s-zstd", false);
  assert_magic("f-none.arrow", true);
  assert_magic("f-lz4", true);
  assert_magic("f-zstd.arrow", true);
  /* Compression took effect on this repetitive data. */
  assert_true(file_size("s-zstd") < file_size("s-none.arrows") / 2);
  assert_true(file_size("s-lz4.arrows") < file_size("s-none.arrows"));
  assert_true(file_size("f-zstd.arrow") < file_size("f-none.arrow") / 2);

  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' '%s/tests/integration/arrow_ipc_check.mjs' '%s' compare expected.ndjson "
        "s-none.arrows s-lz4.arrows s-zstd f-none.arrow f-lz4 f-zstd.arrow",
        dir, INLET_NODE, INLET_SOURCE_DIR, INLET_APACHEARROW_DIR);
  sh_ok(&r, "apache-arrow compare");
  assert_non_null(strstr(r.out, "\"files\":6,\"rows\":18018,"));
  assert_non_null(strstr(r.out, "\"problems\":[]"));
  /* The types as Arrow sees them: zone UTC only for timestamp, decimal
   * precision and scale, nullability, nested shapes. */
  const char *want[] = {
      "\"i8:Int8:true\"",
      "\"i64:Int64:false\"",
      "\"f:Float32:true\"",
      "\"dec:Decimal[10e+2]:true\"",
      "\"big:Decimal[38e+6]:true\"",
      "\"dt:Date32<DAY>:true\"",
      "\"ts:Timestamp<MICROSECOND, UTC>:true\"",
      "\"tsn:Timestamp<MICROSECOND>:true\"",
      "\"bin:Binary:true\"",
      "\"st:Struct<{x:Int32, y:Utf8, z:Struct<{q:Bool}>}>:true\"",
      "\"l:List<Int64>:true\"",
      "\"m:Map<{key:Utf8, value:Int32}>:true\"",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(r.out, want[i])) fail_msg("no %s in %s", want[i], r.out);
  tu_result_free(&r);

  /* The check itself fails on a wrong value. */
  tu_sh(&r,
        "cd '%s' && sed 's/\"user-3\"/\"user-x\"/' expected.ndjson > wrong.ndjson && '%s' "
        "'%s/tests/integration/arrow_ipc_check.mjs' '%s' compare wrong.ndjson f-zstd.arrow",
        dir, INLET_NODE, INLET_SOURCE_DIR, INLET_APACHEARROW_DIR);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.out, "user-x"));
  tu_result_free(&r);

  /* changes shares the output path. */
  tu_sh(&r,
        "cd '%s' && '%s' changes t --from 1 --to 1 --format arrow > c.arrows && '%s' changes t "
        "--from 1 --to 1 --format ndjson > c.ndjson && '%s' "
        "'%s/tests/integration/arrow_ipc_check.mjs' '%s' compare c.ndjson c.arrows",
        dir, INLET_BIN, INLET_BIN, INLET_NODE, INLET_SOURCE_DIR, INLET_APACHEARROW_DIR);
  sh_ok(&r, "changes as arrow");
  assert_non_null(strstr(r.out, "\"rows\":3,"));
  tu_result_free(&r);
}

static void test_arrow_ipc__million_rows_read_back_to_count_and_sums(void **state) {
  (void)state;
  enum { N = 1000000 };
  run_ok("create", "'%s' create big --schema 'id long not null, name string, amount double'",
         INLET_BIN);
  char path[4300];
  snprintf(path, sizeof path, "%s/big.ndjson", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  long long id_sum = 0, name_bytes = 0, null_names = 0;
  for (int i = 0; i < N; i++) {
    id_sum += i;
    if (i % 10 == 3) {
      null_names++;
      fprintf(f, "{\"id\":%d,\"name\":null,\"amount\":%d.5}\n", i, i % 1000);
    } else {
      char name[32];
      int n = snprintf(name, sizeof name, "name-%d", i % 977);
      name_bytes += n;
      fprintf(f, "{\"id\":%d,\"name\":\"%s\",\"amount\":%d.5}\n", i, name, i % 1000);
    }
  }
  fclose(f);
  /* Every amount is k + 0.5 with k < 1000: the double sum is exact. */
  double amount_sum = 0;
  for (int i = 0; i < N; i++)
    amount_sum += i % 1000 + 0.5;
  run_ok("append", "'%s' append big big.ndjson", INLET_BIN);
  run_ok("arrow", "'%s' scan big --format arrow --output big.arrows", INLET_BIN);
  run_ok("arrow-file zstd",
         "'%s' scan big --format arrow-file --arrow-compression zstd --output big.arrow",
         INLET_BIN);
  const char *files[] = {"big.arrows", "big.arrow"};
  for (int k = 0; k < 2; k++) {
    tu_result r;
    tu_sh(&r, "cd '%s' && '%s' '%s/tests/integration/arrow_ipc_check.mjs' '%s' checksum %s", dir,
          INLET_NODE, INLET_SOURCE_DIR, INLET_APACHEARROW_DIR, files[k]);
    sh_ok(&r, "apache-arrow checksum");
    int batches = 0;
    const char *b = strstr(r.out, "\"batches\":");
    assert_non_null(b);
    assert_int_equal(sscanf(b, "\"batches\":%d", &batches), 1);
    assert_true(batches >= 1);
    char exact[256];
    snprintf(exact, sizeof exact,
             "\"rows\":%d,\"batches\":%d,\"id_sum\":\"%lld\",\"name_bytes\":%lld,"
             "\"null_names\":%lld,\"amount_sum\":%.0f}",
             N, batches, id_sum, name_bytes, null_names, amount_sum);
    if (!strstr(r.out, exact)) fail_msg("%s: got %s, want {%s", files[k], r.out, exact);
    tu_result_free(&r);
  }
}

static void test_arrow_ipc__cli_rules(void **state) {
  (void)state;
  run_ok("create", "'%s' create t --schema 'id long, s string'", INLET_BIN);
  run_ok("append", "printf '{\"id\":1,\"s\":\"a\"}\\n' > in.ndjson && '%s' append t in.ndjson",
         INLET_BIN);
  tu_result r;
  /* A terminal never gets binary Arrow. */
  const char *formats[] = {"arrow", "arrow-file"};
  for (int k = 0; k < 2; k++) {
    tu_sh(&r, "cd '%s' && INLET_FORCE_TTY=1 '%s' scan t --format %s", dir, INLET_BIN, formats[k]);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    assert_non_null(strstr(r.err, "refusing to write binary Arrow IPC to a terminal"));
    tu_result_free(&r);
  }
  /* ... but a file given with --output is fine from a terminal. */
  tu_sh(&r, "cd '%s' && INLET_FORCE_TTY=1 '%s' scan t --output x.arrows", dir, INLET_BIN);
  sh_ok(&r, "tty with --output");
  tu_result_free(&r);
  assert_magic("x.arrows", false);
  run_ok("arrow extension", "'%s' scan t --output x.arrow", INLET_BIN);
  assert_magic("x.arrow", true);
  /* Refused without --force, like every format. */
  tu_sh(&r, "cd '%s' && '%s' scan t --output x.arrow", dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  /* --arrow-compression: Arrow formats only, known names only. */
  tu_sh(&r, "cd '%s' && '%s' scan t --format ndjson --arrow-compression zstd", dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--arrow-compression: only with --format arrow or arrow-file"));
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' scan t --format arrow --arrow-compression snappy > y", dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "unknown Arrow compression \"snappy\""));
  tu_result_free(&r);
  /* The help names the formats. */
  tu_sh(&r, "'%s' scan --help", INLET_BIN);
  assert_non_null(strstr(r.out, "arrow (Arrow IPC stream)"));
  assert_non_null(strstr(r.out, "--arrow-compression"));
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_arrow_ipc__apache_arrow_reads_every_type_as_ndjson,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_arrow_ipc__million_rows_read_back_to_count_and_sums,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_arrow_ipc__cli_rules, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
