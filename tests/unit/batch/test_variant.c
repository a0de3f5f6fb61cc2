/*
 * Unit tests for the variant decoder (src/batch/variant.c): values encoded
 * by hand from apache/parquet-format VariantEncoding.md (its tables of
 * basic and primitive types, the object example {"c":3,"b":2,"a":1} with
 * values stored out of key order), against JSON text written by hand; and
 * broken encodings, each a clear error rather than a crash or a wrong
 * value.
 */
#include <stdio.h>

#include "testutil.h"

#include "batch/batch.h"

/* Metadata with an empty dictionary: version 1, 1-byte offsets, size 0,
 * one offset 0. */
static const uint8_t EMPTY_META[] = {0x01, 0x00, 0x00};

static int decode(const uint8_t *meta, size_t ml, const uint8_t *v, size_t vl, size_t max,
                  char *out, size_t cap, inlet_error *err) {
  inlet_buf b = INLET_BUF_INIT;
  int rc = batch_variant_to_json(&b, meta, ml, v, vl, max, err);
  snprintf(out, cap, "%.*s", (int)b.len, b.data ? (const char *)b.data : "");
  inlet_buf_reset(&b);
  return rc;
}

/* The JSON of @p v (bytes) with the empty dictionary. */
static const char *prim(const uint8_t *v, size_t n) {
  static char out[512];
  inlet_error err = INLET_ERROR_INIT;
  int rc = decode(EMPTY_META, sizeof EMPTY_META, v, n, 1 << 20, out, sizeof out, &err);
  if (rc != 0) fail_msg("decode failed: %s", inlet_errmsg(&err));
  return out;
}

#define PRIM(...) prim((const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}))

