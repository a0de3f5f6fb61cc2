/*
 * One leaf column of the Parquet writer (see column_writer.h): converts
 * inlet values to their physical representation, encodes them into data
 * pages (dictionary or PLAIN), compresses each page, and keeps the column
 * chunk's pages in memory until the row group is written.
 *
 * Specs: parquet.thrift PageHeader/DataPageHeader/DictionaryPageHeader and
 * ColumnMetaData; Encodings.md "Dictionary Encoding" (PLAIN dictionary page
 * first, then data pages; fallback to PLAIN within the chunk) and "Run
 * Length Encoding / Bit-Packing Hybrid" (levels with the 4-byte length
 * prefix of data page v1, indices after a 1-byte bit width).
 *
 * Dictionary policy. A chunk starts dictionary-encoded (all types but
 * BOOLEAN). The dictionary is dropped early, before any page of the chunk
 * is written, when it cannot pay off: more than 98% of the first
 * DICT_PROBE_VALUES values are distinct (sorted ids, timestamps, random
 * measurements from a large domain), or at the first page the
 * estimated dictionary-encoded size is not below the PLAIN size. Either
 * way the buffered page is re-encoded as PLAIN from the dictionary. Later,
 * if the dictionary passes dictionary_page_bytes, the current page is
 * flushed and the rest of the chunk is PLAIN (the dictionary page still
 * comes first in the chunk). Statistics of dictionary-encoded values are
 * computed once over the distinct values, not per value.
 */
#include "parquet/column_writer.h"

#include <string.h>

#include "codec/codec.h"
#include "parquet/thrift.h"

/* Values looked at before deciding whether a dictionary is worth it. */
#define DICT_PROBE_VALUES 4096
/* ... and after the previous chunk of the column dropped its dictionary at
 * the probe: the same data rarely changes character between row groups,
 * so confirm on fewer values. */
#define DICT_REPROBE_VALUES 1024
/* Rows handed to the encoders at once in dictionary or byte-array mode, so
 * size limits are checked often enough. Multiple of 8 to keep bitmap
 * copies byte-aligned. */
#define STEP_ROWS 8192

/* ---- bitmap helpers ------------------------------------------------------ */

static void copy_bits(uint8_t *dst, int64_t doff, const uint8_t *src, int64_t soff, int64_t n) {
  if (n <= 0) return;
  if ((doff & 7) == 0 && (soff & 7) == 0) {
    memcpy(dst + (doff >> 3), src + (soff >> 3), (size_t)(n >> 3));
    for (int64_t i = n & ~(int64_t)7; i < n; i++)
      inlet_bit_set(dst, doff + i, inlet_bit_get(src, soff + i));
    return;
  }
  for (int64_t i = 0; i < n; i++)
    inlet_bit_set(dst, doff + i, inlet_bit_get(src, soff + i));
}

static void set_bits(uint8_t *dst, int64_t doff, int64_t n) {
  int64_t i = 0;
  while (i < n && ((doff + i) & 7))
    inlet_bit_set(dst, doff + i++, true);
  int64_t bytes = (n - i) >> 3;
  if (bytes > 0) memset(dst + ((doff + i) >> 3), 0xFF, (size_t)bytes);
  i += bytes << 3;
  while (i < n)
    inlet_bit_set(dst, doff + i++, true);
}

/* ---- lifecycle ------------------------------------------------------------ */

static int nomem(pq_column_writer *cw, inlet_error *err);

int pq_column_writer_init(pq_column_writer *cw, const pq_column_desc *desc,
                          const pq_column_config *cfg, inlet_error *err) {
  memset(cw, 0, sizeof *cw);
  cw->desc = desc;
  cw->cfg = cfg;
  cw->value_width = pq_plain_value_width(desc);
  cw->level_mode = desc->max_rep_level > 0 || desc->max_def_level > 1 || desc->n_path > 1;
  inlet_buf_init(&cw->page_plain);
  inlet_buf_init(&cw->chunk);
  inlet_buf_init(&cw->dict_page);
  inlet_buf_init(&cw->body);
  inlet_buf_init(&cw->header);
  pq_stats_kind kind = pq_stats_kind_for(desc);
  pq_stats_init(&cw->page_stats, kind);
  pq_stats_init(&cw->chunk_stats, kind);
  pq_stats_init(&cw->file_stats, kind);
  pq_page_index_builder_init(&cw->pib);
  pq_bool_encoder_init(&cw->bool_enc, &cw->page_plain);
  if (desc->conv == PQ_CONV_INT96 || desc->conv == PQ_CONV_FLOAT16)
    return inlet_fail(err, INLET_EUNSUPPORTED, "column \"%s\": writing %s is not supported",
                      desc->path, desc->conv == PQ_CONV_INT96 ? "INT96" : "FLOAT16");
  bool int_type = desc->physical_type == PQ_INT32 || desc->physical_type == PQ_INT64;
  cw->delta = cfg->int_delta && int_type;
  cw->auto_delta = cfg->int_auto && int_type && !cw->delta;
  cw->split =
      cfg->float_split && (desc->physical_type == PQ_FLOAT || desc->physical_type == PQ_DOUBLE);
  if (cfg->dictionary && desc->physical_type != PQ_BOOLEAN && !cw->delta) {
    pq_dict_kind dk;
    switch (desc->physical_type) {
    case PQ_INT32:
    case PQ_FLOAT: dk = PQ_DICT_32; break;
    case PQ_INT64:
    case PQ_DOUBLE: dk = PQ_DICT_64; break;
    case PQ_BYTE_ARRAY: dk = PQ_DICT_BINARY; break;
    default: dk = PQ_DICT_FIXED; break;
    }
    TRY(pq_dict_init(&cw->dict, dk, desc->type_length, err));
    cw->dict_ready = true;
    /* Give the value buffer storage up front: a dictionary whose only
     * entry is the empty string would otherwise have a NULL data pointer,
     * which the lookup passes to memcmp (undefined even for length 0). */
    if (inlet_buf_reserve(&cw->dict.values, 64) < 0) return nomem(cw, err);
    cw->use_dict = true;
  }
  return 0;
}

/* A data page compressed on the pool: see place_pending. */
typedef struct pq_pending_page {
  const pq_column_writer *cw;
  util_group task; /* the page's compression, alone in its group */
  inlet_buf body;  /* owned: the uncompressed page */
  inlet_buf out;   /* owned: the compressed page */
  int32_t num_values, encoding;
  size_t span;      /* its (offset, length) pair in spans */
  int64_t pib_page; /* its page index entry, -1 for none */
} pq_pending_page;

/* Pages a column has in flight at most: enough to keep the pool's threads
 * busy while the columns go on encoding, few enough that the uncompressed
 * pages held stay a handful per column. They are pages of the open row
 * group and are let go at its end, so what they add is bounded by the row
 * group's size too; their buffers then wait in the writer's stash for the
 * next row group (buf_stash.h: bounded in all). */
#define PENDING_MAX 4
/* The slots after the chunk's and the pages in flight's: buffers that pass
 * from one to another as pages are made (a REQUIRED column's PLAIN values
 * become its body, a body goes to a page in flight for that page's old
 * one), and the page's dictionary indices, which a dictionary page that
 * runs on to the byte limit makes megabytes long (write_flat): each starts
 * the next file as large as it last was instead of growing from nothing. */
#define SLOT_PAGE_PLAIN PQ_COLUMN_SLOT_PAGE_PLAIN
#define SLOT_BODY PQ_COLUMN_SLOT_BODY
#define SLOT_PAGE_IDX PQ_COLUMN_SLOT_PAGE_IDX
_Static_assert(SLOT_PAGE_PLAIN == 1 + 2 * PENDING_MAX && SLOT_BODY == SLOT_PAGE_PLAIN + 1 &&
                   SLOT_PAGE_IDX == SLOT_BODY + 1 && PQ_COLUMN_STASH_SLOTS == SLOT_PAGE_IDX + 1,
               "a stash slot per buffer");

static int place_pending(pq_column_writer *cw, size_t n, inlet_error *err);

/* Lets the pages in flight finish (their tasks use the slots' buffers) and
 * frees the slots. */
static void free_pending(pq_column_writer *cw) {
  if (!cw->pending) return;
  for (size_t i = 0; i < cw->n_pending; i++)
    (void)util_group_wait_own(&cw->pending[(cw->first_pending + i) % PENDING_MAX].task, NULL);
  for (size_t i = 0; i < PENDING_MAX; i++) {
    pq_buf_stash_give(cw->cfg->stash, cw->stash_slot + 1 + 2 * (int64_t)i, &cw->pending[i].body);
    pq_buf_stash_give(cw->cfg->stash, cw->stash_slot + 2 + 2 * (int64_t)i, &cw->pending[i].out);
  }
  inlet_free(cw->pending);
  cw->pending = NULL;
  cw->n_pending = cw->first_pending = 0;
}

void pq_column_writer_take_buffers(pq_column_writer *cw) {
  pq_buf_stash_take(cw->cfg->stash, cw->stash_slot, &cw->chunk);
  pq_buf_stash_take(cw->cfg->stash, cw->stash_slot + SLOT_PAGE_PLAIN, &cw->page_plain);
  pq_buf_stash_take(cw->cfg->stash, cw->stash_slot + SLOT_BODY, &cw->body);
  if (cw->page_idx) return;
  inlet_buf idx = INLET_BUF_INIT;
  pq_buf_stash_take(cw->cfg->stash, cw->stash_slot + SLOT_PAGE_IDX, &idx);
  cw->page_idx = (uint32_t *)(void *)idx.data;
  cw->page_idx_cap = idx.cap / sizeof *cw->page_idx;
}

/* The page's dictionary index array, as a buffer the stash can keep. */
static void give_page_idx(pq_column_writer *cw) {
  inlet_buf idx = {.data = (uint8_t *)cw->page_idx, .cap = cw->page_idx_cap * sizeof *cw->page_idx};
  pq_buf_stash_give(cw->cfg->stash, cw->stash_slot + SLOT_PAGE_IDX, &idx);
  cw->page_idx = NULL;
  cw->page_idx_cap = 0;
}

