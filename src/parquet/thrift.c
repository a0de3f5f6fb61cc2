/*
 * Thrift compact protocol reader and writer (Apache Thrift
 * doc/specs/thrift-compact-protocol.md), used for Parquet's FileMetaData and
 * PageHeader. See thrift.h for the contract.
 *
 * Invariant of the reader: start <= p <= end at all times; every read first
 * checks the bytes it needs against end - p, so no input can make it read
 * outside the range. Work is linear in the input: each value consumed,
 * including a skipped one, takes at least one byte.
 */
#include <assert.h>
#include <stdio.h>

#include "parquet/thrift.h"

/* ---- reader ------------------------------------------------------------ */

void inlet_thrift_reader_init(inlet_thrift_reader *r, const void *data, size_t len,
                              inlet_error *err) {
  r->start = r->p = (const uint8_t *)data;
  r->end = r->start + len;
  r->depth = 0;
  r->last_fid = 0;
  r->bool_pending = -1;
  r->err = err;
}

static int tfail(inlet_thrift_reader *r, const char *what) {
  return inlet_fail(r->err, INLET_ECORRUPT, "corrupt thrift data at byte %zu: %s",
                    inlet_thrift_reader_offset(r), what);
}

/* Reads an unsigned LEB128 varint of at most @p max_bits significant bits
 * (the header's inline readers call this for multi-byte values). */
