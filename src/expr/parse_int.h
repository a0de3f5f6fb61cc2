/*
 * Private to src/expr: the parser's state, shared by the grammar (parse.c)
 * and the typing rules (types.c).
 */
#ifndef INLET_EXPR_PARSE_INT_H
#define INLET_EXPR_PARSE_INT_H

#include "expr/expr_int.h"

typedef enum tok_kind {
  T_END,
  T_IDENT,
  T_QIDENT,
  T_NUMBER,
  T_STRING,
  T_LPAREN,
  T_RPAREN,
  T_COMMA,
  T_OP,
  T_DOT,
  T_LBRACKET,
  T_RBRACKET,
  T_BAD
} tok_kind;

/* T_OP operators beyond the comparisons of expr_op. */
enum { TO_PLUS = 100, TO_MINUS, TO_STAR, TO_SLASH, TO_PERCENT, TO_CONCAT };

typedef struct tok {
  tok_kind kind;
  size_t pos, len;       /* span in the source text */
  int op;                /* T_OP: expr_op or TO_* */
  size_t text, text_len; /* T_STRING, T_QIDENT: unescaped text in parser.texts */
} tok;

/* Raw (not yet typed) literals: V_LIT nodes with type.id INVALID. */
enum {
  RAW_NONE = 0,
  RAW_NUMBER,
  RAW_STRING,
  RAW_BOOL,
  RAW_NULL,
  RAW_DATE,
  RAW_TIMESTAMP,
  RAW_TIMESTAMP_NTZ,
  RAW_BINARY
};

typedef struct parser {
  const char *src;
  size_t len;
  expr_dialect dialect;
  tok *toks; /* owned, ends with T_END (or T_BAD then T_END) */
  size_t n_toks, at;
  inlet_buf texts;            /* unescaped strings and quoted names */
  const inlet_schema *schema; /* the predicate's own copy: fields stay put */
  inlet_error *err;
  int depth;                /* nesting, held below EXPR_MAX_DEPTH */
  int tree;                 /* binary operators so far plus open nesting: bounds the depth
                               of the tree (held below EXPR_MAX_TREE so that evaluating or
                               freeing it cannot exhaust the stack) */
  const char *operand_what; /* what a missing operand should have been */
  int64_t now_us;           /* current_timestamp(), fixed for the parse */
} parser;

#define EXPR_MAX_DEPTH 200
#define EXPR_MAX_TREE 2000

static inline const tok *cur(const parser *ps) {
  return &ps->toks[ps->at];
}

/* Fails with @p code, the 1-based column of @p pos and a caret line. */
int ex_perr(parser *ps, int code, size_t pos, const char *fmt, ...) INLET_PRINTF(4, 5);

expr_node *ex_new_node(parser *ps, expr_nkind k, size_t pos, size_t end);
/* A readable name of a node's type ("long", "decimal(10,2)", "struct"). */
void ex_type_name(const expr_node *n, char *out, size_t cap);

/* ---- typing (types.c) ------------------------------------------------------ */

/* Gives raw literal *@p n the type it takes beside @p other (NULL: its own
 * type). May replace *@p n. */
int ex_settle(parser *ps, expr_node **n, const expr_node *other);
/* Builds a op b (a comparison) into *@p out, consuming a and b. */
int ex_make_compare(parser *ps, expr_node **out, expr_op op, expr_node *a, expr_node *b);
/* Types N_INX, N_BETWEEN or N_LIKE node @p n (operands given, raw) into
 * *@p out (n itself, or a faster equivalent). Consumes n. */
int ex_type_special(parser *ps, expr_node **out, expr_node *n);
/* Builds a aop b (arithmetic or ||) into *@p out, consuming a and b. */
int ex_make_arith(parser *ps, expr_node **out, int aop, size_t pos, expr_node *a, expr_node *b);
/* Wraps *@p n in a conversion to @p t (nothing when it already has it). */
int ex_cast_to(parser *ps, expr_node **n, const inlet_type *t, bool explicit_cast);
/* Checks and types function @p fn over n->args (given, raw). */
int ex_type_function(parser *ps, expr_node *n, const char *name);
/* Types CASE: conditions boolean, results of one common type. */
int ex_type_case(parser *ps, expr_node *n);
/* Requires a boolean: a bare boolean column becomes `col = true` (the
 * skipping fast path); anything else not boolean is an error at the
 * current token. */
int ex_to_pred(parser *ps, expr_node **n);
/* The type named by @p s (Spark SQL: int, bigint, decimal(10,2), ...). */
int ex_parse_type(parser *ps, size_t pos, const char *s, size_t n, inlet_type *out);

#endif /* INLET_EXPR_PARSE_INT_H */
