/*
 * Every public entry point that takes an options struct checks its
 * `version` on entry: a struct of a version this library does not know is
 * refused with INLET_EINVAL and a message naming the version, before
 * anything is read or written (a caller built against other headers must
 * not have fields misread). The current version is accepted.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "inlet/inlet.h"

#define BAD_VERSION 9999

static char dir[4096], table_path[4200];

static int setup(void **state) {
  (void)state;
  char *d = tu_mkdtemp("options-version");
  if (!d) return -1;
  snprintf(dir, sizeof dir, "%s", d);
  snprintf(table_path, sizeof table_path, "%s/t", dir);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(dir);
  return 0;
}

static void expect_refused(int rc, const inlet_error *err, const char *what) {
  if (rc != INLET_EINVAL || !strstr(err->message, "version") || !strstr(err->message, "9999"))
    fail_msg("%s: rc %d, message '%s' (want EINVAL naming version 9999)", what, rc, err->message);
}

static inlet_table *make_table(void) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, name string", &err), 0);
  inlet_table *t = NULL;
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  assert_int_equal(inlet_table_create(&t, table_path, &s, &co, &err), 0);
  inlet_schema_reset(&s);
  return t;
}

static void test_options_version__create_refuses_unknown_version(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long", &err), 0);
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  co.version = BAD_VERSION;
  inlet_table *t = NULL;
  expect_refused(inlet_table_create(&t, table_path, &s, &co, &err), &err, "create");
  assert_null(t);
  struct stat st;
  assert_int_not_equal(stat(table_path, &st), 0); /* nothing written */
  inlet_schema_reset(&s);
}

static void test_options_version__table_entry_points_refuse_unknown_version(void **state) {
  (void)state;
  inlet_table *t = make_table();
  inlet_error err = INLET_ERROR_INIT;

  inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
  ao.version = BAD_VERSION;
  inlet_table_writer *w = NULL;
  expect_refused(inlet_table_writer_open(&w, t, &ao, &err), &err, "writer_open");
  assert_null(w);
  inlet_error_clear(&err);
  expect_refused(inlet_table_append(t, NULL, 0, &ao, NULL, &err), &err, "append");
  inlet_error_clear(&err);

  inlet_compact_options co = INLET_COMPACT_OPTIONS_INIT;
  co.version = BAD_VERSION;
  inlet_compact_result cr;
  expect_refused(inlet_table_compact(&cr, t, &co, &err), &err, "compact");
  inlet_error_clear(&err);

  inlet_vacuum_options vo = INLET_VACUUM_OPTIONS_INIT;
  vo.version = BAD_VERSION;
  inlet_vacuum_result vr;
  expect_refused(inlet_table_vacuum(&vr, t, &vo, &err), &err, "vacuum");
  inlet_error_clear(&err);

  inlet_log_cleanup_options lo = INLET_LOG_CLEANUP_OPTIONS_INIT;
  lo.version = BAD_VERSION;
  inlet_log_cleanup_result lr;
  expect_refused(inlet_table_cleanup_log(&lr, t, &lo, &err), &err, "cleanup_log");
  inlet_error_clear(&err);

  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  inlet_scan_options so = INLET_SCAN_OPTIONS_INIT;
  so.version = BAD_VERSION;
  inlet_scan *sc = NULL;
  expect_refused(inlet_scan_open(&sc, s, &so, &err), &err, "scan_open");
  assert_null(sc);
  inlet_error_clear(&err);
  /* The current versions are accepted. */
  so.version = INLET_SCAN_OPTIONS_VERSION;
  assert_int_equal(inlet_scan_open(&sc, s, &so, &err), 0);
  inlet_scan_free(sc);
  inlet_snapshot_free(s);

  inlet_ingest_options io = INLET_INGEST_OPTIONS_INIT;
  io.version = BAD_VERSION;
  io.source = "stdin";
  io.once = true;
  inlet_ingest_progress p;
  expect_refused(inlet_ingest_run(&p, t, &io, &err), &err, "ingest");
  inlet_error_clear(&err);

  /* The table is still at version 0: nothing was committed. */
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  assert_int_equal(inlet_snapshot_version(s), 0);
  inlet_snapshot_free(s);
  inlet_table_free(t);
}

