/*
 * libFuzzer harness for the variant decoder (src/batch/variant.c), which
 * turns the untrusted metadata and value bytes of a variant column into
 * JSON text. Input: a 2-byte little-endian metadata length m, then m bytes
 * of metadata, then the value (each copied to a buffer of its exact size,
 * so an overread is a sanitizer error). A decoded value must be one valid
 * JSON document within the byte budget; a rejected one must leave an
 * error message.
 *
 * The same bytes then go through the rebuilding of shredded variants
 * (src/batch/variant_unshred.c) as the `value` of a partially shredded
 * object beside one shredded field (named by the metadata's first key,
 * holding the int8 1): its fields are copied by their extents and merged
 * with the shredded one. Whenever the value decoded above and the rebuild
 * succeeds, the rebuilt object must decode too.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { BUDGET = 1 << 16 };

/* Rebuilds { value: val, typed_value: { <key>: { value: 0c 01 } } }. */
static int rebuild(inlet_buf *out, const uint8_t *meta, size_t ml, const uint8_t *val, size_t vl,
                   const char *key, inlet_error *err) {
  inlet_field leaf = {.name = "value", .type = {.id = INLET_TYPE_BINARY}, .nullable = true};
  inlet_field field = {
      .name = (char *)key, .type = {.id = INLET_TYPE_STRUCT}, .children = &leaf, .n_children = 1};
  inlet_field kids[2] = {
      {.name = "value", .type = {.id = INLET_TYPE_BINARY}, .nullable = true},
      {.name = "typed_value",
       .type = {.id = INLET_TYPE_STRUCT},
       .nullable = true,
       .children = &field,
       .n_children = 1},
  };
  inlet_field g = {
      .name = "var", .type = {.id = INLET_TYPE_STRUCT}, .children = kids, .n_children = 2};
  inlet_array a;
  memset(&a, 0, sizeof a);
  if (inlet_array_init(&a, &g, err) < 0) abort();
  inlet_array *t = &a.children[1];
  if (inlet_array_append_bytes(&a.children[0], &kids[0], val, vl, err) < 0 ||
      inlet_array_append_bytes(&t->children[0].children[0], &leaf, "\x0c\x01", 2, err) < 0 ||
      inlet_array_append_struct_entry(&t->children[0], err) < 0 ||
      inlet_array_append_struct_entry(t, err) < 0 || inlet_array_append_struct_entry(&a, err) < 0)
    abort();
  bool missing = true;
  int rc = batch_variant_unshred(out, meta, ml, &g, &a, 0, &missing, err);
  if (rc == 0 && (missing || out->len == 0)) abort();
  if (rc < 0 && !err->message[0]) abort();
  inlet_array_reset(&a);
  return rc;
}

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
  bool decoded = rc == 0;
  /* The shredded key: the metadata's first, when it is a C string. */
  char key[64] = "a";
  batch_variant_meta m;
  const uint8_t *k;
  size_t kn;
  if (batch_variant_meta_open(&m, meta, ml, &err) == 0 && m.n > 0 &&
      batch_variant_meta_key(&m, 0, &k, &kn) == NULL && kn > 0 && kn < sizeof key &&
      !memchr(k, 0, kn)) {
    memcpy(key, k, kn);
    key[kn] = 0;
  }
  inlet_buf rebuilt = INLET_BUF_INIT;
  err.message[0] = 0;
  if (rebuild(&rebuilt, meta, ml, val, vl, key, &err) == 0 && decoded) {
    inlet_buf_clear(&out);
    if (batch_variant_to_json(&out, meta, ml, rebuilt.data, rebuilt.len, 2 * BUDGET + 64, &err) < 0)
      abort();
  }
  inlet_buf_reset(&rebuilt);
  inlet_buf_reset(&out);
  free(meta);
  free(val);
  return 0;
}
