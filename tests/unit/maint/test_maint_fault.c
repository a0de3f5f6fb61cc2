/*
 * Fault injection for compaction (white box: the table's storage is
 * swapped for the fault-injecting backend of src/storage/fault.h, and the
 * allocator countdown of src/util):
 *   - a compaction stopped ("crashed") before each storage operation in
 *     turn leaves the table readable with the same 200 rows, at the old
 *     version or with the OPTIMIZE committed whole;
 *   - a vacuum afterwards (all files made to look 30 days old, default
 *     7-day window) removes the crash's debris and nothing else: time
 *     travel to every version still reads all rows;
 *   - a single failing operation (no crash) fails the group cleanly;
 *   - allocation failures at any point return cleanly (ASan checks leaks).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/delta_table_int.h"
#include "storage/fault.h"
#include "util/util.h"

#include "../../integration/test_maint_support.h"

static char tmpl[4096];

static int setup(void **state) {
  (void)state;
  snprintf(tmpl, sizeof tmpl, "%s", tu_mkdtemp("maint-fault-tmpl"));
  char path[4200];
  snprintf(path, sizeof path, "%s/t", tmpl);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, MS_SCHEMA, &err), 0);
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *pcols[] = {"day"};
  co.n_partition_columns = 1;
  co.partition_columns = pcols;
  inlet_table *t = NULL;
  if (inlet_table_create(&t, path, &s, &co, &err) != 0) fail_msg("create: %s", err.message);
  for (int i = 0; i < 10; i++) {
    inlet_batch b;
    ms_batch(&b, i * 20, 20, ms_one_day);
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err) != 0) fail_msg("append: %s", err.message);
    inlet_batch_reset(&b);
  }
  inlet_table_free(t);
  inlet_schema_reset(&s);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(tmpl);
  return 0;
}

/* Fresh copy of the template as @p dir/t; returns the table path. */
static void fresh_copy(char *table, size_t cap, const char *tag) {
  const char *dir = tu_mkdtemp(tag);
  snprintf(table, cap, "%s/t", dir);
  tu_result r;
  tu_sh(&r, "cp -a '%s/t' '%s'", tmpl, table);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
}

/* Runs one compaction with the table's storage wrapped; @p arm configures
 * the fault. Returns the compaction's rc; *ops gets the operations used. */
static int compact_with_fault(const char *table, int64_t after, inlet_fault_mode mode, bool armed,
                              int64_t *ops) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  inlet_storage *orig = t->st, *fs = NULL;
  assert_int_equal(inlet_storage_fault_wrap(&fs, orig, false, &err), 0);
  t->st = fs;
  if (armed) inlet_fault_arm(fs, INLET_FAULT_ANY, after, mode);
  inlet_compact_options o = INLET_COMPACT_OPTIONS_INIT;
  o.min_files = 8;
  inlet_compact_result res;
  int rc = inlet_table_compact(&res, t, &o, &err);
  if (ops) *ops = inlet_fault_count(fs, INLET_FAULT_ANY);
  inlet_fault_disarm(fs);
  t->st = orig;
  fs->ops->free(fs);
  inlet_table_free(t);
  if (rc == 0 && res.failed_groups) rc = INLET_EIO;
  return rc;
}

static int64_t latest_version(const char *table) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  if (inlet_table_snapshot(&s, t, &err) != 0) fail_msg("%s: %s", table, err.message);
  int64_t v = inlet_snapshot_version(s);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return v;
}

/* After a (possibly crashed) compaction: rows intact at every version;
 * then a vacuum with every file aged 30 days removes exactly the debris. */
