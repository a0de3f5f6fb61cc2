/*
 * Unit tests for text export (src/batch/text_format.c, text_writer.c): the
 * canonical value encoding of shared/tools/refcheck/README.md checked
 * against strings derived by hand, and the NDJSON/CSV/table writers.
 */
#include <math.h>
#include <stdio.h>

#include "testutil.h"

#include "batch/text_int.h"
#include "inlet/text.h"

/* Builds a one-column batch and returns the canonical JSON of row 0. */
typedef struct one {
  inlet_schema s;
  inlet_array a;
  char out[256];
} one;

static void one_init(one *o, const char *ddl) {
  assert_int_equal(inlet_schema_parse(&o->s, ddl, NULL), 0);
  assert_int_equal(inlet_array_init(&o->a, &o->s.fields[0], NULL), 0);
}
static const char *one_fmt(one *o, int64_t row, bool json) {
  inlet_text_format_value(o->out, sizeof o->out, &o->a, &o->s.fields[0], row, json);
  return o->out;
}
static void one_reset(one *o) {
  inlet_array_reset(&o->a);
  inlet_schema_reset(&o->s);
}

static const char *dbl(double v) {
  static char out[40];
  text_format_double(out, v);
  return out;
}

static void test_format__double_shortest_round_trip(void **state) {
  (void)state;
  assert_string_equal(dbl(1.1), "1.1");
  assert_string_equal(dbl(0.1 + 0.2), "0.30000000000000004");
  assert_string_equal(dbl(-0.0), "0");
  assert_string_equal(dbl(100), "100");
  assert_string_equal(dbl(1e21), "1e+21");
  assert_string_equal(dbl(1e20), "100000000000000000000");
  assert_string_equal(dbl(1.5e-7), "1.5e-7");
  assert_string_equal(dbl(0.000001), "0.000001");
  assert_string_equal(dbl(123.456), "123.456");
  assert_string_equal(dbl(5e-324), "5e-324");
  assert_string_equal(dbl(1.7976931348623157e308), "1.7976931348623157e+308");
  assert_string_equal(dbl(-2.5), "-2.5");
  /* float 0.234 widened: 0.234f = 15703474 * 2^-26 = 0.2339999973773956298828125 */
  assert_string_equal(dbl((double)0.234f), "0.23399999737739563");
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void test_format__double_forms_read_back_exactly(void **state) {
  (void)state;
  char want[40];
  for (int i = 0; i < 100000; i++) {
    /* Cents: the expected text is built from the integer, trailing zeros cut. */
    long long c = (long long)(rnd() % 100000000000ull);
    double v = (double)c / 100.0;
    if (c % 100 == 0)
      snprintf(want, sizeof want, "%lld", c / 100);
    else if (c % 10 == 0)
      snprintf(want, sizeof want, "%lld.%lld", c / 100, (c % 100) / 10);
    else
      snprintf(want, sizeof want, "%lld.%02lld", c / 100, c % 100);
    if (strcmp(dbl(v), want) != 0) fail_msg("%lld cents: got %s want %s", c, dbl(v), want);
    /* Arbitrary bit patterns: the text reads back to the same double. */
    uint64_t bits = rnd();
    double x;
    memcpy(&x, &bits, 8);
    if (isnan(x) || isinf(x)) continue;
    const char *t = dbl(x);
    if (strtod(t, NULL) != x && x != 0) fail_msg("%a printed as %s", x, t);
    if (strlen(t) > 25) fail_msg("%a printed too long: %s", x, t);
  }
}

static void test_format__integers_beyond_2_53_are_strings(void **state) {
  (void)state;
  one o;
  one_init(&o, "x long");
  int64_t v[] = {9007199254740992LL, 9007199254740993LL, -9007199254740993LL, INT64_MIN, 42};
  for (int i = 0; i < 5; i++)
    assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], v[i], NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "9007199254740992");
  assert_string_equal(one_fmt(&o, 1, true), "\"9007199254740993\"");
  assert_string_equal(one_fmt(&o, 2, true), "\"-9007199254740993\"");
  assert_string_equal(one_fmt(&o, 3, true), "\"-9223372036854775808\"");
  assert_string_equal(one_fmt(&o, 1, false), "9007199254740993");
  assert_string_equal(one_fmt(&o, 4, true), "42");
  one_reset(&o);
  one_init(&o, "x uint64");
  assert_int_equal(inlet_array_append_uint64(&o.a, UINT64_MAX, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"18446744073709551615\"");
  one_reset(&o);
  one_init(&o, "x uint32");
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], (int64_t)UINT32_MAX, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "4294967295");
  one_reset(&o);
}

