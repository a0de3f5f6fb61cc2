/*
 * Typing rules of the expression language, after Spark SQL's analyzer
 * (TypeCoercion, DecimalPrecision) where it matters for the answer:
 *   - numbers compare and compute in a common type: integers with
 *     integers, decimals exactly (integers become decimal(3/5/10/20, 0)),
 *     anything with a float or double as double; integer / integer is a
 *     double; decimal results take Spark's precision and scale;
 *   - a date meets a timestamp as a timestamp (midnight UTC), timestamps
 *     of different units in the finer unit;
 *   - a string meets a number, date, timestamp or boolean as that type
 *     (a row whose string does not convert yields NULL);
 *   - literals: beside a column in the WHERE dialect a literal takes the
 *     column's type and must fit it (so `amount = 1.234` on a decimal(10,2)
 *     is an error, and numbers compare exactly); elsewhere a literal has its
 *     own type (10 int, 10L bigint, 1.50 decimal(3,2), 1e3 double, DATE
 *     '2024-01-01', ...) and a string literal beside a typed expression is
 *     read as that type when the query is parsed.
 * Integer arithmetic is computed in 64 bits; an overflow, a division by
 * zero or a failed conversion yields NULL (Spark raises an error for them
 * in ANSI mode; either way a CHECK constraint over them does not hold).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "expr/parse_int.h"

/* ---- type classes ------------------------------------------------------------ */

static bool is_int(inlet_type_id id) {
  return id == INLET_TYPE_INT8 || id == INLET_TYPE_INT16 || id == INLET_TYPE_INT32 ||
         id == INLET_TYPE_INT64 || id == INLET_TYPE_UINT8 || id == INLET_TYPE_UINT16 ||
         id == INLET_TYPE_UINT32 || id == INLET_TYPE_UINT64;
}

bool ex_is_numeric(const inlet_type *t) {
  return is_int(t->id) || t->id == INLET_TYPE_FLOAT || t->id == INLET_TYPE_DOUBLE ||
         t->id == INLET_TYPE_DECIMAL;
}

static bool is_temporal(inlet_type_id id) {
  return id == INLET_TYPE_DATE || id == INLET_TYPE_TIMESTAMP || id == INLET_TYPE_TIME;
}

static bool is_bytes(inlet_type_id id) {
  return id == INLET_TYPE_STRING || id == INLET_TYPE_BINARY || id == INLET_TYPE_FIXED_BINARY;
}

static bool is_nested(inlet_type_id id) {
  return id == INLET_TYPE_STRUCT || id == INLET_TYPE_LIST || id == INLET_TYPE_MAP;
}

ex_vk ex_vk_of(const inlet_type *t) {
  switch (t->id) {
  case INLET_TYPE_BOOL: return VK_BOOL;
  case INLET_TYPE_UINT64: return VK_U64;
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: return VK_F64;
  case INLET_TYPE_DECIMAL: return VK_DEC;
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
  case INLET_TYPE_FIXED_BINARY: return VK_STR;
  case INLET_TYPE_STRUCT:
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP: return VK_LOC;
  default: return VK_I64;
  }
}

static int int_digits(inlet_type_id id) {
  switch (id) {
  case INLET_TYPE_INT8:
  case INLET_TYPE_UINT8: return 3;
  case INLET_TYPE_INT16:
  case INLET_TYPE_UINT16: return 5;
  case INLET_TYPE_INT32:
  case INLET_TYPE_UINT32: return 10;
  default: return 20;
  }
}

static bool same_type(const inlet_type *a, const inlet_type *b) {
  if (a->id != b->id) return false;
  switch (a->id) {
  case INLET_TYPE_TIMESTAMP:
  case INLET_TYPE_TIME: return a->unit == b->unit && a->utc == b->utc;
  case INLET_TYPE_DECIMAL: return a->precision == b->precision && a->scale == b->scale;
  case INLET_TYPE_FIXED_BINARY: return a->byte_width == b->byte_width;
  default: return true;
  }
}

void ex_type_name(const expr_node *n, char *out, size_t cap) {
  if (n->type.id == INLET_TYPE_INVALID) {
    snprintf(out, cap, "%s",
             n->raw_kind == RAW_STRING   ? "string"
             : n->raw_kind == RAW_NUMBER ? "number"
             : n->raw_kind == RAW_NULL   ? "null"
                                         : "literal");
    return;
  }
  if (n->vk == VK_LOC && n->field) {
    inlet_field_type_name(n->field, out, cap);
    return;
  }
  inlet_type_name(&n->type, out, cap);
}

static inlet_type t_of(inlet_type_id id) {
  inlet_type t;
  memset(&t, 0, sizeof t);
  t.id = id;
  return t;
}

static inlet_type t_dec(int p, int s) {
  inlet_type t = t_of(INLET_TYPE_DECIMAL);
  t.precision = p;
  t.scale = s;
  return t;
}

/* An integer type as the decimal Spark widens it to. */
static inlet_type as_dec(const inlet_type *t) {
  return t->id == INLET_TYPE_DECIMAL ? *t : t_dec(int_digits(t->id), 0);
}

/* ---- literals ------------------------------------------------------------------ */

static void excerpt(const parser *ps, const expr_node *n, char *out, size_t cap) {
  size_t len = n->end > n->pos ? n->end - n->pos : 0;
  snprintf(out, cap, "%.*s", (int)(len > 60 ? 60 : len), ps->src + n->pos);
}

/* n (raw) becomes a literal of type @p t read from @p s with the text
 * import rules. INLET_EINVAL leaves the reason in @p reason. */
static int lit_set(parser *ps, expr_node *n, const inlet_type *t, const char *s, size_t len,
                   char *reason, size_t reason_cap) {
  inlet_free(n->lit_field.name);
  memset(&n->lit_field, 0, sizeof n->lit_field);
  n->lit_field.name = inlet_strdup("literal");
  if (!n->lit_field.name) return inlet_fail(ps->err, INLET_ENOMEM, "out of memory");
  n->lit_field.type = *t;
  n->lit_field.nullable = true;
  n->lit_field.field_id = -1;
  inlet_array_reset(&n->lits);
  memset(&n->lits, 0, sizeof n->lits);
  int rc = expr_literal_parse(&n->lits, &n->lit_field, s, len, false, reason, reason_cap);
  if (rc < 0) {
    inlet_array_reset(&n->lits);
    memset(&n->lits, 0, sizeof n->lits);
    if (rc != INLET_EINVAL) return inlet_fail(ps->err, rc, "%s", reason);
    return rc;
  }
  n->type = *t;
  n->vk = ex_vk_of(t);
  return 0;
}

static void become_const(expr_node *n, uint8_t v) {
  n->kind = N_CONST;
  n->constv = v;
  n->vk = VK_BOOL;
  n->type = t_of(INLET_TYPE_BOOL);
}

static void become_typed_null(expr_node *n, const expr_node *like) {
  n->lit_null = true;
  n->type = like->type;
  n->vk = like->vk;
  n->field = like->field;
}

/* The own type of a number's text: 10 int, 3000000000 bigint, 10L bigint,
 * 10S smallint, 10Y tinyint, 1.50 decimal(3,2), 1.5BD decimal, 1e3 and
 * 1.5D double, 1.5F float. */
