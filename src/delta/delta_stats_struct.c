/*
 * Typed statistics for checkpoints: the `add.stats_parsed` and
 * `add.partitionValues_parsed` struct columns, and the way back from
 * `stats_parsed` to the JSON string when a checkpoint holds only the struct.
 *
 * Spec: PROTOCOL.md "Checkpoints" (writers write stats_parsed and, for a
 * partitioned table, partitionValues_parsed when
 * delta.checkpoint.writeStatsAsStruct is true; stats unless
 * writeStatsAsJson is false), "Checkpoint Schema", "Per-file Statistics".
 * The struct's shape follows Spark's statsSchema: numRecords; minValues and
 * maxValues over the indexed data columns whose type orders values
 * (numbers, decimal, date, timestamps, string), nested like the schema;
 * nullCount (long) over every indexed column; tightBounds when the table
 * supports deletion vectors. Indexed columns are the first
 * delta.dataSkippingNumIndexedCols leaf columns (default 32, -1 = all), or
 * those named by delta.dataSkippingStatsColumns, partition columns excluded.
 *
 * A value is parsed the way Spark's from_json does it: a value of the wrong
 * type, out of range or not exact at the column's precision becomes null (an
 * unknown bound), never a rounded one, since a rounded bound could make a
 * reader skip a file that holds matching rows. Numbers are therefore read
 * from their JSON text (a small tokenizer keeps the raw text: a decimal
 * bound of 38 digits must not pass through a double).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "delta/delta.h"
#include "util/util.h"

#define STATS_MAX_DEPTH 64

/* ---- a JSON tokenizer that keeps numbers as text ------------------------------ */

enum { SJ_NULL, SJ_TRUE, SJ_FALSE, SJ_NUM, SJ_STR, SJ_OBJ, SJ_ARR };

typedef struct sj_tok {
  uint8_t type;
  int32_t start, end; /* text span; strings without their quotes */
  int32_t count;      /* objects: members; arrays: elements */
  int32_t next;       /* index of the token after this one's subtree */
  bool escaped;       /* strings holding a backslash escape */
} sj_tok;

typedef struct sj_doc {
  const char *s;
  int32_t len, pos;
  sj_tok *toks;
  int32_t n, cap;
} sj_doc;

static void sj_ws(sj_doc *d) {
  while (d->pos < d->len && (d->s[d->pos] == ' ' || d->s[d->pos] == '\t' || d->s[d->pos] == '\n' ||
                             d->s[d->pos] == '\r'))
    d->pos++;
}

static int32_t sj_push(sj_doc *d, uint8_t type) {
  if (d->n == d->cap) {
    int32_t nc = d->cap ? d->cap * 2 : 64;
    sj_tok *t = inlet_realloc(d->toks, (size_t)nc * sizeof *t);
    if (!t) return -1;
    d->toks = t;
    d->cap = nc;
  }
  sj_tok *t = &d->toks[d->n];
  memset(t, 0, sizeof *t);
  t->type = type;
  t->start = d->pos;
  return d->n++;
}

/* 0 on success, -1 malformed, -2 out of memory. */
static int sj_value(sj_doc *d, int depth);

static int sj_string(sj_doc *d) {
  int32_t i = sj_push(d, SJ_STR);
  if (i < 0) return -2;
  d->pos++; /* opening quote */
  d->toks[i].start = d->pos;
  while (d->pos < d->len && d->s[d->pos] != '"') {
    unsigned char c = (unsigned char)d->s[d->pos];
    if (c < 0x20) return -1;
    if (c == '\\') {
      d->toks[i].escaped = true;
      d->pos++;
      if (d->pos >= d->len) return -1;
    }
    d->pos++;
  }
  if (d->pos >= d->len) return -1;
  d->toks[i].end = d->pos++;
  d->toks[i].next = d->n;
  return 0;
}

