/*
 * Small helpers of the delta module: random UUIDs (v4, RFC 9562) for table
 * ids, file names and txn ids; wall-clock milliseconds for commit
 * timestamps; and Delta's date and timestamp strings (PROTOCOL.md
 * "Partition Value Serialization"), read and written with the calendar and
 * ISO-8601 grammar of util/datetime.h.
 */
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

#include "delta/delta.h"
#include "util/datetime.h"
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

void delta_format_date(char out[24], int32_t days) {
  int64_t y;
  int m, d;
  inlet_civil_from_days(days, &y, &m, &d);
  snprintf(out, 24, "%04lld-%02d-%02d", (long long)y, m, d);
}

void delta_format_micros(char out[40], int64_t micros, int frac_digits) {
  int64_t days = micros / 86400000000LL;
  int64_t rem = micros % 86400000000LL;
  if (rem < 0) {
    rem += 86400000000LL;
    days--;
  }
  int64_t y;
  int m, d;
  inlet_civil_from_days(days, &y, &m, &d);
  int64_t secs = rem / 1000000, us = rem % 1000000;
  int n = snprintf(out, 40, "%04lld-%02d-%02dT%02d:%02d:%02d", (long long)y, m, d,
                   (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
  if (frac_digits == 3)
    snprintf(out + n, (size_t)(40 - n), ".%03d", (int)(us / 1000));
  else if (frac_digits > 0)
    snprintf(out + n, (size_t)(40 - n), ".%06d", (int)us);
}

bool delta_parse_date(const char *s, int32_t *days) {
  return inlet_iso_date_parse(s, strlen(s), days);
}

bool delta_parse_timestamp(const char *s, int64_t *micros) {
  return inlet_iso_timestamp_micros(s, strlen(s), micros);
}
