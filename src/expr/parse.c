/*
 * The expression parser: tokens, then recursive descent producing a tree
 * typed by the table schema (grammar in include/inlet/scan.h; the typing
 * rules are in types.c). Errors give the 1-based column of the problem,
 * then the expression and a caret under that column.
 *
 * Precedence, loosest first, as in Spark SQL: OR; AND; NOT; comparisons,
 * IS, IN, BETWEEN, LIKE; + - ||; * / % DIV; unary minus; field access
 * (a.b) and subscripts (a[0], m['k']).
 */
#include <ctype.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>

#include "expr/parse_int.h"

/* ---- tree ------------------------------------------------------------------ */

void expr_node_free(expr_node *n) {
  if (!n) return;
  expr_node_free(n->a);
  expr_node_free(n->b);
  for (int32_t i = 0; i < n->n_args; i++)
    expr_node_free(n->args[i]);
  inlet_free(n->args);
  inlet_free(n->path);
  inlet_free(n->raw);
  inlet_array_reset(&n->lits);
  inlet_free(n->lit_field.name);
  inlet_free(n);
}

void expr_free(inlet_predicate *p) {
  if (!p) return;
  expr_node_free(p->root);
  inlet_schema_reset(&p->schema);
  inlet_free(p->cols);
  inlet_free(p);
}

expr_node *ex_new_node(parser *ps, expr_nkind k, size_t pos, size_t end) {
  expr_node *n = inlet_calloc(1, sizeof *n);
  if (!n) {
    inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
    return NULL;
  }
  n->kind = k;
  n->pos = pos;
  n->end = end;
  n->col = -1;
  return n;
}

/* ---- errors ------------------------------------------------------------------ */

int ex_perr(parser *ps, int code, size_t pos, const char *fmt, ...) {
  char why[300];
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
    line[k++] = ps->src[i] == '\n' || ps->src[i] == '\t' || ps->src[i] == '\r' ? ' ' : ps->src[i];
  line[k] = 0;
  size_t c = pos - from + (from ? 3 : 0);
  if (c > 123) c = 123;
  memset(caret, ' ', c);
  caret[c] = '^';
  caret[c + 1] = 0;
  return inlet_fail(ps->err, code, "column %zu: %s\n  %s%s\n  %s", pos + 1, why, from ? "..." : "",
                    line, caret);
}

static const char *tok_desc(const parser *ps, const tok *t, char *buf, size_t cap) {
  if (t->kind == T_END) return "the end of the expression";
  snprintf(buf, cap, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), ps->src + t->pos);
  return buf;
}

static int expect_fail(parser *ps, const char *what) {
  const tok *t = cur(ps);
  char b[64];
  if (t->kind == T_BAD) {
    char c = ps->src[t->pos];
    return ex_perr(ps, INLET_EINVAL, t->pos, "%s",
                   c == '\'' || c == '"' || c == '`' ? "unterminated quote"
                                                     : "unexpected character");
  }
  return ex_perr(ps, INLET_EINVAL, t->pos, "expected %s, found %s", what,
                 tok_desc(ps, t, b, sizeof b));
}

/* ---- tokens -------------------------------------------------------------------- */

static bool is_ident_start(int c) {
  return isalpha(c) || c == '_';
}
static bool is_ident_char(int c) {
  return isalnum(c) || c == '_';
}

/* A quoted token at @p p (quote character q) into ps->texts; returns the
 * position after it, or 0 when unterminated. Doubled quotes stand for one
 * (SQL), except Spark strings, which use backslash escapes instead (and
 * concatenate adjacent strings, so 'it''s' is "its" there). */
static size_t lex_quoted(parser *ps, size_t p, char q, bool spark_string) {
  const char *s = ps->src;
  size_t i = p + 1;
  for (;;) {
    if (i >= ps->len) return 0;
    char c = s[i];
    if (c == q) {
      if (!spark_string && i + 1 < ps->len && s[i + 1] == q) {
        inlet_buf_push(&ps->texts, (uint8_t)q);
        i += 2;
        continue;
      }
      return i + 1;
    }
    if (spark_string && c == '\\' && i + 1 < ps->len) {
      char e = s[i + 1];
      i += 2;
      switch (e) {
      case 'n': inlet_buf_push(&ps->texts, '\n'); break;
      case 't': inlet_buf_push(&ps->texts, '\t'); break;
      case 'r': inlet_buf_push(&ps->texts, '\r'); break;
      case 'b': inlet_buf_push(&ps->texts, '\b'); break;
      case '0': inlet_buf_push(&ps->texts, 0); break;
      case 'Z': inlet_buf_push(&ps->texts, 0x1a); break;
      case '%':
      case '_': /* kept escaped: they mean themselves in LIKE patterns */
        inlet_buf_push(&ps->texts, '\\');
        inlet_buf_push(&ps->texts, (uint8_t)e);
        break;
      case 'u': {
        uint32_t cp = 0;
        int k = 0;
        for (; k < 4 && i + (size_t)k < ps->len && inlet_hex_digit((unsigned char)s[i + k]) >= 0;
             k++)
          cp = cp * 16 + (uint32_t)inlet_hex_digit((unsigned char)s[i + k]);
        if (k == 4 && (cp < 0xd800 || cp > 0xdfff)) {
          inlet_buf_put_utf8(&ps->texts, cp);
          i += 4;
        } else {
          inlet_buf_push(&ps->texts, 'u');
        }
        break;
      }
      default: inlet_buf_push(&ps->texts, (uint8_t)e); break;
      }
      continue;
    }
    inlet_buf_push(&ps->texts, (uint8_t)c);
    i++;
  }
}

