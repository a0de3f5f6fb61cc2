/*
 * `inlet ingest` from Redis Streams against a private redis-server started by
 * the test on a free loopback port (the test is self-contained; it fails
 * when redis-server is not installed):
 *   - entries with a "data" field and field/value entries, bad ones to
 *     _errors/, position = entry id in the txn actions;
 *   - kill -9 at random moments (>= 5 landed), restarts, then every event
 *     exactly once (count, distinct ids, checksum) and bad entries once;
 *   - a blocking (non --once) ingester picks up new entries, survives a
 *     Redis restart, and stops on SIGINT with exit 0;
 *   - issue 12: a stream trimmed (or XDELeted) past the position stops the
 *     run naming the gap, --allow-gaps skips it and records it in commitInfo,
 *     trimming what was read is no gap; a following ingester waits through
 *     a restart with LOADING (a real RDB load slowed by key-load-delay),
 *     --once waits for a restarting server, an authentication error is fatal;
 *   - issue 11 §5: localhost / 127.0.0.1 / other spellings are one progress
 *     record, a second server's stream of the same name is refused without
 *     --app-id, progress recorded under an older version's id is kept.
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ingest_support.h"

typedef struct rfx {
  pid_t server;
  int port;
  char dir[400];
  char table[512];
  char source[128];
  redisContext *c;
} rfx;

static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
      getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
    close(fd);
    return -1;
  }
  int port = ntohs(a.sin_port);
  close(fd);
  return port;
}

static int start_server(rfx *f);
static int start_server_with(rfx *f, const char *const *extra);

static int setup(void **state) {
  tu_result r;
  tu_sh(&r, "command -v redis-server");
  bool have = r.status == 0;
  tu_result_free(&r);
  if (!have) {
    /* `make test` installs redis-server (scripts/install-deps.sh test): a
     * missing server is a broken setup, not a reason to pass. */
    fprintf(stderr, "redis-server is not installed: run scripts/install-deps.sh test\n");
    *state = NULL;
    return -1;
  }
  rfx *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("ingest_redis"));
  snprintf(f->table, sizeof f->table, "%s/t", f->dir);
  f->port = free_port();
  if (start_server(f) < 0) {
    free(f);
    return -1;
  }
  snprintf(f->source, sizeof f->source, "redis://127.0.0.1:%d/events", f->port);
  *state = f;
  return 0;
}

/* Starts redis-server on f->port with @p extra arguments (NULL-terminated,
 * may be NULL) after the defaults, and connects f->c. */
static int start_server_with(rfx *f, const char *const *extra) {
  char port[16];
  snprintf(port, sizeof port, "%d", f->port);
  f->server = fork();
  if (f->server == 0) {
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    dup2(fd, 2);
    const char *argv[40] = {"redis-server", "--port", port,           "--bind", "127.0.0.1",
                            "--save",       "",       "--appendonly", "no",     "--daemonize",
                            "no",           "--dir",  f->dir};
    int n = 13;
    for (; extra && *extra && n < 39; extra++)
      argv[n++] = *extra;
    argv[n] = NULL;
    execvp("redis-server", (char *const *)argv);
    _exit(127);
  }
  for (int i = 0; i < 200; i++) {
    struct timeval tv = {1, 0};
    f->c = redisConnectWithTimeout("127.0.0.1", f->port, tv);
    if (f->c && !f->c->err) break;
    if (f->c) redisFree(f->c);
    f->c = NULL;
    ing_sleep_ms(25);
  }
  if (!f->c) {
    kill(f->server, SIGKILL);
    ing_wait(f->server);
    return -1;
  }
  return 0;
}

static int start_server(rfx *f) {
  return start_server_with(f, NULL);
}

