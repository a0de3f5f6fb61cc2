/*
 * Unit tests for src/parquet/pq_schema.c: Parquet schema -> inlet_schema for
 * every physical type and annotation (logical and legacy), the writer
 * direction inlet_schema -> SchemaElements (logicalType plus converted_type,
 * decimal physical choice, seconds written as millis), statistics sort
 * orders (parquet.thrift ColumnOrder), Dremel levels of nested trees, and
 * the mapping of every flat parquet-testing file checked against the column
 * types DuckDB reports for the same files (recorded with refcheck).
 */
#include <stdio.h>

#include "testutil.h"

#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"
#include "util/buf.h"

#define DATA_DIR INLET_TESTDATA "/parquet-testing/data"

/* ---- hand-built schemas ------------------------------------------------ */

typedef struct leaf_spec {
  pq_type type;
  int32_t type_length;
  pq_logical_kind lt;
  int a, b;   /* DECIMAL precision/scale; INTEGER bits/signed; TIME unit/utc */
  int32_t ct; /* converted type */
  int32_t ct_precision, ct_scale;
} leaf_spec;

/* A root with one OPTIONAL leaf "c" described by @p s. */
static void one_leaf(pq_schema_element e[2], const leaf_spec *s) {
  memset(e, 0, 2 * sizeof *e);
  e[0].name = "schema";
  e[0].has_num_children = true;
  e[0].num_children = 1;
  e[0].converted_type = PQ_CT_NONE;
  e[1].name = "c";
  e[1].has_type = true;
  e[1].type = s->type;
  e[1].has_type_length = s->type_length > 0;
  e[1].type_length = s->type_length;
  e[1].has_repetition = true;
  e[1].repetition = PQ_OPTIONAL;
  e[1].converted_type = s->ct;
  e[1].logical.kind = s->lt;
  if (s->lt == PQ_LT_DECIMAL) {
    e[1].logical.precision = s->a;
    e[1].logical.scale = s->b;
  } else if (s->lt == PQ_LT_INTEGER) {
    e[1].logical.bit_width = (int8_t)s->a;
    e[1].logical.is_signed = s->b;
  } else if (s->lt == PQ_LT_TIME || s->lt == PQ_LT_TIMESTAMP) {
    e[1].logical.unit = (pq_time_unit)s->a;
    e[1].logical.utc = s->b;
  }
  if (s->ct_precision) {
    e[1].has_precision = true;
    e[1].precision = s->ct_precision;
    e[1].has_scale = true;
    e[1].scale = s->ct_scale;
  }
}

typedef struct map_case {
  leaf_spec in;
  inlet_type_id id;
  inlet_time_unit unit;
  bool utc;
  int32_t width_or_precision; /* FIXED_BINARY width, DECIMAL precision */
  int32_t scale;
  inlet_type_ext ext;
  pq_value_conv conv;
  pq_sort_order order;
} map_case;

