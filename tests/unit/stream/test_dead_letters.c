/*
 * Dead-letter files (src/stream/dead_letters.c) over a storage backend:
 * every step is a storage operation (counted by the fault wrapper), a
 * published file appears whole under its name, a replay of the same name
 * replaces it, any failure leaves no temporary and the old file intact, and
 * the cleanup removes exactly what it should (temporaries of dead writers
 * only; on an object store, only old ones).
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "storage/fault.h"
#include "stream/stream.h"

typedef struct fx {
  char dir[512];
  inlet_storage *fs; /* fault wrapper owning a posix backend at dir */
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("dead-letters"));
  inlet_error err = INLET_ERROR_INIT;
  inlet_storage *px = NULL;
  if (inlet_storage_posix_open(&px, f->dir, false, &err) != 0) return -1;
  if (inlet_storage_fault_wrap(&f->fs, px, true, &err) != 0) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  f->fs->ops->free(f->fs);
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static char *read_rel(const fx *f, const char *rel) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", f->dir, rel);
  return tu_read_file(p, NULL);
}

static int count_tmps(const fx *f) {
  tu_result r;
  tu_sh(&r, "find '%s' -name '.tmp-*' | wc -l", f->dir);
  int n = atoi(r.out);
  tu_result_free(&r);
  return n;
}

static void write_dl(fx *f, stream_dl_file *d, const char *text) {
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(stream_dl_open(d, f->fs, "_errors/A", &err), 0);
  assert_non_null(d->f);
  assert_int_equal(stream_dl_append(d, text, strlen(text), &err), 0);
}

static void test_dl__publish_goes_through_storage_and_replaces_a_replay(void **state) {
  fx *f = *state;
  inlet_error err = INLET_ERROR_INIT;
  stream_dl_file d = {NULL, NULL};
  inlet_fault_reset_counts(f->fs);
  write_dl(f, &d, "{\"record\":\"a\"}\n");
  assert_int_equal(inlet_fault_count(f->fs, INLET_FAULT_CREATE), 1);
  assert_int_equal(inlet_fault_count(f->fs, INLET_FAULT_APPEND), 1);
  assert_int_equal(stream_dl_publish(&d, f->fs, "_errors/A/0_5.ndjson", &err), 0);
  assert_null(d.f);
  assert_null(d.tmp);
  assert_int_equal(inlet_fault_count(f->fs, INLET_FAULT_SYNC), 1);
  assert_int_equal(inlet_fault_count(f->fs, INLET_FAULT_PUT_IF_ABSENT), 1);
  char *got = read_rel(f, "_errors/A/0_5.ndjson");
  assert_string_equal(got, "{\"record\":\"a\"}\n");
  free(got);
  assert_int_equal(count_tmps(f), 0);
  /* A replay of the same range: the name exists, the new copy replaces it. */
  write_dl(f, &d, "{\"record\":\"b\"}\n");
  assert_int_equal(stream_dl_publish(&d, f->fs, "_errors/A/0_5.ndjson", &err), 0);
  assert_int_equal(inlet_fault_count(f->fs, INLET_FAULT_REPLACE), 1);
  got = read_rel(f, "_errors/A/0_5.ndjson");
  assert_string_equal(got, "{\"record\":\"b\"}\n");
  free(got);
  assert_int_equal(count_tmps(f), 0);
  /* Nothing to publish is no operation. */
  inlet_fault_reset_counts(f->fs);
  assert_int_equal(stream_dl_publish(&d, f->fs, "_errors/A/5_9.ndjson", &err), 0);
  assert_int_equal(inlet_fault_count(f->fs, INLET_FAULT_ANY), 0);
}

/* Every operation of a publication fails in turn: an error, no temporary,
 * and the published file is either absent or whole. */
static void test_dl__a_failure_at_any_step_leaves_nothing_half_done(void **state) {
  fx *f = *state;
  static const inlet_fault_op ops[] = {INLET_FAULT_CREATE, INLET_FAULT_APPEND, INLET_FAULT_CLOSE,
                                       INLET_FAULT_SYNC, INLET_FAULT_PUT_IF_ABSENT};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    inlet_error err = INLET_ERROR_INIT;
    char name[64];
    snprintf(name, sizeof name, "_errors/A/%zu_9.ndjson", i);
    inlet_fault_arm(f->fs, ops[i], 0, INLET_FAULT_FAIL);
    stream_dl_file d = {NULL, NULL};
    int rc = stream_dl_open(&d, f->fs, "_errors/A", &err);
    if (rc == 0) rc = stream_dl_append(&d, "x\n", 2, &err);
    if (rc == 0)
      rc = stream_dl_publish(&d, f->fs, name, &err);
    else
      stream_dl_discard(&d);
    inlet_fault_disarm(f->fs);
    if (rc != INLET_EIO) fail_msg("%s: rc %d", inlet_fault_op_name(ops[i]), rc);
    assert_null(d.f);
    assert_int_equal(count_tmps(f), 0);
    char *got = read_rel(f, name);
    assert_null(got);
  }
  /* A failing replace keeps the first copy whole. */
  stream_dl_file d = {NULL, NULL};
  inlet_error err = INLET_ERROR_INIT;
  write_dl(f, &d, "first\n");
  assert_int_equal(stream_dl_publish(&d, f->fs, "_errors/A/7_8.ndjson", &err), 0);
  write_dl(f, &d, "second\n");
  inlet_fault_arm(f->fs, INLET_FAULT_REPLACE, 0, INLET_FAULT_FAIL);
  assert_int_equal(stream_dl_publish(&d, f->fs, "_errors/A/7_8.ndjson", &err), INLET_EIO);
  inlet_fault_disarm(f->fs);
  char *got = read_rel(f, "_errors/A/7_8.ndjson");
  assert_string_equal(got, "first\n");
  free(got);
  assert_int_equal(count_tmps(f), 0);
  /* Discarding an open file removes its temporary. */
  write_dl(f, &d, "dropped\n");
  assert_int_equal(count_tmps(f), 1);
  stream_dl_discard(&d);
  assert_int_equal(count_tmps(f), 0);
}

