/*
 * `inlet scan` from the command line (issue 7): --columns, --where, --limit,
 * the output formats (csv, ndjson as the non-terminal default, parquet read
 * back by refcheck/DuckDB), --output, --explain, and the exit code and caret
 * message of a malformed --where.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  char dir[4096];
} fixture;

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

static void run_ok(fixture *f, tu_result *r, const char *cmd) {
  tu_sh(r, "cd '%s' && %s", f->dir, cmd);
  sh_ok(r, cmd);
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("scan-cli"));
  const char *rows1 = "{\"id\":1,\"user\":\"ann\",\"amount\":\"1.50\",\"day\":\"2024-03-01\"}\n"
                      "{\"id\":2,\"user\":null,\"amount\":\"2.25\",\"day\":\"2024-03-01\"}\n"
                      "{\"id\":3,\"user\":\"bob, jr\",\"amount\":null,\"day\":\"2024-03-02\"}\n";
  const char *rows2 = "{\"id\":4,\"user\":\"cy\",\"amount\":\"4.00\",\"day\":\"2024-03-02\"}\n"
                      "{\"id\":5,\"user\":\"dee\",\"amount\":\"-5.50\",\"day\":null}\n"
                      "{\"id\":6,\"user\":\"o'neil\",\"amount\":\"6.00\",\"day\":\"2024-03-03\"}\n";
  char p[4300];
  snprintf(p, sizeof p, "%s/a.ndjson", f->dir);
  assert_int_equal(tu_write_file(p, rows1, strlen(rows1)), 0);
  snprintf(p, sizeof p, "%s/b.ndjson", f->dir);
  assert_int_equal(tu_write_file(p, rows2, strlen(rows2)), 0);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long, user string, amount decimal(8,2), day date' "
        "--partition-by day >/dev/null && '%s' append t a.ndjson >/dev/null && '%s' append t "
        "b.ndjson >/dev/null",
        f->dir, INLET_BIN, INLET_BIN, INLET_BIN);
  sh_ok(&r, "create + append");
  tu_result_free(&r);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void test_scan_cli__columns_where_csv(void **state) {
  fixture *f = *state;
  tu_result r;
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "'%s' scan t --format csv --columns amount,id --where \"id >= 2 AND (user IS NULL OR "
           "user LIKE_NOT_HERE = 1)\"",
           INLET_BIN);
  /* A malformed predicate: exit 2, the column and a caret on stderr. */
  tu_sh(&r, "cd '%s' && %s", f->dir, cmd);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "column 35: expected"));
  assert_non_null(strstr(r.err, "\n                                    ^"));
  assert_string_equal(r.out, "");
  tu_result_free(&r);

  snprintf(cmd, sizeof cmd,
           "'%s' scan t --format csv --columns amount,id,user --where \"id >= 2 AND (user IS NULL "
           "OR user IN ('bob, jr', 'o''neil')) AND day != '2024-03-03' OR amount < -5\"",
           INLET_BIN);
  run_ok(f, &r, cmd);
  /* Files come in path order: day=2024-03-01, day=2024-03-02, then the null partition. */
  assert_string_equal(r.out, "amount,id,user\n2.25,2,\n,3,\"bob, jr\"\n-5.50,5,dee\n");
  tu_result_free(&r);
}

static void test_scan_cli__default_ndjson_limit_and_output(void **state) {
  fixture *f = *state;
  tu_result r;
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' scan t --columns id --where 'id = 2 OR id >= 5' --limit 2",
           INLET_BIN);
  run_ok(f, &r, cmd);
  /* Path order: day=2024-03-01, day=2024-03-03, then the null partition (5). */
  assert_string_equal(r.out, "{\"id\":2}\n{\"id\":6}\n");
  tu_result_free(&r);
  snprintf(cmd, sizeof cmd,
           "'%s' scan t --columns user --where \"day = '2024-03-02'\" --format csv --output o.csv "
           "&& LC_ALL=C sort o.csv",
           INLET_BIN);
  run_ok(f, &r, cmd);
  assert_string_equal(r.out, "\"bob, jr\"\ncy\nuser\n"); /* sorted: two files, uuid order */
  tu_result_free(&r);
}

