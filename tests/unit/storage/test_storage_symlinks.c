/*
 * Issue 12: the POSIX backend creates, makes directories and removes only at
 * real paths inside its root. A symbolic link on the way (to a directory
 * inside or outside the root) is refused with INLET_EINVAL naming it, and
 * nothing is written or deleted behind it; a link as the last component is
 * never followed by create (EEXISTS) and is removed itself, never its
 * target. Reads and listings keep working: listings report links as links.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/storage.h"

static char dir[4096], root[4200], outside[4200];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("storage_symlinks"));
  snprintf(root, sizeof root, "%s/root", dir);
  snprintf(outside, sizeof outside, "%s/outside", dir);
  tu_result r;
  tu_sh(&r,
        "mkdir -p '%s/real' '%s/sub' && echo secret > '%s/sub/f' && "
        "ln -s '%s' '%s/out' && ln -s real '%s/in' && ln -s '%s/sub/f' '%s/real/flink'",
        root, outside, outside, outside, root, root, outside, root);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(dir);
  return 0;
}

static inlet_storage *open_root(void) {
  inlet_storage *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_storage_posix_open(&s, root, false, &err) != 0) fail_msg("open: %s", err.message);
  return s;
}

static bool exists(const char *base, const char *rel) {
  char p[8400];
  snprintf(p, sizeof p, "%s/%s", base, rel);
  struct stat st;
  return lstat(p, &st) == 0;
}

static void test_storage_symlinks__create_refuses_links_on_the_way(void **state) {
  (void)state;
  inlet_storage *s = open_root();
  inlet_error err = INLET_ERROR_INIT;
  inlet_wfile *w = NULL;
  assert_int_equal(s->ops->create(s, "out/x.parquet", &w, &err), INLET_EINVAL);
  assert_null(w);
  assert_non_null(strstr(err.message, "out is a symbolic link"));
  assert_int_equal(s->ops->create(s, "out/sub/new/x", &w, &err), INLET_EINVAL);
  assert_int_equal(s->ops->create(s, "in/x", &w, &err), INLET_EINVAL); /* inside, still a link */
  assert_false(exists(outside, "x.parquet"));
  assert_false(exists(outside, "sub/new"));
  assert_false(exists(root, "real/x"));
  /* A link as the last component is never written through. */
  assert_int_equal(s->ops->create(s, "real/flink", &w, &err), INLET_EEXISTS);
  tu_result r;
  tu_sh(&r, "cat '%s/sub/f'", outside);
  assert_string_equal(r.out, "secret\n");
  tu_result_free(&r);
  /* Real paths work, missing directories are made. */
  assert_int_equal(s->ops->create(s, "real/a/b/x", &w, &err), 0);
  assert_int_equal(inlet_wfile_append(w, "hi", 2, &err), 0);
  assert_int_equal(inlet_wfile_close(w, true, &err), 0);
  assert_true(exists(root, "real/a/b/x"));
  /* mkdirs refuses the same. */
  assert_int_equal(s->ops->mkdirs(s, "out/newdir", &err), INLET_EINVAL);
  assert_false(exists(outside, "newdir"));
  assert_int_equal(s->ops->mkdirs(s, "real/c/d", &err), 0);
  s->ops->free(s);
}

static void test_storage_symlinks__remove_never_through_or_behind_a_link(void **state) {
  (void)state;
  inlet_storage *s = open_root();
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(s->ops->remove(s, "out/sub/f", &err), INLET_EINVAL);
  assert_true(exists(outside, "sub/f"));
  /* The link itself goes, its target stays. */
  assert_int_equal(s->ops->remove(s, "real/flink", &err), 0);
  assert_false(exists(root, "real/flink"));
  assert_true(exists(outside, "sub/f"));
  assert_int_equal(s->ops->remove(s, "out", &err), 0);
  assert_false(exists(root, "out"));
  assert_true(exists(outside, "sub/f"));
  s->ops->free(s);
}

static void test_storage_symlinks__listing_reports_links_reads_follow(void **state) {
  (void)state;
  inlet_storage *s = open_root();
  inlet_error err = INLET_ERROR_INIT;
  for (int names = 0; names < 2; names++) {
    inlet_dirent *e = NULL;
    size_t n = 0;
    int rc = names ? s->ops->list_names(s, "", &e, &n, &err) : s->ops->list(s, "", &e, &n, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(n, 3); /* in, out, real */
    assert_string_equal(e[0].name, "in");
    assert_true(e[0].is_symlink && !e[0].is_dir);
    assert_string_equal(e[1].name, "out");
    assert_true(e[1].is_symlink && !e[1].is_dir);
    assert_string_equal(e[2].name, "real");
    assert_true(!e[2].is_symlink && e[2].is_dir);
    inlet_dirents_free(e, n);
  }
  inlet_rfile *f = NULL;
  assert_int_equal(s->ops->open_read(s, "out/sub/f", &f, &err), 0);
  char buf[7];
  assert_int_equal(inlet_rfile_read_at(f, 0, buf, 6, &err), 0);
  assert_memory_equal(buf, "secret", 6);
  inlet_rfile_close(f);
  s->ops->free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_storage_symlinks__create_refuses_links_on_the_way, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_storage_symlinks__remove_never_through_or_behind_a_link,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_storage_symlinks__listing_reports_links_reads_follow,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