static int number_type(parser *ps, const expr_node *n, inlet_type *t, size_t *text_len) {
  const char *s = n->raw;
  size_t len = n->raw_n;
  size_t i = 0;
  if (i < len && (s[i] == '-' || s[i] == '+')) i++;
  size_t digits = 0, frac = 0, lead = 0;
  bool dot = false, expo = false, nonzero = false;
  for (; i < len; i++) {
    char c = s[i];
    if (isdigit((unsigned char)c)) {
      if (expo) continue;
      if (c != '0') nonzero = true;
      if (!nonzero && !dot) lead++;
      digits++;
      if (dot) frac++;
    } else if (c == '.' && !dot && !expo) {
      dot = true;
    } else if ((c == 'e' || c == 'E') && !expo && digits > 0 && i + 1 < len) {
      expo = true;
      if (s[i + 1] == '-' || s[i + 1] == '+') i++;
      if (i + 1 >= len || !isdigit((unsigned char)s[i + 1])) break;
    } else {
      break;
    }
  }
  const char *suf = s + i;
  size_t sl = len - i;
  *text_len = i;
  char ex[64];
  excerpt(ps, n, ex, sizeof ex);
  if (digits == 0) return ex_perr(ps, INLET_EINVAL, n->pos, "malformed number %s", ex);
  if (sl == 0) {
    if (expo) {
      *t = t_of(INLET_TYPE_DOUBLE);
    } else if (dot) {
      int sig = (int)(digits - lead);
      int p = sig > (int)frac ? sig : (int)frac;
      if (p < 1) p = 1;
      if (p > 38)
        return ex_perr(ps, INLET_EINVAL, n->pos, "decimal literal %s has more than 38 digits", ex);
      *t = t_dec(p, (int)frac);
    } else {
      int sig = (int)(digits - lead);
      if (sig <= 9)
        *t = t_of(INLET_TYPE_INT32);
      else if (sig <= 18)
        *t = t_of(INLET_TYPE_INT64);
      else if (sig <= 38)
        *t = t_dec(sig, 0);
      else
        return ex_perr(ps, INLET_EINVAL, n->pos, "integer literal %s has more than 38 digits", ex);
      if (t->id == INLET_TYPE_INT32) {
        /* 10 digits or fewer may still pass 32 bits. */
        long long v = strtoll(s, NULL, 10);
        if (v > INT32_MAX || v < INT32_MIN) *t = t_of(INLET_TYPE_INT64);
      }
      if (sig == 19) {
        /* 19 digits: bigint when it fits, else decimal. */
        *t = t_of(INLET_TYPE_INT64);
      }
    }
    return 0;
  }
  if (sl == 1 && (*suf == 'L' || *suf == 'l') && !dot && !expo)
    *t = t_of(INLET_TYPE_INT64);
  else if (sl == 1 && (*suf == 'S' || *suf == 's') && !dot && !expo)
    *t = t_of(INLET_TYPE_INT16);
  else if (sl == 1 && (*suf == 'Y' || *suf == 'y') && !dot && !expo)
    *t = t_of(INLET_TYPE_INT8);
  else if (sl == 1 && (*suf == 'D' || *suf == 'd'))
    *t = t_of(INLET_TYPE_DOUBLE);
  else if (sl == 1 && (*suf == 'F' || *suf == 'f'))
    *t = t_of(INLET_TYPE_FLOAT);
  else if (sl == 2 && strncasecmp(suf, "BD", 2) == 0 && !expo) {
    int sig = (int)(digits - lead);
    int p = sig > (int)frac ? sig : (int)frac;
    if (p < 1) p = 1;
    if (p > 38)
      return ex_perr(ps, INLET_EINVAL, n->pos, "decimal literal %s has more than 38 digits", ex);
    *t = t_dec(p, (int)frac);
  } else {
    return ex_perr(ps, INLET_EINVAL, n->pos, "malformed number %s", ex);
  }
  return 0;
}

/* Types raw literal @p n by its own form. */
static int natural(parser *ps, expr_node *n) {
  char reason[384], ex[64];
  inlet_type t;
  int rc;
  switch (n->raw_kind) {
  case RAW_NULL: become_const(n, EXPR_NULL); return 0;
  case RAW_BOOL: become_const(n, n->raw[0] == 't' ? EXPR_TRUE : EXPR_FALSE); return 0;
  case RAW_STRING: t = t_of(INLET_TYPE_STRING); break;
  case RAW_BINARY: t = t_of(INLET_TYPE_BINARY); break;
  case RAW_DATE: t = t_of(INLET_TYPE_DATE); break;
  case RAW_TIMESTAMP:
  case RAW_TIMESTAMP_NTZ:
    t = t_of(INLET_TYPE_TIMESTAMP);
    t.unit = INLET_UNIT_MICRO;
    t.utc = n->raw_kind == RAW_TIMESTAMP;
    break;
  default: {
    size_t tl;
    TRY(number_type(ps, n, &t, &tl));
    if (t.id == INLET_TYPE_INT64 && tl > 0) {
      /* 19 digits may still pass 64 bits: then a decimal. */
      char b[64];
      snprintf(b, sizeof b, "%.*s", (int)(tl < 63 ? tl : 63), n->raw);
      char *e;
      errno = 0;
      (void)strtoll(b, &e, 10);
      if (errno == ERANGE) {
        int d = 0;
        for (size_t i = 0; i < tl; i++)
          d += isdigit((unsigned char)n->raw[i]) != 0;
        t = t_dec(d, 0);
      }
    }
    rc = lit_set(ps, n, &t, n->raw, tl, reason, sizeof reason);
    if (rc == INLET_EINVAL) {
      excerpt(ps, n, ex, sizeof ex);
      return ex_perr(ps, INLET_EINVAL, n->pos, "malformed number %s: %s", ex, reason);
    }
    return rc;
  }
  }
  rc = lit_set(ps, n, &t, n->raw, n->raw_n, reason, sizeof reason);
  if (rc == INLET_EINVAL) {
    char tn[64];
    inlet_type_name(&t, tn, sizeof tn);
    excerpt(ps, n, ex, sizeof ex);
    return ex_perr(ps, INLET_EINVAL, n->pos, "literal %s is not a valid %s: %s", ex, tn, reason);
  }
  return rc;
}

/* Display name of a column reference: "a" or "a.b.c". */
static void col_name(const parser *ps, const expr_node *c, char *out, size_t cap) {
  const inlet_field *f = &ps->schema->fields[c->col];
  size_t k = (size_t)snprintf(out, cap, "%s", f->name);
  for (int32_t i = 0; i < c->n_path && k < cap; i++) {
    f = &f->children[c->path[i]];
    k += (size_t)snprintf(out + k, cap - k, ".%s", f->name);
  }
}

/* The error for column @p c where a comparable value is needed: a nested
 * column, or a void one (always null). */
static int col_not_comparable(parser *ps, const expr_node *c) {
  char cn[256];
  col_name(ps, c, cn, sizeof cn);
  const inlet_field *f = &ps->schema->fields[c->col];
  for (int32_t i = 0; i < c->n_path; i++)
    f = &f->children[c->path[i]];
  if (f->type.id == INLET_TYPE_NULL)
    return ex_perr(ps, INLET_EUNSUPPORTED, c->pos,
                   "column \"%s\" has type void (always null): test it with IS NULL", cn);
  return ex_perr(ps, INLET_EUNSUPPORTED, c->pos, "column \"%s\" is nested and cannot be compared",
                 cn);
}

