/*
 * Private to src/scan: scan's names for the expression module (src/expr,
 * expr/expr.h), which owns the predicate tree behind `--where` and
 * inlet_predicate (include/inlet/scan.h), its row evaluator and the
 * "which outcomes are possible" analysis that partition pruning, file
 * skipping (add.stats) and row-group skipping (Parquet statistics) share.
 *
 * Values are SQL three-valued: every evaluation yields SC_TRUE, SC_FALSE or
 * SC_NULL per row; a row passes a filter only when it is SC_TRUE.
 */
#ifndef INLET_SCAN_INT_H
#define INLET_SCAN_INT_H

#include "expr/expr.h"
#include "inlet/scan.h"
#include "util/buf.h"
#include "util/util.h"

enum { SC_FALSE = EXPR_FALSE, SC_TRUE = EXPR_TRUE, SC_NULL = EXPR_NULL };
enum {
  SC_MAY_TRUE = EXPR_MAY_TRUE,
  SC_MAY_FALSE = EXPR_MAY_FALSE,
  SC_MAY_NULL = EXPR_MAY_NULL,
  SC_MAY_ALL = EXPR_MAY_ALL
};

typedef expr_i128 sc_i128;
typedef expr_kind sc_kind;
#define SCK_NONE EXK_NONE
#define SCK_I64 EXK_I64
#define SCK_U64 EXK_U64
#define SCK_F64 EXK_F64
#define SCK_I128 EXK_I128
#define SCK_BYTES EXK_BYTES
typedef expr_value sc_value;
typedef expr_colstats sc_colstats;

static inline sc_kind sc_kind_of(const inlet_type *t) {
  return expr_kind_of(t);
}
static inline void sc_value_get(sc_value *v, sc_kind k, const inlet_type *t, const inlet_array *a,
                                int64_t r) {
  expr_value_get(v, k, t, a, r);
}
static inline int sc_value_cmp(sc_kind k, const sc_value *a, const sc_value *b) {
  return expr_value_cmp(k, a, b);
}

/* Evaluates the predicate over @p b, whose column i holds schema column i
 * (columns the predicate does not use may be empty). @p out gets one
 * SC_* byte per row. 0, INLET_ENOMEM. */
static inline int sc_pred_eval(const inlet_predicate *p, const inlet_batch *b, uint8_t *out,
                               inlet_error *err) {
  return expr_eval(p, b, 0, b->num_rows, out, err);
}

/* Outcomes the predicate may take on rows described by @p stats (one per
 * schema column). A result without SC_MAY_TRUE means no row can pass. */
static inline int sc_pred_possible(const inlet_predicate *p, const sc_colstats *stats) {
  return expr_possible(p, stats);
}

static inline int sc_literal_parse(inlet_array *out, const inlet_field *field, const char *s,
                                   size_t n, bool is_number, char *reason, size_t reason_cap) {
  return expr_literal_parse(out, field, s, n, is_number, reason, reason_cap);
}

#endif /* INLET_SCAN_INT_H */
