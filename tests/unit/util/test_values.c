/*
 * Unit tests for the value helpers kept in one place (issue 13 §2): the
 * calendar and ISO-8601 grammar (util/datetime.c), the duration grammar
 * (util/duration.c) and the compression-name table (codec/codec.c), with
 * the table-property readers built on them.
 */
#include "testutil.h"

#include <stdio.h>

#include "inlet/ingest.h"
#include "inlet/maint.h"

#include "codec/codec.h"
#include "delta/delta.h"
#include "util/buf.h"
#include "util/datetime.h"
#include "util/duration.h"
#include "util/util.h"

/* ---- calendar ------------------------------------------------------------ */

static void test_calendar__known_days(void **state) {
  (void)state;
  assert_int_equal(inlet_days_from_civil(1970, 1, 1), 0);
  assert_int_equal(inlet_days_from_civil(1969, 12, 31), -1);
  assert_int_equal(inlet_days_from_civil(2000, 3, 1), 10957 + 31 + 29);
  assert_int_equal(inlet_days_from_civil(2024, 2, 29), 19723 + 31 + 28);
  assert_int_equal(inlet_days_from_civil(0, 1, 1), -719528);
  assert_int_equal(inlet_days_from_civil(-1, 12, 31), -719529);
  assert_true(inlet_is_leap_year(2000));
  assert_false(inlet_is_leap_year(1900));
  assert_true(inlet_is_leap_year(-4));
  assert_int_equal(inlet_days_in_month(2023, 2), 28);
  assert_int_equal(inlet_days_in_month(2024, 2), 29);
  assert_int_equal(inlet_days_in_month(2024, 4), 30);
  assert_int_equal(inlet_days_in_month(2024, 13), 0);
}

/* Day by day over ±2200 years: the inverse round-trips and each day is the
 * previous one plus one in the calendar (month lengths, leap days). */
static void test_calendar__walks_day_by_day(void **state) {
  (void)state;
  int64_t py;
  int pm, pd;
  inlet_civil_from_days(-800001, &py, &pm, &pd);
  for (int64_t z = -800000; z <= 800000; z++) {
    int64_t y;
    int m, d;
    inlet_civil_from_days(z, &y, &m, &d);
    if (inlet_days_from_civil(y, m, d) != z) fail_msg("day %lld does not round-trip", (long long)z);
    bool next_day = y == py && m == pm && d == pd + 1;
    bool next_month = d == 1 && pd == inlet_days_in_month(py, pm) &&
                      ((y == py && m == pm + 1) || (y == py + 1 && m == 1 && pm == 12));
    if (!next_day && !next_month)
      fail_msg("day %lld: %lld-%d-%d after %lld-%d-%d", (long long)z, (long long)y, m, d,
               (long long)py, pm, pd);
    py = y, pm = m, pd = d;
  }
}

/* ---- ISO-8601 dates and timestamps ---------------------------------------- */

static bool ts(const char *s, int64_t *secs, int64_t *nanos, bool *has_off) {
  int32_t off;
  return inlet_iso_timestamp_parse(s, strlen(s), secs, nanos, has_off, &off) == NULL;
}