static int teardown(void **state) {
  rfx *f = *state;
  if (!f) return 0;
  redisFree(f->c);
  kill(f->server, SIGTERM);
  ing_wait(f->server);
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

/* XADDs events [first, first + n); every 499th is bad. Pipelined. */
static int64_t add_events(rfx *f, int64_t first, int64_t n, ing_check *want) {
  int64_t bad = 0;
  for (int64_t i = first; i < first + n; i++) {
    int64_t v = (i * 104729) % 1000003;
    char data[128];
    if (i % 499 == 7) {
      snprintf(data, sizeof data, "{\"id\":%lld,\"v\":true}", (long long)i);
      bad++;
    } else {
      snprintf(data, sizeof data, "{\"id\":%lld,\"v\":%lld}", (long long)i, (long long)v);
      want->rows++;
      want->distinct++;
      want->checksum += ing_mix(i, v);
    }
    redisAppendCommand(f->c, "XADD events * data %s", data);
  }
  for (int64_t i = 0; i < n; i++) {
    void *reply = NULL;
    assert_int_equal(redisGetReply(f->c, &reply), REDIS_OK);
    freeReplyObject(reply);
  }
  return bad;
}

static void test_redis__entries_fields_and_positions(void **state) {
  rfx *f = *state;
  if (!f) skip();
  ing_create_table(f->table, "id long not null, v long", NULL);
  ing_check want = {0, 0, 0, 0};
  add_events(f, 0, 10, &want);
  redisReply *rep = redisCommand(f->c, "XADD events * id 10 v 20");
  assert_non_null(rep);
  char last_id[64];
  snprintf(last_id, sizeof last_id, "%s", rep->str);
  freeReplyObject(rep);
  tu_result r;
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once --app-id R", INLET_BIN, f->table, f->source);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 10 rows in 1 batches"));
  assert_non_null(strstr(r.err, "rejected 1"));
  tu_result_free(&r);
  /* The position is the last entry id. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, f->table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  char got[64];
  snprintf(got, sizeof got, "%lld-%lld", (long long)inlet_snapshot_txn_version(s, "R#p0"),
           (long long)inlet_snapshot_txn_version(s, "R#p1"));
  assert_string_equal(got, last_id);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  /* Field/value entry became {"id":"10","v":"20"}, converted to longs. */
  tu_sh(&r, "'%s' scan '%s' --format ndjson | grep -c '\"id\":10,\"v\":20'", INLET_BIN, f->table);
  assert_string_equal(r.out, "1\n");
  tu_result_free(&r);
  /* Re-run: nothing new. */
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once --app-id R", INLET_BIN, f->table, f->source);
  assert_non_null(strstr(r.err, "ingested 0 rows in 0 batches"));
  tu_result_free(&r);
}

/* Threads: the entries of an XREAD reply that carry their record in one
 * field are converted ahead on the pool; field/value entries (built one at
 * a time) and malformed records go in order. 1 and 4 threads must commit
 * the same batches, rows and dead letters. */
static void test_redis__threads_convert_entries_alike(void **state) {
  rfx *f = *state;
  if (!f) skip();
  ing_check want = {0, 0, 0, 0};
  int64_t bad = 0;
  for (int64_t i = 0; i < 12000; i += 100) {
    bad += add_events(f, i, 100, &want);
    redisReply *rep = redisCommand(f->c, "XADD events * id %lld v 5", (long long)(100000 + i));
    assert_non_null(rep);
    freeReplyObject(rep);
  }
  char t1[700], t4[700];
  snprintf(t1, sizeof t1, "%s/th1", f->dir);
  snprintf(t4, sizeof t4, "%s/th4", f->dir);
  for (int k = 0; k < 2; k++) {
    const char *t = k ? t4 : t1;
    ing_create_table(t, "id long not null, v long", NULL);
    tu_result r;
    tu_sh(&r,
          "'%s' ingest '%s' --source '%s' --once --app-id T --max-rows 2500 --max-latency 1h "
          "--threads %d",
          INLET_BIN, t, f->source, k ? 4 : 1);
    if (r.status != 0) fail_msg("ingest: %s", r.err);
    char expect[128];
    snprintf(expect, sizeof expect, "rejected %lld", (long long)bad);
    assert_non_null(strstr(r.err, expect));
    tu_result_free(&r);
  }
  tu_result a, b;
  tu_sh(&a, "'%s' scan '%s' --format ndjson | sort", INLET_BIN, t1);
  tu_sh(&b, "'%s' scan '%s' --format ndjson | sort", INLET_BIN, t4);
  assert_int_equal(a.status, 0);
  assert_string_equal(a.out, b.out);
  size_t lines = 0;
  for (const char *p = a.out; *p; p++)
    lines += *p == '\n';
  assert_int_equal(lines, (size_t)want.rows + 120);
  tu_result_free(&a);
  tu_result_free(&b);
  /* The same commits (batch cuts) and the same dead letters. */
  tu_sh(&a, "cd '%s' && ls _delta_log | grep -c json && cat _errors/T/* | sort", t1);
  tu_sh(&b, "cd '%s' && ls _delta_log | grep -c json && cat _errors/T/* | sort", t4);
  assert_int_equal(a.status, 0);
  assert_string_equal(a.out, b.out);
  assert_true(atoi(a.out) >= 6);
  tu_result_free(&a);
  tu_result_free(&b);
}

