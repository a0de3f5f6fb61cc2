/*
 * Thrift compact protocol, written by hand for Parquet's footer and page
 * headers (Apache Thrift "thrift-compact-protocol.md": varint/zigzag
 * integers, field headers with id deltas, list/set headers, binary with a
 * varint length, booleans folded into field headers).
 *
 * The reader walks a bounded byte range without allocating: binary values
 * are returned as views into the input. It never reads past the range; every
 * malformed input (truncated varint, varint longer than its type, length
 * larger than the remaining bytes, list size that cannot fit, struct nesting
 * beyond INLET_THRIFT_MAX_DEPTH, unknown wire type) is INLET_ECORRUPT with a
 * message naming the problem and the byte offset. Callers add the file and
 * object name with inlet_error_prefix().
 *
 * The writer appends to an inlet_buf; allocation failure is sticky in the
 * buffer, so writers append freely and check inlet_buf_status() once.
 */
#ifndef INLET_PARQUET_THRIFT_H
#define INLET_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlet/error.h"
#include "util/buf.h"

/* Compact protocol wire types (the 4-bit type nibble). */
enum {
  INLET_THRIFT_STOP = 0,
  INLET_THRIFT_BOOL_TRUE = 1, /* in a field header: a bool field whose value is true */
  INLET_THRIFT_BOOL_FALSE = 2,
  INLET_THRIFT_BYTE = 3, /* i8 */
  INLET_THRIFT_I16 = 4,
  INLET_THRIFT_I32 = 5,
  INLET_THRIFT_I64 = 6,
  INLET_THRIFT_DOUBLE = 7,
  INLET_THRIFT_BINARY = 8, /* binary and string */
  INLET_THRIFT_LIST = 9,
  INLET_THRIFT_SET = 10,
  INLET_THRIFT_MAP = 11,
  INLET_THRIFT_STRUCT = 12,
  INLET_THRIFT_UUID = 13
};
/* Type to pass to the writer for a bool field or bool list element; the
 * reader reports bool fields as INLET_THRIFT_BOOL_TRUE/FALSE and bool list
 * elements as INLET_THRIFT_BOOL_TRUE. */
#define INLET_THRIFT_BOOL INLET_THRIFT_BOOL_TRUE

/* Deepest struct/list/map nesting the reader accepts. parquet.thrift needs 6
 * (FileMetaData > RowGroup > ColumnChunk > ColumnMetaData > Statistics ...);
 * the margin leaves room for unknown fields from newer writers. */
#define INLET_THRIFT_MAX_DEPTH 32

