/*
 * A fault-injecting storage backend for tests (SQLite-style I/O countdown).
 * It wraps another backend, counts every operation by kind, and, once
 * armed, makes the Nth matching operation fail with INLET_EIO, either
 * alone or as a simulated crash after which every operation fails.
 *
 * Typical use, proving a failed commit leaves no half-written log entry:
 *
 *   inlet_storage *posix, *s;
 *   inlet_storage_posix_open(&posix, dir, true, &err);
 *   inlet_storage_fault_wrap(&s, posix, true, &err);   // s owns posix
 *   inlet_fault_arm(s, INLET_FAULT_PUT_IF_ABSENT, 0, INLET_FAULT_STOP);
 *   rc = commit(s, ...);            // the publish "crashes": rc == INLET_EIO
 *   inlet_fault_disarm(s);          // "restart": operations work again
 *   ... reopen the table through s (or posix) and check the log ...
 *   s->ops->free(s);
 *
 * Operations on files (read_at, read_ranges, read_tail, append, sync,
 * close) opened through the wrapper are counted and fail too; abort is not
 * counted. The object-store-shaped operations count as their older kin:
 * put_if_absent_bytes as PUT_IF_ABSENT, put_bytes as REPLACE, get_bytes as
 * READ, open_read_sized as OPEN_READ, list_from as LIST, remove_many as one
 * REMOVE per path. Files must be closed before the wrapper is freed.
 * Single-threaded use only.
 */
#ifndef INLET_STORAGE_FAULT_H
#define INLET_STORAGE_FAULT_H

#include <stdint.h>

#include "storage/storage.h"

typedef enum inlet_fault_op {
  INLET_FAULT_ANY = 0, /* matches every operation below */
  INLET_FAULT_OPEN_READ,
  INLET_FAULT_READ, /* rfile read_at */
  INLET_FAULT_CREATE,
  INLET_FAULT_APPEND, /* wfile append */
  INLET_FAULT_SYNC,   /* wfile sync; close(sync = true) counts one once its CLOSE passed */
  INLET_FAULT_CLOSE,  /* wfile close (also counted when it syncs) */
  INLET_FAULT_PUT_IF_ABSENT,
  INLET_FAULT_LIST,
  INLET_FAULT_REMOVE,
  INLET_FAULT_REPLACE,
  INLET_FAULT_STAT,
  INLET_FAULT_MKDIRS,
  INLET_FAULT_SYNC_DIR,
  INLET_FAULT_N_OPS
} inlet_fault_op;

typedef enum inlet_fault_mode {
  /* The operation is not performed and returns INLET_EIO; later ones work. */
  INLET_FAULT_FAIL = 0,
  /* Simulated crash before the operation: it is not performed, and it and
   * every later operation (any kind) fail with INLET_EIO until disarmed. */
  INLET_FAULT_STOP,
  /* The operation IS performed but reports INLET_EIO (e.g. a commit that
   * reached the disk while its caller saw an error); later ones work. */
  INLET_FAULT_FAIL_AFTER,
  /* The operation is performed, then the storage stops as with STOP. */
  INLET_FAULT_STOP_AFTER
} inlet_fault_mode;

/* Wraps @p inner. With @p own_inner, freeing the wrapper frees inner too.
 * @return 0, INLET_ENOMEM. */
int inlet_storage_fault_wrap(inlet_storage **out, inlet_storage *inner, bool own_inner,
                             inlet_error *err);

/* Arms the fault: the operations of kind @p op (or of any kind for
 * INLET_FAULT_ANY) are let through @p after times, and the next one
 * faults as @p mode says. Re-arming replaces the previous setting; counts
 * keep running. @p s must come from inlet_storage_fault_wrap. */
void inlet_fault_arm(inlet_storage *s, inlet_fault_op op, int64_t after, inlet_fault_mode mode);
/* Cancels a pending fault and ends a stopped state ("restart"). */
void inlet_fault_disarm(inlet_storage *s);
/* Operations of kind @p op attempted so far (INLET_FAULT_ANY: all kinds),
 * including ones that failed. */
int64_t inlet_fault_count(const inlet_storage *s, inlet_fault_op op);
/* Zeroes the counts (bytes too). */
void inlet_fault_reset_counts(inlet_storage *s);
/* Bytes read (rfile read_at) and appended (wfile append) by operations
 * that succeeded, since the last reset: with the counts, a measure of work
 * that a test can hold constant ("no timed tests"). */
int64_t inlet_fault_bytes_read(const inlet_storage *s);
int64_t inlet_fault_bytes_written(const inlet_storage *s);
/* True once an armed fault has fired (and not been disarmed since). */
bool inlet_fault_fired(const inlet_storage *s);
/* True while stopped (after a STOP / STOP_AFTER fault, until disarmed). */
bool inlet_fault_stopped(const inlet_storage *s);
/* Name of an operation kind ("put_if_absent", ...). */
const char *inlet_fault_op_name(inlet_fault_op op);

#endif /* INLET_STORAGE_FAULT_H */
