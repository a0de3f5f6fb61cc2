/*
 * The RLE / bit-packed hybrid encoding (Encodings.md "Run Length Encoding /
 * Bit-Packing Hybrid (RLE = 3)"), used for definition and repetition
 * levels, dictionary indices (RLE_DICTIONARY data pages) and RLE booleans.
 *
 *   run := rle-run | bit-packed-run
 *   rle-run := varint(count << 1) value(ceil(bit_width / 8) bytes, LE)
 *   bit-packed-run := varint(groups << 1 | 1) groups * bit_width bytes
 *
 * Decoding is strict where a writer cannot be wrong (header varints, RLE
 * values wider than bit_width, bit widths above 32) and lenient in one
 * place readers are known to be: a final bit-packed run whose bytes stop
 * early (parquet-mr pads such runs with zeros when reading). The values
 * that are actually present can be read; asking for more is INLET_ECORRUPT.
 *
 * Encoding follows the usual choice: runs of 8 or more equal values become
 * RLE runs, everything else bit-packed groups of 8.
 */
#include <inttypes.h>

#include "parquet/encoding.h"

/* ---- decoding -------------------------------------------------------- */

static int rle_corrupt(const pq_rle_decoder *d, inlet_error *err, const char *what) {
  (void)d;
  return inlet_fail(err, INLET_ECORRUPT, "RLE/bit-packed data: %s", what);
}

int pq_rle_init(pq_rle_decoder *d, const uint8_t *data, size_t len, int bit_width,
                inlet_error *err) {
  memset(d, 0, sizeof *d);
  if (!data) data = (const uint8_t *)""; /* NULL + 0 is undefined; "" is not */
  d->pos = data;
  d->end = data + len;
  d->bp_end = data;
  if (bit_width < 0 || bit_width > 32)
    return inlet_fail(err, INLET_ECORRUPT, "RLE/bit-packed data: bit width %d out of range 0..32",
                      bit_width);
  d->bit_width = bit_width;
  return 0;
}

int pq_rle_init_dict(pq_rle_decoder *d, const uint8_t *data, size_t len, inlet_error *err) {
  if (len < 1) {
    pq_rle_init(d, data, 0, 0, NULL);
    return inlet_fail(err, INLET_ECORRUPT, "dictionary indices: missing bit width byte");
  }
  return pq_rle_init(d, data + 1, len - 1, data[0], err);
}

int pq_rle_init_levels_v1(pq_rle_decoder *d, const uint8_t *data, size_t len, int bit_width,
                          size_t *consumed, inlet_error *err) {
  *consumed = 0;
  if (len < 4) {
    pq_rle_init(d, data, 0, 0, NULL);
    return inlet_fail(err, INLET_ECORRUPT, "levels: %zu bytes left, need a 4-byte length", len);
  }
  uint32_t n = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
               (uint32_t)data[3] << 24;
  if (n > len - 4) {
    pq_rle_init(d, data, 0, 0, NULL);
    return inlet_fail(err, INLET_ECORRUPT, "levels: length %" PRIu32 " exceeds the %zu bytes left",
                      n, len - 4);
  }
  *consumed = 4 + (size_t)n;
  return pq_rle_init(d, data + 4, n, bit_width, err);
}

/* Reads the next run header; called when nothing is left of the last run. */
static int rle_read_header(pq_rle_decoder *d, inlet_error *err) {
  if (d->pos >= d->end)
    return rle_corrupt(d, err, "ran out of runs before the expected value count");
  uint64_t h = 0;
  int shift = 0;
  for (;;) {
    if (d->pos >= d->end) return rle_corrupt(d, err, "truncated run header");
    uint8_t b = *d->pos++;
    h |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
    if (shift > 28) return rle_corrupt(d, err, "run header varint longer than 5 bytes");
  }
  if (h > UINT32_MAX) return rle_corrupt(d, err, "run header exceeds 32 bits");
  const size_t avail = (size_t)(d->end - d->pos);
  const int w = d->bit_width;
  if (h & 1) {
    uint64_t groups = h >> 1;
    uint64_t bytes = groups * (uint64_t)w;
    uint64_t count = groups * 8;
    if (bytes > avail) {
      /* Final run cut short: keep the values that are wholly present. */
      count = (uint64_t)avail * 8 / (uint64_t)w;
      bytes = avail;
      if (count == 0) return rle_corrupt(d, err, "bit-packed run extends past the end of the data");
    }
    d->bp_left = count;
    d->bp_end = d->pos + bytes;
  } else {
    const size_t nb = ((size_t)w + 7) / 8;
    if (nb > avail) return rle_corrupt(d, err, "truncated RLE run value");
    uint32_t v = 0;
    for (size_t i = 0; i < nb; i++)
      v |= (uint32_t)d->pos[i] << (8 * i);
    d->pos += nb;
    if (w < 32 && (v >> w) != 0)
      return rle_corrupt(d, err, "RLE run value wider than the bit width");
    d->rle_value = v;
    d->rle_left = h >> 1;
  }
  return 0;
}

