/*
 * Issue 11 §2: log cleanup never loses another writer's state.
 *
 * - delta-rs's checkpoint-v2-table (Databricks: UUID-named v2 checkpoints
 *   with Parquet sidecars), every file expired: the v2 checkpoint at 8
 *   stands in for the commits below it, which go with the v2 checkpoint at
 *   6 and the sidecar only it named; checkpoint 8, its sidecar,
 *   `_autostats` and `_last_checkpoint` stay byte for byte.
 * - The boundary checkpoint must be readable: with the newest checkpoint
 *   truncated, the commits after the previous one are kept and the table
 *   still reads.
 * - Log compaction files ending below the boundary go with the commits, as
 *   does an expired v2 checkpoint below it and a sidecar no checkpoint
 *   names; a compaction reaching past it, and names cleanup does not know,
 *   stay.
 */
#include "log_support.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "delta/delta.h"
#include "util/util.h"

static void open_st(const char *path, char root[PATH_MAX], inlet_storage **st) {
  assert_non_null(realpath(path, root));
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_posix_open(st, root, false, &err), 0);
}

static delta_log_cleanup_result cleanup(inlet_storage *st, const char *root) {
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_LATEST, 0, &err), 0);
  delta_log_cleanup_result res;
  if (delta_log_cleanup(&res, st, &s, -1, 0, false, &err) != 0)
    fail_msg("cleanup: %s", inlet_errmsg(&err));
  delta_snapshot_reset(&s);
  return res;
}

static bool exists(const char *root, const char *rel) {
  char p[PATH_MAX + 256];
  if (snprintf(p, sizeof p, "%s/%s", root, rel) >= (int)sizeof p)
    fail_msg("path too long: %s", rel);
  struct stat sb;
  return stat(p, &sb) == 0;
}

static void test_log_cleanup_keeps_foreign_state__v2_checkpoints_and_sidecars(void **state) {
  (void)state;
  const char *t = ls_copy_table("delta-rs/checkpoint-v2-table", "cleanup-v2");
  char root[PATH_MAX];
  inlet_storage *st;
  open_st(t, root, &st);
  /* The table reads from Databricks' v2 checkpoint at 8 (JSON, one Parquet
   * sidecar), also with the commits before it gone. */
  {
    delta_snapshot s0;
    inlet_error e0 = INLET_ERROR_INIT;
    assert_int_equal(delta_snapshot_load(&s0, st, root, DELTA_SNAP_LATEST, 0, &e0), 0);
    assert_int_equal(s0.version, 9);
    delta_snapshot_reset(&s0);
  }
  ls_age(root, 60);
  tu_result r;
  tu_sh(&r,
        "cd '%s/_delta_log' && sha256sum 00000000000000000008.checkpoint.*.json "
        "_sidecars/00000000000000000008.* _autostats/*",
        root);
  ls_sh_ok(&r, "digest kept v2 files");
  char *kept = strdup(r.out);
  tu_result_free(&r);
  /* Every file expired: the boundary is the v2 checkpoint at 8 (readable,
   * its sidecar opens). Below it go the commits, checksums, the v2
   * checkpoint at 6, and then the sidecar only that checkpoint named. */
  delta_log_cleanup_result res = cleanup(st, root);
  assert_int_equal(res.oldest_kept, 8);
  assert_int_equal(res.commits_removed, 8);
  assert_int_equal(res.checkpoints_removed, 1);
  assert_int_equal(res.sidecars_removed, 1);
  tu_sh(&r, "cd '%s/_delta_log' && find . -type f | LC_ALL=C sort | tr '\\n' ' '", root);
  ls_sh_ok(&r, "list log");
  assert_string_equal(
      r.out, "./00000000000000000008.checkpoint.e5ac4dc4-be27-4106-8a55-609707487f83.json "
             "./00000000000000000008.crc ./00000000000000000008.json "
             "./00000000000000000009.crc ./00000000000000000009.json "
             "./_autostats/00000000000000000007.0000000000.stats.json "
             "./_last_checkpoint "
             "./_sidecars/"
             "00000000000000000008.checkpoint.0000000001.0000000001.d55fb2cb-b8d3-4362-8572-"
             "c52142a9da1f.parquet ");
  tu_result_free(&r);
  tu_sh(&r,
        "cd '%s/_delta_log' && sha256sum 00000000000000000008.checkpoint.*.json "
        "_sidecars/00000000000000000008.* _autostats/*",
        root);
  ls_sh_ok(&r, "digest kept v2 files");
  assert_string_equal(kept, r.out);
  tu_result_free(&r);
  free(kept);
  /* Still readable, from the checkpoint at 8 and commit 9. */
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.version, 9);
  assert_int_equal(s.checkpoint_version, 8);
  delta_snapshot_reset(&s);
  /* A second run finds nothing more to remove. */
  res = cleanup(st, root);
  assert_int_equal(res.commits_removed + res.checkpoints_removed + res.sidecars_removed, 0);
  st->ops->free(st);
}

