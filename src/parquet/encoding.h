/*
 * Parquet value and level encodings (apache/parquet-format Encodings.md):
 * bit packing, the RLE / bit-packed hybrid (levels, dictionary indices, RLE
 * booleans), PLAIN for every physical type, DELTA_BINARY_PACKED writing,
 * and dictionary support (a hash table that builds dictionaries while
 * writing, and gathers that expand indices while reading). Also the
 * "spread" helpers that move densely decoded non-null values to their row
 * positions.
 *
 * Conventions shared by every function here:
 *   - Row ranges: encoders take Arrow-shaped column buffers (see
 *     include/inlet/batch.h) plus a validity bitmap that may be NULL (all
 *     valid) and a row range [start, start + n). Null rows are skipped: a
 *     Parquet page stores non-null values only.
 *   - Decoders produce exactly the number of values asked for or fail with
 *     INLET_ECORRUPT; they never read past the byte range they were given
 *     (a NULL range of length 0 is fine) and never write past n output
 *     values (byte-array decoders may scribble in an inlet_buf's spare
 *     capacity beyond its len, never beyond its cap). Messages describe the problem
 *     only ("bit-packed run needs 40 bytes, 12 left"); the caller prefixes
 *     the file / column / row group with inlet_error_prefix().
 *   - Dictionary indices are uint32_t everywhere.
 *   - Byte arrays are int32 offsets + bytes. Decoders append the bytes to an
 *     inlet_buf and write offsets[1..n]; they read offsets[0] (the caller
 *     keeps offsets[0] == bytes already in the data buffer, 0 for a fresh
 *     array). Totals past INT32_MAX fail with INLET_ELIMIT.
 *   - Multi-byte values are little-endian on disk; inlet supports
 *     little-endian hosts only (checked at compile time in plain.c).
 *
 * Nothing here allocates per value; hot loops are width-specialised and
 * contain no function pointers.
 */
#ifndef INLET_PQ_ENCODING_H
#define INLET_PQ_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "inlet/batch.h"
#include "inlet/error.h"
#include "util/buf.h"

/* ======================================================================
 * Bit packing (Encodings.md "Bit-packed (Deprecated)" order is NOT used:
 * this is the LSB-first order of the RLE/bit-packed hybrid and of
 * DELTA_BINARY_PACKED miniblocks).
 * ====================================================================== */

/* Minimum bits needed to represent @p max_value (0 for 0, 64 max). */
static inline int pq_bit_width(uint64_t max_value) {
  return max_value ? 64 - __builtin_clzll(max_value) : 0;
}

/* Bytes holding @p n values of @p width bits: ceil(n * width / 8). */
static inline size_t pq_bitpacked_bytes(size_t n, int width) {
  return (n / 8) * (size_t)width + ((n % 8) * (size_t)width + 7) / 8;
}

/* Unpacks @p n values of @p width bits (0..32) from @p src, which must hold
 * pq_bitpacked_bytes(n, width) bytes (no more are read). Any n is allowed;
 * groups of 8 take the fast path. */
void pq_unpack32(uint32_t *dst, const uint8_t *src, size_t n, int width);
/* Like pq_unpack32 when @p src_avail (>= pq_bitpacked_bytes(n, width))
 * bytes are readable at src: the slack lets more groups use the kernel
 * that over-reads with 8-byte loads. Nothing beyond src_avail is read. */
void pq_unpack32_avail(uint32_t *dst, const uint8_t *src, size_t n, int width, size_t src_avail);
/* Same for widths 0..64 (DELTA_BINARY_PACKED). */
void pq_unpack64(uint64_t *dst, const uint8_t *src, size_t n, int width);

/* Packs @p n values (each must be < 2^width; higher bits are masked off)
 * into exactly pq_bitpacked_bytes(n, width) bytes at @p dst; the unused
 * bits of the last byte are zero. */
void pq_pack32(uint8_t *dst, const uint32_t *src, size_t n, int width);
void pq_pack64(uint8_t *dst, const uint64_t *src, size_t n, int width);

/* ======================================================================
 * RLE / bit-packed hybrid: decoding
 * ====================================================================== */

/* A streaming decoder over one byte range. Plain data, no allocation;
 * init and use, nothing to free. Fields are private. */