static void put_le(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* A primitive of type @p type whose 8-byte little-endian payload is @p v. */
static const char *prim64(int type, uint64_t v) {
  uint8_t b[9];
  b[0] = (uint8_t)(type << 2);
  put_le(b + 1, v, 8);
  return prim(b, sizeof b);
}

static void test_variant__primitives(void **state) {
  (void)state;
  assert_string_equal(PRIM(0x00), "null");
  assert_string_equal(PRIM(0x04), "true");
  assert_string_equal(PRIM(0x08), "false");
  assert_string_equal(PRIM(0x0C, 0xFB), "-5");                             /* int8 */
  assert_string_equal(PRIM(0x10, 0x2C, 0x01), "300");                      /* int16 */
  assert_string_equal(PRIM(0x14, 0x90, 0xEE, 0xFE, 0xFF), "-70000");       /* int32 */
  assert_string_equal(prim64(6, 9007199254740993ULL), "9007199254740993"); /* int64, exact */
  assert_string_equal(prim64(6, (uint64_t)INT64_MIN), "-9223372036854775808");
  assert_string_equal(prim64(7, 0x3FF8000000000000ULL), "1.5"); /* double */
  assert_string_equal(prim64(7, 0x7FF8000000000000ULL), "\"NaN\"");
  assert_string_equal(prim64(7, 0xFFF0000000000000ULL), "\"-Infinity\"");
  /* decimal4 scale 2: 12345 and -5 */
  assert_string_equal(PRIM(0x20, 0x02, 0x39, 0x30, 0x00, 0x00), "123.45");
  assert_string_equal(PRIM(0x20, 0x02, 0xFB, 0xFF, 0xFF, 0xFF), "-0.05");
  /* decimal8 scale 0: 10^15 */
  assert_string_equal(PRIM(0x24, 0x00, 0x00, 0x80, 0xC6, 0xA4, 0x7E, 0x8D, 0x03, 0x00),
                      "1000000000000000");
  /* decimal16 scale 3: -1 */
  assert_string_equal(PRIM(0x28, 0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                           0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF),
                      "-0.001");
  /* date: day 19000 is 2022-01-08 (2022-01-01 is day 18993) */
  assert_string_equal(PRIM(0x2C, 0x38, 0x4A, 0x00, 0x00), "\"2022-01-08\"");
  /* 2022-01-08T00:00:00.123456 in micros: 19000 * 86400 s */
  uint64_t us = 1641600000ULL * 1000000 + 123456, ns = 1641600000ULL * 1000000000 + 123456789;
  assert_string_equal(prim64(12, us), "\"2022-01-08T00:00:00.123456Z\"");
  assert_string_equal(prim64(13, us), "\"2022-01-08T00:00:00.123456\"");
  assert_string_equal(prim64(18, ns), "\"2022-01-08T00:00:00.123456789Z\"");
  assert_string_equal(prim64(19, ns), "\"2022-01-08T00:00:00.123456789\"");
  assert_string_equal(prim64(12, (uint64_t)-1), "\"1969-12-31T23:59:59.999999Z\"");
  /* time: 01:02:03.000001 */
  assert_string_equal(prim64(17, 3723000001ULL), "\"01:02:03.000001\"");
  /* float 1.1f (0x3F8CCCCD): its shortest form, not the widened double */
  assert_string_equal(PRIM(0x38, 0xCD, 0xCC, 0x8C, 0x3F), "1.1");
  assert_string_equal(PRIM(0x38, 0x00, 0x00, 0x80, 0x7F), "\"Infinity\"");
  /* binary (base64: DE AD is 3q0=, 4 bytes 4 chars + padding), string hi"
   * (long form), short string abc, empty short string */
  assert_string_equal(PRIM(0x3C, 0x02, 0x00, 0x00, 0x00, 0xDE, 0xAD), "\"3q0=\"");
  assert_string_equal(PRIM(0x3C, 0x03, 0x00, 0x00, 0x00, 'M', 'a', 'n'), "\"TWFu\"");
  assert_string_equal(PRIM(0x3C, 0x01, 0x00, 0x00, 0x00, 'M'), "\"TQ==\"");
  assert_string_equal(PRIM(0x3C, 0x00, 0x00, 0x00, 0x00), "\"\"");
  assert_string_equal(PRIM(0x40, 0x03, 0x00, 0x00, 0x00, 'h', 'i', '"'), "\"hi\\\"\"");
  assert_string_equal(PRIM(0x0D, 'a', 'b', 'c'), "\"abc\"");
  assert_string_equal(PRIM(0x01), "\"\"");
  /* uuid, big-endian */
  assert_string_equal(PRIM(0x50, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA,
                           0xBB, 0xCC, 0xDD, 0xEE, 0xFF),
                      "\"00112233-4455-6677-8899-aabbccddeeff\"");
}

/* The spec's example: {"c":3,"b":2,"a":1}, dictionary "c","b","a" (not
 * sorted), field ids in key order a,b,c and values stored c,b,a. */
static void test_variant__object_of_spec_example(void **state) {
  (void)state;
  static const uint8_t meta[] = {0x01, 3, 0, 1, 2, 3, 'c', 'b', 'a'};
  static const uint8_t val[] = {0x02, 3, 2, 1, 0, 4, 2, 0, 6, 0x0C, 0x03, 0x0C, 0x02, 0x0C, 0x01};
  char out[128];
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(decode(meta, sizeof meta, val, sizeof val, 1 << 20, out, sizeof out, &err), 0);
  assert_string_equal(out, "{\"a\":1,\"b\":2,\"c\":3}");
}

static void test_variant__arrays_and_wide_forms(void **state) {
  (void)state;
  /* [1,"x",[null],{}]: offsets 0,2,4,9,12 */
  assert_string_equal(
      PRIM(0x03, 4, 0, 2, 4, 9, 12, 0x0C, 0x01, 0x05, 'x', 0x03, 1, 0, 1, 0x00, 0x02, 0, 0),
      "[1,\"x\",[null],{}]");
  /* is_large array with 2-byte offsets: [null,true] */
  assert_string_equal(PRIM(0x17, 2, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0x00, 0x04), "[null,true]");
  /* metadata with 2-byte offsets and the sorted flag; an object with
   * 2-byte field ids, 3-byte offsets and a 4-byte count: {"key":7} */
  static const uint8_t meta[] = {0x51, 1, 0, 0, 0, 3, 0, 'k', 'e', 'y'};
  static const uint8_t val[] = {
      0x02 | ((0x10 | 1 << 2 | 2) << 2), 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0x0C, 7};
  char out[64];
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(decode(meta, sizeof meta, val, sizeof val, 1 << 20, out, sizeof out, &err), 0);
  assert_string_equal(out, "{\"key\":7}");
  /* a key that JSON must escape */
  static const uint8_t meta2[] = {0x01, 1, 0, 2, 'a', '\n'};
  static const uint8_t val2[] = {0x02, 1, 0, 0, 1, 0x00};
  assert_int_equal(decode(meta2, sizeof meta2, val2, sizeof val2, 1 << 20, out, sizeof out, &err),
                   0);
  assert_string_equal(out, "{\"a\\n\":null}");
}

/* Each broken encoding fails with @p code and a message naming @p what. */
static void expect_fail(const uint8_t *meta, size_t ml, const uint8_t *v, size_t vl, int code,
                        const char *what) {
  char out[256];
  inlet_error err = INLET_ERROR_INIT;
  int rc = decode(meta, ml, v, vl, 1 << 20, out, sizeof out, &err);
  if (rc != code) fail_msg("expected %d for %s, got %d (%s)", code, what, rc, inlet_errmsg(&err));
  if (!strstr(inlet_errmsg(&err), what)) fail_msg("message \"%s\" lacks \"%s\"", err.message, what);
}

#define FAIL_E(code, what, ...)                                                                    \
  expect_fail(EMPTY_META, sizeof EMPTY_META, (const uint8_t[]){__VA_ARGS__},                       \
              sizeof((const uint8_t[]){__VA_ARGS__}), code, what)

static void test_variant__broken_encodings_are_clear_errors(void **state) {
  (void)state;
  expect_fail(EMPTY_META, sizeof EMPTY_META, NULL, 0, INLET_ECORRUPT, "empty value");
  FAIL_E(INLET_ECORRUPT, "truncated", 0x14, 0x01, 0x02);                /* int32 of 2 bytes */
  FAIL_E(INLET_ECORRUPT, "length past the end", 0x40, 9, 0, 0, 0, 'a'); /* string of 9 */
  FAIL_E(INLET_ECORRUPT, "short string past the end", 0x0D, 'a');
  FAIL_E(INLET_ECORRUPT, "not UTF-8", 0x05, 0xFF);
  FAIL_E(INLET_EUNSUPPORTED, "unknown primitive type 21", 0x54);
  FAIL_E(INLET_ECORRUPT, "decimal scale", 0x20, 39, 1, 0, 0, 0);
  FAIL_E(INLET_ECORRUPT, "field id past", 0x02, 1, 0, 0, 1, 0x00); /* id 0, empty dictionary */
  FAIL_E(INLET_ECORRUPT, "values region past the end", 0x03, 1, 0, 9, 0x00);
  FAIL_E(INLET_ECORRUPT, "element offset past", 0x03, 2, 0, 5, 1, 0x00); /* offset 5 >= 1 */
  FAIL_E(INLET_ECORRUPT, "more elements than bytes", 0x03, 200, 0);
  FAIL_E(INLET_ECORRUPT, "offsets past the end", 0x03, 3, 0, 1);
  /* keys out of order / repeated: dictionary "b","a" */
  static const uint8_t ba[] = {0x01, 2, 0, 1, 2, 'b', 'a'};
  expect_fail(ba, sizeof ba, (const uint8_t[]){0x02, 2, 0, 1, 0, 1, 2, 0x00, 0x00}, 9,
              INLET_ECORRUPT, "out of order or repeated");
  expect_fail(ba, sizeof ba, (const uint8_t[]){0x02, 2, 1, 1, 0, 1, 2, 0x00, 0x00}, 9,
              INLET_ECORRUPT, "out of order or repeated");
  /* metadata: version 2, offsets past the end, key bytes past the end */
  expect_fail((const uint8_t[]){0x02, 0, 0}, 3, (const uint8_t[]){0}, 1, INLET_EUNSUPPORTED,
              "version 2");
  expect_fail((const uint8_t[]){0x01, 5, 0}, 3, (const uint8_t[]){0}, 1, INLET_ECORRUPT,
              "offsets past the end");
  expect_fail((const uint8_t[]){0x01, 1, 0, 4, 'a'}, 5, (const uint8_t[]){0}, 1, INLET_ECORRUPT,
              "key bytes past the end");
  expect_fail(NULL, 0, (const uint8_t[]){0}, 1, INLET_ECORRUPT, "metadata: empty");
}

/* 200 nested one-element arrays (4-byte offsets): past the depth limit. */
static void test_variant__deep_nesting_is_limited(void **state) {
  (void)state;
  enum { LEVELS = BATCH_VARIANT_MAX_DEPTH + 72 };
  size_t cap = 1 + LEVELS * 10;
  uint8_t *v = malloc(cap);
  assert_non_null(v);
  size_t len = 1, at = cap - 1;
  v[at] = 0x00; /* innermost null */
  for (int i = 0; i < LEVELS; i++) {
    at -= 10;
    v[at] = 0x03 | (3 << 2); /* array, 4-byte offsets */
    v[at + 1] = 1;
    put_le(v + at + 2, 0, 4);
    put_le(v + at + 6, len, 4);
    len += 10;
  }
  expect_fail(EMPTY_META, sizeof EMPTY_META, v + at, len, INLET_ELIMIT, "nesting deeper");
  free(v);
}

/* 255 offsets all pointing at one shared sub-array, four levels deep:
 * 255^4 elements in a few kilobytes. The JSON budget stops it. */
static void test_variant__shared_offsets_cannot_blow_up(void **state) {
  (void)state;
  uint8_t v[4 * 514 + 8];
  size_t len = 1, at = sizeof v - 1;
  v[at] = 0x00;
  for (int lvl = 0; lvl < 4; lvl++) {
    size_t hdr = 2 + 256 * 2; /* header, count, 256 two-byte offsets */
    at -= hdr;
    v[at] = 0x03 | (1 << 2);
    v[at + 1] = 255;
    for (int i = 0; i < 255; i++)
      put_le(v + at + 2 + 2 * i, 0, 2);
    put_le(v + at + 2 + 2 * 255, len, 2);
    len += hdr;
  }
  char out[64];
  inlet_error err = INLET_ERROR_INIT;
  inlet_buf b = INLET_BUF_INIT;
  int rc = batch_variant_to_json(&b, EMPTY_META, sizeof EMPTY_META, v + at, len, 1 << 20, &err);
  assert_int_equal(rc, INLET_ELIMIT);
  assert_non_null(strstr(inlet_errmsg(&err), "JSON text longer than"));
  assert_true(b.len < (1u << 20) + 4096);
  inlet_buf_reset(&b);
  (void)out;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_variant__primitives),
      cmocka_unit_test(test_variant__object_of_spec_example),
      cmocka_unit_test(test_variant__arrays_and_wide_forms),
      cmocka_unit_test(test_variant__broken_encodings_are_clear_errors),
      cmocka_unit_test(test_variant__deep_nesting_is_limited),
      cmocka_unit_test(test_variant__shared_offsets_cannot_blow_up),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