static int lex(parser *ps) {
  size_t cap = 16;
  ps->toks = inlet_malloc(cap * sizeof *ps->toks);
  if (!ps->toks) return inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
  const char *s = ps->src;
  size_t p = 0;
  for (;;) {
    while (p < ps->len && isspace((unsigned char)s[p]))
      p++;
    if (ps->n_toks + 2 > cap) {
      cap *= 2;
      tok *nt = inlet_realloc(ps->toks, cap * sizeof *nt);
      if (!nt) return inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
      ps->toks = nt;
    }
    tok *t = &ps->toks[ps->n_toks++];
    memset(t, 0, sizeof *t);
    t->pos = p;
    if (p >= ps->len) {
      t->kind = T_END;
      return 0;
    }
    unsigned char c = (unsigned char)s[p];
    size_t q = p + 1;
    if (is_ident_start(c)) {
      while (q < ps->len && is_ident_char((unsigned char)s[q]))
        q++;
      t->kind = T_IDENT;
    } else if (isdigit(c) || (c == '.' && q < ps->len && isdigit((unsigned char)s[q]))) {
      while (q < ps->len &&
             (isalnum((unsigned char)s[q]) || s[q] == '.' ||
              ((s[q] == '-' || s[q] == '+') && (s[q - 1] == 'e' || s[q - 1] == 'E') &&
               isdigit((unsigned char)s[p]))))
        q++;
      t->kind = T_NUMBER;
    } else if (c == '\'' || c == '"' || c == '`') {
      bool string = c == '\'' || (c == '"' && ps->dialect == EXPR_SPARK);
      t->text = ps->texts.len;
      q = lex_quoted(ps, p, (char)c, string && ps->dialect == EXPR_SPARK);
      if (q == 0) {
        t->kind = T_BAD;
        t->len = ps->len - p;
        ps->toks[ps->n_toks++] = (tok){T_END, ps->len, 0, 0, 0, 0};
        return 0;
      }
      t->text_len = ps->texts.len - t->text;
      t->kind = string ? T_STRING : T_QIDENT;
    } else if (c == '(') {
      t->kind = T_LPAREN;
    } else if (c == ')') {
      t->kind = T_RPAREN;
    } else if (c == ',') {
      t->kind = T_COMMA;
    } else if (c == '.') {
      t->kind = T_DOT;
    } else if (c == '[') {
      t->kind = T_LBRACKET;
    } else if (c == ']') {
      t->kind = T_RBRACKET;
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
      if (q + 1 < ps->len && s[q] == '=' && s[q + 1] == '>')
        t->op = OP_NSEQ, q += 2;
      else if (q < ps->len && s[q] == '=')
        t->op = OP_LE, q++;
      else if (q < ps->len && s[q] == '>')
        t->op = OP_NE, q++;
    } else if (c == '>') {
      t->kind = T_OP;
      t->op = OP_GT;
      if (q < ps->len && s[q] == '=') t->op = OP_GE, q++;
    } else if (c == '+' || c == '-' || c == '*' || c == '/' || c == '%') {
      t->kind = T_OP;
      t->op = c == '+'   ? TO_PLUS
              : c == '-' ? TO_MINUS
              : c == '*' ? TO_STAR
              : c == '/' ? TO_SLASH
                         : TO_PERCENT;
    } else if (c == '|' && q < ps->len && s[q] == '|') {
      t->kind = T_OP;
      t->op = TO_CONCAT;
      q++;
    } else {
      t->kind = T_BAD;
      t->len = 1;
      ps->toks[ps->n_toks++] = (tok){T_END, ps->len, 0, 0, 0, 0};
      return 0;
    }
    t->len = q - p;
    p = q;
  }
}

static void next(parser *ps) {
  if (ps->toks[ps->at].kind != T_END && ps->toks[ps->at].kind != T_BAD) ps->at++;
}

static const tok *peek(const parser *ps, size_t k) {
  size_t i = ps->at + k;
  return &ps->toks[i < ps->n_toks ? i : ps->n_toks - 1];
}

static bool tok_is(const parser *ps, const tok *t, const char *kw) {
  return t->kind == T_IDENT && t->len == strlen(kw) &&
         strncasecmp(ps->src + t->pos, kw, t->len) == 0;
}

static bool is_kw(const parser *ps, const char *kw) {
  return tok_is(ps, cur(ps), kw);
}

static bool is_op(const parser *ps, int op) {
  return cur(ps)->kind == T_OP && cur(ps)->op == op;
}

/* Name text of an identifier token (quoted: unescaped). */
static const char *tok_name(const parser *ps, const tok *t, size_t *n) {
  if (t->kind == T_QIDENT) {
    *n = t->text_len;
    return ps->texts.data ? (const char *)ps->texts.data + t->text : "";
  }
  *n = t->len;
  return ps->src + t->pos;
}

static bool name_eq(const char *a, size_t n, const char *b, bool ci) {
  return strlen(b) == n && (ci ? strncasecmp(a, b, n) == 0 : strncmp(a, b, n) == 0);
}

/* ---- nodes ---------------------------------------------------------------------- */

static int make_bin(parser *ps, expr_node **out, expr_nkind k, expr_node *a, expr_node *b) {
  expr_node *n = ex_new_node(ps, k, a->pos, b ? b->end : a->end);
  if (!n) {
    expr_node_free(a);
    expr_node_free(b);
    return INLET_ENOMEM;
  }
  n->a = a;
  n->b = b;
  n->vk = VK_BOOL;
  n->type.id = INLET_TYPE_BOOL;
  *out = n;
  return 0;
}

static int add_arg(parser *ps, expr_node *n, expr_node *a) {
  if ((n->n_args & (n->n_args - 1)) == 0) {
    size_t cap = n->n_args ? (size_t)n->n_args * 2 : 4;
    expr_node **na = inlet_realloc(n->args, cap * sizeof *na);
    if (!na) {
      expr_node_free(a);
      return inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
    }
    n->args = na;
  }
  n->args[n->n_args++] = a;
  return 0;
}

