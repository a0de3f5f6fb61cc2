/*
 * Delta Lake tables: create, open, snapshots (latest, at a version, at a
 * timestamp), transactional appends, scans, history and describe.
 *
 * A table is a directory of Parquet data files plus a Delta transaction log
 * (`_delta_log/`, delta-io/delta PROTOCOL.md) that Spark, DuckDB, Trino and
 * delta-rs read. Every commit is atomic: a log entry appears whole or not
 * at all and never replaces a concurrent one; data files are durable before
 * the commit that references them.
 *
 * Ownership: handles returned through `out` parameters belong to the
 * caller, who frees them with the matching _free function. A snapshot, scan
 * or table writer borrows its table: free them before the table. Getters
 * lend pointers that live as long as the handle they came from.
 *
 * Thread safety: a handle is used by one thread at a time; distinct
 * handles (even on the same table, in different processes) are
 * independent, and concurrent writers are serialised by the log itself.
 */
#ifndef INLET_TABLE_H
#define INLET_TABLE_H

#include "inlet/batch.h"
#include "inlet/common.h"
#include "inlet/error.h"
#include "inlet/parquet.h"
#include "inlet/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct inlet_table inlet_table;
typedef struct inlet_snapshot inlet_snapshot;
typedef struct inlet_table_writer inlet_table_writer;
typedef struct inlet_table_scan inlet_table_scan;

/* ---- create / open ------------------------------------------------------- */

typedef struct inlet_table_create_options {
  int version; /* INLET_TABLE_CREATE_OPTIONS_VERSION */
  int32_t n_partition_columns;
  const char *const *partition_columns; /* names of top-level schema columns */
  /* Table properties (metaData.configuration). As in Spark's catalog,
   * "comment" is the description instead (INLET_EINVAL with description
   * set too), and "location" and "provider" are INLET_EINVAL. */
  int32_t n_properties;
  const char *const *property_keys;
  const char *const *property_values;
  const char *name;           /* optional metaData.name */
  const char *description;    /* optional metaData.description */
  size_t n_batches;           /* rows committed with the table in version 0 */
  const inlet_batch *batches; /* (schema-matching, like inlet_table_writer_write) */
} inlet_table_create_options;

#define INLET_TABLE_CREATE_OPTIONS_VERSION 1
#define INLET_TABLE_CREATE_OPTIONS_INIT                                                            \
  { INLET_TABLE_CREATE_OPTIONS_VERSION, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, NULL }

/**
 * Creates a table at @p path (the directory is created if needed) by
 * committing version 0: protocol, metaData (fresh table id, @p schema,
 * partition columns, properties, createdTime) and commitInfo. The protocol
 * is the one Spark derives for the schema and properties: reader 1 / writer
 * 2 unless they turn on more (a timestamp_ntz column, change data feed,
 * in-commit timestamps, deletion vectors...), then writer 7 listing every
 * feature in use. delta.minReaderVersion, delta.minWriterVersion and
 * delta.feature.NAME=supported request more and are not stored.
 * With options->batches, their rows are written as data files
 * and committed in the same version 0 (one transaction: the table appears
 * with its data or not at all). @p options may be NULL.
 * @return 0, INLET_EEXISTS (a table is already there), INLET_EINVAL (bad
 *         partition column, duplicate column name, unknown delta.* property or bad value,
 *         batch not matching), INLET_EUNSUPPORTED (a type Delta cannot store, e.g. uint32;
 *         a property turning on a feature inlet cannot honour, named in the message; a column
 *         name that needs column mapping), INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_create(inlet_table **out, const char *path, const inlet_schema *schema,
                                 const inlet_table_create_options *options, inlet_error *err);

/**
 * Opens the table at @p path (a local path or a URL: see
 * inlet_table_open_with; settings from the environment). Only checks that
 * `_delta_log` exists; the log is read by snapshots. @return 0, INLET_ENOTFOUND, INLET_EIO,
 * INLET_ENOMEM.
 */
INLET_API int inlet_table_open(inlet_table **out, const char *path, inlet_error *err);

/**
 * How to reach a table: the storage settings of its location and the
 * single-writer promise. inlet_table_open and inlet_table_create use
 * INLET_TABLE_OPEN_OPTIONS_INIT (settings from the environment).
 */
