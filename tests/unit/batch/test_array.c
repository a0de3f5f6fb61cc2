/*
 * Unit tests for src/batch/array.c: the Arrow-layout builders (bit order,
 * offsets, lazily created validity), nested appends, batch validation and
 * clean failure under allocation faults.
 */
#include "testutil.h"

#include "batch/batch.h"
#include "inlet/batch.h"
#include "inlet/text.h"
#include "util/util.h"

static void parse(inlet_schema *s, const char *ddl) {
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_schema_parse(s, ddl, &err) != 0) fail_msg("%s", inlet_errmsg(&err));
}

static void test_array__bool_bits_are_lsb_first(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "b boolean");
  inlet_array a;
  assert_int_equal(inlet_array_init(&a, &s.fields[0], NULL), 0);
  bool v[10] = {true, false, true, true, false, false, false, false, false, true};
  for (int i = 0; i < 10; i++)
    assert_int_equal(inlet_array_append_bool(&a, v[i], NULL), 0);
  assert_int_equal(a.length, 10);
  assert_null(a.validity);
  assert_int_equal(a.values[0], 0x0d); /* bits 0, 2, 3 */
  assert_int_equal(a.values[1] & 0x03, 0x02);
  inlet_array_reset(&a);
  inlet_schema_reset(&s);
}

static void test_array__validity_appears_with_first_null(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "x int");
  inlet_array a;
  assert_int_equal(inlet_array_init(&a, &s.fields[0], NULL), 0);
  for (int i = 0; i < 9; i++)
    assert_int_equal(inlet_array_append_int(&a, &s.fields[0], i * 100, NULL), 0);
  assert_null(a.validity);
  assert_int_equal(inlet_array_append_null(&a, &s.fields[0], NULL), 0);
  assert_int_equal(inlet_array_append_int(&a, &s.fields[0], -7, NULL), 0);
  assert_non_null(a.validity);
  assert_int_equal(a.length, 11);
  assert_int_equal(a.null_count, 1);
  assert_int_equal(a.validity[0], 0xff);
  assert_int_equal(a.validity[1] & 0x07, 0x05); /* rows 8 valid, 9 null, 10 valid */
  const int32_t *v = (const int32_t *)a.values;
  assert_int_equal(v[8], 800);
  assert_int_equal(v[9], 0);
  assert_int_equal(v[10], -7);
  assert_true(inlet_array_is_valid(&a, 8));
  assert_false(inlet_array_is_valid(&a, 9));
  inlet_array_clear(&a);
  assert_int_equal(a.length, 0);
  assert_null(a.validity);
  assert_int_equal(inlet_array_append_int(&a, &s.fields[0], 5, NULL), 0);
  assert_int_equal(((const int32_t *)a.values)[0], 5);
  inlet_array_reset(&a);
  inlet_schema_reset(&s);
}

static void test_array__int_widths_truncate(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "a byte, b short, c long, d date");
  inlet_array a[4];
  for (int i = 0; i < 4; i++) {
    assert_int_equal(inlet_array_init(&a[i], &s.fields[i], NULL), 0);
    assert_int_equal(inlet_array_append_int(&a[i], &s.fields[i], -2, NULL), 0);
  }
  assert_int_equal(((int8_t *)a[0].values)[0], -2);
  assert_int_equal(((int16_t *)a[1].values)[0], -2);
  assert_int_equal(((int64_t *)a[2].values)[0], -2);
  assert_int_equal(((int32_t *)a[3].values)[0], -2);
  for (int i = 0; i < 4; i++)
    inlet_array_reset(&a[i]);
  inlet_schema_reset(&s);
}

