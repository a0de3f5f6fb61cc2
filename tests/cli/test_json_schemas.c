/*
 * Every --json output and every --log-format json line validates against its
 * schema in docs/JSON.md (Ajv, tests/support/jsonschema/validate.mjs), read
 * from the document itself. The outputs come from commands run on a table
 * this test builds (partitioned, with late, rejected and deleted rows) and on
 * a Databricks-written table with reader and writer features. A document that
 * breaks the rules (a key inlet does not document, -1 for unknown, a string
 * count) is rejected, so the schemas can fail.
 */
#include "testutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[4096];

/* Runs `inlet ARGS` in dir with stdout to OUT (and stderr to OUT.err);
 * fails unless it exits @p want. */
static void run_to(const char *out, int want, const char *args) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' %s > '%s' 2> '%s.err'", dir, INLET_BIN, args, out, out);
  if (r.status != want) {
    char p[4200];
    snprintf(p, sizeof p, "%s/%s.err", dir, out);
    char *e = tu_read_file(p, NULL);
    fail_msg("inlet %s: exit %d, want %d: %s", args, r.status, want, e ? e : "");
  }
  tu_result_free(&r);
}

/* Validates dir/FILE against schema NAME; returns validate.mjs's status
 * (its report is printed when it is not 0). */
static int validate(const char *name, const char *file, bool lines) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' '%s/validate.mjs' '%s/docs/JSON.md' '%s' '%s' %s", dir, INLET_NODE,
        INLET_JSONSCHEMA_DIR, INLET_SOURCE_DIR, name, file, lines ? "--lines" : "");
  int status = r.status;
  if (status != 0) print_message("%s: %s%s\n", file, r.out, r.err);
  tu_result_free(&r);
  return status;
}

static void valid(const char *name, const char *file, bool lines) {
  if (validate(name, file, lines) != 0) fail_msg("%s is not valid against schema %s", file, name);
}

/* The lines of dir/FILE, counted (a JSON-lines output must not be empty). */
static int count_lines(const char *file) {
  char p[4200];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  char *s = tu_read_file(p, NULL);
  assert_non_null(s);
  int n = 0;
  for (char *c = s; *c; c++)
    n += *c == '\n';
  free(s);
  return n;
}