static int sj_value(sj_doc *d, int depth) {
  if (depth > STATS_MAX_DEPTH) return -1;
  sj_ws(d);
  if (d->pos >= d->len) return -1;
  char c = d->s[d->pos];
  if (c == '"') return sj_string(d);
  if (c == '{' || c == '[') {
    bool obj = c == '{';
    int32_t i = sj_push(d, obj ? SJ_OBJ : SJ_ARR);
    if (i < 0) return -2;
    d->pos++;
    sj_ws(d);
    int32_t count = 0;
    if (d->pos < d->len && d->s[d->pos] == (obj ? '}' : ']')) {
      d->pos++;
    } else {
      for (;;) {
        if (obj) {
          sj_ws(d);
          if (d->pos >= d->len || d->s[d->pos] != '"') return -1;
          int rc = sj_string(d);
          if (rc < 0) return rc;
          sj_ws(d);
          if (d->pos >= d->len || d->s[d->pos] != ':') return -1;
          d->pos++;
        }
        int rc = sj_value(d, depth + 1);
        if (rc < 0) return rc;
        count++;
        sj_ws(d);
        if (d->pos < d->len && d->s[d->pos] == ',') {
          d->pos++;
          continue;
        }
        if (d->pos < d->len && d->s[d->pos] == (obj ? '}' : ']')) {
          d->pos++;
          break;
        }
        return -1;
      }
    }
    d->toks[i].count = count;
    d->toks[i].end = d->pos;
    d->toks[i].next = d->n;
    return 0;
  }
  static const struct {
    const char *w;
    uint8_t t;
  } words[] = {{"null", SJ_NULL}, {"true", SJ_TRUE}, {"false", SJ_FALSE}};
  for (size_t k = 0; k < 3; k++) {
    size_t wl = strlen(words[k].w);
    if ((size_t)(d->len - d->pos) >= wl && memcmp(d->s + d->pos, words[k].w, wl) == 0) {
      int32_t i = sj_push(d, words[k].t);
      if (i < 0) return -2;
      d->pos += (int32_t)wl;
      d->toks[i].end = d->pos;
      d->toks[i].next = d->n;
      return 0;
    }
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    int32_t i = sj_push(d, SJ_NUM);
    if (i < 0) return -2;
    while (d->pos < d->len && strchr("+-0123456789.eE", d->s[d->pos]))
      d->pos++;
    d->toks[i].end = d->pos;
    d->toks[i].next = d->n;
    return 0;
  }
  return -1;
}

/* Tokenizes @p s; false when it is not one well-formed JSON value (tokens
 * are then meaningless) or memory ran out (*oom). */
static bool sj_parse(sj_doc *d, const char *s, bool *oom) {
  size_t len = strlen(s);
  d->s = s;
  d->len = len > INT32_MAX / 2 ? 0 : (int32_t)len;
  d->pos = 0;
  d->n = 0;
  *oom = false;
  if (d->len == 0) return false;
  int rc = sj_value(d, 0);
  if (rc == -2) *oom = true;
  if (rc < 0) return false;
  sj_ws(d);
  return d->pos == d->len;
}

/* The decoded text of string token @p t into @p out (cleared first); false
 * on a malformed escape. */
static bool sj_str(const sj_doc *d, const sj_tok *t, inlet_buf *out) {
  inlet_buf_clear(out);
  const char *p = d->s + t->start, *e = d->s + t->end;
  if (!t->escaped) {
    inlet_buf_append(out, p, (size_t)(e - p));
    return true;
  }
  return inlet_json_unescape(out, p, (size_t)(e - p));
}

/* Member @p name of object token @p obj, or -1. */
static int32_t sj_member(const sj_doc *d, int32_t obj, const char *name, inlet_buf *scratch) {
  if (obj < 0 || d->toks[obj].type != SJ_OBJ) return -1;
  size_t nl = strlen(name);
  int32_t k = obj + 1;
  for (int32_t m = 0; m < d->toks[obj].count; m++) {
    const sj_tok *key = &d->toks[k];
    int32_t val = k + 1;
    bool match;
    if (!key->escaped) {
      match = (size_t)(key->end - key->start) == nl && memcmp(d->s + key->start, name, nl) == 0;
    } else {
      match = sj_str(d, key, scratch) && scratch->len == nl && memcmp(scratch->data, name, nl) == 0;
    }
    if (match) return val;
    k = d->toks[val].next;
  }
  return -1;
}

/* ---- the stats_parsed schema ----------------------------------------------------- */

/* Builders: a struct field is made by collecting children in an
 * inlet_schema, whose field array the struct then takes over. */
static int make_field(inlet_field *out, const char *name, inlet_type_id id, inlet_error *err) {
  memset(out, 0, sizeof *out);
  out->name = inlet_strdup(name);
  if (!out->name) return inlet_fail(err, INLET_ENOMEM, "out of memory building checkpoint schema");
  out->type.id = id;
  out->nullable = true;
  out->field_id = -1;
  return 0;
}

