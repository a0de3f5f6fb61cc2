/*
 * `inlet restore` (include/inlet/maint.h inlet_table_restore) end to end:
 *   - after compaction and more appends, restoring version 2 yields exactly
 *     its rows (inlet and refcheck alike), the RESTORE commit re-adds the
 *     compacted-away files and removes the newer ones with dataChange=true
 *     and Spark's metrics, every older version still reads as before, and
 *     restoring forward brings the newer rows back;
 *   - --as-of picks the newest version at or before the time;
 *   - files that were vacuumed make it refuse (exit 3), naming them, with
 *     nothing committed; --dry-run commits nothing; bad arguments;
 *   - a changed metaData (schema, properties) comes back;
 *   - append-only tables are refused;
 *   - concurrent appends never mix into a restore: each RESTORE version
 *     holds exactly its target version's rows;
 *   - a Spark table with deletion vectors: the restored version reads as
 *     the old one did, to inlet and refcheck.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_maint_support.h"

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Table @p dir/t: @p n_batches commits of @p per events (ids from 0), the
 * first creating it; optional properties. */
static void seed(const char *dir, int n_batches, int per, const char *const *props, int n_props) {
  ms_seed(dir, n_batches, per, ms_one_day, false, props, n_props);
}

static void append_ids(const char *table, int64_t first, int64_t n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  if (inlet_table_open(&t, table, &err) != 0) fail_msg("open: %s", err.message);
  inlet_batch b;
  ms_batch(&b, first, n, ms_one_day);
  if (inlet_table_append(t, &b, 1, NULL, NULL, &err) != 0) fail_msg("append: %s", err.message);
  inlet_batch_reset(&b);
  inlet_table_free(t);
}

/* Runs `inlet CMD t --json ARGS` in @p dir and parses its output. */
static json_t *run_json(const char *cmd, const char *dir, const char *args) {
  const char *what = cmd;
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' %s t --json %s", dir, INLET_BIN, cmd, args);
  sh_ok(&r, what);
  json_error_t je;
  json_t *j = json_loads(r.out, 0, &je);
  if (!j) fail_msg("%s: not JSON (%s): %s", what, je.text, r.out);
  tu_result_free(&r);
  return j;
}

static json_t *restore_json(const char *dir, const char *args) {
  return run_json("restore", dir, args);
}

static int64_t jint(const json_t *o, const char *k) {
  const json_t *v = json_object_get(o, k);
  if (!json_is_integer(v)) fail_msg("key %s is not an integer", k);
  return (int64_t)json_integer_value(v);
}

/* inlet's rows of version @p version (-1 latest) and refcheck's rows of
 * version @p ref_version are the same. */
static void compare_with_refcheck(const char *dir, int64_t version, int64_t ref_version) {
  tu_result r;
  char vopt[32] = "", ropt[32] = "";
  if (version >= 0) snprintf(vopt, sizeof vopt, "--version %lld", (long long)version);
  if (ref_version >= 0) snprintf(ropt, sizeof ropt, "--version %lld", (long long)ref_version);
  tu_sh(&r,
        "cd '%s' && '%s' scan t %s --format ndjson > o.ndjson && '%s' '%s' delta t %s > "
        "ref.json && '%s' '%s' compare ref.json o.ndjson --ndjson",
        dir, INLET_BIN, vopt, INLET_NODE, INLET_REFCHECK, ropt, INLET_NODE, INLET_REFCHECK);
  sh_ok(&r, "inlet scan vs refcheck delta");
  tu_result_free(&r);
}

static bool file_exists(const char *path) {
  return access(path, F_OK) == 0;
}

static char *commit_path(const char *table, int64_t v) {
  static char p[4200];
  snprintf(p, sizeof p, "%s/_delta_log/%020lld.json", table, (long long)v);
  return p;
}

static int64_t add_sizes(json_t *a, int64_t sum) {
  return sum + (int64_t)json_integer_value(json_object_get(a, "size"));
}

