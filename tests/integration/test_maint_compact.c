/*
 * Compaction end to end (include/inlet/maint.h, `inlet compact`):
 *   - the seed scenario: 10 micro-batches of 20 events -> 10 files; compact
 *     with --min-files 8 -> one file in an OPTIMIZE commit of its own, the
 *     same 200 rows, describe counting 1 compaction of 11 commits, refcheck
 *     (DuckDB) reading the compacted table and the version before it
 *     identically to inlet;
 *   - input pages as large as the writer's own copied, not encoded again;
 *   - thresholds: too few small files, large files left alone, bins near
 *     the target, --where selecting partitions, --sort-by ordering rows;
 *   - concurrency: a concurrent removal of a group's input fails that group
 *     cleanly (its outputs deleted, table untouched) while the others
 *     commit, and the second compactor never removes the same file.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_maint_support.h"

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Table @p dir/t made of @p n_batches appends of @p per events (the first
 * one creates the table, in version 0), days from @p day_of. */
static void seed(const char *dir, int n_batches, int per, const char *(*day_of)(int64_t),
                 const char *const *props, int n_props) {
  ms_seed(dir, n_batches, per, day_of, true, props, n_props);
}

static json_t *describe(const char *dir) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' describe t --json", dir, INLET_BIN);
  sh_ok(&r, "describe");
  json_t *j = json_loads(r.out, 0, NULL);
  assert_non_null(j);
  tu_result_free(&r);
  return j;
}

static void compare_with_refcheck(const char *dir, int64_t version) {
  tu_result r;
  char vopt[32] = "";
  if (version >= 0) snprintf(vopt, sizeof vopt, "--version %lld", (long long)version);
  tu_sh(&r,
        "cd '%s' && '%s' scan t %s --format ndjson > o.ndjson && '%s' '%s' delta t %s > "
        "ref.json && '%s' '%s' compare ref.json o.ndjson --ndjson",
        dir, INLET_BIN, vopt, INLET_NODE, INLET_REFCHECK, vopt, INLET_NODE, INLET_REFCHECK);
  sh_ok(&r, "inlet scan vs refcheck delta");
  tu_result_free(&r);
}

/* PLAIN data pages of column @p col in the first row group of data file
 * @p file of table @p dir/@p table (`inlet parquet meta --json`). */
static json_int_t plain_pages(const char *dir, const char *table, const char *file,
                              const char *col) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' parquet meta '%s/%s' --json", dir, INLET_BIN, table, file);
  sh_ok(&r, "parquet meta");
  json_t *meta = json_loads(r.out, 0, NULL);
  assert_non_null(meta);
  tu_result_free(&r);
  json_t *cols = json_object_get(json_array_get(json_object_get(meta, "row_groups"), 0), "columns");
  json_int_t pages = -1;
  for (size_t i = 0; i < json_array_size(cols); i++) {
    json_t *c = json_array_get(cols, i);
    if (strcmp(json_string_value(json_object_get(c, "path")), col) != 0) continue;
    json_t *es = json_object_get(c, "encoding_stats");
    for (size_t k = 0; k < json_array_size(es); k++) {
      json_t *e = json_array_get(es, k);
      if (strcmp(json_string_value(json_object_get(e, "page_type")), "DATA_PAGE") == 0 &&
          strcmp(json_string_value(json_object_get(e, "encoding")), "PLAIN") == 0)
        pages = json_integer_value(json_object_get(e, "count"));
    }
  }
  json_decref(meta);
  return pages;
}

