/*
 * The public predicate API of include/inlet/scan.h over the expression
 * module (src/expr): `--where` is parsed, evaluated and analysed for
 * skipping there, with the same language compaction and table constraints
 * use.
 */
#include "inlet/scan.h"
#include "scan/scan_int.h"

int inlet_predicate_parse(inlet_predicate **out, const char *text, const inlet_schema *schema,
                          inlet_error *err) {
  return expr_parse(out, text, schema, EXPR_WHERE, err);
}

void inlet_predicate_free(inlet_predicate *p) {
  expr_free(p);
}

int inlet_predicate_eval(const inlet_predicate *p, const inlet_batch *batch, uint8_t *result,
                         inlet_error *err) {
  FAIL_IF(batch->schema.n_fields != p->schema.n_fields, err, INLET_EINVAL,
          "batch has %d columns, the predicate's schema %d", (int)batch->schema.n_fields,
          (int)p->schema.n_fields);
  for (int32_t i = 0; i < p->n_cols; i++) {
    const inlet_field *f = &batch->schema.fields[p->cols[i]];
    FAIL_IF(!inlet_field_equal(f, &p->schema.fields[p->cols[i]]), err, INLET_EINVAL,
            "batch column %d (\"%s\") differs from the predicate's schema", (int)p->cols[i],
            f->name);
  }
  return expr_eval(p, batch, 0, batch->num_rows, result, err);
}
