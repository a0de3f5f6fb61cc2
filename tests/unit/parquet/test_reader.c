/*
 * White-box tests of the Parquet reader (src/parquet/reader.c,
 * column_reader.c, meta_json.c): values of a known file, projection,
 * metadata JSON, hand-built single-column files that exercise each page
 * validation (dictionary index range, level range, page sizes, value
 * counts, chunk ranges, unsupported encodings), and robustness loops that
 * open and read every truncation and many bit flips of real files (ASan
 * and UBSan watch those in the test build).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/parquet.h"
#include "inlet/text.h"
#include "parquet/delta_decode.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_reader.h"
#include "testutil.h"
#include "util/buf.h"

#define DATA INLET_TESTDATA "/parquet-testing/data"

static char g_dir[4096];

static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "%s", tu_mkdtemp("pq-reader"));
  return 0;
}
static int teardown(void **state) {
  (void)state;
  tu_rmtree(g_dir);
  return 0;
}

/* Opens @p path and reads every row group into one check; returns rc. */
static int read_all(const char *path, int64_t *rows, inlet_error *err) {
  inlet_parquet_reader *r = NULL;
  *rows = 0;
  int rc = inlet_parquet_reader_open(&r, path, NULL, err);
  if (rc < 0) return rc;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(r) && rc == 0; g++) {
    rc = inlet_parquet_reader_read_row_group(r, g, &b, err);
    if (rc == 0) {
      assert_int_equal(inlet_batch_validate(&b, NULL), 0);
      *rows += b.num_rows;
    }
  }
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
  return rc;
}

/* ---- a known file ---------------------------------------------------------- */

static void test_reader__alltypes_plain_values(void **state) {
  (void)state;
  inlet_parquet_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_reader_open(&r, DATA "/alltypes_plain.parquet", NULL, &err), 0);
  const inlet_schema *s = inlet_parquet_reader_schema(r);
  assert_int_equal(s->n_fields, 11);
  assert_string_equal(s->fields[0].name, "id");
  assert_int_equal(s->fields[10].type.id, INLET_TYPE_TIMESTAMP);
  assert_int_equal(inlet_parquet_reader_num_rows(r), 8);
  assert_int_equal(inlet_parquet_reader_num_row_groups(r), 1);
  assert_int_equal(inlet_parquet_reader_row_group_rows(r, 0), 8);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 0, &b, &err), 0);
  assert_int_equal(b.num_rows, 8);
  static const int32_t ids[8] = {4, 5, 6, 7, 2, 3, 0, 1};
  const int32_t *id = (const int32_t *)(const void *)b.columns[0].values;
  for (int i = 0; i < 8; i++) {
    assert_int_equal(id[i], ids[i]);
    assert_int_equal(inlet_bit_get(b.columns[1].values, i), i % 2 == 0);
  }
  /* bigint_col 0 / 10 alternating; double_col 0 / 10.1 */
  const int64_t *big = (const int64_t *)(const void *)b.columns[5].values;
  const double *dbl = (const double *)(const void *)b.columns[7].values;
  assert_int_equal(big[1], 10);
  assert_true(dbl[1] == 10.1);
  /* string_col "0" / "1" */
  const inlet_array *sc = &b.columns[9];
  assert_int_equal(sc->offsets[1] - sc->offsets[0], 1);
  assert_memory_equal(sc->values + sc->offsets[1], "1", 1);
  /* INT96 2009-03-01T00:00:00 and 2009-03-01T00:01:00 as micros */
  const int64_t *ts = (const int64_t *)(const void *)b.columns[10].values;
  assert_int_equal(ts[0], INT64_C(1235865600000000));
  assert_int_equal(ts[1], INT64_C(1235865660000000));
  /* Reading again reuses the batch. */
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 0, &b, &err), 0);
  assert_int_equal(b.num_rows, 8);
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 1, &b, &err), INLET_EINVAL);
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
}

static void test_reader__projection_orders_and_limits_columns(void **state) {
  (void)state;
  inlet_parquet_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_reader_open(&r, DATA "/alltypes_dictionary.parquet", NULL, &err),
                   0);
  int32_t proj[2] = {9, 0};
  assert_int_equal(inlet_parquet_reader_project(r, proj, 2, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 0, &b, &err), 0);
  assert_int_equal(b.schema.n_fields, 2);
  assert_string_equal(b.schema.fields[0].name, "string_col");
  assert_string_equal(b.schema.fields[1].name, "id");
  assert_int_equal(b.columns[1].length, 2);
  int32_t bad[1] = {11};
  assert_int_equal(inlet_parquet_reader_project(r, bad, 1, &err), INLET_EINVAL);
  int32_t dup[2] = {1, 1};
  assert_int_equal(inlet_parquet_reader_project(r, dup, 2, &err), INLET_EINVAL);
  assert_int_equal(inlet_parquet_reader_project(r, NULL, 0, &err), 0);
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 0, &b, &err), 0);
  assert_int_equal(b.schema.n_fields, 11);
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
}

