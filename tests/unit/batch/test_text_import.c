/*
 * Unit tests for text import (src/batch/text_reader.c, text_json.c,
 * text_conv.c): every type's conversions, every bad-record kind with its
 * record number, line, offset and field, CSV quoting, batch limits and
 * streaming through a small-chunk source. Expected values are derived by
 * hand in the comments.
 */
#include <math.h>
#include <stdio.h>

#include "testutil.h"

#include "batch/text_int.h"
#include "inlet/text.h"

typedef struct bad_log {
  int n;
  int64_t record[16], line[16], offset[16];
  char field[16][64];
  char reason[16][256];
  char text[16][32]; /* first bytes of the raw record */
} bad_log;

static int on_bad(void *ctx, const inlet_text_bad_record *b) {
  bad_log *log = ctx;
  if (log->n < 16) {
    log->record[log->n] = b->record;
    log->line[log->n] = b->line;
    log->offset[log->n] = b->byte_offset;
    snprintf(log->field[log->n], 64, "%s", b->field ? b->field : "");
    snprintf(log->reason[log->n], 256, "%s", b->reason);
    snprintf(log->text[log->n], 32, "%.*s", (int)(b->text_len < 31 ? b->text_len : 31), b->text);
  }
  log->n++;
  return 0;
}

/* Reads all of @p text into one batch (fails the test on fatal errors). */
static void read_all(inlet_batch *b, const char *ddl, const char *text, inlet_text_format fmt,
                     bad_log *log, inlet_text_reader_options *o_in) {
  inlet_schema s;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_schema_parse(&s, ddl, &err)) fail_msg("%s", inlet_errmsg(&err));
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  if (o_in) o = *o_in;
  o.format = fmt;
  o.on_bad_record = on_bad;
  o.ctx = log;
  memset(log, 0, sizeof *log);
  inlet_text_reader *r;
  assert_int_equal(inlet_text_reader_open_memory(&r, text, strlen(text), &s, &o, &err), 0);
  memset(b, 0, sizeof *b);
  if (inlet_text_reader_next(r, b, &err)) fail_msg("%s", inlet_errmsg(&err));
  assert_int_equal(inlet_batch_validate(b, &err), 0);
  inlet_batch tail;
  memset(&tail, 0, sizeof tail);
  assert_int_equal(inlet_text_reader_next(r, &tail, &err), 0);
  assert_int_equal(tail.num_rows, 0);
  inlet_batch_reset(&tail);
  inlet_text_reader_free(r);
  inlet_schema_reset(&s);
}

static const char *cell(inlet_batch *b, int col, int64_t row) {
  static char out[4][256];
  static int k;
  k = (k + 1) & 3;
  inlet_text_format_value(out[k], sizeof out[k], &b->columns[col], &b->schema.fields[col], row,
                          true);
  return out[k];
}

static int64_t i64_at(inlet_batch *b, int col, int64_t row) {
  return ((int64_t *)b->columns[col].values)[row];
}