static int raw_literal(parser *ps, expr_node **out, int kind, size_t pos, size_t end,
                       const char *text, size_t n) {
  expr_node *nd = ex_new_node(ps, V_LIT, pos, end);
  if (!nd) return INLET_ENOMEM;
  nd->raw = inlet_malloc(n + 1);
  if (!nd->raw) {
    expr_node_free(nd);
    return inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
  }
  if (n) memcpy(nd->raw, text, n);
  nd->raw[n] = 0;
  nd->raw_n = n;
  nd->raw_kind = kind;
  nd->type.id = INLET_TYPE_INVALID;
  *out = nd;
  return 0;
}

/* ---- grammar ---------------------------------------------------------------------- */

static int parse_or(parser *ps, expr_node **out);
static int parse_additive(parser *ps, expr_node **out);

static int enter(parser *ps) {
  if (ps->depth >= EXPR_MAX_DEPTH)
    return ex_perr(ps, INLET_ELIMIT, cur(ps)->pos, "expression nested too deeply");
  ps->depth++;
  ps->tree++;
  return 0;
}

static void leave(parser *ps) {
  ps->depth--;
  ps->tree--;
}

/* One more binary operator. A chain a + b + c ... is a tree as deep as the
 * chain is long, so the count of operators (never decreased) plus the
 * open nesting bounds the depth of the tree, and so the recursion of
 * evaluating and freeing it. */
static int chain(parser *ps, size_t pos) {
  if (++ps->tree > EXPR_MAX_TREE)
    return ex_perr(ps, INLET_ELIMIT, pos, "expression nested too deeply");
  return 0;
}

/* A column reference: name(.name)*, the longest prefix naming a top-level
 * column (names may contain dots), then struct fields. */
static int parse_column(parser *ps, expr_node **out, bool *found) {
  *found = false;
  size_t start = ps->at;
  size_t n_names = 1;
  while (peek(ps, 2 * n_names - 1)->kind == T_DOT &&
         (peek(ps, 2 * n_names)->kind == T_IDENT || peek(ps, 2 * n_names)->kind == T_QIDENT))
    n_names++;
  const inlet_schema *sc = ps->schema;
  int32_t col = -1;
  size_t used = 0;
  char joined[512];
  for (size_t k = n_names; k >= 1 && col < 0; k--) {
    size_t jl = 0;
    bool fits = true;
    for (size_t i = 0; i < k; i++) {
      size_t nl;
      const char *nm = tok_name(ps, &ps->toks[start + 2 * i], &nl);
      if (jl + nl + 2 > sizeof joined) fits = false;
      if (!fits) break;
      if (i) joined[jl++] = '.';
      memcpy(joined + jl, nm, nl);
      jl += nl;
    }
    if (!fits) continue;
    for (int pass = 0; pass < 2 && col < 0; pass++)
      for (int32_t i = 0; i < sc->n_fields && col < 0; i++)
        if (name_eq(joined, jl, sc->fields[i].name, pass == 1)) col = i, used = k;
  }
  if (col < 0) return 0;
  *found = true;
  const inlet_field *f = &sc->fields[col];
  expr_node *n = ex_new_node(ps, V_COL, ps->toks[start].pos, 0);
  if (!n) return INLET_ENOMEM;
  n->col = col;
  if (n_names > used) {
    n->path = inlet_calloc(n_names - used, sizeof *n->path);
    if (!n->path) {
      expr_node_free(n);
      return inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
    }
  }
  for (size_t i = used; i < n_names; i++) {
    const tok *t = &ps->toks[start + 2 * i];
    size_t nl;
    const char *nm = tok_name(ps, t, &nl);
    int32_t k = -1;
    if (f->type.id == INLET_TYPE_STRUCT)
      for (int pass = 0; pass < 2 && k < 0; pass++)
        for (int32_t j = 0; j < f->n_children && k < 0; j++)
          if (name_eq(nm, nl, f->children[j].name, pass == 1)) k = j;
    if (k < 0) {
      int rc = ex_perr(ps, INLET_ENOTFOUND, t->pos, "\"%s\" has no field \"%.*s\"", f->name,
                       (int)(nl > 100 ? 100 : nl), nm);
      expr_node_free(n);
      return rc;
    }
    n->path[n->n_path++] = k;
    f = &f->children[k];
  }
  ps->at = start + 2 * (n_names - 1);
  n->end = cur(ps)->pos + cur(ps)->len;
  next(ps);
  n->type = f->type;
  n->field = f;
  n->vk = ex_vk_of(&f->type);
  *out = n;
  return 0;
}

/* Arguments of a call: '(' [expr (, expr)*] ')' into n->args. */
static int parse_args(parser *ps, expr_node *n) {
  next(ps); /* ( */
  if (cur(ps)->kind == T_RPAREN) {
    next(ps);
    return 0;
  }
  for (;;) {
    expr_node *a = NULL;
    TRY(parse_or(ps, &a));
    TRY(add_arg(ps, n, a));
    if (cur(ps)->kind == T_COMMA) {
      next(ps);
      continue;
    }
    if (cur(ps)->kind != T_RPAREN) return expect_fail(ps, "',' or ')'");
    n->end = cur(ps)->pos + 1;
    next(ps);
    return 0;
  }
}

