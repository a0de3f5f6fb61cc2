/*
 * The Parquet file metadata model: C structs mirroring parquet.thrift
 * (apache/parquet-format src/main/thrift/parquet.thrift) for FileMetaData,
 * SchemaElement, LogicalType, RowGroup, ColumnChunk, ColumnMetaData,
 * Statistics, PageHeader and its three page-specific headers, with parsers
 * and serializers over the Thrift compact protocol (thrift.h), and the
 * footer reader ("PAR1" magic, 4-byte little-endian footer length; Parquet
 * README "File Format").
 *
 * Conventions:
 *  - Enum-valued fields that can carry values this code does not know
 *    (encodings, codecs, page types, converted types, column orders) are
 *    int32_t holding the thrift value, so a reader can say "unsupported
 *    encoding 11" instead of the parser rejecting the file. The physical
 *    type and repetition are validated at parse time.
 *  - Optional scalar fields have a has_<field> flag; optional strings are
 *    NULL when absent; optional lists have n_<field> == 0 when absent or empty.
 *  - Ownership, pq_file_metadata: everything reachable from it (arrays,
 *    strings, statistics bytes) lives in its arena (m->arena) and is freed by
 *    pq_file_metadata_reset(). Parsed metadata copies out of the input, so
 *    the footer buffer may be freed right after parsing. A writer building
 *    metadata by hand allocates with pq_meta_alloc()/pq_meta_strdup() so one
 *    reset frees it all; pointers to the writer's own memory are fine too
 *    (serialize only reads them) but are then the writer's to free.
 *  - Ownership, pq_page_header: parsing allocates nothing; statistics bytes
 *    are views into the input buffer and live as long as it does.
 */
#ifndef INLET_PARQUET_PQ_META_H
#define INLET_PARQUET_PQ_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlet/error.h"
#include "storage/storage.h"
#include "util/buf.h"

/* ---- enums (values are parquet.thrift's) ------------------------------ */

typedef enum pq_type {
  PQ_BOOLEAN = 0,
  PQ_INT32 = 1,
  PQ_INT64 = 2,
  PQ_INT96 = 3,
  PQ_FLOAT = 4,
  PQ_DOUBLE = 5,
  PQ_BYTE_ARRAY = 6,
  PQ_FIXED_LEN_BYTE_ARRAY = 7
} pq_type;

/* ConvertedType; PQ_CT_NONE when the field is absent. */
enum {
  PQ_CT_NONE = -1,
  PQ_CT_UTF8 = 0,
  PQ_CT_MAP = 1,
  PQ_CT_MAP_KEY_VALUE = 2,
  PQ_CT_LIST = 3,
  PQ_CT_ENUM = 4,
  PQ_CT_DECIMAL = 5,
  PQ_CT_DATE = 6,
  PQ_CT_TIME_MILLIS = 7,
  PQ_CT_TIME_MICROS = 8,
  PQ_CT_TIMESTAMP_MILLIS = 9,
  PQ_CT_TIMESTAMP_MICROS = 10,
  PQ_CT_UINT_8 = 11,
  PQ_CT_UINT_16 = 12,
  PQ_CT_UINT_32 = 13,
  PQ_CT_UINT_64 = 14,
  PQ_CT_INT_8 = 15,
  PQ_CT_INT_16 = 16,
  PQ_CT_INT_32 = 17,
  PQ_CT_INT_64 = 18,
  PQ_CT_JSON = 19,
  PQ_CT_BSON = 20,
  PQ_CT_INTERVAL = 21
};

typedef enum pq_repetition { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 } pq_repetition;

/* Encoding. */
enum {
  PQ_ENC_PLAIN = 0,
  PQ_ENC_PLAIN_DICTIONARY = 2,
  PQ_ENC_RLE = 3,
  PQ_ENC_BIT_PACKED = 4,
  PQ_ENC_DELTA_BINARY_PACKED = 5,
  PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
  PQ_ENC_DELTA_BYTE_ARRAY = 7,
  PQ_ENC_RLE_DICTIONARY = 8,
  PQ_ENC_BYTE_STREAM_SPLIT = 9
};

