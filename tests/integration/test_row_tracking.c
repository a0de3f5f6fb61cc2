/*
 * Row tracking (PROTOCOL.md "Row Tracking") end to end, through the inlet
 * binary:
 *   - a table Spark wrote with row tracking (delta-rs test data,
 *     table_with_liquid_clustering) reads each row's _metadata.row_id as
 *     its file's baseRowId + its position in the file (worked out here from
 *     the log and `inlet parquet cat` of each file) and its
 *     _metadata.row_commit_version as the file's defaultRowCommitVersion,
 *     with and without --where;
 *   - an inlet table created with delta.enableRowTracking=true (with
 *     deletion vectors and without): after each of three appends, an
 *     ingest, a delete (DVs / copy-on-write), a compaction, a checkpoint and
 *     one more append, every surviving row keeps the row id and row commit
 *     version it had (recorded per key column value before the step), ids
 *     are unique, new rows get ids above every id given before and the
 *     version of their commit; every add in the log has baseRowId and
 *     defaultRowCommitVersion (a new file's is its commit's version, its ids
 *     above the high-water mark before it), and the delta.rowTracking
 *     high-water mark covers every id; every earlier version reads its own
 *     ids again (time travel); the data columns read identically to
 *     refcheck (the materialized columns are not table columns), and a plain
 *     scan shows only the table's columns;
 *   - two appenders racing on one table get disjoint row ids, and a writer
 *     that loses its version to another takes its ids above the winner's
 *     high-water mark and the version it lands at;
 *   - asking for row ids of a table without row tracking is refused (exit 6);
 *   - at every version of an inlet table (with deletion vectors and
 *     copy-on-write: appends, delete, compaction, delete, checkpoint,
 *     append) each row's id and commit version as inlet scans them equal
 *     what the log says, worked out here without inlet's reader: live adds
 *     replayed from the JSON commits, each file's rows in order from
 *     refcheck parquet (materialized column if not null, else baseRowId +
 *     position / defaultRowCommitVersion), surviving keys from refcheck
 *     delta; DELETE and OPTIMIZE commits carry delta.rowTracking.preserved
 *     "true", others no tag;
 *   - `inlet alter --property delta.enableRowTracking=true` on a table with
 *     files (one with a deletion vector) commits UPGRADE PROTOCOL, ROW
 *     TRACKING BACKFILL (dataChange=false re-adds, high-water mark) and SET
 *     TBLPROPERTIES (tag rowTrackingEnablementOnly), refuses it beside
 *     other properties (exit 6), is a no-op the second time, and later versions
 *     pass the same log check; a legacy (1, 2) protocol becomes writer 7
 *     listing appendOnly and invariants.
 */
#include "testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_maint_support.h"

#define N 200 /* key values used: 0..N-1 */

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Runs `inlet ARGS`; returns its stdout (caller frees). */
static char *inlet(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *inlet(const char *fmt, ...) {
  char *args = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&args, fmt, ap) >= 0);
  va_end(ap);
  tu_result r;
  tu_sh(&r, "'%s' %s", INLET_BIN, args);
  sh_ok(&r, args);
  char *out = strdup(r.out);
  tu_result_free(&r);
  free(args);
  return out;
}

static int64_t jnum(const json_t *v, const char *what) {
  if (json_is_integer(v)) return (int64_t)json_integer_value(v);
  if (json_is_string(v)) return atoll(json_string_value(v));
  fail_msg("%s is not a number", what);
  return -1;
}

/* Row id and row commit version per key value. */
typedef struct ids {
  bool has[N];
  int64_t id[N], ver[N];
  int n;
} ids;

/* Reads table @p t (version @p v, -1 latest; rows where @p where, or all)
 * as key -> (row id, row commit version), checking ids are unique. */