static void test_options_version__file_entry_points_refuse_unknown_version(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long", &err), 0);
  char path[4300];
  snprintf(path, sizeof path, "%s/f.parquet", dir);

  inlet_parquet_writer_options pwo = INLET_PARQUET_WRITER_OPTIONS_INIT;
  pwo.version = BAD_VERSION;
  inlet_parquet_writer *pw = NULL;
  expect_refused(inlet_parquet_writer_open(&pw, path, &s, &pwo, &err), &err, "parquet writer");
  assert_null(pw);
  inlet_error_clear(&err);

  pwo.version = INLET_PARQUET_WRITER_OPTIONS_VERSION;
  assert_int_equal(inlet_parquet_writer_open(&pw, path, &s, &pwo, &err), 0);
  assert_int_equal(inlet_parquet_writer_close(pw, &err), 0);
  inlet_parquet_writer_free(pw);
  inlet_parquet_reader_options pro = INLET_PARQUET_READER_OPTIONS_INIT;
  pro.version = BAD_VERSION;
  inlet_parquet_reader *pr = NULL;
  expect_refused(inlet_parquet_reader_open(&pr, path, &pro, &err), &err, "parquet reader");
  assert_null(pr);
  inlet_error_clear(&err);

  inlet_text_reader_options tro = INLET_TEXT_READER_OPTIONS_INIT;
  tro.version = BAD_VERSION;
  inlet_text_reader *tr = NULL;
  expect_refused(inlet_text_reader_open_memory(&tr, "{\"id\":1}\n", 9, &s, &tro, &err), &err,
                 "text reader");
  assert_null(tr);
  inlet_error_clear(&err);

  inlet_text_writer_options two = INLET_TEXT_WRITER_OPTIONS_INIT;
  two.version = BAD_VERSION;
  inlet_text_writer *tw = NULL;
  FILE *devnull = fopen("/dev/null", "w");
  assert_non_null(devnull);
  expect_refused(inlet_text_writer_new_file(&tw, &s, &two, devnull, &err), &err, "text writer");
  assert_null(tw);
  fclose(devnull);
  inlet_schema_reset(&s);
}

/* The structs that gained `threads` still accept their previous version, whose struct
 * ends before it: a negative threads (refused by the current version) past that end is
 * not read. */
static void test_options_version__previous_version_ignores_threads(void **state) {
  (void)state;
  inlet_table *t = make_table();
  inlet_error err = INLET_ERROR_INIT;

  inlet_append_options ao = INLET_APPEND_OPTIONS_INIT;
  ao.threads = -5;
  inlet_table_writer *w = NULL;
  assert_int_equal(inlet_table_writer_open(&w, t, &ao, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "threads"));
  inlet_error_clear(&err);
  ao.version = 1;
  assert_int_equal(inlet_table_writer_open(&w, t, &ao, &err), 0);
  inlet_table_writer_free(w);

  inlet_compact_options co = INLET_COMPACT_OPTIONS_INIT;
  co.threads = -5;
  inlet_compact_result cr;
  assert_int_equal(inlet_table_compact(&cr, t, &co, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "threads"));
  inlet_error_clear(&err);
  co.version = 1;
  assert_int_equal(inlet_table_compact(&cr, t, &co, &err), 0);

  inlet_ingest_options io = INLET_INGEST_OPTIONS_INIT;
  io.source = "file:/nonexistent/inlet-options-version.ndjson";
  io.once = true;
  io.threads = -5;
  inlet_ingest_progress p;
  assert_int_equal(inlet_ingest_run(&p, t, &io, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "threads"));
  inlet_error_clear(&err);
  io.version = 4;
  assert_int_not_equal(inlet_ingest_run(&p, t, &io, &err), 0); /* the missing file */
  assert_null(strstr(err.message, "threads"));
  inlet_error_clear(&err);
  inlet_table_free(t);

  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long", &err), 0);
  char path[4300];
  snprintf(path, sizeof path, "%s/v1.parquet", dir);
  inlet_parquet_writer_options pwo = INLET_PARQUET_WRITER_OPTIONS_INIT;
  pwo.threads = -5;
  inlet_parquet_writer *pw = NULL;
  assert_int_equal(inlet_parquet_writer_open(&pw, path, &s, &pwo, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "threads"));
  inlet_error_clear(&err);
  pwo.version = 1;
  assert_int_equal(inlet_parquet_writer_open(&pw, path, &s, &pwo, &err), 0);
  assert_int_equal(inlet_parquet_writer_close(pw, &err), 0);
  inlet_parquet_writer_free(pw);
  inlet_schema_reset(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_options_version__create_refuses_unknown_version, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(
          test_options_version__table_entry_points_refuse_unknown_version, setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_options_version__file_entry_points_refuse_unknown_version, setup, teardown),
      cmocka_unit_test_setup_teardown(test_options_version__previous_version_ignores_threads, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
