/*
 * Unit tests for pages copied from one Parquet file into another
 * (src/parquet/raw_pages.c, pq_writer_write_pages, column_writer.c
 * copy_pages): a file read row group by row group with its pages captured
 * and written through pq_writer_write_pages reads back to the same rows;
 * the pages that qualify were copied (counted against the input's own page
 * index), each with the page index entry of the input page it came from,
 * and the column chunks' statistics are those of the same rows written
 * without copying. Pages that do not fit the writer (another codec, an
 * encoding the writer would not write, a row group limit) are encoded as
 * before.
 */
#include <stdio.h>

#include "testutil.h"

#include "inlet/batch.h"
#include "inlet/parquet.h"
#include "parquet/page_index.h"
#include "parquet/pq_reader.h"
#include "parquet/pq_writer.h"
#include "parquet/reader_int.h"
#include "util/util.h"

#define SCHEMA                                                                                     \
  "id long not null, x double, name string, tag string, k int, ok boolean, day date, "             \
  "ts timestamp"
#define BATCH_ROWS 2000
#define N_BATCHES 4

static char *g_dir;
static int64_t g_hinted; /* values the last rewrite() put into a dictionary by hint */

static int setup(void **state) {
  (void)state;
  const char *d = tu_mkdtemp("raw_pages");
  g_dir = d ? strdup(d) : NULL;
  return g_dir ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(g_dir);
  free(g_dir);
  return 0;
}

static char *path_of(const char *name) {
  static char p[4096];
  snprintf(p, sizeof p, "%s/%s", g_dir, name);
  return p;
}

/* Batch @p seq of the input: ascending ids and times, doubles and tags
 * that never repeat (PLAIN pages), names from a few values (a dictionary),
 * nulls here and there in the optional columns. */
static void make_batch(inlet_batch *b, int seq) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_schema s;
  inlet_schema_init(&s);
  assert_int_equal(inlet_schema_parse(&s, SCHEMA, &err), 0);
  assert_int_equal(inlet_batch_init(b, &s, &err), 0);
  inlet_schema_reset(&s);
  const inlet_field *f = b->schema.fields;
  uint32_t r = (uint32_t)seq * 2654435761u + 7;
  char text[64];
  for (int64_t i = 0; i < BATCH_ROWS; i++) {
    int64_t row = (int64_t)seq * BATCH_ROWS + i;
    r = r * 1103515245u + 12345u;
    assert_int_equal(inlet_array_append_int(&b->columns[0], &f[0], row * 3 + 1, NULL), 0);
    if (r % 13 == 0)
      assert_int_equal(inlet_array_append_null(&b->columns[1], &f[1], NULL), 0);
    else
      assert_int_equal(inlet_array_append_double(&b->columns[1], (double)(r >> 4) / 7.0, NULL), 0);
    int n = snprintf(text, sizeof text, "name-%u", (r >> 9) % 5);
    if (r % 19 == 0)
      assert_int_equal(inlet_array_append_null(&b->columns[2], &f[2], NULL), 0);
    else
      assert_int_equal(inlet_array_append_bytes(&b->columns[2], &f[2], text, (size_t)n, NULL), 0);
    if (r % 17 == 0) {
      assert_int_equal(inlet_array_append_null(&b->columns[3], &f[3], NULL), 0);
    } else {
      n = snprintf(text, sizeof text, "tag-%lld-%u", (long long)row, r);
      assert_int_equal(inlet_array_append_bytes(&b->columns[3], &f[3], text, (size_t)n, NULL), 0);
    }
    assert_int_equal(inlet_array_append_int(&b->columns[4], &f[4], (int32_t)r, NULL), 0);
    if (r % 7 == 0)
      assert_int_equal(inlet_array_append_null(&b->columns[5], &f[5], NULL), 0);
    else
      assert_int_equal(inlet_array_append_bool(&b->columns[5], (r >> 3) & 1, NULL), 0);
    assert_int_equal(inlet_array_append_int(&b->columns[6], &f[6], 19000 + row % 300, NULL), 0);
    assert_int_equal(inlet_array_append_int(&b->columns[7], &f[7],
                                            1700000000000000 + row * 1000 + r % 999, NULL),
                     0);
  }
  b->num_rows = BATCH_ROWS;
}