typedef struct inlet_table_open_options {
  int version;                          /* INLET_TABLE_OPEN_OPTIONS_VERSION */
  const inlet_storage_options *storage; /* NULL: everything from the environment (copied) */
  /* Single-writer mode: the caller promises that exactly one process writes
   * the table at a time. Only then does inlet commit on an object store
   * that ignores If-None-Match: * (found by a probe before the first
   * commit of each handle: it creates a temporary key in _delta_log twice);
   * without it such a store is refused with the reason. */
  bool single_writer;
  /* Version 2: threads decoding the log side by side when this handle loads a
   * snapshot (the parts of a multi-part checkpoint, a v2 checkpoint's sidecars,
   * the commits after the checkpoint; applied in log order, so the snapshot is
   * the same whatever the count) and encoding a v2 checkpoint's sidecars when
   * it writes one (their bytes are the same too). 0 or 1: everything on the
   * caller's thread, no thread made. On object stores each task reads or writes
   * through a storage handle of its own. */
  int32_t threads;
} inlet_table_open_options;

/* 2: threads; a version-1 struct, which ends before it, is still accepted (one thread). */
#define INLET_TABLE_OPEN_OPTIONS_VERSION 2
#define INLET_TABLE_OPEN_OPTIONS_INIT                                                              \
  { INLET_TABLE_OPEN_OPTIONS_VERSION, NULL, false, 0 }

/**
 * inlet_table_open for a location: a local path, "file:///abs/path",
 * "s3://bucket/prefix", "az://container/prefix" or
 * "abfss://container@account.dfs.core.windows.net/prefix" (include/inlet/storage.h).
 * Every read and write of the table goes through that location's storage.
 * @p options may be NULL. Same return codes, plus INLET_EINVAL for a bad URL
 * or missing credentials.
 */
INLET_API int inlet_table_open_with(inlet_table **out, const char *location,
                                    const inlet_table_open_options *options, inlet_error *err);

/** inlet_table_create for a location (see inlet_table_open_with). */
INLET_API int inlet_table_create_with(inlet_table **out, const char *location,
                                      const inlet_schema *schema,
                                      const inlet_table_create_options *options,
                                      const inlet_table_open_options *open_options,
                                      inlet_error *err);

/** Frees the handle. NULL-safe. */
INLET_API void inlet_table_free(inlet_table *table);

/** The table's directory or URL as given to create/open. */
INLET_API const char *inlet_table_path(const inlet_table *table);

/**
 * Sets (or, with @p fn NULL, clears) the callback that long operations on this
 * handle report their progress to: inlet_table_compact, inlet_table_vacuum,
 * inlet_table_checkpoint and the automatic checkpoints of commits (see
 * inlet_progress in inlet/common.h). No progress is reported by default.
 */
INLET_API int inlet_table_set_progress(inlet_table *table, inlet_progress_fn fn, void *ctx,
                                       inlet_error *err);

/* ---- snapshots ------------------------------------------------------------ */

/**
 * Loads a consistent snapshot: the latest version, version @p version, or
 * the newest version committed at or before @p timestamp_ms. Commit
 * timestamps are Spark's: on a table with in-commit timestamps, each
 * commit's inCommitTimestamp from the enablement version on; otherwise the
 * commit file's modification time, monotonized (a commit whose file is not
 * newer than its predecessor's counts as 1 ms after it). History uses the
 * same timestamps.
 * @return 0, INLET_ENOTFOUND (no table, no such version or none that old),
 *         INLET_ECORRUPT (a gap in the commits, malformed log, no protocol
 *         or metaData), INLET_EUNSUPPORTED (reader version or feature inlet
 *         lacks, named in the message), INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_snapshot(inlet_snapshot **out, inlet_table *table, inlet_error *err);
INLET_API int inlet_table_snapshot_at_version(inlet_snapshot **out, inlet_table *table,
                                              int64_t version, inlet_error *err);
INLET_API int inlet_table_snapshot_at_timestamp(inlet_snapshot **out, inlet_table *table,
                                                int64_t timestamp_ms, inlet_error *err);
INLET_API void inlet_snapshot_free(inlet_snapshot *snapshot);

INLET_API int64_t inlet_snapshot_version(const inlet_snapshot *s);
/** Commit timestamp of the snapshot's version, ms since the epoch. */
INLET_API int64_t inlet_snapshot_timestamp(const inlet_snapshot *s);
/** The table schema, partition columns included, in schemaString order.
 * Empty for log-only tables whose metaData has no schemaString. */