int ex_settle(parser *ps, expr_node **np, const expr_node *other) {
  expr_node *n = *np;
  if (n->kind != V_LIT || n->type.id != INLET_TYPE_INVALID) return 0;
  if (!other || other->type.id == INLET_TYPE_INVALID) return natural(ps, n);
  if (n->raw_kind == RAW_NULL) {
    become_typed_null(n, other);
    return 0;
  }
  char reason[384], ex[64], tn[64];
  bool column = other->kind == V_COL;
  if (other->vk == VK_LOC) {
    if (column) {
      return col_not_comparable(ps, other);
    }
    return natural(ps, n);
  }
  const char *text = n->raw;
  size_t len = n->raw_n;
  if (ps->dialect == EXPR_WHERE && column) {
    /* The column decides, typed-literal prefixes only document intent. */
    int rc = lit_set(ps, n, &other->type, text, len, reason, sizeof reason);
    if (rc != INLET_EINVAL) return rc;
    char cn[256];
    col_name(ps, other, cn, sizeof cn);
    inlet_type_name(&other->type, tn, sizeof tn);
    excerpt(ps, n, ex, sizeof ex);
    return ex_perr(ps, INLET_EINVAL, n->pos, "literal %s does not fit column \"%s\" (%s): %s", ex,
                   cn, tn, reason);
  }
  const inlet_type *ot = &other->type;
  if (n->raw_kind == RAW_STRING && !is_bytes(ot->id)) {
    if (ex_is_numeric(ot)) {
      /* A string beside a number: read as a number of its own exact type. */
      expr_node probe = *n;
      size_t tl;
      inlet_type t;
      inlet_error keep = *ps->err;
      int rc = number_type(ps, &probe, &t, &tl);
      *ps->err = keep;
      if (rc == 0 && tl == len) {
        n->raw_kind = RAW_NUMBER;
        return natural(ps, n);
      }
      inlet_type_name(ot, tn, sizeof tn);
      excerpt(ps, n, ex, sizeof ex);
      return ex_perr(ps, INLET_EINVAL, n->pos, "literal %s is not a number (compared with %s)", ex,
                     tn);
    }
    int rc = lit_set(ps, n, ot, text, len, reason, sizeof reason);
    if (rc != INLET_EINVAL) return rc;
    inlet_type_name(ot, tn, sizeof tn);
    excerpt(ps, n, ex, sizeof ex);
    return ex_perr(ps, INLET_EINVAL, n->pos, "literal %s cannot be read as %s: %s", ex, tn, reason);
  }
  if (n->raw_kind == RAW_NUMBER && column && other->n_path == 0 &&
      (is_int(ot->id) || ot->id == INLET_TYPE_DECIMAL || ot->id == INLET_TYPE_DOUBLE)) {
    /* The column's own type when the number fits it exactly: the same
     * answer, and the comparison can skip files. */
    size_t tl;
    inlet_type t;
    inlet_error keep = *ps->err;
    if (number_type(ps, n, &t, &tl) == 0 && tl == len &&
        (t.id != INLET_TYPE_DOUBLE || ot->id == INLET_TYPE_DOUBLE)) {
      if (lit_set(ps, n, ot, text, len, reason, sizeof reason) == 0) return 0;
    }
    *ps->err = keep;
  }
  return natural(ps, n);
}

/* ---- conversions --------------------------------------------------------------------- */

static bool castable(const inlet_type *from, const inlet_type *to) {
  inlet_type_id f = from->id, t = to->id;
  if (is_nested(f) || is_nested(t)) return false;
  if (f == t) return true;
  if (f == INLET_TYPE_STRING || t == INLET_TYPE_STRING) return true;
  if (is_bytes(f) && is_bytes(t)) return true;
  bool fn = ex_is_numeric(from) || f == INLET_TYPE_BOOL,
       tn = ex_is_numeric(to) || t == INLET_TYPE_BOOL;
  if (fn && tn) return true;
  if ((f == INLET_TYPE_DATE || f == INLET_TYPE_TIMESTAMP) &&
      (t == INLET_TYPE_DATE || t == INLET_TYPE_TIMESTAMP))
    return true;
  /* timestamp <-> seconds */
  if ((f == INLET_TYPE_TIMESTAMP && ex_is_numeric(to)) ||
      (t == INLET_TYPE_TIMESTAMP && ex_is_numeric(from)))
    return true;
  return false;
}

int ex_cast_to(parser *ps, expr_node **np, const inlet_type *t, bool explicit_cast) {
  TRY(ex_settle(ps, np, NULL));
  expr_node *x = *np;
  if (same_type(&x->type, t)) return 0;
  if (x->kind == N_CONST && x->constv == EXPR_NULL) {
    /* A bare NULL takes any type. */
    x->kind = V_LIT;
    x->lit_null = true;
    x->type = *t;
    x->vk = ex_vk_of(t);
    return 0;
  }
  if (!castable(&x->type, t)) {
    char a[64], b[64];
    ex_type_name(x, a, sizeof a);
    inlet_type_name(t, b, sizeof b);
    return ex_perr(ps, explicit_cast ? INLET_EUNSUPPORTED : INLET_EINVAL, x->pos,
                   "cannot convert %s to %s", a, b);
  }
  expr_node *c = ex_new_node(ps, V_CAST, x->pos, x->end);
  if (!c) return INLET_ENOMEM;
  c->a = x;
  c->type = *t;
  c->vk = ex_vk_of(t);
  *np = c;
  return 0;
}

/* The type numbers of types @p a and @p b compute in (Spark's wider type). */
static inlet_type numeric_common(const inlet_type *a, const inlet_type *b) {
  if (a->id == INLET_TYPE_DOUBLE || b->id == INLET_TYPE_DOUBLE || a->id == INLET_TYPE_FLOAT ||
      b->id == INLET_TYPE_FLOAT)
    return t_of(INLET_TYPE_DOUBLE);
  if (a->id == INLET_TYPE_DECIMAL || b->id == INLET_TYPE_DECIMAL ||
      (a->id == INLET_TYPE_UINT64) != (b->id == INLET_TYPE_UINT64)) {
    inlet_type x = as_dec(a), y = as_dec(b);
    int s = x.scale > y.scale ? x.scale : y.scale;
    int ia = x.precision - x.scale, ib = y.precision - y.scale;
    int p = (ia > ib ? ia : ib) + s;
    if (p > 38) p = 38;
    if (s > p) s = p;
    return t_dec(p, s);
  }
  if (a->id == INLET_TYPE_UINT64) return *a;
  return t_of(INLET_TYPE_INT64);
}

static inlet_type temporal_common(const inlet_type *a, const inlet_type *b) {
  if (a->id == INLET_TYPE_DATE && b->id == INLET_TYPE_DATE) return *a;
  if (a->id == INLET_TYPE_TIME) return a->unit >= b->unit ? *a : *b;
  const inlet_type *ts = a->id == INLET_TYPE_TIMESTAMP ? a : b;
  inlet_type t = *ts;
  if (a->id == INLET_TYPE_TIMESTAMP && b->id == INLET_TYPE_TIMESTAMP) {
    t.unit = a->unit > b->unit ? a->unit : b->unit;
    t.utc = a->utc || b->utc;
  }
  return t;
}

/* Types a and b are compared in (for decimals: each keeps its scale, the
 * comparison is exact). Returns false when they cannot be compared. */
static bool compare_types(const inlet_type *a, const inlet_type *b, inlet_type *ta,
                          inlet_type *tb) {
  *ta = *a;
  *tb = *b;
  if (is_nested(a->id) || is_nested(b->id)) return false;
  if (ex_is_numeric(a) && ex_is_numeric(b)) {
    inlet_type c = numeric_common(a, b);
    if (c.id == INLET_TYPE_DECIMAL) {
      *ta = as_dec(a);
      *tb = as_dec(b);
    } else if (c.id == INLET_TYPE_INT64) {
      /* Integers of any width load as 64-bit values: no conversion. */
      *ta = is_int(a->id) ? *a : c;
      *tb = is_int(b->id) ? *b : c;
    } else {
      *ta = *tb = c;
    }
    return true;
  }
  if (is_temporal(a->id) && is_temporal(b->id)) {
    if ((a->id == INLET_TYPE_TIME) != (b->id == INLET_TYPE_TIME)) return false;
    *ta = *tb = temporal_common(a, b);
    return true;
  }
  if (is_bytes(a->id) && is_bytes(b->id)) return true;
  if (a->id == INLET_TYPE_BOOL && b->id == INLET_TYPE_BOOL) return true;
  /* A string meets another type as that type. */
  if (a->id == INLET_TYPE_STRING) {
    *ta = *b;
    return true;
  }
  if (b->id == INLET_TYPE_STRING) {
    *tb = *a;
    return true;
  }
  return false;
}

