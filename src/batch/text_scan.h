/*
 * Byte scanning for the NDJSON hot path (issue 18, section 2): where a JSON
 * string's plain run ends, and the leading digits of a number.
 *
 * A string's plain run ends at its first '"', '\\' or control byte (< 0x20);
 * everything before it is copied as is, and when none of it is >= 0x80 it
 * is ASCII and needs no UTF-8 check. Three scanners find that byte and
 * must agree on every input:
 *   - SSE2, 16 bytes a step: every x86-64 CPU has it, so it needs no
 *     run-time dispatch (AVX2's 32 bytes would not pay: the values of
 *     events are mostly shorter than 16 bytes, so the first step decides);
 *   - SWAR, 8 bytes a step in a 64-bit word: the portable fallback, and
 *     the SSE2 scanner's tail;
 *   - a byte loop, the reference and every scanner's last bytes.
 * tests/unit/batch/test_text_scan.c puts every stop byte at every position
 * of every length up to 80 through all three; fuzz/text_scan_fuzzer.c
 * compares them on arbitrary bytes.
 *
 * Digits: the number of ASCII digits leading an 8-byte word and their
 * value, in a few word operations instead of a loop with a branch per digit
 * (event ids, amounts and their fractions mostly have 1 to 8 digits).
 *
 * The word tests find the *first* matching byte exactly although a word's
 * carries and borrows can flag bytes after it: only a matching byte starts
 * a carry or borrow, and it moves only towards later (higher) bytes. They
 * read the bytes little-endian; a big-endian build takes the byte loop.
 */
#ifndef INLET_BATCH_TEXT_SCAN_H
#define INLET_BATCH_TEXT_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TEXT_SCAN_WORDS 1
#else
#define TEXT_SCAN_WORDS 0
#endif

#if TEXT_SCAN_WORDS && defined(__SSE2__)
#include <emmintrin.h>
#define TEXT_SCAN_SSE2 1
#else
#define TEXT_SCAN_SSE2 0
#endif

static inline int text_scan_is_stop(unsigned char b) {
  return b == '"' || b == '\\' || b < 0x20;
}

/* Index of the first '"', '\\' or control byte of p[0, n), or n; *high is
 * set when a byte before it is >= 0x80 (else left alone), so a run without
 * one needs no UTF-8 check. The byte loop: the reference the word scanners
 * are tested against. */
static inline size_t text_scan_plain_bytes(const char *p, size_t n, bool *high) {
  size_t i = 0;
  unsigned char top = 0;
  while (i < n && !text_scan_is_stop((unsigned char)p[i]))
    top |= (unsigned char)p[i++];
  if (top & 0x80) *high = true;
  return i;
}

/* text_scan_plain_bytes, 8 bytes at a time. */
static inline size_t text_scan_plain_swar(const char *p, size_t n, bool *high) {
  size_t i = 0;
#if TEXT_SCAN_WORDS
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  uint64_t top = 0;
  while (n - i >= 8) {
    uint64_t v;
    memcpy(&v, p + i, 8);
    uint64_t xq = v ^ (ones * '"'), xb = v ^ (ones * '\\');
    uint64_t hit = (((xq - ones) & ~xq) | ((xb - ones) & ~xb) | ((v - ones * 0x20) & ~v)) & highs;
    if (hit) {
      int k = __builtin_ctzll(hit) / 8; /* 0..7 */
      if ((top | (v & (((uint64_t)1 << (8 * k)) - 1))) & highs) *high = true;
      return i + (size_t)k;
    }
    top |= v;
    i += 8;
  }
  if (top & highs) *high = true;
#endif
  return i + text_scan_plain_bytes(p + i, n - i, high);
}

#if TEXT_SCAN_SSE2
/* text_scan_plain_bytes, 16 bytes at a time. */
static inline size_t text_scan_plain_sse2(const char *p, size_t n, bool *high) {
  size_t i = 0;
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i last_control = _mm_set1_epi8(0x1f);
  unsigned top = 0;
  while (n - i >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
    /* unsigned v <= 0x1f exactly when min(v, 0x1f) == v */
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                               _mm_cmpeq_epi8(_mm_min_epu8(v, last_control), v));
    unsigned stop = (unsigned)_mm_movemask_epi8(hit), tops = (unsigned)_mm_movemask_epi8(v);
    if (stop) {
      unsigned k = (unsigned)__builtin_ctz(stop);
      if (top | (tops & ((1u << k) - 1))) *high = true;
      return i + k;
    }
    top |= tops;
    i += 16;
  }
  if (top) *high = true;
  return i + text_scan_plain_swar(p + i, n - i, high);
}
#endif

/* The scanner this build uses. */
static inline size_t text_scan_plain(const char *p, size_t n, bool *high) {
#if TEXT_SCAN_SSE2
  return text_scan_plain_sse2(p, n, high);
#else
  return text_scan_plain_swar(p, n, high);
#endif
}

#if TEXT_SCAN_WORDS
/* How many of the 8 bytes of v (first byte lowest) are leading ASCII
 * digits, 0..8: a byte b is flagged when b + 0x46 or b - 0x30 has its top
 * bit set, which is every byte but '0'..'9'. */
static inline int text_scan_digits8(uint64_t v) {
  uint64_t other = ((v + 0x4646464646464646u) | (v - 0x3030303030303030u)) & 0x8080808080808080u;
  return other ? __builtin_ctzll(other) / 8 : 8;
}

/* The value of the first k (1..8) bytes of v, all ASCII digits, the first
 * the most significant: the digits are shifted to the top of the word
 * (zeros before them) and combined pairwise, 2, 4, then 8 at a time. */
static inline uint32_t text_scan_digits8_value(uint64_t v, int k) {
  uint64_t d = v << (8 * (8 - k));
  d = ((d & 0x0f0f0f0f0f0f0f0fu) * 2561) >> 8;                            /* 10 * 2^8 + 1 */
  d = ((d & 0x00ff00ff00ff00ffu) * 6553601) >> 16;                        /* 100 * 2^16 + 1 */
  return (uint32_t)(((d & 0x0000ffff0000ffffu) * 42949672960001u) >> 32); /* 10^4 * 2^32 + 1 */
}
#endif

#endif /* INLET_BATCH_TEXT_SCAN_H */