static void test_restore__version_after_compaction_and_appends(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("restore-basic"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 5, 20, NULL, 0); /* versions 0..4, ids 0..99 */
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files 2", dir, INLET_BIN);
  sh_ok(&r, "compact"); /* version 5: one file */
  tu_result_free(&r);
  append_ids(t, 100, 20); /* version 6 */
  assert_int_equal(ms_live_files(t), 2);

  json_t *j = restore_json(dir, "--version 2");
  assert_int_equal(jint(j, "restored_version"), 2);
  assert_int_equal(jint(j, "read_version"), 6);
  assert_int_equal(jint(j, "version"), 7);
  assert_int_equal(jint(j, "files_restored"), 3);
  assert_int_equal(jint(j, "files_removed"), 2);
  assert_int_equal(jint(j, "files_after"), 3);
  assert_true(json_is_false(json_object_get(j, "metadata_restored")));
  int64_t bytes_restored = jint(j, "bytes_restored"), bytes_removed = jint(j, "bytes_removed");
  assert_true(bytes_restored > 0 && bytes_removed > 0);
  assert_int_equal(jint(j, "bytes_after"), bytes_restored);
  json_decref(j);

  ms_expect_ids_0_to_n(t, -1, 60);
  for (int64_t v = 0; v <= 6; v++) /* history is untouched */
    ms_expect_ids_0_to_n(t, v, v < 5 ? (v + 1) * 20 : v == 5 ? 100 : 120);
  compare_with_refcheck(dir, -1, -1);
  compare_with_refcheck(dir, -1, 2);

  /* The commit: RESTORE, whole-file adds and removes with dataChange=true. */
  char *body = tu_read_file(commit_path(t, 7), NULL);
  assert_non_null(body);
  int adds = 0, removes = 0, metadata = 0;
  int64_t add_bytes = 0, remove_bytes = 0;
  for (char *line = strtok(body, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *a = json_loads(line, 0, NULL);
    assert_non_null(a);
    json_t *x;
    if ((x = json_object_get(a, "add"))) {
      adds++;
      assert_true(json_is_true(json_object_get(x, "dataChange")));
      assert_non_null(json_object_get(x, "stats"));
      add_bytes = add_sizes(x, add_bytes);
    } else if ((x = json_object_get(a, "remove"))) {
      removes++;
      assert_true(json_is_true(json_object_get(x, "dataChange")));
      assert_true(json_integer_value(json_object_get(x, "deletionTimestamp")) > 0);
      remove_bytes = add_sizes(x, remove_bytes);
    } else if (json_object_get(a, "metaData")) {
      metadata++;
    } else if ((x = json_object_get(a, "commitInfo"))) {
      assert_string_equal(json_string_value(json_object_get(x, "operation")), "RESTORE");
      json_t *p = json_object_get(x, "operationParameters");
      assert_string_equal(json_string_value(json_object_get(p, "version")), "2");
      json_t *m = json_object_get(x, "operationMetrics");
      assert_string_equal(json_string_value(json_object_get(m, "numRestoredFiles")), "3");
      assert_string_equal(json_string_value(json_object_get(m, "numRemovedFiles")), "2");
      assert_string_equal(json_string_value(json_object_get(m, "numOfFilesAfterRestore")), "3");
      assert_int_equal(
          strtoll(json_string_value(json_object_get(m, "restoredFilesSize")), NULL, 10),
          bytes_restored);
      assert_int_equal(strtoll(json_string_value(json_object_get(m, "removedFilesSize")), NULL, 10),
                       bytes_removed);
      assert_int_equal(
          strtoll(json_string_value(json_object_get(m, "tableSizeAfterRestore")), NULL, 10),
          bytes_restored);
    }
    json_decref(a);
  }
  free(body);
  assert_int_equal(adds, 3);
  assert_int_equal(removes, 2);
  assert_int_equal(metadata, 0); /* the metadata did not change */
  assert_int_equal(add_bytes, bytes_restored);
  assert_int_equal(remove_bytes, bytes_removed);

  /* History names it; restoring forward brings every row back. */
  json_t *h = run_json("history", dir, "--limit 1");
  assert_string_equal(json_string_value(json_object_get(
                          json_array_get(json_object_get(h, "commits"), 0), "operation")),
                      "RESTORE");
  json_decref(h);
  j = restore_json(dir, "--version 6");
  assert_int_equal(jint(j, "version"), 8);
  assert_int_equal(jint(j, "files_restored"), 2);
  assert_int_equal(jint(j, "files_removed"), 3);
  json_decref(j);
  ms_expect_ids_0_to_n(t, -1, 120);
  ms_expect_ids_0_to_n(t, 7, 60);
  compare_with_refcheck(dir, -1, -1);
  /* A checkpoint over restores reads the same. */
  tu_sh(&r, "cd '%s' && '%s' checkpoint t", dir, INLET_BIN);
  sh_ok(&r, "checkpoint");
  tu_result_free(&r);
  ms_expect_ids_0_to_n(t, -1, 120);
  compare_with_refcheck(dir, -1, -1);
  tu_rmtree(dir);
}

static void test_restore__as_of_timestamp(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("restore-asof"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 4, 10, NULL, 0);
  tu_result r;
  /* Commit times are the commit files' modification times here. */
  tu_sh(&r,
        "cd '%s/_delta_log' && touch -d 2024-01-01T00:00:00Z 00000000000000000000.json && "
        "touch -d 2024-01-02T00:00:00Z 00000000000000000001.json && "
        "touch -d 2024-01-03T00:00:00Z 00000000000000000002.json && "
        "touch -d 2024-01-04T00:00:00Z 00000000000000000003.json && rm -f *.crc",
        t);
  sh_ok(&r, "touch");
  tu_result_free(&r);
  json_t *j = restore_json(dir, "--as-of 2024-01-02T12:00:00Z");
  assert_int_equal(jint(j, "restored_version"), 1);
  assert_int_equal(jint(j, "version"), 4);
  json_decref(j);
  ms_expect_ids_0_to_n(t, -1, 20);
  char *body = tu_read_file(commit_path(t, 4), NULL);
  assert_non_null(body);
  assert_non_null(strstr(body, "\"timestamp\":\"2024-01-02T12:00:00.000Z\""));
  free(body);
  /* Before the first commit: nothing to restore. */
  tu_sh(&r, "cd '%s' && '%s' restore t --as-of 2023-06-01", dir, INLET_BIN);
  assert_int_equal(r.status, 3);
  tu_result_free(&r);
  tu_rmtree(dir);
}

static void test_restore__vacuumed_files_refused_and_nothing_committed(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("restore-vacuumed"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 3, 10, NULL, 0);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files 2 && '%s' vacuum t --retain 0h --force", dir,
        INLET_BIN, INLET_BIN);
  sh_ok(&r, "compact and vacuum");
  tu_result_free(&r);
  assert_false(file_exists(commit_path(t, 4)));
  for (int dry = 0; dry < 2; dry++) {
    tu_sh(&r, "cd '%s' && '%s' restore t --version 1 %s", dir, INLET_BIN, dry ? "--dry-run" : "");
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "2 of its files no longer exist"));
    assert_non_null(strstr(r.err, "part-"));
    tu_result_free(&r);
  }
  assert_false(file_exists(commit_path(t, 4)));
  ms_expect_ids_0_to_n(t, -1, 30);
  tu_rmtree(dir);
}