static inlet_parquet_writer_options options(inlet_compression codec, inlet_parquet_encodings enc) {
  inlet_parquet_writer_options o = INLET_PARQUET_WRITER_OPTIONS_INIT;
  o.compression = codec;
  o.encodings = enc;
  o.page_max_rows = 300; /* several pages per chunk, the last one short */
  o.sync_on_close = false;
  return o;
}

static inlet_parquet_writer *open_writer(const char *path, const inlet_schema *s,
                                         const inlet_parquet_writer_options *o) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_writer *w = NULL;
  int rc = inlet_parquet_writer_open(&w, path, s, o, &err);
  if (rc) fail_msg("open %s: %s", path, inlet_errmsg(&err));
  return w;
}

static void close_writer(inlet_parquet_writer *w) {
  inlet_error err = INLET_ERROR_INIT;
  int rc = inlet_parquet_writer_close(w, &err);
  if (rc) fail_msg("close: %s", inlet_errmsg(&err));
  inlet_parquet_writer_free(w);
}

/* The input: one row group per batch. */
static void write_input(const char *path, inlet_parquet_writer_options o) {
  o.row_group_max_rows = BATCH_ROWS;
  inlet_batch b;
  make_batch(&b, 0);
  inlet_parquet_writer *w = open_writer(path, &b.schema, &o);
  for (int k = 0; k < N_BATCHES; k++) {
    inlet_error err = INLET_ERROR_INIT;
    if (k) {
      inlet_batch_reset(&b);
      make_batch(&b, k);
    }
    assert_int_equal(inlet_parquet_writer_write(w, &b, &err), 0);
  }
  inlet_batch_reset(&b);
  close_writer(w);
}

static inlet_parquet_reader *open_reader(const char *path) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = NULL;
  int rc = inlet_parquet_reader_open(&r, path, NULL, &err);
  if (rc) fail_msg("read %s: %s", path, inlet_errmsg(&err));
  return r;
}

/* Copies @p in to @p out through captured pages (row groups of up to
 * @p rg_rows rows); returns the pages the writer copied. With @p plain,
 * the same rows are written to @p plain without copying, same options. */
static int64_t rewrite(const char *in, const char *out, const char *plain,
                       inlet_parquet_writer_options o, int64_t rg_rows) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = open_reader(in);
  const inlet_schema *s = inlet_parquet_reader_schema(r);
  o.row_group_max_rows = rg_rows;
  inlet_parquet_writer *w = open_writer(out, s, &o);
  inlet_parquet_writer *pw = plain ? open_writer(plain, s, &o) : NULL;
  pq_raw_chunk *raw = calloc((size_t)s->n_fields, sizeof *raw);
  assert_non_null(raw);
  pq_reader_capture_pages(r, raw);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(r); g++) {
    assert_int_equal(inlet_parquet_reader_read_row_group(r, g, &b, &err), 0);
    int rc = pq_writer_write_pages(w, &b, raw, &err);
    if (rc) fail_msg("write_pages: %s", inlet_errmsg(&err));
    if (pw) assert_int_equal(inlet_parquet_writer_write(pw, &b, &err), 0);
  }
  int64_t copied = pq_writer_pages_copied(w);
  g_hinted = pq_writer_values_hinted(w);
  inlet_batch_reset(&b);
  pq_reader_capture_pages(r, NULL);
  for (int32_t i = 0; i < s->n_fields; i++)
    pq_raw_chunk_reset(&raw[i]);
  free(raw);
  close_writer(w);
  if (pw) close_writer(pw);
  inlet_parquet_reader_free(r);
  return copied;
}