static int parse_cast(parser *ps, expr_node **out, size_t pos) {
  next(ps); /* CAST */
  next(ps); /* ( */
  expr_node *x = NULL;
  TRY(parse_or(ps, &x));
  if (!is_kw(ps, "AS")) {
    expr_node_free(x);
    return expect_fail(ps, "AS");
  }
  next(ps);
  size_t tpos = cur(ps)->pos, tend = tpos;
  int depth = 0;
  while (cur(ps)->kind != T_END && cur(ps)->kind != T_BAD &&
         !(depth == 0 && cur(ps)->kind == T_RPAREN)) {
    if (cur(ps)->kind == T_LPAREN) depth++;
    if (cur(ps)->kind == T_RPAREN) depth--;
    tend = cur(ps)->pos + cur(ps)->len;
    next(ps);
  }
  if (cur(ps)->kind != T_RPAREN) {
    expr_node_free(x);
    return expect_fail(ps, "')'");
  }
  inlet_type t;
  int rc = ex_parse_type(ps, tpos, ps->src + tpos, tend - tpos, &t);
  if (rc == 0) rc = ex_settle(ps, &x, NULL);
  if (rc == 0) rc = ex_cast_to(ps, &x, &t, true);
  if (rc < 0) {
    expr_node_free(x);
    return rc;
  }
  x->pos = pos;
  x->end = cur(ps)->pos + 1;
  next(ps);
  *out = x;
  return 0;
}

static int parse_case(parser *ps, expr_node **out, size_t pos) {
  next(ps); /* CASE */
  expr_node *n = ex_new_node(ps, V_CASE, pos, pos);
  if (!n) return INLET_ENOMEM;
  int rc = 0;
  expr_node *x = NULL;
  while (rc == 0 && is_kw(ps, "WHEN")) {
    next(ps);
    rc = parse_or(ps, &x);
    if (rc == 0) rc = add_arg(ps, n, x);
    if (rc == 0 && !is_kw(ps, "THEN")) rc = expect_fail(ps, "THEN");
    if (rc == 0) {
      next(ps);
      rc = parse_or(ps, &x);
      if (rc == 0) rc = add_arg(ps, n, x);
    }
  }
  if (rc == 0 && n->n_args == 0) rc = expect_fail(ps, "WHEN");
  if (rc == 0 && is_kw(ps, "ELSE")) {
    next(ps);
    rc = parse_or(ps, &x);
    if (rc == 0) rc = add_arg(ps, n, x);
    n->has_else = true;
  }
  if (rc == 0 && !is_kw(ps, "END")) rc = expect_fail(ps, "WHEN, ELSE or END");
  if (rc == 0) {
    n->end = cur(ps)->pos + cur(ps)->len;
    next(ps);
    rc = ex_type_case(ps, n);
  }
  if (rc < 0) {
    expr_node_free(n);
    return rc;
  }
  *out = n;
  return 0;
}

static bool is_reserved(const parser *ps) {
  static const char *const kw[] = {"NOT",    "AND",  "OR",   "IN",   "IS",  "BETWEEN",
                                   "LIKE",   "WHEN", "THEN", "ELSE", "END", "AS",
                                   "ESCAPE", "DIV",  "CASE", "CAST", NULL};
  for (const char *const *k = kw; *k; k++)
    if (is_kw(ps, *k)) return true;
  return false;
}

static int parse_primary(parser *ps, expr_node **out) {
  const tok *t = cur(ps);
  size_t pos = t->pos;
  if (t->kind == T_LPAREN) {
    next(ps);
    const char *what = ps->operand_what;
    ps->operand_what = "a column, literal or '('";
    int rc = parse_or(ps, out);
    ps->operand_what = what;
    if (rc < 0) return rc;
    if (cur(ps)->kind != T_RPAREN) {
      expr_node_free(*out);
      *out = NULL;
      if (cur(ps)->kind == T_END) return ex_perr(ps, INLET_EINVAL, pos, "unclosed parenthesis");
      return expect_fail(ps, "')'");
    }
    (*out)->pos = pos;
    (*out)->end = cur(ps)->pos + 1;
    next(ps);
    return 0;
  }
  if (t->kind == T_NUMBER) {
    next(ps);
    return raw_literal(ps, out, RAW_NUMBER, pos, pos + t->len, ps->src + pos, t->len);
  }
  if (t->kind == T_STRING) {
    /* Spark concatenates adjacent string literals ('a' 'b' is 'ab'). */
    size_t from = t->text, n = t->text_len, end = pos + t->len;
    next(ps);
    while (ps->dialect == EXPR_SPARK && cur(ps)->kind == T_STRING) {
      n = cur(ps)->text + cur(ps)->text_len - from;
      end = cur(ps)->pos + cur(ps)->len;
      next(ps);
    }
    return raw_literal(ps, out, RAW_STRING, pos, end,
                       ps->texts.data ? (const char *)ps->texts.data + from : "", n);
  }
  if (t->kind == T_IDENT || t->kind == T_QIDENT) {
    const tok *nx = peek(ps, 1);
    if (t->kind == T_IDENT && nx->kind == T_LPAREN) {
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)(t->len > 63 ? 63 : t->len), ps->src + pos);
      if (strcasecmp(name, "CAST") == 0) return parse_cast(ps, out, pos);
      expr_node *n = ex_new_node(ps, V_FUNC, pos, pos + t->len);
      if (!n) return INLET_ENOMEM;
      next(ps);
      int rc = parse_args(ps, n);
      if (rc == 0) rc = ex_type_function(ps, n, name);
      if (rc < 0) {
        expr_node_free(n);
        return rc;
      }
      *out = n;
      return 0;
    }
    if (t->kind == T_IDENT && nx->kind == T_STRING) {
      /* Typed literals: DATE '...', TIMESTAMP '...', TIMESTAMP_NTZ '...', X'..'. */
      int kind = tok_is(ps, t, "DATE")            ? RAW_DATE
                 : tok_is(ps, t, "TIMESTAMP")     ? RAW_TIMESTAMP
                 : tok_is(ps, t, "TIMESTAMP_NTZ") ? RAW_TIMESTAMP_NTZ
                 : tok_is(ps, t, "TIMESTAMP_LTZ") ? RAW_TIMESTAMP
                 : tok_is(ps, t, "DECIMAL")       ? RAW_NUMBER
                 : tok_is(ps, t, "X")             ? RAW_BINARY
                                                  : RAW_NONE;
      if (kind != RAW_NONE) {
        next(ps);
        const tok *st = cur(ps);
        next(ps);
        return raw_literal(ps, out, kind, pos, st->pos + st->len,
                           ps->texts.data ? (const char *)ps->texts.data + st->text : "",
                           st->text_len);
      }
    }
    if (tok_is(ps, t, "CASE") && tok_is(ps, nx, "WHEN")) return parse_case(ps, out, pos);
    bool found;
    TRY(parse_column(ps, out, &found));
    if (found) return 0;
    if (t->kind == T_IDENT) {
      if (is_kw(ps, "TRUE") || is_kw(ps, "FALSE")) {
        next(ps);
        return raw_literal(ps, out, RAW_BOOL, pos, pos + t->len,
                           tok_is(ps, t, "TRUE") ? "true" : "false", tok_is(ps, t, "TRUE") ? 4 : 5);
      }
      if (is_kw(ps, "NULL")) {
        next(ps);
        return raw_literal(ps, out, RAW_NULL, pos, pos + t->len, "", 0);
      }
      if (is_kw(ps, "DATE") || is_kw(ps, "TIMESTAMP") || is_kw(ps, "TIMESTAMP_NTZ")) {
        next(ps);
        return expect_fail(ps, "a quoted literal");
      }
      if (is_reserved(ps)) return expect_fail(ps, ps->operand_what);
    }
    size_t nl;
    const char *nm = tok_name(ps, t, &nl);
    return ex_perr(ps, INLET_ENOTFOUND, pos, "no column named \"%.*s\"", (int)(nl > 100 ? 100 : nl),
                   nm);
  }
  return expect_fail(ps, ps->operand_what);
}