static void test_restore__dry_run_and_bad_arguments(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("restore-dry"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 3, 10, NULL, 0);
  json_t *j = restore_json(dir, "--version 0 --dry-run");
  assert_true(json_is_null(json_object_get(j, "version")));
  assert_true(json_is_true(json_object_get(j, "dry_run")));
  assert_int_equal(jint(j, "files_removed"), 2);
  assert_int_equal(jint(j, "files_restored"), 0);
  json_decref(j);
  assert_false(file_exists(commit_path(t, 3)));
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' restore t --version 0 --dry-run", dir, INLET_BIN);
  sh_ok(&r, "dry-run text");
  assert_non_null(strstr(r.out, "would restore version 0 over version 2"));
  tu_result_free(&r);
  static const struct {
    const char *args;
    int status;
    const char *msg;
  } bad[] = {
      {"--version 2", 1, "not older than the latest version 2"},
      {"--version 9", 3, "restore"},
      {"--version 0 --as-of 2024-01-01", 2, "exactly one of"},
      {"", 2, "exactly one of"},
      {"--as-of yesterday", 2, "--as-of"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tu_sh(&r, "cd '%s' && '%s' restore t %s", dir, INLET_BIN, bad[i].args);
    if (r.status != bad[i].status || !strstr(r.err, bad[i].msg))
      fail_msg("restore %s: exit %d (expected %d), stderr: %s", bad[i].args, r.status,
               bad[i].status, r.err);
    tu_result_free(&r);
  }
  tu_sh(&r, "cd '%s' && '%s' restore nowhere --version 0", dir, INLET_BIN);
  assert_int_equal(r.status, 3);
  tu_result_free(&r);
  assert_false(file_exists(commit_path(t, 3)));
  tu_rmtree(dir);
}

/* Writes commit @p v of @p table: the metaData of commit 0 with column
 * "extra string" added and property user.marker=x. */
static void commit_changed_metadata(const char *table, int64_t v) {
  char *body = tu_read_file(commit_path(table, 0), NULL);
  assert_non_null(body);
  json_t *meta = NULL;
  for (char *line = strtok(body, "\n"); line && !meta; line = strtok(NULL, "\n")) {
    json_t *a = json_loads(line, 0, NULL);
    if (json_object_get(a, "metaData")) meta = json_incref(json_object_get(a, "metaData"));
    json_decref(a);
  }
  free(body);
  assert_non_null(meta);
  json_t *schema = json_loads(json_string_value(json_object_get(meta, "schemaString")), 0, NULL);
  json_array_append_new(json_object_get(schema, "fields"),
                        json_pack("{s:s,s:s,s:b,s:{}}", "name", "extra", "type", "string",
                                  "nullable", 1, "metadata"));
  char *ss = json_dumps(schema, JSON_COMPACT);
  json_object_set_new(meta, "schemaString", json_string(ss));
  free(ss);
  json_decref(schema);
  json_t *conf = json_object_get(meta, "configuration");
  if (!conf) json_object_set_new(meta, "configuration", conf = json_object());
  json_object_set_new(conf, "user.marker", json_string("x"));
  json_t *ci = json_pack("{s:{s:I,s:s}}", "commitInfo", "timestamp", (json_int_t)1700000000000,
                         "operation", "SET TBLPROPERTIES");
  json_t *ma = json_pack("{s:O}", "metaData", meta);
  char *l1 = json_dumps(ci, JSON_COMPACT), *l2 = json_dumps(ma, JSON_COMPACT);
  char text[16384];
  snprintf(text, sizeof text, "%s\n%s\n", l1, l2);
  assert_int_equal(tu_write_file(commit_path(table, v), text, strlen(text)), 0);
  free(l1);
  free(l2);
  json_decref(ci);
  json_decref(ma);
  json_decref(meta);
}

static void test_restore__metadata_comes_back(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("restore-meta"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 2, 10, NULL, 0);
  commit_changed_metadata(t, 2);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' scan t --columns extra --limit 1", dir, INLET_BIN);
  sh_ok(&r, "scan new column"); /* the column exists at version 2 */
  tu_result_free(&r);
  json_t *j = restore_json(dir, "--version 1");
  assert_true(json_is_true(json_object_get(j, "metadata_restored")));
  assert_int_equal(jint(j, "files_restored"), 0);
  assert_int_equal(jint(j, "files_removed"), 0);
  assert_int_equal(jint(j, "version"), 3);
  json_decref(j);
  char *body = tu_read_file(commit_path(t, 3), NULL);
  assert_non_null(body);
  assert_non_null(strstr(body, "\"metaData\""));
  assert_null(strstr(body, "user.marker"));
  assert_null(strstr(body, "extra"));
  free(body);
  tu_sh(&r, "cd '%s' && '%s' scan t --columns extra --limit 1", dir, INLET_BIN);
  assert_int_equal(r.status, 2); /* the column is gone again */
  assert_non_null(strstr(r.err, "no column named \"extra\""));
  tu_result_free(&r);
  ms_expect_ids_0_to_n(t, -1, 20);
  compare_with_refcheck(dir, -1, -1);
  tu_rmtree(dir);
}

static void test_restore__append_only_refused(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("restore-appendonly"));
  snprintf(t, sizeof t, "%s/t", dir);
  const char *props[] = {"delta.appendOnly", "true"};
  seed(dir, 3, 10, props, 1);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' restore t --version 0", dir, INLET_BIN);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "append-only"));
  tu_result_free(&r);
  assert_false(file_exists(commit_path(t, 3)));
  tu_rmtree(dir);
}

