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
 *     not UTF-8 (exit 1), with nothing committed;
 *   - `--unset` (Spark's UNSET TBLPROPERTIES [IF EXISTS]) removes keys in one
 *     commit (delta.* whatever their case, others exactly), keeps the
 *     protocol, drops a CHECK constraint with its key, and the table then
 *     behaves without the properties (copy-on-write deletes, rows the
 *     constraint refused accepted); a key not set is exit 3 unless
 *     --if-exists, and keys writers rely on are refused (exit 6); "comment"
 *     sets and unsets the table's description, as in Spark's catalog.
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

/* Table @p t (schema id long, s string) created with @p props (--property
 * options) and rows 1/a, 2/b, 3/c appended through @p ev. */
static void three_rows(const char *t, const char *ev, const char *props) {
  tu_result r;
  sh(&r, "'%s' create '%s' --schema 'id long, s string' %s", INLET_BIN, t, props);
  sh_ok(&r, "create");
  tu_result_free(&r);
  static const char rows[] =
      "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n{\"id\":3,\"s\":\"c\"}\n";
  assert_int_equal(tu_write_file(ev, rows, sizeof rows - 1), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  sh_ok(&r, "append");
  tu_result_free(&r);
}

/* Asserts that refcheck (DuckDB) reads table @p t as inlet does and that
 * its rows, sorted, are @p want. */
static void rows_read_alike(const char *t, const char *want) {
  tu_result r;
  sh(&r,
     "'%s' scan '%s' --format ndjson > '%s/i.ndjson' && '%s' '%s' delta '%s' > '%s/r.json' && "
     "'%s' '%s' compare '%s/r.json' '%s/i.ndjson' --ndjson > /dev/null && sort '%s/i.ndjson'",
     INLET_BIN, t, dir, INLET_NODE, INLET_REFCHECK, t, dir, INLET_NODE, INLET_REFCHECK, dir, dir,
     dir);
  sh_ok(&r, "refcheck compare");
  assert_string_equal(r.out, want);
  tu_result_free(&r);
}

static void test_alter__properties_grow_the_protocol_in_one_commit(void **state) {
  (void)state;
  char t[4200], ev[4300];
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(ev, sizeof ev, "%s/ev.ndjson", dir);
  tu_result r;
  three_rows(t, ev, "--property my.team=ingest");
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
  rows_read_alike(t, "{\"id\":1,\"s\":\"a\"}\n{\"id\":3,\"s\":\"c\"}\n");

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

static int by_text(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of commit @p v's metaData configuration, sorted, one per line. */
static char *conf_keys(const char *t, int v) {
  json_t *all = commit(t, v);
  json_t *conf = json_object_get(action(all, "metaData"), "configuration");
  assert_true(json_is_object(conf));
  const char *keys[64];
  size_t n = 0, len = 1;
  const char *k;
  json_t *val;
  json_object_foreach(conf, k, val) {
    assert_true(n < 64);
    keys[n++] = k;
    len += strlen(k) + 1;
  }
  qsort(keys, n, sizeof *keys, by_text);
  char *out = calloc(1, len);
  assert_non_null(out);
  for (size_t i = 0; i < n; i++) {
    strcat(out, keys[i]);
    strcat(out, "\n");
  }
  json_decref(all);
  return out;
}

static void test_alter__unset_removes_properties_and_keeps_the_protocol(void **state) {
  (void)state;
  char t[4200], ev[4300];
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(ev, sizeof ev, "%s/ev.ndjson", dir);
  tu_result r;
  three_rows(t, ev,
             "--property delta.enableDeletionVectors=true --property delta.constraints.pos='id > "
             "0' --property my.Key=1 --property my.other=2 --property delta.checkpointInterval=5");
  static const char negative[] = "{\"id\":-1,\"s\":\"n\"}\n";
  assert_int_equal(tu_write_file(ev, negative, sizeof negative - 1), 0);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  assert_int_not_equal(r.status, 0); /* the constraint holds */
  tu_result_free(&r);

  /* Keys outside delta. match exactly: my.key is not my.Key. */
  sh(&r, "'%s' alter '%s' --unset my.key", INLET_BIN, t);
  assert_int_equal(r.status, 3);
  assert_non_null(strstr(r.err, "table property my.key is not set"));
  tu_result_free(&r);
  assert_int_equal(commits(t), 2);

  sh(&r,
     "'%s' alter '%s' --unset my.Key --unset DELTA.ENABLEDELETIONVECTORS --unset "
     "delta.constraints.pos --json",
     INLET_BIN, t);
  sh_ok(&r, "unset");
  json_t *o = json_loads(r.out, 0, NULL);
  assert_non_null(o);
  assert_int_equal(json_integer_value(json_object_get(o, "version")), 2);
  assert_true(json_is_null(json_object_get(o, "protocol_version")));
  json_decref(o);
  tu_result_free(&r);
  json_t *all = commit(t, 2);
  json_t *ci = action(all, "commitInfo");
  assert_string_equal(json_string_value(json_object_get(ci, "operation")), "UNSET TBLPROPERTIES");
  json_t *params = json_object_get(ci, "operationParameters");
  assert_string_equal(json_string_value(json_object_get(params, "ifExists")), "false");
  json_t *keys = json_loads(json_string_value(json_object_get(params, "properties")), 0, NULL);
  assert_int_equal(json_array_size(keys), 3);
  assert_true(listed(keys, "my.Key") && listed(keys, "delta.constraints.pos"));
  json_decref(keys);
  assert_null(action(all, "protocol")); /* features stay: the protocol is not in the commit */
  json_t *m2 = action(all, "metaData");
  json_t *m0all = commit(t, 0);
  json_t *m0 = action(m0all, "metaData");
  assert_string_equal(json_string_value(json_object_get(m2, "schemaString")),
                      json_string_value(json_object_get(m0, "schemaString")));
  assert_string_equal(json_string_value(json_object_get(m2, "id")),
                      json_string_value(json_object_get(m0, "id")));
  assert_true(
      listed(json_object_get(action(m0all, "protocol"), "readerFeatures"), "deletionVectors"));
  json_decref(m0all);
  json_decref(all);
  char *k = conf_keys(t, 2);
  assert_string_equal(k, "delta.checkpointInterval\nmy.other\n");
  free(k);

  /* Without the constraint the row is accepted; without the property a
   * delete rewrites the file instead of writing a deletion vector. */
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  sh_ok(&r, "append after the constraint was dropped");
  tu_result_free(&r);
  sh(&r, "'%s' delete '%s' --where 'id = 2'", INLET_BIN, t);
  sh_ok(&r, "delete");
  assert_non_null(strstr(r.out, "copy-on-write"));
  assert_non_null(strstr(r.out, "0 deletion vectors added"));
  tu_result_free(&r);
  rows_read_alike(t, "{\"id\":-1,\"s\":\"n\"}\n{\"id\":1,\"s\":\"a\"}\n"
                     "{\"id\":3,\"s\":\"c\"}\n");
  assert_int_equal(commits(t), 5);

  /* --if-exists skips keys that are not set; nothing set, nothing committed. */
  sh(&r, "'%s' alter '%s' --unset my.Key --unset my.other --if-exists --json", INLET_BIN, t);
  sh_ok(&r, "unset if exists");
  o = json_loads(r.out, 0, NULL);
  assert_int_equal(json_integer_value(json_object_get(o, "version")), 5);
  json_decref(o);
  tu_result_free(&r);
  all = commit(t, 5);
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(action(all, "commitInfo"), "operationParameters"), "ifExists")),
      "true");
  json_decref(all);
  k = conf_keys(t, 5);
  assert_string_equal(k, "delta.checkpointInterval\n");
  free(k);
  sh(&r, "'%s' alter '%s' --unset my.other --if-exists --json", INLET_BIN, t);
  sh_ok(&r, "unset nothing");
  o = json_loads(r.out, 0, NULL);
  assert_true(json_is_null(json_object_get(o, "version")));
  json_decref(o);
  tu_result_free(&r);
  assert_int_equal(commits(t), 6);

  /* Keys writers rely on, or whose removal needs work inlet does not do. */
  static const char *const refused[] = {"delta.columnMapping.mode",
                                        "delta.enableInCommitTimestamps",
                                        "delta.rowTracking.materializedRowIdColumnName",
                                        "delta.feature.deletionVectors", "delta.minWriterVersion"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    sh(&r, "'%s' alter '%s' --unset delta.checkpointInterval --unset %s", INLET_BIN, t, refused[i]);
    if (r.status != 6) fail_msg("%s: exit %d: %s", refused[i], r.status, r.err);
    assert_non_null(strstr(r.err, refused[i]));
    assert_non_null(strstr(r.err, "cannot be unset"));
    tu_result_free(&r);
  }
  sh(&r, "'%s' alter '%s' --unset delta.checkpointInterval --unset DELTA.checkpointinterval",
     INLET_BIN, t);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "given twice"));
  tu_result_free(&r);
  sh(&r, "'%s' alter '%s' --unset delta.checkpointInterval --property my.x=1", INLET_BIN, t);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  sh(&r, "'%s' alter '%s' --property my.x=1 --if-exists", INLET_BIN, t);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  sh(&r, "'%s' alter '%s' --unset location", INLET_BIN, t);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "\"location\" is not a table property"));
  tu_result_free(&r);
  assert_int_equal(commits(t), 6);
  k = conf_keys(t, 5);
  assert_string_equal(k, "delta.checkpointInterval\n");
  free(k);

  /* "comment" is the table's description, as in Spark's catalog: set and
   * unset it there, never as a property. */
  sh(&r, "'%s' alter '%s' --property comment='clicks, deduplicated'", INLET_BIN, t);
  sh_ok(&r, "set comment");
  tu_result_free(&r);
  all = commit(t, 6);
  json_t *m = action(all, "metaData");
  assert_string_equal(json_string_value(json_object_get(m, "description")), "clicks, deduplicated");
  assert_null(json_object_get(json_object_get(m, "configuration"), "comment"));
  json_decref(all);
  sh(&r, "'%s' alter '%s' --unset comment", INLET_BIN, t);
  sh_ok(&r, "unset comment");
  tu_result_free(&r);
  all = commit(t, 7);
  assert_null(json_string_value(json_object_get(action(all, "metaData"), "description")));
  json_decref(all);
  sh(&r, "'%s' alter '%s' --unset comment", INLET_BIN, t);
  assert_int_equal(r.status, 3);
  tu_result_free(&r);
  assert_int_equal(commits(t), 8);
  /* A "comment" an older writer stored as a property goes with the
   * description. inlet's create no longer stores one, so the table is
   * made with another key that is then renamed in its first commit (the
   * escaped copy in commitInfo's parameters does not match the pattern). */
  char t2[4300];
  snprintf(t2, sizeof t2, "%s/t2", dir);
  sh(&r,
     "'%s' create '%s' --schema 'id long' --property my.comment=stored --description kept && "
     "sed -i 's/\"my.comment\":/\"comment\":/' '%s/_delta_log/%020d.json'",
     INLET_BIN, t2, t2, 0);
  sh_ok(&r, "create with a comment property");
  tu_result_free(&r);
  all = commit(t2, 0);
  m = action(all, "metaData");
  assert_string_equal(
      json_string_value(json_object_get(json_object_get(m, "configuration"), "comment")), "stored");
  json_decref(all);
  sh(&r, "'%s' alter '%s' --unset comment", INLET_BIN, t2);
  sh_ok(&r, "unset the stored comment");
  tu_result_free(&r);
  all = commit(t2, 1);
  m = action(all, "metaData");
  assert_null(json_string_value(json_object_get(m, "description")));
  assert_null(json_object_get(json_object_get(m, "configuration"), "comment"));
  json_decref(all);
}

