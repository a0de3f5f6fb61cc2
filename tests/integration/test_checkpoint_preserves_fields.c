/*
 * Issue 11 §2: a checkpoint carries every field of every action it holds.
 *
 * Foreign tables: the checkpoint Databricks wrote for version 108 of
 * delta-rs's table-with-domain-metadata (row tracking, clustering, deletion
 * vectors enabled) and the state of checkpoint-v2-table (Databricks Runtime
 * 17, typed stats) are read into a snapshot and written again by inlet; as
 * DuckDB reads the two files, every add, remove, domainMetadata, protocol
 * and metaData value is the same (tags, baseRowId, defaultRowCommitVersion,
 * clusteringProvider, the whole deletionVector, stats_parsed with the same
 * types). The table properties decide the stats columns:
 * writeStatsAsStruct=true adds stats_parsed (and partitionValues_parsed),
 * writeStatsAsJson=false drops stats, whose JSON then comes back from
 * stats_parsed when the checkpoint is read.
 *
 * A hand-written log with every field kind (decimal(38,4) bounds, nested
 * structs, timestamps, null and empty partition values, values of the wrong
 * type, a tombstone with a deletion vector and row ids, txn lastUpdated,
 * domains, format options) checks the typed values one by one and that
 * replaying the checkpoint alone gives back every action of the JSON
 * replay.
 */
#include "log_support.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "delta/delta.h"
#include "util/util.h"

typedef struct tbl {
  char root[PATH_MAX];
  inlet_storage *st;
} tbl;

static void tbl_open(tbl *t, const char *path) {
  assert_non_null(realpath(path, t->root));
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_posix_open(&t->st, t->root, false, &err), 0);
}

static void tbl_close(tbl *t) {
  t->st->ops->free(t->st);
}

static void load(tbl *t, delta_snapshot *s, int64_t version) {
  inlet_error err = INLET_ERROR_INIT;
  int rc = delta_snapshot_load(s, t->st, t->root,
                               version < 0 ? DELTA_SNAP_LATEST : DELTA_SNAP_VERSION, version, &err);
  if (rc != 0) fail_msg("load: %s", inlet_errmsg(&err));
}

/* Commits a metaData change setting (value) or removing (NULL) @p key. */
static int64_t set_property(tbl *t, const char *key, const char *value) {
  delta_snapshot s;
  load(t, &s, -1);
  delta_action a;
  memset(&a, 0, sizeof a);
  a.kind = DELTA_ACTION_METADATA;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_metadata_copy(&a.u.metadata, &s.metadata, &err), 0);
  delta_metadata *m = &a.u.metadata;
  int32_t k = 0;
  for (int32_t i = 0; i < m->n_configuration; i++) {
    if (strcmp(m->configuration[i].key, key) == 0) {
      inlet_free(m->configuration[i].key);
      inlet_free(m->configuration[i].value);
    } else {
      m->configuration[k++] = m->configuration[i];
    }
  }
  m->n_configuration = k;
  if (value) {
    delta_kv *c = inlet_realloc(m->configuration, (size_t)(k + 1) * sizeof *c);
    assert_non_null(c);
    c[k] = (delta_kv){inlet_strdup(key), inlet_strdup(value)};
    m->configuration = c;
    m->n_configuration = k + 1;
  }
  delta_txn *txn = NULL;
  assert_int_equal(delta_txn_begin(&txn, t->st, t->root, s.version, "SET TBLPROPERTIES", &err), 0);
  delta_txn_set_base(txn, &s);
  assert_int_equal(delta_txn_add_action(txn, &a, &err), 0);
  int64_t v = -1;
  if (delta_txn_commit(txn, &v, &err) != 0) fail_msg("commit: %s", inlet_errmsg(&err));
  delta_txn_free(txn);
  delta_action_reset(&a);
  delta_snapshot_reset(&s);
  return v;
}

/* Commits a protocol without v2Checkpoint and metaData without
 * delta.checkpointPolicy: the table from then on is one whose checkpoints
 * inlet may write (with v2Checkpoint supported it must not: they would
 * have to be v2 spec checkpoints). */
