/*
 * Issue 11, "Proof" (foreign tables): inlet never writes to a table it
 * cannot fully honour. Each table of tests/data/foreign carries features
 * inlet does not implement; on a copy of it, every writing command the
 * feature forbids (checkpoint, maintain, compact, append, ingest, vacuum)
 * must exit non-zero with a message naming the feature, and leave every
 * byte of the table (log, checkpoints, data files) and its file listing as
 * it was. describe and history must still work on every one of them: they
 * read only the log.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  char dir[4096];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("foreign"));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void sh(tu_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sh(tu_result *r, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  assert_int_equal(tu_sh(r, "%s", cmd), 0);
  free(cmd);
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Copies foreign table @p rel into the fixture (exempt from the rules
 * checker: some upstream fixtures are trimmed; inlet must not change them,
 * which the hashes below check byte for byte). */
static const char *copy_table(fixture *f, const char *rel) {
  static char path[4300];
  const char *base = strrchr(rel, '/') + 1;
  snprintf(path, sizeof path, "%s/%s", f->dir, base);
  tu_result r;
  sh(&r, "rm -rf '%s' && cp -R '%s/tests/data/foreign/%s' '%s'", path, INLET_SOURCE_DIR, rel, path);
  sh_ok(&r, "copy foreign table");
  tu_result_free(&r);
  tu_rules_exempt(path, "test_conformance_foreign_tables: upstream fixture");
  return path;
}

/* Every file below @p dir (hidden ones too) with its SHA-256, sorted:
 * malloc'd text. Also lists empty directories, so a created one shows. */
static char *fingerprint(const char *dir) {
  tu_result r;
  sh(&r,
     "cd '%s' && { find . -type f -print0 | sort -z | xargs -0 -r sha256sum; "
     "find . -type d | sort; }",
     dir);
  sh_ok(&r, "fingerprint");
  char *out = strdup(r.out);
  tu_result_free(&r);
  return out;
}

enum {
  OP_CHECKPOINT = 1,
  OP_MAINTAIN = 2,
  OP_COMPACT = 4,
  OP_APPEND = 8,
  OP_INGEST = 16,
  OP_VACUUM = 32,
  OP_ALL = 63
};

static const struct {
  const char *rel;
  unsigned must_refuse; /* OP_* bits */
  const char *names[3]; /* the refusal names one of these */
} TABLES[] = {
    /* Row tracking and clustering bind writes of rows; checkpoints keep
     * their fields (test_checkpoint_preserves_fields) and vacuum deletes
     * no live file, so those two may run. */
    {"delta-rs/table-with-domain-metadata",
     OP_MAINTAIN | OP_COMPACT | OP_APPEND | OP_INGEST,
     {"rowTracking", "clustering", NULL}},
    /* v2 checkpoint tables are checkpointed and cleaned up
     * (test_checkpoint_v2, test_log_cleanup_keeps_foreign_state). */
    {"delta-rs/table_with_liquid_clustering", OP_ALL, {"liquid", "rowTracking", NULL}},
    /* Column mapping: appends, ingest, compaction, checkpoints and vacuum
     * write physical names (test_column_mapping). */
    /* Variant tables are written (test_variant_tables: appends encode the
     * values, compaction copies their bytes). */
    {"delta-rs/simple_table_features", OP_ALL, {"reader version 5", "blahabl", NULL}},
    /* delta-rs/table-with-dv-small is written to (deletion vectors are
     * applied by compaction and kept by checkpoints and vacuum):
     * test_dv_maintenance. */
    {"delta-kernel-rs/table-with-geo", OP_ALL, {"geospatial", NULL, NULL}},
    {"delta-kernel-rs/partitioned_with_materialize_feature",
     OP_COMPACT | OP_APPEND | OP_INGEST,
     {"materializePartitionColumns", NULL, NULL}},
};

static const struct {
  unsigned op;
  const char *verb;  /* inlet VERB 'TABLE' ... */
  const char *input; /* before the input file, or NULL: none */
  const char *tail;  /* after it */
} OPS[] = {
    {OP_CHECKPOINT, "checkpoint", NULL, ""},
    {OP_MAINTAIN, "maintain", NULL, " --compact --vacuum"},
    {OP_COMPACT, "compact", NULL, " --min-files 1"},
    {OP_APPEND, "append", " '", "'"},
    {OP_INGEST, "ingest", " --source 'file:", "' --once --quiet"},
    {OP_VACUUM, "vacuum", NULL, " --retain 0h --force"},
};

