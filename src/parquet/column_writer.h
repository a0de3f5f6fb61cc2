/*
 * One leaf column of the Parquet writer: buffers a column chunk's pages in
 * memory (compressed), choosing per chunk between dictionary encoding
 * (PLAIN dictionary page + RLE_DICTIONARY data pages, falling back to PLAIN
 * pages when the dictionary outgrows its limit) and PLAIN, and keeps the
 * chunk's and the file's statistics.
 *
 * Specs: parquet.thrift PageHeader / DataPageHeader / DictionaryPageHeader /
 * ColumnMetaData; Encodings.md (PLAIN, RLE_DICTIONARY, RLE/bit-packed hybrid
 * levels with the 4-byte length prefix of data page v1).
 *
 * The writer is level-based: a page holds definition levels for every value
 * slot and the non-null values. Flat columns derive their levels from the
 * batch's validity bitmap (max definition level 1 for OPTIONAL, none for
 * REQUIRED; pq_column_writer_write). Nested leaves take explicit
 * repetition and definition levels (pq_column_writer_write_levels) from
 * the record shredder (shred.h).
 */
#ifndef INLET_PARQUET_COLUMN_WRITER_H
#define INLET_PARQUET_COLUMN_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "inlet/batch.h"
#include "inlet/error.h"
#include "parquet/buf_stash.h"
#include "parquet/encoding.h"
#include "parquet/page_index.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_schema.h"
#include "parquet/raw_pages.h"
#include "parquet/stats.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/pool.h"

/* Settings shared by every column of a writer (copied from the options). */
typedef struct pq_column_config {
  int32_t codec; /* PQ_CODEC_* */
  int compression_level;
  int64_t page_bytes; /* uncompressed data page target */
  bool dictionary;
  int64_t dictionary_page_bytes; /* PLAIN fallback past this dictionary size */
  int32_t statistics_truncate;
  const char *file_name;   /* borrowed, for messages */
  bool int_delta;          /* INT32/INT64 as DELTA_BINARY_PACKED (no dictionary) */
  bool int_auto;           /* INT32/INT64 PLAIN pages become DELTA_BINARY_PACKED
                              when the estimate says the page shrinks */
  bool float_split;        /* FLOAT/DOUBLE PLAIN pages as BYTE_STREAM_SPLIT */
  int64_t page_max_rows;   /* flat columns: rows per data page at most (0: no limit) */
  bool page_rows_adaptive; /* page_max_rows is the default, not the caller's: a
                              dictionary page whose last page_max_rows rows added
                              no dictionary entry runs on (column_writer.c) */
  bool page_index;         /* collect the page index (page_index.h) */
  util_pool *pool;         /* borrowed, NULL: data pages are compressed on this
                              pool when it has threads (column_writer.c) */
  pq_buf_stash *stash;     /* borrowed, NULL: where buffers are kept between uses */
} pq_column_config;

/* A column writer's slots in a stash (buf_stash.h), from its stash_slot on:
 * its chunk, then a body and a compressed buffer per page in flight, then
 * the page being built (PLAIN values), the page body being encoded and the
 * page's dictionary indices. */
#define PQ_COLUMN_STASH_SLOTS 12
#define PQ_COLUMN_SLOT_PAGE_PLAIN 9
#define PQ_COLUMN_SLOT_BODY 10
#define PQ_COLUMN_SLOT_PAGE_IDX 11

struct pq_pending_page;

