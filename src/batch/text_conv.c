/*
 * Scalar conversions from text to column values, shared by the NDJSON and
 * CSV importers (include/inlet/text.h lists the accepted forms).
 *
 * Numbers are parsed from their digits: integers with overflow checks per
 * width, decimals digit by digit into 128 bits (never through a double),
 * doubles by Clinger's exact fast path (mantissa <= 2^53, |exp10| <= 22)
 * with strtod as the fallback. Dates, times and timestamps follow the one
 * ISO-8601 grammar of util/datetime.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "batch/text_int.h"
#include "util/datetime.h"

int text_bad(text_conv *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int off = 0;
  if (c->field) off = snprintf(c->reason, sizeof c->reason, "field \"%s\": ", c->field);
  if (off < 0 || (size_t)off >= sizeof c->reason) off = 0;
  vsnprintf(c->reason + off, sizeof c->reason - (size_t)off, fmt, ap);
  va_end(ap);
  return INLET_EINVAL;
}

/* A short, printable excerpt of a bad value for messages. */
static const char *excerpt(char out[48], const char *s, size_t n) {
  size_t j = 0;
  for (size_t i = 0; i < n && j < 40; i++) {
    unsigned char ch = (unsigned char)s[i];
    out[j++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
  }
  if (n > 40) {
    out[j++] = '.';
    out[j++] = '.';
    out[j++] = '.';
  }
  out[j] = '\0';
  return out;
}

static void trim(const char **s, size_t *n) {
  while (*n && (**s == ' ' || **s == '\t'))
    (*s)++, (*n)--;
  while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
    (*n)--;
}

/* ---- integers ------------------------------------------------------------ */

bool text_parse_u64(const char *s, size_t n, uint64_t *out, bool *overflow) {
  size_t i = 0;
  *overflow = false;
  if (i < n && s[i] == '+') i++;
  if (i == n) return false;
  uint64_t v = 0;
  /* 19 digits cannot overflow 64 bits: check only from the 20th. */
  size_t safe = i + 19;
  for (; i < n; i++) {
    unsigned d = (unsigned)(s[i] - '0');
    if (d > 9) return false;
    if (i >= safe && v > (UINT64_MAX - d) / 10) *overflow = true;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool text_parse_i64(const char *s, size_t n, int64_t *out, bool *overflow) {
  bool neg = n > 0 && s[0] == '-';
  uint64_t m;
  if (neg) {
    s++, n--;
    if (n && s[0] == '+') return false;
  }
  if (!text_parse_u64(s, n, &m, overflow)) return false;
  if (*overflow) return true;
  if (neg) {
    if (m > (uint64_t)INT64_MAX + 1)
      *overflow = true;
    else
      *out = (int64_t)(0 - m);
  } else {
    if (m > (uint64_t)INT64_MAX)
      *overflow = true;
    else
      *out = (int64_t)m;
  }
  return true;
}

/* ---- floating point ---------------------------------------------------- */

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Splits a decimal number into sign, up to 19 significant digits and a
 * power of ten. Returns false if the syntax is not a number; sets *exact
 * false when digits were dropped. */
static bool split_number(const char *s, size_t n, bool *neg, uint64_t *mant, int64_t *exp10,
                         bool *exact) {
  size_t i = 0;
  *neg = false;
  *exact = true;
  if (i < n && (s[i] == '-' || s[i] == '+')) *neg = s[i++] == '-';
  uint64_t m = 0;
  int digits = 0;
  int64_t e = 0;
  bool any = false;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    any = true;
    if (digits < 19) {
      m = m * 10 + (uint64_t)(s[i] - '0');
      if (m) digits++;
    } else {
      e++;
      if (s[i] != '0') *exact = false;
    }
  }
  if (i < n && s[i] == '.') {
    i++;
    bool frac = false;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
      frac = true;
      if (digits < 19) {
        m = m * 10 + (uint64_t)(s[i] - '0');
        if (m) digits++;
        e--;
      } else if (s[i] != '0') {
        *exact = false;
      }
    }
    if (!frac && !any) return false;
    any = true;
  }
  if (!any) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    bool eneg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
    if (i == n) return false;
    int64_t x = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
      if (x < 100000) x = x * 10 + (s[i] - '0');
    e += eneg ? -x : x;
  }
  if (i != n) return false;
  *mant = m;
  *exp10 = e;
  return true;
}

