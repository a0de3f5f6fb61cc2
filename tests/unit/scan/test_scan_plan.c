/*
 * The scan plan of a snapshot (src/delta/delta_scan_plan.c) and the scan
 * that consumes it (src/scan/scan.c): on a table whose files have tight
 * stats (each holds every integer between its min and max, one partition
 * value each), what the plan says a predicate may match agrees file by
 * file with the rows actually in the file (read from the Parquet data,
 * never from the log), and a filtered scan prunes exactly those files and
 * returns exactly the matching rows. The plan is built once per snapshot,
 * however many scans use it, and never by a scan without a predicate.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/delta.h"
#include "inlet/inlet.h"

#define FILES 12
#define ROWS 10

/* File k holds x = 10k .. 10k+9, s = "s%03d" of x, and partition p:
 * null for k % 4 == 3, else k % 3. */
static int p_of(int k) {
  return k % 4 == 3 ? -1 : k % 3;
}

/* The predicates, with a brute-force evaluation of one row (p -1: null;
 * a comparison with null is never true). */
typedef struct pred_case {
  const char *where;
  bool (*row)(long x, const char *s, int p);
} pred_case;

static bool r_between(long x, const char *s, int p) {
  (void)s, (void)p;
  return x >= 25 && x <= 47;
}
static bool r_or(long x, const char *s, int p) {
  (void)s, (void)p;
  return x < 5 || x > 113;
}
static bool r_p1(long x, const char *s, int p) {
  (void)x, (void)s;
  return p == 1;
}
static bool r_pnull(long x, const char *s, int p) {
  (void)x, (void)s;
  return p < 0;
}
static bool r_p2_x(long x, const char *s, int p) {
  (void)s;
  return p == 2 && x >= 60;
}
static bool r_s(long x, const char *s, int p) {
  (void)x, (void)p;
  return strcmp(s, "s057") == 0;
}
static bool r_none(long x, const char *s, int p) {
  (void)s, (void)p;
  return x == 1000;
}
static bool r_pne0(long x, const char *s, int p) {
  (void)s;
  return p >= 0 && p != 0 && x < 40;
}

static const pred_case CASES[] = {
    {"x BETWEEN 25 AND 47", r_between},
    {"x < 5 OR x > 113", r_or},
    {"p = 1", r_p1},
    {"p IS NULL", r_pnull},
    {"p = 2 AND x >= 60", r_p2_x},
    {"s = 's057'", r_s},
    {"x = 1000", r_none},
    {"p <> 0 AND x < 40", r_pne0},
};
#define N_CASES ((int)(sizeof CASES / sizeof CASES[0]))

static inlet_table *make_table(const char *path) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "x long, s string, p int", &err), 0);
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  const char *pcols[] = {"p"};
  co.partition_columns = pcols;
  co.n_partition_columns = 1;
  inlet_table *t = NULL;
  if (inlet_table_create(&t, path, &s, &co, &err) != 0) fail_msg("create: %s", inlet_errmsg(&err));
  for (int k = 0; k < FILES; k++) {
    inlet_batch b;
    assert_int_equal(inlet_batch_init(&b, &s, &err), 0);
    for (int r = 0; r < ROWS; r++) {
      long x = 10L * k + r;
      char sv[16];
      snprintf(sv, sizeof sv, "s%03ld", x);
      assert_int_equal(inlet_array_append_int(&b.columns[0], &s.fields[0], x, &err), 0);
      assert_int_equal(inlet_array_append_bytes(&b.columns[1], &s.fields[1], sv, strlen(sv), &err),
                       0);
      if (p_of(k) < 0)
        assert_int_equal(inlet_array_append_null(&b.columns[2], &s.fields[2], &err), 0);
      else
        assert_int_equal(inlet_array_append_int(&b.columns[2], &s.fields[2], p_of(k), &err), 0);
    }
    b.num_rows = ROWS;
    if (inlet_table_append(t, &b, 1, NULL, NULL, &err) != 0)
      fail_msg("append: %s", inlet_errmsg(&err));
    inlet_batch_reset(&b);
  }
  inlet_schema_reset(&s);
  return t;
}

/* How many rows of file @p i of @p snap match case @p c: x and s read from
 * the Parquet file itself (never from the log), p the value its rows were
 * written with (the generator's, from the file's x). */
static int64_t brute_force(const char *table, const inlet_snapshot *snap, int64_t i,
                           const pred_case *c) {
  inlet_file_info fi;
  inlet_snapshot_file(snap, i, &fi);
  char path[8192];
  snprintf(path, sizeof path, "%s/%s", table, fi.path);
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  if (inlet_parquet_reader_open(&r, path, NULL, &err) != 0)
    fail_msg("open %s: %s", path, inlet_errmsg(&err));
  int64_t matches = 0, n = 0;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  for (int32_t rg = 0; rg < inlet_parquet_reader_num_row_groups(r); rg++) {
    assert_int_equal(inlet_parquet_reader_read_row_group(r, rg, &b, &err), 0);
    /* Written in schema order: x, s (p lives in the log). */
    const int64_t *xs = (const int64_t *)b.columns[0].values;
    for (int64_t row = 0; row < b.num_rows; row++) {
      char sv[64];
      int32_t a = b.columns[1].offsets[row], e = b.columns[1].offsets[row + 1];
      snprintf(sv, sizeof sv, "%.*s", (int)(e - a), (const char *)b.columns[1].values + a);
      matches += c->row((long)xs[row], sv, p_of((int)(xs[row] / 10))) ? 1 : 0;
    }
    n += b.num_rows;
    inlet_batch_reset(&b);
  }
  inlet_parquet_reader_free(r);
  assert_int_equal(n, ROWS);
  return matches;
}

