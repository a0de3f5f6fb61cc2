/*
 * `inlet delete` (issue 16 §3) through the binary and the C API, on tables
 * built here whose rows the test knows: ids 0..N-1, user "u<id % 5>" (or
 * "x" for every 7th id), day "d<id % 3>". Each delete's expected survivors
 * are computed here from the predicate's meaning, never from inlet's
 * output, and every version is read by refcheck (an independent DuckDB
 * reader implementing deletion vectors) as inlet reads it. Covered: DV and
 * copy-on-write modes, partitioned and not, partition-only predicates
 * (whole files removed), predicates matching nothing (no commit), delete
 * then compact, checkpoint, vacuum and time travel, the GDPR case (no file
 * on disk holds the rows afterwards), the DV files' bytes (version, size,
 * magic, CRC) and the reader's refusal of a corrupted one, a concurrent
 * append (no conflict, nothing lost) and a concurrent compaction of the
 * same files (conflict, retried or reported), Spark's golden DV tables
 * appended to, compacted and deleted from, and copy-on-write copying the
 * pages of the row groups it keeps whole.
 */
#include "testutil.h"

#include "inlet/inlet.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define N 120

typedef struct fixture {
  char dir[4096];
} fixture;

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

/* Runs inlet with the arguments; returns its stdout (caller frees). */
static char *inlet(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *inlet(const char *fmt, ...) {
  char *args = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&args, fmt, ap) >= 0);
  va_end(ap);
  tu_result r;
  sh(&r, "'%s' %s", INLET_BIN, args);
  sh_ok(&r, args);
  char *out = strdup(r.out);
  tu_result_free(&r);
  free(args);
  return out;
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("delete"));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static const char *user_of(int id) {
  static char buf[8];
  if (id % 7 == 3) return "x";
  snprintf(buf, sizeof buf, "u%d", id % 5);
  return buf;
}

/* Creates @p name under the fixture with rows [0, N) in three appends
 * (ids [0, N/3), [N/3, 2N/3), [2N/3, N), one file each), created with the
 * `inlet create` options @p opts. */
static char *make_table_opts(const fixture *f, const char *name, const char *opts) {
  char *t = NULL;
  assert_true(asprintf(&t, "%s/%s", f->dir, name) > 0);
  free(inlet("create '%s' --schema 'id long, user string, day string' %s", t, opts));
  for (int part = 0; part < 3; part++) {
    char ev[4300], line[128];
    snprintf(ev, sizeof ev, "%s/%s-%d.ndjson", f->dir, name, part);
    FILE *fp = fopen(ev, "w");
    assert_non_null(fp);
    for (int id = part * N / 3; id < (part + 1) * N / 3; id++) {
      snprintf(line, sizeof line, "{\"id\":%d,\"user\":\"%s\",\"day\":\"d%d\"}\n", id, user_of(id),
               id % 3);
      fputs(line, fp);
    }
    fclose(fp);
    free(inlet("append '%s' '%s'", t, ev));
  }
  return t;
}

static char *make_table(const fixture *f, const char *name, bool dv, bool partitioned) {
  char opts[256];
  snprintf(opts, sizeof opts, "%s %s", partitioned ? "--partition-by day" : "",
           dv ? "--property delta.enableDeletionVectors=true" : "");
  return make_table_opts(f, name, opts);
}

/* The ids a scan of @p t at @p version (-1: latest) returns, sorted, one a
 * line; and what the model says. */
static char *scan_ids(const char *t, int64_t version) {
  char v[64] = "";
  if (version >= 0) snprintf(v, sizeof v, "--version %lld", (long long)version);
  tu_result r;
  sh(&r, "'%s' scan '%s' %s --columns id --format csv > '%s.ids' && tail -n +2 '%s.ids' | sort -n",
     INLET_BIN, t, v, t, t);
  sh_ok(&r, "scan ids");
  char *out = strdup(r.out);
  tu_result_free(&r);
  return out;
}

static char *model_ids(const bool *live) {
  char *out = calloc(1, 8 * N + 1);
  size_t n = 0;
  for (int id = 0; id < N; id++)
    if (live[id]) n += (size_t)sprintf(out + n, "%d\n", id);
  return out;
}

static void expect_model(const char *t, const bool *live) {
  char *got = scan_ids(t, -1), *want = model_ids(live);
  assert_string_equal(got, want);
  free(got);
  free(want);
}

/* refcheck reads version @p v of @p t exactly as inlet does. */
static void refcheck_version(const char *t, int64_t v) {
  tu_result r;
  sh(&r,
     "'%s' scan '%s' --version %lld --format ndjson > '%s.inlet' && "
     "{ '%s' '%s' delta '%s' --version %lld > '%s.ref' || { cat '%s.ref' >&2; false; }; } && "
     "'%s' '%s' compare '%s.ref' '%s.inlet' --ndjson",
     INLET_BIN, t, (long long)v, t, INLET_NODE, INLET_REFCHECK, t, (long long)v, t, t, INLET_NODE,
     INLET_REFCHECK, t, t);
  if (r.status != 0)
    fail_msg("%s version %lld: refcheck differs: %s %s", t, (long long)v, r.out, r.err);
  tu_result_free(&r);
}

