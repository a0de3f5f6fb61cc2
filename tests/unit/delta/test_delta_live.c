/*
 * The table handle's cached state (delta_state.c, delta_table.c; issue 12
 * "Costs that grow with the table"): a writer applies its own commits to the
 * cache from memory and reads only the commits of others.
 *   - after every step of a mixed history (own appends with txn versions,
 *     appends by another handle and by another process, a compaction,
 *     metaData/protocol/domain changes, removes and re-adds, in-commit
 *     timestamps written by another engine, conflicts and retries, strict
 *     mode), the snapshot served from the cache equals a fresh load of the
 *     log: files in order with their stats, tombstones, txn versions,
 *     domains, protocol, metaData, schema, version and timestamp;
 *   - a failure while applying (a storage operation failing after the
 *     commit) drops the cache and the next load is still right;
 *   - a cache older than a cleaned-up log is reloaded, not extended;
 *   - the storage work of one commit (operations, bytes read, bytes written)
 *     is the same at 10 live files as at 1,500, through the library and
 *     through the ingester, and never lists `_delta_log`.
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "delta/delta_table_int.h"
#include "inlet/ingest.h"
#include "inlet/maint.h"
#include "storage/fault.h"
#include "util/util.h"

#define SCHEMA "id long, k string, v double"

/* ---- helpers ---------------------------------------------------------------- */

static void one_batch(inlet_batch *b, int64_t id, const char *k) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, SCHEMA, &err), 0);
  assert_int_equal(inlet_batch_init(b, &s, &err), 0);
  assert_int_equal(inlet_array_append_int(&b->columns[0], &s.fields[0], id, &err), 0);
  assert_int_equal(inlet_array_append_bytes(&b->columns[1], &s.fields[1], k, strlen(k), &err), 0);
  assert_int_equal(inlet_array_append_double(&b->columns[2], (double)id / 4, &err), 0);
  b->num_rows = 1;
  inlet_schema_reset(&s);
}

static int append(inlet_table *t, int64_t id, const char *k, const char *app, int64_t app_version,
                  int64_t *v, inlet_error *err) {
  inlet_batch b;
  one_batch(&b, id, k);
  inlet_append_options o = INLET_APPEND_OPTIONS_INIT;
  o.app_id = app;
  o.app_version = app_version;
  int rc = inlet_table_append(t, &b, 1, &o, v, err);
  inlet_batch_reset(&b);
  return rc;
}

static void must_append(inlet_table *t, int64_t id, const char *k, const char *app,
                        int64_t app_version) {
  inlet_error err = INLET_ERROR_INIT;
  int64_t v = -1;
  if (append(t, id, k, app, app_version, &v, &err) != 0) fail_msg("append: %s", err.message);
}

static inlet_table *create_table(const char *path, const char *interval) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, SCHEMA, &err), 0);
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *pcols[] = {"k"};
  const char *keys[] = {"delta.checkpointInterval"};
  const char *vals[] = {interval};
  co.n_partition_columns = 1;
  co.partition_columns = pcols;
  co.n_properties = 1;
  co.property_keys = keys;
  co.property_values = vals;
  inlet_table *t = NULL;
  if (inlet_table_create(&t, path, &s, &co, &err) != 0) fail_msg("create: %s", err.message);
  inlet_schema_reset(&s);
  return t;
}

/* Writes commit @p version of @p table as another engine would: raw lines. */
static void raw_commit(const char *table, int64_t version, const char *lines) {
  char p[4300];
  snprintf(p, sizeof p, "%s/_delta_log/%020lld.json", table, (long long)version);
  int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, lines, strlen(lines)), (ssize_t)strlen(lines));
  close(fd);
}

static int64_t latest_version(const char *table) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  int64_t v = inlet_snapshot_version(s);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return v;
}

static void same_str(const char *a, const char *b, const char *what) {
  if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
    fail_msg("%s differs: \"%s\" vs \"%s\"", what, a ? a : "(null)", b ? b : "(null)");
}

static void same_kv(const delta_kv *a, int32_t na, const delta_kv *b, int32_t nb,
                    const char *what) {
  assert_int_equal(na, nb);
  for (int32_t i = 0; i < na; i++) {
    same_str(a[i].key, b[i].key, what);
    same_str(a[i].value, b[i].value, what);
  }
}