static void test_iso__dates(void **state) {
  (void)state;
  int32_t d = 0;
  assert_true(inlet_iso_date_parse("2024-02-29", 10, &d));
  assert_int_equal(d, 19723 + 31 + 28);
  assert_true(inlet_iso_date_parse("+10000-01-01", 12, &d));
  assert_int_equal(d, inlet_days_from_civil(10000, 1, 1));
  assert_true(inlet_iso_date_parse("10000-01-01", 11, &d)); /* as Spark prints it */
  assert_true(inlet_iso_date_parse("-0001-12-31", 11, &d));
  assert_int_equal(d, -719529);
  const char *bad[] = {"2023-02-29", "2024-13-01",  "2024-00-10", "2024-01-32", "2024-1-01",
                       "24-01-01",   "2024-01-01 ", "",           "2024/01/01", "2024-01-01T00:00"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (inlet_iso_date_parse(bad[i], strlen(bad[i]), &d)) fail_msg("accepted date \"%s\"", bad[i]);
}

static void test_iso__timestamps(void **state) {
  (void)state;
  int64_t s, ns;
  bool off;
  assert_true(ts("2009-10-12T17:50:30.5Z", &s, &ns, &off));
  assert_int_equal(s, 1255369830);
  assert_int_equal(ns, 500000000);
  assert_true(off);
  assert_true(ts("2009-10-12 19:50:30+02:00", &s, &ns, &off));
  assert_int_equal(s, 1255369830);
  assert_true(ts("2009-10-12t12:20:30-0530", &s, &ns, &off));
  assert_int_equal(s, 1255369830);
  assert_true(ts("2009-10-12T17:50", &s, &ns, &off)); /* seconds optional, wall clock */
  assert_int_equal(s, 1255369800);
  assert_false(off);
  assert_true(ts("2009-10-12", &s, &ns, &off));
  assert_int_equal(s, 1255305600);
  assert_true(ts("-0001-12-31T23:59:59Z", &s, &ns, &off));
  assert_int_equal(s, -719528LL * 86400 - 1);
  assert_true(ts("2009-10-12T17:50:30,123456789", &s, &ns, &off));
  assert_int_equal(ns, 123456789);
  int64_t us = 0;
  assert_true(inlet_iso_timestamp_micros("1970-01-01 00:00:00.123456789", 29, &us));
  assert_int_equal(us, 123456); /* past the sixth digit truncated */
  const char *bad[] = {"2024-01-01T24:00",
                       "2024-01-01T23:59:60",
                       "2024-01-01T12",
                       "2024-01-01T12:00:00.",
                       "2024-01-01T12:00:00.1234567890",
                       "2024-01-01T12:00:00+25:00",
                       "2024-01-01T12:00:00Zjunk",
                       "2024-01-01X",
                       " 2024-01-01",
                       "now"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (ts(bad[i], &s, &ns, &off)) fail_msg("accepted timestamp \"%s\"", bad[i]);
}

/* The fast path (YYYY-MM-DDTHH:MM:SS) and the general parser agree. */
static void test_iso__fast_and_general_paths_agree(void **state) {
  (void)state;
  for (int64_t sec = -5000000000LL; sec < 5000000000LL; sec += 86399 * 37 + 11) {
    int64_t days = sec >= 0 ? sec / 86400 : -((-sec + 86399) / 86400);
    int64_t tod = sec - days * 86400, y;
    int m, d;
    inlet_civil_from_days(days, &y, &m, &d);
    if (y < 0 || y > 9999) continue;
    char a[64], b[64];
    /* A 4-digit year takes the fixed-offset fast path; the same instant
     * with a signed year and a zero offset takes the general one. */
    snprintf(a, sizeof a, "%04lld-%02d-%02dT%02d:%02d:%02d.25Z", (long long)y, m, d,
             (int)(tod / 3600), (int)(tod / 60 % 60), (int)(tod % 60));
    snprintf(b, sizeof b, "+%04lld-%02d-%02dT%02d:%02d:%02d.25+00:00", (long long)y, m, d,
             (int)(tod / 3600), (int)(tod / 60 % 60), (int)(tod % 60));
    int64_t s1, n1, s2, n2;
    bool o;
    assert_true(ts(a, &s1, &n1, &o));
    assert_true(ts(b, &s2, &n2, &o));
    assert_int_equal(s1, sec);
    assert_int_equal(s2, sec);
    assert_int_equal(n1, 250000000);
    assert_int_equal(n2, 250000000);
  }
}

/* Parsing with a date memo gives what parsing without gives, text after
 * text, whatever the memo holds: the same date with other times, a bad
 * time or zone after a good date, a bad date after a good one (the
 * same first bytes), lower-case and space separators. */
static void test_iso__date_memo_changes_nothing(void **state) {
  (void)state;
  const char *texts[] = {"2023-11-14T22:13:20.001761Z",
                         "2023-11-14T22:13:21Z",
                         "2023-11-14T23:59:59.999+01:00",
                         "2023-11-14T24:00:00Z",
                         "2023-11-14T22:60:00Z",
                         "2023-11-14T22:13:20.Z",
                         "2023-11-14T22:13:20Zjunk",
                         "2023-11-14 22:13:20",
                         "2023-11-14t22:13:20",
                         "2023-11-14X22:13:20",
                         "2023-11-15T00:00:00Z",
                         "2023-11-1AT00:00:00Z",
                         "2023-02-28T01:02:03Z",
                         "2023-02-29T01:02:03Z",
                         "2024-02-29T01:02:03Z",
                         "2023-02-28T01:02:03Z",
                         "2023-02-28T1:02:03Z",
                         "2023-02-28",
                         "2023-02-28T01:02",
                         "+2023-02-28T01:02:03Z",
                         "2023-02-28T01:02:03.123456789Z",
                         "2023-02-28T01:02:03-23:59",
                         "0000-01-01T00:00:00Z",
                         "9999-12-31T23:59:59Z",
                         "2023-11-14T22:13:20.001761Z",
                         "2023-11-14T22:13:20.001761"};
  inlet_date_memo memo;
  memset(&memo, 0, sizeof memo);
  for (int round = 0; round < 2; round++)
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
      const char *t = texts[i];
      int64_t s1 = -1, n1 = -1, s2 = -1, n2 = -1;
      bool o1 = false, o2 = false;
      int32_t f1 = -1, f2 = -1;
      const char *w1 = inlet_iso_timestamp_parse(t, strlen(t), &s1, &n1, &o1, &f1);
      const char *w2 = inlet_iso_timestamp_parse_memo(t, strlen(t), &memo, &s2, &n2, &o2, &f2);
      if ((w1 == NULL) != (w2 == NULL) || (w1 && strcmp(w1, w2) != 0))
        fail_msg("\"%s\": %s without the memo, %s with it", t, w1 ? w1 : "ok", w2 ? w2 : "ok");
      if (w1) continue;
      assert_int_equal(s1, s2);
      assert_int_equal(n1, n2);
      assert_int_equal(o1, o2);
      assert_int_equal(f1, f2);
    }
  /* The memo was used: it holds the last good fast-path date. */
  assert_true(memo.valid);
  uint64_t k8;
  uint16_t k2;
  memcpy(&k8, "2023-11-14", 8);
  memcpy(&k2, "14", 2);
  assert_true(memo.key8 == k8 && memo.key2 == k2);
}

static void test_iso__public_parse_names_the_problem(void **state) {
  (void)state;
  int64_t us = 0;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_timestamp_parse(&us, "2024-05-01T12:00:00Z", &err), 0);
  assert_int_equal(us, 1714564800000000LL);
  assert_int_equal(inlet_timestamp_parse(&us, "2024-05-01T12:00:00.25+02:00", &err), 0);
  assert_int_equal(us, 1714564800000000LL - 7200000000LL + 250000);
  assert_int_equal(inlet_timestamp_parse(&us, "2024-05-01", &err), 0);
  assert_int_equal(us, 1714521600000000LL);
  assert_int_equal(inlet_timestamp_parse(&us, "May 1st", &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "May 1st"));
  assert_int_equal(inlet_timestamp_parse(&us, "2024-05-01T12:00:00 junk", &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "unexpected text"));
  assert_int_equal(inlet_timestamp_parse(&us, NULL, &err), INLET_EINVAL);
}