int inlet_thrift_read_varint_slow(inlet_thrift_reader *r, uint64_t *out, int max_bits) {
  const uint8_t *p = r->p;
  /* Fast path: one-byte values are by far the most common (field ids,
   * small counts, enum values). */
  if (INLET_LIKELY(p < r->end && *p < 0x80)) {
    *out = *p;
    r->p = p + 1;
    return 0;
  }
  uint64_t v = 0;
  int shift = 0;
  for (;;) {
    if (INLET_UNLIKELY(p >= r->end)) return tfail(r, "truncated varint");
    uint8_t b = *p++;
    uint64_t bits = (uint64_t)(b & 0x7f);
    /* The last byte may only carry the bits left; a longer (even
     * zero-padded) encoding is rejected as an overflow. */
    if (shift >= max_bits || (max_bits - shift < 7 && (bits >> (max_bits - shift)) != 0))
      return tfail(r, "varint overflows its integer type");
    v |= bits << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  *out = v;
  r->p = p;
  return 0;
}

static int read_byte(inlet_thrift_reader *r, uint8_t *b) {
  if (INLET_UNLIKELY(r->p >= r->end)) return tfail(r, "truncated value");
  *b = *r->p++;
  return 0;
}

static bool valid_type(uint8_t t) {
  return t >= INLET_THRIFT_BOOL_TRUE && t <= INLET_THRIFT_UUID;
}

static int push(inlet_thrift_reader *r) {
  if (INLET_UNLIKELY(r->depth >= INLET_THRIFT_MAX_DEPTH))
    return tfail(r, "nesting deeper than the limit of 32");
  r->fid_stack[r->depth++] = r->last_fid;
  r->last_fid = 0;
  return 0;
}

static int pop(inlet_thrift_reader *r) {
  if (INLET_UNLIKELY(r->depth <= 0)) return tfail(r, "unbalanced struct end");
  r->last_fid = r->fid_stack[--r->depth];
  return 0;
}

int inlet_thrift_read_struct_begin(inlet_thrift_reader *r) {
  return push(r);
}
int inlet_thrift_read_struct_end(inlet_thrift_reader *r) {
  return pop(r);
}

int inlet_thrift_read_field_slow(inlet_thrift_reader *r, int16_t *id, uint8_t *type) {
  uint8_t b = 0;
  r->bool_pending = -1;
  TRY(read_byte(r, &b));
  uint8_t t = b & 0x0f;
  if (t == INLET_THRIFT_STOP) {
    *id = 0;
    *type = INLET_THRIFT_STOP;
    return 0;
  }
  if (INLET_UNLIKELY(!valid_type(t))) return tfail(r, "unknown field type");
  int32_t fid;
  uint8_t delta = b >> 4;
  if (delta) {
    fid = (int32_t)r->last_fid + delta;
    if (fid > INT16_MAX) return tfail(r, "field id overflows 16 bits");
  } else {
    int16_t v;
    TRY(inlet_thrift_read_i16(r, &v));
    fid = v;
  }
  r->last_fid = (int16_t)fid;
  if (t == INLET_THRIFT_BOOL_TRUE || t == INLET_THRIFT_BOOL_FALSE)
    r->bool_pending = t == INLET_THRIFT_BOOL_TRUE;
  *id = (int16_t)fid;
  *type = t;
  return 0;
}

int inlet_thrift_read_bool(inlet_thrift_reader *r, bool *v) {
  if (r->bool_pending >= 0) {
    *v = r->bool_pending;
    r->bool_pending = -1;
    return 0;
  }
  uint8_t b = 0;
  TRY(read_byte(r, &b));
  /* Writers use 1 for true and 2 (older ones 0) for false in containers. */
  if (INLET_UNLIKELY(b > 2)) {
    r->p--;
    return tfail(r, "invalid bool value");
  }
  *v = b == 1;
  return 0;
}

int inlet_thrift_read_i8(inlet_thrift_reader *r, int8_t *v) {
  uint8_t b = 0;
  TRY(read_byte(r, &b));
  *v = (int8_t)b;
  return 0;
}

int inlet_thrift_read_i16(inlet_thrift_reader *r, int16_t *v) {
  uint64_t u = 0;
  TRY(inlet_thrift_read_varint_slow(r, &u, 16));
  uint32_t z = (uint32_t)u;
  *v = (int16_t)((int32_t)(z >> 1) ^ -(int32_t)(z & 1));
  return 0;
}

int inlet_thrift_read_double(inlet_thrift_reader *r, double *v) {
  if (INLET_UNLIKELY(r->end - r->p < 8)) return tfail(r, "truncated double");
  uint64_t bits = 0;
  for (int i = 7; i >= 0; i--)
    bits = (bits << 8) | r->p[i];
  memcpy(v, &bits, sizeof *v);
  r->p += 8;
  return 0;
}

int inlet_thrift_read_binary(inlet_thrift_reader *r, const uint8_t **data, uint32_t *len) {
  uint64_t n = 0;
  TRY(inlet_thrift_read_varint_slow(r, &n, 32));
  if (INLET_UNLIKELY(n > (uint64_t)(r->end - r->p))) {
    char msg[96];
    snprintf(msg, sizeof msg, "binary length %llu exceeds the %zu bytes left",
             (unsigned long long)n, inlet_thrift_reader_remaining(r));
    return tfail(r, msg);
  }
  if (INLET_UNLIKELY(n > INT32_MAX)) return tfail(r, "binary length exceeds 2^31");
  *data = r->p;
  *len = (uint32_t)n;
  r->p += n;
  return 0;
}

int inlet_thrift_read_uuid(inlet_thrift_reader *r, const uint8_t **data) {
  if (INLET_UNLIKELY(r->end - r->p < 16)) return tfail(r, "truncated uuid");
  *data = r->p;
  r->p += 16;
  return 0;
}

/* Fewest bytes one value of wire type @p t can take. */
static size_t min_size(uint8_t t) {
  switch (t) {
  case INLET_THRIFT_DOUBLE: return 8;
  case INLET_THRIFT_UUID: return 16;
  default: return 1;
  }
}

static int check_count(inlet_thrift_reader *r, uint64_t n, size_t elem_min, const char *what) {
  size_t need;
  if (INLET_UNLIKELY(n > INT32_MAX || inlet_mul_overflow_size((size_t)n, elem_min, &need) ||
                     need > inlet_thrift_reader_remaining(r))) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s size %llu cannot fit in the %zu bytes left", what,
             (unsigned long long)n, inlet_thrift_reader_remaining(r));
    return tfail(r, msg);
  }
  return 0;
}

int inlet_thrift_read_list_begin(inlet_thrift_reader *r, uint8_t *elem_type, uint32_t *size) {
  uint8_t b = 0;
  TRY(read_byte(r, &b));
  uint8_t t = b & 0x0f;
  uint64_t n = b >> 4;
  if (n == 15) TRY(inlet_thrift_read_varint_slow(r, &n, 32));
  if (n > 0 && INLET_UNLIKELY(!valid_type(t))) return tfail(r, "unknown list element type");
  /* Bool elements are one byte each whichever nibble announced them. */
  if (t == INLET_THRIFT_BOOL_FALSE) t = INLET_THRIFT_BOOL_TRUE;
  TRY(check_count(r, n, min_size(t), "list"));
  TRY(push(r));
  *elem_type = t;
  *size = (uint32_t)n;
  return 0;
}

int inlet_thrift_read_list_end(inlet_thrift_reader *r) {
  return pop(r);
}

