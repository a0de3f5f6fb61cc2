/*
 * What a commit costs on S3, request by request (issue 14, "steady state:
 * the data PUTs + one conditional PUT, no LIST"), read from the trace of the
 * test proxy in front of s3rver (tests/support/objstore/emulators.mjs):
 *   - a handle appending again and again sends, per commit, the data
 *     file's PUT and the commit's conditional PUT, nothing else (no HEAD
 *     probe of the next version, no .crc, no HEAD for the timestamp);
 *   - a stale handle (another writer committed meanwhile) loses the
 *     conditional PUT, reads the winner and commits at the next version:
 *     nothing lost, and its snapshot then shows every row;
 *   - the snapshot's timestamp, learnt lazily, is the commit object's;
 *   - past the window in which a cached version may stand in for the latest
 *     (half of delta.logRetentionDuration), the writer probes the log again.
 * And what a writer killed mid-upload leaves: `inlet vacuum` and `inlet
 * maintain` abort the table's incomplete multipart uploads once a day old
 * (ListMultipartUploads + AbortMultipartUpload; the proxy emulates both,
 * s3rver has neither), never a younger one nor another table's.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inlet/inlet.h"
#include "objstore_env.h"
#include "storage/storage.h"

static tu_emulators emu;

static int group_setup(void **state) {
  (void)state;
  tu_emulators_start(&emu, true, false);
  char ep[64];
  snprintf(ep, sizeof ep, "http://127.0.0.1:%d", emu.proxy_port);
  unsetenv("AWS_PROFILE");
  unsetenv("AWS_ENDPOINT_URL_S3");
  setenv("AWS_ENDPOINT_URL", ep, 1);
  setenv("AWS_ACCESS_KEY_ID", "S3RVER", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "S3RVER", 1);
  setenv("AWS_REGION", "us-east-1", 1);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  tu_emulators_stop(&emu);
  return 0;
}

#define OK(expr)                                                                                   \
  do {                                                                                             \
    inlet_error *e_ = &err;                                                                        \
    if ((expr) < 0) fail_msg("%s: %s", #expr, inlet_errmsg(e_));                                   \
  } while (0)

static inlet_schema schema;

static void rows(inlet_batch *b, int64_t first, int64_t n) {
  inlet_error err = INLET_ERROR_INIT;
  OK(inlet_batch_init(b, &schema, &err));
  for (int64_t i = 0; i < n; i++) {
    OK(inlet_array_append_int(&b->columns[0], &schema.fields[0], first + i, &err));
    b->num_rows++;
  }
}

static int64_t append(inlet_table *t, int64_t first, int64_t n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_batch b;
  rows(&b, first, n);
  int64_t v = -1;
  OK(inlet_table_append(t, &b, 1, NULL, &v, &err));
  inlet_batch_reset(&b);
  return v;
}

/* The proxy's trace since the last read (malloc'd). */
static char *trace(void) {
  char *resp = NULL;
  assert_int_equal(tu_proxy_ctl(&emu, "GET", "/__proxy/trace", NULL, &resp), 200);
  return resp ? resp : strdup("");
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* Rows of the latest snapshot through @p t, and their id sum. */
static int64_t scan_rows(inlet_table *t, int64_t *sum) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_snapshot *s = NULL;
  inlet_scan *sc = NULL;
  inlet_scan_options so = INLET_SCAN_OPTIONS_INIT;
  OK(inlet_table_snapshot(&s, t, &err));
  OK(inlet_scan_open(&sc, s, &so, &err));
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t n = 0;
  *sum = 0;
  int rc;
  while ((rc = inlet_scan_next(sc, &b, &err)) == 1) {
    const int64_t *v = (const int64_t *)b.columns[0].values;
    for (int64_t i = 0; i < b.num_rows; i++)
      *sum += v[i];
    n += b.num_rows;
  }
  assert_int_equal(rc, 0);
  inlet_batch_reset(&b);
  inlet_scan_free(sc);
  inlet_snapshot_free(s);
  return n;
}

static inlet_table *create(const char *url, const char *retention) {
  inlet_error err = INLET_ERROR_INIT;
  const char *keys[] = {"delta.checkpointInterval", "delta.logRetentionDuration"};
  const char *vals[] = {"100", retention};
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  co.n_properties = retention ? 2 : 1;
  co.property_keys = keys;
  co.property_values = vals;
  inlet_table *t = NULL;
  OK(inlet_table_create_with(&t, url, &schema, &co, NULL, &err));
  return t;
}