/* primary ('.' name | '[' expr ']')* */
static int parse_postfix(parser *ps, expr_node **out) {
  expr_node *x = NULL;
  TRY(parse_primary(ps, &x));
  for (;;) {
    if (cur(ps)->kind == T_LBRACKET) {
      size_t pos = cur(ps)->pos;
      next(ps);
      expr_node *k = NULL;
      const char *what = ps->operand_what;
      ps->operand_what = "a column, literal or '('";
      int rc = parse_or(ps, &k);
      ps->operand_what = what;
      if (rc == 0 && cur(ps)->kind != T_RBRACKET) {
        expr_node_free(k);
        rc = expect_fail(ps, "']'");
      }
      if (rc < 0) {
        expr_node_free(x);
        return rc;
      }
      expr_node *n = ex_new_node(ps, V_INDEX, x->pos, cur(ps)->pos + 1);
      if (!n) {
        expr_node_free(x);
        expr_node_free(k);
        return INLET_ENOMEM;
      }
      next(ps);
      n->a = x;
      n->b = k;
      x = n;
      const inlet_field *f = n->a->field;
      if (n->a->vk != VK_LOC || !f ||
          (f->type.id != INLET_TYPE_LIST && f->type.id != INLET_TYPE_MAP)) {
        char tn[64];
        ex_type_name(n->a, tn, sizeof tn);
        rc = ex_perr(ps, INLET_EINVAL, pos, "cannot subscript a value of type %s", tn);
      } else {
        /* Lists take an integer index; maps a key of their key type. */
        const inlet_field *ef = &f->children[0];
        if (f->type.id == INLET_TYPE_LIST) {
          inlet_type lt = {.id = INLET_TYPE_INT64};
          rc = ex_settle(ps, &n->b, NULL);
          if (rc == 0 && !(n->b->vk == VK_I64 && ex_is_numeric(&n->b->type)))
            rc = ex_perr(ps, INLET_EINVAL, n->b->pos, "a list index must be an integer");
          if (rc == 0) rc = ex_cast_to(ps, &n->b, &lt, false);
          n->field = ef;
        } else {
          const inlet_field *kf = &ef->children[0];
          expr_node key_like;
          memset(&key_like, 0, sizeof key_like);
          key_like.kind = V_LIT;
          key_like.type = kf->type;
          key_like.vk = ex_vk_of(&kf->type);
          rc = ex_settle(ps, &n->b, &key_like);
          if (rc == 0) rc = ex_cast_to(ps, &n->b, &kf->type, false);
          n->field = &ef->children[1];
        }
        if (rc == 0) {
          n->type = n->field->type;
          n->vk = ex_vk_of(&n->type);
        }
      }
      if (rc < 0) {
        expr_node_free(x);
        return rc;
      }
      continue;
    }
    if (cur(ps)->kind == T_DOT && x->vk == VK_LOC && x->field &&
        x->field->type.id == INLET_TYPE_STRUCT &&
        (peek(ps, 1)->kind == T_IDENT || peek(ps, 1)->kind == T_QIDENT)) {
      next(ps);
      const tok *t = cur(ps);
      size_t nl;
      const char *nm = tok_name(ps, t, &nl);
      const inlet_field *f = x->field;
      int32_t k = -1;
      for (int pass = 0; pass < 2 && k < 0; pass++)
        for (int32_t j = 0; j < f->n_children && k < 0; j++)
          if (name_eq(nm, nl, f->children[j].name, pass == 1)) k = j;
      if (k < 0) {
        int rc = ex_perr(ps, INLET_ENOTFOUND, t->pos, "\"%s\" has no field \"%.*s\"", f->name,
                         (int)(nl > 100 ? 100 : nl), nm);
        expr_node_free(x);
        return rc;
      }
      expr_node *n = ex_new_node(ps, V_FIELD, x->pos, t->pos + t->len);
      int32_t *path = n ? inlet_malloc(sizeof *path) : NULL;
      if (!path) {
        expr_node_free(n);
        expr_node_free(x);
        return inlet_fail(ps->err, INLET_ENOMEM, "out of memory parsing a predicate");
      }
      next(ps);
      path[0] = k;
      n->path = path;
      n->n_path = 1;
      n->a = x;
      n->field = &f->children[k];
      n->type = n->field->type;
      n->vk = ex_vk_of(&n->type);
      x = n;
      continue;
    }
    break;
  }
  *out = x;
  return 0;
}

