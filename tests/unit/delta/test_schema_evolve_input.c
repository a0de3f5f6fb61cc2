/*
 * delta_schema_evolve / delta_schema_widen given a schemaString that is not
 * a struct type (a corrupt log): INLET_ECORRUPT naming the problem, and
 * nothing leaked (the suite runs under LeakSanitizer).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "delta/delta.h"

static void test_schema_input__not_a_struct_is_corrupt(void **state) {
  (void)state;
  const char *bad[] = {"{\"type\":\"struct\"}", "[1,2]", "{\"type\":\"struct\",\"fields\":{}}",
                       "not json"};
  const char *rec = "{\"a\":1}";
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    for (int widen = 0; widen < 2; widen++) {
      inlet_error err = INLET_ERROR_INIT;
      char *out = (char *)1;
      int32_t n = -1;
      int rc = widen ? delta_schema_widen(&out, &n, bad[i], rec, strlen(rec), &err)
                     : delta_schema_evolve(&out, &n, bad[i], rec, strlen(rec), &err);
      assert_int_equal(rc, INLET_ECORRUPT);
      assert_null(out);
      assert_int_equal(n, 0);
      assert_non_null(strstr(inlet_errmsg(&err), "schemaString is not a struct type"));
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_schema_input__not_a_struct_is_corrupt),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
