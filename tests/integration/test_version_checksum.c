/*
 * Issue 11 §6: the version checksum file (`NNN.crc`, PROTOCOL.md "Version
 * Checksum File").
 *
 * - Every commit inlet makes leaves one, and its content is what a full
 *   replay computes: numFiles, tableSizeBytes, the histogram's totals,
 *   metadata, protocol, setTransactions and domainMetadata checked against
 *   the independent reader (refcheck log) after appends, stream progress
 *   (txn), a compaction, a remove with a domain and a table property
 *   change; its txnId is the commit's. refcheck and DuckDB still read the
 *   table.
 * - A commit that lands after a concurrent one derives its checksum from the
 *   winner's; with that missing it writes none and still commits.
 * - An existing checksum is never overwritten.
 * - The checksums Spark wrote for checkpoint-v2-table parse and agree with
 *   inlet's replay of every version.
 * - A checksum is used to know protocol and metadata without replay only
 *   when it agrees with its commit: garbage, another transaction's txnId or
 *   a metadata that is not the commit's send the reader back to the log,
 *   and describe shows what is wrong.
 */
#include "log_support.h"

#include <limits.h>
#include <unistd.h>

#include "delta/delta.h"
#include "delta/delta_crc.h"
#include "delta/delta_table_int.h"
#include "util/util.h"

static json_t *refcheck_log(const char *root, int64_t version) {
  tu_result r;
  tu_sh(&r, "'%s' '%s' log '%s' --version %lld", INLET_NODE, INLET_REFCHECK, root,
        (long long)version);
  ls_sh_ok(&r, "refcheck log");
  json_t *doc = json_loads(r.out, 0, NULL);
  assert_non_null(doc);
  tu_result_free(&r);
  return doc;
}

/* txnId of the commitInfo of commit @p v. */
static char *commit_txn_id(const char *root, int64_t v) {
  char p[PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/_delta_log/%020lld.json", root, (long long)v);
  char *text = tu_read_file(p, NULL);
  assert_non_null(text);
  char *nl = strchr(text, '\n');
  if (nl) *nl = '\0';
  json_t *line = json_loads(text, 0, NULL);
  const char *id = json_string_value(json_object_get(json_object_get(line, "commitInfo"), "txnId"));
  char *out = id ? strdup(id) : NULL;
  json_decref(line);
  free(text);
  return out;
}

/* The checksum of @p v against refcheck's replay of the same version. */
static void check_against_reference(inlet_storage *st, const char *root, int64_t v) {
  delta_crc c;
  inlet_error err = INLET_ERROR_INIT;
  if (delta_crc_read(&c, st, v, &err) != 0)
    fail_msg("version %lld: %s", (long long)v, inlet_errmsg(&err));
  json_t *ref = refcheck_log(root, v);
  json_t *files = json_object_get(ref, "active_files");
  int64_t bytes = 0;
  size_t i;
  json_t *f;
  json_array_foreach(files, i, f) bytes += json_integer_value(json_object_get(f, "size"));
  assert_int_equal(c.num_files, (int64_t)json_array_size(files));
  assert_int_equal(c.table_size_bytes, bytes);
  assert_int_equal(c.num_metadata, 1);
  assert_int_equal(c.num_protocol, 1);
  int64_t hf = 0, hb = 0;
  assert_true(c.n_bins > 0);
  for (int32_t b = 0; b < c.n_bins; b++) {
    hf += c.bin_files[b];
    hb += c.bin_bytes[b];
  }
  assert_int_equal(hf, c.num_files);
  assert_int_equal(hb, bytes);
  json_t *md = json_object_get(ref, "metaData");
  assert_string_equal(c.metadata.id, json_string_value(json_object_get(md, "id")));
  json_t *conf = json_object_get(md, "configuration");
  assert_int_equal(c.metadata.n_configuration, (int32_t)json_object_size(conf));
  for (int32_t k = 0; k < c.metadata.n_configuration; k++)
    assert_string_equal(c.metadata.configuration[k].value,
                        json_string_value(json_object_get(conf, c.metadata.configuration[k].key)));
  json_t *proto = json_object_get(ref, "protocol");
  assert_int_equal(c.protocol.min_reader,
                   json_integer_value(json_object_get(proto, "minReaderVersion")));
  assert_int_equal(c.protocol.min_writer,
                   json_integer_value(json_object_get(proto, "minWriterVersion")));
  json_t *txn = json_object_get(ref, "txn");
  assert_true(c.has_txns);
  assert_int_equal(c.n_txns, (int64_t)json_object_size(txn));
  for (int64_t k = 0; k < c.n_txns; k++)
    assert_int_equal(c.txns[k].version, json_integer_value(json_object_get(txn, c.txns[k].app_id)));
  json_t *doms = json_object_get(ref, "domainMetadata");
  assert_true(c.has_domains);
  assert_int_equal(c.n_domains, (int64_t)json_object_size(doms));
  for (int64_t k = 0; k < c.n_domains; k++) {
    json_t *d = json_object_get(doms, c.domains[k].domain);
    const char *conf_s = json_is_string(d) ? json_string_value(d)
                                           : json_string_value(json_object_get(d, "configuration"));
    assert_non_null(conf_s);
    assert_string_equal(c.domains[k].configuration, conf_s);
  }
  char *id = commit_txn_id(root, v);
  assert_non_null(id);
  assert_non_null(c.txn_id);
  assert_string_equal(c.txn_id, id);
  free(id);
  json_decref(ref);
  delta_crc_reset(&c);
}

static int64_t latest_version(inlet_storage *st, const char *root) {
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_LATEST, 0, &err), 0);
  int64_t v = s.version;
  delta_snapshot_reset(&s);
  return v;
}

