/*
 * Canonical text of column values, as refcheck prints them
 * (shared/tools/refcheck/README.md "Canonical value encoding"): int64
 * beyond 2^53 as decimal strings, floats widened to double, doubles in
 * their shortest round-trip form laid out as ECMAScript Number::toString
 * does, NaN/Infinity as strings, decimals with exactly `scale` fraction
 * digits, binary as lowercase hex, dates and timestamps in ISO-8601 with 6
 * fraction digits and 'Z' when UTC-adjusted (wall-clock nanoseconds keep
 * 9 digits; UTC nanoseconds are cut to microseconds as DuckDB shows them), UUIDs
 * 8-4-4-4-12, maps as [key, value] pairs sorted by the key's JSON text.
 * The same text without JSON quoting serves CSV and table output.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "batch/text_int.h"
#include "util/datetime.h"

#define TWO53 9007199254740992.0

static const double pow10_tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Fast path for values with a short exact decimal form (prices, counters):
 * the first k with m / 10^k == |v| for m = round(|v| * 10^k) < 2^53. That
 * division is correctly rounded, so the decimal m e-k reads back as v, and
 * the nearest m at the smallest k has the fewest digits. */
static bool short_double(char out[40], double v) {
  double a = fabs(v);
  if (!(a >= 1e-5 && a < 1e15)) return false;
  for (int k = 0; k <= 22; k++) {
    double scaled = a * pow10_tab[k];
    if (scaled >= TWO53) return false;
    double m = nearbyint(scaled);
    if (m / pow10_tab[k] != a) continue;
    char digits[24];
    int nd = 0;
    uint64_t u = (uint64_t)m;
    do {
      digits[nd++] = (char)('0' + u % 10);
      u /= 10;
    } while (u);
    char *o = out;
    if (v < 0) *o++ = '-';
    if (nd <= k) {
      *o++ = '0';
      *o++ = '.';
      for (int i = nd; i < k; i++)
        *o++ = '0';
      for (int i = nd - 1; i >= 0; i--)
        *o++ = digits[i];
    } else {
      for (int i = nd - 1; i >= 0; i--) {
        *o++ = digits[i];
        if (i == k && k > 0) *o++ = '.';
      }
    }
    *o = '\0';
    return true;
  }
  return false;
}

void text_format_double(char out[40], double v) {
  if (v == 0) {
    strcpy(out, "0"); /* -0.0 prints as 0 after a JSON round trip */
    return;
  }
  if (short_double(out, v)) return;
  /* Shortest of 15, 16, 17 significant digits that reads back exactly:
   * any double with a <= 15-digit form prints it at 15 digits. */
  char e[40];
  /* Subnormals carry fewer significant bits, so their shortest form can be
   * shorter than 15 digits without the 15-digit form ending in zeros. */
  int from = fabs(v) < DBL_MIN ? 1 : 15;
  for (int prec = from; prec <= 17; prec++) {
    snprintf(e, sizeof e, "%.*e", prec - 1, v);
    if (prec == 17 || strtod(e, NULL) == v) break;
  }
  /* e is "[-]d.ddddde[+-]xx": collect digits and the decimal exponent. */
  char digits[24];
  int k = 0;
  const char *p = e;
  bool neg = *p == '-';
  if (neg) p++;
  for (; *p && *p != 'e'; p++)
    if (*p >= '0' && *p <= '9') digits[k++] = *p;
  int x = atoi(p + 1);
  while (k > 1 && digits[k - 1] == '0')
    k--;
  int n = x + 1; /* position of the decimal point after the first digit */
  char *o = out;
  if (neg) *o++ = '-';
  if (k <= n && n <= 21) {
    memcpy(o, digits, (size_t)k);
    o += k;
    for (int i = k; i < n; i++)
      *o++ = '0';
  } else if (0 < n && n <= 21) {
    memcpy(o, digits, (size_t)n);
    o += n;
    *o++ = '.';
    memcpy(o, digits + n, (size_t)(k - n));
    o += k - n;
  } else if (-6 < n && n <= 0) {
    *o++ = '0';
    *o++ = '.';
    for (int i = 0; i < -n; i++)
      *o++ = '0';
    memcpy(o, digits, (size_t)k);
    o += k;
  } else {
    *o++ = digits[0];
    if (k > 1) {
      *o++ = '.';
      memcpy(o, digits + 1, (size_t)(k - 1));
      o += k - 1;
    }
    o += sprintf(o, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
  }
  *o = '\0';
}

void text_json_quote(inlet_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  inlet_buf_push(b, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch >= 0x20 && ch != '"' && ch != '\\') continue;
    inlet_buf_append(b, s + run, i - run);
    run = i + 1;
    char esc[8];
    switch (ch) {
    case '"': inlet_buf_append(b, "\\\"", 2); break;
    case '\\': inlet_buf_append(b, "\\\\", 2); break;
    case '\n': inlet_buf_append(b, "\\n", 2); break;
    case '\r': inlet_buf_append(b, "\\r", 2); break;
    case '\t': inlet_buf_append(b, "\\t", 2); break;
    case '\b': inlet_buf_append(b, "\\b", 2); break;
    case '\f': inlet_buf_append(b, "\\f", 2); break;
    default:
      memcpy(esc, "\\u00", 4);
      esc[4] = hex[ch >> 4];
      esc[5] = hex[ch & 15];
      inlet_buf_append(b, esc, 6);
    }
  }
  inlet_buf_append(b, s + run, n - run);
  inlet_buf_push(b, '"');
}