/* CompressionCodec (same values as inlet_compression in inlet/parquet.h). */
enum {
  PQ_CODEC_UNCOMPRESSED = 0,
  PQ_CODEC_SNAPPY = 1,
  PQ_CODEC_GZIP = 2,
  PQ_CODEC_LZO = 3,
  PQ_CODEC_BROTLI = 4,
  PQ_CODEC_LZ4 = 5,
  PQ_CODEC_ZSTD = 6,
  PQ_CODEC_LZ4_RAW = 7
};

/* PageType. */
enum { PQ_PAGE_DATA = 0, PQ_PAGE_INDEX = 1, PQ_PAGE_DICTIONARY = 2, PQ_PAGE_DATA_V2 = 3 };

/* ColumnOrder union member ids. */
enum { PQ_ORDER_TYPE_DEFINED = 1, PQ_ORDER_IEEE754_TOTAL = 2, PQ_ORDER_INT96_TIMESTAMP = 3 };

/* LogicalType union member ids; PQ_LT_NONE when absent, PQ_LT_OTHER for a
 * member this code does not know (its id is kept in other_id). */
typedef enum pq_logical_kind {
  PQ_LT_NONE = 0,
  PQ_LT_STRING = 1,
  PQ_LT_MAP = 2,
  PQ_LT_LIST = 3,
  PQ_LT_ENUM = 4,
  PQ_LT_DECIMAL = 5,
  PQ_LT_DATE = 6,
  PQ_LT_TIME = 7,
  PQ_LT_TIMESTAMP = 8,
  PQ_LT_INTEGER = 10,
  PQ_LT_NULL = 11, /* thrift name UNKNOWN: NullType, always-null column */
  PQ_LT_JSON = 12,
  PQ_LT_BSON = 13,
  PQ_LT_UUID = 14,
  PQ_LT_FLOAT16 = 15,
  PQ_LT_VARIANT = 16,
  PQ_LT_GEOMETRY = 17,
  PQ_LT_GEOGRAPHY = 18,
  PQ_LT_OTHER = 1000
} pq_logical_kind;

/* TimeUnit union member ids. */
typedef enum pq_time_unit {
  PQ_UNIT_NONE = 0,
  PQ_UNIT_MILLIS = 1,
  PQ_UNIT_MICROS = 2,
  PQ_UNIT_NANOS = 3
} pq_time_unit;

/* ---- structs ----------------------------------------------------------- */

/* A byte string that is not NUL-terminated (binary thrift fields). */
typedef struct pq_bytes {
  const uint8_t *data; /* see the file comment for ownership */
  uint32_t len;
} pq_bytes;

typedef struct pq_logical_type {
  pq_logical_kind kind;
  int16_t other_id;  /* PQ_LT_OTHER: the union member id */
  int32_t scale;     /* DECIMAL */
  int32_t precision; /* DECIMAL */
  pq_time_unit unit; /* TIME, TIMESTAMP */
  bool utc;          /* TIME, TIMESTAMP: isAdjustedToUTC */
  int8_t bit_width;  /* INTEGER: 8, 16, 32, 64 */
  bool is_signed;    /* INTEGER */
} pq_logical_type;

typedef struct pq_schema_element {
  bool has_type; /* false for groups */
  pq_type type;
  bool has_type_length;
  int32_t type_length; /* FIXED_LEN_BYTE_ARRAY byte width */
  bool has_repetition; /* false only for the root */
  pq_repetition repetition;
  char *name;            /* NUL-terminated (never NULL after parse) */
  bool has_num_children; /* true for groups */
  int32_t num_children;
  int32_t converted_type; /* PQ_CT_*, PQ_CT_NONE when absent */
  bool has_scale;
  int32_t scale;
  bool has_precision;
  int32_t precision;
  bool has_field_id;
  int32_t field_id;
  pq_logical_type logical; /* kind PQ_LT_NONE when absent */
} pq_schema_element;

