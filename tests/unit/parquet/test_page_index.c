/*
 * The Parquet page index (src/parquet/page_index.c) and row-range reads
 * (inlet_parquet_reader_read_rows): files written with small pages carry an
 * OffsetIndex whose locations are real page headers and whose first rows
 * follow the page row limit, and a ColumnIndex whose bounds and null counts
 * equal what the test computes from the rows it wrote (per page, exactly:
 * nothing here is truncated). Row-range reads return exactly the selected
 * rows of a full read, for random selections over every column kind, null
 * pattern and encoding (dictionary, PLAIN, DELTA, BYTE_STREAM_SPLIT).
 * Malformed index bytes and bad ranges fail cleanly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/parquet.h"
#include "parquet/page_index.h"
#include "parquet/pq_meta.h"
#include "parquet/thrift.h"
#include "testutil.h"

#define N 10007
#define PAGE_ROWS 1000

static char g_dir[4096];
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (uint32_t)(g_rng >> 11);
}

static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "%s", tu_mkdtemp("pq-page-index"));
  return 0;
}
static int teardown(void **state) {
  (void)state;
  tu_rmtree(g_dir);
  return 0;
}

/* The rows the test writes, kept to compute expectations. Rows 3000..3999
 * are null in every nullable column (null pages); column "nan" holds only
 * NaN in rows 5000..5999 (no column index may be written for it). */
typedef struct rows {
  int64_t i[N];
  bool i_ok[N];
  char s[N][8];
  bool s_ok[N];
  double d[N];
  bool d_ok[N];
  bool b[N];
  bool b_ok[N];
  int64_t req[N]; /* required, ascending: DELTA pages */
  double nan[N];
  int64_t small[N]; /* few distinct values: dictionary pages */
  bool small_ok[N];
} rows;

static rows g_rows;

static void make_rows(void) {
  for (int r = 0; r < N; r++) {
    bool null_block = r >= 3000 && r < 4000;
    g_rows.i_ok[r] = !null_block && rnd() % 10 != 0;
    g_rows.i[r] = (int64_t)(rnd() % 2000000) - 1000000;
    g_rows.s_ok[r] = !null_block && rnd() % 7 != 0;
    snprintf(g_rows.s[r], sizeof g_rows.s[r], "k%03u", rnd() % 40);
    g_rows.d_ok[r] = !null_block && rnd() % 5 != 0;
    g_rows.d[r] = (double)(int)(rnd() % 100000000) / 7.0 - 5000.0;
    g_rows.b_ok[r] = !null_block && rnd() % 3 != 0;
    g_rows.b[r] = rnd() % 2;
    g_rows.req[r] = 1700000000000000LL + (int64_t)r * 1000 + rnd() % 100;
    g_rows.nan[r] = r >= 5000 && r < 6000 ? NAN : (double)(rnd() % 1000);
    g_rows.small_ok[r] = !null_block && rnd() % 4 != 0;
    g_rows.small[r] = (int64_t)(rnd() % 50) - 25;
  }
}

static const char *SCHEMA =
    "i long, s string, d double, b boolean, req timestamp not null, nan double, small long";

