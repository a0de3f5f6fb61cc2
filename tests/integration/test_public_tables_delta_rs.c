/*
 * Issue 16, "Proof": the public test tables of delta-rs
 * (crates/test/tests/data, tests/data/public/delta-rs.tar.zst) read in inlet
 * as refcheck reads them, at every version their logs list; where refcheck
 * refuses, inlet refuses too (public_tables.h).
 */
#include "testutil.h"

#include "public_tables.h"

/* Tables refcheck cannot read and inlet must. */
static const pt_reads_more MORE[] = {
    /* refcheck lacks variantShredding-preview; test_variant_tables checks
     * inlet's reading of shredded values against parquet-testing's. */
    {"/spark-shredded-variant-preview-delta", "refcheck lacks variantShredding"},
};

static void test_public__delta_rs_tables_read_as_refcheck_reads_them(void **state) {
  (void)state;
  /* 50 tables, 161 versions read identically when this test was written. */
  pt_check_project("delta-rs", MORE, (int)(sizeof MORE / sizeof MORE[0]), 50, 161);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_public__delta_rs_tables_read_as_refcheck_reads_them),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