static void test_format__floats_and_specials(void **state) {
  (void)state;
  one o;
  one_init(&o, "x float");
  float v[] = {0.234f, NAN, INFINITY, -INFINITY, -0.0f};
  for (int i = 0; i < 5; i++)
    assert_int_equal(inlet_array_append_float(&o.a, v[i], NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "0.23399999737739563");
  assert_string_equal(one_fmt(&o, 1, true), "\"NaN\"");
  assert_string_equal(one_fmt(&o, 2, true), "\"Infinity\"");
  assert_string_equal(one_fmt(&o, 3, true), "\"-Infinity\"");
  assert_string_equal(one_fmt(&o, 3, false), "-Infinity");
  assert_string_equal(one_fmt(&o, 4, true), "0");
  one_reset(&o);
}

static void append_dec(one *o, int64_t v) {
  uint8_t le[16];
  inlet_i128 x = v;
  for (int i = 0; i < 16; i++)
    le[i] = (uint8_t)((unsigned __int128)x >> (8 * i));
  assert_int_equal(inlet_array_append_decimal(&o->a, le, NULL), 0);
}

static void test_format__decimals_have_exactly_scale_digits(void **state) {
  (void)state;
  one o;
  one_init(&o, "x decimal(5,2)");
  append_dec(&o, -12345);
  append_dec(&o, 5);
  append_dec(&o, 0);
  append_dec(&o, -1);
  assert_string_equal(one_fmt(&o, 0, true), "\"-123.45\"");
  assert_string_equal(one_fmt(&o, 1, true), "\"0.05\"");
  assert_string_equal(one_fmt(&o, 2, true), "\"0.00\"");
  assert_string_equal(one_fmt(&o, 3, false), "-0.01");
  one_reset(&o);
  one_init(&o, "x decimal(38,0)");
  uint8_t max[16];
  /* 10^38 - 1 = 0x4B3B4CA85A86C47A098A223FFFFFFFFF */
  const char *hex = "4b3b4ca85a86c47a098a223fffffffff";
  for (int i = 0; i < 16; i++) {
    unsigned x;
    sscanf(hex + 2 * (15 - i), "%2x", &x);
    max[i] = (uint8_t)x;
  }
  assert_int_equal(inlet_array_append_decimal(&o.a, max, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"99999999999999999999999999999999999999\"");
  one_reset(&o);
}

static void test_format__dates_times_timestamps(void **state) {
  (void)state;
  one o;
  one_init(&o, "x timestamp");
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], 0, NULL), 0);
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], -1, NULL), 0);
  /* 2021-09-08T11:11:11Z = 1631099471 s */
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], 1631099471000000LL, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"1970-01-01T00:00:00.000000Z\"");
  assert_string_equal(one_fmt(&o, 1, true), "\"1969-12-31T23:59:59.999999Z\"");
  assert_string_equal(one_fmt(&o, 2, false), "2021-09-08T11:11:11.000000Z");
  one_reset(&o);
  one_init(&o, "x timestamp_ntz_ns");
  /* 2024-01-02T03:04:05.123456789: day 19724 */
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0],
                                          (19724LL * 86400 + 11045) * 1000000000 + 123456789, NULL),
                   0);
  assert_string_equal(one_fmt(&o, 0, true), "\"2024-01-02T03:04:05.123456789\"");
  one_reset(&o);
  /* UTC nanoseconds print as DuckDB's TIMESTAMPTZ does: cut (floored) to micros. */
  one_init(&o, "x timestamp_ns");
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], 1999, NULL), 0);
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], -1, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"1970-01-01T00:00:00.000001Z\"");
  assert_string_equal(one_fmt(&o, 1, true), "\"1969-12-31T23:59:59.999999Z\"");
  one_reset(&o);
  one_init(&o, "x timestamp_ntz_ms");
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], 1500, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"1970-01-01T00:00:01.500000\"");
  one_reset(&o);
  one_init(&o, "x date");
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], 18878, NULL), 0);
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], -719528, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"2021-09-08\"");
  assert_string_equal(one_fmt(&o, 1, true), "\"0000-01-01\"");
  one_reset(&o);
  one_init(&o, "x time_ms");
  /* 12:34:56.789 = 45296789 ms */
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], 45296789, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"12:34:56.789000\"");
  one_reset(&o);
  one_init(&o, "x time_ns");
  assert_int_equal(inlet_array_append_int(&o.a, &o.s.fields[0], 1, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"00:00:00.000000001\"");
  one_reset(&o);
}

