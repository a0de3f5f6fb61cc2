/*
 * The text reader's row check (inlet_text_reader_options.row_check, issue 12:
 * a record whose partition values cannot name a directory is a bad record):
 *   - a row the check refuses (INLET_EINVAL) is rolled back and reported to
 *     on_bad_record with its line and the check's reason, for NDJSON and
 *     CSV, in inlet_text_reader_next and inlet_text_reader_append;
 *   - any other code from the check fails the read;
 *   - version-1 options (without the field) are still accepted.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "inlet/text.h"

/* Refuses rows whose column s starts with 'x'; fails hard on "boom". */
static int check(void *ctx, const inlet_batch *b, int64_t row, inlet_error *err) {
  int *calls = ctx;
  (*calls)++;
  const inlet_array *a = &b->columns[1];
  const char *v = (const char *)a->values + a->offsets[row];
  int32_t n = a->offsets[row + 1] - a->offsets[row];
  if (n == 4 && memcmp(v, "boom", 4) == 0) {
    snprintf(err->message, sizeof err->message, "exploded");
    err->code = INLET_EIO;
    return INLET_EIO;
  }
  if (n > 0 && v[0] == 'x') {
    snprintf(err->message, sizeof err->message, "value starts with x");
    err->code = INLET_EINVAL;
    return INLET_EINVAL;
  }
  return 0;
}

typedef struct bads {
  int n;
  int64_t lines[8];
  char reasons[8][128];
} bads;

static int on_bad(void *ctx, const inlet_text_bad_record *bad) {
  bads *b = ctx;
  if (b->n < 8) {
    b->lines[b->n] = bad->line;
    snprintf(b->reasons[b->n], sizeof b->reasons[0], "%s", bad->reason);
  }
  b->n++;
  return 0;
}

static void read_all(const char *text, inlet_text_format fmt, int *calls, bads *bad, int64_t *rows,
                     int *rc) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, s string", &err), 0);
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.format = fmt;
  o.on_bad_record = on_bad;
  o.ctx = bad;
  o.row_check = check;
  o.row_check_ctx = calls;
  inlet_text_reader *r = NULL;
  assert_int_equal(inlet_text_reader_open_memory(&r, text, strlen(text), &s, &o, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  *rows = 0;
  while ((*rc = inlet_text_reader_next(r, &b, &err)) == 0 && b.num_rows > 0) {
    assert_int_equal(inlet_batch_validate(&b, &err), 0);
    for (int64_t i = 0; i < b.num_rows; i++) {
      const char *v = (const char *)b.columns[1].values + b.columns[1].offsets[i];
      assert_true(v[0] != 'x');
    }
    *rows += b.num_rows;
  }
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  inlet_schema_reset(&s);
}

static void test_text_row_check__refused_rows_are_bad_records(void **state) {
  (void)state;
  int calls = 0, rc;
  bads bad = {0};
  int64_t rows;
  read_all("{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"xa\"}\n\n{\"id\":3,\"s\":\"b\"}\n"
           "{\"id\":4,\"s\":\"xb\"}\n",
           INLET_TEXT_NDJSON, &calls, &bad, &rows, &rc);
  assert_int_equal(rc, 0);
  assert_int_equal(rows, 2);
  assert_int_equal(calls, 4);
  assert_int_equal(bad.n, 2);
  assert_int_equal(bad.lines[0], 2);
  assert_int_equal(bad.lines[1], 5);
  assert_string_equal(bad.reasons[0], "value starts with x");
  memset(&bad, 0, sizeof bad);
  calls = 0;
  read_all("id,s\n1,xa\n2,a\n3,\"x\nb\"\n4,c\n", INLET_TEXT_CSV, &calls, &bad, &rows, &rc);
  assert_int_equal(rc, 0);
  assert_int_equal(rows, 2);
  assert_int_equal(bad.n, 2);
  assert_int_equal(bad.lines[0], 2);
  assert_int_equal(bad.lines[1], 4);
}

static void test_text_row_check__other_codes_fail_the_read(void **state) {
  (void)state;
  int calls = 0, rc;
  bads bad = {0};
  int64_t rows;
  read_all("{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"boom\"}\n", INLET_TEXT_NDJSON, &calls, &bad,
           &rows, &rc);
  assert_int_equal(rc, INLET_EIO);
  assert_int_equal(bad.n, 0);
}

static void test_text_row_check__append_reports_reason(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, s string", &err), 0);
  int calls = 0;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.row_check = check;
  o.row_check_ctx = &calls;
  inlet_text_reader *r = NULL;
  assert_int_equal(inlet_text_reader_open_memory(&r, "", 0, &s, &o, &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, &err), 0);
  const char *good = "{\"id\":1,\"s\":\"a\"}", *badrec = "{\"id\":2,\"s\":\"xyz\"}";
  assert_int_equal(inlet_text_reader_append(r, &b, good, strlen(good), &err), 0);
  assert_int_equal(inlet_text_reader_append(r, &b, badrec, strlen(badrec), &err), INLET_EINVAL);
  assert_string_equal(err.message, "value starts with x");
  assert_int_equal(b.num_rows, 1);
  assert_int_equal(b.columns[0].length, 1);
  assert_int_equal(b.columns[1].length, 1);
  assert_int_equal(inlet_batch_validate(&b, &err), 0);
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  inlet_schema_reset(&s);
}

static void test_text_row_check__version_1_options_accepted(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, s string", &err), 0);
  /* A version-1 caller's struct: the new fields hold garbage we must not use. */
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.version = 1;
  o.row_check = (inlet_text_row_check_fn)(uintptr_t)1;
  inlet_text_reader *r = NULL;
  const char *text = "{\"id\":1,\"s\":\"xa\"}\n";
  assert_int_equal(inlet_text_reader_open_memory(&r, text, strlen(text), &s, &o, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_text_reader_next(r, &b, &err), 0);
  assert_int_equal(b.num_rows, 1);
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  /* A version-2 caller's struct ends before strict_types: lenient conversions. */
  o.version = 2;
  o.row_check = NULL;
  o.strict_types = true;
  const char *num = "{\"id\":1,\"s\":5}\n";
  assert_int_equal(inlet_text_reader_open_memory(&r, num, strlen(num), &s, &o, &err), 0);
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_text_reader_next(r, &b, &err), 0);
  assert_int_equal(b.num_rows, 1);
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  o.version = INLET_TEXT_READER_OPTIONS_VERSION + 1;
  assert_int_equal(inlet_text_reader_open_memory(&r, text, strlen(text), &s, &o, &err),
                   INLET_EINVAL);
  inlet_schema_reset(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_text_row_check__refused_rows_are_bad_records),
      cmocka_unit_test(test_text_row_check__other_codes_fail_the_read),
      cmocka_unit_test(test_text_row_check__append_reports_reason),
      cmocka_unit_test(test_text_row_check__version_1_options_accepted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
