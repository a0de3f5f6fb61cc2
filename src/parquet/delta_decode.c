/*
 * DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
 * BYTE_STREAM_SPLIT decoding to PLAIN form (see delta_decode.h;
 * apache/parquet-format Encodings.md, sections "Delta Encoding",
 * "Delta-length byte array", "Delta Strings" and "Byte Stream Split").
 */
#include "parquet/delta_decode.h"

#include "parquet/encoding.h"
#include "util/util.h"

/* Block sizes beyond this are refused: the spec's writers use 128. */
#define MAX_BLOCK_VALUES (1u << 16)

static int uleb(const uint8_t **p, const uint8_t *end, uint64_t *v, inlet_error *err) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return inlet_fail(err, INLET_ECORRUPT, "delta header cut short");
    uint8_t b = *(*p)++;
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return 0;
    }
  }
  return inlet_fail(err, INLET_ECORRUPT, "delta header varint too long");
}

static inline uint64_t unzigzag(uint64_t v) {
  return (v >> 1) ^ (0 - (v & 1));
}

int pq_delta_decode(const uint8_t *p, size_t len, uint64_t *out, size_t n, size_t *consumed,
                    inlet_error *err) {
  const uint8_t *start = p, *end = p + len;
  uint64_t block = 0, mbs = 0, total = 0, first = 0;
  TRY(uleb(&p, end, &block, err));
  TRY(uleb(&p, end, &mbs, err));
  TRY(uleb(&p, end, &total, err));
  TRY(uleb(&p, end, &first, err));
  if (block == 0 || block % 128 != 0 || block > MAX_BLOCK_VALUES || mbs == 0 || block % mbs != 0 ||
      (block / mbs) % 32 != 0)
    return inlet_fail(err, INLET_ECORRUPT,
                      "bad DELTA_BINARY_PACKED block of %llu values in %llu miniblocks",
                      (unsigned long long)block, (unsigned long long)mbs);
  if (total != n)
    return inlet_fail(err, INLET_ECORRUPT, "DELTA_BINARY_PACKED holds %llu values, expected %zu",
                      (unsigned long long)total, n);
  size_t vpm = (size_t)(block / mbs);
  if (n > 0) out[0] = unzigzag(first);
  size_t i = 1;
  while (i < n) {
    uint64_t md = 0;
    TRY(uleb(&p, end, &md, err));
    uint64_t min_delta = unzigzag(md);
    if ((size_t)(end - p) < mbs)
      return inlet_fail(err, INLET_ECORRUPT, "DELTA_BINARY_PACKED bit widths cut short");
    const uint8_t *widths = p;
    p += mbs;
    for (size_t m = 0; m < mbs && i < n; m++) {
      int w = widths[m];
      if (w > 64) return inlet_fail(err, INLET_ECORRUPT, "delta bit width %d exceeds 64", w);
      size_t bytes = vpm / 8 * (size_t)w;
      if ((size_t)(end - p) < bytes)
        return inlet_fail(err, INLET_ECORRUPT, "DELTA_BINARY_PACKED miniblock cut short");
      for (size_t g = 0; g < vpm && i < n; g += 32) {
        uint64_t tmp[32];
        pq_unpack64(tmp, p + g / 8 * (size_t)w, 32, w);
        size_t k = n - i < 32 ? n - i : 32;
        uint64_t prev = out[i - 1];
        for (size_t j = 0; j < k; j++) {
          prev += min_delta + tmp[j];
          out[i + j] = prev;
        }
        i += k;
      }
      p += bytes;
    }
  }
  *consumed = (size_t)(p - start);
  return 0;
}

/*
 * Before allocating n values, checks that the stream can hold them: after
 * the header, every block of `block` deltas takes at least its min-delta
 * varint and one bit-width byte per miniblock. A fixed values-per-byte
 * ratio would be wrong both ways: DuckDB's 2048-value blocks of sorted ids
 * pack ~200 values a byte, while a forged header could claim far more.
 */
static int delta_check_size(const uint8_t *p, size_t len, size_t n, inlet_error *err) {
  const uint8_t *end = p + len;
  uint64_t block = 0, mbs = 0, total = 0, first = 0;
  TRY(uleb(&p, end, &block, err));
  TRY(uleb(&p, end, &mbs, err));
  TRY(uleb(&p, end, &total, err));
  TRY(uleb(&p, end, &first, err));
  if (block == 0 || block > MAX_BLOCK_VALUES || mbs == 0 || mbs > block)
    return inlet_fail(err, INLET_ECORRUPT,
                      "bad DELTA_BINARY_PACKED block of %llu values in %llu miniblocks",
                      (unsigned long long)block, (unsigned long long)mbs);
  if (total != n)
    return inlet_fail(err, INLET_ECORRUPT, "DELTA_BINARY_PACKED holds %llu values, expected %zu",
                      (unsigned long long)total, n);
  uint64_t blocks = n > 1 ? (uint64_t)(n - 2) / block + 1 : 0;
  if (blocks > (uint64_t)(end - p) / (1 + mbs))
    return inlet_fail(err, INLET_ECORRUPT, "%zu deltas cannot fit in %zu bytes", n, len);
  return 0;
}

/* Decodes n deltas into a fresh array (caller frees). */
static int delta_alloc(const uint8_t *p, size_t len, size_t n, uint64_t **out, size_t *consumed,
                       inlet_error *err) {
  *out = NULL;
  TRY(delta_check_size(p, len, n, err));
  *out = inlet_malloc((n ? n : 1) * sizeof **out);
  if (!*out) return inlet_fail(err, INLET_ENOMEM, "out of memory decoding %zu deltas", n);
  int rc = pq_delta_decode(p, len, *out, n, consumed, err);
  if (rc < 0) {
    inlet_free(*out);
    *out = NULL;
  }
  return rc;
}

