/*
 * Table maintenance: compaction (OPTIMIZE), vacuum and log cleanup, the
 * operations that keep a streaming table healthy while ingestion goes on.
 *
 * Spec: delta-io/delta PROTOCOL.md "Add File and Remove File" (removes with
 * dataChange=false for rewrites), "Commit Provenance Information"
 * (operation OPTIMIZE, operationParameters, operationMetrics), "Checkpoints"
 * and "Metadata Cleanup" (log entries older than
 * delta.logRetentionDuration may go once a checkpoint covers them),
 * "Table Properties" (delta.deletedFileRetentionDuration, delta.targetFileSize).
 *
 * Safety: compaction reads one snapshot and commits later; concurrent
 * appends never make it fail (it rebases), a concurrent removal of one of
 * its input files makes that group fail cleanly (its new files deleted, the
 * table untouched) while the other groups proceed, and two compactors can
 * never both remove the same file (the commit protocol refuses the second).
 * Vacuum judges committed files from remove timestamps in the log; only
 * files the log never mentions (debris of crashed writers) are judged by
 * modification time.
 *
 * Thread safety: as include/inlet/table.h (one thread per handle).
 */
#ifndef INLET_MAINT_H
#define INLET_MAINT_H

#include "inlet/common.h"
#include "inlet/error.h"
#include "inlet/parquet.h"
#include "inlet/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- compaction -------------------------------------------------------------- */

/** One bin of files rewritten together (reported through on_group). */
typedef struct inlet_compact_group {
  const char *partition; /* "day=2024-01-01/kind=a" style, "" when unpartitioned */
  int64_t n_inputs;      /* files read */
  int64_t input_bytes;
  int64_t n_outputs; /* files written (0 in dry-run or on failure) */
  int64_t output_bytes;
  int64_t rows;
  int64_t version;     /* committed version; -1 for dry-run, failed, or not yet committed */
  int status;          /* 0, or the INLET_E* code that made this group fail */
  const char *message; /* failure detail, NULL when status is 0 */
} inlet_compact_group;

typedef void (*inlet_compact_group_fn)(void *ctx, const inlet_compact_group *g);

typedef struct inlet_compact_options {
  int version;         /* INLET_COMPACT_OPTIONS_VERSION */
  int64_t target_size; /* bytes; 0 = delta.targetFileSize property, else 128 MiB */
  int32_t min_files;   /* small files a partition needs before it is rewritten;
                          0 = inlet.compaction.minFiles property, else 8 */
  const char *where;   /* partition predicate in the language of scan --where
                          (inlet/scan.h) over partition columns only; NULL = every
                          partition */
  int32_t n_sort_by;   /* sort rows by these data columns, ascending, nulls first,
                          within each output row group (bounded memory) */
  const char *const *sort_by;
  int32_t bins_per_commit;         /* bins committed together; 0 = 1 */
  bool dry_run;                    /* plan and report only */
  int64_t row_group_bytes;         /* output row group target = memory bound of the writer;
                                      0 = min(target_size, 64 MiB) */
  inlet_compression compression;   /* output codec; default SNAPPY */
  int64_t max_bins;                /* stop after this many bins; 0 = no limit */
  inlet_compact_group_fn on_group; /* called after each group (may be NULL) */
  void *ctx;
  /* Version 2: threads rewriting bins side by side (up to this many commits' bins at
   * once, fewer when their estimated memory would pass 160 MiB; on object stores
   * each through a storage handle of its own)
   * and encoding and compressing the output files' column chunks in parallel; 0 or 1
   * (the default): none, everything on the caller's thread. Commits are still made
   * one after another in plan order, and the output files' bytes, the commits' actions
   * and their order do not depend on it. */
  int32_t threads;
} inlet_compact_options;

/* 2: threads; a version-1 struct, which ends before it, is still accepted (one thread). */
#define INLET_COMPACT_OPTIONS_VERSION 2
#define INLET_COMPACT_OPTIONS_INIT                                                                 \
  {                                                                                                \
    INLET_COMPACT_OPTIONS_VERSION, 0, 0, NULL, 0, NULL, 0, false, 0, INLET_COMPRESSION_SNAPPY, 0,  \
        NULL, NULL, 0                                                                              \
  }

