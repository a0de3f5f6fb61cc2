/*
 * The Parquet page index (page_index.h): building and serializing a column
 * chunk's ColumnIndex and OffsetIndex (parquet.thrift), and parsing and
 * validating them for the reader.
 *
 * Spec points that shape the code: PageLocation.compressed_page_size
 * counts the page header; first_row_index rises strictly; null pages have
 * empty min/max entries; null_counts should always be written; a column
 * index is omitted when a page's bounds cannot be expressed (all-NaN
 * float pages under TYPE_ORDER, unknown sort order, an untruncatable
 * byte-array max). boundary_order is written UNORDERED (always true; the
 * builder holds only encoded bytes, not a typed order), and the reader
 * does not depend on it.
 */
#include "parquet/page_index.h"

#include <stdio.h>

#include "parquet/reader_int.h"
#include "parquet/thrift.h"
#include "util/util.h"

/* ---- building ------------------------------------------------------------- */

void pq_page_index_builder_init(pq_page_index_builder *b) {
  memset(b, 0, sizeof *b);
  inlet_buf_init(&b->bytes);
  pq_file_metadata_init(&b->scratch);
  b->column_index_ok = true;
}

void pq_page_index_builder_reset(pq_page_index_builder *b) {
  if (!b) return;
  inlet_free(b->pages);
  inlet_buf_reset(&b->bytes);
  pq_file_metadata_reset(&b->scratch);
  memset(b, 0, sizeof *b);
}

void pq_page_index_builder_clear(pq_page_index_builder *b) {
  b->n_pages = 0;
  inlet_buf_clear(&b->bytes);
  pq_file_metadata_reset(&b->scratch);
  b->column_index_ok = true;
}

int pq_page_index_builder_add(pq_page_index_builder *b, int64_t first_row, int64_t span,
                              const pq_stats *page, int32_t truncate, bool utf8, inlet_error *err) {
  if (b->n_pages == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 16;
    pq_page_rec *p = inlet_realloc(b->pages, cap * sizeof *p);
    if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory for the page index");
    b->pages = p;
    b->cap = cap;
  }
  pq_page_rec *rec = &b->pages[b->n_pages++];
  memset(rec, 0, sizeof *rec);
  rec->first_row = first_row;
  rec->span = span;
  rec->null_count = page->null_count;
  rec->null_page = page->num_values == page->null_count;
  if (rec->null_page || !b->column_index_ok) return 0;
  if (page->kind == PQ_STATS_NONE || !page->has_minmax) {
    /* Values without bounds: unknown order, or only NaNs. */
    b->column_index_ok = false;
    return 0;
  }
  pq_statistics st;
  TRY(pq_stats_to_thrift(page, truncate, utf8, &b->scratch, &st, err));
  if (!st.has_min_value || !st.has_max_value) {
    b->column_index_ok = false;
    return 0;
  }
  rec->min_off = b->bytes.len;
  rec->min_len = st.min_value.len;
  inlet_buf_append(&b->bytes, st.min_value.data, st.min_value.len);
  rec->max_off = b->bytes.len;
  rec->max_len = st.max_value.len;
  inlet_buf_append(&b->bytes, st.max_value.data, st.max_value.len);
  if (inlet_buf_status(&b->bytes) < 0)
    return inlet_fail(err, INLET_ENOMEM, "out of memory for the page index");
  return 0;
}

