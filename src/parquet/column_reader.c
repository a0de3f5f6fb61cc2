/*
 * Column chunk decoding (see column_reader.h): the page loop over one
 * column chunk and the value decoders that convert Parquet's physical
 * storage into inlet's Arrow-shaped arrays.
 *
 * Specs: parquet.thrift PageHeader / DataPageHeader / DataPageHeaderV2 /
 * DictionaryPageHeader, Encodings.md (PLAIN, PLAIN_DICTIONARY and
 * RLE_DICTIONARY, RLE/bit-packed hybrid levels, the deprecated BIT_PACKED
 * levels, RLE booleans), LogicalTypes.md (DECIMAL, FLOAT16, INT96 legacy
 * timestamps), README "Checksumming" (CRC-32 of the page as stored).
 *
 * Decoding strategy: a page stores only its non-null values, so every value
 * decoder writes them densely at the page's first row and, when the page has
 * nulls, pq_spread_* moves them to their rows in place. Dictionaries are
 * converted to the output representation once, so data pages are a plain
 * gather. Conversions are chosen once per chunk (out_kind); the loops below
 * hold no function pointers.
 */
#include "parquet/column_reader.h"

#include <stdio.h>
#include <zlib.h>

#include "batch/batch.h"
#include "codec/codec.h"
#include "parquet/delta_decode.h"
#include "parquet/encoding.h"
#include "util/util.h"

/* Bytes of slack after dictionary bytes and string output, so that short
 * values can be copied with one fixed-size 16-byte move. */
#define PAD 16

typedef enum out_kind {
  K_BOOL,       /* BOOLEAN -> bitmap */
  K_COPY,       /* identical little-endian bytes of in_width */
  K_NARROW8,    /* INT32 -> 1 byte */
  K_NARROW16,   /* INT32 -> 2 bytes */
  K_INT96,      /* INT96 -> int64 timestamp */
  K_FLOAT16,    /* FLBA(2) half -> float */
  K_DEC_I32,    /* INT32 unscaled -> decimal128 */
  K_DEC_I64,    /* INT64 unscaled -> decimal128 */
  K_DEC_FIXED,  /* FLBA big-endian -> decimal128 */
  K_DEC_BINARY, /* BYTE_ARRAY big-endian -> decimal128 */
  K_BINARY      /* BYTE_ARRAY -> offsets + bytes */
} out_kind;

typedef struct chunk_state {
  const pq_chunk_ctx *ctx;
  const pq_column_meta *cm;
  pq_column_reader *cr;
  inlet_array *out;
  out_kind kind;
  size_t in_width;  /* bytes per PLAIN value for fixed-size physical types */
  size_t out_width; /* bytes per output value; 0 for K_BOOL and K_BINARY */
  int64_t num_rows;
  int64_t rows;       /* rows of the row group read so far (decoded or skipped) */
  int64_t out_rows;   /* flat: rows in the output so far (== rows without a selection) */
  int64_t n_valid;    /* non-null rows so far (flat: in the output) */
  const int64_t *sel; /* flat, optional: row ranges [sel[2i], sel[2i+1]) to keep */
  int32_t n_sel;
  int32_t sel_i;    /* first range not yet behind the current page */
  int64_t reserved; /* flat: output rows with room */
  int32_t page_no;  /* 1-based page ordinal within the chunk, for messages */
  int16_t max_def;
  int16_t max_rep;
  int def_width;          /* bit width of definition levels */
  int rep_width;          /* bit width of repetition levels */
  bool nested;            /* levels mode: keep levels, decode values densely */
  int64_t max_page_bytes; /* sanity bound for uncompressed page sizes */
} chunk_state;

/* ---- errors --------------------------------------------------------------- */

static int cfail(const chunk_state *s, inlet_error *err, int code, const char *fmt, ...)
    INLET_PRINTF(4, 5);
