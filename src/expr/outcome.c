/*
 * Outcome analysis: which of TRUE, FALSE and NULL a predicate may take on
 * the rows of a file, row group or page, from what statistics say about
 * each column (bounds of the non-null values, null and row counts).
 * Unknown statistics only widen the answer; skipping stays sound.
 */
#include "expr/expr_int.h"

/* ---- outcome analysis ----------------------------------------------------- */

/* Outcomes of `x op L` for non-null x within [lo, hi] (a missing bound is
 * unbounded). */
static int cmp_possible(expr_kind k, expr_op op, const expr_colstats *s, const expr_value *lit) {
  int c_lo = s->has_min ? expr_value_cmp(k, &s->min, lit) : -2; /* min vs L */
  int c_hi = s->has_max ? expr_value_cmp(k, &s->max, lit) : 2;  /* max vs L */
  bool point = s->has_min && s->has_max && c_lo == 0 && c_hi == 0;
  bool may_t, may_f;
  switch (op) {
  case OP_EQ:
    may_t = c_lo <= 0 && c_hi >= 0;
    may_f = !point;
    break;
  case OP_NE:
    may_t = !point;
    may_f = c_lo <= 0 && c_hi >= 0;
    break;
  case OP_LT:
    may_t = c_lo < 0;
    may_f = c_hi >= 0;
    break;
  case OP_LE:
    may_t = c_lo <= 0;
    may_f = c_hi > 0;
    break;
  case OP_GT:
    may_t = c_hi > 0;
    may_f = c_lo <= 0;
    break;
  default:
    may_t = c_hi >= 0;
    may_f = c_lo < 0;
    break;
  }
  return (may_t ? EXPR_MAY_TRUE : 0) | (may_f ? EXPR_MAY_FALSE : 0);
}

static int not_set(int s) {
  return (s & EXPR_MAY_NULL) | (s & EXPR_MAY_TRUE ? EXPR_MAY_FALSE : 0) |
         (s & EXPR_MAY_FALSE ? EXPR_MAY_TRUE : 0);
}

static int combine(expr_nkind k, int a, int b) {
  int out = 0;
  for (int x = 0; x < 3; x++) {
    if (!(a & (1 << x))) continue;
    for (int y = 0; y < 3; y++) {
      if (!(b & (1 << y))) continue;
      /* bit 0 TRUE, bit 1 FALSE, bit 2 NULL */
      int v;
      if (k == N_AND)
        v = (x == 1 || y == 1) ? 1 : (x == 2 || y == 2) ? 2 : 0;
      else
        v = (x == 0 || y == 0) ? 0 : (x == 2 || y == 2) ? 2 : 1;
      out |= 1 << v;
    }
  }
  return out;
}

static int possible(const inlet_predicate *p, const expr_node *nd, const expr_colstats *stats) {
  switch (nd->kind) {
  case N_CONST:
    return nd->constv == EXPR_TRUE    ? EXPR_MAY_TRUE
           : nd->constv == EXPR_FALSE ? EXPR_MAY_FALSE
                                      : EXPR_MAY_NULL;
  case N_NOT: return not_set(possible(p, nd->a, stats));
  case N_AND:
  case N_OR: return combine(nd->kind, possible(p, nd->a, stats), possible(p, nd->b, stats));
  case N_CMP:
  case N_IN: break;
  case N_ISNULL:
    if (!nd->a) break;
    return EXPR_MAY_ALL;
  default: return EXPR_MAY_ALL; /* general expressions: no statistics rule them out */
  }
  const expr_colstats *s = &stats[nd->col];
  bool known_counts = s->null_count >= 0 && s->rows >= 0;
  bool all_null = known_counts && s->null_count >= s->rows;
  bool some_null = s->null_count != 0;
  if (nd->kind == N_ISNULL) {
    int r = (some_null ? EXPR_MAY_TRUE : 0) | (!all_null ? EXPR_MAY_FALSE : 0);
    return nd->negate ? not_set(r) : r;
  }
  if (all_null) return EXPR_MAY_NULL;
  const inlet_field *f = &p->schema.fields[nd->col];
  int r = 0;
  if (nd->kind == N_CMP) {
    expr_value lit;
    expr_value_get(&lit, nd->ck, &f->type, &nd->lits, 0);
    r = cmp_possible(nd->ck, nd->op, s, &lit);
  } else { /* N_IN: OR of equalities */
    int any_t = 0, all_f = EXPR_MAY_FALSE;
    for (int64_t k = 0; k < nd->lits.length; k++) {
      expr_value lit;
      expr_value_get(&lit, nd->ck, &f->type, &nd->lits, k);
      int e = cmp_possible(nd->ck, OP_EQ, s, &lit);
      any_t |= e & EXPR_MAY_TRUE;
      if (!(e & EXPR_MAY_FALSE)) all_f = 0;
    }
    r = any_t | all_f;
    if (nd->in_has_null && (r & EXPR_MAY_FALSE)) r = (r & ~EXPR_MAY_FALSE) | EXPR_MAY_NULL;
    if (nd->negate) r = not_set(r);
  }
  if (some_null) r |= EXPR_MAY_NULL;
  return r;
}

int expr_possible(const inlet_predicate *p, const expr_colstats *stats) {
  return possible(p, p->root, stats);
}
