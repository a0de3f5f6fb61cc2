/*
 * Unit tests for src/parquet/pq_meta.c: FileMetaData and PageHeader
 * serialize -> parse round trips, the real footers of the parquet-testing
 * files (values checked against the files' documented contents and DuckDB's
 * reading of them), footer framing errors, and hostile metadata (truncation,
 * byte flips, inconsistent schema trees) that must fail cleanly.
 */
#include <dirent.h>
#include <stdio.h>

#include "testutil.h"

#include "parquet/pq_meta.h"
#include "parquet/thrift.h"
#include "util/buf.h"

#define DATA_DIR INLET_TESTDATA "/parquet-testing/data"
#define BAD_DIR INLET_TESTDATA "/parquet-testing/bad_data"

/* ---- an in-memory inlet_rfile ------------------------------------------- */

typedef struct mem_rfile {
  inlet_rfile base;
  uint8_t *data; /* exact-size copy: overreads are ASan errors */
} mem_rfile;

static int mem_read_at(inlet_rfile *f, int64_t off, void *buf, size_t n, inlet_error *err) {
  mem_rfile *m = (mem_rfile *)f;
  if (off < 0 || off > f->size || (int64_t)n > f->size - off)
    return inlet_fail(err, INLET_ECORRUPT, "%s: truncated", f->name);
  memcpy(buf, m->data + off, n);
  return 0;
}

static void mem_close(inlet_rfile *f) {
  mem_rfile *m = (mem_rfile *)f;
  free(m->data);
  free(f->name);
  free(m);
}

static const struct inlet_rfile_ops mem_ops = {.read_at = mem_read_at,
                                               .close = mem_close,
                                               .read_ranges = inlet_rfile_read_ranges_serial,
                                               .read_tail = inlet_rfile_read_tail_sized};

static inlet_rfile *mem_open(const char *name, const void *data, size_t n) {
  mem_rfile *m = calloc(1, sizeof *m);
  assert_non_null(m);
  m->base.ops = &mem_ops;
  m->base.name = strdup(name);
  m->base.size = (int64_t)n;
  m->data = malloc(n ? n : 1);
  if (n) memcpy(m->data, data, n);
  return &m->base;
}

/* Reads a test file fully; NULL when missing. */
static uint8_t *slurp(const char *path, size_t *n) {
  return (uint8_t *)tu_read_file(path, n);
}

/* Parses the footer of a file on disk. */
static int read_footer(pq_file_metadata *m, const char *path, inlet_error *err) {
  size_t n;
  uint8_t *d = slurp(path, &n);
  assert_non_null(d);
  const char *base = strrchr(path, '/');
  inlet_rfile *f = mem_open(base ? base + 1 : path, d, n);
  free(d);
  int rc = pq_footer_read(m, f, 256 << 20, err);
  inlet_rfile_close(f);
  return rc;
}

/* The raw FileMetaData bytes of a file (between data and length). */
static uint8_t *footer_bytes(const char *path, size_t *len) {
  size_t n;
  uint8_t *d = slurp(path, &n);
  assert_non_null(d);
  assert_true(n >= 12);
  uint32_t fl = (uint32_t)d[n - 8] | (uint32_t)d[n - 7] << 8 | (uint32_t)d[n - 6] << 16 |
                (uint32_t)d[n - 5] << 24;
  assert_true(fl <= n - 12);
  uint8_t *f = malloc(fl ? fl : 1);
  memcpy(f, d + n - 8 - fl, fl);
  free(d);
  *len = fl;
  return f;
}

/* ---- hand-built metadata ---------------------------------------------- */

