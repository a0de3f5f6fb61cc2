/*
 * Typed checkpoint statistics (delta_stats_struct.c): the stats_parsed
 * schema a table gets (Spark's statsSchema), and stats JSON parsed into it
 * the way from_json does: exact numbers, the wrong type or an inexact value
 * as null, escapes decoded, malformed JSON as an unknown (null) struct.
 * Values are checked by turning the struct back into JSON.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "delta/delta.h"
#include "util/util.h"

static void meta_with(delta_metadata *m, delta_kv *conf, int32_t n, char **parts, int32_t np) {
  memset(m, 0, sizeof *m);
  m->configuration = conf;
  m->n_configuration = n;
  m->partition_columns = parts;
  m->n_partition_columns = np;
}

static char *type_of(const inlet_field *f) {
  static char buf[2048];
  inlet_field_type_name(f, buf, sizeof buf);
  return buf;
}

static void expect_schema(const char *ddl, delta_kv *conf, int32_t n_conf, char **parts,
                          int32_t n_parts, bool dv, const char *expected) {
  inlet_schema s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_schema_parse(&s, ddl, &err), 0);
  delta_metadata m;
  meta_with(&m, conf, n_conf, parts, n_parts);
  static char *features[] = {"deletionVectors"};
  delta_protocol p = {3, 7, dv ? 1 : 0, dv ? features : NULL, dv ? 1 : 0, dv ? features : NULL};
  inlet_field f;
  assert_int_equal(delta_stats_struct_field(&f, &s, &m, &p, &err), 0);
  assert_string_equal(f.name, "stats_parsed");
  assert_string_equal(type_of(&f), expected);
  inlet_field_reset(&f);
  inlet_schema_reset(&s);
}

static void test_stats_struct__schema_follows_spark(void **state) {
  (void)state;
  /* Ordered types get min/max, every indexed column a null count; the
   * partition column is not a data column. */
  char *parts[] = {"p"};
  expect_schema("a long, b string, c boolean, d array<int>, e struct<x:int,y:binary>, "
                "f decimal(10,2), g timestamp, h timestamp_ntz, i date, p int",
                NULL, 0, parts, 1, false,
                "struct<numRecords:long,minValues:struct<a:long,b:string,e:struct<x:integer>,"
                "f:decimal(10,2),g:timestamp,h:timestamp_ntz,i:date>,"
                "maxValues:struct<a:long,b:string,e:struct<x:integer>,f:decimal(10,2),g:timestamp,"
                "h:timestamp_ntz,i:date>,nullCount:struct<a:long,b:long,c:long,d:long,"
                "e:struct<x:long,y:long>,f:long,g:long,h:long,i:long>>");
  /* The first N leaf columns, nested ones counted one by one. */
  delta_kv n2[] = {{"delta.dataSkippingNumIndexedCols", "2"}};
  expect_schema(
      "a struct<x:int,y:int>, b long", n2, 1, NULL, 0, false,
      "struct<numRecords:long,minValues:struct<a:struct<x:integer,y:integer>>,"
      "maxValues:struct<a:struct<x:integer,y:integer>>,nullCount:struct<a:struct<x:long,y:long>>>");
  /* Named columns win over the count; names are case-insensitive, dotted
   * into structs, backquoted when they hold a dot. */
  delta_kv named[] = {{"delta.dataSkippingNumIndexedCols", "1"},
                      {"delta.dataSkippingStatsColumns", " B , s.Y,`d.e`"}};
  expect_schema("a long, b long, s struct<x:int,y:string>, `d.e` double", named, 2, NULL, 0, false,
                "struct<numRecords:long,minValues:struct<b:long,s:struct<y:string>,`d.e`:double>,"
                "maxValues:struct<b:long,s:struct<y:string>,`d.e`:double>,"
                "nullCount:struct<b:long,s:struct<y:long>,`d.e`:long>>");
  /* No data column with stats: numRecords only; deletion vectors add
   * tightBounds. */
  delta_kv none[] = {{"delta.dataSkippingNumIndexedCols", "0"}};
  expect_schema("a long", none, 1, NULL, 0, true, "struct<numRecords:long,tightBounds:boolean>");
}

