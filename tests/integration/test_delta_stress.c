/*
 * Stress: 4 writer processes each commit APPENDS one-row appends to the
 * same table while a reader process polls snapshots. Afterwards the table
 * has 1 + 4 * APPENDS versions and every row exactly once, and every
 * snapshot the reader saw was consistent: at version v it held exactly v
 * files and v rows (each append adds one file with one row), and versions
 * never went backwards.
 *
 * Full size: 250 appends per writer, 1,001 versions (about a minute on a
 * loaded 2-core machine, mostly fsyncs); INLET_STRESS_APPENDS=N changes it.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inlet/table.h"

#define WRITERS 4
#define MAX_APPENDS 1000
static int APPENDS = 250;

static void writer(const char *table, int w) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  inlet_schema_parse(&s, "id long not null", &err);
  inlet_table *t = NULL;
  if (inlet_table_open(&t, table, &err) < 0) _exit(10);
  for (int i = 0; i < APPENDS; i++) {
    inlet_batch b;
    inlet_batch_init(&b, &s, &err);
    inlet_array_append_int(&b.columns[0], &s.fields[0], (int64_t)w * 100000 + i, &err);
    b.num_rows = 1;
    inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
    ao.compression = INLET_COMPRESSION_UNCOMPRESSED;
    int rc = inlet_table_append(t, &b, 1, &ao, NULL, &err);
    inlet_batch_reset(&b);
    if (rc < 0) {
      fprintf(stderr, "writer %d append %d: %s\n", w, i, inlet_errmsg(&err));
      _exit(11);
    }
  }
  inlet_table_free(t);
  inlet_schema_reset(&s);
  _exit(0);
}

/* Polls until the last version appears; exit status 0 when all consistent. */
static void reader(const char *table) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  if (inlet_table_open(&t, table, &err) < 0) _exit(20);
  int64_t last = -1, polls = 0;
  const int64_t final_version = (int64_t)WRITERS * APPENDS;
  while (last < final_version) {
    inlet_snapshot *s = NULL;
    if (inlet_table_snapshot(&s, t, &err) < 0) {
      fprintf(stderr, "reader: %s\n", inlet_errmsg(&err));
      _exit(21);
    }
    int64_t v = inlet_snapshot_version(s), rows = 0;
    for (int64_t i = 0; i < inlet_snapshot_num_files(s); i++) {
      inlet_file_info fi;
      inlet_snapshot_file(s, i, &fi);
      rows += fi.num_records;
    }
    if (v < last || inlet_snapshot_num_files(s) != v || rows != v) {
      fprintf(stderr, "reader: inconsistent snapshot v%lld: %lld files, %lld rows (last %lld)\n",
              (long long)v, (long long)inlet_snapshot_num_files(s), (long long)rows,
              (long long)last);
      _exit(22);
    }
    last = v;
    polls++;
    inlet_snapshot_free(s);
    usleep(20000);
  }
  fprintf(stderr, "reader: %lld consistent snapshots\n", (long long)polls);
  inlet_table_free(t);
  _exit(0);
}

static void test_stress__writers_and_polling_reader(void **state) {
  (void)state;
  const char *env = getenv("INLET_STRESS_APPENDS");
  if (env && atoi(env) > 0 && atoi(env) <= MAX_APPENDS) APPENDS = atoi(env);
  char *dir = tu_mkdtemp("delta-stress");
  char table[4200];
  snprintf(table, sizeof table, "%s/t", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long not null", &err), 0);
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_create(&t, table, &s, NULL, &err), 0);
  pid_t pids[WRITERS + 1];
  for (int w = 0; w <= WRITERS; w++) {
    pids[w] = fork();
    assert_true(pids[w] >= 0);
    if (pids[w] == 0) {
      if (w == WRITERS)
        reader(table);
      else
        writer(table, w);
    }
  }
  for (int w = 0; w <= WRITERS; w++) {
    int st = 0;
    waitpid(pids[w], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("process %d failed (status %d)", w, st);
  }
  inlet_snapshot *sn = NULL;
  assert_int_equal(inlet_table_snapshot(&sn, t, &err), 0);
  assert_int_equal(inlet_snapshot_version(sn), (int64_t)WRITERS * APPENDS);
  inlet_table_scan *sc = NULL;
  assert_int_equal(inlet_table_scan_open(&sc, sn, &err), 0);
  static unsigned char seen[WRITERS][MAX_APPENDS];
  memset(seen, 0, sizeof seen);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int rc;
  int64_t rows = 0;
  while ((rc = inlet_table_scan_next(sc, &b, &err)) == 1) {
    for (int64_t r = 0; r < b.num_rows; r++) {
      int64_t id = ((int64_t *)b.columns[0].values)[r];
      seen[id / 100000][id % 100000]++;
      rows++;
    }
  }
  assert_int_equal(rc, 0);
  assert_int_equal(rows, (int64_t)WRITERS * APPENDS);
  for (int w = 0; w < WRITERS; w++)
    for (int i = 0; i < APPENDS; i++)
      assert_int_equal(seen[w][i], 1);
  inlet_batch_reset(&b);
  inlet_table_scan_free(sc);
  inlet_snapshot_free(sn);
  inlet_table_free(t);
  inlet_schema_reset(&s);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stress__writers_and_polling_reader),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
