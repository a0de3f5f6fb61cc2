/*
 * Issue 12, "Smaller (low)", through the real binary:
 *   - `_delta_log/.tmp-*` files of killed writers are removed by vacuum and by
 *     maintain's log cleanup once a day old; a young one (a live writer's) is
 *     kept; nothing else in _delta_log is touched;
 *   - a 0-byte (or blank) commit file is a torn write: reading the table
 *     fails naming it, instead of skipping an "empty commit";
 *   - a file size of INT64_MAX in the log makes describe fail naming the
 *     file, never print a negative byte count;
 *   - 1e999 in a double column (and 1e39 in a float column) is a bad record
 *     with a clear reason, the same for NDJSON and CSV, for append and ingest;
 *     "Infinity" stays accepted;
 *   - one stray CSV quote costs one record: the lines it would have folded
 *     into one rejected record are read as their own records (append and
 *     ingest); a well-formed multi-line quoted field still reads whole.
 */
#include "testutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct fx {
  char dir[400];
  char table[512];
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("issue12_smaller"));
  snprintf(f->table, sizeof f->table, "%s/t", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

static void append_id1(const fx *f) {
  tu_result r;
  tu_sh(&r, "echo '{\"id\":1}' | '%s' append '%s' -", INLET_BIN, f->table);
  sh_ok(&r, "append");
  tu_result_free(&r);
}

static void create(const fx *f, const char *ddl) {
  tu_result r;
  tu_sh(&r, "'%s' create '%s' --schema '%s'", INLET_BIN, f->table, ddl);
  sh_ok(&r, "create");
  tu_result_free(&r);
}

static bool exists(const char *dir, const char *name) {
  char p[1200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  struct stat st;
  return stat(p, &st) == 0;
}

static void test_log_temps__old_removed_by_vacuum_and_maintain_young_kept(void **state) {
  fx *f = *state;
  create(f, "id long");
  append_id1(f);
  char log[700];
  snprintf(log, sizeof log, "%s/_delta_log", f->table);
  /* Debris of killed writers (a commit and a checkpoint temp), 2 days old;
   * a live writer's, just made; an unrelated dot file, old. */
  tu_result r;
  tu_sh(&r,
        "cd '%s' && echo x > .tmp-00000000000000000002-00aa.json && "
        "echo y > .tmp-00000000000000000002-00bb.checkpoint.parquet && "
        "echo z > .tmp-00000000000000000002-00cc.json && echo w > .keep-me && "
        "touch -d '2 days ago' .tmp-00000000000000000002-00aa.json "
        ".tmp-00000000000000000002-00bb.checkpoint.parquet .keep-me",
        log);
  sh_ok(&r, "debris");
  tu_result_free(&r);
  tu_sh(&r, "'%s' vacuum '%s' --dry-run", INLET_BIN, f->table);
  sh_ok(&r, "vacuum --dry-run");
  assert_non_null(strstr(r.out, "would delete _delta_log/.tmp-00000000000000000002-00aa.json"));
  tu_result_free(&r);
  assert_true(exists(log, ".tmp-00000000000000000002-00aa.json"));
  tu_sh(&r, "'%s' vacuum '%s'", INLET_BIN, f->table);
  sh_ok(&r, "vacuum");
  assert_non_null(strstr(r.out, "deleted _delta_log/.tmp-00000000000000000002-00aa.json"));
  assert_non_null(
      strstr(r.out, "deleted _delta_log/.tmp-00000000000000000002-00bb.checkpoint.parquet"));
  assert_null(strstr(r.out, "00cc"));
  tu_result_free(&r);
  assert_false(exists(log, ".tmp-00000000000000000002-00aa.json"));
  assert_false(exists(log, ".tmp-00000000000000000002-00bb.checkpoint.parquet"));
  assert_true(exists(log, ".tmp-00000000000000000002-00cc.json"));
  assert_true(exists(log, ".keep-me"));
  /* maintain (log cleanup on by default) does the same. */
  tu_sh(&r,
        "cd '%s' && echo x > .tmp-00000000000000000009-00dd.json && "
        "touch -d '25 hours ago' .tmp-00000000000000000009-00dd.json",
        log);
  sh_ok(&r, "debris 2");
  tu_result_free(&r);
  tu_sh(&r, "'%s' maintain '%s'", INLET_BIN, f->table);
  sh_ok(&r, "maintain");
  tu_result_free(&r);
  assert_false(exists(log, ".tmp-00000000000000000009-00dd.json"));
  assert_true(exists(log, ".tmp-00000000000000000002-00cc.json"));
  assert_true(exists(log, "00000000000000000001.json"));
  tu_sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, f->table);
  sh_ok(&r, "scan");
  assert_string_equal(r.out, "{\"id\":1}\n");
  tu_result_free(&r);
}

static void test_torn_commit__zero_byte_commit_is_an_error(void **state) {
  fx *f = *state;
  create(f, "id long");
  tu_rules_exempt(f->table, "a torn commit on purpose");
  append_id1(f);
  for (int blank = 0; blank < 2; blank++) {
    tu_result r;
    tu_sh(&r, "printf '%s' > '%s/_delta_log/00000000000000000002.json'", blank ? "\\n\\n" : "",
          f->table);
    sh_ok(&r, "torn commit");
    tu_result_free(&r);
    tu_sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, f->table);
    assert_int_equal(r.status, 5);
    assert_non_null(strstr(r.err, "00000000000000000002.json holds no action"));
    assert_non_null(strstr(r.err, "torn write"));
    tu_result_free(&r);
    /* A writer does not build on it either. */
    tu_sh(&r, "echo '{\"id\":2}' | '%s' append '%s' -", INLET_BIN, f->table);
    assert_int_equal(r.status, 5);
    assert_non_null(strstr(r.err, "torn write"));
    tu_result_free(&r);
  }
}

