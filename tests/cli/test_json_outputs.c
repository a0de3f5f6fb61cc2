/*
 * `compact --json`, `vacuum --json` and `maintain --json`: one JSON object each, numbers as
 * numbers, null where nothing is known (no commit), snake_case keys, with
 * values that match what the commands did to a table the test built.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *run_json(const char *dir, const char *args) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' %s", dir, INLET_BIN, args);
  if (r.status != 0) fail_msg("%s: exit %d: %s", args, r.status, r.err);
  json_error_t je;
  json_t *j = json_loads(r.out, 0, &je);
  if (!json_is_object(j)) fail_msg("%s: not one JSON object (%s): %s", args, je.text, r.out);
  tu_result_free(&r);
  return j;
}

static json_int_t ival(const json_t *o, const char *k) {
  const json_t *v = json_object_get(o, k);
  if (!json_is_integer(v)) fail_msg("%s is not an integer", k);
  return json_integer_value(v);
}

static void test_json__compact_and_vacuum(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("json-outputs"));
  tu_result r;
  tu_sh(
      &r,
      "cd '%s' && '%s' create t --schema 'id long' && for i in 1 2 3; do echo \"{\\\"id\\\":$i}\" "
      "> in$i.ndjson && '%s' append t in$i.ndjson || exit 1; done",
      dir, INLET_BIN, INLET_BIN);
  if (r.status != 0) fail_msg("setup: %s", r.err);
  tu_result_free(&r);

  json_t *c = run_json(dir, "compact t --min-files 2 --json");
  assert_int_equal(ival(c, "read_version"), 3);
  assert_true(json_is_false(json_object_get(c, "dry_run")));
  assert_int_equal(ival(c, "commits"), 1);
  assert_int_equal(ival(c, "files_removed"), 3);
  assert_int_equal(ival(c, "files_added"), 1);
  assert_int_equal(ival(c, "rows"), 3);
  assert_int_equal(ival(c, "failed_groups"), 0);
  assert_int_equal(ival(c, "last_version"), 4);
  json_t *g = json_array_get(json_object_get(c, "groups"), 0);
  assert_int_equal(json_array_size(json_object_get(c, "groups")), 1);
  assert_int_equal(ival(g, "version"), 4);
  assert_int_equal(ival(g, "input_files"), 3);
  assert_int_equal(ival(g, "output_files"), 1);
  assert_true(json_is_null(json_object_get(g, "error")));
  assert_string_equal(json_string_value(json_object_get(g, "partition")), "");
  json_decref(c);
  /* Nothing left to do: no commit, so no version. */
  c = run_json(dir, "compact t --min-files 2 --json");
  assert_int_equal(ival(c, "bins"), 0);
  assert_true(json_is_null(json_object_get(c, "last_version")));
  assert_int_equal(json_array_size(json_object_get(c, "groups")), 0);
  json_decref(c);

  json_t *v = run_json(dir, "vacuum t --retain 0h --force --dry-run --json");
  assert_true(json_is_true(json_object_get(v, "dry_run")));
  assert_int_equal(ival(v, "files"), 3);
  json_t *del = json_object_get(v, "deleted");
  assert_int_equal(json_array_size(del), 3);
  json_int_t bytes = 0;
  size_t i;
  json_t *e;
  json_array_foreach(del, i, e) {
    const char *p = json_string_value(json_object_get(e, "path"));
    assert_non_null(p);
    assert_non_null(strstr(p, ".parquet"));
    bytes += ival(e, "size");
  }
  assert_int_equal(bytes, ival(v, "bytes"));
  json_decref(v);
  v = run_json(dir, "vacuum t --retain 0h --force --json");
  assert_int_equal(ival(v, "files"), 3);
  assert_int_equal(ival(v, "tombstoned"), 3);
  json_decref(v);
  v = run_json(dir, "vacuum t --retain 0h --force --json");
  assert_int_equal(ival(v, "files"), 0);
  assert_int_equal(json_array_size(json_object_get(v, "deleted")), 0);
  json_decref(v);
  tu_rmtree(dir);
}

/* `maintain --json`: one object per pass; the compaction's counts match
 * what describe said before (4 one-row files, their bytes), vacuum deletes
 * the 4 files it replaced (retention 0), the table state after the pass
 * (version, files, the checkpoint the compaction commit wrote at interval
 * 5), and null for the steps that did not run. */
static void test_json__maintain(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("json-maintain"));
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long' --property "
        "delta.deletedFileRetentionDuration='interval 0 seconds' --property "
        "delta.checkpointInterval=5 && for i in 1 2 3 4; do echo \"{\\\"id\\\":$i}\" > "
        "in$i.ndjson && '%s' append t in$i.ndjson || exit 1; done",
        dir, INLET_BIN, INLET_BIN);
  if (r.status != 0) fail_msg("setup: %s", r.err);
  tu_result_free(&r);
  json_t *d = run_json(dir, "describe t --json");
  json_int_t bytes_before = ival(d, "bytes");
  assert_int_equal(ival(d, "files"), 4);
  json_decref(d);

  json_t *m = run_json(dir, "maintain t --compact --vacuum --min-files 2 --json");
  assert_int_equal(ival(m, "pass"), 1);
  assert_true(json_is_true(json_object_get(m, "ok")));
  assert_true(json_is_null(json_object_get(m, "error")));
  json_t *c = json_object_get(m, "compaction");
  assert_int_equal(ival(c, "read_version"), 4);
  assert_int_equal(ival(c, "commits"), 1);
  assert_int_equal(ival(c, "files_removed"), 4);
  assert_int_equal(ival(c, "files_added"), 1);
  assert_int_equal(ival(c, "bytes_removed"), bytes_before);
  assert_int_equal(ival(c, "rows"), 4);
  assert_int_equal(ival(c, "last_version"), 5);
  json_t *v = json_object_get(m, "vacuum");
  assert_int_equal(ival(v, "files"), 4);
  assert_int_equal(ival(v, "bytes"), bytes_before);
  json_t *l = json_object_get(m, "log_cleanup");
  assert_int_equal(ival(l, "commits_removed"), 0);
  assert_true(json_is_null(json_object_get(l, "oldest_kept")));
  assert_int_equal(ival(m, "version"), 5);
  assert_int_equal(ival(m, "files"), 1);
  assert_int_equal(ival(m, "small_files"), 1);
  assert_int_equal(ival(m, "bytes"), ival(c, "bytes_added"));
  assert_int_equal(ival(m, "last_checkpoint"), 5);
  assert_int_equal(ival(m, "new_checkpoints"), 1);
  json_decref(m);
  /* Nothing to do, and steps not asked for are null. */
  m = run_json(dir, "maintain t --no-log-cleanup --json");
  assert_true(json_is_null(json_object_get(m, "compaction")));
  assert_true(json_is_null(json_object_get(m, "log_cleanup")));
  assert_true(json_is_null(json_object_get(m, "vacuum")));
  assert_int_equal(ival(m, "version"), 5);
  assert_int_equal(ival(m, "new_checkpoints"), 0);
  json_decref(m);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json__compact_and_vacuum),
      cmocka_unit_test(test_json__maintain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
