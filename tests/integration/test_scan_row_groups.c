/*
 * Row-group skipping end to end: a table whose data file has several row
 * groups (as Spark or DuckDB write them) and no add.stats, so the log
 * cannot skip the file and only the Parquet statistics of each row group
 * (parquet.thrift ColumnMetaData.statistics) can. The scan must read just
 * the row groups that may match and still return every matching row.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inlet/inlet.h"

/* Writes @p b into TABLE/@p name in row groups of 10 rows and commits it
 * as version 1 without add.stats (PROTOCOL.md "Add File and Remove File"),
 * so only the Parquet statistics can skip. Resets @p b. */
static void add_file_without_stats(const char *table, const inlet_schema *s, inlet_batch *b,
                                   const char *name) {
  inlet_error err = INLET_ERROR_INIT;
  char file[4400], log[4400];
  snprintf(file, sizeof file, "%s/%s", table, name);
  inlet_parquet_writer_options wo = INLET_PARQUET_WRITER_OPTIONS_INIT;
  wo.row_group_max_rows = 10;
  inlet_parquet_writer *w = NULL;
  assert_int_equal(inlet_parquet_writer_open(&w, file, s, &wo, &err), 0);
  assert_int_equal(inlet_parquet_writer_write(w, b, &err), 0);
  assert_int_equal(inlet_parquet_writer_close(w, &err), 0);
  inlet_parquet_writer_free(w);
  inlet_batch_reset(b);
  struct stat st;
  assert_int_equal(stat(file, &st), 0);
  snprintf(log, sizeof log, "%s/_delta_log/00000000000000000001.json", table);
  char line[1024];
  snprintf(line, sizeof line,
           "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%lld,"
           "\"modificationTime\":1714521600000,\"dataChange\":true}}\n",
           name, (long long)st.st_size);
  assert_int_equal(tu_write_file(log, line, strlen(line)), 0);
}

static void test_scan__row_groups_skipped_by_parquet_statistics(void **state) {
  (void)state;
  const char *dir = tu_mkdtemp("scan-rg");
  char table[4300];
  snprintf(table, sizeof table, "%s/t", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, name string", &err), 0);
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_create(&t, table, &s, NULL, &err), 0);

  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, &err), 0);
  for (int i = 0; i < 50; i++) {
    char nm[16];
    int n = snprintf(nm, sizeof nm, "n%02d", i);
    assert_int_equal(inlet_array_append_int(&b.columns[0], &s.fields[0], i, &err), 0);
    assert_int_equal(inlet_array_append_bytes(&b.columns[1], &s.fields[1], nm, (size_t)n, &err), 0);
  }
  b.num_rows = 50;
  /* 50 rows in row groups of 10, written beside the log. */
  add_file_without_stats(table, &s, &b, "part-00000-rg.parquet");

  inlet_snapshot *snap = NULL;
  assert_int_equal(inlet_table_snapshot(&snap, t, &err), 0);
  assert_int_equal(inlet_snapshot_version(snap), 1);
  inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
  o.where = "(id >= 25 AND id < 28) OR name = 'n41'";
  o.explain = true;
  inlet_scan *sc = NULL;
  assert_int_equal(inlet_scan_open(&sc, snap, &o, &err), 0);
  inlet_batch out;
  memset(&out, 0, sizeof out);
  int64_t ids[64], n = 0;
  int rc;
  while ((rc = inlet_scan_next(sc, &out, &err)) == 1) {
    assert_int_equal(out.schema.n_fields, 2);
    for (int64_t r = 0; r < out.num_rows && n < 64; r++)
      ids[n++] = ((const int64_t *)out.columns[0].values)[r];
  }
  assert_int_equal(rc, 0);
  assert_int_equal(n, 4);
  assert_int_equal(ids[0], 25);
  assert_int_equal(ids[1], 26);
  assert_int_equal(ids[2], 27);
  assert_int_equal(ids[3], 41);
  inlet_scan_stats ss;
  inlet_scan_get_stats(sc, &ss);
  assert_int_equal(ss.files, 1);
  assert_int_equal(ss.files_skipped, 0);
  assert_int_equal(ss.files_read, 1);
  assert_int_equal(ss.row_groups, 5);
  assert_int_equal(ss.row_groups_skipped, 3);
  assert_int_equal(ss.row_groups_read, 2);
  assert_int_equal(ss.rows_read, 20);
  const char *report = inlet_scan_explain(sc);
  assert_non_null(
      strstr(report, "row group 0 of part-00000-rg.parquet: skipped by Parquet statistics"));
  assert_non_null(strstr(report, "row group 2 of part-00000-rg.parquet: read (10 rows)"));
  assert_non_null(
      strstr(report, "row groups: 5 in files read, 3 skipped by Parquet statistics, 2 read"));
  inlet_batch_reset(&out);
  inlet_scan_free(sc);
  inlet_snapshot_free(snap);
  inlet_table_free(t);
  inlet_schema_reset(&s);
  tu_rmtree(dir);
}

