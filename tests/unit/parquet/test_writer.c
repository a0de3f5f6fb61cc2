/*
 * Unit tests for the Parquet writer (src/parquet/writer.c, column_writer.c,
 * stats.c): statistics order and truncation rules (parquet.thrift
 * Statistics / ColumnOrder), encoding choices (dictionary, early abandon,
 * PLAIN fallback), row group splitting, footer contents, and the file
 * lifecycle. Footers are parsed from the bytes on disk with
 * pq_file_metadata_parse; expected values are written out by hand.
 */
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#include "inlet/batch.h"
#include "inlet/parquet.h"
#include "inlet/text.h"
#include "parquet/pq_meta.h"
#include "parquet/stats.h"
#include "util/buf.h"
#include "util/util.h"

/* ---- helpers ------------------------------------------------------------ */

static char g_path[1024];

static const char *tmp_file(const char *tag) {
  char *dir = tu_mkdtemp(tag);
  snprintf(g_path, sizeof g_path, "%s/out.parquet", dir);
  return g_path;
}

static void batch_from_ddl(inlet_batch *b, const char *ddl) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  inlet_schema_init(&s);
  assert_int_equal(inlet_schema_parse(&s, ddl, &err), 0);
  assert_int_equal(inlet_batch_init(b, &s, &err), 0);
  inlet_schema_reset(&s);
}

static void put_int(inlet_batch *b, int col, int64_t v) {
  assert_int_equal(inlet_array_append_int(&b->columns[col], &b->schema.fields[col], v, NULL), 0);
}
static void put_int_field(inlet_array *a, const inlet_field *f, int64_t v) {
  assert_int_equal(inlet_array_append_int(a, f, v, NULL), 0);
}
static void put_null(inlet_batch *b, int col) {
  assert_int_equal(inlet_array_append_null(&b->columns[col], &b->schema.fields[col], NULL), 0);
}
static void put_double(inlet_batch *b, int col, double v) {
  assert_int_equal(inlet_array_append_double(&b->columns[col], v, NULL), 0);
}
static void put_str(inlet_batch *b, int col, const char *s) {
  assert_int_equal(
      inlet_array_append_bytes(&b->columns[col], &b->schema.fields[col], s, strlen(s), NULL), 0);
}

/* Parses the footer of the file at @p path into @p m (asserting the
 * PAR1 framing). */
