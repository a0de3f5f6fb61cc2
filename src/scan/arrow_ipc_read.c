/*
 * A verifying Arrow IPC reader (scan/arrow_ipc.h) for tests and fuzzers:
 * it reads inlet's own stream and file output back into batches so that
 * round trips can be compared, and it treats its input as untrusted, since
 * the fuzzer feeds it mutated bytes. Every flatbuffer access goes through
 * the bounds-checked helpers below (a table's vtable and inline size, each
 * field inside them, each offset, vector and string inside the buffer), and
 * every node and buffer of a record batch is checked against its type's
 * layout (bitmap and offset sizes, monotonic offsets within the data and
 * child lengths) before it is copied into an inlet_array.
 */
#include "scan/arrow_ipc.h"

#include <lz4frame.h>

#include "batch/batch.h"
#include "codec/codec.h"
#include "util/buf.h"
#include "util/util.h"

/* ---- bounds-checked flatbuffer access ----------------------------------- */

typedef struct fbr {
  const uint8_t *p; /* the flatbuffer */
  size_t n;
} fbr;

typedef struct fbt {
  const fbr *b;
  size_t t;       /* table position */
  size_t vt;      /* vtable position */
  uint16_t vsize; /* vtable bytes */
  uint16_t tsize; /* table inline bytes */
} fbt;