static void test_redis__kill9_restarts_exactly_once(void **state) {
  rfx *f = *state;
  if (!f) skip();
  const char *soak = getenv("INLET_SOAK");
  bool big = soak && *soak && strcmp(soak, "0") != 0;
  int64_t n = big ? 1000000 : 30000;
  int kills = big ? 20 : 5;
  ing_create_table(f->table, "id long not null, v long", NULL);
  ing_check want = {0, 0, 0, 0};
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i += 10000)
    bad += add_events(f, i, 10000, &want);
  const char *args[] = {
      "ingest",  f->table, "--source", f->source, "--once", "--max-rows", big ? "20000" : "1000",
      "--quiet", NULL};
  unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
  int landed = 0;
  long max_delay = 300;
  int64_t next_id = n;
  for (int k = 0; landed < kills && k < kills * 8; k++) {
    pid_t pid = ing_spawn(NULL, args);
    if (ing_kill_after(pid, 20 + (long)(rand_r(&seed) % (unsigned)max_delay))) {
      landed++;
    } else if (next_id < n + 100000) {
      /* It finished first (a fast machine): feed it more, kill sooner. */
      bad += add_events(f, next_id, 10000, &want);
      next_id += 10000;
      if (max_delay > 60) max_delay = max_delay * 2 / 3;
    }
  }
  assert_int_equal(ing_wait(ing_spawn(NULL, args)), 0);
  assert_true(landed >= kills);
  ing_check got;
  ing_check_table(&got, f->table, next_id);
  assert_int_equal(got.dups, 0);
  assert_int_equal(got.rows, want.rows);
  assert_int_equal(got.distinct, want.distinct);
  assert_true(got.checksum == want.checksum);
  char errors[600];
  snprintf(errors, sizeof errors, "%s/_errors", f->table);
  assert_int_equal(ing_count_lines(errors), bad);
}

static void test_redis__blocking_reader_follows_and_stops_on_sigint(void **state) {
  rfx *f = *state;
  if (!f) skip();
  ing_create_table(f->table, "id long not null, v long", NULL);
  const char *args[] = {"ingest",        f->table, "--source", f->source,
                        "--max-latency", "100ms",  "--quiet",  NULL};
  pid_t pid = ing_spawn(NULL, args);
  ing_sleep_ms(300);
  ing_check want = {0, 0, 0, 0};
  add_events(f, 0, 5, &want);
  ing_check got = {0, 0, 0, 0};
  for (int i = 0; i < 100 && got.rows < 5; i++) {
    ing_sleep_ms(100);
    ing_check_table(&got, f->table, 100);
  }
  assert_int_equal(got.rows, 5);
  /* Redis restarts (empty: no persistence); the reader reconnects and takes
   * the new entries, whose ids are later than the last one it read. */
  redisFree(f->c);
  kill(f->server, SIGTERM);
  ing_wait(f->server);
  ing_sleep_ms(300);
  assert_int_equal(start_server(f), 0);
  add_events(f, 5, 3, &want);
  assert_int_equal(want.rows, 7); /* id 7 is a bad entry */
  for (int i = 0; i < 100 && got.rows < 7; i++) {
    ing_sleep_ms(100);
    ing_check_table(&got, f->table, 100);
  }
  assert_int_equal(got.rows, 7);
  assert_true(got.checksum == want.checksum);
  kill(pid, SIGINT);
  assert_int_equal(ing_wait(pid), 0);
}