static void build_meta(pq_file_metadata *m) {
  inlet_error err = INLET_ERROR_INIT;
  pq_file_metadata_init(m);
  m->version = 2;
  m->num_rows = 1234567890123LL;
  m->n_schema = 4;
  m->schema = pq_meta_alloc_array(m, 4, sizeof *m->schema, &err);
  assert_non_null(m->schema);
  pq_schema_element *s = m->schema;
  s[0].name = pq_meta_strdup(m, "schema", &err);
  s[0].has_num_children = true;
  s[0].num_children = 3;
  s[0].converted_type = PQ_CT_NONE;
  s[1].name = pq_meta_strdup(m, "id", &err);
  s[1].has_type = true;
  s[1].type = PQ_INT64;
  s[1].has_repetition = true;
  s[1].repetition = PQ_REQUIRED;
  s[1].converted_type = PQ_CT_INT_64;
  s[1].logical.kind = PQ_LT_INTEGER;
  s[1].logical.bit_width = 64;
  s[1].logical.is_signed = true;
  s[1].has_field_id = true;
  s[1].field_id = -7;
  s[2].name = pq_meta_strdup(m, "ts", &err);
  s[2].has_type = true;
  s[2].type = PQ_INT64;
  s[2].has_repetition = true;
  s[2].repetition = PQ_OPTIONAL;
  s[2].converted_type = PQ_CT_TIMESTAMP_MICROS;
  s[2].logical.kind = PQ_LT_TIMESTAMP;
  s[2].logical.unit = PQ_UNIT_NANOS;
  s[2].logical.utc = true;
  s[3].name = pq_meta_strdup(m, "amount", &err);
  s[3].has_type = true;
  s[3].type = PQ_FIXED_LEN_BYTE_ARRAY;
  s[3].has_type_length = true;
  s[3].type_length = 16;
  s[3].has_repetition = true;
  s[3].repetition = PQ_OPTIONAL;
  s[3].converted_type = PQ_CT_DECIMAL;
  s[3].has_scale = true;
  s[3].scale = 4;
  s[3].has_precision = true;
  s[3].precision = 38;
  s[3].logical.kind = PQ_LT_DECIMAL;
  s[3].logical.scale = 4;
  s[3].logical.precision = 38;

  m->n_row_groups = 2;
  m->row_groups = pq_meta_alloc_array(m, 2, sizeof *m->row_groups, &err);
  for (int g = 0; g < 2; g++) {
    pq_row_group *rg = &m->row_groups[g];
    rg->n_columns = 3;
    rg->columns = pq_meta_alloc_array(m, 3, sizeof *rg->columns, &err);
    rg->total_byte_size = 1000 + g;
    rg->num_rows = 500 + g;
    rg->has_file_offset = true;
    rg->file_offset = 4 + g * 1000;
    rg->has_total_compressed_size = true;
    rg->total_compressed_size = 900;
    rg->has_ordinal = true;
    rg->ordinal = (int16_t)g;
    if (g == 1) {
      rg->n_sorting_columns = 1;
      rg->sorting_columns = pq_meta_alloc(m, sizeof *rg->sorting_columns, &err);
      rg->sorting_columns[0].column_idx = 0;
      rg->sorting_columns[0].descending = true;
      rg->sorting_columns[0].nulls_first = false;
    }
    for (int k = 0; k < 3; k++) {
      pq_column_chunk *cc = &rg->columns[k];
      pq_column_meta *cm = &cc->meta_data;
      cc->has_meta_data = true;
      cc->file_offset = 0;
      cm->type = s[k + 1].type;
      cm->n_encodings = 3;
      cm->encodings = pq_meta_alloc_array(m, 3, sizeof(int32_t), &err);
      cm->encodings[0] = PQ_ENC_PLAIN;
      cm->encodings[1] = PQ_ENC_RLE;
      cm->encodings[2] = PQ_ENC_RLE_DICTIONARY;
      cm->n_path = 1;
      cm->path_in_schema = pq_meta_alloc(m, sizeof(char *), &err);
      cm->path_in_schema[0] = s[k + 1].name;
      cm->codec = PQ_CODEC_ZSTD;
      cm->num_values = 500 + g;
      cm->total_uncompressed_size = 3000 + k;
      cm->total_compressed_size = 2000 + k;
      cm->data_page_offset = 100 + k * 10;
      cm->has_dictionary_page_offset = k == 1;
      cm->dictionary_page_offset = 50;
      cm->has_statistics = true;
      cm->statistics.has_null_count = true;
      cm->statistics.null_count = k;
      cm->statistics.has_min_value = cm->statistics.has_max_value = true;
      cm->statistics.min_value.data = (const uint8_t *)"\x00\x01";
      cm->statistics.min_value.len = 2;
      cm->statistics.max_value.data = (const uint8_t *)"\xff\xfe\x00";
      cm->statistics.max_value.len = 3;
      cm->statistics.has_is_max_value_exact = true;
      cm->statistics.is_max_value_exact = k == 0;
      cm->statistics.has_nan_count = k == 2;
      cm->statistics.nan_count = 9;
      cm->n_encoding_stats = 1;
      cm->encoding_stats = pq_meta_alloc(m, sizeof *cm->encoding_stats, &err);
      cm->encoding_stats[0].page_type = PQ_PAGE_DATA;
      cm->encoding_stats[0].encoding = PQ_ENC_PLAIN;
      cm->encoding_stats[0].count = 3;
      if (k == 2) {
        cm->n_key_value = 1;
        cm->key_value = pq_meta_alloc(m, sizeof *cm->key_value, &err);
        assert_int_equal(pq_meta_set_kv(m, cm->key_value, "col", NULL, &err), 0);
      }
      cc->has_column_index = k == 0;
      cc->column_index_offset = 7777;
      cc->column_index_length = 12;
    }
  }
  m->n_key_value = 2;
  m->key_value = pq_meta_alloc_array(m, 2, sizeof *m->key_value, &err);
  assert_int_equal(pq_meta_set_kv(m, &m->key_value[0], "ARROW:schema", "abc=", &err), 0);
  assert_int_equal(pq_meta_set_kv(m, &m->key_value[1], "empty", "", &err), 0);
  m->created_by = pq_meta_strdup(m, "inlet version 0.1.0 (build test)", &err);
  m->n_column_orders = 3;
  m->column_orders = pq_meta_alloc_array(m, 3, sizeof(int32_t), &err);
  for (int k = 0; k < 3; k++)
    m->column_orders[k] = PQ_ORDER_TYPE_DEFINED;
  assert_int_equal(err.code, 0);
}

static void assert_bytes_eq(pq_bytes a, pq_bytes b) {
  assert_int_equal(a.len, b.len);
  if (a.len) assert_memory_equal(a.data, b.data, a.len);
}

static void assert_stats_eq(const pq_statistics *a, const pq_statistics *b) {
  assert_int_equal(a->has_max, b->has_max);
  assert_int_equal(a->has_min, b->has_min);
  if (a->has_max) assert_bytes_eq(a->max, b->max);
  if (a->has_min) assert_bytes_eq(a->min, b->min);
  assert_int_equal(a->has_null_count, b->has_null_count);
  assert_true(a->null_count == b->null_count || !a->has_null_count);
  assert_int_equal(a->has_distinct_count, b->has_distinct_count);
  assert_int_equal(a->has_max_value, b->has_max_value);
  assert_int_equal(a->has_min_value, b->has_min_value);
  if (a->has_max_value) assert_bytes_eq(a->max_value, b->max_value);
  if (a->has_min_value) assert_bytes_eq(a->min_value, b->min_value);
  assert_int_equal(a->has_is_max_value_exact, b->has_is_max_value_exact);
  if (a->has_is_max_value_exact) assert_int_equal(a->is_max_value_exact, b->is_max_value_exact);
  assert_int_equal(a->has_nan_count, b->has_nan_count);
  if (a->has_nan_count) assert_true(a->nan_count == b->nan_count);
}

