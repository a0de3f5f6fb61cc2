/*
 * The page index end to end, through the real binary: a partitioned table
 * with small data pages (table property inlet.parquet.pageRows), appended
 * several times and compacted, has in every data file an OffsetIndex and a
 * ColumnIndex that an independent reader (hyparquet,
 * tests/integration/page_index_hyparquet.mjs) finds consistent with the
 * pages and the values it decodes itself. DuckDB (refcheck delta) reads the
 * same files to the rows inlet scans, and a selective scan skips pages by
 * the index yet returns exactly the matching rows.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"

#define APPENDS 4
#define ROWS 700

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

static void build(const char *dir) {
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long not null, user string, amount decimal(10,2), "
        "ts timestamp, ok boolean, day date' --partition-by day "
        "--property inlet.parquet.pageRows=64",
        dir, INLET_BIN);
  sh_ok(&r, "create");
  tu_result_free(&r);
  int64_t id = 0;
  for (int k = 0; k < APPENDS; k++) {
    char path[4300];
    snprintf(path, sizeof path, "%s/in%d.ndjson", dir, k);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < ROWS; i++, id++) {
      /* Ids and times ascend; users are null for a run of 150 rows (null
       * pages) and now and then; two days per append. */
      char user[32];
      if ((i >= 200 && i < 350) || id % 11 == 0)
        snprintf(user, sizeof user, "null");
      else
        snprintf(user, sizeof user, "\"u%02d\"", (int)(id * 7 % 53));
      fprintf(f,
              "{\"id\":%lld,\"user\":%s,\"amount\":%s,\"ts\":\"2024-06-%02dT%02d:%02d:%02dZ\","
              "\"ok\":%s,\"day\":\"2024-06-%02d\"}\n",
              (long long)id, user, id % 13 == 0 ? "null" : "12.34", 1 + 2 * k + (i >= ROWS / 2),
              (i / 60) % 24, i % 60, (int)(id % 60), id % 3 ? "true" : "false",
              1 + 2 * k + (i >= ROWS / 2));
    }
    fclose(f);
    tu_sh(&r, "cd '%s' && '%s' append t in%d.ndjson", dir, INLET_BIN, k);
    sh_ok(&r, "append");
    tu_result_free(&r);
  }
}

static void test_page_index__independent_reader_agrees_with_every_file(void **state) {
  (void)state;
  const char *dir = tu_mkdtemp("page-index");
  build(dir);
  tu_result r;
  /* One more append to one day, then compaction rewrites that day. */
  tu_sh(&r,
        "cd '%s' && head -n 100 in0.ndjson > again.ndjson && '%s' append t again.ndjson && "
        "'%s' compact t --min-files 2",
        dir, INLET_BIN, INLET_BIN);
  sh_ok(&r, "append + compact");
  assert_non_null(strstr(r.out, "compacted"));
  tu_result_free(&r);

  tu_sh(&r,
        "cd '%s' && find t -name '*.parquet' | sort | xargs '%s' "
        "'%s/tests/integration/page_index_hyparquet.mjs' '%s'",
        dir, INLET_NODE, INLET_SOURCE_DIR, INLET_HYPARQUET_DIR);
  sh_ok(&r, "hyparquet page index check");
  int files = 0, chunks = 0, pages = 0, cis = 0;
  const char *j = strstr(r.out, "{\"files\":");
  assert_non_null(j);
  assert_int_equal(sscanf(j, "{\"files\":%d,\"chunks\":%d,\"pages\":%d,\"column_indexes\":%d",
                          &files, &chunks, &pages, &cis),
                   4);
  /* 8 day files, one more for the extra append, one compacted output. */
  assert_true(files >= 10);
  assert_int_equal(chunks, files * 5);
  assert_true(pages >= chunks * 5); /* 350 rows per file in pages of 64 */
  assert_int_equal(cis, chunks);
  tu_result_free(&r);

  /* DuckDB reads the page-indexed files to the rows inlet scans. */
  tu_sh(&r,
        "cd '%s' && '%s' scan t --format ndjson > o.ndjson && '%s' '%s' delta t > ref.json && "
        "'%s' '%s' compare ref.json o.ndjson --ndjson",
        dir, INLET_BIN, INLET_NODE, INLET_REFCHECK, INLET_NODE, INLET_REFCHECK);
  sh_ok(&r, "scan + refcheck compare");
  tu_result_free(&r);
  tu_rmtree(dir);
}

