/*
 * Capturing a column chunk's compressed data pages (raw_pages.h).
 */
#include "parquet/raw_pages.h"

#include <string.h>

#include "util/util.h"

void pq_raw_chunk_reset(pq_raw_chunk *c) {
  if (!c) return;
  inlet_buf_reset(&c->bodies);
  inlet_buf_reset(&c->dict_idx);
  inlet_free(c->pages);
  memset(c, 0, sizeof *c);
}

void pq_raw_chunks_free(pq_raw_chunk *c, int32_t n) {
  if (!c) return;
  for (int32_t i = 0; i < n; i++)
    pq_raw_chunk_reset(&c[i]);
  inlet_free(c);
}

/* The encodings a page may have to be copied: the ones the writer itself
 * writes for the type (column_writer.c flush_page), so that the chunk's
 * encodings and encoding_stats stay what its own counters can say. */
static bool copyable_encoding(pq_type t, int32_t enc) {
  switch (enc) {
  case PQ_ENC_PLAIN: return true;
  case PQ_ENC_DELTA_BINARY_PACKED: return t == PQ_INT32 || t == PQ_INT64;
  case PQ_ENC_BYTE_STREAM_SPLIT: return t == PQ_FLOAT || t == PQ_DOUBLE;
  default: return false;
  }
}

int pq_raw_chunk_capture(pq_raw_chunk *c, const pq_column_desc *desc, const pq_column_meta *cm,
                         const uint8_t *chunk, size_t len, int64_t rows, inlet_error *err) {
  inlet_buf_clear(&c->bodies);
  c->n_pages = 0;
  c->valid = false;
  if (desc->max_rep_level > 0 || desc->physical_type == PQ_INT96) return 0;
  int32_t width = pq_plain_value_width(desc);
  size_t pos = 0;
  int64_t seen = 0;
  while (pos < len) {
    pq_page_header h;
    size_t hlen = 0;
    inlet_error ignore = INLET_ERROR_INIT;
    if (pq_page_header_parse(&h, chunk + pos, len - pos, &hlen, &ignore) < 0) return 0;
    pos += hlen;
    if (h.compressed_page_size < 0 || (size_t)h.compressed_page_size > len - pos) return 0;
    if (h.type != PQ_PAGE_DATA || !h.has_data_page_header) return 0;
    const pq_data_page_header *dh = &h.data_page_header;
    if (!copyable_encoding(desc->physical_type, dh->encoding) || dh->num_values < 0 ||
        h.uncompressed_page_size < 0)
      return 0;
    if (desc->max_def_level > 0 && dh->definition_level_encoding != PQ_ENC_RLE) return 0;
    /* A REQUIRED fixed-width PLAIN page is its values and nothing else:
     * bytes past them, which the reader ignores, are not carried on. */
    if (desc->max_def_level == 0 && dh->encoding == PQ_ENC_PLAIN && width > 0 &&
        (int64_t)h.uncompressed_page_size != (int64_t)dh->num_values * width)
      return 0;
    if (c->n_pages == c->cap_pages) {
      int32_t cap = c->cap_pages ? c->cap_pages * 2 : 16;
      pq_raw_page *p = inlet_realloc(c->pages, (size_t)cap * sizeof *p);
      if (!p)
        return inlet_fail(err, INLET_ENOMEM, "out of memory keeping the pages of \"%s\"",
                          desc->path);
      c->pages = p;
      c->cap_pages = cap;
    }
    c->pages[c->n_pages++] = (pq_raw_page){(int64_t)c->bodies.len, h.compressed_page_size,
                                           h.uncompressed_page_size, dh->num_values, dh->encoding};
    inlet_buf_append(&c->bodies, chunk + pos, (size_t)h.compressed_page_size);
    if (inlet_buf_status(&c->bodies) < 0)
      return inlet_fail(err, INLET_ENOMEM, "out of memory keeping the pages of \"%s\"", desc->path);
    pos += (size_t)h.compressed_page_size;
    seen += dh->num_values;
  }
  if (seen != rows || c->n_pages == 0) return 0;
  c->valid = true;
  c->codec = cm->codec;
  c->physical_type = desc->physical_type;
  c->type_length = desc->type_length;
  c->max_def_level = desc->max_def_level;
  c->converted_type = desc->converted_type;
  c->conv = desc->conv;
  c->scale_factor = desc->scale_factor;
  c->rows = rows;
  return 0;
}