/* Restores race a stream of appends from another process: a restore either
 * lands right after the version it read or starts over, so each RESTORE
 * version holds exactly the rows of the version it restored. */
static void test_restore__concurrent_appends_never_mix_in(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("restore-race"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 3, 10, NULL, 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    for (int i = 0; i < 40; i++) {
      inlet_error err = INLET_ERROR_INIT;
      inlet_table *h = NULL;
      inlet_batch b;
      if (inlet_table_open(&h, t, &err) != 0) _exit(2);
      ms_batch(&b, 1000 + (int64_t)i * 5, 5, ms_one_day);
      int rc = inlet_table_append(h, &b, 1, NULL, NULL, &err);
      inlet_batch_reset(&b);
      inlet_table_free(h);
      if (rc != 0) _exit(3);
    }
    _exit(0);
  }
  int restores = 0, retried = 0;
  for (int i = 0; i < 6; i++) {
    char args[32];
    snprintf(args, sizeof args, "--version %d", i % 3);
    json_t *j = restore_json(dir, args);
    assert_true(jint(j, "attempts") >= 1);
    retried += jint(j, "attempts") > 1;
    json_decref(j);
    restores++;
  }
  print_message("%d of %d restores started over after losing to an append\n", retried, restores);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  /* Every RESTORE commit, read back. */
  json_t *h = run_json("history", dir, "");
  size_t i;
  json_t *c;
  int seen = 0;
  json_array_foreach(json_object_get(h, "commits"), i, c) {
    if (strcmp(json_string_value(json_object_get(c, "operation")), "RESTORE") != 0) continue;
    seen++;
    int64_t v = (int64_t)json_integer_value(json_object_get(c, "version"));
    json_t *p = json_object_get(c, "operation_parameters");
    int64_t target = strtoll(json_string_value(json_object_get(p, "version")), NULL, 10);
    int64_t n1 = 0, n2 = 0;
    int64_t *a = ms_ids(t, v, &n1), *b = ms_ids(t, target, &n2);
    if (n1 != n2 || memcmp(a, b, (size_t)n1 * sizeof *a) != 0)
      fail_msg("RESTORE version %lld has %lld rows, its target %lld has %lld (or others)",
               (long long)v, (long long)n1, (long long)target, (long long)n2);
    free(a);
    free(b);
  }
  json_decref(h);
  assert_int_equal(seen, restores);
  /* No append was lost: each one's rows are in the version it created. */
  compare_with_refcheck(dir, -1, -1);
  tu_rmtree(dir);
}

