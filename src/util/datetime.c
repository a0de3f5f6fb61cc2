/*
 * Calendar arithmetic and the ISO-8601 date/timestamp grammar of
 * util/datetime.h (the grammar is described there and in docs/VALUES.md).
 */
#include "util/datetime.h"

#include "inlet/batch.h"
#include "util/util.h"

bool inlet_is_leap_year(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int inlet_days_in_month(int64_t y, int m) {
  static const int dim[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12) return 0;
  return m == 2 && inlet_is_leap_year(y) ? 29 : dim[m - 1];
}

int64_t inlet_days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (int64_t)(m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void inlet_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static bool digits_at(const char *s, size_t n, size_t at, int count, int *out) {
  if (at + (size_t)count > n) return false;
  int v = 0;
  for (int i = 0; i < count; i++) {
    unsigned dd = (unsigned)(s[at + (size_t)i] - '0');
    if (dd > 9) return false;
    v = v * 10 + (int)dd;
  }
  *out = v;
  return true;
}

size_t inlet_iso_date_prefix(const char *s, size_t n, int64_t *days) {
  int mo, d;
  int64_t y = 0;
  size_t i = 0;
  bool neg = false;
  if (n > 0 && (s[0] == '+' || s[0] == '-')) neg = s[i++] == '-';
  size_t ys = i;
  while (i < n && i - ys < 10 && s[i] >= '0' && s[i] <= '9')
    y = y * 10 + (s[i++] - '0');
  if (i - ys < 4 || i - ys > 9) return 0;
  if (i + 6 > n || s[i] != '-' || !digits_at(s, n, i + 1, 2, &mo) || s[i + 3] != '-' ||
      !digits_at(s, n, i + 4, 2, &d))
    return 0;
  if (neg) y = -y;
  if (d < 1 || d > inlet_days_in_month(y, mo)) return 0;
  *days = inlet_days_from_civil(y, mo, d);
  return i + 6;
}

bool inlet_iso_date_parse(const char *s, size_t n, int32_t *days) {
  int64_t d;
  /* An empty text is no date (the prefix parser returns 0 for it). */
  if (n == 0 || inlet_iso_date_prefix(s, n, &d) != n || d < INT32_MIN || d > INT32_MAX)
    return false;
  *days = (int32_t)d;
  return true;
}

/* [.,]digits at s[*i]: up to 9 digits into nanoseconds. The index lives in
 * a local: through the pointer, every digit stored and reloaded it (a char
 * may alias it), a tenth of NDJSON ingest's timestamp parsing. */
static bool fraction(const char *s, size_t n, size_t *i, int64_t *nanos) {
  static const int64_t scale[10] = {0,     100000000, 10000000, 1000000, 100000,
                                    10000, 1000,      100,      10,      1};
  size_t k = *i;
  int64_t ns = 0;
  if (k < n && (s[k] == '.' || s[k] == ',')) {
    size_t d0 = ++k;
    while (k < n && (unsigned)(s[k] - '0') < 10) {
      if (k - d0 == 9) return false; /* finer than nanoseconds */
      ns = ns * 10 + (s[k] - '0');
      k++;
    }
    if (k == d0) return false;
    ns *= scale[k - d0];
  }
  *i = k;
  *nanos = ns;
  return true;
}

size_t inlet_iso_time_prefix(const char *s, size_t n, int64_t *secs, int64_t *nanos) {
  int h, mi, sec = 0;
  if (!digits_at(s, n, 0, 2, &h) || n < 5 || s[2] != ':' || !digits_at(s, n, 3, 2, &mi)) return 0;
  size_t i = 5;
  int64_t ns = 0;
  if (i < n && s[i] == ':') {
    if (!digits_at(s, n, i + 1, 2, &sec)) return 0;
    i += 3;
    if (!fraction(s, n, &i, &ns)) return 0;
  }
  if (h > 23 || mi > 59 || sec > 59) return 0;
  *secs = h * 3600 + mi * 60 + sec;
  *nanos = ns;
  return i;
}

static inline bool dig(char ch) {
  return (unsigned)(ch - '0') < 10;
}
static inline int d2(const char *s) {
  return (s[0] - '0') * 10 + (s[1] - '0');
}

/* The layout nearly every producer prints, YYYY-MM-DDTHH:MM:SS[.fraction],
 * checked at fixed offsets: NDJSON ingest parses one per event, and this
 * costs a third of the general date + time parsers. Returns the length
 * consumed, or 0 to let the general parsers accept or explain the text. */
static size_t fast_ymd_hms(const char *s, size_t n, inlet_date_memo *memo, int64_t *days,
                           int64_t *tod, int64_t *nanos) {
  if (n < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      s[13] != ':' || s[16] != ':')
    return 0;
  if (!(dig(s[11]) && dig(s[12]) && dig(s[14]) && dig(s[15]) && dig(s[17]) && dig(s[18]))) return 0;
  int h = d2(s + 11), mi = d2(s + 14), sec = d2(s + 17);
  if (h > 23 || mi > 59 || sec > 59) return 0;
  int64_t dn;
  uint64_t k8;
  uint16_t k2;
  memcpy(&k8, s, 8);
  memcpy(&k2, s + 8, 2);
  if (memo && memo->valid && memo->key8 == k8 && memo->key2 == k2) {
    dn = memo->days; /* these ten bytes passed the checks below before */
  } else {
    if (!(dig(s[0]) && dig(s[1]) && dig(s[2]) && dig(s[3]) && dig(s[5]) && dig(s[6]) && dig(s[8]) &&
          dig(s[9])))
      return 0;
    int y = d2(s) * 100 + d2(s + 2), mo = d2(s + 5), d = d2(s + 8);
    if (d < 1 || d > inlet_days_in_month(y, mo)) return 0;
    dn = inlet_days_from_civil(y, mo, d);
    if (memo) {
      memo->key8 = k8;
      memo->key2 = k2;
      memo->days = dn;
      memo->valid = true;
    }
  }
  size_t i = 19;
  int64_t ns;
  if (!fraction(s, n, &i, &ns)) return 0;
  *days = dn;
  *tod = h * 3600 + mi * 60 + sec;
  *nanos = ns;
  return i;
}

const char *inlet_iso_timestamp_parse(const char *s, size_t n, int64_t *secs, int64_t *nanos,
                                      bool *has_offset, int32_t *offset) {
  return inlet_iso_timestamp_parse_memo(s, n, NULL, secs, nanos, has_offset, offset);
}

const char *inlet_iso_timestamp_parse_memo(const char *s, size_t n, inlet_date_memo *memo,
                                           int64_t *secs, int64_t *nanos, bool *has_offset,
                                           int32_t *offset) {
  int64_t days, tod = 0, ns = 0;
  *has_offset = false;
  *offset = 0;
  size_t i = fast_ymd_hms(s, n, memo, &days, &tod, &ns);
  if (!i) {
    i = inlet_iso_date_prefix(s, n, &days);
    if (!i) return "expected an ISO-8601 date";
    if (i < n && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
      size_t k = inlet_iso_time_prefix(s + i + 1, n - i - 1, &tod, &ns);
      if (!k) return "expected a time HH:MM[:SS[.fraction]] after the date";
      i += 1 + k;
    }
  }
  if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
    *has_offset = true;
    i++;
  } else if (i < n && (s[i] == '+' || s[i] == '-')) {
    int oh, om = 0;
    bool neg = s[i] == '-';
    if (!digits_at(s, n, i + 1, 2, &oh)) return "bad zone offset";
    i += 3;
    if (i < n && s[i] == ':') i++;
    if (i < n) {
      if (!digits_at(s, n, i, 2, &om)) return "bad zone offset";
      i += 2;
    }
    if (oh > 23 || om > 59) return "bad zone offset";
    *has_offset = true;
    *offset = (neg ? -1 : 1) * (oh * 3600 + om * 60);
  }
  if (i != n) return "unexpected text after the timestamp";
  *secs = days * 86400 + tod - *offset;
  *nanos = ns;
  return NULL;
}

bool inlet_iso_timestamp_micros(const char *s, size_t n, int64_t *micros) {
  int64_t secs, ns, v;
  bool has_off;
  int32_t off;
  if (inlet_iso_timestamp_parse(s, n, &secs, &ns, &has_off, &off)) return false;
  if (inlet_mul_overflow_i64(secs, 1000000, &v) || inlet_add_overflow_i64(v, ns / 1000, &v))
    return false;
  *micros = v;
  return true;
}

int inlet_timestamp_parse(int64_t *out_us, const char *text, inlet_error *err) {
  FAIL_IF(!text, err, INLET_EINVAL, "missing timestamp");
  int64_t secs, ns, v;
  bool has_off;
  int32_t off;
  const char *why = inlet_iso_timestamp_parse(text, strlen(text), &secs, &ns, &has_off, &off);
  FAIL_IF(why, err, INLET_EINVAL,
          "bad timestamp \"%s\": %s (expected e.g. 2024-05-01, 2024-05-01T12:00:00Z, "
          "2024-05-01 12:00:00.250+02:00)",
          text, why);
  FAIL_IF(inlet_mul_overflow_i64(secs, 1000000, &v) || inlet_add_overflow_i64(v, ns / 1000, &v),
          err, INLET_EINVAL, "timestamp \"%s\" out of range", text);
  *out_us = v;
  return 0;
}