/* Emits text that JSON must quote (dates, decimals ...) with or without quotes. */
static void put_str(inlet_buf *b, const char *s, size_t n, bool json) {
  if (json)
    text_json_quote(b, s, n);
  else
    inlet_buf_append(b, s, n);
}

static void put_hex(inlet_buf *b, const uint8_t *p, size_t n, bool json, bool uuid) {
  static const char hex[] = "0123456789abcdef";
  if (json) inlet_buf_push(b, '"');
  if (inlet_buf_reserve(b, n * 2 + 4) == 0) {
    for (size_t i = 0; i < n; i++) {
      if (uuid && (i == 4 || i == 6 || i == 8 || i == 10)) b->data[b->len++] = '-';
      b->data[b->len++] = (uint8_t)hex[p[i] >> 4];
      b->data[b->len++] = (uint8_t)hex[p[i] & 15];
    }
  }
  if (json) inlet_buf_push(b, '"');
}

static void put_double(inlet_buf *b, double v, bool json) {
  if (isnan(v)) return put_str(b, "NaN", 3, json);
  if (isinf(v)) return v > 0 ? put_str(b, "Infinity", 8, json) : put_str(b, "-Infinity", 9, json);
  char t[40];
  text_format_double(t, v);
  inlet_buf_puts(b, t);
}

static void put_i64(inlet_buf *b, int64_t v, bool json) {
  char t[32];
  int n = snprintf(t, sizeof t, "%lld", (long long)v);
  if (json && (v > (int64_t)TWO53 || v < -(int64_t)TWO53))
    put_str(b, t, (size_t)n, true);
  else
    inlet_buf_append(b, t, (size_t)n);
}

static void put_u64(inlet_buf *b, uint64_t v, bool json) {
  char t[32];
  int n = snprintf(t, sizeof t, "%llu", (unsigned long long)v);
  if (json && v > (uint64_t)TWO53)
    put_str(b, t, (size_t)n, true);
  else
    inlet_buf_append(b, t, (size_t)n);
}