static void test_reader__metadata_json_describes_chunks(void **state) {
  (void)state;
  inlet_parquet_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_reader_open(&r, DATA "/alltypes_plain.snappy.parquet", NULL, &err),
                   0);
  char *js = NULL;
  assert_int_equal(inlet_parquet_reader_metadata_json(r, &js, &err), 0);
  json_error_t je;
  json_t *root = json_loads(js, 0, &je);
  assert_non_null(root);
  assert_int_equal(json_integer_value(json_object_get(root, "num_rows")), 2);
  json_t *rg = json_array_get(json_object_get(root, "row_groups"), 0);
  json_t *col = json_array_get(json_object_get(rg, "columns"), 0);
  assert_string_equal(json_string_value(json_object_get(col, "path")), "id");
  assert_string_equal(json_string_value(json_object_get(col, "physical_type")), "INT32");
  assert_string_equal(json_string_value(json_object_get(col, "codec")), "SNAPPY");
  assert_true(json_array_size(json_object_get(col, "encodings")) > 0);
  json_t *schema = json_object_get(root, "schema");
  assert_int_equal(json_array_size(schema), 12);
  json_decref(root);
  inlet_string_free(js);
  inlet_parquet_reader_free(r);
}

static void test_reader__nested_lists_assemble_offsets_and_nulls(void **state) {
  (void)state;
  inlet_parquet_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_reader_open(&r, DATA "/list_columns.parquet", NULL, &err), 0);
  const inlet_schema *s = inlet_parquet_reader_schema(r);
  assert_int_equal(s->n_fields, 2);
  assert_int_equal(s->fields[0].type.id, INLET_TYPE_LIST);
  assert_int_equal(s->fields[0].children[0].type.id, INLET_TYPE_INT64);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 0, &b, &err), 0);
  assert_int_equal(inlet_batch_validate(&b, &err), 0);
  /* int64_list: [1,2,3], [null,1], [4] */
  const inlet_array *l = &b.columns[0], *e = &l->children[0];
  assert_int_equal(l->length, 3);
  assert_int_equal(l->offsets[1], 3);
  assert_int_equal(l->offsets[2], 5);
  assert_int_equal(l->offsets[3], 6);
  assert_int_equal(e->null_count, 1);
  assert_false(inlet_array_is_valid(e, 3));
  assert_int_equal(((const int64_t *)(const void *)e->values)[5], 4);
  /* utf8_list: row 1 is a null list */
  const inlet_array *u = &b.columns[1];
  assert_int_equal(u->null_count, 1);
  assert_false(inlet_array_is_valid(u, 1));
  assert_int_equal(u->offsets[2] - u->offsets[1], 0);
  assert_int_equal(u->children[0].length, 7);
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
}

static void test_reader__nested_map_projection(void **state) {
  (void)state;
  inlet_parquet_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_reader_open(&r, DATA "/nested_maps.snappy.parquet", NULL, &err),
                   0);
  int32_t proj[2] = {2, 0};
  assert_int_equal(inlet_parquet_reader_project(r, proj, 2, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 0, &b, &err), 0);
  assert_int_equal(inlet_batch_validate(&b, &err), 0);
  assert_string_equal(b.schema.fields[0].name, "c");
  assert_int_equal(b.schema.fields[1].type.id, INLET_TYPE_MAP);
  const inlet_array *m = &b.columns[1];
  assert_int_equal(m->length, 6);
  /* row 0: {"a": {1: true, 2: false}} */
  assert_int_equal(m->offsets[1], 1);
  const inlet_array *inner = &m->children[0].children[1];
  assert_int_equal(inner->offsets[1], 2);
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
}

/* ---- hand-built single-column files ------------------------------------- */

typedef struct chunk_builder {
  inlet_buf bytes;
} chunk_builder;

static void add_page(inlet_buf *c, int32_t type, int32_t num_values, int32_t encoding,
                     const void *body, size_t len, int32_t claimed_size) {
  pq_page_header h;
  memset(&h, 0, sizeof h);
  h.type = type;
  h.uncompressed_page_size = (int32_t)len;
  h.compressed_page_size = claimed_size >= 0 ? claimed_size : (int32_t)len;
  if (type == PQ_PAGE_DICTIONARY) {
    h.has_dictionary_page_header = true;
    h.dictionary_page_header.num_values = num_values;
    h.dictionary_page_header.encoding = encoding;
  } else {
    h.has_data_page_header = true;
    h.data_page_header.num_values = num_values;
    h.data_page_header.encoding = encoding;
    h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
    h.data_page_header.repetition_level_encoding = PQ_ENC_RLE;
  }
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_page_header_serialize(&h, c, &err), 0);
  inlet_buf_append(c, body, len);
}