static void test_commits__steady_state_is_data_put_and_one_conditional_put(void **state) {
  (void)state;
  inlet_table *t = create("s3://inlet-test/steady", NULL);
  for (int i = 0; i < 3; i++)
    append(t, i * 10, 10); /* warm-up */
  free(trace());
  enum { N = 8 };
  for (int i = 0; i < N; i++)
    assert_int_equal(append(t, 100 + i * 10, 10), 4 + i);
  char *tr = trace();
  /* Exactly two requests per commit, in this order: the data file's PUT
   * (a small file: one PUT, no multipart) and the commit's conditional PUT
   * of the next version, both 200. */
  assert_int_equal(count_lines(tr), 2 * N);
  char *line = tr;
  for (int i = 0; i < N; i++) {
    char *nl = strchr(line, '\n');
    *nl = '\0';
    if (strncmp(line, "PUT /inlet-test/steady/part-", 28) != 0 || !strstr(line, ".parquet") ||
        strcmp(nl - 4, " 200") != 0)
      fail_msg("commit %d: expected the data PUT, got \"%s\"", i, line);
    line = nl + 1;
    nl = strchr(line, '\n');
    *nl = '\0';
    char want[128];
    snprintf(want, sizeof want, "PUT /inlet-test/steady/_delta_log/%020d.json 200", 4 + i);
    if (strcmp(line, want) != 0) fail_msg("commit %d: expected \"%s\", got \"%s\"", i, want, line);
    line = nl + 1;
  }
  free(tr);
  /* The snapshot's timestamp (learnt now, with one HEAD) is the commit
   * object's, as a fresh handle reads it from the listing. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_snapshot *s = NULL;
  OK(inlet_table_snapshot(&s, t, &err));
  assert_int_equal(inlet_snapshot_version(s), 3 + N);
  int64_t ts = inlet_snapshot_timestamp(s);
  inlet_snapshot_free(s);
  inlet_table *fresh = NULL;
  OK(inlet_table_open(&fresh, "s3://inlet-test/steady", &err));
  OK(inlet_table_snapshot(&s, fresh, &err));
  assert_int_equal(inlet_snapshot_version(s), 3 + N);
  int64_t fresh_ts = inlet_snapshot_timestamp(s);
  inlet_snapshot_free(s);
  inlet_table_free(fresh);
  /* A HEAD's Last-Modified has whole seconds, a listing milliseconds. */
  assert_true(ts > 0 && fresh_ts > 0);
  assert_true(ts <= fresh_ts && fresh_ts - ts < 1000);
  int64_t sum = 0;
  assert_int_equal(scan_rows(t, &sum), 10 * (3 + N));
  inlet_table_free(t);
}

static void test_commits__stale_writer_loses_the_race_and_retries(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *a = create("s3://inlet-test/stale", NULL);
  inlet_table *b = NULL;
  OK(inlet_table_open(&b, "s3://inlet-test/stale", &err));
  int64_t expect_sum = 0, ids = 0;
#define ADD(t, want)                                                                               \
  do {                                                                                             \
    assert_int_equal(append(t, ids, 5), want);                                                     \
    for (int k_ = 0; k_ < 5; k_++)                                                                 \
      expect_sum += ids + k_;                                                                      \
    ids += 5;                                                                                      \
  } while (0)
  ADD(a, 1);
  ADD(b, 2); /* b caught up by loading; a's cache still says 1 */
  ADD(b, 3);
  free(trace());
  ADD(a, 4); /* a tries 2 and 3 (412), reads both winners, commits 4 */
  char *tr = trace();
  assert_non_null(strstr(tr, "PUT /inlet-test/stale/_delta_log/00000000000000000002.json 412"));
  assert_non_null(strstr(tr, "PUT /inlet-test/stale/_delta_log/00000000000000000003.json 412"));
  assert_non_null(strstr(tr, "PUT /inlet-test/stale/_delta_log/00000000000000000004.json 200"));
  free(tr);
  ADD(b, 5);
  ADD(a, 6);
  int64_t sum = 0;
  assert_int_equal(scan_rows(a, &sum), ids);
  assert_int_equal(sum, expect_sum);
  assert_int_equal(scan_rows(b, &sum), ids);
  assert_int_equal(sum, expect_sum);
  inlet_table_free(a);
  inlet_table_free(b);
#undef ADD
}

