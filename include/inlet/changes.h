/*
 * Change data feed reads: the rows a range of versions inserted, deleted and
 * updated, as Spark's `table_changes(table, start, end)` returns them.
 *
 * Spec: delta-io/delta PROTOCOL.md "Add CDC File" and "Change Data Files"
 * (where a commit has cdc actions, its changes are the rows of those
 * _change_data/ files, whose _change_type column says insert, delete,
 * update_preimage or update_postimage, and its add and remove actions are
 * not changes; otherwise the rows of the files its add actions with
 * dataChange=true bring are inserts and those of the files its removes with
 * dataChange=true take away are deletes; commits with dataChange=false only,
 * such as compaction, change nothing), "Deletion Vectors" (an add and a
 * remove of the same file in one commit change only the rows whose deletion
 * state differs between the remove's and the add's deletion vector: rows
 * newly deleted are deletes, rows no longer deleted are inserts; an add or
 * remove with a deletion vector alone covers only the rows it keeps).
 *
 * Every row has the table's columns (its schema at the end version) then
 *   _change_type       string     insert | delete | update_preimage | update_postimage
 *   _commit_version    long       the commit's version
 *   _commit_timestamp  timestamp  the commit's inCommitTimestamp when it has one,
 *                                 else its commit file's modification time
 *                                 (monotonized as time travel does)
 * Rows of one commit come before those of the next; within a commit the
 * order is unspecified.
 *
 * Timestamps (Spark's table_changes with timestamp arguments): commits are
 * timed as time travel times them (in-commit timestamps from their
 * enablement version on, else monotonized commit file times). A start
 * timestamp selects the first version committed at or after it (the oldest
 * commit in the log when it is earlier than all); one after the latest
 * commit is INLET_ENOTFOUND. An end timestamp selects the last version
 * committed at or before it; one before the earliest version that can be
 * rebuilt, or after the latest commit, is INLET_ENOTFOUND. When both are
 * timestamps and fall between the same two commits the range is empty (no
 * rows; Spark returns an empty result), a start timestamp after the end
 * one, or any other range that ends before it starts, is INLET_EINVAL.
 *
 * Refusals follow Spark: every version of the range must have been written
 * with delta.enableChangeDataFeed=true (the start version's metaData and any
 * metaData committed inside the range), else INLET_EUNSUPPORTED naming the
 * version. A version whose commit file is gone (log cleanup) or beyond the
 * latest is INLET_ENOTFOUND.
 *
 * Schema changes (Spark's batch read in its default schema mode): rows are
 * read in the end version's schema. The start version's schema and every
 * schema a metaData inside the range sets must be read-compatible with it,
 * else INLET_EUNSUPPORTED naming the version: each of their columns (and
 * struct fields) still there by the same name, in the same type, not
 * turned from nullable to required; on a column-mapping table none renamed
 * or dropped (matched by physical name) and the partition columns the
 * same. Added columns read as null in the rows of earlier versions; a
 * widened type is a type change and refused, as Spark refuses it. (Spark
 * reads in the latest schema unless the query time-travels; inlet reads in
 * the end version's, so a column added after the range is not shown.)
 *
 * Thread safety: a changes reader is used by one thread at a time; it
 * borrows the table, which must outlive it.
 */
#ifndef INLET_CHANGES_H
#define INLET_CHANGES_H

#include "inlet/batch.h"
#include "inlet/common.h"
#include "inlet/error.h"
#include "inlet/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct inlet_changes_options {
  int version;                /* INLET_CHANGES_OPTIONS_VERSION */
  int64_t start_version;      /* first version whose changes are read (>= 0) */
  int64_t end_version;        /* last version, inclusive; -1 for the latest */
  int32_t n_columns;          /* 0: every column (table columns, then the three change columns) */
  const char *const *columns; /* output columns in this order, any of the above
                               * (exact name first, then case-insensitive) */
  /* Version 2: the range by commit time (ms since the epoch), as Spark's
   * startingTimestamp / endingTimestamp; INLET_CHANGES_NO_TIMESTAMP for
   * none. A start timestamp replaces start_version: the first version
   * committed at or after it. An end timestamp replaces end_version: the
   * last version committed at or before it. See the file comment. */
  int64_t start_timestamp_ms;
  int64_t end_timestamp_ms;
} inlet_changes_options;

#define INLET_CHANGES_NO_TIMESTAMP INT64_MIN
#define INLET_CHANGES_OPTIONS_VERSION 2
#define INLET_CHANGES_OPTIONS_INIT                                                                 \
  {                                                                                                \
    INLET_CHANGES_OPTIONS_VERSION, 0, -1, 0, NULL, INLET_CHANGES_NO_TIMESTAMP,                     \
        INLET_CHANGES_NO_TIMESTAMP                                                                 \
  }

/* The change types of PROTOCOL.md "Change Data Files". */
#define INLET_CHANGE_INSERT "insert"
#define INLET_CHANGE_DELETE "delete"
#define INLET_CHANGE_UPDATE_PREIMAGE "update_preimage"
#define INLET_CHANGE_UPDATE_POSTIMAGE "update_postimage"

typedef struct inlet_changes inlet_changes;

/**
 * Opens a change data feed read of @p table for the options' version range
 * (see the file comment). Nothing but the log is read here.
 * @return 0, INLET_EINVAL (start < 0, start > end, unknown options
 *         version, a column requested twice, a start timestamp after the
 *         end timestamp), INLET_ENOTFOUND (no table, a
 *         version of the range absent or cleaned up, an unknown column), INLET_EUNSUPPORTED (change
 * data feed not enabled for part of the range, a schema change inside it that is not
 * read-compatible, a reader feature inlet lacks), INLET_ECORRUPT, INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_changes_open(inlet_changes **out, inlet_table *table,
                                 const inlet_changes_options *options, inlet_error *err);
/** The output schema: the table's columns, then _change_type,
 * _commit_version, _commit_timestamp (or the requested columns). */
INLET_API const inlet_schema *inlet_changes_schema(const inlet_changes *changes);
/** The last version of the range (the latest when end_version was -1). */
INLET_API int64_t inlet_changes_end_version(const inlet_changes *changes);
/** The first version of the range (resolved from start_timestamp_ms when
 * given; end version + 1 when the range is empty). */
INLET_API int64_t inlet_changes_start_version(const inlet_changes *changes);
/**
 * Fills @p batch (zeroed, or from a previous call; it is reset here) with
 * the next changed rows. Batches are never empty.
 * @return 1 with rows, 0 at the end, or INLET_ENOTFOUND (a data or change
 *         data file missing, e.g. vacuumed), INLET_ECORRUPT (a malformed
 *         file, a _change_data file without a valid _change_type),
 *         INLET_EUNSUPPORTED (change data feed disabled inside the range),
 *         INLET_EIO, INLET_ENOMEM.
 */
INLET_API int inlet_changes_next(inlet_changes *changes, inlet_batch *batch, inlet_error *err);
INLET_API void inlet_changes_free(inlet_changes *changes);

#ifdef __cplusplus
}
#endif

#endif /* INLET_CHANGES_H */
