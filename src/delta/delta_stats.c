/*
 * Per-file statistics for add.stats, computed from the batches written to
 * one data file.
 *
 * Spec: PROTOCOL.md "Per-file Statistics": numRecords, and per column
 * (nested like the schema) nullCount, minValues and maxValues; string
 * bounds cut to a 32-character prefix (Delta's default prefix length), the
 * max then extended with U+10FFFF so it stays an upper bound in UTF-8 byte
 * order; timestamps truncated to milliseconds. Stats cover the first
 * delta.dataSkippingNumIndexedCols leaf columns (default 32). Columns
 * without a meaningful order (boolean, binary, nested lists and maps) get a
 * nullCount only, and a float column that held NaN or an infinity gets no
 * min/max (JSON cannot carry them, and a bound without them would lie).
 *
 * Writers gather them in one pass: the Parquet writer keeps per-leaf
 * statistics of the values it encodes (parquet/stats.h: untruncated byte
 * arrays, a NaN flag), which delta_stats_take_parquet() converts to the
 * Delta values after close; only rows and the nullCount of list and map
 * columns (which have no Parquet leaf of their own) are counted from the
 * batches, by delta_stats_count(). delta_stats_add() computes the same
 * from the batches alone: the independent reference the tests compare the
 * one-pass path with, not used by writers.
 */
#include <math.h>
#include <stdio.h>

#include "delta/delta.h"
#include "parquet/stats.h"
#include "util/util.h"

#define STRING_PREFIX_CHARS 32

typedef struct leaf {
  const inlet_field *field;             /* borrowed from acc->schema */
  int32_t path[DELTA_MAX_SCHEMA_DEPTH]; /* child indices from the top-level column */
  int32_t depth;
  /* The Parquet leaf column of the value (the first of the data file's
   * leaves in schema order that this field spans); -1 for lists and maps,
   * whose nullCount is counted from the batches. */
  int32_t pq_leaf;
  int64_t null_count;
  bool has;      /* min/max seen */
  bool poisoned; /* NaN/inf seen: drop min/max */
  int64_t imin, imax;
  double dmin, dmax;
  __int128 qmin, qmax;
  inlet_buf smin, smax; /* owned */
} leaf;

struct delta_stats_acc {
  inlet_schema schema; /* owned copy */
  leaf *leaves;        /* owned */
  int32_t n_leaves, cap_leaves;
  int32_t pq_next; /* Parquet leaf of the next field collected */
  int64_t rows;
};

int64_t delta_stats_num_records(const char *stats) {
  if (!stats) return -1;
  const char *p = strstr(stats, "\"numRecords\"");
  if (!p) return -1;
  p += 12;
  while (*p == ' ' || *p == ':')
    p++;
  char *end;
  long long v = strtoll(p, &end, 10);
  return end == p || v < 0 ? -1 : v;
}

bool delta_stats_type_has_bounds(const inlet_type *t) {
  switch (t->id) {
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64:
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE:
  case INLET_TYPE_DATE:
  case INLET_TYPE_TIMESTAMP:
  case INLET_TYPE_DECIMAL:
  /* a variant's JSON text has no order Delta defines: nullCount only */
  case INLET_TYPE_STRING: return t->ext != INLET_EXT_VARIANT;
  default: return false;
  }
}

static bool is_list_or_map(const inlet_type *t) {
  return t->id == INLET_TYPE_LIST || t->id == INLET_TYPE_MAP;
}

/* Parquet leaf columns of a field: one per primitive inside it (a list's
 * elements, a map's keys and values), in schema order. */
static int32_t pq_leaves(const inlet_field *f) {
  if (f->type.id != INLET_TYPE_STRUCT && !is_list_or_map(&f->type)) return 1;
  int32_t n = 0;
  for (int32_t i = 0; i < f->n_children; i++)
    n += pq_leaves(&f->children[i]);
  return n;
}

