/*
 * Read access to the column chunk statistics of an open reader, for
 * row-group skipping in src/scan (parquet.thrift ColumnMetaData.statistics).
 * A module face over reader_int.h, which stays private to src/parquet.
 */
#ifndef INLET_PARQUET_READER_STATS_H
#define INLET_PARQUET_READER_STATS_H

#include "inlet/parquet.h"
#include "parquet/pq_meta.h"

/*
 * Statistics of top-level field @p field (index in
 * inlet_parquet_reader_schema) in row group @p rg, when the field is a flat
 * column whose chunk has statistics; NULL otherwise (nested field, bad
 * index, no statistics). *physical receives the chunk's physical type. The
 * pointer and its bytes live as long as the reader.
 */
const pq_statistics *pq_reader_chunk_statistics(const inlet_parquet_reader *r, int32_t rg,
                                                int32_t field, pq_type *physical);

#endif /* INLET_PARQUET_READER_STATS_H */