INLET_API const inlet_schema *inlet_snapshot_schema(const inlet_snapshot *s);
INLET_API int32_t inlet_snapshot_num_partition_columns(const inlet_snapshot *s);
INLET_API const char *inlet_snapshot_partition_column(const inlet_snapshot *s, int32_t i);
/** metaData.configuration value of @p key, or NULL. */
INLET_API const char *inlet_snapshot_property(const inlet_snapshot *s, const char *key);
INLET_API const char *inlet_snapshot_table_id(const inlet_snapshot *s);
/** Last version recorded by appId @p app_id (txn action), or -1. */
INLET_API int64_t inlet_snapshot_txn_version(const inlet_snapshot *s, const char *app_id);

/** One live data file. */
typedef struct inlet_file_info {
  const char *path;          /* decoded, relative to the table directory */
  int64_t size;              /* bytes */
  int64_t modification_time; /* ms */
  int64_t num_records;       /* from stats, -1 when unknown */
  const char *stats;         /* raw add.stats JSON, or NULL */
} inlet_file_info;

INLET_API int64_t inlet_snapshot_num_files(const inlet_snapshot *s);
/** Fills @p out for file @p i (0 <= i < num_files), sorted by path. */
INLET_API void inlet_snapshot_file(const inlet_snapshot *s, int64_t i, inlet_file_info *out);
/** Partition value of file @p i for @p column: the stored string, or NULL
 * for a null (or when @p column is not a partition column). */
INLET_API const char *inlet_snapshot_file_partition_value(const inlet_snapshot *s, int64_t i,
                                                          const char *column);

/* ---- appends ---------------------------------------------------------------- */

typedef struct inlet_append_options {
  int version;              /* INLET_APPEND_OPTIONS_VERSION */
  int64_t expected_version; /* >= 0: strict mode, commit only if the table is still at
                               this version (else INLET_ECONFLICT); -1: latest, and
                               retry automatically after non-conflicting commits */
  const char *app_id;       /* with app_version: record a txn action (exactly-once
                               progress for streams); NULL for none */
  int64_t app_version;
  const char *operation;         /* commitInfo.operation; NULL = "WRITE" */
  inlet_compression compression; /* data file codec; default SNAPPY */
  int max_attempts;              /* commit attempts before giving up with INLET_ECONFLICT
                                    (concurrent commits won each one); 0 = 1000 */
  /* Stream fields, zero = off. Kept for source compatibility and still honoured:
   * inlet's own ingester no longer uses them (it passes the same settings through
   * an internal interface), so new fields of this kind are not added here. */
  bool app_version_must_increase; /* writer_open fails with INLET_ECONFLICT when the snapshot
                                     already records app_version (or more) for app_id: the
                                     batch was committed before */
  int32_t n_extra_txns;           /* more txn actions in the same commit (e.g. a stream's
                                     source position), each checked like app_id on retry.
                                     These three arrays/strings are read at commit time:
                                     keep them valid (and update them) until then */
  const char *const *extra_txn_app_ids;
  const int64_t *extra_txn_versions;
  const char *extra_metrics_json;  /* JSON object merged into commitInfo.operationMetrics */
  bool computes_generated_columns; /* the caller fills generated columns itself: tables with
                                      the generatedColumns writer feature (or legacy writer
                                      version 3/4 without CHECK constraints or change data
                                      feed) are accepted */
  /* Version 2: threads encoding and compressing the data files' column chunks in
   * parallel (started at writer_open, joined at free); 0 or 1 (the default): none,
   * everything on the caller's thread. The files' bytes do not depend on it. */
  int32_t threads;
} inlet_append_options;

/* 2: threads; a version-1 struct, which ends before it, is still accepted (one thread). */
#define INLET_APPEND_OPTIONS_VERSION 2
#define INLET_APPEND_OPTIONS_INIT                                                                  \
  {                                                                                                \
    INLET_APPEND_OPTIONS_VERSION, -1, NULL, 0, NULL, INLET_COMPRESSION_SNAPPY, 0, false, 0, NULL,  \
        NULL, NULL, false, 0                                                                       \
  }

