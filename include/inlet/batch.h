/*
 * Schemas and columnar batches.
 *
 * A batch is a set of equally long columns laid out exactly as the Arrow C
 * Data Interface lays out arrays, so exporting ArrowArray/ArrowSchema costs
 * no copy:
 *   - validity: bitmap, bit i (LSB first) set when row i is valid; NULL when
 *     the column has no nulls;
 *   - BOOL values: bitmap, LSB first;
 *   - fixed-width values: packed little-endian (int8..int64, float, double,
 *     DATE int32 days, TIME int32 (s, ms) or int64 (us, ns), TIMESTAMP int64,
 *     DECIMAL 16-byte two's complement (Arrow decimal128), FIXED_BINARY
 *     byte_width bytes);
 *   - STRING/BINARY: int32 offsets (length + 1 entries) and a data buffer;
 *   - LIST/MAP: int32 offsets and one child (MAP's child is a non-null
 *     STRUCT "entries" with children "key" and "value", as in Arrow);
 *   - STRUCT: one child per field, no buffers but validity.
 * Arrays never carry an Arrow "offset": row 0 is always at the buffer start.
 *
 * These are plain data structs with Init/Reset lifecycles (nanoarrow's
 * style): the struct is caller-allocated, its buffers are owned by it.
 */
#ifndef INLET_BATCH_H
#define INLET_BATCH_H

#include "inlet/common.h"
#include "inlet/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum inlet_type_id {
  INLET_TYPE_INVALID = 0,
  INLET_TYPE_BOOL,
  INLET_TYPE_INT8,
  INLET_TYPE_INT16,
  INLET_TYPE_INT32,
  INLET_TYPE_INT64,
  INLET_TYPE_UINT8,
  INLET_TYPE_UINT16,
  INLET_TYPE_UINT32,
  INLET_TYPE_UINT64,
  INLET_TYPE_FLOAT,
  INLET_TYPE_DOUBLE,
  INLET_TYPE_STRING, /* UTF-8 */
  INLET_TYPE_BINARY,
  INLET_TYPE_FIXED_BINARY, /* type.byte_width bytes per value */
  INLET_TYPE_DATE,         /* int32 days since 1970-01-01 */
  INLET_TYPE_TIME,         /* since midnight, in type.unit */
  INLET_TYPE_TIMESTAMP,    /* int64 since the epoch, in type.unit */
  INLET_TYPE_DECIMAL,      /* decimal128: type.precision <= 38, type.scale */
  INLET_TYPE_STRUCT,
  INLET_TYPE_LIST,
  INLET_TYPE_MAP,
  INLET_TYPE_NULL /* Delta's void: every value null; validity only (all bits 0) */
} inlet_type_id;

typedef enum inlet_time_unit {
  INLET_UNIT_SECOND = 0,
  INLET_UNIT_MILLI,
  INLET_UNIT_MICRO,
  INLET_UNIT_NANO
} inlet_time_unit;

/* Extra meaning carried by a storage type (Parquet logical annotations that
 * Arrow models as extension types). */
typedef enum inlet_type_ext {
  INLET_EXT_NONE = 0,
  INLET_EXT_JSON, /* on STRING */
  INLET_EXT_ENUM, /* on STRING */
  INLET_EXT_BSON, /* on BINARY */
  INLET_EXT_UUID, /* on FIXED_BINARY, byte_width 16 */
  /* on STRING: a Delta/Parquet variant column, held as the canonical JSON
   * text of each value (docs/VALUES.md "Variant") */
  INLET_EXT_VARIANT
} inlet_type_ext;

typedef struct inlet_type {
  inlet_type_id id;
  inlet_time_unit unit; /* TIME, TIMESTAMP */
  bool utc;             /* TIMESTAMP/TIME: adjusted to UTC (instant) */
  int32_t byte_width;   /* FIXED_BINARY */
  int32_t precision;    /* DECIMAL */
  int32_t scale;        /* DECIMAL */
  inlet_type_ext ext;
} inlet_type;

typedef struct inlet_field {
  char *name; /* owned, UTF-8 */
  inlet_type type;
  bool nullable;
  int32_t field_id;             /* Parquet field_id, -1 when absent */
  int32_t n_children;           /* STRUCT: fields; LIST: 1; MAP: 1 */
  struct inlet_field *children; /* owned array of n_children */
} inlet_field;

typedef struct inlet_schema {
  int32_t n_fields;
  inlet_field *fields; /* owned array of n_fields */
} inlet_schema;

