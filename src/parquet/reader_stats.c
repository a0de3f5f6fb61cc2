/*
 * pq_reader_chunk_statistics (reader_stats.h): the Statistics of one flat
 * top-level column chunk of a row group, straight from the parsed footer
 * (parquet.thrift RowGroup.columns[].meta_data.statistics).
 */
#include "parquet/reader_stats.h"

#include "parquet/reader_int.h"

const pq_statistics *pq_reader_chunk_statistics(const inlet_parquet_reader *r, int32_t rg,
                                                int32_t field, pq_type *physical) {
  if (r->nested_mode || !r->field_column || rg < 0 || rg >= r->meta.n_row_groups || field < 0 ||
      field >= r->sd.schema.n_fields)
    return NULL;
  const pq_row_group *g = &r->meta.row_groups[rg];
  int32_t leaf = r->field_column[field];
  if (leaf < 0 || leaf >= g->n_columns || !g->columns[leaf].has_meta_data) return NULL;
  const pq_column_meta *m = &g->columns[leaf].meta_data;
  if (!m->has_statistics) return NULL;
  *physical = m->type;
  return &m->statistics;
}
