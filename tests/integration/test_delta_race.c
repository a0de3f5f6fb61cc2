/*
 * Concurrent committers in separate processes.
 *   - 8 processes commit "version 1 only" (strict mode) at once: exactly
 *     one wins, the other seven get INLET_ECONFLICT, and the version-1
 *     commit file is the winner's, whole (never overwritten or torn).
 *   - 8 processes append at once without strict mode: all succeed at
 *     distinct versions 1..8 and every row is read back exactly once.
 *   - A writer that loses every allowed attempt gives up with INLET_ECONFLICT.
 * A commit published by write-temp-then-rename() would let a later
 * process silently replace the winner's file; put-if-absent cannot.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inlet/table.h"

#define N_PROCS 8

static void wait_for_go(const char *go) {
  struct stat st;
  for (int i = 0; i < 20000 && stat(go, &st) != 0; i++) {
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
  }
}

/* Child: appends one row (id) and writes "<rc> <version>" to result file. */
static void child(const char *table, const char *go, const char *result, int id, bool strict) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  inlet_schema_parse(&s, "id long not null, who string", &err);
  inlet_batch b;
  inlet_batch_init(&b, &s, &err);
  char who[32];
  snprintf(who, sizeof who, "proc-%d", id);
  inlet_array_append_int(&b.columns[0], &s.fields[0], id, &err);
  inlet_array_append_bytes(&b.columns[1], &s.fields[1], who, strlen(who), &err);
  b.num_rows = 1;
  inlet_table *t = NULL;
  int rc = inlet_table_open(&t, table, &err);
  inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
  ao.expected_version = strict ? 0 : -1;
  ao.operation = who; /* lets the parent tell whose commit landed */
  inlet_table_writer *w = NULL;
  if (rc == 0) rc = inlet_table_writer_open(&w, t, &ao, &err);
  if (rc == 0) rc = inlet_table_writer_write(w, &b, &err);
  wait_for_go(go); /* data written; race only the commits */
  int64_t v = -1;
  if (rc == 0) rc = inlet_table_writer_commit(w, &v, &err);
  FILE *f = fopen(result, "w");
  if (f) {
    fprintf(f, "%d %lld %s\n", rc, (long long)v, rc ? inlet_errmsg(&err) : "");
    fclose(f);
  }
  inlet_table_writer_free(w);
  inlet_table_free(t);
  _exit(0);
}

static void race(bool strict, int *wins, int *conflicts, int64_t versions[N_PROCS], char *table_out,
                 size_t cap) {
  char *dir = tu_mkdtemp("delta-race");
  char table[4200], go[4200];
  snprintf(table, sizeof table, "%s/t", dir);
  snprintf(go, sizeof go, "%s/go", dir);
  snprintf(table_out, cap, "%s", table);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long not null, who string", &err), 0);
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_create(&t, table, &s, NULL, &err), 0);
  inlet_table_free(t);
  inlet_schema_reset(&s);
  pid_t pids[N_PROCS];
  for (int i = 0; i < N_PROCS; i++) {
    char result[4300];
    snprintf(result, sizeof result, "%s/result-%d", table, i);
    pids[i] = fork();
    assert_true(pids[i] >= 0);
    if (pids[i] == 0) child(table, go, result, i, strict);
  }
  struct timespec ts = {0, 200000000};
  nanosleep(&ts, NULL);
  assert_int_equal(tu_write_file(go, "go", 2), 0);
  for (int i = 0; i < N_PROCS; i++) {
    int st;
    waitpid(pids[i], &st, 0);
    assert_true(WIFEXITED(st));
  }
  *wins = *conflicts = 0;
  for (int i = 0; i < N_PROCS; i++) {
    char result[4300];
    snprintf(result, sizeof result, "%s/result-%d", table, i);
    char *txt = tu_read_file(result, NULL);
    assert_non_null(txt);
    int rc;
    long long v;
    assert_int_equal(sscanf(txt, "%d %lld", &rc, &v), 2);
    versions[i] = rc == 0 ? v : -1;
    if (rc == 0)
      (*wins)++;
    else if (rc == INLET_ECONFLICT)
      (*conflicts)++;
    else
      fail_msg("process %d: unexpected result %s", i, txt);
    free(txt);
    unlink(result);
  }
}