static void test_commits__probes_again_past_the_window(void **state) {
  (void)state;
  /* Retention 2 s: a cached version stands in for the latest for 1 s. */
  inlet_table *t = create("s3://inlet-test/window", "interval 2 seconds");
  append(t, 0, 1);
  free(trace());
  append(t, 1, 1); /* within the window: no probe */
  char *tr = trace();
  assert_null(strstr(tr, "HEAD "));
  assert_int_equal(count_lines(tr), 2);
  free(tr);
  usleep(1200 * 1000);
  append(t, 2, 1); /* past it: the next version is probed first (404) */
  tr = trace();
  assert_non_null(strstr(tr, "HEAD /inlet-test/window/_delta_log/00000000000000000003.json 404"));
  free(tr);
  inlet_table_free(t);
}

/* A child process starts a multipart upload of @p name below @p url (two
 * 1 KiB parts go up) and is killed (SIGKILL) before completing it. */
static void killed_upload(const char *url, const char *name) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
    o.part_size = 1024;
    o.parts_in_flight = 1; /* each full part goes up at once */
    inlet_storage *st = NULL;
    inlet_wfile *f = NULL;
    inlet_error err = INLET_ERROR_INIT;
    static char buf[3000];
    memset(buf, 'x', sizeof buf);
    if (inlet_storage_open_url(&st, url, &o, &err) < 0 || st->ops->create(st, name, &f, &err) < 0 ||
        inlet_wfile_append(f, buf, sizeof buf, &err) < 0 || f->ops->sync(f, &err) < 0)
      _exit(3);
    raise(SIGKILL);
    _exit(4);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static char *proxy_stats(void) {
  char *resp = NULL;
  assert_int_equal(tu_proxy_ctl(&emu, "GET", "/__proxy/stats", NULL, &resp), 200);
  return resp;
}

static void backdate_uploads(long long ms) {
  char body[64];
  snprintf(body, sizeof body, "{\"ms\":%lld}", ms);
  assert_int_equal(tu_proxy_ctl(&emu, "POST", "/__proxy/backdate-uploads", body, NULL), 200);
}

static void run_cli(const char *args) {
  tu_result r;
  tu_sh(&r, "'%s' %s", INLET_BIN, args);
  char msg[2048];
  snprintf(msg, sizeof msg, "%s%s", r.out ? r.out : "", r.err ? r.err : "");
  int status = r.status;
  tu_result_free(&r);
  if (status != 0) fail_msg("inlet %s: %s", args, msg);
}

