/*
 * Unit tests for src/codec: round trips of every writable codec over empty,
 * tiny, random and compressible inputs; exact-size enforcement; corrupt and
 * truncated input; the deprecated LZ4 codec's three framings (built here
 * with liblz4 directly, independently of codec.c); concatenated gzip;
 * brotli pages compressed with the thread's cached encoder blocks give
 * libbrotlienc's one-shot bytes, and a second page takes no fresh block.
 */
#include "testutil.h"

#include <brotli/encode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <pthread.h>

#include "codec/brotli_blocks.h"
#include "codec/codec.h"

static const int writable[] = {INLET_CODEC_UNCOMPRESSED, INLET_CODEC_SNAPPY,  INLET_CODEC_GZIP,
                               INLET_CODEC_ZSTD,         INLET_CODEC_LZ4_RAW, INLET_CODEC_BROTLI};
#define N_WRITABLE (sizeof writable / sizeof writable[0])

static uint64_t rng_state = 0x853c49e6748fea9bull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static uint8_t *random_bytes(size_t n) {
  uint8_t *p = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)rnd();
  return p;
}

static uint8_t *compressible_bytes(size_t n) {
  uint8_t *p = malloc(n ? n : 1);
  static const char text[] = "{\"event\":\"click\",\"user\":\"u0042\",\"amount\":12.50}\n";
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)text[i % (sizeof text - 1)];
  return p;
}

static void roundtrip(int codec, const uint8_t *src, size_t n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_buf c = INLET_BUF_INIT;
  assert_int_equal(inlet_compress(codec, 0, src, n, &c, &err), 0);
  uint8_t *back = malloc(n ? n : 1);
  int rc = inlet_decompress(codec, c.data ? c.data : (const uint8_t *)"", c.len, back, n, &err);
  if (rc != 0) fail_msg("%s: %s", inlet_codec_name(codec), inlet_errmsg(&err));
  if (n) assert_memory_equal(back, src, n);
  free(back);
  inlet_buf_reset(&c);
}

static void test_codec__roundtrip_empty_and_one_byte(void **state) {
  (void)state;
  const uint8_t one = 0x5a;
  for (size_t i = 0; i < N_WRITABLE; i++) {
    roundtrip(writable[i], (const uint8_t *)"", 0);
    roundtrip(writable[i], &one, 1);
  }
}

static void test_codec__roundtrip_1mib_random_and_compressible(void **state) {
  (void)state;
  const size_t n = 1 << 20;
  uint8_t *r = random_bytes(n), *t = compressible_bytes(n);
  for (size_t i = 0; i < N_WRITABLE; i++) {
    roundtrip(writable[i], r, n);
    roundtrip(writable[i], t, n);
  }
  free(r);
  free(t);
}

static void test_codec__compressible_input_shrinks(void **state) {
  (void)state;
  const size_t n = 256 * 1024;
  uint8_t *t = compressible_bytes(n);
  for (size_t i = 1; i < N_WRITABLE; i++) {
    inlet_buf c = INLET_BUF_INIT;
    assert_int_equal(inlet_compress(writable[i], 0, t, n, &c, NULL), 0);
    assert_true(c.len < n / 10);
    inlet_buf_reset(&c);
  }
  free(t);
}

static void test_codec__compress_appends_to_existing_content(void **state) {
  (void)state;
  inlet_buf c = INLET_BUF_INIT;
  inlet_buf_puts(&c, "HDR");
  uint8_t *t = compressible_bytes(1000);
  assert_int_equal(inlet_compress(INLET_CODEC_ZSTD, 0, t, 1000, &c, NULL), 0);
  assert_memory_equal(c.data, "HDR", 3);
  uint8_t back[1000];
  assert_int_equal(inlet_decompress(INLET_CODEC_ZSTD, c.data + 3, c.len - 3, back, 1000, NULL), 0);
  assert_memory_equal(back, t, 1000);
  free(t);
  inlet_buf_reset(&c);
}