static int64_t drop_v2_checkpoints(tbl *t) {
  (void)set_property(t, "delta.checkpointPolicy", NULL);
  delta_snapshot s;
  load(t, &s, -1);
  delta_action a;
  memset(&a, 0, sizeof a);
  a.kind = DELTA_ACTION_PROTOCOL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_protocol_copy(&a.u.protocol, &s.protocol, &err), 0);
  delta_protocol *p = &a.u.protocol;
  char ***lists[2] = {&p->reader_features, &p->writer_features};
  int32_t *counts[2] = {&p->n_reader_features, &p->n_writer_features};
  for (int l = 0; l < 2; l++) {
    int32_t k = 0;
    for (int32_t i = 0; i < *counts[l]; i++) {
      if (strcmp((*lists[l])[i], "v2Checkpoint") == 0)
        inlet_free((*lists[l])[i]);
      else
        (*lists[l])[k++] = (*lists[l])[i];
    }
    *counts[l] = k;
  }
  delta_txn *txn = NULL;
  assert_int_equal(delta_txn_begin(&txn, t->st, t->root, s.version, "DROP FEATURE", &err), 0);
  delta_txn_set_base(txn, &s);
  assert_int_equal(delta_txn_add_action(txn, &a, &err), 0);
  int64_t v = -1;
  if (delta_txn_commit(txn, &v, &err) != 0) fail_msg("commit: %s", inlet_errmsg(&err));
  delta_txn_free(txn);
  delta_action_reset(&a);
  delta_snapshot_reset(&s);
  return v;
}

static void checkpoint_latest(tbl *t, int64_t expect_version) {
  delta_snapshot s;
  load(t, &s, -1);
  assert_int_equal(s.version, expect_version);
  inlet_error err = INLET_ERROR_INIT;
  if (delta_checkpoint_write(t->st, &s, NULL, NULL, &err) != 0)
    fail_msg("checkpoint: %s", inlet_errmsg(&err));
  delta_snapshot_reset(&s);
}

