/*
 * inlet_ingest_run creating its table (include/inlet/ingest.h options
 * create_path/create_schema/create_options): the first batch's commit is
 * version 0 with protocol, metaData (partition columns, properties) and the
 * batch; later runs append; bad options are refused before anything is
 * written. Checked with refcheck (DuckDB), not with inlet's own reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"
#include "testutil.h"

static int run(const char *table, const char *source, const inlet_schema *schema,
               const inlet_table_create_options *co, inlet_ingest_progress *p, inlet_error *err) {
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = source;
  o.once = true;
  o.event_time_column = "ts";
  o.allowed_lateness_us = 60LL * 1000000;
  o.create_path = table;
  o.create_schema = schema;
  o.create_options = co;
  return inlet_ingest_run(p, NULL, &o, err);
}

static void test_ingest_create__partitioned_table_with_properties_in_version_0(void **state) {
  (void)state;
  char *base = tu_mkdtemp("ingest-create");
  char src[4200], table[4200], source[4300];
  snprintf(src, sizeof src, "%s/in.ndjson", base);
  snprintf(table, sizeof table, "%s/deep/t", base);
  snprintf(source, sizeof source, "file:%s", src);
  const char *recs = "{\"id\":1,\"day\":\"2024-01-01\",\"ts\":\"2024-01-01T10:00:00Z\"}\n"
                     "{\"id\":2,\"day\":\"2024-01-02\",\"ts\":\"2024-01-02T10:00:00Z\"}\n"
                     "{\"id\":3,\"day\":\"2024-01-01\",\"ts\":\"2024-01-01T09:00:00Z\"}\n";
  assert_int_equal(tu_write_file(src, recs, strlen(recs)), 0);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  inlet_schema_init(&schema);
  assert_int_equal(inlet_schema_parse(&schema,
                                      "id long not null, day date, ts timestamp, "
                                      "late boolean",
                                      &err),
                   0);
  const char *parts[] = {"day"};
  const char *keys[] = {INLET_LATE_FLAG_PROPERTY, "delta.checkpointInterval"};
  const char *vals[] = {"late", "100"};
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  co.n_partition_columns = 1;
  co.partition_columns = parts;
  co.n_properties = 2;
  co.property_keys = keys;
  co.property_values = vals;
  inlet_ingest_progress p;
  if (run(table, source, &schema, &co, &p, &err) < 0) fail_msg("%s", inlet_errmsg(&err));
  assert_int_equal(p.last_version, 0);
  assert_int_equal(p.rows, 3);
  assert_int_equal(p.late_rows, 1);

  tu_result r;
  tu_sh(&r, "'%s' '%s' log '%s'", INLET_NODE, INLET_REFCHECK, table);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "\"version\": 0"));
  assert_non_null(strstr(r.out, "\"num_active_files\": 2")); /* one per day */
  assert_non_null(strstr(r.out, "\"delta.checkpointInterval\": \"100\""));
  assert_non_null(strstr(r.out, "\"minWriterVersion\": 2"));
  tu_result_free(&r);
  tu_sh(&r, "'%s' '%s' delta '%s'", INLET_NODE, INLET_REFCHECK, table);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "[1,\"2024-01-01\",\"2024-01-01T10:00:00.000000Z\",false]"));
  assert_non_null(strstr(r.out, "[3,\"2024-01-01\",\"2024-01-01T09:00:00.000000Z\",true]"));
  tu_result_free(&r);

  /* The next run appends (version 1) and leaves metaData alone. */
  tu_sh(&r, "echo '{\"id\":4,\"day\":\"2024-01-03\",\"ts\":\"2024-01-03T10:00:00Z\"}' >> '%s'",
        src);
  tu_result_free(&r);
  if (run(table, source, &schema, &co, &p, &err) < 0) fail_msg("%s", inlet_errmsg(&err));
  assert_int_equal(p.last_version, 1);
  assert_int_equal(p.rows, 1);
  tu_sh(&r, "'%s' '%s' log '%s'", INLET_NODE, INLET_REFCHECK, table);
  assert_non_null(strstr(r.out, "\"commit_count\": 2"));
  assert_non_null(strstr(r.out, "\"delta.checkpointInterval\": \"100\""));
  tu_result_free(&r);
  tu_sh(&r, "'%s' '%s' delta '%s' | grep -c '^\\['", INLET_NODE, INLET_REFCHECK, table);
  assert_int_equal(atoi(r.out), 4);
  tu_result_free(&r);
  inlet_schema_reset(&schema);
  tu_rmtree(base);
}