/* Casts *a and *b to types they compare in. */
static int unify_compare(parser *ps, expr_node **a, expr_node **b, size_t pos) {
  inlet_type ta, tb;
  if ((*a)->vk == VK_LOC || (*b)->vk == VK_LOC) {
    const expr_node *x = (*a)->vk == VK_LOC ? *a : *b;
    if (x->kind == V_COL) {
      return col_not_comparable(ps, x);
    }
    return ex_perr(ps, INLET_EUNSUPPORTED, x->pos, "nested values cannot be compared");
  }
  if (!compare_types(&(*a)->type, &(*b)->type, &ta, &tb)) {
    char x[64], y[64];
    ex_type_name(*a, x, sizeof x);
    ex_type_name(*b, y, sizeof y);
    return ex_perr(ps, INLET_EINVAL, pos, "cannot compare %s with %s", x, y);
  }
  TRY(ex_cast_to(ps, a, &ta, false));
  return ex_cast_to(ps, b, &tb, false);
}

/* The one type values of @p a and @p b both become (CASE, coalesce, ...):
 * Spark's wider common type; a string with anything else is a string. */
static bool result_type(const inlet_type *a, const inlet_type *b, inlet_type *out) {
  if (same_type(a, b)) {
    *out = *a;
    return true;
  }
  if (is_nested(a->id) || is_nested(b->id)) return false;
  if (ex_is_numeric(a) && ex_is_numeric(b)) {
    *out = numeric_common(a, b);
    if (out->id == INLET_TYPE_INT64 && (a->id == INLET_TYPE_UINT64 || b->id == INLET_TYPE_UINT64))
      *out = t_dec(20, 0);
    return true;
  }
  if (is_temporal(a->id) && is_temporal(b->id)) {
    if ((a->id == INLET_TYPE_TIME) != (b->id == INLET_TYPE_TIME)) return false;
    *out = temporal_common(a, b);
    return true;
  }
  if (is_bytes(a->id) && is_bytes(b->id)) {
    *out = t_of(a->id == INLET_TYPE_STRING && b->id == INLET_TYPE_STRING ? INLET_TYPE_STRING
                                                                         : INLET_TYPE_BINARY);
    return true;
  }
  if (a->id == INLET_TYPE_STRING || b->id == INLET_TYPE_STRING) {
    *out = t_of(INLET_TYPE_STRING);
    return true;
  }
  return false;
}

/* Settles and converts args[from..to) (step) to one common type. */
static int unify_results(parser *ps, expr_node **args, int32_t from, int32_t to, int32_t step,
                         const char *what) {
  const expr_node *typed = NULL;
  for (int32_t i = from; i < to; i += step)
    if (args[i]->type.id != INLET_TYPE_INVALID &&
        !(args[i]->kind == N_CONST && args[i]->constv == EXPR_NULL)) {
      typed = args[i];
      break;
    }
  for (int32_t i = from; i < to; i += step)
    TRY(ex_settle(ps, &args[i], typed));
  inlet_type t;
  bool have = false;
  for (int32_t i = from; i < to; i += step) {
    const expr_node *x = args[i];
    if (x->kind == N_CONST && x->constv == EXPR_NULL) continue; /* a bare NULL fits anything */
    if (x->vk == VK_LOC)
      return ex_perr(ps, INLET_EUNSUPPORTED, x->pos, "%s of nested values", what);
    if (!have) {
      t = x->type;
      have = true;
      continue;
    }
    inlet_type r;
    if (!result_type(&t, &x->type, &r)) {
      char p[64], q[64];
      inlet_type_name(&t, p, sizeof p);
      ex_type_name(x, q, sizeof q);
      return ex_perr(ps, INLET_EINVAL, x->pos, "%s mixes %s and %s", what, p, q);
    }
    t = r;
  }
  if (!have) t = t_of(INLET_TYPE_BOOL);
  for (int32_t i = from; i < to; i += step)
    TRY(ex_cast_to(ps, &args[i], &t, false));
  return 0;
}

/* ---- comparisons ------------------------------------------------------------------------ */

static bool is_raw(const expr_node *n) {
  return n->kind == V_LIT && n->type.id == INLET_TYPE_INVALID;
}

static expr_op flip(expr_op op) {
  switch (op) {
  case OP_LT: return OP_GT;
  case OP_LE: return OP_GE;
  case OP_GT: return OP_LT;
  case OP_GE: return OP_LE;
  default: return op;
  }
}

/* The skipping fast path: a top-level column of a comparable type. */
static bool fast_col(const expr_node *n) {
  if (n->kind != V_COL || n->n_path != 0) return false;
  return expr_kind_of(&n->type) != EXK_NONE;
}

/* A non-null literal of exactly column @p c's type (or TRUE/FALSE for a
 * boolean column), as a 1-row array appended to @p arr. */
static bool fast_lit(parser *ps, const expr_node *l, const expr_node *c, inlet_array *arr,
                     const inlet_field *cf, int *rc) {
  *rc = 0;
  if (l->kind == N_CONST && l->constv != EXPR_NULL && c->type.id == INLET_TYPE_BOOL) {
    if (!arr->values && !arr->validity && arr->length == 0 && !arr->offsets)
      *rc = inlet_array_init(arr, cf, ps->err);
    if (*rc == 0) *rc = inlet_array_append_bool(arr, l->constv == EXPR_TRUE, ps->err);
    return true;
  }
  if (l->kind != V_LIT || l->lit_null || !same_type(&l->type, &c->type)) return false;
  if (!arr->values && !arr->validity && arr->length == 0 && !arr->offsets)
    *rc = inlet_array_init(arr, cf, ps->err);
  if (*rc == 0) *rc = inlet_array_append_from(arr, cf, &l->lits, 0, ps->err);
  return true;
}

