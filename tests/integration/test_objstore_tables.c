/*
 * Every table command end to end on object stores, driving the real `inlet`
 * binary against the emulators this test starts (tests/support/objstore_env.c):
 * S3 through the checking proxy in front of s3rver (SigV4 verified with the
 * AWS SDK's signer, If-None-Match: * enforced per key), and Azurite.
 *
 * The same steps run on a local directory, on s3://... and on az://...:
 * create, append, ingest from a file (late rows routed to a second table
 * given as a URL too) and from a Redis stream, compaction, checkpoint, time
 * travel by version and by timestamp, vacuum, maintain, restore, scans with
 * partition pruning, describe, history, and scan --output to a URL. The
 * stores' results must equal the local directory's: the command outputs
 * line for line, and the tables themselves, downloaded with the stores' own
 * SDKs (@aws-sdk/client-s3, @azure/storage-blob), read by refcheck row for
 * row (and checked by the suite's Delta rules checker when removed). Also:
 * `demo` on both stores, and the single-writer probe (bare s3rver ignores
 * If-None-Match: refused unless --single-writer; the proxy and Azurite pass).
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "objstore_env.h"

static tu_emulators emu;
static char proxy_ep[64], bare_ep[64];
static char *work; /* inputs and outputs, local */
static int redis_port;
static char redis_pidfile[4200];

static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
      getsockname(fd, (struct sockaddr *)&a, &len) < 0)
    fail_msg("no free port");
  close(fd);
  return ntohs(a.sin_port);
}

/* Runs a shell command; it must exit 0. Returns its stdout (malloc'd). */
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

static void write_text(const char *path, const char *text) {
  assert_int_equal(tu_write_file(path, text, strlen(text)), 0);
}

/* The events: ids from @p first, amounts and days spread, event times
 * increasing a second per row from @p base_s, every 17th row late by an
 * hour. */
static void write_events(const char *path, int first, int n, long base_s) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (int i = 0; i < n; i++) {
    int id = first + i;
    long t = base_s + i - (id % 17 == 0 ? 3600 : 0);
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    char ts[40];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f,
            "{\"id\":%d,\"user\":\"u%d\",\"amount\":%d.%02d,\"ts\":\"%s\","
            "\"day\":\"2024-01-0%d\"}\n",
            id, id % 7, (id * 37) % 100, id % 100, ts, 1 + id % 3);
  }
  fclose(f);
}

static int group_setup(void **state) {
  (void)state;
  tu_emulators_start(&emu, true, true);
  snprintf(proxy_ep, sizeof proxy_ep, "http://127.0.0.1:%d", emu.proxy_port);
  snprintf(bare_ep, sizeof bare_ep, "http://127.0.0.1:%d", emu.s3rver_port);
  unsetenv("AWS_PROFILE");
  unsetenv("AWS_ENDPOINT_URL_S3");
  setenv("AWS_ACCESS_KEY_ID", "S3RVER", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "S3RVER", 1);
  setenv("AWS_REGION", "us-east-1", 1);
  setenv("AWS_ENDPOINT_URL", proxy_ep, 1);
  setenv("AZURE_STORAGE_CONNECTION_STRING", tu_azurite_connection_string(&emu), 1);
  work = strdup(tu_mkdtemp("objstore_tables"));
  /* Inputs shared by every location. */
  char p[4200];
  snprintf(p, sizeof p, "%s/a1.ndjson", work);
  write_events(p, 1, 40, 1704067200);
  snprintf(p, sizeof p, "%s/a2.ndjson", work);
  write_events(p, 1001, 25, 1704070800);
  snprintf(p, sizeof p, "%s/a3.ndjson", work);
  write_events(p, 3001, 15, 1704074400);
  snprintf(p, sizeof p, "%s/events.ndjson", work);
  write_events(p, 2001, 230, 1704078000);
  /* A private redis-server with one stream of 90 entries. */
  redis_port = free_port();
  snprintf(redis_pidfile, sizeof redis_pidfile, "%s/redis.pid", work);
  free(run_ok("redis-server --port %d --bind 127.0.0.1 --save '' --appendonly no "
              "--daemonize yes --pidfile '%s' --dir '%s' >/dev/null",
              redis_port, redis_pidfile, work));
  for (int i = 0; i < 100; i++) {
    tu_result r;
    tu_sh(&r, "redis-cli -p %d PING", redis_port);
    bool up = r.status == 0 && r.out && strstr(r.out, "PONG");
    tu_result_free(&r);
    if (up) break;
    usleep(100000);
  }
  char cmds[4200];
  snprintf(cmds, sizeof cmds, "%s/redis.txt", work);
  FILE *f = fopen(cmds, "w");
  for (int i = 0; i < 90; i++)
    fprintf(f,
            "XADD ev * data "
            "\"{\\\"id\\\":%d,\\\"user\\\":\\\"r%d\\\",\\\"amount\\\":%d.5,"
            "\\\"ts\\\":\\\"2024-01-02T10:%02d:00Z\\\",\\\"day\\\":\\\"2024-01-02\\\"}\"\n",
            5001 + i, i % 5, i, i % 60);
  fclose(f);
  free(run_ok("redis-cli -p %d < '%s' >/dev/null", redis_port, cmds));
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  char *pid = tu_read_file(redis_pidfile, NULL);
  if (pid) {
    kill((pid_t)atoi(pid), SIGTERM);
    free(pid);
  }
  tu_emulators_stop(&emu);
  tu_rmtree(work);
  free(work);
  return 0;
}

