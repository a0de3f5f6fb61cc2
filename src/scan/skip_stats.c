/*
 * Column statistics for skipping: the per-file and per-row-group
 * sc_colstats that sc_pred_possible reads. A file's come from the
 * snapshot's scan plan (delta.h "scan plans": add.stats and partition
 * values, parsed once per snapshot), a row group's from its Parquet column
 * statistics (rg_stats.c) plus the file's partition values.
 */
#include <string.h>

#include "scan/scan_stats.h"

void sc_file_stats_init(sc_file_stats *fs, const inlet_schema *schema) {
  memset(fs, 0, sizeof fs[0]);
  fs->schema = schema;
}

void sc_file_stats_reset(sc_file_stats *fs) {
  inlet_free(fs->cols);
  memset(fs, 0, sizeof *fs);
}

/* Prepares for a new file: every column unknown. */
int sc_file_stats_begin(sc_file_stats *fs, int64_t rows, inlet_error *err) {
  int32_t n = fs->schema->n_fields;
  if (!fs->cols) {
    fs->cols = inlet_calloc((size_t)n + 1, sizeof *fs->cols);
    if (!fs->cols) return inlet_fail(err, INLET_ENOMEM, "out of memory reading statistics");
    fs->n = n;
  }
  for (int32_t i = 0; i < n; i++) {
    memset(&fs->cols[i], 0, sizeof fs->cols[i]);
    fs->cols[i].null_count = -1;
    fs->cols[i].rows = rows;
  }
  return 0;
}