static void test_codec__zstd_levels(void **state) {
  (void)state;
  uint8_t *t = compressible_bytes(50000);
  inlet_error err = INLET_ERROR_INIT;
  for (int level = 1; level <= 19; level += 6) {
    inlet_buf c = INLET_BUF_INIT;
    assert_int_equal(inlet_compress(INLET_CODEC_ZSTD, level, t, 50000, &c, &err), 0);
    uint8_t *back = malloc(50000);
    assert_int_equal(inlet_decompress(INLET_CODEC_ZSTD, c.data, c.len, back, 50000, &err), 0);
    assert_memory_equal(back, t, 50000);
    free(back);
    inlet_buf_reset(&c);
  }
  inlet_buf c = INLET_BUF_INIT;
  assert_int_equal(inlet_compress(INLET_CODEC_ZSTD, 1000, t, 10, &c, &err), INLET_EINVAL);
  assert_int_equal(inlet_compress(INLET_CODEC_GZIP, 12, t, 10, &c, &err), INLET_EINVAL);
  inlet_buf_reset(&c);
  free(t);
}

/* Half compressible text, half random, so both literal and match paths run. */
static uint8_t *mixed_bytes(size_t n) {
  uint8_t *p = compressible_bytes(n);
  for (size_t i = n / 2; i < n; i++)
    p[i] = (uint8_t)rnd();
  return p;
}

/* inlet's brotli page against libbrotlienc's one-shot call (what codec.c
 * used before it kept blocks), byte for byte, and back. */
static void brotli_matches_one_shot(int quality, const uint8_t *src, size_t n) {
  inlet_error err = INLET_ERROR_INIT;
  inlet_buf c = INLET_BUF_INIT;
  assert_int_equal(inlet_compress(INLET_CODEC_BROTLI, quality, src, n, &c, &err), 0);
  size_t ref_len = BrotliEncoderMaxCompressedSize(n);
  uint8_t *ref = malloc(ref_len);
  assert_true(BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, n, src,
                                    &ref_len, ref));
  if (c.len != ref_len || memcmp(c.data, ref, ref_len) != 0)
    fail_msg("quality %d, %zu bytes: %zu bytes, one-shot %zu", quality, n, c.len, ref_len);
  uint8_t *back = malloc(n ? n : 1);
  assert_int_equal(inlet_decompress(INLET_CODEC_BROTLI, c.data, c.len, back, n, &err), 0);
  if (n) assert_memory_equal(back, src, n);
  free(back);
  free(ref);
  inlet_buf_reset(&c);
}

static void test_codec__brotli_pages_keep_their_blocks(void **state) {
  (void)state;
  const size_t sizes[] = {0, 1, 64, 8192, 300000};
  for (int quality = 1; quality <= 11; quality++) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      if (quality >= 10 && sizes[i] > 8192) continue; /* seconds under ASan */
      uint8_t *t = mixed_bytes(sizes[i]);
      brotli_matches_one_shot(quality, t, sizes[i]);
      free(t);
    }
  }
  /* The default quality: the first 1 MiB page may take blocks from malloc,
   * the next ones of its size none, and what is held stays within the
   * bounds. */
  const size_t mib = (size_t)1 << 20;
  uint8_t *t = mixed_bytes(mib);
  brotli_matches_one_shot(8, t, mib);
  size_t held, bytes, fresh_before, fresh_after;
  brotli_blocks_stats(&held, &bytes, &fresh_before);
  assert_true(held >= 1);
  assert_true(held <= BROTLI_BLOCKS_MAX);
  assert_true(bytes >= BROTLI_BLOCKS_MIN);
  assert_true(bytes <= BROTLI_BLOCKS_MAX_BYTES);
  for (int i = 0; i < 3; i++)
    brotli_matches_one_shot(8, t, mib);
  brotli_blocks_stats(NULL, NULL, &fresh_after);
  assert_int_equal(fresh_after, fresh_before);
  brotli_blocks_release();
  brotli_blocks_stats(&held, &bytes, NULL);
  assert_int_equal(held, 0);
  assert_int_equal(bytes, 0);
  free(t);
}

/* Returns the blocks the thread holds after a round trip, 0 on failure;
 * no cmocka assertion here, as a failing one would longjmp off this thread.
 * The blocks are freed when the thread exits (the leak checker of the
 * sanitizer build would report them otherwise). */
