/*
 * Vacuum and log cleanup (include/inlet/maint.h, `inlet vacuum`):
 *   - a window shorter than the table's needs --force;
 *   - files removed by a compaction are judged by the remove's
 *     deletionTimestamp, never their mtime: kept inside the window (time
 *     travel works), deleted after it;
 *   - never-committed debris is deleted only when older than the window,
 *     and nothing under _delta_log, _errors or dot paths is touched;
 *     dry-run lists files and bytes and deletes nothing;
 *   - change data files (_change_data/, written by delete on a change data
 *     feed table) are judged by the commit that added them, never their
 *     mtime: kept (and `inlet changes` reads them) inside the window,
 *     deleted after it; unreferenced ones there by mtime;
 *   - log cleanup removes commits and checkpoints older than the window
 *     only below a checkpoint that keeps every version in the window
 *     reconstructible; txn positions survive; refcheck reads the result.
 */
#include "testutil.h"

#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_maint_support.h"

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* @p dir/t: version 0 creates, versions 1..n append 20 events each (the
 * append of version 2 records txn appId "app" version 3); @p props set. */
static void seed(const char *dir, int n, const char *prop_key, const char *prop_val) {
  char path[4096];
  snprintf(path, sizeof path, "%s/t", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, MS_SCHEMA, &err), 0);
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *pcols[] = {"day"};
  co.n_partition_columns = 1;
  co.partition_columns = pcols;
  co.n_properties = prop_key ? 1 : 0;
  co.property_keys = &prop_key;
  co.property_values = &prop_val;
  inlet_table *t = NULL;
  if (inlet_table_create(&t, path, &s, &co, &err) != 0) fail_msg("create: %s", err.message);
  for (int i = 0; i < n; i++) {
    inlet_batch b;
    ms_batch(&b, i * 20, 20, ms_one_day);
    inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
    if (i == 1) {
      ao.app_id = "app";
      ao.app_version = 3;
    }
    if (inlet_table_append(t, &b, 1, &ao, NULL, &err) != 0) fail_msg("append: %s", err.message);
    inlet_batch_reset(&b);
  }
  inlet_table_free(t);
  inlet_schema_reset(&s);
}

static void compact(const char *dir) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files 2", dir, INLET_BIN);
  sh_ok(&r, "compact");
  tu_result_free(&r);
}

static void age_data_files(const char *table, const char *age) {
  tu_result r;
  tu_sh(&r, "find '%s' -type f -not -path '*/_delta_log/*' -exec touch -d '%s' {} +", table, age);
  sh_ok(&r, "touch");
  tu_result_free(&r);
}

static void test_vacuum__short_window_needs_force(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-vac-force"));
  seed(dir, 2, NULL, NULL);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' vacuum t --retain 1h", dir, INLET_BIN);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "--force"));
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' vacuum t --retain 1h --force", dir, INLET_BIN);
  sh_ok(&r, "vacuum --force");
  assert_non_null(strstr(r.out, "deleted 0 files"));
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' vacuum t --retain soon", dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  tu_rmtree(dir);
}

static void test_vacuum__removed_files_judged_by_log_timestamp_not_mtime(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-vac-tomb"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 6, NULL, NULL);
  compact(dir); /* version 7: 6 files removed now */
  assert_int_equal(ms_count_data_files(t), 7);
  /* Old mtimes do not matter: the removes are from just now. */
  age_data_files(t, "30 days ago");
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' vacuum t", dir, INLET_BIN);
  sh_ok(&r, "vacuum");
  assert_non_null(strstr(r.out, "deleted 0 files"));
  assert_non_null(strstr(r.out, "6 files kept inside the window"));
  tu_result_free(&r);
  ms_expect_ids_0_to_n(t, 6, 120); /* time travel before the compaction */
  /* Eight days later (the library's clock), they are past the window. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *tb = NULL;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  inlet_vacuum_options o = INLET_VACUUM_OPTIONS_INIT;
  o.now_ms = (int64_t)time(NULL) * 1000 + 8LL * 86400000;
  o.dry_run = true;
  inlet_vacuum_result vr;
  assert_int_equal(inlet_table_vacuum(&vr, tb, &o, &err), 0);
  assert_int_equal(vr.files, 6);
  assert_int_equal(ms_count_data_files(t), 7); /* dry run */
  o.dry_run = false;
  assert_int_equal(inlet_table_vacuum(&vr, tb, &o, &err), 0);
  assert_int_equal(vr.files, 6);
  assert_int_equal(vr.tombstoned, 6);
  assert_int_equal(vr.debris, 0);
  inlet_table_free(tb);
  assert_int_equal(ms_count_data_files(t), 1);
  ms_expect_ids_0_to_n(t, -1, 120);
  tu_rmtree(dir);
}

