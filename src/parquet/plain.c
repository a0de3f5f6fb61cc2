/*
 * PLAIN encoding (Encodings.md "Plain: (PLAIN = 0)") for every physical
 * type: fixed-width values little-endian back to back, BOOLEAN bit-packed
 * LSB first, BYTE_ARRAY as a 4-byte little-endian length plus the bytes,
 * INT96 (deprecated timestamps: 8-byte nanoseconds of the day then a 4-byte
 * Julian day) decoded to int64 since the Unix epoch.
 *
 * Also the helpers that move densely decoded non-null values to their row
 * positions (pq_spread_*), shared by the PLAIN and dictionary paths.
 */
#include <inttypes.h>

#include "parquet/encoding.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "inlet's Parquet encodings assume a little-endian host"
#endif

/* Julian day number of 1970-01-01. */
#define JULIAN_UNIX_EPOCH 2440588

static inline uint32_t load_u32le(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* Index just past the run of set bits starting at i (i < n), whole 0xff
 * bytes at a time. */
static size_t valid_run_end(const uint8_t *validity, int64_t start, size_t i, size_t n) {
  size_t j = i + 1;
  while (j < n) {
    int64_t abs = start + (int64_t)j;
    if (!(abs & 7) && n - j >= 8 && validity[abs >> 3] == 0xff) {
      j += 8;
      continue;
    }
    if (!inlet_bit_get(validity, abs)) break;
    j++;
  }
  return j;
}

/* ---- encoding -------------------------------------------------------- */

int pq_plain_encode_fixed(inlet_buf *out, const void *values, size_t width, const uint8_t *validity,
                          int64_t start, size_t n) {
  if (n == 0) return inlet_buf_status(out);
  const uint8_t *v = (const uint8_t *)values + (size_t)start * width;
  if (!validity) return inlet_buf_append(out, v, n * width);
  size_t i = 0;
  while (i < n) {
    if (!inlet_bit_get(validity, start + (int64_t)i)) {
      i++;
      continue;
    }
    size_t j = valid_run_end(validity, start, i, n);
    inlet_buf_append(out, v + i * width, (j - i) * width);
    i = j;
  }
  return inlet_buf_status(out);
}

int pq_plain_encode_binary(inlet_buf *out, const int32_t *offsets, const uint8_t *data,
                           const uint8_t *validity, int64_t start, size_t n) {
  const int32_t *off = offsets + start;
  size_t total = 0;
  if (!validity) {
    total = (size_t)(off[n] - off[0]) + 4 * n;
  } else {
    for (size_t i = 0; i < n; i++)
      if (inlet_bit_get(validity, start + (int64_t)i)) total += 4 + (size_t)(off[i + 1] - off[i]);
  }
  if (inlet_buf_reserve(out, total) < 0) return inlet_buf_status(out);
  uint8_t *p = out->data + out->len;
  for (size_t i = 0; i < n; i++) {
    if (validity && !inlet_bit_get(validity, start + (int64_t)i)) continue;
    uint32_t len = (uint32_t)(off[i + 1] - off[i]);
    memcpy(p, &len, 4);
    if (len) memcpy(p + 4, data + off[i], len); /* data may be NULL if all are empty */
    p += 4 + (size_t)len;
  }
  out->len += total;
  return 0;
}

void pq_bool_encoder_init(pq_bool_encoder *e, inlet_buf *out) {
  e->out = out;
  e->acc = 0;
  e->n_acc = 0;
}

int pq_bool_encoder_put(pq_bool_encoder *e, const uint8_t *bits, const uint8_t *validity,
                        int64_t start, size_t n) {
  uint64_t acc = e->acc;
  int n_acc = e->n_acc;
  for (size_t i = 0; i < n; i++) {
    int64_t r = start + (int64_t)i;
    if (validity && !inlet_bit_get(validity, r)) continue;
    acc |= (uint64_t)inlet_bit_get(bits, r) << n_acc;
    if (++n_acc == 64) {
      inlet_buf_append(e->out, &acc, 8);
      acc = 0;
      n_acc = 0;
    }
  }
  e->acc = acc;
  e->n_acc = n_acc;
  return inlet_buf_status(e->out);
}

int pq_bool_encoder_finish(pq_bool_encoder *e) {
  if (e->n_acc) inlet_buf_append(e->out, &e->acc, ((size_t)e->n_acc + 7) / 8);
  e->acc = 0;
  e->n_acc = 0;
  return inlet_buf_status(e->out);
}

/* ---- decoding -------------------------------------------------------- */

void pq_plain_init(pq_plain_decoder *d, const uint8_t *data, size_t len) {
  d->data = data ? data : (const uint8_t *)""; /* NULL + 0 is undefined */
  d->len = len;
  d->pos = 0;
  d->bit_pos = 0;
}

static int plain_short(inlet_error *err, size_t n, const char *what, size_t need, size_t have) {
  return inlet_fail(err, INLET_ECORRUPT, "PLAIN data: %zu %s values need %zu bytes, only %zu left",
                    n, what, need, have);
}

int pq_plain_decode_fixed(pq_plain_decoder *d, void *dst, size_t n, size_t width,
                          inlet_error *err) {
  size_t need;
  if (inlet_mul_overflow_size(n, width, &need) || need > d->len - d->pos)
    return plain_short(err, n, "fixed-width", n * width, d->len - d->pos);
  if (need) memcpy(dst, d->data + d->pos, need);
  d->pos += need;
  return 0;
}

/* Copies n bits from src (bit src_off) to dst (bit dst_off). */
static void copy_bits(uint8_t *dst, int64_t dst_off, const uint8_t *src, uint64_t src_off,
                      size_t n) {
  size_t i = 0;
  if (!(dst_off & 7) && !(src_off & 7)) {
    size_t nb = n / 8;
    memcpy(dst + (dst_off >> 3), src + (src_off >> 3), nb);
    i = nb * 8;
  } else if (!(dst_off & 7)) {
    /* Destination aligned: assemble whole bytes from two source bytes. */
    const int sh = (int)(src_off & 7);
    for (; i + 8 <= n; i += 8) {
      const uint8_t *s = src + ((src_off + i) >> 3);
      /* Reading s[1] is in range: the bits reach 8 - sh bits into it. */
      dst[(dst_off + (int64_t)i) >> 3] = (uint8_t)((s[0] >> sh) | (s[1] << (8 - sh)));
    }
  }
  for (; i < n; i++)
    inlet_bit_set(dst, dst_off + (int64_t)i, (src[(src_off + i) >> 3] >> ((src_off + i) & 7)) & 1);
}

int pq_plain_decode_bool(pq_plain_decoder *d, uint8_t *bits, int64_t bit_offset, size_t n,
                         inlet_error *err) {
  uint64_t avail = (uint64_t)d->len * 8 - d->bit_pos;
  if (n > avail) return plain_short(err, n, "BOOLEAN", (size_t)((d->bit_pos + n + 7) / 8), d->len);
  copy_bits(bits, bit_offset, d->data, d->bit_pos, n);
  d->bit_pos += n;
  d->pos = (size_t)((d->bit_pos + 7) / 8);
  return 0;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

bool pq_int96_to_unit(const uint8_t src[12], inlet_time_unit unit, int64_t *out) {
  int64_t nanos;
  memcpy(&nanos, src, 8);
  int64_t days = (int64_t)load_u32le(src + 8) - JULIAN_UNIX_EPOCH;
  int64_t per_day, sub;
  switch (unit) {
  case INLET_UNIT_SECOND:
    per_day = 86400;
    sub = floor_div(nanos, 1000000000);
    break;
  case INLET_UNIT_MILLI:
    per_day = 86400000;
    sub = floor_div(nanos, 1000000);
    break;
  case INLET_UNIT_MICRO:
    per_day = 86400000000;
    sub = floor_div(nanos, 1000);
    break;
  default:
    per_day = 86400000000000;
    sub = nanos;
    break;
  }
  int64_t base;
  if (inlet_mul_overflow_i64(days, per_day, &base)) return false;
  return !inlet_add_overflow_i64(base, sub, out);
}

int pq_plain_decode_int96(pq_plain_decoder *d, int64_t *dst, size_t n, inlet_time_unit unit,
                          inlet_error *err) {
  size_t need;
  if (inlet_mul_overflow_size(n, 12, &need) || need > d->len - d->pos)
    return plain_short(err, n, "INT96", n * 12, d->len - d->pos);
  const uint8_t *p = d->data + d->pos;
  for (size_t i = 0; i < n; i++)
    if (!pq_int96_to_unit(p + 12 * i, unit, &dst[i]))
      return inlet_fail(err, INLET_ECORRUPT, "INT96 value %zu is out of the int64 timestamp range",
                        i);
  d->pos += need;
  return 0;
}

int pq_plain_measure_binary(const pq_plain_decoder *d, size_t n, size_t *total_bytes,
                            inlet_error *err) {
  const uint8_t *p = d->data + d->pos, *end = d->data + d->len;
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    if (end - p < 4)
      return inlet_fail(err, INLET_ECORRUPT,
                        "PLAIN BYTE_ARRAY value %zu of %zu: length prefix past the end of the page",
                        i, n);
    uint32_t len = load_u32le(p);
    p += 4;
    if (len > (size_t)(end - p))
      return inlet_fail(err, INLET_ECORRUPT,
                        "PLAIN BYTE_ARRAY value %zu of %zu: length %" PRIu32
                        " exceeds the %zu bytes left in the page",
                        i, n, len, (size_t)(end - p));
    p += len;
    total += len;
  }
  *total_bytes = total;
  return 0;
}

int pq_plain_skip_binary(pq_plain_decoder *d, size_t n, inlet_error *err) {
  size_t total = 0;
  TRY(pq_plain_measure_binary(d, n, &total, err));
  d->pos += total + 4 * n;
  return 0;
}

/* Copies a value of @p len bytes; when both sides have 16 bytes of room a
 * fixed-size copy of short values avoids memcpy's per-call dispatch. */
static inline void copy_value(uint8_t *dst, const uint8_t *src, size_t len, bool room16) {
  if (room16 && len <= 16) {
    uint64_t a, b;
    memcpy(&a, src, 8);
    memcpy(&b, src + 8, 8);
    memcpy(dst, &a, 8);
    memcpy(dst + 8, &b, 8);
  } else {
    memcpy(dst, src, len);
  }
}

/*
 * One validating pass: copies up to n values into dst (room for dst_cap
 * bytes, never exceeded) and writes offsets. Returns 0, or fails with the
 * same messages as pq_plain_measure_binary. dst_cap need not cover the
 * 16-byte over-copy slack: the fast copy is used only where it fits.
 */
static int decode_binary_into(pq_plain_decoder *d, size_t n, int32_t *offsets, uint8_t *dst,
                              size_t dst_cap, inlet_error *err) {
  const uint8_t *p = d->data + d->pos, *end = d->data + d->len;
  size_t o = 0;
  const int64_t base = offsets[0];
  for (size_t i = 0; i < n; i++) {
    if (end - p < 4)
      return inlet_fail(err, INLET_ECORRUPT,
                        "PLAIN BYTE_ARRAY value %zu of %zu: length prefix past the end of the page",
                        i, n);
    uint32_t len = load_u32le(p);
    p += 4;
    if (len > (size_t)(end - p))
      return inlet_fail(err, INLET_ECORRUPT,
                        "PLAIN BYTE_ARRAY value %zu of %zu: length %" PRIu32
                        " exceeds the %zu bytes left in the page",
                        i, n, len, (size_t)(end - p));
    if (len > dst_cap - o)
      return inlet_fail(err, INLET_ELIMIT,
                        "PLAIN BYTE_ARRAY value %zu of %zu: %" PRIu32
                        " bytes do not fit the output buffer",
                        i, n, len);
    copy_value(dst + o, p, len, end - p >= 16 && dst_cap - o >= 16);
    p += len;
    o += len;
    offsets[i + 1] = (int32_t)(base + (int64_t)o);
  }
  d->pos = (size_t)(p - d->data);
  return 0;
}

static int binary_limit(inlet_error *err, int64_t base, size_t total) {
  return inlet_fail(err, INLET_ELIMIT,
                    "byte array data of %" PRId64 " + %zu bytes exceeds the 2 GiB offset limit",
                    base, total);
}

int pq_plain_decode_binary(pq_plain_decoder *d, size_t n, int32_t *offsets, inlet_buf *data,
                           inlet_error *err) {
  /* The page's remaining bytes bound the output, so one reservation and one
   * validating pass suffice; only when that bound would pass the int32
   * offset limit is the exact total measured first. */
  size_t bound = d->len - d->pos;
  if (offsets[0] < 0) return binary_limit(err, offsets[0], 0);
  if (bound > (size_t)INT32_MAX - (size_t)offsets[0]) {
    size_t total = 0;
    TRY(pq_plain_measure_binary(d, n, &total, err));
    if (total > (size_t)INT32_MAX - (size_t)offsets[0]) return binary_limit(err, offsets[0], total);
    bound = total;
  }
  if (inlet_buf_reserve(data, bound + 16) < 0)
    return inlet_fail(err, INLET_ENOMEM, "out of memory decoding %zu bytes of byte arrays", bound);
  size_t start = d->pos;
  TRY(decode_binary_into(d, n, offsets, data->data + data->len, bound + 16, err));
  /* Bytes written = consumed page bytes minus the length prefixes. */
  data->len += d->pos - start - 4 * n;
  return 0;
}

int pq_plain_decode_binary_raw(pq_plain_decoder *d, size_t n, int32_t *offsets, uint8_t *data,
                               size_t data_cap, inlet_error *err) {
  if (offsets[0] < 0 || (size_t)offsets[0] > data_cap) return binary_limit(err, offsets[0], 0);
  size_t cap = data_cap - (size_t)offsets[0];
  if (cap > (size_t)INT32_MAX - (size_t)offsets[0]) cap = (size_t)INT32_MAX - (size_t)offsets[0];
  size_t start = d->pos;
  int rc = decode_binary_into(d, n, offsets, data + offsets[0], cap, err);
  if (rc < 0) d->pos = start;
  return rc;
}

/* ---- spreading -------------------------------------------------------- */

#define SPREAD_LOOP(T)                                                                             \
  do {                                                                                             \
    T *v = values;                                                                                 \
    for (size_t i = n; i-- > 0;) {                                                                 \
      if (j == i + 1) return;                                                                      \
      if (inlet_bit_get(validity, vbit_offset + (int64_t)i))                                       \
        v[i] = v[--j];                                                                             \
      else                                                                                         \
        memset(&v[i], 0, sizeof(T));                                                               \
    }                                                                                              \
  } while (0)

typedef struct {
  uint8_t b[12];
} pq_v12;
typedef struct {
  uint8_t b[16];
} pq_v16;

void pq_spread_fixed(void *values, size_t width, const uint8_t *validity, int64_t vbit_offset,
                     size_t n, size_t n_valid) {
  size_t j = n_valid;
  switch (width) {
  case 1: SPREAD_LOOP(uint8_t); return;
  case 2: SPREAD_LOOP(uint16_t); return;
  case 4: SPREAD_LOOP(uint32_t); return;
  case 8: SPREAD_LOOP(uint64_t); return;
  case 12: SPREAD_LOOP(pq_v12); return;
  case 16: SPREAD_LOOP(pq_v16); return;
  default: break;
  }
  uint8_t *v = values;
  for (size_t i = n; i-- > 0;) {
    if (j == i + 1) return;
    if (inlet_bit_get(validity, vbit_offset + (int64_t)i))
      memmove(v + i * width, v + --j * width, width);
    else
      memset(v + i * width, 0, width);
  }
}

void pq_spread_offsets(int32_t *offsets, const uint8_t *validity, int64_t vbit_offset, size_t n,
                       size_t n_valid) {
  size_t k = n_valid;
  for (size_t i = n; i-- > 0;) {
    if (k == i + 1) return; /* rows 0..i are all valid and already in place */
    offsets[i + 1] = offsets[k];
    if (inlet_bit_get(validity, vbit_offset + (int64_t)i)) k--;
  }
}

void pq_spread_bits(uint8_t *bits, int64_t bit_offset, const uint8_t *validity, int64_t vbit_offset,
                    size_t n, size_t n_valid) {
  size_t j = n_valid;
  for (size_t i = n; i-- > 0;) {
    if (j == i + 1) return;
    bool v = false;
    if (inlet_bit_get(validity, vbit_offset + (int64_t)i))
      v = inlet_bit_get(bits, bit_offset + (int64_t)--j);
    inlet_bit_set(bits, bit_offset + (int64_t)i, v);
  }
}

int64_t pq_count_bits(const uint8_t *bits, int64_t bit_offset, size_t n) {
  int64_t c = 0;
  int64_t i = bit_offset, end = bit_offset + (int64_t)n;
  for (; i < end && (i & 7); i++)
    c += inlet_bit_get(bits, i);
  for (; end - i >= 64; i += 64) {
    uint64_t w;
    memcpy(&w, bits + (i >> 3), 8);
    c += __builtin_popcountll(w);
  }
  for (; end - i >= 8; i += 8)
    c += __builtin_popcount(bits[i >> 3]);
  for (; i < end; i++)
    c += inlet_bit_get(bits, i);
  return c;
}
