/*
 * Arrow IPC round trips, shared by tests/unit/scan/test_arrow_ipc_roundtrip.c
 * and fuzz/arrow_ipc_fuzzer.c: choices (from fuzzer bytes, then a
 * pseudo-random tail) pick a random schema of every type inlet has (nested
 * struct/list/map up to three levels, nullability, extension annotations),
 * random batches with boundary values and null patterns, and writer options
 * (stream or file, no compression, LZ4_FRAME or ZSTD). aie_roundtrip writes
 * the batches with the public writer into memory, reads the bytes back with
 * the verifying reader (scan/arrow_ipc.h) and compares schema, row counts,
 * null counts and every value (as canonical JSON text, which spells out
 * every bit inlet keeps); then it feeds mutated copies of the bytes to the
 * reader, which must fail cleanly or return consistent batches.
 */
#ifndef INLET_ARROW_IPC_ENGINE_H
#define INLET_ARROW_IPC_ENGINE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/inlet.h"
#include "scan/arrow_ipc.h"
#include "util/buf.h"

typedef struct aie_src {
  const uint8_t *p;
  size_t n, i;
  uint64_t rng;
} aie_src;

static inline void aie_src_init(aie_src *s, const uint8_t *p, size_t n, uint64_t seed) {
  s->p = p;
  s->n = n;
  s->i = 0;
  s->rng = seed * 0x9E3779B97F4A7C15ull + 1;
}

/* The next choice: input bytes while they last, then xorshift. */
static inline uint64_t aie_next(aie_src *s) {
  if (s->i + 4 <= s->n) {
    uint64_t v = (uint64_t)s->p[s->i] | (uint64_t)s->p[s->i + 1] << 8 |
                 (uint64_t)s->p[s->i + 2] << 16 | (uint64_t)s->p[s->i + 3] << 24;
    s->i += 4;
    return v * 0x9E3779B97F4A7C15ull ^ (v >> 7);
  }
  s->rng ^= s->rng << 13;
  s->rng ^= s->rng >> 7;
  s->rng ^= s->rng << 17;
  return s->rng;
}
static inline uint32_t aie_below(aie_src *s, uint32_t n) {
  return n ? (uint32_t)(aie_next(s) % n) : 0;
}

