/*
 * Private to src/maint: helpers shared by compaction (compact.c), vacuum
 * (vacuum.c) and log cleanup (log_cleanup.c): durations, partition
 * predicates, partition keys.
 *
 * Dependencies (docs/ARCHITECTURE.md): maint builds on delta, parquet,
 * expr, storage, batch and util; never on stream, scan or cli.
 */
#ifndef INLET_MAINT_INT_H
#define INLET_MAINT_INT_H

#include "delta/delta.h"
#include "expr/expr.h"
#include "inlet/maint.h"
#include "parquet/raw_pages.h"

/* Parses @p text, a predicate in the language of `scan --where`
 * (src/expr), against @p schema; every column it reads must be one of
 * @p meta's partition columns (compaction selects whole partitions).
 * 0, INLET_EINVAL, INLET_ENOTFOUND, INLET_ELIMIT, INLET_ENOMEM. */
int maint_where_parse(inlet_predicate **out, const char *text, const inlet_schema *schema,
                      const delta_metadata *meta, inlet_error *err);
/* keep[i] = whether the partition values of @p adds[i] make @p p TRUE (a
 * partition column absent from the add is null). @p phys: the physical twin
 * of the schema @p p was parsed against (column mapping: partitionValues are
 * keyed by physical name), or NULL when the names are the same.
 * 0, INLET_ECORRUPT (a partition value the column's type cannot hold),
 * INLET_ENOMEM. */
int maint_where_match(const inlet_predicate *p, const inlet_schema *phys,
                      const delta_add *const *adds, int64_t n, uint8_t *keep, inlet_error *err);

/* Value of partition column @p col in @p add; *found tells a null from an
 * absent key. */
const char *maint_partition_value(const delta_add *add, const char *col, bool *found);

/* Physical name of top-level column @p logical of @p s (column mapping:
 * the key of its partitionValues and stats), @p logical itself without
 * mapping or when the schema lacks it. */
const char *maint_physical_name(const delta_snapshot *s, const char *logical);

/* The file's column holds values of the table column's exact type (a
 * decimal's scale or a timestamp's unit, nested fields by physical name). */
bool maint_same_type(const inlet_field *a, const inlet_field *b);
/* Moves the pages captured for a row group (raw_pages.h; @p cap: one per
 * column read, laid out as @p read) that hold exactly the values of one of
 * the @p table fields (@p idx: each field's column read, or -1), read in
 * that field's type, into @p *raw (allocated at the first: one per table
 * field), for a writer to copy. */
int maint_take_pages(pq_raw_chunk **raw, pq_raw_chunk *cap, const int32_t *idx,
                     const inlet_schema *table, const inlet_schema *read, inlet_error *err);
/* Moves column @p src of a data file (its field @p sf, @p n rows, consumed)
 * into @p dst (empty, initialised for table field @p tf, whose physical twin
 * is @p pf; both the same field without column mapping), as scans read it:
 * a column stored in the table's type is moved, another one (Spark's INT96
 * timestamps, a widened type, a nested column whose fields were added
 * after the file was written) is converted, missing struct fields null.
 * Nulls in a NOT NULL column are corrupt. @p path and @p rg name the file
 * and row group in errors. 0, INLET_EUNSUPPORTED (a type that does not
 * convert), INLET_ECORRUPT, INLET_ENOMEM. */
int maint_take_column(inlet_array *dst, const inlet_field *tf, const inlet_field *pf,
                      inlet_array *src, const inlet_field *sf, int64_t n, const char *path,
                      int32_t rg, inlet_error *err);

/* Human-readable partition ("a=1/b=x" in logical names, "" when
 * unpartitioned; nulls as __HIVE_DEFAULT_PARTITION__) and an exact grouping
 * key of @p add in snapshot @p s: two adds' keys are equal only when each
 * partition value is (byte for byte, a null distinct from any string).
 * Caller frees both. 0, INLET_ENOMEM. */
int maint_partition_names(char **label, char **key, const delta_add *add, const delta_snapshot *s,
                          inlet_error *err);

/* Integer table property @p key of @p meta with optional K/M/G suffix, or
 * @p dflt when absent or unparseable. */
int64_t maint_conf_size(const delta_metadata *meta, const char *key, int64_t dflt);

/* Removes `_delta_log/.tmp-*` files older than INLET_LOG_TEMP_MAX_AGE_MS at
 * @p now_ms (log_temps.c), reporting each to @p on_file (may be NULL) and
 * counting them in *files and *bytes (may be NULL). 0, INLET_EIO, INLET_ENOMEM. */
int maint_remove_log_temps(inlet_storage *st, int64_t now_ms, bool dry_run,
                           inlet_vacuum_file_fn on_file, void *ctx, int64_t *files, int64_t *bytes,
                           inlet_error *err);

/* Aborts the table's incomplete multipart uploads (S3) initiated more than
 * INLET_LOG_TEMP_MAX_AGE_MS before @p now_ms: debris of writers killed
 * mid-upload (a live writer's upload lasts the seconds or minutes of one
 * file). Each one's object path goes to @p on_file with size 0 (may be
 * NULL), counted in *files (may be NULL). Nothing on stores without such
 * uploads (local disks; Azure discards uncommitted blocks itself). */
int maint_abort_stale_uploads(inlet_storage *st, int64_t now_ms, bool dry_run,
                              inlet_vacuum_file_fn on_file, void *ctx, int64_t *files,
                              inlet_error *err);

#endif /* INLET_MAINT_INT_H */