static void read_footer(const char *path, pq_file_metadata *m) {
  size_t len = 0;
  char *data = tu_read_file(path, &len);
  assert_non_null(data);
  assert_true(len >= 12);
  assert_memory_equal(data, "PAR1", 4);
  assert_memory_equal(data + len - 4, "PAR1", 4);
  uint32_t flen;
  memcpy(&flen, data + len - 8, 4);
  assert_true(flen <= len - 12);
  pq_file_metadata_init(m);
  inlet_error err = INLET_ERROR_INIT;
  int rc = pq_file_metadata_parse(m, (const uint8_t *)data + len - 8 - flen, flen, path, &err);
  if (rc) fprintf(stderr, "footer: %s\n", inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  free(data);
}

static void write_file(const char *path, const inlet_batch *b,
                       const inlet_parquet_writer_options *o) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_writer *w = NULL;
  int rc = inlet_parquet_writer_open(&w, path, &b->schema, o, &err);
  if (rc) fprintf(stderr, "open: %s\n", inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  rc = inlet_parquet_writer_write(w, b, &err);
  if (rc) fprintf(stderr, "write: %s\n", inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  rc = inlet_parquet_writer_close(w, &err);
  if (rc) fprintf(stderr, "close: %s\n", inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  assert_int_equal(inlet_parquet_writer_rows(w), b->num_rows);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(inlet_parquet_writer_bytes(w), st.st_size);
  inlet_parquet_writer_free(w);
}

static bool has_encoding(const pq_column_meta *md, int32_t enc) {
  for (int32_t i = 0; i < md->n_encodings; i++)
    if (md->encodings[i] == enc) return true;
  return false;
}

static int32_t page_count(const pq_column_meta *md, int32_t page_type, int32_t enc) {
  for (int32_t i = 0; i < md->n_encoding_stats; i++)
    if (md->encoding_stats[i].page_type == page_type && md->encoding_stats[i].encoding == enc)
      return md->encoding_stats[i].count;
  return 0;
}

static int64_t le64(pq_bytes b) {
  assert_int_equal(b.len, 8);
  int64_t v;
  memcpy(&v, b.data, 8);
  return v;
}
static int32_t le32(pq_bytes b) {
  assert_int_equal(b.len, 4);
  int32_t v;
  memcpy(&v, b.data, 4);
  return v;
}

/* ---- statistics ---------------------------------------------------------- */

static void test_stats__signed_int32_with_nulls(void **state) {
  (void)state;
  pq_stats s;
  pq_stats_init(&s, PQ_STATS_I32);
  int32_t v[5] = {5, -3, 100, 7, 0};
  uint8_t valid = 0x1B; /* rows 0,1,3,4 valid; row 2 (100) null */
  pq_stats_update_i32(&s, v, &valid, 0, 5);
  assert_true(s.has_minmax);
  assert_int_equal(s.min.i, -3);
  assert_int_equal(s.max.i, 7);
  pq_stats_reset(&s);
}

static void test_stats__unsigned_int32_compares_unsigned(void **state) {
  (void)state;
  pq_stats s;
  pq_stats_init(&s, PQ_STATS_U32);
  int32_t v[3] = {1, -1, 7}; /* -1 is 4294967295 unsigned */
  pq_stats_update_i32(&s, v, NULL, 0, 3);
  assert_int_equal(s.min.u, 1);
  assert_int_equal(s.max.u, 4294967295u);
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  pq_statistics t;
  assert_int_equal(pq_stats_to_thrift(&s, 64, false, &m, &t, NULL), 0);
  assert_true(t.has_min_value && t.has_max_value);
  assert_int_equal((uint32_t)le32(t.max_value), 4294967295u);
  /* The deprecated fields use signed order: they must not be written. */
  assert_false(t.has_min);
  assert_false(t.has_max);
  pq_file_metadata_reset(&m);
  pq_stats_reset(&s);
}

static void test_stats__uint64_compares_unsigned(void **state) {
  (void)state;
  pq_stats s;
  pq_stats_init(&s, PQ_STATS_U64);
  int64_t v[3] = {INT64_MIN, 5, INT64_MAX};
  pq_stats_update_i64(&s, v, NULL, 0, 3);
  assert_true(s.min.u == 5);
  assert_true(s.max.u == (uint64_t)1 << 63);
  pq_stats_reset(&s);
}

static void test_stats__double_ignores_nan(void **state) {
  (void)state;
  pq_stats s;
  pq_stats_init(&s, PQ_STATS_DOUBLE);
  double v[4] = {NAN, 2.5, -1.0, NAN};
  pq_stats_update_double(&s, v, NULL, 0, 4);
  assert_true(s.has_minmax);
  assert_true(s.min.d == -1.0);
  assert_true(s.max.d == 2.5);
  pq_stats_reset(&s);
}

static void test_stats__all_nan_has_no_min_max(void **state) {
  (void)state;
  pq_stats s;
  pq_stats_init(&s, PQ_STATS_FLOAT);
  float v[2] = {NAN, NAN};
  pq_stats_count(&s, 3, 1);
  pq_stats_update_float(&s, v, NULL, 0, 2);
  assert_false(s.has_minmax);
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  pq_statistics t;
  assert_int_equal(pq_stats_to_thrift(&s, 64, false, &m, &t, NULL), 0);
  assert_true(t.has_null_count);
  assert_int_equal(t.null_count, 1);
  assert_false(t.has_min_value);
  assert_false(t.has_max_value);
  assert_false(t.has_min);
  pq_file_metadata_reset(&m);
  pq_stats_reset(&s);
}

static void test_stats__zero_bounds_use_signed_zeros(void **state) {
  (void)state;
  pq_stats s;
  pq_stats_init(&s, PQ_STATS_DOUBLE);
  double v[2] = {0.0, -0.0};
  pq_stats_update_double(&s, v, NULL, 0, 2);
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  pq_statistics t;
  assert_int_equal(pq_stats_to_thrift(&s, 64, false, &m, &t, NULL), 0);
  double lo, hi;
  memcpy(&lo, t.min_value.data, 8);
  memcpy(&hi, t.max_value.data, 8);
  assert_true(lo == 0 && signbit(lo));
  assert_true(hi == 0 && !signbit(hi));
  /* Doubles sort as signed values, so the legacy fields are written. */
  assert_true(t.has_min && t.has_max);
  pq_file_metadata_reset(&m);
  pq_stats_reset(&s);
}

static void test_stats__bytes_compare_unsigned(void **state) {
  (void)state;
  pq_stats s;
  pq_stats_init(&s, PQ_STATS_BYTES);
  int32_t off[4] = {0, 1, 2, 4};
  const uint8_t data[] = {0x7F, 0x80, 'a', 'b'};
  assert_int_equal(pq_stats_update_binary(&s, off, data, NULL, 0, 3), 0);
  assert_int_equal(s.min_bytes.len, 2); /* "ab": 0x61 sorts before 0x7F */
  assert_memory_equal(s.min_bytes.data, "ab", 2);
  assert_int_equal(s.max_bytes.len, 1);
  assert_int_equal(s.max_bytes.data[0], 0x80);
  /* A prefix sorts before the longer value. */
  assert_true(pq_stats_compare_bytes(PQ_STATS_BYTES, (const uint8_t *)"ab", 2,
                                     (const uint8_t *)"abc", 3) < 0);
  pq_stats_reset(&s);
}

static void test_stats__decimal_bytes_compare_signed(void **state) {
  (void)state;
  const uint8_t neg1[2] = {0xFF, 0xFF}, pos1[2] = {0x00, 0x01}, neg256[2] = {0xFF, 0x00};
  assert_true(pq_stats_compare_bytes(PQ_STATS_SIGNED_BE, neg1, 2, pos1, 2) < 0);
  assert_true(pq_stats_compare_bytes(PQ_STATS_SIGNED_BE, neg256, 2, neg1, 2) < 0);
  /* Different widths (BYTE_ARRAY decimals): -1 as one byte equals -1 as two. */
  const uint8_t neg1_short[1] = {0xFF}, big[3] = {0x01, 0x00, 0x00};
  assert_int_equal(pq_stats_compare_bytes(PQ_STATS_SIGNED_BE, neg1_short, 1, neg1, 2), 0);
  assert_true(pq_stats_compare_bytes(PQ_STATS_SIGNED_BE, pos1, 2, big, 3) < 0);
  pq_stats s;
  pq_stats_init(&s, PQ_STATS_SIGNED_BE);
  const uint8_t vals[6] = {0x00, 0x01, 0xFF, 0x00, 0xFF, 0xFF};
  assert_int_equal(pq_stats_update_fixed(&s, vals, 2, NULL, 0, 3), 0);
  assert_memory_equal(s.min_bytes.data, neg256, 2);
  assert_memory_equal(s.max_bytes.data, pos1, 2);
  pq_stats_reset(&s);
}

static void test_stats__truncate_min_is_prefix(void **state) {
  (void)state;
  uint8_t out[8];
  assert_int_equal(pq_truncate_min((const uint8_t *)"abcdefgh", 8, 3, false, out), 3);
  assert_memory_equal(out, "abc", 3);
  assert_int_equal(pq_truncate_min((const uint8_t *)"ab", 2, 3, false, out), 2);
}

static void test_stats__truncate_max_increments_with_carry(void **state) {
  (void)state;
  uint8_t out[8];
  assert_int_equal(pq_truncate_max((const uint8_t *)"abcdef", 6, 3, false, out), 3);
  assert_memory_equal(out, "abd", 3);
  const uint8_t carry[5] = {'a', 0xFF, 0xFF, 'x', 'y'};
  assert_int_equal(pq_truncate_max(carry, 5, 3, false, out), 1);
  assert_int_equal(out[0], 'b');
  const uint8_t ff[4] = {0xFF, 0xFF, 0xFF, 0x01};
  assert_int_equal(pq_truncate_max(ff, 4, 3, false, out), -1);
}

static void test_stats__truncate_utf8_stays_valid(void **state) {
  (void)state;
  uint8_t out[8];
  /* "aé" + "bc": é is 2 bytes; a cut at 2 must not split it. */
  const char *s = "a\xC3\xA9"
                  "bc";
  assert_int_equal(pq_truncate_min((const uint8_t *)s, 5, 2, true, out), 1);
  assert_memory_equal(out, "a", 1);
  /* Max: "a\u00e9" bumped to "a\u00ea" when 3 bytes are allowed. */
  assert_int_equal(pq_truncate_max((const uint8_t *)s, 5, 3, true, out), 3);
  assert_memory_equal(out, "a\xC3\xAA", 3);
  /* With 2 bytes only "a" fits: bumped to "b". */
  assert_int_equal(pq_truncate_max((const uint8_t *)s, 5, 2, true, out), 1);
  assert_int_equal(out[0], 'b');
}

static void test_stats__thrift_marks_truncated_bounds_inexact(void **state) {
  (void)state;
  pq_stats s;
  pq_stats_init(&s, PQ_STATS_BYTES);
  assert_int_equal(pq_stats_update_bytes(&s, (const uint8_t *)"abcdefgh", 8), 0);
  assert_int_equal(pq_stats_update_bytes(&s, (const uint8_t *)"zz", 2), 0);
  pq_file_metadata m;
  pq_file_metadata_init(&m);
  pq_statistics t;
  assert_int_equal(pq_stats_to_thrift(&s, 4, true, &m, &t, NULL), 0);
  assert_int_equal(t.min_value.len, 4);
  assert_memory_equal(t.min_value.data, "abcd", 4);
  assert_true(t.has_is_min_value_exact && !t.is_min_value_exact);
  assert_int_equal(t.max_value.len, 2);
  assert_memory_equal(t.max_value.data, "zz", 2);
  assert_true(t.has_is_max_value_exact && t.is_max_value_exact);
  assert_false(t.has_min); /* binary: no legacy signed-order fields */
  pq_file_metadata_reset(&m);
  pq_stats_reset(&s);
}

static void test_stats__merge_keeps_extremes_and_counts(void **state) {
  (void)state;
  pq_stats a, b;
  pq_stats_init(&a, PQ_STATS_BYTES);
  pq_stats_init(&b, PQ_STATS_BYTES);
  pq_stats_count(&a, 3, 1);
  pq_stats_count(&b, 2, 0);
  assert_int_equal(pq_stats_update_bytes(&a, (const uint8_t *)"m", 1), 0);
  assert_int_equal(pq_stats_update_bytes(&b, (const uint8_t *)"a", 1), 0);
  assert_int_equal(pq_stats_update_bytes(&b, (const uint8_t *)"z", 1), 0);
  assert_int_equal(pq_stats_merge(&a, &b), 0);
  assert_int_equal(a.num_values, 5);
  assert_int_equal(a.null_count, 1);
  assert_memory_equal(a.min_bytes.data, "a", 1);
  assert_memory_equal(a.max_bytes.data, "z", 1);
  pq_stats_reset(&a);
  pq_stats_reset(&b);
}

/* ---- writer: files ------------------------------------------------------ */

static void test_compression_parse__known_and_unknown_names(void **state) {
  (void)state;
  inlet_compression c;
  assert_int_equal(inlet_compression_parse(&c, "ZSTD", NULL), 0);
  assert_int_equal(c, INLET_COMPRESSION_ZSTD);
  assert_int_equal(inlet_compression_parse(&c, "none", NULL), 0);
  assert_int_equal(c, INLET_COMPRESSION_UNCOMPRESSED);
  assert_int_equal(inlet_compression_parse(&c, "lz4_raw", NULL), 0);
  assert_int_equal(c, INLET_COMPRESSION_LZ4_RAW);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_compression_parse(&c, "lzo", &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "lzo"));
}

static void test_writer__footer_has_version_created_by_orders_and_metadata(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "id long not null, name string, amount double");
  for (int i = 0; i < 3; i++) {
    put_int(&b, 0, i);
    put_str(&b, 1, i == 1 ? "bob" : "al");
    assert_int_equal(inlet_array_append_double(&b.columns[2], i * 1.5, NULL), 0);
  }
  b.num_rows = 3;
  const char *keys[] = {"k1", "k2"}, *vals[] = {"v1", "v2"};
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.n_metadata = 2;
  o.metadata_keys = keys;
  o.metadata_values = vals;
  const char *path = tmp_file("writer_footer");
  write_file(path, &b, &o);
  pq_file_metadata m;
  read_footer(path, &m);
  assert_int_equal(m.version, 2);
  assert_string_equal(m.created_by, "inlet version 0.1.0 (build inlet)");
  assert_int_equal(m.num_rows, 3);
  assert_int_equal(m.n_row_groups, 1);
  assert_int_equal(m.n_schema, 4);
  assert_int_equal(m.n_column_orders, 3);
  for (int i = 0; i < 3; i++)
    assert_int_equal(m.column_orders[i], PQ_ORDER_TYPE_DEFINED);
  assert_int_equal(m.n_key_value, 2);
  assert_string_equal(m.key_value[1].key, "k2");
  assert_string_equal(m.key_value[1].value, "v2");
  const pq_row_group *rg = &m.row_groups[0];
  assert_int_equal(rg->num_rows, 3);
  assert_true(rg->has_file_offset);
  assert_int_equal(rg->file_offset, 4);
  assert_int_equal(rg->columns[0].meta_data.codec, PQ_CODEC_SNAPPY);
  assert_int_equal(rg->columns[0].meta_data.num_values, 3);
  int64_t total = 0;
  for (int i = 0; i < 3; i++)
    total += rg->columns[i].meta_data.total_compressed_size;
  assert_int_equal(rg->total_compressed_size, total);
  /* Column statistics. */
  const pq_statistics *st = &rg->columns[0].meta_data.statistics;
  assert_true(rg->columns[0].meta_data.has_statistics);
  assert_int_equal(st->null_count, 0);
  assert_int_equal(le64(st->min_value), 0);
  assert_int_equal(le64(st->max_value), 2);
  const pq_statistics *ss = &rg->columns[1].meta_data.statistics;
  assert_int_equal(ss->min_value.len, 2);
  assert_memory_equal(ss->min_value.data, "al", 2);
  assert_memory_equal(ss->max_value.data, "bob", 3);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__empty_file_has_no_row_groups(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "id long, s string");
  const char *path = tmp_file("writer_empty");
  write_file(path, &b, NULL);
  pq_file_metadata m;
  read_footer(path, &m);
  assert_int_equal(m.num_rows, 0);
  assert_int_equal(m.n_row_groups, 0);
  assert_int_equal(m.n_schema, 3);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__row_group_max_rows_splits_row_groups(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "id long not null, v int");
  for (int i = 0; i < 1000; i++) {
    put_int(&b, 0, i);
    if (i % 3 == 0)
      put_null(&b, 1);
    else
      put_int(&b, 1, i % 7);
  }
  b.num_rows = 1000;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.row_group_max_rows = 300;
  const char *path = tmp_file("writer_rg");
  write_file(path, &b, &o);
  pq_file_metadata m;
  read_footer(path, &m);
  assert_int_equal(m.n_row_groups, 4);
  int64_t expect_rows[4] = {300, 300, 300, 100};
  int64_t prev_end = 4;
  for (int g = 0; g < 4; g++) {
    const pq_row_group *rg = &m.row_groups[g];
    assert_int_equal(rg->num_rows, expect_rows[g]);
    assert_int_equal(rg->file_offset, prev_end);
    prev_end = rg->file_offset + rg->total_compressed_size;
    const pq_column_meta *md = &rg->columns[0].meta_data;
    assert_int_equal(le64(md->statistics.min_value), g * 300);
    assert_int_equal(le64(md->statistics.max_value), g * 300 + expect_rows[g] - 1);
    /* Column v: every third row (i % 3 == 0) is null. */
    const pq_column_meta *mv = &rg->columns[1].meta_data;
    int64_t nulls = 0;
    for (int64_t i = g * 300; i < g * 300 + expect_rows[g]; i++)
      nulls += i % 3 == 0;
    assert_int_equal(mv->statistics.null_count, nulls);
    assert_int_equal(mv->num_values, expect_rows[g]);
  }
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__repeated_values_use_dictionary(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "s string, v long");
  static const char *names[] = {"ann", "bo", "cy", "di"};
  for (int i = 0; i < 10000; i++) {
    put_str(&b, 0, names[i % 4]);
    put_int(&b, 1, i % 10);
  }
  b.num_rows = 10000;
  const char *path = tmp_file("writer_dict");
  write_file(path, &b, NULL);
  pq_file_metadata m;
  read_footer(path, &m);
  for (int c = 0; c < 2; c++) {
    const pq_column_chunk *cc = &m.row_groups[0].columns[c];
    const pq_column_meta *md = &cc->meta_data;
    assert_true(md->has_dictionary_page_offset);
    /* Column 0's chunk starts the row group; the dictionary page comes first. */
    if (c == 0) assert_int_equal(md->dictionary_page_offset, m.row_groups[0].file_offset);
    assert_int_equal(cc->file_offset, 0);
    assert_true(md->data_page_offset > md->dictionary_page_offset);
    assert_true(has_encoding(md, PQ_ENC_RLE_DICTIONARY));
    assert_true(has_encoding(md, PQ_ENC_PLAIN));
    assert_int_equal(page_count(md, PQ_PAGE_DICTIONARY, PQ_ENC_PLAIN), 1);
    assert_true(page_count(md, PQ_PAGE_DATA, PQ_ENC_RLE_DICTIONARY) >= 1);
    assert_int_equal(page_count(md, PQ_PAGE_DATA, PQ_ENC_PLAIN), 0);
  }
  const pq_statistics *st = &m.row_groups[0].columns[0].meta_data.statistics;
  assert_memory_equal(st->min_value.data, "ann", 3);
  assert_memory_equal(st->max_value.data, "di", 2);
  const pq_statistics *sv = &m.row_groups[0].columns[1].meta_data.statistics;
  assert_int_equal(le64(sv->min_value), 0);
  assert_int_equal(le64(sv->max_value), 9);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__unique_sorted_ids_skip_dictionary(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "id long not null");
  for (int i = 0; i < 20000; i++)
    put_int(&b, 0, 1000000 + i);
  b.num_rows = 20000;
  const char *path = tmp_file("writer_unique");
  /* PLAIN integers: AUTO would turn these sorted ids into DELTA pages. */
  inlet_parquet_writer_options po = INLET_PARQUET_WRITER_OPTIONS_INIT;
  po.int_encoding = INLET_INT_ENCODING_PLAIN;
  write_file(path, &b, &po);
  pq_file_metadata m;
  read_footer(path, &m);
  const pq_column_meta *md = &m.row_groups[0].columns[0].meta_data;
  assert_false(md->has_dictionary_page_offset);
  assert_false(has_encoding(md, PQ_ENC_RLE_DICTIONARY));
  assert_true(has_encoding(md, PQ_ENC_PLAIN));
  assert_true(page_count(md, PQ_PAGE_DATA, PQ_ENC_PLAIN) >= 1);
  assert_int_equal(le64(md->statistics.min_value), 1000000);
  assert_int_equal(le64(md->statistics.max_value), 1019999);
  /* PLAIN int64 without levels: at least 8 bytes a value before compression. */
  assert_true(md->total_uncompressed_size >= 20000 * 8);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__large_dictionary_falls_back_to_plain(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "v long");
  /* Each value twice: not "all distinct", but the dictionary grows past the
   * 1000-byte limit early, so later pages must be PLAIN. */
  for (int i = 0; i < 40000; i++)
    put_int(&b, 0, i / 2);
  b.num_rows = 40000;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.dictionary_page_bytes = 1000;
  o.compression = INLET_COMPRESSION_UNCOMPRESSED;
  o.int_encoding = INLET_INT_ENCODING_PLAIN;
  const char *path = tmp_file("writer_fallback");
  write_file(path, &b, &o);
  pq_file_metadata m;
  read_footer(path, &m);
  const pq_column_meta *md = &m.row_groups[0].columns[0].meta_data;
  assert_true(md->has_dictionary_page_offset);
  assert_int_equal(page_count(md, PQ_PAGE_DICTIONARY, PQ_ENC_PLAIN), 1);
  assert_true(page_count(md, PQ_PAGE_DATA, PQ_ENC_RLE_DICTIONARY) >= 1);
  assert_true(page_count(md, PQ_PAGE_DATA, PQ_ENC_PLAIN) >= 1);
  assert_true(has_encoding(md, PQ_ENC_RLE_DICTIONARY));
  assert_true(has_encoding(md, PQ_ENC_PLAIN));
  assert_int_equal(le64(md->statistics.min_value), 0);
  assert_int_equal(le64(md->statistics.max_value), 19999);
  /* The dictionary page comes first: its header at dictionary_page_offset. */
  size_t len;
  char *data = tu_read_file(path, &len);
  pq_page_header h;
  size_t used;
  assert_int_equal(pq_page_header_parse(&h, (const uint8_t *)data + md->dictionary_page_offset,
                                        len - (size_t)md->dictionary_page_offset, &used, NULL),
                   0);
  assert_int_equal(h.type, PQ_PAGE_DICTIONARY);
  assert_int_equal(h.dictionary_page_header.encoding, PQ_ENC_PLAIN);
  assert_int_equal(md->data_page_offset,
                   md->dictionary_page_offset + (int64_t)used + h.compressed_page_size);
  assert_int_equal(pq_page_header_parse(&h, (const uint8_t *)data + md->data_page_offset,
                                        len - (size_t)md->data_page_offset, &used, NULL),
                   0);
  assert_int_equal(h.type, PQ_PAGE_DATA);
  assert_int_equal(h.data_page_header.encoding, PQ_ENC_RLE_DICTIONARY);
  assert_int_equal(h.data_page_header.definition_level_encoding, PQ_ENC_RLE);
  assert_int_equal(h.data_page_header.repetition_level_encoding, PQ_ENC_RLE);
  free(data);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__small_pages_split_the_chunk(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "id long not null");
  for (int i = 0; i < 5000; i++)
    put_int(&b, 0, i * 7919);
  b.num_rows = 5000;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.page_bytes = 4096;
  o.dictionary = false;
  o.int_encoding = INLET_INT_ENCODING_PLAIN;
  const char *path = tmp_file("writer_pages");
  write_file(path, &b, &o);
  pq_file_metadata m;
  read_footer(path, &m);
  const pq_column_meta *md = &m.row_groups[0].columns[0].meta_data;
  /* 40000 bytes of values at ~4 KiB a page: about 10 pages. */
  int32_t pages = page_count(md, PQ_PAGE_DATA, PQ_ENC_PLAIN);
  assert_true(pages >= 9 && pages <= 11);
  assert_false(md->has_dictionary_page_offset);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__all_null_column_has_no_min_max(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "v double, s string");
  for (int i = 0; i < 50; i++) {
    put_null(&b, 0);
    put_null(&b, 1);
  }
  b.num_rows = 50;
  const char *path = tmp_file("writer_allnull");
  write_file(path, &b, NULL);
  pq_file_metadata m;
  read_footer(path, &m);
  for (int c = 0; c < 2; c++) {
    const pq_statistics *st = &m.row_groups[0].columns[c].meta_data.statistics;
    assert_int_equal(st->null_count, 50);
    assert_false(st->has_min_value);
    assert_false(st->has_max_value);
  }
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__float_stats_nan_and_signed_zero(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "f float, d double");
  float fv[] = {NAN, 0.0f, -0.0f};
  double dv[] = {NAN, 3.5, -2.25};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(inlet_array_append_float(&b.columns[0], fv[i], NULL), 0);
    assert_int_equal(inlet_array_append_double(&b.columns[1], dv[i], NULL), 0);
  }
  b.num_rows = 3;
  const char *path = tmp_file("writer_float");
  write_file(path, &b, NULL);
  pq_file_metadata m;
  read_footer(path, &m);
  const pq_statistics *sf = &m.row_groups[0].columns[0].meta_data.statistics;
  float lo, hi;
  memcpy(&lo, sf->min_value.data, 4);
  memcpy(&hi, sf->max_value.data, 4);
  assert_true(lo == 0 && signbit(lo));
  assert_true(hi == 0 && !signbit(hi));
  const pq_statistics *sd = &m.row_groups[0].columns[1].meta_data.statistics;
  double dlo, dhi;
  memcpy(&dlo, sd->min_value.data, 8);
  memcpy(&dhi, sd->max_value.data, 8);
  assert_true(dlo == -2.25);
  assert_true(dhi == 3.5);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__unsigned_and_truncated_string_stats(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "u uint32, s string");
  uint32_t uv[] = {4000000000u, 3, 2147483648u};
  const char *sv[] = {"mmmmmmmmmmmm", "aaaaaaaaaaaa", "zzzzzzzzzzzz"};
  for (int i = 0; i < 3; i++) {
    put_int(&b, 0, uv[i]);
    put_str(&b, 1, sv[i]);
  }
  b.num_rows = 3;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.statistics_truncate = 5;
  const char *path = tmp_file("writer_ustats");
  write_file(path, &b, &o);
  pq_file_metadata m;
  read_footer(path, &m);
  const pq_statistics *su = &m.row_groups[0].columns[0].meta_data.statistics;
  assert_int_equal((uint32_t)le32(su->min_value), 3);
  assert_int_equal((uint32_t)le32(su->max_value), 4000000000u);
  assert_false(su->has_min);
  const pq_statistics *ss = &m.row_groups[0].columns[1].meta_data.statistics;
  assert_int_equal(ss->min_value.len, 5);
  assert_memory_equal(ss->min_value.data, "aaaaa", 5);
  assert_false(ss->is_min_value_exact);
  assert_int_equal(ss->max_value.len, 5);
  assert_memory_equal(ss->max_value.data, "zzzz{", 5);
  assert_false(ss->is_max_value_exact);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__leaf_stats_cover_every_row_group(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "v long, s string");
  for (int i = 0; i < 100; i++) {
    if (i % 10 == 0)
      put_null(&b, 0);
    else
      put_int(&b, 0, 50 - i);
    char buf[16];
    snprintf(buf, sizeof buf, "k%03d", i);
    put_str(&b, 1, buf);
  }
  b.num_rows = 100;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.row_group_max_rows = 30;
  const char *path = tmp_file("writer_leafstats");
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_writer *w = NULL;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &b.schema, &o, &err), 0);
  assert_int_equal(inlet_parquet_writer_write(w, &b, &err), 0);
  assert_int_equal(inlet_parquet_writer_close(w, &err), 0);
  assert_int_equal(pq_writer_num_leaves(w), 2);
  const pq_stats *s0 = pq_writer_leaf_stats(w, 0);
  assert_non_null(s0);
  assert_int_equal(s0->num_values, 100);
  assert_int_equal(s0->null_count, 10);
  assert_true(s0->has_minmax);
  assert_int_equal(s0->min.i, 50 - 99);
  assert_int_equal(s0->max.i, 50 - 1);
  const pq_stats *s1 = pq_writer_leaf_stats(w, 1);
  assert_int_equal(s1->min_bytes.len, 4);
  assert_memory_equal(s1->min_bytes.data, "k000", 4);
  assert_memory_equal(s1->max_bytes.data, "k099", 4);
  assert_null(pq_writer_leaf_stats(w, 2));
  assert_non_null(pq_writer_leaf_desc(w, 1));
  inlet_parquet_writer_free(w);
  inlet_batch_reset(&b);
}