typedef struct inlet_compact_result {
  int64_t read_version;  /* snapshot the plan was made from */
  int64_t partitions;    /* partitions with enough small files */
  int64_t bins;          /* bins planned (dry-run) or attempted */
  int64_t commits;       /* OPTIMIZE commits made */
  int64_t failed_groups; /* groups dropped after a conflict or error */
  int64_t files_removed, files_added;
  int64_t bytes_removed, bytes_added;
  int64_t rows;         /* rows rewritten */
  int64_t last_version; /* newest version committed, -1 when none */
} inlet_compact_result;

/**
 * Compacts the small files of @p table (see the file comment). Each commit
 * is an OPTIMIZE: remove actions (dataChange=false, deletionTimestamp,
 * partitionValues, size, stats) for exactly the files read, add actions
 * with fresh stats, operationMetrics numRemovedFiles, numAddedFiles,
 * numRemovedBytes, numAddedBytes, numOutputRows. Row counts of inputs and
 * outputs are compared before committing. A group that fails (conflict,
 * corrupt input) is reported through on_group and counted in
 * failed_groups; the call still returns 0 unless nothing could be done
 * for a reason affecting the whole table. @p out may be NULL.
 * @return 0, INLET_EINVAL (bad predicate, unknown sort column),
 *         INLET_ENOTFOUND, INLET_ECORRUPT, INLET_EUNSUPPORTED, INLET_EIO,
 *         INLET_ENOMEM.
 */
INLET_API int inlet_table_compact(inlet_compact_result *out, inlet_table *table,
                                  const inlet_compact_options *options, inlet_error *err);

/* ---- vacuum -------------------------------------------------------------------- */

typedef void (*inlet_vacuum_file_fn)(void *ctx, const char *path, int64_t size);

typedef struct inlet_vacuum_options {
  int version;                  /* INLET_VACUUM_OPTIONS_VERSION */
  int64_t retain_ms;            /* retention window; < 0 = delta.deletedFileRetentionDuration,
                                   else 7 days */
  bool force;                   /* allow a window shorter than 7 days */
  bool dry_run;                 /* list, delete nothing */
  int64_t now_ms;               /* clock for tests; 0 = now */
  inlet_vacuum_file_fn on_file; /* each file deleted (or that would be); may be NULL */
  void *ctx;
  /* Version 2: */
  inlet_vacuum_file_fn on_symlink; /* each symbolic link left alone; may be NULL */
} inlet_vacuum_options;

/* Version 1 (without on_symlink, and a result without symlinks) is still
 * accepted. */
#define INLET_VACUUM_OPTIONS_VERSION 2
#define INLET_VACUUM_OPTIONS_INIT                                                                  \
  { INLET_VACUUM_OPTIONS_VERSION, -1, false, false, 0, NULL, NULL, NULL }

typedef struct inlet_vacuum_result {
  int64_t files; /* files deleted (or to delete in dry-run) */
  int64_t bytes;
  int64_t tombstoned; /* of which removed by a commit older than the window */
  int64_t debris;     /* of which never committed (judged by mtime), temp files included */
  int64_t kept;       /* non-live files kept because they are inside the window */
  int64_t symlinks;   /* symbolic links left alone (version 2 options) */
} inlet_vacuum_result;

/** Temp files of killed writers in `_delta_log/` (`.tmp-*`), and on S3 the
 * table's incomplete multipart uploads, are removed (aborted) by vacuum and
 * log cleanup once this old: a live writer's temp file or upload lives for
 * the seconds or minutes of one commit, data file or checkpoint. */
#define INLET_LOG_TEMP_MAX_AGE_MS (24LL * 3600 * 1000)