static void assert_meta_eq(const pq_file_metadata *a, const pq_file_metadata *b) {
  assert_int_equal(a->version, b->version);
  assert_true(a->num_rows == b->num_rows);
  assert_int_equal(a->n_schema, b->n_schema);
  for (int i = 0; i < a->n_schema; i++) {
    const pq_schema_element *x = &a->schema[i], *y = &b->schema[i];
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->has_type, y->has_type);
    if (x->has_type) assert_int_equal(x->type, y->type);
    assert_int_equal(x->has_type_length, y->has_type_length);
    if (x->has_type_length) assert_int_equal(x->type_length, y->type_length);
    assert_int_equal(x->has_repetition, y->has_repetition);
    if (x->has_repetition) assert_int_equal(x->repetition, y->repetition);
    assert_int_equal(x->has_num_children, y->has_num_children);
    if (x->has_num_children) assert_int_equal(x->num_children, y->num_children);
    assert_int_equal(x->converted_type, y->converted_type);
    assert_int_equal(x->has_scale, y->has_scale);
    assert_int_equal(x->scale, y->scale);
    assert_int_equal(x->has_precision, y->has_precision);
    assert_int_equal(x->precision, y->precision);
    assert_int_equal(x->has_field_id, y->has_field_id);
    assert_int_equal(x->field_id, y->field_id);
    assert_memory_equal(&x->logical, &y->logical, sizeof x->logical);
  }
  assert_int_equal(a->n_row_groups, b->n_row_groups);
  for (int g = 0; g < a->n_row_groups; g++) {
    const pq_row_group *x = &a->row_groups[g], *y = &b->row_groups[g];
    assert_int_equal(x->n_columns, y->n_columns);
    assert_true(x->total_byte_size == y->total_byte_size);
    assert_true(x->num_rows == y->num_rows);
    assert_int_equal(x->has_file_offset, y->has_file_offset);
    assert_true(x->file_offset == y->file_offset);
    assert_int_equal(x->has_total_compressed_size, y->has_total_compressed_size);
    assert_true(x->total_compressed_size == y->total_compressed_size);
    assert_int_equal(x->has_ordinal, y->has_ordinal);
    assert_int_equal(x->ordinal, y->ordinal);
    assert_int_equal(x->n_sorting_columns, y->n_sorting_columns);
    if (x->n_sorting_columns)
      assert_memory_equal(x->sorting_columns, y->sorting_columns,
                          sizeof *x->sorting_columns * (size_t)x->n_sorting_columns);
    for (int k = 0; k < x->n_columns; k++) {
      const pq_column_chunk *p = &x->columns[k], *q = &y->columns[k];
      assert_true(p->file_offset == q->file_offset);
      assert_int_equal(p->has_column_index, q->has_column_index);
      if (p->has_column_index) {
        assert_true(p->column_index_offset == q->column_index_offset);
        assert_int_equal(p->column_index_length, q->column_index_length);
      }
      assert_int_equal(p->has_offset_index, q->has_offset_index);
      assert_int_equal(p->has_meta_data, q->has_meta_data);
      const pq_column_meta *c = &p->meta_data, *d = &q->meta_data;
      assert_int_equal(c->type, d->type);
      assert_int_equal(c->n_encodings, d->n_encodings);
      if (c->n_encodings)
        assert_memory_equal(c->encodings, d->encodings, sizeof(int32_t) * (size_t)c->n_encodings);
      assert_int_equal(c->n_path, d->n_path);
      for (int i = 0; i < c->n_path; i++)
        assert_string_equal(c->path_in_schema[i], d->path_in_schema[i]);
      assert_int_equal(c->codec, d->codec);
      assert_true(c->num_values == d->num_values);
      assert_true(c->total_uncompressed_size == d->total_uncompressed_size);
      assert_true(c->total_compressed_size == d->total_compressed_size);
      assert_true(c->data_page_offset == d->data_page_offset);
      assert_int_equal(c->has_dictionary_page_offset, d->has_dictionary_page_offset);
      if (c->has_dictionary_page_offset)
        assert_true(c->dictionary_page_offset == d->dictionary_page_offset);
      assert_int_equal(c->has_index_page_offset, d->has_index_page_offset);
      assert_int_equal(c->has_statistics, d->has_statistics);
      if (c->has_statistics) assert_stats_eq(&c->statistics, &d->statistics);
      assert_int_equal(c->n_encoding_stats, d->n_encoding_stats);
      if (c->n_encoding_stats)
        assert_memory_equal(c->encoding_stats, d->encoding_stats,
                            sizeof *c->encoding_stats * (size_t)c->n_encoding_stats);
      assert_int_equal(c->n_key_value, d->n_key_value);
      for (int i = 0; i < c->n_key_value; i++) {
        assert_string_equal(c->key_value[i].key, d->key_value[i].key);
        assert_int_equal(c->key_value[i].value == NULL, d->key_value[i].value == NULL);
      }
    }
  }
  assert_int_equal(a->n_key_value, b->n_key_value);
  for (int i = 0; i < a->n_key_value; i++) {
    assert_string_equal(a->key_value[i].key, b->key_value[i].key);
    assert_int_equal(a->key_value[i].value == NULL, b->key_value[i].value == NULL);
    if (a->key_value[i].value) assert_string_equal(a->key_value[i].value, b->key_value[i].value);
  }
  assert_int_equal(a->created_by == NULL, b->created_by == NULL);
  if (a->created_by) assert_string_equal(a->created_by, b->created_by);
  assert_int_equal(a->n_column_orders, b->n_column_orders);
  if (a->n_column_orders)
    assert_memory_equal(a->column_orders, b->column_orders,
                        sizeof(int32_t) * (size_t)a->n_column_orders);
}

static void test_meta__serialize_parse_roundtrip_keeps_every_field(void **state) {
  (void)state;
  pq_file_metadata m, back;
  build_meta(&m);
  pq_file_metadata_init(&back);
  inlet_buf b = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_file_metadata_serialize(&m, &b, &err), 0);
  uint8_t *exact = malloc(b.len);
  memcpy(exact, b.data, b.len);
  assert_int_equal(pq_file_metadata_parse(&back, exact, b.len, "t.parquet", &err), 0);
  free(exact); /* parsed metadata must not point into the input */
  assert_meta_eq(&m, &back);
  /* Serializing the parsed copy gives the same bytes. */
  inlet_buf b2 = INLET_BUF_INIT;
  assert_int_equal(pq_file_metadata_serialize(&back, &b2, &err), 0);
  assert_int_equal(b.len, b2.len);
  assert_memory_equal(b.data, b2.data, b.len);
  inlet_buf_reset(&b);
  inlet_buf_reset(&b2);
  pq_file_metadata_reset(&m);
  pq_file_metadata_reset(&back);
}