static bool special_double(const char *s, size_t n, double *out) {
  struct {
    const char *t;
    double v;
  } names[] = {{"NaN", NAN},
               {"nan", NAN},
               {"Infinity", INFINITY},
               {"+Infinity", INFINITY},
               {"-Infinity", -INFINITY},
               {"inf", INFINITY},
               {"-inf", -INFINITY},
               {"+inf", INFINITY}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (strlen(names[i].t) == n && memcmp(names[i].t, s, n) == 0) {
      *out = names[i].v;
      return true;
    }
  }
  return false;
}

/* "Infinity", "NaN" and the like: the only texts that may convert to an
 * infinity (a number too large for its type is an error, not Infinity). */
static bool is_special_number(const char *s, size_t n) {
  double d;
  return special_double(s, n, &d);
}

/* strtod/strtof need a terminated copy; numbers longer than this are refused. */
#define MAX_NUMBER_TEXT 400

bool text_parse_double(const char *s, size_t n, double *out) {
  bool neg, exact;
  uint64_t m;
  int64_t e;
  if (!split_number(s, n, &neg, &m, &e, &exact)) return special_double(s, n, out);
  if (exact && m <= ((uint64_t)1 << 53) && e >= -22 && e <= 22) {
    double d = (double)m;
    d = e < 0 ? d / pow10_exact[-e] : d * pow10_exact[e];
    *out = neg ? -d : d;
    return true;
  }
  if (n > MAX_NUMBER_TEXT) return false;
  char tmp[MAX_NUMBER_TEXT + 1];
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  *out = strtod(tmp, NULL);
  return true;
}

bool text_parse_float(const char *s, size_t n, float *out) {
  bool neg, exact;
  uint64_t m;
  int64_t e;
  if (!split_number(s, n, &neg, &m, &e, &exact)) {
    double d;
    if (!special_double(s, n, &d)) return false;
    *out = (float)d;
    return true;
  }
  if (exact && m <= ((uint64_t)1 << 24) && e >= -10 && e <= 10) {
    float f = (float)m, p = (float)pow10_exact[e < 0 ? -e : e];
    f = e < 0 ? f / p : f * p;
    *out = neg ? -f : f;
    return true;
  }
  if (n > MAX_NUMBER_TEXT) return false;
  char tmp[MAX_NUMBER_TEXT + 1];
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  *out = strtof(tmp, NULL);
  return true;
}

/* ---- decimals ---------------------------------------------------------- */

