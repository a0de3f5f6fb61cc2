/*
 * The expression evaluator: a typed tree over a range of rows of a batch,
 * one vector per node, with SQL three-valued logic (Kleene AND/OR/NOT,
 * NULL comparisons yield NULL, `x IN (1, NULL)` is NULL rather than FALSE
 * when x is not 1). Comparisons of a top-level column with a literal keep
 * a tight loop over the column's own buffer (what scans filter with).
 */
#include <math.h>

#include "expr/eval_int.h"

/* ---- arena -------------------------------------------------------------------- */

struct ex_block {
  ex_block *next;
  size_t cap, used;
  _Alignas(16) unsigned char data[];
};

int ex_oom(ex_ctx *c) {
  return inlet_fail(c->err, INLET_ENOMEM, "out of memory evaluating a predicate");
}

void *ex_alloc(ex_ctx *c, size_t bytes, bool zero) {
  bytes = (bytes + 15) & ~(size_t)15;
  if (bytes == 0) bytes = 16;
  ex_block *b = c->blocks;
  if (!b || b->cap - b->used < bytes) {
    size_t cap = b ? b->cap * 2 : 4096;
    if (cap < bytes) cap = bytes;
    if (cap > ((size_t)64 << 20) && bytes < cap)
      cap = bytes > ((size_t)64 << 20) ? bytes : (size_t)64 << 20;
    ex_block *nb = inlet_malloc(sizeof *nb + cap);
    if (!nb) {
      ex_oom(c);
      return NULL;
    }
    nb->next = b;
    nb->cap = cap;
    nb->used = 0;
    c->blocks = b = nb;
  }
  void *p = b->data + b->used;
  b->used += bytes;
  if (zero) memset(p, 0, bytes);
  return p;
}

/* Makes the arena's memory reusable for the next chunk of rows, as one
 * block big enough for what the previous chunk took. */
static void arena_reset(ex_ctx *c) {
  ex_block *b = c->blocks;
  if (!b) return;
  if (!b->next) {
    b->used = 0;
    return;
  }
  size_t total = 0;
  for (ex_block *x = b, *nx; x; x = nx) {
    nx = x->next;
    total += x->cap;
    inlet_free(x);
  }
  c->blocks = inlet_malloc(sizeof *c->blocks + total);
  if (c->blocks) {
    c->blocks->next = NULL;
    c->blocks->cap = total;
    c->blocks->used = 0;
  }
}

static void arena_free(ex_ctx *c) {
  for (ex_block *b = c->blocks, *nx; b; b = nx) {
    nx = b->next;
    inlet_free(b);
  }
  c->blocks = NULL;
}

int ex_vec_new(ex_ctx *c, ex_vk vk, ex_vec *out) {
  memset(out, 0, sizeof *out);
  size_t n = (size_t)c->n;
  size_t w = vk == VK_BOOL ? 1 : vk == VK_DEC ? 16 : vk == VK_STR ? sizeof(ex_str) : 8;
  void *v = ex_alloc(c, n * w, true);
  if (!v) return INLET_ENOMEM;
  out->v.b = v;
  if (vk != VK_BOOL) {
    out->nul = ex_alloc(c, n, true);
    if (!out->nul) return INLET_ENOMEM;
  }
  return 0;
}

/* ---- comparisons ------------------------------------------------------------------ */

static int cmp_f64(double x, double y) {
  bool nx = isnan(x), ny = isnan(y);
  if (nx || ny) return nx && ny ? 0 : nx ? 1 : -1;
  return x < y ? -1 : x > y;
}

int ex_cmp_rows(ex_vk vk, const ex_vec *x, const inlet_type *tx, int64_t ra, const ex_vec *y,
                const inlet_type *ty, int64_t rb) {
  switch (vk) {
  case VK_BOOL: return (x->v.b[ra] > y->v.b[rb]) - (x->v.b[ra] < y->v.b[rb]);
  case VK_I64: return (x->v.i[ra] > y->v.i[rb]) - (x->v.i[ra] < y->v.i[rb]);
  case VK_U64: return (x->v.u[ra] > y->v.u[rb]) - (x->v.u[ra] < y->v.u[rb]);
  case VK_F64: return cmp_f64(x->v.d[ra], y->v.d[rb]);
  case VK_DEC: return ex_dec_cmp(x->v.q[ra], tx->scale, y->v.q[rb], ty->scale);
  case VK_STR: {
    const ex_str *a = &x->v.s[ra], *b = &y->v.s[rb];
    int64_t m = a->n < b->n ? a->n : b->n;
    int k = m ? memcmp(a->p, b->p, (size_t)m) : 0;
    if (k) return k < 0 ? -1 : 1;
    return (a->n > b->n) - (a->n < b->n);
  }
  default: return 0;
  }
}

