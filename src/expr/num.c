/*
 * Exact decimal arithmetic for the expression language, with Spark's result
 * types (DecimalPrecision: precision and scale of + - * / %, adjusted to at
 * most 38 digits keeping at least 6 fraction digits) and its rounding
 * (ROUND_HALF_UP). Values are 128-bit two's complement integers scaled by
 * 10^scale; products and quotients go through 256-bit intermediates so a
 * result that fits its type is computed exactly even when the operands'
 * raw product would not fit 128 bits.
 *
 * Also the text forms Spark gives numbers when cast to strings (Java's
 * Double.toString, BigDecimal.toPlainString), used by CAST and concat.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "expr/expr_int.h"

#define E18 ((expr_i128)1000000000000000000LL)

static const expr_i128 POW10[39] = {1,
                                    10,
                                    100,
                                    1000,
                                    10000,
                                    100000,
                                    1000000,
                                    10000000,
                                    100000000,
                                    1000000000,
                                    10000000000LL,
                                    100000000000LL,
                                    1000000000000LL,
                                    10000000000000LL,
                                    100000000000000LL,
                                    1000000000000000LL,
                                    10000000000000000LL,
                                    100000000000000000LL,
                                    E18,
                                    E18 * 10,
                                    E18 * 100,
                                    E18 * 1000,
                                    E18 * 10000,
                                    E18 * 100000,
                                    E18 * 1000000,
                                    E18 * 10000000,
                                    E18 * 100000000,
                                    E18 * 1000000000,
                                    E18 * 10000000000LL,
                                    E18 * 100000000000LL,
                                    E18 * 1000000000000LL,
                                    E18 * 10000000000000LL,
                                    E18 * 100000000000000LL,
                                    E18 * 1000000000000000LL,
                                    E18 * 10000000000000000LL,
                                    E18 * 100000000000000000LL,
                                    E18 *E18,
                                    E18 *E18 * 10,
                                    E18 *E18 * 100};

expr_i128 ex_pow10(int k) {
  return POW10[k < 0 ? 0 : k > 38 ? 38 : k];
}

bool ex_dec_fits(expr_i128 v, int precision) {
  expr_i128 lim = ex_pow10(precision);
  return v < lim && v > -lim;
}

/* ---- 256-bit unsigned helpers --------------------------------------------- */

typedef unsigned __int128 u128;
typedef struct u256 {
  uint64_t w[4]; /* little-endian limbs */
} u256;

static u256 u256_from(u128 v) {
  u256 r = {{(uint64_t)v, (uint64_t)(v >> 64), 0, 0}};
  return r;
}

/* x * m, assuming the product fits 256 bits. */
static u256 u256_mul(u256 x, u128 m) {
  uint64_t mw[2] = {(uint64_t)m, (uint64_t)(m >> 64)};
  uint64_t r[6] = {0};
  for (int j = 0; j < 2; j++) {
    u128 carry = 0;
    for (int i = 0; i < 4 && i + j < 6; i++) {
      u128 t = (u128)x.w[i] * mw[j] + r[i + j] + carry;
      r[i + j] = (uint64_t)t;
      carry = t >> 64;
    }
    if (j + 4 < 6) r[j + 4] += (uint64_t)carry;
  }
  u256 o = {{r[0], r[1], r[2], r[3]}};
  return o;
}

static int u256_bits(const u256 *a) {
  for (int i = 3; i >= 0; i--)
    if (a->w[i]) return i * 64 + 64 - __builtin_clzll(a->w[i]);
  return 0;
}