int ex_make_compare(parser *ps, expr_node **out, expr_op op, expr_node *a, expr_node *b) {
  int rc = 0;
  size_t pos = a->pos, end = b->end;
  /* A comparison with NULL is NULL (a <=> NULL is a IS NULL). */
  if ((is_raw(a) && a->raw_kind == RAW_NULL) || (is_raw(b) && b->raw_kind == RAW_NULL)) {
    if (op == OP_NSEQ) {
      expr_node *x = is_raw(a) && a->raw_kind == RAW_NULL ? b : a;
      expr_node *nul = x == a ? b : a;
      expr_node_free(nul);
      rc = ex_settle(ps, &x, NULL);
      expr_node *n = rc == 0 ? ex_new_node(ps, N_ISNULL, pos, end) : NULL;
      if (!n) {
        expr_node_free(x);
        return rc < 0 ? rc : INLET_ENOMEM;
      }
      n->vk = VK_BOOL;
      n->type = t_of(INLET_TYPE_BOOL);
      if (x->kind == V_COL && x->n_path == 0) {
        n->col = x->col;
        expr_node_free(x);
      } else {
        n->a = x;
      }
      *out = n;
      return 0;
    }
    expr_node *x = is_raw(a) && a->raw_kind == RAW_NULL ? b : a;
    rc = ex_settle(ps, &x, NULL);
    if (x == a)
      a = x;
    else
      b = x;
    if (rc == 0 && x->vk == VK_LOC && x->kind == V_COL) {
      rc = col_not_comparable(ps, x);
    }
    expr_node_free(a);
    expr_node_free(b);
    if (rc < 0) return rc;
    expr_node *n = ex_new_node(ps, N_CONST, pos, end);
    if (!n) return INLET_ENOMEM;
    become_const(n, EXPR_NULL);
    *out = n;
    return 0;
  }
  if (is_raw(a) && !is_raw(b))
    rc = ex_settle(ps, &a, b);
  else if (is_raw(b))
    rc = ex_settle(ps, &b, is_raw(a) ? NULL : a);
  if (rc == 0 && is_raw(a)) rc = ex_settle(ps, &a, b);
  if (rc < 0) goto fail;
  /* Fast path: column op literal of the column's own type. */
  if (op != OP_NSEQ && (fast_col(a) || fast_col(b))) {
    expr_node *c = fast_col(a) ? a : b, *l = c == a ? b : a;
    const inlet_field *cf = &ps->schema->fields[c->col];
    inlet_array arr;
    memset(&arr, 0, sizeof arr);
    if (fast_lit(ps, l, c, &arr, cf, &rc)) {
      if (rc < 0) {
        inlet_array_reset(&arr);
        goto fail;
      }
      expr_node *n = ex_new_node(ps, N_CMP, pos, end);
      if (!n) {
        inlet_array_reset(&arr);
        rc = INLET_ENOMEM;
        goto fail;
      }
      n->col = c->col;
      n->op = c == a ? op : flip(op);
      n->ck = expr_kind_of(&c->type);
      n->lits = arr;
      n->vk = VK_BOOL;
      n->type = t_of(INLET_TYPE_BOOL);
      expr_node_free(a);
      expr_node_free(b);
      *out = n;
      return 0;
    }
  }
  rc = unify_compare(ps, &a, &b, b->pos);
  if (rc < 0) goto fail;
  expr_node *n = ex_new_node(ps, N_CMP2, pos, end);
  if (!n) {
    rc = INLET_ENOMEM;
    goto fail;
  }
  n->op = op;
  n->a = a;
  n->b = b;
  n->vk = VK_BOOL;
  n->type = t_of(INLET_TYPE_BOOL);
  *out = n;
  return 0;
fail:
  expr_node_free(a);
  expr_node_free(b);
  return rc;
}

static int cmp_error(parser *ps, const expr_node *a, const expr_node *b) {
  if (a->vk == VK_LOC || b->vk == VK_LOC) {
    const expr_node *x = a->vk == VK_LOC ? a : b;
    if (x->kind == V_COL) {
      return col_not_comparable(ps, x);
    }
    return ex_perr(ps, INLET_EUNSUPPORTED, x->pos, "nested values cannot be compared");
  }
  char x[64], y[64];
  ex_type_name(a, x, sizeof x);
  ex_type_name(b, y, sizeof y);
  return ex_perr(ps, INLET_EINVAL, b->pos, "cannot compare %s with %s", x, y);
}

/* Casts @p x and items[0..n) to one comparison type (decimals keep their
 * scales). */
static int unify_list(parser *ps, expr_node **x, expr_node **items, int32_t n) {
  inlet_type t = (*x)->type, ta, tb;
  for (int32_t i = 0; i < n; i++) {
    if ((*x)->vk == VK_LOC || items[i]->vk == VK_LOC ||
        !compare_types(&t, &items[i]->type, &ta, &tb))
      return cmp_error(ps, *x, items[i]);
    t = ta;
  }
  TRY(ex_cast_to(ps, x, &t, false));
  for (int32_t i = 0; i < n; i++) {
    if (!compare_types(&(*x)->type, &items[i]->type, &ta, &tb)) return cmp_error(ps, *x, items[i]);
    TRY(ex_cast_to(ps, &items[i], &tb, false));
  }
  return 0;
}

/* Raw literals among items[0..n) and *x settle beside the first typed one. */
static int settle_list(parser *ps, expr_node **x, expr_node **items, int32_t n) {
  if (is_raw(*x)) {
    const expr_node *typed = NULL;
    for (int32_t i = 0; i < n && !typed; i++)
      if (!is_raw(items[i])) typed = items[i];
    TRY(ex_settle(ps, x, typed));
  }
  for (int32_t i = 0; i < n; i++)
    TRY(ex_settle(ps, &items[i], *x));
  return 0;
}

static bool null_lit(const expr_node *l) {
  return (is_raw(l) && l->raw_kind == RAW_NULL) || (l->kind == V_LIT && l->lit_null) ||
         (l->kind == N_CONST && l->constv == EXPR_NULL);
}

/* Consumes @p n. */
static int type_in(parser *ps, expr_node **out, expr_node *n) {
  int rc = settle_list(ps, &n->a, n->args, n->n_args);
  if (rc == 0 && fast_col(n->a)) {
    /* A top-level column IN literals of its type (NULLs noted): skipping
     * understands it. */
    bool fast = true;
    for (int32_t i = 0; i < n->n_args; i++) {
      const expr_node *l = n->args[i];
      fast &= null_lit(l) || (l->kind == V_LIT && same_type(&l->type, &n->a->type)) ||
              (l->kind == N_CONST && n->a->type.id == INLET_TYPE_BOOL);
    }
    if (fast) {
      const inlet_field *cf = &ps->schema->fields[n->a->col];
      expr_node *m = ex_new_node(ps, N_IN, n->pos, n->end);
      if (!m) {
        expr_node_free(n);
        return INLET_ENOMEM;
      }
      m->col = n->a->col;
      m->negate = n->negate;
      m->ck = expr_kind_of(&n->a->type);
      m->vk = VK_BOOL;
      m->type = t_of(INLET_TYPE_BOOL);
      rc = inlet_array_init(&m->lits, cf, ps->err);
      for (int32_t i = 0; i < n->n_args && rc == 0; i++) {
        if (null_lit(n->args[i]))
          m->in_has_null = true;
        else
          fast_lit(ps, n->args[i], n->a, &m->lits, cf, &rc);
      }
      expr_node_free(n);
      if (rc < 0) {
        expr_node_free(m);
        return rc;
      }
      *out = m;
      return 0;
    }
  }
  if (rc == 0) rc = unify_list(ps, &n->a, n->args, n->n_args);
  if (rc < 0) {
    expr_node_free(n);
    return rc;
  }
  *out = n;
  return 0;
}

static int wrap_not(parser *ps, expr_node **x) {
  expr_node *m = ex_new_node(ps, N_NOT, (*x)->pos, (*x)->end);
  if (!m) {
    expr_node_free(*x);
    *x = NULL;
    return INLET_ENOMEM;
  }
  m->a = *x;
  m->vk = VK_BOOL;
  m->type = t_of(INLET_TYPE_BOOL);
  *x = m;
  return 0;
}

/* Consumes @p n. */
static int type_between(parser *ps, expr_node **out, expr_node *n) {
  int rc = settle_list(ps, &n->args[0], n->args + 1, 2);
  if (rc < 0) {
    expr_node_free(n);
    return rc;
  }
  if (fast_col(n->args[0])) {
    /* x BETWEEN a AND b on a column is exactly x >= a AND x <= b (NULLs
     * included): two comparisons skipping understands. */
    expr_node *c1 = n->args[0], *lo = n->args[1], *hi = n->args[2];
    expr_node *c2 = ex_new_node(ps, V_COL, c1->pos, c1->end);
    bool neg = n->negate;
    n->n_args = 0;
    expr_node_free(n);
    if (!c2) {
      expr_node_free(c1);
      expr_node_free(lo);
      expr_node_free(hi);
      return INLET_ENOMEM;
    }
    c2->col = c1->col;
    c2->type = c1->type;
    c2->vk = c1->vk;
    c2->field = c1->field;
    expr_node *ge = NULL, *le = NULL;
    rc = ex_make_compare(ps, &ge, OP_GE, c1, lo);
    if (rc < 0) {
      expr_node_free(c2);
      expr_node_free(hi);
      return rc;
    }
    rc = ex_make_compare(ps, &le, OP_LE, c2, hi);
    if (rc < 0) {
      expr_node_free(ge);
      return rc;
    }
    expr_node *both = ex_new_node(ps, N_AND, ge->pos, le->end);
    if (!both) {
      expr_node_free(ge);
      expr_node_free(le);
      return INLET_ENOMEM;
    }
    both->a = ge;
    both->b = le;
    both->vk = VK_BOOL;
    both->type = t_of(INLET_TYPE_BOOL);
    if (neg) TRY(wrap_not(ps, &both));
    *out = both;
    return 0;
  }
  rc = unify_list(ps, &n->args[0], n->args + 1, 2);
  if (rc < 0) {
    expr_node_free(n);
    return rc;
  }
  n->vk = VK_BOOL;
  n->type = t_of(INLET_TYPE_BOOL);
  *out = n;
  return 0;
}

