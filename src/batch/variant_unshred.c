/*
 * Shredded Variant values back to their unshredded bytes (batch.h
 * batch_variant_unshred).
 *
 * Spec: apache/parquet-format VariantShredding.md. A shredded variant is a
 * group of `value` (a Variant binary, optional) and `typed_value`
 * (optional): a scalar of a Parquet type, a LIST of element groups, or a
 * group of one field group per shredded object key, each again a group of
 * value and typed_value. Per row: both null = missing (an absent object
 * field); value only = that variant, of any type; typed_value only = the
 * typed value; both = a partially shredded object, whose `value` holds the
 * object's other fields and never a shredded one.
 *
 * Why bytes and not JSON text: a scan prints the rebuilt value as it prints
 * any other (batch_variant_to_json), and maintenance (compaction,
 * copy-on-write delete), which writes variants unshredded, stores it; typed
 * values keep their Variant types (a decimal stays a decimal, a date a
 * date), which no text form would. What this file builds is canonical:
 * object keys sorted with their values in the same order, the smallest id
 * and offset widths, strings under 64 bytes short; bytes copied from a
 * `value` stay as they were.
 */
#include <stdio.h>
#include <string.h>

#include "batch/batch.h"
#include "util/util.h"

typedef struct uctx {
  batch_variant_meta meta;
  inlet_error *err;
} uctx;

static int bad(uctx *c, const char *what) {
  return inlet_fail(c->err, INLET_ECORRUPT, "invalid shredded variant: %s", what);
}

/* After appending to @p b: out of memory, or past the size a Variant may
 * have (offsets are at most 4 bytes wide). */
static int status(uctx *c, const inlet_buf *b) {
  if (inlet_buf_status(b) < 0) return inlet_fail(c->err, INLET_ENOMEM, "out of memory");
  if (b->len > (size_t)BATCH_VARIANT_MAX_BYTES)
    return inlet_fail(c->err, INLET_ELIMIT, "shredded variant: value longer than %d bytes",
                      BATCH_VARIANT_MAX_BYTES);
  return 0;
}

static uint32_t le_uint(const uint8_t *p, size_t n) {
  uint32_t v = 0;
  for (size_t i = n; i > 0; i--)
    v = v << 8 | p[i - 1];
  return v;
}

static void append_le(inlet_buf *b, uint64_t v, size_t n) {
  uint8_t t[8];
  for (size_t i = 0; i < n; i++)
    t[i] = (uint8_t)(v >> (8 * i));
  inlet_buf_append(b, t, n);
}

static size_t width_of(size_t v) { /* bytes to hold v, 1..4 */
  return v < ((size_t)1 << 8) ? 1 : v < ((size_t)1 << 16) ? 2 : v < ((size_t)1 << 24) ? 3 : 4;
}

static const uint8_t *bytes_at(const inlet_array *a, int64_t r, size_t *n) {
  *n = (size_t)(a->offsets[r + 1] - a->offsets[r]);
  return *n ? a->values + a->offsets[r] : (const uint8_t *)"";
}

/* Whether a typed_value of type @p t can hold a Variant: a group, a list,
 * or a scalar some Variant primitive matches (the spec's table). */
static bool typed_ok(const inlet_type *t) {
  switch (t->id) {
  case INLET_TYPE_STRUCT:
  case INLET_TYPE_LIST:
  case INLET_TYPE_BOOL:
  case INLET_TYPE_INT8:
  case INLET_TYPE_INT16:
  case INLET_TYPE_INT32:
  case INLET_TYPE_INT64:
  case INLET_TYPE_FLOAT:
  case INLET_TYPE_DOUBLE:
  case INLET_TYPE_DATE:
  case INLET_TYPE_DECIMAL:
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY: return true;
  case INLET_TYPE_TIMESTAMP: return t->unit == INLET_UNIT_MICRO || t->unit == INLET_UNIT_NANO;
  case INLET_TYPE_TIME: return t->unit == INLET_UNIT_MICRO;
  case INLET_TYPE_FIXED_BINARY: return t->ext == INLET_EXT_UUID && t->byte_width == 16;
  default: return false;
  }
}

/* A typed_value scalar (its type passed typed_ok) as the Variant primitive
 * of the same type. */