typedef struct pq_column_writer {
  const pq_column_desc *desc;  /* borrowed */
  const pq_column_config *cfg; /* borrowed */
  int value_width;        /* physical bytes per value (FLBA: type_length), 0 BOOLEAN/BYTE_ARRAY */
  bool use_dict;          /* dictionary encoding is current for this chunk */
  bool dict_in_chunk;     /* the chunk needs a dictionary page */
  bool dict_decided;      /* the early "is it worth it" check ran */
  bool dict_probe_failed; /* the last probe found nearly all values distinct */
  pq_dict dict;           /* owned */
  bool dict_ready;

  bool level_mode; /* nested leaf (below the root's children, or with
                      levels a bitmap cannot carry): write_levels */
  bool dict_full;  /* level mode: fall back to PLAIN after the current rows */

  /* Current page. */
  int64_t page_rows;            /* value slots (levels) in the page */
  int16_t *page_def, *page_rep; /* owned; level mode: the page's levels */
  size_t levels_cap;            /* entries of page_def / page_rep */
  int64_t page_nulls;
  uint8_t *page_valid;    /* owned; definition bits of the page (OPTIONAL only) */
  int64_t page_valid_cap; /* bytes */
  uint32_t *page_idx;     /* owned; dictionary indices of the page */
  size_t page_idx_n, page_idx_cap;
  inlet_buf page_plain; /* owned; PLAIN values of the page */
  pq_bool_encoder bool_enc;

  /* Current chunk: data pages (header + compressed body), in order, as
   * spans of chunk. */
  inlet_buf chunk;            /* owned; pages with gaps between them */
  int64_t *spans;             /* owned; (offset, length) in chunk of each page */
  size_t n_spans, spans_cap;  /* int64 entries (two per page) */
  int64_t chunk_bytes;        /* sum of the span lengths */
  inlet_buf dict_page;        /* owned; header + body, built at finish */
  int64_t chunk_uncompressed; /* data pages incl. headers (of the pages placed) */
  int64_t chunk_encoded;      /* data page bodies before compression: what row
                                 groups are cut by, known before compression ends */
  int64_t chunk_values;       /* value slots incl. nulls */
  int32_t n_dict_pages_data;  /* data pages RLE_DICTIONARY */
  int32_t n_plain_pages;      /* data pages PLAIN */
  int32_t n_delta_pages;      /* data pages DELTA_BINARY_PACKED */
  bool delta;                 /* this column's data pages are DELTA_BINARY_PACKED */
  bool auto_delta;            /* INT32/INT64 under AUTO: PLAIN pages may become DELTA */
  bool split;                 /* FLOAT/DOUBLE: PLAIN pages go BYTE_STREAM_SPLIT */
  int32_t n_split_pages;      /* data pages BYTE_STREAM_SPLIT */
  int64_t pages_copied;       /* data pages copied (copy_pages), over the writer's life */
  /* Dictionary indices as hints (pq_column_writer_write_hinted). */
  const pq_raw_chunk *hint; /* borrowed for one call */
  int64_t hint_pos;         /* non-null values of that call passed so far */
  uint32_t *hint_map;       /* owned: input index -> dictionary index + 1 (0: not met yet) */
  size_t hint_map_cap;      /* entries */
  int64_t values_hinted;    /* values looked up through a hint, over the writer's life */
  int64_t dict_page_uncompressed;
  pq_stats page_stats;         /* owned; the current page (merged into chunk_stats when it ends) */
  pq_stats chunk_stats;        /* owned; pages ended so far */
  pq_stats file_stats;         /* owned; every chunk finished so far */
  int64_t chunk_rows;          /* rows (not levels) in the chunk so far */
  int64_t page_first_row;      /* row of the chunk the current page starts at */
  int64_t page_cut_rows;       /* flat dictionary pages: rows at which the page is next
                                  considered for a cut (a multiple of page_max_rows) */
  uint32_t stretch_dict_count; /* dictionary entries when the current stretch of
                                  page_max_rows rows began */
  pq_page_index_builder pib;   /* owned; the chunk's page index (cfg->page_index) */
  uint64_t *seen;              /* owned; dictionary indices used by a page, a bit each */
  size_t seen_cap;             /* words */

  /* Data pages being compressed on cfg->pool while the column goes on, a
   * ring in page order (column_writer.c "Pages compressed in parallel"). */
  struct pq_pending_page *pending; /* owned, PENDING_MAX slots; NULL until needed */
  int64_t stash_slot;              /* its first slot in cfg->stash */
  size_t first_pending, n_pending;

  /* Scratch. */
  inlet_buf body;   /* owned; uncompressed page body */
  inlet_buf header; /* owned */
  void *conv;       /* owned; converted physical values */
  size_t conv_cap;  /* bytes */
} pq_column_writer;

int pq_column_writer_init(pq_column_writer *cw, const pq_column_desc *desc,
                          const pq_column_config *cfg, inlet_error *err);
/* Frees everything; the chunk's and pages' buffers go to cfg->stash. */
void pq_column_writer_reset(pq_column_writer *cw);
/* Takes the chunk's and the page's buffers from cfg->stash (after the stash
 * changed). */
void pq_column_writer_take_buffers(pq_column_writer *cw);

/*
 * Appends rows [start, start + n) of @p a (laid out for desc->type).
 * @return 0, INLET_ENOMEM, INLET_EINVAL (a value that cannot be stored:
 *         timestamp seconds overflowing millis, decimal beyond its
 *         precision's width), INLET_ELIMIT, INLET_EIO.
 */
int pq_column_writer_write(pq_column_writer *cw, const inlet_array *a, int64_t start, int64_t n,
                           inlet_error *err);

/* True when the pages of @p raw (raw_pages.h) can stand as this column's
 * pages for the @p n rows they hold: a flat column whose codec, physical
 * layout and page encodings are theirs, and pages of at least half the
 * rows or bytes this column would put in one (the chunk's last aside, and
 * its first when other pages lie between). */
