/*
 * The S3 backend (src/storage/s3.c) against s3rver, through the test proxy
 * that adds what s3rver lacks (tests/support/objstore/emulators.mjs): SigV4
 * signatures recomputed with the AWS SDK's own signer (403 on mismatch) and
 * If-None-Match: * enforced per key. Proves: the storage contract (puts,
 * ranged and suffix reads, listings from a start key, batch deletes,
 * multipart writes), exactly one winner among racing processes, the probe
 * that finds bare s3rver ignoring If-None-Match, aborted multipart uploads
 * leaving nothing, retries under injected 503s / resets that never turn a
 * conditional create into an overwrite, and no secret in any error.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objstore_env.h"
#include "storage/http.h"
#include "storage/objstore_int.h"
#include "storage/storage.h"
#include "storage_contract.h"
#include "util/util.h"

/* Checks a call's return code, printing the error detail when it differs. */
#define RC(expr, want)                                                                             \
  do {                                                                                             \
    int rc_ = (expr);                                                                              \
    if (rc_ != (want))                                                                             \
      fail_msg("%s returned %d (%s), expected %d", #expr, rc_, err.message, (int)(want));          \
  } while (0)

static tu_emulators emu;
static char endpoint[64], bare_endpoint[64];

static int group_setup(void **state) {
  (void)state;
  tu_emulators_start(&emu, true, false);
  snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", emu.proxy_port);
  snprintf(bare_endpoint, sizeof bare_endpoint, "http://127.0.0.1:%d", emu.s3rver_port);
  /* Settings come from options; the environment must not leak in. */
  unsetenv("AWS_PROFILE");
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

static int reset_proxy(void **state) {
  (void)state;
  assert_int_equal(tu_proxy_ctl(&emu, "POST", "/__proxy/reset", "{}", NULL), 200);
  return 0;
}

static inlet_storage *open_url(const char *url, const char *ep, inlet_storage_options *o) {
  inlet_storage_options d = INLET_STORAGE_OPTIONS_INIT;
  if (!o) o = &d;
  o->aws_endpoint_url = ep;
  if (!o->backoff_base_ms) o->backoff_base_ms = 5;
  if (!o->backoff_max_ms) o->backoff_max_ms = 50;
  inlet_storage *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_storage_open_url(&s, url, o, &err)) fail_msg("open %s: %s", url, inlet_errmsg(&err));
  return s;
}

static inlet_storage *open_proxy(void *ctx) {
  (void)ctx;
  return open_url("s3://inlet-test/race-table", endpoint, NULL);
}

static void test_s3__contract(void **state) {
  (void)state;
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.part_size = 256 * 1024; /* multipart above 256 KiB: the wfile check writes 2 MiB */
  o.parts_in_flight = 3;
  inlet_storage *s = open_url("s3://inlet-test/contract/table", endpoint, &o);
  assert_string_equal(s->root, "s3://inlet-test/contract/table");
  assert_true(s->flags & INLET_STORAGE_OBJECT_STORE);
  sc_check_put_get_ranges(s, "a");
  sc_check_put_if_absent(s, "b");
  sc_check_listing(s, "c");
  sc_check_remove_many(s, "d");
  long before = tu_proxy_stat(&emu, "requests");
  sc_check_wfile(s, "e", 2 << 20);
  assert_true(tu_proxy_stat(&emu, "requests") - before >= 8); /* parts, not one PUT */
  assert_int_equal(tu_proxy_open_uploads(&emu), 0);
  /* A small file is one conditional PUT. */
  sc_check_wfile(s, "f", 1000);
  s->ops->free(s);
}

static void test_s3__listing_pages_and_batches(void **state) {
  (void)state;
  inlet_storage *s = open_url("s3://inlet-test/many", endpoint, NULL);
  inlet_error err = INLET_ERROR_INIT;
  /* Pages of 10 entries and delete batches of 10 keys (test hook), so a
   * few objects cross page and batch boundaries. */
  inlet_objstore_test_page_size(10);
  enum { N = 25 };
  char *paths[N];
  for (int i = 0; i < N; i++) {
    paths[i] = malloc(64);
    snprintf(paths[i], 64, "_delta_log/%020d.json", i);
    RC(s->ops->put_bytes(s, paths[i], "{}", 2, &err), 0);
  }
  inlet_dirent *e;
  size_t n;
  /* Three ListObjectsV2 pages joined by continuation tokens. */
  long before = tu_proxy_stat(&emu, "requests");
  RC(s->ops->list_names(s, "_delta_log", &e, &n, &err), 0);
  assert_int_equal(tu_proxy_stat(&emu, "requests") - before, 3);
  assert_int_equal(n, N);
  for (int i = 0; i < N; i++)
    assert_string_equal(e[i].name, paths[i] + strlen("_delta_log/"));
  inlet_dirents_free(e, n);
  /* From a start key: only what follows it, one request with start-after. */
  inlet_list_options o = INLET_LIST_OPTIONS_INIT;
  o.start_after = "00000000000000000019.json";
  before = tu_proxy_stat(&emu, "requests");
  RC(s->ops->list_from(s, "_delta_log", &o, &e, &n, &err), 0);
  assert_int_equal(tu_proxy_stat(&emu, "requests") - before, 1);
  assert_int_equal(n, 5);
  assert_string_equal(e[0].name, "00000000000000000020.json");
  inlet_dirents_free(e, n);
  /* DeleteObjects in batches: three requests for 25 keys (and a missing
   * key counts as removed). */
  int res[N];
  free(paths[N - 1]);
  paths[N - 1] = strdup("_delta_log/never-existed");
  before = tu_proxy_stat(&emu, "requests");
  RC(s->ops->remove_many(s, (const char *const *)paths, N, res, &err), 0);
  assert_int_equal(tu_proxy_stat(&emu, "requests") - before, 3);
  for (int i = 0; i < N; i++)
    assert_int_equal(res[i], 0);
  RC(s->ops->list_from(s, "_delta_log", NULL, &e, &n, &err), 0);
  assert_int_equal(n, 1); /* the 25th object was not in the batch */
  assert_string_equal(e[0].name, "00000000000000000024.json");
  inlet_dirents_free(e, n);
  inlet_objstore_test_page_size(0);
  for (int i = 0; i < N; i++)
    free(paths[i]);
  s->ops->free(s);
}

static void test_s3__put_if_absent_race_one_winner(void **state) {
  (void)state;
  sc_check_put_if_absent_race(open_proxy, NULL, "t", 8);
}

static void test_s3__probe_detects_bare_s3rver(void **state) {
  (void)state;
  inlet_storage *bare = open_url("s3://inlet-bare/table", bare_endpoint, NULL);
  inlet_error err = INLET_ERROR_INIT;
  RC(inlet_storage_probe_conditional(bare, "_delta_log", &err), INLET_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "does not enforce conditional creates"));
  assert_non_null(strstr(err.message, "single-writer"));
  assert_false(bare->flags & INLET_STORAGE_CONDITIONAL_VERIFIED);
  /* The probe cleaned up after itself. */
  inlet_dirent *e;
  size_t n;
  RC(bare->ops->list_from(bare, "_delta_log", NULL, &e, &n, &err), 0);
  assert_int_equal(n, 0);
  inlet_dirents_free(e, n);
  /* And bare s3rver does overwrite on a second conditional PUT. */
  RC(bare->ops->put_if_absent_bytes(bare, "k", "one", 3, &err), 0);
  RC(bare->ops->put_if_absent_bytes(bare, "k", "two", 3, &err), 0);
  bare->ops->free(bare);
  /* Through the proxy the probe passes. */
  inlet_storage *s = open_url("s3://inlet-test/probed", endpoint, NULL);
  RC(inlet_storage_probe_conditional(s, "_delta_log", &err), 0);
  assert_true(s->flags & INLET_STORAGE_CONDITIONAL_VERIFIED);
  RC(s->ops->list_from(s, "_delta_log", NULL, &e, &n, &err), 0);
  assert_int_equal(n, 0);
  inlet_dirents_free(e, n);
  s->ops->free(s);
}

