/*
 * Issue 11 section 1 (writer side): the one writer-feature gate. For each
 * protocol/metadata combination the spec gives a rule for (PROTOCOL.md
 * "Table Features", "Writer Version Requirements", "Active Features" and the
 * features' "Writer Requirements"), every writing operation either proceeds
 * or is refused with a message naming the feature or version.
 */
#include "testutil.h"

#include <stdio.h>

#include "delta/delta_features.h"

static const delta_write_op ALL[] = {DELTA_OP_APPEND, DELTA_OP_COMPACT, DELTA_OP_CHECKPOINT,
                                     DELTA_OP_LOG_CLEANUP, DELTA_OP_VACUUM};
#define N_OPS (sizeof ALL / sizeof ALL[0])

typedef struct table_def {
  int reader, writer;
  const char *rf[4]; /* NULL-terminated */
  const char *wf[6];
  const char *columns; /* schemaString fields, JSON */
  const char *conf[6]; /* key, value pairs, NULL-terminated */
} table_def;

#define COL_ID "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}"

static int gate(const table_def *d, delta_write_op op, unsigned flags, inlet_error *err) {
  delta_protocol p;
  memset(&p, 0, sizeof p);
  p.min_reader = d->reader;
  p.min_writer = d->writer;
  char *rf[4], *wf[6];
  for (int i = 0; d->rf[i]; i++)
    rf[p.n_reader_features++] = (char *)d->rf[i];
  for (int i = 0; d->wf[i]; i++)
    wf[p.n_writer_features++] = (char *)d->wf[i];
  p.reader_features = rf;
  p.writer_features = wf;
  char schema[2048];
  snprintf(schema, sizeof schema, "{\"type\":\"struct\",\"fields\":[%s]}",
           d->columns ? d->columns : COL_ID);
  delta_kv conf[3];
  delta_metadata m;
  memset(&m, 0, sizeof m);
  m.schema_string = schema;
  for (int i = 0; d->conf[i]; i += 2)
    conf[m.n_configuration++] = (delta_kv){(char *)d->conf[i], (char *)d->conf[i + 1]};
  m.configuration = conf;
  *err = (inlet_error)INLET_ERROR_INIT;
  return delta_features_check_write(&p, &m, op, flags, err);
}

static void expect_ok(const table_def *d, delta_write_op op, unsigned flags) {
  inlet_error err;
  int rc = gate(d, op, flags, &err);
  if (rc != 0) fail_msg("op %d refused: %s", (int)op, err.message);
}

static void expect_refused(const table_def *d, delta_write_op op, unsigned flags,
                           const char *needle) {
  inlet_error err;
  int rc = gate(d, op, flags, &err);
  if (rc != INLET_EUNSUPPORTED)
    fail_msg("op %d: expected a refusal naming %s, got %d", (int)op, needle, rc);
  if (!strstr(err.message, needle))
    fail_msg("op %d: message lacks %s: %s", (int)op, needle, err.message);
}

static void test_gate__legacy_plain_tables_are_written(void **state) {
  (void)state;
  for (int w = 1; w <= 6; w++) {
    table_def d = {1, w, {NULL}, {NULL}, NULL, {NULL}};
    for (size_t i = 0; i < N_OPS; i++)
      expect_ok(&d, ALL[i], 0);
  }
  /* NOT NULL on a legacy protocol: invariants are implied and NOT NULL is enforced. */
  table_def nn = {1,
                  2,
                  {NULL},
                  {NULL},
                  "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}}",
                  {NULL}};
  for (size_t i = 0; i < N_OPS; i++)
    expect_ok(&nn, ALL[i], 0);
}

static void test_gate__unknown_writer_versions_are_refused(void **state) {
  (void)state;
  table_def d8 = {1, 8, {NULL}, {NULL}, NULL, {NULL}};
  table_def d0 = {1, 0, {NULL}, {NULL}, NULL, {NULL}};
  table_def r4 = {4, 7, {NULL}, {NULL}, NULL, {NULL}};
  for (size_t i = 0; i < N_OPS; i++) {
    expect_refused(&d8, ALL[i], 0, "writer version 8");
    expect_refused(&d0, ALL[i], 0, "writer version 0");
    expect_refused(&r4, ALL[i], 0, "reader version 4");
  }
}

