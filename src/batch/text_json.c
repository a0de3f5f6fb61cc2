/*
 * A JSON (RFC 8259) reader that converts values straight into columns of a
 * target schema, without building a document tree: the NDJSON import hot
 * path. Strings without escapes are used in place; keys are matched to
 * fields by first trying the field after the previous match (producers
 * usually repeat one key order), then a hash table.
 *
 * Throughput (bench/RESULTS-ingest.md): strings are scanned 16 bytes at a
 * time (text_scan.h: SSE2, else 8-byte words), and one found to be ASCII
 * skips the UTF-8 check; the expected key is compared against the raw text
 * before any scan; plain numbers into long/double columns are parsed while
 * scanned, 8 digits at a time. All fall back to the general code for
 * anything unusual.
 *
 * A field's presence is read from its column's length: after an object,
 * a column still as long as before the row was missing (null or error),
 * and one that grew twice saw a duplicate key.
 */
#include <stdio.h>

#include "batch/text_int.h"
#include "batch/text_scan.h"

#define JSON_MAX_DEPTH 64

struct text_field_index {
  int32_t n_slots; /* power of two */
  int32_t *slots;  /* field index + 1, 0 = empty */
  size_t *lens;    /* owned: strlen of each field name, for the hot key match */
  bool *plain;     /* owned: the name has no '"', '\\' or control byte, so its JSON
                      key text is the name itself */
  uint64_t *key16; /* owned, 4 per field: the name and its closing quote as two
                      little words with their masks (names of at most 15 bytes),
                      so the hot key match is two loads and compares */
  const inlet_schema *schema;
};

static uint32_t hash_name(const char *s, size_t n) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < n; i++)
    h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

int text_field_index_new(text_field_index **out, const inlet_schema *schema) {
  text_field_index *idx = inlet_calloc(1, sizeof *idx);
  if (!idx) return INLET_ENOMEM;
  int32_t n = 8;
  while (n < schema->n_fields * 2)
    n *= 2;
  idx->slots = inlet_calloc((size_t)n, sizeof *idx->slots);
  idx->lens = inlet_calloc((size_t)schema->n_fields + 1, sizeof *idx->lens);
  idx->plain = inlet_calloc((size_t)schema->n_fields + 1, sizeof *idx->plain);
  idx->key16 = inlet_calloc(4 * ((size_t)schema->n_fields + 1), sizeof *idx->key16);
  if (!idx->slots || !idx->lens || !idx->plain || !idx->key16) {
    inlet_free(idx->slots);
    inlet_free(idx->lens);
    inlet_free(idx->plain);
    inlet_free(idx->key16);
    inlet_free(idx);
    return INLET_ENOMEM;
  }
  for (int32_t i = 0; i < schema->n_fields; i++) {
    const char *nm = schema->fields[i].name;
    idx->lens[i] = strlen(nm);
    idx->plain[i] = true;
    for (size_t j = 0; j < idx->lens[i]; j++)
      if (nm[j] == '"' || nm[j] == '\\' || (unsigned char)nm[j] < 0x20) idx->plain[i] = false;
    if (idx->plain[i] && idx->lens[i] < 16) {
      uint8_t key[16] = {0}, mask[16] = {0};
      memcpy(key, nm, idx->lens[i]);
      key[idx->lens[i]] = '"';
      memset(mask, 0xff, idx->lens[i] + 1);
      uint64_t *k = idx->key16 + 4 * (size_t)i;
      memcpy(&k[0], key, 8);
      memcpy(&k[1], key + 8, 8);
      memcpy(&k[2], mask, 8);
      memcpy(&k[3], mask + 8, 8);
    }
  }
  idx->n_slots = n;
  idx->schema = schema;
  for (int32_t i = 0; i < schema->n_fields; i++) {
    const char *name = schema->fields[i].name;
    uint32_t h = hash_name(name, strlen(name)) & (uint32_t)(n - 1);
    while (idx->slots[h])
      h = (h + 1) & (uint32_t)(n - 1);
    idx->slots[h] = i + 1;
  }
  *out = idx;
  return 0;
}

void text_field_index_free(text_field_index *idx) {
  if (!idx) return;
  inlet_free(idx->slots);
  inlet_free(idx->lens);
  inlet_free(idx->plain);
  inlet_free(idx->key16);
  inlet_free(idx);
}