static int typed_scalar(uctx *c, inlet_buf *out, const inlet_field *f, const inlet_array *a,
                        int64_t r) {
  const inlet_type *t = &f->type;
  int32_t w = inlet_type_value_width(t);
  const uint8_t *p = w > 0 && a->values ? a->values + (size_t)r * (size_t)w : NULL;
  int type = 0;
  switch (t->id) {
  case INLET_TYPE_BOOL: type = inlet_bit_get(a->values, r) ? 1 : 2; break;
  case INLET_TYPE_INT8: type = 3; break;
  case INLET_TYPE_INT16: type = 4; break;
  case INLET_TYPE_INT32: type = 5; break;
  case INLET_TYPE_INT64: type = 6; break;
  case INLET_TYPE_DOUBLE: type = 7; break;
  case INLET_TYPE_FLOAT: type = 14; break;
  case INLET_TYPE_DATE: type = 11; break;
  case INLET_TYPE_TIMESTAMP:
    type = t->unit == INLET_UNIT_MICRO ? (t->utc ? 12 : 13) : (t->utc ? 18 : 19);
    break;
  case INLET_TYPE_TIME: type = 17; break;
  case INLET_TYPE_FIXED_BINARY: type = 20; break;
  case INLET_TYPE_DECIMAL: {
    /* decimal4, 8 or 16 by precision; the low bytes of the 16-byte
     * little-endian value */
    size_t dw = t->precision <= 9 ? 4 : t->precision <= 18 ? 8 : 16;
    inlet_buf_push(out, (uint8_t)((dw == 4 ? 8 : dw == 8 ? 9 : 10) << 2));
    inlet_buf_push(out, (uint8_t)t->scale);
    inlet_buf_append(out, p, dw);
    return status(c, out);
  }
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY: {
    size_t n;
    const uint8_t *b = bytes_at(a, r, &n);
    if (t->id == INLET_TYPE_STRING && n < 64) {
      inlet_buf_push(out, (uint8_t)(n << 2 | 1));
    } else {
      inlet_buf_push(out, (uint8_t)((t->id == INLET_TYPE_STRING ? 16 : 15) << 2));
      append_le(out, n, 4);
    }
    if (n) inlet_buf_append(out, b, n);
    return status(c, out);
  }
  default: break;
  }
  inlet_buf_push(out, (uint8_t)(type << 2));
  if (type > 2) inlet_buf_append(out, p, (size_t)w);
  return status(c, out);
}

/* The dictionary id of key @p name into *id; false when the metadata lacks
 * it. A sorted dictionary is searched by halves first. */
