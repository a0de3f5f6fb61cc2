/*
 * The command table of the CLI: every command of the contract appears in
 * the overview, has `inlet help CMD` equal to `inlet CMD --help`, and a
 * section of the man page; `inlet help parquet` and `inlet parquet --help`
 * show the parquet commands. A usage error is one line naming the wrong
 * argument plus a hint (the nearest option or command, or where to look),
 * never the whole usage. Options may repeat where they add up (create
 * --property and --partition-by, compact --sort-by) and create takes any
 * number of partition columns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TU_SCRATCH_DIR("cli-help")

/* The commands the CLI promises (README, issues): a contract, not read from
 * the code under test. */
static const char *const contract[] = {
    "create",          "append", "ingest",         "scan",         "history",
    "describe",        "delete", "checkpoint",     "compact",      "vacuum",
    "maintain",        "demo",   "parquet schema", "parquet meta", "parquet cat",
    "parquet convert", "alter"};
#define N_CONTRACT (sizeof contract / sizeof contract[0])

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

static void test_cli_help__every_command_in_overview_help_and_man_page(void **state) {
  (void)state;
  tu_result overview, man;
  tu_sh(&overview, "'%s' --help", INLET_BIN);
  assert_int_equal(overview.status, 0);
  tu_sh(&man, "'%s' help --man", INLET_BIN);
  assert_int_equal(man.status, 0);
  for (size_t i = 0; i < N_CONTRACT; i++) {
    char line[128];
    snprintf(line, sizeof line, "\n  %s ", contract[i]);
    if (!strstr(overview.out, line)) fail_msg("overview lacks %s:\n%s", contract[i], overview.out);
    snprintf(line, sizeof line, ".SS %s\n", contract[i]);
    if (!strstr(man.out, line)) fail_msg("man page lacks %s", line);
    tu_result h, own;
    tu_sh(&h, "'%s' help %s", INLET_BIN, contract[i]);
    tu_sh(&own, "'%s' %s --help", INLET_BIN, contract[i]);
    assert_int_equal(h.status, 0);
    assert_int_equal(own.status, 0);
    char want[128];
    snprintf(want, sizeof want, "usage: inlet %s", contract[i]);
    if (strncmp(h.out, want, strlen(want)) != 0) fail_msg("help %s: %s", contract[i], h.out);
    assert_string_equal(h.out, own.out);
    tu_result_free(&h);
    tu_result_free(&own);
  }
  tu_result_free(&overview);
  tu_result_free(&man);
}

static void test_cli_help__parquet_group_help(void **state) {
  (void)state;
  tu_result a, b;
  tu_sh(&a, "'%s' help parquet", INLET_BIN);
  tu_sh(&b, "'%s' parquet --help", INLET_BIN);
  assert_int_equal(a.status, 0);
  assert_int_equal(b.status, 0);
  const char *subs[] = {"usage: inlet parquet schema FILE", "usage: inlet parquet meta FILE",
                        "usage: inlet parquet cat FILE", "usage: inlet parquet convert IN OUT"};
  for (size_t i = 0; i < 4; i++)
    if (!strstr(a.out, subs[i])) fail_msg("help parquet lacks '%s':\n%s", subs[i], a.out);
  assert_string_equal(a.out, b.out);
  tu_result_free(&a);
  tu_result_free(&b);
}

/* Runs @p args (shell words), expects exit 2 and a short report holding
 * every string of @p want (NULL-terminated) and no usage dump. */
static void expect_usage_error(const char *args, const char *const *want) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' %s", dir, INLET_BIN, args);
  if (r.status != 2) fail_msg("'%s': status %d, stderr: %s", args, r.status, r.err);
  for (const char *const *w = want; *w; w++)
    if (!strstr(r.err, *w)) fail_msg("'%s': stderr lacks '%s':\n%s", args, *w, r.err);
  if (strstr(r.err, "usage:") || count_lines(r.err) > 2)
    fail_msg("'%s': more than the wrong line and a hint:\n%s", args, r.err);
  assert_int_equal(r.out_len, 0);
  tu_result_free(&r);
}

