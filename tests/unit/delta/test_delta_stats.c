/*
 * Per-file statistics of string columns whose first value is empty (found
 * by the chaos suite, tests/integration/test_chaos.c): the empty min/max
 * buffers have no storage, and comparing the next value with them called
 * memcmp with a NULL pointer — undefined behaviour that UBSan stops the
 * ingester on, on every retry. The empty string is the minimum; the bounds
 * stay right across batches.
 */
#include "testutil.h"

#include <stdio.h>

#include "delta/delta.h"
#include "util/util.h"

static void add_strings(delta_stats_acc *acc, const inlet_schema *s, const char *const *v, int n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, s, &err), 0);
  for (int i = 0; i < n; i++)
    assert_int_equal(
        inlet_array_append_bytes(&b.columns[0], &s->fields[0], v[i], strlen(v[i]), &err), 0);
  b.num_rows = n;
  assert_int_equal(delta_stats_add(acc, &b, NULL, n, &err), 0);
  inlet_batch_reset(&b);
}

static void test_stats__empty_first_string_is_the_min(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "body string", &err), 0);
  delta_stats_acc *acc = NULL;
  assert_int_equal(delta_stats_new(&acc, &s, 32, &err), 0);
  /* Empty first, then greater values, then empty again; a second batch of
   * only empty values (no string bytes at all) changes nothing. */
  const char *const first[] = {"", "b", "", "ab", "c"};
  const char *const second[] = {"", ""};
  add_strings(acc, &s, first, 5);
  add_strings(acc, &s, second, 2);
  char *js = NULL;
  assert_int_equal(delta_stats_json(acc, &js, &err), 0);
  assert_string_equal(js, "{\"numRecords\":7,\"minValues\":{\"body\":\"\"},"
                          "\"maxValues\":{\"body\":\"c\"},\"nullCount\":{\"body\":0}}");
  inlet_free(js);
  delta_stats_free(acc);
  /* Only empty values: both bounds are the empty string. */
  assert_int_equal(delta_stats_new(&acc, &s, 32, &err), 0);
  add_strings(acc, &s, second, 2);
  assert_int_equal(delta_stats_json(acc, &js, &err), 0);
  assert_string_equal(js, "{\"numRecords\":2,\"minValues\":{\"body\":\"\"},"
                          "\"maxValues\":{\"body\":\"\"},\"nullCount\":{\"body\":0}}");
  inlet_free(js);
  delta_stats_free(acc);
  inlet_schema_reset(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stats__empty_first_string_is_the_min),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