/* A commit through the transaction API: remove a file (with its size, as a
 * writer must) and set a domain, with the protocol that allows domains. */
static void remove_and_set_domain(inlet_storage *st, const char *root) {
  delta_snapshot s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_true(s.n_files > 0);
  delta_txn *txn = NULL;
  assert_int_equal(delta_txn_begin(&txn, st, root, s.version, "DELETE", &err), 0);
  delta_txn_set_base(txn, &s);
  delta_action a;
  memset(&a, 0, sizeof a);
  static char *features[] = {"domainMetadata"};
  a.kind = DELTA_ACTION_PROTOCOL;
  a.u.protocol = (delta_protocol){1, 7, 0, NULL, 1, features};
  assert_int_equal(delta_txn_add_action(txn, &a, &err), 0);
  memset(&a, 0, sizeof a);
  a.kind = DELTA_ACTION_REMOVE;
  a.u.remove.path = s.files[0].add.path;
  a.u.remove.deletion_timestamp = delta_now_ms();
  a.u.remove.data_change = true;
  a.u.remove.extended_file_metadata = true;
  a.u.remove.size = s.files[0].add.size;
  /* extendedFileMetadata promises the partition values too. */
  a.u.remove.partition_values = s.files[0].add.partition_values;
  a.u.remove.n_partition_values = s.files[0].add.n_partition_values;
  assert_int_equal(delta_txn_add_action(txn, &a, &err), 0);
  memset(&a, 0, sizeof a);
  a.kind = DELTA_ACTION_DOMAIN;
  a.u.domain = (delta_domain){"app.example", "{\"k\":1}", false};
  assert_int_equal(delta_txn_add_action(txn, &a, &err), 0);
  int64_t v;
  assert_int_equal(delta_txn_commit(txn, &v, &err), 0);
  delta_txn_free(txn);
  delta_snapshot_reset(&s);
}