/* ---- the scenario ------------------------------------------------------- */

typedef struct outputs {
  char *latest, *v3, *asof, *explain_files, *selective, *late, *vacuum_count, *history_ops,
      *describe, *compact, *ingest_file, *ingest_redis, *restore_refused, *restore, *restored;
} outputs;

static void outputs_free(outputs *o) {
  free(o->latest);
  free(o->v3);
  free(o->asof);
  free(o->explain_files);
  free(o->selective);
  free(o->late);
  free(o->vacuum_count);
  free(o->history_ops);
  free(o->describe);
  free(o->compact);
  free(o->ingest_file);
  free(o->ingest_redis);
  free(o->restore_refused);
  free(o->restore);
  free(o->restored);
}

/* The describe fields that do not depend on where or when the table lives. */
static char *describe_fields(const char *json_text) {
  json_error_t je;
  json_t *d = json_loads(json_text, 0, &je);
  if (!d) fail_msg("describe --json is not JSON: %s\n%s", je.text, json_text);
  char buf[1024];
  snprintf(buf, sizeof buf,
           "version=%lld commits=%lld compactions=%lld files=%lld rows=%lld partitions=%lld "
           "last_checkpoint=%lld checksum=%s",
           (long long)json_integer_value(json_object_get(d, "version")),
           (long long)json_integer_value(json_object_get(d, "commits")),
           (long long)json_integer_value(json_object_get(d, "compactions")),
           (long long)json_integer_value(json_object_get(d, "files")),
           (long long)json_integer_value(json_object_get(d, "rows")),
           (long long)json_integer_value(json_object_get(d, "partitions")),
           (long long)json_integer_value(json_object_get(d, "last_checkpoint")),
           json_string_value(json_object_get(d, "checksum")));
  json_decref(d);
  return strdup(buf);
}

/* The timestamp of @p version in `history --json`, as milliseconds. */
static long long version_ts(const char *table, int version) {
  char *h = run_ok("'%s' history '%s' --json", INLET_BIN, table);
  json_error_t je;
  json_t *doc = json_loads(h, 0, &je);
  if (!doc) fail_msg("history --json is not JSON: %s", je.text);
  json_t *a = json_object_get(doc, "commits");
  long long ts = -1;
  size_t i;
  json_t *e;
  json_array_foreach(a, i, e) {
    if (json_integer_value(json_object_get(e, "version")) == version)
      ts = (long long)json_integer_value(json_object_get(e, "timestamp"));
  }
  json_decref(doc);
  free(h);
  assert_true(ts > 0);
  return ts;
}

