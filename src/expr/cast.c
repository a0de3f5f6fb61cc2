/*
 * Conversions between value types (CAST, and the implicit conversions the
 * typing rules insert), after Spark's Cast: decimals round half up and
 * yield NULL when they do not fit; numbers to integers truncate toward
 * zero; strings convert with the text import rules (the ones ingestion
 * uses), NULL when they do not parse; values become strings the way Spark
 * prints them (1.0E10, 1.50, 2024-05-01, 2024-05-01 10:00:00.5).
 * Out-of-range conversions yield NULL (Spark wraps integers in non-ANSI
 * mode and raises an error in ANSI mode). Timestamps are read in UTC.
 */
#include <math.h>
#include <stdio.h>

#include "batch/batch.h"
#include "util/datetime.h"
#include "expr/eval_int.h"

static int64_t unit_per_sec(inlet_time_unit u) {
  return u == INLET_UNIT_SECOND  ? 1
         : u == INLET_UNIT_MILLI ? 1000
         : u == INLET_UNIT_MICRO ? 1000000
                                 : 1000000000;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static bool is_int_type(inlet_type_id id) {
  return (id >= INLET_TYPE_INT8 && id <= INLET_TYPE_UINT64);
}

/* Range of an integer type, for narrowing. */
static bool int_fits(inlet_type_id id, int64_t v) {
  switch (id) {
  case INLET_TYPE_INT8: return v >= INT8_MIN && v <= INT8_MAX;
  case INLET_TYPE_INT16: return v >= INT16_MIN && v <= INT16_MAX;
  case INLET_TYPE_INT32: return v >= INT32_MIN && v <= INT32_MAX;
  case INLET_TYPE_UINT8: return v >= 0 && v <= UINT8_MAX;
  case INLET_TYPE_UINT16: return v >= 0 && v <= UINT16_MAX;
  case INLET_TYPE_UINT32: return v >= 0 && v <= (int64_t)UINT32_MAX;
  default: return true;
  }
}

/* ---- to text ---------------------------------------------------------------------- */

static void fmt_date(char *out, int64_t days) {
  int64_t y;
  int m, d;
  inlet_civil_from_days(days, &y, &m, &d);
  sprintf(out, "%04lld-%02d-%02d", (long long)y, m, d);
}

/* hh:mm:ss[.fraction without trailing zeros] of @p ticks (in @p unit) since midnight. */
static size_t fmt_clock(char *out, int64_t ticks, inlet_time_unit unit) {
  int64_t ups = unit_per_sec(unit);
  int64_t secs = floor_div(ticks, ups), frac = ticks - secs * ups;
  size_t k = (size_t)sprintf(out, "%02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60),
                             (int)(secs % 60));
  if (frac) {
    int digits = unit == INLET_UNIT_MILLI ? 3 : unit == INLET_UNIT_MICRO ? 6 : 9;
    char f[16];
    sprintf(f, "%0*lld", digits, (long long)frac);
    int n = digits;
    while (n > 0 && f[n - 1] == '0')
      n--;
    k += (size_t)sprintf(out + k, ".%.*s", n, f);
  }
  return k;
}

int ex_to_text(ex_ctx *c, const ex_vec *in, const inlet_type *t, int64_t r, ex_str *out) {
  char buf[96];
  size_t n = 0;
  switch (t->id) {
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
  case INLET_TYPE_FIXED_BINARY: *out = in->v.s[r]; return 0;
  case INLET_TYPE_BOOL:
    n = (size_t)sprintf(buf, "%s", in->v.b[r] == EXPR_TRUE ? "true" : "false");
    break;
  case INLET_TYPE_UINT64: n = (size_t)sprintf(buf, "%llu", (unsigned long long)in->v.u[r]); break;
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: n = ex_double_str(buf, in->v.d[r], t->id == INLET_TYPE_FLOAT); break;
  case INLET_TYPE_DECIMAL: n = ex_dec_str(buf, in->v.q[r], t->scale); break;
  case INLET_TYPE_DATE:
    fmt_date(buf, in->v.i[r]);
    n = strlen(buf);
    break;
  case INLET_TYPE_TIME: n = fmt_clock(buf, in->v.i[r], t->unit); break;
  case INLET_TYPE_TIMESTAMP: {
    int64_t per_day = 86400 * unit_per_sec(t->unit);
    int64_t v = in->v.i[r], day = floor_div(v, per_day);
    fmt_date(buf, day);
    n = strlen(buf);
    buf[n++] = ' ';
    n += fmt_clock(buf + n, v - day * per_day, t->unit);
    break;
  }
  default: n = (size_t)sprintf(buf, "%lld", (long long)in->v.i[r]); break;
  }
  uint8_t *p = ex_alloc(c, n, false);
  if (!p) return INLET_ENOMEM;
  memcpy(p, buf, n);
  out->p = p;
  out->n = (int64_t)n;
  return 0;
}

/* ---- from text ------------------------------------------------------------------------- */

/* One string read as type @p t with the text import rules; false when it
 * does not convert. */
static bool from_text(ex_vec *out, int64_t r, const inlet_type *t, const ex_str *s) {
  inlet_field f;
  memset(&f, 0, sizeof f);
  f.name = (char *)"value";
  f.type = *t;
  f.nullable = true;
  inlet_array a;
  char reason[128];
  int rc = expr_literal_parse(&a, &f, s->n ? (const char *)s->p : "", (size_t)s->n, false, reason,
                              sizeof reason);
  bool ok = rc == 0 && a.length == 1 && inlet_array_is_valid(&a, 0);
  if (ok) {
    ex_vk vk = ex_vk_of(t);
    expr_value v;
    if (vk == VK_BOOL) {
      out->v.b[r] = (uint8_t)inlet_bit_get(a.values, 0);
    } else {
      expr_value_get(&v, expr_kind_of(t), t, &a, 0);
      switch (vk) {
      case VK_I64: out->v.i[r] = v.i; break;
      case VK_U64: out->v.u[r] = v.u; break;
      case VK_F64: out->v.d[r] = v.d; break;
      case VK_DEC: out->v.q[r] = v.q; break;
      default: break;
      }
    }
  }
  inlet_array_reset(&a);
  return ok;
}

/* ---- numbers and times ------------------------------------------------------------------ */

/* Value of row r as a decimal at scale @p s of precision @p p. */
static bool to_dec(const ex_vec *in, const inlet_type *from, int64_t r, int p, int s,
                   expr_i128 *out) {
  switch (from->id) {
  case INLET_TYPE_DECIMAL: {
    expr_i128 v;
    if (!ex_dec_rescale(in->v.q[r], from->scale, s, &v) || !ex_dec_fits(v, p)) return false;
    *out = v;
    return true;
  }
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: return ex_double_to_dec(in->v.d[r], p, s, out);
  case INLET_TYPE_UINT64: {
    expr_i128 v;
    if (!ex_dec_rescale((expr_i128)in->v.u[r], 0, s, &v) || !ex_dec_fits(v, p)) return false;
    *out = v;
    return true;
  }
  case INLET_TYPE_BOOL:
    return ex_dec_rescale(in->v.b[r] == EXPR_TRUE, 0, s, out) && ex_dec_fits(*out, p);
  default: {
    expr_i128 v;
    if (!ex_dec_rescale((expr_i128)in->v.i[r], 0, s, &v) || !ex_dec_fits(v, p)) return false;
    *out = v;
    return true;
  }
  }
}

static bool to_double(const ex_vec *in, const inlet_type *from, int64_t r, double *out) {
  switch (from->id) {
  case INLET_TYPE_DECIMAL: *out = ex_dec_to_double(in->v.q[r], from->scale); return true;
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: *out = in->v.d[r]; return true;
  case INLET_TYPE_UINT64: *out = (double)in->v.u[r]; return true;
  case INLET_TYPE_BOOL: *out = in->v.b[r] == EXPR_TRUE; return true;
  case INLET_TYPE_TIMESTAMP:
    *out = (double)in->v.i[r] / (double)unit_per_sec(from->unit);
    return true;
  default: *out = (double)in->v.i[r]; return true;
  }
}

/* Value of row r as an integer (truncated toward zero). */
static bool to_int(const ex_vec *in, const inlet_type *from, int64_t r, int64_t *out) {
  switch (from->id) {
  case INLET_TYPE_DECIMAL: {
    expr_i128 q = in->v.q[r] / ex_pow10(from->scale);
    if (q < INT64_MIN || q > INT64_MAX) return false;
    *out = (int64_t)q;
    return true;
  }
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: {
    double d = trunc(in->v.d[r]);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
    *out = (int64_t)d;
    return true;
  }
  case INLET_TYPE_UINT64:
    if (in->v.u[r] > INT64_MAX) return false;
    *out = (int64_t)in->v.u[r];
    return true;
  case INLET_TYPE_BOOL: *out = in->v.b[r] == EXPR_TRUE; return true;
  case INLET_TYPE_TIMESTAMP: *out = floor_div(in->v.i[r], unit_per_sec(from->unit)); return true;
  default: *out = in->v.i[r]; return true;
  }
}

/* Ticks of @p v in unit @p from as unit @p to; false on overflow. */
static bool rescale_ticks(int64_t v, inlet_time_unit from, inlet_time_unit to, int64_t *out) {
  int64_t a = unit_per_sec(from), b = unit_per_sec(to);
  if (a == b) {
    *out = v;
    return true;
  }
  if (b > a) return !__builtin_mul_overflow(v, b / a, out);
  *out = floor_div(v, a / b);
  return true;
}

static bool truthy(const ex_vec *in, const inlet_type *from, int64_t r) {
  switch (from->id) {
  case INLET_TYPE_DECIMAL: return in->v.q[r] != 0;
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: return in->v.d[r] != 0;
  case INLET_TYPE_UINT64: return in->v.u[r] != 0;
  default: return in->v.i[r] != 0;
  }
}

int ex_cast_vec(ex_ctx *c, const ex_vec *in, const inlet_type *from, const inlet_type *to,
                ex_vec *out) {
  ex_vk fvk = ex_vk_of(from), tvk = ex_vk_of(to);
  TRY(ex_vec_new(c, tvk, out));
  for (int64_t r = 0; r < c->n; r++) {
    if (ex_isnull(in, fvk, r)) {
      if (tvk == VK_BOOL)
        out->v.b[r] = EXPR_NULL;
      else
        out->nul[r] = 1;
      continue;
    }
    bool ok = true;
    switch (to->id) {
    case INLET_TYPE_STRING:
    case INLET_TYPE_BINARY:
    case INLET_TYPE_FIXED_BINARY: TRY(ex_to_text(c, in, from, r, &out->v.s[r])); break;
    case INLET_TYPE_BOOL:
      if (fvk == VK_STR)
        ok = from_text(out, r, to, &in->v.s[r]);
      else
        out->v.b[r] = truthy(in, from, r) ? EXPR_TRUE : EXPR_FALSE;
      break;
    case INLET_TYPE_DECIMAL:
      if (fvk == VK_STR)
        ok = from_text(out, r, to, &in->v.s[r]);
      else
        ok = to_dec(in, from, r, to->precision, to->scale, &out->v.q[r]);
      break;
    case INLET_TYPE_FLOAT:
    case INLET_TYPE_DOUBLE:
      if (fvk == VK_STR) {
        ok = from_text(out, r, to, &in->v.s[r]);
      } else {
        ok = to_double(in, from, r, &out->v.d[r]);
        if (to->id == INLET_TYPE_FLOAT) out->v.d[r] = (float)out->v.d[r];
      }
      break;
    case INLET_TYPE_UINT64:
      if (fvk == VK_STR) {
        ok = from_text(out, r, to, &in->v.s[r]);
      } else if (from->id == INLET_TYPE_DECIMAL) {
        expr_i128 q = in->v.q[r] / ex_pow10(from->scale);
        ok = q >= 0 && q <= (expr_i128)UINT64_MAX;
        out->v.u[r] = (uint64_t)q;
      } else if (from->id == INLET_TYPE_FLOAT || from->id == INLET_TYPE_DOUBLE) {
        double d = trunc(in->v.d[r]);
        ok = d >= 0 && d < 18446744073709551616.0;
        out->v.u[r] = ok ? (uint64_t)d : 0;
      } else {
        int64_t v;
        ok = to_int(in, from, r, &v) && v >= 0;
        out->v.u[r] = (uint64_t)v;
      }
      break;
    case INLET_TYPE_DATE:
      if (fvk == VK_STR)
        ok = from_text(out, r, to, &in->v.s[r]);
      else if (from->id == INLET_TYPE_TIMESTAMP)
        out->v.i[r] = floor_div(in->v.i[r], 86400 * unit_per_sec(from->unit));
      else
        out->v.i[r] = in->v.i[r];
      break;
    case INLET_TYPE_TIMESTAMP:
    case INLET_TYPE_TIME:
      if (fvk == VK_STR) {
        ok = from_text(out, r, to, &in->v.s[r]);
      } else if (from->id == INLET_TYPE_DATE) {
        ok = !__builtin_mul_overflow(in->v.i[r], 86400 * unit_per_sec(to->unit), &out->v.i[r]);
      } else if (from->id == to->id) {
        ok = rescale_ticks(in->v.i[r], from->unit, to->unit, &out->v.i[r]);
      } else if (from->id == INLET_TYPE_DECIMAL || from->id == INLET_TYPE_FLOAT ||
                 from->id == INLET_TYPE_DOUBLE) {
        double d;
        to_double(in, from, r, &d);
        d *= (double)unit_per_sec(to->unit);
        ok = d >= -9223372036854775808.0 && d < 9223372036854775808.0;
        out->v.i[r] = ok ? (int64_t)d : 0;
      } else {
        int64_t v;
        ok = to_int(in, from, r, &v) &&
             !__builtin_mul_overflow(v, unit_per_sec(to->unit), &out->v.i[r]);
      }
      break;
    default: /* integers */
      if (fvk == VK_STR) {
        ok = from_text(out, r, to, &in->v.s[r]);
      } else {
        int64_t v = 0;
        ok = to_int(in, from, r, &v) && is_int_type(to->id) && int_fits(to->id, v);
        out->v.i[r] = v;
      }
      break;
    }
    if (!ok) {
      if (tvk == VK_BOOL)
        out->v.b[r] = EXPR_NULL;
      else
        out->nul[r] = 1;
    }
  }
  return 0;
}
