/*
 * Filtered, projected scans of a table snapshot, and the predicates they
 * filter with.
 *
 * A scan reads only what can matter: files whose partition values cannot
 * satisfy the predicate are pruned, files whose add.stats (min/max/
 * nullCount, PROTOCOL.md "Per-file Statistics") rule it out are skipped,
 * row groups whose Parquet statistics rule it out are not read, and only
 * the requested columns plus those the predicate needs are decoded. The
 * remaining rows are filtered with SQL three-valued logic (a row passes
 * only when the predicate is TRUE, never when it is NULL).
 *
 * Predicate syntax (case-insensitive keywords; the full language, shared
 * with `compact --where` and table constraints, is in docs/EXPRESSIONS.md):
 *   expr    := expr OR expr | expr AND expr | NOT expr | ( expr ) | pred
 *   pred    := value op value | value [NOT] IN (value, ...)
 *            | value [NOT] BETWEEN value AND value | value IS [NOT] NULL
 *            | value [NOT] LIKE value | bool_value | TRUE | FALSE
 *   op      := = | == | != | <> | < | <= | > | >= | <=>
 *   value   := col | col.field | value[i] | lit | value (+ - * / % ||) value
 *            | function(value, ...) | CAST(value AS type) | CASE ... END
 *   col     := name | `any name` | "any name"   (matched case-insensitively)
 *   lit     := number | 'string' ('' inside is one quote) | TRUE | FALSE | NULL
 *            | DATE 'YYYY-MM-DD' | TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.f][Z|+hh:mm]'
 * A literal compared with a column is typed by the column, with the
 * conversions of inlet/text.h (dates, timestamps with zone, exact decimals,
 * ...); a literal the column's type cannot hold is an error. Elsewhere
 * values compute in Spark SQL's types (exact decimals, integer / integer is
 * a double); an overflow or a division by zero yields NULL. Comparing with
 * NULL yields NULL, as in SQL. Doubles order NaN above every number.
 *
 * Batches are Arrow-shaped (inlet/batch.h). Thread safety: a scan or
 * predicate is used by one thread at a time; a parsed predicate is
 * read-only during evaluation. A scan given threads > 1 runs worker threads
 * of its own (stopped by inlet_scan_free); its calls still come from one
 * thread.
 */
#ifndef INLET_SCAN_H
#define INLET_SCAN_H

#include "inlet/batch.h"
#include "inlet/common.h"
#include "inlet/error.h"
#include "inlet/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- predicates ------------------------------------------------------- */

typedef struct inlet_predicate inlet_predicate;

/**
 * Parses @p text against @p schema (columns are looked up in it; literals
 * take their column's type).
 * @return 0, INLET_EINVAL (the message gives the 1-based column of the
 *         problem, then the expression and a caret under that column on
 *         two more lines), INLET_ENOTFOUND (unknown column, same format),
 *         INLET_EUNSUPPORTED (comparison on a nested column, unknown
 *         function; same format), INLET_ELIMIT (nesting past 200 levels,
 *         text past 1 MiB), INLET_ENOMEM.
 */
INLET_API int inlet_predicate_parse(inlet_predicate **out, const char *text,
                                    const inlet_schema *schema, inlet_error *err);
INLET_API void inlet_predicate_free(inlet_predicate *p);

/**
 * Evaluates @p p on every row of @p batch, which has the parse schema.
 * @p result receives batch->num_rows bytes: 1 TRUE, 0 FALSE, 2 NULL.
 * @return 0, INLET_EINVAL (batch schema differs), INLET_ENOMEM.
 */
INLET_API int inlet_predicate_eval(const inlet_predicate *p, const inlet_batch *batch,
                                   uint8_t *result, inlet_error *err);

/* ---- scans -------------------------------------------------------------- */

