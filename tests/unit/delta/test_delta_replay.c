/*
 * Unit tests for log replay (snapshots) and commits with the conflict
 * rules, on hand-written logs in a scratch directory through the POSIX
 * storage backend.
 */
#include "testutil.h"

#include <stdio.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include "delta/delta.h"
#include "inlet/table.h"
#include "util/util.h"

#define PROTO "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
#define META(id)                                                                                   \
  "{\"metaData\":{\"id\":\"" id "\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"         \
  "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"a\\\","       \
  "\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","                      \
  "\"partitionColumns\":[],\"configuration\":{},\"createdTime\":1}}\n"
#define ADD(p)                                                                                     \
  "{\"add\":{\"path\":\"" p "\",\"partitionValues\":{},\"size\":10,"                               \
  "\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":5}\"}}\n"
#define REMOVE(p) "{\"remove\":{\"path\":\"" p "\",\"deletionTimestamp\":2,\"dataChange\":true}}\n"

typedef struct fixture {
  char dir[4096];
  inlet_storage *st;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("delta-replay"));
  /* Hand-written logs for the replay, without data files, many broken on
   * purpose: not tables the protocol rules apply to. */
  tu_rules_exempt(f->dir, "test_delta_replay: hand-written logs, no data files");
  char log[4200];
  snprintf(log, sizeof log, "%s/_delta_log", f->dir);
  mkdir(log, 0755);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_posix_open(&f->st, f->dir, false, &err), 0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  f->st->ops->free(f->st);
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void put_commit(fixture *f, int64_t v, const char *body) {
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", f->dir, (long long)v);
  assert_int_equal(tu_write_file(path, body, strlen(body)), 0);
}

static void put_file(fixture *f, const char *name, const char *body) {
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/%s", f->dir, name);
  assert_int_equal(tu_write_file(path, body, strlen(body)), 0);
}

static int load(fixture *f, delta_snapshot *s, delta_snap_mode mode, int64_t arg,
                inlet_error *err) {
  return delta_snapshot_load(s, f->st, f->dir, mode, arg, err);
}

static void test_replay__add_remove_reconcile_and_latest_metadata_wins(void **state) {
  fixture *f = *state;
  put_commit(f, 0, PROTO META("one") ADD("a.parquet") ADD("b.parquet"));
  put_commit(f, 1,
             REMOVE("a.parquet") ADD("c.parquet") "{\"txn\":{\"appId\":\"app\",\"version\":3}}\n");
  put_commit(f, 2,
             META("two") "{\"txn\":{\"appId\":\"app\",\"version\":4}}\n"
                         "{\"txn\":{\"appId\":\"other\",\"version\":1}}\n" ADD("a.parquet"));
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.version, 2);
  assert_string_equal(s.metadata.id, "two");
  assert_int_equal(s.n_files, 3);
  assert_string_equal(s.files[0].add.path, "a.parquet");
  assert_string_equal(s.files[2].add.path, "c.parquet");
  assert_int_equal(s.files[0].num_records, 5);
  assert_int_equal(delta_snapshot_txn_version(&s, "app"), 4);
  assert_int_equal(delta_snapshot_txn_version(&s, "other"), 1);
  assert_int_equal(delta_snapshot_txn_version(&s, "none"), -1);
  assert_true(s.has_schema);
  assert_int_equal(s.schema.n_fields, 1);
  delta_snapshot_reset(&s);
  /* Time travel to version 1. */
  assert_int_equal(load(f, &s, DELTA_SNAP_VERSION, 1, &err), 0);
  assert_int_equal(s.n_files, 2);
  assert_string_equal(s.files[0].add.path, "b.parquet");
  assert_string_equal(s.metadata.id, "one");
  assert_int_equal(delta_snapshot_txn_version(&s, "app"), 3);
  delta_snapshot_reset(&s);
  assert_int_equal(load(f, &s, DELTA_SNAP_VERSION, 3, &err), INLET_ENOTFOUND);
  assert_non_null(strstr(err.message, "version 3 does not exist"));
}