/* clang-format off */
#define N PQ_CT_NONE
static const map_case map_cases[] = {
    /* physical types without annotation */
    {{PQ_BOOLEAN, 0, PQ_LT_NONE, 0, 0, N, 0, 0}, INLET_TYPE_BOOL, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_NONE, 0, 0, N, 0, 0}, INLET_TYPE_INT32, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_NONE, 0, 0, N, 0, 0}, INLET_TYPE_INT64, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT96, 0, PQ_LT_NONE, 0, 0, N, 0, 0}, INLET_TYPE_TIMESTAMP, INLET_UNIT_MICRO, false, 0, 0, 0, PQ_CONV_INT96, PQ_SORT_UNKNOWN},
    {{PQ_FLOAT, 0, PQ_LT_NONE, 0, 0, N, 0, 0}, INLET_TYPE_FLOAT, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_DOUBLE, 0, PQ_LT_NONE, 0, 0, N, 0, 0}, INLET_TYPE_DOUBLE, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_BYTE_ARRAY, 0, PQ_LT_NONE, 0, 0, N, 0, 0}, INLET_TYPE_BINARY, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_FIXED_LEN_BYTE_ARRAY, 7, PQ_LT_NONE, 0, 0, N, 0, 0}, INLET_TYPE_FIXED_BINARY, 0, 0, 7, 0, 0, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    /* logical types */
    {{PQ_BYTE_ARRAY, 0, PQ_LT_STRING, 0, 0, PQ_CT_UTF8, 0, 0}, INLET_TYPE_STRING, 0, 0, 0, 0, INLET_EXT_NONE, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_BYTE_ARRAY, 0, PQ_LT_ENUM, 0, 0, N, 0, 0}, INLET_TYPE_STRING, 0, 0, 0, 0, INLET_EXT_ENUM, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_BYTE_ARRAY, 0, PQ_LT_JSON, 0, 0, N, 0, 0}, INLET_TYPE_STRING, 0, 0, 0, 0, INLET_EXT_JSON, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_BYTE_ARRAY, 0, PQ_LT_BSON, 0, 0, N, 0, 0}, INLET_TYPE_BINARY, 0, 0, 0, 0, INLET_EXT_BSON, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_FIXED_LEN_BYTE_ARRAY, 16, PQ_LT_UUID, 0, 0, N, 0, 0}, INLET_TYPE_FIXED_BINARY, 0, 0, 16, 0, INLET_EXT_UUID, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_FIXED_LEN_BYTE_ARRAY, 2, PQ_LT_FLOAT16, 0, 0, N, 0, 0}, INLET_TYPE_FLOAT, 0, 0, 0, 0, 0, PQ_CONV_FLOAT16, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_DECIMAL, 9, 2, PQ_CT_DECIMAL, 9, 2}, INLET_TYPE_DECIMAL, 0, 0, 9, 2, 0, PQ_CONV_DECIMAL, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_DECIMAL, 18, 0, N, 0, 0}, INLET_TYPE_DECIMAL, 0, 0, 18, 0, 0, PQ_CONV_DECIMAL, PQ_SORT_SIGNED},
    {{PQ_FIXED_LEN_BYTE_ARRAY, 16, PQ_LT_DECIMAL, 38, 10, N, 0, 0}, INLET_TYPE_DECIMAL, 0, 0, 38, 10, 0, PQ_CONV_DECIMAL, PQ_SORT_SIGNED},
    {{PQ_BYTE_ARRAY, 0, PQ_LT_DECIMAL, 4, 2, N, 0, 0}, INLET_TYPE_DECIMAL, 0, 0, 4, 2, 0, PQ_CONV_DECIMAL, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_DATE, 0, 0, PQ_CT_DATE, 0, 0}, INLET_TYPE_DATE, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_TIME, PQ_UNIT_MILLIS, 1, N, 0, 0}, INLET_TYPE_TIME, INLET_UNIT_MILLI, true, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_TIME, PQ_UNIT_MICROS, 0, N, 0, 0}, INLET_TYPE_TIME, INLET_UNIT_MICRO, false, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_TIME, PQ_UNIT_NANOS, 0, N, 0, 0}, INLET_TYPE_TIME, INLET_UNIT_NANO, false, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_TIMESTAMP, PQ_UNIT_MILLIS, 1, N, 0, 0}, INLET_TYPE_TIMESTAMP, INLET_UNIT_MILLI, true, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_TIMESTAMP, PQ_UNIT_MICROS, 0, N, 0, 0}, INLET_TYPE_TIMESTAMP, INLET_UNIT_MICRO, false, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_TIMESTAMP, PQ_UNIT_NANOS, 1, N, 0, 0}, INLET_TYPE_TIMESTAMP, INLET_UNIT_NANO, true, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_INTEGER, 8, 1, N, 0, 0}, INLET_TYPE_INT8, 0, 0, 0, 0, 0, PQ_CONV_INT_NARROW, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_INTEGER, 16, 1, N, 0, 0}, INLET_TYPE_INT16, 0, 0, 0, 0, 0, PQ_CONV_INT_NARROW, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_INTEGER, 32, 1, N, 0, 0}, INLET_TYPE_INT32, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_INTEGER, 64, 1, N, 0, 0}, INLET_TYPE_INT64, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_INTEGER, 8, 0, N, 0, 0}, INLET_TYPE_UINT8, 0, 0, 0, 0, 0, PQ_CONV_INT_NARROW, PQ_SORT_UNSIGNED},
    {{PQ_INT32, 0, PQ_LT_INTEGER, 16, 0, N, 0, 0}, INLET_TYPE_UINT16, 0, 0, 0, 0, 0, PQ_CONV_INT_NARROW, PQ_SORT_UNSIGNED},
    {{PQ_INT32, 0, PQ_LT_INTEGER, 32, 0, N, 0, 0}, INLET_TYPE_UINT32, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_INT64, 0, PQ_LT_INTEGER, 64, 0, N, 0, 0}, INLET_TYPE_UINT64, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    /* NullType and unknown logical types fall back */
    {{PQ_INT32, 0, PQ_LT_NULL, 0, 0, N, 0, 0}, INLET_TYPE_INT32, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_BYTE_ARRAY, 0, PQ_LT_OTHER, 0, 0, N, 0, 0}, INLET_TYPE_BINARY, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_UNKNOWN},
    {{PQ_BYTE_ARRAY, 0, PQ_LT_OTHER, 0, 0, PQ_CT_UTF8, 0, 0}, INLET_TYPE_STRING, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_UNKNOWN},
    /* legacy converted types alone */
    {{PQ_BYTE_ARRAY, 0, PQ_LT_NONE, 0, 0, PQ_CT_UTF8, 0, 0}, INLET_TYPE_STRING, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_BYTE_ARRAY, 0, PQ_LT_NONE, 0, 0, PQ_CT_ENUM, 0, 0}, INLET_TYPE_STRING, 0, 0, 0, 0, INLET_EXT_ENUM, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_BYTE_ARRAY, 0, PQ_LT_NONE, 0, 0, PQ_CT_JSON, 0, 0}, INLET_TYPE_STRING, 0, 0, 0, 0, INLET_EXT_JSON, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_BYTE_ARRAY, 0, PQ_LT_NONE, 0, 0, PQ_CT_BSON, 0, 0}, INLET_TYPE_BINARY, 0, 0, 0, 0, INLET_EXT_BSON, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_FIXED_LEN_BYTE_ARRAY, 6, PQ_LT_NONE, 0, 0, PQ_CT_DECIMAL, 13, 2}, INLET_TYPE_DECIMAL, 0, 0, 13, 2, 0, PQ_CONV_DECIMAL, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_NONE, 0, 0, PQ_CT_DATE, 0, 0}, INLET_TYPE_DATE, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_NONE, 0, 0, PQ_CT_TIME_MILLIS, 0, 0}, INLET_TYPE_TIME, INLET_UNIT_MILLI, true, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_NONE, 0, 0, PQ_CT_TIME_MICROS, 0, 0}, INLET_TYPE_TIME, INLET_UNIT_MICRO, true, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_NONE, 0, 0, PQ_CT_TIMESTAMP_MILLIS, 0, 0}, INLET_TYPE_TIMESTAMP, INLET_UNIT_MILLI, true, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_NONE, 0, 0, PQ_CT_TIMESTAMP_MICROS, 0, 0}, INLET_TYPE_TIMESTAMP, INLET_UNIT_MICRO, true, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_NONE, 0, 0, PQ_CT_UINT_8, 0, 0}, INLET_TYPE_UINT8, 0, 0, 0, 0, 0, PQ_CONV_INT_NARROW, PQ_SORT_UNSIGNED},
    {{PQ_INT32, 0, PQ_LT_NONE, 0, 0, PQ_CT_UINT_16, 0, 0}, INLET_TYPE_UINT16, 0, 0, 0, 0, 0, PQ_CONV_INT_NARROW, PQ_SORT_UNSIGNED},
    {{PQ_INT32, 0, PQ_LT_NONE, 0, 0, PQ_CT_UINT_32, 0, 0}, INLET_TYPE_UINT32, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_INT64, 0, PQ_LT_NONE, 0, 0, PQ_CT_UINT_64, 0, 0}, INLET_TYPE_UINT64, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_UNSIGNED},
    {{PQ_INT32, 0, PQ_LT_NONE, 0, 0, PQ_CT_INT_8, 0, 0}, INLET_TYPE_INT8, 0, 0, 0, 0, 0, PQ_CONV_INT_NARROW, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_NONE, 0, 0, PQ_CT_INT_16, 0, 0}, INLET_TYPE_INT16, 0, 0, 0, 0, 0, PQ_CONV_INT_NARROW, PQ_SORT_SIGNED},
    {{PQ_INT32, 0, PQ_LT_NONE, 0, 0, PQ_CT_INT_32, 0, 0}, INLET_TYPE_INT32, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_INT64, 0, PQ_LT_NONE, 0, 0, PQ_CT_INT_64, 0, 0}, INLET_TYPE_INT64, 0, 0, 0, 0, 0, PQ_CONV_NONE, PQ_SORT_SIGNED},
    {{PQ_FIXED_LEN_BYTE_ARRAY, 12, PQ_LT_NONE, 0, 0, PQ_CT_INTERVAL, 0, 0}, INLET_TYPE_FIXED_BINARY, 0, 0, 12, 0, 0, PQ_CONV_NONE, PQ_SORT_UNKNOWN},
};
#undef N
/* clang-format on */

static void test_schema__every_physical_and_annotation_maps(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof map_cases / sizeof *map_cases; i++) {
    const map_case *mc = &map_cases[i];
    pq_schema_element e[2];
    one_leaf(e, &mc->in);
    pq_schema_desc d;
    pq_schema_desc_init(&d);
    inlet_error err = INLET_ERROR_INIT;
    int rc = pq_schema_from_parquet(&d, e, 2, "m.parquet", &err);
    if (rc != 0) fail_msg("case %zu: rc %d: %s", i, rc, err.message);
    assert_int_equal(d.schema.n_fields, 1);
    const inlet_field *f = &d.schema.fields[0];
    assert_string_equal(f->name, "c");
    assert_true(f->nullable);
    if (f->type.id != mc->id) fail_msg("case %zu: type %d, want %d", i, f->type.id, mc->id);
    if (mc->id == INLET_TYPE_TIME || mc->id == INLET_TYPE_TIMESTAMP) {
      assert_int_equal(f->type.unit, mc->unit);
      assert_int_equal(f->type.utc, mc->utc);
    }
    if (mc->id == INLET_TYPE_FIXED_BINARY)
      assert_int_equal(f->type.byte_width, mc->width_or_precision);
    if (mc->id == INLET_TYPE_DECIMAL) {
      assert_int_equal(f->type.precision, mc->width_or_precision);
      assert_int_equal(f->type.scale, mc->scale);
    }
    assert_int_equal(f->type.ext, mc->ext);
    assert_int_equal(d.n_columns, 1);
    const pq_column_desc *c = &d.columns[0];
    if (c->conv != mc->conv) fail_msg("case %zu: conv %d, want %d", i, c->conv, mc->conv);
    if (c->sort_order != mc->order)
      fail_msg("case %zu: order %d, want %d", i, c->sort_order, mc->order);
    assert_int_equal(pq_element_sort_order(&e[1]), mc->order);
    assert_ptr_equal(c->field, f);
    assert_int_equal(c->field_index, 0);
    assert_string_equal(c->path, "c");
    assert_int_equal(c->max_def_level, 1);
    assert_int_equal(c->max_rep_level, 0);
    assert_int_equal(c->physical_type, mc->in.type);
    pq_schema_desc_reset(&d);
  }
}

