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
#include <sys/stat.h>
#include <unistd.h>

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cleanup__expired_commits_go_after_a_checkpoint),
      cmocka_unit_test(test_cleanup__default_retention_keeps_the_log),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
