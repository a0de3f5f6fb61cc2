/*
 * Concurrent writers and faults on object stores, with the real `inlet`
 * binary against the emulators this test starts (S3 through the checking
 * proxy that enforces If-None-Match: * and verifies SigV4; Azurite):
 *
 *   - 8 processes x 10 appends racing on one table, on each store: 80
 *     commits, versions 0..80 each present once, every row present once;
 *   - 2 ingesters and a compactor racing on one Azurite table: every record
 *     exactly once;
 *   - the proxy injecting 500 / 503 / slow answers / connection resets
 *     (before and after s3rver applied the request) at random requests during
 *     ingest and compaction: runs that fail are rerun, and the table ends
 *     consistent with every record exactly once;
 *   - kill -9 during a multipart upload of a data file: the table does not
 *     move and no partial object becomes part of it.
 * Every table is then downloaded with the store's own SDK and checked by
 * refcheck and the suite's Delta rules checker.
 */
#include "testutil.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "objstore_env.h"

static tu_emulators emu;
static char proxy_ep[64];
static char *work;

static char *run_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *run_ok(const char *fmt, ...) {
  char cmd[16384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  tu_result r;
  tu_sh(&r, "%s", cmd);
  if (r.status != 0)
    fail_msg("`%s` exited %d\nstdout: %s\nstderr: %s", cmd, r.status, r.out, r.err);
  char *out = strdup(r.out ? r.out : "");
  tu_result_free(&r);
  return out;
}

static int group_setup(void **state) {
  (void)state;
  tu_emulators_start(&emu, true, true);
  snprintf(proxy_ep, sizeof proxy_ep, "http://127.0.0.1:%d", emu.proxy_port);
  unsetenv("AWS_PROFILE");
  unsetenv("AWS_ENDPOINT_URL_S3");
  setenv("AWS_ACCESS_KEY_ID", "S3RVER", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "S3RVER", 1);
  setenv("AWS_REGION", "us-east-1", 1);
  setenv("AWS_ENDPOINT_URL", proxy_ep, 1);
  setenv("AZURE_STORAGE_CONNECTION_STRING", tu_azurite_connection_string(&emu), 1);
  work = strdup(tu_mkdtemp("objstore_concurrency"));
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  tu_emulators_stop(&emu);
  tu_rmtree(work);
  free(work);
  return 0;
}

static int reset_proxy(void **state) {
  (void)state;
  assert_int_equal(tu_proxy_ctl(&emu, "POST", "/__proxy/reset", "{}", NULL), 200);
  return 0;
}

/* Downloads the table below @p prefix with the store's SDK into a scratch
 * directory (checked by the Delta rules checker when removed) and returns
 * refcheck's canonical rows of it. */
static char *download_and_read(const char *kind, const char *prefix) {
  char *dir = strdup(tu_mkdtemp("download"));
  free(run_ok("'%s' '%s/download.mjs' %s '%s' inlet-test '%s' '%s'", INLET_NODE, INLET_OBJSTORE_DIR,
              kind, strcmp(kind, "s3") == 0 ? proxy_ep : tu_azurite_connection_string(&emu), prefix,
              dir));
  char *rows = run_ok("'%s' '%s' delta '%s'", INLET_NODE, INLET_REFCHECK, dir);
  tu_rmtree(dir);
  free(dir);
  return rows;
}

/* The versions of `history --json`, ascending, as "0,1,2,...". */
static void check_versions(const char *table, int last) {
  char *h = run_ok("'%s' history '%s' --json", INLET_BIN, table);
  json_error_t je;
  json_t *doc = json_loads(h, 0, &je);
  if (!doc) fail_msg("history --json: %s", je.text);
  json_t *a = json_object_get(doc, "commits");
  assert_int_equal(json_array_size(a), (size_t)last + 1);
  /* Newest first, each version once. */
  for (size_t i = 0; i < json_array_size(a); i++)
    assert_int_equal(json_integer_value(json_object_get(json_array_get(a, i), "version")),
                     last - (int)i);
  json_decref(doc);
  free(h);
}

/* Counts the rows of `inlet scan` per key "(a,b)" and checks each of
 * @p want distinct keys appears exactly once. */
static void check_rows_once(const char *table, const char *cols, int want) {
  char *dups = run_ok("'%s' scan '%s' --columns %s --format csv | tail -n +2 | sort | uniq -d | "
                      "wc -l",
                      INLET_BIN, table, cols);
  assert_int_equal(atoi(dups), 0);
  free(dups);
  char *n = run_ok("'%s' scan '%s' --columns %s --format csv | tail -n +2 | wc -l", INLET_BIN,
                   table, cols);
  assert_int_equal(atoi(n), want);
  free(n);
}

/* ---- 8 x 10 racing appends ------------------------------------------------ */

static void racing_appends(const char *kind) {
  enum { PROCS = 8, APPENDS = 10, ROWS = 3 };
  char table[128];
  snprintf(table, sizeof table, "%s://inlet-test/race/t", kind);
  free(run_ok("'%s' create '%s' --schema 'p long not null, i long not null, k long not null'",
              INLET_BIN, table));
  for (int p = 0; p < PROCS; p++)
    for (int i = 0; i < APPENDS; i++) {
      char path[4200];
      snprintf(path, sizeof path, "%s/%s-%d-%d.ndjson", work, kind, p, i);
      FILE *f = fopen(path, "w");
      for (int k = 0; k < ROWS; k++)
        fprintf(f, "{\"p\":%d,\"i\":%d,\"k\":%d}\n", p, i, k);
      fclose(f);
    }
  pid_t pids[PROCS];
  for (int p = 0; p < PROCS; p++) {
    pids[p] = fork();
    assert_true(pids[p] >= 0);
    if (pids[p] == 0) {
      int failed = 0;
      for (int i = 0; i < APPENDS; i++) {
        char cmd[9000];
        snprintf(cmd, sizeof cmd, "'%s' append '%s' '%s/%s-%d-%d.ndjson' >/dev/null", INLET_BIN,
                 table, work, kind, p, i);
        if (system(cmd) != 0) failed++;
      }
      _exit(failed);
    }
  }
  for (int p = 0; p < PROCS; p++) {
    int st = 0;
    assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
  }
  check_versions(table, PROCS * APPENDS);
  check_rows_once(table, "p,i,k", PROCS * APPENDS * ROWS);
  /* The same through the store's SDK and refcheck. */
  char *rows = download_and_read(kind, "race/t");
  json_t *j = json_loads(rows, 0, NULL);
  assert_non_null(j);
  assert_int_equal(json_array_size(json_object_get(j, "rows")), PROCS * APPENDS * ROWS);
  assert_int_equal(json_integer_value(json_object_get(j, "version")), PROCS * APPENDS);
  json_decref(j);
  free(rows);
}

static void test_concurrency__s3_racing_appends(void **state) {
  (void)state;
  racing_appends("s3");
}

static void test_concurrency__azure_racing_appends(void **state) {
  (void)state;
  racing_appends("az");
}

/* ---- ingesters and a compactor --------------------------------------------- */

static void write_source(const char *path, int src, int n) {
  FILE *f = fopen(path, "w");
  for (int i = 0; i < n; i++)
    fprintf(f, "{\"src\":%d,\"id\":%d,\"day\":\"2024-01-0%d\"}\n", src, i, 1 + i % 3);
  fclose(f);
}

static pid_t spawn_sh(const char *cmd) {
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  return pid;
}

static int wait_status(pid_t pid) {
  int st = 0;
  if (waitpid(pid, &st, 0) != pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_concurrency__azure_two_ingesters_and_compactor(void **state) {
  (void)state;
  enum { N = 600 };
  const char *table = "az://inlet-test/ingest2/t";
  free(run_ok("'%s' create '%s' --schema 'src long not null, id long not null, day date' "
              "--partition-by day",
              INLET_BIN, table));
  char a[4200], b[4200], cmd[3][9000];
  snprintf(a, sizeof a, "%s/src-a.ndjson", work);
  snprintf(b, sizeof b, "%s/src-b.ndjson", work);
  write_source(a, 1, N);
  write_source(b, 2, N);
  snprintf(cmd[0], sizeof cmd[0],
           "'%s' ingest '%s' --source 'file:%s' --once --final --max-rows 25 --app-id a --quiet",
           INLET_BIN, table, a);
  snprintf(cmd[1], sizeof cmd[1],
           "'%s' ingest '%s' --source 'file:%s' --once --final --max-rows 25 --app-id b --quiet",
           INLET_BIN, table, b);
  /* The compactor runs until both ingesters are done. */
  snprintf(cmd[2], sizeof cmd[2],
           "while [ ! -e '%s/ingest-done' ]; do '%s' compact '%s' --min-files 3 >/dev/null || "
           "exit 1; done",
           work, INLET_BIN, table);
  pid_t ing1 = spawn_sh(cmd[0]), ing2 = spawn_sh(cmd[1]), comp = spawn_sh(cmd[2]);
  assert_int_equal(wait_status(ing1), 0);
  assert_int_equal(wait_status(ing2), 0);
  char done[4300];
  snprintf(done, sizeof done, "%s/ingest-done", work);
  assert_int_equal(tu_write_file(done, "", 0), 0);
  assert_int_equal(wait_status(comp), 0);
  free(run_ok("'%s' compact '%s' --min-files 2", INLET_BIN, table));
  check_rows_once(table, "src,id", 2 * N);
  char *ops = run_ok("'%s' history '%s' | grep -c OPTIMIZE || true", INLET_BIN, table);
  assert_true(atoi(ops) >= 1);
  free(ops);
  char *rows = download_and_read("az", "ingest2/t");
  json_t *j = json_loads(rows, 0, NULL);
  assert_non_null(j);
  assert_int_equal(json_array_size(json_object_get(j, "rows")), 2 * N);
  json_decref(j);
  free(rows);
}

/* ---- faults ------------------------------------------------------------------ */

/* Runs @p cmd until it exits 0 (a run may fail when a fault outlasts the
 * retries; the next one resumes from the table), at most @p tries times. */
static void run_until_ok(const char *cmd, int tries) {
  for (int t = 0; t < tries; t++) {
    tu_result r;
    tu_sh(&r, "%s", cmd);
    int st = r.status;
    if (st != 0) print_message("run %d failed (%d): %.300s\n", t + 1, st, r.err);
    tu_result_free(&r);
    if (st == 0) return;
  }
  fail_msg("`%s` did not succeed in %d runs", cmd, tries);
}

static void test_concurrency__s3_faults_during_ingest_and_compaction(void **state) {
  (void)state;
  enum { N = 800 };
  const char *table = "s3://inlet-test/faults/t";
  free(run_ok("'%s' create '%s' --schema 'src long not null, id long not null, day date' "
              "--partition-by day --property delta.checkpointInterval=4",
              INLET_BIN, table));
  char src[4200], cmd[9000];
  snprintf(src, sizeof src, "%s/faults.ndjson", work);
  write_source(src, 7, N);
  /* Random requests fail: 500, 503, reset before s3rver sees them; 503 or
   * reset after it applied them (a lost answer); slow answers. */
  tu_proxy_faults(&emu,
                  "[{\"action\":\"500\",\"probability\":0.04},"
                  "{\"action\":\"503\",\"probability\":0.04},"
                  "{\"action\":\"reset\",\"probability\":0.03},"
                  "{\"action\":\"503-after\",\"probability\":0.03},"
                  "{\"action\":\"reset-after\",\"probability\":0.03},"
                  "{\"action\":\"slow\",\"probability\":0.03,\"delayMs\":300}]",
                  0);
  snprintf(cmd, sizeof cmd,
           "'%s' ingest '%s' --source 'file:%s' --once --final --max-rows 40 --app-id f --quiet",
           INLET_BIN, table, src);
  run_until_ok(cmd, 20);
  snprintf(cmd, sizeof cmd, "'%s' compact '%s' --min-files 2", INLET_BIN, table);
  run_until_ok(cmd, 20);
  long injected = tu_proxy_stat(&emu, "injected");
  print_message("faults injected: %ld\n", injected);
  assert_true(injected > 0);
  tu_proxy_faults(&emu, "[]", 0);
  check_rows_once(table, "src,id", N);
  char *ops = run_ok("'%s' history '%s' | grep -c OPTIMIZE || true", INLET_BIN, table);
  assert_true(atoi(ops) >= 1);
  free(ops);
  char *rows = download_and_read("s3", "faults/t");
  json_t *j = json_loads(rows, 0, NULL);
  assert_non_null(j);
  assert_int_equal(json_array_size(json_object_get(j, "rows")), N);
  json_decref(j);
  free(rows);
}

/* ---- kill -9 during a multipart upload ----------------------------------------- */

static void test_concurrency__s3_kill_during_multipart_upload(void **state) {
  (void)state;
  const char *table = "s3://inlet-test/kill/t";
  free(run_ok("'%s' create '%s' --schema 's string not null, i long not null'", INLET_BIN, table));
  /* Random strings do not compress: a data file well above the 8 MiB part
   * size, so it is uploaded in parts. */
  char big[4200];
  snprintf(big, sizeof big, "%s/big.ndjson", work);
  FILE *f = fopen(big, "w");
  unsigned seed = 7;
  for (int i = 0; i < 250000; i++) {
    char s[65];
    for (int k = 0; k < 64; k++)
      s[k] = (char)('a' + rand_r(&seed) % 26);
    s[64] = '\0';
    fprintf(f, "{\"s\":\"%s\",\"i\":%d}\n", s, i);
  }
  fclose(f);
  /* Parts are slow, so the upload is still open when the kill lands. */
  tu_proxy_faults(&emu,
                  "[{\"method\":\"PUT\",\"query\":\"partNumber\",\"action\":\"slow\","
                  "\"delayMs\":4000,\"count\":1000}]",
                  0);
  char cmd[9000];
  snprintf(cmd, sizeof cmd, "exec '%s' append '%s' '%s' >/dev/null 2>&1", INLET_BIN, table, big);
  pid_t pid = spawn_sh(cmd);
  bool open_seen = false;
  for (int i = 0; i < 1200 && !open_seen; i++) {
    open_seen = tu_proxy_open_uploads(&emu) > 0;
    if (!open_seen) usleep(100000);
  }
  assert_true(open_seen);
  kill(pid, SIGKILL);
  assert_int_equal(wait_status(pid), 128 + SIGKILL);
  tu_proxy_faults(&emu, "[]", 0);
  /* The table did not move: version 0, no file; what is there reads whole. */
  char *v = run_ok("'%s' describe '%s' --json", INLET_BIN, table);
  json_t *d = json_loads(v, 0, NULL);
  assert_non_null(d);
  assert_int_equal(json_integer_value(json_object_get(d, "version")), 0);
  assert_int_equal(json_integer_value(json_object_get(d, "files")), 0);
  json_decref(d);
  free(v);
  /* No object of the killed upload exists (only an open multipart upload,
   * which is not an object); the table still takes appends. */
  char *dir = strdup(tu_mkdtemp("kill_download"));
  char *n = run_ok("'%s' '%s/download.mjs' s3 '%s' inlet-test kill/t '%s' && "
                   "find '%s' -name '*.parquet' | wc -l",
                   INLET_NODE, INLET_OBJSTORE_DIR, proxy_ep, dir, dir);
  char *nl = strchr(n, '\n');
  assert_non_null(nl);
  assert_int_equal(atoi(nl + 1), 0);
  free(n);
  tu_rmtree(dir);
  free(dir);
  char small[4200];
  snprintf(small, sizeof small, "%s/small.ndjson", work);
  const char *one = "{\"s\":\"x\",\"i\":1}\n";
  assert_int_equal(tu_write_file(small, one, strlen(one)), 0);
  free(run_ok("'%s' append '%s' '%s'", INLET_BIN, table, small));
  check_rows_once(table, "s,i", 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_concurrency__s3_racing_appends, reset_proxy),
      cmocka_unit_test_setup(test_concurrency__azure_racing_appends, reset_proxy),
      cmocka_unit_test_setup(test_concurrency__azure_two_ingesters_and_compactor, reset_proxy),
      cmocka_unit_test_setup(test_concurrency__s3_faults_during_ingest_and_compaction, reset_proxy),
      cmocka_unit_test_setup(test_concurrency__s3_kill_during_multipart_upload, reset_proxy),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