static void write_file(const char *path, inlet_compression codec, bool page_index) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema sch;
  assert_int_equal(inlet_schema_parse(&sch, SCHEMA, &err), 0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &sch, &err), 0);
  for (int r = 0; r < N; r++) {
    inlet_array *c = b.columns;
    const inlet_field *f = sch.fields;
    if (g_rows.i_ok[r])
      assert_int_equal(inlet_array_append_int(&c[0], &f[0], g_rows.i[r], &err), 0);
    else
      assert_int_equal(inlet_array_append_null(&c[0], &f[0], &err), 0);
    if (g_rows.s_ok[r])
      assert_int_equal(
          inlet_array_append_bytes(&c[1], &f[1], g_rows.s[r], strlen(g_rows.s[r]), &err), 0);
    else
      assert_int_equal(inlet_array_append_null(&c[1], &f[1], &err), 0);
    if (g_rows.d_ok[r])
      assert_int_equal(inlet_array_append_double(&c[2], g_rows.d[r], &err), 0);
    else
      assert_int_equal(inlet_array_append_null(&c[2], &f[2], &err), 0);
    if (g_rows.b_ok[r])
      assert_int_equal(inlet_array_append_bool(&c[3], g_rows.b[r], &err), 0);
    else
      assert_int_equal(inlet_array_append_null(&c[3], &f[3], &err), 0);
    assert_int_equal(inlet_array_append_int(&c[4], &f[4], g_rows.req[r], &err), 0);
    assert_int_equal(inlet_array_append_double(&c[5], g_rows.nan[r], &err), 0);
    if (g_rows.small_ok[r])
      assert_int_equal(inlet_array_append_int(&c[6], &f[6], g_rows.small[r], &err), 0);
    else
      assert_int_equal(inlet_array_append_null(&c[6], &f[6], &err), 0);
  }
  b.num_rows = N;
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.encodings = INLET_PARQUET_ENCODINGS_EXTENDED; /* cover DELTA and BYTE_STREAM_SPLIT pages */
  o.compression = codec;
  o.page_max_rows = PAGE_ROWS;
  o.page_index = page_index;
  o.sync_on_close = false;
  inlet_parquet_writer *w = NULL;
  assert_int_equal(inlet_parquet_writer_open(&w, path, &sch, &o, &err), 0);
  int rc = inlet_parquet_writer_write(w, &b, &err);
  if (rc == 0) rc = inlet_parquet_writer_close(w, &err);
  if (rc) fail_msg("write: %s", inlet_errmsg(&err));
  inlet_parquet_writer_free(w);
  inlet_batch_reset(&b);
  inlet_schema_reset(&sch);
}

static int64_t le64(const pq_bytes *b) {
  assert_int_equal(b->len, 8);
  int64_t v;
  memcpy(&v, b->data, 8);
  return v;
}
static double led(const pq_bytes *b) {
  assert_int_equal(b->len, 8);
  double v;
  memcpy(&v, b->data, 8);
  return v;
}

