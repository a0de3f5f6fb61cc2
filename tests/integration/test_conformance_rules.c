/*
 * The Delta rules checker of the test suite (tests/support/delta_rules.h),
 * itself under test: hand-written logs that break one rule each are
 * reported under that rule's id, a valid log and tables inlet writes are
 * not, checkpoints that disagree with the log are caught, and exempted
 * directories are skipped. (tu_rmtree runs the same checker on every table
 * every other test leaves.)
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct fixture {
  char dir[4096];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("delta-rules"));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

#define P12 "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
#define SCHEMA_ID                                                                                  \
  "{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":"            \
  "\\\"long\\\","                                                                                  \
  "\\\"nullable\\\":true,\\\"metadata\\\":{}}]}"
#define META(conf)                                                                                 \
  "{\"metaData\":{\"id\":\"a1\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"             \
  "\"schemaString\":\"" SCHEMA_ID "\",\"partitionColumns\":[],\"configuration\":{" conf "}}}\n"
#define ADD(path, size)                                                                            \
  "{\"add\":{\"path\":\"" path "\",\"partitionValues\":{},\"size\":" #size                         \
  ",\"modificationTime\":1,\"dataChange\":true}}\n"

/* Writes table @p name below the fixture with commits @p commits (NULL
 * ends; version = index) and a 3-byte data file "f.parquet"; returns its
 * path (static). */
static const char *make_table(fixture *f, const char *name, const char *const *commits) {
  static char root[4300];
  snprintf(root, sizeof root, "%s/%s", f->dir, name);
  char p[4500];
  snprintf(p, sizeof p, "%s/_delta_log", root);
  tu_result r;
  assert_int_equal(tu_sh(&r, "mkdir -p '%s'", p), 0);
  tu_result_free(&r);
  for (int v = 0; commits[v]; v++) {
    if (!*commits[v]) continue; /* "" leaves the version out */
    snprintf(p, sizeof p, "%s/_delta_log/%020d.json", root, v);
    assert_int_equal(tu_write_file(p, commits[v], strlen(commits[v])), 0);
  }
  snprintf(p, sizeof p, "%s/f.parquet", root);
  assert_int_equal(tu_write_file(p, "abc", 3), 0);
  return root;
}

/* Checks @p root, exempts it from the teardown's check (it breaks rules on
 * purpose) and returns the report text (malloc'd, "" when clean). */
static char *check(const char *root, int *failing, int *pending) {
  tu_rules_report rep;
  memset(&rep, 0, sizeof rep);
  int n = tu_rules_check_table(root, &rep);
  assert_int_equal(n, rep.violations);
  if (failing) *failing = rep.violations;
  if (pending) *pending = rep.pending;
  char *text = strdup(rep.text ? rep.text : "");
  tu_rules_report_free(&rep);
  tu_rules_exempt(root, "test_conformance_rules: breaks rules on purpose");
  return text;
}

static void expect_rule(const char *root, const char *rule) {
  int failing = 0, pending = 0;
  char *text = check(root, &failing, &pending);
  if (!strstr(text, rule)) fail_msg("%s: expected %s, report:\n%s", root, rule, text);
  assert_true(failing + pending > 0);
  free(text);
}

static void test_rules__a_valid_log_is_clean(void **state) {
  fixture *f = *state;
  const char *c[] = {P12 META("\"delta.appendOnly\":\"true\"") ADD("f.parquet", 3), NULL};
  int failing = -1, pending = -1;
  char *text = check(make_table(f, "ok", c), &failing, &pending);
  if (failing || pending) fail_msg("valid log reported:\n%s", text);
  free(text);
}

