/*
 * Unit tests for src/parquet bit packing and the RLE / bit-packed hybrid:
 * every bit width 0..32 (0..64 for plain bit packing) against a bit-by-bit
 * reference packer written here, golden bytes from Encodings.md, random
 * and run-heavy round trips with lengths that are not multiples of 8,
 * chunked reads, and hostile run headers.
 */
#include "testutil.h"

#include "parquet/encoding.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static uint64_t mask_of(int w) {
  return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* Reference: value i occupies bits [i*w, i*w + w), LSB first. */
static void ref_pack(uint8_t *dst, const uint64_t *v, size_t n, int w) {
  memset(dst, 0, pq_bitpacked_bytes(n, w));
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < w; b++)
      if ((v[i] >> b) & 1) {
        size_t bit = i * (size_t)w + (size_t)b;
        dst[bit / 8] |= (uint8_t)(1u << (bit % 8));
      }
}

static const size_t lengths[] = {0, 1, 7, 8, 9, 15, 64, 100, 1003};

static void test_bitpack__every_width_matches_reference(void **state) {
  (void)state;
  for (int w = 0; w <= 64; w++) {
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
      size_t n = lengths[li];
      uint64_t *v = malloc((n + 1) * sizeof *v);
      for (size_t i = 0; i < n; i++)
        v[i] = rnd() & mask_of(w);
      size_t nb = pq_bitpacked_bytes(n, w);
      uint8_t *ref = malloc(nb + 1), *got = malloc(nb + 1);
      ref_pack(ref, v, n, w);
      got[nb] = 0xAB; /* canary: nothing written past nb bytes */
      pq_pack64(got, v, n, w);
      assert_int_equal(got[nb], 0xAB);
      if (nb) assert_memory_equal(got, ref, nb);
      uint64_t *back = malloc((n + 1) * sizeof *back);
      pq_unpack64(back, ref, n, w);
      if (n) assert_memory_equal(back, v, n * sizeof *v);
      if (w <= 32) {
        uint32_t *v32 = malloc((n + 1) * 4), *b32 = malloc((n + 1) * 4);
        for (size_t i = 0; i < n; i++)
          v32[i] = (uint32_t)v[i];
        pq_pack32(got, v32, n, w);
        assert_int_equal(got[nb], 0xAB);
        if (nb) assert_memory_equal(got, ref, nb);
        pq_unpack32(b32, ref, n, w);
        if (n) assert_memory_equal(b32, v32, n * 4);
        free(v32);
        free(b32);
      }
      free(back);
      free(ref);
      free(got);
      free(v);
    }
  }
}

static void test_bitpack__bit_width_helper(void **state) {
  (void)state;
  assert_int_equal(pq_bit_width(0), 0);
  assert_int_equal(pq_bit_width(1), 1);
  assert_int_equal(pq_bit_width(2), 2);
  assert_int_equal(pq_bit_width(255), 8);
  assert_int_equal(pq_bit_width(256), 9);
  assert_int_equal(pq_bit_width(UINT64_MAX), 64);
  assert_int_equal(pq_bitpacked_bytes(9, 3), 4);
  assert_int_equal(pq_bitpacked_bytes(8, 3), 3);
}

/* Encodings.md example: values 0..7 with bit width 3 as one bit-packed run. */
static void test_rle__encodes_spec_example_bytes(void **state) {
  (void)state;
  uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  inlet_buf out = INLET_BUF_INIT;
  assert_int_equal(pq_rle_encode_u32(&out, v, 8, 3), 0);
  const uint8_t want[] = {0x03, 0x88, 0xC6, 0xFA};
  assert_int_equal(out.len, sizeof want);
  assert_memory_equal(out.data, want, sizeof want);
  inlet_buf_clear(&out);
  /* 100 copies of 5 at width 3: RLE header varint(100 << 1) = C8 01, value 05. */
  uint32_t r[100];
  for (int i = 0; i < 100; i++)
    r[i] = 5;
  assert_int_equal(pq_rle_encode_u32(&out, r, 100, 3), 0);
  const uint8_t want2[] = {0xC8, 0x01, 0x05};
  assert_int_equal(out.len, sizeof want2);
  assert_memory_equal(out.data, want2, sizeof want2);
  inlet_buf_reset(&out);
}

static void decode_all(const inlet_buf *enc, int w, uint32_t *dst, size_t n, bool chunked) {
  pq_rle_decoder d;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_rle_init(&d, enc->data, enc->len, w, &err), 0);
  size_t done = 0;
  while (done < n) {
    size_t k = chunked ? 1 + rnd() % 37 : n - done;
    if (k > n - done) k = n - done;
    int rc = pq_rle_get_u32(&d, dst + done, k, &err);
    if (rc) fail_msg("width %d at %zu: %s", w, done, inlet_errmsg(&err));
    done += k;
  }
}

