/*
 * Issue 18 on object stores: parallel scans, snapshot loads, checkpoint
 * writes and compaction of s3:// (through the SigV4-checking proxy in front
 * of s3rver) and az:// (Azurite) tables, whose pool threads each use a
 * storage handle of their own (storage.h "Threads"). The thread count changes speed, never
 * results:
 *   - a table of several files, and its compaction into one file of many
 *     row groups: `scan` at --threads 1, 2 and 4 gives the same rows in the
 *     same order, with --unordered the same rows, and with a predicate, a
 *     limit and both the same rows as one thread;
 *   - a table with deletion vectors and a checkpoint: the same at 1 and 4;
 *   - a data file missing from the store: the same exit status and message
 *     at 4 threads as at 1;
 *   - a table of many commits with a v2 checkpoint (sidecars) in the middle:
 *     `describe --json`, `scan --explain` (the file list) and the rows at
 *     --threads 1 and 4, at the latest version and at one before the
 *     checkpoint (a replay of commits only);
 *   - a v2 checkpoint written on the store at --threads 4 (sidecars written
 *     side by side) reads back as the one written at 1 thread;
 *   - compaction of a partitioned table on the store at --threads 4 (bins
 *     rewritten side by side) makes the commits and rows of 1 thread;
 *   - a clone of a storage handle reads what the handle reads, on another
 *     thread, while the handle is in use.
 */
#include "log_support.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"
#include "objstore_env.h"
#include "storage/storage.h"
#include "util/util.h"

static tu_emulators emu;
static char *work; /* local tables, built once and uploaded to both stores */

#define FILE_ROWS 50000 /* rows per appended file: more than a parallel run's minimum */
#define N_FILES 4
#define COMMITS_BEFORE 60 /* one-row commits before the checkpoint */
#define COMMITS_AFTER 50

/* work/files: N_FILES appends of FILE_ROWS rows; work/compacted: the same
 * compacted into one file of many small row groups; work/log: one-row
 * commits around a v2 checkpoint with sidecars. Then all three on both
 * stores. */