/**
 * Starts a transaction appending rows. Batches written to it become Parquet
 * data files named as Delta writers name them
 * (`[col=value/...]part-00000-<uuid>-c000.snappy.parquet`), each with
 * add.stats; nothing is visible until commit. @p options may be NULL.
 * @return 0, INLET_ENOTFOUND, INLET_ECORRUPT, INLET_EUNSUPPORTED (writer
 *         version or feature inlet lacks, or a column invariant or CHECK
 *         constraint inlet cannot evaluate; the message names it),
 *         INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_writer_open(inlet_table_writer **out, inlet_table *table,
                                      const inlet_append_options *options, inlet_error *err);
/**
 * Writes the rows of @p batch, whose columns must match the table schema
 * (names and types, partition columns included, in schema order). Every
 * row must meet the table's column invariants (`delta.invariants`) and
 * CHECK constraints (`delta.constraints.*`): an expression that is FALSE
 * or NULL for a row refuses the batch, nothing of it written, with a
 * message naming the constraint, its expression, the row (counted over the
 * rows of this transaction, from 1) and the values the expression reads.
 * A row whose partition values cannot name a directory (see
 * inlet_table_writer_check_row) fails the whole batch before any file is
 * created ("row N: ..."); the writer stays usable.
 * @return 0, INLET_EINVAL (schema mismatch, null in a NOT NULL column, a
 *         violated constraint, bad partition value), INLET_EUNSUPPORTED,
 *         INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_writer_write(inlet_table_writer *w, const inlet_batch *batch,
                                       inlet_error *err);
/**
 * Checks that row @p row of @p batch can be written: its partition values
 * name a directory that can exist. Refused, with the column in the reason:
 * a string value holding a NUL byte or invalid UTF-8, a directory name
 * "column=value" over 255 bytes once Hive-escaped as Spark escapes it, a data
 * file path of 4096 bytes or more (docs/INGEST.md "Partition values").
 * Callers that take records one by one (ingest, append) use it to reject the
 * one record instead of failing the batch.
 * @return 0, INLET_EINVAL (reason in @p err), INLET_ENOMEM.
 */
INLET_API int inlet_table_writer_check_row(const inlet_table_writer *w, const inlet_batch *batch,
                                           int64_t row, inlet_error *err);
/**
 * Schema evolution (`--schema-evolution add`, docs/INGEST.md "Schema
 * evolution"): the fields of the JSON object @p record (@p len bytes) that
 * the writer's table schema lacks, at the top level and inside struct
 * columns, become nullable columns (struct fields) with types inferred from
 * their values; null, {} and [] add nothing. *@p added (may be NULL) counts
 * them. When any was added, the writer's open data files are closed with the
 * old columns, later batches have the new schema (inlet_table_writer_schema)
 * and the commit carries a metaData action with it; a concurrent metaData
 * change makes the commit fail with INLET_ECONFLICT. On a column-mapping
 * table each new column and struct field (at any depth) gets a fresh
 * delta.columnMapping.id and a "col-<uuid>" physical name, as Spark assigns
 * them, and delta.columnMapping.maxColumnId follows.
 * @return 0, INLET_EINVAL (a new field cannot become a column: a name Delta
 *         refuses, a case-insensitive clash with a column; the message names
 *         the field), INLET_ECORRUPT (the record is not one JSON object with
 *         distinct keys),
 *         INLET_ENOMEM.
 */
INLET_API int inlet_table_writer_evolve(inlet_table_writer *w, const char *record, size_t len,
                                        int32_t *added, inlet_error *err);
/**
 * Type widening (`--schema-evolution add` on a table whose protocol lists
 * typeWidening and whose delta.enableTypeWidening is true; docs/INGEST.md
 * "Schema evolution"): the integer columns and fields (also inside structs,
 * arrays and maps) whose value in the JSON object @p record is out of their
 * type's range become the narrowest of short/integer/long that holds it, a
 * float one whose value is beyond a float's range becomes double; the
 * commit's metaData records each change in delta.typeChanges. *@p widened
 * (may be NULL) counts them; 0 on a table that does not allow widening
 * (its records stay bad records naming the column). Open data files are
 * closed in the old types, as inlet_table_writer_evolve does.
 * @return 0, INLET_ELIMIT (a record that widens more than 64 types at once),
 *         INLET_ENOMEM.
 */