static uint64_t get_le(const uint8_t *p, int size) {
  uint64_t v = 0;
  for (int i = size - 1; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

#define BAD(err, what) inlet_fail(err, INLET_ECORRUPT, "Arrow IPC %s: %s", ctx, what)

static bool fbr_has(const fbr *b, size_t at, size_t n) {
  return at <= b->n && n <= b->n - at;
}

/* The table at @p at. */
static bool fb_table_at(const fbr *b, size_t at, fbt *out) {
  if (!fbr_has(b, at, 4) || (at & 3)) return false;
  int64_t so = (int32_t)get_le(b->p + at, 4);
  int64_t vt = (int64_t)at - so;
  if (vt < 0 || (vt & 1) || !fbr_has(b, (size_t)vt, 4)) return false;
  out->b = b;
  out->t = at;
  out->vt = (size_t)vt;
  out->vsize = (uint16_t)get_le(b->p + vt, 2);
  out->tsize = (uint16_t)get_le(b->p + vt + 2, 2);
  return out->vsize >= 4 && !(out->vsize & 1) && fbr_has(b, (size_t)vt, out->vsize) &&
         out->tsize >= 4 && fbr_has(b, at, out->tsize);
}

/* Position of field @p i holding @p size bytes; 0 when absent; SIZE_MAX when
 * it does not fit in the table. */
static size_t fb_field_pos(const fbt *t, int i, size_t size) {
  size_t e = 4 + 2 * (size_t)i;
  if (e + 2 > t->vsize) return 0;
  size_t off = (size_t)get_le(t->b->p + t->vt + e, 2);
  if (off == 0) return 0;
  if (off < 4 || off + size > t->tsize) return SIZE_MAX;
  return t->t + off;
}

/* A scalar field, @p def when absent; false when malformed. */
static bool fb_scalar(const fbt *t, int i, int size, int64_t def, int64_t *out) {
  size_t at = fb_field_pos(t, i, (size_t)size);
  if (at == SIZE_MAX) return false;
  if (at == 0) {
    *out = def;
    return true;
  }
  uint64_t v = get_le(t->b->p + at, size);
  if (size < 8 && (v >> (8 * size - 1)) & 1) v |= ~(uint64_t)0 << (8 * size); /* sign-extend */
  *out = (int64_t)v;
  return true;
}

/* The object field @p i refers to: *pos 0 when absent; false when
 * malformed. */
static bool fb_ref(const fbt *t, int i, size_t *pos) {
  size_t at = fb_field_pos(t, i, 4);
  if (at == SIZE_MAX) return false;
  *pos = 0;
  if (at == 0) return true;
  uint64_t rel = get_le(t->b->p + at, 4);
  if (rel == 0 || rel > t->b->n - at) return false;
  *pos = at + (size_t)rel;
  return true;
}

static bool fb_subtable(const fbt *t, int i, fbt *out, bool *present) {
  size_t pos;
  if (!fb_ref(t, i, &pos)) return false;
  *present = pos != 0;
  return pos == 0 || fb_table_at(t->b, pos, out);
}

/* A vector of @p n elements of @p elem bytes; *data at its first. */
static bool fb_vec(const fbt *t, int i, size_t elem, size_t *n, size_t *data) {
  size_t pos;
  if (!fb_ref(t, i, &pos)) return false;
  *n = 0;
  *data = 0;
  if (pos == 0) return true;
  if (!fbr_has(t->b, pos, 4)) return false;
  uint64_t count = get_le(t->b->p + pos, 4);
  if (elem && count > (t->b->n - pos - 4) / elem) return false;
  *n = (size_t)count;
  *data = pos + 4;
  return true;
}

/* Element @p k of a vector of tables. */
static bool fb_vec_table(const fbr *b, size_t data, size_t k, fbt *out) {
  size_t at = data + 4 * k;
  uint64_t rel = get_le(b->p + at, 4);
  if (rel == 0 || rel > b->n - at) return false;
  return fb_table_at(b, at + (size_t)rel, out);
}

/* A string field, copied NUL-terminated into a new allocation (or NULL
 * when absent). */
static bool fb_str(const fbt *t, int i, char **out) {
  size_t n, data;
  *out = NULL;
  if (!fb_vec(t, i, 1, &n, &data)) return false;
  if (data == 0) return true;
  if (n >= t->b->n - data || t->b->p[data + n] != 0) return false; /* NUL-terminated */
  if (memchr(t->b->p + data, 0, n)) return false;
  *out = inlet_strndup((const char *)t->b->p + data, n);
  return *out != NULL;
}

/* ---- schema ------------------------------------------------------------ */

static int read_field(inlet_field *f, const fbt *ft, int depth, int64_t *budget, inlet_error *err);

static int read_children(inlet_field *f, const fbt *ft, int depth, int64_t *budget,
                         inlet_error *err) {
  const char *ctx = "schema";
  size_t n, data;
  if (!fb_vec(ft, 5, 4, &n, &data)) return BAD(err, "bad children vector");
  FAIL_IF(n > AIPC_MAX_FIELDS, err, INLET_ELIMIT, "Arrow IPC schema: %zu children", n);
  if (n == 0) return 0;
  f->children = inlet_calloc(n, sizeof *f->children);
  FAIL_IF(!f->children, err, INLET_ENOMEM, "out of memory reading an Arrow schema");
  for (size_t k = 0; k < n; k++) {
    fbt ct;
    if (!fb_vec_table(ft->b, data, k, &ct)) return BAD(err, "bad child field");
    f->n_children = (int32_t)k + 1;
    f->children[k].field_id = -1;
    TRY(read_field(&f->children[k], &ct, depth + 1, budget, err));
  }
  return 0;
}

static bool has_extension(const fbt *ft, const char *want) {
  size_t n, data;
  if (!fb_vec(ft, 6, 4, &n, &data)) return false;
  for (size_t k = 0; k < n; k++) {
    fbt kv;
    char *key = NULL, *val = NULL;
    bool hit = fb_vec_table(ft->b, data, k, &kv) && fb_str(&kv, 0, &key) && fb_str(&kv, 1, &val) &&
               key && val && strcmp(key, "ARROW:extension:name") == 0 && strcmp(val, want) == 0;
    inlet_free(key);
    inlet_free(val);
    if (hit) return true;
  }
  return false;
}

static int read_field(inlet_field *f, const fbt *ft, int depth, int64_t *budget, inlet_error *err) {
  const char *ctx = "schema";
  /* Offsets may share a table, so a small buffer can describe a huge tree:
   * the fields of the whole schema are counted. */
  FAIL_IF(--*budget < 0, err, INLET_ELIMIT, "Arrow IPC schema: more than %d fields in all",
          AIPC_MAX_FIELDS);
  FAIL_IF(depth > AIPC_MAX_DEPTH, err, INLET_ELIMIT,
          "Arrow IPC schema: fields nest deeper than %d levels", AIPC_MAX_DEPTH);
  f->field_id = -1;
  if (!fb_str(ft, 0, &f->name)) return BAD(err, "bad field name");
  if (!f->name && !(f->name = inlet_strdup("")))
    return inlet_fail(err, INLET_ENOMEM, "out of memory reading an Arrow schema");
  int64_t nullable, tt;
  if (!fb_scalar(ft, 1, 1, 0, &nullable) || !fb_scalar(ft, 2, 1, 0, &tt))
    return BAD(err, "bad field flags");
  f->nullable = nullable != 0;
  size_t dict;
  if (!fb_ref(ft, 4, &dict)) return BAD(err, "bad dictionary");
  FAIL_IF(dict != 0, err, INLET_EUNSUPPORTED, "Arrow IPC field \"%s\": dictionary encoding",
          f->name);
  fbt ty;
  bool present;
  if (!fb_subtable(ft, 3, &ty, &present) || !present) return BAD(err, "field without a type");
  TRY(read_children(f, ft, depth, budget, err));
  inlet_type *t = &f->type;
  int64_t a = 0, b = 0, c = 0;
  int want_children = 0;
  switch (tt) {
  case AIPC_T_NULL: t->id = INLET_TYPE_NULL; break;
  case AIPC_T_BOOL: t->id = INLET_TYPE_BOOL; break;
  case AIPC_T_UTF8:
    t->id = INLET_TYPE_STRING;
    if (has_extension(ft, "arrow.json")) t->ext = INLET_EXT_JSON;
    break;
  case AIPC_T_BINARY: t->id = INLET_TYPE_BINARY; break;
  case AIPC_T_INT:
    if (!fb_scalar(&ty, 0, 4, 0, &a) || !fb_scalar(&ty, 1, 1, 0, &b)) return BAD(err, "bad Int");
    switch (a) {
    case 8: t->id = b ? INLET_TYPE_INT8 : INLET_TYPE_UINT8; break;
    case 16: t->id = b ? INLET_TYPE_INT16 : INLET_TYPE_UINT16; break;
    case 32: t->id = b ? INLET_TYPE_INT32 : INLET_TYPE_UINT32; break;
    case 64: t->id = b ? INLET_TYPE_INT64 : INLET_TYPE_UINT64; break;
    default: return BAD(err, "Int bit width not 8, 16, 32 or 64");
    }
    break;
  case AIPC_T_FLOAT:
    if (!fb_scalar(&ty, 0, 2, 0, &a)) return BAD(err, "bad FloatingPoint");
    FAIL_IF(a != 1 && a != 2, err, INLET_EUNSUPPORTED, "Arrow IPC field \"%s\": half floats",
            f->name);
    t->id = a == 1 ? INLET_TYPE_FLOAT : INLET_TYPE_DOUBLE;
    break;
  case AIPC_T_FIXED_BINARY:
    if (!fb_scalar(&ty, 0, 4, 0, &a) || a <= 0 || a > INT32_MAX / 2)
      return BAD(err, "bad FixedSizeBinary width");
    t->id = INLET_TYPE_FIXED_BINARY;
    t->byte_width = (int32_t)a;
    if (a == 16 && has_extension(ft, "arrow.uuid")) t->ext = INLET_EXT_UUID;
    break;
  case AIPC_T_DATE:
    if (!fb_scalar(&ty, 0, 2, 1, &a)) return BAD(err, "bad Date");
    FAIL_IF(a != 0, err, INLET_EUNSUPPORTED, "Arrow IPC field \"%s\": date64", f->name);
    t->id = INLET_TYPE_DATE;
    break;
  case AIPC_T_TIME:
    if (!fb_scalar(&ty, 0, 2, 1, &a) || !fb_scalar(&ty, 1, 4, 32, &b) || a < 0 || a > 3 ||
        b != (a <= 1 ? 32 : 64))
      return BAD(err, "bad Time unit or width");
    t->id = INLET_TYPE_TIME;
    t->unit = (inlet_time_unit)a;
    t->utc = false;
    break;
  case AIPC_T_TIMESTAMP: {
    char *tz = NULL;
    if (!fb_scalar(&ty, 0, 2, 0, &a) || a < 0 || a > 3 || !fb_str(&ty, 1, &tz))
      return BAD(err, "bad Timestamp");
    bool utc = tz && strcmp(tz, "UTC") == 0, other = tz && !utc;
    inlet_free(tz);
    FAIL_IF(other, err, INLET_EUNSUPPORTED, "Arrow IPC field \"%s\": a time zone other than UTC",
            f->name);
    t->id = INLET_TYPE_TIMESTAMP;
    t->unit = (inlet_time_unit)a;
    t->utc = utc;
    break;
  }
  case AIPC_T_DECIMAL:
    if (!fb_scalar(&ty, 0, 4, 0, &a) || !fb_scalar(&ty, 1, 4, 0, &b) ||
        !fb_scalar(&ty, 2, 4, 128, &c) || a < 1 || a > 38 || b < 0 || b > a)
      return BAD(err, "bad Decimal");
    FAIL_IF(c != 128, err, INLET_EUNSUPPORTED, "Arrow IPC field \"%s\": decimal%d", f->name,
            (int)c);
    t->id = INLET_TYPE_DECIMAL;
    t->precision = (int32_t)a;
    t->scale = (int32_t)b;
    break;
  case AIPC_T_STRUCT:
    t->id = INLET_TYPE_STRUCT;
    want_children = -1;
    break;
  case AIPC_T_LIST:
    t->id = INLET_TYPE_LIST;
    want_children = 1;
    break;
  case AIPC_T_MAP:
    t->id = INLET_TYPE_MAP;
    want_children = 1;
    if (f->n_children == 1 && (f->children[0].type.id != INLET_TYPE_STRUCT ||
                               f->children[0].n_children != 2 || f->children[0].nullable))
      return BAD(err, "Map entries not a non-null struct<key, value>");
    break;
  default:
    return inlet_fail(err, INLET_EUNSUPPORTED, "Arrow IPC field \"%s\": type %d", f->name, (int)tt);
  }
  if (want_children >= 0 && f->n_children != want_children)
    return BAD(err, "wrong number of child fields for the type");
  return 0;
}

static int read_schema(inlet_schema *s, const fbt *st, inlet_error *err) {
  const char *ctx = "schema";
  int64_t endian;
  if (!fb_scalar(st, 0, 2, 0, &endian)) return BAD(err, "bad endianness");
  FAIL_IF(endian != 0, err, INLET_EUNSUPPORTED, "Arrow IPC schema: big-endian");
  size_t n, data;
  if (!fb_vec(st, 1, 4, &n, &data)) return BAD(err, "bad fields vector");
  FAIL_IF(n > AIPC_MAX_FIELDS, err, INLET_ELIMIT, "Arrow IPC schema: %zu fields", n);
  if (n == 0) return 0;
  s->fields = inlet_calloc(n, sizeof *s->fields);
  FAIL_IF(!s->fields, err, INLET_ENOMEM, "out of memory reading an Arrow schema");
  int64_t budget = AIPC_MAX_FIELDS;
  for (size_t k = 0; k < n; k++) {
    fbt ft;
    if (!fb_vec_table(st->b, data, k, &ft)) return BAD(err, "bad field");
    s->n_fields = (int32_t)k + 1;
    TRY(read_field(&s->fields[k], &ft, 0, &budget, err));
  }
  return 0;
}

/* ---- record batches ----------------------------------------------------- */

typedef struct batch_reader {
  const fbr *meta;
  size_t nodes, n_nodes, next_node; /* FieldNode structs (16 bytes) */
  size_t bufs, n_bufs, next_buf;    /* Buffer structs (16 bytes) */
  const uint8_t *body;
  int64_t body_len;
  int codec; /* -1 none */
  int32_t batch;
} batch_reader;

static int next_node(batch_reader *r, int64_t *len, int64_t *nulls, inlet_error *err) {
  FAIL_IF(r->next_node >= r->n_nodes, err, INLET_ECORRUPT,
          "Arrow IPC record batch %d: fewer field nodes than the schema needs", (int)r->batch);
  const uint8_t *p = r->meta->p + r->nodes + 16 * r->next_node++;
  *len = (int64_t)get_le(p, 8);
  *nulls = (int64_t)get_le(p + 8, 8);
  FAIL_IF(*len < 0 || *len > AIPC_MAX_ROWS || *nulls < 0 || *nulls > *len, err, INLET_ECORRUPT,
          "Arrow IPC record batch %d: field node %zu has length %lld, null count %lld",
          (int)r->batch, r->next_node - 1, (long long)*len, (long long)*nulls);
  return 0;
}

/* The next buffer, decompressed if need be, into a new allocation of at
 * least @p need bytes (*out NULL when it is empty and need is 0). */
static int next_buffer(batch_reader *r, int64_t need, uint8_t **out, int64_t *got,
                       inlet_error *err) {
  *out = NULL;
  *got = 0;
  FAIL_IF(r->next_buf >= r->n_bufs, err, INLET_ECORRUPT,
          "Arrow IPC record batch %d: fewer buffers than the schema needs", (int)r->batch);
  size_t k = r->next_buf++;
  const uint8_t *p = r->meta->p + r->bufs + 16 * k;
  int64_t off = (int64_t)get_le(p, 8), len = (int64_t)get_le(p + 8, 8);
  FAIL_IF(off < 0 || len < 0 || off > r->body_len || len > r->body_len - off, err, INLET_ECORRUPT,
          "Arrow IPC record batch %d: buffer %zu (offset %lld, length %lld) outside the body of "
          "%lld bytes",
          (int)r->batch, k, (long long)off, (long long)len, (long long)r->body_len);
  const uint8_t *src = r->body + off;
  int64_t raw = len;
  bool stored = true; /* uncompressed, or left uncompressed after length -1 */
  if (r->codec >= 0 && len > 0) {
    FAIL_IF(len < 8, err, INLET_ECORRUPT,
            "Arrow IPC record batch %d: compressed buffer %zu without its length", (int)r->batch,
            k);
    raw = (int64_t)get_le(src, 8);
    src += 8;
    len -= 8;
    stored = raw == -1;
    if (stored) raw = len;
  }
  FAIL_IF(raw < 0 || raw > AIPC_MAX_BUFFER, err, INLET_ELIMIT,
          "Arrow IPC record batch %d: buffer %zu of %lld bytes (the reader's limit is %lld)",
          (int)r->batch, k, (long long)raw, (long long)AIPC_MAX_BUFFER);
  FAIL_IF(raw < need, err, INLET_ECORRUPT,
          "Arrow IPC record batch %d: buffer %zu has %lld bytes, its array needs %lld",
          (int)r->batch, k, (long long)raw, (long long)need);
  if (raw == 0) return 0;
  uint8_t *dst = inlet_malloc((size_t)raw);
  FAIL_IF(!dst, err, INLET_ENOMEM, "out of memory reading an Arrow buffer");
  if (stored) {
    memcpy(dst, src, (size_t)raw);
  } else if (r->codec == AIPC_C_ZSTD) {
    if (inlet_decompress(INLET_CODEC_ZSTD, src, (size_t)len, dst, (size_t)raw, err) < 0) {
      inlet_free(dst);
      inlet_error_prefix(err, "Arrow IPC record batch %d buffer %zu: ", (int)r->batch, k);
      if (err) err->code = INLET_ECORRUPT;
      return INLET_ECORRUPT;
    }
  } else {
    LZ4F_dctx *d = NULL;
    bool ok = !LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION));
    size_t dpos = 0, spos = 0;
    while (ok && spos < (size_t)len) {
      size_t dn = (size_t)raw - dpos, sn = (size_t)len - spos;
      size_t hint = LZ4F_decompress(d, dst + dpos, &dn, src + spos, &sn, NULL);
      if (LZ4F_isError(hint) || (dn == 0 && sn == 0)) ok = false;
      dpos += dn;
      spos += sn;
      if (hint == 0) break;
    }
    ok = ok && dpos == (size_t)raw && spos == (size_t)len;
    LZ4F_freeDecompressionContext(d);
    if (!ok) {
      inlet_free(dst);
      return inlet_fail(err, INLET_ECORRUPT,
                        "Arrow IPC record batch %d: buffer %zu is not an LZ4 frame of %lld bytes",
                        (int)r->batch, k, (long long)raw);
    }
  }
  *out = dst;
  *got = raw;
  return 0;
}

