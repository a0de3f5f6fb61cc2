/*
 * Exactly-once across crashes (issue 5 "Exactly-once" proof), file source:
 *   - one ingester on 50,000 events (with bad records mixed in) is kill -9'd
 *     at random moments at least 5 times and restarted; at the end every good
 *     event is in the table exactly once (count, distinct ids, checksum of
 *     all values) and every bad record is in _errors/ exactly once;
 *   - two ingesters with different sources feed one table at the same time,
 *     each killed and restarted several times; same checks;
 *   - two processes with the same app id race on the same source: each
 *     batch lands once (the loser of a commit re-reads the position);
 *   - late rows routed to a side table survive kills exactly once.
 * INLET_SOAK=1 runs the full version: 1,000,000 events and 20 kills.
 */
#include "testutil.h"

#include <sys/stat.h>

#include "ingest_support.h"

static bool soak(void) {
  const char *s = getenv("INLET_SOAK");
  return s && *s && strcmp(s, "0") != 0;
}

/* Writes events [first, first + n) as NDJSON; every 997th is bad. Returns the
 * number of bad records written. */
static int64_t write_events(const char *path, int64_t first, int64_t n, ing_check *want) {
  FILE *f = fopen(path, "a");
  assert_non_null(f);
  int64_t bad = 0;
  for (int64_t i = first; i < first + n; i++) {
    int64_t v = (i * 7919) % 100003;
    if (i % 997 == 13) {
      fprintf(f, "{\"id\":%lld,\"v\":\"not a number\",\"s\":\"bad\"}\n", (long long)i);
      bad++;
      continue;
    }
    fprintf(f, "{\"id\":%lld,\"v\":%lld,\"s\":\"event-%lld\"}\n", (long long)i, (long long)v,
            (long long)i);
    want->rows++;
    want->distinct++;
    want->checksum += ing_mix(i, v);
  }
  fclose(f);
  return bad;
}

/* More events for the source when the ingester got through all of them
 * before enough kills landed (a fast machine). */
typedef struct topup {
  int64_t next_id;
  ing_check *want;
  int64_t *bad;
  int rounds;
} topup;

static void run_with_kills(const char *table, const char *src, const char *app, int kills,
                           int *landed, topup *more) {
  char source[600];
  snprintf(source, sizeof source, "file:%s", src);
  /* Batch sizes vary between restarts, so a replayed batch rarely has the
   * boundaries of the attempt that died. Soak: bigger batches keep the number
   * of commits (each replays the log until checkpoints exist) in proportion. */
  static const char *const small[] = {"700", "1000", "1300"};
  static const char *const big[] = {"15000", "20000", "25000"};
  const char *args[] = {"ingest", table,     "--source",
                        source,   "--once",  "--max-rows",
                        "1000",   "--quiet", app ? "--app-id" : NULL,
                        app,      NULL};
  unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
  long max_delay = 300;
  for (int k = 0; *landed < kills && k < kills * 8; k++) {
    args[6] = (soak() ? big : small)[rand_r(&seed) % 3];
    pid_t pid = ing_spawn(NULL, args);
    long ms = 20 + (long)(rand_r(&seed) % (unsigned)max_delay);
    if (ing_kill_after(pid, ms)) {
      (*landed)++;
    } else if (more && more->rounds < 10) {
      /* It finished first: feed it more, kill sooner. */
      *more->bad += write_events(src, more->next_id, 10000, more->want);
      more->next_id += 10000;
      more->rounds++;
      if (max_delay > 60) max_delay = max_delay * 2 / 3;
    }
  }
  pid_t pid = ing_spawn(NULL, args);
  assert_int_equal(ing_wait(pid), 0);
}

static void test_crash__kill9_restarts_lose_and_duplicate_nothing(void **state) {
  (void)state;
  char *dir = strdup(tu_mkdtemp("ingest_crash"));
  char table[512], src[512], errors[600];
  snprintf(table, sizeof table, "%s/t", dir);
  snprintf(src, sizeof src, "%s/events.ndjson", dir);
  snprintf(errors, sizeof errors, "%s/_errors", table);
  int64_t n = soak() ? 1000000 : 50000;
  int kills = soak() ? 20 : 5;
  ing_check want = {0, 0, 0, 0};
  int64_t bad = write_events(src, 0, n, &want);
  ing_create_table(table, "id long not null, v long, s string", NULL);
  int landed = 0;
  topup more = {n, &want, &bad, 0};
  run_with_kills(table, src, NULL, kills, &landed, &more);
  assert_true(landed >= kills);
  ing_check got;
  ing_check_table(&got, table, more.next_id);
  assert_int_equal(got.dups, 0);
  assert_int_equal(got.rows, want.rows);
  assert_int_equal(got.distinct, want.distinct);
  assert_true(got.checksum == want.checksum);
  assert_int_equal(ing_count_lines(errors), bad);
  /* A further run finds nothing new and commits nothing. */
  const char *args[] = {"ingest", table, "--source", NULL, "--once", "--json", NULL};
  char source[600];
  snprintf(source, sizeof source, "file:%s", src);
  args[3] = source;
  char out[600];
  snprintf(out, sizeof out, "%s/out.json", dir);
  assert_int_equal(ing_wait(ing_spawn(out, args)), 0);
  char *text = tu_read_file(out, NULL);
  assert_non_null(strstr(text, "\"event\":\"finished\",\"batches\":0,"));
  free(text);
  print_message("kills landed: %d\n", landed);
  tu_rmtree(dir);
  free(dir);
}