static void test_s3__signature_checked_by_the_proxy(void **state) {
  (void)state;
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.aws_access_key_id = "S3RVER";
  o.aws_secret_access_key = "Wrong-Secret-Value-7f3a9c";
  o.aws_session_token = "Session-Token-Value-b81e2d";
  o.max_attempts = 2;
  inlet_storage *s = open_url("s3://inlet-test/sig", endpoint, &o);
  inlet_error err = INLET_ERROR_INIT;
  int rc = s->ops->put_bytes(s, "x", "data", 4, &err);
  assert_int_equal(rc, INLET_EIO);
  assert_non_null(strstr(err.message, "access denied"));
  assert_non_null(strstr(err.message, "SignatureDoesNotMatch"));
  assert_null(strstr(err.message, "Wrong-Secret-Value-7f3a9c"));
  assert_null(strstr(err.message, "Session-Token-Value-b81e2d"));
  uint8_t *b;
  size_t n;
  RC(s->ops->get_bytes(s, "x", 10, &b, &n, &err), INLET_EIO);
  assert_null(strstr(err.message, "Wrong-Secret-Value-7f3a9c"));
  assert_null(strstr(err.message, "Session-Token-Value-b81e2d"));
  s->ops->free(s);
}

static void test_s3__multipart_failure_aborts_and_leaves_nothing(void **state) {
  (void)state;
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.part_size = 128 * 1024;
  o.parts_in_flight = 2;
  o.max_attempts = 3;
  inlet_storage *s = open_url("s3://inlet-test/mpu", endpoint, &o);
  inlet_error err = INLET_ERROR_INIT;
  /* The third part fails on every attempt. */
  tu_proxy_faults(&emu,
                  "[{\"method\":\"PUT\",\"query\":\"partNumber\",\"skip\":2,\"count\":6,"
                  "\"action\":\"500\"}]",
                  0);
  inlet_wfile *w;
  RC(s->ops->create(s, "data/part-1.parquet", &w, &err), 0);
  uint8_t *buf = malloc(1 << 20);
  sc_fill(buf, 1 << 20, 3, 0);
  int rc = 0;
  for (int i = 0; i < 4 && rc == 0; i++)
    rc = inlet_wfile_append(w, buf + i * (256 << 10), 256 << 10, &err);
  if (rc == 0)
    rc = inlet_wfile_close(w, true, &err);
  else
    inlet_wfile_abort(w);
  assert_int_equal(rc, INLET_EIO);
  assert_non_null(strstr(err.message, "HTTP 500"));
  assert_true(tu_proxy_stat(&emu, "injected") >= 3);
  assert_int_equal(tu_proxy_open_uploads(&emu), 0);
  inlet_dirent de;
  RC(s->ops->stat(s, "data/part-1.parquet", &de, &err), INLET_ENOTFOUND);
  /* An explicit abort of a started multipart upload leaves nothing either. */
  tu_proxy_faults(&emu, "[]", 0);
  RC(s->ops->create(s, "data/part-2.parquet", &w, &err), 0);
  RC(inlet_wfile_append(w, buf, 1 << 20, &err), 0);
  assert_true(tu_proxy_open_uploads(&emu) >= 1);
  inlet_wfile_abort(w);
  assert_int_equal(tu_proxy_open_uploads(&emu), 0);
  RC(s->ops->stat(s, "data/part-2.parquet", &de, &err), INLET_ENOTFOUND);
  s->ops->free(s);
  /* Parts retried after transient failures still make the exact object.
   * The six faults go to whichever part PUTs arrive first, and with two
   * parts in flight one part may draw them all: it gets seven attempts,
   * so no order of arrival exhausts its retries (with three, one part
   * drawing three of the six failed the upload now and then). */
  o.max_attempts = 7;
  o.backoff_max_ms = 400;
  s = open_url("s3://inlet-test/mpu", endpoint, &o);
  tu_proxy_faults(&emu,
                  "[{\"method\":\"PUT\",\"query\":\"partNumber\",\"count\":4,\"action\":\"503\"},"
                  "{\"method\":\"PUT\",\"query\":\"partNumber\",\"count\":2,\"action\":\"reset\"}]",
                  0);
  RC(s->ops->create(s, "data/part-3.parquet", &w, &err), 0);
  RC(inlet_wfile_append(w, buf, 1 << 20, &err), 0);
  RC(inlet_wfile_close(w, true, &err), 0);
  assert_int_equal(tu_proxy_stat(&emu, "injected"), 6);
  uint8_t *got;
  size_t n;
  RC(s->ops->get_bytes(s, "data/part-3.parquet", 2 << 20, &got, &n, &err), 0);
  assert_int_equal(n, 1 << 20);
  assert_memory_equal(got, buf, n);
  inlet_free(got);
  assert_int_equal(tu_proxy_open_uploads(&emu), 0);
  free(buf);
  s->ops->free(s);
}

