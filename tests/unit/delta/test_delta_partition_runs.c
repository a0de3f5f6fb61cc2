/*
 * The partitioned write path routes rows by runs of equal partition values
 * (delta_write.c): whatever the order of the rows - sorted runs, values
 * coming back after other values, nulls between values, strings that share
 * a prefix or differ only in length - every row lands in the one file of
 * its partition, each partition has exactly one file per transaction, and
 * a scan gives back every row with its partition values.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"

#define N 400

/* Row i's partition: p in {NULL, "a", "ab", "b"}, q in {NULL, 1, 2}, in
 * a pattern of runs of varying length that revisits earlier values. */
static int p_of(int i) {
  return (i / 7 + i / 50) % 4;
}
static int q_of(int i) {
  return (i / 3) % 5 == 4 ? 0 : 1 + (i / 11) % 2;
}
static const char *p_names[] = {NULL, "a", "ab", "b"};

static void test_runs__every_row_in_its_partition_file(void **state) {
  (void)state;
  const char *dir = tu_mkdtemp("partition-runs");
  char path[4200];
  snprintf(path, sizeof path, "%s/t", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id int not null, p string, q int", &err), 0);
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *pcols[] = {"p", "q"};
  co.partition_columns = pcols;
  co.n_partition_columns = 2;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_create(&t, path, &s, &co, &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, &err), 0);
  int expect[4][3] = {{0}};
  for (int i = 0; i < N; i++) {
    assert_int_equal(inlet_array_append_int(&b.columns[0], &s.fields[0], i, &err), 0);
    const char *p = p_names[p_of(i)];
    if (p)
      assert_int_equal(inlet_array_append_bytes(&b.columns[1], &s.fields[1], p, strlen(p), &err),
                       0);
    else
      assert_int_equal(inlet_array_append_null(&b.columns[1], &s.fields[1], &err), 0);
    if (q_of(i))
      assert_int_equal(inlet_array_append_int(&b.columns[2], &s.fields[2], q_of(i), &err), 0);
    else
      assert_int_equal(inlet_array_append_null(&b.columns[2], &s.fields[2], &err), 0);
    expect[p_of(i)][q_of(i)]++;
  }
  b.num_rows = N;
  /* Two batches in one transaction: the second finds the first's files. */
  inlet_table_writer *w = NULL;
  assert_int_equal(inlet_table_writer_open(&w, t, NULL, &err), 0);
  assert_int_equal(inlet_table_writer_write(w, &b, &err), 0);
  assert_int_equal(inlet_table_writer_write(w, &b, &err), 0);
  assert_int_equal(inlet_table_writer_commit(w, NULL, &err), 0);
  inlet_table_writer_free(w);
  inlet_batch_reset(&b);

  inlet_snapshot *snap = NULL;
  assert_int_equal(inlet_table_snapshot(&snap, t, &err), 0);
  int partitions = 0;
  for (int pi = 0; pi < 4; pi++)
    for (int qi = 0; qi < 3; qi++)
      partitions += expect[pi][qi] > 0;
  /* One file per partition. */
  assert_int_equal(inlet_snapshot_num_files(snap), partitions);
  /* Every row back, with the partition values it was written with. */
  int seen[N] = {0};
  inlet_table_scan *sc = NULL;
  assert_int_equal(inlet_table_scan_open(&sc, snap, &err), 0);
  memset(&b, 0, sizeof b);
  int rc;
  while ((rc = inlet_table_scan_next(sc, &b, &err)) == 1) {
    int ci = inlet_schema_find(&b.schema, "id"), cp = inlet_schema_find(&b.schema, "p"),
        cq = inlet_schema_find(&b.schema, "q");
    const int32_t *ids = (const int32_t *)b.columns[ci].values;
    const int32_t *qs = (const int32_t *)b.columns[cq].values;
    for (int64_t r = 0; r < b.num_rows; r++) {
      int i = ids[r];
      assert_true(i >= 0 && i < N);
      seen[i]++;
      const inlet_array *pa = &b.columns[cp];
      const char *want = p_names[p_of(i)];
      if (!want) {
        assert_false(inlet_array_is_valid(pa, r));
      } else {
        assert_true(inlet_array_is_valid(pa, r));
        size_t len = (size_t)(pa->offsets[r + 1] - pa->offsets[r]);
        assert_int_equal(len, strlen(want));
        assert_memory_equal(pa->values + pa->offsets[r], want, len);
      }
      if (q_of(i)) {
        assert_true(inlet_array_is_valid(&b.columns[cq], r));
        assert_int_equal(qs[r], q_of(i));
      } else {
        assert_false(inlet_array_is_valid(&b.columns[cq], r));
      }
    }
  }
  assert_int_equal(rc, 0);
  inlet_batch_reset(&b);
  inlet_table_scan_free(sc);
  for (int i = 0; i < N; i++)
    assert_int_equal(seen[i], 2);
  inlet_snapshot_free(snap);
  inlet_table_free(t);
  inlet_schema_reset(&s);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runs__every_row_in_its_partition_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