static void test_replay__same_path_different_dv_is_a_different_file(void **state) {
  fixture *f = *state;
  put_commit(f, 0,
             PROTO META("x") ADD(
                 "a.parquet") "{\"remove\":{\"path\":\"a.parquet\",\"deletionVector\":{"
                              "\"storageType\":\"i\","
                              "\"pathOrInlineDv\":\"zz\",\"sizeInBytes\":1,\"cardinality\":1}}}\n");
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  /* The remove names (a.parquet, dv zz): the plain a.parquet stays live. */
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.n_files, 1);
  delta_snapshot_reset(&s);
}

static void test_replay__tombstones_kept_within_retention(void **state) {
  fixture *f = *state;
  char c1[512];
  snprintf(c1, sizeof c1,
           "{\"remove\":{\"path\":\"a\",\"deletionTimestamp\":%lld,"
           "\"dataChange\":true,\"size\":10}}\n"
           "{\"remove\":{\"path\":\"b\",\"deletionTimestamp\":5,\"dataChange\":true}}\n",
           (long long)delta_now_ms());
  put_commit(f, 0, PROTO META("x") ADD("a") ADD("b") ADD("c"));
  put_commit(f, 1, c1);
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.n_files, 1);
  /* b's tombstone is decades old: expired under the default week. */
  assert_int_equal(s.n_tombstones, 1);
  assert_string_equal(s.tombstones[0].path, "a");
  assert_int_equal(s.tombstones[0].size, 10);
  delta_snapshot_reset(&s);
  /* Re-adding a tombstoned path makes it live again. */
  put_commit(f, 2, ADD("a"));
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.n_files, 2);
  assert_int_equal(s.n_tombstones, 0);
  delta_snapshot_reset(&s);
  delta_metadata m;
  memset(&m, 0, sizeof m);
  delta_kv kv = {"delta.deletedFileRetentionDuration", "interval 2 days"};
  m.n_configuration = 1;
  m.configuration = &kv;
  assert_int_equal(delta_retention_ms(&m), 2LL * 86400000);
  kv.value = "nonsense";
  assert_int_equal(delta_retention_ms(&m), 7LL * 86400000);
}

/* Our own checkpoint (when nested Parquet writing is available) restores
 * the same live files, tombstones, txns and metadata with the commits gone. */
