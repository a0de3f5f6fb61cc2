/*
 * Unit tests for PLAIN encoding and the spread helpers (src/parquet/plain.c):
 * byte layouts written out by hand from Encodings.md, round trips with
 * boundary values (INT64 min/max, NaN, -0.0, empty and 1 MiB strings),
 * null skipping, truncated pages, INT96 conversion.
 */
#include "testutil.h"

#include <math.h>

#include "parquet/encoding.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void test_plain__int64_layout_and_boundaries(void **state) {
  (void)state;
  const int64_t v[4] = {INT64_MIN, -1, 0, INT64_MAX};
  inlet_buf out = INLET_BUF_INIT;
  assert_int_equal(pq_plain_encode_fixed(&out, v, 8, NULL, 0, 4), 0);
  assert_int_equal(out.len, 32);
  const uint8_t first[8] = {0, 0, 0, 0, 0, 0, 0, 0x80}; /* INT64_MIN little-endian */
  assert_memory_equal(out.data, first, 8);
  int64_t back[4];
  pq_plain_decoder d;
  pq_plain_init(&d, out.data, out.len);
  assert_int_equal(pq_plain_decode_fixed(&d, back, 4, 8, NULL), 0);
  assert_memory_equal(back, v, sizeof v);
  assert_int_equal(pq_plain_remaining(&d), 0);
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_plain_decode_fixed(&d, back, 1, 8, &err), INLET_ECORRUPT);
  /* A huge count cannot overflow the size check. */
  pq_plain_init(&d, out.data, out.len);
  assert_int_equal(pq_plain_decode_fixed(&d, back, SIZE_MAX / 4, 8, &err), INLET_ECORRUPT);
  inlet_buf_reset(&out);
}

static void test_plain__doubles_keep_nan_and_negative_zero_bits(void **state) {
  (void)state;
  double v[4] = {NAN, -0.0, 0.0, -INFINITY};
  inlet_buf out = INLET_BUF_INIT;
  assert_int_equal(pq_plain_encode_fixed(&out, v, 8, NULL, 0, 4), 0);
  double back[4];
  pq_plain_decoder d;
  pq_plain_init(&d, out.data, out.len);
  assert_int_equal(pq_plain_decode_fixed(&d, back, 4, 8, NULL), 0);
  assert_memory_equal(back, v, sizeof v);
  assert_true(isnan(back[0]));
  assert_true(signbit(back[1]));
  inlet_buf_reset(&out);
}

static void test_plain__fixed_skips_nulls(void **state) {
  (void)state;
  int32_t v[20];
  uint8_t valid[3] = {0};
  for (int i = 0; i < 20; i++) {
    v[i] = i * 10;
    if (i % 3 != 1) inlet_bit_set(valid, i, true);
  }
  inlet_buf out = INLET_BUF_INIT;
  /* Rows 2..18. */
  assert_int_equal(pq_plain_encode_fixed(&out, v, 4, valid, 2, 17), 0);
  int32_t want[20];
  size_t k = 0;
  for (int i = 2; i < 19; i++)
    if (i % 3 != 1) want[k++] = i * 10;
  assert_int_equal(out.len, k * 4);
  assert_memory_equal(out.data, want, k * 4);
  inlet_buf_reset(&out);
}