static void test_s3__retries_never_overwrite(void **state) {
  (void)state;
  inlet_storage *s = open_url("s3://inlet-test/retry", endpoint, NULL);
  inlet_error err = INLET_ERROR_INIT;
  uint8_t *got;
  size_t n;
  /* Throttled three times, then created. */
  tu_proxy_faults(&emu,
                  "[{\"method\":\"PUT\",\"count\":2,\"action\":\"503\"},"
                  "{\"method\":\"PUT\",\"count\":1,\"action\":\"429\"}]",
                  0);
  RC(s->ops->put_if_absent_bytes(s, "_delta_log/0.json", "mine-0", 6, &err), 0);
  assert_int_equal(tu_proxy_stat(&emu, "injected"), 3);
  /* The create reached the store but its answer was lost (503 after the
   * fact, then a reset after the fact): the retry sees 412, reads the
   * object back, finds its own bytes and reports success. */
  tu_proxy_faults(&emu, "[{\"method\":\"PUT\",\"count\":1,\"action\":\"503-after\"}]", 0);
  RC(s->ops->put_if_absent_bytes(s, "_delta_log/1.json", "mine-1", 6, &err), 0);
  tu_proxy_faults(&emu, "[{\"method\":\"PUT\",\"count\":1,\"action\":\"reset-after\"}]", 0);
  RC(s->ops->put_if_absent_bytes(s, "_delta_log/2.json", "mine-2", 6, &err), 0);
  RC(s->ops->get_bytes(s, "_delta_log/2.json", 100, &got, &n, &err), 0);
  assert_string_equal((char *)got, "mine-2");
  inlet_free(got);
  /* A competitor's object: retries under 503s and resets end in
   * INLET_EEXISTS and the competitor's bytes stay. */
  RC(s->ops->put_bytes(s, "_delta_log/3.json", "theirs", 6, &err), 0);
  tu_proxy_faults(&emu,
                  "[{\"method\":\"PUT\",\"count\":2,\"action\":\"503\"},"
                  "{\"method\":\"PUT\",\"count\":1,\"action\":\"reset\"}]",
                  0);
  assert_int_equal(s->ops->put_if_absent_bytes(s, "_delta_log/3.json", "mine-3", 6, &err),
                   INLET_EEXISTS);
  RC(s->ops->get_bytes(s, "_delta_log/3.json", 100, &got, &n, &err), 0);
  assert_string_equal((char *)got, "theirs");
  inlet_free(got);
  /* Even when an attempt of ours was lost (maybe applied), a different
   * object present is not taken for ours. */
  tu_proxy_faults(&emu, "[{\"method\":\"PUT\",\"count\":1,\"action\":\"500\"}]", 0);
  assert_int_equal(s->ops->put_if_absent_bytes(s, "_delta_log/3.json", "mine-3", 6, &err),
                   INLET_EEXISTS);
  RC(s->ops->get_bytes(s, "_delta_log/3.json", 100, &got, &n, &err), 0);
  assert_string_equal((char *)got, "theirs");
  inlet_free(got);
  /* Reads retry too. */
  tu_proxy_faults(&emu,
                  "[{\"method\":\"GET\",\"count\":2,\"action\":\"reset\"},"
                  "{\"method\":\"GET\",\"count\":1,\"action\":\"500\"}]",
                  0);
  RC(s->ops->get_bytes(s, "_delta_log/0.json", 100, &got, &n, &err), 0);
  assert_string_equal((char *)got, "mine-0");
  inlet_free(got);
  assert_int_equal(tu_proxy_stat(&emu, "injected"), 3);
  s->ops->free(s);
  /* Retries run out: a clear error, named by method and key only. */
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.max_attempts = 3;
  s = open_url("s3://inlet-test/retry", endpoint, &o);
  tu_proxy_faults(&emu, "[{\"method\":\"PUT\",\"action\":\"503\"}]", 0);
  RC(s->ops->put_if_absent_bytes(s, "_delta_log/9.json", "x", 1, &err), INLET_EIO);
  assert_non_null(strstr(err.message, "PUT s3://inlet-test/retry/_delta_log/9.json"));
  assert_non_null(strstr(err.message, "503"));
  assert_non_null(strstr(err.message, "retries exhausted"));
  assert_int_equal(tu_proxy_stat(&emu, "injected"), 3);
  tu_proxy_faults(&emu, "[]", 0);
  inlet_dirent de;
  RC(s->ops->stat(s, "_delta_log/9.json", &de, &err), INLET_ENOTFOUND);
  s->ops->free(s);
}