/* ---- durations ------------------------------------------------------------ */

static int64_t dur(const char *s) {
  int64_t us = -42;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_duration_parse_us(&us, s, &err) != 0) fail_msg("\"%s\": %s", s, err.message);
  return us;
}

static void test_duration__one_grammar(void **state) {
  (void)state;
  assert_int_equal(dur("10us"), 10);
  assert_int_equal(dur("5 microseconds"), 5);
  assert_int_equal(dur("250ms"), 250000);
  assert_int_equal(dur("30s"), 30000000);
  assert_int_equal(dur("30 SECONDS"), 30000000);
  assert_int_equal(dur("5m"), 300000000);
  assert_int_equal(dur("1h30m"), 5400000000LL);
  assert_int_equal(dur("1 h 30 m"), 5400000000LL);
  assert_int_equal(dur("2hrs"), 7200000000LL);
  assert_int_equal(dur("7d"), 7 * 86400000000LL);
  assert_int_equal(dur("2w"), 14 * 86400000000LL);
  /* Delta's table property form. */
  assert_int_equal(dur("interval 7 days"), 7 * 86400000000LL);
  assert_int_equal(dur("INTERVAL 1 Week"), 7 * 86400000000LL);
  assert_int_equal(dur("interval 1 millisecond"), 1000);
  assert_int_equal(dur("interval 1 day 12 hours"), 36 * 3600000000LL);
  assert_int_equal(dur("  0s  "), 0);
  /* The public entry points read the same grammar. */
  int64_t ms = 0, us = 0;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_duration_parse(&ms, "interval 30 days", &err), 0);
  assert_int_equal(ms, 30LL * 86400000);
  assert_int_equal(inlet_duration_parse(&ms, "1500us", &err), 0);
  assert_int_equal(ms, 1);
  assert_int_equal(inlet_ingest_parse_duration(&us, "interval 2 minutes", &err), 0);
  assert_int_equal(us, 120000000);
}