static void assert_arrays_equal(const inlet_field *f, const inlet_array *a, int64_t ra,
                                const inlet_array *b, int64_t rb, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    bool va = !a->validity || inlet_bit_get(a->validity, ra + i);
    bool vb = !b->validity || inlet_bit_get(b->validity, rb + i);
    if (va != vb) fail_msg("column %s row %lld: null differs", f->name, (long long)(ra + i));
    if (!va) continue;
    switch (f->type.id) {
    case INLET_TYPE_STRING: {
      int32_t la = a->offsets[ra + i + 1] - a->offsets[ra + i];
      int32_t lb = b->offsets[rb + i + 1] - b->offsets[rb + i];
      assert_int_equal(la, lb);
      assert_memory_equal(a->values + a->offsets[ra + i], b->values + b->offsets[rb + i],
                          (size_t)la);
      break;
    }
    case INLET_TYPE_BOOL:
      assert_int_equal(inlet_bit_get(a->values, ra + i), inlet_bit_get(b->values, rb + i));
      break;
    case INLET_TYPE_INT32:
    case INLET_TYPE_DATE:
      assert_memory_equal(a->values + (ra + i) * 4, b->values + (rb + i) * 4, 4);
      break;
    default: assert_memory_equal(a->values + (ra + i) * 8, b->values + (rb + i) * 8, 8); break;
    }
  }
}

/* Every row of @p a in order equals the rows of @p b. */
static void assert_same_rows(const char *a, const char *b) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *ra = open_reader(a), *rb = open_reader(b);
  assert_int_equal(inlet_parquet_reader_num_rows(ra), inlet_parquet_reader_num_rows(rb));
  inlet_batch x, y;
  memset(&x, 0, sizeof x);
  memset(&y, 0, sizeof y);
  int32_t gy = 0;
  int64_t at_y = 0;
  for (int32_t gx = 0; gx < inlet_parquet_reader_num_row_groups(ra); gx++) {
    assert_int_equal(inlet_parquet_reader_read_row_group(ra, gx, &x, &err), 0);
    for (int64_t done = 0; done < x.num_rows;) {
      if (at_y == y.num_rows) {
        assert_int_equal(inlet_parquet_reader_read_row_group(rb, gy++, &y, &err), 0);
        at_y = 0;
      }
      int64_t n = x.num_rows - done < y.num_rows - at_y ? x.num_rows - done : y.num_rows - at_y;
      for (int32_t c = 0; c < x.schema.n_fields; c++)
        assert_arrays_equal(&x.schema.fields[c], &x.columns[c], done, &y.columns[c], at_y, n);
      done += n;
      at_y += n;
    }
  }
  inlet_batch_reset(&x);
  inlet_batch_reset(&y);
  inlet_parquet_reader_free(ra);
  inlet_parquet_reader_free(rb);
}

static bool has_dictionary(const inlet_parquet_reader *r, int32_t rg, int32_t leaf) {
  return r->meta.row_groups[rg].columns[leaf].meta_data.has_dictionary_page_offset;
}

static bool has_encoding(const inlet_parquet_reader *r, int32_t rg, int32_t leaf, int32_t enc) {
  const pq_column_meta *m = &r->meta.row_groups[rg].columns[leaf].meta_data;
  for (int32_t i = 0; i < m->n_encodings; i++)
    if (m->encodings[i] == enc) return true;
  return false;
}

static void assert_bytes_equal(const pq_bytes *a, const pq_bytes *b) {
  assert_int_equal(a->len, b->len);
  if (a->len) assert_memory_equal(a->data, b->data, a->len);
}

/* The input pages of the chunks without a dictionary, i.e. what a writer
 * of the input's own options copies. */
