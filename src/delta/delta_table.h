/*
 * The table handles of include/inlet/table.h as the modules above delta
 * (maint, stream, scan) use them: accessors instead of the structs (those
 * stay private in delta_table_int.h), snapshot loading through the handle's
 * cache, table creation, the hooks a writer runs after its commit, and the
 * one internal write transaction (delta_write_txn.h).
 */
#ifndef INLET_DELTA_TABLE_H
#define INLET_DELTA_TABLE_H

#include "delta/delta.h"
#include "delta/delta_write_txn.h"
#include "inlet/table.h"
#include "storage/storage.h"

/* The storage backend the handle is rooted at (owned by the handle). */
inlet_storage *delta_table_storage(const inlet_table *t);
/* The table's root: the absolute directory (realpath of what was opened),
 * or the URL of an object-store table ("s3://bucket/prefix"). For messages,
 * path-length limits and recognising absolute add paths; never opened as a
 * local path (every byte goes through delta_table_storage). */
const char *delta_table_root(const inlet_table *t);
/* Reports progress to the handle's inlet_table_set_progress callback (none:
 * nothing happens). The strings must be static. */
void delta_table_progress(const inlet_table *t, const char *operation, const char *phase,
                          const char *unit, int64_t done, int64_t total);

/* Opens the table at @p location with the storage settings and
 * single-writer mode of @p like (NULL: from the environment), e.g. the
 * table a stream routes late rows to. @p must_exist false skips the
 * _delta_log check (a table about to be created). */
int delta_table_open_like(inlet_table **out, const char *location, const inlet_table *like,
                          bool must_exist, inlet_error *err);
/* inlet_table_open_with without the _delta_log check: a table about to be
 * created by its first commit (an object store has no directory to make). */
/* The local path of a location that is not an object-store URL: a plain
 * path as it is, file:///abs/path or file:/abs/path without the scheme
 * (*local points into @p location). INLET_EINVAL for a file: URL without an
 * absolute path. What every command's table location goes through. */
int delta_location_local_path(const char *location, const char **local, inlet_error *err);

int delta_table_open_new(inlet_table **out, const char *location,
                         const inlet_table_open_options *options, inlet_error *err);
/* The replayed snapshot behind a public snapshot handle. */
const delta_snapshot *delta_snapshot_of(const inlet_snapshot *s);

/*
 * Loads a snapshot of @p t. The latest version, and any version at or
 * above the cached state's, comes from the handle's cache brought forward
 * by the commits after it (probed, not listed); older versions and
 * timestamps are replayed from the log and leave the cache alone. Codes of
 * delta_snapshot_load.
 */
int delta_table_load(inlet_table *t, delta_snapshot *out, delta_snap_mode mode, int64_t arg,
                     inlet_error *err);

/* The version -1 state of a table about to be created with @p schema and
 * @p options (may be NULL): protocol derived from schema and properties,
 * metaData with a fresh id, validated names and properties. Owned; free
 * with delta_snapshot_reset. 0, INLET_EINVAL, INLET_EUNSUPPORTED, INLET_ENOMEM. */
int delta_new_table(delta_snapshot *out, const inlet_schema *schema,
                    const inlet_table_create_options *options, inlet_error *err);

/* The latest version without its files and tombstones (delta_state_head):
 * what a writer reads, at a cost independent of the table's size. */
int delta_table_head(inlet_table *t, delta_snapshot *out, inlet_error *err);

/* The same for a writer whose commit's conditional create detects newer
 * commits anyway (a lost race goes into conflict detection and retry): on
 * an object store, a cache confirmed recently (delta_table_head_window_ms)
 * is used without probing the log, so a steady-state commit costs its data
 * PUTs and one conditional PUT. Elsewhere, or when the cache is older, as
 * delta_table_head. */
int delta_table_head_for_write(inlet_table *t, delta_snapshot *out, inlet_error *err);

/* How long a confirmed cache may stand in for the latest version of a
 * table with metadata @p m: half of delta.logRetentionDuration, at most
 * 15 minutes. Log cleanup removes only commits older than the retention,
 * and every commit after the cached version was created after the
 * confirmation, so within this window none of them can have been removed
 * (a commit at a cleaned-up version would be invisible to readers: that is
 * what the probe guards against). */
int64_t delta_table_head_window_ms(const delta_metadata *m);

/* Tells the handle that @p txn was committed through it as @p version: the
 * cache applies it from memory (after reading any commits of others that
 * came before it), so the next writer starts without re-reading the table.
 * Best effort: on any failure the cache is dropped and rebuilt on demand. */
void delta_table_note_commit(inlet_table *t, const delta_txn *txn, int64_t version);

/* A writer whose commit creates the table: version 0 with the protocol and
 * metaData of @p create (version -1, copied) plus the data written. */
int delta_writer_open_create(inlet_table_writer **out, inlet_table *table,
                             const delta_snapshot *create, const char *params, inlet_error *err);

/* The same with append options and a stream's extras (txn actions,
 * operation, metrics; @p extras may be NULL): a stream's first batch
 * creates the table and records its position in one commit. */
int delta_writer_open_create_with(inlet_table_writer **out, inlet_table *table,
                                  const delta_snapshot *create, const char *params,
                                  const inlet_append_options *options,
                                  const delta_write_extras *extras, inlet_error *err);

/* The latest version's protocol and metadata (delta_meta.c): from its
 * version checksum when that agrees with the log, else by log replay. */
typedef struct delta_table_meta {
  int64_t version;
  delta_protocol protocol; /* owned */
  delta_metadata metadata; /* owned */
  bool from_checksum;      /* the checksum file was used (no replay) */
} delta_table_meta;
int delta_table_load_meta(inlet_table *t, delta_table_meta *out, inlet_error *err);
void delta_table_meta_reset(delta_table_meta *m);

/* Sets the txn actions the commit writes besides options.app_id's, replacing
 * the options' extra ones: @p n of them (copied). The commit then requires,
 * for each, that the writer's read snapshot records version @p expected[i]
 * for that appId (-1: none; @p expected NULL: all -1), else it fails with
 * INLET_ECONFLICT; commits after the read version are judged by the log's
 * conflict rules (a concurrent txn of the same appId conflicts), on every
 * retry. For a stream whose set of positions grows during a transaction
 * (Kafka partitions): called just before the commit. */
int delta_writer_set_txns(inlet_table_writer *w, int32_t n, const char *const *ids,
                          const int64_t *versions, const int64_t *expected, inlet_error *err);

/* After a failed inlet_table_writer_commit: true when the commit's entry may
 * be in the log all the same (an I/O error after the publish could not be
 * ruled out), so what the caller made for it must stay. */
bool delta_writer_maybe_committed(const inlet_table_writer *w);

/* Joins root and a relative path; caller frees. */
char *delta_join_path(const char *root, const char *rel);

/* The checkpoint hook every writer runs after committing @p version
 * through @p t: a checkpoint every delta.checkpointInterval versions (of
 * @p metadata; default 10), then the log entries that expired below it are
 * cleaned (the handle remembers the oldest entry left, so the log is not
 * listed while that is inside the window). Best effort: the commit stands
 * whether or not the checkpoint lands. */
void delta_table_checkpoint_if_due(inlet_table *t, const delta_metadata *metadata, int64_t version);

#endif /* INLET_DELTA_TABLE_H */
