/*
 * JSON text to Variant binary (batch.h batch_variant_from_json): what
 * writers store in a variant column.
 *
 * Spec: apache/parquet-format VariantEncoding.md. Numbers follow Spark's
 * parse_json (VariantBuilder.buildJson), so that a value inlet writes holds
 * the same types as one Spark writes from the same text:
 *   - an integer literal that fits int64 is the smallest of int8, int16,
 *     int32, int64 that holds it;
 *   - a literal without exponent ('-', digits, '.') whose BigDecimal
 *     precision and scale are both <= 38 is a decimal: decimal4 when both
 *     are <= 9, decimal8 when <= 18, else decimal16 (trailing fraction zeros
 *     count, so 1.50 stays 1.50);
 *   - any other number (an exponent, more than 38 digits) is a double; one
 *     beyond double's range is refused (newer Spark refuses it too).
 * Strings are short strings up to 63 bytes, otherwise the string primitive.
 *
 * The encoding is canonical (the same JSON value always gives the same
 * bytes): the metadata dictionary holds each key once, sorted by its UTF-8
 * bytes, with the sorted_strings flag set; object fields and their values
 * are laid out in key order; every offset, field id and count uses the
 * smallest width that holds it. Spark numbers keys in order of first
 * appearance and sets no flag: both are valid encodings of the same value
 * and read alike (variant.c).
 *
 * The text is parsed into a tree first (keys must be known and sorted
 * before any field id is written), then written depth first: a container
 * writes its children, then moves them up by the size of its header, whose
 * offset width only their total size decides. Input is untrusted: nesting
 * is limited to BATCH_VARIANT_MAX_DEPTH (what the decoder reads back), the
 * value to BATCH_VARIANT_MAX_BYTES, and the text must be UTF-8.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "batch/text_int.h"

enum { N_NULL, N_TRUE, N_FALSE, N_INT, N_DEC, N_DOUBLE, N_STRING, N_OBJECT, N_ARRAY };

typedef struct vnode {
  uint8_t kind;
  uint8_t scale; /* N_DEC */
  uint8_t width; /* N_DEC: 4, 8 or 16 */
  union {
    int64_t i;
    double d;
    uint8_t dec[16]; /* little-endian two's complement */
    struct {
      size_t off, len; /* N_STRING: bytes in enc.strs */
    } s;
    struct {
      size_t first, n; /* N_OBJECT/N_ARRAY: entries in enc.ents */
    } c;
  } u;
} vnode;

/* A container's element: node index and, in objects, the key (a string in
 * enc.strs; after numbering, its field id). */
typedef struct vent {
  size_t node;
  size_t key_off, key_len;
  uint32_t id;
} vent;

typedef struct enc {
  const char *p0, *p, *end;
  vnode *nodes;
  size_t n_nodes, cap_nodes;
  vent *ents; /* final element lists, contiguous per container */
  size_t n_ents, cap_ents;
  vent *stk; /* elements of the containers being parsed */
  size_t n_stk, cap_stk;
  inlet_buf strs; /* unescaped strings and keys */
  vent *keys;     /* the distinct keys in id order (key_off, key_len) */
  size_t n_keys;
  inlet_error *err;
} enc;

static int bad(enc *e, const char *what) {
  return inlet_fail(e->err, INLET_EINVAL, "variant: invalid JSON at byte %zu: %s",
                    (size_t)(e->p - e->p0), what);
}

static int oom(enc *e) {
  return inlet_fail(e->err, INLET_ENOMEM, "out of memory encoding a variant");
}

static void ws(enc *e) {
  while (e->p < e->end && (*e->p == ' ' || *e->p == '\t' || *e->p == '\n' || *e->p == '\r'))
    e->p++;
}

static int grow(void **arr, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 16;
  while (nc < need)
    nc *= 2;
  void *n = inlet_realloc(*arr, nc * size);
  if (!n) return INLET_ENOMEM;
  *arr = n;
  *cap = nc;
  return 0;
}