enum { CHUNK_RLE = 1, CHUNK_LIT = 2 };

/*
 * Produces the next chunk of at most @p max (> 0) values: either an RLE
 * chunk (returns CHUNK_RLE, *value and *count) or literal values written to
 * @p buf (room for max; returns CHUNK_LIT, *count). Negative on error.
 */
static int rle_next(pq_rle_decoder *d, uint32_t *buf, size_t max, uint32_t *value, size_t *count,
                    inlet_error *err) {
  for (;;) {
    if (d->stage_pos < d->stage_len) {
      size_t k = d->stage_len - d->stage_pos;
      if (k > max) k = max;
      memcpy(buf, d->stage + d->stage_pos, k * sizeof *buf);
      d->stage_pos += (uint32_t)k;
      *count = k;
      return CHUNK_LIT;
    }
    if (d->rle_left) {
      size_t k = d->rle_left < max ? (size_t)d->rle_left : max;
      d->rle_left -= k;
      *value = d->rle_value;
      *count = k;
      return CHUNK_RLE;
    }
    if (d->bp_left) {
      const int w = d->bit_width;
      if (max >= 8 && d->bp_left >= 8) {
        size_t k = d->bp_left < max ? (size_t)d->bp_left : max;
        k &= ~(size_t)7;
        pq_unpack32_avail(buf, d->pos, k, w, (size_t)(d->end - d->pos));
        d->pos += k / 8 * (size_t)w;
        d->bp_left -= k;
        if (!d->bp_left) d->pos = d->bp_end;
        *count = k;
        return CHUNK_LIT;
      }
      /* The request splits a group (or the run ends mid-group): stage it. */
      uint8_t tmp[32] = {0};
      size_t have = (size_t)(d->bp_end - d->pos);
      size_t take = have < (size_t)w ? have : (size_t)w;
      memcpy(tmp, d->pos, take);
      pq_unpack32(d->stage, tmp, 8, w);
      d->pos += take;
      d->stage_len = d->bp_left < 8 ? (uint32_t)d->bp_left : 8;
      d->stage_pos = 0;
      d->bp_left -= d->stage_len;
      if (!d->bp_left) d->pos = d->bp_end;
      continue;
    }
    TRY(rle_read_header(d, err));
  }
}

int pq_rle_get_u32(pq_rle_decoder *d, uint32_t *dst, size_t n, inlet_error *err) {
  while (n) {
    uint32_t v;
    size_t k;
    int kind = rle_next(d, dst, n, &v, &k, err);
    if (kind < 0) return kind;
    if (kind == CHUNK_RLE)
      for (size_t i = 0; i < k; i++)
        dst[i] = v;
    dst += k;
    n -= k;
  }
  return 0;
}

enum { TMP_VALUES = 512 };

int pq_rle_get_i16(pq_rle_decoder *d, int16_t *dst, size_t n, uint32_t max_level,
                   inlet_error *err) {
  uint32_t tmp[TMP_VALUES];
  while (n) {
    uint32_t v;
    size_t k;
    int kind = rle_next(d, tmp, n < TMP_VALUES ? n : TMP_VALUES, &v, &k, err);
    if (kind < 0) return kind;
    if (kind == CHUNK_RLE) {
      if (v > max_level) return rle_corrupt(d, err, "level above the maximum level");
      for (size_t i = 0; i < k; i++)
        dst[i] = (int16_t)v;
    } else {
      uint32_t mx = 0;
      for (size_t i = 0; i < k; i++) {
        mx = tmp[i] > mx ? tmp[i] : mx;
        dst[i] = (int16_t)tmp[i];
      }
      if (mx > max_level) return rle_corrupt(d, err, "level above the maximum level");
    }
    dst += k;
    n -= k;
  }
  return 0;
}