typedef struct inlet_scan_options {
  int version;       /* INLET_SCAN_OPTIONS_VERSION */
  int32_t n_columns; /* 0: every column, in schema order */
  /* Output columns, in this order (case-insensitive). Besides the table's
   * columns, on a table with row tracking enabled (PROTOCOL.md "Row
   * Tracking"): "_metadata.row_id" and "_metadata.row_commit_version" (long,
   * not null), each row's stable row id and row commit version: the
   * materialized value the data file holds, else baseRowId + the row's
   * position in the file / defaultRowCommitVersion. Asking for them on a
   * table without row tracking enabled is INLET_EUNSUPPORTED. */
  const char *const *columns;
  const char *where; /* predicate text, NULL for all rows */
  int64_t limit;     /* at most this many rows; -1 for no limit */
  bool explain;      /* record per-file and per-row-group decisions */
  /* Version 2: threads decoding and filtering row groups side by side (those of one
   * file too; each file's footer is read once), at most threads + 1 runs of row
   * groups in flight and a few decoded batches queued per run (bounded read-ahead);
   * 0 or 1 (the default): none, everything on the caller's thread. Also one thread
   * with explain, on object stores (whose requests run in flight on their own) and
   * when no file is left to read. */
  int32_t threads;
  /* With threads: batches are returned as they complete, in no particular order (the
   * same rows as a multiset; a limit still returns exactly min(limit, matches) rows,
   * any of them). false: the order of a single-threaded scan, whatever threads is. */
  bool unordered;
} inlet_scan_options;

/* 2: threads, unordered; a version-1 struct, which ends before them, is still
 * accepted (one thread). */
#define INLET_SCAN_OPTIONS_VERSION 2
#define INLET_SCAN_OPTIONS_INIT                                                                    \
  { INLET_SCAN_OPTIONS_VERSION, 0, NULL, NULL, -1, false, 0, false }

/** What a scan did so far. */
typedef struct inlet_scan_stats {
  int64_t files;              /* live files in the snapshot */
  int64_t files_pruned;       /* by partition values */
  int64_t files_skipped;      /* by add.stats */
  int64_t files_read;         /* opened (so far) */
  int64_t row_groups;         /* in files opened */
  int64_t row_groups_skipped; /* by Parquet statistics */
  int64_t row_groups_read;
  int64_t rows_read;    /* decoded */
  int64_t rows_matched; /* returned (after limit) */
  int64_t rows_skipped; /* in row groups read, left out by the page index (never decoded) */
  int64_t pages_read;   /* data pages decoded (a page read in two slices counts twice) */
  int64_t bytes_read;   /* bytes of column data read from the files */
} inlet_scan_stats;

typedef struct inlet_scan inlet_scan;

/**
 * Prepares a scan of @p snapshot (borrowed: it must outlive the scan).
 * Pruning and file skipping are decided here; nothing is read yet. The
 * first scan with a predicate parses the snapshot's add.stats and
 * partition values once into the snapshot, where later scans of it find
 * them (freed with the snapshot): so a snapshot, like every handle, is
 * used by one thread at a time, scans of it included.
 * This is the one scan API; inlet_table_scan_* (table.h) is a deprecated
 * wrapper over it.
 * @p options may be NULL (every row and column).
 * @return 0, INLET_EINVAL / INLET_ENOTFOUND (bad predicate or unknown
 *         column; see inlet_predicate_parse), INLET_EUNSUPPORTED (table
 *         without schema; row tracking columns asked of a table without
 *         row tracking enabled), INLET_ENOMEM. inlet_scan_next also returns
 *         INLET_ECORRUPT for a file of a row tracking table without
 *         baseRowId.
 */
INLET_API int inlet_scan_open(inlet_scan **out, const inlet_snapshot *snapshot,
                              const inlet_scan_options *options, inlet_error *err);
/** The output schema: the requested columns in the requested order. */
INLET_API const inlet_schema *inlet_scan_schema(const inlet_scan *scan);
/**
 * Fills @p batch (zeroed, or from a previous call; it is reset here) with
 * the next matching rows, in the output schema. Batches are never empty.
 * @return 1 with rows, 0 at the end, or INLET_ENOTFOUND (data file
 *         missing), INLET_ECORRUPT, INLET_EUNSUPPORTED, INLET_EIO,
 *         INLET_ENOMEM.
 */
INLET_API int inlet_scan_next(inlet_scan *scan, inlet_batch *batch, inlet_error *err);
INLET_API void inlet_scan_get_stats(const inlet_scan *scan, inlet_scan_stats *out);
/**
 * The explain report so far (options.explain): one line per file and per
 * row group considered, saying pruned/skipped/read and why, then totals.
 * Lent: valid until the next call on the scan.
 */
INLET_API const char *inlet_scan_explain(inlet_scan *scan);
INLET_API void inlet_scan_free(inlet_scan *scan);

#ifdef __cplusplus
}
#endif

#endif /* INLET_SCAN_H */