static int new_node(enc *e, uint8_t kind, size_t *out) {
  if (grow((void **)&e->nodes, &e->cap_nodes, e->n_nodes + 1, sizeof *e->nodes) < 0) return oom(e);
  memset(&e->nodes[e->n_nodes], 0, sizeof *e->nodes);
  e->nodes[e->n_nodes].kind = kind;
  *out = e->n_nodes++;
  return 0;
}

static int hex4(const char *p, uint32_t *v) {
  *v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return -1;
    *v = *v << 4 | (uint32_t)d;
  }
  return 0;
}

/* A JSON string at e->p (the opening quote) into e->strs: *off, *len. */
static int string(enc *e, size_t *off, size_t *len) {
  e->p++;
  *off = e->strs.len;
  for (;;) {
    const char *s = e->p;
    while (e->p < e->end && *e->p != '"' && *e->p != '\\' && (unsigned char)*e->p >= 0x20)
      e->p++;
    if (e->p > s) inlet_buf_append(&e->strs, s, (size_t)(e->p - s));
    if (e->p >= e->end) return bad(e, "unterminated string");
    if (*e->p == '"') break;
    if (*e->p != '\\') return bad(e, "control character in a string");
    if (e->end - e->p < 2) return bad(e, "unterminated escape");
    char c = e->p[1];
    e->p += 2;
    switch (c) {
    case '"':
    case '\\':
    case '/': inlet_buf_push(&e->strs, (uint8_t)c); break;
    case 'b': inlet_buf_push(&e->strs, '\b'); break;
    case 'f': inlet_buf_push(&e->strs, '\f'); break;
    case 'n': inlet_buf_push(&e->strs, '\n'); break;
    case 'r': inlet_buf_push(&e->strs, '\r'); break;
    case 't': inlet_buf_push(&e->strs, '\t'); break;
    case 'u': {
      uint32_t cp, lo;
      if (e->end - e->p < 4 || hex4(e->p, &cp) < 0) return bad(e, "bad \\u escape");
      e->p += 4;
      if (cp >= 0xDC00 && cp <= 0xDFFF) return bad(e, "lone low surrogate");
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (e->end - e->p < 6 || e->p[0] != '\\' || e->p[1] != 'u' || hex4(e->p + 2, &lo) < 0 ||
            lo < 0xDC00 || lo > 0xDFFF)
          return bad(e, "high surrogate without its low half");
        e->p += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      }
      inlet_buf_put_utf8(&e->strs, cp);
      break;
    }
    default: return bad(e, "unknown escape");
    }
  }
  e->p++;
  *len = e->strs.len - *off;
  return inlet_buf_status(&e->strs) < 0 ? oom(e) : 0;
}

/* Digits d[0..n) (no sign) into 16 bytes little-endian; n <= 38 fits. */
static void digits_to_le(const char *d, size_t n, bool neg, uint8_t out[16]) {
  uint32_t w[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    if (d[i] == '.') continue;
    uint64_t carry = (uint64_t)(d[i] - '0');
    for (int k = 0; k < 4; k++) {
      uint64_t v = (uint64_t)w[k] * 10 + carry;
      w[k] = (uint32_t)v;
      carry = v >> 32;
    }
  }
  if (neg) { /* two's complement: invert, add one */
    uint64_t carry = 1;
    for (int k = 0; k < 4; k++) {
      uint64_t v = (uint64_t)(uint32_t)~w[k] + carry;
      w[k] = (uint32_t)v;
      carry = v >> 32;
    }
  }
  for (int k = 0; k < 16; k++)
    out[k] = (uint8_t)(w[k / 4] >> (8 * (k % 4)));
}