static void read_ids(const char *t, const char *key, int64_t v, const char *where, ids *out) {
  memset(out, 0, sizeof *out);
  char vopt[40] = "", wopt[300] = "";
  if (v >= 0) snprintf(vopt, sizeof vopt, "--version %lld", (long long)v);
  if (where) snprintf(wopt, sizeof wopt, "--where \"%s\"", where);
  char *o = inlet("scan '%s' %s %s --columns %s,_metadata.row_id,_metadata.row_commit_version "
                  "--format ndjson --all",
                  t, vopt, wopt, key);
  for (char *line = strtok(o, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *j = json_loads(line, 0, NULL);
    if (!j) fail_msg("scan output line is not JSON: %s", line);
    assert_int_equal(json_object_size(j), 3);
    int64_t k = jnum(json_object_get(j, key), key);
    assert_true(k >= 0 && k < N);
    assert_false(out->has[k]);
    out->has[k] = true;
    out->id[k] = jnum(json_object_get(j, "_metadata.row_id"), "row_id");
    out->ver[k] = jnum(json_object_get(j, "_metadata.row_commit_version"), "row_commit_version");
    out->n++;
    json_decref(j);
  }
  free(o);
  for (int a = 0; a < N; a++)
    for (int b = a + 1; b < N; b++)
      if (out->has[a] && out->has[b] && out->id[a] == out->id[b])
        fail_msg("keys %d and %d share row id %lld", a, b, (long long)out->id[a]);
}

static int64_t latest_version(const char *t) {
  tu_result r;
  tu_sh(&r, "ls '%s/_delta_log' | grep -E '^[0-9]{20}\\.json$' | tail -n 1", t);
  int64_t v = atoll(r.out);
  tu_result_free(&r);
  return v;
}

/* ---- a table Spark wrote --------------------------------------------------------- */

static void test_row_tracking__spark_table_reads_base_row_id_plus_position(void **state) {
  (void)state;
  const char *t = INLET_SOURCE_DIR "/tests/data/foreign/delta-rs/table_with_liquid_clustering";
  /* Expected values from the log and the files themselves. */
  ids want;
  memset(&want, 0, sizeof want);
  char path[4200];
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000000.json", t);
  char *log = tu_read_file(path, NULL);
  assert_non_null(log);
  int files = 0;
  for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *j = json_loads(line, 0, NULL);
    json_t *a = json_object_get(j, "add");
    if (a) {
      int64_t base = jnum(json_object_get(a, "baseRowId"), "baseRowId");
      int64_t ver = jnum(json_object_get(a, "defaultRowCommitVersion"), "version");
      char *rows = inlet("parquet cat '%s/%s' --columns id --format ndjson", t,
                         json_string_value(json_object_get(a, "path")));
      int64_t pos = 0;
      char *save = NULL;
      for (char *r = strtok_r(rows, "\n", &save); r; r = strtok_r(NULL, "\n", &save), pos++) {
        json_t *rj = json_loads(r, 0, NULL);
        int64_t k = jnum(json_object_get(rj, "id"), "id");
        assert_true(k >= 0 && k < N && !want.has[k]);
        want.has[k] = true;
        want.id[k] = base + pos;
        want.ver[k] = ver;
        want.n++;
        json_decref(rj);
      }
      free(rows);
      files++;
    }
    json_decref(j);
  }
  free(log);
  assert_int_equal(files, 10);
  assert_int_equal(want.n, 10);
  ids got;
  read_ids(t, "id", -1, NULL, &got);
  assert_int_equal(got.n, want.n);
  for (int k = 0; k < N; k++) {
    assert_int_equal(got.has[k], want.has[k]);
    if (!want.has[k]) continue;
    assert_int_equal(got.id[k], want.id[k]);
    assert_int_equal(got.ver[k], want.ver[k]);
  }
  /* A predicate and time travel to version 0 read the same values. */
  read_ids(t, "id", 0, "id >= 5", &got);
  int n = 0;
  for (int k = 0; k < N; k++) {
    if (!got.has[k]) continue;
    n++;
    assert_true(want.has[k] && k >= 5);
    assert_int_equal(got.id[k], want.id[k]);
  }
  assert_int_equal(n, 5);
}

/* ---- an inlet table through its life ---------------------------------------------- */

/* Writes keys [first, first+n) as NDJSON to @p file. */
static void write_keys(const char *file, int first, int n) {
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  for (int k = first; k < first + n; k++)
    fprintf(f, "{\"k\":%d,\"part\":\"p%d\",\"v\":\"value %d\"}\n", k, k % 2, k);
  fclose(f);
}

/* The log's row tracking facts up to the latest version: every add has
 * baseRowId and defaultRowCommitVersion; a file added for the first time
 * has its commit's version and ids above the high-water mark before the
 * commit; the mark never goes down and covers every id. Returns the mark. */
