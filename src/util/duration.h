/*
 * The one duration grammar of inlet (docs/VALUES.md): CLI options
 * (`vacuum --retain`, `ingest --allowed-lateness`, `--max-latency`,
 * `maintain --interval`, ...) and table properties (delta.logRetentionDuration,
 * delta.deletedFileRetentionDuration, ...) all read durations here.
 *
 *   duration := ["interval"] term { term }
 *   term     := digits [space] unit
 *   unit     := us | microsecond(s) | ms | millisecond(s) | s | sec(s) | second(s)
 *             | m | min(s) | minute(s) | h | hr(s) | hour(s) | d | day(s) | w | week(s)
 *
 * Units are required (a bare "100" is an error: seconds or milliseconds is
 * exactly the ambiguity the grammar removes) and case-insensitive; terms add
 * up ("1h30m", "interval 1 day 12 hours"); Delta's `interval 7 days` is the
 * same grammar with the keyword. No signs, no fractions, no months or years
 * (they have no fixed length, and Delta refuses them for these properties).
 */
#ifndef INLET_UTIL_DURATION_H
#define INLET_UTIL_DURATION_H

#include <stdint.h>

#include "inlet/error.h"

/* Parses @p text into microseconds. @return 0, INLET_EINVAL (the message
 * quotes the text and says what is wrong). */
int inlet_duration_parse_us(int64_t *out_us, const char *text, inlet_error *err);

#endif /* INLET_UTIL_DURATION_H */