typedef struct file_spec {
  pq_type type;
  pq_repetition rep;
  int64_t rows;
  int64_t num_values;       /* column meta num_values; -1 = rows */
  int64_t total_size_delta; /* added to the true chunk size */
  int32_t converted;        /* PQ_CT_* */
} file_spec;

/* Writes "PAR1" + chunk + footer for one column "x". Returns the path. */
static const char *build_file(const char *name, const file_spec *fs, const inlet_buf *chunk) {
  static char path[4200];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  inlet_error err = INLET_ERROR_INIT;
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  m.version = 1;
  m.n_schema = 2;
  m.schema = pq_meta_alloc_array(&m, 2, sizeof *m.schema, &err);
  m.schema[0].name = pq_meta_strdup(&m, "schema", &err);
  m.schema[0].has_num_children = true;
  m.schema[0].num_children = 1;
  m.schema[0].converted_type = PQ_CT_NONE;
  m.schema[1].name = pq_meta_strdup(&m, "x", &err);
  m.schema[1].has_type = true;
  m.schema[1].type = fs->type;
  m.schema[1].has_repetition = true;
  m.schema[1].repetition = fs->rep;
  m.schema[1].converted_type = fs->converted;
  m.num_rows = fs->rows;
  m.n_row_groups = 1;
  m.row_groups = pq_meta_alloc_array(&m, 1, sizeof *m.row_groups, &err);
  pq_row_group *rg = &m.row_groups[0];
  rg->num_rows = fs->rows;
  rg->total_byte_size = (int64_t)chunk->len;
  rg->n_columns = 1;
  rg->columns = pq_meta_alloc_array(&m, 1, sizeof *rg->columns, &err);
  pq_column_chunk *cc = &rg->columns[0];
  cc->has_meta_data = true;
  cc->file_offset = 4;
  pq_column_meta *cm = &cc->meta_data;
  cm->type = fs->type;
  cm->n_encodings = 1;
  cm->encodings = pq_meta_alloc_array(&m, 1, sizeof(int32_t), &err);
  cm->encodings[0] = PQ_ENC_PLAIN;
  cm->n_path = 1;
  cm->path_in_schema = pq_meta_alloc_array(&m, 1, sizeof(char *), &err);
  cm->path_in_schema[0] = pq_meta_strdup(&m, "x", &err);
  cm->codec = PQ_CODEC_UNCOMPRESSED;
  cm->num_values = fs->num_values >= 0 ? fs->num_values : fs->rows;
  cm->total_compressed_size = (int64_t)chunk->len + fs->total_size_delta;
  cm->total_uncompressed_size = (int64_t)chunk->len;
  cm->data_page_offset = 4;
  inlet_buf file = INLET_BUF_INIT;
  inlet_buf_append(&file, "PAR1", 4);
  inlet_buf_append(&file, chunk->data, chunk->len);
  assert_int_equal(pq_footer_serialize(&m, &file, &err), 0);
  assert_int_equal(tu_write_file(path, file.data, file.len), 0);
  inlet_buf_reset(&file);
  pq_file_metadata_reset(&m);
  return path;
}

static const file_spec REQ_I32 = {PQ_INT32, PQ_REQUIRED, 3, -1, 0, PQ_CT_NONE};
static const file_spec OPT_I32 = {PQ_INT32, PQ_OPTIONAL, 3, -1, 0, PQ_CT_NONE};

/* Reads the only row group of @p path into @p b. */
static int read_one(const char *path, inlet_batch *b, inlet_error *err) {
  inlet_parquet_reader *r = NULL;
  int rc = inlet_parquet_reader_open(&r, path, NULL, err);
  if (rc < 0) return rc;
  rc = inlet_parquet_reader_read_row_group(r, 0, b, err);
  inlet_parquet_reader_free(r);
  return rc;
}

static const int32_t I32_123[3] = {1, 2, 3};

static void test_reader__built_required_plain_reads(void **state) {
  (void)state;
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, I32_123, 12, -1);
  const char *path = build_file("req.parquet", &REQ_I32, &c);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(read_one(path, &b, &err), 0);
  assert_int_equal(b.num_rows, 3);
  assert_memory_equal(b.columns[0].values, I32_123, 12);
  assert_null(b.columns[0].validity);
  inlet_batch_reset(&b);
  inlet_buf_reset(&c);
}