static int group_setup(void **state) {
  (void)state;
  work = strdup(tu_mkdtemp("objstore_threads"));
  for (int f = 0; f < N_FILES; f++) {
    char p[4200];
    snprintf(p, sizeof p, "%s/in%d.ndjson", work, f);
    FILE *o = fopen(p, "w");
    assert_non_null(o);
    for (int i = f * FILE_ROWS; i < (f + 1) * FILE_ROWS; i++)
      fprintf(o, "{\"id\":%d,\"s\":\"s%d\",\"g\":%d,\"x\":%d.%02d}\n", i, (i * 7919) % 1000, i % 7,
              (i * 37) % 1000, i % 100);
    fclose(o);
  }
  free(ls_sh_out(__func__,
                 "cd '%s' && '%s' create files --schema 'id long, s string, g int, x double' && "
                 "for f in 0 1 2 3; do '%s' append files in$f.ndjson >/dev/null || exit 1; done && "
                 "cp -R files compacted && '%s' compact compacted --min-files 2 "
                 "--row-group-size 64KiB >/dev/null",
                 work, INLET_BIN, INLET_BIN, INLET_BIN));
  free(
      ls_sh_out(__func__,
                "cd '%s' && '%s' create log --schema 'id long, s string' "
                "--property delta.checkpointPolicy=v2 --property inlet.checkpoint.sidecarActions=8 "
                "--property delta.checkpointInterval=1000000",
                work, INLET_BIN));
  char t[4200];
  snprintf(t, sizeof t, "%s/log", work);
  ls_append_range(t, 0, COMMITS_BEFORE);
  free(ls_sh_out(__func__, "cd '%s' && '%s' checkpoint log --threads 1 >/dev/null", work,
                 INLET_BIN));
  ls_append_range(t, 1000, COMMITS_AFTER);
  /* work/cpw: one-row commits and no checkpoint yet, for checkpoints
   * written on the stores (sidecars of 8 actions: many sidecars). */
  free(
      ls_sh_out(__func__,
                "cd '%s' && '%s' create cpw --schema 'id long, s string' "
                "--property delta.checkpointPolicy=v2 --property inlet.checkpoint.sidecarActions=8 "
                "--property delta.checkpointInterval=1000000",
                work, INLET_BIN));
  snprintf(t, sizeof t, "%s/cpw", work);
  ls_append_range(t, 0, COMMITS_BEFORE);
  /* work/parts: the appended files in 7 partitions, 4 small files each: 7
   * bins, rewritten side by side at --threads 4. */
  free(ls_sh_out(__func__,
                 "cd '%s' && '%s' create parts --schema 'id long, s string, g int, x double' "
                 "--partition-by g && for f in 0 1 2 3; do '%s' append parts in$f.ndjson "
                 ">/dev/null || exit 1; done",
                 work, INLET_BIN, INLET_BIN));
  /* The compacted table is one file of many row groups, too large for the
   * scans' whole-file prefetch (1 MiB): its runs read ranges through their
   * own handles; the appended files are small and prefetched whole. */
  char *meta =
      ls_sh_out(__func__,
                "cd '%s/compacted' && '%s' parquet meta \"$(ls -t *.parquet | head -n 1)\" "
                "--json | jq -r '\"\\(.num_row_groups) \\(.file_size)\"'",
                work, INLET_BIN);
  long n_rg = 0, size = 0;
  assert_int_equal(sscanf(meta, "%ld %ld", &n_rg, &size), 2);
  assert_true(n_rg >= 16);
  assert_true(size > (1L << 20));
  free(meta);

  tu_emulators_start(&emu, true, true);
  tu_emulators_env(&emu);
  static const char *const kinds[] = {"s3", "az"};
  static const char *const tables[] = {"files", "compacted", "log"};
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 3; i++) {
      char dir[4200], url[256];
      snprintf(dir, sizeof dir, "%s/%s", work, tables[i]);
      snprintf(url, sizeof url, "%s://inlet-test/threads/%s", kinds[k], tables[i]);
      tu_upload_dir(dir, url);
    }
  for (int k = 0; k < 2; k++)
    for (int threads = 1; threads <= 4; threads *= 4) {
      static const char *const copies[] = {"cpw", "parts"};
      for (int i = 0; i < 2; i++) {
        char dir[4200], url[256];
        snprintf(dir, sizeof dir, "%s/%s", work, copies[i]);
        snprintf(url, sizeof url, "%s://inlet-test/threads/%s%d", kinds[k], copies[i], threads);
        tu_upload_dir(dir, url);
      }
    }
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  tu_emulators_stop(&emu);
  tu_rmtree(work);
  free(work);
  return 0;
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

static void assert_same(const char *what, const char *one, const char *many) {
  if (strcmp(one, many) == 0) return;
  size_t i = 0, line = 1;
  for (; one[i] && one[i] == many[i]; i++)
    line += one[i] == '\n';
  fail_msg("%s: differs from one thread at line %zu: \"%.80s\" vs \"%.80s\" (%zu vs %zu bytes)",
           what, line, many + i, one + i, strlen(many), strlen(one));
}

/* `scan URL OPTS --threads N`, the rows as CSV (sorted with @p sorted). */
static char *scan_rows(const char *url, const char *opts, int threads, bool sorted) {
  return ls_sh_out(__func__, "'%s' scan '%s' %s --format csv --threads %d%s", INLET_BIN, url, opts,
                   threads, sorted ? " | LC_ALL=C sort" : "");
}