INLET_API int inlet_table_writer_widen(inlet_table_writer *w, const char *record, size_t len,
                                       int32_t *widened, inlet_error *err);
/** The writer's table schema (changed by inlet_table_writer_evolve and _widen). */
INLET_API const inlet_schema *inlet_table_writer_schema(const inlet_table_writer *w);
/**
 * Closes the data files (fsynced) and commits them as one transaction.
 * @p version (may be NULL) receives the committed version.
 * @return 0, INLET_ECONFLICT (kind in the message; also when concurrent commits
 *         won every one of max_attempts attempts), INLET_EIO, INLET_ECORRUPT,
 *         INLET_ENOMEM.
 */
INLET_API int inlet_table_writer_commit(inlet_table_writer *w, int64_t *version, inlet_error *err);
/** Rows written so far. */
INLET_API int64_t inlet_table_writer_rows(const inlet_table_writer *w);
/** Bytes of the data files closed so far: all of the transaction's after a commit. */
INLET_API int64_t inlet_table_writer_bytes(const inlet_table_writer *w);
/** Frees the writer; data files of an uncommitted transaction are removed. NULL-safe. */
INLET_API void inlet_table_writer_free(inlet_table_writer *w);

/** Convenience: open a writer, write @p n batches, commit. */
INLET_API int inlet_table_append(inlet_table *table, const inlet_batch *batches, size_t n,
                                 const inlet_append_options *options, int64_t *version,
                                 inlet_error *err);

/* ---- scans ------------------------------------------------------------------ */

/**
 * Deprecated: use inlet_scan_open (include/inlet/scan.h), the one scan API,
 * which also projects, filters, prunes and limits. These three are kept for
 * existing callers as a thin wrapper over it: inlet_table_scan_open is
 * inlet_scan_open with NULL options (every row and column).
 *
 * Iterates the rows of a snapshot, one batch per data file row group, with
 * the snapshot schema (partition columns filled from the log, columns a file
 * lacks filled with nulls). @return 0, INLET_EUNSUPPORTED (e.g. a log-only
 * table without schema), INLET_ENOMEM.
 */
INLET_API int inlet_table_scan_open(inlet_table_scan **out, const inlet_snapshot *s,
                                    inlet_error *err);
/**
 * Fills @p batch (zeroed, or filled by a previous call) with the next rows.
 * @return 1 with rows, 0 at the end, or INLET_ENOTFOUND (data file
 *         missing), INLET_ECORRUPT, INLET_EUNSUPPORTED, INLET_EIO,
 *         INLET_ENOMEM.
 */
INLET_API int inlet_table_scan_next(inlet_table_scan *scan, inlet_batch *batch, inlet_error *err);
INLET_API void inlet_table_scan_free(inlet_table_scan *scan);

/* ---- checkpoints ------------------------------------------------------------------ */

/**
 * Writes a classic checkpoint of the latest version (every field of every
 * action; typed stats when delta.checkpoint.writeStatsAsStruct is true) and
 * updates `_delta_log/_last_checkpoint`. @p version (may be NULL) receives
 * the latest version. A checkpoint of that version that already exists
 * (classic, multi-part or v2, by any writer) is never replaced: nothing is
 * written and INLET_EEXISTS is returned; the checkpoint itself is published
 * with put-if-absent, so a concurrent writer's wins the same way.
 * @return 0, INLET_EEXISTS, INLET_EUNSUPPORTED (deletion vectors),
 *         INLET_ENOTFOUND, INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_checkpoint(inlet_table *table, int64_t *version, inlet_error *err);

/* ---- history and describe ------------------------------------------------------ */

typedef struct inlet_history_entry {
  int64_t version;
  int64_t timestamp_ms;   /* inCommitTimestamp, else the commit file's mtime (as --as-of) */
  char *operation;        /* owned, NULL without commitInfo */
  char *parameters_json;  /* owned operationParameters object, or NULL */
  char *metrics_json;     /* owned operationMetrics object, or NULL */
  char *commit_info_json; /* owned whole commitInfo, or NULL */
} inlet_history_entry;

