/*
 * Small helpers of the delta module: random UUIDs (v4, RFC 9562) for table
 * ids, file names and txn ids; wall-clock milliseconds for commit
 * timestamps; and the calendar arithmetic behind Delta's date and timestamp
 * strings (PROTOCOL.md "Partition Value Serialization"), proleptic
 * Gregorian, using the well-known days-from-civil algorithm.
 */
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

#include "delta/delta.h"
#include "util/util.h"

uint64_t delta_random_u64(void) {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
    /* Fall back to a clock-seeded mix: uniqueness, not secrecy, is needed. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^ (uint64_t)&v;
  }
  return v;
}

void delta_uuid4(char out[37]) {
  uint8_t b[16];
  uint64_t a = delta_random_u64(), c = delta_random_u64();
  memcpy(b, &a, 8);
  memcpy(b + 8, &c, 8);
  b[6] = (uint8_t)((b[6] & 0x0F) | 0x40);
  b[8] = (uint8_t)((b[8] & 0x3F) | 0x80);
  static const char hex[] = "0123456789abcdef";
  int j = 0;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out[j++] = '-';
    out[j++] = hex[b[i] >> 4];
    out[j++] = hex[b[i] & 15];
  }
  out[j] = '\0';
}

int64_t delta_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t delta_days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = (unsigned)(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = (unsigned)(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t yy = (int64_t)yoe + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yy + (*m <= 2);
}

void delta_format_date(char out[24], int32_t days) {
  int64_t y;
  unsigned m, d;
  civil_from_days(days, &y, &m, &d);
  snprintf(out, 24, "%04lld-%02u-%02u", (long long)y, m, d);
}

void delta_format_micros(char out[40], int64_t micros, int frac_digits) {
  int64_t days = micros / 86400000000LL;
  int64_t rem = micros % 86400000000LL;
  if (rem < 0) {
    rem += 86400000000LL;
    days--;
  }
  int64_t y;
  unsigned m, d;
  civil_from_days(days, &y, &m, &d);
  int64_t secs = rem / 1000000, us = rem % 1000000;
  int n = snprintf(out, 40, "%04lld-%02u-%02uT%02d:%02d:%02d", (long long)y, m, d,
                   (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
  if (frac_digits == 3) snprintf(out + n, (size_t)(40 - n), ".%03d", (int)(us / 1000));
  else if (frac_digits > 0) snprintf(out + n, (size_t)(40 - n), ".%06d", (int)us);
}

static bool digits(const char **p, int n, int *out) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    char c = (*p)[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *p += n;
  *out = v;
  return true;
}

static bool parse_ymd(const char **p, int64_t *days) {
  const char *s = *p;
  bool neg = false;
  if (*s == '-' || *s == '+') {
    neg = *s == '-';
    s++;
  }
  int y = 0, m, d, nd = 0;
  while (s[nd] >= '0' && s[nd] <= '9' && nd < 9) nd++;
  if (nd < 4 || !digits(&s, nd, &y)) return false;
  if (*s++ != '-' || !digits(&s, 2, &m) || *s++ != '-' || !digits(&s, 2, &d)) return false;
  if (m < 1 || m > 12 || d < 1 || d > 31) return false;
  /* No 30 February: such a date is malformed, not the next month's. */
  int64_t yy = neg ? -y : y;
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0;
  if (d > mdays[m - 1] + (m == 2 && leap)) return false;
  *days = delta_days_from_civil(yy, (unsigned)m, (unsigned)d);
  *p = s;
  return true;
}

bool delta_parse_date(const char *s, int32_t *days) {
  int64_t dd;
  if (!parse_ymd(&s, &dd) || *s) return false;
  if (dd < INT32_MIN || dd > INT32_MAX) return false;
  *days = (int32_t)dd;
  return true;
}

bool delta_parse_timestamp(const char *s, int64_t *micros) {
  int64_t days;
  if (!parse_ymd(&s, &days)) return false;
  int h = 0, mi = 0, se = 0;
  int64_t frac = 0;
  if (*s == ' ' || *s == 'T') {
    s++;
    if (!digits(&s, 2, &h) || *s++ != ':' || !digits(&s, 2, &mi)) return false;
    if (*s == ':') {
      s++;
      if (!digits(&s, 2, &se)) return false;
    }
    if (*s == '.') {
      s++;
      int nd = 0;
      while (*s >= '0' && *s <= '9') {
        if (nd < 6) frac = frac * 10 + (*s - '0');
        nd++;
        s++;
      }
      if (nd == 0 || nd > 9) return false;
      for (int i = nd; i < 6; i++) frac *= 10;
    }
  }
  if (h > 23 || mi > 59 || se > 60) return false;
  int64_t off_s = 0;
  if (*s == 'Z') {
    s++;
  } else if (*s == '+' || *s == '-') {
    int sign = *s == '-' ? -1 : 1, oh, om = 0;
    s++;
    if (!digits(&s, 2, &oh)) return false;
    if (*s == ':') s++;
    if (*s && !digits(&s, 2, &om)) return false;
    off_s = sign * (oh * 3600 + om * 60);
  }
  if (*s) return false;
  int64_t secs = days * 86400 + h * 3600 + mi * 60 + se - off_s;
  int64_t v;
  if (inlet_mul_overflow_i64(secs, 1000000, &v) || inlet_add_overflow_i64(v, frac, &v))
    return false;
  *micros = v;
  return true;
}
