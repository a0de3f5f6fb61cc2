/*
 * Nested columns for the Parquet writer: the Parquet schema of STRUCT, LIST
 * and MAP fields (LogicalTypes.md "Nested Types": three-level LIST with a
 * repeated group "list" and an "element", MAP with a repeated group
 * "key_value" of a required "key" and a "value"), and record shredding
 * (the Dremel definition/repetition levels of parquet-format README
 * "Nested Encoding") of Arrow-shaped nested arrays into one leaf's levels
 * and densely gathered values.
 */
#ifndef INLET_PARQUET_SHRED_H
#define INLET_PARQUET_SHRED_H

#include <stdint.h>

#include "inlet/batch.h"
#include "inlet/error.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"
#include "util/buf.h"

/*
 * Writer schema for any inlet schema: flat schemas exactly as
 * pq_schema_to_parquet; nested fields as groups, with leaf types mapped by
 * pq_schema_to_parquet. Fills meta->schema, meta->column_orders and @p out
 * (columns' type/conv/scale_factor/field/field_index included; field points
 * into @p schema, which must outlive @p out).
 * @return 0, INLET_EINVAL, INLET_EUNSUPPORTED, INLET_ENOMEM.
 */
int pq_writer_schema(pq_file_metadata *meta, pq_schema_desc *out, const inlet_schema *schema,
                     inlet_error *err);

/* One level of a leaf's path through the inlet field tree. */
typedef struct pq_shred_step {
  const inlet_field *field; /* borrowed */
  int32_t child;            /* child taken below this step; -1 at the leaf */
} pq_shred_step;

typedef struct pq_shredder {
  int32_t n_steps;
  pq_shred_step steps[PQ_MAX_SCHEMA_DEPTH + 1];
  int16_t max_def;
  /* Output of the last pq_shred (owned). */
  int16_t *def, *rep;
  int64_t n_levels;
  size_t levels_cap;
  inlet_array values; /* gathered non-null leaf values, no validity */
  inlet_buf data;     /* owned storage behind values.values */
  int32_t *offsets;   /* owned storage behind values.offsets */
  size_t offsets_cap;
  int64_t bits_cap; /* BOOL: bytes allocated in data */
  const char *name; /* borrowed: leaf path for messages */
} pq_shredder;

/* Prepares to shred leaf @p leaf (DFS order) of @p schema.
 * @return 0, INLET_EINVAL (leaf out of range). */
int pq_shredder_init(pq_shredder *s, const inlet_schema *schema, int32_t leaf, int16_t max_def,
                     const char *name, inlet_error *err);
void pq_shredder_reset(pq_shredder *s);

/* Shreds rows [start, start + n) of the top-level array @p top.
 * @return 0, INLET_EINVAL (null in a required field or map key,
 *         inconsistent offsets), INLET_ENOMEM. */
int pq_shred(pq_shredder *s, const inlet_array *top, int64_t start, int64_t n, inlet_error *err);

#endif /* INLET_PARQUET_SHRED_H */
