/*
 * The Parquet reader over a storage backend (for other modules: delta and
 * maint read table data files and checkpoints through the table's
 * inlet_storage, so a table on an object store is read with ranged GETs).
 * The public inlet_parquet_reader_open opens a local file by path, for CLI
 * inputs.
 */
#ifndef INLET_PQ_READER_H
#define INLET_PQ_READER_H

#include "inlet/parquet.h"
#include "parquet/raw_pages.h"
#include "storage/storage.h"
#include "util/pool.h"

/* Like inlet_parquet_reader_open, but the file is @p path below @p st's
 * root. @p size >= 0 is the size the caller knows (a Delta add action's
 * size): object stores then send no HEAD request; -1 if unknown. Messages
 * name the file as "<root>/<path>". @p st is borrowed and must outlive the
 * reader. Same return codes, plus the backend's (INLET_ENOTFOUND). */
int pq_reader_open_storage(inlet_parquet_reader **out, inlet_storage *st, const char *path,
                           int64_t size, const inlet_parquet_reader_options *options,
                           inlet_error *err);

/* The reader over an open file @p file, which it owns from here on (also on
 * failure); @p name names it in messages. */
int pq_reader_open_file(inlet_parquet_reader **out, inlet_rfile *file, const char *name,
                        const inlet_parquet_reader_options *options, inlet_error *err);

/* A second reader of the file @p src reads, over @p file (owned from here
 * on, also on failure; its own handle on the same bytes), that shares
 * @p src's parsed footer and schema instead of reading them again: the
 * parallel scan of one file's row groups (src/scan). The clone has its own
 * projection (all columns), buffers and counters, so clones of one reader
 * may read on different threads at once; @p src is only read, and must
 * outlive its clones. 0, INLET_ENOMEM. */
int pq_reader_clone(inlet_parquet_reader **out, const inlet_parquet_reader *src, inlet_rfile *file,
                    inlet_error *err);

/*
 * inlet_parquet_reader_read_row_group with @p r's projected fields split
 * into @p n_parts contiguous runs, each read by one of @p parts (clones of
 * @p r: pq_reader_clone, their own file handles) as a task on @p pool: a
 * row group too big to read ahead is decoded on several cores. The batch,
 * and on failure the error (the first failing field's, as one reader
 * reports it), are those of inlet_parquet_reader_read_row_group.
 */
int pq_reader_read_row_group_parts(inlet_parquet_reader *r, inlet_parquet_reader *const *parts,
                                   int32_t n_parts, util_pool *pool, int32_t rg, inlet_batch *out,
                                   inlet_error *err);

/* From now on the whole row groups @p r reads (read_row_group, and
 * read_row_group_parts) keep each projected flat column's compressed pages
 * in @p raw[i] (n_proj entries, the caller's) when they qualify
 * (raw_pages.h); a NULL @p raw stops it. Nested reads capture nothing. */
void pq_reader_capture_pages(inlet_parquet_reader *r, pq_raw_chunk *raw);

/* True when @p r reads its columns through the nested (record-shredding)
 * path: inlet_parquet_reader_read_rows then refuses row ranges, and a caller
 * reads whole row groups instead. */
bool pq_reader_nested(const inlet_parquet_reader *r);

#endif /* INLET_PQ_READER_H */