static void *brotli_on_a_thread(void *arg) {
  const uint8_t *t = arg;
  inlet_error err = INLET_ERROR_INIT;
  inlet_buf c = INLET_BUF_INIT;
  uint8_t *back = malloc(100000);
  size_t held = 0;
  if (back && inlet_compress(INLET_CODEC_BROTLI, 5, t, 100000, &c, &err) == 0 &&
      inlet_decompress(INLET_CODEC_BROTLI, c.data, c.len, back, 100000, &err) == 0 &&
      memcmp(back, t, 100000) == 0)
    brotli_blocks_stats(&held, NULL, NULL);
  free(back);
  inlet_buf_reset(&c);
  return (void *)(uintptr_t)held;
}

static void test_codec__brotli_blocks_go_with_their_thread(void **state) {
  (void)state;
  uint8_t *t = mixed_bytes(100000);
  for (int i = 0; i < 2; i++) {
    pthread_t th;
    void *held = NULL;
    assert_int_equal(pthread_create(&th, NULL, brotli_on_a_thread, t), 0);
    assert_int_equal(pthread_join(th, &held), 0);
    assert_true((uintptr_t)held >= 1);
  }
  free(t);
}

static void test_codec__wrong_declared_size_is_corrupt(void **state) {
  (void)state;
  const size_t n = 10000;
  uint8_t *t = compressible_bytes(n);
  uint8_t *back = malloc(n + 100);
  for (size_t i = 0; i < N_WRITABLE; i++) {
    inlet_buf c = INLET_BUF_INIT;
    inlet_error err = INLET_ERROR_INIT;
    assert_int_equal(inlet_compress(writable[i], 0, t, n, &c, NULL), 0);
    /* Too small a buffer: must fail, not overflow (ASan watches). */
    uint8_t *small = malloc(n - 1);
    assert_int_equal(inlet_decompress(writable[i], c.data, c.len, small, n - 1, &err),
                     INLET_ECORRUPT);
    free(small);
    /* Larger than the real output. */
    assert_int_equal(inlet_decompress(writable[i], c.data, c.len, back, n + 100, &err),
                     INLET_ECORRUPT);
    assert_non_null(strstr(err.message, inlet_codec_name(writable[i])));
    inlet_buf_reset(&c);
  }
  free(back);
  free(t);
}

static void test_codec__truncated_and_garbage_input_is_corrupt(void **state) {
  (void)state;
  const size_t n = 20000;
  uint8_t *t = compressible_bytes(n), *r = random_bytes(4096);
  uint8_t *back = malloc(n);
  for (size_t i = 1; i < N_WRITABLE; i++) {
    inlet_buf c = INLET_BUF_INIT;
    assert_int_equal(inlet_compress(writable[i], 0, t, n, &c, NULL), 0);
    for (size_t cut = 0; cut < c.len; cut += 1 + c.len / 13) {
      int rc = inlet_decompress(writable[i], c.data, cut, back, n, NULL);
      assert_int_equal(rc, INLET_ECORRUPT);
    }
    /* Flip bytes in the middle: either detected, or (for codecs without a
     * checksum) a wrong but in-bounds output. Never a crash. */
    for (size_t k = 0; k < 50; k++) {
      uint8_t *copy = malloc(c.len);
      memcpy(copy, c.data, c.len);
      copy[rnd() % c.len] ^= (uint8_t)(1 + rnd() % 255);
      int rc = inlet_decompress(writable[i], copy, c.len, back, n, NULL);
      assert_true(rc == 0 || rc == INLET_ECORRUPT);
      free(copy);
    }
    for (size_t len = 1; len <= 4096; len *= 4) {
      int rc = inlet_decompress(writable[i], r, len, back, n, NULL);
      assert_true(rc == INLET_ECORRUPT);
    }
    inlet_buf_reset(&c);
  }
  free(back);
  free(r);
  free(t);
}