static void test_schema__annotation_on_wrong_physical_type_is_corrupt(void **state) {
  (void)state;
  static const leaf_spec bad[] = {
      {PQ_BYTE_ARRAY, 0, PQ_LT_DATE, 0, 0, PQ_CT_NONE, 0, 0},
      {PQ_INT32, 0, PQ_LT_STRING, 0, 0, PQ_CT_NONE, 0, 0},
      {PQ_INT64, 0, PQ_LT_INTEGER, 8, 1, PQ_CT_NONE, 0, 0},
      {PQ_INT32, 0, PQ_LT_TIMESTAMP, PQ_UNIT_MILLIS, 1, PQ_CT_NONE, 0, 0},
      {PQ_INT32, 0, PQ_LT_TIME, PQ_UNIT_MICROS, 1, PQ_CT_NONE, 0, 0},
      {PQ_FIXED_LEN_BYTE_ARRAY, 8, PQ_LT_UUID, 0, 0, PQ_CT_NONE, 0, 0},
      {PQ_FIXED_LEN_BYTE_ARRAY, 4, PQ_LT_FLOAT16, 0, 0, PQ_CT_NONE, 0, 0},
      {PQ_DOUBLE, 0, PQ_LT_DECIMAL, 5, 2, PQ_CT_NONE, 0, 0},
      {PQ_INT32, 0, PQ_LT_DECIMAL, 5, 7, PQ_CT_NONE, 0, 0},  /* scale > precision */
      {PQ_INT32, 0, PQ_LT_NONE, 0, 0, PQ_CT_DECIMAL, 0, 0},  /* no precision */
      {PQ_INT32, 0, PQ_LT_INTEGER, 12, 1, PQ_CT_NONE, 0, 0}, /* bit width */
      {PQ_INT64, 0, PQ_LT_NONE, 0, 0, PQ_CT_UINT_8, 0, 0},
      {PQ_BYTE_ARRAY, 0, PQ_LT_NONE, 0, 0, PQ_CT_INTERVAL, 0, 0},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    pq_schema_element e[2];
    one_leaf(e, &bad[i]);
    pq_schema_desc d;
    pq_schema_desc_init(&d);
    inlet_error err = INLET_ERROR_INIT;
    int rc = pq_schema_from_parquet(&d, e, 2, "w.parquet", &err);
    if (rc != INLET_ECORRUPT) fail_msg("case %zu: rc %d (%s)", i, rc, err.message);
    assert_non_null(strstr(err.message, "w.parquet"));
    assert_non_null(strstr(err.message, "\"c\""));
    assert_int_equal(d.n_columns, 0); /* left reset */
    pq_schema_desc_reset(&d);
  }
}

static void test_schema__decimal_precision_over_38_is_unsupported(void **state) {
  (void)state;
  leaf_spec s = {PQ_FIXED_LEN_BYTE_ARRAY, 20, PQ_LT_DECIMAL, 40, 2, PQ_CT_NONE, 0, 0};
  pq_schema_element e[2];
  one_leaf(e, &s);
  pq_schema_desc d;
  pq_schema_desc_init(&d);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_schema_from_parquet(&d, e, 2, "d.parquet", &err), INLET_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "precision 40"));
  pq_schema_desc_reset(&d);
}

/* schema { required int64 id; optional group a { repeated group list {
 *   optional int32 element; } } ; repeated binary tags; } */
static void nested_elems(pq_schema_element e[6]) {
  memset(e, 0, 6 * sizeof *e);
  for (int i = 0; i < 6; i++) {
    e[i].converted_type = PQ_CT_NONE;
    e[i].has_repetition = i > 0;
  }
  e[0].name = "schema";
  e[0].has_num_children = true;
  e[0].num_children = 3;
  e[1].name = "id";
  e[1].has_type = true;
  e[1].type = PQ_INT64;
  e[1].repetition = PQ_REQUIRED;
  e[2].name = "a";
  e[2].has_num_children = true;
  e[2].num_children = 1;
  e[2].repetition = PQ_OPTIONAL;
  e[2].converted_type = PQ_CT_LIST;
  e[3].name = "list";
  e[3].has_num_children = true;
  e[3].num_children = 1;
  e[3].repetition = PQ_REPEATED;
  e[4].name = "element";
  e[4].has_type = true;
  e[4].type = PQ_INT32;
  e[4].repetition = PQ_OPTIONAL;
  e[5].name = "tags";
  e[5].has_type = true;
  e[5].type = PQ_BYTE_ARRAY;
  e[5].repetition = PQ_REPEATED;
}

static void test_schema__nested_tree_levels_and_paths(void **state) {
  (void)state;
  pq_schema_element e[6];
  nested_elems(e);
  pq_schema_desc d;
  pq_schema_desc_init(&d);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_schema_build_tree(&d, e, 6, "n.parquet", &err), 0);
  assert_int_equal(d.n_nodes, 6);
  assert_int_equal(d.n_columns, 3);
  assert_string_equal(d.columns[0].path, "id");
  assert_int_equal(d.columns[0].max_def_level, 0);
  assert_int_equal(d.columns[0].max_rep_level, 0);
  assert_string_equal(d.columns[1].path, "a.list.element");
  assert_int_equal(d.columns[1].n_path, 3);
  assert_string_equal(d.columns[1].path_parts[1], "list");
  assert_int_equal(d.columns[1].max_def_level, 3);
  assert_int_equal(d.columns[1].max_rep_level, 1);
  assert_int_equal(d.columns[1].element, 4);
  assert_string_equal(d.columns[2].path, "tags");
  assert_int_equal(d.columns[2].max_def_level, 1);
  assert_int_equal(d.columns[2].max_rep_level, 1);
  /* Parent chain and siblings. */
  assert_int_equal(d.nodes[4].parent, 3);
  assert_int_equal(d.nodes[3].parent, 2);
  assert_int_equal(d.nodes[2].parent, 0);
  assert_int_equal(d.nodes[0].first_child, 1);
  assert_int_equal(d.nodes[1].next_sibling, 2);
  assert_int_equal(d.nodes[2].next_sibling, 5);
  assert_int_equal(d.nodes[5].next_sibling, -1);
  assert_int_equal(d.nodes[4].depth, 3);
  assert_int_equal(d.nodes[4].column, 1);
  assert_int_equal(d.nodes[3].column, -1);
  /* Nested readers map each leaf's type themselves. */
  assert_int_equal(pq_column_map_type(&d.columns[1], &e[4], "n.parquet", &err), 0);
  assert_int_equal(d.columns[1].type.id, INLET_TYPE_INT32);
  e[4].logical.kind = PQ_LT_INTEGER;
  e[4].logical.bit_width = 16;
  e[4].logical.is_signed = false;
  assert_int_equal(pq_column_map_type(&d.columns[1], &e[4], "n.parquet", &err), 0);
  assert_int_equal(d.columns[1].type.id, INLET_TYPE_UINT16);
  assert_int_equal(d.columns[1].conv, PQ_CONV_INT_NARROW);
  e[4].logical.kind = PQ_LT_STRING;
  assert_int_equal(pq_column_map_type(&d.columns[1], &e[4], "n.parquet", &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "\"a.list.element\": STRING annotation"));
  nested_elems(e);
  pq_schema_desc_reset(&d);

  /* The flat mapping refuses it, naming the first nested column. */
  assert_int_equal(pq_schema_from_parquet(&d, e, 6, "n.parquet", &err), INLET_EUNSUPPORTED);
  assert_string_equal(err.message, "n.parquet: nested column a is not supported");
  /* A repeated top-level leaf is nested too. */
  e[0].num_children = 3;
  e[2] = e[1];
  e[2].name = "id2";
  e[3] = e[5];
  assert_int_equal(pq_schema_from_parquet(&d, e, 4, "n.parquet", &err), INLET_EUNSUPPORTED);
  assert_string_equal(err.message, "n.parquet: nested column tags is not supported");
  pq_schema_desc_reset(&d);
}