static void test_reader__built_optional_levels_spread_values(void **state) {
  (void)state;
  /* levels 1,0,1: length 2, bit-packed header (1 group), bits 0b101 */
  static const uint8_t page[] = {2, 0, 0, 0, 0x03, 0x05, 7, 0, 0, 0, 9, 0, 0, 0};
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, page, sizeof page, -1);
  const char *path = build_file("opt.parquet", &OPT_I32, &c);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(read_one(path, &b, &err), 0);
  const inlet_array *a = &b.columns[0];
  assert_int_equal(a->null_count, 1);
  assert_non_null(a->validity);
  assert_true(inlet_array_is_valid(a, 0));
  assert_false(inlet_array_is_valid(a, 1));
  assert_true(inlet_array_is_valid(a, 2));
  const int32_t *v = (const int32_t *)(const void *)a->values;
  assert_int_equal(v[0], 7);
  assert_int_equal(v[2], 9);
  inlet_batch_reset(&b);
  inlet_buf_reset(&c);
}

static void test_reader__built_dictionary_gathers(void **state) {
  (void)state;
  static const int32_t dict[2] = {10, 20};
  static const uint8_t idx[] = {1, 0x03, 0x05}; /* width 1; indices 1,0,1 */
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DICTIONARY, 2, PQ_ENC_PLAIN, dict, 8, -1);
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_RLE_DICTIONARY, idx, sizeof idx, -1);
  const char *path = build_file("dict.parquet", &REQ_I32, &c);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(read_one(path, &b, &err), 0);
  const int32_t *v = (const int32_t *)(const void *)b.columns[0].values;
  assert_int_equal(v[0], 20);
  assert_int_equal(v[1], 10);
  assert_int_equal(v[2], 20);
  inlet_batch_reset(&b);
  inlet_buf_reset(&c);
}

/* A BYTE_ARRAY column of 600 rows through a dictionary of "a", 40 bytes
 * of 'b' and "": the values are copied one index at a time, the buffer
 * growing past the room first reserved (which assumes values as long as the
 * dictionary's average); @p bad_row, when not negative, holds index 3 (the
 * dictionary has 3 entries). */
enum { GATHER_ROWS = 600 };
static void expect_failure(const char *path, int code, const char *words);
static uint32_t gather_index(int i) {
  return i % 7 == 0 ? 0 : i % 5 == 0 ? 2 : 1;
}
static const char *gather_file(const char *name, int bad_row) {
  uint8_t dict[4 + 1 + 4 + 40 + 4];
  size_t dl = 0;
  const uint32_t lens[3] = {1, 40, 0};
  for (int k = 0; k < 3; k++) {
    for (int b = 0; b < 4; b++)
      dict[dl++] = (uint8_t)(lens[k] >> (8 * b));
    memset(dict + dl, k == 0 ? 'a' : 'b', lens[k]);
    dl += lens[k];
  }
  /* Bit width 2, then one bit-packed run of 75 groups of 8 values. */
  const unsigned header = (GATHER_ROWS / 8) << 1 | 1; /* 151: a two-byte varint */
  uint8_t idx[3 + GATHER_ROWS / 4] = {2, (uint8_t)((header & 0x7f) | 0x80), (uint8_t)(header >> 7)};
  for (int i = 0; i < GATHER_ROWS; i++) {
    uint32_t v = i == bad_row ? 3 : gather_index(i);
    idx[3 + i / 4] |= (uint8_t)(v << (2 * (i % 4)));
  }
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DICTIONARY, 3, PQ_ENC_PLAIN, dict, dl, -1);
  add_page(&c, PQ_PAGE_DATA, GATHER_ROWS, PQ_ENC_RLE_DICTIONARY, idx, sizeof idx, -1);
  static const file_spec spec = {PQ_BYTE_ARRAY, PQ_REQUIRED, GATHER_ROWS, -1, 0, PQ_CT_NONE};
  const char *path = build_file(name, &spec, &c);
  inlet_buf_reset(&c);
  return path;
}

static void test_reader__built_binary_dictionary_gathers(void **state) {
  (void)state;
  const char *path = gather_file("dict-bin.parquet", -1);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(read_one(path, &b, &err), 0);
  const inlet_array *a = &b.columns[0];
  assert_int_equal(a->length, GATHER_ROWS);
  char want[40];
  memset(want, 'b', sizeof want);
  for (int i = 0; i < GATHER_ROWS; i++) {
    int32_t len = a->offsets[i + 1] - a->offsets[i];
    uint32_t k = gather_index(i);
    if (k == 0) {
      assert_int_equal(len, 1);
      assert_int_equal(a->values[a->offsets[i]], 'a');
    } else if (k == 1) {
      assert_int_equal(len, 40);
      assert_memory_equal(a->values + a->offsets[i], want, 40);
    } else {
      assert_int_equal(len, 0);
    }
  }
  inlet_batch_reset(&b);
}

static void test_reader__binary_dictionary_index_out_of_range_is_corrupt(void **state) {
  (void)state;
  expect_failure(gather_file("dict-bin-oob.parquet", 500), INLET_ECORRUPT, "out of range");
  expect_failure(gather_file("dict-bin-oob0.parquet", 0), INLET_ECORRUPT, "out of range");
}