/* Sets or clears bits [off, off + n). */
static void bits_fill(uint8_t *bits, int64_t off, size_t n, bool v) {
  int64_t end = off + (int64_t)n;
  while (off < end && (off & 7))
    inlet_bit_set(bits, off++, v);
  if (end - off >= 8) {
    size_t nb = (size_t)((end - off) >> 3);
    memset(bits + (off >> 3), v ? 0xff : 0, nb);
    off += (int64_t)nb * 8;
  }
  while (off < end)
    inlet_bit_set(bits, off++, v);
}

int pq_rle_get_validity(pq_rle_decoder *d, uint8_t *bits, int64_t bit_offset, size_t n,
                        uint32_t max_level, int64_t *n_valid, inlet_error *err) {
  uint32_t tmp[TMP_VALUES];
  int64_t valid = 0;
  while (n) {
    uint32_t v;
    size_t k;
    int kind = rle_next(d, tmp, n < TMP_VALUES ? n : TMP_VALUES, &v, &k, err);
    if (kind < 0) return kind;
    if (kind == CHUNK_RLE) {
      if (v > max_level) return rle_corrupt(d, err, "level above the maximum level");
      bits_fill(bits, bit_offset, k, v == max_level);
      if (v == max_level) valid += (int64_t)k;
    } else {
      uint32_t mx = 0;
      size_t i = 0;
      int64_t off = bit_offset;
      /* Unaligned head bit by bit, then whole bytes. */
      for (; i < k && (off & 7); i++, off++) {
        mx = tmp[i] > mx ? tmp[i] : mx;
        inlet_bit_set(bits, off, tmp[i] == max_level);
        valid += tmp[i] == max_level;
      }
      for (; i + 8 <= k; i += 8, off += 8) {
        uint8_t byte = 0;
        for (int j = 0; j < 8; j++) {
          mx = tmp[i + j] > mx ? tmp[i + j] : mx;
          byte |= (uint8_t)((tmp[i + j] == max_level) << j);
        }
        bits[off >> 3] = byte;
        valid += __builtin_popcount(byte);
      }
      for (; i < k; i++, off++) {
        mx = tmp[i] > mx ? tmp[i] : mx;
        inlet_bit_set(bits, off, tmp[i] == max_level);
        valid += tmp[i] == max_level;
      }
      if (mx > max_level) return rle_corrupt(d, err, "level above the maximum level");
    }
    bit_offset += (int64_t)k;
    n -= k;
  }
  *n_valid += valid;
  return 0;
}

int pq_rle_skip(pq_rle_decoder *d, size_t n, inlet_error *err) {
  uint32_t tmp[TMP_VALUES];
  while (n) {
    /* Whole RLE runs and whole bit-packed groups skip without decoding. */
    if (d->stage_pos == d->stage_len && !d->rle_left && d->bp_left >= 8 && n >= 8) {
      size_t k = d->bp_left < n ? (size_t)d->bp_left : n;
      k &= ~(size_t)7;
      d->pos += k / 8 * (size_t)d->bit_width;
      d->bp_left -= k;
      if (!d->bp_left) d->pos = d->bp_end;
      n -= k;
      continue;
    }
    uint32_t v;
    size_t k;
    int kind = rle_next(d, tmp, n < TMP_VALUES ? n : TMP_VALUES, &v, &k, err);
    if (kind < 0) return kind;
    n -= k;
  }
  return 0;
}