static void test_rle__roundtrip_every_width_random_and_runs(void **state) {
  (void)state;
  for (int w = 0; w <= 32; w++) {
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
      for (int pattern = 0; pattern < 3; pattern++) {
        size_t n = lengths[li] + (pattern == 2 ? 3000 : 0);
        uint32_t *v = malloc((n + 1) * 4), *back = malloc((n + 1) * 4);
        size_t i = 0;
        while (i < n) {
          uint32_t x = (uint32_t)(rnd() & mask_of(w));
          size_t run = pattern == 0 ? 1 : 1 + rnd() % (pattern == 1 ? 20 : 300);
          for (size_t k = 0; k < run && i < n; k++)
            v[i++] = x;
        }
        inlet_buf enc = INLET_BUF_INIT;
        assert_int_equal(pq_rle_encode_u32(&enc, v, n, w), 0);
        decode_all(&enc, w, back, n, false);
        if (n) assert_memory_equal(back, v, n * 4);
        decode_all(&enc, w, back, n, true);
        if (n) assert_memory_equal(back, v, n * 4);
        /* Run-heavy data must compress far below bit-packing everything. */
        if (pattern == 2 && w >= 8) assert_true(enc.len < pq_bitpacked_bytes(n, w) / 4);
        inlet_buf_reset(&enc);
        free(v);
        free(back);
      }
    }
  }
}

static void test_rle__i16_roundtrip_widths_0_to_16(void **state) {
  (void)state;
  for (int w = 0; w <= 16; w++) {
    const size_t n = 777;
    int16_t *lv = malloc(n * 2), *back = malloc(n * 2);
    for (size_t i = 0; i < n; i++)
      lv[i] = (int16_t)((i / 40) % 2 ? rnd() & mask_of(w) : mask_of(w) & 0x5555);
    inlet_buf enc = INLET_BUF_INIT;
    assert_int_equal(pq_rle_encode_i16(&enc, lv, n, w), 0);
    pq_rle_decoder d;
    assert_int_equal(pq_rle_init(&d, enc.data, enc.len, w, NULL), 0);
    assert_int_equal(pq_rle_get_i16(&d, back, n, (uint32_t)mask_of(w), NULL), 0);
    assert_memory_equal(back, lv, n * 2);
    inlet_buf_reset(&enc);
    free(lv);
    free(back);
  }
}

static void test_rle__i16_levels_and_validity(void **state) {
  (void)state;
  const size_t n = 5001;
  int16_t *lv = malloc(n * 2), *back = malloc(n * 2);
  for (size_t i = 0; i < n; i++)
    lv[i] = (int16_t)((i / 13) % 3 == 0 ? 2 : rnd() % 3);
  inlet_buf enc = INLET_BUF_INIT;
  assert_int_equal(pq_rle_encode_levels_v1_i16(&enc, lv, n, 2), 0);
  uint32_t prefix = (uint32_t)enc.data[0] | (uint32_t)enc.data[1] << 8 |
                    (uint32_t)enc.data[2] << 16 | (uint32_t)enc.data[3] << 24;
  assert_int_equal(prefix, enc.len - 4);
  inlet_buf_push(&enc, 0xEE); /* what follows the levels in a page */
  pq_rle_decoder d;
  size_t consumed = 0;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_rle_init_levels_v1(&d, enc.data, enc.len, 2, &consumed, &err), 0);
  assert_int_equal(consumed, enc.len - 1);
  assert_int_equal(pq_rle_get_i16(&d, back, n, 2, &err), 0);
  assert_memory_equal(back, lv, n * 2);
  /* Same levels as a validity bitmap at an odd bit offset. */
  assert_int_equal(pq_rle_init_levels_v1(&d, enc.data, enc.len, 2, &consumed, &err), 0);
  uint8_t *bits = calloc(n / 8 + 2, 1);
  int64_t nv = 0;
  assert_int_equal(pq_rle_get_validity(&d, bits, 3, n, 2, &nv, &err), 0);
  int64_t want = 0;
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(inlet_bit_get(bits, 3 + (int64_t)i), lv[i] == 2);
    want += lv[i] == 2;
  }
  assert_int_equal(nv, want);
  assert_int_equal(inlet_bit_get(bits, 0), 0);
  /* A max level of 1 makes level 2 corrupt. */
  assert_int_equal(pq_rle_init_levels_v1(&d, enc.data, enc.len, 2, &consumed, &err), 0);
  assert_int_equal(pq_rle_get_i16(&d, back, n, 1, &err), INLET_ECORRUPT);
  free(bits);
  free(lv);
  free(back);
  inlet_buf_reset(&enc);
}

