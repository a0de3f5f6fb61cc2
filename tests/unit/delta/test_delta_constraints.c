/*
 * Unit tests of src/delta/delta_constraints.c: which invariants and CHECK
 * constraints a table's metaData carries (struct nesting followed, arrays
 * and maps not, as Spark; constraint keys ignoring case), refusals of rules
 * inlet cannot evaluate, NOT NULL below the top level (struct fields, list
 * elements, map values), and the violation message (bounded, naming the
 * constraint, the row and the values).
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "delta/delta_constraints.h"
#include "inlet/inlet.h"

/* A snapshot holding only the metaData the loader reads. */
static void snap_with(delta_snapshot *s, const char *schema_json, delta_kv *conf, int32_t n_conf) {
  memset(s, 0, sizeof *s);
  s->metadata.schema_string = (char *)schema_json;
  s->metadata.configuration = conf;
  s->metadata.n_configuration = n_conf;
  inlet_error err = INLET_ERROR_INIT;
  if (delta_schema_parse(&s->schema, schema_json, &err) != 0) fail_msg("schema: %s", err.message);
  s->has_schema = true;
}

static void snap_free(delta_snapshot *s) {
  inlet_schema_reset(&s->schema);
}

/* A schemaString field with an invariant. */
#define INV(name, type, expr)                                                                      \
  "{\"name\":\"" name "\",\"type\":" type ",\"nullable\":true,\"metadata\":{\"delta.invariants\":" \
  "\"{\\\"expression\\\":{\\\"expression\\\":\\\"" expr "\\\"}}\"}}"

static void test_constraints__found_where_spark_finds_them(void **state) {
  (void)state;
  const char *schema = "{\"type\":\"struct\",\"fields\":[" INV(
      "id", "\"long\"",
      "id > 0") ","
                "{\"name\":\"st\",\"type\":{\"type\":\"struct\",\"fields\":[" INV(
                    "a", "\"long\"",
                    "st.a < 9") "]},\"nullable\":true,\"metadata\":{}},"
                                "{\"name\":\"arr\",\"type\":{\"type\":\"array\",\"elementType\":{"
                                "\"type\":\"struct\","
                                "\"fields\":[" INV(
                                    "b", "\"long\"",
                                    "frob(b)") "]},\"containsNull\":true},\"nullable\":true,"
                                               "\"metadata\":{}}]}";
  delta_kv conf[3] = {{"delta.constraints.Pos", "id < 100"},
                      {"DELTA.CONSTRAINTS.two", "st.a IS NOT NULL"},
                      {"delta.appendOnly", "false"}};
  delta_snapshot s;
  snap_with(&s, schema, conf, 3);
  delta_constraints c;
  inlet_error err = INLET_ERROR_INIT;
  if (delta_constraints_load(&c, &s, &err) != 0) fail_msg("load: %s", err.message);
  /* The invariant inside the array's struct is not one (Spark's
   * filterRecursively does not enter arrays): its bad expression is never
   * parsed. */
  assert_int_equal(c.n, 4);
  assert_string_equal(c.items[0].name, "Pos");
  assert_false(c.items[0].invariant);
  assert_string_equal(c.items[1].name, "two");
  assert_string_equal(c.items[2].name, "id");
  assert_true(c.items[2].invariant);
  assert_string_equal(c.items[3].name, "st.a");
  assert_string_equal(c.items[3].text, "st.a < 9");
  assert_false(c.nested_not_null);
  assert_true(delta_constraints_any(&c));
  /* Columns read: id and st, not arr. */
  assert_int_equal(c.used[0], 1);
  assert_int_equal(c.used[1], 1);
  assert_int_equal(c.used[2], 0);
  delta_constraints_reset(&c);
  snap_free(&s);
}

static void test_constraints__refusals_name_the_rule(void **state) {
  (void)state;
  delta_constraints c;
  inlet_error err = INLET_ERROR_INIT;
  delta_snapshot s;
  const char *plain = "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\","
                      "\"nullable\":true,\"metadata\":{}}]}";
  delta_kv bad[1] = {{"delta.constraints.c1", "id >"}};
  snap_with(&s, plain, bad, 1);
  assert_int_equal(delta_constraints_load(&c, &s, &err), INLET_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "cannot write: CHECK constraint c1 (id >) cannot be "
                                      "evaluated by inlet: column 5: expected a literal"));
  assert_int_equal(c.n, 0);
  snap_free(&s);
  delta_kv notbool[1] = {{"delta.constraints.c2", "id + 1"}};
  snap_with(&s, plain, notbool, 1);
  assert_int_equal(delta_constraints_load(&c, &s, &err), INLET_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "expected a comparison"));
  snap_free(&s);
  const char *badinv = "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\","
                       "\"nullable\":true,\"metadata\":{\"delta.invariants\":\"not json\"}}]}";
  snap_with(&s, badinv, NULL, 0);
  assert_int_equal(delta_constraints_load(&c, &s, &err), INLET_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "column \"id\" has a delta.invariants rule inlet does not "
                                      "understand (not json)"));
  snap_free(&s);
}