static int number(enc *e, size_t *out) {
  const char *s = e->p;
  bool neg = false, frac = false, expo = false;
  if (e->p < e->end && *e->p == '-') {
    neg = true;
    e->p++;
  }
  const char *ds = e->p; /* digits, and the point */
  if (e->p >= e->end || *e->p < '0' || *e->p > '9') return bad(e, "bad number");
  if (*e->p == '0') {
    e->p++;
  } else {
    while (e->p < e->end && *e->p >= '0' && *e->p <= '9')
      e->p++;
  }
  size_t int_digits = (size_t)(e->p - ds), frac_digits = 0;
  if (e->p < e->end && *e->p == '.') {
    frac = true;
    e->p++;
    const char *f = e->p;
    while (e->p < e->end && *e->p >= '0' && *e->p <= '9')
      e->p++;
    frac_digits = (size_t)(e->p - f);
    if (!frac_digits) return bad(e, "no digits after the decimal point");
  }
  const char *de = e->p;
  if (e->p < e->end && (*e->p == 'e' || *e->p == 'E')) {
    expo = true;
    e->p++;
    if (e->p < e->end && (*e->p == '+' || *e->p == '-')) e->p++;
    const char *x = e->p;
    while (e->p < e->end && *e->p >= '0' && *e->p <= '9')
      e->p++;
    if (e->p == x) return bad(e, "no digits in the exponent");
  }
  size_t n = 0;
  if (!expo) {
    /* BigDecimal precision: the unscaled digits without leading zeros (at
     * least one); scale: the fraction digits. */
    const char *q = ds;
    while (q < de && (*q == '0' || *q == '.'))
      q++;
    size_t prec = 0;
    for (const char *r = q; r < de; r++)
      prec += *r != '.';
    if (prec == 0) prec = 1;
    if (!frac && prec <= 19) {
      /* int64 when it fits (-9223372036854775808 .. 9223372036854775807) */
      uint64_t u = 0;
      for (const char *r = ds; r < de; r++)
        u = u * 10 + (uint64_t)(*r - '0');
      bool fits = prec < 19 || (neg ? u <= (uint64_t)INT64_MAX + 1 : u <= (uint64_t)INT64_MAX);
      if (fits) {
        TRY(new_node(e, N_INT, &n));
        e->nodes[n].u.i = neg ? (int64_t)(0 - u) : (int64_t)u;
        *out = n;
        return 0;
      }
    }
    if (prec <= 38 && frac_digits <= 38) {
      TRY(new_node(e, N_DEC, &n));
      vnode *v = &e->nodes[n];
      v->scale = (uint8_t)frac_digits;
      v->width = prec <= 9 && frac_digits <= 9 ? 4 : prec <= 18 && frac_digits <= 18 ? 8 : 16;
      digits_to_le(q, (size_t)(de - q), neg, v->u.dec);
      (void)int_digits;
      *out = n;
      return 0;
    }
  }
  size_t len = (size_t)(e->p - s);
  char small[64], *t = len < sizeof small ? small : inlet_malloc(len + 1);
  if (!t) return oom(e);
  memcpy(t, s, len);
  t[len] = 0;
  double d = strtod(t, NULL);
  if (t != small) inlet_free(t);
  if (!isfinite(d)) return bad(e, "number beyond the range of a double");
  TRY(new_node(e, N_DOUBLE, &n));
  e->nodes[n].u.d = d;
  *out = n;
  return 0;
}

static bool lit(enc *e, const char *w, size_t n) {
  if ((size_t)(e->end - e->p) < n || memcmp(e->p, w, n) != 0) return false;
  e->p += n;
  return true;
}

static int value(enc *e, int depth, size_t *out);

/* Moves the elements pushed since @p base from the stack to e->ents. */
static int close_container(enc *e, size_t node, size_t base) {
  size_t n = e->n_stk - base;
  if (grow((void **)&e->ents, &e->cap_ents, e->n_ents + n, sizeof *e->ents) < 0) return oom(e);
  if (n) memcpy(e->ents + e->n_ents, e->stk + base, n * sizeof *e->ents);
  e->nodes[node].u.c.first = e->n_ents;
  e->nodes[node].u.c.n = n;
  e->n_ents += n;
  e->n_stk = base;
  return 0;
}

static int push(enc *e, vent x) {
  if (grow((void **)&e->stk, &e->cap_stk, e->n_stk + 1, sizeof *e->stk) < 0) return oom(e);
  e->stk[e->n_stk++] = x;
  return 0;
}