const char *text_parse_decimal(const char *s, size_t n, int32_t precision, int32_t scale,
                               inlet_i128 *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  /* Significant digits (leading zeros dropped) and where the point falls. */
  const char *dig[2];
  size_t dlen[2] = {0, 0};
  size_t int_start = i;
  while (i < n && s[i] >= '0' && s[i] <= '9')
    i++;
  dig[0] = s + int_start;
  dlen[0] = i - int_start;
  dig[1] = s + i;
  if (i < n && s[i] == '.') {
    i++;
    dig[1] = s + i;
    size_t fs = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
      i++;
    dlen[1] = i - fs;
  }
  if (dlen[0] + dlen[1] == 0) return "not a decimal number";
  int64_t exp10 = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    bool eneg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
    if (i == n) return "not a decimal number";
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
      if (exp10 < 100000) exp10 = exp10 * 10 + (s[i] - '0');
    if (eneg) exp10 = -exp10;
  }
  if (i != n) return "not a decimal number";
  /* Digit k (0-based over int then frac digits) has weight 10^(point - 1 - k). */
  size_t total = dlen[0] + dlen[1];
  int64_t point = (int64_t)dlen[0] + exp10;
  /* Skip leading zeros to count integer digits honestly. */
  size_t first = 0;
  while (first < total && (first < dlen[0] ? dig[0][first] : dig[1][first - dlen[0]]) == '0')
    first++;
  if (first < total && point - (int64_t)first > (int64_t)(precision - scale))
    return "value out of range for the decimal's precision";
  inlet_u128 v = 0;
  int64_t keep = point + scale; /* digits [0, keep) form the scaled integer */
  for (int64_t k = (int64_t)first; k < (int64_t)total; k++) {
    char ch = k < (int64_t)dlen[0] ? dig[0][k] : dig[1][k - (int64_t)dlen[0]];
    if (k >= keep) {
      if (ch != '0') return "more fraction digits than the decimal's scale";
      continue;
    }
    v = v * 10 + (unsigned)(ch - '0');
  }
  for (int64_t k = (int64_t)total; k < keep; k++) {
    if (first >= total) break; /* the value is zero */
    v *= 10;
  }
  *out = neg ? -(inlet_i128)v : (inlet_i128)v;
  return NULL;
}

/* ---- dates and times --------------------------------------------------- */

bool text_parse_date(const char *s, size_t n, int32_t *days) {
  return inlet_iso_date_parse(s, n, days);
}

static const int64_t unit_per_sec[] = {1, 1000, 1000000, 1000000000};

/* (secs, nanos) -> value in @p unit; false on overflow. */
static bool to_unit(int64_t secs, int64_t nanos, inlet_time_unit unit, int64_t *out) {
  int64_t v;
  if (inlet_mul_overflow_i64(secs, unit_per_sec[unit], &v)) return false;
  return !inlet_add_overflow_i64(v, nanos / (1000000000 / unit_per_sec[unit]), out);
}

/* Parses an epoch number ("1700000000", "1700000000.5", "-12") into
 * (secs, nanos), unit by magnitude or fixed. */
static const char *parse_epoch(const char *s, size_t n, inlet_epoch_unit eu, int64_t *secs,
                               int64_t *nanos) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  size_t is = i;
  uint64_t ip = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    if (ip > (UINT64_MAX - 9) / 10) return "epoch number out of range";
    ip = ip * 10 + (uint64_t)(s[i] - '0');
  }
  if (i == is) return "expected an epoch number or an ISO-8601 timestamp";
  int64_t frac = 0; /* fraction of one unit, in 1e-9 */
  if (i < n && s[i] == '.') {
    i++;
    int nd = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
      if (nd < 9) frac = frac * 10 + (s[i] - '0'), nd++;
    for (; nd < 9; nd++)
      frac *= 10;
  }
  if (i != n) return "expected an epoch number or an ISO-8601 timestamp";
  if (ip > (uint64_t)INT64_MAX) return "epoch number out of range";
  int u;
  switch (eu) {
  case INLET_EPOCH_SECONDS: u = 0; break;
  case INLET_EPOCH_MILLIS: u = 1; break;
  case INLET_EPOCH_MICROS: u = 2; break;
  case INLET_EPOCH_NANOS: u = 3; break;
  default:
    u = ip < 100000000000ull ? 0 : ip < 100000000000000ull ? 1 : ip < 100000000000000000ull ? 2 : 3;
  }
  int64_t ups = unit_per_sec[u], ns_per_unit = 1000000000 / ups;
  int64_t sec = (int64_t)(ip / (uint64_t)ups);
  int64_t ns = (int64_t)(ip % (uint64_t)ups) * ns_per_unit + frac / ups;
  if (neg && (sec || ns)) {
    if (ns) {
      sec = -sec - 1;
      ns = 1000000000 - ns;
    } else {
      sec = -sec;
    }
  }
  *secs = sec;
  *nanos = ns;
  return NULL;
}

/* True when s is entirely [sign]digits[.digits]: an epoch or day count
 * rather than ISO text. */