void pq_column_writer_reset(pq_column_writer *cw) {
  if (!cw) return;
  if (cw->cfg) {
    pq_buf_stash_give(cw->cfg->stash, cw->stash_slot, &cw->chunk);
    pq_buf_stash_give(cw->cfg->stash, cw->stash_slot + SLOT_PAGE_PLAIN, &cw->page_plain);
    pq_buf_stash_give(cw->cfg->stash, cw->stash_slot + SLOT_BODY, &cw->body);
    give_page_idx(cw);
  }
  if (cw->dict_ready) pq_dict_reset(&cw->dict);
  inlet_free(cw->page_valid);
  inlet_free(cw->page_idx);
  inlet_free(cw->conv);
  inlet_free(cw->spans);
  inlet_free(cw->page_def);
  inlet_free(cw->page_rep);
  inlet_buf_reset(&cw->page_plain);
  inlet_buf_reset(&cw->chunk);
  inlet_buf_reset(&cw->dict_page);
  inlet_buf_reset(&cw->body);
  inlet_buf_reset(&cw->header);
  pq_stats_reset(&cw->page_stats);
  pq_stats_reset(&cw->chunk_stats);
  pq_stats_reset(&cw->file_stats);
  pq_page_index_builder_reset(&cw->pib);
  inlet_free(cw->seen);
  inlet_free(cw->hint_map);
  free_pending(cw);
  memset(cw, 0, sizeof *cw);
}

static int nomem(pq_column_writer *cw, inlet_error *err) {
  return inlet_fail(err, INLET_ENOMEM, "%s: column \"%s\": out of memory",
                    cw->cfg->file_name ? cw->cfg->file_name : "parquet writer", cw->desc->path);
}

/* ---- value conversion -------------------------------------------------- */

static int ensure_conv(pq_column_writer *cw, size_t bytes, inlet_error *err) {
  if (bytes <= cw->conv_cap) return 0;
  size_t cap = cw->conv_cap ? cw->conv_cap : 4096;
  while (cap < bytes)
    cap *= 2;
  void *p = inlet_realloc(cw->conv, cap);
  if (!p) return nomem(cw, err);
  cw->conv = p;
  cw->conv_cap = cap;
  return 0;
}

static int value_error(pq_column_writer *cw, int64_t row, const char *what, inlet_error *err) {
  return inlet_fail(err, INLET_EINVAL, "%s: column \"%s\" row %lld: %s",
                    cw->cfg->file_name ? cw->cfg->file_name : "parquet writer", cw->desc->path,
                    (long long)row, what);
}

/*
 * Physical values of rows [start, start + n) of @p a. On return row
 * start + i is element (*s + i) of *vals and validity bit (*s + i) of
 * *valid. Converted values go to cw->conv starting at the byte-aligned row
 * start & ~7 so the validity bitmap can be reused by pointer.
 */
static int physical_values(pq_column_writer *cw, const inlet_array *a, int64_t start, int64_t n,
                           const void **vals, const uint8_t **valid, int64_t *s, inlet_error *err) {
  const pq_column_desc *d = cw->desc;
  if (d->conv == PQ_CONV_NONE) {
    /* A string column of empty values may have no data buffer at all;
     * the encoders still want a pointer. */
    static const uint8_t empty[8];
    *vals = a->values ? a->values : empty;
    *valid = a->validity;
    *s = start;
    return 0;
  }
  int64_t base = start & ~(int64_t)7;
  int64_t m = start - base + n;
  int w = cw->value_width;
  TRY(ensure_conv(cw, (size_t)m * (size_t)w, err));
  const uint8_t *vb = a->validity;
  uint8_t *out = cw->conv;
  switch (d->conv) {
  case PQ_CONV_INT_NARROW: {
    int32_t *o = (int32_t *)cw->conv;
    switch (d->type.id) {
    case INLET_TYPE_INT8: {
      const int8_t *v = (const int8_t *)a->values + base;
      for (int64_t i = 0; i < m; i++)
        o[i] = v[i];
      break;
    }
    case INLET_TYPE_UINT8: {
      const uint8_t *v = (const uint8_t *)a->values + base;
      for (int64_t i = 0; i < m; i++)
        o[i] = v[i];
      break;
    }
    case INLET_TYPE_INT16: {
      const int16_t *v = (const int16_t *)a->values + base;
      for (int64_t i = 0; i < m; i++)
        o[i] = v[i];
      break;
    }
    case INLET_TYPE_UINT16: {
      const uint16_t *v = (const uint16_t *)a->values + base;
      for (int64_t i = 0; i < m; i++)
        o[i] = v[i];
      break;
    }
    default:
      return inlet_fail(err, INLET_EINTERNAL, "column \"%s\": bad narrow conversion", d->path);
    }
    break;
  }
  case PQ_CONV_SCALE: {
    int64_t f = d->scale_factor;
    if (w == 4) {
      const int32_t *v = (const int32_t *)a->values + base;
      int32_t *o = (int32_t *)cw->conv;
      for (int64_t i = 0; i < m; i++) {
        int64_t x = (int64_t)v[i] * f;
        if (x < INT32_MIN || x > INT32_MAX) {
          if (vb && !inlet_bit_get(vb, base + i)) {
            o[i] = 0;
            continue;
          }
          return value_error(cw, base + i, "value out of range after unit conversion", err);
        }
        o[i] = (int32_t)x;
      }
    } else {
      const int64_t *v = (const int64_t *)a->values + base;
      int64_t *o = (int64_t *)cw->conv;
      for (int64_t i = 0; i < m; i++) {
        if (__builtin_mul_overflow(v[i], f, &o[i])) {
          if (vb && !inlet_bit_get(vb, base + i)) {
            o[i] = 0;
            continue;
          }
          return value_error(cw, base + i, "value out of range after unit conversion", err);
        }
      }
    }
    break;
  }
  case PQ_CONV_DECIMAL: {
    const uint8_t *v = a->values + (size_t)base * 16;
    for (int64_t i = 0; i < m; i++, v += 16) {
      bool is_valid = !vb || inlet_bit_get(vb, base + i);
      uint64_t lo;
      int64_t hi;
      memcpy(&lo, v, 8);
      memcpy(&hi, v + 8, 8);
      if (w == 4 || w == 8) {
        int64_t l = (int64_t)lo;
        bool fits = hi == (l >> 63) && (w == 8 || (l >= INT32_MIN && l <= INT32_MAX));
        if (!fits) {
          if (is_valid) return value_error(cw, base + i, "decimal does not fit its precision", err);
          l = 0;
        }
        if (w == 4)
          ((int32_t *)cw->conv)[i] = (int32_t)l;
        else
          ((int64_t *)cw->conv)[i] = l;
      } else {
        uint8_t *o = out + (size_t)i * (size_t)w;
        uint8_t sign = (v[w - 1] & 0x80) ? 0xFF : 0x00;
        bool fits = true;
        for (int k = w; k < 16; k++)
          fits = fits && v[k] == sign;
        if (!fits && is_valid)
          return value_error(cw, base + i, "decimal does not fit its precision", err);
        for (int k = 0; k < w; k++)
          o[k] = v[w - 1 - k];
      }
    }
    break;
  }
  default:
    return inlet_fail(err, INLET_EUNSUPPORTED, "column \"%s\": unsupported conversion", d->path);
  }
  *vals = cw->conv;
  *valid = vb ? vb + (base >> 3) : NULL;
  *s = start - base;
  return 0;
}

/* ---- pages ---------------------------------------------------------------- */

/* Room left in front of each page body for its header, so that the
 * compressor can write straight into the chunk buffer (no copy of the
 * compressed bytes); the header is then placed right before the body and
 * the page recorded as a span. Data page headers without statistics take
 * about 20 bytes. */
#define HEADER_GAP 64

static int add_span(pq_column_writer *cw, int64_t off, int64_t len, inlet_error *err) {
  if (cw->n_spans + 2 > cw->spans_cap) {
    size_t cap = cw->spans_cap ? cw->spans_cap * 2 : 64;
    int64_t *p = inlet_realloc(cw->spans, cap * sizeof *p);
    if (!p) return nomem(cw, err);
    cw->spans = p;
    cw->spans_cap = cap;
  }
  cw->spans[cw->n_spans++] = off;
  cw->spans[cw->n_spans++] = len;
  cw->chunk_bytes += len;
  return 0;
}

/* Writes the header of a page whose payload (@p plen bytes, compressed)
 * sits at @p payload_pos in @p out, in the HEADER_GAP bytes reserved at
 * @p hdr_slot before it, and returns where the page starts and how long
 * it is. Bytes before *span_off are unused gap. */
static int page_header(pq_column_writer *cw, int32_t type, size_t len, size_t plen,
                       int32_t num_values, int32_t encoding, inlet_buf *out, size_t hdr_slot,
                       size_t payload_pos, int64_t *uncompressed, size_t *span_off,
                       size_t *span_len, inlet_error *err) {
  if (len > INT32_MAX || plen > INT32_MAX) {
    out->len = hdr_slot;
    return inlet_fail(err, INLET_ELIMIT, "column \"%s\": page of %zu bytes exceeds 2 GiB",
                      cw->desc->path, len);
  }
  pq_page_header h;
  memset(&h, 0, sizeof h);
  h.type = type;
  h.uncompressed_page_size = (int32_t)len;
  h.compressed_page_size = (int32_t)plen;
  if (type == PQ_PAGE_DICTIONARY) {
    h.has_dictionary_page_header = true;
    h.dictionary_page_header.num_values = num_values;
    h.dictionary_page_header.encoding = PQ_ENC_PLAIN;
  } else {
    h.has_data_page_header = true;
    h.data_page_header.num_values = num_values;
    h.data_page_header.encoding = encoding;
    h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
    h.data_page_header.repetition_level_encoding = PQ_ENC_RLE;
  }
  inlet_buf_clear(&cw->header);
  TRY(pq_page_header_serialize(&h, &cw->header, err));
  size_t hlen = cw->header.len;
  if (hlen > HEADER_GAP) {
    /* Not expected without page statistics; keep it correct anyway. */
    if (inlet_buf_reserve(out, hlen - HEADER_GAP) < 0) return nomem(cw, err);
    memmove(out->data + hdr_slot + hlen, out->data + payload_pos, plen);
    payload_pos = hdr_slot + hlen;
    out->len = payload_pos + plen;
  }
  memcpy(out->data + payload_pos - hlen, cw->header.data, hlen);
  *span_off = payload_pos - hlen;
  *span_len = hlen + plen;
  *uncompressed += (int64_t)(hlen + len);
  return 0;
}