static void test_compact__seed_ten_batches_become_one_file_in_own_commit(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-seed"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 10, 20, ms_one_day, NULL, 0);
  assert_int_equal(ms_live_files(t), 10);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files 8", dir, INLET_BIN);
  sh_ok(&r, "compact");
  assert_non_null(strstr(r.out, "compacted day=2024-01-01: 10 files"));
  assert_non_null(strstr(r.out, "-> 1 files"));
  assert_non_null(strstr(r.out, "200 rows, version 10"));
  tu_result_free(&r);
  assert_int_equal(ms_live_files(t), 1);
  ms_expect_ids_0_to_n(t, -1, 200);
  ms_expect_ids_0_to_n(t, 9, 200); /* time travel to before the compaction */
  json_t *d = describe(dir);
  assert_int_equal(json_integer_value(json_object_get(d, "commits")), 11);
  assert_int_equal(json_integer_value(json_object_get(d, "compactions")), 1);
  assert_int_equal(json_integer_value(json_object_get(d, "files")), 1);
  assert_int_equal(json_integer_value(json_object_get(d, "rows")), 200);
  json_decref(d);
  /* The commit itself: OPTIMIZE, 10 removes with dataChange=false and the
   * partition values, 1 add with fresh stats, and the metrics. */
  char log[4300];
  snprintf(log, sizeof log, "%s/_delta_log/00000000000000000010.json", t);
  char *body = tu_read_file(log, NULL);
  assert_non_null(body);
  int removes = 0, adds = 0;
  char added[1024] = "";
  for (char *line = strtok(body, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *a = json_loads(line, 0, NULL);
    assert_non_null(a);
    json_t *x;
    if ((x = json_object_get(a, "remove"))) {
      removes++;
      assert_true(json_is_false(json_object_get(x, "dataChange")));
      assert_true(json_integer_value(json_object_get(x, "deletionTimestamp")) > 0);
      assert_true(json_integer_value(json_object_get(x, "size")) > 0);
      assert_string_equal(
          json_string_value(json_object_get(json_object_get(x, "partitionValues"), "day")),
          "2024-01-01");
    } else if ((x = json_object_get(a, "add"))) {
      adds++;
      assert_true(json_is_false(json_object_get(x, "dataChange")));
      snprintf(added, sizeof added, "%s", json_string_value(json_object_get(x, "path")));
      json_t *st = json_loads(json_string_value(json_object_get(x, "stats")), 0, NULL);
      assert_int_equal(json_integer_value(json_object_get(st, "numRecords")), 200);
      assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "minValues"), "id")),
                       0);
      assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "maxValues"), "id")),
                       199);
      json_decref(st);
    } else if ((x = json_object_get(a, "commitInfo"))) {
      assert_string_equal(json_string_value(json_object_get(x, "operation")), "OPTIMIZE");
      json_t *m = json_object_get(x, "operationMetrics");
      assert_string_equal(json_string_value(json_object_get(m, "numRemovedFiles")), "10");
      assert_string_equal(json_string_value(json_object_get(m, "numAddedFiles")), "1");
      assert_string_equal(json_string_value(json_object_get(m, "numOutputRows")), "200");
      assert_non_null(json_object_get(m, "numRemovedBytes"));
      assert_non_null(json_object_get(m, "numAddedBytes"));
    }
    json_decref(a);
  }
  free(body);
  assert_int_equal(removes, 10);
  assert_int_equal(adds, 1);
  /* Twenty-row inputs are not copied page by page (raw_pages.h): their
   * ids are encoded together, into one page. */
  assert_int_equal(plain_pages(dir, "t", added, "id"), 1);
  /* Another engine reads the compacted table, and the version before, alike. */
  compare_with_refcheck(dir, -1);
  compare_with_refcheck(dir, 9);
  /* Compacting again finds nothing to do and commits nothing. */
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files 8", dir, INLET_BIN);
  sh_ok(&r, "second compact");
  assert_non_null(strstr(r.out, "nothing to compact"));
  tu_result_free(&r);
  d = describe(dir);
  assert_int_equal(json_integer_value(json_object_get(d, "commits")), 11);
  json_decref(d);
  tu_rmtree(dir);
}

/* Inputs whose pages are as large as the writer's own (12,000 rows; it cuts
 * at 20,000) are copied page by page into the new file (raw_pages.h): its
 * ids hold the four input pages, not the three pages encoding would cut,
 * and the table reads the same to inlet and to DuckDB (refcheck). */
static void test_compact__large_enough_input_pages_are_copied(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-copy"));
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' create t --schema 'id long not null, x double, s string'", dir,
        INLET_BIN);
  sh_ok(&r, "create");
  tu_result_free(&r);
  for (int f = 0; f < 4; f++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/in%d.ndjson", dir, f);
    FILE *o = fopen(path, "w");
    assert_non_null(o);
    for (int i = f * 12000; i < (f + 1) * 12000; i++)
      fprintf(o, "{\"id\":%d,\"x\":%d.%02d,\"s\":\"v%d\"}\n", i, i * 3, i % 100, (i * 7) % 10);
    fclose(o);
    tu_sh(&r, "cd '%s' && '%s' append t in%d.ndjson", dir, INLET_BIN, f);
    sh_ok(&r, "append");
    tu_result_free(&r);
  }
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files 2", dir, INLET_BIN);
  sh_ok(&r, "compact");
  assert_non_null(strstr(r.out, "48000 rows"));
  tu_result_free(&r);
  char log[4300];
  snprintf(log, sizeof log, "%s/t/_delta_log/00000000000000000005.json", dir);
  char *body = tu_read_file(log, NULL);
  assert_non_null(body);
  char added[1024] = "";
  for (char *line = strtok(body, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *a = json_loads(line, 0, NULL);
    assert_non_null(a);
    json_t *x = json_object_get(a, "add");
    if (x) snprintf(added, sizeof added, "%s", json_string_value(json_object_get(x, "path")));
    json_decref(a);
  }
  free(body);
  assert_true(added[0] != '\0');
  assert_int_equal(plain_pages(dir, "t", added, "id"), 4);
  assert_int_equal(plain_pages(dir, "t", added, "x"), 4);
  compare_with_refcheck(dir, -1);
  tu_rmtree(dir);
}