/* Runs @p where over the snapshot; returns the ids read (in *ids, *n) and
 * the row groups skipped. */
static int64_t scan_ids(inlet_snapshot *snap, const char *where, int64_t *ids, int64_t *n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
  o.where = where;
  inlet_scan *sc = NULL;
  assert_int_equal(inlet_scan_open(&sc, snap, &o, &err), 0);
  inlet_batch out;
  memset(&out, 0, sizeof out);
  int rc;
  *n = 0;
  while ((rc = inlet_scan_next(sc, &out, &err)) == 1)
    for (int64_t r = 0; r < out.num_rows && *n < 64; r++)
      ids[(*n)++] = ((const int64_t *)out.columns[0].values)[r];
  assert_int_equal(rc, 0);
  inlet_scan_stats ss;
  inlet_scan_get_stats(sc, &ss);
  inlet_batch_reset(&out);
  inlet_scan_free(sc);
  return ss.row_groups_skipped;
}

/* Booleans: Parquet orders false < true, so a row group of only false
 * values cannot hold `flag` and one of only true values cannot hold
 * `NOT flag`. Four row groups of 10: all false, all true, mixed (true at
 * even ids), false or null. */
static void test_scan__boolean_row_groups_skipped(void **state) {
  (void)state;
  const char *dir = tu_mkdtemp("scan-rg-bool");
  char table[4300];
  snprintf(table, sizeof table, "%s/t", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, flag boolean", &err), 0);
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_create(&t, table, &s, NULL, &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, &err), 0);
  for (int i = 0; i < 40; i++) {
    assert_int_equal(inlet_array_append_int(&b.columns[0], &s.fields[0], i, &err), 0);
    int g = i / 10;
    if (g == 3 && i % 2)
      assert_int_equal(inlet_array_append_null(&b.columns[1], &s.fields[1], &err), 0);
    else
      assert_int_equal(
          inlet_array_append_bool(&b.columns[1], g == 1 || (g == 2 && i % 2 == 0), &err), 0);
  }
  b.num_rows = 40;
  add_file_without_stats(table, &s, &b, "part-00000-bool.parquet");
  inlet_snapshot *snap = NULL;
  assert_int_equal(inlet_table_snapshot(&snap, t, &err), 0);

  int64_t ids[64], n;
  /* flag: row groups 1 and 2 may hold it; 0 (all false) and 3 (false, null) cannot. */
  assert_int_equal(scan_ids(snap, "flag = true", ids, &n), 2);
  assert_int_equal(n, 15);
  for (int64_t k = 0; k < 10; k++)
    assert_int_equal(ids[k], 10 + k);
  for (int64_t k = 0; k < 5; k++)
    assert_int_equal(ids[10 + k], 20 + 2 * k);
  assert_int_equal(scan_ids(snap, "flag", ids, &n), 2);
  assert_int_equal(n, 15);
  /* NOT flag: only row group 1 (all true) is skipped. */
  assert_int_equal(scan_ids(snap, "flag = false", ids, &n), 1);
  assert_int_equal(n, 10 + 5 + 5);
  assert_int_equal(ids[0], 0);
  assert_int_equal(ids[10], 21);
  assert_int_equal(ids[15], 30);
  assert_int_equal(ids[19], 38);
  /* The null counts answer IS NULL: only row group 3 has nulls. */
  assert_int_equal(scan_ids(snap, "flag IS NULL", ids, &n), 3);
  assert_int_equal(n, 5);
  assert_int_equal(ids[0], 31);
  inlet_snapshot_free(snap);
  inlet_table_free(t);
  inlet_schema_reset(&s);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scan__row_groups_skipped_by_parquet_statistics),
      cmocka_unit_test(test_scan__boolean_row_groups_skipped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