static bool looks_numeric(const char *s, size_t n) {
  size_t i = 0;
  if (i < n && (s[i] == '-' || s[i] == '+')) i++;
  size_t d0 = i;
  while (i < n && s[i] >= '0' && s[i] <= '9')
    i++;
  if (i == d0) return false;
  if (i < n && s[i] == '.') {
    i++;
    while (i < n && s[i] >= '0' && s[i] <= '9')
      i++;
  }
  return i == n;
}

/* ---- strings and bytes ------------------------------------------------- */

/* Decodes hex (dashes skipped when @p uuid) into c->scratch. */
static int decode_hex(text_conv *c, const char *s, size_t n, bool uuid) {
  char ex[48];
  inlet_buf_clear(&c->scratch);
  if (inlet_buf_reserve(&c->scratch, n / 2 + 1) < 0)
    return inlet_fail(&c->err, INLET_ENOMEM, "out of memory decoding hex");
  int hi = -1;
  for (size_t i = 0; i < n; i++) {
    if (uuid && s[i] == '-' && (i == 8 || i == 13 || i == 18 || i == 23) && n == 36) continue;
    int v = inlet_hex_digit((unsigned char)s[i]);
    if (v < 0) return text_bad(c, "expected hex digits, found \"%s\"", excerpt(ex, s, n));
    if (hi < 0)
      hi = v;
    else {
      c->scratch.data[c->scratch.len++] = (uint8_t)(hi << 4 | v);
      hi = -1;
    }
  }
  if (hi >= 0) return text_bad(c, "odd number of hex digits in \"%s\"", excerpt(ex, s, n));
  return 0;
}

static bool parse_bool_text(const char *s, size_t n, bool *out) {
  static const char *const t[] = {"true", "t", "1", "yes", "y"};
  static const char *const f[] = {"false", "f", "0", "no", "n"};
  for (int i = 0; i < 5; i++) {
    if (strlen(t[i]) == n && strncasecmp(t[i], s, n) == 0) return *out = true, true;
    if (strlen(f[i]) == n && strncasecmp(f[i], s, n) == 0) return *out = false, true;
  }
  return false;
}

/* ---- the converter --------------------------------------------------------- */

int text_append_null(text_conv *c, inlet_array *a, const inlet_field *f) {
  if (!f->nullable) {
    if (c->field && strcmp(c->field, f->name) == 0) return text_bad(c, "null in a NOT NULL field");
    return text_bad(c, "null for NOT NULL \"%s\"", f->name);
  }
  int rc = inlet_array_append_null(a, f, &c->err);
  return rc;
}

static int fatal(int rc) {
  return rc == INLET_EINVAL ? INLET_EINTERNAL : rc;
}

static const char *kind_name(text_tok k) {
  switch (k) {
  case TOK_STRING: return "a string";
  case TOK_NUMBER: return "a number";
  case TOK_BOOL: return "a boolean";
  default: return "text";
  }
}

/* The strict coercion table (include/inlet/text.h, docs/INGEST.md "Types"):
 * whether a JSON scalar of @p kind is accepted by a column of type @p t
 * without coercion. Strings are text, numbers are numbers: a string only
 * reaches a numeric or boolean column, and a number or boolean only a string
 * column, when coercing. Temporal columns take their ISO text or an epoch
 * number, not an epoch in a string; decimals also take their exact digits in
 * a string, and floating columns the names "NaN", "Infinity", "-Infinity"
 * (which JSON numbers cannot spell). */
