/*
 * Private to src/expr: the typed expression tree shared by the parser
 * (lex.c, parse.c, types.c), the evaluator (eval.c, func.c, cast.c) and the
 * outcome analysis (outcome.c), plus the exact decimal helpers (num.c).
 *
 * Every node has a result type: an inlet_type (for nested values the field
 * describing them) and the value kind the evaluator computes in. Booleans
 * are three-valued bytes (EXPR_TRUE/FALSE/NULL); other kinds carry a null
 * flag per row.
 */
#ifndef INLET_EXPR_INT_H
#define INLET_EXPR_INT_H

#include "expr/expr.h"

/* Value kinds of the evaluator. */
typedef enum ex_vk {
  VK_BOOL = 0, /* three-valued bytes */
  VK_I64,      /* signed integers, dates (days), times and timestamps (in their unit) */
  VK_U64,      /* uint64 */
  VK_F64,      /* float and double */
  VK_DEC,      /* decimal: 128-bit unscaled value, scale in the type */
  VK_STR,      /* string, binary, fixed-size binary: borrowed or arena bytes */
  VK_LOC       /* a nested value: rows of an array (struct, list, map) */
} ex_vk;

typedef enum expr_op {
  OP_EQ,
  OP_NE,
  OP_LT,
  OP_LE,
  OP_GT,
  OP_GE,
  OP_NSEQ /* <=>: null-safe equality, never NULL */
} expr_op;

typedef enum expr_nkind {
  /* boolean nodes */
  N_CONST,   /* constv */
  N_CMP,     /* top-level column `col` op literal lits[0] (the skipping fast path) */
  N_IN,      /* top-level column `col` [NOT] IN literals lits */
  N_ISNULL,  /* `col` (a == NULL) or a IS [NOT] NULL */
  N_AND,     /* a AND b */
  N_OR,      /* a OR b */
  N_NOT,     /* NOT a */
  N_CMP2,    /* a op b, both of one comparison type */
  N_INX,     /* a [NOT] IN (args) */
  N_BETWEEN, /* args[0] [NOT] BETWEEN args[1] AND args[2] */
  N_LIKE,    /* a [NOT] LIKE b, escape character esc */
  N_ISBOOL,  /* a IS [NOT] TRUE/FALSE (constv the truth value) */
  /* value nodes */
  V_COL,   /* column col, then struct children path[0..n_path) */
  V_LIT,   /* literal: row 0 of lits (type lit_field), or a typed NULL */
  V_ARITH, /* a op b with aop one of + - * / % D (DIV) */
  V_NEG,   /* -a */
  V_CAST,  /* a converted to the node's type */
  V_FUNC,  /* function fn over args */
  V_CASE,  /* CASE WHEN args[2k] THEN args[2k+1] ... [ELSE args[n-1]] END */
  V_INDEX, /* a[b]: list element (0-based) or map value */
  V_FIELD, /* a.path[0]: field of a nested struct value */
  V_PRED   /* a boolean node used as a value (already VK_BOOL; marks position only) */
} expr_nkind;

/* Functions (V_FUNC). */
typedef enum ex_fn {
  FN_LENGTH,
  FN_LOWER,
  FN_UPPER,
  FN_TRIM,
  FN_LTRIM,
  FN_RTRIM,
  FN_SUBSTRING,
  FN_LEFT,
  FN_RIGHT,
  FN_CONCAT,
  FN_STARTSWITH,
  FN_ENDSWITH,
  FN_CONTAINS,
  FN_ABS,
  FN_COALESCE,
  FN_NULLIF,
  FN_IF,
  FN_ISNULL,
  FN_ISNOTNULL,
  FN_GREATEST,
  FN_LEAST,
  FN_SIZE,
  FN_YEAR,
  FN_MONTH,
  FN_DAY,
  FN_HOUR,
  FN_MINUTE,
  FN_SECOND
} ex_fn;