typedef struct pq_rle_decoder {
  const uint8_t *pos; /* next unread byte (a run header or bit-packed data) */
  const uint8_t *end;
  int bit_width;         /* 0..32 */
  uint32_t rle_value;    /* value of the current RLE run */
  uint64_t rle_left;     /* values left in the current RLE run */
  uint64_t bp_left;      /* values left in the current bit-packed run, excluding staged */
  const uint8_t *bp_end; /* end of the current bit-packed run's bytes */
  uint32_t stage[8];     /* one unpacked group, for requests that split a group */
  uint32_t stage_pos;
  uint32_t stage_len;
} pq_rle_decoder;

/* Starts decoding @p len bytes at @p data with values of @p bit_width bits.
 * @return 0, INLET_ECORRUPT (bit_width > 32). */
int pq_rle_init(pq_rle_decoder *d, const uint8_t *data, size_t len, int bit_width,
                inlet_error *err);

/* Dictionary indices of a data page: a 1-byte bit width, then the hybrid
 * runs. @return 0, INLET_ECORRUPT (empty, bit width > 32). */
int pq_rle_init_dict(pq_rle_decoder *d, const uint8_t *data, size_t len, inlet_error *err);

/* Levels of a data page v1: a 4-byte little-endian length, then that many
 * bytes of runs. *consumed is set to 4 + length, where the next section of
 * the page starts. @return 0, INLET_ECORRUPT (length prefix missing or
 * longer than @p len, bit_width > 32). */
int pq_rle_init_levels_v1(pq_rle_decoder *d, const uint8_t *data, size_t len, int bit_width,
                          size_t *consumed, inlet_error *err);

/* Decodes exactly @p n values. @return 0, INLET_ECORRUPT (runs exhausted,
 * malformed header). */
int pq_rle_get_u32(pq_rle_decoder *d, uint32_t *dst, size_t n, inlet_error *err);
/* Levels as int16 (Arrow's level type); values must be <= @p max_level.
 * @return 0, INLET_ECORRUPT. */
int pq_rle_get_i16(pq_rle_decoder *d, int16_t *dst, size_t n, uint32_t max_level, inlet_error *err);
/* Definition levels of a flat column straight into a validity bitmap: bit
 * (bit_offset + i) is set when level i == @p max_level and cleared
 * otherwise; levels above max_level are INLET_ECORRUPT. Adds the number of
 * set bits to *n_valid. With max_level 1 and bit width 1 this also decodes
 * RLE-encoded BOOLEAN values into a value bitmap. @return 0, INLET_ECORRUPT. */
int pq_rle_get_validity(pq_rle_decoder *d, uint8_t *bits, int64_t bit_offset, size_t n,
                        uint32_t max_level, int64_t *n_valid, inlet_error *err);
/* Skips @p n values. @return 0, INLET_ECORRUPT. */
int pq_rle_skip(pq_rle_decoder *d, size_t n, inlet_error *err);

/* Fused dictionary decode for fixed-width values: decodes @p n indices and
 * writes dict[idx] (each @p width bytes) densely to @p dst. Indices >=
 * @p dict_n are INLET_ECORRUPT. Widths 1, 2, 4, 8, 12, 16 are specialised.
 * @return 0, INLET_ECORRUPT. */
int pq_rle_dict_fixed(pq_rle_decoder *d, void *dst, const void *dict, uint32_t dict_n, size_t width,
                      size_t n, inlet_error *err);

/* ======================================================================
 * RLE / bit-packed hybrid: encoding
 *
 * One-shot encoders: give them a page's worth of values. Runs of >= 8
 * equal values become RLE runs, everything else bit-packed groups of 8
 * (the last group zero-padded). Return 0 or INLET_ENOMEM (the buffer's
 * sticky error).
 * ====================================================================== */

/* Appends the hybrid runs (no prefix) of @p n values. */
int pq_rle_encode_u32(inlet_buf *out, const uint32_t *values, size_t n, int bit_width);
int pq_rle_encode_i16(inlet_buf *out, const int16_t *values, size_t n, int bit_width);
/* Runs for bits [start, start + n) of a bitmap (bit width 1): definition
 * levels of a flat OPTIONAL column from its validity bitmap (NULL = all
 * set), or RLE-encoded booleans. */
