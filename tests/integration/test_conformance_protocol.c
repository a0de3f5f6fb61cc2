/*
 * Issue 11 section 1, "The protocol must list what the metadata turns on",
 * and section 6's column names that need column mapping, through the real
 * `inlet` binary:
 *  - `create` (and `ingest --create-schema`) derive the protocol as Spark's
 *    Protocol.forNewTable does: legacy versions when they name exactly the
 *    features in use, else writer version 7 listing every feature (reader
 *    version 3 and readerFeatures for reader-writer ones);
 *  - delta.feature.X, delta.minReaderVersion/minWriterVersion are protocol
 *    requests, never stored; unknown delta.* keys are refused; a property
 *    turning on a feature inlet cannot honour is refused naming the feature;
 *  - every command that writes (append, ingest, compact, checkpoint,
 *    vacuum, maintain) refuses a table with a writer feature inlet does not
 *    honour, names it, and leaves every byte of the table unchanged.
 * Each table is checked with the spec's consistency rules (protocol_rules.h).
 */
#include "testutil.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol_rules.h"

typedef struct fixture {
  char dir[4096];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("conf-protocol"));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

/* Runs `inlet ARGS` in the fixture directory. */
static int inlet(fixture *f, tu_result *r, const char *args) {
  return tu_sh(r, "cd '%s' && '%s' %s", f->dir, INLET_BIN, args);
}

static void ok(fixture *f, const char *args) {
  tu_result r;
  inlet(f, &r, args);
  if (r.status != 0) fail_msg("inlet %s: exit %d\n%s%s", args, r.status, r.out, r.err);
  tu_result_free(&r);
}

/* Expects `inlet ARGS` to fail with @p needle in its message. */
static void refused(fixture *f, const char *args, const char *needle) {
  tu_result r;
  inlet(f, &r, args);
  if (r.status == 0) fail_msg("inlet %s succeeded; expected a refusal naming %s", args, needle);
  if (!strstr(r.err, needle)) fail_msg("inlet %s: message lacks %s:\n%s", args, needle, r.err);
  tu_result_free(&r);
}

static void rules_hold(fixture *f, const char *table) {
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", f->dir, table);
  char *msg = pr_check_table(path);
  if (msg) fail_msg("%s breaks a protocol rule: %s", table, msg);
}

/* Action @p kind ("protocol", "metaData") of version 0 of @p table. */
static json_t *action_of(fixture *f, const char *table, const char *kind) {
  char path[4300];
  snprintf(path, sizeof path, "%s/%s/_delta_log/00000000000000000000.json", f->dir, table);
  char *text = tu_read_file(path, NULL);
  assert_non_null(text);
  json_t *out = NULL;
  for (char *l = strtok(text, "\n"); l && !out; l = strtok(NULL, "\n")) {
    json_t *a = json_loads(l, 0, NULL);
    if (json_object_get(a, kind)) out = json_incref(json_object_get(a, kind));
    json_decref(a);
  }
  free(text);
  assert_non_null(out);
  return out;
}