static int64_t check_log(const char *t) {
  int64_t last = latest_version(t), hwm = -1;
  json_t *seen = json_object(); /* path -> baseRowId */
  for (int64_t v = 0; v <= last; v++) {
    char path[4300];
    snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", t, (long long)v);
    char *body = tu_read_file(path, NULL);
    assert_non_null(body);
    int64_t new_hwm = hwm, max_id = -1;
    for (char *line = strtok(body, "\n"); line; line = strtok(NULL, "\n")) {
      json_t *j = json_loads(line, 0, NULL);
      json_t *d = json_object_get(j, "domainMetadata");
      if (d && strcmp(json_string_value(json_object_get(d, "domain")), "delta.rowTracking") == 0) {
        json_t *c = json_loads(json_string_value(json_object_get(d, "configuration")), 0, NULL);
        new_hwm = jnum(json_object_get(c, "rowIdHighWaterMark"), "rowIdHighWaterMark");
        json_decref(c);
      }
      json_t *a = json_object_get(j, "add");
      if (a) {
        const char *p = json_string_value(json_object_get(a, "path"));
        json_t *b = json_object_get(a, "baseRowId");
        json_t *dv = json_object_get(a, "defaultRowCommitVersion");
        if (!b || !dv) fail_msg("version %lld: add %s lacks row tracking fields", (long long)v, p);
        json_t *st = json_loads(json_string_value(json_object_get(a, "stats")), 0, NULL);
        int64_t rows = jnum(json_object_get(st, "numRecords"), "numRecords");
        json_decref(st);
        json_t *old = json_object_get(seen, p);
        if (old) {
          /* Recommitted (a new deletion vector): keeps its ids. */
          assert_int_equal(jnum(b, "baseRowId"), json_integer_value(old));
        } else {
          assert_int_equal(jnum(dv, "defaultRowCommitVersion"), v);
          assert_true(jnum(b, "baseRowId") > hwm);
          json_object_set_new(seen, p, json_integer(jnum(b, "baseRowId")));
          if (jnum(b, "baseRowId") + rows - 1 > max_id) max_id = jnum(b, "baseRowId") + rows - 1;
        }
      }
      json_t *r = json_object_get(j, "remove");
      if (r && json_object_get(seen, json_string_value(json_object_get(r, "path"))))
        assert_int_equal(jnum(json_object_get(r, "baseRowId"), "remove baseRowId"),
                         json_integer_value(
                             json_object_get(seen, json_string_value(json_object_get(r, "path")))));
      json_decref(j);
    }
    free(body);
    assert_true(new_hwm >= hwm);
    assert_true(new_hwm >= max_id);
    hwm = new_hwm;
  }
  json_decref(seen);
  return hwm;
}

/* Every key of @p before that is in @p after kept its id and version. */
static void expect_kept(const ids *before, const ids *after, const char *step) {
  for (int k = 0; k < N; k++) {
    if (!before->has[k] || !after->has[k]) continue;
    if (before->id[k] != after->id[k] || before->ver[k] != after->ver[k])
      fail_msg("%s: key %d had row id %lld version %lld, now %lld version %lld", step, k,
               (long long)before->id[k], (long long)before->ver[k], (long long)after->id[k],
               (long long)after->ver[k]);
  }
}

/* Keys of @p after not in @p before have ids above @p above and version
 * in (@p from, @p to]. */
static void expect_new(const ids *before, const ids *after, int64_t above, int64_t from,
                       int64_t to) {
  for (int k = 0; k < N; k++) {
    if (!after->has[k] || before->has[k]) continue;
    assert_true(after->id[k] > above);
    assert_true(after->ver[k] > from && after->ver[k] <= to);
  }
}

static int64_t max_id(const ids *x, int64_t m) {
  for (int k = 0; k < N; k++)
    if (x->has[k] && x->id[k] > m) m = x->id[k];
  return m;
}

static void refcheck_same(const char *t) {
  tu_result r;
  tu_sh(&r,
        "cd '%s/..' && '%s' scan '%s' --format ndjson --all > o.ndjson && '%s' '%s' delta '%s' > "
        "ref.json && '%s' '%s' compare ref.json o.ndjson --ndjson",
        t, INLET_BIN, t, INLET_NODE, INLET_REFCHECK, t, INLET_NODE, INLET_REFCHECK);
  sh_ok(&r, "inlet scan vs refcheck delta");
  tu_result_free(&r);
}