static int make_struct(inlet_field *out, const char *name, inlet_schema *children,
                       inlet_error *err) {
  TRY(make_field(out, name, INLET_TYPE_STRUCT, err));
  out->n_children = children->n_fields;
  out->children = children->fields;
  inlet_schema_init(children);
  return 0;
}

/* Adds @p f to @p s, consuming it. */
static int add_owned(inlet_schema *s, inlet_field *f, inlet_error *err) {
  int rc = inlet_schema_add_field(s, f, err);
  inlet_field_reset(f);
  return rc;
}

/* One column path of delta.dataSkippingStatsColumns, lower-cased. */
typedef struct col_path {
  int32_t n;
  char **parts;
} col_path;

static void paths_free(col_path *p, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    for (int32_t j = 0; j < p[i].n; j++)
      inlet_free(p[i].parts[j]);
    inlet_free(p[i].parts);
  }
  inlet_free(p);
}

/* Parses "a, b.c, `d.e`.f" (backquotes quote a name, `` is a backquote). */
static int parse_stats_columns(const char *spec, col_path **out, int32_t *n_out, inlet_error *err) {
  *out = NULL;
  *n_out = 0;
  col_path *paths = NULL;
  int32_t n = 0, cap = 0;
  inlet_buf part = INLET_BUF_INIT;
  col_path cur = {0, NULL};
  int rc = 0;
  const char *p = spec;
  for (;;) {
    while (*p == ' ' || *p == '\t')
      p++;
    inlet_buf_clear(&part);
    if (*p == '`') {
      p++;
      for (;;) {
        if (!*p) {
          rc = inlet_fail(err, INLET_EINVAL, "delta.dataSkippingStatsColumns: unclosed backquote");
          goto done;
        }
        if (*p == '`' && p[1] == '`') {
          inlet_buf_push(&part, '`');
          p += 2;
        } else if (*p == '`') {
          p++;
          break;
        } else {
          inlet_buf_push(&part, (uint8_t)tolower((unsigned char)*p++));
        }
      }
      while (*p == ' ' || *p == '\t')
        p++;
    } else {
      while (*p && *p != '.' && *p != ',')
        inlet_buf_push(&part, (uint8_t)tolower((unsigned char)*p++));
      while (part.len && (part.data[part.len - 1] == ' ' || part.data[part.len - 1] == '\t'))
        part.len--;
    }
    inlet_buf_terminate(&part);
    if (inlet_buf_status(&part)) goto oom;
    if (part.len > 0) {
      char **np = inlet_realloc(cur.parts, (size_t)(cur.n + 1) * sizeof *np);
      if (!np) goto oom;
      cur.parts = np;
      cur.parts[cur.n] = inlet_strdup((const char *)part.data);
      if (!cur.parts[cur.n]) goto oom;
      cur.n++;
    }
    if (*p == '.') {
      p++;
      continue;
    }
    if (cur.n > 0) {
      if (n == cap) {
        int32_t nc = cap ? cap * 2 : 8;
        col_path *np = inlet_realloc(paths, (size_t)nc * sizeof *np);
        if (!np) goto oom;
        paths = np;
        cap = nc;
      }
      paths[n++] = cur;
      cur = (col_path){0, NULL};
    }
    if (!*p) break;
    p++; /* ',' */
  }
  *out = paths;
  *n_out = n;
  paths = NULL;
  n = 0;
  goto done;
oom:
  rc = inlet_fail(err, INLET_ENOMEM, "out of memory reading delta.dataSkippingStatsColumns");
done:
  paths_free(paths, n);
  for (int32_t j = 0; j < cur.n; j++)
    inlet_free(cur.parts[j]);
  inlet_free(cur.parts);
  inlet_buf_reset(&part);
  return rc;
}

static bool name_is(const char *field, const char *lower) {
  return strcasecmp(field, lower) == 0;
}

/* Copies into @p out the fields of @p fields with stats: a leaf budget
 * (@p budget, -1 = all) or the named @p paths at depth @p depth. */
