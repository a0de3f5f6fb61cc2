/*
 * Unit tests for dictionary building and gathering (src/parquet/dict.c and
 * the fixed-width gather in rle.c): many distinct values (forcing table
 * growth and probe chains), bit-pattern keys for floats, byte arrays with
 * shared prefixes and empty values, nulls, limits and hostile indices.
 */
#include "testutil.h"

#include <math.h>

#include "parquet/encoding.h"

static uint64_t rng_state = 0xDEADBEEFCAFEF00Dull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void test_dict__int32_many_distinct_and_repeats(void **state) {
  (void)state;
  pq_dict d;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_dict_init(&d, PQ_DICT_32, 0, &err), 0);
  const size_t n = 300000;
  uint32_t *v = malloc(n * 4), *idx = malloc(n * 4);
  /* Multiples of 4096 collide in the low bits: a weak hash would chain. */
  for (size_t i = 0; i < n; i++)
    v[i] = (uint32_t)((i % 100000) * 4096);
  size_t got = 0;
  assert_int_equal(pq_dict_put32(&d, v, NULL, 0, n, idx, &got, &err), 0);
  assert_int_equal(got, n);
  assert_int_equal(d.count, 100000);
  const uint32_t *dv = (const uint32_t *)d.values.data;
  for (size_t i = 0; i < n; i++) {
    assert_true(idx[i] < d.count);
    assert_int_equal(dv[idx[i]], v[i]);
  }
  /* First-seen order. */
  assert_int_equal(idx[0], 0);
  assert_int_equal(idx[1], 1);
  assert_int_equal(idx[100000], 0);
  assert_int_equal(pq_dict_plain_size(&d), 400000);
  assert_int_equal(pq_dict_index_width(&d), 17);
  inlet_buf page = INLET_BUF_INIT;
  assert_int_equal(pq_dict_write_plain(&d, &page), 0);
  assert_int_equal(page.len, 400000);
  assert_memory_equal(page.data, v, 400000);
  /* Clear and reuse for the next chunk. */
  pq_dict_clear(&d);
  assert_int_equal(d.count, 0);
  assert_int_equal(pq_dict_put32(&d, v + 5, NULL, 0, 3, idx, &got, &err), 0);
  assert_int_equal(idx[0], 0);
  assert_int_equal(idx[2], 2);
  assert_int_equal(pq_dict_index_width(&d), 2);
  inlet_buf_reset(&page);
  pq_dict_reset(&d);
  pq_dict_reset(&d); /* idempotent */
  free(v);
  free(idx);
}

static void test_dict__doubles_by_bit_pattern_with_nulls(void **state) {
  (void)state;
  pq_dict d;
  assert_int_equal(pq_dict_init(&d, PQ_DICT_64, 0, NULL), 0);
  double v[8] = {0.0, -0.0, NAN, 1.5, 0.0, -0.0, NAN, 1.5};
  uint8_t valid[1] = {0x7F}; /* row 7 null */
  uint32_t idx[8];
  size_t got = 0;
  uint64_t bitsv[8];
  memcpy(bitsv, v, sizeof v);
  assert_int_equal(pq_dict_put64(&d, bitsv, valid, 0, 8, idx, &got, NULL), 0);
  assert_int_equal(got, 7);
  assert_int_equal(d.count, 4);
  const uint32_t want[7] = {0, 1, 2, 3, 0, 1, 2};
  assert_memory_equal(idx, want, sizeof want);
  assert_int_equal(pq_dict_index_width(&d), 2);
  /* A single-value dictionary still uses bit width 1. */
  pq_dict_clear(&d);
  assert_int_equal(pq_dict_put64(&d, bitsv, NULL, 0, 1, idx, &got, NULL), 0);
  assert_int_equal(pq_dict_index_width(&d), 1);
  pq_dict_reset(&d);
}