static void test_page_index__selective_scan_skips_pages_and_keeps_every_match(void **state) {
  (void)state;
  const char *dir = tu_mkdtemp("page-index-scan");
  build(dir);
  char table[4300];
  snprintf(table, sizeof table, "%s/t", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, t, &err), 0);
  struct {
    const char *where;
    int64_t lo, hi; /* the ids that must come back: [lo, hi) */
  } cases[] = {
      {"id >= 1000 AND id < 1090", 1000, 1090},
      {"id BETWEEN 63 AND 64", 63, 65},
      {"id = 2799", 2799, 2800},
      {"id < 0", 0, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
    const char *cols[] = {"id", "user"};
    o.columns = cols;
    o.n_columns = 2;
    o.where = cases[c].where;
    inlet_scan *sc = NULL;
    assert_int_equal(inlet_scan_open(&sc, s, &o, &err), 0);
    inlet_batch b;
    memset(&b, 0, sizeof b);
    int rc;
    int64_t n = 0, sum = 0;
    while ((rc = inlet_scan_next(sc, &b, &err)) == 1) {
      for (int64_t i = 0; i < b.num_rows; i++) {
        int64_t id = ((const int64_t *)b.columns[0].values)[i];
        assert_true(id >= cases[c].lo && id < cases[c].hi);
        sum += id;
      }
      n += b.num_rows;
    }
    assert_int_equal(rc, 0);
    int64_t want = cases[c].hi - cases[c].lo;
    assert_int_equal(n, want);
    assert_int_equal(sum, (cases[c].lo + cases[c].hi - 1) * want / 2);
    inlet_scan_stats st;
    inlet_scan_get_stats(sc, &st);
    /* Pages were skipped inside the row groups read, unless add.stats
     * already ruled out every file. */
    if (st.files_read > 0) {
      assert_true(st.rows_skipped > 0);
      assert_true(st.rows_read < st.files_read * (ROWS / 2));
    }
    inlet_batch_reset(&b);
    inlet_scan_free(sc);
  }
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' scan t --where 'id >= 1000 AND id < 1090' --explain", dir, INLET_BIN);
  sh_ok(&r, "scan --explain");
  assert_non_null(strstr(r.out, "pages skipped by the page index"));
  assert_non_null(strstr(r.out, "page index: "));
  tu_result_free(&r);
  inlet_snapshot_free(s);
  inlet_table_free(t);
  tu_rmtree(dir);
}

/* The "id" of an ndjson line. */
static long long line_id(const char *line) {
  const char *p = strstr(line, "\"id\":");
  assert_non_null(p);
  return atoll(p + 5);
}

/* Filtered scans (page ranges, partial pages, in-place row filtering of
 * every column type, nulls, limits) return exactly the lines of the full
 * scan that satisfy the predicate, in the same order. */
static void test_page_index__filtered_rows_equal_the_full_scan_rows(void **state) {
  (void)state;
  const char *dir = tu_mkdtemp("page-index-rows");
  build(dir);
  tu_result all;
  tu_sh(&all, "cd '%s' && '%s' scan t --format ndjson", dir, INLET_BIN);
  sh_ok(&all, "full scan");
  struct {
    const char *where;
    int limit;
    int kind; /* 0: id in [a, b); 1: id < a OR id in [b, b + 20) OR user IS NULL */
    long long a, b;
  } cases[] = {
      {"id >= 1000 AND id < 1090", -1, 0, 1000, 1090},
      {"id >= 1000 AND id < 1090", 7, 0, 1000, 1090},
      {"id >= 37 AND id < 2011", -1, 0, 37, 2011},
      {"id < 10 OR (id >= 500 AND id < 520) OR user IS NULL", -1, 1, 10, 500},
      {"id < 10 OR (id >= 500 AND id < 520) OR user IS NULL", 33, 1, 10, 500},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    tu_result r;
    char lim[32] = "";
    if (cases[c].limit >= 0) snprintf(lim, sizeof lim, " --limit %d", cases[c].limit);
    tu_sh(&r, "cd '%s' && '%s' scan t --format ndjson --where '%s'%s", dir, INLET_BIN,
          cases[c].where, lim);
    sh_ok(&r, cases[c].where);
    /* The expected text: matching lines of the full scan, in order. */
    size_t cap = strlen(all.out) + 1, len = 0;
    char *want = malloc(cap);
    assert_non_null(want);
    want[0] = 0;
    int n = 0;
    for (const char *line = all.out; *line && (cases[c].limit < 0 || n < cases[c].limit);) {
      const char *nl = strchr(line, '\n');
      assert_non_null(nl);
      long long id = line_id(line);
      bool match = cases[c].kind == 0
                       ? id >= cases[c].a && id < cases[c].b
                       : id < cases[c].a || (id >= cases[c].b && id < cases[c].b + 20) ||
                             (strstr(line, "\"user\":null") && strstr(line, "\"user\":null") < nl);
      if (match) {
        memcpy(want + len, line, (size_t)(nl - line + 1));
        len += (size_t)(nl - line + 1);
        want[len] = 0;
        n++;
      }
      line = nl + 1;
    }
    assert_true(n > 5);
    assert_string_equal(r.out, want);
    free(want);
    tu_result_free(&r);
  }
  tu_result_free(&all);
  tu_rmtree(dir);
}

static void test_page_index__bad_page_rows_property_is_refused(void **state) {
  (void)state;
  const char *dir = tu_mkdtemp("page-index-prop");
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' create t --schema 'id long' --property inlet.parquet.pageRows=zero && "
        "echo '{\"id\":1}' > a.ndjson && '%s' append t a.ndjson",
        dir, INLET_BIN, INLET_BIN);
  assert_int_not_equal(r.status, 0);
  assert_non_null(strstr(r.err, "inlet.parquet.pageRows"));
  tu_result_free(&r);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_page_index__independent_reader_agrees_with_every_file),
      cmocka_unit_test(test_page_index__selective_scan_skips_pages_and_keeps_every_match),
      cmocka_unit_test(test_page_index__filtered_rows_equal_the_full_scan_rows),
      cmocka_unit_test(test_page_index__bad_page_rows_property_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