void ex_copy_row(ex_vk vk, ex_vec *dst, int64_t rd, const ex_vec *src, int64_t rs) {
  if (vk == VK_BOOL) {
    dst->v.b[rd] = src->v.b[rs];
    return;
  }
  bool null = src->nul && src->nul[rs];
  dst->nul[rd] = null;
  if (null) return;
  switch (vk) {
  case VK_I64: dst->v.i[rd] = src->v.i[rs]; break;
  case VK_U64: dst->v.u[rd] = src->v.u[rs]; break;
  case VK_F64: dst->v.d[rd] = src->v.d[rs]; break;
  case VK_DEC: dst->v.q[rd] = src->v.q[rs]; break;
  case VK_STR: dst->v.s[rd] = src->v.s[rs]; break;
  default: break;
  }
}

static bool op_holds(expr_op op, int c) {
  switch (op) {
  case OP_EQ:
  case OP_NSEQ: return c == 0;
  case OP_NE: return c != 0;
  case OP_LT: return c < 0;
  case OP_LE: return c <= 0;
  case OP_GT: return c > 0;
  default: return c >= 0;
  }
}

/* Fast path: int64-backed columns (long, timestamp) against one literal. */
static void cmp_i64_vec(const int64_t *v, int64_t n, expr_op op, int64_t lit, uint8_t *out) {
  switch (op) {
  case OP_EQ:
    for (int64_t r = 0; r < n; r++)
      out[r] = v[r] == lit;
    break;
  case OP_NE:
    for (int64_t r = 0; r < n; r++)
      out[r] = v[r] != lit;
    break;
  case OP_LT:
    for (int64_t r = 0; r < n; r++)
      out[r] = v[r] < lit;
    break;
  case OP_LE:
    for (int64_t r = 0; r < n; r++)
      out[r] = v[r] <= lit;
    break;
  case OP_GT:
    for (int64_t r = 0; r < n; r++)
      out[r] = v[r] > lit;
    break;
  default:
    for (int64_t r = 0; r < n; r++)
      out[r] = v[r] >= lit;
    break;
  }
}

/* ---- loading values ------------------------------------------------------------------ */

int ex_load(ex_ctx *c, const inlet_array *a, const inlet_type *t, const int64_t *idx,
            bool broadcast, const uint8_t *pre, ex_vec *out) {
  ex_vk vk = ex_vk_of(t);
  int64_t n = c->n;
  expr_kind k = expr_kind_of(t);
  /* The common case: a top-level 8-byte column read in place. */
  if (!idx && !broadcast && !pre && vk == VK_I64 && a->values && t->id != INLET_TYPE_BOOL &&
      inlet_type_value_width(t) == 8) {
    memset(out, 0, sizeof *out);
    out->v.i = (int64_t *)a->values + c->base;
    if (a->validity && a->null_count != 0) {
      out->nul = ex_alloc(c, (size_t)n, false);
      if (!out->nul) return INLET_ENOMEM;
      for (int64_t r = 0; r < n; r++)
        out->nul[r] = !inlet_bit_get(a->validity, c->base + r);
    }
    return 0;
  }
  TRY(ex_vec_new(c, vk, out));
  bool no_values = !a->values && vk != VK_STR && vk != VK_BOOL;
  for (int64_t r = 0; r < n; r++) {
    int64_t i = broadcast ? 0 : idx ? idx[r] : c->base + r;
    bool null = (pre && pre[r]) || i < 0 || !inlet_array_is_valid(a, i) || no_values ||
                (vk == VK_BOOL && !a->values);
    if (vk == VK_BOOL) {
      out->v.b[r] = null ? EXPR_NULL : (uint8_t)inlet_bit_get(a->values, i);
      continue;
    }
    if (null) {
      out->nul[r] = 1;
      continue;
    }
    expr_value v;
    expr_value_get(&v, k, t, a, i);
    switch (vk) {
    case VK_I64: out->v.i[r] = v.i; break;
    case VK_U64: out->v.u[r] = v.u; break;
    case VK_F64: out->v.d[r] = v.d; break;
    case VK_DEC: out->v.q[r] = v.q; break;
    case VK_STR:
      out->v.s[r].p = v.p;
      out->v.s[r].n = (int64_t)v.n;
      break;
    default: break;
    }
  }
  return 0;
}