static int select_indexed(inlet_schema *out, const inlet_field *fields, int32_t n_fields,
                          int64_t *budget, const col_path *paths, int32_t n_paths,
                          const bool *active, int32_t depth, inlet_error *err) {
  for (int32_t i = 0; i < n_fields; i++) {
    const inlet_field *f = &fields[i];
    if (paths) {
      /* Which paths continue through this field, and does one end here? */
      bool whole = false, any = false;
      bool *sub = inlet_calloc((size_t)n_paths + 1, sizeof *sub);
      if (!sub) return inlet_fail(err, INLET_ENOMEM, "out of memory building checkpoint schema");
      for (int32_t k = 0; k < n_paths; k++) {
        if (!active[k] || paths[k].n <= depth || !name_is(f->name, paths[k].parts[depth])) continue;
        any = true;
        if (paths[k].n == depth + 1)
          whole = true;
        else
          sub[k] = true;
      }
      int rc = 0;
      if (whole) {
        rc = inlet_schema_add_field(out, f, err);
      } else if (any && f->type.id == INLET_TYPE_STRUCT) {
        inlet_schema kids;
        inlet_schema_init(&kids);
        rc = select_indexed(&kids, f->children, f->n_children, budget, paths, n_paths, sub,
                            depth + 1, err);
        if (rc == 0 && kids.n_fields > 0) {
          inlet_field s;
          rc = make_struct(&s, f->name, &kids, err);
          if (rc == 0) rc = add_owned(out, &s, err);
        }
        inlet_schema_reset(&kids);
      }
      inlet_free(sub);
      TRY(rc);
      continue;
    }
    if (*budget == 0) return 0;
    if (f->type.id == INLET_TYPE_STRUCT) {
      inlet_schema kids;
      inlet_schema_init(&kids);
      int rc =
          select_indexed(&kids, f->children, f->n_children, budget, NULL, 0, NULL, depth + 1, err);
      if (rc == 0 && kids.n_fields > 0) {
        inlet_field s;
        rc = make_struct(&s, f->name, &kids, err);
        if (rc == 0) rc = add_owned(out, &s, err);
      }
      inlet_schema_reset(&kids);
      TRY(rc);
      continue;
    }
    TRY(inlet_schema_add_field(out, f, err));
    if (*budget > 0) (*budget)--;
  }
  return 0;
}

/* minValues/maxValues (@p counts false) or nullCount (@p counts true)
 * over the indexed fields. */
static int stat_fields(inlet_schema *out, const inlet_field *fields, int32_t n, bool counts,
                       inlet_error *err) {
  for (int32_t i = 0; i < n; i++) {
    const inlet_field *f = &fields[i];
    inlet_field g;
    if (f->type.id == INLET_TYPE_STRUCT) {
      inlet_schema kids;
      inlet_schema_init(&kids);
      int rc = stat_fields(&kids, f->children, f->n_children, counts, err);
      if (rc == 0 && kids.n_fields > 0) {
        rc = make_struct(&g, f->name, &kids, err);
        if (rc == 0) rc = add_owned(out, &g, err);
      }
      inlet_schema_reset(&kids);
      TRY(rc);
    } else if (counts) {
      TRY(make_field(&g, f->name, INLET_TYPE_INT64, err));
      TRY(add_owned(out, &g, err));
    } else if (delta_stats_type_has_bounds(&f->type)) {
      TRY(make_field(&g, f->name, f->type.id, err));
      g.type = f->type;
      g.type.ext = INLET_EXT_NONE;
      TRY(add_owned(out, &g, err));
    }
  }
  return 0;
}

static bool is_partition_column(const delta_metadata *m, const char *name) {
  for (int32_t i = 0; i < m->n_partition_columns; i++)
    if (strcmp(m->partition_columns[i], name) == 0) return true;
  return false;
}

static bool lists_feature(char *const *v, int32_t n, const char *name) {
  for (int32_t i = 0; i < n; i++)
    if (strcmp(v[i], name) == 0) return true;
  return false;
}

