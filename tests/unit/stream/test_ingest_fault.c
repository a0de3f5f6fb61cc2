/*
 * Fault injection for ingestion with dead letters (white box: the table's
 * storage is swapped for the fault-injecting backend of src/storage/fault.h,
 * so data files, dead-letter temporaries, their publication and cleanup,
 * commits and checkpoints all pass through it):
 *   - an ingestion stopped ("crashed") before each storage operation in turn,
 *     then run again to the end without faults, leaves the table readable
 *     with every good record exactly once and every bad record in exactly one
 *     published dead-letter file, never in two;
 *   - a single failing operation (no crash) either fails the run cleanly or
 *     is survived, and the rerun again ends with nothing lost or duplicated;
 *   - without faults the dead letters use only storage operations (their
 *     creation, appends, sync and publication are counted by the backend);
 *   - stdin, which cannot be replayed: a batch whose commit fails takes its
 *     published dead letters with it, so what the table and the dead letters
 *     hold together is a prefix of the input (a lost tail, never a hole).
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "delta/delta_table_int.h"
#include "inlet/inlet.h"
#include "storage/fault.h"

#define N_RECORDS 60
#define BAD_EVERY 5 /* records 0, 5, 10, ... are not JSON */

static char root[4096];
static char source[4300], src_path[4200];

static int setup(void **state) {
  (void)state;
  snprintf(root, sizeof root, "%s", tu_mkdtemp("ingest-fault"));
  snprintf(src_path, sizeof src_path, "%s/in.ndjson", root);
  snprintf(source, sizeof source, "file:%s", src_path);
  FILE *fp = fopen(src_path, "w");
  assert_non_null(fp);
  for (int i = 0; i < N_RECORDS; i++) {
    if (i % BAD_EVERY == 0)
      fprintf(fp, "bad%d\n", i);
    else
      fprintf(fp, "{\"id\":%d,\"v\":%d}\n", i, i * 7);
  }
  fclose(fp);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(root);
  return 0;
}

static void new_table(char *path, size_t cap, const char *tag, int64_t k) {
  snprintf(path, cap, "%s/%s-%lld", root, tag, (long long)k);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long not null, v long", &err), 0);
  inlet_table *t = NULL;
  if (inlet_table_create(&t, path, &s, NULL, &err) != 0) fail_msg("create: %s", err.message);
  inlet_table_free(t);
  inlet_schema_reset(&s);
}

/* One ingestion of the whole source in batches of 20 rows, through a fault
 * wrapper around the table's storage (armed when @p fault). */
static int ingest_from(const char *src, const char *path, bool fault, inlet_fault_op op,
                       int64_t after, inlet_fault_mode mode, int64_t *ops, int64_t *creates) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, path, &err), 0);
  inlet_storage *orig = t->st, *fs = NULL;
  assert_int_equal(inlet_storage_fault_wrap(&fs, orig, false, &err), 0);
  t->st = fs;
  if (fault) inlet_fault_arm(fs, op, after, mode);
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = src;
  o.once = true;
  o.final = true;
  o.max_rows = 20;
  o.app_id = "A";
  inlet_ingest_progress p;
  int rc = inlet_ingest_run(&p, t, &o, &err);
  if (ops) *ops = inlet_fault_count(fs, INLET_FAULT_ANY);
  if (creates) *creates = inlet_fault_count(fs, INLET_FAULT_CREATE);
  inlet_fault_disarm(fs);
  t->st = orig;
  fs->ops->free(fs);
  inlet_table_free(t);
  return rc;
}

static int ingest(const char *path, bool fault, inlet_fault_op op, int64_t after,
                  inlet_fault_mode mode, int64_t *ops, int64_t *creates) {
  return ingest_from(source, path, fault, op, after, mode, ops, creates);
}

