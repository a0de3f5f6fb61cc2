/*
 * libFuzzer harness for the NDJSON byte scanners (src/batch/text_scan.h),
 * the SIMD and word versions against the byte loop, and for the numbers
 * they read, against the C library:
 *
 *   1. every string scanner (SSE2 where built, 8-byte words, bytes) finds
 *      the same stop byte and the same "a byte >= 0x80 before it" in the
 *      input read from each of its first 17 offsets, out of a buffer of
 *      exactly the bytes scanned (ASan sees any read past them);
 *   2. every 8-byte window: the word digit count and value equal a loop's;
 *   3. the input's leading number-like bytes (at most 40) as the value of a
 *      double and of a long column, last in its record and followed by
 *      another field: the reader must
 *      accept exactly the JSON numbers (doubles: finite ones; longs: integer
 *      literals in range, and nothing with a fraction), with strtod's or
 *      strtoll's value, whichever of its paths (the word digits or not)
 *      took it.
 *
 * A crash, sanitizer report or __builtin_trap() is a finding.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/text_scan.h"
#include "inlet/text.h"

#define CHECK(c)                                                                                   \
  do {                                                                                             \
    if (!(c)) __builtin_trap();                                                                    \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void scanners_agree(const char *p, size_t n) {
  char *tight = malloc(n ? n : 1);
  CHECK(tight);
  memcpy(tight, p, n);
  bool ref_high = false;
  size_t ref = text_scan_plain_bytes(tight, n, &ref_high);
  CHECK(ref <= n);
  bool high = false;
  CHECK(text_scan_plain_swar(tight, n, &high) == ref && high == ref_high);
#if TEXT_SCAN_SSE2
  high = false;
  CHECK(text_scan_plain_sse2(tight, n, &high) == ref && high == ref_high);
#endif
  high = false;
  CHECK(text_scan_plain(tight, n, &high) == ref && high == ref_high);
  free(tight);
}

static void digits_agree(const uint8_t *w) {
#if TEXT_SCAN_WORDS
  uint64_t v;
  memcpy(&v, w, 8);
  int k = 0;
  uint32_t want = 0;
  while (k < 8 && w[k] >= '0' && w[k] <= '9')
    want = want * 10 + (uint32_t)(w[k++] - '0');
  CHECK(text_scan_digits8(v) == k);
  if (k > 0) CHECK(text_scan_digits8_value(v, k) == want);
#else
  (void)w;
#endif
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number(const char *s, size_t n, bool *integer) {
  size_t i = 0;
  *integer = true;
  if (i < n && s[i] == '-') i++;
  if (i < n && s[i] == '0')
    i++;
  else if (i < n && s[i] >= '1' && s[i] <= '9')
    while (i < n && s[i] >= '0' && s[i] <= '9')
      i++;
  else
    return false;
  if (i < n && s[i] == '.') {
    *integer = false;
    size_t f = ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
      i++;
    if (i == f) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    *integer = false;
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    size_t e = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
      i++;
    if (i == e) return false;
  }
  return i == n;
}

/* Imports {"v":<num>} (@p padded: followed by a string field, so that the
 * number is not at the record's end and words are read past it) into a
 * table of @p ddl; returns whether the record was accepted, with its value
 * in *d or *i. */
static bool import_one(const char *ddl, const char *num, size_t n, bool padded, double *d,
                       int64_t *i) {
  inlet_schema schema;
  inlet_error err = INLET_ERROR_INIT;
  CHECK(inlet_schema_parse(&schema, ddl, &err) == 0);
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  inlet_text_reader *r = NULL;
  CHECK(inlet_text_reader_open_memory(&r, "", 0, &schema, &o, &err) == 0);
  inlet_batch b;
  CHECK(inlet_batch_init(&b, &schema, &err) == 0);
  char rec[96];
  int len = snprintf(rec, sizeof rec, "{\"v\":%.*s%s}", (int)n, num,
                     padded ? ",\"pad\":\"0123456789\"" : "");
  CHECK(len > 0 && (size_t)len < sizeof rec);
  /* exactly the record's bytes, so the word reads near its end are seen */
  char *tight = malloc((size_t)len);
  CHECK(tight);
  memcpy(tight, rec, (size_t)len);
  int rc = inlet_text_reader_append(r, &b, tight, (size_t)len, &err);
  CHECK(rc == 0 || rc == INLET_EINVAL);
  bool ok = rc == 0;
  if (ok) {
    CHECK(b.num_rows == 1);
    if (d) *d = ((const double *)b.columns[0].values)[0];
    if (i) *i = ((const int64_t *)b.columns[0].values)[0];
  }
  free(tight);
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  inlet_schema_reset(&schema);
  return ok;
}

static void numbers_agree(const char *p, size_t n, bool padded) {
  size_t k = 0;
  while (k < n && k < 40 && strchr("0123456789.eE+-", p[k]) && p[k] != '\0')
    k++;
  if (k == 0) return;
  char text[48];
  memcpy(text, p, k);
  text[k] = '\0';
  bool integer;
  bool valid = json_number(text, k, &integer);

  double d = 0;
  bool took = import_one("v double, pad string", text, k, padded, &d, NULL);
  if (valid) {
    errno = 0;
    double want = strtod(text, NULL);
    if (isinf(want)) {
      CHECK(!took); /* out of range is refused, not infinite */
    } else {
      CHECK(took);
      CHECK(d == want && signbit(d) == signbit(want));
    }
  } else {
    CHECK(!took);
  }

  int64_t i = 0;
  took = import_one("v long, pad string", text, k, padded, NULL, &i);
  if (valid && integer) {
    errno = 0;
    long long want = strtoll(text, NULL, 10);
    bool in_range = errno != ERANGE;
    CHECK(took == in_range);
    if (took) CHECK(i == (int64_t)want);
  } else if (!valid) {
    CHECK(!took);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *p = (const char *)data;
  for (size_t off = 0; off <= 16 && off <= size; off++)
    scanners_agree(p + off, size - off);
  for (size_t off = 0; off + 8 <= size && off < 64; off++)
    digits_agree(data + off);
  numbers_agree(p, size, false);
  numbers_agree(p, size, true);
  return 0;
}