/* Appends one page (header + compressed body) to @p out and returns where
 * it starts and how long it is. Bytes before *span_off are unused gap. */
static int emit_page(pq_column_writer *cw, int32_t type, const uint8_t *body, size_t len,
                     int32_t num_values, int32_t encoding, inlet_buf *out, int64_t *uncompressed,
                     size_t *span_off, size_t *span_len, inlet_error *err) {
  if (inlet_buf_reserve(out, HEADER_GAP) < 0) return nomem(cw, err);
  size_t hdr_slot = out->len;
  out->len += HEADER_GAP;
  size_t payload_pos = out->len;
  if (cw->cfg->codec != PQ_CODEC_UNCOMPRESSED) {
    int rc = inlet_compress(cw->cfg->codec, cw->cfg->compression_level, body, len, out, err);
    if (rc < 0) {
      out->len = hdr_slot;
      inlet_error_prefix(err, "column \"%s\"", cw->desc->path);
      return rc;
    }
  } else {
    inlet_buf_append(out, body, len);
  }
  if (inlet_buf_status(out) < 0) return nomem(cw, err);
  return page_header(cw, type, len, out->len - payload_pos, num_values, encoding, out, hdr_slot,
                     payload_pos, uncompressed, span_off, span_len, err);
}

/*
 * Pages compressed in parallel (issue 18). With a pool that has threads, a
 * data page's body is handed to a pool task that compresses it while the
 * column goes on: encoding its next pages, and across calls, so a thread
 * that ends its share of a slice early takes up the pages of the columns
 * still busy instead of waiting at the slice's end. The page's span and
 * page index entry are reserved in order at once and filled in when the
 * page is placed in the chunk, oldest first: when a fifth page needs a
 * slot, and at the chunk's end. Row groups are cut by the uncompressed
 * bytes encoded (chunk_encoded), which do not wait for compression, so
 * the chunks, the footer and the file's bytes are one thread's.
 */
static bool defer_pages(const pq_column_writer *cw) {
  return cw->cfg->codec != PQ_CODEC_UNCOMPRESSED && util_pool_threads(cw->cfg->pool) > 0;
}

static int compress_task(void *arg, inlet_error *err) {
  pq_pending_page *p = arg;
  const pq_column_writer *cw = p->cw;
  inlet_buf_clear(&p->out);
  int rc = inlet_compress(cw->cfg->codec, cw->cfg->compression_level, p->body.data, p->body.len,
                          &p->out, err);
  if (rc == 0 && inlet_buf_status(&p->out) < 0) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  if (rc < 0) inlet_error_prefix(err, "column \"%s\"", cw->desc->path);
  return rc;
}

/* Waits for the @p n oldest pages in flight and puts them in the chunk, in
 * order. A failing page's error is returned (pages fail in order, as on
 * one thread); the pages after it are let go. */
static int place_pending(pq_column_writer *cw, size_t n, inlet_error *err) {
  int rc = 0;
  for (; n > 0 && cw->n_pending > 0; n--) {
    pq_pending_page *p = &cw->pending[cw->first_pending];
    cw->first_pending = (cw->first_pending + 1) % PENDING_MAX;
    cw->n_pending--;
    /* Only this page's task: whatever else is queued may belong to the
     * thread this one feeds (a scan task waiting for its consumer). */
    int trc = util_group_wait_own(&p->task, rc < 0 ? NULL : err);
    if (rc < 0 || (rc = trc) < 0) continue;
    inlet_buf *out = &cw->chunk;
    if (inlet_buf_reserve(out, HEADER_GAP + p->out.len) < 0) {
      rc = nomem(cw, err);
      continue;
    }
    size_t hdr_slot = out->len;
    out->len += HEADER_GAP;
    size_t payload_pos = out->len;
    inlet_buf_append(out, p->out.data, p->out.len);
    size_t off, len;
    rc = page_header(cw, PQ_PAGE_DATA, p->body.len, p->out.len, p->num_values, p->encoding, out,
                     hdr_slot, payload_pos, &cw->chunk_uncompressed, &off, &len, err);
    if (rc < 0) continue;
    cw->spans[p->span] = (int64_t)off;
    cw->spans[p->span + 1] = (int64_t)len;
    cw->chunk_bytes += (int64_t)len;
    if (p->pib_page >= 0) cw->pib.pages[p->pib_page].span = (int64_t)len;
  }
  return rc;
}

/* Ends a call that may have made pages. After a failure every page in
 * flight is waited for, and one that failed is reported instead: it was
 * made before the call's own failure, which one thread would have met
 * second. */
static int end_call(pq_column_writer *cw, int rc, inlet_error *err) {
  if (rc == 0 || cw->n_pending == 0) return rc;
  int prc = place_pending(cw, cw->n_pending, err);
  return prc < 0 ? prc : rc;
}

static int emit_data_page(pq_column_writer *cw, inlet_buf *body, int32_t num_values,
                          int32_t encoding, inlet_error *err) {
  cw->chunk_encoded += (int64_t)body->len;
  if (!defer_pages(cw)) {
    size_t off, n;
    TRY(emit_page(cw, PQ_PAGE_DATA, body->data, body->len, num_values, encoding, &cw->chunk,
                  &cw->chunk_uncompressed, &off, &n, err));
    return add_span(cw, (int64_t)off, (int64_t)n, err);
  }
  if (cw->n_pending == PENDING_MAX) TRY(place_pending(cw, 1, err));
  if (!cw->pending) {
    cw->pending = inlet_calloc(PENDING_MAX, sizeof *cw->pending);
    if (!cw->pending) return nomem(cw, err);
    for (size_t i = 0; i < PENDING_MAX; i++) {
      pq_buf_stash_take(cw->cfg->stash, cw->stash_slot + 1 + 2 * (int64_t)i, &cw->pending[i].body);
      pq_buf_stash_take(cw->cfg->stash, cw->stash_slot + 2 + 2 * (int64_t)i, &cw->pending[i].out);
    }
  }
  TRY(add_span(cw, 0, 0, err));
  pq_pending_page *p = &cw->pending[(cw->first_pending + cw->n_pending) % PENDING_MAX];
  cw->n_pending++;
  /* The body goes to the task; the column takes the slot's old buffer. */
  inlet_buf t = p->body;
  p->body = *body;
  *body = t;
  inlet_buf_clear(body);
  p->cw = cw;
  p->num_values = num_values;
  p->encoding = encoding;
  p->span = cw->n_spans - 2;
  p->pib_page = cw->cfg->page_index ? (int64_t)cw->pib.n_pages : -1;
  util_group_init(&p->task, cw->cfg->pool);
  util_group_submit(&p->task, compress_task, p);
  return 0;
}

int pq_column_writer_write_chunk(pq_column_writer *cw, inlet_wfile *f, inlet_error *err) {
  if (cw->dict_page.len) TRY(inlet_wfile_append(f, cw->dict_page.data, cw->dict_page.len, err));
  for (size_t i = 0; i < cw->n_spans; i += 2)
    TRY(inlet_wfile_append(f, cw->chunk.data + cw->spans[i], (size_t)cw->spans[i + 1], err));
  return 0;
}

static void clear_page(pq_column_writer *cw) {
  cw->page_rows = cw->page_nulls = 0;
  cw->page_idx_n = 0;
  inlet_buf_clear(&cw->page_plain);
  pq_bool_encoder_init(&cw->bool_enc, &cw->page_plain);
}

static bool is_optional(const pq_column_writer *cw) {
  return cw->desc->max_def_level > 0;
}

/*
 * DELTA_BINARY_PACKED (Encodings.md): blocks of 2048 values in 32 miniblocks
 * of 64, each block a zigzag min delta, the bit widths and the packed
 * (delta - min delta) values. Long blocks (as DuckDB writes) matter: fewer
 * block headers cutting through the packed bits let the codec find their
 * regularity; seed event times compress 2x smaller under zstd than with
 * 128-value blocks. Miniblocks of 64 keep an all-zero block at 33 bytes, so
 * readers that bound values per byte (inlet's allows 64) accept constant
 * steps. Deltas wrap in the column's own width, so INT32 never needs more
 * than 32 bits; miniblocks past the last value have width 0 and no bytes.
 */
#define DELTA_BLOCK 2048
#define DELTA_MINI 64