static void test_ndjson__seed_events_and_nulls(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(
      &b, "event_id long not null, user string, amount double, event_time timestamp",
      "{\"event_id\":1,\"user\":\"ann\",\"amount\":12.5,\"event_time\":\"2024-01-02T03:04:05Z\"}\n"
      "{\"user\":null,\"event_id\":2,\"amount\":-0.01}\n"
      "\n"
      "{\"event_id\":3,\"extra\":{\"deep\":[1,2,{\"x\":null}]},\"user\":\"b\\u00e9\\n\"}\r\n",
      INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(log.n, 0);
  assert_int_equal(b.num_rows, 3);
  assert_int_equal(i64_at(&b, 0, 2), 3);
  assert_string_equal(cell(&b, 1, 0), "\"ann\"");
  assert_string_equal(cell(&b, 1, 1), "null");
  assert_string_equal(cell(&b, 1, 2), "\"b\xc3\xa9\\n\"");
  assert_string_equal(cell(&b, 2, 1), "-0.01");
  assert_string_equal(cell(&b, 2, 2), "null");
  /* 2024-01-02 is day 19724; + 3h4m5s = 11045 s */
  assert_int_equal(i64_at(&b, 3, 0), (19724LL * 86400 + 11045) * 1000000);
  assert_int_equal(b.columns[3].null_count, 2);
  inlet_batch_reset(&b);
}

static void test_ndjson__integer_ranges_per_width(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "a byte, b short, c int, d long, e uint8, f uint64",
           "{\"a\":-128,\"b\":32767,\"c\":-2147483648,\"d\":\"-9223372036854775808\",\"e\":255,"
           "\"f\":18446744073709551615}\n"
           "{\"a\":128}\n"
           "{\"b\":-32769}\n"
           "{\"c\":2147483648}\n"
           "{\"d\":9223372036854775808}\n"
           "{\"e\":-1}\n"
           "{\"e\":256}\n"
           "{\"f\":18446744073709551616}\n"
           "{\"c\":1.5}\n"
           "{\"c\":true}\n",
           INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(b.num_rows, 1);
  assert_string_equal(cell(&b, 0, 0), "-128");
  assert_string_equal(cell(&b, 2, 0), "-2147483648");
  assert_string_equal(cell(&b, 3, 0), "\"-9223372036854775808\"");
  assert_string_equal(cell(&b, 4, 0), "255");
  assert_string_equal(cell(&b, 5, 0), "\"18446744073709551615\"");
  assert_int_equal(log.n, 9);
  const char *fields[] = {"a", "b", "c", "d", "e", "e", "f", "c", "c"};
  for (int i = 0; i < 9; i++) {
    assert_string_equal(log.field[i], fields[i]);
    assert_int_equal(log.line[i], i + 2);
    assert_int_equal(log.record[i], i + 2);
  }
  assert_non_null(strstr(log.reason[0], "out of range for 8-bit"));
  assert_non_null(strstr(log.reason[4], "negative value"));
  assert_non_null(strstr(log.reason[8], "expected an integer"));
  inlet_batch_reset(&b);
}

static void test_ndjson__floats_exact_and_special(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "f float, d double",
           "{\"f\":0.234,\"d\":1.1}\n"
           "{\"f\":\"NaN\",\"d\":\"-Infinity\"}\n"
           "{\"f\":3e38,\"d\":2.2250738585072014e-308}\n"
           "{\"f\":3,\"d\":123456789012345678901234567890}\n"
           "{\"d\":\"abc\"}\n"
           "{\"f\":1e39}\n",
           INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(b.num_rows, 4);
  float *f = (float *)b.columns[0].values;
  double *d = (double *)b.columns[1].values;
  assert_true(f[0] == 0.234f);
  assert_true(d[0] == 1.1);
  assert_true(isnan(f[1]));
  assert_true(isinf(d[1]) && d[1] < 0);
  assert_true(f[2] == 3e38f);
  assert_true(d[2] == 2.2250738585072014e-308);
  assert_true(d[3] == 1.2345678901234568e29);
  /* Beyond a float's range is a bad record (issue 12), not Infinity. */
  assert_int_equal(log.n, 2);
  assert_string_equal(log.field[0], "d");
  assert_string_equal(log.field[1], "f");
  assert_non_null(strstr(log.reason[1], "out of the range of a float"));
  inlet_batch_reset(&b);
}

static void test_ndjson__decimals_parse_digits_exactly(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "x decimal(5,2), y decimal(38,10)",
           "{\"x\":-123.45,\"y\":\"12345678901234567890.0123456789\"}\n"
           "{\"x\":\"0.1\",\"y\":1e-10}\n"
           "{\"x\":1.10,\"y\":-0}\n"
           "{\"x\":2.5e2}\n"
           "{\"x\":1000}\n"
           "{\"x\":1.234}\n"
           "{\"x\":\"1.2.3\"}\n",
           INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(b.num_rows, 4);
  assert_string_equal(cell(&b, 0, 0), "\"-123.45\"");
  assert_string_equal(cell(&b, 1, 0), "\"12345678901234567890.0123456789\"");
  assert_string_equal(cell(&b, 0, 1), "\"0.10\"");
  assert_string_equal(cell(&b, 1, 1), "\"0.0000000001\"");
  assert_string_equal(cell(&b, 0, 2), "\"1.10\"");
  assert_string_equal(cell(&b, 1, 2), "\"0.0000000000\"");
  assert_string_equal(cell(&b, 0, 3), "\"250.00\"");
  assert_int_equal(log.n, 3);
  assert_non_null(strstr(log.reason[0], "out of range"));
  assert_non_null(strstr(log.reason[1], "more fraction digits"));
  assert_non_null(strstr(log.reason[2], "not a decimal"));
  inlet_batch_reset(&b);
}

static void test_ndjson__timestamps_offsets_and_epochs(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "t timestamp, n timestamp_ntz_ns",
           "{\"t\":\"1970-01-01T00:00:00Z\"}\n"
           "{\"t\":\"1970-01-01 01:00:00+01:00\"}\n"
           "{\"t\":\"1970-01-01T00:00:00.123456789-00:30\"}\n"
           "{\"t\":1700000000}\n"
           "{\"t\":1700000000000}\n"
           "{\"t\":1700000000000000}\n"
           "{\"t\":1700000000000000000}\n"
           "{\"t\":1.5}\n"
           "{\"t\":-1}\n"
           "{\"t\":\"1969-12-31\",\"n\":\"2024-01-02T03:04:05.123456789\"}\n"
           "{\"n\":\"2024-01-02T03:04:05+02:00\"}\n"
           "{\"t\":\"2024-02-30T00:00:00Z\"}\n"
           "{\"t\":\"2024-01-01T25:00:00Z\"}\n"
           "{\"t\":\"2024-01-01T00:00:00.1234567891Z\"}\n",
           INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(b.num_rows, 10);
  /* Epochs in s, ms, us and ns all name 2023-11-14T22:13:20Z. */
  int64_t want[] = {0,
                    0,
                    1800123456,
                    1700000000000000LL,
                    1700000000000000LL,
                    1700000000000000LL,
                    1700000000000000LL,
                    1500000,
                    -1000000,
                    -86400000000LL};
  for (int i = 0; i < 10; i++)
    assert_int_equal(i64_at(&b, 0, i), want[i]);
  assert_string_equal(cell(&b, 0, 2), "\"1970-01-01T00:30:00.123456Z\"");
  assert_string_equal(cell(&b, 0, 3), "\"2023-11-14T22:13:20.000000Z\"");
  assert_string_equal(cell(&b, 1, 9), "\"2024-01-02T03:04:05.123456789\"");
  assert_int_equal(log.n, 4);
  assert_non_null(strstr(log.reason[0], "timestamp_ntz"));
  assert_string_equal(log.field[1], "t");
  inlet_batch_reset(&b);
}

static void test_ndjson__epoch_unit_option_is_exact(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.epoch_unit = INLET_EPOCH_MILLIS;
  read_all(&b, "t timestamp_ms", "{\"t\":5}\n{\"t\":-1}\n", INLET_TEXT_NDJSON, &log, &o);
  assert_int_equal(i64_at(&b, 0, 0), 5);
  assert_int_equal(i64_at(&b, 0, 1), -1);
  inlet_batch_reset(&b);
}

static void test_ndjson__dates_times_binary_uuid_bool(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "d date, t time, h binary, u uuid, k boolean",
           "{\"d\":\"2000-02-29\",\"t\":\"12:34:56.789\",\"h\":\"00FFa0\","
           "\"u\":\"5f1c2e3a-0000-4000-8000-00000000abcd\",\"k\":true}\n"
           "{\"d\":-1,\"t\":\"00:00\",\"h\":\"\",\"u\":\"5f1c2e3a000040008000000000000000\",\"k\":"
           "\"no\"}\n"
           "{\"d\":\"2001-02-29\"}\n"
           "{\"h\":\"abc\"}\n"
           "{\"u\":\"00\"}\n"
           "{\"k\":1}\n",
           INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(b.num_rows, 2);
  assert_string_equal(cell(&b, 0, 0), "\"2000-02-29\"");
  assert_int_equal(((int32_t *)b.columns[0].values)[0], 11016); /* 30 years + 7 leap days + 59 */
  assert_string_equal(cell(&b, 0, 1), "\"1969-12-31\"");
  assert_string_equal(cell(&b, 1, 0), "\"12:34:56.789000\"");
  assert_string_equal(cell(&b, 2, 0), "\"00ffa0\"");
  assert_string_equal(cell(&b, 2, 1), "\"\"");
  assert_string_equal(cell(&b, 3, 0), "\"5f1c2e3a-0000-4000-8000-00000000abcd\"");
  assert_string_equal(cell(&b, 4, 1), "false");
  assert_int_equal(log.n, 4);
  assert_string_equal(log.field[0], "d");
  assert_non_null(strstr(log.reason[1], "odd number of hex"));
  assert_non_null(strstr(log.reason[2], "expected 16 bytes"));
  assert_non_null(strstr(log.reason[3], "expected a boolean"));
  inlet_batch_reset(&b);
}

/* An empty string is no date (it used to read as an uninitialised day). */
static void test_ndjson__empty_date_string_is_bad(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "d date", "{\"d\":\"\"}\n{\"d\":\"2024-01-02\"}\n", INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(b.num_rows, 1);
  assert_string_equal(cell(&b, 0, 0), "\"2024-01-02\"");
  assert_int_equal(log.n, 1);
  assert_non_null(strstr(log.reason[0], "expected a date YYYY-MM-DD, found \"\""));
  inlet_batch_reset(&b);
}

static void test_ndjson__nested_values(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "s struct<a:long not null,b:array<string>>, m map<string,int>, j json",
           "{\"s\":{\"b\":[\"x\",null],\"a\":1},\"m\":{\"z\":1,\"a\":2},\"j\":{\"k\": [1, true]}}\n"
           "{\"s\":null,\"m\":[[\"q\",3]],\"j\":\"str\"}\n"
           "{\"s\":{\"b\":[]}}\n"
           "{\"s\":{\"a\":1,\"a\":2}}\n"
           "{\"m\":{\"k\":\"v\"}}\n",
           INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(b.num_rows, 2);
  assert_string_equal(cell(&b, 0, 0), "{\"a\":1,\"b\":[\"x\",null]}");
  assert_string_equal(cell(&b, 1, 0), "[[\"a\",2],[\"z\",1]]");
  assert_string_equal(cell(&b, 2, 0), "\"{\\\"k\\\": [1, true]}\"");
  assert_string_equal(cell(&b, 0, 1), "null");
  assert_string_equal(cell(&b, 1, 1), "[[\"q\",3]]");
  assert_string_equal(cell(&b, 2, 1), "\"\\\"str\\\"\"");
  assert_int_equal(log.n, 3);
  assert_non_null(strstr(log.reason[0], "missing NOT NULL field \"a\""));
  assert_non_null(strstr(log.reason[1], "duplicate key"));
  assert_string_equal(log.field[2], "m");
  /* Rolled-back rows left no stray child values. */
  assert_int_equal(b.columns[0].children[0].length, 2);
  assert_int_equal(b.columns[0].children[1].children[0].length, 2);
  inlet_batch_reset(&b);
}

static void test_ndjson__bad_records_are_reported_and_skipped(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  const char *text = "{\"id\":1}\n"        /* offset 0 */
                     "{\"id\":2\n"         /* offset 9: syntax */
                     "[1]\n"               /* offset 17: not an object */
                     "{\"x\":1}\n"         /* offset 21: missing NOT NULL */
                     "{\"id\":null}\n"     /* offset 29: null in NOT NULL */
                     "{\"id\":5} x\n"      /* offset 41: trailing text */
                     "{\"id\":\"\xff\"}\n" /* offset 52: not UTF-8 in a string? id is long */
                     "{\"id\":7}";         /* no final newline */
  read_all(&b, "id long not null", text, INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(b.num_rows, 2);
  assert_int_equal(i64_at(&b, 0, 1), 7);
  assert_int_equal(log.n, 6);
  int64_t offs[] = {9, 17, 21, 29, 41, 52};
  assert_string_equal(log.text[0], "{\"id\":2");
  assert_string_equal(log.text[1], "[1]");
  for (int i = 0; i < 6; i++) {
    assert_int_equal(log.offset[i], offs[i]);
    assert_int_equal(log.line[i], i + 2);
  }
  assert_string_equal(log.reason[0], "invalid JSON at column 8: expected ',' or '}'");
  assert_string_equal(log.reason[1], "invalid JSON at column 1: a record must be a JSON object");
  assert_non_null(strstr(log.reason[2], "missing NOT NULL"));
  assert_string_equal(log.field[3], "id");
  assert_non_null(strstr(log.reason[3], "null in a NOT NULL field"));
  assert_non_null(strstr(log.reason[4], "text after"));
  inlet_batch_reset(&b);
}

static void test_reader__byte_order_mark_is_skipped(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "a int", "\xef\xbb\xbf{\"a\":1}\n{\"a\":2}\n", INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(log.n, 0);
  assert_int_equal(b.num_rows, 2);
  inlet_batch_reset(&b);
  read_all(&b, "a int",
           "\xef\xbb\xbf"
           "a\n3\n",
           INLET_TEXT_CSV, &log, NULL);
  assert_int_equal(log.n, 0);
  assert_int_equal(b.num_rows, 1);
  assert_string_equal(cell(&b, 0, 0), "3");
  inlet_batch_reset(&b);
}

static void test_ndjson__strict_rejects_unknown_fields(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.strict = true;
  read_all(&b, "a int", "{\"a\":1}\n{\"a\":2,\"zz\":3}\n", INLET_TEXT_NDJSON, &log, &o);
  assert_int_equal(b.num_rows, 1);
  assert_int_equal(log.n, 1);
  assert_non_null(strstr(log.reason[0], "unknown field \"zz\""));
  inlet_batch_reset(&b);
}

static void test_ndjson__non_string_values_keep_their_text_in_strings(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "s string", "{\"s\":12.50}\n{\"s\":true}\n{\"s\":{\"a\": [1]}}\n{\"s\":[]}\n",
           INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(log.n, 0);
  assert_string_equal(cell(&b, 0, 0), "\"12.50\"");
  assert_string_equal(cell(&b, 0, 1), "\"true\"");
  assert_string_equal(cell(&b, 0, 2), "\"{\\\"a\\\": [1]}\"");
  assert_string_equal(cell(&b, 0, 3), "\"[]\"");
  inlet_batch_reset(&b);
}

static void test_ndjson__keys_with_nul_bytes_match_no_field(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "a int, s string", "{\"a\\u0000b\":1,\"a\":2,\"s\":\"\"}\n", INLET_TEXT_NDJSON, &log,
           NULL);
  assert_int_equal(log.n, 0);
  assert_string_equal(cell(&b, 0, 0), "2");
  assert_string_equal(cell(&b, 1, 0), "\"\""); /* an empty string with no data buffer */
  inlet_batch_reset(&b);
}

static void test_ndjson__invalid_utf8_string_is_bad(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "s string", "{\"s\":\"ok\"}\n{\"s\":\"\xc0\xaf\"}\n{\"s\":\"\\ud800\"}\n",
           INLET_TEXT_NDJSON, &log, NULL);
  assert_int_equal(b.num_rows, 1);
  assert_int_equal(log.n, 2);
  assert_non_null(strstr(log.reason[0], "invalid UTF-8"));
  assert_non_null(strstr(log.reason[1], "surrogate"));
  inlet_batch_reset(&b);
}