int inlet_thrift_read_map_begin(inlet_thrift_reader *r, uint8_t *key_type, uint8_t *value_type,
                                uint32_t *size) {
  uint64_t n = 0;
  TRY(inlet_thrift_read_varint_slow(r, &n, 32));
  uint8_t kt = 0, vt = 0;
  if (n > 0) {
    uint8_t b = 0;
    TRY(read_byte(r, &b));
    kt = b >> 4;
    vt = b & 0x0f;
    if (INLET_UNLIKELY(!valid_type(kt) || !valid_type(vt)))
      return tfail(r, "unknown map key or value type");
    if (kt == INLET_THRIFT_BOOL_FALSE) kt = INLET_THRIFT_BOOL_TRUE;
    if (vt == INLET_THRIFT_BOOL_FALSE) vt = INLET_THRIFT_BOOL_TRUE;
    TRY(check_count(r, n, min_size(kt) + min_size(vt), "map"));
  }
  TRY(push(r));
  *key_type = kt;
  *value_type = vt;
  *size = (uint32_t)n;
  return 0;
}

int inlet_thrift_read_map_end(inlet_thrift_reader *r) {
  return pop(r);
}

int inlet_thrift_skip(inlet_thrift_reader *r, uint8_t type) {
  switch (type) {
  case INLET_THRIFT_BOOL_TRUE:
  case INLET_THRIFT_BOOL_FALSE: {
    bool v;
    return inlet_thrift_read_bool(r, &v);
  }
  case INLET_THRIFT_BYTE: {
    uint8_t b;
    return read_byte(r, &b);
  }
  case INLET_THRIFT_I16:
  case INLET_THRIFT_I32:
  case INLET_THRIFT_I64: {
    uint64_t u;
    return inlet_thrift_read_varint_slow(r, &u,
                                         type == INLET_THRIFT_I64   ? 64
                                         : type == INLET_THRIFT_I32 ? 32
                                                                    : 16);
  }
  case INLET_THRIFT_DOUBLE: {
    double d;
    return inlet_thrift_read_double(r, &d);
  }
  case INLET_THRIFT_BINARY: {
    const uint8_t *d;
    uint32_t n;
    return inlet_thrift_read_binary(r, &d, &n);
  }
  case INLET_THRIFT_UUID: {
    const uint8_t *d;
    return inlet_thrift_read_uuid(r, &d);
  }
  case INLET_THRIFT_LIST:
  case INLET_THRIFT_SET: {
    uint8_t et;
    uint32_t n;
    TRY(inlet_thrift_read_list_begin(r, &et, &n));
    for (uint32_t i = 0; i < n; i++)
      TRY(inlet_thrift_skip(r, et));
    return inlet_thrift_read_list_end(r);
  }
  case INLET_THRIFT_MAP: {
    uint8_t kt, vt;
    uint32_t n;
    TRY(inlet_thrift_read_map_begin(r, &kt, &vt, &n));
    for (uint32_t i = 0; i < n; i++) {
      TRY(inlet_thrift_skip(r, kt));
      TRY(inlet_thrift_skip(r, vt));
    }
    return inlet_thrift_read_map_end(r);
  }
  case INLET_THRIFT_STRUCT: {
    TRY(inlet_thrift_read_struct_begin(r));
    for (;;) {
      int16_t id;
      uint8_t t;
      TRY(inlet_thrift_read_field(r, &id, &t));
      if (t == INLET_THRIFT_STOP) break;
      TRY(inlet_thrift_skip(r, t));
    }
    return inlet_thrift_read_struct_end(r);
  }
  default: return tfail(r, "cannot skip a value of unknown type");
  }
}

/* ---- writer ------------------------------------------------------------ */

void inlet_thrift_writer_init(inlet_thrift_writer *w, inlet_buf *out) {
  w->out = out;
  w->depth = 0;
  w->last_fid = 0;
}

