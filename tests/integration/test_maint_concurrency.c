/*
 * Compaction beside live ingestion, in separate processes: two ingesters
 * append micro-batches to a table partitioned by event day (the day moves
 * on every few seconds and a fifth of each batch is late, landing in older
 * days) while a compactor loops over the table. 15 s in the suite; 60 s
 * with INLET_SOAK=1. At the end:
 *   - every event is present exactly once;
 *   - compaction committed several times and the live file count is well
 *     below the number of files the ingesters wrote;
 *   - every compaction version, its predecessor and a sample of the others
 *     still read exactly the rows the log says they had (time travel across
 *     compactions), with no duplicate.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_maint_support.h"

#define PER_BATCH 15
#define ID_SPACE 10000000LL

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Child state: the current event day; late rows go to older days. */
static int cur_day;
static const char *event_day(int64_t id) {
  static char buf[16];
  int d = cur_day;
  if (id % 5 == 0 && d > 0) d -= 1 + (int)((id / 5) % 3); /* late */
  if (d < 0) d = 0;
  snprintf(buf, sizeof buf, "2024-03-%02d", 1 + d % 28);
  return buf;
}

static void write_count(const char *path, int64_t a, int64_t b) {
  char tmp[4300];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  fprintf(f, "%lld %lld\n", (long long)a, (long long)b);
  fclose(f);
  rename(tmp, path);
}

static void read_count(const char *path, int64_t *a, int64_t *b) {
  FILE *f = fopen(path, "r");
  long long x = -1, y = -1;
  if (f) {
    if (fscanf(f, "%lld %lld", &x, &y) != 2) x = y = -1;
    fclose(f);
  }
  *a = x;
  *b = y;
}

static void ingester(const char *table, const char *out, int k, int64_t run_ms) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  if (inlet_table_open(&t, table, &err) != 0) _exit(2);
  int64_t start = mono_ms(), n = 0, batches = 0;
  while (mono_ms() - start < run_ms) {
    cur_day = (int)((mono_ms() - start) / 3000);
    inlet_batch b;
    ms_batch(&b, k * ID_SPACE + n, PER_BATCH, event_day);
    int rc = inlet_table_append(t, &b, 1, NULL, NULL, &err);
    inlet_batch_reset(&b);
    if (rc != 0) {
      fprintf(stderr, "ingester %d: %s\n", k, err.message);
      _exit(3); /* an unknown outcome would make the exactly-once count meaningless */
    }
    n += PER_BATCH;
    batches++;
    write_count(out, n, batches);
    sleep_ms(40);
  }
  inlet_table_free(t);
  _exit(0);
}

static void compactor(const char *table, const char *out, int64_t run_ms) {
  inlet_error err = INLET_ERROR_INIT;
  int64_t start = mono_ms(), commits = 0, failed = 0;
  while (mono_ms() - start < run_ms) {
    inlet_table *t = NULL;
    if (inlet_table_open(&t, table, &err) != 0) _exit(2);
    inlet_compact_options o = INLET_COMPACT_OPTIONS_INIT;
    o.min_files = 4;
    inlet_compact_result res;
    if (inlet_table_compact(&res, t, &o, &err) != 0) {
      fprintf(stderr, "compactor: %s\n", err.message);
      _exit(3);
    }
    commits += res.commits;
    failed += res.failed_groups;
    write_count(out, commits, failed);
    inlet_table_free(t);
    sleep_ms(400);
  }
  _exit(0);
}

static int64_t metric_rows(const char *metrics_json) {
  if (!metrics_json) return 0;
  json_t *m = json_loads(metrics_json, 0, NULL);
  const char *s = json_string_value(json_object_get(m, "numOutputRows"));
  int64_t v = s ? atoll(s) : 0;
  json_decref(m);
  return v;
}

static void check_version_rows(const char *table, int64_t v, int64_t expected) {
  int64_t n = 0;
  int64_t *ids = ms_ids(table, v, &n);
  if (n != expected)
    fail_msg("version %lld: %lld rows, the log says %lld", (long long)v, (long long)n,
             (long long)expected);
  for (int64_t i = 1; i < n; i++)
    if (ids[i] == ids[i - 1])
      fail_msg("version %lld: id %lld twice", (long long)v, (long long)ids[i]);
  free(ids);
}

