/*
 * Unit tests of src/expr beyond the --where predicates of
 * tests/unit/scan/test_predicate.c: the general expression language shared
 * by scan, compaction and table constraints — arithmetic with Spark's
 * result types (exact decimals, integer / integer is a double, overflow and
 * division by zero are NULL), column-to-column comparisons, nested fields,
 * subscripts, functions, CAST, CASE, LIKE, null-safe equality, the Spark
 * dialect of stored constraints (double-quoted strings, backslash escapes,
 * suffixed numbers, Spark's token-spaced text), parser errors with their
 * caret, and evaluation of row ranges.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "inlet/inlet.h"

static const char *DDL =
    "id long, n int, s string, d decimal(10,2), x double, day date, ts timestamp, b boolean, "
    "st struct<a:long,t:string>, arr array<int>, m map<string,long>, big decimal(38,18)";

/* Rows 1..5. */
static const char *ROWS =
    "{\"id\":1,\"n\":10,\"s\":\"Ann\",\"d\":\"1.50\",\"x\":0.5,\"day\":\"2024-05-01\","
    "\"ts\":\"2024-05-01T10:30:15.25Z\",\"b\":true,\"st\":{\"a\":7,\"t\":\"x\"},\"arr\":[1,2,3],"
    "\"m\":{\"k\":5},\"big\":\"12345678901234567890.123456789012345678\"}\n"
    "{\"id\":2,\"n\":3,\"s\":\"  bob \",\"d\":\"-2.25\",\"x\":-1.5,\"day\":\"2023-12-31\","
    "\"ts\":\"2023-12-31T23:59:59Z\",\"b\":false,\"st\":{\"a\":null,\"t\":\"y\"},\"arr\":[],"
    "\"m\":{\"j\":1},\"big\":\"10000000000.5\"}\n"
    "{\"id\":3,\"n\":null,\"s\":null,\"d\":null,\"x\":null,\"day\":null,\"ts\":null,\"b\":null,"
    "\"st\":null,\"arr\":null,\"m\":null,\"big\":null}\n"
    "{\"id\":4,\"n\":0,\"s\":\"\\u00c9t\\u00e9\",\"d\":\"0.00\",\"x\":\"NaN\",\"day\":\"1970-01-"
    "01\","
    "\"ts\":\"1970-01-01T00:00:00Z\",\"b\":true,\"st\":{\"a\":-1,\"t\":null},\"arr\":[null,9],"
    "\"m\":{},\"big\":\"-0.000000000000000001\"}\n"
    "{\"id\":9223372036854775807,\"n\":-7,\"s\":\"a%b_c\",\"d\":\"99999999.99\",\"x\":1e300,"
    "\"day\":\"2000-02-29\",\"ts\":\"2000-02-29T12:00:00Z\",\"b\":false,\"st\":{\"a\":0,"
    "\"t\":\"\"},\"arr\":[4],\"m\":{\"k\":null},\"big\":\"0\"}\n";

typedef struct fx {
  inlet_schema schema;
  inlet_batch batch;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_schema_parse(&f->schema, DDL, &err) != 0) fail_msg("schema: %s", err.message);
  inlet_text_reader *r = NULL;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  assert_int_equal(inlet_text_reader_open_memory(&r, ROWS, strlen(ROWS), &f->schema, &o, &err), 0);
  if (inlet_text_reader_next(r, &f->batch, &err) != 0) fail_msg("rows: %s", err.message);
  assert_int_equal(f->batch.num_rows, 5);
  inlet_text_reader_free(r);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  inlet_batch_reset(&f->batch);
  inlet_schema_reset(&f->schema);
  free(f);
  return 0;
}

/* The per-row values as T/F/N, checking that every one-row evaluation
 * agrees with the whole batch's. */
static void eval_str(fx *f, expr_dialect d, const char *text, char *out) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_predicate *p = NULL;
  if (expr_parse(&p, text, &f->schema, d, &err) != 0)
    fail_msg("parse of <%s> failed: %s", text, inlet_errmsg(&err));
  uint8_t res[8], one;
  assert_int_equal(expr_eval(p, &f->batch, 0, 5, res, &err), 0);
  for (int i = 0; i < 5; i++) {
    out[i] = res[i] == 1 ? 'T' : res[i] == 0 ? 'F' : res[i] == 2 ? 'N' : '?';
    assert_int_equal(expr_eval(p, &f->batch, i, 1, &one, &err), 0);
    if (one != res[i])
      fail_msg("<%s>: row %d alone gives %d, in the batch %d", text, i, one, res[i]);
  }
  out[5] = 0;
  expr_free(p);
}

