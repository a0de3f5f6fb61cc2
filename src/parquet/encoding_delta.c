/*
 * DELTA_BINARY_PACKED encoding (Encodings.md "Delta Encoding
 * (DELTA_BINARY_PACKED = 5)"), write side. (Decoding lives with the
 * reader in delta_decode.c.)
 *
 *   header := varint(block size = 128) varint(miniblocks per block = 4)
 *             varint(total value count) zigzag-varint(first value)
 *   block  := zigzag-varint(min delta) 4 x byte(miniblock bit width)
 *             miniblocks, each 32 values of (delta - min delta) bit-packed
 *
 * Deltas wrap modulo 2^32 (INT32) or 2^64 (INT64), as the spec requires;
 * the minimum is taken as a signed value of the type's width. A last
 * partial miniblock is padded with zero bits; miniblocks the last block does
 * not need keep their bit-width byte (0) and have no body.
 */
#include "parquet/encoding.h"

#define BLOCK 128
#define MINIS 4
#define MINI (BLOCK / MINIS)

static void put_uvarint(inlet_buf *out, uint64_t v) {
  uint8_t b[10];
  int n = 0;
  while (v >= 0x80) {
    b[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b[n++] = (uint8_t)v;
  inlet_buf_append(out, b, (size_t)n);
}

static inline uint64_t zigzag64(int64_t x) {
  return ((uint64_t)x << 1) ^ (uint64_t)(x >> 63);
}

/*
 * The body shared by both widths: T is the signed type, U the unsigned
 * one, PACK the packer.
 */
#define DELTA_FLUSH(T, U, PACK)                                                                    \
  static void flush_##T(inlet_buf *out, U *d, size_t nd) {                                         \
    T min = (T)d[0];                                                                               \
    for (size_t i = 1; i < nd; i++)                                                                \
      if ((T)d[i] < min) min = (T)d[i];                                                            \
    uint8_t widths[MINIS] = {0};                                                                   \
    size_t minis = (nd + MINI - 1) / MINI;                                                         \
    for (size_t i = 0; i < BLOCK; i++)                                                             \
      d[i] = i < nd ? (U)(d[i] - (U)min) : 0;                                                      \
    for (size_t m = 0; m < minis; m++) {                                                           \
      U all = 0;                                                                                   \
      for (size_t i = m * MINI; i < (m + 1) * MINI; i++)                                           \
        all |= d[i];                                                                               \
      widths[m] = (uint8_t)pq_bit_width(all);                                                      \
    }                                                                                              \
    put_uvarint(out, zigzag64((int64_t)min));                                                      \
    inlet_buf_append(out, widths, MINIS);                                                          \
    for (size_t m = 0; m < minis; m++) {                                                           \
      size_t bytes = (size_t)widths[m] * MINI / 8;                                                 \
      if (inlet_buf_reserve(out, bytes) < 0) return;                                               \
      PACK(out->data + out->len, d + m * MINI, MINI, widths[m]);                                   \
      out->len += bytes;                                                                           \
    }                                                                                              \
  }

DELTA_FLUSH(int32_t, uint32_t, pq_pack32)
DELTA_FLUSH(int64_t, uint64_t, pq_pack64)

#define DELTA_ENCODE(T, U)                                                                         \
  do {                                                                                             \
    size_t total = validity ? (size_t)pq_count_bits(validity, start, n) : n;                       \
    put_uvarint(out, BLOCK);                                                                       \
    put_uvarint(out, MINIS);                                                                       \
    put_uvarint(out, total);                                                                       \
    U deltas[BLOCK];                                                                               \
    size_t nd = 0;                                                                                 \
    bool first = true;                                                                             \
    U prev = 0;                                                                                    \
    for (size_t i = 0; i < n; i++) {                                                               \
      int64_t r = start + (int64_t)i;                                                              \
      if (validity && !inlet_bit_get(validity, r)) continue;                                       \
      U v = (U)values[r];                                                                          \
      if (first) {                                                                                 \
        put_uvarint(out, zigzag64((int64_t)values[r]));                                            \
        first = false;                                                                             \
      } else {                                                                                     \
        deltas[nd++] = (U)(v - prev);                                                              \
        if (nd == BLOCK) {                                                                         \
          flush_##T(out, deltas, nd);                                                              \
          nd = 0;                                                                                  \
        }                                                                                          \
      }                                                                                            \
      prev = v;                                                                                    \
    }                                                                                              \
    if (first) put_uvarint(out, 0);                                                                \
    if (nd) flush_##T(out, deltas, nd);                                                            \
    return inlet_buf_status(out);                                                                  \
  } while (0)

int pq_delta_encode_i32(inlet_buf *out, const int32_t *values, const uint8_t *validity,
                        int64_t start, size_t n) {
  DELTA_ENCODE(int32_t, uint32_t);
}

int pq_delta_encode_i64(inlet_buf *out, const int64_t *values, const uint8_t *validity,
                        int64_t start, size_t n) {
  DELTA_ENCODE(int64_t, uint64_t);
}