int pq_delta_to_plain(const uint8_t *p, size_t len, size_t n, size_t width, inlet_buf *plain,
                      inlet_error *err) {
  if (width != 4 && width != 8)
    return inlet_fail(err, INLET_ECORRUPT, "DELTA_BINARY_PACKED on %zu-byte values", width);
  uint64_t *v;
  size_t used;
  TRY(delta_alloc(p, len, n, &v, &used, err));
  inlet_buf_clear(plain);
  if (inlet_buf_reserve(plain, n * width) < 0) {
    inlet_free(v);
    return inlet_fail(err, INLET_ENOMEM, "out of memory");
  }
  if (width == 4)
    for (size_t i = 0; i < n; i++) {
      uint32_t x = (uint32_t)v[i];
      memcpy(plain->data + 4 * i, &x, 4);
    }
  else
    memcpy(plain->data, v, n * 8);
  plain->len = n * width;
  inlet_free(v);
  return 0;
}

/* Appends n length-prefixed values whose lengths are @p lens and bytes
 * follow consecutively at @p data (data_len bytes). */
static int lengths_to_plain(const uint64_t *lens, size_t n, const uint8_t *data, size_t data_len,
                            inlet_buf *plain, inlet_error *err) {
  size_t pos = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t l = lens[i];
    if (l > data_len - pos)
      return inlet_fail(err, INLET_ECORRUPT, "byte array of %llu bytes runs past the page",
                        (unsigned long long)l);
    uint32_t l32 = (uint32_t)l;
    inlet_buf_append(plain, &l32, 4);
    inlet_buf_append(plain, data + pos, (size_t)l);
    pos += (size_t)l;
  }
  return inlet_buf_status(plain) < 0 ? inlet_fail(err, INLET_ENOMEM, "out of memory") : 0;
}

int pq_delta_length_to_plain(const uint8_t *p, size_t len, size_t n, inlet_buf *plain,
                             inlet_error *err) {
  uint64_t *lens;
  size_t used;
  TRY(delta_alloc(p, len, n, &lens, &used, err));
  inlet_buf_clear(plain);
  int rc = lengths_to_plain(lens, n, p + used, len - used, plain, err);
  inlet_free(lens);
  return rc;
}

int pq_delta_byte_array_to_plain(const uint8_t *p, size_t len, size_t n, size_t width,
                                 inlet_buf *plain, inlet_error *err) {
  uint64_t *pre = NULL, *suf = NULL;
  size_t used1, used2;
  int rc = delta_alloc(p, len, n, &pre, &used1, err);
  if (rc < 0) return rc;
  rc = delta_alloc(p + used1, len - used1, n, &suf, &used2, err);
  if (rc < 0) {
    inlet_free(pre);
    return rc;
  }
  const uint8_t *data = p + used1 + used2;
  size_t data_len = len - used1 - used2, pos = 0;
  inlet_buf_clear(plain);
  /* prev_off/prev_len locate the previous value's bytes inside plain. */
  size_t prev_off = 0, prev_len = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t pl = pre[i], sl = suf[i];
    if (pl > prev_len) {
      rc = inlet_fail(err, INLET_ECORRUPT, "prefix of %llu bytes longer than the previous value",
                      (unsigned long long)pl);
      break;
    }
    if (sl > data_len - pos) {
      rc = inlet_fail(err, INLET_ECORRUPT, "suffix of %llu bytes runs past the page",
                      (unsigned long long)sl);
      break;
    }
    size_t vlen = (size_t)(pl + sl);
    if (vlen > INT32_MAX || (width && vlen != width)) {
      rc = inlet_fail(err, INLET_ECORRUPT, "value of %zu bytes (expected %zu)", vlen, width);
      break;
    }
    if (!width) {
      uint32_t l32 = (uint32_t)vlen;
      inlet_buf_append(plain, &l32, 4);
    }
    if (inlet_buf_reserve(plain, vlen) < 0) break;
    size_t off = plain->len;
    /* The prefix comes from the previous value, already in plain. */
    memcpy(plain->data + off, plain->data + prev_off, (size_t)pl);
    memcpy(plain->data + off + pl, data + pos, (size_t)sl);
    plain->len += vlen;
    pos += (size_t)sl;
    prev_off = off;
    prev_len = vlen;
  }
  if (rc == 0 && inlet_buf_status(plain) < 0) rc = inlet_fail(err, INLET_ENOMEM, "out of memory");
  inlet_free(pre);
  inlet_free(suf);
  return rc;
}

int pq_byte_stream_split_to_plain(const uint8_t *p, size_t len, size_t n, size_t width,
                                  inlet_buf *plain, inlet_error *err) {
  size_t total;
  if (width == 0 || inlet_mul_overflow_size(n, width, &total) || total > len)
    return inlet_fail(err, INLET_ECORRUPT, "BYTE_STREAM_SPLIT of %zu %zu-byte values in %zu bytes",
                      n, width, len);
  inlet_buf_clear(plain);
  if (inlet_buf_reserve(plain, total) < 0) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  uint8_t *dst = plain->data;
  /* Streams hold byte b of every value; the stream stride is the page's
   * value count n (the bytes of one stream are contiguous). */
  for (size_t b = 0; b < width; b++) {
    const uint8_t *s = p + b * n;
    for (size_t i = 0; i < n; i++)
      dst[i * width + b] = s[i];
  }
  plain->len = total;
  return 0;
}
