/*
 * Exit codes of the real `inlet` binary (cli.h, `inlet --help`): each kind
 * of failure is provoked here and its code checked, so that scripts can
 * tell a missing table from a corrupt one or an unsupported feature without
 * reading the message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TU_SCRATCH_DIR("exit")

static void expect_sh(int status, const char *err_has, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void expect_sh(int status, const char *err_has, const char *fmt, ...) {
  char cmd[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  tu_result r;
  assert_int_equal(tu_sh(&r, "%s", cmd), 0);
  if (r.status != status || (err_has && !strstr(r.err, err_has)))
    fail_msg("%s\nstatus %d (want %d)\nstdout: %s\nstderr: %s\n(want stderr~'%s')", cmd, r.status,
             status, r.out, r.err, err_has ? err_has : "");
  tu_result_free(&r);
}

/* A table with one row, made by the binary itself. */
static void make_table(const char *name) {
  expect_sh(0, NULL, "'%s' create '%s/%s' --schema 'id long'", INLET_BIN, dir, name);
  expect_sh(0, NULL,
            "printf '{\"id\":1}\\n' > '%s/rows.ndjson' && '%s' append '%s/%s' '%s/rows.ndjson'",
            dir, INLET_BIN, dir, name, dir);
}

/* The same, left out of the suite's Delta rules check because the test
 * breaks it on purpose (@p why). */
static void make_exempt_table(const char *name, const char *why) {
  make_table(name);
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  tu_rules_exempt(path, why);
}

static void test_exit__help_lists_the_codes(void **state) {
  (void)state;
  tu_result r;
  assert_int_equal(tu_sh(&r, "'%s' --help", INLET_BIN), 0);
  assert_int_equal(r.status, 0);
  const char *want[] = {"Exit codes:", "2  usage",       "3  not found", "4  conflict",
                        "5  corrupt",  "6  unsupported", "7  I/O",       "8  rejected"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(r.out, want[i])) fail_msg("--help lacks '%s':\n%s", want[i], r.out);
  tu_result_free(&r);
  assert_int_equal(tu_sh(&r, "'%s' help --man", INLET_BIN), 0);
  assert_non_null(strstr(r.out, ".SH EXIT STATUS"));
  assert_non_null(strstr(r.out, "unsupported: the table"));
  tu_result_free(&r);
}

static void test_exit__usage_is_2(void **state) {
  (void)state;
  expect_sh(2, "missing TABLE", "'%s' scan", INLET_BIN);
  expect_sh(2, "--limt", "'%s' scan '%s/t' --limt 3", INLET_BIN, dir);
}

static void test_exit__not_found_is_3(void **state) {
  (void)state;
  expect_sh(3, NULL, "'%s' scan '%s/missing'", INLET_BIN, dir);
  make_table("t");
  expect_sh(3, "99", "'%s' scan '%s/t' --version 99", INLET_BIN, dir);
  expect_sh(3, NULL, "'%s' parquet schema '%s/none.parquet'", INLET_BIN, dir);
}

/* A conflict: `append --expected-version N` commits only while the table is
 * still at version N (a writer's optimistic check, as a script holding a
 * version it read would use it). The table moved on, so the append commits
 * nothing and exits 4, naming both versions; at the right version it
 * commits. Deterministic: the "concurrent" writer has committed before. */
static void test_exit__conflict_is_4(void **state) {
  (void)state;
  make_table("k"); /* versions 0 (create) and 1 (append) */
  expect_sh(4, "table is at version 1, not 0",
            "'%s' append '%s/k' '%s/rows.ndjson' --expected-version 0", INLET_BIN, dir, dir);
  expect_sh(1, NULL, "test -e '%s/k/_delta_log/00000000000000000002.json'", dir);
  expect_sh(0, NULL, "'%s' append '%s/k' '%s/rows.ndjson' --expected-version 1", INLET_BIN, dir,
            dir);
  expect_sh(4, "conflict",
            "'%s' append '%s/k' '%s/rows.ndjson' --expected-version 1 --log-format json", INLET_BIN,
            dir, dir);
}