static void test_gate__unimplemented_writer_features_refuse_what_they_bind(void **state) {
  (void)state;
  table_def rt = {1, 7, {NULL}, {"domainMetadata", "rowTracking", NULL}, NULL, {NULL}};
  table_def unknown = {1, 7, {NULL}, {"appendOnly", "fancyNewThing", NULL}, NULL, {NULL}};
  table_def cl = {1, 7, {NULL}, {"domainMetadata", "clustering", NULL}, NULL, {NULL}};
  table_def ice = {2,      7,
                   {NULL}, {"columnMapping", "icebergCompatV2", NULL},
                   NULL,   {"delta.columnMapping.mode", "none", NULL}};
  /* A reader feature is a writer's business too, even when missing from writerFeatures. */
  table_def rdr = {3, 7, {"catalogManaged", NULL}, {NULL}, NULL, {NULL}};
  for (size_t i = 0; i < N_OPS; i++) {
    /* Clustering binds commits that add or rewrite files; checkpoints keep
     * its fields and domains, vacuum and log cleanup touch neither. Row
     * tracking is honoured by every operation (test_row_tracking). */
    bool rows =
        ALL[i] == DELTA_OP_APPEND || ALL[i] == DELTA_OP_COMPACT || ALL[i] == DELTA_OP_CREATE;
    if (rows)
      expect_refused(&cl, ALL[i], 0, "\"clustering\"");
    else
      expect_ok(&cl, ALL[i], 0);
    expect_ok(&rt, ALL[i], 0);
    expect_refused(&unknown, ALL[i], 0, "\"fancyNewThing\"");
    expect_refused(&ice, ALL[i], 0, "\"icebergCompatV2\"");
    expect_refused(&rdr, ALL[i], 0, "\"catalogManaged\"");
  }
}

static void test_gate__honoured_table_features_are_written(void **state) {
  (void)state;
  table_def d = {
      3,
      7,
      {"timestampNtz", "deletionVectors", "vacuumProtocolCheck", NULL},
      {"appendOnly", "invariants", "timestampNtz", "deletionVectors", "vacuumProtocolCheck", NULL},
      "{\"name\":\"t\",\"type\":\"timestamp_ntz\",\"nullable\":false,\"metadata\":{}}",
      {"delta.appendOnly", "true", "delta.enableDeletionVectors", "true", NULL}};
  for (size_t i = 0; i < N_OPS; i++)
    expect_ok(&d, ALL[i], 0);
  table_def ict = {1,      7,
                   {NULL}, {"inCommitTimestamp", "domainMetadata", NULL},
                   NULL,   {"delta.enableInCommitTimestamps", "true", NULL}};
  for (size_t i = 0; i < N_OPS; i++)
    expect_ok(&ict, ALL[i], 0);
}

/* The gate lets every operation through: the table writer and compaction
 * check every row against the expressions (delta_constraints.h; their
 * tests are test_delta_constraints and test_constraints). */
static void test_gate__invariant_expressions_are_honoured(void **state) {
  (void)state;
  const char *col =
      "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":"
      "{\"delta.invariants\":\"{\\\"expression\\\":{\\\"expression\\\":\\\"id > 3\\\"}}\"}}";
  table_def legacy = {1, 2, {NULL}, {NULL}, col, {NULL}};
  table_def tf = {1, 7, {NULL}, {"invariants", NULL}, col, {NULL}};
  const table_def *ds[] = {&legacy, &tf};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < N_OPS; i++)
      expect_ok(ds[k], ALL[i], 0);
  /* An invariant column on a protocol without the feature is a mismatch. */
  table_def none = {1, 1, {NULL}, {NULL}, col, {NULL}};
  expect_refused(&none, DELTA_OP_APPEND, 0, "\"invariants\"");
}