static bool strict_accepts(const inlet_type *t, text_tok kind, const char *s, size_t n) {
  switch (t->id) {
  case INLET_TYPE_BOOL: return kind == TOK_BOOL;
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64:
  case INLET_TYPE_UINT8:
  case INLET_TYPE_UINT16:
  case INLET_TYPE_UINT32:
  case INLET_TYPE_UINT64: return kind == TOK_NUMBER;
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE:
    return kind == TOK_NUMBER || (kind == TOK_STRING && is_special_number(s, n));
  case INLET_TYPE_DECIMAL: return kind == TOK_NUMBER || kind == TOK_STRING;
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
  case INLET_TYPE_FIXED_BINARY: return kind == TOK_STRING;
  case INLET_TYPE_DATE:
  case INLET_TYPE_TIMESTAMP:
    /* An epoch in a string is refused by the case itself, which tests the
     * text for digits once for both purposes (one test per event showed in
     * the ingest profile). */
    return kind == TOK_NUMBER || kind == TOK_STRING;
  case INLET_TYPE_TIME:
    return kind == TOK_NUMBER || (kind == TOK_STRING && n > 0 && memchr(s, ':', n) != NULL);
  default: return true; /* nested types: the converter explains */
  }
}

static int strict_refusal(text_conv *c, const inlet_field *f, text_tok kind, const char *s,
                          size_t n, bool bval) {
  char ex[48], tn[128];
  inlet_field_type_name(f, tn, sizeof tn);
  if (kind == TOK_BOOL)
    return text_bad(c, "%s column does not accept a boolean (%s) without coercion", tn,
                    bval ? "true" : "false");
  return text_bad(c, "%s column does not accept %s \"%s\" without coercion", tn, kind_name(kind),
                  excerpt(ex, s, n));
}