static void test_codec__gzip_concatenated_members(void **state) {
  (void)state;
  uint8_t *a = compressible_bytes(3000), *b = random_bytes(2000);
  inlet_buf c = INLET_BUF_INIT;
  assert_int_equal(inlet_compress(INLET_CODEC_GZIP, 0, a, 3000, &c, NULL), 0);
  assert_int_equal(inlet_compress(INLET_CODEC_GZIP, 9, b, 2000, &c, NULL), 0);
  /* gzip magic at the start of the stream. */
  assert_int_equal(c.data[0], 0x1f);
  assert_int_equal(c.data[1], 0x8b);
  uint8_t back[5000];
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_decompress(INLET_CODEC_GZIP, c.data, c.len, back, 5000, &err), 0);
  assert_memory_equal(back, a, 3000);
  assert_memory_equal(back + 3000, b, 2000);
  free(a);
  free(b);
  inlet_buf_reset(&c);
}

static void put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static void test_codec__lz4_hadoop_framing_with_two_blocks(void **state) {
  (void)state;
  uint8_t *t = compressible_bytes(9000);
  uint8_t frame[20000];
  size_t pos = 0;
  const size_t parts[2] = {5000, 4000};
  size_t off = 0;
  for (int k = 0; k < 2; k++) {
    int c = LZ4_compress_default((const char *)t + off, (char *)frame + pos + 8, (int)parts[k],
                                 (int)(sizeof frame - pos - 8));
    assert_true(c > 0);
    put_be32(frame + pos, (uint32_t)parts[k]);
    put_be32(frame + pos + 4, (uint32_t)c);
    pos += 8 + (size_t)c;
    off += parts[k];
  }
  uint8_t back[9000];
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_decompress(INLET_CODEC_LZ4, frame, pos, back, 9000, &err), 0);
  assert_memory_equal(back, t, 9000);
  /* A wrong declared size fails every framing. */
  assert_int_equal(inlet_decompress(INLET_CODEC_LZ4, frame, pos, back, 8999, &err), INLET_ECORRUPT);
  free(t);
}

static void test_codec__lz4_hadoop_block_split_into_chunks(void **state) {
  (void)state;
  uint8_t *t = compressible_bytes(6000);
  uint8_t frame[20000];
  /* One block of 6000 bytes written as two chunks of 2500 + 3500. */
  put_be32(frame, 6000);
  size_t pos = 4, off = 0;
  const size_t parts[2] = {2500, 3500};
  for (int k = 0; k < 2; k++) {
    int c = LZ4_compress_default((const char *)t + off, (char *)frame + pos + 4, (int)parts[k],
                                 (int)(sizeof frame - pos - 4));
    assert_true(c > 0);
    put_be32(frame + pos, (uint32_t)c);
    pos += 4 + (size_t)c;
    off += parts[k];
  }
  uint8_t back[6000];
  inlet_error err = INLET_ERROR_INIT;
  assert_int_equal(inlet_decompress(INLET_CODEC_LZ4, frame, pos, back, 6000, &err), 0);
  assert_memory_equal(back, t, 6000);
  /* Cut inside the second chunk: no framing parses. */
  assert_int_equal(inlet_decompress(INLET_CODEC_LZ4, frame, pos - 3, back, 6000, &err),
                   INLET_ECORRUPT);
  free(t);
}

static void test_codec__lz4_falls_back_to_raw_block_and_frame(void **state) {
  (void)state;
  uint8_t *t = compressible_bytes(7000);
  uint8_t buf[16000], back[7000];
  int c = LZ4_compress_default((const char *)t, (char *)buf, 7000, (int)sizeof buf);
  assert_true(c > 0);
  assert_int_equal(inlet_decompress(INLET_CODEC_LZ4, buf, (size_t)c, back, 7000, NULL), 0);
  assert_memory_equal(back, t, 7000);
  memset(back, 0, sizeof back);
  size_t f = LZ4F_compressFrame(buf, sizeof buf, t, 7000, NULL);
  assert_false(LZ4F_isError(f));
  assert_int_equal(inlet_decompress(INLET_CODEC_LZ4, buf, f, back, 7000, NULL), 0);
  assert_memory_equal(back, t, 7000);
  free(t);
}

