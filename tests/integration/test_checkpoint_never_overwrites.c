/*
 * Issue 11 §2: an existing checkpoint is never overwritten, whoever wrote
 * it. `inlet checkpoint` on a version that already has a checkpoint
 * (Databricks' classic one, a multi-part one, a UUID-named v2 one) writes
 * nothing: every byte of the table is unchanged. A checkpoint that appears
 * between inlet's look at the log and its publish wins (put-if-absent),
 * writers' automatic checkpoints leave existing ones alone, and
 * `_last_checkpoint` never moves back to an older version.
 */
#include "log_support.h"

#include <limits.h>
#include <unistd.h>

#include "delta/delta.h"
#include "delta/delta_features.h"
#include "delta/delta_table_int.h"
#include "util/util.h"

static void open_st(const char *path, char root[PATH_MAX], inlet_storage **st) {
  assert_non_null(realpath(path, root));
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_posix_open(st, root, false, &err), 0);
}

/* Runs `inlet checkpoint` on @p table and checks it changed nothing: the
 * command either reports the existing checkpoint (exit 0) or refuses the
 * table (a writer feature inlet does not implement); it never writes. */
static void cli_checkpoint_changes_nothing(const char *table) {
  char *before = ls_digest(table);
  tu_result r;
  tu_sh(&r, "'%s' checkpoint '%s'", INLET_BIN, table);
  char *after = ls_digest(table);
  assert_string_equal(before, after);
  assert_null(strstr(r.out, "checkpoint written"));
  if (r.status == 0) assert_non_null(strstr(r.out, "already exists"));
  tu_result_free(&r);
  free(before);
  free(after);
}

static void test_checkpoint_never_overwrites__databricks_classic_checkpoint(void **state) {
  (void)state;
  const char *t = ls_copy_table("delta-rs/table-with-domain-metadata", "ckpt-keep-dbx");
  cli_checkpoint_changes_nothing(t);
  /* The library call the writers use says so too, and writes nothing. */
  char root[PATH_MAX];
  inlet_storage *st;
  open_st(t, root, &st);
  char *before = ls_digest(t);
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.version, 108);
  assert_int_equal(delta_checkpoint_write(st, &s, NULL, NULL, &err), INLET_EEXISTS);
  assert_non_null(strstr(inlet_errmsg(&err), "00000000000000000108.checkpoint.parquet"));
  char *after = ls_digest(t);
  assert_string_equal(before, after);
  free(before);
  free(after);
  delta_snapshot_reset(&s);
  st->ops->free(st);
}

static void test_checkpoint_never_overwrites__v2_checkpoint(void **state) {
  (void)state;
  const char *t = ls_copy_table("delta-rs/checkpoint-v2-table", "ckpt-keep-v2");
  tu_result r;
  /* Latest version 8, which has a UUID-named checkpoint. */
  tu_sh(&r, "rm '%s'/_delta_log/00000000000000000009.*", t);
  ls_sh_ok(&r, "drop version 9");
  tu_result_free(&r);
  cli_checkpoint_changes_nothing(t);
  char root[PATH_MAX];
  inlet_storage *st;
  open_st(t, root, &st);
  char *before = ls_digest(t);
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.version, 8);
  /* The table's policy is v2 and version 8 has a UUID-named checkpoint:
   * inlet writes none beside it. */
  assert_int_equal(delta_checkpoint_write_checked(st, &s, NULL, NULL, &err), INLET_EEXISTS);
  assert_non_null(strstr(inlet_errmsg(&err), "UUID-named v2 checkpoint"));
  delta_snapshot_reset(&s);
  /* A log edited to drop the feature (protocol lists, checkpointPolicy)
   * still holds the UUID-named checkpoint of version 8, which a classic
   * one must not be written beside. */
  tu_sh(&r,
        "cd '%s/_delta_log' && sed -i -e 's/\"v2Checkpoint\",//g' "
        "-e 's/\\[\"v2Checkpoint\"\\]/[]/g' "
        "-e 's/\"delta.checkpointPolicy\":\"v2\"/\"delta.checkpointPolicy\":\"classic\"/g' "
        "*.json *.crc",
        t);
  ls_sh_ok(&r, "drop the v2Checkpoint feature from the log");
  tu_result_free(&r);
  free(before);
  before = ls_digest(t);
  assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.version, 8);
  assert_false(delta_protocol_supports(&s.protocol, "v2Checkpoint"));
  /* The listing finds the UUID-named checkpoint; the writers' cheap look
   * finds `_last_checkpoint` naming version 8. */
  assert_int_equal(delta_checkpoint_write_checked(st, &s, NULL, NULL, &err), INLET_EEXISTS);
  assert_non_null(strstr(inlet_errmsg(&err), "v2 checkpoint"));
  assert_int_equal(delta_checkpoint_write(st, &s, NULL, NULL, &err), INLET_EEXISTS);
  assert_non_null(strstr(inlet_errmsg(&err), "_last_checkpoint"));
  char *after = ls_digest(t);
  assert_string_equal(before, after);
  free(before);
  free(after);
  delta_snapshot_reset(&s);
  st->ops->free(st);
}