static void test_commits__killed_uploads_aborted_by_vacuum_and_maintain(void **state) {
  (void)state;
  inlet_table *t = create("s3://inlet-test/mpu", NULL);
  append(t, 0, 3);
  inlet_table_free(t);
  int before = tu_proxy_open_uploads(&emu);
  killed_upload("s3://inlet-test/mpu", "part-00000-killed-old.parquet");
  /* Another table whose name starts the same: never touched. */
  killed_upload("s3://inlet-test/mpu2", "part-00000-other-table.parquet");
  assert_int_equal(tu_proxy_open_uploads(&emu), before + 2);
  /* Young (a live writer's, for all vacuum knows): left alone. */
  run_cli("vacuum s3://inlet-test/mpu");
  run_cli("maintain s3://inlet-test/mpu");
  assert_int_equal(tu_proxy_open_uploads(&emu), before + 2);
  /* A day and an hour later, and a fresh upload beside them. */
  backdate_uploads(25LL * 3600 * 1000);
  killed_upload("s3://inlet-test/mpu", "part-00001-killed-young.parquet");
  assert_int_equal(tu_proxy_open_uploads(&emu), before + 3);
  free(trace());
  tu_result r;
  tu_sh(&r, "'%s' vacuum s3://inlet-test/mpu", INLET_BIN);
  assert_int_equal(r.status, 0);
  /* Counted as never-committed debris. */
  assert_non_null(strstr(r.out, "1 never committed"));
  tu_result_free(&r);
  char *tr = trace();
  assert_non_null(strstr(tr, "GET /inlet-test/?uploads="));
  assert_non_null(strstr(tr, "prefix=mpu%2F"));
  assert_non_null(strstr(tr, "DELETE /inlet-test/mpu/part-00000-killed-old.parquet?uploadId="));
  assert_null(strstr(tr, "killed-young"));
  assert_null(strstr(tr, "other-table.parquet?uploadId"));
  free(tr);
  assert_int_equal(tu_proxy_open_uploads(&emu), before + 2);
  char *st = proxy_stats();
  assert_null(strstr(st, "killed-old"));
  assert_non_null(strstr(st, "killed-young"));
  assert_non_null(strstr(st, "other-table"));
  free(st);
  /* maintain (log cleanup, on by default) aborts the next one once old. */
  backdate_uploads(25LL * 3600 * 1000);
  run_cli("maintain s3://inlet-test/mpu");
  assert_int_equal(tu_proxy_open_uploads(&emu), before + 1);
  st = proxy_stats();
  assert_null(strstr(st, "killed-young"));
  assert_non_null(strstr(st, "other-table"));
  free(st);
  /* A store without ListMultipartUploads (bare s3rver: 501) is no reason
   * for vacuum to fail: the listing is skipped. */
  char bare[256];
  snprintf(bare, sizeof bare, "AWS_ENDPOINT_URL=http://127.0.0.1:%d '%s'", emu.s3rver_port,
           INLET_BIN);
  tu_sh(&r,
        "%s create s3://inlet-bare/mpu --schema 'id long' --single-writer && %s vacuum "
        "s3://inlet-bare/mpu --single-writer",
        bare, bare);
  if (r.status != 0) fail_msg("vacuum on bare s3rver: %s", r.err);
  assert_non_null(strstr(r.out, "deleted 0 files"));
  tu_result_free(&r);
  /* The table is intact. */
  inlet_error err = INLET_ERROR_INIT;
  OK(inlet_table_open(&t, "s3://inlet-test/mpu", &err));
  int64_t sum = 0;
  assert_int_equal(scan_rows(t, &sum), 3);
  inlet_table_free(t);
}

/* On a store that ignores If-None-Match (bare s3rver, single-writer mode)
 * the conditional PUT cannot tell a stale handle it lost: the probe of the
 * next version must still run there, or a second handle's commit would
 * overwrite the first's and lose its rows. */
static void test_commits__single_writer_store_still_probes(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  char bare[128];
  snprintf(bare, sizeof bare, "http://127.0.0.1:%d", emu.s3rver_port);
  inlet_storage_options so = INLET_STORAGE_OPTIONS_INIT;
  so.aws_endpoint_url = bare;
  inlet_table_open_options oo = INLET_TABLE_OPEN_OPTIONS_INIT;
  oo.storage = &so;
  oo.single_writer = true;
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  inlet_table *a = NULL, *b = NULL;
  OK(inlet_table_create_with(&a, "s3://inlet-bare/sw-probe", &schema, &co, &oo, &err));
  OK(inlet_table_open_with(&b, "s3://inlet-bare/sw-probe", &oo, &err));
  assert_int_equal(append(a, 0, 5), 1);
  assert_int_equal(append(b, 5, 5), 2);  /* b loads: a's cache still says 1 */
  assert_int_equal(append(a, 10, 5), 3); /* a probes, finds 2, commits 3 */
  int64_t sum = 0;
  assert_int_equal(scan_rows(a, &sum), 15);
  assert_int_equal(sum, 14 * 15 / 2);
  inlet_table_free(a);
  inlet_table_free(b);
}

int main(void) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema_init(&schema);
  OK(inlet_schema_parse(&schema, "id long not null", &err));
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_commits__steady_state_is_data_put_and_one_conditional_put),
      cmocka_unit_test(test_commits__stale_writer_loses_the_race_and_retries),
      cmocka_unit_test(test_commits__probes_again_past_the_window),
      cmocka_unit_test(test_commits__killed_uploads_aborted_by_vacuum_and_maintain),
      cmocka_unit_test(test_commits__single_writer_store_still_probes),
  };
  int rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
  inlet_schema_reset(&schema);
  return rc;
}