/* An Arrow-shaped column: the fields below are the whole view. How much room
 * each buffer has (the builder functions' bookkeeping) is private to the
 * library and hangs off `builder`, as an ArrowArray's private_data does; an
 * array a caller assembles by hand leaves it NULL and is then read, never
 * grown. Layout change (issue 13, before 0.2): the former public
 * validity_cap/offsets_cap/values_cap/reserved_rows fields moved behind
 * `builder`; code that read them must stop (they were bookkeeping, not data). */
typedef struct inlet_array {
  int64_t length;
  int64_t null_count;
  uint8_t *validity; /* owned; NULL when every row is valid */
  int32_t *offsets;  /* owned; STRING, BINARY, LIST, MAP: length + 1 entries */
  uint8_t *values;   /* owned; fixed-width values, BOOL bits or string bytes */
  int32_t n_children;
  struct inlet_array *children;        /* owned array of n_children */
  struct inlet_array_builder *builder; /* owned, opaque, private to libinlet */
} inlet_array;

typedef struct inlet_batch {
  inlet_schema schema; /* owned copy */
  int64_t num_rows;
  inlet_array *columns; /* owned array of schema.n_fields */
} inlet_batch;

/* ---- types and schemas ------------------------------------------------ */

/** Width in bytes of one value of a fixed-width type; 0 for BOOL (bits) and
 * for variable-width and nested types. */
INLET_API int32_t inlet_type_value_width(const inlet_type *type);

/** Writes a Delta/Spark-style name of @p type ("long", "decimal(10,2)",
 * "timestamp", "timestamp_ntz", ...) into @p out (NUL-terminated, truncated
 * to @p cap). Returns the length it needed. */
INLET_API size_t inlet_type_name(const inlet_type *type, char *out, size_t cap);

INLET_API void inlet_schema_init(inlet_schema *schema);
INLET_API void inlet_schema_reset(inlet_schema *schema);
/** Deep copy. @return 0, INLET_ENOMEM. */
INLET_API int inlet_schema_copy(inlet_schema *dst, const inlet_schema *src, inlet_error *err);
/** Appends a field (deep copy of @p field). @return 0, INLET_ENOMEM. */
INLET_API int inlet_schema_add_field(inlet_schema *schema, const inlet_field *field,
                                     inlet_error *err);
/** Index of the top-level field named @p name, or -1. */
INLET_API int inlet_schema_find(const inlet_schema *schema, const char *name);
/** True when both schemas have the same names, types, nullability, children. */
INLET_API bool inlet_schema_equal(const inlet_schema *a, const inlet_schema *b);
/** Same comparison for one field (name included). */
INLET_API bool inlet_field_equal(const inlet_field *a, const inlet_field *b);
/** Like inlet_type_name but spells nested types out in DDL form
 * ("array<struct<a:long,b:string>>", "map<string,integer>"). Returns the
 * length it needed. */
INLET_API size_t inlet_field_type_name(const inlet_field *field, char *out, size_t cap);

/**
 * Parses a schema written as Spark/Delta DDL:
 *   "event_id long not null, user string, amount double, event_time timestamp"
 * Types: boolean, byte|tinyint, short|smallint, int|integer, long|bigint,
 * float|real, double, string, binary, date, timestamp (UTC, microseconds),
 * timestamp_ntz, decimal(P,S), struct<name:type,...>, array<type>,
 * map<type,type>; inlet extras: uint8|uint16|uint32|uint64, time (micros),
 * timestamp_ms|timestamp_ns (UTC), json, uuid, fixed(N).
 * Names may be `back-quoted`. @return 0, INLET_EINVAL (message points at the
 * offending position), INLET_ENOMEM.
 */
INLET_API int inlet_schema_parse(inlet_schema *out, const char *ddl, inlet_error *err);

/** Field lifecycle helpers. */
INLET_API void inlet_field_reset(inlet_field *field);
INLET_API int inlet_field_copy(inlet_field *dst, const inlet_field *src, inlet_error *err);

/* ---- arrays ---------------------------------------------------------- */

/** Initialises an empty array shaped for @p field (children included). */
INLET_API int inlet_array_init(inlet_array *array, const inlet_field *field, inlet_error *err);
/** Frees every buffer and child. NULL-safe. */
INLET_API void inlet_array_reset(inlet_array *array);
/** Empties the array but keeps its buffers for reuse. */
INLET_API void inlet_array_clear(inlet_array *array);