typedef struct pq_statistics {
  bool has_max, has_min; /* deprecated signed-order fields */
  pq_bytes max, min;
  bool has_null_count;
  int64_t null_count;
  bool has_distinct_count;
  int64_t distinct_count;
  bool has_max_value, has_min_value; /* column-order min/max */
  pq_bytes max_value, min_value;
  bool has_is_max_value_exact, has_is_min_value_exact;
  bool is_max_value_exact, is_min_value_exact;
  bool has_nan_count;
  int64_t nan_count;
} pq_statistics;

typedef struct pq_key_value {
  char *key; /* NUL-terminated; key_len bytes before the NUL */
  uint32_t key_len;
  char *value; /* NUL-terminated, NULL when absent */
  uint32_t value_len;
} pq_key_value;

typedef struct pq_page_encoding_stats {
  int32_t page_type; /* PQ_PAGE_* */
  int32_t encoding;  /* PQ_ENC_* */
  int32_t count;
} pq_page_encoding_stats;

typedef struct pq_column_meta {
  pq_type type;
  int32_t n_encodings;
  int32_t *encodings; /* PQ_ENC_* values */
  int32_t n_path;
  char **path_in_schema; /* n_path NUL-terminated names */
  int32_t codec;         /* PQ_CODEC_* */
  int64_t num_values;
  int64_t total_uncompressed_size;
  int64_t total_compressed_size;
  int32_t n_key_value;
  pq_key_value *key_value;
  int64_t data_page_offset;
  bool has_index_page_offset;
  int64_t index_page_offset;
  bool has_dictionary_page_offset;
  int64_t dictionary_page_offset;
  bool has_statistics;
  pq_statistics statistics;
  int32_t n_encoding_stats;
  pq_page_encoding_stats *encoding_stats;
  bool has_bloom_filter_offset;
  int64_t bloom_filter_offset;
  bool has_bloom_filter_length;
  int32_t bloom_filter_length;
} pq_column_meta;

typedef struct pq_column_chunk {
  char *file_path;     /* NULL when absent (data in this file) */
  int64_t file_offset; /* deprecated; written as 0 */
  bool has_meta_data;  /* validated true by pq_file_metadata_parse */
  pq_column_meta meta_data;
  bool has_offset_index; /* offset_index_offset + _length present */
  int64_t offset_index_offset;
  int32_t offset_index_length;
  bool has_column_index;
  int64_t column_index_offset;
  int32_t column_index_length;
  bool has_crypto_metadata; /* encrypted column: reader refuses it */
  bool has_encrypted_column_metadata;
} pq_column_chunk;

typedef struct pq_sorting_column {
  int32_t column_idx;
  bool descending;
  bool nulls_first;
} pq_sorting_column;

typedef struct pq_row_group {
  int32_t n_columns;
  pq_column_chunk *columns; /* one per leaf column, schema order */
  int64_t total_byte_size;
  int64_t num_rows;
  int32_t n_sorting_columns;
  pq_sorting_column *sorting_columns;
  bool has_file_offset;
  int64_t file_offset;
  bool has_total_compressed_size;
  int64_t total_compressed_size;
  bool has_ordinal;
  int16_t ordinal;
} pq_row_group;

struct pq_arena; /* private to pq_meta.c */

typedef struct pq_file_metadata {
  int32_t version;
  int32_t n_schema;
  pq_schema_element *schema; /* depth-first; schema[0] is the root */
  int64_t num_rows;
  int32_t n_row_groups;
  pq_row_group *row_groups;
  int32_t n_key_value;
  pq_key_value *key_value;
  char *created_by;              /* NULL when absent */
  int32_t n_column_orders;       /* 0 when absent */
  int32_t *column_orders;        /* PQ_ORDER_* per leaf column */
  bool has_encryption_algorithm; /* never true after a successful parse */
  bool has_footer_signing_key_metadata;
  struct pq_arena *arena; /* owns every allocation above; may be NULL */
} pq_file_metadata;

