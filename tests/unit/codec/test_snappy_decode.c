/*
 * Unit tests for src/codec/snappy_decode.c, inlet's snappy decoder. The
 * reference is libsnappy: streams it compresses must decode to the original
 * bytes, at every length around the decoder's fixed-step copies (16 and 64
 * bytes) and with outputs allocated to the exact size, so that ASan sees a
 * step that runs past the end. Hand-built streams cover each tag kind the
 * libsnappy compressor rarely emits, and every way a stream can be corrupt.
 */
#include "testutil.h"

#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

#include "codec/snappy_decode.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Compresses @p raw with libsnappy and checks that inlet decodes it back. */
static void roundtrip(const uint8_t *raw, size_t n) {
  size_t z_len = snappy_max_compressed_length(n);
  char *z = malloc(z_len);
  assert_non_null(z);
  assert_int_equal(snappy_compress((const char *)raw, n, z, &z_len), SNAPPY_OK);
  size_t declared = 0;
  assert_int_equal(inlet_snappy_length((const uint8_t *)z, z_len, &declared), INLET_SNAPPY_OK);
  assert_int_equal(declared, n);
  uint8_t *out = malloc(n ? n : 1);
  assert_non_null(out);
  assert_int_equal(inlet_snappy_decode((const uint8_t *)z, z_len, out, n), INLET_SNAPPY_OK);
  if (n) assert_memory_equal(out, raw, n);
  free(out);
  free(z);
}

static void test_snappy__libsnappy_streams_of_every_small_length(void **state) {
  (void)state;
  enum { MAX = 600 };
  uint8_t *buf = malloc(MAX);
  for (int shape = 0; shape < 4; shape++) {
    for (size_t n = 0; n <= MAX; n++) {
      for (size_t i = 0; i < n; i++) {
        switch (shape) {
        case 0: buf[i] = (uint8_t)rnd(); break;                       /* literals */
        case 1: buf[i] = (uint8_t)(i % 3); break;                     /* short-offset runs */
        case 2: buf[i] = (uint8_t)("abcdefghijklm"[i % 13]); break;   /* offset 13 */
        default: buf[i] = (uint8_t)(i / 8 % 5 == 0 ? rnd() : i % 40); /* mixed */
        }
      }
      roundtrip(buf, n);
    }
  }
  free(buf);
}

static void test_snappy__libsnappy_streams_of_parquet_shaped_pages(void **state) {
  (void)state;
  /* PLAIN int64 ascending and doubles: many short literals and copies. */
  size_t rows = 131072, n = rows * 8;
  uint8_t *page = malloc(n);
  for (size_t i = 0; i < rows; i++) {
    int64_t v = (int64_t)(1700000000000000 + i * 1000 + rnd() % 1000);
    memcpy(page + i * 8, &v, 8);
  }
  roundtrip(page, n);
  for (size_t i = 0; i < rows; i++) {
    double d = (double)(rnd() % 1000000) / 100.0;
    memcpy(page + i * 8, &d, 8);
  }
  roundtrip(page, n);
  memset(page, 0, n);
  roundtrip(page, n);
  free(page);
}

/* Every tag kind by hand, including the 4-byte-offset copy and the long
 * literal lengths libsnappy's compressor emits only for large inputs. */
static void test_snappy__each_tag_kind(void **state) {
  (void)state;
  uint8_t out[64];
  /* literal "abcd", copy1 len 8 off 4 */
  const uint8_t s1[] = {12, 0x0c, 'a', 'b', 'c', 'd', 0x11, 4};
  assert_int_equal(inlet_snappy_decode(s1, sizeof s1, out, 12), INLET_SNAPPY_OK);
  assert_memory_equal(out, "abcdabcdabcd", 12);
  /* literal "x", copy2 len 19 off 1: a run */
  const uint8_t s2[] = {20, 0x00, 'x', 0x4a, 1, 0};
  assert_int_equal(inlet_snappy_decode(s2, sizeof s2, out, 20), INLET_SNAPPY_OK);
  for (int i = 0; i < 20; i++)
    assert_int_equal(out[i], 'x');
  /* literal "01234567", copy4 len 16 off 8 */
  const uint8_t s3[] = {24, 0x1c, '0', '1', '2', '3', '4', '5', '6', '7', 0x3f, 8, 0, 0, 0};
  assert_int_equal(inlet_snappy_decode(s3, sizeof s3, out, 24), INLET_SNAPPY_OK);
  assert_memory_equal(out, "012345670123456701234567", 24);
  /* a literal whose length (3) is spelled in 1, 2, 3 and 4 extra bytes */
  for (unsigned nb = 1; nb <= 4; nb++) {
    uint8_t s[16] = {3, (uint8_t)((59 + nb) << 2), 2};
    memcpy(s + 2 + nb, "xyz", 3);
    assert_int_equal(inlet_snappy_decode(s, 2 + nb + 3, out, 3), INLET_SNAPPY_OK);
    assert_memory_equal(out, "xyz", 3);
  }
  /* the empty stream */
  const uint8_t s0[] = {0};
  assert_int_equal(inlet_snappy_decode(s0, 1, out, 0), INLET_SNAPPY_OK);
}

