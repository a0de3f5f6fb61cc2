/*
 * Private to src/maint: helpers shared by compaction (compact.c), vacuum
 * (vacuum.c) and log cleanup (log_cleanup.c): durations, partition
 * predicates, partition keys.
 *
 * Dependencies (docs/ARCHITECTURE.md): maint builds on delta, parquet,
 * storage, batch and util; never on stream, scan or cli.
 */
#ifndef INLET_MAINT_INT_H
#define INLET_MAINT_INT_H

#include "delta/delta.h"
#include "inlet/maint.h"

/* A parsed partition predicate: a conjunction of comparisons. */
typedef enum maint_op {
  MAINT_OP_EQ, MAINT_OP_NE, MAINT_OP_LT, MAINT_OP_LE, MAINT_OP_GT, MAINT_OP_GE,
  MAINT_OP_IS_NULL, MAINT_OP_NOT_NULL
} maint_op;

typedef struct maint_term {
  char *column;  /* owned */
  maint_op op;
  char *value;   /* owned; NULL for IS [NOT] NULL */
} maint_term;

typedef struct maint_pred {
  int32_t n_terms;
  maint_term *terms; /* owned */
} maint_pred;

/* Parses @p text (see inlet_compact_options.where); every column must be one
 * of @p meta's partition columns. 0, INLET_EINVAL, INLET_ENOMEM. */
int maint_pred_parse(maint_pred *out, const char *text, const delta_metadata *meta,
                     inlet_error *err);
void maint_pred_reset(maint_pred *p);
/* True when the partition values of @p add satisfy @p p (empty p: true). */
bool maint_pred_match(const maint_pred *p, const delta_add *add);

/* Value of partition column @p col in @p add; *found tells a null from an
 * absent key. */
const char *maint_partition_value(const delta_add *add, const char *col, bool *found);

/* Human-readable partition ("a=1/b=x", "" when unpartitioned; nulls as
 * __HIVE_DEFAULT_PARTITION__) and an exact grouping key (nulls distinct from
 * any string). Caller frees both. 0, INLET_ENOMEM. */
int maint_partition_names(char **label, char **key, const delta_add *add,
                          const delta_metadata *meta, inlet_error *err);

/* Integer table property @p key of @p meta with optional K/M/G suffix, or
 * @p dflt when absent or unparseable. */
int64_t maint_conf_size(const delta_metadata *meta, const char *key, int64_t dflt);

#endif /* INLET_MAINT_INT_H */