static int container(enc *e, int depth, bool obj, size_t *out) {
  size_t node, base = e->n_stk;
  TRY(new_node(e, obj ? N_OBJECT : N_ARRAY, &node));
  e->p++;
  ws(e);
  if (e->p < e->end && *e->p == (obj ? '}' : ']')) {
    e->p++;
    *out = node;
    return close_container(e, node, base);
  }
  for (;;) {
    vent x = {0};
    ws(e);
    if (obj) {
      if (e->p >= e->end || *e->p != '"') return bad(e, "expected a key");
      TRY(string(e, &x.key_off, &x.key_len));
      ws(e);
      if (e->p >= e->end || *e->p != ':') return bad(e, "expected ':'");
      e->p++;
    }
    TRY(value(e, depth + 1, &x.node));
    TRY(push(e, x));
    ws(e);
    if (e->p < e->end && *e->p == ',') {
      e->p++;
      continue;
    }
    if (e->p < e->end && *e->p == (obj ? '}' : ']')) {
      e->p++;
      break;
    }
    return bad(e, obj ? "expected ',' or '}'" : "expected ',' or ']'");
  }
  *out = node;
  return close_container(e, node, base);
}

static int value(enc *e, int depth, size_t *out) {
  if (depth > BATCH_VARIANT_MAX_DEPTH)
    return inlet_fail(e->err, INLET_EINVAL, "variant: JSON nested deeper than %d levels",
                      BATCH_VARIANT_MAX_DEPTH);
  ws(e);
  if (e->p >= e->end) return bad(e, "expected a value");
  switch (*e->p) {
  case '{': return container(e, depth, true, out);
  case '[': return container(e, depth, false, out);
  case '"': {
    size_t off, len;
    TRY(string(e, &off, &len));
    TRY(new_node(e, N_STRING, out));
    e->nodes[*out].u.s.off = off;
    e->nodes[*out].u.s.len = len;
    return 0;
  }
  case 't':
    if (lit(e, "true", 4)) return new_node(e, N_TRUE, out);
    break;
  case 'f':
    if (lit(e, "false", 5)) return new_node(e, N_FALSE, out);
    break;
  case 'n':
    if (lit(e, "null", 4)) return new_node(e, N_NULL, out);
    break;
  default:
    if (*e->p == '-' || (*e->p >= '0' && *e->p <= '9')) return number(e, out);
  }
  return bad(e, "unexpected character");
}

/* ---- numbering the keys ------------------------------------------------------ */

static const enc *sort_ctx; /* qsort has no context argument in C11 */

static int key_cmp(size_t ao, size_t al, size_t bo, size_t bl, const enc *e) {
  size_t m = al < bl ? al : bl;
  int c = m ? memcmp(e->strs.data + ao, e->strs.data + bo, m) : 0;
  return c ? c : (al > bl) - (al < bl);
}

static int cmp_key_idx(const void *a, const void *b) {
  const vent *x = &sort_ctx->ents[*(const size_t *)a], *y = &sort_ctx->ents[*(const size_t *)b];
  return key_cmp(x->key_off, x->key_len, y->key_off, y->key_len, sort_ctx);
}

static int cmp_ent_id(const void *a, const void *b) {
  uint32_t x = ((const vent *)a)->id, y = ((const vent *)b)->id;
  return (x > y) - (x < y);
}

/* Sorts every key, gives each distinct one its rank as field id, then puts
 * each object's fields in id (= key) order; a repeated key is refused, as
 * Spark's parse_json refuses it. */
