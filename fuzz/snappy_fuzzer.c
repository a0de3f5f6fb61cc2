/*
 * libFuzzer harness for inlet's snappy decoder (src/codec/snappy_decode.c),
 * checked against libsnappy's, which stays the reference:
 *
 *   mode 0: the payload is a compressed stream. Both decoders must agree on
 *           the verdict (accepted or not) and, when accepted, on every byte.
 *   mode 1: the payload is raw data. libsnappy compresses it; inlet must
 *           decode it to the same bytes. Then one byte of the compressed
 *           form is changed (position and value from the input) and the
 *           verdicts and bytes must agree again, so the corruption paths
 *           are explored from valid streams too.
 *
 * Input: [mode][p1][p2] then the payload. A crash, sanitizer report or
 * __builtin_trap() is a finding.
 */
#include <snappy-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/snappy_decode.h"

#define CHECK(c)                                                                                   \
  do {                                                                                             \
    if (!(c)) __builtin_trap();                                                                    \
  } while (0)

/* Declared lengths above this are not allocated (both decoders would
 * only be told to fill a buffer that large). */
#define MAX_OUT (4u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void differential(const uint8_t *z, size_t z_len) {
  size_t lib_len = 0, own_len = 0;
  int lib_hdr = snappy_uncompressed_length((const char *)z, z_len, &lib_len) == SNAPPY_OK;
  int own_hdr = inlet_snappy_length(z, z_len, &own_len) == INLET_SNAPPY_OK;
  CHECK(lib_hdr == own_hdr);
  if (!lib_hdr) {
    CHECK(inlet_snappy_decode(z, z_len, NULL, 0) == INLET_SNAPPY_BAD_HEADER);
    return;
  }
  CHECK(lib_len == own_len);
  if (lib_len > MAX_OUT) return;
  /* Exact-size buffers, so that ASan sees any write past the end. */
  char *ref = malloc(lib_len ? lib_len : 1);
  uint8_t *out = malloc(own_len ? own_len : 1);
  CHECK(ref && out);
  size_t n = lib_len;
  int lib_ok = snappy_uncompress((const char *)z, z_len, ref, &n) == SNAPPY_OK;
  inlet_snappy_status st = inlet_snappy_decode(z, z_len, out, own_len);
  CHECK(st == INLET_SNAPPY_OK || st == INLET_SNAPPY_CORRUPT);
  CHECK(lib_ok == (st == INLET_SNAPPY_OK));
  if (lib_ok) CHECK(n == lib_len && memcmp(ref, out, lib_len) == 0);
  /* A buffer of another size than the declared one is refused up front. */
  if (own_len > 0)
    CHECK(inlet_snappy_decode(z, z_len, out, own_len - 1) == INLET_SNAPPY_BAD_LENGTH);
  free(ref);
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  const uint8_t mode = data[0] & 1, p1 = data[1], p2 = data[2];
  data += 3;
  size -= 3;
  if (mode == 0) {
    differential(data, size);
    return 0;
  }
  size_t z_len = snappy_max_compressed_length(size);
  char *z = malloc(z_len);
  CHECK(z);
  CHECK(snappy_compress((const char *)data, size, z, &z_len) == SNAPPY_OK);
  uint8_t *out = malloc(size ? size : 1);
  CHECK(out);
  CHECK(inlet_snappy_decode((const uint8_t *)z, z_len, out, size) == INLET_SNAPPY_OK);
  CHECK(size == 0 || memcmp(out, data, size) == 0);
  free(out);
  z[((size_t)p1 * 257 + p2) % z_len] ^= (char)(p2 | 1);
  differential((const uint8_t *)z, z_len);
  free(z);
  return 0;
}