static void test_crash__two_ingesters_share_a_table(void **state) {
  (void)state;
  char *dir = strdup(tu_mkdtemp("ingest_two"));
  char table[512], a[512], b[512];
  snprintf(table, sizeof table, "%s/t", dir);
  snprintf(a, sizeof a, "%s/a.ndjson", dir);
  snprintf(b, sizeof b, "%s/b.ndjson", dir);
  int64_t n = soak() ? 200000 : 20000;
  ing_check want = {0, 0, 0, 0};
  write_events(a, 0, n, &want);
  write_events(b, n, n, &want);
  ing_create_table(table, "id long not null, v long, s string", NULL);
  pid_t pa = fork();
  if (pa == 0) {
    int landed = 0;
    run_with_kills(table, a, "feed-a", 3, &landed, NULL);
    _exit(0);
  }
  int landed = 0;
  run_with_kills(table, b, "feed-b", 3, &landed, NULL);
  assert_int_equal(ing_wait(pa), 0);
  ing_check got;
  ing_check_table(&got, table, 2 * n);
  assert_int_equal(got.dups, 0);
  assert_int_equal(got.rows, want.rows);
  assert_int_equal(got.distinct, want.distinct);
  assert_true(got.checksum == want.checksum);
  /* Both app ids kept their own progress. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  assert_true(inlet_snapshot_txn_version(s, "feed-a") > 0);
  assert_true(inlet_snapshot_txn_version(s, "feed-b") > 0);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  tu_rmtree(dir);
  free(dir);
}

/* Two processes with the same app id and source at once (a zombie next to
 * its replacement): every batch is committed by exactly one of them. */
static void test_crash__same_app_id_racing_commits_each_batch_once(void **state) {
  (void)state;
  char *dir = strdup(tu_mkdtemp("ingest_same"));
  char table[512], src[512], source[600], errors[600];
  snprintf(table, sizeof table, "%s/t", dir);
  snprintf(src, sizeof src, "%s/e.ndjson", dir);
  snprintf(source, sizeof source, "file:%s", src);
  snprintf(errors, sizeof errors, "%s/_errors", table);
  ing_check want = {0, 0, 0, 0};
  int64_t bad = write_events(src, 0, 20000, &want);
  ing_create_table(table, "id long not null, v long, s string", NULL);
  const char *args[] = {"ingest",     table, "--source", source, "--once",
                        "--max-rows", "500", "--quiet",  NULL};
  pid_t a = ing_spawn(NULL, args), b = ing_spawn(NULL, args);
  assert_int_equal(ing_wait(a), 0);
  assert_int_equal(ing_wait(b), 0);
  ing_check got;
  ing_check_table(&got, table, 20000);
  assert_int_equal(got.dups, 0);
  assert_int_equal(got.rows, want.rows);
  assert_true(got.checksum == want.checksum);
  assert_int_equal(ing_count_lines(errors), bad);
  tu_rmtree(dir);
  free(dir);
}

/* Late rows routed to a side table across kill -9 restarts: every event is
 * in exactly one of the two tables, exactly once. */
static void test_crash__routed_late_rows_exactly_once(void **state) {
  (void)state;
  char *dir = strdup(tu_mkdtemp("ingest_route"));
  char table[512], side[512], src[512], source[600], policy[600];
  snprintf(table, sizeof table, "%s/t", dir);
  snprintf(side, sizeof side, "%s/late", dir);
  snprintf(src, sizeof src, "%s/e.ndjson", dir);
  snprintf(source, sizeof source, "file:%s", src);
  snprintf(policy, sizeof policy, "route:%s", side);
  int64_t n = 30000;
  ing_check want_main = {0, 0, 0, 0}, want_side = {0, 0, 0, 0};
  FILE *fp = fopen(src, "w");
  for (int64_t i = 0; i < n; i++) {
    bool late = i % 50 == 49;
    int64_t sec = 1700000000 + i - (late ? 3600 : 0), v = (i * 31) % 1009;
    fprintf(fp, "{\"id\":%lld,\"v\":%lld,\"ts\":%lld}\n", (long long)i, (long long)v,
            (long long)sec);
    ing_check *w = late ? &want_side : &want_main;
    w->rows++;
    w->checksum += ing_mix(i, v);
  }
  fclose(fp);
  ing_create_table(table, "id long not null, v long, ts timestamp", NULL);
  ing_create_table(side, "id long not null, v long, ts timestamp", NULL);
  const char *args[] = {
      "ingest",     table,           "--source",     source,    "--once",
      "--max-rows", "700",           "--event-time", "ts",      "--allowed-lateness",
      "1m",         "--late-policy", policy,         "--quiet", NULL};
  unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
  int landed = 0;
  static const char *const sizes[] = {"400", "700", "1000"};
  for (int k = 0; landed < 5 && k < 40; k++) {
    args[6] = sizes[rand_r(&seed) % 3];
    if (ing_kill_after(ing_spawn(NULL, args), 20 + (long)(rand_r(&seed) % 300))) landed++;
  }
  assert_int_equal(ing_wait(ing_spawn(NULL, args)), 0);
  print_message("kills landed: %d\n", landed);
  ing_check got_main, got_side;
  ing_check_table(&got_main, table, n);
  ing_check_table(&got_side, side, n);
  assert_int_equal(got_main.dups, 0);
  assert_int_equal(got_side.dups, 0);
  assert_int_equal(got_main.rows, want_main.rows);
  assert_int_equal(got_side.rows, want_side.rows);
  assert_true(got_main.checksum == want_main.checksum);
  assert_true(got_side.checksum == want_side.checksum);
  tu_rmtree(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crash__kill9_restarts_lose_and_duplicate_nothing),
      cmocka_unit_test(test_crash__two_ingesters_share_a_table),
      cmocka_unit_test(test_crash__same_app_id_racing_commits_each_batch_once),
      cmocka_unit_test(test_crash__routed_late_rows_exactly_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
