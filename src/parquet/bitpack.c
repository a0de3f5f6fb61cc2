/*
 * Bit packing and unpacking in the LSB-first order used by the RLE /
 * bit-packed hybrid and DELTA_BINARY_PACKED (Encodings.md, "Run Length
 * Encoding / Bit-Packing Hybrid": values are packed from the least
 * significant bit of each byte).
 *
 * Eight values of width w occupy exactly w bytes, so the unit of work is a
 * group of 8. The group kernels are always-inlined with a constant width
 * from a switch, which lets the compiler turn every shift and mask into an
 * immediate: one specialised loop per width without writing 33 of them.
 */
#include "parquet/encoding.h"

#if defined(__GNUC__)
#define PQ_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PQ_ALWAYS_INLINE inline
#endif

#define REP8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

/* 8 values of w (0..32) bits; reads up to 8 bytes past the group's w bytes,
 * so callers use it only where the source has that much slack. Each value
 * spans at most 5 bytes (7 bits of offset + 32), so one unaligned 64-bit
 * load per value suffices. */
static PQ_ALWAYS_INLINE void unpack8_32_fast(uint32_t *restrict dst, const uint8_t *restrict src,
                                             const int w) {
  const uint64_t mask = w >= 32 ? 0xffffffffull : ((1ull << w) - 1);
#define X(k)                                                                                       \
  {                                                                                                \
    uint64_t x_;                                                                                   \
    memcpy(&x_, src + (((k)*w) >> 3), 8);                                                          \
    dst[k] = (uint32_t)((x_ >> (((k)*w) & 7)) & mask);                                             \
  }
  REP8(X)
#undef X
}

/* 8 values of w (0..32) bits from exactly w bytes. */
static PQ_ALWAYS_INLINE void unpack8_32(uint32_t *restrict dst, const uint8_t *restrict src,
                                        const int w) {
  uint64_t words[5] = {0, 0, 0, 0, 0};
  memcpy(words, src, (size_t)w);
  const uint64_t mask = w >= 32 ? 0xffffffffull : ((1ull << w) - 1);
#define X(k)                                                                                       \
  {                                                                                                \
    const int bit = (k)*w, wi = bit >> 6, off = bit & 63;                                          \
    uint64_t v = words[wi] >> off;                                                                 \
    if (off + w > 64) v |= words[wi + 1] << ((64 - off) & 63);                                     \
    dst[k] = (uint32_t)(v & mask);                                                                 \
  }
  REP8(X)
#undef X
}

static PQ_ALWAYS_INLINE void unpack8_64(uint64_t *restrict dst, const uint8_t *restrict src,
                                        const int w) {
  uint64_t words[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  memcpy(words, src, (size_t)w);
  const uint64_t mask = w >= 64 ? ~0ull : ((1ull << w) - 1);
#define X(k)                                                                                       \
  {                                                                                                \
    const int bit = (k)*w, wi = bit >> 6, off = bit & 63;                                          \
    uint64_t v = words[wi] >> off;                                                                 \
    if (off && off + w > 64) v |= words[wi + 1] << ((64 - off) & 63);                              \
    dst[k] = v & mask;                                                                             \
  }
  REP8(X)
#undef X
}

/* Packs 8 values into a 64-bit accumulator flushed word by word: with a
 * constant w every shift and flush point is known at compile time. */
static PQ_ALWAYS_INLINE void pack8_32(uint8_t *restrict dst, const uint32_t *restrict src,
                                      const int w) {
  uint64_t words[5] = {0, 0, 0, 0, 0};
  const uint64_t mask = w >= 32 ? 0xffffffffull : ((1ull << w) - 1);
#define X(k)                                                                                       \
  {                                                                                                \
    const int bit = (k)*w, wi = bit >> 6, off = bit & 63;                                          \
    const uint64_t v = src[k] & mask;                                                              \
    words[wi] |= v << off;                                                                         \
    if (off + w > 64) words[wi + 1] |= v >> ((64 - off) & 63);                                     \
  }
  REP8(X)
#undef X
  memcpy(dst, words, (size_t)w);
}

static PQ_ALWAYS_INLINE void pack8_64(uint8_t *restrict dst, const uint64_t *restrict src,
                                      const int w) {
  uint64_t words[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  const uint64_t mask = w >= 64 ? ~0ull : ((1ull << w) - 1);
#define X(k)                                                                                       \
  {                                                                                                \
    const int bit = (k)*w, wi = bit >> 6, off = bit & 63;                                          \
    const uint64_t v = src[k] & mask;                                                              \
    words[wi] |= v << off;                                                                         \
    if (off && off + w > 64) words[wi + 1] |= v >> ((64 - off) & 63);                              \
  }
  REP8(X)
#undef X
  memcpy(dst, words, (size_t)w);
}

/* clang-format 14 cannot settle on a layout for this list of macro calls. */
/* clang-format off */
#define CASES_0_32(X)                                                                              \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)     \
  X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32)
#define CASES_33_64(X)                                                                             \
  X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47)      \
  X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61) X(62) X(63) \
  X(64)
