/*
 * Expired log cleanup after automatic checkpoints (PROTOCOL.md "Metadata
 * Cleanup"): a writer that leaves a checkpoint also removes commits and
 * checkpoints older than delta.logRetentionDuration below it, and never one a
 * version inside the window needs. Drives the real binary; refcheck reads the
 * cleaned table independently.
 */
#include "testutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "inlet/inlet.h"

static bool exists(const char *dir, const char *name) {
  char p[8192];
  struct stat st;
  snprintf(p, sizeof p, "%s/t/_delta_log/%s", dir, name);
  return stat(p, &st) == 0;
}

static void append_rows(const char *dir, int batch) {
  char rec[256], path[4200];
  snprintf(rec, sizeof rec, "{\"id\":%d}\n{\"id\":%d}\n", batch * 2, batch * 2 + 1);
  snprintf(path, sizeof path, "%s/in.ndjson", dir);
  assert_int_equal(tu_write_file(path, rec, strlen(rec)), 0);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' append t in.ndjson", dir, INLET_BIN);
  if (r.status != 0) fprintf(stderr, "append: %s\n", r.err);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  /* Commit mtimes must be distinguishable from "now" at 1 ms retention. */
  usleep(30 * 1000);
}

static void test_cleanup__expired_commits_go_after_a_checkpoint(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("log_cleanup"));
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long not null' "
        "--property delta.checkpointInterval=2 "
        "--property 'delta.logRetentionDuration=interval 1 millisecond'",
        dir, INLET_BIN);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  usleep(30 * 1000);
  for (int b = 1; b <= 4; b++)
    append_rows(dir, b);
  /* Version 4 has a checkpoint; everything below it expired and went. */
  assert_true(exists(dir, "00000000000000000004.checkpoint.parquet"));
  assert_true(exists(dir, "00000000000000000004.json"));
  for (int v = 0; v < 4; v++) {
    char name[64];
    snprintf(name, sizeof name, "%020d.json", v);
    assert_false(exists(dir, name));
  }
  assert_false(exists(dir, "00000000000000000002.checkpoint.parquet"));
  /* The latest version still reads whole, in inlet and in refcheck. */
  tu_sh(&r, "cd '%s' && '%s' scan t --format ndjson | wc -l", dir, INLET_BIN);
  assert_int_equal(r.status, 0);
  assert_int_equal(atoi(r.out), 8);
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' '%s' delta t", dir, INLET_NODE, INLET_REFCHECK);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "\"version\":4"));
  assert_non_null(strstr(r.out, "[9]"));
  assert_non_null(strstr(r.out, "[2]"));
  tu_result_free(&r);
  /* Version 1 is gone with its commit: refused, not misread. */
  tu_sh(&r, "cd '%s' && '%s' scan t --version 1 --format ndjson", dir, INLET_BIN);
  assert_int_not_equal(r.status, 0);
  tu_result_free(&r);
  tu_rmtree(dir);
}

static void test_cleanup__default_retention_keeps_the_log(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("log_keep"));
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long not null' "
        "--property delta.checkpointInterval=2",
        dir, INLET_BIN);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  for (int b = 1; b <= 4; b++)
    append_rows(dir, b);
  assert_true(exists(dir, "00000000000000000004.checkpoint.parquet"));
  for (int v = 0; v <= 4; v++) {
    char name[64];
    snprintf(name, sizeof name, "%020d.json", v);
    assert_true(exists(dir, name));
  }
  tu_sh(&r, "cd '%s' && '%s' scan t --version 1 --format ndjson | wc -l", dir, INLET_BIN);
  assert_int_equal(r.status, 0);
  assert_int_equal(atoi(r.out), 2);
  tu_result_free(&r);
  tu_rmtree(dir);
}