/* A random field named @p name, @p depth levels of nesting left. */
static inline int aie_gen_field(aie_src *s, inlet_field *f, const char *name, int depth,
                                bool may_be_null) {
  memset(f, 0, sizeof *f);
  f->field_id = -1;
  f->name = inlet_strdup(name);
  if (!f->name) return INLET_ENOMEM;
  f->nullable = may_be_null && aie_below(s, 4) != 0;
  static const inlet_type_id flat[] = {
      INLET_TYPE_BOOL,    INLET_TYPE_INT8,      INLET_TYPE_INT16,        INLET_TYPE_INT32,
      INLET_TYPE_INT64,   INLET_TYPE_UINT8,     INLET_TYPE_UINT16,       INLET_TYPE_UINT32,
      INLET_TYPE_UINT64,  INLET_TYPE_FLOAT,     INLET_TYPE_DOUBLE,       INLET_TYPE_STRING,
      INLET_TYPE_BINARY,  INLET_TYPE_DATE,      INLET_TYPE_FIXED_BINARY, INLET_TYPE_TIME,
      INLET_TYPE_DECIMAL, INLET_TYPE_TIMESTAMP, INLET_TYPE_NULL};
  uint32_t n_flat = sizeof flat / sizeof flat[0];
  uint32_t pick = aie_below(s, n_flat + (depth > 0 ? 6 : 0));
  inlet_type *t = &f->type;
  if (pick < n_flat) {
    t->id = flat[pick];
    if (t->id == INLET_TYPE_NULL) f->nullable = true;
    if (t->id == INLET_TYPE_STRING && aie_below(s, 4) == 0) t->ext = INLET_EXT_JSON;
    if (t->id == INLET_TYPE_FIXED_BINARY) {
      t->byte_width = 1 + (int32_t)aie_below(s, 20);
      if (aie_below(s, 3) == 0) {
        t->byte_width = 16;
        t->ext = INLET_EXT_UUID;
      }
    }
    if (t->id == INLET_TYPE_TIME || t->id == INLET_TYPE_TIMESTAMP)
      t->unit = (inlet_time_unit)aie_below(s, 4);
    if (t->id == INLET_TYPE_TIMESTAMP) t->utc = aie_below(s, 2);
    if (t->id == INLET_TYPE_DECIMAL) {
      t->precision = 1 + (int32_t)aie_below(s, 38);
      t->scale = (int32_t)aie_below(s, (uint32_t)t->precision + 1);
    }
    return 0;
  }
  uint32_t nested = pick - n_flat;
  if (nested < 2) { /* struct of 1..3 */
    t->id = INLET_TYPE_STRUCT;
    f->n_children = 1 + (int32_t)aie_below(s, 3);
  } else if (nested < 4) {
    t->id = INLET_TYPE_LIST;
    f->n_children = 1;
  } else {
    t->id = INLET_TYPE_MAP;
    f->n_children = 1;
  }
  f->children = inlet_calloc((size_t)f->n_children, sizeof *f->children);
  if (!f->children) {
    f->n_children = 0;
    return INLET_ENOMEM;
  }
  if (t->id == INLET_TYPE_MAP) {
    inlet_field *e = &f->children[0];
    e->field_id = -1;
    e->name = inlet_strdup("entries");
    e->type.id = INLET_TYPE_STRUCT;
    e->n_children = 2;
    e->children = inlet_calloc(2, sizeof *e->children);
    if (!e->name || !e->children) {
      e->n_children = 0;
      return INLET_ENOMEM;
    }
    /* Keys: a non-null flat type (Arrow's rule) that is not NULL itself. */
    do {
      inlet_field_reset(&e->children[0]);
      int rc = aie_gen_field(s, &e->children[0], "key", 0, false);
      if (rc) return rc;
    } while (e->children[0].type.id == INLET_TYPE_NULL);
    return aie_gen_field(s, &e->children[1], "value", depth - 1, true);
  }
  for (int32_t i = 0; i < f->n_children; i++) {
    char child[32];
    snprintf(child, sizeof child, t->id == INLET_TYPE_LIST ? "element" : "f%d", (int)i);
    int rc = aie_gen_field(s, &f->children[i], child, depth - 1, true);
    if (rc) return rc;
  }
  return 0;
}

static inline int aie_gen_schema(aie_src *s, inlet_schema *schema) {
  inlet_schema_init(schema);
  int n = 1 + (int)aie_below(s, 5);
  for (int i = 0; i < n; i++) {
    inlet_field f;
    char name[32];
    snprintf(name, sizeof name, aie_below(s, 5) ? "c%d" : "col \xc3\xa9 %d", i);
    int rc = aie_gen_field(s, &f, name, 3, true);
    if (rc == 0) rc = inlet_schema_add_field(schema, &f, NULL);
    inlet_field_reset(&f);
    if (rc) return rc;
  }
  return 0;
}

static inline int64_t aie_int(aie_src *s) {
  static const int64_t edge[] = {0,         1,         -1,        127,
                                 -128,      255,       32767,     -32768,
                                 65535,     INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX,
                                 INT64_MAX, INT64_MIN};
  if (aie_below(s, 3) == 0) return edge[aie_below(s, sizeof edge / sizeof edge[0])];
  return (int64_t)aie_next(s);
}