/**
 * Deletes data files no snapshot inside the retention window can read:
 * files removed by a commit whose deletionTimestamp is older than now -
 * retain, and files the log does not mention at all (uncommitted debris,
 * abandoned temp files) whose modification time is older than now - retain.
 * Live files are never touched, nor anything under a path component that
 * starts with '_' or '.' (_delta_log, _errors, ...), nor deletion vector
 * files, except `_delta_log/.tmp-*` files older than
 * INLET_LOG_TEMP_MAX_AGE_MS (debris of killed writers); on S3 also the
 * incomplete multipart uploads below the table initiated longer ago than
 * that are aborted, each reported to on_file with size 0 and counted in
 * files and debris. A symbolic link is
 * never followed nor deleted, whatever it points at: each one is reported
 * to on_symlink and counted in symlinks. @p out may be NULL.
 * @return 0, INLET_EINVAL (window below 7 days without force, unknown
 *         options version), INLET_ENOTFOUND, INLET_ECORRUPT, INLET_EIO,
 *         INLET_ENOMEM.
 */
INLET_API int inlet_table_vacuum(inlet_vacuum_result *out, inlet_table *table,
                                 const inlet_vacuum_options *options, inlet_error *err);

/* ---- log cleanup ------------------------------------------------------------------ */

typedef struct inlet_log_cleanup_options {
  int version;       /* INLET_LOG_CLEANUP_OPTIONS_VERSION */
  int64_t retain_ms; /* < 0 = delta.logRetentionDuration, else 30 days */
  int64_t now_ms;    /* clock for tests; 0 = now */
  bool dry_run;
} inlet_log_cleanup_options;

#define INLET_LOG_CLEANUP_OPTIONS_VERSION 1
#define INLET_LOG_CLEANUP_OPTIONS_INIT                                                             \
  { INLET_LOG_CLEANUP_OPTIONS_VERSION, -1, 0, false }

typedef struct inlet_log_cleanup_result {
  int64_t commits_removed;
  int64_t checkpoints_removed;
  int64_t oldest_kept; /* oldest version still reconstructible, -1 when nothing changed */
} inlet_log_cleanup_result;

/**
 * Removes commit files and checkpoints older than the log retention window,
 * but only below the newest checkpoint whose version is itself older than
 * the window (so every version inside the window stays reconstructible:
 * that checkpoint plus the commits after it). Transaction positions live in
 * the checkpoint and survive. Removal goes oldest first, so a crash midway
 * leaves a log with an intact suffix. Also removes the debris of killed
 * writers older than INLET_LOG_TEMP_MAX_AGE_MS: `_delta_log/.tmp-*` files
 * and, on S3, the table's incomplete multipart uploads. @p out may be NULL.
 * @return 0, INLET_ENOTFOUND, INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_cleanup_log(inlet_log_cleanup_result *out, inlet_table *table,
                                      const inlet_log_cleanup_options *options, inlet_error *err);

/**
 * Parses a duration into milliseconds (sub-millisecond parts dropped): whole
 * numbers with units, us|ms|s|m|h|d|w or their words (sec, minutes, hours,
 * days, weeks, ...), terms adding up ("1h30m"), and Delta's table property
 * form "interval 7 days". A bare number is an error: units are required.
 * The one grammar of every duration inlet reads (docs/VALUES.md).
 * @return 0, INLET_EINVAL.
 */
INLET_API int inlet_duration_parse(int64_t *out_ms, const char *text, inlet_error *err);

/* ---- restore ------------------------------------------------------------------- */

typedef struct inlet_restore_options {
  int version;             /* INLET_RESTORE_OPTIONS_VERSION */
  int64_t to_version;      /* >= 0: the version to restore */
  int64_t to_timestamp_ms; /* when to_version < 0: the newest version committed at or
                              before this time (as inlet_table_snapshot_at_timestamp) */
  bool dry_run;            /* compute and report, commit nothing */
  int32_t max_attempts;    /* commits lost to concurrent writers before giving up
                              (INLET_ECONFLICT); each attempt recomputes from the new
                              latest version; 0 = 10 */
} inlet_restore_options;