static void test_snappy__corrupt_streams_are_refused(void **state) {
  (void)state;
  uint8_t out[64];
  size_t n;
  /* length preamble: empty, unterminated, a fifth byte past 32 bits */
  assert_int_equal(inlet_snappy_length(NULL, 0, &n), INLET_SNAPPY_BAD_HEADER);
  const uint8_t unterminated[] = {0x80, 0x80};
  assert_int_equal(inlet_snappy_length(unterminated, 2, &n), INLET_SNAPPY_BAD_HEADER);
  const uint8_t too_wide[] = {0xff, 0xff, 0xff, 0xff, 0x10};
  assert_int_equal(inlet_snappy_length(too_wide, 5, &n), INLET_SNAPPY_BAD_HEADER);
  const uint8_t widest[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
  assert_int_equal(inlet_snappy_length(widest, 5, &n), INLET_SNAPPY_OK);
  assert_int_equal(n, 0xffffffffu);
  /* declared length differs from the buffer */
  const uint8_t s1[] = {12, 0x0c, 'a', 'b', 'c', 'd', 0x11, 4};
  assert_int_equal(inlet_snappy_decode(s1, sizeof s1, out, 11), INLET_SNAPPY_BAD_LENGTH);
  /* every truncation of a valid stream */
  for (size_t cut = 1; cut < sizeof s1; cut++)
    assert_int_equal(inlet_snappy_decode(s1, cut, out, 12), INLET_SNAPPY_CORRUPT);
  /* offset 0; offset before the start of the output */
  const uint8_t off0[] = {5, 0x00, 'a', 0x01, 0};
  assert_int_equal(inlet_snappy_decode(off0, sizeof off0, out, 5), INLET_SNAPPY_CORRUPT);
  const uint8_t off_far[] = {5, 0x00, 'a', 0x01, 2};
  assert_int_equal(inlet_snappy_decode(off_far, sizeof off_far, out, 5), INLET_SNAPPY_CORRUPT);
  /* a copy or literal past the declared output; output left short */
  const uint8_t over[] = {4, 0x00, 'a', 0x11, 1};
  assert_int_equal(inlet_snappy_decode(over, sizeof over, out, 4), INLET_SNAPPY_CORRUPT);
  const uint8_t lit_over[] = {2, 0x08, 'a', 'b', 'c'};
  assert_int_equal(inlet_snappy_decode(lit_over, sizeof lit_over, out, 2), INLET_SNAPPY_CORRUPT);
  const uint8_t shortfall[] = {6, 0x08, 'a', 'b', 'c'};
  assert_int_equal(inlet_snappy_decode(shortfall, sizeof shortfall, out, 6), INLET_SNAPPY_CORRUPT);
  /* a literal longer than the input that is left, with 4 length bytes */
  const uint8_t huge[] = {3, 0xfc, 0xfe, 0xff, 0xff, 0xff, 'a'};
  assert_int_equal(inlet_snappy_decode(huge, sizeof huge, out, 3), INLET_SNAPPY_CORRUPT);
  /* ... but a length of 0xffffffff + 1 is 0 in libsnappy's 32 bits: an empty
   * literal, which both decoders accept */
  const uint8_t wraps[] = {0, 0xfc, 0xff, 0xff, 0xff, 0xff};
  assert_int_equal(inlet_snappy_decode(wraps, sizeof wraps, out, 0), INLET_SNAPPY_OK);
  size_t lib_n = 0;
  assert_int_equal(snappy_uncompress((const char *)wraps, sizeof wraps, (char *)out, &lib_n),
                   SNAPPY_OK);
  assert_int_equal(lib_n, 0);
  /* tags whose offset bytes are missing */
  const uint8_t c2[] = {2, 0x00, 'a', 0x02, 1};
  assert_int_equal(inlet_snappy_decode(c2, sizeof c2, out, 2), INLET_SNAPPY_CORRUPT);
  const uint8_t c4[] = {2, 0x00, 'a', 0x03, 1, 0, 0};
  assert_int_equal(inlet_snappy_decode(c4, sizeof c4, out, 2), INLET_SNAPPY_CORRUPT);
}

/* Appends one random tag to @p z (at *zn) that is valid after @p produced
 * output bytes, and returns how many output bytes it adds. Copies take the
 * offsets and lengths libsnappy's compressor rarely emits (offsets 1..15
 * with lengths up to 64, 2- and 4-byte offsets for near copies). */
static size_t put_random_tag(uint8_t *z, size_t *zn, size_t produced) {
  const unsigned kind = (unsigned)(rnd() % 4);
  if (kind == 0 || produced == 0) {
    size_t len = rnd() % 4 == 0 ? 17 + rnd() % 200 : 1 + rnd() % 16;
    if (len <= 60) {
      z[(*zn)++] = (uint8_t)((len - 1) << 2);
    } else {
      z[(*zn)++] = (uint8_t)(60 << 2);
      z[(*zn)++] = (uint8_t)(len - 1);
    }
    for (size_t i = 0; i < len; i++)
      z[(*zn)++] = (uint8_t)rnd();
    return len;
  }
  const size_t max_off = produced < 40 || rnd() % 2 ? produced : 40;
  size_t off = 1 + rnd() % (max_off < 2047 ? max_off : 2047);
  if (kind == 1) {
    size_t len = 4 + rnd() % 8;
    z[(*zn)++] = (uint8_t)(1 | ((len - 4) << 2) | ((off >> 8) << 5));
    z[(*zn)++] = (uint8_t)off;
    return len;
  }
  size_t len = 1 + rnd() % 64;
  z[(*zn)++] = (uint8_t)(kind | ((len - 1) << 2));
  for (unsigned b = 0; b < (kind == 2 ? 2u : 4u); b++)
    z[(*zn)++] = (uint8_t)(off >> (8 * b));
  return len;
}

/* Hand-built streams of every tag kind, long enough that the decoder's
 * unchecked path takes most tags and its checked path the last ones: inlet
 * and libsnappy must give the same bytes, and the same verdict after one
 * byte of a tag is changed. */
static void test_snappy__random_tag_streams_agree_with_libsnappy(void **state) {
  (void)state;
  enum { TAGS = 600 };
  uint8_t *body = malloc(TAGS * 220), *z = malloc(TAGS * 220 + 8);
  assert_non_null(body);
  assert_non_null(z);
  for (int round = 0; round < 300; round++) {
    size_t bn = 0, produced = 0;
    const size_t tags = 1 + rnd() % TAGS;
    for (size_t t = 0; t < tags; t++)
      produced += put_random_tag(body, &bn, produced);
    size_t zn = 0;
    for (size_t v = produced;; v >>= 7) {
      z[zn++] = (uint8_t)(v < 128 ? v : (v & 127) | 128);
      if (v < 128) break;
    }
    const size_t header = zn;
    memcpy(z + zn, body, bn);
    zn += bn;
    char *ref = malloc(produced);
    uint8_t *out = malloc(produced);
    assert_non_null(ref);
    assert_non_null(out);
    size_t lib_n = produced;
    assert_int_equal(snappy_uncompress((const char *)z, zn, ref, &lib_n), SNAPPY_OK);
    assert_int_equal(inlet_snappy_decode(z, zn, out, produced), INLET_SNAPPY_OK);
    assert_memory_equal(out, ref, produced);
    for (int flip = 0; flip < 8; flip++) {
      const size_t at = header + rnd() % bn;
      const uint8_t was = z[at];
      z[at] = (uint8_t)(was ^ (1 + rnd() % 255));
      lib_n = produced;
      const int lib_ok = snappy_uncompress((const char *)z, zn, ref, &lib_n) == SNAPPY_OK;
      const int own_ok = inlet_snappy_decode(z, zn, out, produced) == INLET_SNAPPY_OK;
      assert_int_equal(own_ok, lib_ok);
      if (lib_ok) assert_memory_equal(out, ref, produced);
      z[at] = was;
    }
    free(ref);
    free(out);
  }
  free(body);
  free(z);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_snappy__libsnappy_streams_of_every_small_length),
      cmocka_unit_test(test_snappy__libsnappy_streams_of_parquet_shaped_pages),
      cmocka_unit_test(test_snappy__each_tag_kind),
      cmocka_unit_test(test_snappy__corrupt_streams_are_refused),
      cmocka_unit_test(test_snappy__random_tag_streams_agree_with_libsnappy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
