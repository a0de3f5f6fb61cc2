/*
 * Unit tests for the variant encoder (src/batch/variant_encode.c): JSON text
 * to the bytes of apache/parquet-format VariantEncoding.md, checked against
 * bytes written by hand from the spec (the object example {"c":3,"b":2,
 * "a":1}, the array [1,"x",[null],{}] whose bytes test_variant_tables reads
 * from a hand-made file), number types as Spark's parse_json chooses them,
 * round trips through the decoder, and refusals of text that is not a JSON
 * value Spark would store.
 */
#include <stdio.h>

#include "testutil.h"

#include "batch/batch.h"

/* Hex of the metadata and value of @p json into m, v; rc returned. */
static int enc(const char *json, char *m, char *v, inlet_error *err) {
  inlet_buf mb = INLET_BUF_INIT, vb = INLET_BUF_INIT;
  int rc = batch_variant_from_json(&mb, &vb, json, strlen(json), err);
  m[0] = v[0] = 0;
  for (size_t i = 0; i < mb.len; i++)
    sprintf(m + 2 * i, "%02x", mb.data[i]);
  for (size_t i = 0; i < vb.len; i++)
    sprintf(v + 2 * i, "%02x", vb.data[i]);
  inlet_buf_reset(&mb);
  inlet_buf_reset(&vb);
  return rc;
}

static char M[4096], V[4096];

/* The value hex of @p json (with the empty dictionary). */
static const char *val(const char *json) {
  inlet_error err = INLET_ERROR_INIT;
  if (enc(json, M, V, &err) != 0) fail_msg("%s: %s", json, inlet_errmsg(&err));
  assert_string_equal(M, "010000");
  return V;
}

static void test_variant_encode__spec_object_example(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(enc("{\"c\":3,\"b\":2,\"a\":1}", M, V, &err), 0);
  /* version 1, sorted_strings, 1-byte offsets; 3 keys a b c */
  assert_string_equal(M, "1103000102036162"
                         "63");
  /* object, 1-byte ids and offsets; 3 fields; ids 0 1 2; offsets 0 2 4 6;
   * int8 1, 2, 3 in key order */
  assert_string_equal(V, "020300010200020406"
                         "0c010c020c03");
  /* The same value with other spacing and order: the same bytes. */
  assert_int_equal(enc(" {\"a\" : 1 ,\n\"c\":3,\"b\":2} ", M, V, &err), 0);
  assert_string_equal(V, "020300010200020406"
                         "0c010c020c03");
}

static void test_variant_encode__array_and_nesting(void **state) {
  (void)state;
  assert_string_equal(val("[1,\"x\",[null],{}]"), "0304000204090c"
                                                  "0c01"
                                                  "0578"
                                                  "0301000100"
                                                  "020000");
  assert_string_equal(val("[]"), "030000");
  inlet_error err = INLET_ERROR_INIT;
  /* Keys shared by nested objects are one dictionary entry each. */
  assert_int_equal(enc("{\"z\":{\"a\":1},\"a\":{\"z\":true}}", M, V, &err), 0);
  assert_string_equal(M, "1102000102617a");
  /* outer: ids a(0) z(1), values {"z":true} then {"a":1} */
  assert_string_equal(V, "0202000100060d"
                         "020101000104"
                         "02010000020c01");
}

static void test_variant_encode__numbers_as_spark_parse_json(void **state) {
  (void)state;
  assert_string_equal(val("0"), "0c00");
  assert_string_equal(val("-0"), "0c00");
  assert_string_equal(val("-5"), "0cfb");
  assert_string_equal(val("300"), "102c01");
  assert_string_equal(val("-70000"), "1490eefeff");
  assert_string_equal(val("9007199254740993"), "180100000000002000");
  assert_string_equal(val("-9223372036854775808"), "180000000000000080");
  /* Past int64: decimal16 of scale 0. */
  assert_string_equal(val("9223372036854775808"), "2800"
                                                  "00000000000000800000000000000000");
  assert_string_equal(val("123456789012345678901234567890"), "2800"
                                                             "d20a3f4eeee073c3f60fe98e01000000");
  /* Fractions: decimal4/8/16 by precision and scale, trailing zeros kept. */
  assert_string_equal(val("1.50"), "200296000000");
  assert_string_equal(val("-0.5"), "2001fbffffff");
  assert_string_equal(val("0.000"), "200300000000");
  assert_string_equal(val("12345678901.5"), "2401"
                                            "171a99be1c000000");
  assert_string_equal(val("0.1234567890"), "240a"
                                           "d202964900000000");
  /* Exponents and more than 38 digits: double. */
  assert_string_equal(val("1e5"), "1c"
                                  "00000000006af840");
  assert_string_equal(val("1234567890123456789012345678901234567890"), "1c"
                                                                       "e006ae0349060d48");
  assert_string_equal(val("true"), "04");
  assert_string_equal(val("false"), "08");
  assert_string_equal(val("null"), "00");
}

