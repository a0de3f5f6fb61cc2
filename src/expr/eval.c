/*
 * The expression evaluator: a predicate over a range of rows of a batch,
 * with SQL three-valued logic (Kleene AND/OR/NOT, NULL comparisons yield
 * NULL, `x IN (1, NULL)` is NULL rather than FALSE when x is not 1).
 */
#include "expr/expr_int.h"

/* ---- evaluation --------------------------------------------------------- */

static bool op_holds(expr_op op, int c) {
  switch (op) {
  case OP_EQ: return c == 0;
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

/* Rows [base, base + n) of @p b into out[0..n). */
static int eval_node(const inlet_predicate *p, const expr_node *nd, const inlet_batch *b,
                     int64_t base, int64_t n, uint8_t *out, inlet_error *err) {
  switch (nd->kind) {
  case N_CONST: memset(out, nd->constv, (size_t)n); return 0;
  case N_ISNULL: {
    const inlet_array *a = &b->columns[nd->col];
    for (int64_t r = 0; r < n; r++)
      out[r] = inlet_array_is_valid(a, base + r) == nd->negate;
    return 0;
  }
  case N_CMP: {
    const inlet_field *f = &p->schema.fields[nd->col];
    const inlet_array *a = &b->columns[nd->col];
    expr_value lit, v;
    if ((a->length > 0 && a->null_count >= a->length) || (!a->values && nd->vk != EXK_BYTES)) {
      memset(out, EXPR_NULL, (size_t)n);
      return 0;
    }
    expr_value_get(&lit, nd->vk, &f->type, &nd->lits, 0);
    int32_t w = inlet_type_value_width(&f->type);
    if (nd->vk == EXK_I64 && w == 8 && f->type.id != INLET_TYPE_BOOL) {
      cmp_i64_vec((const int64_t *)a->values + base, n, nd->op, lit.i, out);
    } else {
      for (int64_t r = 0; r < n; r++) {
        expr_value_get(&v, nd->vk, &f->type, a, base + r);
        out[r] = op_holds(nd->op, expr_value_cmp(nd->vk, &v, &lit));
      }
    }
    if (a->validity && a->null_count != 0)
      for (int64_t r = 0; r < n; r++)
        if (!inlet_bit_get(a->validity, base + r)) out[r] = EXPR_NULL;
    return 0;
  }
  case N_IN: {
    const inlet_field *f = &p->schema.fields[nd->col];
    const inlet_array *a = &b->columns[nd->col];
    expr_value v, lit;
    uint8_t miss = nd->in_has_null ? EXPR_NULL : (nd->negate ? EXPR_TRUE : EXPR_FALSE);
    uint8_t hit = nd->negate ? EXPR_FALSE : EXPR_TRUE;
    for (int64_t r = 0; r < n; r++) {
      if (!inlet_array_is_valid(a, base + r)) {
        out[r] = EXPR_NULL;
        continue;
      }
      expr_value_get(&v, nd->vk, &f->type, a, base + r);
      out[r] = miss;
      for (int64_t k = 0; k < nd->lits.length; k++) {
        expr_value_get(&lit, nd->vk, &f->type, &nd->lits, k);
        if (expr_value_cmp(nd->vk, &v, &lit) == 0) {
          out[r] = hit;
          break;
        }
      }
    }
    return 0;
  }
  case N_NOT:
    TRY(eval_node(p, nd->a, b, base, n, out, err));
    for (int64_t r = 0; r < n; r++)
      out[r] = out[r] == EXPR_NULL ? EXPR_NULL : !out[r];
    return 0;
  case N_AND:
  case N_OR: {
    TRY(eval_node(p, nd->a, b, base, n, out, err));
    uint8_t *tmp = inlet_malloc((size_t)n + 1);
    if (!tmp) return inlet_fail(err, INLET_ENOMEM, "out of memory evaluating a predicate");
    int rc = eval_node(p, nd->b, b, base, n, tmp, err);
    if (rc == 0) {
      /* Kleene: FALSE dominates AND, TRUE dominates OR, else NULL wins. */
      if (nd->kind == N_AND) {
        for (int64_t r = 0; r < n; r++)
          out[r] = (out[r] == EXPR_FALSE || tmp[r] == EXPR_FALSE) ? EXPR_FALSE
                   : (out[r] == EXPR_NULL || tmp[r] == EXPR_NULL) ? EXPR_NULL
                                                              : EXPR_TRUE;
      } else {
        for (int64_t r = 0; r < n; r++)
          out[r] = (out[r] == EXPR_TRUE || tmp[r] == EXPR_TRUE)   ? EXPR_TRUE
                   : (out[r] == EXPR_NULL || tmp[r] == EXPR_NULL) ? EXPR_NULL
                                                              : EXPR_FALSE;
      }
    }
    inlet_free(tmp);
    return rc;
  }
  }
  return 0;
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
  if (n == 0) return 0;
  return eval_node(p, p->root, b, first, n, out, err);
}