#define EXPECT_D(d, text, expected)                                                                \
  do {                                                                                             \
    char got_[8];                                                                                  \
    eval_str(f, d, text, got_);                                                                    \
    if (strcmp(got_, expected) != 0) fail_msg("<%s>: expected %s, got %s", text, expected, got_);  \
  } while (0)
#define EXPECT(text, expected) EXPECT_D(EXPR_WHERE, text, expected)
#define SPARK(text, expected) EXPECT_D(EXPR_SPARK, text, expected)

static void expect_error(fx *f, expr_dialect d, const char *text, int code, const char *part) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_predicate *p = NULL;
  int rc = expr_parse(&p, text, &f->schema, d, &err);
  assert_null(p);
  if (rc != code) fail_msg("<%s>: expected %d, got %d (%s)", text, code, rc, inlet_errmsg(&err));
  if (!strstr(inlet_errmsg(&err), part))
    fail_msg("<%s>: message lacks <%s>:\n%s", text, part, inlet_errmsg(&err));
}

static void test_expr__arithmetic_follows_spark_types(void **state) {
  fx *f = *state;
  EXPECT("id + 1 = 2", "TFFFN"); /* 2^63-1 + 1 overflows: NULL */
  EXPECT("id * 2 > id", "TTTTN");
  EXPECT("n - 3 = 7", "TFNFF");
  EXPECT("-n = -10", "TFNFF");
  EXPECT("n / 4 = 2.5", "TFNFF");   /* integer / integer is a double */
  EXPECT("n / 0 IS NULL", "TTTTT"); /* division by zero: NULL */
  EXPECT("n % 4 = 2", "TFNFF");
  EXPECT("n % 4 = -3", "FFNFT"); /* the sign of the dividend */
  EXPECT("n DIV 4 = 2", "TFNFF");
  EXPECT("n DIV 0 IS NULL", "TTTTT");
  EXPECT("d * 2 = 3", "TFNFF"); /* exact decimals */
  EXPECT("d + 0.005 = 1.505", "TFNFF");
  EXPECT("d / 3 = 0.5", "TFNFF"); /* decimal(10,2)/int: scale 13, exact here */
  EXPECT("d / 3 > 0.4999999", "TFNFT");
  EXPECT("d % 1 = 0.5", "TFNFF");
  EXPECT("x * 2 = 1", "TFNFF");
  EXPECT("x + d = 2.0", "TFNFF"); /* double with decimal: double */
  EXPECT("x > 1e299", "FFNTT");   /* NaN is above every number */
  /* decimal(38,18) * int is decimal(38,7) (Spark's adjustment), rounded
   * half up. */
  EXPECT("big * 2 = 24691357802469135780.2469136", "TFNFF");
  /* decimal(38,18)^2 is decimal(38,6): 10000000000.5^2 needs more than
   * 128 bits before rounding; row 1's square does not fit (NULL). */
  EXPECT("big * big = 100000000010000000000.25", "NTNFF");
  EXPECT("(n + 2) * 3 = 36", "TFNFF");
  EXPECT("n + 2 * 3 = 16", "TFNFF");
  EXPECT("1 + 1 = 2", "TTTTT");
}

static void test_expr__column_comparisons_and_promotion(void **state) {
  fx *f = *state;
  EXPECT("n > id", "TTNFF");
  EXPECT("d < x", "FTNTT"); /* NaN above 0.00 */
  EXPECT("n = d * 0 + n", "TTNTT");
  EXPECT("day < ts", "TTNFT"); /* a date is midnight UTC */
  EXPECT("day = ts", "FFNTF");
  EXPECT("CAST(ts AS DATE) = day", "TTNTT");
  EXPECT("s = s", "TTNTT");
  EXPECT("b = (n > 5)", "TTNFT");
  EXPECT("n <=> NULL", "FFTFF");
  EXPECT("s <=> s", "TTTTT");
  EXPECT("n IS DISTINCT FROM 10", "FTTTT");
  EXPECT("n IS NOT DISTINCT FROM 10", "TFFFF");
  EXPECT("b IS TRUE", "TFFTF");
  EXPECT("b IS NOT FALSE", "TFTTF");
  EXPECT("n IN (id, 3, 0)", "FTNTF");
  EXPECT("n NOT IN (id + 9, 100)", "FTNTN"); /* id + 9 overflows: NULL */
  EXPECT("n BETWEEN id AND 10", "TTNFF");
  EXPECT("n NOT BETWEEN id AND 10", "FFNTT");
}