static json_t *parquet_at(tbl *t, int64_t v) {
  char p[PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/_delta_log/%020lld.checkpoint.parquet", t->root, (long long)v);
  return ls_parquet(p);
}

static void drop_struct_stats_conf(json_t *m) {
  /* configuration is a map: [[key, value], ...] */
  json_t *conf = json_object_get(m, "configuration"), *kept = json_array();
  size_t i;
  json_t *kv;
  json_array_foreach(conf, i, kv) {
    const char *k = json_string_value(json_array_get(kv, 0));
    if (strncmp(k, "delta.checkpoint.writeStats", 27) != 0) json_array_append(kept, kv);
  }
  json_object_set_new(m, "configuration", kept);
}
static void drop_stats_parsed(json_t *a) {
  json_object_del(a, "stats_parsed");
}
static void drop_stats(json_t *a) {
  json_object_del(a, "stats");
}

static void same_actions(json_t *x, json_t *y, const char *col, ls_edit_fn ex, ls_edit_fn ey) {
  json_t *a = ls_actions(x, col, ex), *b = ls_actions(y, col, ey);
  ls_assert_same(a, b, col);
  json_decref(a);
  json_decref(b);
}

/* ---- Databricks: table-with-domain-metadata, version 108 -------------------------- */

static void test_checkpoint_preserves_fields__databricks_row_tracking_table(void **state) {
  (void)state;
  tbl t;
  tbl_open(&t, ls_copy_table("delta-rs/table-with-domain-metadata", "ckpt-fields-dbx"));
  json_t *ref = parquet_at(&t, 108);
  /* What is at stake is really there. */
  json_t *adds = ls_actions(ref, "add", NULL);
  assert_int_equal(json_array_size(adds), 109);
  const char *a0 = json_string_value(json_array_get(adds, 0));
  assert_non_null(strstr(a0, "\"baseRowId\":"));
  assert_null(strstr(a0, "\"baseRowId\":null"));
  assert_null(strstr(a0, "\"defaultRowCommitVersion\":null"));
  assert_non_null(strstr(a0, "INSERTION_TIME"));
  assert_non_null(strstr(a0, "\"stats_parsed\":{"));
  json_decref(adds);
  json_t *doms = ls_actions(ref, "domainMetadata", NULL);
  assert_int_equal(json_array_size(doms), 3);
  json_decref(doms);

  /* writeStatsAsStruct=true: the same add struct, value for value. */
  int64_t v = set_property(&t, "delta.checkpoint.writeStatsAsStruct", "true");
  assert_int_equal(v, 109);
  checkpoint_latest(&t, 109);
  json_t *mine = parquet_at(&t, 109);
  assert_string_equal(ls_column_type(mine, "add"), ls_column_type(ref, "add"));
  assert_string_equal(ls_column_type(mine, "remove"), ls_column_type(ref, "remove"));
  same_actions(ref, mine, "add", NULL, NULL);
  same_actions(ref, mine, "remove", NULL, NULL);
  same_actions(ref, mine, "domainMetadata", NULL, NULL);
  same_actions(ref, mine, "protocol", NULL, NULL);
  same_actions(ref, mine, "txn", NULL, NULL);
  same_actions(ref, mine, "metaData", drop_struct_stats_conf, drop_struct_stats_conf);
  json_decref(mine);

  /* writeStatsAsStruct=false: no stats_parsed, everything else the same. */
  assert_int_equal(set_property(&t, "delta.checkpoint.writeStatsAsStruct", "false"), 110);
  checkpoint_latest(&t, 110);
  mine = parquet_at(&t, 110);
  assert_null(strstr(ls_column_type(mine, "add"), "stats_parsed"));
  assert_non_null(strstr(ls_column_type(mine, "add"), "\"stats\" VARCHAR"));
  same_actions(ref, mine, "add", drop_stats_parsed, NULL);
  json_decref(mine);

  /* writeStatsAsJson=false (and struct stats on): no stats string ... */
  set_property(&t, "delta.checkpoint.writeStatsAsStruct", "true");
  assert_int_equal(set_property(&t, "delta.checkpoint.writeStatsAsJson", "false"), 112);
  checkpoint_latest(&t, 112);
  mine = parquet_at(&t, 112);
  assert_null(strstr(ls_column_type(mine, "add"), "\"stats\" VARCHAR"));
  same_actions(ref, mine, "add", drop_stats, NULL);
  json_decref(mine);
  /* ... and a reader of that checkpoint gets the stats JSON back from
   * stats_parsed, value for value. */
  delta_snapshot s108, s112;
  load(&t, &s108, 108);
  load(&t, &s112, 112);
  assert_int_equal(s112.checkpoint_version, 112);
  assert_int_equal(s112.n_files, s108.n_files);
  for (int64_t i = 0; i < s108.n_files; i++) {
    assert_string_equal(s112.files[i].add.path, s108.files[i].add.path);
    assert_non_null(s112.files[i].add.stats);
    json_t *x = json_loads(s108.files[i].add.stats, 0, NULL);
    json_t *y = json_loads(s112.files[i].add.stats, 0, NULL);
    if (!json_equal(x, y))
      fail_msg("stats of %s: %s vs %s", s108.files[i].add.path, s108.files[i].add.stats,
               s112.files[i].add.stats);
    json_decref(x);
    json_decref(y);
    assert_int_equal(s112.files[i].num_records, s108.files[i].num_records);
    assert_true(s112.files[i].add.has_base_row_id);
    assert_int_equal(s112.files[i].add.base_row_id, s108.files[i].add.base_row_id);
  }
  delta_snapshot_reset(&s108);
  delta_snapshot_reset(&s112);
  json_decref(ref);
  tbl_close(&t);
}

/* ---- Databricks Runtime 17: checkpoint-v2-table ------------------------------------ */

static void test_checkpoint_preserves_fields__databricks_typed_stats(void **state) {
  (void)state;
  tbl t;
  tbl_open(&t, ls_copy_table("delta-rs/checkpoint-v2-table", "ckpt-fields-v2"));
  /* Version 8 from its commits alone (inlet does not read v2 checkpoints):
   * the reference is the adds of Databricks' sidecar for version 8. */
  tu_result r;
  tu_sh(&r,
        "cd '%s/_delta_log' && rm -f *.checkpoint.*.json _last_checkpoint "
        "00000000000000000009.json 00000000000000000009.crc",
        t.root);
  ls_sh_ok(&r, "drop v2 checkpoints");
  tu_result_free(&r);
  /* Versions 9 and 10 change only metaData and protocol: the files are
   * those of version 8. */
  assert_int_equal(drop_v2_checkpoints(&t), 10);
  checkpoint_latest(&t, 10);
  tu_sh(&r, "ls '%s'/_delta_log/_sidecars/00000000000000000008.*.parquet", t.root);
  ls_sh_ok(&r, "find sidecar");
  r.out[strcspn(r.out, "\n")] = '\0';
  json_t *ref = ls_parquet(r.out);
  tu_result_free(&r);
  json_t *mine = parquet_at(&t, 10);
  json_t *a = ls_actions(ref, "add", ls_norm_ts), *b = ls_actions(mine, "add", ls_norm_ts);
  assert_int_equal(json_array_size(a), 7);
  assert_non_null(strstr(json_string_value(json_array_get(a, 0)), "\"created_at\":\"2025-08-09T"));
  ls_assert_same(a, b, "add");
  json_decref(a);
  json_decref(b);
  json_decref(ref);
  json_decref(mine);
  tbl_close(&t);
}

/* ---- every field kind, by hand ------------------------------------------------------ */

static void put_line(FILE *f, json_t *action) {
  char *s = json_dumps(action, JSON_COMPACT | JSON_PRESERVE_ORDER);
  fprintf(f, "%s\n", s);
  free(s);
  json_decref(action);
}

static json_t *field(const char *name, json_t *type) {
  return json_pack("{s:s,s:o,s:b,s:{}}", "name", name, "type", type, "nullable", 1, "metadata");
}

static void write_all_fields_log(const char *root) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/_delta_log", root);
  assert_int_equal(mkdir(path, 0755), 0);
  json_t *schema = json_pack(
      "{s:s,s:[o,o,o,o,o,o,o,o,o]}", "type", "struct", "fields", field("id", json_string("long")),
      field("amount", json_string("decimal(38,4)")), field("ts", json_string("timestamp")),
      field("f", json_string("float")),
      field("s", json_pack("{s:s,s:[o,o]}", "type", "struct", "fields",
                           field("a", json_string("integer")), field("b", json_string("string")))),
      field("arr", json_pack("{s:s,s:s,s:b}", "type", "array", "elementType", "string",
                             "containsNull", 1)),
      field("p_date", json_string("date")), field("p_int", json_string("integer")),
      field("p_str", json_string("string")));
  char *schema_s = json_dumps(schema, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(schema);
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000000.json", root);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  put_line(f, json_pack("{s:{s:i,s:i}}", "protocol", "minReaderVersion", 1, "minWriterVersion", 2));
  put_line(f, json_pack("{s:{s:s,s:{s:s,s:{s:s}},s:s,s:[s,s,s],s:{s:s},s:I}}", "metaData", "id",
                        "all-fields", "format", "provider", "parquet", "options", "k1", "v1",
                        "schemaString", schema_s, "partitionColumns", "p_date", "p_int", "p_str",
                        "configuration", "delta.checkpoint.writeStatsAsStruct", "true",
                        "createdTime", (json_int_t)1700000000000LL));
  free(schema_s);
  fputs(
      "{\"add\":{\"path\":\"p_date=2024-01-01/p_int=1/p_str=x/a.parquet\",\"partitionValues\":"
      "{\"p_date\":\"2024-01-01\",\"p_int\":\"1\",\"p_str\":\"x\"},\"size\":100,"
      "\"modificationTime\":5,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":3,"
      "\\\"minValues\\\":{\\\"id\\\":-5,\\\"amount\\\":12345678901234567890123456789012.3456,"
      "\\\"ts\\\":\\\"2024-03-04T05:06:07.123Z\\\",\\\"f\\\":1.5,\\\"s\\\":{\\\"a\\\":1,"
      "\\\"b\\\":\\\"x\\\"}},\\\"maxValues\\\":{\\\"id\\\":9223372036854775807,\\\"amount\\\":"
      "99999999999999999999999999999999.9999,\\\"ts\\\":\\\"2024-03-04T05:06:07.999Z\\\","
      "\\\"f\\\":2.25,\\\"s\\\":{\\\"a\\\":2,\\\"b\\\":\\\"y\\\"}},\\\"nullCount\\\":{\\\"id\\\":0,"
      "\\\"amount\\\":1,\\\"ts\\\":0,\\\"f\\\":0,\\\"s\\\":{\\\"a\\\":0,\\\"b\\\":1},"
      "\\\"arr\\\":3}}\",\"tags\":{\"k\":\"v\"},\"baseRowId\":7,\"defaultRowCommitVersion\":0,"
      "\"clusteringProvider\":\"liquid\"}}\n",
      f);
  fputs("{\"add\":{\"path\":\"p_date=__HIVE_DEFAULT_PARTITION__/b.parquet\",\"partitionValues\":"
        "{\"p_date\":null,\"p_int\":\"\",\"p_str\":\"\"},\"size\":200,\"modificationTime\":6,"
        "\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":2}\"}}\n",
        f);
  fputs("{\"add\":{\"path\":\"c.parquet\",\"partitionValues\":{\"p_date\":\"2024-02-29\","
        "\"p_int\":\"-7\",\"p_str\":null},\"size\":300,\"modificationTime\":7,\"dataChange\":true,"
        "\"stats\":\"{\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"id\\\":\\\"nan\\\","
        "\\\"amount\\\":1.23456,\\\"ts\\\":\\\"garbage\\\",\\\"f\\\":1e400}}\"}}\n",
        f);
  fputs("{\"add\":{\"path\":\"d.parquet\",\"partitionValues\":{\"p_date\":\"2024-01-02\","
        "\"p_int\":\"2\",\"p_str\":\"z\"},\"size\":400,\"modificationTime\":8,\"dataChange\":true}}"
        "\n",
        f);
  fclose(f);
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000001.json", root);
  f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f,
          "{\"remove\":{\"path\":\"old.parquet\",\"deletionTimestamp\":%lld,\"dataChange\":true,"
          "\"extendedFileMetadata\":true,\"partitionValues\":{\"p_date\":\"2024-01-01\","
          "\"p_int\":\"1\",\"p_str\":\"x\"},\"size\":42,\"tags\":{\"t\":\"1\"},"
          "\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"ab^-aqEH.-t@S}K{vb[*k^\","
          "\"offset\":4,\"sizeInBytes\":40,\"cardinality\":6},\"baseRowId\":3,"
          "\"defaultRowCommitVersion\":1,\"stats\":\"{\\\"numRecords\\\":6}\"}}\n",
          (long long)delta_now_ms());
  fputs("{\"txn\":{\"appId\":\"app\",\"version\":42,\"lastUpdated\":1700000000000}}\n"
        "{\"domainMetadata\":{\"domain\":\"delta.test\",\"configuration\":\"{\\\"x\\\":1}\","
        "\"removed\":false}}\n"
        "{\"domainMetadata\":{\"domain\":\"gone\",\"configuration\":\"{}\",\"removed\":false}}\n",
        f);
  fclose(f);
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000002.json", root);
  f = fopen(path, "w");
  assert_non_null(f);
  fputs("{\"domainMetadata\":{\"domain\":\"gone\",\"configuration\":\"{}\",\"removed\":true}}\n",
        f);
  fclose(f);
}