static void test_dict__binary_distinct_prefixes_and_empty(void **state) {
  (void)state;
  pq_dict d;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_dict_init(&d, PQ_DICT_BINARY, 0, &err), 0);
  const size_t n = 120000, distinct = 40000;
  inlet_buf data = INLET_BUF_INIT;
  int32_t *off = malloc((n + 1) * 4);
  off[0] = 0;
  for (size_t i = 0; i < n; i++) {
    size_t k = i % distinct;
    /* Long shared prefix, value in the tail; key 0 is the empty string. */
    if (k) inlet_buf_appendf(&data, "user-with-a-long-common-prefix-%zu", k);
    off[i + 1] = (int32_t)data.len;
  }
  uint32_t *idx = malloc(n * 4);
  size_t got = 0;
  assert_int_equal(pq_dict_put_binary(&d, off, data.data, NULL, 0, n, idx, &got, &err), 0);
  assert_int_equal(got, n);
  assert_int_equal(d.count, distinct);
  size_t plain = 0;
  for (size_t i = 0; i < distinct; i++)
    plain += 4 + (size_t)(off[i + 1] - off[i]);
  assert_int_equal(pq_dict_plain_size(&d), plain);
  for (size_t i = 0; i < n; i++) {
    uint32_t ix = idx[i];
    assert_int_equal(ix, i % distinct);
    size_t len = (size_t)(d.offsets[ix + 1] - d.offsets[ix]);
    assert_int_equal(len, (size_t)(off[i + 1] - off[i]));
    assert_memory_equal(d.values.data + d.offsets[ix], data.data + off[i], len);
  }
  /* The dictionary page is PLAIN BYTE_ARRAY: decode it back. */
  inlet_buf page = INLET_BUF_INIT;
  assert_int_equal(pq_dict_write_plain(&d, &page), 0);
  assert_int_equal(page.len, plain);
  pq_plain_decoder pd;
  pq_plain_init(&pd, page.data, page.len);
  int32_t *doff = malloc((distinct + 1) * 4);
  doff[0] = 0;
  inlet_buf dbytes = INLET_BUF_INIT;
  assert_int_equal(pq_plain_decode_binary(&pd, distinct, doff, &dbytes, &err), 0);
  assert_memory_equal(doff, off, (distinct + 1) * 4);
  /* Gather the indices back into strings: equals the input. */
  int32_t *goff = malloc((n + 1) * 4);
  goff[0] = 0;
  inlet_buf gathered = INLET_BUF_INIT;
  assert_int_equal(
      pq_dict_gather_binary(goff, &gathered, doff, dbytes.data, (uint32_t)distinct, idx, n, &err),
      0);
  assert_memory_equal(goff, off, (n + 1) * 4);
  assert_int_equal(gathered.len, data.len);
  assert_memory_equal(gathered.data, data.data, data.len);
  /* Hostile index. */
  idx[77] = (uint32_t)distinct;
  goff[0] = 0;
  assert_int_equal(
      pq_dict_gather_binary(goff, &gathered, doff, dbytes.data, (uint32_t)distinct, idx, n, &err),
      INLET_ECORRUPT);
  inlet_buf_reset(&gathered);
  inlet_buf_reset(&dbytes);
  inlet_buf_reset(&page);
  inlet_buf_reset(&data);
  free(goff);
  free(doff);
  free(off);
  free(idx);
  pq_dict_reset(&d);
}

static void test_dict__fixed_width_random_keys(void **state) {
  (void)state;
  pq_dict d;
  assert_int_equal(pq_dict_init(&d, PQ_DICT_FIXED, 16, NULL), 0);
  const size_t distinct = 5000, n = 20000;
  uint8_t *keys = malloc(distinct * 16), *v = malloc(n * 16);
  for (size_t i = 0; i < distinct * 16; i++)
    keys[i] = (uint8_t)rnd();
  for (size_t i = 0; i < n; i++)
    memcpy(v + 16 * i, keys + 16 * (i * 7919 % distinct), 16);
  uint32_t *idx = malloc(n * 4);
  size_t got;
  assert_int_equal(pq_dict_put_fixed(&d, v, NULL, 0, n, idx, &got, NULL), 0);
  assert_int_equal(d.count, distinct);
  assert_int_equal(pq_dict_plain_size(&d), distinct * 16);
  uint8_t *back = malloc(n * 16);
  assert_int_equal(pq_dict_gather_fixed(back, d.values.data, d.count, 16, idx, n, NULL), 0);
  assert_memory_equal(back, v, n * 16);
  idx[n - 1] = 1u << 31;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_dict_gather_fixed(back, d.values.data, d.count, 16, idx, n, &err),
                   INLET_ECORRUPT);
  free(back);
  free(idx);
  free(v);
  free(keys);
  pq_dict_reset(&d);
}

