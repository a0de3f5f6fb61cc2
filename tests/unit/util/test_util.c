/*
 * Unit tests for src/util: error recording and the growable buffer.
 */
#include "testutil.h"

#include "util/buf.h"
#include "util/util.h"

static void test_error__fail_records_code_and_message(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  int rc = inlet_fail(&err, INLET_ECORRUPT, "bad page in %s", "a.parquet");
  assert_int_equal(rc, INLET_ECORRUPT);
  assert_int_equal(err.code, INLET_ECORRUPT);
  assert_string_equal(inlet_errmsg(&err), "bad page in a.parquet");
  inlet_error_prefix(&err, "reading %s", "t");
  assert_string_equal(inlet_errmsg(&err), "reading t: bad page in a.parquet");
  inlet_error_clear(&err);
  assert_string_equal(inlet_errmsg(&err), "success");
  assert_int_equal(inlet_fail(NULL, INLET_EIO, "x"), INLET_EIO);
}

static void test_error__long_message_truncates(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  char big[2000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  inlet_fail(&err, INLET_EINVAL, "%s", big);
  assert_int_equal(strlen(err.message), INLET_ERROR_MESSAGE_SIZE - 1);
}

static void test_buf__grows_and_detaches(void **state) {
  (void)state;
  inlet_buf b = INLET_BUF_INIT;
  for (int i = 0; i < 10000; i++)
    assert_int_equal(inlet_buf_appendf(&b, "%d,", i), 0);
  assert_true(b.len > 10000);
  assert_memory_equal(b.data, "0,1,2,", 6);
  size_t len = 0;
  uint8_t *d = inlet_buf_detach(&b, &len);
  assert_non_null(d);
  assert_int_equal(d[len], '\0');
  assert_null(b.data);
  inlet_free(d);
}

static void test_buf__sticky_enomem(void **state) {
  (void)state;
  inlet_buf b = INLET_BUF_INIT;
  inlet_alloc_fail_after(0);
  assert_int_equal(inlet_buf_append(&b, "abc", 3), INLET_ENOMEM);
  inlet_alloc_fail_after(-1);
  assert_int_equal(inlet_buf_append(&b, "abc", 3), INLET_ENOMEM);
  assert_int_equal(inlet_buf_status(&b), INLET_ENOMEM);
  inlet_buf_reset(&b);
  assert_int_equal(inlet_buf_append(&b, "abc", 3), 0);
  assert_int_equal(b.len, 3);
  inlet_buf_reset(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_error__fail_records_code_and_message),
      cmocka_unit_test(test_error__long_message_truncates),
      cmocka_unit_test(test_buf__grows_and_detaches),
      cmocka_unit_test(test_buf__sticky_enomem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