int ex_type_special(parser *ps, expr_node **out, expr_node *n) {
  if (n->kind == N_INX) return type_in(ps, out, n);
  if (n->kind == N_BETWEEN) return type_between(ps, out, n);
  /* N_LIKE: both sides as strings. */
  inlet_type str = t_of(INLET_TYPE_STRING);
  int rc = ex_cast_to(ps, &n->a, &str, false);
  if (rc == 0) rc = ex_cast_to(ps, &n->b, &str, false);
  if (rc < 0) {
    expr_node_free(n);
    return rc;
  }
  n->vk = VK_BOOL;
  n->type = t_of(INLET_TYPE_BOOL);
  *out = n;
  return 0;
}

/* ---- arithmetic ------------------------------------------------------------------------- */

int ex_make_arith(parser *ps, expr_node **out, int aop, size_t pos, expr_node *a, expr_node *b) {
  int rc = ex_settle(ps, &a, NULL);
  if (rc == 0) rc = ex_settle(ps, &b, NULL);
  if (rc < 0) goto fail;
  if (aop == '|') {
    inlet_type s = t_of(INLET_TYPE_STRING);
    rc = ex_cast_to(ps, &a, &s, false);
    if (rc == 0) rc = ex_cast_to(ps, &b, &s, false);
    if (rc < 0) goto fail;
    expr_node *n = ex_new_node(ps, V_FUNC, a->pos, b->end);
    expr_node **args = n ? inlet_calloc(2, sizeof *args) : NULL;
    if (!args) {
      expr_node_free(n);
      rc = inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
      goto fail;
    }
    args[0] = a;
    args[1] = b;
    n->args = args;
    n->n_args = 2;
    n->fn = FN_CONCAT;
    n->type = s;
    n->vk = VK_STR;
    *out = n;
    return 0;
  }
  /* A NULL operand takes the other's type; strings compute as doubles. */
  inlet_type i64 = t_of(INLET_TYPE_INT64);
  if (null_lit(a) && null_lit(b)) {
    rc = ex_cast_to(ps, &a, &i64, false);
    if (rc == 0) rc = ex_cast_to(ps, &b, &i64, false);
  }
  if (rc == 0 && a->kind == N_CONST && a->constv == EXPR_NULL && ex_is_numeric(&b->type))
    rc = ex_cast_to(ps, &a, &b->type, false);
  if (rc == 0 && b->kind == N_CONST && b->constv == EXPR_NULL && ex_is_numeric(&a->type))
    rc = ex_cast_to(ps, &b, &a->type, false);
  inlet_type dbl = t_of(INLET_TYPE_DOUBLE);
  if (rc == 0 && a->type.id == INLET_TYPE_STRING) rc = ex_cast_to(ps, &a, &dbl, false);
  if (rc == 0 && b->type.id == INLET_TYPE_STRING) rc = ex_cast_to(ps, &b, &dbl, false);
  if (rc < 0) goto fail;
  for (int i = 0; i < 2; i++) {
    const expr_node *x = i ? b : a;
    if (!ex_is_numeric(&x->type)) {
      char tn[64];
      ex_type_name(x, tn, sizeof tn);
      rc = ex_perr(ps, INLET_EINVAL, x->pos, "arithmetic on %s is not supported", tn);
      goto fail;
    }
  }
  inlet_type c = numeric_common(&a->type, &b->type), t;
  if (aop == '/' && c.id != INLET_TYPE_DECIMAL) c = dbl; /* integer / integer is a double */
  if (aop == 'D') {
    if (c.id == INLET_TYPE_DOUBLE) {
      rc = ex_perr(ps, INLET_EINVAL, pos, "DIV needs integers or decimals");
      goto fail;
    }
    t = t_of(INLET_TYPE_INT64);
  } else if (c.id == INLET_TYPE_DECIMAL) {
    inlet_type x = as_dec(&a->type), y = as_dec(&b->type);
    int p, s;
    ex_dec_result_type(aop, x.precision, x.scale, y.precision, y.scale, &p, &s);
    t = t_dec(p, s);
  } else {
    t = c;
  }
  if (c.id == INLET_TYPE_DECIMAL) {
    inlet_type x = as_dec(&a->type), y = as_dec(&b->type);
    rc = ex_cast_to(ps, &a, &x, false);
    if (rc == 0) rc = ex_cast_to(ps, &b, &y, false);
  } else if (c.id == INLET_TYPE_DOUBLE) {
    rc = ex_cast_to(ps, &a, &dbl, false);
    if (rc == 0) rc = ex_cast_to(ps, &b, &dbl, false);
  } else if (c.id == INLET_TYPE_UINT64) {
    inlet_type d = t_dec(20, 0);
    rc = ex_cast_to(ps, &a, &d, false);
    if (rc == 0) rc = ex_cast_to(ps, &b, &d, false);
    int p, s;
    if (aop != 'D') {
      ex_dec_result_type(aop, 20, 0, 20, 0, &p, &s);
      t = t_dec(p, s);
    }
  }
  if (rc < 0) goto fail;
  expr_node *n = ex_new_node(ps, V_ARITH, a->pos, b->end);
  if (!n) {
    rc = INLET_ENOMEM;
    goto fail;
  }
  n->aop = aop;
  n->a = a;
  n->b = b;
  n->type = t;
  n->vk = ex_vk_of(&t);
  *out = n;
  return 0;
fail:
  expr_node_free(a);
  expr_node_free(b);
  return rc;
}

/* ---- predicates, CASE ---------------------------------------------------------------------- */

int ex_to_pred(parser *ps, expr_node **np) {
  TRY(ex_settle(ps, np, NULL));
  expr_node *n = *np;
  if (n->kind == V_COL && n->n_path == 0 && n->type.id == INLET_TYPE_BOOL) {
    /* A bare boolean column is the predicate `col = true`. */
    expr_node *m = ex_new_node(ps, N_CMP, n->pos, n->end);
    if (!m) return INLET_ENOMEM;
    m->col = n->col;
    m->op = OP_EQ;
    m->ck = EXK_I64;
    m->vk = VK_BOOL;
    m->type = n->type;
    const inlet_field *f = &ps->schema->fields[n->col];
    int rc = inlet_array_init(&m->lits, f, ps->err);
    if (rc == 0) rc = inlet_array_append_bool(&m->lits, true, ps->err);
    if (rc < 0) {
      expr_node_free(m);
      return rc;
    }
    expr_node_free(n);
    *np = m;
    return 0;
  }
  if (n->vk == VK_BOOL && n->type.id == INLET_TYPE_BOOL) return 0;
  const tok *t = cur(ps);
  if (t->kind == T_END)
    return ex_perr(ps, INLET_EINVAL, t->pos,
                   "expected a comparison, IN, BETWEEN or IS [NOT] NULL, found the end of the "
                   "expression");
  return ex_perr(ps, INLET_EINVAL, t->pos,
                 "expected a comparison, IN, BETWEEN or IS [NOT] NULL, found '%.*s'",
                 (int)(t->len > 40 ? 40 : t->len), ps->src + t->pos);
}

