/*
 * Private to src/delta: decoding log files (checkpoint parts, sidecars,
 * JSON commits) side by side on a thread pool while their actions are
 * applied in log order on the calling thread (issue 18: snapshot loading
 * in parallel).
 *
 * A load's files are numbered units 0..n-1 in log order. Up to @p window
 * units are decoded ahead, each by a pool task into its own list of
 * actions; the caller's thread takes the lists in unit order and hands
 * each to @p use, which applies it (or reports the unit's failure). So
 * what @p use sees, and in what order, is what a single thread reading the
 * files one after another would see: add/remove reconciliation, the newest
 * protocol and metaData, and the first error in log order are unchanged.
 * Memory: at most @p window decoded units at once (a single-threaded load
 * streams instead; the window is the price of reading ahead).
 */
#ifndef INLET_DELTA_REPLAY_PAR_H
#define INLET_DELTA_REPLAY_PAR_H

#include "delta/delta.h"
#include "util/pool.h"

/* The decoded actions of one unit, in file order. */
typedef struct delta_action_list {
  delta_action *v; /* owned, each action owned */
  int64_t n, cap;
} delta_action_list;

/* Reads unit @p unit of @p src, passing its actions to @p cb / @p cb_ctx
 * (runs on a pool thread: may only touch what no other unit touches). */
typedef int (*delta_unit_read_fn)(void *src, int64_t unit, delta_action_cb cb, void *cb_ctx,
                                  inlet_error *err);
/* Applies unit @p unit on the caller's thread, in unit order: @p rc is its
 * read's result (@p unit_err its detail), @p acts what it decoded (all of
 * it when @p rc is 0). Returns 0 to go on, else the load's error. */
typedef int (*delta_unit_use_fn)(void *dst, int64_t unit, int rc, const inlet_error *unit_err,
                                 const delta_action_list *acts, inlet_error *err);

/* Applies @p n units as described above. @p pool must be a threaded pool;
 * @p window >= 1. Stops at the first nonzero @p use (returned), after the
 * tasks in flight finish. 0, that code, INLET_ENOMEM. */
int delta_replay_ordered(util_pool *pool, int64_t n, int64_t window, delta_unit_read_fn read,
                         void *src, delta_unit_use_fn use, void *dst, inlet_error *err);

/* Applies every action of @p acts to @p fn / @p ctx in order. */
int delta_action_list_apply(const delta_action_list *acts, delta_replay_fn fn, void *ctx,
                            inlet_error *err);

#endif /* INLET_DELTA_REPLAY_PAR_H */
