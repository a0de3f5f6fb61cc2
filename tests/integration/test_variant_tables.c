/*
 * Variant columns (PROTOCOL.md "Variant Data Type", Parquet
 * VariantEncoding.md) through the real binary:
 *   - Spark's spark-variant-checkpoint table (delta-rs test data; variants
 *     at the top level and in arrays, structs and maps; a checkpoint) reads
 *     as refcheck (DuckDB) reads it at every version, and its v column holds
 *     {"key": id} as Spark wrote it (delta-rs's variant.rs checks the same);
 *   - a table built here whose data file holds variant bytes encoded by hand
 *     from the spec (the object example {"c":3,"b":2,"a":1} and a nested
 *     array) reads as the JSON text written here, in NDJSON and CSV;
 *   - a value that breaks the encoding is a clear error naming the file,
 *     column and row (exit 5);
 *   - shredded variant is refused naming variantShredding (exit 6), and
 *     writes into a variant table are refused naming the feature, leaving
 *     every byte as it was.
 * The foreign tables are copies of tests/data/foreign (see its README).
 */
#include "testutil.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  char dir[4096];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s", tu_mkdtemp("variant"));
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tu_rmtree(f->dir);
  free(f);
  return 0;
}

static void sh(tu_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sh(tu_result *r, const char *fmt, ...) {
  char *cmd = NULL;
  va_list ap;
  va_start(ap, fmt);
  assert_true(vasprintf(&cmd, fmt, ap) >= 0);
  va_end(ap);
  assert_int_equal(tu_sh(r, "%s", cmd), 0);
  free(cmd);
}

static void sh_ok(tu_result *r, const char *what) {
  if (r->status != 0)
    fail_msg("%s: exit %d\nstdout: %s\nstderr: %s", what, r->status, r->out, r->err);
}

/* Copies foreign table @p rel into the fixture (read-only use: exempt from
 * the rules checker, as the upstream fixtures break some rules). */
static const char *foreign(fixture *f, const char *rel) {
  static char path[4300];
  const char *base = strrchr(rel, '/') + 1;
  snprintf(path, sizeof path, "%s/%s", f->dir, base);
  tu_result r;
  sh(&r, "cp -R '%s/tests/data/foreign/%s' '%s'", INLET_SOURCE_DIR, rel, path);
  sh_ok(&r, "copy foreign table");
  tu_result_free(&r);
  tu_rules_exempt(path, "test_variant_tables: upstream fixture, read only");
  return path;
}

/* inlet's rows of @p table at version @p v equal refcheck's. */
static void same_as_refcheck(fixture *f, const char *table, long v) {
  tu_result r;
  sh(&r, "'%s' scan '%s' --version %ld --format ndjson > '%s/i.ndjson'", INLET_BIN, table, v,
     f->dir);
  sh_ok(&r, "scan");
  tu_result_free(&r);
  sh(&r,
     "'%s' '%s' delta '%s' --version %ld > '%s/r.json' && '%s' '%s' compare '%s/r.json' "
     "'%s/i.ndjson' --ndjson",
     INLET_NODE, INLET_REFCHECK, table, v, f->dir, INLET_NODE, INLET_REFCHECK, f->dir, f->dir);
  if (r.status != 0) fail_msg("%s @%ld: inlet and refcheck differ: %s%s", table, v, r.out, r.err);
  tu_result_free(&r);
}

static void test_variant__spark_table_reads_as_refcheck(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/spark-variant-checkpoint");
  for (long v = 0; v <= 2; v++)
    same_as_refcheck(f, t, v);
  /* Row 7 as Spark wrote it: every variant is {"key": 7}; the map has a
   * second entry with a null variant, the arrays nulls in fixed places. */
  tu_result r;
  sh(&r, "'%s' scan '%s' --where 'id = 7' --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan id = 7");
  assert_string_equal(
      r.out, "{\"id\":7,\"v\":\"{\\\"key\\\":7}\",\"array_of_variants\":[\"{\\\"key\\\":7}\",null,"
             "\"{\\\"key\\\":7}\",null,\"{\\\"key\\\":7}\"],\"struct_of_variants\":{\"v\":"
             "\"{\\\"key\\\":7}\"},\"map_of_variants\":[[\"7\",\"{\\\"key\\\":7}\"],[\"nullKey\","
             "null]],\"array_of_struct_of_variants\":[{\"v\":\"{\\\"key\\\":7}\"},{\"v\":null},"
             "null,{\"v\":\"{\\\"key\\\":7}\"},null,{\"v\":\"{\\\"key\\\":7}\"}],"
             "\"struct_of_array_of_variants\":{\"v\":[null,\"{\\\"key\\\":7}\"]}}\n");
  tu_result_free(&r);
  /* A predicate on the variant's text. */
  sh(&r, "'%s' scan '%s' --columns id --where \"v = '{\\\"key\\\":12}'\" --format csv", INLET_BIN,
     t);
  sh_ok(&r, "scan where v =");
  assert_string_equal(r.out, "id\n12\n");
  tu_result_free(&r);
  /* A limit reads row groups of nested columns in slices (whole row group,
   * then the slice's rows): 5 rows, each v {"key": id}. */
  sh(&r, "'%s' scan '%s' --columns id,v --limit 5 --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan --limit 5");
  int lines = 0;
  for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"), lines++) {
    json_t *row = json_loads(line, 0, NULL);
    assert_non_null(row);
    char want[64];
    snprintf(want, sizeof want, "{\"key\":%lld}",
             (long long)json_integer_value(json_object_get(row, "id")));
    assert_string_equal(json_string_value(json_object_get(row, "v")), want);
    json_decref(row);
  }
  assert_int_equal(lines, 5);
  tu_result_free(&r);
  sh(&r, "'%s' describe '%s' --json", INLET_BIN, t);
  sh_ok(&r, "describe");
  json_t *d = json_loads(r.out, 0, NULL);
  assert_non_null(d);
  const char *ddl = json_string_value(json_object_get(d, "schema_ddl"));
  assert_non_null(ddl);
  assert_non_null(strstr(ddl, "id long, v variant, "));
  json_decref(d);
  tu_result_free(&r);
}

