/*
 * Mapping between the Parquet schema (the flat, depth-first SchemaElement
 * list of FileMetaData) and inlet_schema (inlet/batch.h), plus the per-leaf
 * column descriptors the reader and writer work from.
 *
 * Specs: parquet-format LogicalTypes.md (logical and legacy converted
 * types, backward-compatibility rules), parquet.thrift ColumnOrder (sort
 * order of min/max statistics), the Dremel definition/repetition levels
 * (parquet-format README "Nested Encoding").
 *
 * The tree (pq_schema_node) and the levels are computed for any schema so
 * that nested support can build on them; the mapping to inlet types is flat
 * for now: a repeated field or a group below the root is INLET_EUNSUPPORTED
 * "nested column X is not supported".
 */
#ifndef INLET_PARQUET_PQ_SCHEMA_H
#define INLET_PARQUET_PQ_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "inlet/batch.h"
#include "inlet/error.h"
#include "parquet/pq_meta.h"

/* Sort order of a column's min/max statistics (parquet.thrift ColumnOrder
 * TypeDefinedOrder rules). */
typedef enum pq_sort_order {
  PQ_SORT_SIGNED = 0,   /* signed integer / float value / signed decimal */
  PQ_SORT_UNSIGNED = 1, /* unsigned integers, byte-wise unsigned for binary */
  PQ_SORT_UNKNOWN = 2   /* INT96, INTERVAL, nested: statistics unusable */
} pq_sort_order;

/* How a value is converted between its Parquet physical storage and the
 * inlet array layout of desc->type. The reader applies it forwards, the
 * writer backwards. */
typedef enum pq_value_conv {
  PQ_CONV_NONE = 0,   /* identical little-endian bytes (incl. UINT32 in INT32,
                         UINT64 in INT64, DATE, TIME millis in INT32) */
  PQ_CONV_INT_NARROW, /* INT32 storage, 8/16-bit inlet value (INT8/16, UINT8/16):
                         reader truncates, writer sign/zero-extends */
  PQ_CONV_SCALE,      /* integer times scale_factor: parquet = inlet * factor
                         (TIMESTAMP/TIME seconds written as MILLIS: 1000) */
  PQ_CONV_INT96,      /* legacy INT96 (nanos-of-day LE int64, Julian day LE
                         int32) -> TIMESTAMP micros, not UTC-adjusted */
  PQ_CONV_FLOAT16,    /* FIXED_LEN_BYTE_ARRAY(2) IEEE half -> FLOAT */
  PQ_CONV_DECIMAL     /* INT32/INT64 unscaled or big-endian two's complement
                         FIXED/BYTE_ARRAY -> decimal128 (16 bytes LE) */
} pq_value_conv;

/* One node per SchemaElement, same index as the element. */
typedef struct pq_schema_node {
  int32_t parent;       /* node index, -1 for the root */
  int32_t first_child;  /* node index, -1 for leaves */
  int32_t next_sibling; /* node index, -1 for the last child */
  int32_t depth;        /* root 0, top-level fields 1 */
  int16_t def_level;    /* max definition level of values at this node */
  int16_t rep_level;    /* max repetition level at this node */
  int32_t column;       /* leaf: index into columns; groups: -1 */
} pq_schema_node;

typedef struct pq_column_desc {
  char *path; /* owned: dotted path, "a.b.c" */
  int32_t n_path;
  char **path_parts; /* owned: the components (ColumnMetaData path_in_schema) */
  int32_t element;   /* index of the leaf SchemaElement (== node index) */
  pq_type physical_type;
  int32_t type_length;      /* FIXED_LEN_BYTE_ARRAY width, else 0 */
  pq_repetition repetition; /* of the leaf element */
  int16_t max_def_level;
  int16_t max_rep_level;
  int32_t field_index;      /* index of the top-level inlet field it belongs to */
  const inlet_field *field; /* borrowed: the inlet field (in desc->schema) of the leaf */
  inlet_type type;          /* inlet type of the decoded values */
  pq_logical_type logical;  /* annotation as read, or as written */
  int32_t converted_type;   /* PQ_CT_*, PQ_CT_NONE */
  pq_sort_order sort_order;
  pq_value_conv conv;
  int64_t scale_factor; /* PQ_CONV_SCALE: parquet value = inlet value * factor; else 1 */
} pq_column_desc;

typedef struct pq_schema_desc {
  inlet_schema schema; /* owned */
  int32_t n_nodes;
  pq_schema_node *nodes; /* owned, one per SchemaElement */
  int32_t n_columns;
  pq_column_desc *columns; /* owned, one per leaf, schema order */
} pq_schema_desc;