/* clang-format on */

void pq_unpack32(uint32_t *dst, const uint8_t *src, size_t n, int width) {
  pq_unpack32_avail(dst, src, n, width, pq_bitpacked_bytes(n, width));
}

void pq_unpack32_avail(uint32_t *dst, const uint8_t *src, size_t n, int width, size_t src_avail) {
  if (width == 0) {
    memset(dst, 0, n * sizeof *dst);
    return;
  }
  const size_t groups = n / 8;
  if (width == 32) {
    memcpy(dst, src, groups * 32);
  } else if (width == 8) {
    for (size_t i = 0; i < groups * 8; i++)
      dst[i] = src[i];
  } else {
    /* Groups whose 8-byte over-reads stay inside src take the fast kernel. */
    const size_t nbytes = src_avail;
    size_t fast = nbytes >= (size_t)width + 8 ? (nbytes - 8) / (size_t)width : 0;
    if (fast > groups) fast = groups;
    switch (width) {
#define X(W)                                                                                       \
  case W: {                                                                                        \
    size_t g = 0;                                                                                  \
    for (; g < fast; g++)                                                                          \
      unpack8_32_fast(dst + 8 * g, src + (size_t)(W)*g, W);                                        \
    for (; g < groups; g++)                                                                        \
      unpack8_32(dst + 8 * g, src + (size_t)(W)*g, W);                                             \
  } break;
      CASES_0_32(X)
#undef X
    default: break;
    }
  }
  const size_t rem = n % 8;
  if (rem) {
    uint8_t tmp[32] = {0};
    uint32_t out[8];
    memcpy(tmp, src + groups * (size_t)width, pq_bitpacked_bytes(rem, width));
    unpack8_32(out, tmp, width);
    memcpy(dst + groups * 8, out, rem * sizeof *out);
  }
}

void pq_unpack64(uint64_t *dst, const uint8_t *src, size_t n, int width) {
  const size_t groups = n / 8;
  if (width <= 32) {
    /* Narrow widths (the common DELTA case) reuse the 32-bit kernels. */
    uint32_t tmp[64];
    size_t done = 0;
    while (done < groups * 8) {
      size_t k = groups * 8 - done;
      if (k > 64) k = 64;
      pq_unpack32(tmp, src + done / 8 * (size_t)width, k, width);
      for (size_t i = 0; i < k; i++)
        dst[done + i] = tmp[i];
      done += k;
    }
  } else {
    switch (width) {
#define X(W)                                                                                       \
  case W:                                                                                          \
    for (size_t g = 0; g < groups; g++)                                                            \
      unpack8_64(dst + 8 * g, src + (size_t)(W)*g, W);                                             \
    break;
      CASES_33_64(X)
#undef X
    default: break;
    }
  }
  const size_t rem = n % 8;
  if (rem) {
    uint8_t tmp[64] = {0};
    uint64_t out[8];
    memcpy(tmp, src + groups * (size_t)width, pq_bitpacked_bytes(rem, width));
    unpack8_64(out, tmp, width);
    memcpy(dst + groups * 8, out, rem * sizeof *out);
  }
}

void pq_pack32(uint8_t *dst, const uint32_t *src, size_t n, int width) {
  const size_t groups = n / 8;
  if (width == 32) {
    memcpy(dst, src, groups * 32);
  } else {
    switch (width) {
#define X(W)                                                                                       \
  case W:                                                                                          \
    for (size_t g = 0; g < groups; g++)                                                            \
      pack8_32(dst + (size_t)(W)*g, src + 8 * g, W);                                               \
    break;
      CASES_0_32(X)
#undef X
    default: break;
    }
  }
  const size_t rem = n % 8;
  if (rem) {
    uint32_t in[8] = {0};
    uint8_t tmp[32];
    memcpy(in, src + groups * 8, rem * sizeof *in);
    pack8_32(tmp, in, width);
    memcpy(dst + groups * (size_t)width, tmp, pq_bitpacked_bytes(rem, width));
  }
}

void pq_pack64(uint8_t *dst, const uint64_t *src, size_t n, int width) {
  const size_t groups = n / 8;
  switch (width) {
#define X(W)                                                                                       \
  case W:                                                                                          \
    for (size_t g = 0; g < groups; g++)                                                            \
      pack8_64(dst + (size_t)(W)*g, src + 8 * g, W);                                               \
    break;
    CASES_0_32(X)
    CASES_33_64(X)
#undef X
  default: break;
  }
  const size_t rem = n % 8;
  if (rem) {
    uint64_t in[8] = {0};
    uint8_t tmp[64];
    memcpy(in, src + groups * 8, rem * sizeof *in);
    pack8_64(tmp, in, width);
    memcpy(dst + groups * (size_t)width, tmp, pq_bitpacked_bytes(rem, width));
  }
}