/* Keys may hold NUL bytes (\u0000), so compare lengths, not C strings. */
static bool name_is(const char *name, const char *s, size_t n) {
  return strlen(name) == n && memcmp(name, s, n) == 0;
}

int text_field_index_find(const text_field_index *idx, const char *s, size_t n) {
  uint32_t mask = (uint32_t)(idx->n_slots - 1);
  uint32_t h = hash_name(s, n) & mask;
  while (idx->slots[h]) {
    int32_t f = idx->slots[h] - 1;
    if (idx->lens[f] == n && memcmp(idx->schema->fields[f].name, s, n) == 0) return f;
    h = (h + 1) & mask;
  }
  return -1;
}

/* ---- lexical helpers ---------------------------------------------------- */

static inline void skip_ws(const char **p, const char *end) {
  const char *q = *p;
  while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
    q++;
  *p = q;
}

/* A syntax error, located by its byte column in the record (1-based). */
static int syntax(text_conv *c, const char *at, const char *what) {
  if (c->rec_start && at >= c->rec_start)
    return text_bad(c, "invalid JSON at column %lld: %s", (long long)(at - c->rec_start) + 1, what);
  return text_bad(c, "invalid JSON: %s", what);
}

static int hex4(const char *p, const char *end, uint32_t *out) {
  if (end - p < 4) return -1;
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    int d = inlet_hex_digit((unsigned char)p[i]);
    if (d < 0) return -1;
    v = v << 4 | (uint32_t)d;
  }
  *out = v;
  return 0;
}

/* read_string's rest for a string with escapes (or a bad byte), from q,
 * the first byte the fast scan stopped at. Kept out of line so the fast
 * scan inlines into its callers. */
static int read_string_escaped(text_conv *c, const char **p, const char *end, const char **s,
                               size_t *n, const char *start, const char *q) {
  inlet_buf *b = &c->scratch;
  inlet_buf_clear(b);
  inlet_buf_append(b, start, (size_t)(q - start));
  while (q < end) {
    char ch = *q;
    if (ch == '"') {
      if (inlet_buf_status(b) < 0) return inlet_fail(&c->err, INLET_ENOMEM, "out of memory");
      *s = (const char *)b->data;
      *n = b->len;
      *p = q + 1;
      return 0;
    }
    if ((unsigned char)ch < 0x20) return syntax(c, q, "control character in a string");
    if (ch != '\\') {
      bool high = false; /* the text is checked as a whole afterwards */
      const char *r = q + text_scan_plain(q, (size_t)(end - q), &high);
      inlet_buf_append(b, q, (size_t)(r - q));
      q = r;
      continue;
    }
    if (++q >= end) break;
    switch (*q) {
    case '"': inlet_buf_push(b, '"'); break;
    case '\\': inlet_buf_push(b, '\\'); break;
    case '/': inlet_buf_push(b, '/'); break;
    case 'b': inlet_buf_push(b, '\b'); break;
    case 'f': inlet_buf_push(b, '\f'); break;
    case 'n': inlet_buf_push(b, '\n'); break;
    case 'r': inlet_buf_push(b, '\r'); break;
    case 't': inlet_buf_push(b, '\t'); break;
    case 'u': {
      uint32_t cp;
      if (hex4(q + 1, end, &cp) < 0) return syntax(c, q, "bad \\u escape");
      q += 4;
      if (cp >= 0xd800 && cp <= 0xdbff) {
        uint32_t lo;
        if (end - q < 7 || q[1] != '\\' || q[2] != 'u' || hex4(q + 3, end, &lo) < 0 ||
            lo < 0xdc00 || lo > 0xdfff)
          return syntax(c, q, "unpaired surrogate in \\u escape");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        q += 6;
      } else if (cp >= 0xdc00 && cp <= 0xdfff) {
        return syntax(c, q, "unpaired surrogate in \\u escape");
      }
      inlet_buf_put_utf8(b, cp);
      break;
    }
    default: return syntax(c, q, "bad escape in a string");
    }
    q++;
  }
  return syntax(c, q, "unterminated string");
}

/* Reads a string at *p (which is '"'). On success (*s, *n) point either into
 * the input (no escapes) or into c->scratch, and *ascii says the value is
 * known to be ASCII (no escapes, no byte >= 0x80): valid UTF-8. */