/* Checks the page index of field @p f against the rows. */
static void check_field(const inlet_parquet_reader *r, const uint8_t *file, size_t file_len,
                        int f) {
  inlet_error err = INLET_ERROR_INIT;
  pq_page_index pi;
  pq_page_index_init(&pi);
  assert_int_equal(pq_reader_page_index(r, 0, f, &pi, &err), 0);
  int pages = (N + PAGE_ROWS - 1) / PAGE_ROWS;
  assert_int_equal(pi.n_pages, pages);
  for (int p = 0; p < pages; p++) {
    int lo = p * PAGE_ROWS, hi = lo + PAGE_ROWS < N ? lo + PAGE_ROWS : N;
    assert_int_equal(pi.first_row[p], lo);
    /* The location is a data page header whose size adds up. */
    assert_true(pi.offset[p] > 0 && (size_t)pi.offset[p] + (size_t)pi.size[p] <= file_len);
    pq_page_header h;
    size_t hlen = 0;
    assert_int_equal(pq_page_header_parse(&h, file + pi.offset[p], (size_t)pi.size[p], &hlen, &err),
                     0);
    assert_int_equal(h.type, PQ_PAGE_DATA);
    assert_int_equal((int64_t)hlen + h.compressed_page_size, pi.size[p]);
    assert_int_equal(h.data_page_header.num_values, hi - lo);
    if (p > 0) assert_int_equal(pi.offset[p], pi.offset[p - 1] + pi.size[p - 1]);
    if (f == 5) continue; /* checked below: no column index */
    assert_true(pi.has_column_index);
    assert_true(pi.has_null_counts);
    int64_t nulls = 0, imin = INT64_MAX, imax = INT64_MIN;
    double dmin = INFINITY, dmax = -INFINITY;
    const char *smin = NULL, *smax = NULL;
    bool any_false = false, any_true = false;
    for (int q = lo; q < hi; q++) {
      switch (f) {
      case 0:
        if (!g_rows.i_ok[q])
          nulls++;
        else {
          imin = g_rows.i[q] < imin ? g_rows.i[q] : imin;
          imax = g_rows.i[q] > imax ? g_rows.i[q] : imax;
        }
        break;
      case 1:
        if (!g_rows.s_ok[q])
          nulls++;
        else {
          if (!smin || strcmp(g_rows.s[q], smin) < 0) smin = g_rows.s[q];
          if (!smax || strcmp(g_rows.s[q], smax) > 0) smax = g_rows.s[q];
        }
        break;
      case 2:
        if (!g_rows.d_ok[q])
          nulls++;
        else {
          dmin = g_rows.d[q] < dmin ? g_rows.d[q] : dmin;
          dmax = g_rows.d[q] > dmax ? g_rows.d[q] : dmax;
        }
        break;
      case 3:
        if (!g_rows.b_ok[q])
          nulls++;
        else if (g_rows.b[q])
          any_true = true;
        else
          any_false = true;
        break;
      case 4:
        imin = g_rows.req[q] < imin ? g_rows.req[q] : imin;
        imax = g_rows.req[q] > imax ? g_rows.req[q] : imax;
        break;
      case 6:
        if (!g_rows.small_ok[q])
          nulls++;
        else {
          imin = g_rows.small[q] < imin ? g_rows.small[q] : imin;
          imax = g_rows.small[q] > imax ? g_rows.small[q] : imax;
        }
        break;
      }
    }
    assert_int_equal(pi.null_counts[p], nulls);
    assert_int_equal(pi.null_pages[p], nulls == hi - lo);
    if (pi.null_pages[p]) {
      assert_int_equal(pi.min[p].len, 0);
      assert_int_equal(pi.max[p].len, 0);
      continue;
    }
    switch (f) {
    case 0:
    case 4:
    case 6:
      assert_int_equal(le64(&pi.min[p]), imin);
      assert_int_equal(le64(&pi.max[p]), imax);
      break;
    case 1:
      assert_int_equal(pi.min[p].len, strlen(smin));
      assert_memory_equal(pi.min[p].data, smin, strlen(smin));
      assert_int_equal(pi.max[p].len, strlen(smax));
      assert_memory_equal(pi.max[p].data, smax, strlen(smax));
      break;
    case 2:
      assert_true(led(&pi.min[p]) == dmin);
      assert_true(led(&pi.max[p]) == dmax);
      break;
    case 3:
      assert_int_equal(pi.min[p].len, 1);
      assert_int_equal(pi.min[p].data[0], any_false ? 0 : 1);
      assert_int_equal(pi.max[p].data[0], any_true ? 1 : 0);
      break;
    }
  }
  if (f == 5) assert_false(pi.has_column_index); /* a page of only NaN */
  pq_page_index_reset(&pi);
}

static void test_page_index__bounds_counts_and_locations_match_the_rows(void **state) {
  (void)state;
  make_rows();
  inlet_compression codecs[] = {INLET_COMPRESSION_SNAPPY, INLET_COMPRESSION_UNCOMPRESSED,
                                INLET_COMPRESSION_ZSTD};
  for (size_t k = 0; k < sizeof codecs / sizeof *codecs; k++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/idx%zu.parquet", g_dir, k);
    write_file(path, codecs[k], true);
    size_t len = 0;
    uint8_t *file = (uint8_t *)tu_read_file(path, &len);
    assert_non_null(file);
    inlet_parquet_reader *r = NULL;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(inlet_parquet_reader_open(&r, path, NULL, &err), 0);
    assert_int_equal(inlet_parquet_reader_num_row_groups(r), 1);
    for (int f = 0; f < 7; f++)
      check_field(r, file, len, f);
    /* The columns took the encodings this test means to cover. */
    char *meta = NULL;
    assert_int_equal(inlet_parquet_reader_metadata_json(r, &meta, &err), 0);
    assert_non_null(strstr(meta, "RLE_DICTIONARY"));
    assert_non_null(strstr(meta, "DELTA_BINARY_PACKED"));
    if (codecs[k] != INLET_COMPRESSION_UNCOMPRESSED)
      assert_non_null(strstr(meta, "BYTE_STREAM_SPLIT"));
    inlet_string_free(meta);
    inlet_parquet_reader_free(r);
    free(file);
  }
}