/* Records how many bytes a buffer read into @p a holds, where
 * inlet_batch_validate and the builder functions look for it. */
enum { CAP_VALIDITY, CAP_OFFSETS, CAP_VALUES };
static int note_cap(inlet_array *a, int which, int64_t bytes, inlet_error *err) {
  batch_builder *b = batch_array_builder(a, err);
  if (!b) return INLET_ENOMEM;
  if (which == CAP_VALIDITY)
    b->validity_cap = bytes;
  else if (which == CAP_OFFSETS)
    b->offsets_cap = bytes;
  else
    b->values_cap = bytes;
  return 0;
}

/* Fills @p a (zeroed) from the next node and buffers, for field @p f. */
static int read_array(batch_reader *r, const inlet_field *f, inlet_array *a, int64_t want_len,
                      inlet_error *err) {
  int64_t len = 0, nulls = 0, got = 0;
  TRY(next_node(r, &len, &nulls, err));
  FAIL_IF(want_len >= 0 && len != want_len, err, INLET_ECORRUPT,
          "Arrow IPC record batch %d: column \"%s\" has %lld rows, expected %lld", (int)r->batch,
          f->name, (long long)len, (long long)want_len);
  a->length = len;
  a->null_count = nulls;
  if (f->type.id == INLET_TYPE_NULL) {
    FAIL_IF(nulls != len, err, INLET_ECORRUPT, "Arrow IPC null column \"%s\" with values", f->name);
    if (len > 0) {
      a->validity = inlet_calloc((size_t)(len + 7) / 8, 1);
      FAIL_IF(!a->validity, err, INLET_ENOMEM, "out of memory reading an Arrow buffer");
      TRY(note_cap(a, CAP_VALIDITY, (len + 7) / 8, err));
    }
    return 0;
  }
  int64_t bits = (len + 7) / 8;
  TRY(next_buffer(r, nulls > 0 ? bits : 0, &a->validity, &got, err));
  if (a->validity) TRY(note_cap(a, CAP_VALIDITY, got, err));
  if (a->validity && nulls == 0) { /* a bitmap without nulls: it must say so */
    FAIL_IF(got < bits, err, INLET_ECORRUPT,
            "Arrow IPC column \"%s\": validity bitmap of %lld bytes for %lld rows", f->name,
            (long long)got, (long long)len);
    for (int64_t i = 0; i < len; i++)
      FAIL_IF(!inlet_bit_get(a->validity, i), err, INLET_ECORRUPT,
              "Arrow IPC column \"%s\": null count 0 but row %lld is null", f->name, (long long)i);
    inlet_free(a->validity);
    a->validity = NULL;
    TRY(note_cap(a, CAP_VALIDITY, 0, err));
  } else if (a->validity) {
    int64_t count = 0;
    for (int64_t i = 0; i < len; i++)
      count += !inlet_bit_get(a->validity, i);
    FAIL_IF(count != nulls, err, INLET_ECORRUPT,
            "Arrow IPC column \"%s\": null count %lld, bitmap holds %lld", f->name,
            (long long)nulls, (long long)count);
  }
  switch (f->type.id) {
  case INLET_TYPE_BOOL:
    TRY(next_buffer(r, bits, &a->values, &got, err));
    return note_cap(a, CAP_VALUES, got, err);
  case INLET_TYPE_STRING:
  case INLET_TYPE_BINARY:
  case INLET_TYPE_LIST:
  case INLET_TYPE_MAP: {
    uint8_t *off;
    TRY(next_buffer(r, 4 * (len + 1), &off, &got, err));
    if (!off) { /* an empty array may leave its offsets out */
      FAIL_IF(len > 0, err, INLET_ECORRUPT, "Arrow IPC column \"%s\" without offsets", f->name);
      off = inlet_calloc(1, 4);
      FAIL_IF(!off, err, INLET_ENOMEM, "out of memory reading an Arrow buffer");
      got = 4;
    }
    a->offsets = (int32_t *)(void *)off;
    TRY(note_cap(a, CAP_OFFSETS, got, err));
    int32_t first = 0;
    memcpy(&first, off, 4);
    FAIL_IF(first != 0, err, INLET_EUNSUPPORTED, "Arrow IPC column \"%s\": offsets starting at %d",
            f->name, (int)first);
    for (int64_t i = 0; i < len; i++)
      FAIL_IF(a->offsets[i + 1] < a->offsets[i], err, INLET_ECORRUPT,
              "Arrow IPC column \"%s\": offsets decrease at row %lld", f->name, (long long)i);
    int64_t end = a->offsets[len];
    if (f->type.id == INLET_TYPE_STRING || f->type.id == INLET_TYPE_BINARY) {
      TRY(next_buffer(r, end, &a->values, &got, err));
      TRY(note_cap(a, CAP_VALUES, got, err));
      if (f->type.id == INLET_TYPE_STRING && end > 0)
        FAIL_IF(!inlet_utf8_valid(a->values, (size_t)end), err, INLET_ECORRUPT,
                "Arrow IPC column \"%s\": invalid UTF-8", f->name);
      return 0;
    }
    a->children = inlet_calloc(1, sizeof *a->children);
    FAIL_IF(!a->children, err, INLET_ENOMEM, "out of memory reading an Arrow array");
    a->n_children = 1;
    return read_array(r, &f->children[0], &a->children[0], end, err);
  }
  case INLET_TYPE_STRUCT:
    if (f->n_children > 0) {
      a->children = inlet_calloc((size_t)f->n_children, sizeof *a->children);
      FAIL_IF(!a->children, err, INLET_ENOMEM, "out of memory reading an Arrow array");
      a->n_children = f->n_children;
    }
    for (int32_t i = 0; i < f->n_children; i++)
      TRY(read_array(r, &f->children[i], &a->children[i], len, err));
    return 0;
  default: {
    int64_t width = inlet_type_value_width(&f->type);
    FAIL_IF(width <= 0, err, INLET_EUNSUPPORTED, "Arrow IPC column \"%s\": no layout", f->name);
    TRY(next_buffer(r, width * len, &a->values, &got, err));
    return note_cap(a, CAP_VALUES, got, err);
  }
  }
}

