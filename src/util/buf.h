/*
 * The one growable byte buffer of the code base. It grows to
 * max(2 x capacity, needed) and has a sticky error: after a failed
 * allocation every append is a no-op and inlet_buf_status() reports
 * INLET_ENOMEM, so builders append freely and check once at the end.
 */
#ifndef INLET_BUF_H
#define INLET_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/util.h"

typedef struct inlet_buf {
  uint8_t *data; /* owned; NULL until the first append */
  size_t len;
  size_t cap;
  int error; /* 0, or INLET_ENOMEM after a failed growth (sticky) */
} inlet_buf;

#define INLET_BUF_INIT                                                                             \
  { NULL, 0, 0, 0 }

void inlet_buf_init(inlet_buf *b);
/* Frees the storage and returns @p b to the initial state. */
void inlet_buf_reset(inlet_buf *b);
/* Keeps capacity, drops content and a sticky error. */
static inline void inlet_buf_clear(inlet_buf *b) {
  b->len = 0;
  b->error = 0;
}

/* Ensures room for @p extra more bytes; 0 or INLET_ENOMEM (sticky). */
int inlet_buf_reserve(inlet_buf *b, size_t extra);
int inlet_buf_grow_slow(inlet_buf *b, size_t extra);

static inline int inlet_buf_append(inlet_buf *b, const void *p, size_t n) {
  if (b->cap - b->len < n && inlet_buf_grow_slow(b, n) < 0) return b->error;
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
  return 0;
}
static inline int inlet_buf_push(inlet_buf *b, uint8_t byte) {
  if (b->cap == b->len && inlet_buf_grow_slow(b, 1) < 0) return b->error;
  b->data[b->len++] = byte;
  return 0;
}
int inlet_buf_appendf(inlet_buf *b, const char *fmt, ...) INLET_PRINTF(2, 3);
static inline int inlet_buf_puts(inlet_buf *b, const char *s) {
  return inlet_buf_append(b, s, strlen(s));
}
/* Appends a NUL without counting it in len, so data is a C string. */
int inlet_buf_terminate(inlet_buf *b);
/* Hands the storage to the caller (who frees it with inlet_free). */
uint8_t *inlet_buf_detach(inlet_buf *b, size_t *len);
static inline int inlet_buf_status(const inlet_buf *b) {
  return b->error;
}

/* Appends code point @p cp (at most U+10FFFF) encoded as UTF-8 (utf8.c). */
void inlet_buf_put_utf8(inlet_buf *b, uint32_t cp);
/* Appends the decoded text of the JSON string body p[0..n) (between the
 * quotes; RFC 8259 escapes, surrogate pairs joined). False, with part of it
 * appended, on a malformed or unknown escape, a lone surrogate or an escaped
 * NUL (names and values never hold one) (json_string.c). */
bool inlet_json_unescape(inlet_buf *out, const char *p, size_t n);

#endif /* INLET_BUF_H */