static void test_version_checksum__matches_full_replay(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("crc-replay"));
  LS_SH_OK("build table",
           "cd '%s' && I='%s' && $I create t --schema 'id long, g string' --partition-by g && "
           "printf '{\"id\":1,\"g\":\"a\"}\\n{\"id\":2,\"g\":\"b\"}\\n{\"id\":3,\"g\":null}\\n' > "
           "in.ndjson && "
           "$I append t in.ndjson && $I append t in.ndjson --app-id s1 --app-version 1 && "
           "$I append t in.ndjson --app-id s1 --app-version 2 && $I append t in.ndjson && "
           "$I compact t --min-files 2",
           dir, INLET_BIN);
  char root[PATH_MAX], t[4200];
  snprintf(t, sizeof t, "%s/t", dir);
  assert_non_null(realpath(t, root));
  inlet_storage *st;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_posix_open(&st, root, false, &err), 0);
  remove_and_set_domain(st, root);
  LS_SH_OK("property and append",
           "cd '%s' && I='%s' && $I append t in.ndjson --app-id s2 --app-version 7", dir,
           INLET_BIN);
  int64_t latest = latest_version(st, root);
  assert_true(latest >= 7);
  for (int64_t v = 0; v <= latest; v++) {
    check_against_reference(st, root, v);
    /* ... and against inlet's own replay, field by field. */
    delta_crc c;
    delta_snapshot s;
    char why[512] = "";
    assert_int_equal(delta_crc_read(&c, st, v, &err), 0);
    assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_VERSION, v, &err), 0);
    if (delta_crc_check_snapshot(&c, &s, why, sizeof why) != 0)
      fail_msg("v%lld: %s", (long long)v, why);
    delta_snapshot_reset(&s);
    delta_crc_reset(&c);
  }
  /* The compaction's and the remove's checksums are among them: the table
   * really shrank. */
  delta_crc c;
  assert_int_equal(delta_crc_read(&c, st, latest, &err), 0);
  assert_int_equal(c.n_domains, 1);
  assert_int_equal(c.n_txns, 2);
  delta_crc_reset(&c);
  /* Other readers are not disturbed by the checksum files. */
  LS_SH_OK("readers",
           "'%2$s' describe '%1$s' --json | grep '\"checksum\": \"ok\"' && "
           "'%2$s' scan '%1$s' --format ndjson > /dev/null",
           root, INLET_BIN);
  tu_result r;
  tu_sh(&r, "'%s' '%s' delta '%s' > /dev/null", INLET_NODE, INLET_REFCHECK, root);
  ls_sh_ok(&r, "refcheck delta");
  tu_result_free(&r);
  st->ops->free(st);
}

static void append_one(inlet_table *tb, int64_t id, int64_t *v) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema sc;
  assert_int_equal(inlet_schema_parse(&sc, "id long", &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &sc, &err), 0);
  assert_int_equal(inlet_array_append_int(&b.columns[0], &sc.fields[0], id, &err), 0);
  b.num_rows = 1;
  if (inlet_table_append(tb, &b, 1, NULL, v, &err) != 0) fail_msg("append: %s", inlet_errmsg(&err));
  inlet_batch_reset(&b);
  inlet_schema_reset(&sc);
}

static void write_one(inlet_table_writer *w, int64_t id) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema sc;
  assert_int_equal(inlet_schema_parse(&sc, "id long", &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &sc, &err), 0);
  assert_int_equal(inlet_array_append_int(&b.columns[0], &sc.fields[0], id, &err), 0);
  b.num_rows = 1;
  assert_int_equal(inlet_table_writer_write(w, &b, &err), 0);
  inlet_batch_reset(&b);
  inlet_schema_reset(&sc);
}

