/*
 * Row deletion: `inlet delete TABLE --where PRED`.
 *
 * Spec: delta-io/delta PROTOCOL.md "Deletion Vectors" (a file's deleted
 * rows named by a deletion vector; the remove of the old add carries the
 * old descriptor, the new add the new one), "Deletion Vector Format",
 * "Deletion Vector File Storage Format", "Add File and Remove File"
 * (dataChange=true), "Commit Provenance Information" (operation DELETE).
 *
 * On a table with delta.enableDeletionVectors=true, matching rows are
 * marked in a new deletion vector per file (merged with the file's existing
 * one) stored in one new deletion_vector_<uuid>.bin per commit; otherwise
 * the files holding matching rows are rewritten without them
 * (copy-on-write). A file whose partition values alone satisfy the
 * predicate, or all of whose rows end up deleted, is removed whole. Files
 * with no matching row are not touched; those whose add.stats (min/max,
 * null counts) or partition values show no row can match are not even read
 * (data skipping, as scans do it).
 *
 * Concurrency: files appended meanwhile never conflict (the delete commits
 * on top of them; their rows are not deleted: Spark's WriteSerializable).
 * A concurrent commit that removed one of the files the delete touches, or
 * changed metaData/protocol, is a conflict: the delete starts over on the
 * new snapshot up to max_attempts times, then fails with INLET_ECONFLICT
 * leaving the table untouched.
 *
 * Thread safety: as include/inlet/table.h (one thread per handle).
 */
#ifndef INLET_DELETE_H
#define INLET_DELETE_H

#include "inlet/common.h"
#include "inlet/error.h"
#include "inlet/parquet.h"
#include "inlet/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct inlet_delete_options {
  int version;                   /* INLET_DELETE_OPTIONS_VERSION */
  const char *where;             /* predicate in the language of scan --where; required */
  int32_t max_attempts;          /* evaluations after conflicts; 0 = 3 */
  inlet_compression compression; /* codec of rewritten files; default SNAPPY */
  /* Called by each attempt once its files are written, just before it
   * commits: the version it read and the files it changes (progress; may
   * be NULL). */
  void (*on_attempt)(void *ctx, int64_t read_version, int64_t files);
  void *ctx;
} inlet_delete_options;

#define INLET_DELETE_OPTIONS_VERSION 1
#define INLET_DELETE_OPTIONS_INIT                                                                  \
  { INLET_DELETE_OPTIONS_VERSION, NULL, 0, INLET_COMPRESSION_SNAPPY, NULL, NULL }

typedef struct inlet_delete_result {
  int64_t read_version;  /* snapshot the last attempt evaluated */
  int64_t version;       /* committed version, -1 when nothing matched */
  int64_t attempts;      /* evaluations (1 without conflicts) */
  int64_t deleted_rows;  /* numDeletedRows */
  int64_t removed_files; /* numRemovedFiles (files whose add is removed) */
  int64_t added_files;   /* numAddedFiles (rewritten files) */
  int64_t dvs_added;     /* numDeletionVectorsAdded (files that had none) */
  int64_t dvs_updated;   /* numDeletionVectorsUpdated (merged with an existing one) */
  int64_t dvs_removed;   /* numDeletionVectorsRemoved */
  int64_t copied_rows;   /* numCopiedRows (copy-on-write) */
  bool used_dvs;         /* the table has deletion vectors enabled */
  /* Data skipping: files whose rows were read to evaluate the predicate,
   * and files ruled out by the log alone (add.stats bounds and null counts,
   * partition values) and never opened. A partition-only predicate reads
   * none; files without stats are always read. */
  int64_t files_read;
  int64_t files_skipped;
} inlet_delete_result;

/**
 * Deletes the rows of @p table matching options->where (see the file
 * comment) in one DELETE commit with Spark's operationParameters
 * (predicate) and operationMetrics. Nothing is committed when no row
 * matches (version -1). @p out may be NULL.
 * @return 0, INLET_EINVAL (bad or missing predicate), INLET_ENOTFOUND
 *         (unknown column, missing data file), INLET_ECONFLICT,
 *         INLET_EUNSUPPORTED (a feature delete does not honour: appendOnly),
 *         INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM. On a table with
 *         delta.enableChangeDataFeed=true the deleted rows are also written
 *         to _change_data files (cdc actions), so `inlet changes` and Spark's
 *         table_changes see exactly them as deletes.
 */
INLET_API int inlet_table_delete(inlet_delete_result *out, inlet_table *table,
                                 const inlet_delete_options *options, inlet_error *err);

#ifdef __cplusplus
}
#endif

#endif /* INLET_DELETE_H */