/* Appends one value (or a null) of field @p f to @p a. */
static inline int aie_gen_value(aie_src *s, inlet_array *a, const inlet_field *f, int depth) {
  inlet_error *err = NULL;
  if (f->type.id == INLET_TYPE_NULL || (f->nullable && aie_below(s, 4) == 0))
    return inlet_array_append_null(a, f, err);
  uint8_t bytes[64];
  switch (f->type.id) {
  case INLET_TYPE_BOOL: return inlet_array_append_bool(a, aie_below(s, 2), err);
  case INLET_TYPE_UINT64: return inlet_array_append_uint64(a, (uint64_t)aie_int(s), err);
  case INLET_TYPE_FLOAT: {
    uint32_t bits = (uint32_t)aie_next(s);
    float v;
    memcpy(&v, &bits, 4);
    if (aie_below(s, 2)) v = (float)aie_int(s) / 8;
    return inlet_array_append_float(a, v, err);
  }
  case INLET_TYPE_DOUBLE: {
    uint64_t bits = aie_next(s);
    double v;
    memcpy(&v, &bits, 8);
    if (aie_below(s, 2)) v = (double)aie_int(s) / 16;
    return inlet_array_append_double(a, v, err);
  }
  case INLET_TYPE_STRING: {
    size_t n = aie_below(s, 3) == 0 ? 0 : aie_below(s, 24);
    if (f->type.ext == INLET_EXT_JSON) { /* a JSON text: digits */
      n = 1 + n % 9;
      for (size_t i = 0; i < n; i++)
        bytes[i] = (uint8_t)('1' + aie_below(s, 9));
    } else {
      for (size_t i = 0; i < n; i++)
        bytes[i] = (uint8_t)(' ' + aie_below(s, 95));
      if (n >= 2 && aie_below(s, 2)) { /* some UTF-8: é */
        bytes[0] = 0xc3;
        bytes[1] = 0xa9;
      }
    }
    return inlet_array_append_bytes(a, f, bytes, n, err);
  }
  case INLET_TYPE_BINARY:
  case INLET_TYPE_FIXED_BINARY: {
    size_t n = f->type.id == INLET_TYPE_FIXED_BINARY ? (size_t)f->type.byte_width
                                                     : (size_t)aie_below(s, 40);
    for (size_t i = 0; i < n; i++)
      bytes[i] = (uint8_t)aie_next(s);
    return inlet_array_append_bytes(a, f, bytes, n, err);
  }
  case INLET_TYPE_DECIMAL: {
    /* A value of at most `precision` digits: an int64 cut to range, widened. */
    int64_t v = aie_int(s);
    int64_t lim = 1;
    for (int i = 0; i < f->type.precision && i < 18; i++)
      lim *= 10;
    v %= lim;
    uint8_t d[16];
    for (int i = 0; i < 16; i++)
      d[i] = (uint8_t)(i < 8 ? (uint64_t)v >> (8 * i) : v < 0 ? 0xff : 0);
    return inlet_array_append_decimal(a, d, err);
  }
  case INLET_TYPE_DATE:
    return inlet_array_append_int(a, f, (int64_t)(aie_next(s) % 5000000) - 2500000, err);
  case INLET_TYPE_TIME: {
    static const int64_t per_day[] = {86400, 86400000, 86400000000, 86400000000000};
    return inlet_array_append_int(a, f, (int64_t)(aie_next(s) % (uint64_t)per_day[f->type.unit]),
                                  err);
  }
  case INLET_TYPE_TIMESTAMP: {
    /* Within years 0001..9999 in every unit. */
    static const int64_t span[] = {253402300799, 253402300799000, 253402300799000000,
                                   INT64_MAX / 2};
    int64_t v = (int64_t)(aie_next(s) % (uint64_t)span[f->type.unit]);
    return inlet_array_append_int(a, f, aie_below(s, 2) ? v : -(v / 8), err);
  }
  case INLET_TYPE_STRUCT:
    for (int32_t i = 0; i < f->n_children; i++) {
      int rc = aie_gen_value(s, &a->children[i], &f->children[i], depth + 1);
      if (rc) return rc;
    }
    return inlet_array_append_struct_entry(a, err);
  case INLET_TYPE_LIST: {
    uint32_t n = aie_below(s, depth > 1 ? 3 : 5);
    for (uint32_t i = 0; i < n; i++) {
      int rc = aie_gen_value(s, &a->children[0], &f->children[0], depth + 1);
      if (rc) return rc;
    }
    return inlet_array_append_list_entry(a, err);
  }
  case INLET_TYPE_MAP: {
    uint32_t n = aie_below(s, 4);
    inlet_array *e = &a->children[0];
    const inlet_field *ef = &f->children[0];
    for (uint32_t i = 0; i < n; i++) {
      int rc = aie_gen_value(s, &e->children[0], &ef->children[0], depth + 1);
      if (rc == 0) rc = aie_gen_value(s, &e->children[1], &ef->children[1], depth + 1);
      if (rc == 0) rc = inlet_array_append_struct_entry(e, err);
      if (rc) return rc;
    }
    return inlet_array_append_list_entry(a, err);
  }
  default: return inlet_array_append_int(a, f, aie_int(s), err);
  }
}