static void test_cli_help__usage_errors_name_the_argument_and_hint(void **state) {
  (void)state;
  expect_usage_error("scan t --limt 5", (const char *const[]){"inlet: unknown option '--limt'",
                                                              "did you mean --limit?", NULL});
  expect_usage_error("scan t -limit 5", (const char *const[]){"did you mean --limit?", NULL});
  expect_usage_error("scan t --lim 5", (const char *const[]){"did you mean --limit?", NULL});
  expect_usage_error("compact t --dryrun", (const char *const[]){"unknown option '--dryrun'",
                                                                 "did you mean --dry-run?", NULL});
  expect_usage_error("scan t --frobnicate", (const char *const[]){"unknown option '--frobnicate'",
                                                                  "see 'inlet scan --help'", NULL});
  expect_usage_error("scan t --limit abc",
                     (const char *const[]){"--limit needs a non-negative integer, not 'abc'",
                                           "see 'inlet scan --help'", NULL});
  expect_usage_error("history t --limit 0",
                     (const char *const[]){"--limit needs a positive integer, not '0'", NULL});
  expect_usage_error(
      "maintain t --min-files 1",
      (const char *const[]){"--min-files needs an integer from 2 to 1000000, not '1'", NULL});
  expect_usage_error(
      "compact t --target-size 12Q",
      (const char *const[]){"--target-size needs a positive byte count", "not '12Q'", NULL});
  expect_usage_error("scan t --limit",
                     (const char *const[]){"option '--limit' needs a value", NULL});
  expect_usage_error("scan t --explain=yes",
                     (const char *const[]){"option '--explain' takes no value", NULL});
  expect_usage_error("scna t",
                     (const char *const[]){"unknown command 'scna'", "did you mean 'scan'?", NULL});
  expect_usage_error("parquet caat f", (const char *const[]){"parquet: unknown subcommand 'caat'",
                                                             "did you mean 'parquet cat'?", NULL});
  expect_usage_error("help scna",
                     (const char *const[]){"unknown command 'scna'", "did you mean 'scan'?", NULL});
  expect_usage_error("parquet", (const char *const[]){"parquet: missing subcommand", NULL});
  expect_usage_error("", (const char *const[]){"missing command", NULL});
}

static void test_cli_help__create_options_repeat_past_64_partition_columns(void **state) {
  (void)state;
  /* 70 partition columns named over three --partition-by options, plus one
   * data column; properties over two --property options. */
  char ddl[4096] = "v long", parts[3][1024] = {"", "", ""};
  for (int i = 0; i < 70; i++) {
    size_t n = strlen(ddl);
    snprintf(ddl + n, sizeof ddl - n, ", p%d string", i);
    char *pb = parts[i / 25];
    n = strlen(pb);
    snprintf(pb + n, sizeof parts[0] - n, "%sp%d", n ? "," : "", i);
  }
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema '%s' --partition-by %s --partition-by %s "
        "--partition-by %s --property inlet.a=1 --property inlet.b=2 && "
        "'%s' describe t --json | tr -d ' \\n'",
        dir, INLET_BIN, ddl, parts[0], parts[1], parts[2], INLET_BIN);
  if (r.status != 0) fail_msg("create: %d %s", r.status, r.err);
  assert_non_null(strstr(r.out, "\"inlet.a\":\"1\""));
  assert_non_null(strstr(r.out, "\"inlet.b\":\"2\""));
  /* partition_columns names all 70, in order (the old parser kept 64 and
   * dropped the rest silently). */
  const char *pc = strstr(r.out, "\"partition_columns\":[");
  assert_non_null(pc);
  const char *end = strchr(pc, ']');
  assert_non_null(end);
  int n = 1;
  for (const char *c = pc; c < end; c++)
    n += *c == ',';
  assert_int_equal(n, 70);
  assert_true(strstr(pc, "\"p0\",\"p1\",") == strchr(pc, '[') + 1);
  const char *last = strstr(pc, "\"p69\"]");
  assert_true(last != NULL && last + 5 == end);
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cli_help__every_command_in_overview_help_and_man_page),
      cmocka_unit_test(test_cli_help__parquet_group_help),
      cmocka_unit_test_setup_teardown(test_cli_help__usage_errors_name_the_argument_and_hint, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(
          test_cli_help__create_options_repeat_past_64_partition_columns, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