static int require_bool(parser *ps, expr_node **np, const char *what) {
  TRY(ex_settle(ps, np, NULL));
  expr_node *n = *np;
  if (n->kind == N_CONST && n->constv == EXPR_NULL) return 0;
  if (n->vk == VK_BOOL && n->type.id == INLET_TYPE_BOOL) return 0;
  char tn[64];
  ex_type_name(n, tn, sizeof tn);
  return ex_perr(ps, INLET_EINVAL, n->pos, "%s must be a boolean, not %s", what, tn);
}

int ex_type_case(parser *ps, expr_node *n) {
  int32_t nres = n->has_else ? n->n_args - 1 : n->n_args;
  for (int32_t i = 0; i < nres; i += 2)
    TRY(require_bool(ps, &n->args[i], "a WHEN condition"));
  /* results: odd positions, then ELSE */
  expr_node **tmp = inlet_calloc((size_t)n->n_args + 1, sizeof *tmp);
  if (!tmp) return inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
  int32_t k = 0;
  for (int32_t i = 1; i < nres; i += 2)
    tmp[k++] = n->args[i];
  if (n->has_else) tmp[k++] = n->args[n->n_args - 1];
  int rc = unify_results(ps, tmp, 0, k, 1, "CASE");
  k = 0;
  for (int32_t i = 1; i < nres; i += 2)
    n->args[i] = tmp[k++];
  if (n->has_else) n->args[n->n_args - 1] = tmp[k++];
  inlet_free(tmp);
  if (rc < 0) return rc;
  n->type = n->args[1]->type;
  n->vk = n->args[1]->vk;
  return 0;
}

/* ---- types by name (CAST) ----------------------------------------------------------------- */

int ex_parse_type(parser *ps, size_t pos, const char *s, size_t n, inlet_type *out) {
  char b[64];
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < sizeof b; i++)
    if (!isspace((unsigned char)s[i])) b[k++] = (char)tolower((unsigned char)s[i]);
  b[k] = 0;
  static const struct {
    const char *name;
    inlet_type_id id;
  } simple[] = {
      {"boolean", INLET_TYPE_BOOL},  {"bool", INLET_TYPE_BOOL},      {"tinyint", INLET_TYPE_INT8},
      {"byte", INLET_TYPE_INT8},     {"smallint", INLET_TYPE_INT16}, {"short", INLET_TYPE_INT16},
      {"int", INLET_TYPE_INT32},     {"integer", INLET_TYPE_INT32},  {"bigint", INLET_TYPE_INT64},
      {"long", INLET_TYPE_INT64},    {"float", INLET_TYPE_FLOAT},    {"real", INLET_TYPE_FLOAT},
      {"double", INLET_TYPE_DOUBLE}, {"string", INLET_TYPE_STRING},  {"binary", INLET_TYPE_BINARY},
      {"date", INLET_TYPE_DATE}};
  for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
    if (strcmp(b, simple[i].name) == 0) {
      *out = t_of(simple[i].id);
      return 0;
    }
  if (strcmp(b, "timestamp") == 0 || strcmp(b, "timestamp_ltz") == 0 ||
      strcmp(b, "timestamp_ntz") == 0) {
    *out = t_of(INLET_TYPE_TIMESTAMP);
    out->unit = INLET_UNIT_MICRO;
    out->utc = strcmp(b, "timestamp_ntz") != 0;
    return 0;
  }
  if (strncmp(b, "varchar(", 8) == 0 || strncmp(b, "char(", 5) == 0) {
    *out = t_of(INLET_TYPE_STRING);
    return 0;
  }
  const char *d = strncmp(b, "decimal", 7) == 0   ? b + 7
                  : strncmp(b, "numeric", 7) == 0 ? b + 7
                  : strncmp(b, "dec", 3) == 0     ? b + 3
                                                  : NULL;
  if (d) {
    int p = 10, sc = 0, used = 0;
    if (*d == 0 || (sscanf(d, "(%d)%n", &p, &used) == 1 && d[used] == 0) ||
        (sscanf(d, "(%d,%d)%n", &p, &sc, &used) == 2 && d[used] == 0)) {
      if (p >= 1 && p <= 38 && sc >= 0 && sc <= p) {
        *out = t_dec(p, sc);
        return 0;
      }
      return ex_perr(ps, INLET_EINVAL, pos, "decimal(%d,%d) is not a valid type", p, sc);
    }
  }
  return ex_perr(ps, INLET_EUNSUPPORTED, pos, "cannot cast to type \"%.*s\"",
                 (int)(n > 60 ? 60 : n), s);
}

/* ---- functions ------------------------------------------------------------------------------ */

static const struct fn_def {
  const char *name;
  ex_fn fn;
  int min_args, max_args; /* max -1: any */
} FUNCS[] = {
    {"length", FN_LENGTH, 1, 1},
    {"char_length", FN_LENGTH, 1, 1},
    {"character_length", FN_LENGTH, 1, 1},
    {"lower", FN_LOWER, 1, 1},
    {"lcase", FN_LOWER, 1, 1},
    {"upper", FN_UPPER, 1, 1},
    {"ucase", FN_UPPER, 1, 1},
    {"trim", FN_TRIM, 1, 1},
    {"ltrim", FN_LTRIM, 1, 1},
    {"rtrim", FN_RTRIM, 1, 1},
    {"substring", FN_SUBSTRING, 2, 3},
    {"substr", FN_SUBSTRING, 2, 3},
    {"left", FN_LEFT, 2, 2},
    {"right", FN_RIGHT, 2, 2},
    {"concat", FN_CONCAT, 1, -1},
    {"startswith", FN_STARTSWITH, 2, 2},
    {"endswith", FN_ENDSWITH, 2, 2},
    {"contains", FN_CONTAINS, 2, 2},
    {"abs", FN_ABS, 1, 1},
    {"coalesce", FN_COALESCE, 1, -1},
    {"nvl", FN_COALESCE, 2, 2},
    {"ifnull", FN_COALESCE, 2, 2},
    {"nullif", FN_NULLIF, 2, 2},
    {"if", FN_IF, 3, 3},
    {"iff", FN_IF, 3, 3},
    {"isnull", FN_ISNULL, 1, 1},
    {"isnotnull", FN_ISNOTNULL, 1, 1},
    {"greatest", FN_GREATEST, 2, -1},
    {"least", FN_LEAST, 2, -1},
    {"size", FN_SIZE, 1, 1},
    {"cardinality", FN_SIZE, 1, 1},
    {"array_size", FN_SIZE, 1, 1},
    {"year", FN_YEAR, 1, 1},
    {"month", FN_MONTH, 1, 1},
    {"day", FN_DAY, 1, 1},
    {"dayofmonth", FN_DAY, 1, 1},
    {"hour", FN_HOUR, 1, 1},
    {"minute", FN_MINUTE, 1, 1},
    {"second", FN_SECOND, 1, 1},
};

static int arg_cast(parser *ps, expr_node *n, int32_t i, inlet_type_id id) {
  inlet_type t = t_of(id);
  return ex_cast_to(ps, &n->args[i], &t, false);
}

/* current_date() and friends: Spark's analyzer evaluates them once per
 * query, so here once per parse (the write that checks the constraint). */