static void test_format__binary_uuid_strings(void **state) {
  (void)state;
  one o;
  one_init(&o, "x binary");
  assert_int_equal(inlet_array_append_bytes(&o.a, &o.s.fields[0], "\x00\xff\x10", 3, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"00ff10\"");
  one_reset(&o);
  one_init(&o, "x uuid");
  const uint8_t u[16] = {0x5f, 0x1c, 0x2e, 0x3a, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0xab, 0xcd};
  assert_int_equal(inlet_array_append_bytes(&o.a, &o.s.fields[0], u, 16, NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"5f1c2e3a-0000-4000-8000-00000000abcd\"");
  one_reset(&o);
  one_init(&o, "x string");
  assert_int_equal(inlet_array_append_bytes(&o.a, &o.s.fields[0], "a\"b\\\x01\xc3\xa9", 7, NULL),
                   0);
  assert_int_equal(inlet_array_append_null(&o.a, &o.s.fields[0], NULL), 0);
  assert_string_equal(one_fmt(&o, 0, true), "\"a\\\"b\\\\\\u0001\xc3\xa9\"");
  assert_string_equal(one_fmt(&o, 1, true), "null");
  assert_string_equal(one_fmt(&o, 1, false), "");
  one_reset(&o);
}

/* ---- writers --------------------------------------------------------------- */

static int buf_write(void *ctx, const void *data, size_t len, inlet_error *err) {
  (void)err;
  return inlet_buf_append(ctx, data, len);
}

static char *write_all(const char *ddl, const char *ndjson, inlet_text_format fmt,
                       int64_t align_rows) {
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, ddl, NULL), 0);
  inlet_text_reader *r;
  assert_int_equal(inlet_text_reader_open_memory(&r, ndjson, strlen(ndjson), &s, NULL, NULL), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_text_reader_next(r, &b, &err), 0);
  inlet_text_writer_options o = INLET_TEXT_WRITER_OPTIONS_INIT;
  o.format = fmt;
  o.table_align_rows = align_rows;
  o.table_max_width = 10;
  inlet_buf out = INLET_BUF_INIT;
  inlet_text_writer *w;
  assert_int_equal(inlet_text_writer_new(&w, &s, &o, buf_write, &out, NULL), 0);
  if (inlet_text_writer_write(w, &b, &err)) fail_msg("%s", inlet_errmsg(&err));
  assert_int_equal(inlet_text_writer_finish(w, &err), 0);
  inlet_text_writer_free(w);
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  inlet_schema_reset(&s);
  inlet_buf_terminate(&out);
  return (char *)inlet_buf_detach(&out, NULL);
}