/* An inlet table with checkpoints at 2, 4 and 6 (version 7), every file
 * expired. */
static const char *expired_table(const char *tag) {
  static char t[4200];
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp(tag));
  snprintf(t, sizeof t, "%s/t", dir);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long' --property delta.checkpointInterval=2 && "
        "printf '{\"id\":1}\\n' > in.ndjson && "
        "for i in 1 2 3 4 5 6 7; do '%s' append t in.ndjson >/dev/null || exit 1; done",
        dir, INLET_BIN, INLET_BIN);
  ls_sh_ok(&r, "make table");
  tu_result_free(&r);
  ls_age(t, 60);
  return t;
}

static void test_log_cleanup_keeps_foreign_state__boundary_must_be_readable(void **state) {
  (void)state;
  const char *t = expired_table("cleanup-unreadable");
  tu_rules_exempt(t, "a checkpoint truncated on purpose");
  char root[PATH_MAX];
  inlet_storage *st;
  open_st(t, root, &st);
  tu_result r;
  tu_sh(&r,
        "cd '%s/_delta_log' && ls *.checkpoint.parquet | tr '\\n' ' ' && "
        "truncate -s 20 00000000000000000006.checkpoint.parquet && "
        "touch -d @%lld 00000000000000000006.checkpoint.parquet",
        root, (long long)time(NULL) - 60LL * 86400);
  ls_sh_ok(&r, "truncate checkpoint 6");
  assert_string_equal(r.out, "00000000000000000002.checkpoint.parquet "
                             "00000000000000000004.checkpoint.parquet "
                             "00000000000000000006.checkpoint.parquet ");
  tu_result_free(&r);
  delta_log_cleanup_result res = cleanup(st, root);
  /* Checkpoint 6 cannot stand in for anything: 4 is the boundary. */
  assert_int_equal(res.oldest_kept, 4);
  for (int v = 0; v <= 7; v++) {
    char name[64];
    snprintf(name, sizeof name, "_delta_log/%020d.json", v);
    assert_int_equal(exists(root, name), v >= 4);
  }
  /* inlet reads past the broken checkpoint; so does refcheck (which takes a
   * broken newest checkpoint for a broken table) once it is gone, from
   * checkpoint 4 and the commits kept after it. */
  tu_sh(&r,
        "'%s' scan '%s' --format ndjson | wc -l && rm '%s'/_delta_log/*6.checkpoint.parquet && "
        "'%s' '%s' delta '%s' | grep -c '^\\['",
        INLET_BIN, root, root, INLET_NODE, INLET_REFCHECK, root);
  ls_sh_ok(&r, "read after cleanup");
  assert_string_equal(r.out, "7\n7\n");
  tu_result_free(&r);
  st->ops->free(st);
}

static void test_log_cleanup_keeps_foreign_state__compactions_and_unknown_names(void **state) {
  (void)state;
  const char *t = expired_table("cleanup-kinds");
  tu_rules_exempt(t, "log names cleanup must not know, on purpose");
  char root[PATH_MAX];
  inlet_storage *st;
  open_st(t, root, &st);
  static const char *const extra[] = {
      "00000000000000000000.00000000000000000001.compacted.json",      /* ends below 6: goes */
      "00000000000000000003.00000000000000000006.compacted.json",      /* reaches 6: stays */
      "00000000000000000001.checkpoint.0000000001.0000000002.parquet", /* partial, below: goes */
      "00000000000000000001.checkpoint.not-a-kind.parquet",            /* unknown: stays */
      "00000000000000000001.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json", /* v2: goes */
      /* named by no checkpoint left, older than a day and the retention */
      "_sidecars/3a0d65cd-4056-49b8-937b-95f9e3ee90e5.parquet", /* goes */
      "_staged_commits/00000000000000000001.uuid.json",         /* stays */
  };
  static const bool stays[] = {false, true, false, true, false, false, true};
  for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/_delta_log/%s", root, extra[i]);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    mkdir(p, 0755);
    *slash = '/';
    assert_int_equal(tu_write_file(p, "x", 1), 0);
  }
  ls_age(root, 60);
  delta_log_cleanup_result res = cleanup(st, root);
  assert_int_equal(res.oldest_kept, 6);
  assert_int_equal(res.commits_removed, 6);
  assert_int_equal(res.sidecars_removed, 1);
  for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
    char rel[512];
    snprintf(rel, sizeof rel, "_delta_log/%s", extra[i]);
    if (exists(root, rel) != stays[i]) fail_msg("%s should %s", extra[i], stays[i] ? "stay" : "go");
  }
  st->ops->free(st);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_log_cleanup_keeps_foreign_state__v2_checkpoints_and_sidecars),
      cmocka_unit_test(test_log_cleanup_keeps_foreign_state__boundary_must_be_readable),
      cmocka_unit_test(test_log_cleanup_keeps_foreign_state__compactions_and_unknown_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
