/*
 * Integration tests of the table API (include/inlet/table.h): create,
 * partitioned appends over several commits, scans at every version, time
 * travel, strict mode, history and describe -- and the independent reader
 * (refcheck delta, DuckDB-backed) reading every version of the tables inlet
 * wrote, compared with the rows the test put in.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/table.h"

typedef struct fixture {
  char dir[4096];
  char table[4200];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("delta-table"));
  snprintf(f->table, sizeof f->table, "%s/events", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static const char *DDL = "event_id long not null, user string, amount double, "
                         "event_time timestamp, day date";

/* Rows i in [from, to): user u<i%3> (null when i%7==0), amount i*0.5,
 * event_time 2024-01-01 + i seconds, day 2024-01-01 + i%2 days. */
static void make_batch(inlet_batch *b, const inlet_schema *s, int from, int to) {
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_batch_init(b, s, &err), 0);
  for (int i = from; i < to; i++) {
    char u[16];
    snprintf(u, sizeof u, "u%d", i % 3);
    assert_int_equal(inlet_array_append_int(&b->columns[0], &s->fields[0], i, &err), 0);
    if (i % 7 == 0)
      assert_int_equal(inlet_array_append_null(&b->columns[1], &s->fields[1], &err), 0);
    else
      assert_int_equal(inlet_array_append_bytes(&b->columns[1], &s->fields[1], u, strlen(u), &err),
                       0);
    assert_int_equal(inlet_array_append_double(&b->columns[2], i * 0.5, &err), 0);
    assert_int_equal(inlet_array_append_int(&b->columns[3], &s->fields[3],
                                            1704067200000000LL + (int64_t)i * 1000000, &err),
                     0);
    assert_int_equal(inlet_array_append_int(&b->columns[4], &s->fields[4], 19723 + i % 2, &err), 0);
  }
  b->num_rows = to - from;
}

/* The same rows in refcheck's canonical encoding. */
static void expected_rows(FILE *out, int n) {
  fprintf(out, "{\"rows\":[");
  for (int i = 0; i < n; i++) {
    char user[16];
    if (i % 7 == 0)
      snprintf(user, sizeof user, "null");
    else
      snprintf(user, sizeof user, "\"u%d\"", i % 3);
    int64_t sec = i;
    fprintf(out, "%s[%d,%s,%.17g,\"2024-01-01T00:%02d:%02d.000000Z\",\"2024-01-0%d\"]",
            i ? "," : "", i, user, i * 0.5, (int)(sec / 60), (int)(sec % 60), 1 + i % 2);
  }
  fprintf(out, "]}\n");
}