static void test_schema__inconsistent_trees_are_corrupt(void **state) {
  (void)state;
  pq_schema_element e[6];
  pq_schema_desc d;
  pq_schema_desc_init(&d);
  inlet_error err = INLET_ERROR_INIT;
  nested_elems(e);
  e[0].num_children = 4; /* more children than elements */
  assert_int_equal(pq_schema_build_tree(&d, e, 6, "t.parquet", &err), INLET_ECORRUPT);
  nested_elems(e);
  e[0].num_children = 2; /* element 5 dangles */
  assert_int_equal(pq_schema_build_tree(&d, e, 6, "t.parquet", &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "outside the root"));
  nested_elems(e);
  e[2].num_children = -1;
  assert_int_equal(pq_schema_build_tree(&d, e, 6, "t.parquet", &err), INLET_ECORRUPT);
  nested_elems(e);
  e[1].has_type = false; /* neither type nor children */
  assert_int_equal(pq_schema_build_tree(&d, e, 6, "t.parquet", &err), INLET_ECORRUPT);
  nested_elems(e);
  e[5].type = PQ_FIXED_LEN_BYTE_ARRAY; /* no type_length */
  assert_int_equal(pq_schema_build_tree(&d, e, 6, "t.parquet", &err), INLET_ECORRUPT);
  assert_int_equal(pq_schema_build_tree(&d, e, 0, "t.parquet", &err), INLET_ECORRUPT);
  nested_elems(e);
  e[5].repetition = (pq_repetition)3; /* VECTOR */
  assert_int_equal(pq_schema_build_tree(&d, e, 6, "t.parquet", &err), INLET_EUNSUPPORTED);
  assert_int_equal(d.n_columns, 0);
  pq_schema_desc_reset(&d);
}

/* ---- writer direction ---------------------------------------------------- */

typedef struct write_case {
  inlet_type type;
  pq_type physical;
  int32_t type_length;
  pq_logical_kind lt;
  int32_t ct;
  pq_value_conv conv;
  int64_t factor;
} write_case;

/* clang-format off */
#define T(id) {INLET_TYPE_##id, 0, 0, 0, 0, 0, 0}
static const write_case write_cases[] = {
    {T(BOOL), PQ_BOOLEAN, 0, PQ_LT_NONE, PQ_CT_NONE, PQ_CONV_NONE, 1},
    {T(INT8), PQ_INT32, 0, PQ_LT_INTEGER, PQ_CT_INT_8, PQ_CONV_INT_NARROW, 1},
    {T(INT16), PQ_INT32, 0, PQ_LT_INTEGER, PQ_CT_INT_16, PQ_CONV_INT_NARROW, 1},
    {T(INT32), PQ_INT32, 0, PQ_LT_NONE, PQ_CT_NONE, PQ_CONV_NONE, 1},
    {T(INT64), PQ_INT64, 0, PQ_LT_NONE, PQ_CT_NONE, PQ_CONV_NONE, 1},
    {T(UINT8), PQ_INT32, 0, PQ_LT_INTEGER, PQ_CT_UINT_8, PQ_CONV_INT_NARROW, 1},
    {T(UINT16), PQ_INT32, 0, PQ_LT_INTEGER, PQ_CT_UINT_16, PQ_CONV_INT_NARROW, 1},
    {T(UINT32), PQ_INT32, 0, PQ_LT_INTEGER, PQ_CT_UINT_32, PQ_CONV_NONE, 1},
    {T(UINT64), PQ_INT64, 0, PQ_LT_INTEGER, PQ_CT_UINT_64, PQ_CONV_NONE, 1},
    {T(FLOAT), PQ_FLOAT, 0, PQ_LT_NONE, PQ_CT_NONE, PQ_CONV_NONE, 1},
    {T(DOUBLE), PQ_DOUBLE, 0, PQ_LT_NONE, PQ_CT_NONE, PQ_CONV_NONE, 1},
    {T(STRING), PQ_BYTE_ARRAY, 0, PQ_LT_STRING, PQ_CT_UTF8, PQ_CONV_NONE, 1},
    {{INLET_TYPE_STRING, 0, 0, 0, 0, 0, INLET_EXT_JSON}, PQ_BYTE_ARRAY, 0, PQ_LT_JSON, PQ_CT_JSON, PQ_CONV_NONE, 1},
    {{INLET_TYPE_STRING, 0, 0, 0, 0, 0, INLET_EXT_ENUM}, PQ_BYTE_ARRAY, 0, PQ_LT_ENUM, PQ_CT_ENUM, PQ_CONV_NONE, 1},
    {T(BINARY), PQ_BYTE_ARRAY, 0, PQ_LT_NONE, PQ_CT_NONE, PQ_CONV_NONE, 1},
    {{INLET_TYPE_BINARY, 0, 0, 0, 0, 0, INLET_EXT_BSON}, PQ_BYTE_ARRAY, 0, PQ_LT_BSON, PQ_CT_BSON, PQ_CONV_NONE, 1},
    {{INLET_TYPE_FIXED_BINARY, 0, 0, 5, 0, 0, 0}, PQ_FIXED_LEN_BYTE_ARRAY, 5, PQ_LT_NONE, PQ_CT_NONE, PQ_CONV_NONE, 1},
    {{INLET_TYPE_FIXED_BINARY, 0, 0, 16, 0, 0, INLET_EXT_UUID}, PQ_FIXED_LEN_BYTE_ARRAY, 16, PQ_LT_UUID, PQ_CT_NONE, PQ_CONV_NONE, 1},
    {T(DATE), PQ_INT32, 0, PQ_LT_DATE, PQ_CT_DATE, PQ_CONV_NONE, 1},
    {{INLET_TYPE_TIME, INLET_UNIT_SECOND, false, 0, 0, 0, 0}, PQ_INT32, 0, PQ_LT_TIME, PQ_CT_TIME_MILLIS, PQ_CONV_SCALE, 1000},
    {{INLET_TYPE_TIME, INLET_UNIT_MILLI, false, 0, 0, 0, 0}, PQ_INT32, 0, PQ_LT_TIME, PQ_CT_TIME_MILLIS, PQ_CONV_NONE, 1},
    {{INLET_TYPE_TIME, INLET_UNIT_MICRO, false, 0, 0, 0, 0}, PQ_INT64, 0, PQ_LT_TIME, PQ_CT_TIME_MICROS, PQ_CONV_NONE, 1},
    {{INLET_TYPE_TIME, INLET_UNIT_NANO, false, 0, 0, 0, 0}, PQ_INT64, 0, PQ_LT_TIME, PQ_CT_NONE, PQ_CONV_NONE, 1},
    {{INLET_TYPE_TIMESTAMP, INLET_UNIT_SECOND, true, 0, 0, 0, 0}, PQ_INT64, 0, PQ_LT_TIMESTAMP, PQ_CT_TIMESTAMP_MILLIS, PQ_CONV_SCALE, 1000},
    {{INLET_TYPE_TIMESTAMP, INLET_UNIT_MILLI, true, 0, 0, 0, 0}, PQ_INT64, 0, PQ_LT_TIMESTAMP, PQ_CT_TIMESTAMP_MILLIS, PQ_CONV_NONE, 1},
    {{INLET_TYPE_TIMESTAMP, INLET_UNIT_MICRO, true, 0, 0, 0, 0}, PQ_INT64, 0, PQ_LT_TIMESTAMP, PQ_CT_TIMESTAMP_MICROS, PQ_CONV_NONE, 1},
    {{INLET_TYPE_TIMESTAMP, INLET_UNIT_MICRO, false, 0, 0, 0, 0}, PQ_INT64, 0, PQ_LT_TIMESTAMP, PQ_CT_TIMESTAMP_MICROS, PQ_CONV_NONE, 1},
    {{INLET_TYPE_TIMESTAMP, INLET_UNIT_NANO, true, 0, 0, 0, 0}, PQ_INT64, 0, PQ_LT_TIMESTAMP, PQ_CT_NONE, PQ_CONV_NONE, 1},
    {{INLET_TYPE_DECIMAL, 0, 0, 0, 1, 0, 0}, PQ_INT32, 0, PQ_LT_DECIMAL, PQ_CT_DECIMAL, PQ_CONV_DECIMAL, 1},
    {{INLET_TYPE_DECIMAL, 0, 0, 0, 9, 2, 0}, PQ_INT32, 0, PQ_LT_DECIMAL, PQ_CT_DECIMAL, PQ_CONV_DECIMAL, 1},
    {{INLET_TYPE_DECIMAL, 0, 0, 0, 10, 2, 0}, PQ_INT64, 0, PQ_LT_DECIMAL, PQ_CT_DECIMAL, PQ_CONV_DECIMAL, 1},
    {{INLET_TYPE_DECIMAL, 0, 0, 0, 18, 18, 0}, PQ_INT64, 0, PQ_LT_DECIMAL, PQ_CT_DECIMAL, PQ_CONV_DECIMAL, 1},
    {{INLET_TYPE_DECIMAL, 0, 0, 0, 19, 0, 0}, PQ_FIXED_LEN_BYTE_ARRAY, 9, PQ_LT_DECIMAL, PQ_CT_DECIMAL, PQ_CONV_DECIMAL, 1},
    {{INLET_TYPE_DECIMAL, 0, 0, 0, 25, 2, 0}, PQ_FIXED_LEN_BYTE_ARRAY, 11, PQ_LT_DECIMAL, PQ_CT_DECIMAL, PQ_CONV_DECIMAL, 1},
    {{INLET_TYPE_DECIMAL, 0, 0, 0, 38, 10, 0}, PQ_FIXED_LEN_BYTE_ARRAY, 16, PQ_LT_DECIMAL, PQ_CT_DECIMAL, PQ_CONV_DECIMAL, 1},
};
#undef T
/* clang-format on */

