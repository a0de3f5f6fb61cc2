/*
 * Variant values to canonical JSON text (batch.h batch_variant_to_json).
 *
 * Spec: apache/parquet-format VariantEncoding.md. A variant is two byte
 * strings: the metadata (header: version 1 in bits 0-3, sorted_strings in
 * bit 4, offset_size - 1 in bits 6-7; dictionary_size; dictionary_size + 1
 * offsets; the UTF-8 key bytes) and the value (one header byte: basic type
 * in bits 0-1, a 6-bit type-specific header above it; then the data).
 * Primitives are little-endian; objects list field ids, then num_elements + 1
 * offsets into their values region, in lexicographic key order (values may
 * sit in any order, so an element's extent is known only from its own
 * header); arrays list offsets only.
 *
 * Every byte is untrusted: each offset and length is checked against the
 * region it points into before use, nesting is limited to
 * BATCH_VARIANT_MAX_DEPTH, and the JSON text to the caller's byte budget -
 * offsets may point many elements at one shared sub-value, so a small
 * value can stand for an exponentially large document; each step of the
 * walk writes at least one byte, so the budget also bounds the work.
 *
 * The text follows inlet's canonical value text (text_format.c, as refcheck
 * prints values): object keys in their (sorted) stored order, integers and
 * decimals as JSON numbers (decimals with exactly `scale` fraction digits),
 * doubles in shortest round-trip form, floats in the shortest form that
 * reads back as the same float, NaN and infinities as the strings "NaN",
 * "Infinity", "-Infinity", dates "YYYY-MM-DD", timestamps ISO-8601 with 6
 * fraction digits (9 for nanosecond ones) and 'Z' when UTC-adjusted, times
 * "HH:MM:SS.ffffff", binary as base64 (as Spark and DuckDB print it) and
 * UUIDs 8-4-4-4-12, all as JSON strings. Checked against DuckDB (refcheck):
 * the same text except for floats, which DuckDB widens to double
 * (1.100000023841858 where Spark and inlet print 1.1), and UUIDs, which
 * DuckDB 1.5 does not read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "batch/text_int.h"

typedef struct vctx {
  inlet_buf *out;
  size_t start, max; /* out->len at entry; the JSON byte budget */
  batch_variant_meta meta;
  const uint8_t *v0; /* start of the whole value, for offsets in messages */
  inlet_error *err;
} vctx;

static uint32_t le_uint(const uint8_t *p, size_t n) {
  uint32_t v = 0;
  for (size_t i = n; i > 0; i--)
    v = v << 8 | p[i - 1];
  return v;
}

static uint64_t le_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

static int bad(vctx *c, const uint8_t *at, const char *what) {
  return inlet_fail(c->err, INLET_ECORRUPT, "corrupt variant value at byte %zu: %s",
                    (size_t)(at - c->v0), what);
}

static int budget(vctx *c) {
  TRY(inlet_buf_status(c->out));
  if (c->out->len - c->start > c->max)
    return inlet_fail(c->err, INLET_ELIMIT, "variant value: JSON text longer than %zu bytes",
                      c->max);
  return 0;
}

/* Key @p id of the dictionary into *s, *n. */
static int dict_key(vctx *c, const uint8_t *at, uint32_t id, const uint8_t **s, size_t *n) {
  const char *why = batch_variant_meta_key(&c->meta, id, s, n);
  return why ? bad(c, at, why) : 0;
}

static int put_string(vctx *c, const uint8_t *at, const uint8_t *s, size_t n) {
  if (!inlet_utf8_valid(s, n)) return bad(c, at, "string is not UTF-8");
  text_json_quote(c->out, (const char *)s, n);
  return 0;
}

/* Binary as a JSON string of standard base64 (RFC 4648, padded), as Spark
 * and DuckDB print a variant's binary. */
static void put_base64(vctx *c, const uint8_t *p, size_t n) {
  static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  inlet_buf *o = c->out;
  inlet_buf_push(o, '"');
  if (inlet_buf_reserve(o, (n + 2) / 3 * 4 + 1) == 0) {
    for (size_t i = 0; i < n; i += 3) {
      uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                   (i + 2 < n ? p[i + 2] : 0);
      o->data[o->len++] = (uint8_t)al[v >> 18];
      o->data[o->len++] = (uint8_t)al[(v >> 12) & 63];
      o->data[o->len++] = (uint8_t)(i + 1 < n ? al[(v >> 6) & 63] : '=');
      o->data[o->len++] = (uint8_t)(i + 2 < n ? al[v & 63] : '=');
    }
  }
  inlet_buf_push(o, '"');
}