static inline int aie_gen_batch(aie_src *s, const inlet_schema *schema, int64_t rows,
                                inlet_batch *b) {
  int rc = inlet_batch_init(b, schema, NULL);
  for (int64_t r = 0; rc == 0 && r < rows; r++) {
    for (int32_t c = 0; rc == 0 && c < schema->n_fields; c++)
      rc = aie_gen_value(s, &b->columns[c], &schema->fields[c], 0);
    if (rc == 0) b->num_rows++;
  }
  return rc;
}

static int aie_sink(void *ctx, const void *data, size_t len, inlet_error *err) {
  (void)err;
  inlet_buf *b = ctx;
  return inlet_buf_append(b, data, len);
}

/* Compares @p got with @p want value by value; a message in @p msg. */
static inline int aie_compare(const inlet_batch *want, const inlet_batch *got, char *msg,
                              size_t cap) {
  if (want->num_rows != got->num_rows) {
    snprintf(msg, cap, "rows %lld vs %lld", (long long)want->num_rows, (long long)got->num_rows);
    return -1;
  }
  static char a[1 << 16], b[1 << 16];
  for (int32_t c = 0; c < want->schema.n_fields; c++) {
    const inlet_field *f = &want->schema.fields[c];
    for (int64_t r = 0; r < want->num_rows; r++) {
      int64_t na = inlet_text_format_value(a, sizeof a, &want->columns[c], f, r, true);
      int64_t nb = inlet_text_format_value(b, sizeof b, &got->columns[c], f, r, true);
      if (na != nb || strcmp(a, b) != 0) {
        snprintf(msg, cap, "column \"%s\" row %lld: wrote %.200s, read %.200s", f->name,
                 (long long)r, a, b);
        return -1;
      }
    }
  }
  return 0;
}

/* Formats the values of every batch of @p r (what a consumer of a reader
 * result would do; the first 1024 rows, since a mutated length may claim
 * millions of rows of a type without buffers); only sanitizers judge it. */
static inline void aie_touch(const inlet_arrow_ipc_read *r) {
  static char a[1 << 12];
  for (int32_t k = 0; k < r->n_batches; k++)
    for (int32_t c = 0; c < r->schema.n_fields; c++)
      for (int64_t row = 0; row < r->batches[k].num_rows && row < 1024; row++)
        inlet_text_format_value(a, sizeof a, &r->batches[k].columns[c], &r->schema.fields[c], row,
                                true);
}