static void test_s3__slow_responses_time_out_and_retry(void **state) {
  (void)state;
  inlet_storage_options o = INLET_STORAGE_OPTIONS_INIT;
  o.timeout_ms = 1000;
  inlet_storage *s = open_url("s3://inlet-test/slow", endpoint, &o);
  inlet_error err = INLET_ERROR_INIT;
  RC(s->ops->put_bytes(s, "obj", "slow-bytes", 10, &err), 0);
  tu_proxy_faults(&emu, "[{\"method\":\"GET\",\"count\":1,\"action\":\"slow\",\"delayMs\":3000}]",
                  0);
  uint8_t *got;
  size_t n;
  RC(s->ops->get_bytes(s, "obj", 100, &got, &n, &err), 0);
  assert_string_equal((char *)got, "slow-bytes");
  inlet_free(got);
  assert_int_equal(tu_proxy_stat(&emu, "injected"), 1);
  s->ops->free(s);
}

static void test_s3__reads_in_parallel(void **state) {
  (void)state;
  inlet_storage *s = open_url("s3://inlet-test/par", endpoint, NULL);
  inlet_error err = INLET_ERROR_INIT;
  uint8_t data[4096];
  sc_fill(data, sizeof data, 9, 0);
  RC(s->ops->put_bytes(s, "f", data, sizeof data, &err), 0);
  inlet_rfile *r;
  RC(s->ops->open_read_sized(s, "f", sizeof data, &r, &err), 0);
  enum { K = 16 };
  uint8_t bufs[K][100];
  inlet_read_range rr[K];
  for (int i = 0; i < K; i++)
    rr[i] = (inlet_read_range){i * 200, 100, bufs[i]};
  /* 16 ranges with 300 ms of latency each: in flight together they take
   * far less than 16 x 300 ms. */
  tu_proxy_faults(&emu, "[]", 300);
  int64_t t0 = inlet_http_now_ms();
  RC(r->ops->read_ranges(r, rr, K, &err), 0);
  int64_t dt = inlet_http_now_ms() - t0;
  tu_proxy_faults(&emu, "[]", 0);
  for (int i = 0; i < K; i++)
    assert_memory_equal(bufs[i], data + i * 200, 100);
  print_message("16 ranged GETs with 300 ms latency each took %lld ms\n", (long long)dt);
  assert_true(dt < 16 * 300 / 2);
  inlet_rfile_close(r);
  s->ops->free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_s3__contract, reset_proxy),
      cmocka_unit_test_setup(test_s3__listing_pages_and_batches, reset_proxy),
      cmocka_unit_test_setup(test_s3__put_if_absent_race_one_winner, reset_proxy),
      cmocka_unit_test_setup(test_s3__probe_detects_bare_s3rver, reset_proxy),
      cmocka_unit_test_setup(test_s3__signature_checked_by_the_proxy, reset_proxy),
      cmocka_unit_test_setup(test_s3__multipart_failure_aborts_and_leaves_nothing, reset_proxy),
      cmocka_unit_test_setup(test_s3__retries_never_overwrite, reset_proxy),
      cmocka_unit_test_setup(test_s3__slow_responses_time_out_and_retry, reset_proxy),
      cmocka_unit_test_setup(test_s3__reads_in_parallel, reset_proxy),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