static void test_meta__footer_serialize_then_read(void **state) {
  (void)state;
  pq_file_metadata m, back;
  build_meta(&m);
  pq_file_metadata_init(&back);
  inlet_buf b = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  inlet_buf_append(&b, "PAR1", 4);
  inlet_buf_append(&b, "fake column data", 16);
  size_t meta_start = b.len;
  assert_int_equal(pq_footer_serialize(&m, &b, &err), 0);
  size_t meta_len = b.len - 8 - meta_start;
  assert_memory_equal(b.data + b.len - 4, "PAR1", 4);
  assert_int_equal(b.data[b.len - 8], meta_len & 0xff);
  assert_int_equal(b.data[b.len - 7], (meta_len >> 8) & 0xff);
  inlet_rfile *f = mem_open("mem.parquet", b.data, b.len);
  assert_int_equal(pq_footer_read(&back, f, 1 << 20, &err), 0);
  assert_meta_eq(&m, &back);
  /* A footer larger than the limit is INLET_ELIMIT. */
  assert_int_equal(pq_footer_read(&back, f, 10, &err), INLET_ELIMIT);
  assert_non_null(strstr(err.message, "mem.parquet"));
  inlet_rfile_close(f);
  inlet_buf_reset(&b);
  pq_file_metadata_reset(&m);
  pq_file_metadata_reset(&back);
}

static void test_meta__footer_framing_errors_name_the_file(void **state) {
  (void)state;
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  inlet_error err = INLET_ERROR_INIT;
  struct {
    const char *bytes;
    size_t len;
    int rc;
    const char *needle;
  } cases[] = {
      {"PAR1PAR1", 8, INLET_ECORRUPT, "too small"},
      {"XXXX\x00\x00\x00\x00PAR1", 12, INLET_ECORRUPT, "no PAR1 magic at the start"},
      {"PAR1\x00\x00\x00\x00PAR2", 12, INLET_ECORRUPT, "no PAR1 magic at the end"},
      {"PAR1\xff\x00\x00\x00PAR1", 12, INLET_ECORRUPT, "exceeds the file size"},
      {"PAR1\x05\x00\x00\x00PAR1", 12, INLET_ECORRUPT, "exceeds the file size"},
      {"PARE\x00\x00\x00\x00PARE", 12, INLET_EUNSUPPORTED, "encrypted Parquet is not supported"},
      {"PAR1\x00\x00\x00\x00PAR1", 12, INLET_ECORRUPT, "corrupt footer"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    inlet_rfile *f = mem_open("bad.parquet", cases[i].bytes, cases[i].len);
    inlet_error_clear(&err);
    assert_int_equal(pq_footer_read(&m, f, 1 << 20, &err), cases[i].rc);
    assert_non_null(strstr(err.message, "bad.parquet"));
    if (!strstr(err.message, cases[i].needle)) fail_msg("case %zu: %s", i, err.message);
    inlet_rfile_close(f);
  }
  pq_file_metadata_reset(&m);
}

/* ---- real files ------------------------------------------------------ */

static void test_meta__alltypes_plain_footer(void **state) {
  (void)state;
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(read_footer(&m, DATA_DIR "/alltypes_plain.parquet", &err), 0);
  assert_int_equal(m.num_rows, 8);
  assert_int_equal(m.n_schema, 12);
  assert_int_equal(m.schema[0].num_children, 11);
  static const char *names[] = {
      "id",        "bool_col",   "tinyint_col",     "smallint_col", "int_col",      "bigint_col",
      "float_col", "double_col", "date_string_col", "string_col",   "timestamp_col"};
  static const pq_type types[] = {PQ_INT32,      PQ_BOOLEAN,    PQ_INT32, PQ_INT32,
                                  PQ_INT32,      PQ_INT64,      PQ_FLOAT, PQ_DOUBLE,
                                  PQ_BYTE_ARRAY, PQ_BYTE_ARRAY, PQ_INT96};
  for (int i = 0; i < 11; i++) {
    assert_string_equal(m.schema[i + 1].name, names[i]);
    assert_int_equal(m.schema[i + 1].type, types[i]);
    assert_int_equal(m.schema[i + 1].repetition, PQ_OPTIONAL);
  }
  assert_int_equal(m.n_row_groups, 1);
  assert_int_equal(m.row_groups[0].num_rows, 8);
  assert_int_equal(m.row_groups[0].n_columns, 11);
  const pq_column_meta *id = &m.row_groups[0].columns[0].meta_data;
  assert_int_equal(id->codec, PQ_CODEC_UNCOMPRESSED);
  assert_int_equal(id->num_values, 8);
  assert_string_equal(id->path_in_schema[0], "id");
  assert_non_null(m.created_by);
  assert_non_null(strstr(m.created_by, "impala"));
  pq_file_metadata_reset(&m);
}

static void test_meta__encoding_stats_and_kv_from_real_files(void **state) {
  (void)state;
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(read_footer(&m, DATA_DIR "/data_index_bloom_encoding_stats.parquet", &err), 0);
  const pq_column_meta *cm = &m.row_groups[0].columns[0].meta_data;
  assert_true(cm->n_encoding_stats > 0);
  assert_true(cm->has_bloom_filter_offset);
  assert_true(m.row_groups[0].columns[0].has_offset_index);
  pq_file_metadata_reset(&m);

  assert_int_equal(read_footer(&m, DATA_DIR "/column_chunk_key_value_metadata.parquet", &err), 0);
  cm = &m.row_groups[0].columns[0].meta_data;
  assert_true(cm->n_key_value > 0);
  assert_non_null(cm->key_value[0].key);
  pq_file_metadata_reset(&m);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Every file parses, or fails with the documented reason; parse ->
 * serialize -> parse -> serialize is stable. */
static void test_meta__every_testing_file_parses_and_reserializes(void **state) {
  (void)state;
  DIR *dir = opendir(DATA_DIR);
  assert_non_null(dir);
  struct dirent *de;
  int parsed = 0, encrypted = 0;
  while ((de = readdir(dir))) {
    if (!ends_with(de->d_name, ".parquet") && !ends_with(de->d_name, ".parquet.encrypted"))
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DATA_DIR, de->d_name);
    pq_file_metadata m, m2;
    pq_file_metadata_init(&m);
    pq_file_metadata_init(&m2);
    inlet_error err = INLET_ERROR_INIT;
    int rc = read_footer(&m, path, &err);
    if (ends_with(de->d_name, ".encrypted")) {
      if (rc != INLET_EUNSUPPORTED) fail_msg("%s: rc %d: %s", de->d_name, rc, err.message);
      assert_non_null(strstr(err.message, "encrypted Parquet is not supported"));
      encrypted++;
      continue;
    }
    if (rc != 0) fail_msg("%s: rc %d: %s", de->d_name, rc, err.message);
    parsed++;
    inlet_buf a = INLET_BUF_INIT, b = INLET_BUF_INIT;
    assert_int_equal(pq_file_metadata_serialize(&m, &a, &err), 0);
    if (pq_file_metadata_parse(&m2, a.data, a.len, de->d_name, &err) != 0)
      fail_msg("%s: reparse: %s", de->d_name, err.message);
    assert_meta_eq(&m, &m2);
    assert_int_equal(pq_file_metadata_serialize(&m2, &b, &err), 0);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    inlet_buf_reset(&a);
    inlet_buf_reset(&b);
    pq_file_metadata_reset(&m);
    pq_file_metadata_reset(&m2);
  }
  closedir(dir);
  assert_true(parsed >= 60);
  assert_true(encrypted >= 5);
}

static void test_meta__corrupted_schema_type_in_bad_data_is_corrupt(void **state) {
  (void)state;
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  inlet_error err = INLET_ERROR_INIT;
  int rc = read_footer(&m, BAD_DIR "/PARQUET-1481.parquet", &err);
  assert_int_equal(rc, INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "PARQUET-1481.parquet: corrupt footer"));
  pq_file_metadata_reset(&m);
  /* Its encodings lists announce i16 elements, which thrift's generated
   * readers take as the varints they are, and so do we; what is wrong is
   * that row group 1 does not have the schema's columns (ARROW GH-41317). */
  assert_int_equal(read_footer(&m, BAD_DIR "/ARROW-GH-41317.parquet", &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "ARROW-GH-41317.parquet: corrupt footer: row group 1 "
                                      "column 18: path_in_schema does not name"));
  pq_file_metadata_reset(&m);
  /* Every other bad_data file has a readable footer: its faults are in pages. */
  static const char *readable[] = {"ARROW-GH-41321.parquet",
                                   "ARROW-GH-43605.parquet",
                                   "ARROW-GH-45185.parquet",
                                   "ARROW-GH-47662.parquet",
                                   "ARROW-RS-GH-6229-DICTHEADER.parquet",
                                   "ARROW-RS-GH-6229-LEVELS.parquet"};
  for (size_t i = 0; i < sizeof readable / sizeof *readable; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", BAD_DIR, readable[i]);
    if (read_footer(&m, path, &err) != 0) fail_msg("%s: %s", readable[i], err.message);
    pq_file_metadata_reset(&m);
  }
}