/* ---- issue 12: gaps and transient errors ------------------------------------------ */

static tu_result ingest_once(rfx *f, const char *source, const char *extra) {
  tu_result r;
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once %s", INLET_BIN, f->table, source,
        extra ? extra : "");
  return r;
}

static void xadd_ids(rfx *f, const char *stream, int from, int to) {
  for (int i = from; i < to; i++) {
    redisReply *rep = redisCommand(f->c, "XADD %s * data {\"id\":%d,\"v\":%d}", stream, i, i);
    assert_non_null(rep);
    assert_int_equal(rep->type, REDIS_REPLY_STRING);
    freeReplyObject(rep);
  }
}

static void redis_do(rfx *f, const char *cmd) {
  redisReply *rep = redisCommand(f->c, cmd);
  assert_non_null(rep);
  assert_true(rep->type != REDIS_REPLY_ERROR);
  freeReplyObject(rep);
}

static void test_redis__trimmed_past_position_is_a_gap(void **state) {
  rfx *f = *state;
  if (!f) skip();
  ing_create_table(f->table, "id long not null, v long", NULL);
  xadd_ids(f, "events", 0, 10);
  tu_result r = ingest_once(f, f->source, NULL);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  /* 20 more, then MAXLEN 5 while no ingester ran: 15 entries never read. */
  xadd_ids(f, "events", 10, 30);
  redis_do(f, "XTRIM events MAXLEN 5");
  r = ingest_once(f, f->source, NULL);
  assert_int_equal(r.status, 3);
  assert_non_null(strstr(r.err, "15 entries after position"));
  assert_non_null(strstr(r.err, "--allow-gaps"));
  tu_result_free(&r);
  ing_check got;
  ing_check_table(&got, f->table, 100);
  assert_int_equal(got.rows, 10); /* nothing after the gap */
  /* --allow-gaps: skipped, reported, recorded in commitInfo. */
  r = ingest_once(f, f->source, "--allow-gaps --json");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "\"event\":\"warning\""));
  assert_non_null(strstr(r.out, "\"gaps\":1"));
  tu_result_free(&r);
  ing_check_table(&got, f->table, 100);
  assert_int_equal(got.rows, 15);
  assert_int_equal(got.dups, 0);
  tu_sh(&r, "'%s' history '%s' --json", INLET_BIN, f->table);
  assert_non_null(strstr(r.out, "\"numSourceGaps\":1"));
  assert_non_null(strstr(r.out, "\"numSourceRecordsLost\":15"));
  assert_non_null(strstr(r.out, ":15\""));
  tu_result_free(&r);
  /* Once past it, it is not reported again. */
  xadd_ids(f, "events", 30, 32);
  r = ingest_once(f, f->source, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 2 rows"));
  tu_result_free(&r);
  /* Trimming what was read (MINID on a quiet stream, then a new entry) is no gap. */
  redis_do(f, "XTRIM events MAXLEN 0");
  xadd_ids(f, "events", 32, 33);
  r = ingest_once(f, f->source, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 1 rows"));
  assert_null(strstr(r.err, "deleted"));
  tu_result_free(&r);
  /* An entry deleted after the position (XDEL) is a gap too. */
  xadd_ids(f, "events", 33, 36);
  redisReply *rep = redisCommand(f->c, "XRANGE events - + COUNT 3");
  assert_true(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements >= 3);
  char del[64];
  snprintf(del, sizeof del, "%s", rep->element[2]->element[0]->str);
  freeReplyObject(rep);
  rep = redisCommand(f->c, "XDEL events %s", del);
  freeReplyObject(rep);
  r = ingest_once(f, f->source, NULL);
  assert_int_equal(r.status, 3);
  assert_non_null(strstr(r.err, "1 entry after position"));
  tu_result_free(&r);
  ing_check_table(&got, f->table, 100);
  /* A hole cannot be placed among the entries: the gap is reported before
   * the first entry after the position, 33 and 35 wait for --allow-gaps. */
  assert_int_equal(got.rows, 18);
  r = ingest_once(f, f->source, "--allow-gaps");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 2 rows"));
  tu_result_free(&r);
}

/* Redis restarts with a dataset to load: connection refused, then LOADING
 * for seconds; the following ingester waits, reports, and loses nothing. */
static void test_redis__follow_survives_restart_and_loading(void **state) {
  rfx *f = *state;
  if (!f) skip();
  /* A server that saves: the stream outlives the restart. */
  redisFree(f->c);
  kill(f->server, SIGTERM);
  ing_wait(f->server);
  static const char *const debug[] = {"--enable-debug-command", "yes", NULL};
  assert_int_equal(start_server_with(f, debug), 0);
  redis_do(f, "DEBUG POPULATE 4000");
  ing_create_table(f->table, "id long not null, v long", NULL);
  char out[600];
  snprintf(out, sizeof out, "%s/ingest.out", f->dir);
  const char *args[] = {"ingest",        f->table, "--source", f->source,
                        "--max-latency", "100ms",  "--json",   NULL};
  pid_t pid = ing_spawn(out, args);
  xadd_ids(f, "events", 0, 5);
  ing_check got = {0, 0, 0, 0};
  for (int i = 0; i < 200 && got.rows < 5; i++) {
    ing_sleep_ms(50);
    ing_check_table(&got, f->table, 100);
  }
  assert_int_equal(got.rows, 5);
  redis_do(f, "SAVE");
  redisFree(f->c);
  kill(f->server, SIGKILL);
  ing_wait(f->server);
  ing_sleep_ms(500); /* connection refused meanwhile */
  static const char *const slow[] = {"--key-load-delay", "500",
                                     "--loading-process-events-interval-bytes", "1024", NULL};
  assert_int_equal(start_server_with(f, slow), 0);
  /* The test's own client sees LOADING: the ingester met it too. */
  bool loading = false;
  for (int i = 0; i < 400; i++) {
    redisReply *rep = redisCommand(f->c, "PING");
    bool l = rep && rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "LOADING", 7) == 0;
    if (rep) freeReplyObject(rep);
    if (!l) break;
    loading = true;
    ing_sleep_ms(25);
  }
  assert_true(loading);
  xadd_ids(f, "events", 5, 8);
  for (int i = 0; i < 300 && got.rows < 8; i++) {
    ing_sleep_ms(50);
    ing_check_table(&got, f->table, 100);
  }
  assert_int_equal(got.rows, 8);
  assert_int_equal(got.dups, 0);
  assert_int_equal(waitpid(pid, NULL, WNOHANG), 0); /* still running */
  kill(pid, SIGINT);
  assert_int_equal(ing_wait(pid), 0);
  char *text = tu_read_file(out, NULL);
  assert_non_null(text);
  assert_non_null(strstr(text, "Connection refused; retry"));
  assert_non_null(strstr(text, "LOADING Redis is loading the dataset in memory; retry"));
  assert_non_null(strstr(text, "reading again after"));
  assert_non_null(strstr(text, "\"event\":\"warning\""));
  free(text);
}