static void test_array__strings_build_offsets(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "s string, f fixed(2)");
  inlet_array a, f;
  assert_int_equal(inlet_array_init(&a, &s.fields[0], NULL), 0);
  assert_int_equal(a.offsets[0], 0);
  assert_int_equal(inlet_array_append_bytes(&a, &s.fields[0], "ab", 2, NULL), 0);
  assert_int_equal(inlet_array_append_null(&a, &s.fields[0], NULL), 0);
  assert_int_equal(inlet_array_append_bytes(&a, &s.fields[0], "", 0, NULL), 0);
  assert_int_equal(inlet_array_append_bytes(&a, &s.fields[0], "xyz", 3, NULL), 0);
  int32_t want[] = {0, 2, 2, 2, 5};
  assert_memory_equal(a.offsets, want, sizeof want);
  assert_memory_equal(a.values, "abxyz", 5);
  assert_int_equal(inlet_array_init(&f, &s.fields[1], NULL), 0);
  assert_int_equal(inlet_array_append_bytes(&f, &s.fields[1], "\x01\x02", 2, NULL), 0);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_array_append_bytes(&f, &s.fields[1], "\x01", 1, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "\"f\""));
  assert_int_equal(f.length, 1);
  inlet_array_reset(&a);
  inlet_array_reset(&f);
  inlet_schema_reset(&s);
}

static void test_array__list_and_struct_entries(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "l array<int>, st struct<a:long not null, b:string>");
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, NULL), 0);
  inlet_array *l = &b.columns[0], *st = &b.columns[1];
  const inlet_field *lf = &b.schema.fields[0], *sf = &b.schema.fields[1];
  /* row 0: [1, 2]; row 1: null; row 2: [] */
  assert_int_equal(inlet_array_append_int(&l->children[0], &lf->children[0], 1, NULL), 0);
  assert_int_equal(inlet_array_append_int(&l->children[0], &lf->children[0], 2, NULL), 0);
  assert_int_equal(inlet_array_append_list_entry(l, NULL), 0);
  assert_int_equal(inlet_array_append_null(l, lf, NULL), 0);
  assert_int_equal(inlet_array_append_list_entry(l, NULL), 0);
  int32_t want[] = {0, 2, 2, 2};
  assert_memory_equal(l->offsets, want, sizeof want);
  /* struct rows: {7,"x"}, null, {8,null} */
  assert_int_equal(inlet_array_append_int(&st->children[0], &sf->children[0], 7, NULL), 0);
  assert_int_equal(inlet_array_append_bytes(&st->children[1], &sf->children[1], "x", 1, NULL), 0);
  assert_int_equal(inlet_array_append_struct_entry(st, NULL), 0);
  assert_int_equal(inlet_array_append_null(st, sf, NULL), 0);
  assert_int_equal(inlet_array_append_int(&st->children[0], &sf->children[0], 8, NULL), 0);
  assert_int_equal(inlet_array_append_null(&st->children[1], &sf->children[1], NULL), 0);
  assert_int_equal(inlet_array_append_struct_entry(st, NULL), 0);
  assert_int_equal(st->children[0].length, 3);
  assert_null(st->children[0].validity); /* NOT NULL child got a placeholder */
  assert_int_equal(st->children[1].null_count, 2);
  b.num_rows = 3;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_batch_validate(&b, &err) != 0) fail_msg("%s", inlet_errmsg(&err));
  assert_true(inlet_batch_memory(&b) > 0);
  inlet_batch_clear(&b);
  assert_int_equal(b.num_rows, 0);
  assert_int_equal(st->children[0].length, 0);
  assert_int_equal(inlet_batch_validate(&b, NULL), 0);
  inlet_batch_reset(&b);
  inlet_schema_reset(&s);
}