/* ---- hostile metadata -------------------------------------------------- */

static void test_meta__every_truncated_footer_is_corrupt(void **state) {
  (void)state;
  size_t n;
  uint8_t *f = footer_bytes(DATA_DIR "/alltypes_plain.parquet", &n);
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  for (size_t len = 0; len < n; len++) {
    uint8_t *d = malloc(len ? len : 1);
    memcpy(d, f, len);
    inlet_error err = INLET_ERROR_INIT;
    int rc = pq_file_metadata_parse(&m, d, len, "x.parquet", &err);
    free(d);
    if (rc != INLET_ECORRUPT) fail_msg("prefix %zu of %zu: rc %d", len, n, rc);
    assert_non_null(strstr(err.message, "x.parquet: corrupt footer"));
    assert_int_equal(m.n_schema, 0); /* left reset */
  }
  free(f);
  pq_file_metadata_reset(&m);
}

static void test_meta__every_truncated_file_is_corrupt(void **state) {
  (void)state;
  size_t n;
  uint8_t *d = slurp(DATA_DIR "/alltypes_plain.parquet", &n);
  assert_non_null(d);
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  for (size_t len = 0; len < n; len++) {
    inlet_rfile *f = mem_open("cut.parquet", d, len);
    inlet_error err = INLET_ERROR_INIT;
    int rc = pq_footer_read(&m, f, 1 << 20, &err);
    inlet_rfile_close(f);
    if (rc != INLET_ECORRUPT) fail_msg("length %zu: rc %d: %s", len, rc, err.message);
    assert_non_null(strstr(err.message, "cut.parquet"));
  }
  /* A footer length pointing before the start magic, or past it. */
  uint8_t *e = malloc(n);
  memcpy(e, d, n);
  for (uint32_t fl = (uint32_t)n - 11; fl < (uint32_t)n + 3; fl++) {
    e[n - 8] = (uint8_t)fl;
    e[n - 7] = (uint8_t)(fl >> 8);
    e[n - 6] = (uint8_t)(fl >> 16);
    e[n - 5] = (uint8_t)(fl >> 24);
    inlet_rfile *f = mem_open("len.parquet", e, n);
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(pq_footer_read(&m, f, 1 << 20, &err), INLET_ECORRUPT);
    assert_non_null(strstr(err.message, "exceeds the file size"));
    inlet_rfile_close(f);
  }
  free(e);
  free(d);
  pq_file_metadata_reset(&m);
}

static void test_meta__byte_flips_never_crash(void **state) {
  (void)state;
  size_t n;
  uint8_t *f = footer_bytes(DATA_DIR "/alltypes_dictionary.parquet", &n);
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  static const uint8_t vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x19, 0x1c, 0xf9};
  for (size_t i = 0; i < n; i++) {
    for (size_t v = 0; v < sizeof vals; v++) {
      uint8_t *d = malloc(n);
      memcpy(d, f, n);
      d[i] = vals[v];
      inlet_error err = INLET_ERROR_INIT;
      int rc = pq_file_metadata_parse(&m, d, n, "flip.parquet", &err);
      free(d);
      assert_true(rc == 0 || rc == INLET_ECORRUPT || rc == INLET_EUNSUPPORTED);
      if (rc) assert_true(err.message[0] != '\0');
      pq_file_metadata_reset(&m);
    }
  }
  free(f);
}