static void delta_encode(inlet_buf *out, const uint8_t *vals, size_t n, int width) {
  inlet_thrift_write_varint(out, DELTA_BLOCK);
  inlet_thrift_write_varint(out, DELTA_BLOCK / DELTA_MINI);
  inlet_thrift_write_varint(out, n);
  int64_t prev = 0;
  if (n) {
    if (width == 4) {
      int32_t v;
      memcpy(&v, vals, 4);
      prev = v;
    } else {
      memcpy(&prev, vals, 8);
    }
  }
  inlet_thrift_write_varint(out, inlet_zigzag_encode64(prev));
  uint64_t rel[DELTA_BLOCK];
  int64_t delta[DELTA_BLOCK];
  for (size_t i = 1; i < n;) {
    size_t m = n - i < DELTA_BLOCK ? n - i : DELTA_BLOCK;
    int64_t min = INT64_MAX;
    for (size_t j = 0; j < m; j++, i++) {
      int64_t d;
      if (width == 4) {
        int32_t v;
        memcpy(&v, vals + i * 4, 4);
        d = (int32_t)((uint32_t)v - (uint32_t)prev);
        prev = v;
      } else {
        int64_t v;
        memcpy(&v, vals + i * 8, 8);
        d = (int64_t)((uint64_t)v - (uint64_t)prev);
        prev = v;
      }
      delta[j] = d;
      min = d < min ? d : min;
    }
    uint8_t widths[DELTA_BLOCK / DELTA_MINI];
    for (size_t j = 0; j < DELTA_BLOCK; j++) {
      if (j >= m)
        rel[j] = 0;
      else if (width == 4)
        rel[j] = (uint32_t)((uint32_t)delta[j] - (uint32_t)min);
      else
        rel[j] = (uint64_t)delta[j] - (uint64_t)min;
    }
    for (size_t k = 0; k < DELTA_BLOCK / DELTA_MINI; k++) {
      uint64_t any = 0;
      if (k * DELTA_MINI < m)
        for (size_t j = 0; j < DELTA_MINI; j++)
          any |= rel[k * DELTA_MINI + j];
      widths[k] = (uint8_t)pq_bit_width(any);
    }
    inlet_thrift_write_varint(out, inlet_zigzag_encode64(min));
    inlet_buf_append(out, widths, sizeof widths);
    for (size_t k = 0; k < DELTA_BLOCK / DELTA_MINI && k * DELTA_MINI < m; k++) {
      size_t bytes = (size_t)widths[k] * DELTA_MINI / 8;
      if (inlet_buf_reserve(out, bytes) < 0) return;
      pq_pack64(out->data + out->len, rel + k * DELTA_MINI, DELTA_MINI, widths[k]);
      out->len += bytes;
    }
  }
}

/*
 * AUTO's per-page choice, from cheap statistics: the packed size of up to
 * DELTA_SAMPLE_RUNS miniblocks spread over the page (deltas against their
 * own minimum, as the encoder packs them), scaled to the page. Sorted ids
 * and event times have small, steady deltas, so a sample predicts the page
 * well; random values give wide deltas and stay PLAIN. Costs a few
 * thousand values per page whatever the page size.
 */
#define DELTA_SAMPLE_RUNS 16

static size_t delta_run_bytes(const uint8_t *vals, size_t first, size_t m, int width) {
  int64_t d[DELTA_MINI];
  int64_t min = INT64_MAX;
  for (size_t j = 0; j < m; j++) {
    size_t i = first + j;
    if (width == 4) {
      int32_t a, b;
      memcpy(&a, vals + (i - 1) * 4, 4);
      memcpy(&b, vals + i * 4, 4);
      d[j] = (int32_t)((uint32_t)b - (uint32_t)a);
    } else {
      int64_t a, b;
      memcpy(&a, vals + (i - 1) * 8, 8);
      memcpy(&b, vals + i * 8, 8);
      d[j] = (int64_t)((uint64_t)b - (uint64_t)a);
    }
    min = d[j] < min ? d[j] : min;
  }
  uint64_t any = 0;
  for (size_t j = 0; j < m; j++)
    any |= width == 4 ? (uint32_t)((uint32_t)d[j] - (uint32_t)min) : (uint64_t)d[j] - (uint64_t)min;
  return (size_t)pq_bit_width(any) * DELTA_MINI / 8;
}

static bool delta_pays_off(const uint8_t *vals, size_t n, int width) {
  if (n < 2) return false;
  size_t runs = (n - 1 + DELTA_MINI - 1) / DELTA_MINI;
  size_t sample = runs < DELTA_SAMPLE_RUNS ? runs : DELTA_SAMPLE_RUNS;
  size_t est = 0, sampled = 0;
  for (size_t s = 0; s < sample; s++) {
    size_t first = 1 + s * runs / sample * DELTA_MINI;
    size_t m = n - first < DELTA_MINI ? n - first : DELTA_MINI;
    est += delta_run_bytes(vals, first, m, width);
    sampled += m;
  }
  /* Scale to the page, add the block headers (min delta varint and widths)
   * and demand a clear win (3/4 of PLAIN): the codec narrows the gap and
   * PLAIN decodes faster. */
  double page_est =
      (double)est * (double)(n - 1) / (double)sampled +
      (double)((n + DELTA_BLOCK - 1) / DELTA_BLOCK) * (10 + DELTA_BLOCK / DELTA_MINI) + 16;
  return page_est * 4 < (double)n * width * 3;
}

/*
 * BYTE_STREAM_SPLIT (Encodings.md): byte b of every value in stream b. The
 * size is PLAIN's, but the exponent and high mantissa bytes of similar
 * floats line up, which the codec compresses far better.
 */
static void split_encode(inlet_buf *out, const uint8_t *vals, size_t n, size_t width) {
  /* An empty page (every value null) has no values buffer to split. */
  if (n == 0 || inlet_buf_reserve(out, n * width) < 0) return;
  uint8_t *dst = out->data + out->len;
  for (size_t b = 0; b < width; b++) {
    uint8_t *d = dst + b * n;
    const uint8_t *v = vals + b;
    for (size_t i = 0; i < n; i++)
      d[i] = v[i * width];
  }
  out->len += n * width;
}

static bool is_utf8(const pq_column_desc *d) {
  return d->logical.kind == PQ_LT_STRING || d->logical.kind == PQ_LT_JSON ||
         d->logical.kind == PQ_LT_ENUM || d->converted_type == PQ_CT_UTF8;
}

/* Folds the dictionary entries a dictionary-encoded page uses into the page
 * statistics: each distinct entry once (a bitmap of the indices), so the
 * cost is the page's indices plus the dictionary's size in bits. */
static int page_stats_from_dict(pq_column_writer *cw) {
  const pq_dict *d = &cw->dict;
  pq_stats *s = &cw->page_stats;
  if (cw->page_idx_n == 0 || d->count == 0 || s->kind == PQ_STATS_NONE) return 0;
  size_t words = ((size_t)d->count + 63) / 64;
  if (words > cw->seen_cap) {
    uint64_t *p = inlet_realloc(cw->seen, words * sizeof *p);
    if (!p) return INLET_ENOMEM;
    cw->seen = p;
    cw->seen_cap = words;
  }
  memset(cw->seen, 0, words * sizeof *cw->seen);
  for (size_t i = 0; i < cw->page_idx_n; i++) {
    uint32_t k = cw->page_idx[i];
    if (k < d->count) cw->seen[k >> 6] |= (uint64_t)1 << (k & 63);
  }
  for (size_t w = 0; w < words; w++) {
    for (uint64_t bits = cw->seen[w]; bits; bits &= bits - 1) {
      int64_t k = (int64_t)(w * 64 + (size_t)__builtin_ctzll(bits));
      int rc = 0;
      switch (cw->desc->physical_type) {
      case PQ_INT32: pq_stats_update_i32(s, (const int32_t *)d->values.data, NULL, k, 1); break;
      case PQ_INT64: pq_stats_update_i64(s, (const int64_t *)d->values.data, NULL, k, 1); break;
      case PQ_FLOAT: pq_stats_update_float(s, (const float *)d->values.data, NULL, k, 1); break;
      case PQ_DOUBLE: pq_stats_update_double(s, (const double *)d->values.data, NULL, k, 1); break;
      case PQ_BYTE_ARRAY:
        rc = pq_stats_update_binary(s, d->offsets, d->values.data, NULL, k, 1);
        break;
      case PQ_FIXED_LEN_BYTE_ARRAY:
        rc = pq_stats_update_fixed(s, d->values.data, (size_t)d->fixed_width, NULL, k, 1);
        break;
      default: break;
      }
      if (rc < 0) return rc;
    }
  }
  return 0;
}

static int flush_page(pq_column_writer *cw, inlet_error *err) {
  if (cw->page_rows == 0) return 0;
  if (cw->page_rows > INT32_MAX)
    return inlet_fail(err, INLET_ELIMIT, "column \"%s\": too many values in a page",
                      cw->desc->path);
  inlet_buf *body = &cw->body;
  inlet_buf_clear(body);
  if (cw->level_mode) {
    /* Data page v1: repetition levels, then definition levels, each with
     * its 4-byte length; absent when the maximum level is 0. */
    if (cw->desc->max_rep_level > 0)
      pq_rle_encode_levels_v1_i16(body, cw->page_rep, (size_t)cw->page_rows,
                                  pq_bit_width((uint64_t)cw->desc->max_rep_level));
    if (cw->desc->max_def_level > 0)
      pq_rle_encode_levels_v1_i16(body, cw->page_def, (size_t)cw->page_rows,
                                  pq_bit_width((uint64_t)cw->desc->max_def_level));
  } else if (is_optional(cw)) {
    pq_rle_encode_levels_v1_bits(body, cw->page_nulls ? cw->page_valid : NULL, 0,
                                 (size_t)cw->page_rows);
  }
  int32_t enc;
  /* A page of nulls only, before any value reached the dictionary, is
   * written PLAIN (no values) so that no RLE_DICTIONARY page can exist
   * without a dictionary page. */
  if (cw->use_dict && cw->dict_in_chunk) {
    pq_rle_encode_dict_indices(body, cw->page_idx, cw->page_idx_n, pq_dict_index_width(&cw->dict));
    enc = PQ_ENC_RLE_DICTIONARY;
    cw->n_dict_pages_data++;
  } else if (cw->delta ||
             (cw->auto_delta && inlet_buf_status(&cw->page_plain) == 0 &&
              delta_pays_off(cw->page_plain.data, cw->page_plain.len / (size_t)cw->value_width,
                             cw->value_width))) {
    if (inlet_buf_status(&cw->page_plain) < 0) return nomem(cw, err);
    delta_encode(body, cw->page_plain.data, cw->page_plain.len / (size_t)cw->value_width,
                 cw->value_width);
    enc = PQ_ENC_DELTA_BINARY_PACKED;
    cw->n_delta_pages++;
  } else if (cw->split) {
    if (inlet_buf_status(&cw->page_plain) < 0) return nomem(cw, err);
    split_encode(body, cw->page_plain.data, cw->page_plain.len / (size_t)cw->value_width,
                 (size_t)cw->value_width);
    enc = PQ_ENC_BYTE_STREAM_SPLIT;
    cw->n_split_pages++;
  } else {
    if (cw->desc->physical_type == PQ_BOOLEAN) pq_bool_encoder_finish(&cw->bool_enc);
    if (inlet_buf_status(&cw->page_plain) < 0) return nomem(cw, err);
    if (body->len == 0) {
      /* REQUIRED column: the PLAIN values are the whole body; skip a copy. */
      inlet_buf t = *body;
      *body = cw->page_plain;
      cw->page_plain = t;
    } else {
      inlet_buf_append(body, cw->page_plain.data, cw->page_plain.len);
    }
    enc = PQ_ENC_PLAIN;
    cw->n_plain_pages++;
  }
  if (inlet_buf_status(body) < 0) return nomem(cw, err);
  if (enc == PQ_ENC_RLE_DICTIONARY && page_stats_from_dict(cw) < 0) return nomem(cw, err);
  TRY(emit_data_page(cw, body, (int32_t)cw->page_rows, enc, err));
  if (cw->cfg->page_index)
    TRY(pq_page_index_builder_add(&cw->pib, cw->page_first_row, cw->spans[cw->n_spans - 1],
                                  &cw->page_stats, cw->cfg->statistics_truncate, is_utf8(cw->desc),
                                  err));
  if (pq_stats_merge(&cw->chunk_stats, &cw->page_stats) < 0) return nomem(cw, err);
  pq_stats_clear(&cw->page_stats);
  cw->page_first_row = cw->chunk_rows;
  clear_page(cw);
  return 0;
}