/* The fields of `ingest --json` progress that do not depend on timing. */
#define PROGRESS_FIELDS                                                                            \
  "grep -o "                                                                                       \
  "'\"\\(event\\|batches\\|rows\\|late_rows\\|dropped_rows\\|routed_rows\\|rejected\\|bytes\\|"    \
  "version\\|batch_rows\\)\":[0-9a-z\"]*'"

/* Runs every command on table @p t (late rows to @p tl), the same way
 * whatever the location; @p out_loc receives scan --output. */
static void scenario(const char *t, const char *tl, const char *out_loc, outputs *o) {
  const char *I = INLET_BIN;
  const char *schema = "id long not null, user string, amount double, ts timestamp, day date";
  free(run_ok("'%s' create '%s' --schema '%s' --partition-by day "
              "--property delta.checkpointInterval=5",
              I, t, schema));
  free(run_ok("'%s' create '%s' --schema '%s'", I, tl, schema));
  free(run_ok("'%s' append '%s' '%s/a1.ndjson'", I, t, work));
  free(run_ok("'%s' append '%s' '%s/a2.ndjson'", I, t, work));
  /* Version 3: a file ingested in batches of 40 (automatic Parquet
   * checkpoints every 5 versions), late rows routed to the second table. */
  o->ingest_file = run_ok("'%s' ingest '%s' --source 'file:%s/events.ndjson' --once --final "
                          "--max-rows 40 --event-time ts --allowed-lateness 1m "
                          "--late-policy 'route:%s' --json --quiet | %s",
                          I, t, work, tl, PROGRESS_FIELDS);
  o->ingest_redis = run_ok("'%s' ingest '%s' --source redis://127.0.0.1:%d/ev --once "
                           "--max-rows 30 --app-id redis-ev --json --quiet | %s",
                           I, t, redis_port, PROGRESS_FIELDS);
  o->v3 = run_ok("'%s' scan '%s' --version 3 | sort", I, t);
  long long ts3 = version_ts(t, 3);
  o->asof = run_ok("'%s' scan '%s' --as-of %lld | sort", I, t, ts3);
  o->compact = run_ok("'%s' compact '%s' --min-files 2 | grep -c '^compacted' || true", I, t);
  char *cp = run_ok("'%s' checkpoint '%s'", I, t);
  assert_non_null(strstr(cp, "checkpoint"));
  free(cp);
  o->vacuum_count =
      run_ok("'%s' vacuum '%s' --retain 0s --force | grep -c '^deleted ' || true", I, t);
  free(run_ok("'%s' append '%s' '%s/a3.ndjson'", I, t, work));
  char *d3 = run_ok("'%s' describe '%s' --json", I, t);
  json_t *dj = json_loads(d3, 0, NULL);
  assert_non_null(dj);
  long long before_maintain = (long long)json_integer_value(json_object_get(dj, "version"));
  json_decref(dj);
  free(d3);
  free(run_ok("'%s' maintain '%s' --compact --min-files 2", I, t));
  o->latest = run_ok("'%s' scan '%s' | sort", I, t);
  o->explain_files = run_ok("'%s' scan '%s' --where \"day = '2024-01-02'\" --explain | "
                            "grep '^files:'",
                            I, t);
  o->selective = run_ok("'%s' scan '%s' --where \"day = '2024-01-03' AND amount > 50\" "
                        "--columns id,amount --format csv | sort",
                        I, t);
  o->late = run_ok("'%s' scan '%s' | sort", I, tl);
  o->history_ops = run_ok("'%s' history '%s' --json | grep -o '\"operation\":\"[A-Z ]*\"'", I, t);
  char *d = run_ok("'%s' describe '%s' --json", I, t);
  o->describe = describe_fields(d);
  free(d);
  free(run_ok("'%s' scan '%s' --format parquet --output '%s'", I, t, out_loc));
  /* Restore: version 3's files were vacuumed (refused, exit 3); the version
   * before maintain's compaction comes back with the same rows. */
  o->restore_refused = run_ok("'%s' restore '%s' --version 3 >/dev/null 2>&1; echo exit=$?", I, t);
  o->restore = run_ok("'%s' restore '%s' --version %lld --json | grep -o "
                      "'\"\\(files_restored\\|files_removed\\|files_after\\|"
                      "metadata_restored\\)\":[0-9a-z]*'",
                      I, t, before_maintain);
  o->restored = run_ok("'%s' scan '%s' | sort", I, t);
}