/* An inlet table at version 3 under <dir>/t. */
static const char *make_table(const char *tag, const char *props) {
  static char t[4200];
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp(tag));
  snprintf(t, sizeof t, "%s/t", dir);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long, g string' --partition-by g %s && "
        "printf '{\"id\":1,\"g\":\"a\"}\\n{\"id\":2,\"g\":\"b\"}\\n' > in.ndjson && "
        "for i in 1 2 3; do '%s' append t in.ndjson || exit 1; done",
        dir, INLET_BIN, props, INLET_BIN);
  ls_sh_ok(&r, "make table");
  tu_result_free(&r);
  return t;
}

static void test_checkpoint_never_overwrites__multi_part_checkpoint(void **state) {
  (void)state;
  const char *t = make_table("ckpt-keep-multi", "");
  /* A complete two-part checkpoint of version 3 (each part holds the whole
   * state: replaying it twice gives the same snapshot). */
  LS_SH_OK("checkpoint",
           "cd '%s/_delta_log' && '%s' checkpoint .. >/dev/null && "
           "cp 00000000000000000003.checkpoint.parquet "
           "00000000000000000003.checkpoint.0000000001.0000000002.parquet && "
           "mv 00000000000000000003.checkpoint.parquet "
           "00000000000000000003.checkpoint.0000000002.0000000002.parquet",
           t, INLET_BIN);
  cli_checkpoint_changes_nothing(t);
  /* The table still reads through the multi-part checkpoint. */
  tu_result r;
  tu_sh(&r, "'%s' scan '%s' --format ndjson | wc -l", INLET_BIN, t);
  ls_sh_ok(&r, "scan");
  assert_int_equal(atoi(r.out), 6);
  tu_result_free(&r);
}

/* A storage whose directory listings do not show checkpoints: another
 * writer's checkpoint then appears only when inlet publishes its own. */
static const inlet_storage_ops *inner_ops;
static int hiding_list_names(inlet_storage *s, const char *dir, inlet_dirent **out, size_t *n,
                             inlet_error *err) {
  int rc = inner_ops->list_names(s, dir, out, n, err);
  if (rc < 0) return rc;
  size_t k = 0;
  for (size_t i = 0; i < *n; i++) {
    if (strstr((*out)[i].name, ".checkpoint."))
      inlet_free((*out)[i].name);
    else
      (*out)[k++] = (*out)[i];
  }
  *n = k;
  return 0;
}

static void test_checkpoint_never_overwrites__concurrent_checkpoint_wins_the_publish(void **state) {
  (void)state;
  const char *t = make_table("ckpt-keep-race", "");
  tu_rules_exempt(t, "another writer's checkpoint is planted as junk on purpose");
  char root[PATH_MAX];
  inlet_storage *st;
  open_st(t, root, &st);
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_LATEST, 0, &err), 0);
  char cp[PATH_MAX + 64];
  snprintf(cp, sizeof cp, "%s/_delta_log/00000000000000000003.checkpoint.parquet", root);
  const char other[] = "another writer's checkpoint";
  assert_int_equal(tu_write_file(cp, other, sizeof other - 1), 0);
  static inlet_storage_ops ops;
  inner_ops = st->ops;
  ops = *st->ops;
  ops.list_names = hiding_list_names;
  st->ops = &ops;
  assert_int_equal(delta_checkpoint_write_checked(st, &s, NULL, NULL, &err), INLET_EEXISTS);
  assert_non_null(strstr(inlet_errmsg(&err), "concurrently"));
  st->ops = inner_ops;
  size_t len = 0;
  char *got = tu_read_file(cp, &len);
  assert_int_equal(len, sizeof other - 1);
  assert_memory_equal(got, other, len);
  free(got);
  /* Nothing of inlet's attempt is left behind. */
  tu_result r;
  tu_sh(&r, "ls -a '%s/_delta_log' | grep -c tmp; true", root);
  assert_int_equal(atoi(r.out), 0);
  tu_result_free(&r);
  delta_snapshot_reset(&s);
  st->ops->free(st);
}