bool pq_column_writer_can_copy(const pq_column_writer *cw, const pq_raw_chunk *raw, int64_t n);
/*
 * Appends rows [start, start + raw->rows) of @p a, which the pages of
 * @p raw decode to, as those pages: each page's compressed body under a
 * header of this writer's, its statistics and page index entry taken from
 * the values; the page being filled ends before them and the chunk's later
 * values are PLAIN. The caller checked pq_column_writer_can_copy.
 * @return as pq_column_writer_write.
 */
int pq_column_writer_copy_pages(pq_column_writer *cw, const inlet_array *a, int64_t start,
                                const pq_raw_chunk *raw, inlet_error *err);
/* True when the dictionary indices @p raw kept for the @p n rows of @p a
 * (raw_pages.h dict_valid) can stand in for hashing them: a flat
 * BYTE_ARRAY column currently building a dictionary. */
bool pq_column_writer_can_hint(const pq_column_writer *cw, const pq_raw_chunk *raw,
                               const inlet_array *a, int64_t n);
/*
 * pq_column_writer_write of rows [0, n) of @p a, looking each distinct
 * input dictionary index up in the chunk's dictionary once: the first row
 * with that index inserts (or finds) its value as usual, later rows take
 * the same dictionary index. The dictionary, the pages and the statistics
 * are exactly those of pq_column_writer_write. The caller checked
 * pq_column_writer_can_hint.
 */
int pq_column_writer_write_hinted(pq_column_writer *cw, const inlet_array *a, int64_t n,
                                  const pq_raw_chunk *raw, inlet_error *err);

/*
 * Level-based append for nested leaves (path longer than one, max
 * repetition level > 0 or max definition level > 1): @p n_levels definition/repetition level pairs
 * (@p def NULL = all at the maximum, @p rep NULL = all 0) covering complete
 * rows (the first repetition level is 0), and the leaf values: rows
 * [start, start + n) of @p a, whose non-null entries correspond in order
 * to the levels equal to the maximum definition level. Pages end only
 * between calls, so rows never straddle pages.
 * @return 0, INLET_EINVAL (levels out of range, counts disagree, not at a
 *         row start), INLET_ENOMEM, INLET_ELIMIT, INLET_EINTERNAL (a flat
 *         column: use pq_column_writer_write).
 */
int pq_column_writer_write_levels(pq_column_writer *cw, const int16_t *def, const int16_t *rep,
                                  int64_t n_levels, const inlet_array *a, int64_t start, int64_t n,
                                  inlet_error *err);

/* Estimated encoded (uncompressed) size of the chunk so far. */
int64_t pq_column_writer_estimate(const pq_column_writer *cw);

/*
 * Ends the chunk: flushes the last page, builds the dictionary page and
 * computes statistics. Then pq_column_writer_write_chunk writes its
 * pq_column_writer_chunk_size bytes.
 * @return 0, INLET_ENOMEM, INLET_EIO.
 */
int pq_column_writer_finish_chunk(pq_column_writer *cw, inlet_error *err);

static inline int64_t pq_column_writer_chunk_size(const pq_column_writer *cw) {
  return (int64_t)cw->dict_page.len + cw->chunk_bytes;
}

/* Appends the finished chunk (dictionary page, then data pages) to @p f.
 * @return 0, or the file's error (INLET_EIO, INLET_ENOMEM). */
int pq_column_writer_write_chunk(pq_column_writer *cw, inlet_wfile *f, inlet_error *err);

/*
 * The finished chunk's page index (before pq_column_writer_chunk_meta, for
 * the chunk written at file offset @p offset): appends its ColumnIndex to
 * @p column_index when one can be written (*has_column_index) and its
 * OffsetIndex to @p offset_index. Nothing is appended without
 * cfg->page_index (*has_offset_index false).
 * @return 0, INLET_ENOMEM, INLET_ELIMIT.
 */
int pq_column_writer_page_index(const pq_column_writer *cw, int64_t offset, inlet_buf *column_index,
                                bool *has_column_index, inlet_buf *offset_index,
                                bool *has_offset_index, inlet_error *err);

/*
 * Fills @p cc for the finished chunk written at file offset @p offset
 * (metadata allocated in @p m's arena), then clears the chunk for the next
 * row group.
 * @return 0, INLET_ENOMEM.
 */
int pq_column_writer_chunk_meta(pq_column_writer *cw, int64_t offset, pq_file_metadata *m,
                                pq_column_chunk *cc, inlet_error *err);

#endif /* INLET_PARQUET_COLUMN_WRITER_H */