/* Marks rows whose element of @p a (idx / base) is null. */
static int or_validity(ex_ctx *c, uint8_t **nul, const inlet_array *a, const int64_t *idx) {
  if (!a->validity || a->null_count == 0) return 0;
  if (!*nul) {
    *nul = ex_alloc(c, (size_t)c->n, true);
    if (!*nul) return INLET_ENOMEM;
  }
  for (int64_t r = 0; r < c->n; r++) {
    int64_t i = idx ? idx[r] : c->base + r;
    if (i >= 0 && !inlet_bit_get(a->validity, i)) (*nul)[r] = 1;
  }
  return 0;
}

/* A nested value or, for scalar fields, its loaded values. */
static int finish_loc(ex_ctx *c, const expr_node *n, const inlet_array *a, const int64_t *idx,
                      uint8_t *nul, ex_vec *out) {
  if (n->vk != VK_LOC) return ex_load(c, a, &n->type, idx, false, nul, out);
  TRY(or_validity(c, &nul, a, idx));
  memset(out, 0, sizeof *out);
  out->nul = nul;
  out->arr = a;
  out->f = n->field;
  out->idx = idx;
  return 0;
}

static int eval_col(ex_ctx *c, const expr_node *n, ex_vec *out) {
  const inlet_array *a = &c->b->columns[n->col];
  if (n->n_path == 0 && n->vk != VK_LOC) return ex_load(c, a, &n->type, NULL, false, NULL, out);
  uint8_t *nul = NULL;
  for (int32_t i = 0; i < n->n_path; i++) {
    TRY(or_validity(c, &nul, a, NULL)); /* a null struct makes its fields null */
    a = &a->children[n->path[i]];
  }
  return finish_loc(c, n, a, NULL, nul, out);
}

static int eval_field(ex_ctx *c, const expr_node *n, ex_vec *out) {
  ex_vec s;
  TRY(ex_eval(c, n->a, &s));
  uint8_t *nul = ex_alloc(c, (size_t)c->n, true);
  if (!nul) return INLET_ENOMEM;
  if (s.nul) memcpy(nul, s.nul, (size_t)c->n);
  return finish_loc(c, n, &s.arr->children[n->path[0]], s.idx, nul, out);
}

static int eval_index(ex_ctx *c, const expr_node *n, ex_vec *out) {
  ex_vec x, k;
  TRY(ex_eval(c, n->a, &x));
  TRY(ex_eval(c, n->b, &k));
  int64_t *idx = ex_alloc(c, (size_t)c->n * sizeof *idx, false);
  uint8_t *nul = ex_alloc(c, (size_t)c->n, true);
  if (!idx || !nul) return INLET_ENOMEM;
  const inlet_array *a = x.arr;
  const inlet_array *entries = &a->children[0];
  bool map = x.f->type.id == INLET_TYPE_MAP;
  const inlet_array *keys = map ? &entries->children[0] : NULL;
  const inlet_field *kf = map ? &x.f->children[0].children[0] : NULL;
  expr_kind kk = map ? expr_kind_of(&kf->type) : EXK_NONE;
  ex_vk kvk = n->b->vk;
  for (int64_t r = 0; r < c->n; r++) {
    idx[r] = -1;
    if (ex_isnull(&x, VK_LOC, r) || ex_isnull(&k, kvk, r)) {
      nul[r] = 1;
      continue;
    }
    int64_t e = x.idx ? x.idx[r] : c->base + r;
    int64_t lo = a->offsets[e], hi = a->offsets[e + 1];
    if (!map) {
      int64_t i = k.v.i[r];
      /* Out of range is NULL (Spark raises an error in ANSI mode). */
      if (i < 0 || i >= hi - lo)
        nul[r] = 1;
      else
        idx[r] = lo + i;
      continue;
    }
    expr_value want;
    memset(&want, 0, sizeof want);
    switch (kvk) {
    case VK_I64: want.i = k.v.i[r]; break;
    case VK_U64: want.u = k.v.u[r]; break;
    case VK_F64: want.d = k.v.d[r]; break;
    case VK_DEC: want.q = k.v.q[r]; break;
    case VK_STR:
      want.p = k.v.s[r].p;
      want.n = (size_t)k.v.s[r].n;
      break;
    default: want.i = k.v.b[r] == EXPR_TRUE; break;
    }
    nul[r] = 1;
    for (int64_t j = lo; j < hi && kk != EXK_NONE; j++) {
      if (!inlet_array_is_valid(keys, j)) continue;
      expr_value got;
      expr_value_get(&got, kk, &kf->type, keys, j);
      if (expr_value_cmp(kk, &got, &want) == 0) {
        idx[r] = j;
        nul[r] = 0;
        break;
      }
    }
  }
  const inlet_array *elems = map ? &entries->children[1] : entries;
  return finish_loc(c, n, elems, idx, nul, out);
}