/* A Map's keys are never null in Arrow, as in inlet. */
static int check_map_keys(const inlet_field *f, const inlet_array *a, inlet_error *err) {
  if (f->type.id == INLET_TYPE_MAP && a->n_children == 1 && a->children[0].n_children == 2) {
    const inlet_array *entries = &a->children[0];
    FAIL_IF(entries->null_count > 0 || entries->children[0].null_count > 0, err, INLET_ECORRUPT,
            "Arrow IPC map column \"%s\": a null entry or key", f->name);
  }
  for (int32_t i = 0; i < f->n_children && i < a->n_children; i++)
    TRY(check_map_keys(&f->children[i], &a->children[i], err));
  return 0;
}

static int read_batch(inlet_arrow_ipc_read *out, const fbr *meta, const fbt *rb,
                      const uint8_t *body, int64_t body_len, inlet_error *err) {
  const char *ctx = "record batch";
  batch_reader r = {.meta = meta, .body = body, .body_len = body_len, .codec = -1};
  r.batch = out->n_batches;
  int64_t rows;
  if (!fb_scalar(rb, 0, 8, 0, &rows) || rows < 0 || rows > AIPC_MAX_ROWS)
    return BAD(err, "bad length");
  if (!fb_vec(rb, 1, 16, &r.n_nodes, &r.nodes) || !fb_vec(rb, 2, 16, &r.n_bufs, &r.bufs))
    return BAD(err, "bad nodes or buffers vector");
  /* Struct vectors must be 8-aligned in the buffer for mapped readers. */
  if ((r.n_nodes && (r.nodes & 7)) || (r.n_bufs && (r.bufs & 7)))
    return BAD(err, "misaligned nodes or buffers");
  fbt comp;
  bool present;
  if (!fb_subtable(rb, 3, &comp, &present)) return BAD(err, "bad compression");
  if (present) {
    int64_t codec, method;
    if (!fb_scalar(&comp, 0, 1, 0, &codec) || !fb_scalar(&comp, 1, 1, 0, &method))
      return BAD(err, "bad compression");
    FAIL_IF((codec != AIPC_C_LZ4_FRAME && codec != AIPC_C_ZSTD) || method != 0, err,
            INLET_EUNSUPPORTED, "Arrow IPC record batch: compression codec %d method %d",
            (int)codec, (int)method);
    r.codec = (int)codec;
    out->compression = r.codec;
  }
  if (out->n_batches >= AIPC_MAX_BATCHES)
    return inlet_fail(err, INLET_ELIMIT, "Arrow IPC: more than %d record batches",
                      AIPC_MAX_BATCHES);
  inlet_batch *grown =
      inlet_realloc(out->batches, ((size_t)out->n_batches + 1) * sizeof *out->batches);
  FAIL_IF(!grown, err, INLET_ENOMEM, "out of memory reading Arrow record batches");
  out->batches = grown;
  inlet_batch *b = &out->batches[out->n_batches];
  memset(b, 0, sizeof *b);
  out->n_batches++;
  TRY(inlet_schema_copy(&b->schema, &out->schema, err));
  if (out->schema.n_fields > 0) {
    b->columns = inlet_calloc((size_t)out->schema.n_fields, sizeof *b->columns);
    FAIL_IF(!b->columns, err, INLET_ENOMEM, "out of memory reading an Arrow record batch");
  }
  b->num_rows = rows;
  for (int32_t i = 0; i < out->schema.n_fields; i++) {
    TRY(read_array(&r, &out->schema.fields[i], &b->columns[i], rows, err));
    TRY(check_map_keys(&out->schema.fields[i], &b->columns[i], err));
  }
  FAIL_IF(r.next_node != r.n_nodes || r.next_buf != r.n_bufs, err, INLET_ECORRUPT,
          "Arrow IPC record batch %d: %zu field nodes and %zu buffers, the schema uses %zu and %zu",
          (int)r.batch, r.n_nodes, r.n_bufs, r.next_node, r.next_buf);
  if (inlet_batch_validate(b, err) < 0) {
    if (err) err->code = INLET_ECORRUPT;
    return INLET_ECORRUPT;
  }
  return 0;
}