/**
 * Commits of the table, newest first, at most @p limit (<= 0: all present
 * on disk). @return 0, INLET_ENOTFOUND, INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_history(inlet_history_entry **out, size_t *n, inlet_table *table,
                                  int64_t limit, inlet_error *err);
INLET_API void inlet_history_free(inlet_history_entry *entries, size_t n);

/** One commit as inlet_table_commits streams it: what the log says, no data file read. */
typedef struct inlet_commit_summary {
  int64_t version;
  int64_t timestamp_ms;         /* as inlet_table_history */
  const char *operation;        /* commitInfo.operation, NULL without commitInfo */
  const char *metrics_json;     /* operationMetrics object text, or NULL */
  const char *parameters_json;  /* operationParameters object text, or NULL */
  int64_t files_added;          /* add actions */
  int64_t files_removed;        /* remove actions */
  int64_t bytes_added;          /* sum of add.size */
  int64_t bytes_removed;        /* sum of remove.size (removes without a size count 0) */
  int64_t rows_added;           /* sum of the adds' add.stats numRecords; -1 when one lacks it */
  int64_t removes_without_size; /* removes whose size is absent */
  int64_t latest_deletion_ms;   /* newest remove.deletionTimestamp, -1 when none */
  int64_t oldest_deletion_ms;   /* oldest remove.deletionTimestamp, -1 when none */
  bool compaction;              /* as inlet_table_description.compactions counts it */
  bool metadata;                /* holds a metaData action */
  bool protocol;                /* holds a protocol action */
} inlet_commit_summary;

/** Called once per commit; returning nonzero stops the walk with that code. The strings are
 * lent for the call only. */
typedef int (*inlet_commit_fn)(void *ctx, const inlet_commit_summary *c, inlet_error *err);

/**
 * Streams a summary of every commit file on disk to @p fn, newest first (the order and
 * timestamps of inlet_table_history), one commit in memory at a time: reports and
 * dashboards walk a long log without holding it. @p n_commits (may be NULL) receives the
 * number of commit files listed, before the first call.
 * @return 0, what @p fn returned, INLET_ENOTFOUND, INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_commits(inlet_table *table, inlet_commit_fn fn, void *ctx,
                                  int64_t *n_commits, inlet_error *err);

/** delta.deletedFileRetentionDuration of @p s in ms (default 7 days): how long vacuum keeps a
 * removed file, so how far back time travel stays readable after a vacuum. */
INLET_API int64_t inlet_snapshot_deleted_file_retention_ms(const inlet_snapshot *s);

typedef struct inlet_table_description {
  int64_t version;
  int64_t commits;               /* commit files on disk up to version */
  int64_t compactions;           /* OPTIMIZE commits (inlet's compaction among them); without
                                    commitInfo, commits that only rewrite files */
  int64_t last_commit_timestamp; /* ms */
  int64_t files;
  int64_t bytes;
  int64_t rows;                /* sum of add.stats numRecords; -1 (unknown) when a file
                                  has none */
  int64_t files_without_stats; /* live files whose add.stats has no numRecords */
  int64_t small_files;         /* files below small_file_bytes */
  int64_t small_file_bytes;    /* delta.targetFileSize, default 128 MiB */
  int64_t partitions;          /* distinct partition value tuples */
  int64_t last_checkpoint;     /* version, -1 when none */
} inlet_table_description;

/**
 * Describes the latest snapshot from the log alone (no data file is read),
 * also for tables whose reader features inlet cannot scan (variant,
 * geospatial, bad column mapping metadata, ...). @p json (may be NULL) receives the
 * description as a JSON object (keys version, commits, compactions,
 * last_commit_timestamp, files, bytes, rows (null when unknown),
 * files_without_stats, small_files, partitions, partition_columns,
 * last_checkpoint, table_id, schema, schema_ddl (null when inlet cannot read
 * a type), properties, protocol), freed with inlet_string_free.
 */
INLET_API int inlet_table_describe(inlet_table *table, inlet_table_description *out, char **json,
                                   inlet_error *err);

/**
 * inlet_table_describe of snapshot @p s (its version; the numbers of `describe` when @p s is
 * the latest), reading each commit up to that version once: the same read also streams each
 * commit's summary to @p fn (may be NULL), as inlet_table_commits would, so a report needs
 * one replay and one pass over the commits instead of four.
 * @return 0, what @p fn returned, INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_snapshot_describe(inlet_snapshot *s, inlet_table_description *out, char **json,
                                      inlet_commit_fn fn, void *ctx, inlet_error *err);

#ifdef __cplusplus
}
#endif

#endif /* INLET_TABLE_H */
