/*
 * Private to src/scan: the predicate tree behind `--where` and
 * inlet_predicate (include/inlet/scan.h), its row evaluator and the
 * "which outcomes are possible" analysis that partition pruning, file
 * skipping (add.stats) and row-group skipping (Parquet statistics) share.
 *
 * Values are SQL three-valued: every evaluation yields SC_TRUE, SC_FALSE or
 * SC_NULL per row; a row passes a filter only when it is SC_TRUE.
 */
#ifndef INLET_SCAN_INT_H
#define INLET_SCAN_INT_H

#include "inlet/scan.h"
#include "util/buf.h"
#include "util/util.h"

enum { SC_FALSE = 0, SC_TRUE = 1, SC_NULL = 2 };

/* Outcome sets for skipping: bits of the values a predicate may take. */
enum { SC_MAY_TRUE = 1, SC_MAY_FALSE = 2, SC_MAY_NULL = 4, SC_MAY_ALL = 7 };

__extension__ typedef __int128 sc_i128;

/* A scalar in the comparable form of its column's kind. */
typedef enum sc_kind { SCK_NONE = 0, SCK_I64, SCK_U64, SCK_F64, SCK_I128, SCK_BYTES } sc_kind;

typedef struct sc_value {
  int64_t i;
  uint64_t u;
  double d;
  sc_i128 q;
  const uint8_t *p; /* borrowed bytes (SCK_BYTES) */
  size_t n;
} sc_value;

/* Comparison kind of a column type (SCK_NONE: nested, not comparable). */
sc_kind sc_kind_of(const inlet_type *t);
/* Reads row @p r (valid) of @p a, of type @p t, as a value of kind @p k. */
void sc_value_get(sc_value *v, sc_kind k, const inlet_type *t, const inlet_array *a, int64_t r);
/* -1, 0, 1; doubles order NaN above everything and equal to itself (as
 * DuckDB and Spark do), so every comparison has an answer. */
int sc_value_cmp(sc_kind k, const sc_value *a, const sc_value *b);

/* What is known about one column in a file or row group. */
typedef struct sc_colstats {
  bool has_min, has_max; /* bounds of the non-null values */
  sc_value min, max;     /* bytes borrowed from the stats holder */
  int64_t null_count;    /* -1 unknown */
  int64_t rows;          /* -1 unknown */
} sc_colstats;

typedef struct sc_node sc_node;

struct inlet_predicate {
  sc_node *root;       /* owned */
  inlet_schema schema; /* owned copy of the schema columns refer to */
  int32_t n_cols;      /* columns referenced, ascending schema indices */
  int32_t *cols;       /* owned */
};

/* Evaluates the predicate over @p b, whose column i holds schema column i
 * (columns the predicate does not use may be empty). @p out gets one
 * SC_* byte per row. 0, INLET_ENOMEM. */
int sc_pred_eval(const inlet_predicate *p, const inlet_batch *b, uint8_t *out, inlet_error *err);

/* Outcomes the predicate may take on rows described by @p stats (one per
 * schema column). A result without SC_MAY_TRUE means no row can pass. */
int sc_pred_possible(const inlet_predicate *p, const sc_colstats *stats);

/* Parses one literal text for @p field into a fresh 1-row array @p out
 * (initialised here; the caller resets it). Returns 0 or INLET_EINVAL with
 * a reason in @p reason. */
int sc_literal_parse(inlet_array *out, const inlet_field *field, const char *s, size_t n,
                     bool is_number, char *reason, size_t reason_cap);

#endif /* INLET_SCAN_INT_H */