static void test_schema__writer_sets_logical_and_legacy_annotations(void **state) {
  (void)state;
  size_t n = sizeof write_cases / sizeof *write_cases;
  inlet_schema s;
  inlet_schema_init(&s);
  inlet_error err = INLET_ERROR_INIT;
  for (size_t i = 0; i < n; i++) {
    inlet_field f;
    memset(&f, 0, sizeof f);
    char name[16];
    snprintf(name, sizeof name, "f%zu", i);
    f.name = name;
    f.type = write_cases[i].type;
    f.nullable = i % 2 == 0;
    f.field_id = i == 3 ? 42 : -1;
    assert_int_equal(inlet_schema_add_field(&s, &f, &err), 0);
  }
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  pq_schema_desc d;
  pq_schema_desc_init(&d);
  assert_int_equal(pq_schema_to_parquet(&m, &d, &s, &err), 0);
  assert_int_equal(m.n_schema, (int)n + 1);
  assert_string_equal(m.schema[0].name, "schema");
  assert_false(m.schema[0].has_type);
  assert_int_equal(m.schema[0].num_children, (int)n);
  assert_int_equal(m.n_column_orders, (int)n);
  assert_int_equal(d.n_columns, (int)n);
  assert_true(inlet_schema_equal(&d.schema, &s));
  for (size_t i = 0; i < n; i++) {
    const write_case *wc = &write_cases[i];
    const pq_schema_element *e = &m.schema[i + 1];
    const pq_column_desc *c = &d.columns[i];
    if (e->type != wc->physical) fail_msg("case %zu: physical %d", i, e->type);
    assert_int_equal(e->repetition, i % 2 == 0 ? PQ_OPTIONAL : PQ_REQUIRED);
    assert_int_equal(e->has_field_id, i == 3);
    if (wc->type_length) assert_int_equal(e->type_length, wc->type_length);
    if (e->logical.kind != wc->lt) fail_msg("case %zu: logical %d", i, e->logical.kind);
    if (e->converted_type != wc->ct) fail_msg("case %zu: converted %d", i, e->converted_type);
    assert_int_equal(c->conv, wc->conv);
    assert_true(c->scale_factor == wc->factor);
    assert_int_equal(c->type.id, wc->type.id);
    assert_ptr_equal(c->field, &d.schema.fields[i]);
    assert_int_equal(c->max_def_level, i % 2 == 0 ? 1 : 0);
    assert_int_equal(m.column_orders[i], PQ_ORDER_TYPE_DEFINED);
    if (wc->lt == PQ_LT_DECIMAL) {
      assert_int_equal(e->precision, wc->type.precision);
      assert_int_equal(e->scale, wc->type.scale);
      assert_int_equal(e->logical.precision, wc->type.precision);
      assert_int_equal(e->logical.scale, wc->type.scale);
    }
    if (wc->lt == PQ_LT_TIMESTAMP || wc->lt == PQ_LT_TIME)
      assert_int_equal(e->logical.utc, wc->type.utc);
  }

  /* What the writer declares reads back as the same inlet types (seconds
   * come back as millis, the unit they were stored in). */
  m.version = 1;
  inlet_buf b = INLET_BUF_INIT;
  assert_int_equal(pq_file_metadata_serialize(&m, &b, &err), 0);
  pq_file_metadata back;
  pq_file_metadata_init(&back);
  assert_int_equal(pq_file_metadata_parse(&back, b.data, b.len, "w.parquet", &err), 0);
  pq_schema_desc r;
  pq_schema_desc_init(&r);
  assert_int_equal(pq_schema_from_parquet(&r, back.schema, back.n_schema, "w.parquet", &err), 0);
  for (size_t i = 0; i < n; i++) {
    inlet_type want = write_cases[i].type;
    if ((want.id == INLET_TYPE_TIME || want.id == INLET_TYPE_TIMESTAMP) &&
        want.unit == INLET_UNIT_SECOND)
      want.unit = INLET_UNIT_MILLI;
    const inlet_type *got = &r.schema.fields[i].type;
    if (got->id != want.id || got->ext != want.ext)
      fail_msg("case %zu: read back as %d", i, got->id);
    if (want.id == INLET_TYPE_TIME || want.id == INLET_TYPE_TIMESTAMP) {
      assert_int_equal(got->unit, want.unit);
      assert_int_equal(got->utc, want.utc);
    }
    if (want.id == INLET_TYPE_DECIMAL) {
      assert_int_equal(got->precision, want.precision);
      assert_int_equal(got->scale, want.scale);
    }
    if (want.id == INLET_TYPE_FIXED_BINARY) assert_int_equal(got->byte_width, want.byte_width);
    assert_string_equal(r.schema.fields[i].name, s.fields[i].name);
    assert_int_equal(r.schema.fields[i].nullable, s.fields[i].nullable);
    assert_int_equal(r.schema.fields[i].field_id, s.fields[i].field_id);
  }
  inlet_buf_reset(&b);
  pq_schema_desc_reset(&r);
  pq_file_metadata_reset(&back);
  pq_schema_desc_reset(&d);
  pq_file_metadata_reset(&m);
  inlet_schema_reset(&s);
}