/* ---- arithmetic ------------------------------------------------------------------------ */

static int eval_arith(ex_ctx *c, const expr_node *n, ex_vec *out) {
  ex_vec x, y;
  TRY(ex_eval(c, n->a, &x));
  TRY(ex_eval(c, n->b, &y));
  TRY(ex_vec_new(c, n->vk, out));
  ex_vk in = n->a->vk;
  int op = n->aop;
  int sa = n->a->type.scale, sb = n->b->type.scale;
  for (int64_t r = 0; r < c->n; r++) {
    if (ex_isnull(&x, in, r) || ex_isnull(&y, n->b->vk, r)) {
      out->nul[r] = 1;
      continue;
    }
    bool ok = true;
    if (in == VK_I64) {
      int64_t a = x.v.i[r], b = y.v.i[r], v = 0;
      switch (op) {
      case '+': ok = !__builtin_add_overflow(a, b, &v); break;
      case '-': ok = !__builtin_sub_overflow(a, b, &v); break;
      case '*': ok = !__builtin_mul_overflow(a, b, &v); break;
      case '%': ok = b != 0, v = ok ? (b == -1 ? 0 : a % b) : 0; break;
      default: /* DIV */ ok = b != 0 && !(a == INT64_MIN && b == -1), v = ok ? a / b : 0; break;
      }
      out->v.i[r] = v;
    } else if (in == VK_F64) {
      double a = x.v.d[r], b = y.v.d[r], v;
      switch (op) {
      case '+': v = a + b; break;
      case '-': v = a - b; break;
      case '*': v = a * b; break;
      case '/': ok = b != 0, v = ok ? a / b : 0; break;
      default: ok = b != 0, v = ok ? fmod(a, b) : 0; break;
      }
      out->v.d[r] = v;
    } else { /* decimals */
      expr_i128 a = x.v.q[r], b = y.v.q[r], v = 0;
      int p = n->type.precision, s = n->type.scale;
      switch (op) {
      case '+':
      case '-': ok = ex_dec_add(a, sa, b, sb, op == '-', p, s, &v); break;
      case '*': ok = ex_dec_mul(a, sa, b, sb, p, s, &v); break;
      case '/': ok = ex_dec_div(a, sa, b, sb, p, s, &v); break;
      case '%': ok = ex_dec_mod(a, sa, b, sb, p, s, &v); break;
      default: { /* DIV: the quotient truncated to a bigint */
        int m = sa > sb ? sa : sb;
        expr_i128 xa, yb;
        ok = ex_dec_rescale(a, sa, m, &xa) && ex_dec_rescale(b, sb, m, &yb) && yb != 0;
        if (ok) {
          expr_i128 q = xa / yb;
          ok = q >= INT64_MIN && q <= INT64_MAX;
          out->v.i[r] = (int64_t)q;
        }
        if (!ok) out->nul[r] = 1;
        continue;
      }
      }
      out->v.q[r] = v;
    }
    if (!ok) out->nul[r] = 1;
  }
  return 0;
}

static int eval_neg(ex_ctx *c, const expr_node *n, ex_vec *out) {
  ex_vec x;
  TRY(ex_eval(c, n->a, &x));
  TRY(ex_vec_new(c, n->vk, out));
  for (int64_t r = 0; r < c->n; r++) {
    if (ex_isnull(&x, n->a->vk, r) || (n->vk == VK_I64 && x.v.i[r] == INT64_MIN)) {
      out->nul[r] = 1;
      continue;
    }
    if (n->vk == VK_I64)
      out->v.i[r] = -x.v.i[r];
    else if (n->vk == VK_F64)
      out->v.d[r] = -x.v.d[r];
    else
      out->v.q[r] = -x.v.q[r];
  }
  return 0;
}