static void test_checked_sums__describe_int64_max_size_is_an_error(void **state) {
  fx *f = *state;
  create(f, "id long");
  tu_rules_exempt(f->table, "a hostile add on purpose");
  append_id1(f);
  tu_result r;
  tu_sh(&r,
        "echo '{\"add\":{\"path\":\"huge.parquet\",\"partitionValues\":{},"
        "\"size\":9223372036854775807,\"modificationTime\":1,\"dataChange\":true}}' "
        "> '%s/_delta_log/00000000000000000002.json'",
        f->table);
  sh_ok(&r, "hostile commit");
  tu_result_free(&r);
  tu_sh(&r, "'%s' describe '%s'", INLET_BIN, f->table);
  assert_int_equal(r.status, 5);
  assert_non_null(strstr(r.err, "huge.parquet"));
  assert_non_null(strstr(r.err, "overflow"));
  assert_null(strstr(r.out, "-9223372036854775"));
  tu_result_free(&r);
  tu_sh(&r, "'%s' describe '%s' --json", INLET_BIN, f->table);
  assert_int_equal(r.status, 5);
  assert_null(strstr(r.out, "\"bytes\": -"));
  tu_result_free(&r);
}

static void test_double_range__1e999_rejected_in_ndjson_and_csv(void **state) {
  fx *f = *state;
  create(f, "id long, d double, x float");
  char nd[700], csv[700];
  snprintf(nd, sizeof nd, "%s/in.ndjson", f->dir);
  snprintf(csv, sizeof csv, "%s/in.csv", f->dir);
  FILE *fp = fopen(nd, "w");
  fputs("{\"id\":1,\"d\":1e999}\n{\"id\":2,\"d\":-1e999}\n{\"id\":3,\"x\":1e39}\n"
        "{\"id\":4,\"d\":\"Infinity\",\"x\":\"-Infinity\"}\n{\"id\":5,\"d\":1.5e308,\"x\":3e38}\n"
        "{\"id\":6,\"d\":1e-999}\n",
        fp);
  fclose(fp);
  fp = fopen(csv, "w");
  fputs("id,d,x\n1,1e999,\n2,-1e999,\n3,,1e39\n4,Infinity,-Infinity\n5,1.5e308,3e38\n6,1e-999,\n",
        fp);
  fclose(fp);
  const char *inputs[] = {nd, csv};
  for (int i = 0; i < 2; i++) {
    tu_result r;
    tu_sh(&r, "'%s' append '%s' '%s' --skip-bad", INLET_BIN, f->table, inputs[i]);
    sh_ok(&r, "append");
    assert_non_null(strstr(r.out, "appended 3 rows"));
    assert_non_null(strstr(r.err, i ? "line 2: skipped bad record: field \"d\": number 1e999"
                                    : "line 1: skipped bad record: field \"d\": number 1e999"));
    assert_non_null(strstr(r.err, "field \"d\": number 1e999 is out of the range of a double"));
    assert_non_null(strstr(r.err, "field \"d\": number -1e999 is out of the range of a double"));
    assert_non_null(strstr(r.err, "field \"x\": number 1e39 is out of the range of a float"));
    tu_result_free(&r);
  }
  /* Ingest: the same records become dead letters with the same reason. */
  tu_result r;
  tu_sh(&r,
        "'%s' ingest '%s' --source 'file:%s' --once --app-id N && "
        "cat '%s'/_errors/N/*.ndjson | grep -c 'out of the range of a'",
        INLET_BIN, f->table, nd, f->table);
  sh_ok(&r, "ingest");
  assert_int_equal(strtoll(r.out, NULL, 10), 3);
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --format ndjson --columns id,d,x | sort | uniq -c", INLET_BIN,
        f->table);
  sh_ok(&r, "scan");
  assert_non_null(strstr(r.out, "3 {\"id\":4,\"d\":\"Infinity\",\"x\":\"-Infinity\"}"));
  assert_non_null(strstr(r.out, "3 {\"id\":6,\"d\":0,\"x\":null}"));
  assert_null(strstr(r.out, "\"id\":1,"));
  tu_result_free(&r);
}