/* One whole case. Returns 0, or -1 with the difference in @p msg. */
static inline int aie_roundtrip(aie_src *s, char *msg, size_t cap) {
  inlet_schema schema;
  inlet_batch batches[3];
  int n_batches = (int)aie_below(s, 4);
  memset(batches, 0, sizeof batches);
  inlet_buf out = INLET_BUF_INIT;
  inlet_arrow_ipc_read rd;
  memset(&rd, 0, sizeof rd);
  inlet_arrow_ipc_writer *w = NULL;
  inlet_error err = INLET_ERROR_INIT;
  int rc = aie_gen_schema(s, &schema);
  for (int k = 0; rc == 0 && k < n_batches; k++) {
    int64_t rows = aie_below(s, 4) == 0 ? 0 : aie_below(s, 200);
    rc = aie_gen_batch(s, &schema, rows, &batches[k]);
  }
  if (rc) { /* out of memory: nothing to judge */
    rc = 0;
    goto done;
  }
  inlet_arrow_ipc_options o = INLET_ARROW_IPC_OPTIONS_INIT;
  o.format = aie_below(s, 2) ? INLET_ARROW_IPC_FILE : INLET_ARROW_IPC_STREAM;
  o.compression = (inlet_arrow_compression)aie_below(s, 3);
  rc = inlet_arrow_ipc_writer_new(&w, &schema, &o, aie_sink, &out, &err);
  for (int k = 0; rc == 0 && k < n_batches; k++)
    rc = inlet_arrow_ipc_writer_write(w, &batches[k], &err);
  if (rc == 0) rc = inlet_arrow_ipc_writer_finish(w, &err);
  if (rc) {
    snprintf(msg, cap, "write failed: %s", err.message);
    rc = -1;
    goto done;
  }
  if (inlet_arrow_ipc_read_all(&rd, out.data, out.len, &err) != 0) {
    snprintf(msg, cap, "read failed: %s", err.message);
    rc = -1;
    goto done;
  }
  if (!inlet_schema_equal(&rd.schema, &schema) || rd.file != (o.format == INLET_ARROW_IPC_FILE)) {
    snprintf(msg, cap, "schema or format differs");
    rc = -1;
    goto done;
  }
  int k = 0;
  for (int i = 0; i < n_batches; i++) {
    if (batches[i].num_rows == 0) continue; /* empty batches are not written */
    if (k >= rd.n_batches) {
      snprintf(msg, cap, "read %d batches, wrote more", (int)rd.n_batches);
      rc = -1;
      goto done;
    }
    if (aie_compare(&batches[i], &rd.batches[k], msg, cap) != 0) {
      rc = -1;
      goto done;
    }
    for (int32_t c = 0; c < schema.n_fields; c++)
      if (schema.fields[c].type.id != INLET_TYPE_NULL &&
          batches[i].columns[c].null_count != rd.batches[k].columns[c].null_count) {
        snprintf(msg, cap, "batch %d column %d: null count differs", i, (int)c);
        rc = -1;
        goto done;
      }
    k++;
  }
  if (k != rd.n_batches || (rd.file && rd.footer_blocks != k)) {
    snprintf(msg, cap, "read %d batches (%d in the footer), wrote %d", (int)rd.n_batches,
             (int)rd.footer_blocks, k);
    rc = -1;
    goto done;
  }
  inlet_arrow_ipc_read_reset(&rd);
  /* Mutations: the reader must never crash, whatever it decides. */
  for (int m = 0; m < 8 && out.len > 0; m++) {
    uint8_t *copy = malloc(out.len);
    if (!copy) break;
    memcpy(copy, out.data, out.len);
    size_t len = out.len;
    int flips = 1 + (int)aie_below(s, 4);
    for (int i = 0; i < flips; i++) {
      size_t at = aie_below(s, (uint32_t)len);
      switch (aie_below(s, 4)) {
      case 0: copy[at] ^= (uint8_t)(1u << aie_below(s, 8)); break;
      case 1: copy[at] = (uint8_t)aie_next(s); break;
      case 2: copy[at] = aie_below(s, 2) ? 0xff : 0; break;
      default: len = at; break; /* truncate */
      }
    }
    uint8_t *exact = malloc(len ? len : 1); /* exact size: overreads are caught */
    if (exact) {
      memcpy(exact, copy, len);
      if (inlet_arrow_ipc_read_all(&rd, exact, len, &err) == 0) aie_touch(&rd);
      inlet_arrow_ipc_read_reset(&rd);
      free(exact);
    }
    free(copy);
  }
  rc = 0;
done:
  inlet_arrow_ipc_read_reset(&rd);
  inlet_arrow_ipc_writer_free(w);
  inlet_buf_reset(&out);
  for (int k2 = 0; k2 < 3; k2++)
    inlet_batch_reset(&batches[k2]);
  inlet_schema_reset(&schema);
  return rc;
}

#endif /* INLET_ARROW_IPC_ENGINE_H */