/* ---- predicates -------------------------------------------------------------------------- */

static uint8_t kleene_and(uint8_t a, uint8_t b) {
  return (a == EXPR_FALSE || b == EXPR_FALSE) ? EXPR_FALSE
         : (a == EXPR_NULL || b == EXPR_NULL) ? EXPR_NULL
                                              : EXPR_TRUE;
}

static uint8_t kleene_or(uint8_t a, uint8_t b) {
  return (a == EXPR_TRUE || b == EXPR_TRUE)   ? EXPR_TRUE
         : (a == EXPR_NULL || b == EXPR_NULL) ? EXPR_NULL
                                              : EXPR_FALSE;
}

static int eval_cmp_col(ex_ctx *c, const expr_node *nd, uint8_t *out) {
  const inlet_field *f = &c->p->schema.fields[nd->col];
  const inlet_array *a = &c->b->columns[nd->col];
  int64_t n = c->n, base = c->base;
  expr_value lit, v;
  if ((a->length > 0 && a->null_count >= a->length) || (!a->values && nd->ck != EXK_BYTES)) {
    memset(out, EXPR_NULL, (size_t)n);
    return 0;
  }
  expr_value_get(&lit, nd->ck, &f->type, &nd->lits, 0);
  int32_t w = inlet_type_value_width(&f->type);
  if (nd->ck == EXK_I64 && w == 8 && f->type.id != INLET_TYPE_BOOL) {
    cmp_i64_vec((const int64_t *)a->values + base, n, nd->op, lit.i, out);
  } else {
    for (int64_t r = 0; r < n; r++) {
      expr_value_get(&v, nd->ck, &f->type, a, base + r);
      out[r] = op_holds(nd->op, expr_value_cmp(nd->ck, &v, &lit));
    }
  }
  if (a->validity && a->null_count != 0)
    for (int64_t r = 0; r < n; r++)
      if (!inlet_bit_get(a->validity, base + r)) out[r] = EXPR_NULL;
  return 0;
}

static int eval_in_col(ex_ctx *c, const expr_node *nd, uint8_t *out) {
  const inlet_field *f = &c->p->schema.fields[nd->col];
  const inlet_array *a = &c->b->columns[nd->col];
  expr_value v, lit;
  uint8_t miss = nd->in_has_null ? EXPR_NULL : (nd->negate ? EXPR_TRUE : EXPR_FALSE);
  uint8_t hit = nd->negate ? EXPR_FALSE : EXPR_TRUE;
  for (int64_t r = 0; r < c->n; r++) {
    if (!inlet_array_is_valid(a, c->base + r) || (!a->values && nd->ck != EXK_BYTES)) {
      out[r] = EXPR_NULL;
      continue;
    }
    expr_value_get(&v, nd->ck, &f->type, a, c->base + r);
    out[r] = miss;
    for (int64_t k = 0; k < nd->lits.length; k++) {
      expr_value_get(&lit, nd->ck, &f->type, &nd->lits, k);
      if (expr_value_cmp(nd->ck, &v, &lit) == 0) {
        out[r] = hit;
        break;
      }
    }
  }
  return 0;
}

static int eval_cmp2(ex_ctx *c, const expr_node *n, uint8_t *out) {
  ex_vec x, y;
  TRY(ex_eval(c, n->a, &x));
  TRY(ex_eval(c, n->b, &y));
  ex_vk vk = n->a->vk;
  for (int64_t r = 0; r < c->n; r++) {
    bool xn = ex_isnull(&x, vk, r), yn = ex_isnull(&y, n->b->vk, r);
    if (xn || yn) {
      out[r] = n->op == OP_NSEQ ? (xn && yn ? EXPR_TRUE : EXPR_FALSE) : EXPR_NULL;
      continue;
    }
    out[r] = op_holds(n->op, ex_cmp_rows(vk, &x, &n->a->type, r, &y, &n->b->type, r));
  }
  return 0;
}

