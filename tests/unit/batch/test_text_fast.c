/*
 * Unit tests for the NDJSON import fast paths added for ingest throughput
 * (src/batch/text_json.c 8-byte string scan, src/batch/text_conv.c
 * fixed-layout ISO-8601 timestamps and the 19-digit integer shortcut): each
 * must accept and refuse exactly what the general code does. Expected values
 * are derived by hand in the comments or built by the test from the input.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#include "inlet/text.h"

typedef struct fixture {
  inlet_schema schema;
  inlet_text_reader *r;
  inlet_batch b;
} fixture;

static void open_fixture(fixture *f) {
  inlet_error err = INLET_ERROR_INIT;
  memset(f, 0, sizeof *f);
  if (inlet_schema_parse(&f->schema, "s string, t timestamp, i long", &err))
    fail_msg("%s", inlet_errmsg(&err));
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  assert_int_equal(inlet_text_reader_open_memory(&f->r, "", 0, &f->schema, &o, &err), 0);
  assert_int_equal(inlet_batch_init(&f->b, &f->schema, &err), 0);
}

static void close_fixture(fixture *f) {
  inlet_batch_reset(&f->b);
  inlet_text_reader_free(f->r);
  inlet_schema_reset(&f->schema);
}

/* Appends one record; returns the reader's code. */
static int append(fixture *f, const char *rec) {
  inlet_error err = INLET_ERROR_INIT;
  return inlet_text_reader_append(f->r, &f->b, rec, strlen(rec), &err);
}

static void string_at(fixture *f, int64_t row, const char **s, size_t *n) {
  const inlet_array *a = &f->b.columns[0];
  const int32_t *off = a->offsets;
  *s = (const char *)a->values + off[row];
  *n = (size_t)(off[row + 1] - off[row]);
}

static int64_t ts_at(fixture *f, int64_t row) {
  return ((int64_t *)f->b.columns[1].values)[row];
}
static int64_t int_at(fixture *f, int64_t row) {
  return ((int64_t *)f->b.columns[2].values)[row];
}

/* Every length 0..40 with an escape, a multi-byte character or nothing at
 * every position: the word-at-a-time scan must stop exactly where the byte
 * loop would, whatever the alignment of the stop byte. */
static void test_string_scan__escapes_at_every_position(void **state) {
  (void)state;
  static const struct {
    const char *json, *value;
  } specials[] = {{"\\\"", "\""},          {"\\\\", "\\"},           {"\\n", "\n"},
                  {"\\u00e9", "\xc3\xa9"}, {"\xc3\xa9", "\xc3\xa9"}, {"x", "x"}};
  fixture f;
  open_fixture(&f);
  int64_t row = 0;
  for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
    for (int len = 0; len <= 40; len++) {
      for (int at = 0; at <= len; at++) {
        char rec[256], want[128];
        int w = 0, q = snprintf(rec, sizeof rec, "{\"s\":\"");
        for (int i = 0; i < len; i++) {
          if (i == at) {
            q += snprintf(rec + q, sizeof rec - (size_t)q, "%s", specials[k].json);
            w += snprintf(want + w, sizeof want - (size_t)w, "%s", specials[k].value);
          }
          rec[q++] = (char)('a' + i % 26);
          want[w++] = (char)('a' + i % 26);
        }
        snprintf(rec + q, sizeof rec - (size_t)q, "\",\"i\":%d}", len);
        want[w] = '\0';
        assert_int_equal(append(&f, rec), 0);
        const char *s;
        size_t n;
        string_at(&f, row, &s, &n);
        assert_int_equal(n, (size_t)w);
        assert_memory_equal(s, want, n);
        assert_int_equal(int_at(&f, row), len);
        row++;
      }
    }
  }
  close_fixture(&f);
}

/* A raw control character or an unterminated string is refused wherever it
 * sits relative to an 8-byte word. */
static void test_string_scan__control_and_unterminated_refused_at_every_position(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f);
  for (int at = 0; at < 20; at++) {
    char rec[64];
    int q = snprintf(rec, sizeof rec, "{\"s\":\"");
    for (int i = 0; i < 20; i++)
      rec[q++] = i == at ? '\t' : 'z';
    snprintf(rec + q, sizeof rec - (size_t)q, "\"}");
    assert_int_equal(append(&f, rec), INLET_EINVAL);
    rec[q] = '\0'; /* no closing quote */
    assert_int_equal(append(&f, rec), INLET_EINVAL);
  }
  assert_int_equal(f.b.num_rows, 0);
  close_fixture(&f);
}

