/*
 * libFuzzer harness for text import and export (include/inlet/text.h):
 * the first input byte picks the format (NDJSON or CSV, with or without a
 * header) and options (strict, strict types, epoch unit, tiny batches and
 * record limit);
 * the rest is the text. Every batch must validate, and the round trip
 * export(import(export(x))) == export(x) must hold: anything the importer
 * accepts, the canonical NDJSON it exports imports back to the same text.
 * Any violation aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inlet/text.h"
#include "util/buf.h"

#define DDL                                                                                        \
  "i long not null, b byte, u uint64, f float, d double, s string, k boolean, dt date, "           \
  "t timestamp, tn timestamp_ntz_ns, tm time, dec decimal(20,4), bin binary, id uuid, "            \
  "st struct<x:int, y:array<string>>, m map<string,double>, l array<array<long>>"

static int sink(void *ctx, const void *data, size_t len, inlet_error *err) {
  (void)err;
  return inlet_buf_append(ctx, data, len);
}

/* Imports and re-exports; returns 0 or the reader's fatal code. */
static int import_export(const inlet_schema *s, const inlet_text_reader_options *o,
                         const void *text, size_t len, inlet_buf *out) {
  inlet_text_reader *r = NULL;
  inlet_text_writer *w = NULL;
  inlet_batch b;
  memset(&b, 0, sizeof b);
  inlet_error err = INLET_ERROR_INIT;
  int rc = inlet_text_reader_open_memory(&r, text, len, s, o, &err);
  if (rc == 0) rc = inlet_text_writer_new(&w, s, NULL, sink, out, &err);
  while (rc == 0) {
    rc = inlet_text_reader_next(r, &b, &err);
    if (rc || b.num_rows == 0) break;
    if (inlet_batch_validate(&b, &err) != 0) abort();
    rc = inlet_text_writer_write(w, &b, &err);
  }
  if (rc == 0) rc = inlet_text_writer_finish(w, &err);
  inlet_batch_reset(&b);
  inlet_text_writer_free(w);
  inlet_text_reader_free(r);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  static inlet_schema schema;
  static bool ready;
  if (!ready) {
    if (inlet_schema_parse(&schema, DDL, NULL) != 0) abort();
    ready = true;
  }
  uint8_t mode = data[0];
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  o.format = (mode & 1) ? INLET_TEXT_CSV : INLET_TEXT_NDJSON;
  o.csv_header = !(mode & 2);
  o.strict = (mode & 4) != 0;
  o.strict_types = (mode & 0x80) != 0; /* ingest's and append's default */
  o.epoch_unit = (inlet_epoch_unit)((mode >> 3) % 5);
  if (mode & 0x40) {
    o.max_batch_rows = 3;
    o.max_record_bytes = 64;
  }
  /* An exact-size copy, so any overread is caught by ASan. */
  uint8_t *text = malloc(size - 1 ? size - 1 : 1);
  if (!text) return 0;
  memcpy(text, data + 1, size - 1);
  inlet_buf once = INLET_BUF_INIT, twice = INLET_BUF_INIT;
  int rc = import_export(&schema, &o, text, size - 1, &once);
  if (rc == 0) {
    inlet_text_reader_options again = INLET_TEXT_READER_OPTIONS_INIT;
    if (import_export(&schema, &again, once.data ? (const void *)once.data : "", once.len,
                      &twice) != 0)
      abort();
    if (once.len != twice.len || (once.len && memcmp(once.data, twice.data, once.len) != 0))
      abort();
  } else if (rc != INLET_EINVAL) {
    abort(); /* only a CSV header may fail the whole input */
  }
  inlet_buf_reset(&once);
  inlet_buf_reset(&twice);
  free(text);
  return 0;
}