/* ---- dictionary decisions ------------------------------------------------ */

/* Folds the distinct values of the dictionary into the page statistics
 * when the dictionary is abandoned: no dictionary page was written yet, so
 * every entry was inserted by a value of the current page. */
static int stats_from_dict(pq_column_writer *cw) {
  pq_dict *d = &cw->dict;
  pq_stats *s = &cw->page_stats;
  if (d->count == 0) return 0;
  switch (cw->desc->physical_type) {
  case PQ_INT32: pq_stats_update_i32(s, (const int32_t *)d->values.data, NULL, 0, d->count); break;
  case PQ_INT64: pq_stats_update_i64(s, (const int64_t *)d->values.data, NULL, 0, d->count); break;
  case PQ_FLOAT: pq_stats_update_float(s, (const float *)d->values.data, NULL, 0, d->count); break;
  case PQ_DOUBLE:
    pq_stats_update_double(s, (const double *)d->values.data, NULL, 0, d->count);
    break;
  case PQ_BYTE_ARRAY:
    return pq_stats_update_binary(s, d->offsets, d->values.data, NULL, 0, d->count);
  case PQ_FIXED_LEN_BYTE_ARRAY:
    return pq_stats_update_fixed(s, d->values.data, (size_t)d->fixed_width, NULL, 0, d->count);
  default: break;
  }
  return 0;
}

/* Re-encodes the buffered page as PLAIN from its indices and forgets the
 * dictionary (only while no dictionary-encoded page was written). */
static int abandon_dict(pq_column_writer *cw, inlet_error *err) {
  if (stats_from_dict(cw) < 0) return nomem(cw, err);
  pq_dict *d = &cw->dict;
  inlet_buf *out = &cw->page_plain;
  inlet_buf_clear(out);
  if (cw->desc->physical_type == PQ_BYTE_ARRAY) {
    for (size_t i = 0; i < cw->page_idx_n; i++) {
      uint32_t k = cw->page_idx[i];
      uint32_t len = (uint32_t)(d->offsets[k + 1] - d->offsets[k]);
      inlet_buf_append(out, &len, 4);
      inlet_buf_append(out, d->values.data + d->offsets[k], len);
    }
  } else {
    size_t w = (size_t)cw->value_width;
    if (inlet_buf_reserve(out, cw->page_idx_n * w) == 0) {
      uint8_t *o = out->data;
      const uint8_t *dv = d->values.data;
      if (w == 8) {
        for (size_t i = 0; i < cw->page_idx_n; i++)
          memcpy(o + i * 8, dv + (size_t)cw->page_idx[i] * 8, 8);
      } else if (w == 4) {
        for (size_t i = 0; i < cw->page_idx_n; i++)
          memcpy(o + i * 4, dv + (size_t)cw->page_idx[i] * 4, 4);
      } else {
        for (size_t i = 0; i < cw->page_idx_n; i++)
          memcpy(o + i * w, dv + (size_t)cw->page_idx[i] * w, w);
      }
      out->len = cw->page_idx_n * w;
    }
  }
  if (inlet_buf_status(out) < 0) return nomem(cw, err);
  cw->page_idx_n = 0;
  cw->use_dict = false;
  cw->dict_in_chunk = false;
  pq_dict_clear(d);
  return 0;
}

/* Estimated size of the dictionary-encoded page body vs PLAIN. */
static bool dict_pays_off(const pq_column_writer *cw) {
  const pq_dict *d = &cw->dict;
  size_t n = cw->page_idx_n;
  size_t dict_est = pq_dict_plain_size(d) + pq_bitpacked_bytes(n, pq_dict_index_width(d)) + 1;
  size_t plain_est;
  if (cw->desc->physical_type == PQ_BYTE_ARRAY) {
    /* Average dictionary value length stands in for the page's values. */
    plain_est = d->count ? (size_t)((double)pq_dict_plain_size(d) / d->count * (double)n) : 0;
  } else {
    plain_est = n * (size_t)cw->value_width;
  }
  return dict_est < plain_est;
}

/* ---- appending rows --------------------------------------------------- */

static int ensure_page_valid(pq_column_writer *cw, int64_t rows, inlet_error *err) {
  int64_t need = (rows + 7) >> 3;
  if (need <= cw->page_valid_cap) return 0;
  int64_t cap = cw->page_valid_cap ? cw->page_valid_cap : 1024;
  while (cap < need)
    cap *= 2;
  uint8_t *p = inlet_realloc(cw->page_valid, (size_t)cap);
  if (!p) return nomem(cw, err);
  cw->page_valid = p;
  cw->page_valid_cap = cap;
  return 0;
}

static int ensure_idx(pq_column_writer *cw, size_t n, inlet_error *err) {
  size_t need = cw->page_idx_n + n;
  if (need <= cw->page_idx_cap) return 0;
  size_t cap = cw->page_idx_cap ? cw->page_idx_cap : 8192;
  while (cap < need)
    cap *= 2;
  uint32_t *p = inlet_realloc(cw->page_idx, cap * sizeof *p);
  if (!p) return nomem(cw, err);
  cw->page_idx = p;
  cw->page_idx_cap = cap;
  return 0;
}

static int64_t page_estimate(const pq_column_writer *cw) {
  int64_t levels = is_optional(cw) ? (cw->page_nulls ? (cw->page_rows >> 3) + 8 : 8) : 0;
  if (cw->level_mode)
    levels = (int64_t)pq_bitpacked_bytes((size_t)cw->page_rows,
                                         pq_bit_width((uint64_t)cw->desc->max_def_level) +
                                             pq_bit_width((uint64_t)cw->desc->max_rep_level)) +
             16;
  if (cw->use_dict)
    return levels + (int64_t)pq_bitpacked_bytes(cw->page_idx_n, pq_dict_index_width(&cw->dict));
  return levels + (int64_t)cw->page_plain.len;
}

int64_t pq_column_writer_estimate(const pq_column_writer *cw) {
  int64_t est = cw->chunk_encoded + page_estimate(cw);
  if (cw->dict_in_chunk) est += (int64_t)pq_dict_plain_size(&cw->dict);
  return est;
}

/* Folds non-null values (physical, as the encoders take them) into the
 * page's statistics. @return 0 or INLET_ENOMEM. */
static int page_stats_update(pq_column_writer *cw, const int32_t *offsets, const void *vals,
                             const uint8_t *valid, int64_t s, int64_t n) {
  pq_stats *st = &cw->page_stats;
  switch (cw->desc->physical_type) {
  case PQ_BOOLEAN: pq_stats_update_bool(st, vals, valid, s, (size_t)n); return 0;
  case PQ_INT32: pq_stats_update_i32(st, vals, valid, s, (size_t)n); return 0;
  case PQ_INT64: pq_stats_update_i64(st, vals, valid, s, (size_t)n); return 0;
  case PQ_FLOAT: pq_stats_update_float(st, vals, valid, s, (size_t)n); return 0;
  case PQ_DOUBLE: pq_stats_update_double(st, vals, valid, s, (size_t)n); return 0;
  case PQ_BYTE_ARRAY: return pq_stats_update_binary(st, offsets, vals, valid, s, (size_t)n);
  case PQ_FIXED_LEN_BYTE_ARRAY:
    return pq_stats_update_fixed(st, vals, (size_t)cw->value_width, valid, s, (size_t)n);
  default: return 0;
  }
}

/*
 * Dictionary indices as hints. Rewriting a dictionary-encoded chunk, the
 * writer hashed every value into its own dictionary although the values
 * repeat exactly as the input's indices do (compaction of seed files: 10%
 * of its time). With the input's index of each value (raw_pages.h), the
 * first value of each input index goes into the dictionary as always and
 * the rest take the dictionary index it got: the same dictionary, in the
 * same order of first appearance, the same indices.
 */