static void test_compact__dry_run_and_threshold_change_nothing(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-dry"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 5, 10, ms_one_day, NULL, 0);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files 8", dir, INLET_BIN);
  sh_ok(&r, "compact below threshold");
  assert_non_null(strstr(r.out, "nothing to compact"));
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files 5 --dry-run", dir, INLET_BIN);
  sh_ok(&r, "dry run");
  assert_non_null(strstr(r.out, "would compact day=2024-01-01: 5 files"));
  tu_result_free(&r);
  assert_int_equal(ms_live_files(t), 5);
  json_t *d = describe(dir);
  assert_int_equal(json_integer_value(json_object_get(d, "commits")), 5);
  json_decref(d);
  /* Bad options are usage errors. */
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files zero", dir, INLET_BIN);
  assert_int_equal(r.status, 2);
  tu_result_free(&r);
  tu_sh(&r, "cd '%s' && '%s' compact t --where \"msg = 'x'\"", dir, INLET_BIN);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "not a partition column"));
  tu_result_free(&r);
  tu_rmtree(dir);
}

static const char *four_days(int64_t id) {
  static const char *days[] = {"2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"};
  return days[(id / 10) % 4];
}

typedef struct tally {
  int64_t groups, rows, outputs, inputs, min_inputs, max_inputs;
  bool bad_version;
} tally;

static void tally_group(void *ctx, const inlet_compact_group *g) {
  tally *t = ctx;
  t->groups++;
  t->rows += g->rows;
  t->outputs += g->n_outputs;
  t->inputs += g->n_inputs;
  if (t->min_inputs == 0 || g->n_inputs < t->min_inputs) t->min_inputs = g->n_inputs;
  if (g->n_inputs > t->max_inputs) t->max_inputs = g->n_inputs;
  t->bad_version |= g->status != 0 || g->version <= 0;
}

static void test_compact__where_selects_partitions_and_bins_respect_target(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-where"));
  snprintf(t, sizeof t, "%s/t", dir);
  /* 12 batches of 40 events: each batch writes one file in each of 4 days. */
  seed(dir, 12, 40, four_days, NULL, 0);
  assert_int_equal(ms_live_files(t), 48);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *tb = NULL;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  inlet_compact_options o = INLET_COMPACT_OPTIONS_INIT;
  o.where = "day >= '2024-01-03'";
  o.min_files = 4;
  inlet_compact_result res;
  if (inlet_table_compact(&res, tb, &o, &err) != 0) fail_msg("compact: %s", err.message);
  assert_int_equal(res.partitions, 2);
  assert_int_equal(res.commits, 2);
  assert_int_equal(res.files_removed, 24);
  assert_int_equal(res.files_added, 2);
  assert_int_equal(res.rows, 240);
  assert_int_equal(ms_live_files(t), 24 + 2);
  /* Now the rest, with a target of ~3 small files: several bins per
   * partition, each of 2..3 inputs. */
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_snapshot(&s, tb, &err), 0);
  inlet_file_info fi;
  int64_t small = 0;
  for (int64_t i = 0; i < inlet_snapshot_num_files(s); i++) {
    inlet_snapshot_file(s, i, &fi);
    if (strstr(fi.path, "2024-01-01")) small = fi.size;
  }
  inlet_snapshot_free(s);
  assert_true(small > 0);
  o.where = "day < '2024-01-03'";
  o.target_size = small * 3 + small / 2;
  o.bins_per_commit = 3;
  tally ty;
  memset(&ty, 0, sizeof ty);
  o.on_group = tally_group;
  o.ctx = &ty;
  if (inlet_table_compact(&res, tb, &o, &err) != 0) fail_msg("compact: %s", err.message);
  /* Every bin is reported, with its own outputs and rows. */
  assert_int_equal(ty.groups, res.bins);
  assert_int_equal(ty.rows, res.rows);
  assert_int_equal(ty.outputs, res.files_added);
  assert_int_equal(ty.inputs, 24);
  assert_true(ty.min_inputs >= 2 && ty.max_inputs <= 3);
  assert_false(ty.bad_version);
  assert_int_equal(res.partitions, 2);
  assert_true(res.bins >= 8); /* 12 files per partition, <= 3 per bin */
  assert_int_equal(res.commits, (res.bins + 2) / 3);
  assert_int_equal(res.files_removed, 24);
  assert_int_equal(res.failed_groups, 0);
  /* The big files of days 3 and 4 were not touched again. */
  assert_int_equal(ms_live_files(t), 2 + res.files_added);
  inlet_table_free(tb);
  ms_expect_ids_0_to_n(t, -1, 480);
  compare_with_refcheck(dir, -1);
  tu_rmtree(dir);
}