typedef struct pq_data_page_header {
  int32_t num_values;
  int32_t encoding;
  int32_t definition_level_encoding;
  int32_t repetition_level_encoding;
  bool has_statistics;
  pq_statistics statistics;
} pq_data_page_header;

typedef struct pq_dictionary_page_header {
  int32_t num_values;
  int32_t encoding;
  bool has_is_sorted;
  bool is_sorted;
} pq_dictionary_page_header;

typedef struct pq_data_page_header_v2 {
  int32_t num_values;
  int32_t num_nulls;
  int32_t num_rows;
  int32_t encoding;
  int32_t definition_levels_byte_length;
  int32_t repetition_levels_byte_length;
  bool is_compressed; /* defaults to true when absent */
  bool has_statistics;
  pq_statistics statistics;
} pq_data_page_header_v2;

typedef struct pq_page_header {
  int32_t type; /* PQ_PAGE_* */
  int32_t uncompressed_page_size;
  int32_t compressed_page_size;
  bool has_crc;
  uint32_t crc; /* thrift i32, reinterpreted as CRC-32 */
  bool has_data_page_header;
  pq_data_page_header data_page_header;
  bool has_index_page_header;
  bool has_dictionary_page_header;
  pq_dictionary_page_header dictionary_page_header;
  bool has_data_page_header_v2;
  pq_data_page_header_v2 data_page_header_v2;
} pq_page_header;

/* ---- limits ------------------------------------------------------------ */

/* Hard limits for untrusted metadata (beyond "fits in the bytes given"). */
#define PQ_MAX_SCHEMA_DEPTH 64 /* nesting of schema groups */
#define PQ_MAX_COLUMNS 100000  /* leaf columns */
#define PQ_FOOTER_MAGIC "PAR1"
#define PQ_ENCRYPTED_MAGIC "PARE"

/* ---- file metadata ------------------------------------------------------ */

/* Zero-initialises @p m (no arena until the first allocation). */
void pq_file_metadata_init(pq_file_metadata *m);
/* Frees everything in m's arena and re-initialises @p m. NULL-safe. */
void pq_file_metadata_reset(pq_file_metadata *m);

/*
 * Parses a serialized FileMetaData (the footer without length and magic)
 * into @p out, which must be initialised (or reset) and is overwritten.
 * Validates: required fields present; counts and sizes non-negative; list
 * sizes against remaining bytes; physical types and repetitions in range;
 * schema tree consistency (root is a group, num_children sums match the
 * element count, depth <= PQ_MAX_SCHEMA_DEPTH, leaves have a type,
 * FIXED_LEN_BYTE_ARRAY has a positive type_length); every row group has one
 * column chunk per leaf with meta_data whose type matches the leaf and
 * whose path_in_schema names it; column_orders, when present, one per leaf;
 * sum of row group rows equals num_rows is NOT required (some writers
 * disagree) but each row group's num_rows >= 0.
 * @p file_name (may be NULL) prefixes error messages.
 * @return 0; INLET_ECORRUPT; INLET_EUNSUPPORTED ("encrypted Parquet is not
 *         supported" when encryption_algorithm or a column's crypto metadata
 *         is set; column data in another file via file_path); INLET_ENOMEM.
 *         On failure @p out is left reset. Messages start with the file name
 *         ("x.parquet: corrupt footer: ...").
 */
int pq_file_metadata_parse(pq_file_metadata *out, const uint8_t *bytes, size_t len,
                           const char *file_name, inlet_error *err);

/*
 * Appends the compact-protocol FileMetaData for @p m to @p out (no length,
 * no magic). Absent optional fields are omitted.
 * @return 0, INLET_ENOMEM, INLET_EINVAL (m violates thrift limits, e.g. a
 *         string longer than 2^31).
 */
int pq_file_metadata_serialize(const pq_file_metadata *m, inlet_buf *out, inlet_error *err);