/* A table Spark wrote with deletion vectors: restoring version 0 brings back
 * its files without the later deletion vectors. */
static void test_restore__deletion_vector_table(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("restore-dv"));
  tu_result r;
  tu_sh(&r, "cp -R '%s/delta-golden/tables/dv-partitioned-with-checkpoint' '%s/t'", INLET_TESTDATA,
        dir);
  sh_ok(&r, "copy golden table");
  tu_result_free(&r);
  json_t *j = restore_json(dir, "--version 0");
  int64_t v = jint(j, "version");
  assert_true(jint(j, "files_restored") > 0);
  json_decref(j);
  compare_with_refcheck(dir, -1, 0);
  compare_with_refcheck(dir, -1, -1);
  compare_with_refcheck(dir, v - 1, v - 1);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_restore__version_after_compaction_and_appends),
      cmocka_unit_test(test_restore__as_of_timestamp),
      cmocka_unit_test(test_restore__vacuumed_files_refused_and_nothing_committed),
      cmocka_unit_test(test_restore__dry_run_and_bad_arguments),
      cmocka_unit_test(test_restore__metadata_comes_back),
      cmocka_unit_test(test_restore__append_only_refused),
      cmocka_unit_test(test_restore__concurrent_appends_never_mix_in),
      cmocka_unit_test(test_restore__deletion_vector_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
