/*
 * Issue 11 sections 1 and 6: commit timestamps as Spark defines them, for
 * `scan --as-of` (inlet_table_snapshot_at_timestamp), `history` and the
 * writer side of in-commit timestamps:
 *  - commit file times that go backwards are monotonized (a commit counts
 *    one millisecond after its predecessor when its file is not newer);
 *  - on a table with in-commit timestamps, commits carry inCommitTimestamp
 *    (monotonic, following a predecessor ahead of the clock), and those are
 *    the timestamps time travel and history use, from the enablement
 *    version on; earlier commits keep their (monotonized) file times, and a
 *    time before the enablement timestamp only considers those.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"
#include "protocol_rules.h"

typedef struct fixture {
  char dir[4096];
  char table[4200];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("conf-ts"));
  snprintf(f->table, sizeof f->table, "%s/t", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void sh_ok(const char *what, tu_result *r) {
  if (r->status != 0) fail_msg("%s: exit %d\n%s%s", what, r->status, r->out, r->err);
  tu_result_free(r);
}

static void inlet_ok(fixture *f, const char *args) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' %s", f->dir, INLET_BIN, args);
  sh_ok(args, &r);
}

/* Sets the modification time of commit @p v to @p seconds since the epoch. */
static void set_mtime(fixture *f, int v, long long seconds) {
  tu_result r;
  tu_sh(&r, "touch -m -d @%lld '%s/_delta_log/%020d.json'", seconds, f->table, v);
  sh_ok("touch", &r);
}

static void write_commit(fixture *f, int v, const char *text) {
  char path[4400];
  snprintf(path, sizeof path, "%s/_delta_log/%020d.json", f->table, v);
  assert_int_equal(tu_write_file(path, text, strlen(text)), 0);
}

/* The version inlet_table_snapshot_at_timestamp picks, or the error code. */
static long long version_at(fixture *f, long long ts_ms) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, f->table, &err), 0);
  inlet_snapshot *s = NULL;
  int rc = inlet_table_snapshot_at_timestamp(&s, t, ts_ms, &err);
  long long v = rc < 0 ? rc : inlet_snapshot_version(s);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return v;
}

static long long timestamp_of(fixture *f, long long version) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, f->table, &err), 0);
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_snapshot_at_version(&s, t, version, &err), 0);
  long long ts = inlet_snapshot_timestamp(s);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return ts;
}

/* `history --json` timestamps, newest first, as "v:ts,v:ts,...". */
static char *history(fixture *f) {
  tu_result r;
  tu_sh(&r, "'%s' history '%s' --json", INLET_BIN, f->table);
  assert_int_equal(r.status, 0);
  json_t *doc = json_loads(r.out, 0, NULL);
  assert_non_null(doc);
  json_t *a = json_object_get(doc, "commits");
  assert_non_null(a);
  tu_result_free(&r);
  char *out = calloc(1, 4096);
  size_t i;
  json_t *e;
  json_array_foreach(a, i, e) {
    size_t n = strlen(out);
    snprintf(out + n, 4096 - n, "%s%lld:%lld", i ? "," : "",
             (long long)json_integer_value(json_object_get(e, "version")),
             (long long)json_integer_value(json_object_get(e, "timestamp")));
  }
  json_decref(doc);
  return out;
}

static void rules_hold(fixture *f) {
  char *msg = pr_check_table(f->table);
  if (msg) fail_msg("protocol rule broken: %s", msg);
}

/* Spark's monotonizeCommitTimestamps: version 2's file is older than
 * version 1's, so it counts as version 1's time + 1 ms. */
static void test_as_of__backwards_commit_times_are_monotonized(void **state) {
  fixture *f = *state;
  inlet_ok(f, "create t --schema 'id long'");
  tu_result r;
  tu_sh(&r, "cd '%s' && echo '{\"id\":1}' > in.ndjson", f->dir);
  sh_ok("write input", &r);
  for (int i = 0; i < 3; i++)
    inlet_ok(f, "append t in.ndjson");
  set_mtime(f, 0, 1000);
  set_mtime(f, 1, 3000);
  set_mtime(f, 2, 2000);
  set_mtime(f, 3, 4000);
  assert_int_equal(version_at(f, 999999), INLET_ENOTFOUND);
  assert_int_equal(version_at(f, 1000000), 0);
  /* Version 2's own file time (2000 s) is before this, but it counts as
   * 3000.001 s: the table at 2500 s is still version 0, at 3000 s version 1. */
  assert_int_equal(version_at(f, 2500000), 0);
  assert_int_equal(version_at(f, 3000000), 1);
  assert_int_equal(version_at(f, 3000001), 2);
  assert_int_equal(version_at(f, 3999999), 2);
  assert_int_equal(version_at(f, 4000000), 3);
  assert_int_equal(timestamp_of(f, 2), 3000001);
  char *h = history(f);
  assert_string_equal(h, "3:4000000,2:3000001,1:3000000,0:1000000");
  free(h);
  /* The CLI agrees: one row at version 1. */
  tu_sh(&r, "'%s' scan '%s' --as-of 3000000 --format ndjson", INLET_BIN, f->table);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.out, "{\"id\":1}\n");
  tu_result_free(&r);
}

