/*
 * Test hooks of the POSIX backend (posix.c); not for production callers.
 */
#ifndef INLET_STORAGE_POSIX_INT_H
#define INLET_STORAGE_POSIX_INT_H

#include <stdbool.h>

/* When @p on, put_if_absent behaves as on a filesystem without hard links:
 * it skips link(2) and publishes with renameat2(RENAME_NOREPLACE), so tests
 * can cover the fallback path. Process-wide; tests only. */
void inlet_posix_test_force_rename(bool on);

#endif /* INLET_STORAGE_POSIX_INT_H */
