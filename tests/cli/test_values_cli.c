/*
 * One grammar for durations and compression names at every door of the CLI
 * (issue 13 §2, docs/VALUES.md): a bare number is refused with the same
 * message by every option and table property; the short and Delta forms of
 * delta.logRetentionDuration both drive the writers' automatic log cleanup;
 * `ingest --compression` takes what `append` takes. Drives the real binary.
 */
#include "testutil.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Runs the shell command printf(@p fmt, ...) and expects exit @p want. */
static void sh(tu_result *r, int want, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void sh(tu_result *r, int want, const char *what, const char *fmt, ...) {
  char cmd[16384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  tu_sh(r, "%s", cmd);
  if (r->status != want)
    fail_msg("%s: exit %d (want %d)\nstdout: %s\nstderr: %s", what, r->status, want, r->out,
             r->err);
}

static void create(const char *dir, const char *props) {
  tu_result r;
  sh(&r, 0, "create", "cd '%s' && '%s' create t --schema 'id long not null' %s", dir, INLET_BIN,
     props);
  tu_result_free(&r);
}

static void write_rows(const char *dir, int from, int n) {
  char path[4200];
  snprintf(path, sizeof path, "%s/in.ndjson", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (int i = from; i < from + n; i++)
    fprintf(f, "{\"id\":%d}\n", i);
  assert_int_equal(fclose(f), 0);
}

static void test_values__bare_numbers_are_refused_everywhere(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("values_bare"));
  create(dir, "");
  write_rows(dir, 0, 3);
  const char *cmds[] = {
      "vacuum t --retain 100",
      "ingest t --source file:in.ndjson --once --max-latency 100",
      "ingest t --source file:in.ndjson --once --event-time id --allowed-lateness 100",
      "maintain t --interval 100",
  };
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    tu_result r;
    sh(&r, 2, cmds[i], "cd '%s' && '%s' %s", dir, INLET_BIN, cmds[i]);
    if (!strstr(r.err, "\"100\" has no unit"))
      fail_msg("%s: message lacks the reason: %s", cmds[i], r.err);
    tu_result_free(&r);
  }
  /* The table property: refused at create, naming the property. */
  tu_result r;
  sh(&r, 1, "create with a bare retention",
     "cd '%s' && '%s' create u --schema 'id long' --property %s", dir, INLET_BIN,
     "delta.logRetentionDuration=100");
  assert_non_null(strstr(r.err, "delta.logRetentionDuration"));
  assert_non_null(strstr(r.err, "no unit"));
  tu_result_free(&r);
  /* With units, the same options are accepted. */
  sh(&r, 0, "vacuum --retain 7d", "cd '%s' && '%s' vacuum t --retain 7d --dry-run", dir, INLET_BIN);
  tu_result_free(&r);
  tu_rmtree(dir);
}

/* The writers' automatic cleanup (after the checkpoint every
 * delta.checkpointInterval commits) reads delta.logRetentionDuration with
 * the one grammar: the short form counts as much as Delta's interval form. */
static void test_values__log_retention_short_form_drives_writer_cleanup(void **state) {
  (void)state;
  const char *forms[] = {"'delta.logRetentionDuration=1ms'",
                         "'delta.logRetentionDuration=interval 1 millisecond'"};
  for (size_t k = 0; k < 2; k++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", tu_mkdtemp("values_retention"));
    char props[256];
    snprintf(props, sizeof props, "--property delta.checkpointInterval=2 --property %s", forms[k]);
    create(dir, props);
    usleep(30 * 1000);
    for (int b = 1; b <= 4; b++) {
      write_rows(dir, b * 10, 2);
      tu_result r;
      sh(&r, 0, "append", "cd '%s' && '%s' append t in.ndjson", dir, INLET_BIN);
      tu_result_free(&r);
      usleep(30 * 1000); /* commit times distinguishable from "now" at 1 ms */
    }
    char p[4300];
    struct stat st;
    snprintf(p, sizeof p, "%s/t/_delta_log/00000000000000000004.checkpoint.parquet", dir);
    assert_int_equal(stat(p, &st), 0);
    for (int v = 0; v < 4; v++) {
      snprintf(p, sizeof p, "%s/t/_delta_log/%020d.json", dir, v);
      if (stat(p, &st) == 0) fail_msg("%s: commit %d survived the writer's cleanup", forms[k], v);
    }
    tu_result r;
    sh(&r, 0, "scan", "cd '%s' && '%s' scan t --format ndjson", dir, INLET_BIN);
    int lines = 0;
    for (const char *c = r.out; *c; c++)
      lines += *c == '\n';
    assert_int_equal(lines, 8);
    tu_result_free(&r);
    tu_rmtree(dir);
  }
}

/* `ingest --compression` accepts what `append --compression` accepts. */
static void test_values__ingest_takes_every_append_codec(void **state) {
  (void)state;
  const char *codecs[] = {"brotli", "lz4", "zstd", "none"};
  const char *parquet_names[] = {"BROTLI", "LZ4_RAW", "ZSTD", "UNCOMPRESSED"};
  for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
    char dir[4096], opt[64];
    snprintf(dir, sizeof dir, "%s", tu_mkdtemp("values_codec"));
    create(dir, "");
    write_rows(dir, 0, 5);
    snprintf(opt, sizeof opt, "--compression %s", codecs[i]);
    tu_result r;
    sh(&r, 0, "ingest", "cd '%s' && '%s' ingest t --source file:in.ndjson --once --quiet %s", dir,
       INLET_BIN, opt);
    tu_result_free(&r);
    sh(&r, 0, "append", "cd '%s' && '%s' append t in.ndjson %s", dir, INLET_BIN, opt);
    tu_result_free(&r);
    /* Both data files carry the codec. */
    sh(&r, 0, "parquet meta", "cd '%s' && for f in t/*.parquet; do '%s' parquet meta \"$f\"; done",
       dir, INLET_BIN);
    int n = 0;
    for (const char *c = r.out; (c = strstr(c, parquet_names[i])); c++)
      n++;
    if (n < 2) fail_msg("%s: codec %s seen %d times in\n%s", codecs[i], parquet_names[i], n, r.out);
    tu_result_free(&r);
    sh(&r, 0, "scan", "cd '%s' && '%s' scan t --format ndjson", dir, INLET_BIN);
    int lines = 0;
    for (const char *c = r.out; *c; c++)
      lines += *c == '\n';
    assert_int_equal(lines, 10);
    tu_result_free(&r);
    tu_rmtree(dir);
  }
  /* An unknown name is refused by both, listing the names. */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("values_codec_bad"));
  create(dir, "");
  write_rows(dir, 0, 1);
  tu_result r;
  sh(&r, 2, "ingest --compression lzo",
     "cd '%s' && '%s' ingest t --source file:in.ndjson --once --compression lzo", dir, INLET_BIN);
  assert_non_null(strstr(r.err, "brotli"));
  tu_result_free(&r);
  sh(&r, 2, "append --compression lzo", "cd '%s' && '%s' append t in.ndjson --compression lzo", dir,
     INLET_BIN);
  assert_non_null(strstr(r.err, "brotli"));
  tu_result_free(&r);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values__bare_numbers_are_refused_everywhere),
      cmocka_unit_test(test_values__log_retention_short_form_drives_writer_cleanup),
      cmocka_unit_test(test_values__ingest_takes_every_append_codec),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