/* Downloads everything below @p prefix of the store (@p kind "s3" or
 * "az") into @p dest with the store's own SDK. */
static void download(const char *kind, const char *prefix, const char *dest) {
  char *n = run_ok(
      "'%s' '%s/download.mjs' %s '%s' inlet-test '%s' '%s'", INLET_NODE, INLET_OBJSTORE_DIR, kind,
      strcmp(kind, "s3") == 0 ? proxy_ep : tu_azurite_connection_string(&emu), prefix, dest);
  assert_true(atoi(n) > 0);
  free(n);
}

static char *refcheck(const char *what, const char *path) {
  return run_ok("'%s' '%s' %s '%s'%s", INLET_NODE, INLET_REFCHECK, what, path,
                strcmp(what, "parquet") == 0 ? " --sorted" : "");
}

static void check_equal(const char *what, const char *local, const char *store) {
  if (strcmp(local, store) != 0)
    fail_msg("%s differs\n--- local:\n%.3000s\n--- store:\n%.3000s", what, local, store);
}

static void same_as_local(const char *kind) {
  char *dir = strdup(tu_mkdtemp(kind));
  char lt[4200], ltl[4200], lout[4200], st[256], stl[256], sout[256], dl[4200];
  snprintf(lt, sizeof lt, "%s/local/t", dir);
  snprintf(ltl, sizeof ltl, "%s/local/late", dir);
  snprintf(lout, sizeof lout, "%s/local/out.parquet", dir);
  free(run_ok("mkdir -p '%s/local'", dir));
  snprintf(st, sizeof st, "%s://inlet-test/e2e/t", kind);
  snprintf(stl, sizeof stl, "%s://inlet-test/e2e/late", kind);
  snprintf(sout, sizeof sout, "%s://inlet-test/e2e/out/rows.parquet", kind);
  outputs lo, so;
  memset(&lo, 0, sizeof lo);
  memset(&so, 0, sizeof so);
  scenario(lt, ltl, lout, &lo);
  scenario(st, stl, sout, &so);

  /* The commands' outputs agree. */
  check_equal("ingest file progress", lo.ingest_file, so.ingest_file);
  check_equal("ingest redis progress", lo.ingest_redis, so.ingest_redis);
  check_equal("scan --version 3", lo.v3, so.v3);
  check_equal("scan --as-of (version 3's timestamp)", lo.asof, so.asof);
  check_equal("scan --as-of vs --version", so.v3, so.asof);
  check_equal("compacted partitions", lo.compact, so.compact);
  check_equal("vacuum count", lo.vacuum_count, so.vacuum_count);
  check_equal("scan latest", lo.latest, so.latest);
  check_equal("explain", lo.explain_files, so.explain_files);
  check_equal("selective scan", lo.selective, so.selective);
  check_equal("late table", lo.late, so.late);
  check_equal("history", lo.history_ops, so.history_ops);
  check_equal("restore refused", lo.restore_refused, so.restore_refused);
  assert_string_equal(so.restore_refused, "exit=3\n");
  check_equal("restore", lo.restore, so.restore);
  check_equal("rows after restore", so.latest, so.restored);
  check_equal("rows after restore (local)", lo.latest, lo.restored);
  assert_null(strstr(so.restore, "\"files_restored\":0\n"));
  assert_null(strstr(so.restore, "\"files_removed\":0\n"));
  /* Version checksums (.crc, optional in Delta) are written on local disks
   * only: on an object store each would cost a PUT per commit
   * (docs/STORAGE.md). Everything else describe says agrees. */
  char *lck = strstr(lo.describe, " checksum="), *sck = strstr(so.describe, " checksum=");
  assert_non_null(lck);
  assert_non_null(sck);
  assert_string_equal(lck, " checksum=ok");
  assert_string_equal(sck, " checksum=absent");
  *lck = *sck = '\0';
  check_equal("describe", lo.describe, so.describe);
  /* Evidence that the steps did what they say (not just agree). */
  int considered = 0, pruned = 0;
  assert_int_equal(
      sscanf(so.explain_files, "files: %d considered, %d pruned", &considered, &pruned), 2);
  assert_true(pruned >= 2 && pruned < considered);
  assert_true(atoi(so.compact) >= 1);
  assert_true(atoi(so.vacuum_count) >= 1);
  assert_non_null(strstr(so.history_ops, "OPTIMIZE"));
  assert_non_null(strstr(so.history_ops, "STREAMING UPDATE"));
  int rows = 0;
  for (const char *p = so.latest; (p = strchr(p, '\n')); p++)
    rows++;
  assert_int_equal(rows, 40 + 25 + 15 + 230 + 90 - 14); /* 14 late rows routed */
  int late = 0;
  for (const char *p = so.late; (p = strchr(p, '\n')); p++)
    late++;
  assert_int_equal(late, 14);

  /* The tables and the output file themselves, downloaded with the store's
   * SDK, read by refcheck: the same rows as the local ones. */
  snprintf(dl, sizeof dl, "%s/downloaded", dir);
  download(kind, "e2e/t", dl);
  char *a = refcheck("delta", lt), *b = refcheck("delta", dl);
  check_equal("refcheck delta (table)", a, b);
  free(a);
  free(b);
  snprintf(dl, sizeof dl, "%s/downloaded-late", dir);
  download(kind, "e2e/late", dl);
  a = refcheck("delta", ltl);
  b = refcheck("delta", dl);
  check_equal("refcheck delta (late table)", a, b);
  free(a);
  free(b);
  snprintf(dl, sizeof dl, "%s/downloaded-out", dir);
  download(kind, "e2e/out", dl);
  char dlf[4300];
  snprintf(dlf, sizeof dlf, "%s/rows.parquet", dl);
  a = refcheck("parquet", lout);
  b = refcheck("parquet", dlf);
  check_equal("refcheck parquet (scan --output)", a, b);
  free(a);
  free(b);
  outputs_free(&lo);
  outputs_free(&so);
  tu_rmtree(dir);
  free(dir);
}