static void test_writer__free_without_close_removes_file(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "v long");
  put_int(&b, 0, 1);
  b.num_rows = 1;
  const char *path = tmp_file("writer_abort");
  inlet_parquet_writer *w = NULL;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &b.schema, NULL, NULL), 0);
  assert_int_equal(inlet_parquet_writer_write(w, &b, NULL), 0);
  assert_int_equal(access(path, F_OK), 0);
  inlet_parquet_writer_free(w);
  assert_int_not_equal(access(path, F_OK), 0);
  inlet_batch_reset(&b);
}

static void test_writer__existing_file_is_not_replaced(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "v long");
  const char *path = tmp_file("writer_exists");
  assert_int_equal(tu_write_file(path, "keep", 4), 0);
  inlet_parquet_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &b.schema, NULL, &err), INLET_EEXISTS);
  assert_null(w);
  size_t len;
  char *data = tu_read_file(path, &len);
  assert_int_equal(len, 4);
  free(data);
  inlet_batch_reset(&b);
}

static void test_writer__null_in_required_column_is_einval(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "v long not null");
  put_int(&b, 0, 1);
  /* Force a null into the non-nullable column's array. */
  assert_int_equal(inlet_array_ensure_validity(&b.columns[0], NULL), 0);
  put_int(&b, 0, 2);
  inlet_bit_set(b.columns[0].validity, 1, false);
  b.columns[0].null_count = 1;
  b.num_rows = 2;
  const char *path = tmp_file("writer_reqnull");
  inlet_parquet_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &b.schema, NULL, &err), 0);
  assert_int_equal(inlet_parquet_writer_write(w, &b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "required"));
  /* The writer is unusable now, and closing reports it. */
  assert_int_equal(inlet_parquet_writer_close(w, &err), INLET_EINVAL);
  inlet_parquet_writer_free(w);
  assert_int_not_equal(access(path, F_OK), 0);
  inlet_batch_reset(&b);
}