static void test_plan__verdicts_equal_the_data(void **state) {
  (void)state;
  const char *dir = tu_mkdtemp("scan-plan");
  char table[4200];
  snprintf(table, sizeof table, "%s/t", dir);
  inlet_table *t = make_table(table);
  inlet_error err = INLET_ERROR_INIT;
  inlet_snapshot *snap = NULL;
  assert_int_equal(inlet_table_snapshot(&snap, t, &err), 0);
  assert_int_equal(inlet_snapshot_num_files(snap), FILES);

  /* A scan without a predicate needs no plan. */
  int64_t builds = delta_scan_plan_builds();
  inlet_scan *sc = NULL;
  assert_int_equal(inlet_scan_open(&sc, snap, NULL, &err), 0);
  inlet_scan_free(sc);
  assert_int_equal(delta_scan_plan_builds(), builds);

  const delta_scan_plan *plan = NULL;
  for (int c = 0; c < N_CASES; c++) {
    int64_t expect_rows = 0, expect_dropped = 0;
    bool keep[FILES];
    for (int64_t i = 0; i < FILES; i++) {
      int64_t m = brute_force(table, snap, i, &CASES[c]);
      keep[i] = m > 0;
      expect_rows += m;
      expect_dropped += m == 0;
    }
    /* The plan's verdict per file, evaluated directly. */
    assert_int_equal(delta_snapshot_scan_plan(&plan, snap, &err), 0);
    inlet_predicate *p = NULL;
    assert_int_equal(inlet_predicate_parse(&p, CASES[c].where, inlet_snapshot_schema(snap), &err),
                     0);
    expr_colstats cols[3];
    for (int64_t i = 0; i < FILES; i++) {
      memset(cols, 0, sizeof cols);
      for (int k = 0; k < 3; k++)
        cols[k].null_count = cols[k].rows = -1;
      delta_scan_plan_stats(plan, i, cols);
      delta_scan_plan_partitions(plan, i, cols);
      bool may = (expr_possible(p, cols) & EXPR_MAY_TRUE) != 0;
      if (may != keep[i])
        fail_msg("%s: file %lld: plan says %s, data says %s", CASES[c].where, (long long)i,
                 may ? "may match" : "cannot match", keep[i] ? "matches" : "does not match");
    }
    inlet_predicate_free(p);

    /* The scan prunes or skips exactly those files and returns the rows. */
    inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
    o.where = CASES[c].where;
    assert_int_equal(inlet_scan_open(&sc, snap, &o, &err), 0);
    inlet_batch b;
    memset(&b, 0, sizeof b);
    int64_t rows = 0;
    int rc;
    while ((rc = inlet_scan_next(sc, &b, &err)) == 1)
      rows += b.num_rows;
    assert_int_equal(rc, 0);
    inlet_batch_reset(&b);
    inlet_scan_stats st;
    inlet_scan_get_stats(sc, &st);
    inlet_scan_free(sc);
    if (st.files_pruned + st.files_skipped != expect_dropped || rows != expect_rows)
      fail_msg("%s: %lld pruned + %lld skipped (want %lld dropped), %lld rows (want %lld)",
               CASES[c].where, (long long)st.files_pruned, (long long)st.files_skipped,
               (long long)expect_dropped, (long long)rows, (long long)expect_rows);
  }
  /* Every scan above shared one plan, parsed once. */
  assert_int_equal(delta_scan_plan_builds(), builds + 1);
  const delta_scan_plan *again = NULL;
  assert_int_equal(delta_snapshot_scan_plan(&again, snap, &err), 0);
  assert_ptr_equal(again, plan);
  assert_int_equal(delta_scan_plan_num_files(plan), FILES);

  /* Another snapshot has a plan of its own. */
  inlet_snapshot *snap2 = NULL;
  assert_int_equal(inlet_table_snapshot(&snap2, t, &err), 0);
  inlet_scan_options o = INLET_SCAN_OPTIONS_INIT;
  o.where = "x = 3";
  assert_int_equal(inlet_scan_open(&sc, snap2, &o, &err), 0);
  inlet_scan_free(sc);
  assert_int_equal(delta_scan_plan_builds(), builds + 2);
  inlet_snapshot_free(snap2);

  inlet_snapshot_free(snap);
  inlet_table_free(t);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plan__verdicts_equal_the_data),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