static void test_replay__own_checkpoint_round_trips_state(void **state) {
  fixture *f = *state;
  char c1[512];
  snprintf(c1, sizeof c1,
           "{\"remove\":{\"path\":\"a b\",\"deletionTimestamp\":%lld,"
           "\"dataChange\":true,\"size\":10}}\n{\"txn\":{\"appId\":\"s\",\"version\":9}}\n"
           "{\"domainMetadata\":{\"domain\":\"d\",\"configuration\":\"{}\",\"removed\":false}}\n",
           (long long)delta_now_ms());
  put_commit(
      f, 0,
      PROTO META("x") ADD("a%20b") ADD(
          "p=1/c") "{\"add\":{\"path\":\"p=%253A/d\",\"partitionValues\":{\"p\":\":\",\"q\":null},"
                   "\"size\":7,\"modificationTime\":3,\"dataChange\":true}}\n");
  put_commit(f, 1, c1);
  delta_snapshot s, back;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  int rc = delta_checkpoint_write(f->st, &s, NULL, NULL, &err);
  if (rc != 0) {
    assert_int_equal(rc, INLET_EUNSUPPORTED);
    delta_snapshot_reset(&s);
    return;
  }
  char path[4300];
  for (int v = 0; v <= 1; v++) {
    snprintf(path, sizeof path, "%s/_delta_log/%020d.json", f->dir, v);
    assert_int_equal(unlink(path), 0);
  }
  assert_int_equal(load(f, &back, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(back.checkpoint_version, 1);
  assert_int_equal(back.version, 1);
  assert_int_equal(back.n_files, s.n_files);
  for (int64_t i = 0; i < s.n_files; i++) {
    assert_string_equal(back.files[i].add.path, s.files[i].add.path);
    assert_int_equal(back.files[i].add.size, s.files[i].add.size);
    assert_int_equal(back.files[i].add.n_partition_values, s.files[i].add.n_partition_values);
  }
  assert_string_equal(back.files[0].add.path, "p=%3A/d");
  assert_string_equal(back.files[0].add.partition_values[0].value, ":");
  assert_null(back.files[0].add.partition_values[1].value);
  assert_int_equal(back.n_tombstones, 1);
  assert_string_equal(back.tombstones[0].path, "a b");
  assert_int_equal(delta_snapshot_txn_version(&back, "s"), 9);
  assert_int_equal(back.n_domains, 1);
  assert_string_equal(back.metadata.id, "x");
  assert_true(inlet_schema_equal(&back.schema, &s.schema));
  delta_snapshot_reset(&back);
  delta_snapshot_reset(&s);
}

/* The _last_checkpoint hint only speeds loads up: stale, dangling or
 * garbage hints give the same snapshot as a full listing. */
static void test_replay__last_checkpoint_hint_never_changes_results(void **state) {
  fixture *f = *state;
  put_commit(f, 0, PROTO META("x") ADD("a"));
  put_commit(f, 1, ADD("b"));
  put_commit(f, 2, REMOVE("a") ADD("c"));
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &s, DELTA_SNAP_VERSION, 2, &err), 0);
  int rc = delta_checkpoint_write(f->st, &s, NULL, NULL, &err);
  delta_snapshot_reset(&s);
  if (rc != 0) {
    assert_int_equal(rc, INLET_EUNSUPPORTED);
    return;
  }
  put_commit(f, 3, ADD("d"));
  put_commit(f, 4, REMOVE("b"));
  static const char *hints[] = {NULL, "{\"version\":9,\"size\":3}", "{\"version\":1}", "garbage",
                                ""};
  for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
    if (hints[h]) put_file(f, "_last_checkpoint", hints[h]);
    assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
    assert_int_equal(s.version, 4);
    assert_int_equal(s.n_files, 2);
    assert_string_equal(s.files[0].add.path, "c");
    assert_string_equal(s.files[1].add.path, "d");
    assert_true(s.timestamp_ms > 0);
    delta_snapshot_reset(&s);
  }
}

static void test_replay__gap_in_commits_is_corrupt(void **state) {
  fixture *f = *state;
  put_commit(f, 0, PROTO META("x"));
  put_commit(f, 1, ADD("a"));
  put_commit(f, 3, ADD("b"));
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "version 2 is missing"));
  assert_int_equal(load(f, &s, DELTA_SNAP_VERSION, 1, &err), 0);
  delta_snapshot_reset(&s);
}

static void test_replay__missing_protocol_or_metadata_is_corrupt(void **state) {
  fixture *f = *state;
  put_commit(f, 0, META("x") ADD("a"));
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "no protocol"));
  put_commit(f, 0, PROTO ADD("a"));
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "no metaData"));
}

static void test_replay__unsupported_reader_features_are_named(void **state) {
  fixture *f = *state;
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  put_commit(f, 0, "{\"protocol\":{\"minReaderVersion\":99,\"minWriterVersion\":7}}\n" META("x"));
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), INLET_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "reader version 99"));
  put_commit(f, 0,
             "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
             "\"readerFeatures\":[\"catalogManaged\"],\"writerFeatures\":[]}}\n" META("x"));
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), INLET_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "catalogManaged"));
  /* Deletion vectors do not stop a snapshot (scans apply them); it counts
   * the live files that have one, for the writers' refusal. */
  put_commit(f, 0,
             "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
             "\"readerFeatures\":[\"deletionVectors\"],\"writerFeatures\":[]}}\n" META("x")
                 ADD("a"));
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  delta_snapshot_reset(&s);
  put_commit(f, 1,
             "{\"add\":{\"path\":\"b\",\"size\":1,\"deletionVector\":{\"storageType\":"
             "\"u\",\"pathOrInlineDv\":\"q\",\"sizeInBytes\":1,\"cardinality\":1}}}\n");
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.n_files, 2);
  assert_int_equal(s.n_dv_files, 1);
  delta_snapshot_reset(&s);
}