/* As in Spark's catalog, create takes a "comment" property as the table's
 * description, and refuses "location" and "provider". */
static void test_create__comment_is_the_description(void **state) {
  (void)state;
  char t[4300];
  snprintf(t, sizeof t, "%s/t", dir);
  tu_result r;
  sh(&r, "'%s' create '%s' --schema 'id long' --property comment='the events' --property my.k=v",
     INLET_BIN, t);
  sh_ok(&r, "create with a comment");
  tu_result_free(&r);
  json_t *all = commit(t, 0);
  json_t *m = action(all, "metaData");
  assert_string_equal(json_string_value(json_object_get(m, "description")), "the events");
  json_t *conf = json_object_get(m, "configuration");
  assert_null(json_object_get(conf, "comment"));
  assert_string_equal(json_string_value(json_object_get(conf, "my.k")), "v");
  json_t *params = json_object_get(action(all, "commitInfo"), "operationParameters");
  assert_string_equal(json_string_value(json_object_get(params, "description")), "the events");
  assert_string_equal(json_string_value(json_object_get(params, "properties")), "{\"my.k\":\"v\"}");
  json_decref(all);
  sh(&r, "'%s' describe '%s' --json", INLET_BIN, t);
  sh_ok(&r, "describe --json");
  json_t *d = json_loads(r.out, 0, NULL);
  assert_non_null(d);
  assert_string_equal(json_string_value(json_object_get(d, "description")), "the events");
  json_decref(d);
  tu_result_free(&r);
  sh(&r, "'%s' describe '%s' | grep '^description'", INLET_BIN, t);
  sh_ok(&r, "describe");
  assert_string_equal(r.out, "description  the events\n");
  tu_result_free(&r);

  static const char *const refused[] = {
      "--property comment=a --description b", /* the description twice */
      "--property location=/elsewhere",
      "--property provider=delta",
      "--property comment=$(printf 'bad\\377')",
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    char t2[4400];
    snprintf(t2, sizeof t2, "%s/refused%zu", dir, i);
    sh(&r, "'%s' create '%s' --schema 'id long' %s", INLET_BIN, t2, refused[i]);
    if (r.status != 1) fail_msg("%s: exit %d, stderr %s", refused[i], r.status, r.err);
    assert_true(strlen(r.err) > 0);
    tu_result_free(&r);
    sh(&r, "ls '%s/_delta_log' 2>/dev/null | grep -c json; true", t2);
    assert_int_equal(atoi(r.out), 0);
    tu_result_free(&r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_alter__properties_grow_the_protocol_in_one_commit, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_alter__what_needs_more_than_metadata_is_refused, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_alter__unset_removes_properties_and_keeps_the_protocol,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_create__comment_is_the_description, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