static void lifecycle(bool dvs) {
  char dir[4096], t[4200], in[4300];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp(dvs ? "rowtrack-dv" : "rowtrack-cow"));
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  free(inlet("create '%s' --schema 'k long, part string, v string' --partition-by part "
             "--property delta.enableRowTracking=true --property delta.enableDeletionVectors=%s",
             t, dvs ? "true" : "false"));
  /* The protocol and the materialized column names. */
  char *v0 = tu_read_file(
      strcat(strcpy((char[4400]){0}, t), "/_delta_log/00000000000000000000.json"), NULL);
  assert_non_null(strstr(v0, "\"rowTracking\""));
  assert_non_null(strstr(v0, "\"domainMetadata\""));
  assert_non_null(strstr(v0, "\"delta.rowTracking.materializedRowIdColumnName\":\"_row-id-col-"));
  assert_non_null(strstr(v0, "\"delta.rowTracking.materializedRowCommitVersionColumnName\":"
                             "\"_row-commit-version-col-"));
  free(v0);

  ids hist[16];
  int64_t hist_v[16];
  int nh = 0;
  ids cur, prev;
  memset(&prev, 0, sizeof prev);
  int64_t top = -1; /* highest id ever read */
  for (int b = 0; b < 3; b++) {
    write_keys(in, 10 * b, 10);
    free(inlet("append '%s' '%s'", t, in));
    int64_t v = latest_version(t);
    read_ids(t, "k", -1, NULL, &cur);
    assert_int_equal(cur.n, 10 * (b + 1));
    expect_kept(&prev, &cur, "append");
    expect_new(&prev, &cur, top, v - 1, v);
    top = max_id(&cur, top);
    hist[nh] = cur;
    hist_v[nh++] = v;
    prev = cur;
  }
  /* ingest (its commit carries a txn action) */
  write_keys(in, 30, 10);
  free(inlet("ingest '%s' --source 'file:%s' --once", t, in));
  int64_t v_before = hist_v[nh - 1], v = latest_version(t);
  read_ids(t, "k", -1, NULL, &cur);
  assert_int_equal(cur.n, 40);
  expect_kept(&prev, &cur, "ingest");
  expect_new(&prev, &cur, top, v_before, v);
  top = max_id(&cur, top);
  hist[nh] = cur;
  hist_v[nh++] = v;
  prev = cur;
  /* delete: deletion vectors or copy-on-write */
  char *d = inlet("delete '%s' --where 'k %% 5 = 0 AND k > 3' --json", t);
  json_t *dj = json_loads(d, 0, NULL);
  assert_non_null(dj);
  assert_int_equal(json_is_true(json_object_get(dj, "deletion_vectors")), dvs);
  json_decref(dj);
  free(d);
  read_ids(t, "k", -1, NULL, &cur);
  assert_int_equal(cur.n, 40 - 7);
  for (int k = 0; k < 40; k++)
    assert_int_equal(cur.has[k], !(k % 5 == 0 && k > 3));
  expect_kept(&prev, &cur, dvs ? "delete (deletion vectors)" : "delete (copy-on-write)");
  hist[nh] = cur;
  hist_v[nh++] = latest_version(t);
  prev = cur;
  /* compaction: a file per partition, rows keep ids and versions */
  free(inlet("compact '%s' --min-files 2", t));
  assert_true(latest_version(t) > hist_v[nh - 1]);
  read_ids(t, "k", -1, NULL, &cur);
  assert_int_equal(cur.n, 33);
  expect_kept(&prev, &cur, "compact");
  hist[nh] = cur;
  hist_v[nh++] = latest_version(t);
  /* a checkpoint: the replay starts from it */
  free(inlet("checkpoint '%s'", t));
  read_ids(t, "k", -1, NULL, &cur);
  expect_kept(&prev, &cur, "checkpoint");
  assert_int_equal(cur.n, 33);
  /* a later append: above every id given so far, deleted ones included */
  write_keys(in, 100, 5);
  free(inlet("append '%s' '%s'", t, in));
  v = latest_version(t);
  read_ids(t, "k", -1, NULL, &cur);
  expect_kept(&prev, &cur, "append after compaction");
  expect_new(&prev, &cur, top, v - 1, v);
  hist[nh] = cur;
  hist_v[nh++] = v;
  /* the log, and time travel to every recorded version */
  int64_t hwm = check_log(t);
  assert_true(hwm >= max_id(&cur, -1));
  for (int i = 0; i < nh; i++) {
    ids old;
    read_ids(t, "k", hist_v[i], NULL, &old);
    assert_int_equal(old.n, hist[i].n);
    expect_kept(&hist[i], &old, "time travel");
  }
  /* a predicate and partition pruning give the same ids */
  ids some;
  read_ids(t, "k", -1, "part = 'p1' AND k > 20", &some);
  assert_true(some.n > 0);
  expect_kept(&cur, &some, "--where");
  /* A plain scan shows the table's columns only, as refcheck reads them. */
  char *plain = inlet("scan '%s' --format ndjson --limit 1", t);
  assert_null(strstr(plain, "_row-"));
  assert_null(strstr(plain, "_metadata"));
  free(plain);
  refcheck_same(t);
  tu_rmtree(dir);
}

static void test_row_tracking__lifecycle_with_deletion_vectors(void **state) {
  (void)state;
  lifecycle(true);
}

static void test_row_tracking__lifecycle_copy_on_write(void **state) {
  (void)state;
  lifecycle(false);
}

/* ---- racing appenders ---------------------------------------------------------------- */

static void test_row_tracking__racing_appenders_get_disjoint_ids(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("rowtrack-race"));
  snprintf(t, sizeof t, "%s/t", dir);
  free(inlet("create '%s' --schema 'k long, part string, v string' "
             "--property delta.enableRowTracking=true",
             t));
  for (int w = 0; w < 2; w++)
    for (int i = 0; i < 8; i++) {
      char f[4300];
      snprintf(f, sizeof f, "%s/w%d-%d.ndjson", dir, w, i);
      write_keys(f, w * 80 + i * 10, 10);
    }
  tu_result r;
  tu_sh(&r,
        "cd '%s' && (for i in 0 1 2 3 4 5 6 7; do '%s' append t w0-$i.ndjson || exit 1; done) & "
        "(cd '%s' && for i in 0 1 2 3 4 5 6 7; do '%s' append t w1-$i.ndjson || exit 1; done) & "
        "wait %%1 && wait %%2",
        dir, INLET_BIN, dir, INLET_BIN);
  sh_ok(&r, "racing appends");
  tu_result_free(&r);
  assert_int_equal(latest_version(t), 16);
  ids cur;
  read_ids(t, "k", -1, NULL, &cur); /* fails on a shared id */
  assert_int_equal(cur.n, 160);
  /* each row's version is its own commit: rows of one input file share it */
  for (int k = 0; k < 160; k++)
    assert_int_equal(cur.ver[k], cur.ver[k - k % 10]);
  int64_t hwm = check_log(t);
  assert_int_equal(hwm, 159);
  tu_rmtree(dir);
}