static void test_codec__unsupported_codecs(void **state) {
  (void)state;
  inlet_error err = INLET_ERROR_INIT;
  uint8_t b[4] = {1, 2, 3, 4};
  inlet_buf c = INLET_BUF_INIT;
  assert_int_equal(inlet_decompress(INLET_CODEC_LZO, b, 4, b, 4, &err), INLET_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "LZO"));
  assert_int_equal(inlet_decompress(99, b, 4, b, 4, &err), INLET_EUNSUPPORTED);
  assert_non_null(strstr(err.message, "UNKNOWN(99)"));
  assert_int_equal(inlet_compress(INLET_CODEC_LZO, 0, b, 4, &c, &err), INLET_EUNSUPPORTED);
  assert_int_equal(inlet_compress(INLET_CODEC_LZ4, 0, b, 4, &c, &err), INLET_EUNSUPPORTED);
  inlet_buf_reset(&c);
}

static void test_codec__compress_out_of_memory(void **state) {
  (void)state;
  uint8_t *t = compressible_bytes(5000);
  for (size_t i = 0; i < N_WRITABLE; i++) {
    inlet_buf c = INLET_BUF_INIT;
    inlet_error err = INLET_ERROR_INIT;
    inlet_alloc_fail_after(0);
    int rc = inlet_compress(writable[i], 0, t, 5000, &c, &err);
    inlet_alloc_fail_after(-1);
    assert_int_equal(rc, INLET_ENOMEM);
    inlet_buf_reset(&c);
  }
  free(t);
}

static void test_codec__names_parse_and_can_write(void **state) {
  (void)state;
  assert_string_equal(inlet_codec_name(INLET_CODEC_ZSTD), "ZSTD");
  assert_string_equal(inlet_codec_name(INLET_CODEC_LZ4_RAW), "LZ4_RAW");
  assert_string_equal(inlet_codec_name(-3), "UNKNOWN(-3)");
  assert_int_equal(inlet_codec_parse("ZsTd"), INLET_CODEC_ZSTD);
  assert_int_equal(inlet_codec_parse("none"), INLET_CODEC_UNCOMPRESSED);
  assert_int_equal(inlet_codec_parse("uncompressed"), INLET_CODEC_UNCOMPRESSED);
  assert_int_equal(inlet_codec_parse("lz4raw"), INLET_CODEC_LZ4_RAW);
  assert_int_equal(inlet_codec_parse("LZ4_RAW"), INLET_CODEC_LZ4_RAW);
  assert_int_equal(inlet_codec_parse("brotli"), INLET_CODEC_BROTLI);
  assert_int_equal(inlet_codec_parse("gzip"), INLET_CODEC_GZIP);
  assert_int_equal(inlet_codec_parse("snappy"), INLET_CODEC_SNAPPY);
  assert_int_equal(inlet_codec_parse("lzo"), -1);
  assert_int_equal(inlet_codec_parse(""), -1);
  assert_int_equal(inlet_codec_parse(NULL), -1);
  assert_true(inlet_codec_can_write(INLET_CODEC_SNAPPY));
  assert_true(inlet_codec_can_write(INLET_CODEC_LZ4_RAW));
  assert_false(inlet_codec_can_write(INLET_CODEC_LZ4));
  assert_false(inlet_codec_can_write(INLET_CODEC_LZO));
  assert_false(inlet_codec_can_write(42));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_codec__roundtrip_empty_and_one_byte),
      cmocka_unit_test(test_codec__roundtrip_1mib_random_and_compressible),
      cmocka_unit_test(test_codec__compressible_input_shrinks),
      cmocka_unit_test(test_codec__compress_appends_to_existing_content),
      cmocka_unit_test(test_codec__zstd_levels),
      cmocka_unit_test(test_codec__brotli_pages_keep_their_blocks),
      cmocka_unit_test(test_codec__brotli_blocks_go_with_their_thread),
      cmocka_unit_test(test_codec__wrong_declared_size_is_corrupt),
      cmocka_unit_test(test_codec__truncated_and_garbage_input_is_corrupt),
      cmocka_unit_test(test_codec__gzip_concatenated_members),
      cmocka_unit_test(test_codec__lz4_hadoop_framing_with_two_blocks),
      cmocka_unit_test(test_codec__lz4_hadoop_block_split_into_chunks),
      cmocka_unit_test(test_codec__lz4_falls_back_to_raw_block_and_frame),
      cmocka_unit_test(test_codec__unsupported_codecs),
      cmocka_unit_test(test_codec__compress_out_of_memory),
      cmocka_unit_test(test_codec__names_parse_and_can_write),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