static void test_writer__batch_schema_mismatch_is_einval(void **state) {
  (void)state;
  inlet_batch a, b;
  batch_from_ddl(&a, "v long");
  batch_from_ddl(&b, "v int");
  const char *path = tmp_file("writer_mismatch");
  inlet_parquet_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &a.schema, NULL, &err), 0);
  assert_int_equal(inlet_parquet_writer_write(w, &b, &err), INLET_EINVAL);
  /* A bad batch does not poison the writer. */
  assert_int_equal(inlet_parquet_writer_close(w, &err), 0);
  inlet_parquet_writer_free(w);
  assert_int_equal(access(path, F_OK), 0);
  inlet_batch_reset(&a);
  inlet_batch_reset(&b);
}

static void test_writer__nested_schema_uses_three_level_lists_and_maps(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "s struct<a:int>, l array<long>, m map<string,int>");
  b.num_rows = 0;
  const char *path = tmp_file("writer_nested");
  write_file(path, &b, NULL);
  pq_file_metadata m;
  read_footer(path, &m);
  /* schema, s, a, l, list, element, m, key_value, key, value */
  assert_int_equal(m.n_schema, 10);
  static const char *names[] = {"schema",  "s", "a",         "l",   "list",
                                "element", "m", "key_value", "key", "value"};
  for (int i = 0; i < 10; i++)
    assert_string_equal(m.schema[i].name, names[i]);
  assert_int_equal(m.schema[3].converted_type, PQ_CT_LIST);
  assert_int_equal(m.schema[3].logical.kind, PQ_LT_LIST);
  assert_int_equal(m.schema[4].repetition, PQ_REPEATED);
  assert_int_equal(m.schema[6].converted_type, PQ_CT_MAP);
  assert_int_equal(m.schema[7].repetition, PQ_REPEATED);
  assert_int_equal(m.schema[8].repetition, PQ_REQUIRED);
  assert_int_equal(m.schema[8].logical.kind, PQ_LT_STRING);
  assert_int_equal(m.schema[9].repetition, PQ_OPTIONAL);
  assert_int_equal(m.n_column_orders, 4);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__null_map_key_is_einval(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "m map<string,int>");
  inlet_array *ma = &b.columns[0];
  inlet_array *entries = &ma->children[0];
  const inlet_field *ef = &b.schema.fields[0].children[0];
  /* One row holding one entry whose key is null. */
  assert_int_equal(inlet_array_append_null(&entries->children[0], &ef->children[0], NULL), 0);
  put_int_field(&entries->children[1], &ef->children[1], 1);
  entries->length = 1;
  assert_int_equal(inlet_array_reserve_rows(ma, &b.schema.fields[0], 1, NULL), 0);
  ma->offsets[0] = 0;
  ma->offsets[1] = 1;
  ma->length = 1;
  b.num_rows = 1;
  const char *path = tmp_file("writer_nullkey");
  inlet_parquet_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &b.schema, NULL, &err), 0);
  assert_int_equal(inlet_parquet_writer_write(w, &b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "map key"));
  inlet_parquet_writer_free(w);
  inlet_batch_reset(&b);
}