static int64_t copyable_pages(const char *in, int32_t *chunks) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_reader *r = open_reader(in);
  int64_t pages = 0;
  *chunks = 0;
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(r); g++)
    for (int32_t c = 0; c < inlet_parquet_reader_schema(r)->n_fields; c++) {
      if (has_dictionary(r, g, c)) continue;
      pq_page_index pi;
      pq_page_index_init(&pi);
      assert_int_equal(pq_reader_page_index(r, g, c, &pi, &err), 0);
      assert_true(pi.n_pages > 0);
      pages += pi.n_pages;
      (*chunks)++;
      pq_page_index_reset(&pi);
    }
  inlet_parquet_reader_free(r);
  return pages;
}

static void test_raw_pages__copied_pages_read_back_with_the_inputs_index_and_stats(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_writer_options o =
      options(INLET_COMPRESSION_SNAPPY, INLET_PARQUET_ENCODINGS_COMPATIBLE);
  char in[4096], out[4096], plain[4096];
  snprintf(in, sizeof in, "%s", path_of("in.parquet"));
  snprintf(out, sizeof out, "%s", path_of("out.parquet"));
  snprintf(plain, sizeof plain, "%s", path_of("plain.parquet"));
  write_input(in, o);
  int32_t chunks = 0;
  int64_t want = copyable_pages(in, &chunks);
  /* Everything but the names (a dictionary) stands alone: 7 columns x 4
   * row groups, 7 pages each (300 rows a page). */
  assert_int_equal(chunks, 7 * N_BATCHES);
  assert_int_equal(want, 7 * 7 * N_BATCHES);
  /* Two input row groups to an output row group. */
  int64_t copied = rewrite(in, out, plain, o, 2 * BATCH_ROWS);
  assert_int_equal(copied, want);
  assert_same_rows(in, out);
  assert_same_rows(plain, out);

  inlet_parquet_reader *ri = open_reader(in), *ro = open_reader(out), *rp = open_reader(plain);
  assert_int_equal(inlet_parquet_reader_num_row_groups(ro), N_BATCHES / 2);
  assert_int_equal(inlet_parquet_reader_num_row_groups(rp), N_BATCHES / 2);
  int32_t nf = inlet_parquet_reader_schema(ri)->n_fields;
  for (int32_t g = 0; g < N_BATCHES / 2; g++) {
    for (int32_t c = 0; c < nf; c++) {
      /* The chunk's statistics are those of the rows encoded afresh. */
      const pq_statistics *so = &ro->meta.row_groups[g].columns[c].meta_data.statistics;
      const pq_statistics *sp = &rp->meta.row_groups[g].columns[c].meta_data.statistics;
      assert_int_equal(so->has_null_count, sp->has_null_count);
      assert_int_equal(so->null_count, sp->null_count);
      assert_int_equal(so->has_min_value, sp->has_min_value);
      assert_int_equal(so->has_max_value, sp->has_max_value);
      assert_bytes_equal(&so->min_value, &sp->min_value);
      assert_bytes_equal(&so->max_value, &sp->max_value);
      if (has_dictionary(ri, 2 * g, c)) {
        assert_true(has_dictionary(ro, g, c));
        continue;
      }
      /* Copied: the input pages of both row groups, one after another,
       * each with its page index entry. */
      assert_false(has_dictionary(ro, g, c));
      pq_page_index po, pa, pb;
      pq_page_index_init(&po);
      pq_page_index_init(&pa);
      pq_page_index_init(&pb);
      assert_int_equal(pq_reader_page_index(ro, g, c, &po, &err), 0);
      assert_int_equal(pq_reader_page_index(ri, 2 * g, c, &pa, &err), 0);
      assert_int_equal(pq_reader_page_index(ri, 2 * g + 1, c, &pb, &err), 0);
      assert_int_equal(po.n_pages, pa.n_pages + pb.n_pages);
      assert_true(po.has_column_index && pa.has_column_index && pb.has_column_index);
      for (int32_t p = 0; p < po.n_pages; p++) {
        const pq_page_index *src = p < pa.n_pages ? &pa : &pb;
        int32_t q = p < pa.n_pages ? p : p - pa.n_pages;
        int64_t base = p < pa.n_pages ? 0 : BATCH_ROWS;
        assert_int_equal(po.first_row[p], src->first_row[q] + base);
        assert_int_equal(po.null_pages[p], src->null_pages[q]);
        assert_bytes_equal(&po.min[p], &src->min[q]);
        assert_bytes_equal(&po.max[p], &src->max[q]);
        if (po.has_null_counts) assert_int_equal(po.null_counts[p], src->null_counts[q]);
      }
      pq_page_index_reset(&po);
      pq_page_index_reset(&pa);
      pq_page_index_reset(&pb);
    }
  }
  inlet_parquet_reader_free(ri);
  inlet_parquet_reader_free(ro);
  inlet_parquet_reader_free(rp);
}