/* Runs the shell command in dir; fails unless it exits 0. */
static void sh_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh_ok(const char *fmt, ...) {
  char cmd[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  tu_result r;
  tu_sh(&r, "cd '%s' && %s", dir, cmd);
  if (r.status != 0) fail_msg("%s: %s", cmd, r.err);
  tu_result_free(&r);
}

static void test_json_schemas__every_output_validates(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("json-schemas"));
  /* 40 events over two days; one late beyond the lateness, one rejected. */
  FILE *f;
  char p[4200];
  snprintf(p, sizeof p, "%s/events.ndjson", dir);
  f = fopen(p, "w");
  assert_non_null(f);
  for (int i = 0; i < 40; i++)
    fprintf(f, "{\"id\":%d,\"day\":\"2026-01-0%d\",\"ts\":\"2026-01-0%dT00:%02d:00Z\"}\n", i,
            1 + i % 2, 1 + i % 2, i);
  fprintf(f, "{\"id\":100,\"day\":\"2026-01-01\",\"ts\":\"2025-12-01T00:00:00Z\"}\n");
  fprintf(f, "{\"id\":\"not a number\",\"day\":\"2026-01-01\",\"ts\":\"2026-01-01T00:00:00Z\"}\n");
  fclose(f);
  sh_ok("'%s' create t --schema 'id BIGINT, day STRING, ts TIMESTAMP' --partition-by day",
        INLET_BIN);
  run_to("ingest.json", 0,
         "ingest t --source file:events.ndjson --event-time ts --allowed-lateness 1h "
         "--max-rows 15 --once --json");
  assert_true(count_lines("ingest.json") >= 4); /* started, 3 batches, finished */
  valid("ingest", "ingest.json", true);
  sh_ok("head -3 events.ndjson > more.ndjson && '%s' append t more.ndjson && "
        "sleep 1",
        INLET_BIN);
  sh_ok("'%s' append t more.ndjson", INLET_BIN);

  run_to("compact-dry.json", 0, "compact t --min-files 2 --dry-run --json");
  valid("compact", "compact-dry.json", false);
  run_to("compact.json", 0, "compact t --min-files 2 --json");
  valid("compact", "compact.json", false);
  run_to("delete.json", 0, "delete t --where 'id < 5' --json");
  valid("delete", "delete.json", false);
  run_to("delete-none.json", 0, "delete t --where 'id > 1000' --json");
  valid("delete", "delete-none.json", false);
  run_to("restore-dry.json", 0, "restore t --version 2 --dry-run --json");
  valid("restore", "restore-dry.json", false);
  run_to("restore.json", 0, "restore t --version 2 --json");
  valid("restore", "restore.json", false);
  run_to("alter.json", 0, "alter t --property delta.enableRowTracking=true --json");
  valid("alter", "alter.json", false);
  run_to("alter-again.json", 0, "alter t --property delta.enableRowTracking=true --json");
  valid("alter", "alter-again.json", false);
  run_to("alter-props.json", 0,
         "alter t --property delta.enableChangeDataFeed=true --property my.key=v --json");
  valid("alter", "alter-props.json", false);
  /* A description, so describe.json below carries one. */
  run_to("alter-comment.json", 0, "alter t --property comment='the events' --json");
  valid("alter", "alter-comment.json", false);
  run_to("alter-unset.json", 0, "alter t --unset my.key --json");
  valid("alter", "alter-unset.json", false);
  run_to("alter-unset-none.json", 0, "alter t --unset my.key --if-exists --json");
  valid("alter", "alter-unset-none.json", false);
  run_to("vacuum-dry.json", 0, "vacuum t --retain 0h --force --dry-run --json");
  valid("vacuum", "vacuum-dry.json", false);
  run_to("maintain.json", 0, "maintain t --compact --vacuum --json");
  valid("maintain", "maintain.json", false);
  run_to("describe.json", 0, "describe t --json");
  valid("describe", "describe.json", false);
  run_to("history.json", 0, "history t --json");
  valid("history", "history.json", false);

  /* A table Databricks wrote: reader and writer features, Spark's metrics. */
  snprintf(p, sizeof p, "%s/tests/data/foreign/delta-rs/table_with_partitioning_mapping",
           INLET_SOURCE_DIR);
  char args[4400];
  snprintf(args, sizeof args, "describe '%s' --json", p);
  run_to("describe-foreign.json", 0, args);
  valid("describe", "describe-foreign.json", false);
  snprintf(args, sizeof args, "history '%s' --json", p);
  run_to("history-foreign.json", 0, args);
  valid("history", "history-foreign.json", false);

  /* Log lines: errors of each kind, a usage error, ingest's service lines. */
  run_to("log-notfound.json", 3, "--log-format json describe nope");
  run_to("log-usage.json", 2, "--log-format json scan t --bogus");
  run_to("log-ingest.json", 0,
         "--log-format json ingest t --source file:events.ndjson --summary-interval 1ms --once");
  sh_ok("cat log-notfound.json.err log-usage.json.err log-ingest.json.err > log.json");
  assert_true(count_lines("log.json") >= 3);
  valid("log", "log.json", true);

  /* The schemas can fail: an undocumented key, -1 for unknown, a count as a
   * string, a line that is not JSON. */
  sh_ok("sed 's/\"format_version\": 1,/\"format_version\": 1, \"surprise\": 0,/' "
        "describe.json > bad1.json");
  assert_int_equal(validate("describe", "bad1.json", false), 1);
  sh_ok("sed 's/\"version\":null/\"version\":-1/' delete-none.json > bad2.json");
  assert_int_equal(validate("delete", "bad2.json", false), 1);
  sh_ok("sed 's/\"rows\":\\([0-9]*\\)/\"rows\":\"\\1\"/' ingest.json > bad3.json");
  assert_int_equal(validate("ingest", "bad3.json", true), 1);
  sh_ok("(cat log.json; echo 'inlet: plain text') > bad4.json");
  assert_int_equal(validate("log", "bad4.json", true), 1);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_schemas__every_output_validates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