static void test_batch__validate_rejects_inconsistent_columns(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "id long not null, s string");
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, NULL), 0);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(inlet_array_append_int(&b.columns[0], &s.fields[0], i, NULL), 0);
    assert_int_equal(inlet_array_append_bytes(&b.columns[1], &s.fields[1], "abc", 3, NULL), 0);
  }
  b.num_rows = 3;
  assert_int_equal(inlet_batch_validate(&b, NULL), 0);
  inlet_error err = INLET_ERROR_INIT;
  b.num_rows = 4;
  assert_int_equal(inlet_batch_validate(&b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "length 3, expected 4"));
  b.num_rows = 3;
  b.columns[1].offsets[2] = 1; /* decreasing */
  assert_int_equal(inlet_batch_validate(&b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "offsets decrease at row 1"));
  b.columns[1].offsets[2] = 6;
  b.columns[1].offsets[3] = 1 << 20; /* past the data */
  assert_int_equal(inlet_batch_validate(&b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "past the data buffer"));
  b.columns[1].offsets[3] = 9;
  b.columns[0].null_count = 1;
  assert_int_equal(inlet_batch_validate(&b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "without a validity bitmap"));
  b.columns[0].null_count = 0;
  assert_int_equal(inlet_array_append_null(&b.columns[0], &s.fields[0], NULL), 0);
  assert_int_equal(inlet_array_append_null(&b.columns[1], &s.fields[1], NULL), 0);
  b.num_rows = 4;
  assert_int_equal(inlet_batch_validate(&b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "NOT NULL column"));
  inlet_batch_reset(&b);
  inlet_schema_reset(&s);
}

static void test_array__reserve_then_direct_write(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "x double, s binary");
  inlet_array a, t;
  assert_int_equal(inlet_array_init(&a, &s.fields[0], NULL), 0);
  assert_int_equal(inlet_array_reserve_rows(&a, &s.fields[0], 1000, NULL), 0);
  assert_true(batch_values_cap(&a) >= 8000);
  assert_int_equal(inlet_array_ensure_validity(&a, NULL), 0);
  assert_true(batch_validity_cap(&a) >= 125);
  double *v = (double *)a.values;
  /* Bits past length start cleared: the decoder sets the valid ones. */
  assert_int_equal(a.validity[100], 0);
  for (int i = 0; i < 1000; i++) {
    v[i] = i * 0.5;
    inlet_bit_set(a.validity, i, i != 3);
  }
  a.length = 1000;
  a.null_count = 1;
  assert_false(inlet_array_is_valid(&a, 3));
  assert_true(inlet_array_is_valid(&a, 999));
  assert_int_equal(inlet_array_init(&t, &s.fields[1], NULL), 0);
  assert_int_equal(inlet_array_reserve_data(&t, 100, NULL), 0);
  assert_true(batch_values_cap(&t) >= 100);
  assert_int_equal(inlet_array_reserve_rows(&t, &s.fields[1], 10, NULL), 0);
  assert_true(batch_offsets_cap(&t) >= 44);
  assert_int_equal(inlet_array_reserve_rows(&t, &s.fields[1], -1, NULL), INLET_ELIMIT);
  inlet_array_reset(&a);
  inlet_array_reset(&t);
  inlet_schema_reset(&s);
}

/* The builder's bookkeeping is private but travels with the array: a moved
 * array (struct copy, as scans and compaction move columns) keeps growing in
 * place, and a hand-assembled view (no builder) reads as having no spare
 * room, so validation cannot be fooled into trusting its buffers' sizes. */
static void test_array__builder_moves_with_the_view(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "x long");
  inlet_array a;
  assert_int_equal(inlet_array_init(&a, &s.fields[0], NULL), 0);
  assert_null(a.builder); /* nothing grown yet */
  assert_int_equal(inlet_array_reserve_rows(&a, &s.fields[0], 64, NULL), 0);
  assert_non_null(a.builder);
  assert_true(batch_values_cap(&a) >= 64 * 8);
  for (int i = 0; i < 10; i++)
    assert_int_equal(inlet_array_append_int(&a, &s.fields[0], i, NULL), 0);
  uint8_t *before = a.values;
  inlet_array moved = a;
  memset(&a, 0, sizeof a);
  for (int i = 10; i < 64; i++)
    assert_int_equal(inlet_array_append_int(&moved, &s.fields[0], i, NULL), 0);
  assert_ptr_equal(moved.values, before); /* the reserved room was used, not regrown */
  for (int i = 0; i < 64; i++)
    assert_int_equal(((int64_t *)moved.values)[i], i);
  inlet_array_reset(&moved);
  assert_null(moved.builder);

  int64_t vals[3] = {1, 2, 3};
  inlet_array view;
  memset(&view, 0, sizeof view);
  view.length = 3;
  view.values = (uint8_t *)vals;
  assert_int_equal(batch_values_cap(&view), 0);
  inlet_batch b = {.num_rows = 3, .columns = &view};
  b.schema = s;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_batch_validate(&b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "values buffer too short"));
  inlet_schema_reset(&s);
}