static int collect(delta_stats_acc *acc, const inlet_field *f, int32_t *path, int32_t depth,
                   int32_t max_cols, inlet_error *err) {
  if (max_cols >= 0 && acc->n_leaves >= max_cols) return 0;
  if (depth >= DELTA_MAX_SCHEMA_DEPTH) {
    acc->pq_next += pq_leaves(f);
    return 0;
  }
  /* A variant in its data-file form (a group of value and metadata) is one
   * column of the stats, with a nullCount only (PROTOCOL.md "Variant Data
   * Type"), counted from the batches as list and map nulls are. */
  bool variant = f->type.id == INLET_TYPE_STRUCT && f->type.ext == INLET_EXT_VARIANT;
  if (f->type.id == INLET_TYPE_STRUCT && !variant) {
    for (int32_t i = 0; i < f->n_children; i++) {
      path[depth] = i;
      TRY(collect(acc, &f->children[i], path, depth + 1, max_cols, err));
    }
    return 0;
  }
  if (acc->n_leaves == acc->cap_leaves) {
    int32_t nc = acc->cap_leaves ? acc->cap_leaves * 2 : 16;
    leaf *nl = inlet_realloc(acc->leaves, (size_t)nc * sizeof *nl);
    if (!nl) return inlet_fail(err, INLET_ENOMEM, "out of memory collecting statistics");
    acc->leaves = nl;
    acc->cap_leaves = nc;
  }
  leaf *l = &acc->leaves[acc->n_leaves++];
  memset(l, 0, sizeof *l);
  l->field = f;
  l->depth = depth;
  memcpy(l->path, path, sizeof(int32_t) * (size_t)depth);
  l->pq_leaf = is_list_or_map(&f->type) || variant ? -1 : acc->pq_next;
  acc->pq_next += pq_leaves(f);
  return 0;
}

int delta_stats_new(delta_stats_acc **out, const inlet_schema *schema, int32_t max_indexed_cols,
                    inlet_error *err) {
  delta_stats_acc *acc = inlet_calloc(1, sizeof *acc);
  if (!acc) return inlet_fail(err, INLET_ENOMEM, "out of memory");
  int rc = inlet_schema_copy(&acc->schema, schema, err);
  if (rc < 0) {
    inlet_free(acc);
    return rc;
  }
  int32_t path[DELTA_MAX_SCHEMA_DEPTH];
  for (int32_t i = 0; i < acc->schema.n_fields && rc == 0; i++) {
    path[0] = i;
    rc = collect(acc, &acc->schema.fields[i], path, 1, max_indexed_cols, err);
  }
  if (rc < 0) {
    delta_stats_free(acc);
    return rc;
  }
  *out = acc;
  return 0;
}

void delta_stats_free(delta_stats_acc *acc) {
  if (!acc) return;
  for (int32_t i = 0; i < acc->n_leaves; i++) {
    inlet_buf_reset(&acc->leaves[i].smin);
    inlet_buf_reset(&acc->leaves[i].smax);
  }
  inlet_free(acc->leaves);
  inlet_schema_reset(&acc->schema);
  inlet_free(acc);
}

int64_t delta_stats_rows(const delta_stats_acc *acc) {
  return acc->rows;
}

static int64_t to_micros(const inlet_type *t, int64_t v) {
  switch (t->unit) {
  case INLET_UNIT_SECOND: return v * 1000000;
  case INLET_UNIT_MILLI: return v * 1000;
  case INLET_UNIT_MICRO: return v;
  case INLET_UNIT_NANO: return v >= 0 ? v / 1000 : -((-v + 999) / 1000);
  }
  return v;
}

static int64_t int_at(const inlet_type *t, const inlet_array *a, int64_t r) {
  switch (t->id) {
  case INLET_TYPE_INT8: return ((const int8_t *)a->values)[r];
  case INLET_TYPE_INT16: return ((const int16_t *)a->values)[r];
  case INLET_TYPE_INT32:
  case INLET_TYPE_DATE: return ((const int32_t *)a->values)[r];
  case INLET_TYPE_TIMESTAMP: return to_micros(t, ((const int64_t *)a->values)[r]);
  default: return ((const int64_t *)a->values)[r];
  }
}

static __int128 dec_at(const inlet_array *a, int64_t r) {
  unsigned __int128 u = 0;
  for (int i = 15; i >= 0; i--)
    u = (u << 8) | a->values[r * 16 + i];
  return (__int128)u;
}

/* Byte order of two strings; either may be empty with a NULL pointer
 * (an empty first value leaves the min/max buffers unallocated). */
static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  size_t m = an < bn ? an : bn;
  int c = m ? memcmp(a, b, m) : 0;
  return c ? c : (an > bn) - (an < bn);
}

