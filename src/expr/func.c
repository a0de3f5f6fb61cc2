/*
 * Functions of the expression language (the Spark SQL ones CHECK
 * constraints commonly use) and LIKE. Strings are UTF-8 and counted in
 * code points as Spark counts characters; lower/upper use the simple
 * Unicode case mapping of the C.UTF-8 locale (Java's full mapping differs
 * for a handful of characters such as U+0130). Dates and timestamps are
 * read in UTC.
 */
#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <wctype.h>

#include "batch/batch.h"
#include "util/datetime.h"
#include "expr/eval_int.h"

/* ---- UTF-8 ------------------------------------------------------------------- */

static int64_t utf8_chars(const uint8_t *p, int64_t n) {
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    k += (p[i] & 0xc0) != 0x80;
  return k;
}

/* Byte offset of character @p ch (clamped to the end). */
static int64_t utf8_offset(const uint8_t *p, int64_t n, int64_t ch) {
  int64_t i = 0;
  while (i < n && ch > 0) {
    i++;
    while (i < n && (p[i] & 0xc0) == 0x80)
      i++;
    ch--;
  }
  return i;
}

/* Decodes one code point at p[*i] (an invalid byte stands for itself). */
static uint32_t utf8_next(const uint8_t *p, int64_t n, int64_t *i) {
  uint32_t c = p[*i];
  int extra = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
  if (extra == 0 || *i + extra >= n) {
    (*i)++;
    return c;
  }
  uint32_t cp = c & (0x3fu >> extra);
  for (int k = 1; k <= extra; k++) {
    uint8_t b = p[*i + k];
    if ((b & 0xc0) != 0x80) {
      (*i)++;
      return c;
    }
    cp = (cp << 6) | (b & 0x3f);
  }
  *i += extra + 1;
  return cp;
}