/* Zigzag mapping of signed integers (0, -1, 1, -2 ... -> 0, 1, 2, 3 ...). */
static inline uint64_t inlet_zigzag_encode64(int64_t v) {
  return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t inlet_zigzag_decode64(uint64_t v) {
  return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

typedef struct inlet_thrift_reader {
  const uint8_t *start; /* borrowed: first byte of the range */
  const uint8_t *p;     /* next byte to read */
  const uint8_t *end;   /* one past the last byte */
  int depth;            /* current nesting (structs + containers) */
  int16_t last_fid;     /* previous field id in the current struct */
  int8_t bool_pending;  /* -1 none; 0/1 value of a bool field just read */
  int16_t fid_stack[INLET_THRIFT_MAX_DEPTH];
  inlet_error *err; /* borrowed, may be NULL */
} inlet_thrift_reader;

/* Starts reading @p len bytes at @p data. @p err receives failures. */
void inlet_thrift_reader_init(inlet_thrift_reader *r, const void *data, size_t len,
                              inlet_error *err);
/* Bytes consumed so far. */
static inline size_t inlet_thrift_reader_offset(const inlet_thrift_reader *r) {
  return (size_t)(r->p - r->start);
}
static inline size_t inlet_thrift_reader_remaining(const inlet_thrift_reader *r) {
  return (size_t)(r->end - r->p);
}

/* Each function below returns 0 or INLET_ECORRUPT (message in r->err). */

/* Enters a struct (pushes the field-id context). */
int inlet_thrift_read_struct_begin(inlet_thrift_reader *r);
/* Leaves a struct after its STOP was read by inlet_thrift_read_field. */
int inlet_thrift_read_struct_end(inlet_thrift_reader *r);
/*
 * Reads the next field header of the current struct. On STOP, *type is
 * INLET_THRIFT_STOP and *id is 0. A bool field's value is carried in its
 * header: *type is BOOL_TRUE or BOOL_FALSE and inlet_thrift_read_bool returns
 * it (or inlet_thrift_skip consumes it).
 */
static inline int inlet_thrift_read_field(inlet_thrift_reader *r, int16_t *id, uint8_t *type);

int inlet_thrift_read_bool(inlet_thrift_reader *r, bool *v);
int inlet_thrift_read_i8(inlet_thrift_reader *r, int8_t *v);
int inlet_thrift_read_i16(inlet_thrift_reader *r, int16_t *v);
static inline int inlet_thrift_read_i32(inlet_thrift_reader *r, int32_t *v);
static inline int inlet_thrift_read_i64(inlet_thrift_reader *r, int64_t *v);
int inlet_thrift_read_double(inlet_thrift_reader *r, double *v);
/* Binary/string: *data points into the input range (borrowed). */
int inlet_thrift_read_binary(inlet_thrift_reader *r, const uint8_t **data, uint32_t *len);
/* UUID: 16 raw bytes, borrowed. */
int inlet_thrift_read_uuid(inlet_thrift_reader *r, const uint8_t **data);
/*
 * List or set header. *size is checked against the remaining bytes (every
 * element takes at least one byte, fixed-width elements their width), so a
 * caller may allocate size elements without trusting the input further.
 * Call inlet_thrift_read_list_end after the elements.
 */
int inlet_thrift_read_list_begin(inlet_thrift_reader *r, uint8_t *elem_type, uint32_t *size);
int inlet_thrift_read_list_end(inlet_thrift_reader *r);
/* Map header (key and value types are 0 when size is 0). */
int inlet_thrift_read_map_begin(inlet_thrift_reader *r, uint8_t *key_type, uint8_t *value_type,
                                uint32_t *size);
int inlet_thrift_read_map_end(inlet_thrift_reader *r);
/* Skips one value of wire type @p type (any type, nested to the depth limit). */
int inlet_thrift_skip(inlet_thrift_reader *r, uint8_t type);

/* Out-of-line general paths of the inline readers below. */
int inlet_thrift_read_varint_slow(inlet_thrift_reader *r, uint64_t *out, int max_bits);
int inlet_thrift_read_field_slow(inlet_thrift_reader *r, int16_t *id, uint8_t *type);

/* Page headers are parsed on the reader's hot path: the common cases (short
 * field headers, one-byte varints) are inlined, everything else, including
 * every error, goes through the checked out-of-line code. */
static inline int inlet_thrift_read_field(inlet_thrift_reader *r, int16_t *id, uint8_t *type) {
  if (INLET_LIKELY(r->p < r->end)) {
    uint8_t b = *r->p, t = b & 0x0f, delta = b >> 4;
    /* Non-bool value types with an id delta that cannot overflow. */
    if (INLET_LIKELY(delta != 0 && t >= INLET_THRIFT_BYTE && t <= INLET_THRIFT_UUID &&
                     r->last_fid <= INT16_MAX - 15)) {
      r->p++;
      r->bool_pending = -1;
      r->last_fid = (int16_t)(r->last_fid + delta);
      *id = r->last_fid;
      *type = t;
      return 0;
    }
  }
  return inlet_thrift_read_field_slow(r, id, type);
}

static inline int inlet_thrift_read_i32(inlet_thrift_reader *r, int32_t *v) {
  uint64_t u;
  if (INLET_LIKELY(r->p < r->end && *r->p < 0x80)) {
    u = *r->p++;
  } else {
    int rc = inlet_thrift_read_varint_slow(r, &u, 32);
    if (rc < 0) return rc;
  }
  uint32_t z = (uint32_t)u;
  *v = (int32_t)(z >> 1) ^ -(int32_t)(z & 1);
  return 0;
}

static inline int inlet_thrift_read_i64(inlet_thrift_reader *r, int64_t *v) {
  uint64_t u;
  if (INLET_LIKELY(r->p < r->end && *r->p < 0x80)) {
    u = *r->p++;
  } else {
    int rc = inlet_thrift_read_varint_slow(r, &u, 64);
    if (rc < 0) return rc;
  }
  *v = inlet_zigzag_decode64(u);
  return 0;
}

/* ---- writer ---------------------------------------------------------- */

typedef struct inlet_thrift_writer {
  inlet_buf *out; /* borrowed: bytes are appended here */
  int depth;
  int16_t last_fid;
  int16_t fid_stack[INLET_THRIFT_MAX_DEPTH];
} inlet_thrift_writer;

void inlet_thrift_writer_init(inlet_thrift_writer *w, inlet_buf *out);

/* Structs: begin pushes the field-id context, end writes STOP and pops.
 * Nesting beyond INLET_THRIFT_MAX_DEPTH is a programming error (assert). */
void inlet_thrift_write_struct_begin(inlet_thrift_writer *w);
void inlet_thrift_write_struct_end(inlet_thrift_writer *w);
/* A field header; for bool fields use inlet_thrift_write_field_bool. Field
 * ids must be positive; increasing ids take the 1-byte short form. */
void inlet_thrift_write_field(inlet_thrift_writer *w, int16_t id, uint8_t type);

/* Complete fields (header + value). */
void inlet_thrift_write_field_bool(inlet_thrift_writer *w, int16_t id, bool v);
void inlet_thrift_write_field_i8(inlet_thrift_writer *w, int16_t id, int8_t v);
void inlet_thrift_write_field_i16(inlet_thrift_writer *w, int16_t id, int16_t v);
void inlet_thrift_write_field_i32(inlet_thrift_writer *w, int16_t id, int32_t v);
void inlet_thrift_write_field_i64(inlet_thrift_writer *w, int16_t id, int64_t v);
void inlet_thrift_write_field_double(inlet_thrift_writer *w, int16_t id, double v);
void inlet_thrift_write_field_binary(inlet_thrift_writer *w, int16_t id, const void *data,
                                     size_t len);
/* Writes a NUL-terminated string as a binary field. */
void inlet_thrift_write_field_string(inlet_thrift_writer *w, int16_t id, const char *s);

/* Bare values (list elements, map entries). */
void inlet_thrift_write_bool(inlet_thrift_writer *w, bool v);
void inlet_thrift_write_i8(inlet_thrift_writer *w, int8_t v);
void inlet_thrift_write_i16(inlet_thrift_writer *w, int16_t v);
void inlet_thrift_write_i32(inlet_thrift_writer *w, int32_t v);
void inlet_thrift_write_i64(inlet_thrift_writer *w, int64_t v);
void inlet_thrift_write_double(inlet_thrift_writer *w, double v);
void inlet_thrift_write_binary(inlet_thrift_writer *w, const void *data, size_t len);
void inlet_thrift_write_uuid(inlet_thrift_writer *w, const uint8_t data[16]);
/* List/set header; elements follow as bare values (structs via
 * write_struct_begin/end). */
void inlet_thrift_write_list_begin(inlet_thrift_writer *w, uint8_t elem_type, uint32_t size);
void inlet_thrift_write_map_begin(inlet_thrift_writer *w, uint8_t key_type, uint8_t value_type,
                                  uint32_t size);

/* Low-level integer codecs, exposed for tests and for other compact
 * encodings (ULEB128 in DELTA_BINARY_PACKED uses the same varint). */
void inlet_thrift_write_varint(inlet_buf *out, uint64_t v);

#endif /* INLET_PARQUET_THRIFT_H */