/*
 * Appends the complete file tail: serialized metadata, its 4-byte
 * little-endian length and "PAR1".
 * @return as pq_file_metadata_serialize.
 */
int pq_footer_serialize(const pq_file_metadata *m, inlet_buf *out, inlet_error *err);

/*
 * Reads and parses the footer of @p f: checks "PAR1" at both ends (a "PARE"
 * tail is INLET_EUNSUPPORTED "encrypted Parquet is not supported"), that the
 * footer length fits the file (size >= 12 + length) and does not exceed
 * @p max_footer_bytes (INLET_ELIMIT; <= 0 means no limit), then parses it.
 * Errors name f->name. Column chunk offsets are not checked against the
 * file size here: the reader does that per chunk it reads.
 * @return 0, INLET_ECORRUPT, INLET_EUNSUPPORTED, INLET_ELIMIT, INLET_EIO,
 *         INLET_ENOMEM.
 */
int pq_footer_read(pq_file_metadata *out, inlet_rfile *f, int64_t max_footer_bytes,
                   inlet_error *err);
/* The same, setting *footer_start (if not NULL) to the offset of the
 * footer's first byte (the end of the data area). The footer comes with one
 * read_tail request when it fits 64 KiB (the size may be unknown: f->size
 * is learnt from it). */
int pq_footer_read_at(pq_file_metadata *out, inlet_rfile *f, int64_t max_footer_bytes,
                      int64_t *footer_start, inlet_error *err);

/* Arena helpers for building metadata by hand (the writer). Memory is
 * zeroed and freed by pq_file_metadata_reset(). NULL on ENOMEM (recorded
 * in @p err). */
void *pq_meta_alloc(pq_file_metadata *m, size_t size, inlet_error *err);
/* Overflow-checked n * size allocation. */
void *pq_meta_alloc_array(pq_file_metadata *m, size_t n, size_t size, inlet_error *err);
/* Copies @p len bytes of @p s and a NUL terminator. */
char *pq_meta_strndup(pq_file_metadata *m, const char *s, size_t len, inlet_error *err);
char *pq_meta_strdup(pq_file_metadata *m, const char *s, inlet_error *err);
/* Sets @p kv to copies of @p key and @p value (value may be NULL). */
int pq_meta_set_kv(pq_file_metadata *m, pq_key_value *kv, const char *key, const char *value,
                   inlet_error *err);

/* ---- page headers ------------------------------------------------------- */

/*
 * Parses one PageHeader at @p bytes (at most @p len bytes are looked at) and
 * sets *consumed to its serialized size. Allocates nothing; statistics are
 * views into @p bytes. Validates: type, sizes >= 0, the header matching the
 * type present (data/dictionary/v2; index pages need none), num_values >= 0,
 * v2 level lengths >= 0 and their sum <= compressed_page_size, num_nulls <=
 * num_values. Unknown fields are skipped.
 * Errors carry no file name: callers prefix file/column/row group.
 * @return 0, INLET_ECORRUPT (including a header cut off by @p len).
 */
int pq_page_header_parse(pq_page_header *out, const uint8_t *bytes, size_t len, size_t *consumed,
                         inlet_error *err);

/* Appends the compact-protocol PageHeader for @p h. @return 0, INLET_ENOMEM. */
int pq_page_header_serialize(const pq_page_header *h, inlet_buf *out, inlet_error *err);

/* ---- names for messages and metadata JSON ------------------------------ */

const char *pq_type_name(int32_t type);           /* "INT32", ... "?" */
const char *pq_encoding_name(int32_t encoding);   /* "PLAIN", ... "UNKNOWN" */
const char *pq_page_type_name(int32_t page_type); /* "DATA_PAGE", ... */
/* (codec names: inlet_codec_name, codec/codec.h) */
const char *pq_converted_type_name(int32_t ct); /* "UTF8", ..., "NONE" */
const char *pq_repetition_name(int32_t rep);    /* "REQUIRED", ... */

#endif /* INLET_PARQUET_PQ_META_H */