/* Expects @p path to fail with @p code and a message containing @p words
 * (and always the file name and the column). */
static void expect_failure(const char *path, int code, const char *words) {
  inlet_batch b;
  memset(&b, 0, sizeof b);
  inlet_error err = INLET_ERROR_INIT;
  int rc = read_one(path, &b, &err);
  if (rc != code || !strstr(err.message, words) || !strstr(err.message, path))
    fail_msg("expected %s with \"%s\" for %s, got %d: %s", inlet_strerror(code), words, path, rc,
             err.message);
  inlet_batch_reset(&b);
}

static void test_reader__dictionary_index_out_of_range_is_corrupt(void **state) {
  (void)state;
  static const int32_t dict[1] = {10};
  static const uint8_t idx[] = {1, 0x03, 0x05};
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DICTIONARY, 1, PQ_ENC_PLAIN, dict, 4, -1);
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_RLE_DICTIONARY, idx, sizeof idx, -1);
  expect_failure(build_file("dict-oob.parquet", &REQ_I32, &c), INLET_ECORRUPT, "column \"x\"");
  inlet_buf_reset(&c);
}

static void test_reader__definition_level_above_max_is_corrupt(void **state) {
  (void)state;
  /* RLE run of 3 levels of value 2 with max level 1 (width 1 holds a byte). */
  static const uint8_t page[] = {2, 0, 0, 0, 0x06, 0x02, 7, 0, 0, 0};
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, page, sizeof page, -1);
  expect_failure(build_file("level.parquet", &OPT_I32, &c), INLET_ECORRUPT, "row group 0");
  inlet_buf_reset(&c);
}

static void test_reader__page_overrunning_chunk_is_corrupt(void **state) {
  (void)state;
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, I32_123, 12, 4000);
  expect_failure(build_file("overrun.parquet", &REQ_I32, &c), INLET_ECORRUPT, "runs past");
  inlet_buf_reset(&c);
}

static void test_reader__more_page_values_than_rows_is_corrupt(void **state) {
  (void)state;
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, I32_123, 12, -1);
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, I32_123, 12, -1);
  expect_failure(build_file("extra.parquet", &REQ_I32, &c), INLET_ECORRUPT, "rows are left");
  inlet_buf_reset(&c);
}

static void test_reader__fewer_values_than_rows_is_corrupt(void **state) {
  (void)state;
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 2, PQ_ENC_PLAIN, I32_123, 8, -1);
  expect_failure(build_file("short.parquet", &REQ_I32, &c), INLET_ECORRUPT, "holds 2 values");
  inlet_buf_reset(&c);
}

static void test_reader__too_few_plain_bytes_is_corrupt(void **state) {
  (void)state;
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, I32_123, 10, -1);
  expect_failure(build_file("fewbytes.parquet", &REQ_I32, &c), INLET_ECORRUPT, "column \"x\"");
  inlet_buf_reset(&c);
}

static void test_reader__chunk_past_footer_is_corrupt_at_open(void **state) {
  (void)state;
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, I32_123, 12, -1);
  file_spec fs = REQ_I32;
  fs.total_size_delta = 1000;
  const char *path = build_file("pastfooter.parquet", &fs, &c);
  inlet_parquet_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_reader_open(&r, path, NULL, &err), INLET_ECORRUPT);
  assert_null(r);
  assert_non_null(strstr(err.message, "outside the data area"));
  inlet_buf_reset(&c);
}

static void test_reader__num_values_mismatch_is_corrupt(void **state) {
  (void)state;
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, I32_123, 12, -1);
  file_spec fs = REQ_I32;
  fs.num_values = 5;
  expect_failure(build_file("numvalues.parquet", &fs, &c), INLET_ECORRUPT, "has 5 values");
  inlet_buf_reset(&c);
}

/* A footer claiming 2^31 - 1 rows held by one tiny page is refused with
 * INLET_ELIMIT before anything is allocated for them (a row group read
 * would otherwise reserve 8 GiB), for whole and row-range reads. */
static void test_reader__huge_row_claim_is_refused_before_allocating(void **state) {
  (void)state;
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, I32_123, 12, -1);
  file_spec fs = REQ_I32;
  fs.rows = INT32_MAX;
  expect_failure(build_file("huge.parquet", &fs, &c), INLET_ELIMIT, "max_decoded_bytes");
  inlet_parquet_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_reader_open(&r, build_file("huge.parquet", &fs, &c), NULL, &err),
                   0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  const int64_t range[] = {0, INT32_MAX};
  assert_int_equal(inlet_parquet_reader_read_rows(r, 0, range, 1, &b, &err), INLET_ELIMIT);
  /* A lower limit refuses what the default allows. */
  inlet_parquet_reader_free(r);
  fs.rows = 3;
  inlet_parquet_reader_options o = INLET_PARQUET_READER_OPTIONS_INIT;
  o.max_decoded_bytes = 8;
  assert_int_equal(inlet_parquet_reader_open(&r, build_file("small.parquet", &fs, &c), &o, &err),
                   0);
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 0, &b, &err), INLET_ELIMIT);
  o.max_decoded_bytes = 15;
  inlet_parquet_reader_free(r);
  assert_int_equal(inlet_parquet_reader_open(&r, build_file("small.parquet", &fs, &c), &o, &err),
                   0);
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 0, &b, &err), 0);
  assert_int_equal(b.num_rows, 3);
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
  inlet_buf_reset(&c);
}

