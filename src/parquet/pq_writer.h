/*
 * The Parquet writer over a storage backend (for other modules: delta and
 * maint write table data files with it). The public
 * inlet_parquet_writer_open creates its file by path, for CLI outputs.
 */
#ifndef INLET_PQ_WRITER_H
#define INLET_PQ_WRITER_H

#include "inlet/parquet.h"
#include "storage/storage.h"
#include "parquet/buf_stash.h"
#include "parquet/raw_pages.h"
#include "util/pool.h"

/* Like inlet_parquet_writer_open, but the file is created through @p st at
 * @p path (relative to its root; the backend's create rules apply) and a
 * writer freed without a successful close removes it through @p st.
 * @p st is borrowed and must outlive the writer. Same return codes, plus
 * the backend's (INLET_EEXISTS, INLET_EINVAL for a symbolic link on the
 * way with the POSIX backend). */
int pq_writer_open_storage(inlet_parquet_writer **out, inlet_storage *st, const char *path,
                           const inlet_schema *schema, const inlet_parquet_writer_options *options,
                           inlet_error *err);

/* Encodes and compresses the column chunks of @p w on @p pool (borrowed,
 * must outlive the writer; NULL: the caller's thread) from now on. Ignored
 * by a writer that made its own pool from options.threads. */
void pq_writer_set_pool(inlet_parquet_writer *w, util_pool *pool);

/* The column writers of @p w take their buffers from @p stash now (call it
 * right after opening; buf_stash.h) and give them back when they are done
 * with them, instead of using a stash of the writer's own. @p stash is
 * borrowed and must outlive the writer. */
void pq_writer_set_stash(inlet_parquet_writer *w, pq_buf_stash *stash);

/*
 * inlet_parquet_writer_write, except that a column whose @p raw entry (one
 * per batch field; @p raw may be NULL) is a valid capture of the pages its
 * rows were decoded from takes those pages as they are
 * (pq_column_writer_copy_pages) instead of encoding the values again, and
 * one whose entry holds the input's dictionary indices builds its dictionary
 * through them (pq_column_writer_write_hinted: the same bytes). Such a
 * batch goes whole into the current row group, so only where it fits there
 * as inlet_parquet_writer_write's slices would fill it: within the row
 * limit, and within the byte target as estimated from the row group's rows
 * so far (for its first batch: its copied pages' uncompressed sizes and
 * the other columns' size in memory). One that does not fit the rest of a
 * row group at least half full starts the next row group if it fits there
 * whole (so a rewrite keeps its input's row groups and their pages); any
 * other is written as usual, every column encoded.
 * The file reads back to the same rows either way.
 */
int pq_writer_write_pages(inlet_parquet_writer *w, const inlet_batch *batch,
                          const pq_raw_chunk *raw, inlet_error *err);
/* Data pages copied so far by pq_writer_write_pages (tests, benchmarks). */
int64_t pq_writer_pages_copied(const inlet_parquet_writer *w);
/* Values pq_writer_write_pages put into a dictionary through their input's
 * dictionary index (raw_pages.h dict_valid) instead of hashing them. */
int64_t pq_writer_values_hinted(const inlet_parquet_writer *w);

#endif /* INLET_PQ_WRITER_H */