static void test_batch__init_survives_allocation_failures(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "a int, b string, c array<map<string,long>>, d struct<x:boolean>");
  bool done = false;
  for (long n = 0; n < 200 && !done; n++) {
    inlet_batch b;
    inlet_alloc_fail_after(n);
    int rc = inlet_batch_init(&b, &s, NULL);
    if (rc == 0) {
      rc = inlet_array_append_null(&b.columns[2], &b.schema.fields[2], NULL);
      if (rc == 0) rc = inlet_array_append_bytes(&b.columns[1], &b.schema.fields[1], "q", 1, NULL);
      done = rc == 0;
      inlet_alloc_fail_after(-1);
      inlet_batch_reset(&b);
    }
    inlet_alloc_fail_after(-1);
    if (!done) assert_int_equal(rc, INLET_ENOMEM);
  }
  assert_true(done);
  inlet_schema_reset(&s);
}

static void test_array__append_from_gathers_rows_of_every_shape(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "i int, d double, s string, f boolean, m decimal(20,2), l array<long>");
  inlet_batch src, dst;
  assert_int_equal(inlet_batch_init(&src, &s, NULL), 0);
  assert_int_equal(inlet_batch_init(&dst, &s, NULL), 0);
  const inlet_field *F = src.schema.fields;
  /* row 0: (-5, 1.5, "ab", true, 1.00, [7, 8]); row 1: all null */
  assert_int_equal(inlet_array_append_int(&src.columns[0], &F[0], -5, NULL), 0);
  assert_int_equal(inlet_array_append_double(&src.columns[1], 1.5, NULL), 0);
  assert_int_equal(inlet_array_append_bytes(&src.columns[2], &F[2], "ab", 2, NULL), 0);
  assert_int_equal(inlet_array_append_bool(&src.columns[3], true, NULL), 0);
  uint8_t dec[16] = {100};
  assert_int_equal(inlet_array_append_decimal(&src.columns[4], dec, NULL), 0);
  inlet_array *l = &src.columns[5];
  assert_int_equal(inlet_array_append_int(&l->children[0], &F[5].children[0], 7, NULL), 0);
  assert_int_equal(inlet_array_append_int(&l->children[0], &F[5].children[0], 8, NULL), 0);
  assert_int_equal(inlet_array_append_list_entry(l, NULL), 0);
  for (int c = 0; c < 6; c++)
    assert_int_equal(inlet_array_append_null(&src.columns[c], &F[c], NULL), 0);
  src.num_rows = 2;
  /* Gather rows 1, 0, 0: the copy reverses and repeats. */
  const int64_t rows[] = {1, 0, 0};
  for (int c = 0; c < 6; c++)
    for (int k = 0; k < 3; k++)
      assert_int_equal(
          inlet_array_append_from(&dst.columns[c], &F[c], &src.columns[c], rows[k], NULL), 0);
  dst.num_rows = 3;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_batch_validate(&dst, &err) != 0) fail_msg("%s", inlet_errmsg(&err));
  for (int c = 0; c < 6; c++) {
    assert_int_equal(dst.columns[c].null_count, 1);
    assert_false(inlet_array_is_valid(&dst.columns[c], 0));
    assert_true(inlet_array_is_valid(&dst.columns[c], 2));
  }
  assert_int_equal(((const int32_t *)dst.columns[0].values)[2], -5);
  assert_true(((const double *)dst.columns[1].values)[1] == 1.5);
  assert_int_equal(dst.columns[2].offsets[3] - dst.columns[2].offsets[2], 2);
  assert_memory_equal(dst.columns[2].values + dst.columns[2].offsets[2], "ab", 2);
  assert_true(inlet_bit_get(dst.columns[3].values, 2));
  assert_memory_equal(dst.columns[4].values + 2 * 16, dec, 16);
  const inlet_array *dl = &dst.columns[5];
  int32_t want[] = {0, 0, 2, 4};
  assert_memory_equal(dl->offsets, want, sizeof want);
  const int64_t *lv = (const int64_t *)dl->children[0].values;
  assert_true(lv[0] == 7 && lv[1] == 8 && lv[2] == 7 && lv[3] == 8);
  inlet_batch_reset(&src);
  inlet_batch_reset(&dst);
  inlet_schema_reset(&s);
}