static void test_expr__nested_fields_and_subscripts(void **state) {
  fx *f = *state;
  EXPECT("st.a > 0", "TNNFF");
  EXPECT("st.a IS NULL", "FTTFF"); /* a null struct makes its fields null */
  EXPECT("st.t = 'x'", "TFNNF");
  EXPECT("arr[0] = 1", "TNNNF"); /* out of range is NULL */
  EXPECT("arr[1] = 9", "FNNTN");
  EXPECT("arr[0] IS NULL", "FTTTF");
  EXPECT("m['k'] = 5", "TNNNN");
  EXPECT("m['k'] IS NULL", "FTTTT");
  EXPECT("size(arr) = 3", "TFNFF");
  EXPECT("size(m) = 0", "FFNTF");
  EXPECT("st IS NULL", "FFTFF");
}

static void test_expr__functions(void **state) {
  fx *f = *state;
  EXPECT("length(s) = 3", "TFNTF"); /* \u00c9t\u00e9: three characters, five bytes */
  EXPECT("length(s) = 6", "FTNFF");
  EXPECT("char_length(s) = 3", "TFNTF");
  EXPECT("lower(s) = 'ann'", "TFNFF");
  EXPECT("upper(s) = '\xc3\x89T\xc3\x89'", "FFNTF");
  EXPECT("lower(s) = '\xc3\xa9t\xc3\xa9'", "FFNTF");
  EXPECT("trim(s) = 'bob'", "FTNFF");
  EXPECT("ltrim(s) = 'bob '", "FTNFF");
  EXPECT("rtrim(s) = '  bob'", "FTNFF");
  EXPECT("substring(s, 2) = 'nn'", "TFNFF");
  EXPECT("substring(s, -2, 1) = 'n'", "TFNFF");
  EXPECT("substr(s, 0, 2) = 'An'", "TFNFF");
  EXPECT("left(s, 1) = 'A'", "TFNFF");
  EXPECT("right(s, 2) = '_c'", "FFNFT");
  EXPECT("concat(s, '-', n) = 'Ann-10'", "TFNFF");
  EXPECT("s || id = 'Ann1'", "TFNFF");
  EXPECT("concat(d, '|', x) = '1.50|0.5'", "TFNFF");
  EXPECT("concat(x) = '1.0E300'", "FFNFT");
  EXPECT("CAST(day AS STRING) = '2024-05-01'", "TFNFF");
  EXPECT("CAST(ts AS STRING) = '2024-05-01 10:30:15.25'", "TFNFF");
  EXPECT("startswith(s, 'A')", "TFNFF");
  EXPECT("endswith(s, ' ')", "FTNFF");
  EXPECT("contains(s, '%')", "FFNFT");
  EXPECT("abs(n) = 7", "FFNFT");
  EXPECT("abs(d) = 2.25", "FTNFF");
  EXPECT("coalesce(n, 42) = 42", "FFTFF");
  EXPECT("coalesce(s, 'none') = 'none'", "FFTFF");
  EXPECT("nvl(d, 0) = 0", "FFTTF");
  EXPECT("nullif(n, 0) IS NULL", "FFTTF");
  EXPECT("if(n > 5, 'big', 'small') = 'big'", "TFFFF");
  EXPECT("isnull(n)", "FFTFF");
  EXPECT("isnotnull(n)", "TTFTT");
  EXPECT("greatest(n, id, 5) = 10", "TFFFF");
  EXPECT("greatest(n, id, 5) = 5", "FTTTF"); /* NULLs are skipped */
  EXPECT("least(n, 2) = -7", "FFFFT");
  EXPECT("year(day) = 2024", "TFNFF");
  EXPECT("month(day) = 2 AND day(day) = 29", "FFNFT");
  EXPECT("hour(ts) = 10 AND minute(ts) = 30 AND second(ts) = 15", "TFNFF");
  EXPECT("CASE WHEN n > 5 THEN 'big' WHEN n > 0 THEN 'small' ELSE 'none' END = 'small'", "FTFFF");
  EXPECT("CASE WHEN n > 5 THEN 1 END IS NULL", "FTTTT");
  EXPECT("CAST(n AS STRING) = '10'", "TFNFF");
  EXPECT("CAST(s AS INT) IS NULL", "TTTTT");
  EXPECT("CAST('12' AS INT) = 12", "TTTTT");
  EXPECT("CAST('' AS DATE) IS NULL", "TTTTT");
  EXPECT("CAST(d AS INT) = -2", "FTNFF"); /* truncated toward zero */
  EXPECT("CAST(d AS DECIMAL(3,1)) = 1.5", "TFNFN");
  EXPECT("CAST(d AS DECIMAL(2,1)) IS NULL", "FFTFT"); /* does not fit: NULL */
  EXPECT("CAST(x AS DECIMAL(4,1)) = -1.5", "FTNNN");  /* NaN, 1e300: NULL */
  EXPECT("CAST(x AS DECIMAL(4,0)) = 1", "TFNNN");     /* 0.5 rounds half up */
  EXPECT("CAST(n AS BOOLEAN)", "TTNFT");
}