static int parse_unary(parser *ps, expr_node **out) {
  if (is_op(ps, TO_MINUS) || is_op(ps, TO_PLUS)) {
    bool minus = is_op(ps, TO_MINUS);
    size_t pos = cur(ps)->pos;
    TRY(enter(ps));
    next(ps);
    const tok *t = cur(ps);
    int rc;
    if (t->kind == T_NUMBER && peek(ps, 1)->kind != T_LBRACKET) {
      /* A signed number stays one literal, so that it is typed as a whole
       * (-9223372036854775808, a column's exact decimal). */
      char buf[130];
      if (t->len + 2 > sizeof buf) {
        leave(ps);
        return ex_perr(ps, INLET_EINVAL, t->pos, "number too long");
      }
      buf[0] = minus ? '-' : '+';
      memcpy(buf + 1, ps->src + t->pos, t->len);
      next(ps);
      rc = raw_literal(ps, out, RAW_NUMBER, pos, t->pos + t->len, buf, t->len + 1);
    } else {
      expr_node *x = NULL;
      rc = parse_unary(ps, &x);
      if (rc == 0 && minus) {
        rc = ex_settle(ps, &x, NULL);
        if (rc == 0 && !ex_is_numeric(&x->type)) {
          char tn[64];
          ex_type_name(x, tn, sizeof tn);
          rc = ex_perr(ps, INLET_EINVAL, pos, "cannot negate a value of type %s", tn);
        }
        expr_node *n = rc == 0 ? ex_new_node(ps, V_NEG, pos, x->end) : NULL;
        if (rc == 0 && !n) rc = INLET_ENOMEM;
        if (rc < 0) {
          expr_node_free(x);
        } else {
          n->a = x;
          n->type = x->type;
          if (n->type.id == INLET_TYPE_INT8 || n->type.id == INLET_TYPE_INT16 ||
              n->type.id == INLET_TYPE_INT32 || n->type.id == INLET_TYPE_UINT8 ||
              n->type.id == INLET_TYPE_UINT16 || n->type.id == INLET_TYPE_UINT32)
            n->type.id = INLET_TYPE_INT64;
          if (n->type.id == INLET_TYPE_UINT64) {
            n->type.id = INLET_TYPE_DECIMAL;
            n->type.precision = 20;
            n->type.scale = 0;
            rc = ex_cast_to(ps, &n->a, &n->type, false);
          }
          n->vk = ex_vk_of(&n->type);
          x = n;
        }
      }
      if (rc == 0) *out = x;
    }
    leave(ps);
    return rc;
  }
  return parse_postfix(ps, out);
}

static int parse_mul(parser *ps, expr_node **out) {
  expr_node *a = NULL;
  TRY(parse_unary(ps, &a));
  for (;;) {
    int op = is_op(ps, TO_STAR)      ? '*'
             : is_op(ps, TO_SLASH)   ? '/'
             : is_op(ps, TO_PERCENT) ? '%'
             : is_kw(ps, "DIV")      ? 'D'
                                     : 0;
    if (!op) break;
    size_t pos = cur(ps)->pos;
    int rc = chain(ps, pos);
    if (rc < 0) {
      expr_node_free(a);
      return rc;
    }
    next(ps);
    expr_node *b = NULL;
    rc = parse_unary(ps, &b);
    if (rc == 0)
      rc = ex_make_arith(ps, &a, op, pos, a, b);
    else
      expr_node_free(a);
    if (rc < 0) return rc;
  }
  *out = a;
  return 0;
}

static int parse_additive(parser *ps, expr_node **out) {
  expr_node *a = NULL;
  TRY(parse_mul(ps, &a));
  for (;;) {
    int op = is_op(ps, TO_PLUS) ? '+' : is_op(ps, TO_MINUS) ? '-' : is_op(ps, TO_CONCAT) ? '|' : 0;
    if (!op) break;
    size_t pos = cur(ps)->pos;
    int rc = chain(ps, pos);
    if (rc < 0) {
      expr_node_free(a);
      return rc;
    }
    next(ps);
    expr_node *b = NULL;
    rc = parse_mul(ps, &b);
    if (rc == 0)
      rc = ex_make_arith(ps, &a, op, pos, a, b);
    else
      expr_node_free(a);
    if (rc < 0) return rc;
  }
  *out = a;
  return 0;
}

/* An operand on the right of a comparison, IN, BETWEEN or LIKE. */
static int parse_operand(parser *ps, expr_node **out) {
  const char *what = ps->operand_what;
  ps->operand_what = "a literal";
  int rc = parse_additive(ps, out);
  ps->operand_what = what;
  return rc;
}

static int parse_in(parser *ps, expr_node **out, expr_node *x, bool neg) {
  next(ps); /* IN */
  if (cur(ps)->kind != T_LPAREN) {
    expr_node_free(x);
    return expect_fail(ps, "'('");
  }
  next(ps);
  expr_node *n = ex_new_node(ps, N_INX, x->pos, x->end);
  if (!n) {
    expr_node_free(x);
    return INLET_ENOMEM;
  }
  n->a = x;
  n->negate = neg;
  n->vk = VK_BOOL;
  n->type.id = INLET_TYPE_BOOL;
  int rc = 0;
  for (;;) {
    expr_node *it = NULL;
    rc = parse_operand(ps, &it);
    if (rc == 0) rc = add_arg(ps, n, it);
    if (rc < 0) break;
    if (cur(ps)->kind == T_COMMA) {
      next(ps);
      continue;
    }
    if (cur(ps)->kind == T_RPAREN) break;
    rc = expect_fail(ps, "',' or ')'");
    break;
  }
  if (rc == 0) {
    n->end = cur(ps)->pos + 1;
    next(ps);
    expr_node *m = n;
    n = NULL;
    rc = ex_type_special(ps, out, m);
  }
  expr_node_free(n);
  return rc;
}