static void test_replay__checkpoint_falls_back_to_commits_or_refuses(void **state) {
  fixture *f = *state;
  put_commit(f, 0, PROTO META("x") ADD("a"));
  put_commit(f, 1, ADD("b"));
  put_file(f, "00000000000000000001.checkpoint.parquet", "not really parquet");
  put_file(f, "_last_checkpoint", "{garbage");
  put_commit(f, 2, REMOVE("a"));
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  /* All commits exist: replay them from 0 whatever the hint says. */
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.n_files, 1);
  assert_string_equal(s.files[0].add.path, "b");
  delta_snapshot_reset(&s);
  /* Commit 0 cleaned up: the checkpoint is needed and cannot be read. */
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/%020d.json", f->dir, 0);
  assert_int_equal(unlink(path), 0);
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "checkpoint at version 1 cannot be read"));
}

/* A Spark checkpoint whose earlier commits are gone: read through the
 * checkpoint once nested Parquet reading exists, refused (unsupported,
 * reason named) before that -- never a wrong snapshot. */
static void test_replay__spark_checkpoint_without_early_commits(void **state) {
  fixture *f = *state;
  tu_result r;
  tu_sh(&r,
        "cp -R '%s/delta-golden/tables/basic-with-inserts-deletes-checkpoint/.' '%s/' && "
        "rm '%s'/_delta_log/0000000000000000000[0-9].json",
        INLET_TESTDATA, f->dir, f->dir);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  char orig[4096];
  snprintf(orig, sizeof orig, "%s/delta-golden/tables/basic-with-inserts-deletes-checkpoint",
           INLET_TESTDATA);
  inlet_storage *ost = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_posix_open(&ost, orig, false, &err), 0);
  delta_snapshot full, s;
  assert_int_equal(delta_snapshot_load(&full, ost, orig, DELTA_SNAP_LATEST, 0, &err), 0);
  int rc = load(f, &s, DELTA_SNAP_LATEST, 0, &err);
  if (rc == 0) {
    assert_int_equal(s.checkpoint_version, 10);
    assert_int_equal(s.version, full.version);
    assert_int_equal(s.n_files, full.n_files);
    for (int64_t i = 0; i < s.n_files; i++)
      assert_string_equal(s.files[i].add.path, full.files[i].add.path);
    delta_snapshot_reset(&s);
  } else {
    assert_int_equal(rc, INLET_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "checkpoint at version 10"));
  }
  /* Time travel to before the checkpoint needs the deleted commits. */
  assert_true(load(f, &s, DELTA_SNAP_VERSION, 5, &err) < 0);
  delta_snapshot_reset(&full);
  ost->ops->free(ost);
}

static void test_replay__malformed_commit_names_file_and_line(void **state) {
  fixture *f = *state;
  put_commit(f, 0, PROTO META("x") "{\"add\":{\"path\":\"../../x\",\"size\":1}}\n");
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "00000000000000000000.json line 3"));
  put_commit(f, 0, PROTO META("x") "{\"add\":{\"path\":\"a\",\"size\":1}\n");
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "line 3"));
  /* No trailing newline and CRLF line ends still parse. */
  put_commit(f, 0,
             PROTO META("x") "{\"add\":{\"path\":\"a\",\"size\":1}}\r\n"
                             "{\"add\":{\"path\":\"b\",\"size\":1}}");
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.n_files, 2);
  delta_snapshot_reset(&s);
}

