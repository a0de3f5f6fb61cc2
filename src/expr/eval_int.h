/*
 * Private to src/expr: the evaluator's vectors and context, shared by the
 * core (eval.c), conversions (cast.c) and functions (func.c).
 *
 * A vector holds one value per row of the range being evaluated. Vectors
 * are read-only once made (a column's may alias the batch's own buffers);
 * every operation writes a fresh vector from the evaluation's arena, which
 * is freed as a whole when the evaluation ends.
 */
#ifndef INLET_EXPR_EVAL_INT_H
#define INLET_EXPR_EVAL_INT_H

#include "expr/expr_int.h"

typedef struct ex_str {
  const uint8_t *p;
  int64_t n;
} ex_str;

typedef struct ex_vec {
  uint8_t *nul; /* per row, 1 = NULL; NULL pointer: no row is NULL. Unused for VK_BOOL. */
  union {
    uint8_t *b; /* VK_BOOL: EXPR_TRUE/FALSE/NULL */
    int64_t *i;
    uint64_t *u;
    double *d;
    expr_i128 *q;
    ex_str *s;
  } v;
  /* VK_LOC: row r is element idx[r] (idx NULL: base + r) of arr */
  const inlet_array *arr;
  const inlet_field *f;
  const int64_t *idx;
} ex_vec;

typedef struct ex_block ex_block;

typedef struct ex_ctx {
  const inlet_predicate *p;
  const inlet_batch *b;
  int64_t base, n;
  inlet_error *err;
  ex_block *blocks; /* the arena */
} ex_ctx;

/* Arena memory for this evaluation (16-byte aligned, zeroed when @p zero);
 * NULL after recording INLET_ENOMEM. */
void *ex_alloc(ex_ctx *c, size_t bytes, bool zero);
int ex_oom(ex_ctx *c);

static inline bool ex_isnull(const ex_vec *v, ex_vk vk, int64_t r) {
  return vk == VK_BOOL ? v->v.b[r] == EXPR_NULL : v->nul != NULL && v->nul[r] != 0;
}

/* A vector of kind @p vk with a null flag per row (all valid, values zero). */
int ex_vec_new(ex_ctx *c, ex_vk vk, ex_vec *out);
int ex_eval(ex_ctx *c, const expr_node *n, ex_vec *out);
/* -1, 0, 1 for valid rows ra of x (type tx) and rb of y (type ty) of one
 * value kind (decimals may differ in scale). Doubles order NaN highest. */
int ex_cmp_rows(ex_vk vk, const ex_vec *x, const inlet_type *tx, int64_t ra, const ex_vec *y,
                const inlet_type *ty, int64_t rb);
/* Copies row @p rs of @p src to row @p rd of @p dst (same kind). */
void ex_copy_row(ex_vk vk, ex_vec *dst, int64_t rd, const ex_vec *src, int64_t rs);

/* cast.c: @p in (type @p from) converted to @p to. */
int ex_cast_vec(ex_ctx *c, const ex_vec *in, const inlet_type *from, const inlet_type *to,
                ex_vec *out);
/* Loads the scalar values of @p a (type @p t) at rows idx[r] (idx NULL:
 * c->base + r; @p broadcast: row 0 for every r) into a vector, NULL where
 * @p pre says so or the array does. */
int ex_load(ex_ctx *c, const inlet_array *a, const inlet_type *t, const int64_t *idx,
            bool broadcast, const uint8_t *pre, ex_vec *out);
/* Text of a valid value as CAST(x AS STRING) gives it, into arena memory. */
int ex_to_text(ex_ctx *c, const ex_vec *in, const inlet_type *t, int64_t r, ex_str *out);

/* func.c */
int ex_eval_func(ex_ctx *c, const expr_node *n, ex_vec *out);
int ex_eval_like(ex_ctx *c, const expr_node *n, ex_vec *out);

#endif /* INLET_EXPR_EVAL_INT_H */
