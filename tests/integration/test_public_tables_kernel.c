/*
 * Issue 16, "Proof": the public test tables of delta-kernel-rs
 * (kernel/tests/data with its .tar.zst archives,
 * tests/data/public/delta-kernel-rs.tar.zst) read in inlet as refcheck reads
 * them, at every version their logs list; where refcheck refuses, inlet
 * refuses too (public_tables.h).
 */
#include "testutil.h"

#include "public_tables.h"

static void test_public__kernel_tables_read_as_refcheck_reads_them(void **state) {
  (void)state;
  /* 59 tables, 215 versions read identically when this test was written
   * (two fixes found by it: inline DVs with an overflowing Z85 padding group,
   * an unreconciled log compaction file). */
  pt_check_project("delta-kernel-rs", NULL, 0, 59, 215);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_public__kernel_tables_read_as_refcheck_reads_them),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