static int64_t latest_version(const char *t) {
  tu_result r;
  sh(&r, "ls '%s/_delta_log' | grep -E '^[0-9]{20}\\.json$' | tail -n 1", t);
  int64_t v = atoll(r.out);
  tu_result_free(&r);
  return v;
}

/* `inlet delete --json`: the parsed result (caller decrefs). */
static json_t *delete_rows(const char *t, const char *pred) {
  char *out = inlet("delete '%s' --where \"%s\" --json", t, pred);
  json_t *j = json_loads(out, 0, NULL);
  if (!j) fail_msg("delete --json is not JSON: %s", out);
  free(out);
  return j;
}

static int64_t jint(const json_t *o, const char *k) {
  return (int64_t)json_integer_value(json_object_get(o, k));
}

/* The actions of commit @p v of @p t (a JSON array; caller decrefs). */
static json_t *commit_actions(const char *t, int64_t v) {
  char p[4400];
  snprintf(p, sizeof p, "%s/_delta_log/%020lld.json", t, (long long)v);
  size_t len = 0;
  char *text = tu_read_file(p, &len);
  assert_non_null(text);
  json_t *arr = json_array();
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *a = json_loads(line, 0, NULL);
    assert_non_null(a);
    json_array_append_new(arr, a);
  }
  free(text);
  return arr;
}

typedef enum { P_USER1, P_DAY2, P_MIXED, P_NONE } pred_kind;
static const char *const PREDS[] = {"user = 'u1'", "day = 'd2'", "id < 60 and day = 'd0'",
                                    "id > 100000"};
static bool matches(pred_kind p, int id) {
  switch (p) {
  case P_USER1: return strcmp(user_of(id), "u1") == 0;
  case P_DAY2: return id % 3 == 2;
  case P_MIXED: return id < 60 && id % 3 == 0;
  default: return false;
  }
}

static void check_mode(const fixture *f, bool dv, bool partitioned) {
  char name[64];
  snprintf(name, sizeof name, "t-%s-%s", dv ? "dv" : "cow", partitioned ? "part" : "flat");
  char *t = make_table(f, name, dv, partitioned);
  bool live[N];
  for (int i = 0; i < N; i++)
    live[i] = true;
  expect_model(t, live);
  for (pred_kind p = P_USER1; p <= P_NONE; p++) {
    int64_t before = latest_version(t);
    int64_t want_deleted = 0;
    for (int id = 0; id < N; id++)
      if (live[id] && matches(p, id)) {
        live[id] = false;
        want_deleted++;
      }
    json_t *res = delete_rows(t, PREDS[p]);
    assert_true(json_is_true(json_object_get(res, "deletion_vectors")) == dv);
    assert_int_equal(jint(res, "deleted_rows"), want_deleted);
    expect_model(t, live);
    if (p == P_NONE) {
      assert_true(json_is_null(json_object_get(res, "version")));
      assert_int_equal(latest_version(t), before);
      json_decref(res);
      continue;
    }
    int64_t v = jint(res, "version");
    assert_int_equal(v, before + 1);
    /* The commit: DELETE with the predicate and numDeletedRows; each
     * remove names the DV it retires; DVs only in DV mode. */
    json_t *acts = commit_actions(t, v);
    size_t i;
    json_t *a;
    int adds_dv = 0, adds = 0, removes = 0;
    json_array_foreach(acts, i, a) {
      json_t *ci = json_object_get(a, "commitInfo"), *ad = json_object_get(a, "add");
      if (ci) {
        assert_string_equal(json_string_value(json_object_get(ci, "operation")), "DELETE");
        json_t *pp = json_object_get(json_object_get(ci, "operationParameters"), "predicate");
        assert_non_null(strstr(json_string_value(pp), PREDS[p]));
        json_t *m = json_object_get(ci, "operationMetrics");
        assert_int_equal(atoll(json_string_value(json_object_get(m, "numDeletedRows"))),
                         want_deleted);
      }
      if (ad) {
        adds++;
        json_t *d = json_object_get(ad, "deletionVector");
        if (d) {
          adds_dv++;
          assert_string_equal(json_string_value(json_object_get(d, "storageType")), "u");
          json_t *st = json_loads(json_string_value(json_object_get(ad, "stats")), 0, NULL);
          assert_true(json_integer_value(json_object_get(st, "numRecords")) > 0);
          json_decref(st);
        }
      }
      removes += json_object_get(a, "remove") != NULL;
    }
    json_decref(acts);
    assert_true(removes > 0);
    if (!dv) assert_int_equal(adds_dv, 0);
    if (dv && !(partitioned && p == P_DAY2)) assert_int_equal(adds_dv, adds);
    if (partitioned && p == P_DAY2) {
      /* Partition-only: whole files go, nothing is written. */
      assert_int_equal(adds, 0);
      assert_int_equal(jint(res, "added_files"), 0);
    }
    json_decref(res);
  }
  /* Versions 0-3 (create, appends) are plain; each DELETE version is
   * read by refcheck. */
  for (int64_t v = 4; v <= latest_version(t); v++)
    refcheck_version(t, v);
  free(t);
}

