/*
 * inlet_table_commits and inlet_snapshot_describe (include/inlet/table.h):
 * the commit summaries of a hand-written log whose every number this file
 * chose (adds with sizes and numRecords, removes with sizes and deletion
 * times, an OPTIMIZE, a commit without commitInfo that only rewrites files,
 * a metaData change), newest first; describe of a snapshot agrees with
 * inlet_table_describe and streams the same summaries; a callback's error
 * stops the walk with its code.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inlet/inlet.h"
#include "testutil.h"

TU_SCRATCH_DIR("table-commits")

static const char *const commits[] = {
    /* 0: create, two files (no stats on the second) */
    "{\"commitInfo\":{\"timestamp\":1,\"operation\":\"CREATE TABLE\"}}\n"
    "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
    "{\"metaData\":{\"id\":\"00000000-0000-4000-8000-000000000001\",\"format\":{\"provider\":"
    "\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":"
    "[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}"
    "]}"
    "\",\"partitionColumns\":[],\"configuration\":{\"delta.deletedFileRetentionDuration\":"
    "\"interval 2 hours\"},\"createdTime\":1}}\n"
    "{\"add\":{\"path\":\"a.parquet\",\"partitionValues\":{},\"size\":100,\"modificationTime\":1,"
    "\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":7}\"}}\n"
    "{\"add\":{\"path\":\"b.parquet\",\"partitionValues\":{},\"size\":50,\"modificationTime\":1,"
    "\"dataChange\":true}}\n",
    /* 1: an ingest batch with metrics */
    "{\"commitInfo\":{\"timestamp\":2,\"operation\":\"STREAMING UPDATE\",\"operationMetrics\":"
    "{\"numSourceRecords\":\"9\",\"numLateRows\":\"2\"}}}\n"
    "{\"add\":{\"path\":\"c.parquet\",\"partitionValues\":{},\"size\":30,\"modificationTime\":2,"
    "\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\": 9}\"}}\n",
    /* 2: OPTIMIZE of a and c, one remove without a size */
    "{\"commitInfo\":{\"timestamp\":3,\"operation\":\"OPTIMIZE\"}}\n"
    "{\"remove\":{\"path\":\"a.parquet\",\"deletionTimestamp\":5000,\"dataChange\":false,"
    "\"size\":100}}\n"
    "{\"remove\":{\"path\":\"c.parquet\",\"deletionTimestamp\":4000,\"dataChange\":false}}\n"
    "{\"add\":{\"path\":\"d.parquet\",\"partitionValues\":{},\"size\":110,\"modificationTime\":3,"
    "\"dataChange\":false,\"stats\":\"{\\\"numRecords\\\":16}\"}}\n",
    /* 3: no commitInfo, only rewrites: a compaction too */
    "{\"remove\":{\"path\":\"b.parquet\",\"deletionTimestamp\":6000,\"dataChange\":false,"
    "\"size\":50}}\n"
    "{\"add\":{\"path\":\"e.parquet\",\"partitionValues\":{},\"size\":45,\"modificationTime\":4,"
    "\"dataChange\":false}}\n",
};
#define N_COMMITS 4

typedef struct seen {
  int n;
  inlet_commit_summary s[N_COMMITS];
  bool ingest[N_COMMITS];
  int stop_at; /* return an error at this call, -1 never */
} seen;

static int cb(void *ctx, const inlet_commit_summary *c, inlet_error *err) {
  seen *x = ctx;
  if (x->n == x->stop_at) {
    err->code = INLET_EINVAL;
    snprintf(err->message, sizeof err->message, "stop");
    return INLET_EINVAL;
  }
  assert_true(x->n < N_COMMITS);
  x->s[x->n] = *c;
  /* The strings are lent for the call only. */
  x->s[x->n].operation = x->s[x->n].metrics_json = x->s[x->n].parameters_json = NULL;
  x->ingest[x->n] = c->metrics_json && strstr(c->metrics_json, "\"numLateRows\":\"2\"");
  x->n++;
  return 0;
}