/* The protocol action of version 0, compact JSON. */
static char *protocol_of(fixture *f, const char *table) {
  json_t *p = action_of(f, table, "protocol");
  char *out = json_dumps(p, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(p);
  return out;
}

static json_t *configuration_of(fixture *f, const char *table) {
  json_t *m = action_of(f, table, "metaData");
  json_t *out = json_incref(json_object_get(m, "configuration"));
  json_decref(m);
  assert_non_null(out);
  return out;
}

static void expect_protocol(fixture *f, const char *table, const char *create_args,
                            const char *expected) {
  char args[2048];
  snprintf(args, sizeof args, "create %s %s", table, create_args);
  ok(f, args);
  char *p = protocol_of(f, table);
  if (strcmp(p, expected) != 0)
    fail_msg("create %s:\n  protocol %s\n  expected %s", create_args, p, expected);
  free(p);
  rules_hold(f, table);
}

static void put(fixture *f, const char *name, const char *text) {
  char p[4300];
  snprintf(p, sizeof p, "%s/%s", f->dir, name);
  assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
}

/* ---- protocol derivation ------------------------------------------------------ */

static void test_protocol__not_null_and_timestamp_ntz_list_invariants(void **state) {
  fixture *f = *state;
  /* The reproduction: writerFeatures lacked "invariants". */
  expect_protocol(f, "t", "--schema 'id long not null, ts timestamp_ntz'",
                  "{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
                  "[\"timestampNtz\"],\"writerFeatures\":[\"appendOnly\",\"invariants\","
                  "\"timestampNtz\"]}");
  put(f, "in.ndjson", "{\"id\":1,\"ts\":\"2024-01-01T00:00:00\"}\n");
  ok(f, "append t in.ndjson");
  put(f, "null.ndjson", "{\"id\":null,\"ts\":\"2024-01-01T00:00:00\"}\n");
  refused(f, "append t null.ndjson", "id");
  rules_hold(f, "t");
}

static void test_protocol__legacy_versions_where_they_name_exactly_the_features(void **state) {
  fixture *f = *state;
  expect_protocol(f, "plain", "--schema 'id long not null'",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":2}");
  expect_protocol(f, "ao", "--schema 'id long' --property delta.appendOnly=true",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":2}");
  expect_protocol(f, "w3", "--schema 'id long' --property delta.minWriterVersion=3",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":3}");
  expect_protocol(f, "w4", "--schema 'id long' --property delta.minWriterVersion=4",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":4}");
  expect_protocol(f, "w6", "--schema 'id long' --property delta.minWriterVersion=6",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":6}");
  expect_protocol(f, "feat", "--schema 'id long' --property delta.feature.appendOnly=supported",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":2}");
  expect_protocol(f, "bare", "--schema 'id long' --property delta.ignoreProtocolDefaults=true",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":1}");
  /* (1,2) would imply invariants too, which nothing asked for: writer 7. */
  expect_protocol(f, "bare_ao",
                  "--schema 'id long' --property delta.ignoreProtocolDefaults=true "
                  "--property delta.appendOnly=true",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":"
                  "[\"appendOnly\"]}");
  /* Spark's DeltaProtocolVersionSuite "table creation with automatically-
   * enabled legacy feature and unsupported protocol": change data feed on the
   * default (1,2) is (1,7) listing appendOnly, invariants and changeDataFeed,
   * not (1,4), which would also imply checkConstraints and generatedColumns. */
  expect_protocol(f, "cdf", "--schema 'id long' --property delta.enableChangeDataFeed=true",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":"
                  "[\"appendOnly\",\"invariants\",\"changeDataFeed\"]}");
  expect_protocol(f, "cdf4",
                  "--schema 'id long' --property delta.enableChangeDataFeed=true "
                  "--property delta.minWriterVersion=4",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":4}");
}

static void test_protocol__table_features_accepted_by_create(void **state) {
  fixture *f = *state;
  expect_protocol(f, "dv", "--schema 'id long' --property delta.enableDeletionVectors=true",
                  "{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
                  "[\"deletionVectors\"],\"writerFeatures\":[\"appendOnly\",\"invariants\","
                  "\"deletionVectors\"]}");
  expect_protocol(f, "ict", "--schema 'id long' --property delta.enableInCommitTimestamps=true",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":"
                  "[\"appendOnly\",\"invariants\",\"inCommitTimestamp\"]}");
  expect_protocol(f, "tw", "--schema 'id long' --property delta.enableTypeWidening=true",
                  "{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
                  "[\"typeWidening\"],\"writerFeatures\":[\"appendOnly\",\"invariants\","
                  "\"typeWidening\"]}");
  expect_protocol(f, "vpc",
                  "--schema 'id long' --property delta.feature.vacuumProtocolCheck=supported",
                  "{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
                  "[\"vacuumProtocolCheck\"],\"writerFeatures\":[\"appendOnly\",\"invariants\","
                  "\"vacuumProtocolCheck\"]}");
  /* Supported but unused: a CHECK-constraint-capable table without constraints. */
  expect_protocol(f, "ck", "--schema 'id long' --property delta.feature.checkConstraints=supported",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":3}");
  put(f, "in.ndjson", "{\"id\":1}\n{\"id\":2}\n");
  const char *tables[] = {"dv", "ict", "tw", "vpc", "ck"};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    char a[256];
    snprintf(a, sizeof a, "append %s in.ndjson", tables[i]);
    ok(f, a);
    ok(f, a);
    snprintf(a, sizeof a, "compact %s --min-files 2", tables[i]);
    ok(f, a);
    snprintf(a, sizeof a, "checkpoint %s", tables[i]);
    ok(f, a);
    rules_hold(f, tables[i]);
  }
}