static void test_tables__s3_same_as_local(void **state) {
  (void)state;
  same_as_local("s3");
}

static void test_tables__azure_same_as_local(void **state) {
  (void)state;
  same_as_local("az");
}

static void demo_on(const char *url) {
  char *out = run_ok("'%s' demo '%s'", INLET_BIN, url);
  assert_non_null(strstr(out, "demo OK"));
  free(out);
  /* A second run does not replace objects: refused, naming the table. */
  tu_result r;
  tu_sh(&r, "'%s' demo '%s'", INLET_BIN, url);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "already holds a table"));
  tu_result_free(&r);
}

static void test_tables__demo_on_both_stores(void **state) {
  (void)state;
  demo_on("s3://inlet-test/demo");
  demo_on("az://inlet-test/demo");
}

/* Bare s3rver ignores If-None-Match: the probe before the first commit
 * finds it and every writing command refuses, naming the reason, unless
 * --single-writer; nothing of the probe is left in _delta_log. */
static void test_tables__single_writer_probe(void **state) {
  (void)state;
  const char *I = INLET_BIN;
  tu_result r;
  tu_sh(&r, "AWS_ENDPOINT_URL=%s '%s' create s3://inlet-bare/sw --schema 'id long'", bare_ep, I);
  assert_int_equal(r.status, 6); /* exit code 6: unsupported */
  assert_non_null(strstr(r.err, "If-None-Match"));
  assert_non_null(strstr(r.err, "--single-writer"));
  assert_null(strstr(r.err, "S3RVER")); /* no secret (the key id doubles as secret here) */
  tu_result_free(&r);
  free(run_ok("AWS_ENDPOINT_URL=%s '%s' create s3://inlet-bare/sw --schema 'id long' "
              "--single-writer",
              bare_ep, I));
  char in[4200];
  snprintf(in, sizeof in, "%s/sw.ndjson", work);
  write_text(in, "{\"id\":1}\n{\"id\":2}\n");
  tu_sh(&r, "AWS_ENDPOINT_URL=%s '%s' append s3://inlet-bare/sw '%s'", bare_ep, I, in);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "If-None-Match"));
  tu_result_free(&r);
  free(run_ok("AWS_ENDPOINT_URL=%s '%s' append s3://inlet-bare/sw '%s' --single-writer", bare_ep, I,
              in));
  free(run_ok("AWS_ENDPOINT_URL=%s '%s' compact s3://inlet-bare/sw --single-writer", bare_ep, I));
  char *rows = run_ok("AWS_ENDPOINT_URL=%s '%s' scan s3://inlet-bare/sw | wc -l", bare_ep, I);
  assert_int_equal(atoi(rows), 2);
  free(rows);
  /* The probe's temporary keys are gone: only commits in the log. */
  char *dl = strdup(tu_mkdtemp("bare_log"));
  char *n = run_ok("'%s' '%s/download.mjs' s3 '%s' inlet-bare sw '%s' && ls -A '%s/_delta_log'",
                   INLET_NODE, INLET_OBJSTORE_DIR, bare_ep, dl, dl);
  char *line = strchr(n, '\n');
  assert_non_null(line);
  /* Every entry is a commit (create, append, and compaction's if any), nothing
   * else: no checksum either (none on object stores). */
  int entries = 0;
  for (char *p = line + 1; *p; entries++) {
    char *e = strchr(p, '\n');
    assert_non_null(e);
    *e = '\0';
    size_t len = strlen(p);
    if (!(len == 25 && strcmp(p + 20, ".json") == 0))
      fail_msg("unexpected entry in _delta_log: %s", p);
    p = e + 1;
  }
  assert_true(entries >= 2);
  free(n);
  tu_rmtree(dl);
  free(dl);
  /* The proxy (If-None-Match enforced) and Azurite pass the probe: no flag
   * needed (every other test here commits without it). */
  free(run_ok("'%s' create s3://inlet-test/probe-ok --schema 'id long'", I));
  free(run_ok("'%s' create az://inlet-test/probe-ok --schema 'id long'", I));
}