static int eval_inx(ex_ctx *c, const expr_node *n, uint8_t *out) {
  ex_vec x;
  TRY(ex_eval(c, n->a, &x));
  ex_vec *items = ex_alloc(c, (size_t)n->n_args * sizeof *items, false);
  if (!items) return INLET_ENOMEM;
  for (int32_t i = 0; i < n->n_args; i++)
    TRY(ex_eval(c, n->args[i], &items[i]));
  ex_vk vk = n->a->vk;
  for (int64_t r = 0; r < c->n; r++) {
    if (ex_isnull(&x, vk, r)) {
      out[r] = EXPR_NULL;
      continue;
    }
    bool found = false, saw_null = false;
    for (int32_t i = 0; i < n->n_args && !found; i++) {
      if (ex_isnull(&items[i], n->args[i]->vk, r))
        saw_null = true;
      else
        found = ex_cmp_rows(vk, &x, &n->a->type, r, &items[i], &n->args[i]->type, r) == 0;
    }
    out[r] = found      ? (n->negate ? EXPR_FALSE : EXPR_TRUE)
             : saw_null ? EXPR_NULL
                        : (n->negate ? EXPR_TRUE : EXPR_FALSE);
  }
  return 0;
}

static int eval_between(ex_ctx *c, const expr_node *n, uint8_t *out) {
  ex_vec x, lo, hi;
  TRY(ex_eval(c, n->args[0], &x));
  TRY(ex_eval(c, n->args[1], &lo));
  TRY(ex_eval(c, n->args[2], &hi));
  const expr_node *a = n->args[0], *l = n->args[1], *h = n->args[2];
  for (int64_t r = 0; r < c->n; r++) {
    bool xn = ex_isnull(&x, a->vk, r);
    uint8_t ge = xn || ex_isnull(&lo, l->vk, r)
                     ? EXPR_NULL
                     : ex_cmp_rows(a->vk, &x, &a->type, r, &lo, &l->type, r) >= 0;
    uint8_t le = xn || ex_isnull(&hi, h->vk, r)
                     ? EXPR_NULL
                     : ex_cmp_rows(a->vk, &x, &a->type, r, &hi, &h->type, r) <= 0;
    uint8_t v = kleene_and(ge, le);
    out[r] = n->negate && v != EXPR_NULL ? !v : v;
  }
  return 0;
}