/* Parses @p json into a stats_parsed of @p ddl's table and prints it back. */
static void roundtrip(const char *ddl, const char *json, const char *expected) {
  inlet_schema s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_schema_parse(&s, ddl, &err), 0);
  delta_metadata m;
  meta_with(&m, NULL, 0, NULL, 0);
  delta_protocol p = {1, 2, 0, NULL, 0, NULL};
  inlet_field f;
  assert_int_equal(delta_stats_struct_field(&f, &s, &m, &p, &err), 0);
  inlet_array a;
  assert_int_equal(inlet_array_init(&a, &f, &err), 0);
  delta_stats_struct_writer *w = NULL;
  assert_int_equal(delta_stats_struct_writer_new(&w, &err), 0);
  assert_int_equal(delta_stats_struct_append(w, &a, &f, json, &err), 0);
  /* The writer's scratch memory is reused: a second value must not see the
   * first one's. */
  assert_int_equal(delta_stats_struct_append(w, &a, &f, "{\"numRecords\":0}", &err), 0);
  assert_int_equal(a.length, 2);
  char *out = NULL;
  assert_int_equal(delta_stats_struct_to_json(&out, &f, &a, 0, &err), 0);
  if (!expected) {
    assert_null(out);
  } else {
    assert_non_null(out);
    if (strcmp(out, expected) != 0) fail_msg("%s\n  gave %s\n  expected %s", json, out, expected);
  }
  inlet_free(out);
  assert_int_equal(delta_stats_struct_to_json(&out, &f, &a, 1, &err), 0);
  assert_string_equal(out, "{\"numRecords\":0}");
  inlet_free(out);
  delta_stats_struct_writer_free(w);
  inlet_array_reset(&a);
  inlet_field_reset(&f);
  inlet_schema_reset(&s);
}

static void test_stats_struct__values_exact_or_unknown(void **state) {
  (void)state;
  roundtrip("d decimal(38,2)",
            "{\"numRecords\":2,\"minValues\":{\"d\":-123456789012345678901234567890123456.78},"
            "\"maxValues\":{\"d\":1.5e3}}",
            "{\"numRecords\":2,\"minValues\":{\"d\":-123456789012345678901234567890123456.78},"
            "\"maxValues\":{\"d\":1500.00}}");
  /* Digits past the scale: exact zeros are fine, anything else unknown;
   * past the precision: unknown. */
  roundtrip("d decimal(5,2)",
            "{\"numRecords\":1,\"minValues\":{\"d\":1.2300},\"maxValues\":{\"d\":1.235}}",
            "{\"numRecords\":1,\"minValues\":{\"d\":1.23},\"maxValues\":{}}");
  roundtrip("d decimal(5,2)",
            "{\"numRecords\":1,\"minValues\":{\"d\":1000.00},\"maxValues\":{\"d\":999.99}}",
            "{\"numRecords\":1,\"minValues\":{},\"maxValues\":{\"d\":999.99}}");
  /* Integers: in range for the type, integral. */
  roundtrip("b byte, l long",
            "{\"numRecords\":1,\"minValues\":{\"b\":-128,\"l\":-9223372036854775808},"
            "\"maxValues\":{\"b\":128,\"l\":1.0},\"nullCount\":{\"b\":0,\"l\":\"1\"}}",
            "{\"numRecords\":1,\"minValues\":{\"b\":-128,\"l\":-9223372036854775808},"
            "\"maxValues\":{},\"nullCount\":{\"b\":0}}");
  /* Strings: escapes decoded (and written back); dates and timestamps
   * parsed, a bad one unknown. */
  roundtrip("s string, d date, t timestamp, n timestamp_ntz",
            "{\"numRecords\":1,\"minValues\":{\"s\":\"a\\\"\\u00e9\\ud83d\\ude00\\n\","
            "\"d\":\"2024-02-29\",\"t\":\"2024-01-01T10:00:00.123+02:00\","
            "\"n\":\"2024-01-01T10:00:00.5\"},\"maxValues\":{\"s\":\"z\",\"d\":\"2023-02-29\","
            "\"t\":5,\"n\":\"soon\"}}",
            "{\"numRecords\":1,\"minValues\":{\"s\":\"a\\\"\xc3\xa9\xf0\x9f\x98\x80\\u000a\","
            "\"d\":\"2024-02-29\",\"t\":\"2024-01-01T08:00:00.123000Z\","
            "\"n\":\"2024-01-01T10:00:00.500000\"},\"maxValues\":{\"s\":\"z\"}}");
  /* Floating point: finite values only. */
  roundtrip("f float, x double",
            "{\"numRecords\":1,\"minValues\":{\"f\":0.1,\"x\":-2.5e-300},\"maxValues\":{\"f\":1e39,"
            "\"x\":1e400}}",
            "{\"numRecords\":1,\"minValues\":{\"f\":0.1,\"x\":-2.5e-300},\"maxValues\":{}}");
  /* Not JSON, not an object, no stats: an unknown struct. */
  roundtrip("a long", "{\"numRecords\":1,", NULL);
  roundtrip("a long", "[1]", NULL);
  roundtrip("a long", "", NULL);
  roundtrip("a long", "{\"numRecords\":3} trailing", NULL);
  /* Unknown members are ignored. */
  roundtrip("a long",
            "{\"numRecords\":3,\"other\":{\"deep\":[1,{\"x\":null}]},\"minValues\":{\"a\":1}}",
            "{\"numRecords\":3,\"minValues\":{\"a\":1}}");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stats_struct__schema_follows_spark),
      cmocka_unit_test(test_stats_struct__values_exact_or_unknown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
