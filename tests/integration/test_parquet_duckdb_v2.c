/*
 * Files DuckDB writes with PARQUET_VERSION V2 (DELTA_BINARY_PACKED in blocks of
 * 2048 values, BYTE_STREAM_SPLIT doubles, DELTA_LENGTH_BYTE_ARRAY strings) read
 * to exactly DuckDB's values. Sorted ids pack ~200 deltas a byte there, which
 * a fixed values-per-byte sanity bound once refused as corrupt.
 */
#include "testutil.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_with_duckdb(const char *path, const char *select) {
  char refdir[4096];
  snprintf(refdir, sizeof refdir, "%s", INLET_REFCHECK);
  char *dir = dirname(refdir);
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' --input-type=module -e \""
        "import { DuckDBInstance } from '@duckdb/node-api';"
        "const db = await DuckDBInstance.create(':memory:');"
        "const c = await db.connect();"
        "await c.run(\\\"COPY (%s) TO '%s' (FORMAT parquet, PARQUET_VERSION V2, "
        "COMPRESSION zstd)\\\");\"",
        dir, INLET_NODE, select, path);
  if (r.status) fprintf(stderr, "duckdb: %s\n", r.err);
  assert_int_equal(r.status, 0);
  tu_result_free(&r);
}

static void compare_with_refcheck(const char *dir, const char *path) {
  tu_result r;
  tu_sh(&r,
        "cd '%s' && '%s' parquet cat '%s' --format ndjson > out.ndjson && "
        "'%s' '%s' parquet '%s' > expected.json && "
        "'%s' '%s' compare expected.json out.ndjson --ndjson --ordered",
        dir, INLET_BIN, path, INLET_NODE, INLET_REFCHECK, path, INLET_NODE, INLET_REFCHECK);
  if (r.status) fprintf(stderr, "%s%s", r.out, r.err);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "OK"));
  tu_result_free(&r);
}

static void test_duckdb_v2__sorted_ids_and_times_read_like_duckdb(void **state) {
  (void)state;
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s", tu_mkdtemp("duckdb_v2"));
  snprintf(path, sizeof path, "%s/v2.parquet", dir);
  /* More than one row group (DuckDB's default is 122,880 rows) of ascending
   * ids and times, with nulls in every other column. */
  write_with_duckdb(
      path, "SELECT range AS id, "
            "TIMESTAMP '2024-01-01' + INTERVAL (range) SECOND AS t, "
            "CASE WHEN range % 11 = 0 THEN NULL ELSE (range % 1000) / 100.0 END::DOUBLE AS amount, "
            "CASE WHEN range % 13 = 0 THEN NULL ELSE 'user_' || (range % 997) END AS u, "
            "(range * 7919 % 100003)::INTEGER AS r "
            "FROM range(150000)");
  compare_with_refcheck(dir, path);
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_duckdb_v2__sorted_ids_and_times_read_like_duckdb),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