/* json (one array) and markdown, the format taken from --output's extension,
 * and --force (an existing file is replaced only when asked). */
static void test_scan_cli__json_markdown_extension_and_force(void **state) {
  fixture *f = *state;
  tu_result r;
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' scan t --columns id,user --where 'id <= 3' --format json",
           INLET_BIN);
  run_ok(f, &r, cmd);
  assert_string_equal(r.out, "[\n{\"id\":1,\"user\":\"ann\"},\n{\"id\":2,\"user\":null},\n{\"id\":"
                             "3,\"user\":\"bob, jr\"}\n]\n");
  tu_result_free(&r);
  snprintf(cmd, sizeof cmd, "'%s' scan t --where 'id > 100' --format json", INLET_BIN);
  run_ok(f, &r, cmd);
  assert_string_equal(r.out, "[]\n");
  tu_result_free(&r);
  snprintf(cmd, sizeof cmd,
           "'%s' scan t --columns id,user,amount --where 'id <= 3' --format markdown", INLET_BIN);
  run_ok(f, &r, cmd);
  assert_string_equal(r.out, "| id | user | amount |\n| ---: | --- | ---: |\n| 1 | ann | 1.50 |\n"
                             "| 2 | NULL | 2.25 |\n| 3 | bob, jr | NULL |\n");
  tu_result_free(&r);
  /* Markdown escapes '|' and tells an empty string from null. */
  snprintf(cmd, sizeof cmd,
           "printf '{\"s\":\"a|b\"}\\n{\"s\":\"\"}\\n{\"s\":null}\\n' > u.ndjson && '%s' create u "
           "--schema 's string' >/dev/null && '%s' append u u.ndjson >/dev/null && '%s' scan u "
           "--format md",
           INLET_BIN, INLET_BIN, INLET_BIN);
  run_ok(f, &r, cmd);
  assert_string_equal(r.out, "| s |\n| --- |\n| a\\|b |\n| \"\" |\n| NULL |\n");
  tu_result_free(&r);

  /* The extension picks the format. */
  snprintf(cmd, sizeof cmd,
           "'%s' scan t --columns id --where 'id = 4' --output o.json && cat o.json && '%s' scan "
           "t --columns id --where 'id = 4' --output o.md && cat o.md && '%s' scan t --columns id "
           "--where 'id = 4' --output o.parquet && head -c 4 o.parquet",
           INLET_BIN, INLET_BIN, INLET_BIN);
  run_ok(f, &r, cmd);
  assert_string_equal(r.out, "[\n{\"id\":4}\n]\n| id |\n| ---: |\n| 4 |\nPAR1");
  tu_result_free(&r);

  /* An existing --output: exit 2 naming --force, the file untouched; then replaced. */
  const char *formats[] = {"json", "csv", "parquet"};
  for (int i = 0; i < 3; i++) {
    snprintf(cmd, sizeof cmd,
             "cd '%s' && printf keep > keep.out && '%s' scan t --format %s --output keep.out",
             f->dir, INLET_BIN, formats[i]);
    tu_sh(&r, "%s", cmd);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--force"));
    tu_result_free(&r);
    tu_sh(&r, "cd '%s' && cat keep.out", f->dir);
    assert_string_equal(r.out, "keep");
    tu_result_free(&r);
    snprintf(cmd, sizeof cmd,
             "'%s' scan t --columns id --where 'id = 6' --format %s --output keep.out --force && "
             "head -c 4 keep.out",
             INLET_BIN, formats[i]);
    run_ok(f, &r, cmd);
    assert_string_equal(r.out, i == 0 ? "[\n{\"" : i == 1 ? "id\n6" : "PAR1");
    tu_result_free(&r);
  }
  /* The replacement went through a temporary file that is gone. */
  tu_sh(&r, "cd '%s' && ls -a | grep -c 'inlet-'", f->dir);
  assert_string_equal(r.out, "0\n");
  tu_result_free(&r);
  /* --explain to a file follows the same rule. */
  tu_sh(&r, "cd '%s' && '%s' scan t --explain --output keep.out", f->dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
}

