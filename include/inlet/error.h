/*
 * Error reporting.
 *
 * Every fallible inlet function returns an int: 0 on success or one of the
 * negative INLET_E* codes below. Detail travels in a caller-owned
 * inlet_error (a fixed-size message, never allocated), passed as the last
 * argument and allowed to be NULL. Because the struct belongs to the caller
 * it is safe to use one per thread; there is no global "last error".
 *
 * Codes never change once released.
 */
#ifndef INLET_ERROR_H
#define INLET_ERROR_H

#include "inlet/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Error codes. All are negative; 0 is success. */
enum {
  INLET_OK = 0,
  INLET_EINVAL = -1,       /**< invalid argument or malformed user input */
  INLET_ENOMEM = -2,       /**< allocation failed */
  INLET_EIO = -3,          /**< operating-system I/O failure */
  INLET_ECORRUPT = -4,     /**< a file or log entry violates its format */
  INLET_EUNSUPPORTED = -5, /**< valid input using a feature inlet lacks */
  INLET_ENOTFOUND = -6,    /**< a file, table, version or column is absent */
  INLET_EEXISTS = -7,      /**< the object already exists (put-if-absent lost) */
  INLET_ECONFLICT = -8,    /**< a concurrent commit conflicts with this one */
  INLET_ELIMIT = -9,       /**< a configured or hard limit was exceeded */
  INLET_EINTERNAL = -10,   /**< a bug in inlet; please report it */
  INLET_EREJECTED = -11    /**< more input records were rejected than the run allows
                                (ingest/append max_rejected); what was accepted before
                                the limit is committed */
};

/** Capacity of inlet_error.message, including the terminating NUL. */
#define INLET_ERROR_MESSAGE_SIZE 512

/**
 * Caller-owned error detail. Zero-initialise it (INLET_ERROR_INIT) or call
 * inlet_error_clear(); inlet functions fill it on failure only.
 */
typedef struct inlet_error {
  int code;                               /**< the INLET_E* code, 0 if none */
  char message[INLET_ERROR_MESSAGE_SIZE]; /**< one line naming the object */
} inlet_error;

#define INLET_ERROR_INIT                                                                           \
  {                                                                                                \
    0, {                                                                                           \
      0                                                                                            \
    }                                                                                              \
  }

/** Resets @p err to "no error". NULL-safe. */
INLET_API void inlet_error_clear(inlet_error *err);

/**
 * Message of @p err: the detail if one was recorded, else the generic text
 * of its code. Never NULL; lives as long as @p err. NULL-safe.
 */
INLET_API const char *inlet_errmsg(const inlet_error *err);

/** Static name of an INLET_E* code ("corrupt", "conflict", ...). */
INLET_API const char *inlet_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif /* INLET_ERROR_H */