static void test_version_checksum__after_a_concurrent_commit(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("crc-race"));
  LS_SH_OK("create", "cd '%s' && '%s' create t --schema 'id long'", dir, INLET_BIN);
  char t[4200];
  snprintf(t, sizeof t, "%s/t", dir);
  inlet_table *a = NULL, *b = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_table_open(&a, t, &err), 0);
  assert_int_equal(inlet_table_open(&b, t, &err), 0);
  /* Writer A reads version 0; B commits version 1 meanwhile; A lands at 2
   * and derives its checksum from version 1's. */
  inlet_table_writer *w = NULL;
  assert_int_equal(inlet_table_writer_open(&w, a, NULL, &err), 0);
  write_one(w, 1);
  int64_t v = -1;
  append_one(b, 2, &v);
  assert_int_equal(v, 1);
  assert_int_equal(inlet_table_writer_commit(w, &v, &err), 0);
  assert_int_equal(v, 2);
  inlet_table_writer_free(w);
  check_against_reference(a->st, a->root_abs, 2);
  /* Without the winner's checksum nothing can be derived: no checksum, but
   * the commit stands. */
  assert_int_equal(inlet_table_writer_open(&w, a, NULL, &err), 0);
  write_one(w, 3);
  append_one(b, 4, &v);
  assert_int_equal(v, 3);
  char p[4300];
  snprintf(p, sizeof p, "%s/_delta_log/00000000000000000003.crc", t);
  assert_int_equal(unlink(p), 0);
  assert_int_equal(inlet_table_writer_commit(w, &v, &err), 0);
  assert_int_equal(v, 4);
  inlet_table_writer_free(w);
  snprintf(p, sizeof p, "%s/_delta_log/00000000000000000004.crc", t);
  assert_int_equal(access(p, F_OK), -1);
  /* The next commit reads version 4 and starts the chain again. */
  append_one(a, 5, &v);
  assert_int_equal(v, 5);
  check_against_reference(a->st, a->root_abs, 5);
  inlet_table_free(a);
  inlet_table_free(b);
}

static void test_version_checksum__never_overwritten(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("crc-keep"));
  LS_SH_OK("create", "cd '%s' && '%s' create t --schema 'id long'", dir, INLET_BIN);
  char t[4200], p[4300];
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(p, sizeof p, "%s/_delta_log/00000000000000000001.crc", t);
  const char other[] = "{\"written\":\"by someone else\"}";
  assert_int_equal(tu_write_file(p, other, sizeof other - 1), 0);
  inlet_table *tb = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  int64_t v = -1;
  append_one(tb, 1, &v);
  assert_int_equal(v, 1);
  inlet_table_free(tb);
  size_t len = 0;
  char *got = tu_read_file(p, &len);
  assert_int_equal(len, sizeof other - 1);
  assert_memory_equal(got, other, len);
  free(got);
}

static void test_version_checksum__spark_checksums_agree_with_replay(void **state) {
  (void)state;
  const char *t = ls_copy_table("delta-rs/checkpoint-v2-table", "crc-spark");
  char root[PATH_MAX];
  assert_non_null(realpath(t, root));
  inlet_storage *st;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_posix_open(&st, root, false, &err), 0);
  for (int64_t v = 0; v <= 9; v++) {
    delta_crc c;
    delta_snapshot s;
    char why[512] = "";
    if (delta_crc_read(&c, st, v, &err) != 0)
      fail_msg("v%lld: %s", (long long)v, inlet_errmsg(&err));
    assert_int_equal(c.n_bins, 95); /* Spark's histogramOpt */
    assert_int_equal(delta_snapshot_load(&s, st, root, DELTA_SNAP_VERSION, v, &err), 0);
    if (delta_crc_check_snapshot(&c, &s, why, sizeof why) != 0)
      fail_msg("v%lld: %s", (long long)v, why);
    assert_int_equal(delta_crc_check_commit(&c, st, root, &err), 0);
    delta_snapshot_reset(&s);
    delta_crc_reset(&c);
  }
  st->ops->free(st);
}

static void expect_meta_source(inlet_table *tb, bool from_checksum, const char *id) {
  delta_table_meta m;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_table_load_meta(tb, &m, &err), 0);
  assert_int_equal(m.from_checksum, from_checksum);
  assert_string_equal(m.metadata.id, id);
  delta_table_meta_reset(&m);
}

