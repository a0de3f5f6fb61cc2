/*
 * Private to src/expr: the expression tree shared by the parser (parse.c),
 * the evaluator (eval.c) and the outcome analysis (outcome.c).
 */
#ifndef INLET_EXPR_INT_H
#define INLET_EXPR_INT_H

#include "expr/expr.h"

typedef enum expr_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE } expr_op;
typedef enum expr_nkind { N_CONST, N_CMP, N_IN, N_ISNULL, N_AND, N_OR, N_NOT } expr_nkind;

struct expr_node {
  expr_nkind kind;
  uint8_t constv;   /* N_CONST: EXPR_* */
  expr_op op;       /* N_CMP */
  int32_t col;      /* N_CMP, N_IN, N_ISNULL: schema index */
  expr_kind vk;     /* comparison kind of the column */
  bool negate;      /* N_IN: NOT IN; N_ISNULL: IS NOT NULL */
  bool in_has_null; /* N_IN: a NULL among the literals */
  inlet_array lits; /* owned: N_CMP one literal, N_IN the non-null list */
  expr_node *a, *b; /* owned children (N_NOT uses a) */
};

void expr_node_free(expr_node *n);

#endif /* INLET_EXPR_INT_H */
