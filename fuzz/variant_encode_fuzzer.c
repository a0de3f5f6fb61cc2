/*
 * libFuzzer harness for the variant encoder (src/batch/variant_encode.c),
 * which turns untrusted JSON text (NDJSON fields, CSV cells) into Variant
 * bytes. The input is the JSON text, copied to a buffer of its exact size.
 *
 * Properties, each an abort when broken:
 *   - an encoded value decodes (variant.c) to JSON text T1 that jansson
 *     reads, holding the same value as the input (jansson is the
 *     independent oracle; numbers compared as doubles, keys as sets);
 *   - T1 encodes again, and decodes to T1 exactly: the decoder's canonical
 *     text is a fixed point, and encoding it twice gives the same bytes;
 *   - text jansson accepts (duplicate keys refused) is refused by the
 *     encoder only for nesting deeper than it writes or a value past its
 *     size limit;
 *   - a refusal leaves a message and the output buffers as they were.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { BUDGET = 1 << 24 };
#define JFLAGS (JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL)

static void decode(const inlet_buf *m, const inlet_buf *v, inlet_buf *out) {
  inlet_error err = INLET_ERROR_INIT;
  if (batch_variant_to_json(out, m->data, m->len, v->data, v->len, BUDGET, &err) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1u << 20)) return 0;
  char *text = malloc(size ? size : 1);
  if (!text) abort();
  if (size) memcpy(text, data, size);
  inlet_buf m = INLET_BUF_INIT, v = INLET_BUF_INIT, t1 = INLET_BUF_INIT;
  inlet_error err = INLET_ERROR_INIT;
  int rc = batch_variant_from_json(&m, &v, text, size, &err);
  json_error_t je;
  json_t *want = json_loadb(text, size, JFLAGS, &je);
  /* A raw NUL byte is never JSON (control characters must be escaped), but
   * jansson's lexer takes it for the end of the input and accepts "200\0":
   * no oracle then. */
  if (want && size && memchr(text, 0, size)) {
    json_decref(want);
    want = NULL;
  }
  if (rc != 0) {
    if (!err.message[0] || m.len || v.len) abort();
    if (want && rc != INLET_ELIMIT && !strstr(err.message, "nested deeper")) abort();
  } else {
    decode(&m, &v, &t1);
    json_t *got = json_loadb((const char *)t1.data, t1.len, JFLAGS, &je);
    /* jansson refuses U+0000 in keys, which the encoder keeps: no oracle then. */
    if (want && (!got || !json_equal(want, got))) abort();
    json_decref(got);
    inlet_buf m2 = INLET_BUF_INIT, v2 = INLET_BUF_INIT, t2 = INLET_BUF_INIT;
    if (batch_variant_from_json(&m2, &v2, (const char *)t1.data, t1.len, &err) != 0) abort();
    decode(&m2, &v2, &t2);
    if (t2.len != t1.len || (t1.len && memcmp(t1.data, t2.data, t1.len) != 0)) abort();
    inlet_buf m3 = INLET_BUF_INIT, v3 = INLET_BUF_INIT;
    if (batch_variant_from_json(&m3, &v3, (const char *)t2.data, t2.len, &err) != 0) abort();
    if (m3.len != m2.len || v3.len != v2.len || memcmp(m3.data, m2.data, m2.len) != 0 ||
        memcmp(v3.data, v2.data, v2.len) != 0)
      abort();
    inlet_buf_reset(&m2);
    inlet_buf_reset(&v2);
    inlet_buf_reset(&t2);
    inlet_buf_reset(&m3);
    inlet_buf_reset(&v3);
  }
  json_decref(want);
  inlet_buf_reset(&m);
  inlet_buf_reset(&v);
  inlet_buf_reset(&t1);
  free(text);
  return 0;
}