static void test_csv__quoting_newlines_and_nulls(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  read_all(&b, "id int not null, name string, score double, tags array<int>",
           "name,id,ignored,score,tags\r\n"
           "\"Smith, J\",1,x,1.5,\"[1,2]\"\r\n"
           "\"multi\nline \"\"quoted\"\"\",2,,,\n"
           "\"\",3,,\"2\",[]\n"
           ",4\n"
           "bad,notanumber\n"
           "\"unterminated,5\n",
           INLET_TEXT_CSV, &log, NULL);
  assert_int_equal(b.num_rows, 4);
  assert_string_equal(cell(&b, 1, 0), "\"Smith, J\"");
  assert_string_equal(cell(&b, 3, 0), "[1,2]");
  assert_string_equal(cell(&b, 1, 1), "\"multi\\nline \\\"quoted\\\"\"");
  assert_string_equal(cell(&b, 2, 1), "null");
  assert_string_equal(cell(&b, 1, 2), "\"\""); /* quoted empty is an empty string */
  assert_string_equal(cell(&b, 2, 2), "2");
  assert_string_equal(cell(&b, 1, 3), "null"); /* unquoted empty is null */
  assert_string_equal(cell(&b, 3, 3), "null");
  assert_int_equal(log.n, 2);
  assert_int_equal(log.record[0], 5);
  assert_int_equal(log.line[0], 7); /* record 2 spans lines 3-4 */
  assert_string_equal(log.field[0], "id");
  assert_non_null(strstr(log.reason[1], "unterminated"));
  inlet_batch_reset(&b);
}