static void test_concurrency__ingesters_and_compactor_keep_every_event_once(void **state) {
  (void)state;
  int64_t run_ms = getenv("INLET_SOAK") ? 60000 : 15000;
  char dir[4096], t[4200], f0[4200], f1[4200], fc[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-conc"));
  snprintf(t, sizeof t, "%s/t", dir);
  snprintf(f0, sizeof f0, "%s/ing0", dir);
  snprintf(f1, sizeof f1, "%s/ing1", dir);
  snprintf(fc, sizeof fc, "%s/cmp", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, MS_SCHEMA, &err), 0);
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *pcols[] = {"day"};
  co.n_partition_columns = 1;
  co.partition_columns = pcols;
  inlet_table *tb = NULL;
  assert_int_equal(inlet_table_create(&tb, t, &s, &co, &err), 0);
  inlet_table_free(tb);
  inlet_schema_reset(&s);
  fflush(NULL);
  pid_t p0 = fork();
  if (p0 == 0) ingester(t, f0, 0, run_ms);
  pid_t p1 = fork();
  if (p1 == 0) ingester(t, f1, 1, run_ms);
  pid_t pc = fork();
  if (pc == 0) compactor(t, fc, run_ms + 1000);
  int st;
  assert_int_equal(waitpid(p0, &st, 0), p0);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  assert_int_equal(waitpid(p1, &st, 0), p1);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  assert_int_equal(waitpid(pc, &st, 0), pc);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  int64_t n0, b0, n1, b1, commits, failed;
  read_count(f0, &n0, &b0);
  read_count(f1, &n1, &b1);
  read_count(fc, &commits, &failed);
  assert_true(n0 > 0 && n1 > 0);
  /* Every event exactly once: ids k*ID_SPACE + [0, n_k). */
  int64_t n = 0;
  int64_t *ids = ms_ids(t, -1, &n);
  assert_int_equal(n, n0 + n1);
  for (int64_t i = 0; i < n0; i++)
    assert_int_equal(ids[i], i);
  for (int64_t i = 0; i < n1; i++)
    assert_int_equal(ids[n0 + i], ID_SPACE + i);
  free(ids);
  /* Compaction happened several times and shrank the file count. */
  if (commits < 3)
    fail_msg("only %lld compaction commits (%lld groups failed)", (long long)commits,
             (long long)failed);
  int64_t live = ms_live_files(t);
  if (live * 2 > b0 + b1)
    fail_msg("%lld live files after %lld appends", (long long)live, (long long)(b0 + b1));
  /* Time travel: rows per version from the log's own metrics. */
  inlet_table *th = NULL;
  inlet_history_entry *h = NULL;
  size_t nh = 0;
  assert_int_equal(inlet_table_open(&th, t, &err), 0);
  if (inlet_table_history(&h, &nh, th, 0, &err) != 0) fail_msg("history: %s", err.message);
  inlet_table_free(th);
  int64_t latest = h[0].version;
  int64_t *rows_at = calloc((size_t)latest + 1, sizeof *rows_at);
  bool *optimize = calloc((size_t)latest + 1, sizeof *optimize);
  for (size_t i = 0; i < nh; i++) {
    int64_t v = h[i].version;
    bool opt = h[i].operation && strcmp(h[i].operation, "OPTIMIZE") == 0;
    optimize[v] = opt;
    rows_at[v] = opt ? 0 : metric_rows(h[i].metrics_json);
  }
  for (int64_t v = 1; v <= latest; v++)
    rows_at[v] += rows_at[v - 1];
  assert_int_equal(rows_at[latest], n0 + n1);
  int64_t stride = latest / 25 + 1, checked = 0, opt_seen = 0;
  for (int64_t v = 0; v <= latest; v++) {
    bool pick = v % stride == 0 || v == latest || optimize[v] || (v < latest && optimize[v + 1]);
    if (optimize[v]) opt_seen++;
    if (!pick) continue;
    check_version_rows(t, v, rows_at[v]);
    checked++;
  }
  assert_int_equal(opt_seen, commits);
  assert_true(checked > commits); /* each compaction version and more */
  print_message("%lld events in %lld appends, %lld versions, %lld compaction commits (%lld groups "
                "failed on conflicts), %lld live files, %lld versions read back\n",
                (long long)(n0 + n1), (long long)(b0 + b1), (long long)latest + 1,
                (long long)commits, (long long)failed, (long long)live, (long long)checked);
  inlet_history_free(h, nh);
  free(rows_at);
  free(optimize);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrency__ingesters_and_compactor_keep_every_event_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