void pq_schema_desc_init(pq_schema_desc *d);
/* Frees everything owned by @p d and re-initialises it. NULL-safe. */
void pq_schema_desc_reset(pq_schema_desc *d);

/*
 * Builds @p out (initialised or reset; overwritten) from the Parquet schema
 * @p elems[0..n) (as validated by pq_file_metadata_parse; re-checked here
 * so hand-built lists are safe too). @p file_name (may be NULL) prefixes
 * messages.
 * Annotations this code does not know (newer logical types, group-only
 * annotations on a leaf, NullType) fall back to the legacy converted_type,
 * then to the physical type, as LogicalTypes.md asks of readers.
 * @return 0; INLET_ECORRUPT (inconsistent tree, annotation not allowed on the
 *         physical type, e.g. DATE on BYTE_ARRAY, bad decimal scale/precision);
 *         INLET_EUNSUPPORTED (nested or repeated column: "nested column X is
 *         not supported", DECIMAL precision > 38, VECTOR repetition);
 *         INLET_ENOMEM. On failure @p out is left reset.
 */
int pq_schema_from_parquet(pq_schema_desc *out, const pq_schema_element *elems, int32_t n,
                           const char *file_name, inlet_error *err);

/*
 * Builds only the tree (nodes) and per-leaf descriptors (paths, levels,
 * physical types, annotations, sort orders) for any schema, nested ones
 * included. desc->schema stays empty; columns' type, field and field_index
 * are unset (-1/NULL). The basis of nested support.
 * @return 0, INLET_ECORRUPT, INLET_EUNSUPPORTED (VECTOR), INLET_ENOMEM.
 */
int pq_schema_build_tree(pq_schema_desc *out, const pq_schema_element *elems, int32_t n,
                         const char *file_name, inlet_error *err);

/*
 * Writer direction: fills meta->schema / meta->n_schema (allocated in meta's
 * arena; the root is named "schema") and @p out with the descriptors for
 * writing @p schema. Each element carries both logicalType and the legacy
 * converted_type where one exists (STRING+UTF8, INT(8,true)+INT_8,
 * TIMESTAMP(MICROS,utc)+TIMESTAMP_MICROS, DECIMAL+DECIMAL with scale and
 * precision, ...). DECIMAL precision <= 9 is INT32, <= 18 INT64, else
 * FIXED_LEN_BYTE_ARRAY of pq_decimal_byte_width(precision) bytes.
 * TIMESTAMP and TIME in seconds are written as MILLIS (conv PQ_CONV_SCALE,
 * scale_factor 1000). Also sets meta->column_orders (TYPE_DEFINED per leaf).
 * @return 0; INLET_EINVAL (a type that cannot be written, e.g. DECIMAL
 *         precision 0 or > 38, FIXED_BINARY width <= 0, empty name);
 *         INLET_EUNSUPPORTED (STRUCT/LIST/MAP for now); INLET_ENOMEM.
 */
int pq_schema_to_parquet(pq_file_metadata *meta, pq_schema_desc *out, const inlet_schema *schema,
                         inlet_error *err);

/*
 * Maps the annotations of leaf element @p e onto c->type, c->conv and
 * c->scale_factor, with the rules and errors of pq_schema_from_parquet
 * (repetition aside). c->physical_type and c->type_length must describe
 * @p e, as pq_schema_build_tree leaves them; c->path (or e->name) names the
 * column in messages. For nested readers, which map each leaf themselves.
 * @return 0, INLET_ECORRUPT, INLET_EUNSUPPORTED (DECIMAL precision > 38).
 */
int pq_column_map_type(pq_column_desc *c, const pq_schema_element *e, const char *file_name,
                       inlet_error *err);

/* Sort order of a leaf element's statistics (TypeDefinedOrder rules). */
pq_sort_order pq_element_sort_order(const pq_schema_element *leaf);

/* Minimal bytes of a big-endian two's complement holding any unscaled
 * value of @p precision digits (1..38), e.g. 10 -> 5, 38 -> 16. */
int32_t pq_decimal_byte_width(int32_t precision);

/* Bytes of one PLAIN value of leaf @p d's physical type (INT96: 12,
 * FIXED_LEN_BYTE_ARRAY: its length), 0 for BOOLEAN and BYTE_ARRAY. */
int32_t pq_plain_value_width(const pq_column_desc *d);

#endif /* INLET_PARQUET_PQ_SCHEMA_H */