/* The action in column @p col of the row whose @p key member is @p val. */
static json_t *row_where(json_t *doc, const char *col, const char *key, const char *val) {
  json_t *cols = json_object_get(doc, "columns"), *rows = json_object_get(doc, "rows"), *c;
  size_t idx = 0, i;
  json_array_foreach(cols, i, c) {
    if (strcmp(json_string_value(json_object_get(c, "name")), col) == 0) idx = i;
  }
  json_array_foreach(rows, i, c) {
    json_t *a = json_array_get(c, idx);
    const char *v = json_string_value(json_object_get(a, key));
    if (v && strcmp(v, val) == 0) return a;
  }
  fail_msg("no %s with %s=%s", col, key, val);
  return NULL;
}

static void expect_json(json_t *v, const char *expected) {
  json_t *e = json_loads(expected, JSON_DECODE_ANY, NULL);
  assert_non_null(e);
  if (!json_equal(v, e)) {
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    fail_msg("got %s, expected %s", s, expected);
  }
  json_decref(e);
}

static char *action_text(delta_action_kind kind, const void *x) {
  delta_action a;
  memset(&a, 0, sizeof a);
  a.kind = kind;
  switch (kind) {
  case DELTA_ACTION_ADD: a.u.add = *(const delta_add *)x; break;
  case DELTA_ACTION_REMOVE: a.u.remove = *(const delta_remove *)x; break;
  case DELTA_ACTION_METADATA: a.u.metadata = *(const delta_metadata *)x; break;
  case DELTA_ACTION_PROTOCOL: a.u.protocol = *(const delta_protocol *)x; break;
  default: fail_msg("kind");
  }
  inlet_buf b = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_action_write(&b, &a, &err), 0);
  inlet_buf_terminate(&b);
  return (char *)inlet_buf_detach(&b, NULL);
}