static void test_redis__auth_error_is_fatal(void **state) {
  rfx *f = *state;
  if (!f) skip();
  ing_create_table(f->table, "id long not null, v long", NULL);
  redis_do(f, "CONFIG SET requirepass sekret");
  const char *args[] = {"ingest", f->table, "--source", f->source, "--quiet", NULL};
  pid_t pid = ing_spawn(NULL, args); /* following: transient errors would be retried */
  bool exited = !ing_kill_after(pid, 10000);
  tu_result r = ingest_once(f, f->source, NULL);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "NOAUTH"));
  assert_null(strstr(r.err, "retry"));
  tu_result_free(&r);
  assert_true(exited);
}

static void test_redis__once_waits_for_a_restarting_server(void **state) {
  rfx *f = *state;
  if (!f) skip();
  ing_create_table(f->table, "id long not null, v long", NULL);
  /* A server that saves, stopped: --once retries until it is back. */
  redisFree(f->c);
  kill(f->server, SIGTERM);
  ing_wait(f->server);
  static const char *const save[] = {"--save", "1 1", NULL};
  assert_int_equal(start_server_with(f, save), 0);
  xadd_ids(f, "events", 3, 6);
  redis_do(f, "SAVE");
  redisFree(f->c);
  kill(f->server, SIGKILL);
  ing_wait(f->server);
  char out[600];
  snprintf(out, sizeof out, "%s/once.out", f->dir);
  const char *args[] = {"ingest", f->table, "--source", f->source, "--once", NULL};
  pid_t pid = ing_spawn(out, args);
  ing_sleep_ms(1500);
  assert_int_equal(start_server_with(f, save), 0);
  assert_int_equal(ing_wait(pid), 0);
  char *text = tu_read_file(out, NULL);
  assert_non_null(strstr(text, "Connection refused; retry"));
  assert_non_null(strstr(text, "ingested 3 rows"));
  free(text);
}

