/*
 * libFuzzer harness for the schema changes a record can make under
 * `--schema-evolution add` (src/delta/delta_schema_evolve.c): the first
 * input byte picks a table schema (narrow integers and floats at the top
 * level, in structs, array elements, map keys and values, nested maps), the
 * rest is the record. For type widening (delta_schema_widen) and new fields
 * (delta_schema_evolve) alike:
 *   - a valid schema never fails as corrupt: widening ends in 0 or
 *     INLET_ELIMIT, evolution in 0, INLET_EINVAL (a field that cannot be a
 *     column) or INLET_ECORRUPT (not a JSON object);
 *   - a changed schema parses (delta_schema_parse) and is a fixed point:
 *     the same record changes it no further;
 *   - a record the text reader converts into the old schema (unknown fields
 *     ignored) widens nothing: widening is only for values that do not fit.
 *     Only for a record without a newline: the changes take the input as
 *     one JSON text, in which a newline is whitespace, while the reader
 *     takes it as NDJSON, in which a newline ends a record (so a record
 *     split in two could "fit" as its second half alone).
 * Any violation aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "delta/delta.h"
#include "inlet/text.h"

static const char *const schemas[] = {
    "{\"type\":\"struct\",\"fields\":["
    "{\"name\":\"b\",\"type\":\"byte\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"s\",\"type\":\"short\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"i\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"f\",\"type\":\"float\",\"nullable\":true,\"metadata\":{}}]}",
    "{\"type\":\"struct\",\"fields\":["
    "{\"name\":\"st\",\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"name\":\"a\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":"
    "[{\"fromType\":\"short\",\"toType\":\"integer\"}]}},"
    "{\"name\":\"f\",\"type\":\"float\",\"nullable\":true,\"metadata\":{}}]},"
    "\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"arr\",\"type\":{\"type\":\"array\",\"elementType\":\"byte\",\"containsNull\":true}"
    ","
    "\"nullable\":true,\"metadata\":{}}]}",
    "{\"type\":\"struct\",\"fields\":["
    "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"keyType\":\"integer\",\"valueType\":\"short\","
    "\"valueContainsNull\":true},\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"n\",\"type\":{\"type\":\"array\",\"elementType\":{\"type\":\"map\",\"keyType\":"
    "\"float\",\"valueType\":{\"type\":\"array\",\"elementType\":\"byte\",\"containsNull\":true},"
    "\"valueContainsNull\":true},\"containsNull\":true},\"nullable\":true,\"metadata\":{}}]}",
};
#define N_SCHEMAS (sizeof schemas / sizeof schemas[0])

/* True when the text reader converts @p rec (one NDJSON record) into the
 * schema of @p json, unknown fields ignored. */
static bool fits(const char *json, const uint8_t *rec, size_t len) {
  inlet_schema s;
  inlet_schema_init(&s);
  inlet_error err = INLET_ERROR_INIT;
  if (delta_schema_parse(&s, json, &err) < 0) abort();
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.format = INLET_TEXT_NDJSON;
  o.strict = false;
  o.strict_types = true;
  inlet_text_reader *r = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  bool ok = false;
  if (inlet_text_reader_open_memory(&r, rec, len, &s, &o, &err) == 0)
    ok = inlet_text_reader_next(r, &b, &err) == 0 && b.num_rows == 1;
  inlet_batch_reset(&b);
  inlet_text_reader_free(r);
  inlet_schema_reset(&s);
  return ok;
}

/* One change (@p widen: delta_schema_widen, else delta_schema_evolve). */
static int change(bool widen, char **out, int32_t *n, const char *json, const uint8_t *rec,
                  size_t len) {
  inlet_error err = INLET_ERROR_INIT;
  return widen ? delta_schema_widen(out, n, json, (const char *)rec, len, &err)
               : delta_schema_evolve(out, n, json, (const char *)rec, len, &err);
}

static void check(bool widen, const char *json, const uint8_t *rec, size_t len) {
  char *out = NULL;
  int32_t n = -1;
  int rc = change(widen, &out, &n, json, rec, len);
  if (widen ? rc != 0 && rc != INLET_ELIMIT : rc != 0 && rc != INLET_EINVAL && rc != INLET_ECORRUPT)
    abort();
  if (rc < 0 || n == 0) {
    if (out) abort();
    return;
  }
  if (n < 0 || !out) abort();
  inlet_schema s;
  inlet_schema_init(&s);
  inlet_error err = INLET_ERROR_INIT;
  if (delta_schema_parse(&s, out, &err) < 0) abort();
  inlet_schema_reset(&s);
  char *again = NULL;
  int32_t m = -1;
  if (change(widen, &again, &m, out, rec, len) != 0 || m != 0 || again) abort();
  if (widen && !memchr(rec, '\n', len) && fits(json, rec, len)) abort();
  inlet_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  const char *json = schemas[data[0] % N_SCHEMAS];
  check(true, json, data + 1, size - 1);
  check(false, json, data + 1, size - 1);
  return 0;
}