static void test_reader__string_length_past_page_is_corrupt(void **state) {
  (void)state;
  static const uint8_t page[] = {1, 0, 0, 0, 'a', 200, 0, 0, 0, 'b'};
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 2, PQ_ENC_PLAIN, page, sizeof page, -1);
  file_spec fs = {PQ_BYTE_ARRAY, PQ_REQUIRED, 2, -1, 0, PQ_CT_UTF8};
  expect_failure(build_file("strlen.parquet", &fs, &c), INLET_ECORRUPT, "column \"x\"");
  inlet_buf_reset(&c);
}

static void test_reader__unknown_encoding_is_unsupported_by_number(void **state) {
  (void)state;
  static const uint8_t page[] = {0x80, 0x01, 0x04, 0x03, 0x02};
  inlet_buf c = INLET_BUF_INIT;
  add_page(&c, PQ_PAGE_DATA, 3, 42, page, sizeof page, -1);
  expect_failure(build_file("enc42.parquet", &REQ_I32, &c), INLET_EUNSUPPORTED,
                 "unknown encoding 42");
  inlet_buf_reset(&c);
}

/* ---- newer encodings ------------------------------------------------------ */

static void test_reader__delta_binary_packed_spec_example(void **state) {
  (void)state;
  /* Encodings.md: 1,2,3,4,5 -> block 128, 4 miniblocks, 5 values, first 1,
   * min delta 1, all bit widths 0 (no miniblock bytes). */
  static const uint8_t enc[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};
  uint64_t out[5];
  size_t used = 0;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_delta_decode(enc, sizeof enc, out, 5, &used, &err), 0);
  for (int i = 0; i < 5; i++)
    assert_int_equal(out[i], i + 1);
  assert_int_equal(used, sizeof enc);
  /* Wrong count and cut-short input are corrupt. */
  assert_int_equal(pq_delta_decode(enc, sizeof enc, out, 4, &used, &err), INLET_ECORRUPT);
  assert_int_equal(pq_delta_decode(enc, 6, out, 5, &used, &err), INLET_ECORRUPT);
}

static void test_reader__delta_negative_deltas_and_packed_miniblock(void **state) {
  (void)state;
  /* 7,5,3,1: first 7 (zz 14), min delta -2 (zz 3), width 1 for miniblock 0
   * whose 32 one-bit deltas are all 0 (4 bytes), other widths 0. */
  static const uint8_t enc[] = {0x80, 0x01, 0x04, 0x04, 0x0e, 0x03, 1, 0, 0, 0, 0, 0, 0, 0};
  uint64_t out[4];
  size_t used = 0;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_delta_decode(enc, sizeof enc, out, 4, &used, &err), 0);
  assert_int_equal((int64_t)out[0], 7);
  assert_int_equal((int64_t)out[3], 1);
  assert_int_equal(used, sizeof enc);
}

static void test_reader__byte_stream_split_interleaves(void **state) {
  (void)state;
  static const uint8_t enc[] = {0x01, 0x02, 0xaa, 0xbb}; /* two 2-byte values */
  inlet_buf plain = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_byte_stream_split_to_plain(enc, 4, 2, 2, &plain, &err), 0);
  static const uint8_t want[] = {0x01, 0xaa, 0x02, 0xbb};
  assert_int_equal(plain.len, 4);
  assert_memory_equal(plain.data, want, 4);
  assert_int_equal(pq_byte_stream_split_to_plain(enc, 3, 2, 2, &plain, &err), INLET_ECORRUPT);
  inlet_buf_reset(&plain);
}

/* ---- robustness ---------------------------------------------------------- */

static uint8_t *load(const char *path, size_t *len) {
  uint8_t *p = (uint8_t *)tu_read_file(path, len);
  assert_non_null(p);
  return p;
}