static void test_csv__header_errors_are_fatal(void **state) {
  (void)state;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id int not null, x string", NULL), 0);
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.format = INLET_TEXT_CSV;
  const char *texts[] = {"x\n1\n", "id,id\n1,2\n", "id,zz\n1,2\n"};
  const char *msgs[] = {"lacks NOT NULL column \"id\"", "appears twice", "not in the schema"};
  for (int i = 0; i < 3; i++) {
    o.strict = i == 2;
    inlet_text_reader *r;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(inlet_text_reader_open_memory(&r, texts[i], strlen(texts[i]), &s, &o, &err),
                     0);
    inlet_batch b;
    memset(&b, 0, sizeof b);
    assert_int_equal(inlet_text_reader_next(r, &b, &err), INLET_EINVAL);
    if (!strstr(err.message, msgs[i])) fail_msg("%s", err.message);
    inlet_batch_reset(&b);
    inlet_text_reader_free(r);
  }
  inlet_schema_reset(&s);
}

static void test_csv__no_header_maps_in_order(void **state) {
  (void)state;
  inlet_batch b;
  bad_log log;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.csv_header = false;
  o.csv_delimiter = ';';
  read_all(&b, "a int, b string", "1;x\n2\n3;y;z\n", INLET_TEXT_CSV, &log, &o);
  assert_int_equal(b.num_rows, 2);
  assert_string_equal(cell(&b, 1, 0), "\"x\"");
  assert_string_equal(cell(&b, 1, 1), "null");
  assert_int_equal(log.n, 1);
  assert_non_null(strstr(log.reason[0], "more than 2 fields"));
  inlet_batch_reset(&b);
}

