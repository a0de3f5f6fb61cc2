/*
 * Fault injection in the storage layer under commits: for every storage
 * operation a commit performs, fail it (alone, or as a crash that stops all
 * later I/O). Afterwards the table must stay readable, a failed commit must
 * leave nothing a reader sees, a reported success must be visible, and any
 * leftover file in _delta_log must be recognisable temp debris (".tmp-").
 * A version checksum (NNN.crc) is written after the commit is published: a
 * fault there never fails the commit, and a checksum that exists is whole
 * and agrees with the log.
 */
#include "testutil.h"

#include <stdio.h>
#include <sys/stat.h>

#include "delta/delta.h"
#include "delta/delta_crc.h"
#include "storage/fault.h"
#include "util/util.h"

#define PROTO "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}"
#define META                                                                                       \
  "{\"metaData\":{\"id\":\"f\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"              \
  "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[],"  \
  "\"configuration\":{}}}"

static int commit_line(inlet_storage *st, const char *root, int64_t read_version, const char *line,
                       int64_t *v, inlet_error *err) {
  delta_txn *t = NULL;
  int rc = delta_txn_begin(&t, st, root, read_version, "WRITE", err);
  if (rc < 0) return rc;
  delta_line_ctx ctx = {"test", 1, root};
  const char *p = line;
  while (*p && rc == 0) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    delta_action a;
    rc = delta_action_parse(&a, p, n, &ctx, err);
    if (rc == 0) rc = delta_txn_add_action(t, &a, err);
    delta_action_reset(&a);
    p += n + (e ? 1 : 0);
  }
  if (rc == 0) rc = delta_txn_commit(t, v, err);
  delta_txn_free(t);
  return rc;
}

static void check_debris_only(inlet_storage *st, const char *dir) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_dirent *ents = NULL;
  size_t n = 0;
  assert_int_equal(st->ops->list(st, "_delta_log", &ents, &n, &err), 0);
  for (size_t i = 0; i < n; i++) {
    const char *nm = ents[i].name;
    bool commit = strlen(nm) == 25 && strcmp(nm + 20, ".json") == 0;
    bool crc = strlen(nm) == 24 && strcmp(nm + 20, ".crc") == 0;
    bool debris = strncmp(nm, ".tmp-", 5) == 0;
    if (!commit && !crc && !debris) fail_msg("unexpected file in _delta_log: %s", nm);
    if (crc) {
      int64_t v = strtoll(nm, NULL, 10);
      delta_crc c;
      delta_snapshot s;
      char why[256] = "";
      assert_int_equal(delta_crc_read(&c, st, v, &err), 0);
      assert_int_equal(delta_snapshot_load(&s, st, dir, DELTA_SNAP_VERSION, v, &err), 0);
      if (delta_crc_check_snapshot(&c, &s, why, sizeof why) != 0) fail_msg("%s: %s", nm, why);
      delta_snapshot_reset(&s);
      delta_crc_reset(&c);
    }
  }
  inlet_dirents_free(ents, n);
}

static void run_faults(inlet_fault_mode mode) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("delta-fault"));
  /* Minimal hand-written actions under injected faults, no data files. */
  tu_rules_exempt(dir, "test_delta_fault: hand-written minimal actions, no data files");
  inlet_error err = INLET_ERROR_INIT;
  inlet_storage *posix = NULL, *fs = NULL;
  assert_int_equal(inlet_storage_posix_open(&posix, dir, false, &err), 0);
  assert_int_equal(inlet_storage_fault_wrap(&fs, posix, false, &err), 0);
  int64_t v = -1;
  assert_int_equal(commit_line(posix, dir, -1, PROTO "\n" META, &v, &err), 0);
  /* Count the operations of one clean commit. */
  inlet_fault_reset_counts(fs);
  assert_int_equal(commit_line(fs, dir, 0, "{\"add\":{\"path\":\"a\",\"size\":1}}", &v, &err), 0);
  int64_t ops = inlet_fault_count(fs, INLET_FAULT_ANY);
  assert_true(ops >= 4); /* create, append, close/sync, put_if_absent at least */
  int64_t version = 1, failures = 0;
  for (int64_t k = 0; k < ops + 2; k++) {
    char line[128];
    snprintf(line, sizeof line, "{\"add\":{\"path\":\"f%lld\",\"size\":1}}", (long long)k);
    inlet_fault_reset_counts(fs);
    inlet_fault_arm(fs, INLET_FAULT_ANY, k, mode);
    int rc = commit_line(fs, dir, version, line, &v, &err);
    inlet_fault_disarm(fs);
    delta_snapshot s;
    inlet_error e2 = INLET_ERROR_INIT;
    assert_int_equal(delta_snapshot_load(&s, posix, dir, DELTA_SNAP_LATEST, 0, &e2), 0);
    if (rc == 0) {
      assert_int_equal(v, version + 1);
      version++;
    } else {
      failures++;
      assert_int_equal(rc, INLET_EIO);
    }
    assert_int_equal(s.version, version);
    assert_int_equal(s.n_files, version); /* one file per successful commit */
    delta_snapshot_reset(&s);
    check_debris_only(posix, dir);
  }
  /* Every step up to the publish fails the commit; the checksum's steps
   * after it cannot. */
  assert_true(failures >= 4);
  fs->ops->free(fs);
  posix->ops->free(posix);
  tu_rmtree(dir);
}

static void test_fault__failed_step_leaves_nothing_visible(void **state) {
  (void)state;
  run_faults(INLET_FAULT_FAIL);
}

static void test_fault__crash_at_any_step_keeps_table_readable(void **state) {
  (void)state;
  run_faults(INLET_FAULT_STOP);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fault__failed_step_leaves_nothing_visible),
      cmocka_unit_test(test_fault__crash_at_any_step_keeps_table_readable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