static int u128_bits(u128 v) {
  uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;
  return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

static int u256_cmp(const u256 *a, const u256 *b) {
  for (int i = 3; i >= 0; i--)
    if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

static void u256_sub(u256 *a, const u256 *b) {
  uint64_t borrow = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t x = a->w[i], y = b->w[i];
    uint64_t d = x - y - borrow;
    borrow = (x < y) || (x - y < borrow);
    a->w[i] = d;
  }
}

static void u256_shl1(u256 *a, int bit) {
  for (int i = 3; i > 0; i--)
    a->w[i] = (a->w[i] << 1) | (a->w[i - 1] >> 63);
  a->w[0] = (a->w[0] << 1) | (uint64_t)bit;
}

/* q = n / d, r = n % d (d != 0), bit by bit: only decimal division and
 * rounding of wide products use it. */
static void u256_divmod(const u256 *n, const u256 *d, u256 *q, u256 *r) {
  u256 quo = {{0}}, rem = {{0}};
  int top = 255;
  while (top >= 0 && !((n->w[top / 64] >> (top % 64)) & 1))
    top--;
  for (int i = top; i >= 0; i--) {
    u256_shl1(&rem, (int)((n->w[i / 64] >> (i % 64)) & 1));
    if (u256_cmp(&rem, d) >= 0) {
      u256_sub(&rem, d);
      quo.w[i / 64] |= (uint64_t)1 << (i % 64);
    }
  }
  *q = quo;
  *r = rem;
}

/* n / d rounded half up (away from zero on ties); false when it passes
 * 127 bits. */
static bool u256_div_round(const u256 *n, const u256 *d, u128 *out) {
  u256 q, r;
  u256_divmod(n, d, &q, &r);
  u256 twice = r;
  u256_shl1(&twice, 0);
  if (r.w[3] >> 63 || u256_cmp(&twice, d) >= 0) {
    for (int i = 0; i < 4; i++)
      if (++q.w[i] != 0) break;
  }
  if (q.w[2] || q.w[3] || q.w[1] >> 63) return false;
  *out = ((u128)q.w[1] << 64) | q.w[0];
  return true;
}

static u128 uabs(expr_i128 v) {
  return v < 0 ? (u128)0 - (u128)v : (u128)v;
}

/* ---- rescaling and comparison ----------------------------------------------- */

bool ex_dec_rescale(expr_i128 v, int from, int to, expr_i128 *out) {
  if (to == from) {
    *out = v;
    return true;
  }
  if (to > from) {
    int k = to - from;
    if (k > 38) return v == 0 ? (*out = 0, true) : false;
    expr_i128 m = ex_pow10(k), r;
    if (__builtin_mul_overflow(v, m, &r)) return false;
    *out = r;
    return true;
  }
  int k = from - to;
  if (k > 38) {
    *out = 0;
    return true;
  }
  expr_i128 d = ex_pow10(k);
  expr_i128 q = v / d, rem = v % d;
  /* Half up: |rem| >= d/2 rounds away from zero. */
  if (uabs(rem) * 2 >= (u128)d) q += v < 0 ? -1 : 1;
  *out = q;
  return true;
}

int ex_dec_cmp(expr_i128 a, int sa, expr_i128 b, int sb) {
  if (sa != sb) {
    expr_i128 x;
    if (sa < sb) {
      if (!ex_dec_rescale(a, sa, sb, &x)) return a < 0 ? -1 : 1; /* |a| beyond any b */
      a = x;
    } else {
      if (!ex_dec_rescale(b, sb, sa, &x)) return b < 0 ? 1 : -1;
      b = x;
    }
  }
  return a < b ? -1 : a > b;
}

/* ---- Spark's result types ----------------------------------------------------- */

static void adjust(int precision, int scale, int *p, int *s) {
  if (precision <= 38) {
    *p = precision;
    *s = scale;
    return;
  }
  int int_digits = precision - scale;
  int min_scale = scale < 6 ? scale : 6;
  int adj = 38 - int_digits;
  *p = 38;
  *s = adj > min_scale ? adj : min_scale;
}

void ex_dec_result_type(int op, int p1, int s1, int p2, int s2, int *p, int *s) {
  int max_s = s1 > s2 ? s1 : s2;
  switch (op) {
  case '+':
  case '-': {
    int i1 = p1 - s1, i2 = p2 - s2;
    adjust((i1 > i2 ? i1 : i2) + max_s + 1, max_s, p, s);
    break;
  }
  case '*': adjust(p1 + p2 + 1, s1 + s2, p, s); break;
  case '/': {
    int scale = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
    adjust(p1 - s1 + s2 + scale, scale, p, s);
    break;
  }
  default: { /* % */
    int i1 = p1 - s1, i2 = p2 - s2;
    adjust((i1 < i2 ? i1 : i2) + max_s, max_s, p, s);
    break;
  }
  }
}

/* ---- operations ---------------------------------------------------------------- */

bool ex_dec_add(expr_i128 a, int sa, expr_i128 b, int sb, bool sub, int p, int s, expr_i128 *out) {
  int m = sa > sb ? sa : sb;
  expr_i128 x, y, r;
  if (!ex_dec_rescale(a, sa, m, &x) || !ex_dec_rescale(b, sb, m, &y)) return false;
  if (sub ? __builtin_sub_overflow(x, y, &r) : __builtin_add_overflow(x, y, &r)) return false;
  if (!ex_dec_rescale(r, m, s, &r)) return false;
  *out = r;
  return ex_dec_fits(r, p);
}

bool ex_dec_mul(expr_i128 a, int sa, expr_i128 b, int sb, int p, int s, expr_i128 *out) {
  bool neg = (a < 0) != (b < 0);
  u256 prod = u256_mul(u256_from(uabs(a)), uabs(b));
  int k = sa + sb - s; /* digits to drop (s never exceeds sa + sb) */
  u128 mag;
  if (k <= 0) {
    if (prod.w[2] || prod.w[3] || prod.w[1] >> 63) return false;
    mag = ((u128)prod.w[1] << 64) | prod.w[0];
    expr_i128 r = (expr_i128)mag;
    if (!ex_dec_rescale(neg ? -r : r, sa + sb, s, &r)) return false;
    *out = r;
    return ex_dec_fits(r, p);
  }
  u256 d = k > 38 ? u256_mul(u256_from((u128)ex_pow10(38)), (u128)ex_pow10(k - 38))
                  : u256_from((u128)ex_pow10(k));
  if (!u256_div_round(&prod, &d, &mag)) return false;
  expr_i128 r = (expr_i128)mag;
  *out = neg ? -r : r;
  return ex_dec_fits(*out, p);
}

bool ex_dec_div(expr_i128 a, int sa, expr_i128 b, int sb, int p, int s, expr_i128 *out) {
  if (b == 0) return false;
  bool neg = (a < 0) != (b < 0);
  /* a/10^sa / (b/10^sb) at scale s = a * 10^(sb + s - sa) / b. */
  int k = sb + s - sa;
  u256 n = u256_from(uabs(a)), d = u256_from(uabs(b));
  while (k > 0) {
    int step = k > 38 ? 38 : k;
    /* A numerator past 256 bits over a divisor below 2^127 leaves a
     * quotient no decimal(38) holds. */
    if (u256_bits(&n) + u128_bits((u128)ex_pow10(step)) > 256) return false;
    n = u256_mul(n, (u128)ex_pow10(step));
    k -= step;
  }
  while (k < 0) {
    int step = -k > 38 ? 38 : -k;
    d = u256_mul(d, (u128)ex_pow10(step));
    k += step;
  }
  u128 mag;
  if (!u256_div_round(&n, &d, &mag)) return false;
  expr_i128 r = (expr_i128)mag;
  *out = neg ? -r : r;
  return ex_dec_fits(*out, p);
}

bool ex_dec_mod(expr_i128 a, int sa, expr_i128 b, int sb, int p, int s, expr_i128 *out) {
  int m = sa > sb ? sa : sb;
  expr_i128 x, y;
  if (!ex_dec_rescale(a, sa, m, &x) || !ex_dec_rescale(b, sb, m, &y) || y == 0) return false;
  expr_i128 r = x % y; /* the sign of the dividend, as Java's BigDecimal.remainder */
  if (!ex_dec_rescale(r, m, s, &r)) return false;
  *out = r;
  return ex_dec_fits(r, p);
}

/* ---- text forms ------------------------------------------------------------------ */

size_t ex_i128_str(char *out, expr_i128 v) {
  char tmp[48];
  size_t n = 0;
  u128 m = uabs(v);
  do {
    tmp[n++] = (char)('0' + (int)(m % 10));
    m /= 10;
  } while (m);
  size_t k = 0;
  if (v < 0) out[k++] = '-';
  while (n)
    out[k++] = tmp[--n];
  out[k] = 0;
  return k;
}

size_t ex_dec_str(char *out, expr_i128 v, int scale) {
  char digits[48];
  size_t n = ex_i128_str(digits, v < 0 ? -v : v); /* |v| < 10^38: -v cannot overflow */
  size_t k = 0;
  if (v < 0) out[k++] = '-';
  if (scale <= 0) {
    memcpy(out + k, digits, n + 1);
    return k + n;
  }
  size_t s = (size_t)scale;
  if (n <= s) {
    out[k++] = '0';
    out[k++] = '.';
    for (size_t i = n; i < s; i++)
      out[k++] = '0';
    memcpy(out + k, digits, n);
    k += n;
  } else {
    memcpy(out + k, digits, n - s);
    k += n - s;
    out[k++] = '.';
    memcpy(out + k, digits + n - s, s);
    k += s;
  }
  out[k] = 0;
  return k;
}

double ex_dec_to_double(expr_i128 v, int scale) {
  char buf[64];
  size_t n = ex_i128_str(buf, v);
  snprintf(buf + n, sizeof buf - n, "e-%d", scale);
  return strtod(buf, NULL); /* correctly rounded, as BigDecimal.doubleValue */
}

bool ex_double_to_dec(double d, int p, int s, expr_i128 *out) {
  if (!isfinite(d) || fabs(d) >= 1e39) return false;
  /* The exact binary value printed with spare digits, then rounded half up
   * at the scale (printf would round half to even). */
  char buf[512];
  int len = snprintf(buf, sizeof buf, "%.*f", s + 40, fabs(d));
  if (len <= 0 || (size_t)len >= sizeof buf) return false;
  char *dot = strchr(buf, '.');
  if (!dot) return false;
  u128 m = 0;
  int digits = 0;
  for (char *c = buf; c < dot; c++) {
    m = m * 10 + (u128)(*c - '0');
    if (m != 0 && ++digits > 38) return false;
  }
  for (int i = 1; i <= s; i++) {
    m = m * 10 + (u128)(dot[i] - '0');
    if (m != 0 && ++digits > 38) return false;
  }
  if (dot[s + 1] >= '5') m++;
  expr_i128 r = (expr_i128)m;
  if (d < 0) r = -r;
  if (!ex_dec_fits(r, p)) return false;
  *out = r;
  return true;
}

/* Java's Double.toString / Float.toString: the shortest digits that read
 * back as the same value, plain between 10^-3 and 10^7 ("1.0", "0.001",
 * "1234567.0"), else computerized scientific ("1.0E10", "1.2E-5"). */
size_t ex_double_str(char *out, double v, bool is_float) {
  if (isnan(v)) return (size_t)sprintf(out, "NaN");
  if (isinf(v)) return (size_t)sprintf(out, v > 0 ? "Infinity" : "-Infinity");
  if (v == 0) return (size_t)sprintf(out, signbit(v) ? "-0.0" : "0.0");
  char e[40];
  int prec;
  for (prec = 1; prec <= 17; prec++) {
    snprintf(e, sizeof e, "%.*e", prec - 1, v);
    if (is_float ? strtof(e, NULL) == (float)v : strtod(e, NULL) == v) break;
  }
  /* e = "[-]d.ddde[+-]XX" */
  char digits[24];
  size_t nd = 0;
  const char *c = e;
  bool neg = *c == '-';
  if (neg) c++;
  for (; *c && *c != 'e'; c++)
    if (*c != '.') digits[nd++] = *c;
  int exp10 = atoi(c + 1);
  while (nd > 1 && digits[nd - 1] == '0')
    nd--;
  size_t k = 0;
  if (neg) out[k++] = '-';
  double a = fabs(v);
  if (a >= 1e-3 && a < 1e7) {
    if (exp10 >= 0) {
      for (int i = 0; i <= exp10; i++)
        out[k++] = (size_t)i < nd ? digits[i] : '0';
      out[k++] = '.';
      if ((size_t)exp10 + 1 >= nd)
        out[k++] = '0';
      else
        for (size_t i = (size_t)exp10 + 1; i < nd; i++)
          out[k++] = digits[i];
    } else {
      out[k++] = '0';
      out[k++] = '.';
      for (int i = -1; i > exp10; i--)
        out[k++] = '0';
      for (size_t i = 0; i < nd; i++)
        out[k++] = digits[i];
    }
  } else {
    out[k++] = digits[0];
    out[k++] = '.';
    if (nd == 1)
      out[k++] = '0';
    else
      for (size_t i = 1; i < nd; i++)
        out[k++] = digits[i];
    k += (size_t)sprintf(out + k, "E%d", exp10);
  }
  out[k] = 0;
  return k;
}