/* Two arrays hold the same rows the same way: lengths, null counts, the
 * bitmap's presence and bits, values, offsets and children. */
static void assert_arrays_same(const inlet_array *a, const inlet_array *b, const inlet_field *f,
                               const char *path) {
  if (a->length != b->length || a->null_count != b->null_count)
    fail_msg("%s: length %lld/%lld, nulls %lld/%lld", path, (long long)a->length,
             (long long)b->length, (long long)a->null_count, (long long)b->null_count);
  if ((a->validity == NULL) != (b->validity == NULL)) fail_msg("%s: bitmap in one only", path);
  for (int64_t i = 0; a->validity && i < a->length; i++)
    if (inlet_bit_get(a->validity, i) != inlet_bit_get(b->validity, i))
      fail_msg("%s: validity of row %lld", path, (long long)i);
  inlet_type_id id = f->type.id;
  if (id == INLET_TYPE_BOOL) {
    for (int64_t i = 0; i < a->length; i++)
      if (inlet_bit_get(a->values, i) != inlet_bit_get(b->values, i))
        fail_msg("%s: value of row %lld", path, (long long)i);
  } else if (id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY || id == INLET_TYPE_LIST ||
             id == INLET_TYPE_MAP) {
    assert_memory_equal(a->offsets, b->offsets, (size_t)(a->length + 1) * 4);
    if (id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY) {
      if (a->offsets[a->length] > 0)
        assert_memory_equal(a->values, b->values, (size_t)a->offsets[a->length]);
    } else {
      assert_arrays_same(&a->children[0], &b->children[0], &f->children[0], f->children[0].name);
    }
  } else if (id == INLET_TYPE_STRUCT) {
    for (int32_t c = 0; c < f->n_children; c++)
      assert_arrays_same(&a->children[c], &b->children[c], &f->children[c], f->children[c].name);
  } else {
    int32_t w = inlet_type_value_width(&f->type);
    if (w > 0 && a->length > 0) assert_memory_equal(a->values, b->values, (size_t)(a->length * w));
  }
}

/* batch_append_range (the parallel ingest's bulk move) against rows
 * appended one at a time with inlet_array_append_from: ranges of every
 * length at every bit offset, over columns of every shape with nulls at
 * every level, some ranges without a null (no bitmap may appear for them),
 * into batches with and without a bitmap already. */