int delta_stats_struct_field(inlet_field *out, const inlet_schema *table, const delta_metadata *m,
                             const delta_protocol *p, inlet_error *err) {
  memset(out, 0, sizeof *out);
  inlet_schema data, indexed, stats;
  inlet_schema_init(&data);
  inlet_schema_init(&indexed);
  inlet_schema_init(&stats);
  col_path *paths = NULL;
  int32_t n_paths = 0;
  bool *active = NULL;
  int rc = 0;
  for (int32_t i = 0; i < table->n_fields && rc == 0; i++)
    if (!is_partition_column(m, table->fields[i].name))
      rc = inlet_schema_add_field(&data, &table->fields[i], err);
  if (rc < 0) goto done;
  const char *cols = delta_metadata_conf(m, "delta.dataSkippingStatsColumns");
  int64_t budget = 32;
  const char *nic = delta_metadata_conf(m, "delta.dataSkippingNumIndexedCols");
  if (nic) {
    char *end;
    long long v = strtoll(nic, &end, 10);
    if (end != nic && *end == '\0' && v >= -1) budget = v;
  }
  if (cols) {
    if ((rc = parse_stats_columns(cols, &paths, &n_paths, err)) < 0) goto done;
    active = inlet_calloc((size_t)n_paths + 1, sizeof *active);
    FAIL_GOTO(!active, err, INLET_ENOMEM, "out of memory building checkpoint schema");
    for (int32_t k = 0; k < n_paths; k++)
      active[k] = true;
    rc = select_indexed(&indexed, data.fields, data.n_fields, &budget, paths, n_paths, active, 0,
                        err);
  } else {
    rc = select_indexed(&indexed, data.fields, data.n_fields, &budget, NULL, 0, NULL, 0, err);
  }
  if (rc < 0) goto done;
  inlet_field f;
  if ((rc = make_field(&f, "numRecords", INLET_TYPE_INT64, err)) < 0) goto done;
  if ((rc = add_owned(&stats, &f, err)) < 0) goto done;
  for (int k = 0; k < 3; k++) {
    static const char *const names[] = {"minValues", "maxValues", "nullCount"};
    inlet_schema kids;
    inlet_schema_init(&kids);
    rc = stat_fields(&kids, indexed.fields, indexed.n_fields, k == 2, err);
    if (rc == 0 && kids.n_fields > 0) {
      rc = make_struct(&f, names[k], &kids, err);
      if (rc == 0) rc = add_owned(&stats, &f, err);
    }
    inlet_schema_reset(&kids);
    if (rc < 0) goto done;
  }
  if (lists_feature(p->writer_features, p->n_writer_features, "deletionVectors") ||
      lists_feature(p->reader_features, p->n_reader_features, "deletionVectors")) {
    if ((rc = make_field(&f, "tightBounds", INLET_TYPE_BOOL, err)) < 0) goto done;
    if ((rc = add_owned(&stats, &f, err)) < 0) goto done;
  }
  rc = make_struct(out, "stats_parsed", &stats, err);
done:
  inlet_schema_reset(&data);
  inlet_schema_reset(&indexed);
  inlet_schema_reset(&stats);
  paths_free(paths, n_paths);
  inlet_free(active);
  return rc;
}

int delta_partition_struct_field(inlet_field *out, const inlet_schema *table,
                                 const delta_metadata *m, inlet_error *err) {
  memset(out, 0, sizeof *out);
  if (m->n_partition_columns == 0) return 0;
  inlet_schema kids;
  inlet_schema_init(&kids);
  int rc = 0;
  for (int32_t i = 0; i < m->n_partition_columns && rc == 0; i++) {
    int idx = inlet_schema_find(table, m->partition_columns[i]);
    if (idx < 0) {
      rc = inlet_fail(err, INLET_ECORRUPT, "partition column \"%s\" is not in the table schema",
                      m->partition_columns[i]);
      break;
    }
    inlet_field c;
    rc = inlet_field_copy(&c, &table->fields[idx], err);
    if (rc == 0) {
      c.nullable = true;
      rc = add_owned(&kids, &c, err);
    }
  }
  if (rc == 0) rc = make_struct(out, "partitionValues_parsed", &kids, err);
  inlet_schema_reset(&kids);
  return rc;
}

/* ---- stats JSON -> stats_parsed ------------------------------------------------ */

typedef struct sp_ctx {
  sj_doc doc;
  inlet_buf scratch, key;
  inlet_error *err;
} sp_ctx;

/* Exact integer from the JSON number text, false when it is not one or out
 * of [lo, hi]. */
