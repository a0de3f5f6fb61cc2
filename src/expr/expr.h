/*
 * The expression language shared by scan (`--where`), compaction
 * (`compact --where`) and table constraints (`delta.constraints.*`,
 * `delta.invariants`): a parser producing a tree typed by a table schema,
 * a batch evaluator with SQL three-valued logic, and the "which outcomes
 * are possible" analysis that partition pruning, file skipping (add.stats)
 * and row-group/page skipping (Parquet statistics) share.
 *
 * Values are SQL three-valued: every evaluation yields EXPR_TRUE,
 * EXPR_FALSE or EXPR_NULL per row; a filter keeps a row only when it is
 * EXPR_TRUE.
 *
 * Dependencies (docs/ARCHITECTURE.md): util and batch only, so that delta
 * (constraints), maint and scan can all build on it.
 */
#ifndef INLET_EXPR_H
#define INLET_EXPR_H

#include "inlet/batch.h"
#include "util/buf.h"
#include "util/util.h"

enum { EXPR_FALSE = 0, EXPR_TRUE = 1, EXPR_NULL = 2 };

/* Outcome sets for skipping: bits of the values a predicate may take. */
enum { EXPR_MAY_TRUE = 1, EXPR_MAY_FALSE = 2, EXPR_MAY_NULL = 4, EXPR_MAY_ALL = 7 };

__extension__ typedef __int128 expr_i128;

/* A scalar in the comparable form of its column's kind. */
typedef enum expr_kind { EXK_NONE = 0, EXK_I64, EXK_U64, EXK_F64, EXK_I128, EXK_BYTES } expr_kind;

typedef struct expr_value {
  int64_t i;
  uint64_t u;
  double d;
  expr_i128 q;
  const uint8_t *p; /* borrowed bytes (EXK_BYTES) */
  size_t n;
} expr_value;

/* Comparison kind of a column type (EXK_NONE: nested, not comparable). */
expr_kind expr_kind_of(const inlet_type *t);
/* Reads row @p r (valid) of @p a, of type @p t, as a value of kind @p k. */
void expr_value_get(expr_value *v, expr_kind k, const inlet_type *t, const inlet_array *a,
                    int64_t r);
/* -1, 0, 1; doubles order NaN above everything and equal to itself (as
 * DuckDB and Spark do), so every comparison has an answer. */
int expr_value_cmp(expr_kind k, const expr_value *a, const expr_value *b);

/* What is known about one column in a file or row group. */
typedef struct expr_colstats {
  bool has_min, has_max; /* bounds of the non-null values */
  expr_value min, max;   /* bytes borrowed from the stats holder */
  int64_t null_count;    /* -1 unknown */
  int64_t rows;          /* -1 unknown */
} expr_colstats;

typedef struct expr_node expr_node;

/* A parsed expression (the public inlet_predicate of inlet/scan.h). */
typedef struct inlet_predicate inlet_predicate;
struct inlet_predicate {
  expr_node *root;     /* owned */
  inlet_schema schema; /* owned copy of the schema columns refer to */
  int32_t n_cols;      /* top-level columns referenced, ascending schema indices */
  int32_t *cols;       /* owned */
};

/*
 * Two spellings of one language:
 *   EXPR_WHERE  `scan --where` and `compact --where` (inlet/scan.h): a
 *               literal compared with a column takes the column's type and
 *               must fit it; "double quotes" name columns; '' escapes a
 *               quote inside a string.
 *   EXPR_SPARK  what Spark stores in delta.constraints.* and
 *               delta.invariants: Spark SQL literals (typed by their own
 *               form and promoted, 10L, 1.5D, 1.5BD, X'00'), "double
 *               quoted" strings, backslash escapes, adjacent strings
 *               concatenated.
 */
typedef enum expr_dialect { EXPR_WHERE = 0, EXPR_SPARK } expr_dialect;

/* Parses @p text against @p schema (see include/inlet/scan.h for the
 * grammar and the error format). 0, INLET_EINVAL, INLET_ENOTFOUND,
 * INLET_EUNSUPPORTED, INLET_ELIMIT, INLET_ENOMEM. */
int expr_parse(inlet_predicate **out, const char *text, const inlet_schema *schema,
               expr_dialect dialect, inlet_error *err);
void expr_free(inlet_predicate *p);

/* Evaluates the predicate over rows [first, first + n) of @p b, whose
 * column i holds schema column i (columns the predicate does not use may
 * be empty). @p out gets one EXPR_* byte per row. 0, INLET_EINVAL (a used
 * column is too short), INLET_ENOMEM. */
int expr_eval(const inlet_predicate *p, const inlet_batch *b, int64_t first, int64_t n,
              uint8_t *out, inlet_error *err);

/* Outcomes the predicate may take on rows described by @p stats (one per
 * schema column). A result without EXPR_MAY_TRUE means no row can pass. */
int expr_possible(const inlet_predicate *p, const expr_colstats *stats);

/* Parses one literal text for @p field into a fresh 1-row array @p out
 * (initialised here; the caller resets it), with the text import rules.
 * Returns 0 or INLET_EINVAL with a reason in @p reason. */
int expr_literal_parse(inlet_array *out, const inlet_field *field, const char *s, size_t n,
                       bool is_number, char *reason, size_t reason_cap);

#endif /* INLET_EXPR_H */
