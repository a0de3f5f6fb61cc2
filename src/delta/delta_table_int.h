/*
 * Private to src/delta: the structs behind the public handles of
 * include/inlet/table.h, shared by delta_table.c, delta_write.c and
 * delta_scan.c. Other modules reach a table through delta/delta_table.h.
 */
#ifndef INLET_DELTA_TABLE_INT_H
#define INLET_DELTA_TABLE_INT_H

#include "inlet/table.h"
#include "delta/delta.h"
#include "delta/delta_state_int.h"
#include "delta/delta_table.h"

struct inlet_table {
  char *path;                  /* owned, as given */
  char *root_abs;              /* owned: absolute (realpath), or the URL without secrets */
  inlet_storage *st;           /* owned backend rooted at the table */
  inlet_storage_options sopts; /* owned copy of the storage settings (strings owned) */
  bool single_writer;          /* opened with single_writer (also in st->flags) */
  int32_t threads;             /* open options' threads: log decoding, sidecar writing */
  delta_state *live;           /* owned cache: the newest state this handle has seen, or NULL */
  int64_t live_confirmed_ms;   /* monotonic ms when `live` was last known to be the latest
                                * version (a catch-up that found nothing newer, or our own
                                * commit); 0: never */
  int64_t log_oldest;          /* no cleanable log entry below this version (0 at first) */
  inlet_progress_fn progress;  /* inlet_table_set_progress, or NULL */
  void *progress_ctx;
};

struct inlet_snapshot {
  inlet_table *table;    /* borrowed */
  delta_snapshot snap;   /* owned */
  delta_scan_plan *plan; /* owned cache, built by the first filtered scan, or NULL */
};

/* Summaries of the commits of listing @p l up to @p max_version (< 0: all), newest first,
 * to @p fn (may be NULL), counting them and the compactions among them
 * (delta_commits.c; inlet_table_commits and describe). 0, what @p fn returned, or the
 * codes of delta_log_read_commit. */
int delta_commits_walk(inlet_table *t, const delta_log_listing *l, int64_t max_version,
                       inlet_commit_fn fn, void *ctx, int64_t *commits, int64_t *compactions,
                       inlet_error *err);

#endif /* INLET_DELTA_TABLE_INT_H */