static void test_delete__dv_and_copy_on_write_read_as_refcheck_reads(void **state) {
  fixture *f = *state;
  check_mode(f, true, false);
  check_mode(f, true, true);
  check_mode(f, false, false);
  check_mode(f, false, true);
}

/* delete -> compact -> checkpoint -> vacuum, then every version still
 * within the window reads as refcheck reads it; vacuum with no window then
 * leaves no DV file (compaction purged them all) and the latest version. */
static void test_delete__compact_checkpoint_vacuum_time_travel(void **state) {
  fixture *f = *state;
  char *t = make_table(f, "chain", true, true);
  bool live[N];
  for (int i = 0; i < N; i++)
    live[i] = !matches(P_USER1, i) && !matches(P_MIXED, i);
  json_decref(delete_rows(t, PREDS[P_USER1]));
  json_decref(delete_rows(t, PREDS[P_MIXED]));
  free(inlet("compact '%s' --min-files 2", t));
  expect_model(t, live);
  free(inlet("checkpoint '%s'", t));
  free(inlet("vacuum '%s'", t)); /* the default window keeps every version */
  int64_t last = latest_version(t);
  for (int64_t v = 0; v <= last; v++)
    refcheck_version(t, v);
  free(inlet("vacuum '%s' --retain 0h --force", t));
  tu_result r;
  sh(&r, "find '%s' -name 'deletion_vector_*' | wc -l", t);
  assert_int_equal(atoi(r.out), 0);
  tu_result_free(&r);
  expect_model(t, live);
  refcheck_version(t, last);
  free(t);
}

/* GDPR: after delete (and, on a DV table, the compaction that purges
 * deleted rows) and vacuum, no Parquet file on disk holds the user. */