static void test_array__append_range_equals_row_by_row(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "i int, b boolean, s string, d decimal(20,2), t timestamp, x binary, "
            "st struct<a:long,z:array<string>>, m map<string,int>, "
            "l array<struct<p:boolean,q:string>>, nn long not null");
  inlet_text_reader_options ro = INLET_TEXT_READER_OPTIONS_INIT;
  inlet_text_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  if (inlet_text_reader_open_memory(&r, "", 0, &s, &ro, &err) != 0)
    fail_msg("%s", inlet_errmsg(&err));
  inlet_batch src, one, bulk;
  assert_int_equal(inlet_batch_init(&src, &s, NULL), 0);
  assert_int_equal(inlet_batch_init(&one, &s, NULL), 0);
  assert_int_equal(inlet_batch_init(&bulk, &s, NULL), 0);
  char rec[1024];
  /* Rows 0..59 have no null anywhere; the rest have them in turn. */
  for (int k = 0; k < 400; k++) {
    bool nulls = k >= 60;
    snprintf(rec, sizeof rec,
             "{\"i\":%s,\"b\":%s,\"s\":%s,\"d\":%d.5,\"t\":\"2024-01-01T00:00:%02dZ\","
             "\"x\":\"7a%02x\",\"st\":%s,\"m\":{\"k%d\":%d,\"j\":null},"
             "\"l\":[{\"p\":%s,\"q\":\"%.*s\"}%s],\"nn\":%d}",
             nulls && k % 3 == 0 ? "null" : "7", k % 5 ? "true" : "false",
             nulls && k % 4 == 1 ? "null" : "\"sss\"", k, k % 60, k % 256,
             nulls && k % 7 == 2
                 ? "null"
                 : (k % 2 ? "{\"a\":1,\"z\":[\"u\",null]}" : "{\"a\":null,\"z\":[]}"),
             k, k, nulls && k % 5 == 3 ? "null" : "true", k % 9, "abcdefghi",
             nulls && k % 6 == 4 ? ",null" : "", k);
    if (inlet_text_reader_append(r, &src, rec, strlen(rec), &err) != 0)
      fail_msg("record %d: %s", k, inlet_errmsg(&err));
  }
  assert_int_equal(src.num_rows, 400);
  /* Ranges of lengths 1..23 from varying starts, the first ones in the
   * null-free rows. */
  int64_t at = 0;
  for (int len = 1; at < src.num_rows; len = len % 23 + 1) {
    int64_t n = at + len > src.num_rows ? src.num_rows - at : len;
    assert_int_equal(batch_append_range(&bulk, &src, at, n, &err), 0);
    for (int64_t row = at; row < at + n; row++)
      for (int32_t c = 0; c < s.n_fields; c++)
        assert_int_equal(inlet_array_append_from(&one.columns[c], &one.schema.fields[c],
                                                 &src.columns[c], row, NULL),
                         0);
    one.num_rows += n;
    at += n;
    if (at < 60) /* no null yet: no bitmap either way */
      assert_null(bulk.columns[0].validity);
    assert_int_equal(bulk.num_rows, one.num_rows);
    for (int32_t c = 0; c < s.n_fields; c++)
      assert_arrays_same(&bulk.columns[c], &one.columns[c], &s.fields[c], s.fields[c].name);
    assert_int_equal(batch_used_bytes(&bulk), batch_used_bytes(&one));
  }
  if (inlet_batch_validate(&bulk, &err) != 0) fail_msg("%s", inlet_errmsg(&err));
  assert_true(batch_used_bytes(&bulk) > 400 * 8);
  assert_true(batch_used_bytes(&bulk) <= inlet_batch_memory(&bulk));
  inlet_text_reader_free(r);
  inlet_batch_reset(&src);
  inlet_batch_reset(&one);
  inlet_batch_reset(&bulk);
  inlet_schema_reset(&s);
}

/* batch_keep_rows (filter.c): flat columns compacted in place (ints,
 * strings with empty and null values, decimals, dates), booleans and
 * structs rebuilt; every kept row keeps its value and validity, the
 * dropped ones are gone, and the batch is valid and still appendable
 * (a null and a value after the compaction land where they should). */
