/*
 * The data pages of a column chunk, kept compressed as read, so that a
 * rewrite (compaction) can put them in a new file without compressing them
 * again (raw_pages.c).
 *
 * Compaction decodes every input row group anyway: to check constraints,
 * to take the statistics of the new file from the values, to apply
 * deletion vectors. What it does not need is to encode and compress
 * values that were already encoded and compressed in the same way: with
 * snappy that was 40% of a compaction of seed-shaped files. A chunk whose
 * pages stand alone (data pages v1, no dictionary, an encoding the writer
 * itself writes) is captured here by the reader right after it decoded
 * them; the writer copies each page's compressed body under a header of
 * its own, with the page's statistics and page index entry computed from
 * the decoded values, as if it had encoded them (column_writer.h
 * pq_column_writer_copy_pages). What the copy carries over is only bytes
 * the reader just decoded into exactly the values being written.
 */
#ifndef INLET_PQ_RAW_PAGES_H
#define INLET_PQ_RAW_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "inlet/error.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"
#include "util/buf.h"

/* One data page v1: its compressed body at [off, off + len) of bodies. */
typedef struct pq_raw_page {
  int64_t off;
  int32_t len;
  int32_t uncompressed; /* uncompressed_page_size */
  int32_t num_values;   /* rows: flat columns only */
  int32_t encoding;     /* PQ_ENC_PLAIN, _DELTA_BINARY_PACKED or _BYTE_STREAM_SPLIT */
} pq_raw_page;

/* A column chunk's pages, and what a writer's column must match to take
 * them: the physical layout of the values they hold. */
typedef struct pq_raw_chunk {
  bool valid; /* the chunk was captured (else: encode the values) */
  int32_t codec;
  pq_type physical_type;
  int32_t type_length;
  int16_t max_def_level;
  int32_t converted_type;
  pq_value_conv conv;
  int64_t scale_factor;
  int64_t rows;
  inlet_buf bodies;   /* owned */
  pq_raw_page *pages; /* owned */
  int32_t n_pages, cap_pages;
  /* A BYTE_ARRAY chunk whose data pages are all dictionary-encoded: the
   * dictionary index of each non-null value, so that a writer building its
   * own dictionary looks each distinct value up once (column_writer.c
   * "Dictionary indices as hints") instead of hashing every value. */
  bool dict_valid;
  uint32_t dict_n;    /* entries of the chunk's dictionary; every index is below */
  int64_t dict_rows;  /* rows of the chunk (values and nulls) */
  inlet_buf dict_idx; /* owned: uint32 per non-null value, in row order */
} pq_raw_chunk;

/* Frees what @p c owns and zeroes it (valid false). NULL-safe. */
void pq_raw_chunk_reset(pq_raw_chunk *c);

/* Arrays of raw chunks (one per column of a batch). NULL-safe. */
void pq_raw_chunks_free(pq_raw_chunk *c, int32_t n);

/*
 * Captures the pages of a flat column chunk (@p chunk, @p len bytes: its
 * declared size) that the caller has just decoded whole into @p rows rows.
 * A chunk that does not qualify (a dictionary page, data pages v2, another
 * encoding, levels not RLE, page sizes that do not add up) leaves @p c
 * invalid; that is not an error.
 * @return 0 or INLET_ENOMEM.
 */
int pq_raw_chunk_capture(pq_raw_chunk *c, const pq_column_desc *desc, const pq_column_meta *cm,
                         const uint8_t *chunk, size_t len, int64_t rows, inlet_error *err);

#endif