/* Serializes @p m after @p mutate and expects parse to fail with @p rc and
 * a message containing @p needle. */
static void expect_invalid(void (*mutate)(pq_file_metadata *), int rc, const char *needle) {
  pq_file_metadata m, back;
  build_meta(&m);
  mutate(&m);
  pq_file_metadata_init(&back);
  inlet_buf b = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_file_metadata_serialize(&m, &b, &err), 0);
  int got = pq_file_metadata_parse(&back, b.data, b.len, "v.parquet", &err);
  if (got != rc || !strstr(err.message, needle))
    fail_msg("expected rc %d with \"%s\", got %d: %s", rc, needle, got, err.message);
  inlet_buf_reset(&b);
  pq_file_metadata_reset(&m);
  pq_file_metadata_reset(&back);
}

static void mut_children_too_many(pq_file_metadata *m) {
  m->schema[0].num_children = 4;
}
static void mut_children_too_few(pq_file_metadata *m) {
  m->schema[0].num_children = 2;
}
static void mut_negative_rows(pq_file_metadata *m) {
  m->num_rows = -1;
}
static void mut_rg_negative_rows(pq_file_metadata *m) {
  m->row_groups[1].num_rows = -5;
}
static void mut_chunk_count(pq_file_metadata *m) {
  m->row_groups[0].n_columns = 2;
}
static void mut_chunk_type(pq_file_metadata *m) {
  m->row_groups[0].columns[1].meta_data.type = PQ_INT32;
}
static void mut_chunk_path(pq_file_metadata *m) {
  m->row_groups[0].columns[1].meta_data.path_in_schema[0] = "nope";
}
static void mut_negative_size(pq_file_metadata *m) {
  m->row_groups[0].columns[2].meta_data.total_compressed_size = -1;
}
static void mut_flba_no_length(pq_file_metadata *m) {
  m->schema[3].has_type_length = false;
}
static void mut_group_no_children(pq_file_metadata *m) {
  m->schema[2].has_type = false; /* neither type nor children */
}
static void mut_encrypted(pq_file_metadata *m) {
  m->row_groups[0].columns[0].has_crypto_metadata = true;
}
static void mut_column_orders(pq_file_metadata *m) {
  m->n_column_orders = 2;
}
static void mut_negative_null_count(pq_file_metadata *m) {
  m->row_groups[0].columns[0].meta_data.statistics.null_count = -3;
}

static void test_meta__inconsistent_metadata_is_rejected(void **state) {
  (void)state;
  expect_invalid(mut_children_too_many, INLET_ECORRUPT, "schema ends early");
  expect_invalid(mut_children_too_few, INLET_ECORRUPT, "tree ends at element");
  expect_invalid(mut_negative_rows, INLET_ECORRUPT, "negative num_rows");
  expect_invalid(mut_rg_negative_rows, INLET_ECORRUPT, "row group 1 has negative num_rows");
  expect_invalid(mut_chunk_count, INLET_ECORRUPT, "2 column chunks but the schema has 3");
  expect_invalid(mut_chunk_type, INLET_ECORRUPT, "chunk type INT32 differs");
  expect_invalid(mut_chunk_path, INLET_ECORRUPT, "path_in_schema does not name");
  expect_invalid(mut_negative_size, INLET_ECORRUPT, "negative size");
  expect_invalid(mut_flba_no_length, INLET_ECORRUPT, "type_length");
  expect_invalid(mut_group_no_children, INLET_ECORRUPT, "neither a type nor children");
  expect_invalid(mut_encrypted, INLET_EUNSUPPORTED, "encrypted Parquet is not supported");
  expect_invalid(mut_column_orders, INLET_ECORRUPT, "column_orders");
  expect_invalid(mut_negative_null_count, INLET_ECORRUPT, "negative count");
}

static void test_meta__encryption_algorithm_is_unsupported(void **state) {
  (void)state;
  /* FileMetaData {1: version 1, 8: EncryptionAlgorithm{1: AesGcmV1{}}} */
  inlet_buf b = INLET_BUF_INIT;
  inlet_thrift_writer w;
  inlet_thrift_writer_init(&w, &b);
  inlet_thrift_write_struct_begin(&w);
  inlet_thrift_write_field_i32(&w, 1, 1);
  inlet_thrift_write_field(&w, 8, INLET_THRIFT_STRUCT);
  inlet_thrift_write_struct_begin(&w);
  inlet_thrift_write_field(&w, 1, INLET_THRIFT_STRUCT);
  inlet_thrift_write_struct_begin(&w);
  inlet_thrift_write_struct_end(&w);
  inlet_thrift_write_struct_end(&w);
  inlet_thrift_write_struct_end(&w);
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_file_metadata_parse(&m, b.data, b.len, "e.parquet", &err),
                   INLET_EUNSUPPORTED);
  assert_string_equal(err.message, "e.parquet: encrypted Parquet is not supported");
  inlet_buf_reset(&b);
  pq_file_metadata_reset(&m);
}

static void test_meta__deep_schema_is_corrupt(void **state) {
  (void)state;
  enum { D = 100 };
  pq_file_metadata m, back;
  pq_file_metadata_init(&m);
  pq_file_metadata_init(&back);
  inlet_error err = INLET_ERROR_INIT;
  m.version = 1;
  m.n_schema = D + 1;
  m.schema = pq_meta_alloc_array(&m, D + 1, sizeof *m.schema, &err);
  for (int i = 0; i <= D; i++) {
    m.schema[i].name = pq_meta_strdup(&m, "g", &err);
    m.schema[i].converted_type = PQ_CT_NONE;
    m.schema[i].has_repetition = i > 0;
    if (i < D) {
      m.schema[i].has_num_children = true;
      m.schema[i].num_children = 1;
    } else {
      m.schema[i].has_type = true;
      m.schema[i].type = PQ_INT32;
    }
  }
  inlet_buf b = INLET_BUF_INIT;
  assert_int_equal(pq_file_metadata_serialize(&m, &b, &err), 0);
  assert_int_equal(pq_file_metadata_parse(&back, b.data, b.len, "deep.parquet", &err),
                   INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "nesting deeper"));
  inlet_buf_reset(&b);
  pq_file_metadata_reset(&m);
  pq_file_metadata_reset(&back);
}