static void test_writer__bad_options_are_einval(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "v long");
  const char *path = tmp_file("writer_badopt");
  inlet_parquet_writer *w = NULL;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.page_bytes = 0;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &b.schema, &o, NULL), INLET_EINVAL);
  o = (inlet_parquet_writer_options)INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.version = 99;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &b.schema, &o, NULL), INLET_EINVAL);
  assert_null(w);
  assert_int_not_equal(access(path, F_OK), 0);
  inlet_batch_reset(&b);
}

static void test_writer__every_flat_type_writes_annotated_schema(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(
      &b, "b boolean, i8 byte, u16 uint16, i32 int, u64 uint64, f float, s string, "
          "bin binary, dt date, ts timestamp, tn timestamp_ntz, tm time, "
          "d1 decimal(9,2), d2 decimal(18,3), d3 decimal(30,4), j json, u uuid, fx fixed(3)");
  int n = b.schema.n_fields;
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < n; c++) {
      inlet_field *f = &b.schema.fields[c];
      inlet_array *a = &b.columns[c];
      if (r == 1) {
        put_null(&b, c);
        continue;
      }
      switch (f->type.id) {
      case INLET_TYPE_BOOL: assert_int_equal(inlet_array_append_bool(a, r == 0, NULL), 0); break;
      case INLET_TYPE_FLOAT:
        assert_int_equal(inlet_array_append_float(a, 1.5f * r, NULL), 0);
        break;
      case INLET_TYPE_UINT64:
        assert_int_equal(inlet_array_append_uint64(a, UINT64_MAX - (uint64_t)r, NULL), 0);
        break;
      case INLET_TYPE_STRING:
      case INLET_TYPE_BINARY: put_str(&b, c, r ? "xyz" : "ab"); break;
      case INLET_TYPE_FIXED_BINARY: {
        uint8_t v[16];
        memset(v, r ? 0xAB : 0x01, sizeof v);
        assert_int_equal(inlet_array_append_bytes(a, f, v, (size_t)f->type.byte_width, NULL), 0);
        break;
      }
      case INLET_TYPE_DECIMAL: {
        uint8_t v[16];
        memset(v, r ? 0xFF : 0, sizeof v); /* -1 or 0 ... */
        v[0] = r ? 0x85 : 0x7B;            /* -123 or 123 */
        assert_int_equal(inlet_array_append_decimal(a, v, NULL), 0);
        break;
      }
      default: put_int(&b, c, r ? -5 : 5); break;
      }
    }
  }
  b.num_rows = 3;
  const char *path = tmp_file("writer_types");
  write_file(path, &b, NULL);
  pq_file_metadata m;
  read_footer(path, &m);
  assert_int_equal(m.n_schema, n + 1);
  assert_int_equal(m.n_row_groups, 1);
  for (int c = 0; c < n; c++) {
    const pq_column_meta *md = &m.row_groups[0].columns[c].meta_data;
    assert_int_equal(md->num_values, 3);
    assert_int_equal(md->statistics.null_count, 1);
    assert_int_equal(md->type, m.schema[c + 1].type);
  }
  /* Decimal(30,4) is FIXED_LEN_BYTE_ARRAY(13), compared as signed: min -123. */
  const pq_schema_element *e = &m.schema[1 + 14];
  assert_string_equal(e->name, "d3");
  assert_int_equal(e->type, PQ_FIXED_LEN_BYTE_ARRAY);
  const pq_statistics *sd = &m.row_groups[0].columns[14].meta_data.statistics;
  assert_int_equal(sd->min_value.len, e->type_length);
  assert_int_equal(sd->min_value.data[0], 0xFF);
  assert_int_equal(sd->min_value.data[e->type_length - 1], 0x85);
  assert_int_equal(sd->max_value.data[0], 0x00);
  assert_int_equal(sd->max_value.data[e->type_length - 1], 0x7B);
  /* Decimal(9,2) on INT32: min -123, max 123, legacy fields too. */
  const pq_statistics *s9 = &m.row_groups[0].columns[12].meta_data.statistics;
  assert_int_equal(le32(s9->min_value), -123);
  assert_int_equal(le32(s9->max_value), 123);
  /* uint64 stats compare unsigned. */
  const pq_statistics *su = &m.row_groups[0].columns[4].meta_data.statistics;
  assert_true((uint64_t)le64(su->min_value) == UINT64_MAX - 2);
  assert_true((uint64_t)le64(su->max_value) == UINT64_MAX);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__row_group_bytes_bounds_row_groups(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "id long not null");
  for (int i = 0; i < 100000; i++)
    put_int(&b, 0, (int64_t)i * 1000003);
  b.num_rows = 100000;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.row_group_bytes = 64 * 1024;
  o.compression = INLET_COMPRESSION_UNCOMPRESSED;
  const char *path = tmp_file("writer_rgbytes");
  write_file(path, &b, &o);
  pq_file_metadata m;
  read_footer(path, &m);
  /* 800 KB of PLAIN int64 in row groups of about 64 KiB. */
  assert_true(m.n_row_groups >= 10 && m.n_row_groups <= 16);
  int64_t rows = 0;
  for (int32_t g = 0; g < m.n_row_groups; g++) {
    rows += m.row_groups[g].num_rows;
    assert_true(m.row_groups[g].total_byte_size <= 96 * 1024);
  }
  assert_int_equal(rows, 100000);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
}

static void test_writer__allocation_failures_fail_cleanly(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "id long not null, s string, d double");
  for (int i = 0; i < 5000; i++) {
    put_int(&b, 0, i);
    if (i % 5 == 0)
      put_null(&b, 1);
    else
      put_str(&b, 1, i % 2 ? "odd" : "even");
    assert_int_equal(inlet_array_append_double(&b.columns[2], i * 0.5, NULL), 0);
  }
  b.num_rows = 5000;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.row_group_max_rows = 2000;
  o.sync_on_close = false;
  int successes = 0;
  for (long n = 0; n < 400 && successes < 3; n++) {
    const char *path = tmp_file("writer_enomem");
    inlet_error err = INLET_ERROR_INIT;
    inlet_parquet_writer *w = NULL;
    inlet_alloc_fail_after(n);
    int rc = inlet_parquet_writer_open(&w, path, &b.schema, &o, &err);
    bool opened = rc == 0;
    if (rc == 0) rc = inlet_parquet_writer_write(w, &b, &err);
    if (rc == 0) rc = inlet_parquet_writer_close(w, &err);
    inlet_alloc_fail_after(-1);
    if (rc != 0 && rc != INLET_ENOMEM) fprintf(stderr, "n=%ld: %s\n", n, inlet_errmsg(&err));
    assert_true(rc == 0 || rc == INLET_ENOMEM);
    if (rc == 0) successes++;
    inlet_parquet_writer_free(w);
    /* A failed writer leaves no file behind. */
    /* A writer that opened and then failed leaves no file behind. (A
     * failure inside the storage layer's create is that layer's to clean.) */
    if (rc != 0 && opened) assert_int_not_equal(access(path, F_OK), 0);
  }
  assert_true(successes > 0);
  inlet_batch_reset(&b);
}

