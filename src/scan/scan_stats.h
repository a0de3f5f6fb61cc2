/*
 * Private to src/scan: per-column statistics of one file or row group, in
 * the form the predicate's outcome analysis reads (sc_colstats), gathered
 * from add.stats JSON, partition values and Parquet column statistics.
 */
#ifndef INLET_SCAN_STATS_H
#define INLET_SCAN_STATS_H

#include "scan/scan_int.h"

typedef struct sc_file_stats {
  const inlet_schema *schema; /* borrowed table schema */
  int32_t n;
  sc_colstats *cols;        /* owned, one per schema column */
  inlet_array *mins, *maxs; /* owned 1-row arrays backing the bounds */
  inlet_buf scratch;        /* owned */
} sc_file_stats;

void sc_file_stats_init(sc_file_stats *fs, const inlet_schema *schema);
void sc_file_stats_reset(sc_file_stats *fs);
/* Forgets the previous file: every column unknown, @p rows rows (-1 unknown). */
int sc_file_stats_begin(sc_file_stats *fs, int64_t rows, inlet_error *err);
/* Reads add.stats (NULL or malformed: nothing learnt). Returns 0. */
int sc_file_stats_from_json(sc_file_stats *fs, const char *json);
/* Column @p c is a partition column holding @p value (NULL: null) in every
 * row. 0 or INLET_ENOMEM. */
int sc_file_stats_partition(sc_file_stats *fs, int32_t c, const char *value, inlet_error *err);

struct inlet_parquet_reader;
/* Row group @p rg of @p r: bounds and null counts from the Parquet column
 * chunk statistics of flat top-level columns matched by name. */
int sc_file_stats_row_group(sc_file_stats *fs, const struct inlet_parquet_reader *r, int32_t rg,
                            inlet_error *err);

#endif /* INLET_SCAN_STATS_H */
