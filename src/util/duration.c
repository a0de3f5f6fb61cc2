/*
 * Durations: the grammar of util/duration.h, and the two public entry
 * points that read it (inlet_duration_parse in milliseconds, include/inlet/
 * maint.h; inlet_ingest_parse_duration in microseconds, include/inlet/ingest.h).
 */
#include "util/duration.h"

#include <ctype.h>
#include <strings.h>

#include "inlet/ingest.h"
#include "inlet/maint.h"
#include "util/util.h"

#define UNITS_HELP "us, ms, s, m, h, d, w"

static bool ieq(const char *a, size_t n, const char *b) {
  if (strlen(b) != n) return false;
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)a[i]) != b[i]) return false;
  return true;
}

/* Microseconds in unit @p u (@p n bytes), or -1. */
static int64_t unit_us(const char *u, size_t n) {
  static const struct {
    const char *name;
    int64_t us;
  } units[] = {
      {"us", 1},
      {"microsecond", 1},
      {"microseconds", 1},
      {"ms", 1000},
      {"millisecond", 1000},
      {"milliseconds", 1000},
      {"s", 1000000},
      {"sec", 1000000},
      {"secs", 1000000},
      {"second", 1000000},
      {"seconds", 1000000},
      {"m", 60000000},
      {"min", 60000000},
      {"mins", 60000000},
      {"minute", 60000000},
      {"minutes", 60000000},
      {"h", 3600000000LL},
      {"hr", 3600000000LL},
      {"hrs", 3600000000LL},
      {"hour", 3600000000LL},
      {"hours", 3600000000LL},
      {"d", 86400000000LL},
      {"day", 86400000000LL},
      {"days", 86400000000LL},
      {"w", 604800000000LL},
      {"week", 604800000000LL},
      {"weeks", 604800000000LL},
  };
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (ieq(u, n, units[i].name)) return units[i].us;
  return -1;
}

static bool calendar_unit(const char *u, size_t n) {
  return ieq(u, n, "month") || ieq(u, n, "months") || ieq(u, n, "mo") || ieq(u, n, "year") ||
         ieq(u, n, "years") || ieq(u, n, "y");
}

int inlet_duration_parse_us(int64_t *out_us, const char *text, inlet_error *err) {
  FAIL_IF(!text, err, INLET_EINVAL, "missing duration");
  const char *p = text;
  while (isspace((unsigned char)*p))
    p++;
  FAIL_IF(!*p, err, INLET_EINVAL,
          "empty duration (expected a number with a unit, e.g. 30s, 7d, \"interval 7 days\")");
  if (strncasecmp(p, "interval", 8) == 0 && (isspace((unsigned char)p[8]) || !p[8])) {
    p += 8;
    while (isspace((unsigned char)*p))
      p++;
  }
  int64_t total = 0;
  bool any = false;
  while (*p) {
    FAIL_IF(*p == '-', err, INLET_EINVAL, "duration \"%s\" is negative", text);
    FAIL_IF(!isdigit((unsigned char)*p), err, INLET_EINVAL,
            "bad duration \"%s\" (expected a number with a unit, e.g. 30s, 250ms, 1h30m, 7d, "
            "\"interval 7 days\")",
            text);
    int64_t v = 0;
    while (isdigit((unsigned char)*p)) {
      FAIL_IF(inlet_mul_overflow_i64(v, 10, &v) || inlet_add_overflow_i64(v, *p - '0', &v), err,
              INLET_EINVAL, "duration \"%s\" is too large", text);
      p++;
    }
    FAIL_IF(*p == '.' || *p == ',', err, INLET_EINVAL,
            "bad duration \"%s\": whole numbers only (write 1500ms, not 1.5s)", text);
    while (isspace((unsigned char)*p))
      p++;
    const char *u = p;
    while (isalpha((unsigned char)*p))
      p++;
    size_t ulen = (size_t)(p - u);
    FAIL_IF(ulen == 0 && !any && !*p, err, INLET_EINVAL,
            "duration \"%s\" has no unit: a bare number is ambiguous (write e.g. %llds or "
            "%lldms; units " UNITS_HELP ")",
            text, (long long)v, (long long)v);
    FAIL_IF(ulen == 0, err, INLET_EINVAL,
            "bad duration \"%s\": a number without a unit (units " UNITS_HELP ")", text);
    FAIL_IF(calendar_unit(u, ulen), err, INLET_EINVAL,
            "bad duration \"%s\": months and years have no fixed length (use days or weeks)", text);
    int64_t us = unit_us(u, ulen);
    FAIL_IF(us < 0, err, INLET_EINVAL,
            "bad duration \"%s\": unknown unit \"%.*s\" (units " UNITS_HELP ")", text, (int)ulen,
            u);
    FAIL_IF(inlet_mul_overflow_i64(v, us, &v) || inlet_add_overflow_i64(total, v, &total), err,
            INLET_EINVAL, "duration \"%s\" is too large", text);
    any = true;
    while (isspace((unsigned char)*p))
      p++;
  }
  FAIL_IF(!any, err, INLET_EINVAL, "bad duration \"%s\": a number with a unit is missing", text);
  *out_us = total;
  return 0;
}

int inlet_duration_parse(int64_t *out_ms, const char *text, inlet_error *err) {
  int64_t us;
  TRY(inlet_duration_parse_us(&us, text, err));
  *out_ms = us / 1000;
  return 0;
}

int inlet_ingest_parse_duration(int64_t *out_us, const char *text, inlet_error *err) {
  return inlet_duration_parse_us(out_us, text, err);
}
