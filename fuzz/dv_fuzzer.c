/*
 * libFuzzer harness for deletion vectors (src/delta/delta_dv.c), which read
 * bytes from DV files and descriptors from the log. The first input byte
 * picks what the rest is:
 *   even: a serialized RoaringBitmapArray (magic, bucket count, portable
 *         32-bit roaring buckets), decoded; a decoded vector must agree with
 *         itself: its cardinality is the count over the whole 64-bit range
 *         and every member found by probing is counted by count_range;
 *   odd:  a deletionVector descriptor (JSON text), parsed; an inline one is
 *         loaded (Z85 decoding, then the bitmap), a 'u' or 'p' one resolved
 *         to its file path, which must stay inside the table.
 * A rejected input must leave an error message; any inconsistency aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/delta_dv.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_decoded(const delta_dv *dv) {
  uint64_t card = delta_dv_cardinality(dv);
  if (delta_dv_count_range(dv, 0, UINT64_MAX) != card) abort();
  for (uint64_t r = 0; r < 256; r++)
    if (delta_dv_contains(dv, r) != (delta_dv_count_range(dv, r, r + 1) == 1)) abort();
  uint64_t probe = (uint64_t)1 << 32;
  if (delta_dv_contains(dv, probe) != (delta_dv_count_range(dv, probe, probe + 1) == 1)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > (1u << 20)) return 0;
  inlet_error err = INLET_ERROR_INIT;
  const uint8_t *body = data + 1;
  size_t n = size - 1;
  if ((data[0] & 1) == 0) {
    delta_dv *dv = NULL;
    int rc = delta_dv_decode(body, n, &dv, &err);
    if (rc == 0) {
      check_decoded(dv);
      delta_dv_free(dv);
    } else if (!err.message[0] || dv) {
      abort();
    }
    return 0;
  }
  char *json = malloc(n + 1);
  if (!json) return 0;
  memcpy(json, body, n);
  json[n] = '\0';
  delta_dv_desc d;
  if (delta_dv_desc_parse(&d, json, &err) == 0) {
    if (d.storage_type == 'i') {
      delta_dv *dv = NULL;
      int rc = delta_dv_load(NULL, "/t", "f.parquet", json, &dv, &err);
      if (rc == 0) {
        if (delta_dv_cardinality(dv) != (uint64_t)d.cardinality) abort();
        check_decoded(dv);
        delta_dv_free(dv);
      } else if (!strstr(err.message, "f.parquet")) {
        abort();
      }
    } else {
      char *path = NULL;
      if (delta_dv_file_path(&d, "/t", &path, &err) == 0) {
        size_t pl = strlen(path);
        if (path[0] == '/' || strcmp(path, "..") == 0 || strncmp(path, "../", 3) == 0 ||
            strstr(path, "/../") || (pl >= 3 && strcmp(path + pl - 3, "/..") == 0))
          abort();
        inlet_free(path);
      }
    }
    delta_dv_desc_reset(&d);
  } else if (!err.message[0]) {
    abort();
  }
  free(json);
  return 0;
}