static void scans_agree(const char *kind, const char *table, int expect_rows) {
  char url[256];
  snprintf(url, sizeof url, "%s://inlet-test/threads/%s", kind, table);
  static const char *const opts[] = {"", "--where 'g = 3'", "--limit 1000",
                                     "--where 'g = 3 and x > 500' --limit 7000",
                                     "--columns id,s --where 'id >= 170000'"};
  for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++) {
    char *one = scan_rows(url, opts[o], 1, false);
    char *one_sorted = scan_rows(url, opts[o], 1, true);
    if (o == 0) assert_int_equal(count_lines(one), expect_rows + 1); /* + the header */
    if (o == 2) assert_int_equal(count_lines(one), 1000 + 1);
    assert_true(count_lines(one) > 1);
    for (int threads = 2; threads <= 4; threads *= 2) {
      char what[1024];
      snprintf(what, sizeof what, "%s %s --threads %d", url, opts[o], threads);
      char *many = scan_rows(url, opts[o], threads, false);
      assert_same(what, one, many);
      free(many);
      /* Unordered: the same rows (a limit may pick other ones). */
      if (!strstr(opts[o], "--limit")) {
        char uopts[256];
        snprintf(uopts, sizeof uopts, "%s --unordered", opts[o]);
        snprintf(what, sizeof what, "%s %s --threads %d", url, uopts, threads);
        many = scan_rows(url, uopts, threads, true);
        assert_same(what, one_sorted, many);
        free(many);
      } else {
        snprintf(what, sizeof what, "%s %s --unordered --threads %d", url, opts[o], threads);
        char uopts[256];
        snprintf(uopts, sizeof uopts, "%s --unordered", opts[o]);
        many = scan_rows(url, uopts, threads, false);
        assert_int_equal(count_lines(many), count_lines(one));
        free(many);
      }
    }
    free(one);
    free(one_sorted);
  }
}

static void test_objstore_threads__s3_scans_agree(void **state) {
  (void)state;
  scans_agree("s3", "files", N_FILES * FILE_ROWS);
  scans_agree("s3", "compacted", N_FILES * FILE_ROWS);
}

static void test_objstore_threads__azure_scans_agree(void **state) {
  (void)state;
  scans_agree("az", "files", N_FILES * FILE_ROWS);
  scans_agree("az", "compacted", N_FILES * FILE_ROWS);
}

/* Deletion vectors (read by the parallel scan's parent, per file) and a
 * checkpoint, on both stores. */
static void test_objstore_threads__deletion_vectors_agree(void **state) {
  (void)state;
  static const char *const kinds[] = {"s3", "az"};
  for (int k = 0; k < 2; k++) {
    char url[256];
    snprintf(url, sizeof url, "%s://inlet-test/threads/dv", kinds[k]);
    tu_upload_dir(INLET_SOURCE_DIR
                  "/../shared/testdata/delta-golden/tables/dv-partitioned-with-checkpoint",
                  url);
    char *one = scan_rows(url, "", 1, false);
    char *many = scan_rows(url, "", 4, false);
    assert_int_equal(count_lines(one), 35 + 1);
    assert_same(url, one, many);
    free(many);
    many = scan_rows(url, "--version 10", 4, false);
    free(one);
    one = scan_rows(url, "--version 10", 1, false);
    assert_int_equal(count_lines(one), 40 + 1);
    assert_same(url, one, many);
    free(one);
    free(many);
  }
}

/* A data file the log names but the store lacks: the error of one thread. */
static void test_objstore_threads__missing_file_same_error(void **state) {
  (void)state;
  static const char *const kinds[] = {"s3", "az"};
  for (int k = 0; k < 2; k++) {
    char url[256];
    snprintf(url, sizeof url, "%s://inlet-test/threads/broken", kinds[k]);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/files", work);
    tu_upload_dir(dir, url);
    /* The third file of the log (in log order) goes. */
    char *victim = ls_sh_out(__func__,
                             "cd '%s' && cat _delta_log/00000000000000000003.json | "
                             "jq -r 'select(.add) | .add.path'",
                             dir);
    victim[strcspn(victim, "\n")] = 0;
    assert_true(strlen(victim) > 8);
    inlet_storage *st = NULL;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(inlet_storage_open_url(&st, url, NULL, &err), 0);
    assert_int_equal(st->ops->remove(st, victim, &err), 0);
    st->ops->free(st);
    tu_result r1, r4;
    tu_sh(&r1, "'%s' scan '%s' --format csv --threads 1 | md5sum", INLET_BIN, url);
    tu_sh(&r4, "'%s' scan '%s' --format csv --threads 4 | md5sum", INLET_BIN, url);
    tu_result e1, e4;
    tu_sh(&e1, "'%s' scan '%s' --format csv --threads 1 > /dev/null", INLET_BIN, url);
    tu_sh(&e4, "'%s' scan '%s' --format csv --threads 4 > /dev/null", INLET_BIN, url);
    assert_int_not_equal(e1.status, 0);
    assert_int_equal(e4.status, e1.status);
    assert_non_null(strstr(e1.err, victim));
    assert_string_equal(e4.err, e1.err);
    /* The rows before the failure too. */
    assert_string_equal(r4.out, r1.out);
    tu_result_free(&r1);
    tu_result_free(&r4);
    tu_result_free(&e1);
    tu_result_free(&e4);
    free(victim);
  }
}

