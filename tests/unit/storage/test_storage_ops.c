/*
 * The storage.h contract (tests/support/storage_contract.c) on the POSIX
 * backend and through the fault wrapper, plus the POSIX specifics of the
 * object-store-shaped operations: no temporary left behind, abort removes
 * the file, the probe writes nothing, fault kinds of the new operations.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/fault.h"
#include "storage/storage.h"
#include "storage_contract.h"
#include "util/util.h"

static char root[4096];

static int setup(void **state) {
  (void)state;
  char *d = tu_mkdtemp("storage-ops");
  assert_non_null(d);
  snprintf(root, sizeof root, "%s", d);
  /* Log-like names are written as plain objects here, not as a table. */
  tu_rules_exempt(root, "storage contract objects, not a Delta table");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(root);
  return 0;
}

static inlet_storage *open_posix(void *ctx) {
  (void)ctx;
  inlet_storage *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_storage_posix_open(&s, root, false, &err)) fail_msg("%s", inlet_errmsg(&err));
  return s;
}

static inlet_storage *open_fault(void) {
  inlet_storage *s = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_storage_fault_wrap(&s, open_posix(NULL), true, &err), 0);
  return s;
}

static void test_ops__contract_posix(void **state) {
  (void)state;
  inlet_storage *s = open_posix(NULL);
  sc_check_put_get_ranges(s, "a");
  sc_check_put_if_absent(s, "b");
  sc_check_listing(s, "c");
  sc_check_remove_many(s, "d");
  sc_check_wfile(s, "e", 3 << 20);
  s->ops->free(s);
}

static void test_ops__contract_through_fault_wrapper(void **state) {
  (void)state;
  inlet_storage *s = open_fault();
  sc_check_put_get_ranges(s, "a");
  sc_check_put_if_absent(s, "b");
  sc_check_listing(s, "c");
  sc_check_remove_many(s, "d");
  sc_check_wfile(s, "e", 1 << 20);
  s->ops->free(s);
}

static void test_ops__put_if_absent_race_posix(void **state) {
  (void)state;
  sc_check_put_if_absent_race(open_posix, NULL, "race", 8);
}

static void test_ops__no_temporaries_left(void **state) {
  (void)state;
  inlet_storage *s = open_posix(NULL);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(s->ops->put_if_absent_bytes(s, "log/1.json", "a", 1, &err), 0);
  assert_int_equal(s->ops->put_if_absent_bytes(s, "log/1.json", "b", 1, &err), INLET_EEXISTS);
  assert_int_equal(s->ops->put_bytes(s, "log/hint", "c", 1, &err), 0);
  assert_int_equal(s->ops->put_bytes(s, "log/hint", "dd", 2, &err), 0);
  inlet_dirent *e;
  size_t n;
  assert_int_equal(s->ops->list(s, "log", &e, &n, &err), 0);
  assert_int_equal(n, 2);
  assert_string_equal(e[0].name, "1.json");
  assert_string_equal(e[1].name, "hint");
  assert_int_equal(e[1].size, 2);
  inlet_dirents_free(e, n);
  /* The posix probe writes nothing and passes. */
  s->flags = 0;
  assert_int_equal(inlet_storage_probe_conditional(s, "log", &err), 0);
  assert_true(s->flags & INLET_STORAGE_CONDITIONAL_VERIFIED);
  assert_int_equal(s->ops->list(s, "log", &e, &n, &err), 0);
  assert_int_equal(n, 2);
  inlet_dirents_free(e, n);
  s->ops->free(s);
}