/* Writes a one-file table at @p dir whose column v (variant) holds, per
 * line of @p ndjson, the hex metadata and value given there. */
static void hand_table(const char *dir, const char *ndjson) {
  char p[4200];
  tu_result r;
  sh(&r, "mkdir -p '%s/_delta_log'", dir);
  tu_result_free(&r);
  snprintf(p, sizeof p, "%s/in.ndjson", dir);
  assert_int_equal(tu_write_file(p, ndjson, strlen(ndjson)), 0);
  sh(&r,
     "cd '%s' && '%s' parquet convert in.ndjson part-0.parquet --schema 'id long, v "
     "struct<metadata: binary not null, value: binary not null>' && rm in.ndjson",
     dir, INLET_BIN);
  sh_ok(&r, "parquet convert");
  tu_result_free(&r);
  sh(&r,
     "cd '%s' && s=$(stat -c %%s part-0.parquet) && printf '%%s\\n' "
     "'{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
     "[\"variantType\"],\"writerFeatures\":[\"variantType\"]}}' "
     "'{\"metaData\":{\"id\":\"6b0c5d1e-0000-4000-8000-000000000001\",\"format\":{\"provider\":"
     "\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":"
     "[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":"
     "{}},{\\\"name\\\":\\\"v\\\",\\\"type\\\":\\\"variant\\\",\\\"nullable\\\":true,"
     "\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{},\"createdTime\":1}}' "
     "> _delta_log/00000000000000000000.json && printf "
     "'{\"add\":{\"path\":\"part-0.parquet\",\"partitionValues\":{},\"size\":%%s,"
     "\"modificationTime\":1,\"dataChange\":true}}\\n' \"$s\" >> "
     "_delta_log/00000000000000000000.json",
     dir);
  sh_ok(&r, "hand-written log");
  tu_result_free(&r);
}