static int64_t scan_count(inlet_table *t, int64_t version, int64_t *sum_ids) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_snapshot_at_version(&s, t, version, &err), 0);
  inlet_table_scan *sc = NULL;
  assert_int_equal(inlet_table_scan_open(&sc, s, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t rows = 0;
  *sum_ids = 0;
  int rc;
  while ((rc = inlet_table_scan_next(sc, &b, &err)) == 1) {
    rows += b.num_rows;
    assert_int_equal(b.schema.n_fields, 5);
    for (int64_t r = 0; r < b.num_rows; r++) {
      int64_t id = ((int64_t *)b.columns[0].values)[r];
      *sum_ids += id;
      /* Partition column comes back from the log. */
      assert_int_equal(((int32_t *)b.columns[4].values)[r], 19723 + id % 2);
      assert_true(inlet_array_is_valid(&b.columns[1], r) == (id % 7 != 0));
    }
  }
  if (rc < 0) fail_msg("scan: %s", inlet_errmsg(&err));
  inlet_batch_reset(&b);
  inlet_table_scan_free(sc);
  inlet_snapshot_free(s);
  return rows;
}

static void refcheck_version(fixture *f, int64_t version, int n_rows) {
  char exp[4300];
  snprintf(exp, sizeof exp, "%s/expected-v%lld.json", f->dir, (long long)version);
  FILE *o = fopen(exp, "w");
  assert_non_null(o);
  expected_rows(o, n_rows);
  fclose(o);
  tu_result r;
  tu_sh(&r,
        "'%s' '%s' delta '%s' --version %lld > '%s/actual.json'; "
        "'%s' '%s' compare '%s' '%s/actual.json'",
        INLET_NODE, INLET_REFCHECK, f->table, (long long)version, f->dir, INLET_NODE,
        INLET_REFCHECK, exp, f->dir);
  if (r.status != 0) {
    char *act = tu_read_file(f->dir, NULL);
    (void)act;
    fail_msg("refcheck at version %lld: %s %s", (long long)version, r.out, r.err);
  }
  tu_result_free(&r);
}

static void test_table__partitioned_appends_read_back_at_every_version(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, DDL, &err), 0);
  const char *parts[] = {"day"};
  const char *keys[] = {"delta.appendOnly"}, *vals[] = {"false"};
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  co.n_partition_columns = 1;
  co.partition_columns = parts;
  co.n_properties = 1;
  co.property_keys = keys;
  co.property_values = vals;
  inlet_table *t = NULL;
  int rc = inlet_table_create(&t, f->table, &s, &co, &err);
  if (rc) fail_msg("create: %s", inlet_errmsg(&err));
  /* Creating again fails. */
  inlet_table *t2 = NULL;
  assert_int_equal(inlet_table_create(&t2, f->table, &s, &co, &err), INLET_EEXISTS);

  int bounds[] = {0, 10, 25, 26};
  for (int k = 0; k < 3; k++) {
    inlet_batch b;
    make_batch(&b, &s, bounds[k], bounds[k + 1]);
    int64_t v = -1;
    rc = inlet_table_append(t, &b, 1, NULL, &v, &err);
    if (rc) fail_msg("append: %s", inlet_errmsg(&err));
    assert_int_equal(v, k + 1);
    inlet_batch_reset(&b);
  }
  for (int k = 0; k <= 3; k++) {
    int64_t sum = 0;
    int n = bounds[k];
    assert_int_equal(scan_count(t, k, &sum), n);
    assert_int_equal(sum, (int64_t)n * (n - 1) / 2);
    refcheck_version(f, k, n);
  }
  /* Partition directories and file names as Delta writers make them. */
  inlet_snapshot *sn = NULL;
  assert_int_equal(inlet_table_snapshot(&sn, t, &err), 0);
  assert_int_equal(inlet_snapshot_num_files(sn), 5);
  inlet_file_info fi;
  inlet_snapshot_file(sn, 0, &fi);
  assert_true(strncmp(fi.path, "day=2024-01-01/part-", 20) == 0);
  assert_non_null(strstr(fi.path, "-c000.snappy.parquet"));
  assert_true(fi.num_records > 0);
  assert_non_null(strstr(fi.stats, "\"minValues\":{\"event_id\":"));
  assert_string_equal(inlet_snapshot_file_partition_value(sn, 0, "day"), "2024-01-01");
  assert_string_equal(inlet_snapshot_property(sn, "delta.appendOnly"), "false");
  inlet_snapshot_free(sn);

  /* Strict mode: only at the current version. */
  inlet_batch b;
  make_batch(&b, &s, 26, 27);
  inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
  ao.expected_version = 2;
  assert_int_equal(inlet_table_append(t, &b, 1, &ao, NULL, &err), INLET_ECONFLICT);
  ao.expected_version = 3;
  ao.app_id = "stream-1";
  ao.app_version = 17;
  int64_t v = -1;
  assert_int_equal(inlet_table_append(t, &b, 1, &ao, &v, &err), 0);
  assert_int_equal(v, 4);
  inlet_batch_reset(&b);
  assert_int_equal(inlet_table_snapshot(&sn, t, &err), 0);
  assert_int_equal(inlet_snapshot_txn_version(sn, "stream-1"), 17);
  inlet_snapshot_free(sn);

  /* History: newest first, with operation and metrics. */
  inlet_history_entry *h = NULL;
  size_t nh = 0;
  assert_int_equal(inlet_table_history(&h, &nh, t, 0, &err), 0);
  assert_int_equal(nh, 5);
  assert_int_equal(h[0].version, 4);
  assert_string_equal(h[0].operation, "WRITE");
  assert_string_equal(h[4].operation, "CREATE TABLE");
  assert_non_null(strstr(h[1].metrics_json, "\"numOutputRows\":\"1\""));
  inlet_history_free(h, nh);
  assert_int_equal(inlet_table_history(&h, &nh, t, 2, &err), 0);
  assert_int_equal(nh, 2);
  inlet_history_free(h, nh);

  /* Describe from the log alone. */
  inlet_table_description d;
  char *json = NULL;
  assert_int_equal(inlet_table_describe(t, &d, &json, &err), 0);
  assert_int_equal(d.version, 4);
  assert_int_equal(d.commits, 5);
  assert_int_equal(d.compactions, 0);
  assert_int_equal(d.files, 6);
  assert_int_equal(d.rows, 27);
  assert_int_equal(d.partitions, 2);
  assert_int_equal(d.small_files, 6);
  assert_non_null(strstr(json, "\"rows\": 27"));
  assert_non_null(strstr(json, "\"table_id\""));
  inlet_string_free(json);

  inlet_table_free(t);
  inlet_schema_reset(&s);
}