/* deletionTimestamp is optional: such a remove counts from its commit's
 * time, never from the file's (old) mtime. */
static void test_vacuum__remove_without_timestamp_counts_from_its_commit(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-vac-nots"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 2, NULL, NULL);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && f=$(ls day=2024-01-01 | head -1) && printf '%%s\\n%%s\\n' "
        "'{\"commitInfo\":{\"operation\":\"DELETE\"}}' "
        "\"{\\\"remove\\\":{\\\"path\\\":\\\"day=2024-01-01/$f\\\",\\\"dataChange\\\":true}}\" "
        "> _delta_log/00000000000000000003.json && cat _delta_log/00000000000000000003.json",
        t);
  sh_ok(&r, "write a remove without deletionTimestamp");
  assert_null(strstr(r.out, "deletionTimestamp"));
  tu_result_free(&r);
  assert_int_equal(ms_live_files(t), 1);
  age_data_files(t, "30 days ago");
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *tb = NULL;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  inlet_vacuum_result vr;
  assert_int_equal(inlet_table_vacuum(&vr, tb, NULL, &err), 0);
  assert_int_equal(vr.files, 0);
  assert_int_equal(vr.kept, 1);
  inlet_vacuum_options o = INLET_VACUUM_OPTIONS_INIT;
  o.now_ms = (int64_t)time(NULL) * 1000 + 8LL * 86400000;
  assert_int_equal(inlet_table_vacuum(&vr, tb, &o, &err), 0);
  assert_int_equal(vr.files, 1);
  assert_int_equal(vr.tombstoned, 1);
  inlet_table_free(tb);
  assert_int_equal(ms_count_data_files(t), 1);
  tu_rmtree(dir);
}

static int64_t count_files(const char *dir) {
  tu_result r;
  tu_sh(&r, "find '%s' -type f | wc -l", dir);
  int64_t n = atoll(r.out);
  tu_result_free(&r);
  return n;
}