static void test_delete__gdpr_rows_leave_every_file(void **state) {
  fixture *f = *state;
  for (int dv = 0; dv <= 1; dv++) {
    char *t = make_table(f, dv ? "gdpr-dv" : "gdpr-cow", dv, dv);
    tu_result r;
    sh(&r,
       "cd '%s' && for p in $(find . -name '*.parquet'); do '%s' parquet cat $p; done | "
       "grep -c '\"user\":\"x\"'",
       t, INLET_BIN);
    assert_true(atoi(r.out) > 0);
    tu_result_free(&r);
    json_decref(delete_rows(t, "user = 'x'"));
    if (dv) free(inlet("compact '%s'", t));
    free(inlet("vacuum '%s' --retain 0h --force", t));
    sh(&r,
       "cd '%s' && for p in $(find . -name '*.parquet'); do '%s' parquet cat $p; done | "
       "grep -c '\"user\":\"x\"' || true",
       t, INLET_BIN);
    assert_int_equal(atoi(r.out), 0);
    tu_result_free(&r);
    bool live[N];
    for (int i = 0; i < N; i++)
      live[i] = strcmp(user_of(i), "x") != 0;
    expect_model(t, live);
    refcheck_version(t, latest_version(t));
    free(t);
  }
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The DV file inlet writes, byte by byte (PROTOCOL.md "Deletion Vector File
 * Storage Format"): version 1, then at each descriptor's offset the
 * big-endian size, the RoaringBitmapArray (magic 1681511377), its CRC-32;
 * a flipped bitmap byte is then a checksum error naming the data file. */
static void test_delete__dv_file_bytes_and_checksum(void **state) {
  fixture *f = *state;
  char *t = make_table(f, "bytes", true, false);
  json_t *res = delete_rows(t, "user = 'u2'");
  json_t *acts = commit_actions(t, jint(res, "version"));
  json_decref(res);
  size_t i;
  json_t *a;
  char *dvfile = NULL;
  uint8_t *bytes = NULL;
  size_t len = 0;
  int checked = 0;
  int64_t first_off = -1;
  json_array_foreach(acts, i, a) {
    json_t *d = json_object_get(json_object_get(a, "add"), "deletionVector");
    if (!d) continue;
    if (!bytes) {
      tu_result r;
      sh(&r, "ls '%s' | grep '^deletion_vector_.*\\.bin$'", t);
      assert_int_equal(strlen(r.out) > 0, 1);
      r.out[strcspn(r.out, "\n")] = '\0';
      assert_true(asprintf(&dvfile, "%s/%s", t, r.out) > 0);
      tu_result_free(&r);
      bytes = (uint8_t *)tu_read_file(dvfile, &len);
      assert_non_null(bytes);
      assert_int_equal(bytes[0], 1);
    }
    int64_t off = json_integer_value(json_object_get(d, "offset"));
    int64_t size = json_integer_value(json_object_get(d, "sizeInBytes"));
    assert_true(off >= 1 && size >= 12 && (size_t)(off + 4 + size + 4) <= len);
    assert_int_equal(be32(bytes + off), (uint32_t)size);
    assert_int_equal(le32(bytes + off + 4), 1681511377u);
    assert_int_equal(be32(bytes + off + 4 + size),
                     (uint32_t)crc32(0L, bytes + off + 4, (uInt)size));
    if (first_off < 0) first_off = off;
    checked++;
  }
  json_decref(acts);
  assert_true(checked >= 2);
  /* Flip the last bitmap byte of the first DV: the reader's CRC check. */
  size_t at = (size_t)first_off + 4 + (size_t)be32(bytes + first_off) - 1;
  bytes[at] ^= 0x5a;
  assert_int_equal(tu_write_file(dvfile, bytes, len), 0);
  tu_rules_exempt(t, "test_delete: a deliberately corrupted deletion vector");
  tu_result r;
  sh(&r, "'%s' scan '%s' --format csv", INLET_BIN, t);
  if (r.status != 5 || !strstr(r.err, "checksum"))
    fail_msg("want exit 5 naming the checksum, got %d: %s", r.status, r.err);
  tu_result_free(&r);
  free(bytes);
  free(dvfile);
  free(t);
}

/* ---- concurrency (C API: the commit of another writer lands between the
 * delete's evaluation and its commit, through on_attempt) ---- */

typedef struct race {
  const char *table;
  const char *action; /* "compact" or "append" */
  const char *ev;     /* append input */
  int calls;
  int act_on_calls; /* act on calls 1..act_on_calls */
} race;

static void on_attempt(void *ctx, int64_t read_version, int64_t files) {
  race *r = ctx;
  (void)read_version;
  assert_true(files > 0);
  if (++r->calls > r->act_on_calls) return;
  tu_result res;
  if (strcmp(r->action, "compact") == 0)
    sh(&res, "'%s' compact '%s' --min-files 2", INLET_BIN, r->table);
  else
    sh(&res, "'%s' append '%s' '%s'", INLET_BIN, r->table, r->ev);
  sh_ok(&res, r->action);
  tu_result_free(&res);
}

static int run_delete(const char *t, const char *pred, race *rc, int max_attempts,
                      inlet_delete_result *res, inlet_error *err) {
  inlet_table *h = NULL;
  assert_int_equal(inlet_table_open(&h, t, err), 0);
  inlet_delete_options o = INLET_DELETE_OPTIONS_INIT;
  o.where = pred;
  o.max_attempts = max_attempts;
  o.on_attempt = on_attempt;
  o.ctx = rc;
  int st = inlet_table_delete(res, h, &o, err);
  inlet_table_free(h);
  return st;
}

static void test_delete__concurrent_append_and_compaction(void **state) {
  fixture *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_delete_result res;
  for (int dv = 0; dv <= 1; dv++) {
    /* An append landing meanwhile: no conflict, both commits stand. */
    char *t = make_table(f, dv ? "race-append-dv" : "race-append-cow", dv, false);
    char ev[4300];
    snprintf(ev, sizeof ev, "%s/extra.ndjson", f->dir);
    const char *extra = "{\"id\":1000,\"user\":\"u1\",\"day\":\"d0\"}\n";
    assert_int_equal(tu_write_file(ev, extra, strlen(extra)), 0);
    race ra = {t, "append", ev, 0, 1};
    assert_int_equal(run_delete(t, "user = 'u1' and id < 1000", &ra, 0, &res, &err), 0);
    assert_int_equal(res.attempts, 1);
    assert_int_equal(res.version, 5); /* create, 3 appends, the racing append */
    bool live[N];
    int64_t want = 0;
    for (int i = 0; i < N; i++) {
      live[i] = !matches(P_USER1, i);
      want += !live[i];
    }
    assert_int_equal(res.deleted_rows, want);
    char *got = scan_ids(t, -1), *m = model_ids(live), *w = NULL;
    assert_true(asprintf(&w, "%s1000\n", m) > 0);
    assert_string_equal(got, w);
    free(got);
    free(m);
    free(w);
    refcheck_version(t, 5);
    free(t);

    /* A compaction of the same files landing meanwhile: a conflict; the
     * delete starts over on the compacted table and succeeds. */
    t = make_table(f, dv ? "race-compact-dv" : "race-compact-cow", dv, false);
    race rc = {t, "compact", NULL, 0, 1};
    assert_int_equal(run_delete(t, PREDS[P_USER1], &rc, 0, &res, &err), 0);
    assert_int_equal(res.attempts, 2);
    assert_int_equal(res.version, 5); /* 4 = the compaction */
    for (int i = 0; i < N; i++)
      live[i] = !matches(P_USER1, i);
    expect_model(t, live);
    for (int64_t v = 3; v <= 5; v++)
      refcheck_version(t, v);
    free(t);

    /* With one attempt allowed, the conflict is reported (exit 4 in the
     * CLI) and the table holds only the compaction; the attempt's files
     * are gone. */
    t = make_table(f, dv ? "race-fail-dv" : "race-fail-cow", dv, false);
    race rf = {t, "compact", NULL, 0, 1};
    int st = run_delete(t, PREDS[P_USER1], &rf, 1, &res, &err);
    if (st != INLET_ECONFLICT) fail_msg("want a conflict, got %d: %s", st, inlet_errmsg(&err));
    assert_non_null(strstr(inlet_errmsg(&err), "conflict"));
    assert_int_equal(latest_version(t), 4);
    tu_result r;
    sh(&r,
       "cd '%s' && find . -name 'deletion_vector_*' | wc -l && "
       "'%s' scan . --format csv | tail -n +2 | wc -l",
       t, INLET_BIN);
    int dvs = 0, rows = 0;
    assert_int_equal(sscanf(r.out, "%d %d", &dvs, &rows), 2);
    assert_int_equal(dvs, 0);
    assert_int_equal(rows, N);
    tu_result_free(&r);
    /* vacuum with no window finds nothing of the failed attempt but the
     * compacted-away inputs: every file left on disk is live. */
    free(inlet("vacuum '%s' --retain 0h --force", t));
    sh(&r, "cd '%s' && find . -name '*.parquet' | wc -l", t);
    assert_int_equal(atoi(r.out), 1);
    tu_result_free(&r);
    free(t);
  }
}

/* Spark's golden DV tables take appends, deletes and compaction, and read
 * as refcheck reads them at every new version. */
static void test_delete__golden_dv_tables_take_writes(void **state) {
  fixture *f = *state;
  static const struct {
    const char *rel, *row, *pred1, *pred2;
  } T[] = {
      {"dv-partitioned-with-checkpoint", "{\"part\":1,\"col1\":500,\"col2\":\"new\"}",
       "col1 >= 30 and col1 < 500", "part = 3"},
      {"log-replay-dv-key-cases", "{\"id\":500}", "id >= 40 and id < 500", "id < 3"},
  };
  for (size_t k = 0; k < sizeof T / sizeof T[0]; k++) {
    char t[4300], ev[4400];
    snprintf(t, sizeof t, "%s/%s", f->dir, T[k].rel);
    tu_result r;
    sh(&r, "cp -R '%s/../shared/testdata/delta-golden/tables/%s' '%s'", INLET_SOURCE_DIR, T[k].rel,
       t);
    sh_ok(&r, "copy golden table");
    tu_result_free(&r);
    tu_rules_exempt(t, "test_delete: golden table written by Spark");
    int64_t v0 = latest_version(t);
    snprintf(ev, sizeof ev, "%s/%s.ndjson", f->dir, T[k].rel);
    char line[256];
    snprintf(line, sizeof line, "%s\n", T[k].row);
    assert_int_equal(tu_write_file(ev, line, strlen(line)), 0);
    free(inlet("append '%s' '%s'", t, ev));
    json_decref(delete_rows(t, T[k].pred1));
    json_decref(delete_rows(t, T[k].pred2));
    free(inlet("compact '%s' --min-files 2", t));
    json_decref(delete_rows(t, T[k].pred2)); /* nothing left to match */
    int64_t last = latest_version(t);
    assert_true(last >= v0 + 3);
    for (int64_t v = v0; v <= last; v++)
      refcheck_version(t, v);
    /* The appended row survived; the deleted ones are gone. */
    sh(&r, "'%s' scan '%s' --format ndjson | grep -c 500", INLET_BIN, t);
    assert_int_equal(atoi(r.out), 1);
    tu_result_free(&r);
  }
}

/* ---- data skipping (stats rule files out before they are read) ---- */

/* The path (relative, as the log has it) of the first add of commit @p v. */
static char *add_path_of(const char *t, int64_t v) {
  json_t *acts = commit_actions(t, v);
  size_t i;
  json_t *a;
  char *out = NULL;
  json_array_foreach(acts, i, a) {
    json_t *ad = json_object_get(a, "add");
    if (ad && !out) out = strdup(json_string_value(json_object_get(ad, "path")));
  }
  json_decref(acts);
  assert_non_null(out);
  return out;
}

/* Whether commit @p v of @p t has an add or remove of @p path. */
static bool commit_names(const char *t, int64_t v, const char *path) {
  json_t *acts = commit_actions(t, v);
  size_t i;
  json_t *a;
  bool found = false;
  json_array_foreach(acts, i, a) {
    json_t *ad = json_object_get(a, "add"), *rm = json_object_get(a, "remove");
    json_t *p = json_object_get(ad ? ad : rm, "path");
    found |= p && strcmp(json_string_value(p), path) == 0;
  }
  json_decref(acts);
  return found;
}

static const char GARBAGE[] = "not a Parquet file: delete must not read this";

/* Replaces data file @p rel of @p t by GARBAGE; returns its bytes (caller
 * frees) and their length in @p len. */
static char *spoil(const char *t, const char *rel, size_t *len) {
  char p[8192];
  snprintf(p, sizeof p, "%s/%s", t, rel);
  char *orig = tu_read_file(p, len);
  assert_non_null(orig);
  assert_int_equal(tu_write_file(p, GARBAGE, strlen(GARBAGE)), 0);
  return orig;
}

/* Asserts @p rel still holds GARBAGE, then puts @p orig back (and frees it). */
static void unspoil(const char *t, const char *rel, char *orig, size_t len) {
  char p[8192];
  snprintf(p, sizeof p, "%s/%s", t, rel);
  size_t n = 0;
  char *now = tu_read_file(p, &n);
  assert_non_null(now);
  assert_int_equal(n, strlen(GARBAGE));
  assert_memory_equal(now, GARBAGE, n);
  free(now);
  assert_int_equal(tu_write_file(p, orig, len), 0);
  free(orig);
}

/* Drops add.stats from every add of commit @p v of @p t (a writer that
 * collects no stats: they are optional, PROTOCOL.md "Per-file Statistics"). */
static void strip_stats(const char *t, int64_t v) {
  json_t *acts = commit_actions(t, v);
  size_t i;
  json_t *a;
  char *body = NULL;
  size_t blen = 0;
  FILE *m = open_memstream(&body, &blen);
  assert_non_null(m);
  int stripped = 0;
  json_array_foreach(acts, i, a) {
    json_t *ad = json_object_get(a, "add");
    if (ad && json_object_get(ad, "stats")) {
      json_object_del(ad, "stats");
      stripped++;
    }
    char *line = json_dumps(a, JSON_COMPACT | JSON_PRESERVE_ORDER);
    fprintf(m, "%s\n", line);
    free(line);
  }
  fclose(m);
  json_decref(acts);
  assert_int_equal(stripped, 1);
  char p[4400];
  snprintf(p, sizeof p, "%s/_delta_log/%020lld.json", t, (long long)v);
  assert_int_equal(tu_write_file(p, body, blen), 0);
  free(body);
}

/* A metric of commit @p v's commitInfo.operationMetrics (Spark writes strings). */
static int64_t commit_metric(const char *t, int64_t v, const char *key) {
  json_t *acts = commit_actions(t, v);
  size_t i;
  json_t *a;
  int64_t out = -1;
  json_array_foreach(acts, i, a) {
    json_t *m = json_object_get(json_object_get(a, "commitInfo"), "operationMetrics");
    json_t *x = json_object_get(m, key);
    if (x) out = atoll(json_string_value(x));
  }
  json_decref(acts);
  return out;
}

/* Three files of disjoint id ranges ([0,40), [40,80), [80,120)); deletes
 * whose predicate only one file's stats admit must not read the others:
 * those are replaced by bytes no reader accepts, and the delete still
 * succeeds, leaves them out of its commit and as they were. A file without
 * stats is read (its garbage is then an error, exit 5), and a file with a
 * deletion vector is skipped by its stats like any other. After each step
 * the table holds exactly the model's rows, in inlet's scan and refcheck's.
 * With deletion vectors, copy-on-write, and column mapping (stats keyed by
 * physical names). */
static void test_delete__stats_skip_files(void **state) {
  fixture *f = *state;
  static const struct {
    const char *name, *opts;
    bool dv;
  } M[] = {
      {"skip-dv", "--property delta.enableDeletionVectors=true", true},
      {"skip-cow", "", false},
      {"skip-cm",
       "--property delta.columnMapping.mode=name --property "
       "delta.enableDeletionVectors=true",
       true},
  };
  for (size_t k = 0; k < sizeof M / sizeof M[0]; k++) {
    char *t = make_table_opts(f, M[k].name, M[k].opts);
    tu_rules_exempt(t, "test_delete: data files spoiled on purpose, stats stripped by hand");
    char *p1 = add_path_of(t, 1), *p2 = add_path_of(t, 2), *p3 = add_path_of(t, 3);
    {
      /* Column mapping keys the stats by physical name: skipping must map
       * them (else nothing would be skipped below). */
      json_t *acts = commit_actions(t, 1);
      size_t i;
      json_t *a;
      int seen = 0;
      json_array_foreach(acts, i, a) {
        json_t *ad = json_object_get(a, "add");
        if (!ad) continue;
        json_t *st = json_loads(json_string_value(json_object_get(ad, "stats")), 0, NULL);
        json_t *mins = json_object_get(st, "minValues");
        assert_non_null(mins);
        bool cm = strcmp(M[k].name, "skip-cm") == 0;
        assert_true((json_object_get(mins, "id") != NULL) == !cm);
        seen++;
        json_decref(st);
      }
      json_decref(acts);
      assert_int_equal(seen, 1);
    }
    bool live[N];
    for (int i = 0; i < N; i++)
      live[i] = true;

    /* 1. Only the second file's range: the first and third are not read. */
    size_t l1, l3;
    char *o1 = spoil(t, p1, &l1), *o3 = spoil(t, p3, &l3);
    json_t *res = delete_rows(t, "id >= 45 and id < 50");
    for (int i = 45; i < 50; i++)
      live[i] = false;
    assert_int_equal(jint(res, "deleted_rows"), 5);
    assert_int_equal(jint(res, "files_read"), 1);
    assert_int_equal(jint(res, "files_skipped"), 2);
    int64_t v = jint(res, "version");
    json_decref(res);
    assert_false(commit_names(t, v, p1));
    assert_false(commit_names(t, v, p3));
    assert_true(commit_names(t, v, p2));
    assert_int_equal(commit_metric(t, v, "numFilesBeforeSkipping"), 3);
    assert_int_equal(commit_metric(t, v, "numFilesAfterSkipping"), 1);
    unspoil(t, p1, o1, l1);
    unspoil(t, p3, o3, l3);
    expect_model(t, live);
    refcheck_version(t, v);
    char *p2now = add_path_of(t, v); /* the DV'd or rewritten second file */

    /* 2. The third file loses its stats: a delete in its range reads it
     * (spoiled: exit 5 naming it, nothing committed), then, restored,
     * deletes from it; the first and second files stay unread. */
    strip_stats(t, 3);
    o3 = spoil(t, p3, &l3);
    size_t l2;
    char *o2 = spoil(t, p2now, &l2);
    o1 = spoil(t, p1, &l1);
    tu_result r;
    sh(&r, "'%s' delete '%s' --where 'id >= 100 and id < 104' --json", INLET_BIN, t);
    if (r.status != 5 || !strstr(r.err, p3))
      fail_msg("want exit 5 naming %s, got %d: %s", p3, r.status, r.err);
    tu_result_free(&r);
    assert_int_equal(latest_version(t), v);
    unspoil(t, p3, o3, l3);
    res = delete_rows(t, "id >= 100 and id < 104");
    for (int i = 100; i < 104; i++)
      live[i] = false;
    assert_int_equal(jint(res, "deleted_rows"), 4);
    assert_int_equal(jint(res, "files_read"), 1);
    assert_int_equal(jint(res, "files_skipped"), 2);
    v = jint(res, "version");
    json_decref(res);
    assert_true(commit_names(t, v, p3));
    unspoil(t, p2now, o2, l2);
    unspoil(t, p1, o1, l1);
    expect_model(t, live);
    refcheck_version(t, v);

    /* 3. A predicate the second file (with a deletion vector in DV mode)
     * and the third file's bounds rule out: only the first is read. The
     * third file has no column bounds still in DV mode (its re-added add
     * keeps the stats it had, numRecords alone) and is read; copy-on-write
     * rewrote it with fresh stats. */
    char *p3now = add_path_of(t, v);
    o2 = spoil(t, p2now, &l2);
    res = delete_rows(t, "id < 3 or id = 200");
    for (int i = 0; i < 3; i++)
      live[i] = false;
    assert_int_equal(jint(res, "deleted_rows"), 3);
    assert_int_equal(jint(res, "files_read"), M[k].dv ? 2 : 1);
    assert_int_equal(jint(res, "files_skipped"), M[k].dv ? 1 : 2);
    v = jint(res, "version");
    json_decref(res);
    assert_false(commit_names(t, v, p2now));
    assert_false(commit_names(t, v, p3now));
    unspoil(t, p2now, o2, l2);
    expect_model(t, live);
    refcheck_version(t, v);

    /* 4. Nothing can match: no file with bounds is read, nothing is
     * committed. */
    res = delete_rows(t, "id > 1000");
    assert_int_equal(jint(res, "files_read"), M[k].dv ? 1 : 0); /* the third, in DV mode */
    assert_int_equal(jint(res, "files_skipped"), M[k].dv ? 2 : 3);
    assert_true(json_is_null(json_object_get(res, "version")));
    json_decref(res);
    free(p1);
    free(p2);
    free(p3);
    free(p2now);
    free(p3now);
    free(t);
  }
}

/* Refusals leave the table as it was: append-only tables (exit 6, naming
 * the feature), no predicate (exit 2), an unknown column (exit 3).
 * (Change data feed tables are deleted from with change data files:
 * test_changes.) */
static void test_delete__refusals_change_nothing(void **state) {
  fixture *f = *state;
  static const struct {
    const char *prop, *where, *names;
    int status;
  } C[] = {
      {"--property delta.appendOnly=true", "id < 5", "appendOnly", 6},
      {"", "", "--where", 2},
      {"", "nosuch = 1", "nosuch", 3},
  };
  for (size_t k = 0; k < sizeof C / sizeof C[0]; k++) {
    char t[4300];
    snprintf(t, sizeof t, "%s/r%zu", f->dir, k);
    free(inlet("create '%s' --schema 'id long' %s", t, C[k].prop));
    char ev[4400];
    snprintf(ev, sizeof ev, "%s/r.ndjson", f->dir);
    assert_int_equal(tu_write_file(ev, "{\"id\":1}\n{\"id\":9}\n", 18), 0);
    free(inlet("append '%s' '%s'", t, ev));
    tu_result r;
    if (*C[k].where)
      sh(&r, "'%s' delete '%s' --where '%s'", INLET_BIN, t, C[k].where);
    else
      sh(&r, "'%s' delete '%s'", INLET_BIN, t);
    if (r.status != C[k].status || !strstr(r.err, C[k].names))
      fail_msg("case %zu: want exit %d naming %s, got %d: %s", k, C[k].status, C[k].names, r.status,
               r.err);
    tu_result_free(&r);
    assert_int_equal(latest_version(t), 1);
    sh(&r, "ls '%s' | grep -c parquet", t);
    assert_int_equal(atoi(r.out), 1);
    tu_result_free(&r);
  }
}

/* The path of the one file version @p v of @p t adds (caller frees). */
static char *added_path(const char *t, int64_t v) {
  json_t *acts = commit_actions(t, v);
  char *path = NULL;
  for (size_t i = 0; i < json_array_size(acts); i++) {
    json_t *add = json_object_get(json_array_get(acts, i), "add");
    if (!add) continue;
    assert_null(path);
    path = strdup(json_string_value(json_object_get(add, "path")));
  }
  json_decref(acts);
  assert_non_null(path);
  return path;
}

/* `inlet parquet meta --json` of data file @p file of @p t: per row group,
 * its rows and the count of PLAIN data pages of column "id". Returns the
 * number of row groups (at most @p cap). */
static int id_pages(const char *t, const char *file, int64_t *rows, int64_t *pages, int cap) {
  char *out = inlet("parquet meta '%s/%s' --json", t, file);
  json_t *meta = json_loads(out, 0, NULL);
  assert_non_null(meta);
  free(out);
  json_t *rgs = json_object_get(meta, "row_groups");
  int n = (int)json_array_size(rgs);
  assert_true(n <= cap);
  for (int g = 0; g < n; g++) {
    json_t *rg = json_array_get(rgs, (size_t)g);
    rows[g] = jint(rg, "num_rows");
    pages[g] = 0;
    json_t *cols = json_object_get(rg, "columns");
    for (size_t c = 0; c < json_array_size(cols); c++) {
      json_t *col = json_array_get(cols, c);
      if (strcmp(json_string_value(json_object_get(col, "path")), "id") != 0) continue;
      json_t *es = json_object_get(col, "encoding_stats");
      for (size_t k = 0; k < json_array_size(es); k++) {
        json_t *e = json_array_get(es, k);
        if (strcmp(json_string_value(json_object_get(e, "page_type")), "DATA_PAGE") == 0 &&
            strcmp(json_string_value(json_object_get(e, "encoding")), "PLAIN") == 0)
          pages[g] += jint(e, "count");
      }
    }
  }
  json_decref(meta);
  return n;
}

/* Copy-on-write keeps the pages of the row groups that lose no row
 * (raw_pages.h), as compaction does: a 48,000-row file in row groups of
 * about 15,700 rows, one id page each; a row of the last row group is
 * deleted. The new file's id column has one page per untouched row group,
 * copied, plus the last row group's rows encoded: 4 pages, where encoding
 * every row again makes pages of 20,000 rows (3). Every row but the
 * deleted one is there, and refcheck reads the table as inlet does. */
static void test_delete__copy_on_write_copies_untouched_row_groups(void **state) {
  fixture *f = *state;
  char t[4200];
  snprintf(t, sizeof t, "%s/pages", f->dir);
  free(inlet("create '%s' --schema 'id long not null, x double, s string'", t));
  enum { PARTS = 4, PER = 12000, GONE = 47990 };
  for (int part = 0; part < PARTS; part++) {
    char path[4300];
    snprintf(path, sizeof path, "%s/pages%d.ndjson", f->dir, part);
    FILE *o = fopen(path, "w");
    assert_non_null(o);
    for (int i = part * PER; i < (part + 1) * PER; i++)
      fprintf(o, "{\"id\":%d,\"x\":%d.%02d,\"s\":\"v%d\"}\n", i, i * 3, i % 100, (i * 7) % 10);
    fclose(o);
    free(inlet("append '%s' '%s'", t, path));
  }
  free(inlet("compact '%s' --min-files 2 --row-group-size 250KiB", t));
  char *in = added_path(t, latest_version(t));
  int64_t rows[16], pages[16];
  int n_in = id_pages(t, in, rows, pages, 16);
  assert_int_equal(n_in, 4);
  int64_t before_last = 0;
  for (int g = 0; g < n_in; g++) {
    assert_int_equal(pages[g], 1);
    if (g < n_in - 1) {
      assert_true(rows[g] >= 10000); /* big enough to be copied (half a page) */
      before_last += rows[g];
    }
  }
  assert_true(GONE >= before_last); /* the deleted row is in the last row group */

  json_t *res = delete_rows(t, "id = 47990");
  assert_int_equal(jint(res, "deleted_rows"), 1);
  assert_int_equal(jint(res, "copied_rows"), PARTS * PER - 1);
  json_decref(res);
  char *out = added_path(t, latest_version(t));
  int n_out = id_pages(t, out, rows, pages, 16);
  assert_int_equal(n_out, 1);
  assert_int_equal(rows[0], PARTS * PER - 1);
  assert_int_equal(pages[0], n_in);
  free(in);
  free(out);

  char *got = scan_ids(t, -1);
  size_t cap = (size_t)PARTS * PER * 7 + 1, n = 0;
  char *want = calloc(1, cap);
  for (int id = 0; id < PARTS * PER; id++)
    if (id != GONE) n += (size_t)snprintf(want + n, cap - n, "%d\n", id);
  assert_string_equal(got, want);
  free(got);
  free(want);
  refcheck_version(t, latest_version(t));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_delete__dv_and_copy_on_write_read_as_refcheck_reads,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete__compact_checkpoint_vacuum_time_travel, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_delete__gdpr_rows_leave_every_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete__dv_file_bytes_and_checksum, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete__concurrent_append_and_compaction, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_delete__golden_dv_tables_take_writes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete__stats_skip_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete__refusals_change_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete__copy_on_write_copies_untouched_row_groups, setup,
                                      teardown),
  };
  /* INLET_TEST_FILTER=test_delete__stats* runs some. */
  const char *filter = getenv("INLET_TEST_FILTER");
  if (filter && *filter) cmocka_set_test_filter(filter);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