/* Every good id exactly once in the table. */
static void count_rows(const char *path, int64_t k, int seen[N_RECORDS]) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, path, &err), 0);
  if (inlet_table_snapshot(&s, t, &err) != 0) fail_msg("k=%lld: %s", (long long)k, err.message);
  inlet_table_scan *sc = NULL;
  assert_int_equal(inlet_table_scan_open(&sc, s, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int rc;
  while ((rc = inlet_table_scan_next(sc, &b, &err)) == 1) {
    int idx = inlet_schema_find(&b.schema, "id");
    assert_true(idx >= 0);
    const int64_t *ids = (const int64_t *)b.columns[idx].values;
    for (int64_t r = 0; r < b.num_rows; r++) {
      assert_true(ids[r] >= 0 && ids[r] < N_RECORDS);
      seen[ids[r]]++;
    }
  }
  inlet_batch_reset(&b);
  if (rc != 0) fail_msg("k=%lld: scan: %s", (long long)k, err.message);
  inlet_table_scan_free(sc);
  inlet_snapshot_free(s);
  inlet_table_free(t);
}

static void expect_rows(const char *path, int64_t k) {
  int seen[N_RECORDS] = {0};
  count_rows(path, k, seen);
  for (int i = 0; i < N_RECORDS; i++)
    if (seen[i] != (i % BAD_EVERY == 0 ? 0 : 1))
      fail_msg("k=%lld: id %d in the table %d times", (long long)k, i, seen[i]);
}

/* Every bad record in exactly one published dead-letter file. */
static void expect_dead_letters(const char *path, int64_t k) {
  tu_result r;
  tu_sh(&r, "cd '%s/_errors' && find . -type f -name '*.ndjson' ! -name '.tmp-*' -exec cat {} +",
        path);
  assert_int_equal(r.status, 0);
  for (int i = 0; i < N_RECORDS; i += BAD_EVERY) {
    char want[64];
    snprintf(want, sizeof want, "\"record\":\"bad%d\"", i);
    int n = 0;
    for (const char *p = r.out; (p = strstr(p, want)) != NULL; p += strlen(want))
      n++;
    if (n != 1)
      fail_msg("k=%lld: bad record %d in %d dead letters:\n%s", (long long)k, i, n, r.out);
  }
  /* 12 records, one line each, and nothing else. */
  int lines = 0;
  for (const char *p = r.out; *p; p++)
    lines += *p == '\n';
  assert_int_equal(lines, N_RECORDS / BAD_EVERY);
  tu_result_free(&r);
}

static void test_fault__dead_letters_use_the_tables_storage(void **state) {
  (void)state;
  char path[4400];
  new_table(path, sizeof path, "plain", 0);
  int64_t ops = 0, creates = 0;
  assert_int_equal(ingest(path, false, INLET_FAULT_ANY, 0, INLET_FAULT_FAIL, &ops, &creates), 0);
  expect_rows(path, -1);
  expect_dead_letters(path, -1);
  /* Every data file and every dead-letter file was created through the
   * storage (commits are published with put_if_absent_bytes, not create);
   * no temporary is left. */
  tu_result r;
  tu_sh(&r, "find '%s' -name '*.parquet' ! -path '*/_delta_log/*' | wc -l", path);
  int64_t data_files = atoll(r.out);
  tu_result_free(&r);
  tu_sh(&r, "find '%s/_errors' -name '*.ndjson' ! -name '.tmp-*' | wc -l", path);
  int64_t dl_files = atoll(r.out);
  tu_result_free(&r);
  assert_true(data_files >= 2 && dl_files >= 2);
  /* Besides those, each commit creates its temporary and its checksum. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, path, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  int64_t commits = inlet_snapshot_version(s); /* version 0 was the create */
  inlet_snapshot_free(s);
  inlet_table_free(t);
  assert_int_equal(creates, data_files + dl_files + 2 * commits);
  assert_true(ops > creates);
  tu_sh(&r, "find '%s/_errors' -name '.tmp-*' | wc -l", path);
  assert_int_equal(atoi(r.out), 0);
  tu_result_free(&r);
}

/* One failing operation of each kind a dead letter uses, at each of its
 * first occurrences, failing before or after it took effect; then a clean
 * rerun. */
static void test_fault__each_dead_letter_operation_kind(void **state) {
  (void)state;
  static const inlet_fault_op kinds[] = {
      INLET_FAULT_CREATE,        INLET_FAULT_APPEND, INLET_FAULT_SYNC,  INLET_FAULT_CLOSE,
      INLET_FAULT_PUT_IF_ABSENT, INLET_FAULT_LIST,   INLET_FAULT_REMOVE};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    for (int64_t after = 0; after < 4; after++) {
      for (int m = 0; m < 2; m++) {
        char path[4400];
        new_table(path, sizeof path, "kind", (int64_t)(i * 100 + (size_t)after * 2 + (size_t)m));
        (void)ingest(path, true, kinds[i], after, m ? INLET_FAULT_FAIL_AFTER : INLET_FAULT_FAIL,
                     NULL, NULL);
        int rc = ingest(path, false, INLET_FAULT_ANY, 0, INLET_FAULT_FAIL, NULL, NULL);
        if (rc != 0)
          fail_msg("%s after %lld: rerun failed", inlet_fault_op_name(kinds[i]), (long long)after);
        expect_rows(path, (int64_t)(i * 100 + (size_t)after));
        expect_dead_letters(path, (int64_t)(i * 100 + (size_t)after));
        tu_rmtree(path);
      }
    }
  }
}

