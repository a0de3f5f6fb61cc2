/*
 * Predicates for `inlet scan --where` (grammar in include/inlet/scan.h):
 * a recursive-descent parser producing a tree typed by the table schema,
 * a batch evaluator with SQL three-valued logic (Kleene AND/OR/NOT, NULL
 * comparisons yield NULL, `x IN (1, NULL)` is NULL rather than FALSE when
 * x is not 1), and the outcome analysis used to skip files and row groups
 * from min/max/null-count statistics.
 *
 * Literals are converted with the text import rules (batch/text_int.h), so
 * `--where` accepts exactly the dates, timestamps and decimals that
 * ingestion accepts; decimals stay exact (no floating point).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "batch/text_int.h"
#include "scan/scan_int.h"

typedef enum sc_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE } sc_op;
typedef enum sc_nkind { N_CONST, N_CMP, N_IN, N_ISNULL, N_AND, N_OR, N_NOT } sc_nkind;

struct sc_node {
  sc_nkind kind;
  uint8_t constv;   /* N_CONST: SC_* */
  sc_op op;         /* N_CMP */
  int32_t col;      /* N_CMP, N_IN, N_ISNULL: schema index */
  sc_kind vk;       /* comparison kind of the column */
  bool negate;      /* N_IN: NOT IN; N_ISNULL: IS NOT NULL */
  bool in_has_null; /* N_IN: a NULL among the literals */
  inlet_array lits; /* owned: N_CMP one literal, N_IN the non-null list */
  sc_node *a, *b;   /* owned children (N_NOT uses a) */
};

/* ---- values ----------------------------------------------------------- */

sc_kind sc_kind_of(const inlet_type *t) {
  switch (t->id) {
  case INLET_TYPE_BOOL:
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64:
  case INLET_TYPE_UINT8:
  case INLET_TYPE_UINT16:
  case INLET_TYPE_UINT32:
  case INLET_TYPE_DATE:
  case INLET_TYPE_TIME:
  case INLET_TYPE_TIMESTAMP: return SCK_I64;
  case INLET_TYPE_UINT64: return SCK_U64;
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: return SCK_F64;
  case INLET_TYPE_DECIMAL: return SCK_I128;
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
  case INLET_TYPE_FIXED_BINARY: return SCK_BYTES;
  default: return SCK_NONE;
  }
}

void sc_value_get(sc_value *v, sc_kind k, const inlet_type *t, const inlet_array *a, int64_t r) {
  switch (k) {
  case SCK_I64:
    switch (t->id) {
    case INLET_TYPE_BOOL: v->i = inlet_bit_get(a->values, r); break;
    case INLET_TYPE_INT8: v->i = ((const int8_t *)a->values)[r]; break;
    case INLET_TYPE_UINT8: v->i = a->values[r]; break;
    case INLET_TYPE_INT16: v->i = ((const int16_t *)a->values)[r]; break;
    case INLET_TYPE_UINT16: v->i = ((const uint16_t *)a->values)[r]; break;
    case INLET_TYPE_UINT32: v->i = ((const uint32_t *)a->values)[r]; break;
    case INLET_TYPE_INT32:
    case INLET_TYPE_DATE: v->i = ((const int32_t *)a->values)[r]; break;
    case INLET_TYPE_TIME:
      v->i = t->unit <= INLET_UNIT_MILLI ? ((const int32_t *)a->values)[r]
                                         : ((const int64_t *)a->values)[r];
      break;
    default: v->i = ((const int64_t *)a->values)[r]; break;
    }
    break;
  case SCK_U64: v->u = ((const uint64_t *)a->values)[r]; break;
  case SCK_F64:
    v->d =
        t->id == INLET_TYPE_FLOAT ? ((const float *)a->values)[r] : ((const double *)a->values)[r];
    break;
  case SCK_I128: {
    sc_i128 q;
    memcpy(&q, a->values + r * 16, 16); /* little-endian two's complement, as on every target */
    v->q = q;
    break;
  }
  case SCK_BYTES:
    if (t->id == INLET_TYPE_FIXED_BINARY) {
      v->p = a->values + r * t->byte_width;
      v->n = (size_t)t->byte_width;
    } else {
      v->n = (size_t)(a->offsets[r + 1] - a->offsets[r]);
      v->p = a->values ? a->values + a->offsets[r] : (const uint8_t *)"";
    }
    break;
  default: break;
  }
}