static int put_binary_hinted(pq_column_writer *cw, const int32_t *offsets, const uint8_t *data,
                             const uint8_t *valid, int64_t s, size_t n, uint32_t *idx,
                             size_t *n_out, inlet_error *err) {
  const pq_raw_chunk *h = cw->hint;
  const uint32_t *in = (const uint32_t *)(const void *)h->dict_idx.data + cw->hint_pos;
  uint32_t *map = cw->hint_map;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t row = s + (int64_t)i;
    if (valid && !inlet_bit_get(valid, row)) continue;
    uint32_t j = in[k];
    if (j >= h->dict_n)
      return inlet_fail(err, INLET_EINTERNAL, "column \"%s\": dictionary index hint %u of %u",
                        cw->desc->path, j, h->dict_n);
    if (map[j] == 0) {
      uint32_t got = 0;
      size_t one = 0;
      TRY(pq_dict_put_binary(&cw->dict, offsets, data, NULL, row, 1, &got, &one, err));
      map[j] = got + 1;
    }
    idx[k++] = map[j] - 1;
  }
  cw->values_hinted += (int64_t)k;
  *n_out = k;
  return 0;
}

static int put_values(pq_column_writer *cw, const inlet_array *a, const void *vals,
                      const uint8_t *valid, int64_t s, int64_t n, inlet_error *err);

/* Encodes one step of rows (values already physical). */
static int put_rows(pq_column_writer *cw, const inlet_array *a, const void *vals,
                    const uint8_t *valid, int64_t s, int64_t n, inlet_error *err) {
  const pq_column_desc *d = cw->desc;
  int64_t nulls = valid ? (int64_t)n - pq_count_bits(valid, s, (size_t)n) : 0;
  if (nulls && !is_optional(cw))
    return inlet_fail(err, INLET_EINVAL, "%s: column \"%s\" is required but has nulls",
                      cw->cfg->file_name ? cw->cfg->file_name : "parquet writer", d->path);
  if (is_optional(cw)) {
    if (nulls && cw->page_nulls == 0) {
      /* First null of the page: materialise the all-valid prefix. */
      TRY(ensure_page_valid(cw, cw->page_rows + n, err));
      set_bits(cw->page_valid, 0, cw->page_rows);
    }
    if (nulls || cw->page_nulls) {
      TRY(ensure_page_valid(cw, cw->page_rows + n, err));
      if (valid)
        copy_bits(cw->page_valid, cw->page_rows, valid, s, n);
      else
        set_bits(cw->page_valid, cw->page_rows, n);
    }
  }
  cw->page_rows += n;
  cw->page_nulls += nulls;
  cw->chunk_values += n;
  cw->chunk_rows += n;
  pq_stats_count(&cw->page_stats, n, nulls);
  if (nulls == n) return 0;
  int rc = put_values(cw, a, vals, valid, s, n, err);
  cw->hint_pos += n - nulls;
  return rc;
}

/* Encodes the non-null values of one step (values already physical): into
 * the dictionary or the PLAIN page buffer, updating PLAIN statistics. */
static int put_values(pq_column_writer *cw, const inlet_array *a, const void *vals,
                      const uint8_t *valid, int64_t s, int64_t n, inlet_error *err) {
  const pq_column_desc *d = cw->desc;
  const int32_t *offsets = a->offsets;
  if (cw->use_dict) {
    TRY(ensure_idx(cw, (size_t)n, err));
    size_t k = 0;
    int rc;
    uint32_t *idx = cw->page_idx + cw->page_idx_n;
    switch (d->physical_type) {
    case PQ_INT32:
    case PQ_FLOAT: rc = pq_dict_put32(&cw->dict, vals, valid, s, (size_t)n, idx, &k, err); break;
    case PQ_INT64:
    case PQ_DOUBLE: rc = pq_dict_put64(&cw->dict, vals, valid, s, (size_t)n, idx, &k, err); break;
    case PQ_BYTE_ARRAY:
      rc = cw->hint
               ? put_binary_hinted(cw, offsets, vals, valid, s, (size_t)n, idx, &k, err)
               : pq_dict_put_binary(&cw->dict, offsets, vals, valid, s, (size_t)n, idx, &k, err);
      break;
    default: rc = pq_dict_put_fixed(&cw->dict, vals, valid, s, (size_t)n, idx, &k, err); break;
    }
    if (rc < 0) {
      inlet_error_prefix(err, "column \"%s\"", d->path);
      return rc;
    }
    cw->page_idx_n += k;
    cw->dict_in_chunk = true;
    if (!cw->dict_decided && cw->n_dict_pages_data == 0 &&
        cw->page_idx_n >= (cw->dict_probe_failed ? DICT_REPROBE_VALUES : DICT_PROBE_VALUES)) {
      cw->dict_decided = true;
      /* Nearly all distinct (more than 98%): the values repeat too rarely
       * for the dictionary to pay for itself within a chunk. */
      cw->dict_probe_failed = (uint64_t)cw->dict.count * 50 > (uint64_t)cw->page_idx_n * 49;
      if (cw->dict_probe_failed) return abandon_dict(cw, err);
    }
    if ((int64_t)pq_dict_plain_size(&cw->dict) > cw->cfg->dictionary_page_bytes) {
      /* Fallback: the pages so far keep the dictionary, the rest is PLAIN.
       * With levels the page may only end at a row boundary: the caller
       * switches after the rows it is writing. */
      if (cw->level_mode) {
        cw->dict_full = true;
      } else {
        TRY(flush_page(cw, err));
        cw->use_dict = false;
      }
    }
    return 0;
  }

  int rc = 0;
  switch (d->physical_type) {
  case PQ_BOOLEAN: rc = pq_bool_encoder_put(&cw->bool_enc, vals, valid, s, (size_t)n); break;
  case PQ_INT32:
  case PQ_FLOAT: rc = pq_plain_encode_fixed(&cw->page_plain, vals, 4, valid, s, (size_t)n); break;
  case PQ_INT64:
  case PQ_DOUBLE: rc = pq_plain_encode_fixed(&cw->page_plain, vals, 8, valid, s, (size_t)n); break;
  case PQ_BYTE_ARRAY:
    rc = pq_plain_encode_binary(&cw->page_plain, offsets, vals, valid, s, (size_t)n);
    break;
  case PQ_FIXED_LEN_BYTE_ARRAY:
    rc = pq_plain_encode_fixed(&cw->page_plain, vals, (size_t)cw->value_width, valid, s, (size_t)n);
    break;
  default:
    return inlet_fail(err, INLET_EUNSUPPORTED, "column \"%s\": cannot write %s", d->path,
                      pq_type_name(d->physical_type));
  }
  if (rc == 0) rc = page_stats_update(cw, offsets, vals, valid, s, n);
  if (rc < 0) return nomem(cw, err);
  return 0;
}

/* Rows to take in the next step: plain fixed-width pages take what fits in
 * the page at once; everything else goes in STEP_ROWS pieces. */
static int64_t next_step(const pq_column_writer *cw, const inlet_array *a, int64_t start,
                         int64_t left) {
  int64_t step = STEP_ROWS;
  if (cw->use_dict && !cw->dict_decided && cw->n_dict_pages_data == 0) {
    /* Stop at the probe point so that a useless dictionary costs only the
     * probe's worth of hashing. */
    int64_t probe = cw->dict_probe_failed ? DICT_REPROBE_VALUES : DICT_PROBE_VALUES;
    int64_t want = probe - (int64_t)cw->page_idx_n;
    if (want > 0 && want < step) step = (want + 7) & ~(int64_t)7;
  } else if (!cw->use_dict && cw->value_width > 0 && cw->desc->conv == PQ_CONV_NONE) {
    int64_t room = (cw->cfg->page_bytes - (int64_t)cw->page_plain.len) / cw->value_width;
    step = (room + 8) & ~(int64_t)7;
  } else if (!cw->use_dict && cw->desc->physical_type == PQ_BOOLEAN) {
    step = (cw->cfg->page_bytes - (int64_t)cw->page_plain.len) * 8 + 64;
  }
  if (step < 8) step = 8;
  if (step > left) step = left;
  /* Never take much more than a page of value bytes at once, so that huge
   * values cannot make one page (or one dictionary step) enormous. */
  if (cw->value_width > 0) {
    int64_t cap = cw->cfg->page_bytes / cw->value_width;
    if (cap < 1) cap = 1;
    if (step > cap) step = cap;
  } else if (cw->desc->physical_type == PQ_BYTE_ARRAY && a->offsets) {
    const int32_t *off = a->offsets + start;
    /* Room left in the page (PLAIN) or in the dictionary (dictionary mode,
     * where the values land in the dictionary). */
    int64_t budget = cw->use_dict
                         ? cw->cfg->dictionary_page_bytes - (int64_t)pq_dict_plain_size(&cw->dict)
                         : cw->cfg->page_bytes - page_estimate(cw);
    if ((int64_t)off[step] - off[0] > budget) {
      /* Largest k with off[k] - off[0] <= budget, at least one row. */
      int64_t lo = 1, hi = step;
      while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if ((int64_t)off[mid] - off[0] <= budget)
          lo = mid;
        else
          hi = mid - 1;
      }
      step = lo;
    }
  }
  return step;
}