/* One broken rule per table, each reported under its id. */
static void test_rules__each_rule_is_reported_by_id(void **state) {
  fixture *f = *state;
  static const struct {
    const char *name, *rule;
    const char *commits[4];
  } cases[] = {
      {"versions",
       "[protocol-versions]",
       {"{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":5,\"readerFeatures\":[]}}"
        "\n" META("") ADD("f.parquet", 3),
        NULL}},
      {"reader-list",
       "[protocol-lists]",
       {"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2,\"readerFeatures\":[]}}"
        "\n" META("") ADD("f.parquet", 3),
        NULL}},
      {"writer-list",
       "[protocol-lists]",
       {"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7}}\n" META("")
            ADD("f.parquet", 3),
        NULL}},
      {"unknown",
       "[feature-known:fooBar]",
       {"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":["
        "\"fooBar\"]}}"
        "\n" META("") ADD("f.parquet", 3),
        NULL}},
      {"reader-not-writer",
       "[feature-kind:deletionVectors]",
       {"{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":["
        "\"deletionVectors\"],\"writerFeatures\":[]}}\n" META("") ADD("f.parquet", 3),
        NULL}},
      {"writer-only-as-reader",
       "[feature-kind:appendOnly]",
       {"{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":["
        "\"appendOnly\"],\"writerFeatures\":[\"appendOnly\"]}}\n" META("") ADD("f.parquet", 3),
        NULL}},
      {"rw-on-reader-1",
       "[feature-kind:timestampNtz]",
       {"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":["
        "\"timestampNtz\"]}}\n" META("") ADD("f.parquet", 3),
        NULL}},
      {"cdf-legacy",
       "[feature-required:changeDataFeed]",
       {P12 META("\"delta.enableChangeDataFeed\":\"true\"") ADD("f.parquet", 3), NULL}},
      {"append-only-7",
       "[feature-required:appendOnly]",
       {"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":[]}}"
        "\n" META("\"delta.appendOnly\":\"true\"") ADD("f.parquet", 3),
        NULL}},
      {"constraints",
       "[feature-required:checkConstraints]",
       {P12 META("\"delta.constraints.pos\":\"id > 0\"") ADD("f.parquet", 3), NULL}},
      {"dv-property",
       "[feature-required:deletionVectors]",
       {P12 META("\"delta.enableDeletionVectors\":\"true\"") ADD("f.parquet", 3), NULL}},
      {"ict-feature",
       "[feature-required:inCommitTimestamp]",
       {P12 META("\"delta.enableInCommitTimestamps\":\"true\"") ADD("f.parquet", 3), NULL}},
      {"v2cp",
       "[feature-required:v2Checkpoint]",
       {P12 META("\"delta.checkpointPolicy\":\"v2\"") ADD("f.parquet", 3), NULL}},
      {"feature-request",
       "[feature-required:columnMapping]",
       {P12 META("\"delta.feature.columnMapping\":\"supported\"") ADD("f.parquet", 3), NULL}},
      {"domain",
       "[feature-required:domainMetadata]",
       {P12 META("") ADD("f.parquet", 3) "{\"domainMetadata\":{\"domain\":\"x\",\"configuration\":"
                                         "\"{}\",\"removed\":false}}\n",
        NULL}},
      {"gap",
       "[log-contiguous]",
       {P12 META("") ADD("f.parquet", 3), "", ADD("f.parquet", 3), NULL}},
      {"no-start", "[log-contiguous]", {"", P12 META("") ADD("f.parquet", 3), NULL}},
      {"not-json", "[commit-json]", {P12 META("") ADD("f.parquet", 3) "{\"add\":\n", NULL}},
      {"two-actions",
       "[commit-json]",
       {P12 META("") "{\"add\":{},\"remove\":{}}\n" ADD("f.parquet", 3), NULL}},
      {"no-meta", "[commit-first]", {P12 ADD("f.parquet", 3), NULL}},
      {"two-protocols", "[commit-unique]", {P12 P12 META("") ADD("f.parquet", 3), NULL}},
      {"two-adds", "[commit-unique]", {P12 META("") ADD("f.parquet", 3) ADD("f.parquet", 3), NULL}},
      {"no-size",
       "[action-fields]",
       {P12 META("") "{\"add\":{\"path\":\"f.parquet\",\"partitionValues\":{},"
                     "\"modificationTime\":1,\"dataChange\":true}}\n",
        NULL}},
      {"bad-stats",
       "[action-fields]",
       {P12 META("") "{\"add\":{\"path\":\"f.parquet\",\"partitionValues\":{},\"size\":3,"
                     "\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{nope\"}}\n",
        NULL}},
      {"part-values",
       "[partition-values]",
       {P12 META("") "{\"add\":{\"path\":\"f.parquet\",\"partitionValues\":{\"day\":\"1\"},"
                     "\"size\":3,\"modificationTime\":1,\"dataChange\":true}}\n",
        NULL}},
      {"hidden-dir", "[data-path]", {P12 META("") ADD("_tmp/f.parquet", 3), NULL}},
      {"escapes", "[data-path]", {P12 META("") ADD("../f.parquet", 3), NULL}},
      {"ict-order",
       "[ict]",
       {"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":["
        "\"inCommitTimestamp\"]}}\n" META(
            "\"delta.enableInCommitTimestamps\":\"true\"") "{\"commitInfo\":{\"inCommitTimestamp\":"
                                                           "5}}\n" ADD("f.parquet", 3),
        NULL}},
      {"ict-backwards",
       "[ict]",
       {"{\"commitInfo\":{\"inCommitTimestamp\":5}}\n{\"protocol\":{\"minReaderVersion\":1,"
        "\"minWriterVersion\":7,\"writerFeatures\":[\"inCommitTimestamp\"]}}\n" META(
            "\"delta.enableInCommitTimestamps\":\"true\"") ADD("f.parquet", 3),
        "{\"commitInfo\":{\"inCommitTimestamp\":4}}\n" ADD("f.parquet", 3), NULL}},
      {"missing-file", "[live-files]", {P12 META("") ADD("gone.parquet", 3), NULL}},
      {"wrong-size", "[live-files]", {P12 META("") ADD("f.parquet", 4), NULL}},
      {"log-name", "[log-names]", {P12 META("") ADD("f.parquet", 3), NULL}},
      {"last-cp", "[last-checkpoint]", {P12 META("") ADD("f.parquet", 3), NULL}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *root = make_table(f, cases[i].name, cases[i].commits);
    char p[4500];
    if (strcmp(cases[i].name, "log-name") == 0) {
      snprintf(p, sizeof p, "%s/_delta_log/00000000000000000001.jsn", root);
      assert_int_equal(tu_write_file(p, "x", 1), 0);
    }
    if (strcmp(cases[i].name, "last-cp") == 0) {
      snprintf(p, sizeof p, "%s/_delta_log/_last_checkpoint", root);
      assert_int_equal(tu_write_file(p, "{\"version\":0,\"size\":3}", 22), 0);
    }
    expect_rule(root, cases[i].rule);
  }
}

/* NOT NULL columns need `invariants` on writer 7 (Spark's
 * Invariants.getFromSchema), not inside arrays; timestamp_ntz needs
 * timestampNtz. */
static void test_rules__schema_uses_need_their_features(void **state) {
  fixture *f = *state;
  const char *nn[] = {
      "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":[]}}\n"
      "{\"metaData\":{\"id\":\"a\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
      "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\","
      "\\\"type\\\":\\\"long\\\",\\\"nullable\\\":false,\\\"metadata\\\":{}}]}\","
      "\"partitionColumns\":[],\"configuration\":{}}}\n" ADD("f.parquet", 3),
      NULL};
  expect_rule(make_table(f, "not-null", nn), "[feature-required:invariants]");
  const char *in_array[] = {
      "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":[]}}\n"
      "{\"metaData\":{\"id\":\"a\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
      "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"a\\\","
      "\\\"type\\\":{\\\"type\\\":\\\"array\\\",\\\"elementType\\\":{\\\"type\\\":\\\"struct\\\","
      "\\\"fields\\\":[{\\\"name\\\":\\\"x\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":false,"
      "\\\"metadata\\\":{}}]},\\\"containsNull\\\":false},\\\"nullable\\\":true,"
      "\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{}}}\n" ADD("f.parquet",
                                                                                      3),
      NULL};
  int failing = -1, pending = -1;
  char *text = check(make_table(f, "not-null-in-array", in_array), &failing, &pending);
  if (failing || pending) fail_msg("NOT NULL inside an array needs no feature:\n%s", text);
  free(text);
  const char *ntz[] = {
      P12 "{\"metaData\":{\"id\":\"a\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
          "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"t\\\","
          "\\\"type\\\":\\\"timestamp_ntz\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
          "\"partitionColumns\":[],\"configuration\":{}}}\n" ADD("f.parquet", 3),
      NULL};
  expect_rule(make_table(f, "ntz", ntz), "[feature-required:timestampNtz]");
}

