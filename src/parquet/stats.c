/*
 * Column statistics for the Parquet writer (see stats.h): running min/max
 * in the TypeDefinedOrder of parquet.thrift ColumnOrder, and their encoding
 * into parquet.thrift Statistics, including the truncation rules for long
 * byte arrays (a prefix is a valid lower bound; an incremented prefix a
 * valid upper bound) and the NaN / signed-zero rules for floats.
 */
#include "parquet/stats.h"

#include <math.h>
#include <string.h>

pq_stats_kind pq_stats_kind_for(const pq_column_desc *desc) {
  if (desc->sort_order == PQ_SORT_UNKNOWN) return PQ_STATS_NONE;
  bool uns = desc->sort_order == PQ_SORT_UNSIGNED;
  switch (desc->physical_type) {
  case PQ_BOOLEAN: return PQ_STATS_BOOL;
  case PQ_INT32: return uns ? PQ_STATS_U32 : PQ_STATS_I32;
  case PQ_INT64: return uns ? PQ_STATS_U64 : PQ_STATS_I64;
  case PQ_FLOAT: return PQ_STATS_FLOAT;
  case PQ_DOUBLE: return PQ_STATS_DOUBLE;
  case PQ_BYTE_ARRAY:
  case PQ_FIXED_LEN_BYTE_ARRAY: return uns ? PQ_STATS_BYTES : PQ_STATS_SIGNED_BE;
  default: return PQ_STATS_NONE;
  }
}

void pq_stats_init(pq_stats *s, pq_stats_kind kind) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  inlet_buf_init(&s->min_bytes);
  inlet_buf_init(&s->max_bytes);
}

void pq_stats_reset(pq_stats *s) {
  if (!s) return;
  inlet_buf_reset(&s->min_bytes);
  inlet_buf_reset(&s->max_bytes);
  pq_stats_init(s, s->kind);
}

void pq_stats_clear(pq_stats *s) {
  s->num_values = s->null_count = 0;
  s->has_minmax = false;
  s->has_nan = false;
  s->min.u = s->max.u = 0;
  inlet_buf_clear(&s->min_bytes);
  inlet_buf_clear(&s->max_bytes);
}

static inline bool valid_at(const uint8_t *validity, int64_t i) {
  return (validity[i >> 3] >> (i & 7)) & 1;
}

/* The loops below are written so that the all-valid case is a plain
 * reduction the compiler vectorises; nulls take a branchy loop. */
#define MINMAX_LOOP(T, values, validity, start, n, lo, hi, seen)                                   \
  do {                                                                                             \
    const T *v_ = (values) + (start);                                                              \
    if (!(validity)) {                                                                             \
      if ((n) > 0) {                                                                               \
        seen = true;                                                                               \
        for (size_t i_ = 0; i_ < (n); i_++) {                                                      \
          T x_ = v_[i_];                                                                           \
          lo = x_ < lo ? x_ : lo;                                                                  \
          hi = x_ > hi ? x_ : hi;                                                                  \
        }                                                                                          \
      }                                                                                            \
    } else {                                                                                       \
      for (size_t i_ = 0; i_ < (n); i_++) {                                                        \
        if (!valid_at((validity), (start) + (int64_t)i_)) continue;                                \
        T x_ = v_[i_];                                                                             \
        seen = true;                                                                               \
        lo = x_ < lo ? x_ : lo;                                                                    \
        hi = x_ > hi ? x_ : hi;                                                                    \
      }                                                                                            \
    }                                                                                              \
  } while (0)

/* MINMAX_LOOP for floating point, also noting whether a valid value was
 * NaN (x != x); NaN never replaces lo/hi since it compares false. */