void inlet_thrift_write_varint(inlet_buf *out, uint64_t v) {
  uint8_t tmp[10];
  size_t n = 0;
  while (v >= 0x80) {
    tmp[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  tmp[n++] = (uint8_t)v;
  inlet_buf_append(out, tmp, n);
}

static void write_zigzag32(inlet_buf *out, int32_t v) {
  uint32_t z = ((uint32_t)v << 1) ^ (uint32_t)(v >> 31);
  inlet_thrift_write_varint(out, z);
}

void inlet_thrift_write_struct_begin(inlet_thrift_writer *w) {
  assert(w->depth < INLET_THRIFT_MAX_DEPTH);
  if (w->depth >= INLET_THRIFT_MAX_DEPTH) return;
  w->fid_stack[w->depth++] = w->last_fid;
  w->last_fid = 0;
}

void inlet_thrift_write_struct_end(inlet_thrift_writer *w) {
  inlet_buf_push(w->out, INLET_THRIFT_STOP);
  assert(w->depth > 0);
  if (w->depth > 0) w->last_fid = w->fid_stack[--w->depth];
}

void inlet_thrift_write_field(inlet_thrift_writer *w, int16_t id, uint8_t type) {
  assert(id > 0);
  int32_t delta = (int32_t)id - w->last_fid;
  if (delta > 0 && delta <= 15) {
    inlet_buf_push(w->out, (uint8_t)((delta << 4) | type));
  } else {
    inlet_buf_push(w->out, type);
    write_zigzag32(w->out, id);
  }
  w->last_fid = id;
}

void inlet_thrift_write_field_bool(inlet_thrift_writer *w, int16_t id, bool v) {
  inlet_thrift_write_field(w, id, v ? INLET_THRIFT_BOOL_TRUE : INLET_THRIFT_BOOL_FALSE);
}
void inlet_thrift_write_field_i8(inlet_thrift_writer *w, int16_t id, int8_t v) {
  inlet_thrift_write_field(w, id, INLET_THRIFT_BYTE);
  inlet_thrift_write_i8(w, v);
}
void inlet_thrift_write_field_i16(inlet_thrift_writer *w, int16_t id, int16_t v) {
  inlet_thrift_write_field(w, id, INLET_THRIFT_I16);
  inlet_thrift_write_i16(w, v);
}
void inlet_thrift_write_field_i32(inlet_thrift_writer *w, int16_t id, int32_t v) {
  inlet_thrift_write_field(w, id, INLET_THRIFT_I32);
  inlet_thrift_write_i32(w, v);
}
void inlet_thrift_write_field_i64(inlet_thrift_writer *w, int16_t id, int64_t v) {
  inlet_thrift_write_field(w, id, INLET_THRIFT_I64);
  inlet_thrift_write_i64(w, v);
}
void inlet_thrift_write_field_double(inlet_thrift_writer *w, int16_t id, double v) {
  inlet_thrift_write_field(w, id, INLET_THRIFT_DOUBLE);
  inlet_thrift_write_double(w, v);
}
void inlet_thrift_write_field_binary(inlet_thrift_writer *w, int16_t id, const void *data,
                                     size_t len) {
  inlet_thrift_write_field(w, id, INLET_THRIFT_BINARY);
  inlet_thrift_write_binary(w, data, len);
}
void inlet_thrift_write_field_string(inlet_thrift_writer *w, int16_t id, const char *s) {
  inlet_thrift_write_field_binary(w, id, s, strlen(s));
}

void inlet_thrift_write_bool(inlet_thrift_writer *w, bool v) {
  inlet_buf_push(w->out, v ? INLET_THRIFT_BOOL_TRUE : INLET_THRIFT_BOOL_FALSE);
}
void inlet_thrift_write_i8(inlet_thrift_writer *w, int8_t v) {
  inlet_buf_push(w->out, (uint8_t)v);
}
void inlet_thrift_write_i16(inlet_thrift_writer *w, int16_t v) {
  write_zigzag32(w->out, v);
}
void inlet_thrift_write_i32(inlet_thrift_writer *w, int32_t v) {
  write_zigzag32(w->out, v);
}
void inlet_thrift_write_i64(inlet_thrift_writer *w, int64_t v) {
  inlet_thrift_write_varint(w->out, inlet_zigzag_encode64(v));
}
void inlet_thrift_write_double(inlet_thrift_writer *w, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  uint8_t le[8];
  for (int i = 0; i < 8; i++)
    le[i] = (uint8_t)(bits >> (8 * i));
  inlet_buf_append(w->out, le, 8);
}
void inlet_thrift_write_binary(inlet_thrift_writer *w, const void *data, size_t len) {
  /* Thrift lengths are i32; a longer value cannot be represented, so the
   * buffer is poisoned rather than writing a length that lies. */
  if (len > INT32_MAX) {
    w->out->error = INLET_ENOMEM;
    return;
  }
  inlet_thrift_write_varint(w->out, len);
  inlet_buf_append(w->out, data, len);
}
void inlet_thrift_write_uuid(inlet_thrift_writer *w, const uint8_t data[16]) {
  inlet_buf_append(w->out, data, 16);
}

void inlet_thrift_write_list_begin(inlet_thrift_writer *w, uint8_t elem_type, uint32_t size) {
  if (size < 15) {
    inlet_buf_push(w->out, (uint8_t)((size << 4) | elem_type));
  } else {
    inlet_buf_push(w->out, (uint8_t)(0xf0 | elem_type));
    inlet_thrift_write_varint(w->out, size);
  }
}

void inlet_thrift_write_map_begin(inlet_thrift_writer *w, uint8_t key_type, uint8_t value_type,
                                  uint32_t size) {
  inlet_thrift_write_varint(w->out, size);
  if (size) inlet_buf_push(w->out, (uint8_t)((key_type << 4) | value_type));
}