/* A source that hands out at most 7 bytes per read, to exercise refills. */
typedef struct slow_src {
  const char *s;
  size_t n, pos;
} slow_src;

static int64_t slow_read(void *ctx, void *buf, size_t cap, inlet_error *err) {
  (void)err;
  slow_src *src = ctx;
  size_t k = src->n - src->pos;
  if (k > 7) k = 7;
  if (k > cap) k = cap;
  memcpy(buf, src->s + src->pos, k);
  src->pos += k;
  return (int64_t)k;
}

static void test_reader__batches_bounded_and_streamed(void **state) {
  (void)state;
  inlet_buf text = INLET_BUF_INIT;
  for (int i = 0; i < 1000; i++)
    inlet_buf_appendf(&text, "{\"v\":%d,\"s\":\"row %d\"}\n", i, i);
  inlet_buf_appendf(&text, "{\"v\":\"%0300d\"}\n", 1); /* 311 bytes: oversize */
  inlet_buf_appendf(&text, "{\"v\":1000}\n");
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "v long, s string", NULL), 0);
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.max_batch_rows = 300;
  o.max_record_bytes = 100;
  bad_log log;
  memset(&log, 0, sizeof log);
  o.on_bad_record = on_bad;
  o.ctx = &log;
  slow_src src = {(const char *)text.data, text.len, 0};
  inlet_text_reader *r;
  assert_int_equal(inlet_text_reader_new(&r, &s, &o, slow_read, &src, NULL), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t total = 0, sum = 0, batches = 0;
  for (;;) {
    inlet_error err = INLET_ERROR_INIT;
    if (inlet_text_reader_next(r, &b, &err)) fail_msg("%s", inlet_errmsg(&err));
    if (b.num_rows == 0) break;
    assert_true(b.num_rows <= 300);
    assert_int_equal(inlet_batch_validate(&b, NULL), 0);
    for (int64_t i = 0; i < b.num_rows; i++)
      sum += i64_at(&b, 0, i);
    total += b.num_rows;
    batches++;
  }
  assert_int_equal(total, 1001);
  assert_int_equal(sum, 999 * 1000 / 2 + 1000);
  assert_int_equal(batches, 4);
  assert_int_equal(log.n, 1);
  assert_int_equal(log.line[0], 1001);
  assert_non_null(strstr(log.reason[0], "exceeds the 100-byte limit"));
  assert_string_equal(log.text[0], "{\"v\":\""
                                   "0000000000000000000000000"); /* 31 bytes */
  inlet_text_reader_stats st;
  inlet_text_reader_get_stats(r, &st);
  assert_int_equal(st.rows, 1001);
  assert_int_equal(st.bad_records, 1);
  assert_int_equal(st.bytes, (int64_t)text.len);
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  inlet_schema_reset(&s);
  inlet_buf_reset(&text);
}