static int fold_now(parser *ps, expr_node *n, const char *name) {
  bool date = strcasecmp(name, "current_date") == 0 || strcasecmp(name, "curdate") == 0;
  bool unix = strcasecmp(name, "unix_timestamp") == 0;
  bool ts = strcasecmp(name, "current_timestamp") == 0 || strcasecmp(name, "now") == 0 ||
            strcasecmp(name, "localtimestamp") == 0;
  if (!date && !unix && !ts) return 1;
  if (n->n_args != 0)
    return ex_perr(ps, INLET_EUNSUPPORTED, n->pos, "%s with arguments is not supported", name);
  char text[40];
  inlet_type t;
  int64_t us = ps->now_us;
  if (date) {
    int64_t d = us >= 0 ? us / 86400000000LL : -((-us - 1) / 86400000000LL) - 1;
    snprintf(text, sizeof text, "%lld", (long long)d);
    t = t_of(INLET_TYPE_DATE);
  } else if (unix) {
    snprintf(text, sizeof text, "%lld", (long long)(us / 1000000));
    t = t_of(INLET_TYPE_INT64);
  } else {
    snprintf(text, sizeof text, "%lld", (long long)us);
    t = t_of(INLET_TYPE_TIMESTAMP);
    t.unit = INLET_UNIT_MICRO;
    t.utc = true;
  }
  n->kind = V_LIT;
  char reason[384];
  int rc = lit_set(ps, n, &t, text, strlen(text), reason, sizeof reason);
  if (rc == INLET_EINVAL) rc = inlet_fail(ps->err, INLET_EINTERNAL, "%s: %s", name, reason);
  return rc;
}

int ex_type_function(parser *ps, expr_node *n, const char *name) {
  int folded = fold_now(ps, n, name);
  if (folded <= 0) return folded;
  const struct fn_def *d = NULL;
  for (size_t i = 0; i < sizeof FUNCS / sizeof FUNCS[0] && !d; i++)
    if (strcasecmp(FUNCS[i].name, name) == 0) d = &FUNCS[i];
  if (!d) {
    static const char *const nondet[] = {
        "rand", "random", "randn", "uuid", "shuffle", "monotonically_increasing_id", NULL};
    for (const char *const *k = nondet; *k; k++)
      if (strcasecmp(*k, name) == 0)
        return ex_perr(ps, INLET_EUNSUPPORTED, n->pos,
                       "%s() is not deterministic and cannot be checked", name);
    return ex_perr(ps, INLET_EUNSUPPORTED, n->pos, "unknown function %s()", name);
  }
  if (n->n_args < d->min_args || (d->max_args >= 0 && n->n_args > d->max_args)) {
    char want[40];
    if (d->max_args < 0)
      snprintf(want, sizeof want, "at least %d", d->min_args);
    else if (d->max_args > d->min_args)
      snprintf(want, sizeof want, "%d to %d", d->min_args, d->max_args);
    else
      snprintf(want, sizeof want, "%d", d->min_args);
    return ex_perr(ps, INLET_EINVAL, n->pos, "%s() takes %s argument(s), not %d", name, want,
                   (int)n->n_args);
  }
  n->fn = d->fn;
  int rc = 0;
  switch (d->fn) {
  case FN_LENGTH:
    TRY(ex_settle(ps, &n->args[0], NULL));
    if (n->args[0]->type.id != INLET_TYPE_BINARY && n->args[0]->type.id != INLET_TYPE_FIXED_BINARY)
      TRY(arg_cast(ps, n, 0, INLET_TYPE_STRING));
    n->type = t_of(INLET_TYPE_INT32);
    break;
  case FN_LOWER:
  case FN_UPPER:
  case FN_TRIM:
  case FN_LTRIM:
  case FN_RTRIM:
    TRY(arg_cast(ps, n, 0, INLET_TYPE_STRING));
    n->type = t_of(INLET_TYPE_STRING);
    break;
  case FN_SUBSTRING:
  case FN_LEFT:
  case FN_RIGHT:
    TRY(arg_cast(ps, n, 0, INLET_TYPE_STRING));
    for (int32_t i = 1; i < n->n_args; i++) {
      TRY(ex_settle(ps, &n->args[i], NULL));
      if (!is_int(n->args[i]->type.id) &&
          !(n->args[i]->kind == N_CONST && n->args[i]->constv == EXPR_NULL))
        return ex_perr(ps, INLET_EINVAL, n->args[i]->pos, "%s() needs an integer here", name);
      TRY(arg_cast(ps, n, i, INLET_TYPE_INT64));
    }
    n->type = t_of(INLET_TYPE_STRING);
    break;
  case FN_CONCAT:
    for (int32_t i = 0; i < n->n_args; i++)
      TRY(arg_cast(ps, n, i, INLET_TYPE_STRING));
    n->type = t_of(INLET_TYPE_STRING);
    break;
  case FN_STARTSWITH:
  case FN_ENDSWITH:
  case FN_CONTAINS:
    TRY(arg_cast(ps, n, 0, INLET_TYPE_STRING));
    TRY(arg_cast(ps, n, 1, INLET_TYPE_STRING));
    n->type = t_of(INLET_TYPE_BOOL);
    break;
  case FN_ABS:
    TRY(ex_settle(ps, &n->args[0], NULL));
    if (!ex_is_numeric(&n->args[0]->type))
      return ex_perr(ps, INLET_EINVAL, n->args[0]->pos, "abs() needs a number");
    n->type = n->args[0]->type;
    if (is_int(n->type.id) && n->type.id != INLET_TYPE_UINT64) n->type = t_of(INLET_TYPE_INT64);
    if (n->type.id == INLET_TYPE_FLOAT) n->type = t_of(INLET_TYPE_DOUBLE);
    if (!same_type(&n->type, &n->args[0]->type) && n->type.id != INLET_TYPE_INT64)
      TRY(ex_cast_to(ps, &n->args[0], &n->type, false));
    break;
  case FN_COALESCE:
  case FN_NULLIF:
  case FN_GREATEST:
  case FN_LEAST:
    TRY(unify_results(ps, n->args, 0, n->n_args, 1, name));
    n->type = n->args[0]->type;
    if (n->args[0]->vk == VK_LOC)
      return ex_perr(ps, INLET_EUNSUPPORTED, n->pos, "%s() of nested values", name);
    break;
  case FN_IF:
    TRY(require_bool(ps, &n->args[0], "the condition of if()"));
    TRY(unify_results(ps, n->args, 1, 3, 1, name));
    n->type = n->args[1]->type;
    break;
  case FN_ISNULL:
  case FN_ISNOTNULL:
    TRY(ex_settle(ps, &n->args[0], NULL));
    n->type = t_of(INLET_TYPE_BOOL);
    break;
  case FN_SIZE:
    TRY(ex_settle(ps, &n->args[0], NULL));
    if (n->args[0]->vk != VK_LOC ||
        (n->args[0]->type.id != INLET_TYPE_LIST && n->args[0]->type.id != INLET_TYPE_MAP))
      return ex_perr(ps, INLET_EINVAL, n->args[0]->pos, "%s() needs an array or a map", name);
    n->type = t_of(INLET_TYPE_INT32);
    break;
  case FN_YEAR:
  case FN_MONTH:
  case FN_DAY:
    TRY(ex_settle(ps, &n->args[0], NULL));
    if (n->args[0]->type.id != INLET_TYPE_DATE) TRY(arg_cast(ps, n, 0, INLET_TYPE_DATE));
    n->type = t_of(INLET_TYPE_INT32);
    break;
  default: { /* FN_HOUR, FN_MINUTE, FN_SECOND */
    TRY(ex_settle(ps, &n->args[0], NULL));
    if (n->args[0]->type.id != INLET_TYPE_TIMESTAMP) {
      inlet_type t = t_of(INLET_TYPE_TIMESTAMP);
      t.unit = INLET_UNIT_MICRO;
      t.utc = true;
      TRY(ex_cast_to(ps, &n->args[0], &t, false));
    }
    n->type = t_of(INLET_TYPE_INT32);
    break;
  }
  }
  n->vk = ex_vk_of(&n->type);
  return rc;
}