static void expect_bad(const char *s, const char *why) {
  int64_t us = -42;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_duration_parse_us(&us, s, &err) != INLET_EINVAL) fail_msg("accepted \"%s\"", s);
  assert_int_equal(us, -42);
  if (!strstr(err.message, why))
    fail_msg("\"%s\": message \"%s\" lacks \"%s\"", s, err.message, why);
}

static void test_duration__errors_say_what_is_wrong(void **state) {
  (void)state;
  expect_bad("100", "no unit");
  expect_bad("interval 100", "no unit");
  expect_bad("1h30", "without a unit");
  expect_bad("1.5s", "whole numbers");
  expect_bad("-1s", "negative");
  expect_bad("1 month", "no fixed length");
  expect_bad("interval 2 years", "no fixed length");
  expect_bad("7 fortnights", "fortnights");
  expect_bad("7d extra", "7d extra");
  expect_bad("", "empty");
  expect_bad("interval", "missing");
  expect_bad("9223372036854775807d", "too large");
  expect_bad("99999999999999999999s", "too large");
  int64_t us;
  assert_int_equal(inlet_duration_parse_us(&us, NULL, NULL), INLET_EINVAL);
}

/* Table properties read durations with the same grammar; a malformed one
 * means the default. */
static void test_duration__table_properties(void **state) {
  (void)state;
  delta_metadata m;
  memset(&m, 0, sizeof m);
  delta_kv kv = {"delta.logRetentionDuration", "interval 2 days"};
  m.n_configuration = 1;
  m.configuration = &kv;
  assert_int_equal(delta_interval_conf_ms(&m, "delta.logRetentionDuration", 5), 2LL * 86400000);
  kv.value = "36h";
  assert_int_equal(delta_interval_conf_ms(&m, "delta.logRetentionDuration", 5), 36LL * 3600000);
  kv.value = "100";
  assert_int_equal(delta_interval_conf_ms(&m, "delta.logRetentionDuration", 5), 5);
  assert_int_equal(delta_interval_conf_ms(&m, "delta.other", 7), 7);
}

/* ---- compression names ---------------------------------------------------- */