/* Shortest %.Ng that reads back as @p f. */
static void put_float(vctx *c, float f) {
  if (isnan(f) || isinf(f)) {
    text_format_json_double(c->out, (double)f);
    return;
  }
  char t[48];
  for (int p = 1; p <= 9; p++) {
    snprintf(t, sizeof t, "%.*g", p, (double)f);
    if (strtof(t, NULL) == f) break;
  }
  /* JSON has no "inf" and needs digits around the point; %g gives those. */
  inlet_buf_puts(c->out, t);
}

static void put_decimal(vctx *c, const uint8_t *p, size_t width, int32_t scale) {
  uint8_t le[16];
  memcpy(le, p, width);
  memset(le + width, (p[width - 1] & 0x80) ? 0xff : 0, 16 - width);
  text_format_decimal(c->out, le, scale, false);
}

static int value(vctx *c, const uint8_t *p, size_t len, int depth);

/* The data bytes each primitive type needs after the header byte (binary
 * and string: the length before theirs). */
static const int8_t need[21] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4, 4, 4, 8, 8, 8, 16};

const char *batch_variant_value_size(const uint8_t *p, size_t len, size_t *size) {
  if (len == 0) return "empty value";
  size_t n;
  switch (p[0] & 3) {
  case 0: {
    int type = p[0] >> 2;
    if (type > 20) return "unknown primitive type";
    n = 1 + (size_t)need[type];
    if (n > len) return "primitive value truncated";
    if (type == 15 || type == 16) {
      size_t m = le_uint(p + 1, 4);
      if (m > len - 5) return "binary or string length past the end";
      n += m;
    }
    break;
  }
  case 1:
    n = 1 + (size_t)(p[0] >> 2);
    if (n > len) return "short string past the end";
    break;
  default: {
    batch_variant_container k;
    const char *why = batch_variant_container_open(&k, p, len);
    if (why) return why;
    n = k.size;
  }
  }
  *size = n;
  return NULL;
}

static int primitive(vctx *c, const uint8_t *p, size_t len, int type) {
  if (type > 20) {
    char m[64];
    snprintf(m, sizeof m, "unknown primitive type %d", type);
    return inlet_fail(c->err, INLET_EUNSUPPORTED, "variant value at byte %zu: %s",
                      (size_t)(p - c->v0), m);
  }
  if (len - 1 < (size_t)need[type]) return bad(c, p, "primitive value truncated");
  const uint8_t *d = p + 1;
  inlet_buf *o = c->out;
  char t[32];
  switch (type) {
  case 0: inlet_buf_puts(o, "null"); break;
  case 1: inlet_buf_puts(o, "true"); break;
  case 2: inlet_buf_puts(o, "false"); break;
  case 3: inlet_buf_appendf(o, "%d", (int)(int8_t)d[0]); break;
  case 4: inlet_buf_appendf(o, "%d", (int)(int16_t)le_uint(d, 2)); break;
  case 5: inlet_buf_appendf(o, "%ld", (long)(int32_t)le_uint(d, 4)); break;
  case 6:
    snprintf(t, sizeof t, "%lld", (long long)(int64_t)le_u64(d));
    inlet_buf_puts(o, t);
    break;
  case 7: {
    uint64_t u = le_u64(d);
    double v;
    memcpy(&v, &u, 8);
    text_format_json_double(o, v);
    break;
  }
  case 8:
  case 9:
  case 10: {
    if (d[0] > 38) return bad(c, p, "decimal scale above 38");
    put_decimal(c, d + 1, (size_t)need[type] - 1, d[0]);
    break;
  }
  case 11: text_format_date(o, (int32_t)le_uint(d, 4), true); break;
  case 12:
  case 13:
  case 18:
  case 19: {
    inlet_type ty = {.id = INLET_TYPE_TIMESTAMP,
                     .unit = type >= 18 ? INLET_UNIT_NANO : INLET_UNIT_MICRO,
                     .utc = type == 12 || type == 18};
    int64_t v = (int64_t)le_u64(d);
    if (type == 18) {
      /* The canonical instant text cuts nanoseconds to micros (as DuckDB
       * shows them); a variant keeps them: the wall clock, then 'Z'. */
      ty.utc = false;
      size_t at = o->len;
      text_format_timestamp(o, v, &ty, false);
      inlet_buf_push(o, 'Z');
      if (inlet_buf_status(o) == 0) {
        size_t n = o->len - at;
        char tmp[64];
        if (n < sizeof tmp) {
          memcpy(tmp, o->data + at, n);
          o->len = at;
          text_json_quote(o, tmp, n);
        }
      }
    } else {
      text_format_timestamp(o, v, &ty, true);
    }
    break;
  }
  case 14: {
    float f;
    uint32_t u = le_uint(d, 4);
    memcpy(&f, &u, 4);
    put_float(c, f);
    break;
  }
  case 15:
  case 16: {
    size_t n = le_uint(d, 4);
    if (n > len - 5) return bad(c, p, "binary or string length past the end");
    if (type == 15)
      put_base64(c, d + 4, n);
    else
      TRY(put_string(c, p, d + 4, n));
    break;
  }
  case 17: {
    int64_t v = (int64_t)le_u64(d);
    if (v < 0 || v >= 86400000000LL) return bad(c, p, "time of day out of range");
    inlet_type ty = {.id = INLET_TYPE_TIME, .unit = INLET_UNIT_MICRO};
    text_format_time(o, v, &ty, true);
    break;
  }
  case 20: text_format_hex(o, d, 16, true, true); break;
  }
  return budget(c);
}

