/*
 * Common definitions shared by every public inlet header: the export macro
 * that keeps the shared library's symbol table to the public API, and the
 * standard includes every header needs.
 */
#ifndef INLET_COMMON_H
#define INLET_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(INLET_STATIC)
#define INLET_API
#elif defined(INLET_BUILDING_LIBRARY) && defined(__GNUC__)
#define INLET_API __attribute__((visibility("default")))
#else
#define INLET_API
#endif

/**
 * Progress of a long operation (compaction, vacuum, checkpoint), reported
 * through the callback set with inlet_table_set_progress. @p done counts
 * units of @p unit ("bytes", "files", "commits" or "actions") of the current
 * @p phase; @p total is how many the phase has, or -1 while that is not known
 * (a directory walk). Within a phase done never decreases, and a phase with a
 * known total ends with a report of done == total. The strings are static.
 */
typedef struct inlet_progress {
  const char *operation; /* "compact", "vacuum", "checkpoint" */
  const char *phase;     /* e.g. "rewriting", "reading log", "listing", "deleting", "writing" */
  const char *unit;
  int64_t done;
  int64_t total;
} inlet_progress;

/** Receives progress; called on the thread running the operation, never
 * concurrently for one table handle. It must not call back into that handle. */
typedef void (*inlet_progress_fn)(void *ctx, const inlet_progress *progress);

#endif /* INLET_COMMON_H */