static void test_raw_pages__pages_that_do_not_fit_are_encoded(void **state) {
  (void)state;
  inlet_parquet_writer_options snappy =
      options(INLET_COMPRESSION_SNAPPY, INLET_PARQUET_ENCODINGS_COMPATIBLE);
  char in[4096], out[4096];
  snprintf(in, sizeof in, "%s", path_of("fit-in.parquet"));
  write_input(in, snappy);

  /* Another codec: nothing copied, the same rows. */
  snprintf(out, sizeof out, "%s", path_of("fit-zstd.parquet"));
  inlet_parquet_writer_options zstd =
      options(INLET_COMPRESSION_ZSTD, INLET_PARQUET_ENCODINGS_COMPATIBLE);
  assert_int_equal(rewrite(in, out, NULL, zstd, 0), 0);
  assert_same_rows(in, out);

  /* A row group limit the batch would pass: every column encodes. */
  snprintf(out, sizeof out, "%s", path_of("fit-rows.parquet"));
  assert_int_equal(rewrite(in, out, NULL, snappy, BATCH_ROWS / 2), 0);
  assert_same_rows(in, out);

  /* DELTA_BINARY_PACKED pages (EXTENDED) go to a writer of EXTENDED
   * encodings, not to one of COMPATIBLE ones (which has none). */
  inlet_parquet_writer_options ext =
      options(INLET_COMPRESSION_SNAPPY, INLET_PARQUET_ENCODINGS_EXTENDED);
  char din[4096];
  snprintf(din, sizeof din, "%s", path_of("fit-delta-in.parquet"));
  write_input(din, ext);
  inlet_parquet_reader *r = open_reader(din);
  bool any_delta = false;
  for (int32_t c = 0; c < inlet_parquet_reader_schema(r)->n_fields; c++)
    any_delta |= has_encoding(r, 0, c, PQ_ENC_DELTA_BINARY_PACKED);
  inlet_parquet_reader_free(r);
  assert_true(any_delta);
  int32_t chunks = 0;
  int64_t all = copyable_pages(din, &chunks);

  snprintf(out, sizeof out, "%s", path_of("fit-delta-ext.parquet"));
  assert_int_equal(rewrite(din, out, NULL, ext, 0), all);
  assert_same_rows(din, out);
  r = open_reader(out);
  any_delta = false;
  for (int32_t c = 0; c < inlet_parquet_reader_schema(r)->n_fields; c++)
    any_delta |= has_encoding(r, 0, c, PQ_ENC_DELTA_BINARY_PACKED);
  inlet_parquet_reader_free(r);
  assert_true(any_delta);

  snprintf(out, sizeof out, "%s", path_of("fit-delta-compat.parquet"));
  int64_t copied = rewrite(din, out, NULL, snappy, 0);
  assert_true(copied > 0);
  assert_true(copied < all);
  assert_same_rows(din, out);
  r = open_reader(out);
  for (int32_t g = 0; g < inlet_parquet_reader_num_row_groups(r); g++)
    for (int32_t c = 0; c < inlet_parquet_reader_schema(r)->n_fields; c++)
      assert_false(has_encoding(r, g, c, PQ_ENC_DELTA_BINARY_PACKED));
  inlet_parquet_reader_free(r);
}

