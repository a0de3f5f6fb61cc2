/*
 * `inlet demo` (issue 7, "The walkthrough"): runs the real binary, checks its
 * exit code and evidence lines, then verifies the table it left with refcheck
 * (the DuckDB-based reader that shares no code with inlet): 200 rows now, 120
 * at version 5, one live file and 11 commits at version 10, versions 0..9
 * written by the ingester (txn actions present). Expected values come from
 * the walkthrough's specification (10 batches of 20 events), not from the
 * demo's output. Also: the same seed gives the same events, a non-demo
 * directory is refused, `inlet ingest --create-schema` creates a table with
 * its first batch, and two ingesters racing to create it both land once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void run_demo(tu_result *r, const char *dir, const char *seed) {
  tu_sh(r, "'%s' demo '%s' %s%s", INLET_BIN, dir, seed ? "--seed " : "", seed ? seed : "");
}

/* Count of '\n'-terminated lines starting with '[' in refcheck delta output. */
static int refcheck_rows(const char *table, int version) {
  tu_result r;
  if (version >= 0)
    tu_sh(&r, "'%s' '%s' delta '%s' --version %d", INLET_NODE, INLET_REFCHECK, table, version);
  else
    tu_sh(&r, "'%s' '%s' delta '%s'", INLET_NODE, INLET_REFCHECK, table);
  if (r.status != 0) fail_msg("refcheck delta %s: %s %s", table, r.out, r.err);
  int rows = 0;
  for (const char *p = r.out; (p = strstr(p, "\n[")) != NULL; p++)
    rows++;
  tu_result_free(&r);
  return rows;
}

static void test_demo__evidence_and_refcheck(void **state) {
  (void)state;
  char *base = tu_mkdtemp("demo");
  char dir[4096], table[4200];
  snprintf(dir, sizeof dir, "%s/walk", base);
  snprintf(table, sizeof table, "%s/table", dir);
  tu_result r;
  run_demo(&r, dir, NULL);
  if (r.status != 0) fail_msg("demo exited %d: %s\n%s", r.status, r.out, r.err);
  assert_null(strstr(r.out, "MISMATCH"));
  assert_non_null(strstr(r.out, "demo OK"));
  assert_non_null(strstr(r.out, "total rows                                   200"));
  assert_non_null(strstr(r.out, "files                                        10 "));
  assert_non_null(strstr(r.out, "rows at version 5 (6 batches)                120"));
  assert_non_null(strstr(r.out, "compactions                                  1 "));
  assert_non_null(strstr(r.out, "delta_scan('"));
  assert_non_null(strstr(r.out, "spark.read.format(\"delta\").load("));
  tu_result_free(&r);

  /* Independently: DuckDB reads what the demo wrote. */
  assert_int_equal(refcheck_rows(table, -1), 200);
  assert_int_equal(refcheck_rows(table, 5), 120);
  assert_int_equal(refcheck_rows(table, 9), 200);
  tu_sh(&r, "'%s' '%s' log '%s'", INLET_NODE, INLET_REFCHECK, table);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "\"version\": 10"));
  assert_non_null(strstr(r.out, "\"num_active_files\": 1"));
  assert_non_null(strstr(r.out, "\"commit_count\": 11"));
  assert_non_null(strstr(r.out, "\"inlet.ingest.lateFlagColumn\": \"is_late\""));
  tu_result_free(&r);
  /* Version 0 created the table and held the first batch: one add, a txn. */
  tu_sh(&r, "'%s' '%s' log '%s' --version 0", INLET_NODE, INLET_REFCHECK, table);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "\"num_active_files\": 1"));
  assert_non_null(strstr(r.out, "inlet-ingest:file:"));
  tu_result_free(&r);
  /* 20 rows per batch, 2 of them late: refcheck sees 20 flagged rows. */
  tu_sh(&r, "'%s' '%s' delta '%s' | grep -c ',true\\]'", INLET_NODE, INLET_REFCHECK, table);
  assert_int_equal(atoi(r.out), 20);
  tu_result_free(&r);

  /* The closing lines' commands work as printed. */
  tu_sh(&r, "'%s' scan '%s' --where \"is_late = true\" | wc -l", INLET_BIN, table);
  assert_int_equal(atoi(r.out), 20);
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --version 5 --format csv | wc -l", INLET_BIN, table);
  assert_int_equal(atoi(r.out), 121); /* header + 120 rows */
  tu_result_free(&r);

  /* A second run reuses the demo directory. */
  run_demo(&r, dir, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "demo OK"));
  tu_result_free(&r);
  assert_int_equal(refcheck_rows(table, -1), 200);
  tu_rmtree(base);
}