static int write_flat(pq_column_writer *cw, const inlet_array *a, int64_t start, int64_t n,
                      inlet_error *err) {
  if (cw->level_mode)
    return inlet_fail(err, INLET_EINTERNAL, "column \"%s\" needs levels", cw->desc->path);
  int64_t done = 0;
  const int64_t max_rows = cw->cfg->page_max_rows;
  while (done < n) {
    if (cw->page_rows == 0) {
      cw->page_cut_rows = max_rows;
      cw->stretch_dict_count = cw->dict.count;
    }
    int64_t step = next_step(cw, a, start + done, n - done);
    /* Only dictionary pages run past max_rows (see below); a page whose
     * dictionary was given up meanwhile ends at max_rows again. */
    int64_t cut = cw->use_dict ? cw->page_cut_rows : max_rows;
    int64_t room = cut - cw->page_rows;
    if (max_rows > 0 && room > 0 && step > room) step = room;
    const void *vals;
    const uint8_t *valid;
    int64_t s;
    TRY(physical_values(cw, a, start + done, step, &vals, &valid, &s, err));
    TRY(put_rows(cw, a, vals, valid, s, step, err));
    done += step;
    bool full = page_estimate(cw) >= cw->cfg->page_bytes;
    cut = cw->use_dict ? cw->page_cut_rows : max_rows;
    if (!full && !(max_rows > 0 && cw->page_rows >= cut)) continue;
    if (cw->use_dict && !cw->dict_decided && cw->n_dict_pages_data == 0) {
      cw->dict_decided = true;
      if (!dict_pays_off(cw)) TRY(abandon_dict(cw, err));
    }
    if (!full && cw->cfg->page_rows_adaptive && cw->use_dict &&
        cw->dict.count == cw->stretch_dict_count) {
      /* The default row limit is there for the page index, which skips a
       * page when its values differ from its neighbours' (sorted or
       * clustered data keeps bringing new values, so the dictionary
       * grows). A stretch of rows that only repeated values the chunk's
       * dictionary already held continues the page up to the byte limit:
       * a cut there would buy little skipping, and one run of indices
       * compresses and decodes better than several (as DuckDB writes
       * them). A limit the caller set is kept exactly. */
      cw->page_cut_rows += max_rows;
      continue;
    }
    TRY(flush_page(cw, err));
  }
  return 0;
}

int pq_column_writer_write(pq_column_writer *cw, const inlet_array *a, int64_t start, int64_t n,
                           inlet_error *err) {
  return end_call(cw, write_flat(cw, a, start, n, err), err);
}

/* ---- pages copied (raw_pages.h) ---------------------------------------- */

/* A page's encoding is one this column would write itself: PLAIN unless
 * DELTA_BINARY_PACKED or BYTE_STREAM_SPLIT was asked for, and those only
 * where they were (or may be, under AUTO). */
static bool copy_encoding_ok(const pq_column_writer *cw, int32_t enc) {
  switch (enc) {
  case PQ_ENC_PLAIN: return !cw->delta && !cw->split;
  case PQ_ENC_DELTA_BINARY_PACKED: return cw->delta || cw->auto_delta;
  case PQ_ENC_BYTE_STREAM_SPLIT: return cw->split;
  default: return false;
  }
}

/* Copied pages are pages this column could have cut itself: at least half
 * its row limit or half its byte target. Small inputs (a stream's small
 * commits) are encoded together instead, into pages of many of them: their
 * own pages would be as small as they are, compress worse and cost a
 * header and a page index entry each. */
static bool page_big_enough(const pq_column_writer *cw, const pq_raw_page *p) {
  int64_t rows = cw->cfg->page_max_rows;
  return (rows > 0 && (int64_t)p->num_values >= rows / 2) ||
         (int64_t)p->uncompressed >= cw->cfg->page_bytes / 2;
}

bool pq_column_writer_can_copy(const pq_column_writer *cw, const pq_raw_chunk *raw, int64_t n) {
  const pq_column_desc *d = cw->desc;
  if (!raw || !raw->valid || cw->level_mode || raw->rows != n) return false;
  if (raw->codec != cw->cfg->codec || raw->physical_type != d->physical_type ||
      raw->type_length != d->type_length || raw->max_def_level != d->max_def_level ||
      d->max_rep_level != 0 || raw->converted_type != d->converted_type || raw->conv != d->conv ||
      raw->scale_factor != d->scale_factor)
    return false;
  for (int32_t i = 0; i < raw->n_pages; i++) {
    if (!copy_encoding_ok(cw, raw->pages[i].encoding)) return false;
    /* A chunk's last page may be short, and so may its first when pages
     * lie between (a row group cut inside a page of the file it was
     * compacted from); one page alone may not. */
    bool edge = (i == raw->n_pages - 1 && raw->n_pages > 1) || (i == 0 && raw->n_pages > 2);
    if (!edge && !page_big_enough(cw, &raw->pages[i])) return false;
  }
  return true;
}

static int copy_pages(pq_column_writer *cw, const inlet_array *a, int64_t start,
                      const pq_raw_chunk *raw, inlet_error *err) {
  /* The page being filled ends first; the rest of the chunk is PLAIN (a
   * dictionary already used keeps its pages, as after a fallback). */
  if (cw->use_dict && !cw->dict_decided && cw->n_dict_pages_data == 0 && cw->page_idx_n > 0 &&
      !dict_pays_off(cw))
    TRY(abandon_dict(cw, err));
  TRY(flush_page(cw, err));
  cw->use_dict = false;
  cw->dict_decided = true;
  int64_t row = start;
  for (int32_t i = 0; i < raw->n_pages; i++) {
    const pq_raw_page *pg = &raw->pages[i];
    int64_t n = pg->num_values;
    /* Statistics from the values the page decoded to, as if encoded. */
    if (n > 0) {
      const void *vals;
      const uint8_t *valid;
      int64_t s;
      TRY(physical_values(cw, a, row, n, &vals, &valid, &s, err));
      int64_t nulls = valid ? n - (int64_t)pq_count_bits(valid, s, (size_t)n) : 0;
      if (nulls && !is_optional(cw))
        return inlet_fail(err, INLET_EINVAL, "%s: column \"%s\" is required but has nulls",
                          cw->cfg->file_name ? cw->cfg->file_name : "parquet writer",
                          cw->desc->path);
      pq_stats_count(&cw->page_stats, n, nulls);
      if (nulls < n && page_stats_update(cw, a->offsets, vals, valid, s, n) < 0)
        return nomem(cw, err);
    }
    inlet_buf *out = &cw->chunk;
    if (inlet_buf_reserve(out, HEADER_GAP + (size_t)pg->len) < 0) return nomem(cw, err);
    size_t hdr_slot = out->len;
    out->len += HEADER_GAP;
    size_t payload_pos = out->len;
    inlet_buf_append(out, raw->bodies.data + pg->off, (size_t)pg->len);
    size_t off, len;
    TRY(page_header(cw, PQ_PAGE_DATA, (size_t)pg->uncompressed, (size_t)pg->len, pg->num_values,
                    pg->encoding, out, hdr_slot, payload_pos, &cw->chunk_uncompressed, &off, &len,
                    err));
    TRY(add_span(cw, (int64_t)off, (int64_t)len, err));
    cw->chunk_encoded += pg->uncompressed;
    cw->chunk_values += n;
    cw->chunk_rows += n;
    switch (pg->encoding) {
    case PQ_ENC_DELTA_BINARY_PACKED: cw->n_delta_pages++; break;
    case PQ_ENC_BYTE_STREAM_SPLIT: cw->n_split_pages++; break;
    default: cw->n_plain_pages++; break;
    }
    cw->pages_copied++;
    if (cw->cfg->page_index)
      TRY(pq_page_index_builder_add(&cw->pib, cw->page_first_row, (int64_t)len, &cw->page_stats,
                                    cw->cfg->statistics_truncate, is_utf8(cw->desc), err));
    if (pq_stats_merge(&cw->chunk_stats, &cw->page_stats) < 0) return nomem(cw, err);
    pq_stats_clear(&cw->page_stats);
    cw->page_first_row = cw->chunk_rows;
    row += n;
  }
  return 0;
}

int pq_column_writer_copy_pages(pq_column_writer *cw, const inlet_array *a, int64_t start,
                                const pq_raw_chunk *raw, inlet_error *err) {
  return end_call(cw, copy_pages(cw, a, start, raw, err), err);
}

bool pq_column_writer_can_hint(const pq_column_writer *cw, const pq_raw_chunk *raw,
                               const inlet_array *a, int64_t n) {
  return raw && raw->dict_valid && raw->dict_rows == n && a->length == n && !cw->level_mode &&
         cw->use_dict && cw->desc->physical_type == PQ_BYTE_ARRAY &&
         cw->desc->conv == PQ_CONV_NONE &&
         (int64_t)(raw->dict_idx.len / sizeof(uint32_t)) == n - a->null_count;
}

int pq_column_writer_write_hinted(pq_column_writer *cw, const inlet_array *a, int64_t n,
                                  const pq_raw_chunk *raw, inlet_error *err) {
  if (raw->dict_n > cw->hint_map_cap) {
    uint32_t *m = inlet_realloc(cw->hint_map, (size_t)raw->dict_n * sizeof *m);
    if (!m) return nomem(cw, err);
    cw->hint_map = m;
    cw->hint_map_cap = raw->dict_n;
  }
  if (raw->dict_n) memset(cw->hint_map, 0, (size_t)raw->dict_n * sizeof *cw->hint_map);
  cw->hint = raw;
  cw->hint_pos = 0;
  int rc = write_flat(cw, a, 0, n, err);
  cw->hint = NULL;
  return end_call(cw, rc, err);
}

static int ensure_levels(pq_column_writer *cw, int64_t more, inlet_error *err) {
  size_t need = (size_t)(cw->page_rows + more);
  if (need <= cw->levels_cap) return 0;
  size_t cap = cw->levels_cap ? cw->levels_cap : 4096;
  while (cap < need)
    cap *= 2;
  int16_t *d = inlet_realloc(cw->page_def, cap * sizeof *d);
  if (!d) return nomem(cw, err);
  cw->page_def = d;
  int16_t *r = inlet_realloc(cw->page_rep, cap * sizeof *r);
  if (!r) return nomem(cw, err);
  cw->page_rep = r;
  cw->levels_cap = cap;
  return 0;
}

