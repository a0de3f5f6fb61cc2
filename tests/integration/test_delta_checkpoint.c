/*
 * Checkpoints inlet writes: automatic every delta.checkpointInterval
 * commits and forced by `inlet checkpoint`. The independent reader
 * (refcheck, DuckDB-backed) must see the classic checkpoint and read every
 * version like inlet does; after the commits before the checkpoint are
 * deleted (log cleanup), both still read the latest version through it,
 * and time travel before it fails cleanly.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

static void compare_version(const char *dir, int v) {
  tu_result r;
  char vopt[32] = "";
  if (v >= 0) snprintf(vopt, sizeof vopt, "--version %d", v);
  tu_sh(&r,
        "cd '%s' && '%s' scan t %s --format ndjson > o.ndjson && '%s' '%s' delta t %s > ref.json"
        " && '%s' '%s' compare ref.json o.ndjson --ndjson",
        dir, INLET_BIN, vopt, INLET_NODE, INLET_REFCHECK, vopt, INLET_NODE, INLET_REFCHECK);
  sh_ok(&r, "scan vs refcheck delta");
  tu_result_free(&r);
}

static void test_checkpoint__interval_checkpoints_read_by_both_readers(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("delta-ckpt"));
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long not null, grp string, v double' "
        "--partition-by grp --property delta.checkpointInterval=3",
        dir, INLET_BIN);
  sh_ok(&r, "create");
  tu_result_free(&r);
  for (int i = 1; i <= 7; i++) {
    char rec[256];
    snprintf(rec, sizeof rec, "{\"id\":%d,\"grp\":\"g%d\",\"v\":%d.5}\n{\"id\":%d,\"grp\":null}\n",
             i, i % 2, i, 100 + i);
    char path[4200];
    snprintf(path, sizeof path, "%s/in.ndjson", dir);
    assert_int_equal(tu_write_file(path, rec, strlen(rec)), 0);
    tu_sh(&r, "cd '%s' && '%s' append t in.ndjson", dir, INLET_BIN);
    sh_ok(&r, "append");
    tu_result_free(&r);
  }
  char cp3[4300];
  snprintf(cp3, sizeof cp3, "%s/t/_delta_log/00000000000000000003.checkpoint.parquet", dir);
  /* checkpointInterval 3: version 3 got its checkpoint automatically. */
  char *probe = tu_read_file(cp3, NULL);
  assert_non_null(probe);
  free(probe);
  char hintp[4300];
  snprintf(hintp, sizeof hintp, "%s/t/_delta_log/_last_checkpoint", dir);
  char *hint = tu_read_file(hintp, NULL);
  assert_non_null(hint);
  assert_non_null(strstr(hint, "\"version\":6"));
  free(hint);
  /* refcheck sees the classic checkpoint at 6 and replays 7 after it. */
  tu_sh(&r, "cd '%s' && '%s' '%s' log t", dir, INLET_NODE, INLET_REFCHECK);
  sh_ok(&r, "refcheck log");
  json_t *log = json_loads(r.out, 0, NULL);
  assert_non_null(log);
  json_t *cp = json_object_get(log, "checkpoint");
  assert_int_equal(json_integer_value(json_object_get(cp, "version")), 6);
  assert_string_equal(json_string_value(json_object_get(cp, "kind")), "classic");
  assert_int_equal(json_integer_value(json_object_get(log, "num_active_files")), 14);
  json_decref(log);
  tu_result_free(&r);
  for (int v = 0; v <= 7; v++)
    compare_version(dir, v);

  /* Log cleanup: drop every commit before the checkpoint. */
  tu_sh(&r, "cd '%s/t/_delta_log' && rm 0000000000000000000[0-5].json", dir);
  sh_ok(&r, "cleanup");
  tu_result_free(&r);
  compare_version(dir, -1);
  compare_version(dir, 6);
  tu_sh(&r, "cd '%s' && '%s' scan t --version 2", dir, INLET_BIN);
  assert_int_equal(r.status, 3);
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' describe t --json", dir, INLET_BIN);
  sh_ok(&r, "describe");
  json_t *d = json_loads(r.out, 0, NULL);
  assert_int_equal(json_integer_value(json_object_get(d, "last_checkpoint")), 6);
  assert_int_equal(json_integer_value(json_object_get(d, "rows")), 14);
  json_decref(d);
  tu_result_free(&r);
  /* A forced checkpoint of the latest version. */
  tu_sh(&r, "cd '%s' && '%s' checkpoint t && ls t/_delta_log | grep -c checkpoint.parquet", dir,
        INLET_BIN);
  sh_ok(&r, "checkpoint");
  assert_non_null(strstr(r.out, "version 7"));
  tu_result_free(&r);
  compare_version(dir, -1);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_checkpoint__interval_checkpoints_read_by_both_readers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