/* An object (@p is_object) or array at p[0..len): header, counts, the
 * field ids and offsets, then each element from its offset to the end of
 * the values region. */
static int container(vctx *c, const uint8_t *p, size_t len, int depth, bool is_object) {
  batch_variant_container k;
  const char *why = batch_variant_container_open(&k, p, len);
  if (why) return bad(c, p, why);
  inlet_buf_push(c->out, is_object ? '{' : '[');
  const uint8_t *prev = NULL;
  size_t prev_n = 0;
  for (size_t i = 0; i < k.n; i++) {
    if (i) inlet_buf_push(c->out, ',');
    if (is_object) {
      const uint8_t *key = NULL;
      size_t kn = 0;
      TRY(dict_key(c, p, le_uint(k.ids + i * k.idsz, k.idsz), &key, &kn));
      if (prev) {
        size_t m = prev_n < kn ? prev_n : kn;
        int cmp = memcmp(prev, key, m);
        if (cmp > 0 || (cmp == 0 && prev_n >= kn))
          return bad(c, p, "object keys out of order or repeated");
      }
      prev = key;
      prev_n = kn;
      text_json_quote(c->out, (const char *)key, kn);
      inlet_buf_push(c->out, ':');
    }
    size_t off = le_uint(k.offs + i * k.osz, k.osz);
    if (off >= k.vals_len) return bad(c, p, "element offset past the values region");
    TRY(value(c, k.vals + off, k.vals_len - off, depth + 1));
  }
  inlet_buf_push(c->out, is_object ? '}' : ']');
  return budget(c);
}

const char *batch_variant_container_open(batch_variant_container *k, const uint8_t *p, size_t len) {
  bool is_object = (p[0] & 3) == 2;
  unsigned h = p[0] >> 2;
  k->osz = (h & 3) + 1;
  k->idsz = is_object ? ((h >> 2) & 3) + 1 : 0;
  bool large = is_object ? (h >> 4) & 1 : (h >> 2) & 1;
  size_t nsz = large ? 4 : 1;
  if (len - 1 < nsz) return "element count truncated";
  k->n = le_uint(p + 1, nsz);
  /* Each element needs an id and an offset, so n beyond len is corrupt and
   * the products below stay far from overflow. */
  if (k->n > len) return "more elements than bytes";
  size_t ids_at = 1 + nsz, offs_at = ids_at + k->n * k->idsz,
         vals_at = offs_at + (k->n + 1) * k->osz;
  if (vals_at > len) return "field ids or offsets past the end";
  k->vals_len = le_uint(p + offs_at + k->n * k->osz, k->osz);
  if (k->vals_len > len - vals_at) return "values region past the end";
  k->ids = p + ids_at;
  k->offs = p + offs_at;
  k->vals = p + vals_at;
  k->size = vals_at + k->vals_len;
  return NULL;
}