static int write_levels(pq_column_writer *cw, const int16_t *def, const int16_t *rep,
                        int64_t n_levels, const inlet_array *a, int64_t start, int64_t n,
                        inlet_error *err) {
  const pq_column_desc *d = cw->desc;
  if (!cw->level_mode)
    return inlet_fail(err, INLET_EINTERNAL, "column \"%s\" takes no levels", d->path);
  if (n_levels <= 0) return 0;
  const char *fname = cw->cfg->file_name ? cw->cfg->file_name : "parquet writer";
  if (d->max_rep_level > 0 && (!rep || rep[0] != 0))
    return inlet_fail(err, INLET_EINVAL, "%s: column \"%s\": levels must start a row", fname,
                      d->path);
  int64_t present = 0;
  for (int64_t i = 0; i < n_levels; i++) {
    int16_t dl = def ? def[i] : d->max_def_level;
    int16_t rl = rep ? rep[i] : 0;
    if (dl < 0 || dl > d->max_def_level || rl < 0 || rl > d->max_rep_level)
      return inlet_fail(err, INLET_EINVAL, "%s: column \"%s\": level out of range at %lld", fname,
                        d->path, (long long)i);
    present += dl == d->max_def_level;
  }
  int64_t valid = a->validity ? pq_count_bits(a->validity, start, (size_t)n) : n;
  if (valid != present)
    return inlet_fail(err, INLET_EINVAL,
                      "%s: column \"%s\": %lld levels at the maximum but %lld values", fname,
                      d->path, (long long)present, (long long)valid);
  TRY(ensure_levels(cw, n_levels, err));
  if (def)
    memcpy(cw->page_def + cw->page_rows, def, (size_t)n_levels * sizeof *def);
  else
    for (int64_t i = 0; i < n_levels; i++)
      cw->page_def[cw->page_rows + i] = d->max_def_level;
  if (rep)
    memcpy(cw->page_rep + cw->page_rows, rep, (size_t)n_levels * sizeof *rep);
  else
    memset(cw->page_rep + cw->page_rows, 0, (size_t)n_levels * sizeof *rep);
  int64_t nulls = n_levels - present;
  cw->page_rows += n_levels;
  cw->page_nulls += nulls;
  cw->chunk_values += n_levels;
  if (rep) {
    for (int64_t i = 0; i < n_levels; i++)
      cw->chunk_rows += rep[i] == 0;
  } else {
    cw->chunk_rows += n_levels;
  }
  pq_stats_count(&cw->page_stats, n_levels, nulls);
  for (int64_t done = 0; done < n;) {
    int64_t step = n - done < STEP_ROWS ? n - done : STEP_ROWS;
    const void *vals;
    const uint8_t *vb;
    int64_t s;
    TRY(physical_values(cw, a, start + done, step, &vals, &vb, &s, err));
    int64_t k = vb ? pq_count_bits(vb, s, (size_t)step) : step;
    if (k > 0) TRY(put_values(cw, a, vals, vb, s, step, err));
    done += step;
  }
  /* The rows are complete: pages may end here. */
  if (cw->dict_full) {
    cw->dict_full = false;
    TRY(flush_page(cw, err));
    cw->use_dict = false;
  } else if (page_estimate(cw) >= cw->cfg->page_bytes) {
    if (cw->use_dict && !cw->dict_decided && cw->n_dict_pages_data == 0) {
      cw->dict_decided = true;
      if (!dict_pays_off(cw)) TRY(abandon_dict(cw, err));
    }
    TRY(flush_page(cw, err));
  }
  return 0;
}

int pq_column_writer_write_levels(pq_column_writer *cw, const int16_t *def, const int16_t *rep,
                                  int64_t n_levels, const inlet_array *a, int64_t start, int64_t n,
                                  inlet_error *err) {
  return end_call(cw, write_levels(cw, def, rep, n_levels, a, start, n, err), err);
}

static int finish_chunk(pq_column_writer *cw, inlet_error *err) {
  if (cw->use_dict && !cw->dict_decided && cw->n_dict_pages_data == 0 && cw->page_idx_n > 0) {
    cw->dict_decided = true;
    if (!dict_pays_off(cw)) TRY(abandon_dict(cw, err));
  }
  TRY(flush_page(cw, err));
  inlet_buf_clear(&cw->dict_page);
  cw->dict_page_uncompressed = 0;
  if (cw->dict_in_chunk) {
    if (cw->dict.count > INT32_MAX)
      return inlet_fail(err, INLET_ELIMIT, "column \"%s\": dictionary too large", cw->desc->path);
    inlet_buf_clear(&cw->body);
    pq_dict_write_plain(&cw->dict, &cw->body);
    if (inlet_buf_status(&cw->body) < 0) return nomem(cw, err);
    size_t off, n;
    TRY(emit_page(cw, PQ_PAGE_DICTIONARY, cw->body.data, cw->body.len, (int32_t)cw->dict.count,
                  PQ_ENC_PLAIN, &cw->dict_page, &cw->dict_page_uncompressed, &off, &n, err));
    /* One small page: close the header gap so the buffer is the page. */
    memmove(cw->dict_page.data, cw->dict_page.data + off, n);
    cw->dict_page.len = n;
  }
  if (pq_stats_merge(&cw->file_stats, &cw->chunk_stats) < 0) return nomem(cw, err);
  return 0;
}

int pq_column_writer_finish_chunk(pq_column_writer *cw, inlet_error *err) {
  int rc = end_call(cw, finish_chunk(cw, err), err);
  if (rc == 0) rc = place_pending(cw, cw->n_pending, err);
  /* The slots are let go with the chunk: what a column keeps between row
   * groups is one thread's (their buffers go to the stash, which bounds
   * what it keeps). */
  free_pending(cw);
  return rc;
}

int pq_column_writer_page_index(const pq_column_writer *cw, int64_t offset, inlet_buf *column_index,
                                bool *has_column_index, inlet_buf *offset_index,
                                bool *has_offset_index, inlet_error *err) {
  *has_column_index = *has_offset_index = false;
  if (!cw->cfg->page_index || cw->pib.n_pages == 0) return 0;
  TRY(pq_page_index_builder_serialize(&cw->pib, offset + (int64_t)cw->dict_page.len, column_index,
                                      has_column_index, offset_index, err));
  *has_offset_index = true;
  return 0;
}

int pq_column_writer_chunk_meta(pq_column_writer *cw, int64_t offset, pq_file_metadata *m,
                                pq_column_chunk *cc, inlet_error *err) {
  const pq_column_desc *d = cw->desc;
  memset(cc, 0, sizeof *cc);
  /* parquet.thrift: deprecated, "writers should set this field to 0 if no
   * ColumnMetaData has been written outside the footer". */
  cc->file_offset = 0;
  cc->has_meta_data = true;
  pq_column_meta *md = &cc->meta_data;
  md->type = d->physical_type;
  bool has_dict = cw->dict_page.len > 0;
  int32_t encs[5];
  int32_t ne = 0;
  if (has_dict || cw->n_plain_pages) encs[ne++] = PQ_ENC_PLAIN;
  encs[ne++] = PQ_ENC_RLE;
  if (cw->n_dict_pages_data) encs[ne++] = PQ_ENC_RLE_DICTIONARY;
  if (cw->n_delta_pages) encs[ne++] = PQ_ENC_DELTA_BINARY_PACKED;
  if (cw->n_split_pages) encs[ne++] = PQ_ENC_BYTE_STREAM_SPLIT;
  md->encodings = pq_meta_alloc_array(m, (size_t)ne, sizeof(int32_t), err);
  if (!md->encodings) return INLET_ENOMEM;
  memcpy(md->encodings, encs, (size_t)ne * sizeof(int32_t));
  md->n_encodings = ne;
  md->n_path = d->n_path;
  md->path_in_schema = d->path_parts;
  md->codec = cw->cfg->codec;
  md->num_values = cw->chunk_values;
  md->total_uncompressed_size = cw->chunk_uncompressed + cw->dict_page_uncompressed;
  md->total_compressed_size = pq_column_writer_chunk_size(cw);
  md->data_page_offset = offset + (int64_t)cw->dict_page.len;
  if (has_dict) {
    md->has_dictionary_page_offset = true;
    md->dictionary_page_offset = offset;
  }
  md->has_statistics = true;
  TRY(pq_stats_to_thrift(&cw->chunk_stats, cw->cfg->statistics_truncate, is_utf8(d), m,
                         &md->statistics, err));
  pq_page_encoding_stats es[5];
  int32_t nes = 0;
  if (has_dict) es[nes++] = (pq_page_encoding_stats){PQ_PAGE_DICTIONARY, PQ_ENC_PLAIN, 1};
  if (cw->n_dict_pages_data)
    es[nes++] =
        (pq_page_encoding_stats){PQ_PAGE_DATA, PQ_ENC_RLE_DICTIONARY, cw->n_dict_pages_data};
  if (cw->n_plain_pages)
    es[nes++] = (pq_page_encoding_stats){PQ_PAGE_DATA, PQ_ENC_PLAIN, cw->n_plain_pages};
  if (cw->n_delta_pages)
    es[nes++] =
        (pq_page_encoding_stats){PQ_PAGE_DATA, PQ_ENC_DELTA_BINARY_PACKED, cw->n_delta_pages};
  if (cw->n_split_pages)
    es[nes++] = (pq_page_encoding_stats){PQ_PAGE_DATA, PQ_ENC_BYTE_STREAM_SPLIT, cw->n_split_pages};
  if (nes) {
    md->encoding_stats = pq_meta_alloc_array(m, (size_t)nes, sizeof *es, err);
    if (!md->encoding_stats) return INLET_ENOMEM;
    memcpy(md->encoding_stats, es, (size_t)nes * sizeof *es);
    md->n_encoding_stats = nes;
  }

  /* Ready for the next row group. */
  inlet_buf_clear(&cw->chunk);
  inlet_buf_clear(&cw->dict_page);
  cw->n_spans = 0;
  cw->chunk_bytes = 0;
  cw->chunk_uncompressed = cw->dict_page_uncompressed = 0;
  cw->chunk_encoded = 0;
  cw->chunk_values = 0;
  cw->n_dict_pages_data = cw->n_plain_pages = cw->n_delta_pages = cw->n_split_pages = 0;
  pq_stats_clear(&cw->chunk_stats);
  pq_page_index_builder_clear(&cw->pib);
  cw->chunk_rows = cw->page_first_row = 0;
  if (cw->dict_ready) {
    pq_dict_clear(&cw->dict);
    cw->use_dict = true;
  }
  cw->dict_in_chunk = false;
  cw->dict_decided = false;
  clear_page(cw);
  return 0;
}