/* Row group byte targets from 4 KiB to 16 MiB: a batch that does not fit
 * the rest of a row group at least half full starts the next one, so at
 * some target between one batch and two every batch is a row group of its
 * own with all its pages copied (the rule before encoded every batch after
 * the first); at every target the file reads back to the same rows. */
static void test_raw_pages__a_batch_past_a_half_full_row_group_starts_the_next(void **state) {
  (void)state;
  inlet_parquet_writer_options o =
      options(INLET_COMPRESSION_SNAPPY, INLET_PARQUET_ENCODINGS_COMPATIBLE);
  char in[4096], out[4096];
  snprintf(in, sizeof in, "%s", path_of("half-in.parquet"));
  write_input(in, o);
  int32_t chunks = 0;
  const int64_t all = copyable_pages(in, &chunks);
  assert_true(all > N_BATCHES);
  int one_per_batch = 0, targets = 0;
  for (int64_t target = 4096; target <= ((int64_t)16 << 20); target += target / 4, targets++) {
    char name[64];
    snprintf(name, sizeof name, "half-%d.parquet", targets);
    snprintf(out, sizeof out, "%s", path_of(name));
    o.row_group_bytes = target;
    int64_t copied = rewrite(in, out, NULL, o, 0);
    assert_same_rows(in, out);
    inlet_parquet_reader *r = open_reader(out);
    int32_t n_rg = inlet_parquet_reader_num_row_groups(r);
    inlet_parquet_reader_free(r);
    if (n_rg == N_BATCHES && copied == all) one_per_batch++;
  }
  assert_true(targets > 30);
  assert_true(one_per_batch > 0);
}

static void test_raw_pages__a_dictionary_chunk_is_not_captured(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  char in[4096];
  snprintf(in, sizeof in, "%s", path_of("dict-in.parquet"));
  write_input(in, options(INLET_COMPRESSION_SNAPPY, INLET_PARQUET_ENCODINGS_COMPATIBLE));
  inlet_parquet_reader *r = open_reader(in);
  int32_t nf = inlet_parquet_reader_schema(r)->n_fields;
  pq_raw_chunk *raw = calloc((size_t)nf, sizeof *raw);
  assert_non_null(raw);
  pq_reader_capture_pages(r, raw);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  assert_int_equal(inlet_parquet_reader_read_row_group(r, 1, &b, &err), 0);
  for (int32_t c = 0; c < nf; c++) {
    assert_int_equal(raw[c].valid, !has_dictionary(r, 1, c));
    if (!raw[c].valid) continue;
    assert_int_equal(raw[c].rows, BATCH_ROWS);
    int64_t rows = 0;
    for (int32_t p = 0; p < raw[c].n_pages; p++)
      rows += raw[c].pages[p].num_values;
    assert_int_equal(rows, BATCH_ROWS);
  }
  assert_false(raw[2].valid); /* the names */
  /* A row range read captures nothing. */
  int64_t range[2] = {10, 20};
  assert_int_equal(inlet_parquet_reader_read_rows(r, 2, range, 1, &b, &err), 0);
  for (int32_t c = 0; c < nf; c++)
    assert_false(raw[c].valid);
  inlet_batch_reset(&b);
  pq_raw_chunks_free(raw, nf);
  inlet_parquet_reader_free(r);
}

