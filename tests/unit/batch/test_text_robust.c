/*
 * Robustness and round-trip properties of the text reader and writer:
 * randomly mutated NDJSON and CSV never crash or overread (run under ASan),
 * always yield valid batches, and whatever was imported exports to NDJSON
 * that imports back to the very same text (export(import(export(x))) ==
 * export(x)) for every type. Allocation failures unwind cleanly.
 */
#include <stdio.h>

#include "testutil.h"

#include "batch/text_int.h"
#include "inlet/text.h"

#define DDL                                                                                        \
  "i long not null, b byte, u uint64, f float, d double, s string, k boolean, dt date, "           \
  "t timestamp, tn timestamp_ntz_ns, tm time, dec decimal(20,4), bin binary, id uuid, "            \
  "st struct<x:int, y:array<string>>, m map<string,double>"

static const char *seed_ndjson =
    "{\"i\":1,\"b\":-5,\"u\":18446744073709551615,\"f\":0.5,\"d\":1e300,\"s\":\"h\\u00e9llo\","
    "\"k\":true,\"dt\":\"2024-02-29\",\"t\":\"2024-01-02T03:04:05.123456Z\","
    "\"tn\":\"1900-01-01 00:00:00.000000001\",\"tm\":\"23:59:59.999999\","
    "\"dec\":\"-1234567890123456.7890\",\"bin\":\"00ff\",\"id\":\"5f1c2e3a-0000-4000-8000-"
    "00000000abcd\","
    "\"st\":{\"x\":7,\"y\":[\"a\",null,\"\"]},\"m\":{\"k1\":\"NaN\",\"k2\":-0.0}}\n"
    "{\"i\":-9223372036854775808,\"f\":\"-Infinity\",\"d\":5e-324,\"s\":\"\",\"dt\":-719528,"
    "\"t\":-1,\"st\":null,\"m\":[]}\n"
    "{\"i\":2,\"dt\":\"+10000-01-01\",\"t\":\"-0001-12-31T23:59:59Z\",\"st\":{\"y\":[]}}\n";

static const char *seed_csv =
    "i,s,d,st,m,dt\n"
    "1,\"a,\"\"b\"\"\nc\",2.5,\"{\"\"x\"\":1}\",\"{\"\"q\"\":1.5}\",2000-01-01\n"
    "2,,,,,\n";

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static int buf_write(void *ctx, const void *data, size_t len, inlet_error *err) {
  (void)err;
  return inlet_buf_append(ctx, data, len);
}

/* Imports @p text and returns everything it yields exported as NDJSON. */
static int import_export(const inlet_schema *s, const char *text, size_t len, inlet_text_format fmt,
                         inlet_buf *out, int64_t *rows) {
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.format = fmt;
  o.max_batch_rows = 2;
  inlet_text_reader *r;
  inlet_error err = INLET_ERROR_INIT;
  int rc = inlet_text_reader_open_memory(&r, text, len, s, &o, &err);
  if (rc) return rc;
  inlet_text_writer *w;
  rc = inlet_text_writer_new(&w, s, NULL, buf_write, out, &err);
  if (rc) {
    inlet_text_reader_free(r);
    return rc;
  }
  inlet_batch b;
  memset(&b, 0, sizeof b);
  *rows = 0;
  for (;;) {
    rc = inlet_text_reader_next(r, &b, &err);
    if (rc || b.num_rows == 0) break;
    rc = inlet_batch_validate(&b, &err);
    if (rc) fail_msg("invalid batch: %s", inlet_errmsg(&err));
    *rows += b.num_rows;
    rc = inlet_text_writer_write(w, &b, &err);
    if (rc) break;
  }
  if (rc == 0) rc = inlet_text_writer_finish(w, &err);
  inlet_batch_reset(&b);
  inlet_text_writer_free(w);
  inlet_text_reader_free(r);
  return rc;
}

static void check_round_trip(const inlet_schema *s, const char *text, size_t len,
                             inlet_text_format fmt) {
  inlet_buf once = INLET_BUF_INIT, twice = INLET_BUF_INIT;
  int64_t rows1, rows2;
  int rc = import_export(s, text, len, fmt, &once, &rows1);
  if (rc == INLET_EINVAL && fmt == INLET_TEXT_CSV) {
    inlet_buf_reset(&once); /* a mangled CSV header is a fatal input error */
    return;
  }
  assert_int_equal(rc, 0);
  assert_int_equal(
      import_export(s, (const char *)once.data, once.len, INLET_TEXT_NDJSON, &twice, &rows2), 0);
  if (rows1 != rows2 || once.len != twice.len ||
      (once.len && memcmp(once.data, twice.data, once.len))) {
    inlet_buf_terminate(&once);
    inlet_buf_terminate(&twice);
    fail_msg("round trip differs (%lld vs %lld rows):\n%s\n---\n%s", (long long)rows1,
             (long long)rows2, once.data ? (char *)once.data : "",
             twice.data ? (char *)twice.data : "");
  }
  inlet_buf_reset(&once);
  inlet_buf_reset(&twice);
}