static void test_plain__bool_bits_across_calls(void **state) {
  (void)state;
  uint8_t bits[2] = {0xB5, 0x03};  /* 1,0,1,0,1,1,0,1, 1,1 */
  uint8_t valid[2] = {0xFF, 0xFD}; /* row 9 null */
  inlet_buf out = INLET_BUF_INIT;
  pq_bool_encoder e;
  pq_bool_encoder_init(&e, &out);
  assert_int_equal(pq_bool_encoder_put(&e, bits, NULL, 0, 3), 0);
  assert_int_equal(pq_bool_encoder_put(&e, bits, valid, 3, 7), 0);
  assert_int_equal(pq_bool_encoder_finish(&e), 0);
  /* Rows 0..9 minus row 9: bits 1,0,1,0,1,1,0,1,1 -> 0xB5 0x01 */
  assert_int_equal(out.len, 2);
  assert_int_equal(out.data[0], 0xB5);
  assert_int_equal(out.data[1], 0x01);
  /* 100 values round trip, decoded at odd offsets in pieces. */
  inlet_buf_clear(&out);
  uint8_t src[13] = {0}, dst[16] = {0};
  for (int i = 0; i < 100; i++)
    inlet_bit_set(src, i, rnd() & 1);
  pq_bool_encoder_init(&e, &out);
  assert_int_equal(pq_bool_encoder_put(&e, src, NULL, 0, 100), 0);
  assert_int_equal(pq_bool_encoder_finish(&e), 0);
  assert_int_equal(out.len, 13);
  pq_plain_decoder d;
  pq_plain_init(&d, out.data, out.len);
  assert_int_equal(pq_plain_decode_bool(&d, dst, 5, 37, NULL), 0);
  assert_int_equal(pq_plain_decode_bool(&d, dst, 42, 63, NULL), 0);
  for (int i = 0; i < 100; i++)
    assert_int_equal(inlet_bit_get(dst, 5 + i), inlet_bit_get(src, i));
  assert_int_equal(pq_plain_decode_bool(&d, dst, 0, 4, NULL), 0); /* the 4 padding bits */
  assert_int_equal(pq_plain_decode_bool(&d, dst, 0, 1, NULL), INLET_ECORRUPT);
  /* Aligned fast path. */
  memset(dst, 0, sizeof dst);
  pq_plain_init(&d, out.data, out.len);
  assert_int_equal(pq_plain_decode_bool(&d, dst, 8, 100, NULL), 0);
  for (int i = 0; i < 100; i++)
    assert_int_equal(inlet_bit_get(dst, 8 + i), inlet_bit_get(src, i));
  inlet_buf_reset(&out);
}

static void test_plain__binary_layout_empty_and_nulls(void **state) {
  (void)state;
  const char data[] = "abcxyz";
  const int32_t offsets[5] = {0, 3, 3, 6, 6}; /* "abc", "", "xyz", "" */
  uint8_t valid[1] = {0x0B};                  /* row 2 null */
  inlet_buf out = INLET_BUF_INIT;
  assert_int_equal(pq_plain_encode_binary(&out, offsets, (const uint8_t *)data, valid, 0, 4), 0);
  const uint8_t want[] = {3, 0, 0, 0, 'a', 'b', 'c', 0, 0, 0, 0, 0, 0, 0, 0};
  assert_int_equal(out.len, sizeof want);
  assert_memory_equal(out.data, want, sizeof want);
  pq_plain_decoder d;
  pq_plain_init(&d, out.data, out.len);
  size_t total = 99;
  assert_int_equal(pq_plain_measure_binary(&d, 3, &total, NULL), 0);
  assert_int_equal(total, 3);
  int32_t off[4] = {7, 0, 0, 0};
  inlet_buf bytes = INLET_BUF_INIT;
  inlet_buf_puts(&bytes, "prefix!");
  assert_int_equal(pq_plain_decode_binary(&d, 3, off, &bytes, NULL), 0);
  assert_int_equal(off[1], 10);
  assert_int_equal(off[2], 10);
  assert_int_equal(off[3], 10);
  assert_int_equal(bytes.len, 10);
  assert_memory_equal(bytes.data + 7, "abc", 3);
  assert_int_equal(pq_plain_remaining(&d), 0);
  inlet_buf_reset(&bytes);
  inlet_buf_reset(&out);
}

static void test_plain__binary_one_mib_strings_roundtrip(void **state) {
  (void)state;
  const size_t big = 1 << 20;
  uint8_t *data = malloc(2 * big + 5);
  for (size_t i = 0; i < 2 * big + 5; i++)
    data[i] = (uint8_t)rnd();
  int32_t offsets[4] = {0, (int32_t)big, (int32_t)big + 5, (int32_t)(2 * big + 5)};
  inlet_buf out = INLET_BUF_INIT;
  assert_int_equal(pq_plain_encode_binary(&out, offsets, data, NULL, 0, 3), 0);
  assert_int_equal(out.len, 2 * big + 5 + 12);
  pq_plain_decoder d;
  pq_plain_init(&d, out.data, out.len);
  int32_t off[4] = {0};
  uint8_t *raw = malloc(2 * big + 5);
  inlet_error err = INLET_ERROR_INIT;
  /* The raw variant refuses a buffer one byte short. */
  assert_int_equal(pq_plain_decode_binary_raw(&d, 3, off, raw, 2 * big + 4, &err), INLET_ELIMIT);
  assert_int_equal(pq_plain_decode_binary_raw(&d, 3, off, raw, 2 * big + 5, &err), 0);
  assert_memory_equal(off, offsets, sizeof offsets);
  assert_memory_equal(raw, data, 2 * big + 5);
  free(raw);
  free(data);
  inlet_buf_reset(&out);
}

