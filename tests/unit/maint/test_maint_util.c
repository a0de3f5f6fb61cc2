/*
 * White-box tests of src/maint/maint_util.c: duration parsing (CLI forms
 * and Delta's "interval N unit" property form), partition predicates for
 * `inlet compact --where` (the scan --where language over partition values:
 * typed comparisons, errors, nulls) and partition labels/keys.
 */
#include "testutil.h"

#include <string.h>

#include "expr/expr.h"
#include "maint/maint_int.h"
#include "util/util.h"

static void test_duration__units_and_interval_form(void **state) {
  (void)state;
  int64_t ms = -1;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_duration_parse(&ms, "7d", &err), 0);
  assert_int_equal(ms, 7LL * 86400000);
  assert_int_equal(inlet_duration_parse(&ms, "168h", &err), 0);
  assert_int_equal(ms, 168LL * 3600000);
  assert_int_equal(inlet_duration_parse(&ms, "interval 30 days", &err), 0);
  assert_int_equal(ms, 30LL * 86400000);
  assert_int_equal(inlet_duration_parse(&ms, "interval 1 week", &err), 0);
  assert_int_equal(ms, 604800000LL);
  assert_int_equal(inlet_duration_parse(&ms, "0s", &err), 0);
  assert_int_equal(ms, 0);
  /* A bare number is ambiguous (it meant ms here, s for ingest): refused. */
  assert_int_equal(inlet_duration_parse(&ms, "1500", &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "no unit"));
  assert_int_equal(inlet_duration_parse(&ms, "1500ms", &err), 0);
  assert_int_equal(ms, 1500);
  assert_int_equal(inlet_duration_parse(&ms, "90 MIN", &err), 0);
  assert_int_equal(ms, 90LL * 60000);
}

static void test_duration__rejects_garbage_and_overflow(void **state) {
  (void)state;
  int64_t ms = 42;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_duration_parse(&ms, "", &err), INLET_EINVAL);
  assert_int_equal(inlet_duration_parse(&ms, "-1d", &err), INLET_EINVAL);
  assert_int_equal(inlet_duration_parse(&ms, "7 fortnights", &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "fortnights"));
  assert_int_equal(inlet_duration_parse(&ms, "7d extra", &err), INLET_EINVAL);
  assert_int_equal(inlet_duration_parse(&ms, "99999999999999999w", &err), INLET_EINVAL);
  assert_int_equal(inlet_duration_parse(&ms, NULL, &err), INLET_EINVAL);
  assert_int_equal(ms, 42);
}

/* A metaData with partition columns day and n, and an add with values. */
static char *cols[] = {"day", "n"};
static delta_metadata meta(void) {
  delta_metadata m;
  memset(&m, 0, sizeof m);
  m.n_partition_columns = 2;
  m.partition_columns = cols;
  return m;
}

static delta_add add_with(const char *day, const char *n, delta_kv kv[2]) {
  delta_add a;
  memset(&a, 0, sizeof a);
  kv[0] = (delta_kv){"day", (char *)day};
  kv[1] = (delta_kv){"n", (char *)n};
  a.partition_values = kv;
  a.n_partition_values = 2;
  a.path = "x.parquet";
  return a;
}

/* The table schema: partition columns day (string) and n (long), data
 * column msg. */
static inlet_schema table_schema(void) {
  inlet_schema s;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_schema_parse(&s, "day string, n long, msg string", &err) != 0)
    fail_msg("schema: %s", err.message);
  return s;
}

static bool match(const char *pred, const char *day, const char *n) {
  delta_metadata m = meta();
  inlet_schema s = table_schema();
  inlet_predicate *p = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (maint_where_parse(&p, pred, &s, &m, &err) != 0) fail_msg("parse %s: %s", pred, err.message);
  delta_kv kv[2];
  delta_add a = add_with(day, n, kv);
  const delta_add *adds[1] = {&a};
  uint8_t keep = 9;
  assert_int_equal(maint_where_match(p, NULL, adds, 1, &keep, &err), 0);
  assert_true(keep == 0 || keep == 1);
  expr_free(p);
  inlet_schema_reset(&s);
  return keep == 1;
}