static void test_protocol__requests_are_not_stored(void **state) {
  fixture *f = *state;
  ok(f, "create t --schema 'id long' --property delta.minReaderVersion=1 "
        "--property delta.minWriterVersion=4 --property delta.feature.deletionVectors=supported "
        "--property delta.ignoreProtocolDefaults=false --property Delta.CheckpointInterval=5 "
        "--property my.own=x");
  json_t *conf = configuration_of(f, "t");
  char *s = json_dumps(conf, JSON_COMPACT | JSON_SORT_KEYS);
  /* Known keys are stored under Delta's spelling; other namespaces as given. */
  assert_string_equal(s, "{\"delta.checkpointInterval\":\"5\",\"my.own\":\"x\"}");
  free(s);
  json_decref(conf);
  char *p = protocol_of(f, "t");
  assert_string_equal(p, "{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
                         "[\"deletionVectors\"],\"writerFeatures\":[\"appendOnly\","
                         "\"invariants\",\"checkConstraints\",\"changeDataFeed\","
                         "\"generatedColumns\",\"deletionVectors\"]}");
  free(p);
  rules_hold(f, "t");
}

static void test_protocol__unknown_delta_keys_are_refused(void **state) {
  fixture *f = *state;
  refused(f, "create t --schema 'id long' --property delta.foo=1", "delta.foo");
  refused(f, "create t --schema 'id long' --property delta.appendOnly=yes", "true or false");
  refused(f, "create t --schema 'id long' --property delta.minWriterVersion=8",
          "delta.minWriterVersion");
  refused(f, "create t --schema 'id long' --property delta.feature.fancyNewThing=supported",
          "fancyNewThing");
  refused(f, "create t --schema 'id long' --property delta.feature.appendOnly=on", "supported");
  refused(f, "create t --schema 'id long' --property delta.checkpointPolicy=v3", "classic");
  refused(f,
          "create t --schema 'id long' --property delta.appendOnly=true "
          "--property DELTA.APPENDONLY=true",
          "twice");
  /* Nothing was created. */
  tu_result r;
  tu_sh(&r, "test -e '%s/t/_delta_log/00000000000000000000.json'", f->dir);
  assert_int_not_equal(r.status, 0);
  tu_result_free(&r);
}

