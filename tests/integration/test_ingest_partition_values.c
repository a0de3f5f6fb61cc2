/*
 * Issue 12, "Crashes (critical)": partition values and data-file creation
 * failures on partitioned tables, end to end through the real binary.
 *   - any failure to create a data file of a partitioned table (the
 *     partition directory cannot be made; the table directory deleted under
 *     a --follow ingester; a read-only filesystem) is a clean error: an exit
 *     status, a message, the table untouched — never a signal.
 */
#include "testutil.h"

#include <sys/stat.h>

#include "ingest_support.h"

typedef struct fx {
  char dir[400];
  char table[512];
  char src[512];
  char source[600];
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("ingest_pvals"));
  snprintf(f->table, sizeof f->table, "%s/t", f->dir);
  snprintf(f->src, sizeof f->src, "%s/in.ndjson", f->dir);
  snprintf(f->source, sizeof f->source, "file:%s", f->src);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  tu_result r;
  tu_sh(&r, "umount '%s/ro' 2>/dev/null", f->dir);
  tu_result_free(&r);
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void write_text(const char *path, const char *mode, const char *text) {
  FILE *fp = fopen(path, mode);
  assert_non_null(fp);
  fputs(text, fp);
  fclose(fp);
}

/* A sanitizer build reports a crash on stderr and may still exit with 1:
 * a clean error is exit status 1 with a message and no such report. */
static void assert_clean_error(const tu_result *r, const char *needle) {
  if (r->status != 1 || strstr(r->err, "runtime error") || strstr(r->err, "Sanitizer") ||
      !strstr(r->err, needle))
    fail_msg("expected a clean error naming \"%s\", got status %d: %s", needle, r->status,
             r->err);
}

static int64_t table_version(const char *table) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  int64_t v = inlet_snapshot_version(s);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  return v;
}

static int64_t count_rows(const char *table) {
  tu_result r;
  tu_sh(&r, "'%s' scan '%s' --format ndjson | wc -l", INLET_BIN, table);
  assert_int_equal(r.status, 0);
  int64_t n = strtoll(r.out, NULL, 10);
  tu_result_free(&r);
  return n;
}

/* A regular file where the partition directory k=x must go: creating the
 * data file fails, for ingest and append alike, with a message and exit 1. */
static void test_partition_crash__data_file_create_failure_is_clean_error(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long, k string", "--partition-by k");
  char blocker[700];
  snprintf(blocker, sizeof blocker, "%s/k=x", f->table);
  write_text(blocker, "w", "not a directory\n");
  write_text(f->src, "w", "{\"id\":1,\"k\":\"x\"}\n{\"id\":2,\"k\":\"y\"}\n");
  tu_result r;
  for (int attempt = 0; attempt < 2; attempt++) { /* the retry must not crash either */
    tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, f->table, f->source);
    assert_clean_error(&r, "k=x");
    tu_result_free(&r);
  }
  tu_sh(&r, "'%s' append '%s' '%s'", INLET_BIN, f->table, f->src);
  assert_clean_error(&r, "k=x");
  tu_result_free(&r);
  assert_int_equal(table_version(f->table), 0);
  /* No data file was left behind for k=y either. */
  tu_sh(&r, "find '%s' -name '*.parquet' | wc -l", f->table);
  assert_int_equal(strtoll(r.out, NULL, 10), 0);
  tu_result_free(&r);
  /* Once the obstacle is gone, the same input goes in whole. */
  unlink(blocker);
  tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, f->table, f->source);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  assert_int_equal(count_rows(f->table), 2);
}

/* The table directory removed while a --follow ingester runs: the next
 * batch fails cleanly (exit status 1, not a signal). */
static void test_partition_crash__table_deleted_under_follow_ingester(void **state) {
  fx *f = *state;
  ing_create_table(f->table, "id long, k string", "--partition-by k");
  write_text(f->src, "w", "{\"id\":1,\"k\":\"a\"}\n");
  char out[700];
  snprintf(out, sizeof out, "%s/ingest.log", f->dir);
  const char *args[] = {"ingest", f->table, "--source", f->source, "--follow",
                        "--max-latency", "50ms", NULL};
  pid_t pid = ing_spawn(out, args);
  int64_t v = -1;
  for (int i = 0; i < 400 && v < 1; i++) {
    ing_sleep_ms(25);
    v = table_version(f->table);
  }
  assert_int_equal(v, 1);
  tu_rmtree(f->table);
  write_text(f->src, "a", "{\"id\":2,\"k\":\"b\"}\n");
  int st = -1;
  for (int i = 0; i < 400; i++) {
    int ws;
    if (waitpid(pid, &ws, WNOHANG) == pid) {
      st = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
      break;
    }
    ing_sleep_ms(25);
  }
  if (st < 0) {
    kill(pid, SIGKILL);
    ing_wait(pid);
    fail_msg("the ingester did not stop after its table was deleted");
  }
  tu_result res = {.status = st};
  res.err = tu_read_file(out, NULL);
  assert_non_null(res.err);
  assert_clean_error(&res, "k=b");
  tu_result_free(&res);
}

/* A read-only filesystem under the table (a tmpfs remounted read-only; needs
 * mount(2), which the test environment grants to root). */
static void test_partition_crash__read_only_filesystem_is_clean_error(void **state) {
  fx *f = *state;
  char mnt[700], table[800];
  snprintf(mnt, sizeof mnt, "%s/ro", f->dir);
  snprintf(table, sizeof table, "%s/t", mnt);
  mkdir(mnt, 0777);
  tu_result r;
  tu_sh(&r, "mount -t tmpfs -o size=8m tmpfs '%s'", mnt);
  if (r.status != 0) {
    tu_result_free(&r);
    skip(); /* no mount privilege here: the blocked-directory case still runs */
  }
  tu_result_free(&r);
  ing_create_table(table, "id long, k string", "--partition-by k");
  write_text(f->src, "w", "{\"id\":1,\"k\":\"a\"}\n");
  tu_sh(&r, "mount -o remount,ro '%s'", mnt);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  for (int attempt = 0; attempt < 2; attempt++) {
    tu_sh(&r, "'%s' ingest '%s' --source '%s' --once", INLET_BIN, table, f->source);
    assert_clean_error(&r, "Read-only file system");
    tu_result_free(&r);
    tu_sh(&r, "'%s' append '%s' '%s'", INLET_BIN, table, f->src);
    assert_clean_error(&r, "Read-only file system");
    tu_result_free(&r);
  }
  assert_int_equal(table_version(table), 0);
  tu_sh(&r, "umount '%s'", mnt);
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_partition_crash__data_file_create_failure_is_clean_error,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_partition_crash__table_deleted_under_follow_ingester,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_partition_crash__read_only_filesystem_is_clean_error,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