static bool num_int(const sj_doc *d, const sj_tok *t, int64_t lo, int64_t hi, int64_t *out) {
  const char *p = d->s + t->start, *e = d->s + t->end;
  bool neg = p < e && *p == '-';
  if (neg) p++;
  if (p == e) return false;
  unsigned __int128 v = 0;
  for (; p < e; p++) {
    if (*p < '0' || *p > '9') return false;
    v = v * 10 + (unsigned)(*p - '0');
    if (v > (unsigned __int128)1 << 64) return false;
  }
  __int128 s = neg ? -(__int128)v : (__int128)v;
  if (s < lo || s > hi) return false;
  *out = (int64_t)s;
  return true;
}

/* Decimal(precision, scale) from the JSON number text, exactly: digits past
 * the scale must be zeros and the value must fit the precision. */
static bool num_decimal(const sj_doc *d, const sj_tok *t, int precision, int scale,
                        uint8_t le[16]) {
  const char *p = d->s + t->start, *e = d->s + t->end;
  bool neg = p < e && *p == '-';
  if (neg) p++;
  char digits[128];
  int nd = 0, point = -1;
  long exp10 = 0;
  for (; p < e; p++) {
    if (*p >= '0' && *p <= '9') {
      if (nd == (int)sizeof digits) return false;
      digits[nd++] = *p;
    } else if (*p == '.' && point < 0) {
      point = nd;
    } else if (*p == 'e' || *p == 'E') {
      char *end;
      errno = 0;
      exp10 = strtol(p + 1, &end, 10);
      if (end != e || errno || exp10 > 1000 || exp10 < -1000) return false;
      break;
    } else {
      return false;
    }
  }
  if (nd == 0) return false;
  if (point < 0) point = nd;
  /* value = digits * 10^(exp10 - (nd - point)); scale it to @p scale. */
  long shift = exp10 - (nd - point) + scale; /* power of ten to multiply the digits by */
  unsigned __int128 v = 0, max = 1;          /* max = 10^precision <= 10^38 < 2^127 */
  for (int i = 0; i < precision; i++)
    max *= 10;
  int keep = nd;
  if (shift < 0) {
    if (-shift > nd) {
      for (int i = 0; i < nd; i++)
        if (digits[i] != '0') return false;
      keep = 0;
    } else {
      keep = nd + (int)shift;
      for (int i = keep; i < nd; i++)
        if (digits[i] != '0') return false;
    }
  }
  /* Every step stays below max, so nothing overflows. */
  for (int i = 0; i < keep; i++) {
    unsigned dg = (unsigned)(digits[i] - '0');
    if (v > (max - 1 - dg) / 10) return false;
    v = v * 10 + dg;
  }
  for (long i = 0; i < shift; i++) {
    if (v > (max - 1) / 10) return false;
    v *= 10;
  }
  __int128 s = neg ? -(__int128)v : (__int128)v;
  for (int i = 0; i < 16; i++)
    le[i] = (uint8_t)((unsigned __int128)s >> (8 * i));
  return true;
}