static void test_vacuum__change_data_files_judged_by_their_commit(void **state) {
  (void)state;
  char dir[4096], t[4200], cd[4300];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-vac-cdc"));
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(cd, sizeof cd, "%s/_change_data", t);
  seed(dir, 3, "delta.enableChangeDataFeed", "true");
  tu_result r;
  /* Version 4: a copy-on-write delete writes the deleted rows to
   * _change_data (cdc actions); an orphan there no commit names. */
  tu_sh(
      &r,
      "cd '%s' && '%s' delete t --where 'id < 5' && printf 'oooo' > t/_change_data/orphan.parquet",
      dir, INLET_BIN);
  sh_ok(&r, "delete");
  tu_result_free(&r);
  int64_t n_cdc = count_files(cd);
  assert_true(n_cdc >= 2); /* the delete's cdc file(s) and the orphan */
  /* Old mtimes do not matter for the delete's files: its commit is new. */
  age_data_files(t, "30 days ago");
  tu_sh(&r, "cd '%s' && '%s' vacuum t", dir, INLET_BIN);
  sh_ok(&r, "vacuum");
  assert_non_null(strstr(r.out, "deleted 1 files"));
  tu_result_free(&r);
  assert_int_equal(count_files(cd), n_cdc - 1); /* only the orphan went */
  tu_sh(&r, "cd '%s' && '%s' changes t --from 4 --format csv --columns id,_change_type | sort", dir,
        INLET_BIN);
  sh_ok(&r, "changes inside the window");
  assert_string_equal(r.out, "0,delete\n1,delete\n2,delete\n3,delete\n4,delete\n"
                             "id,_change_type\n");
  tu_result_free(&r);
  /* Eight days later the delete's commit is past the window: its change
   * data files go with the files it removed. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *tb = NULL;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  inlet_vacuum_options o = INLET_VACUUM_OPTIONS_INIT;
  o.now_ms = (int64_t)time(NULL) * 1000 + 8LL * 86400000;
  inlet_vacuum_result vr;
  assert_int_equal(inlet_table_vacuum(&vr, tb, &o, &err), 0);
  inlet_table_free(tb);
  assert_true(vr.tombstoned >= n_cdc);
  assert_int_equal(count_files(cd), 0);
  tu_sh(&r, "cd '%s' && '%s' changes t --from 4 --format csv", dir, INLET_BIN);
  if (r.status != 3) fail_msg("changes over vacuumed change data: exit %d %s", r.status, r.out);
  assert_non_null(strstr(r.err, "_change_data/"));
  tu_result_free(&r);
  tu_rmtree(dir);
}

static void test_vacuum__debris_only_past_window_and_never_hidden_paths(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-vac-debris"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 3, NULL, NULL);
  tu_result r;
  /* Debris of a crashed writer, old and young; files that must never go. */
  tu_sh(&r,
        "cd '%s' && printf 'xxxx' > day=2024-01-01/part-old-debris.parquet && "
        "touch -d '30 days ago' day=2024-01-01/part-old-debris.parquet && "
        "printf 'yy' > day=2024-01-01/part-young-debris.parquet && "
        "mkdir -p _errors .hidden && printf 'e' > _errors/dead.ndjson && "
        "printf 'h' > .hidden/x.parquet && printf 'd' > day=2024-01-01/.part-x.crc && "
        "printf 't' > _delta_log/.tmp-123.json && "
        "touch -d '30 days ago' _errors/dead.ndjson .hidden/x.parquet "
        "day=2024-01-01/.part-x.crc && touch -d '2 hours ago' _delta_log/.tmp-123.json",
        t);
  /* (A _delta_log temp file a day old is a killed writer's and goes:
   * test_issue12_smaller; this one could be a live writer's.) */
  sh_ok(&r, "make debris");
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' vacuum t --dry-run", dir, INLET_BIN);
  sh_ok(&r, "vacuum --dry-run");
  assert_non_null(strstr(r.out, "would delete day=2024-01-01/part-old-debris.parquet\t4"));
  assert_null(strstr(r.out, "young"));
  assert_non_null(strstr(r.out, "would delete 1 files, 4 bytes"));
  tu_result_free(&r);
  struct stat st;
  char p[4400];
  snprintf(p, sizeof p, "%s/day=2024-01-01/part-old-debris.parquet", t);
  assert_int_equal(stat(p, &st), 0);
  tu_sh(&r, "cd '%s' && '%s' vacuum t", dir, INLET_BIN);
  sh_ok(&r, "vacuum");
  assert_non_null(strstr(r.out, "deleted 1 files, 4 bytes"));
  assert_non_null(strstr(r.out, "1 never committed"));
  tu_result_free(&r);
  assert_int_equal(stat(p, &st), -1);
  const char *kept[] = {"day=2024-01-01/part-young-debris.parquet", "_errors/dead.ndjson",
                        ".hidden/x.parquet", "day=2024-01-01/.part-x.crc",
                        "_delta_log/.tmp-123.json"};
  for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
    snprintf(p, sizeof p, "%s/%s", t, kept[i]);
    if (stat(p, &st) != 0) fail_msg("vacuum deleted %s", kept[i]);
  }
  ms_expect_ids_0_to_n(t, -1, 60);
  tu_rmtree(dir);
}

static void log_cleanup(const char *t, int64_t *commits, int64_t *checkpoints) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *tb = NULL;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  inlet_log_cleanup_result lr;
  if (inlet_table_cleanup_log(&lr, tb, NULL, &err) != 0) fail_msg("cleanup: %s", err.message);
  inlet_table_free(tb);
  *commits = lr.commits_removed;
  *checkpoints = lr.checkpoints_removed;
}

static bool log_has(const char *t, const char *name) {
  char p[4400];
  snprintf(p, sizeof p, "%s/_delta_log/%s", t, name);
  struct stat st;
  return stat(p, &st) == 0;
}

static void age_commits(const char *t, int from, int to, const char *age) {
  for (int v = from; v <= to; v++) {
    tu_result r;
    tu_sh(&r,
          "cd '%s/_delta_log' && touch -d '%s' %020d.json && "
          "(test ! -e %020d.checkpoint.parquet || touch -d '%s' %020d.checkpoint.parquet)",
          t, age, v, v, age, v);
    sh_ok(&r, "age commit");
    tu_result_free(&r);
  }
}