static void test_plain__binary_truncated_is_corrupt(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  const uint8_t bad_len[] = {5, 0, 0, 0, 'a', 'b'};
  pq_plain_decoder d;
  pq_plain_init(&d, bad_len, sizeof bad_len);
  int32_t off[2] = {0};
  inlet_buf bytes = INLET_BUF_INIT;
  assert_int_equal(pq_plain_decode_binary(&d, 1, off, &bytes, &err), INLET_ECORRUPT);
  assert_non_null(strstr(err.message, "length 5"));
  const uint8_t short_prefix[] = {1, 0, 0, 0, 'a', 2, 0};
  pq_plain_init(&d, short_prefix, sizeof short_prefix);
  assert_int_equal(pq_plain_skip_binary(&d, 2, &err), INLET_ECORRUPT);
  assert_int_equal(pq_plain_skip_binary(&d, 1, &err), 0);
  assert_int_equal(d.pos, 5);
  /* 0xFFFFFFFF length. */
  const uint8_t huge[] = {0xFF, 0xFF, 0xFF, 0xFF, 'a'};
  pq_plain_init(&d, huge, sizeof huge);
  assert_int_equal(pq_plain_decode_binary(&d, 1, off, &bytes, &err), INLET_ECORRUPT);
  /* offsets[0] near INT32_MAX: the total would overflow int32 offsets. */
  const uint8_t ok[] = {2, 0, 0, 0, 'h', 'i'};
  pq_plain_init(&d, ok, sizeof ok);
  off[0] = INT32_MAX - 1;
  assert_int_equal(pq_plain_decode_binary(&d, 1, off, &bytes, &err), INLET_ELIMIT);
  inlet_buf_reset(&bytes);
}

static void test_plain__binary_decode_out_of_memory(void **state) {
  (void)state;
  const uint8_t page[] = {2, 0, 0, 0, 'h', 'i', 1, 0, 0, 0, '!'};
  pq_plain_decoder d;
  pq_plain_init(&d, page, sizeof page);
  int32_t off[3] = {0};
  inlet_buf bytes = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  inlet_alloc_fail_after(0);
  int rc = pq_plain_decode_binary(&d, 2, off, &bytes, &err);
  inlet_alloc_fail_after(-1);
  assert_int_equal(rc, INLET_ENOMEM);
  assert_int_equal(d.pos, 0); /* nothing consumed: the caller may retry */
  inlet_buf_clear(&bytes);
  assert_int_equal(pq_plain_decode_binary(&d, 2, off, &bytes, &err), 0);
  assert_int_equal(off[2], 3);
  assert_memory_equal(bytes.data, "hi!", 3);
  inlet_buf_reset(&bytes);
}

static void int96(uint8_t out[12], int64_t nanos, uint32_t julian) {
  memcpy(out, &nanos, 8);
  memcpy(out + 8, &julian, 4);
}

static void test_plain__int96_to_micros_and_nanos(void **state) {
  (void)state;
  uint8_t buf[48];
  int96(buf, 0, 2440588);                   /* 1970-01-01T00:00:00 */
  int96(buf + 12, 1500, 2440589);           /* 1970-01-02 + 1.5 us */
  int96(buf + 24, 86399999999999, 2440587); /* 1969-12-31T23:59:59.999999999 */
  int96(buf + 36, 43200000000000, 2451545); /* 2000-01-01T12:00:00 */
  int64_t us[4];
  pq_plain_decoder d;
  pq_plain_init(&d, buf, sizeof buf);
  assert_int_equal(pq_plain_decode_int96(&d, us, 4, INLET_UNIT_MICRO, NULL), 0);
  assert_int_equal(us[0], 0);
  assert_int_equal(us[1], 86400000001);
  assert_int_equal(us[2], -1); /* floor, not truncation toward zero */
  assert_int_equal(us[3], 946728000000000);
  int64_t ns;
  assert_true(pq_int96_to_unit(buf + 24, INLET_UNIT_NANO, &ns));
  assert_int_equal(ns, -1);
  int64_t ms;
  assert_true(pq_int96_to_unit(buf + 36, INLET_UNIT_MILLI, &ms));
  assert_int_equal(ms, 946728000000);
  /* Julian day 0xFFFFFFFF does not fit int64 nanoseconds. */
  int96(buf, 0, 0xFFFFFFFFu);
  assert_false(pq_int96_to_unit(buf, INLET_UNIT_NANO, &ns));
  pq_plain_init(&d, buf, 12);
  assert_int_equal(pq_plain_decode_int96(&d, us, 1, INLET_UNIT_NANO, NULL), INLET_ECORRUPT);
  pq_plain_init(&d, buf, 11);
  assert_int_equal(pq_plain_decode_int96(&d, us, 1, INLET_UNIT_MICRO, NULL), INLET_ECORRUPT);
}