static void test_schema__writer_refuses_unwritable_types(void **state) {
  (void)state;
  struct {
    inlet_type type;
    int rc;
  } cases[] = {
      {{INLET_TYPE_DECIMAL, 0, 0, 0, 39, 2, 0}, INLET_EINVAL},
      {{INLET_TYPE_DECIMAL, 0, 0, 0, 0, 0, 0}, INLET_EINVAL},
      {{INLET_TYPE_DECIMAL, 0, 0, 0, 5, 6, 0}, INLET_EINVAL},
      {{INLET_TYPE_FIXED_BINARY, 0, 0, 0, 0, 0, 0}, INLET_EINVAL},
      {{INLET_TYPE_FIXED_BINARY, 0, 0, 8, 0, 0, INLET_EXT_UUID}, INLET_EINVAL},
      {{INLET_TYPE_INVALID, 0, 0, 0, 0, 0, 0}, INLET_EINVAL},
      {{INLET_TYPE_STRUCT, 0, 0, 0, 0, 0, 0}, INLET_EUNSUPPORTED},
      {{INLET_TYPE_LIST, 0, 0, 0, 0, 0, 0}, INLET_EUNSUPPORTED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    inlet_field f;
    memset(&f, 0, sizeof f);
    f.name = "x";
    f.type = cases[i].type;
    f.field_id = -1;
    inlet_schema s = {1, &f};
    pq_file_metadata m;
    pq_file_metadata_init(&m);
    pq_schema_desc d;
    pq_schema_desc_init(&d);
    inlet_error err = INLET_ERROR_INIT;
    int rc = pq_schema_to_parquet(&m, &d, &s, &err);
    if (rc != cases[i].rc) fail_msg("case %zu: rc %d (%s)", i, rc, err.message);
    assert_non_null(strstr(err.message, "x"));
    assert_int_equal(m.n_schema, 0);
    pq_schema_desc_reset(&d);
    pq_file_metadata_reset(&m);
  }
}

static void test_schema__decimal_byte_widths(void **state) {
  (void)state;
  /* For each precision the width must hold 10^p - 1 (and not less bytes):
   * checked with exact integer arithmetic up to 18 digits, and against the
   * known boundaries above (19 -> 9, 38 -> 16). */
  for (int p = 1; p <= 18; p++) {
    int64_t max = 1;
    for (int i = 0; i < p; i++)
      max *= 10;
    max -= 1;
    int w = pq_decimal_byte_width(p);
    assert_true(w >= 1 && w <= 8);
    /* 2^(8w-1) - 1 >= max, and 2^(8(w-1)-1) - 1 < max */
    assert_true(w == 8 || ((int64_t)1 << (8 * w - 1)) - 1 >= max);
    if (w > 1) assert_true((((int64_t)1 << (8 * (w - 1) - 1)) - 1) < max);
  }
  assert_int_equal(pq_decimal_byte_width(19), 9);
  assert_int_equal(pq_decimal_byte_width(21), 9);
  assert_int_equal(pq_decimal_byte_width(22), 10);
  assert_int_equal(pq_decimal_byte_width(38), 16);
}

static void test_schema__allocation_failures_are_clean(void **state) {
  (void)state;
  pq_schema_element e[6];
  nested_elems(e);
  pq_schema_desc d;
  pq_schema_desc_init(&d);
  long k;
  for (k = 0;; k++) {
    inlet_error err = INLET_ERROR_INIT;
    inlet_alloc_fail_after(k);
    int rc = pq_schema_build_tree(&d, e, 6, "a.parquet", &err);
    inlet_alloc_fail_after(-1);
    if (rc == 0) break;
    assert_int_equal(rc, INLET_ENOMEM);
    assert_int_equal(d.n_columns, 0);
  }
  assert_true(k >= 3);
  pq_schema_desc_reset(&d);
  /* Writer direction over a schema of every writable type. */
  inlet_schema s;
  inlet_schema_init(&s);
  inlet_error err = INLET_ERROR_INIT;
  for (size_t i = 0; i < sizeof write_cases / sizeof *write_cases; i++) {
    inlet_field f;
    memset(&f, 0, sizeof f);
    f.name = "col";
    f.type = write_cases[i].type;
    f.field_id = -1;
    assert_int_equal(inlet_schema_add_field(&s, &f, &err), 0);
  }
  for (k = 0;; k++) {
    pq_file_metadata m;
    pq_file_metadata_init(&m);
    inlet_alloc_fail_after(k);
    int rc = pq_schema_to_parquet(&m, &d, &s, &err);
    inlet_alloc_fail_after(-1);
    if (rc == 0) {
      /* ... and reading it back, failing at every point too. */
      pq_schema_desc r;
      pq_schema_desc_init(&r);
      long j;
      for (j = 0;; j++) {
        inlet_alloc_fail_after(j);
        int rc2 = pq_schema_from_parquet(&r, m.schema, m.n_schema, "a.parquet", &err);
        inlet_alloc_fail_after(-1);
        if (rc2 == 0) break;
        assert_int_equal(rc2, INLET_ENOMEM);
        assert_int_equal(r.schema.n_fields, 0);
      }
      assert_true(j >= 3);
      pq_schema_desc_reset(&r);
      pq_file_metadata_reset(&m);
      break;
    }
    assert_int_equal(rc, INLET_ENOMEM);
    assert_int_equal(m.n_schema, 0);
    assert_int_equal(d.n_columns, 0);
    pq_file_metadata_reset(&m);
  }
  pq_schema_desc_reset(&d);
  inlet_schema_reset(&s);
}

/* ---- real files against DuckDB's types ---------------------------------- */

/* Column types DuckDB 1.5 reports for the parquet-testing files (refcheck
 * parquet FILE); NULL for files with nested columns. */
static const struct {
  const char *file;
  const char *cols; /* name:TYPE;name:TYPE... */
} duck[] = {
    /* clang-format off */
    {"alltypes_dictionary.parquet", "id:INTEGER;bool_col:BOOLEAN;tinyint_col:INTEGER;smallint_col:INTEGER;int_col:INTEGER;bigint_col:BIGINT;float_col:FLOAT;double_col:DOUBLE;date_string_col:BLOB;string_col:BLOB;timestamp_col:TIMESTAMP"},
    {"alltypes_plain.parquet", "id:INTEGER;bool_col:BOOLEAN;tinyint_col:INTEGER;smallint_col:INTEGER;int_col:INTEGER;bigint_col:BIGINT;float_col:FLOAT;double_col:DOUBLE;date_string_col:BLOB;string_col:BLOB;timestamp_col:TIMESTAMP"},
    {"alltypes_plain.snappy.parquet", "id:INTEGER;bool_col:BOOLEAN;tinyint_col:INTEGER;smallint_col:INTEGER;int_col:INTEGER;bigint_col:BIGINT;float_col:FLOAT;double_col:DOUBLE;date_string_col:BLOB;string_col:BLOB;timestamp_col:TIMESTAMP"},
    {"alltypes_tiny_pages.parquet", "id:INTEGER;bool_col:BOOLEAN;tinyint_col:TINYINT;smallint_col:SMALLINT;int_col:INTEGER;bigint_col:BIGINT;float_col:FLOAT;double_col:DOUBLE;date_string_col:VARCHAR;string_col:VARCHAR;timestamp_col:TIMESTAMP;year:INTEGER;month:INTEGER"},
    {"alltypes_tiny_pages_plain.parquet", "id:INTEGER;bool_col:BOOLEAN;tinyint_col:TINYINT;smallint_col:SMALLINT;int_col:INTEGER;bigint_col:BIGINT;float_col:FLOAT;double_col:DOUBLE;date_string_col:VARCHAR;string_col:VARCHAR;timestamp_col:TIMESTAMP;year:INTEGER;month:INTEGER"},
    {"binary.parquet", "foo:BLOB"},
    {"binary_truncated_min_max.parquet", "utf8_full_truncation:VARCHAR;binary_full_truncation:BLOB;utf8_partial_truncation:VARCHAR;binary_partial_truncation:BLOB;utf8_no_truncation:VARCHAR;binary_no_truncation:BLOB"},
    {"byte_array_decimal.parquet", "value:DECIMAL(4,2)"},
    {"byte_stream_split.zstd.parquet", "f32:FLOAT;f64:DOUBLE"},
    {"column_chunk_key_value_metadata.parquet", "column1:INTEGER;column2:INTEGER"},
    {"concatenated_gzip_members.parquet", "long_col:UBIGINT"},
    {"data_index_bloom_encoding_stats.parquet", "String:VARCHAR"},
    {"data_index_bloom_encoding_with_length.parquet", "String:VARCHAR"},
    {"datapage_v1-corrupt-checksum.parquet", "a:INTEGER;b:INTEGER"},
    {"datapage_v1-snappy-compressed-checksum.parquet", "a:INTEGER;b:INTEGER"},
    {"datapage_v1-uncompressed-checksum.parquet", "a:INTEGER;b:INTEGER"},
    {"datapage_v2.snappy.parquet", NULL},
    {"datapage_v2_empty_datapage.snappy.parquet", "value:FLOAT"},
    {"delta_binary_packed.parquet", "bitwidth0:BIGINT;bitwidth1:BIGINT;bitwidth2:BIGINT;bitwidth3:BIGINT;bitwidth4:BIGINT;bitwidth5:BIGINT;bitwidth6:BIGINT;bitwidth7:BIGINT;bitwidth8:BIGINT;bitwidth9:BIGINT;bitwidth10:BIGINT;bitwidth11:BIGINT;bitwidth12:BIGINT;bitwidth13:BIGINT;bitwidth14:BIGINT;bitwidth15:BIGINT;bitwidth16:BIGINT;bitwidth17:BIGINT;bitwidth18:BIGINT;bitwidth19:BIGINT;bitwidth20:BIGINT;bitwidth21:BIGINT;bitwidth22:BIGINT;bitwidth23:BIGINT;bitwidth24:BIGINT;bitwidth25:BIGINT;bitwidth26:BIGINT;bitwidth27:BIGINT;bitwidth28:BIGINT;bitwidth29:BIGINT;bitwidth30:BIGINT;bitwidth31:BIGINT;bitwidth32:BIGINT;bitwidth33:BIGINT;bitwidth34:BIGINT;bitwidth35:BIGINT;bitwidth36:BIGINT;bitwidth37:BIGINT;bitwidth38:BIGINT;bitwidth39:BIGINT;bitwidth40:BIGINT;bitwidth41:BIGINT;bitwidth42:BIGINT;bitwidth43:BIGINT;bitwidth44:BIGINT;bitwidth45:BIGINT;bitwidth46:BIGINT;bitwidth47:BIGINT;bitwidth48:BIGINT;bitwidth49:BIGINT;bitwidth50:BIGINT;bitwidth51:BIGINT;bitwidth52:BIGINT;bitwidth53:BIGINT;bitwidth54:BIGINT;bitwidth55:BIGINT;bitwidth56:BIGINT;bitwidth57:BIGINT;bitwidth58:BIGINT;bitwidth59:BIGINT;bitwidth60:BIGINT;bitwidth61:BIGINT;bitwidth62:BIGINT;bitwidth63:BIGINT;bitwidth64:BIGINT;int_value:INTEGER"},
    {"delta_byte_array.parquet", "c_customer_id:VARCHAR;c_salutation:VARCHAR;c_first_name:VARCHAR;c_last_name:VARCHAR;c_preferred_cust_flag:VARCHAR;c_birth_country:VARCHAR;c_login:VARCHAR;c_email_address:VARCHAR;c_last_review_date:VARCHAR"},
    {"delta_encoding_optional_column.parquet", "c_customer_sk:BIGINT;c_current_cdemo_sk:BIGINT;c_current_hdemo_sk:BIGINT;c_current_addr_sk:BIGINT;c_first_shipto_date_sk:BIGINT;c_first_sales_date_sk:BIGINT;c_birth_day:BIGINT;c_birth_month:BIGINT;c_birth_year:BIGINT;c_customer_id:VARCHAR;c_salutation:VARCHAR;c_first_name:VARCHAR;c_last_name:VARCHAR;c_preferred_cust_flag:VARCHAR;c_birth_country:VARCHAR;c_email_address:VARCHAR;c_last_review_date:VARCHAR"},
    {"delta_encoding_required_column.parquet", "c_customer_sk::INTEGER;c_current_cdemo_sk::INTEGER;c_current_hdemo_sk::INTEGER;c_current_addr_sk::INTEGER;c_first_shipto_date_sk::INTEGER;c_first_sales_date_sk::INTEGER;c_birth_day::INTEGER;c_birth_month::INTEGER;c_birth_year::INTEGER;c_customer_id::VARCHAR;c_salutation::VARCHAR;c_first_name::VARCHAR;c_last_name::VARCHAR;c_preferred_cust_flag::VARCHAR;c_birth_country::VARCHAR;c_email_address::VARCHAR;c_last_review_date::VARCHAR"},
    {"delta_length_byte_array.parquet", "FRUIT:VARCHAR"},
    {"dict-page-offset-zero.parquet", "l_partkey:INTEGER"},
    {"fixed_length_byte_array.parquet", "flba_field:BLOB"},
    {"fixed_length_decimal.parquet", "value:DECIMAL(25,2)"},
    {"fixed_length_decimal_legacy.parquet", "value:DECIMAL(13,2)"},
    {"float16_nonzeros_and_nans.parquet", "x:FLOAT"},
    {"float16_zeros_and_nans.parquet", "x:FLOAT"},
    {"floating_orders_nan_count.parquet", "float_ieee754:FLOAT;float_typedef:FLOAT;double_ieee754:DOUBLE;double_typedef:DOUBLE;float16_ieee754:FLOAT;float16_typedef:FLOAT"},
    {"incorrect_map_schema.parquet", NULL},
    {"int32_decimal.parquet", "value:DECIMAL(4,2)"},
    {"int32_with_null_pages.parquet", "int32_field:INTEGER"},
    {"int64_decimal.parquet", "value:DECIMAL(10,2)"},
    {"int96_from_spark.parquet", "a:TIMESTAMP"},
    {"list_columns.parquet", NULL},
    {"lz4_raw_compressed.parquet", "c0:BIGINT;c1:BLOB;v11:DOUBLE"},
    {"lz4_raw_compressed_larger.parquet", "a:VARCHAR"},
    {"nan_in_stats.parquet", "x:DOUBLE"},
    {"nation.dict-malformed.parquet", "nation_key:INTEGER;name:BLOB;region_key:INTEGER;comment_col:BLOB"},
    {"nested_lists.snappy.parquet", NULL},
    {"nested_maps.snappy.parquet", NULL},
    {"nested_structs.rust.parquet", NULL},
    {"nonnullable.impala.parquet", NULL},
    {"null_list.parquet", NULL},
    {"nullable.impala.parquet", NULL},
    {"nulls.snappy.parquet", NULL},
    {"old_list_structure.parquet", NULL},
    {"overflow_i16_page_cnt.parquet", "inc:BOOLEAN"},
    {"page_v2_empty_compressed.parquet", "integer_column:INTEGER"},
    {"plain-dict-uncompressed-checksum.parquet", "long_field:BIGINT;binary_field:BLOB"},
    {"repeated_no_annotation.parquet", NULL},
    {"repeated_primitive_no_list.parquet", NULL},
    {"rle-dict-snappy-checksum.parquet", "long_field:BIGINT;binary_field:BLOB"},
    {"rle-dict-uncompressed-corrupt-checksum.parquet", "long_field:BIGINT;binary_field:BLOB"},
    {"rle_boolean_encoding.parquet", "datatype_boolean:BOOLEAN"},
    {"single_nan.parquet", "mycol:DOUBLE"},
    {"sort_columns.parquet", "a:BIGINT;b:VARCHAR"},
    {"unknown-logical-type.parquet", "column with known type:VARCHAR;column with unknown type:BLOB"},
    /* clang-format on */
};

/* DuckDB's name of an inlet type, for the comparison. */
static const char *duck_name(const inlet_type *t, char *buf, size_t cap) {
  switch (t->id) {
  case INLET_TYPE_BOOL: return "BOOLEAN";
  case INLET_TYPE_INT8: return "TINYINT";
  case INLET_TYPE_INT16: return "SMALLINT";
  case INLET_TYPE_INT32: return "INTEGER";
  case INLET_TYPE_INT64: return "BIGINT";
  case INLET_TYPE_UINT8: return "UTINYINT";
  case INLET_TYPE_UINT16: return "USMALLINT";
  case INLET_TYPE_UINT32: return "UINTEGER";
  case INLET_TYPE_UINT64: return "UBIGINT";
  case INLET_TYPE_FLOAT: return "FLOAT";
  case INLET_TYPE_DOUBLE: return "DOUBLE";
  case INLET_TYPE_STRING: return "VARCHAR";
  case INLET_TYPE_BINARY:
  case INLET_TYPE_FIXED_BINARY: return "BLOB";
  case INLET_TYPE_DATE: return "DATE";
  case INLET_TYPE_TIMESTAMP: return t->utc ? "TIMESTAMP WITH TIME ZONE" : "TIMESTAMP";
  case INLET_TYPE_DECIMAL: snprintf(buf, cap, "DECIMAL(%d,%d)", t->precision, t->scale); return buf;
  default: return "?";
  }
}

static void test_schema__testing_files_map_like_duckdb(void **state) {
  (void)state;
  int flat = 0, nested = 0;
  for (size_t i = 0; i < sizeof duck / sizeof *duck; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", DATA_DIR, duck[i].file);
    size_t n;
    char *data = tu_read_file(path, &n);
    assert_non_null(data);
    uint32_t fl = (uint8_t)data[n - 8] | (uint32_t)(uint8_t)data[n - 7] << 8 |
                  (uint32_t)(uint8_t)data[n - 6] << 16 | (uint32_t)(uint8_t)data[n - 5] << 24;
    pq_file_metadata m;
    pq_file_metadata_init(&m);
    inlet_error err = INLET_ERROR_INIT;
    if (pq_file_metadata_parse(&m, (uint8_t *)data + n - 8 - fl, fl, duck[i].file, &err) != 0)
      fail_msg("%s: %s", duck[i].file, err.message);
    free(data);
    pq_schema_desc d;
    pq_schema_desc_init(&d);
    int rc = pq_schema_from_parquet(&d, m.schema, m.n_schema, duck[i].file, &err);
    if (!duck[i].cols) {
      if (rc != INLET_EUNSUPPORTED || !strstr(err.message, "nested column"))
        fail_msg("%s: rc %d: %s", duck[i].file, rc, err.message);
      nested++;
    } else {
      if (rc != 0) fail_msg("%s: rc %d: %s", duck[i].file, rc, err.message);
      const char *p = duck[i].cols;
      int32_t k = 0;
      while (*p) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[256];
        assert_true(len < sizeof item);
        memcpy(item, p, len);
        item[len] = '\0';
        char *colon = strrchr(item, ':');
        assert_non_null(colon);
        /* DECIMAL(p,s) has no colon; the type is after the last one. */
        *colon = '\0';
        assert_true(k < d.schema.n_fields);
        assert_string_equal(d.schema.fields[k].name, item);
        char buf[64];
        const char *got = duck_name(&d.schema.fields[k].type, buf, sizeof buf);
        if (strcmp(got, colon + 1) != 0)
          fail_msg("%s column %s: inlet %s, DuckDB %s", duck[i].file, item, got, colon + 1);
        k++;
        p += len + (end ? 1 : 0);
      }
      assert_int_equal(k, d.schema.n_fields);
      flat++;
    }
    pq_schema_desc_reset(&d);
    pq_file_metadata_reset(&m);
  }
  assert_true(flat >= 40);
  assert_true(nested >= 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_schema__every_physical_and_annotation_maps),
      cmocka_unit_test(test_schema__annotation_on_wrong_physical_type_is_corrupt),
      cmocka_unit_test(test_schema__decimal_precision_over_38_is_unsupported),
      cmocka_unit_test(test_schema__nested_tree_levels_and_paths),
      cmocka_unit_test(test_schema__inconsistent_trees_are_corrupt),
      cmocka_unit_test(test_schema__writer_sets_logical_and_legacy_annotations),
      cmocka_unit_test(test_schema__writer_refuses_unwritable_types),
      cmocka_unit_test(test_schema__decimal_byte_widths),
      cmocka_unit_test(test_schema__allocation_failures_are_clean),
      cmocka_unit_test(test_schema__testing_files_map_like_duckdb),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