static int eval_case(ex_ctx *c, const expr_node *n, ex_vec *out) {
  TRY(ex_vec_new(c, n->vk, out));
  int32_t nres = n->has_else ? n->n_args - 1 : n->n_args;
  uint8_t *done = ex_alloc(c, (size_t)c->n, true);
  if (!done) return INLET_ENOMEM;
  for (int32_t i = 0; i < nres; i += 2) {
    ex_vec cond, val;
    TRY(ex_eval(c, n->args[i], &cond));
    TRY(ex_eval(c, n->args[i + 1], &val));
    for (int64_t r = 0; r < c->n; r++)
      if (!done[r] && cond.v.b[r] == EXPR_TRUE) {
        ex_copy_row(n->vk, out, r, &val, r);
        done[r] = 1;
      }
  }
  ex_vec els;
  if (n->has_else) TRY(ex_eval(c, n->args[n->n_args - 1], &els));
  for (int64_t r = 0; r < c->n; r++) {
    if (done[r]) continue;
    if (n->has_else)
      ex_copy_row(n->vk, out, r, &els, r);
    else if (n->vk == VK_BOOL)
      out->v.b[r] = EXPR_NULL;
    else
      out->nul[r] = 1;
  }
  return 0;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

static int eval_bool(ex_ctx *c, const expr_node *nd, ex_vec *out) {
  memset(out, 0, sizeof *out);
  out->v.b = ex_alloc(c, (size_t)c->n, false);
  if (!out->v.b) return INLET_ENOMEM;
  uint8_t *o = out->v.b;
  int64_t n = c->n;
  switch (nd->kind) {
  case N_CONST: memset(o, nd->constv, (size_t)n); return 0;
  case N_ISNULL: {
    if (!nd->a) {
      const inlet_array *a = &c->b->columns[nd->col];
      for (int64_t r = 0; r < n; r++)
        o[r] = inlet_array_is_valid(a, c->base + r) == nd->negate;
      return 0;
    }
    ex_vec x;
    TRY(ex_eval(c, nd->a, &x));
    for (int64_t r = 0; r < n; r++)
      o[r] = ex_isnull(&x, nd->a->vk, r) != nd->negate;
    return 0;
  }
  case N_ISBOOL: {
    ex_vec x;
    TRY(ex_eval(c, nd->a, &x));
    for (int64_t r = 0; r < n; r++) {
      bool v = x.v.b[r] == nd->constv;
      o[r] = v != nd->negate;
    }
    return 0;
  }
  case N_CMP: return eval_cmp_col(c, nd, o);
  case N_IN: return eval_in_col(c, nd, o);
  case N_CMP2: return eval_cmp2(c, nd, o);
  case N_INX: return eval_inx(c, nd, o);
  case N_BETWEEN: return eval_between(c, nd, o);
  case N_NOT: {
    ex_vec x;
    TRY(ex_eval(c, nd->a, &x));
    for (int64_t r = 0; r < n; r++)
      o[r] = x.v.b[r] == EXPR_NULL ? EXPR_NULL : !x.v.b[r];
    return 0;
  }
  case N_AND:
  case N_OR: {
    ex_vec x, y;
    TRY(ex_eval(c, nd->a, &x));
    TRY(ex_eval(c, nd->b, &y));
    if (nd->kind == N_AND)
      for (int64_t r = 0; r < n; r++)
        o[r] = kleene_and(x.v.b[r], y.v.b[r]);
    else
      for (int64_t r = 0; r < n; r++)
        o[r] = kleene_or(x.v.b[r], y.v.b[r]);
    return 0;
  }
  default: return inlet_fail(c->err, INLET_EINTERNAL, "unknown predicate node %d", (int)nd->kind);
  }
}

int ex_eval(ex_ctx *c, const expr_node *n, ex_vec *out) {
  switch (n->kind) {
  case V_COL: return eval_col(c, n, out);
  case V_LIT:
    if (n->lit_null) {
      TRY(ex_vec_new(c, n->vk, out));
      if (n->vk == VK_BOOL)
        memset(out->v.b, EXPR_NULL, (size_t)c->n);
      else
        memset(out->nul, 1, (size_t)c->n);
      return 0;
    }
    return ex_load(c, &n->lits, &n->type, NULL, true, NULL, out);
  case V_ARITH: return eval_arith(c, n, out);
  case V_NEG: return eval_neg(c, n, out);
  case V_CAST: {
    ex_vec x;
    TRY(ex_eval(c, n->a, &x));
    return ex_cast_vec(c, &x, &n->a->type, &n->type, out);
  }
  case V_FUNC: return ex_eval_func(c, n, out);
  case V_CASE: return eval_case(c, n, out);
  case V_INDEX: return eval_index(c, n, out);
  case V_FIELD: return eval_field(c, n, out);
  case N_LIKE: return ex_eval_like(c, n, out);
  default: return eval_bool(c, n, out);
  }
}

int expr_eval(const inlet_predicate *p, const inlet_batch *b, int64_t first, int64_t n,
              uint8_t *out, inlet_error *err) {
  FAIL_IF(first < 0 || n < 0 || first > b->num_rows - n, err, INLET_EINVAL,
          "rows [%lld, %lld) are outside the batch of %lld", (long long)first,
          (long long)(first + n), (long long)b->num_rows);
  for (int32_t i = 0; i < p->n_cols; i++) {
    const inlet_array *a = &b->columns[p->cols[i]];
    FAIL_IF(a->length < first + n, err, INLET_EINVAL,
            "predicate column \"%s\" holds %lld rows, the batch %lld",
            p->schema.fields[p->cols[i]].name, (long long)a->length, (long long)b->num_rows);
  }
  /* Chunks of rows: every vector stays small (cache-resident), and the
   * arena's memory is reused from chunk to chunk instead of being taken
   * from and given back to the system for every batch. */
  enum { CHUNK = 2048 };
  ex_ctx c;
  memset(&c, 0, sizeof c);
  c.p = p;
  c.b = b;
  c.err = err;
  int rc = 0;
  for (int64_t off = 0; off < n && rc == 0; off += CHUNK) {
    c.base = first + off;
    c.n = n - off < CHUNK ? n - off : CHUNK;
    arena_reset(&c);
    ex_vec v;
    rc = ex_eval(&c, p->root, &v);
    if (rc == 0) memcpy(out + off, v.v.b, (size_t)c.n);
  }
  arena_free(&c);
  return rc;
}
