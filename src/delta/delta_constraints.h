/*
 * Row constraints a Delta writer must enforce: column invariants
 * (PROTOCOL.md "Column Invariants": schema field metadata
 * `delta.invariants` = {"expression":{"expression":"<SQL>"}}) and CHECK
 * constraints (PROTOCOL.md "CHECK Constraints": table properties
 * `delta.constraints.<name>` = "<SQL>"), written in the Spark SQL that
 * src/expr evaluates.
 *
 * A row satisfies a constraint only when its expression is TRUE: FALSE
 * and NULL both violate it. The protocol says so for invariants ("evaluates
 * to false or null") and CHECK constraints ("must return true for each
 * row"), and Spark enforces both that way (CheckDeltaInvariant: a null or
 * false result throws) — unlike the SQL standard's CHECK, which lets NULL
 * pass.
 *
 * Used by every path that commits rows: the table writer (append, ingest),
 * ingest (to dead-letter a violating record) and compaction (which re-checks
 * the rows it rewrites).
 */
#ifndef INLET_DELTA_CONSTRAINTS_H
#define INLET_DELTA_CONSTRAINTS_H

#include "delta/delta.h"
#include "expr/expr.h"

typedef struct delta_constraint {
  char *name;            /* owned: CHECK constraint name, or the invariant's column path */
  char *text;            /* owned: the SQL expression as stored */
  bool invariant;        /* from delta.invariants (else delta.constraints.*) */
  inlet_predicate *pred; /* owned, parsed against the table schema */
} delta_constraint;

typedef struct delta_constraints {
  bool nested_not_null; /* some field below the top level is NOT NULL */
  inlet_schema schema;  /* owned: the table schema (nullability), when nested_not_null */
  int32_t n;
  delta_constraint *items; /* owned */
  uint8_t *used;           /* owned: per schema column, read by some constraint */
  int32_t n_cols;
  uint8_t *res; /* owned scratch: one result per row */
  int64_t cap;
} delta_constraints;

/*
 * Collects and parses the constraints of @p s (its schemaString and
 * configuration). A table with none gives n == 0.
 * @return 0, INLET_EUNSUPPORTED (an expression inlet cannot parse or
 *         evaluate, or a malformed delta.invariants; the message names the
 *         constraint and its expression), INLET_ENOMEM.
 */
int delta_constraints_load(delta_constraints *out, const delta_snapshot *s, inlet_error *err);
/* True when there is anything to check. */
static inline bool delta_constraints_any(const delta_constraints *c) {
  return c->n > 0 || c->nested_not_null;
}
void delta_constraints_reset(delta_constraints *c);

/*
 * For a table being created with @p schema: every `delta.constraints.<name>`
 * among the properties @p keys/@p values must name a constraint and parse,
 * as a boolean in Spark SQL, against the schema (a new table has no rows to
 * check). 0, INLET_EINVAL (the message names the property and shows the
 * problem with a caret), INLET_ENOMEM.
 */
int delta_constraints_check_new(const inlet_schema *schema, const char *const *keys,
                                const char *const *values, int32_t n, inlet_error *err);

/*
 * Checks rows [first, first + n) of @p b (columns in table schema order;
 * columns no constraint reads may be empty): first the NOT NULL fields
 * below the top level (a struct field, list element or map value declared
 * non-nullable holds a null where its parent has a value: "NOT NULL
 * constraint violated for column a.b"; top-level columns are the writer's
 * batch check), then the expressions. On the first violating row
 * *bad_row gets its index in @p b and the call fails with INLET_EINVAL and
 * a message naming the constraint, its expression, whether it was false or
 * NULL, the row as number @p row_base + (bad row - first) + 1 (no number
 * when @p row_base < 0), and the values of the columns it reads; *which (may be NULL) gets the
 * constraint's index.
 * @return 0 when every row holds, INLET_EINVAL, INLET_ENOMEM.
 */
int delta_constraints_check(delta_constraints *c, const inlet_batch *b, int64_t first, int64_t n,
                            int64_t row_base, int64_t *bad_row, int32_t *which, inlet_error *err);

#endif /* INLET_DELTA_CONSTRAINTS_H */