/* ---- issue 11 §5: exactly-once cannot depend on how a source is spelt ------------ */

static void test_redis__app_id_localhost_vs_127_ingests_once(void **state) {
  rfx *f = *state;
  if (!f) skip();
  ing_create_table(f->table, "id long not null, v long", NULL);
  char lh[128], ip[128], slash[128];
  snprintf(lh, sizeof lh, "redis://localhost:%d/events", f->port);
  snprintf(ip, sizeof ip, "redis://127.0.0.1:%d/events", f->port);
  snprintf(slash, sizeof slash, "redis://LOCALHOST:%d/events/", f->port);
  xadd_ids(f, "events", 1, 4);
  tu_result r = ingest_once(f, lh, NULL);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  xadd_ids(f, "events", 4, 5);
  r = ingest_once(f, ip, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 1 rows"));
  tu_result_free(&r);
  xadd_ids(f, "events", 5, 6);
  r = ingest_once(f, slash, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 1 rows"));
  tu_result_free(&r);
  ing_check got;
  ing_check_table(&got, f->table, 100);
  assert_int_equal(got.rows, 5);
  assert_int_equal(got.dups, 0);
  char app[160];
  snprintf(app, sizeof app, "inlet-ingest:redis://localhost:%d/events", f->port);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, f->table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  assert_int_equal(inlet_snapshot_txn_version(s, app), 3);
  inlet_snapshot_free(s);
  inlet_table_free(t);
}

static void test_redis__two_servers_same_stream_name_refused(void **state) {
  rfx *f = *state;
  if (!f) skip();
  ing_create_table(f->table, "id long not null, v long", NULL);
  xadd_ids(f, "events", 0, 5);
  tu_result r = ingest_once(f, f->source, NULL);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  /* A second server with a stream of the same name. */
  rfx other;
  memset(&other, 0, sizeof other);
  snprintf(other.dir, sizeof other.dir, "%s", f->dir);
  other.port = free_port();
  assert_int_equal(start_server(&other), 0);
  xadd_ids(&other, "events", 100, 103);
  char src2[128];
  snprintf(src2, sizeof src2, "redis://127.0.0.1:%d/events", other.port);
  r = ingest_once(f, src2, NULL);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "already records progress for Redis stream \"events\""));
  assert_non_null(strstr(r.err, "--app-id"));
  tu_result_free(&r);
  /* Named, it gets its own record: both sources in the table, nothing merged. */
  r = ingest_once(f, src2, "--app-id other-server");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 3 rows"));
  tu_result_free(&r);
  ing_check got;
  ing_check_table(&got, f->table, 1000);
  assert_int_equal(got.rows, 8);
  /* A record under a chosen id is recognised too (APP#src). */
  char t2[600];
  snprintf(t2, sizeof t2, "%s/t2", f->dir);
  ing_create_table(t2, "id long not null, v long", NULL);
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once --app-id prod", INLET_BIN, t2, f->source);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, t2, f->source);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "under app id \"prod\""));
  tu_result_free(&r);
  redisFree(other.c);
  kill(other.server, SIGTERM);
  ing_wait(other.server);
}

/* Progress an older inlet recorded under the spelling-derived id (no APP#src,
 * no entry count): commits its txn actions the way that version did. */