/* Appends JSON token @p ti (-1 = absent) as a value of @p f. */
static int sp_value(sp_ctx *c, inlet_array *a, const inlet_field *f, int32_t ti) {
  inlet_error *err = c->err;
  const sj_doc *d = &c->doc;
  const sj_tok *t = ti >= 0 ? &d->toks[ti] : NULL;
  if (!t || t->type == SJ_NULL) return inlet_array_append_null(a, f, err);
  switch (f->type.id) {
  case INLET_TYPE_STRUCT: {
    if (t->type != SJ_OBJ) return inlet_array_append_null(a, f, err);
    for (int32_t i = 0; i < f->n_children; i++) {
      int32_t m = sj_member(d, ti, f->children[i].name, &c->key);
      TRY(sp_value(c, &a->children[i], &f->children[i], m));
    }
    return inlet_array_append_struct_entry(a, err);
  }
  case INLET_TYPE_BOOL:
    if (t->type != SJ_TRUE && t->type != SJ_FALSE) return inlet_array_append_null(a, f, err);
    return inlet_array_append_bool(a, t->type == SJ_TRUE, err);
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64: {
    int bits = f->type.id == INLET_TYPE_INT8    ? 8
               : f->type.id == INLET_TYPE_INT16 ? 16
               : f->type.id == INLET_TYPE_INT32 ? 32
                                                : 64;
    int64_t hi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
    int64_t lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
    int64_t v;
    if (t->type != SJ_NUM || !num_int(d, t, lo, hi, &v)) return inlet_array_append_null(a, f, err);
    return inlet_array_append_int(a, f, v, err);
  }
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: {
    if (t->type != SJ_NUM) return inlet_array_append_null(a, f, err);
    char buf[128];
    int32_t n = t->end - t->start;
    if (n <= 0 || n >= (int32_t)sizeof buf) return inlet_array_append_null(a, f, err);
    memcpy(buf, d->s + t->start, (size_t)n);
    buf[n] = '\0';
    char *end;
    if (f->type.id == INLET_TYPE_FLOAT) {
      float v = strtof(buf, &end);
      if (*end || !isfinite(v)) return inlet_array_append_null(a, f, err);
      return inlet_array_append_float(a, v, err);
    }
    double v = strtod(buf, &end);
    if (*end || !isfinite(v)) return inlet_array_append_null(a, f, err);
    return inlet_array_append_double(a, v, err);
  }
  case INLET_TYPE_DECIMAL: {
    uint8_t le[16];
    if (t->type != SJ_NUM || !num_decimal(d, t, f->type.precision, f->type.scale, le))
      return inlet_array_append_null(a, f, err);
    return inlet_array_append_decimal(a, le, err);
  }
  case INLET_TYPE_STRING:
  case INLET_TYPE_DATE:
  case INLET_TYPE_TIMESTAMP: {
    if (t->type != SJ_STR || !sj_str(d, t, &c->scratch)) return inlet_array_append_null(a, f, err);
    if (inlet_buf_status(&c->scratch))
      return inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint statistics");
    if (f->type.id == INLET_TYPE_STRING)
      return inlet_array_append_bytes(a, f, c->scratch.data, c->scratch.len, err);
    inlet_buf_terminate(&c->scratch);
    const char *s = (const char *)c->scratch.data;
    if (f->type.id == INLET_TYPE_DATE) {
      int32_t days;
      if (!delta_parse_date(s, &days)) return inlet_array_append_null(a, f, err);
      return inlet_array_append_int(a, f, days, err);
    }
    int64_t us;
    if (!delta_parse_timestamp(s, &us)) return inlet_array_append_null(a, f, err);
    switch (f->type.unit) {
    case INLET_UNIT_SECOND: us /= 1000000; break;
    case INLET_UNIT_MILLI: us /= 1000; break;
    case INLET_UNIT_NANO:
      if (us > INT64_MAX / 1000 || us < INT64_MIN / 1000) return inlet_array_append_null(a, f, err);
      us *= 1000;
      break;
    case INLET_UNIT_MICRO: break;
    }
    return inlet_array_append_int(a, f, us, err);
  }
  default: return inlet_array_append_null(a, f, err);
  }
}

struct delta_stats_struct_writer {
  sp_ctx c;
};

int delta_stats_struct_writer_new(delta_stats_struct_writer **out, inlet_error *err) {
  *out = inlet_calloc(1, sizeof **out);
  if (!*out) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  return 0; /* zeroed buffers are empty ones */
}

void delta_stats_struct_writer_free(delta_stats_struct_writer *w) {
  if (!w) return;
  inlet_free(w->c.doc.toks);
  inlet_buf_reset(&w->c.scratch);
  inlet_buf_reset(&w->c.key);
  inlet_free(w);
}

int delta_stats_struct_append(delta_stats_struct_writer *w, inlet_array *a, const inlet_field *f,
                              const char *stats_json, inlet_error *err) {
  if (!stats_json) return inlet_array_append_null(a, f, err);
  sp_ctx *c = &w->c;
  c->err = err;
  bool oom;
  if (!sj_parse(&c->doc, stats_json, &oom)) {
    if (oom) return inlet_fail(err, INLET_ENOMEM, "out of memory writing checkpoint statistics");
    return inlet_array_append_null(a, f, err); /* unparseable stats: unknown */
  }
  return sp_value(c, a, f, 0);
}

/* ---- stats_parsed -> stats JSON ------------------------------------------------ */

static void json_quoted(inlet_buf *b, const uint8_t *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  inlet_buf_push(b, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t ch = s[i];
    if (ch == '"' || ch == '\\') {
      inlet_buf_push(b, '\\');
      inlet_buf_push(b, ch);
    } else if (ch < 0x20) {
      char e[6] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};
      inlet_buf_append(b, e, 6);
    } else {
      inlet_buf_push(b, ch);
    }
  }
  inlet_buf_push(b, '"');
}

