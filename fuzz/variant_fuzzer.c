/*
 * libFuzzer harness for the variant decoder (src/batch/variant.c), which
 * turns the untrusted metadata and value bytes of a variant column into
 * JSON text. Input: a 2-byte little-endian metadata length m, then m bytes
 * of metadata, then the value (each copied to a buffer of its exact size,
 * so an overread is a sanitizer error). A decoded value must be one valid
 * JSON document within the byte budget; a rejected one must leave an
 * error message.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { BUDGET = 1 << 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 || size > (1u << 20)) return 0;
  size_t ml = (size_t)data[0] | (size_t)data[1] << 8;
  if (ml > size - 2) ml = size - 2;
  size_t vl = size - 2 - ml;
  uint8_t *meta = malloc(ml ? ml : 1), *val = malloc(vl ? vl : 1);
  if (!meta || !val) abort();
  memcpy(meta, data + 2, ml);
  memcpy(val, data + 2 + ml, vl);
  inlet_buf out = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  int rc = batch_variant_to_json(&out, ml ? meta : NULL, ml, vl ? val : NULL, vl, BUDGET, &err);
  if (rc == 0) {
    /* Every step writes, so the text may overshoot the budget by at most
     * one primitive (a string no longer than the input). */
    if (out.len > BUDGET + size + 64) abort();
    /* jansson refuses U+0000 in object keys and integers beyond 64 bits
     * (JSON allows both: decimal16 values are such integers): keys are
     * checked with U+0001, which changes no structure, and integers are
     * read as reals. */
    char *text = malloc(out.len + 1);
    if (!text) abort();
    if (out.len) memcpy(text, out.data, out.len);
    for (size_t i = 0; i + 6 <= out.len; i++)
      if (memcmp(text + i, "\\u0000", 6) == 0) text[i + 5] = '1';
    json_error_t je;
    json_t *j =
        json_loadb(text, out.len, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &je);
    free(text);
    if (!j) abort();
    json_decref(j);
  } else if (!err.message[0]) {
    abort();
  }
  inlet_buf_reset(&out);
  free(meta);
  free(val);
  return 0;
}