int text_append_scalar(text_conv *c, inlet_array *a, const inlet_field *f, text_tok kind,
                       const char *s, size_t n, bool bval) {
  char ex[48];
  const inlet_type *t = &f->type;
  int rc;
  if (c->strict_types && kind != TOK_TEXT && !strict_accepts(t, kind, s, n))
    return strict_refusal(c, f, kind, s, n, bval);
  if (kind == TOK_TEXT && t->id != INLET_TYPE_STRING && t->id != INLET_TYPE_BINARY) trim(&s, &n);
  switch (t->id) {
  case INLET_TYPE_BOOL: {
    bool v = bval;
    if (kind != TOK_BOOL && (kind == TOK_NUMBER || !parse_bool_text(s, n, &v)))
      return text_bad(c, "expected a boolean, found \"%s\"", excerpt(ex, s, n));
    rc = inlet_array_append_bool(a, v, &c->err);
    break;
  }
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64: {
    int64_t v = 0;
    bool of;
    if (kind == TOK_BOOL || !text_parse_i64(s, n, &v, &of))
      return text_bad(c, "expected an integer, found %s \"%s\"", kind_name(kind),
                      kind == TOK_BOOL ? (bval ? "true" : "false") : excerpt(ex, s, n));
    int bits = t->id == INLET_TYPE_INT64 ? 64 : 8 * inlet_type_value_width(t);
    if (of || (bits < 64 && (v < -((int64_t)1 << (bits - 1)) || v >= ((int64_t)1 << (bits - 1)))))
      return text_bad(c, "integer %s out of range for %d-bit column", excerpt(ex, s, n), bits);
    rc = inlet_array_append_int(a, f, v, &c->err);
    break;
  }
  case INLET_TYPE_UINT8:
  case INLET_TYPE_UINT16:
  case INLET_TYPE_UINT32:
  case INLET_TYPE_UINT64: {
    uint64_t v = 0;
    bool of = false;
    if (kind == TOK_BOOL) return text_bad(c, "expected an unsigned integer, found a boolean");
    if (n && s[0] == '-')
      return text_bad(c, "negative value %s for an unsigned column", excerpt(ex, s, n));
    if (!text_parse_u64(s, n, &v, &of))
      return text_bad(c, "expected an unsigned integer, found \"%s\"", excerpt(ex, s, n));
    int bits = 8 * inlet_type_value_width(t);
    if (of || (bits < 64 && v >= ((uint64_t)1 << bits)))
      return text_bad(c, "integer %s out of range for unsigned %d-bit column", excerpt(ex, s, n),
                      bits);
    rc = bits == 64 ? inlet_array_append_uint64(a, v, &c->err)
                    : inlet_array_append_int(a, f, (int64_t)v, &c->err);
    break;
  }
  case INLET_TYPE_FLOAT: {
    float v;
    if (kind == TOK_BOOL || !text_parse_float(s, n, &v))
      return text_bad(c, "expected a number, found \"%s\"",
                      kind == TOK_BOOL ? "boolean" : excerpt(ex, s, n));
    /* Only the spelled-out names are infinite: 1e39 is out of range, not Infinity. */
    if (isinf(v) && !is_special_number(s, n))
      return text_bad(c,
                      "number %s is out of the range of a float (at most 3.4028235e38 in "
                      "magnitude; write \"Infinity\" for an infinite value)",
                      excerpt(ex, s, n));
    rc = inlet_array_append_float(a, v, &c->err);
    break;
  }
  case INLET_TYPE_DOUBLE: {
    double v;
    if (kind == TOK_BOOL || !text_parse_double(s, n, &v))
      return text_bad(c, "expected a number, found \"%s\"",
                      kind == TOK_BOOL ? "boolean" : excerpt(ex, s, n));
    if (isinf(v) && !is_special_number(s, n))
      return text_bad(c,
                      "number %s is out of the range of a double (at most "
                      "1.7976931348623157e308 in magnitude; write \"Infinity\" for an infinite "
                      "value)",
                      excerpt(ex, s, n));
    rc = inlet_array_append_double(a, v, &c->err);
    break;
  }
  case INLET_TYPE_STRING:
    if (kind == TOK_BOOL) {
      s = bval ? "true" : "false";
      n = strlen(s);
    } /* a number keeps its JSON text, as Spark's and DuckDB's readers do */
    if (!inlet_utf8_valid((const uint8_t *)s, n)) return text_bad(c, "invalid UTF-8 in string");
    rc = inlet_array_append_bytes(a, f, s, n, &c->err);
    break;
  case INLET_TYPE_BINARY:
  case INLET_TYPE_FIXED_BINARY: {
    if (kind == TOK_BOOL || kind == TOK_NUMBER)
      return text_bad(c, "expected a hex string, found %s", kind_name(kind));
    TRY(decode_hex(c, s, n, t->ext == INLET_EXT_UUID));
    if (t->id == INLET_TYPE_FIXED_BINARY && (int64_t)c->scratch.len != t->byte_width)
      return text_bad(c, "expected %d bytes (%d hex digits), found %zu bytes", (int)t->byte_width,
                      (int)t->byte_width * 2, c->scratch.len);
    rc = inlet_array_append_bytes(a, f, c->scratch.data, c->scratch.len, &c->err);
    break;
  }
  case INLET_TYPE_DATE: {
    int32_t days;
    bool numeric = kind == TOK_NUMBER || (kind != TOK_BOOL && looks_numeric(s, n));
    if (numeric && kind == TOK_STRING && c->strict_types)
      return strict_refusal(c, f, kind, s, n, bval);
    if (numeric) {
      int64_t v;
      bool of;
      if (!text_parse_i64(s, n, &v, &of) || of || v < INT32_MIN || v > INT32_MAX)
        return text_bad(c, "expected days since 1970-01-01, found \"%s\"", excerpt(ex, s, n));
      days = (int32_t)v;
    } else if (kind == TOK_BOOL || !text_parse_date(s, n, &days)) {
      return text_bad(c, "expected a date YYYY-MM-DD, found \"%s\"",
                      kind == TOK_BOOL ? "boolean" : excerpt(ex, s, n));
    }
    rc = inlet_array_append_int(a, f, days, &c->err);
    break;
  }
  case INLET_TYPE_TIME: {
    int64_t v = 0;
    if (kind == TOK_BOOL) return text_bad(c, "expected a time HH:MM:SS, found a boolean");
    if (kind == TOK_NUMBER || (n > 0 && memchr(s, ':', n) == NULL)) {
      bool of;
      if (!text_parse_i64(s, n, &v, &of) || of || v < 0 || v >= 86400 * unit_per_sec[t->unit])
        return text_bad(c, "time-of-day %s out of range", excerpt(ex, s, n));
    } else {
      int64_t secs, ns;
      size_t k = inlet_iso_time_prefix(s, n, &secs, &ns);
      if (!k || k != n)
        return text_bad(c, "expected a time HH:MM:SS, found \"%s\"", excerpt(ex, s, n));
      to_unit(secs, ns, t->unit, &v); /* < 1 day: cannot overflow */
    }
    rc = inlet_array_append_int(a, f, v, &c->err);
    break;
  }
  case INLET_TYPE_TIMESTAMP: {
    int64_t secs, ns, v;
    const char *why;
    if (kind == TOK_BOOL) return text_bad(c, "expected a timestamp, found a boolean");
    bool numeric = kind == TOK_NUMBER || looks_numeric(s, n);
    if (numeric && kind == TOK_STRING && c->strict_types)
      return strict_refusal(c, f, kind, s, n, bval);
    if (numeric) {
      why = parse_epoch(s, n, c->epoch_unit, &secs, &ns);
    } else {
      bool has_off;
      int32_t off;
      why = inlet_iso_timestamp_parse_memo(s, n, &c->dates, &secs, &ns, &has_off, &off);
      if (!why && !t->utc && has_off && off != 0)
        return text_bad(c, "zone offset in \"%s\" for a timestamp_ntz column", excerpt(ex, s, n));
    }
    if (why) return text_bad(c, "%s, found \"%s\"", why, excerpt(ex, s, n));
    if (!to_unit(secs, ns, t->unit, &v))
      return text_bad(c, "timestamp \"%s\" out of range for the column's unit", excerpt(ex, s, n));
    rc = inlet_array_append_int(a, f, v, &c->err);
    break;
  }
  case INLET_TYPE_DECIMAL: {
    if (kind == TOK_BOOL) return text_bad(c, "expected a decimal, found a boolean");
    inlet_i128 v;
    const char *why = text_parse_decimal(s, n, t->precision, t->scale, &v);
    if (why)
      return text_bad(c, "%s: \"%s\" for decimal(%d,%d)", why, excerpt(ex, s, n), (int)t->precision,
                      (int)t->scale);
    uint8_t le[16];
    inlet_u128 u = (inlet_u128)v;
    for (int i = 0; i < 16; i++)
      le[i] = (uint8_t)(u >> (8 * i));
    rc = inlet_array_append_decimal(a, le, &c->err);
    break;
  }
  case INLET_TYPE_NULL:
    /* Spark cannot cast a value to void either: the record is bad. */
    return text_bad(c, "the column has type void, which holds only null; found %s",
                    kind_name(kind));
  default:
    return text_bad(c, "expected a %s value, found %s",
                    t->id == INLET_TYPE_STRUCT ? "struct (JSON object)"
                    : t->id == INLET_TYPE_LIST ? "list (JSON array)"
                                               : "map (JSON object)",
                    kind_name(kind));
  }
  return rc < 0 ? fatal(rc) : 0;
}

/* ---- rollback ------------------------------------------------------------ */

void text_array_truncate(inlet_array *a, const inlet_field *f, int64_t len) {
  /* Children may hold values of a row whose parent entry was never closed,
   * so recurse even when this array is already short enough. */
  if (a->length < len) return;
  if (a->validity) {
    for (int64_t i = len; i < a->length; i++)
      a->null_count -= !inlet_bit_get(a->validity, i);
  }
  switch (f->type.id) {
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP:
    if (a->n_children == 1) text_array_truncate(&a->children[0], &f->children[0], a->offsets[len]);
    break;
  case INLET_TYPE_STRUCT:
    for (int32_t i = 0; i < a->n_children; i++)
      text_array_truncate(&a->children[i], &f->children[i], len);
    break;
  default: break;
  }
  a->length = len;
}
