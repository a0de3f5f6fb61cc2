/*
 * libFuzzer harness for the value/level encodings and the codecs
 * (src/parquet/encoding.h, src/codec/codec.h): hostile bytes go through
 * every decoder (RLE/bit-packed hybrid, PLAIN, dictionary gathers, INT96,
 * each decompressor), and round-trip properties (RLE encode/decode,
 * dictionary build/gather, compress/decompress, DELTA_BINARY_PACKED encode
 * against the reader's decoder) must hold exactly.
 *
 * Input: [mode][p1][n lo][n hi] then the payload. A crash, sanitizer
 * report or __builtin_trap() is a finding; error returns are fine.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec.h"
#include "parquet/delta_decode.h"
#include "parquet/encoding.h"

#define CHECK(c)                                                                                   \
  do {                                                                                             \
    if (!(c)) __builtin_trap();                                                                    \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void rle_decode(const uint8_t *p, size_t len, int w, size_t n) {
  uint32_t *out = malloc((n + 1) * sizeof *out);
  pq_rle_decoder d;
  CHECK(pq_rle_init(&d, p, len, w, NULL) == 0);
  int rc = pq_rle_get_u32(&d, out, n, NULL);
  CHECK(rc == 0 || rc == INLET_ECORRUPT);
  if (rc == 0 && w < 32)
    for (size_t i = 0; i < n; i++)
      CHECK(out[i] >> w == 0);
  free(out);
}

static void rle_validity(const uint8_t *p, size_t len, uint32_t max_level, size_t n) {
  uint8_t *bits = calloc(n / 8 + 2, 1);
  pq_rle_decoder d;
  size_t used;
  int64_t nv = 0;
  if (pq_rle_init_levels_v1(&d, p, len, pq_bit_width(max_level), &used, NULL) == 0) {
    CHECK(used <= len);
    int rc = pq_rle_get_validity(&d, bits, 3, n, max_level, &nv, NULL);
    CHECK(rc == 0 || rc == INLET_ECORRUPT);
    if (rc == 0) CHECK(nv == pq_count_bits(bits, 3, n));
  }
  free(bits);
}

static void rle_dict(const uint8_t *p, size_t len, uint32_t dict_n, size_t n) {
  int64_t *dict = calloc(dict_n + 1, 8);
  int64_t *out = malloc((n + 1) * 8);
  for (uint32_t i = 0; i < dict_n; i++)
    dict[i] = (int64_t)i * 1000003;
  pq_rle_decoder d;
  if (pq_rle_init_dict(&d, p, len, NULL) == 0) {
    int rc = pq_rle_dict_fixed(&d, out, dict, dict_n, 8, n, NULL);
    CHECK(rc == 0 || rc == INLET_ECORRUPT);
    if (rc == 0)
      for (size_t i = 0; i < n; i++)
        CHECK(out[i] % 1000003 == 0 && out[i] / 1000003 < dict_n);
  }
  free(out);
  free(dict);
}

static void plain_binary(const uint8_t *p, size_t len, size_t n) {
  pq_plain_decoder d;
  pq_plain_init(&d, p, len);
  int32_t *off = calloc(n + 1, sizeof *off);
  inlet_buf bytes = INLET_BUF_INIT;
  size_t total = 0;
  int m = pq_plain_measure_binary(&d, n, &total, NULL);
  int rc = pq_plain_decode_binary(&d, n, off, &bytes, NULL);
  CHECK((m == 0) == (rc == 0));
  if (rc == 0) {
    CHECK(bytes.len == total && (size_t)off[n] == total);
    for (size_t i = 0; i < n; i++)
      CHECK(off[i] <= off[i + 1]);
    /* The raw variant with an exact buffer agrees. */
    uint8_t *raw = malloc(total + 1);
    int32_t *off2 = calloc(n + 1, sizeof *off2);
    pq_plain_init(&d, p, len);
    CHECK(pq_plain_decode_binary_raw(&d, n, off2, raw, total, NULL) == 0);
    CHECK(memcmp(off, off2, (n + 1) * sizeof *off) == 0);
    CHECK(total == 0 || memcmp(raw, bytes.data, total) == 0);
    free(raw);
    free(off2);
  }
  inlet_buf_reset(&bytes);
  free(off);
}

static void plain_misc(const uint8_t *p, size_t len, size_t n, int which) {
  pq_plain_decoder d;
  pq_plain_init(&d, p, len);
  if (which == 0) {
    uint8_t *bits = calloc(n / 8 + 3, 1);
    int rc = pq_plain_decode_bool(&d, bits, 5, n, NULL);
    CHECK(rc == 0 || rc == INLET_ECORRUPT);
    CHECK(rc != 0 || (uint64_t)n <= (uint64_t)len * 8);
    free(bits);
  } else {
    int64_t *out = malloc((n + 1) * 8);
    int rc = pq_plain_decode_int96(&d, out, n, (inlet_time_unit)(n % 4), NULL);
    CHECK(rc == 0 || rc == INLET_ECORRUPT);
    free(out);
  }
}

static void decompress(const uint8_t *p, size_t len, int codec, size_t n) {
  uint8_t *out = malloc(n ? n : 1);
  int rc = inlet_decompress(codec, p, len, out, n, NULL);
  CHECK(rc == 0 || rc == INLET_ECORRUPT || rc == INLET_EUNSUPPORTED);
  free(out);
  if (!inlet_codec_can_write(codec)) return;
  /* Round trip of the payload itself. */
  inlet_buf c = INLET_BUF_INIT;
  CHECK(inlet_compress(codec, 0, p, len, &c, NULL) == 0);
  uint8_t *back = malloc(len ? len : 1);
  CHECK(inlet_decompress(codec, c.data ? c.data : (const uint8_t *)"", c.len, back, len, NULL) ==
        0);
  CHECK(len == 0 || memcmp(back, p, len) == 0);
  free(back);
  inlet_buf_reset(&c);
}