static void test_robust__seeds_round_trip(void **state) {
  (void)state;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, DDL, NULL), 0);
  inlet_buf out = INLET_BUF_INIT;
  int64_t rows;
  assert_int_equal(
      import_export(&s, seed_ndjson, strlen(seed_ndjson), INLET_TEXT_NDJSON, &out, &rows), 0);
  assert_int_equal(rows, 3);
  inlet_buf_terminate(&out);
  /* Spot checks of the canonical text, derived by hand. */
  const char *o = (const char *)out.data;
  assert_non_null(strstr(o, "\"u\":\"18446744073709551615\""));
  assert_non_null(strstr(o, "\"d\":1e+300"));
  assert_non_null(strstr(o, "\"tn\":\"1900-01-01T00:00:00.000000001\""));
  assert_non_null(strstr(o, "\"dec\":\"-1234567890123456.7890\""));
  assert_non_null(strstr(o, "\"m\":[[\"k1\",\"NaN\"],[\"k2\",0]]"));
  assert_non_null(strstr(o, "\"dt\":\"0000-01-01\""));
  assert_non_null(strstr(o, "\"dt\":\"+10000-01-01\""));
  assert_non_null(strstr(o, "\"t\":\"-0001-12-31T23:59:59.000000Z\""));
  assert_non_null(strstr(o, "\"st\":{\"x\":null,\"y\":[]}"));
  inlet_buf_reset(&out);
  check_round_trip(&s, seed_ndjson, strlen(seed_ndjson), INLET_TEXT_NDJSON);
  check_round_trip(&s, seed_csv, strlen(seed_csv), INLET_TEXT_CSV);
  inlet_schema_reset(&s);
}

static void mutate(char *buf, size_t *len, size_t cap) {
  static const char interesting[] = "\"\\{}[],:\n\r-+.0e9 \x80\xff"
                                    "x";
  int edits = 1 + (int)(next_rand() % 4);
  for (int e = 0; e<edits && * len> 0; e++) {
    size_t at = next_rand() % *len;
    switch (next_rand() % 4) {
    case 0: buf[at] = interesting[next_rand() % (sizeof interesting - 1)]; break;
    case 1: buf[at] = (char)next_rand(); break;
    case 2: /* delete a byte */
      memmove(buf + at, buf + at + 1, *len - at - 1);
      (*len)--;
      break;
    default: /* duplicate a byte */
      if (*len < cap) {
        memmove(buf + at + 1, buf + at, *len - at);
        (*len)++;
      }
    }
  }
}

static void test_robust__mutated_input_never_crashes(void **state) {
  (void)state;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, DDL, NULL), 0);
  char buf[4096];
  for (int iter = 0; iter < 1500; iter++) {
    bool csv = iter % 3 == 2;
    const char *seed = csv ? seed_csv : seed_ndjson;
    size_t len = strlen(seed);
    memcpy(buf, seed, len);
    mutate(buf, &len, sizeof buf);
    /* Copy to an exact-size heap block so ASan sees any overread. */
    char *exact = malloc(len ? len : 1);
    memcpy(exact, buf, len);
    check_round_trip(&s, exact, len, csv ? INLET_TEXT_CSV : INLET_TEXT_NDJSON);
    free(exact);
  }
  inlet_schema_reset(&s);
}

static void test_robust__allocation_failures_unwind(void **state) {
  (void)state;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, DDL, NULL), 0);
  bool done = false;
  for (long n = 0; n < 2000 && !done; n++) {
    inlet_buf out = INLET_BUF_INIT;
    int64_t rows;
    inlet_alloc_fail_after(n);
    int rc = import_export(&s, seed_ndjson, strlen(seed_ndjson), INLET_TEXT_NDJSON, &out, &rows);
    inlet_alloc_fail_after(-1);
    if (rc == 0) {
      done = true;
      assert_int_equal(rows, 3);
    } else {
      assert_int_equal(rc, INLET_ENOMEM);
    }
    inlet_buf_reset(&out);
  }
  assert_true(done);
  inlet_schema_reset(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_robust__seeds_round_trip),
      cmocka_unit_test(test_robust__mutated_input_never_crashes),
      cmocka_unit_test(test_robust__allocation_failures_unwind),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