static void test_protocol__unhonoured_features_refused_naming_them(void **state) {
  fixture *f = *state;
  static const struct {
    const char *prop, *feature;
  } cases[] = {
      {"delta.enableIcebergCompatV2=true", "\"icebergCompatV2\""},
      {"delta.feature.clustering=supported", "\"clustering\""},
      {"delta.feature.catalogManaged=supported", "\"catalogManaged\""},
      {"delta.enableMaterializePartitionColumnsFeature=true", "\"materializePartitionColumns\""},
      {"delta.universalFormat.enabledFormats=iceberg", "icebergCompatV2"},
      {"delta.columnMapping.maxColumnId=5", "delta.columnMapping.maxColumnId"},
      {"delta.inCommitTimestampEnablementVersion=3", "delta.inCommitTimestampEnablementVersion"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char a[512];
    snprintf(a, sizeof a, "create t%zu --schema 'id long' --property '%s'", i, cases[i].prop);
    refused(f, a, cases[i].feature);
  }
  /* Variant shredding: inlet writes unshredded values, which the spec allows
   * where shredding is enabled; the feature needs variantType. */
  expect_protocol(f, "shred", "--schema 'id long' --property delta.enableVariantShredding=true",
                  "{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
                  "[\"variantType\",\"variantShredding\"],\"writerFeatures\":[\"appendOnly\","
                  "\"invariants\",\"variantType\",\"variantShredding\"]}");
  /* CHECK constraints are enforced (legacy writer version 3 implies them). */
  expect_protocol(f, "chk", "--schema 'id long' --property 'delta.constraints.positive=id>0'",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":3}");
  refused(f, "create bad --schema 'id long' --property 'delta.constraints.positive=nosuch>0'",
          "delta.constraints.positive");
  /* Column mapping: reader version 2 supports it; the legacy writer version
   * 5 would imply features the table does not use, so writer version 7
   * lists the default ones and columnMapping (ids and physical names:
   * test_column_mapping). */
  expect_protocol(f, "cmname", "--schema 'id long' --property delta.columnMapping.mode=name",
                  "{\"minReaderVersion\":2,\"minWriterVersion\":7,\"writerFeatures\":"
                  "[\"appendOnly\",\"invariants\",\"columnMapping\"]}");
  expect_protocol(f, "cmid",
                  "--schema 'id long' --property delta.columnMapping.mode=id --property "
                  "delta.enableDeletionVectors=true",
                  "{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
                  "[\"columnMapping\",\"deletionVectors\"],\"writerFeatures\":[\"appendOnly\","
                  "\"invariants\",\"columnMapping\",\"deletionVectors\"]}");
  /* columnMapping.mode=none is just the default. */
  expect_protocol(f, "none", "--schema 'id long' --property delta.columnMapping.mode=none",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":2}");
}

static void test_protocol__ingest_create_schema_follows_the_same_rules(void **state) {
  fixture *f = *state;
  put(f, "in.ndjson", "{\"id\":1,\"ts\":\"2024-01-01T00:00:00\"}\n");
  ok(f, "ingest t --source file:in.ndjson --once --quiet "
        "--create-schema 'id long not null, ts timestamp_ntz'");
  char *p = protocol_of(f, "t");
  assert_string_equal(p, "{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
                         "[\"timestampNtz\"],\"writerFeatures\":[\"appendOnly\",\"invariants\","
                         "\"timestampNtz\"]}");
  free(p);
  rules_hold(f, "t");
  put(f, "in2.ndjson", "{\"a b\":1}\n");
  refused(f, "ingest u --source file:in2.ndjson --once --quiet --create-schema '`a b` long'",
          "column mapping");
}

/* ---- column names (section 6) ------------------------------------------------ */

static void test_column_names__that_need_column_mapping_are_refused(void **state) {
  fixture *f = *state;
  static const char *const bad[] = {"`a b`", "`a,b`", "`a;b`", "`a{b`",
                                    "`a}b`", "`a(b`", "`a)b`", "`a=b`"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char a[256];
    snprintf(a, sizeof a, "create t --schema 'id long, %s string'", bad[i]);
    refused(f, a, "column mapping");
  }
  refused(f, "create t --schema 'id long, s struct<`x y`: int>'", "\"x y\"");
  refused(f, "create t --schema 'id long, l array<struct<`x=y`: int>>'", "\"x=y\"");
  /* Dots, dashes, colons and non-ASCII letters need no column mapping. */
  expect_protocol(f, "fine", "--schema '`a.b` long, `c-d` string, `e:f` int, `größe` double'",
                  "{\"minReaderVersion\":1,\"minWriterVersion\":2}");
}

/* ---- the writer gate, command by command -------------------------------------- */

/* A table whose version 0 is written by hand with @p protocol, @p conf (JSON
 * object) and column @p col_json. */
static void foreign_table(fixture *f, const char *name, const char *protocol, const char *conf,
                          const char *col_json) {
  char dir[4300], path[4400];
  snprintf(dir, sizeof dir, "%s/%s/_delta_log", f->dir, name);
  tu_result r;
  tu_sh(&r, "mkdir -p '%s'", dir);
  tu_result_free(&r);
  json_t *schema =
      json_pack("{s:s,s:[o]}", "type", "struct", "fields", json_loads(col_json, 0, NULL));
  char *schema_s = json_dumps(schema, JSON_COMPACT);
  json_decref(schema);
  json_t *meta = json_pack("{s:{s:s,s:{s:s,s:{}},s:s,s:[],s:o,s:I}}", "metaData", "id",
                           "00000000-0000-0000-0000-000000000001", "format", "provider", "parquet",
                           "options", "schemaString", schema_s, "partitionColumns", "configuration",
                           json_loads(conf, 0, NULL), "createdTime", (json_int_t)1700000000000);
  char *meta_s = json_dumps(meta, JSON_COMPACT);
  json_decref(meta);
  free(schema_s);
  char text[16384];
  snprintf(text, sizeof text,
           "{\"commitInfo\":{\"timestamp\":1700000000000,\"operation\":\"CREATE TABLE\"}}\n"
           "{\"protocol\":%s}\n%s\n",
           protocol, meta_s);
  free(meta_s);
  snprintf(path, sizeof path, "%s/00000000000000000000.json", dir);
  assert_int_equal(tu_write_file(path, text, strlen(text)), 0);
  /* Some of these break the protocol's rules on purpose. */
  snprintf(path, sizeof path, "%s/%s", f->dir, name);
  tu_rules_exempt(path, "hand-made foreign table for the writer gate");
}

/* Every file of the table with its checksum. */
static char *table_bytes(fixture *f, const char *name) {
  tu_result r;
  tu_sh(&r, "cd '%s/%s' && find . -type f | LC_ALL=C sort | xargs sha256sum", f->dir, name);
  assert_int_equal(r.status, 0);
  char *out = r.out;
  r.out = NULL;
  tu_result_free(&r);
  return out;
}

#define COL_ID "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}"
/* The same column with the metadata column mapping requires. */
#define COL_ID_CM                                                                                  \
  "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"delta.columnMapping.id\":" \
  "1,"                                                                                             \
  "\"delta.columnMapping.physicalName\":\"col-1\"}}"

/* Every writing command refuses @p name, naming @p needle, and changes nothing. */
/* @p n_cmds: how many of the commands below (the first ones: those that
 * write rows) must refuse. */
static void writers_refuse(fixture *f, const char *name, const char *needle, size_t n_cmds) {
  put(f, "in.ndjson", "{\"id\":1}\n");
  char *before = table_bytes(f, name);
  static const char *const cmds[][2] = {
      {"append", "in.ndjson"},
      {"ingest", "--source file:in.ndjson --once --quiet"},
      {"compact", "--min-files 2"},
      {"checkpoint", ""},
      {"vacuum", "--retain 0h --force"},
      {"vacuum", "--dry-run"},
      {"maintain", "--compact --vacuum"},
  };
  for (size_t i = 0; i < n_cmds && i < sizeof cmds / sizeof cmds[0]; i++) {
    char a[512];
    snprintf(a, sizeof a, "%s %s %s", cmds[i][0], name, cmds[i][1]);
    refused(f, a, needle);
  }
  char *after = table_bytes(f, name);
  assert_string_equal(before, after);
  free(before);
  free(after);
}

static void every_writer_refuses(fixture *f, const char *name, const char *needle) {
  writers_refuse(f, name, needle, SIZE_MAX);
}

static void test_writer_gate__unhonoured_features_stop_every_command(void **state) {
  fixture *f = *state;
  foreign_table(f, "cl",
                "{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":"
                "[\"domainMetadata\",\"clustering\"]}",
                "{}", COL_ID);
  /* Clustering columns are tracked by commits that add files; checkpoints
   * keep every domain, and vacuum adds nothing. */
  writers_refuse(f, "cl", "\"clustering\"", 3);
  ok(f, "checkpoint cl");
  ok(f, "vacuum cl --dry-run");
  foreign_table(f, "cm", "{\"minReaderVersion\":2,\"minWriterVersion\":5}",
                "{\"delta.columnMapping.mode\":\"name\",\"delta.columnMapping.maxColumnId\":\"1\"}",
                COL_ID_CM);
  /* Column mapping tables take appends, ingest, compaction, checkpoints
   * and vacuum (test_column_mapping); restore is refused. */
  ok(f, "compact cm --min-files 2");
  ok(f, "maintain cm --compact --vacuum");
  foreign_table(f, "unknown",
                "{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":"
                "[\"appendOnly\",\"someFutureFeature\"]}",
                "{}", COL_ID);
  every_writer_refuses(f, "unknown", "\"someFutureFeature\"");
  foreign_table(f, "w8", "{\"minReaderVersion\":1,\"minWriterVersion\":8}", "{}", COL_ID);
  every_writer_refuses(f, "w8", "writer version 8");
  /* Metadata turning on a feature the protocol lacks (Spark refuses it too). */
  foreign_table(f, "mismatch", "{\"minReaderVersion\":1,\"minWriterVersion\":2}",
                "{\"delta.enableChangeDataFeed\":\"true\"}", COL_ID);
  every_writer_refuses(f, "mismatch", "\"changeDataFeed\"");
}

static void test_writer_gate__invariants_enforced_on_row_writes(void **state) {
  fixture *f = *state;
  foreign_table(
      f, "inv", "{\"minReaderVersion\":1,\"minWriterVersion\":2}", "{}",
      "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":"
      "{\"delta.invariants\":\"{\\\"expression\\\":{\\\"expression\\\":\\\"id > 3\\\"}}\"}}");
  put(f, "in.ndjson", "{\"id\":1}\n");
  char *before = table_bytes(f, "inv");
  /* A violating row aborts the append, naming the invariant. */
  refused(f, "append inv in.ndjson", "id > 3");
  char *after = table_bytes(f, "inv");
  assert_string_equal(before, after);
  free(before);
  free(after);
  /* Rows that meet it are written; checkpoints and vacuum add no rows. */
  put(f, "ok.ndjson", "{\"id\":4}\n{\"id\":5}\n");
  ok(f, "append inv ok.ndjson");
  ok(f, "append inv ok.ndjson");
  ok(f, "compact inv --min-files 2");
  ok(f, "checkpoint inv");
  ok(f, "vacuum inv --dry-run");
}

static void test_writer_gate__appendonly_and_cdf_tables_take_appends_and_compaction(void **state) {
  fixture *f = *state;
  ok(f, "create ao --schema 'id long' --property delta.appendOnly=true "
        "--property delta.enableChangeDataFeed=true");
  put(f, "in.ndjson", "{\"id\":1}\n");
  for (int i = 0; i < 3; i++)
    ok(f, "append ao in.ndjson");
  /* dataChange=false rewrites are allowed on append-only tables. */
  ok(f, "compact ao --min-files 2");
  ok(f, "checkpoint ao");
  ok(f, "maintain ao");
  rules_hold(f, "ao");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_protocol__not_null_and_timestamp_ntz_list_invariants,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_protocol__legacy_versions_where_they_name_exactly_the_features, setup, teardown),
      cmocka_unit_test_setup_teardown(test_protocol__table_features_accepted_by_create, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_protocol__requests_are_not_stored, setup, teardown),
      cmocka_unit_test_setup_teardown(test_protocol__unknown_delta_keys_are_refused, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_protocol__unhonoured_features_refused_naming_them, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_protocol__ingest_create_schema_follows_the_same_rules,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_column_names__that_need_column_mapping_are_refused,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_writer_gate__unhonoured_features_stop_every_command,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_writer_gate__invariants_enforced_on_row_writes, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(
          test_writer_gate__appendonly_and_cdf_tables_take_appends_and_compaction, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