static void test_compression__one_table(void **state) {
  (void)state;
  inlet_compression c = INLET_COMPRESSION_SNAPPY;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_compression_parse(&c, "brotli", &err), 0);
  assert_int_equal(c, INLET_COMPRESSION_BROTLI);
  assert_int_equal(inlet_compression_parse(&c, "LZ4", &err), 0);
  assert_int_equal(c, INLET_COMPRESSION_LZ4_RAW);
  assert_int_equal(inlet_compression_parse(&c, "none", &err), 0);
  assert_int_equal(c, INLET_COMPRESSION_UNCOMPRESSED);
  assert_int_equal(inlet_compression_parse(&c, "Zstd", &err), 0);
  assert_int_equal(c, INLET_COMPRESSION_ZSTD);
  assert_int_equal(inlet_compression_parse(&c, "lzo", &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "brotli"));
  assert_int_equal(inlet_compression_parse(&c, NULL, &err), INLET_EINVAL);
  /* Every name the parser accepts maps to a writable codec, and every
   * codec's Parquet name comes from the same table. */
  const char *names[] = {"uncompressed", "none",   "snappy", "gzip",  "zstd",
                         "lz4_raw",      "lz4raw", "lz4",    "brotli"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    int id = inlet_codec_parse(names[i]);
    assert_true(id >= 0);
    assert_true(inlet_codec_can_write(id));
  }
  assert_int_equal(inlet_codec_parse("lzo"), -1);
  assert_string_equal(inlet_codec_name(INLET_CODEC_BROTLI), "BROTLI");
  assert_string_equal(inlet_codec_name(INLET_CODEC_LZO), "LZO");
  assert_string_equal(inlet_codec_name(8), "UNKNOWN(8)");
}

/* ---- text escapes ---------------------------------------------------------- */

static bool unescape(const char *in, const char *want) {
  inlet_buf b = INLET_BUF_INIT;
  bool ok = inlet_json_unescape(&b, in, strlen(in));
  if (ok && want) ok = b.len == strlen(want) && memcmp(b.data, want, b.len) == 0;
  inlet_buf_reset(&b);
  return ok;
}

static void test_text__json_unescape_and_utf8(void **state) {
  (void)state;
  assert_true(unescape("plain", "plain"));
  assert_true(unescape("a\\\"b\\/\\\\", "a\"b/\\"));
  assert_true(unescape("\\n\\t\\r\\b\\f", "\n\t\r\b\f"));
  assert_true(unescape("\\u00e9\\u20AC", "\xc3\xa9\xe2\x82\xac"));
  assert_true(unescape("\\ud83d\\ude00", "\xf0\x9f\x98\x80")); /* surrogate pair */
  assert_false(unescape("\\ud83d", NULL));                     /* lone high */
  assert_false(unescape("\\ude00", NULL));                     /* lone low */
  assert_false(unescape("\\u0000", NULL));                     /* escaped NUL */
  assert_false(unescape("\\x41", NULL));                       /* unknown escape */
  assert_false(unescape("\\u12", NULL));                       /* short */
  assert_false(unescape("end\\", NULL));                       /* dangling */
  /* The encoder against the validator, at every length boundary. */
  const uint32_t cps[] = {0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xffff, 0x10000, 0x10ffff};
  const size_t lens[] = {1, 1, 2, 2, 3, 3, 4, 4};
  for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
    inlet_buf b = INLET_BUF_INIT;
    inlet_buf_put_utf8(&b, cps[i]);
    assert_int_equal(b.len, lens[i]);
    assert_true(inlet_utf8_valid(b.data, b.len));
    inlet_buf_reset(&b);
  }
  assert_int_equal(inlet_hex_digit('7'), 7);
  assert_int_equal(inlet_hex_digit('c'), 12);
  assert_int_equal(inlet_hex_digit('F'), 15);
  assert_int_equal(inlet_hex_digit('g'), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_calendar__known_days),
      cmocka_unit_test(test_calendar__walks_day_by_day),
      cmocka_unit_test(test_iso__dates),
      cmocka_unit_test(test_iso__timestamps),
      cmocka_unit_test(test_iso__fast_and_general_paths_agree),
      cmocka_unit_test(test_iso__date_memo_changes_nothing),
      cmocka_unit_test(test_iso__public_parse_names_the_problem),
      cmocka_unit_test(test_duration__one_grammar),
      cmocka_unit_test(test_duration__errors_say_what_is_wrong),
      cmocka_unit_test(test_duration__table_properties),
      cmocka_unit_test(test_compression__one_table),
      cmocka_unit_test(test_text__json_unescape_and_utf8),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