static void test_ingest_create__bad_partition_column_writes_nothing(void **state) {
  (void)state;
  char *base = tu_mkdtemp("ingest-create-bad");
  char src[4200], table[4200], source[4300], log0[4300];
  snprintf(src, sizeof src, "%s/in.ndjson", base);
  snprintf(table, sizeof table, "%s/t", base);
  snprintf(source, sizeof source, "file:%s", src);
  snprintf(log0, sizeof log0, "%s/_delta_log/00000000000000000000.json", table);
  assert_int_equal(tu_write_file(src, "{\"id\":1}\n", 9), 0);
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  inlet_schema_init(&schema);
  assert_int_equal(inlet_schema_parse(&schema, "id long, ts timestamp", &err), 0);
  const char *parts[] = {"nope"};
  inlet_table_create_options co = INLET_TABLE_CREATE_OPTIONS_INIT;
  co.n_partition_columns = 1;
  co.partition_columns = parts;
  inlet_ingest_progress p;
  assert_int_equal(run(table, source, &schema, &co, &p, &err), INLET_EINVAL);
  assert_non_null(strstr(inlet_errmsg(&err), "nope"));
  char *c = tu_read_file(log0, NULL);
  assert_null(c);
  tu_result r;
  tu_sh(&r, "test -e '%s'", table); /* not even the directory */
  assert_int_not_equal(r.status, 0);
  tu_result_free(&r);
  /* No table and no create options: refused. */
  inlet_ingest_options o = INLET_INGEST_OPTIONS_INIT;
  o.source = source;
  o.once = true;
  assert_int_equal(inlet_ingest_run(&p, NULL, &o, &err), INLET_EINVAL);
  inlet_schema_reset(&schema);
  tu_rmtree(base);
}

/* A file:///abs/path table location is parsed as every command parses one:
 * the table is created at /abs/path, not in a directory named "file:" under
 * the current directory; a file: URL without an absolute path is refused. */
static void test_ingest_create__file_url_location(void **state) {
  (void)state;
  char *base = tu_mkdtemp("ingest-create-url");
  char src[4200], log0[4300];
  snprintf(src, sizeof src, "%s/in.ndjson", base);
  snprintf(log0, sizeof log0, "%s/deep/u/_delta_log/00000000000000000000.json", base);
  assert_int_equal(tu_write_file(src, "{\"id\":7}\n", 9), 0);
  tu_result r;
  /* From the CLI, run inside base so a raw use of the string would show as
   * base/file:/... */
  tu_sh(&r,
        "cd '%s' && '%s' ingest 'file://%s/deep/u' --source 'file:%s' --once --quiet "
        "--create-schema 'id long'",
        base, INLET_BIN, base, src);
  if (r.status != 0) fail_msg("ingest: %s", r.err);
  tu_result_free(&r);
  char *c = tu_read_file(log0, NULL);
  assert_non_null(c);
  free(c);
  tu_sh(&r, "test -e '%s/file:'", base);
  assert_int_not_equal(r.status, 0);
  tu_result_free(&r);
  /* The second run appends to the table the first created. */
  tu_sh(&r,
        "cd '%s' && '%s' ingest 'file://%s/deep/u' --source 'file:%s' --once --quiet "
        "--create-schema 'id long' --app-id second",
        base, INLET_BIN, base, src);
  if (r.status != 0) fail_msg("second ingest: %s", r.err);
  tu_result_free(&r);
  tu_sh(&r, "'%s' scan '%s/deep/u'", INLET_BIN, base);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.out, "{\"id\":7}\n{\"id\":7}\n");
  tu_result_free(&r);
  /* The library takes the same location. */
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  inlet_schema_init(&schema);
  assert_int_equal(inlet_schema_parse(&schema, "id long, ts timestamp", &err), 0);
  char url[4300], source[4400], src2[4300];
  snprintf(url, sizeof url, "file://%s/lib/t", base);
  snprintf(src2, sizeof src2, "%s/in2.ndjson", base);
  const char *rec = "{\"id\":8,\"ts\":\"2024-01-01T10:00:00Z\"}\n";
  assert_int_equal(tu_write_file(src2, rec, strlen(rec)), 0);
  snprintf(source, sizeof source, "file:%s", src2);
  inlet_ingest_progress p;
  if (run(url, source, &schema, NULL, &p, &err) < 0) fail_msg("%s", inlet_errmsg(&err));
  assert_int_equal(p.last_version, 0);
  assert_int_equal(p.rows, 1);
  snprintf(log0, sizeof log0, "%s/lib/t/_delta_log/00000000000000000000.json", base);
  c = tu_read_file(log0, NULL);
  assert_non_null(c);
  free(c);
  /* file: with a relative path: refused, nothing created. */
  assert_int_equal(run("file:rel/t", source, &schema, NULL, &p, &err), INLET_EINVAL);
  assert_non_null(strstr(inlet_errmsg(&err), "absolute path"));
  inlet_schema_reset(&schema);
  tu_rmtree(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ingest_create__file_url_location),
      cmocka_unit_test(test_ingest_create__partitioned_table_with_properties_in_version_0),
      cmocka_unit_test(test_ingest_create__bad_partition_column_writes_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