static void test_writer__timestamp_seconds_overflowing_millis_is_einval(void **state) {
  (void)state;
  inlet_schema s;
  inlet_schema_init(&s);
  inlet_field f;
  memset(&f, 0, sizeof f);
  f.name = "ts";
  f.type.id = INLET_TYPE_TIMESTAMP;
  f.type.unit = INLET_UNIT_SECOND;
  f.type.utc = true;
  f.nullable = true;
  f.field_id = -1;
  assert_int_equal(inlet_schema_add_field(&s, &f, NULL), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, NULL), 0);
  put_int(&b, 0, 1700000000);
  put_null(&b, 0);
  put_int(&b, 0, INT64_MAX / 100); /* times 1000 overflows */
  b.num_rows = 3;
  const char *path = tmp_file("writer_tsover");
  inlet_parquet_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &s, NULL, &err), 0);
  assert_int_equal(inlet_parquet_writer_write(w, &b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "row 2"));
  inlet_parquet_writer_free(w);
  inlet_batch_reset(&b);
  inlet_schema_reset(&s);
}

static void test_writer__timestamp_seconds_written_as_millis(void **state) {
  (void)state;
  inlet_schema s;
  inlet_schema_init(&s);
  inlet_field f;
  memset(&f, 0, sizeof f);
  f.name = "ts";
  f.type.id = INLET_TYPE_TIMESTAMP;
  f.type.unit = INLET_UNIT_SECOND;
  f.nullable = false;
  f.field_id = -1;
  assert_int_equal(inlet_schema_add_field(&s, &f, NULL), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &s, NULL), 0);
  put_int(&b, 0, -5);
  put_int(&b, 0, 1700000000);
  b.num_rows = 2;
  const char *path = tmp_file("writer_tssec");
  write_file(path, &b, NULL);
  pq_file_metadata m;
  read_footer(path, &m);
  const pq_statistics *st = &m.row_groups[0].columns[0].meta_data.statistics;
  assert_int_equal(le64(st->min_value), -5000);
  assert_int_equal(le64(st->max_value), 1700000000000);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
  inlet_schema_reset(&s);
}

static void test_writer__decimal_beyond_precision_is_einval(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "d decimal(5,2)");
  uint8_t v[16];
  memset(v, 0, sizeof v);
  v[4] = 1; /* 2^32: does not fit INT32 storage */
  assert_int_equal(inlet_array_append_decimal(&b.columns[0], v, NULL), 0);
  b.num_rows = 1;
  const char *path = tmp_file("writer_decover");
  inlet_parquet_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &b.schema, NULL, &err), 0);
  assert_int_equal(inlet_parquet_writer_write(w, &b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "decimal"));
  inlet_parquet_writer_free(w);
  inlet_batch_reset(&b);
}

static void test_writer__delta_int_encoding_writes_delta_pages(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "id long not null, d date, s string");
  for (int i = 0; i < 10000; i++) {
    put_int(&b, 0, 1000000000000LL + i * 3);
    if (i % 4 == 0)
      put_null(&b, 1);
    else
      put_int(&b, 1, 19000 + i / 100);
    put_str(&b, 2, i % 2 ? "x" : "y");
  }
  b.num_rows = 10000;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.int_encoding = INLET_INT_ENCODING_DELTA;
  o.compression = INLET_COMPRESSION_UNCOMPRESSED;
  const char *path = tmp_file("writer_delta");
  write_file(path, &b, &o);
  pq_file_metadata m;
  read_footer(path, &m);
  for (int c = 0; c < 2; c++) {
    const pq_column_meta *md = &m.row_groups[0].columns[c].meta_data;
    assert_true(has_encoding(md, PQ_ENC_DELTA_BINARY_PACKED));
    assert_false(md->has_dictionary_page_offset);
    assert_true(page_count(md, PQ_PAGE_DATA, PQ_ENC_DELTA_BINARY_PACKED) >= 1);
  }
  const pq_column_meta *id = &m.row_groups[0].columns[0].meta_data;
  /* Constant deltas of 3: a few bytes per 128 values instead of 8 each. */
  assert_true(id->total_uncompressed_size < 10000);
  assert_int_equal(le64(id->statistics.min_value), 1000000000000LL);
  assert_int_equal(le64(id->statistics.max_value), 1000000000000LL + 9999 * 3);
  /* Strings keep their dictionary. */
  assert_true(has_encoding(&m.row_groups[0].columns[2].meta_data, PQ_ENC_RLE_DICTIONARY));
  pq_file_metadata_reset(&m);
  /* inlet's reader decodes the DELTA pages back to the values. */
  inlet_parquet_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  int rc = inlet_parquet_reader_open(&r, path, NULL, &err);
  if (rc) fprintf(stderr, "reader: %s\n", inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  inlet_batch out;
  memset(&out, 0, sizeof out);
  rc = inlet_parquet_reader_read_row_group(r, 0, &out, &err);
  if (rc) fprintf(stderr, "reader: %s\n", inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  assert_int_equal(out.num_rows, 10000);
  const int64_t *ids = (const int64_t *)out.columns[0].values;
  const int32_t *days = (const int32_t *)out.columns[1].values;
  for (int i = 0; i < 10000; i++) {
    assert_int_equal(ids[i], 1000000000000LL + i * 3);
    assert_int_equal(inlet_array_is_valid(&out.columns[1], i), i % 4 != 0);
    if (i % 4) assert_int_equal(days[i], 19000 + i / 100);
  }
  inlet_batch_reset(&out);
  inlet_parquet_reader_free(r);
  inlet_batch_reset(&b);
}

/* AUTO under EXTENDED encodings: sorted ids and event times become
 * DELTA_BINARY_PACKED pages; random integers stay PLAIN; repeating integers
 * keep the dictionary. Values read back exactly. */
static void test_writer__auto_int_encoding_picks_delta_for_sorted_columns(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "id long not null, t timestamp, r long, k int");
  uint64_t x = 88172645463325252ULL;
  int64_t *rnd = malloc(20000 * sizeof *rnd);
  assert_non_null(rnd);
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    rnd[i] = (int64_t)x;
    put_int(&b, 0, i);
    if (i % 10 == 3)
      put_null(&b, 1);
    else
      put_int(&b, 1, 1700000000000000LL + i * 1000LL + (int64_t)(x % 1000));
    put_int(&b, 2, rnd[i]);
    put_int(&b, 3, i % 5);
  }
  b.num_rows = 20000;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  assert_int_equal(o.int_encoding, INLET_INT_ENCODING_AUTO);
  o.encodings = INLET_PARQUET_ENCODINGS_EXTENDED;
  o.compression = INLET_COMPRESSION_UNCOMPRESSED;
  o.page_bytes = 32 * 1024;
  const char *path = tmp_file("writer_auto_delta");
  write_file(path, &b, &o);
  pq_file_metadata m;
  read_footer(path, &m);
  const pq_column_meta *id = &m.row_groups[0].columns[0].meta_data;
  const pq_column_meta *t = &m.row_groups[0].columns[1].meta_data;
  const pq_column_meta *r = &m.row_groups[0].columns[2].meta_data;
  const pq_column_meta *k = &m.row_groups[0].columns[3].meta_data;
  assert_true(page_count(id, PQ_PAGE_DATA, PQ_ENC_DELTA_BINARY_PACKED) >= 1);
  assert_int_equal(page_count(id, PQ_PAGE_DATA, PQ_ENC_PLAIN), 0);
  assert_true(id->total_uncompressed_size < 20000); /* PLAIN: 160,000 */
  assert_true(page_count(t, PQ_PAGE_DATA, PQ_ENC_DELTA_BINARY_PACKED) >= 1);
  assert_true(t->total_uncompressed_size < 18000 * 8 / 2);
  assert_false(has_encoding(r, PQ_ENC_DELTA_BINARY_PACKED));
  assert_true(has_encoding(k, PQ_ENC_RLE_DICTIONARY));
  assert_false(has_encoding(k, PQ_ENC_DELTA_BINARY_PACKED));
  pq_file_metadata_reset(&m);

  inlet_parquet_reader *rd = NULL;
  inlet_error err = INLET_ERROR_INIT;
  int rc = inlet_parquet_reader_open(&rd, path, NULL, &err);
  if (rc) fprintf(stderr, "reader: %s\n", inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  inlet_batch out;
  memset(&out, 0, sizeof out);
  rc = inlet_parquet_reader_read_row_group(rd, 0, &out, &err);
  if (rc) fprintf(stderr, "reader: %s\n", inlet_errmsg(&err));
  assert_int_equal(rc, 0);
  assert_int_equal(out.num_rows, 20000);
  const int64_t *ids = (const int64_t *)out.columns[0].values;
  const int64_t *ts = (const int64_t *)out.columns[1].values;
  const int64_t *rs = (const int64_t *)out.columns[2].values;
  x = 88172645463325252ULL;
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    assert_int_equal(ids[i], i);
    assert_int_equal(inlet_array_is_valid(&out.columns[1], i), i % 10 != 3);
    if (i % 10 != 3) assert_int_equal(ts[i], 1700000000000000LL + i * 1000LL + (int64_t)(x % 1000));
    assert_int_equal(rs[i], rnd[i]);
  }
  inlet_batch_reset(&out);
  inlet_parquet_reader_free(rd);
  inlet_batch_reset(&b);
  free(rnd);
}