static void test_spread__fixed_offsets_and_bits(void **state) {
  (void)state;
  const size_t n = 203;
  uint8_t valid[26] = {0};
  size_t nv = 0;
  for (size_t i = 0; i < n; i++) {
    bool v = (i % 5 != 2) && (i < 100 || (rnd() & 1));
    inlet_bit_set(valid, (int64_t)(i + 1), v);
    nv += v;
  }
  assert_int_equal(pq_count_bits(valid, 1, n), (int64_t)nv);
  /* int64 values. */
  int64_t vals[203];
  for (size_t i = 0; i < nv; i++)
    vals[i] = (int64_t)i + 1000;
  pq_spread_fixed(vals, 8, valid, 1, n, nv);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (inlet_bit_get(valid, (int64_t)i + 1))
      assert_int_equal(vals[i], (int64_t)(k++) + 1000);
    else
      assert_int_equal(vals[i], 0);
  }
  /* 3-byte values take the generic path. */
  uint8_t v3[203 * 3];
  for (size_t i = 0; i < nv; i++)
    memset(v3 + 3 * i, (int)(i % 200) + 1, 3);
  pq_spread_fixed(v3, 3, valid, 1, n, nv);
  k = 0;
  for (size_t i = 0; i < n; i++)
    assert_int_equal(v3[3 * i + 2],
                     inlet_bit_get(valid, (int64_t)i + 1) ? (int)((k++) % 200) + 1 : 0);
  /* Offsets: valid value j has length j % 4. */
  int32_t off[204];
  off[0] = 50;
  for (size_t j = 0; j < nv; j++)
    off[j + 1] = off[j] + (int32_t)(j % 4);
  pq_spread_offsets(off, valid, 1, n, nv);
  k = 0;
  assert_int_equal(off[0], 50);
  for (size_t i = 0; i < n; i++) {
    int32_t len = off[i + 1] - off[i];
    if (inlet_bit_get(valid, (int64_t)i + 1))
      assert_int_equal(len, (int32_t)(k++ % 4));
    else
      assert_int_equal(len, 0);
  }
  /* Bits. */
  uint8_t bits[28] = {0};
  uint8_t dense[28] = {0};
  for (size_t j = 0; j < nv; j++) {
    bool b = (j * 7) % 3 == 0;
    inlet_bit_set(bits, (int64_t)(4 + j), b);
    inlet_bit_set(dense, (int64_t)j, b);
  }
  pq_spread_bits(bits, 4, valid, 1, n, nv);
  k = 0;
  for (size_t i = 0; i < n; i++) {
    bool want = inlet_bit_get(valid, (int64_t)i + 1) ? inlet_bit_get(dense, (int64_t)k++) : false;
    assert_int_equal(inlet_bit_get(bits, (int64_t)(4 + i)), want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain__int64_layout_and_boundaries),
      cmocka_unit_test(test_plain__doubles_keep_nan_and_negative_zero_bits),
      cmocka_unit_test(test_plain__fixed_skips_nulls),
      cmocka_unit_test(test_plain__bool_bits_across_calls),
      cmocka_unit_test(test_plain__binary_layout_empty_and_nulls),
      cmocka_unit_test(test_plain__binary_one_mib_strings_roundtrip),
      cmocka_unit_test(test_plain__binary_truncated_is_corrupt),
      cmocka_unit_test(test_plain__binary_decode_out_of_memory),
      cmocka_unit_test(test_plain__int96_to_micros_and_nanos),
      cmocka_unit_test(test_spread__fixed_offsets_and_bits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