/* Tables inlet writes pass; a checkpoint that does not hold the log's state
 * at its version is caught; so are extended encodings the table did not
 * ask for. */
static void test_rules__checkpoints_and_encodings_of_real_tables(void **state) {
  fixture *f = *state;
  char t[4200], ev[4200];
  snprintf(t, sizeof t, "%s/real", f->dir);
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  FILE *fp = fopen(ev, "w");
  assert_non_null(fp);
  for (int i = 0; i < 3000; i++)
    fprintf(fp, "{\"id\":%d,\"x\":%d.%02d,\"day\":\"2024-01-0%d\"}\n", i, i * 7919 % 100000,
            i % 100, 1 + i % 3);
  fclose(fp);
  tu_result r;
  assert_int_equal(tu_sh(&r,
                         "'%s' create '%s' --schema 'id long, x double, day date' --partition-by "
                         "day --property inlet.parquet.encodings=extended && '%s' append '%s' '%s' "
                         "--compression zstd && '%s' checkpoint '%s' && '%s' append '%s' '%s'",
                         INLET_BIN, t, INLET_BIN, t, ev, INLET_BIN, t, INLET_BIN, t, ev),
                   0);
  sh_ok(&r, "create/append/checkpoint/append");
  tu_result_free(&r);
  int failing = -1;
  char *text = check(t, &failing, NULL);
  if (failing) fail_msg("a table inlet wrote is reported:\n%s", text);
  free(text);

  /* The v1 checkpoint presented as v2's: v2's files are missing from it. */
  assert_int_equal(tu_sh(&r,
                         "cd '%s/_delta_log' && cp 00000000000000000001.checkpoint.parquet "
                         "00000000000000000002.checkpoint.parquet",
                         t),
                   0);
  tu_result_free(&r);
  expect_rule(t, "[checkpoint]");
  assert_int_equal(tu_sh(&r, "rm '%s/_delta_log/00000000000000000002.checkpoint.parquet'", t), 0);
  tu_result_free(&r);

  /* The table stops asking for the extended encodings its files use. */
  assert_int_equal(tu_sh(&r,
                         "sed -i 's/inlet.parquet.encodings\\\":\\\"extended/"
                         "inlet.parquet.encodings\\\":\\\"compatible/' "
                         "'%s/_delta_log/00000000000000000000.json' && grep -c compatible "
                         "'%s/_delta_log/00000000000000000000.json'",
                         t, t),
                   0);
  sh_ok(&r, "sed");
  tu_result_free(&r);
  expect_rule(t, "[encodings]");
}

