/*
 * Unit tests for src/storage: the POSIX backend (exclusive create, reads,
 * put-if-absent with competing publishers in separate processes, sorted
 * listing, stat/remove/replace/mkdirs), the path check, and the
 * fault-injecting wrapper.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "storage/fault.h"
#include "storage/posix_int.h"
#include "storage/storage.h"

static char root[4096];

static int setup(void **state) {
  (void)state;
  char *d = tu_mkdtemp("storage");
  assert_non_null(d);
  snprintf(root, sizeof root, "%s", d);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(root);
  return 0;
}

static inlet_storage *open_root(void) {
  inlet_storage *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  int rc = inlet_storage_posix_open(&s, root, false, &err);
  if (rc) fail_msg("open %s: %s", root, inlet_errmsg(&err));
  return s;
}

static void write_file(inlet_storage *s, const char *path, const char *text) {
  inlet_wfile *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  int rc = s->ops->create(s, path, &w, &err);
  if (rc) fail_msg("create %s: %s", path, inlet_errmsg(&err));
  assert_int_equal(inlet_wfile_append(w, text, strlen(text), &err), 0);
  assert_int_equal(w->written, (int64_t)strlen(text));
  assert_int_equal(inlet_wfile_close(w, true, &err), 0);
}

static char *read_file(inlet_storage *s, const char *path) {
  inlet_rfile *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (s->ops->open_read(s, path, &r, &err)) return NULL;
  char *buf = calloc(1, (size_t)r->size + 1);
  assert_int_equal(inlet_rfile_read_at(r, 0, buf, (size_t)r->size, &err), 0);
  inlet_rfile_close(r);
  return buf;
}

static void test_storage__create_write_read_and_exclusive(void **state) {
  (void)state;
  inlet_storage *s = open_root();
  write_file(s, "a/b/c.txt", "hello world");
  char *t = read_file(s, "a/b/c.txt");
  assert_string_equal(t, "hello world");
  free(t);
  inlet_wfile *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(s->ops->create(s, "a/b/c.txt", &w, &err), INLET_EEXISTS);
  assert_null(w);
  assert_non_null(strstr(err.message, "a/b/c.txt"));
  /* Reads at offsets; past the end is "truncated" (corrupt). */
  inlet_rfile *r = NULL;
  assert_int_equal(s->ops->open_read(s, "a/b/c.txt", &r, &err), 0);
  assert_int_equal(r->size, 11);
  char buf[8] = {0};
  assert_int_equal(inlet_rfile_read_at(r, 6, buf, 5, &err), 0);
  assert_string_equal(buf, "world");
  assert_int_equal(inlet_rfile_read_at(r, 8, buf, 5, &err), INLET_ECORRUPT);
  assert_int_equal(inlet_rfile_read_at(r, -1, buf, 1, &err), INLET_ECORRUPT);
  inlet_rfile_close(r);
  assert_int_equal(s->ops->open_read(s, "missing", &r, &err), INLET_ENOTFOUND);
  assert_non_null(strstr(err.message, "missing"));
  s->ops->free(s);
}