static void truncations(const char *src) {
  size_t len;
  uint8_t *bytes = load(src, &len);
  char path[4200];
  snprintf(path, sizeof path, "%s/trunc.parquet", g_dir);
  for (size_t n = 0; n < len; n++) {
    assert_int_equal(tu_write_file(path, bytes, n), 0);
    inlet_error err = INLET_ERROR_INIT;
    int64_t rows;
    int rc = read_all(path, &rows, &err);
    if (rc == 0)
      fail_msg("%s truncated to %zu bytes was read (%lld rows)", src, n, (long long)rows);
    if (rc == INLET_EINTERNAL || !strstr(err.message, "trunc.parquet"))
      fail_msg("%s truncated to %zu: bad error %d: %s", src, n, rc, err.message);
  }
  free(bytes);
}

static void test_reader__every_truncation_fails_cleanly(void **state) {
  (void)state;
  truncations(DATA "/alltypes_dictionary.parquet");
  truncations(DATA "/alltypes_plain.snappy.parquet");
  truncations(DATA "/nested_maps.snappy.parquet");
}

/* Flips one bit in every @p stride-th byte of @p src and reads the result. */
static void flips_every(const char *src, size_t stride) {
  size_t len;
  uint8_t *bytes = load(src, &len);
  char path[4200];
  snprintf(path, sizeof path, "%s/flip.parquet", g_dir);
  for (size_t i = 0; i < len; i += stride) {
    uint8_t saved = bytes[i];
    bytes[i] ^= (uint8_t)(1u << (i % 8));
    assert_int_equal(tu_write_file(path, bytes, len), 0);
    inlet_error err = INLET_ERROR_INIT;
    int64_t rows;
    int rc = read_all(path, &rows, &err);
    if (rc != 0 && (rc == INLET_EINTERNAL || !strstr(err.message, "flip.parquet")))
      fail_msg("%s with byte %zu flipped: bad error %d: %s", src, i, rc, err.message);
    bytes[i] = saved;
  }
  free(bytes);
}

static void flips(const char *src) {
  flips_every(src, 1);
}

static void test_reader__bit_flips_never_crash(void **state) {
  (void)state;
  flips(DATA "/alltypes_dictionary.parquet");
  flips(DATA "/alltypes_plain.snappy.parquet");
  flips(DATA "/nulls.snappy.parquet");
  flips(DATA "/nullable.impala.parquet");
  flips(DATA "/nested_lists.snappy.parquet");
  flips(DATA "/old_list_structure.parquet");
  flips_every(DATA "/delta_encoding_optional_column.parquet", 7);
  flips(DATA "/datapage_v2.snappy.parquet");
}

/* ---- a row group's columns read by clones side by side ----------------- */

/* The NDJSON text of @p b (refcheck's canonical values). */
static char *ndjson_of(const inlet_batch *b) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  inlet_text_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_text_writer_new_file(&w, &b->schema, NULL, f, &err), 0);
  assert_int_equal(inlet_text_writer_write(w, b, &err), 0);
  assert_int_equal(inlet_text_writer_finish(w, &err), 0);
  inlet_text_writer_free(w);
  fclose(f);
  return text;
}

/* Reads every row group of the file in @p bytes with one reader and with
 * @p n_parts clones on @p pool: the same rows, or the same failure and
 * message. Returns the first failure's code (0: none). */
static int parts_read_alike(const uint8_t *bytes, size_t len, int32_t n_parts, util_pool *pool) {
  inlet_error e1 = INLET_ERROR_INIT, e2 = INLET_ERROR_INIT;
  inlet_parquet_reader *r1 = NULL, *r2 = NULL;
  inlet_rfile *f1 = NULL, *f2 = NULL;
  assert_int_equal(inlet_rfile_open_memory_view(&f1, "x.parquet", bytes, len, &e1), 0);
  assert_int_equal(inlet_rfile_open_memory_view(&f2, "x.parquet", bytes, len, &e2), 0);
  int rc1 = pq_reader_open_file(&r1, f1, "x.parquet", NULL, &e1);
  int rc2 = pq_reader_open_file(&r2, f2, "x.parquet", NULL, &e2);
  assert_int_equal(rc1, rc2);
  if (rc1 < 0) return rc1; /* the footer: not the parts' business */
  inlet_parquet_reader *parts[4] = {NULL, NULL, NULL, NULL};
  for (int32_t i = 0; i < n_parts; i++) {
    inlet_rfile *pf = NULL;
    assert_int_equal(inlet_rfile_open_memory_view(&pf, "x.parquet", bytes, len, &e2), 0);
    assert_int_equal(pq_reader_clone(&parts[i], r2, pf, &e2), 0);
  }
  inlet_batch b1, b2;
  memset(&b1, 0, sizeof b1);
  memset(&b2, 0, sizeof b2);
  int first = 0;
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(r1) && first == 0; g++) {
    rc1 = inlet_parquet_reader_read_row_group(r1, g, &b1, &e1);
    rc2 = pq_reader_read_row_group_parts(r2, parts, n_parts, pool, g, &b2, &e2);
    if (rc1 != rc2)
      fail_msg("row group %d: %d (%s) vs parts %d (%s)", g, rc1, e1.message, rc2, e2.message);
    if (rc1 < 0) {
      assert_string_equal(e1.message, e2.message);
      first = rc1;
      continue;
    }
    assert_int_equal(b1.num_rows, b2.num_rows);
    char *t1 = ndjson_of(&b1), *t2 = ndjson_of(&b2);
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
  }
  inlet_batch_reset(&b1);
  inlet_batch_reset(&b2);
  for (int32_t i = 0; i < n_parts; i++)
    inlet_parquet_reader_free(parts[i]);
  inlet_parquet_reader_free(r1);
  inlet_parquet_reader_free(r2);
  return first;
}