#define INLET_RESTORE_OPTIONS_VERSION 1
#define INLET_RESTORE_OPTIONS_INIT                                                                 \
  { INLET_RESTORE_OPTIONS_VERSION, -1, 0, false, 0 }

typedef struct inlet_restore_result {
  int64_t read_version;     /* latest version the (last) attempt read */
  int64_t restored_version; /* the version whose state the table returns to */
  int64_t version;          /* the RESTORE commit; -1 in dry-run */
  int64_t files_restored;   /* files of restored_version added back */
  int64_t bytes_restored;
  int64_t files_removed; /* live files restored_version did not have */
  int64_t bytes_removed;
  int64_t files_after; /* live files and bytes after the restore (= restored_version's) */
  int64_t bytes_after;
  bool metadata_restored; /* the schema or properties went back too */
  int32_t attempts;       /* commit attempts made (> 1: concurrent commits won before) */
} inlet_restore_result;

/**
 * Returns the table to the state of an earlier version with one RESTORE
 * commit (Spark's RESTORE TABLE ... TO VERSION AS OF / TIMESTAMP AS OF):
 * the files of that version that are no longer live are added back
 * (dataChange=true, as they were: stats, deletion vectors, tags), the live
 * files it did not have are removed (dataChange=true), and its metaData
 * (schema, partitioning, properties) comes back when it differs. The
 * protocol is never downgraded. Before committing, every file to add back
 * (and its deletion vector file) must exist: a restore whose files were
 * vacuumed is refused with INLET_ENOTFOUND naming the missing files. The
 * commit must land right after the version it read; a concurrent commit
 * makes it start over from the new latest version, up to max_attempts
 * times. Recorded in history as operation RESTORE with Spark's parameters
 * (version or timestamp) and metrics (numRestoredFiles, restoredFilesSize,
 * numRemovedFiles, removedFilesSize, numOfFilesAfterRestore,
 * tableSizeAfterRestore). @p out may be NULL.
 * @return 0, INLET_EINVAL (the version is not older than the latest, bad
 *         options, an append-only table), INLET_ENOTFOUND (no such version,
 *         log entries cleaned up, files vacuumed), INLET_ECONFLICT (lost every
 *         attempt), INLET_ECORRUPT, INLET_EUNSUPPORTED (a writer feature inlet
 *         does not honour for restores, named), INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_restore(inlet_restore_result *out, inlet_table *table,
                                  const inlet_restore_options *options, inlet_error *err);

typedef struct inlet_row_tracking_result {
  int64_t protocol_version; /* the UPGRADE PROTOCOL commit adding rowTracking; -1 none */
  int64_t backfill_version; /* the last ROW TRACKING BACKFILL commit; -1 none */
  int64_t files_backfilled; /* live files that got baseRowId and defaultRowCommitVersion */
  int64_t version;          /* the SET TBLPROPERTIES commit; -1 when already enabled */
  int32_t attempts;         /* commit attempts made (> 3: concurrent commits won some) */
} inlet_row_tracking_result;

/**
 * Turns row tracking on for an existing table, as Spark's ALTER TABLE ... SET
 * TBLPROPERTIES ('delta.enableRowTracking' = 'true') does (PROTOCOL.md "Row
 * Tracking", "Writer Requirements for Row Tracking"): when the protocol does
 * not support the rowTracking feature, an UPGRADE PROTOCOL commit adds it
 * (with domainMetadata; a legacy writer version becomes 7 listing the
 * features it implied), after which every commit assigns row ids to its new
 * files; then ROW TRACKING BACKFILL commits re-add every live file that has
 * no baseRowId (dataChange=false, everything else as it was) so that it gets
 * one and a defaultRowCommitVersion; finally a SET TBLPROPERTIES commit sets
 * delta.enableRowTracking=true and names the materialized row id and row
 * commit version columns (commitInfo tag rowTrackingEnablementOnly=true).
 * Each commit must land right after the version it read; a lost one starts
 * over from the new latest version, up to 10 times. A table that already
 * has row tracking enabled is left alone (version -1). @p out may be NULL.
 * @return 0, INLET_EINVAL (delta.rowTracking.suspended=true),
 *         INLET_EUNSUPPORTED (a writer feature inlet does not honour, a file
 *         without numRecords in its stats), INLET_ECONFLICT (lost every
 *         attempt), INLET_ENOTFOUND, INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_enable_row_tracking(inlet_row_tracking_result *out, inlet_table *table,
                                              inlet_error *err);

typedef struct inlet_set_properties_result {
  int64_t version;       /* the SET TBLPROPERTIES commit; -1 when every property was set already */
  bool protocol_changed; /* the commit grew the protocol (a feature the properties turn on) */
  int32_t attempts;      /* commit attempts made (> 1: concurrent commits won some) */
} inlet_set_properties_result;