#define MINMAX_NAN_LOOP(T, values, validity, start, n, lo, hi, seen, nan)                          \
  do {                                                                                             \
    const T *v_ = (values) + (start);                                                              \
    if (!(validity)) {                                                                             \
      if ((n) > 0) {                                                                               \
        seen = true;                                                                               \
        for (size_t i_ = 0; i_ < (n); i_++) {                                                      \
          T x_ = v_[i_];                                                                           \
          nan |= x_ != x_;                                                                         \
          lo = x_ < lo ? x_ : lo;                                                                  \
          hi = x_ > hi ? x_ : hi;                                                                  \
        }                                                                                          \
      }                                                                                            \
    } else {                                                                                       \
      for (size_t i_ = 0; i_ < (n); i_++) {                                                        \
        if (!valid_at((validity), (start) + (int64_t)i_)) continue;                                \
        T x_ = v_[i_];                                                                             \
        seen = true;                                                                               \
        nan |= x_ != x_;                                                                           \
        lo = x_ < lo ? x_ : lo;                                                                    \
        hi = x_ > hi ? x_ : hi;                                                                    \
      }                                                                                            \
    }                                                                                              \
  } while (0)

void pq_stats_update_i32(pq_stats *s, const int32_t *values, const uint8_t *validity, int64_t start,
                         size_t n) {
  bool seen = false;
  if (s->kind == PQ_STATS_U32) {
    uint32_t lo = UINT32_MAX, hi = 0;
    MINMAX_LOOP(uint32_t, (const uint32_t *)values, validity, start, n, lo, hi, seen);
    if (!seen) return;
    if (!s->has_minmax || lo < s->min.u) s->min.u = lo;
    if (!s->has_minmax || hi > s->max.u) s->max.u = hi;
  } else if (s->kind == PQ_STATS_I32) {
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    MINMAX_LOOP(int32_t, values, validity, start, n, lo, hi, seen);
    if (!seen) return;
    if (!s->has_minmax || lo < s->min.i) s->min.i = lo;
    if (!s->has_minmax || hi > s->max.i) s->max.i = hi;
  } else {
    return;
  }
  s->has_minmax = true;
}

void pq_stats_update_i64(pq_stats *s, const int64_t *values, const uint8_t *validity, int64_t start,
                         size_t n) {
  bool seen = false;
  if (s->kind == PQ_STATS_U64) {
    uint64_t lo = UINT64_MAX, hi = 0;
    MINMAX_LOOP(uint64_t, (const uint64_t *)values, validity, start, n, lo, hi, seen);
    if (!seen) return;
    if (!s->has_minmax || lo < s->min.u) s->min.u = lo;
    if (!s->has_minmax || hi > s->max.u) s->max.u = hi;
  } else if (s->kind == PQ_STATS_I64) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    MINMAX_LOOP(int64_t, values, validity, start, n, lo, hi, seen);
    if (!seen) return;
    if (!s->has_minmax || lo < s->min.i) s->min.i = lo;
    if (!s->has_minmax || hi > s->max.i) s->max.i = hi;
  } else {
    return;
  }
  s->has_minmax = true;
}

/* NaN compares false both ways, so it never replaces lo/hi; "seen" is then
 * decided by lo <= hi (both still at their infinities means no number). */
void pq_stats_update_float(pq_stats *s, const float *values, const uint8_t *validity, int64_t start,
                           size_t n) {
  if (s->kind != PQ_STATS_FLOAT) return;
  float lo = INFINITY, hi = -INFINITY;
  bool seen = false, nan = false;
  MINMAX_NAN_LOOP(float, values, validity, start, n, lo, hi, seen, nan);
  s->has_nan |= nan;
  if (!seen || !(lo <= hi)) return;
  if (!s->has_minmax || lo < s->min.d) s->min.d = lo;
  if (!s->has_minmax || hi > s->max.d) s->max.d = hi;
  s->has_minmax = true;
}

void pq_stats_update_double(pq_stats *s, const double *values, const uint8_t *validity,
                            int64_t start, size_t n) {
  if (s->kind != PQ_STATS_DOUBLE) return;
  double lo = INFINITY, hi = -INFINITY;
  bool seen = false, nan = false;
  MINMAX_NAN_LOOP(double, values, validity, start, n, lo, hi, seen, nan);
  s->has_nan |= nan;
  if (!seen || !(lo <= hi)) return;
  if (!s->has_minmax || lo < s->min.d) s->min.d = lo;
  if (!s->has_minmax || hi > s->max.d) s->max.d = hi;
  s->has_minmax = true;
}

