/*
 * Log compaction files (PROTOCOL.md "Log Compaction Files"): a
 * `_delta_log/x.y.compacted.json` holding the reconciled actions of commits
 * x..y stands in for them during snapshot load when the replay reaches x and
 * y is below the version loaded. The compaction files here are written by
 * the test from the commits themselves (their actions minus commitInfo:
 * appends only, so nothing to reconcile away), and the expected rows are the
 * ids the test appended, one per commit.
 *   - with the file present the snapshot and scan equal the plain replay;
 *   - it is used: with commits x+1..y deleted from a copy the latest version
 *     still reads (only the compaction file holds those adds), while a
 *     version below y is refused for the gap (the file does not fit);
 *   - a corrupt compaction file is passed over for the commits, and so is
 *     one that is not reconciled (a file named twice).
 */
#include "testutil.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  char dir[4096];
  char table[4200];
} fixture;

static void sh(tu_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sh(tu_result *r, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  assert_int_equal(tu_sh(r, "%s", cmd), 0);
  free(cmd);
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* A table of versions 0 (create) and 1..5 (append of id = version). */
static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("log-compaction"));
  snprintf(f->table, sizeof f->table, "%s/t", f->dir);
  tu_result r;
  sh(&r, "'%s' create '%s' --schema 'id long'", INLET_BIN, f->table);
  sh_ok(&r, "create");
  tu_result_free(&r);
  for (int i = 1; i <= 5; i++) {
    sh(&r, "echo '{\"id\":%d}' > '%s/e.ndjson' && '%s' append '%s' '%s/e.ndjson'", i, f->dir,
       INLET_BIN, f->table, f->dir);
    sh_ok(&r, "append");
    tu_result_free(&r);
  }
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

/* Writes @p table's compaction file of commits @p from..@p to: their
 * actions without commitInfo. */
static void write_compaction(const char *table, int from, int to) {
  tu_result r;
  sh(&r,
     "cd '%s/_delta_log' && for v in $(seq %d %d); do grep -hv '\"commitInfo\"' $(printf "
     "'%%020d.json' $v); done > $(printf '%%020d.%%020d.compacted.json' %d %d)",
     table, from, to, from, to);
  sh_ok(&r, "write compaction file");
  tu_result_free(&r);
}

/* The sorted ids of @p table (at @p version, -1 latest), or the error. */
static char *ids(const char *table, int version, int *status) {
  tu_result r;
  char vopt[32] = "";
  if (version >= 0) snprintf(vopt, sizeof vopt, "--version %d", version);
  sh(&r, "'%s' scan '%s' %s --format csv | tail -n +2 | sort | tr '\\n' ' '", INLET_BIN, table,
     vopt);
  *status = r.status;
  char *out = strdup(r.status == 0 && r.out[0] ? r.out : r.err);
  /* the pipeline hides scan's status: an empty result with a message on
   * stderr is the failure */
  if (r.out[0] == '\0' && r.err[0]) {
    *status = 1;
    free(out);
    out = strdup(r.err);
  }
  tu_result_free(&r);
  return out;
}

static json_t *describe(const char *table) {
  tu_result r;
  sh(&r, "'%s' describe '%s' --json", INLET_BIN, table);
  sh_ok(&r, "describe");
  json_t *d = json_loads(r.out, 0, NULL);
  assert_non_null(d);
  tu_result_free(&r);
  return d;
}

/* A copy of the fixture's table with commits @p a..@p b deleted; exempt from
 * the rules checker (a log with a gap, on purpose). */
static const char *gapped_copy(fixture *f, int a, int b) {
  static char path[4300];
  snprintf(path, sizeof path, "%s/gap", f->dir);
  tu_result r;
  sh(&r,
     "cp -R '%s' '%s' && cd '%s/_delta_log' && for v in $(seq %d %d); do rm $(printf "
     "'%%020d.json' $v) $(printf '%%020d.crc' $v) 2>/dev/null || true; done",
     f->table, path, path, a, b);
  sh_ok(&r, "gapped copy");
  tu_result_free(&r);
  tu_rules_exempt(path, "test_log_compaction: commits deleted to prove the compaction is read");
  return path;
}

static void test_compaction__same_snapshot_as_the_commits(void **state) {
  fixture *f = *state;
  int st;
  char *before = ids(f->table, -1, &st);
  assert_int_equal(st, 0);
  assert_string_equal(before, "1 2 3 4 5 ");
  json_t *d0 = describe(f->table);
  write_compaction(f->table, 1, 3);
  char *after = ids(f->table, -1, &st);
  assert_int_equal(st, 0);
  assert_string_equal(after, before);
  json_t *d1 = describe(f->table);
  const char *keys[] = {"version", "files", "rows", "bytes", "commits", "schema_ddl", "protocol"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (!json_object_get(d0, keys[i]) ||
        !json_equal(json_object_get(d0, keys[i]), json_object_get(d1, keys[i])))
      fail_msg("describe %s differs with the compaction file", keys[i]);
  assert_int_equal(json_integer_value(json_object_get(d1, "version")), 5);
  json_decref(d0);
  json_decref(d1);
  for (int v = 0; v <= 5; v++) {
    char *x = ids(f->table, v, &st);
    assert_int_equal(st, 0);
    static const char *want[] = {"", "1 ", "1 2 ", "1 2 3 ", "1 2 3 4 ", "1 2 3 4 5 "};
    assert_string_equal(x, want[v]);
    free(x);
  }
  free(before);
  free(after);
}

static void test_compaction__is_used_when_it_fits_and_ignored_otherwise(void **state) {
  fixture *f = *state;
  write_compaction(f->table, 1, 3);
  const char *g = gapped_copy(f, 2, 3);
  int st;
  /* Versions 4 and 5: replayed 0, then 1..3 from the compaction file. */
  char *x = ids(g, -1, &st);
  assert_int_equal(st, 0);
  assert_string_equal(x, "1 2 3 4 5 ");
  free(x);
  x = ids(g, 4, &st);
  assert_int_equal(st, 0);
  assert_string_equal(x, "1 2 3 4 ");
  free(x);
  /* Version 3 is the compaction's end: the file does not fit (the target
   * commit is always read), so the gap shows. */
  x = ids(g, 3, &st);
  assert_int_not_equal(st, 0);
  assert_non_null(strstr(x, "version 2 is missing"));
  free(x);
}

/* The load that starts from the checkpoint `_last_checkpoint` names (no
 * listing of the whole log) uses compaction files too: with a checkpoint at
 * 5, commits 6..8, a compaction of 6..7 and commit 7 deleted, the latest
 * version reads all eight ids (a load that stopped at the first missing
 * commit would see version 6 as the latest). */
static void test_compaction__is_used_after_the_hinted_checkpoint(void **state) {
  fixture *f = *state;
  tu_result r;
  sh(&r, "'%s' checkpoint '%s'", INLET_BIN, f->table);
  sh_ok(&r, "checkpoint");
  tu_result_free(&r);
  for (int i = 6; i <= 8; i++) {
    sh(&r, "echo '{\"id\":%d}' > '%s/e.ndjson' && '%s' append '%s' '%s/e.ndjson'", i, f->dir,
       INLET_BIN, f->table, f->dir);
    sh_ok(&r, "append");
    tu_result_free(&r);
  }
  write_compaction(f->table, 6, 7);
  const char *g = gapped_copy(f, 7, 7);
  sh(&r, "grep -c '\"version\":5' '%s/_delta_log/_last_checkpoint'", g);
  assert_string_equal(r.out, "1\n");
  tu_result_free(&r);
  int st;
  char *x = ids(g, -1, &st);
  assert_int_equal(st, 0);
  assert_string_equal(x, "1 2 3 4 5 6 7 8 ");
  free(x);
  json_t *d = describe(g);
  assert_int_equal(json_integer_value(json_object_get(d, "version")), 8);
  json_decref(d);
}

static void test_compaction__corrupt_file_falls_back_to_the_commits(void **state) {
  fixture *f = *state;
  write_compaction(f->table, 1, 3);
  tu_result r;
  sh(&r, "cd '%s/_delta_log' && echo '{\"add\":' >> $(printf '%%020d.%%020d.compacted.json' 1 3)",
     f->table);
  sh_ok(&r, "corrupt the compaction file");
  tu_result_free(&r);
  int st;
  char *x = ids(f->table, -1, &st);
  assert_int_equal(st, 0);
  assert_string_equal(x, "1 2 3 4 5 ");
  free(x);
  /* Without the commits, the corrupt file is no substitute. */
  const char *g = gapped_copy(f, 2, 3);
  x = ids(g, -1, &st);
  assert_int_not_equal(st, 0);
  assert_non_null(strstr(x, "version 2 is missing"));
  free(x);
}

/* A compaction file must be reconciled (each file once, by path and
 * deletion vector). delta-kernel-rs' compacted-log-files-table holds every
 * action of its commits instead, newest first; applied in order, the
 * remove of a file would come before the add it removes and resurrect it.
 * Such a file is passed over for the commits. Here: commit 6 deletes id 2
 * (a remove of commit 2's file), the file holds 6..1 newest first, and
 * commit 7 appends id 7 so that the file fits below the version loaded. */
static void test_compaction__unreconciled_file_falls_back_to_the_commits(void **state) {
  fixture *f = *state;
  tu_result r;
  sh(&r, "'%s' delete '%s' --where 'id = 2'", INLET_BIN, f->table);
  sh_ok(&r, "delete");
  tu_result_free(&r);
  sh(&r, "echo '{\"id\":7}' > '%s/e.ndjson' && '%s' append '%s' '%s/e.ndjson'", f->dir, INLET_BIN,
     f->table, f->dir);
  sh_ok(&r, "append");
  tu_result_free(&r);
  sh(&r,
     "cd '%s/_delta_log' && grep -c '\"remove\"' $(printf '%%020d.json' 6) && "
     "for v in 6 5 4 3 2 1; do grep -hv '\"commitInfo\"' $(printf '%%020d.json' $v); done "
     "> $(printf '%%020d.%%020d.compacted.json' 1 6)",
     f->table);
  sh_ok(&r, "write an unreconciled compaction file");
  assert_string_equal(r.out, "1\n");
  tu_result_free(&r);
  int st;
  char *x = ids(f->table, -1, &st);
  assert_int_equal(st, 0);
  assert_string_equal(x, "1 3 4 5 7 ");
  free(x);
  /* Without the commits it is no substitute either. */
  const char *g = gapped_copy(f, 2, 6);
  x = ids(g, -1, &st);
  assert_int_not_equal(st, 0);
  assert_non_null(strstr(x, "version 2 is missing"));
  free(x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_compaction__same_snapshot_as_the_commits, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_compaction__is_used_after_the_hinted_checkpoint, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_compaction__is_used_when_it_fits_and_ignored_otherwise,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_compaction__corrupt_file_falls_back_to_the_commits,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_compaction__unreconciled_file_falls_back_to_the_commits,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