static int value(vctx *c, const uint8_t *p, size_t len, int depth) {
  if (depth > BATCH_VARIANT_MAX_DEPTH)
    return inlet_fail(c->err, INLET_ELIMIT, "variant value: nesting deeper than %d",
                      BATCH_VARIANT_MAX_DEPTH);
  if (len == 0) return bad(c, p, "empty value");
  switch (p[0] & 3) {
  case 0: return primitive(c, p, len, p[0] >> 2);
  case 1: {
    size_t n = p[0] >> 2;
    if (n > len - 1) return bad(c, p, "short string past the end");
    TRY(put_string(c, p, p + 1, n));
    return budget(c);
  }
  case 2: return container(c, p, len, depth, true);
  default: return container(c, p, len, depth, false);
  }
}

static int init_ctx(vctx *c, const uint8_t *meta, size_t meta_len, const uint8_t *val,
                    inlet_error *err);

int batch_variant_to_json(inlet_buf *out, const uint8_t *meta, size_t meta_len, const uint8_t *val,
                          size_t val_len, size_t max_json, inlet_error *err) {
  vctx c = {.out = out, .start = out->len, .max = max_json, .err = err};
  TRY(init_ctx(&c, meta, meta_len, val, err));
  if (!val) val = (const uint8_t *)"";
  return value(&c, val, val_len, 0);
}

static int init_ctx(vctx *c, const uint8_t *meta, size_t meta_len, const uint8_t *val,
                    inlet_error *err) {
  c->v0 = val ? val : (const uint8_t *)"";
  return batch_variant_meta_open(&c->meta, meta, meta_len, err);
}

int batch_variant_meta_open(batch_variant_meta *m, const uint8_t *meta, size_t meta_len,
                            inlet_error *err) {
  memset(m, 0, sizeof *m);
  m->bytes = meta;
  if (meta_len < 1) return inlet_fail(err, INLET_ECORRUPT, "corrupt variant metadata: empty");
  if ((meta[0] & 15) != 1)
    return inlet_fail(err, INLET_EUNSUPPORTED, "variant metadata version %d (inlet reads 1)",
                      meta[0] & 15);
  m->sorted = (meta[0] >> 4) & 1;
  m->osz = (size_t)(meta[0] >> 6) + 1;
  if (meta_len < 1 + m->osz)
    return inlet_fail(err, INLET_ECORRUPT, "corrupt variant metadata: dictionary size truncated");
  m->n = le_uint(meta + 1, m->osz);
  /* n + 1 offsets must fit; n beyond meta_len cannot. */
  if (m->n > meta_len || 1 + m->osz + ((size_t)m->n + 1) * m->osz > meta_len)
    return inlet_fail(err, INLET_ECORRUPT, "corrupt variant metadata: %lu offsets past the end",
                      (unsigned long)m->n + 1);
  m->keys_at = 1 + m->osz + ((size_t)m->n + 1) * m->osz;
  size_t last = le_uint(meta + 1 + m->osz + (size_t)m->n * m->osz, m->osz);
  if (last > meta_len - m->keys_at)
    return inlet_fail(err, INLET_ECORRUPT, "corrupt variant metadata: key bytes past the end");
  m->keys_len = last;
  return 0;
}

const char *batch_variant_meta_key(const batch_variant_meta *m, uint32_t id, const uint8_t **s,
                                   size_t *n) {
  if (id >= m->n) return "field id past the metadata dictionary";
  const uint8_t *offs = m->bytes + 1 + m->osz;
  size_t a = le_uint(offs + (size_t)id * m->osz, m->osz);
  size_t b = le_uint(offs + ((size_t)id + 1) * m->osz, m->osz);
  if (a > b || b > m->keys_len) return "metadata key offsets out of range";
  *s = m->bytes + m->keys_at + a;
  *n = b - a;
  if (!inlet_utf8_valid(*s, *n)) return "metadata key is not UTF-8";
  return NULL;
}