int pq_rle_encode_bits(inlet_buf *out, const uint8_t *bits, int64_t start, size_t n);

/* Data page v1 levels: 4-byte length prefix + runs. */
int pq_rle_encode_levels_v1_i16(inlet_buf *out, const int16_t *levels, size_t n, int bit_width);
int pq_rle_encode_levels_v1_bits(inlet_buf *out, const uint8_t *validity, int64_t start, size_t n);
/* Dictionary indices of a data page: 1-byte bit width + runs. Use
 * pq_dict_index_width() for @p bit_width. */
int pq_rle_encode_dict_indices(inlet_buf *out, const uint32_t *idx, size_t n, int bit_width);

/* ======================================================================
 * PLAIN
 * ====================================================================== */

/* Encoders: append the non-null values of rows [start, start + n).
 * @p validity may be NULL. All return 0 or INLET_ENOMEM. */

/* INT32/INT64/FLOAT/DOUBLE/FIXED_LEN_BYTE_ARRAY: values of @p width bytes
 * (already in their Parquet representation, e.g. decimals big-endian). */
int pq_plain_encode_fixed(inlet_buf *out, const void *values, size_t width, const uint8_t *validity,
                          int64_t start, size_t n);
/* BYTE_ARRAY: 4-byte LE length + bytes per value, from offsets + data. */
int pq_plain_encode_binary(inlet_buf *out, const int32_t *offsets, const uint8_t *data,
                           const uint8_t *validity, int64_t start, size_t n);

/* BOOLEAN: bit-packed LSB first. Within a page the bits continue across
 * calls, so this is a small stateful encoder: init, put..., finish. */
typedef struct pq_bool_encoder {
  inlet_buf *out; /* not owned */
  uint64_t acc;   /* pending bits, LSB first */
  int n_acc;      /* number of pending bits, < 64 */
} pq_bool_encoder;
void pq_bool_encoder_init(pq_bool_encoder *e, inlet_buf *out);
int pq_bool_encoder_put(pq_bool_encoder *e, const uint8_t *bits, const uint8_t *validity,
                        int64_t start, size_t n);
/* Flushes the last partial byte (zero-padded). Reusable after init. */
int pq_bool_encoder_finish(pq_bool_encoder *e);

/* Decoder: a cursor over one page's PLAIN values. Fields are private. */
typedef struct pq_plain_decoder {
  const uint8_t *data;
  size_t len;
  size_t pos;       /* next byte */
  uint64_t bit_pos; /* BOOLEAN only: next bit, counted from data */
} pq_plain_decoder;

void pq_plain_init(pq_plain_decoder *d, const uint8_t *data, size_t len);
/* Bytes not yet consumed. */
static inline size_t pq_plain_remaining(const pq_plain_decoder *d) {
  return d->len - d->pos;
}

/* INT32/INT64/FLOAT/DOUBLE/FIXED_LEN_BYTE_ARRAY: copies n * width bytes.
 * @return 0, INLET_ECORRUPT (too few bytes). */
int pq_plain_decode_fixed(pq_plain_decoder *d, void *dst, size_t n, size_t width, inlet_error *err);
/* BOOLEAN into bits [bit_offset, bit_offset + n) of @p bits.
 * @return 0, INLET_ECORRUPT. */
int pq_plain_decode_bool(pq_plain_decoder *d, uint8_t *bits, int64_t bit_offset, size_t n,
                         inlet_error *err);
/* INT96 timestamps (8-byte LE nanoseconds of day + 4-byte LE Julian day)
 * to int64 since the Unix epoch in @p unit (floor division). Values that do
 * not fit are INLET_ECORRUPT. @return 0, INLET_ECORRUPT. */
int pq_plain_decode_int96(pq_plain_decoder *d, int64_t *dst, size_t n, inlet_time_unit unit,
                          inlet_error *err);
/* One INT96 value (12 bytes) to @p unit; false if out of int64 range. */
bool pq_int96_to_unit(const uint8_t src[12], inlet_time_unit unit, int64_t *out);