static void test_race__strict_commits_exactly_one_wins(void **state) {
  (void)state;
  int wins, conflicts;
  int64_t versions[N_PROCS];
  char table[4200];
  race(true, &wins, &conflicts, versions, table, sizeof table);
  assert_int_equal(wins, 1);
  assert_int_equal(conflicts, N_PROCS - 1);
  int winner = -1;
  for (int i = 0; i < N_PROCS; i++)
    if (versions[i] >= 0) {
      assert_int_equal(versions[i], 1);
      winner = i;
    }
  /* Version 1 is the winner's commit, whole: commitInfo + one add. */
  char path[4300], who[64];
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000001.json", table);
  char *body = tu_read_file(path, NULL);
  assert_non_null(body);
  snprintf(who, sizeof who, "\"operation\":\"proc-%d\"", winner);
  assert_non_null(strstr(body, who));
  int lines = 0;
  for (char *p = body; *p; p++)
    lines += *p == '\n';
  assert_int_equal(lines, 2);
  free(body);
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000002.json", table);
  assert_null(tu_read_file(path, NULL));
  /* The table reads as version 1 with the winner's row only; losers left no files. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  assert_int_equal(inlet_snapshot_version(s), 1);
  assert_int_equal(inlet_snapshot_num_files(s), 1);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  tu_result r;
  tu_sh(&r, "ls '%s' | grep -c parquet; ls -a '%s/_delta_log' | grep -c tmp", table, table);
  assert_string_equal(r.out, "1\n0\n");
  tu_result_free(&r);
}

/* Appends one row through @p t; returns the commit's result. */
static int append_one(inlet_table *t, int64_t id, int max_attempts, inlet_table_writer **keep,
                      int64_t *v, inlet_error *err) {
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long not null, who string", err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, err), 0);
  assert_int_equal(inlet_array_append_int(&b.columns[0], &s.fields[0], id, err), 0);
  assert_int_equal(inlet_array_append_bytes(&b.columns[1], &s.fields[1], "x", 1, err), 0);
  b.num_rows = 1;
  inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
  ao.max_attempts = max_attempts;
  inlet_table_writer *w = NULL;
  assert_int_equal(inlet_table_writer_open(&w, t, &ao, err), 0);
  assert_int_equal(inlet_table_writer_write(w, &b, err), 0);
  inlet_batch_reset(&b);
  inlet_schema_reset(&s);
  if (keep) {
    *keep = w; /* the caller commits it later */
    return 0;
  }
  int rc = inlet_table_writer_commit(w, v, err);
  inlet_table_writer_free(w);
  return rc;
}

/* A writer that loses every one of its max_attempts commit attempts gives up
 * with INLET_ECONFLICT (the CLI's exit 4), having written no commit, and
 * the same append with more attempts lands after the winners. */
static void test_race__giving_up_after_max_attempts_is_a_conflict(void **state) {
  (void)state;
  char *dir = tu_mkdtemp("delta-giveup");
  char table[4200];
  snprintf(table, sizeof table, "%s/t", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long not null, who string", &err), 0);
  inlet_table *t = NULL, *other = NULL;
  assert_int_equal(inlet_table_create(&t, table, &s, NULL, &err), 0);
  inlet_schema_reset(&s);
  assert_int_equal(inlet_table_open(&other, table, &err), 0);
  inlet_table_writer *slow = NULL, *patient = NULL;
  int64_t v = -1;
  assert_int_equal(append_one(t, 1, 2, &slow, NULL, &err), 0);
  assert_int_equal(append_one(t, 2, 5, &patient, NULL, &err), 0);
  /* Two winners take versions 1 and 2 while both writers hold version 0. */
  assert_int_equal(append_one(other, 10, 0, NULL, &v, &err), 0);
  assert_int_equal(v, 1);
  assert_int_equal(append_one(other, 11, 0, NULL, &v, &err), 0);
  assert_int_equal(v, 2);
  v = -1;
  assert_int_equal(inlet_table_writer_commit(slow, &v, &err), INLET_ECONFLICT);
  assert_non_null(strstr(inlet_errmsg(&err), "gave up committing after 2 attempts"));
  assert_int_equal(v, -1);
  inlet_table_writer_free(slow);
  char path[4300];
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000003.json", table);
  assert_null(tu_read_file(path, NULL));
  assert_int_equal(inlet_table_writer_commit(patient, &v, &err), 0);
  assert_int_equal(v, 3);
  inlet_table_writer_free(patient);
  inlet_table_free(other);
  inlet_table_free(t);
  tu_rmtree(dir);
}

static void test_race__concurrent_appends_all_land_once(void **state) {
  (void)state;
  int wins, conflicts;
  int64_t versions[N_PROCS];
  char table[4200];
  race(false, &wins, &conflicts, versions, table, sizeof table);
  assert_int_equal(wins, N_PROCS);
  bool seen[N_PROCS + 1] = {false};
  for (int i = 0; i < N_PROCS; i++) {
    assert_true(versions[i] >= 1 && versions[i] <= N_PROCS);
    assert_false(seen[versions[i]]);
    seen[versions[i]] = true;
  }
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  assert_int_equal(inlet_snapshot_version(s), N_PROCS);
  inlet_table_scan *sc = NULL;
  assert_int_equal(inlet_table_scan_open(&sc, s, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int count[N_PROCS] = {0};
  int rc;
  while ((rc = inlet_table_scan_next(sc, &b, &err)) == 1)
    for (int64_t r = 0; r < b.num_rows; r++)
      count[((int64_t *)b.columns[0].values)[r]]++;
  assert_int_equal(rc, 0);
  for (int i = 0; i < N_PROCS; i++)
    assert_int_equal(count[i], 1);
  inlet_batch_reset(&b);
  inlet_table_scan_free(sc);
  inlet_snapshot_free(s);
  inlet_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_race__strict_commits_exactly_one_wins),
      cmocka_unit_test(test_race__concurrent_appends_all_land_once),
      cmocka_unit_test(test_race__giving_up_after_max_attempts_is_a_conflict),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
