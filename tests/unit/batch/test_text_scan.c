/*
 * Unit tests for src/batch/text_scan.h, the NDJSON byte scanners: the SSE2
 * (where built), word and byte string scanners must find the same stop byte
 * and the same "a byte >= 0x80 came before it" on every input, and the
 * 8-digit word reader must count and convert exactly what a digit loop
 * does. Expected positions are the ones the test itself placed; values are
 * computed by plain loops written here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "batch/text_scan.h"

typedef size_t (*scan_fn)(const char *p, size_t n, bool *high);

static const struct {
  const char *name;
  scan_fn fn;
} scanners[] = {
    {"bytes", text_scan_plain_bytes},
    {"swar", text_scan_plain_swar},
#if TEXT_SCAN_SSE2
    {"sse2", text_scan_plain_sse2},
#endif
    {"chosen", text_scan_plain},
};
#define N_SCANNERS (sizeof scanners / sizeof scanners[0])

/* Every scanner on p[0, n): each must return want_at and want_high. The
 * buffer is copied to the end of a heap block of exactly n bytes, so a read
 * past n is an ASan report. */
static void expect_scan(const char *p, size_t n, size_t want_at, bool want_high) {
  char *tight = malloc(n ? n : 1);
  assert_non_null(tight);
  memcpy(tight, p, n);
  for (size_t s = 0; s < N_SCANNERS; s++) {
    bool high = false;
    size_t at = scanners[s].fn(tight, n, &high);
    if (at != want_at || high != want_high) {
      free(tight);
      fail_msg("%s scanner: length %zu: stop %zu high %d, expected %zu high %d", scanners[s].name,
               n, at, (int)high, want_at, (int)want_high);
    }
  }
  free(tight);
}

/* Each stop byte (the 32 control bytes, '"', '\\') at every position of
 * every length up to 80, after fillers of plain ASCII, of high bytes and of
 * both, with and without a second stop byte after the first. */
static void test_scan__every_stop_byte_at_every_position(void **state) {
  (void)state;
  unsigned char stops[34];
  for (int b = 0; b < 0x20; b++)
    stops[b] = (unsigned char)b;
  stops[32] = '"';
  stops[33] = '\\';
  char buf[96];
  for (int filler = 0; filler < 3; filler++) {
    for (size_t n = 1; n <= 80; n++) {
      for (size_t at = 0; at < n; at++) {
        for (size_t k = 0; k < sizeof stops; k++) {
          bool high = false;
          for (size_t i = 0; i < n; i++) {
            unsigned char b = filler == 0   ? (unsigned char)('a' + i % 26)
                              : filler == 1 ? (unsigned char)(0x80 + (i * 7) % 128)
                                            : (unsigned char)(i % 5 == 3 ? 0xc3 : 'x');
            buf[i] = (char)b;
            if (i < at && b >= 0x80) high = true;
          }
          buf[at] = (char)stops[k];
          if (at + 2 < n) buf[at + 2] = '"'; /* a later stop never wins */
          expect_scan(buf, n, at, high);
        }
      }
    }
  }
}

/* No stop byte at all: the length, with the high flag exactly when one of
 * the bytes (only ever the one at hi) is >= 0x80, at every length and place. */
static void test_scan__no_stop_byte_and_one_high_byte(void **state) {
  (void)state;
  char buf[96];
  for (size_t n = 0; n <= 80; n++) {
    for (size_t i = 0; i < n; i++)
      buf[i] = (char)(0x20 + (i * 13) % 0x5f);
    for (size_t i = 0; i < n; i++)
      if (buf[i] == '"' || buf[i] == '\\') buf[i] = '#';
    expect_scan(buf, n, n, false);
    for (size_t hi = 0; hi < n; hi++) {
      char save = buf[hi];
      buf[hi] = (char)0xff;
      expect_scan(buf, n, n, true);
      buf[hi] = (char)0x80;
      expect_scan(buf, n, n, true);
      /* the same high byte right after a stop byte does not count */
      if (hi > 0) {
        char before = buf[hi - 1];
        buf[hi - 1] = '"';
        expect_scan(buf, n, hi - 1, false);
        buf[hi - 1] = before;
      }
      buf[hi] = save;
    }
  }
}