static void test_timestamp_fast__values_and_variants(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f);
  /* 2024-01-01 is day 19723; 2024-02-29 = 19723 + 31 + 28 = 19782;
   * 1999-12-31 is day 10956. */
  static const struct {
    const char *text;
    int64_t us;
  } ok[] = {
      {"2024-02-29T23:59:59.123456789Z", (19782LL * 86400 + 86399) * 1000000 + 123456},
      {"2024-01-01 00:00:00+01:00", (19722LL * 86400 + 82800) * 1000000},
      {"2024-01-01t00:00:00,5z", 19723LL * 86400 * 1000000 + 500000},
      {"1999-12-31T23:59:59", (10956LL * 86400 + 86399) * 1000000},
      {"2024-01-01T10:20", (19723LL * 86400 + 37200) * 1000000}, /* no seconds: general path */
  };
  for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
    char rec[128];
    snprintf(rec, sizeof rec, "{\"t\":\"%s\"}", ok[k].text);
    assert_int_equal(append(&f, rec), 0);
    assert_int_equal(ts_at(&f, (int64_t)k), ok[k].us);
  }
  static const char *bad[] = {
      "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z",  "2024-00-10T00:00:00Z",
      "2024-04-31T00:00:00Z", "2024-01-01T24:00:00Z",  "2024-01-01T00:60:00Z",
      "2024-01-01T00:00:60Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00.1234567890Z",
      "2024-01-01X00:00:00Z", "2024-01-0aT00:00:00Z",  "2024-01-01T00:00:00Zjunk"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char rec[128];
    snprintf(rec, sizeof rec, "{\"t\":\"%s\"}", bad[k]);
    if (append(&f, rec) != INLET_EINVAL) fail_msg("accepted %s", bad[k]);
  }
  assert_int_equal(f.b.num_rows, (int64_t)(sizeof ok / sizeof ok[0]));
  close_fixture(&f);
}

static void test_integer_digits__overflow_checked_from_the_twentieth_digit(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f);
  assert_int_equal(append(&f, "{\"i\":9223372036854775807}"), 0);
  assert_int_equal(append(&f, "{\"i\":-9223372036854775808}"), 0);
  assert_int_equal(append(&f, "{\"i\":\"0000000000000000000000042\"}"), 0);
  assert_int_equal(append(&f, "{\"i\":1234567890123456789}"), 0);
  assert_int_equal(int_at(&f, 0), INT64_MAX);
  assert_int_equal(int_at(&f, 1), INT64_MIN);
  assert_int_equal(int_at(&f, 2), 42);
  assert_int_equal(int_at(&f, 3), 1234567890123456789LL);
  assert_int_equal(append(&f, "{\"i\":9223372036854775808}"), INLET_EINVAL);
  assert_int_equal(append(&f, "{\"i\":18446744073709551616}"), INLET_EINVAL);
  assert_int_equal(append(&f, "{\"i\":99999999999999999999}"), INLET_EINVAL);
  assert_int_equal(append(&f, "{\"i\":\"1000000000000000000000\"}"), INLET_EINVAL);
  assert_int_equal(f.b.num_rows, 4);
  close_fixture(&f);
}

/* Numbers the one-pass path takes and those it leaves to the general
 * parser, into a double and a long column. */