static void test_log_cleanup__keeps_every_version_in_window_reconstructible(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-logclean"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 12, "delta.checkpointInterval", "5"); /* versions 0..12, checkpoints 5 and 10 */
  assert_true(log_has(t, "00000000000000000005.checkpoint.parquet"));
  assert_true(log_has(t, "00000000000000000010.checkpoint.parquet"));
  int64_t nc = -1, nk = -1;
  /* Nothing is old yet: nothing goes. */
  log_cleanup(t, &nc, &nk);
  assert_int_equal(nc, 0);
  assert_int_equal(nk, 0);
  /* Versions 0..6 are 40 days old: version 7 is the oldest in the window,
   * so checkpoint 5 must stay and only commits 0..4 may go. */
  age_commits(t, 0, 6, "40 days ago");
  log_cleanup(t, &nc, &nk);
  assert_int_equal(nc, 5);
  assert_int_equal(nk, 0);
  assert_false(log_has(t, "00000000000000000004.json"));
  assert_true(log_has(t, "00000000000000000005.json"));
  assert_true(log_has(t, "00000000000000000005.checkpoint.parquet"));
  for (int v = 7; v <= 12; v++)
    ms_expect_ids_0_to_n(t, v, (int64_t)v * 20);
  /* Everything up to 10 old: commits 5..9 and checkpoint 5 go. */
  age_commits(t, 7, 10, "40 days ago");
  log_cleanup(t, &nc, &nk);
  assert_int_equal(nc, 5);
  assert_int_equal(nk, 1);
  assert_false(log_has(t, "00000000000000000009.json"));
  assert_false(log_has(t, "00000000000000000005.checkpoint.parquet"));
  assert_true(log_has(t, "00000000000000000010.checkpoint.parquet"));
  ms_expect_ids_0_to_n(t, -1, 240);
  ms_expect_ids_0_to_n(t, 10, 200);
  /* The stream position recorded in version 2 lives on in the checkpoint. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *tb = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, tb, &err), 0);
  assert_int_equal(inlet_snapshot_txn_version(s, "app"), 3);
  inlet_snapshot_free(s);
  inlet_table_free(tb);
  /* Another reader agrees. */
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' scan t --format ndjson > o.ndjson && '%s' '%s' delta t > ref.json "
        "&& '%s' '%s' compare ref.json o.ndjson --ndjson",
        dir, INLET_BIN, INLET_NODE, INLET_REFCHECK, INLET_NODE, INLET_REFCHECK);
  sh_ok(&r, "refcheck after log cleanup");
  tu_result_free(&r);
  tu_rmtree(dir);
}

static void test_log_cleanup__without_checkpoint_removes_nothing(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-logclean-none"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 4, "delta.checkpointInterval", "100");
  age_commits(t, 0, 4, "400 days ago");
  int64_t nc = -1, nk = -1;
  log_cleanup(t, &nc, &nk);
  assert_int_equal(nc, 0);
  assert_int_equal(nk, 0);
  ms_expect_ids_0_to_n(t, 0, 0);
  ms_expect_ids_0_to_n(t, -1, 80);
  tu_rmtree(dir);
}

static void test_maintain__one_pass_compacts_when_enabled(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-maintain"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 9, "inlet.autoCompact", "true");
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' maintain t", dir, INLET_BIN);
  sh_ok(&r, "maintain");
  assert_non_null(strstr(r.out, "compacted 9 files -> 1 files (180 rows) in 1 commits"));
  tu_result_free(&r);
  assert_int_equal(ms_live_files(t), 1);
  ms_expect_ids_0_to_n(t, -1, 180);
  tu_rmtree(dir);
}

static void test_maintain__off_without_property(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-maintain-off"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 9, NULL, NULL);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' maintain t", dir, INLET_BIN);
  sh_ok(&r, "maintain");
  assert_non_null(strstr(r.out, "auto-compaction off"));
  tu_result_free(&r);
  assert_int_equal(ms_live_files(t), 9);
  tu_sh(&r, "cd '%s' && '%s' maintain t --compact --min-files 9", dir, INLET_BIN);
  sh_ok(&r, "maintain --compact");
  tu_result_free(&r);
  assert_int_equal(ms_live_files(t), 1);
  tu_rmtree(dir);
}

/* The first OPTIMIZE commit's version (-1 when none) and the newest
 * version. */
