/*
 * The README's C API example (examples/api_example.c) is built by
 * tests/CMakeLists.txt against the public headers and the shared library;
 * this runs it and checks both what it prints and, with refcheck (the
 * DuckDB-based reader), the table it leaves: 5 rows at version 1, 3 at
 * version 0, the txn action of its exactly-once append.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void test_api_example__runs_and_leaves_a_table_duckdb_reads(void **state) {
  (void)state;
  char *base = tu_mkdtemp("api-example");
  char table[4200];
  snprintf(table, sizeof table, "%s/events", base);
  tu_result r;
  tu_sh(&r, "'%s/tests/api_example' '%s'", INLET_BUILD_DIR, table);
  if (r.status != 0) fail_msg("api_example exited %d: %s %s", r.status, r.out, r.err);
  assert_non_null(strstr(r.out, "created "));
  assert_non_null(strstr(r.out, "appended batch 1 of my-app as version 1"));
  assert_non_null(strstr(r.out, "replay of batch 1 refused"));
  /* ids 1..5, amount 1.25 * id: 18.75 */
  assert_non_null(
      strstr(r.out, "version 1: 5 rows in 2 files, sum(amount) = 18.75, my-app at batch 1"));
  assert_non_null(strstr(r.out, "version 0: 3 rows"));
  assert_non_null(strstr(r.out, "describe: version 1, 2 commits, 2 files, 5 rows"));
  tu_result_free(&r);

  tu_sh(&r, "'%s' '%s' delta '%s'", INLET_NODE, INLET_REFCHECK, table);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "[5,\"user-2\",6.25,\"2024-01-01T00:00:05.000000Z\"]"));
  int rows = 0;
  for (const char *p = r.out; (p = strstr(p, "\n[")) != NULL; p++)
    rows++;
  assert_int_equal(rows, 5);
  tu_result_free(&r);
  tu_sh(&r, "'%s' '%s' delta '%s' --version 0 | grep -c '^\\['", INLET_NODE, INLET_REFCHECK, table);
  assert_int_equal(atoi(r.out), 3);
  tu_result_free(&r);
  tu_sh(&r, "'%s' '%s' log '%s'", INLET_NODE, INLET_REFCHECK, table);
  assert_non_null(strstr(r.out, "\"my-app\": 1"));
  tu_result_free(&r);
  tu_rmtree(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_api_example__runs_and_leaves_a_table_duckdb_reads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