static inlet_table *write_log(void) {
  char log[4200], path[4300];
  snprintf(log, sizeof log, "%s/t/_delta_log", dir);
  char t[4200];
  snprintf(t, sizeof t, "%s/t", dir);
  assert_int_equal(mkdir(t, 0755), 0);
  assert_int_equal(mkdir(log, 0755), 0);
  for (int v = 0; v < N_COMMITS; v++) {
    snprintf(path, sizeof path, "%s/%020d.json", log, v);
    assert_int_equal(tu_write_file(path, commits[v], strlen(commits[v])), 0);
  }
  tu_rules_exempt(t, "a log-only table: its data files are never written");
  inlet_table *tb = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  return tb;
}

static void check_summaries(const seen *x) {
  assert_int_equal(x->n, N_COMMITS);
  /* Newest first. */
  for (int i = 0; i < N_COMMITS; i++)
    assert_int_equal(x->s[i].version, N_COMMITS - 1 - i);
  const inlet_commit_summary *c3 = &x->s[0], *c2 = &x->s[1], *c1 = &x->s[2], *c0 = &x->s[3];
  assert_int_equal(c0->files_added, 2);
  assert_int_equal(c0->bytes_added, 150);
  assert_int_equal(c0->rows_added, -1); /* b.parquet has no stats */
  assert_true(c0->metadata && c0->protocol);
  assert_false(c0->compaction);
  assert_int_equal(c1->rows_added, 9);
  assert_true(x->ingest[2]);
  assert_false(c1->metadata);
  assert_true(c2->compaction);
  assert_int_equal(c2->files_removed, 2);
  assert_int_equal(c2->bytes_removed, 100);
  assert_int_equal(c2->removes_without_size, 1);
  assert_int_equal(c2->oldest_deletion_ms, 4000);
  assert_int_equal(c2->latest_deletion_ms, 5000);
  assert_int_equal(c2->rows_added, 16);
  assert_true(c3->compaction);
  assert_int_equal(c3->files_added, 1);
  assert_int_equal(c3->bytes_removed, 50);
  assert_int_equal(c1->oldest_deletion_ms, -1);
}

static void test_table_commits__summaries_newest_first(void **state) {
  (void)state;
  inlet_table *t = write_log();
  seen x = {.stop_at = -1};
  int64_t n = 0;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_table_commits(t, cb, &x, &n, &err), 0);
  assert_int_equal(n, N_COMMITS);
  check_summaries(&x);
  inlet_table_free(t);
}

static void test_table_commits__snapshot_describe_agrees(void **state) {
  (void)state;
  inlet_table *t = write_log();
  inlet_error err = INLET_ERROR_INIT;
  inlet_table_description d1, d2;
  char *j1 = NULL, *j2 = NULL;
  assert_int_equal(inlet_table_describe(t, &d1, &j1, &err), 0);
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  assert_int_equal(inlet_snapshot_deleted_file_retention_ms(s), 2 * 3600 * 1000);
  seen x = {.stop_at = -1};
  assert_int_equal(inlet_snapshot_describe(s, &d2, &j2, cb, &x, &err), 0);
  check_summaries(&x);
  assert_int_equal(d1.commits, N_COMMITS);
  assert_int_equal(d1.compactions, 2);
  assert_int_equal(d1.files, 2);
  assert_int_equal(d1.bytes, 155);
  assert_memory_equal(&d1, &d2, sizeof d1);
  /* The JSON differs at most in nothing: same snapshot, same log. */
  assert_string_equal(j1, j2);
  inlet_string_free(j1);
  inlet_string_free(j2);
  /* Without a callback: only the description. */
  assert_int_equal(inlet_snapshot_describe(s, &d2, NULL, NULL, NULL, &err), 0);
  assert_int_equal(d2.commits, N_COMMITS);
  inlet_snapshot_free(s);
  inlet_table_free(t);
}

static void test_table_commits__callback_error_stops(void **state) {
  (void)state;
  inlet_table *t = write_log();
  seen x = {.stop_at = 1};
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_table_commits(t, cb, &x, NULL, &err), INLET_EINVAL);
  assert_int_equal(x.n, 1);
  assert_string_equal(err.message, "stop");
  inlet_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_table_commits__summaries_newest_first, setup, teardown),
      cmocka_unit_test_setup_teardown(test_table_commits__snapshot_describe_agrees, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_table_commits__callback_error_stops, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
