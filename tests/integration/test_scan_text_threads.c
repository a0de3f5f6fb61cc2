/*
 * Issue 18, through the real binary: `scan --threads N` formats its text
 * output on N threads (src/cli/text_par.c), and the bytes are still those
 * one thread writes. On a table of many files (partitioned, several appends),
 * a table of one file of many row groups (`compact --row-group-size`) and one
 * of a single 40,000-row row group (a batch cut into ranges of rows),
 * whose values need CSV quoting, Markdown and JSON escaping (commas, quotes,
 * line breaks, pipes, empty strings, nulls, nested values, non-ASCII): ndjson,
 * csv, json and markdown at 2 and 4 threads are byte for byte what 1 thread
 * prints, with a predicate, with columns, with --limit, into --output FILE
 * (and replacing one with --force) and for an empty result; --unordered
 * prints the same lines as a multiset; a damaged file fails with one
 * thread's status and message after the same output. Also run under
 * ThreadSanitizer (make test-tsan).
 */
#include "log_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TU_SCRATCH_DIR("scantext")

#define SCHEMA                                                                                     \
  "id long, p string, name string, v double, tags array<long>, s struct<a:long,b:string>"

/* @p n rows from @p first whose names and struct strings take every escape
 * the text formats have. */
static void write_rows(const char *name, int first, int n) {
  static const char *const odd[] = {
      "plain",       "with,comma",    "say \\\"hi\\\"",           "two\\nlines",
      "pi|pe",       "back\\\\slash", "caf\xc3\xa9 \xe6\x97\xa5", "",
      " lead space",
  };
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (int i = first; i < first + n; i++) {
    fprintf(f, "{\"id\":%d,\"p\":\"p%d\",", i, i % 5);
    if (i % 11 == 0)
      fputs("\"name\":null,", f);
    else
      fprintf(f, "\"name\":\"%s-%d\",", odd[i % 9], i % 97);
    if (i % 13 != 0) fprintf(f, "\"v\":%.3f,", i * 0.125);
    fprintf(f, "\"tags\":[%d,%d],\"s\":{\"a\":%d,\"b\":\"%s\"}}\n", i % 7, i, i * 3,
            odd[(i / 9) % 9]);
  }
  fclose(f);
}

/* scan TABLE --format FMT --threads N OPTS: its result (the caller frees it). */
static void scan(tu_result *r, const char *table, const char *fmt, int threads, const char *opts) {
  tu_sh(r, "cd '%s' && '%s' scan %s --format %s --threads %d %s", dir, INLET_BIN, table, fmt,
        threads, opts);
}

static char *scan_ok(const char *table, const char *fmt, int threads, const char *opts,
                     size_t *len) {
  tu_result r;
  scan(&r, table, fmt, threads, opts);
  if (r.status != 0)
    fail_msg("scan %s --format %s --threads %d %s: %s", table, fmt, threads, opts, r.err);
  char *out = r.out;
  *len = r.out_len;
  r.out = NULL;
  tu_result_free(&r);
  return out;
}

static void assert_same_bytes(const char *got, size_t got_len, const char *want, size_t want_len,
                              const char *what) {
  if (got_len != want_len || memcmp(got, want, want_len) != 0) {
    size_t k = 0;
    while (k < got_len && k < want_len && got[k] == want[k])
      k++;
    fail_msg("%s: %zu bytes, one thread %zu; first difference at byte %zu", what, got_len, want_len,
             k);
  }
}