/* pq_reader_read_row_group_parts reads what one reader reads, flat and
 * nested files, 2 and 3 parts; and with a byte of the file flipped every
 * few bytes, it fails with the same code and message as one reader (the
 * first failing field's: parts are contiguous runs of fields). */
static void test_reader__column_parts_read_what_one_reader_reads(void **state) {
  (void)state;
  util_pool *pool = NULL;
  assert_int_equal(util_pool_new(&pool, 3, NULL), 0);
  const char *files[] = {DATA "/alltypes_plain.snappy.parquet", DATA "/alltypes_dictionary.parquet",
                         DATA "/nested_maps.snappy.parquet", DATA "/list_columns.parquet",
                         DATA "/nullable.impala.parquet"};
  int failures = 0;
  for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
    size_t len;
    uint8_t *bytes = load(files[fi], &len);
    for (int32_t n = 2; n <= 3; n++)
      assert_int_equal(parts_read_alike(bytes, len, n, pool), 0);
    for (size_t i = 0; i < len; i += 3) {
      uint8_t saved = bytes[i];
      bytes[i] ^= (uint8_t)(1u << (i % 8));
      failures += parts_read_alike(bytes, len, 3, pool) < 0;
      bytes[i] = saved;
    }
    /* Two bytes a third of the file apart: often two fields fail at once,
     * and the message must be the first one's. */
    for (size_t i = 0; i < len; i += 5) {
      size_t k = (i + len / 3) % len;
      uint8_t si = bytes[i], sk = bytes[k];
      bytes[i] ^= (uint8_t)(1u << (i % 8));
      bytes[k] ^= (uint8_t)(1u << (k % 8));
      failures += parts_read_alike(bytes, len, 3, pool) < 0;
      bytes[i] = si;
      bytes[k] = sk;
    }
    free(bytes);
  }
  assert_true(failures > 10); /* the flips did reach the column chunks */
  util_pool_free(pool);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reader__alltypes_plain_values),
      cmocka_unit_test(test_reader__projection_orders_and_limits_columns),
      cmocka_unit_test(test_reader__metadata_json_describes_chunks),
      cmocka_unit_test(test_reader__nested_lists_assemble_offsets_and_nulls),
      cmocka_unit_test(test_reader__nested_map_projection),
      cmocka_unit_test(test_reader__built_required_plain_reads),
      cmocka_unit_test(test_reader__built_optional_levels_spread_values),
      cmocka_unit_test(test_reader__built_dictionary_gathers),
      cmocka_unit_test(test_reader__dictionary_index_out_of_range_is_corrupt),
      cmocka_unit_test(test_reader__built_binary_dictionary_gathers),
      cmocka_unit_test(test_reader__binary_dictionary_index_out_of_range_is_corrupt),
      cmocka_unit_test(test_reader__definition_level_above_max_is_corrupt),
      cmocka_unit_test(test_reader__page_overrunning_chunk_is_corrupt),
      cmocka_unit_test(test_reader__more_page_values_than_rows_is_corrupt),
      cmocka_unit_test(test_reader__fewer_values_than_rows_is_corrupt),
      cmocka_unit_test(test_reader__too_few_plain_bytes_is_corrupt),
      cmocka_unit_test(test_reader__chunk_past_footer_is_corrupt_at_open),
      cmocka_unit_test(test_reader__num_values_mismatch_is_corrupt),
      cmocka_unit_test(test_reader__huge_row_claim_is_refused_before_allocating),
      cmocka_unit_test(test_reader__string_length_past_page_is_corrupt),
      cmocka_unit_test(test_reader__unknown_encoding_is_unsupported_by_number),
      cmocka_unit_test(test_reader__delta_binary_packed_spec_example),
      cmocka_unit_test(test_reader__delta_negative_deltas_and_packed_miniblock),
      cmocka_unit_test(test_reader__byte_stream_split_interleaves),
      cmocka_unit_test(test_reader__every_truncation_fails_cleanly),
      cmocka_unit_test(test_reader__bit_flips_never_crash),
      cmocka_unit_test(test_reader__column_parts_read_what_one_reader_reads),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