/* ---- messages ----------------------------------------------------------- */

void inlet_arrow_ipc_read_reset(inlet_arrow_ipc_read *r) {
  if (!r) return;
  inlet_schema_reset(&r->schema);
  for (int32_t i = 0; i < r->n_batches; i++)
    inlet_batch_reset(&r->batches[i]);
  inlet_free(r->batches);
  memset(r, 0, sizeof *r);
  r->compression = -1;
}

/* The root table of the flatbuffer @p b. */
static bool fb_root(const fbr *b, fbt *out) {
  if (b->n < 4) return false;
  uint64_t at = get_le(b->p, 4);
  return at < b->n && fb_table_at(b, (size_t)at, out);
}

typedef struct block {
  int64_t offset, meta_len, body_len;
} block;

int inlet_arrow_ipc_read_all(inlet_arrow_ipc_read *out, const uint8_t *data, size_t len,
                             inlet_error *err) {
  memset(out, 0, sizeof *out);
  out->compression = -1;
  size_t pos = 0;
  size_t end = len;
  if (len >= 8 && memcmp(data, "ARROW1", 6) == 0) {
    out->file = true;
    FAIL_IF(len < 8 + 10 || memcmp(data + len - 6, "ARROW1", 6) != 0, err, INLET_ECORRUPT,
            "Arrow IPC file: no trailing ARROW1 magic");
    pos = 8;
    uint64_t flen = get_le(data + len - 10, 4);
    FAIL_IF(flen > len - 18, err, INLET_ECORRUPT, "Arrow IPC file: footer length %llu",
            (unsigned long long)flen);
    end = len - 10 - (size_t)flen;
  }
  bool have_schema = false;
  block *blocks = NULL;
  size_t n_blocks = 0;
  const uint8_t *foot_blocks = NULL;
  int rc = 0;
  if (out->file) {
    /* The footer holds the schema; the stream part may repeat it (inlet
     * does) or not (apache-arrow's JavaScript writer does not). */
    const char *ctx = "file footer";
    fbr foot = {data + end, len - 10 - end};
    fbt ft, st;
    int64_t version;
    bool present;
    size_t nb, bdata, nd, ddata;
    if (!fb_root(&foot, &ft) || !fb_scalar(&ft, 0, 2, 0, &version) ||
        !fb_subtable(&ft, 1, &st, &present) || !present || !fb_vec(&ft, 2, 24, &nd, &ddata) ||
        !fb_vec(&ft, 3, 24, &nb, &bdata) || (nb && (bdata & 7))) {
      rc = BAD(err, "bad flatbuffer");
      goto done;
    }
    if (version != AIPC_VERSION_V5 || nd != 0 || nb > AIPC_MAX_BATCHES) {
      rc = inlet_fail(err, nd ? INLET_EUNSUPPORTED : INLET_ECORRUPT,
                      "Arrow IPC file footer: version %lld, %zu dictionaries, %zu blocks",
                      (long long)version, nd, nb);
      goto done;
    }
    if ((rc = read_schema(&out->schema, &st, err)) < 0) goto done;
    have_schema = true;
    out->footer_blocks = (int32_t)nb;
    foot_blocks = foot.p + bdata;
  }
  for (;;) {
    const char *ctx = "stream";
    if (pos == end && !out->file) break; /* a stream may end without the EOS marker */
    if (end - pos < 8) {
      rc = BAD(err, "truncated message prefix");
      goto done;
    }
    uint64_t cont = get_le(data + pos, 4), mlen = get_le(data + pos + 4, 4);
    size_t start = pos;
    if (cont != 0xFFFFFFFFu) {
      rc = BAD(err, "message without the continuation marker");
      goto done;
    }
    pos += 8;
    if (mlen == 0) break; /* end of stream */
    if (mlen > end - pos || (mlen & 7)) {
      rc = inlet_fail(err, INLET_ECORRUPT, "Arrow IPC message at byte %zu: metadata length %llu",
                      start, (unsigned long long)mlen);
      goto done;
    }
    fbr meta = {data + pos, (size_t)mlen};
    pos += (size_t)mlen;
    fbt msg;
    int64_t version, htype, body_len;
    if (!fb_root(&meta, &msg) || !fb_scalar(&msg, 0, 2, 0, &version) ||
        !fb_scalar(&msg, 1, 1, 0, &htype) || !fb_scalar(&msg, 3, 8, 0, &body_len)) {
      rc = inlet_fail(err, INLET_ECORRUPT, "Arrow IPC message at byte %zu: bad flatbuffer", start);
      goto done;
    }
    if (version != AIPC_VERSION_V5 || body_len < 0 || (uint64_t)body_len > end - pos ||
        (body_len & 7)) {
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "Arrow IPC message at byte %zu: version %lld, body length %lld", start,
                      (long long)version, (long long)body_len);
      goto done;
    }
    fbt hdr;
    bool present;
    if (!fb_subtable(&msg, 2, &hdr, &present) || !present) {
      rc = inlet_fail(err, INLET_ECORRUPT, "Arrow IPC message at byte %zu: no header", start);
      goto done;
    }
    if (htype == AIPC_H_SCHEMA) {
      if ((have_schema && !out->file) || n_blocks > 0 || body_len != 0) {
        rc = inlet_fail(err, INLET_ECORRUPT, "Arrow IPC message at byte %zu: a second schema",
                        start);
        goto done;
      }
      if (out->file) { /* must repeat the footer's */
        inlet_schema again;
        inlet_schema_init(&again);
        rc = read_schema(&again, &hdr, err);
        bool same = rc == 0 && inlet_schema_equal(&again, &out->schema);
        inlet_schema_reset(&again);
        if (rc < 0) goto done;
        if (!same) {
          rc = inlet_fail(err, INLET_ECORRUPT,
                          "Arrow IPC file: the stream's schema differs from the footer's");
          goto done;
        }
      } else if ((rc = read_schema(&out->schema, &hdr, err)) < 0) {
        goto done;
      }
      have_schema = true;
    } else if (htype == AIPC_H_RECORD_BATCH) {
      if (!have_schema) {
        rc = inlet_fail(err, INLET_ECORRUPT, "Arrow IPC: record batch before the schema");
        goto done;
      }
      if ((rc = read_batch(out, &meta, &hdr, data + pos, body_len, err)) < 0) goto done;
      block *g = inlet_realloc(blocks, (n_blocks + 1) * sizeof *blocks);
      if (!g) {
        rc = inlet_fail(err, INLET_ENOMEM, "out of memory reading Arrow IPC");
        goto done;
      }
      blocks = g;
      blocks[n_blocks++] = (block){(int64_t)start, (int64_t)(mlen + 8), body_len};
    } else {
      rc = inlet_fail(err, INLET_EUNSUPPORTED, "Arrow IPC message at byte %zu: header type %lld",
                      start, (long long)htype);
      goto done;
    }
    pos += (size_t)body_len;
  }
  if (!have_schema) {
    rc = inlet_fail(err, INLET_ECORRUPT, "Arrow IPC: no schema message");
    goto done;
  }
  if (out->file && (size_t)out->footer_blocks != n_blocks) {
    rc = inlet_fail(err, INLET_ECORRUPT,
                    "Arrow IPC file footer: %d record batch blocks, the stream has %zu",
                    (int)out->footer_blocks, n_blocks);
    goto done;
  }
  for (size_t k = 0; out->file && k < n_blocks; k++) {
    const uint8_t *p = foot_blocks + 24 * k;
    if ((int64_t)get_le(p, 8) != blocks[k].offset ||
        (int64_t)(int32_t)get_le(p + 8, 4) != blocks[k].meta_len ||
        (int64_t)get_le(p + 16, 8) != blocks[k].body_len) {
      rc = inlet_fail(err, INLET_ECORRUPT,
                      "Arrow IPC file footer: block %zu does not match the stream", k);
      goto done;
    }
  }
done:
  inlet_free(blocks);
  if (rc < 0) inlet_arrow_ipc_read_reset(out);
  return rc;
}