/* EXTENDED with a codec writes high-cardinality doubles BYTE_STREAM_SPLIT
 * (low-cardinality ones keep the dictionary); uncompressed, they stay PLAIN. */
static void test_writer__auto_splits_doubles_when_compressed(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "amount double, few double");
  for (int i = 0; i < 5000; i++) {
    if (i % 7 == 0)
      put_null(&b, 0);
    else
      put_double(&b, 0, (double)((i * 2654435761u >> 4) % 1000000) / 100.0);
    put_double(&b, 1, (double)(i % 3));
  }
  b.num_rows = 5000;
  for (int pass = 0; pass < 2; pass++) {
    inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
    o.encodings = INLET_PARQUET_ENCODINGS_EXTENDED;
    o.compression = pass ? INLET_COMPRESSION_UNCOMPRESSED : INLET_COMPRESSION_ZSTD;
    o.page_bytes = 8 * 1024;
    const char *path = tmp_file(pass ? "writer_split_none" : "writer_split_zstd");
    write_file(path, &b, &o);
    pq_file_metadata m;
    read_footer(path, &m);
    const pq_column_meta *a = &m.row_groups[0].columns[0].meta_data;
    assert_int_equal(has_encoding(a, PQ_ENC_BYTE_STREAM_SPLIT), !pass);
    if (!pass) assert_true(page_count(a, PQ_PAGE_DATA, PQ_ENC_BYTE_STREAM_SPLIT) >= 2);
    assert_true(has_encoding(&m.row_groups[0].columns[1].meta_data, PQ_ENC_RLE_DICTIONARY));
    pq_file_metadata_reset(&m);
    inlet_parquet_reader *rd = NULL;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(inlet_parquet_reader_open(&rd, path, NULL, &err), 0);
    inlet_batch out;
    memset(&out, 0, sizeof out);
    int rc = inlet_parquet_reader_read_row_group(rd, 0, &out, &err);
    if (rc) fprintf(stderr, "reader: %s\n", inlet_errmsg(&err));
    assert_int_equal(rc, 0);
    const double *v = (const double *)out.columns[0].values;
    for (int i = 0; i < 5000; i++) {
      assert_int_equal(inlet_array_is_valid(&out.columns[0], i), i % 7 != 0);
      if (i % 7) assert_true(v[i] == (double)((i * 2654435761u >> 4) % 1000000) / 100.0);
    }
    inlet_batch_reset(&out);
    inlet_parquet_reader_free(rd);
  }
  inlet_batch_reset(&b);
}

/* The default (COMPATIBLE encodings) writes the columns EXTENDED turns into
 * DELTA_BINARY_PACKED and BYTE_STREAM_SPLIT as PLAIN or dictionary pages in
 * V1 data pages only, with every codec; values read back exactly. An unknown
 * encodings value is refused. */
static void test_writer__compatible_default_writes_only_v1_encodings(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "id long not null, t timestamp, amount double, k int");
  for (int i = 0; i < 20000; i++) {
    put_int(&b, 0, i);
    put_int(&b, 1, 1700000000000000LL + i * 1000LL);
    put_double(&b, 2, (double)((i * 2654435761u >> 4) % 1000000) / 100.0);
    put_int(&b, 3, i % 5);
  }
  b.num_rows = 20000;
  const inlet_compression codecs[] = {INLET_COMPRESSION_ZSTD, INLET_COMPRESSION_SNAPPY,
                                      INLET_COMPRESSION_UNCOMPRESSED};
  for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
    inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
    assert_int_equal(o.encodings, INLET_PARQUET_ENCODINGS_COMPATIBLE);
    o.compression = codecs[c];
    o.page_bytes = 16 * 1024;
    const char *path = tmp_file("writer_compatible");
    write_file(path, &b, &o);
    pq_file_metadata m;
    read_footer(path, &m);
    for (int32_t col = 0; col < 4; col++) {
      const pq_column_meta *md = &m.row_groups[0].columns[col].meta_data;
      for (int32_t i = 0; i < md->n_encodings; i++)
        assert_true(md->encodings[i] == PQ_ENC_PLAIN || md->encodings[i] == PQ_ENC_RLE ||
                    md->encodings[i] == PQ_ENC_RLE_DICTIONARY);
      for (int32_t i = 0; i < md->n_encoding_stats; i++)
        assert_true(md->encoding_stats[i].encoding == PQ_ENC_PLAIN ||
                    md->encoding_stats[i].encoding == PQ_ENC_RLE_DICTIONARY);
    }
    assert_true(page_count(&m.row_groups[0].columns[0].meta_data, PQ_PAGE_DATA, PQ_ENC_PLAIN) >= 2);
    assert_true(page_count(&m.row_groups[0].columns[2].meta_data, PQ_PAGE_DATA, PQ_ENC_PLAIN) >= 2);
    pq_file_metadata_reset(&m);

    inlet_parquet_reader *rd = NULL;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(inlet_parquet_reader_open(&rd, path, NULL, &err), 0);
    inlet_batch out;
    memset(&out, 0, sizeof out);
    assert_int_equal(inlet_parquet_reader_read_row_group(rd, 0, &out, &err), 0);
    assert_int_equal(out.num_rows, 20000);
    const int64_t *ids = (const int64_t *)out.columns[0].values;
    const double *am = (const double *)out.columns[2].values;
    for (int i = 0; i < 20000; i++) {
      assert_int_equal(ids[i], i);
      assert_true(am[i] == (double)((i * 2654435761u >> 4) % 1000000) / 100.0);
    }
    inlet_batch_reset(&out);
    inlet_parquet_reader_free(rd);
    unlink(path);
  }

  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.encodings = (inlet_parquet_encodings)7;
  inlet_parquet_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_writer_open(&w, tmp_file("writer_bad_enc"), &b.schema, &o, &err),
                   INLET_EINVAL);
  assert_non_null(strstr(inlet_errmsg(&err), "encodings"));
  inlet_parquet_encodings e = INLET_PARQUET_ENCODINGS_COMPATIBLE;
  assert_int_equal(inlet_parquet_encodings_parse(&e, "EXTENDED", &err), 0);
  assert_int_equal(e, INLET_PARQUET_ENCODINGS_EXTENDED);
  assert_int_equal(inlet_parquet_encodings_parse(&e, "Compatible", &err), 0);
  assert_int_equal(e, INLET_PARQUET_ENCODINGS_COMPATIBLE);
  assert_int_equal(inlet_parquet_encodings_parse(&e, "v2", &err), INLET_EINVAL);
  assert_non_null(strstr(inlet_errmsg(&err), "\"v2\""));
  inlet_batch_reset(&b);
}

/* Walks the data pages of column chunk @p md in the file bytes; returns the
 * number of pages and the largest uncompressed page size. */
static int walk_pages(const char *data, size_t len, const pq_column_meta *md, int32_t *max_size) {
  int64_t pos = md->has_dictionary_page_offset ? md->dictionary_page_offset : md->data_page_offset;
  int64_t end = pos + md->total_compressed_size;
  int pages = 0;
  *max_size = 0;
  while (pos < end) {
    pq_page_header h;
    size_t used;
    assert_int_equal(
        pq_page_header_parse(&h, (const uint8_t *)data + pos, len - (size_t)pos, &used, NULL), 0);
    if (h.type == PQ_PAGE_DATA) {
      pages++;
      if (h.uncompressed_page_size > *max_size) *max_size = h.uncompressed_page_size;
    }
    pos += (int64_t)used + h.compressed_page_size;
  }
  assert_int_equal(pos, end);
  return pages;
}

static void test_writer__huge_strings_keep_pages_bounded(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "s string");
  size_t big = 300 * 1024;
  char *v = malloc(big + 1);
  for (int i = 0; i < 20; i++) {
    memset(v, 'a' + i, big);
    v[big] = 0;
    put_str(&b, 0, v);
  }
  free(v);
  b.num_rows = 20;
  for (int dict = 0; dict < 2; dict++) {
    inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
    o.dictionary = dict;
    o.compression = INLET_COMPRESSION_UNCOMPRESSED;
    const char *path = tmp_file("writer_huge");
    write_file(path, &b, &o);
    pq_file_metadata m;
    read_footer(path, &m);
    const pq_column_meta *md = &m.row_groups[0].columns[0].meta_data;
    size_t len;
    char *data = tu_read_file(path, &len);
    int32_t max_size;
    int pages = walk_pages(data, len, md, &max_size);
    /* 6 MB of values in pages of about 1 MiB (at most one value over). */
    assert_true(pages >= 5);
    assert_true(max_size <= 1024 * 1024 + (int32_t)big + 64);
    free(data);
    pq_file_metadata_reset(&m);
  }
  inlet_batch_reset(&b);
}