/* Fills k copies of one value of width w. */
static void fill_fixed(uint8_t *dst, const uint8_t *val, size_t w, size_t k) {
  switch (w) {
  case 1: memset(dst, val[0], k); break;
  case 2: {
    uint16_t x;
    memcpy(&x, val, 2);
    for (size_t i = 0; i < k; i++)
      memcpy(dst + 2 * i, &x, 2);
  } break;
  case 4: {
    uint32_t x;
    memcpy(&x, val, 4);
    for (size_t i = 0; i < k; i++)
      memcpy(dst + 4 * i, &x, 4);
  } break;
  case 8: {
    uint64_t x;
    memcpy(&x, val, 8);
    for (size_t i = 0; i < k; i++)
      memcpy(dst + 8 * i, &x, 8);
  } break;
  default:
    for (size_t i = 0; i < k; i++)
      memcpy(dst + w * i, val, w);
  }
}

/* dst[i] = dict[idx[i]]; indices already validated. */
static void gather_fixed(uint8_t *restrict dst, const uint8_t *restrict dict, size_t w,
                         const uint32_t *restrict idx, size_t n) {
  switch (w) {
  case 1:
    for (size_t i = 0; i < n; i++)
      dst[i] = dict[idx[i]];
    break;
  case 2:
    for (size_t i = 0; i < n; i++)
      memcpy(dst + 2 * i, dict + 2 * (size_t)idx[i], 2);
    break;
  case 4:
    for (size_t i = 0; i < n; i++)
      memcpy(dst + 4 * i, dict + 4 * (size_t)idx[i], 4);
    break;
  case 8:
    for (size_t i = 0; i < n; i++)
      memcpy(dst + 8 * i, dict + 8 * (size_t)idx[i], 8);
    break;
  case 12:
    for (size_t i = 0; i < n; i++)
      memcpy(dst + 12 * i, dict + 12 * (size_t)idx[i], 12);
    break;
  case 16:
    for (size_t i = 0; i < n; i++)
      memcpy(dst + 16 * i, dict + 16 * (size_t)idx[i], 16);
    break;
  default:
    for (size_t i = 0; i < n; i++)
      memcpy(dst + w * i, dict + w * (size_t)idx[i], w);
  }
}

static uint32_t max_u32(const uint32_t *v, size_t n) {
  uint32_t m = 0;
  for (size_t i = 0; i < n; i++)
    m = v[i] > m ? v[i] : m;
  return m;
}

int pq_rle_dict_fixed(pq_rle_decoder *d, void *dst, const void *dict, uint32_t dict_n, size_t width,
                      size_t n, inlet_error *err) {
  uint32_t tmp[TMP_VALUES];
  uint8_t *out = dst;
  while (n) {
    uint32_t v;
    size_t k;
    int kind = rle_next(d, tmp, n < TMP_VALUES ? n : TMP_VALUES, &v, &k, err);
    if (kind < 0) return kind;
    if (kind == CHUNK_RLE) {
      if (v >= dict_n)
        return inlet_fail(err, INLET_ECORRUPT,
                          "dictionary index %" PRIu32 " out of range (dictionary has %" PRIu32
                          " values)",
                          v, dict_n);
      fill_fixed(out, (const uint8_t *)dict + (size_t)v * width, width, k);
    } else {
      uint32_t m = max_u32(tmp, k);
      if (m >= dict_n)
        return inlet_fail(err, INLET_ECORRUPT,
                          "dictionary index %" PRIu32 " out of range (dictionary has %" PRIu32
                          " values)",
                          m, dict_n);
      gather_fixed(out, dict, width, tmp, k);
    }
    out += k * width;
    n -= k;
  }
  return 0;
}

int pq_dict_gather_fixed(void *dst, const void *dict, uint32_t dict_n, size_t width,
                         const uint32_t *idx, size_t n, inlet_error *err) {
  uint32_t m = max_u32(idx, n);
  if (n && m >= dict_n)
    return inlet_fail(
        err, INLET_ECORRUPT,
        "dictionary index %" PRIu32 " out of range (dictionary has %" PRIu32 " values)", m, dict_n);
  gather_fixed(dst, dict, width, idx, n);
  return 0;
}

/* ---- encoding -------------------------------------------------------- */

