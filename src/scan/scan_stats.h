/*
 * Private to src/scan: per-column statistics of one file or row group, in
 * the form the predicate's outcome analysis reads (sc_colstats), taken
 * from the snapshot's scan plan (add.stats, partition values) and Parquet
 * column statistics.
 */
#ifndef INLET_SCAN_STATS_H
#define INLET_SCAN_STATS_H

#include "scan/scan_int.h"

typedef struct sc_file_stats {
  const inlet_schema *schema; /* borrowed table schema */
  int32_t n;
  sc_colstats *cols; /* owned, one per schema column; bytes lent by the plan or the reader */
} sc_file_stats;

void sc_file_stats_init(sc_file_stats *fs, const inlet_schema *schema);
void sc_file_stats_reset(sc_file_stats *fs);
/* Forgets the previous file: every column unknown, @p rows rows (-1 unknown). */
int sc_file_stats_begin(sc_file_stats *fs, int64_t rows, inlet_error *err);

struct inlet_parquet_reader;
/* Row group @p rg of @p r: bounds and null counts from the Parquet column
 * chunk statistics of flat top-level columns matched by name. */
int sc_file_stats_row_group(sc_file_stats *fs, const struct inlet_parquet_reader *r, int32_t rg,
                            inlet_error *err);

struct pq_statistics;
/* Fills @p cs (table field @p tf, stored as file field @p ff of Parquet
 * physical type @p physical) from Parquet statistics @p st: the null count,
 * and bounds where their order is trusted (see rg_stats.c). Bytes are
 * borrowed from @p st. Leaves what it cannot trust as it was. */
void sc_colstats_from_parquet(sc_colstats *cs, const inlet_field *tf, const inlet_field *ff,
                              int32_t physical, const struct pq_statistics *st);
/* The top-level field of @p r's file holding physical field @p pf (by field
 * id in column mapping id mode, else by name, case-insensitively), or -1. */
int32_t sc_file_field(const struct inlet_parquet_reader *r, const inlet_field *pf);

/* ---- page selection (page_select.c) ---------------------------------------- */

struct pq_page_index;
/* Row ranges of one row group in which a predicate may be true, from the
 * page index (ColumnIndex + OffsetIndex) of the columns it reads. */
typedef struct sc_page_sel {
  struct pq_page_index *pi; /* owned, one per table column */
  int32_t n_cols;
  int64_t *ranges; /* owned: 2 per range */
  int32_t n_ranges, cap_ranges;
  int64_t *bounds; /* owned scratch: page starts */
  size_t cap_bounds;
  int64_t rows_selected; /* of the last row group */
} sc_page_sel;

void sc_page_sel_init(sc_page_sel *ps);
void sc_page_sel_reset(sc_page_sel *ps);
/*
 * Selects the rows of row group @p rg of @p r that @p pred may match, given
 * @p fs holding the row group's statistics (sc_file_stats_row_group plus
 * partition values; its predicate columns are overwritten page by page).
 * *use is false when no page index helps (read the whole row group);
 * otherwise ps->ranges holds ps->n_ranges ranges (possibly none: skip the
 * row group) of ps->rows_selected rows.
 * @return 0, INLET_ECORRUPT (bad page index, naming the file), INLET_EIO,
 *         INLET_ENOMEM.
 */
int sc_page_select(sc_page_sel *ps, bool *use, const inlet_predicate *pred, sc_file_stats *fs,
                   const uint8_t *is_part, const struct inlet_parquet_reader *r, int32_t rg,
                   inlet_error *err);

#endif /* INLET_SCAN_STATS_H */
