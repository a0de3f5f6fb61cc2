/*
 * Page-level skipping inside a row group (parquet-format PageIndex.md):
 * the page index gives, per data page of a column, the row it starts at
 * and its bounds and null count. The predicate's columns cut the row group
 * into segments at every page start of any of them; within a segment each
 * such column is summarised by exactly one page, so the same outcome
 * analysis as for files and row groups (sc_pred_possible) decides whether
 * the segment can hold a match. Adjacent kept segments become one range
 * for inlet_parquet_reader_read_rows, which then inflates only the pages of
 * every projected column that overlap a range.
 *
 * A page's null count describes the whole page, not a segment of it: a
 * segment is known to be all null only for a null page, and free of nulls
 * only when the page has none; anything else is left unknown.
 */
#include <stdlib.h>

#include "parquet/page_index.h"
#include "scan/scan_stats.h"

void sc_page_sel_init(sc_page_sel *ps) {
  memset(ps, 0, sizeof *ps);
}

void sc_page_sel_reset(sc_page_sel *ps) {
  if (!ps) return;
  for (int32_t c = 0; c < ps->n_cols && ps->pi; c++)
    pq_page_index_reset(&ps->pi[c]);
  inlet_free(ps->pi);
  inlet_free(ps->ranges);
  inlet_free(ps->bounds);
  memset(ps, 0, sizeof *ps);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int add_range(sc_page_sel *ps, int64_t a, int64_t b, inlet_error *err) {
  if (ps->n_ranges > 0 && ps->ranges[2 * ps->n_ranges - 1] == a) {
    ps->ranges[2 * ps->n_ranges - 1] = b;
  } else {
    if (ps->n_ranges == ps->cap_ranges) {
      int32_t cap = ps->cap_ranges ? ps->cap_ranges * 2 : 16;
      int64_t *p = inlet_realloc(ps->ranges, (size_t)cap * 2 * sizeof *p);
      if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory selecting pages");
      ps->ranges = p;
      ps->cap_ranges = cap;
    }
    ps->ranges[2 * ps->n_ranges] = a;
    ps->ranges[2 * ps->n_ranges + 1] = b;
    ps->n_ranges++;
  }
  ps->rows_selected += b - a;
  return 0;
}

int sc_page_select(sc_page_sel *ps, bool *use, const inlet_predicate *pred, sc_file_stats *fs,
                   const uint8_t *is_part, const inlet_parquet_reader *r, int32_t rg,
                   inlet_error *err) {
  *use = false;
  ps->n_ranges = 0;
  ps->rows_selected = 0;
  int64_t num_rows = inlet_parquet_reader_row_group_rows(r, rg);
  if (num_rows <= 0 || pred->n_cols == 0) return 0;
  if (!ps->pi) {
    ps->n_cols = fs->n;
    ps->pi = inlet_calloc((size_t)ps->n_cols + 1, sizeof *ps->pi);
    if (!ps->pi) return inlet_fail(err, INLET_ENOMEM, "out of memory selecting pages");
  }
  const inlet_schema *file_schema = inlet_parquet_reader_schema(r);
  int32_t file_field[64];
  size_t n_bounds = 0, used = 0;
  for (int32_t i = 0; i < pred->n_cols && i < 64; i++) {
    int32_t c = pred->cols[i];
    file_field[i] = -1;
    pq_page_index *pi = &ps->pi[c];
    pq_page_index_reset(pi);
    if (c < 0 || c >= ps->n_cols || is_part[c]) continue;
    int32_t j = sc_file_field(r, &fs->schema->fields[c]);
    if (j < 0) continue;
    TRY(pq_reader_page_index(r, rg, j, pi, err));
    if (!pi->has_column_index || pi->n_pages <= 1) continue;
    file_field[i] = j;
    used++;
    n_bounds += (size_t)pi->n_pages;
  }
  if (used == 0) return 0;
  if (n_bounds + 1 > ps->cap_bounds) {
    int64_t *p = inlet_realloc(ps->bounds, (n_bounds + 1) * sizeof *p);
    if (!p) return inlet_fail(err, INLET_ENOMEM, "out of memory selecting pages");
    ps->bounds = p;
    ps->cap_bounds = n_bounds + 1;
  }
  size_t nb = 0;
  for (int32_t i = 0; i < pred->n_cols && i < 64; i++) {
    if (file_field[i] < 0) continue;
    const pq_page_index *pi = &ps->pi[pred->cols[i]];
    for (int32_t p = 0; p < pi->n_pages; p++)
      ps->bounds[nb++] = pi->first_row[p];
  }
  qsort(ps->bounds, nb, sizeof *ps->bounds, cmp_i64);
  size_t k = 0;
  for (size_t i = 0; i < nb; i++)
    if (k == 0 || ps->bounds[i] != ps->bounds[k - 1]) ps->bounds[k++] = ps->bounds[i];
  nb = k;
  ps->bounds[nb] = num_rows;

  int32_t page_at[64] = {0};
  for (size_t b = 0; b < nb; b++) {
    int64_t lo = ps->bounds[b], hi = ps->bounds[b + 1];
    for (int32_t i = 0; i < pred->n_cols && i < 64; i++) {
      if (file_field[i] < 0) continue;
      int32_t c = pred->cols[i];
      const pq_page_index *pi = &ps->pi[c];
      while (page_at[i] + 1 < pi->n_pages && pi->first_row[page_at[i] + 1] <= lo)
        page_at[i]++;
      int32_t p = page_at[i];
      sc_colstats *cs = &fs->cols[c];
      cs->has_min = cs->has_max = false;
      cs->rows = hi - lo;
      cs->null_count = -1;
      if (pi->null_pages[p]) {
        cs->null_count = hi - lo;
        continue;
      }
      pq_statistics st;
      memset(&st, 0, sizeof st);
      st.has_min_value = st.has_max_value = true;
      st.min_value = pi->min[p];
      st.max_value = pi->max[p];
      sc_colstats_from_parquet(cs, &fs->schema->fields[c], &file_schema->fields[file_field[i]],
                               pq_reader_field_physical_type(r, file_field[i]), &st);
      if (pi->has_null_counts && pi->null_counts[p] == 0) cs->null_count = 0;
    }
    if (sc_pred_possible(pred, fs->cols) & SC_MAY_TRUE) TRY(add_range(ps, lo, hi, err));
  }
  *use = true;
  return 0;
}