static void same_add(const delta_add *a, const delta_add *b) {
  same_str(a->path, b->path, "add.path");
  same_kv(a->partition_values, a->n_partition_values, b->partition_values, b->n_partition_values,
          "add.partitionValues");
  assert_int_equal(a->size, b->size);
  assert_int_equal(a->modification_time, b->modification_time);
  /* dataChange is not compared: a checkpoint is a state, not a change, and
   * records its adds with dataChange=false (as Spark does). */
  same_str(a->stats, b->stats, "add.stats");
  same_str(a->tags, b->tags, "add.tags");
  same_str(a->dv_id, b->dv_id, "add.deletionVector");
}

static const delta_remove *find_tomb(const delta_snapshot *s, const char *path) {
  for (int64_t i = 0; i < s->n_tombstones; i++)
    if (strcmp(s->tombstones[i].path, path) == 0) return &s->tombstones[i];
  return NULL;
}

/* Everything a reader or writer sees of the two snapshots is equal. */
static void assert_same_snapshot(const delta_snapshot *c, const delta_snapshot *f) {
  assert_int_equal(c->version, f->version);
  assert_int_equal(c->timestamp_ms, f->timestamp_ms);
  assert_int_equal(c->protocol.min_reader, f->protocol.min_reader);
  assert_int_equal(c->protocol.min_writer, f->protocol.min_writer);
  assert_int_equal(c->protocol.n_reader_features, f->protocol.n_reader_features);
  assert_int_equal(c->protocol.n_writer_features, f->protocol.n_writer_features);
  for (int32_t i = 0; i < c->protocol.n_writer_features; i++)
    same_str(c->protocol.writer_features[i], f->protocol.writer_features[i], "writer feature");
  same_str(c->metadata.id, f->metadata.id, "metaData.id");
  same_str(c->metadata.schema_string, f->metadata.schema_string, "schemaString");
  same_str(c->metadata.description, f->metadata.description, "description");
  assert_int_equal(c->metadata.n_partition_columns, f->metadata.n_partition_columns);
  same_kv(c->metadata.configuration, c->metadata.n_configuration, f->metadata.configuration,
          f->metadata.n_configuration, "configuration");
  assert_int_equal(c->has_schema, f->has_schema);
  assert_true(inlet_schema_equal(&c->schema, &f->schema));
  assert_int_equal(c->n_files, f->n_files);
  for (int64_t i = 0; i < c->n_files; i++) {
    same_add(&c->files[i].add, &f->files[i].add);
    assert_int_equal(c->files[i].num_records, f->files[i].num_records);
    if (i > 0) assert_true(strcmp(c->files[i - 1].add.path, c->files[i].add.path) < 0);
  }
  assert_int_equal(c->n_txns, f->n_txns);
  for (int64_t i = 0; i < c->n_txns; i++) {
    bool found = false;
    for (int64_t j = 0; j < f->n_txns; j++) {
      if (strcmp(c->txns[i].app_id, f->txns[j].app_id) != 0) continue;
      assert_int_equal(c->txns[i].version, f->txns[j].version);
      assert_int_equal(c->txns[i].last_updated, f->txns[j].last_updated);
      found = true;
    }
    if (!found) fail_msg("txn %s missing from the fresh load", c->txns[i].app_id);
  }
  assert_int_equal(c->n_domains, f->n_domains);
  for (int64_t i = 0; i < c->n_domains; i++) {
    bool found = false;
    for (int64_t j = 0; j < f->n_domains; j++)
      if (strcmp(c->domains[i].domain, f->domains[j].domain) == 0) {
        same_str(c->domains[i].configuration, f->domains[j].configuration, "domain");
        found = true;
      }
    assert_true(found);
  }
  assert_int_equal(c->n_tombstones, f->n_tombstones);
  for (int64_t i = 0; i < c->n_tombstones; i++) {
    const delta_remove *r = find_tomb(f, c->tombstones[i].path);
    if (!r) fail_msg("tombstone %s missing from the fresh load", c->tombstones[i].path);
    assert_int_equal(r->deletion_timestamp, c->tombstones[i].deletion_timestamp);
    assert_int_equal(r->data_change, c->tombstones[i].data_change);
  }
}

