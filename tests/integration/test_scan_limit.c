/*
 * `scan --limit` bounds work and memory (issue 12, "Costs that grow with the
 * table": `scan --limit 5` decoded a whole row group, 210 MB RSS on a
 * 2M-row file). A table whose one data file holds 200,000 rows in one row
 * group, 1,000-row pages (200 per column), with the page index inlet writes:
 *   - --limit 5 returns the first five rows and decodes one page per column;
 *   - with a filter the page index cannot narrow (every page of `m` spans
 *     0..1, one match at each page's end), the scan goes page by page and
 *     stops after the fifth match: a handful of pages, not 200 per column;
 *   - a filter the page index can narrow reads only the pages that matter;
 *   - the counters come out in --explain, and the CLI prints the same rows;
 *   - inlet_parquet_reader_read_rows reads from the file only the pages the
 *     ranges need (bytes read, pages decoded) and returns the same values as
 *     a whole read.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"

#define ROWS 200000
#define PAGE_ROWS 1000
#define PAGES (ROWS / PAGE_ROWS)

static char dir[4096], table[4200];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("scan-limit"));
  snprintf(table, sizeof table, "%s/t", dir);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  if (inlet_schema_parse(&s, "id long, m long, name string", &err) != 0) fail();
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *keys[] = {"inlet.parquet.pageRows"}, *vals[] = {"1000"};
  co.n_properties = 1;
  co.property_keys = keys;
  co.property_values = vals;
  inlet_table *t = NULL;
  if (inlet_table_create(&t, table, &s, &co, &err) != 0) fail_msg("create: %s", err.message);
  inlet_batch b;
  if (inlet_batch_init(&b, &s, &err) != 0) fail();
  for (int64_t i = 0; i < ROWS; i++) {
    char nm[32];
    int n = snprintf(nm, sizeof nm, "name-%03lld", (long long)(i % 500)); /* one dictionary */
    if (inlet_array_append_int(&b.columns[0], &s.fields[0], i, &err) != 0 ||
        inlet_array_append_int(&b.columns[1], &s.fields[1], i % PAGE_ROWS == PAGE_ROWS - 1, &err) !=
            0 ||
        inlet_array_append_bytes(&b.columns[2], &s.fields[2], nm, (size_t)n, &err) != 0)
      fail();
  }
  b.num_rows = ROWS;
  if (inlet_table_append(t, &b, 1, NULL, NULL, &err) != 0) fail_msg("append: %s", err.message);
  inlet_batch_reset(&b);
  inlet_table_free(t);
  inlet_schema_reset(&s);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(dir);
  return 0;
}

/* Scans with @p where and @p limit; checks the ids returned are @p ids and
 * returns the stats. */
static void scan(const char *where, int64_t limit, const int64_t *ids, int64_t n_ids,
                 inlet_scan_stats *st) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *snap = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&snap, t, &err), 0);
  inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
  o.where = where;
  o.limit = limit;
  inlet_scan *sc = NULL;
  if (inlet_scan_open(&sc, snap, &o, &err) != 0) fail_msg("scan: %s", err.message);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t got = 0;
  for (;;) {
    int rc = inlet_scan_next(sc, &b, &err);
    if (rc < 0) fail_msg("scan: %s", err.message);
    if (rc == 0) break;
    const int64_t *v = (const int64_t *)b.columns[0].values;
    for (int64_t r = 0; r < b.num_rows; r++, got++) {
      assert_true(got < n_ids);
      assert_int_equal(v[r], ids[got]);
    }
  }
  assert_int_equal(got, n_ids);
  inlet_scan_get_stats(sc, st);
  inlet_batch_reset(&b);
  inlet_scan_free(sc);
  inlet_snapshot_free(snap);
  inlet_table_free(t);
}

static void test_scan_limit__no_filter_decodes_one_page_per_column(void **state) {
  (void)state;
  const int64_t ids[] = {0, 1, 2, 3, 4};
  inlet_scan_stats st;
  scan(NULL, 5, ids, 5, &st);
  assert_int_equal(st.rows_matched, 5);
  assert_int_equal(st.pages_read, 3); /* the first page of each of the 3 columns */
  assert_true(st.rows_read <= 5);
  /* Read from the file: the first pages (and a dictionary), not the chunks. */
  inlet_scan_stats all;
  int64_t *every = malloc(ROWS * sizeof *every);
  assert_non_null(every);
  for (int64_t i = 0; i < ROWS; i++)
    every[i] = i;
  scan(NULL, -1, every, ROWS, &all);
  free(every);
  assert_int_equal(all.pages_read, 3 * PAGES);
  assert_true(st.bytes_read * 50 < all.bytes_read);
  /* A larger limit spans pages: still only the pages it needs. */
  int64_t first[2500];
  for (int64_t i = 0; i < 2500; i++)
    first[i] = i;
  scan(NULL, 2500, first, 2500, &st);
  assert_true(st.pages_read <= 3 * 3);
}