static size_t count_lines(const char *text) {
  size_t n = 0;
  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

static void make_tables(void) {
  LS_SH_OK("create",
           "cd '%s' && '%s' create multi --schema '" SCHEMA "' --partition-by p && "
           "'%s' create one --schema '" SCHEMA "'",
           dir, INLET_BIN, INLET_BIN);
  const int appends = 20, per = 500;
  for (int a = 0; a < appends; a++) {
    char name[64];
    snprintf(name, sizeof name, "in%d.ndjson", a);
    write_rows(name, a * per, per);
    LS_SH_OK("append", "cd '%s' && '%s' append multi %s && '%s' append one %s", dir, INLET_BIN,
             name, INLET_BIN, name);
  }
  LS_SH_OK("compact",
           "cd '%s' && '%s' compact one --target-size 1G --row-group-size 8K --min-files 2 | "
           "grep -q ' -> 1 files'",
           dir, INLET_BIN);
  /* Many row groups in the one file: many batches to format side by side. */
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' scan one --explain --threads 1 | grep -c '^  row group'", dir,
        INLET_BIN);
  assert_true(atoi(r.out) >= 12);
  tu_result_free(&r);
  /* One row group of 40,000 rows: one batch, cut into ranges formatted side by side. */
  write_rows("big.ndjson", 100000, 40000);
  LS_SH_OK("big", "cd '%s' && '%s' create big --schema '" SCHEMA "' && '%s' append big big.ndjson",
           dir, INLET_BIN, INLET_BIN);
  tu_sh(&r, "cd '%s' && '%s' scan big --explain --threads 1 | grep '^  row group'", dir, INLET_BIN);
  assert_non_null(strstr(r.out, "read (40000 rows)"));
  assert_int_equal(count_lines(r.out), 1);
  tu_result_free(&r);
}

static const char *const tables[] = {"multi", "one", "big"};
static const char *const formats[] = {"ndjson", "csv", "json", "markdown"};
#define N_OF(a) (sizeof(a) / sizeof *(a))

/* Every format, at 2 and 4 threads: the bytes of 1 thread, over all rows,
 * with predicates and columns, with limits (the first rows) and for an
 * empty result (CSV and Markdown headers, JSON's []). */
static void test_scan_text_threads__formats_identical(void **state) {
  (void)state;
  make_tables();
  static const char *const opts[] = {
      "",
      "--where \"v > 300 AND p IN ('p1', 'p3')\"",
      "--columns s,name,id --where \"id % 3 = 0 OR name LIKE 'two%'\"",
      "--where 'id < 0'",
      "--limit 7",
      "--limit 2500 --where 'id % 2 = 1'",
  };
  for (size_t t = 0; t < N_OF(tables); t++)
    for (size_t f = 0; f < N_OF(formats); f++)
      for (size_t o = 0; o < N_OF(opts); o++) {
        size_t ref_len = 0;
        char *ref = scan_ok(tables[t], formats[f], 1, opts[o], &ref_len);
        if (o == 0) assert_true(count_lines(ref) >= 9000);
        if (o == 3 && strcmp(formats[f], "json") == 0) assert_string_equal(ref, "[]\n");
        if (o == 3 && strcmp(formats[f], "csv") == 0)
          assert_string_equal(ref, "id,p,name,v,tags,s\n");
        if (o == 4 && strcmp(formats[f], "ndjson") == 0) assert_int_equal(count_lines(ref), 7);
        for (int threads = 2; threads <= 4; threads *= 2) {
          size_t len = 0;
          char *got = scan_ok(tables[t], formats[f], threads, opts[o], &len);
          char what[400];
          snprintf(what, sizeof what, "%s --format %s --threads %d %s", tables[t], formats[f],
                   threads, opts[o]);
          assert_same_bytes(got, len, ref, ref_len, what);
          free(got);
        }
        free(ref);
      }
  /* The table format is not formatted in parallel (its widths come from
   * the first rows), but prints the same whatever --threads. */
  size_t ref_len = 0, len = 0;
  char *ref = scan_ok("one", "table", 1, "", &ref_len);
  char *got = scan_ok("one", "table", 4, "", &len);
  assert_same_bytes(got, len, ref, ref_len, "one --format table --threads 4");
  free(ref);
  free(got);
}

/* --unordered: the same lines as a multiset (ndjson and csv, whose records
 * are lines or runs of lines); with --limit N, N of the matching rows. */