static void test_expr__like(void **state) {
  fx *f = *state;
  EXPECT("s LIKE 'A%'", "TFNFF");
  EXPECT("s LIKE '_nn'", "TFNFF");
  EXPECT("s LIKE '%b%'", "FTNFT");
  EXPECT("s NOT LIKE '%b%'", "TFNTF");
  EXPECT("s LIKE 'a\\%b\\_c'", "FFNFT"); /* escaped % and _ */
  EXPECT("s LIKE 'a!%b%' ESCAPE '!'", "FFNFT");
  EXPECT("s LIKE '___'", "TFNTF"); /* characters, not bytes */
  EXPECT("s ILIKE 'ann'", "TFNFF");
  EXPECT("s LIKE '%'", "TTNTT");
}

static void test_expr__spark_dialect(void **state) {
  fx *f = *state;
  /* Spark's stored text: tokens spaced, double-quoted strings, escapes. */
  SPARK("concat ( n , s ) != '10Ann'", "FTNTT");
  SPARK("st . a > 0", "TNNFF");
  SPARK("arr [ 1 ] IS NULL", "FTTFT");
  SPARK("s = \"Ann\"", "TFNFF");
  SPARK("s = 'A' 'nn'", "TFNFF");  /* adjacent strings concatenate */
  SPARK("s = 'a\\%b_c'", "FFNFF"); /* \% stays escaped (for LIKE) */
  SPARK("s LIKE 'a\\%b\\_c'", "FFNFT");
  SPARK("length(s) < 10", "TTNTT");
  SPARK("n < '10'", "FTNTT"); /* a string beside a number is a number */
  SPARK("id > 1L", "FTTTT");
  SPARK("x < 1D", "TTNFF");
  SPARK("d > 1.499", "TFNFT"); /* literals keep their own exact type */
  SPARK("d = 1.5BD", "TFNFF");
  SPARK("day > DATE '2023-12-31'", "TFNFF");
  SPARK("ts < TIMESTAMP '2000-02-29 12:00:00'", "FFNTF");
}

static void test_expr__where_literals_take_the_column_type(void **state) {
  fx *f = *state;
  expect_error(f, EXPR_WHERE, "d = 1.234", INLET_EINVAL,
               "does not fit column \"d\" (decimal(10,2))");
  SPARK("d = 1.234", "FFNFF"); /* Spark: the literal keeps decimal(4,3) */
  expect_error(f, EXPR_WHERE, "n = 'x'", INLET_EINVAL,
               "column 5: literal 'x' does not fit column \"n\" (integer)");
  expect_error(f, EXPR_SPARK, "n = 'x'", INLET_EINVAL, "column 5: literal 'x' is not a number");
  expect_error(f, EXPR_WHERE, "st.a = 'x'", INLET_EINVAL, "does not fit column \"st.a\" (long)");
}

