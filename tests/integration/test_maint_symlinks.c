/*
 * Issue 12, "Deleting what it must not (high)": symbolic links inside a
 * table, through the real binary.
 *   - `inlet vacuum` with the default retention keeps a symlinked partition
 *     directory that holds live files (the link itself is old), and a
 *     symlinked data file, reports each link it left alone, and deletes
 *     nothing behind them; the table reads the same afterwards;
 *   - `inlet compact` never writes through a symlinked partition directory:
 *     that partition's group fails cleanly, nothing appears outside the
 *     table, the table is unchanged and readable; other partitions compact;
 *   - append into a symlinked partition directory is refused the same way.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fx {
  char dir[400];
  char table[512];
  char outside[512];
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("maint_symlinks"));
  snprintf(f->table, sizeof f->table, "%s/t", f->dir);
  snprintf(f->outside, sizeof f->outside, "%s/outside", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Table partitioned by k; @p n appends of one row to each of k=a and k=b. */
static void seed(const fx *f, int n) {
  tu_result r;
  tu_sh(&r, "'%s' create '%s' --schema 'id long, k string' --partition-by k", INLET_BIN, f->table);
  sh_ok(&r, "create");
  tu_result_free(&r);
  for (int i = 0; i < n; i++) {
    tu_sh(&r, "printf '{\"id\":%d,\"k\":\"a\"}\\n{\"id\":%d,\"k\":\"b\"}\\n' | '%s' append '%s' -",
          2 * i, 2 * i + 1, INLET_BIN, f->table);
    sh_ok(&r, "append");
    tu_result_free(&r);
  }
}

static char *scan_sorted(const fx *f) {
  tu_result r;
  tu_sh(&r, "'%s' scan '%s' --format ndjson | sort", INLET_BIN, f->table);
  sh_ok(&r, "scan");
  char *out = r.out;
  r.out = NULL;
  tu_result_free(&r);
  return out;
}

/* Moves k=a out of the table and links it back, everything (the link
 * included) made 30 days old. */
static void link_partition(const fx *f) {
  tu_result r;
  tu_sh(&r,
        "mkdir -p '%s' && mv '%s/k=a' '%s/k=a' && ln -s '%s/k=a' '%s/k=a' && "
        "find '%s' '%s' -exec touch -h -d '30 days ago' {} +",
        f->outside, f->table, f->outside, f->outside, f->table, f->table, f->outside);
  sh_ok(&r, "link");
  tu_result_free(&r);
}

static int count_files(const char *dir) {
  tu_result r;
  tu_sh(&r, "find '%s' -type f | wc -l", dir);
  int n = (int)strtol(r.out, NULL, 10);
  tu_result_free(&r);
  return n;
}

static void test_vacuum_symlink__partition_dir_with_live_files_kept(void **state) {
  fx *f = *state;
  seed(f, 3);
  char *before = scan_sorted(f);
  link_partition(f);
  int outside_files = count_files(f->outside);
  assert_int_equal(outside_files, 3);
  tu_result r;
  tu_sh(&r, "'%s' vacuum '%s'", INLET_BIN, f->table);
  sh_ok(&r, "vacuum");
  assert_non_null(strstr(r.out, "left symbolic link k=a alone"));
  assert_non_null(strstr(r.out, "left 1 symbolic links alone"));
  assert_null(strstr(r.out, "deleted k=a"));
  tu_result_free(&r);
  /* The link and everything behind it are still there; the table reads the same. */
  tu_sh(&r, "test -L '%s/k=a'", f->table);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  assert_int_equal(count_files(f->outside), outside_files);
  char *after = scan_sorted(f);
  assert_string_equal(before, after);
  free(before);
  free(after);
  /* Dry run says the same. */
  tu_sh(&r, "'%s' vacuum '%s' --dry-run", INLET_BIN, f->table);
  sh_ok(&r, "vacuum --dry-run");
  assert_non_null(strstr(r.out, "left symbolic link k=a alone"));
  tu_result_free(&r);
}

/* A symlinked data file is left alone too, even when the log never names it
 * (it would otherwise be judged debris by the link's mtime). */
static void test_vacuum_symlink__file_links_never_deleted(void **state) {
  fx *f = *state;
  seed(f, 1);
  tu_result r;
  tu_sh(&r,
        "mkdir -p '%s' && echo precious > '%s/keep.parquet' && "
        "ln -s '%s/keep.parquet' '%s/k=b/part-99999-link.parquet' && "
        "ln -s /nonexistent '%s/k=b/part-99998-dangling.parquet' && "
        "find '%s' '%s' -exec touch -h -d '30 days ago' {} +",
        f->outside, f->outside, f->outside, f->table, f->table, f->table, f->outside);
  sh_ok(&r, "links");
  tu_result_free(&r);
  tu_sh(&r, "'%s' vacuum '%s'", INLET_BIN, f->table);
  sh_ok(&r, "vacuum");
  assert_non_null(strstr(r.out, "left symbolic link k=b/part-99999-link.parquet alone"));
  assert_non_null(strstr(r.out, "left symbolic link k=b/part-99998-dangling.parquet alone"));
  tu_result_free(&r);
  tu_sh(&r,
        "test -L '%s/k=b/part-99999-link.parquet' && test -L "
        "'%s/k=b/part-99998-dangling.parquet' && grep -q precious '%s/keep.parquet'",
        f->table, f->table, f->outside);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
}

static void test_compact_symlink__no_output_through_linked_partition(void **state) {
  fx *f = *state;
  seed(f, 4);
  char *before = scan_sorted(f);
  link_partition(f);
  int outside_files = count_files(f->outside);
  tu_result r;
  tu_sh(&r, "'%s' compact '%s' --min-files 2", INLET_BIN, f->table);
  /* k=a's group fails (a clean error naming the link); k=b compacts. */
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "k=a is a symbolic link"));
  assert_null(strstr(r.err, "Sanitizer"));
  assert_non_null(strstr(r.out, "compacted k=b"));
  tu_result_free(&r);
  assert_int_equal(count_files(f->outside), outside_files);
  char *after = scan_sorted(f);
  assert_string_equal(before, after);
  free(before);
  free(after);
  /* Appends into the linked partition are refused too; k=b still takes rows. */
  tu_sh(&r, "echo '{\"id\":100,\"k\":\"a\"}' | '%s' append '%s' -", INLET_BIN, f->table);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "k=a is a symbolic link"));
  tu_result_free(&r);
  tu_sh(&r, "echo '{\"id\":101,\"k\":\"b\"}' | '%s' append '%s' -", INLET_BIN, f->table);
  sh_ok(&r, "append to k=b");
  tu_result_free(&r);
  assert_int_equal(count_files(f->outside), outside_files);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_vacuum_symlink__partition_dir_with_live_files_kept,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_vacuum_symlink__file_links_never_deleted, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_compact_symlink__no_output_through_linked_partition,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
