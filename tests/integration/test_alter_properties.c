/*
 * `inlet alter TABLE --property K=V...` (inlet_table_set_properties) through
 * the real binary, against PROTOCOL.md "Change Metadata" and "Protocol
 * Evolution" and what Spark's ALTER TABLE ... SET TBLPROPERTIES commits:
 *   - on a legacy (1, 2) table, delta.enableDeletionVectors with a retention
 *     and a user property is one SET TBLPROPERTIES commit holding protocol
 *     (3, 7) listing appendOnly, invariants (what writer 2 implied) and
 *     deletionVectors, and the metaData with the three properties added to
 *     what was there; the same again commits nothing (version null);
 *   - the table then behaves as set: a delete writes a deletion vector,
 *     which refcheck (DuckDB) reads as inlet does; delta.feature.NAME adds a
 *     feature without a property; delta.appendOnly=true makes delete refuse;
 *   - what needs more than a metaData commit is refused (exit 6) naming the
 *     property, as are an unknown delta.* key and a key or value that is
 *     not UTF-8 (exit 1), with nothing committed.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TU_SCRATCH_DIR("alter")

static void sh(tu_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sh(tu_result *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char cmd[16384];
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  tu_sh(r, "%s", cmd);
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Commit @p v of table @p t: its actions, one JSON object each. */
static json_t *commit(const char *t, int v) {
  char p[4300];
  snprintf(p, sizeof p, "%s/_delta_log/%020d.json", t, v);
  size_t n = 0;
  char *text = tu_read_file(p, &n);
  assert_non_null(text);
  json_t *all = json_array();
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *a = json_loads(line, 0, NULL);
    assert_non_null(a);
    json_array_append_new(all, a);
  }
  free(text);
  return all;
}

/* The action of kind @p kind ("protocol", "metaData", "commitInfo") among
 * @p all, or NULL. */
static json_t *action(json_t *all, const char *kind) {
  size_t i;
  json_t *a;
  json_array_foreach(all, i, a) if (json_object_get(a, kind)) return json_object_get(a, kind);
  return NULL;
}

static bool listed(json_t *arr, const char *name) {
  size_t i;
  json_t *x;
  json_array_foreach(arr, i, x) if (strcmp(json_string_value(x), name) == 0) return true;
  return false;
}

static int commits(const char *t) {
  tu_result r;
  sh(&r, "ls '%s/_delta_log' | grep -c 'json$'", t);
  int n = atoi(r.out);
  tu_result_free(&r);
  return n;
}