static int number_keys(enc *e) {
  size_t nk = 0;
  for (size_t i = 0; i < e->n_nodes; i++)
    if (e->nodes[i].kind == N_OBJECT) nk += e->nodes[i].u.c.n;
  if (!nk) return 0;
  size_t *idx = inlet_malloc(nk * sizeof *idx);
  if (!idx) return oom(e);
  size_t k = 0;
  for (size_t i = 0; i < e->n_nodes; i++)
    if (e->nodes[i].kind == N_OBJECT)
      for (size_t j = 0; j < e->nodes[i].u.c.n; j++)
        idx[k++] = e->nodes[i].u.c.first + j;
  sort_ctx = e;
  qsort(idx, nk, sizeof *idx, cmp_key_idx);
  sort_ctx = NULL;
  uint32_t id = 0;
  size_t uniq = 0;
  const vent *prev = NULL;
  for (size_t i = 0; i < nk; i++) {
    size_t at = idx[i];
    vent *x = &e->ents[at];
    bool fresh = !prev || key_cmp(prev->key_off, prev->key_len, x->key_off, x->key_len, e) != 0;
    if (fresh && prev) id++;
    x->id = id;
    /* uniq <= i: the slot written was read already */
    if (fresh) idx[uniq++] = at;
    prev = x;
  }
  /* Copies: sorting each object's fields below moves the entries. */
  e->keys = inlet_malloc(uniq * sizeof *e->keys);
  if (!e->keys) {
    inlet_free(idx);
    return oom(e);
  }
  for (size_t i = 0; i < uniq; i++)
    e->keys[i] = e->ents[idx[i]];
  e->n_keys = uniq;
  inlet_free(idx);
  for (size_t i = 0; i < e->n_nodes; i++) {
    if (e->nodes[i].kind != N_OBJECT) continue;
    vent *f = e->ents + e->nodes[i].u.c.first;
    size_t n = e->nodes[i].u.c.n;
    qsort(f, n, sizeof *f, cmp_ent_id);
    for (size_t j = 1; j < n; j++)
      if (f[j].id == f[j - 1].id)
        return inlet_fail(e->err, INLET_EINVAL, "variant: duplicate object key \"%.*s\"",
                          (int)(f[j].key_len > 200 ? 200 : f[j].key_len),
                          /* all keys empty: no string bytes at all */
                          e->strs.data ? (const char *)e->strs.data + f[j].key_off : "");
  }
  return 0;
}

/* ---- writing ---------------------------------------------------------------- */

static size_t width_of(size_t v) { /* bytes to hold v, 1..4 */
  return v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFFFF ? 3 : 4;
}

static void put_le(uint8_t *p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static int emit(enc *e, inlet_buf *o, size_t node) {
  const vnode *v = &e->nodes[node];
  uint8_t h[18];
  switch (v->kind) {
  case N_NULL: return inlet_buf_push(o, 0 << 2);
  case N_TRUE: return inlet_buf_push(o, 1 << 2);
  case N_FALSE: return inlet_buf_push(o, 2 << 2);
  case N_INT: {
    int64_t x = v->u.i;
    size_t n = x >= INT8_MIN && x <= INT8_MAX     ? 1
               : x >= INT16_MIN && x <= INT16_MAX ? 2
               : x >= INT32_MIN && x <= INT32_MAX ? 4
                                                  : 8;
    h[0] = (uint8_t)((n == 1 ? 3 : n == 2 ? 4 : n == 4 ? 5 : 6) << 2);
    put_le(h + 1, (uint64_t)x, n);
    return inlet_buf_append(o, h, 1 + n);
  }
  case N_DEC:
    h[0] = (uint8_t)((v->width == 4 ? 8 : v->width == 8 ? 9 : 10) << 2);
    h[1] = v->scale;
    memcpy(h + 2, v->u.dec, v->width);
    return inlet_buf_append(o, h, 2 + (size_t)v->width);
  case N_DOUBLE: {
    uint64_t u;
    memcpy(&u, &v->u.d, 8);
    h[0] = 7 << 2;
    put_le(h + 1, u, 8);
    return inlet_buf_append(o, h, 9);
  }
  case N_STRING: {
    size_t n = v->u.s.len;
    if (n <= 63) {
      inlet_buf_push(o, (uint8_t)(n << 2 | 1));
    } else {
      if (n > BATCH_VARIANT_MAX_BYTES) return INLET_ELIMIT;
      h[0] = 16 << 2;
      put_le(h + 1, n, 4);
      inlet_buf_append(o, h, 5);
    }
    /* e->strs may not move while o grows: they are distinct buffers. */
    return n ? inlet_buf_append(o, e->strs.data + v->u.s.off, n) : inlet_buf_status(o);
  }
  default: break;
  }
  bool obj = v->kind == N_OBJECT;
  size_t n = v->u.c.n, first = v->u.c.first;
  size_t start = o->len;
  size_t *offs = inlet_malloc((n + 1) * sizeof *offs);
  if (!offs) return INLET_ENOMEM;
  int rc = 0;
  uint32_t max_id = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    offs[i] = o->len - start;
    rc = emit(e, o, e->ents[first + i].node);
    if (obj && e->ents[first + i].id > max_id) max_id = e->ents[first + i].id;
    if (rc == 0 && o->len - start > BATCH_VARIANT_MAX_BYTES) rc = INLET_ELIMIT;
  }
  if (rc < 0) {
    inlet_free(offs);
    return rc;
  }
  size_t data = o->len - start;
  offs[n] = data;
  size_t osz = width_of(data), idsz = obj ? width_of(max_id) : 0;
  bool large = n > 0xFF;
  size_t nsz = large ? 4 : 1;
  size_t hdr = 1 + nsz + n * idsz + (n + 1) * osz;
  if (inlet_buf_reserve(o, hdr) < 0) {
    inlet_free(offs);
    return INLET_ENOMEM;
  }
  uint8_t *p = o->data + start;
  memmove(p + hdr, p, data);
  o->len += hdr;
  p[0] = obj ? (uint8_t)((((unsigned)large << 4) | ((idsz - 1) << 2) | (osz - 1)) << 2 | 2)
             : (uint8_t)((((unsigned)large << 2) | (osz - 1)) << 2 | 3);
  put_le(p + 1, n, nsz);
  uint8_t *q = p + 1 + nsz;
  for (size_t i = 0; obj && i < n; i++, q += idsz)
    put_le(q, e->ents[first + i].id, idsz);
  for (size_t i = 0; i <= n; i++, q += osz)
    put_le(q, offs[i], osz);
  inlet_free(offs);
  return 0;
}