static void test_page_index__option_off_writes_none(void **state) {
  (void)state;
  make_rows();
  char path[4200];
  snprintf(path, sizeof path, "%s/noidx.parquet", g_dir);
  write_file(path, INLET_COMPRESSION_SNAPPY, false);
  inlet_parquet_reader *r = NULL;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_parquet_reader_open(&r, path, NULL, &err), 0);
  pq_page_index pi;
  pq_page_index_init(&pi);
  assert_int_equal(pq_reader_page_index(r, 0, 0, &pi, &err), 0);
  assert_int_equal(pi.n_pages, 0);
  pq_page_index_reset(&pi);
  inlet_parquet_reader_free(r);
}

/* Compares row @p ra of @p a with row @p rb of @p b (same field). */
static void same_value(const inlet_field *f, const inlet_array *a, int64_t ra, const inlet_array *b,
                       int64_t rb) {
  bool va = inlet_array_is_valid(a, ra), vb = inlet_array_is_valid(b, rb);
  assert_int_equal(va, vb);
  if (!va) return;
  switch (f->type.id) {
  case INLET_TYPE_BOOL:
    assert_int_equal(inlet_bit_get(a->values, ra), inlet_bit_get(b->values, rb));
    break;
  case INLET_TYPE_STRING: {
    int32_t la = a->offsets[ra + 1] - a->offsets[ra], lb = b->offsets[rb + 1] - b->offsets[rb];
    assert_int_equal(la, lb);
    assert_memory_equal(a->values + a->offsets[ra], b->values + b->offsets[rb], (size_t)la);
    break;
  }
  default: {
    int32_t w = inlet_type_value_width(&f->type);
    assert_true(w > 0);
    assert_memory_equal(a->values + ra * w, b->values + rb * w, (size_t)w);
    break;
  }
  }
}

static void test_page_index__read_rows_equals_the_selected_rows_of_a_full_read(void **state) {
  (void)state;
  make_rows();
  char path[4200];
  snprintf(path, sizeof path, "%s/ranges.parquet", g_dir);
  write_file(path, INLET_COMPRESSION_SNAPPY, true);
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  assert_int_equal(inlet_parquet_reader_open(&r, path, NULL, &err), 0);
  inlet_batch all, part;
  memset(&all, 0, sizeof all);
  memset(&part, 0, sizeof part);
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 0, &all, &err), 0);
  const inlet_schema *s = inlet_parquet_reader_schema(r);
  int64_t ranges[64];
  for (int trial = 0; trial < 60; trial++) {
    /* 1..16 random sorted disjoint ranges; some exactly on page bounds,
     * some single rows, some inside the null block. */
    int n = 1 + (int)(rnd() % 16), k = 0;
    int64_t pos = 0;
    for (int i = 0; i < n && pos < N; i++) {
      int64_t gap = trial % 3 == 0 ? (int64_t)(rnd() % 3) * PAGE_ROWS : (int64_t)(rnd() % 1500);
      int64_t a = pos + gap;
      if (i == 0 && trial % 5 == 0) a = 0;
      if (a >= N) break;
      int64_t len = trial % 4 == 0 ? 1 : 1 + (int64_t)(rnd() % 2500);
      int64_t b = a + len > N ? N : a + len;
      ranges[2 * k] = a;
      ranges[2 * k + 1] = b;
      k++;
      pos = b + 1; /* disjoint, and never adjacent */
    }
    if (k == 0) continue;
    int rc = inlet_parquet_reader_read_rows(r, 0, ranges, k, &part, &err);
    if (rc) fail_msg("trial %d: %s", trial, inlet_errmsg(&err));
    assert_int_equal(inlet_batch_validate(&part, NULL), 0);
    int64_t want = 0;
    for (int i = 0; i < k; i++)
      want += ranges[2 * i + 1] - ranges[2 * i];
    assert_int_equal(part.num_rows, want);
    for (int c = 0; c < s->n_fields; c++) {
      int64_t out = 0, nulls = 0;
      for (int i = 0; i < k; i++)
        for (int64_t q = ranges[2 * i]; q < ranges[2 * i + 1]; q++, out++) {
          same_value(&s->fields[c], &all.columns[c], q, &part.columns[c], out);
          nulls += !inlet_array_is_valid(&all.columns[c], q);
        }
      assert_int_equal(part.columns[c].null_count, nulls);
    }
  }
  /* Every row, as one range, is the whole row group. */
  ranges[0] = 0;
  ranges[1] = N;
  assert_int_equal(inlet_parquet_reader_read_rows(r, 0, ranges, 1, &part, &err), 0);
  assert_int_equal(part.num_rows, N);
  for (int c = 0; c < s->n_fields; c++)
    for (int64_t q = 0; q < N; q += 97)
      same_value(&s->fields[c], &all.columns[c], q, &part.columns[c], q);
  inlet_batch_reset(&all);
  inlet_batch_reset(&part);
  inlet_parquet_reader_free(r);
}