/* The bytes of column chunk @p leaf of row group @p rg of @p path. */
static char *chunk_bytes(const char *path, int32_t rg, int32_t leaf, size_t *len) {
  inlet_parquet_reader *r = open_reader(path);
  const pq_column_meta *m = &r->meta.row_groups[rg].columns[leaf].meta_data;
  int64_t start = m->has_dictionary_page_offset ? m->dictionary_page_offset : m->data_page_offset;
  int64_t n = m->total_compressed_size;
  inlet_parquet_reader_free(r);
  size_t flen = 0;
  char *all = tu_read_file(path, &flen);
  assert_non_null(all);
  assert_true(start >= 0 && n >= 0 && (size_t)(start + n) <= flen);
  char *out = malloc((size_t)n + 1);
  assert_non_null(out);
  memcpy(out, all + start, (size_t)n);
  free(all);
  *len = (size_t)n;
  return out;
}

static void test_raw_pages__dictionary_indices_build_the_same_dictionary(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  inlet_parquet_writer_options o =
      options(INLET_COMPRESSION_SNAPPY, INLET_PARQUET_ENCODINGS_COMPATIBLE);
  char in[4096], out[4096], plain[4096];
  snprintf(in, sizeof in, "%s", path_of("hint-in.parquet"));
  snprintf(out, sizeof out, "%s", path_of("hint-out.parquet"));
  snprintf(plain, sizeof plain, "%s", path_of("hint-plain.parquet"));
  write_input(in, o);

  /* The names' chunks are dictionary-encoded: their indices are kept, one
   * per non-null value, below the dictionary's size. */
  inlet_parquet_reader *r = open_reader(in);
  int32_t nf = inlet_parquet_reader_schema(r)->n_fields;
  pq_raw_chunk *raw = calloc((size_t)nf, sizeof *raw);
  assert_non_null(raw);
  pq_reader_capture_pages(r, raw);
  inlet_batch b;
  memset(&b, 0, sizeof b);
  int64_t non_null = 0;
  for (int32_t g = 0; g < N_BATCHES; g++) {
    assert_int_equal(inlet_parquet_reader_read_row_group(r, g, &b, &err), 0);
    assert_true(has_dictionary(r, g, 2));
    assert_true(raw[2].dict_valid);
    assert_false(raw[2].valid);
    assert_int_equal(raw[2].dict_n, 5);
    assert_int_equal(raw[2].dict_rows, BATCH_ROWS);
    assert_true(b.columns[2].null_count > 0);
    int64_t n = b.columns[2].length - b.columns[2].null_count;
    assert_int_equal(raw[2].dict_idx.len, (size_t)n * sizeof(uint32_t));
    const uint32_t *idx = (const uint32_t *)(const void *)raw[2].dict_idx.data;
    for (int64_t k = 0; k < n; k++)
      assert_true(idx[k] < raw[2].dict_n);
    non_null += n;
    /* PLAIN chunks keep no indices. */
    assert_false(raw[0].dict_valid);
    assert_false(raw[3].dict_valid);
  }
  inlet_batch_reset(&b);
  pq_raw_chunks_free(raw, nf);
  inlet_parquet_reader_free(r);

  /* Written through the indices: every non-null name, and the chunks are
   * byte for byte those of the same rows encoded by hashing. */
  rewrite(in, out, plain, o, 2 * BATCH_ROWS);
  assert_int_equal(g_hinted, non_null);
  assert_same_rows(in, out);
  for (int32_t g = 0; g < N_BATCHES / 2; g++) {
    size_t la = 0, lb = 0;
    char *a = chunk_bytes(out, g, 2, &la), *p = chunk_bytes(plain, g, 2, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, p, la);
    free(a);
    free(p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_raw_pages__copied_pages_read_back_with_the_inputs_index_and_stats),
      cmocka_unit_test(test_raw_pages__pages_that_do_not_fit_are_encoded),
      cmocka_unit_test(test_raw_pages__a_dictionary_chunk_is_not_captured),
      cmocka_unit_test(test_raw_pages__a_batch_past_a_half_full_row_group_starts_the_next),
      cmocka_unit_test(test_raw_pages__dictionary_indices_build_the_same_dictionary),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