static void test_demo__same_seed_same_events(void **state) {
  (void)state;
  char *base = tu_mkdtemp("demo-seed");
  char a[4096], b[4096], c[4096];
  snprintf(a, sizeof a, "%s/a", base);
  snprintf(b, sizeof b, "%s/b", base);
  snprintf(c, sizeof c, "%s/c", base);
  tu_result r;
  run_demo(&r, a, "7");
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  run_demo(&r, b, "7");
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  run_demo(&r, c, "8");
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  tu_sh(&r, "cmp -s '%s/events.ndjson' '%s/events.ndjson'", a, b);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  tu_sh(&r, "cmp -s '%s/events.ndjson' '%s/events.ndjson'", a, c);
  assert_int_not_equal(r.status, 0);
  tu_result_free(&r);
  tu_rmtree(base);
}

static void test_demo__refuses_a_foreign_directory(void **state) {
  (void)state;
  char *base = tu_mkdtemp("demo-foreign");
  char dir[4096], keep[4200];
  snprintf(dir, sizeof dir, "%s/mine", base);
  snprintf(keep, sizeof keep, "%s/precious.txt", dir);
  tu_result r;
  tu_sh(&r, "mkdir -p '%s' && echo data > '%s'", dir, keep);
  tu_result_free(&r);
  run_demo(&r, dir, NULL);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "not a previous demo"));
  tu_result_free(&r);
  char *kept = tu_read_file(keep, NULL);
  assert_non_null(kept);
  assert_string_equal(kept, "data\n");
  free(kept);
  run_demo(&r, dir, "nope");
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  tu_rmtree(base);
}

static void test_demo__ingest_create_schema_makes_version_0(void **state) {
  (void)state;
  char *base = tu_mkdtemp("demo-create");
  char src[4200], table[4200];
  snprintf(src, sizeof src, "%s/in.ndjson", base);
  snprintf(table, sizeof table, "%s/t", base);
  assert_int_equal(tu_write_file(src, "{\"id\":1}\n{\"id\":2}\n", 18), 0);
  tu_result r;
  tu_sh(&r, "'%s' ingest '%s' --source 'file:%s' --once --quiet --create-schema 'id long'",
        INLET_BIN, table, src);
  if (r.status != 0) fail_msg("ingest: %s", r.err);
  tu_result_free(&r);
  /* More records; the same command resumes and does not re-create. */
  tu_sh(&r,
        "echo '{\"id\":3}' >> '%s' && '%s' ingest '%s' --source 'file:%s' --once --quiet "
        "--create-schema 'id long'",
        src, INLET_BIN, table, src);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  assert_int_equal(refcheck_rows(table, 0), 2);
  assert_int_equal(refcheck_rows(table, -1), 3);
  tu_sh(&r, "'%s' '%s' log '%s'", INLET_NODE, INLET_REFCHECK, table);
  assert_non_null(strstr(r.out, "\"commit_count\": 2"));
  tu_result_free(&r);
  /* Without --create-schema a missing table is still an error. */
  tu_sh(&r, "'%s' ingest '%s/none' --source 'file:%s' --once --quiet", INLET_BIN, base, src);
  assert_int_equal(r.status, 3);
  tu_result_free(&r);
  tu_rmtree(base);
}

/* Two ingesters (different sources) both creating the table: one commits
 * version 0, the other finds it there, replays its batch as version 1. */
static void test_demo__concurrent_creators_both_land_once(void **state) {
  (void)state;
  char *base = tu_mkdtemp("demo-race");
  char a[4200], b[4200], table[4200];
  snprintf(a, sizeof a, "%s/a.ndjson", base);
  snprintf(b, sizeof b, "%s/b.ndjson", base);
  snprintf(table, sizeof table, "%s/t", base);
  tu_result r;
  tu_sh(&r,
        "seq 1 50 | sed 's/.*/{\"id\":&}/' > '%s' && seq 51 100 | sed 's/.*/{\"id\":&}/' "
        "> '%s'",
        a, b);
  tu_result_free(&r);
  for (int round = 0; round < 3; round++) {
    tu_sh(&r,
          "rm -rf '%s'; for s in '%s' '%s'; do '%s' ingest '%s' --source \"file:$s\" --once "
          "--quiet --create-schema 'id long' & done; wait; ls '%s/_delta_log' | grep -c json; "
          "find '%s' -name '*.parquet' | wc -l",
          table, a, b, INLET_BIN, table, table, table);
    assert_int_equal(r.status, 0);
    int commits = 0, files = 0;
    assert_int_equal(sscanf(r.out, "%d %d", &commits, &files), 2);
    assert_int_equal(commits, 2);
    assert_int_equal(files, 2); /* the loser's first attempt left no orphan */
    tu_result_free(&r);
    assert_int_equal(refcheck_rows(table, -1), 100);
  }
  tu_rmtree(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_demo__evidence_and_refcheck),
      cmocka_unit_test(test_demo__same_seed_same_events),
      cmocka_unit_test(test_demo__refuses_a_foreign_directory),
      cmocka_unit_test(test_demo__ingest_create_schema_makes_version_0),
      cmocka_unit_test(test_demo__concurrent_creators_both_land_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