static void test_rle__bits_encoder_matches_bitmap(void **state) {
  (void)state;
  const size_t n = 4099;
  uint8_t *bm = calloc(n / 8 + 2, 1);
  for (size_t i = 0; i < n; i++) {
    bool v = i < 1000 ? true : i < 1500 ? false : (rnd() & 1);
    inlet_bit_set(bm, (int64_t)i, v);
  }
  for (int64_t start = 0; start < 10; start += 3) {
    size_t m = n - (size_t)start;
    inlet_buf enc = INLET_BUF_INIT;
    assert_int_equal(pq_rle_encode_levels_v1_bits(&enc, bm, start, m), 0);
    pq_rle_decoder d;
    size_t consumed;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(pq_rle_init_levels_v1(&d, enc.data, enc.len, 1, &consumed, &err), 0);
    uint32_t *v = malloc(m * 4);
    assert_int_equal(pq_rle_get_u32(&d, v, m, &err), 0);
    for (size_t i = 0; i < m; i++)
      assert_int_equal(v[i], inlet_bit_get(bm, start + (int64_t)i));
    free(v);
    inlet_buf_reset(&enc);
  }
  /* NULL bitmap = all valid: a single RLE run of ones. */
  inlet_buf enc = INLET_BUF_INIT;
  assert_int_equal(pq_rle_encode_bits(&enc, NULL, 0, 1000), 0);
  const uint8_t want[] = {0xD0, 0x0F, 0x01}; /* varint(2000), value 1 */
  assert_int_equal(enc.len, sizeof want);
  assert_memory_equal(enc.data, want, sizeof want);
  inlet_buf_reset(&enc);
  free(bm);
}

static void test_rle__skip_then_read(void **state) {
  (void)state;
  const size_t n = 3000;
  uint32_t *v = malloc(n * 4), out[100];
  for (size_t i = 0; i < n; i++)
    v[i] = (i / 50) % 2 ? (uint32_t)(rnd() % 1000) : 7;
  inlet_buf enc = INLET_BUF_INIT;
  assert_int_equal(pq_rle_encode_u32(&enc, v, n, 10), 0);
  for (size_t skip = 0; skip < 2900; skip += 97) {
    pq_rle_decoder d;
    assert_int_equal(pq_rle_init(&d, enc.data, enc.len, 10, NULL), 0);
    assert_int_equal(pq_rle_skip(&d, skip, NULL), 0);
    assert_int_equal(pq_rle_get_u32(&d, out, 100, NULL), 0);
    assert_memory_equal(out, v + skip, 400);
  }
  inlet_buf_reset(&enc);
  free(v);
}

static void test_rle__dict_indices_fused_gather(void **state) {
  (void)state;
  const size_t n = 2000;
  uint32_t *idx = malloc(n * 4);
  for (size_t i = 0; i < n; i++)
    idx[i] = i < 500 ? 3 : (uint32_t)(rnd() % 5);
  const int64_t dict[5] = {INT64_MIN, -1, 0, 42, INT64_MAX};
  inlet_buf enc = INLET_BUF_INIT;
  assert_int_equal(pq_rle_encode_dict_indices(&enc, idx, n, 3), 0);
  assert_int_equal(enc.data[0], 3);
  pq_rle_decoder d;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_rle_init_dict(&d, enc.data, enc.len, &err), 0);
  int64_t *out = malloc(n * 8);
  assert_int_equal(pq_rle_dict_fixed(&d, out, dict, 5, 8, n, &err), 0);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(out[i], dict[idx[i]]);
  /* Same indices against a 4-entry dictionary: index 4 is out of range. */
  assert_int_equal(pq_rle_init_dict(&d, enc.data, enc.len, &err), 0);
  assert_int_equal(pq_rle_dict_fixed(&d, out, dict, 4, 8, n, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "out of range"));
  /* RLE run of index 3 against a 3-entry dictionary. */
  assert_int_equal(pq_rle_init_dict(&d, enc.data, enc.len, &err), 0);
  assert_int_equal(pq_rle_dict_fixed(&d, out, dict, 3, 8, 10, &err), INLET_ECORRUPT);
  free(out);
  free(idx);
  inlet_buf_reset(&enc);
}

static int decode_bytes(const uint8_t *p, size_t len, int w, size_t n, inlet_error *err) {
  pq_rle_decoder d;
  int rc = pq_rle_init(&d, p, len, w, err);
  if (rc) return rc;
  uint32_t *out = malloc((n + 1) * 4);
  rc = pq_rle_get_u32(&d, out, n, err);
  free(out);
  return rc;
}