static void test_foreign__writers_refuse_naming_the_feature_and_change_nothing(void **state) {
  fixture *f = *state;
  char ev[4200];
  snprintf(ev, sizeof ev, "%s/events.ndjson", f->dir);
  assert_int_equal(tu_write_file(ev, "{}\n", 3), 0);
  int checked = 0, bad = 0;
  char report[16384] = "";
  size_t rl = 0;
  for (size_t t = 0; t < sizeof TABLES / sizeof TABLES[0]; t++) {
    for (size_t o = 0; o < sizeof OPS / sizeof OPS[0]; o++) {
      if (!(TABLES[t].must_refuse & OPS[o].op)) continue;
      const char *path = copy_table(f, TABLES[t].rel);
      char *before = fingerprint(path);
      tu_result r;
      sh(&r, "'%s' %s '%s'%s%s%s", INLET_BIN, OPS[o].verb, path, OPS[o].input ? OPS[o].input : "",
         OPS[o].input ? ev : "", OPS[o].tail);
      char *after = fingerprint(path);
      bool named = false;
      for (int k = 0; k < 3 && TABLES[t].names[k]; k++)
        named |= strstr(r.err, TABLES[t].names[k]) != NULL;
      const char *why = r.status == 0                ? "succeeded"
                        : !named                     ? "refused without naming the feature"
                        : strcmp(before, after) != 0 ? "refused but changed the table"
                                                     : NULL;
      if (why) {
        bad++;
        if (rl < sizeof report - 512)
          rl += (size_t)snprintf(report + rl, sizeof report - rl, "  %s: inlet %s %s: %.200s\n",
                                 TABLES[t].rel, OPS[o].verb, why,
                                 strtok(r.status ? r.err : r.out, "\n"));
      }
      free(before);
      free(after);
      tu_result_free(&r);
      checked++;
    }
  }
  if (bad) {
    fprintf(stderr, "%s", report);
    fail_msg("%d of %d writes to tables inlet cannot honour went wrong (listed above)", bad,
             checked);
  }
  assert_true(checked >= 25);
}

/* describe and history read only the log: they work on every foreign
 * table, whatever its features, and say what the log says. */
static void test_foreign__describe_and_history_work_on_every_table(void **state) {
  fixture *f = *state;
  tu_result r;
  sh(&r, "cd '%s/tests/data/foreign' && ls -d delta-rs/*/ delta-kernel-rs/*/", INLET_SOURCE_DIR);
  sh_ok(&r, "list foreign tables");
  char *list = strdup(r.out);
  tu_result_free(&r);
  int n = 0;
  char *save = NULL;
  for (char *rel = strtok_r(list, "\n", &save); rel; rel = strtok_r(NULL, "\n", &save)) {
    rel[strlen(rel) - 1] = '\0'; /* the trailing slash */
    const char *path = copy_table(f, rel);
    char *before = fingerprint(path);
    sh(&r, "ls '%s/_delta_log' | grep -cE '^[0-9]{20}\\.json$' || true", path);
    int commits = atoi(r.out);
    tu_result_free(&r);
    sh(&r, "'%s' describe '%s' --json", INLET_BIN, path);
    sh_ok(&r, rel);
    json_t *d = json_loads(r.out, 0, NULL);
    if (!d) fail_msg("%s: describe --json is not JSON: %s", rel, r.out);
    tu_result_free(&r);
    assert_int_equal(json_integer_value(json_object_get(d, "commits")), commits);
    assert_true(json_is_object(json_object_get(d, "protocol")));
    json_decref(d);
    sh(&r, "'%s' history '%s' --json", INLET_BIN, path);
    sh_ok(&r, rel);
    json_t *h = json_loads(r.out, 0, NULL);
    if (!json_is_array(json_object_get(h, "commits")))
      fail_msg("%s: history --json has no commits array: %s", rel, r.out);
    assert_int_equal((int)json_array_size(json_object_get(h, "commits")), commits);
    json_decref(h);
    tu_result_free(&r);
    char *after = fingerprint(path);
    assert_string_equal(before, after);
    free(before);
    free(after);
    n++;
  }
  free(list);
  assert_int_equal(n, 22); /* tests/data/foreign/README.md lists them */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(
          test_foreign__writers_refuse_naming_the_feature_and_change_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_foreign__describe_and_history_work_on_every_table, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