static void test_storage__large_buffered_appends(void **state) {
  (void)state;
  inlet_storage *s = open_root();
  inlet_wfile *w = NULL;
  assert_int_equal(s->ops->create(s, "big.bin", &w, NULL), 0);
  /* 20 MB: past two of the kernel writeback hints (one per 8 MiB), with a
   * sync in the middle, and still the same bytes read back. */
  const size_t chunk = 100000, total = chunk * 200;
  uint8_t *data = malloc(total);
  for (size_t i = 0; i < total; i++)
    data[i] = (uint8_t)(i * 31 + i / 7);
  size_t off = 0;
  /* Mixed sizes: small ones buffer, big ones bypass the buffer. */
  const size_t sizes[] = {1, 17, chunk, 3 * chunk, 5, 1 << 20, chunk * 2, 12345};
  for (size_t k = 0; off < total; k++) {
    size_t n = sizes[k % 8];
    if (n > total - off) n = total - off;
    assert_int_equal(inlet_wfile_append(w, data + off, n, NULL), 0);
    off += n;
    if (k == 40) assert_int_equal(w->ops->sync(w, NULL), 0);
  }
  assert_int_equal(w->ops->sync(w, NULL), 0);
  assert_int_equal(inlet_wfile_close(w, true, NULL), 0);
  inlet_rfile *r;
  assert_int_equal(s->ops->open_read(s, "big.bin", &r, NULL), 0);
  assert_int_equal(r->size, (int64_t)total);
  uint8_t *back = malloc(total);
  assert_int_equal(inlet_rfile_read_at(r, 0, back, total, NULL), 0);
  assert_memory_equal(back, data, total);
  inlet_rfile_close(r);
  free(back);
  free(data);
  s->ops->free(s);
}

static void test_storage__put_if_absent_refuses_to_overwrite(void **state) {
  (void)state;
  inlet_storage *s = open_root();
  write_file(s, "_delta_log/.tmp-1", "first");
  write_file(s, "_delta_log/.tmp-2", "second");
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(s->ops->put_if_absent(s, "_delta_log/.tmp-1", "_delta_log/00000.json", &err), 0);
  assert_int_equal(s->ops->put_if_absent(s, "_delta_log/.tmp-2", "_delta_log/00000.json", &err),
                   INLET_EEXISTS);
  assert_non_null(strstr(err.message, "00000.json"));
  char *t = read_file(s, "_delta_log/00000.json");
  assert_string_equal(t, "first");
  free(t);
  /* The winner's temporary is gone, the loser's is left for its owner. */
  inlet_dirent de;
  assert_int_equal(s->ops->stat(s, "_delta_log/.tmp-1", &de, &err), INLET_ENOTFOUND);
  assert_int_equal(s->ops->stat(s, "_delta_log/.tmp-2", &de, &err), 0);
  assert_string_equal(de.name, ".tmp-2");
  assert_int_equal(de.size, 6);
  free(de.name);
  /* A destination directory that does not exist yet is created. */
  assert_int_equal(s->ops->put_if_absent(s, "_delta_log/.tmp-2", "new/dir/x.json", &err), 0);
  t = read_file(s, "new/dir/x.json");
  assert_string_equal(t, "second");
  free(t);
  s->ops->free(s);
}

static void test_storage__concurrent_publishers_one_wins(void **state) {
  (void)state;
  enum { N = 6 };
  pid_t pids[N];
  for (int i = 0; i < N; i++) {
    pids[i] = fork();
    assert_true(pids[i] >= 0);
    if (pids[i] == 0) {
      inlet_storage *s = NULL;
      if (inlet_storage_posix_open(&s, root, false, NULL)) _exit(10);
      char tmp[64], body[64];
      snprintf(tmp, sizeof tmp, "log/.tmp-%d", i);
      snprintf(body, sizeof body, "writer %d", i);
      inlet_wfile *w;
      if (s->ops->create(s, tmp, &w, NULL)) _exit(11);
      if (inlet_wfile_append(w, body, strlen(body), NULL)) _exit(12);
      if (inlet_wfile_close(w, true, NULL)) _exit(13);
      int rc = s->ops->put_if_absent(s, tmp, "log/00001.json", NULL);
      s->ops->free(s);
      _exit(rc == 0 ? 0 : rc == INLET_EEXISTS ? 1 : 14);
    }
  }
  int winners = 0, losers = 0;
  for (int i = 0; i < N; i++) {
    int st;
    assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) == 0)
      winners++;
    else if (WEXITSTATUS(st) == 1)
      losers++;
    else
      fail_msg("publisher %d exited %d", i, WEXITSTATUS(st));
  }
  assert_int_equal(winners, 1);
  assert_int_equal(losers, N - 1);
  inlet_storage *s = open_root();
  char *t = read_file(s, "log/00001.json");
  assert_non_null(t);
  assert_memory_equal(t, "writer ", 7);
  free(t);
  s->ops->free(s);
}