static int64_t micros_of(const inlet_type *t, int64_t v) {
  switch (t->unit) {
  case INLET_UNIT_SECOND: return v * 1000000;
  case INLET_UNIT_MILLI: return v * 1000;
  case INLET_UNIT_NANO: return v >= 0 ? v / 1000 : -((-v + 999) / 1000);
  case INLET_UNIT_MICRO: return v;
  }
  return v;
}

/* Writes value @p r of @p a; false when it is null (nothing written). */
static bool to_json(inlet_buf *b, const inlet_field *f, const inlet_array *a, int64_t r,
                    int depth) {
  if (!inlet_array_is_valid(a, r) || depth > STATS_MAX_DEPTH) return false;
  char buf[96];
  switch (f->type.id) {
  case INLET_TYPE_STRUCT: {
    bool any = false;
    for (int32_t i = 0; i < f->n_children; i++) {
      inlet_buf sub = INLET_BUF_INIT;
      if (to_json(&sub, &f->children[i], &a->children[i], r, depth + 1)) {
        inlet_buf_push(b, any ? ',' : '{');
        json_quoted(b, (const uint8_t *)f->children[i].name, strlen(f->children[i].name));
        inlet_buf_push(b, ':');
        inlet_buf_append(b, sub.data, sub.len);
        any = true;
      }
      if (inlet_buf_status(&sub)) b->error = INLET_ENOMEM;
      inlet_buf_reset(&sub);
    }
    if (!any) inlet_buf_push(b, '{');
    inlet_buf_push(b, '}');
    return true;
  }
  case INLET_TYPE_BOOL:
    inlet_buf_puts(b, inlet_bit_get(a->values, r) ? "true" : "false");
    return true;
  case INLET_TYPE_INT8: inlet_buf_appendf(b, "%d", ((const int8_t *)a->values)[r]); return true;
  case INLET_TYPE_INT16: inlet_buf_appendf(b, "%d", ((const int16_t *)a->values)[r]); return true;
  case INLET_TYPE_INT32: inlet_buf_appendf(b, "%d", ((const int32_t *)a->values)[r]); return true;
  case INLET_TYPE_INT64:
    inlet_buf_appendf(b, "%lld", (long long)((const int64_t *)a->values)[r]);
    return true;
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE: {
    double v = f->type.id == INLET_TYPE_FLOAT ? ((const float *)a->values)[r]
                                              : ((const double *)a->values)[r];
    if (!isfinite(v)) return false; /* JSON cannot carry it: the bound is unknown */
    delta_format_double(buf, sizeof buf, v, f->type.id == INLET_TYPE_FLOAT);
    inlet_buf_puts(b, buf);
    return true;
  }
  case INLET_TYPE_DECIMAL:
    delta_format_decimal(buf, sizeof buf, a->values + r * 16, f->type.scale);
    inlet_buf_puts(b, buf);
    return true;
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
    json_quoted(b, a->values + a->offsets[r], (size_t)(a->offsets[r + 1] - a->offsets[r]));
    return true;
  case INLET_TYPE_DATE:
    delta_format_date(buf, ((const int32_t *)a->values)[r]);
    inlet_buf_appendf(b, "\"%s\"", buf);
    return true;
  case INLET_TYPE_TIMESTAMP:
    /* Microseconds, not Spark's milliseconds: a max cut to milliseconds
     * would no longer bound the values. */
    delta_format_micros(buf, micros_of(&f->type, ((const int64_t *)a->values)[r]), 6);
    inlet_buf_appendf(b, "\"%s%s\"", buf, f->type.utc ? "Z" : "");
    return true;
  default: return false;
  }
}

int delta_stats_struct_to_json(char **out, const inlet_field *f, const inlet_array *a, int64_t r,
                               inlet_error *err) {
  *out = NULL;
  if (f->type.id != INLET_TYPE_STRUCT || !inlet_array_is_valid(a, r)) return 0;
  inlet_buf b = INLET_BUF_INIT;
  to_json(&b, f, a, r, 0);
  inlet_buf_terminate(&b);
  if (inlet_buf_status(&b)) {
    inlet_buf_reset(&b);
    return inlet_fail(err, INLET_ENOMEM, "out of memory reading checkpoint statistics");
  }
  *out = (char *)inlet_buf_detach(&b, NULL);
  return 0;
}