static void test_number_fast__doubles_and_longs_match_the_general_rules(void **state) {
  (void)state;
  inlet_schema schema;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_schema_parse(&schema, "d double, l long", &err)) fail_msg("%s", inlet_errmsg(&err));
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  inlet_text_reader *r;
  assert_int_equal(inlet_text_reader_open_memory(&r, "", 0, &schema, &o, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_batch_init(&b, &schema, &err), 0);
  static const struct {
    const char *rec;
    double d;
    int64_t l;
  } ok[] = {
      {"{\"d\":9022.35,\"l\":0}", 9022.35, 0},
      {"{\"d\":-0.5,\"l\":-7}", -0.5, -7},
      {"{\"d\":0,\"l\":123456789012345678}", 0.0, 123456789012345678LL},
      {"{\"d\":123456789012345,\"l\":-123456789012345678}", 123456789012345.0,
       -123456789012345678LL},
      {"{\"d\":0.123456789012345,\"l\":9223372036854775807}", 0.123456789012345, INT64_MAX},
      {"{\"d\":1.5e3,\"l\":1}", 1500.0, 1},
      {"{\"d\":0.1234567890123456789,\"l\":2}", 0.1234567890123456789, 2},
      {"{\"d\":12345678901234567890.5,\"l\":3}", 12345678901234567890.5, 3},
  };
  for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
    if (inlet_text_reader_append(r, &b, ok[k].rec, strlen(ok[k].rec), &err))
      fail_msg("%s: %s", ok[k].rec, inlet_errmsg(&err));
    assert_true(((double *)b.columns[0].values)[k] == ok[k].d);
    assert_int_equal(((int64_t *)b.columns[1].values)[k], ok[k].l);
  }
  static const char *bad[] = {"{\"d\":01}",    "{\"d\":1.}",  "{\"d\":-}",
                              "{\"d\":1.5.3}", "{\"l\":1.5}", "{\"l\":-01}",
                              "{\"d\":.5}",    "{\"d\":12x}", "{\"l\":99999999999999999999}"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    if (inlet_text_reader_append(r, &b, bad[k], strlen(bad[k]), &err) != INLET_EINVAL)
      fail_msg("accepted %s", bad[k]);
  assert_int_equal(b.num_rows, (int64_t)(sizeof ok / sizeof ok[0]));
  /* the sign of zero survives, as strtod keeps it */
  assert_int_equal(inlet_text_reader_append(r, &b, "{\"d\":-0.0}", 10, &err), 0);
  assert_true(signbit(((double *)b.columns[0].values)[b.num_rows - 1]));
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  inlet_schema_reset(&schema);
}

/* The expected key is matched against the raw text first: other orders,
 * prefixes and extensions of the expected name, escaped spellings and
 * duplicates must still resolve as the general key lookup does. */
static void test_key_prediction__orders_prefixes_escapes_duplicates(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f);
  assert_int_equal(append(&f, "{\"s\":\"a\",\"t\":null,\"i\":1}"), 0);
  assert_int_equal(append(&f, "{\"i\":2,\"s\":\"b\"}"), 0);
  assert_int_equal(append(&f, "{\"s\":\"c\",\"ii\":9,\"i\":3}"), 0);    /* unknown key "ii" */
  assert_int_equal(append(&f, "{\"\\u0073\":\"d\",\"\\u0069\":4}"), 0); /* "s", "i" escaped */
  assert_int_equal(append(&f, "{\"s\" : \"e\" , \"t\"\t:null,\"i\":5}"), 0);
  assert_int_equal(f.b.num_rows, 5);
  static const char *want[] = {"a", "b", "c", "d", "e"};
  for (int64_t r = 0; r < 5; r++) {
    const char *sv;
    size_t n;
    string_at(&f, r, &sv, &n);
    assert_int_equal(n, 1);
    assert_memory_equal(sv, want[r], 1);
    assert_int_equal(int_at(&f, r), r + 1);
  }
  assert_int_equal(append(&f, "{\"s\":\"x\",\"s\":\"y\"}"), INLET_EINVAL);
  assert_int_equal(append(&f, "{\"s\":\"x\",\"\\u0073\":\"y\"}"), INLET_EINVAL);
  assert_int_equal(append(&f, "{\"s\""), INLET_EINVAL);
  assert_int_equal(append(&f, "{\"s"), INLET_EINVAL);
  assert_int_equal(f.b.num_rows, 5);
  close_fixture(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_string_scan__escapes_at_every_position),
      cmocka_unit_test(test_string_scan__control_and_unterminated_refused_at_every_position),
      cmocka_unit_test(test_timestamp_fast__values_and_variants),
      cmocka_unit_test(test_integer_digits__overflow_checked_from_the_twentieth_digit),
      cmocka_unit_test(test_number_fast__doubles_and_longs_match_the_general_rules),
      cmocka_unit_test(test_key_prediction__orders_prefixes_escapes_duplicates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