static void test_scan_cli__parquet_output_reads_back_in_duckdb(void **state) {
  fixture *f = *state;
  tu_result r;
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "'%s' scan t --columns id,amount,day --where 'amount >= 1.5' --format parquet "
           "--output sel.parquet && '%s' '%s' parquet sel.parquet",
           INLET_BIN, INLET_NODE, INLET_REFCHECK);
  run_ok(f, &r, cmd);
  assert_non_null(strstr(r.out, "[1,\"1.50\",\"2024-03-01\"],\n[2,\"2.25\",\"2024-03-01\"],\n"
                                "[4,\"4.00\",\"2024-03-02\"],\n[6,\"6.00\",\"2024-03-03\"]"));
  tu_result_free(&r);
  /* parquet without --output is a usage error. */
  tu_sh(&r, "cd '%s' && '%s' scan t --format parquet", f->dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--output"));
  tu_result_free(&r);
}

static void test_scan_cli__explain_counts_files(void **state) {
  fixture *f = *state;
  tu_result r;
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' scan t --explain --where \"day = '2024-03-02' AND id > 3\"",
           INLET_BIN);
  run_ok(f, &r, cmd);
  /* 5 files: 2 other days and the null day pruned; of the two 03-02
   * files, add.stats rule out the one holding only id 3. */
  assert_non_null(strstr(r.out, "files: 5 considered, 3 pruned by partition values, 1 skipped by "
                                "add.stats, 1 read\n"));
  assert_non_null(strstr(r.out, "rows: 1 decoded, 1 returned\n"));
  assert_non_null(strstr(r.out, ": pruned by partition values\n"));
  assert_non_null(strstr(r.out, ": skipped by add.stats\n"));
  tu_result_free(&r);
  snprintf(cmd, sizeof cmd, "'%s' scan t --columns nope", INLET_BIN);
  tu_sh(&r, "cd '%s' && %s", f->dir, cmd);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "no column named \"nope\""));
  tu_result_free(&r);
  snprintf(cmd, sizeof cmd, "'%s' scan --help", INLET_BIN);
  run_ok(f, &r, cmd);
  assert_non_null(strstr(r.out, "--where EXPR"));
  assert_non_null(strstr(r.out, "--explain"));
  tu_result_free(&r);
}

static void test_scan_cli__man_page_generated_from_help_texts(void **state) {
  fixture *f = *state;
  tu_result r;
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' help --man", INLET_BIN);
  run_ok(f, &r, cmd);
  assert_true(strncmp(r.out, ".TH INLET 1 ", 12) == 0);
  const char *sections[] = {".SS create\n",     ".SS append\n",  ".SS ingest\n",
                            ".SS scan\n",       ".SS history\n", ".SS describe\n",
                            ".SS compact\n",    ".SS vacuum\n",  ".SS parquet convert\n",
                            ".SH EXIT STATUS\n"};
  for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
    if (!strstr(r.out, sections[i])) fail_msg("man page lacks %s", sections[i]);
  /* The scan section is scan's --help, roff-escaped. */
  assert_non_null(strstr(r.out, "\\-\\-where EXPR"));
  tu_result_free(&r);
  snprintf(cmd, sizeof cmd, "'%s' help scan", INLET_BIN);
  run_ok(f, &r, cmd);
  assert_true(strncmp(r.out, "usage: inlet scan TABLE", 23) == 0);
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_scan_cli__columns_where_csv, setup, teardown),
      cmocka_unit_test_setup_teardown(test_scan_cli__default_ndjson_limit_and_output, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_scan_cli__json_markdown_extension_and_force, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_scan_cli__parquet_output_reads_back_in_duckdb, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_scan_cli__explain_counts_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_scan_cli__man_page_generated_from_help_texts, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