static int cfail(const chunk_state *s, inlet_error *err, int code, const char *fmt, ...) {
  char msg[INLET_ERROR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (s->page_no > 0)
    return inlet_fail(err, code, "%s column \"%s\" row group %d page %d: %s", s->ctx->file,
                      s->ctx->desc->path, s->ctx->row_group, s->page_no, msg);
  return inlet_fail(err, code, "%s column \"%s\" row group %d: %s", s->ctx->file,
                    s->ctx->desc->path, s->ctx->row_group, msg);
}

/* Adds file, column, row group and page to a message from a helper. */
static int cprefix(const chunk_state *s, inlet_error *err, int rc) {
  if (!err) return rc;
  if (err->code == 0) err->code = rc;
  inlet_error_prefix(err, "%s column \"%s\" row group %d page %d", s->ctx->file, s->ctx->desc->path,
                     s->ctx->row_group, s->page_no);
  return rc;
}

#define CTRY(expr)                                                                                 \
  do {                                                                                             \
    int ctry_rc_ = (expr);                                                                         \
    if (INLET_UNLIKELY(ctry_rc_ < 0)) return cprefix(s, err, ctry_rc_);                            \
  } while (0)

/* ---- small buffers ------------------------------------------------------ */

static int grow_bytes(uint8_t **p, size_t *cap, size_t need, inlet_error *err) {
  if (need <= *cap) return 0;
  size_t ncap = *cap * 2 > need ? *cap * 2 : need;
  uint8_t *q = inlet_realloc(*p, ncap);
  if (!q) return inlet_fail(err, INLET_ENOMEM, "out of memory (%zu bytes)", ncap);
  *p = q;
  *cap = ncap;
  return 0;
}

/* Output values buffer of at least @p need bytes. */
static int out_values_reserve(inlet_array *a, int64_t need, inlet_error *err) {
  if (need <= batch_values_cap(a)) return 0;
  batch_builder *b = batch_array_builder(a, err);
  if (!b) return INLET_ENOMEM;
  size_t cap = (size_t)b->values_cap;
  uint8_t *p = a->values;
  TRY(grow_bytes(&p, &cap, (size_t)need, err));
  a->values = p;
  b->values_cap = (int64_t)cap;
  return 0;
}

void pq_column_reader_init(pq_column_reader *cr) {
  memset(cr, 0, sizeof *cr);
}

void pq_column_reader_reset(pq_column_reader *cr) {
  if (!cr) return;
  inlet_buf_reset(&cr->page);
  inlet_buf_reset(&cr->dict);
  inlet_free(cr->dict_offsets);
  inlet_free(cr->idx);
  inlet_buf_reset(&cr->plain);
  inlet_free(cr->rep_levels);
  inlet_free(cr->def_levels);
  memset(cr, 0, sizeof *cr);
}

/* ---- value conversions -------------------------------------------------- */

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  if (exp == 0) {
    /* zero or subnormal: man * 2^-24, exact in float */
    float v = (float)man * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (exp == 31)
    bits = sign | 0x7f800000u | (man << 13);
  else
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Big-endian two's complement of @p len bytes -> decimal128 little-endian.
 * Wider inputs are fine when the extra leading bytes are pure sign. */
static bool be_to_dec128(const uint8_t *src, size_t len, uint8_t out[16]) {
  if (len == 0) {
    memset(out, 0, 16);
    return true;
  }
  uint8_t sign = (src[0] & 0x80) ? 0xff : 0x00;
  if (len > 16) {
    size_t extra = len - 16;
    for (size_t i = 0; i < extra; i++)
      if (src[i] != sign) return false;
    src += extra;
    len = 16;
    if ((src[0] ^ sign) & 0x80) return false;
  }
  memset(out, sign, 16);
  for (size_t i = 0; i < len; i++)
    out[i] = src[len - 1 - i];
  return true;
}

static inline void i64_to_dec128(int64_t v, uint8_t *out) {
  memcpy(out, &v, 8);
  memset(out + 8, v < 0 ? 0xff : 0x00, 8);
}

/*
 * Legacy INT96 timestamps (8-byte nanoseconds of day, 4-byte Julian day) to
 * @p unit since the Unix epoch. The arithmetic wraps modulo 2^64 on purpose:
 * Spark computes (julian day, nanos) from microseconds with wrapping long
 * arithmetic, so wrapping back recovers its values, including those beyond
 * the int64-nanosecond range (parquet-testing int96_from_spark.md).
 */
static void int96_convert(const uint8_t *src, size_t n, inlet_time_unit unit, uint8_t *dst) {
  int64_t per_sec = unit == INLET_UNIT_SECOND  ? 1
                    : unit == INLET_UNIT_MILLI ? 1000
                    : unit == INLET_UNIT_MICRO ? 1000000
                                               : 1000000000;
  int64_t ns_per_unit = 1000000000 / per_sec;
  uint64_t per_day = (uint64_t)(86400 * per_sec);
  for (size_t i = 0; i < n; i++) {
    int64_t nanos;
    int32_t jd;
    memcpy(&nanos, src + 12 * i, 8);
    memcpy(&jd, src + 12 * i + 8, 4);
    uint64_t v =
        ((uint64_t)(int64_t)jd - UINT64_C(2440588)) * per_day + (uint64_t)(nanos / ns_per_unit);
    memcpy(dst + 8 * i, &v, 8);
  }
}

/* Takes @p nbytes from a PLAIN cursor. */
static inline const uint8_t *plain_take(pq_plain_decoder *d, size_t nbytes) {
  if (d->len - d->pos < nbytes) return NULL;
  const uint8_t *p = d->data + d->pos;
  d->pos += nbytes;
  return p;
}

/*
 * Decodes @p n PLAIN values of a fixed-size output kind into @p dst (n *
 * out_width bytes), converting as the kind says.
 */
static int plain_fixed(chunk_state *s, pq_plain_decoder *d, uint8_t *dst, size_t n,
                       inlet_error *err) {
  const uint8_t *src;
  size_t need;
  if (s->kind == K_INT96) {
    if (inlet_mul_overflow_size(n, 12, &need) || !(src = plain_take(d, need)))
      return cfail(s, err, INLET_ECORRUPT, "page holds fewer than %zu INT96 values", n);
    int96_convert(src, n, s->ctx->desc->type.unit, dst);
    return 0;
  }
  if (s->kind == K_DEC_BINARY) {
    for (size_t i = 0; i < n; i++) {
      const uint8_t *lp = plain_take(d, 4);
      if (!lp) return cfail(s, err, INLET_ECORRUPT, "PLAIN values end after %zu of %zu", i, n);
      uint32_t len;
      memcpy(&len, lp, 4);
      const uint8_t *v = plain_take(d, len);
      if (!v)
        return cfail(s, err, INLET_ECORRUPT, "byte array of %u bytes runs past the page", len);
      if (!be_to_dec128(v, len, dst + 16 * i))
        return cfail(s, err, INLET_ECORRUPT, "decimal of %u bytes does not fit 128 bits", len);
    }
    return 0;
  }
  if (inlet_mul_overflow_size(n, s->in_width, &need) || !(src = plain_take(d, need)))
    return cfail(s, err, INLET_ECORRUPT, "page holds fewer than %zu PLAIN values", n);
  switch (s->kind) {
  case K_COPY: memcpy(dst, src, need); break;
  case K_NARROW8:
    for (size_t i = 0; i < n; i++)
      dst[i] = src[4 * i];
    break;
  case K_NARROW16:
    for (size_t i = 0; i < n; i++)
      memcpy(dst + 2 * i, src + 4 * i, 2);
    break;
  case K_FLOAT16:
    for (size_t i = 0; i < n; i++) {
      uint16_t h;
      memcpy(&h, src + 2 * i, 2);
      float f = half_to_float(h);
      memcpy(dst + 4 * i, &f, 4);
    }
    break;
  case K_DEC_I32:
    for (size_t i = 0; i < n; i++) {
      int32_t v;
      memcpy(&v, src + 4 * i, 4);
      i64_to_dec128(v, dst + 16 * i);
    }
    break;
  case K_DEC_I64:
    for (size_t i = 0; i < n; i++) {
      int64_t v;
      memcpy(&v, src + 8 * i, 8);
      i64_to_dec128(v, dst + 16 * i);
    }
    break;
  case K_DEC_FIXED:
    for (size_t i = 0; i < n; i++)
      if (!be_to_dec128(src + s->in_width * i, s->in_width, dst + 16 * i))
        return cfail(s, err, INLET_ECORRUPT, "decimal of %zu bytes does not fit 128 bits",
                     s->in_width);
    break;
  default: return cfail(s, err, INLET_EINTERNAL, "bad value kind %d", (int)s->kind);
  }
  return 0;
}

/* ---- dictionary --------------------------------------------------------- */

static int read_dictionary(chunk_state *s, const pq_page_header *h, const uint8_t *data, size_t len,
                           inlet_error *err) {
  pq_column_reader *cr = s->cr;
  const pq_dictionary_page_header *dh = &h->dictionary_page_header;
  if (dh->encoding != PQ_ENC_PLAIN && dh->encoding != PQ_ENC_PLAIN_DICTIONARY)
    return cfail(s, err, INLET_EUNSUPPORTED, "dictionary page encoding %s is not supported",
                 pq_encoding_name(dh->encoding));
  if (dh->num_values < 0)
    return cfail(s, err, INLET_ECORRUPT, "dictionary has %d values", dh->num_values);
  size_t n = (size_t)dh->num_values;
  if (s->kind == K_BOOL)
    return cfail(s, err, INLET_EUNSUPPORTED, "dictionary encoding of BOOLEAN is not supported");
  /* Every PLAIN value takes at least 4 bytes (byte arrays) or in_width. */
  size_t min_bytes = (s->kind == K_BINARY || s->kind == K_DEC_BINARY) ? 4 : s->in_width;
  if (min_bytes && n > len / min_bytes)
    return cfail(s, err, INLET_ECORRUPT, "dictionary of %zu values needs more than its %zu bytes",
                 n, len);
  pq_plain_decoder d;
  pq_plain_init(&d, data, len);
  inlet_buf_clear(&cr->dict);
  if (s->kind == K_BINARY) {
    size_t cap = cr->dict_offsets_cap * sizeof(int32_t);
    uint8_t *p = (uint8_t *)cr->dict_offsets;
    TRY(grow_bytes(&p, &cap, (n + 1) * sizeof(int32_t), err));
    cr->dict_offsets = (int32_t *)(void *)p;
    cr->dict_offsets_cap = cap / sizeof(int32_t);
    cr->dict_offsets[0] = 0;
    CTRY(pq_plain_decode_binary(&d, n, cr->dict_offsets, &cr->dict, err));
    TRY(inlet_buf_reserve(&cr->dict, PAD));
  } else {
    TRY(inlet_buf_reserve(&cr->dict, n * s->out_width + PAD));
    TRY(plain_fixed(s, &d, cr->dict.data, n, err));
    cr->dict.len = n * s->out_width;
  }
  if (cr->dict.data == NULL) TRY(inlet_buf_reserve(&cr->dict, PAD));
  cr->dict_n = (uint32_t)n;
  cr->has_dict = true;
  return 0;
}

/* How far a string column's values may reach in its buffer: its capacity,
 * but offsets are int32, so never past INT32_MAX whatever the capacity. */
static int64_t string_room(const inlet_array *a) {
  int64_t cap = batch_values_cap(a);
  return cap < INT32_MAX ? cap : INT32_MAX;
}

/* Byte-array gather: out values idx[0..n) appended after row r0. One pass:
 * each index is checked and its bytes copied as it comes, the buffer grown
 * when a value would not fit (three passes, for the largest index and the
 * total size first, were a third of a dictionary column's time). */
static int gather_binary(chunk_state *s, const uint32_t *idx, size_t n, int64_t r0,
                         inlet_error *err) {
  pq_column_reader *cr = s->cr;
  inlet_array *a = s->out;
  const int32_t *doff = cr->dict_offsets;
  const uint8_t *ddata = cr->dict.data;
  const uint32_t dn = cr->dict_n;
  const int64_t base = a->offsets[r0];
  /* Room for the values if they are as long as the dictionary's average,
   * up to 64 bytes each and 64 MiB in all: a few long entries, or a page
   * claiming many rows, must not reserve what the rows may not use (longer
   * values grow the buffer as they come). */
  int64_t avg = dn ? doff[dn] / (int64_t)dn : 0;
  int64_t guess = (int64_t)n * (avg < 64 ? avg : 64);
  if (guess > ((int64_t)64 << 20)) guess = (int64_t)64 << 20;
  TRY(out_values_reserve(a, base + guess + PAD, err));
  uint8_t *out = a->values;
  int64_t room = string_room(a);
  int32_t *o = a->offsets + r0 + 1;
  int64_t cur = base;
  for (size_t i = 0; i < n; i++) {
    const uint32_t j = idx[i];
    if (INLET_UNLIKELY(j >= dn))
      return cfail(s, err, INLET_ECORRUPT, "dictionary index %u out of range (%u entries)", j, dn);
    const int32_t start = doff[j], len = doff[j + 1] - start;
    if (INLET_UNLIKELY(cur + len + PAD > room)) {
      if (cur + len > INT32_MAX)
        return cfail(s, err, INLET_ELIMIT, "string data of the row group exceeds 2 GiB");
      if (cur + len + PAD > batch_values_cap(a)) {
        TRY(out_values_reserve(a, cur + len + PAD, err)); /* at least doubles */
        out = a->values;
      }
      room = string_room(a);
    }
    if (len <= PAD)
      memcpy(out + cur, ddata + start, PAD); /* padding makes this safe */
    else
      memcpy(out + cur, ddata + start, (size_t)len);
    cur += len;
    o[i] = (int32_t)cur;
  }
  return 0;
}

/* ---- values --------------------------------------------------------------- */

/* Decodes @p n non-null values of a page, densely from row @p r0. */
static int decode_values(chunk_state *s, int32_t encoding, const uint8_t *data, size_t len,
                         int64_t r0, size_t n, inlet_error *err) {
  inlet_array *a = s->out;
  pq_column_reader *cr = s->cr;
  if (n == 0) return 0;
  switch (encoding) {
  case PQ_ENC_PLAIN: {
    pq_plain_decoder d;
    pq_plain_init(&d, data, len);
    if (s->kind == K_BOOL) {
      CTRY(pq_plain_decode_bool(&d, a->values, r0, n, err));
    } else if (s->kind == K_BINARY) {
      /* The strings of a page take fewer bytes than the page. */
      int64_t base = a->offsets[r0];
      if (base + (int64_t)len > INT32_MAX)
        return cfail(s, err, INLET_ELIMIT, "string data of the row group exceeds 2 GiB");
      TRY(out_values_reserve(a, base + (int64_t)len + PAD, err));
      CTRY(pq_plain_decode_binary_raw(&d, n, a->offsets + r0, a->values,
                                      (size_t)batch_values_cap(a), err));
    } else {
      TRY(plain_fixed(s, &d, a->values + (size_t)r0 * s->out_width, n, err));
    }
    return 0;
  }
  case PQ_ENC_PLAIN_DICTIONARY:
  case PQ_ENC_RLE_DICTIONARY: {
    if (!cr->has_dict)
      return cfail(s, err, INLET_ECORRUPT, "dictionary-encoded page but no dictionary page");
    pq_rle_decoder rd;
    CTRY(pq_rle_init_dict(&rd, data, len, err));
    if (s->kind == K_BINARY) {
      if (n > cr->idx_cap) {
        size_t cap = cr->idx_cap * sizeof(uint32_t);
        uint8_t *p = (uint8_t *)cr->idx;
        TRY(grow_bytes(&p, &cap, n * sizeof(uint32_t), err));
        cr->idx = (uint32_t *)(void *)p;
        cr->idx_cap = cap / sizeof(uint32_t);
      }
      CTRY(pq_rle_get_u32(&rd, cr->idx, n, err));
      TRY(gather_binary(s, cr->idx, n, r0, err));
      if (s->ctx->dict_idx && inlet_buf_append(s->ctx->dict_idx, cr->idx, n * sizeof *cr->idx) < 0)
        return cfail(s, err, INLET_ENOMEM, "out of memory keeping dictionary indices");
      return 0;
    }
    if (s->kind == K_BOOL)
      return cfail(s, err, INLET_EUNSUPPORTED, "dictionary encoding of BOOLEAN is not supported");
    CTRY(pq_rle_dict_fixed(&rd, a->values + (size_t)r0 * s->out_width, cr->dict.data, cr->dict_n,
                           s->out_width, n, err));
    return 0;
  }
  case PQ_ENC_RLE: {
    if (s->kind != K_BOOL)
      return cfail(s, err, INLET_ECORRUPT, "RLE encoding on a %s column",
                   pq_type_name(s->ctx->desc->physical_type));
    pq_rle_decoder rd;
    size_t used;
    int64_t ones = 0;
    CTRY(pq_rle_init_levels_v1(&rd, data, len, 1, &used, err));
    CTRY(pq_rle_get_validity(&rd, a->values, r0, n, 1, &ones, err));
    return 0;
  }
  /* The newer encodings are transcoded to PLAIN, then decoded as such. */
  case PQ_ENC_DELTA_BINARY_PACKED: {
    pq_type t = s->ctx->desc->physical_type;
    if (t != PQ_INT32 && t != PQ_INT64) goto wrong_type;
    CTRY(pq_delta_to_plain(data, len, n, s->in_width, &cr->plain, err));
    break;
  }
  case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
    if (s->ctx->desc->physical_type != PQ_BYTE_ARRAY) goto wrong_type;
    CTRY(pq_delta_length_to_plain(data, len, n, &cr->plain, err));
    break;
  case PQ_ENC_DELTA_BYTE_ARRAY: {
    pq_type t = s->ctx->desc->physical_type;
    if (t != PQ_BYTE_ARRAY && t != PQ_FIXED_LEN_BYTE_ARRAY) goto wrong_type;
    CTRY(pq_delta_byte_array_to_plain(data, len, n, t == PQ_BYTE_ARRAY ? 0 : s->in_width,
                                      &cr->plain, err));
    break;
  }
  case PQ_ENC_BYTE_STREAM_SPLIT: {
    pq_type t = s->ctx->desc->physical_type;
    if (t == PQ_BOOLEAN || t == PQ_BYTE_ARRAY || t == PQ_INT96) goto wrong_type;
    CTRY(pq_byte_stream_split_to_plain(data, len, n, s->in_width, &cr->plain, err));
    break;
  }
  default: return cfail(s, err, INLET_EUNSUPPORTED, "unknown encoding %d", encoding);
  }
  return decode_values(s, PQ_ENC_PLAIN, cr->plain.data, cr->plain.len, r0, n, err);
wrong_type:
  return cfail(s, err, INLET_ECORRUPT, "encoding %s on a %s column", pq_encoding_name(encoding),
               pq_type_name(s->ctx->desc->physical_type));
}

/* Moves the n_valid dense values of rows [r0, r0 + n) to their rows. */
static void spread(chunk_state *s, int64_t r0, size_t n, size_t n_valid) {
  inlet_array *a = s->out;
  switch (s->kind) {
  case K_BOOL: pq_spread_bits(a->values, r0, a->validity, r0, n, n_valid); break;
  case K_BINARY: pq_spread_offsets(a->offsets + r0, a->validity, r0, n, n_valid); break;
  default:
    pq_spread_fixed(a->values + (size_t)r0 * s->out_width, s->out_width, a->validity, r0, n,
                    n_valid);
  }
}

/* ---- output room (flat columns) ------------------------------------------- */

/* Room in the output for @p rows rows, keeping what was decoded; validity
 * and boolean bits past what was reserved before (all of them when
 * @p first) are cleared. */
static int out_reserve(chunk_state *s, int64_t rows, bool first, inlet_error *err) {
  inlet_array *out = s->out;
  if (!first && rows <= s->reserved) return 0;
  /* The values buffer first, with its padding: reserving rows alone would
   * zero a buffer the decoders overwrite (null slots included, by spread),
   * and the padding then reallocate it, copying it. */
  if (s->kind != K_BOOL && s->kind != K_BINARY)
    TRY(out_values_reserve(out, rows * (int64_t)s->out_width + PAD, err));
  TRY(inlet_array_reserve_rows(out, s->ctx->desc->field, rows, err));
  size_t old_bits = first ? 0 : (size_t)(s->reserved + 7) / 8 + 1;
  size_t bits = (size_t)(rows + 7) / 8 + 1;
  if (s->kind == K_BOOL) {
    TRY(out_values_reserve(out, (int64_t)bits, err));
    memset(out->values + old_bits, 0, bits - old_bits);
  } else if (s->kind == K_BINARY) {
    TRY(out_values_reserve(out, PAD, err));
  } else {
    TRY(out_values_reserve(out, rows * (int64_t)s->out_width + PAD, err));
  }
  if (s->max_def > 0) {
    batch_builder *b = batch_array_builder(out, err);
    if (!b) return INLET_ENOMEM;
    size_t cap = (size_t)b->validity_cap;
    uint8_t *p = out->validity;
    TRY(grow_bytes(&p, &cap, bits, err));
    out->validity = p;
    b->validity_cap = (int64_t)cap;
    memset(out->validity + old_bits, 0, bits - old_bits);
  }
  s->reserved = rows;
  return 0;
}

/* Room for a selected page of @p nv rows, decoded whole before trimming. */
static int sel_room(chunk_state *s, int64_t nv, inlet_error *err) {
  int64_t need = s->out_rows + nv;
  if (!s->sel || need <= s->reserved) return 0;
  int64_t rows = s->reserved * 2 > need ? s->reserved * 2 : need;
  if (rows > s->num_rows) rows = s->num_rows;
  return out_reserve(s, rows, false, err);
}

/* ---- row selection (flat columns) ---------------------------------------- */

/* Whether rows [p0, p0 + n) of the row group meet the selection; pages come
 * in row order, so ranges behind p0 are passed for good. */
static bool sel_overlaps(chunk_state *s, int64_t p0, int64_t n) {
  while (s->sel_i < s->n_sel && s->sel[2 * s->sel_i + 1] <= p0)
    s->sel_i++;
  return s->sel_i < s->n_sel && s->sel[2 * s->sel_i] < p0 + n;
}

static void clear_bits(uint8_t *bits, int64_t from, int64_t to) {
  for (; from < to && (from & 7); from++)
    inlet_bit_set(bits, from, false);
  if (from >= to) return;
  int64_t whole = (to - from) >> 3;
  memset(bits + (from >> 3), 0, (size_t)whole);
  for (from += whole << 3; from < to; from++)
    inlet_bit_set(bits, from, false);
}

/* Moves output rows [src, src + n) down to row dst (dst <= src). */
static void move_rows(chunk_state *s, int64_t dst, int64_t src, int64_t n) {
  inlet_array *a = s->out;
  if (dst == src || n == 0) return;
  if (s->max_def > 0) inlet_bits_move_down(a->validity, dst, src, n);
  switch (s->kind) {
  case K_BOOL: inlet_bits_move_down(a->values, dst, src, n); break;
  case K_BINARY: {
    int32_t *o = a->offsets;
    int32_t start = o[src], base = o[dst];
    memmove(a->values + base, a->values + start, (size_t)(o[src + n] - start));
    for (int64_t i = 1; i <= n; i++)
      o[dst + i] = base + (o[src + i] - start);
    break;
  }
  default:
    memmove(a->values + (size_t)dst * s->out_width, a->values + (size_t)src * s->out_width,
            (size_t)n * s->out_width);
  }
}

/* A flat page of @p nv rows was decoded into output rows [r0, r0 + nv)
 * with @p n_valid non-null values: keeps the selected rows (moving them
 * together) and advances the counters. */
static void page_done(chunk_state *s, int64_t r0, int64_t nv, int64_t n_valid) {
  if (!s->sel) {
    s->rows += nv;
    s->out_rows += nv;
    s->n_valid += n_valid;
    return;
  }
  int64_t p0 = s->rows, dst = r0;
  for (int32_t i = s->sel_i; i < s->n_sel; i++) {
    int64_t a = s->sel[2 * i], b = s->sel[2 * i + 1];
    if (a >= p0 + nv) break;
    if (b <= p0) continue;
    int64_t lo = a > p0 ? a : p0, hi = b < p0 + nv ? b : p0 + nv;
    move_rows(s, dst, r0 + (lo - p0), hi - lo);
    dst += hi - lo;
  }
  int64_t kept = dst - r0;
  inlet_array *a = s->out;
  if (s->max_def > 0) clear_bits(a->validity, dst, r0 + nv);
  if (s->kind == K_BOOL) clear_bits(a->values, dst, r0 + nv);
  s->rows += nv;
  s->out_rows += kept;
  s->n_valid += s->max_def > 0 ? pq_count_bits(a->validity, r0, (size_t)kept) : kept;
}

/* ---- levels ----------------------------------------------------------------- */

/* The deprecated BIT_PACKED level encoding: MSB-first, no length prefix. */
static int levels_bit_packed(chunk_state *s, const uint8_t *p, size_t len, size_t n, int64_t r0,
                             size_t *used, int64_t *n_valid, inlet_error *err) {
  int w = s->def_width;
  size_t nbytes = (n * (size_t)w + 7) / 8;
  if (nbytes > len)
    return cfail(s, err, INLET_ECORRUPT, "BIT_PACKED levels need %zu bytes, page has %zu", nbytes,
                 len);
  int64_t valid = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t v = 0;
    for (int b = 0; b < w; b++) {
      size_t bit = i * (size_t)w + (size_t)b;
      v = (v << 1) | ((p[bit >> 3] >> (7 - (bit & 7))) & 1u);
    }
    if (v > (uint32_t)s->max_def)
      return cfail(s, err, INLET_ECORRUPT, "definition level %u exceeds the maximum %d", v,
                   s->max_def);
    bool ok = v == (uint32_t)s->max_def;
    inlet_bit_set(s->out->validity, r0 + (int64_t)i, ok);
    valid += ok;
  }
  *used = nbytes;
  *n_valid = valid;
  return 0;
}

/* ---- pages ------------------------------------------------------------------ */

/* Uncompressed bytes of a page body: the body itself or cr->page. */
static int page_bytes(chunk_state *s, const uint8_t *src, size_t src_len, int64_t size,
                      bool compressed, const uint8_t **out, inlet_error *err) {
  if (size < 0)
    return cfail(s, err, INLET_ECORRUPT, "negative uncompressed page size %lld", (long long)size);
  if (!compressed || s->cm->codec == PQ_CODEC_UNCOMPRESSED) {
    if ((size_t)size != src_len)
      return cfail(s, err, INLET_ECORRUPT, "uncompressed page of %zu bytes says its size is %lld",
                   src_len, (long long)size);
    *out = src;
    return 0;
  }
  if (size > s->max_page_bytes)
    return cfail(s, err, INLET_ECORRUPT,
                 "uncompressed page size %lld exceeds the column chunk's %lld bytes",
                 (long long)size, (long long)s->max_page_bytes);
  /* Codecs with a bounded expansion cannot inflate a page past it, so a
   * hostile size claim costs no allocation (snappy: ~21x, LZ4: ~255x,
   * deflate: ~1032x; ZSTD and BROTLI have no useful bound). */
  int64_t ratio = 0;
  switch (s->cm->codec) {
  case PQ_CODEC_SNAPPY: ratio = 32; break;
  case PQ_CODEC_LZ4:
  case PQ_CODEC_LZ4_RAW: ratio = 300; break;
  case PQ_CODEC_GZIP: ratio = 1100; break;
  default: break;
  }
  if (ratio && size > (int64_t)src_len * ratio + 1024)
    return cfail(s, err, INLET_ECORRUPT,
                 "page of %zu %s bytes cannot inflate to the %lld bytes its header claims", src_len,
                 inlet_codec_name(s->cm->codec), (long long)size);
  inlet_buf_clear(&s->cr->page);
  TRY(inlet_buf_reserve(&s->cr->page, (size_t)size + PAD));
  if (size == 0) {
    *out = s->cr->page.data;
    return 0;
  }
  int rc = inlet_decompress(s->cm->codec, src, src_len, s->cr->page.data, (size_t)size, err);
  if (rc < 0) return cprefix(s, err, rc);
  *out = s->cr->page.data;
  return 0;
}

static int rows_left_check(chunk_state *s, int64_t nv, inlet_error *err) {
  if (nv > s->num_rows - s->rows)
    return cfail(s, err, INLET_ECORRUPT,
                 "page has %lld values but only %lld of the row group's %lld rows are left",
                 (long long)nv, (long long)(s->num_rows - s->rows), (long long)s->num_rows);
  return 0;
}

/* ---- nested (levels mode) --------------------------------------------------- */

static int grow_levels(chunk_state *s, size_t extra, inlet_error *err) {
  pq_column_reader *cr = s->cr;
  /* The chunk's num_values counts its levels: no page may claim more. */
  if ((int64_t)extra > s->cm->num_values - (int64_t)cr->n_levels)
    return cfail(s, err, INLET_ECORRUPT,
                 "page has %zu levels but the column chunk has %lld in all (%zu read)", extra,
                 (long long)s->cm->num_values, cr->n_levels);
  size_t need = cr->n_levels + extra + 1; /* never NULL, even for empty pages */
  if (need <= cr->levels_cap) return 0;
  size_t cap = cr->levels_cap * 2 > need ? cr->levels_cap * 2 : need;
  int16_t *r = inlet_realloc(cr->rep_levels, cap * sizeof *r);
  if (!r) return inlet_fail(err, INLET_ENOMEM, "out of memory for %zu levels", cap);
  cr->rep_levels = r;
  int16_t *d = inlet_realloc(cr->def_levels, cap * sizeof *d);
  if (!d) return inlet_fail(err, INLET_ENOMEM, "out of memory for %zu levels", cap);
  cr->def_levels = d;
  cr->levels_cap = cap;
  return 0;
}

/* Room for @p total dense values in the output. */
static int dense_reserve(chunk_state *s, int64_t total, inlet_error *err) {
  inlet_array *a = s->out;
  if (total > INT32_MAX)
    return cfail(s, err, INLET_ELIMIT, "more than %d values in one column chunk", INT32_MAX);
  switch (s->kind) {
  case K_BOOL: {
    int64_t old = batch_values_cap(a), need = (total + 7) / 8 + 1;
    TRY(out_values_reserve(a, need, err));
    int64_t cap = batch_values_cap(a);
    if (cap > old) memset(a->values + old, 0, (size_t)(cap - old));
    return 0;
  }
  case K_BINARY: return inlet_array_reserve_rows(a, s->ctx->desc->field, total, err);
  default: return out_values_reserve(a, total * (int64_t)s->out_width + PAD, err);
  }
}

/* Counts the records (rep level 0) and non-null values of @p nv new levels
 * at cr->n_levels, checks them, and decodes the page's values densely. */
static int nested_values(chunk_state *s, int32_t encoding, const uint8_t *p, size_t left,
                         int64_t nv, int64_t *n_valid_out, inlet_error *err) {
  pq_column_reader *cr = s->cr;
  const int16_t *rl = cr->rep_levels + cr->n_levels, *dl = cr->def_levels + cr->n_levels;
  int64_t rows = 0, valid = 0;
  for (int64_t j = 0; j < nv; j++) {
    rows += rl[j] == 0;
    valid += dl[j] == s->max_def;
  }
  if (nv > 0 && cr->n_levels == 0 && rl[0] != 0)
    return cfail(s, err, INLET_ECORRUPT, "the first repetition level is %d, not 0", rl[0]);
  if (rows > s->num_rows - s->rows)
    return cfail(s, err, INLET_ECORRUPT,
                 "page starts %lld records but only %lld of the row group's %lld are left",
                 (long long)rows, (long long)(s->num_rows - s->rows), (long long)s->num_rows);
  TRY(dense_reserve(s, s->n_valid + valid, err));
  TRY(decode_values(s, encoding, p, left, s->n_valid, (size_t)valid, err));
  s->rows += rows;
  s->n_valid += valid;
  cr->n_levels += (size_t)nv;
  *n_valid_out = valid;
  return 0;
}

static int data_page_v1_nested(chunk_state *s, const pq_page_header *h, const uint8_t *p,
                               size_t left, inlet_error *err) {
  const pq_data_page_header *dh = &h->data_page_header;
  int64_t nv = dh->num_values, n_valid;
  pq_column_reader *cr = s->cr;
  TRY(grow_levels(s, (size_t)nv, err));
  int16_t *rl = cr->rep_levels + cr->n_levels, *dl = cr->def_levels + cr->n_levels;
  pq_rle_decoder rd;
  size_t used;
  if (s->max_rep > 0) {
    if (dh->repetition_level_encoding != PQ_ENC_RLE)
      return cfail(s, err, INLET_EUNSUPPORTED, "repetition level encoding %s is not supported",
                   pq_encoding_name(dh->repetition_level_encoding));
    CTRY(pq_rle_init_levels_v1(&rd, p, left, s->rep_width, &used, err));
    CTRY(pq_rle_get_i16(&rd, rl, (size_t)nv, (uint32_t)s->max_rep, err));
    p += used;
    left -= used;
  } else {
    memset(rl, 0, (size_t)nv * sizeof *rl);
  }
  if (s->max_def > 0) {
    if (dh->definition_level_encoding != PQ_ENC_RLE)
      return cfail(s, err, INLET_EUNSUPPORTED, "definition level encoding %s is not supported",
                   pq_encoding_name(dh->definition_level_encoding));
    CTRY(pq_rle_init_levels_v1(&rd, p, left, s->def_width, &used, err));
    CTRY(pq_rle_get_i16(&rd, dl, (size_t)nv, (uint32_t)s->max_def, err));
    p += used;
    left -= used;
  } else {
    memset(dl, 0, (size_t)nv * sizeof *dl);
  }
  return nested_values(s, dh->encoding, p, left, nv, &n_valid, err);
}

static int data_page_v1(chunk_state *s, const pq_page_header *h, const uint8_t *body,
                        size_t body_len, inlet_error *err) {
  const pq_data_page_header *dh = &h->data_page_header;
  int64_t nv = dh->num_values;
  if (nv < 0) return cfail(s, err, INLET_ECORRUPT, "page has %lld values", (long long)nv);
  if (s->nested) {
    const uint8_t *np;
    TRY(page_bytes(s, body, body_len, h->uncompressed_page_size, true, &np, err));
    return data_page_v1_nested(s, h, np, (size_t)h->uncompressed_page_size, err);
  }
  TRY(rows_left_check(s, nv, err));
  if (s->sel && !sel_overlaps(s, s->rows, nv)) {
    s->rows += nv; /* not selected: not even inflated */
    return 0;
  }
  TRY(sel_room(s, nv, err));
  if (s->max_def == 0 && dh->encoding == PQ_ENC_PLAIN && s->kind == K_COPY &&
      s->cm->codec != PQ_CODEC_UNCOMPRESSED &&
      (int64_t)h->uncompressed_page_size == nv * (int64_t)s->in_width) {
    /* A required fixed-width PLAIN page is nothing but the values: inflate
     * it straight into the output. */
    if (nv > 0) {
      int rc = inlet_decompress(s->cm->codec, body, body_len,
                                s->out->values + (size_t)s->out_rows * s->out_width,
                                (size_t)h->uncompressed_page_size, err);
      if (rc < 0) return cprefix(s, err, rc);
    }
    page_done(s, s->out_rows, nv, nv);
    return 0;
  }
  const uint8_t *p;
  TRY(page_bytes(s, body, body_len, h->uncompressed_page_size, true, &p, err));
  size_t left = (size_t)h->uncompressed_page_size;
  int64_t r0 = s->out_rows, n_valid = nv;
  if (s->max_def > 0) {
    size_t used = 0;
    n_valid = 0;
    if (dh->definition_level_encoding == PQ_ENC_RLE) {
      pq_rle_decoder rd;
      CTRY(pq_rle_init_levels_v1(&rd, p, left, s->def_width, &used, err));
      CTRY(pq_rle_get_validity(&rd, s->out->validity, r0, (size_t)nv, (uint32_t)s->max_def,
                               &n_valid, err));
    } else if (dh->definition_level_encoding == PQ_ENC_BIT_PACKED) {
      TRY(levels_bit_packed(s, p, left, (size_t)nv, r0, &used, &n_valid, err));
    } else {
      return cfail(s, err, INLET_EUNSUPPORTED, "definition level encoding %s is not supported",
                   pq_encoding_name(dh->definition_level_encoding));
    }
    p += used;
    left -= used;
  }
  TRY(decode_values(s, dh->encoding, p, left, r0, (size_t)n_valid, err));
  if (n_valid < nv) spread(s, r0, (size_t)nv, (size_t)n_valid);
  page_done(s, r0, nv, n_valid);
  return 0;
}

static int data_page_v2_nested(chunk_state *s, const pq_page_header *h, const uint8_t *body,
                               size_t body_len, inlet_error *err) {
  const pq_data_page_header_v2 *dh = &h->data_page_header_v2;
  int64_t nv = dh->num_values, rl = dh->repetition_levels_byte_length,
          dl = dh->definition_levels_byte_length, n_valid;
  if (nv < 0 || rl < 0 || dl < 0 || rl + dl > (int64_t)body_len ||
      rl + dl > (int64_t)h->uncompressed_page_size)
    return cfail(s, err, INLET_ECORRUPT, "level lengths %lld + %lld exceed the page size",
                 (long long)rl, (long long)dl);
  pq_column_reader *cr = s->cr;
  TRY(grow_levels(s, (size_t)nv, err));
  int16_t *rls = cr->rep_levels + cr->n_levels, *dls = cr->def_levels + cr->n_levels;
  pq_rle_decoder rd;
  if (s->max_rep > 0) {
    CTRY(pq_rle_init(&rd, body, (size_t)rl, s->rep_width, err));
    CTRY(pq_rle_get_i16(&rd, rls, (size_t)nv, (uint32_t)s->max_rep, err));
  } else {
    memset(rls, 0, (size_t)nv * sizeof *rls);
  }
  if (s->max_def > 0) {
    CTRY(pq_rle_init(&rd, body + rl, (size_t)dl, s->def_width, err));
    CTRY(pq_rle_get_i16(&rd, dls, (size_t)nv, (uint32_t)s->max_def, err));
  } else {
    memset(dls, 0, (size_t)nv * sizeof *dls);
  }
  int64_t rows = 0, valid = 0;
  for (int64_t j = 0; j < nv; j++) {
    rows += rls[j] == 0;
    valid += dls[j] == s->max_def;
  }
  if (rows != dh->num_rows || nv - valid != dh->num_nulls)
    return cfail(s, err, INLET_ECORRUPT,
                 "page v2 header says %d rows and %d nulls, its levels %lld and %lld", dh->num_rows,
                 dh->num_nulls, (long long)rows, (long long)(nv - valid));
  const uint8_t *p;
  int64_t vsize = (int64_t)h->uncompressed_page_size - rl - dl;
  TRY(page_bytes(s, body + rl + dl, body_len - (size_t)(rl + dl), vsize, dh->is_compressed, &p,
                 err));
  return nested_values(s, dh->encoding, p, (size_t)vsize, nv, &n_valid, err);
}

static int data_page_v2(chunk_state *s, const pq_page_header *h, const uint8_t *body,
                        size_t body_len, inlet_error *err) {
  const pq_data_page_header_v2 *dh = &h->data_page_header_v2;
  int64_t nv = dh->num_values;
  if (s->nested) return data_page_v2_nested(s, h, body, body_len, err);
  if (nv < 0 || dh->num_rows != dh->num_values)
    return cfail(s, err, INLET_ECORRUPT, "page v2 of a flat column has %d values for %d rows",
                 dh->num_values, dh->num_rows);
  TRY(rows_left_check(s, nv, err));
  int64_t rl = dh->repetition_levels_byte_length, dl = dh->definition_levels_byte_length;
  if (rl < 0 || dl < 0 || rl + dl > (int64_t)body_len ||
      rl + dl > (int64_t)h->uncompressed_page_size)
    return cfail(s, err, INLET_ECORRUPT, "level lengths %lld + %lld exceed the page size",
                 (long long)rl, (long long)dl);
  if (s->sel && !sel_overlaps(s, s->rows, nv)) {
    s->rows += nv;
    return 0;
  }
  TRY(sel_room(s, nv, err));
  int64_t r0 = s->out_rows, n_valid = nv;
  if (s->max_def > 0) {
    pq_rle_decoder rd;
    n_valid = 0;
    CTRY(pq_rle_init(&rd, body + rl, (size_t)dl, s->def_width, err));
    CTRY(pq_rle_get_validity(&rd, s->out->validity, r0, (size_t)nv, (uint32_t)s->max_def, &n_valid,
                             err));
  }
  if (nv - n_valid != dh->num_nulls)
    return cfail(s, err, INLET_ECORRUPT, "page v2 says %d nulls, its levels say %lld",
                 dh->num_nulls, (long long)(nv - n_valid));
  const uint8_t *p;
  int64_t vsize = (int64_t)h->uncompressed_page_size - rl - dl;
  TRY(page_bytes(s, body + rl + dl, body_len - (size_t)(rl + dl), vsize, dh->is_compressed, &p,
                 err));
  TRY(decode_values(s, dh->encoding, p, (size_t)vsize, r0, (size_t)n_valid, err));
  if (n_valid < nv) spread(s, r0, (size_t)nv, (size_t)n_valid);
  page_done(s, r0, nv, n_valid);
  return 0;
}

/* ---- chunk ------------------------------------------------------------------ */

static int choose_kind(chunk_state *s, inlet_error *err) {
  const pq_column_desc *d = s->ctx->desc;
  int32_t ow = inlet_type_value_width(&d->type);
  s->out_width = ow > 0 ? (size_t)ow : 0;
  int32_t iw = pq_plain_value_width(d);
  s->in_width = iw > 0 ? (size_t)iw : 0;
  switch (d->conv) {
  case PQ_CONV_NONE:
    if (d->physical_type == PQ_BOOLEAN)
      s->kind = K_BOOL;
    else if (d->physical_type == PQ_BYTE_ARRAY)
      s->kind = K_BINARY;
    else if (d->physical_type == PQ_INT96)
      s->kind = K_INT96;
    else
      s->kind = K_COPY;
    break;
  case PQ_CONV_INT_NARROW: s->kind = s->out_width == 1 ? K_NARROW8 : K_NARROW16; break;
  case PQ_CONV_INT96: s->kind = K_INT96; break;
  case PQ_CONV_FLOAT16: s->kind = K_FLOAT16; break;
  case PQ_CONV_DECIMAL:
    switch (d->physical_type) {
    case PQ_INT32: s->kind = K_DEC_I32; break;
    case PQ_INT64: s->kind = K_DEC_I64; break;
    case PQ_FIXED_LEN_BYTE_ARRAY: s->kind = K_DEC_FIXED; break;
    case PQ_BYTE_ARRAY: s->kind = K_DEC_BINARY; break;
    default: goto bad;
    }
    break;
  default: goto bad;
  }
  /* The physical and output widths must agree with the kind. */
  switch (s->kind) {
  case K_BOOL:
    if (d->type.id == INLET_TYPE_BOOL) return 0;
    goto bad;
  case K_BINARY:
    if (d->type.id == INLET_TYPE_STRING || d->type.id == INLET_TYPE_BINARY) return 0;
    goto bad;
  case K_COPY:
    if (s->in_width == s->out_width && s->in_width > 0) return 0;
    goto bad;
  case K_NARROW8:
  case K_NARROW16:
    if (d->physical_type == PQ_INT32) return 0;
    goto bad;
  case K_INT96:
    if (d->physical_type == PQ_INT96 && s->out_width == 8) return 0;
    goto bad;
  case K_FLOAT16:
    if (s->in_width == 2 && s->out_width == 4) return 0;
    goto bad;
  default:
    if (s->out_width == 16) return 0;
    goto bad;
  }
bad:
  return cfail(s, err, INLET_EUNSUPPORTED, "cannot read physical type %s as this column's type",
               pq_type_name(d->physical_type));
}

static int chunk_setup(chunk_state *s, pq_column_reader *cr, const pq_chunk_ctx *ctx,
                       const pq_column_meta *cm, int64_t num_rows, inlet_array *out,
                       inlet_error *err) {
  s->ctx = ctx;
  s->cm = cm;
  s->cr = cr;
  s->out = out;
  s->num_rows = num_rows;
  s->max_def = ctx->desc->max_def_level;
  s->max_rep = ctx->desc->max_rep_level;
  s->def_width = pq_bit_width((uint64_t)(s->max_def > 0 ? s->max_def : 0));
  s->rep_width = pq_bit_width((uint64_t)(s->max_rep > 0 ? s->max_rep : 0));
  if (num_rows < 0 || num_rows > INT32_MAX)
    return cfail(s, err, INLET_ELIMIT, "row group of %lld rows exceeds the %d-row limit",
                 (long long)num_rows, INT32_MAX);
  TRY(choose_kind(s, err));
  /* Byte arrays end up behind int32 offsets: a chunk that inflates past
   * 2 GiB cannot fit (checked here, before inflating gigabytes). */
  if ((s->kind == K_BINARY) && cm->total_uncompressed_size > INT32_MAX)
    return cfail(s, err, INLET_ELIMIT,
                 "column chunk inflates to %lld bytes; string data over 2 GiB per row group "
                 "is not supported",
                 (long long)cm->total_uncompressed_size);
  /* A page never decompresses to more than the chunk's stated total; a
   * small floor tolerates writers that under-report tiny chunks. */
  s->max_page_bytes =
      cm->total_uncompressed_size > (1 << 20) ? cm->total_uncompressed_size : (1 << 20);
  cr->has_dict = false;
  cr->dict_n = 0;
  return 0;
}

/* Decodes the pages in chunk[0..chunk_len); bytes past @p declared (the
 * PARQUET-816 slack) are read only while values are still missing. */
static int walk_pages(chunk_state *s, const uint8_t *chunk, size_t chunk_len, size_t declared,
                      bool *seen_data_io, inlet_error *err) {
  const pq_chunk_ctx *ctx = s->ctx;
  pq_column_reader *cr = s->cr;
  size_t pos = 0;
  bool seen_data = *seen_data_io;
  while (pos < declared || (pos < chunk_len && s->rows < s->num_rows)) {
    pq_page_header h;
    size_t hlen = 0;
    s->page_no++;
    int rc = pq_page_header_parse(&h, chunk + pos, chunk_len - pos, &hlen, err);
    if (rc < 0) return cprefix(s, err, rc);
    pos += hlen;
    if (h.compressed_page_size < 0 || (size_t)h.compressed_page_size > chunk_len - pos)
      return cfail(s, err, INLET_ECORRUPT,
                   "page of %d bytes runs past the column chunk (%zu bytes left)",
                   h.compressed_page_size, chunk_len - pos);
    const uint8_t *body = chunk + pos;
    size_t body_len = (size_t)h.compressed_page_size;
    pos += body_len;
    /* A data page outside the row selection is skipped unread: no CRC. */
    int64_t page_values = h.type == PQ_PAGE_DATA      ? h.data_page_header.num_values
                          : h.type == PQ_PAGE_DATA_V2 ? h.data_page_header_v2.num_values
                                                      : -1;
    bool unselected =
        s->sel && !s->nested && page_values >= 0 && !sel_overlaps(s, s->rows, page_values);
    if (page_values >= 0) {
      if (unselected)
        cr->pages_skipped++;
      else
        cr->pages_decoded++;
    }
    if (ctx->verify_checksums && h.has_crc && !unselected) {
      uint32_t crc = (uint32_t)crc32(0L, Z_NULL, 0);
      /* zlib takes uInt lengths; page sizes are int32. */
      crc = (uint32_t)crc32(crc, body, (uInt)body_len);
      if (crc != h.crc)
        return cfail(s, err, INLET_ECORRUPT, "page checksum mismatch (stored %08x, computed %08x)",
                     h.crc, crc);
    }
    switch (h.type) {
    case PQ_PAGE_DICTIONARY: {
      if (seen_data || cr->has_dict)
        return cfail(s, err, INLET_ECORRUPT, "dictionary page %s",
                     seen_data ? "after a data page" : "repeated");
      const uint8_t *p;
      TRY(page_bytes(s, body, body_len, h.uncompressed_page_size, true, &p, err));
      TRY(read_dictionary(s, &h, p, (size_t)h.uncompressed_page_size, err));
      break;
    }
    case PQ_PAGE_DATA:
      seen_data = true;
      TRY(data_page_v1(s, &h, body, body_len, err));
      break;
    case PQ_PAGE_DATA_V2:
      seen_data = true;
      TRY(data_page_v2(s, &h, body, body_len, err));
      break;
    default: break; /* index pages and future page types carry no values */
    }
  }
  *seen_data_io = seen_data;
  return 0;
}

static int read_pages(chunk_state *s, const uint8_t *chunk, size_t chunk_len, inlet_error *err) {
  size_t slack = s->ctx->slack;
  bool seen_data = false;
  TRY(walk_pages(s, chunk, chunk_len, chunk_len - (slack < chunk_len ? slack : chunk_len),
                 &seen_data, err));
  s->page_no = 0;
  if (s->rows != s->num_rows)
    return cfail(s, err, INLET_ECORRUPT, "column chunk holds %lld %s, the row group has %lld rows",
                 (long long)s->rows, s->nested ? "records" : "values", (long long)s->num_rows);
  return 0;
}

/* Sets the output's length and null count after a flat read. */
static void finish_flat(chunk_state *s) {
  inlet_array *out = s->out;
  out->length = s->out_rows;
  out->null_count = s->out_rows - s->n_valid;
  if (out->null_count == 0 && out->validity) batch_array_drop_validity(out);
}

int pq_column_read_chunk_rows(pq_column_reader *cr, const pq_chunk_ctx *ctx,
                              const pq_column_meta *cm, const uint8_t *chunk, size_t chunk_len,
                              int64_t num_rows, const int64_t *ranges, int32_t n_ranges,
                              inlet_array *out, inlet_error *err) {
  chunk_state st = {0}, *s = &st;
  TRY(chunk_setup(s, cr, ctx, cm, num_rows, out, err));
  if (s->max_rep > 0) return cfail(s, err, INLET_EINTERNAL, "repeated column read as a flat one");
  s->sel = ranges;
  s->n_sel = ranges ? n_ranges : 0;

  /* Output buffers for every row, or for the selected ones (growing when
   * a page that is decoded whole before trimming needs more). */
  int64_t rows = num_rows;
  if (ranges) {
    rows = 0;
    for (int32_t i = 0; i < n_ranges; i++)
      rows += ranges[2 * i + 1] - ranges[2 * i];
  }
  if (s->kind == K_BINARY) {
    TRY(inlet_array_reserve_rows(out, ctx->desc->field, 1, err));
    out->offsets[0] = 0;
  }
  TRY(out_reserve(s, rows, true, err));
  TRY(read_pages(s, chunk, chunk_len, err));
  finish_flat(s);
  return 0;
}

int pq_column_read_runs(pq_column_reader *cr, const pq_chunk_ctx *ctx, const pq_column_meta *cm,
                        int64_t num_rows, const int64_t *ranges, int32_t n_ranges, int32_t n_runs,
                        pq_page_run_fn fetch, void *fetch_ctx, inlet_array *out, inlet_error *err) {
  chunk_state st = {0}, *s = &st;
  TRY(chunk_setup(s, cr, ctx, cm, num_rows, out, err));
  if (s->max_rep > 0) return cfail(s, err, INLET_EINTERNAL, "repeated column read as a flat one");
  s->sel = ranges;
  s->n_sel = n_ranges;
  int64_t rows = 0;
  for (int32_t i = 0; i < n_ranges; i++)
    rows += ranges[2 * i + 1] - ranges[2 * i];
  if (s->kind == K_BINARY) {
    TRY(inlet_array_reserve_rows(out, ctx->desc->field, 1, err));
    out->offsets[0] = 0;
  }
  TRY(out_reserve(s, rows, true, err));
  bool seen_data = false;
  for (int32_t i = 0; i < n_runs; i++) {
    pq_page_run run;
    TRY(fetch(fetch_ctx, i, &run, err));
    /* Rows between runs are passed over: none of them may be selected. */
    if (run.first_row < s->rows || run.end_row < run.first_row || run.end_row > num_rows ||
        (run.first_row > s->rows && sel_overlaps(s, s->rows, run.first_row - s->rows)))
      return cfail(s, err, INLET_EINTERNAL, "page run %d covers rows [%lld, %lld) after row %lld",
                   i, (long long)run.first_row, (long long)run.end_row, (long long)s->rows);
    cr->pages_skipped += run.pages_before;
    s->rows = run.first_row;
    s->page_no = run.first_page;
    TRY(walk_pages(s, run.bytes, run.len, run.len, &seen_data, err));
    if (s->rows != run.end_row)
      return cfail(s, err, INLET_ECORRUPT,
                   "pages hold rows up to %lld where the offset index says %lld",
                   (long long)s->rows, (long long)run.end_row);
  }
  s->page_no = 0;
  finish_flat(s);
  return 0;
}

int pq_column_read_levels(pq_column_reader *cr, const pq_chunk_ctx *ctx, const pq_column_meta *cm,
                          const uint8_t *chunk, size_t chunk_len, int64_t num_rows,
                          inlet_array *out, inlet_error *err) {
  chunk_state st = {0}, *s = &st;
  TRY(chunk_setup(s, cr, ctx, cm, num_rows, out, err));
  s->nested = true;
  cr->n_levels = 0;
  cr->n_dense = 0;
  TRY(dense_reserve(s, 0, err));
  if (s->kind == K_BINARY) out->offsets[0] = 0;
  TRY(read_pages(s, chunk, chunk_len, err));
  cr->n_dense = s->n_valid;
  return 0;
}

void pq_column_spread(const pq_column_desc *desc, inlet_array *a, size_t n, size_t n_valid) {
  if (n_valid == n) return;
  switch (desc->type.id) {
  case INLET_TYPE_BOOL: pq_spread_bits(a->values, 0, a->validity, 0, n, n_valid); break;
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY: pq_spread_offsets(a->offsets, a->validity, 0, n, n_valid); break;
  default:
    pq_spread_fixed(a->values, (size_t)inlet_type_value_width(&desc->type), a->validity, 0, n,
                    n_valid);
  }
}
