/*
 * Error recording for the caller-owned inlet_error (include/inlet/error.h).
 * Messages are formatted into the fixed buffer and truncated, never
 * allocated, so reporting an out-of-memory condition cannot itself fail.
 */
#include <stdio.h>

#include "util/util.h"

void inlet_error_clear(inlet_error *err) {
  if (!err) return;
  err->code = 0;
  err->message[0] = '\0';
}

const char *inlet_strerror(int code) {
  switch (code) {
  case INLET_OK: return "success";
  case INLET_EINVAL: return "invalid argument";
  case INLET_ENOMEM: return "out of memory";
  case INLET_EIO: return "I/O error";
  case INLET_ECORRUPT: return "corrupt data";
  case INLET_EUNSUPPORTED: return "unsupported feature";
  case INLET_ENOTFOUND: return "not found";
  case INLET_EEXISTS: return "already exists";
  case INLET_ECONFLICT: return "conflicting concurrent commit";
  case INLET_ELIMIT: return "limit exceeded";
  case INLET_EINTERNAL: return "internal error";
  case INLET_EREJECTED: return "rejected records above the limit";
  default: return "unknown error";
  }
}

const char *inlet_errmsg(const inlet_error *err) {
  if (!err) return "no error detail (NULL inlet_error)";
  if (err->message[0]) return err->message;
  return inlet_strerror(err->code);
}

int inlet_failv(inlet_error *err, int code, const char *fmt, va_list ap) {
  if (err) {
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
  }
  return code;
}

int inlet_fail(inlet_error *err, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  inlet_failv(err, code, fmt, ap);
  va_end(ap);
  return code;
}

int inlet_error_prefix(inlet_error *err, const char *fmt, ...) {
  if (!err) return INLET_EINTERNAL;
  char prefix[INLET_ERROR_MESSAGE_SIZE];
  char old[INLET_ERROR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, err->message, sizeof old);
  old[sizeof old - 1] = '\0';
  /* Assemble piecewise: truncation is intended, and this form keeps
   * -Wformat-truncation quiet without disabling it. */
  const char *rest = old[0] ? old : inlet_strerror(err->code);
  size_t cap = sizeof err->message, n = 0;
  for (const char *parts[3] = {prefix, ": ", rest}, **p = parts; p < parts + 3; p++)
    for (const char *c = *p; *c && n + 1 < cap; c++)
      err->message[n++] = *c;
  err->message[n] = '\0';
  return err->code ? err->code : INLET_EINTERNAL;
}