static void test_ict__commits_carry_it_and_time_travel_uses_it(void **state) {
  fixture *f = *state;
  inlet_ok(f, "create t --schema 'id long' --property delta.enableInCommitTimestamps=true");
  tu_result r;
  tu_sh(&r, "cd '%s' && echo '{\"id\":1}' > in.ndjson", f->dir);
  sh_ok("write input", &r);
  inlet_ok(f, "append t in.ndjson");
  inlet_ok(f, "append t in.ndjson");
  /* Another writer's commit 3, timed far ahead of this clock. */
  const long long future = 4102444800000LL; /* 2100-01-01 */
  char c[512];
  snprintf(c, sizeof c,
           "{\"commitInfo\":{\"inCommitTimestamp\":%lld,\"timestamp\":%lld,\"operation\":"
           "\"SET TBLPROPERTIES\"}}\n",
           future, future);
  write_commit(f, 3, c);
  inlet_ok(f, "append t in.ndjson");
  /* The file times say nothing: all at 1000 s. */
  for (int v = 0; v <= 4; v++)
    set_mtime(f, v, 1000);
  assert_int_equal(version_at(f, future), 3);
  assert_int_equal(version_at(f, future + 1), 4);
  assert_int_equal(version_at(f, future - 1), 2);
  assert_int_equal(version_at(f, 1000000), INLET_ENOTFOUND); /* before version 0's timestamp */
  assert_int_equal(timestamp_of(f, 4), future + 1);
  char *h = history(f);
  char expect[128];
  snprintf(expect, sizeof expect, "4:%lld,3:%lld,", future + 1, future);
  if (strncmp(h, expect, strlen(expect)) != 0) fail_msg("history %s, expected %s...", h, expect);
  free(h);
  rules_hold(f);
}

#define META_FMT                                                                                   \
  "{\"metaData\":{\"id\":\"00000000-0000-0000-0000-0000000000aa\",\"format\":{\"provider\":"       \
  "\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":"    \
  "[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":"    \
  "{}}]}\",\"partitionColumns\":[],\"configuration\":%s,\"createdTime\":1000000}}\n"

/* In-commit timestamps turned on at version 2 by another writer
 * (delta.inCommitTimestampEnablementVersion/Timestamp): before it, file
 * times; from it on, in-commit timestamps, even though those files are older. */
static void test_ict__enablement_version_splits_the_timeline(void **state) {
  fixture *f = *state;
  char dir[4300];
  snprintf(dir, sizeof dir, "mkdir -p '%s/_delta_log'", f->table);
  tu_result r;
  tu_sh(&r, "%s", dir);
  sh_ok("mkdir", &r);
  char c[4096], meta[2048];
  snprintf(meta, sizeof meta, META_FMT, "{}");
  snprintf(c, sizeof c,
           "{\"commitInfo\":{\"timestamp\":1000000,\"operation\":\"CREATE TABLE\"}}\n"
           "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n%s",
           meta);
  write_commit(f, 0, c);
  write_commit(f, 1, "{\"commitInfo\":{\"timestamp\":2000000,\"operation\":\"WRITE\"}}\n");
  snprintf(meta, sizeof meta, META_FMT,
           "{\"delta.enableInCommitTimestamps\":\"true\","
           "\"delta.inCommitTimestampEnablementVersion\":\"2\","
           "\"delta.inCommitTimestampEnablementTimestamp\":\"5000000\"}");
  snprintf(c, sizeof c,
           "{\"commitInfo\":{\"inCommitTimestamp\":5000000,\"timestamp\":5000000,\"operation\":"
           "\"SET TBLPROPERTIES\"}}\n"
           "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":"
           "[\"appendOnly\",\"invariants\",\"inCommitTimestamp\"]}}\n%s",
           meta);
  write_commit(f, 2, c);
  write_commit(f, 3,
               "{\"commitInfo\":{\"inCommitTimestamp\":6000000,\"timestamp\":6000000,"
               "\"operation\":\"WRITE\"}}\n");
  set_mtime(f, 0, 1000);
  set_mtime(f, 1, 2000);
  set_mtime(f, 2, 1500);
  set_mtime(f, 3, 1500);
  assert_int_equal(version_at(f, 500000), INLET_ENOTFOUND);
  assert_int_equal(version_at(f, 1200000), 0);
  assert_int_equal(version_at(f, 2500000), 1);
  assert_int_equal(version_at(f, 4999999), 1);
  assert_int_equal(version_at(f, 5000000), 2);
  assert_int_equal(version_at(f, 5999999), 2);
  assert_int_equal(version_at(f, 6000000), 3);
  assert_int_equal(version_at(f, 9000000000000LL), 3);
  assert_int_equal(timestamp_of(f, 1), 2000000);
  assert_int_equal(timestamp_of(f, 2), 5000000);
  char *h = history(f);
  assert_string_equal(h, "3:6000000,2:5000000,1:2000000,0:1000000");
  free(h);
  /* inlet writes to it, with the next in-commit timestamp. */
  tu_sh(&r, "cd '%s' && echo '{\"id\":7}' > in.ndjson && '%s' append t in.ndjson", f->dir,
        INLET_BIN);
  sh_ok("append", &r);
  char path[4400];
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000004.json", f->table);
  char *text = tu_read_file(path, NULL);
  assert_non_null(text);
  assert_int_equal(strncmp(text, "{\"commitInfo\":{\"inCommitTimestamp\":", 35), 0);
  assert_true(atoll(text + 35) > 6000000);
  free(text);
  rules_hold(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_as_of__backwards_commit_times_are_monotonized, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ict__commits_carry_it_and_time_travel_uses_it, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ict__enablement_version_splits_the_timeline, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