static void rle_roundtrip(const uint8_t *p, size_t len, int w) {
  size_t n = len;
  uint32_t *v = malloc((n + 1) * 4), *back = malloc((n + 1) * 4);
  const uint32_t mask = w >= 32 ? 0xffffffffu : (1u << w) - 1;
  /* Each byte picks "repeat the previous value" or a new one, so runs of
   * every length appear. */
  uint32_t cur = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] & 1) cur = (uint32_t)(p[i] * 2654435761u) & mask;
    v[i] = cur;
  }
  inlet_buf enc = INLET_BUF_INIT;
  CHECK(pq_rle_encode_u32(&enc, v, n, w) == 0);
  pq_rle_decoder d;
  CHECK(pq_rle_init(&d, enc.data ? enc.data : (const uint8_t *)"", enc.len, w, NULL) == 0);
  CHECK(pq_rle_get_u32(&d, back, n, NULL) == 0);
  CHECK(n == 0 || memcmp(back, v, n * 4) == 0);
  inlet_buf_reset(&enc);
  free(v);
  free(back);
}

static void dict_roundtrip(const uint8_t *p, size_t len) {
  /* Values: the payload cut at every 0x00 byte (empty values included). */
  size_t n = 0;
  int32_t *off = malloc((len + 2) * sizeof *off);
  off[0] = 0;
  for (size_t i = 0; i <= len; i++)
    if (i == len || p[i] == 0) off[++n] = (int32_t)i;
  /* Each value ends just before a separator, which starts the next one. */
  pq_dict dict;
  CHECK(pq_dict_init(&dict, PQ_DICT_BINARY, 0, NULL) == 0);
  uint32_t *idx = malloc((n + 1) * 4);
  size_t got = 0;
  CHECK(pq_dict_put_binary(&dict, off, p, NULL, 0, n, idx, &got, NULL) == 0);
  CHECK(got == n);
  int32_t *goff = calloc(n + 1, sizeof *goff);
  inlet_buf out = INLET_BUF_INIT;
  CHECK(pq_dict_gather_binary(goff, &out, dict.offsets, dict.values.data, dict.count, idx, n,
                              NULL) == 0);
  CHECK(memcmp(goff, off, (n + 1) * sizeof *off) == 0);
  CHECK(len == 0 || memcmp(out.data, p, len) == 0);
  inlet_buf_reset(&out);
  pq_dict_reset(&dict);
  free(goff);
  free(idx);
  free(off);
}

static void delta_roundtrip(const uint8_t *p, size_t len, bool wide) {
  /* Values: the payload as little-endian int32/int64 words. */
  size_t w = wide ? 8 : 4, n = len / w;
  inlet_buf out = INLET_BUF_INIT;
  uint64_t *back = malloc((n + 1) * 8);
  size_t used = 0;
  if (wide) {
    int64_t *v = malloc((n + 1) * 8);
    if (n) memcpy(v, p, n * 8);
    CHECK(pq_delta_encode_i64(&out, v, NULL, 0, n) == 0);
    CHECK(pq_delta_decode(out.data, out.len, back, n, &used, NULL) == 0);
    for (size_t i = 0; i < n; i++)
      CHECK((int64_t)back[i] == v[i]);
    free(v);
  } else {
    int32_t *v = malloc((n + 1) * 4);
    if (n) memcpy(v, p, n * 4);
    CHECK(pq_delta_encode_i32(&out, v, NULL, 0, n) == 0);
    CHECK(pq_delta_decode(out.data, out.len, back, n, &used, NULL) == 0);
    for (size_t i = 0; i < n; i++)
      CHECK((int32_t)back[i] == v[i]);
    free(v);
  }
  CHECK(used == out.len);
  free(back);
  inlet_buf_reset(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  const uint8_t mode = data[0], p1 = data[1];
  size_t n = (size_t)data[2] | (size_t)data[3] << 8;
  const uint8_t *p = data + 4;
  size_t len = size - 4;
  switch (mode % 11) {
  case 0: rle_decode(p, len, p1 % 33, n); break;
  case 1: rle_validity(p, len, p1 % 5, n); break;
  case 2: rle_dict(p, len, p1, n); break;
  case 3: plain_binary(p, len, n % 4096); break;
  case 4: plain_misc(p, len, n, 0); break;
  case 5: plain_misc(p, len, n % 4096, 1); break;
  case 6: decompress(p, len, p1 % 9, n); break;
  case 7: rle_roundtrip(p, len, p1 % 33); break;
  case 8: dict_roundtrip(p, len); break;
  case 10: delta_roundtrip(p, len, p1 & 1); break;
  default: {
    /* Hybrid skip then read must equal reading everything. */
    int w = p1 % 33;
    size_t k = n % 512, m = k + 64;
    uint32_t *all = malloc(m * 4), *tail = malloc(64 * 4);
    pq_rle_decoder a, b;
    pq_rle_init(&a, p, len, w, NULL);
    pq_rle_init(&b, p, len, w, NULL);
    int ra = pq_rle_get_u32(&a, all, m, NULL);
    int rb = pq_rle_skip(&b, k, NULL);
    if (rb == 0) rb = pq_rle_get_u32(&b, tail, 64, NULL);
    CHECK((ra == 0) == (rb == 0));
    if (ra == 0) CHECK(memcmp(all + k, tail, 64 * 4) == 0);
    free(all);
    free(tail);
  } break;
  }
  return 0;
}