static int64_t check_after(const char *table, int64_t k) {
  int64_t v = latest_version(table);
  if (v != 10 && v != 11)
    fail_msg("fault at op %lld: table at version %lld", (long long)k, (long long)v);
  ms_expect_ids_0_to_n(table, -1, 200);
  int64_t live = ms_live_files(table);
  assert_int_equal(live, v == 11 ? 1 : 10);
  int64_t on_disk = ms_count_data_files(table);
  int64_t expected = v == 11 ? 11 : 10; /* + the 10 tombstoned inputs when compacted */
  assert_true(on_disk >= expected);
  tu_result r;
  tu_sh(&r,
        "find '%s' -name '*.parquet' -not -path '*/_delta_log/*' -exec touch -d '30 days ago' {} +",
        table);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  inlet_vacuum_result vr;
  if (inlet_table_vacuum(&vr, t, NULL, &err) != 0) fail_msg("vacuum: %s", err.message);
  inlet_table_free(t);
  assert_int_equal(vr.files, on_disk - expected);
  assert_int_equal(vr.debris, on_disk - expected);
  assert_int_equal(vr.tombstoned, 0);
  assert_int_equal(ms_count_data_files(table), expected);
  for (int64_t ver = 10; ver <= v; ver++)
    ms_expect_ids_0_to_n(table, ver, 200);
  return vr.debris;
}

static void test_fault__compaction_crash_at_each_step_keeps_rows_and_vacuum_cleans(void **state) {
  (void)state;
  char table[4200];
  fresh_copy(table, sizeof table, "maint-fault-count");
  int64_t ops = 0;
  assert_int_equal(compact_with_fault(table, 0, INLET_FAULT_STOP, false, &ops), 0);
  assert_true(ops > 5);
  check_after(table, -1);
  int64_t committed = 0, with_debris = 0;
  for (int64_t k = 0; k <= ops; k++) {
    fresh_copy(table, sizeof table, "maint-fault-stop");
    int rc = compact_with_fault(table, k, INLET_FAULT_STOP, true, NULL);
    (void)rc; /* fails with EIO, or succeeds when the crash comes after the last step */
    if (latest_version(table) == 11) committed++;
    with_debris += check_after(table, k) > 0;
    tu_rmtree(table);
  }
  /* Crashes between writing the new file and publishing leave debris. */
  assert_true(with_debris >= 1);
  /* Crashes after the publication keep the commit; earlier ones don't. */
  assert_true(committed >= 1);
  assert_true(committed < ops + 1);
}

static void test_fault__single_failed_operation_fails_group_cleanly(void **state) {
  (void)state;
  char table[4200];
  fresh_copy(table, sizeof table, "maint-fault-count2");
  int64_t ops = 0;
  assert_int_equal(compact_with_fault(table, 0, INLET_FAULT_FAIL, false, &ops), 0);
  tu_rmtree(table);
  for (int64_t k = 0; k <= ops; k++) {
    fresh_copy(table, sizeof table, "maint-fault-fail");
    (void)compact_with_fault(table, k, INLET_FAULT_FAIL, true, NULL);
    check_after(table, k);
    tu_rmtree(table);
  }
}

static void test_fault__allocation_failures_return_cleanly(void **state) {
  (void)state;
  char table[4200];
  /* Geometric steps through the allocation sequence keep this fast. */
  for (long n = 0; n < 200000; n = n < 16 ? n + 1 : n + n / 4) {
    fresh_copy(table, sizeof table, "maint-fault-oom");
    inlet_error err = INLET_ERROR_INIT;
    inlet_table *t = NULL;
    assert_int_equal(inlet_table_open(&t, table, &err), 0);
    inlet_compact_options o = INLET_COMPACT_OPTIONS_INIT;
    o.min_files = 8;
    o.n_sort_by = 1;
    const char *cols[] = {"ts"};
    o.sort_by = cols;
    inlet_compact_result res;
    inlet_alloc_fail_after(n);
    int rc = inlet_table_compact(&res, t, &o, &err);
    inlet_alloc_fail_after(-1);
    inlet_table_free(t);
    /* A failure says why; a success committed exactly what it reports. */
    if (rc < 0) assert_true(err.message[0] != '\0');
    int64_t v = latest_version(table);
    assert_true(v == 10 || v == 11);
    if (rc == 0) assert_int_equal(v, 10 + res.commits);
    ms_expect_ids_0_to_n(table, -1, 200);
    tu_rmtree(table);
    if (rc == 0 && res.commits == 1) break; /* got through without a failure */
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fault__compaction_crash_at_each_step_keeps_rows_and_vacuum_cleans),
      cmocka_unit_test(test_fault__single_failed_operation_fails_group_cleanly),
      cmocka_unit_test(test_fault__allocation_failures_return_cleanly),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