/* Random bytes biased towards stop bytes, high bytes and long plain runs:
 * all scanners agree with the byte loop (the reference). */
static void test_scan__random_inputs_agree(void **state) {
  (void)state;
  srand(18);
  char buf[300];
  for (int iter = 0; iter < 200000; iter++) {
    size_t n = (size_t)(rand() % 300);
    int stop_odds = 1 + rand() % 200, high_odds = 1 + rand() % 20;
    for (size_t i = 0; i < n; i++) {
      int r = rand();
      if (r % stop_odds == 0)
        buf[i] = (char)"\"\\\x01\x1f\n\t"[r / stop_odds % 6];
      else if (r % high_odds == 0)
        buf[i] = (char)(0x80 + r / high_odds % 128);
      else
        buf[i] = (char)(0x20 + r % 0x5f);
    }
    bool want_high = false;
    size_t want = text_scan_plain_bytes(buf, n, &want_high);
    /* the reference itself, against the definition */
    size_t def = 0;
    bool def_high = false;
    while (def < n && buf[def] != '"' && buf[def] != '\\' && (unsigned char)buf[def] >= 0x20)
      def_high |= (unsigned char)buf[def++] >= 0x80;
    assert_int_equal(want, def);
    assert_int_equal(want_high, def_high);
    expect_scan(buf, n, want, want_high);
  }
}

#if TEXT_SCAN_WORDS
static int digits_by_loop(const unsigned char *b) {
  int k = 0;
  while (k < 8 && b[k] >= '0' && b[k] <= '9')
    k++;
  return k;
}

/* k digits (0..8) followed by every byte value at position k: the count
 * is k, and the value the digits' value, for digit strings of every shape. */
static void test_digits8__count_and_value(void **state) {
  (void)state;
  srand(8);
  for (int k = 0; k <= 8; k++) {
    for (int b = 0; b < 256; b++) {
      for (int rep = 0; rep < 40; rep++) {
        unsigned char w[8];
        uint32_t want = 0;
        for (int i = 0; i < k; i++) {
          int d = rep == 0 ? 9 : rep == 1 ? (i == 0 ? 1 : 0) : rand() % 10;
          w[i] = (unsigned char)('0' + d);
          want = want * 10 + (uint32_t)d;
        }
        for (int i = k; i < 8; i++)
          w[i] = (unsigned char)(i == k ? b : rand() % 256);
        if (k < 8 && b >= '0' && b <= '9') continue; /* not a non-digit at k */
        uint64_t v;
        memcpy(&v, w, 8);
        assert_int_equal(text_scan_digits8(v), digits_by_loop(w));
        assert_int_equal(text_scan_digits8(v), k);
        if (k > 0) assert_int_equal(text_scan_digits8_value(v, k), want);
      }
    }
  }
}

/* Random words of digits and non-digits: count as the loop, value as the
 * loop for every prefix of the digit run. */
static void test_digits8__random_words(void **state) {
  (void)state;
  srand(88);
  for (int iter = 0; iter < 500000; iter++) {
    unsigned char w[8];
    for (int i = 0; i < 8; i++)
      w[i] = rand() % 3 ? (unsigned char)('0' + rand() % 10) : (unsigned char)(rand() % 256);
    uint64_t v;
    memcpy(&v, w, 8);
    int k = digits_by_loop(w);
    assert_int_equal(text_scan_digits8(v), k);
    uint32_t want = 0;
    for (int i = 0; i < k; i++) {
      want = want * 10 + (uint32_t)(w[i] - '0');
      assert_int_equal(text_scan_digits8_value(v, i + 1), want);
    }
  }
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_scan__every_stop_byte_at_every_position),
    cmocka_unit_test(test_scan__no_stop_byte_and_one_high_byte),
    cmocka_unit_test(test_scan__random_inputs_agree),
#if TEXT_SCAN_WORDS
    cmocka_unit_test(test_digits8__count_and_value),
    cmocka_unit_test(test_digits8__random_words),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
