/*
 * Private to the checkpoint writers of the delta module: the Parquet
 * action-file writer of delta_checkpoint_write.c (classic checkpoints), used
 * by delta_checkpoint_v2.c for UUID-named v2 checkpoints and their sidecar
 * files.
 */
#ifndef INLET_DELTA_CHECKPOINT_INT_H
#define INLET_DELTA_CHECKPOINT_INT_H

#include "delta/delta.h"
#include "util/pool.h"

/* Which top-level action columns a file holds. */
enum {
  DELTA_CPW_NONFILE = 1, /* txn, metaData, protocol, domainMetadata */
  DELTA_CPW_FILES = 2,   /* add, remove */
  DELTA_CPW_V2 = 4,      /* checkpointMetadata, sidecar */
  DELTA_CPW_CLASSIC = DELTA_CPW_NONFILE | DELTA_CPW_FILES,
  DELTA_CPW_SIDECAR = DELTA_CPW_FILES,
  DELTA_CPW_V2_TOP = DELTA_CPW_NONFILE | DELTA_CPW_FILES | DELTA_CPW_V2
};

/* One Parquet file of checkpoint actions being written (one row per
 * action, the other columns null). */
typedef struct cp_writer cp_writer;

/* Creates @p rel through @p st (synced at close) with the columns of
 * @p cols; the add struct gets the stats columns @p snap's properties ask
 * for. @p total: actions expected, for @p progress (may be NULL). @p pool
 * (borrowed, may be NULL): the column chunks are encoded and compressed on
 * it (the file's bytes do not depend on it). */
int delta_cpw_open(cp_writer **out, inlet_storage *st, const char *rel, const delta_snapshot *snap,
                   unsigned cols, int64_t total, inlet_progress_fn progress, void *progress_ctx,
                   util_pool *pool, inlet_error *err);
/* checkpointMetadata (when the file has the column), protocol, metaData,
 * txn and domainMetadata of @p snap. */
int delta_cpw_put_nonfile(cp_writer *w, const delta_snapshot *snap, inlet_error *err);
/* File actions [@p from, @p to) of @p snap, counting its live files first
 * (adds) and then its tombstones (removes). */
int delta_cpw_put_files(cp_writer *w, const delta_snapshot *snap, int64_t from, int64_t to,
                        inlet_error *err);
/* A sidecar action naming `_delta_log/_sidecars/<name>`. */
int delta_cpw_put_sidecar(cp_writer *w, const char *name, int64_t size, int64_t mtime,
                          inlet_error *err);
/* Flushes and closes (synced) the file: its size and rows. */
int delta_cpw_close(cp_writer *w, int64_t *bytes, int64_t *actions, inlet_error *err);
/* NULL-safe; removes the file when it was not closed. */
void delta_cpw_free(cp_writer *w);

/* Publishes temporary @p tmp_rel as @p final_rel with put-if-absent (the
 * temporary removed on failure); a no-op on object stores, where the file
 * was written under its final name. INLET_EEXISTS when the name is taken. */
int delta_cpw_publish(inlet_storage *st, const char *tmp_rel, const char *final_rel,
                      inlet_error *err);
/* The version `_delta_log/_last_checkpoint` names, -1 when absent or unreadable. */
int64_t delta_cpw_hint_version(inlet_storage *st);

/* Whether @p snap's checkpoints are v2 ones: the table supports the
 * v2Checkpoint feature and delta.checkpointPolicy is v2 (delta_checkpoint_v2.c). */
bool delta_checkpoint_policy_v2(const delta_snapshot *snap);
/* Writes the UUID-named v2 checkpoint of @p snap: sidecars first (each
 * synced; several at once on @p pool, may be NULL, when @p st may be used
 * from several threads), then the checkpoint with put-if-absent, then
 * `_last_checkpoint` with its v2Checkpoint field. Storage errors,
 * INLET_ENOMEM. */
int delta_checkpoint_write_v2(inlet_storage *st, const delta_snapshot *snap, util_pool *pool,
                              inlet_progress_fn progress, void *progress_ctx, inlet_error *err);

#endif /* INLET_DELTA_CHECKPOINT_INT_H */
