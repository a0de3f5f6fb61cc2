/*
 * Allocation wrappers with a failure-injection countdown, so tests can prove
 * that every ENOMEM path unwinds cleanly (SQLite's malloc-failure testing).
 */
#include <stdatomic.h>

#include "util/util.h"

/* Atomic: worker threads of a pool (util/pool.h) allocate too. */
static _Atomic long alloc_fail_countdown = -1;
/* Per thread, so counting needs neither atomics nor locks. */
static _Thread_local int64_t alloc_calls, alloc_bytes;

void inlet_alloc_fail_after(long n) {
  atomic_store(&alloc_fail_countdown, n);
}

void inlet_alloc_counts(int64_t *calls, int64_t *bytes) {
  if (calls) *calls = alloc_calls;
  if (bytes) *bytes = alloc_bytes;
}

static int should_fail(void) {
  alloc_calls++;
  long n = atomic_load_explicit(&alloc_fail_countdown, memory_order_relaxed);
  for (;;) {
    if (n < 0) return 0;
    if (n == 0) return 1;
    if (atomic_compare_exchange_weak_explicit(&alloc_fail_countdown, &n, n - 1,
                                              memory_order_relaxed, memory_order_relaxed))
      return 0;
  }
}

void *inlet_malloc(size_t size) {
  alloc_bytes += (int64_t)size;
  if (should_fail()) return NULL;
  return malloc(size ? size : 1);
}

void *inlet_calloc(size_t n, size_t size) {
  alloc_bytes += (int64_t)(n * size);
  if (should_fail()) return NULL;
  if (n == 0 || size == 0) return calloc(1, 1);
  return calloc(n, size);
}

void *inlet_realloc(void *p, size_t size) {
  alloc_bytes += (int64_t)size;
  if (should_fail()) return NULL;
  return realloc(p, size ? size : 1);
}

void inlet_free(void *p) {
  free(p);
}

char *inlet_strndup(const char *s, size_t n) {
  char *d = inlet_malloc(n + 1);
  if (!d) return NULL;
  if (n) memcpy(d, s, n); /* s may be NULL for n == 0 (an empty array's values) */
  d[n] = '\0';
  return d;
}

char *inlet_strdup(const char *s) {
  return inlet_strndup(s, strlen(s));
}
