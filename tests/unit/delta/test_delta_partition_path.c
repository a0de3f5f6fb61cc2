/*
 * Issue 12, "Crashes (critical)": the rule for partition values that can
 * name a directory (src/delta/delta_partition_path.c), and the table
 * writer's use of it:
 *   - the 255-byte limit is on the escaped "column=value", to the byte;
 *     NUL bytes and invalid UTF-8 are refused; a data file path must stay
 *     under PATH_MAX;
 *   - the escaped length agrees with delta_hive_escape for every byte;
 *   - a batch holding a bad row fails whole before any file is created, the
 *     writer stays usable, and a later commit holds exactly the good rows in
 *     exactly their files; inlet_table_writer_check_row names the column.
 */
#include "testutil.h"

#include <stdio.h>

#include "delta/delta_table_int.h"
#include "util/util.h"

static void test_partition_path__component_limit_is_escaped_bytes(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  char v[400];
  size_t len = 0;
  memset(v, 'a', sizeof v);
  /* "k=" + 253 = 255 fits; 254 does not. */
  assert_int_equal(delta_partition_component_check("k", v, 253, &len, &err), 0);
  assert_int_equal(len, 255);
  assert_int_equal(delta_partition_component_check("k", v, 254, &len, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "partition column \"k\""));
  assert_non_null(strstr(err.message, "256 bytes"));
  /* Escaped bytes count three times, in the column name too. */
  memset(v, '/', sizeof v);
  assert_int_equal(delta_partition_component_check("k", v, 84, &len, &err), 0);
  assert_int_equal(len, 254);
  assert_int_equal(delta_partition_component_check("k", v, 85, &len, &err), INLET_EINVAL);
  memset(v, 'a', sizeof v);
  assert_int_equal(delta_partition_component_check("a:b", v, 249, &len, &err), 0);
  assert_int_equal(len, 255);
  assert_int_equal(delta_partition_component_check("a:b", v, 250, &len, &err), INLET_EINVAL);
  /* A null is __HIVE_DEFAULT_PARTITION__. */
  assert_int_equal(delta_partition_component_check("k", NULL, 0, &len, &err), 0);
  assert_int_equal(len, strlen("k=__HIVE_DEFAULT_PARTITION__"));
}

static void test_partition_path__nul_and_invalid_utf8_refused(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  size_t len;
  assert_int_equal(delta_partition_component_check("k", "a\0b", 3, &len, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "NUL"));
  assert_int_equal(delta_partition_component_check("k", "a\xff", 2, &len, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "UTF-8"));
  assert_int_equal(delta_partition_component_check("k", "\xed\xa0\x80", 3, &len, &err),
                   INLET_EINVAL); /* a surrogate */
  assert_int_equal(delta_partition_component_check("k", "caf\xc3\xa9", 5, &len, &err), 0);
}

static void test_partition_path__data_file_path_under_path_max(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(
      delta_partition_path_check(100, 4096 - 100 - 2 - DELTA_DATA_FILE_NAME_MAX - 1, &err), 0);
  assert_int_equal(delta_partition_path_check(100, 4096 - 100 - 2 - DELTA_DATA_FILE_NAME_MAX, &err),
                   INLET_EINVAL);
  assert_non_null(strstr(err.message, "4095-byte limit"));
}

static void test_partition_path__escaped_len_matches_escape(void **state) {
  (void)state;
  for (int c = 1; c < 256; c++) {
    char s[3] = {'x', (char)c, '\0'};
    char *e = delta_hive_escape(s);
    assert_non_null(e);
    assert_int_equal(strlen(e), delta_hive_escaped_len(s, 2));
    inlet_free(e);
  }
}

/* ---- the writer ------------------------------------------------------------ */

static void make_batch(inlet_batch *b, const inlet_schema *s, const char *const *keys, int n) {
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_batch_init(b, s, &err), 0);
  for (int i = 0; i < n; i++) {
    assert_int_equal(inlet_array_append_int(&b->columns[0], &s->fields[0], i, &err), 0);
    assert_int_equal(
        inlet_array_append_bytes(&b->columns[1], &s->fields[1], keys[i], strlen(keys[i]), &err), 0);
  }
  b->num_rows = n;
}

static int count_parquet_files(const char *dir) {
  tu_result r;
  tu_sh(&r, "find '%s' -name '*.parquet' | wc -l", dir);
  int n = (int)strtol(r.out, NULL, 10);
  tu_result_free(&r);
  return n;
}

static void test_partition_path__writer_refuses_batch_before_creating_files(void **state) {
  (void)state;
  char path[4096];
  snprintf(path, sizeof path, "%s/t", tu_mkdtemp("partition-path"));
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, k string", &err), 0);
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *pcols[] = {"k"};
  co.n_partition_columns = 1;
  co.partition_columns = pcols;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_create(&t, path, &s, &co, &err), 0);
  char long_key[300];
  memset(long_key, 'z', 299);
  long_key[299] = '\0';
  inlet_table_writer *w = NULL;
  assert_int_equal(inlet_table_writer_open(&w, t, NULL, &err), 0);
  /* Rows 0 and 1 would open two new directories; row 2 is refused. */
  const char *bad[] = {"a", "b", long_key, "c"};
  inlet_batch b;
  make_batch(&b, &s, bad, 4);
  assert_int_equal(inlet_table_writer_check_row(w, &b, 0, &err), 0);
  assert_int_equal(inlet_table_writer_check_row(w, &b, 2, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "partition column \"k\""));
  assert_int_equal(inlet_table_writer_check_row(w, &b, 4, &err), INLET_EINVAL);
  assert_int_equal(inlet_table_writer_write(w, &b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "row 2: partition column \"k\""));
  assert_int_equal(count_parquet_files(path), 0);
  assert_int_equal(inlet_table_writer_rows(w), 0);
  inlet_batch_reset(&b);
  /* Still usable: a good batch, one existing and one new directory. */
  const char *good[] = {"a", "d", "a"};
  make_batch(&b, &s, good, 3);
  assert_int_equal(inlet_table_writer_write(w, &b, &err), 0);
  inlet_batch_reset(&b);
  int64_t v = -1;
  assert_int_equal(inlet_table_writer_commit(w, &v, &err), 0);
  assert_int_equal(v, 1);
  inlet_table_writer_free(w);
  assert_int_equal(count_parquet_files(path), 2);
  inlet_snapshot *snap = NULL;
  assert_int_equal(inlet_table_snapshot(&snap, t, &err), 0);
  assert_int_equal(inlet_snapshot_num_files(snap), 2);
  int64_t rows = 0;
  for (int64_t i = 0; i < 2; i++) {
    inlet_file_info fi;
    inlet_snapshot_file(snap, i, &fi);
    rows += fi.num_records;
  }
  assert_int_equal(rows, 3);
  inlet_snapshot_free(snap);
  inlet_table_free(t);
  inlet_schema_reset(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_partition_path__component_limit_is_escaped_bytes),
      cmocka_unit_test(test_partition_path__nul_and_invalid_utf8_refused),
      cmocka_unit_test(test_partition_path__data_file_path_under_path_max),
      cmocka_unit_test(test_partition_path__escaped_len_matches_escape),
      cmocka_unit_test(test_partition_path__writer_refuses_batch_before_creating_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