static void test_rle__hostile_headers_are_corrupt(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  /* Bit width above 32. */
  assert_int_equal(decode_bytes((const uint8_t *)"\x02\x01", 2, 33, 1, &err), INLET_ECORRUPT);
  /* No data at all. */
  assert_int_equal(decode_bytes(NULL, 0, 3, 1, &err), INLET_ECORRUPT);
  /* Truncated varint header. */
  assert_int_equal(decode_bytes((const uint8_t *)"\x80\x80", 2, 3, 1, &err), INLET_ECORRUPT);
  /* Varint longer than 5 bytes. */
  const uint8_t longv[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00};
  assert_int_equal(decode_bytes(longv, sizeof longv, 3, 1, &err), INLET_ECORRUPT);
  /* Header above 32 bits (5-byte varint with high bits). */
  const uint8_t big[] = {0xFE, 0xFF, 0xFF, 0xFF, 0x7F, 0x00};
  assert_int_equal(decode_bytes(big, sizeof big, 3, 1, &err), INLET_ECORRUPT);
  /* RLE run whose value bytes are missing (width 16 needs 2). */
  assert_int_equal(decode_bytes((const uint8_t *)"\x10\x01", 2, 16, 1, &err), INLET_ECORRUPT);
  /* RLE value wider than the bit width. */
  assert_int_equal(decode_bytes((const uint8_t *)"\x10\x09", 2, 3, 1, &err), INLET_ECORRUPT);
  /* RLE run of 8 values but 9 requested, nothing after. */
  assert_int_equal(decode_bytes((const uint8_t *)"\x10\x01", 2, 3, 9, &err), INLET_ECORRUPT);
  assert_int_equal(decode_bytes((const uint8_t *)"\x10\x01", 2, 3, 8, &err), 0);
  /* Bit-packed run of 2^20 groups with 1 byte of data, width 16: not even one value. */
  const uint8_t bp[] = {0x81, 0x80, 0x80, 0x01, 0xFF};
  assert_int_equal(decode_bytes(bp, sizeof bp, 16, 1, &err), INLET_ECORRUPT);
  /* A huge bit-packed run with a few bytes: values present can be read, more cannot. */
  const uint8_t bp2[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 1, 2, 3};
  assert_int_equal(decode_bytes(bp2, sizeof bp2, 8, 3, &err), 0);
  assert_int_equal(decode_bytes(bp2, sizeof bp2, 8, 4, &err), INLET_ECORRUPT);
  /* Zero-length runs consume their header and go on. */
  assert_int_equal(decode_bytes((const uint8_t *)"\x00\x00\x01\x10\x01", 5, 1, 8, &err), 0);
  /* Dictionary prefix missing or wider than 32. */
  pq_rle_decoder d;
  assert_int_equal(pq_rle_init_dict(&d, NULL, 0, &err), INLET_ECORRUPT);
  assert_int_equal(pq_rle_init_dict(&d, (const uint8_t *)"\x21\x00", 2, &err), INLET_ECORRUPT);
  /* Levels length prefix past the page. */
  size_t consumed = 99;
  assert_int_equal(
      pq_rle_init_levels_v1(&d, (const uint8_t *)"\x05\x00\x00\x00\x10\x01", 6, 1, &consumed, &err),
      INLET_ECORRUPT);
  assert_int_equal(consumed, 0);
  assert_int_equal(pq_rle_init_levels_v1(&d, (const uint8_t *)"\x05\x00", 2, 1, &consumed, &err),
                   INLET_ECORRUPT);
}

static void test_rle__random_garbage_never_overreads(void **state) {
  (void)state;
  uint32_t out[300];
  for (int iter = 0; iter < 3000; iter++) {
    size_t len = rnd() % 40;
    uint8_t *p = malloc(len ? len : 1); /* exact size: ASan catches overreads */
    for (size_t i = 0; i < len; i++)
      p[i] = (uint8_t)rnd();
    int w = (int)(rnd() % 33);
    pq_rle_decoder d;
    assert_int_equal(pq_rle_init(&d, p, len, w, NULL), 0);
    int rc = pq_rle_get_u32(&d, out, 1 + rnd() % 300, NULL);
    assert_true(rc == 0 || rc == INLET_ECORRUPT);
    if (rc == 0 && w < 32)
      for (size_t i = 0; i < 1; i++)
        assert_true(out[i] <= mask_of(w));
    free(p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bitpack__every_width_matches_reference),
      cmocka_unit_test(test_bitpack__bit_width_helper),
      cmocka_unit_test(test_rle__encodes_spec_example_bytes),
      cmocka_unit_test(test_rle__roundtrip_every_width_random_and_runs),
      cmocka_unit_test(test_rle__i16_roundtrip_widths_0_to_16),
      cmocka_unit_test(test_rle__i16_levels_and_validity),
      cmocka_unit_test(test_rle__bits_encoder_matches_bitmap),
      cmocka_unit_test(test_rle__skip_then_read),
      cmocka_unit_test(test_rle__dict_indices_fused_gather),
      cmocka_unit_test(test_rle__hostile_headers_are_corrupt),
      cmocka_unit_test(test_rle__random_garbage_never_overreads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