struct expr_node {
  expr_nkind kind;
  size_t pos, end; /* source span, for messages */
  /* result type */
  ex_vk vk;
  inlet_type type;
  const inlet_field *field; /* VK_LOC: the nested field (in the predicate's schema or a child) */
  /* boolean fast paths (N_CMP, N_IN, N_ISNULL on a column) */
  uint8_t constv;        /* N_CONST: EXPR_*; N_ISBOOL: the truth value tested */
  expr_op op;            /* N_CMP, N_CMP2 */
  int32_t col;           /* N_CMP, N_IN, N_ISNULL (a == NULL), V_COL: schema index */
  expr_kind ck;          /* N_CMP, N_IN: comparison kind of the column */
  bool negate;           /* N_IN, N_INX, N_BETWEEN, N_LIKE: NOT; N_ISNULL, N_ISBOOL: IS NOT */
  bool in_has_null;      /* N_IN: a NULL among the literals */
  inlet_array lits;      /* owned: N_CMP one literal, N_IN the non-null list, V_LIT row 0 */
  inlet_field lit_field; /* owned name: V_LIT's type as a field (for lits) */
  bool lit_null;         /* V_LIT: a typed NULL */
  char *raw;             /* owned: V_LIT not yet typed (type.id INVALID): its text */
  size_t raw_n;
  int raw_kind; /* RAW_* (parse_int.h) */
  /* general */
  int aop;          /* V_ARITH: '+', '-', '*', '/', '%', 'D' */
  uint32_t esc;     /* N_LIKE: escape character (code point) */
  ex_fn fn;         /* V_FUNC */
  bool has_else;    /* V_CASE */
  expr_node *a, *b; /* owned children */
  expr_node **args; /* owned array of n_args owned nodes */
  int32_t n_args;
  int32_t *path; /* owned: V_COL, V_FIELD: child index at each struct level */
  int32_t n_path;
};

void expr_node_free(expr_node *n);

/* True when @p t's values are numbers (integers, decimals, floats; not
 * dates, times, timestamps or booleans). */
bool ex_is_numeric(const inlet_type *t);
/* Value kind computing values of type @p t. */
ex_vk ex_vk_of(const inlet_type *t);

/* ---- exact decimals and number text (num.c) ------------------------------ */

expr_i128 ex_pow10(int k);
bool ex_dec_fits(expr_i128 v, int precision);
/* v at scale @p from to scale @p to, rounding half up; false on overflow. */
bool ex_dec_rescale(expr_i128 v, int from, int to, expr_i128 *out);
int ex_dec_cmp(expr_i128 a, int sa, expr_i128 b, int sb);
/* Spark's precision/scale of a op b (op '+', '-', '*', '/', '%'). */
void ex_dec_result_type(int op, int p1, int s1, int p2, int s2, int *p, int *s);
/* Exact results at (p, s); false when the result does not fit (or / by 0). */
bool ex_dec_add(expr_i128 a, int sa, expr_i128 b, int sb, bool sub, int p, int s, expr_i128 *out);
bool ex_dec_mul(expr_i128 a, int sa, expr_i128 b, int sb, int p, int s, expr_i128 *out);
bool ex_dec_div(expr_i128 a, int sa, expr_i128 b, int sb, int p, int s, expr_i128 *out);
bool ex_dec_mod(expr_i128 a, int sa, expr_i128 b, int sb, int p, int s, expr_i128 *out);
size_t ex_i128_str(char *out, expr_i128 v);           /* out: 48 bytes */
size_t ex_dec_str(char *out, expr_i128 v, int scale); /* out: 48 bytes; plain, as toPlainString */
double ex_dec_to_double(expr_i128 v, int scale);
bool ex_double_to_dec(double d, int p, int s, expr_i128 *out);
size_t ex_double_str(char *out, double v, bool is_float); /* out: 40 bytes; Java's toString */

#endif /* INLET_EXPR_INT_H */
