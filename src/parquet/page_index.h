/*
 * The Parquet page index (parquet-format PageIndex.md; parquet.thrift
 * ColumnIndex, OffsetIndex, PageLocation): per data page of a column chunk,
 * where the page is and which row it starts at (OffsetIndex), and its
 * null_pages flag, min/max bounds and null count (ColumnIndex). Writers
 * place all ColumnIndex structs, then all OffsetIndex structs, between the
 * last column chunk and the footer; ColumnChunk fields 4-7 locate them.
 *
 * Two halves:
 * - pq_page_index_builder collects one column chunk's pages while the
 *   column writer emits them and serializes both structs;
 * - pq_page_index is a parsed, validated index of one column chunk, loaded
 *   by pq_reader_page_index for row-range selection (src/scan).
 *
 * A column index is left out for chunks whose page bounds cannot be
 * written (unknown sort order, a page of only NaNs, a byte-array max that
 * cannot be truncated), as parquet.thrift requires; the offset index is
 * always written.
 */
#ifndef INLET_PARQUET_PAGE_INDEX_H
#define INLET_PARQUET_PAGE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "inlet/error.h"
#include "inlet/parquet.h"
#include "parquet/pq_meta.h"
#include "parquet/stats.h"
#include "util/buf.h"

/* ---- writing --------------------------------------------------------------- */

typedef struct pq_page_rec {
  int64_t first_row; /* row of the row group the page starts at */
  int64_t span;      /* bytes of header + compressed body */
  int64_t null_count;
  bool null_page;          /* only nulls */
  size_t min_off, max_off; /* into the builder's bytes (null pages: 0, 0) */
  uint32_t min_len, max_len;
} pq_page_rec;

typedef struct pq_page_index_builder {
  pq_page_rec *pages; /* owned */
  size_t n_pages, cap;
  inlet_buf bytes;          /* owned: min/max values of the pages */
  bool column_index_ok;     /* every page so far has writable bounds */
  pq_file_metadata scratch; /* owned: arena for pq_stats_to_thrift */
} pq_page_index_builder;

void pq_page_index_builder_init(pq_page_index_builder *b);
void pq_page_index_builder_reset(pq_page_index_builder *b);
/* Forgets the pages (next column chunk), keeping memory. */
void pq_page_index_builder_clear(pq_page_index_builder *b);

/*
 * Records the next data page: it starts at row @p first_row, takes @p span
 * bytes in the file and holds the values summarised by @p page (its counts
 * and min/max; values counted are value slots). Byte-array bounds are
 * truncated to @p truncate bytes (UTF-8 aware when @p utf8).
 * @return 0, INLET_ENOMEM.
 */
int pq_page_index_builder_add(pq_page_index_builder *b, int64_t first_row, int64_t span,
                              const pq_stats *page, int32_t truncate, bool utf8, inlet_error *err);

/*
 * Appends the chunk's serialized ColumnIndex to @p column_index (nothing
 * when it cannot be written; *has_column_index says which) and its
 * OffsetIndex to @p offset_index. The data pages lie back to back from
 * file offset @p first_page.
 * @return 0, INLET_ENOMEM, INLET_ELIMIT (a page over 2 GiB).
 */
int pq_page_index_builder_serialize(const pq_page_index_builder *b, int64_t first_page,
                                    inlet_buf *column_index, bool *has_column_index,
                                    inlet_buf *offset_index, inlet_error *err);

/* ---- reading ---------------------------------------------------------------- */

typedef struct pq_page_index {
  int32_t n_pages;
  int64_t *first_row;    /* owned, n_pages + 1 entries: the last is the row count */
  int64_t *offset;       /* owned, n_pages: file offset of each page */
  int32_t *size;         /* owned, n_pages: header + compressed body */
  bool has_column_index; /* the arrays below are valid */
  bool has_null_counts;
  bool *null_pages;     /* owned, n_pages */
  pq_bytes *min, *max;  /* owned, n_pages; bytes point into raw */
  int64_t *null_counts; /* owned, n_pages (when has_null_counts) */
  uint8_t *raw;         /* owned: the serialized ColumnIndex */
} pq_page_index;

void pq_page_index_init(pq_page_index *pi);
/* Frees everything and re-initialises. NULL-safe. */
void pq_page_index_reset(pq_page_index *pi);

/*
 * Parses an OffsetIndex of a column chunk in a row group of @p num_rows
 * rows whose bytes lie in [@p data_start, @p data_end) of the file, and
 * optionally (@p ci non-NULL) its ColumnIndex, into @p pi (reset first).
 * Page locations must be ordered, start at row 0, rise strictly and lie in
 * the data range; the column index must have one entry per page.
 * @p what names the chunk in messages.
 * @return 0, INLET_ECORRUPT, INLET_ENOMEM.
 */
int pq_page_index_parse(pq_page_index *pi, const uint8_t *oi, size_t oi_len, const uint8_t *ci,
                        size_t ci_len, int64_t num_rows, int64_t data_start, int64_t data_end,
                        const char *what, inlet_error *err);

/* Most bytes a serialized ColumnIndex or OffsetIndex may take. */
#define PQ_PAGE_INDEX_MAX_BYTES (64 << 20)

/*
 * The page index of top-level field @p field (index in
 * inlet_parquet_reader_schema) in row group @p rg of @p r, read from the
 * file into @p pi. A file without one (or a nested file, or a field that
 * is not a flat column) leaves pi->n_pages at 0 and returns 0. The column
 * index is loaded too when present.
 * @return 0, INLET_ECORRUPT (names the file, column and row group),
 *         INLET_EIO, INLET_ENOMEM.
 */
int pq_reader_page_index(const inlet_parquet_reader *r, int32_t rg, int32_t field,
                         pq_page_index *pi, inlet_error *err);

/* The same for leaf column @p leaf of a flat file, OffsetIndex only (the
 * page locations a row-range read needs). */
int pq_reader_offset_index(const inlet_parquet_reader *r, int32_t rg, int32_t leaf,
                           pq_page_index *pi, inlet_error *err);

/* The physical type of top-level flat field @p field, or -1. */
int32_t pq_reader_field_physical_type(const inlet_parquet_reader *r, int32_t field);

#endif /* INLET_PARQUET_PAGE_INDEX_H */
