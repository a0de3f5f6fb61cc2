/*
 * Contract checks for storage backends (storage_contract.h).
 */
#include "storage_contract.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "util/util.h"

#define CHECK_OK(expr, err)                                                                        \
  do {                                                                                             \
    int rc_ = (expr);                                                                              \
    if (rc_ != 0) fail_msg("%s: %d %s", #expr, rc_, inlet_errmsg(err));                            \
  } while (0)

static char *join(const char *dir, const char *name) {
  static char bufs[8][1024];
  static int k;
  char *b = bufs[k++ & 7];
  snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
  return b;
}

void sc_fill(uint8_t *buf, size_t n, uint64_t seed, size_t start) {
  for (size_t i = 0; i < n; i++) {
    uint64_t x = (start + i) * 0x9e3779b97f4a7c15u ^ seed;
    x ^= x >> 29;
    buf[i] = (uint8_t)(x * 0xbf58476d1ce4e5b9u >> 56);
  }
}

static void put(inlet_storage *s, const char *path, const char *text) {
  inlet_error err = INLET_ERROR_INIT;
  CHECK_OK(s->ops->put_bytes(s, path, text, strlen(text), &err), &err);
}

static char *get(inlet_storage *s, const char *path) {
  inlet_error err = INLET_ERROR_INIT;
  uint8_t *b = NULL;
  size_t n = 0;
  CHECK_OK(s->ops->get_bytes(s, path, 1 << 20, &b, &n, &err), &err);
  assert_int_equal(strlen((char *)b), n);
  return (char *)b;
}

void sc_check_put_get_ranges(inlet_storage *s, const char *dir) {
  inlet_error err = INLET_ERROR_INIT;
  const char *p = join(dir, "obj.bin");
  put(s, p, "0123456789abcdef");
  char *t = get(s, p);
  assert_string_equal(t, "0123456789abcdef");
  inlet_free(t);
  /* Overwrite. */
  put(s, p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
  t = get(s, p);
  assert_string_equal(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
  inlet_free(t);
  /* get_bytes limit. */
  uint8_t *b = NULL;
  size_t n = 7;
  assert_int_equal(s->ops->get_bytes(s, p, 10, &b, &n, &err), INLET_ELIMIT);
  assert_null(b);
  /* open_read: size known; ranged reads; a read past the end is corrupt. */
  inlet_rfile *r = NULL;
  CHECK_OK(s->ops->open_read(s, p, &r, &err), &err);
  assert_int_equal(r->size, 26);
  char buf[32] = {0};
  CHECK_OK(inlet_rfile_read_at(r, 3, buf, 4, &err), &err);
  assert_memory_equal(buf, "DEFG", 4);
  CHECK_OK(inlet_rfile_read_at(r, 25, buf, 1, &err), &err);
  assert_int_equal(buf[0], 'Z');
  assert_int_equal(inlet_rfile_read_at(r, 24, buf, 4, &err), INLET_ECORRUPT);
  assert_int_equal(inlet_rfile_read_at(r, 30, buf, 1, &err), INLET_ECORRUPT);
  /* Vectored reads. */
  char v1[3], v2[5], v3[1];
  inlet_read_range rr[3] = {{20, 3, v1}, {0, 5, v2}, {13, 1, v3}};
  CHECK_OK(r->ops->read_ranges(r, rr, 3, &err), &err);
  assert_memory_equal(v1, "UVW", 3);
  assert_memory_equal(v2, "ABCDE", 5);
  assert_memory_equal(v3, "N", 1);
  inlet_rfile_close(r);
  /* open_read_sized with an unknown size: the suffix read learns it. */
  CHECK_OK(s->ops->open_read_sized(s, p, -1, &r, &err), &err);
  size_t got = 0;
  CHECK_OK(r->ops->read_tail(r, buf, 8, &got, &err), &err);
  assert_int_equal(got, 8);
  assert_memory_equal(buf, "STUVWXYZ", 8);
  assert_int_equal(r->size, 26);
  CHECK_OK(r->ops->read_tail(r, buf, 100, &got, &err), &err);
  assert_int_equal(got, 26);
  assert_memory_equal(buf, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 26);
  inlet_rfile_close(r);
  /* open_read_sized with the size known. */
  CHECK_OK(s->ops->open_read_sized(s, p, 26, &r, &err), &err);
  assert_int_equal(r->size, 26);
  CHECK_OK(inlet_rfile_read_at(r, 10, buf, 2, &err), &err);
  assert_memory_equal(buf, "KL", 2);
  inlet_rfile_close(r);
  /* Empty objects. */
  const char *e = join(dir, "empty");
  CHECK_OK(s->ops->put_bytes(s, e, "", 0, &err), &err);
  t = get(s, e);
  assert_string_equal(t, "");
  inlet_free(t);
  CHECK_OK(s->ops->open_read(s, e, &r, &err), &err);
  assert_int_equal(r->size, 0);
  inlet_rfile_close(r);
  /* stat. */
  inlet_dirent de;
  CHECK_OK(s->ops->stat(s, p, &de, &err), &err);
  assert_string_equal(de.name, "obj.bin");
  assert_int_equal(de.size, 26);
  assert_false(de.is_dir);
  assert_true(de.mtime_ms > 1600000000000LL);
  inlet_free(de.name);
  CHECK_OK(s->ops->stat(s, dir, &de, &err), &err);
  assert_true(de.is_dir);
  inlet_free(de.name);
  /* Missing objects. */
  const char *m = join(dir, "missing");
  assert_int_equal(s->ops->get_bytes(s, m, 100, &b, &n, &err), INLET_ENOTFOUND);
  assert_int_equal(s->ops->open_read(s, m, &r, &err), INLET_ENOTFOUND);
  assert_null(r);
  assert_int_equal(s->ops->stat(s, m, &de, &err), INLET_ENOTFOUND);
  /* Paths are checked. */
  assert_int_equal(s->ops->put_bytes(s, "../escape", "x", 1, &err), INLET_EINVAL);
  assert_int_equal(s->ops->get_bytes(s, "/abs", 100, &b, &n, &err), INLET_EINVAL);
}

void sc_check_put_if_absent(inlet_storage *s, const char *dir) {
  inlet_error err = INLET_ERROR_INIT;
  const char *p = join(dir, "_delta_log/00000000000000000000.json");
  CHECK_OK(s->ops->put_if_absent_bytes(s, p, "first\n", 6, &err), &err);
  assert_int_equal(s->ops->put_if_absent_bytes(s, p, "second\n", 7, &err), INLET_EEXISTS);
  assert_non_null(strstr(err.message, "00000000000000000000.json"));
  char *t = get(s, p);
  assert_string_equal(t, "first\n");
  inlet_free(t);
  /* A retry of the identical bytes is still a lost race when no attempt
   * of this call reached the store. */
  assert_int_equal(s->ops->put_if_absent_bytes(s, p, "first\n", 6, &err), INLET_EEXISTS);
  /* No temporary or probe object is left visible. */
  inlet_dirent *ents;
  size_t n;
  CHECK_OK(s->ops->list_names(s, join(dir, "_delta_log"), &ents, &n, &err), &err);
  assert_int_equal(n, 1);
  assert_string_equal(ents[0].name, "00000000000000000000.json");
  inlet_dirents_free(ents, n);
  /* The legacy two-step form. */
  const char *tmp1 = join(dir, "_delta_log/.tmp-a"), *tmp2 = join(dir, "_delta_log/.tmp-b");
  const char *p1 = join(dir, "_delta_log/00000000000000000001.json");
  put(s, tmp1, "one");
  put(s, tmp2, "two");
  CHECK_OK(s->ops->put_if_absent(s, tmp1, p1, &err), &err);
  assert_int_equal(s->ops->put_if_absent(s, tmp2, p1, &err), INLET_EEXISTS);
  t = get(s, p1);
  assert_string_equal(t, "one");
  inlet_free(t);
  inlet_dirent de;
  assert_int_equal(s->ops->stat(s, tmp1, &de, &err), INLET_ENOTFOUND);
  /* replace overwrites. */
  CHECK_OK(s->ops->replace(s, tmp2, join(dir, "_delta_log/_last_checkpoint"), &err), &err);
  t = get(s, join(dir, "_delta_log/_last_checkpoint"));
  assert_string_equal(t, "two");
  inlet_free(t);
  assert_int_equal(s->ops->stat(s, tmp2, &de, &err), INLET_ENOTFOUND);
  /* The probe passes and leaves nothing behind. */
  CHECK_OK(inlet_storage_probe_conditional(s, join(dir, "_delta_log"), &err), &err);
  assert_true(s->flags & INLET_STORAGE_CONDITIONAL_VERIFIED);
  CHECK_OK(s->ops->list_names(s, join(dir, "_delta_log"), &ents, &n, &err), &err);
  assert_int_equal(n, 3);
  inlet_dirents_free(ents, n);
}

static void expect_names(inlet_dirent *ents, size_t n, const char *const *want, size_t nwant) {
  if (n != nwant) {
    for (size_t i = 0; i < n; i++)
      print_message("  got %s\n", ents[i].name);
    fail_msg("%zu entries, expected %zu", n, nwant);
  }
  for (size_t i = 0; i < n; i++)
    assert_string_equal(ents[i].name, want[i]);
}

void sc_check_listing(inlet_storage *s, const char *dir) {
  inlet_error err = INLET_ERROR_INIT;
  const char *names[] = {"log/00.json", "log/01.json",    "log/01.checkpoint.parquet",
                         "log/02.json", "log/sub/x.json", "log/sub/deep/y",
                         "top.parquet"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    put(s, join(dir, names[i]), names[i]);
  inlet_dirent *e;
  size_t n;
  /* Non-recursive: files and directories, byte order. */
  CHECK_OK(s->ops->list(s, join(dir, "log"), &e, &n, &err), &err);
  const char *all[] = {"00.json", "01.checkpoint.parquet", "01.json", "02.json", "sub"};
  expect_names(e, n, all, 5);
  assert_false(e[0].is_dir);
  assert_int_equal(e[0].size, (int64_t)strlen("log/00.json"));
  assert_true(e[0].mtime_ms > 0);
  assert_true(e[4].is_dir);
  inlet_dirents_free(e, n);
  CHECK_OK(s->ops->list_names(s, join(dir, "log"), &e, &n, &err), &err);
  expect_names(e, n, all, 5);
  assert_true(e[4].is_dir);
  inlet_dirents_free(e, n);
  /* start_after and prefix. */
  inlet_list_options o = INLET_LIST_OPTIONS_INIT;
  o.start_after = "01.checkpoint.parquet";
  CHECK_OK(s->ops->list_from(s, join(dir, "log"), &o, &e, &n, &err), &err);
  const char *after[] = {"01.json", "02.json", "sub"};
  expect_names(e, n, after, 3);
  inlet_dirents_free(e, n);
  o.prefix = "0";
  CHECK_OK(s->ops->list_from(s, join(dir, "log"), &o, &e, &n, &err), &err);
  expect_names(e, n, after, 2);
  inlet_dirents_free(e, n);
  /* Paging with limit. */
  o = (inlet_list_options)INLET_LIST_OPTIONS_INIT;
  o.limit = 2;
  o.attrs = true;
  char last[256] = "";
  size_t total = 0;
  for (;;) {
    o.start_after = last;
    CHECK_OK(s->ops->list_from(s, join(dir, "log"), &o, &e, &n, &err), &err);
    assert_true(n <= 2);
    for (size_t i = 0; i < n; i++) {
      assert_string_equal(e[i].name, all[total + i]);
      if (!e[i].is_dir) assert_true(e[i].size > 0);
    }
    total += n;
    if (n) snprintf(last, sizeof last, "%s", e[n - 1].name);
    inlet_dirents_free(e, n);
    if (n < 2) break;
  }
  assert_int_equal(total, 5);
  /* Recursive: files only, names relative to the directory. */
  o = (inlet_list_options)INLET_LIST_OPTIONS_INIT;
  o.recursive = true;
  o.attrs = true;
  CHECK_OK(s->ops->list_from(s, dir, &o, &e, &n, &err), &err);
  const char *rec[] = {"log/00.json",    "log/01.checkpoint.parquet",
                       "log/01.json",    "log/02.json",
                       "log/sub/deep/y", "log/sub/x.json",
                       "top.parquet"};
  expect_names(e, n, rec, 7);
  for (size_t i = 0; i < n; i++) {
    assert_false(e[i].is_dir);
    assert_int_equal(e[i].size, (int64_t)strlen(e[i].name));
  }
  inlet_dirents_free(e, n);
  o.prefix = "log/sub/";
  o.start_after = "log/sub/deep/y";
  CHECK_OK(s->ops->list_from(s, dir, &o, &e, &n, &err), &err);
  expect_names(e, n, rec + 5, 1);
  inlet_dirents_free(e, n);
  /* A missing directory: list is ENOTFOUND, list_from is empty. */
  CHECK_OK(s->ops->list_from(s, join(dir, "nothing"), NULL, &e, &n, &err), &err);
  assert_int_equal(n, 0);
  inlet_dirents_free(e, n);
  assert_int_equal(s->ops->list(s, join(dir, "nothing"), &e, &n, &err), INLET_ENOTFOUND);
}

void sc_check_remove_many(inlet_storage *s, const char *dir) {
  inlet_error err = INLET_ERROR_INIT;
  enum { N = 25 };
  char paths[N][128];
  const char *pp[N + 1];
  for (int i = 0; i < N; i++) {
    snprintf(paths[i], sizeof paths[i], "%s/rm/f%02d", dir, i);
    put(s, paths[i], "x");
    pp[i] = paths[i];
  }
  pp[N] = join(dir, "rm/never-existed");
  int results[N + 1];
  memset(results, 0x55, sizeof results);
  CHECK_OK(s->ops->remove_many(s, pp, N + 1, results, &err), &err);
  for (int i = 0; i <= N; i++)
    assert_int_equal(results[i], 0);
  inlet_dirent *e;
  size_t n;
  CHECK_OK(s->ops->list_from(s, join(dir, "rm"), NULL, &e, &n, &err), &err);
  assert_int_equal(n, 0);
  inlet_dirents_free(e, n);
  put(s, join(dir, "one"), "1");
  CHECK_OK(s->ops->remove(s, join(dir, "one"), &err), &err);
  inlet_dirent de;
  assert_int_equal(s->ops->stat(s, join(dir, "one"), &de, &err), INLET_ENOTFOUND);
  CHECK_OK(s->ops->remove_many(s, pp, 0, NULL, &err), &err);
}

void sc_check_wfile(inlet_storage *s, const char *dir, size_t total) {
  inlet_error err = INLET_ERROR_INIT;
  const char *p = join(dir, "data/part-0.parquet");
  inlet_wfile *w = NULL;
  CHECK_OK(s->ops->create(s, p, &w, &err), &err);
  uint8_t *chunk = malloc(1 << 20);
  assert_non_null(chunk);
  size_t done = 0, step = 1;
  while (done < total) {
    size_t k = step < total - done ? step : total - done;
    if (k > (1 << 20)) k = 1 << 20;
    sc_fill(chunk, k, 42, done);
    CHECK_OK(inlet_wfile_append(w, chunk, k, &err), &err);
    done += k;
    step = step * 7 + 13;
  }
  assert_int_equal(w->written, (int64_t)total);
  CHECK_OK(inlet_wfile_close(w, true, &err), &err);
  inlet_rfile *r = NULL;
  CHECK_OK(s->ops->open_read(s, p, &r, &err), &err);
  assert_int_equal(r->size, (int64_t)total);
  uint8_t *want = malloc(1 << 20);
  for (size_t off = 0; off < total; off += 1 << 20) {
    size_t k = total - off < (1 << 20) ? total - off : (1 << 20);
    CHECK_OK(inlet_rfile_read_at(r, (int64_t)off, chunk, k, &err), &err);
    sc_fill(want, k, 42, off);
    assert_memory_equal(chunk, want, k);
  }
  inlet_rfile_close(r);
  /* Creating it again fails, at create (posix) or at close (object stores),
   * and leaves the first content. */
  int rc = s->ops->create(s, p, &w, &err);
  if (rc == 0) {
    CHECK_OK(inlet_wfile_append(w, "zz", 2, &err), &err);
    rc = inlet_wfile_close(w, true, &err);
  }
  assert_int_equal(rc, INLET_EEXISTS);
  inlet_dirent de;
  CHECK_OK(s->ops->stat(s, p, &de, &err), &err);
  assert_int_equal(de.size, (int64_t)total);
  inlet_free(de.name);
  /* Abort leaves nothing. */
  const char *a = join(dir, "data/aborted.parquet");
  CHECK_OK(s->ops->create(s, a, &w, &err), &err);
  for (size_t off = 0; off < total; off += 1 << 20) {
    size_t k = total - off < (1 << 20) ? total - off : (1 << 20);
    sc_fill(chunk, k, 7, off);
    CHECK_OK(inlet_wfile_append(w, chunk, k, &err), &err);
  }
  inlet_wfile_abort(w);
  assert_int_equal(s->ops->stat(s, a, &de, &err), INLET_ENOTFOUND);
  free(chunk);
  free(want);
}

void sc_check_put_if_absent_race(sc_open_fn open, void *ctx, const char *dir, int procs) {
  pid_t pids[64];
  assert_true(procs <= 64);
  const char *key = join(dir, "_delta_log/00000000000000000007.json");
  char keybuf[1024];
  snprintf(keybuf, sizeof keybuf, "%s", key);
  int pipefd[2];
  assert_int_equal(pipe(pipefd), 0);
  for (int i = 0; i < procs; i++) {
    pids[i] = fork();
    assert_true(pids[i] >= 0);
    if (pids[i] == 0) {
      close(pipefd[1]);
      inlet_storage *s = open(ctx);
      if (!s) _exit(10);
      char c;
      if (read(pipefd[0], &c, 1) != 0) _exit(11); /* start together when the pipe closes */
      char body[64];
      snprintf(body, sizeof body, "writer %d\n", i);
      inlet_error err = INLET_ERROR_INIT;
      int rc = s->ops->put_if_absent_bytes(s, keybuf, body, strlen(body), &err);
      if (rc != 0 && rc != INLET_EEXISTS) fprintf(stderr, "writer %d: %s\n", i, inlet_errmsg(&err));
      s->ops->free(s);
      _exit(rc == 0 ? 0 : rc == INLET_EEXISTS ? 1 : 12);
    }
  }
  close(pipefd[0]);
  close(pipefd[1]);
  int winners = 0, winner = -1;
  for (int i = 0; i < procs; i++) {
    int st;
    assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) == 0) {
      winners++;
      winner = i;
    } else if (WEXITSTATUS(st) != 1) {
      fail_msg("writer %d exited %d", i, WEXITSTATUS(st));
    }
  }
  assert_int_equal(winners, 1);
  inlet_storage *s = open(ctx);
  assert_non_null(s);
  char *t = get(s, keybuf);
  char want[64];
  snprintf(want, sizeof want, "writer %d\n", winner);
  assert_string_equal(t, want);
  inlet_free(t);
  s->ops->free(s);
}