static void test_page_index__bad_ranges_are_refused(void **state) {
  (void)state;
  make_rows();
  char path[4200];
  snprintf(path, sizeof path, "%s/bad.parquet", g_dir);
  write_file(path, INLET_COMPRESSION_SNAPPY, true);
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  assert_int_equal(inlet_parquet_reader_open(&r, path, NULL, &err), 0);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  const int64_t overlap[] = {0, 10, 5, 20};
  const int64_t empty[] = {7, 7};
  const int64_t past[] = {10, N + 1};
  const int64_t negative[] = {-1, 3};
  assert_int_equal(inlet_parquet_reader_read_rows(r, 0, overlap, 2, &b, &err), INLET_EINVAL);
  assert_non_null(strstr(inlet_errmsg(&err), "row range 1"));
  assert_int_equal(inlet_parquet_reader_read_rows(r, 0, empty, 1, &b, &err), INLET_EINVAL);
  assert_int_equal(inlet_parquet_reader_read_rows(r, 0, past, 1, &b, &err), INLET_EINVAL);
  assert_int_equal(inlet_parquet_reader_read_rows(r, 0, negative, 1, &b, &err), INLET_EINVAL);
  assert_int_equal(inlet_parquet_reader_read_rows(r, 1, past, 1, &b, &err), INLET_EINVAL);
  /* No ranges: no rows, and no error. */
  assert_int_equal(inlet_parquet_reader_read_rows(r, 0, NULL, 0, &b, &err), 0);
  assert_int_equal(b.num_rows, 0);
  assert_int_equal(b.columns[0].length, 0);
  inlet_batch_reset(&b);
  inlet_parquet_reader_free(r);
}

/* Files parquet-mr wrote with a page index (parquet-testing): the index
 * loads and validates for every column; every int/long value of a page lies
 * within that page's bounds and the null counts agree with the rows; row
 * ranges read back as the full read's rows. */