static void test_variant_encode__strings(void **state) {
  (void)state;
  assert_string_equal(val("\"abc\""), "0d616263");
  assert_string_equal(val("\"\""), "01");
  /* escapes and a surrogate pair: a\"\n\u00e9\ud83d\ude00 */
  assert_string_equal(val("\"a\\\"\\n\\u00e9\\ud83d\\ude00\""), "25"
                                                                "61220a"
                                                                "c3a9"
                                                                "f09f9880");
  /* 64 bytes: the long form (type 16, 4-byte length). */
  char s[80], want[200];
  memset(s, 0, sizeof s);
  s[0] = '"';
  memset(s + 1, 'q', 64);
  s[65] = '"';
  int n = snprintf(want, sizeof want, "4040000000");
  for (int i = 0; i < 64; i++)
    n += snprintf(want + n, sizeof want - (size_t)n, "71");
  assert_string_equal(val(s), want);
  /* 63 bytes: still a short string. */
  s[64] = '"';
  s[65] = 0;
  assert_int_equal(strncmp(val(s), "fd71", 4), 0);
}

/* Encode then decode: the decoder's canonical text. */
static void round_trip(const char *json, const char *want) {
  inlet_buf mb = INLET_BUF_INIT, vb = INLET_BUF_INIT, out = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  if (batch_variant_from_json(&mb, &vb, json, strlen(json), &err) != 0)
    fail_msg("%s: %s", json, inlet_errmsg(&err));
  assert_int_equal(batch_variant_to_json(&out, mb.data, mb.len, vb.data, vb.len, 1 << 20, &err), 0);
  inlet_buf_push(&out, 0);
  assert_string_equal((const char *)out.data, want);
  inlet_buf_reset(&mb);
  inlet_buf_reset(&vb);
  inlet_buf_reset(&out);
}

static void test_variant_encode__round_trips(void **state) {
  (void)state;
  round_trip("{\"b\": [1.0, {\"y\": null, \"x\": \"s\"}], \"a\": -0, \"\": []}",
             "{\"\":[],\"a\":0,\"b\":[1.0,{\"x\":\"s\",\"y\":null}]}");
  round_trip("99999999999999999999999999999999999999", "99999999999999999999999999999999999999");
  round_trip("-1.000000000000000000000000000000000001", "-1.000000000000000000000000000000000001");
  /* 300 fields: 2-byte field ids; a 256-element array: the large form. */
  char big[8192];
  int n = snprintf(big, sizeof big, "{");
  for (int i = 0; i < 300; i++)
    n += snprintf(big + n, sizeof big - (size_t)n, "%s\"k%03d\":%d", i ? "," : "", i, i);
  snprintf(big + n, sizeof big - (size_t)n, "}");
  round_trip(big, big);
  n = snprintf(big, sizeof big, "[");
  for (int i = 0; i < 256; i++)
    n += snprintf(big + n, sizeof big - (size_t)n, "%s%d", i ? "," : "", i % 7);
  snprintf(big + n, sizeof big - (size_t)n, "]");
  round_trip(big, big);
}

static void refused(const char *json, int code, const char *words) {
  inlet_error err = INLET_ERROR_INIT;
  int rc = enc(json, M, V, &err);
  if (rc != code) fail_msg("%s: rc %d, want %d (%s)", json, rc, code, inlet_errmsg(&err));
  if (!strstr(inlet_errmsg(&err), words)) fail_msg("%s: message %s", json, inlet_errmsg(&err));
  assert_string_equal(M, "");
  assert_string_equal(V, "");
}

static void test_variant_encode__bad_text_is_refused(void **state) {
  (void)state;
  refused("{\"a\":1,\"a\":2}", INLET_EINVAL, "duplicate object key \"a\"");
  refused("1e400", INLET_EINVAL, "range of a double");
  refused("\"\\udc00\"", INLET_EINVAL, "surrogate");
  refused("\"\\ud800x\"", INLET_EINVAL, "surrogate");
  refused("1 2", INLET_EINVAL, "text after");
  refused("", INLET_EINVAL, "expected a value");
  refused("01", INLET_EINVAL, "text after");
  refused("1.", INLET_EINVAL, "decimal point");
  refused("[1,]", INLET_EINVAL, "unexpected");
  refused("\"\xff\"", INLET_EINVAL, "UTF-8");
  refused("\"a\tb\"", INLET_EINVAL, "control character");
  refused("{\"a\" 1}", INLET_EINVAL, "expected ':'");
  char deep[300];
  memset(deep, '[', 130);
  memset(deep + 130, ']', 130);
  deep[260] = 0;
  refused(deep, INLET_EINVAL, "nested deeper");
  /* 129 levels (depths 0 to 128) is what the decoder reads: accepted. */
  deep[129] = ']';
  deep[258] = 0;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(enc(deep, M, V, &err), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_variant_encode__spec_object_example),
      cmocka_unit_test(test_variant_encode__array_and_nesting),
      cmocka_unit_test(test_variant_encode__numbers_as_spark_parse_json),
      cmocka_unit_test(test_variant_encode__strings),
      cmocka_unit_test(test_variant_encode__round_trips),
      cmocka_unit_test(test_variant_encode__bad_text_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