static int parse_predicate(parser *ps, expr_node **out) {
  expr_node *x = NULL;
  TRY(parse_additive(ps, &x));
  int rc = 0;
  if (cur(ps)->kind == T_OP && cur(ps)->op <= OP_NSEQ) {
    expr_op op = (expr_op)cur(ps)->op;
    next(ps);
    expr_node *y = NULL;
    rc = parse_operand(ps, &y);
    if (rc < 0) {
      expr_node_free(x);
      return rc;
    }
    return ex_make_compare(ps, out, op, x, y);
  }
  if (is_kw(ps, "IS")) {
    next(ps);
    bool neg = false;
    if (is_kw(ps, "NOT")) {
      neg = true;
      next(ps);
    }
    if (is_kw(ps, "DISTINCT")) {
      next(ps);
      if (!is_kw(ps, "FROM")) {
        expr_node_free(x);
        return expect_fail(ps, "FROM");
      }
      next(ps);
      expr_node *y = NULL;
      rc = parse_operand(ps, &y);
      if (rc == 0)
        rc = ex_make_compare(ps, &x, OP_NSEQ, x, y);
      else
        expr_node_free(x);
      if (rc < 0) return rc;
      /* IS DISTINCT FROM is NOT (a <=> b). */
      if (!neg) return make_bin(ps, out, N_NOT, x, NULL);
      *out = x;
      return 0;
    }
    bool is_null = is_kw(ps, "NULL"), is_true = is_kw(ps, "TRUE"), is_false = is_kw(ps, "FALSE");
    if (!is_null && !is_true && !is_false) {
      expr_node_free(x);
      return expect_fail(ps, "NULL");
    }
    size_t end = cur(ps)->pos + cur(ps)->len;
    next(ps);
    rc = ex_settle(ps, &x, NULL);
    if (rc < 0) {
      expr_node_free(x);
      return rc;
    }
    expr_node *n = ex_new_node(ps, is_null ? N_ISNULL : N_ISBOOL, x->pos, end);
    if (!n) {
      expr_node_free(x);
      return INLET_ENOMEM;
    }
    n->negate = neg;
    n->vk = VK_BOOL;
    n->type.id = INLET_TYPE_BOOL;
    if (is_null && x->kind == V_COL && x->n_path == 0) {
      n->col = x->col; /* fast path, and skipping knows it */
      expr_node_free(x);
    } else {
      n->a = x;
      if (!is_null && x->vk != VK_BOOL) {
        char tn[64];
        ex_type_name(x, tn, sizeof tn);
        rc = ex_perr(ps, INLET_EINVAL, x->pos, "IS TRUE/FALSE needs a boolean, not %s", tn);
        expr_node_free(n);
        return rc;
      }
      n->constv = is_true ? EXPR_TRUE : EXPR_FALSE;
    }
    *out = n;
    return 0;
  }
  bool neg = false;
  if (is_kw(ps, "NOT")) {
    neg = true;
    next(ps);
    if (!is_kw(ps, "IN") && !is_kw(ps, "BETWEEN") && !is_kw(ps, "LIKE") && !is_kw(ps, "ILIKE")) {
      expr_node_free(x);
      return expect_fail(ps, "IN or BETWEEN");
    }
  }
  if (is_kw(ps, "IN")) return parse_in(ps, out, x, neg);
  if (is_kw(ps, "BETWEEN")) {
    next(ps);
    expr_node *n = ex_new_node(ps, N_BETWEEN, x->pos, x->end);
    if (!n) {
      expr_node_free(x);
      return INLET_ENOMEM;
    }
    n->negate = neg;
    rc = add_arg(ps, n, x);
    expr_node *lo = NULL, *hi = NULL;
    if (rc == 0) rc = parse_operand(ps, &lo);
    if (rc == 0) rc = add_arg(ps, n, lo);
    if (rc == 0 && !is_kw(ps, "AND")) rc = expect_fail(ps, "AND");
    if (rc == 0) {
      next(ps);
      rc = parse_operand(ps, &hi);
    }
    if (rc == 0) rc = add_arg(ps, n, hi);
    if (rc < 0) {
      expr_node_free(n);
      return rc;
    }
    n->end = n->args[2]->end;
    return ex_type_special(ps, out, n);
  }
  if (is_kw(ps, "LIKE") || is_kw(ps, "ILIKE")) {
    bool ci = is_kw(ps, "ILIKE");
    next(ps);
    expr_node *pat = NULL;
    rc = parse_operand(ps, &pat);
    if (rc < 0) {
      expr_node_free(x);
      return rc;
    }
    expr_node *n = ex_new_node(ps, N_LIKE, x->pos, pat->end);
    if (!n) {
      expr_node_free(x);
      expr_node_free(pat);
      return INLET_ENOMEM;
    }
    n->a = x;
    n->b = pat;
    n->negate = neg;
    n->esc = '\\';
    n->constv = ci; /* ILIKE: case-insensitive */
    if (is_kw(ps, "ESCAPE")) {
      next(ps);
      const tok *t = cur(ps);
      const char *e = ps->texts.data ? (const char *)ps->texts.data + t->text : "";
      if (t->kind != T_STRING || t->text_len != 1) {
        expr_node_free(n);
        return t->kind == T_STRING
                   ? ex_perr(ps, INLET_EINVAL, t->pos, "the escape must be one character")
                   : expect_fail(ps, "a quoted escape character");
      }
      n->esc = (unsigned char)e[0];
      n->end = t->pos + t->len;
      next(ps);
    }
    return ex_type_special(ps, out, n);
  }
  if (is_kw(ps, "RLIKE") || is_kw(ps, "REGEXP")) {
    size_t pos = cur(ps)->pos;
    expr_node_free(x);
    return ex_perr(ps, INLET_EUNSUPPORTED, pos,
                   "regular expressions (RLIKE) are not supported; use LIKE");
  }
  /* A value that no predicate follows: fine where a value may end (an
   * argument, a CASE branch, a parenthesis), else a predicate is missing. */
  const tok *t = cur(ps);
  bool boolean =
      (x->vk == VK_BOOL && x->type.id == INLET_TYPE_BOOL) ||
      (x->type.id == INLET_TYPE_INVALID && (x->raw_kind == RAW_BOOL || x->raw_kind == RAW_NULL));
  if (!boolean && t->kind != T_END && t->kind != T_RPAREN && t->kind != T_COMMA &&
      t->kind != T_RBRACKET && !is_kw(ps, "THEN") && !is_kw(ps, "ELSE") && !is_kw(ps, "END") &&
      !is_kw(ps, "WHEN") && !is_kw(ps, "AS")) {
    expr_node_free(x);
    return expect_fail(ps, "a comparison, IN, BETWEEN or IS [NOT] NULL");
  }
  *out = x;
  return 0;
}