void pq_stats_update_bool(pq_stats *s, const uint8_t *bits, const uint8_t *validity, int64_t start,
                          size_t n) {
  if (s->kind != PQ_STATS_BOOL) return;
  bool any_true = false, any_false = false;
  for (size_t i = 0; i < n && !(any_true && any_false); i++) {
    int64_t r = start + (int64_t)i;
    if (validity && !valid_at(validity, r)) continue;
    if (valid_at(bits, r))
      any_true = true;
    else
      any_false = true;
  }
  if (!any_true && !any_false) return;
  uint64_t lo = any_false ? 0 : 1, hi = any_true ? 1 : 0;
  if (!s->has_minmax || lo < s->min.u) s->min.u = lo;
  if (!s->has_minmax || hi > s->max.u) s->max.u = hi;
  s->has_minmax = true;
}

static int cmp_unsigned(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
  size_t m = alen < blen ? alen : blen;
  int c = m ? memcmp(a, b, m) : 0;
  if (c) return c;
  return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* Signed big-endian two's complement of possibly different lengths: the
 * shorter is sign-extended (BYTE_ARRAY decimals may use minimal widths). */
static int cmp_signed_be(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
  bool aneg = alen && (a[0] & 0x80), bneg = blen && (b[0] & 0x80);
  if (aneg != bneg) return aneg ? -1 : 1;
  uint8_t ext = aneg ? 0xFF : 0x00;
  size_t len = alen > blen ? alen : blen;
  for (size_t i = 0; i < len; i++) {
    uint8_t x = i + alen >= len ? a[i + alen - len] : ext;
    uint8_t y = i + blen >= len ? b[i + blen - len] : ext;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

int pq_stats_compare_bytes(pq_stats_kind kind, const uint8_t *a, size_t alen, const uint8_t *b,
                           size_t blen) {
  return kind == PQ_STATS_SIGNED_BE ? cmp_signed_be(a, alen, b, blen)
                                    : cmp_unsigned(a, alen, b, blen);
}

static int set_buf(inlet_buf *b, const uint8_t *p, size_t len) {
  inlet_buf_clear(b);
  return inlet_buf_append(b, p, len);
}

int pq_stats_update_bytes(pq_stats *s, const uint8_t *p, size_t len) {
  if (s->kind != PQ_STATS_BYTES && s->kind != PQ_STATS_SIGNED_BE) return 0;
  if (!s->has_minmax) {
    if (set_buf(&s->min_bytes, p, len) < 0 || set_buf(&s->max_bytes, p, len) < 0)
      return INLET_ENOMEM;
    s->has_minmax = true;
    return 0;
  }
  if (pq_stats_compare_bytes(s->kind, p, len, s->min_bytes.data, s->min_bytes.len) < 0) {
    if (set_buf(&s->min_bytes, p, len) < 0) return INLET_ENOMEM;
  } else if (pq_stats_compare_bytes(s->kind, p, len, s->max_bytes.data, s->max_bytes.len) > 0) {
    if (set_buf(&s->max_bytes, p, len) < 0) return INLET_ENOMEM;
  }
  return 0;
}

/* Byte arrays: track the candidates by pointer over the whole range and
 * copy only the winners, so a long run costs comparisons, not copies. */
int pq_stats_update_binary(pq_stats *s, const int32_t *offsets, const uint8_t *data,
                           const uint8_t *validity, int64_t start, size_t n) {
  if (s->kind != PQ_STATS_BYTES && s->kind != PQ_STATS_SIGNED_BE) return 0;
  const uint8_t *lo = NULL, *hi = NULL;
  size_t lo_len = 0, hi_len = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t r = start + (int64_t)i;
    if (validity && !valid_at(validity, r)) continue;
    const uint8_t *p = data + offsets[r];
    size_t len = (size_t)(offsets[r + 1] - offsets[r]);
    if (!lo) {
      lo = hi = p;
      lo_len = hi_len = len;
    } else if (pq_stats_compare_bytes(s->kind, p, len, lo, lo_len) < 0) {
      lo = p;
      lo_len = len;
    } else if (pq_stats_compare_bytes(s->kind, p, len, hi, hi_len) > 0) {
      hi = p;
      hi_len = len;
    }
  }
  if (!lo) return 0;
  TRY(pq_stats_update_bytes(s, lo, lo_len));
  return pq_stats_update_bytes(s, hi, hi_len);
}

int pq_stats_update_fixed(pq_stats *s, const uint8_t *values, size_t width, const uint8_t *validity,
                          int64_t start, size_t n) {
  if (s->kind != PQ_STATS_BYTES && s->kind != PQ_STATS_SIGNED_BE) return 0;
  const uint8_t *lo = NULL, *hi = NULL;
  for (size_t i = 0; i < n; i++) {
    int64_t r = start + (int64_t)i;
    if (validity && !valid_at(validity, r)) continue;
    const uint8_t *p = values + (size_t)r * width;
    if (!lo) {
      lo = hi = p;
    } else if (pq_stats_compare_bytes(s->kind, p, width, lo, width) < 0) {
      lo = p;
    } else if (pq_stats_compare_bytes(s->kind, p, width, hi, width) > 0) {
      hi = p;
    }
  }
  if (!lo) return 0;
  TRY(pq_stats_update_bytes(s, lo, width));
  return pq_stats_update_bytes(s, hi, width);
}

int pq_stats_merge(pq_stats *dst, const pq_stats *src) {
  dst->num_values += src->num_values;
  dst->null_count += src->null_count;
  dst->has_nan |= src->has_nan;
  if (!src->has_minmax || dst->kind != src->kind) return 0;
  switch (dst->kind) {
  case PQ_STATS_BYTES:
  case PQ_STATS_SIGNED_BE:
    TRY(pq_stats_update_bytes(dst, src->min_bytes.data, src->min_bytes.len));
    return pq_stats_update_bytes(dst, src->max_bytes.data, src->max_bytes.len);
  case PQ_STATS_BOOL:
  case PQ_STATS_U32:
  case PQ_STATS_U64:
    if (!dst->has_minmax || src->min.u < dst->min.u) dst->min.u = src->min.u;
    if (!dst->has_minmax || src->max.u > dst->max.u) dst->max.u = src->max.u;
    break;
  case PQ_STATS_I32:
  case PQ_STATS_I64:
    if (!dst->has_minmax || src->min.i < dst->min.i) dst->min.i = src->min.i;
    if (!dst->has_minmax || src->max.i > dst->max.i) dst->max.i = src->max.i;
    break;
  case PQ_STATS_FLOAT:
  case PQ_STATS_DOUBLE:
    if (!dst->has_minmax || src->min.d < dst->min.d) dst->min.d = src->min.d;
    if (!dst->has_minmax || src->max.d > dst->max.d) dst->max.d = src->max.d;
    break;
  default: return 0;
  }
  dst->has_minmax = true;
  return 0;
}

/* ---- truncation -------------------------------------------------------- */

/* Largest cut <= limit that does not split a UTF-8 sequence. */
static size_t utf8_cut(const uint8_t *v, size_t len, size_t limit) {
  size_t cut = limit < len ? limit : len;
  while (cut > 0 && cut < len && (v[cut] & 0xC0) == 0x80)
    cut--;
  return cut;
}

int64_t pq_truncate_min(const uint8_t *v, size_t len, size_t limit, bool utf8, uint8_t *out) {
  if (len <= limit) {
    if (len) memcpy(out, v, len);
    return (int64_t)len;
  }
  size_t cut = utf8 ? utf8_cut(v, len, limit) : limit;
  if (cut) memcpy(out, v, cut);
  return (int64_t)cut;
}

/* Decodes the UTF-8 sequence starting at v[0] (len bytes available); returns
 * its length, or 0 when it is not a well-formed sequence. */
static size_t utf8_decode(const uint8_t *v, size_t len, uint32_t *cp) {
  uint8_t b = v[0];
  size_t n;
  uint32_t c;
  if (b < 0x80) {
    *cp = b;
    return 1;
  }
  if ((b & 0xE0) == 0xC0) {
    n = 2;
    c = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0) {
    n = 3;
    c = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0) {
    n = 4;
    c = b & 0x07;
  } else
    return 0;
  if (n > len) return 0;
  for (size_t i = 1; i < n; i++) {
    if ((v[i] & 0xC0) != 0x80) return 0;
    c = (c << 6) | (v[i] & 0x3F);
  }
  *cp = c;
  return n;
}

static size_t utf8_encode(uint32_t c, uint8_t *out) {
  if (c < 0x80) {
    out[0] = (uint8_t)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (uint8_t)(0xC0 | (c >> 6));
    out[1] = (uint8_t)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (uint8_t)(0xE0 | (c >> 12));
    out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    out[2] = (uint8_t)(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = (uint8_t)(0xF0 | (c >> 18));
  out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
  out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
  out[3] = (uint8_t)(0x80 | (c & 0x3F));
  return 4;
}

/* Binary upper bound: increment the last byte that is not 0xFF and drop
 * what follows it (a carry). */
static int64_t increment_binary(uint8_t *out, size_t cut) {
  while (cut > 0) {
    if (out[cut - 1] != 0xFF) {
      out[cut - 1]++;
      return (int64_t)cut;
    }
    cut--;
  }
  return -1;
}

int64_t pq_truncate_max(const uint8_t *v, size_t len, size_t limit, bool utf8, uint8_t *out) {
  if (len <= limit) {
    if (len) memcpy(out, v, len);
    return (int64_t)len;
  }
  if (!utf8) {
    if (limit) memcpy(out, v, limit);
    return increment_binary(out, limit);
  }
  /* UTF-8: walk the characters that fit, then bump the last one that can
   * be bumped (skipping the surrogate gap), dropping those after it. A
   * larger code point encodes to a larger byte sequence, so the result is
   * an upper bound that is still valid UTF-8. Malformed input falls back to
   * the binary rule. */
  size_t cut = utf8_cut(v, len, limit);
  size_t starts[64];
  size_t n_chars = 0, pos = 0;
  while (pos < cut) {
    uint32_t cp;
    size_t l = utf8_decode(v + pos, cut - pos, &cp);
    if (!l || n_chars == sizeof starts / sizeof starts[0]) break;
    starts[n_chars++] = pos;
    pos += l;
  }
  if (pos != cut) {
    /* Malformed, or more characters than we track: binary rule. */
    if (limit) memcpy(out, v, limit);
    return increment_binary(out, limit);
  }
  while (n_chars > 0) {
    size_t at = starts[n_chars - 1];
    uint32_t cp = 0;
    utf8_decode(v + at, cut - at, &cp);
    uint32_t next = cp + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
    if (next <= 0x10FFFF) {
      uint8_t enc[4];
      size_t el = utf8_encode(next, enc);
      if (at + el <= limit) {
        if (at) memcpy(out, v, at);
        memcpy(out + at, enc, el);
        return (int64_t)(at + el);
      }
    }
    n_chars--;
  }
  return -1;
}

/* ---- thrift encoding ---------------------------------------------------- */

static int put_bytes(pq_file_metadata *m, const void *p, size_t len, pq_bytes *out,
                     inlet_error *err) {
  uint8_t *copy = pq_meta_alloc(m, len ? len : 1, err);
  if (!copy) return INLET_ENOMEM;
  if (len) memcpy(copy, p, len);
  out->data = copy;
  out->len = (uint32_t)len;
  return 0;
}

int pq_stats_to_thrift(const pq_stats *s, int32_t truncate, bool utf8, pq_file_metadata *m,
                       pq_statistics *out, inlet_error *err) {
  memset(out, 0, sizeof *out);
  out->has_null_count = true;
  out->null_count = s->null_count;
  if (!s->has_minmax || s->kind == PQ_STATS_NONE) return 0;
  uint8_t lo[8], hi[8];
  size_t width = 0;
  bool legacy = false;
  switch (s->kind) {
  case PQ_STATS_BOOL:
    lo[0] = (uint8_t)s->min.u;
    hi[0] = (uint8_t)s->max.u;
    width = 1;
    break;
  case PQ_STATS_I32:
  case PQ_STATS_U32: {
    uint32_t a = (uint32_t)(s->kind == PQ_STATS_I32 ? (uint64_t)s->min.i : s->min.u);
    uint32_t b = (uint32_t)(s->kind == PQ_STATS_I32 ? (uint64_t)s->max.i : s->max.u);
    memcpy(lo, &a, 4);
    memcpy(hi, &b, 4);
    width = 4;
    legacy = s->kind == PQ_STATS_I32;
    break;
  }
  case PQ_STATS_I64:
  case PQ_STATS_U64:
    memcpy(lo, &s->min.u, 8);
    memcpy(hi, &s->max.u, 8);
    width = 8;
    legacy = s->kind == PQ_STATS_I64;
    break;
  case PQ_STATS_FLOAT: {
    /* Zero bounds are written as -0.0 (min) and +0.0 (max) so that a
     * reader comparing either sign of zero is never wrongly excluded. */
    float a = s->min.d == 0 ? -0.0f : (float)s->min.d;
    float b = s->max.d == 0 ? 0.0f : (float)s->max.d;
    memcpy(lo, &a, 4);
    memcpy(hi, &b, 4);
    width = 4;
    legacy = true;
    break;
  }
  case PQ_STATS_DOUBLE: {
    double a = s->min.d == 0 ? -0.0 : s->min.d;
    double b = s->max.d == 0 ? 0.0 : s->max.d;
    memcpy(lo, &a, 8);
    memcpy(hi, &b, 8);
    width = 8;
    legacy = true;
    break;
  }
  case PQ_STATS_SIGNED_BE:
    /* Decimals are short (<= 16 bytes) and a truncated number is not a
     * bound in numeric order: always exact. */
    TRY(put_bytes(m, s->min_bytes.data, s->min_bytes.len, &out->min_value, err));
    TRY(put_bytes(m, s->max_bytes.data, s->max_bytes.len, &out->max_value, err));
    out->has_min_value = out->has_max_value = true;
    out->has_is_min_value_exact = out->has_is_max_value_exact = true;
    out->is_min_value_exact = out->is_max_value_exact = true;
    return 0;
  case PQ_STATS_BYTES: {
    size_t limit = truncate > 0 ? (size_t)truncate : SIZE_MAX;
    size_t cap = s->min_bytes.len > s->max_bytes.len ? s->min_bytes.len : s->max_bytes.len;
    if (cap > limit) cap = limit;
    uint8_t *tmp = pq_meta_alloc(m, cap ? cap : 1, err);
    if (!tmp) return INLET_ENOMEM;
    int64_t n = pq_truncate_min(s->min_bytes.data, s->min_bytes.len, limit, utf8, tmp);
    out->min_value.data = tmp;
    out->min_value.len = (uint32_t)n;
    out->has_min_value = true;
    out->has_is_min_value_exact = true;
    out->is_min_value_exact = (size_t)n == s->min_bytes.len;
    uint8_t *tmp2 = pq_meta_alloc(m, cap ? cap : 1, err);
    if (!tmp2) return INLET_ENOMEM;
    n = pq_truncate_max(s->max_bytes.data, s->max_bytes.len, limit, utf8, tmp2);
    if (n >= 0) {
      out->max_value.data = tmp2;
      out->max_value.len = (uint32_t)n;
      out->has_max_value = true;
      out->has_is_max_value_exact = true;
      out->is_max_value_exact = s->max_bytes.len <= limit;
    }
    return 0;
  }
  default: return 0;
  }
  TRY(put_bytes(m, lo, width, &out->min_value, err));
  TRY(put_bytes(m, hi, width, &out->max_value, err));
  out->has_min_value = out->has_max_value = true;
  out->has_is_min_value_exact = out->has_is_max_value_exact = true;
  out->is_min_value_exact = out->is_max_value_exact = true;
  if (legacy) {
    out->min = out->min_value;
    out->max = out->max_value;
    out->has_min = out->has_max = true;
  }
  return 0;
}
