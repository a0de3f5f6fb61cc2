/*
 * Private to src/delta: the state of a table at one version, built by
 * applying log actions in order (PROTOCOL.md "Action Reconciliation").
 *
 * Log replay (delta_snapshot.c) builds one per load and turns it into a
 * delta_snapshot; a table handle (delta_table.c) keeps one as its cache of
 * the newest version and moves it forward commit by commit: its own commits
 * applied from memory, other writers' read from the log. Applying an action
 * costs O(1) expected whatever the number of live files and commits, so a
 * long-lived writer does not slow down as its table grows; only taking a
 * full snapshot (every live file, sorted) costs O(files).
 */
#ifndef INLET_DELTA_STATE_INT_H
#define INLET_DELTA_STATE_INT_H

#include "delta/delta.h"

typedef struct delta_state delta_state;

/* An empty state (version -1, no protocol or metaData). 0, INLET_ENOMEM. */
int delta_state_new(delta_state **out, inlet_error *err);
void delta_state_free(delta_state *s);

/*
 * Applies one action (a delta_replay_fn / delta_action_cb: @p state is the
 * delta_state). The newest protocol and metaData win; an add makes its file
 * (path + deletion vector id) live, a remove makes it a tombstone; txn
 * versions per appId; domain metadata per domain; a commitInfo's
 * inCommitTimestamp is remembered for delta_state_end_commit. On failure
 * (INLET_ENOMEM) the state is unusable: free it.
 */
int delta_state_apply(void *state, const delta_action *a, inlet_error *err);

/* Brackets the actions of commit @p version: after end, the state is at
 * that version, stamped with the commit's inCommitTimestamp when it has one,
 * else @p mtime_ms (the commit file's modification time). */
void delta_state_begin_commit(delta_state *s);
void delta_state_end_commit(delta_state *s, int64_t version, int64_t mtime_ms);
/* Sets the timestamp of the version @p s stands at (one learnt later: an
 * object-store commit is stamped -1, unknown, until a snapshot asks). */
void delta_state_set_timestamp(delta_state *s, int64_t timestamp_ms);
/* The inCommitTimestamp seen since begin_commit, or -1 (also when the
 * table, as of the actions seen, does not enable in-commit timestamps). */
int64_t delta_state_commit_ict(const delta_state *s);
/* Snapshots of @p s skip the reader checks (reader features, a schema
 * inlet can parse, deletion vectors): for readers of the log alone. */
void delta_state_set_log_only(delta_state *s, bool log_only);

/* The newest commit's file time as the listing monotonized it (-1
 * unknown): the next end_commit keeps time from going backwards from it. */
void delta_state_set_commit_mtime(delta_state *s, int64_t mtime_ms);
/* Sets where the state stands (log replay decides these itself). */
void delta_state_set_position(delta_state *s, int64_t version, int64_t timestamp_ms,
                              int64_t checkpoint_version, int64_t n_commits_on_disk);
int64_t delta_state_version(const delta_state *s);

/* Loads @p base (a snapshot of the same table) into an empty state, deep
 * copies, position included. 0, INLET_ENOMEM. */
int delta_state_seed(delta_state *s, const delta_snapshot *base, inlet_error *err);

/*
 * The state as a snapshot. Both check what a reader needs (protocol and
 * metaData present, reader version and features inlet supports, a
 * parseable schemaString, no live file with a deletion vector):
 * INLET_ECORRUPT, INLET_EUNSUPPORTED, INLET_ENOMEM.
 *
 * delta_state_head gives everything but the files and tombstones (n_files
 * and n_tombstones 0): what a writer reads, at a cost independent of the
 * number of files.
 *
 * delta_state_snapshot gives the whole snapshot, files sorted by path,
 * tombstones younger than delta.deletedFileRetentionDuration (older ones
 * leave the state for good, as checkpoints drop them). With @p move the
 * files and tombstones are moved out and the state may only be freed
 * afterwards; otherwise they are deep-copied and the state stays usable.
 */
int delta_state_head(delta_state *s, delta_snapshot *out, inlet_error *err);
int delta_state_snapshot(delta_state *s, delta_snapshot *out, bool move, inlet_error *err);

/* Calls @p cb with the add of every live file, in no particular order;
 * a nonzero return stops with that code. */
int delta_state_for_each_file(const delta_state *s,
                              int (*cb)(void *ctx, const delta_add *add, inlet_error *err),
                              void *ctx, inlet_error *err);
/* The state the transaction's base snapshot (delta_txn_set_base) came
 * from, borrowed: its version checksum can be derived from it when the
 * previous version has none (delta_crc_after_commit). */
void delta_txn_set_base_state(delta_txn *t, delta_state *s);

/* The inCommitTimestamp in a commitInfo's JSON text, or -1. */
int64_t delta_commit_info_ict(const char *commit_info);

/* Reader version and features inlet can honour (delta_snapshot.c). */
int delta_check_reader(const delta_protocol *p, const delta_metadata *m, inlet_error *err);

/*
 * Replays into @p s the commits after its version, up to @p target (-1:
 * up to the newest), found by probing commit names (writers never skip a
 * version), so catching up costs the new commits, not the log's length.
 * With no newer commit, the state's own commit must still exist: log
 * cleanup may have removed both (the state is then too old to catch up).
 * 0, INLET_ENOTFOUND (@p target not reached: no such version; the state's
 * commit is gone), and the codes of delta_log_read_commit. On failure the
 * state is unusable.
 */
int delta_state_catch_up(delta_state *s, inlet_storage *st, const char *root_abs, int64_t target,
                         inlet_error *err);

/*
 * Loads the state of the table at @p mode / @p arg, as delta_snapshot_load
 * would (which is this plus delta_state_snapshot), into a new state the
 * caller frees. Codes of delta_snapshot_load.
 */
int delta_state_load(delta_state **out, inlet_storage *st, const char *root_abs,
                     delta_snap_mode mode, int64_t arg, inlet_error *err);
/* The same on up to @p threads threads (delta_snapshot_load_threads). */
int delta_state_load_threads(delta_state **out, inlet_storage *st, const char *root_abs,
                             delta_snap_mode mode, int64_t arg, int threads, inlet_error *err);

#endif /* INLET_DELTA_STATE_INT_H */
