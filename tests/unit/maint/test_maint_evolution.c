/*
 * Compaction across schema evolution (white box: the column is added by
 * committing a new metaData through the delta module, as an ALTER TABLE
 * ADD COLUMN would): files written before the change lack the column,
 * and compacting them together with newer files fills it with nulls, as
 * readers see it (PROTOCOL.md "Schema Evolution"), while the new files
 * keep their values.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/delta_table_int.h"
#include "util/util.h"

#include "../../integration/test_maint_support.h"

#define WIDE_SCHEMA MS_SCHEMA ", extra string"

static void add_column(inlet_table *t) {
  inlet_error err = INLET_ERROR_INIT;
  delta_snapshot s;
  assert_int_equal(delta_table_load(t, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  inlet_schema wide;
  assert_int_equal(inlet_schema_parse(&wide, WIDE_SCHEMA, &err), 0);
  char *js = NULL;
  assert_int_equal(delta_schema_to_json(&js, &wide, &err), 0);
  delta_action a;
  memset(&a, 0, sizeof a);
  a.kind = DELTA_ACTION_METADATA;
  assert_int_equal(delta_metadata_copy(&a.u.metadata, &s.metadata, &err), 0);
  inlet_free(a.u.metadata.schema_string);
  a.u.metadata.schema_string = js;
  delta_txn *txn = NULL;
  assert_int_equal(delta_txn_begin(&txn, t->st, t->root_abs, s.version, "ADD COLUMNS", &err), 0);
  assert_int_equal(delta_txn_add_action(txn, &a, &err), 0);
  int64_t v = -1;
  if (delta_txn_commit(txn, &v, &err) != 0) fail_msg("commit: %s", err.message);
  delta_txn_free(txn);
  delta_action_reset(&a);
  inlet_schema_reset(&wide);
  delta_snapshot_reset(&s);
}

static void test_evolution__compaction_fills_added_column_with_nulls(void **state) {
  (void)state;
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-evolution"));
  snprintf(path, sizeof path, "%s/t", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, MS_SCHEMA, &err), 0);
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *pcols[] = {"day"};
  co.n_partition_columns = 1;
  co.partition_columns = pcols;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_create(&t, path, &s, &co, &err), 0);
  for (int i = 0; i < 3; i++) {
    inlet_batch b;
    ms_batch(&b, i * 10, 10, ms_one_day);
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err) != 0) fail_msg("append: %s", err.message);
    inlet_batch_reset(&b);
  }
  add_column(t);
  inlet_schema wide;
  assert_int_equal(inlet_schema_parse(&wide, WIDE_SCHEMA, &err), 0);
  for (int i = 3; i < 6; i++) {
    inlet_batch nb, b;
    ms_batch(&b, i * 10, 10, ms_one_day);
    assert_int_equal(inlet_batch_init(&nb, &wide, &err), 0);
    for (int c = 0; c < 4; c++) {
      inlet_array tmp = nb.columns[c];
      nb.columns[c] = b.columns[c];
      b.columns[c] = tmp;
    }
    for (int r = 0; r < 10; r++)
      assert_int_equal(inlet_array_append_bytes(&nb.columns[4], &wide.fields[4], "x", 1, &err), 0);
    nb.num_rows = 10;
    if (inlet_table_append(t, &nb, 1, NULL, NULL, &err) != 0) fail_msg("append: %s", err.message);
    inlet_batch_reset(&nb);
    inlet_batch_reset(&b);
  }
  inlet_compact_options o = INLET_COMPACT_OPTIONS_INIT;
  o.min_files = 2;
  inlet_compact_result res;
  if (inlet_table_compact(&res, t, &o, &err) != 0) fail_msg("compact: %s", err.message);
  assert_int_equal(res.commits, 1);
  assert_int_equal(res.failed_groups, 0);
  assert_int_equal(res.files_removed, 6);
  assert_int_equal(res.files_added, 1);
  inlet_table_free(t);
  ms_expect_ids_0_to_n(path, -1, 60);
  /* Through the table: extra is null exactly for ids below 30. */
  assert_int_equal(inlet_table_open(&t, path, &err), 0);
  inlet_snapshot *snap = NULL;
  inlet_table_scan *sc = NULL;
  assert_int_equal(inlet_table_snapshot(&snap, t, &err), 0);
  assert_int_equal(inlet_snapshot_num_files(snap), 1);
  assert_int_equal(inlet_table_scan_open(&sc, snap, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t nulls = 0, rows = 0;
  int rc;
  while ((rc = inlet_table_scan_next(sc, &b, &err)) == 1) {
    int ci = inlet_schema_find(&b.schema, "id"), ce = inlet_schema_find(&b.schema, "extra");
    assert_true(ce >= 0);
    for (int64_t r = 0; r < b.num_rows; r++, rows++) {
      int64_t id = ((const int64_t *)b.columns[ci].values)[r];
      bool valid = inlet_array_is_valid(&b.columns[ce], r);
      assert_int_equal(valid, id >= 30);
      nulls += !valid;
    }
  }
  assert_int_equal(rc, 0);
  assert_int_equal(rows, 60);
  assert_int_equal(nulls, 30);
  inlet_batch_reset(&b);
  inlet_table_scan_free(sc);
  inlet_snapshot_free(snap);
  inlet_table_free(t);
  inlet_schema_reset(&wide);
  inlet_schema_reset(&s);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_evolution__compaction_fills_added_column_with_nulls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
