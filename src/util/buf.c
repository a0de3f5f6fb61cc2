/*
 * Growable byte buffer with a sticky error (see buf.h).
 */
#include <stdio.h>

#include "util/buf.h"

void inlet_buf_init(inlet_buf *b) {
  b->data = NULL;
  b->len = b->cap = 0;
  b->error = 0;
}

void inlet_buf_reset(inlet_buf *b) {
  inlet_free(b->data);
  inlet_buf_init(b);
}

int inlet_buf_grow_slow(inlet_buf *b, size_t extra) {
  if (b->error) return b->error;
  size_t need;
  if (inlet_add_overflow_size(b->len, extra, &need)) {
    b->error = INLET_ENOMEM;
    return b->error;
  }
  if (need <= b->cap) return 0;
  size_t cap = b->cap < 64 ? 64 : b->cap;
  while (cap < need) {
    if (cap > SIZE_MAX / 2) {
      cap = need;
      break;
    }
    cap *= 2;
  }
  uint8_t *p = inlet_realloc(b->data, cap);
  if (!p) {
    b->error = INLET_ENOMEM;
    return b->error;
  }
  b->data = p;
  b->cap = cap;
  return 0;
}

int inlet_buf_reserve(inlet_buf *b, size_t extra) {
  if (b->error) return b->error;
  if (b->cap - b->len >= extra) return 0;
  return inlet_buf_grow_slow(b, extra);
}

int inlet_buf_appendf(inlet_buf *b, const char *fmt, ...) {
  if (b->error) return b->error;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return INLET_EINVAL;
  if (inlet_buf_reserve(b, (size_t)n + 1) < 0) return b->error;
  va_start(ap, fmt);
  vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return 0;
}

int inlet_buf_terminate(inlet_buf *b) {
  if (inlet_buf_reserve(b, 1) < 0) return b->error;
  b->data[b->len] = '\0';
  return 0;
}

uint8_t *inlet_buf_detach(inlet_buf *b, size_t *len) {
  if (b->error) return NULL;
  if (inlet_buf_terminate(b) < 0) return NULL;
  uint8_t *d = b->data;
  if (len) *len = b->len;
  inlet_buf_init(b);
  return d;
}