static void test_version_checksum__corrupt_or_foreign_checksum_ignored(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("crc-corrupt"));
  LS_SH_OK("create",
           "cd '%s' && '%s' create t --schema 'id long' && printf '{\"id\":1}\\n' > in.ndjson", dir,
           INLET_BIN);
  char t[4200], p1[4300], p2[4300];
  snprintf(t, sizeof t, "%s/t", dir);
  LS_SH_OK("append", "'%2$s' append '%1$s' '%1$s/../in.ndjson'", t, INLET_BIN);
  snprintf(p1, sizeof p1, "%s/_delta_log/00000000000000000001.crc", t);
  snprintf(p2, sizeof p2, "%s/_delta_log/00000000000000000001.json", t);
  inlet_table *tb = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  delta_snapshot s;
  assert_int_equal(delta_table_load(tb, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  char id[64];
  snprintf(id, sizeof id, "%s", s.metadata.id);
  delta_snapshot_reset(&s);
  /* Positive control: a good checksum is used. */
  expect_meta_source(tb, true, id);
  char *good = tu_read_file(p1, NULL);
  assert_non_null(good);

  /* Garbage. */
  assert_int_equal(tu_write_file(p1, "{\"tableSizeBytes\":", 18), 0);
  expect_meta_source(tb, false, id);
  tu_result r;
  tu_sh(&r, "'%s' describe '%s' --json", INLET_BIN, t);
  ls_sh_ok(&r, "describe");
  assert_non_null(strstr(r.out, "\"checksum\": \"unreadable"));
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --format ndjson && '%s' '%s' delta '%s'", INLET_BIN, t, INLET_NODE,
        INLET_REFCHECK, t);
  ls_sh_ok(&r, "readers with a garbage checksum");
  tu_result_free(&r);

  /* Another transaction's checksum (its txnId is not the commit's). */
  json_t *o = json_loads(good, 0, NULL);
  json_object_set_new(o, "txnId", json_string("00000000-0000-4000-8000-000000000000"));
  char *s1 = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  assert_int_equal(tu_write_file(p1, s1, strlen(s1)), 0);
  free(s1);
  expect_meta_source(tb, false, id);

  /* A metadata that is not the one the commit holds. */
  json_object_del(o, "txnId");
  json_object_set_new(json_object_get(o, "metadata"), "id", json_string("someone-else"));
  s1 = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  assert_int_equal(tu_write_file(p1, s1, strlen(s1)), 0);
  free(s1);
  char *commit = tu_read_file(p2, NULL);
  json_decref(o);
  /* Commit 1 is an append (no metaData): it cannot contradict that, so
   * give it one to check against, as a schema change would. */
  tu_sh(&r, "grep -c metaData '%s'; true", p2);
  int has_meta = atoi(r.out);
  tu_result_free(&r);
  if (!has_meta) {
    char *fixed = NULL;
    size_t n = strlen(commit) + 4096;
    fixed = malloc(n);
    delta_snapshot s0;
    assert_int_equal(delta_table_load(tb, &s0, DELTA_SNAP_LATEST, 0, &err), 0);
    delta_action m;
    memset(&m, 0, sizeof m);
    m.kind = DELTA_ACTION_METADATA;
    m.u.metadata = s0.metadata;
    inlet_buf b = INLET_BUF_INIT;
    assert_int_equal(delta_action_write(&b, &m, &err), 0);
    inlet_buf_terminate(&b);
    snprintf(fixed, n, "%s%s", commit, (char *)b.data);
    assert_int_equal(tu_write_file(p2, fixed, strlen(fixed)), 0);
    inlet_buf_reset(&b);
    free(fixed);
    delta_snapshot_reset(&s0);
  }
  free(commit);
  expect_meta_source(tb, false, id);
  tu_sh(&r, "'%s' describe '%s' --json", INLET_BIN, t);
  ls_sh_ok(&r, "describe");
  assert_non_null(strstr(r.out, "\"checksum\": \"disagrees with the log: its metadata"));
  tu_result_free(&r);

  /* The good one again is used again. */
  assert_int_equal(tu_write_file(p1, good, strlen(good)), 0);
  expect_meta_source(tb, true, id);
  free(good);
  inlet_table_free(tb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version_checksum__matches_full_replay),
      cmocka_unit_test(test_version_checksum__after_a_concurrent_commit),
      cmocka_unit_test(test_version_checksum__never_overwritten),
      cmocka_unit_test(test_version_checksum__spark_checksums_agree_with_replay),
      cmocka_unit_test(test_version_checksum__corrupt_or_foreign_checksum_ignored),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