/* A TABLE of one string column written with options @p version and
 * table_terminal_width @p term. */
static char *write_term(const char *ndjson, int version, int32_t term) {
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "s string", NULL), 0);
  inlet_text_reader *r;
  assert_int_equal(inlet_text_reader_open_memory(&r, ndjson, strlen(ndjson), &s, NULL, NULL), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_text_reader_next(r, &b, &err), 0);
  inlet_text_writer_options o = INLET_TEXT_WRITER_OPTIONS_INIT;
  o.version = version;
  o.format = INLET_TEXT_TABLE;
  o.table_max_width = 10;
  o.table_terminal_width = term;
  inlet_buf out = INLET_BUF_INIT;
  inlet_text_writer *w;
  assert_int_equal(inlet_text_writer_new(&w, &s, &o, buf_write, &out, NULL), 0);
  if (inlet_text_writer_write(w, &b, &err)) fail_msg("%s", inlet_errmsg(&err));
  assert_int_equal(inlet_text_writer_finish(w, &err), 0);
  inlet_text_writer_free(w);
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  inlet_schema_reset(&s);
  inlet_buf_terminate(&out);
  return (char *)inlet_buf_detach(&out, NULL);
}

/* Terminal tables count display columns (CJK two) and cut between
 * characters: at 7 columns "ab日本" (6) + "…"; null is "∅". A version-1
 * options struct ends before table_terminal_width, so the 7 there is not
 * read: the 10-column value fits table_max_width, null is NULL. */
static void test_writer__table_terminal_display_width(void **state) {
  (void)state;
  const char *rows = "{\"s\":\"ab日本語cd\"}\n{\"s\":null}\n";
  char *t = write_term(rows, 2, 7);
  assert_string_equal(t, "s\n-------\nab日本…\n∅\n");
  inlet_free(t);
  t = write_term(rows, 1, 7);
  assert_string_equal(t, "s\n----------\nab日本語cd\nNULL\n");
  inlet_free(t);
}

static void test_writer__ndjson_rows_keyed_by_name(void **state) {
  (void)state;
  char *s = write_all("id long, name string, m map<string,int>",
                      "{\"id\":9007199254740993,\"name\":\"a\",\"m\":{\"b\":1,\"a\":2}}\n"
                      "{\"id\":1}\n",
                      INLET_TEXT_NDJSON, 1000);
  assert_string_equal(s,
                      "{\"id\":\"9007199254740993\",\"name\":\"a\",\"m\":[[\"a\",2],[\"b\",1]]}\n"
                      "{\"id\":1,\"name\":null,\"m\":null}\n");
  inlet_free(s);
}

static void test_writer__csv_quotes_when_needed(void **state) {
  (void)state;
  char *s = write_all("id int, name string, l array<int>",
                      "{\"id\":1,\"name\":\"x,y\",\"l\":[1,2]}\n"
                      "{\"id\":2,\"name\":\"say \\\"hi\\\"\\n\"}\n"
                      "{\"id\":3,\"name\":\"\"}\n",
                      INLET_TEXT_CSV, 1000);
  assert_string_equal(s, "id,name,l\n"
                         "1,\"x,y\",\"[1,2]\"\n"
                         "2,\"say \"\"hi\"\"\n\",\n"
                         "3,\"\",\n");
  inlet_free(s);
}

static void test_writer__csv_header_for_empty_output(void **state) {
  (void)state;
  char *s = write_all("a int, b string", "", INLET_TEXT_CSV, 1000);
  assert_string_equal(s, "a,b\n");
  inlet_free(s);
}