static int cmp_f64(double x, double y) {
  bool nx = isnan(x), ny = isnan(y);
  if (nx || ny) return nx && ny ? 0 : nx ? 1 : -1;
  return x < y ? -1 : x > y;
}

int sc_value_cmp(sc_kind k, const sc_value *a, const sc_value *b) {
  switch (k) {
  case SCK_I64: return a->i < b->i ? -1 : a->i > b->i;
  case SCK_U64: return a->u < b->u ? -1 : a->u > b->u;
  case SCK_F64: return cmp_f64(a->d, b->d);
  case SCK_I128: return a->q < b->q ? -1 : a->q > b->q;
  case SCK_BYTES: {
    size_t m = a->n < b->n ? a->n : b->n;
    int c = m ? memcmp(a->p, b->p, m) : 0;
    if (c) return c < 0 ? -1 : 1;
    return a->n < b->n ? -1 : a->n > b->n;
  }
  default: return 0;
  }
}

int sc_literal_parse(inlet_array *out, const inlet_field *field, const char *s, size_t n,
                     bool is_number, char *reason, size_t reason_cap) {
  text_conv c;
  memset(&c, 0, sizeof c);
  c.epoch_unit = INLET_EPOCH_AUTO;
  c.strict = true;
  c.field = field->name;
  inlet_buf_init(&c.scratch);
  int rc = inlet_array_init(out, field, &c.err);
  if (rc == 0) {
    /* As a CSV cell: strings keep their text, everything else parses from
     * it (a number for a string column is its digits). */
    rc = text_append_scalar(&c, out, field, is_number ? TOK_NUMBER : TOK_TEXT, s, n, false);
  }
  if (rc < 0)
    snprintf(reason, reason_cap, "%s",
             rc == INLET_EINVAL && c.reason[0] ? c.reason : c.err.message);
  inlet_buf_reset(&c.scratch);
  return rc;
}

/* ---- tree --------------------------------------------------------------- */

static void node_free(sc_node *n) {
  if (!n) return;
  node_free(n->a);
  node_free(n->b);
  inlet_array_reset(&n->lits);
  inlet_free(n);
}

void inlet_predicate_free(inlet_predicate *p) {
  if (!p) return;
  node_free(p->root);
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
  sc_op op;
} tok;

typedef struct parser {
  const char *src;
  size_t len;
  size_t pos;
  tok t; /* current token */
  const inlet_schema *schema;
  inlet_error *err;
  inlet_buf scratch; /* unquoted text of the current string or quoted name */
  int depth;         /* nesting, held below SC_MAX_DEPTH */
} parser;

#define SC_MAX_DEPTH 200

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

static sc_node *new_node(parser *ps, sc_nkind k) {
  sc_node *n = inlet_calloc(1, sizeof *n);
  if (!n)
    inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
  else
    n->kind = k;
  return n;
}

static int parse_or(parser *ps, sc_node **out);

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
  if (sc_kind_of(&f->type) == SCK_NONE)
    return perr(ps, INLET_EUNSUPPORTED, pos, "column \"%s\" is nested and cannot be compared",
                f->name);
  inlet_array one;
  char reason[384];
  (void)number;
  int rc = sc_literal_parse(&one, f, s, n, false, reason, sizeof reason);
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
    sc_value v;
    sc_kind k = sc_kind_of(&f->type);
    sc_value_get(&v, k, &f->type, &one, 0);
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

