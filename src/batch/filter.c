/*
 * Row selection in place: the rows of a batch a mask keeps, in order (the
 * deletion vectors compaction applies and the rows a copy-on-write delete
 * drops).
 */
#include "batch/batch.h"

int batch_keep_rows(inlet_batch *b, const uint8_t *keep, inlet_error *err) {
  int64_t kept = 0;
  for (int64_t i = 0; i < b->num_rows; i++)
    kept += keep[i] != 0;
  if (kept == b->num_rows) return 0;
  for (int32_t c = 0; c < b->schema.n_fields; c++) {
    const inlet_field *f = &b->schema.fields[c];
    inlet_array fresh;
    TRY(inlet_array_init(&fresh, f, err));
    int rc = inlet_array_reserve_rows(&fresh, f, kept, err);
    for (int64_t i = 0; i < b->num_rows && rc == 0; i++)
      if (keep[i]) rc = inlet_array_append_from(&fresh, f, &b->columns[c], i, err);
    if (rc < 0) {
      inlet_array_reset(&fresh);
      return rc;
    }
    inlet_array_reset(&b->columns[c]);
    b->columns[c] = fresh;
  }
  b->num_rows = kept;
  return 0;
}