static void test_replay__incremental_load_matches_full_replay(void **state) {
  fixture *f = *state;
  put_commit(f, 0, PROTO META("one") ADD("a") ADD("b"));
  put_commit(f, 1, REMOVE("a") "{\"txn\":{\"appId\":\"s\",\"version\":1}}\n");
  delta_snapshot base, inc, full, copy;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &base, DELTA_SNAP_LATEST, 0, &err), 0);
  put_commit(f, 2, ADD("c") META("two") "{\"txn\":{\"appId\":\"s\",\"version\":2}}\n");
  put_commit(f, 3, REMOVE("b"));
  assert_int_equal(delta_snapshot_load_from(&inc, &base, f->st, f->dir, DELTA_SNAP_LATEST, 0, &err),
                   0);
  assert_int_equal(load(f, &full, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(inc.version, 3);
  assert_int_equal(inc.n_files, full.n_files);
  assert_int_equal(inc.n_files, 1);
  assert_string_equal(inc.files[0].add.path, "c");
  assert_string_equal(inc.metadata.id, "two");
  assert_int_equal(delta_snapshot_txn_version(&inc, "s"), 2);
  /* A target below the base falls back to a full replay. */
  delta_snapshot old;
  assert_int_equal(delta_snapshot_load_from(&old, &inc, f->st, f->dir, DELTA_SNAP_VERSION, 0, &err),
                   0);
  assert_int_equal(old.n_files, 2);
  assert_string_equal(old.metadata.id, "one");
  assert_int_equal(delta_snapshot_copy(&copy, &inc, &err), 0);
  assert_int_equal(copy.n_files, 1);
  assert_string_equal(copy.files[0].add.path, "c");
  assert_true(inlet_schema_equal(&copy.schema, &inc.schema));
  delta_snapshot_reset(&copy);
  delta_snapshot_reset(&old);
  delta_snapshot_reset(&base);
  delta_snapshot_reset(&inc);
  delta_snapshot_reset(&full);
}

static void set_mtime(fixture *f, int64_t v, int64_t sec) {
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", f->dir, (long long)v);
  struct timespec ts[2] = {{(time_t)sec, 0}, {(time_t)sec, 0}};
  assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void test_replay__time_travel_by_timestamp(void **state) {
  fixture *f = *state;
  put_commit(f, 0, PROTO META("x") ADD("a"));
  put_commit(f, 1, ADD("b"));
  /* Version 2 turns in-commit timestamps on (PROTOCOL.md "In-Commit
   * Timestamps": enablement version and timestamp in the configuration). */
  put_commit(
      f, 2,
      "{\"commitInfo\":{\"timestamp\":1,\"inCommitTimestamp\":2500500}}\n"
      "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":"
      "[\"inCommitTimestamp\"]}}\n"
      "{\"metaData\":{\"id\":\"x\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
      "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":"
      "\\\"a\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
      "\"partitionColumns\":[],\"configuration\":{\"delta.enableInCommitTimestamps\":"
      "\"true\",\"delta.inCommitTimestampEnablementVersion\":\"2\","
      "\"delta.inCommitTimestampEnablementTimestamp\":\"2500500\"},\"createdTime\":1}}\n" ADD("c"));
  set_mtime(f, 0, 1000);
  set_mtime(f, 1, 2000);
  set_mtime(f, 2, 9000); /* the inCommitTimestamp (2500.5 s) wins over the mtime */
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &s, DELTA_SNAP_TIMESTAMP, 1500000, &err), 0);
  assert_int_equal(s.version, 0);
  assert_int_equal(s.timestamp_ms, 1000000);
  delta_snapshot_reset(&s);
  assert_int_equal(load(f, &s, DELTA_SNAP_TIMESTAMP, 2400000, &err), 0);
  assert_int_equal(s.version, 1);
  delta_snapshot_reset(&s);
  assert_int_equal(load(f, &s, DELTA_SNAP_TIMESTAMP, 2500500, &err), 0);
  assert_int_equal(s.version, 2);
  assert_int_equal(s.timestamp_ms, 2500500);
  assert_int_equal(s.n_files, 3);
  delta_snapshot_reset(&s);
  assert_int_equal(load(f, &s, DELTA_SNAP_TIMESTAMP, 999999, &err), INLET_ENOTFOUND);
  assert_non_null(strstr(err.message, "at or before timestamp"));
}