int pq_page_index_builder_serialize(const pq_page_index_builder *b, int64_t first_page,
                                    inlet_buf *column_index, bool *has_column_index,
                                    inlet_buf *offset_index, inlet_error *err) {
  inlet_thrift_writer w;
  *has_column_index = false;
  if (b->column_index_ok && b->n_pages > 0) {
    inlet_thrift_writer_init(&w, column_index);
    inlet_thrift_write_struct_begin(&w);
    inlet_thrift_write_field(&w, 1, INLET_THRIFT_LIST);
    inlet_thrift_write_list_begin(&w, INLET_THRIFT_BOOL, (uint32_t)b->n_pages);
    for (size_t i = 0; i < b->n_pages; i++)
      inlet_thrift_write_bool(&w, b->pages[i].null_page);
    for (int16_t field = 2; field <= 3; field++) {
      inlet_thrift_write_field(&w, field, INLET_THRIFT_LIST);
      inlet_thrift_write_list_begin(&w, INLET_THRIFT_BINARY, (uint32_t)b->n_pages);
      for (size_t i = 0; i < b->n_pages; i++) {
        const pq_page_rec *p = &b->pages[i];
        size_t off = field == 2 ? p->min_off : p->max_off;
        uint32_t len = field == 2 ? p->min_len : p->max_len;
        inlet_thrift_write_binary(&w, len ? b->bytes.data + off : (const uint8_t *)"", len);
      }
    }
    inlet_thrift_write_field_i32(&w, 4, 0 /* UNORDERED */);
    inlet_thrift_write_field(&w, 5, INLET_THRIFT_LIST);
    inlet_thrift_write_list_begin(&w, INLET_THRIFT_I64, (uint32_t)b->n_pages);
    for (size_t i = 0; i < b->n_pages; i++)
      inlet_thrift_write_i64(&w, b->pages[i].null_count);
    inlet_thrift_write_struct_end(&w);
    *has_column_index = true;
  }
  inlet_thrift_writer_init(&w, offset_index);
  inlet_thrift_write_struct_begin(&w);
  inlet_thrift_write_field(&w, 1, INLET_THRIFT_LIST);
  inlet_thrift_write_list_begin(&w, INLET_THRIFT_STRUCT, (uint32_t)b->n_pages);
  int64_t off = first_page;
  for (size_t i = 0; i < b->n_pages; i++) {
    const pq_page_rec *p = &b->pages[i];
    if (p->span > INT32_MAX)
      return inlet_fail(err, INLET_ELIMIT, "page of %lld bytes exceeds 2 GiB", (long long)p->span);
    inlet_thrift_write_struct_begin(&w);
    inlet_thrift_write_field_i64(&w, 1, off);
    inlet_thrift_write_field_i32(&w, 2, (int32_t)p->span);
    inlet_thrift_write_field_i64(&w, 3, p->first_row);
    inlet_thrift_write_struct_end(&w);
    off += p->span;
  }
  inlet_thrift_write_struct_end(&w);
  if (inlet_buf_status(column_index) < 0 || inlet_buf_status(offset_index) < 0)
    return inlet_fail(err, INLET_ENOMEM, "out of memory for the page index");
  return 0;
}

/* ---- parsing -------------------------------------------------------------- */

void pq_page_index_init(pq_page_index *pi) {
  memset(pi, 0, sizeof *pi);
}

void pq_page_index_reset(pq_page_index *pi) {
  if (!pi) return;
  inlet_free(pi->first_row);
  inlet_free(pi->offset);
  inlet_free(pi->size);
  inlet_free(pi->null_pages);
  inlet_free(pi->min);
  inlet_free(pi->max);
  inlet_free(pi->null_counts);
  inlet_free(pi->raw);
  memset(pi, 0, sizeof *pi);
}

#define PI_TRY(expr)                                                                               \
  do {                                                                                             \
    int pi_rc_ = (expr);                                                                           \
    if (pi_rc_ < 0) goto bad;                                                                      \
  } while (0)

static int bad_index(const char *what, const char *which, const char *why, inlet_error *err) {
  return inlet_fail(err, INLET_ECORRUPT, "%s: corrupt %s: %s", what, which, why);
}

/* A list header whose element count is bounded by the bytes left (every
 * element takes at least one byte). */