/* Two writers open on the same version; the second to commit loses that
 * version and retries: its ids come from the winner's high-water mark and
 * its version is the one it lands at. The table was created with rows
 * (version 0 assigns ids too). */
static void test_row_tracking__losing_writer_recomputes_ids(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("rowtrack-retry"));
  snprintf(t, sizeof t, "%s/t", dir);
  const char *props[] = {"delta.enableRowTracking", "true"};
  ms_seed(dir, 1, 10, ms_one_day, false, props, 1); /* version 0: ids 0..9 */
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t1 = NULL, *t2 = NULL;
  inlet_table_writer *w1 = NULL, *w2 = NULL;
  assert_int_equal(inlet_table_open(&t1, t, &err), 0);
  assert_int_equal(inlet_table_open(&t2, t, &err), 0);
  assert_int_equal(inlet_table_writer_open(&w1, t1, NULL, &err), 0);
  assert_int_equal(inlet_table_writer_open(&w2, t2, NULL, &err), 0);
  inlet_batch b;
  ms_batch(&b, 10, 10, ms_one_day);
  assert_int_equal(inlet_table_writer_write(w1, &b, &err), 0);
  inlet_batch_reset(&b);
  ms_batch(&b, 20, 10, ms_one_day);
  assert_int_equal(inlet_table_writer_write(w2, &b, &err), 0);
  inlet_batch_reset(&b);
  int64_t v1 = -1, v2 = -1;
  if (inlet_table_writer_commit(w2, &v2, &err) != 0) fail_msg("commit w2: %s", err.message);
  if (inlet_table_writer_commit(w1, &v1, &err) != 0) fail_msg("commit w1: %s", err.message);
  assert_int_equal(v2, 1);
  assert_int_equal(v1, 2);
  inlet_table_writer_free(w1);
  inlet_table_writer_free(w2);
  inlet_table_free(t1);
  inlet_table_free(t2);
  ids cur;
  read_ids(t, "id", -1, NULL, &cur);
  assert_int_equal(cur.n, 30);
  for (int k = 0; k < 30; k++) {
    assert_int_equal(cur.ver[k], k < 10 ? 0 : k < 20 ? 2 : 1);
    /* version 0 then the winner (version 1) then the loser */
    int64_t lo = k < 10 ? 0 : k < 20 ? 20 : 10;
    assert_true(cur.id[k] >= lo && cur.id[k] < lo + 10);
  }
  assert_int_equal(check_log(t), 29);
  tu_rmtree(dir);
}

/* ---- every version against the log and refcheck ---------------------------------- */

/* Runs refcheck with @p args (its JSON output parsed; caller decrefs). */
static json_t *refcheck(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *refcheck(const char *fmt, ...) {
  char *args = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&args, fmt, ap) >= 0);
  va_end(ap);
  tu_result r;
  tu_sh(&r, "'%s' '%s' %s", INLET_NODE, INLET_REFCHECK, args);
  sh_ok(&r, args);
  json_t *j = json_loads(r.out, 0, NULL);
  if (!j) fail_msg("refcheck %s: output is not JSON", args);
  tu_result_free(&r);
  free(args);
  return j;
}

/* Index of column @p name in refcheck's "columns" (names or {name}), -1. */
static int col_index(const json_t *cols, const char *name) {
  for (size_t i = 0; i < json_array_size(cols); i++) {
    const json_t *c = json_array_get(cols, i);
    const char *n =
        json_is_string(c) ? json_string_value(c) : json_string_value(json_object_get(c, "name"));
    if (n && strcmp(n, name) == 0) return (int)i;
  }
  return -1;
}

/* The commitInfo tag @p key of commit @p v ("" when the commit has no
 * tags; caller frees), and its operation in @p op. */