static void test_batch__keep_rows_every_shape(void **state) {
  (void)state;
  inlet_schema s;
  parse(&s, "i int, s string, d decimal(10,2), t date, b boolean, st struct<x: long>");
  inlet_error err = INLET_ERROR_INIT;
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, &err), 0);
  enum { ROWS = 100 };
  uint8_t keep[ROWS];
  for (int r = 0; r < ROWS; r++) {
    bool null = r % 7 == 3;
    keep[r] = (r % 3 != 1) && r != 0; /* the first row goes too */
    const inlet_field *f = s.fields;
    char text[16];
    int n = snprintf(text, sizeof text, "%.*s", r % 4 == 0 ? 0 : 8, "abcdefghij" + r % 3);
    uint8_t dec[16] = {0};
    dec[0] = (uint8_t)r;
    if (null) {
      for (int c = 0; c < 6; c++)
        assert_int_equal(inlet_array_append_null(&b.columns[c], &f[c], &err), 0);
    } else {
      assert_int_equal(inlet_array_append_int(&b.columns[0], &f[0], r * 10, &err), 0);
      assert_int_equal(inlet_array_append_bytes(&b.columns[1], &f[1], text, (size_t)n, &err), 0);
      assert_int_equal(inlet_array_append_decimal(&b.columns[2], dec, &err), 0);
      assert_int_equal(inlet_array_append_int(&b.columns[3], &f[3], 19000 + r, &err), 0);
      assert_int_equal(inlet_array_append_bool(&b.columns[4], r % 2 == 0, &err), 0);
      assert_int_equal(
          inlet_array_append_int(&b.columns[5].children[0], &f[5].children[0], -r, &err), 0);
      assert_int_equal(inlet_array_append_struct_entry(&b.columns[5], &err), 0);
    }
  }
  b.num_rows = ROWS;
  assert_int_equal(batch_keep_rows(&b, keep, &err), 0);
  int64_t k = 0;
  for (int r = 0; r < ROWS; r++) {
    if (!keep[r]) continue;
    bool null = r % 7 == 3;
    for (int c = 0; c < 6; c++)
      assert_int_equal(inlet_array_is_valid(&b.columns[c], k), !null);
    if (!null) {
      assert_int_equal(((const int32_t *)b.columns[0].values)[k], r * 10);
      char text[16];
      int n = snprintf(text, sizeof text, "%.*s", r % 4 == 0 ? 0 : 8, "abcdefghij" + r % 3);
      const inlet_array *sa = &b.columns[1];
      assert_int_equal(sa->offsets[k + 1] - sa->offsets[k], n);
      if (n) assert_memory_equal(sa->values + sa->offsets[k], text, (size_t)n);
      assert_int_equal(b.columns[2].values[k * 16], (uint8_t)r);
      assert_int_equal(((const int32_t *)b.columns[3].values)[k], 19000 + r);
      assert_int_equal(inlet_bit_get(b.columns[4].values, k), r % 2 == 0);
      assert_int_equal(((const int64_t *)b.columns[5].children[0].values)[k], -r);
    }
    k++;
  }
  assert_int_equal(b.num_rows, k);
  int64_t nulls = 0;
  for (int r = 0; r < ROWS; r++)
    nulls += keep[r] && r % 7 == 3;
  for (int c = 0; c < 6; c++) {
    assert_int_equal(b.columns[c].length, k);
    assert_int_equal(b.columns[c].null_count, nulls);
  }
  assert_int_equal(inlet_batch_validate(&b, &err), 0);
  /* Still appendable: a value then a null after the kept rows. */
  assert_int_equal(inlet_array_append_int(&b.columns[0], &s.fields[0], 7, &err), 0);
  assert_int_equal(inlet_array_append_null(&b.columns[0], &s.fields[0], &err), 0);
  assert_int_equal(inlet_array_append_bytes(&b.columns[1], &s.fields[1], "zz", 2, &err), 0);
  assert_true(inlet_array_is_valid(&b.columns[0], k));
  assert_false(inlet_array_is_valid(&b.columns[0], k + 1));
  assert_int_equal(((const int32_t *)b.columns[0].values)[k], 7);
  assert_int_equal(b.columns[0].null_count, nulls + 1);
  assert_true(inlet_array_is_valid(&b.columns[1], k));
  assert_memory_equal(b.columns[1].values + b.columns[1].offsets[k], "zz", 2);
  inlet_batch_reset(&b);
  inlet_schema_reset(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_array__bool_bits_are_lsb_first),
      cmocka_unit_test(test_array__validity_appears_with_first_null),
      cmocka_unit_test(test_array__int_widths_truncate),
      cmocka_unit_test(test_array__strings_build_offsets),
      cmocka_unit_test(test_array__list_and_struct_entries),
      cmocka_unit_test(test_array__append_from_gathers_rows_of_every_shape),
      cmocka_unit_test(test_array__append_range_equals_row_by_row),
      cmocka_unit_test(test_batch__validate_rejects_inconsistent_columns),
      cmocka_unit_test(test_array__reserve_then_direct_write),
      cmocka_unit_test(test_array__builder_moves_with_the_view),
      cmocka_unit_test(test_batch__init_survives_allocation_failures),
      cmocka_unit_test(test_batch__keep_rows_every_shape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