/* The snapshot @p t serves from its cache equals a fresh replay of the log,
 * and the cache really was used (it stands at that version). */
static void check_cache(inlet_table *t, const char *where) {
  inlet_error err = INLET_ERROR_INIT;
  delta_snapshot c, f;
  if (delta_table_load(t, &c, DELTA_SNAP_LATEST, 0, &err) != 0)
    fail_msg("%s: cached load: %s", where, err.message);
  assert_non_null(t->live);
  assert_int_equal(delta_state_version(t->live), c.version);
  inlet_storage *st = NULL;
  assert_int_equal(inlet_storage_posix_open(&st, t->root_abs, false, &err), 0);
  if (delta_snapshot_load(&f, st, t->root_abs, DELTA_SNAP_LATEST, 0, &err) != 0)
    fail_msg("%s: fresh load: %s", where, err.message);
  st->ops->free(st);
  assert_same_snapshot(&c, &f);
  /* The writer's view (head) agrees too. */
  delta_snapshot h;
  assert_int_equal(delta_table_head(t, &h, &err), 0);
  assert_int_equal(h.version, f.version);
  assert_int_equal(h.n_files, 0);
  assert_int_equal(h.n_txns, f.n_txns);
  assert_true(inlet_schema_equal(&h.schema, &f.schema));
  delta_snapshot_reset(&h);
  delta_snapshot_reset(&c);
  delta_snapshot_reset(&f);
}

/* ---- equality ------------------------------------------------------------------ */