static char *commit_tag(const char *t, int64_t v, const char *key, char op[64]) {
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", t, (long long)v);
  char *body = tu_read_file(path, NULL);
  assert_non_null(body);
  char *out = NULL;
  op[0] = '\0';
  for (char *line = strtok(body, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *j = json_loads(line, 0, NULL);
    json_t *ci = json_object_get(j, "commitInfo");
    if (ci) {
      snprintf(op, 64, "%s", json_string_value(json_object_get(ci, "operation")));
      const char *tv = json_string_value(json_object_get(json_object_get(ci, "tags"), key));
      out = strdup(tv ? tv : "");
    }
    json_decref(j);
  }
  free(body);
  assert_non_null(out);
  return out;
}

/*
 * Row ids and row commit versions of version @p v, worked out without
 * inlet's reader: the live adds by replaying the JSON commits 0..v here, each
 * live file's rows in file order from `refcheck parquet` (cached per path in
 * @p files), a row's id its materialized row id column when the file has it
 * and it is not null, else baseRowId + position (its version likewise with
 * defaultRowCommitVersion), and the surviving keys from `refcheck delta
 * --version v` (deletion vectors applied there). inlet's scan of that
 * version must give exactly those keys with exactly those values.
 */
static void check_version_against_log(const char *t, int64_t v, json_t *files) {
  json_t *live = json_object();
  char id_col[128] = "", ver_col[128] = "";
  for (int64_t c = 0; c <= v; c++) {
    char path[4300];
    snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", t, (long long)c);
    char *body = tu_read_file(path, NULL);
    assert_non_null(body);
    for (char *line = strtok(body, "\n"); line; line = strtok(NULL, "\n")) {
      json_t *j = json_loads(line, 0, NULL);
      assert_non_null(j);
      json_t *conf = json_object_get(json_object_get(j, "metaData"), "configuration");
      if (conf) {
        const char *a = json_string_value(
            json_object_get(conf, "delta.rowTracking.materializedRowIdColumnName"));
        const char *b = json_string_value(
            json_object_get(conf, "delta.rowTracking.materializedRowCommitVersionColumnName"));
        snprintf(id_col, sizeof id_col, "%s", a ? a : "");
        snprintf(ver_col, sizeof ver_col, "%s", b ? b : "");
      }
      json_t *add = json_object_get(j, "add");
      if (add) json_object_set(live, json_string_value(json_object_get(add, "path")), add);
      json_t *rm = json_object_get(j, "remove");
      if (rm) json_object_del(live, json_string_value(json_object_get(rm, "path")));
      json_decref(j);
    }
    free(body);
  }
  static bool want[N];
  static int64_t eid[N], ever[N];
  memset(want, 0, sizeof want);
  const char *p;
  json_t *add;
  json_object_foreach(live, p, add) {
    json_t *base = json_object_get(add, "baseRowId");
    json_t *dflt = json_object_get(add, "defaultRowCommitVersion");
    if (!base || !dflt)
      fail_msg("version %lld: live file %s has no baseRowId/defaultRowCommitVersion", (long long)v,
               p);
    json_t *pq = json_object_get(files, p);
    if (!pq) {
      pq = refcheck("parquet '%s/%s'", t, p);
      json_object_set_new(files, p, pq);
    }
    const json_t *cols = json_object_get(pq, "columns");
    int kc = col_index(cols, "k"), ic = *id_col ? col_index(cols, id_col) : -1,
        vc = *ver_col ? col_index(cols, ver_col) : -1;
    assert_true(kc >= 0);
    const json_t *rows = json_object_get(pq, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++) {
      const json_t *row = json_array_get(rows, i);
      int64_t k = jnum(json_array_get(row, (size_t)kc), "k");
      assert_true(k >= 0 && k < N);
      if (want[k]) fail_msg("version %lld: key %lld in two live files", (long long)v, (long long)k);
      want[k] = true;
      const json_t *mi = ic >= 0 ? json_array_get(row, (size_t)ic) : NULL;
      const json_t *mv = vc >= 0 ? json_array_get(row, (size_t)vc) : NULL;
      eid[k] = mi && !json_is_null(mi) ? jnum(mi, "materialized row id")
                                       : jnum(base, "baseRowId") + (int64_t)i;
      ever[k] = mv && !json_is_null(mv) ? jnum(mv, "materialized row commit version")
                                        : jnum(dflt, "defaultRowCommitVersion");
    }
  }
  json_decref(live);
  /* Which keys survive the deletion vectors: the reference reader says. */
  json_t *ref = refcheck("delta '%s' --version %lld", t, (long long)v);
  int rk = col_index(json_object_get(ref, "columns"), "k");
  assert_true(rk >= 0);
  static bool alive[N];
  memset(alive, 0, sizeof alive);
  int n_alive = 0;
  json_t *rows = json_object_get(ref, "rows");
  for (size_t i = 0; i < json_array_size(rows); i++) {
    int64_t k = jnum(json_array_get(json_array_get(rows, i), (size_t)rk), "k");
    assert_true(k >= 0 && k < N && want[k] && !alive[k]);
    alive[k] = true;
    n_alive++;
  }
  json_decref(ref);
  ids got;
  read_ids(t, "k", v, NULL, &got);
  if (got.n != n_alive)
    fail_msg("version %lld: inlet reads %d rows, refcheck %d", (long long)v, got.n, n_alive);
  for (int k = 0; k < N; k++) {
    if (!alive[k]) continue;
    if (!got.has[k] || got.id[k] != eid[k] || got.ver[k] != ever[k])
      fail_msg("version %lld key %d: inlet row id %lld version %lld, the log says %lld "
               "version %lld",
               (long long)v, k, (long long)got.id[k], (long long)got.ver[k], (long long)eid[k],
               (long long)ever[k]);
  }
}

/* Spark tags DELETE and OPTIMIZE on a table with row tracking enabled with
 * delta.rowTracking.preserved=true, and appends with nothing. */
static void expect_preserved_tags(const char *t, int64_t from, int64_t to) {
  for (int64_t v = from; v <= to; v++) {
    char op[64];
    char *tag = commit_tag(t, v, "delta.rowTracking.preserved", op);
    bool rewrite = strcmp(op, "DELETE") == 0 || strcmp(op, "OPTIMIZE") == 0;
    if (strcmp(tag, rewrite ? "true" : "") != 0)
      fail_msg("version %lld (%s): delta.rowTracking.preserved is \"%s\"", (long long)v, op, tag);
    free(tag);
  }
}

static void every_version(bool dvs) {
  char dir[4096], t[4200], in[4300];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp(dvs ? "rowtrack-ev-dv" : "rowtrack-ev-cow"));
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  free(inlet("create '%s' --schema 'k long, part string, v string' --partition-by part "
             "--property delta.enableRowTracking=true --property delta.enableDeletionVectors=%s",
             t, dvs ? "true" : "false"));
  for (int b = 0; b < 3; b++) {
    write_keys(in, 10 * b, 10);
    free(inlet("append '%s' '%s'", t, in));
  }
  free(inlet("delete '%s' --where 'k %% 3 = 0 AND k > 4'", t));
  free(inlet("compact '%s' --min-files 2", t));
  /* a second delete after compaction: rows now carry materialized ids */
  free(inlet("delete '%s' --where 'k = 7 OR k = 20'", t));
  free(inlet("checkpoint '%s'", t));
  write_keys(in, 50, 4);
  free(inlet("append '%s' '%s'", t, in));
  int64_t last = latest_version(t);
  assert_true(last >= 7); /* compaction may commit its bins separately */
  json_t *files = json_object();
  for (int64_t v = 0; v <= last; v++)
    check_version_against_log(t, v, files);
  json_decref(files);
  expect_preserved_tags(t, 0, last);
  tu_rmtree(dir);
}