static void test_alter__properties_grow_the_protocol_in_one_commit(void **state) {
  (void)state;
  char t[4200], ev[4300];
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(ev, sizeof ev, "%s/ev.ndjson", dir);
  tu_result r;
  sh(&r, "'%s' create '%s' --schema 'id long, s string' --property my.team=ingest", INLET_BIN, t);
  sh_ok(&r, "create");
  tu_result_free(&r);
  static const char rows[] =
      "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n{\"id\":3,\"s\":\"c\"}\n";
  assert_int_equal(tu_write_file(ev, rows, sizeof rows - 1), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  sh_ok(&r, "append");
  tu_result_free(&r);
  json_t *all = commit(t, 0);
  json_t *p0 = action(all, "protocol");
  assert_int_equal(json_integer_value(json_object_get(p0, "minWriterVersion")), 2);
  json_decref(all);

  sh(&r,
     "'%s' alter '%s' --property delta.enableDeletionVectors=true --property "
     "delta.deletedFileRetentionDuration='interval 2 days' --property my.owner=data --json",
     INLET_BIN, t);
  sh_ok(&r, "alter");
  json_t *o = json_loads(r.out, 0, NULL);
  assert_non_null(o);
  assert_int_equal(json_integer_value(json_object_get(o, "version")), 2);
  assert_int_equal(json_integer_value(json_object_get(o, "protocol_version")), 2);
  assert_true(json_is_null(json_object_get(o, "backfill_version")));
  json_decref(o);
  tu_result_free(&r);
  all = commit(t, 2);
  json_t *ci = action(all, "commitInfo");
  assert_string_equal(json_string_value(json_object_get(ci, "operation")), "SET TBLPROPERTIES");
  json_t *props = json_loads(
      json_string_value(json_object_get(json_object_get(ci, "operationParameters"), "properties")),
      0, NULL);
  assert_non_null(props);
  assert_string_equal(json_string_value(json_object_get(props, "delta.enableDeletionVectors")),
                      "true");
  json_decref(props);
  json_t *p = action(all, "protocol");
  assert_non_null(p);
  assert_int_equal(json_integer_value(json_object_get(p, "minReaderVersion")), 3);
  assert_int_equal(json_integer_value(json_object_get(p, "minWriterVersion")), 7);
  json_t *rf = json_object_get(p, "readerFeatures"), *wf = json_object_get(p, "writerFeatures");
  assert_int_equal(json_array_size(rf), 1);
  assert_true(listed(rf, "deletionVectors"));
  assert_int_equal(json_array_size(wf), 3);
  assert_true(listed(wf, "appendOnly") && listed(wf, "invariants") &&
              listed(wf, "deletionVectors"));
  json_t *conf = json_object_get(action(all, "metaData"), "configuration");
  assert_string_equal(json_string_value(json_object_get(conf, "my.team")), "ingest");
  assert_string_equal(json_string_value(json_object_get(conf, "my.owner")), "data");
  assert_string_equal(
      json_string_value(json_object_get(conf, "delta.deletedFileRetentionDuration")),
      "interval 2 days");
  assert_string_equal(json_string_value(json_object_get(conf, "delta.enableDeletionVectors")),
                      "true");
  json_decref(all);

  /* Set as asked already: nothing committed. */
  sh(&r, "'%s' alter '%s' --property delta.enableDeletionVectors=true --json", INLET_BIN, t);
  sh_ok(&r, "alter again");
  o = json_loads(r.out, 0, NULL);
  assert_true(json_is_null(json_object_get(o, "version")));
  json_decref(o);
  tu_result_free(&r);
  assert_int_equal(commits(t), 3);

  /* Deletes now write deletion vectors, and DuckDB reads the table as
   * inlet does. */
  sh(&r, "'%s' delete '%s' --where 'id = 2'", INLET_BIN, t);
  sh_ok(&r, "delete");
  assert_non_null(strstr(r.out, "1 deletion vectors added"));
  tu_result_free(&r);
  sh(&r,
     "'%s' scan '%s' --format ndjson > '%s/i.ndjson' && '%s' '%s' delta '%s' > '%s/r.json' && "
     "'%s' '%s' compare '%s/r.json' '%s/i.ndjson' --ndjson > /dev/null && sort '%s/i.ndjson'",
     INLET_BIN, t, dir, INLET_NODE, INLET_REFCHECK, t, dir, INLET_NODE, INLET_REFCHECK, dir, dir,
     dir);
  sh_ok(&r, "refcheck compare");
  assert_string_equal(r.out, "{\"id\":1,\"s\":\"a\"}\n{\"id\":3,\"s\":\"c\"}\n");
  tu_result_free(&r);

  /* A feature without a property, then append-only. */
  sh(&r, "'%s' alter '%s' --property delta.feature.domainMetadata=supported", INLET_BIN, t);
  sh_ok(&r, "alter feature");
  assert_non_null(strstr(r.out, "protocol upgraded"));
  tu_result_free(&r);
  all = commit(t, 4);
  p = action(all, "protocol");
  assert_true(listed(json_object_get(p, "writerFeatures"), "domainMetadata"));
  assert_null(json_object_get(json_object_get(action(all, "metaData"), "configuration"),
                              "delta.feature.domainMetadata"));
  json_decref(all);
  sh(&r, "'%s' alter '%s' --property delta.appendOnly=true", INLET_BIN, t);
  sh_ok(&r, "alter appendOnly");
  tu_result_free(&r);
  all = commit(t, 5);
  assert_null(action(all, "protocol")); /* appendOnly was listed already */
  json_decref(all);
  sh(&r, "'%s' delete '%s' --where 'id = 1'", INLET_BIN, t);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "appendOnly"));
  tu_result_free(&r);
  assert_int_equal(commits(t), 6);
}

static void test_alter__what_needs_more_than_metadata_is_refused(void **state) {
  (void)state;
  char t[4200];
  snprintf(t, sizeof t, "%s/t", dir);
  tu_result r;
  sh(&r, "'%s' create '%s' --schema 'id long'", INLET_BIN, t);
  sh_ok(&r, "create");
  tu_result_free(&r);
  static const char *const refused[][2] = {
      {"delta.columnMapping.mode=name", "delta.columnMapping.mode"},
      {"delta.constraints.pos='id > 0'", "delta.constraints.pos"},
      {"delta.enableInCommitTimestamps=true", "delta.enableInCommitTimestamps"},
      {"delta.minWriterVersion=7", "delta.minWriterVersion"},
      {"delta.checkpointInterval=5 --property delta.enableRowTracking=true",
       "delta.enableRowTracking"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    sh(&r, "'%s' alter '%s' --property %s", INLET_BIN, t, refused[i][0]);
    if (r.status != 6) fail_msg("%s: exit %d: %s", refused[i][0], r.status, r.err);
    assert_non_null(strstr(r.err, refused[i][1]));
    assert_non_null(strstr(r.err, "cannot be set on an existing table"));
    tu_result_free(&r);
  }
  sh(&r, "'%s' alter '%s' --property delta.bogus=1", INLET_BIN, t);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "unknown table property delta.bogus"));
  tu_result_free(&r);
  /* Text the JSON log cannot hold is an error, not a property dropped
   * from the metaData (create checks the same way). */
  sh(&r, "'%s' alter '%s' --property my.key=$(printf 'a\\377b')", INLET_BIN, t);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "table property my.key: the value is not UTF-8 text"));
  tu_result_free(&r);
  sh(&r, "'%s' create '%s/bad' --schema 'id long' --property $(printf 'my.\\377')=1", INLET_BIN,
     dir);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "key is not UTF-8"));
  tu_result_free(&r);
  sh(&r, "'%s' alter '%s' --property delta.checkpointInterval=often", INLET_BIN, t);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "delta.checkpointInterval"));
  tu_result_free(&r);
  assert_int_equal(commits(t), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_alter__properties_grow_the_protocol_in_one_commit, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_alter__what_needs_more_than_metadata_is_refused, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