static void test_dict__gather_fixed_widths(void **state) {
  (void)state;
  const int32_t d4[3] = {-7, 0, 123456};
  const uint32_t idx[6] = {2, 2, 0, 1, 0, 2};
  int32_t out4[6];
  assert_int_equal(pq_dict_gather_fixed(out4, d4, 3, 4, idx, 6, NULL), 0);
  const int32_t want4[6] = {123456, 123456, -7, 0, -7, 123456};
  assert_memory_equal(out4, want4, sizeof want4);
  const uint8_t d1[3] = {'a', 'b', 'c'};
  uint8_t out1[6];
  assert_int_equal(pq_dict_gather_fixed(out1, d1, 3, 1, idx, 6, NULL), 0);
  assert_memory_equal(out1, "ccabac", 6);
  /* Empty dictionary: any index is out of range; no indices is fine. */
  assert_int_equal(pq_dict_gather_fixed(out1, d1, 0, 1, idx, 1, NULL), INLET_ECORRUPT);
  assert_int_equal(pq_dict_gather_fixed(out1, d1, 0, 1, idx, 0, NULL), 0);
}

static void test_dict__init_rejects_bad_kind(void **state) {
  (void)state;
  pq_dict d;
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(pq_dict_init(&d, PQ_DICT_FIXED, 0, &err), INLET_EINVAL);
  assert_int_equal(pq_dict_init(&d, (pq_dict_kind)17, 0, &err), INLET_EINVAL);
  pq_dict_reset(&d);
}

static void test_dict__allocation_failure_keeps_dictionary_consistent(void **state) {
  (void)state;
  pq_dict d;
  assert_int_equal(pq_dict_init(&d, PQ_DICT_32, 0, NULL), 0);
  const size_t n = 10000;
  uint32_t *v = malloc(n * 4), *idx = malloc(n * 4);
  for (size_t i = 0; i < n; i++)
    v[i] = (uint32_t)i;
  size_t got = 0;
  inlet_error err = INLET_ERROR_INIT;
  inlet_alloc_fail_after(3);
  int rc = pq_dict_put32(&d, v, NULL, 0, n, idx, &got, &err);
  inlet_alloc_fail_after(-1);
  assert_int_equal(rc, INLET_ENOMEM);
  assert_true(got < n);
  const uint32_t *dv = (const uint32_t *)d.values.data;
  for (size_t i = 0; i < got; i++)
    assert_int_equal(dv[idx[i]], v[i]);
  /* Still usable afterwards. */
  size_t got2 = 0;
  assert_int_equal(pq_dict_put32(&d, v, NULL, 0, n, idx, &got2, &err), 0);
  assert_int_equal(d.count, n);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(idx[i], i);
  free(v);
  free(idx);
  pq_dict_reset(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dict__int32_many_distinct_and_repeats),
      cmocka_unit_test(test_dict__doubles_by_bit_pattern_with_nulls),
      cmocka_unit_test(test_dict__binary_distinct_prefixes_and_empty),
      cmocka_unit_test(test_dict__fixed_width_random_keys),
      cmocka_unit_test(test_dict__gather_fixed_widths),
      cmocka_unit_test(test_dict__init_rejects_bad_kind),
      cmocka_unit_test(test_dict__allocation_failure_keeps_dictionary_consistent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