/* Giving up after retries: restore commits only right after the version it
 * read, and starts over when another commit took that version. A
 * directory named like the next commit stands for a winner whose commit
 * the listing does not show yet (a lagging object-store listing): the log
 * still reads as version 1, and every attempt to publish version 2 finds
 * it taken. So each of the --max-attempts attempts loses, deterministically,
 * and restore exits 4 with the table unchanged; once the "winner" is gone
 * the same restore commits. */
static void test_exit__gave_up_after_retries_is_4(void **state) {
  (void)state;
  make_exempt_table("g", "a directory stands for an unlisted commit on purpose");
  expect_sh(0, NULL, "mkdir '%s/g/_delta_log/00000000000000000002.json'", dir);
  expect_sh(4, "gave up after 3 attempts", "'%s' restore '%s/g' --version 0 --max-attempts 3",
            INLET_BIN, dir);
  expect_sh(0, NULL, "rmdir '%s/g/_delta_log/00000000000000000002.json'", dir);
  expect_sh(0, NULL, "'%s' restore '%s/g' --version 0 --max-attempts 3", INLET_BIN, dir);
  expect_sh(0, NULL, "test -f '%s/g/_delta_log/00000000000000000002.json'", dir);
}

static void test_exit__corrupt_is_5(void **state) {
  (void)state;
  make_exempt_table("c", "a commit is overwritten with bad JSON on purpose");
  expect_sh(0, NULL, "printf '{not json\\n' > '%s/c/_delta_log/00000000000000000001.json'", dir);
  expect_sh(5, "00000000000000000001.json", "'%s' scan '%s/c'", INLET_BIN, dir);
  expect_sh(0, NULL, "printf 'PAR1 not a parquet file' > '%s/bad.parquet'", dir);
  expect_sh(5, "bad.parquet", "'%s' parquet schema '%s/bad.parquet'", INLET_BIN, dir);
}

static void test_exit__unsupported_is_6(void **state) {
  (void)state;
  make_exempt_table("u", "a protocol with a made-up feature on purpose");
  expect_sh(0, NULL,
            "printf '%%s\\n' '{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
            "\"readerFeatures\":[\"madeUpFeature\"],\"writerFeatures\":[\"madeUpFeature\"]}}' "
            "> '%s/u/_delta_log/00000000000000000002.json'",
            dir);
  expect_sh(6, "madeUpFeature", "'%s' scan '%s/u'", INLET_BIN, dir);
  expect_sh(6, "madeUpFeature", "'%s' append '%s/u' '%s/rows.ndjson'", INLET_BIN, dir, dir);
}

static void test_exit__io_is_7(void **state) {
  (void)state;
  make_table("o");
  expect_sh(7, "no-such-dir", "'%s' scan '%s/o' --output '%s/no-such-dir/out.ndjson'", INLET_BIN,
            dir, dir);
}

/* More rejected records than --max-rejected allows: ingest commits what it
 * accepted and exits 8; append commits nothing and exits 8. */
static void test_exit__rejected_is_8(void **state) {
  (void)state;
  make_table("r");
  expect_sh(0, NULL,
            "printf '{\"id\":2}\\n{\"id\":\"3\"}\\n{\"id\":4,\"x\":1}\\n{\"id\":5}\\n' > "
            "'%s/bad.ndjson'",
            dir);
  expect_sh(8, "2 records rejected",
            "'%s' ingest '%s/r' --source 'file:%s/bad.ndjson' --once --final --max-rejected 1",
            INLET_BIN, dir, dir);
  expect_sh(8, "more than --max-rejected 1", "'%s' append '%s/r' '%s/bad.ndjson' --max-rejected 1",
            INLET_BIN, dir, dir);
  /* Under the limit (or without one) the same input exits 0. */
  expect_sh(0, "rejected 2",
            "'%s' ingest '%s/r' --source 'file:%s/bad.ndjson' --once --final --app-id other",
            INLET_BIN, dir, dir);
}

static void test_exit__anything_else_is_1(void **state) {
  (void)state;
  make_table("e");
  /* the table exists already */
  expect_sh(1, NULL, "'%s' create '%s/e' --schema 'id long'", INLET_BIN, dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_exit__help_lists_the_codes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit__usage_is_2, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit__not_found_is_3, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit__conflict_is_4, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit__gave_up_after_retries_is_4, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit__corrupt_is_5, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit__unsupported_is_6, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit__io_is_7, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit__rejected_is_8, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit__anything_else_is_1, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