static void test_page_index__parquet_mr_files_read_by_their_index(void **state) {
  (void)state;
  const char *files[] = {INLET_TESTDATA "/parquet-testing/data/alltypes_tiny_pages.parquet",
                         INLET_TESTDATA "/parquet-testing/data/alltypes_tiny_pages_plain.parquet"};
  for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
    inlet_error err = INLET_ERROR_INIT;
    inlet_parquet_reader *r = NULL;
    assert_int_equal(inlet_parquet_reader_open(&r, files[k], NULL, &err), 0);
    inlet_batch all, part;
    memset(&all, 0, sizeof all);
    memset(&part, 0, sizeof part);
    assert_int_equal(inlet_parquet_reader_read_row_group(r, 0, &all, &err), 0);
    const inlet_schema *s = inlet_parquet_reader_schema(r);
    int64_t n_rows = inlet_parquet_reader_row_group_rows(r, 0);
    int checked_pages = 0;
    for (int f = 0; f < s->n_fields; f++) {
      pq_page_index pi;
      pq_page_index_init(&pi);
      if (pq_reader_page_index(r, 0, f, &pi, &err) != 0) fail_msg("%s", inlet_errmsg(&err));
      assert_true(pi.n_pages > 1);
      /* parquet-mr leaves out the column index of INT96 timestamps only. */
      if (!pi.has_column_index) {
        assert_int_equal(pq_reader_field_physical_type(r, f), PQ_INT96);
        pq_page_index_reset(&pi);
        continue;
      }
      const inlet_type_id id = s->fields[f].type.id;
      int w = id == INLET_TYPE_INT32 ? 4 : id == INLET_TYPE_INT64 ? 8 : 0;
      for (int32_t p = 0; p < pi.n_pages; p++) {
        int64_t nulls = 0;
        for (int64_t q = pi.first_row[p]; q < pi.first_row[p + 1]; q++) {
          if (!inlet_array_is_valid(&all.columns[f], q)) {
            nulls++;
            continue;
          }
          if (!w || pi.null_pages[p]) continue;
          int64_t v = w == 4 ? ((const int32_t *)all.columns[f].values)[q]
                             : ((const int64_t *)all.columns[f].values)[q];
          int64_t lo = 0, hi = 0;
          int32_t l32, h32;
          assert_int_equal(pi.min[p].len, (uint32_t)w);
          if (w == 4) {
            memcpy(&l32, pi.min[p].data, 4);
            memcpy(&h32, pi.max[p].data, 4);
            lo = l32;
            hi = h32;
          } else {
            memcpy(&lo, pi.min[p].data, 8);
            memcpy(&hi, pi.max[p].data, 8);
          }
          assert_true(v >= lo && v <= hi);
        }
        if (pi.has_null_counts) assert_int_equal(pi.null_counts[p], nulls);
        checked_pages++;
      }
      pq_page_index_reset(&pi);
    }
    assert_true(checked_pages > 100);
    for (int trial = 0; trial < 20; trial++) {
      int64_t ranges[8], pos = 0;
      int n = 0;
      for (; n < 4 && pos < n_rows; n++) {
        int64_t a = pos + (int64_t)(rnd() % 900), b = a + 1 + (int64_t)(rnd() % 700);
        if (a >= n_rows) break;
        ranges[2 * n] = a;
        ranges[2 * n + 1] = b < n_rows ? b : n_rows;
        pos = ranges[2 * n + 1] + 1;
      }
      if (n == 0) continue;
      assert_int_equal(inlet_parquet_reader_read_rows(r, 0, ranges, n, &part, &err), 0);
      int64_t out = 0;
      for (int i = 0; i < n; i++)
        for (int64_t q = ranges[2 * i]; q < ranges[2 * i + 1]; q++, out++)
          for (int c = 0; c < s->n_fields; c++)
            same_value(&s->fields[c], &all.columns[c], q, &part.columns[c], out);
      assert_int_equal(part.num_rows, out);
    }
    inlet_batch_reset(&all);
    inlet_batch_reset(&part);
    inlet_parquet_reader_free(r);
  }
}