/* BYTE_ARRAY: appends the bytes of @p n values to @p data and writes
 * offsets[1..n] (offsets[0] is read: see the conventions above).
 * @return 0, INLET_ECORRUPT (length past the page), INLET_ELIMIT (offsets
 * past INT32_MAX), INLET_ENOMEM. */
int pq_plain_decode_binary(pq_plain_decoder *d, size_t n, int32_t *offsets, inlet_buf *data,
                           inlet_error *err);
/* Validates the next @p n BYTE_ARRAY values without consuming them and
 * returns their total byte length (for callers that size buffers first).
 * @return 0, INLET_ECORRUPT. */
int pq_plain_measure_binary(const pq_plain_decoder *d, size_t n, size_t *total_bytes,
                            inlet_error *err);
/* Like pq_plain_decode_binary but into a caller-sized buffer: bytes go to
 * data[offsets[0]...]; data_cap is the size of @p data. @return 0,
 * INLET_ECORRUPT, INLET_ELIMIT (would pass data_cap or INT32_MAX). */
int pq_plain_decode_binary_raw(pq_plain_decoder *d, size_t n, int32_t *offsets, uint8_t *data,
                               size_t data_cap, inlet_error *err);
/* Skips n BYTE_ARRAY values, their lengths validated. @return 0, INLET_ECORRUPT. */
int pq_plain_skip_binary(pq_plain_decoder *d, size_t n, inlet_error *err);

/* ======================================================================
 * DELTA_BINARY_PACKED encoding (Encodings.md "Delta Encoding
 * (DELTA_BINARY_PACKED = 5)"): blocks of 128 values in 4 miniblocks of 32,
 * deltas wrapping in the type's width. One-shot: give it a page's
 * non-null values of rows [start, start + n) (validity may be NULL).
 * Returns 0 or INLET_ENOMEM.
 * ====================================================================== */
int pq_delta_encode_i32(inlet_buf *out, const int32_t *values, const uint8_t *validity,
                        int64_t start, size_t n);
int pq_delta_encode_i64(inlet_buf *out, const int64_t *values, const uint8_t *validity,
                        int64_t start, size_t n);

/* ======================================================================
 * Spreading dense non-null values to row positions (in place)
 *
 * A page stores non-null values only. Decoders write the @p n_valid values
 * densely from the start of the output; these helpers then move them,
 * back to front, to the rows whose validity bit is set, for rows
 * [0, n) where row i's bit is validity bit (vbit_offset + i). n_valid
 * must equal the number of set bits (the caller counted them while
 * decoding levels). Null slots are zeroed (fixed width) or get zero length
 * (offsets), as Arrow producers conventionally do.
 * ====================================================================== */

void pq_spread_fixed(void *values, size_t width, const uint8_t *validity, int64_t vbit_offset,
                     size_t n, size_t n_valid);
/* offsets[0..n_valid] dense -> offsets[0..n]. */
void pq_spread_offsets(int32_t *offsets, const uint8_t *validity, int64_t vbit_offset, size_t n,
                       size_t n_valid);
/* Bits [bit_offset, bit_offset + n_valid) -> [bit_offset, bit_offset + n). */
void pq_spread_bits(uint8_t *bits, int64_t bit_offset, const uint8_t *validity, int64_t vbit_offset,
                    size_t n, size_t n_valid);
/* Number of set bits in [bit_offset, bit_offset + n) of @p bits. */
int64_t pq_count_bits(const uint8_t *bits, int64_t bit_offset, size_t n);

/* ======================================================================
 * Dictionaries: building (writer)
 * ====================================================================== */

typedef enum pq_dict_kind {
  PQ_DICT_32 = 0, /* INT32 and FLOAT, by 32-bit pattern */
  PQ_DICT_64,     /* INT64 and DOUBLE, by 64-bit pattern (NaN, -0.0 by bits) */
  PQ_DICT_BINARY, /* BYTE_ARRAY */
  PQ_DICT_FIXED   /* FIXED_LEN_BYTE_ARRAY of fixed_width bytes (also INT96-like) */
} pq_dict_kind;

/* A growing dictionary. Caller-allocated: pq_dict_init / pq_dict_reset.
 * The value arrays are readable by the writer (e.g. to compute min/max
 * over distinct values); everything else is private. */