static void test_meta__huge_list_counts_fail_before_allocating(void **state) {
  (void)state;
  /* FileMetaData {1: 1, 2: list<struct> of 2^31-1 elements} in 9 bytes. */
  const uint8_t d[] = {0x15, 0x02, 0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07};
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_file_metadata_parse(&m, d, sizeof d, "h.parquet", &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "cannot fit"));
  pq_file_metadata_reset(&m);
}

static void test_meta__allocation_failures_are_clean(void **state) {
  (void)state;
  size_t n;
  uint8_t *f = footer_bytes(DATA_DIR "/alltypes_plain.parquet", &n);
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  long k;
  for (k = 0;; k++) {
    inlet_error err = INLET_ERROR_INIT;
    inlet_alloc_fail_after(k);
    int rc = pq_file_metadata_parse(&m, f, n, "a.parquet", &err);
    inlet_alloc_fail_after(-1);
    if (rc == 0) break;
    if (rc != INLET_ENOMEM) fail_msg("after %ld allocations: rc %d: %s", k, rc, err.message);
    assert_int_equal(m.n_schema, 0);
    assert_null(m.arena);
  }
  assert_true(k >= 2);
  /* Serialization reports a failed buffer growth once, at the end. */
  for (k = 0;; k++) {
    inlet_buf b = INLET_BUF_INIT;
    inlet_error err = INLET_ERROR_INIT;
    inlet_alloc_fail_after(k);
    int rc = pq_file_metadata_serialize(&m, &b, &err);
    inlet_alloc_fail_after(-1);
    inlet_buf_reset(&b);
    if (rc == 0) break;
    assert_int_equal(rc, INLET_ENOMEM);
  }
  pq_file_metadata_reset(&m);
  free(f);
}

/* ---- page headers ------------------------------------------------------ */

static void test_page_header__v1_dict_v2_roundtrip(void **state) {
  (void)state;
  pq_page_header h[3];
  memset(h, 0, sizeof h);
  h[0].type = PQ_PAGE_DATA;
  h[0].uncompressed_page_size = 1 << 20;
  h[0].compressed_page_size = 4000;
  h[0].has_crc = true;
  h[0].crc = 0xDEADBEEF;
  h[0].has_data_page_header = true;
  h[0].data_page_header.num_values = 12345;
  h[0].data_page_header.encoding = PQ_ENC_RLE_DICTIONARY;
  h[0].data_page_header.definition_level_encoding = PQ_ENC_RLE;
  h[0].data_page_header.repetition_level_encoding = PQ_ENC_BIT_PACKED;
  h[0].data_page_header.has_statistics = true;
  h[0].data_page_header.statistics.has_null_count = true;
  h[0].data_page_header.statistics.null_count = 17;
  h[0].data_page_header.statistics.has_max_value = true;
  h[0].data_page_header.statistics.max_value.data = (const uint8_t *)"zz";
  h[0].data_page_header.statistics.max_value.len = 2;
  h[1].type = PQ_PAGE_DICTIONARY;
  h[1].uncompressed_page_size = 100;
  h[1].compressed_page_size = 80;
  h[1].has_dictionary_page_header = true;
  h[1].dictionary_page_header.num_values = 9;
  h[1].dictionary_page_header.encoding = PQ_ENC_PLAIN;
  h[1].dictionary_page_header.has_is_sorted = true;
  h[1].dictionary_page_header.is_sorted = true;
  h[2].type = PQ_PAGE_DATA_V2;
  h[2].uncompressed_page_size = 300;
  h[2].compressed_page_size = 200;
  h[2].has_data_page_header_v2 = true;
  h[2].data_page_header_v2.num_values = 50;
  h[2].data_page_header_v2.num_nulls = 5;
  h[2].data_page_header_v2.num_rows = 50;
  h[2].data_page_header_v2.encoding = PQ_ENC_DELTA_BINARY_PACKED;
  h[2].data_page_header_v2.definition_levels_byte_length = 10;
  h[2].data_page_header_v2.repetition_levels_byte_length = 0;
  h[2].data_page_header_v2.is_compressed = false;

  inlet_buf b = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  size_t ends[3];
  for (int i = 0; i < 3; i++) {
    assert_int_equal(pq_page_header_serialize(&h[i], &b, &err), 0);
    ends[i] = b.len;
  }
  uint8_t *d = malloc(b.len);
  memcpy(d, b.data, b.len);
  size_t off = 0;
  for (int i = 0; i < 3; i++) {
    pq_page_header g;
    size_t used = 0;
    /* The parser is given everything left, as a reader would. */
    assert_int_equal(pq_page_header_parse(&g, d + off, b.len - off, &used, &err), 0);
    assert_int_equal(off + used, ends[i]);
    off += used;
    assert_int_equal(g.type, h[i].type);
    assert_int_equal(g.uncompressed_page_size, h[i].uncompressed_page_size);
    assert_int_equal(g.compressed_page_size, h[i].compressed_page_size);
    assert_int_equal(g.has_crc, h[i].has_crc);
    assert_true(g.crc == h[i].crc);
    assert_int_equal(g.has_data_page_header, h[i].has_data_page_header);
    assert_int_equal(g.has_dictionary_page_header, h[i].has_dictionary_page_header);
    assert_int_equal(g.has_data_page_header_v2, h[i].has_data_page_header_v2);
    if (i == 0) {
      assert_memory_equal(&g.data_page_header.num_values, &h[0].data_page_header.num_values, 16);
      assert_stats_eq(&g.data_page_header.statistics, &h[0].data_page_header.statistics);
      /* Zero-copy: statistics point into the input. */
      assert_true(g.data_page_header.statistics.max_value.data >= d &&
                  g.data_page_header.statistics.max_value.data < d + b.len);
    }
    if (i == 1)
      assert_memory_equal(&g.dictionary_page_header, &h[1].dictionary_page_header,
                          sizeof g.dictionary_page_header);
    if (i == 2) {
      const pq_data_page_header_v2 *x = &g.data_page_header_v2, *y = &h[2].data_page_header_v2;
      assert_int_equal(x->num_values, y->num_values);
      assert_int_equal(x->num_nulls, y->num_nulls);
      assert_int_equal(x->num_rows, y->num_rows);
      assert_int_equal(x->encoding, y->encoding);
      assert_int_equal(x->definition_levels_byte_length, y->definition_levels_byte_length);
      assert_int_equal(x->repetition_levels_byte_length, y->repetition_levels_byte_length);
      assert_false(x->is_compressed);
    }
  }
  /* Truncations of the first header are corrupt. */
  for (size_t n = 0; n < ends[0]; n++) {
    pq_page_header g;
    size_t used = 99;
    uint8_t *t = malloc(n ? n : 1);
    memcpy(t, d, n);
    assert_int_equal(pq_page_header_parse(&g, t, n, &used, &err), INLET_ECORRUPT);
    free(t);
  }
  free(d);
  inlet_buf_reset(&b);
}