/* Exempted paths (and what is below them) are skipped by the tree walk. */
static void test_rules__exempt_paths_are_skipped(void **state) {
  fixture *f = *state;
  const char *bad[] = {"", P12 META("") ADD("f.parquet", 3), NULL};
  const char *root = make_table(f, "sub/bad", bad);
  char sub[4300];
  snprintf(sub, sizeof sub, "%s/sub", f->dir);
  tu_rules_report rep;
  memset(&rep, 0, sizeof rep);
  assert_false(tu_rules_is_exempt(root));
  assert_true(tu_rules_check_tree(f->dir, &rep) > 0);
  assert_int_equal(rep.tables, 1);
  tu_rules_report_free(&rep);
  tu_rules_exempt(sub, "test_conformance_rules: exemption test");
  assert_true(tu_rules_is_exempt(root));
  assert_int_equal(tu_rules_check_tree(f->dir, &rep), 0);
  assert_int_equal(rep.tables, 0);
  tu_rules_report_free(&rep);
  char other[4300];
  snprintf(other, sizeof other, "%s/subway", f->dir);
  assert_int_equal(mkdir(other, 0755), 0);
  assert_false(tu_rules_is_exempt(other)); /* a prefix of the name is not a parent */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_rules__a_valid_log_is_clean, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rules__each_rule_is_reported_by_id, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rules__schema_uses_need_their_features, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rules__checkpoints_and_encodings_of_real_tables, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_rules__exempt_paths_are_skipped, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
