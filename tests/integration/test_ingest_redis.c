/*
 * `inlet ingest` from Redis Streams against a private redis-server started by
 * the test on a free loopback port (the test is self-contained; it fails
 * when redis-server is not installed):
 *   - entries with a "data" field and field/value entries, bad ones to
 *     _errors/, position = entry id in the txn actions;
 *   - kill -9 at random moments (>= 5 landed), restarts, then every event
 *     exactly once (count, distinct ids, checksum) and bad entries once;
 *   - a blocking (non --once) ingester picks up new entries, survives a
 *     Redis restart, and stops on SIGINT with exit 0.
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

static int start_server(rfx *f) {
  char port[16];
  snprintf(port, sizeof port, "%d", f->port);
  f->server = fork();
  if (f->server == 0) {
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    dup2(fd, 2);
    execlp("redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "",
           "--appendonly", "no", "--daemonize", "no", "--dir", f->dir, (char *)NULL);
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
  for (int64_t i = 0; i < n; i += 10000) bad += add_events(f, i, 10000, &want);
  const char *args[] = {"ingest", f->table, "--source", f->source, "--once", "--max-rows",
                        big ? "20000" : "1000", "--quiet", NULL};
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
  const char *args[] = {"ingest", f->table, "--source", f->source, "--max-latency", "100ms",
                        "--quiet", NULL};
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_redis__entries_fields_and_positions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_redis__kill9_restarts_exactly_once, setup, teardown),
      cmocka_unit_test_setup_teardown(test_redis__blocking_reader_follows_and_stops_on_sigint,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