static void acc_string(leaf *l, const inlet_array *a, int64_t r) {
  size_t n = (size_t)(a->offsets[r + 1] - a->offsets[r]);
  const uint8_t *p = n ? a->values + a->offsets[r] : NULL;
  if (!l->has) {
    inlet_buf_append(&l->smin, p, n);
    inlet_buf_append(&l->smax, p, n);
    return;
  }
  if (bytes_cmp(p, n, l->smin.data, l->smin.len) < 0) {
    inlet_buf_clear(&l->smin);
    inlet_buf_append(&l->smin, p, n);
  }
  if (bytes_cmp(p, n, l->smax.data, l->smax.len) > 0) {
    inlet_buf_clear(&l->smax);
    inlet_buf_append(&l->smax, p, n);
  }
}

/* Min/max of all @p n rows of a top-level column without nulls, for the
 * types streams carry most (64-bit integers, microsecond timestamps,
 * doubles) in one tight loop. Returns false for the others. */
static bool fast_minmax(leaf *l, const inlet_type *t, const inlet_array *a, int64_t n) {
  if (t->id == INLET_TYPE_INT64 || (t->id == INLET_TYPE_TIMESTAMP && t->unit == INLET_UNIT_MICRO)) {
    const int64_t *v = (const int64_t *)a->values;
    int64_t lo = v[0], hi = v[0];
    for (int64_t r = 1; r < n; r++) {
      lo = v[r] < lo ? v[r] : lo;
      hi = v[r] > hi ? v[r] : hi;
    }
    if (!l->has || lo < l->imin) l->imin = lo;
    if (!l->has || hi > l->imax) l->imax = hi;
  } else if (t->id == INLET_TYPE_DOUBLE) {
    const double *v = (const double *)a->values;
    double lo = v[0], hi = v[0];
    bool finite = true;
    for (int64_t r = 0; r < n; r++) {
      finite &= isfinite(v[r]) != 0;
      lo = v[r] < lo ? v[r] : lo;
      hi = v[r] > hi ? v[r] : hi;
    }
    if (!finite) {
      l->poisoned = true;
      return true;
    }
    if (!l->has || lo < l->dmin) l->dmin = lo;
    if (!l->has || hi > l->dmax) l->dmax = hi;
  } else {
    return false;
  }
  l->has = true;
  return true;
}

int delta_stats_add(delta_stats_acc *acc, const inlet_batch *batch, const int64_t *rows,
                    int64_t n_rows, inlet_error *err) {
  if (!rows) n_rows = batch->num_rows;
  for (int32_t li = 0; li < acc->n_leaves; li++) {
    leaf *l = &acc->leaves[li];
    const inlet_array *chain[DELTA_MAX_SCHEMA_DEPTH];
    const inlet_array *a = &batch->columns[l->path[0]];
    chain[0] = a;
    for (int32_t d = 1; d < l->depth; d++) {
      a = &a->children[l->path[d]];
      chain[d] = a;
    }
    const inlet_type *t = &l->field->type;
    bool ordered = delta_stats_type_has_bounds(t);
    if (l->depth == 1 && !rows && a->null_count == 0 && n_rows > 0 && ordered && !l->poisoned &&
        fast_minmax(l, t, a, n_rows))
      continue;
    for (int64_t k = 0; k < n_rows; k++) {
      int64_t r = rows ? rows[k] : k;
      bool valid = true;
      for (int32_t d = 0; d < l->depth && valid; d++)
        valid = inlet_array_is_valid(chain[d], r);
      if (!valid) {
        l->null_count++;
        continue;
      }
      if (!ordered || l->poisoned) continue;
      switch (t->id) {
      case INLET_TYPE_FLOAT:
      case INLET_TYPE_DOUBLE: {
        double v = t->id == INLET_TYPE_FLOAT ? ((const float *)a->values)[r]
                                             : ((const double *)a->values)[r];
        if (!isfinite(v)) {
          l->poisoned = true;
          continue;
        }
        if (!l->has || v < l->dmin) l->dmin = v;
        if (!l->has || v > l->dmax) l->dmax = v;
        break;
      }
      case INLET_TYPE_DECIMAL: {
        __int128 v = dec_at(a, r);
        if (!l->has || v < l->qmin) l->qmin = v;
        if (!l->has || v > l->qmax) l->qmax = v;
        break;
      }
      case INLET_TYPE_STRING: acc_string(l, a, r); break;
      default: {
        int64_t v = int_at(t, a, r);
        if (!l->has || v < l->imin) l->imin = v;
        if (!l->has || v > l->imax) l->imax = v;
        break;
      }
      }
      l->has = true;
    }
    if (inlet_buf_status(&l->smin) || inlet_buf_status(&l->smax))
      return inlet_fail(err, INLET_ENOMEM, "out of memory collecting statistics");
  }
  acc->rows += n_rows;
  return 0;
}

