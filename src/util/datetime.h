/*
 * Dates and times, once for every module: proleptic Gregorian calendar
 * arithmetic and the one ISO-8601 grammar inlet reads dates and timestamps
 * in (NDJSON/CSV values, expression literals, Delta partition values and
 * statistics, `scan --as-of`, object-store listings).
 *
 * The grammar (docs/VALUES.md):
 *   date       YYYY-MM-DD; a year of 5 to 9 digits or a signed year
 *              (+YYYYY-MM-DD, -YYYY-MM-DD) for dates outside 0000-9999.
 *              No 30 February: an impossible day is malformed.
 *   time       HH:MM[:SS[.f]] with 1 to 9 fraction digits ('.' or ',').
 *   timestamp  date [('T'|'t'|' ') time] [zone], zone = Z | z | +HH[[:]MM]
 *              | -HH[[:]MM]; without a zone the wall clock is taken as UTC.
 * Nothing else: no leap second 60, no trailing text, no surrounding space.
 */
#ifndef INLET_UTIL_DATETIME_H
#define INLET_UTIL_DATETIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlet/error.h"

bool inlet_is_leap_year(int64_t y);
/* Days in month @p m (1-12) of year @p y. */
int inlet_days_in_month(int64_t y, int m);
/* Days since 1970-01-01 of a proleptic Gregorian date (era arithmetic:
 * 400-year eras of 146097 days, March-based years so leap days come last).
 * @p m and @p d must be in range. */
int64_t inlet_days_from_civil(int64_t y, int m, int d);
/* The inverse of inlet_days_from_civil. */
void inlet_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* A date at the start of @p s (@p n bytes): the length consumed, 0 when
 * there is none. */
size_t inlet_iso_date_prefix(const char *s, size_t n, int64_t *days);
/* A time of day HH:MM[:SS[.f]] at the start of @p s: the length consumed
 * (0 when none); *secs is the second of the day, *nanos the fraction. */
size_t inlet_iso_time_prefix(const char *s, size_t n, int64_t *secs, int64_t *nanos);
/* All of @p s as a date: false when it is not exactly one (or is out of
 * int32 days). */
bool inlet_iso_date_parse(const char *s, size_t n, int32_t *days);
/*
 * All of @p s as a timestamp: *secs (since the epoch, floor) and *nanos
 * (0..999999999), UTC when a zone was given and the wall clock otherwise;
 * *has_offset tells which, *offset is the zone's offset in seconds.
 * Returns NULL, or a static reason ("expected an ISO-8601 date", ...).
 */
const char *inlet_iso_timestamp_parse(const char *s, size_t n, int64_t *secs, int64_t *nanos,
                                      bool *has_offset, int32_t *offset);
/* The date of the last timestamp a converter parsed: events carry the same
 * date one after another, so its day number is looked up, not computed
 * (days_from_civil and the date's checks were a tenth of timestamp
 * parsing). All zero is empty. */
typedef struct inlet_date_memo {
  uint64_t key8; /* YYYY-MM-DD as written: its first 8 bytes, */
  uint16_t key2; /* and its last 2 (compared as words: a memcmp call cost more) */
  bool valid;
  int64_t days;
} inlet_date_memo;
/* inlet_iso_timestamp_parse remembering dates in @p memo (NULL: none). */
const char *inlet_iso_timestamp_parse_memo(const char *s, size_t n, inlet_date_memo *memo,
                                           int64_t *secs, int64_t *nanos, bool *has_offset,
                                           int32_t *offset);
/* The same into microseconds since the epoch (fraction digits past the
 * sixth truncated); false when malformed or out of range. */
bool inlet_iso_timestamp_micros(const char *s, size_t n, int64_t *micros);

#endif /* INLET_UTIL_DATETIME_H */
