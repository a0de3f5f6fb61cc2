/*
 * Nested Parquet columns for the reader: maps a nested Parquet schema to
 * inlet's Arrow-shaped types (STRUCT, LIST, MAP) following LogicalTypes.md
 * "Nested Types" and its backward-compatibility rules for lists and maps,
 * and assembles each leaf column's repetition and definition levels (the
 * Dremel encoding, parquet-format README "Nested Encoding") into those
 * arrays.
 *
 * Every leaf column gets a plan: the steps from its top-level field down to
 * the leaf, each with the repetition depth of its slots and the definition
 * levels at which a slot exists and is non-null. The first leaf below a
 * node "owns" it and builds its validity and offsets; later leaves only
 * fill their own value arrays. pq_nested_finish() then checks that every
 * leaf agreed on the shape.
 */
#ifndef INLET_PARQUET_NESTED_H
#define INLET_PARQUET_NESTED_H

#include <stdbool.h>
#include <stdint.h>

#include "inlet/batch.h"
#include "inlet/error.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"

typedef enum pq_step_kind { PQ_STEP_STRUCT, PQ_STEP_LIST, PQ_STEP_LEAF } pq_step_kind;

typedef struct pq_step {
  pq_step_kind kind;   /* MAP arrays are PQ_STEP_LIST */
  int32_t child;       /* index in the parent array's children; -1 at the top */
  int16_t depth;       /* repetition depth of this node's slots */
  int16_t slot_def;    /* definition level at which a slot exists */
  int16_t nonnull_def; /* definition level at which the slot is non-null */
  bool owned;          /* this leaf builds the node's validity and offsets */
} pq_step;

typedef struct pq_leaf_plan {
  int32_t column; /* leaf column index */
  int32_t field;  /* top-level field index */
  int32_t n_steps;
  pq_step *steps; /* owned */
} pq_leaf_plan;

typedef struct pq_nested {
  int32_t n_plans;
  pq_leaf_plan *plans; /* owned: one per leaf column, column order */
} pq_nested;

void pq_nested_init(pq_nested *n);
void pq_nested_reset(pq_nested *n);

/*
 * Given @p sd from pq_schema_build_tree(), builds sd->schema (nested inlet
 * fields), sets every column's type, conversion, field and field_index, and
 * fills @p out with the leaf plans.
 * @return 0; INLET_EUNSUPPORTED (a shape inlet cannot represent, e.g. a MAP
 *         without values); INLET_ECORRUPT; INLET_ENOMEM.
 */
int pq_nested_build(pq_nested *out, pq_schema_desc *sd, const pq_schema_element *elems, int32_t n,
                    const char *file, inlet_error *err);

/*
 * Adds one leaf's @p n levels (with @p n_dense non-null values already
 * decoded densely into the leaf array) to the arrays below @p top, shaped
 * by @p top_field. @return 0, INLET_ENOMEM, INLET_ELIMIT.
 */
int pq_nested_assemble(const pq_leaf_plan *plan, const pq_column_desc *desc, const int16_t *rep,
                       const int16_t *def, size_t n, int64_t n_dense, inlet_array *top,
                       const inlet_field *top_field, inlet_error *err);

/* After every leaf of a field: checks that the arrays agree (struct
 * children as long as the struct, list offsets ending at the child's
 * length, @p rows top-level rows) and drops bitmaps without nulls.
 * @return 0, INLET_ECORRUPT (message without file context). */
int pq_nested_finish(inlet_array *top, const inlet_field *top_field, int64_t rows,
                     inlet_error *err);

#endif /* INLET_PARQUET_NESTED_H */
