/*
 * Column chunk decoding for the Parquet reader: walks the pages of one
 * column chunk (parquet.thrift PageHeader, DictionaryPageHeader,
 * DataPageHeader, DataPageHeaderV2), verifies CRCs, decompresses, decodes
 * definition levels and values (Encodings.md) and writes the values,
 * converted to the column's inlet type, straight into an inlet_array.
 *
 * The page loop is split from the value decoders: every value encoding is
 * one case of decode_values() (the DELTA_* and BYTE_STREAM_SPLIT ones
 * transcode to PLAIN, delta_decode.h), flat columns decode levels straight
 * into validity bitmaps, and nested columns (pq_column_read_levels) keep
 * their repetition and definition levels for nested.c to assemble.
 */
#ifndef INLET_PARQUET_COLUMN_READER_H
#define INLET_PARQUET_COLUMN_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlet/batch.h"
#include "inlet/error.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"
#include "util/buf.h"

/* Where a chunk comes from, for error messages and options. */
typedef struct pq_chunk_ctx {
  const char *file;           /* file name as given to open */
  const pq_column_desc *desc; /* the leaf column */
  int32_t row_group;
  bool verify_checksums;
  size_t slack;        /* bytes appended past the declared chunk size for
                          writers known to under-report it (PARQUET-816) */
  inlet_buf *dict_idx; /* NULL, or: the dictionary index of each non-null value of a
                          BYTE_ARRAY chunk's dictionary-encoded pages is appended
                          (uint32 each, in row order; raw_pages.h) */
} pq_chunk_ctx;

/* Scratch memory reused from chunk to chunk, so that decoding a row group
 * allocates only when a chunk is larger than any before. */
typedef struct pq_column_reader {
  inlet_buf page;          /* owned: decompressed page */
  inlet_buf dict;          /* owned: dictionary values in output form (fixed width)
                              or dictionary bytes (byte arrays) */
  int32_t *dict_offsets;   /* owned: byte-array dictionary, dict_n + 1 entries */
  size_t dict_offsets_cap; /* entries */
  uint32_t dict_n;         /* entries in the current dictionary */
  bool has_dict;
  uint32_t *idx;   /* owned: dictionary indices of one page */
  size_t idx_cap;  /* entries */
  inlet_buf plain; /* owned: a page's values transcoded to PLAIN */
  /* Levels of a nested column chunk (pq_column_read_levels). */
  int16_t *rep_levels; /* owned; NULL-free only after a nested read */
  int16_t *def_levels; /* owned */
  size_t levels_cap;   /* entries of each */
  size_t n_levels;     /* entries decoded by the last nested read */
  int64_t n_dense;     /* non-null values decoded by the last nested read */
  /* Counters over the reader's life (inlet_parquet_reader_get_stats). */
  int64_t pages_decoded; /* data pages inflated and decoded */
  int64_t pages_skipped; /* data pages a row selection passed over */
} pq_column_reader;

void pq_column_reader_init(pq_column_reader *cr);
/* Frees the scratch memory. NULL-safe. */
void pq_column_reader_reset(pq_column_reader *cr);

/*
 * Decodes the column chunk @p chunk[0..chunk_len) (the bytes from its first
 * page to total_compressed_size) described by @p cm into @p out, which must
 * be empty (length 0) and shaped for ctx->desc->field. Exactly @p num_rows
 * values come out of the chunk; only the rows in @p ranges are kept:
 * @p n_ranges sorted, disjoint, non-empty [ranges[2i], ranges[2i+1]) within
 * the row group (NULL: every row). Pages holding no selected row are
 * skipped without being inflated; out->length is the number of selected
 * rows. Flat columns only.
 * @return 0; INLET_ECORRUPT (message names file, column, row group, page and
 *         problem); INLET_EUNSUPPORTED (names the encoding, codec or page
 *         type); INLET_ELIMIT (offsets past INT32_MAX); INLET_ENOMEM.
 */
int pq_column_read_chunk_rows(pq_column_reader *cr, const pq_chunk_ctx *ctx,
                              const pq_column_meta *cm, const uint8_t *chunk, size_t chunk_len,
                              int64_t num_rows, const int64_t *ranges, int32_t n_ranges,
                              inlet_array *out, inlet_error *err);

/* A run of whole pages (header and body each, back to back) of one column
 * chunk: what the OffsetIndex lets a reader fetch instead of the chunk. */
typedef struct pq_page_run {
  const uint8_t *bytes; /* borrowed until the next fetch */
  size_t len;
  int64_t first_row;    /* row of the row group its first data page starts at */
  int64_t end_row;      /* row after its last data page (first_row: no data page) */
  int32_t first_page;   /* 0-based ordinal of its first page in the chunk, for messages */
  int64_t pages_before; /* data pages passed over unread since the previous run */
} pq_page_run;
/* Fetches run @p i (0-based, in file order) into memory that stays valid
 * until the next call. 0 or a negative code. */
typedef int (*pq_page_run_fn)(void *ctx, int32_t i, pq_page_run *run, inlet_error *err);

/*
 * pq_column_read_chunk_rows over @p n_runs page runs instead of the whole
 * chunk: the dictionary run first when the chunk has one, then runs of data
 * pages in row order covering every row of @p ranges (required here). Each
 * run must decode to exactly [first_row, end_row), or the offset index that
 * placed it is wrong: INLET_ECORRUPT. Memory and reading are bounded by the
 * runs. Flat columns only. Returns as pq_column_read_chunk_rows.
 */
int pq_column_read_runs(pq_column_reader *cr, const pq_chunk_ctx *ctx, const pq_column_meta *cm,
                        int64_t num_rows, const int64_t *ranges, int32_t n_ranges, int32_t n_runs,
                        pq_page_run_fn fetch, void *fetch_ctx, inlet_array *out, inlet_error *err);

/*
 * Nested columns (max_rep_level > 0, or a leaf below a group): decodes the
 * chunk's repetition and definition levels into cr->rep_levels and
 * cr->def_levels (cr->n_levels entries; rep levels are all 0 when
 * max_rep_level is 0) and its non-null values densely into @p out from
 * index 0 (cr->n_dense of them; out->length stays 0). The levels must
 * describe exactly @p num_rows records. Assembly into the nested arrays is
 * nested.c's job.
 * @return as pq_column_read_chunk_rows.
 */
int pq_column_read_levels(pq_column_reader *cr, const pq_chunk_ctx *ctx, const pq_column_meta *cm,
                          const uint8_t *chunk, size_t chunk_len, int64_t num_rows,
                          inlet_array *out, inlet_error *err);

/* Moves the @p n_valid dense values at the start of @p a to the slots among
 * [0, n) whose bit in a->validity is set (a->validity must exist). */
void pq_column_spread(const pq_column_desc *desc, inlet_array *a, size_t n, size_t n_valid);

#endif /* INLET_PARQUET_COLUMN_READER_H */