/* An inCommitTimestamp in a commit of a table that does not enable them is
 * not its timestamp (Spark times such commits by their files). */
static void test_replay__commit_ict_ignored_without_enablement(void **state) {
  fixture *f = *state;
  put_commit(f, 0, PROTO META("x") ADD("a"));
  put_commit(f, 1, "{\"commitInfo\":{\"timestamp\":1,\"inCommitTimestamp\":1500000}}\n" ADD("b"));
  set_mtime(f, 0, 1000);
  set_mtime(f, 1, 3000);
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &s, DELTA_SNAP_TIMESTAMP, 2000000, &err), 0);
  assert_int_equal(s.version, 0);
  delta_snapshot_reset(&s);
  assert_int_equal(load(f, &s, DELTA_SNAP_VERSION, 1, &err), 0);
  assert_int_equal(s.timestamp_ms, 3000000);
  delta_snapshot_reset(&s);
}

static void test_replay__not_a_table(void **state) {
  fixture *f = *state;
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), INLET_ENOTFOUND);
}

/* ---- commits and conflicts ------------------------------------------------------ */

static int commit_op(fixture *f, const char *op, int64_t read_version, bool strict,
                     const char *lines, int64_t *v, inlet_error *err) {
  delta_txn *t = NULL;
  assert_int_equal(delta_txn_begin(&t, f->st, f->dir, read_version, op, err), 0);
  delta_txn_set_strict(t, strict);
  delta_line_ctx ctx = {"test", 1, f->dir};
  const char *p = lines;
  while (*p) {
    const char *e = strchr(p, '\n');
    delta_action a;
    assert_int_equal(delta_action_parse(&a, p, (size_t)(e - p), &ctx, err), 0);
    assert_int_equal(delta_txn_add_action(t, &a, err), 0);
    delta_action_reset(&a);
    p = e + 1;
  }
  int rc = delta_txn_commit(t, v, err);
  delta_txn_free(t);
  return rc;
}

static int commit_actions(fixture *f, int64_t read_version, bool strict, const char *lines,
                          int64_t *v, inlet_error *err) {
  return commit_op(f, "WRITE", read_version, strict, lines, v, err);
}