/* ---- one pass: from the Parquet writer's statistics ------------------------ */

/* The chain of arrays from the top-level column to leaf @p l in @p batch. */
static const inlet_array *leaf_chain(const leaf *l, const inlet_batch *batch,
                                     const inlet_array **chain) {
  const inlet_array *a = &batch->columns[l->path[0]];
  chain[0] = a;
  for (int32_t d = 1; d < l->depth; d++) {
    a = &a->children[l->path[d]];
    chain[d] = a;
  }
  return a;
}

int delta_stats_count(delta_stats_acc *acc, const inlet_batch *batch, inlet_error *err) {
  (void)err;
  for (int32_t li = 0; li < acc->n_leaves; li++) {
    leaf *l = &acc->leaves[li];
    if (l->pq_leaf >= 0) continue;
    const inlet_array *chain[DELTA_MAX_SCHEMA_DEPTH];
    (void)leaf_chain(l, batch, chain);
    for (int64_t r = 0; r < batch->num_rows; r++) {
      bool valid = true;
      for (int32_t d = 0; d < l->depth && valid; d++)
        valid = inlet_array_is_valid(chain[d], r);
      l->null_count += !valid;
    }
  }
  acc->rows += batch->num_rows;
  return 0;
}

/* Sign-extends a big-endian two's complement number of 1..16 bytes. */
static __int128 be_signed(const uint8_t *p, size_t n) {
  unsigned __int128 u = n && (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
  for (size_t i = 0; i < n; i++)
    u = (u << 8) | p[i];
  return (__int128)u;
}

static int copy_bytes(inlet_buf *dst, const inlet_buf *src) {
  inlet_buf_clear(dst);
  return src->len ? inlet_buf_append(dst, src->data, src->len) : 0;
}

/* Converts Parquet statistics @p st of physical values (column @p d) into
 * the Delta bounds of @p l. */
static int leaf_from_parquet(leaf *l, const pq_column_desc *d, const pq_stats *st,
                             inlet_error *err) {
  const inlet_type *t = &l->field->type;
  const char *name = l->field->name;
  pq_stats_kind want = PQ_STATS_NONE;
  switch (t->id) {
  case INLET_TYPE_FLOAT: want = PQ_STATS_FLOAT; break;
  case INLET_TYPE_DOUBLE: want = PQ_STATS_DOUBLE; break;
  case INLET_TYPE_INT64:
  case INLET_TYPE_TIMESTAMP: want = PQ_STATS_I64; break;
  case INLET_TYPE_STRING: want = PQ_STATS_BYTES; break;
  case INLET_TYPE_DECIMAL:
    want = d->physical_type == PQ_INT32   ? PQ_STATS_I32
           : d->physical_type == PQ_INT64 ? PQ_STATS_I64
                                          : PQ_STATS_SIGNED_BE;
    break;
  default: want = PQ_STATS_I32; break; /* INT8/16/32, DATE */
  }
  FAIL_IF(st->kind != want || (t->id == INLET_TYPE_TIMESTAMP && d->scale_factor <= 0), err,
          INLET_EINTERNAL, "statistics of column \"%s\": Parquet statistics kind %d, not %d", name,
          (int)st->kind, (int)want);
  if (t->id == INLET_TYPE_FLOAT || t->id == INLET_TYPE_DOUBLE) {
    /* NaN and the infinities drop the bounds, as delta_stats_add does; an
     * infinity seen is one of the bounds (Parquet keeps them). */
    l->poisoned = st->has_nan || (st->has_minmax && (!isfinite(st->min.d) || !isfinite(st->max.d)));
    if (l->poisoned || !st->has_minmax) return 0;
    l->dmin = st->min.d;
    l->dmax = st->max.d;
  } else if (!st->has_minmax) {
    return 0;
  } else if (t->id == INLET_TYPE_STRING) {
    if (copy_bytes(&l->smin, &st->min_bytes) < 0 || copy_bytes(&l->smax, &st->max_bytes) < 0)
      return inlet_fail(err, INLET_ENOMEM, "out of memory collecting statistics");
  } else if (t->id == INLET_TYPE_DECIMAL) {
    if (want == PQ_STATS_SIGNED_BE) {
      FAIL_IF(st->min_bytes.len > 16 || st->max_bytes.len > 16, err, INLET_EINTERNAL,
              "statistics of column \"%s\": decimal wider than 16 bytes", name);
      l->qmin = be_signed(st->min_bytes.data, st->min_bytes.len);
      l->qmax = be_signed(st->max_bytes.data, st->max_bytes.len);
    } else {
      l->qmin = st->min.i;
      l->qmax = st->max.i;
    }
  } else if (t->id == INLET_TYPE_TIMESTAMP) {
    /* Parquet holds value * scale_factor (seconds as millis): exact. */
    l->imin = to_micros(t, st->min.i / d->scale_factor);
    l->imax = to_micros(t, st->max.i / d->scale_factor);
  } else {
    l->imin = st->min.i;
    l->imax = st->max.i;
  }
  l->has = true;
  return 0;
}

int delta_stats_take_parquet(delta_stats_acc *acc, const inlet_parquet_writer *pw,
                             inlet_error *err) {
  for (int32_t li = 0; li < acc->n_leaves; li++) {
    leaf *l = &acc->leaves[li];
    if (l->pq_leaf < 0) continue;
    const pq_column_desc *d = pq_writer_leaf_desc(pw, l->pq_leaf);
    const pq_stats *st = pq_writer_leaf_stats(pw, l->pq_leaf);
    /* The leaf must be this field, and its statistics must cover exactly
     * the rows counted (one value or null per row: no repetition): a
     * mismatch would give another column's bounds, which loses rows. */
    bool same = d && st && d->field_index == l->path[0] && d->n_path == l->depth &&
                d->max_rep_level == 0 && st->num_values == acc->rows;
    const inlet_field *fields = acc->schema.fields;
    for (int32_t k = 0; same && k < l->depth; k++) {
      const inlet_field *f = &fields[l->path[k]];
      same = strcmp(d->path_parts[k], f->name) == 0;
      fields = f->children;
    }
    FAIL_IF(!same, err, INLET_EINTERNAL,
            "statistics of column \"%s\": Parquet leaf %d does not match (%s)", l->field->name,
            (int)l->pq_leaf, d ? d->path : "none");
    l->null_count = st->null_count;
    if (!delta_stats_type_has_bounds(&l->field->type)) continue;
    TRY(leaf_from_parquet(l, d, st, err));
  }
  return 0;
}

/* ---- JSON output ------------------------------------------------------------ */

static void json_str(inlet_buf *b, const uint8_t *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  inlet_buf_push(b, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    if (c == '"' || c == '\\') {
      inlet_buf_push(b, '\\');
      inlet_buf_push(b, c);
    } else if (c < 0x20) {
      char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      inlet_buf_append(b, e, 6);
    } else {
      inlet_buf_push(b, c);
    }
  }
  inlet_buf_push(b, '"');
}

/* Length in bytes of the first @p chars UTF-8 characters of s[0..n). */
static size_t utf8_prefix(const uint8_t *s, size_t n, size_t chars, bool *truncated) {
  size_t i = 0, c = 0;
  while (i < n && c < chars) {
    i++;
    while (i < n && (s[i] & 0xC0) == 0x80)
      i++;
    c++;
  }
  *truncated = i < n;
  return i;
}

enum { KIND_MIN, KIND_MAX, KIND_NULLS };

static void leaf_value(inlet_buf *b, const leaf *l, int kind) {
  const inlet_type *t = &l->field->type;
  char buf[96];
  if (kind == KIND_NULLS) {
    inlet_buf_appendf(b, "%lld", (long long)l->null_count);
    return;
  }
  switch (t->id) {
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE:
    delta_format_double(buf, sizeof buf, kind == KIND_MIN ? l->dmin : l->dmax,
                        t->id == INLET_TYPE_FLOAT);
    inlet_buf_puts(b, buf);
    return;
  case INLET_TYPE_DECIMAL: {
    __int128 q = kind == KIND_MIN ? l->qmin : l->qmax;
    uint8_t le[16];
    for (int i = 0; i < 16; i++)
      le[i] = (uint8_t)((unsigned __int128)q >> (8 * i));
    delta_format_decimal(buf, sizeof buf, le, t->scale);
    inlet_buf_puts(b, buf);
    return;
  }
  case INLET_TYPE_STRING: {
    const inlet_buf *s = kind == KIND_MIN ? &l->smin : &l->smax;
    bool trunc;
    size_t n = utf8_prefix(s->data, s->len, STRING_PREFIX_CHARS, &trunc);
    if (kind == KIND_MAX && trunc) {
      inlet_buf tmp = INLET_BUF_INIT;
      inlet_buf_append(&tmp, s->data, n);
      inlet_buf_append(&tmp, "\xF4\x8F\xBF\xBF", 4);
      json_str(b, tmp.data, tmp.len);
      inlet_buf_reset(&tmp);
    } else {
      json_str(b, s->data, n);
    }
    return;
  }
  case INLET_TYPE_DATE:
    delta_format_date(buf, (int32_t)(kind == KIND_MIN ? l->imin : l->imax));
    inlet_buf_appendf(b, "\"%s\"", buf);
    return;
  case INLET_TYPE_TIMESTAMP: {
    int64_t us = kind == KIND_MIN ? l->imin : l->imax;
    int64_t ms = us >= 0 ? us / 1000 : -((-us + 999) / 1000);
    delta_format_micros(buf, ms * 1000, 3);
    inlet_buf_appendf(b, "\"%s%s\"", buf, t->utc ? "Z" : "");
    return;
  }
  default: inlet_buf_appendf(b, "%lld", (long long)(kind == KIND_MIN ? l->imin : l->imax)); return;
  }
}

static bool leaf_wanted(const leaf *l, int kind) {
  if (kind == KIND_NULLS) return true;
  return l->has && !l->poisoned && delta_stats_type_has_bounds(&l->field->type);
}

/* Writes the object for the leaves whose path starts with prefix[0..depth),
 * leaves [lo, hi) sharing that prefix. Returns whether anything was written. */
static bool write_level(inlet_buf *b, const delta_stats_acc *acc, const inlet_field *fields,
                        int32_t n_fields, int32_t lo, int32_t hi, int32_t depth, int kind) {
  bool any = false;
  for (int32_t fi = 0; fi < n_fields; fi++) {
    int32_t s = lo;
    while (s < hi && acc->leaves[s].path[depth] != fi)
      s++;
    if (s == hi) continue;
    int32_t e = s;
    while (e < hi && acc->leaves[e].path[depth] == fi)
      e++;
    const inlet_field *f = &fields[fi];
    if (f->type.id == INLET_TYPE_STRUCT && f->type.ext != INLET_EXT_VARIANT) {
      inlet_buf sub = INLET_BUF_INIT;
      if (write_level(&sub, acc, f->children, f->n_children, s, e, depth + 1, kind)) {
        inlet_buf_push(b, any ? ',' : '{');
        json_str(b, (const uint8_t *)f->name, strlen(f->name));
        inlet_buf_push(b, ':');
        inlet_buf_append(b, sub.data, sub.len);
        any = true;
      }
      inlet_buf_reset(&sub);
    } else if (leaf_wanted(&acc->leaves[s], kind)) {
      inlet_buf_push(b, any ? ',' : '{');
      json_str(b, (const uint8_t *)f->name, strlen(f->name));
      inlet_buf_push(b, ':');
      leaf_value(b, &acc->leaves[s], kind);
      any = true;
    }
  }
  if (any) inlet_buf_push(b, '}');
  return any;
}

int delta_stats_json(delta_stats_acc *acc, char **out, inlet_error *err) {
  inlet_buf b = INLET_BUF_INIT;
  inlet_buf_appendf(&b, "{\"numRecords\":%lld", (long long)acc->rows);
  static const char *const names[] = {"minValues", "maxValues", "nullCount"};
  for (int kind = KIND_MIN; kind <= KIND_NULLS; kind++) {
    inlet_buf sub = INLET_BUF_INIT;
    if (write_level(&sub, acc, acc->schema.fields, acc->schema.n_fields, 0, acc->n_leaves, 0,
                    kind)) {
      inlet_buf_appendf(&b, ",\"%s\":", names[kind]);
      inlet_buf_append(&b, sub.data, sub.len);
    } else if (kind != KIND_NULLS || acc->n_leaves == 0) {
      inlet_buf_appendf(&b, ",\"%s\":{}", names[kind]);
    }
    if (inlet_buf_status(&sub)) b.error = INLET_ENOMEM;
    inlet_buf_reset(&sub);
  }
  inlet_buf_push(&b, '}');
  inlet_buf_terminate(&b);
  if (inlet_buf_status(&b)) {
    inlet_buf_reset(&b);
    return inlet_fail(err, INLET_ENOMEM, "out of memory writing statistics");
  }
  *out = (char *)inlet_buf_detach(&b, NULL);
  return 0;
}