static void test_reader__append_one_record(void **state) {
  (void)state;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "a int not null, b string", NULL), 0);
  inlet_text_reader *r;
  assert_int_equal(inlet_text_reader_open_memory(&r, "", 0, &s, NULL, NULL), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, NULL), 0);
  inlet_error err = INLET_ERROR_INIT;
  const char *good = "{\"a\":1,\"b\":\"x\"}", *bad = "{\"b\":\"y\",\"a\":\"q\"}";
  assert_int_equal(inlet_text_reader_append(r, &b, good, strlen(good), &err), 0);
  assert_int_equal(inlet_text_reader_append(r, &b, bad, strlen(bad), &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "field \"a\": expected an integer"));
  assert_int_equal(b.num_rows, 1);
  assert_int_equal(b.columns[1].length, 1); /* "y" was rolled back */
  assert_int_equal(b.columns[1].offsets[1], 1);
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  inlet_schema_reset(&s);
}

static void test_reader__missing_file_is_notfound(void **state) {
  (void)state;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "a int", NULL), 0);
  inlet_text_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_text_reader_open_path(&r, "/nonexistent/x.ndjson", &s, NULL, &err),
                   INLET_ENOTFOUND);
  assert_null(r);
  assert_non_null(strstr(err.message, "/nonexistent/x.ndjson"));
  inlet_schema_reset(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ndjson__seed_events_and_nulls),
      cmocka_unit_test(test_ndjson__integer_ranges_per_width),
      cmocka_unit_test(test_ndjson__floats_exact_and_special),
      cmocka_unit_test(test_ndjson__decimals_parse_digits_exactly),
      cmocka_unit_test(test_ndjson__timestamps_offsets_and_epochs),
      cmocka_unit_test(test_ndjson__epoch_unit_option_is_exact),
      cmocka_unit_test(test_ndjson__dates_times_binary_uuid_bool),
      cmocka_unit_test(test_ndjson__empty_date_string_is_bad),
      cmocka_unit_test(test_ndjson__nested_values),
      cmocka_unit_test(test_ndjson__bad_records_are_reported_and_skipped),
      cmocka_unit_test(test_ndjson__strict_rejects_unknown_fields),
      cmocka_unit_test(test_reader__byte_order_mark_is_skipped),
      cmocka_unit_test(test_ndjson__invalid_utf8_string_is_bad),
      cmocka_unit_test(test_ndjson__keys_with_nul_bytes_match_no_field),
      cmocka_unit_test(test_ndjson__non_string_values_keep_their_text_in_strings),
      cmocka_unit_test(test_csv__quoting_newlines_and_nulls),
      cmocka_unit_test(test_csv__header_errors_are_fatal),
      cmocka_unit_test(test_csv__no_header_maps_in_order),
      cmocka_unit_test(test_reader__batches_bounded_and_streamed),
      cmocka_unit_test(test_reader__append_one_record),
      cmocka_unit_test(test_reader__missing_file_is_notfound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