static sc_op flip(sc_op op) {
  switch (op) {
  case OP_LT: return OP_GT;
  case OP_LE: return OP_GE;
  case OP_GT: return OP_LT;
  case OP_GE: return OP_LE;
  default: return op;
  }
}

/* col op lit, or a constant NULL node when the literal is NULL. */
static int make_cmp(parser *ps, sc_node **out, int32_t col, sc_op op) {
  sc_node *n = new_node(ps, N_CMP);
  if (!n) return INLET_ENOMEM;
  n->col = col;
  n->op = op;
  n->vk = sc_kind_of(&ps->schema->fields[col].type);
  bool is_null;
  int rc = parse_literal(ps, col, &n->lits, &is_null);
  if (rc < 0) {
    node_free(n);
    return rc;
  }
  if (is_null) {
    inlet_array_reset(&n->lits);
    memset(&n->lits, 0, sizeof n->lits);
    n->kind = N_CONST;
    n->constv = SC_NULL;
  }
  *out = n;
  return 0;
}

static int make_bin(parser *ps, sc_node **out, sc_nkind k, sc_node *a, sc_node *b) {
  sc_node *n = new_node(ps, k);
  if (!n) {
    node_free(a);
    node_free(b);
    return INLET_ENOMEM;
  }
  n->a = a;
  n->b = b;
  *out = n;
  return 0;
}

static int parse_column_pred(parser *ps, sc_node **out, int32_t col, size_t col_pos) {
  const inlet_field *f = &ps->schema->fields[col];
  int rc;
  if (ps->t.kind == T_OP) {
    sc_op op = ps->t.op;
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
    sc_node *n = new_node(ps, N_ISNULL);
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
    sc_node *n = new_node(ps, N_IN);
    if (!n) return INLET_ENOMEM;
    n->col = col;
    n->negate = neg;
    n->vk = sc_kind_of(&f->type);
    for (;;) {
      bool is_null;
      rc = parse_literal(ps, col, &n->lits, &is_null);
      if (rc < 0) {
        node_free(n);
        return rc;
      }
      n->in_has_null |= is_null;
      if (ps->t.kind == T_COMMA) {
        next_tok(ps);
        continue;
      }
      if (ps->t.kind == T_RPAREN) break;
      node_free(n);
      return expect_fail(ps, "',' or ')'");
    }
    next_tok(ps);
    *out = n;
    return 0;
  }
  if (is_kw(ps, "BETWEEN")) {
    /* x BETWEEN a AND b is exactly x >= a AND x <= b, NULLs included. */
    next_tok(ps);
    sc_node *lo = NULL, *hi = NULL, *both = NULL;
    TRY(make_cmp(ps, &lo, col, OP_GE));
    if (!is_kw(ps, "AND")) {
      node_free(lo);
      return expect_fail(ps, "AND");
    }
    next_tok(ps);
    rc = make_cmp(ps, &hi, col, OP_LE);
    if (rc < 0) {
      node_free(lo);
      return rc;
    }
    TRY(make_bin(ps, &both, N_AND, lo, hi));
    if (neg) return make_bin(ps, out, N_NOT, both, NULL);
    *out = both;
    return 0;
  }
  if (f->type.id == INLET_TYPE_BOOL) {
    /* A bare boolean column is the predicate `col = true`. */
    sc_node *n = new_node(ps, N_CMP);
    if (!n) return INLET_ENOMEM;
    n->col = col;
    n->op = OP_EQ;
    n->vk = SCK_I64;
    rc = inlet_array_init(&n->lits, f, ps->err);
    if (rc == 0) rc = inlet_array_append_bool(&n->lits, true, ps->err);
    if (rc < 0) {
      node_free(n);
      return rc;
    }
    *out = n;
    return 0;
  }
  (void)col_pos;
  return expect_fail(ps, "a comparison, IN, BETWEEN or IS [NOT] NULL");
}