static void test_storage__put_if_absent_rename_fallback(void **state) {
  (void)state;
  inlet_storage *s = open_root();
  write_file(s, "t1", "one");
  write_file(s, "t2", "two");
  inlet_posix_test_force_rename(true);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(s->ops->put_if_absent(s, "t1", "log/1.json", &err), 0);
  assert_int_equal(s->ops->put_if_absent(s, "t2", "log/1.json", &err), INLET_EEXISTS);
  inlet_posix_test_force_rename(false);
  char *t = read_file(s, "log/1.json");
  assert_string_equal(t, "one");
  free(t);
  inlet_dirent de;
  assert_int_equal(s->ops->stat(s, "t1", &de, &err), INLET_ENOTFOUND);
  assert_int_equal(s->ops->stat(s, "t2", &de, &err), 0);
  free(de.name);
  s->ops->free(s);
}

static void test_storage__list_sorted_with_sizes(void **state) {
  (void)state;
  inlet_storage *s = open_root();
  const char *names[] = {"b.json", "a.json", "10.json", "09.json", "_last", "Z"};
  for (size_t i = 0; i < 6; i++) {
    char p[64];
    snprintf(p, sizeof p, "dir/%s", names[i]);
    write_file(s, p, names[i]);
  }
  assert_int_equal(s->ops->mkdirs(s, "dir/sub/deeper", NULL), 0);
  inlet_dirent *ents = NULL;
  size_t n = 0;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(s->ops->list(s, "dir", &ents, &n, &err), 0);
  assert_int_equal(n, 7);
  const char *want[] = {"09.json", "10.json", "Z", "_last", "a.json", "b.json", "sub"};
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(ents[i].name, want[i]);
    if (i < 6) {
      assert_false(ents[i].is_dir);
      assert_int_equal(ents[i].size, (int64_t)strlen(want[i]));
      assert_true(ents[i].mtime_ms > 1500000000000LL);
    }
  }
  assert_true(ents[6].is_dir);
  inlet_dirents_free(ents, n);
  /* Names only: same entries and kinds, no size or mtime. */
  assert_int_equal(s->ops->list_names(s, "dir", &ents, &n, &err), 0);
  assert_int_equal(n, 7);
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(ents[i].name, want[i]);
    assert_int_equal(ents[i].is_dir, i == 6);
    assert_int_equal(ents[i].size, -1);
    assert_int_equal(ents[i].mtime_ms, -1);
  }
  inlet_dirents_free(ents, n);
  assert_int_equal(s->ops->list_names(s, "nope", &ents, &n, &err), INLET_ENOTFOUND);
  assert_null(ents);
  /* The root itself. */
  assert_int_equal(s->ops->list(s, "", &ents, &n, &err), 0);
  assert_int_equal(n, 1);
  assert_string_equal(ents[0].name, "dir");
  inlet_dirents_free(ents, n);
  assert_int_equal(s->ops->list(s, "nope", &ents, &n, &err), INLET_ENOTFOUND);
  assert_null(ents);
  assert_int_equal(s->ops->list(s, "../", &ents, &n, &err), INLET_EINVAL);
  s->ops->free(s);
}