static void test_row_tracking__every_version_matches_log_with_deletion_vectors(void **state) {
  (void)state;
  every_version(true);
}

static void test_row_tracking__every_version_matches_log_copy_on_write(void **state) {
  (void)state;
  every_version(false);
}

/* ---- enabling row tracking on an existing table ------------------------------------- */

static void test_row_tracking__alter_backfills_existing_table(void **state) {
  (void)state;
  char dir[4096], t[4200], in[4300];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("rowtrack-alter"));
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  free(inlet("create '%s' --schema 'k long, part string, v string' --partition-by part "
             "--property delta.enableDeletionVectors=true",
             t));
  for (int b = 0; b < 2; b++) {
    write_keys(in, 10 * b, 10);
    free(inlet("append '%s' '%s'", t, in));
  }
  free(inlet("delete '%s' --where 'k = 3'", t)); /* a file with a deletion vector */
  int64_t before = latest_version(t);            /* 3 */
  /* Row tracking with another property at once: exit 6, nothing
   * committed (it needs its backfill first). */
  tu_result r;
  tu_sh(&r,
        "'%s' alter '%s' --property delta.enableRowTracking=true --property "
        "delta.checkpointInterval=5",
        INLET_BIN, t);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "delta.enableRowTracking"));
  assert_non_null(strstr(r.err, "on its own"));
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --columns k,_metadata.row_id", INLET_BIN, t);
  assert_int_equal(r.status, 6); /* not enabled yet */
  tu_result_free(&r);
  assert_int_equal(latest_version(t), before);

  char *o = inlet("alter '%s' --property delta.enableRowTracking=true --json", t);
  json_t *j = json_loads(o, 0, NULL);
  assert_non_null(j);
  assert_int_equal(jnum(json_object_get(j, "protocol_version"), "protocol_version"), before + 1);
  assert_int_equal(jnum(json_object_get(j, "backfill_version"), "backfill_version"), before + 2);
  assert_int_equal(jnum(json_object_get(j, "version"), "version"), before + 3);
  /* two partitions, two appends: four files, all without ids */
  assert_int_equal(jnum(json_object_get(j, "files_backfilled"), "files_backfilled"), 4);
  json_decref(j);
  free(o);
  const char *ops[] = {"UPGRADE PROTOCOL", "ROW TRACKING BACKFILL", "SET TBLPROPERTIES"};
  for (int i = 0; i < 3; i++) {
    char op[64];
    char *tag = commit_tag(t, before + 1 + i, "rowTrackingEnablementOnly", op);
    assert_string_equal(op, ops[i]);
    assert_string_equal(tag, i == 2 ? "true" : "");
    free(tag);
  }
  /* The protocol: writer 7 listing the features the old versions implied
   * plus rowTracking and domainMetadata; the backfill re-adds without data
   * change. */
  char path[4400];
  snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", t, (long long)before + 1);
  char *body = tu_read_file(path, NULL);
  assert_non_null(strstr(body, "\"minWriterVersion\":7"));
  assert_non_null(strstr(body, "\"rowTracking\""));
  assert_non_null(strstr(body, "\"domainMetadata\""));
  assert_non_null(strstr(body, "\"deletionVectors\""));
  free(body);
  snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", t, (long long)before + 2);
  body = tu_read_file(path, NULL);
  assert_null(strstr(body, "\"dataChange\":true"));
  assert_null(strstr(body, "\"remove\""));
  assert_non_null(strstr(body, "\"deletionVector\""));
  assert_non_null(strstr(body, "\"rowIdHighWaterMark\\\":19"));
  free(body);
  /* Enabling again changes nothing. */
  o = inlet("alter '%s' --property delta.enableRowTracking=true", t);
  assert_non_null(strstr(o, "already enabled"));
  free(o);
  assert_int_equal(latest_version(t), before + 3);
  /* Life goes on: an append, a compaction, a delete; every version from the
   * enabling one reads ids the log and refcheck agree with. */
  write_keys(in, 40, 6);
  free(inlet("append '%s' '%s'", t, in));
  free(inlet("compact '%s' --min-files 2", t));
  free(inlet("delete '%s' --where 'k = 12'", t));
  int64_t last = latest_version(t);
  json_t *files = json_object();
  for (int64_t v = before + 3; v <= last; v++)
    check_version_against_log(t, v, files);
  json_decref(files);
  expect_preserved_tags(t, before + 4, last);
  refcheck_same(t);

  /* A legacy protocol (reader 1, writer 2): writer version 7 then lists
   * the features writer 2 implied. */
  char t2[4300];
  snprintf(t2, sizeof t2, "%s/legacy", dir);
  free(inlet("create '%s' --schema 'k long, part string, v string'", t2));
  write_keys(in, 0, 5);
  free(inlet("append '%s' '%s'", t2, in));
  free(inlet("alter '%s' --property delta.enableRowTracking=true", t2));
  snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", t2, 2LL);
  body = tu_read_file(path, NULL);
  assert_non_null(strstr(body, "\"minReaderVersion\":1,\"minWriterVersion\":7"));
  assert_non_null(strstr(body, "\"appendOnly\""));
  assert_non_null(strstr(body, "\"invariants\""));
  assert_non_null(strstr(body, "\"rowTracking\""));
  free(body);
  files = json_object();
  check_version_against_log(t2, 4, files);
  json_decref(files);
  refcheck_same(t2);
  tu_rmtree(dir);
}