static int emit_metadata(enc *e, inlet_buf *meta) {
  size_t total = 0;
  for (size_t i = 0; i < e->n_keys; i++)
    total += e->keys[i].key_len;
  size_t osz = width_of(total > e->n_keys ? total : e->n_keys);
  if (total > BATCH_VARIANT_MAX_BYTES) return INLET_ELIMIT;
  uint8_t h[4];
  inlet_buf_push(meta, (uint8_t)(1 | (e->n_keys ? 1 << 4 : 0) | (osz - 1) << 6));
  put_le(h, e->n_keys, osz);
  inlet_buf_append(meta, h, osz);
  size_t off = 0;
  for (size_t i = 0; i <= e->n_keys; i++) {
    put_le(h, off, osz);
    inlet_buf_append(meta, h, osz);
    if (i < e->n_keys) off += e->keys[i].key_len;
  }
  for (size_t i = 0; i < e->n_keys; i++) {
    const vent *k = &e->keys[i];
    if (k->key_len) inlet_buf_append(meta, e->strs.data + k->key_off, k->key_len);
  }
  return inlet_buf_status(meta);
}

int batch_variant_from_json(inlet_buf *meta, inlet_buf *val, const char *json, size_t n,
                            inlet_error *err) {
  enc e = {
      .p0 = json ? json : "", .p = json ? json : "", .end = (json ? json : "") + n, .err = err};
  if (n && !inlet_utf8_valid((const uint8_t *)json, n))
    return inlet_fail(err, INLET_EINVAL, "variant: JSON text is not UTF-8");
  size_t root = 0;
  size_t m0 = meta->len, v0 = val->len;
  int rc = value(&e, 0, &root);
  if (rc == 0) {
    ws(&e);
    if (e.p != e.end) rc = bad(&e, "text after the JSON value");
  }
  if (rc == 0) rc = number_keys(&e);
  if (rc == 0) {
    rc = emit(&e, val, root);
    if (rc == 0) rc = emit_metadata(&e, meta);
    if (rc == 0 && inlet_buf_status(val) < 0) rc = INLET_ENOMEM;
    if (rc == INLET_ENOMEM) rc = oom(&e);
    if (rc == INLET_ELIMIT)
      rc = inlet_fail(err, INLET_ELIMIT, "variant: value larger than %d bytes",
                      BATCH_VARIANT_MAX_BYTES);
  }
  if (rc < 0) {
    meta->len = m0 < meta->len ? m0 : meta->len;
    val->len = v0 < val->len ? v0 : val->len;
  }
  inlet_free(e.nodes);
  inlet_free(e.ents);
  inlet_free(e.stk);
  inlet_free(e.keys);
  inlet_buf_reset(&e.strs);
  return rc;
}