static inline int read_string_ascii(text_conv *c, const char **p, const char *end, const char **s,
                                    size_t *n, bool *ascii) {
  const char *q = *p + 1, *start = q;
  bool high = false;
  /* The hottest scan of NDJSON import (text_scan.h: SSE2 or 8-byte words). */
  q += text_scan_plain(q, (size_t)(end - q), &high);
  if (q < end && *q == '"') {
    *s = start;
    *n = (size_t)(q - start);
    *p = q + 1;
    *ascii = !high;
    return 0;
  }
  *ascii = false;
  return read_string_escaped(c, p, end, s, n, start, q);
}

static inline int read_string(text_conv *c, const char **p, const char *end, const char **s,
                              size_t *n) {
  bool ascii;
  return read_string_ascii(c, p, end, s, n, &ascii);
}

/* Scans a JSON number; returns its length or 0. */
static size_t scan_number(const char *p, const char *end) {
  const char *q = p;
  if (q < end && *q == '-') q++;
  if (q >= end) return 0;
  if (*q == '0')
    q++;
  else if (*q >= '1' && *q <= '9')
    while (q < end && *q >= '0' && *q <= '9')
      q++;
  else
    return 0;
  if (q < end && *q == '.') {
    q++;
    const char *f = q;
    while (q < end && *q >= '0' && *q <= '9')
      q++;
    if (q == f) return 0;
  }
  if (q < end && (*q == 'e' || *q == 'E')) {
    q++;
    if (q < end && (*q == '+' || *q == '-')) q++;
    const char *e = q;
    while (q < end && *q >= '0' && *q <= '9')
      q++;
    if (q == e) return 0;
  }
  return (size_t)(q - p);
}

static const double fast_pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

static const uint64_t digit_scale[] = {1,      10,      100,      1000,     10000,
                                       100000, 1000000, 10000000, 100000000};

/* Appends the digits at q to *m (m * 10^k + their value, wrapping past
 * 2^64: callers refuse that many digits); returns the first non-digit.
 * The first 8 are read as one word when the text has 8 bytes left. */
static inline const char *leading_digits(const char *q, const char *end, uint64_t *m) {
  uint64_t v = *m;
#if TEXT_SCAN_WORDS
  if (end - q >= 8) {
    uint64_t w;
    memcpy(&w, q, 8);
    int k = text_scan_digits8(w);
    if (k < 8) {
      *m = k ? v * digit_scale[k] + text_scan_digits8_value(w, k) : v;
      return q + k;
    }
    v = v * digit_scale[8] + text_scan_digits8_value(w, 8);
    q += 8;
  }
#endif
  while (q < end && (unsigned)(*q - '0') < 10)
    v = v * 10 + (uint64_t)(*q++ - '0');
  *m = v;
  return q;
}

/* The common numbers of a long or double column in one pass instead of
 * scan_number + text_append_scalar's parse: -?(0|[1-9][0-9]*)(.[0-9]+)?
 * with at most 18 digits for a long (no overflow possible) or 15 for a double
 * (mantissa < 2^53 and an exact power of ten, so the one division is
 * correctly rounded, as strtod's result). Returns the end of the number, or
 * NULL to leave anything else (exponents, more digits, a fraction for a
 * long, bad syntax) to the general path, which accepts or explains it. */
static const char *fast_number(const char *p, const char *end, bool want_double, int64_t *iv,
                               double *dv) {
  const char *q = p;
  bool neg = q < end && *q == '-';
  if (neg) q++;
  const char *d0 = q;
  uint64_t m = 0;
  if (q < end && *q == '0')
    q++;
  else
    q = leading_digits(q, end, &m);
  if (q == d0 || q - d0 > (want_double ? 15 : 18)) return NULL;
  int frac = 0;
  if (q < end && *q == '.') {
    if (!want_double) return NULL;
    const char *f0 = ++q;
    q = leading_digits(q, end, &m);
    frac = (int)(q - f0);
    if (frac == 0 || (q - d0) - 1 > 15) return NULL;
  }
  if (q < end && ((unsigned)(*q - '0') < 10 || *q == 'e' || *q == 'E' || *q == '.')) return NULL;
  if (want_double) {
    double d = (double)m / fast_pow10[frac];
    *dv = neg ? -d : d;
  } else {
    *iv = neg ? -(int64_t)m : (int64_t)m;
  }
  return q;
}

