/*
 * libFuzzer harness for the expression language (src/expr) behind `--where`
 * predicates (include/inlet/scan.h) and table constraints: the input is the
 * expression text, parsed against a fixed schema in both dialects (the
 * WHERE one of scan and compaction, the Spark one of delta.constraints.*).
 * A rejected text must carry a message naming a column within the text.
 * An accepted one is evaluated over a fixed batch (nulls, NaN, negative
 * decimals, empty strings, nested values), and these properties must hold:
 * every result is TRUE, FALSE or NULL; each row evaluated alone gives what
 * it gives within the batch; and skipping is sound: with exact
 * min/max/null counts of the batch, and with no statistics at all, the
 * outcome analysis never rules out TRUE when some row is TRUE. Any
 * violation aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "inlet/inlet.h"
#include "scan/scan_int.h"

static const char *DDL =
    "id long, user string, amount decimal(10,2), score double, ts timestamp, flag boolean, "
    "day date, small int, tags array<string>, st struct<a:long,t:string>, m map<string,long>";

static const char *ROWS =
    "{\"id\":1,\"user\":\"ann\",\"amount\":\"0.10\",\"score\":1.5,\"ts\":\"2024-05-01T10:00:00Z\","
    "\"flag\":true,\"day\":\"2024-05-01\",\"small\":-3,\"tags\":[\"a\"],\"st\":{\"a\":1,"
    "\"t\":\"x\"},\"m\":{\"k\":2}}\n"
    "{\"id\":2,\"user\":null,\"amount\":\"2.00\",\"score\":\"NaN\",\"ts\":\"2024-05-01T12:00:00."
    "000500Z\","
    "\"flag\":false,\"day\":\"2024-05-02\",\"small\":7,\"st\":{\"a\":null,\"t\":\"\"},"
    "\"m\":{}}\n"
    "{\"id\":-3,\"user\":\"o'neil\",\"amount\":null,\"score\":null,\"ts\":null,\"flag\":null,"
    "\"day\":null,\"small\":null}\n"
    "{\"id\":4,\"user\":\"bob\",\"amount\":\"-3.25\",\"score\":-2,\"ts\":\"2024-05-02T00:00:00Z\","
    "\"flag\":true,\"day\":\"2024-05-02\",\"small\":0}\n"
    "{\"id\":9223372036854775807,\"user\":\"\",\"amount\":\"100.00\",\"score\":\"-Infinity\","
    "\"ts\":\"1969-12-31T23:59:59Z\",\"flag\":false,\"day\":\"1900-01-01\",\"small\":2147483647}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inlet_schema schema;
static inlet_batch batch;
static sc_colstats exact[16], unknown[16];

static void init_once(void) {
  static int done;
  if (done) return;
  done = 1;
  inlet_error err = INLET_ERROR_INIT;
  inlet_text_reader *r = NULL;
  inlet_text_reader_options o = INLET_TEXT_READER_OPTIONS_INIT;
  if (inlet_schema_parse(&schema, DDL, &err) ||
      inlet_text_reader_open_memory(&r, ROWS, strlen(ROWS), &schema, &o, &err) ||
      inlet_text_reader_next(r, &batch, &err) || batch.num_rows != 5)
    abort();
  inlet_text_reader_free(r);
  for (int32_t c = 0; c < schema.n_fields; c++) {
    const inlet_field *f = &schema.fields[c];
    const inlet_array *a = &batch.columns[c];
    sc_kind k = sc_kind_of(&f->type);
    unknown[c].null_count = -1;
    unknown[c].rows = -1;
    exact[c].rows = batch.num_rows;
    exact[c].null_count = 0;
    for (int64_t row = 0; row < batch.num_rows; row++) {
      if (!inlet_array_is_valid(a, row)) {
        exact[c].null_count++;
        continue;
      }
      if (k == SCK_NONE) continue;
      sc_value v;
      sc_value_get(&v, k, &f->type, a, row);
      if (!exact[c].has_min || sc_value_cmp(k, &v, &exact[c].min) < 0) exact[c].min = v;
      if (!exact[c].has_max || sc_value_cmp(k, &v, &exact[c].max) > 0) exact[c].max = v;
      exact[c].has_min = exact[c].has_max = true;
    }
  }
}

/* The properties above for one parse of @p text (a predicate or NULL). */
static void check(const char *text, inlet_predicate *p, int rc, const inlet_error *err) {
  if (rc < 0) {
    if (p) abort();
    if (rc == INLET_EINVAL || rc == INLET_ENOTFOUND) {
      unsigned long col = 0;
      if (sscanf(inlet_errmsg(err), "column %lu:", &col) != 1) abort();
      if (col < 1 || col > strlen(text) + 1) abort();
    }
    return;
  }
  inlet_error e = INLET_ERROR_INIT;
  uint8_t res[8], one;
  if (inlet_predicate_eval(p, &batch, res, &e) != 0) abort();
  bool any_true = false;
  for (int64_t r = 0; r < batch.num_rows; r++) {
    if (res[r] > 2) abort();
    any_true |= res[r] == 1;
    if (expr_eval(p, &batch, r, 1, &one, &e) != 0 || one != res[r]) abort();
  }
  if (any_true && !(sc_pred_possible(p, exact) & SC_MAY_TRUE)) abort();
  if (any_true && !(sc_pred_possible(p, unknown) & SC_MAY_TRUE)) abort();
  inlet_predicate_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  init_once();
  if (size > 4096) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  inlet_error err = INLET_ERROR_INIT;
  inlet_predicate *p = NULL;
  int rc = inlet_predicate_parse(&p, text, &schema, &err);
  check(text, p, rc, &err);
  p = NULL;
  rc = expr_parse(&p, text, &schema, EXPR_SPARK, &err);
  check(text, p, rc, &err);
  free(text);
  return 0;
}
