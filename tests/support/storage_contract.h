/*
 * The storage.h contract as executable checks, run against every backend:
 * the POSIX backend in tests/unit/storage/test_storage_ops.c and the S3 and
 * Azure backends against their emulators in tests/integration. Each check
 * works under its own directory @p dir of the store and fails the calling
 * cmocka test on any deviation.
 */
#ifndef INLET_STORAGE_CONTRACT_H
#define INLET_STORAGE_CONTRACT_H

#include "storage/storage.h"

/* Opens a fresh handle on the store under test (used in child processes). */
typedef inlet_storage *(*sc_open_fn)(void *ctx);

/* put_bytes / get_bytes / overwrite / ranged reads / suffix read / vectored
 * reads / missing objects. */
void sc_check_put_get_ranges(inlet_storage *s, const char *dir);
/* put_if_absent_bytes: the first wins, the second is INLET_EEXISTS and
 * leaves the first's bytes; the legacy put_if_absent(tmp, final) too. */
void sc_check_put_if_absent(inlet_storage *s, const char *dir);
/* list, list_names and list_from with prefix, start_after, limit paging,
 * recursion, attrs, a missing directory. */
void sc_check_listing(inlet_storage *s, const char *dir);
/* remove and remove_many (a missing path counts as removed). */
void sc_check_remove_many(inlet_storage *s, const char *dir);
/* wfile: @p total bytes in appends of varying size read back exactly; an
 * aborted wfile leaves nothing behind; create of an existing path fails
 * with INLET_EEXISTS (at create or at close). */
void sc_check_wfile(inlet_storage *s, const char *dir, size_t total);
/* @p procs processes race put_if_absent_bytes on one key, each through its
 * own handle from @p open: exactly one wins, the others get INLET_EEXISTS,
 * and the object holds the winner's bytes. */
void sc_check_put_if_absent_race(sc_open_fn open, void *ctx, const char *dir, int procs);

/* Deterministic test bytes: byte i of stream @p seed. */
void sc_fill(uint8_t *buf, size_t n, uint64_t seed, size_t start);

#endif
