/*
 * History and describe beside log cleanup (found by the chaos suite,
 * tests/integration/test_chaos.c): both list _delta_log, then read each
 * commit's commitInfo; log cleanup (checkpoint, maintain) may remove the
 * oldest commits between the two. Such a commit is no longer history: it is
 * left out, and the call succeeds. (Before, the reader failed with "open
 * .../00000000000000000000.json: No such file or directory", and a
 * restarting ingester, which looks for its own last commit in the history,
 * stopped with that error.)
 *
 * The race is made deterministic by the table's storage: its open_read
 * removes a chosen commit file just before opening it, as a cleanup that
 * ran right after the listing would have.
 */
#include "testutil.h"

#include <stdio.h>
#include <unistd.h>

#include "delta/delta.h"
#include "delta/delta_table_int.h"
#include "util/util.h"

static const inlet_storage_ops *posix_ops;
static inlet_storage_ops racing_ops;
static int64_t vanish_below = -1; /* commits below this version vanish when opened */
static char table_dir[4200];

static int racing_open_read(inlet_storage *s, const char *path, inlet_rfile **out,
                            inlet_error *err) {
  for (int64_t v = 0; v < vanish_below; v++) {
    char name[64];
    delta_commit_name(name, v);
    if (strcmp(path, name) != 0) continue;
    char full[4400];
    snprintf(full, sizeof full, "%s/%s", table_dir, name);
    unlink(full);
  }
  return posix_ops->open_read(s, path, out, err);
}

/* Runs `inlet ARGS` (a command line of the tool) and expects success. */
static void inlet_ok(const char *args) {
  tu_result r;
  tu_sh(&r, "'%s' %s", INLET_BIN, args);
  if (r.status != 0) fail_msg("inlet %s: %s", args, r.err);
  tu_result_free(&r);
}

static void test_history__commits_cleaned_up_after_the_listing_are_left_out(void **state) {
  (void)state;
  char dir[4096], batch[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("history-cleanup"));
  snprintf(table_dir, sizeof table_dir, "%s/t", dir);
  snprintf(batch, sizeof batch, "%s/b.ndjson", dir);
  assert_int_equal(tu_write_file(batch, "{\"id\":1}\n", 9), 0);
  /* Versions 0 (create) to 3, a checkpoint at 3 (so loading the snapshot
   * opens no commit file below it). */
  char cmd[9000];
  snprintf(cmd, sizeof cmd, "create '%s' --schema 'id long'", table_dir);
  inlet_ok(cmd);
  snprintf(cmd, sizeof cmd, "append '%s' '%s'", table_dir, batch);
  for (int i = 0; i < 3; i++)
    inlet_ok(cmd);
  snprintf(cmd, sizeof cmd, "checkpoint '%s'", table_dir);
  inlet_ok(cmd);

  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, table_dir, &err), 0);
  posix_ops = t->st->ops;
  racing_ops = *posix_ops;
  racing_ops.open_read = racing_open_read;
  t->st->ops = &racing_ops;

  /* History: commits 0 and 1 go between the listing and their reading. */
  vanish_below = 2;
  inlet_history_entry *h = NULL;
  size_t n = 0;
  int rc = inlet_table_history(&h, &n, t, 0, &err);
  if (rc != 0) fail_msg("history beside log cleanup: %s", inlet_errmsg(&err));
  assert_int_equal(n, 2);
  assert_int_equal(h[0].version, 3);
  assert_int_equal(h[1].version, 2);
  assert_non_null(h[0].operation);
  inlet_history_free(h, n);

  /* Describe: commit 2 goes the same way; 3 is counted. */
  vanish_below = 3;
  inlet_table_description d;
  rc = inlet_table_describe(t, &d, NULL, &err);
  if (rc != 0) fail_msg("describe beside log cleanup: %s", inlet_errmsg(&err));
  assert_int_equal(d.version, 3);
  assert_int_equal(d.commits, 1);
  assert_int_equal(d.rows, 3);

  /* Every commit removed after the listing: an empty history, not an
   * error. */
  vanish_below = 4;
  rc = inlet_table_history(&h, &n, t, 0, &err);
  if (rc != 0) fail_msg("history with every commit removed: %s", inlet_errmsg(&err));
  assert_int_equal(n, 0);
  inlet_history_free(h, n);

  t->st->ops = posix_ops;
  inlet_table_free(t);
  tu_rules_exempt(table_dir, "the test removed every commit below the checkpoint's and its own");
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_history__commits_cleaned_up_after_the_listing_are_left_out),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