static int64_t first_compaction(const char *table, int64_t *latest) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *tb = NULL;
  inlet_history_entry *h = NULL;
  size_t n = 0;
  if (inlet_table_open(&tb, table, &err) != 0 || inlet_table_history(&h, &n, tb, 0, &err) != 0)
    fail_msg("history of %s: %s", table, err.message);
  int64_t first = -1;
  *latest = n ? h[0].version : -1;
  for (size_t i = 0; i < n; i++)
    if (h[i].operation && strcmp(h[i].operation, "OPTIMIZE") == 0) first = h[i].version;
  inlet_history_free(h, n);
  inlet_table_free(tb);
  return first;
}

/* `maintain --follow` compacts while appends go on. Driven by what the table
 * shows, not by the clock (it used to race 12 appends against
 * --max-runtime 5s, and lost under load): appends go on until the table shows
 * a compaction and at least 12 appends, three of them after the compaction;
 * then maintain is stopped with SIGTERM and must exit 0. */
static void test_maintain__follow_compacts_while_appends_go_on(void **state) {
  (void)state;
  char dir[4096], t[4200], out[4200], batch[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-follow"));
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(out, sizeof out, "%s/m.out", dir);
  snprintf(batch, sizeof batch, "%s/b.ndjson", dir);
  seed(dir, 0, "inlet.autoCompact", "true");
  pid_t m = fork();
  if (m == 0) {
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    dup2(fd, 1);
    dup2(fd, 2);
    /* --max-runtime only as a safety net should the test die. */
    execl(INLET_BIN, INLET_BIN, "maintain", t, "--follow", "--interval", "300ms", "--max-runtime",
          "30m", "--min-files", "4", (char *)NULL);
    _exit(127);
  }
  assert_true(m > 0);
  int64_t appends = 0, compacted_at = -1, after = 0, latest = -1;
  time_t give_up = time(NULL) + 600;
  while (compacted_at < 0 || after < 3 || appends < 12) {
    if (time(NULL) > give_up) {
      kill(m, SIGKILL);
      waitpid(m, NULL, 0);
      fail_msg("maintain --follow did not compact in 10 minutes (%lld appends)",
               (long long)appends);
    }
    char rows[256];
    int len = snprintf(rows, sizeof rows,
                       "{\"id\":%lld,\"day\":\"2024-01-01\",\"ts\":1,\"msg\":\"m\"}\n"
                       "{\"id\":%lld,\"day\":\"2024-01-01\",\"ts\":1,\"msg\":\"m\"}\n",
                       (long long)appends * 2, (long long)appends * 2 + 1);
    assert_int_equal(tu_write_file(batch, rows, (size_t)len), 0);
    tu_result r;
    tu_sh(&r, "'%s' append '%s' '%s' --format ndjson", INLET_BIN, t, batch);
    sh_ok(&r, "append beside maintain --follow");
    tu_result_free(&r);
    appends++;
    int64_t was = compacted_at;
    compacted_at = first_compaction(t, &latest);
    if (was >= 0) after++; /* this append came after the compaction was seen */
  }
  kill(m, SIGTERM);
  int st = 0;
  waitpid(m, &st, 0);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
  char *o = tu_read_file(out, NULL);
  assert_non_null(o);
  assert_non_null(strstr(o, "maintain: version"));
  assert_non_null(strstr(o, "compacted"));
  free(o);
  /* Appends committed after the compaction, and none of their rows is lost
   * or doubled. */
  assert_true(latest > compacted_at);
  ms_expect_ids_0_to_n(t, -1, appends * 2);
  assert_true(ms_live_files(t) < appends);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' describe t --json", dir, INLET_BIN);
  sh_ok(&r, "describe");
  json_t *d = json_loads(r.out, 0, NULL);
  assert_true(json_integer_value(json_object_get(d, "compactions")) >= 1);
  json_decref(d);
  tu_result_free(&r);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vacuum__short_window_needs_force),
      cmocka_unit_test(test_vacuum__removed_files_judged_by_log_timestamp_not_mtime),
      cmocka_unit_test(test_vacuum__remove_without_timestamp_counts_from_its_commit),
      cmocka_unit_test(test_vacuum__debris_only_past_window_and_never_hidden_paths),
      cmocka_unit_test(test_vacuum__change_data_files_judged_by_their_commit),
      cmocka_unit_test(test_log_cleanup__keeps_every_version_in_window_reconstructible),
      cmocka_unit_test(test_log_cleanup__without_checkpoint_removes_nothing),
      cmocka_unit_test(test_maintain__one_pass_compacts_when_enabled),
      cmocka_unit_test(test_maintain__off_without_property),
      cmocka_unit_test(test_maintain__follow_compacts_while_appends_go_on),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
