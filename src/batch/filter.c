/*
 * Row selection in place: the rows of a batch a mask keeps, in order (the
 * deletion vectors compaction applies and scans apply, and the rows a
 * copy-on-write delete drops).
 *
 * Flat columns (fixed-width values, strings and binaries) are compacted in
 * their own buffers: kept values, string bytes, offsets and validity bits
 * only ever move towards the front, so one forward pass suffices and no
 * value goes through the typed append path (bench/RESULTS-dv.md: rebuilding
 * every column value by value made a scan through deletion vectors cost
 * twice the CPU of one over the rewritten files). Booleans (bit-packed) and
 * nested columns are rebuilt by inlet_array_append_from.
 */
#include <string.h>

#include "batch/batch.h"

/* Compacts flat column @p a (field @p f, @p n rows) to the rows @p keep
 * names; false (nothing changed) for a column of another kind. */
static bool keep_flat(inlet_array *a, const inlet_field *f, const uint8_t *keep, int64_t n) {
  bool bytes = f->type.id == INLET_TYPE_STRING || f->type.id == INLET_TYPE_BINARY;
  int64_t wd = inlet_type_value_width(&f->type);
  if (a->length != n || a->n_children != 0 || (!bytes && (wd <= 0 || !a->values)) ||
      (bytes && !a->offsets))
    return false;
  int64_t k = 0, nulls = 0;
  int32_t pos = 0; /* strings: where the next kept value's bytes go */
  for (int64_t i = 0; i < n; i++) {
    if (!keep[i]) continue;
    if (a->validity) {
      bool v = inlet_bit_get(a->validity, i);
      nulls += !v;
      inlet_bit_set(a->validity, k, v);
    }
    if (bytes) {
      int32_t lo = a->offsets[i], len = a->offsets[i + 1] - lo;
      if (len > 0 && pos != lo) memmove(a->values + pos, a->values + lo, (size_t)len);
      a->offsets[k] = pos;
      pos += len;
    } else if (k != i) {
      memcpy(a->values + k * wd, a->values + i * wd, (size_t)wd);
    }
    k++;
  }
  if (bytes) a->offsets[k] = pos;
  if (a->validity) {
    /* Appends after this may take the bits past the end as zero. */
    for (int64_t i = k; i < n; i++)
      inlet_bit_set(a->validity, i, false);
    a->null_count = nulls;
  }
  a->length = k;
  return true;
}

int batch_keep_rows(inlet_batch *b, const uint8_t *keep, inlet_error *err) {
  int64_t kept = 0;
  for (int64_t i = 0; i < b->num_rows; i++)
    kept += keep[i] != 0;
  if (kept == b->num_rows) return 0;
  for (int32_t c = 0; c < b->schema.n_fields; c++) {
    const inlet_field *f = &b->schema.fields[c];
    if (keep_flat(&b->columns[c], f, keep, b->num_rows)) continue;
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