typedef struct pq_dict {
  pq_dict_kind kind;
  int32_t fixed_width; /* PQ_DICT_FIXED: bytes per value */
  uint32_t count;      /* distinct values so far; indices are 0..count-1 */
  /* Values in index order. 32/64: values.data holds count uint32/uint64.
   * FIXED: count * fixed_width bytes. BINARY: the bytes, with
   * offsets[i]..offsets[i+1] delimiting value i (count + 1 entries). */
  inlet_buf values;   /* owned */
  int32_t *offsets;   /* owned; BINARY only */
  size_t offsets_cap; /* entries */
  size_t plain_bytes; /* size of the PLAIN-encoded dictionary page body */
  /* Open-addressing hash table (power-of-two slots, linear probing). */
  void *slots; /* owned */
  size_t n_slots;
  int shift; /* 64 - log2(n_slots), for multiplicative hashing */
} pq_dict;

/* @return 0, INLET_EINVAL (bad kind/width), INLET_ENOMEM. */
int pq_dict_init(pq_dict *d, pq_dict_kind kind, int32_t fixed_width, inlet_error *err);
/* Frees everything. NULL-safe, idempotent. */
void pq_dict_reset(pq_dict *d);
/* Empties the dictionary (for the next column chunk), keeping memory. */
void pq_dict_clear(pq_dict *d);

/* Each put looks up the non-null values of rows [start, start + n), adds
 * new ones, and writes one index per non-null value to @p idx_out (room
 * for n indices needed); *n_out receives the number written.
 * @return 0, INLET_ENOMEM, INLET_ELIMIT (more than 2^31 - 1 distinct values
 * or 2 GiB of bytes). On failure the dictionary stays consistent. */
int pq_dict_put32(pq_dict *d, const uint32_t *values, const uint8_t *validity, int64_t start,
                  size_t n, uint32_t *idx_out, size_t *n_out, inlet_error *err);
int pq_dict_put64(pq_dict *d, const uint64_t *values, const uint8_t *validity, int64_t start,
                  size_t n, uint32_t *idx_out, size_t *n_out, inlet_error *err);
int pq_dict_put_binary(pq_dict *d, const int32_t *offsets, const uint8_t *data,
                       const uint8_t *validity, int64_t start, size_t n, uint32_t *idx_out,
                       size_t *n_out, inlet_error *err);
int pq_dict_put_fixed(pq_dict *d, const uint8_t *values, const uint8_t *validity, int64_t start,
                      size_t n, uint32_t *idx_out, size_t *n_out, inlet_error *err);

/* Bit width for the data pages' indices: pq_bit_width(count - 1), at least
 * 1 (some readers reject width 0). */
static inline int pq_dict_index_width(const pq_dict *d) {
  int w = d->count > 1 ? pq_bit_width(d->count - 1) : 0;
  return w < 1 ? 1 : w;
}
/* Size in bytes of the PLAIN dictionary page body (what the writer compares
 * with dictionary_page_bytes to decide on fallback). */
static inline size_t pq_dict_plain_size(const pq_dict *d) {
  return d->plain_bytes;
}
/* Appends the PLAIN-encoded dictionary page body. @return 0, INLET_ENOMEM. */
int pq_dict_write_plain(const pq_dict *d, inlet_buf *out);

/* ======================================================================
 * Dictionaries: gathering (reader)
 * ====================================================================== */

/* dst[i] = dict[idx[i]] for fixed-width values of @p width bytes.
 * @return 0, INLET_ECORRUPT (an index >= dict_n; nothing useful written). */
int pq_dict_gather_fixed(void *dst, const void *dict, uint32_t dict_n, size_t width,
                         const uint32_t *idx, size_t n, inlet_error *err);
/* Byte arrays: appends dict value idx[i] to @p data and writes offsets[1..n]
 * (offsets[0] is read). @return 0, INLET_ECORRUPT, INLET_ELIMIT, INLET_ENOMEM. */
int pq_dict_gather_binary(int32_t *offsets, inlet_buf *data, const int32_t *dict_offsets,
                          const uint8_t *dict_data, uint32_t dict_n, const uint32_t *idx, size_t n,
                          inlet_error *err);

#endif /* INLET_PQ_ENCODING_H */