/* Another writer checkpoints version 4 the moment its commit is published
 * (between the commit and the committing writer's own checkpoint). */
static char race_cp[4300];
static const char race_bytes[] = "PAR1 written by someone else";
static int racing_put_if_absent(inlet_storage *s, const char *tmp, const char *final_path,
                                inlet_error *err) {
  int rc = inner_ops->put_if_absent(s, tmp, final_path, err);
  if (rc == 0 && strcmp(final_path, "_delta_log/00000000000000000004.json") == 0)
    assert_int_equal(tu_write_file(race_cp, race_bytes, sizeof race_bytes - 1), 0);
  return rc;
}

static void test_checkpoint_never_overwrites__automatic_checkpoint_keeps_existing(void **state) {
  (void)state;
  /* Interval 4: the append that makes version 4 checkpoints it. */
  const char *t = make_table("ckpt-keep-auto", "--property delta.checkpointInterval=4");
  tu_rules_exempt(t, "another writer's checkpoint is planted as junk on purpose");
  snprintf(race_cp, sizeof race_cp, "%s/_delta_log/00000000000000000004.checkpoint.parquet", t);
  inlet_table *tb = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  static inlet_storage_ops ops;
  inner_ops = tb->st->ops;
  ops = *tb->st->ops;
  ops.put_if_absent = racing_put_if_absent;
  tb->st->ops = &ops;
  inlet_schema sc;
  assert_int_equal(inlet_schema_parse(&sc, "id long, g string", &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &sc, &err), 0);
  assert_int_equal(inlet_array_append_int(&b.columns[0], &sc.fields[0], 9, &err), 0);
  assert_int_equal(inlet_array_append_bytes(&b.columns[1], &sc.fields[1], "c", 1, &err), 0);
  b.num_rows = 1;
  int64_t v = -1;
  if (inlet_table_append(tb, &b, 1, NULL, &v, &err) != 0)
    fail_msg("append: %s", inlet_errmsg(&err));
  assert_int_equal(v, 4);
  tb->st->ops = inner_ops;
  inlet_table_free(tb);
  inlet_batch_reset(&b);
  inlet_schema_reset(&sc);
  size_t len = 0;
  char *got = tu_read_file(race_cp, &len);
  assert_int_equal(len, sizeof race_bytes - 1);
  assert_memory_equal(got, race_bytes, len);
  free(got);
}

static void test_checkpoint_never_overwrites__last_checkpoint_never_moves_back(void **state) {
  (void)state;
  const char *t = make_table("ckpt-keep-hint", "");
  char hint[4300];
  snprintf(hint, sizeof hint, "%s/_delta_log/_last_checkpoint", t);
  const char newer[] = "{\"version\":20,\"size\":3}\n";
  assert_int_equal(tu_write_file(hint, newer, sizeof newer - 1), 0);
  LS_SH_OK("checkpoint", "'%2$s' checkpoint '%1$s'", t, INLET_BIN);
  char *got = tu_read_file(hint, NULL);
  assert_string_equal(got, newer);
  free(got);
  /* An older hint is moved forward to the new checkpoint. */
  const char older[] = "{\"version\":1,\"size\":3}\n";
  assert_int_equal(tu_write_file(hint, older, sizeof older - 1), 0);
  LS_SH_OK("append", "cd '%s/..' && '%s' append t in.ndjson", t, INLET_BIN);
  LS_SH_OK("checkpoint", "'%2$s' checkpoint '%1$s'", t, INLET_BIN);
  got = tu_read_file(hint, NULL);
  assert_non_null(strstr(got, "\"version\":4"));
  free(got);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_checkpoint_never_overwrites__databricks_classic_checkpoint),
      cmocka_unit_test(test_checkpoint_never_overwrites__v2_checkpoint),
      cmocka_unit_test(test_checkpoint_never_overwrites__multi_part_checkpoint),
      cmocka_unit_test(test_checkpoint_never_overwrites__concurrent_checkpoint_wins_the_publish),
      cmocka_unit_test(test_checkpoint_never_overwrites__automatic_checkpoint_keeps_existing),
      cmocka_unit_test(test_checkpoint_never_overwrites__last_checkpoint_never_moves_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