static void test_commit__blind_appends_both_land(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  int64_t v = -1;
  assert_int_equal(commit_actions(f, -1, true, PROTO META("x"), &v, &err), 0);
  assert_int_equal(v, 0);
  assert_int_equal(commit_actions(f, 0, false, ADD("a"), &v, &err), 0);
  assert_int_equal(v, 1);
  /* Read version 0 again: loses version 1, retries at 2. */
  assert_int_equal(commit_actions(f, 0, false, ADD("b"), &v, &err), 0);
  assert_int_equal(v, 2);
  delta_snapshot s;
  assert_int_equal(load(f, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(s.n_files, 2);
  delta_snapshot_reset(&s);
  /* commitInfo carries the provenance fields. */
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/%020d.json", f->dir, 2);
  char *body = tu_read_file(path, NULL);
  assert_non_null(body);
  assert_non_null(strstr(body, "\"isBlindAppend\":true"));
  assert_non_null(strstr(body, "\"engineInfo\":\"inlet/0.1.0\""));
  assert_non_null(strstr(body, "\"txnId\":\""));
  assert_non_null(strstr(body, "\"numOutputBytes\":\"10\""));
  free(body);
}

static void test_commit__create_twice_is_eexists(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  int64_t v;
  assert_int_equal(commit_actions(f, -1, true, PROTO META("x"), &v, &err), 0);
  assert_int_equal(commit_actions(f, -1, true, PROTO META("y"), &v, &err), INLET_EEXISTS);
}

static void test_commit__strict_mode_refuses_moved_table(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  int64_t v;
  assert_int_equal(commit_actions(f, -1, true, PROTO META("x"), &v, &err), 0);
  assert_int_equal(commit_actions(f, 0, true, ADD("a"), &v, &err), 0);
  assert_int_equal(commit_actions(f, 0, true, ADD("b"), &v, &err), INLET_ECONFLICT);
  assert_non_null(strstr(err.message, "table moved"));
}

static void test_commit__conflict_kinds(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  int64_t v;
  assert_int_equal(commit_actions(f, -1, true, PROTO META("x"), &v, &err), 0);
  assert_int_equal(commit_actions(f, 0, false, ADD("a") ADD("b") ADD("c"), &v, &err), 0);
  /* Version 2 removes a (a delete). */
  assert_int_equal(commit_actions(f, 1, false, REMOVE("a"), &v, &err), 0);
  /* Removing a again from version 1: someone already removed it. */
  assert_int_equal(commit_actions(f, 1, false, REMOVE("a"), &v, &err), INLET_ECONFLICT);
  assert_non_null(strstr(err.message, "concurrent delete"));
  /* A compaction of b and c (dataChange=false) read at 1 does not conflict with 2. */
  assert_int_equal(commit_actions(f, 1, false,
                                  "{\"remove\":{\"path\":\"b\",\"dataChange\":false}}\n"
                                  "{\"remove\":{\"path\":\"c\",\"dataChange\":false}}\n"
                                  "{\"add\":{\"path\":\"bc\",\"size\":20,\"dataChange\":false}}\n",
                                  &v, &err),
                   0);
  assert_int_equal(v, 3);
  /* An append read at 2 never conflicts with the compaction. */
  assert_int_equal(commit_actions(f, 2, false, ADD("d"), &v, &err), 0);
  assert_int_equal(v, 4);
  /* A data-changing rewrite read at 3 conflicts with the append in 4. */
  assert_int_equal(commit_actions(f, 3, false, REMOVE("bc") ADD("e"), &v, &err), INLET_ECONFLICT);
  assert_non_null(strstr(err.message, "concurrent append"));
  /* txn for the same appId. */
  assert_int_equal(
      commit_actions(f, 4, false, "{\"txn\":{\"appId\":\"s\",\"version\":1}}\n", &v, &err), 0);
  assert_int_equal(
      commit_actions(f, 4, false, "{\"txn\":{\"appId\":\"s\",\"version\":1}}\n", &v, &err),
      INLET_ECONFLICT);
  assert_non_null(strstr(err.message, "appId \"s\""));
  assert_int_equal(
      commit_actions(f, 4, false, "{\"txn\":{\"appId\":\"t\",\"version\":1}}\n", &v, &err), 0);
  /* Metadata changed concurrently. */
  assert_int_equal(commit_actions(f, v, false, META("y"), &v, &err), 0);
  assert_int_equal(commit_actions(f, v - 1, false, ADD("z"), &v, &err), INLET_ECONFLICT);
  assert_non_null(strstr(err.message, "metadata changed"));
  /* No temp debris is left behind by the losers. */
  inlet_dirent *ents = NULL;
  size_t n = 0;
  assert_int_equal(f->st->ops->list(f->st, "_delta_log", &ents, &n, &err), 0);
  for (size_t i = 0; i < n; i++)
    assert_true(ents[i].name[0] != '.');
  inlet_dirents_free(ents, n);
}

/* Compactions are OPTIMIZE commits (or, without commitInfo, rewrites with
 * dataChange=false only); a DELETE that removes more files than it adds is
 * none. Rows are unknown, not smaller, when a live file has no numRecords. */
static void test_describe__counts_compactions_files_and_rows(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  int64_t v;
  assert_int_equal(commit_actions(f, -1, true, PROTO META("x"), &v, &err), 0);
  assert_int_equal(commit_actions(f, 0, false, ADD("a") ADD("b") ADD("c") ADD("d"), &v, &err), 0);
  /* A rewrite of two files into one. */
  assert_int_equal(
      commit_op(
          f, "OPTIMIZE", 1, false,
          "{\"remove\":{\"path\":\"a\",\"dataChange\":false}}\n"
          "{\"remove\":{\"path\":\"b\",\"dataChange\":false}}\n"
          "{\"add\":{\"path\":\"ab\",\"partitionValues\":{},\"size\":300000000,"
          "\"modificationTime\":1,\"dataChange\":false,\"stats\":\"{\\\"numRecords\\\":10}\"}}\n",
          &v, &err),
      0);
  /* A DELETE removes a file: no compaction. */
  assert_int_equal(commit_op(f, "DELETE", 2, false, REMOVE("d"), &v, &err), 0);
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, f->dir, &err), 0);
  inlet_table_description d;
  char *json = NULL;
  assert_int_equal(inlet_table_describe(t, &d, &json, &err), 0);
  assert_int_equal(d.version, 3);
  assert_int_equal(d.commits, 4);
  assert_int_equal(d.compactions, 1);
  assert_int_equal(d.files, 2);
  assert_int_equal(d.rows, 15);
  assert_int_equal(d.files_without_stats, 0);
  assert_int_equal(d.bytes, 300000010);
  assert_int_equal(d.small_files, 1); /* "c" (10 bytes) is below 128 MiB, "ab" is not */
  assert_int_equal(d.last_checkpoint, -1);
  assert_non_null(strstr(json, "\"compactions\": 1"));
  assert_non_null(strstr(json, "\"rows\": 15"));
  assert_non_null(strstr(json, "\"last_checkpoint\": null"));
  inlet_string_free(json);

  /* A commit without commitInfo that only rewrites (dataChange=false) is a
   * compaction; its output has no stats, so rows become unknown. */
  char p[4300];
  snprintf(p, sizeof p, "%s/_delta_log/00000000000000000004.json", f->dir);
  const char *c4 = "{\"remove\":{\"path\":\"c\",\"dataChange\":false}}\n"
                   "{\"add\":{\"path\":\"c2\",\"partitionValues\":{},\"size\":10,"
                   "\"modificationTime\":1,\"dataChange\":false}}\n";
  assert_int_equal(tu_write_file(p, c4, strlen(c4)), 0);
  assert_int_equal(inlet_table_describe(t, &d, &json, &err), 0);
  assert_int_equal(d.version, 4);
  assert_int_equal(d.compactions, 2);
  assert_int_equal(d.rows, -1);
  assert_int_equal(d.files_without_stats, 1);
  assert_non_null(strstr(json, "\"rows\": null"));
  assert_non_null(strstr(json, "\"files_without_stats\": 1"));
  inlet_string_free(json);
  inlet_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_replay__add_remove_reconcile_and_latest_metadata_wins,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_replay__same_path_different_dv_is_a_different_file,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_replay__tombstones_kept_within_retention, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replay__own_checkpoint_round_trips_state, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replay__last_checkpoint_hint_never_changes_results,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_replay__gap_in_commits_is_corrupt, setup, teardown),
      cmocka_unit_test_setup_teardown(test_replay__missing_protocol_or_metadata_is_corrupt, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replay__unsupported_reader_features_are_named, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replay__checkpoint_falls_back_to_commits_or_refuses,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_replay__spark_checkpoint_without_early_commits, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replay__malformed_commit_names_file_and_line, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replay__incremental_load_matches_full_replay, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replay__time_travel_by_timestamp, setup, teardown),
      cmocka_unit_test_setup_teardown(test_replay__commit_ict_ignored_without_enablement, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replay__not_a_table, setup, teardown),
      cmocka_unit_test_setup_teardown(test_commit__blind_appends_both_land, setup, teardown),
      cmocka_unit_test_setup_teardown(test_commit__create_twice_is_eexists, setup, teardown),
      cmocka_unit_test_setup_teardown(test_commit__strict_mode_refuses_moved_table, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_commit__conflict_kinds, setup, teardown),
      cmocka_unit_test_setup_teardown(test_describe__counts_compactions_files_and_rows, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
