/*
 * The expression parser: a recursive-descent parser producing a tree typed
 * by the table schema (grammar in include/inlet/scan.h). Errors give the
 * 1-based column of the problem, then the expression and a caret under
 * that column.
 */
#include <ctype.h>
#include <stdio.h>
#include <strings.h>

#include "expr/expr_int.h"

/* ---- tree --------------------------------------------------------------- */

void expr_node_free(expr_node *n) {
  if (!n) return;
  expr_node_free(n->a);
  expr_node_free(n->b);
  inlet_array_reset(&n->lits);
  inlet_free(n);
}

void expr_free(inlet_predicate *p) {
  if (!p) return;
  expr_node_free(p->root);
  inlet_schema_reset(&p->schema);
  inlet_free(p->cols);
  inlet_free(p);
}

/* ---- parser --------------------------------------------------------------- */

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
  T_BAD
} tok_kind;

typedef struct tok {
  tok_kind kind;
  size_t pos, len; /* in the source text */
  expr_op op;
} tok;

typedef struct parser {
  const char *src;
  size_t len;
  size_t pos;
  tok t; /* current token */
  const inlet_schema *schema;
  inlet_error *err;
  inlet_buf scratch; /* unquoted text of the current string or quoted name */
  int depth;         /* nesting, held below EXPR_MAX_DEPTH */
} parser;

#define EXPR_MAX_DEPTH 200