static void test_gate__check_constraints_are_honoured(void **state) {
  (void)state;
  table_def d = {1, 3, {NULL}, {NULL}, NULL, {"delta.constraints.pos", "id > 0", NULL}};
  for (size_t i = 0; i < N_OPS; i++)
    expect_ok(&d, ALL[i], 0);
  /* A constraint on a protocol without the feature is a mismatch. */
  table_def low = {1, 2, {NULL}, {NULL}, NULL, {"delta.constraints.pos", "id > 0", NULL}};
  expect_refused(&low, DELTA_OP_APPEND, 0, "\"checkConstraints\"");
}

static void test_gate__change_data_feed_allows_appends_and_rewrites(void **state) {
  (void)state;
  /* Add-only commits and dataChange=false rewrites need no change data files. */
  table_def legacy = {1, 4, {NULL}, {NULL}, NULL, {"delta.enableChangeDataFeed", "true", NULL}};
  table_def tf = {
      1, 7, {NULL}, {"changeDataFeed", NULL}, NULL, {"delta.enableChangeDataFeed", "true", NULL}};
  for (size_t i = 0; i < N_OPS; i++) {
    expect_ok(&legacy, ALL[i], 0);
    expect_ok(&tf, ALL[i], 0);
  }
}

static void test_gate__generated_and_identity_columns(void **state) {
  (void)state;
  const char *gen = COL_ID ",{\"name\":\"d\",\"type\":\"date\",\"nullable\":true,\"metadata\":"
                           "{\"delta.generationExpression\":\"CAST(ts AS DATE)\"}}";
  table_def g = {1, 4, {NULL}, {NULL}, gen, {NULL}};
  expect_refused(&g, DELTA_OP_APPEND, 0, "\"generatedColumns\"");
  expect_ok(&g, DELTA_OP_APPEND, DELTA_WRITE_COMPUTES_GENERATED);
  expect_ok(&g, DELTA_OP_COMPACT, 0);
  const char *idc = "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":"
                    "{\"delta.identity.start\":1,\"delta.identity.step\":1,"
                    "\"delta.identity.allowExplicitInsert\":false}}";
  table_def id = {1, 6, {NULL}, {NULL}, idc, {NULL}};
  expect_refused(&id, DELTA_OP_APPEND, 0, "\"identityColumns\"");
  expect_ok(&id, DELTA_OP_COMPACT, 0);
  expect_ok(&id, DELTA_OP_CHECKPOINT, 0);
}

static void test_gate__v2_checkpoint_tables_take_every_operation(void **state) {
  (void)state;
  table_def d = {3,
                 7,
                 {"v2Checkpoint", NULL},
                 {"v2Checkpoint", NULL},
                 NULL,
                 {"delta.checkpointPolicy", "v2", NULL}};
  /* Checkpoints are v2 ones with sidecars, log cleanup keeps the sidecars
   * that remaining checkpoints name: every operation is honoured. */
  for (size_t i = 0; i < N_OPS; i++)
    expect_ok(&d, ALL[i], 0);
  expect_ok(&d, DELTA_OP_RESTORE, 0);
  table_def cp = {1, 7, {NULL}, {"checkpointProtection", NULL}, NULL, {NULL}};
  expect_ok(&cp, DELTA_OP_APPEND, 0);
  expect_refused(&cp, DELTA_OP_LOG_CLEANUP, 0, "\"checkpointProtection\"");
}

static void test_gate__column_mapping(void **state) {
  (void)state;
  table_def on = {2, 5, {NULL}, {NULL}, NULL, {"delta.columnMapping.mode", "name", NULL}};
  table_def off = {2, 5, {NULL}, {NULL}, NULL, {"delta.columnMapping.mode", "none", NULL}};
  /* Appends (and ingest) and compaction write physical names and ids,
   * checkpoints keep the mapping, log cleanup and vacuum never look at
   * names, restore keeps maxColumnId and the mode, create assigns ids and
   * physical names. */
  for (size_t i = 0; i < N_OPS; i++) {
    expect_ok(&on, ALL[i], 0);
    expect_ok(&off, ALL[i], 0);
  }
  expect_ok(&on, DELTA_OP_RESTORE, 0);
  expect_ok(&on, DELTA_OP_CREATE, 0);
}