/**
 * Sets the table properties @p keys[i] = @p values[i] (metaData.configuration)
 * of an existing table, as Spark's ALTER TABLE ... SET TBLPROPERTIES does:
 * one SET TBLPROPERTIES commit with the new metaData and, when a property
 * turns on a table feature the protocol lacks (delta.enableDeletionVectors,
 * delta.enableChangeDataFeed, delta.appendOnly, delta.feature.NAME=supported,
 * ...), the grown protocol (a legacy one becomes writer version 7 listing
 * every feature when no legacy version fits; features are never dropped).
 * Known delta.* keys are checked and stored under their canonical spelling;
 * keys outside the delta. namespace are stored as given, except "comment",
 * which sets metaData.description as Spark's catalog does ("location" and
 * "provider" are INLET_EINVAL). A commit that loses
 * to a concurrent one is made again on the new latest version.
 * @return 0; INLET_EINVAL (an unknown delta.* key, a bad value, a key given
 *         twice), INLET_EUNSUPPORTED (the table has a writer feature inlet
 *         does not implement, or the property needs more than a metaData
 *         commit: CHECK constraints, column mapping, in-commit timestamps,
 *         Iceberg compatibility, delta.enableRowTracking=true - use
 *         inlet_table_enable_row_tracking; the message names it),
 *         INLET_ECONFLICT (lost every attempt), INLET_ENOTFOUND,
 *         INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_table_set_properties(inlet_set_properties_result *out, inlet_table *table,
                                         const char *const *keys, const char *const *values,
                                         int32_t n, inlet_error *err);

/**
 * Removes the table properties @p keys (metaData.configuration) of an
 * existing table, as Spark's ALTER TABLE ... UNSET TBLPROPERTIES [IF EXISTS]
 * does: one UNSET TBLPROPERTIES commit with the metaData without them. Keys
 * in the delta. namespace match whatever their case, others exactly. The
 * protocol is left as it is: a feature a removed property turned on stays
 * supported (delta.enableDeletionVectors removed: deletion vectors already
 * written still apply, deletes rewrite files again). Removing a
 * delta.constraints.NAME key drops that CHECK constraint; "comment" clears
 * metaData.description. A commit that
 * loses to a concurrent one is made again on the new latest version. When
 * no key is set (and @p if_exists) nothing is committed (version -1).
 * @return 0; INLET_ENOTFOUND (a key that is not set, unless @p if_exists;
 *         nothing is committed), INLET_EINVAL (a key given twice, not
 *         UTF-8), INLET_EUNSUPPORTED (the table has a writer feature inlet
 *         does not implement, or removing the key needs work inlet does not
 *         do or writers rely on it: column mapping, in-commit timestamps, row
 *         tracking's materialized column names, Iceberg compatibility,
 *         delta.feature.*, protocol versions; the message names it),
 *         INLET_ECONFLICT (lost every attempt), INLET_ECORRUPT, INLET_EIO,
 *         INLET_ENOMEM.
 */
INLET_API int inlet_table_unset_properties(inlet_set_properties_result *out, inlet_table *table,
                                           const char *const *keys, int32_t n, bool if_exists,
                                           inlet_error *err);

#ifdef __cplusplus
}
#endif

#endif /* INLET_MAINT_H */