static int parse_primary(parser *ps, sc_node **out) {
  if (ps->t.kind == T_LPAREN) {
    size_t open = ps->t.pos;
    next_tok(ps);
    TRY(parse_or(ps, out));
    if (ps->t.kind != T_RPAREN) {
      node_free(*out);
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
    uint8_t konst = is_kw(ps, "TRUE")    ? SC_TRUE
                    : is_kw(ps, "FALSE") ? SC_FALSE
                    : is_kw(ps, "NULL")  ? SC_NULL
                                         : 255;
    if (is_kw(ps, "DATE") || is_kw(ps, "TIMESTAMP")) next_tok(ps);
    next_tok(ps);
    if (ps->t.kind != T_OP) {
      if (konst == 255) return expect_fail(ps, "a comparison operator");
      sc_node *n = new_node(ps, N_CONST);
      if (!n) return INLET_ENOMEM;
      n->constv = konst;
      *out = n;
      return 0;
    }
    sc_op op = ps->t.op;
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

static int parse_not(parser *ps, sc_node **out) {
  if (!is_kw(ps, "NOT")) return parse_primary(ps, out);
  if (ps->depth >= SC_MAX_DEPTH)
    return perr(ps, INLET_ELIMIT, ps->t.pos, "expression nested too deeply");
  next_tok(ps);
  sc_node *a = NULL;
  ps->depth++;
  int rc = parse_not(ps, &a);
  ps->depth--;
  if (rc < 0) return rc;
  return make_bin(ps, out, N_NOT, a, NULL);
}

static int parse_and(parser *ps, sc_node **out) {
  sc_node *a = NULL;
  TRY(parse_not(ps, &a));
  while (is_kw(ps, "AND")) {
    next_tok(ps);
    sc_node *b = NULL;
    int rc = parse_not(ps, &b);
    if (rc < 0) {
      node_free(a);
      return rc;
    }
    TRY(make_bin(ps, &a, N_AND, a, b));
  }
  *out = a;
  return 0;
}

static int parse_or(parser *ps, sc_node **out) {
  if (ps->depth >= SC_MAX_DEPTH)
    return perr(ps, INLET_ELIMIT, ps->t.pos, "expression nested too deeply");
  ps->depth++;
  sc_node *a = NULL;
  int rc = parse_and(ps, &a);
  while (rc == 0 && is_kw(ps, "OR")) {
    next_tok(ps);
    sc_node *b = NULL;
    rc = parse_and(ps, &b);
    if (rc < 0) {
      node_free(a);
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

static void collect_cols(const sc_node *n, uint8_t *used) {
  if (!n) return;
  if (n->kind == N_CMP || n->kind == N_IN || n->kind == N_ISNULL) used[n->col] = 1;
  collect_cols(n->a, used);
  collect_cols(n->b, used);
}

int inlet_predicate_parse(inlet_predicate **out, const char *text, const inlet_schema *schema,
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
    inlet_predicate_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

/* ---- evaluation --------------------------------------------------------- */

static bool op_holds(sc_op op, int c) {
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
static void cmp_i64_vec(const int64_t *v, int64_t n, sc_op op, int64_t lit, uint8_t *out) {
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

static int eval_node(const inlet_predicate *p, const sc_node *nd, const inlet_batch *b,
                     uint8_t *out, inlet_error *err) {
  int64_t n = b->num_rows;
  switch (nd->kind) {
  case N_CONST: memset(out, nd->constv, (size_t)n); return 0;
  case N_ISNULL: {
    const inlet_array *a = &b->columns[nd->col];
    for (int64_t r = 0; r < n; r++)
      out[r] = inlet_array_is_valid(a, r) == nd->negate;
    return 0;
  }
  case N_CMP: {
    const inlet_field *f = &p->schema.fields[nd->col];
    const inlet_array *a = &b->columns[nd->col];
    sc_value lit, v;
    if (a->null_count >= n || (!a->values && nd->vk != SCK_BYTES)) {
      memset(out, SC_NULL, (size_t)n);
      return 0;
    }
    sc_value_get(&lit, nd->vk, &f->type, &nd->lits, 0);
    int32_t w = inlet_type_value_width(&f->type);
    if (nd->vk == SCK_I64 && w == 8 && f->type.id != INLET_TYPE_BOOL) {
      cmp_i64_vec((const int64_t *)a->values, n, nd->op, lit.i, out);
    } else {
      for (int64_t r = 0; r < n; r++) {
        sc_value_get(&v, nd->vk, &f->type, a, r);
        out[r] = op_holds(nd->op, sc_value_cmp(nd->vk, &v, &lit));
      }
    }
    if (a->validity && a->null_count != 0)
      for (int64_t r = 0; r < n; r++)
        if (!inlet_bit_get(a->validity, r)) out[r] = SC_NULL;
    return 0;
  }
  case N_IN: {
    const inlet_field *f = &p->schema.fields[nd->col];
    const inlet_array *a = &b->columns[nd->col];
    sc_value v, lit;
    uint8_t miss = nd->in_has_null ? SC_NULL : (nd->negate ? SC_TRUE : SC_FALSE);
    uint8_t hit = nd->negate ? SC_FALSE : SC_TRUE;
    for (int64_t r = 0; r < n; r++) {
      if (!inlet_array_is_valid(a, r)) {
        out[r] = SC_NULL;
        continue;
      }
      sc_value_get(&v, nd->vk, &f->type, a, r);
      out[r] = miss;
      for (int64_t k = 0; k < nd->lits.length; k++) {
        sc_value_get(&lit, nd->vk, &f->type, &nd->lits, k);
        if (sc_value_cmp(nd->vk, &v, &lit) == 0) {
          out[r] = hit;
          break;
        }
      }
    }
    return 0;
  }
  case N_NOT:
    TRY(eval_node(p, nd->a, b, out, err));
    for (int64_t r = 0; r < n; r++)
      out[r] = out[r] == SC_NULL ? SC_NULL : !out[r];
    return 0;
  case N_AND:
  case N_OR: {
    TRY(eval_node(p, nd->a, b, out, err));
    uint8_t *tmp = inlet_malloc((size_t)n + 1);
    if (!tmp) return inlet_fail(err, INLET_ENOMEM, "out of memory evaluating a predicate");
    int rc = eval_node(p, nd->b, b, tmp, err);
    if (rc == 0) {
      /* Kleene: FALSE dominates AND, TRUE dominates OR, else NULL wins. */
      if (nd->kind == N_AND) {
        for (int64_t r = 0; r < n; r++)
          out[r] = (out[r] == SC_FALSE || tmp[r] == SC_FALSE) ? SC_FALSE
                   : (out[r] == SC_NULL || tmp[r] == SC_NULL) ? SC_NULL
                                                              : SC_TRUE;
      } else {
        for (int64_t r = 0; r < n; r++)
          out[r] = (out[r] == SC_TRUE || tmp[r] == SC_TRUE)   ? SC_TRUE
                   : (out[r] == SC_NULL || tmp[r] == SC_NULL) ? SC_NULL
                                                              : SC_FALSE;
      }
    }
    inlet_free(tmp);
    return rc;
  }
  }
  return 0;
}

int sc_pred_eval(const inlet_predicate *p, const inlet_batch *b, uint8_t *out, inlet_error *err) {
  for (int32_t i = 0; i < p->n_cols; i++) {
    const inlet_array *a = &b->columns[p->cols[i]];
    FAIL_IF(a->length < b->num_rows, err, INLET_EINVAL,
            "predicate column \"%s\" holds %lld rows, the batch %lld",
            p->schema.fields[p->cols[i]].name, (long long)a->length, (long long)b->num_rows);
  }
  return eval_node(p, p->root, b, out, err);
}

int inlet_predicate_eval(const inlet_predicate *p, const inlet_batch *batch, uint8_t *result,
                         inlet_error *err) {
  FAIL_IF(batch->schema.n_fields != p->schema.n_fields, err, INLET_EINVAL,
          "batch has %d columns, the predicate's schema %d", (int)batch->schema.n_fields,
          (int)p->schema.n_fields);
  for (int32_t i = 0; i < p->n_cols; i++) {
    const inlet_field *f = &batch->schema.fields[p->cols[i]];
    FAIL_IF(!inlet_field_equal(f, &p->schema.fields[p->cols[i]]), err, INLET_EINVAL,
            "batch column %d (\"%s\") differs from the predicate's schema", (int)p->cols[i],
            f->name);
  }
  return sc_pred_eval(p, batch, result, err);
}

/* ---- outcome analysis ----------------------------------------------------- */

/* Outcomes of `x op L` for non-null x within [lo, hi] (a missing bound is
 * unbounded). */
static int cmp_possible(sc_kind k, sc_op op, const sc_colstats *s, const sc_value *lit) {
  int c_lo = s->has_min ? sc_value_cmp(k, &s->min, lit) : -2; /* min vs L */
  int c_hi = s->has_max ? sc_value_cmp(k, &s->max, lit) : 2;  /* max vs L */
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
  return (may_t ? SC_MAY_TRUE : 0) | (may_f ? SC_MAY_FALSE : 0);
}

static int not_set(int s) {
  return (s & SC_MAY_NULL) | (s & SC_MAY_TRUE ? SC_MAY_FALSE : 0) |
         (s & SC_MAY_FALSE ? SC_MAY_TRUE : 0);
}

static int combine(sc_nkind k, int a, int b) {
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

static int possible(const inlet_predicate *p, const sc_node *nd, const sc_colstats *stats) {
  switch (nd->kind) {
  case N_CONST:
    return nd->constv == SC_TRUE    ? SC_MAY_TRUE
           : nd->constv == SC_FALSE ? SC_MAY_FALSE
                                    : SC_MAY_NULL;
  case N_NOT: return not_set(possible(p, nd->a, stats));
  case N_AND:
  case N_OR: return combine(nd->kind, possible(p, nd->a, stats), possible(p, nd->b, stats));
  default: break;
  }
  const sc_colstats *s = &stats[nd->col];
  bool known_counts = s->null_count >= 0 && s->rows >= 0;
  bool all_null = known_counts && s->null_count >= s->rows;
  bool some_null = s->null_count != 0;
  if (nd->kind == N_ISNULL) {
    int r = (some_null ? SC_MAY_TRUE : 0) | (!all_null ? SC_MAY_FALSE : 0);
    return nd->negate ? not_set(r) : r;
  }
  if (all_null) return SC_MAY_NULL;
  const inlet_field *f = &p->schema.fields[nd->col];
  int r = 0;
  if (nd->kind == N_CMP) {
    sc_value lit;
    sc_value_get(&lit, nd->vk, &f->type, &nd->lits, 0);
    r = cmp_possible(nd->vk, nd->op, s, &lit);
  } else { /* N_IN: OR of equalities */
    int any_t = 0, all_f = SC_MAY_FALSE;
    for (int64_t k = 0; k < nd->lits.length; k++) {
      sc_value lit;
      sc_value_get(&lit, nd->vk, &f->type, &nd->lits, k);
      int e = cmp_possible(nd->vk, OP_EQ, s, &lit);
      any_t |= e & SC_MAY_TRUE;
      if (!(e & SC_MAY_FALSE)) all_f = 0;
    }
    r = any_t | all_f;
    if (nd->in_has_null && (r & SC_MAY_FALSE)) r = (r & ~SC_MAY_FALSE) | SC_MAY_NULL;
    if (nd->negate) r = not_set(r);
  }
  if (some_null) r |= SC_MAY_NULL;
  return r;
}

int sc_pred_possible(const inlet_predicate *p, const sc_colstats *stats) {
  return possible(p, p->root, stats);
}