static void test_pred__comparisons_and_conjunctions(void **state) {
  (void)state;
  assert_true(match("day = '2024-01-02'", "2024-01-02", "5"));
  assert_false(match("day = '2024-01-02'", "2024-01-03", "5"));
  assert_true(match("day>='2024-01-02' AND day < '2024-02-01'", "2024-01-15", "5"));
  assert_false(match("day>='2024-01-02' and day < '2024-02-01'", "2024-02-01", "5"));
  /* Numbers compare as numbers: 10 > 9 although "10" < "9" as text. */
  assert_true(match("n > 9", "2024-01-01", "10"));
  assert_false(match("n <= 9", "2024-01-01", "10"));
  assert_true(match("n != 3", "2024-01-01", "4"));
  assert_true(match("n <> 3", "2024-01-01", "4"));
  assert_true(match("`day` = 'a b'", "a b", "1"));
  assert_true(match("day = 'it''s'", "it's", "1"));
  /* The language of scan --where: OR, IN, NOT, BETWEEN, parentheses. */
  assert_true(match("day = 'x' OR n = 1", "2024-01-01", "1"));
  assert_false(match("day = 'x' OR n = 1", "2024-01-01", "2"));
  assert_true(match("n IN (1, 2, 3) AND NOT (day < '2024')", "2024-01-01", "2"));
  assert_true(match("n BETWEEN 2 AND 4", "2024-01-01", "4"));
}

static void test_pred__nulls_follow_sql(void **state) {
  (void)state;
  assert_true(match("n IS NULL", "2024-01-01", NULL));
  assert_false(match("n IS NOT NULL", "2024-01-01", NULL));
  assert_true(match("n is not null", "2024-01-01", "0"));
  /* A comparison with null is not true, whichever way it goes. */
  assert_false(match("n = 0", "2024-01-01", NULL));
  assert_false(match("n != 0", "2024-01-01", NULL));
  assert_false(match("NOT (n = 0)", "2024-01-01", NULL));
}

static void expect_bad(const char *pred, int code, const char *needle) {
  delta_metadata m = meta();
  inlet_schema s = table_schema();
  inlet_predicate *p = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(maint_where_parse(&p, pred, &s, &m, &err), code);
  if (!strstr(err.message, needle))
    fail_msg("\"%s\": message \"%s\" lacks \"%s\"", pred, err.message, needle);
  assert_null(p);
  inlet_schema_reset(&s);
}

static void test_pred__errors_name_the_problem(void **state) {
  (void)state;
  expect_bad("msg = 'x'", INLET_EINVAL, "\"msg\" is not a partition column");
  expect_bad("day = 'x' OR msg = 'y'", INLET_EINVAL, "not a partition column");
  expect_bad("day ~ 'x'", INLET_EINVAL, "column 5: unexpected character");
  expect_bad("day = ", INLET_EINVAL, "column 7: expected a literal");
  expect_bad("day = 'x' AND", INLET_EINVAL, "column 14: expected a column, literal or '('");
  expect_bad("day = 'x", INLET_EINVAL, "unterminated quote");
  expect_bad("", INLET_EINVAL, "empty expression");
  expect_bad("n IS 3", INLET_EINVAL, "column 6: expected NULL");
  expect_bad("n = 'x'", INLET_EINVAL, "does not fit column \"n\" (long)");
  expect_bad("nope = 1", INLET_ENOTFOUND, "no column named \"nope\"");
}

/* A partition value the column's type cannot hold names the file. */
static void test_pred__bad_partition_value_names_the_file(void **state) {
  (void)state;
  delta_metadata m = meta();
  inlet_schema s = table_schema();
  inlet_predicate *p = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(maint_where_parse(&p, "n > 1", &s, &m, &err), 0);
  delta_kv kv[2];
  delta_add a = add_with("2024-01-01", "ten", kv);
  const delta_add *adds[1] = {&a};
  uint8_t keep;
  assert_int_equal(maint_where_match(p, NULL, adds, 1, &keep, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "x.parquet"));
  expr_free(p);
  inlet_schema_reset(&s);
}