/* Fails with @p code, the 1-based column of @p pos and a caret line. */
INLET_PRINTF(4, 5)
static int perr(parser *ps, int code, size_t pos, const char *fmt, ...) {
  char why[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  /* Show at most 120 characters of the expression around the position. */
  size_t from = pos > 80 ? pos - 80 : 0, to = ps->len;
  if (to - from > 120) to = from + 120;
  char line[128], caret[128];
  size_t k = 0;
  for (size_t i = from; i < to; i++)
    line[k++] = ps->src[i] == '\n' || ps->src[i] == '\t' ? ' ' : ps->src[i];
  line[k] = 0;
  size_t c = pos - from + (from ? 3 : 0);
  if (c > 123) c = 123;
  memset(caret, ' ', c);
  caret[c] = '^';
  caret[c + 1] = 0;
  return inlet_fail(ps->err, code, "column %zu: %s\n  %s%s\n  %s", pos + 1, why, from ? "..." : "",
                    line, caret);
}

static bool is_ident_start(int c) {
  return isalpha(c) || c == '_';
}
static bool is_ident_char(int c) {
  return isalnum(c) || c == '_' || c == '.';
}

static void next_tok(parser *ps) {
  const char *s = ps->src;
  size_t p = ps->pos;
  while (p < ps->len && isspace((unsigned char)s[p]))
    p++;
  tok *t = &ps->t;
  t->pos = p;
  t->len = 0;
  if (p >= ps->len) {
    t->kind = T_END;
    ps->pos = p;
    return;
  }
  unsigned char c = (unsigned char)s[p];
  size_t q = p + 1;
  if (is_ident_start(c)) {
    while (q < ps->len && is_ident_char((unsigned char)s[q]))
      q++;
    t->kind = T_IDENT;
  } else if (isdigit(c) || ((c == '-' || c == '+' || c == '.') && q < ps->len &&
                            (isdigit((unsigned char)s[q]) || s[q] == '.'))) {
    while (q < ps->len && (isalnum((unsigned char)s[q]) || s[q] == '.' ||
                           ((s[q] == '-' || s[q] == '+') && (s[q - 1] == 'e' || s[q - 1] == 'E'))))
      q++;
    t->kind = T_NUMBER;
  } else if (c == '\'' || c == '"' || c == '`') {
    /* Quotes double to escape themselves, as in SQL. */
    inlet_buf_clear(&ps->scratch);
    for (;;) {
      if (q >= ps->len) {
        t->kind = T_BAD;
        break;
      }
      if ((unsigned char)s[q] == c) {
        if (q + 1 < ps->len && (unsigned char)s[q + 1] == c) {
          inlet_buf_push(&ps->scratch, c);
          q += 2;
          continue;
        }
        q++;
        t->kind = c == '\'' ? T_STRING : T_QIDENT;
        break;
      }
      inlet_buf_push(&ps->scratch, (uint8_t)s[q++]);
    }
  } else if (c == '(') {
    t->kind = T_LPAREN;
  } else if (c == ')') {
    t->kind = T_RPAREN;
  } else if (c == ',') {
    t->kind = T_COMMA;
  } else if (c == '=') {
    t->kind = T_OP;
    t->op = OP_EQ;
    if (q < ps->len && s[q] == '=') q++;
  } else if (c == '!' && q < ps->len && s[q] == '=') {
    t->kind = T_OP;
    t->op = OP_NE;
    q++;
  } else if (c == '<') {
    t->kind = T_OP;
    t->op = OP_LT;
    if (q < ps->len && s[q] == '=')
      t->op = OP_LE, q++;
    else if (q < ps->len && s[q] == '>')
      t->op = OP_NE, q++;
  } else if (c == '>') {
    t->kind = T_OP;
    t->op = OP_GT;
    if (q < ps->len && s[q] == '=') t->op = OP_GE, q++;
  } else {
    t->kind = T_BAD;
  }
  t->len = q - p;
  ps->pos = q;
}

static bool is_kw(const parser *ps, const char *kw) {
  return ps->t.kind == T_IDENT && ps->t.len == strlen(kw) &&
         strncasecmp(ps->src + ps->t.pos, kw, ps->t.len) == 0;
}

static const char *tok_desc(const parser *ps, char *buf, size_t cap) {
  if (ps->t.kind == T_END) return "the end of the expression";
  snprintf(buf, cap, "'%.*s'", (int)(ps->t.len > 40 ? 40 : ps->t.len), ps->src + ps->t.pos);
  return buf;
}

static int expect_fail(parser *ps, const char *what) {
  char b[64];
  if (ps->t.kind == T_BAD)
    return perr(ps, INLET_EINVAL, ps->t.pos, "%s",
                ps->src[ps->t.pos] == '\'' || ps->src[ps->t.pos] == '"' || ps->src[ps->t.pos] == '`'
                    ? "unterminated quote"
                    : "unexpected character");
  return perr(ps, INLET_EINVAL, ps->t.pos, "expected %s, found %s", what,
              tok_desc(ps, b, sizeof b));
}

static expr_node *new_node(parser *ps, expr_nkind k) {
  expr_node *n = inlet_calloc(1, sizeof *n);
  if (!n)
    inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
  else
    n->kind = k;
  return n;
}

static int parse_or(parser *ps, expr_node **out);

static bool tok_is_column(const parser *ps, int32_t *col) {
  char name[256];
  const char *s;
  size_t n;
  if (ps->t.kind == T_QIDENT) {
    s = ps->scratch.data ? (const char *)ps->scratch.data : "";
    n = ps->scratch.len;
  } else if (ps->t.kind == T_IDENT) {
    s = ps->src + ps->t.pos;
    n = ps->t.len;
  } else {
    return false;
  }
  if (n >= sizeof name) return false;
  memcpy(name, s, n);
  name[n] = 0;
  for (int32_t i = 0; i < ps->schema->n_fields; i++)
    if (strcmp(ps->schema->fields[i].name, name) == 0) return *col = i, true;
  for (int32_t i = 0; i < ps->schema->n_fields; i++)
    if (strcasecmp(ps->schema->fields[i].name, name) == 0) return *col = i, true;
  return false;
}

/* A literal token for column @p col appended to @p arr (initialised lazily);
 * *is_null set for NULL. Consumes the token(s). */
static int parse_literal(parser *ps, int32_t col, inlet_array *arr, bool *is_null) {
  const inlet_field *f = &ps->schema->fields[col];
  *is_null = false;
  size_t pos = ps->t.pos;
  if (is_kw(ps, "NULL")) {
    *is_null = true;
    next_tok(ps);
    return 0;
  }
  /* Typed-literal prefixes only document intent: the column decides. */
  if (is_kw(ps, "DATE") || is_kw(ps, "TIMESTAMP") || is_kw(ps, "DECIMAL") ||
      is_kw(ps, "TIMESTAMP_NTZ")) {
    next_tok(ps);
    if (ps->t.kind != T_STRING) return expect_fail(ps, "a quoted literal");
  }
  const char *s;
  size_t n;
  bool number = false;
  char tb[8];
  if (ps->t.kind == T_STRING) {
    s = ps->scratch.data ? (const char *)ps->scratch.data : "";
    n = ps->scratch.len;
  } else if (ps->t.kind == T_NUMBER) {
    s = ps->src + ps->t.pos;
    n = ps->t.len;
    number = true;
  } else if (is_kw(ps, "TRUE") || is_kw(ps, "FALSE")) {
    n = ps->t.len;
    snprintf(tb, sizeof tb, "%s", is_kw(ps, "TRUE") ? "true" : "false");
    s = tb;
  } else {
    return expect_fail(ps, "a literal");
  }
  if (f->type.id == INLET_TYPE_NULL)
    return perr(ps, INLET_EUNSUPPORTED, pos,
                "column \"%s\" has type void (always null): test it with IS NULL", f->name);
  if (expr_kind_of(&f->type) == EXK_NONE)
    return perr(ps, INLET_EUNSUPPORTED, pos, "column \"%s\" is nested and cannot be compared",
                f->name);
  inlet_array one;
  char reason[384];
  (void)number;
  int rc = expr_literal_parse(&one, f, s, n, false, reason, sizeof reason);
  if (rc < 0) {
    inlet_array_reset(&one);
    if (rc != INLET_EINVAL) return inlet_fail(ps->err, rc, "%s", reason);
    char tn[64];
    inlet_type_name(&f->type, tn, sizeof tn);
    return perr(ps, INLET_EINVAL, pos, "literal %.*s does not fit column \"%s\" (%s): %s",
                (int)(ps->t.pos + ps->t.len - pos > 60 ? 60 : ps->t.pos + ps->t.len - pos),
                ps->src + pos, f->name, tn, reason);
  }
  if (!arr->values && !arr->offsets && arr->length == 0 && !arr->validity) {
    inlet_array_reset(arr);
    *arr = one;
  } else {
    expr_value v;
    expr_kind k = expr_kind_of(&f->type);
    expr_value_get(&v, k, &f->type, &one, 0);
    int arc;
    switch (f->type.id) {
    case INLET_TYPE_BOOL: arc = inlet_array_append_bool(arr, v.i != 0, ps->err); break;
    case INLET_TYPE_UINT64: arc = inlet_array_append_uint64(arr, v.u, ps->err); break;
    case INLET_TYPE_FLOAT: arc = inlet_array_append_float(arr, (float)v.d, ps->err); break;
    case INLET_TYPE_DOUBLE: arc = inlet_array_append_double(arr, v.d, ps->err); break;
    case INLET_TYPE_DECIMAL: arc = inlet_array_append_decimal(arr, one.values, ps->err); break;
    case INLET_TYPE_STRING:
    case INLET_TYPE_BINARY:
    case INLET_TYPE_FIXED_BINARY: arc = inlet_array_append_bytes(arr, f, v.p, v.n, ps->err); break;
    default: arc = inlet_array_append_int(arr, f, v.i, ps->err); break;
    }
    inlet_array_reset(&one);
    if (arc < 0) return arc;
  }
  next_tok(ps);
  return 0;
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

/* col op lit, or a constant NULL node when the literal is NULL. */
static int make_cmp(parser *ps, expr_node **out, int32_t col, expr_op op) {
  expr_node *n = new_node(ps, N_CMP);
  if (!n) return INLET_ENOMEM;
  n->col = col;
  n->op = op;
  n->vk = expr_kind_of(&ps->schema->fields[col].type);
  bool is_null;
  int rc = parse_literal(ps, col, &n->lits, &is_null);
  if (rc < 0) {
    expr_node_free(n);
    return rc;
  }
  if (is_null) {
    inlet_array_reset(&n->lits);
    memset(&n->lits, 0, sizeof n->lits);
    n->kind = N_CONST;
    n->constv = EXPR_NULL;
  }
  *out = n;
  return 0;
}

static int make_bin(parser *ps, expr_node **out, expr_nkind k, expr_node *a, expr_node *b) {
  expr_node *n = new_node(ps, k);
  if (!n) {
    expr_node_free(a);
    expr_node_free(b);
    return INLET_ENOMEM;
  }
  n->a = a;
  n->b = b;
  *out = n;
  return 0;
}

static int parse_column_pred(parser *ps, expr_node **out, int32_t col, size_t col_pos) {
  const inlet_field *f = &ps->schema->fields[col];
  int rc;
  if (ps->t.kind == T_OP) {
    expr_op op = ps->t.op;
    next_tok(ps);
    return make_cmp(ps, out, col, op);
  }
  if (is_kw(ps, "IS")) {
    next_tok(ps);
    bool neg = false;
    if (is_kw(ps, "NOT")) {
      neg = true;
      next_tok(ps);
    }
    if (!is_kw(ps, "NULL")) return expect_fail(ps, "NULL");
    next_tok(ps);
    expr_node *n = new_node(ps, N_ISNULL);
    if (!n) return INLET_ENOMEM;
    n->col = col;
    n->negate = neg;
    *out = n;
    return 0;
  }
  bool neg = false;
  if (is_kw(ps, "NOT")) {
    neg = true;
    next_tok(ps);
    if (!is_kw(ps, "IN") && !is_kw(ps, "BETWEEN")) return expect_fail(ps, "IN or BETWEEN");
  }
  if (is_kw(ps, "IN")) {
    next_tok(ps);
    if (ps->t.kind != T_LPAREN) return expect_fail(ps, "'('");
    next_tok(ps);
    expr_node *n = new_node(ps, N_IN);
    if (!n) return INLET_ENOMEM;
    n->col = col;
    n->negate = neg;
    n->vk = expr_kind_of(&f->type);
    for (;;) {
      bool is_null;
      rc = parse_literal(ps, col, &n->lits, &is_null);
      if (rc < 0) {
        expr_node_free(n);
        return rc;
      }
      n->in_has_null |= is_null;
      if (ps->t.kind == T_COMMA) {
        next_tok(ps);
        continue;
      }
      if (ps->t.kind == T_RPAREN) break;
      expr_node_free(n);
      return expect_fail(ps, "',' or ')'");
    }
    next_tok(ps);
    *out = n;
    return 0;
  }
  if (is_kw(ps, "BETWEEN")) {
    /* x BETWEEN a AND b is exactly x >= a AND x <= b, NULLs included. */
    next_tok(ps);
    expr_node *lo = NULL, *hi = NULL, *both = NULL;
    TRY(make_cmp(ps, &lo, col, OP_GE));
    if (!is_kw(ps, "AND")) {
      expr_node_free(lo);
      return expect_fail(ps, "AND");
    }
    next_tok(ps);
    rc = make_cmp(ps, &hi, col, OP_LE);
    if (rc < 0) {
      expr_node_free(lo);
      return rc;
    }
    TRY(make_bin(ps, &both, N_AND, lo, hi));
    if (neg) return make_bin(ps, out, N_NOT, both, NULL);
    *out = both;
    return 0;
  }
  if (f->type.id == INLET_TYPE_BOOL) {
    /* A bare boolean column is the predicate `col = true`. */
    expr_node *n = new_node(ps, N_CMP);
    if (!n) return INLET_ENOMEM;
    n->col = col;
    n->op = OP_EQ;
    n->vk = EXK_I64;
    rc = inlet_array_init(&n->lits, f, ps->err);
    if (rc == 0) rc = inlet_array_append_bool(&n->lits, true, ps->err);
    if (rc < 0) {
      expr_node_free(n);
      return rc;
    }
    *out = n;
    return 0;
  }
  (void)col_pos;
  return expect_fail(ps, "a comparison, IN, BETWEEN or IS [NOT] NULL");
}

static int parse_primary(parser *ps, expr_node **out) {
  if (ps->t.kind == T_LPAREN) {
    size_t open = ps->t.pos;
    next_tok(ps);
    TRY(parse_or(ps, out));
    if (ps->t.kind != T_RPAREN) {
      expr_node_free(*out);
      *out = NULL;
      if (ps->t.kind == T_END) return perr(ps, INLET_EINVAL, open, "unclosed parenthesis");
      return expect_fail(ps, "')'");
    }
    next_tok(ps);
    return 0;
  }
  int32_t col;
  if (tok_is_column(ps, &col)) {
    size_t pos = ps->t.pos;
    next_tok(ps);
    return parse_column_pred(ps, out, col, pos);
  }
  if (ps->t.kind == T_STRING || ps->t.kind == T_NUMBER || is_kw(ps, "DATE") ||
      is_kw(ps, "TIMESTAMP") || is_kw(ps, "NULL") || is_kw(ps, "TRUE") || is_kw(ps, "FALSE")) {
    /* lit op col: the literal is typed by the column, so find it first and
     * then re-read the literal. */
    size_t lit_pos = ps->t.pos;
    uint8_t konst = is_kw(ps, "TRUE")    ? EXPR_TRUE
                    : is_kw(ps, "FALSE") ? EXPR_FALSE
                    : is_kw(ps, "NULL")  ? EXPR_NULL
                                         : 255;
    if (is_kw(ps, "DATE") || is_kw(ps, "TIMESTAMP")) next_tok(ps);
    next_tok(ps);
    if (ps->t.kind != T_OP) {
      if (konst == 255) return expect_fail(ps, "a comparison operator");
      expr_node *n = new_node(ps, N_CONST);
      if (!n) return INLET_ENOMEM;
      n->constv = konst;
      *out = n;
      return 0;
    }
    expr_op op = ps->t.op;
    next_tok(ps);
    if (!tok_is_column(ps, &col)) return expect_fail(ps, "a column name");
    size_t after = ps->pos;
    ps->pos = lit_pos;
    next_tok(ps);
    TRY(make_cmp(ps, out, col, flip(op)));
    ps->pos = after;
    next_tok(ps);
    return 0;
  }
  if (ps->t.kind == T_IDENT && !is_kw(ps, "NOT") && !is_kw(ps, "AND") && !is_kw(ps, "OR")) {
    char nm[128];
    snprintf(nm, sizeof nm, "%.*s", (int)(ps->t.len > 100 ? 100 : ps->t.len), ps->src + ps->t.pos);
    return perr(ps, INLET_ENOTFOUND, ps->t.pos, "no column named \"%s\"", nm);
  }
  if (ps->t.kind == T_QIDENT) {
    char nm[128];
    snprintf(nm, sizeof nm, "%.*s", (int)(ps->scratch.len > 100 ? 100 : ps->scratch.len),
             ps->scratch.data ? (const char *)ps->scratch.data : "");
    return perr(ps, INLET_ENOTFOUND, ps->t.pos, "no column named \"%s\"", nm);
  }
  return expect_fail(ps, "a column, literal or '('");
}

static int parse_not(parser *ps, expr_node **out) {
  if (!is_kw(ps, "NOT")) return parse_primary(ps, out);
  if (ps->depth >= EXPR_MAX_DEPTH)
    return perr(ps, INLET_ELIMIT, ps->t.pos, "expression nested too deeply");
  next_tok(ps);
  expr_node *a = NULL;
  ps->depth++;
  int rc = parse_not(ps, &a);
  ps->depth--;
  if (rc < 0) return rc;
  return make_bin(ps, out, N_NOT, a, NULL);
}

static int parse_and(parser *ps, expr_node **out) {
  expr_node *a = NULL;
  TRY(parse_not(ps, &a));
  while (is_kw(ps, "AND")) {
    next_tok(ps);
    expr_node *b = NULL;
    int rc = parse_not(ps, &b);
    if (rc < 0) {
      expr_node_free(a);
      return rc;
    }
    TRY(make_bin(ps, &a, N_AND, a, b));
  }
  *out = a;
  return 0;
}

static int parse_or(parser *ps, expr_node **out) {
  if (ps->depth >= EXPR_MAX_DEPTH)
    return perr(ps, INLET_ELIMIT, ps->t.pos, "expression nested too deeply");
  ps->depth++;
  expr_node *a = NULL;
  int rc = parse_and(ps, &a);
  while (rc == 0 && is_kw(ps, "OR")) {
    next_tok(ps);
    expr_node *b = NULL;
    rc = parse_and(ps, &b);
    if (rc < 0) {
      expr_node_free(a);
      a = NULL;
      break;
    }
    rc = make_bin(ps, &a, N_OR, a, b);
  }
  ps->depth--;
  if (rc < 0) return rc;
  *out = a;
  return 0;
}

static void collect_cols(const expr_node *n, uint8_t *used) {
  if (!n) return;
  if (n->kind == N_CMP || n->kind == N_IN || n->kind == N_ISNULL) used[n->col] = 1;
  collect_cols(n->a, used);
  collect_cols(n->b, used);
}

int expr_parse(inlet_predicate **out, const char *text, const inlet_schema *schema,
                          inlet_error *err) {
  *out = NULL;
  parser ps;
  memset(&ps, 0, sizeof ps);
  ps.src = text ? text : "";
  ps.len = strlen(ps.src);
  ps.schema = schema;
  ps.err = err;
  inlet_buf_init(&ps.scratch);
  FAIL_IF(ps.len > 1 << 20, err, INLET_ELIMIT, "predicate longer than 1 MiB");
  inlet_predicate *p = inlet_calloc(1, sizeof *p);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory parsing a predicate");
  int rc = 0;
  uint8_t *used = NULL;
  next_tok(&ps);
  if (ps.t.kind == T_END) {
    rc = perr(&ps, INLET_EINVAL, 0, "empty expression");
    goto done;
  }
  rc = parse_or(&ps, &p->root);
  if (rc < 0) goto done;
  if (ps.t.kind != T_END) {
    rc = expect_fail(&ps, "AND, OR or the end of the expression");
    goto done;
  }
  if (inlet_buf_status(&ps.scratch) < 0) {
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory parsing a predicate");
    goto done;
  }
  rc = inlet_schema_copy(&p->schema, schema, err);
  if (rc < 0) goto done;
  used = inlet_calloc((size_t)schema->n_fields + 1, 1);
  p->cols = inlet_calloc((size_t)schema->n_fields + 1, sizeof(int32_t));
  if (!used || !p->cols) {
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory parsing a predicate");
    goto done;
  }
  collect_cols(p->root, used);
  for (int32_t i = 0; i < schema->n_fields; i++)
    if (used[i]) p->cols[p->n_cols++] = i;
done:
  inlet_free(used);
  inlet_buf_reset(&ps.scratch);
  if (rc < 0) {
    expr_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