static void put_decimal(inlet_buf *b, const uint8_t *le, int32_t scale, bool json) {
  inlet_u128 u = 0;
  for (int i = 15; i >= 0; i--)
    u = u << 8 | le[i];
  bool neg = (le[15] & 0x80) != 0;
  if (neg) u = ~u + 1; /* magnitude; -2^127 stays representable as unsigned */
  char digits[48];
  int k = 0;
  do {
    digits[k++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (k <= scale)
    digits[k++] = '0'; /* at least one integer digit */
  char t[64];
  int n = 0;
  if (neg) t[n++] = '-';
  for (int i = k - 1; i >= 0; i--) {
    t[n++] = digits[i];
    if (i == scale && scale > 0) t[n++] = '.';
  }
  put_str(b, t, (size_t)n, json);
}

static const int64_t unit_per_sec[] = {1, 1000, 1000000, 1000000000};

/* Writes @p v as exactly @p w decimal digits (v < 10^w). */
static inline void put_digits(char *t, int64_t v, int w) {
  for (int i = w - 1; i >= 0; i--) {
    t[i] = (char)('0' + v % 10);
    v /= 10;
  }
}

static int format_date(char *t, int64_t days) {
  int64_t y;
  int m, d;
  inlet_civil_from_days(days, &y, &m, &d);
  int n = 0;
  if (y < 0 || y > 9999) {
    /* ISO 8601 expanded years, which the importer reads back. */
    n = sprintf(t, "%s%04lld", y < 0 ? "-" : "+", (long long)(y < 0 ? -y : y));
  } else {
    put_digits(t, y, 4);
    n = 4;
  }
  t[n] = '-';
  put_digits(t + n + 1, m, 2);
  t[n + 3] = '-';
  put_digits(t + n + 4, d, 2);
  return n + 6;
}

/* time-of-day text: HH:MM:SS.ffffff (9 digits for nanoseconds). */
static int format_tod(char *t, int64_t secs, int64_t sub, inlet_time_unit unit) {
  put_digits(t, secs / 3600, 2);
  t[2] = ':';
  put_digits(t + 3, secs / 60 % 60, 2);
  t[5] = ':';
  put_digits(t + 6, secs % 60, 2);
  t[8] = '.';
  if (unit == INLET_UNIT_NANO) {
    put_digits(t + 9, sub, 9);
    return 18;
  }
  put_digits(t + 9, sub * (1000000 / unit_per_sec[unit]), 6);
  return 15;
}

/* *q = floor(v / d), *r = v - *q * d in [0, d), without the product (which
 * overflows for values near INT64_MIN). */
static void floor_divmod(int64_t v, int64_t d, int64_t *q, int64_t *r) {
  *q = v / d;
  *r = v % d;
  if (*r < 0) {
    *r += d;
    *q -= 1;
  }
}

static void put_timestamp(inlet_buf *b, int64_t v, const inlet_type *type, bool json) {
  int64_t ups = unit_per_sec[type->unit];
  int64_t secs, sub, days, tod;
  floor_divmod(v, ups, &secs, &sub);
  floor_divmod(secs, 86400, &days, &tod);
  char t[96];
  int n = format_date(t, days);
  t[n++] = 'T';
  /* An instant prints with 6 digits whatever its unit, as DuckDB's
   * TIMESTAMP WITH TIME ZONE does; only wall-clock nanoseconds keep 9. */
  inlet_time_unit u = type->unit;
  if (type->utc && u == INLET_UNIT_NANO) sub /= 1000, u = INLET_UNIT_MICRO;
  n += format_tod(t + n, tod, sub, u);
  if (type->utc) t[n++] = 'Z';
  put_str(b, t, (size_t)n, json);
}

static void put_time(inlet_buf *b, int64_t v, const inlet_type *type, bool json) {
  int64_t ups = unit_per_sec[type->unit];
  int64_t secs, sub;
  floor_divmod(v, ups, &secs, &sub);
  if (secs < 0 || secs > 86400) secs = ((secs % 86400) + 86400) % 86400;
  char t[64];
  int n = format_tod(t, secs, sub, type->unit);
  if (type->utc) t[n++] = 'Z';
  put_str(b, t, (size_t)n, json);
}

static int64_t read_int(const inlet_array *a, int32_t width, bool is_signed, int64_t row) {
  const uint8_t *p = a->values + row * width;
  switch (width) {
  case 1: return is_signed ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
  case 2: {
    uint16_t x;
    memcpy(&x, p, 2);
    return is_signed ? (int64_t)(int16_t)x : (int64_t)x;
  }
  case 4: {
    uint32_t x;
    memcpy(&x, p, 4);
    return is_signed ? (int64_t)(int32_t)x : (int64_t)x;
  }
  default: {
    int64_t x;
    memcpy(&x, p, 8);
    return x;
  }
  }
}

typedef struct key_ref {
  size_t off, len;
  int64_t idx;
} key_ref;

/* qsort has no context argument; a thread-local keeps writers on different
 * threads apart. Nested maps finish sorting before their values format. */
static _Thread_local const uint8_t *sort_base;
static int cmp_keys(const void *x, const void *y) {
  const key_ref *a = x, *b = y;
  size_t n = a->len < b->len ? a->len : b->len;
  int c = memcmp(sort_base + a->off, sort_base + b->off, n);
  if (c) return c;
  if (a->len != b->len) return a->len < b->len ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx; /* stable for equal keys */
}

static int format_map(inlet_buf *b, const inlet_array *a, const inlet_field *f, int64_t row,
                      bool json, int depth) {
  const inlet_array *entries = &a->children[0];
  const inlet_field *ef = &f->children[0];
  int64_t lo = a->offsets[row], hi = a->offsets[row + 1];
  inlet_buf keys = INLET_BUF_INIT;
  key_ref *refs = hi > lo ? inlet_malloc(sizeof *refs * (size_t)(hi - lo)) : NULL;
  if (hi > lo && !refs) return INLET_ENOMEM;
  for (int64_t i = lo; i < hi; i++) {
    refs[i - lo].off = keys.len;
    text_format_value(&keys, &entries->children[0], &ef->children[0], i, true, depth + 1);
    refs[i - lo].len = keys.len - refs[i - lo].off;
    refs[i - lo].idx = i;
  }
  int rc = inlet_buf_status(&keys);
  if (rc == 0 && hi > lo) {
    sort_base = keys.data;
    qsort(refs, (size_t)(hi - lo), sizeof *refs, cmp_keys);
  }
  inlet_buf_push(b, '[');
  for (int64_t i = 0; rc == 0 && i < hi - lo; i++) {
    if (i) inlet_buf_push(b, ',');
    inlet_buf_push(b, '[');
    inlet_buf_append(b, keys.data + refs[i].off, refs[i].len);
    inlet_buf_push(b, ',');
    text_format_value(b, &entries->children[1], &ef->children[1], refs[i].idx, true, depth + 1);
    inlet_buf_push(b, ']');
  }
  inlet_buf_push(b, ']');
  inlet_free(refs);
  inlet_buf_reset(&keys);
  return rc;
}

int text_format_value(inlet_buf *b, const inlet_array *a, const inlet_field *f, int64_t row,
                      bool json, int depth) {
  if (!inlet_array_is_valid(a, row)) {
    if (json) inlet_buf_append(b, "null", 4);
    return inlet_buf_status(b);
  }
  const inlet_type *t = &f->type;
  switch (t->id) {
  case INLET_TYPE_BOOL:
    if (inlet_bit_get(a->values, row))
      inlet_buf_append(b, "true", 4);
    else
      inlet_buf_append(b, "false", 5);
    break;
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64: put_i64(b, read_int(a, inlet_type_value_width(t), true, row), json); break;
  case INLET_TYPE_UINT8:
  case INLET_TYPE_UINT16:
  case INLET_TYPE_UINT32:
    put_i64(b, read_int(a, inlet_type_value_width(t), false, row), json);
    break;
  case INLET_TYPE_UINT64: {
    uint64_t v;
    memcpy(&v, a->values + row * 8, 8);
    put_u64(b, v, json);
    break;
  }
  case INLET_TYPE_FLOAT: {
    float v;
    memcpy(&v, a->values + row * 4, 4);
    put_double(b, (double)v, json);
    break;
  }
  case INLET_TYPE_DOUBLE: {
    double v;
    memcpy(&v, a->values + row * 8, 8);
    put_double(b, v, json);
    break;
  }
  case INLET_TYPE_STRING: {
    size_t n = (size_t)(a->offsets[row + 1] - a->offsets[row]);
    /* values may be NULL when every string is empty */
    put_str(b, n ? (const char *)a->values + a->offsets[row] : "", n, json);
    break;
  }
  case INLET_TYPE_BINARY: {
    size_t n = (size_t)(a->offsets[row + 1] - a->offsets[row]);
    put_hex(b, n ? a->values + a->offsets[row] : (const uint8_t *)"", n, json, false);
  } break;
  case INLET_TYPE_FIXED_BINARY:
    put_hex(b, a->values + row * t->byte_width, (size_t)t->byte_width, json,
            t->ext == INLET_EXT_UUID && t->byte_width == 16);
    break;
  case INLET_TYPE_DATE: {
    char tx[48];
    int n = format_date(tx, read_int(a, 4, true, row));
    put_str(b, tx, (size_t)n, json);
    break;
  }
  case INLET_TYPE_TIME:
    put_time(b, read_int(a, inlet_type_value_width(t), true, row), t, json);
    break;
  case INLET_TYPE_TIMESTAMP: put_timestamp(b, read_int(a, 8, true, row), t, json); break;
  case INLET_TYPE_DECIMAL: put_decimal(b, a->values + row * 16, t->scale, json); break;
  case INLET_TYPE_STRUCT:
    if (depth > 64) return INLET_ELIMIT;
    inlet_buf_push(b, '{');
    for (int32_t i = 0; i < f->n_children; i++) {
      if (i) inlet_buf_push(b, ',');
      text_json_quote(b, f->children[i].name, strlen(f->children[i].name));
      inlet_buf_push(b, ':');
      TRY(text_format_value(b, &a->children[i], &f->children[i], row, true, depth + 1));
    }
    inlet_buf_push(b, '}');
    break;
  case INLET_TYPE_LIST:
    if (depth > 64) return INLET_ELIMIT;
    inlet_buf_push(b, '[');
    for (int64_t i = a->offsets[row]; i < a->offsets[row + 1]; i++) {
      if (i > a->offsets[row]) inlet_buf_push(b, ',');
      TRY(text_format_value(b, &a->children[0], &f->children[0], i, true, depth + 1));
    }
    inlet_buf_push(b, ']');
    break;
  case INLET_TYPE_MAP:
    if (depth > 64) return INLET_ELIMIT;
    TRY(format_map(b, a, f, row, json, depth));
    break;
  default: return INLET_EINVAL;
  }
  return inlet_buf_status(b);
}

/* ---- scalars for the variant decoder (variant.c) --------------------------- */

void text_format_hex(inlet_buf *b, const uint8_t *p, size_t n, bool json, bool uuid) {
  put_hex(b, p, n, json, uuid);
}

void text_format_decimal(inlet_buf *b, const uint8_t le[16], int32_t scale, bool json) {
  put_decimal(b, le, scale, json);
}

void text_format_date(inlet_buf *b, int64_t days, bool json) {
  char tx[48];
  int n = format_date(tx, days);
  put_str(b, tx, (size_t)n, json);
}

void text_format_time(inlet_buf *b, int64_t v, const inlet_type *t, bool json) {
  put_time(b, v, t, json);
}

void text_format_timestamp(inlet_buf *b, int64_t v, const inlet_type *t, bool json) {
  put_timestamp(b, v, t, json);
}

void text_format_json_double(inlet_buf *b, double v) {
  put_double(b, v, true);
}

int64_t inlet_text_format_value(char *out, size_t cap, const inlet_array *array,
                                const inlet_field *field, int64_t row, bool json) {
  inlet_buf b = INLET_BUF_INIT;
  int rc = text_format_value(&b, array, field, row, json, 0);
  if (rc < 0) {
    inlet_buf_reset(&b);
    return rc;
  }
  int64_t n = (int64_t)b.len;
  if (cap > 0) {
    size_t c = b.len < cap - 1 ? b.len : cap - 1;
    if (c) memcpy(out, b.data, c);
    out[c] = '\0';
  }
  inlet_buf_reset(&b);
  return n;
}