/* Metadata that turns on a feature the protocol does not support: Spark
 * refuses the table (DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH), so do we. */
static void test_gate__protocol_metadata_mismatch_is_refused(void **state) {
  (void)state;
  table_def ntz_nn = {
      3,
      7,
      {"timestampNtz", NULL},
      {"timestampNtz", NULL},
      "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},"
      "{\"name\":\"t\",\"type\":\"timestamp_ntz\",\"nullable\":true,\"metadata\":{}}",
      {NULL}};
  table_def ntz_legacy = {1,
                          2,
                          {NULL},
                          {NULL},
                          "{\"name\":\"t\",\"type\":\"timestamp_ntz\",\"nullable\":true,"
                          "\"metadata\":{}}",
                          {NULL}};
  table_def ao = {1, 7, {NULL}, {"invariants", NULL}, NULL, {"delta.appendOnly", "true", NULL}};
  table_def cdf = {1, 2, {NULL}, {NULL}, NULL, {"delta.enableChangeDataFeed", "true", NULL}};
  table_def ck = {1, 2, {NULL}, {NULL}, NULL, {"delta.constraints.c", "id > 0", NULL}};
  table_def ict = {1, 2, {NULL}, {NULL}, NULL, {"delta.enableInCommitTimestamps", "true", NULL}};
  table_def cm = {1, 5, {NULL}, {NULL}, NULL, {"delta.columnMapping.mode", "id", NULL}};
  for (size_t i = 0; i < N_OPS; i++) {
    expect_refused(&ntz_nn, ALL[i], 0, "\"invariants\"");
    expect_refused(&ntz_nn, ALL[i], 0, "DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH");
    expect_refused(&ntz_legacy, ALL[i], 0, "\"timestampNtz\"");
    expect_refused(&ao, ALL[i], 0, "\"appendOnly\"");
    expect_refused(&cdf, ALL[i], 0, "\"changeDataFeed\"");
    expect_refused(&ck, ALL[i], 0, "\"checkConstraints\"");
    expect_refused(&ict, ALL[i], 0, "\"inCommitTimestamp\"");
    expect_refused(&cm, ALL[i], 0, "\"columnMapping\"");
  }
}

static void test_gate__create_needs_every_operation_honoured(void **state) {
  (void)state;
  table_def v2 = {3,
                  7,
                  {"v2Checkpoint", NULL},
                  {"v2Checkpoint", NULL},
                  NULL,
                  {"delta.checkpointPolicy", "v2", NULL}};
  expect_ok(&v2, DELTA_OP_CREATE, 0); /* every operation honoured */
  table_def ok = {1,      7,
                  {NULL}, {"appendOnly", "invariants", "changeDataFeed", NULL},
                  NULL,   {"delta.enableChangeDataFeed", "true", NULL}};
  expect_ok(&ok, DELTA_OP_CREATE, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gate__legacy_plain_tables_are_written),
      cmocka_unit_test(test_gate__unknown_writer_versions_are_refused),
      cmocka_unit_test(test_gate__unimplemented_writer_features_refuse_what_they_bind),
      cmocka_unit_test(test_gate__honoured_table_features_are_written),
      cmocka_unit_test(test_gate__invariant_expressions_are_honoured),
      cmocka_unit_test(test_gate__check_constraints_are_honoured),
      cmocka_unit_test(test_gate__change_data_feed_allows_appends_and_rewrites),
      cmocka_unit_test(test_gate__generated_and_identity_columns),
      cmocka_unit_test(test_gate__v2_checkpoint_tables_take_every_operation),
      cmocka_unit_test(test_gate__column_mapping),
      cmocka_unit_test(test_gate__protocol_metadata_mismatch_is_refused),
      cmocka_unit_test(test_gate__create_needs_every_operation_honoured),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