static void test_scan_limit__filter_goes_page_by_page_and_stops(void **state) {
  (void)state;
  /* m = 1 once per page, at its last row: the page index cannot skip any
   * page, so the scan must stop by itself after the fifth match. */
  const int64_t ids[] = {999, 1999, 2999, 3999, 4999};
  inlet_scan_stats st;
  scan("m = 1", 5, ids, 5, &st);
  assert_int_equal(st.rows_matched, 5);
  /* Five pages of each column; a page boundary of another column may cut
   * a page in two reads. Without the limit bounding it: 600 pages. */
  assert_true(st.pages_read >= 15);
  assert_true(st.pages_read <= 3 * 7);
  assert_true(st.rows_read <= 7 * PAGE_ROWS);
  /* A filter on the page-index column narrows first, then the limit. */
  const int64_t late[] = {150000, 150001, 150002};
  scan("id >= 150000", 3, late, 3, &st);
  assert_true(st.pages_read <= 3 * 2);
  assert_true(st.rows_skipped >= 150000);
  /* No match at all: ends cleanly. */
  scan("m = 7", 5, NULL, 0, &st);
  assert_int_equal(st.rows_matched, 0);
}

static void test_scan_limit__cli_prints_rows_and_counters(void **state) {
  (void)state;
  tu_result r;
  tu_sh(&r, "'%s' scan '%s' --limit 5 --format ndjson --columns id", INLET_BIN, table);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.out, "{\"id\":0}\n{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n{\"id\":4}\n");
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --limit 5 --explain", INLET_BIN, table);
  assert_int_equal(r.status, 0);
  const char *p = strstr(r.out, "pages: ");
  assert_non_null(p);
  long long decoded = -1;
  assert_int_equal(sscanf(p, "pages: %lld decoded", &decoded), 1);
  assert_int_equal(decoded, 3);
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s' --where 'm = 1' --limit 2 --format ndjson --columns id", INLET_BIN,
        table);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.out, "{\"id\":999}\n{\"id\":1999}\n");
  tu_result_free(&r);
}

/* The reader alone: ranges in the middle of the chunk read only their pages. */
static void test_scan_limit__read_rows_reads_only_the_pages_needed(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  inlet_snapshot *snap = NULL;
  assert_int_equal(inlet_table_open(&t, table, &err), 0);
  assert_int_equal(inlet_table_snapshot(&snap, t, &err), 0);
  inlet_file_info fi;
  inlet_snapshot_file(snap, 0, &fi);
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", table, fi.path);
  inlet_parquet_reader *r = NULL, *whole = NULL;
  inlet_parquet_reader_options ro = INLET_PARQUET_READER_OPTIONS_INIT;
  assert_int_equal(inlet_parquet_reader_open(&r, path, &ro, &err), 0);
  assert_int_equal(inlet_parquet_reader_open(&whole, path, &ro, &err), 0);
  assert_int_equal(inlet_parquet_reader_num_row_groups(r), 1);
  /* Rows 10,500..10,700 (page 10) and 123,999..124,001 (pages 123, 124). */
  const int64_t ranges[] = {10500, 10700, 123999, 124001};
  inlet_batch part, all;
  memset(&part, 0, sizeof part);
  memset(&all, 0, sizeof all);
  assert_int_equal(inlet_parquet_reader_read_rows(r, 0, ranges, 2, &part, &err), 0);
  assert_int_equal(part.num_rows, 202);
  inlet_parquet_read_stats ps;
  inlet_parquet_reader_get_stats(r, &ps);
  assert_int_equal(ps.data_pages_decoded, 3 * 3);
  assert_int_equal(ps.data_pages_skipped, 3 * (PAGES - 3));
  assert_int_equal(inlet_parquet_reader_read_row_group(whole, 0, &all, &err), 0);
  inlet_parquet_read_stats ws;
  inlet_parquet_reader_get_stats(whole, &ws);
  assert_int_equal(ws.data_pages_decoded, 3 * PAGES);
  assert_true(ps.column_bytes_read * 20 < ws.column_bytes_read);
  /* Same values as the whole read, row for row. */
  int64_t k = 0;
  for (int q = 0; q < 2; q++)
    for (int64_t row = ranges[2 * q]; row < ranges[2 * q + 1]; row++, k++) {
      assert_int_equal(((const int64_t *)part.columns[0].values)[k],
                       ((const int64_t *)all.columns[0].values)[row]);
      assert_int_equal(((const int64_t *)part.columns[1].values)[k],
                       ((const int64_t *)all.columns[1].values)[row]);
      const inlet_array *pn = &part.columns[2], *an = &all.columns[2];
      int32_t pl = pn->offsets[k + 1] - pn->offsets[k],
              al = an->offsets[row + 1] - an->offsets[row];
      assert_int_equal(pl, al);
      assert_memory_equal(pn->values + pn->offsets[k], an->values + an->offsets[row], (size_t)pl);
    }
  /* Reading the same row group again in slices gives the same rows. */
  const int64_t first[] = {0, 3};
  assert_int_equal(inlet_parquet_reader_read_rows(r, 0, first, 1, &part, &err), 0);
  assert_int_equal(part.num_rows, 3);
  assert_int_equal(((const int64_t *)part.columns[0].values)[2], 2);
  inlet_batch_reset(&part);
  inlet_batch_reset(&all);
  inlet_parquet_reader_free(r);
  inlet_parquet_reader_free(whole);
  inlet_snapshot_free(snap);
  inlet_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scan_limit__no_filter_decodes_one_page_per_column),
      cmocka_unit_test(test_scan_limit__filter_goes_page_by_page_and_stops),
      cmocka_unit_test(test_scan_limit__cli_prints_rows_and_counters),
      cmocka_unit_test(test_scan_limit__read_rows_reads_only_the_pages_needed),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
