/*
 * Unit tests for src/batch/schema.c: the DDL parser (good input and errors
 * that point at the offending position), type names, copy and equality.
 */
#include <stdio.h>

#include "testutil.h"

#include "inlet/batch.h"
#include "util/util.h"

static void test_parse__seed_schema(void **state) {
  (void)state;
  inlet_schema s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_schema_parse(&s,
                                      "event_id long not null, user string, amount double, "
                                      "event_time timestamp",
                                      &err),
                   0);
  assert_int_equal(s.n_fields, 4);
  assert_string_equal(s.fields[0].name, "event_id");
  assert_int_equal(s.fields[0].type.id, INLET_TYPE_INT64);
  assert_false(s.fields[0].nullable);
  assert_string_equal(s.fields[1].name, "user");
  assert_int_equal(s.fields[1].type.id, INLET_TYPE_STRING);
  assert_true(s.fields[1].nullable);
  assert_int_equal(s.fields[2].type.id, INLET_TYPE_DOUBLE);
  assert_int_equal(s.fields[3].type.id, INLET_TYPE_TIMESTAMP);
  assert_int_equal(s.fields[3].type.unit, INLET_UNIT_MICRO);
  assert_true(s.fields[3].type.utc);
  assert_int_equal(s.fields[0].field_id, -1);
  assert_int_equal(inlet_schema_find(&s, "amount"), 2);
  assert_int_equal(inlet_schema_find(&s, "nope"), -1);
  inlet_schema_reset(&s);
}

static void test_parse__every_primitive_type(void **state) {
  (void)state;
  static const struct {
    const char *ddl;
    inlet_type_id id;
    const char *name;
  } cases[] = {
      {"boolean", INLET_TYPE_BOOL, "boolean"},
      {"TINYINT", INLET_TYPE_INT8, "byte"},
      {"smallint", INLET_TYPE_INT16, "short"},
      {"Int", INLET_TYPE_INT32, "integer"},
      {"bigint", INLET_TYPE_INT64, "long"},
      {"uint8", INLET_TYPE_UINT8, "uint8"},
      {"uint64", INLET_TYPE_UINT64, "uint64"},
      {"real", INLET_TYPE_FLOAT, "float"},
      {"double", INLET_TYPE_DOUBLE, "double"},
      {"string", INLET_TYPE_STRING, "string"},
      {"json", INLET_TYPE_STRING, "json"},
      {"binary", INLET_TYPE_BINARY, "binary"},
      {"date", INLET_TYPE_DATE, "date"},
      {"time", INLET_TYPE_TIME, "time"},
      {"timestamp_ntz", INLET_TYPE_TIMESTAMP, "timestamp_ntz"},
      {"timestamp_ms", INLET_TYPE_TIMESTAMP, "timestamp_ms"},
      {"timestamp_ns", INLET_TYPE_TIMESTAMP, "timestamp_ns"},
      {"decimal(10, 2)", INLET_TYPE_DECIMAL, "decimal(10,2)"},
      {"decimal", INLET_TYPE_DECIMAL, "decimal(10,0)"},
      {"uuid", INLET_TYPE_FIXED_BINARY, "uuid"},
      {"fixed(3)", INLET_TYPE_FIXED_BINARY, "fixed(3)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char ddl[64], name[64];
    snprintf(ddl, sizeof ddl, "c %s", cases[i].ddl);
    inlet_schema s;
    inlet_error err = INLET_ERROR_INIT;
    int rc = inlet_schema_parse(&s, ddl, &err);
    if (rc != 0) fail_msg("%s: %s", ddl, inlet_errmsg(&err));
    assert_int_equal(s.fields[0].type.id, cases[i].id);
    inlet_type_name(&s.fields[0].type, name, sizeof name);
    assert_string_equal(name, cases[i].name);
    inlet_schema_reset(&s);
  }
}

static void test_parse__type_widths(void **state) {
  (void)state;
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s,
                                      "a byte, b short, c int, d long, e decimal(5,2), "
                                      "f fixed(7), g time_ms, h time, i boolean, j string",
                                      NULL),
                   0);
  int32_t want[] = {1, 2, 4, 8, 16, 7, 4, 8, 0, 0};
  for (int i = 0; i < 10; i++)
    assert_int_equal(inlet_type_value_width(&s.fields[i].type), want[i]);
  inlet_schema_reset(&s);
}

static void test_parse__nested_types_and_names(void **state) {
  (void)state;
  inlet_schema s;
  inlet_error err = INLET_ERROR_INIT;
  int rc = inlet_schema_parse(
      &s, "`odd name`` x` struct<a: long not null, b: array<string>>, m map<string, int>", &err);
  if (rc) fail_msg("%s", inlet_errmsg(&err));
  assert_int_equal(s.n_fields, 2);
  assert_string_equal(s.fields[0].name, "odd name` x");
  assert_int_equal(s.fields[0].type.id, INLET_TYPE_STRUCT);
  assert_int_equal(s.fields[0].n_children, 2);
  assert_false(s.fields[0].children[0].nullable);
  assert_int_equal(s.fields[0].children[1].type.id, INLET_TYPE_LIST);
  assert_string_equal(s.fields[0].children[1].children[0].name, "element");
  const inlet_field *m = &s.fields[1];
  assert_int_equal(m->type.id, INLET_TYPE_MAP);
  assert_int_equal(m->n_children, 1);
  assert_string_equal(m->children[0].name, "entries");
  assert_false(m->children[0].nullable);
  assert_string_equal(m->children[0].children[0].name, "key");
  assert_false(m->children[0].children[0].nullable);
  assert_int_equal(m->children[0].children[1].type.id, INLET_TYPE_INT32);
  char name[128];
  size_t n = inlet_field_type_name(&s.fields[0], name, sizeof name);
  assert_string_equal(name, "struct<a:long not null,b:array<string>>");
  assert_int_equal(n, strlen(name));
  inlet_field_type_name(m, name, sizeof name);
  assert_string_equal(name, "map<string,integer>");
  /* Odd struct field names come back quoted, so the text parses again. */
  inlet_schema q;
  assert_int_equal(inlet_schema_parse(&q, "x struct<`a b`:int, `c``d`:string>", NULL), 0);
  inlet_field_type_name(&q.fields[0], name, sizeof name);
  assert_string_equal(name, "struct<`a b`:integer,`c``d`:string>");
  inlet_schema_reset(&q);
  /* Truncation still reports the full length. */
  char small[8];
  assert_int_equal(inlet_field_type_name(m, small, sizeof small), strlen("map<string,integer>"));
  assert_string_equal(small, "map<str");
  inlet_schema_reset(&s);
}