/* Sets the mtime of _delta_log/@p name to @p days ago. */
static void age(const char *table, const char *name, int days) {
  char p[8192];
  snprintf(p, sizeof p, "%s/_delta_log/%s", table, name);
  struct timespec ts[2];
  clock_gettime(CLOCK_REALTIME, &ts[0]);
  ts[0].tv_sec -= (time_t)days * 86400;
  ts[1] = ts[0];
  assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

static bool in_log(const char *table, int64_t v, const char *ext) {
  char p[8192];
  struct stat st;
  snprintf(p, sizeof p, "%s/_delta_log/%020lld.%s", table, (long long)v, ext);
  return stat(p, &st) == 0;
}

static void api_append(inlet_table *t, const inlet_schema *s, int64_t id, int64_t want_version) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, s, &err), 0);
  assert_int_equal(inlet_array_append_int(&b.columns[0], &s->fields[0], id, &err), 0);
  b.num_rows = 1;
  int64_t v = -1;
  assert_int_equal(inlet_table_append(t, &b, 1, NULL, &v, &err), 0);
  assert_int_equal(v, want_version);
  inlet_batch_reset(&b);
}

/* One long-lived writer handle (which skips cleanup while its remembered
 * oldest commit is inside the window) still cleans once entries expire, and
 * keeps following the boundary as it moves (default 30-day retention,
 * entries aged with utimensat). */
static void test_cleanup__long_lived_writer_cleans_once_entries_expire(void **state) {
  (void)state;
  char dir[4096], table[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("log_handle"));
  snprintf(table, sizeof table, "%s/t", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long", &err), 0);
  const char *keys[] = {"delta.checkpointInterval"}, *vals[] = {"2"};
  inlet_table_create_options o = INLET_TABLE_CREATE_OPTIONS_INIT;
  o.n_properties = 1;
  o.property_keys = keys;
  o.property_values = vals;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_create(&t, table, &s, &o, &err), 0);
  api_append(t, &s, 1, 1);
  api_append(t, &s, 2, 2); /* checkpoint 2; nothing has expired */
  for (int64_t v = 0; v <= 2; v++)
    assert_true(in_log(table, v, "json"));
  for (int v = 0; v <= 2; v++) {
    char name[64];
    snprintf(name, sizeof name, "%020d.json", v);
    age(table, name, 40);
  }
  age(table, "00000000000000000002.checkpoint.parquet", 40);
  api_append(t, &s, 3, 3);
  api_append(t, &s, 4, 4); /* checkpoint 4: W = 3, boundary 2 */
  assert_false(in_log(table, 0, "json"));
  assert_false(in_log(table, 1, "json"));
  assert_true(in_log(table, 2, "json"));
  assert_true(in_log(table, 2, "checkpoint.parquet"));
  api_append(t, &s, 5, 5);
  api_append(t, &s, 6, 6); /* checkpoint 6: boundary still 2 */
  assert_true(in_log(table, 2, "json"));
  age(table, "00000000000000000003.json", 40);
  age(table, "00000000000000000004.json", 40);
  age(table, "00000000000000000004.checkpoint.parquet", 40);
  api_append(t, &s, 7, 7);
  api_append(t, &s, 8, 8); /* checkpoint 8: W = 5, boundary 4 */
  assert_false(in_log(table, 2, "json"));
  assert_false(in_log(table, 2, "checkpoint.parquet"));
  assert_false(in_log(table, 3, "json"));
  assert_true(in_log(table, 4, "json"));
  assert_true(in_log(table, 4, "checkpoint.parquet"));
  inlet_table_free(t);
  /* A fresh reader sees the eight appended files at version 8. */
  inlet_snapshot *sn = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&sn, t, &err), 0);
  assert_int_equal(inlet_snapshot_version(sn), 8);
  assert_int_equal(inlet_snapshot_num_files(sn), 8);
  inlet_snapshot_free(sn);
  inlet_table_free(t);
  inlet_schema_reset(&s);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cleanup__expired_commits_go_after_a_checkpoint),
      cmocka_unit_test(test_cleanup__default_retention_keeps_the_log),
      cmocka_unit_test(test_cleanup__long_lived_writer_cleans_once_entries_expire),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