static void test_storage__remove_replace_stat_sync(void **state) {
  (void)state;
  inlet_storage *s = open_root();
  inlet_error err = INLET_ERROR_INIT;
  write_file(s, "hint.tmp", "v2");
  write_file(s, "hint", "v1");
  assert_int_equal(s->ops->replace(s, "hint.tmp", "hint", &err), 0);
  char *t = read_file(s, "hint");
  assert_string_equal(t, "v2");
  free(t);
  assert_int_equal(s->ops->remove(s, "hint", &err), 0);
  assert_int_equal(s->ops->remove(s, "hint", &err), INLET_ENOTFOUND);
  inlet_dirent de;
  assert_int_equal(s->ops->stat(s, "hint", &de, &err), INLET_ENOTFOUND);
  assert_int_equal(s->ops->mkdirs(s, "x/y", &err), 0);
  assert_int_equal(s->ops->stat(s, "x/y", &de, &err), 0);
  assert_true(de.is_dir);
  free(de.name);
  assert_int_equal(s->ops->sync_dir(s, "x", &err), 0);
  assert_int_equal(s->ops->sync_dir(s, "", &err), 0);
  assert_int_equal(s->ops->remove(s, "x/y", &err), 0);
  write_file(s, "f", "file");
  assert_int_equal(s->ops->mkdirs(s, "f", &err), INLET_EEXISTS);
  s->ops->free(s);
}

static void test_storage__open_missing_root_and_create(void **state) {
  (void)state;
  char p[4200];
  snprintf(p, sizeof p, "%s/not/yet", root);
  inlet_storage *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_posix_open(&s, p, false, &err), INLET_ENOTFOUND);
  assert_null(s);
  assert_non_null(strstr(err.message, "not/yet"));
  assert_int_equal(inlet_storage_posix_open(&s, p, true, &err), 0);
  assert_string_equal(s->root, p);
  s->ops->free(s);
}

static void test_storage__plain_path_files(void **state) {
  (void)state;
  char p[4200];
  snprintf(p, sizeof p, "%s/plain/out.bin", root);
  inlet_wfile *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_wfile_create_path(&w, p, &err), 0);
  assert_int_equal(inlet_wfile_append(w, "abc", 3, &err), 0);
  assert_int_equal(inlet_wfile_close(w, true, &err), 0);
  assert_int_equal(inlet_wfile_create_path(&w, p, &err), INLET_EEXISTS);
  inlet_rfile *r = NULL;
  assert_int_equal(inlet_rfile_open_path(&r, p, &err), 0);
  assert_int_equal(r->size, 3);
  assert_string_equal(r->name, p);
  inlet_rfile_close(r);
  snprintf(p, sizeof p, "%s/plain", root);
  assert_int_equal(inlet_rfile_open_path(&r, p, &err), INLET_EINVAL); /* a directory */
  snprintf(p, sizeof p, "%s/plain/none", root);
  assert_int_equal(inlet_rfile_open_path(&r, p, &err), INLET_ENOTFOUND);
}