static void expect_error(const char *ddl, const char *fragment) {
  inlet_schema s;
  inlet_error err = INLET_ERROR_INIT;
  int rc = inlet_schema_parse(&s, ddl, &err);
  if (rc != INLET_EINVAL) fail_msg("'%s' parsed (rc %d)", ddl, rc);
  if (!strstr(err.message, fragment))
    fail_msg("'%s': message '%s' lacks '%s'", ddl, err.message, fragment);
  assert_int_equal(s.n_fields, 0);
  assert_null(s.fields);
}

static void test_parse__errors_name_the_position(void **state) {
  (void)state;
  expect_error("a long, b strin", "unknown type at position 11");
  expect_error("a long b string", "expected ',' or end of schema at position 8");
  expect_error("", "empty schema");
  expect_error("a", "expected a type name at position 2");
  expect_error("a decimal(40,2)", "decimal precision between 1 and 38");
  expect_error("a decimal(5,6)", "scale exceeds precision at position 13");
  expect_error("a struct<x int", "expected '>'");
  expect_error("a map<array<int>,int>", "map key must be a primitive type at position 7");
  expect_error("a long not nul", "expected NULL after NOT");
  expect_error("a int, a long", "duplicate column name \"a\"");
  expect_error("`abc int", "unterminated");
  expect_error("a struct<x:int,x:long>", "duplicate struct field");
}

static void test_parse__deep_nesting_is_refused(void **state) {
  (void)state;
  char ddl[1200] = "a ";
  for (int i = 0; i < 100; i++)
    strcat(ddl, "array<");
  strcat(ddl, "int");
  for (int i = 0; i < 100; i++)
    strcat(ddl, ">");
  expect_error(ddl, "nested too deeply");
}

static void test_schema__copy_equal_and_add(void **state) {
  (void)state;
  inlet_schema a, b, c;
  assert_int_equal(inlet_schema_parse(&a, "x int not null, y array<decimal(9,3)>", NULL), 0);
  assert_int_equal(inlet_schema_copy(&b, &a, NULL), 0);
  assert_true(inlet_schema_equal(&a, &b));
  assert_ptr_not_equal(a.fields[1].children, b.fields[1].children);
  b.fields[1].children[0].type.scale = 2;
  assert_false(inlet_schema_equal(&a, &b));
  inlet_schema_init(&c);
  assert_int_equal(inlet_schema_add_field(&c, &a.fields[0], NULL), 0);
  assert_int_equal(inlet_schema_add_field(&c, &a.fields[1], NULL), 0);
  assert_true(inlet_schema_equal(&a, &c));
  c.fields[0].nullable = true;
  assert_false(inlet_schema_equal(&a, &c));
  inlet_schema_reset(&a);
  inlet_schema_reset(&b);
  inlet_schema_reset(&c);
}

static void test_schema__copy_survives_allocation_failures(void **state) {
  (void)state;
  inlet_schema a;
  assert_int_equal(inlet_schema_parse(&a, "x int, y struct<p:string,q:map<string,long>>", NULL), 0);
  for (long n = 0; n < 40; n++) {
    inlet_schema b;
    inlet_alloc_fail_after(n);
    int rc = inlet_schema_copy(&b, &a, NULL);
    inlet_alloc_fail_after(-1);
    if (rc == 0) {
      assert_true(inlet_schema_equal(&a, &b));
      inlet_schema_reset(&b);
      break;
    }
    assert_int_equal(rc, INLET_ENOMEM);
  }
  for (long n = 0; n < 60; n++) {
    inlet_schema b;
    inlet_alloc_fail_after(n);
    int rc = inlet_schema_parse(&b, "x int, y struct<p:string,q:map<string,long>>", NULL);
    inlet_alloc_fail_after(-1);
    if (rc == 0) {
      assert_true(inlet_schema_equal(&a, &b));
      inlet_schema_reset(&b);
      break;
    }
    assert_int_equal(rc, INLET_ENOMEM);
  }
  inlet_schema_reset(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse__seed_schema),
      cmocka_unit_test(test_parse__every_primitive_type),
      cmocka_unit_test(test_parse__type_widths),
      cmocka_unit_test(test_parse__nested_types_and_names),
      cmocka_unit_test(test_parse__errors_name_the_position),
      cmocka_unit_test(test_parse__deep_nesting_is_refused),
      cmocka_unit_test(test_schema__copy_equal_and_add),
      cmocka_unit_test(test_schema__copy_survives_allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