/** Validity bit of row @p i. */
static inline bool inlet_array_is_valid(const inlet_array *a, int64_t i) {
  return a->validity == NULL || ((a->validity[i >> 3] >> (i & 7)) & 1);
}
static inline bool inlet_bit_get(const uint8_t *bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void inlet_bit_set(uint8_t *bits, int64_t i, bool v) {
  if (v)
    bits[i >> 3] |= (uint8_t)(1u << (i & 7));
  else
    bits[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* Appending, one value at a time (the slow, general path used by text
 * import; decoders fill buffers directly). @p field describes the array.
 * Each returns 0, INLET_ENOMEM or INLET_ELIMIT (offsets past INT32_MAX). */
INLET_API int inlet_array_append_null(inlet_array *a, const inlet_field *field, inlet_error *err);
INLET_API int inlet_array_append_bool(inlet_array *a, bool v, inlet_error *err);
/** Any integer-backed type (INT*, UINT*, DATE, TIME, TIMESTAMP): stores @p v
 * truncated to the type's width. */
INLET_API int inlet_array_append_int(inlet_array *a, const inlet_field *field, int64_t v,
                                     inlet_error *err);
INLET_API int inlet_array_append_uint64(inlet_array *a, uint64_t v, inlet_error *err);
INLET_API int inlet_array_append_float(inlet_array *a, float v, inlet_error *err);
INLET_API int inlet_array_append_double(inlet_array *a, double v, inlet_error *err);
/** STRING, BINARY (variable) or FIXED_BINARY (len must equal byte_width). */
INLET_API int inlet_array_append_bytes(inlet_array *a, const inlet_field *field, const void *data,
                                       size_t len, inlet_error *err);
/** DECIMAL: 16 bytes little-endian two's complement. */
INLET_API int inlet_array_append_decimal(inlet_array *a, const uint8_t value[16], inlet_error *err);
/** LIST/MAP: closes one valid entry holding the child values appended since
 * the previous entry (its end offset is the child's current length). */
INLET_API int inlet_array_append_list_entry(inlet_array *a, inlet_error *err);
/** STRUCT: records one valid row; the caller has appended one value to every
 * child first. */
INLET_API int inlet_array_append_struct_entry(inlet_array *a, inlet_error *err);

/** Appends value @p row of @p src (an array of the same @p field shape) to
 * @p dst, any type including nested ones; a null stays null. Used to gather
 * rows when splitting or sorting batches. @return 0, INLET_ENOMEM,
 * INLET_ELIMIT. */
INLET_API int inlet_array_append_from(inlet_array *dst, const inlet_field *field,
                                      const inlet_array *src, int64_t row, inlet_error *err);

/* Reservations for decoders that write buffers directly. After writing n
 * values the decoder sets length/null_count itself. */
INLET_API int inlet_array_reserve_rows(inlet_array *a, const inlet_field *field, int64_t rows,
                                       inlet_error *err);
INLET_API int inlet_array_reserve_data(inlet_array *a, int64_t bytes, inlet_error *err);
/** Allocates a validity bitmap (all valid so far) if the array has none. */
INLET_API int inlet_array_ensure_validity(inlet_array *a, inlet_error *err);

/* ---- batches --------------------------------------------------------- */

/** Initialises an empty batch with a copy of @p schema. */
INLET_API int inlet_batch_init(inlet_batch *batch, const inlet_schema *schema, inlet_error *err);
INLET_API void inlet_batch_reset(inlet_batch *batch);
/** Drops the rows, keeps schema and buffers. */
INLET_API void inlet_batch_clear(inlet_batch *batch);
/** Checks that every column is as long as num_rows and internally consistent
 * (offsets monotonic and in range, null_count matching validity). Used on
 * batches from untrusted producers. @return 0, INLET_EINVAL. */
INLET_API int inlet_batch_validate(const inlet_batch *batch, inlet_error *err);
/** Approximate bytes held by the batch's buffers (for memory accounting). */
INLET_API int64_t inlet_batch_memory(const inlet_batch *batch);

/* ---- values ---------------------------------------------------------- */

/**
 * Parses an ISO-8601 date or timestamp (`2024-05-01`, `2024-05-01T12:00:00Z`,
 * `2024-05-01 12:00:00.25+02:00`; without a zone the time is UTC) into
 * microseconds since the epoch: the grammar of every timestamp inlet reads
 * (docs/VALUES.md). @return 0, INLET_EINVAL (naming the problem).
 */
INLET_API int inlet_timestamp_parse(int64_t *out_us, const char *text, inlet_error *err);

#ifdef __cplusplus
}
#endif

#endif /* INLET_BATCH_H */