static void test_path__check_cases(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  const char *good[] = {"a",
                        "a/b",
                        "part-0001.parquet",
                        "x=1/y=%20/f.parquet",
                        ".hidden",
                        "..a",
                        "a..",
                        "a\\b",
                        "_delta_log/00000000000000000000.json"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    if (inlet_path_check(good[i], &err)) fail_msg("%s: %s", good[i], inlet_errmsg(&err));
  const char *bad[] = {"",  "/etc/passwd", "..",    "../x", "a/../b", "a/..",
                       ".", "./a",         "a/./b", "a//b", "a/",     "/"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (inlet_path_check(bad[i], &err) != INLET_EINVAL) fail_msg("accepted \"%s\"", bad[i]);
  }
  assert_int_equal(inlet_path_check(NULL, &err), INLET_EINVAL);
  assert_int_equal(inlet_path_check_len("a\0b", 3, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "NUL"));
  assert_int_equal(inlet_path_check_len("a/bc", 3, &err), 0);
  char *longp = malloc(INLET_PATH_MAX + 2);
  memset(longp, 'a', INLET_PATH_MAX + 1);
  longp[INLET_PATH_MAX + 1] = '\0';
  assert_int_equal(inlet_path_check(longp, &err), INLET_EINVAL);
  longp[INLET_PATH_MAX] = '\0';
  assert_int_equal(inlet_path_check(longp, &err), 0);
  free(longp);
  /* The backend applies the check. */
  inlet_storage *s = open_root();
  inlet_rfile *r;
  assert_int_equal(s->ops->open_read(s, "../escape", &r, &err), INLET_EINVAL);
  inlet_wfile *w;
  assert_int_equal(s->ops->create(s, "/abs", &w, &err), INLET_EINVAL);
  s->ops->free(s);
}

static inlet_storage *open_fault(void) {
  inlet_storage *s = NULL;
  assert_int_equal(inlet_storage_fault_wrap(&s, open_root(), true, NULL), 0);
  return s;
}

static void test_fault__counts_and_fails_nth_append(void **state) {
  (void)state;
  inlet_storage *s = open_fault();
  inlet_error err = INLET_ERROR_INIT;
  inlet_wfile *w;
  assert_int_equal(s->ops->create(s, "f.bin", &w, &err), 0);
  inlet_fault_arm(s, INLET_FAULT_APPEND, 2, INLET_FAULT_FAIL);
  assert_int_equal(inlet_wfile_append(w, "a", 1, &err), 0);
  assert_int_equal(inlet_wfile_append(w, "b", 1, &err), 0);
  assert_int_equal(inlet_wfile_append(w, "c", 1, &err), INLET_EIO);
  assert_non_null(strstr(err.message, "append"));
  assert_true(inlet_fault_fired(s));
  assert_false(inlet_fault_stopped(s));
  assert_int_equal(inlet_wfile_append(w, "d", 1, &err), 0); /* FAIL is one-shot */
  assert_int_equal(w->written, 3);
  assert_int_equal(inlet_wfile_close(w, true, &err), 0);
  assert_int_equal(inlet_fault_count(s, INLET_FAULT_APPEND), 4);
  assert_int_equal(inlet_fault_count(s, INLET_FAULT_CREATE), 1);
  assert_int_equal(inlet_fault_count(s, INLET_FAULT_ANY), 7); /* + close + sync */
  char *t = read_file(s, "f.bin");
  assert_string_equal(t, "abd");
  free(t);
  inlet_fault_reset_counts(s);
  assert_int_equal(inlet_fault_count(s, INLET_FAULT_ANY), 0);
  s->ops->free(s);
}

static void test_fault__stop_fails_everything_until_disarmed(void **state) {
  (void)state;
  inlet_storage *s = open_fault();
  inlet_error err = INLET_ERROR_INIT;
  inlet_wfile *w;
  assert_int_equal(s->ops->create(s, "log/.tmp", &w, &err), 0);
  assert_int_equal(inlet_wfile_append(w, "commit", 6, &err), 0);
  assert_int_equal(inlet_wfile_close(w, true, &err), 0);
  inlet_fault_arm(s, INLET_FAULT_PUT_IF_ABSENT, 0, INLET_FAULT_STOP);
  assert_int_equal(s->ops->put_if_absent(s, "log/.tmp", "log/0.json", &err), INLET_EIO);
  assert_true(inlet_fault_stopped(s));
  inlet_dirent de;
  assert_int_equal(s->ops->stat(s, "log/.tmp", &de, &err), INLET_EIO);
  inlet_dirent *ents;
  size_t n;
  assert_int_equal(s->ops->list(s, "log", &ents, &n, &err), INLET_EIO);
  assert_int_equal(s->ops->create(s, "other", &w, &err), INLET_EIO);
  inlet_fault_disarm(s);
  /* The publish never happened. */
  assert_int_equal(s->ops->stat(s, "log/0.json", &de, &err), INLET_ENOTFOUND);
  assert_int_equal(s->ops->list(s, "log", &ents, &n, &err), 0);
  assert_int_equal(n, 1);
  assert_string_equal(ents[0].name, ".tmp");
  inlet_dirents_free(ents, n);
  s->ops->free(s);
}

static void test_fault__fail_after_performs_the_operation(void **state) {
  (void)state;
  inlet_storage *s = open_fault();
  inlet_error err = INLET_ERROR_INIT;
  write_file(s, ".tmp", "x");
  inlet_fault_arm(s, INLET_FAULT_ANY, 0, INLET_FAULT_STOP_AFTER);
  assert_int_equal(s->ops->put_if_absent(s, ".tmp", "0.json", &err), INLET_EIO);
  assert_non_null(strstr(err.message, "performed"));
  assert_true(inlet_fault_stopped(s));
  inlet_fault_disarm(s);
  inlet_dirent de;
  assert_int_equal(s->ops->stat(s, "0.json", &de, &err), 0); /* it did reach the disk */
  free(de.name);
  /* FAIL_AFTER on a file sync at close: data durable, caller sees EIO. */
  inlet_wfile *w;
  assert_int_equal(s->ops->create(s, "d.bin", &w, &err), 0);
  assert_int_equal(inlet_wfile_append(w, "data", 4, &err), 0);
  inlet_fault_arm(s, INLET_FAULT_SYNC, 0, INLET_FAULT_FAIL_AFTER);
  assert_int_equal(inlet_wfile_close(w, true, &err), INLET_EIO);
  assert_false(inlet_fault_stopped(s));
  char *t = read_file(s, "d.bin");
  assert_string_equal(t, "data");
  free(t);
  /* A crash before a file's close(sync) loses nothing else: later ops fail. */
  assert_int_equal(s->ops->create(s, "e.bin", &w, &err), 0);
  inlet_fault_arm(s, INLET_FAULT_CLOSE, 0, INLET_FAULT_STOP);
  assert_int_equal(inlet_wfile_close(w, true, &err), INLET_EIO);
  assert_int_equal(s->ops->remove(s, "e.bin", &err), INLET_EIO);
  inlet_fault_disarm(s);
  assert_int_equal(s->ops->remove(s, "e.bin", &err), 0);
  assert_string_equal(inlet_fault_op_name(INLET_FAULT_PUT_IF_ABSENT), "put_if_absent");
  s->ops->free(s);
}

static void test_fault__reads_fail_at_nth(void **state) {
  (void)state;
  inlet_storage *s = open_fault();
  write_file(s, "r.bin", "0123456789");
  inlet_rfile *r;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(s->ops->open_read(s, "r.bin", &r, &err), 0);
  assert_int_equal(r->size, 10);
  inlet_fault_arm(s, INLET_FAULT_READ, 1, INLET_FAULT_FAIL);
  char b[4] = {0};
  assert_int_equal(inlet_rfile_read_at(r, 2, b, 3, &err), 0);
  assert_string_equal(b, "234");
  assert_int_equal(inlet_rfile_read_at(r, 2, b, 3, &err), INLET_EIO);
  assert_int_equal(inlet_rfile_read_at(r, 5, b, 3, &err), 0);
  assert_string_equal(b, "567");
  inlet_rfile_close(r);
  s->ops->free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_storage__create_write_read_and_exclusive, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_storage__large_buffered_appends, setup, teardown),
      cmocka_unit_test_setup_teardown(test_storage__put_if_absent_refuses_to_overwrite, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_storage__concurrent_publishers_one_wins, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_storage__put_if_absent_rename_fallback, setup, teardown),
      cmocka_unit_test_setup_teardown(test_storage__list_sorted_with_sizes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_storage__remove_replace_stat_sync, setup, teardown),
      cmocka_unit_test_setup_teardown(test_storage__open_missing_root_and_create, setup, teardown),
      cmocka_unit_test_setup_teardown(test_storage__plain_path_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_path__check_cases, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fault__counts_and_fails_nth_append, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fault__stop_fails_everything_until_disarmed, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_fault__fail_after_performs_the_operation, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_fault__reads_fail_at_nth, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