static void test_compact__sort_by_orders_rows_within_each_file(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-sort"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 8, 25, ms_one_day, NULL, 0);
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files 8 --sort-by ts,id", dir, INLET_BIN);
  sh_ok(&r, "compact --sort-by");
  tu_result_free(&r);
  ms_expect_ids_0_to_n(t, -1, 200);
  /* Read the one output file in file order: ts ascending, ties by id. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *tb = NULL;
  inlet_snapshot *s = NULL;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  assert_int_equal(inlet_table_snapshot(&s, tb, &err), 0);
  assert_int_equal(inlet_snapshot_num_files(s), 1);
  inlet_file_info fi;
  inlet_snapshot_file(s, 0, &fi);
  char p[8192];
  snprintf(p, sizeof p, "%s/%s", t, fi.path);
  inlet_snapshot_free(s);
  inlet_table_free(tb);
  inlet_parquet_reader *rd = NULL;
  assert_int_equal(inlet_parquet_reader_open(&rd, p, NULL, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t prev_ts = -1, prev_id = -1, rows = 0;
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(rd); g++) {
    assert_int_equal(inlet_parquet_reader_read_row_group(rd, g, &b, &err), 0);
    int ci = inlet_schema_find(&b.schema, "id"), ct = inlet_schema_find(&b.schema, "ts");
    for (int64_t i = 0; i < b.num_rows; i++, rows++) {
      int64_t ts = ((const int64_t *)b.columns[ct].values)[i];
      int64_t id = ((const int64_t *)b.columns[ci].values)[i];
      if (ts < prev_ts || (ts == prev_ts && id < prev_id))
        fail_msg("row %lld (ts %lld id %lld) after ts %lld id %lld", (long long)rows, (long long)ts,
                 (long long)id, (long long)prev_ts, (long long)prev_id);
      prev_ts = ts;
      prev_id = id;
    }
  }
  assert_int_equal(rows, 200);
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(rd);
  tu_sh(&r, "cd '%s' && '%s' compact t --min-files 2 --sort-by nope", dir, INLET_BIN);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "nope"));
  tu_result_free(&r);
  tu_rmtree(dir);
}

/* on_group hook: after the first group commits, a second compactor (its
 * own handle, as another process would have) rewrites the other partition,
 * removing the first compactor's planned inputs. */
typedef struct race_ctx {
  const char *table;
  int groups;
  int failed_status;
  int64_t other_commits;
} race_ctx;

static void race_on_group(void *ctx, const inlet_compact_group *g) {
  race_ctx *rc = ctx;
  rc->groups++;
  if (g->status) rc->failed_status = g->status;
  if (rc->groups != 1) return;
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *t = NULL;
  assert_int_equal(inlet_table_open(&t, rc->table, &err), 0);
  inlet_compact_options o = INLET_COMPACT_OPTIONS_INIT;
  o.min_files = 2;
  inlet_compact_result res;
  if (inlet_table_compact(&res, t, &o, &err) != 0) fail_msg("second compactor: %s", err.message);
  rc->other_commits = res.commits;
  inlet_table_free(t);
}

static const char *two_days(int64_t id) {
  return id % 2 ? "2024-02-02" : "2024-02-01";
}

static void test_compact__concurrent_removal_fails_only_that_group(void **state) {
  (void)state;
  char dir[4096], t[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-race"));
  snprintf(t, sizeof t, "%s/t", dir);
  seed(dir, 6, 10, two_days, NULL, 0);
  assert_int_equal(ms_live_files(t), 12);
  inlet_error err = INLET_ERROR_INIT;
  inlet_table *tb = NULL;
  assert_int_equal(inlet_table_open(&tb, t, &err), 0);
  race_ctx rc = {t, 0, 0, 0};
  inlet_compact_options o = INLET_COMPACT_OPTIONS_INIT;
  o.min_files = 2;
  o.on_group = race_on_group;
  o.ctx = &rc;
  inlet_compact_result res;
  if (inlet_table_compact(&res, tb, &o, &err) != 0) fail_msg("compact: %s", err.message);
  inlet_table_free(tb);
  assert_int_equal(rc.groups, 2);
  /* The second compactor took the other partition; ours then failed it. */
  assert_int_equal(rc.other_commits, 1);
  assert_int_equal(res.commits, 1);
  assert_int_equal(res.failed_groups, 1);
  assert_int_equal(rc.failed_status, INLET_ECONFLICT);
  assert_int_equal(ms_live_files(t), 2);
  ms_expect_ids_0_to_n(t, -1, 60);
  /* No stray output: 12 originals (tombstoned) + 2 live outputs on disk. */
  assert_int_equal(ms_count_data_files(t), 14);
  /* Every removed file was removed once: 12 removes over the whole log. */
  tu_result r;
  tu_sh(&r, "cat '%s'/_delta_log/*.json | grep -c '\"remove\"'", t);
  assert_int_equal(atoi(r.out), 12);
  tu_result_free(&r);
  tu_rmtree(dir);
}

static json_t *refcheck_rows(const char *dir, const char *table) {
  tu_result r;
  tu_sh(&r, "cd '%s' && '%s' '%s' delta '%s'", dir, INLET_NODE, INLET_REFCHECK, table);
  sh_ok(&r, "refcheck delta");
  json_t *j = json_loads(r.out, 0, NULL);
  if (!j) fail_msg("refcheck output is not JSON: %.200s", r.out);
  tu_result_free(&r);
  return j;
}

/* Tables written by Spark & co (../shared/testdata/delta-golden): compacted
 * by inlet, they read the same to DuckDB-based refcheck as before, and
 * inlet's own scan agrees. Tables compaction cannot honour are refused
 * without a commit. */
static void test_compact__golden_tables_read_identically_by_refcheck(void **state) {
  (void)state;
  static const char *const tables[] = {
      "basic-with-inserts-updates", "snapshot-data3", "snapshot-repartitioned",
      "data-reader-primitives", "time-travel-partition-changes-a",
      "data-skipping-partition-and-data-column",
      /* old files read in the widened type; physical names (column mapping) */
      "type-widening", "table-with-columnmapping-mode-name"};
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("maint-golden"));
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    const char *t = tables[i];
    tu_result r;
    tu_sh(&r, "cd '%s' && cp -r '%s/delta-golden/tables/%s' . && chmod -R u+w '%s'", dir,
          INLET_TESTDATA, t, t);
    sh_ok(&r, "copy golden table");
    tu_result_free(&r);
    json_t *before = refcheck_rows(dir, t);
    tu_sh(&r, "cd '%s' && '%s' compact '%s' --min-files 2", dir, INLET_BIN, t);
    sh_ok(&r, t);
    if (!strstr(r.out, "compacted")) fail_msg("%s: nothing compacted: %s", t, r.out);
    tu_result_free(&r);
    json_t *after = refcheck_rows(dir, t);
    if (!json_equal(json_object_get(before, "rows"), json_object_get(after, "rows")) ||
        !json_equal(json_object_get(before, "columns"), json_object_get(after, "columns")))
      fail_msg("%s: refcheck reads other rows after compaction", t);
    assert_true(json_integer_value(json_object_get(after, "version")) >
                json_integer_value(json_object_get(before, "version")));
    json_decref(before);
    json_decref(after);
    tu_sh(&r,
          "cd '%s' && '%s' scan '%s' --format ndjson > o.ndjson && '%s' '%s' delta '%s' > "
          "ref.json && '%s' '%s' compare ref.json o.ndjson --ndjson",
          dir, INLET_BIN, t, INLET_NODE, INLET_REFCHECK, t, INLET_NODE, INLET_REFCHECK);
    sh_ok(&r, "inlet scan vs refcheck after compaction");
    tu_result_free(&r);
  }
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compact__seed_ten_batches_become_one_file_in_own_commit),
      cmocka_unit_test(test_compact__dry_run_and_threshold_change_nothing),
      cmocka_unit_test(test_compact__where_selects_partitions_and_bins_respect_target),
      cmocka_unit_test(test_compact__sort_by_orders_rows_within_each_file),
      cmocka_unit_test(test_compact__concurrent_removal_fails_only_that_group),
      cmocka_unit_test(test_compact__golden_tables_read_identically_by_refcheck),
      cmocka_unit_test(test_compact__large_enough_input_pages_are_copied),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