/* The log table loaded at 1 and 4 threads: the same snapshot. */
static void test_objstore_threads__snapshot_loads_agree(void **state) {
  (void)state;
  static const char *const kinds[] = {"s3", "az"};
  static const char *const versions[] = {"", "--version 40"};
  for (int k = 0; k < 2; k++) {
    char url[256];
    snprintf(url, sizeof url, "%s://inlet-test/threads/log", kinds[k]);
    char *d1 = ls_sh_out(__func__, "'%s' describe '%s' --json --threads 1", INLET_BIN, url);
    char *d4 = ls_sh_out(__func__, "'%s' describe '%s' --json --threads 4", INLET_BIN, url);
    assert_non_null(strstr(d1, "\"version\""));
    assert_same("describe --json", d1, d4);
    free(d1);
    free(d4);
    for (int v = 0; v < 2; v++) {
      char *x1 = ls_sh_out(__func__, "'%s' scan '%s' %s --explain --threads 1", INLET_BIN, url,
                           versions[v]);
      char *x4 = ls_sh_out(__func__, "'%s' scan '%s' %s --explain --threads 4", INLET_BIN, url,
                           versions[v]);
      assert_same("scan --explain", x1, x4);
      free(x1);
      free(x4);
      char *r1 = scan_rows(url, versions[v], 1, false);
      char *r4 = scan_rows(url, versions[v], 4, false);
      assert_int_equal(count_lines(r1), (v == 0 ? COMMITS_BEFORE + COMMITS_AFTER : 40) + 1);
      assert_same("scan after a threaded load", r1, r4);
      free(r1);
      free(r4);
    }
  }
}

typedef struct clone_read {
  inlet_storage *st;
  const char *path;
  uint8_t *data;
  size_t len;
  int rc;
} clone_read;

static void *read_on_thread(void *arg) {
  clone_read *c = arg;
  inlet_error err = INLET_ERROR_INIT;
  for (int i = 0; i < 20 && c->rc == 0; i++) {
    inlet_free(c->data);
    c->data = NULL;
    c->rc = c->st->ops->get_bytes(c->st, c->path, 1 << 20, &c->data, &c->len, &err);
  }
  return NULL;
}

/* A clone reads through a client of its own while its original reads too. */
/* A v2 checkpoint written on the store at 4 threads (its sidecars written
 * side by side, each task through a handle of its own) reads back as the
 * one written at 1 thread: every row comes from the sidecars. */
static void test_objstore_threads__checkpoint_sidecars_written_on_threads(void **state) {
  (void)state;
  static const char *const kinds[] = {"s3", "az"};
  for (int k = 0; k < 2; k++) {
    char *rows[2], *desc[2];
    for (int i = 0; i < 2; i++) {
      int threads = i ? 4 : 1;
      char url[256];
      snprintf(url, sizeof url, "%s://inlet-test/threads/cpw%d", kinds[k], threads);
      char *out = ls_sh_out(__func__, "'%s' checkpoint '%s' --threads %d", INLET_BIN, url, threads);
      assert_non_null(strstr(out, "checkpoint written at version"));
      free(out);
      rows[i] = scan_rows(url, "", 1, true);
      desc[i] = ls_sh_out(__func__,
                          "'%s' describe '%s' --json --threads 2 | jq -c '[.version, .files, "
                          ".last_checkpoint]'",
                          INLET_BIN, url);
    }
    assert_same("checkpoint written at 4 threads", rows[0], rows[1]);
    assert_int_equal(count_lines(rows[0]), COMMITS_BEFORE + 1);
    assert_string_equal(desc[0], desc[1]);
    char want[64];
    snprintf(want, sizeof want, "[%d,%d,%d]\n", COMMITS_BEFORE, COMMITS_BEFORE, COMMITS_BEFORE);
    assert_string_equal(desc[0], want);
    for (int i = 0; i < 2; i++) {
      free(rows[i]);
      free(desc[i]);
    }
  }
}

