/*
 * Internal helpers shared by every module: error recording, the TRY/FAIL_IF
 * control-flow macros, overflow-checked arithmetic and small allocation
 * wrappers. Nothing here is public API.
 */
#ifndef INLET_UTIL_H
#define INLET_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/error.h"

#if defined(__GNUC__)
#define INLET_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define INLET_LIKELY(x) __builtin_expect(!!(x), 1)
#define INLET_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define INLET_PRINTF(fmt, args)
#define INLET_LIKELY(x) (x)
#define INLET_UNLIKELY(x) (x)
#endif

/*
 * Records @p code and a printf-formatted message in @p err (NULL-safe) and
 * returns @p code, so callers can write `return inlet_fail(err, ...)`.
 */
int inlet_fail(inlet_error *err, int code, const char *fmt, ...) INLET_PRINTF(3, 4);
int inlet_failv(inlet_error *err, int code, const char *fmt, va_list ap) INLET_PRINTF(3, 0);

/*
 * Prefixes the message already in @p err with "<prefix>: " (truncating at the
 * buffer size). Used to add context such as the file name as an error
 * travels outwards. Returns err->code (or INLET_EINTERNAL if err is NULL).
 */
int inlet_error_prefix(inlet_error *err, const char *fmt, ...) INLET_PRINTF(2, 3);

/* Evaluates an int-returning expression and returns its value if negative. */
#define TRY(expr)                                                                                  \
  do {                                                                                             \
    int try_rc_ = (expr);                                                                          \
    if (INLET_UNLIKELY(try_rc_ < 0)) return try_rc_;                                               \
  } while (0)

/* Like TRY but jumps to `done` with `rc` set, for single-exit cleanup. */
#define TRY_GOTO(expr)                                                                             \
  do {                                                                                             \
    rc = (expr);                                                                                   \
    if (INLET_UNLIKELY(rc < 0)) goto done;                                                         \
  } while (0)

/* Returns inlet_fail(err, code, ...) when cond holds. */
#define FAIL_IF(cond, err, code, ...)                                                              \
  do {                                                                                             \
    if (INLET_UNLIKELY(cond)) return inlet_fail((err), (code), __VA_ARGS__);                       \
  } while (0)

/* Sets rc = inlet_fail(...) and jumps to `done` when cond holds. */
#define FAIL_GOTO(cond, err, code, ...)                                                            \
  do {                                                                                             \
    if (INLET_UNLIKELY(cond)) {                                                                    \
      rc = inlet_fail((err), (code), __VA_ARGS__);                                                 \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

/* Overflow-checked arithmetic: return true on overflow. */
/* Moves bits [src, src + n) of the LSB-first bitmap @p bits down to
 * [dst, dst + n) (dst <= src; the ranges may overlap), whole bytes at a time
 * when both start on a byte. Used to compact rows in place. */
static inline void inlet_bits_move_down(uint8_t *bits, int64_t dst, int64_t src, int64_t n) {
  if (dst == src || n <= 0) return;
  int64_t i = 0;
  if (((dst | src) & 7) == 0) {
    memmove(bits + (dst >> 3), bits + (src >> 3), (size_t)(n >> 3));
    i = n & ~(int64_t)7;
  }
  for (; i < n; i++) {
    int64_t s = src + i, d = dst + i;
    uint8_t m = (uint8_t)(1u << (d & 7));
    if ((bits[s >> 3] >> (s & 7)) & 1)
      bits[d >> 3] |= m;
    else
      bits[d >> 3] &= (uint8_t)~m;
  }
}

static inline bool inlet_add_overflow_i64(int64_t a, int64_t b, int64_t *out) {
  return __builtin_add_overflow(a, b, out);
}
static inline bool inlet_mul_overflow_i64(int64_t a, int64_t b, int64_t *out) {
  return __builtin_mul_overflow(a, b, out);
}
/* a + b, or INT64_MAX / INT64_MIN when it would overflow: for totals that
 * are reported, not used to address anything. */
static inline int64_t inlet_add_sat_i64(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}
static inline bool inlet_add_overflow_size(size_t a, size_t b, size_t *out) {
  return __builtin_add_overflow(a, b, out);
}
static inline bool inlet_mul_overflow_size(size_t a, size_t b, size_t *out) {
  return __builtin_mul_overflow(a, b, out);
}

/* The value of hex digit @p c (either case), or -1. */
static inline int inlet_hex_digit(int c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* True when s[0..n) is well-formed UTF-8 (RFC 3629: no overlong forms,
 * surrogates or code points past U+10FFFF). utf8.c. */
bool inlet_utf8_valid(const uint8_t *s, size_t n);

/*
 * Allocation wrappers. They exist so that a test build can inject allocation
 * failures (see inlet_alloc_fail_after) and so that every module reports
 * ENOMEM the same way.
 */
void *inlet_malloc(size_t size);
void *inlet_calloc(size_t n, size_t size);
void *inlet_realloc(void *p, size_t size);
void inlet_free(void *p);
char *inlet_strdup(const char *s);
char *inlet_strndup(const char *s, size_t n);

/*
 * Test hook: after @p n more successful allocations, every allocation fails
 * until reset with a negative @p n. Not thread-safe; tests only.
 */
void inlet_alloc_fail_after(long n);

/*
 * Test hook: allocations made by the calling thread so far (inlet_malloc,
 * inlet_calloc, inlet_realloc calls, and the bytes they asked for). A
 * deterministic measure of in-memory work, for tests that prove a cost does
 * not grow with a table without timing anything.
 */
void inlet_alloc_counts(int64_t *calls, int64_t *bytes);

#endif /* INLET_UTIL_H */