static void test_live__cached_state_equals_fresh_load_through_a_mixed_history(void **state) {
  (void)state;
  char path[4200];
  snprintf(path, sizeof path, "%s/t", tu_mkdtemp("delta-live"));
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *a = create_table(path, "10"); /* checkpoints along the way */
  inlet_table *b = NULL;
  assert_int_equal(inlet_table_open(&b, path, &err), 0);
  const char *keys[] = {"x", "y", "z"};
  int64_t app_v = 0;
  for (int i = 0; i < 24; i++) {
    must_append(a, i, keys[i % 3], "app-A", ++app_v);
    if (i % 5 == 2) must_append(b, 1000 + i, keys[(i + 1) % 3], "app-B", i);
    if (i % 7 == 3) {
      /* Another process appends (its own handle and cache). */
      pid_t pid = fork();
      assert_true(pid >= 0);
      if (pid == 0) {
        inlet_table *c = NULL;
        inlet_error e = INLET_ERROR_INIT;
        int ok = inlet_table_open(&c, path, &e) == 0 &&
                 append(c, 2000 + i, "w", "app-C", i, NULL, &e) == 0;
        inlet_table_free(c);
        _exit(ok ? 0 : 1);
      }
      int st = 0;
      assert_int_equal(waitpid(pid, &st, 0), pid);
      assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    check_cache(a, "after an own append");
  }
  check_cache(b, "the other handle");

  /* Compaction through handle a: removes and adds of dataChange=false. */
  inlet_compact_options co = INLET_COMPACT_OPTIONS_INIT;
  co.min_files = 2;
  inlet_compact_result cr;
  assert_int_equal(inlet_table_compact(&cr, a, &co, &err), 0);
  assert_true(cr.commits > 0);
  check_cache(a, "after compaction");
  must_append(a, 500, "x", "app-A", ++app_v);
  check_cache(a, "after compaction and an append");

  /* Another engine: a metaData change (a property), a protocol upgrade to
   * table features, domain metadata, an in-commit timestamp, a remove and a
   * re-add of the same path. */
  int64_t v = latest_version(path);
  delta_snapshot cur;
  assert_int_equal(delta_table_load(b, &cur, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_true(cur.n_files >= 2);
  char *gone = inlet_strdup(cur.files[0].add.path);
  char *gone_json = delta_path_encode(gone);
  char lines[8192];
  snprintf(lines, sizeof lines,
           "{\"commitInfo\":{\"inCommitTimestamp\":1700000000123,\"operation\":\"DELETE\"}}\n"
           "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
           "[\"timestampNtz\"],\"writerFeatures\":[\"timestampNtz\",\"domainMetadata\"]}}\n"
           "{\"metaData\":{\"id\":\"%s\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
           "\"schemaString\":%s,\"partitionColumns\":[\"k\"],\"configuration\":"
           "{\"delta.checkpointInterval\":\"10\",\"team\":\"ops\"},\"createdTime\":1}}\n"
           "{\"domainMetadata\":{\"domain\":\"inlet.test\",\"configuration\":\"{\\\"a\\\":1}\","
           "\"removed\":false}}\n"
           "{\"remove\":{\"path\":\"%s\",\"deletionTimestamp\":%lld,\"dataChange\":true}}\n",
           cur.metadata.id,
           "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\","
           "\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":"
           "\\\"k\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
           "{\\\"name\\\":\\\"v\\\",\\\"type\\\":\\\"double\\\",\\\"nullable\\\":true,\\\"metadata"
           "\\\":{}}]}\"",
           gone_json, (long long)delta_now_ms());
  raw_commit(path, v + 1, lines);
  check_cache(a, "after another engine's metaData/protocol/domain/remove");
  must_append(a, 501, "y", "app-A", ++app_v);
  check_cache(a, "an own append after them");
  snprintf(lines, sizeof lines,
           "{\"commitInfo\":{\"inCommitTimestamp\":1700000000999}}\n"
           "{\"add\":{\"path\":\"%s\",\"partitionValues\":{\"k\":\"%s\"},\"size\":%lld,"
           "\"modificationTime\":7,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":1}\"}}\n"
           "{\"domainMetadata\":{\"domain\":\"inlet.test\",\"configuration\":\"\","
           "\"removed\":true}}\n",
           gone_json, cur.files[0].add.partition_values[0].value, (long long)cur.files[0].add.size);
  raw_commit(path, v + 3, lines);
  check_cache(a, "a re-add of the removed path, with an in-commit timestamp");
  delta_snapshot last;
  assert_int_equal(delta_table_load(a, &last, DELTA_SNAP_LATEST, 0, &err), 0);
  /* The table does not enable in-commit timestamps: the commit's
   * inCommitTimestamp does not time it, its file does (as Spark reads it). */
  {
    char cp[4300];
    snprintf(cp, sizeof cp, "%s/_delta_log/%020lld.json", path, (long long)(v + 3));
    struct stat sb;
    assert_int_equal(stat(cp, &sb), 0);
    int64_t mtime_ms = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
    assert_int_equal(last.timestamp_ms, mtime_ms);
  }
  assert_null(find_tomb(&last, gone));
  delta_snapshot_reset(&last);
  inlet_free(gone);
  inlet_free(gone_json);
  delta_snapshot_reset(&cur);

  /* Time travel through the handle leaves the cache where it is. */
  delta_snapshot old;
  assert_int_equal(delta_table_load(a, &old, DELTA_SNAP_VERSION, 3, &err), 0);
  assert_int_equal(old.version, 3);
  delta_snapshot_reset(&old);
  assert_int_equal(delta_state_version(a->live), v + 3);
  check_cache(a, "after time travel");
  inlet_table_free(a);
  inlet_table_free(b);
  tu_rmtree(path);
}

static void test_live__conflicts_retries_and_strict_mode_keep_the_cache_right(void **state) {
  (void)state;
  char path[4200];
  snprintf(path, sizeof path, "%s/t", tu_mkdtemp("delta-live-conflict"));
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *a = create_table(path, "1000");
  inlet_table *b = NULL;
  assert_int_equal(inlet_table_open(&b, path, &err), 0);
  must_append(a, 1, "x", "app-A", 1);
  must_append(b, 2, "y", "app-B", 1);

  /* A writer of a reads version V; b commits V+1 and V+2 meanwhile; a's
   * blind append retries and lands at V+3, after reading the winners. */
  inlet_table_writer *w = NULL;
  inlet_append_options o = INLET_APPEND_OPTIONS_INIT;
  o.app_id = "app-A";
  o.app_version = 2;
  assert_int_equal(inlet_table_writer_open(&w, a, &o, &err), 0);
  inlet_batch bt;
  one_batch(&bt, 3, "z");
  assert_int_equal(inlet_table_writer_write(w, &bt, &err), 0);
  inlet_batch_reset(&bt);
  int64_t vb1 = -1, vb2 = -1, va = -1;
  assert_int_equal(append(b, 4, "x", "app-B", 2, &vb1, &err), 0);
  assert_int_equal(append(b, 5, "y", NULL, 0, &vb2, &err), 0);
  assert_int_equal(inlet_table_writer_commit(w, &va, &err), 0);
  inlet_table_writer_free(w);
  assert_int_equal(va, vb2 + 1);
  check_cache(a, "after a retried commit");

  /* A conflict: b records app-A's next version first; a's commit fails and
   * its cache must not pretend otherwise. */
  o.app_version = 3;
  assert_int_equal(inlet_table_writer_open(&w, a, &o, &err), 0);
  one_batch(&bt, 6, "z");
  assert_int_equal(inlet_table_writer_write(w, &bt, &err), 0);
  inlet_batch_reset(&bt);
  assert_int_equal(append(b, 7, "x", "app-A", 3, NULL, &err), 0);
  assert_int_equal(inlet_table_writer_commit(w, NULL, &err), INLET_ECONFLICT);
  inlet_table_writer_free(w);
  check_cache(a, "after a conflict");
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_snapshot(&s, a, &err), 0);
  assert_int_equal(inlet_snapshot_txn_version(s, "app-A"), 3);
  inlet_snapshot_free(s);

  /* Strict mode: the expected version must be the latest. */
  int64_t latest = latest_version(path);
  inlet_append_options so = INLET_APPEND_OPTIONS_INIT;
  so.expected_version = latest - 1;
  one_batch(&bt, 8, "x");
  assert_int_equal(inlet_table_append(a, &bt, 1, &so, NULL, &err), INLET_ECONFLICT);
  so.expected_version = latest + 5;
  assert_int_equal(inlet_table_append(a, &bt, 1, &so, NULL, &err), INLET_ENOTFOUND);
  so.expected_version = latest;
  int64_t sv = -1;
  assert_int_equal(inlet_table_append(a, &bt, 1, &so, &sv, &err), 0);
  assert_int_equal(sv, latest + 1);
  inlet_batch_reset(&bt);
  check_cache(a, "after strict appends");
  inlet_table_free(a);
  inlet_table_free(b);
  tu_rmtree(path);
}

/* Every storage operation after the commit's publication failing in turn:
 * the commit stands, the cache is either updated right or dropped. */
static void test_live__failure_while_applying_drops_the_cache(void **state) {
  (void)state;
  char path[4200];
  snprintf(path, sizeof path, "%s/t", tu_mkdtemp("delta-live-fault"));
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = create_table(path, "1000");
  must_append(t, 1, "x", "app", 1);
  inlet_storage *orig = t->st, *fs = NULL;
  assert_int_equal(inlet_storage_fault_wrap(&fs, orig, false, &err), 0);
  t->st = fs;
  /* The stat of the new commit (its timestamp) is the last operation. */
  inlet_fault_reset_counts(fs);
  must_append(t, 2, "y", "app", 2);
  int64_t stats = inlet_fault_count(fs, INLET_FAULT_STAT);
  assert_true(stats >= 2); /* catch-up probes before, the own commit's mtime after */
  inlet_fault_arm(fs, INLET_FAULT_STAT, stats - 1, INLET_FAULT_FAIL);
  must_append(t, 3, "z", "app", 3);
  assert_true(inlet_fault_fired(fs));
  assert_null(t->live); /* dropped, not half-applied */
  inlet_fault_disarm(fs);
  check_cache(t, "rebuilt after the failure");
  t->st = orig;
  fs->ops->free(fs);
  inlet_table_free(t);
  tu_rmtree(path);
}

/* A handle idle while others wrote on and log cleanup removed the commits
 * after its cached version (and that version's own): it must not take the
 * missing next commit for the end of the log, or its writer would publish a
 * commit below the checkpoint, where no reader looks. */
static void test_live__a_state_older_than_the_cleaned_log_is_reloaded(void **state) {
  (void)state;
  char path[4200];
  snprintf(path, sizeof path, "%s/t", tu_mkdtemp("delta-live-cleaned"));
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *a = create_table(path, "10");
  inlet_table *b = NULL;
  assert_int_equal(inlet_table_open(&b, path, &err), 0);
  must_append(a, 1, "x", "app-A", 1); /* a's cache: version 1 */
  for (int i = 0; i < 15; i++)
    must_append(b, 100 + i, "y", "app-B", i + 1);
  int64_t latest = latest_version(path);
  assert_int_equal(latest, 16);      /* checkpoint at 10 */
  for (int64_t v = 0; v < 10; v++) { /* what cleanup removes below the checkpoint */
    char p[4400];
    snprintf(p, sizeof p, "%s/_delta_log/%020lld.json", path, (long long)v);
    assert_int_equal(unlink(p), 0);
  }
  int64_t v = -1;
  assert_int_equal(append(a, 2, "x", "app-A", 2, &v, &err), 0);
  assert_int_equal(v, latest + 1);
  check_cache(a, "after catching up past a cleaned log");
  inlet_table_free(a);
  inlet_table_free(b);
  tu_rmtree(path);
}

/* ---- cost per commit ------------------------------------------------------------- */

/* Work, counted: storage operations and bytes through the fault backend,
 * and the allocations of this thread (in-memory work: copying or
 * re-indexing the live files would show here). */
typedef struct work {
  int64_t ops[INLET_FAULT_N_OPS];
  int64_t read, written;
  int64_t allocs, alloc_bytes;
} work;

static void measure(work *w, inlet_storage *fs) {
  for (int k = 0; k < INLET_FAULT_N_OPS; k++)
    w->ops[k] = inlet_fault_count(fs, (inlet_fault_op)k);
  w->read = inlet_fault_bytes_read(fs);
  w->written = inlet_fault_bytes_written(fs);
  inlet_alloc_counts(&w->allocs, &w->alloc_bytes);
}

static void work_since(work *d, const work *end, const work *start) {
  for (int k = 0; k < INLET_FAULT_N_OPS; k++)
    d->ops[k] = end->ops[k] - start->ops[k];
  d->read = end->read - start->read;
  d->written = end->written - start->written;
  d->allocs = end->allocs - start->allocs;
  d->alloc_bytes = end->alloc_bytes - start->alloc_bytes;
}

/* Takes a full snapshot, as every checkpoint does: the cache's sorted
 * order absorbs the files added since, so measurements start alike. */
static void settle(inlet_table *t) {
  inlet_error err = INLET_ERROR_INIT;
  delta_snapshot s;
  assert_int_equal(delta_table_load(t, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  delta_snapshot_reset(&s);
}

static void assert_same_work(const work *small, const work *big, const char *what) {
  for (int k = 0; k < INLET_FAULT_N_OPS; k++)
    if (small->ops[k] != big->ops[k])
      fail_msg("%s: %lld %s operations at 10 files, %lld at many", what, (long long)small->ops[k],
               inlet_fault_op_name((inlet_fault_op)k), (long long)big->ops[k]);
  assert_int_equal(small->ops[INLET_FAULT_LIST], 0);
  if (small->read != big->read)
    fail_msg("%s: %lld bytes read at 10 files, %lld at many", what, (long long)small->read,
             (long long)big->read);
  if (small->allocs != big->allocs)
    fail_msg("%s: %lld allocations at 10 files, %lld at many", what, (long long)small->allocs,
             (long long)big->allocs);
  if (big->alloc_bytes - small->alloc_bytes > 1024 || small->alloc_bytes - big->alloc_bytes > 1024)
    fail_msg("%s: %lld bytes allocated at 10 files, %lld at many", what,
             (long long)small->alloc_bytes, (long long)big->alloc_bytes);
  /* Commit bodies differ only in the digits of versions, offsets and times. */
  if (big->written - small->written > 32 || small->written - big->written > 32)
    fail_msg("%s: %lld bytes written at 10 files, %lld at many", what, (long long)small->written,
             (long long)big->written);
}

/* Grows the table to @p files live files with commits written directly
 * (one add each; the data files need not exist for appends). */
static void grow_to(const char *path, int64_t files) {
  tu_rules_exempt(path, "adds of data files that are never written");
  int64_t v = latest_version(path);
  for (int64_t i = 1; i < files; i++) {
    char line[1024];
    snprintf(line, sizeof line,
             "{\"add\":{\"path\":\"k=x/part-%06lld-grown.parquet\",\"partitionValues\":"
             "{\"k\":\"x\"},\"size\":700,\"modificationTime\":1,\"dataChange\":true,\"stats\":"
             "\"{\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"id\\\":%lld},\\\"maxValues\\\":"
             "{\\\"id\\\":%lld},\\\"nullCount\\\":{\\\"id\\\":0}}\"}}\n",
             (long long)i, (long long)i, (long long)i);
    raw_commit(path, ++v, line);
  }
}

/* The work of one append through a warm handle (the previous append warmed
 * it), with the app's txn version the same number of digits each time. */
static void one_append_work(inlet_table *t, inlet_storage *fs, int64_t app_version, work *w) {
  must_append(t, app_version, "x", "app", app_version);
  settle(t);
  inlet_fault_reset_counts(fs);
  work start, end;
  measure(&start, fs);
  must_append(t, app_version + 1, "x", "app", app_version + 1);
  measure(&end, fs);
  work_since(w, &end, &start);
}

static void test_live__append_work_is_independent_of_live_files(void **state) {
  (void)state;
  char path[4200];
  snprintf(path, sizeof path, "%s/t", tu_mkdtemp("delta-live-cost"));
  inlet_error err = INLET_ERROR_INIT;
  /* No checkpoint inside the measured commits: those are O(files) by
   * nature (amortised over delta.checkpointInterval commits). */
  inlet_table *t = create_table(path, "1000000");
  for (int i = 0; i < 9; i++)
    must_append(t, i, "x", "app", 100 + i);
  inlet_storage *orig = t->st, *fs = NULL;
  assert_int_equal(inlet_storage_fault_wrap(&fs, orig, false, &err), 0);
  t->st = fs;
  work small, big;
  one_append_work(t, fs, 200, &small);
  t->st = orig;
  grow_to(path, 1500); /* by another engine: the handle catches up once */
  t->st = fs;
  one_append_work(t, fs, 300, &big);
  delta_snapshot s;
  assert_int_equal(delta_table_load(t, &s, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_true(s.n_files >= 1500);
  delta_snapshot_reset(&s);
  assert_same_work(&small, &big, "one library append");
  t->st = orig;
  fs->ops->free(fs);
  inlet_table_free(t);
  tu_rmtree(path);
}

typedef struct ingest_probe {
  inlet_table *t;
  inlet_storage *fs;
  work end[64], start[64]; /* at each batch event, before and after settling */
  int n;
} ingest_probe;

static void on_progress(void *ctx, const inlet_ingest_progress *p) {
  ingest_probe *ip = ctx;
  if (p->event != INLET_INGEST_BATCH || ip->n >= 64) return;
  measure(&ip->end[ip->n], ip->fs);
  settle(ip->t);
  measure(&ip->start[ip->n], ip->fs);
  ip->n++;
}

/* Runs `ingest --once --max-rows 1` of @p n records through @p t (whose
 * storage is @p fs); fills the work of each batch but the first. */
static void ingest_batches(inlet_table *t, inlet_storage *fs, const char *src, int first, int n,
                           work *per) {
  FILE *f = fopen(src, "a");
  assert_non_null(f);
  for (int i = 0; i < n; i++)
    fprintf(f, "{\"id\":%d,\"k\":\"x\",\"v\":1.5}\n", first + i);
  fclose(f);
  char source[4400];
  snprintf(source, sizeof source, "file:%s", src);
  ingest_probe ip;
  memset(&ip, 0, sizeof ip);
  ip.fs = fs;
  ip.t = t;
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = source;
  o.once = true;
  o.max_rows = 1;
  o.app_id = "ingest-cost";
  o.on_progress = on_progress;
  o.ctx = &ip;
  inlet_error err = INLET_ERROR_INIT;
  inlet_ingest_progress res;
  if (inlet_ingest_run(&res, t, &o, &err) != 0) fail_msg("ingest: %s", err.message);
  assert_int_equal(ip.n, n);
  for (int i = 1; i < n; i++)
    work_since(&per[i - 1], &ip.end[i], &ip.start[i - 1]);
}

static void test_live__ingest_batch_work_is_independent_of_live_files(void **state) {
  (void)state;
  char dir[4200], path[4300], src[4300];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("delta-live-ingest"));
  snprintf(path, sizeof path, "%s/t", dir);
  snprintf(src, sizeof src, "%s/in.ndjson", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = create_table(path, "1000000");
  inlet_storage *orig = t->st, *fs = NULL;
  assert_int_equal(inlet_storage_fault_wrap(&fs, orig, false, &err), 0);
  t->st = fs;
  work small[8], big[8];
  ingest_batches(t, fs, src, 0, 9, small);
  t->st = orig;
  grow_to(path, 1500);
  t->st = fs;
  ingest_batches(t, fs, src, 9, 9, big);
  for (int i = 1; i < 8; i++)
    assert_same_work(&small[0], &small[i], "ingest batches at 10 files");
  for (int i = 0; i < 8; i++)
    assert_same_work(&small[0], &big[i], "an ingest batch");
  t->st = orig;
  fs->ops->free(fs);
  inlet_table_free(t);
  tu_rmtree(dir);
}

/* Sets the modification time of commit @p version of @p table. */
static void set_commit_mtime(const char *table, int64_t version, int64_t ms) {
  char p[4300];
  snprintf(p, sizeof p, "%s/_delta_log/%020lld.json", table, (long long)version);
  struct timespec ts[2] = {{ms / 1000, (ms % 1000) * 1000000}, {ms / 1000, (ms % 1000) * 1000000}};
  assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

/* Commits in the same millisecond: a listing counts each one a millisecond
 * after its predecessor (Spark's monotonized commit timestamps), and so
 * must a cached state that catches up with them or applies its own. Handle
 * a loads version 1 (file times t0 - 5 and t0); b appends versions 2 and 3,
 * whose files get time t0 too; a catches up by probing them. (Found as a
 * flake of the mixed-history test when two of its commits landed in one
 * millisecond.) */
static void test_live__commits_in_one_millisecond_keep_time_moving(void **state) {
  (void)state;
  char path[4200];
  snprintf(path, sizeof path, "%s/t", tu_mkdtemp("delta-live"));
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *w = create_table(path, "100");
  must_append(w, 1, "x", "app-A", 1);
  inlet_table_free(w);
  const int64_t t0 = 1700000000000;
  set_commit_mtime(path, 0, t0 - 5);
  set_commit_mtime(path, 1, t0);
  inlet_table *a = NULL, *b = NULL;
  assert_int_equal(inlet_table_open(&a, path, &err), 0);
  check_cache(a, "version 1");
  assert_int_equal(inlet_table_open(&b, path, &err), 0);
  must_append(b, 2, "y", "app-B", 1);
  must_append(b, 3, "z", "app-B", 2);
  set_commit_mtime(path, 2, t0);
  set_commit_mtime(path, 3, t0);
  check_cache(a, "caught up with two commits of the same millisecond");
  delta_snapshot c;
  assert_int_equal(delta_table_load(a, &c, DELTA_SNAP_LATEST, 0, &err), 0);
  assert_int_equal(c.version, 3);
  assert_int_equal(c.timestamp_ms, t0 + 2);
  delta_snapshot_reset(&c);
  inlet_table_free(b);
  inlet_table_free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_live__cached_state_equals_fresh_load_through_a_mixed_history),
      cmocka_unit_test(test_live__conflicts_retries_and_strict_mode_keep_the_cache_right),
      cmocka_unit_test(test_live__failure_while_applying_drops_the_cache),
      cmocka_unit_test(test_live__a_state_older_than_the_cleaned_log_is_reloaded),
      cmocka_unit_test(test_live__commits_in_one_millisecond_keep_time_moving),
      cmocka_unit_test(test_live__append_work_is_independent_of_live_files),
      cmocka_unit_test(test_live__ingest_batch_work_is_independent_of_live_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