/* ---- refusals ------------------------------------------------------------------------------- */

static void test_row_tracking__table_without_row_tracking_refused(void **state) {
  (void)state;
  char dir[4096], t[4200], in[4300];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("rowtrack-none"));
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  free(inlet("create '%s' --schema 'k long, part string, v string'", t));
  write_keys(in, 0, 3);
  free(inlet("append '%s' '%s'", t, in));
  tu_result r;
  tu_sh(&r, "'%s' scan '%s' --columns k,_metadata.row_id", INLET_BIN, t);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "row tracking"));
  tu_result_free(&r);
  /* the log of such a table carries no row tracking fields */
  char *body = tu_read_file(
      strcat(strcpy((char[4400]){0}, t), "/_delta_log/00000000000000000001.json"), NULL);
  assert_null(strstr(body, "baseRowId"));
  assert_null(strstr(body, "delta.rowTracking"));
  free(body);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_row_tracking__spark_table_reads_base_row_id_plus_position),
      cmocka_unit_test(test_row_tracking__lifecycle_with_deletion_vectors),
      cmocka_unit_test(test_row_tracking__lifecycle_copy_on_write),
      cmocka_unit_test(test_row_tracking__racing_appenders_get_disjoint_ids),
      cmocka_unit_test(test_row_tracking__losing_writer_recomputes_ids),
      cmocka_unit_test(test_row_tracking__table_without_row_tracking_refused),
      cmocka_unit_test(test_row_tracking__every_version_matches_log_with_deletion_vectors),
      cmocka_unit_test(test_row_tracking__every_version_matches_log_copy_on_write),
      cmocka_unit_test(test_row_tracking__alter_backfills_existing_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