static int list_of(inlet_thrift_reader *r, uint8_t want, uint32_t *n) {
  uint8_t et;
  TRY(inlet_thrift_read_list_begin(r, &et, n));
  if (et != want && !(want == INLET_THRIFT_BOOL && et == INLET_THRIFT_BOOL_FALSE)) return -1;
  if (*n > inlet_thrift_reader_remaining(r)) return -1;
  return 0;
}

static int parse_offset_index(pq_page_index *pi, const uint8_t *p, size_t len, int64_t num_rows,
                              int64_t data_start, int64_t data_end, const char *what,
                              inlet_error *err) {
  inlet_thrift_reader r;
  inlet_thrift_reader_init(&r, p, len, NULL);
  bool seen = false;
  PI_TRY(inlet_thrift_read_struct_begin(&r));
  for (;;) {
    int16_t id;
    uint8_t t;
    PI_TRY(inlet_thrift_read_field(&r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    if (id != 1 || t != INLET_THRIFT_LIST || seen) {
      PI_TRY(inlet_thrift_skip(&r, t));
      continue;
    }
    seen = true;
    uint32_t n;
    PI_TRY(list_of(&r, INLET_THRIFT_STRUCT, &n));
    if (n == 0 || n > (uint32_t)INT32_MAX - 1 || (int64_t)n > num_rows)
      return bad_index(what, "offset index", "page count does not fit the row group", err);
    pi->first_row = inlet_calloc((size_t)n + 1, sizeof *pi->first_row);
    pi->offset = inlet_calloc(n, sizeof *pi->offset);
    pi->size = inlet_calloc(n, sizeof *pi->size);
    if (!pi->first_row || !pi->offset || !pi->size)
      return inlet_fail(err, INLET_ENOMEM, "out of memory for the page index");
    pi->n_pages = (int32_t)n;
    for (uint32_t i = 0; i < n; i++) {
      bool has[3] = {false, false, false};
      PI_TRY(inlet_thrift_read_struct_begin(&r));
      for (;;) {
        int16_t fid;
        uint8_t ft;
        PI_TRY(inlet_thrift_read_field(&r, &fid, &ft));
        if (ft == INLET_THRIFT_STOP) break;
        if (fid == 1 && ft == INLET_THRIFT_I64) {
          PI_TRY(inlet_thrift_read_i64(&r, &pi->offset[i]));
          has[0] = true;
        } else if (fid == 2 && ft == INLET_THRIFT_I32) {
          PI_TRY(inlet_thrift_read_i32(&r, &pi->size[i]));
          has[1] = true;
        } else if (fid == 3 && ft == INLET_THRIFT_I64) {
          PI_TRY(inlet_thrift_read_i64(&r, &pi->first_row[i]));
          has[2] = true;
        } else {
          PI_TRY(inlet_thrift_skip(&r, ft));
        }
      }
      PI_TRY(inlet_thrift_read_struct_end(&r));
      if (!has[0] || !has[1] || !has[2])
        return bad_index(what, "offset index", "page location lacks a required field", err);
      int64_t end;
      if (pi->offset[i] < data_start || pi->size[i] <= 0 ||
          inlet_add_overflow_i64(pi->offset[i], pi->size[i], &end) || end > data_end) {
        char why[160];
        snprintf(why, sizeof why, "page %u at [%lld, +%d) lies outside the column chunk", i,
                 (long long)pi->offset[i], (int)pi->size[i]);
        return bad_index(what, "offset index", why, err);
      }
      bool ordered = i == 0 ? pi->first_row[0] == 0
                            : pi->first_row[i] > pi->first_row[i - 1] &&
                                  pi->offset[i] >= pi->offset[i - 1] + pi->size[i - 1];
      if (!ordered || pi->first_row[i] >= num_rows) {
        char why[160];
        snprintf(why, sizeof why, "page %u starts at row %lld (row group of %lld rows)", i,
                 (long long)pi->first_row[i], (long long)num_rows);
        return bad_index(what, "offset index", why, err);
      }
    }
    PI_TRY(inlet_thrift_read_list_end(&r));
    pi->first_row[n] = num_rows;
  }
  PI_TRY(inlet_thrift_read_struct_end(&r));
  if (!seen) return bad_index(what, "offset index", "no page locations", err);
  return 0;
bad:
  return bad_index(what, "offset index", "malformed Thrift", err);
}

static int parse_column_index(pq_page_index *pi, const uint8_t *p, size_t len, const char *what,
                              inlet_error *err) {
  pi->raw = inlet_malloc(len ? len : 1);
  if (!pi->raw) return inlet_fail(err, INLET_ENOMEM, "out of memory for the page index");
  memcpy(pi->raw, p, len);
  size_t n = (size_t)pi->n_pages;
  pi->null_pages = inlet_calloc(n, sizeof *pi->null_pages);
  pi->min = inlet_calloc(n, sizeof *pi->min);
  pi->max = inlet_calloc(n, sizeof *pi->max);
  pi->null_counts = inlet_calloc(n, sizeof *pi->null_counts);
  if (!pi->null_pages || !pi->min || !pi->max || !pi->null_counts)
    return inlet_fail(err, INLET_ENOMEM, "out of memory for the page index");
  inlet_thrift_reader r;
  inlet_thrift_reader_init(&r, pi->raw, len, NULL);
  bool seen[6] = {false};
  PI_TRY(inlet_thrift_read_struct_begin(&r));
  for (;;) {
    int16_t id;
    uint8_t t;
    PI_TRY(inlet_thrift_read_field(&r, &id, &t));
    if (t == INLET_THRIFT_STOP) break;
    uint32_t k;
    if (id >= 1 && id <= 5 && id != 4 && t == INLET_THRIFT_LIST && !seen[id]) {
      uint8_t want = id == 1 ? INLET_THRIFT_BOOL : id == 5 ? INLET_THRIFT_I64 : INLET_THRIFT_BINARY;
      PI_TRY(list_of(&r, want, &k));
      if (k != n) {
        char why[128];
        snprintf(why, sizeof why, "list %d has %u entries for %zu pages", id, k, n);
        return bad_index(what, "column index", why, err);
      }
      for (size_t i = 0; i < n; i++) {
        if (id == 1) {
          PI_TRY(inlet_thrift_read_bool(&r, &pi->null_pages[i]));
        } else if (id == 5) {
          PI_TRY(inlet_thrift_read_i64(&r, &pi->null_counts[i]));
          if (pi->null_counts[i] < 0)
            return bad_index(what, "column index", "negative null count", err);
        } else {
          pq_bytes *b = id == 2 ? &pi->min[i] : &pi->max[i];
          PI_TRY(inlet_thrift_read_binary(&r, &b->data, &b->len));
        }
      }
      PI_TRY(inlet_thrift_read_list_end(&r));
      seen[id] = true;
    } else if (id == 4 && t == INLET_THRIFT_I32) {
      int32_t order;
      PI_TRY(inlet_thrift_read_i32(&r, &order));
      seen[4] = true;
    } else {
      PI_TRY(inlet_thrift_skip(&r, t));
    }
  }
  PI_TRY(inlet_thrift_read_struct_end(&r));
  if (!seen[1] || !seen[2] || !seen[3])
    return bad_index(what, "column index", "null_pages, min_values or max_values missing", err);
  pi->has_null_counts = seen[5];
  pi->has_column_index = true;
  return 0;
bad:
  return bad_index(what, "column index", "malformed Thrift", err);
}

int pq_page_index_parse(pq_page_index *pi, const uint8_t *oi, size_t oi_len, const uint8_t *ci,
                        size_t ci_len, int64_t num_rows, int64_t data_start, int64_t data_end,
                        const char *what, inlet_error *err) {
  pq_page_index_reset(pi);
  int rc = parse_offset_index(pi, oi, oi_len, num_rows, data_start, data_end, what, err);
  if (rc == 0 && ci) rc = parse_column_index(pi, ci, ci_len, what, err);
  if (rc < 0) pq_page_index_reset(pi);
  return rc;
}

/* ---- the reader's face ------------------------------------------------------ */

int32_t pq_reader_field_physical_type(const inlet_parquet_reader *r, int32_t field) {
  if (r->nested_mode || !r->field_column || field < 0 || field >= r->sd.schema.n_fields) return -1;
  return r->sd.columns[r->field_column[field]].physical_type;
}

/* Reads [off, off + len) of the file into a fresh buffer, after checking
 * that it lies in the data area. */
static int read_index_bytes(const inlet_parquet_reader *r, int64_t off, int32_t len, uint8_t **out,
                            const char *what, const char *which, inlet_error *err) {
  int64_t end;
  if (off < 4 || len <= 0 || len > PQ_PAGE_INDEX_MAX_BYTES ||
      inlet_add_overflow_i64(off, len, &end) || end > r->data_end) {
    char why[160];
    snprintf(why, sizeof why, "location [%lld, +%d) lies outside the data area [4, %lld)",
             (long long)off, (int)len, (long long)r->data_end);
    return bad_index(what, which, why, err);
  }
  uint8_t *p = inlet_malloc((size_t)len);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory for the page index");
  int rc = inlet_rfile_read_at(r->file, off, p, (size_t)len, err);
  if (rc < 0) {
    inlet_free(p);
    return inlet_error_prefix(err, "%s: reading the %s", what, which);
  }
  *out = p;
  return 0;
}

/* The page index of leaf column @p leaf, the column index only when
 * @p with_column_index. */
static int leaf_page_index(const inlet_parquet_reader *r, int32_t rg, int32_t leaf,
                           bool with_column_index, pq_page_index *pi, inlet_error *err) {
  pq_page_index_reset(pi);
  if (rg < 0 || rg >= r->meta.n_row_groups) return 0;
  const pq_row_group *g = &r->meta.row_groups[rg];
  if (leaf < 0 || leaf >= g->n_columns) return 0;
  const pq_column_chunk *cc = &g->columns[leaf];
  if (!cc->has_offset_index || g->num_rows <= 0) return 0;
  char what[512];
  snprintf(what, sizeof what, "%s column \"%s\" row group %d", r->name, r->sd.columns[leaf].path,
           rg);
  uint8_t *oi = NULL, *ci = NULL;
  int rc = read_index_bytes(r, cc->offset_index_offset, cc->offset_index_length, &oi, what,
                            "offset index", err);
  if (rc == 0 && with_column_index && cc->has_column_index)
    rc = read_index_bytes(r, cc->column_index_offset, cc->column_index_length, &ci, what,
                          "column index", err);
  if (rc == 0) {
    const pq_column_meta *cm = &cc->meta_data;
    int64_t start = cm->data_page_offset;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
        cm->dictionary_page_offset < start)
      start = cm->dictionary_page_offset;
    int64_t end = start + cm->total_compressed_size; /* validated at open */
    rc = pq_page_index_parse(pi, oi, (size_t)cc->offset_index_length, ci,
                             ci ? (size_t)cc->column_index_length : 0, g->num_rows, start, end,
                             what, err);
  }
  inlet_free(oi);
  inlet_free(ci);
  return rc;
}

int pq_reader_page_index(const inlet_parquet_reader *r, int32_t rg, int32_t field,
                         pq_page_index *pi, inlet_error *err) {
  pq_page_index_reset(pi);
  if (r->nested_mode || !r->field_column || field < 0 || field >= r->sd.schema.n_fields) return 0;
  return leaf_page_index(r, rg, r->field_column[field], true, pi, err);
}

int pq_reader_offset_index(const inlet_parquet_reader *r, int32_t rg, int32_t leaf,
                           pq_page_index *pi, inlet_error *err) {
  pq_page_index_reset(pi);
  if (r->nested_mode) return 0;
  return leaf_page_index(r, rg, leaf, false, pi, err);
}