static void test_page_header__invalid_headers_are_corrupt(void **state) {
  (void)state;
  struct {
    pq_page_header h;
    const char *needle;
  } cases[5];
  memset(cases, 0, sizeof cases);
  cases[0].h.type = PQ_PAGE_DATA; /* no data_page_header */
  cases[0].h.compressed_page_size = 1;
  cases[0].needle = "without data_page_header";
  cases[1].h.type = PQ_PAGE_DICTIONARY;
  cases[1].h.compressed_page_size = -1;
  cases[1].h.has_dictionary_page_header = true;
  cases[1].needle = "negative page size";
  cases[2].h.type = PQ_PAGE_DICTIONARY;
  cases[2].h.has_dictionary_page_header = true;
  cases[2].h.dictionary_page_header.num_values = -2; /* ARROW-RS-GH-6229 */
  cases[2].needle = "negative num_values";
  cases[3].h.type = PQ_PAGE_DATA_V2;
  cases[3].h.compressed_page_size = 10;
  cases[3].h.has_data_page_header_v2 = true;
  cases[3].h.data_page_header_v2.num_values = 5;
  cases[3].h.data_page_header_v2.definition_levels_byte_length = 8;
  cases[3].h.data_page_header_v2.repetition_levels_byte_length = 8;
  cases[3].needle = "level lengths exceed";
  cases[4].h.type = PQ_PAGE_DATA_V2;
  cases[4].h.has_data_page_header_v2 = true;
  cases[4].h.data_page_header_v2.num_values = 5;
  cases[4].h.data_page_header_v2.num_nulls = 6;
  cases[4].needle = "more nulls than values";
  for (int i = 0; i < 5; i++) {
    inlet_buf b = INLET_BUF_INIT;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(pq_page_header_serialize(&cases[i].h, &b, &err), 0);
    pq_page_header g;
    size_t used;
    assert_int_equal(pq_page_header_parse(&g, b.data, b.len, &used, &err), INLET_ECORRUPT);
    if (!strstr(err.message, cases[i].needle)) fail_msg("case %d: %s", i, err.message);
    inlet_buf_reset(&b);
  }
}

/* The first page header of a real file, at its column's data_page_offset. */
static void test_page_header__first_page_of_alltypes_plain(void **state) {
  (void)state;
  size_t n;
  uint8_t *d = slurp(DATA_DIR "/alltypes_plain.parquet", &n);
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(read_footer(&m, DATA_DIR "/alltypes_plain.parquet", &err), 0);
  const pq_column_meta *cm = &m.row_groups[0].columns[0].meta_data;
  int64_t off = cm->has_dictionary_page_offset ? cm->dictionary_page_offset : cm->data_page_offset;
  assert_true(off >= 4 && off < (int64_t)n);
  pq_page_header h;
  size_t used;
  assert_int_equal(pq_page_header_parse(&h, d + off, n - (size_t)off, &used, &err), 0);
  assert_true(used > 0 && used < 100);
  assert_true(h.compressed_page_size >= 0 && h.compressed_page_size <= cm->total_compressed_size);
  if (h.type == PQ_PAGE_DICTIONARY) {
    assert_true(h.has_dictionary_page_header);
    assert_int_equal(h.dictionary_page_header.num_values, 8);
  } else {
    assert_int_equal(h.type, PQ_PAGE_DATA);
    assert_int_equal(h.data_page_header.num_values, 8);
  }
  free(d);
  pq_file_metadata_reset(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_meta__serialize_parse_roundtrip_keeps_every_field),
      cmocka_unit_test(test_meta__footer_serialize_then_read),
      cmocka_unit_test(test_meta__footer_framing_errors_name_the_file),
      cmocka_unit_test(test_meta__alltypes_plain_footer),
      cmocka_unit_test(test_meta__encoding_stats_and_kv_from_real_files),
      cmocka_unit_test(test_meta__every_testing_file_parses_and_reserializes),
      cmocka_unit_test(test_meta__corrupted_schema_type_in_bad_data_is_corrupt),
      cmocka_unit_test(test_meta__every_truncated_footer_is_corrupt),
      cmocka_unit_test(test_meta__every_truncated_file_is_corrupt),
      cmocka_unit_test(test_meta__byte_flips_never_crash),
      cmocka_unit_test(test_meta__inconsistent_metadata_is_rejected),
      cmocka_unit_test(test_meta__encryption_algorithm_is_unsupported),
      cmocka_unit_test(test_meta__deep_schema_is_corrupt),
      cmocka_unit_test(test_meta__huge_list_counts_fail_before_allocating),
      cmocka_unit_test(test_meta__allocation_failures_are_clean),
      cmocka_unit_test(test_page_header__v1_dict_v2_roundtrip),
      cmocka_unit_test(test_page_header__invalid_headers_are_corrupt),
      cmocka_unit_test(test_page_header__first_page_of_alltypes_plain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