/* A batch of @p ddl from NDJSON @p rows. */
static void batch_of(inlet_batch *b, const char *ddl, const char *rows) {
  inlet_schema s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_schema_parse(&s, ddl, &err), 0);
  inlet_text_reader *r = NULL;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  assert_int_equal(inlet_text_reader_open_memory(&r, rows, strlen(rows), &s, &o, &err), 0);
  memset(b, 0, sizeof *b);
  if (inlet_text_reader_next(r, b, &err) != 0) fail_msg("rows: %s", err.message);
  inlet_text_reader_free(r);
  inlet_schema_reset(&s);
}

static void test_constraints__nested_not_null(void **state) {
  (void)state;
  /* The table says the list's elements, the map's values and st.a are
   * NOT NULL; the batch (read with a looser schema) holds nulls there. */
  const char *schema =
      "{\"type\":\"struct\",\"fields\":["
      "{\"name\":\"l\",\"type\":{\"type\":\"array\",\"elementType\":\"long\",\"containsNull\":"
      "false},"
      "\"nullable\":true,\"metadata\":{}},"
      "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":\"long\","
      "\"valueContainsNull\":false},\"nullable\":true,\"metadata\":{}},"
      "{\"name\":\"st\",\"type\":{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":"
      "\"long\","
      "\"nullable\":false,\"metadata\":{}}]},\"nullable\":true,\"metadata\":{}}]}";
  delta_snapshot s;
  snap_with(&s, schema, NULL, 0);
  delta_constraints c;
  inlet_error err = INLET_ERROR_INIT;
  if (delta_constraints_load(&c, &s, &err) != 0) fail_msg("load: %s", err.message);
  assert_int_equal(c.n, 0);
  assert_true(c.nested_not_null);
  inlet_batch b;
  batch_of(&b, "l array<long>, m map<string,long>, st struct<a:long>",
           "{\"l\":[1,2],\"m\":{\"k\":1},\"st\":{\"a\":1}}\n"
           "{\"l\":null,\"m\":null,\"st\":null}\n"
           "{\"l\":[3,null]}\n"
           "{\"m\":{\"k\":null}}\n"
           "{\"st\":{\"a\":null}}\n");
  int64_t bad = -1;
  assert_int_equal(delta_constraints_check(&c, &b, 0, 2, 0, &bad, NULL, &err), 0);
  assert_int_equal(delta_constraints_check(&c, &b, 0, 5, 10, &bad, NULL, &err), INLET_EINVAL);
  assert_int_equal(bad, 2);
  assert_string_equal(err.message, "NOT NULL constraint violated for column l.element by row 13");
  assert_int_equal(delta_constraints_check(&c, &b, 3, 1, -1, &bad, NULL, &err), INLET_EINVAL);
  assert_string_equal(err.message, "NOT NULL constraint violated for column m.value");
  assert_int_equal(delta_constraints_check(&c, &b, 4, 1, 0, &bad, NULL, &err), INLET_EINVAL);
  assert_string_equal(err.message, "NOT NULL constraint violated for column st.a by row 1");
  inlet_batch_reset(&b);
  delta_constraints_reset(&c);
  snap_free(&s);
}

static void test_constraints__message_is_bounded(void **state) {
  (void)state;
  const char *schema = "{\"type\":\"struct\",\"fields\":[{\"name\":\"s\",\"type\":\"string\","
                       "\"nullable\":true,\"metadata\":{}},{\"name\":\"t\",\"type\":\"string\","
                       "\"nullable\":true,\"metadata\":{}}]}";
  delta_kv conf[1] = {{"delta.constraints.short", "length(s) + length(t) < 5"}};
  delta_snapshot s;
  snap_with(&s, schema, conf, 1);
  delta_constraints c;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(delta_constraints_load(&c, &s, &err), 0);
  char rows[2000];
  int k = snprintf(rows, sizeof rows, "{\"s\":\"ok\",\"t\":\"\"}\n{\"s\":\"");
  for (int i = 0; i < 600; i++)
    rows[k++] = 'x';
  snprintf(rows + k, sizeof rows - (size_t)k, "\",\"t\":\"y\"}\n");
  inlet_batch b;
  batch_of(&b, "s string, t string", rows);
  int64_t bad = -1;
  int32_t which = -1;
  assert_int_equal(delta_constraints_check(&c, &b, 0, 2, 0, &bad, &which, &err), INLET_EINVAL);
  assert_int_equal(bad, 1);
  assert_int_equal(which, 0);
  assert_true(strlen(err.message) < INLET_ERROR_MESSAGE_SIZE);
  assert_non_null(strstr(err.message, "CHECK constraint short (length(s) + length(t) < 5) "
                                      "violated by row 2 (false): {\"s\":\"xxx"));
  assert_non_null(strstr(err.message, "xxx...,\"t\":\"y\"}"));
  inlet_batch_reset(&b);
  delta_constraints_reset(&c);
  snap_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constraints__found_where_spark_finds_them),
      cmocka_unit_test(test_constraints__refusals_name_the_rule),
      cmocka_unit_test(test_constraints__nested_not_null),
      cmocka_unit_test(test_constraints__message_is_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
