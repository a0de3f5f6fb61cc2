/*
 * Unit tests for the DELTA_BINARY_PACKED encoder (src/parquet/
 * encoding_delta.c): the byte layout of Encodings.md's examples written out
 * by hand, and round trips through the reader's independent decoder
 * (delta_decode.c) with wrapping deltas, extremes, nulls and lengths around
 * block and miniblock boundaries.
 */
#include "testutil.h"

#include "parquet/delta_decode.h"
#include "parquet/encoding.h"

static uint64_t rng_state = 0x1234567887654321ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Encodings.md example 1: 1, 2, 3, 4, 5 -> every delta is 1, min delta 1,
 * all bit widths 0, so the block is just its min delta and widths. */
static void test_delta__spec_example_consecutive(void **state) {
  (void)state;
  const int32_t v[5] = {1, 2, 3, 4, 5};
  inlet_buf out = INLET_BUF_INIT;
  assert_int_equal(pq_delta_encode_i32(&out, v, NULL, 0, 5), 0);
  const uint8_t want[] = {0x80, 0x01, 0x04, 0x05, 0x02, /* header */
                          0x02, 0x00, 0x00, 0x00, 0x00};
  assert_int_equal(out.len, sizeof want);
  assert_memory_equal(out.data, want, sizeof want);
  inlet_buf_reset(&out);
}

/* Encodings.md example 2: 7, 5, 3, 1, 2, 3, 4, 5 -> deltas -2 -2 -2 1 1 1 1,
 * min delta -2, relative deltas 0 0 0 3 3 3 3 in 2 bits. */
static void test_delta__spec_example_negative_min(void **state) {
  (void)state;
  const int64_t v[8] = {7, 5, 3, 1, 2, 3, 4, 5};
  inlet_buf out = INLET_BUF_INIT;
  assert_int_equal(pq_delta_encode_i64(&out, v, NULL, 0, 8), 0);
  const uint8_t head[] = {0x80, 0x01, 0x04, 0x08, 0x0E, /* first value zigzag(7) = 14 */
                          0x03,                         /* zigzag(-2) */
                          0x02, 0x00, 0x00, 0x00};      /* widths */
  assert_true(out.len == sizeof head + 8);              /* one 32-value miniblock of 2 bits */
  assert_memory_equal(out.data, head, sizeof head);
  /* 0,0,0,3,3,3,3 then zero padding, 2 bits each, LSB first. */
  const uint8_t body[8] = {0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
  assert_memory_equal(out.data + sizeof head, body, 8);
  inlet_buf_reset(&out);
}

static void check_roundtrip_i64(const int64_t *v, size_t n) {
  inlet_buf out = INLET_BUF_INIT;
  assert_int_equal(pq_delta_encode_i64(&out, v, NULL, 0, n), 0);
  uint64_t *back = malloc((n + 1) * 8);
  size_t used = 0;
  inlet_error err = INLET_ERROR_INIT;
  int rc = pq_delta_decode(out.data, out.len, back, n, &used, &err);
  if (rc) fail_msg("n=%zu: %s", n, inlet_errmsg(&err));
  assert_int_equal(used, out.len);
  for (size_t i = 0; i < n; i++)
    assert_int_equal((int64_t)back[i], v[i]);
  free(back);
  inlet_buf_reset(&out);
}

static void test_delta__i64_roundtrip_lengths_and_extremes(void **state) {
  (void)state;
  const size_t lens[] = {0, 1, 2, 31, 32, 33, 127, 128, 129, 130, 257, 1000, 4099};
  int64_t *v = malloc(4099 * 8);
  for (int pattern = 0; pattern < 4; pattern++) {
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
      size_t n = lens[li];
      for (size_t i = 0; i < n; i++) {
        switch (pattern) {
        case 0: v[i] = 1700000000000000 + (int64_t)i * 1000 + (int64_t)(rnd() % 1000); break;
        case 1: v[i] = (int64_t)rnd(); break; /* deltas wrap */
        case 2: v[i] = (i & 1) ? INT64_MAX : INT64_MIN; break;
        default: v[i] = 42; break;
        }
      }
      check_roundtrip_i64(v, n);
    }
  }
  free(v);
}

static void test_delta__i32_roundtrip_with_nulls(void **state) {
  (void)state;
  const size_t n = 1000;
  int32_t *v = malloc(n * 4);
  uint8_t valid[126] = {0};
  for (size_t i = 0; i < n; i++) {
    v[i] = (i % 3 == 0) ? INT32_MIN + (int32_t)i : (int32_t)(rnd() >> 33) - (int32_t)(rnd() >> 34);
    bool ok = i % 7 != 3;
    inlet_bit_set(valid, (int64_t)i, ok);
  }
  /* Rows 5 .. 5+990 of the column. */
  inlet_buf out = INLET_BUF_INIT;
  assert_int_equal(pq_delta_encode_i32(&out, v, valid, 5, 990), 0);
  size_t want_n = (size_t)pq_count_bits(valid, 5, 990);
  uint64_t *back = malloc(want_n * 8);
  size_t used;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_delta_decode(out.data, out.len, back, want_n, &used, &err), 0);
  size_t k = 0;
  for (size_t i = 5; i < 995; i++)
    if (inlet_bit_get(valid, (int64_t)i)) assert_int_equal((int32_t)back[k++], v[i]);
  assert_int_equal(k, want_n);
  /* Through the PLAIN transcoder as the reader uses it for INT32 pages. */
  inlet_buf plain = INLET_BUF_INIT;
  assert_int_equal(pq_delta_to_plain(out.data, out.len, want_n, 4, &plain, &err), 0);
  assert_int_equal(plain.len, want_n * 4);
  k = 0;
  for (size_t i = 5; i < 995; i++)
    if (inlet_bit_get(valid, (int64_t)i)) {
      int32_t x;
      memcpy(&x, plain.data + 4 * k++, 4);
      assert_int_equal(x, v[i]);
    }
  inlet_buf_reset(&plain);
  free(back);
  free(v);
  inlet_buf_reset(&out);
}

static void test_delta__ascending_ids_are_compact(void **state) {
  (void)state;
  const size_t n = 100000;
  int64_t *v = malloc(n * 8);
  for (size_t i = 0; i < n; i++)
    v[i] = (int64_t)i + 1000000;
  inlet_buf out = INLET_BUF_INIT;
  assert_int_equal(pq_delta_encode_i64(&out, v, NULL, 0, n), 0);
  /* Constant deltas: every block is 1 + 4 bytes of header, no bodies. */
  assert_true(out.len < n / 128 * 6 + 32);
  check_roundtrip_i64(v, n);
  free(v);
  inlet_buf_reset(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_delta__spec_example_consecutive),
      cmocka_unit_test(test_delta__spec_example_negative_min),
      cmocka_unit_test(test_delta__i64_roundtrip_lengths_and_extremes),
      cmocka_unit_test(test_delta__i32_roundtrip_with_nulls),
      cmocka_unit_test(test_delta__ascending_ids_are_compact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