static void legacy_commit(const char *table, const char *app, const char *entry_id) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  char n0[300], n1[300], n2[300];
  snprintf(n0, sizeof n0, "%s#p0", app);
  snprintf(n1, sizeof n1, "%s#p1", app);
  snprintf(n2, sizeof n2, "%s#p2", app);
  const char *names[] = {n0, n1, n2};
  int64_t vers[3] = {strtoll(entry_id, NULL, 10), strtoll(strchr(entry_id, '-') + 1, NULL, 10), 0};
  inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
  ao.app_id = app;
  ao.app_version = 1;
  ao.extra_txn_app_ids = names;
  ao.extra_txn_versions = vers;
  ao.n_extra_txns = 3;
  inlet_table_writer *w = NULL;
  assert_int_equal(inlet_table_writer_open(&w, t, &ao, &err), 0);
  assert_int_equal(inlet_table_writer_commit(w, NULL, &err), 0);
  inlet_table_writer_free(w);
  inlet_table_free(t);
}

static void test_redis__legacy_app_id_keeps_its_progress(void **state) {
  rfx *f = *state;
  if (!f) skip();
  ing_create_table(f->table, "id long not null, v long", NULL);
  xadd_ids(f, "events", 0, 3);
  redisReply *rep = redisCommand(f->c, "XREVRANGE events + - COUNT 1");
  char last[64];
  snprintf(last, sizeof last, "%s", rep->element[0]->element[0]->str);
  freeReplyObject(rep);
  char legacy[160];
  snprintf(legacy, sizeof legacy, "inlet-ingest:redis://127.0.0.1:%d/events", f->port);
  legacy_commit(f->table, legacy, last); /* events 0..2 were ingested by the old version */
  xadd_ids(f, "events", 3, 5);
  /* The same spelling continues that record, quietly. */
  tu_result r = ingest_once(f, f->source, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 2 rows"));
  assert_null(strstr(r.err, "warning"));
  tu_result_free(&r);
  /* Another spelling of the same source continues it too, and says so. */
  xadd_ids(f, "events", 5, 6);
  char lh[128];
  snprintf(lh, sizeof lh, "redis://localhost:%d/events", f->port);
  r = ingest_once(f, lh, NULL);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.err, "ingested 1 rows"));
  assert_non_null(strstr(r.err, legacy));
  tu_result_free(&r);
  ing_check got;
  ing_check_table(&got, f->table, 100);
  assert_int_equal(got.rows, 3); /* 3, 4, 5: the legacy commit held no rows */
  assert_int_equal(got.dups, 0);
  /* Two records for one source (the old spelling bug left both): choose. */
  char t2[600], legacy2[160];
  snprintf(t2, sizeof t2, "%s/t2", f->dir);
  ing_create_table(t2, "id long not null, v long", NULL);
  snprintf(legacy2, sizeof legacy2, "inlet-ingest:redis://localhost:%d/events", f->port);
  legacy_commit(t2, legacy, last);
  legacy_commit(t2, legacy2, last);
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, t2, f->source);
  assert_int_equal(r.status, 0); /* its canonical id has progress: that one */
  tu_result_free(&r);
  char t3[600];
  snprintf(t3, sizeof t3, "%s/t3", f->dir);
  ing_create_table(t3, "id long not null, v long", NULL);
  char legacy3[160];
  snprintf(legacy3, sizeof legacy3, "inlet-ingest:redis://127.0.0.2:%d/events", f->port);
  legacy_commit(t3, legacy, last);
  legacy_commit(t3, legacy3, last);
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, t3, f->source);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "several app ids"));
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_redis__entries_fields_and_positions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_redis__kill9_restarts_exactly_once, setup, teardown),
      cmocka_unit_test_setup_teardown(test_redis__threads_convert_entries_alike, setup, teardown),
      cmocka_unit_test_setup_teardown(test_redis__blocking_reader_follows_and_stops_on_sigint,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_redis__trimmed_past_position_is_a_gap, setup, teardown),
      cmocka_unit_test_setup_teardown(test_redis__follow_survives_restart_and_loading, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_redis__auth_error_is_fatal, setup, teardown),
      cmocka_unit_test_setup_teardown(test_redis__once_waits_for_a_restarting_server, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_redis__app_id_localhost_vs_127_ingests_once, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_redis__two_servers_same_stream_name_refused, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_redis__legacy_app_id_keeps_its_progress, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