static void put_varint(inlet_buf *out, uint64_t v) {
  uint8_t b[10];
  int n = 0;
  while (v >= 0x80) {
    b[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b[n++] = (uint8_t)v;
  inlet_buf_append(out, b, (size_t)n);
}

/* Longest RLE run and bit-packed run (in values) we emit in one header; keeps
 * every header within what 32-bit readers accept. */
#define MAX_RLE_RUN ((size_t)1 << 30)
#define MAX_LIT_VALUES ((size_t)1 << 24)

static void emit_rle(inlet_buf *out, uint32_t v, size_t count, int w) {
  const size_t nb = ((size_t)w + 7) / 8;
  while (count) {
    size_t k = count < MAX_RLE_RUN ? count : MAX_RLE_RUN;
    put_varint(out, (uint64_t)k << 1);
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    inlet_buf_append(out, b, nb);
    count -= k;
  }
}

/* Bit-packed header + room for @p count values (rounded up to a group);
 * returns where the packed bytes go (zeroed), or NULL on ENOMEM. */
static uint8_t *emit_lit_header(inlet_buf *out, size_t count, int w) {
  size_t groups = (count + 7) / 8;
  put_varint(out, (uint64_t)groups << 1 | 1);
  size_t bytes = groups * (size_t)w;
  if (inlet_buf_reserve(out, bytes) < 0) return NULL;
  uint8_t *p = out->data + out->len;
  memset(p, 0, bytes);
  out->len += bytes;
  return p;
}

static void emit_lit_u32(inlet_buf *out, const uint32_t *v, size_t count, int w) {
  while (count) {
    size_t k = count < MAX_LIT_VALUES ? count : MAX_LIT_VALUES;
    uint8_t *p = emit_lit_header(out, k, w);
    if (!p) return;
    pq_pack32(p, v, k, w);
    v += k;
    count -= k;
  }
}

static void emit_lit_i16(inlet_buf *out, const int16_t *v, size_t count, int w) {
  while (count) {
    size_t k = count < MAX_LIT_VALUES ? count : MAX_LIT_VALUES;
    uint8_t *p = emit_lit_header(out, k, w);
    if (!p) return;
    uint32_t tmp[TMP_VALUES];
    for (size_t done = 0; done < k; done += TMP_VALUES) {
      size_t c = k - done < TMP_VALUES ? k - done : TMP_VALUES;
      for (size_t i = 0; i < c; i++)
        tmp[i] = (uint16_t)v[done + i];
      pq_pack32(p + done / 8 * (size_t)w, tmp, c, w);
    }
    v += k;
    count -= k;
  }
}

/* Bits [start, start + count) of @p bits (NULL = all ones), width 1. */
static void emit_lit_bits(inlet_buf *out, const uint8_t *bits, int64_t start, size_t count) {
  while (count) {
    size_t k = count < MAX_LIT_VALUES ? count : MAX_LIT_VALUES;
    uint8_t *p = emit_lit_header(out, k, 1);
    if (!p) return;
    for (size_t i = 0; i < k; i++)
      if (!bits || inlet_bit_get(bits, start + (int64_t)i)) p[i >> 3] |= (uint8_t)(1u << (i & 7));
    start += (int64_t)k;
    count -= k;
  }
}

/*
 * The run splitter shared by the encoders. GET(i) reads value i; LIT(a, b)
 * emits values [a, b) bit-packed; RUN_END(i, v) advances past the run of v
 * starting at i. A run of >= 8 equal values becomes an RLE run, after
 * borrowing values to complete the pending literal's last group of 8.
 */
#define RLE_ENCODE_BODY(GET, LIT, RUN_END)                                                         \
  size_t i = 0, lit = 0;                                                                           \
  while (i < n) {                                                                                  \
    uint32_t v = GET(i);                                                                           \
    size_t j = RUN_END(i, v);                                                                      \
    size_t r = j - i;                                                                              \
    if (r >= 8) {                                                                                  \
      size_t part = (i - lit) % 8;                                                                 \
      if (part) {                                                                                  \
        size_t pad = 8 - part;                                                                     \
        if (r - pad < 8) {                                                                         \
          i = j;                                                                                   \
          continue;                                                                                \
        }                                                                                          \
        i += pad;                                                                                  \
        r -= pad;                                                                                  \
      }                                                                                            \
      if (i > lit) LIT(lit, i);                                                                    \
      emit_rle(out, v, r, bit_width);                                                              \
      lit = j;                                                                                     \
    }                                                                                              \
    i = j;                                                                                         \
  }                                                                                                \
  if (n > lit) LIT(lit, n);                                                                        \
  return inlet_buf_status(out);

static inline size_t run_end_u32(const uint32_t *values, size_t i, size_t n, uint32_t v) {
  size_t j = i + 1;
  while (j < n && values[j] == v)
    j++;
  return j;
}

int pq_rle_encode_u32(inlet_buf *out, const uint32_t *values, size_t n, int bit_width) {
#define GET(i) values[i]
#define LIT(a, b) emit_lit_u32(out, values + (a), (b) - (a), bit_width)
#define RUN_END(i, v) run_end_u32(values, i, n, v)
  RLE_ENCODE_BODY(GET, LIT, RUN_END)
#undef GET
#undef LIT
#undef RUN_END
}

static inline size_t run_end_i16(const int16_t *values, size_t i, size_t n, uint32_t v) {
  size_t j = i + 1;
  while (j < n && (uint16_t)values[j] == v)
    j++;
  return j;
}

int pq_rle_encode_i16(inlet_buf *out, const int16_t *values, size_t n, int bit_width) {
#define GET(i) (uint32_t)(uint16_t) values[i]
#define LIT(a, b) emit_lit_i16(out, values + (a), (b) - (a), bit_width)
#define RUN_END(i, v) run_end_i16(values, i, n, v)
  RLE_ENCODE_BODY(GET, LIT, RUN_END)
#undef GET
#undef LIT
#undef RUN_END
}

/* End of the run of bit value v starting at relative index i, skipping whole
 * bytes of 0x00 / 0xff (the all-valid column is the common case). */
static size_t run_end_bits(const uint8_t *bits, int64_t start, size_t i, size_t n, uint32_t v) {
  if (!bits) return v ? n : i + 1;
  const uint8_t full = v ? 0xff : 0x00;
  size_t j = i + 1;
  while (j < n) {
    int64_t abs = start + (int64_t)j;
    if (!(abs & 7) && n - j >= 8) {
      if (bits[abs >> 3] == full) {
        j += 8;
        continue;
      }
    }
    if (inlet_bit_get(bits, abs) != (bool)v) break;
    j++;
  }
  return j;
}

int pq_rle_encode_bits(inlet_buf *out, const uint8_t *bits, int64_t start, size_t n) {
  const int bit_width = 1;
#define GET(i) (uint32_t)(bits ? inlet_bit_get(bits, start + (int64_t)(i)) : 1)
#define LIT(a, b) emit_lit_bits(out, bits, start + (int64_t)(a), (b) - (a))
#define RUN_END(i, v) run_end_bits(bits, start, i, n, v)
  RLE_ENCODE_BODY(GET, LIT, RUN_END)
#undef GET
#undef LIT
#undef RUN_END
}

/* Reserves the 4-byte length prefix and fills it in after the runs. */
static int levels_v1_finish(inlet_buf *out, size_t at) {
  if (inlet_buf_status(out) < 0) return inlet_buf_status(out);
  size_t len = out->len - at - 4;
  if (len > UINT32_MAX) return INLET_ELIMIT;
  for (int i = 0; i < 4; i++)
    out->data[at + (size_t)i] = (uint8_t)(len >> (8 * i));
  return 0;
}

int pq_rle_encode_levels_v1_i16(inlet_buf *out, const int16_t *levels, size_t n, int bit_width) {
  size_t at = out->len;
  static const uint8_t zero[4];
  inlet_buf_append(out, zero, 4);
  pq_rle_encode_i16(out, levels, n, bit_width);
  return levels_v1_finish(out, at);
}

int pq_rle_encode_levels_v1_bits(inlet_buf *out, const uint8_t *validity, int64_t start, size_t n) {
  size_t at = out->len;
  static const uint8_t zero[4];
  inlet_buf_append(out, zero, 4);
  pq_rle_encode_bits(out, validity, start, n);
  return levels_v1_finish(out, at);
}

int pq_rle_encode_dict_indices(inlet_buf *out, const uint32_t *idx, size_t n, int bit_width) {
  inlet_buf_push(out, (uint8_t)bit_width);
  return pq_rle_encode_u32(out, idx, n, bit_width);
}