static int64_t utf8_put(uint8_t *o, uint32_t cp) {
  if (cp < 0x80) {
    o[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (uint8_t)(0xc0 | (cp >> 6));
    o[1] = (uint8_t)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (uint8_t)(0xe0 | (cp >> 12));
    o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (uint8_t)(0x80 | (cp & 0x3f));
    return 3;
  }
  o[0] = (uint8_t)(0xf0 | (cp >> 18));
  o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
  o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
  o[3] = (uint8_t)(0x80 | (cp & 0x3f));
  return 4;
}

/* Spark's substringSQL: 1-based @p pos (0 is 1, negative counts from the
 * end), @p len characters (<= 0: empty). */
static ex_str substring_sql(ex_str s, int64_t pos, int64_t len) {
  int64_t chars = utf8_chars(s.p, s.n);
  int64_t start = pos > 0 ? pos - 1 : pos < 0 ? chars + pos : 0;
  int64_t end;
  if (__builtin_add_overflow(start, len, &end)) end = len > 0 ? INT64_MAX : INT64_MIN;
  if (start < 0) start = 0;
  ex_str out = {s.p, 0};
  if (start >= end || start >= chars) return out;
  if (end > chars) end = chars;
  int64_t a = utf8_offset(s.p, s.n, start), b = utf8_offset(s.p, s.n, end);
  out.p = s.p + a;
  out.n = b - a;
  return out;
}

static bool bytes_find(ex_str h, ex_str n) {
  if (n.n == 0) return true;
  for (int64_t i = 0; i + n.n <= h.n; i++)
    if (memcmp(h.p + i, n.p, (size_t)n.n) == 0) return true;
  return false;
}

/* ---- LIKE --------------------------------------------------------------------- */

static uint32_t fold(uint32_t c, bool ci) {
  return ci && c < 0x80 ? (uint32_t)tolower((int)c) : c;
}

/* SQL LIKE: % any sequence, _ one character, @p esc makes the next pattern
 * character literal. Greedy with backtracking to the last %. */
static bool like_match(ex_str s, ex_str p, uint32_t esc, bool ci) {
  int64_t si = 0, pi = 0, star_p = -1, star_s = 0;
  while (si < s.n) {
    if (pi < p.n) {
      int64_t pj = pi;
      uint32_t pc = utf8_next(p.p, p.n, &pj);
      if (pc == esc && pj < p.n) {
        int64_t pk = pj;
        uint32_t lit = utf8_next(p.p, p.n, &pk);
        int64_t sj = si;
        uint32_t sc = utf8_next(s.p, s.n, &sj);
        if (fold(sc, ci) == fold(lit, ci)) {
          si = sj;
          pi = pk;
          continue;
        }
      } else if (pc == '%') {
        star_p = pi = pj;
        star_s = si;
        continue;
      } else {
        int64_t sj = si;
        uint32_t sc = utf8_next(s.p, s.n, &sj);
        if (pc == '_' || fold(sc, ci) == fold(pc, ci)) {
          si = sj;
          pi = pj;
          continue;
        }
      }
    }
    if (star_p < 0) return false;
    /* Let the last % swallow one more character. */
    utf8_next(s.p, s.n, &star_s);
    si = star_s;
    pi = star_p;
  }
  while (pi < p.n) {
    int64_t pj = pi;
    if (utf8_next(p.p, p.n, &pj) != '%') return false;
    pi = pj;
  }
  return true;
}

int ex_eval_like(ex_ctx *c, const expr_node *n, ex_vec *out) {
  ex_vec x, pat;
  TRY(ex_eval(c, n->a, &x));
  TRY(ex_eval(c, n->b, &pat));
  memset(out, 0, sizeof *out);
  out->v.b = ex_alloc(c, (size_t)c->n, false);
  if (!out->v.b) return INLET_ENOMEM;
  for (int64_t r = 0; r < c->n; r++) {
    if (ex_isnull(&x, VK_STR, r) || ex_isnull(&pat, VK_STR, r)) {
      out->v.b[r] = EXPR_NULL;
      continue;
    }
    bool m = like_match(x.v.s[r], pat.v.s[r], n->esc, n->constv != 0);
    out->v.b[r] = m != n->negate;
  }
  return 0;
}

/* ---- functions ------------------------------------------------------------------ */

static int case_map(ex_ctx *c, const ex_vec *x, ex_vec *out, bool upper) {
  locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
  int rc = 0;
  for (int64_t r = 0; r < c->n && rc == 0; r++) {
    if (ex_isnull(x, VK_STR, r)) {
      out->nul[r] = 1;
      continue;
    }
    ex_str s = x->v.s[r];
    uint8_t *o = ex_alloc(c, (size_t)s.n * 2 + 4, false);
    if (!o) {
      rc = INLET_ENOMEM;
      break;
    }
    int64_t k = 0;
    for (int64_t i = 0; i < s.n;) {
      uint32_t ch = s.p[i];
      if (ch < 0x80) {
        o[k++] = (uint8_t)(upper ? (ch >= 'a' && ch <= 'z' ? ch - 32 : ch)
                                 : (ch >= 'A' && ch <= 'Z' ? ch + 32 : ch));
        i++;
        continue;
      }
      int64_t from = i;
      ch = utf8_next(s.p, s.n, &i);
      if (loc != (locale_t)0 && i - from > 1) {
        uint32_t m = (uint32_t)(upper ? towupper_l((wint_t)ch, loc) : towlower_l((wint_t)ch, loc));
        uint8_t tmp[4];
        int64_t w = utf8_put(tmp, m);
        if (k + w > s.n * 2 + 4) w = 0;
        memcpy(o + k, tmp, (size_t)w);
        k += w;
      } else {
        memcpy(o + k, s.p + from, (size_t)(i - from));
        k += i - from;
      }
    }
    out->v.s[r].p = o;
    out->v.s[r].n = k;
  }
  if (loc != (locale_t)0) freelocale(loc);
  return rc;
}

int ex_eval_func(ex_ctx *c, const expr_node *n, ex_vec *out) {
  int32_t na = n->n_args;
  ex_vec *args = ex_alloc(c, (size_t)na * sizeof *args + 1, true);
  if (!args) return INLET_ENOMEM;
  for (int32_t i = 0; i < na; i++)
    TRY(ex_eval(c, n->args[i], &args[i]));
  TRY(ex_vec_new(c, n->vk, out));
  int64_t N = c->n;
  ex_vec *x = &args[0];
  ex_vk xvk = na ? n->args[0]->vk : VK_BOOL;
  /* Functions that see NULL arguments themselves. */
  switch (n->fn) {
  case FN_COALESCE:
    for (int64_t r = 0; r < N; r++) {
      int32_t i = 0;
      while (i < na - 1 && ex_isnull(&args[i], n->args[i]->vk, r))
        i++;
      ex_copy_row(n->vk, out, r, &args[i], r);
    }
    return 0;
  case FN_IF:
    for (int64_t r = 0; r < N; r++)
      ex_copy_row(n->vk, out, r, &args[x->v.b[r] == EXPR_TRUE ? 1 : 2], r);
    return 0;
  case FN_NULLIF:
    for (int64_t r = 0; r < N; r++) {
      bool same =
          !ex_isnull(&args[0], xvk, r) && !ex_isnull(&args[1], n->args[1]->vk, r) &&
          ex_cmp_rows(xvk, &args[0], &n->args[0]->type, r, &args[1], &n->args[1]->type, r) == 0;
      if (same) {
        if (n->vk == VK_BOOL)
          out->v.b[r] = EXPR_NULL;
        else
          out->nul[r] = 1;
      } else {
        ex_copy_row(n->vk, out, r, &args[0], r);
      }
    }
    return 0;
  case FN_ISNULL:
  case FN_ISNOTNULL:
    for (int64_t r = 0; r < N; r++)
      out->v.b[r] = ex_isnull(x, xvk, r) == (n->fn == FN_ISNULL) ? EXPR_TRUE : EXPR_FALSE;
    return 0;
  case FN_GREATEST:
  case FN_LEAST:
    /* NULLs are skipped; NULL only when every argument is. */
    for (int64_t r = 0; r < N; r++) {
      int32_t best = -1;
      for (int32_t i = 0; i < na; i++) {
        if (ex_isnull(&args[i], n->args[i]->vk, r)) continue;
        if (best < 0) {
          best = i;
          continue;
        }
        int k = ex_cmp_rows(n->args[i]->vk, &args[i], &n->args[i]->type, r, &args[best],
                            &n->args[best]->type, r);
        if (n->fn == FN_GREATEST ? k > 0 : k < 0) best = i;
      }
      if (best < 0) {
        if (n->vk == VK_BOOL)
          out->v.b[r] = EXPR_NULL;
        else
          out->nul[r] = 1;
      } else {
        ex_copy_row(n->vk, out, r, &args[best], r);
      }
    }
    return 0;
  default: break;
  }
  /* The rest are NULL when any argument is. */
  for (int64_t r = 0; r < N; r++) {
    bool null = false;
    for (int32_t i = 0; i < na && !null; i++)
      null = ex_isnull(&args[i], n->args[i]->vk, r);
    if (null) {
      if (n->vk == VK_BOOL)
        out->v.b[r] = EXPR_NULL;
      else
        out->nul[r] = 1;
    }
  }
  switch (n->fn) {
  case FN_LOWER:
  case FN_UPPER: return case_map(c, x, out, n->fn == FN_UPPER);
  case FN_CONCAT:
    for (int64_t r = 0; r < N; r++) {
      if (out->nul[r]) continue;
      int64_t total = 0;
      for (int32_t i = 0; i < na; i++)
        total += args[i].v.s[r].n;
      uint8_t *o = ex_alloc(c, (size_t)total, false);
      if (!o) return INLET_ENOMEM;
      int64_t k = 0;
      for (int32_t i = 0; i < na; i++) {
        if (args[i].v.s[r].n) memcpy(o + k, args[i].v.s[r].p, (size_t)args[i].v.s[r].n);
        k += args[i].v.s[r].n;
      }
      out->v.s[r].p = o;
      out->v.s[r].n = total;
    }
    return 0;
  default: break;
  }
  for (int64_t r = 0; r < N; r++) {
    if (n->vk == VK_BOOL ? out->v.b[r] == EXPR_NULL : out->nul[r]) continue;
    switch (n->fn) {
    case FN_LENGTH:
      out->v.i[r] = n->args[0]->type.id == INLET_TYPE_STRING ? utf8_chars(x->v.s[r].p, x->v.s[r].n)
                                                             : x->v.s[r].n;
      break;
    case FN_TRIM:
    case FN_LTRIM:
    case FN_RTRIM: {
      ex_str s = x->v.s[r];
      if (n->fn != FN_RTRIM)
        while (s.n > 0 && s.p[0] == ' ')
          s.p++, s.n--;
      if (n->fn != FN_LTRIM)
        while (s.n > 0 && s.p[s.n - 1] == ' ')
          s.n--;
      out->v.s[r] = s;
      break;
    }
    case FN_SUBSTRING:
      out->v.s[r] = substring_sql(x->v.s[r], args[1].v.i[r], na > 2 ? args[2].v.i[r] : INT64_MAX);
      break;
    case FN_LEFT: {
      int64_t len = args[1].v.i[r];
      out->v.s[r] = len <= 0 ? (ex_str){x->v.s[r].p, 0} : substring_sql(x->v.s[r], 1, len);
      break;
    }
    case FN_RIGHT: {
      int64_t len = args[1].v.i[r];
      out->v.s[r] = len <= 0 || len == INT64_MIN ? (ex_str){x->v.s[r].p, 0}
                                                 : substring_sql(x->v.s[r], -len, len);
      break;
    }
    case FN_STARTSWITH:
    case FN_ENDSWITH:
    case FN_CONTAINS: {
      ex_str h = x->v.s[r], k = args[1].v.s[r];
      bool m;
      if (n->fn == FN_CONTAINS)
        m = bytes_find(h, k);
      else if (k.n > h.n)
        m = false;
      else if (n->fn == FN_STARTSWITH)
        m = k.n == 0 || memcmp(h.p, k.p, (size_t)k.n) == 0;
      else
        m = k.n == 0 || memcmp(h.p + h.n - k.n, k.p, (size_t)k.n) == 0;
      out->v.b[r] = m ? EXPR_TRUE : EXPR_FALSE;
      break;
    }
    case FN_ABS:
      if (n->vk == VK_I64) {
        if (x->v.i[r] == INT64_MIN)
          out->nul[r] = 1;
        else
          out->v.i[r] = x->v.i[r] < 0 ? -x->v.i[r] : x->v.i[r];
      } else if (n->vk == VK_U64) {
        out->v.u[r] = x->v.u[r];
      } else if (n->vk == VK_F64) {
        out->v.d[r] = fabs(x->v.d[r]);
      } else {
        out->v.q[r] = x->v.q[r] < 0 ? -x->v.q[r] : x->v.q[r];
      }
      break;
    case FN_SIZE: {
      int64_t e = x->idx ? x->idx[r] : c->base + r;
      out->v.i[r] = x->arr->offsets[e + 1] - x->arr->offsets[e];
      break;
    }
    case FN_YEAR:
    case FN_MONTH:
    case FN_DAY: {
      int64_t y;
      int m, d;
      inlet_civil_from_days(x->v.i[r], &y, &m, &d);
      out->v.i[r] = n->fn == FN_YEAR ? y : n->fn == FN_MONTH ? m : d;
      break;
    }
    default: { /* HOUR, MINUTE, SECOND of a microsecond timestamp */
      int64_t us = x->v.i[r];
      int64_t day = us >= 0 ? us / 86400000000LL : -((-us - 1) / 86400000000LL) - 1;
      int64_t secs = (us - day * 86400000000LL) / 1000000;
      out->v.i[r] = n->fn == FN_HOUR     ? secs / 3600
                    : n->fn == FN_MINUTE ? secs / 60 % 60
                                         : secs % 60;
      break;
    }
    }
  }
  return 0;
}