static void test_table__create_with_data_is_one_commit(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, DDL, &err), 0);
  inlet_batch b;
  make_batch(&b, &s, 0, 12);
  const char *parts[] = {"day"};
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  co.n_partition_columns = 1;
  co.partition_columns = parts;
  co.n_batches = 1;
  co.batches = &b;
  inlet_table *t = NULL;
  int rc = inlet_table_create(&t, f->table, &s, &co, &err);
  if (rc) fail_msg("create with data: %s", inlet_errmsg(&err));
  int64_t sum = 0;
  assert_int_equal(scan_count(t, 0, &sum), 12);
  assert_int_equal(sum, 66);
  refcheck_version(f, 0, 12);
  /* Exactly one commit holding protocol, metaData and the two adds. */
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000000.json", f->table);
  char *body = tu_read_file(path, NULL);
  assert_non_null(body);
  assert_non_null(strstr(body, "\"operation\":\"CREATE TABLE AS SELECT\""));
  assert_non_null(strstr(body, "{\"protocol\":"));
  assert_non_null(strstr(body, "{\"metaData\":"));
  int adds = 0;
  for (char *p = body; (p = strstr(p, "{\"add\":")); p++)
    adds++;
  assert_int_equal(adds, 2);
  free(body);
  /* A second create with data fails and leaves no data files behind. */
  inlet_table *t2 = NULL;
  assert_int_equal(inlet_table_create(&t2, f->table, &s, &co, &err), INLET_EEXISTS);
  tu_result r;
  tu_sh(&r, "find '%s' -name '*.parquet' | wc -l", f->table);
  assert_int_equal(atoi(r.out), 2);
  tu_result_free(&r);
  inlet_batch_reset(&b);
  inlet_table_free(t);
  inlet_schema_reset(&s);
}

static void test_table__open_missing_table_is_not_found(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, f->table, &err), INLET_ENOTFOUND);
  assert_int_equal(inlet_table_open(&t, f->dir, &err), INLET_ENOTFOUND);
  assert_non_null(strstr(err.message, "_delta_log"));
}

static void test_table__writer_rejects_mismatched_batches(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s, other;
  assert_int_equal(inlet_schema_parse(&s, DDL, &err), 0);
  assert_int_equal(inlet_schema_parse(&other, "event_id int, user string", &err), 0);
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_create(&t, f->table, &s, NULL, &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &other, &err), 0);
  assert_int_equal(inlet_table_append(t, &b, 1, NULL, NULL, &err), INLET_EINVAL);
  inlet_batch_reset(&b);
  /* A null in a NOT NULL column. */
  assert_int_equal(inlet_batch_init(&b, &s, &err), 0);
  assert_int_equal(inlet_array_append_null(&b.columns[0], &s.fields[0], &err), 0);
  for (int c = 1; c < 5; c++)
    assert_int_equal(inlet_array_append_null(&b.columns[c], &s.fields[c], &err), 0);
  b.num_rows = 1;
  assert_int_equal(inlet_table_append(t, &b, 1, NULL, NULL, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "NOT NULL"));
  inlet_batch_reset(&b);
  /* Failed appends left no data files behind and no commit. */
  inlet_snapshot *sn = NULL;
  assert_int_equal(inlet_table_snapshot(&sn, t, &err), 0);
  assert_int_equal(inlet_snapshot_version(sn), 0);
  assert_int_equal(inlet_snapshot_num_files(sn), 0);
  inlet_snapshot_free(sn);
  inlet_table_free(t);
  inlet_schema_reset(&s);
  inlet_schema_reset(&other);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_table__partitioned_appends_read_back_at_every_version,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_table__create_with_data_is_one_commit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_table__open_missing_table_is_not_found, setup, teardown),
      cmocka_unit_test_setup_teardown(test_table__writer_rejects_mismatched_batches, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