static void test_ops__fault_kinds_of_new_operations(void **state) {
  (void)state;
  inlet_storage *s = open_fault();
  inlet_error err = INLET_ERROR_INIT;
  inlet_fault_arm(s, INLET_FAULT_PUT_IF_ABSENT, 0, INLET_FAULT_FAIL);
  assert_int_equal(s->ops->put_if_absent_bytes(s, "log/1.json", "a", 1, &err), INLET_EIO);
  assert_non_null(strstr(err.message, "injected fault"));
  inlet_dirent de;
  assert_int_equal(s->ops->stat(s, "log/1.json", &de, &err), INLET_ENOTFOUND);
  /* FAIL_AFTER: performed, then reported failed (a lost response). */
  inlet_fault_arm(s, INLET_FAULT_PUT_IF_ABSENT, 0, INLET_FAULT_FAIL_AFTER);
  assert_int_equal(s->ops->put_if_absent_bytes(s, "log/1.json", "a", 1, &err), INLET_EIO);
  assert_int_equal(s->ops->stat(s, "log/1.json", &de, &err), 0);
  inlet_free(de.name);
  inlet_fault_arm(s, INLET_FAULT_REPLACE, 0, INLET_FAULT_FAIL);
  assert_int_equal(s->ops->put_bytes(s, "log/hint", "x", 1, &err), INLET_EIO);
  inlet_fault_arm(s, INLET_FAULT_READ, 0, INLET_FAULT_FAIL);
  uint8_t *b;
  size_t n;
  assert_int_equal(s->ops->get_bytes(s, "log/1.json", 10, &b, &n, &err), INLET_EIO);
  inlet_fault_arm(s, INLET_FAULT_LIST, 0, INLET_FAULT_FAIL);
  inlet_dirent *e;
  assert_int_equal(s->ops->list_from(s, "log", NULL, &e, &n, &err), INLET_EIO);
  inlet_fault_arm(s, INLET_FAULT_OPEN_READ, 0, INLET_FAULT_FAIL);
  inlet_rfile *r;
  assert_int_equal(s->ops->open_read_sized(s, "log/1.json", 1, &r, &err), INLET_EIO);
  /* remove_many: one REMOVE per path; the second fails, the others go. */
  assert_int_equal(s->ops->put_bytes(s, "x1", "1", 1, &err), 0);
  assert_int_equal(s->ops->put_bytes(s, "x2", "2", 1, &err), 0);
  assert_int_equal(s->ops->put_bytes(s, "x3", "3", 1, &err), 0);
  inlet_fault_reset_counts(s);
  inlet_fault_arm(s, INLET_FAULT_REMOVE, 1, INLET_FAULT_FAIL);
  const char *paths[] = {"x1", "x2", "x3"};
  int results[3];
  assert_int_equal(s->ops->remove_many(s, paths, 3, results, &err), INLET_EIO);
  assert_non_null(strstr(err.message, "x2"));
  assert_int_equal(results[0], 0);
  assert_int_equal(results[1], INLET_EIO);
  assert_int_equal(results[2], 0);
  assert_int_equal(inlet_fault_count(s, INLET_FAULT_REMOVE), 3);
  assert_int_equal(s->ops->stat(s, "x2", &de, &err), 0);
  inlet_free(de.name);
  /* A read_tail through the wrapper counts as a read. */
  inlet_fault_disarm(s);
  inlet_fault_reset_counts(s);
  assert_int_equal(s->ops->open_read_sized(s, "x2", -1, &r, &err), 0);
  char c;
  size_t got;
  assert_int_equal(r->ops->read_tail(r, &c, 1, &got, &err), 0);
  assert_int_equal(c, '2');
  assert_int_equal(r->size, 1);
  assert_int_equal(inlet_fault_count(s, INLET_FAULT_READ), 1);
  inlet_rfile_close(r);
  s->ops->free(s);
}

static void test_ops__abort_removes_the_file(void **state) {
  (void)state;
  inlet_storage *s = open_posix(NULL);
  inlet_error err = INLET_ERROR_INIT;
  inlet_wfile *w;
  assert_int_equal(s->ops->create(s, "d/part.parquet", &w, &err), 0);
  assert_int_equal(inlet_wfile_append(w, "abc", 3, &err), 0);
  inlet_wfile_abort(w);
  inlet_dirent de;
  assert_int_equal(s->ops->stat(s, "d/part.parquet", &de, &err), INLET_ENOTFOUND);
  s->ops->free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_ops__contract_posix, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ops__contract_through_fault_wrapper, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ops__put_if_absent_race_posix, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ops__no_temporaries_left, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ops__fault_kinds_of_new_operations, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ops__abort_removes_the_file, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