/* The other location forms: abfss://container@account.dfs.core.windows.net
 * is the same blob as az://container, and file:///abs/path a local table. */
static void test_tables__abfss_and_file_urls(void **state) {
  (void)state;
  const char *I = INLET_BIN;
  char in[4200];
  snprintf(in, sizeof in, "%s/one.ndjson", work);
  write_text(in, "{\"id\":5}\n");
  const char *abfss = "abfss://inlet-test@devstoreaccount1.dfs.core.windows.net/forms/t";
  free(run_ok("'%s' create '%s' --schema 'id long'", I, abfss));
  free(run_ok("'%s' append '%s' '%s'", I, abfss, in));
  char *rows = run_ok("'%s' scan az://inlet-test/forms/t", I);
  assert_string_equal(rows, "{\"id\":5}\n");
  free(rows);
  char *dir = strdup(tu_mkdtemp("file_url"));
  char url[4300];
  snprintf(url, sizeof url, "file://%s/t", dir);
  free(run_ok("'%s' create '%s' --schema 'id long'", I, url));
  free(run_ok("'%s' append '%s' '%s'", I, url, in));
  rows = run_ok("'%s' scan '%s/t'", I, dir);
  assert_string_equal(rows, "{\"id\":5}\n");
  free(rows);
  tu_rmtree(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tables__single_writer_probe),
      cmocka_unit_test(test_tables__s3_same_as_local),
      cmocka_unit_test(test_tables__azure_same_as_local),
      cmocka_unit_test(test_tables__demo_on_both_stores),
      cmocka_unit_test(test_tables__abfss_and_file_urls),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