static void test_csv_stray_quote__lines_reported_separately(void **state) {
  fx *f = *state;
  create(f, "id long, s string");
  char csv[700];
  snprintf(csv, sizeof csv, "%s/in.csv", f->dir);
  FILE *fp = fopen(csv, "w");
  /* line 2: a stray quote opening a field; line 4: a quote inside an
   * unquoted field (inches); line 6-7: a real multi-line field; line 9 a
   * stray quote that a later quote "closes" (line 11). */
  fputs("id,s\n"
        "1,\"abc\n"
        "2,def\n"
        "3,12\" pipe\n"
        "4,ghi\n"
        "5,\"two\n"
        "lines\"\n"
        "6,jkl\n"
        "7,\"open\n"
        "8,mno\n"
        "9,\"pqr\"\n"
        "10,stu\n",
        fp);
  fclose(fp);
  tu_result r;
  tu_sh(&r, "'%s' append '%s' '%s' --skip-bad", INLET_BIN, f->table, csv);
  sh_ok(&r, "append");
  assert_non_null(strstr(r.out, "appended 7 rows"));
  assert_non_null(strstr(r.err, "line 2: skipped bad record: unterminated quoted CSV field"));
  assert_non_null(strstr(r.err, "line 4: skipped bad record: quote inside an unquoted CSV"));
  assert_non_null(strstr(r.err, "line 9: skipped bad record: unterminated quoted CSV field"));
  assert_non_null(strstr(r.out, "(3 bad records skipped)"));
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --format ndjson --columns id | sort -t: -k2 -n | tr -d '\\n'",
        INLET_BIN, f->table);
  sh_ok(&r, "scan");
  assert_string_equal(r.out, "{\"id\":2}{\"id\":4}{\"id\":5}{\"id\":6}{\"id\":8}{\"id\":9}"
                             "{\"id\":10}");
  tu_result_free(&r);
  /* The multi-line field came through whole. */
  tu_sh(&r, "'%s' scan '%s' --format ndjson | grep -c 'two\\\\nlines'", INLET_BIN, f->table);
  assert_int_equal(strtoll(r.out, NULL, 10), 1);
  tu_result_free(&r);
  /* Ingest (--once): the same three rejected records, each alone. */
  tu_rmtree(f->table);
  create(f, "id long, s string");
  tu_sh(&r,
        "'%s' ingest '%s' --source 'file:%s' --format csv --once --app-id Q && "
        "cat '%s'/_errors/Q/*.ndjson",
        INLET_BIN, f->table, csv, f->table);
  sh_ok(&r, "ingest");
  int lines = 0;
  for (const char *p = r.out; (p = strchr(p, '\n')) != NULL; p++)
    lines++;
  assert_int_equal(lines, 3);
  assert_non_null(strstr(r.out, "\"record\":\"1,\\\"abc\""));
  assert_non_null(strstr(r.out, "\"record\":\"7,\\\"open\""));
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --format ndjson --columns id | wc -l", INLET_BIN, f->table);
  assert_int_equal(strtoll(r.out, NULL, 10), 7);
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_log_temps__old_removed_by_vacuum_and_maintain_young_kept,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_torn_commit__zero_byte_commit_is_an_error, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_checked_sums__describe_int64_max_size_is_an_error, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_double_range__1e999_rejected_in_ndjson_and_csv, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_csv_stray_quote__lines_reported_separately, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