static int find_key(uctx *c, const char *name, uint32_t *id, bool *found) {
  size_t nl = strlen(name);
  const uint8_t *k;
  size_t kn;
  const char *why;
  *found = false;
  if (c->meta.sorted) {
    uint32_t lo = 0, hi = c->meta.n;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if ((why = batch_variant_meta_key(&c->meta, mid, &k, &kn)) != NULL) return bad(c, why);
      size_t m = kn < nl ? kn : nl;
      int d = m ? memcmp(k, name, m) : 0;
      if (d == 0) d = (kn > nl) - (kn < nl);
      if (d == 0) {
        *id = mid;
        *found = true;
        return 0;
      }
      if (d < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  }
  /* Unsorted, or a dictionary flagged sorted that is not. */
  for (uint32_t i = 0; i < c->meta.n; i++) {
    if ((why = batch_variant_meta_key(&c->meta, i, &k, &kn)) != NULL) return bad(c, why);
    if (kn == nl && memcmp(k, name, nl) == 0) {
      *id = i;
      *found = true;
      return 0;
    }
  }
  return 0;
}

/* An object field on its way into the rebuilt object: its key, and where
 * its value's bytes sit in the scratch buffer. */
typedef struct field_ent {
  uint32_t id;
  const uint8_t *key;
  size_t key_len, at, len;
} field_ent;

static int ent_cmp(const field_ent *x, const field_ent *y) {
  size_t m = x->key_len < y->key_len ? x->key_len : y->key_len;
  int d = m ? memcmp(x->key, y->key, m) : 0;
  return d ? d : (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

static int unshred(uctx *c, inlet_buf *out, const inlet_field *g, const inlet_array *a, int64_t r,
                   int depth, bool *missing);

static int push_ent(uctx *c, field_ent **e, size_t *n, size_t *cap, field_ent x) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 8;
    field_ent *ne = inlet_realloc(*e, nc * sizeof *ne);
    if (!ne) return inlet_fail(c->err, INLET_ENOMEM, "out of memory");
    *e = ne;
    *cap = nc;
  }
  (*e)[(*n)++] = x;
  return 0;
}

/* The fields of a partially shredded object's @p value (bytes vb[0..vn))
 * into the entries and the scratch buffer; none may be a key group @p tt
 * shreds, present in this row or not. */
static int value_fields(uctx *c, const inlet_field *tt, const uint8_t *vb, size_t vn,
                        inlet_buf *vals, field_ent **e, size_t *n, size_t *cap) {
  if (vn == 0 || (vb[0] & 3) != 2)
    return bad(c, "a value that is not an object beside shredded object fields");
  batch_variant_container k;
  const char *why = batch_variant_container_open(&k, vb, vn);
  if (why) return bad(c, why);
  for (size_t i = 0; i < k.n; i++) {
    field_ent x = {.id = le_uint(k.ids + i * k.idsz, k.idsz)};
    if ((why = batch_variant_meta_key(&c->meta, x.id, &x.key, &x.key_len)) != NULL)
      return bad(c, why);
    for (int32_t s = 0; s < tt->n_children; s++) {
      const char *name = tt->children[s].name;
      if (strlen(name) == x.key_len && memcmp(name, x.key, x.key_len) == 0)
        return bad(c, "a key both shredded and in value");
    }
    size_t off = le_uint(k.offs + i * k.osz, k.osz), sz;
    if (off >= k.vals_len) return bad(c, "element offset past the values region");
    if ((why = batch_variant_value_size(k.vals + off, k.vals_len - off, &sz)) != NULL)
      return bad(c, why);
    x.at = vals->len;
    x.len = sz;
    inlet_buf_append(vals, k.vals + off, sz);
    TRY(status(c, vals));
    TRY(push_ent(c, e, n, cap, x));
  }
  return 0;
}

/* A shredded object: typed_value group @p tt (arrays @p ta) merged with
 * the object in @p va, when not NULL. */
static int object(uctx *c, inlet_buf *out, const inlet_field *tt, const inlet_array *ta, int64_t r,
                  const inlet_array *va, int depth) {
  inlet_buf vals = INLET_BUF_INIT;
  field_ent *e = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (int32_t k = 0; k < tt->n_children && rc == 0; k++) {
    const inlet_field *kf = &tt->children[k];
    size_t at = vals.len;
    bool miss = false, found = false;
    field_ent x = {.key = (const uint8_t *)kf->name, .key_len = strlen(kf->name), .at = at};
    rc = unshred(c, &vals, kf, &ta->children[k], r, depth + 1, &miss);
    if (rc < 0 || miss) continue;
    x.len = vals.len - at;
    rc = find_key(c, kf->name, &x.id, &found);
    if (rc == 0 && !found) {
      rc = inlet_fail(c->err, INLET_ECORRUPT,
                      "invalid shredded variant: shredded key \"%s\" is not in the metadata",
                      kf->name);
    }
    if (rc == 0) rc = push_ent(c, &e, &n, &cap, x);
  }
  if (rc == 0 && va) {
    size_t vn;
    const uint8_t *vb = bytes_at(va, r, &vn);
    rc = value_fields(c, tt, vb, vn, &vals, &e, &n, &cap);
  }
  /* Insertion sort by key (objects are small); a key twice is corrupt. */
  for (size_t i = 1; rc == 0 && i < n; i++) {
    field_ent x = e[i];
    size_t j = i;
    while (j > 0 && ent_cmp(&e[j - 1], &x) > 0) {
      e[j] = e[j - 1];
      j--;
    }
    e[j] = x;
    if ((j > 0 && ent_cmp(&e[j - 1], &x) == 0) || (j < i && ent_cmp(&e[j + 1], &x) == 0))
      rc = bad(c, "a repeated key");
  }
  if (rc == 0) {
    uint32_t max_id = 0;
    for (size_t i = 0; i < n; i++)
      if (e[i].id > max_id) max_id = e[i].id;
    size_t idsz = width_of(max_id), osz = width_of(vals.len);
    bool large = n > 255;
    inlet_buf_push(out, (uint8_t)(((large ? 16u : 0u) | (idsz - 1) << 2 | (osz - 1)) << 2 | 2));
    append_le(out, n, large ? 4 : 1);
    for (size_t i = 0; i < n; i++)
      append_le(out, e[i].id, idsz);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
      append_le(out, off, osz);
      off += e[i].len;
    }
    append_le(out, off, osz);
    for (size_t i = 0; i < n; i++)
      if (e[i].len) inlet_buf_append(out, vals.data + e[i].at, e[i].len);
    rc = status(c, out);
  }
  inlet_free(e);
  inlet_buf_reset(&vals);
  return rc;
}