static void test_expr__errors_point_at_the_problem(void **state) {
  fx *f = *state;
  expect_error(f, EXPR_WHERE, "day + 1 > day", INLET_EINVAL,
               "column 1: arithmetic on date is not supported\n  day + 1 > day\n  ^");
  expect_error(f, EXPR_WHERE, "s > day + 0", INLET_EINVAL, "column 5: arithmetic on date");
  expect_error(f, EXPR_WHERE, "day = n", INLET_EINVAL,
               "column 7: cannot compare date with integer\n  day = n\n        ^");
  expect_error(f, EXPR_WHERE, "frob(n) > 1", INLET_EUNSUPPORTED,
               "column 1: unknown function frob()");
  expect_error(f, EXPR_WHERE, "rand() > 0.5", INLET_EUNSUPPORTED, "not deterministic");
  expect_error(f, EXPR_WHERE, "length(s, 2) > 1", INLET_EINVAL,
               "column 1: length() takes 1 argument(s), not 2");
  expect_error(f, EXPR_WHERE, "st.zz = 1", INLET_ENOTFOUND,
               "column 4: \"st\" has no field \"zz\"\n  st.zz = 1\n     ^");
  expect_error(f, EXPR_WHERE, "n[0] = 1", INLET_EINVAL,
               "column 2: cannot subscript a value of type integer");
  expect_error(f, EXPR_WHERE, "st = 1", INLET_EUNSUPPORTED,
               "column \"st\" is nested and cannot be compared");
  expect_error(f, EXPR_WHERE, "CAST(n AS frob) = 1", INLET_EUNSUPPORTED,
               "cannot cast to type \"frob\"");
  expect_error(f, EXPR_WHERE, "CAST(day AS INT) = 1", INLET_EUNSUPPORTED,
               "cannot convert date to integer");
  expect_error(f, EXPR_WHERE, "n + 1", INLET_EINVAL,
               "column 6: expected a comparison, IN, BETWEEN or IS [NOT] NULL, found the end");
  expect_error(f, EXPR_WHERE, "CASE WHEN n THEN 1 END = 1", INLET_EINVAL,
               "column 11: a WHEN condition must be a boolean, not integer");
  expect_error(f, EXPR_SPARK, "if(b, 1, day) = 1", INLET_EINVAL, "if mixes integer and date");
  expect_error(f, EXPR_WHERE, "s RLIKE 'a.*'", INLET_EUNSUPPORTED, "RLIKE");
  expect_error(f, EXPR_SPARK, "n = 1e", INLET_EINVAL, "column 5: malformed number 1e");
  expect_error(f, EXPR_WHERE, "n = 1e", INLET_EINVAL, "literal 1e does not fit column \"n\"");
  expect_error(f, EXPR_SPARK, "n = 10Q", INLET_EINVAL, "column 5: malformed number 10Q");
  expect_error(f, EXPR_WHERE, "n = (1", INLET_EINVAL, "column 5: unclosed parenthesis");
  expect_error(f, EXPR_WHERE, "length(s", INLET_EINVAL, "column 9: expected ',' or ')'");
  expect_error(f, EXPR_SPARK, "s = \"abc", INLET_EINVAL, "column 5: unterminated quote");
  /* Long operator chains make deep trees: bounded, never a stack overflow. */
  size_t cap = 3 * 2100 + 16;
  char *chain = malloc(cap);
  size_t k = (size_t)snprintf(chain, cap, "n");
  for (int i = 0; i < 2100; i++)
    k += (size_t)snprintf(chain + k, cap - k, "+1");
  snprintf(chain + k, cap - k, " > 0");
  expect_error(f, EXPR_WHERE, chain, INLET_ELIMIT, "nested too deeply");
  k = (size_t)snprintf(chain, cap, "n");
  for (int i = 0; i < 1500; i++)
    k += (size_t)snprintf(chain + k, cap - k, "+1");
  snprintf(chain + k, cap - k, " = 1510");
  EXPECT(chain, "TFNFF");
  free(chain);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_expr__arithmetic_follows_spark_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_expr__column_comparisons_and_promotion, setup, teardown),
      cmocka_unit_test_setup_teardown(test_expr__nested_fields_and_subscripts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_expr__functions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_expr__like, setup, teardown),
      cmocka_unit_test_setup_teardown(test_expr__spark_dialect, setup, teardown),
      cmocka_unit_test_setup_teardown(test_expr__where_literals_take_the_column_type, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_expr__errors_point_at_the_problem, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