static void test_checkpoint_preserves_fields__every_field_kind(void **state) {
  (void)state;
  tbl t;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("ckpt-fields-all"));
  tu_rules_exempt(dir, "a hand-written log of every field kind, no data files");
  write_all_fields_log(dir);
  tbl_open(&t, dir);
  delta_snapshot js;
  load(&t, &js, -1);
  assert_int_equal(js.version, 2);
  assert_int_equal(js.n_files, 4);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_checkpoint_write(t.st, &js, NULL, NULL, &err), 0);
  json_t *doc = parquet_at(&t, 2);

  /* Typed stats, as Spark's from_json would give them. */
  json_t *a = row_where(doc, "add", "path", "p_date=2024-01-01/p_int=1/p_str=x/a.parquet");
  expect_json(json_object_get(a, "stats_parsed"),
              "{\"numRecords\":3,"
              "\"minValues\":{\"id\":-5,\"amount\":\"12345678901234567890123456789012.3456\","
              "\"ts\":\"2024-03-04T05:06:07.123000Z\",\"f\":1.5,\"s\":{\"a\":1,\"b\":\"x\"}},"
              "\"maxValues\":{\"id\":\"9223372036854775807\","
              "\"amount\":\"99999999999999999999999999999999.9999\","
              "\"ts\":\"2024-03-04T05:06:07.999000Z\",\"f\":2.25,\"s\":{\"a\":2,\"b\":\"y\"}},"
              "\"nullCount\":{\"id\":0,\"amount\":1,\"ts\":0,\"f\":0,\"s\":{\"a\":0,\"b\":1},"
              "\"arr\":3}}");
  expect_json(json_object_get(a, "partitionValues_parsed"),
              "{\"p_date\":\"2024-01-01\",\"p_int\":1,\"p_str\":\"x\"}");
  expect_json(json_object_get(a, "tags"), "[[\"k\",\"v\"]]");
  expect_json(json_object_get(a, "baseRowId"), "7");
  expect_json(json_object_get(a, "defaultRowCommitVersion"), "0");
  expect_json(json_object_get(a, "clusteringProvider"), "\"liquid\"");
  expect_json(json_object_get(a, "dataChange"), "false");
  a = row_where(doc, "add", "path", "p_date=__HIVE_DEFAULT_PARTITION__/b.parquet");
  expect_json(json_object_get(a, "partitionValues_parsed"),
              "{\"p_date\":null,\"p_int\":null,\"p_str\":null}");
  expect_json(json_object_get(a, "tags"), "null");
  expect_json(json_object_get(a, "baseRowId"), "null");
  /* Values of the wrong type, or not exact at the column's scale, are
   * unknown bounds (null), never rounded ones. */
  a = row_where(doc, "add", "path", "c.parquet");
  expect_json(json_object_get(a, "stats_parsed"),
              "{\"numRecords\":1,\"minValues\":{\"id\":null,\"amount\":null,\"ts\":null,"
              "\"f\":null,\"s\":null},\"maxValues\":null,\"nullCount\":null}");
  expect_json(json_object_get(a, "partitionValues_parsed"),
              "{\"p_date\":\"2024-02-29\",\"p_int\":-7,\"p_str\":null}");
  a = row_where(doc, "add", "path", "d.parquet");
  expect_json(json_object_get(a, "stats"), "null");
  expect_json(json_object_get(a, "stats_parsed"), "null");
  /* The tombstone with its deletion vector and row tracking fields; no
   * stats or tags in a checkpoint's remove (PROTOCOL.md). */
  a = row_where(doc, "remove", "path", "old.parquet");
  expect_json(json_object_get(a, "deletionVector"),
              "{\"storageType\":\"u\",\"pathOrInlineDv\":\"ab^-aqEH.-t@S}K{vb[*k^\",\"offset\":4,"
              "\"sizeInBytes\":40,\"cardinality\":6,\"maxRowIndex\":null}");
  expect_json(json_object_get(a, "baseRowId"), "3");
  expect_json(json_object_get(a, "defaultRowCommitVersion"), "1");
  expect_json(json_object_get(a, "size"), "42");
  expect_json(json_object_get(a, "extendedFileMetadata"), "true");
  expect_json(json_object_get(a, "partitionValues"),
              "[[\"p_date\",\"2024-01-01\"],[\"p_int\",\"1\"],[\"p_str\",\"x\"]]");
  assert_null(strstr(ls_column_type(doc, "remove"), "stats"));
  assert_null(strstr(ls_column_type(doc, "remove"), "tags"));
  a = row_where(doc, "txn", "appId", "app");
  expect_json(json_object_get(a, "lastUpdated"), "1700000000000");
  json_t *doms = ls_actions(doc, "domainMetadata", NULL);
  assert_int_equal(json_array_size(doms), 1); /* "gone" was removed */
  json_decref(doms);
  a = row_where(doc, "metaData", "id", "all-fields");
  expect_json(json_object_get(json_object_get(a, "format"), "options"), "[[\"k1\",\"v1\"]]");
  json_decref(doc);

  /* The checkpoint alone gives back every action of the JSON replay
   * (except what a checkpoint drops by design: dataChange, and a
   * tombstone's stats and tags). */
  tu_result r;
  tu_sh(&r,
        "cd '%s/_delta_log' && rm 0000000000000000000[0-2].json 0000000000000000000[0-2].crc "
        "2>/dev/null; ls",
        t.root);
  tu_result_free(&r);
  delta_snapshot cs;
  load(&t, &cs, -1);
  assert_int_equal(cs.checkpoint_version, 2);
  assert_int_equal(cs.n_files, js.n_files);
  for (int64_t i = 0; i < js.n_files; i++) {
    js.files[i].add.data_change = false;
    char *x = action_text(DELTA_ACTION_ADD, &js.files[i].add);
    char *y = action_text(DELTA_ACTION_ADD, &cs.files[i].add);
    assert_string_equal(x, y);
    inlet_free(x);
    inlet_free(y);
  }
  assert_int_equal(cs.n_tombstones, 1);
  delta_remove *rm = &js.tombstones[0];
  inlet_free(rm->stats);
  inlet_free(rm->tags);
  rm->stats = rm->tags = NULL;
  rm->data_change = false;
  char *x = action_text(DELTA_ACTION_REMOVE, rm),
       *y = action_text(DELTA_ACTION_REMOVE, &cs.tombstones[0]);
  assert_string_equal(x, y);
  inlet_free(x);
  inlet_free(y);
  x = action_text(DELTA_ACTION_METADATA, &js.metadata);
  y = action_text(DELTA_ACTION_METADATA, &cs.metadata);
  assert_string_equal(x, y);
  inlet_free(x);
  inlet_free(y);
  x = action_text(DELTA_ACTION_PROTOCOL, &js.protocol);
  y = action_text(DELTA_ACTION_PROTOCOL, &cs.protocol);
  assert_string_equal(x, y);
  inlet_free(x);
  inlet_free(y);
  assert_int_equal(cs.n_txns, 1);
  assert_int_equal(cs.txns[0].last_updated, 1700000000000LL);
  assert_int_equal(cs.n_domains, 1);
  assert_string_equal(cs.domains[0].configuration, "{\"x\":1}");
  delta_snapshot_reset(&cs);
  delta_snapshot_reset(&js);
  tbl_close(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_checkpoint_preserves_fields__databricks_row_tracking_table),
      cmocka_unit_test(test_checkpoint_preserves_fields__databricks_typed_stats),
      cmocka_unit_test(test_checkpoint_preserves_fields__every_field_kind),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