static void test_writer__table_aligns_and_cuts(void **state) {
  (void)state;
  const char *in = "{\"id\":1,\"name\":\"ab\"}\n"
                   "{\"id\":100,\"name\":\"a long name here\"}\n"
                   "{\"id\":7}\n";
  char *s = write_all("id int, name string", in, INLET_TEXT_TABLE, 1000);
  assert_string_equal(s, "id  | name\n"
                         "----+-----------\n"
                         "  1 | ab\n"
                         "100 | a long ...\n"
                         "  7 | NULL\n");
  inlet_free(s);
  /* Widths fixed after the first row: later rows reuse them. */
  s = write_all("id int, name string", in, INLET_TEXT_TABLE, 1);
  assert_string_equal(s, "id | name\n"
                         "---+-----\n"
                         " 1 | ab\n"
                         "100 | a long ...\n"
                         " 7 | NULL\n");
  inlet_free(s);
}

/* Writes @p ndjson read in batches of @p batch_rows in @p fmt, either whole
 * (each batch through inlet_text_writer_write) or, with @p parts, each batch
 * formatted alone by a rows_only writer and placed by write_part (with
 * @p by_row, each row of it alone through inlet_text_writer_write_rows). */
static char *write_batches_by(const char *ndjson, inlet_text_format fmt, int64_t batch_rows,
                              bool parts, bool by_row) {
  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long, name string, l array<int>", NULL), 0);
  inlet_text_reader_options ro = INLET_TEXT_READER_OPTIONS_INIT;
  ro.max_batch_rows = batch_rows;
  inlet_text_reader *r;
  assert_int_equal(inlet_text_reader_open_memory(&r, ndjson, strlen(ndjson), &s, &ro, NULL), 0);
  inlet_text_writer_options o = INLET_TEXT_WRITER_OPTIONS_INIT;
  o.format = fmt;
  inlet_buf out = INLET_BUF_INIT, part = INLET_BUF_INIT;
  inlet_text_writer *w, *pw = NULL;
  assert_int_equal(inlet_text_writer_new(&w, &s, &o, buf_write, &out, NULL), 0);
  o.rows_only = true;
  assert_int_equal(inlet_text_writer_new(&pw, &s, &o, buf_write, &part, NULL), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  inlet_error err = INLET_ERROR_INIT;
  for (;;) {
    assert_int_equal(inlet_text_reader_next(r, &b, &err), 0);
    if (b.num_rows == 0) break;
    if (!parts) {
      assert_int_equal(inlet_text_writer_write(w, &b, &err), 0);
      continue;
    }
    for (int64_t row = 0; row < (by_row ? b.num_rows : 1); row++) {
      inlet_buf_clear(&part);
      if (by_row)
        assert_int_equal(inlet_text_writer_write_rows(pw, &b, row, 1, &err), 0);
      else
        assert_int_equal(inlet_text_writer_write(pw, &b, &err), 0);
      assert_int_equal(inlet_text_writer_finish(pw, &err), 0); /* writes nothing */
      int64_t rows = by_row ? 1 : b.num_rows;
      assert_int_equal(inlet_text_writer_write_part(w, part.data, part.len, rows, &err), 0);
    }
    /* Rows outside the batch are refused. */
    assert_int_equal(inlet_text_writer_write_rows(pw, &b, b.num_rows, 1, &err), INLET_EINVAL);
  }
  assert_int_equal(inlet_text_writer_finish(w, &err), 0);
  inlet_text_writer_free(w);
  inlet_text_writer_free(pw);
  inlet_buf_reset(&part);
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  inlet_schema_reset(&s);
  inlet_buf_terminate(&out);
  return (char *)inlet_buf_detach(&out, NULL);
}

static char *write_batches(const char *ndjson, inlet_text_format fmt, int64_t batch_rows,
                           bool parts) {
  return write_batches_by(ndjson, fmt, batch_rows, parts, false);
}

/* Batches, or single rows of them, formatted alone (rows_only, as on several
 * threads) and placed by write_part give the bytes of one writer: CSV and Markdown headers once,
 * JSON separators between parts, empty outputs alike. TABLE, whose widths
 * depend on earlier rows, refuses both. */
static void test_writer__parts_join_to_the_whole(void **state) {
  (void)state;
  const char *in = "{\"id\":1,\"name\":\"x,y\",\"l\":[1,2]}\n"
                   "{\"id\":2,\"name\":\"say \\\"hi\\\"\\n|\"}\n"
                   "{\"id\":3,\"name\":\"\"}\n"
                   "{\"id\":4}\n"
                   "{\"id\":5,\"name\":\"e\",\"l\":[]}\n";
  const inlet_text_format fmts[] = {INLET_TEXT_NDJSON, INLET_TEXT_CSV, INLET_TEXT_JSON,
                                    INLET_TEXT_MARKDOWN};
  for (size_t f = 0; f < sizeof fmts / sizeof *fmts; f++) {
    char *whole = write_batches(in, fmts[f], 1000, false);
    assert_true(strlen(whole) > 40);
    for (int64_t rows = 1; rows <= 3; rows++) {
      char *joined = write_batches(in, fmts[f], rows, true);
      assert_string_equal(joined, whole);
      inlet_free(joined);
      joined = write_batches_by(in, fmts[f], rows, true, true);
      assert_string_equal(joined, whole);
      inlet_free(joined);
    }
    inlet_free(whole);
    whole = write_batches("", fmts[f], 1000, false);
    char *joined = write_batches("", fmts[f], 1, true);
    assert_string_equal(joined, whole);
    inlet_free(joined);
    inlet_free(whole);
  }
  char *json = write_batches(in, INLET_TEXT_JSON, 2, true);
  assert_non_null(strstr(json, "[\n{\"id\":1,"));
  assert_non_null(strstr(json, "},\n{\"id\":3,"));
  inlet_free(json);

  inlet_schema s;
  assert_int_equal(inlet_schema_parse(&s, "id long", NULL), 0);
  inlet_buf out = INLET_BUF_INIT;
  inlet_text_writer_options o = INLET_TEXT_WRITER_OPTIONS_INIT;
  o.format = INLET_TEXT_TABLE;
  o.rows_only = true;
  inlet_text_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_text_writer_new(&w, &s, &o, buf_write, &out, &err), INLET_EINVAL);
  assert_null(w);
  o.rows_only = false;
  assert_int_equal(inlet_text_writer_new(&w, &s, &o, buf_write, &out, &err), 0);
  assert_int_equal(inlet_text_writer_write_part(w, "1\n", 2, 1, &err), INLET_EINVAL);
  inlet_text_writer_free(w);
  /* A version-2 struct ends before rows_only: whatever follows is not read. */
  o.format = INLET_TEXT_CSV;
  o.version = 2;
  o.rows_only = true;
  assert_int_equal(inlet_text_writer_new(&w, &s, &o, buf_write, &out, &err), 0);
  assert_int_equal(inlet_text_writer_finish(w, &err), 0);
  inlet_text_writer_free(w);
  inlet_buf_terminate(&out);
  assert_string_equal((const char *)out.data, "id\n");
  inlet_buf_reset(&out);
  inlet_schema_reset(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format__double_shortest_round_trip),
      cmocka_unit_test(test_format__double_forms_read_back_exactly),
      cmocka_unit_test(test_format__integers_beyond_2_53_are_strings),
      cmocka_unit_test(test_format__floats_and_specials),
      cmocka_unit_test(test_format__decimals_have_exactly_scale_digits),
      cmocka_unit_test(test_format__dates_times_timestamps),
      cmocka_unit_test(test_format__binary_uuid_strings),
      cmocka_unit_test(test_writer__ndjson_rows_keyed_by_name),
      cmocka_unit_test(test_writer__csv_quotes_when_needed),
      cmocka_unit_test(test_writer__csv_header_for_empty_output),
      cmocka_unit_test(test_writer__table_aligns_and_cuts),
      cmocka_unit_test(test_writer__table_terminal_display_width),
      cmocka_unit_test(test_writer__parts_join_to_the_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