static void test_variant__hand_encoded_values_from_the_spec(void **state) {
  fixture *f = *state;
  char t[4200];
  snprintf(t, sizeof t, "%s/hand", f->dir);
  /* Row 1: the spec's object example (dictionary "c","b","a"; field ids in
   * key order; values stored c, b, a). Row 3: [1,"x",[null],{}] with the
   * empty dictionary. Row 4: binary DE AD (base64 3q0=); row 5: decimal4
   * 12345 at scale 2; row 6: date 19000 (2022-01-08); row 7: timestamp
   * 1641663147228992 us. (No float or uuid here: DuckDB prints floats widened
   * and cannot read uuids; test_variant covers them.) */
  hand_table(t, "{\"id\":1,\"v\":{\"metadata\":\"010300010203636261\","
                "\"value\":\"0203020100040200060c030c020c01\"}}\n"
                "{\"id\":2,\"v\":null}\n"
                "{\"id\":3,\"v\":{\"metadata\":\"010000\","
                "\"value\":\"0304000204090c0c0105780301000100020000\"}}\n"
                "{\"id\":4,\"v\":{\"metadata\":\"010000\",\"value\":\"3c02000000dead\"}}\n"
                "{\"id\":5,\"v\":{\"metadata\":\"010000\",\"value\":\"200239300000\"}}\n"
                "{\"id\":6,\"v\":{\"metadata\":\"010000\",\"value\":\"2c384a0000\"}}\n"
                "{\"id\":7,\"v\":{\"metadata\":\"010000\",\"value\":\"30403fbb7c15d50500\"}}\n");
  tu_result r;
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
  sh_ok(&r, "scan");
  assert_string_equal(r.out, "{\"id\":1,\"v\":\"{\\\"a\\\":1,\\\"b\\\":2,\\\"c\\\":3}\"}\n"
                             "{\"id\":2,\"v\":null}\n"
                             "{\"id\":3,\"v\":\"[1,\\\"x\\\",[null],{}]\"}\n"
                             "{\"id\":4,\"v\":\"\\\"3q0=\\\"\"}\n"
                             "{\"id\":5,\"v\":\"123.45\"}\n"
                             "{\"id\":6,\"v\":\"\\\"2022-01-08\\\"\"}\n"
                             "{\"id\":7,\"v\":\"\\\"2022-01-08T17:32:27.228992Z\\\"\"}\n");
  tu_result_free(&r);
  sh(&r, "'%s' scan '%s' --format csv --where 'id <= 3'", INLET_BIN, t);
  sh_ok(&r, "scan csv");
  assert_string_equal(r.out,
                      "id,v\n1,\"{\"\"a\"\":1,\"\"b\"\":2,\"\"c\"\":3}\"\n2,\n3,\"[1,\"\"x\"\","
                      "[null],{}]\"\n");
  tu_result_free(&r);
  same_as_refcheck(f, t, 0);
}

static void test_variant__corrupt_value_names_file_column_and_row(void **state) {
  fixture *f = *state;
  char t[4200];
  snprintf(t, sizeof t, "%s/bad", f->dir);
  /* Row 1 fine; row 2 an int32 with two of its four bytes. */
  hand_table(t, "{\"id\":1,\"v\":{\"metadata\":\"010000\",\"value\":\"0c07\"}}\n"
                "{\"id\":2,\"v\":{\"metadata\":\"010000\",\"value\":\"140102\"}}\n");
  tu_result r;
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
  assert_int_equal(r.status, 5);
  assert_non_null(strstr(r.err, "part-0.parquet"));
  assert_non_null(strstr(r.err, "column \"v\" row 1"));
  assert_non_null(strstr(r.err, "truncated"));
  tu_result_free(&r);
  /* Metadata of a version inlet does not know: unsupported, not corrupt. */
  snprintf(t, sizeof t, "%s/v2", f->dir);
  hand_table(t, "{\"id\":1,\"v\":{\"metadata\":\"020000\",\"value\":\"00\"}}\n");
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "metadata version 2"));
  tu_result_free(&r);
}

static void test_variant__shredded_is_refused_naming_the_feature(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/spark-shredded-variant-preview-delta");
  tu_result r;
  sh(&r, "'%s' scan '%s' --format ndjson", INLET_BIN, t);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "variantShredding"));
  assert_string_equal(r.out, "");
  tu_result_free(&r);
}

static void test_variant__writes_are_refused_naming_the_feature(void **state) {
  fixture *f = *state;
  const char *t = foreign(f, "delta-rs/spark-variant-checkpoint");
  char ev[4200];
  snprintf(ev, sizeof ev, "%s/ev.ndjson", f->dir);
  assert_int_equal(tu_write_file(ev, "{\"id\":100}\n", 11), 0);
  tu_result r;
  sh(&r, "cd '%s' && find . -type f | sort | xargs sha256sum > ../variant.before", t);
  tu_result_free(&r);
  sh(&r, "'%s' append '%s' '%s'", INLET_BIN, t, ev);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "variantType-preview"));
  tu_result_free(&r);
  sh(&r, "'%s' compact '%s' --min-files 2", INLET_BIN, t);
  assert_int_equal(r.status, 6);
  assert_non_null(strstr(r.err, "variantType-preview"));
  tu_result_free(&r);
  sh(&r,
     "cd '%s' && find . -type f | sort | xargs sha256sum | cmp - ../variant.before && echo same",
     t);
  assert_string_equal(r.out, "same\n");
  tu_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_variant__spark_table_reads_as_refcheck, setup, teardown),
      cmocka_unit_test_setup_teardown(test_variant__hand_encoded_values_from_the_spec, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_variant__corrupt_value_names_file_column_and_row, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_variant__shredded_is_refused_naming_the_feature, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_variant__writes_are_refused_naming_the_feature, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