/* A shredded array: list @p tt (arrays @p ta) of element groups. Elements
 * are never missing; one that is reads as a Variant null. */
static int array(uctx *c, inlet_buf *out, const inlet_field *tt, const inlet_array *ta, int64_t r,
                 int depth) {
  int32_t from = ta->offsets[r], to = ta->offsets[r + 1];
  size_t n = to > from ? (size_t)(to - from) : 0;
  inlet_buf vals = INLET_BUF_INIT;
  size_t *ends = n ? inlet_malloc(n * sizeof *ends) : NULL;
  int rc = n && !ends ? inlet_fail(c->err, INLET_ENOMEM, "out of memory") : 0;
  for (size_t j = 0; j < n && rc == 0; j++) {
    bool miss = false;
    rc = unshred(c, &vals, &tt->children[0], &ta->children[0], from + (int64_t)j, depth + 1, &miss);
    if (rc == 0 && miss) {
      inlet_buf_push(&vals, 0);
      rc = status(c, &vals);
    }
    ends[j] = vals.len;
  }
  if (rc == 0) {
    size_t osz = width_of(vals.len);
    bool large = n > 255;
    inlet_buf_push(out, (uint8_t)(((large ? 4u : 0u) | (osz - 1)) << 2 | 3));
    append_le(out, n, large ? 4 : 1);
    append_le(out, 0, osz);
    for (size_t j = 0; j < n; j++)
      append_le(out, ends[j], osz);
    if (vals.len) inlet_buf_append(out, vals.data, vals.len);
    rc = status(c, out);
  }
  inlet_free(ends);
  inlet_buf_reset(&vals);
  return rc;
}

static int unshred(uctx *c, inlet_buf *out, const inlet_field *g, const inlet_array *a, int64_t r,
                   int depth, bool *missing) {
  *missing = true;
  if (depth > BATCH_VARIANT_MAX_DEPTH)
    return inlet_fail(c->err, INLET_ELIMIT, "shredded variant: nesting deeper than %d",
                      BATCH_VARIANT_MAX_DEPTH);
  int32_t vi = -1, ti = -1;
  for (int32_t i = 0; g->type.id == INLET_TYPE_STRUCT && i < g->n_children; i++) {
    if (strcmp(g->children[i].name, "value") == 0) vi = i;
    if (strcmp(g->children[i].name, "typed_value") == 0) ti = i;
  }
  if (vi >= 0 && g->children[vi].type.id != INLET_TYPE_BINARY &&
      g->children[vi].type.id != INLET_TYPE_STRING)
    return bad(c, "value is not binary");
  /* A typed_value type no Variant primitive matches is refused whether or
   * not this row uses it (the file's shredding schema is wrong). */
  if (ti >= 0 && !typed_ok(&g->children[ti].type)) {
    char tn[64];
    inlet_type_name(&g->children[ti].type, tn, sizeof tn);
    return inlet_fail(c->err, INLET_EUNSUPPORTED, "shredded variant: typed_value of type %s", tn);
  }
  bool valid = inlet_array_is_valid(a, r);
  bool hv = valid && vi >= 0 && inlet_array_is_valid(&a->children[vi], r);
  bool ht = valid && ti >= 0 && inlet_array_is_valid(&a->children[ti], r);
  *missing = !hv && !ht;
  if (*missing) return 0;
  if (!ht) {
    size_t vn;
    const uint8_t *vb = bytes_at(&a->children[vi], r, &vn);
    if (vn == 0) return bad(c, "an empty value");
    inlet_buf_append(out, vb, vn);
    return status(c, out);
  }
  const inlet_field *tt = &g->children[ti];
  const inlet_array *ta = &a->children[ti];
  if (tt->type.id == INLET_TYPE_STRUCT)
    return object(c, out, tt, ta, r, hv ? &a->children[vi] : NULL, depth);
  if (hv) return bad(c, "conflicting value and typed_value");
  if (tt->type.id == INLET_TYPE_LIST) return array(c, out, tt, ta, r, depth);
  return typed_scalar(c, out, tt, ta, r);
}

int batch_variant_unshred(inlet_buf *out, const uint8_t *meta, size_t meta_len,
                          const inlet_field *g, const inlet_array *a, int64_t r, bool *missing,
                          inlet_error *err) {
  uctx c = {.err = err};
  *missing = true;
  TRY(batch_variant_meta_open(&c.meta, meta, meta_len, err));
  size_t at = out->len;
  int rc = unshred(&c, out, g, a, r, 0, missing);
  if (rc < 0 && out->len > at) out->len = at;
  return rc;
}