static void test_scan_text_threads__unordered_same_multiset(void **state) {
  (void)state;
  for (size_t t = 0; t < N_OF(tables); t++)
    for (int f = 0; f < 2; f++) {
      size_t ref_len = 0;
      char opts[200];
      snprintf(opts, sizeof opts, "--where 'v > 100' | LC_ALL=C sort");
      char *ref = scan_ok(tables[t], formats[f], 1, opts, &ref_len);
      assert_true(count_lines(ref) > 5000);
      for (int threads = 2; threads <= 4; threads *= 2) {
        size_t len = 0;
        snprintf(opts, sizeof opts, "--where 'v > 100' --unordered | LC_ALL=C sort");
        char *got = scan_ok(tables[t], formats[f], threads, opts, &len);
        assert_same_bytes(got, len, ref, ref_len, "--unordered, sorted");
        free(got);
        if (f == 0) {
          /* --limit N: N of the matching rows (ids are unique, so no row twice). */
          tu_result r;
          tu_sh(&r,
                "cd '%s' && '%s' scan %s --format ndjson --threads %d --where 'v > 100' "
                "--unordered --limit 3000 | LC_ALL=C sort > lim.txt && "
                "'%s' scan %s --format ndjson --threads 1 --where 'v > 100' | LC_ALL=C sort > "
                "all.txt && wc -l < lim.txt && LC_ALL=C comm -23 lim.txt all.txt | wc -l",
                dir, INLET_BIN, tables[t], threads, INLET_BIN, tables[t]);
          assert_int_equal(r.status, 0);
          assert_string_equal(r.out, "3000\n0\n");
          tu_result_free(&r);
        }
      }
      free(ref);
    }
}

/* --output FILE gets the bytes standard output gets, at every thread count,
 * also when --force replaces an existing file. */
static void test_scan_text_threads__output_file(void **state) {
  (void)state;
  for (size_t f = 0; f < N_OF(formats); f++) {
    size_t ref_len = 0;
    char *ref = scan_ok("one", formats[f], 1, "--where 'id % 5 != 2'", &ref_len);
    for (int threads = 1; threads <= 4; threads *= 2) {
      char opts[200];
      snprintf(opts, sizeof opts, "--where 'id %% 5 != 2' --output out.txt --force");
      tu_result r;
      LS_SH_OK("stale file", "cd '%s' && echo stale > out.txt", dir);
      scan(&r, "one", formats[f], threads, opts);
      assert_int_equal(r.status, 0);
      assert_int_equal(r.out_len, 0);
      tu_result_free(&r);
      char path[4300];
      snprintf(path, sizeof path, "%s/out.txt", dir);
      size_t len = 0;
      char *got = tu_read_file(path, &len);
      assert_non_null(got);
      assert_same_bytes(got, len, ref, ref_len, "--output out.txt --force");
      free(got);
    }
    free(ref);
  }
}

/* A damaged data file: at 2 and 4 threads the status and message of one
 * thread (its first damaged row group) after the same output, in each
 * format. */
static void test_scan_text_threads__first_error_same_output(void **state) {
  (void)state;
  ls_damaged_copy(dir, "one", "bad");
  tu_result r;
  for (size_t f = 0; f < N_OF(formats); f++) {
    tu_result ref;
    scan(&ref, "bad", formats[f], 1, "");
    assert_int_not_equal(ref.status, 0);
    assert_non_null(strstr(ref.err, "row group"));
    assert_true(count_lines(ref.out) > 1000);
    for (int threads = 2; threads <= 4; threads *= 2) {
      scan(&r, "bad", formats[f], threads, "");
      assert_int_equal(r.status, ref.status);
      assert_string_equal(r.err, ref.err);
      assert_same_bytes(r.out, r.out_len, ref.out, ref.out_len, "damaged file");
      tu_result_free(&r);
    }
    tu_result_free(&ref);
  }
  /* An output that cannot be written fails alike too. */
  tu_result ref;
  tu_sh(&ref, "cd '%s' && '%s' scan one --format csv --threads 1 > /dev/full", dir, INLET_BIN);
  assert_int_not_equal(ref.status, 0);
  for (int threads = 2; threads <= 4; threads *= 2) {
    tu_sh(&r, "cd '%s' && '%s' scan one --format csv --threads %d > /dev/full", dir, INLET_BIN,
          threads);
    assert_int_equal(r.status, ref.status);
    assert_string_equal(r.err, ref.err);
    tu_result_free(&r);
  }
  tu_result_free(&ref);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scan_text_threads__formats_identical),
      cmocka_unit_test(test_scan_text_threads__unordered_same_multiset),
      cmocka_unit_test(test_scan_text_threads__output_file),
      cmocka_unit_test(test_scan_text_threads__first_error_same_output),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