/* An OffsetIndex with @p n pages at the given first rows and offsets. */
static void offset_index(inlet_buf *out, int n, const int64_t *first, const int64_t *off,
                         int32_t size) {
  inlet_thrift_writer w;
  inlet_thrift_writer_init(&w, out);
  inlet_thrift_write_struct_begin(&w);
  inlet_thrift_write_field(&w, 1, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(&w, INLET_THRIFT_STRUCT, (uint32_t)n);
  for (int i = 0; i < n; i++) {
    inlet_thrift_write_struct_begin(&w);
    inlet_thrift_write_field_i64(&w, 1, off[i]);
    inlet_thrift_write_field_i32(&w, 2, size);
    inlet_thrift_write_field_i64(&w, 3, first[i]);
    inlet_thrift_write_struct_end(&w);
  }
  inlet_thrift_write_struct_end(&w);
}

static void test_page_index__malformed_indexes_fail_cleanly(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  pq_page_index pi;
  pq_page_index_init(&pi);
  inlet_buf b;
  inlet_buf_init(&b);
  const int64_t good_first[] = {0, 10, 20}, good_off[] = {100, 200, 300};
  offset_index(&b, 3, good_first, good_off, 100);
  assert_int_equal(pq_page_index_parse(&pi, b.data, b.len, NULL, 0, 30, 100, 400, "f", &err), 0);
  assert_int_equal(pi.n_pages, 3);
  assert_int_equal(pi.first_row[3], 30);
  /* Every truncation fails as corrupt (or parses a prefix-free error). */
  for (size_t cut = 0; cut < b.len; cut++) {
    int rc = pq_page_index_parse(&pi, b.data, cut, NULL, 0, 30, 100, 400, "f", &err);
    assert_int_equal(rc, INLET_ECORRUPT);
    assert_non_null(strstr(inlet_errmsg(&err), "f: corrupt offset index"));
  }
  /* Rows that do not rise, a first page not at row 0, rows past the row
   * group, pages outside the chunk. */
  const int64_t flat[] = {0, 10, 10}, late[] = {5, 10, 20}, far[] = {0, 10, 40};
  const int64_t outside[] = {100, 200, 390};
  const int64_t *firsts[] = {flat, late, far, good_first};
  const int64_t *offs[] = {good_off, good_off, good_off, outside};
  for (int k = 0; k < 4; k++) {
    inlet_buf_clear(&b);
    offset_index(&b, 3, firsts[k], offs[k], 100);
    assert_int_equal(pq_page_index_parse(&pi, b.data, b.len, NULL, 0, 30, 100, 400, "f", &err),
                     INLET_ECORRUPT);
  }
  /* A column index whose lists disagree with the page count. */
  inlet_buf_clear(&b);
  offset_index(&b, 3, good_first, good_off, 100);
  inlet_buf ci;
  inlet_buf_init(&ci);
  inlet_thrift_writer w;
  inlet_thrift_writer_init(&w, &ci);
  inlet_thrift_write_struct_begin(&w);
  inlet_thrift_write_field(&w, 1, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(&w, INLET_THRIFT_BOOL, 2);
  inlet_thrift_write_bool(&w, false);
  inlet_thrift_write_bool(&w, true);
  inlet_thrift_write_struct_end(&w);
  assert_int_equal(
      pq_page_index_parse(&pi, b.data, b.len, ci.data, ci.len, 30, 100, 400, "f", &err),
      INLET_ECORRUPT);
  assert_non_null(strstr(inlet_errmsg(&err), "column index"));
  /* Random bytes never crash. */
  uint8_t junk[64];
  for (int t = 0; t < 2000; t++) {
    size_t n = rnd() % sizeof junk;
    for (size_t i = 0; i < n; i++)
      junk[i] = (uint8_t)rnd();
    int rc = pq_page_index_parse(&pi, junk, n, junk, n, 1000, 4, 1 << 20, "f", &err);
    assert_true(rc == 0 || rc == INLET_ECORRUPT);
  }
  pq_page_index_reset(&pi);
  inlet_buf_reset(&b);
  inlet_buf_reset(&ci);
}

/* Rows of each page of field @p f (row group 0), into @p rows; returns the page count. */
static int page_rows_of(const char *path, int f, int64_t *out, int max) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  assert_int_equal(inlet_parquet_reader_open(&r, path, NULL, &err), 0);
  pq_page_index pi;
  pq_page_index_init(&pi);
  assert_int_equal(pq_reader_page_index(r, 0, f, &pi, &err), 0);
  int n = pi.n_pages;
  assert_true(n <= max);
  for (int p = 0; p < n; p++)
    out[p] = pi.first_row[p + 1] - pi.first_row[p];
  pq_page_index_reset(&pi);
  inlet_parquet_reader_free(r);
  return n;
}

/* Under the default row limit (20,000), a dictionary page whose last 20,000
 * rows brought no new value runs on to the byte limit; pages of a column
 * that keeps bringing new values, and PLAIN pages, end at 20,000 rows; and
 * a limit the caller sets is kept exactly. */
static void test_page_index__default_limit_runs_on_only_where_values_repeat(void **state) {
  (void)state;
  enum { ROWS = 122880, LIMIT = 20000 };
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema sch;
  assert_int_equal(inlet_schema_parse(&sch,
                                      "cyc string not null, sorted long not null, "
                                      "uniq long not null",
                                      &err),
                   0);
  inlet_batch b;
  assert_int_equal(inlet_batch_init(&b, &sch, &err), 0);
  for (int64_t r = 0; r < ROWS; r++) {
    char v[16];
    int n = snprintf(v, sizeof v, "user-%03d", (int)(r * 7 % 1000)); /* all 1,000 in page one */
    assert_int_equal(inlet_array_append_bytes(&b.columns[0], &sch.fields[0], v, (size_t)n, &err),
                     0);
    assert_int_equal(inlet_array_append_int(&b.columns[1], &sch.fields[1], r / 400, &err), 0);
    assert_int_equal(inlet_array_append_int(&b.columns[2], &sch.fields[2], r * 977, &err), 0);
  }
  b.num_rows = ROWS;
  for (int strict = 0; strict < 2; strict++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/runs%d.parquet", g_dir, strict);
    inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
    o.sync_on_close = false;
    if (strict) o.page_max_rows = LIMIT;
    inlet_parquet_writer *w = NULL;
    assert_int_equal(inlet_parquet_writer_open(&w, path, &sch, &o, &err), 0);
    assert_int_equal(inlet_parquet_writer_write(w, &b, &err), 0);
    assert_int_equal(inlet_parquet_writer_close(w, &err), 0);
    inlet_parquet_writer_free(w);
    int64_t pages[64];
    int want_limited = (ROWS + LIMIT - 1) / LIMIT;
    /* The cycling column: the first page meets every value, so it ends at
     * the limit; the rest only repeats them. */
    int n = page_rows_of(path, 0, pages, 64);
    if (strict) {
      assert_int_equal(n, want_limited);
    } else {
      assert_int_equal(n, 2);
      assert_int_equal(pages[0], LIMIT);
      assert_int_equal(pages[1], ROWS - LIMIT);
    }
    /* Sorted (new values all along) and unique (PLAIN) columns: the limit. */
    for (int f = 1; f < 3; f++) {
      n = page_rows_of(path, f, pages, 64);
      assert_int_equal(n, want_limited);
      for (int p = 0; p + 1 < n; p++)
        assert_int_equal(pages[p], LIMIT);
    }
  }
  inlet_batch_reset(&b);
  inlet_schema_reset(&sch);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_page_index__bounds_counts_and_locations_match_the_rows,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_page_index__option_off_writes_none, setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_page_index__read_rows_equals_the_selected_rows_of_a_full_read, setup, teardown),
      cmocka_unit_test_setup_teardown(test_page_index__bad_ranges_are_refused, setup, teardown),
      cmocka_unit_test(test_page_index__malformed_indexes_fail_cleanly),
      cmocka_unit_test(test_page_index__parquet_mr_files_read_by_their_index),
      cmocka_unit_test_setup_teardown(
          test_page_index__default_limit_runs_on_only_where_values_repeat, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