static void test_partition_names__nulls_distinct_from_strings(void **state) {
  (void)state;
  delta_metadata m = meta();
  delta_kv kv1[2], kv2[2];
  delta_add a = add_with("2024-01-01", NULL, kv1);
  delta_add b = add_with("2024-01-01", "__HIVE_DEFAULT_PARTITION__", kv2);
  char *la, *ka, *lb, *kb;
  inlet_error err = INLET_ERROR_INIT;
  delta_snapshot snap; /* no column mapping: physical names are logical */
  memset(&snap, 0, sizeof snap);
  snap.metadata = m;
  assert_int_equal(maint_partition_names(&la, &ka, &a, &snap, &err), 0);
  assert_int_equal(maint_partition_names(&lb, &kb, &b, &snap, &err), 0);
  assert_string_equal(la, "day=2024-01-01/n=__HIVE_DEFAULT_PARTITION__");
  assert_string_not_equal(ka, kb);
  inlet_free(la);
  inlet_free(ka);
  inlet_free(lb);
  inlet_free(kb);
}

static void test_conf_size__suffixes_and_fallback(void **state) {
  (void)state;
  delta_kv conf[3] = {{"a", "128m"}, {"b", "1GiB"}, {"c", "lots"}};
  delta_metadata m;
  memset(&m, 0, sizeof m);
  m.n_configuration = 3;
  m.configuration = conf;
  assert_int_equal(maint_conf_size(&m, "a", 7), 128LL << 20);
  assert_int_equal(maint_conf_size(&m, "b", 7), 1LL << 30);
  assert_int_equal(maint_conf_size(&m, "c", 7), 7);
  assert_int_equal(maint_conf_size(&m, "absent", 9), 9);
}

/* Random text from the predicate/duration alphabet: never a crash or an
 * overread (ASan), only 0 or INLET_EINVAL, and no terms left on failure. */
static void test_parsers__random_input_fails_cleanly(void **state) {
  (void)state;
  static const char alphabet[] = "dayn =!<>'\"`aAnNdDiIsSoOtTuUlL0123456789-.: \t";
  uint64_t x = 88172645463325252ULL;
  delta_metadata m = meta();
  inlet_schema s = table_schema();
  for (int iter = 0; iter < 20000; iter++) {
    char buf[40];
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    size_t n = (size_t)(x % (sizeof buf - 1));
    uint64_t y = x;
    for (size_t i = 0; i < n; i++) {
      y = y * 6364136223846793005ULL + 1442695040888963407ULL;
      buf[i] = alphabet[(y >> 33) % (sizeof alphabet - 1)];
    }
    buf[n] = '\0';
    inlet_predicate *p = NULL;
    inlet_error err = INLET_ERROR_INIT;
    int rc = maint_where_parse(&p, buf, &s, &m, &err);
    assert_true(rc == 0 || rc == INLET_EINVAL || rc == INLET_ENOTFOUND || rc == INLET_ELIMIT);
    if (rc == 0) {
      delta_kv kv[2];
      delta_add a = add_with("2024-01-01", NULL, kv);
      const delta_add *adds[1] = {&a};
      uint8_t keep = 9;
      assert_int_equal(maint_where_match(p, NULL, adds, 1, &keep, &err), 0);
      assert_true(keep <= 1);
    } else {
      assert_null(p);
      assert_true(err.message[0] != '\0');
    }
    expr_free(p);
    int64_t ms = 0;
    rc = inlet_duration_parse(&ms, buf, &err);
    assert_true(rc == 0 || rc == INLET_EINVAL);
    if (rc == 0) assert_true(ms >= 0);
  }
  inlet_schema_reset(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_duration__units_and_interval_form),
      cmocka_unit_test(test_duration__rejects_garbage_and_overflow),
      cmocka_unit_test(test_pred__comparisons_and_conjunctions),
      cmocka_unit_test(test_pred__nulls_follow_sql),
      cmocka_unit_test(test_pred__errors_name_the_problem),
      cmocka_unit_test(test_pred__bad_partition_value_names_the_file),
      cmocka_unit_test(test_partition_names__nulls_distinct_from_strings),
      cmocka_unit_test(test_conf_size__suffixes_and_fallback),
      cmocka_unit_test(test_parsers__random_input_fails_cleanly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