/* Compaction on the store at --threads 4 (the bins of 7 partitions
 * rewritten side by side, each slot reading and writing through a handle of
 * its own) makes the commits, files and rows of --threads 1. */
static void test_objstore_threads__compaction_bins_on_threads(void **state) {
  (void)state;
  static const char *const kinds[] = {"s3", "az"};
  for (int k = 0; k < 2; k++) {
    char *rows[2], *hist[2];
    for (int i = 0; i < 2; i++) {
      int threads = i ? 4 : 1;
      char url[256];
      snprintf(url, sizeof url, "%s://inlet-test/threads/parts%d", kinds[k], threads);
      free(ls_sh_out(__func__, "'%s' compact '%s' --min-files 2 --threads %d >/dev/null", INLET_BIN,
                     url, threads));
      rows[i] = scan_rows(url, "", 1, true);
      /* Per commit: operation, files added and removed, bytes added. */
      hist[i] = ls_sh_out(__func__,
                          "'%s' history '%s' --json | jq -c '[.commits[] | [.version, .operation, "
                          ".operation_metrics.numAddedFiles, .operation_metrics.numRemovedFiles, "
                          ".operation_metrics.numAddedBytes]]'",
                          INLET_BIN, url);
    }
    assert_same("compaction at 4 threads: rows", rows[0], rows[1]);
    assert_int_equal(count_lines(rows[0]), N_FILES * FILE_ROWS + 1);
    assert_same("compaction at 4 threads: commits", hist[0], hist[1]);
    /* One commit per bin (the default): 7, so 4 slots were busy at once. */
    int optimize = 0;
    for (const char *p = hist[0]; (p = strstr(p, "OPTIMIZE")) != NULL; p++)
      optimize++;
    assert_int_equal(optimize, 7);
    for (int i = 0; i < 2; i++) {
      free(rows[i]);
      free(hist[i]);
    }
  }
}

static void test_objstore_threads__clone_reads_beside_its_handle(void **state) {
  (void)state;
  static const char *const kinds[] = {"s3", "az"};
  for (int k = 0; k < 2; k++) {
    char url[256];
    snprintf(url, sizeof url, "%s://inlet-test/threads/log", kinds[k]);
    inlet_storage *st = NULL, *other = NULL;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(inlet_storage_open_url(&st, url, NULL, &err), 0);
    assert_true(inlet_storage_threads_ok(st));
    assert_int_equal(inlet_storage_thread_handle(st, &other, &err), 0);
    assert_ptr_not_equal(other, st);
    assert_string_equal(other->root, st->root);
    assert_int_equal(other->flags, st->flags);
    clone_read a = {st, "_delta_log/00000000000000000003.json", NULL, 0, 0};
    clone_read b = {other, "_delta_log/00000000000000000003.json", NULL, 0, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, read_on_thread, &b), 0);
    read_on_thread(&a);
    pthread_join(th, NULL);
    assert_int_equal(a.rc, 0);
    assert_int_equal(b.rc, 0);
    assert_true(a.len > 10);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    inlet_free(a.data);
    inlet_free(b.data);
    inlet_storage_thread_handle_free(st, other);
    st->ops->free(st);
  }
  /* A local handle is its own thread handle. */
  inlet_storage *st = NULL, *same = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_open_url(&st, work, NULL, &err), 0);
  assert_int_equal(inlet_storage_thread_handle(st, &same, &err), 0);
  assert_ptr_equal(same, st);
  inlet_storage_thread_handle_free(st, same);
  st->ops->free(st);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_objstore_threads__clone_reads_beside_its_handle),
      cmocka_unit_test(test_objstore_threads__s3_scans_agree),
      cmocka_unit_test(test_objstore_threads__azure_scans_agree),
      cmocka_unit_test(test_objstore_threads__deletion_vectors_agree),
      cmocka_unit_test(test_objstore_threads__missing_file_same_error),
      cmocka_unit_test(test_objstore_threads__snapshot_loads_agree),
      cmocka_unit_test(test_objstore_threads__checkpoint_sidecars_written_on_threads),
      cmocka_unit_test(test_objstore_threads__compaction_bins_on_threads),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