static void test_writer__decreasing_string_offsets_are_einval(void **state) {
  (void)state;
  inlet_batch b;
  batch_from_ddl(&b, "s string");
  put_str(&b, 0, "abc");
  put_str(&b, 0, "de");
  b.num_rows = 2;
  b.columns[0].offsets[1] = 6; /* 0, 6, 5: the second value would be -1 bytes */
  const char *path = tmp_file("writer_badoff");
  inlet_parquet_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &b.schema, NULL, &err), 0);
  assert_int_equal(inlet_parquet_writer_write(w, &b, &err), INLET_EINVAL);
  assert_non_null(strstr(err.message, "offsets"));
  inlet_parquet_writer_free(w);
  inlet_batch_reset(&b);
}

static void test_writer__nested_allocation_failures_fail_cleanly(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  inlet_schema_init(&schema);
  assert_int_equal(inlet_schema_parse(&schema,
                                      "id long, l array<string>, m map<string,array<int>>, "
                                      "s struct<a:double,b:array<boolean>>",
                                      &err),
                   0);
  inlet_buf in = INLET_BUF_INIT;
  for (int i = 0; i < 300; i++)
    inlet_buf_appendf(&in,
                      "{\"id\":%d,\"l\":[\"a%d\",null,\"b\"],\"m\":{\"k%d\":[1,null,%d]},"
                      "\"s\":{\"a\":%d.5,\"b\":[true,null]}}\n",
                      i, i % 7, i % 3, i, i);
  inlet_text_reader *tr = NULL;
  inlet_text_reader_options to = INLET_TEXT_READER_OPTIONS_INIT;
  assert_int_equal(inlet_text_reader_open_memory(&tr, in.data, in.len, &schema, &to, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_text_reader_next(tr, &b, &err), 0);
  assert_int_equal(b.num_rows, 300);
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.row_group_max_rows = 100;
  o.sync_on_close = false;
  int successes = 0;
  for (long n = 0; n < 600 && successes < 2; n++) {
    const char *path = tmp_file("writer_nested_enomem");
    inlet_parquet_writer *w = NULL;
    inlet_alloc_fail_after(n);
    int rc = inlet_parquet_writer_open(&w, path, &schema, &o, &err);
    bool opened = rc == 0;
    if (rc == 0) rc = inlet_parquet_writer_write(w, &b, &err);
    if (rc == 0) rc = inlet_parquet_writer_close(w, &err);
    inlet_alloc_fail_after(-1);
    if (rc != 0 && rc != INLET_ENOMEM) fprintf(stderr, "n=%ld: %s\n", n, inlet_errmsg(&err));
    assert_true(rc == 0 || rc == INLET_ENOMEM);
    if (rc == 0) successes++;
    inlet_parquet_writer_free(w);
    if (rc != 0 && opened) assert_int_not_equal(access(path, F_OK), 0);
  }
  assert_true(successes > 0);
  inlet_batch_reset(&b);
  inlet_text_reader_free(tr);
  inlet_buf_reset(&in);
  inlet_schema_reset(&schema);
}

static void test_writer__nested_pages_stay_bounded(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema schema;
  inlet_schema_init(&schema);
  assert_int_equal(inlet_schema_parse(&schema, "l array<long>", &err), 0);
  inlet_buf in = INLET_BUF_INIT;
  /* 20000 rows of 10 distinct-ish longs: 1.6 MB of PLAIN values. */
  for (int i = 0; i < 20000; i++) {
    inlet_buf_puts(&in, "{\"l\":[");
    for (int j = 0; j < 10; j++)
      inlet_buf_appendf(&in, "%s%d", j ? "," : "", i * 10 + j);
    inlet_buf_puts(&in, "]}\n");
  }
  inlet_text_reader *tr = NULL;
  inlet_text_reader_options to = INLET_TEXT_READER_OPTIONS_INIT;
  assert_int_equal(inlet_text_reader_open_memory(&tr, in.data, in.len, &schema, &to, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_text_reader_next(tr, &b, &err), 0);
  assert_int_equal(b.num_rows, 20000);
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.compression = INLET_COMPRESSION_UNCOMPRESSED;
  o.page_bytes = 64 * 1024;
  const char *path = tmp_file("writer_nested_pages");
  write_file(path, &b, &o);
  pq_file_metadata m;
  read_footer(path, &m);
  const pq_column_meta *md = &m.row_groups[0].columns[0].meta_data;
  assert_int_equal(md->num_values, 200000);
  size_t len;
  char *data = tu_read_file(path, &len);
  int32_t max_size;
  int pages = walk_pages(data, len, md, &max_size);
  assert_true(pages >= 20);
  /* One call (1024 rows, ~82 KB of values and levels) over the target at most. */
  assert_true(max_size <= 64 * 1024 + 100 * 1024);
  free(data);
  pq_file_metadata_reset(&m);
  inlet_batch_reset(&b);
  inlet_text_reader_free(tr);
  inlet_buf_reset(&in);
  inlet_schema_reset(&schema);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stats__signed_int32_with_nulls),
      cmocka_unit_test(test_stats__unsigned_int32_compares_unsigned),
      cmocka_unit_test(test_stats__uint64_compares_unsigned),
      cmocka_unit_test(test_stats__double_ignores_nan),
      cmocka_unit_test(test_stats__all_nan_has_no_min_max),
      cmocka_unit_test(test_stats__zero_bounds_use_signed_zeros),
      cmocka_unit_test(test_stats__bytes_compare_unsigned),
      cmocka_unit_test(test_stats__decimal_bytes_compare_signed),
      cmocka_unit_test(test_stats__truncate_min_is_prefix),
      cmocka_unit_test(test_stats__truncate_max_increments_with_carry),
      cmocka_unit_test(test_stats__truncate_utf8_stays_valid),
      cmocka_unit_test(test_stats__thrift_marks_truncated_bounds_inexact),
      cmocka_unit_test(test_stats__merge_keeps_extremes_and_counts),
      cmocka_unit_test(test_compression_parse__known_and_unknown_names),
      cmocka_unit_test(test_writer__footer_has_version_created_by_orders_and_metadata),
      cmocka_unit_test(test_writer__empty_file_has_no_row_groups),
      cmocka_unit_test(test_writer__row_group_max_rows_splits_row_groups),
      cmocka_unit_test(test_writer__repeated_values_use_dictionary),
      cmocka_unit_test(test_writer__unique_sorted_ids_skip_dictionary),
      cmocka_unit_test(test_writer__large_dictionary_falls_back_to_plain),
      cmocka_unit_test(test_writer__small_pages_split_the_chunk),
      cmocka_unit_test(test_writer__all_null_column_has_no_min_max),
      cmocka_unit_test(test_writer__float_stats_nan_and_signed_zero),
      cmocka_unit_test(test_writer__unsigned_and_truncated_string_stats),
      cmocka_unit_test(test_writer__leaf_stats_cover_every_row_group),
      cmocka_unit_test(test_writer__free_without_close_removes_file),
      cmocka_unit_test(test_writer__existing_file_is_not_replaced),
      cmocka_unit_test(test_writer__null_in_required_column_is_einval),
      cmocka_unit_test(test_writer__batch_schema_mismatch_is_einval),
      cmocka_unit_test(test_writer__nested_schema_uses_three_level_lists_and_maps),
      cmocka_unit_test(test_writer__null_map_key_is_einval),
      cmocka_unit_test(test_writer__nested_allocation_failures_fail_cleanly),
      cmocka_unit_test(test_writer__nested_pages_stay_bounded),
      cmocka_unit_test(test_writer__bad_options_are_einval),
      cmocka_unit_test(test_writer__every_flat_type_writes_annotated_schema),
      cmocka_unit_test(test_writer__row_group_bytes_bounds_row_groups),
      cmocka_unit_test(test_writer__allocation_failures_fail_cleanly),
      cmocka_unit_test(test_writer__timestamp_seconds_overflowing_millis_is_einval),
      cmocka_unit_test(test_writer__timestamp_seconds_written_as_millis),
      cmocka_unit_test(test_writer__decimal_beyond_precision_is_einval),
      cmocka_unit_test(test_writer__delta_int_encoding_writes_delta_pages),
      cmocka_unit_test(test_writer__auto_int_encoding_picks_delta_for_sorted_columns),
      cmocka_unit_test(test_writer__auto_splits_doubles_when_compressed),
      cmocka_unit_test(test_writer__compatible_default_writes_only_v1_encodings),
      cmocka_unit_test(test_writer__huge_strings_keep_pages_bounded),
      cmocka_unit_test(test_writer__decreasing_string_offsets_are_einval),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