/* A crash before each storage operation in turn, then a clean rerun. */
static void test_fault__crash_at_each_operation_loses_and_duplicates_nothing(void **state) {
  (void)state;
  char path[4400];
  new_table(path, sizeof path, "count", 0);
  int64_t total = 0;
  assert_int_equal(ingest(path, false, INLET_FAULT_ANY, 0, INLET_FAULT_FAIL, &total, NULL), 0);
  tu_rmtree(path);
  assert_true(total > 20);
  int failed = 0, runs = 0;
  for (int64_t k = 0; k < total; k++) {
    /* A crash before the operation at every k; after it (the operation
     * took effect) at every third. */
    for (int m = 0; m < (k % 3 == 0 ? 2 : 1); m++) {
      runs++;
      new_table(path, sizeof path, "crash", k * 2 + m);
      int rc = ingest(path, true, INLET_FAULT_ANY, k, m ? INLET_FAULT_STOP_AFTER : INLET_FAULT_STOP,
                      NULL, NULL);
      if (rc != 0) failed++;
      rc = ingest(path, false, INLET_FAULT_ANY, 0, INLET_FAULT_FAIL, NULL, NULL);
      if (rc != 0) fail_msg("crash before op %lld: rerun failed", (long long)k);
      expect_rows(path, k);
      expect_dead_letters(path, k);
      tu_rmtree(path);
    }
  }
  /* The faults were real: most crashed runs failed. */
  assert_true(failed > runs / 2);
}

/* stdin: a batch whose commit fails (the first commit, the second, ...;
 * before or after the entry was published) leaves the table and the
 * published dead letters holding together a prefix of the input, each record
 * at most once: the failed batch's dead letters go with it. */
static void test_fault__stdin_failed_commit_leaves_a_prefix(void **state) {
  (void)state;
  int saved = dup(0);
  assert_true(saved >= 0);
  int failures = 0;
  /* PUT_IF_ABSENT: a batch publishes its dead letters, then its commit. */
  for (int64_t after = 1; after <= 5; after += 2) {
    for (int m = 0; m < 2; m++) {
      char path[4400];
      new_table(path, sizeof path, "stdin", after * 2 + m);
      int in = open(src_path, O_RDONLY);
      assert_true(in >= 0);
      assert_int_equal(dup2(in, 0), 0);
      close(in);
      int rc = ingest_from("stdin", path, true, INLET_FAULT_PUT_IF_ABSENT, after,
                           m ? INLET_FAULT_FAIL_AFTER : INLET_FAULT_FAIL, NULL, NULL);
      if (rc != 0) failures++;
      int seen[N_RECORDS] = {0};
      count_rows(path, after, seen);
      tu_result r;
      tu_sh(&r,
            "cd '%s' && mkdir -p _errors && find _errors -type f -name '*.ndjson' ! -name '.tmp-*' "
            "-exec cat {} +",
            path);
      assert_int_equal(r.status, 0);
      for (int i = 0; i < N_RECORDS; i += BAD_EVERY) {
        char want[64];
        snprintf(want, sizeof want, "\"record\":\"bad%d\"", i);
        for (const char *p = r.out; (p = strstr(p, want)) != NULL; p += strlen(want))
          seen[i]++;
      }
      tu_result_free(&r);
      int end = 0;
      while (end < N_RECORDS && seen[end] == 1)
        end++;
      for (int i = 0; i < N_RECORDS; i++)
        if (seen[i] != (i < end ? 1 : 0))
          fail_msg("put_if_absent %lld failing (%s): record %d accounted for %d times, records "
                   "0..%d once (rc %d)",
                   (long long)after, m ? "after" : "before", i, seen[i], end - 1, rc);
      /* A failure before the publish loses the batch and what follows; one
       * after it is a commit that stands, and the run goes on to the end. */
      if (m == 0) assert_true(end < N_RECORDS);
      tu_rmtree(path);
    }
  }
  assert_int_equal(dup2(saved, 0), 0);
  close(saved);
  assert_true(failures >= 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fault__dead_letters_use_the_tables_storage, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_fault__each_dead_letter_operation_kind, setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_fault__crash_at_each_operation_loses_and_duplicates_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fault__stdin_failed_commit_leaves_a_prefix, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