static void touch_rel(const fx *f, const char *rel, int64_t age_s) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", f->dir, rel);
  assert_int_equal(tu_write_file(p, "x\n", 2), 0);
  if (age_s) {
    struct timespec ts[2];
    clock_gettime(CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec -= age_s;
    ts[1] = ts[0];
    assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
  }
}

static bool exists_rel(const fx *f, const char *rel) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", f->dir, rel);
  struct stat st;
  return stat(p, &st) == 0;
}

static bool digits_then_ndjson(const char *rest) {
  size_t n = strspn(rest, "0123456789");
  return n > 0 && strcmp(rest + n, ".ndjson") == 0;
}

static void test_dl__cleanup_removes_exactly_the_debris(void **state) {
  fx *f = *state;
  /* A pid that is certainly gone: a child that exited and was reaped. */
  pid_t child = fork();
  if (child == 0) _exit(0);
  assert_true(child > 0);
  waitpid(child, NULL, 0);
  char dead[128], live[128];
  snprintf(dead, sizeof dead, "_errors/A/.tmp-%ld-00000000000000aa.ndjson", (long)child);
  snprintf(live, sizeof live, "_errors/A/.tmp-%ld-00000000000000bb.ndjson", (long)getpid());
  char d[1024];
  snprintf(d, sizeof d, "%s/_errors/A", f->dir);
  tu_result r;
  tu_sh(&r, "mkdir -p '%s'", d);
  tu_result_free(&r);
  touch_rel(f, "_errors/A/5_7.ndjson", 0);
  touch_rel(f, "_errors/A/5_9.ndjson", 0);
  touch_rel(f, "_errors/A/50_9.ndjson", 0);
  touch_rel(f, "_errors/A/t-0-5_9.ndjson", 0);
  touch_rel(f, "_errors/A/t-0-5_x-1-2_3.ndjson", 0);
  touch_rel(f, dead, 0);
  touch_rel(f, live, 0);
  stream_dl_remove(f->fs, "_errors/A", "5_", "5_9.ndjson", NULL);
  assert_false(exists_rel(f, "_errors/A/5_7.ndjson"));
  assert_true(exists_rel(f, "_errors/A/5_9.ndjson"));
  assert_true(exists_rel(f, "_errors/A/50_9.ndjson"));
  /* Partitioned sources: only "<offset>.ndjson" after the prefix. */
  touch_rel(f, "_errors/A/t-0-5_4.ndjson", 0);
  stream_dl_remove(f->fs, "_errors/A", "t-0-5_", "t-0-5_9.ndjson", digits_then_ndjson);
  assert_false(exists_rel(f, "_errors/A/t-0-5_4.ndjson"));
  assert_true(exists_rel(f, "_errors/A/t-0-5_9.ndjson"));
  assert_true(exists_rel(f, "_errors/A/t-0-5_x-1-2_3.ndjson"));
  /* Temporaries: a dead writer's go, a live one's stay; other prefixes
   * never touch them. */
  assert_true(exists_rel(f, dead));
  stream_dl_remove(f->fs, "_errors/A", ".tmp-", NULL, NULL);
  assert_false(exists_rel(f, dead));
  assert_true(exists_rel(f, live));
  /* On an object store a pid says nothing: only old temporaries go. */
  f->fs->flags |= INLET_STORAGE_OBJECT_STORE;
  touch_rel(f, dead, 0);
  touch_rel(f, "_errors/A/.tmp-1-00000000000000cc.ndjson", 2 * 3600);
  stream_dl_remove(f->fs, "_errors/A", ".tmp-", NULL, NULL);
  f->fs->flags &= ~(uint32_t)INLET_STORAGE_OBJECT_STORE;
  assert_true(exists_rel(f, dead));
  assert_true(exists_rel(f, live));
  assert_false(exists_rel(f, "_errors/A/.tmp-1-00000000000000cc.ndjson"));
  /* A missing directory is nothing to do. */
  stream_dl_remove(f->fs, "_errors/none", ".tmp-", NULL, NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_dl__publish_goes_through_storage_and_replaces_a_replay,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_dl__a_failure_at_any_step_leaves_nothing_half_done,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_dl__cleanup_removes_exactly_the_debris, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