static int parse_not(parser *ps, expr_node **out) {
  if (!is_kw(ps, "NOT")) return parse_predicate(ps, out);
  size_t pos = cur(ps)->pos;
  TRY(enter(ps));
  next(ps);
  expr_node *a = NULL;
  int rc = parse_not(ps, &a);
  if (rc == 0) rc = ex_to_pred(ps, &a);
  leave(ps);
  if (rc < 0) {
    expr_node_free(a);
    return rc;
  }
  TRY(make_bin(ps, out, N_NOT, a, NULL));
  (*out)->pos = pos;
  return 0;
}

static int parse_and(parser *ps, expr_node **out) {
  expr_node *a = NULL;
  TRY(parse_not(ps, &a));
  while (is_kw(ps, "AND")) {
    int rc = chain(ps, cur(ps)->pos);
    if (rc == 0) rc = ex_to_pred(ps, &a);
    if (rc < 0) {
      expr_node_free(a);
      return rc;
    }
    next(ps);
    expr_node *b = NULL;
    rc = parse_not(ps, &b);
    if (rc == 0) rc = ex_to_pred(ps, &b);
    if (rc < 0) {
      expr_node_free(a);
      expr_node_free(b);
      return rc;
    }
    TRY(make_bin(ps, &a, N_AND, a, b));
  }
  *out = a;
  return 0;
}

static int parse_or(parser *ps, expr_node **out) {
  TRY(enter(ps));
  expr_node *a = NULL;
  int rc = parse_and(ps, &a);
  while (rc == 0 && is_kw(ps, "OR")) {
    rc = chain(ps, cur(ps)->pos);
    if (rc == 0) rc = ex_to_pred(ps, &a);
    if (rc < 0) break;
    next(ps);
    expr_node *b = NULL;
    rc = parse_and(ps, &b);
    if (rc == 0) rc = ex_to_pred(ps, &b);
    if (rc < 0) {
      expr_node_free(b);
      break;
    }
    rc = make_bin(ps, &a, N_OR, a, b);
    if (rc < 0) a = NULL;
  }
  leave(ps);
  if (rc < 0) {
    expr_node_free(a);
    return rc;
  }
  *out = a;
  return 0;
}

/* ---- entry ---------------------------------------------------------------------------- */

static void collect_cols(const expr_node *n, uint8_t *used) {
  if (!n) return;
  if (n->col >= 0) used[n->col] = 1;
  collect_cols(n->a, used);
  collect_cols(n->b, used);
  for (int32_t i = 0; i < n->n_args; i++)
    collect_cols(n->args[i], used);
}

int expr_parse(inlet_predicate **out, const char *text, const inlet_schema *schema,
               expr_dialect dialect, inlet_error *err) {
  *out = NULL;
  parser ps;
  memset(&ps, 0, sizeof ps);
  ps.src = text ? text : "";
  ps.len = strlen(ps.src);
  ps.dialect = dialect;
  ps.err = err;
  ps.operand_what = "a column, literal or '('";
  inlet_buf_init(&ps.texts);
  FAIL_IF(ps.len > 1 << 20, err, INLET_ELIMIT, "predicate longer than 1 MiB");
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  ps.now_us = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
  inlet_predicate *p = inlet_calloc(1, sizeof *p);
  if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory parsing a predicate");
  int rc = 0;
  uint8_t *used = NULL;
  /* Nodes point at fields of the predicate's own copy of the schema. */
  TRY_GOTO(inlet_schema_copy(&p->schema, schema, err));
  ps.schema = &p->schema;
  TRY_GOTO(lex(&ps));
  if (inlet_buf_status(&ps.texts) < 0) {
    rc = inlet_fail(err, INLET_ENOMEM, "out of memory parsing a predicate");
    goto done;
  }
  if (cur(&ps)->kind == T_END) {
    rc = ex_perr(&ps, INLET_EINVAL, 0, "empty expression");
    goto done;
  }
  TRY_GOTO(parse_or(&ps, &p->root));
  if (cur(&ps)->kind != T_END) {
    rc = expect_fail(&ps, "AND, OR or the end of the expression");
    goto done;
  }
  TRY_GOTO(ex_to_pred(&ps, &p->root));
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
  inlet_free(ps.toks);
  inlet_buf_reset(&ps.texts);
  if (rc < 0) {
    expr_free(p);
    return rc;
  }
  *out = p;
  return 0;
}