static bool literal(const char **p, const char *end, const char *word, size_t n) {
  if ((size_t)(end - *p) >= n && memcmp(*p, word, n) == 0) {
    *p += n;
    return true;
  }
  return false;
}

/* Skips one value (for ignored fields and raw json columns). */
static int skip_value(text_conv *c, const char **p, const char *end, int depth) {
  if (depth > JSON_MAX_DEPTH) return syntax(c, *p, "nested too deeply");
  skip_ws(p, end);
  if (*p >= end) return syntax(c, *p, "expected a value");
  const char *s;
  size_t n;
  switch (**p) {
  case '"': {
    /* Validate without unescaping into scratch when we can. */
    return read_string(c, p, end, &s, &n);
  }
  case '{':
  case '[': {
    char close = **p == '{' ? '}' : ']';
    bool obj = close == '}';
    (*p)++;
    skip_ws(p, end);
    if (*p < end && **p == close) {
      (*p)++;
      return 0;
    }
    for (;;) {
      if (obj) {
        skip_ws(p, end);
        if (*p >= end || **p != '"') return syntax(c, *p, "expected a key");
        TRY(read_string(c, p, end, &s, &n));
        skip_ws(p, end);
        if (*p >= end || **p != ':') return syntax(c, *p, "expected ':'");
        (*p)++;
      }
      TRY(skip_value(c, p, end, depth + 1));
      skip_ws(p, end);
      if (*p < end && **p == ',') {
        (*p)++;
        continue;
      }
      if (*p < end && **p == close) {
        (*p)++;
        return 0;
      }
      return syntax(c, *p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  case 't':
    if (literal(p, end, "true", 4)) return 0;
    break;
  case 'f':
    if (literal(p, end, "false", 5)) return 0;
    break;
  case 'n':
    if (literal(p, end, "null", 4)) return 0;
    break;
  default: {
    size_t k = scan_number(*p, end);
    if (k) {
      *p += k;
      return 0;
    }
  }
  }
  return syntax(c, *p, "unexpected character");
}

/* ---- conversion into columns --------------------------------------------- */

static int json_object_into_struct(text_conv *c, inlet_array *a, const inlet_field *f,
                                   const char **p, const char *end, int depth);

static int json_list(text_conv *c, inlet_array *a, const inlet_field *f, const char **p,
                     const char *end, int depth) {
  (*p)++; /* '[' */
  inlet_array *child = &a->children[0];
  const inlet_field *cf = &f->children[0];
  skip_ws(p, end);
  if (*p < end && **p == ']') {
    (*p)++;
  } else {
    for (;;) {
      TRY(text_json_value(c, child, cf, p, end, depth + 1));
      skip_ws(p, end);
      if (*p < end && **p == ',') {
        (*p)++;
        continue;
      }
      if (*p < end && **p == ']') {
        (*p)++;
        break;
      }
      return syntax(c, *p, "expected ',' or ']'");
    }
  }
  int rc = inlet_array_append_list_entry(a, &c->err);
  return rc;
}

/* One map entry: key text already read (JSON object form). */
static int map_entry(text_conv *c, inlet_array *entries, const inlet_field *ef, const char *k,
                     size_t kn, bool key_is_string, const char **p, const char *end, int depth) {
  /* JSON object keys are always strings: a map's keys of any type come as their text. */
  bool strict_types = c->strict_types;
  c->strict_types = false;
  int krc = text_append_scalar(c, &entries->children[0], &ef->children[0],
                               key_is_string ? TOK_STRING : TOK_TEXT, k, kn, false);
  c->strict_types = strict_types;
  TRY(krc);
  TRY(text_json_value(c, &entries->children[1], &ef->children[1], p, end, depth + 1));
  return inlet_array_append_struct_entry(entries, &c->err);
}

static int json_map(text_conv *c, inlet_array *a, const inlet_field *f, const char **p,
                    const char *end, int depth) {
  inlet_array *entries = &a->children[0];
  const inlet_field *ef = &f->children[0];
  char open = **p;
  (*p)++;
  skip_ws(p, end);
  char close = open == '{' ? '}' : ']';
  if (*p < end && **p == close) {
    (*p)++;
    return inlet_array_append_list_entry(a, &c->err);
  }
  for (;;) {
    skip_ws(p, end);
    if (open == '{') {
      const char *k;
      size_t kn;
      if (*p >= end || **p != '"') return syntax(c, *p, "expected a key");
      TRY(read_string(c, p, end, &k, &kn));
      skip_ws(p, end);
      if (*p >= end || **p != ':') return syntax(c, *p, "expected ':'");
      (*p)++;
      TRY(map_entry(c, entries, ef, k, kn, true, p, end, depth));
    } else {
      /* [key, value] pair */
      if (*p >= end || **p != '[') return text_bad(c, "map entries must be [key, value] pairs");
      (*p)++;
      TRY(text_json_value(c, &entries->children[0], &ef->children[0], p, end, depth + 1));
      skip_ws(p, end);
      if (*p >= end || **p != ',') return text_bad(c, "map entries must be [key, value] pairs");
      (*p)++;
      TRY(text_json_value(c, &entries->children[1], &ef->children[1], p, end, depth + 1));
      skip_ws(p, end);
      if (*p >= end || **p != ']') return text_bad(c, "map entries must be [key, value] pairs");
      (*p)++;
      TRY(inlet_array_append_struct_entry(entries, &c->err));
    }
    skip_ws(p, end);
    if (*p < end && **p == ',') {
      (*p)++;
      continue;
    }
    if (*p < end && **p == close) {
      (*p)++;
      break;
    }
    return syntax(c, *p, "expected ',' or the end of the map");
  }
  /* A null map key is a bad record (Parquet map keys are required). */
  if (entries->children[0].null_count > 0) return text_bad(c, "null map key");
  return inlet_array_append_list_entry(a, &c->err);
}

/* A variant column's text must be a value the encoder takes: a repeated
 * key, a number beyond double's range or nesting past the limit is a bad
 * record here (dead letters, --max-bad-rows), not a failed write later. */
static int text_variant_check(text_conv *c, const char *s, size_t n) {
  inlet_buf m = INLET_BUF_INIT, v = INLET_BUF_INIT;
  inlet_error e = INLET_ERROR_INIT;
  int rc = batch_variant_from_json(&m, &v, s, n, &e);
  inlet_buf_reset(&m);
  inlet_buf_reset(&v);
  if (rc == INLET_ENOMEM) return inlet_fail(&c->err, INLET_ENOMEM, "out of memory");
  return rc < 0 ? text_bad(c, "%s", inlet_errmsg(&e)) : 0;
}

int text_json_value(text_conv *c, inlet_array *a, const inlet_field *f, const char **p,
                    const char *end, int depth) {
  if (depth > JSON_MAX_DEPTH) return syntax(c, *p, "nested too deeply");
  skip_ws(p, end);
  if (*p >= end) return syntax(c, *p, "expected a value");
  char ch = **p;
  /* json columns keep any value's text; plain strings keep an object's or
   * an array's text (Spark's JSON reader does the same for StringType);
   * variant columns keep any value's text too (a JSON string stays a
   * string), which writers encode (variant_encode.c). */
  bool any_text = f->type.ext == INLET_EXT_JSON || f->type.ext == INLET_EXT_VARIANT;
  if (f->type.id == INLET_TYPE_STRING && ch != 'n' && (any_text || ch == '{' || ch == '[')) {
    if (c->strict_types && !any_text)
      return text_bad(c,
                      "expected a JSON string for a string column, found a JSON %s "
                      "(converted to its JSON text only when coercing)",
                      ch == '{' ? "object" : "array");
    const char *start = *p;
    TRY(skip_value(c, p, end, depth));
    if (!inlet_utf8_valid((const uint8_t *)start, (size_t)(*p - start)))
      return text_bad(c, "invalid UTF-8 in JSON text");
    if (f->type.ext == INLET_EXT_VARIANT) TRY(text_variant_check(c, start, (size_t)(*p - start)));
    return inlet_array_append_bytes(a, f, start, (size_t)(*p - start), &c->err);
  }
  switch (ch) {
  case '"': {
    const char *s;
    size_t n;
    bool ascii;
    TRY(read_string_ascii(c, p, end, &s, &n, &ascii));
    if (ascii && f->type.id == INLET_TYPE_STRING) {
      /* text_append_scalar's string case, its UTF-8 check already done */
      int rc = inlet_array_append_bytes(a, f, s, n, &c->err);
      return rc < 0 ? (rc == INLET_EINVAL ? INLET_EINTERNAL : rc) : 0;
    }
    return text_append_scalar(c, a, f, TOK_STRING, s, n, false);
  }
  case 'n':
    if (!literal(p, end, "null", 4)) break;
    return text_append_null(c, a, f);
  case 't':
    if (!literal(p, end, "true", 4)) break;
    return text_append_scalar(c, a, f, TOK_BOOL, NULL, 0, true);
  case 'f':
    if (!literal(p, end, "false", 5)) break;
    return text_append_scalar(c, a, f, TOK_BOOL, NULL, 0, false);
  case '{':
    if (f->type.id == INLET_TYPE_STRUCT) return json_object_into_struct(c, a, f, p, end, depth);
    if (f->type.id == INLET_TYPE_MAP) return json_map(c, a, f, p, end, depth);
    return text_bad(c, "expected %s, found a JSON object",
                    f->type.id == INLET_TYPE_LIST ? "a JSON array" : "a scalar");
  case '[':
    if (f->type.id == INLET_TYPE_LIST) return json_list(c, a, f, p, end, depth);
    if (f->type.id == INLET_TYPE_MAP) return json_map(c, a, f, p, end, depth);
    return text_bad(c, "expected %s, found a JSON array",
                    f->type.id == INLET_TYPE_STRUCT ? "a JSON object" : "a scalar");
  default: {
    if (f->type.id == INLET_TYPE_INT64 || f->type.id == INLET_TYPE_DOUBLE) {
      int64_t iv;
      double dv;
      const char *q = fast_number(*p, end, f->type.id == INLET_TYPE_DOUBLE, &iv, &dv);
      if (q) {
        *p = q;
        int rc = f->type.id == INLET_TYPE_INT64 ? inlet_array_append_int(a, f, iv, &c->err)
                                                : inlet_array_append_double(a, dv, &c->err);
        /* as text_append_scalar: an append never reports a bad record */
        return rc < 0 ? (rc == INLET_EINVAL ? INLET_EINTERNAL : rc) : 0;
      }
    }
    size_t k = scan_number(*p, end);
    if (!k) break;
    const char *s = *p;
    *p += k;
    return text_append_scalar(c, a, f, TOK_NUMBER, s, k, false);
  }
  }
  return syntax(c, *p, "unexpected character");
}

/* Fills nulls for fields absent from an object and rejects duplicates. */
static int finish_fields(text_conv *c, inlet_array *cols, const inlet_field *fields, int32_t n,
                         int64_t row) {
  for (int32_t i = 0; i < n; i++) {
    if (cols[i].length == row + 1) continue;
    if (cols[i].length > row + 1) {
      if (!c->field) c->field = fields[i].name;
      return text_bad(c, "duplicate key \"%s\"", fields[i].name);
    }
    if (!fields[i].nullable) {
      if (!c->field) return (c->field = fields[i].name, text_bad(c, "missing NOT NULL field"));
      return text_bad(c, "missing NOT NULL field \"%s\"", fields[i].name);
    }
    TRY(inlet_array_append_null(&cols[i], &fields[i], &c->err));
  }
  return 0;
}

static int json_object_into_struct(text_conv *c, inlet_array *a, const inlet_field *f,
                                   const char **p, const char *end, int depth) {
  (*p)++;
  int64_t row = a->length;
  skip_ws(p, end);
  if (*p < end && **p == '}') {
    (*p)++;
  } else {
    int32_t hint = 0;
    for (;;) {
      skip_ws(p, end);
      const char *k;
      size_t kn;
      if (*p >= end || **p != '"') return syntax(c, *p, "expected a key");
      TRY(read_string(c, p, end, &k, &kn));
      skip_ws(p, end);
      if (*p >= end || **p != ':') return syntax(c, *p, "expected ':'");
      (*p)++;
      int32_t fi = -1;
      if (hint < f->n_children && name_is(f->children[hint].name, k, kn))
        fi = hint;
      else
        for (int32_t i = 0; i < f->n_children; i++)
          if (name_is(f->children[i].name, k, kn)) {
            fi = i;
            break;
          }
      if (fi < 0) {
        if (c->strict) {
          char nm[64];
          snprintf(nm, sizeof nm, "%.*s", (int)(kn < 60 ? kn : 60), k);
          return text_bad(c, "unknown struct field \"%s\"", nm);
        }
        TRY(skip_value(c, p, end, depth + 1));
        c->rec_ignored++;
      } else {
        if (a->children[fi].length > row)
          return text_bad(c, "duplicate key \"%s\"", f->children[fi].name);
        TRY(text_json_value(c, &a->children[fi], &f->children[fi], p, end, depth + 1));
        hint = fi + 1;
      }
      skip_ws(p, end);
      if (*p < end && **p == ',') {
        (*p)++;
        continue;
      }
      if (*p < end && **p == '}') {
        (*p)++;
        break;
      }
      return syntax(c, *p, "expected ',' or '}'");
    }
  }
  TRY(finish_fields(c, a->children, f->children, f->n_children, row));
  return inlet_array_append_struct_entry(a, &c->err);
}

int text_json_row(text_conv *c, const inlet_schema *schema, const text_field_index *idx,
                  inlet_array *columns, int64_t row, const char *s, size_t n) {
  const char *p = s, *end = s + n;
  c->field = NULL;
  c->rec_start = s;
  c->rec_ignored = 0;
  skip_ws(&p, end);
  if (p >= end || *p != '{') return syntax(c, p, "a record must be a JSON object");
  p++;
  skip_ws(&p, end);
  if (p < end && *p == '}') {
    p++;
  } else {
    int32_t hint = 0;
    for (;;) {
      skip_ws(&p, end);
      const char *k;
      size_t kn;
      int32_t fi = -1;
      if (p >= end || *p != '"') return syntax(c, p, "expected a key");
      /* Producers repeat one key order: try the expected field's name
       * against the raw text before scanning the key. */
      if (hint < schema->n_fields && idx->plain[hint]) {
        size_t hl = idx->lens[hint];
        const uint64_t *kq = idx->key16 + 4 * (size_t)hint;
        uint64_t w0, w1;
        if (hl < 16 && end - p >= 17) {
          memcpy(&w0, p + 1, 8);
          memcpy(&w1, p + 9, 8);
          if ((w0 & kq[2]) == kq[0] && (w1 & kq[3]) == kq[1]) {
            fi = hint;
            k = p + 1;
            kn = hl;
            p += hl + 2;
          }
        } else if ((size_t)(end - p) > hl + 1 && p[hl + 1] == '"' &&
                   memcmp(p + 1, schema->fields[hint].name, hl) == 0) {
          fi = hint;
          k = p + 1;
          kn = hl;
          p += hl + 2;
        }
      }
      if (fi < 0) {
        TRY(read_string(c, &p, end, &k, &kn));
        if (hint < schema->n_fields && idx->lens[hint] == kn &&
            memcmp(schema->fields[hint].name, k, kn) == 0)
          fi = hint;
        else
          fi = text_field_index_find(idx, k, kn);
      }
      skip_ws(&p, end);
      if (p >= end || *p != ':') return syntax(c, p, "expected ':'");
      p++;
      if (fi < 0) {
        if (c->strict) {
          char nm[64];
          snprintf(nm, sizeof nm, "%.*s", (int)(kn < 60 ? kn : 60), k);
          return text_bad(c, "unknown field \"%s\"", nm);
        }
        TRY(skip_value(c, &p, end, 1));
        c->rec_ignored++;
      } else {
        c->field = schema->fields[fi].name;
        if (columns[fi].length > row) return text_bad(c, "duplicate key");
        TRY(text_json_value(c, &columns[fi], &schema->fields[fi], &p, end, 1));
        c->field = NULL;
        hint = fi + 1;
      }
      skip_ws(&p, end);
      if (p < end && *p == ',') {
        p++;
        continue;
      }
      if (p < end && *p == '}') {
        p++;
        break;
      }
      return syntax(c, p, "expected ',' or '}'");
    }
  }
  skip_ws(&p, end);
  if (p != end) return syntax(c, p, "text after the JSON object");
  return finish_fields(c, columns, schema->fields, schema->n_fields, row);
}
